/* filter/prune.h: deciding from metadata alone (no data I/O) whether a predicate can match
 * a row group or page: min/max statistics, null counts, column index pages, bloom filters,
 * and dynamic (Top-K) bounds.
 *
 * Owns: the falsification rules. Results are three-valued; CANNOT_MATCH and ALL_MATCH are
 * proofs, CAN_MATCH means "unknown, evaluate".
 *
 * Invariants:
 *  1. min and max are used only as bounds: every non-null value v satisfies min <= v <= max.
 *     This holds whether or not they are exact: per the Parquet spec a truncated min is
 *     rounded down and a truncated max rounded up, so both stay bounds (exactness flags are
 *     therefore not needed for any decision here; no rule assumes a bound is attained).
 *  2. min/max are used only when pq_stats.usable (format/meta_stats.c: known sort order, not
 *     INT96, no NaN bound, right width). Page index bounds get the same width and NaN checks
 *     and are used only when the caller says the column's order is usable.
 *  3. NaN: statistics never include NaN values, so for FLOAT/DOUBLE a range test cannot rule
 *     out NaN rows. NaN fails = < <= BETWEEN IN (kernel.h invariant 2), so CANNOT_MATCH stays
 *     valid for those, but their ALL_MATCH needs nan_count == 0 known; NaN passes != > >= and
 *     NOT IN, so those are CANNOT_MATCH only when nan_count == 0 is known (a page index never
 *     says it: pages are not pruned by them on floating-point columns).
 *  4. Nulls: a comparison never matches null; IS NULL matches only nulls. null_count == 0
 *     makes IS NULL CANNOT_MATCH; null_count == num_values makes every comparison
 *     CANNOT_MATCH and IS NULL ALL_MATCH. ALL_MATCH for a comparison needs null_count == 0.
 *  5. A dynamic predicate with an unset bound returns CAN_MATCH (prunes nothing).
 *  6. Bloom filters answer only for predicates made entirely of = / IN terms; a literal is
 *     probed by its PLAIN bytes (flt_plain_encode); no probe hit for any literal means
 *     CANNOT_MATCH. Float zero probes both +0.0 and -0.0 (they compare equal but hash apart). */
#ifndef RINGSCAN_FILTER_PRUNE_H
#define RINGSCAN_FILTER_PRUNE_H
#include <stdbool.h>
#include <stdint.h>

#include "filter/expr.h"
#include "format/meta.h"

typedef enum flt_prune {
    FLT_CANNOT_MATCH = 0,
    FLT_CAN_MATCH = 1,
    FLT_ALL_MATCH = 2, /* every row of the unit matches: evaluation can be skipped */
} flt_prune;

/* Decides p on a unit (row group) with statistics s and num_values values including nulls
 * (-1 when unknown). s may be NULL (no statistics). Never fails. A multi-column predicate
 * (which has no one column's statistics) is CAN_MATCH here, and in the page, bloom and
 * estimate calls below keeps every page, CAN_MATCH and -1. */
flt_prune flt_prune_stats(const flt_pred *p, const pq_stats *s, int64_t num_values);

/* Decides p (single- or multi-column) on a row group whose chunk of schema column c is
 * chunks[c]; the statistics of p's columns must be decoded (format/meta.h invariant 6:
 * pq_chunk_stats asserts it). A multi-column predicate is CANNOT_MATCH when every item is (a
 * comparison of two columns from both min/max, never on floats), ALL_MATCH when one item is
 * (multi.c).
 * Single-column predicates as flt_prune_stats. */
flt_prune flt_prune_group(const flt_pred *p, const pq_chunk_meta *chunks);
/* The conjunction x (NULL: no filter, every row) on such a row group: CANNOT_MATCH when a
 * conjunct is, ALL_MATCH when every one is, else CAN_MATCH. A dynamic conjunct (a Top-K
 * bound, p->dyn) is CAN_MATCH: its value is not the statistics' to settle. */
flt_prune flt_prune_expr_group(const flt_expr *x, const pq_chunk_meta *chunks);

