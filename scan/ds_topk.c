/* scan/ds_topk.c: the merge of a dataset's per-file Top-K rows (ds_topk.h). */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/dataset.h"
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

/* out->bad for the held rows refs[0..n): left NULL when none is marked (invariant 3). */
static int take_bad(const ds_topk *t, const row_ref *refs, int64_t n, scan_batch *out)
{
    int64_t marked = 0;
    for (int64_t r = 0; r < n; r++) {
        const scan_batch *b = &t->b[refs[r].b];
        marked += b->bad && b->bad[refs[r].i].map >= 0;
    }
    if (marked == 0) return 0;
    out->bad = fail_malloc(sizeof *out->bad * (size_t)n);
    if (!out->bad) return -ENOMEM;
    for (int64_t r = 0; r < n; r++) {
        const scan_batch *b = &t->b[refs[r].b];
        out->bad[r] = b->bad ? b->bad[refs[r].i] : (pq_nest_null_key){.map = -1};
    }
    return 0;
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
    if (rc == 0) rc = take_bad(t, refs, keep, out);
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

/* The name of file path's map and key column (their footer m's), kept: its index, or -1 on
 * -ENOMEM. */
static int name_of(ds_topk *t, const char *path, const pq_file_meta *m, int32_t map, int32_t col)
{
    for (int i = 0; i < t->nnames; i++)
        if (t->names[i].path == path && t->names[i].map == map && t->names[i].col == col) return i;
    if (t->nnames == t->ncap) {
        int cap = t->ncap ? 2 * t->ncap : 4;
        ds_key_name *more = fail_realloc(t->names, sizeof *more * (size_t)cap);
        if (!more) return -1;
        t->names = more, t->ncap = cap;
    }
    assert(map >= 0 && map < m->nnodes && col >= 0 && col < m->ncolumns);
    ds_key_name *n = &t->names[t->nnames];
    *n = (ds_key_name){.path = path, .map = map, .col = col};
    snprintf(n->column, sizeof n->column, "%s", m->columns[col].name);
    snprintf(n->map_path, sizeof n->map_path, "%s", m->nodes[map].path);
    return t->nnames++;
}

int ds_topk_names(ds_topk *t, scan_batch *b, const char *path, const pq_file_meta *m)
{
    for (int64_t i = 0; b->bad && i < b->rows; i++) {
        pq_nest_null_key *k = &b->bad[i];
        if (k->map < 0) continue;
        int at = name_of(t, path, m, k->map, k->col);
        if (at < 0) return -ENOMEM;
        k->map = at, k->col = -1; /* (the footer's indexes, now the name's) */
    }
    return 0;
}

int ds_topk_answer(ds_topk *t, scan_batch *out, pq_err *e)
{
    int rc = ds_topk_finish(t, out);
    int64_t r = 0; /* the best-ranked marked row */
    while (rc == 0 && out->bad && r < out->rows && out->bad[r].map < 0) r++;
    if (rc || !out->bad || r == out->rows) return rc;
    assert(out->bad[r].map < t->nnames);
    const ds_key_name *n = &t->names[out->bad[r].map];
    pq_nest_null_key_named(&out->bad[r], n->column, n->map_path, e);
    scan_batch_free(out);
    return ds_file_errf(e, RINGSCAN_EFORMAT, n->path, e->msg);
}

void ds_topk_free(ds_topk *t)
{
    for (int b = 0; b < t->nb; b++) scan_batch_free(&t->b[b]);
    free(t->b), free(t->base), free(t->names);
    *t = (ds_topk){0};
}
