/* tests for runtime/exec*: many tasks across cores, cross-core messages (exact counts, a
 * full inbox returns -EAGAIN, a new inbox's pages untouched until used, a message runs between
 * ready items), timers in deadline order
 * and cancellation, shutdown with reads in flight (every completion awaited; ASan checks no
 * buffer is lost or reused).
 * Every case runs on the io_uring backend and on the pread fallback. No timing asserts. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"
#include "runtime/coro.h"
#include "runtime/exec.h"
#include "runtime/exec_impl.h"
#include "common/fail.h"

static exec_io_backend g_backend;

static void nap_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* Starts a group; returns NULL (and prints a skip) if io_uring is unavailable here. */
static exec_group_t *start(int threads, unsigned inbox_cap)
{
    exec_opts_t o = exec_opts_default();
    o.threads = threads;
    o.io_backend = g_backend;
    o.inbox_cap = inbox_cap;
    exec_group_t *g = NULL;
    int rc = exec_group_start(&g, &o);
    if (rc != 0 && g_backend == EXEC_IO_URING) {
        SKIP_URING(strerror(-rc)); /* containers without io_uring */
        return NULL;
    }
    CHECK(rc == 0);
    return g;
}

/* exec_group_spawn's failure callback: no test here expects a task it cannot create. */
static void not_spawned(void *arg, int missing, int status)
{
    (void)arg;
    CHECK(missing < 0 && status == 0); /* always fails: reports the call site */
}

static int spawn_retry(exec_group_t *g, int core, coro_fn fn, void *arg)
{
    int rc;
    for (int i = 0; i < 1000000; i++) {
        rc = exec_group_spawn(g, core, fn, arg, 1, not_spawned);
        if (rc != -EAGAIN) return rc;
        nap_us(50);
    }
    return rc;
}

/* ---- thousands of tasks ---- */

enum { TASKS_PER_CORE = 3000 };
static atomic_int g_ran[2], g_wrong_core;

static void count_task(void *arg)
{
    int core = (int)(intptr_t)arg;
    exec_yield();
    if (exec_core_index(exec_current()) != core) atomic_fetch_add(&g_wrong_core, 1);
    atomic_fetch_add(&g_ran[core], 1);
}

static void c_many_tasks(void)
{
    exec_group_t *g = start(2, 0);
    if (!g) return;
    atomic_store(&g_ran[0], 0);
    atomic_store(&g_ran[1], 0);
    atomic_store(&g_wrong_core, 0);
    for (int i = 0; i < TASKS_PER_CORE; i++)
        for (int c = 0; c < 2; c++) CHECK(spawn_retry(g, c, count_task, (void *)(intptr_t)c) == 0);
    for (int i = 0; i < 100000 && atomic_load(&g_ran[0]) + atomic_load(&g_ran[1]) < 2 * TASKS_PER_CORE; i++)
        nap_us(100);
    exec_group_stop(g);
    CHECK_EQ_I64(atomic_load(&g_ran[0]), TASKS_PER_CORE);
    CHECK_EQ_I64(atomic_load(&g_ran[1]), TASKS_PER_CORE);
    CHECK_EQ_I64(atomic_load(&g_wrong_core), 0);
    exec_stats_t st;
    for (int c = 0; c < 2; c++) {
        exec_group_stats(g, c, &st);
        CHECK_EQ_I64(st.live_tasks_at_exit, 0);
        CHECK_EQ_I64(st.posts_run, TASKS_PER_CORE);
        CHECK(st.uring == (g_backend == EXEC_IO_URING));
    }
    exec_group_destroy(g);
}

/* ---- cross-core messages ---- */

enum { MSGS = 20000 };
static int64_t g_recv_count; /* only core 1 writes it; read after join */
static int64_t g_recv_sum;
static atomic_int g_sender_done;
static exec_group_t *g_grp;

static void on_msg(void *ctx)
{
    CHECK(exec_core_index(exec_current()) == 1);
    g_recv_count++;
    g_recv_sum += (int64_t)(intptr_t)ctx;
}

