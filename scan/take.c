/* scan/take.c: gathering selected rows of a decoded column into an output vector. */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "scan/scan_impl.h"

/* Byte-array rows appended at dst row `at`: sizes first (one reserve), then the copies. */
static int take_bytes(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; i++) bytes += src->offsets[idx[i] + 1] - src->offsets[idx[i]];
    if (dst->data_len + bytes > INT32_MAX) return RINGSCAN_ELIMIT;
    int rc = pq_vec_reserve(dst, n, bytes);
    if (rc) return rc;
    int64_t at = dst->length;
    int32_t pos = (int32_t)dst->data_len;
    dst->offsets[at] = pos;
    for (int64_t i = 0; i < n; i++) {
        int32_t a = src->offsets[idx[i]], len = src->offsets[idx[i] + 1] - a;
        if (len > 0) memcpy(dst->data + pos, src->data + a, (size_t)len);
        pos += len;
        dst->offsets[at + i + 1] = pos;
    }
    dst->data_len = pos;
    return 0;
}

static void take_fixed(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    size_t w = (size_t)pq_fixed_width(src->type, src->type_length);
    uint8_t *base = dst->values + (size_t)dst->length * w;
    if (w == 8) {
        const uint64_t *s = (const uint64_t *)(const void *)src->values;
        uint64_t *d = (uint64_t *)(void *)base;
        for (int64_t i = 0; i < n; i++) d[i] = s[idx[i]];
    } else if (w == 4) {
        const uint32_t *s = (const uint32_t *)(const void *)src->values;
        uint32_t *d = (uint32_t *)(void *)base;
        for (int64_t i = 0; i < n; i++) d[i] = s[idx[i]];
    } else {
        for (int64_t i = 0; i < n; i++) memcpy(base + (size_t)i * w, src->values + (size_t)idx[i] * w, w);
    }
}

/* Validity of the appended rows; the first null ever back-fills ones (vec.h invariant 1). */
static void take_validity(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    if (src->null_count == 0 && dst->null_count == 0) return;
    int64_t at = dst->length, nulls = 0;
    if (dst->null_count == 0)
        for (int64_t i = 0; i < at; i++) pq_bit_set(dst->validity, i, true);
    for (int64_t i = 0; i < n; i++) {
        bool ok = src->null_count == 0 || pq_bit_get(src->validity, idx[i]);
        pq_bit_set(dst->validity, at + i, ok);
        nulls += !ok;
    }
    dst->null_count += nulls;
}

int scan_take_append(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    assert(n >= 0 && src->type == dst->type && src->type_length == dst->type_length);
    int rc = src->type == PQ_BYTE_ARRAY ? take_bytes(src, idx, n, dst) : pq_vec_reserve(dst, n, 0);
    if (rc) return rc;
    if (src->type == PQ_BOOLEAN) {
        for (int64_t i = 0; i < n; i++)
            pq_bit_set(dst->values, dst->length + i, pq_bit_get(src->values, idx[i]));
    } else if (src->type != PQ_BYTE_ARRAY) {
        take_fixed(src, idx, n, dst);
    }
    take_validity(src, idx, n, dst);
    dst->length += n;
    return 0;
}

int scan_take(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    pq_vec_init(dst, src->type, src->type_length);
    return scan_take_append(src, idx, n, dst);
}
