/* libFuzzer target: PLAIN decoders for every physical type. Input: [0] type (0..7), [1] FLBA
 * width (1..64), [2..3] count (<= 4096), [4] bit offset for BOOLEAN, rest = page data.
 * A successful decode is PLAIN-encoded again and must equal the bytes consumed; the
 * selected-rows decoder must agree with it (check_select). */
#include <stdlib.h>
#include <string.h>

#include "format/encoding.h"

/* pq_plain_select_fixed over every step-th row (step 1..8 from the input) fails exactly when
 * the whole decode (rc) failed, and otherwise gives those rows of the decoded vector v. */
static void check_select(pq_physical t, int32_t tl, const uint8_t *buf, size_t len, int64_t n,
                         int rc, const pq_vec *v, uint8_t seed)
{
    static uint32_t sel[4097];
    int64_t step = seed % 8 + 1, nsel = 0;
    for (int64_t i = 0; i < n; i += step) sel[nsel++] = (uint32_t)i;
    pq_vec s;
    pq_vec_init(&s, t, tl);
    pq_err e = {0};
    int src = pq_plain_select_fixed(buf, len, n, sel, nsel, &s, &e);
    if ((src == 0) != (rc == 0) || (src != 0 && e.msg[0] == 0)) abort();
    size_t w = (size_t)pq_fixed_width(t, tl);
    if (src == 0 && s.length != nsel) abort();
    for (int64_t k = 0; src == 0 && k < nsel; k++)
        if (memcmp(s.values + (size_t)k * w, v->values + (size_t)sel[k] * w, w) != 0) abort();
    pq_vec_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5) return 0;
    pq_physical t = (pq_physical)(data[0] % 8);
    int32_t tl = data[1] % 64 + 1;
    int64_t n = (data[2] | data[3] << 8) % 4097;
    int bit_off = data[4] % 8;
    const uint8_t *buf = data + 5;
    size_t len = size - 5;
    pq_vec v;
    pq_vec_init(&v, t, tl);
    pq_err e = {0};
    size_t used = 0;
    int rc;
    if (t == PQ_BOOLEAN) {
        rc = pq_plain_decode_bool(buf, len, bit_off, n, &v, &used, &e);
        if (rc == 0 && ((used + 7) / 8 > len || v.length != n)) abort();
        if (rc == 0)
            for (int64_t i = 0; i < n; i++)
                if (pq_bit_get(v.values, i) != pq_bit_get(buf, bit_off + i)) abort();
    } else {
        rc = pq_plain_decode(buf, len, n, &v, &used, &e);
        if (rc == 0) {
            if (used > len || v.length != n) abort();
            pq_buf b = {0};
            if (pq_plain_encode(&b, &v, 0, n, false) == 0 &&
                (b.len != used || (used && memcmp(b.data, buf, used) != 0)))
                abort();
            pq_buf_free(&b);
        }
    }
    if (rc != 0 && e.msg[0] == 0) abort(); /* every error says why */
    if (t != PQ_BOOLEAN && t != PQ_BYTE_ARRAY) check_select(t, tl, buf, len, n, rc, &v, data[4]);
    pq_vec_free(&v);
    return 0;
}
