/* scan/ds_topk.h: ORDER BY ... LIMIT K across a dataset's files: each file's scan returns
 * its best K rows in order (a Top-K scan, or its first K rows when every key is constant in
 * it), and the merge keeps the best K of all of them, ties broken by file then row order.
 *
 * Invariants:
 *  1. Held rows stay below 4K + one batch: past 4K they are merged down to the best K.
 *  2. Row positions are (file << 40) + the row's rank in its file's output, so equal keys
 *     keep path order, then the file's own order.
 *  3. A row holding a null map key (topk.h invariant 4: its file's scan keeps it marked,
 *     scan_opts.topk_keep_bad) ranks as any row; its mark then points at names the merge
 *     keeps (ds_topk_names: one per file, map and column, as the file closes before the
 *     answer), and the answer fails naming the best-ranked marked row it holds, as DuckDB's
 *     ORDER BY ... LIMIT over read_parquet([...]) fails only for the rows it outputs. */
#ifndef RINGSCAN_SCAN_DS_TOPK_H
#define RINGSCAN_SCAN_DS_TOPK_H
#include "filter/sortkey.h"
#include "scan/scan.h"

/* The names of a null map key's error (invariant 3). */
typedef struct ds_key_name {
    const char *path;          /* the file's (borrowed: the dataset's list outlives the merge) */
    int32_t map, col;          /* in its footer */
    char column[128];          /* the key's column */
    char map_path[200];
} ds_key_name;

typedef struct ds_topk {
    int nkeys;
    flt_sort_key keys[FLT_MAX_SORT_KEYS];
    int col[FLT_MAX_SORT_KEYS];   /* each key's vector in the batches */
    int64_t k;
    scan_batch *b;                /* held batches (moved in) */
    int64_t *base;                /* [nb]: position of each batch's first row */
    int nb, cap;
    int64_t rows;                 /* held */
    ds_key_name *names;           /* invariant 3 */
    int nnames, ncap;
} ds_topk;

/* Adds a key on column d at vector `at` of the batches. 0 or a status with e filled. */
int ds_topk_key(ds_topk *t, const pq_column_desc *d, int at, bool desc, bool nulls_first,
                pq_err *e);
/* Takes b (moved: b's vectors are owned by t from now on) whose first row is at position base.
 * 0 or -ENOMEM. */
int ds_topk_add(ds_topk *t, scan_batch *b, int64_t base);
/* The best k rows held, in order, as one batch (t is left empty), their marks with them
 * (invariant 3). 0 or -ENOMEM (then *out holds nothing). */
int ds_topk_finish(ds_topk *t, scan_batch *out);
/* b's marks (scan_batch.bad, from the file at path whose footer is m) pointed at names t
 * keeps, before b goes on (invariant 3). 0 or -ENOMEM. */
int ds_topk_names(ds_topk *t, scan_batch *b, const char *path, const pq_file_meta *m);
/* The answer: ds_topk_finish's batch, or RINGSCAN_EFORMAT with e naming the file, row, map and
 * column of its best-ranked marked row (invariant 3; *out then holds nothing). */
int ds_topk_answer(ds_topk *t, scan_batch *out, pq_err *e);
void ds_topk_free(ds_topk *t);

#endif
