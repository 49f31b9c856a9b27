/* bench/rt_bench_coro.c: micro-benchmarks of coroutine switches and future round trips.
 *
 * Owns: nothing persistent; each benchmark builds its coroutines/tasks, measures and tears
 * them down. Invariants: every benchmark leaves the thread's scheduler idle, no live task and
 * no live future (asserted); iters is clamped to [1, RT_BENCH_ITERS_MAX]. */
#include "bench/rt_bench_coro.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <ucontext.h>

#include "runtime/coro.h"
#include "runtime/future.h"
#include "runtime/sched.h"

static int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t bench_clamp(int64_t iters)
{
    if (iters < 1) return 1;
    if (iters > RT_BENCH_ITERS_MAX) return RT_BENCH_ITERS_MAX;
    return iters;
}

/* ---- hand-written switch ---- */

typedef struct {
    volatile bool stop;
    int64_t yields;
} switch_state;

static void switch_fn(void *arg)
{
    switch_state *s = arg;
    while (!s->stop) {
        s->yields++;
        coro_yield();
    }
}

double rt_bench_switch_ns(int64_t iters)
{
    iters = bench_clamp(iters);
    switch_state s = {false, 0};
    coro_t *c = NULL;
    if (coro_create(&c, switch_fn, &s) != 0) return -ENOMEM;
    coro_resume(c); /* warm: first entry */
    int64_t t0 = bench_now_ns();
    for (int64_t i = 0; i < iters; i++)
        coro_resume(c);
    int64_t t1 = bench_now_ns();
    s.stop = true;
    coro_resume(c);
    assert(coro_finished(c) && s.yields == iters + 1);
    coro_destroy(c);
    return (double)(t1 - t0) / (double)(2 * iters);
}

/* ---- Boost.Context's jump_fcontext, same ping-pong ----
 * boost/context/detail/fcontext.hpp is C++ only; its two functions are extern "C", so their
 * C prototypes are declared here (Boost 1.61+ ABI: a transfer_t comes back in rax:rdx). */

typedef void *fcontext_t;
typedef struct {
    fcontext_t fctx;
    void *data;
} fc_transfer_t;
fc_transfer_t jump_fcontext(fcontext_t const to, void *vp);
fcontext_t make_fcontext(void *sp, size_t size, void (*fn)(fc_transfer_t));

static void fc_fn(fc_transfer_t t)
{
    switch_state *s = t.data;
    while (!s->stop) {
        s->yields++;
        t = jump_fcontext(t.fctx, s);
    }
    jump_fcontext(t.fctx, NULL); /* a context function must never return */
    abort();
}

double rt_bench_fcontext_ns(int64_t iters)
{
    iters = bench_clamp(iters);
    enum { FC_STACK = 64 * 1024 };
    void *stack = malloc(FC_STACK);
    if (!stack) return -ENOMEM;
    switch_state s = {false, 0};
    /* make_fcontext takes the stack's top (it grows down) */
    fcontext_t c = make_fcontext((char *)stack + FC_STACK, FC_STACK, fc_fn);
    c = jump_fcontext(c, &s).fctx; /* warm: first entry */
    int64_t t0 = bench_now_ns();
    for (int64_t i = 0; i < iters; i++)
        c = jump_fcontext(c, &s).fctx;
    int64_t t1 = bench_now_ns();
    s.stop = true;
    jump_fcontext(c, &s); /* fc_fn leaves its loop and jumps back for good */
    assert(s.yields == iters + 1);
    free(stack);
    return (double)(t1 - t0) / (double)(2 * iters);
}

/* ---- glibc swapcontext, same ping-pong ---- */

static ucontext_t uc_main, uc_co;
static volatile bool uc_stop;

static void uc_fn(void)
{
    while (!uc_stop)
        swapcontext(&uc_co, &uc_main);
}

double rt_bench_swapcontext_ns(int64_t iters)
{
    iters = bench_clamp(iters);
    enum { UC_STACK = 64 * 1024 };
    void *stack = malloc(UC_STACK);
    if (!stack) return -ENOMEM;
    if (getcontext(&uc_co) != 0) {
        free(stack);
        return -errno;
    }
    uc_co.uc_stack.ss_sp = stack;
    uc_co.uc_stack.ss_size = UC_STACK;
    uc_co.uc_link = &uc_main; /* uc_fn returning lands back in swapcontext's caller */
    makecontext(&uc_co, uc_fn, 0);
    uc_stop = false;
    swapcontext(&uc_main, &uc_co); /* warm */
    int64_t t0 = bench_now_ns();
    for (int64_t i = 0; i < iters; i++)
        swapcontext(&uc_main, &uc_co);
    int64_t t1 = bench_now_ns();
    uc_stop = true;
    swapcontext(&uc_main, &uc_co); /* uc_fn returns to uc_main through uc_link */
    free(stack);
    return (double)(t1 - t0) / (double)(2 * iters);
}

/* ---- future resolve-and-wake round trip ---- */

typedef struct {
    fut_t *slot;
    int64_t iters, done;
} rt_state;

static void rt_waiter(void *arg)
{
    rt_state *s = arg;
    for (int64_t i = 0; i < s->iters; i++) {
        fut_t *f = fut_new();
        if (!f) abort();
        s->slot = f;
        int st = fut_await(f);
        assert(st == 0);
        (void)st;
        fut_unref(f);
        s->done++;
    }
}

static void rt_resolver(void *arg)
{
    rt_state *s = arg;
    for (int64_t i = 0; i < s->iters; i++) {
        while (!s->slot)
            sched_yield_task();
        fut_t *f = s->slot;
        s->slot = NULL;
        fut_resolve(f, NULL, NULL);
    }
}

double rt_bench_future_roundtrip_ns(int64_t iters)
{
    iters = bench_clamp(iters);
    assert(sched_idle() && coro_self() == NULL);
    int64_t futs_before = fut_live_count();
    rt_state s = {NULL, iters, 0};
    if (sched_spawn(rt_waiter, &s) != 0) return -ENOMEM;
    if (sched_spawn(rt_resolver, &s) != 0) {
        s.iters = 0; /* the waiter has not run yet: let it finish at once */
        sched_run_until_idle();
        return -ENOMEM;
    }
    int64_t t0 = bench_now_ns();
    sched_run_until_idle();
    int64_t t1 = bench_now_ns();
    assert(s.done == iters && fut_live_count() == futs_before);
    (void)futs_before;
    return (double)(t1 - t0) / (double)iters;
}
