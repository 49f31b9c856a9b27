/* libFuzzer target: DELTA_BINARY_PACKED (INT32/INT64), DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY (BYTE_ARRAY / FLBA). Input: [0] mode, [1] FLBA width, [2..3] max values
 * (<= 8192), [4] chunk size, rest = page data. Successful integer decodes are re-encoded and
 * must decode to the same values. */
#include <stdlib.h>
#include <string.h>

#include "format/encoding.h"

static void ints(const uint8_t *buf, size_t len, bool is32, int64_t maxv, int64_t chunk)
{
    pq_delta_dec d;
    pq_err e = {0};
    if (pq_delta_init(&d, buf, len, is32, maxv, &e) != 0) return;
    int64_t n = d.total, got = 0;
    int64_t *o = malloc((size_t)(n + 1) * 8);
    while (got < n) {
        int64_t k = pq_delta_next(&d, is32 ? (void *)((int32_t *)o + got) : (void *)(o + got), chunk);
        if (k < 0) break;
        if (k == 0 || k > chunk) abort();
        got += k;
    }
    if (got == n) {
        if (pq_delta_used(&d) > len) abort();
        pq_buf b = {0};
        int rc = is32 ? pq_delta_encode_i32(&b, (int32_t *)o, n) : pq_delta_encode_i64(&b, o, n);
        int64_t *o2 = malloc((size_t)(n + 1) * 8);
        if (rc == 0 && pq_delta_init(&d, b.data, b.len, is32, n, NULL) == 0) {
            if (pq_delta_next(&d, o2, n) != n) abort();
            if (memcmp(o, o2, (size_t)n * (is32 ? 4 : 8))) abort();
            if (pq_delta_used(&d) != b.len) abort();
        }
        free(o2);
        pq_buf_free(&b);
    }
    free(o);
}

static void bytes(const uint8_t *buf, size_t len, bool prefixed, int32_t flba, int64_t maxv,
                  int64_t chunk)
{
    pq_dba_dec d;
    pq_err e = {0};
    int rc = prefixed ? pq_dba_init(&d, buf, len, maxv, &e) : pq_dlba_init(&d, buf, len, maxv, &e);
    if (rc == 0) {
        pq_vec v;
        pq_vec_init(&v, flba ? PQ_FIXED_LEN_BYTE_ARRAY : PQ_BYTE_ARRAY, flba);
        int64_t n = pq_dba_count(&d);
        while (rc == 0 && v.length < n) {
            int64_t k = n - v.length < chunk ? n - v.length : chunk, before = v.length;
            rc = pq_dba_next(&d, k, &v);
            if (rc == 0 && v.length != before + k) abort();
            if (rc != 0 && v.length != before) abort();
        }
        if (rc == 0 && !flba && v.offsets && v.offsets[v.length] != v.data_len) abort();
        pq_vec_free(&v);
    } else if (e.msg[0] == 0) {
        abort();
    }
    pq_dba_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5) return 0;
    int mode = data[0] % 6;
    int32_t flba = data[1] % 8 + 1;
    int64_t maxv = (data[2] | data[3] << 8) % 8193, chunk = data[4] % 200 + 1;
    const uint8_t *buf = data + 5;
    size_t len = size - 5;
    switch (mode) {
    case 0: ints(buf, len, true, maxv, chunk); break;
    case 1: ints(buf, len, false, maxv, chunk); break;
    case 2: bytes(buf, len, false, 0, maxv, chunk); break;
    case 3: bytes(buf, len, true, 0, maxv, chunk); break;
    case 4: bytes(buf, len, false, flba, maxv, chunk); break;
    default: bytes(buf, len, true, flba, maxv, chunk); break;
    }
    return 0;
}
