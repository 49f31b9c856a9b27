/* scan/task_topk.c: a Top-K split's part (scan/topk.h): ending a split that the bound already
 * beats from its statistics, and after the chain keeping the split's best K rows, publishing
 * its K-th first key as the scan's bound, and the rows' file positions. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/prune.h"
#include "scan/task.h"

bool scan_topk_publish(scan_topk *t, flt_lit v, bool notify)
{
    assert(t->bound);
    if (!flt_dyn_publish(t->dyn, t->bound->dom, t->keys[0].desc, v)) return false; /* or NaN */
    flt_lit now;
    uint64_t version;
    if (notify && t->notify && flt_dyn_load(t->dyn, t->bound->dom, &now, &version))
        t->notify(t->notify_ctx, t->bound->dom, now, version);
    return true;
}

bool task_topk_dead(scan_task *x)
{
    const scan_topk *t = x->env->topk;
    if (!t) return false;
    if (t->k == 0) return true; /* LIMIT 0 */
    if (!t->bound) return false;
    const pq_chunk_meta *cm = &x->plan->f->meta.row_groups[x->sp->rg].chunks[t->bound->column];
    return flt_prune_stats(t->bound, pq_chunk_stats(cm), cm->num_values) == FLT_CANNOT_MATCH;
}

int task_topk_pages(scan_task *x)
{
    scan_topk *t = x->env->topk;
    if (!t || !t->bound || x->plan->dyn_pred < 0) return 0;
    flt_lit v;
    uint64_t version = 0;
    if (!flt_dyn_load(t->dyn, t->bound->dom, &v, &version) || version == x->topk_version) return 0;
    int n = scan_plan_dyn_prune(x->plan, x->index, &x->mask);
    if (n < 0) return n;
    x->topk_version = version;
    if (n == 0) return 0;
    atomic_fetch_add_explicit(&t->pages_dead, n, memory_order_relaxed);
    for (int k = 0; k < x->plan->nneed; k++) /* their unsent reads vanish, sent ones cancel */
        if (!x->decoded[k]) task_drop_excluded_pages(x, k);
    return 0;
}

/* The split's rows as sort rows: key vectors and each selected row's file position. A key
 * vector holds every row of the split (full: a conjunct decoded it) or only the selected
 * ones, in mask order (decoded compacted here). */
typedef struct topk_rows {
    const scan_topk *t;
    const pq_vec *kv[FLT_MAX_SORT_KEYS];
    bool full[FLT_MAX_SORT_KEYS];
    const uint32_t *row; /* split-relative rows, in mask order */
    int64_t base;        /* file position of the split's row 0 */
} topk_rows;

/* Where selected row a (an index into row[]) is in key j's vector. */
static int64_t key_at(const topk_rows *r, int j, int64_t a)
{
    return r->full[j] ? r->row[a] : a;
}

/* Row a (an index into row[]) against row b: key by key, then file position (which is the
 * order of row[]): flt_keys_cmp with each key's own index. */
static int rows_cmp(const topk_rows *r, int64_t a, int64_t b)
{
    for (int j = 0; j < r->t->nkeys; j++) {
        int c = flt_sort_cmp(&r->t->keys[j], r->kv[j], key_at(r, j, a), r->kv[j], key_at(r, j, b));
        if (c) return c;
    }
    return (a > b) - (a < b);
}

/* Restores the max-heap (worst row on top) below position at of h[0..n). */
static void sift_down(const topk_rows *r, int64_t *h, int64_t n, int64_t at)
{
    for (;;) {
        int64_t c = 2 * at + 1;
        if (c >= n) return;
        if (c + 1 < n && rows_cmp(r, h[c + 1], h[c]) > 0) c++;
        if (rows_cmp(r, h[c], h[at]) <= 0) return;
        int64_t s = h[c];
        h[c] = h[at], h[at] = s, at = c;
    }
}

/* The best k of rows 0..n (n > k >= 1) into h[0..k), worst first (a max-heap). */
static void select_best(const topk_rows *r, int64_t *h, int64_t n, int64_t k)
{
    for (int64_t i = 0; i < k; i++) h[i] = i;
    for (int64_t i = k / 2; i-- > 0;) sift_down(r, h, k, i);
    for (int64_t i = k; i < n; i++) {
        if (rows_cmp(r, i, h[0]) >= 0) continue;
        h[0] = i;
        sift_down(r, h, k, 0);
    }
}

