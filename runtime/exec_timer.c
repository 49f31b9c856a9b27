/* runtime/exec_timer.c: per-core timers: a binary min-heap of (deadline_ns, seq) whose
 * earliest deadline bounds the core's wait timeout (io_uring wait timeout or ppoll timeout).
 *
 * Owns: exec_sleep_ns futures and the heap behind them.
 * Invariants:
 *  1. heap[i]->idx == i for every pending timer; the parent of i is <= i in (deadline, seq).
 *  2. A timer is in the heap iff its future is pending; firing removes it before resolving,
 *     the future's cancel hook removes it when the last reference is dropped first.
 *  3. At most EXEC_TIMERS_MAX timers per core. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "ringscan.h"
#include "common/fail.h"
#include "runtime/exec_impl.h"

static bool exec_timer_less(const exec_timer *a, const exec_timer *b)
{
    if (a->deadline_ns != b->deadline_ns) return a->deadline_ns < b->deadline_ns;
    return a->seq < b->seq;
}

static void exec_heap_set(exec_t *e, uint32_t i, exec_timer *t)
{
    e->heap[i] = t;
    t->idx = i;
}

static void exec_heap_up(exec_t *e, uint32_t i)
{
    exec_timer *t = e->heap[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!exec_timer_less(t, e->heap[parent])) break;
        exec_heap_set(e, i, e->heap[parent]);
        i = parent;
    }
    exec_heap_set(e, i, t);
}

static void exec_heap_down(exec_t *e, uint32_t i)
{
    exec_timer *t = e->heap[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= e->n_timers) break;
        if (c + 1 < e->n_timers && exec_timer_less(e->heap[c + 1], e->heap[c])) c++;
        if (!exec_timer_less(e->heap[c], t)) break;
        exec_heap_set(e, i, e->heap[c]);
        i = c;
    }
    exec_heap_set(e, i, t);
}

static void exec_heap_remove(exec_t *e, exec_timer *t)
{
    uint32_t i = t->idx;
    assert(i < e->n_timers && e->heap[i] == t);
    exec_timer *last = e->heap[--e->n_timers];
    if (last == t) return;
    exec_heap_set(e, i, last);
    exec_heap_down(e, i);
    exec_heap_up(e, last->idx);
}

static int exec_heap_push(exec_t *e, exec_timer *t)
{
    if (e->n_timers >= EXEC_TIMERS_MAX) return RINGSCAN_ELIMIT;
    if (e->n_timers == e->cap_timers) {
        uint32_t cap = e->cap_timers ? e->cap_timers * 2 : 64;
        exec_timer **h = fail_realloc(e->heap, cap * sizeof *h);
        if (!h) return -ENOMEM;
        e->heap = h;
        e->cap_timers = cap;
    }
    exec_heap_set(e, e->n_timers++, t);
    exec_heap_up(e, t->idx);
    return 0;
}

static void exec_timer_cancel_hook(void *ctx)
{
    exec_timer *t = ctx;
    exec_heap_remove(t->e, t);
    exec_stat_add(&t->e->st.timers_cancelled, 1);
    free(t);
}

fut_t *exec_sleep_ns(uint64_t ns)
{
    exec_t *e = exec_current();
    assert(e && "exec_sleep_ns off a core thread");
    fut_t *f = fut_new();
    if (!f) return NULL;
    if (e->stop_begun) {
        fut_fail(f, -ECANCELED, "timer refused: executor stopping");
        return f;
    }
    exec_timer *t = fail_calloc(1, sizeof *t);
    if (!t) {
        fut_unref(f);
        return NULL;
    }
    uint64_t now = exec_now_ns();
    t->deadline_ns = ns > UINT64_MAX - now ? UINT64_MAX - 1 : now + ns;
    t->seq = e->timer_seq++;
    t->fut = f;
    t->e = e;
    int rc = exec_heap_push(e, t);
    if (rc != 0) {
        free(t);
        if (rc == -ENOMEM) {
            fut_unref(f);
            return NULL;
        }
        fut_fail(f, rc, "too many pending timers on this core (EXEC_TIMERS_MAX)");
        return f;
    }
    fut_set_cancel_hook(f, exec_timer_cancel_hook, t);
    return f;
}

void exec_timers_fire(exec_t *e)
{
    if (e->n_timers == 0) return;
    uint64_t now = exec_now_ns();
    while (e->n_timers > 0 && e->heap[0]->deadline_ns <= now) {
        exec_timer *t = e->heap[0];
        exec_heap_remove(e, t);
        fut_resolve(t->fut, NULL, NULL);
        exec_stat_add(&e->st.timers_fired, 1);
        free(t);
    }
}

void exec_timers_cancel_all(exec_t *e)
{
    while (e->n_timers > 0) {
        exec_timer *t = e->heap[e->n_timers - 1];
        exec_heap_remove(e, t);
        fut_fail(t->fut, -ECANCELED, "timer cancelled: executor stopping");
        exec_stat_add(&e->st.timers_cancelled, 1);
        free(t);
    }
}

uint64_t exec_timers_next_ns(const exec_t *e)
{
    return e->n_timers ? e->heap[0]->deadline_ns : UINT64_MAX;
}

void exec_timers_fini(exec_t *e)
{
    assert(e->n_timers == 0);
    free(e->heap);
    e->heap = NULL;
    e->cap_timers = 0;
}
