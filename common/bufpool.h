/* common/bufpool.h: large decode buffers recycled between the threads of a process.
 *
 * Why: a scan's cores decode into buffers the consumer frees on its own thread. An allocator
 * with thread-local heaps (mimalloc, the binary's) gives such a block back to the heap of the
 * thread that allocated it, so each core keeps its own high-water mark of decoded batches and
 * two cores' resident memory is the sum of both marks, not the budget's (bench/RESULTS.md,
 * "peak RSS, one core against two"). Blocks given here are taken again by whichever thread
 * grows a buffer next.
 *
 * Owns: per size class (powers of two from BUFPOOL_MIN to BUFPOOL_MAX bytes) a list of idle
 * blocks, and the holders (running scans) with the idle bytes each allows.
 * Blocks are malloc'd blocks at least their class's size: free() of one taken from here is
 * always right, only not recycled.
 * Invariants:
 *  1. Idle blocks are kept only while a holder is registered; the last bufpool_drop frees
 *     them all, so a process with no scan running holds nothing here.
 *  2. idle bytes <= the sum of the holders' allowances (each at most BUFPOOL_ALLOW_MAX).
 *  3. A block taken for class n has at least n usable bytes.
 *  4. A fork while another thread holds the pool's lock does not leave the child a lock no
 *     thread will release: fork handlers take it before and release it after, in both. The
 *     child keeps the parent's holders and idle blocks (its scans' threads are the parent's;
 *     freeing those scans in the child was never possible). */
#ifndef RINGSCAN_COMMON_BUFPOOL_H
#define RINGSCAN_COMMON_BUFPOOL_H
#include <stddef.h>
#include <stdint.h>

#define BUFPOOL_MIN ((size_t)1 << 16)
#define BUFPOOL_MAX ((size_t)1 << 28)
#define BUFPOOL_ALLOW_MAX ((size_t)1 << 30) /* one holder's allowance, at most */

/* Registers a holder (a scan starting) allowing up to allow more idle bytes (at most
 * BUFPOOL_ALLOW_MAX): blocks given from now on may be kept. */
void bufpool_hold(size_t allow);
/* Ends a holder of the same allowance; idle blocks past what the others allow are freed,
 * every one by the last holder's drop. */
void bufpool_drop(size_t allow);
/* An idle block of class n (a power of two in [BUFPOOL_MIN, BUFPOOL_MAX]), or NULL:
 * the caller allocates one then. */
void *bufpool_take(size_t n);
/* Gives back p (NULL is fine), allocated with at least cap bytes: kept when cap is a class,
 * a holder runs and the idle bytes stay within their bound; otherwise freed. */
void bufpool_give(void *p, size_t cap);
/* Idle bytes held now (tests). */
size_t bufpool_idle(void);

#endif
