/* filter/order.h: adaptive conjunct ordering, shared by every core of one scan.
 *
 * Owns: per-conjunct evidence (rows evaluated, rows passed, time, bytes fetched, runs and the
 * runs that left no row) with exponential decay, the rank, exploration, and per-split order
 * snapshots.
 *
 * Invariants:
 *  1. All shared state is C11 atomics accessed with relaxed ordering: no locks, no waiting.
 *     The four counters of a conjunct may be momentarily inconsistent with each other (a
 *     report or a decay step seen half-way); readers clamp s into [0, FLT_ORDER_MAX_SEL], so
 *     the worst outcome is a slightly stale order, never an invalid one.
 *  2. Rank of a measured conjunct = cost / (1 - f), cost = (ns + bytes * ns_per_byte) / rows_in
 *     (ns per evaluated row), f the share of the later conjuncts' and the projection's work
 *     still done after it: f = W * (1 - q) + (1 - W) * s, W = FLT_ORDER_SPLIT_WEIGHT. s =
 *     rows_out / rows_in (row selectivity), q = emptied / runs (the chance a run leaves no row
 *     of its split: the split ends there, and every later read and page decode is cancelled).
 *     W is the share of the later work done by page whatever the rows selected in it (reads,
 *     decompression, decoding: a page is skipped only when no row in it is selected), 1 - W
 *     the share done per selected row (a LIKE's matching, the projection's copy). Both s and
 *     q are as measured in the position the conjunct ran. Ascending rank is the optimal order
 *     for independent predicates; with q = 0 everywhere it is the order of c / (1 - s). A
 *     never-measured conjunct ranks -1: it goes first (registration order breaks ties), so it
 *     gets measured on the next split.
 *  3. Decay: once a conjunct's rows_in passes decay_rows, all its counters are halved (a
 *     half-life of about decay_rows evaluated rows), so a change in the data shows up.
 *  4. Exploration: split s with s % FLT_ORDER_EXPLORE_PERIOD == PERIOD - 1 moves conjunct
 *     (s / PERIOD) % n to the front (or, if already first, swaps the first two), so every
 *     conjunct is regularly measured on unfiltered input. Deterministic from split_index.
 *  5. A snapshot is always a permutation of 0..n-1. */
#ifndef RINGSCAN_FILTER_ORDER_H
#define RINGSCAN_FILTER_ORDER_H
#include <stdalign.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>

enum {
    FLT_ORDER_MAX = 64,            /* conjuncts per scan (FLT_MAX_PREDS fits in 4 orders) */
    FLT_ORDER_EXPLORE_PERIOD = 16, /* one split in 16 explores */
};
#define FLT_ORDER_MAX_SEL 0.999           /* clamp of s, keeps 1 - s > 0 */
#define FLT_ORDER_NS_PER_BYTE_DEFAULT 1.0 /* ~1 GB/s; a remote store wants ~10 */
#define FLT_ORDER_DECAY_ROWS_DEFAULT (UINT64_C(1) << 22)
/* invariant 2's W: lineitem_cancel (sf=1, 49 splits) has l_cancelkey = K at ~23 ns a row,
 * passing 0.2% of rows and leaving 43 of 49 splits empty, and l_shipdate >= D at ~3.6 ns a row
 * passing 72% and never emptying one; the date first reads its column in all 49 splits and
 * decodes l_cancelkey's pages whole for 72% of the rows. The rows alone (W = 0) put the date
 * first; W above 0.49 puts the key first, and 0.75 by a factor of two (51 against 26). */
#define FLT_ORDER_SPLIT_WEIGHT 0.75

typedef struct flt_order_stat {
    alignas(64) _Atomic uint64_t rows_in; /* own cache line: cores report concurrently */
    _Atomic uint64_t rows_out;
    _Atomic uint64_t ns;
    _Atomic uint64_t bytes;
    _Atomic uint64_t runs;    /* reports (one per split the conjunct ran on) */
    _Atomic uint64_t emptied; /* of them, those whose rows_out was 0 */
} flt_order_stat;

typedef struct flt_order {
    int32_t n;
    double ns_per_byte;
    uint64_t decay_rows;
    flt_order_stat st[FLT_ORDER_MAX];
} flt_order;

/* Initialises o for n conjuncts (1 <= n <= FLT_ORDER_MAX; asserted) with no evidence.
 * ns_per_byte <= 0 and decay_rows == 0 select the defaults. Not thread-safe (call before
 * sharing o). */
void flt_order_init(flt_order *o, int32_t n, double ns_per_byte, uint64_t decay_rows);

/* Adds evidence for conjunct k from one evaluation (one split's run): rows_in rows evaluated,
 * rows_out of them passed (<= rows_in; 0: the run emptied its split), ns spent (decode
 * included), bytes fetched for it. Thread-safe, lock-free. rows_in == 0 is ignored. */
void flt_order_report(flt_order *o, int32_t conjunct, uint64_t rows_in, uint64_t rows_out,
                      uint64_t ns, uint64_t bytes);

/* Writes the order for split split_index to out_perm[0..n) (invariants 2, 4, 5).
 * Thread-safe, lock-free; O(n^2) for n <= 64. */
void flt_order_snapshot(const flt_order *o, uint64_t split_index, int32_t *out_perm);

/* Whether split split_index explores (invariant 4): its snapshot is not the ranked order. */
bool flt_order_explores(const flt_order *o, uint64_t split_index);

/* The rank of conjunct k (invariant 2), for tests and EXPLAIN output. */
double flt_order_rank(const flt_order *o, int32_t conjunct);

#endif
