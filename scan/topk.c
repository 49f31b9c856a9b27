/* scan/topk.c: the consumer's side of a Top-K scan (topk.h): the best K of the candidate
 * rows every split passed on, compacted as they come, and the answer in order at the end. */
#include "scan/topk.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/status.h"
#include "filter/prune.h"
#include "format/column_nested.h"
#include "scan/explain.h"
#include "scan/pqfile.h"

enum { TOPK_OUT_ROWS = 65536 }; /* rows per batch of the answer */

typedef struct topk_ref {
    int32_t b;  /* held batch */
    uint32_t i; /* row in it */
} topk_ref;

static void key_row(const scan_topk_merge *m, topk_ref r, const pq_vec **kv, flt_sort_row *out)
{
    const scan_batch *b = &m->held[r.b];
    for (int j = 0; j < m->t->nkeys; j++) kv[j] = &b->cols[m->t->nout + j];
    *out = (flt_sort_row){.keys = kv, .i = r.i, .pos = b->pos[r.i]};
}

static int ref_cmp(const void *pa, const void *pb, void *ctx)
{
    const scan_topk_merge *m = ctx;
    const pq_vec *ka[FLT_MAX_SORT_KEYS], *kb[FLT_MAX_SORT_KEYS];
    flt_sort_row x, y;
    key_row(m, *(const topk_ref *)pa, ka, &x);
    key_row(m, *(const topk_ref *)pb, kb, &y);
    return flt_keys_cmp(m->t->keys, m->t->nkeys, &x, &y);
}

/* ---------------------------------------------------------------------------- setup */

/* File position of every row group's first row; -EOVERFLOW when they do not add up. */
static int row_group_starts(const pq_file_meta *m, int64_t **out)
{
    int64_t *first = fail_malloc(sizeof *first * (size_t)(m->nrow_groups + 1));
    if (!first) return -ENOMEM;
    int64_t at = 0;
    for (int g = 0; g < m->nrow_groups; g++) {
        first[g] = at;
        if (m->row_groups[g].num_rows < 0 || __builtin_add_overflow(at, m->row_groups[g].num_rows, &at)) {
            free(first);
            return -EOVERFLOW;
        }
    }
    *out = first;
    return 0;
}

/* The --explain line of the keys: "top-k: ORDER BY a DESC NULLS LAST, b ASC ... LIMIT K". */
static void explain_keys(const scan_topk *t, const pq_file_meta *m, const scan_opts *o,
                         scan_explain_buf *x)
{
    scan_explainf(x, "top-k: ORDER BY");
    for (int j = 0; j < t->nkeys; j++)
        scan_explainf(x, "%s %s %s NULLS %s", j ? "," : "", m->columns[o->keys[j].col].name,
                      o->keys[j].desc ? "DESC" : "ASC", o->keys[j].nulls_first ? "FIRST" : "LAST");
    if (t->k < INT64_MAX) scan_explainf(x, " LIMIT %lld", (long long)t->k);
    scan_explainf(x, "; bound: %s\n", t->bound ? "a conjunct at the head of every chain"
                                              : "none (the first key is not numeric)");
}

/* The first key's bound, a dynamic predicate appended to *filter (created when NULL); none
 * for a key no numeric bound can hold (strings, decimals, booleans). */
static int add_bound(scan_topk *t, const pq_file_meta *m, const scan_order_key *k0,
                     flt_expr **filter, pq_err *e)
{
    if (!*filter && !(*filter = flt_expr_new())) return -ENOMEM;
    int flags = (k0->desc ? FLT_DYN_DESC : 0) | (k0->nulls_first ? FLT_DYN_NULLS_FIRST : 0);
    int rc = flt_expr_add_dynamic(*filter, m->columns, m->ncolumns, k0->col, flags, t->dyn, NULL);
    if (rc == RINGSCAN_EUNSUPPORTED) return 0;
    if (rc) return pq_errf(e, rc, -1, "cannot add the Top-K bound: %s", status_text(rc));
    t->bound = &(*filter)->preds[(*filter)->npreds - 1];
    return 0;
}

