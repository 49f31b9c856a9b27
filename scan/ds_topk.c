/* scan/ds_topk.c: the merge of a dataset's per-file Top-K rows (ds_topk.h). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/ds_topk.h"

int ds_topk_key(ds_topk *t, const pq_column_desc *d, int at, bool desc, bool nulls_first,
                pq_err *e)
{
    assert(t->nkeys < FLT_MAX_SORT_KEYS);
    int rc = flt_sort_key_init(&t->keys[t->nkeys], d, desc, nulls_first, e);
    if (rc == 0) t->col[t->nkeys++] = at;
    return rc;
}

typedef struct row_ref {
    int b;
    int64_t i;
} row_ref;

/* The held rows' order: qsort_r's context. */
static int ref_cmp(const void *x, const void *y, void *ctx)
{
    const ds_topk *t = ctx;
    const row_ref *a = x, *b = y;
    const pq_vec *ka[FLT_MAX_SORT_KEYS], *kb[FLT_MAX_SORT_KEYS];
    for (int k = 0; k < t->nkeys; k++)
        ka[k] = &t->b[a->b].cols[t->col[k]], kb[k] = &t->b[b->b].cols[t->col[k]];
    flt_sort_row ra = {.keys = ka, .i = a->i, .pos = t->base[a->b] + a->i};
    flt_sort_row rb = {.keys = kb, .i = b->i, .pos = t->base[b->b] + b->i};
    return flt_keys_cmp(t->keys, t->nkeys, &ra, &rb);
}

int ds_topk_finish(ds_topk *t, scan_batch *out)
{
    *out = (scan_batch){.row_group = -1};
    int64_t n = t->rows, keep = n < t->k ? n : t->k;
    row_ref *refs = fail_malloc(sizeof *refs * (size_t)(n + 1));
    if (!refs) return -ENOMEM;
    int64_t at = 0;
    for (int b = 0; b < t->nb; b++)
        for (int64_t i = 0; i < t->b[b].rows; i++) refs[at++] = (row_ref){b, i};
    assert(at == n);
    qsort_r(refs, (size_t)n, sizeof *refs, ref_cmp, t);
    int ncols = t->nb ? t->b[0].ncols : 0, rc = 0;
    out->cols = fail_calloc((size_t)ncols + 1, sizeof *out->cols);
    if (!out->cols) rc = -ENOMEM;
    out->ncols = out->cols ? ncols : 0;
    for (int j = 0; rc == 0 && j < ncols; j++) {
        pq_vec_init(&out->cols[j], t->b[0].cols[j].type, t->b[0].cols[j].type_length);
        for (int64_t r = 0; rc == 0 && r < keep; r++) {
            uint32_t idx = (uint32_t)refs[r].i;
            rc = pq_vec_take(&t->b[refs[r].b].cols[j], &idx, 1, &out->cols[j]);
        }
    }
    out->rows = keep;
    free(refs);
    for (int b = 0; b < t->nb; b++) scan_batch_free(&t->b[b]);
    t->nb = 0, t->rows = 0;
    if (rc) scan_batch_free(out); /* half taken: neither caller frees a failed batch (leaked) */
    return rc;
}

int ds_topk_add(ds_topk *t, scan_batch *b, int64_t base)
{
    if (t->nb == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        scan_batch *nb = fail_realloc(t->b, sizeof *nb * (size_t)cap);
        if (nb) t->b = nb;
        int64_t *nbase = nb ? fail_realloc(t->base, sizeof *nbase * (size_t)cap) : NULL;
        if (!nb || !nbase) return scan_batch_free(b), -ENOMEM;
        t->base = nbase, t->cap = cap;
    }
    t->b[t->nb] = *b, t->base[t->nb++] = base;
    t->rows += b->rows;
    *b = (scan_batch){.row_group = -1};
    /* a K past (INT64_MAX - 4096) / 4 never merges early (4K + 4096 overflowed: exit 132) */
    if (t->k > (INT64_MAX - 4096) / 4 || t->rows <= 4 * t->k + 4096) return 0;
    /* invariant 1: merge down to the best k, which keep their positions */
    scan_batch m;
    int rc = ds_topk_finish(t, &m);
    if (rc) return rc;
    return ds_topk_add(t, &m, 0);
}

void ds_topk_free(ds_topk *t)
{
    for (int b = 0; b < t->nb; b++) scan_batch_free(&t->b[b]);
    free(t->b), free(t->base);
    *t = (ds_topk){0};
}
