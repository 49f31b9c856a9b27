/* scan/ds_post.c: a dataset's filter on the values a file's columns take once cast to the
 * dataset's types (ds_run.h ds_scan.post), as DuckDB filters after its casts: for a file whose
 * values of a filtered column compare otherwise once cast (to text beside a string column:
 * x = '12', x > '5' in string order; a decimal rounded to fewer decimals: ds_types_cast), the
 * file's scan gets no filter (so nothing is pruned by its statistics, which are in the file's
 * type) and no limit or Top-K keys, reads the filter's columns too, and each batch keeps the
 * rows the filter, evaluated on the cast vectors, passes.
 *
 * Invariants:
 *  1. post is the filter parsed against the schema's types (post_cols, which its predicates
 *     borrow), so its column indexes are schema columns.
 *  2. For a post file, fpos[c] is the place among the scan's vectors of each schema column c
 *     post reads that the file has, else -1 (a partition or missing column: a constant). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "filter/kernel.h"
#include "scan/api_priv.h"
#include "scan/ds_run.h"

bool ds_post_needed(const ds_scan *d, const ds_run *r)
{
    for (int c = 0; d->post && c < d->s.n; c++)
        if (d->filtered[c] && ds_types_cast(&d->s, &r->view, c)) return true;
    return false;
}

int ds_post_leaves(const ds_scan *d, ds_run *r, int *leaves, int32_t *nodes, int *nleaves)
{
    r->fpos = fail_malloc(sizeof(int) * (size_t)(d->s.n + 1));
    if (!r->fpos) return -ENOMEM;
    for (int c = 0; c < d->s.n; c++) {
        r->fpos[c] = -1;
        if (!d->filtered[c] || r->view.leaf[c] < 0 || d->s.cols[c].node >= 0) continue;
        for (int i = 0; i < *nleaves && r->fpos[c] < 0; i++) /* read already (not a path) */
            if (leaves[i] == r->view.leaf[c] && nodes[i] < 0) r->fpos[c] = i;
        if (r->fpos[c] >= 0) continue;
        nodes[*nleaves] = -1, leaves[*nleaves] = r->view.leaf[c];
        r->fpos[c] = (*nleaves)++;
    }
    return 0;
}

/* Schema column c of b (file r's batch) as c's type into *out: the file's vector copied and
 * cast (ds_dec_cast, ds_widen), or the file's constant. */
static int cast_into(const ds_scan *d, const ds_run *r, int c, const scan_batch *b, pq_vec *out,
                    pq_err *e)
{
    const ds_file *f = &d->a.list->files[r->fi];
    if (r->fpos[c] < 0) return ds_const_vec(&d->s, c, f, b->rows, out);
    const pq_vec *v = &b->cols[r->fpos[c]];
    uint32_t *idx = fail_malloc(sizeof(uint32_t) * (size_t)(b->rows + 1));
    if (!idx) return -ENOMEM;
    for (int64_t i = 0; i < b->rows; i++)
        idx[i] = (uint32_t)i;
    pq_vec_init(out, v->type, v->type_length);
    int rc = pq_vec_take(v, idx, b->rows, out); /* a copy: b's vector is cast again for output */
    free(idx);
    const ds_col *col = &d->s.cols[c];
    const pq_column_desc *from = &r->view.cols[r->view.leaf[c]];
    if (rc == 0 && ds_dec_cast_needed(&col->desc, from))
        return ds_dec_cast(col, from, f->path, out, e);
    if (rc == 0) rc = ds_widen(&col->desc, from, out);
    if (rc == 0 && r->scale[c]) rc = ds_rescale(col, r->scale[c], f->path, out, e);
    return rc;
}

/* cast_into, *out owning nothing when it fails (a value that does not fit the dataset's
 * type failed the cast with the file's copy made: it leaked). */
static int cast_col(const ds_scan *d, const ds_run *r, int c, const scan_batch *b, pq_vec *out,
                    pq_err *e)
{
    pq_vec_init(out, PQ_BOOLEAN, 0);
    int rc = cast_into(d, r, c, b, out, e);
    if (rc) pq_vec_free(out);
    return rc;
}

/* The rows of b that d->post passes into *keep. */
static int post_mask(const ds_scan *d, const ds_run *r, const scan_batch *b, flt_mask *keep,
                     pq_err *e)
{
    pq_vec *vecs = fail_calloc((size_t)d->s.n + 1, sizeof *vecs);
    bool *made = fail_calloc((size_t)d->s.n + 1, sizeof *made);
    flt_mask tmp = {0};
    int rc = vecs && made ? flt_mask_init(keep, b->rows, true) : -ENOMEM;
    for (int32_t k = 0; rc == 0 && k < d->post->npreds; k++) {
        const flt_pred *p = &d->post->preds[k];
        const pq_vec *ptr[FLT_MAX_MULTI_COLS];
        for (int32_t j = 0; rc == 0 && j < (p->multi ? p->multi->ncols : 1); j++) {
            int32_t c = p->multi ? p->multi->cols[j] : p->column;
            if (!made[c]) rc = cast_col(d, r, c, b, &vecs[c], e), made[c] = rc == 0;
            ptr[j] = &vecs[c];
        }
        if (rc == 0)
            rc = p->multi ? flt_eval_multi(p, ptr, keep, &tmp) : flt_eval(p, ptr[0], keep, &tmp);
        if (rc == 0) {
            flt_mask t = *keep;
            *keep = tmp, tmp = t;
        }
    }
    for (int c = 0; made && c < d->s.n; c++)
        if (made[c]) pq_vec_free(&vecs[c]);
    flt_mask_free(&tmp);
    free(vecs), free(made);
    return rc;
}

int ds_post_filter(const ds_scan *d, const ds_run *r, scan_batch *b, pq_err *e)
{
    assert(d->post && r->fpos);
    for (int j = 0; j < b->ncols; j++)
        if (b->cols[j].cols) /* a nested field's rows handed over as columns (vec.h 6) */
            return ds_file_errf(e, RINGSCAN_EUNSUPPORTED, d->a.list->files[r->fi].path,
                                "a filter on a column cast to the dataset's type here with a "
                                "nested field projected is not supported");
    flt_mask keep = {0};
    int rc = post_mask(d, r, b, &keep, e);
    int64_t n = 0;
    uint32_t *idx = rc ? NULL : fail_malloc(sizeof(uint32_t) * (size_t)(b->rows + 1));
    if (rc == 0 && !idx) rc = -ENOMEM;
    for (int64_t i = 0; rc == 0 && i < b->rows; i++)
        if (flt_mask_get(&keep, i)) idx[n++] = (uint32_t)i;
    for (int j = 0; rc == 0 && n < b->rows && j < b->ncols; j++) {
        pq_vec w;
        pq_vec_init(&w, b->cols[j].type, b->cols[j].type_length);
        rc = pq_vec_take(&b->cols[j], idx, n, &w);
        if (rc == 0) pq_vec_free(&b->cols[j]), b->cols[j] = w;
        else pq_vec_free(&w); /* its part allocated */
    }
    for (int64_t i = 0; rc == 0 && b->bad && i < n; i++) b->bad[i] = b->bad[idx[i]]; /* (rising) */
    if (rc == 0) b->rows = n;
    flt_mask_free(&keep);
    free(idx);
    return rc;
}
