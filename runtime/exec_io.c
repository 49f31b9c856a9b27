/* runtime/exec_io.c: a core's I/O backend: its io_uring, or the pread fallback.
 *
 * Owns: ring setup (SINGLE_ISSUER|DEFER_TASKRUN|COOP_TASKRUN, then fewer flags, then plain;
 * EPERM/ENOSYS and friends fall back to pread), SQE acquisition with SQ-full handling,
 * submission with -EBUSY/-EAGAIN/-EINTR handling, reaping into the completion list, running
 * completions, cancellation, the eventfd read that lets non-core threads wake the core, and
 * wakeups (MSG_RING from a core with a ring, eventfd otherwise).
 * Invariants:
 *  1. Reaping only moves ops to the completion list; done callbacks run in
 *     exec_io_run_completions, after the reaping loop, so callbacks never nest in reaping.
 *  2. Every op in the in-flight list has exactly one SQE (or pread queue entry) outstanding.
 *  3. The pread backend runs at most EXEC_PREAD_BATCH preads per poll, on the core thread,
 *     so a core keeps running timers and inbox messages between batches.
 *  4. On the pread backend, polls[0..n_polls) are exactly the fd waits started and not yet
 *     completed (state EXEC_OP_QUEUED_POLL); they are polled without blocking every
 *     iteration and with the eventfd when the core sleeps. */

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime/exec_impl.h"
#include "common/fail.h"

enum { EXEC_PREAD_BATCH = 64, EXEC_SUBMIT_TRIES_MAX = 1 << 16 };

static atomic_flag exec_fallback_reported = ATOMIC_FLAG_INIT;

static void exec_event_done(exec_op_t *op);

static void exec_inflight_link(exec_t *e, exec_op_t *op)
{
    op->next = &e->inflight;
    op->prev = e->inflight.prev;
    e->inflight.prev->next = op;
    e->inflight.prev = op;
}

static void exec_inflight_unlink(exec_op_t *op)
{
    op->prev->next = op->next;
    op->next->prev = op->prev;
    op->prev = op->next = NULL;
}

static void exec_done_push(exec_t *e, exec_op_t *op, int32_t res)
{
    op->state = EXEC_OP_DONE_LIST;
    op->res = res;
    op->cnext = NULL;
    if (e->done_tail) e->done_tail->cnext = op;
    else e->done_head = op;
    e->done_tail = op;
}

/* The result of a finished populate op: its length (op->off) on success (io_uring and
 * madvise both return 0), else the errno. */
static int32_t exec_populate_res(const exec_op_t *op, int32_t res)
{
    return res == 0 ? (int32_t)op->off : res;
}

/* One CQE: tags are handled here; ops only move to the completion list (invariant 1). */
static void exec_cqe(exec_t *e, uint64_t ud, int32_t res)
{
    if (ud == UINT64_MAX) return; /* liburing's internal timeout (no EXT_ARG kernels) */
    if (ud < EXEC_UD_TAG_MAX) {
        if ((ud & 0xff) == EXEC_UD_MSG_SENT && res < 0) {
            int target = (int)(ud >> 8);
            assert(target >= 0 && target < e->g->n);
            atomic_store(&e->g->msg_ring_ok, 0); /* e.g. -EINVAL on an old kernel */
            uint64_t one = 1;
            ssize_t w = write(e->g->cores[target].event_fd, &one, sizeof one);
            (void)w;
        }
        return;
    }
    exec_op_t *op = (exec_op_t *)(uintptr_t)ud;
    assert(op->state == EXEC_OP_INFLIGHT);
    exec_inflight_unlink(op);
    exec_done_push(e, op, op->populate ? exec_populate_res(op, res) : res);
    exec_stat_add(&e->st.completions, 1);
}

static void exec_reap(exec_t *e)
{
    unsigned head, n = 0;
    struct io_uring_cqe *cqe;
    io_uring_for_each_cqe(&e->ring, head, cqe)
    {
        exec_cqe(e, cqe->user_data, cqe->res);
        n++;
    }
    io_uring_cq_advance(&e->ring, n);
}

