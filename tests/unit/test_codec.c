/* tests for format/codec.c: round trips, multi-member gzip, Hadoop-framed lz4, size mismatches
 * in both directions, decompression bombs, truncation at many cut points, brotli, crc32. */
#include <brotli/encode.h>
#include <pthread.h>
#include <sys/resource.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "check.h"
#include "format/codec.h"

static const int writable[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP, PQ_CODEC_ZSTD,
                               PQ_CODEC_LZ4_RAW};
#define NWRITABLE (int)(sizeof writable / sizeof writable[0])

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* kind 0: random bytes; 1: repetitive (short words from a small alphabet); 2: mixed */
static uint8_t *make_data(size_t n, uint64_t seed, int kind)
{
    uint8_t *p = malloc(n ? n : 1);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next(&s);
        int k = kind == 2 ? (int)((i / 1000) % 2) : kind;
        p[i] = k == 0 ? (uint8_t)r : (uint8_t)("abcabcabd  xyz"[(i + (r % 64 == 0)) % 14]);
    }
    return p;
}

/* Compresses with pq_compress into an exactly-sized heap buffer (so ASan sees overreads). */
static uint8_t *compress_exact(int codec, const uint8_t *src, size_t n, size_t *len)
{
    size_t cap = pq_compress_bound(codec, n);
    uint8_t *tmp = malloc(cap ? cap : 1);
    pq_err e = {0};
    int rc = pq_compress(codec, src, n, tmp, cap, len, 0, &e);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  compress codec %d: %s\n", codec, e.msg);
    uint8_t *out = malloc(*len ? *len : 1);
    memcpy(out, tmp, *len);
    free(tmp);
    return out;
}

/* Decompresses into an exactly-sized heap buffer and compares with want. */
static int decompress_check(int codec, const uint8_t *c, size_t clen, const uint8_t *want, size_t n)
{
    uint8_t *dst = malloc(n ? n : 1);
    pq_err e = {0};
    int rc = pq_decompress(codec, c, clen, dst, n, &e);
    if (rc) fprintf(stderr, "  decompress codec %d (%zu -> %zu): %s\n", codec, clen, n, e.msg);
    int same = rc == 0 && (n == 0 || memcmp(dst, want, n) == 0);
    free(dst);
    return same;
}

static void round_trips(void)
{
    static const size_t sizes[] = {0, 1, 7, 100, 4096, 65543, 1 << 20};
    for (int ci = 0; ci < NWRITABLE; ci++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (int kind = 0; kind < 3; kind++) {
                int codec = writable[ci];
                size_t n = sizes[si], clen = 0;
                uint8_t *src = make_data(n, 1000 + si * 7 + (size_t)kind, kind);
                uint8_t *c = compress_exact(codec, src, n, &clen);
                CHECK(decompress_check(codec, c, clen, src, n));
                if (kind == 1 && n >= 4096 && codec != PQ_CODEC_UNCOMPRESSED) CHECK(clen < n / 2);
                if (codec == PQ_CODEC_LZ4_RAW) /* codec 5 falls back to a raw block */
                    CHECK(decompress_check(PQ_CODEC_LZ4, c, clen, src, n));
                free(c);
                free(src);
            }
        }
    }
}

static void compress_levels_and_small_buffer(void)
{
    size_t n = 50000, clen = 0;
    uint8_t *src = make_data(n, 5, 2), dst[64];
    for (int level = 1; level <= 19; level += 6) {
        size_t cap = pq_compress_bound(PQ_CODEC_ZSTD, n);
        uint8_t *c = malloc(cap);
        CHECK(pq_compress(PQ_CODEC_ZSTD, src, n, c, cap, &clen, level, NULL) == 0);
        CHECK(decompress_check(PQ_CODEC_ZSTD, c, clen, src, n));
        CHECK(pq_compress(PQ_CODEC_GZIP, src, n, c, cap, &clen, level % 10, NULL) == 0);
        CHECK(decompress_check(PQ_CODEC_GZIP, c, clen, src, n));
        free(c);
    }
    for (int ci = 0; ci < NWRITABLE; ci++) {
        pq_err e = {0};
        CHECK_EQ_I64(pq_compress(writable[ci], src, n, dst, sizeof dst, &clen, 0, &e),
                     RINGSCAN_ELIMIT);
    }
    pq_err e = {0};
    CHECK_EQ_I64(pq_compress(PQ_CODEC_BROTLI, src, n, dst, sizeof dst, &clen, 0, &e),
                 RINGSCAN_EUNSUPPORTED);
    CHECK(pq_compress_bound(PQ_CODEC_LZO, 10) == 0);
    free(src);
}

