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

int flt_cmp_int96(const uint8_t *a, const uint8_t *b)
{
    int32_t da, db;
    int64_t na, nb;
    memcpy(&na, a, 8), memcpy(&da, a + 8, 4);
    memcpy(&nb, b, 8), memcpy(&db, b + 8, 4);
    if (da != db) return da < db ? -1 : 1;
    return (na > nb) - (na < nb);
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

/* Up to 8 bytes at data[at], zero-padded, never reading at or past data_len. */
static inline uint64_t load8(const uint8_t *data, int64_t data_len, int64_t at)
{
    uint64_t w = 0;
    memcpy(&w, data + at, (size_t)(data_len - at >= 8 ? 8 : data_len - at));
    return w;
}

/* The 8 bytes at data[at] as a word, zero-padded past data_len (0 when at is at its end): one
 * unaligned load unless the value lies among the buffer's last 8 bytes. */
static inline uint64_t word_at(const uint8_t *data, int64_t data_len, int64_t at)
{
    uint64_t w = 0;
    if (at + 8 <= data_len) memcpy(&w, data + at, 8);
    else if (data_len > at) w = load8(data, data_len, at); /* rare: the buffer's last values */
    return w;
}

/* = and LIKE 'p%' on BYTE_ARRAY with a literal of at most 8 bytes: one 8-byte load and a
 * masked compare per row, no call and no data-dependent branch (the common short-string
 * case: codes, flags, modes). */
static void dense_short_ba(const pq_vec *v, const flt_lit *l, bool prefix, uint64_t *out,
                           bool first)
{
    int64_t dl = v->data_len;
    const uint8_t *data = v->data ? v->data : (const uint8_t *)"";
    int32_t ll = l->len;
    assert(ll >= 0 && ll <= 8);
    uint64_t mask = ll == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * ll)) - 1;
    uint64_t lit = ll ? load8(l->b, ll, 0) : 0;
    FLT_DENSE_VAR(v->length, VAR_AT,
                  (prefix ? len >= ll : len == ll) & ((word_at(data, dl, s - data) & mask) == lit));
}

/* The first min(len, 8) bytes of the value at data[at] as a big-endian word, zero-padded:
 * two such words compare as the values' first 8 bytes do, and when they differ their order
 * is the values' order (a value that ends first pads with 0, below any byte the other has at
 * that place, and is the smaller value too). Never reads at or past data_len. */
static inline uint64_t head_be(const uint8_t *data, int64_t dl, int64_t at, int32_t len)
{
    uint64_t w = word_at(data, dl, at);
    if (len < 8) w &= (UINT64_C(1) << (8 * len)) - 1; /* len >= 0: bytes past the value */
    return __builtin_bswap64(w);
}

/* The order of the value s (len bytes, at s - data in a buffer of dl bytes) against literal
 * l, whose head_be is lit: -1, 0, 1. The heads decide unless they tie (rare unless the values
 * share the literal's head); then lengths (both at most 8 bytes: the heads held everything)
 * or the whole bytes. */
static inline int range_cmp(const uint8_t *data, int64_t dl, const uint8_t *s, int32_t len,
                            const flt_lit *l, uint64_t lit)
{
    uint64_t h = head_be(data, dl, s - data, len);
    int c = (h > lit) - (h < lit);
    if (__builtin_expect(c == 0, 0))
        c = len <= 8 && l->len <= 8 ? (len > l->len) - (len < l->len)
                                    : flt_cmp_bytes(s, len, l->b, l->len);
    return (c > 0) - (c < 0); /* (flt_cmp_bytes is memcmp's sign) */
}

/* <, <=, > and >= on BYTE_ARRAY (unsigned lexicographic): each row's first 8 bytes against
 * the literal's as two big-endian words, one compare and no call (range_cmp). l_comment >= 'c'
 * evaluated on a dictionary of 35,000 comments per row group of the tpchgen-written lineitem
 * (bench/RESULTS.md) called memcmp through flt_match_bytes per entry. want[c + 1]: whether a
 * row below, equal to, above the literal passes. */
static void dense_range_ba(const pq_vec *v, const flt_lit *l, const bool want[3], uint64_t *out,
                           bool first)
{
    int64_t dl = v->data_len;
    const uint8_t *data = v->data ? v->data : (const uint8_t *)"";
    assert(l->len >= 0);
    uint64_t lit = head_be(l->b ? l->b : (const uint8_t *)"", l->len, 0, l->len);
    FLT_DENSE_VAR(v->length, VAR_AT, want[range_cmp(data, dl, s, len, l, lit) + 1]);
}