static void sender_task(void *arg)
{
    (void)arg;
    exec_t *target = exec_group_core(g_grp, 1);
    for (intptr_t i = 1; i <= MSGS; i++) {
        int rc;
        while ((rc = exec_post(target, on_msg, (void *)i)) == -EAGAIN) exec_yield();
        CHECK(rc == 0);
    }
    atomic_store(&g_sender_done, 1);
}

static void c_cross_core(void)
{
    g_grp = start(2, 64); /* small inbox: the sender meets -EAGAIN and retries */
    if (!g_grp) return;
    g_recv_count = g_recv_sum = 0;
    atomic_store(&g_sender_done, 0);
    CHECK(exec_group_spawn(g_grp, 0, sender_task, NULL, 1, not_spawned) == 0);
    for (int i = 0; i < 200000 && !atomic_load(&g_sender_done); i++) nap_us(100);
    exec_group_stop(g_grp);
    CHECK_EQ_I64(g_recv_count, MSGS);
    CHECK_EQ_I64(g_recv_sum, (int64_t)MSGS * (MSGS + 1) / 2);
    exec_stats_t st;
    exec_group_stats(g_grp, 1, &st);
    CHECK_EQ_I64(st.posts_run, MSGS + 0);
    exec_group_destroy(g_grp);
}

static atomic_int g_block, g_blocked;

static void block_task(void *arg)
{
    (void)arg;
    atomic_store(&g_blocked, 1);
    while (atomic_load(&g_block)) nap_us(100); /* holds the core's loop on purpose */
}

static void c_inbox_full(void)
{
    exec_group_t *g = start(2, 8);
    if (!g) return;
    g_recv_count = g_recv_sum = 0;
    atomic_store(&g_block, 1);
    atomic_store(&g_blocked, 0);
    CHECK(exec_group_spawn(g, 1, block_task, NULL, 1, not_spawned) == 0);
    while (!atomic_load(&g_blocked)) nap_us(100);
    exec_t *t = exec_group_core(g, 1);
    for (intptr_t i = 1; i <= 8; i++) CHECK_EQ_I64(exec_post(t, on_msg, (void *)i), 0);
    CHECK_EQ_I64(exec_post(t, on_msg, (void *)100), -EAGAIN);
    CHECK_EQ_I64(exec_group_spawn(g, 1, block_task, NULL, 1, not_spawned), -EAGAIN);
    CHECK_EQ_I64(exec_group_spawn(g, 7, block_task, NULL, 1, not_spawned), -EINVAL);
    atomic_store(&g_block, 0);
    exec_group_stop(g);
    CHECK_EQ_I64(exec_post(t, on_msg, (void *)1), -ESHUTDOWN);
    CHECK_EQ_I64(g_recv_count, 8);
    CHECK_EQ_I64(g_recv_sum, 36);
    exec_stats_t st;
    exec_group_stats(g, 1, &st);
    CHECK_EQ_I64(st.posts_rejected_full, 2);
    exec_group_destroy(g);
}

/* A new inbox is untouched (exec.c invariant 1: each slot's seq stored less its index, the
 * slots calloc'd zero, no write): of a 131,072-slot inbox (3 MiB, a dataset runtime's) only the
 * pages 1,000 messages reached are resident (one written slot by slot: every page), and a
 * small inbox runs 10 times its size of messages in order across its wraps. */
