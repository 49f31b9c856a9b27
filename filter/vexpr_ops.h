/* filter/vexpr_ops.h: the scalar operations of value expressions (vexpr.h), one definition
 * shared by constant folding, interval pruning (vexpr.c) and row evaluation (vexpr_eval.c), so
 * the three cannot disagree. Exact values are unscaled 128-bit integers with a scale; every
 * exact operation reports overflow instead of wrapping. */
#ifndef RINGSCAN_FILTER_VEXPR_OPS_H
#define RINGSCAN_FILTER_VEXPR_OPS_H
#include <math.h>

#include "filter/vexpr.h"

typedef __int128 v128;

/* 10^k for 0 <= k <= 38 (two table entries and at most one multiplication). */
static inline v128 v_pow10(int32_t k)
{
    static const uint64_t p[20] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL};
    return k <= 19 ? (v128)p[k] : (v128)((unsigned __int128)p[19] * p[k - 19]);
}

/* Whether v fits in 64 bits (so its arithmetic need not call the 128-bit routines). */
static inline bool v_small(v128 v) { return v == (v128)(int64_t)v; }

/* *out = v * 10^by (by >= 0); false on overflow. */
static inline bool v_rescale(v128 v, int32_t by, v128 *out)
{
    if (by > 38) return v == 0 ? (*out = 0, true) : false;
    return !__builtin_mul_overflow(v, v_pow10(by), out);
}

/* v at scale from, rounded half away from zero to scale to (to < from), or rescaled up. */
static inline bool v_round_scale(v128 v, int32_t from, int32_t to, v128 *out)
{
    if (to >= from) return v_rescale(v, to - from, out);
    if (from - to > 38) return *out = 0, true;
    v128 d = v_pow10(from - to), q, r;
    if (v_small(v) && v_small(d)) q = (int64_t)v / (int64_t)d, r = (int64_t)v % (int64_t)d;
    else q = v / d, r = v % d;
    if (2 * (r < 0 ? -r : r) >= d) q += v < 0 ? -1 : 1;
    *out = q;
    return true;
}

/* Whether exact v lies in the range of t (INT: its width and sign; DEC: its digits). */
static inline bool v_fits(const flt_vtype *t, v128 v)
{
    if (t->kind == FLT_VK_DEC) {
        v128 lim = v_pow10(t->width);
        return v > -lim && v < lim;
    }
    if (t->kind != FLT_VK_INT || t->width >= 128) return true;
    if (t->uns) return v >= 0 && (t->width == 64 || v < ((v128)1 << t->width));
    v128 lim = (v128)1 << (t->width - 1);
    return v >= -lim && v < lim;
}

/* Whether an arithmetic result v of t is kept: exact arithmetic is carried out in 128 bits and
 * fails only past 38 digits (DECIMAL(38)'s limit), whatever the integer width (vexpr.h). */
static inline bool v_fits_arith(const flt_vtype *t, v128 v)
{
    const v128 lim = (v128)(((unsigned __int128)0x4B3B4CA85A86C47AULL << 64) | 0x098A224000000000ULL);
    return t->kind != FLT_VK_DEC || (v > -lim && v < lim); /* lim = 10^38 */
}

/* The scale an exact value of t carries (0 for integers and dates). */
static inline int32_t v_scale(const flt_vtype *t)
{
    return t->kind == FLT_VK_DEC || t->kind == FLT_VK_TS ? t->scale : 0;
}

static inline bool v_is_float(const flt_vtype *t)
{
    return t->kind == FLT_VK_FLOAT || t->kind == FLT_VK_DOUBLE;
}

/* An exact value as a double (DuckDB's cast: the integer in double, divided by 10^scale). */
static inline double v_to_double(v128 v, int32_t scale)
{
    double x = v_small(v) ? (double)(int64_t)v : (double)v; /* both round to nearest */
    return scale ? x / (double)v_pow10(scale) : x;
}

/* Rounds x to t's precision: FLOAT values are floats (kept in a double). */
static inline double v_round_float(const flt_vtype *t, double x)
{
    return t->kind == FLT_VK_FLOAT ? (double)(float)x : x;
}

/* A big-endian two's complement integer of len bytes (a decimal's bytes) into *out; false when
 * it needs more than 128 bits (leading bytes other than the sign's extension). */
static inline bool v_from_be(const uint8_t *b, int32_t len, v128 *out)
{
    v128 y = len > 0 && (b[0] & 0x80) ? -1 : 0;
    uint8_t sign = (uint8_t)y;
    for (int32_t k = 0; k < len - 16; k++)
        if (b[k] != sign) return false;
    for (int32_t k = len > 16 ? len - 16 : 0; k < len; k++)
        y = (v128)((unsigned __int128)y << 8) | b[k];
    if (len > 16 && ((y < 0) != (sign != 0))) return false; /* the kept bytes flip the sign */
    *out = y;
    return true;
}

/* Whether x, rounded to t from the double y, stayed in range: a finite double beyond FLOAT's
 * range is an error when CAST to FLOAT (DuckDB), never an infinity. */
