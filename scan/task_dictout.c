/* scan/task_dictout.c: a projected column of options.dictionary_columns decoded as dictionary
 * indices (scan_opts.dict_out): the rows the final mask selects become int32 indices into the
 * chunk's dictionary, whose values are copied once per split; no row's value is decoded from
 * a dictionary-encoded page. A page that is not dictionary-encoded (a writer's fallback to
 * PLAIN mid-chunk) has its selected values added to a dictionary builder seeded with the
 * chunk's dictionary, as pyarrow builds one; so does a second dictionary page. Then every
 * index so far is mapped into the builder's numbering and the builder's values are the
 * batch's dictionary.
 * Invariants: out holds exactly the selected rows (task.h: compacted); every index of a
 * valid row is below the dictionary's length at the end; a null row's index is 0; when no
 * builder runs, map is NULL and indices are the chunk dictionary's own. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/encoding.h"
#include "format/page_walk.h"
#include "scan/task.h"

struct task_dictout {
    bool done;               /* out and dict hold the split's rows (project moves them) */
    pq_vec out;              /* INT32 indices of the selected rows */
    pq_vec dict;             /* the batch's dictionary (at the end) */
    const pq_vec *cur;       /* the dictionary the current indices refer to (NULL: none yet) */
    int64_t cur_loads;       /* the reader's dict_loads then */
    bool building;           /* the builder runs (fallback pages or a second dictionary) */
    pq_dict_builder b;
    uint32_t *map;           /* building: cur's index -> the builder's (cur->length entries) */
    pq_vec pidx, pvals;      /* one page's indices or selected values (scratch) */
    uint32_t *dense;         /* the builder's indices of a page's non-null values */
    int64_t dense_cap;
};

static uint32_t *grow_dense(task_dictout *d, int64_t n)
{
    if (n <= d->dense_cap) return d->dense;
    uint32_t *p = fail_realloc(d->dense, sizeof *p * (size_t)(n + 1));
    if (p) d->dense = p, d->dense_cap = n;
    return p;
}

/* The builder's indices of dictionary v's entries into *map (v has no nulls). */
static int seed(task_dictout *d, const pq_vec *v, uint32_t **map)
{
    *map = fail_malloc(sizeof **map * (size_t)(v->length + 1));
    if (!*map) return -ENOMEM;
    int64_t n = 0, done = 0;
    int rc = pq_dictb_add(&d->b, v, 0, v->length, *map, &n, &done);
    assert(rc || (n == v->length - v->null_count && done == v->length));
    return rc;
}

/* Starts the builder: cur's entries first, the indices so far mapped into its numbering. */
static int start_building(task_dictout *d, pq_physical t, int32_t tl)
{
    assert(!d->building && !d->map);
    int rc = pq_dictb_init(&d->b, t, tl, INT64_MAX, INT32_MAX);
    if (rc) return rc;
    d->building = true;
    if (!d->cur) return 0;
    if ((rc = seed(d, d->cur, &d->map)) != 0) return rc;
    int32_t *ix = (int32_t *)(void *)d->out.values;
    for (int64_t r = 0; r < d->out.length; r++) ix[r] = (int32_t)d->map[ix[r]];
    return 0;
}

/* The page's dictionary is dict (the reader's, loads as given): a first one is taken as is; a
 * different one later goes through the builder. */
static int use_dict(task_dictout *d, const pq_vec *dict, int64_t loads)
{
    if (d->cur == dict && d->cur_loads == loads) return 0;
    int rc = 0;
    if (d->cur && !d->building) rc = start_building(d, dict->type, dict->type_length);
    if (rc == 0 && d->building) {
        free(d->map);
        d->map = NULL;
        rc = seed(d, dict, &d->map);
    }
    d->cur = dict, d->cur_loads = loads;
    return rc;
}

/* Appends the selected rows sel[0..k) of a dictionary-encoded page (d->pidx: every row). */
static void append_indices(task_dictout *d, const uint32_t *sel, int64_t k)
{
    const int32_t *pix = (const int32_t *)(const void *)d->pidx.values;
    int32_t *out = (int32_t *)(void *)d->out.values;
    int64_t at = d->out.length;
    for (int64_t j = 0; j < k; j++) {
        uint32_t row = sel[j];
        bool valid = d->pidx.null_count == 0 || pq_bit_get(d->pidx.validity, row);
        assert(!valid || (pix[row] >= 0 && pix[row] < d->cur->length));
        out[at + j] = !valid ? 0 : d->map ? (int32_t)d->map[pix[row]] : pix[row];
        pq_bit_set(d->out.validity, at + j, valid);
        d->out.null_count += !valid;
    }
    d->out.length += k;
}

/* Appends a fallback page's k selected values (d->pvals) through the builder. */
static int append_values(task_dictout *d, int64_t k)
{
    int rc = d->building ? 0 : start_building(d, d->pvals.type, d->pvals.type_length);
    uint32_t *dense = rc ? NULL : grow_dense(d, k);
    if (rc == 0 && !dense) rc = -ENOMEM;
    int64_t n = 0, done = 0;
    if (rc == 0) rc = pq_dictb_add(&d->b, &d->pvals, 0, k, dense, &n, &done);
    if (rc) return rc;
    assert(done == k && d->pvals.length == k);
    int32_t *out = (int32_t *)(void *)d->out.values;
    int64_t at = d->out.length, m = 0;
    for (int64_t j = 0; j < k; j++) {
        bool valid = d->pvals.null_count == 0 || pq_bit_get(d->pvals.validity, j);
        out[at + j] = valid ? (int32_t)dense[m++] : 0;
        pq_bit_set(d->out.validity, at + j, valid);
        d->out.null_count += !valid;
    }
    assert(m == n);
    d->out.length += k;
    return 0;
}