/* Whether t is [NOT] LIKE '%text%' (case-sensitive, no `_` or inner `%`): *needle, *n. */
static bool like_contains(const flt_term *t, const uint8_t **needle, int32_t *n)
{
    if ((t->op != FLT_OP_LIKE && t->op != FLT_OP_NOT_LIKE) || t->icase) return false;
    const flt_lit *pk = &t->lits[2];
    int32_t m = pk->len;
    if (m < 3 || pk->b[0] != FLT_LIKE_ANY || pk->b[m - 1] != FLT_LIKE_ANY) return false;
    for (int32_t i = 1; i < m - 1; i++)
        if (pk->b[i] != FLT_LIKE_CHAR) return false;
    *needle = t->lits[1].b + 1, *n = m - 2;
    return true;
}

/* out word w of the rows' bits b (negated for NOT LIKE, tail cleared). */
static void put_word(uint64_t *out, int64_t n, int64_t w, uint64_t b, bool neg, bool first)
{
    if (neg) b = ~b;
    if (w == flt_mask_nwords(n) - 1) b &= flt_mask_tail(n);
    out[w] = first ? b : out[w] | b;
}

/* [NOT] LIKE '%text%' over a BYTE_ARRAY vector: one memmem over the whole data buffer from
 * hit to hit (values are contiguous), each hit mapped to its row by walking the offsets
 * forward; a hit that crosses into the next value is no match, and the search goes on one
 * byte later. A row that matched is skipped to its end. Calls per hit, not per row. */
static void dense_contains(const pq_vec *v, const uint8_t *needle, int32_t nlen, bool neg,
                           uint64_t *out, bool first)
{
    int64_t n = v->length, row = 0, w = 0;
    const int32_t *off = v->offsets;
    const uint8_t *data = v->data ? v->data : (const uint8_t *)"";
    int64_t at = n ? off[0] : 0, end = n ? off[n] : 0;
    uint64_t acc = 0;
    while (at < end) {
        const uint8_t *hit = memmem(data + at, (size_t)(end - at), needle, (size_t)nlen);
        if (!hit) break;
        int64_t p = hit - data;
        while (off[row + 1] <= p) row++; /* the value holding byte p (p < end = off[n]) */
        if (p + nlen > off[row + 1]) { /* crosses into the next value */
            at = p + 1;
            continue;
        }
        for (; w < row >> 6; w++) put_word(out, n, w, acc, neg, first), acc = 0;
        acc |= UINT64_C(1) << (row & 63);
        at = off[row + 1];
    }
    for (; w < flt_mask_nwords(n); w++) put_word(out, n, w, acc, neg, first), acc = 0;
}

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
    const uint8_t *needle;
    int32_t nlen;
    if (v->type == PQ_BYTE_ARRAY && like_contains(t, &needle, &nlen)) {
        dense_contains(v, needle, nlen, t->op == FLT_OP_NOT_LIKE, out, first);
        return;
    }
    bool eq = t->op == FLT_OP_EQ && dom != FLT_DOM_SDEC;
    bool pre = t->op == FLT_OP_PREFIX;
    const uint8_t *lb = eq || pre ? l[0].b : NULL;
    int32_t ll = eq || pre ? l[0].len : 0;
#define HEAD_IS_LIT (ll == 0 || memcmp(s, lb, (size_t)ll) == 0)
    flt_op op = t->op;
    bool range = op == FLT_OP_LT || op == FLT_OP_LE || op == FLT_OP_GT || op == FLT_OP_GE;
    if (v->type == PQ_BYTE_ARRAY && (eq || pre) && ll <= 8) {
        dense_short_ba(v, &l[0], pre, out, first);
    } else if (v->type == PQ_BYTE_ARRAY && range && dom == FLT_DOM_BYTES) {
        const bool want[3] = {op == FLT_OP_LT || op == FLT_OP_LE,
                              op == FLT_OP_LE || op == FLT_OP_GE,
                              op == FLT_OP_GT || op == FLT_OP_GE};
        dense_range_ba(v, &l[0], want, out, first);
    } else if (v->type == PQ_BYTE_ARRAY) {
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
