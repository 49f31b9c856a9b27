/* filter/vexpr_imply.c: single-column conjuncts implied by a comparison of value expressions
 * (vexpr.h, expr.h flt_expr_add_implied). `price * (1 - disc) * (1 + tax) > 100000` with disc
 * in [0, 0.10] and tax in [0, 0.08] by the file's statistics holds for no row whose price is
 * at most 92592.59, so `price > 92592.59` is added: a cheap test on one column that runs
 * before the expression, which then evaluates only the rows it keeps (vexpr_eval.c
 * invariant 4).
 *
 * Invariants:
 *  1. A bound is proven, never guessed: flt_v_implied_bound returns t only when interval
 *     arithmetic (vexpr_prune.c, the same proof as row-group pruning) shows `l op r` false for
 *     every row whose column lies in [lo, t] (or [t, hi]) and whose other columns lie in their
 *     spans. A row the implied conjunct drops is therefore one the comparison drops too; a
 *     null in the column fails both (SQL's unknown); float columns have no span (NaN is not in
 *     statistics), so nothing is implied through them.
 *  2. Spans are the union over every row group of the file, and a column any of whose row
 *     groups has no usable min/max (or min > max) has none: the conjunct holds for any subset
 *     of the groups a scan reads.
 *  3. An implied conjunct is appended after the user's (their numbers are kept in messages)
 *     and marks the conjunct it came from (flt_pred.implied); at most FLT_IMPLIED_MAX are
 *     added, and never past FLT_MAX_PREDS. The rows a scan returns are unchanged; a row whose
 *     expression would overflow is never dropped (an overflow makes the interval unknown). */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "filter/vexpr_ops.h"

/* Whether `l op r` is proven false with slot's span cut to [lo, t] (above) or [t, hi]. */
static bool fails(flt_op op, const flt_vnode *l, const flt_vnode *r, flt_vspan *sp, int32_t slot,
                  v128 t, bool above)
{
    flt_vspan keep = sp[slot];
    if (above) sp[slot].hi = t;
    else sp[slot].lo = t;
    bool no = flt_v_prune_spans(op, l, r, sp) == FLT_CANNOT_MATCH;
    sp[slot] = keep;
    return no;
}

/* floor((a + b) / 2) without overflow: strictly between a and b when they differ by 2 or more. */
static v128 midpoint(v128 a, v128 b)
{
    return (a >> 1) + (b >> 1) + (a & b & 1);
}

bool flt_v_implied_bound(flt_op op, const flt_vnode *l, const flt_vnode *r, flt_vspan *spans,
                         int32_t slot, bool above, __int128 *t)
{
    assert(l && r && spans && slot >= 0 && t);
    const flt_vspan s = spans[slot];
    if (!s.known || s.lo > s.hi) return false;
    v128 a = above ? s.lo : s.hi, b = above ? s.hi : s.lo; /* proven at a, not at b */
    if (!fails(op, l, r, spans, slot, a, above) || fails(op, l, r, spans, slot, b, above))
        return false;
    for (int i = 0; i < 130; i++) { /* halves |b - a| (< 2^128) each step */
        v128 m = midpoint(a, b);
        if (m == a || m == b) break;
        if (fails(op, l, r, spans, slot, m, above)) a = m;
        else b = m;
    }
    assert(fails(op, l, r, spans, slot, a, above));
    *t = a;
    return true;
}

/* The span of the multi-column conjunct's column j over every row group (invariant 2). */
static flt_vspan file_span(const flt_multi *mu, int32_t j, const pq_file_meta *m)
{
    flt_vspan sp = {0};
    int32_t col = mu->cols[j];
    for (int32_t g = 0; g < m->nrow_groups; g++) {
        const pq_chunk_meta *cm = &m->row_groups[g].chunks[col];
        v128 lo, hi;
        if (cm->stats_pending || !flt_v_stats_span(mu->schema, col, &cm->stats, &lo, &hi))
            return (flt_vspan){0};
        if (!sp.known || lo < sp.lo) sp.lo = lo;
        if (!sp.known || hi > sp.hi) sp.hi = hi;
        sp.known = true;
    }
    return sp;
}

