/* filter/kernel_bytes.c: kernels for BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96 values, and
 * the two byte orders: unsigned lexicographic (strings, binary, FLBA) and signed big-endian
 * two's complement (decimals stored as bytes).
 *
 * Invariants:
 *  1. Values are read only inside [0, data_len) (BYTE_ARRAY: vec.h invariant 4 bounds every
 *     offset) or [0, length * width) (fixed width).
 *  2. Equality and prefix tests compare lengths before bytes, so they touch at most the
 *     literal's length of each value. */
#include <assert.h>
#include <string.h>

#include "filter/kernel_int.h"

int flt_cmp_bytes(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen)
{
    assert(alen >= 0 && blen >= 0);
    int32_t m = alen < blen ? alen : blen;
    int c = m ? memcmp(a, b, (size_t)m) : 0;
    if (c) return c;
    return (alen > blen) - (alen < blen);
}

int flt_cmp_sdec(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen)
{
    assert(alen >= 0 && blen >= 0);
    bool an = alen > 0 && (a[0] & 0x80), bn = blen > 0 && (b[0] & 0x80);
    if (an != bn) return an ? -1 : 1;
    /* same sign: compare as equal-length unsigned after sign extension */
    uint8_t ext = an ? 0xff : 0;
    int32_t m = alen > blen ? alen : blen;
    for (int32_t i = 0; i < m; i++) {
        int32_t ia = i - (m - alen), ib = i - (m - blen);
        uint8_t x = ia < 0 ? ext : a[ia], y = ib < 0 ? ext : b[ib];
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

/* Evaluates EXPR (using s, len) for every row into out, 64 rows per word. */
#define FLT_DENSE_VAR(n, VALUE_AT, EXPR)                                    \
    do {                                                                    \
        int64_t nw_ = flt_mask_nwords(n);                                   \
        for (int64_t w_ = 0; w_ < nw_; w_++) {                              \
            uint8_t b_[64];                                                 \
            int64_t base_ = w_ << 6, m_ = (n) - base_ < 64 ? (n) - base_ : 64; \
            memset(b_ + m_, 0, (size_t)(64 - m_));                          \
            for (int64_t j_ = 0; j_ < m_; j_++) {                           \
                const uint8_t *s;                                           \
                int32_t len;                                                \
                VALUE_AT(base_ + j_);                                       \
                b_[j_] = (uint8_t)(EXPR);                                   \
            }                                                               \
            uint64_t bits_ = flt_pack64(b_);                                \
            out[w_] = first ? bits_ : out[w_] | bits_;                      \
        }                                                                   \
    } while (0)

#define VAR_AT(i) (s = data + v->offsets[i], len = v->offsets[(i) + 1] - v->offsets[i])
#define FIX_AT(i) (s = v->values + (i) * width, len = width)

void flt_dense_bytes(flt_domain dom, const pq_vec *v, const flt_term *t, uint64_t *out,
                     bool first)
{
    int64_t n = v->length;
    int32_t width = pq_fixed_width(v->type, v->type_length);
    const flt_lit *l = t->lits;
    const uint8_t *data = v->data ? v->data : (const uint8_t *)""; /* all values empty */
    assert(v->type == PQ_BYTE_ARRAY || width > 0);
    if (t->op == FLT_OP_FALSE || t->op == FLT_OP_IS_NULL) {
        flt_fill_words(out, n, first, false);
        return;
    }
    if (t->op == FLT_OP_IS_NOT_NULL) {
        flt_fill_words(out, n, first, true);
        return;
    }
    bool eq = t->op == FLT_OP_EQ && dom != FLT_DOM_SDEC;
    bool pre = t->op == FLT_OP_PREFIX;
    const uint8_t *lb = eq || pre ? l[0].b : NULL;
    int32_t ll = eq || pre ? l[0].len : 0;
#define HEAD_IS_LIT (ll == 0 || memcmp(s, lb, (size_t)ll) == 0)
    if (v->type == PQ_BYTE_ARRAY) {
        if (eq) FLT_DENSE_VAR(n, VAR_AT, len == ll && HEAD_IS_LIT);
        else if (pre) FLT_DENSE_VAR(n, VAR_AT, len >= ll && HEAD_IS_LIT);
        else FLT_DENSE_VAR(n, VAR_AT, flt_match_bytes(dom, s, len, t));
    } else {
        if (eq) FLT_DENSE_VAR(n, FIX_AT, len == ll && HEAD_IS_LIT);
        else if (pre) FLT_DENSE_VAR(n, FIX_AT, len >= ll && HEAD_IS_LIT);
        else FLT_DENSE_VAR(n, FIX_AT, flt_match_bytes(dom, s, len, t));
    }
#undef HEAD_IS_LIT
}