/* What a row group's statistics say of the first key. */
typedef struct rg_fact {
    int rg;
    bool known;   /* usable bounds */
    bool nulls;   /* it may hold nulls */
    flt_lit best; /* its best value under the key (desc: max, asc: min) */
    flt_lit worst;
    int64_t rows; /* rows at least as good as worst, or -1 when unknown */
} rg_fact;

static const scan_topk *fact_t; /* qsort's context (one scan starts at a time per thread) */

/* Best first: groups that may hold nulls sorting first, then unknown ones, then by best value;
 * file order breaks ties. */
static int promise_cmp(const void *pa, const void *pb)
{
    const rg_fact *a = pa, *b = pb;
    const flt_sort_key *k = &fact_t->keys[0];
    if (k->nulls_first && a->nulls != b->nulls) return a->nulls ? -1 : 1;
    if (a->known != b->known) return a->known ? 1 : -1;
    int c = a->known ? flt_lit_cmp(fact_t->bound->dom, &a->best, &b->best) : 0;
    if (c) return k->desc ? -c : c;
    return (a->rg > b->rg) - (a->rg < b->rg);
}

/* By worst value, best first (the seed's order). */
static int worst_cmp(const void *pa, const void *pb)
{
    const rg_fact *a = pa, *b = pb;
    int c = flt_lit_cmp(fact_t->bound->dom, &a->worst, &b->worst);
    return fact_t->keys[0].desc ? -c : c;
}

/* Whether every row of rg passes the filter's static conjuncts, from statistics. */
static bool all_pass(const flt_expr *filter, const pq_row_group *g)
{
    for (int k = 0; filter && k < filter->npreds; k++) {
        const flt_pred *p = &filter->preds[k];
        if (!p->dyn && flt_prune_group(p, g->chunks) != FLT_ALL_MATCH) return false;
    }
    return true;
}

static void fact_of(const scan_topk *t, const pq_row_group *g, const flt_expr *filter, rg_fact *f)
{
    const pq_chunk_meta *cm = &g->chunks[t->bound->column];
    const pq_stats *st = pq_chunk_stats(cm);
    bool desc = t->keys[0].desc, fl = t->bound->dom == FLT_DOM_F32 || t->bound->dom == FLT_DOM_F64;
    f->nulls = !st->has_null_count || st->null_count > 0;
    f->known = flt_stats_value(t->bound, st, desc, &f->best) &&
               flt_stats_value(t->bound, st, !desc, &f->worst);
    f->rows = -1;
    if (!f->known || !all_pass(filter, g) || cm->num_values != g->num_rows) return;
    if (t->keys[0].nulls_first) f->rows = cm->num_values; /* a null beats every value */
    else if (st->has_null_count) f->rows = cm->num_values - st->null_count;
    if (fl && !desc) /* ascending, NaN is worse than the max: it must be counted out */
        f->rows = st->has_nan_count && f->rows >= st->nan_count ? f->rows - st->nan_count : -1;
}

/* Before any data is read: the order row groups are planned (and so claimed) in, most
 * promising first, and the bound from statistics alone (unless o->topk_no_seed): the K-th
 * best row is at least as good as the worst value of the fewest best groups (by that value)
 * that hold K rows every filter passes. */
