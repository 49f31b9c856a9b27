/* runtime/exec.c: executor groups, core threads, the loop, the inbox and shutdown.
 *
 * Owns: thread start/pin/join, the per-core loop, the bounded inbox (Vyukov's bounded queue,
 * many producers, one consumer: the core), the sleeping-flag protocol, flush hooks and
 * exec_yield waiters. io_uring/pread details live in exec_io.c, timers in exec_timer.c.
 * Invariants:
 *  1. Inbox slot i holds a message iff its seq == pos + 1 for the consumer's pos; producers
 *     claim positions with CAS on enq_pos, so the queue never holds more than cap messages.
 *     A slot stores its seq less its index (slot_seq, slot_set), so a new inbox is zero bytes
 *     and calloc'd without a write (a dataset runtime's 3 MiB per core: a fresh block's pages
 *     stay untouched until messages reach them).
 *  2. Sleeper: wake_pending = 0; sleeping = 1 (seq_cst); fence; re-check inbox and stopping;
 *     only then wait. Poster: publish; fence seq_cst; if sleeping and it wins wake_pending,
 *     it wakes. One of the two always sees the other (no lost wakeup).
 *  3. A posting thread counts itself in `posters` around its stopping check and publish, so
 *     a stopping core drains its inbox only after posters reached 0 (no stranded message).
 *  4. A core exits its loop only when stopping, with no op pending, no timer, an idle
 *     scheduler, no yielder and an empty inbox.
 *  5. Fairness: an iteration runs at most EXEC_INBOX_RUN_MAX messages and at most
 *     run_batch_max ready items, and at least one ready item when one is ready, so neither
 *     messages nor tasks wait on the other for more than one iteration; the items stop early
 *     when a message waits (it waits at most one item). */

#include "runtime/exec.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/exec_impl.h"

static _Thread_local exec_t *exec_tls;

enum { EXEC_INBOX_RUN_MAX = 256 };

exec_opts_t exec_opts_default(void)
{
    exec_opts_t o = {.threads = 1, .pin = false, .io_backend = EXEC_IO_AUTO,
                     .queue_depth = 256, .run_batch_max = 64, .inbox_cap = 4096};
    return o;
}

uint64_t exec_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t exec_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

exec_t *exec_current(void)
{
    return exec_tls;
}

int exec_core_index(const exec_t *e)
{
    assert(e);
    return e->index;
}

uint64_t exec_slept_ns(const exec_t *e)
{
    assert(e);
    return atomic_load_explicit(&e->st.sleep_ns, memory_order_relaxed);
}

bool exec_uses_uring(const exec_t *e)
{
    assert(e);
    return e->uring;
}

int exec_group_threads(const exec_group_t *g)
{
    assert(g && g->n > 0);
    return g->n;
}

exec_t *exec_group_core(exec_group_t *g, int i)
{
    assert(g && i >= 0 && i < g->n);
    return &g->cores[i];
}

/* ---- inbox ---- */

/* Slot s's seq (invariant 1: stored less its index, so slot i starts at seq i from zero). */
static uint64_t slot_seq(const exec_t *e, exec_slot *s)
{
    return atomic_load_explicit(&s->seq, memory_order_acquire) + (uint64_t)(s - e->slots);
}

static void slot_set(const exec_t *e, exec_slot *s, uint64_t seq)
{
    atomic_store_explicit(&s->seq, seq - (uint64_t)(s - e->slots), memory_order_release);
}

static bool exec_inbox_nonempty(exec_t *e)
{
    return slot_seq(e, &e->slots[e->deq_pos & e->mask]) == e->deq_pos + 1;
}

/* Claims a slot and publishes (fn, ctx). 0 or -EAGAIN when full. */
static int exec_inbox_push(exec_t *e, sched_fn fn, void *ctx)
{
    uint64_t pos = atomic_load_explicit(&e->enq_pos, memory_order_relaxed);
    for (int spins = 0; spins < 1 << 20; spins++) {
        exec_slot *s = &e->slots[pos & e->mask];
        uint64_t seq = slot_seq(e, s);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&e->enq_pos, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                s->fn = fn;
                s->ctx = ctx;
                slot_set(e, s, pos + 1);
                return 0;
            }
        } else if (dif < 0) {
            return -EAGAIN;
        } else {
            pos = atomic_load_explicit(&e->enq_pos, memory_order_relaxed);
        }
    }
    return -EAGAIN;
}