static void c_inbox_lazy(void)
{
    /* blocks this large always mapped fresh (glibc's threshold would rise past 3 MiB once one
     * is freed, and calloc clear a reused heap block): only exec's own writes touch it */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    exec_group_t *g = start(2, 1u << 17);
    if (!g) return;
    g_recv_count = g_recv_sum = 0;
    exec_t *t = exec_group_core(g, 1);
    for (intptr_t i = 1; i <= 1000; i++) CHECK_EQ_I64(exec_post(t, on_msg, (void *)i), 0);
    exec_group_stop(g);
    CHECK_EQ_I64(g_recv_count, 1000);
    CHECK_EQ_I64(g_recv_sum, 500500);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (size_t)(t->mask + 1) * sizeof *t->slots;
    uintptr_t at = (uintptr_t)t->slots & ~(uintptr_t)(page - 1); /* (a calloc'd one: unaligned) */
    bytes += (uintptr_t)t->slots - at;
    unsigned char *vec = malloc(bytes / page + 1);
    CHECK(vec && mincore((void *)at, bytes, vec) == 0);
    size_t resident = 0;
    for (size_t i = 0; vec && i < (bytes + page - 1) / page; i++) resident += vec[i] & 1;
    CHECK(resident <= 1000 * sizeof *t->slots / page + 2); /* 6 pages of 768 */
    free(vec);
    exec_group_destroy(g);
    if (!(g = start(2, 8))) return;
    g_recv_count = g_recv_sum = 0;
    t = exec_group_core(g, 1);
    for (intptr_t i = 1; i <= 80; i++) {
        int rc;
        while ((rc = exec_post(t, on_msg, (void *)i)) == -EAGAIN) nap_us(50);
        CHECK_EQ_I64(rc, 0);
    }
    exec_group_stop(g);
    CHECK_EQ_I64(g_recv_count, 80);
    CHECK_EQ_I64(g_recv_sum, 3240);
    exec_group_destroy(g);
}

/* ---- a message between ready items ---- */

static char g_seq[8];
static _Atomic int g_seq_n, g_seq_tasks;

static void seq_note(char c)
{
    int i = atomic_fetch_add(&g_seq_n, 1);
    if (i < (int)sizeof g_seq - 1) g_seq[i] = c;
}

static void seq_msg(void *ctx)
{
    (void)ctx;
    seq_note('M');
}

/* The first of three tasks made ready by one spawn posts a message to its own core. */
static void seq_task(void *arg)
{
    (void)arg;
    seq_note('T');
    if (atomic_fetch_add(&g_seq_tasks, 1) != 0) return;
    CHECK(!exec_inbox_waiting());
    CHECK(exec_post(exec_current(), seq_msg, NULL) == 0);
    CHECK(exec_inbox_waiting());
}

/* A message that arrives while tasks are ready runs after the item running, before the other
 * ready ones (exec.c invariant 5; before, after every ready item: "TTTM"); exec_inbox_waiting
 * sees it meanwhile. */
static void c_msg_between_items(void)
{
    exec_group_t *g = start(1, 0);
    if (!g) return;
    memset(g_seq, 0, sizeof g_seq);
    atomic_store(&g_seq_n, 0);
    atomic_store(&g_seq_tasks, 0);
    CHECK(exec_group_spawn(g, 0, seq_task, NULL, 3, not_spawned) == 0);
    for (int i = 0; i < 100000 && atomic_load(&g_seq_n) < 4; i++) nap_us(100);
    exec_group_stop(g);
    CHECK_EQ_I64(atomic_load(&g_seq_n), 4);
    CHECK(strcmp(g_seq, "TMTT") == 0);
    exec_stats_t st;
    exec_group_stats(g, 0, &st);
    CHECK_EQ_I64(st.posts_run, 2); /* the spawn and the message */
    CHECK_EQ_I64(st.live_tasks_at_exit, 0);
    exec_group_destroy(g);
}

/* ---- timers ---- */

static int g_order[8], g_n_order;
static atomic_int g_timer_done;

static void on_timer(fut_t *f, void *ctx)
{
    CHECK_EQ_I64(fut_status(f), 0);
    g_order[g_n_order++] = (int)(intptr_t)ctx;
}

static void timer_task(void *arg)
{
    (void)arg;
    static const uint64_t ms[5] = {30, 10, 20, 10, 0};
    fut_t *f[5];
    for (int i = 0; i < 5; i++) {
        f[i] = exec_sleep_ns(ms[i] * 1000000ull);
        CHECK(fut_on_ready(f[i], on_timer, (void *)(intptr_t)i) == 0);
    }
    fut_t *dropped = exec_sleep_ns(5000000ull); /* cancelled: never fires */
    fut_unref(dropped);
    for (int i = 0; i < 5; i++) CHECK_EQ_I64(fut_await(f[i]), 0); /* all of them fired */
    for (int i = 0; i < 5; i++) fut_unref(f[i]);
    exec_yield(); /* lets the last on_ready callbacks run */
    fut_t *longest = exec_sleep_ns(60ull * 1000000000ull); /* the stop cancels it */
    atomic_store(&g_timer_done, 1);
    CHECK_EQ_I64(fut_await(longest), -ECANCELED);
    fut_unref(longest);
}

