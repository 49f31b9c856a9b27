/* runtime/exec.h: the per-core executor: one thread per core, each with its own io_uring
 * (or a pread fallback), its scheduler (runtime/sched.h), timers and a cross-core inbox.
 *
 * Owns: the executor threads and their loop, the rings, the pread fallback, the inbox queues
 * and wakeups (IORING_OP_MSG_RING, eventfd fallback), the timer heaps, clean shutdown.
 * Loop of one core: run inbox messages -> fire due timers -> run up to run_batch_max ready
 * sched items (fewer when a message arrives meanwhile: after the item that is running, the
 * iteration goes on to its end and the next serves the message) -> flush hooks (io/ submits
 * wanted reads) -> submit and reap (or run preads) -> run completion callbacks -> wake
 * exec_yield() waiters -> sleep when nothing is ready.
 * Invariants:
 *  1. Everything of a core (ring, sched, futures, timers, ops) is touched only by its thread;
 *     the only cross-thread entry points are exec_post/exec_group_spawn (bounded MPSC inbox)
 *     and exec_group_stop (an atomic flag plus a wakeup).
 *  2. An exec_op_t completes exactly once: its done callback runs once, from the completion
 *     phase of its core's loop, never from inside the reaping loop nor from exec_read().
 *  3. Memory handed to exec_read() or exec_readv() (the op, its buffer, its iovec array and
 *     the buffers it points at) stays owned by the kernel until the op's done callback runs;
 *     cancelling does not end that ownership.
 *  4. A sleeping core is always woken: posters and the sleeper use seq_cst on the "sleeping"
 *     flag and the inbox (Dekker), so a message is either seen before sleeping or woken for.
 *  5. Shutdown: no new posts, reads or timers are accepted once a core stops; every in-flight
 *     op is cancelled and its completion awaited before the thread exits; threads are joined
 *     before any ring, queue or buffer is freed. */
#ifndef RINGSCAN_RUNTIME_EXEC_H
#define RINGSCAN_RUNTIME_EXEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/coro.h"
#include "runtime/future.h"
#include "runtime/sched.h"

typedef struct exec exec_t;
typedef struct exec_group exec_group_t;
typedef struct exec_op exec_op_t;
typedef void (*exec_op_fn)(exec_op_t *op);
typedef void (*exec_hook_fn)(void *ctx);

enum {
    EXEC_THREADS_MAX = 256,
    EXEC_HOOKS_MAX = 24,              /* flush hooks per core: an io context's each (a
                                         dataset's 16 scans and its footer reads on one core) */
    EXEC_TIMERS_MAX = 1 << 20,        /* pending timers per core */
    EXEC_READ_BYTES_MAX = 0x7ffff000, /* kernel per-call read maximum */
    EXEC_IOV_MAX = 1024,              /* iovecs of one vectored read (the kernel's UIO_MAXIOV) */
    EXEC_BACKEND_MSG_MAX = 160,
    EXEC_POLLS_MAX = 1024            /* fd waits of the pread fallback per core */
};

typedef enum exec_io_backend {
    EXEC_IO_AUTO = 0, /* io_uring, falling back to pread when setup fails (EPERM, ENOSYS...) */
    EXEC_IO_URING,    /* io_uring or fail to start */
    EXEC_IO_PREAD     /* forced pread fallback */
} exec_io_backend;

typedef struct exec_opts {
    int threads;              /* cores to run, 1..EXEC_THREADS_MAX (0 = 1) */
    bool pin;                 /* pin thread i to the i-th allowed CPU (modulo their count) */
    exec_io_backend io_backend;
    unsigned queue_depth;     /* SQ entries per ring (0 = 256), CQ is twice that */
    int run_batch_max;        /* ready sched items per loop iteration (0 = 64), fewer when a
                                 message arrives (the loop serves it after the current item) */
    unsigned inbox_cap;       /* inbox slots per core, rounded up to a power of 2 (0 = 4096) */
} exec_opts_t;

/* Per-core counters; read with exec_group_stats (relaxed atomics, a consistent-enough view). */
typedef struct exec_stats {
    uint64_t loops, items_run, sleeps, posts_run, posts_rejected_full, wakes_msg_ring,
        wakes_eventfd, reads_issued, cancels_issued, completions, sq_full_retries,
        enter_busy_retries, timers_fired, timers_cancelled;
    uint64_t sleep_ns;          /* time the core slept off the CPU waiting for a completion,
                                   a message or a timer (no task runnable) */
    int64_t live_tasks_at_exit; /* tasks still suspended when the core stopped (leaked) */
    bool uring;                 /* false: pread fallback */
    unsigned ring_flags;        /* IORING_SETUP_* flags the ring got */
    char io_backend[EXEC_BACKEND_MSG_MAX]; /* "io_uring" or "pread (io_uring unavailable: ..)" */
} exec_stats_t;

