/* filter/vexpr_eval.c: comparisons of value expressions evaluated on column vectors, a chunk
 * of FLT_V_CHUNK rows at a time (vexpr.h).
 *
 * Invariants:
 *  1. Each node owns one scratch slot of FLT_V_CHUNK values in three lanes: 64-bit exact (y),
 *     128-bit exact (x) and double (f). A float node uses f; an exact node uses y while
 *     `narrow` says so (every value of the chunk fits and every step was proven not to
 *     overflow 63 bits), else x. A node is computed by loops over the chunk with the operation
 *     chosen before them, never by a switch per row.
 *  2. The 64-bit lane is taken only when the operands' largest magnitudes in the chunk bound
 *     every result below 2^62: no row can overflow there, so no check runs per row. Otherwise
 *     the operands are widened and each row is checked in 128 bits (vexpr_ops.h).
 *  3. Only rows of rest whose every column is valid are selected; a chunk with none is
 *     skipped, and an overflow counts only in a selected row (unselected rows may compute
 *     anything, never undefined behaviour: the unchecked loops are bounded by invariant 2).
 *  4. A chunk whose selected rows are fewer than 1 in SPARSE_DIV is evaluated on those rows
 *     alone (`rows`: their offsets in the chunk, lane position i holds row rows[i], every
 *     position selected) and the outcomes scattered back; otherwise on every row of the chunk
 *     (a later conjunct after a selective one would else compute every row of most chunks:
 *     expr_arith's second conjunct sees one row in a thousand).
 *  5. A constant's slot is the same in every chunk (slots are taken in one walk of the tree)
 *     and only its node writes its 64-bit and double lanes, so they are filled once per
 *     evaluation, as far as the longest chunk yet (kfill), and a 64-bit constant's magnitude
 *     is known without a pass over its lane (kbits).
 *  6. kbits[s] >= 0 bounds the magnitude bits of every lane position of slot s's 64-bit
 *     values in the chunk (a constant's exactly; a 64-bit step's result by its operands'
 *     bounds), so the next step checks invariant 2 without a pass over it; where the bound
 *     says a step might not fit, the lanes' own magnitudes are taken before giving up on the
 *     64-bit lane. -1: unknown (a column's, taken by a pass). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/kernel_int.h"
#include "filter/vexpr_ops.h"

enum { CHUNK_WORDS = FLT_V_CHUNK / 64, NARROW_BITS = 62, SPARSE_DIV = 8 };

typedef struct vctx {
    const pq_vec *const *vecs;
    int64_t r0;          /* the chunk's first row */
    int32_t n;           /* its rows (lane positions) */
    const int32_t *rows; /* sparse: lane position i is row r0 + rows[i] (invariant 4); or NULL */
    int64_t *y;          /* 64-bit exact lane: slot s at y[s * FLT_V_CHUNK] */
    const int64_t **yin; /* per slot: where its 64-bit values are read (y's slot, or a column's
                          * own aligned values in place of a copy); written only through y */
    v128 *x;             /* 128-bit exact lane, likewise */
    double *f;           /* double lane, likewise */
    bool *narrow;        /* per slot: its exact values are in y */
    int32_t *kfill;      /* per slot: a constant's lane positions filled (invariant 5) */
    int32_t *kbits;      /* per slot: a bound on its 64-bit magnitude bits, or -1 (invariant 6) */
    int32_t next;        /* the next free slot */
    int32_t spare;       /* the first of two double slots the comparison converts into */
    uint64_t sel[CHUNK_WORDS];
    bool overflow;
} vctx;

static bool selected(const vctx *c, int32_t i) { return (c->sel[i >> 6] >> (i & 63)) & 1; }
/* The vector row of lane position i. */
static int64_t row_at(const vctx *c, int32_t i) { return c->r0 + (c->rows ? c->rows[i] : i); }
static int64_t *ylane(vctx *c, int32_t s) { return c->y + (size_t)s * FLT_V_CHUNK; }
/* Slot s's 64-bit values, to read. */
static const int64_t *yvals(const vctx *c, int32_t s) { return c->yin[s]; }
static v128 *xlane(vctx *c, int32_t s) { return c->x + (size_t)s * FLT_V_CHUNK; }
static double *flane(vctx *c, int32_t s) { return c->f + (size_t)s * FLT_V_CHUNK; }