static void c_timers(void)
{
    exec_group_t *g = start(1, 0);
    if (!g) return;
    g_n_order = 0;
    atomic_store(&g_timer_done, 0);
    CHECK(exec_group_spawn(g, 0, timer_task, NULL, 1, not_spawned) == 0);
    for (int i = 0; i < 100000 && !atomic_load(&g_timer_done); i++) nap_us(100);
    exec_group_stop(g);
    CHECK_EQ_I64(g_n_order, 5);
    int want[5] = {4, 1, 3, 2, 0};
    for (int i = 0; i < 5; i++) CHECK_EQ_I64(g_order[i], want[i]);
    exec_stats_t st;
    exec_group_stats(g, 0, &st);
    CHECK_EQ_I64(st.timers_fired, 5);
    CHECK_EQ_I64(st.timers_cancelled, 2);
    CHECK_EQ_I64(st.live_tasks_at_exit, 0);
    exec_group_destroy(g);
}

/* ---- shutdown with reads in flight ---- */

enum { SD_READS = 64, SD_LEN = 65536 };
static char g_path[64];
static io_file_t *g_file;
static atomic_int g_sd_started, g_sd_finished, g_sd_ok, g_sd_cancelled;

static void reader_task(void *arg)
{
    (void)arg;
    io_opts_t o = io_opts_default();
    o.coalesce = false;
    io_ctx_t *ctx = NULL;
    CHECK(io_ctx_new(&ctx, exec_current(), &o) == 0);
    fut_t *f[SD_READS];
    int64_t mine_cancelled = 0;
    for (int round = 0; round < 1000000; round++) {
        for (int i = 0; i < SD_READS; i++) {
            f[i] = io_read(ctx, g_file, (uint64_t)((i * 7 + round) % 60) * SD_LEN, SD_LEN);
            fut_want(f[i]);
        }
        atomic_store(&g_sd_started, 1);
        int stop = 0;
        for (int i = 0; i < SD_READS; i++) {
            int st = fut_await(f[i]);
            if (st == 0) atomic_fetch_add(&g_sd_ok, 1);
            else if (st == -ECANCELED) {
                atomic_fetch_add(&g_sd_cancelled, 1);
                mine_cancelled++;
                stop = 1;
            }
            else CHECK(!"unexpected read status");
            fut_unref(f[i]);
        }
        if (stop) break;
    }
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.requests_failed, mine_cancelled);
    io_ctx_free(ctx);
    atomic_fetch_add(&g_sd_finished, 1);
}

static void c_shutdown_inflight(void)
{
    exec_group_t *g = start(2, 0);
    if (!g) return;
    atomic_store(&g_sd_started, 0);
    atomic_store(&g_sd_finished, 0);
    atomic_store(&g_sd_ok, 0);
    atomic_store(&g_sd_cancelled, 0);
    CHECK(exec_group_spawn(g, 0, reader_task, NULL, 1, not_spawned) == 0);
    CHECK(exec_group_spawn(g, 1, reader_task, NULL, 1, not_spawned) == 0);
    while (!atomic_load(&g_sd_started)) nap_us(50);
    exec_group_stop(g); /* reads in flight now: cancelled, completions awaited */
    CHECK_EQ_I64(atomic_load(&g_sd_finished), 2);
    CHECK(atomic_load(&g_sd_cancelled) >= 1);
    CHECK_EQ_I64((atomic_load(&g_sd_ok) + atomic_load(&g_sd_cancelled)) % SD_READS, 0);
    exec_stats_t st;
    for (int c = 0; c < 2; c++) {
        exec_group_stats(g, c, &st);
        CHECK_EQ_I64(st.live_tasks_at_exit, 0);
    }
    exec_group_destroy(g);
}

/* ---- fd waits (exec_poll) ---- */

