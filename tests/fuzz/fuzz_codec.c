/* fuzz target for format/codec.c.
 * Input: byte 0 picks the codec (mod 9: ids 0-7 and one unknown id), bytes 1-4 (LE) give
 * dst_len mod (1 MiB + 1), the rest is the compressed page. Checks: pq_decompress never touches
 * memory outside dst (ASan, dst is an exact heap block), its status agrees with err, and a
 * failure carries a message. Then the payload itself is compressed with every writable codec and
 * must decompress back to the same bytes (pq_compress/pq_decompress agree). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec.h"

#define FUZZ_DST_MAX ((size_t)1 << 20)

static void round_trip(int codec, const uint8_t *p, size_t n)
{
    size_t cap = pq_compress_bound(codec, n), clen = 0;
    uint8_t *c = malloc(cap ? cap : 1), *back = malloc(n ? n : 1);
    pq_err e = {0};
    if (pq_compress(codec, p, n, c, cap, &clen, 1, &e) != 0) abort();
    if (clen > cap) abort();
    if (pq_decompress(codec, c, clen, back, n, &e) != 0) abort();
    if (n && memcmp(back, p, n) != 0) abort();
    free(back);
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5) return 0;
    int codec = data[0] % 9; /* 8 = an unknown id */
    uint32_t raw = (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 |
                   (uint32_t)data[4] << 24;
    size_t dst_len = raw % (FUZZ_DST_MAX + 1);
    const uint8_t *src = data + 5;
    size_t src_len = size - 5;
    uint8_t *dst = malloc(dst_len ? dst_len : 1);
    pq_err e = {0};
    e.offset = -1;
    int rc = pq_decompress(codec, src_len ? src : NULL, src_len, dst_len ? dst : NULL, dst_len, &e);
    if (rc > 0) abort();
    if (rc != 0 && (e.status != rc || e.msg[0] == 0)) abort();
    if (rc == 0 && codec == PQ_CODEC_UNCOMPRESSED && memcmp(dst, src, dst_len) != 0) abort();
    free(dst);
    if (src_len <= 64 * 1024 && (data[0] / 9) % 4 == 0) {
        static const int writable[] = {PQ_CODEC_SNAPPY, PQ_CODEC_GZIP, PQ_CODEC_ZSTD,
                                       PQ_CODEC_LZ4_RAW};
        round_trip(writable[(data[0] / 36) % 4], src, src_len);
    }
    return 0;
}