/* Bits of the largest magnitude among y[0..n). */
static int32_t bits64(const int64_t *y, int32_t n)
{
    uint64_t m = 0;
    for (int32_t i = 0; i < n; i++) m |= y[i] < 0 ? -(uint64_t)y[i] : (uint64_t)y[i];
    return m ? 64 - __builtin_clzll(m) : 0;
}

/* At least the bits of the largest magnitude among slot s's 64-bit values in the chunk
 * (invariant 6). */
static int32_t slot_bits(const vctx *c, int32_t s)
{
    return c->kbits[s] >= 0 ? c->kbits[s] : bits64(c->yin[s], c->n);
}

/* Slot s's exact values in the 128-bit lane (copied from the 64-bit one when narrow). */
static const v128 *wide(vctx *c, int32_t s)
{
    v128 *x = xlane(c, s);
    if (c->narrow[s]) {
        const int64_t *y = yvals(c, s);
        for (int32_t i = 0; i < c->n; i++) x[i] = y[i];
        c->narrow[s] = false;
    }
    return x;
}

/* A decimal's big-endian bytes of each row into x (an overflow of 128 bits counts). */
static void load_bytes(vctx *c, const pq_vec *v, v128 *x)
{
    for (int32_t i = 0; i < c->n; i++) {
        int64_t row = row_at(c, i);
        int32_t len = v->type == PQ_BYTE_ARRAY ? v->offsets[row + 1] - v->offsets[row] : v->type_length;
        const uint8_t *b = v->type == PQ_BYTE_ARRAY ? v->data + v->offsets[row]
                                                    : v->values + (int64_t)len * row;
        if (!v_from_be(b, len, &x[i])) {
            x[i] = 0;
            if (selected(c, i)) c->overflow = true;
        }
    }
}

/* One column's values of the chunk into slot s (64-bit lane, 128-bit for UINT64 and byte
 * decimals, double for floats). */
static void load_column(vctx *c, const flt_vnode *node, int32_t s)
{
    const pq_vec *v = c->vecs[node->slot];
    int64_t r0 = c->r0, *y = ylane(c, s);
    double *f = flane(c, s);
    c->narrow[s] = v->type == PQ_INT32 || v->type == PQ_INT96 || (v->type == PQ_INT64 && !node->t.uns);
    switch (v->type) {
    case PQ_INT96: /* a timestamp's nanoseconds (vexpr.c column_type) */
        for (int32_t i = 0; i < c->n; i++) y[i] = pq_int96_nanos(v->values + 12 * row_at(c, i));
        return;
    case PQ_INT32:
        for (int32_t i = 0; i < c->n; i++) {
            int32_t w;
            memcpy(&w, v->values + 4 * row_at(c, i), 4);
            y[i] = node->t.uns ? (int64_t)(uint32_t)w : w;
        }
        return;
    case PQ_INT64:
        if (c->narrow[s] && !c->rows && (uintptr_t)(v->values + 8 * r0) % 8 == 0) {
            c->yin[s] = (const int64_t *)(const void *)(v->values + 8 * r0); /* no copy */
        } else if (c->narrow[s] && !c->rows) {
            memcpy(y, v->values + 8 * r0, (size_t)c->n * 8);
        } else if (c->narrow[s]) {
            for (int32_t i = 0; i < c->n; i++) memcpy(&y[i], v->values + 8 * row_at(c, i), 8);
        } else {
            v128 *x = xlane(c, s);
            for (int32_t i = 0; i < c->n; i++) {
                uint64_t w;
                memcpy(&w, v->values + 8 * row_at(c, i), 8);
                x[i] = (v128)w;
            }
        }
        return;
    case PQ_FLOAT:
        for (int32_t i = 0; i < c->n; i++) {
            float w;
            memcpy(&w, v->values + 4 * row_at(c, i), 4);
            f[i] = w;
        }
        return;
    case PQ_DOUBLE:
        if (!c->rows) memcpy(f, v->values + 8 * r0, (size_t)c->n * 8);
        else for (int32_t i = 0; i < c->n; i++) memcpy(&f[i], v->values + 8 * row_at(c, i), 8);
        return;
    default: load_bytes(c, v, xlane(c, s)); return;
    }
}

