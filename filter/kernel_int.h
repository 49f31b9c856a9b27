/* filter/kernel_int.h: helpers shared by the kernel files (kernel.c, kernel_bytes.c) and
 * pruning (prune.c): bit packing, validity word loads, scalar term matchers. Internal to
 * filter/.
 *
 * Invariants:
 *  1. flt_match_* implement exactly the semantics of kernel.h invariants 1-2 for one non-null
 *     value; the dense kernels must agree with them bit for bit (tests check both against an
 *     independent reference).
 *  2. flt_load_word never reads past byte (n + 7) / 8 of a bitmap of n bits. */
#ifndef RINGSCAN_FILTER_KERNEL_INT_H
#define RINGSCAN_FILTER_KERNEL_INT_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "filter/expr.h"
#include "filter/kernel.h"
#include "format/vec.h"

/* 64 bytes of 0/1 -> 64 bits, byte j -> bit j. Each multiply gathers 8 bytes' low bits into
 * the top byte: the partial products land on distinct bit positions, so nothing carries. */
static inline uint64_t flt_pack64(const uint8_t *b)
{
    uint64_t r = 0;
    for (int k = 0; k < 8; k++) {
        uint64_t x;
        memcpy(&x, b + 8 * k, 8);
        r |= ((x * UINT64_C(0x0102040810204080)) >> 56) << (8 * k);
    }
    return r;
}

/* The validity bitmap of v, or NULL when it has no nulls (format/vec.h invariant 1: the
 * buffer may exist and hold anything when null_count == 0). */
static inline const uint8_t *flt_validity(const pq_vec *v)
{
    return v->null_count > 0 ? v->validity : NULL;
}

/* Word w of an Arrow bitmap of n bits (bits past n unspecified); NULL bitmap = all ones. */
static inline uint64_t flt_load_word(const uint8_t *bits, int64_t n, int64_t w)
{
    if (!bits) return ~UINT64_C(0);
    int64_t nbytes = (n + 7) >> 3, at = w << 3;
    uint64_t x = 0;
    memcpy(&x, bits + at, (size_t)(nbytes - at >= 8 ? 8 : nbytes - at));
    return x; /* little-endian host (mask.h invariant 1) */
}

/* One non-null value against a LIKE / NOT LIKE term's pattern (like.c). */
bool flt_like_match(const uint8_t *s, int32_t len, const flt_term *t);

/* v != v is true only for NaN (and always false for integers): NaN is above every number
 * (kernel.h invariant 2), so it passes > and >= and NOT IN, and fails the rest (IN and NOT IN
 * of a list holding NaN, t->nan, take it as equal to itself). */
#define FLT_DEFINE_MATCH(NAME, V, GET)                                    \
    static inline bool NAME(V v, const flt_term *t)                       \
    {                                                                     \
        const flt_lit *l = t->lits;                                       \
        switch (t->op) {                                                  \
        case FLT_OP_EQ: return v == (V)l[0].GET;                          \
        case FLT_OP_NE: return v != (V)l[0].GET;                          \
        case FLT_OP_LT: return v < (V)l[0].GET;                           \
        case FLT_OP_LE: return v <= (V)l[0].GET;                          \
        case FLT_OP_GT: return v > (V)l[0].GET || v != v;                 \
        case FLT_OP_GE: return v >= (V)l[0].GET || v != v;                \
        case FLT_OP_BETWEEN: return v >= (V)l[0].GET && v <= (V)l[1].GET; \
        case FLT_OP_IN:                                                   \
            for (int32_t i = 0; i < t->nlits; i++)                        \
                if (v == (V)l[i].GET) return true;                        \
            return t->nan && v != v; /* (expr.h invariant 5) */           \
        case FLT_OP_NOT_IN:                                               \
            for (int32_t i = 0; i < t->nlits; i++)                        \
                if (v == (V)l[i].GET) return false;                       \
            return !(t->nan && v != v);                                   \
        case FLT_OP_IS_NOT_NULL: return true;                             \
        default: return false;                                            \
        }                                                                 \
    }

FLT_DEFINE_MATCH(flt_match_i64, int64_t, i)
FLT_DEFINE_MATCH(flt_match_u64, uint64_t, i)
FLT_DEFINE_MATCH(flt_match_f64, double, f)

/* One non-null byte value (BYTES, SDEC or INT96 domain) against a term. */
static inline bool flt_match_bytes(flt_domain dom, const uint8_t *s, int32_t len,
                                   const flt_term *t)
{
    const flt_lit *l = t->lits;
#define cmp(a, al, b, bl)                                                                    \
    (dom == FLT_DOM_SDEC ? flt_cmp_sdec(a, al, b, bl) :                                      \
     dom == FLT_DOM_INT96 ? flt_cmp_int96(a, b) : flt_cmp_bytes(a, al, b, bl))
    switch (t->op) {
    case FLT_OP_EQ: return cmp(s, len, l[0].b, l[0].len) == 0;
    case FLT_OP_NE: return cmp(s, len, l[0].b, l[0].len) != 0;
    case FLT_OP_LT: return cmp(s, len, l[0].b, l[0].len) < 0;
    case FLT_OP_LE: return cmp(s, len, l[0].b, l[0].len) <= 0;
    case FLT_OP_GT: return cmp(s, len, l[0].b, l[0].len) > 0;
    case FLT_OP_GE: return cmp(s, len, l[0].b, l[0].len) >= 0;
    case FLT_OP_BETWEEN:
        return cmp(s, len, l[0].b, l[0].len) >= 0 && cmp(s, len, l[1].b, l[1].len) <= 0;
    case FLT_OP_IN:
        for (int32_t i = 0; i < t->nlits; i++)
            if (cmp(s, len, l[i].b, l[i].len) == 0) return true;
        return false;
    case FLT_OP_NOT_IN:
        for (int32_t i = 0; i < t->nlits; i++)
            if (cmp(s, len, l[i].b, l[i].len) == 0) return false;
        return true;
    case FLT_OP_PREFIX:
        return len >= l[0].len && (l[0].len == 0 || memcmp(s, l[0].b, (size_t)l[0].len) == 0);
    case FLT_OP_LIKE: return flt_like_match(s, len, t);
    case FLT_OP_NOT_LIKE: return !flt_like_match(s, len, t);
    case FLT_OP_IS_NOT_NULL: return true;
    default: return false;
    }
#undef cmp
}

/* Dense OR of one term over a BYTE_ARRAY / FLBA / INT96 vector (kernel_bytes.c). */
void flt_dense_bytes(flt_domain dom, const pq_vec *v, const flt_term *t, uint64_t *out,
                     bool first);
/* out[0..nwords(n)) = first ? value-fill : out | value-fill (tail bits cleared). */
void flt_fill_words(uint64_t *out, int64_t n, bool first, bool value);

#endif
