/* common/fail.h: injected failures for tests (allocation, coroutine stacks, rings, threads).
 * Below every layer (runtime, io, format, filter and scan all allocate through it), so it
 * lives in common/, which includes nothing of ringscan.
 *
 * Owns: one process-wide countdown of failure points, in the manner of SQLite's OOM tests.
 * Every allocation the library makes goes through fail_malloc & co. below; the coroutine
 * stack mapping, io_uring ring setup and thread creation each pass fail_point() first. The
 * hook is compiled into every build and costs one relaxed atomic load while disarmed.
 * Contexts the codec libraries allocate themselves (zstd, zlib, brotli) pass a FAIL_ALLOC
 * point before they are created; allocations inside those libraries are not counted.
 * Arming: fail_arm(kinds, nth, persistent) makes the nth point of the given kinds (counted
 * from the arming, 1-based, across all threads) fail, and every later one too when
 * persistent. fail_disarm() stops it; fail_points_seen()/fail_points_fired() report how many
 * points were passed and how many failed since the last arming.
 * Invariants:
 *  1. Disarmed, fail_point() never fails and never writes shared memory.
 *  2. Armed, exactly one point fails (the nth one passed), or every point from the nth on
 *     when persistent; fired counts them.
 *  3. A failing allocation returns NULL without allocating: callers see what a real
 *     out-of-memory gives them (realloc keeps the old block). */
#ifndef RINGSCAN_COMMON_FAIL_H
#define RINGSCAN_COMMON_FAIL_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum fail_kind {
    FAIL_ALLOC = 1u << 0,  /* malloc, calloc, realloc, aligned_alloc, strdup */
    FAIL_STACK = 1u << 1,  /* mapping a new coroutine stack */
    FAIL_RING = 1u << 2,   /* io_uring ring setup */
    FAIL_THREAD = 1u << 3, /* creating an executor thread */
    FAIL_ALL = 0xf
} fail_kind;

/* Kinds armed (0: disarmed). Read relaxed on every point; written only by fail_arm. */
extern _Atomic unsigned fail_armed_kinds;

/* Counts a point of kind k; true when it is the one (or, persistent, one of those) to fail. */
bool fail_point_slow(fail_kind k);

/* True when the point of kind k must fail now. One relaxed load while disarmed. */
static inline bool fail_point(fail_kind k)
{
    if (__builtin_expect(atomic_load_explicit(&fail_armed_kinds, memory_order_relaxed) == 0, 1))
        return false;
    return fail_point_slow(k);
}

/* Arms kinds (a mask of fail_kind) to fail the nth point passed (nth >= 1) and, when
 * persistent, every later one. Resets the seen and fired counts. Not meant to race with
 * itself; points on other threads see the arming at their next check. */
void fail_arm(unsigned kinds, int64_t nth, bool persistent);
/* Disarms; the counts stay readable. */
void fail_disarm(void);
/* Points of the armed kinds passed, and failed, since the last fail_arm. */
int64_t fail_points_seen(void);
int64_t fail_points_fired(void);

static inline void *fail_malloc(size_t n)
{
    return fail_point(FAIL_ALLOC) ? NULL : malloc(n);
}
static inline void *fail_calloc(size_t n, size_t size)
{
    return fail_point(FAIL_ALLOC) ? NULL : calloc(n, size);
}
static inline void *fail_realloc(void *p, size_t n)
{
    return fail_point(FAIL_ALLOC) ? NULL : realloc(p, n);
}
static inline void *fail_aligned_alloc(size_t align, size_t n)
{
    return fail_point(FAIL_ALLOC) ? NULL : aligned_alloc(align, n);
}
static inline char *fail_strdup(const char *s)
{
    return fail_point(FAIL_ALLOC) ? NULL : strdup(s);
}

#endif