/* Slot s (of type t) as doubles of type to (FLOAT rounds), in place or into d. */
static const double *as_double(vctx *c, int32_t s, const flt_vtype *t, const flt_vtype *to,
                               double *d)
{
    if (v_is_float(t) && (t->kind == to->kind || to->kind == FLT_VK_DOUBLE)) return flane(c, s);
    const double *g = flane(c, s);
    int32_t sc = v_scale(t);
    if (!v_is_float(t) && c->narrow[s]) {
        const int64_t *y = yvals(c, s);
        double k = (double)v_pow10(sc); /* v_to_double's rounding: the integer, then / 10^s */
        for (int32_t i = 0; i < c->n; i++) d[i] = v_round_float(to, sc ? (double)y[i] / k : (double)y[i]);
        return d;
    }
    const v128 *x = xlane(c, s);
    for (int32_t i = 0; i < c->n; i++)
        d[i] = v_round_float(to, v_is_float(t) ? g[i] : v_to_double(x[i], sc));
    return d;
}

/* Bits bounding every result of a op b (ADD, SUB: a * fa op b * fb; MUL: a * b) from the
 * operands' bounds ba and bb. */
static int32_t binary_bits(flt_vop op, int32_t ba, int32_t bb, int64_t fa, int64_t fb)
{
    if (op == FLT_V_MUL) return ba + bb;
    int32_t wa = ba + v_bits(fa), wb = bb + v_bits(fb);
    return (wa > wb ? wa : wb) + 1;
}

/* r[i] = p[i] * q[i] for values whose magnitudes are below 2^31 (bounds of invariant 6), so
 * each is an int32 and the product one signed 32x32 -> 64 multiply (vpmuldq); a 64-bit
 * multiply is three of them without AVX-512 (expr_arith's price * (1 - discount) * (1 + tax)
 * has operands of 24 and 7 bits). */
static void mul_int32(const int64_t *p, const int64_t *q, int64_t *r, int32_t n)
{
    assert(n >= 0 && n <= FLT_V_CHUNK);
    for (int32_t i = 0; i < n; i++) r[i] = (int64_t)(int32_t)p[i] * (int32_t)q[i];
}

/* r[i] = p[i] * fp + q[i] * fq with p, q below 2^31 in magnitude as in mul_int32 (fp, fq:
 * powers of ten aligning scales, fq negated for SUB; |fq| < 2^31 so its negation fits). */
static void scale_add_int32(const int64_t *p, int32_t fp, const int64_t *q, int32_t fq,
                            int64_t *r, int32_t n)
{
    assert(n >= 0 && n <= FLT_V_CHUNK && fp > 0 && fq != 0 && fq != INT32_MIN);
    for (int32_t i = 0; i < n; i++) r[i] = (int64_t)(int32_t)p[i] * fp + (int64_t)(int32_t)q[i] * fq;
}

/* Exact a op b for ADD, SUB, MUL in the 64-bit lane when both operands are there and their
 * magnitudes bound every result below 2^62 (invariant 2); false when it does not apply. */
static bool narrow_binary(vctx *c, const flt_vnode *x, int32_t sa, int32_t sb, int32_t o)
{
    if (!c->narrow[sa] || !c->narrow[sb]) return false;
    const int64_t *p = yvals(c, sa), *q = yvals(c, sb);
    int64_t *r = ylane(c, o), fa = 1, fb = 1;
    if (x->op != FLT_V_MUL) {
        int32_t s = v_scale(&x->t), ka = s - v_scale(&x->a->t), kb = s - v_scale(&x->b->t);
        if (ka > 18 || kb > 18) return false;
        fa = (int64_t)v_pow10(ka), fb = (int64_t)v_pow10(kb);
    }
    int32_t ba = slot_bits(c, sa), bb = slot_bits(c, sb);
    int32_t bits = binary_bits(x->op, ba, bb, fa, fb);
    if (bits > NARROW_BITS) { /* (a bound may be loose: the lanes' own, invariant 6) */
        ba = bits64(p, c->n), bb = bits64(q, c->n);
        bits = binary_bits(x->op, ba, bb, fa, fb);
    }
    if (bits > NARROW_BITS) return false;
    if (x->op == FLT_V_MUL && ba <= 31 && bb <= 31) mul_int32(p, q, r, c->n);
    else if (x->op == FLT_V_MUL) for (int32_t i = 0; i < c->n; i++) r[i] = p[i] * q[i];
    else if (ba <= 31 && bb <= 31 && fa <= INT32_MAX && fb <= INT32_MAX)
        scale_add_int32(p, (int32_t)fa, q, x->op == FLT_V_ADD ? (int32_t)fb : -(int32_t)fb, r, c->n);
    else if (x->op == FLT_V_ADD) for (int32_t i = 0; i < c->n; i++) r[i] = p[i] * fa + q[i] * fb;
    else for (int32_t i = 0; i < c->n; i++) r[i] = p[i] * fa - q[i] * fb;
    c->kbits[o] = bits;
    return c->narrow[o] = true;
}

