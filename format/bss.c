/* format/bss.c: BYTE_STREAM_SPLIT for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY
 * (any width, e.g. 2 for float16), decoder and encoder.
 *
 * Layout: for a page of N values of W bytes, stream b (0 <= b < W) holds byte b of every
 * value: buf[b * N + i] is byte b of value i. The page is exactly N * W bytes.
 *
 * Invariants:
 *  1. len == num_values * width is checked once; [start, start+n) within num_values too;
 *     the gather loops then run unchecked.
 *  2. Widths 4 and 8 have dedicated loops (the common FLOAT/DOUBLE case).
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "format/encoding.h"

static void bss_gather(const uint8_t *buf, int64_t N, int32_t w, int64_t start, int64_t n,
                       uint8_t *dst)
{
    if (w == 4) {
        const uint8_t *s0 = buf + start, *s1 = s0 + N, *s2 = s1 + N, *s3 = s2 + N;
        for (int64_t i = 0; i < n; i++) {
            dst[4 * i] = s0[i], dst[4 * i + 1] = s1[i], dst[4 * i + 2] = s2[i];
            dst[4 * i + 3] = s3[i];
        }
        return;
    }
    if (w == 8) {
        const uint8_t *s = buf + start;
        for (int64_t i = 0; i < n; i++)
            for (int b = 0; b < 8; b++) dst[8 * i + b] = s[b * N + i];
        return;
    }
    for (int32_t b = 0; b < w; b++) {
        const uint8_t *s = buf + (int64_t)b * N + start;
        for (int64_t i = 0; i < n; i++) dst[i * w + b] = s[i];
    }
}

int pq_bss_decode(const uint8_t *buf, size_t len, int64_t num_values, int64_t start, int64_t n,
                  pq_vec *out, pq_err *err)
{
    int32_t w = pq_fixed_width(out->type, out->type_length);
    if (w <= 0 || out->type == PQ_INT96)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "BYTE_STREAM_SPLIT for physical type %d",
                       (int)out->type);
    if (num_values < 0 || num_values > PQ_ENC_MAX_VALUES)
        return pq_errf(err, RINGSCAN_EFORMAT, -1, "BYTE_STREAM_SPLIT page of %lld values",
                       (long long)num_values);
    if ((uint64_t)num_values * (uint64_t)w != len)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "BYTE_STREAM_SPLIT: %lld values of %d bytes need %llu bytes, page has %zu",
                       (long long)num_values, (int)w,
                       (unsigned long long)num_values * (unsigned long long)w, len);
    if (start < 0 || n < 0 || n > num_values - start)
        return pq_errf(err, RINGSCAN_EFORMAT, -1,
                       "BYTE_STREAM_SPLIT: values %lld..%lld asked, page has %lld",
                       (long long)start, (long long)(start + n), (long long)num_values);
    if (n == 0) return 0;
    int rc = pq_vec_reserve(out, n, 0);
    if (rc) return rc;
    bss_gather(buf, num_values, w, start, n, out->values + out->length * w);
    out->length += n;
    return 0;
}

int pq_bss_encode(pq_buf *out, const pq_vec *v, int64_t start, int64_t n)
{
    int32_t w = pq_fixed_width(v->type, v->type_length);
    assert(w > 0 && start >= 0 && start + n <= v->length);
    int64_t k = 0;
    for (int64_t i = start; i < start + n; i++) k += pq_vec_is_valid(v, i);
    if (k == 0) return 0;
    int rc = pq_enc_reserve(out, (size_t)(k * w));
    if (rc) return rc;
    uint8_t *dst = out->data + out->len;
    int64_t j = 0;
    for (int64_t i = start; i < start + n; i++) {
        if (!pq_vec_is_valid(v, i)) continue;
        for (int32_t b = 0; b < w; b++) dst[(int64_t)b * k + j] = v->values[i * w + b];
        j++;
    }
    out->len += (size_t)(k * w);
    return 0;
}