static void compress_into_pq_buf(void)
{
    pq_buf b = {0};
    size_t n = 30000;
    uint8_t *src = make_data(n, 21, 2);
    CHECK(pq_compress_buf(PQ_CODEC_ZSTD, src, n, &b, 0, NULL) == 0);
    size_t first = b.len;
    CHECK(first > 0 && first < n);
    CHECK(pq_compress_buf(PQ_CODEC_SNAPPY, src, n, &b, 0, NULL) == 0);
    CHECK(b.len > first && b.len <= b.cap);
    CHECK(decompress_check(PQ_CODEC_ZSTD, b.data, first, src, n));
    CHECK(decompress_check(PQ_CODEC_SNAPPY, b.data + first, b.len - first, src, n));
    pq_err e = {0};
    size_t len = b.len;
    CHECK_EQ_I64(pq_compress_buf(PQ_CODEC_LZO, src, n, &b, 0, &e), RINGSCAN_EUNSUPPORTED);
    CHECK(b.len == len);
    free(b.data);
    pq_buf empty = {0}; /* an empty uncompressed page into an unallocated buffer */
    CHECK(pq_compress_buf(PQ_CODEC_UNCOMPRESSED, NULL, 0, &empty, 0, NULL) == 0);
    CHECK(empty.len == 0);
    free(empty.data); /* pq_buf_free lives in format/thrift.c, not linked here */
    free(src);
}

static void gzip_members_and_zlib(void)
{
    size_t n[3] = {10000, 1, 33333}, total = n[0] + n[1] + n[2], pos = 0, clen[3];
    uint8_t *src = make_data(total, 77, 2),
            *cat = malloc(3 * pq_compress_bound(PQ_CODEC_GZIP, total));
    for (int m = 0; m < 3; m++) {
        uint8_t *c = compress_exact(PQ_CODEC_GZIP,
                                    src + (m == 0   ? 0
                                           : m == 1 ? n[0]
                                                    : n[0] + n[1]),
                                    n[m], &clen[m]);
        memcpy(cat + pos, c, clen[m]);
        pos += clen[m];
        free(c);
    }
    CHECK(decompress_check(PQ_CODEC_GZIP, cat, pos, src, total));
    /* a cut exactly at a member boundary decodes fine but is too short */
    pq_err e = {0};
    uint8_t *dst = malloc(total);
    CHECK_EQ_I64(pq_decompress(PQ_CODEC_GZIP, cat, clen[0], dst, total, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "decompressed 10000 bytes, page header says 43334") != NULL);
    /* trailing garbage after the last member */
    cat[pos] = 0x42;
    CHECK_EQ_I64(pq_decompress(PQ_CODEC_GZIP, cat, pos + 1, dst, total, NULL), RINGSCAN_EFORMAT);
    /* a zlib-wrapped page */
    uLongf zl = compressBound(total);
    uint8_t *z = malloc(zl);
    CHECK(compress2(z, &zl, src, total, 6) == Z_OK);
    CHECK(decompress_check(PQ_CODEC_GZIP, z, zl, src, total));
    free(z);
    free(dst);
    free(cat);
    free(src);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8),
    p[3] = (uint8_t)v;
}

