/* tests/fuzz/fuzz_eval.h: what the filter fuzz targets do with a predicate that typed: evaluate
 * it on three rows of each column it reads (zeroes, or "", "ab", "abc") and prune it without
 * statistics; any failure aborts but a value out of range in a value expression (-ERANGE).
 * schema is the target's own. */
#ifndef RINGSCAN_FUZZ_EVAL_H
#define RINGSCAN_FUZZ_EVAL_H
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/kernel.h"
#include "filter/prune.h"

static void fuzz_small_vec(const pq_column_desc *d, pq_vec *v)
{
    pq_vec_init(v, d->physical, d->type_length);
    if (pq_vec_reserve(v, 3, 8) != 0) abort();
    v->length = 3;
    if (v->type == PQ_BYTE_ARRAY) {
        memcpy(v->data, "ababc", 5), v->data_len = 5;
        v->offsets[0] = 0, v->offsets[1] = 0, v->offsets[2] = 2, v->offsets[3] = 5;
    }
    free(v->validity), v->validity = NULL, v->validity_cap = 0;
}

static void fuzz_eval_small(const pq_column_desc *schema, const flt_pred *p)
{
    const flt_multi *m = p->multi;
    int n = m ? m->ncols : 1;
    if (m && (n < 1 || n > FLT_MAX_MULTI_COLS || m->nitems < 1 || m->cols[0] != p->column)) abort();
    if ((p->nterms < 1 && !m) || p->desc != &schema[p->column]) abort();
    pq_vec v[FLT_MAX_MULTI_COLS];
    const pq_vec *vp[FLT_MAX_MULTI_COLS];
    for (int i = 0; i < n; i++)
        fuzz_small_vec(&schema[m ? m->cols[i] : p->column], &v[i]), vp[i] = &v[i];
    flt_mask out = {0};
    int rc = m ? flt_eval_multi(p, vp, NULL, &out) : flt_eval(p, &v[0], NULL, &out);
    if ((rc != 0 && !(rc == -ERANGE && m)) || (rc == 0 && out.len != 3)) abort(); /* ERANGE:
                                                     CAST(NaN AS INTEGER) and the like */
    flt_mask_free(&out);
    for (int i = 0; i < n; i++) pq_vec_free(&v[i]);
    (void)flt_prune_stats(p, NULL, 3);
}

#endif