/* Submits prepared SQEs (and runs deferred task work when ops are pending). */
static void exec_submit(exec_t *e)
{
    for (int tries = 0; tries < EXEC_SUBMIT_TRIES_MAX; tries++) {
        bool need_events = e->n_ops > 0 && (e->ring_flags & IORING_SETUP_DEFER_TASKRUN);
        if (io_uring_sq_ready(&e->ring) == 0 && !need_events) return;
        int rc = need_events ? io_uring_submit_and_get_events(&e->ring)
                             : io_uring_submit(&e->ring);
        if (rc >= 0 && io_uring_sq_ready(&e->ring) == 0) return;
        if (rc >= 0 || rc == -EINTR) continue;
        if (rc == -EBUSY || rc == -EAGAIN) { /* CQ overflow or no resources: reap, retry */
            exec_stat_add(&e->st.enter_busy_retries, 1);
            exec_reap(e);
            continue;
        }
        fprintf(stderr, "ringscan: exec core %d: io_uring_enter: %s\n", e->index, strerror(-rc));
        abort(); /* the ring is unusable: ops would never complete */
    }
    fprintf(stderr, "ringscan: exec core %d: submission made no progress\n", e->index);
    abort();
}

static struct io_uring_sqe *exec_sqe(exec_t *e)
{
    for (int tries = 0; tries < EXEC_SUBMIT_TRIES_MAX; tries++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);
        if (sqe) return sqe;
        exec_stat_add(&e->st.sq_full_retries, 1); /* SQ full: submit, reap, take again */
        exec_submit(e);
        exec_reap(e);
    }
    fprintf(stderr, "ringscan: exec core %d: no SQE after submitting\n", e->index);
    abort();
}

/* Puts idle op in flight (invariant 2's list, n_ops) with its arguments. */
static void exec_op_begin(exec_t *e, exec_op_t *op, int fd, void *buf, uint32_t len,
                          uint64_t off)
{
    assert(op->state == EXEC_OP_IDLE && op->done);
    exec_inflight_link(e, op);
    e->n_ops++;
    op->res = 0;
    op->fd = fd;
    op->vectored = false;
    op->populate = false;
    op->buf = buf;
    op->len = len;
    op->off = off;
}

/* Submits op, begun with exec_op_begin (vectored set): an SQE, or the pread queue. */
static void exec_op_submit(exec_t *e, exec_op_t *op)
{
    if (e->uring) {
        op->state = EXEC_OP_INFLIGHT;
        struct io_uring_sqe *sqe = exec_sqe(e);
        if (op->populate)
            io_uring_prep_madvise(sqe, op->buf, op->len, MADV_POPULATE_READ);
        else if (op->vectored)
            io_uring_prep_readv(sqe, op->fd, op->buf, op->len, op->off);
        else
            io_uring_prep_read(sqe, op->fd, op->buf, op->len, op->off);
        io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)op);
        return;
    }
    op->state = EXEC_OP_QUEUED_PREAD;
    op->cnext = NULL;
    if (e->pread_tail) e->pread_tail->cnext = op;
    else e->pread_head = op;
    e->pread_tail = op;
}

/* Begins and submits a plain read of len bytes at off of fd into buf. */
static void exec_op_start(exec_t *e, exec_op_t *op, int fd, void *buf, uint32_t len,
                          uint64_t off)
{
    assert(len <= EXEC_READ_BYTES_MAX);
    exec_op_begin(e, op, fd, buf, len, off);
    exec_op_submit(e, op);
}

int exec_poll(exec_t *e, exec_op_t *op, int fd, uint32_t events)
{
    assert(e && e == exec_current() && op && op->done && op->state == EXEC_OP_IDLE && fd >= 0);
    if (e->stop_begun) return -ESHUTDOWN;
    if (!e->uring && e->n_polls >= EXEC_POLLS_MAX) return -ENOSPC;
    exec_op_begin(e, op, fd, NULL, events, 0);
    if (e->uring) {
        op->state = EXEC_OP_INFLIGHT;
        struct io_uring_sqe *sqe = exec_sqe(e);
        io_uring_prep_poll_add(sqe, fd, events);
        io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)op);
        return 0;
    }
    op->state = EXEC_OP_QUEUED_POLL;
    e->polls[e->n_polls++] = op;
    return 0;
}