static int plan_facts(scan_topk *t, const pq_file_meta *m, const scan_opts *o,
                      const flt_expr *filter, scan_explain_buf *x)
{
    int n = o->rg_order ? o->nrg_order : m->nrow_groups;
    rg_fact *f = fail_calloc((size_t)n + 1, sizeof *f);
    int *order = fail_malloc(sizeof *order * ((size_t)n + 1));
    if (!f || !order) {
        free(f);
        free(order);
        return -ENOMEM;
    }
    for (int g = 0; g < n; g++) {
        f[g].rg = o->rg_order ? o->rg_order[g] : g;
        fact_of(t, &m->row_groups[f[g].rg], filter, &f[g]);
    }
    fact_t = t;
    qsort(f, (size_t)n, sizeof *f, promise_cmp);
    for (int g = 0; g < n; g++) order[g] = f[g].rg;
    t->rg_order = order;
    t->nrg = n;
    int used = 0;
    qsort(f, (size_t)n, sizeof *f, worst_cmp); /* unknown groups are skipped below */
    int64_t rows = 0;
    bool seeded = false;
    for (int g = 0; g < n && rows < t->k && !o->topk_no_seed; g++) {
        if (f[g].rows < 0) continue;
        rows += f[g].rows, used++;
        if (rows >= t->k) seeded = scan_topk_publish(t, f[g].worst, true);
    }
    flt_lit v;
    if (flt_dyn_load(t->dyn, t->bound->dom, &v, NULL)) {
        char buf[64];
        if (t->bound->dom == FLT_DOM_F32 || t->bound->dom == FLT_DOM_F64) snprintf(buf, sizeof buf, "%.17g", v.f);
        else if (t->bound->dom == FLT_DOM_U64) snprintf(buf, sizeof buf, "%llu", (unsigned long long)v.i);
        else snprintf(buf, sizeof buf, "%lld", (long long)v.i);
        if (seeded)
            scan_explainf(x, "top-k: bound seeded from the statistics of %d row group%s: ", used,
                          used == 1 ? "" : "s");
        else
            scan_explainf(x, "top-k: bound given at the start (stricter than statistics): ");
        scan_explainf(x, "%s %s %s\n", t->bound->desc->name, t->keys[0].desc ? ">=" : "<=", buf);
    } else {
        scan_explainf(x, "top-k: no bound from statistics (%s)\n",
                      o->topk_no_seed ? "seeding turned off"
                      : filter && filter->npreds > 1 ? "no group's statistics prove the filter keeps K rows"
                                                     : "their groups hold fewer than K rows or say nothing");
    }
    free(f);
    return 0;
}

/* A sibling's bound given at the start. */
static int start_bound(scan_topk *t, const scan_opts *o, pq_err *e)
{
    bool fl = t->bound && (t->bound->dom == FLT_DOM_F32 || t->bound->dom == FLT_DOM_F64);
    if (!t->bound || fl != o->topk_seed_float)
        return pq_errf(e, -EINVAL, -1, "topk_bound: the first ORDER BY key %s", !t->bound ? "has no numeric bound"
                       : fl ? "is a float (set is_float)" : "is an integer (is_float must be false)");
    scan_topk_publish(t, o->topk_seed, false);
    return 0;
}

int scan_topk_init(scan_topk *t, pqf_t *f, const scan_opts *o, int nout,
                   flt_expr **filter, int *proj, scan_explain_buf *x, pq_err *e)
{
    const pq_file_meta *m = &f->meta;
    assert(o->nkeys >= 1 && o->nkeys <= FLT_MAX_SORT_KEYS && nout >= 1);
    *t = (scan_topk){.nkeys = o->nkeys, .nout = nout,
                     .k = o->limit < 0 ? INT64_MAX : o->limit, .keep_bad = o->topk_keep_bad};
    t->dyn = o->topk_cell ? o->topk_cell : &t->own;
    t->notify = o->topk_notify, t->notify_ctx = o->topk_notify_ctx;
    for (int j = 0; j < o->nkeys; j++) {
        const scan_order_key *k = &o->keys[j];
        assert(k->col >= 0 && k->col < m->ncolumns);
        if (m->columns[k->col].nested) /* the public API names the column's kind first */
            return pq_errf_col(e, RINGSCAN_EUNSUPPORTED, -1, m->columns[k->col].name,
                               "ORDER BY: nested column '%.200s'", m->columns[k->col].name);
        int rc = flt_sort_key_init(&t->keys[j], &m->columns[k->col], k->desc, k->nulls_first, e);
        if (rc) {
            pq_err_column(e, m->columns[k->col].name);
            return rc;
        }
        proj[nout + j] = k->col;
    }
    int64_t *first = NULL;
    int rc = row_group_starts(m, &first);
    if (rc) return pq_errf(e, rc, -1, "row group row counts overflow");
    t->rg_first = first;
    rc = add_bound(t, m, &o->keys[0], filter, e);
    if (rc == 0) rc = pqf_stats_expr(f, *filter, e); /* the bound's column and the filter's */
    if (rc == 0 && o->topk_seed_set) rc = start_bound(t, o, e);
    explain_keys(t, m, o, x);
    if (rc == 0 && t->bound && t->k > 0 && t->k < INT64_MAX) rc = plan_facts(t, m, o, *filter, x);
    return rc;
}