/* Runs up to max inbox messages on the core. Returns how many ran. */
static int exec_inbox_run(exec_t *e, int max)
{
    int n = 0;
    while (n < max && exec_inbox_nonempty(e)) {
        exec_slot *s = &e->slots[e->deq_pos & e->mask];
        sched_fn fn = s->fn;
        void *ctx = s->ctx;
        slot_set(e, s, e->deq_pos + e->mask + 1);
        e->deq_pos++;
        fn(ctx);
        n++;
    }
    exec_stat_add(&e->st.posts_run, (uint64_t)n);
    return n;
}

int exec_post(exec_t *target, sched_fn fn, void *ctx)
{
    assert(target && fn);
    atomic_fetch_add(&target->posters, 1);
    int rc = -ESHUTDOWN;
    if (!atomic_load(&target->stopping)) {
        rc = exec_inbox_push(target, fn, ctx);
        if (rc == -EAGAIN) exec_stat_add(&target->st.posts_rejected_full, 1);
    }
    if (rc == 0) {
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load(&target->sleeping) && target != exec_tls &&
            !atomic_exchange(&target->wake_pending, 1))
            exec_io_wake_target(target);
    }
    atomic_fetch_sub(&target->posters, 1);
    return rc;
}

typedef struct exec_spawn_msg {
    coro_fn fn;
    exec_spawn_fail_fn fail;
    void *arg;
    int n;
} exec_spawn_msg;

/* On the core, from its loop's base context: creates the n tasks; those that cannot be
 * created are reported to fail before any of the others has run (they are only queued). */
static void exec_spawn_run(void *p)
{
    exec_spawn_msg m = *(exec_spawn_msg *)p;
    free(p);
    assert(m.n >= 1 && m.fn && m.fail);
    int made = 0, rc = 0;
    while (made < m.n && (rc = sched_spawn(m.fn, m.arg)) == 0) made++;
    assert(made == m.n || rc < 0);
    if (made < m.n) m.fail(m.arg, m.n - made, rc);
}

int exec_group_spawn(exec_group_t *g, int core, coro_fn fn, void *arg, int n,
                     exec_spawn_fail_fn fail)
{
    if (!g || core < 0 || core >= g->n || !fn || !fail || n < 1 || n > SCHED_TASKS_MAX)
        return -EINVAL;
    exec_spawn_msg *m = fail_malloc(sizeof *m);
    if (!m) return -ENOMEM;
    *m = (exec_spawn_msg){.fn = fn, .fail = fail, .arg = arg, .n = n};
    int rc = exec_post(&g->cores[core], exec_spawn_run, m);
    if (rc != 0) free(m);
    return rc;
}

/* ---- hooks and yield ---- */

int exec_hook_add(exec_t *e, exec_hook_fn fn, void *ctx)
{
    assert(e && e == exec_tls && fn);
    if (e->n_hooks >= EXEC_HOOKS_MAX) return -ENOSPC;
    e->hooks[e->n_hooks].fn = fn;
    e->hooks[e->n_hooks].ctx = ctx;
    e->n_hooks++;
    return 0;
}

void exec_hook_remove(exec_t *e, exec_hook_fn fn, void *ctx)
{
    assert(e && e == exec_tls);
    for (int i = 0; i < e->n_hooks; i++) {
        if (e->hooks[i].fn != fn || e->hooks[i].ctx != ctx) continue;
        memmove(&e->hooks[i], &e->hooks[i + 1], (size_t)(e->n_hooks - i - 1) * sizeof e->hooks[0]);
        e->n_hooks--;
        return;
    }
    assert(!"exec_hook_remove: hook not found");
}

void exec_yield(void)
{
    exec_t *e = exec_tls;
    coro_t *self = sched_current();
    assert(e && self);
    if (e->n_yielders == e->cap_yielders) {
        size_t cap = e->cap_yielders ? e->cap_yielders * 2 : 64;
        coro_t **y = fail_realloc(e->yielders, cap * sizeof *y);
        if (!y) { /* cannot park: degrade to a plain reschedule through the ready queue */
            sched_yield_task();
            return;
        }
        e->yielders = y;
        e->cap_yielders = cap;
    }
    e->yielders[e->n_yielders++] = self;
    sched_suspend();
}

bool exec_inbox_waiting(void)
{
    exec_t *e = exec_tls;
    assert(e);
    return exec_inbox_nonempty(e);
}

static int exec_wake_yielders(exec_t *e)
{
    size_t n = e->n_yielders;
    for (size_t i = 0; i < n; i++) sched_wake(e->yielders[i]);
    e->n_yielders = 0;
    return (int)n;
}

/* ---- the loop ---- */

static void exec_stop_begin(exec_t *e)
{
    assert(!e->stop_begun);
    e->stop_begun = true;
    exec_io_cancel_all(e);
    exec_timers_cancel_all(e);
}

