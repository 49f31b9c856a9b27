/* runtime/event.h: a cross-core event. Tasks on the cores of one group wait on it until a
 * condition of theirs holds; any thread signals it after changing what such conditions read.
 *
 * A wait is the waiting task suspended and woken by the signal that may end it: no timer, no
 * spinning, no allocation (the waiter lives on the task's stack), so a wait cannot fail. Like
 * a condition variable, a woken task re-checks its condition (exec_event_wait_until loops), so
 * a signal that ends nobody's wait costs a wake, never a lost one.
 *
 * Invariants:
 *  1. No lost wake-up: a waiter counts itself in (seq_cst) before it checks its condition, and
 *     a signal fences (seq_cst) after the change it announces before it reads the counts
 *     (Dekker): either the waiter sees the change or the signal sees the waiter.
 *  2. At most one wake message per core is in flight (posted flag), so an event needs one slot
 *     of each core's inbox (EXEC_EVENT_INBOX_SLOTS); the poster's inbox accounting includes it.
 *  3. A core's waiter list is touched only by that core's thread (exec.h invariant 1); other
 *     threads touch only the atomic count and flag.
 *  4. A task waits only on its own core and the event outlives every wait and every signal's
 *     wake message (the owner stops the group before freeing it). */
#ifndef RINGSCAN_RUNTIME_EVENT_H
#define RINGSCAN_RUNTIME_EVENT_H
#include <stdatomic.h>
#include <stdbool.h>

#include "runtime/exec.h"

enum { EXEC_EVENT_INBOX_SLOTS = 1 };

typedef struct exec_event_waiter exec_event_waiter;

typedef struct exec_event_core {
    _Atomic int waiters;       /* tasks of the core waiting (or about to check) */
    _Atomic int posted;        /* a wake message to the core is in flight */
    exec_event_waiter *head;   /* the core's waiters (its thread only) */
    struct exec_event *ev;
    char pad[64 - 2 * sizeof(int) - 2 * sizeof(void *)];
} exec_event_core;

typedef struct exec_event {
    exec_group_t *g;
    int ncores;
    exec_event_core cores[EXEC_THREADS_MAX];
} exec_event;

/* Readies ev for the cores of g (which must be started; ev is then used until g stops). */
void exec_event_init(exec_event *ev, exec_group_t *g);

/* From a task on a core of ev's group: returns once cond(ctx) is true, suspending the task
 * between signals while it is false. cond runs on the task's thread and reads state others
 * change before they call exec_event_signal. */
void exec_event_wait_until(exec_event *ev, bool (*cond)(void *ctx), void *ctx);

/* From any thread (a core or not): wakes the waiters of every core, which re-check. Call it
 * after the change that may end a wait. A core that is stopping is skipped (no task of it can
 * be waiting: invariant 4). */
void exec_event_signal(exec_event *ev);

#endif