/* Removes fd wait i of the pread backend and completes it with res (invariant 4). */
static void exec_poll_finish(exec_t *e, int i, int32_t res)
{
    assert(i >= 0 && i < e->n_polls);
    exec_op_t *op = e->polls[i];
    assert(op->state == EXEC_OP_QUEUED_POLL);
    e->polls[i] = e->polls[--e->n_polls];
    exec_inflight_unlink(op);
    exec_done_push(e, op, res);
    exec_stat_add(&e->st.completions, 1);
}

/* Polls the pread backend's fd waits (and its eventfd when wait_fd) for up to timeout
 * (NULL: forever); completes the ready ones. */
static void exec_polls_run(exec_t *e, const struct timespec *timeout, bool wait_fd)
{
    struct pollfd p[EXEC_POLLS_MAX + 1];
    int n = e->n_polls;
    for (int i = 0; i < n; i++)
        p[i] = (struct pollfd){.fd = e->polls[i]->fd, .events = (short)e->polls[i]->len};
    if (wait_fd) p[n] = (struct pollfd){.fd = e->event_fd, .events = POLLIN};
    if (ppoll(p, (nfds_t)(n + (wait_fd ? 1 : 0)), timeout, NULL) <= 0) return;
    if (wait_fd && p[n].revents) {
        uint64_t v;
        ssize_t r = read(e->event_fd, &v, sizeof v); /* nonblocking: drain the counter */
        (void)r;
    }
    for (int i = n - 1; i >= 0; i--) /* from the end: finishing i moves the last one into i */
        if (p[i].revents) exec_poll_finish(e, i, (int32_t)(p[i].revents & 0xffff));
}

int exec_read(exec_t *e, exec_op_t *op, int fd, void *buf, uint32_t len, uint64_t off)
{
    assert(e && e == exec_current() && op && buf && fd >= 0);
    assert(len <= EXEC_READ_BYTES_MAX);
    if (e->stop_begun) return -ESHUTDOWN;
    exec_op_start(e, op, fd, buf, len, off);
    exec_stat_add(&e->st.reads_issued, 1);
    return 0;
}

int exec_readv(exec_t *e, exec_op_t *op, int fd, const struct iovec *iov, int n, uint64_t off)
{
    assert(e && e == exec_current() && op && iov && fd >= 0 && n >= 1 && n <= EXEC_IOV_MAX);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) total += iov[i].iov_len;
    assert(total <= EXEC_READ_BYTES_MAX);
    (void)total;
    if (e->stop_begun) return -ESHUTDOWN;
    exec_op_begin(e, op, fd, (void *)iov, (uint32_t)n, off);
    op->vectored = true;
    exec_op_submit(e, op);
    exec_stat_add(&e->st.reads_issued, 1);
    return 0;
}

int exec_populate(exec_t *e, exec_op_t *op, const void *addr, uint32_t len)
{
    assert(e && e == exec_current() && op && addr && len > 0 && len <= EXEC_READ_BYTES_MAX);
    if (e->stop_begun) return -ESHUTDOWN;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)addr & ~(page - 1); /* madvise wants page-aligned ranges */
    exec_op_begin(e, op, -1, (void *)start, (uint32_t)((uintptr_t)addr - start) + len, len);
    op->populate = true;
    exec_op_submit(e, op);
    exec_stat_add(&e->st.reads_issued, 1);
    return 0;
}

static bool exec_pread_dequeue(exec_t *e, exec_op_t *op)
{
    exec_op_t **pp = &e->pread_head, *prev = NULL;
    for (; *pp; prev = *pp, pp = &(*pp)->cnext) {
        if (*pp != op) continue;
        *pp = op->cnext;
        if (e->pread_tail == op) e->pread_tail = prev;
        op->cnext = NULL;
        return true;
    }
    return false;
}