/* Builds Hadoop lz4: frames of [BE U][BE C][block] (chunks_per_frame blocks per frame). */
static size_t build_hadoop(const uint8_t *src, size_t n, int frames, int chunks, uint8_t *out)
{
    size_t pos = 0, in = 0;
    for (int f = 0; f < frames; f++) {
        size_t fl = f == frames - 1 ? n - in : n / (size_t)frames;
        put_be32(out + pos, (uint32_t)fl);
        pos += 4;
        for (int k = 0, done = 0; k < chunks; k++) {
            int cl = k == chunks - 1 ? (int)fl - done : (int)fl / chunks;
            size_t clen = 0;
            uint8_t *c = compress_exact(PQ_CODEC_LZ4_RAW, src + in, (size_t)cl, &clen);
            put_be32(out + pos, (uint32_t)clen);
            memcpy(out + pos + 4, c, clen);
            pos += 4 + clen;
            in += (size_t)cl;
            done += cl;
            free(c);
        }
    }
    CHECK(in == n);
    return pos;
}

static void lz4_hadoop_frames(void)
{
    size_t n = 100000;
    uint8_t *src = make_data(n, 9, 2), *buf = malloc(2 * n + 1000), *dst = malloc(n);
    for (int frames = 1; frames <= 4; frames++) {
        for (int chunks = 1; chunks <= 2; chunks++) {
            size_t len = build_hadoop(src, n, frames, chunks, buf);
            uint8_t *exact = malloc(len);
            memcpy(exact, buf, len);
            CHECK(decompress_check(PQ_CODEC_LZ4, exact, len, src, n));
            CHECK_EQ_I64(pq_decompress(PQ_CODEC_LZ4_RAW, exact, len, dst, n, NULL),
                         RINGSCAN_EFORMAT);
            free(exact);
        }
    }
    pq_err e = {0};
    size_t len = build_hadoop(src, n, 3, 1, buf);
    CHECK_EQ_I64(pq_decompress(PQ_CODEC_LZ4, buf, len, dst, n - 1, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "page header says 99999") != NULL);
    free(dst);
    free(buf);
    free(src);
}

static size_t brotli_compress(const uint8_t *src, size_t n, uint8_t **out)
{
    size_t cap = BrotliEncoderMaxCompressedSize(n) + 16;
    *out = malloc(cap);
    CHECK(BrotliEncoderCompress(5, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, n, src, &cap, *out));
    return cap;
}

static void brotli_round_trip(void)
{
    for (int kind = 0; kind < 3; kind++) {
        size_t n = 70000;
        uint8_t *src = make_data(n, 31 + (uint64_t)kind, kind), *c = NULL;
        size_t clen = brotli_compress(src, n, &c);
        CHECK(decompress_check(PQ_CODEC_BROTLI, c, clen, src, n));
        free(c);
        free(src);
    }
}

/* Compressed form of `src` for any readable codec (brotli via the encoder library, codec 5
 * as a raw lz4 block). */
static uint8_t *compress_any(int codec, const uint8_t *src, size_t n, size_t *len)
{
    if (codec == PQ_CODEC_BROTLI) {
        uint8_t *c = NULL;
        *len = brotli_compress(src, n, &c);
        return c;
    }
    return compress_exact(codec == PQ_CODEC_LZ4 ? PQ_CODEC_LZ4_RAW : codec, src, n, len);
}

static const int readable[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP,
                               PQ_CODEC_BROTLI,       PQ_CODEC_LZ4,    PQ_CODEC_ZSTD,
                               PQ_CODEC_LZ4_RAW};
#define NREADABLE (int)(sizeof readable / sizeof readable[0])

