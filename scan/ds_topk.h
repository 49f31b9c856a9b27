/* scan/ds_topk.h: ORDER BY ... LIMIT K across a dataset's files: each file's scan returns
 * its best K rows in order (a Top-K scan, or its first K rows when every key is constant in
 * it), and the merge keeps the best K of all of them, ties broken by file then row order.
 *
 * Invariants:
 *  1. Held rows stay below 4K + one batch: past 4K they are merged down to the best K.
 *  2. Row positions are (file << 40) + the row's rank in its file's output, so equal keys
 *     keep path order, then the file's own order. */
#ifndef RINGSCAN_SCAN_DS_TOPK_H
#define RINGSCAN_SCAN_DS_TOPK_H
#include "filter/sortkey.h"
#include "scan/scan.h"

typedef struct ds_topk {
    int nkeys;
    flt_sort_key keys[FLT_MAX_SORT_KEYS];
    int col[FLT_MAX_SORT_KEYS];   /* each key's vector in the batches */
    int64_t k;
    scan_batch *b;                /* held batches (moved in) */
    int64_t *base;                /* [nb]: position of each batch's first row */
    int nb, cap;
    int64_t rows;                 /* held */
} ds_topk;

/* Adds a key on column d at vector `at` of the batches. 0 or a status with e filled. */
int ds_topk_key(ds_topk *t, const pq_column_desc *d, int at, bool desc, bool nulls_first,
                pq_err *e);
/* Takes b (moved: b's vectors are owned by t from now on) whose first row is at position base.
 * 0 or -ENOMEM. */
int ds_topk_add(ds_topk *t, scan_batch *b, int64_t base);
/* The best k rows held, in order, as one batch (t is left empty). 0 or -ENOMEM (then *out
 * holds nothing). */
int ds_topk_finish(ds_topk *t, scan_batch *out);
void ds_topk_free(ds_topk *t);

#endif