int exec_cancel(exec_t *e, exec_op_t *op)
{
    assert(e && e == exec_current() && op);
    if (op->state == EXEC_OP_INFLIGHT) {
        assert(e->uring);
        struct io_uring_sqe *sqe = exec_sqe(e);
        io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)op, 0);
        io_uring_sqe_set_data64(sqe, EXEC_UD_CANCEL);
        exec_stat_add(&e->st.cancels_issued, 1);
        return 0;
    }
    if (op->state == EXEC_OP_QUEUED_PREAD) {
        bool found = exec_pread_dequeue(e, op);
        assert(found);
        (void)found;
        exec_inflight_unlink(op);
        exec_done_push(e, op, -ECANCELED);
        exec_stat_add(&e->st.cancels_issued, 1);
        return 0;
    }
    if (op->state == EXEC_OP_QUEUED_POLL) {
        for (int i = 0; i < e->n_polls; i++) {
            if (e->polls[i] != op) continue;
            exec_poll_finish(e, i, -ECANCELED);
            exec_stat_add(&e->st.cancels_issued, 1);
            return 0;
        }
        assert(!"a queued poll is in polls (invariant 4)");
    }
    return -ENOENT;
}

void exec_complete(exec_t *e, exec_op_t *op, int32_t res)
{
    assert(e && e == exec_current() && op && op->state == EXEC_OP_IDLE && op->done);
    e->n_ops++;
    exec_done_push(e, op, res);
}

int64_t exec_ops_pending(const exec_t *e)
{
    assert(e);
    return e->n_ops - (e->event_op.state != EXEC_OP_IDLE ? 1 : 0);
}

void exec_io_cancel_all(exec_t *e)
{
    exec_op_t *op = e->inflight.next;
    while (op != &e->inflight) {
        exec_op_t *next = op->next;
        exec_cancel(e, op);
        op = next;
    }
    if (e->uring) exec_submit(e);
}

int exec_io_run_completions(exec_t *e)
{
    exec_op_t *list = e->done_head;
    e->done_head = e->done_tail = NULL;
    int n = 0;
    while (list) {
        exec_op_t *op = list;
        list = op->cnext;
        assert(op->state == EXEC_OP_DONE_LIST);
        op->cnext = NULL;
        op->state = EXEC_OP_IDLE;
        assert(e->n_ops > 0);
        e->n_ops--;
        op->done(op);
        n++;
    }
    return n;
}

static void exec_pread_run(exec_t *e)
{
    for (int i = 0; i < EXEC_PREAD_BATCH && e->pread_head; i++) {
        exec_op_t *op = e->pread_head;
        e->pread_head = op->cnext;
        if (!e->pread_head) e->pread_tail = NULL;
        ssize_t r;
        int tries = 0;
        do {
            if (op->populate)
                r = madvise(op->buf, op->len, MADV_POPULATE_READ);
            else
                r = op->vectored ? preadv(op->fd, op->buf, (int)op->len, (off_t)op->off)
                                 : pread(op->fd, op->buf, op->len, (off_t)op->off);
        } while (r < 0 && (errno == EINTR || errno == EAGAIN) && ++tries < 1000);
        exec_inflight_unlink(op);
        int32_t res = r < 0 ? -errno : (int32_t)r;
        exec_done_push(e, op, op->populate ? exec_populate_res(op, res) : res);
        exec_stat_add(&e->st.completions, 1);
    }
}

void exec_io_poll(exec_t *e)
{
    if (!e->uring) {
        exec_pread_run(e);
        if (e->n_polls > 0) exec_polls_run(e, &(struct timespec){0, 0}, false);
        return;
    }
    exec_submit(e);
    exec_reap(e);
}

void exec_io_wait(exec_t *e, uint64_t timeout_ns)
{
    struct __kernel_timespec kts, *ktsp = NULL;
    if (timeout_ns != UINT64_MAX) {
        kts.tv_sec = (long long)(timeout_ns / 1000000000ull);
        kts.tv_nsec = (long long)(timeout_ns % 1000000000ull);
        ktsp = &kts;
    }
    if (e->uring) {
        struct io_uring_cqe *cqe;
        int rc = io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, ktsp, NULL);
        if (rc == -EBUSY || rc == -EAGAIN) exec_stat_add(&e->st.enter_busy_retries, 1);
        exec_reap(e); /* -ETIME, -EINTR: nothing to do but look */
        return;
    }
    struct timespec ts, *tsp = NULL;
    if (ktsp) {
        ts.tv_sec = (time_t)kts.tv_sec;
        ts.tv_nsec = (long)kts.tv_nsec;
        tsp = &ts;
    }
    exec_polls_run(e, tsp, true);
}