/* a op b into slot o, for ADD, SUB, MUL, DIV. */
static void eval_binary(vctx *c, const flt_vnode *x, int32_t sa, int32_t sb, int32_t o)
{
    if (v_is_float(&x->t)) { /* operands converted into o's double and 128-bit lanes first */
        double *rf = flane(c, o);
        const double *p = as_double(c, sa, &x->a->t, &x->t, rf);
        const double *q = as_double(c, sb, &x->b->t, &x->t, (double *)xlane(c, o));
        for (int32_t i = 0; i < c->n; i++) rf[i] = v_arith_double(x->op, p[i], q[i], &x->t);
        return;
    }
    if (narrow_binary(c, x, sa, sb, o)) return;
    const v128 *p = wide(c, sa), *q = wide(c, sb);
    v128 *r = xlane(c, o);
    int32_t ka = v_scale(&x->a->t), kb = v_scale(&x->b->t);
    for (int32_t i = 0; i < c->n; i++)
        if (!v_arith_exact(x->op, p[i], ka, q[i], kb, &x->t, &r[i]) && selected(c, i))
            c->overflow = true;
}

/* r[i] = p[i] / 10^down rounded half away from zero (1 <= down <= 18; |p[i]| below 2^62, so
 * p[i] +- half cannot overflow). The common scales divide by a constant the compiler turns into
 * a multiply: a `div` per row was a quarter of veval's samples on CAST(l_quantity AS INTEGER). */
static void div_pow10(const int64_t *p, int64_t *r, int32_t n, int32_t down)
{
    assert(down >= 1 && down <= 18);
#define DIV_POW10(K)                                                                    \
    for (int32_t i = 0; i < n; i++) r[i] = (p[i] < 0 ? p[i] - (K) / 2 : p[i] + (K) / 2) / (K); \
    return
    switch (down) {
    case 1: DIV_POW10(INT64_C(10));
    case 2: DIV_POW10(INT64_C(100));
    case 3: DIV_POW10(INT64_C(1000));
    case 4: DIV_POW10(INT64_C(10000));
    case 6: DIV_POW10(INT64_C(1000000));
    default: break;
    }
#undef DIV_POW10
    int64_t d = (int64_t)v_pow10(down), half = d / 2;
    for (int32_t i = 0; i < n; i++) r[i] = (p[i] < 0 ? p[i] - half : p[i] + half) / d;
}

/* -a or a CAST between exact numbers (INT, DEC) in the 64-bit lane (to a lower scale: rounded
 * half away from zero; to a higher one: multiplied) when the magnitudes allow and every
 * selected result fits its type; false when it does not apply. */