static bool exec_drained(exec_t *e)
{
    if (e->n_ops != 0 || e->n_timers != 0 || e->n_yielders != 0 || !sched_idle()) return false;
    if (atomic_load(&e->posters) != 0) return false;
    return !exec_inbox_nonempty(e);
}

/* Sleeps until a completion, a wakeup or the next timer (invariant 2). */
static void exec_sleep(exec_t *e)
{
    atomic_store(&e->wake_pending, 0);
    atomic_store(&e->sleeping, 1);
    atomic_thread_fence(memory_order_seq_cst);
    if (!exec_inbox_nonempty(e) && !(atomic_load(&e->stopping) && !e->stop_begun)) {
        uint64_t next = exec_timers_next_ns(e), now = exec_now_ns();
        uint64_t timeout_ns = next == UINT64_MAX ? UINT64_MAX : (next > now ? next - now : 0);
        exec_stat_add(&e->st.sleeps, 1);
        uint64_t cpu = exec_thread_cpu_ns();
        exec_io_wait(e, timeout_ns);
        /* off the CPU only: the wait's own submission may copy a cached read inline */
        uint64_t woke = exec_now_ns(), ran = exec_thread_cpu_ns() - cpu;
        exec_stat_add(&e->st.sleep_ns, woke > now + ran ? woke - now - ran : 0);
    }
    atomic_store(&e->sleeping, 0);
}

/* Runs up to max ready items and ends early, after one at least, once a message waits: it is
 * then served at the top of the next iteration, after one task step instead of after every
 * ready one's (a lend another core waits for behind 64 steps of ~5 ms each; invariant 5). */
static int exec_run_items(exec_t *e, int max)
{
    int n = 0;
    while (n < max && sched_run(1) == 1) {
        n++;
        if (exec_inbox_nonempty(e)) break;
    }
    return n;
}

/* One iteration; returns true when the core has drained after stopping. */
static bool exec_loop_once(exec_t *e)
{
    int ran = exec_inbox_run(e, EXEC_INBOX_RUN_MAX);
    exec_timers_fire(e);
    int items = exec_run_items(e, e->g->opts.run_batch_max);
    exec_stat_add(&e->st.items_run, (uint64_t)items);
    ran += items;
    for (int i = 0; i < e->n_hooks; i++) e->hooks[i].fn(e->hooks[i].ctx);
    exec_io_poll(e);
    ran += exec_io_run_completions(e);
    ran += exec_wake_yielders(e);
    exec_stat_add(&e->st.loops, 1);
    if (atomic_load(&e->stopping)) {
        if (!e->stop_begun) {
            exec_stop_begin(e);
            return false;
        }
        if (exec_drained(e)) return true;
    }
    if (ran != 0 || !sched_idle() || e->done_head != NULL) return false;
    if (e->stop_begun && e->n_ops == 0) {
        sched_yield(); /* only a racing poster (posters > 0) can be left: never sleep on it */
        return false;
    }
    exec_sleep(e);
    return false;
}

static void exec_pin(exec_t *e)
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    int count = CPU_COUNT(&allowed);
    if (count <= 0) return;
    int want = e->index % count, seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) continue;
        if (seen++ != want) continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        return;
    }
}

static void *exec_thread_main(void *arg)
{
    exec_t *e = arg;
    exec_tls = e;
    if (e->g->opts.pin) exec_pin(e);
    e->init_status = exec_io_init(e);
    sem_post(&e->ready);
    if (e->init_status != 0) return NULL;
    while (!exec_loop_once(e)) {
    }
    atomic_store(&e->st.live_tasks_at_exit, sched_live_tasks());
    coro_pool_drain();
    exec_tls = NULL;
    return NULL;
}

static int exec_core_init(exec_group_t *g, exec_t *e, int index)
{
    e->g = g;
    e->index = index;
    e->ring_fd = -1;
    e->event_fd = -1;
    e->inflight.prev = e->inflight.next = &e->inflight;
    uint64_t cap = 1;
    while (cap < g->opts.inbox_cap) cap <<= 1;
    e->slots = fail_calloc(cap, sizeof *e->slots); /* (zero: slot i at seq i, invariant 1) */
    if (!e->slots) return -ENOMEM;
    e->mask = cap - 1;
    if (sem_init(&e->ready, 0, 0) != 0) {
        free(e->slots);
        e->slots = NULL;
        return -ENOMEM;
    }
    return 0;
}

