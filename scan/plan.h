/* scan/plan.h: the plan of a scan, the lowest floor of scan/: which columns are read (slots),
 * the splits (a row group, or page-aligned row ranges of a large one), what static pruning
 * decided for each (statistics, page index, bloom filters), the byte ranges (pieces) each
 * split may read, and per conjunct the chance from statistics that it ends a split all-false.
 *
 * Built once by scan_plan_build from metadata reads only (synchronous; counted in
 * stats.plan_reads), then read-only: every core reads it without synchronisation.
 *
 * Invariants:
 *  1. Slots: predicate columns first (deduplicated), then projection-only columns;
 *     need[slot] is a leaf index, pred_slot[k], pred_slots[] and proj_slot[j] are slots.
 *  2. A pruned split has no pieces; an unpruned one has one colplan per slot, its pieces in
 *     file order, a dictionary piece first.
 *  3. rows0 has len 0 (all rows) or len == nrows; a split's rows lie inside its row group.
 *  4. shares_rg is set on the unpruned splits of a row group cut into two or more unpruned
 *     splits; exactly one of them (the first) is the group's leader. */
#ifndef RINGSCAN_SCAN_PLAN_H
#define RINGSCAN_SCAN_PLAN_H
#include <stdbool.h>
#include <stdint.h>

#include "filter/expr.h"
#include "filter/mask.h"
#include "scan/explain.h"
#include "scan/pqfile.h"
#include "scan/scan.h"

/* One contiguous byte range of a column chunk a split may read: a whole chunk, a dictionary
 * page, or one data page holding rows [first_row, first_row + nrows) relative to the split's
 * first row. A page may straddle the split's edges (first_row < 0, or first_row + nrows >
 * the split's nrows) when a row group is cut into several splits: only the rows inside the
 * split are kept. A whole chunk's first_row is 0, or -row_lo when the split is one of a
 * row group cut without offset indexes (plan_cut.c cut_even: its pages are walked from the
 * chunk's start, the ones outside the split skipped undecoded; the task moves the window's
 * edges to page starts, task_pieces.c task_window, and walks from -its row_lo). */
typedef struct scan_piece {
    uint64_t off, len;
    int64_t first_row, nrows; /* dictionary pieces: nrows 0 */
    bool dict;
    bool whole_chunk;
    bool windowed;            /* a nested leaf's chunk read in windows as its stream asks
                                 (task_nwin.c), nothing up front: no read is registered or
                                 prefetched for it and no unit request covers it; len is then
                                 its first window's bytes (the budget's estimate) */
    uint64_t chunk_len;       /* whole_chunk: the chunk's bytes */
    const pq_offset_index *oi; /* a nested leaf's whole chunk in a cut row group whose nested
                                  leaves all have one: its offset index (checked against the
                                  chunk; the plan's, scan_plan.nest_index), so a split starts
                                  at its first row's page (format/nest_stream.c invariant 7)
                                  and another core may run it (fetch_unit.c); else NULL */
} scan_piece;

/* The bytes of a nested leaf's column chunk read at once, at least (64 MiB; a page larger
 * than it is read whole): a larger chunk is read in windows of this size as its rows are
 * decoded (scan/task_nwin.c), so memory holds one window per leaf per core, not the chunk.
 * RINGSCAN_TEST_NEST_WINDOW_BYTES (test only, read once) sets it, so a test windows a small
 * file's chunk as a large one's. scan/plan_nested.c. */
uint64_t scan_nest_window_bytes(void);

/* What a split reads of one column. */
typedef struct scan_colplan {
    int col;                  /* leaf column index */
    int npieces;
    scan_piece *pieces;
} scan_colplan;

/* A split: rows [row_lo, row_lo + nrows) of row group rg (the whole group unless it was cut
 * at page boundaries, or evenly: then the task moves the edges to page starts, task_window). */
typedef struct scan_split {
    int rg;
    int64_t row_lo, nrows;
    bool pruned;               /* by statistics / bloom / page index at planning */
    bool shares_rg;            /* invariant 4 (its dictionaries are shared: task_dict.c) */
    bool leader;               /* shares_rg and the group's first unpruned split: the only one
                                  that registers dictionary pages up front */
    int pages_total, pages_pruned;
    flt_mask rows0;            /* rows left after page-index pruning (len 0 = all rows) */
    scan_colplan *cols;        /* one per slot */
} scan_split;

/* The page index of a dynamic (Top-K) predicate's column in one row group, kept past
 * planning so a split can prune pages by the bound as it tightens (scan_plan_dyn_prune). */
