/* filter/kernel.c: predicate kernels (contracts and invariants in kernel.h).
 *
 * Dense numeric loops are written as "64 comparisons into a byte array, then pack": the
 * compare loop has a fixed trip count and no branches, so clang vectorises it (compare,
 * narrow to bytes), and pack64 turns 8 bytes of 0/1 into 8 bits with one multiply. The
 * last partial block is evaluated on a zero-padded copy, then its tail bits are cleared.
 * Byte-array kernels are in kernel_bytes.c; both share kernel_int.h. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/kernel.h"
#include "filter/kernel_int.h"

/* ---- dense numeric --------------------------------------------------------------------- */

#define FLT_BLOCK(T, px, EXPR, bits)                                  \
    do {                                                              \
        uint8_t b_[64];                                               \
        for (int j_ = 0; j_ < 64; j_++) {                             \
            T v = (px)[j_];                                           \
            b_[j_] = (uint8_t)(EXPR);                                 \
        }                                                             \
        (bits) = flt_pack64(b_);                                      \
    } while (0)

#define FLT_DENSE(T, x, n, out, first, EXPR)                                    \
    do {                                                                        \
        int64_t nw_ = (n) >> 6, rem_ = (n) & 63;                                \
        uint64_t bits_;                                                         \
        for (int64_t w_ = 0; w_ < nw_; w_++) {                                  \
            FLT_BLOCK(T, (x) + (w_ << 6), EXPR, bits_);                         \
            (out)[w_] = (first) ? bits_ : ((out)[w_] | bits_);                  \
        }                                                                       \
        if (rem_) {                                                             \
            T tail_[64];                                                        \
            memset(tail_, 0, sizeof tail_);                                     \
            memcpy(tail_, (x) + (nw_ << 6), (size_t)rem_ * sizeof(T));          \
            FLT_BLOCK(T, tail_, EXPR, bits_);                                   \
            bits_ &= flt_mask_tail(n);                                          \
            (out)[nw_] = (first) ? bits_ : ((out)[nw_] | bits_);                \
        }                                                                       \
    } while (0)

/* NOT IN: per 64-row block, the AND of `v != a` over the list (NaN passes: kernel.h 2). */
#define FLT_DEFINE_NOT_IN(NAME, T, L, GET)                                                  \
    static void NAME(const T *x, int64_t n, const flt_term *t, uint64_t *out, bool first)  \
    {                                                                                       \
        int64_t nw = flt_mask_nwords(n);                                                    \
        for (int64_t w = 0; w < nw; w++) {                                                  \
            T blk[64];                                                                      \
            int64_t m = n - (w << 6) < 64 ? n - (w << 6) : 64;                              \
            memset(blk, 0, sizeof blk);                                                     \
            memcpy(blk, x + (w << 6), (size_t)m * sizeof(T));                               \
            uint64_t acc = m < 64 ? flt_mask_tail(n) : ~UINT64_C(0), bits;                  \
            for (int32_t i = 0; i < t->nlits && acc; i++) {                                 \
                L a = (L)t->lits[i].GET;                                                    \
                FLT_BLOCK(T, blk, v != a, bits);                                            \
                acc &= bits;                                                                \
            }                                                                               \
            if (t->nan) { /* (NaN is in the list: its rows fail) */                         \
                FLT_BLOCK(T, blk, v == v, bits);                                            \
                acc &= bits;                                                                \
            }                                                                               \
            out[w] = first ? acc : out[w] | acc;                                            \
        }                                                                                   \
    }

/* One dense function per value type: T the stored type, L the literal type, GET the field.
 * `v != v` is NaN's test (always false for integers; kernel.h invariant 2). */