static inline bool v_float_cast_ok(double y, double x)
{
    return !isinf(x) || isinf(y) || y != y;
}

/* *out = x in exact type t (INT: half to even, DuckDB's double -> integer; DEC: half away
 * from zero); false when x is NaN, infinite or outside t. */
static inline bool v_from_double(double x, const flt_vtype *t, v128 *out)
{
    double y = t->kind == FLT_VK_INT ? nearbyint(x) : round(x * (double)v_pow10(t->scale));
    if (!(y > -1.7e38 && y < 1.7e38)) return false;
    *out = (v128)y;
    return v_fits(t, *out);
}

/* Three-way comparison of exact a (scale sa) and b (scale sb). A value scaled beyond 128 bits
 * is larger in magnitude than any other exact value, so its sign decides. */
static inline int v_cmp_exact(v128 a, int32_t sa, v128 b, int32_t sb)
{
    if (sa < sb && !v_rescale(a, sb - sa, &a)) return a < 0 ? -1 : 1;
    if (sb < sa && !v_rescale(b, sa - sb, &b)) return b < 0 ? 1 : -1;
    return (a > b) - (a < b);
}

/* NaN equals NaN and is above every number (kernel.h invariant 2). */
static inline int v_cmp_double(double x, double y)
{
    if (x != x || y != y) return (x != x) - (y != y);
    return (x > y) - (x < y);
}

/* exact a op b for ADD, SUB, MUL at the result type t; false on overflow of 128 bits or t. */
static inline bool v_arith_exact(flt_vop op, v128 a, int32_t sa, v128 b, int32_t sb,
                                 const flt_vtype *t, v128 *out)
{
    bool ok;
    if (op == FLT_V_MUL) {
        ok = !__builtin_mul_overflow(a, b, out);
    } else {
        int32_t s = v_scale(t);
        ok = v_rescale(a, s - sa, &a) && v_rescale(b, s - sb, &b);
        ok = ok && (op == FLT_V_ADD ? !__builtin_add_overflow(a, b, out)
                                    : !__builtin_sub_overflow(a, b, out));
    }
    return ok && v_fits_arith(t, *out);
}

/* double a op b for ADD, SUB, MUL, DIV, rounded to t (FLOAT or DOUBLE). */
static inline double v_arith_double(flt_vop op, double a, double b, const flt_vtype *t)
{
    double r = op == FLT_V_ADD ? a + b : op == FLT_V_SUB ? a - b : op == FLT_V_MUL ? a * b : a / b;
    return v_round_float(t, r);
}

enum { V_DAY_S = 86400 };

/* Exact v of type f cast to exact type t (INT, DEC, DATE, TS); false when it does not fit. */
static inline bool v_cast_exact(v128 v, const flt_vtype *f, const flt_vtype *t, v128 *out)
{
    if (t->kind == FLT_VK_DATE || t->kind == FLT_VK_TS) {
        if (f->kind == FLT_VK_DATE && t->kind == FLT_VK_DATE) return *out = v, true;
        if (f->kind == FLT_VK_DATE) return v_rescale(v * V_DAY_S, t->scale, out);
        if (t->kind == FLT_VK_TS) { /* a unit to another: floored when coarser */
            if (t->scale >= f->scale) return v_rescale(v, t->scale - f->scale, out);
            v128 d = v_pow10(f->scale - t->scale);
            return *out = v / d - (v % d < 0), true;
        }
        v128 d = V_DAY_S * v_pow10(f->scale); /* TS -> DATE: the day, floored */
        return *out = v / d - (v % d < 0), true;
    }
    return v_round_scale(v, v_scale(f), v_scale(t), out) && v_fits(t, *out);
}

/* The type both sides of a comparison are read in: exact (an INT placeholder; scales are
 * aligned) when both are, else FLOAT when one is FLOAT and none DOUBLE, else DOUBLE. */
static inline flt_vtype v_cmp_type(const flt_vtype *a, const flt_vtype *b)
{
    flt_vtype t = {FLT_VK_INT, 0, 0, false};
    if (a->kind == FLT_VK_DOUBLE || b->kind == FLT_VK_DOUBLE) t.kind = FLT_VK_DOUBLE;
    else if (a->kind == FLT_VK_FLOAT || b->kind == FLT_VK_FLOAT) t.kind = FLT_VK_FLOAT;
    return t;
}

/* Nodes of the tree x (0 for NULL). */
static inline int32_t v_count(const flt_vnode *x)
{
    return x ? 1 + v_count(x->a) + v_count(x->b) : 0;
}

/* Bits of |v| (0 for 0). */
static inline int32_t v_bits(v128 v)
{
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* Whether op holds for each three-way result -1, 0, 1. */
static inline bool v_op_holds(flt_op op, int c)
{
    switch (op) {
    case FLT_OP_EQ: return c == 0;
    case FLT_OP_NE: return c != 0;
    case FLT_OP_LT: return c < 0;
    case FLT_OP_LE: return c <= 0;
    case FLT_OP_GT: return c > 0;
    default: return c >= 0;
    }
}

#endif