bool scan_topk_publish_row(scan_topk *t, const pq_vec *v, int64_t i)
{
    if (!t->bound || !pq_vec_is_valid(v, i)) return false;
    flt_lit l = {0};
    switch (t->bound->dom) {
    case FLT_DOM_I32: l.i = ((const int32_t *)v->values)[i]; break;
    case FLT_DOM_U32: l.i = (int64_t)((const uint32_t *)v->values)[i]; break;
    case FLT_DOM_I64: case FLT_DOM_U64: memcpy(&l.i, v->values + 8 * i, 8); break;
    case FLT_DOM_F32: l.f = ((const float *)v->values)[i]; break;
    case FLT_DOM_F64: l.f = ((const double *)v->values)[i]; break;
    default: return false;
    }
    return scan_topk_publish(t, l, true);
}

/* A key slot decoded compacted to the n selected rows keeps only the k kept ones (at
 * indexes at[0..k) of its vector, ascending), so it stays compacted to the mask. */
static int recompact(scan_task *x, int slot, const uint32_t *at, int64_t k)
{
    pq_vec *v = &x->vecs[slot], kept;
    pq_vec_init(&kept, v->type, v->type_length);
    int rc = pq_vec_take(v, at, k, &kept);
    if (rc) {
        pq_vec_free(&kept);
        return rc;
    }
    pq_vec_free(v);
    *v = kept;
    return 0;
}

/* x->mask = the rows at h[0..k) of r->row[0..n); compacted key slots follow. */
static int keep_rows(scan_task *x, const topk_rows *r, const int64_t *h, int64_t k, int64_t n)
{
    flt_mask_free(&x->tmp);
    int rc = flt_mask_init(&x->tmp, x->mask.len, false);
    if (rc) return rc;
    for (int64_t j = 0; j < k; j++) flt_mask_set(&x->tmp, r->row[h[j]]);
    flt_mask swap = x->mask;
    x->mask = x->tmp, x->tmp = swap;
    uint32_t *at = fail_malloc(sizeof *at * (size_t)(k + 1));
    if (!at) return -ENOMEM;
    int64_t m = 0;
    for (int64_t a = 0; a < n; a++)
        if (flt_mask_get(&x->mask, r->row[a])) at[m++] = (uint32_t)a;
    assert(m == k);
    for (int j = 0; rc == 0 && j < r->t->nkeys; j++) {
        int slot = x->plan->proj_slot[r->t->nout + j];
        bool first = true; /* a slot that is two keys is recompacted once */
        for (int i = 0; i < j; i++) first = first && x->plan->proj_slot[r->t->nout + i] != slot;
        if (!r->full[j] && first) rc = recompact(x, slot, at, k);
    }
    free(at);
    return rc;
}

int task_topk_select(scan_task *x, int64_t **pos)
{
    scan_topk *t = x->env->topk;
    assert(t && t->nkeys >= 1 && t->k >= 0);
    *pos = NULL;
    topk_rows r = {.t = t, .base = t->rg_first[x->sp->rg] + x->row_lo};
    for (int j = 0; j < t->nkeys; j++) { /* a key no conjunct decoded: the selected rows only */
        int slot = x->plan->proj_slot[t->nout + j];
        int rc = task_load_projected(x, slot);
        if (rc) return rc;
        r.kv[j] = &x->vecs[slot];
        r.full[j] = !x->compacted[slot];
    }
    int64_t n = flt_mask_popcount(&x->mask), k = n < t->k ? n : t->k;
    for (int j = 0; j < t->nkeys; j++) assert(r.full[j] ? r.kv[j]->length == x->nrows : r.kv[j]->length == n);
    uint32_t *row = fail_malloc(sizeof *row * (size_t)(n + 1));
    int64_t *h = fail_malloc(sizeof *h * (size_t)(k + 1));
    *pos = fail_malloc(sizeof **pos * (size_t)(k + 1));
    int rc = row && h && *pos ? 0 : -ENOMEM;
    if (rc == 0) {
        flt_mask_select(&x->mask, row, n);
        r.row = row;
        if (k < n && k > 0) select_best(&r, h, n, k);
        for (int64_t i = 0; k == n && i < n; i++) h[i] = i;
        if (k < n) rc = keep_rows(x, &r, h, k, n);
    }
    if (rc == 0 && k > 0 && k == t->k) { /* it holds K rows: the worst of them is a bound */
        int64_t worst = h[0];
        for (int64_t j = 1; k == n && j < k; j++) if (rows_cmp(&r, h[j], worst) > 0) worst = h[j];
        scan_topk_publish_row(t, r.kv[0], key_at(&r, 0, worst)); /* topk.h invariant 2 */
    }
    if (rc == 0) {
        int64_t got = flt_mask_select(&x->mask, row, n);
        assert(got == k);
        for (int64_t j = 0; j < k; j++) (*pos)[j] = r.base + row[j];
        atomic_fetch_add_explicit(&t->rows_kept, k, memory_order_relaxed);
    }
    free(row);
    free(h);
    if (rc) free(*pos), *pos = NULL;
    return rc;
}
