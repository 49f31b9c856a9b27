/* bench/rt_bench_coro.h: micro-benchmarks of the runtime's coroutine switch and futures.
 *
 * Each function runs on the calling thread, uses only that thread's scheduler and stack pool,
 * leaves no task, future or queued item behind, and returns nanoseconds per operation as
 * measured with CLOCK_MONOTONIC (or a negative errno when setup failed). iters is clamped to
 * [1, RT_BENCH_ITERS_MAX]. Call from the base context, not from inside a coroutine. */
#ifndef RINGSCAN_BENCH_RT_BENCH_CORO_H
#define RINGSCAN_BENCH_RT_BENCH_CORO_H
#include <stdint.h>

enum { RT_BENCH_ITERS_MAX = 1 << 30 };

/* Hand-written switch: the base context resumes a coroutine that yields straight back,
 * iters times. Returns ns per switch (one direction), i.e. round trip / 2. */
double rt_bench_switch_ns(int64_t iters);

/* The same ping-pong with Boost.Context's jump_fcontext (libboost_context, linked statically):
 * the reference the switch is held to. Returns ns per switch (one direction). */
double rt_bench_fcontext_ns(int64_t iters);

/* The same ping-pong with glibc swapcontext (which makes a sigprocmask syscall per switch).
 * Returns ns per switch (one direction), i.e. round trip / 2. */
double rt_bench_swapcontext_ns(int64_t iters);

/* A task awaits a fresh future that a second task resolves; the waiter is woken through the
 * ready queue. Returns ns per round trip (new future, await/suspend, resolve, wake, resume,
 * unref), iters round trips. */
double rt_bench_future_roundtrip_ns(int64_t iters);

#endif
