/* libFuzzer target: BYTE_STREAM_SPLIT. Input: [0] type (FLOAT/DOUBLE/INT32/INT64/FLBA), [1]
 * FLBA width (1..16), [2] start, [3] count, [4] claim the page size (else derive the value count
 * from the length), rest = page. A successful decode is re-encoded (whole page) and compared. */
#include <stdlib.h>
#include <string.h>

#include "format/encoding.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const pq_physical types[5] = {PQ_FLOAT, PQ_DOUBLE, PQ_INT32, PQ_INT64,
                                         PQ_FIXED_LEN_BYTE_ARRAY};
    if (size < 5) return 0;
    pq_physical t = types[data[0] % 5];
    int32_t tl = data[1] % 16 + 1, w = pq_fixed_width(t, tl);
    const uint8_t *buf = data + 5;
    size_t len = size - 5;
    int64_t nv = data[4] & 1 ? (int64_t)(len / (size_t)w) : data[4] >> 1;
    int64_t start = data[2], n = data[3];
    pq_vec v;
    pq_vec_init(&v, t, tl);
    pq_err e = {0};
    int rc = pq_bss_decode(buf, len, nv, start, n, &v, &e);
    if (rc == 0 && v.length != n) abort();
    pq_vec_free(&v);
    pq_vec_init(&v, t, tl);
    if (pq_bss_decode(buf, len, nv, 0, nv, &v, &e) == 0) {
        pq_buf b = {0};
        if (pq_bss_encode(&b, &v, 0, nv) == 0 && (b.len != len || (len && memcmp(b.data, buf, len))))
            abort();
        pq_buf_free(&b);
    }
    pq_vec_free(&v);
    return 0;
}
