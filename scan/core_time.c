/* scan/core_time.c: a core's time by state (core_time.h). */
#include "scan/core_time.h"

#include <assert.h>

/* The state the core's sleep counts in (invariant 2). */
static scan_wait current(const scan_core_time *t)
{
    for (int w = 0; w < SCAN_WAIT_OTHER; w++)
        if (t->in[w] > 0) return (scan_wait)w;
    return SCAN_WAIT_OTHER;
}

/* Adds the sleep since the last change to the state the core was in. */
static void settle(scan_core_time *t)
{
    assert(t->core == exec_current());
    uint64_t now = exec_slept_ns(t->core);
    assert(now >= t->mark_ns);
    atomic_fetch_add_explicit(&t->sleep_ns[current(t)], now - t->mark_ns, memory_order_relaxed);
    t->mark_ns = now;
}

void scan_core_time_start(scan_core_time *t)
{
    assert(t->core == NULL && exec_current() != NULL);
    t->core = exec_current();
    t->mark_ns = exec_slept_ns(t->core);
    t->cpu0_ns = exec_thread_cpu_ns();
    t->start_ns = exec_now_ns();
}

void scan_core_time_enter(scan_core_time *t, scan_wait w)
{
    assert(w >= 0 && w < SCAN_WAIT_OTHER);
    settle(t);
    t->in[w]++;
}

void scan_core_time_leave(scan_core_time *t, scan_wait w)
{
    assert(w >= 0 && w < SCAN_WAIT_OTHER && t->in[w] > 0);
    settle(t);
    t->in[w]--;
}

void scan_core_time_end(scan_core_time *t)
{
    settle(t);
    for (int w = 0; w < SCAN_WAIT_OTHER; w++) assert(t->in[w] == 0);
    uint64_t now = exec_now_ns();
    atomic_store_explicit(&t->wall_ns, now - t->start_ns, memory_order_relaxed);
    atomic_store_explicit(&t->cpu_ns, exec_thread_cpu_ns() - t->cpu0_ns, memory_order_relaxed);
    atomic_store_explicit(&t->end_ns, now, memory_order_release); /* after start_ns */
}
