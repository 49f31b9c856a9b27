/* filter/vexpr_eval.c: comparisons of value expressions evaluated on column vectors, a chunk
 * of FLT_V_CHUNK rows at a time, and pruned from statistics by interval arithmetic (vexpr.h).
 *
 * Invariants:
 *  1. Each node owns one scratch buffer of FLT_V_CHUNK values, exact (128-bit) or double by its
 *     type; a node is computed by one loop over the chunk with the operation chosen before it.
 *  2. Only rows of rest whose every column is valid are selected; a chunk with none is
 *     skipped, and an overflow counts only in a selected row.
 *  3. An interval is known only when every column it reads has usable min/max and no step
 *     overflowed, divided by a range holding zero, or met a float column (NaN is not in
 *     statistics); an unknown interval prunes nothing. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/kernel_int.h"
#include "filter/vexpr_ops.h"

enum { CHUNK_WORDS = FLT_V_CHUNK / 64 };

typedef struct vctx {
    const pq_vec *const *vecs;
    int64_t r0;          /* the chunk's first row */
    int32_t n;           /* its rows */
    v128 *x;             /* exact scratch: node i at x[i * FLT_V_CHUNK] */
    double *f;           /* double scratch, likewise */
    int32_t next;        /* the next free scratch buffer */
    int32_t spare;       /* the first of two double buffers the comparison converts into */
    uint64_t sel[CHUNK_WORDS];
    bool overflow;
} vctx;

static bool selected(const vctx *c, int32_t i) { return (c->sel[i >> 6] >> (i & 63)) & 1; }

/* One column's values of the chunk into exact x or double f (by its physical type). */
static void load_column(vctx *c, const flt_vnode *node, v128 *x, double *f)
{
    const pq_vec *v = c->vecs[node->slot];
    int64_t r0 = c->r0;
    switch (v->type) {
    case PQ_INT32:
        for (int32_t i = 0; i < c->n; i++) {
            int32_t y;
            memcpy(&y, v->values + 4 * (r0 + i), 4);
            x[i] = node->t.uns ? (v128)(uint32_t)y : (v128)y;
        }
        return;
    case PQ_INT64:
        for (int32_t i = 0; i < c->n; i++) {
            int64_t y;
            memcpy(&y, v->values + 8 * (r0 + i), 8);
            x[i] = node->t.uns ? (v128)(uint64_t)y : (v128)y;
        }
        return;
    case PQ_FLOAT:
        for (int32_t i = 0; i < c->n; i++) {
            float y;
            memcpy(&y, v->values + 4 * (r0 + i), 4);
            f[i] = y;
        }
        return;
    case PQ_DOUBLE: memcpy(f, v->values + 8 * r0, (size_t)c->n * 8); return;
    default: /* a decimal in big-endian two's complement bytes */
        for (int32_t i = 0; i < c->n; i++) {
            int64_t row = r0 + i;
            int32_t len = v->type == PQ_BYTE_ARRAY ? v->offsets[row + 1] - v->offsets[row]
                                                   : v->type_length;
            const uint8_t *b = v->type == PQ_BYTE_ARRAY ? v->data + v->offsets[row]
                                                        : v->values + (int64_t)len * row;
            if (!v_from_be(b, len, &x[i])) {
                x[i] = 0;
                if (selected(c, i)) c->overflow = true;
            }
        }
    }
}

static int32_t veval(vctx *c, const flt_vnode *x);

/* Operand at scratch s of type t as doubles of type to (FLOAT rounds), into d. */
static const double *as_double(vctx *c, int32_t s, const flt_vtype *t, const flt_vtype *to,
                               double *d)
{
    if (v_is_float(t) && (t->kind == to->kind || to->kind == FLT_VK_DOUBLE))
        return c->f + (size_t)s * FLT_V_CHUNK;
    const v128 *x = c->x + (size_t)s * FLT_V_CHUNK;
    const double *g = c->f + (size_t)s * FLT_V_CHUNK;
    int32_t sc = v_scale(t);
    for (int32_t i = 0; i < c->n; i++)
        d[i] = v_round_float(to, v_is_float(t) ? g[i] : v_to_double(x[i], sc));
    return d;
}

/* a op b into scratch o, for ADD, SUB, MUL, DIV. */
static void eval_binary(vctx *c, const flt_vnode *x, int32_t sa, int32_t sb, int32_t o)
{
    v128 *r = c->x + (size_t)o * FLT_V_CHUNK;
    double *rf = c->f + (size_t)o * FLT_V_CHUNK;
    if (v_is_float(&x->t)) { /* operands converted into rf and r's bytes first */
        const double *p = as_double(c, sa, &x->a->t, &x->t, rf);
        const double *q = as_double(c, sb, &x->b->t, &x->t, (double *)r);
        for (int32_t i = 0; i < c->n; i++) rf[i] = v_arith_double(x->op, p[i], q[i], &x->t);
        return;
    }
    const v128 *p = c->x + (size_t)sa * FLT_V_CHUNK, *q = c->x + (size_t)sb * FLT_V_CHUNK;
    int32_t ka = v_scale(&x->a->t), kb = v_scale(&x->b->t);
    for (int32_t i = 0; i < c->n; i++)
        if (!v_arith_exact(x->op, p[i], ka, q[i], kb, &x->t, &r[i]) && selected(c, i))
            c->overflow = true;
}