static void exec_event_done(exec_op_t *op)
{
    exec_t *e = (exec_t *)((char *)op - offsetof(exec_t, event_op));
    if (e->stop_begun || op->res == -ECANCELED) return;
    exec_op_start(e, op, e->event_fd, &e->event_buf, sizeof e->event_buf, 0);
}

void exec_io_wake_target(exec_t *target)
{
    exec_t *self = exec_current();
    if (self && self->uring && target->uring && atomic_load(&target->g->msg_ring_ok) &&
        !self->stop_begun) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&self->ring);
        if (sqe) {
            io_uring_prep_msg_ring(sqe, target->ring_fd, 0, EXEC_UD_WAKE, 0);
            io_uring_sqe_set_data64(sqe, EXEC_UD_MSG_SENT | ((uint64_t)target->index << 8));
            int rc = io_uring_submit(&self->ring);
            (void)rc; /* on failure the SQE goes with the next submit: a late wake */
            atomic_fetch_add_explicit(&target->st.wakes_msg_ring, 1, memory_order_relaxed);
            return;
        }
    }
    uint64_t one = 1;
    ssize_t w = write(target->event_fd, &one, sizeof one);
    (void)w; /* EAGAIN means the counter is saturated: the target is woken anyway */
    atomic_fetch_add_explicit(&target->st.wakes_eventfd, 1, memory_order_relaxed);
}

static void exec_report_fallback(exec_t *e, int rc)
{
    snprintf(e->backend, sizeof e->backend, "pread (io_uring unavailable: %s)", strerror(-rc));
    if (!atomic_flag_test_and_set(&exec_fallback_reported))
        fprintf(stderr, "ringscan: io_backend: %s\n", e->backend);
}

/* Tries the flag sets from richest to plain. Returns 0 or the last setup error. */
static int exec_ring_setup(exec_t *e)
{
    static const unsigned flag_sets[] = {
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN,
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN, IORING_SETUP_COOP_TASKRUN, 0};
    int rc = -ENOSYS;
    for (size_t i = 0; i < sizeof flag_sets / sizeof flag_sets[0]; i++) {
        struct io_uring_params p;
        memset(&p, 0, sizeof p);
        p.flags = flag_sets[i] | IORING_SETUP_CQSIZE;
        p.cq_entries = 2 * e->g->opts.queue_depth;
        rc = fail_point(FAIL_RING) ? -ENOMEM
                                   : io_uring_queue_init_params(e->g->opts.queue_depth, &e->ring, &p);
        if (rc == 0) {
            e->ring_flags = flag_sets[i];
            return 0;
        }
        if (rc != -EINVAL) return rc; /* EPERM, ENOSYS, ENOMEM: fewer flags will not help */
    }
    return rc;
}

int exec_io_init(exec_t *e)
{
    exec_io_backend want = e->g->opts.io_backend;
    int rc = want == EXEC_IO_PREAD ? -1 : exec_ring_setup(e);
    if (rc == 0) {
        e->uring = true;
        e->ring_fd = e->ring.ring_fd;
        unsigned workers[2] = {4, 4}; /* bound io-wq (buffered reads rarely use it) */
        io_uring_register_iowq_max_workers(&e->ring, workers);
        snprintf(e->backend, sizeof e->backend, "io_uring");
    } else if (want == EXEC_IO_URING) {
        return rc;
    } else if (want == EXEC_IO_PREAD) {
        snprintf(e->backend, sizeof e->backend, "pread (forced by option)");
    } else {
        exec_report_fallback(e, rc);
    }
    e->event_fd = eventfd(0, EFD_CLOEXEC | (e->uring ? 0 : EFD_NONBLOCK));
    if (e->event_fd < 0) {
        rc = -errno;
        exec_io_fini(e);
        return rc;
    }
    e->event_op.done = exec_event_done;
    if (e->uring) exec_op_start(e, &e->event_op, e->event_fd, &e->event_buf,
                                sizeof e->event_buf, 0);
    return 0;
}

void exec_io_fini(exec_t *e)
{
    if (e->uring) {
        io_uring_queue_exit(&e->ring);
        e->uring = false;
        e->ring_fd = -1;
    }
    if (e->event_fd >= 0) close(e->event_fd);
    e->event_fd = -1;
}
