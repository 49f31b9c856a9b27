/* filter/vexpr_prune.c: comparisons of value expressions pruned from row-group statistics by
 * interval arithmetic (vexpr.h).
 *
 * Invariants:
 *  1. An interval is known only when every column it reads has usable min/max and no step
 *     overflowed, divided by a range holding zero, or met a float column (NaN is not in
 *     statistics); an unknown interval prunes nothing.
 *  2. Every step is monotone on each operand (rounding included), so the ends computed from
 *     the operands' ends bound every row's value; multiplication and division take all four
 *     corners. */
#include <assert.h>

#include "filter/vexpr_ops.h"

typedef struct vrange {
    bool known;
    v128 lo, hi;      /* exact types */
    double dlo, dhi;  /* FLOAT / DOUBLE */
} vrange;

typedef struct vprune {
    const pq_column_desc *schema;
    const int32_t *cols;
    const pq_stats *const *stats; /* per slot; or NULL, then spans */
    const flt_vspan *spans;       /* per slot (flt_v_prune_spans) */
} vprune;

/* A statistics bound of schema column col as an exact value of its value type. */
static bool stat_bound(const pq_column_desc *schema, int32_t col, const pq_stats *s,
                       bool want_max, v128 *out)
{
    flt_pred one = {.column = col, .desc = &schema[col]};
    flt_lit l;
    if (flt_domain_of(one.desc, &one.dom, NULL) || !flt_stats_value(&one, s, want_max, &l))
        return false;
    switch (one.dom) {
    case FLT_DOM_U64: *out = (v128)(uint64_t)l.i; return true;
    case FLT_DOM_SDEC: return v_from_be(l.b, l.len, out);
    case FLT_DOM_I32: case FLT_DOM_U32: case FLT_DOM_I64: *out = l.i; return true;
    default: return false;
    }
}

/* The range of r as doubles of type to (monotone: rounding keeps the order). */
static void range_double(vrange *r, const flt_vtype *t, const flt_vtype *to)
{
    if (!v_is_float(t)) {
        r->dlo = v_to_double(r->lo, v_scale(t)), r->dhi = v_to_double(r->hi, v_scale(t));
    }
    r->dlo = v_round_float(to, r->dlo), r->dhi = v_round_float(to, r->dhi);
}

static vrange vr_node(const vprune *p, const flt_vnode *x);

/* The range of a op b from the corners of its operands' ranges. */
static vrange vr_binary(const vprune *p, const flt_vnode *x)
{
    vrange a = vr_node(p, x->a), b = vr_node(p, x->b), r = {0};
    if (!a.known || !b.known) return r;
    if (v_is_float(&x->t)) {
        range_double(&a, &x->a->t, &x->t), range_double(&b, &x->b->t, &x->t);
        if (x->op == FLT_V_DIV && b.dlo <= 0 && b.dhi >= 0) return r; /* x / 0: +-inf, NaN */
        double c[4] = {v_arith_double(x->op, a.dlo, b.dlo, &x->t), v_arith_double(x->op, a.dlo, b.dhi, &x->t),
                       v_arith_double(x->op, a.dhi, b.dlo, &x->t), v_arith_double(x->op, a.dhi, b.dhi, &x->t)};
        r.dlo = r.dhi = c[0];
        for (int i = 0; i < 4; i++) {
            if (c[i] != c[i]) return (vrange){0};
            r.dlo = c[i] < r.dlo ? c[i] : r.dlo, r.dhi = c[i] > r.dhi ? c[i] : r.dhi;
        }
        return r.known = true, r;
    }
    int32_t ka = v_scale(&x->a->t), kb = v_scale(&x->b->t);
    v128 c[4]; /* ADD, MUL: lo with lo .. hi with hi; SUB: lo - hi .. hi - lo, among them */
    if (!v_arith_exact(x->op, a.lo, ka, b.lo, kb, &x->t, &c[0]) ||
        !v_arith_exact(x->op, a.lo, ka, b.hi, kb, &x->t, &c[1]) ||
        !v_arith_exact(x->op, a.hi, ka, b.lo, kb, &x->t, &c[2]) ||
        !v_arith_exact(x->op, a.hi, ka, b.hi, kb, &x->t, &c[3]))
        return r;
    r.lo = r.hi = c[0];
    for (int i = 1; i < 4; i++) r.lo = c[i] < r.lo ? c[i] : r.lo, r.hi = c[i] > r.hi ? c[i] : r.hi;
    return r.known = true, r;
}