/* An asynchronous operation on a core. Embed it; set done before exec_read(); read res in done.
 * res: bytes (>= 0) or a negative errno (-ECANCELED when cancelled). Private fields follow. */
struct exec_op {
    exec_op_fn done;
    int32_t res;
    /* private to runtime/exec */
    uint8_t state;
    exec_op_t *prev, *next; /* in-flight list */
    exec_op_t *cnext;       /* completion list / pread queue */
    int fd;
    uint32_t len;           /* bytes; for a vectored read, its iovec count */
    bool vectored;          /* buf is a struct iovec array (exec_readv) */
    bool populate;          /* buf is a file mapping's range to populate (exec_populate) */
    void *buf;
    uint64_t off;
};

/* Defaults for every field (threads 1, no pinning, auto backend). */
exec_opts_t exec_opts_default(void);

/* Starts opts->threads cores and waits until each has set up its ring (or fallback).
 * Returns 0 and *out, -EINVAL on bad options, -ENOMEM, or the ring setup error when
 * io_backend is EXEC_IO_URING and io_uring is unavailable. The caller owns *out and must
 * call exec_group_stop then exec_group_destroy. Not thread-safe against itself. */
int exec_group_start(exec_group_t **out, const exec_opts_t *opts);

/* Called on a core, from its loop's base context, when `missing` of the tasks one
 * exec_group_spawn asked for could not be created there (status: -ENOMEM). */
typedef void (*exec_spawn_fail_fn)(void *arg, int missing, int status);

/* Spawns n (1..SCHED_TASKS_MAX) coroutine tasks fn(arg) on core `core`, through one inbox
 * message. Thread-safe, from any thread. Returns 0, -EINVAL (bad core, n or NULL fn/fail),
 * -EAGAIN (inbox full: retry later), -ENOMEM, -ESHUTDOWN (core stopping); then no task
 * exists. After 0, the tasks are created on the core; if only k < n can be (a stack or task
 * record cannot be allocated), fail(arg, n - k, status) runs there exactly once, before any
 * of the k tasks has started, and the other n - k never exist. arg stays the caller's. */
int exec_group_spawn(exec_group_t *g, int core, coro_fn fn, void *arg, int n,
                     exec_spawn_fail_fn fail);

/* Stops every core: rejects new posts, cancels in-flight reads and pending timers (their
 * futures fail with -ECANCELED), runs ready work and waits for every completion, then joins
 * the threads. Returns 0. Call once, from a thread that is not a core. Stats stay readable. */
int exec_group_stop(exec_group_t *g);

/* Frees a stopped group (rings, inboxes, eventfds). g may be NULL. */
void exec_group_destroy(exec_group_t *g);

/* Core count; the core with index i (0 <= i < count) for exec_post. */
int exec_group_threads(const exec_group_t *g);
exec_t *exec_group_core(exec_group_t *g, int i);

/* Copies core i's counters into *out. Thread-safe. */
void exec_group_stats(const exec_group_t *g, int i, exec_stats_t *out);

/* The core whose thread is calling, or NULL on a thread that is not a core. */
exec_t *exec_current(void);
/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns. */
uint64_t exec_thread_cpu_ns(void);
/* The index of core e in its group. */
int exec_core_index(const exec_t *e);
/* The ns core e has slept so far (exec_stats_t sleep_ns); exact on e's own thread, a relaxed
 * snapshot elsewhere. */
uint64_t exec_slept_ns(const exec_t *e);
/* True when e uses io_uring (false: pread fallback). */
bool exec_uses_uring(const exec_t *e);

/* Posts fn(ctx) to run on target's thread, from its loop's base context (not a coroutine;
 * it may spawn or defer), at the top of its next loop iteration: the ready items there stop
 * after the one running (exec.c invariant 5). Thread-safe, from any thread including
 * target's. Returns 0, -EAGAIN when target's inbox is full, -ESHUTDOWN when target is
 * stopping. On error fn never runs and ctx stays the caller's. Messages from one poster run
 * in FIFO order. */
int exec_post(exec_t *target, sched_fn fn, void *ctx);

