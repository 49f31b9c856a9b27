/* libFuzzer target: RLE/bit-packed hybrid decoders (bare, v1, dictionary framing) and legacy
 * BIT_PACKED. Input: [0] bit width (0..35, > 32 exercises the error), [1] mode, [2..3] count
 * (<= 4096), [4] chunk size, rest = encoded data. A successful decode is re-encoded and
 * decoded again: the values must survive the round trip. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "format/encoding.h"

static void round_trip(const uint32_t *v, int64_t n, int bw)
{
    pq_buf b = {0};
    uint32_t *o = malloc((size_t)(n + 1) * 4);
    pq_rle_dec d;
    if (pq_rle_encode(&b, v, n, bw) == 0 && pq_rle_init(&d, b.data, b.len, bw, NULL) == 0) {
        if (pq_rle_get(&d, o, n) != 0 || memcmp(o, v, (size_t)n * 4) != 0) abort();
    }
    free(o);
    pq_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5) return 0;
    int bw = data[0] % 36, mode = data[1] % 4;
    int64_t n = (data[2] | data[3] << 8) % 4097, chunk = data[4] + 1;
    const uint8_t *buf = data + 5;
    size_t len = size - 5;
    uint32_t *out = malloc((size_t)(n + 1) * sizeof *out);
    pq_err e = {0};
    pq_rle_dec d;
    int rc;
    size_t used = 0;
    if (mode == 3) {
        rc = pq_bitpacked_msb_decode(buf, len, bw, out, n, &used, &e);
        if (rc == 0 && used > len) abort();
        free(out);
        return 0;
    }
    if (mode == 0) rc = pq_rle_init(&d, buf, len, bw, &e);
    else if (mode == 1) rc = pq_rle_init_v1(&d, buf, len, bw, &used, &e);
    else rc = pq_rle_init_dict(&d, buf, len, &e);
    int64_t got = 0;
    while (rc == 0 && got < n) {
        int64_t k = n - got < chunk ? n - got : chunk;
        int64_t r = pq_rle_next(&d, out + got, k);
        if (r < 0) rc = (int)r;
        else if (r == 0) break;
        else got += r;
        if (r > k) abort();
    }
    if (rc == 0 && d.bit_width < 32)
        for (int64_t i = 0; i < got; i++)
            if (out[i] >> d.bit_width) abort(); /* values fit the width */
    if (rc == 0 && got > 0) round_trip(out, got, (int)d.bit_width);
    free(out);
    return 0;
}