/* The range of CAST(a AS t) or -a: the operation on its ends (both monotone). */
static vrange vr_unary(const vprune *p, const flt_vnode *x)
{
    vrange a = vr_node(p, x->a), r = {0};
    const flt_vtype *t = &x->t, *ta = &x->a->t;
    if (!a.known) return r;
    if (v_is_float(t)) {
        range_double(&a, ta, t);
        r.dlo = x->op == FLT_V_NEG ? -a.dhi : a.dlo, r.dhi = x->op == FLT_V_NEG ? -a.dlo : a.dhi;
        return r.known = true, r;
    }
    bool ok;
    if (x->op == FLT_V_NEG)
        ok = !__builtin_sub_overflow((v128)0, a.hi, &r.lo) && !__builtin_sub_overflow((v128)0, a.lo, &r.hi) &&
             v_fits_arith(t, r.lo) && v_fits_arith(t, r.hi);
    else if (v_is_float(ta))
        ok = v_from_double(a.dlo, t, &r.lo) && v_from_double(a.dhi, t, &r.hi);
    else
        ok = v_cast_exact(a.lo, ta, t, &r.lo) && v_cast_exact(a.hi, ta, t, &r.hi);
    r.known = ok;
    return r;
}

static vrange vr_node(const vprune *p, const flt_vnode *x)
{
    vrange r = {0};
    switch (x->op) {
    case FLT_V_COL:
        if (v_is_float(&x->t)) return r;
        if (!p->stats) {
            const flt_vspan *s = &p->spans[x->slot];
            r.known = s->known && s->lo <= s->hi, r.lo = s->lo, r.hi = s->hi;
            return r;
        }
        r.known = flt_v_stats_span(p->schema, p->cols[x->slot], p->stats[x->slot], &r.lo, &r.hi);
        return r;
    case FLT_V_CONST:
        r.lo = r.hi = x->k, r.dlo = r.dhi = x->kf;
        r.known = x->t.kind != FLT_VK_TEXT && x->kf == x->kf;
        return r;
    case FLT_V_NEG:
    case FLT_V_CAST: return vr_unary(p, x);
    default: return vr_binary(p, x);
    }
}

bool flt_v_stats_span(const pq_column_desc *schema, int32_t col, const pq_stats *s, __int128 *lo,
                      __int128 *hi)
{
    flt_vtype t;
    if (!flt_v_column_type(&schema[col], &t) || v_is_float(&t)) return false;
    return stat_bound(schema, col, s, false, lo) && stat_bound(schema, col, s, true, hi) && *lo <= *hi;
}

/* flt_v_prune over the ranges p gives. */
static flt_prune prune_with(const vprune *p, flt_op op, const flt_vnode *l, const flt_vnode *r)
{
    vrange a = vr_node(p, l), b = vr_node(p, r);
    if (!a.known || !b.known) return FLT_CAN_MATCH;
    flt_vtype t = v_cmp_type(&l->t, &r->t);
    int hi_lo, lo_hi; /* sign of a.hi - b.lo and of a.lo - b.hi */
    if (v_is_float(&t)) {
        range_double(&a, &l->t, &t), range_double(&b, &r->t, &t);
        hi_lo = v_cmp_double(a.dhi, b.dlo), lo_hi = v_cmp_double(a.dlo, b.dhi);
    } else {
        hi_lo = v_cmp_exact(a.hi, v_scale(&l->t), b.lo, v_scale(&r->t));
        lo_hi = v_cmp_exact(a.lo, v_scale(&l->t), b.hi, v_scale(&r->t));
    }
    return flt_ranges_exclude(op, hi_lo, lo_hi) ? FLT_CANNOT_MATCH : FLT_CAN_MATCH;
}

flt_prune flt_v_prune(flt_op op, const flt_vnode *l, const flt_vnode *r,
                      const pq_column_desc *schema, const int32_t *cols,
                      const pq_stats *const *stats)
{
    vprune p = {schema, cols, stats, NULL};
    return prune_with(&p, op, l, r);
}

flt_prune flt_v_prune_spans(flt_op op, const flt_vnode *l, const flt_vnode *r,
                            const flt_vspan *spans)
{
    assert(spans);
    vprune p = {NULL, NULL, NULL, spans};
    return prune_with(&p, op, l, r);
}

/* The slot x reads when it reads one (-1 none, -2 several), met with what was seen so far. */
static int32_t one_slot(const flt_vnode *x, int32_t seen)
{
    if (!x || seen == -2) return seen;
    if (x->op == FLT_V_COL) seen = seen == -1 || seen == x->slot ? x->slot : -2;
    return one_slot(x->b, one_slot(x->a, seen));
}

int32_t flt_v_one_slot(const flt_vnode *l, const flt_vnode *r)
{
    int32_t s = one_slot(r, one_slot(l, -1));
    return s >= 0 ? s : -1;
}