typedef struct scan_dyn_index {
    bool has;                  /* false: no usable index in this row group */
    bool order_usable;         /* the column's min/max order may be used */
    pq_column_index ci;        /* owned */
    int64_t *first;            /* first row of each page; first[ci.npages] = the group's rows */
} scan_dyn_index;

/* A nested leaf's offset index in row group rg (column col), kept for the pieces. */
typedef struct scan_nest_index {
    int rg, col;
    pq_offset_index oi;        /* owned */
} scan_nest_index;

/* Few kept row groups: fewer than this many per core are cut for the cores (plan.c cut_rows)
 * and their splits paced from the scan's start (fetch.c invariant 6). */
enum { SCAN_CUT_SPLITS_PER_CORE = 4 };

typedef struct scan_plan {
    pqf_t *f;                  /* borrowed */
    const flt_expr *filter;    /* borrowed; NULL = none */
    int npreds;
    int nproj;
    int *proj;                 /* leaf indexes, output order */
    int nneed;                 /* slots: columns read (invariant 1) */
    int *need;                 /* leaf index per slot */
    int *pred_slot;            /* slot of each predicate's (first) column */
    int *pred_at;              /* [npreds + 1]: predicate k reads slots pred_slots[pred_at[k]
                                  .. pred_at[k + 1]), its multi->cols in order (one slot,
                                  pred_slot[k], for a single-column predicate) */
    int *pred_slots;
    int *proj_slot;            /* slot of each projected column */
    int *proj_first;           /* the first projection with projection j's slot (j itself,
                                  or an earlier one: the same column projected twice) */
    int32_t *slot_node;        /* per slot: the schema node a nested slot's packed rows hold
                                  (format/column_nested.h; its first leaf is need[slot]); -1
                                  for a flat column */
    int nsplits;
    scan_split *splits;
    bool cut;                  /* some row group was cut into several unpruned splits */
    /* per conjunct, the chance from statistics that its mask is all-false on a split (mean
     * over the live splits; 1.0 where the statistics cannot say): the prior the adaptive
     * policy's evidence starts from */
    double conj_prior[FLT_MAX_PREDS];
    scan_stats stats;          /* the planning part: row groups, pages, plan reads */
    scan_nest_index **nest_index; /* the offset indexes of the nested leaves of cut row
                                     groups (plan_nested.c plan_nest_index), nnest_index of
                                     them, each allocated once (pieces point into them) */
    int nnest_index, nest_index_cap;
    int dyn_pred;              /* the dynamic predicate's conjunct, -1 when none */
    scan_dyn_index *dyn;       /* its page index per row group, NULL when none is kept */
} scan_plan;

/* Plans a scan of f projecting leaves proj[0..nproj) (nproj >= 1) under filter (borrowed, may
 * be NULL) with o's pruning switches and split size; writes its account to x (may be off).
 * 0, or a negative status with e filled; p is then still safe to scan_plan_free. */
int scan_plan_build(scan_plan *p, pqf_t *f, const int *proj, int nproj, const flt_expr *filter,
                    const scan_opts *o, scan_explain_buf *x, pq_err *e);
void scan_plan_free(scan_plan *p);

/* The slots predicate k reads (*n of them; expr.h invariant 8 for several). */
static inline const int *scan_plan_pred_slots(const scan_plan *p, int k, int *n)
{
    *n = p->pred_at[k + 1] - p->pred_at[k];
    return p->pred_slots + p->pred_at[k];
}

/* Split i's rows' share of the footer's uncompressed sizes of the chunks its slots read
 * (every leaf of a nested slot), at least a byte a row; 0 when pruned: what the output
 * window's byte gate scales into a batch's estimate (output.h invariant 7). plan_cut.c. */
uint64_t scan_plan_split_unc(const scan_plan *p, int i);
/* The bytes split i's pieces of slot k cover (what a conjunct on it costs to read). */
uint64_t scan_plan_slot_bytes(const scan_plan *p, int i, int k);
/* Clears in mask (split i's rows) the rows of the pages of the dynamic predicate's column
 * that its bound, as it is now, rules out (a page straddling the split's edge counts for its
 * rows inside). Returns how many pages with rows still set it cleared (0 when the plan kept
 * no page index for it) or -ENOMEM (mask unchanged). */
int scan_plan_dyn_prune(const scan_plan *p, int i, flt_mask *mask);
/* Whether the dynamic predicate's column has its pages sorted in row group rg (its column
 * index's boundary order), so a bound can rule out whole splits of a cut group. */
bool scan_plan_dyn_sorted(const scan_plan *p, int rg);

#endif