#define FLT_DEFINE_DENSE(NAME, T, L, GET)                                                   \
    FLT_DEFINE_NOT_IN(NAME##_not_in, T, L, GET)                                             \
    static void NAME(const T *x, int64_t n, const flt_term *t, uint64_t *out, bool first)  \
    {                                                                                       \
        const flt_lit *l = t->lits;                                                         \
        switch (t->op) {                                                                    \
        case FLT_OP_EQ: { L a = (L)l[0].GET; FLT_DENSE(T, x, n, out, first, v == a); break; } \
        case FLT_OP_NE: { L a = (L)l[0].GET; FLT_DENSE(T, x, n, out, first, v != a); break; } \
        case FLT_OP_LT: { L a = (L)l[0].GET; FLT_DENSE(T, x, n, out, first, v < a); break; }  \
        case FLT_OP_LE: { L a = (L)l[0].GET; FLT_DENSE(T, x, n, out, first, v <= a); break; } \
        case FLT_OP_GT: {                                                                   \
            L a = (L)l[0].GET;                                                              \
            FLT_DENSE(T, x, n, out, first, (v > a) | (v != v));                             \
            break;                                                                          \
        }                                                                                   \
        case FLT_OP_GE: {                                                                   \
            L a = (L)l[0].GET;                                                              \
            FLT_DENSE(T, x, n, out, first, (v >= a) | (v != v));                            \
            break;                                                                          \
        }                                                                                   \
        case FLT_OP_BETWEEN: {                                                              \
            L a = (L)l[0].GET, b = (L)l[1].GET;                                             \
            FLT_DENSE(T, x, n, out, first, (v >= a) & (v <= b));                            \
            break;                                                                          \
        }                                                                                   \
        case FLT_OP_IN:                                                                     \
            for (int32_t i = 0; i < t->nlits; i++) {                                        \
                L a = (L)l[i].GET;                                                          \
                FLT_DENSE(T, x, n, out, first && i == 0, v == a);                           \
            }                                                                               \
            if (t->nlits == 0) flt_fill_words(out, n, first, false);                        \
            if (t->nan) FLT_DENSE(T, x, n, out, false, v != v); /* (NaN rows: expr.h 5) */  \
            break;                                                                          \
        case FLT_OP_NOT_IN: NAME##_not_in(x, n, t, out, first); break;                      \
        case FLT_OP_IS_NOT_NULL: flt_fill_words(out, n, first, true); break;                \
        default: flt_fill_words(out, n, first, false); break; /* FALSE, IS NULL, LIKE */    \
        }                                                                                   \
    }

FLT_DEFINE_DENSE(dense_i32, int32_t, int32_t, i)
FLT_DEFINE_DENSE(dense_u32, uint32_t, uint32_t, i)
FLT_DEFINE_DENSE(dense_i64, int64_t, int64_t, i)
FLT_DEFINE_DENSE(dense_u64, uint64_t, uint64_t, i)
FLT_DEFINE_DENSE(dense_f32, float, double, f)
FLT_DEFINE_DENSE(dense_f64, double, double, f)

void flt_fill_words(uint64_t *out, int64_t n, bool first, bool value)
{
    int64_t nw = flt_mask_nwords(n);
    if (nw == 0) return; /* an empty dictionary's mask may have no words (out NULL) */
    if (!value) {
        if (first) memset(out, 0, (size_t)nw * 8);
        return;
    }
    memset(out, 0xff, (size_t)nw * 8);
    if (nw) out[nw - 1] &= flt_mask_tail(n);
}

/* BOOLEAN: a term is a truth table over {false, true}; word = t1 ? v : 0 | t0 ? ~v : 0. */
static void dense_bool(const uint8_t *bits, int64_t n, const flt_term *t, uint64_t *out,
                       bool first)
{
    bool t0 = flt_match_i64(0, t), t1 = flt_match_i64(1, t);
    int64_t nw = flt_mask_nwords(n);
    for (int64_t w = 0; w < nw; w++) {
        uint64_t v = flt_load_word(bits, n, w);
        uint64_t r = ((t1 ? v : 0) | (t0 ? ~v : 0)) & (w == nw - 1 ? flt_mask_tail(n) : ~0ull);
        out[w] = first ? r : out[w] | r;
    }
}

/* OR of the value terms of p (IS NULL terms contribute nothing) into out[0..nwords(n)). */
static void dense_terms(const flt_pred *p, const flt_term *terms, const pq_vec *v,
                        uint64_t *out)
{
    int64_t n = v->length;
    for (int32_t k = 0; k < p->nterms; k++) {
        const flt_term *t = &terms[k];
        bool first = k == 0;
        switch (p->dom) {
        case FLT_DOM_BOOL: dense_bool(v->values, n, t, out, first); break;
        case FLT_DOM_I32: dense_i32((const int32_t *)v->values, n, t, out, first); break;
        case FLT_DOM_U32: dense_u32((const uint32_t *)v->values, n, t, out, first); break;
        case FLT_DOM_I64: dense_i64((const int64_t *)v->values, n, t, out, first); break;
        case FLT_DOM_U64: dense_u64((const uint64_t *)v->values, n, t, out, first); break;
        case FLT_DOM_F32: dense_f32((const float *)v->values, n, t, out, first); break;
        case FLT_DOM_F64: dense_f64((const double *)v->values, n, t, out, first); break;
        default: flt_dense_bytes(p->dom, v, t, out, first); break;
        }
    }
}

/* ---- sparse: only rows set in sel ------------------------------------------------------ */

/* Rows of sel (in & validity) one word at a time; MATCH tests row i against term k with a
 * scalar matcher. The switch on the domain runs once per call; the switch on the operator
 * inside MATCH takes the same branch for every row, so it predicts perfectly. */
#define FLT_SPARSE(MATCH)                                                   \
    do {                                                                           \
        for (int64_t w = 0; w < nw; w++) {                                         \
            uint64_t sel = (in ? in->words[w] : ~UINT64_C(0)) &                    \
                           flt_load_word(valid, n, w);                       \
            if (w == nw - 1) sel &= flt_mask_tail(n);                              \
            uint64_t r = 0;                                                        \
            while (sel) {                                                          \
                int b = __builtin_ctzll(sel);                                      \
                int64_t i = (w << 6) + b;                                          \
                bool hit = false;                                                  \
                sel &= sel - 1;                                                    \
                for (int32_t k = 0; k < nt; k++) hit |= MATCH;                     \
                r |= (uint64_t)hit << b;                                           \
            }                                                                      \
            out[w] = r;                                                            \
        }                                                                          \
    } while (0)

/* out = value terms over the rows set in in & validity (used below FLT_SPARSE_DENSITY,
 * where most words hold few bits). */
static void sparse_terms(const flt_pred *p, const flt_term *terms, const pq_vec *v,
                         const flt_mask *in, uint64_t *out)
{
    int64_t n = v->length, nw = flt_mask_nwords(n);
    int32_t nt = p->nterms;
    const uint8_t *x = v->values, *valid = flt_validity(v);
    switch (p->dom) {
    case FLT_DOM_BOOL:
        FLT_SPARSE(flt_match_i64((int64_t)pq_bit_get(x, i), &terms[k]));
        break;
    case FLT_DOM_I32:
        FLT_SPARSE(flt_match_i64((int64_t)((const int32_t *)x)[i], &terms[k]));
        break;
    case FLT_DOM_U32:
        FLT_SPARSE(flt_match_u64((uint64_t)((const uint32_t *)x)[i], &terms[k]));
        break;
    case FLT_DOM_I64: FLT_SPARSE(flt_match_i64(((const int64_t *)x)[i], &terms[k])); break;
    case FLT_DOM_U64: FLT_SPARSE(flt_match_u64(((const uint64_t *)x)[i], &terms[k])); break;
    case FLT_DOM_F32:
        FLT_SPARSE(flt_match_f64((double)((const float *)x)[i], &terms[k]));
        break;
    case FLT_DOM_F64: FLT_SPARSE(flt_match_f64(((const double *)x)[i], &terms[k])); break;
    default:
        if (v->type == PQ_BYTE_ARRAY) {
            const uint8_t *data = v->data ? v->data : (const uint8_t *)"";
            const int32_t *off = v->offsets;
            FLT_SPARSE(flt_match_bytes(p->dom, data + off[i], off[i + 1] - off[i],
                                          &terms[k]));
        } else {
            int32_t width = pq_fixed_width(v->type, v->type_length);
            FLT_SPARSE(flt_match_bytes(p->dom, x + i * width, width, &terms[k]));
        }
    }
}

/* ---- entry points ---------------------------------------------------------------------- */

static bool has_is_null(const flt_pred *p)
{
    for (int32_t k = 0; k < p->nterms; k++)
        if (p->terms[k].op == FLT_OP_IS_NULL) return true;
    return false;
}

/* out = (out & valid) | (is_null ? ~valid : 0), then & in; tail cleared. */
static void finish(flt_mask *out, const uint8_t *validity, bool is_null, const flt_mask *in)
{
    int64_t n = out->len, nw = flt_mask_nwords(n);
    for (int64_t w = 0; w < nw; w++) {
        uint64_t valid = flt_load_word(validity, n, w);
        uint64_t r = (out->words[w] & valid) | (is_null ? ~valid : 0);
        out->words[w] = r & (in ? in->words[w] : ~UINT64_C(0));
    }
    if (nw) out->words[nw - 1] &= flt_mask_tail(n);
}


/* ORs the NaN rows of a float vector into out (a dynamic predicate's keep_nan; the caller's
 * finish clears null rows). */
static void or_nan(const flt_pred *p, const pq_vec *v, uint64_t *out)
{
    for (int64_t i = 0; p->keep_nan && i < v->length; i++) {
        double x = p->dom == FLT_DOM_F32 ? (double)((const float *)v->values)[i]
                                         : ((const double *)v->values)[i];
        if (x != x) out[i >> 6] |= UINT64_C(1) << (i & 63);
    }
}

/* out = in, or every row when in is NULL (invariant 5: an unset bound keeps nulls too). */
static void pass_all(flt_mask *out, const flt_mask *in, int64_t n)
{
    if (in) memcpy(out->words, in->words, (size_t)flt_mask_nwords(n) * 8);
    else flt_mask_init(out, n, true);
}

static bool vec_matches(const flt_pred *p, const pq_vec *v)
{
    const pq_column_desc *d = p->desc;
    if (v->type != d->physical) return false;
    if (v->type == PQ_FIXED_LEN_BYTE_ARRAY && v->type_length != d->type_length) return false;
    if (v->type == PQ_BYTE_ARRAY && v->length > 0 && !v->offsets) return false;
    return v->length <= FLT_MASK_MAX_LEN;
}

int flt_eval_path(const flt_pred *p, const pq_vec *v, const flt_mask *in, flt_mask *out,
                  flt_path path)
{
    assert(p && v && out && p->nterms >= 1);
    assert(!in || in->len == v->length);
    if (!vec_matches(p, v) || (in && in->len != v->length)) return -EINVAL;
    int rc = flt_mask_init(out, v->length, false);
    if (rc) return rc;
    flt_term dt[2];
    flt_lit dl;
    const flt_term *terms = flt_dyn_terms(p, dt, &dl);
    if (!terms) {
        pass_all(out, in, v->length);
        return 0;
    }
    if (path == FLT_PATH_AUTO) {
        int64_t sel = in ? flt_mask_popcount(in) : v->length;
        path = (double)sel < FLT_SPARSE_DENSITY * (double)v->length ? FLT_PATH_SPARSE
                                                                      : FLT_PATH_DENSE;
    }
    if (path == FLT_PATH_SPARSE) sparse_terms(p, terms, v, in, out->words);
    else dense_terms(p, terms, v, out->words);
    or_nan(p, v, out->words);
    finish(out, flt_validity(v), has_is_null(p), in);
    return 0;
}

int flt_eval(const flt_pred *p, const pq_vec *v, const flt_mask *in, flt_mask *out)
{
    return flt_eval_path(p, v, in, out, FLT_PATH_AUTO);
}

/* ---- dictionary ------------------------------------------------------------------------ */

int flt_eval_dict_prepare(const flt_pred *p, const pq_vec *dict, flt_mask *dmask)
{
    assert(p && dict && dmask);
    if (!vec_matches(p, dict)) return -EINVAL;
    int rc = flt_mask_init(dmask, dict->length, false);
    if (rc) return rc;
    flt_term dt[2];
    flt_lit dl;
    const flt_term *terms = flt_dyn_terms(p, dt, &dl);
    if (!terms) {
        pass_all(dmask, NULL, dict->length);
        return 0;
    }
    dense_terms(p, terms, dict, dmask->words);
    or_nan(p, dict, dmask->words);
    finish(dmask, flt_validity(dict), false, NULL);
    return 0;
}

/* flt_eval_dict_map for a dictionary of at most 64 entries: its mask is one word, so a row's
 * bit is one shift (no load per row, vectorised). The word's bits past dlen are cleared, so an
 * out-of-range index of a null row maps to false. Returns the "index out of range on a valid
 * row" flag. */
static uint32_t map_small(uint64_t d0, uint32_t dlen, const uint32_t *idx, int64_t n,
                          const uint8_t *validity, flt_mask *out)
{
    assert(dlen > 0 && dlen <= 64);
    if (dlen < 64) d0 &= (UINT64_C(1) << dlen) - 1;
    uint32_t bad = 0;
    for (int64_t w = 0, nw = flt_mask_nwords(n); w < nw; w++) {
        uint64_t valid = flt_load_word(validity, n, w);
        int64_t base = w << 6, m = n - base < 64 ? n - base : 64;
        uint8_t b[64] = {0};
        for (int64_t j = 0; j < m; j++) {
            uint32_t x = idx[base + j];
            bad |= (uint32_t)(x >= dlen) & (uint32_t)(valid >> j);
            b[j] = (uint8_t)((d0 >> (x & 63)) & 1);
        }
        out->words[w] = flt_pack64(b);
    }
    return bad;
}

int flt_eval_dict_map(const flt_pred *p, const flt_mask *dmask, const uint32_t *idx, int64_t n,
                      const uint8_t *validity, const flt_mask *in, flt_mask *out)
{
    assert(p && dmask && (idx || n == 0) && out && n >= 0);
    if (n > FLT_MASK_MAX_LEN || (in && in->len != n)) return -EINVAL;
    int rc = flt_mask_init(out, n, false);
    if (rc) return rc;
    flt_term dt[2];
    flt_lit dl;
    bool unset_dyn = flt_dyn_terms(p, dt, &dl) == NULL; /* the terms are in dmask already */
    /* Check the indices of valid rows once (a max reduction the compiler vectorises). */
    uint32_t dlen = (uint32_t)dmask->len, bad = 0;
    int64_t nw = flt_mask_nwords(n);
    const uint64_t *dm = dmask->words;
    if (dlen > 0 && dlen <= 64) bad = map_small(dm[0], dlen, idx, n, validity, out);
    for (int64_t w = 0; dlen > 64 && w < nw; w++) {
        uint64_t valid = flt_load_word(validity, n, w);
        int64_t base = w << 6, m = n - base < 64 ? n - base : 64;
        uint8_t b[64] = {0};
        for (int64_t j = 0; j < m; j++) {
            uint32_t x = idx[base + j];
            uint32_t ok = x < dlen;
            bad |= (ok ^ 1u) & (uint32_t)(valid >> j);
            uint32_t xs = ok ? x : 0; /* never read past the dictionary mask */
            b[j] = dlen ? (uint8_t)((dm[xs >> 6] >> (xs & 63)) & 1) : 0;
        }
        out->words[w] = flt_pack64(b);
    }
    if (bad & 1) return pq_errf(NULL, RINGSCAN_EFORMAT, -1, "dictionary index out of range");
    if (unset_dyn) {
        pass_all(out, in, n);
        return 0;
    }
    finish(out, validity, has_is_null(p), in);
    return 0;
}

void flt_eval_dict_bits(const flt_pred *p, const flt_mask *in, flt_mask *out)
{
    assert(p && in && out && in->len == out->len);
    flt_term dt[2];
    flt_lit dl;
    if (flt_dyn_terms(p, dt, &dl) == NULL) pass_all(out, in, in->len);
    else finish(out, NULL, false, in);
}

int flt_eval_dict(const flt_pred *p, const pq_vec *dict, const uint32_t *idx, int64_t n,
                  const uint8_t *validity, const flt_mask *in, flt_mask *out)
{
    flt_mask dm = {0};
    int rc = flt_eval_dict_prepare(p, dict, &dm);
    if (!rc) rc = flt_eval_dict_map(p, &dm, idx, n, validity, in, out);
    flt_mask_free(&dm);
    return rc;
}