static int exec_opts_check(exec_opts_t *o)
{
    exec_opts_t d = exec_opts_default();
    if (o->threads == 0) o->threads = d.threads;
    if (o->queue_depth == 0) o->queue_depth = d.queue_depth;
    if (o->run_batch_max == 0) o->run_batch_max = d.run_batch_max;
    if (o->inbox_cap == 0) o->inbox_cap = d.inbox_cap;
    if (o->threads < 1 || o->threads > EXEC_THREADS_MAX) return -EINVAL;
    if (o->queue_depth > 32768 || o->run_batch_max < 1 || o->inbox_cap > (1u << 24)) return -EINVAL;
    if (o->io_backend < EXEC_IO_AUTO || o->io_backend > EXEC_IO_PREAD) return -EINVAL;
    return 0;
}

int exec_group_start(exec_group_t **out, const exec_opts_t *opts)
{
    exec_opts_t o = opts ? *opts : exec_opts_default();
    int rc = exec_opts_check(&o);
    if (rc != 0) return rc;
    exec_group_t *g = fail_calloc(1, sizeof *g);
    if (!g) return -ENOMEM;
    g->opts = o;
    atomic_init(&g->msg_ring_ok, 1);
    g->cores = fail_calloc((size_t)o.threads, sizeof *g->cores);
    if (!g->cores) goto fail_nomem;
    for (g->n = 0; g->n < o.threads; g->n++) {
        rc = exec_core_init(g, &g->cores[g->n], g->n);
        if (rc != 0) goto fail;
    }
    /* every thread is created before any is waited for: their ring setups run at once (a
     * scan starts a group per scan; two threads started one after the other took 0.107 ms,
     * one took 0.047) */
    int created = 0;
    for (; created < g->n; created++) {
        exec_t *e = &g->cores[created];
        rc = fail_point(FAIL_THREAD) ? -EAGAIN
                                     : -pthread_create(&e->thread, NULL, exec_thread_main, e);
        if (rc != 0) break;
        e->thread_started = true;
    }
    for (int i = 0; i < created; i++) { /* each started one is ready (or failed) before a stop */
        exec_t *e = &g->cores[i];
        while (sem_wait(&e->ready) != 0) assert(errno == EINTR);
        if (rc == 0 && e->init_status != 0) rc = e->init_status;
    }
    if (rc != 0) goto fail;
    *out = g;
    return 0;
fail_nomem:
    rc = -ENOMEM;
fail:
    exec_group_stop(g);
    exec_group_destroy(g);
    return rc;
}

int exec_group_stop(exec_group_t *g)
{
    assert(g && exec_tls == NULL);
    for (int i = 0; i < g->n; i++) {
        exec_t *e = &g->cores[i];
        atomic_store(&e->stopping, 1);
        if (e->thread_started && e->init_status == 0) exec_io_wake_target(e);
    }
    for (int i = 0; i < g->n; i++) {
        exec_t *e = &g->cores[i];
        if (!e->thread_started) continue;
        pthread_join(e->thread, NULL);
        e->thread_started = false;
    }
    return 0;
}

void exec_group_destroy(exec_group_t *g)
{
    if (!g) return;
    for (int i = 0; i < g->n; i++) {
        exec_t *e = &g->cores[i];
        assert(!e->thread_started);
        exec_io_fini(e);
        exec_timers_fini(e);
        free(e->yielders);
        free(e->slots);
        sem_destroy(&e->ready);
    }
    free(g->cores);
    free(g);
}

void exec_group_stats(const exec_group_t *g, int i, exec_stats_t *out)
{
    assert(g && out && i >= 0 && i < g->n);
    const exec_t *e = &g->cores[i];
    const exec_counters *c = &e->st;
    memset(out, 0, sizeof *out);
#define EXEC_COPY(f) out->f = atomic_load_explicit(&c->f, memory_order_relaxed)
    EXEC_COPY(loops); EXEC_COPY(items_run); EXEC_COPY(sleeps); EXEC_COPY(posts_run);
    EXEC_COPY(posts_rejected_full); EXEC_COPY(wakes_msg_ring); EXEC_COPY(wakes_eventfd);
    EXEC_COPY(reads_issued); EXEC_COPY(cancels_issued); EXEC_COPY(completions);
    EXEC_COPY(sq_full_retries); EXEC_COPY(enter_busy_retries); EXEC_COPY(timers_fired);
    EXEC_COPY(timers_cancelled); EXEC_COPY(sleep_ns); EXEC_COPY(live_tasks_at_exit);
#undef EXEC_COPY
    out->uring = e->uring;
    out->ring_flags = e->ring_flags;
    snprintf(out->io_backend, sizeof out->io_backend, "%s", e->backend);
}
