/* format/writer_stats.c: exact min/max/null_count statistics for the writer, per page and per
 * chunk, under each column's type-defined sort order.
 *
 * Invariants:
 *  1. min/max are PLAIN bytes of values that occur in the data (BOOLEAN as one byte 0/1), except
 *     that a floating zero is stored as -0.0 when it is the min and +0.0 when it is the max
 *     (the Parquet spec's rule, so readers never prune a zero of either sign).
 *  2. NaN never becomes a min or max; a page/chunk holding only NaNs has no min/max.
 *  3. Comparisons follow pq_cmp_kind: signed/unsigned integers, IEEE floats, unsigned
 *     lexicographic bytes (a prefix sorts first), big-endian two's complement for decimals
 *     stored as bytes (different lengths sign-extended).
 *  4. Scanning is one pass over the slice with no allocation; bytes are copied only when a
 *     slice's extreme beats the stored one.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "format/writer_priv.h"

pq_cmp_kind pq_wcmp_kind(const pq_column_desc *c)
{
    pq_logical l = c->logical;
    switch (c->physical) {
    case PQ_BOOLEAN: return PQ_CMP_BOOL;
    case PQ_INT32:
        return (l == PQ_LOGICAL_UINT8 || l == PQ_LOGICAL_UINT16 || l == PQ_LOGICAL_UINT32)
                   ? PQ_CMP_U32 : PQ_CMP_I32;
    case PQ_INT64: return l == PQ_LOGICAL_UINT64 ? PQ_CMP_U64 : PQ_CMP_I64;
    case PQ_INT96: return PQ_CMP_NONE;
    case PQ_FLOAT: return PQ_CMP_F32;
    case PQ_DOUBLE: return PQ_CMP_F64;
    case PQ_BYTE_ARRAY: return l == PQ_LOGICAL_DECIMAL ? PQ_CMP_BE_SIGNED : PQ_CMP_BYTES;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (l == PQ_LOGICAL_DECIMAL) return PQ_CMP_BE_SIGNED;
        if (l == PQ_LOGICAL_INTERVAL) return PQ_CMP_NONE;
        if (l == PQ_LOGICAL_FLOAT16 && c->type_length == 2) return PQ_CMP_F16;
        return PQ_CMP_BYTES;
    }
    return PQ_CMP_NONE;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15), exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v;
    if (exp == 0) v = ldexpf((float)mant, -24);
    else if (exp == 31) v = mant ? NAN : INFINITY;
    else v = ldexpf((float)(mant | 0x400), (int)exp - 25);
    return sign ? -v : v;
}

static int cmp_be_signed(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    bool na = an && (a[0] & 0x80), nb = bn && (b[0] & 0x80);
    if (na != nb) return na ? -1 : 1;
    uint8_t pad = na ? 0xff : 0x00;
    while (an > bn) { /* the longer one's extra leading bytes against the sign extension */
        if (*a != pad) return (*a > pad) ? 1 : -1;
        a++, an--;
    }
    while (bn > an) {
        if (*b != pad) return (pad > *b) ? 1 : -1;
        b++, bn--;
    }
    int r = an ? memcmp(a, b, an) : 0;
    return r < 0 ? -1 : r > 0;
}

int pq_wcmp(pq_cmp_kind k, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    union { int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f; double d; } x, y;
    switch (k) {
#define CMP_AS(field, width)                                                                   \
    assert(an == (width) && bn == (width));                                                    \
    memcpy(&x, a, (width));                                                                    \
    memcpy(&y, b, (width));                                                                    \
    return (x.field > y.field) - (x.field < y.field)
    case PQ_CMP_BOOL: assert(an == 1 && bn == 1); return (a[0] > b[0]) - (a[0] < b[0]);
    case PQ_CMP_I32: CMP_AS(i32, 4);
    case PQ_CMP_U32: CMP_AS(u32, 4);
    case PQ_CMP_I64: CMP_AS(i64, 8);
    case PQ_CMP_U64: CMP_AS(u64, 8);
    case PQ_CMP_F32: CMP_AS(f, 4);
    case PQ_CMP_F64: CMP_AS(d, 8);
#undef CMP_AS
    case PQ_CMP_F16: {
        assert(an == 2 && bn == 2);
        float fa = half_to_float((uint16_t)(a[0] | a[1] << 8));
        float fb = half_to_float((uint16_t)(b[0] | b[1] << 8));
        return (fa > fb) - (fa < fb);
    }
    case PQ_CMP_BYTES: {
        size_t m = an < bn ? an : bn;
        int r = m ? memcmp(a, b, m) : 0;
        if (r) return r < 0 ? -1 : 1;
        return (an > bn) - (an < bn);
    }
    case PQ_CMP_BE_SIGNED: return cmp_be_signed(a, an, b, bn);
    case PQ_CMP_NONE: break;
    }
    assert(!"no order");
    return 0;
}

void pq_wstats_reset(pq_wstats *s)
{
    s->has_min_max = false;
    s->null_count = 0;
    s->values = 0;
    s->min.len = 0;
    s->max.len = 0;
}

void pq_wstats_free(pq_wstats *s)
{
    pq_buf_free(&s->min);
    pq_buf_free(&s->max);
    memset(s, 0, sizeof *s);
}

static bool is_nan(pq_cmp_kind k, const uint8_t *p)
{
    if (k == PQ_CMP_F32) { float f; memcpy(&f, p, 4); return isnan(f); }
    if (k == PQ_CMP_F64) { double d; memcpy(&d, p, 8); return isnan(d); }
    if (k == PQ_CMP_F16) return ((p[1] & 0x7c) == 0x7c) && ((p[1] & 0x03) || p[0]);
    return false;
}