static void wrong_declared_size(void)
{
    size_t n = 20000;
    uint8_t *src = make_data(n, 3, 2);
    for (int ci = 0; ci < NREADABLE; ci++) {
        int codec = readable[ci];
        size_t clen = 0;
        uint8_t *c = compress_any(codec, src, n, &clen);
        for (int d = -1; d <= 1; d += 2) {
            size_t want = n + (size_t)(ptrdiff_t)d;
            uint8_t *dst = malloc(want);
            pq_err e = {0};
            int rc = pq_decompress(codec, c, clen, dst, want, &e);
            CHECK_EQ_I64(rc, RINGSCAN_EFORMAT);
            CHECK_EQ_I64(e.status, RINGSCAN_EFORMAT);
            char say[64];
            snprintf(say, sizeof say, "page header says %zu", want);
            if (!strstr(e.msg, say)) fprintf(stderr, "  codec %d: \"%s\"\n", codec, e.msg);
            CHECK(strstr(e.msg, say) != NULL);
            if (d > 0 && codec != PQ_CODEC_LZ4 && codec != PQ_CODEC_LZ4_RAW)
                CHECK(strstr(e.msg, "decompressed 20000 bytes") != NULL);
            free(dst);
        }
        free(c);
    }
    free(src);
}

static long maxrss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* 64 MiB of zeros as one zstd frame, built with a 1 MiB buffer; content size optional. */
static uint8_t *zstd_bomb(int with_size, size_t *len)
{
    size_t chunk = 1 << 20, cap = 1 << 20;
    uint8_t *zeros = calloc(1, chunk), *out = malloc(cap);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, with_size);
    if (with_size) ZSTD_CCtx_setPledgedSrcSize(cc, 64ull << 20);
    ZSTD_outBuffer ob = {out, cap, 0};
    for (int i = 0; i < 64; i++) {
        ZSTD_inBuffer ib = {zeros, chunk, 0};
        ZSTD_EndDirective end = i == 63 ? ZSTD_e_end : ZSTD_e_continue;
        size_t r;
        do
            r = ZSTD_compressStream2(cc, &ob, &ib, end);
        while (!ZSTD_isError(r) && (ib.pos < ib.size || (end == ZSTD_e_end && r != 0)));
        CHECK(!ZSTD_isError(r));
    }
    ZSTD_freeCCtx(cc);
    free(zeros);
    *len = ob.pos;
    return out;
}

/* Bombs expand to 16-64 MiB; decoding them into 4 KiB must fail and must not allocate in
 * proportion (brotli's ring buffer is bounded by its window, 4 MiB here, at most 16 MiB). */
static void bombs(void)
{
    size_t dst_len = 4096, zlen[2] = {0, 0}, n = 16 << 20, glen = 0, blen = 0;
    uint8_t *dst = malloc(dst_len), *zb[2], *zeros = calloc(1, n), *c = NULL;
    for (int with_size = 0; with_size <= 1; with_size++) {
        zb[with_size] = zstd_bomb(with_size, &zlen[with_size]);
        CHECK(zlen[with_size] < 64 * 1024);
    }
    uint8_t *g = compress_exact(PQ_CODEC_GZIP, zeros, n, &glen);
    blen = brotli_compress(zeros, n, &c);
    free(zeros);
    long rss0 = maxrss_kib();
    pq_err e = {0};
    for (int with_size = 0; with_size <= 1; with_size++) {
        CHECK_EQ_I64(pq_decompress(PQ_CODEC_ZSTD, zb[with_size], zlen[with_size], dst, dst_len, &e),
                     RINGSCAN_EFORMAT);
        CHECK(strstr(e.msg, "ZSTD: decompressed more than 4096 bytes") != NULL);
        free(zb[with_size]);
    }
    CHECK_EQ_I64(pq_decompress(PQ_CODEC_GZIP, g, glen, dst, dst_len, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "GZIP: decompressed more than 4096") != NULL);
    CHECK_EQ_I64(pq_decompress(PQ_CODEC_BROTLI, c, blen, dst, dst_len, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "BROTLI: decompressed more than 4096") != NULL);
    long grown = maxrss_kib() - rss0;
    if (grown >= 8 * 1024) fprintf(stderr, "  bombs grew max RSS by %ld KiB\n", grown);
    CHECK(grown < 8 * 1024); /* far below the 16-64 MiB the bombs expand to */
    free(g);
    free(c);
    free(dst);
}

