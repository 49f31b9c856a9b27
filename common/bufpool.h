/* common/bufpool.h: large decode buffers recycled between the threads of a process.
 *
 * Why: a scan's cores decode into buffers the consumer frees on its own thread. An allocator
 * with thread-local heaps (mimalloc, the binary's) gives such a block back to the heap of the
 * thread that allocated it, so each core keeps its own high-water mark of decoded batches and
 * two cores' resident memory is the sum of both marks, not the budget's (bench/RESULTS.md,
 * "peak RSS, one core against two"). Blocks given here are taken again by whichever thread
 * grows a buffer next.
 *
 * Why blocks are kept between scans too: a host without a caching allocator (glibc malloc: a C
 * host, Python through ctypes) gets large freed blocks unmapped or trimmed, so each scan of a
 * process that scans again and again touched fresh pages for every buffer (thousands of page
 * faults a scan of lineitem). A scan's end keeps up to its own allowance (at most
 * BUFPOOL_KEEP_MAX) for the next one; those blocks are the last scan's, so the next scan's
 * peak is not raised, and bufpool_release frees them.
 *
 * Owns: per size class (powers of two from BUFPOOL_MIN to BUFPOOL_MAX bytes) a list of idle
 * blocks, and the holders (running scans) with the idle bytes each allows.
 * Blocks are malloc'd blocks at least their class's size: free() of one taken from here is
 * always right, only not recycled.
 * Invariants:
 *  1. With no holder registered the pool holds at most the keep the last bufpool_drop_keep
 *     set (at most BUFPOOL_KEEP_MAX; bufpool_drop keeps nothing, bufpool_release empties it):
 *     a process with no scan running holds at most that here.
 *  2. idle bytes <= max(the sum of the holders' allowances (each at most BUFPOOL_ALLOW_MAX),
 *     the keep): a give keeps a block only within the holders' sum while one runs, within the
 *     keep otherwise, and blocks kept from the last scan are only taken, never added to.
 *     idle blocks <= BUFPOOL_IDLE_BLOCKS_MAX.
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
#define BUFPOOL_KEEP_MAX ((size_t)64 << 20)  /* idle bytes kept with no holder, at most */
#define BUFPOOL_IDLE_BLOCKS_MAX 4096         /* idle blocks, at most */

/* Registers a holder (a scan starting) allowing up to allow more idle bytes (at most
 * BUFPOOL_ALLOW_MAX): blocks given from now on may be kept. */
void bufpool_hold(size_t allow);
/* Ends a holder of the same allowance; idle blocks past what the others allow are freed,
 * every one by the last holder's drop. */
void bufpool_drop(size_t allow);
/* As bufpool_drop, but the pool keeps up to keep bytes (at most BUFPOOL_KEEP_MAX) of idle
 * blocks while no holder runs, for the next holder to take: what a scan's end calls. */
void bufpool_drop_keep(size_t allow, size_t keep);
/* Frees every idle block kept while no holder runs and keeps nothing until the next
 * bufpool_drop_keep; with holders running it does nothing. */
void bufpool_release(void);
/* An idle block of class n (a power of two in [BUFPOOL_MIN, BUFPOOL_MAX]), or NULL:
 * the caller allocates one then. */
void *bufpool_take(size_t n);
/* Gives back p (NULL is fine), allocated with at least cap bytes: kept when cap is a class,
 * a holder runs and the idle bytes stay within their bound; otherwise freed. */
void bufpool_give(void *p, size_t cap);
/* A block of at least n bytes, *cap its size, for bufpool_give: above half the smallest class
 * a class's block, idle or malloc'd at the class's size; smaller, malloc'd at n (at least one
 * byte). NULL when out of memory. */
void *bufpool_alloc(size_t n, size_t *cap);
/* Idle bytes held now (tests). */
size_t bufpool_idle(void);
/* Blocks bufpool_take has returned since the process started (tests: reuse counted). */
uint64_t bufpool_taken(void);

#endif