/* CAST(a AS x->t) or -a into scratch o. */
static void eval_unary(vctx *c, const flt_vnode *x, int32_t sa, int32_t o)
{
    v128 *r = c->x + (size_t)o * FLT_V_CHUNK;
    double *rf = c->f + (size_t)o * FLT_V_CHUNK;
    const v128 *p = c->x + (size_t)sa * FLT_V_CHUNK;
    const double *pf = c->f + (size_t)sa * FLT_V_CHUNK;
    const flt_vtype *t = &x->t, *ta = &x->a->t;
    bool ok = true;
    if (v_is_float(t)) {
        const double *q = as_double(c, sa, ta, t, rf);
        for (int32_t i = 0; i < c->n; i++) rf[i] = x->op == FLT_V_NEG ? -q[i] : q[i];
        for (int32_t i = 0; ta->kind == FLT_VK_DOUBLE && t->kind == FLT_VK_FLOAT && i < c->n; i++)
            if (!v_float_cast_ok(pf[i], rf[i]) && selected(c, i)) c->overflow = true;
        return;
    }
    for (int32_t i = 0; i < c->n; i++) {
        if (x->op == FLT_V_NEG) ok = !__builtin_sub_overflow((v128)0, p[i], &r[i]) && v_fits_arith(t, r[i]);
        else if (v_is_float(ta)) ok = v_from_double(pf[i], t, &r[i]);
        else ok = v_cast_exact(p[i], ta, t, &r[i]);
        if (!ok) {
            r[i] = 0;
            if (selected(c, i)) c->overflow = true;
        }
    }
}

/* Evaluates x over the chunk; returns the scratch buffer holding its values. */
static int32_t veval(vctx *c, const flt_vnode *x)
{
    int32_t sa = x->a ? veval(c, x->a) : -1, sb = x->b ? veval(c, x->b) : -1;
    int32_t o = c->next++;
    v128 *r = c->x + (size_t)o * FLT_V_CHUNK;
    double *rf = c->f + (size_t)o * FLT_V_CHUNK;
    switch (x->op) {
    case FLT_V_COL: load_column(c, x, r, rf); break;
    case FLT_V_CONST:
        for (int32_t i = 0; i < c->n; i++) r[i] = x->k, rf[i] = x->kf;
        break;
    case FLT_V_NEG:
    case FLT_V_CAST: eval_unary(c, x, sa, o); break;
    default: eval_binary(c, x, sa, sb, o); break;
    }
    return o;
}

/* The type both sides of a comparison are read in: exact when both are, else FLOAT when one
 * is FLOAT and none DOUBLE, else DOUBLE. */
static flt_vtype cmp_type(const flt_vtype *a, const flt_vtype *b)
{
    flt_vtype t = {FLT_VK_INT, 0, 0, false};
    if (a->kind == FLT_VK_DOUBLE || b->kind == FLT_VK_DOUBLE) t.kind = FLT_VK_DOUBLE;
    else if (a->kind == FLT_VK_FLOAT || b->kind == FLT_VK_FLOAT) t.kind = FLT_VK_FLOAT;
    return t;
}

/* Columns (slots) x reads into s[0..*n), each once. */
static void slots_of(const flt_vnode *x, int32_t *s, int32_t *n)
{
    if (!x) return;
    if (x->op == FLT_V_COL) {
        int32_t i = 0;
        while (i < *n && s[i] != x->slot) i++;
        if (i == *n) s[(*n)++] = x->slot;
    }
    slots_of(x->a, s, n);
    slots_of(x->b, s, n);
}

/* The chunk's selected rows: rest and every column valid; false when none is. */
static bool select_rows(vctx *c, const int32_t *slots, int32_t ns, const flt_mask *rest)
{
    int64_t w0 = c->r0 >> 6, nw = (c->n + 63) / 64, len = rest->len;
    uint64_t any = 0;
    for (int64_t w = 0; w < nw; w++) {
        uint64_t s = rest->words[w0 + w];
        for (int32_t k = 0; k < ns; k++)
            s &= flt_load_word(flt_validity(c->vecs[slots[k]]), len, w0 + w);
        c->sel[w] = s, any |= s;
    }
    return any != 0;
}

