/* runtime/exec_impl.h: private to the runtime/exec sources: the core and group structs and the
 * functions the exec files share. Nothing else includes this (but tests/unit/test_exec.c,
 * which reads a core's inbox).
 * Invariants (beyond exec.h):
 *  1. inflight is a circular list with a sentinel holding every started op not yet reaped;
 *     n_ops counts started ops until their done callback has begun (inflight + done list).
 *  2. user_data values below EXEC_UD_TAG_MAX are tags, never op pointers. */
#ifndef RINGSCAN_RUNTIME_EXEC_IMPL_H
#define RINGSCAN_RUNTIME_EXEC_IMPL_H
#include <liburing.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "runtime/exec.h"

enum {
    EXEC_UD_CANCEL = 1,   /* CQE of an ASYNC_CANCEL we issued */
    EXEC_UD_WAKE = 2,     /* MSG_RING arriving at this ring */
    EXEC_UD_MSG_SENT = 3, /* MSG_RING we sent: tag | (target core << 8) */
    EXEC_UD_TAG_MAX = 1 << 20
};
enum { EXEC_OP_IDLE = 0, EXEC_OP_INFLIGHT, EXEC_OP_QUEUED_PREAD, EXEC_OP_QUEUED_POLL,
       EXEC_OP_DONE_LIST };

typedef struct exec_slot {
    _Atomic uint64_t seq;
    sched_fn fn;
    void *ctx;
} exec_slot;

typedef struct exec_timer {
    uint64_t deadline_ns, seq;
    uint32_t idx;
    fut_t *fut; /* uncounted: the cancel hook removes the timer before the future dies */
    exec_t *e;
} exec_timer;

typedef struct exec_counters {
    _Atomic uint64_t loops, items_run, sleeps, posts_run, posts_rejected_full, wakes_msg_ring,
        wakes_eventfd, reads_issued, cancels_issued, completions, sq_full_retries,
        enter_busy_retries, timers_fired, timers_cancelled;
    _Atomic uint64_t sleep_ns; /* time asleep (off the CPU) in exec_io_wait */
    _Atomic int64_t live_tasks_at_exit;
} exec_counters;

struct exec {
    exec_group_t *g;
    int index;
    pthread_t thread;
    bool thread_started;
    sem_t ready;
    int init_status;
    /* io */
    bool uring;
    struct io_uring ring;
    unsigned ring_flags;
    int ring_fd; /* for MSG_RING from other cores; -1 when no ring */
    int event_fd;
    uint64_t event_buf;
    exec_op_t event_op;
    exec_op_t inflight; /* sentinel */
    int64_t n_ops, n_user_ops;
    exec_op_t *done_head, *done_tail;
    exec_op_t *pread_head, *pread_tail;
    exec_op_t *polls[EXEC_POLLS_MAX]; /* fd waits of the pread fallback (op->len = events) */
    int n_polls;
    unsigned sq_unsubmitted;
    /* inbox (Vyukov bounded MPMC used as MPSC) */
    exec_slot *slots;
    uint64_t mask;
    _Atomic uint64_t enq_pos;
    uint64_t deq_pos;
    _Atomic int sleeping, wake_pending, stopping, posters;
    bool stop_begun;
    /* timers */
    exec_timer **heap;
    uint32_t n_timers, cap_timers;
    uint64_t timer_seq;
    /* hooks and yielders */
    struct {
        exec_hook_fn fn;
        void *ctx;
    } hooks[EXEC_HOOKS_MAX];
    int n_hooks;
    coro_t **yielders;
    size_t n_yielders, cap_yielders;
    exec_counters st;
    char backend[EXEC_BACKEND_MSG_MAX];
};

struct exec_group {
    exec_opts_t opts;
    int n;
    exec_t *cores;
    _Atomic int msg_ring_ok;
};

static inline void exec_stat_add(_Atomic uint64_t *c, uint64_t n)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

/* exec_io.c */
int exec_io_init(exec_t *e);
void exec_io_fini(exec_t *e);
void exec_io_poll(exec_t *e);
void exec_io_wait(exec_t *e, uint64_t timeout_ns);
int exec_io_run_completions(exec_t *e);
void exec_io_cancel_all(exec_t *e);
void exec_io_wake_target(exec_t *target);
/* exec_timer.c */
void exec_timers_fire(exec_t *e);
void exec_timers_cancel_all(exec_t *e);
uint64_t exec_timers_next_ns(const exec_t *e); /* UINT64_MAX when none */
void exec_timers_fini(exec_t *e);

#endif
