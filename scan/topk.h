/* scan/topk.h: ORDER BY keys LIMIT K. What the floors of a Top-K scan share: the keys, the
 * one bound of the scan (a dynamic predicate on the first key, at the head of every chain:
 * filter/expr.h invariant 6), the file position of each row group, and the consumer's merge.
 *
 * Flow: each split's chain starts with the bound, so rows (and, from its statistics, a whole
 * split) that cannot beat it are dropped before their other columns are read; after the chain
 * the split keeps its best K rows (task_topk.c), publishes its K-th first key as the bound
 * when it holds K rows, and passes those rows on with their keys (hidden columns after the
 * projected ones) and file positions. The consumer (topk.c) keeps the best K of every split's
 * rows and returns them in order once every split is done.
 *
 * Invariants:
 *  1. Ties are broken by file position (filter/sortkey.h invariant 3): the answer is one
 *     fixed list of rows, the same under every policy, thread count and split order.
 *  2. A split publishes a bound b only when it holds K rows each at least as good as b on
 *     the first key; a row worse than b on the first key cannot be in the answer, a tie can
 *     (it may win on later keys or file position), so the bound keeps ties.
 *  3. A batch of a Top-K split holds at most K rows; cols[nout + j] is key j's column.
 *  4. A row whose map key is null (a parquet-mr map with an OPTIONAL key) ranks as any row,
 *     with its map read as absent and marked in its batch (scan_batch.bad, task_nested.c):
 *     the scan fails naming it only if it is in the answer, as DuckDB fails only for the
 *     rows its ORDER BY ... LIMIT outputs. Its map is never output; a bound it helps
 *     publish is still sound (it is a row of the file). With keep_bad the answer's batches
 *     carry the marks on instead, for a dataset's merge to decide (ds_topk.h invariant 3). */
#ifndef RINGSCAN_SCAN_TOPK_H
#define RINGSCAN_SCAN_TOPK_H
#include <stdatomic.h>

#include "filter/sortkey.h"
#include "scan/explain.h"
#include "scan/pqfile.h"
#include "scan/scan.h"

typedef struct scan_topk {
    int nkeys;                 /* 0: not a Top-K scan */
    int nout;                  /* columns the caller sees; the batch's cols[nout + j] is key j */
    int64_t k;                 /* rows returned; INT64_MAX: every row (ORDER BY alone) */
    bool keep_bad;             /* scan_opts.topk_keep_bad (invariant 4) */
    flt_sort_key keys[FLT_MAX_SORT_KEYS];
    const flt_pred *bound;     /* the first key's dynamic predicate (in the filter), or NULL
                                  when the key has no numeric bound */
    flt_dyn *dyn;              /* its cell: own, or shared with sibling scans */
    void (*notify)(void *ctx, flt_domain dom, flt_lit v, uint64_t version); /* scan_opts' */
    void *notify_ctx;
    flt_dyn own;
    const int64_t *rg_first;   /* file position of each row group's first row */
    int *rg_order;             /* the scan's row groups most promising first (the plan's
                                  order, nrg of them), or NULL */
    int nrg;
    _Atomic int64_t splits_dead;  /* splits the bound ended from statistics */
    _Atomic int64_t pages_dead;   /* pages splits dropped by a bound published after planning */
    _Atomic int64_t rows_kept;    /* rows splits passed on as candidates */
} scan_topk;

/* Sets t up for o's keys (o->nkeys >= 1; K = o->limit, every row when < 0) over f, whose
 * caller sees nout columns: proj (room for nout + nkeys) gets each key's column after them
 * (hidden: invariant 3), *filter (created when NULL, owned by the caller) the first key's
 * bound, seeded from statistics where they prove K rows reach it, and rg_order the row groups
 * most promising first; the account goes to x. 0 or a status with e filled (a key no order is
 * defined on names its column). */
int scan_topk_init(scan_topk *t, pqf_t *f, const scan_opts *o, int nout,
                   flt_expr **filter, int *proj, scan_explain_buf *x, pq_err *e);
void scan_topk_free(scan_topk *t);
/* The bound now (the first key's domain: lit.i or lit.f): false when t has none (not Top-K,
 * a key no numeric bound holds) or it is unset. */
bool scan_topk_load(const scan_topk *t, flt_lit *v, uint64_t *version, flt_domain *dom);
/* Offers a bound from outside (a sibling scan that holds K rows at least as good: invariant
 * 2); true when it tightened t's. */
bool scan_topk_offer(scan_topk *t, flt_lit v);

/* Publishes v as t's bound when stricter (t->bound set; task_topk.c). When it changed and
 * notify, calls t->notify with the bound as it is then (maybe stricter still). */
bool scan_topk_publish(scan_topk *t, flt_lit v, bool notify);
/* Publishes (notifying) row i of v, the first key's column, when it holds K rows at least as
 * good (invariant 2): only a value, never a null or NaN, which the bound cannot hold. */
bool scan_topk_publish_row(scan_topk *t, const pq_vec *v, int64_t i);

/* The consumer's side: the best K rows of the batches seen so far (topk.c). */
typedef struct scan_topk_merge {
    scan_topk *t;              /* the merge publishes its K-th row as the bound too */
    scan_batch *held;          /* batches with candidate rows, owned */
    int nheld, cap;
    int64_t rows;              /* rows in held */
    struct topk_ref *order;    /* the final order, once sorted */
    int64_t norder, next;      /* rows in order, and the first not yet returned */
} scan_topk_merge;

/* Takes b (left empty) into m; when its rows pass four times K, keeps only the best K and
 * publishes the worst of them as the bound (they are K rows of the answer's candidates). 0 or
 * -ENOMEM / -EOVERFLOW (m unchanged by a failed compaction). */
int scan_topk_add(scan_topk_merge *m, scan_batch *b);
/* After the last batch: sorts what is held. 0, or a status with e filled: -ENOMEM, or a row
 * of the answer holds a null map key (invariant 4; the best-ranked such row of file meta's
 * is named) and not keep_bad. */
int scan_topk_finish(scan_topk_merge *m, const pq_file_meta *meta, pq_err *e);
/* The next batch of the answer, in order, with the nout projected columns only (and the
 * marks of invariant 4, with keep_bad): 1 and *b,
 * 0 at the end, or -ENOMEM / -EOVERFLOW. */
int scan_topk_next(scan_topk_merge *m, scan_batch *b);
void scan_topk_merge_free(scan_topk_merge *m);

#endif