/* out's words for the chunk: selected rows where l op r (scratch sl, sr). */
static void compare_chunk(vctx *c, flt_op op, const flt_vnode *l, const flt_vnode *r, int32_t sl,
                          int32_t sr, flt_mask *out)
{
    bool want[3] = {v_op_holds(op, -1), v_op_holds(op, 0), v_op_holds(op, 1)};
    flt_vtype t = cmp_type(&l->t, &r->t);
    uint64_t bits[CHUNK_WORDS] = {0};
    if (v_is_float(&t)) {
        double *dl = c->f + (size_t)c->spare * FLT_V_CHUNK, *dr = dl + FLT_V_CHUNK;
        const double *p = as_double(c, sl, &l->t, &t, dl), *q = as_double(c, sr, &r->t, &t, dr);
        for (int32_t i = 0; i < c->n; i++)
            bits[i >> 6] |= (uint64_t)want[v_cmp_double(p[i], q[i]) + 1] << (i & 63);
    } else {
        const v128 *p = c->x + (size_t)sl * FLT_V_CHUNK, *q = c->x + (size_t)sr * FLT_V_CHUNK;
        int32_t ka = v_scale(&l->t), kb = v_scale(&r->t);
        for (int32_t i = 0; i < c->n; i++)
            bits[i >> 6] |= (uint64_t)want[v_cmp_exact(p[i], ka, q[i], kb) + 1] << (i & 63);
    }
    for (int32_t w = 0; w < (c->n + 63) / 64; w++) out->words[(c->r0 >> 6) + w] = bits[w] & c->sel[w];
}

static int32_t count(const flt_vnode *x) { return x ? 1 + count(x->a) + count(x->b) : 0; }

int flt_v_eval(flt_op op, const flt_vnode *l, const flt_vnode *r, const pq_vec *const *vecs,
               const flt_mask *rest, flt_mask *out)
{
    assert(l && r && vecs && rest && out && out->len == rest->len);
    int32_t nodes = count(l) + count(r), slots[2 * FLT_V_MAX_NODES], ns = 0;
    assert(nodes <= 2 * FLT_V_MAX_NODES);
    slots_of(l, slots, &ns);
    slots_of(r, slots, &ns);
    vctx c = {.vecs = vecs, .spare = nodes};
    c.x = fail_malloc((size_t)nodes * FLT_V_CHUNK * sizeof *c.x);
    c.f = fail_malloc((size_t)(nodes + 2) * FLT_V_CHUNK * sizeof *c.f);
    if (!c.x || !c.f) {
        free(c.x), free(c.f);
        return -ENOMEM;
    }
    int rc = 0;
    for (int64_t r0 = 0; r0 < rest->len && rc == 0; r0 += FLT_V_CHUNK) {
        c.r0 = r0, c.n = (int32_t)(rest->len - r0 < FLT_V_CHUNK ? rest->len - r0 : FLT_V_CHUNK);
        c.next = 0;
        if (!select_rows(&c, slots, ns, rest)) {
            memset(out->words + (r0 >> 6), 0, (size_t)((c.n + 63) / 64) * 8);
            continue;
        }
        int32_t sl = veval(&c, l), sr = veval(&c, r);
        compare_chunk(&c, op, l, r, sl, sr, out);
        if (c.overflow) rc = -ERANGE;
    }
    free(c.x), free(c.f);
    return rc;
}

/* ---- pruning ---------------------------------------------------------------------------- */

typedef struct vrange {
    bool known;
    v128 lo, hi;      /* exact types */
    double dlo, dhi;  /* FLOAT / DOUBLE */
} vrange;

typedef struct vprune {
    const pq_column_desc *schema;
    const int32_t *cols;
    const pq_chunk_meta *chunks;
} vprune;

/* A statistics bound as an exact value of column node's type. */
static bool stat_bound(const vprune *p, const flt_vnode *node, bool want_max, v128 *out)
{
    int32_t col = p->cols[node->slot];
    flt_pred one = {.column = col, .desc = &p->schema[col]};
    flt_lit l;
    if (flt_domain_of(one.desc, &one.dom, NULL) ||
        !flt_stats_value(&one, &p->chunks[col].stats, want_max, &l))
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
        r.known = !v_is_float(&x->t) && stat_bound(p, x, false, &r.lo) && stat_bound(p, x, true, &r.hi);
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

flt_prune flt_v_prune(flt_op op, const flt_vnode *l, const flt_vnode *r,
                      const pq_column_desc *schema, const int32_t *cols,
                      const pq_chunk_meta *chunks)
{
    vprune p = {schema, cols, chunks};
    vrange a = vr_node(&p, l), b = vr_node(&p, r);
    if (!a.known || !b.known) return FLT_CAN_MATCH;
    flt_vtype t = cmp_type(&l->t, &r->t);
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