void scan_topk_free(scan_topk *t)
{
    free((void *)t->rg_first);
    free(t->rg_order);
    t->rg_first = NULL;
    t->rg_order = NULL;
}

int scan_topk_seed(pqf_t *f, const scan_opts *o, int nout, flt_expr *filter, flt_lit *v,
                   flt_domain *dom, bool *set, pq_err *e)
{
    scan_opts so = *o;
    so.topk_cell = NULL, so.topk_notify = NULL; /* a bound of its own, told to nobody */
    scan_topk t;
    int *proj = fail_malloc(sizeof *proj * (size_t)(nout + o->nkeys));
    int rc = proj ? scan_topk_init(&t, f, &so, nout, &filter, proj, NULL, e) : -ENOMEM;
    uint64_t version;
    *set = rc == 0 && scan_topk_load(&t, v, &version, dom);
    if (proj) scan_topk_free(&t); /* safe after a failed init too: it zeroes t first */
    free(proj);
    flt_expr_free(filter);
    return rc;
}

bool scan_topk_load(const scan_topk *t, flt_lit *v, uint64_t *version, flt_domain *dom)
{
    if (!t->nkeys || !t->bound) return false;
    *dom = t->bound->dom;
    return flt_dyn_load(t->dyn, t->bound->dom, v, version);
}

bool scan_topk_offer(scan_topk *t, flt_lit v)
{
    return t->nkeys && t->bound && scan_topk_publish(t, v, false);
}

/* ---------------------------------------------------------------------------- merge */

/* The null map key held row r holds (its batch marked it: invariant 4), or NULL. */
static const pq_nest_null_key *bad_at(const scan_topk_merge *m, topk_ref r)
{
    const scan_batch *b = &m->held[r.b];
    return b->bad && b->bad[r.i].map >= 0 ? &b->bad[r.i] : NULL;
}

/* Every held row, sorted, truncated to K; NULL on -ENOMEM. */
static topk_ref *sorted_refs(const scan_topk_merge *m, int64_t *n)
{
    topk_ref *r = fail_malloc(sizeof *r * (size_t)(m->rows > 0 ? m->rows : 1));
    if (!r) return NULL;
    int64_t at = 0;
    for (int b = 0; b < m->nheld; b++)
        for (int64_t i = 0; i < m->held[b].rows; i++) r[at++] = (topk_ref){b, (uint32_t)i};
    assert(at == m->rows);
    qsort_r(r, (size_t)at, sizeof *r, ref_cmp, (void *)m);
    *n = at < m->t->k ? at : m->t->k;
    return r;
}

/* dst->bad for rows refs[0..n) of the held batches: left NULL when none of them is marked. */
static int gather_bad(const scan_topk_merge *m, const topk_ref *refs, int64_t n, scan_batch *dst)
{
    int64_t marked = 0;
    for (int64_t r = 0; r < n; r++) marked += bad_at(m, refs[r]) != NULL;
    if (marked == 0) return 0;
    dst->bad = fail_malloc(sizeof *dst->bad * (size_t)n);
    if (!dst->bad) return -ENOMEM;
    for (int64_t r = 0; r < n; r++) {
        const pq_nest_null_key *k = bad_at(m, refs[r]);
        dst->bad[r] = k ? *k : (pq_nest_null_key){.map = -1};
    }
    return 0;
}

/* dst's columns [0, ncols) (and pos when with_pos) = rows refs[0..n) of the held batches, in
 * that order: one take per run of rows from the same batch. */