/* Invariant 1: floating zeros as -0.0 (min) / +0.0 (max). */
static void fix_zero(pq_cmp_kind k, pq_buf *b, bool is_min)
{
    size_t n = k == PQ_CMP_F32 ? 4 : k == PQ_CMP_F64 ? 8 : k == PQ_CMP_F16 ? 2 : 0;
    if (n == 0 || b->len != n) return;
    uint8_t top = b->data[n - 1] & 0x7f;
    for (size_t i = 0; i + 1 < n; i++) top |= b->data[i];
    if (top) return;
    b->data[n - 1] = is_min ? 0x80 : 0x00;
}

static int keep(pq_buf *dst, const uint8_t *p, size_t n)
{
    dst->len = 0;
    return n ? pq_buf_append(dst, p, n) : pq_enc_reserve(dst, 1);
}

/* Offers one candidate min and max to s. */
static int offer(pq_wstats *s, pq_cmp_kind k, const uint8_t *mn, size_t mnl, const uint8_t *mx,
                 size_t mxl)
{
    int rc = 0;
    if (!s->has_min_max) {
        if ((rc = keep(&s->min, mn, mnl)) || (rc = keep(&s->max, mx, mxl))) return rc;
        s->has_min_max = true;
    } else {
        if (pq_wcmp(k, mn, mnl, s->min.data, s->min.len) < 0 && (rc = keep(&s->min, mn, mnl)))
            return rc;
        if (pq_wcmp(k, mx, mxl, s->max.data, s->max.len) > 0 && (rc = keep(&s->max, mx, mxl)))
            return rc;
    }
    fix_zero(k, &s->min, true);
    fix_zero(k, &s->max, false);
    return 0;
}

/* Value i of v as PLAIN bytes (BOOLEAN: into tmp). */
static const uint8_t *value_bytes(const pq_vec *v, int64_t i, int32_t w, uint8_t *tmp, size_t *n)
{
    if (v->type == PQ_BYTE_ARRAY) {
        *n = (size_t)(v->offsets[i + 1] - v->offsets[i]);
        return v->data + v->offsets[i];
    }
    if (v->type == PQ_BOOLEAN) {
        *tmp = pq_bit_get(v->values, i);
        *n = 1;
        return tmp;
    }
    *n = (size_t)w;
    return v->values + i * w;
}

#define SCAN_NUM(T, NANCHK)                                                                    \
    do {                                                                                       \
        const T *p = (const T *)(const void *)v->values;                                      \
        for (int64_t i = start; i < start + n; i++) {                                          \
            if (!pq_vec_is_valid(v, i) || NANCHK) continue;                                    \
            if (lo < 0 || p[i] < p[lo]) lo = i;                                                \
            if (hi < 0 || p[i] > p[hi]) hi = i;                                                \
        }                                                                                      \
    } while (0)

int pq_wstats_add(pq_wstats *s, pq_cmp_kind k, const pq_vec *v, int64_t start, int64_t n)
{
    assert(start >= 0 && n >= 0 && start + n <= v->length);
    int64_t nulls = 0;
    if (v->null_count > 0)
        for (int64_t i = start; i < start + n; i++) nulls += !pq_bit_get(v->validity, i);
    s->null_count += nulls;
    s->values += n - nulls;
    if (k == PQ_CMP_NONE || nulls == n) return 0;
    int64_t lo = -1, hi = -1;
    int32_t w = pq_fixed_width(v->type, v->type_length);
    if (k == PQ_CMP_I32) SCAN_NUM(int32_t, false);
    else if (k == PQ_CMP_I64) SCAN_NUM(int64_t, false);
    else if (k == PQ_CMP_F32) SCAN_NUM(float, isnan(p[i]));
    else if (k == PQ_CMP_F64) SCAN_NUM(double, isnan(p[i]));
    else {
        uint8_t t0, t1, t2;
        size_t n0, n1, n2;
        for (int64_t i = start; i < start + n; i++) {
            if (!pq_vec_is_valid(v, i)) continue;
            const uint8_t *x = value_bytes(v, i, w, &t0, &n0);
            if (is_nan(k, x)) continue;
            if (lo < 0 || pq_wcmp(k, x, n0, value_bytes(v, lo, w, &t1, &n1), n1) < 0) lo = i;
            if (hi < 0 || pq_wcmp(k, x, n0, value_bytes(v, hi, w, &t2, &n2), n2) > 0) hi = i;
        }
    }
    if (lo < 0) return 0; /* only NaNs */
    uint8_t ta, tb;
    size_t na, nb;
    const uint8_t *a = value_bytes(v, lo, w, &ta, &na), *b = value_bytes(v, hi, w, &tb, &nb);
    return offer(s, k, a, na, b, nb);
}

int pq_wstats_merge(pq_wstats *s, pq_cmp_kind k, const pq_wstats *a)
{
    s->null_count += a->null_count;
    s->values += a->values;
    if (!a->has_min_max) return 0;
    return offer(s, k, a->min.data, a->min.len, a->max.data, a->max.len);
}

void pq_wstats_view(const pq_wstats *s, bool with_min_max, pq_stats *out)
{
    memset(out, 0, sizeof *out);
    out->has_null_count = true;
    out->null_count = s->null_count;
    if (with_min_max && s->has_min_max) {
        out->has_min_max = true;
        out->min_exact = out->max_exact = true;
        out->min = s->min.data;
        out->min_len = (uint32_t)s->min.len;
        out->max = s->max.data;
        out->max_len = (uint32_t)s->max.len;
    }
}
