/* runtime/sched.h: the per-thread ready queue that runs coroutine tasks and deferred callbacks.
 *
 * One scheduler per thread (thread-local state, no locks). The executor (runtime/exec.h)
 * drives it from its loop; tests may drive it alone with sched_run_until_idle().
 * Invariants:
 *  1. A task (a coroutine spawned here) is in at most one place: running, ready, or suspended
 *     waiting on something that will sched_wake() it exactly once.
 *  2. Deferred callbacks and woken tasks run in FIFO order, never inside the call that queued
 *     them, so callback chains use bounded stack.
 *  3. A finished task's coroutine is destroyed by the scheduler after its function returns. */
#ifndef RINGSCAN_RUNTIME_SCHED_H
#define RINGSCAN_RUNTIME_SCHED_H
#include <stdbool.h>
#include <stdint.h>

#include "runtime/coro.h"

typedef void (*sched_fn)(void *ctx);

/* Limits: live tasks, callbacks queued through the allocating sched_defer(), and ready items
 * of any kind (a bound the queue asserts; intrusive items are bounded by their owners). */
enum { SCHED_TASKS_MAX = 1 << 20, SCHED_DEFER_MAX = 1 << 20, SCHED_READY_MAX = 1 << 24 };

/* An intrusive ready-queue entry owned by the caller (embedded in a waiter, a task, ...).
 * Fields are private to sched.c; zero-initialise it before first use. */
typedef struct sched_item {
    struct sched_item *next;
    sched_fn fn;
    void *ctx;
    int queued; /* 1 while in the ready queue */
} sched_item_t;

/* Spawns fn(arg) as a coroutine task, queued ready. 0 or -ENOMEM. */
int sched_spawn(coro_fn fn, void *arg);
/* Queues fn(ctx) to run from the ready queue. 0, or -ENOMEM when the node cannot be
 * allocated or SCHED_DEFER_MAX such callbacks are already pending. sched_spawn likewise
 * returns -ENOMEM when SCHED_TASKS_MAX tasks are live. */
int sched_defer(sched_fn fn, void *ctx);
/* Queues fn(ctx) using the caller's node: never fails, never allocates. it must not be
 * queued already and must stay valid until fn starts (fn may free or requeue it). */
void sched_defer_item(sched_item_t *it, sched_fn fn, void *ctx);
/* From a task: requeues it at the back of the ready queue and switches away (a polite yield
 * that pairs with itself; no sched_wake needed). Not named sched_yield: that is POSIX's. */
void sched_yield_task(void);
/* The running task's coroutine, or NULL when not inside a task spawned here. */
coro_t *sched_current(void);
/* Marks a suspended task ready (the future layer calls this when an awaited future is ready). */
void sched_wake(coro_t *c);
/* Suspends the running task until someone calls sched_wake() on it. Only from a task. */
void sched_suspend(void);
/* Runs up to max ready items (tasks resumed or callbacks); returns how many ran. */
int sched_run(int max);
/* True when nothing is ready. */
bool sched_idle(void);
/* Runs until nothing is ready; returns how many items ran. */
int64_t sched_run_until_idle(void);
/* Tasks spawned on this thread and not yet finished. */
int64_t sched_live_tasks(void);

#endif