static int gather(const scan_topk_merge *m, const topk_ref *refs, int64_t n, int ncols,
                  bool with_pos, scan_batch *dst)
{
    *dst = (scan_batch){.split = -1, .row_group = -1, .rows = n, .ncols = ncols};
    dst->cols = fail_calloc((size_t)ncols, sizeof *dst->cols);
    uint32_t *idx = fail_malloc(sizeof *idx * (size_t)(n > 0 ? n : 1));
    if (with_pos) dst->pos = fail_malloc(sizeof *dst->pos * (size_t)(n > 0 ? n : 1));
    int rc = dst->cols && idx && (!with_pos || dst->pos) ? 0 : -ENOMEM;
    for (int c = 0; rc == 0 && c < ncols; c++) {
        const pq_vec *first = &m->held[0].cols[c];
        pq_vec_init(&dst->cols[c], first->type, first->type_length);
    }
    for (int64_t a = 0, z; rc == 0 && a < n; a = z) {
        for (z = a; z < n && refs[z].b == refs[a].b; z++) idx[z - a] = refs[z].i;
        const scan_batch *src = &m->held[refs[a].b];
        for (int c = 0; rc == 0 && c < ncols; c++)
            rc = pq_vec_take(&src->cols[c], idx, z - a, &dst->cols[c]);
        for (int64_t r = a; with_pos && r < z; r++) dst->pos[r] = src->pos[refs[r].i];
    }
    if (rc == 0) rc = gather_bad(m, refs, n, dst);
    free(idx);
    if (rc) scan_batch_free(dst);
    return rc;
}

static void drop_held(scan_topk_merge *m)
{
    for (int b = 0; b < m->nheld; b++) scan_batch_free(&m->held[b]);
    m->nheld = 0;
    m->rows = 0;
}

/* Keeps only the best K held rows, as one batch. */
static int compact(scan_topk_merge *m)
{
    int64_t n;
    topk_ref *r = sorted_refs(m, &n);
    if (!r) return -ENOMEM;
    scan_batch one;
    int rc = gather(m, r, n, m->held[0].ncols, true, &one);
    free(r);
    if (rc) return rc;
    drop_held(m);
    m->held[0] = one;
    m->nheld = 1;
    m->rows = n;
    /* the merge holds the best K of every split so far: its worst is the scan's bound */
    if (n == m->t->k) scan_topk_publish_row(m->t, &one.cols[m->t->nout], n - 1);
    return 0;
}

int scan_topk_add(scan_topk_merge *m, scan_batch *b)
{
    assert(m->t && b->rows <= m->t->k && (b->rows == 0 || b->pos));
    assert(b->rows == 0 || b->ncols == m->t->nout + m->t->nkeys);
    if (b->rows == 0) {
        scan_batch_free(b);
        return 0;
    }
    if (m->nheld == m->cap) {
        int cap = m->cap ? m->cap * 2 : 16;
        scan_batch *more = fail_realloc(m->held, sizeof *more * (size_t)cap);
        if (!more) return -ENOMEM;
        m->held = more, m->cap = cap;
    }
    m->held[m->nheld++] = *b;
    m->rows += b->rows;
    memset(b, 0, sizeof *b);
    bool over = m->t->k < INT64_MAX / 4 && m->rows > 4 * m->t->k;
    return over ? compact(m) : 0;
}

int scan_topk_finish(scan_topk_merge *m, const pq_file_meta *meta, pq_err *e)
{
    assert(!m->order);
    if (m->nheld == 0) return 0;
    m->order = sorted_refs(m, &m->norder);
    if (!m->order) return pq_errf(e, -ENOMEM, -1, "cannot sort the Top-K rows: %s",
                                  status_text(-ENOMEM));
    for (int64_t i = 0; !m->t->keep_bad && i < m->norder; i++) { /* the best-ranked marked row */
        const pq_nest_null_key *k = bad_at(m, m->order[i]);
        if (k) return pq_nest_null_key_err(meta, k, e);
    }
    return 0;
}

int scan_topk_next(scan_topk_merge *m, scan_batch *b)
{
    memset(b, 0, sizeof *b);
    if (m->next >= m->norder) return 0;
    int64_t n = m->norder - m->next < TOPK_OUT_ROWS ? m->norder - m->next : TOPK_OUT_ROWS;
    int rc = gather(m, m->order + m->next, n, m->t->nout, false, b);
    if (rc) return rc;
    m->next += n;
    return 1;
}

void scan_topk_merge_free(scan_topk_merge *m)
{
    drop_held(m);
    free(m->held);
    free(m->order);
    memset(m, 0, sizeof *m);
}