/* One page with selected rows (task_walk_selected's callback). */
static int page_dictout(scan_task *x, pq_col_reader *r, void *ctx, pq_page_walk *w,
                        const pq_walk_page *pg)
{
    task_dictout *d = ctx;
    uint32_t *sel = task_sel(x, pg->e - pg->a);
    if (!sel) return -ENOMEM;
    int64_t k = task_mask_page_rows(x, pg->first_row, pg->a, pg->e, sel);
    pq_vec_clear(&d->pidx);
    pq_vec_clear(&d->pvals);
    bool as_idx = false;
    int rc = pq_walk_indices(w, sel, k, &d->pidx, &d->pvals, &as_idx, &x->err);
    if (rc == 0) rc = pq_vec_reserve(&d->out, k, 0);
    if (rc) return rc;
    if (!as_idx) return append_values(d, k);
    rc = use_dict(d, r->shared_dict ? r->shared_dict : &r->dict, r->dict_loads);
    if (rc == 0) append_indices(d, sel, k);
    return rc;
}

/* The batch's dictionary: the builder's values, or a copy of the chunk's. */
static int finish(task_dictout *d, pq_physical t, int32_t tl)
{
    pq_vec_init(&d->dict, t, tl);
    if (d->building) {
        d->dict = d->b.values;
        pq_vec_init(&d->b.values, t, tl);
        return 0;
    }
    if (!d->cur) return 0;
    uint32_t *all = fail_malloc(sizeof *all * (size_t)(d->cur->length + 1));
    if (!all) return -ENOMEM;
    for (int64_t i = 0; i < d->cur->length; i++) all[i] = (uint32_t)i;
    int rc = pq_vec_take(d->cur, all, d->cur->length, &d->dict);
    free(all);
    return rc;
}

static void state_free(task_dictout *d)
{
    pq_vec_free(&d->out);
    pq_vec_free(&d->dict);
    pq_vec_free(&d->pidx);
    pq_vec_free(&d->pvals);
    if (d->building) pq_dictb_free(&d->b);
    free(d->map);
    free(d->dense);
    memset(d, 0, sizeof *d);
}

int task_dictout_load(scan_task *x, int slot)
{
    assert(x->env->dict_slot && x->env->dict_slot[slot] && !x->decoded[slot]);
    if (!x->dout && !(x->dout = fail_calloc((size_t)x->plan->nneed, sizeof *x->dout)))
        return -ENOMEM;
    task_dictout *d = &x->dout[slot];
    const pq_column_desc *col = &x->plan->f->meta.columns[x->sp->cols[slot].col];
    pq_vec_init(&d->out, PQ_INT32, 0);
    pq_vec_init(&d->pidx, PQ_INT32, 0);
    pq_vec_init(&d->pvals, col->physical, col->type_length);
    task_drop_excluded_pages(x, slot);
    int rc = task_await_slot(x, slot);
    int64_t want = flt_mask_popcount(&x->mask);
    if (rc == 0) rc = pq_vec_reserve(&d->out, want, 0);
    if (rc == 0) rc = task_walk_selected(x, slot, page_dictout, d);
    if (rc == 0 && d->out.length != want)
        rc = pq_errf(&x->err, RINGSCAN_EFORMAT, -1, "column chunk yielded %lld selected rows, "
                     "the filter selected %lld", (long long)d->out.length, (long long)want);
    if (rc == 0) rc = finish(d, col->physical, col->type_length);
    if (rc) pq_err_place(&x->err, rc, x->err.offset, col->name); /* (the page's offset kept) */
    task_release_slot(x, slot);
    d->done = rc == 0;
    x->decoded[slot] = x->compacted[slot] = rc == 0;
    return rc;
}

bool task_dictout_take(scan_task *x, int slot, pq_vec *idx, pq_vec *dict)
{
    if (!x->dout || !x->dout[slot].done) return false;
    task_dictout *d = &x->dout[slot];
    *idx = d->out, *dict = d->dict;
    pq_vec_init(&d->out, PQ_INT32, 0);
    pq_vec_init(&d->dict, dict->type, dict->type_length);
    d->done = false;
    return true;
}

void task_dictout_free(scan_task *x)
{
    for (int s = 0; x->dout && s < x->plan->nneed; s++) state_free(&x->dout[s]);
    free(x->dout);
    x->dout = NULL;
}

int scan_dictout_slots(const scan_plan *p, const bool *dict_out, bool topk, bool **out)
{
    *out = NULL;
    if (!dict_out || topk) return 0; /* Top-K merges rows of many batches: values there */
    bool *s = fail_calloc((size_t)p->nneed + 1, sizeof *s);
    /* each slot's uses counted in one pass (counted per projection, n names took O(n^2)) */
    int *uses = fail_calloc((size_t)p->nneed + 1, sizeof *uses);
    if (!s || !uses) {
        free(s), free(uses);
        return -ENOMEM;
    }
    for (int j = 0; j < p->nproj; j++) uses[p->proj_slot[j]]++;
    for (int k = 0; k < p->npreds; k++) {
        int n;
        const int *ps = scan_plan_pred_slots(p, k, &n);
        for (int i = 0; i < n; i++) uses[ps[i]]++; /* a filter decodes its values */
    }
    for (int j = 0; j < p->nproj; j++) {
        int slot = p->proj_slot[j];
        assert(slot >= 0 && slot < p->nneed && uses[slot] >= 1);
        s[slot] = dict_out[j] && uses[slot] == 1;
    }
    free(uses);
    *out = s;
    return 0;
}