enum { POLL_WAITS = 3 }; /* 0: ready once written, 1: cancelled, 2: pending at shutdown */
static int g_pipe[POLL_WAITS][2];
static exec_op_t g_poll_op[POLL_WAITS];
static _Atomic int g_poll_res[POLL_WAITS], g_poll_calls[POLL_WAITS], g_poll_started;

static void poll_done(exec_op_t *op)
{
    int i = (int)(op - g_poll_op);
    atomic_store(&g_poll_res[i], op->res);
    atomic_fetch_add(&g_poll_calls[i], 1);
}

static void cancel_task(void *arg)
{
    (void)arg;
    CHECK_EQ_I64(exec_cancel(exec_current(), &g_poll_op[1]), 0);
}

static void poll_task(void *arg)
{
    (void)arg;
    for (int i = 0; i < POLL_WAITS; i++) {
        g_poll_op[i].done = poll_done;
        CHECK_EQ_I64(exec_poll(exec_current(), &g_poll_op[i], g_pipe[i][0], POLLIN), 0);
    }
    atomic_store(&g_poll_started, 1);
}

/* A wait completes once with POLLIN when its pipe is written, a cancelled one with
 * -ECANCELED, and one still pending when the core stops is cancelled by the stop. */
static void c_polls(void)
{
    exec_group_t *g = start(1, 0);
    if (!g) return;
    for (int i = 0; i < POLL_WAITS; i++) {
        CHECK(pipe(g_pipe[i]) == 0);
        atomic_store(&g_poll_calls[i], 0);
    }
    atomic_store(&g_poll_started, 0);
    CHECK(spawn_retry(g, 0, poll_task, NULL) == 0);
    for (int i = 0; i < 100000 && !atomic_load(&g_poll_started); i++) nap_us(50);
    CHECK(write(g_pipe[0][1], "x", 1) == 1);
    for (int i = 0; i < 100000 && !atomic_load(&g_poll_calls[0]); i++) nap_us(50);
    CHECK(spawn_retry(g, 0, cancel_task, NULL) == 0);
    for (int i = 0; i < 100000 && !atomic_load(&g_poll_calls[1]); i++) nap_us(50);
    exec_group_stop(g);
    CHECK_EQ_I64(atomic_load(&g_poll_calls[0]), 1);
    CHECK_EQ_I64(atomic_load(&g_poll_res[0]) & POLLIN, POLLIN);
    CHECK_EQ_I64(atomic_load(&g_poll_calls[1]), 1);
    CHECK_EQ_I64(atomic_load(&g_poll_res[1]), -ECANCELED);
    CHECK_EQ_I64(atomic_load(&g_poll_calls[2]), 1);
    CHECK_EQ_I64(atomic_load(&g_poll_res[2]), -ECANCELED);
    for (int i = 0; i < POLL_WAITS; i++) {
        close(g_pipe[i][0]);
        close(g_pipe[i][1]);
    }
    exec_group_destroy(g);
}