/* A future resolving (value NULL) once ns nanoseconds have passed (CLOCK_MONOTONIC). Timers
 * with equal deadlines fire in creation order. Dropping the last reference cancels it.
 * Only on a core's thread. Returns NULL on ENOMEM; a future failed with -ECANCELED when the
 * core is stopping, RINGSCAN_ELIMIT past EXEC_TIMERS_MAX pending timers. */
fut_t *exec_sleep_ns(uint64_t ns);

/* From a task: suspends it until the current loop iteration has flushed, submitted, reaped
 * and run completions (lets I/O make progress). Only from a coroutine on a core. */
void exec_yield(void);

/* True when a message waits in the calling core's inbox: a task in a long step may
 * exec_yield() so that the loop serves it (another core may be idle until it is). Only on a
 * core's thread. */
bool exec_inbox_waiting(void);

/* Adds/removes a hook run on every loop iteration after the ready items (io/ uses it to
 * submit wanted reads). Only on e's thread. add: 0 or -ENOSPC (EXEC_HOOKS_MAX). */
int exec_hook_add(exec_t *e, exec_hook_fn fn, void *ctx);
void exec_hook_remove(exec_t *e, exec_hook_fn fn, void *ctx);

/* Starts a read of len (<= EXEC_READ_BYTES_MAX) bytes at off of fd into buf; op->done runs
 * later with op->res = bytes read (maybe short), 0 at EOF or a negative errno. Only on e's
 * thread; op must be idle. Returns 0, or -ESHUTDOWN when e is stopping (op not started). */
int exec_read(exec_t *e, exec_op_t *op, int fd, void *buf, uint32_t len, uint64_t off);

/* As exec_read, one read call (IORING_OP_READV, or preadv on the fallback) of the bytes at off
 * into iov[0..n) in order; n in 1..EXEC_IOV_MAX, the iovecs' lengths summing to at most
 * EXEC_READ_BYTES_MAX. iov and the buffers it points at stay the caller's but must stay valid
 * until op->done runs (invariant 3); two entries may point at the same buffer (bytes nobody
 * keeps: the later write wins). Counted as one read in reads_issued. */
struct iovec;
int exec_readv(exec_t *e, exec_op_t *op, int fd, const struct iovec *iov, int n, uint64_t off);

/* Makes the page tables of [addr, addr + len) of a shared file mapping present, reading any
 * page that is not cached (IORING_OP_MADVISE with MADV_POPULATE_READ, which the kernel always
 * runs on the ring's io-wq workers, so neither the mapping work nor a miss blocks the core;
 * madvise(2) on the core on the pread fallback). addr need not be page-aligned; len <=
 * EXEC_READ_BYTES_MAX. op->done runs later with op->res = len on success, or a negative
 * errno: -EFAULT when part of the range lies past the file's end (the file shrank),
 * -ECANCELED when cancelled. Counted as one read in reads_issued. Only on e's thread; op
 * must be idle. Returns 0, or -ESHUTDOWN (op not started). */
int exec_populate(exec_t *e, exec_op_t *op, const void *addr, uint32_t len);

/* Starts waiting for fd to become ready for events (POLLIN, POLLOUT: poll(2) bits); op->done
 * runs later with op->res = the ready events (> 0; POLLERR/POLLHUP included), or a negative
 * errno (-ECANCELED when cancelled). One shot: start another wait to keep watching. On the
 * pread fallback the core polls these fds between iterations and in its sleep. Only on e's
 * thread; op must be idle. Returns 0, -ESHUTDOWN when e is stopping, -ENOSPC past
 * EXEC_POLLS_MAX waits of the fallback (op not started). */
int exec_poll(exec_t *e, exec_op_t *op, int fd, uint32_t events);

/* Asks to cancel op (IORING_OP_ASYNC_CANCEL; pread: dequeued if not yet run). op->done still
 * runs exactly once, with -ECANCELED or the real result. Returns 0 if a cancel was issued,
 * -ENOENT if op is not in flight. Only on e's thread. */
int exec_cancel(exec_t *e, exec_op_t *op);

/* Completes idle op with res without any I/O (fault injection, early failures): op->done runs
 * from the next completion phase. Only on e's thread; allowed while stopping. */
void exec_complete(exec_t *e, exec_op_t *op, int32_t res);

/* Ops of e started and not yet called back (reads, cancels excluded). Only on e's thread. */
int64_t exec_ops_pending(const exec_t *e);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t exec_now_ns(void);

#endif