static void truncated_inputs(void)
{
    size_t n = 30000;
    uint8_t *src = make_data(n, 11, 2), *dst = malloc(n);
    for (int ci = 0; ci < NREADABLE; ci++) {
        int codec = readable[ci], failures = 0;
        size_t clen = 0;
        uint8_t *c = compress_any(codec, src, n, &clen);
        size_t step = clen / 150 + 1;
        for (size_t cut = 0; cut < clen; cut += (cut + 8 >= clen ? 1 : step)) {
            uint8_t *part = malloc(cut ? cut : 1);
            memcpy(part, c, cut);
            pq_err e = {0};
            int rc = pq_decompress(codec, cut ? part : NULL, cut, dst, n, &e);
            failures += rc != 0;
            CHECK(rc != 0);
            CHECK(rc != 0 && e.status == rc && e.msg[0] != 0);
            free(part);
        }
        CHECK(failures > 0);
        free(c);
    }
    free(dst);
    free(src);
}

static void unsupported_and_edges(void)
{
    pq_err e = {0};
    uint8_t b[4] = {1, 2, 3, 4}, d[4];
    CHECK_EQ_I64(pq_decompress(PQ_CODEC_LZO, b, 4, d, 4, &e), RINGSCAN_EUNSUPPORTED);
    CHECK_STR(e.msg, "unsupported codec LZO");
    CHECK_EQ_I64(pq_decompress(42, b, 4, d, 4, &e), RINGSCAN_EUNSUPPORTED);
    CHECK(strstr(e.msg, "42") != NULL);
    CHECK_EQ_I64(pq_decompress(-1, b, 4, d, 4, &e), RINGSCAN_EUNSUPPORTED);
    for (int ci = 0; ci < NREADABLE; ci++) /* v2 page with no data bytes */
        CHECK_EQ_I64(pq_decompress(readable[ci], NULL, 0, NULL, 0, NULL), 0);
    CHECK_EQ_I64(pq_decompress(PQ_CODEC_UNCOMPRESSED, b, 4, d, 3, &e), RINGSCAN_EFORMAT);
    CHECK_STR(e.msg, "UNCOMPRESSED: decompressed 4 bytes, page header says 3");
    CHECK_EQ_I64(pq_decompress(PQ_CODEC_SNAPPY, b, 4, d, (size_t)1 << 31, &e), RINGSCAN_ELIMIT);
    CHECK(pq_decompress(PQ_CODEC_UNCOMPRESSED, b, 4, d, 4, NULL) == 0 && memcmp(b, d, 4) == 0);
}

static void crc32_check(void)
{
    CHECK_EQ_I64(pq_crc32((const uint8_t *)"123456789", 9), 0xCBF43926u);
    CHECK_EQ_I64(pq_crc32(NULL, 0), 0);
}

static void *thread_main(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    int ok = 1;
    for (int i = 0; i < 20; i++) {
        size_t n = 5000 + (size_t)i * 100, clen = 0;
        uint8_t *src = make_data(n, seed * 100 + (uint64_t)i, 2);
        int codec = i % 2 ? PQ_CODEC_ZSTD : PQ_CODEC_GZIP;
        uint8_t *c = compress_exact(codec, src, n, &clen);
        ok &= decompress_check(codec, c, clen, src, n);
        free(c);
        free(src);
    }
    return ok ? arg : NULL;
}

static void threads_reuse_contexts(void)
{
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread_main, (void *)(i + 1));
    for (int i = 0; i < 4; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        CHECK(r != NULL);
    }
}

int main(void)
{
    RUN(round_trips);
    RUN(compress_levels_and_small_buffer);
    RUN(compress_into_pq_buf);
    RUN(gzip_members_and_zlib);
    RUN(lz4_hadoop_frames);
    RUN(brotli_round_trip);
    RUN(wrong_declared_size);
    RUN(bombs);
    RUN(truncated_inputs);
    RUN(unsupported_and_edges);
    RUN(crc32_check);
    RUN(threads_reuse_contexts);
    return CHECK_DONE("test_codec");
}