static bool narrow_unary(vctx *c, const flt_vnode *x, int32_t sa, int32_t o)
{
    const flt_vtype *t = &x->t, *f = &x->a->t;
    bool exact = (t->kind == FLT_VK_INT || t->kind == FLT_VK_DEC) &&
                 (f->kind == FLT_VK_INT || f->kind == FLT_VK_DEC);
    if (!c->narrow[sa] || (x->op == FLT_V_CAST && !exact)) return false;
    const int64_t *p = yvals(c, sa);
    int64_t *r = ylane(c, o);
    int32_t down = x->op == FLT_V_NEG ? 0 : v_scale(f) - v_scale(t), bits = slot_bits(c, sa);
    if (down < -18 || down > 18) return false;
    int32_t up = down < 0 ? v_bits(v_pow10(-down)) : 0; /* (a rounded division shrinks) */
    if (bits + up > NARROW_BITS) bits = bits64(p, c->n); /* (invariant 6) */
    if (bits + up > NARROW_BITS) return false;
    int64_t d = (int64_t)v_pow10(down < 0 ? -down : down);
    if (x->op == FLT_V_NEG) for (int32_t i = 0; i < c->n; i++) r[i] = -p[i];
    else if (down < 0) for (int32_t i = 0; i < c->n; i++) r[i] = p[i] * d;
    else if (down > 0) div_pow10(p, r, c->n, down);
    else memcpy(r, p, (size_t)c->n * sizeof *r);
    for (int32_t i = 0; x->op == FLT_V_CAST && i < c->n; i++)
        if (!v_fits(t, r[i]) && selected(c, i)) return false; /* the checked loop reports it */
    c->kbits[o] = bits + up;
    return c->narrow[o] = true;
}

/* CAST(a AS x->t) or -a into slot o. */
static void eval_unary(vctx *c, const flt_vnode *x, int32_t sa, int32_t o)
{
    const flt_vtype *t = &x->t, *ta = &x->a->t;
    if (v_is_float(t)) {
        double *rf = flane(c, o);
        const double *pf = flane(c, sa), *q = as_double(c, sa, ta, t, rf);
        for (int32_t i = 0; i < c->n; i++) rf[i] = x->op == FLT_V_NEG ? -q[i] : q[i];
        for (int32_t i = 0; ta->kind == FLT_VK_DOUBLE && t->kind == FLT_VK_FLOAT && i < c->n; i++)
            if (!v_float_cast_ok(pf[i], rf[i]) && selected(c, i)) c->overflow = true;
        return;
    }
    if (narrow_unary(c, x, sa, o)) return;
    const double *pf = flane(c, sa);
    const v128 *p = v_is_float(ta) ? NULL : wide(c, sa);
    v128 *r = xlane(c, o);
    for (int32_t i = 0; i < c->n; i++) {
        bool ok;
        if (x->op == FLT_V_NEG) ok = !__builtin_sub_overflow((v128)0, p[i], &r[i]) && v_fits_arith(t, r[i]);
        else if (v_is_float(ta)) ok = v_from_double(pf[i], t, &r[i]);
        else ok = v_cast_exact(p[i], ta, t, &r[i]);
        if (!ok) {
            r[i] = 0;
            if (selected(c, i)) c->overflow = true;
        }
    }
}

/* Constant x into slot o: only the lane its type reads, the 64-bit and double ones filled
 * once per evaluation (invariant 5; the 128-bit one may be rewritten by wide()). */
static void eval_const(vctx *c, const flt_vnode *x, int32_t o)
{
    int32_t from = c->kfill[o] < c->n ? c->kfill[o] : c->n;
    if (v_is_float(&x->t)) {
        double *f = flane(c, o);
        for (int32_t i = from; i < c->n; i++) f[i] = x->kf;
    } else if ((c->narrow[o] = v_small(x->k))) {
        int64_t *y = ylane(c, o), k = (int64_t)x->k;
        for (int32_t i = from; i < c->n; i++) y[i] = k;
        c->kbits[o] = bits64(&k, 1);
    } else {
        v128 *w = xlane(c, o);
        for (int32_t i = 0; i < c->n; i++) w[i] = x->k;
        return;
    }
    if (c->n > c->kfill[o]) c->kfill[o] = c->n;
}