/* Appends `cols[col] > t` (above) or `< t` to ex, marked as implied by conjunct k. */
static int append(flt_expr *ex, const flt_multi *mu, int32_t col, v128 t, bool above, int32_t k,
                  pq_err *e)
{
    const pq_column_desc *d = &mu->schema[col];
    flt_vtype vt;
    flt_domain dom;
    if (!flt_v_column_type(d, &vt) || flt_domain_of(d, &dom, NULL)) return 0;
    char *text = flt_arena_alloc(&ex->arena, FLT_SCALED_TEXT_MAX);
    flt_pred *np = flt_arena_alloc(&ex->arena, (size_t)(ex->npreds + 1) * sizeof *np);
    flt_term *term = flt_arena_alloc(&ex->arena, sizeof *term);
    if (!text || !np || !term) return -ENOMEM;
    size_t len = flt_scaled_text(t, v_scale(&vt), text);
    flt_raw_lit raw = {FLT_LIT_NUMBER, text, (int32_t)len, 0};
    int rc = flt_type_term(&ex->arena, d, dom, above ? FLT_OP_GT : FLT_OP_LT, false, &raw, 1, term, e);
    if (rc) return rc;
    memcpy(np, ex->preds, (size_t)ex->npreds * sizeof *np);
    np[ex->npreds] = (flt_pred){.column = col, .desc = d, .dom = dom, .nterms = 1, .terms = term,
                                .implied = k + 1};
    ex->preds = np;
    ex->npreds++;
    return 0;
}

/* Whether conjunct p is one comparison of value expressions (bounds are implied by those). */
static const flt_cmp *single_cmp(const flt_pred *p)
{
    if (!p->multi || p->multi->nitems != 1 || !p->multi->items[0].is_cmp) return NULL;
    const flt_cmp *c = &p->multi->items[0].cmp;
    return c->vl && c->op <= FLT_OP_GE && c->op != FLT_OP_NE ? c : NULL;
}

/* The bounds conjunct k implies, appended (invariant 3). */
static int imply_one(flt_expr *ex, int32_t k, const pq_file_meta *m, int32_t *added, pq_err *e)
{
    const flt_multi *mu = ex->preds[k].multi;
    const flt_cmp *c = single_cmp(&ex->preds[k]);
    flt_vspan spans[FLT_MAX_MULTI_COLS];
    assert(c && mu->ncols <= FLT_MAX_MULTI_COLS);
    for (int32_t j = 0; j < mu->ncols; j++) spans[j] = file_span(mu, j, m);
    for (int32_t j = 0; j < mu->ncols; j++) {
        flt_vtype vt;
        if (!flt_v_column_type(&mu->schema[mu->cols[j]], &vt) ||
            (vt.kind != FLT_VK_INT && vt.kind != FLT_VK_DEC))
            continue; /* (dates and times bound the others; their own literals are not made) */
        for (int side = 0; side < 2; side++) {
            v128 t;
            if (*added >= FLT_IMPLIED_MAX || ex->npreds >= FLT_MAX_PREDS) return 0;
            if (!flt_v_implied_bound(c->op, c->vl, c->vr, spans, j, side == 0, &t)) continue;
            int rc = append(ex, mu, mu->cols[j], t, side == 0, k, e);
            if (rc) return rc;
            (*added)++;
        }
    }
    return 0;
}

int flt_expr_add_implied(flt_expr *ex, const pq_file_meta *m, pq_err *e)
{
    assert(ex && m);
    int32_t n = ex->npreds, added = 0;
    for (int32_t k = 0; k < n; k++) {
        if (ex->preds[k].implied || !single_cmp(&ex->preds[k])) continue;
        int rc = imply_one(ex, k, m, &added, e);
        if (rc) return rc;
    }
    return 0;
}

void flt_expr_stated_order(const flt_expr *ex, int32_t *perm)
{
    int32_t m = 0;
    for (int32_t k = 0; k < ex->npreds; k++)
        if (ex->preds[k].implied) perm[m++] = k;
    for (int32_t k = 0; k < ex->npreds; k++)
        if (!ex->preds[k].implied) perm[m++] = k;
    assert(m == ex->npreds);
}