/* The minimum (want_max false) or maximum of s as a literal of p's domain: false when s has
 * no usable bounds (prune.h invariants 1-3) or the value is NaN. The literal may point into s. */
bool flt_stats_value(const flt_pred *p, const pq_stats *s, bool want_max, flt_lit *out);
/* Whether `a op b` holds for no a in [a.lo, a.hi] and b in [b.lo, b.hi], given hi_lo = the sign
 * of a.hi - b.lo and lo_hi = the sign of a.lo - b.hi (op EQ..GE). */
static inline bool flt_ranges_exclude(flt_op op, int hi_lo, int lo_hi)
{
    switch (op) {
    case FLT_OP_LT: return lo_hi >= 0;
    case FLT_OP_LE: return lo_hi > 0;
    case FLT_OP_GT: return hi_lo <= 0;
    case FLT_OP_GE: return hi_lo < 0;
    case FLT_OP_EQ: return hi_lo < 0 || lo_hi > 0;
    default: return hi_lo == 0 && lo_hi == 0; /* NE: one value on both sides */
    }
}

/* Sign of a - b for two literals of domain dom (not INT96 or BOOL). */
int flt_lit_cmp(flt_domain dom, const flt_lit *a, const flt_lit *b);

/* Page pruning from a column index: keep bit i (uint64 words, LSB first, npages bits) is set
 * unless page i CANNOT_MATCH; all bit i (optional, may be NULL) is set when page i is
 * ALL_MATCH. page_rows (optional) gives each page's value count, enabling the all-null test
 * from null_counts. order_usable: the column's min/max order is usable (e.g. the chunk's
 * pq_stats.usable, or the same rules). Returns the number of pages kept. */
int32_t flt_prune_pages(const flt_pred *p, const pq_column_index *ci, bool order_usable,
                        const int64_t *page_rows, uint64_t *keep, uint64_t *all);

/* Whether min/max bounds can ever rule p out: none of its OR-ed terms is NOT LIKE, ILIKE or
 * a LIKE with no fixed head (those are never ruled out, so neither is their OR); false for a
 * multi-column predicate (flt_prune_group decides those). */
bool flt_prunable(const flt_pred *p);

/* Whether bloom filters can answer p: a static single-column predicate of = / IN terms only
 * (invariant 6), or a multi-column one whose every part is one (then each part's column is
 * probed: flt_prune_bloom itself answers single-column predicates only). */
bool flt_bloom_applies(const flt_pred *p);

/* PLAIN encodings a row equal to literal l would have: fills out[k][0..len[k]) and returns
 * how many (0: no value of the column can equal l; 2: float zero's two signs). -1 when the
 * encoding is not canonical (BYTE_ARRAY decimals, booleans): the bloom filter cannot answer. */
int flt_plain_encode(const flt_pred *p, const flt_lit *l, uint8_t out[2][16], int32_t len[2]);

/* Bloom decision with a caller probe: probe(ctx, plain, n) returns false when the value is
 * definitely absent. Returns CANNOT_MATCH or CAN_MATCH (invariant 6). */
flt_prune flt_prune_bloom(const flt_pred *p, bool (*probe)(void *ctx, const uint8_t *plain,
                                                           size_t n),
                          void *ctx);
/* Same on a split-block bloom filter bitset (format/bloom.h hashing and probing). */
flt_prune flt_prune_bloom_sbbf(const flt_pred *p, const uint8_t *bitset, size_t bitset_len);

/* Estimated share of a unit's num_values rows (nulls included) that p matches, from its
 * statistics: 0 or 1 when flt_prune_stats proves it; else values taken as spread evenly over
 * [min, max] (strings by their first 8 bytes), = as 1 / distinct_count, or for integers
 * 1 / (max - min + 1); IS [NOT] NULL from the null count. -1 when the statistics cannot say
 * (no usable min/max, = on floats or strings without a distinct count, booleans, INT96,
 * a dynamic predicate). A guess for planning, never a proof: no decision that changes a
 * result may rest on it. */
double flt_estimate_stats(const flt_pred *p, const pq_stats *s, int64_t num_values);

#endif