/* Evaluates x over the chunk; returns the slot holding its values. */
static int32_t veval(vctx *c, const flt_vnode *x)
{
    int32_t sa = x->a ? veval(c, x->a) : -1, sb = x->b ? veval(c, x->b) : -1;
    int32_t o = c->next++;
    c->narrow[o] = false;
    c->kbits[o] = -1;
    c->yin[o] = ylane(c, o);
    switch (x->op) {
    case FLT_V_COL: load_column(c, x, o); break;
    case FLT_V_CONST: eval_const(c, x, o); break;
    case FLT_V_NEG:
    case FLT_V_CAST: eval_unary(c, x, sa, o); break;
    default: eval_binary(c, x, sa, sb, o); break;
    }
    return o;
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

/* Rows 0..m (m <= 64) where p[j] * fp op q[j] * fq as bits of a word, op given by the three-way
 * outcomes it holds for (lt, eq, gt: 0 or 1); no table lookup, so the loop vectorizes. */
static uint64_t cmp_word64(const int64_t *p, int64_t fp, const int64_t *q, int64_t fq, int32_t m,
                           uint64_t lt, uint64_t eq, uint64_t gt)
{
    assert(m >= 0 && m <= 64);
    uint64_t w = 0;
    for (int32_t j = 0; j < m; j++) {
        int64_t a = p[j] * fp, b = q[j] * fq;
        w |= (((uint64_t)(a < b) & lt) | ((uint64_t)(a == b) & eq) | ((uint64_t)(a > b) & gt)) << j;
    }
    return w;
}

/* As cmp_word64 for doubles, ordered as v_cmp_double (NaN above every number, equal to NaN). */
static uint64_t cmp_word_f64(const double *p, const double *q, int32_t m, uint64_t lt, uint64_t eq,
                             uint64_t gt)
{
    assert(m >= 0 && m <= 64);
    uint64_t w = 0;
    for (int32_t j = 0; j < m; j++) {
        double a = p[j], b = q[j];
        bool na = a != a, nb = b != b;
        uint64_t l = (uint64_t)((!na && nb) | (a < b)), g = (uint64_t)((na && !nb) | (a > b));
        uint64_t e = (uint64_t)((na && nb) | (a == b));
        w |= ((l & lt) | (e & eq) | (g & gt)) << j;
    }
    return w;
}

/* Three-way results of exact slots sl (scale ka) and sr (scale kb) into bits: in the 64-bit
 * lane when both are there and the lower scale's side times 10^|ka - kb| stays below 2^62. */
static void compare_exact(vctx *c, int32_t sl, int32_t ka, int32_t sr, int32_t kb,
                          const bool want[3], uint64_t *bits)
{
    int32_t d = ka > kb ? ka - kb : kb - ka;
    if (c->narrow[sl] && c->narrow[sr] && d <= 18) {
        const int64_t *p = yvals(c, sl), *q = yvals(c, sr);
        int64_t f = (int64_t)v_pow10(d);
        if ((ka < kb ? slot_bits(c, sl) : ka > kb ? slot_bits(c, sr) : 0) + v_bits(f) <= NARROW_BITS) {
            int64_t fp = ka < kb ? f : 1, fq = kb < ka ? f : 1;
            for (int32_t i = 0; i < c->n; i += 64)
                bits[i >> 6] = cmp_word64(p + i, fp, q + i, fq, c->n - i < 64 ? c->n - i : 64,
                                          want[0], want[1], want[2]);
            return;
        }
    }
    const v128 *p = wide(c, sl), *q = wide(c, sr);
    for (int32_t i = 0; i < c->n; i++)
        bits[i >> 6] |= (uint64_t)want[v_cmp_exact(p[i], ka, q[i], kb) + 1] << (i & 63);
}

/* bits: lane positions where l op r (slots sl, sr), selected or not. */
static void compare_chunk(vctx *c, flt_op op, const flt_vnode *l, const flt_vnode *r, int32_t sl,
                          int32_t sr, uint64_t bits[CHUNK_WORDS])
{
    bool want[3] = {v_op_holds(op, -1), v_op_holds(op, 0), v_op_holds(op, 1)};
    flt_vtype t = v_cmp_type(&l->t, &r->t);
    memset(bits, 0, CHUNK_WORDS * sizeof *bits);
    if (v_is_float(&t)) {
        double *dl = flane(c, c->spare), *dr = flane(c, c->spare + 1);
        const double *p = as_double(c, sl, &l->t, &t, dl), *q = as_double(c, sr, &r->t, &t, dr);
        for (int32_t i = 0; i < c->n; i += 64)
            bits[i >> 6] = cmp_word_f64(p + i, q + i, c->n - i < 64 ? c->n - i : 64, want[0],
                                        want[1], want[2]);
    } else {
        compare_exact(c, sl, v_scale(&l->t), sr, v_scale(&r->t), want, bits);
    }
}

/* The selected rows of the chunk as offsets into rows (invariant 4) when they are few, the
 * chunk then narrowed to them (c->n, c->sel, c->rows); false (c unchanged) when they are not. */
static bool go_sparse(vctx *c, int32_t *rows)
{
    int32_t nw = (c->n + 63) / 64, k = 0;
    for (int32_t w = 0; w < nw; w++) k += __builtin_popcountll(c->sel[w]);
    if ((int64_t)k * SPARSE_DIV >= c->n) return false;
    k = 0;
    for (int32_t w = 0; w < nw; w++)
        for (uint64_t b = c->sel[w]; b; b &= b - 1) rows[k++] = w * 64 + __builtin_ctzll(b);
    memset(c->sel, 0, sizeof c->sel);
    for (int32_t i = 0; i < k; i++) c->sel[i >> 6] |= 1ull << (i & 63);
    c->n = k, c->rows = rows;
    return true;
}

/* out's words for the chunk of n rows: the selected rows where the comparison held (bits by
 * lane position; scattered back to rows when sparse). */
static void store_chunk(const vctx *c, int32_t n, const uint64_t *sel, const uint64_t *bits,
                        flt_mask *out)
{
    uint64_t *o = out->words + (c->r0 >> 6);
    if (!c->rows) {
        for (int32_t w = 0; w < (n + 63) / 64; w++) o[w] = bits[w] & sel[w];
        return;
    }
    memset(o, 0, (size_t)((n + 63) / 64) * 8);
    for (int32_t i = 0; i < c->n; i++) {
        int32_t row = c->rows[i];
        o[row >> 6] |= ((bits[i >> 6] >> (i & 63)) & 1) << (row & 63);
    }
}

int flt_v_eval(flt_op op, const flt_vnode *l, const flt_vnode *r, const pq_vec *const *vecs,
               const flt_mask *rest, flt_mask *out)
{
    assert(l && r && vecs && rest && out && out->len == rest->len);
    int32_t nodes = v_count(l) + v_count(r), slots[2 * FLT_V_MAX_NODES], ns = 0;
    assert(nodes <= 2 * FLT_V_MAX_NODES);
    slots_of(l, slots, &ns);
    slots_of(r, slots, &ns);
    vctx c = {.vecs = vecs, .spare = nodes};
    c.x = fail_malloc((size_t)nodes * FLT_V_CHUNK * sizeof *c.x);
    c.y = fail_malloc((size_t)nodes * FLT_V_CHUNK * sizeof *c.y);
    c.f = fail_malloc((size_t)(nodes + 2) * FLT_V_CHUNK * sizeof *c.f);
    c.narrow = fail_malloc((size_t)nodes * sizeof *c.narrow);
    c.yin = fail_malloc((size_t)nodes * sizeof *c.yin);
    c.kfill = fail_calloc((size_t)nodes, sizeof *c.kfill);
    c.kbits = fail_malloc((size_t)nodes * sizeof *c.kbits);
    int rc = c.x && c.y && c.f && c.narrow && c.yin && c.kfill && c.kbits ? 0 : -ENOMEM;
    int32_t rows[FLT_V_CHUNK];
    uint64_t bits[CHUNK_WORDS];
    for (int64_t r0 = 0; r0 < rest->len && rc == 0; r0 += FLT_V_CHUNK) {
        int32_t n = (int32_t)(rest->len - r0 < FLT_V_CHUNK ? rest->len - r0 : FLT_V_CHUNK);
        c.r0 = r0, c.n = n, c.rows = NULL, c.next = 0;
        if (!select_rows(&c, slots, ns, rest)) {
            memset(out->words + (r0 >> 6), 0, (size_t)((n + 63) / 64) * 8);
            continue;
        }
        uint64_t sel[CHUNK_WORDS];
        memcpy(sel, c.sel, sizeof sel);
        (void)go_sparse(&c, rows);
        int32_t sl = veval(&c, l), sr = veval(&c, r);
        compare_chunk(&c, op, l, r, sl, sr, bits);
        store_chunk(&c, n, sel, bits, out);
        if (c.overflow) rc = -ERANGE;
    }
    free(c.x), free(c.y), free(c.f), free(c.narrow), free(c.yin), free(c.kfill), free(c.kbits);
    return rc;
}
