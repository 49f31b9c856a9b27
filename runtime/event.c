/* runtime/event.c: the cross-core event (event.h): a waiter list per core, woken through one
 * inbox message per signal and core. */
#include "runtime/event.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/sched.h"

struct exec_event_waiter {
    exec_event_waiter *next;
    coro_t *task;
};

_Static_assert(sizeof(exec_event_core) == 64, "one cache line per core");

void exec_event_init(exec_event *ev, exec_group_t *g)
{
    assert(ev && g);
    ev->g = g;
    ev->ncores = exec_group_threads(g);
    assert(ev->ncores >= 1 && ev->ncores <= EXEC_THREADS_MAX);
    for (int i = 0; i < ev->ncores; i++) {
        atomic_init(&ev->cores[i].waiters, 0);
        atomic_init(&ev->cores[i].posted, 0);
        ev->cores[i].head = NULL;
        ev->cores[i].ev = ev;
    }
}

/* On core c's thread: wakes every waiter of the core (each removes nothing: the list is
 * taken whole here, and a woken waiter that must wait again adds itself anew). */
static void wake_core(void *ctx)
{
    exec_event_core *c = ctx;
    atomic_store(&c->posted, 0); /* before the list is taken: a later signal posts again */
    exec_event_waiter *w = c->head;
    c->head = NULL;
    while (w) {
        exec_event_waiter *next = w->next;
        int before = atomic_fetch_sub(&c->waiters, 1);
        assert(before >= 1);
        sched_wake(w->task);
        w = next;
    }
}

/* Removes w from core c's list (its condition held before it slept). */
static void unlink_waiter(exec_event_core *c, exec_event_waiter *w)
{
    for (exec_event_waiter **p = &c->head; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            int before = atomic_fetch_sub(&c->waiters, 1);
            assert(before >= 1);
            return;
        }
    assert(!"exec_event: waiter not in its core's list");
}

void exec_event_wait_until(exec_event *ev, bool (*cond)(void *ctx), void *ctx)
{
    exec_t *e = exec_current();
    assert(e && sched_current());
    exec_event_core *c = &ev->cores[exec_core_index(e)];
    for (;;) {
        exec_event_waiter w = {.next = c->head, .task = sched_current()};
        c->head = &w;
        atomic_fetch_add(&c->waiters, 1); /* invariant 1: counted in, then check */
        atomic_thread_fence(memory_order_seq_cst);
        if (cond(ctx)) {
            unlink_waiter(c, &w);
            return;
        }
        sched_suspend(); /* wake_core took w off the list */
    }
}

void exec_event_signal(exec_event *ev)
{
    atomic_thread_fence(memory_order_seq_cst); /* invariant 1: the change, then the counts */
    for (int i = 0; i < ev->ncores; i++) {
        exec_event_core *c = &ev->cores[i];
        if (atomic_load(&c->waiters) == 0 || atomic_exchange(&c->posted, 1)) continue;
        int rc = exec_post(exec_group_core(ev->g, i), wake_core, c);
        if (rc == -ESHUTDOWN) continue; /* stopping: nobody waits there (invariant 4) */
        if (rc != 0) { /* invariant 2: the owner reserved this slot */
            fprintf(stderr, "ringscan: event wake to core %d failed (%d)\n", i, rc);
            abort();
        }
    }
}