static void make_file(void)
{
    snprintf(g_path, sizeof g_path, "/tmp/ringscan_test_exec_%d.bin", (int)getpid());
    int fd = open(g_path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    CHECK(fd >= 0);
    static uint8_t buf[64 * SD_LEN];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
    CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
    close(fd);
    char err[256];
    CHECK(io_file_open(&g_file, g_path, err, sizeof err) == 0);
}

static void both(void (*fn)(void))
{
    g_backend = EXEC_IO_URING;
    fn();
    g_backend = EXEC_IO_PREAD;
    fn();
}

/* ---- tasks that cannot be created, groups that cannot start ---- */

static atomic_int g_missing, g_missing_calls, g_missing_status, g_missing_core;

static void record_missing(void *arg, int missing, int status)
{
    CHECK(arg == &g_missing);
    atomic_store(&g_missing_status, status);
    atomic_store(&g_missing_core, exec_core_index(exec_current()));
    atomic_fetch_add(&g_missing, missing);
    atomic_fetch_add(&g_missing_calls, 1); /* last: the waiter reads the rest after it */
}

static void ran_task(void *arg)
{
    CHECK(arg == &g_missing);
    atomic_fetch_add(&g_ran[0], 1);
}

/* The second of three stacks cannot be mapped: one task runs, the callback reports the two
 * others (-ENOMEM) on the core, once; the core still stops cleanly with no task left. */
static void c_spawn_fails(void)
{
    exec_group_t *g = start(1, 0);
    if (!g) return;
    atomic_store(&g_ran[0], 0);
    atomic_store(&g_missing, 0);
    atomic_store(&g_missing_calls, 0);
    atomic_store(&g_missing_core, -1);
    (void)coro_stash_drain(); /* earlier groups' stacks: the stacks here are mapped anew */
    fail_arm(FAIL_STACK, 2, false);
    CHECK(exec_group_spawn(g, 0, ran_task, &g_missing, 3, record_missing) == 0);
    for (int i = 0; i < 100000 && atomic_load(&g_missing_calls) == 0; i++) nap_us(50);
    exec_group_stop(g);
    fail_disarm();
    CHECK_EQ_I64(fail_points_fired(), 1);
    CHECK_EQ_I64(atomic_load(&g_missing_calls), 1);
    CHECK_EQ_I64(atomic_load(&g_missing), 2);
    CHECK_EQ_I64(atomic_load(&g_missing_status), -ENOMEM);
    CHECK_EQ_I64(atomic_load(&g_missing_core), 0);
    CHECK_EQ_I64(atomic_load(&g_ran[0]), 1);
    exec_stats_t st;
    exec_group_stats(g, 0, &st);
    CHECK_EQ_I64(st.live_tasks_at_exit, 0);
    exec_group_destroy(g);
}

/* Thread creation and ring setup failures end exec_group_start with their status (the
 * cores already started are stopped and freed; ASan checks nothing leaks); under
 * EXEC_IO_AUTO a ring that cannot be set up falls back to pread. */
static void start_fails(void)
{
    exec_opts_t o = exec_opts_default();
    o.threads = 3;
    exec_group_t *g = NULL;
    fail_arm(FAIL_THREAD, 2, false);
    CHECK_EQ_I64(exec_group_start(&g, &o), -EAGAIN);
    CHECK_EQ_I64(fail_points_fired(), 1);
    o.io_backend = EXEC_IO_URING;
    fail_arm(FAIL_RING, 2, true);
    int rc = exec_group_start(&g, &o);
    CHECK(rc == -ENOMEM || (rc != 0 && fail_points_fired() == 0)); /* no io_uring at all */
    o.io_backend = EXEC_IO_AUTO;
    fail_arm(FAIL_RING, 1, true);
    CHECK_EQ_I64(exec_group_start(&g, &o), 0);
    fail_disarm();
    for (int i = 0; g && i < o.threads; i++) {
        exec_stats_t st;
        exec_group_stats(g, i, &st);
        CHECK(!st.uring);
    }
    if (g) exec_group_stop(g);
    exec_group_destroy(g);
}

static void spawn_fails(void) { both(c_spawn_fails); }
static void many_tasks(void) { both(c_many_tasks); }
static void cross_core(void) { both(c_cross_core); }
static void inbox_full(void) { both(c_inbox_full); }
static void inbox_lazy(void) { both(c_inbox_lazy); }
static void timers(void) { both(c_timers); }
static void msg_between_items(void) { both(c_msg_between_items); }
static void shutdown_inflight(void) { both(c_shutdown_inflight); }
static void polls(void) { both(c_polls); }

static void bad_options(void)
{
    exec_opts_t o = exec_opts_default();
    o.threads = EXEC_THREADS_MAX + 1;
    exec_group_t *g = NULL;
    CHECK_EQ_I64(exec_group_start(&g, &o), -EINVAL);
    CHECK(exec_current() == NULL);
}

int main(void)
{
    make_file();
    RUN(bad_options);
    RUN(many_tasks);
    RUN(cross_core);
    RUN(inbox_full);
    RUN(inbox_lazy);
    RUN(timers);
    RUN(msg_between_items);
    RUN(shutdown_inflight);
    RUN(polls);
    RUN(spawn_fails);
    RUN(start_fails);
    io_file_close(g_file);
    unlink(g_path);
    return CHECK_DONE("test_exec");
}
