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

/* Spawns fn(arg) as a coroutine task, queued ready. 0 or -ENOMEM. */
int sched_spawn(coro_fn fn, void *arg);
/* Queues fn(ctx) to run from the ready queue. 0 or -ENOMEM. */
int sched_defer(sched_fn fn, void *ctx);
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
