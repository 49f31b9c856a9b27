/* format/codec.c: Parquet page codecs over snappy, zlib, lz4, zstd and brotli.
 *
 * Owns: the per-thread decompression contexts (one ZSTD_DCtx, one ZSTD_CCtx and one inflate
 * z_stream per thread, created on first use, freed by a pthread key destructor at thread exit)
 * and every check between a library's output and the page header's uncompressed size.
 *
 * Invariants (see also format/codec.h):
 *  1. Output pointers handed to a library never reach past dst + dst_len. Streaming decoders
 *     (zlib, brotli) that fill dst exactly are given one byte of scratch space to learn whether
 *     the stream had more to give; any byte written there is an overflow error. One-shot
 *     decoders (snappy, lz4, zstd) get capacity dst_len and report "too small" themselves.
 *  2. A codec function returns 0 only after checking produced == dst_len and that all input
 *     was consumed (trailing garbage is an error, except for LZ4's raw fallback, which lz4
 *     itself checks).
 *  3. zstd never streams: ZSTD_decompressDCtx decodes in one pass with dst as its window,
 *     also for frames without a content size, so a bomb allocates nothing beyond the DCtx.
 *     zlib's window is 32 KiB; brotli allocates its ring buffer, bounded by the stream's window
 *     (at most 16 MiB: large windows are not enabled), whatever the output size.
 *  4. Every loop is bounded by the input: each iteration consumes input or output or exits. */
#include "format/codec.h"
#include "common/fail.h"

#include <assert.h>
#include <brotli/decode.h>
#include <errno.h>
#include <limits.h>
#include <lz4.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

_Static_assert(PQ_CODEC_MAX_BYTES <= UINT_MAX, "zlib counts in uInt");
_Static_assert(PQ_CODEC_MAX_BYTES <= (size_t)INT_MAX, "lz4 counts in int");

typedef struct codec_tls {
    ZSTD_DCtx *zstd_d;
    ZSTD_CCtx *zstd_c;
    z_stream inflate;
    bool inflate_ready;
} codec_tls;

static pthread_key_t tls_key;
static bool tls_key_ok;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static _Thread_local codec_tls *tls_ctx;

static void tls_free(void *p)
{
    codec_tls *t = p;
    if (!t) return;
    ZSTD_freeDCtx(t->zstd_d);
    ZSTD_freeCCtx(t->zstd_c);
    if (t->inflate_ready) inflateEnd(&t->inflate);
    free(t);
}

static void tls_key_init(void)
{
    tls_key_ok = pthread_key_create(&tls_key, tls_free) == 0;
}

/* The calling thread's contexts, created on first use; NULL when out of memory. */
static codec_tls *tls_get(void)
{
    if (tls_ctx) return tls_ctx;
    pthread_once(&tls_once, tls_key_init);
    codec_tls *t = fail_calloc(1, sizeof *t);
    if (!t) return NULL;
    if (tls_key_ok) pthread_setspecific(tls_key, t);
    tls_ctx = t;
    return t;
}

/* Name for messages (meta.c's pq_codec_name takes the enum; ids here may be unknown). */
static const char *codec_label(int codec)
{
    static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                        "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
    if (codec < 0 || codec >= (int)(sizeof names / sizeof names[0])) return "UNKNOWN";
    return names[codec];
}

static int err_size(pq_err *err, int codec, size_t got, size_t want)
{
    assert(got != want);
    return pq_errf(err, RINGSCAN_EFORMAT, -1, "%s: decompressed %zu bytes, page header says %zu",
                   codec_label(codec), got, want);
}

static int err_overflow(pq_err *err, int codec, size_t want)
{
    return pq_errf(err, RINGSCAN_EFORMAT, -1,
                   "%s: decompressed more than %zu bytes, page header says %zu", codec_label(codec),
                   want, want);
}

static int err_corrupt(pq_err *err, int codec, const char *what)
{
    return pq_errf(err, RINGSCAN_EFORMAT, -1, "%s: corrupt page data: %s", codec_label(codec),
                   what ? what : "decoder error");
}

/* ---- snappy ---------------------------------------------------------------------------- */

static int snappy_dec(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pq_err *err)
{
    size_t want = 0, head = 0;
    if (pq_snappy_length(src, src_len, &want, &head))
        return err_corrupt(err, PQ_CODEC_SNAPPY, "bad length header");
    if (want != dst_len) return err_size(err, PQ_CODEC_SNAPPY, want, dst_len);
    int rc = pq_snappy_uncompress(src, src_len, dst, dst_len);
    if (rc == PQ_SNAPPY_CORRUPT)
        return err_corrupt(err, PQ_CODEC_SNAPPY, "truncated or invalid stream");
    if (rc) return err_corrupt(err, PQ_CODEC_SNAPPY, "stream ends before the stated length");
    return 0;
}

/* ---- gzip / zlib ------------------------------------------------------------------------ */

static int inflate_get(z_stream **out, pq_err *err)
{
    codec_tls *t = tls_get();
    if (!t) return pq_errf(err, -ENOMEM, -1, "GZIP: out of memory for a context");
    if (!t->inflate_ready) {
        memset(&t->inflate, 0, sizeof t->inflate);
        if (fail_point(FAIL_ALLOC) || inflateInit2(&t->inflate, 15 + 32) != Z_OK)
            return pq_errf(err, -ENOMEM, -1, "GZIP: inflateInit2 failed");
        t->inflate_ready = true;
    }
    *out = &t->inflate;
    return 0;
}

/* Inflates one gzip or zlib member starting at src[*in_pos] into dst[*out_pos, dst_len).
 * Advances both positions. Returns 0 at the member's end. */
static int gzip_member(z_stream *z, const uint8_t *src, size_t src_len, size_t *in_pos,
                       uint8_t *dst, size_t dst_len, size_t *out_pos, pq_err *err)
{
    uint8_t spill = 0;
    if (inflateReset(z) != Z_OK) return err_corrupt(err, PQ_CODEC_GZIP, "inflateReset failed");
    for (size_t iter = 0;; iter++) {
        if (iter > src_len + dst_len + 2) /* invariant 4, enforced even without asserts */
            return err_corrupt(err, PQ_CODEC_GZIP, "decoder made no progress");
        bool full = *out_pos == dst_len;
        size_t in_avail = src_len - *in_pos, out_avail = full ? 1 : dst_len - *out_pos;
        z->next_in = (Bytef *)(uintptr_t)(src + *in_pos);
        z->avail_in = (uInt)in_avail;
        z->next_out = full ? &spill : dst + *out_pos;
        z->avail_out = (uInt)out_avail;
        int zr = inflate(z, Z_NO_FLUSH);
        size_t used = in_avail - z->avail_in, made = out_avail - z->avail_out;
        *in_pos += used;
        if (full && made) return err_overflow(err, PQ_CODEC_GZIP, dst_len);
        if (!full) *out_pos += made;
        assert(*in_pos <= src_len && *out_pos <= dst_len);
        if (zr == Z_STREAM_END) return 0;
        if (zr == Z_OK && (used || made)) continue;
        if (zr == Z_OK || zr == Z_BUF_ERROR) {
            if (*in_pos == src_len) return err_corrupt(err, PQ_CODEC_GZIP, "truncated stream");
            return err_corrupt(err, PQ_CODEC_GZIP, "decoder made no progress");
        }
        if (zr == Z_MEM_ERROR) return pq_errf(err, -ENOMEM, -1, "GZIP: out of memory");
        return err_corrupt(err, PQ_CODEC_GZIP, z->msg);
    }
}

/* Several concatenated gzip (or zlib) members, as some writers produce. */
static int gzip_dec(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pq_err *err)
{
    z_stream *z = NULL;
    int rc = inflate_get(&z, err);
    if (rc) return rc;
    size_t in_pos = 0, out_pos = 0;
    for (size_t members = 0; in_pos < src_len || members == 0; members++) {
        assert(members <= src_len); /* each member consumes >= 1 byte of input */
        size_t before = in_pos;
        rc = gzip_member(z, src, src_len, &in_pos, dst, dst_len, &out_pos, err);
        if (rc) return rc;
        if (in_pos == before) return err_corrupt(err, PQ_CODEC_GZIP, "empty member");
    }
    if (out_pos != dst_len) return err_size(err, PQ_CODEC_GZIP, out_pos, dst_len);
    return 0;
}

/* ---- lz4 --------------------------------------------------------------------------------- */

/* One raw LZ4 block into exactly dst_len bytes. */
static int lz4_block(int codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                     pq_err *err)
{
    assert(src_len <= PQ_CODEC_MAX_BYTES && dst_len <= PQ_CODEC_MAX_BYTES);
    int got = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
    if (got >= 0) {
        assert((size_t)got <= dst_len);
        if ((size_t)got != dst_len) return err_size(err, codec, (size_t)got, dst_len);
        return 0;
    }
    /* Corrupt, or more output than dst_len: a partial decode that fills dst says which. */
    if (dst_len > 0) {
        int part = LZ4_decompress_safe_partial((const char *)src, (char *)dst, (int)src_len,
                                               (int)dst_len, (int)dst_len);
        if (part == (int)dst_len) return err_overflow(err, codec, dst_len);
    }
    return err_corrupt(err, codec, "invalid or truncated lz4 block");
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Hadoop framing: frames of [BE32 uncompressed size] then chunks of [BE32 compressed size]
 * [lz4 block] until the frame's uncompressed size is produced. Returns true only when the
 * whole input parses this way and produces exactly dst_len bytes. */
static bool lz4_hadoop(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    size_t in = 0, out = 0;
    if (src_len < 8) return false;
    while (in < src_len) {
        if (src_len - in < 8) return false;
        size_t frame_out = be32(src + in);
        in += 4;
        if (frame_out > dst_len - out) return false;
        size_t frame_end = out + frame_out;
        do { /* at least one chunk per frame: each consumes >= 4 input bytes */
            if (src_len - in < 4) return false;
            size_t clen = be32(src + in);
            in += 4;
            if (clen > src_len - in || clen == 0) return false;
            int got = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)clen,
                                          (int)(frame_end - out));
            if (got <= 0) return false;
            in += clen;
            out += (size_t)got;
            assert(out <= frame_end && in <= src_len);
        } while (out < frame_end);
    }
    return out == dst_len;
}

/* Sum of the frames' uncompressed sizes when src parses exactly as one-chunk Hadoop frames
 * (headers only, nothing decoded); SIZE_MAX otherwise. Used to word the error message. */
static size_t lz4_hadoop_total(const uint8_t *src, size_t src_len)
{
    size_t in = 0, total = 0;
    if (src_len < 8) return SIZE_MAX;
    while (src_len - in >= 8) {
        size_t frame_out = be32(src + in), clen = be32(src + in + 4);
        in += 8;
        if (clen > src_len - in) return SIZE_MAX;
        in += clen;
        total += frame_out; /* <= 2^32 per 8 input bytes: no overflow for src_len <= 2 GiB */
    }
    return in == src_len ? total : SIZE_MAX;
}

static int lz4_dec(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pq_err *err)
{
    if (lz4_hadoop(src, src_len, dst, dst_len)) return 0;
    int rc = lz4_block(PQ_CODEC_LZ4, src, src_len, dst, dst_len, err);
    if (rc == 0) return 0;
    size_t total = lz4_hadoop_total(src, src_len);
    if (total != SIZE_MAX && total != dst_len) {
        if (total > dst_len) return err_overflow(err, PQ_CODEC_LZ4, dst_len);
        return err_size(err, PQ_CODEC_LZ4, total, dst_len);
    }
    return rc;
}

/* ---- zstd -------------------------------------------------------------------------------- */

static int zstd_dec(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pq_err *err)
{
    codec_tls *t = tls_get();
    if (t && !t->zstd_d && !fail_point(FAIL_ALLOC)) t->zstd_d = ZSTD_createDCtx();
    if (!t || !t->zstd_d) return pq_errf(err, -ENOMEM, -1, "ZSTD: out of memory for a context");
    /* The first frame's declared size settles most mismatches without decoding (a page is
     * almost always one frame; more frames are summed by the decoder below). */
    unsigned long long declared = ZSTD_getFrameContentSize(src, src_len);
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR &&
        declared > dst_len)
        return err_overflow(err, PQ_CODEC_ZSTD, dst_len);
    size_t r = ZSTD_decompressDCtx(t->zstd_d, dst, dst_len, src, src_len);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
            return err_overflow(err, PQ_CODEC_ZSTD, dst_len);
        return err_corrupt(err, PQ_CODEC_ZSTD, ZSTD_getErrorName(r));
    }
    assert(r <= dst_len);
    if (r != dst_len) return err_size(err, PQ_CODEC_ZSTD, r, dst_len);
    return 0;
}

/* ---- brotli ------------------------------------------------------------------------------ */

static int brotli_run(BrotliDecoderState *s, const uint8_t *src, size_t src_len, uint8_t *dst,
                      size_t dst_len, pq_err *err)
{
    const uint8_t *in = src;
    size_t in_left = src_len, out_pos = 0;
    uint8_t spill = 0;
    for (size_t iter = 0;; iter++) {
        if (iter > src_len + dst_len + 2) /* invariant 4, enforced even without asserts */
            return err_corrupt(err, PQ_CODEC_BROTLI, "decoder made no progress");
        bool full = out_pos == dst_len;
        uint8_t *out = full ? &spill : dst + out_pos;
        size_t out_left = full ? 1 : dst_len - out_pos, out_before = out_left;
        size_t in_before = in_left;
        BrotliDecoderResult r =
            BrotliDecoderDecompressStream(s, &in_left, &in, &out_left, &out, NULL);
        size_t made = out_before - out_left;
        if (full && made) return err_overflow(err, PQ_CODEC_BROTLI, dst_len);
        if (!full) out_pos += made;
        assert(out_pos <= dst_len && in_left <= src_len);
        if (r == BROTLI_DECODER_RESULT_SUCCESS) {
            if (in_left) return err_corrupt(err, PQ_CODEC_BROTLI, "trailing bytes after stream");
            if (out_pos != dst_len) return err_size(err, PQ_CODEC_BROTLI, out_pos, dst_len);
            return 0;
        }
        if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT)
            return err_corrupt(err, PQ_CODEC_BROTLI, "truncated stream");
        if (r == BROTLI_DECODER_RESULT_ERROR)
            return err_corrupt(err, PQ_CODEC_BROTLI,
                               BrotliDecoderErrorString(BrotliDecoderGetErrorCode(s)));
        if (!made && in_left == in_before && !full)
            return err_corrupt(err, PQ_CODEC_BROTLI, "decoder made no progress");
    }
}

static int brotli_dec(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, pq_err *err)
{
    BrotliDecoderState *s =
        fail_point(FAIL_ALLOC) ? NULL : BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!s) return pq_errf(err, -ENOMEM, -1, "BROTLI: out of memory for a decoder");
    int rc = brotli_run(s, src, src_len, dst, dst_len, err);
    BrotliDecoderDestroyInstance(s);
    return rc;
}

/* ---- dispatch ---------------------------------------------------------------------------- */

int pq_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                  pq_err *err)
{
    static uint8_t empty[1]; /* stands in for NULL buffers of length 0; never written */
    if (codec == PQ_CODEC_LZO)
        return pq_errf(err, RINGSCAN_EUNSUPPORTED, -1, "unsupported codec LZO");
    if (codec < 0 || codec > PQ_CODEC_LZ4_RAW)
        return pq_errf(err, RINGSCAN_EUNSUPPORTED, -1, "unsupported codec id %d", codec);
    if (src_len > PQ_CODEC_MAX_BYTES || dst_len > PQ_CODEC_MAX_BYTES)
        return pq_errf(err, RINGSCAN_ELIMIT, -1, "%s: page of %zu -> %zu bytes exceeds 2 GiB",
                       codec_label(codec), src_len, dst_len);
    assert(src || src_len == 0);
    assert(dst || dst_len == 0);
    if (src_len == 0 && dst_len == 0) return 0;
    if (!src) src = empty;
    if (!dst) dst = empty; /* dst_len == 0: the libraries write nothing */
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        if (src_len != dst_len) return err_size(err, codec, src_len, dst_len);
        if (dst != src) memcpy(dst, src, dst_len);
        return 0;
    case PQ_CODEC_SNAPPY:
        return snappy_dec(src, src_len, dst, dst_len, err);
    case PQ_CODEC_GZIP:
        return gzip_dec(src, src_len, dst, dst_len, err);
    case PQ_CODEC_BROTLI:
        return brotli_dec(src, src_len, dst, dst_len, err);
    case PQ_CODEC_LZ4:
        return lz4_dec(src, src_len, dst, dst_len, err);
    case PQ_CODEC_ZSTD:
        return zstd_dec(src, src_len, dst, dst_len, err);
    case PQ_CODEC_LZ4_RAW:
        return lz4_block(codec, src, src_len, dst, dst_len, err);
    default:
        break;
    }
    assert(0 && "codec ids checked above");
    return pq_errf(err, RINGSCAN_EUNSUPPORTED, -1, "unsupported codec id %d", codec);
}

/* ---- compression ------------------------------------------------------------------------- */

size_t pq_compress_bound(int codec, size_t n)
{
    if (n > PQ_CODEC_MAX_BYTES) return 0;
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        return n;
    case PQ_CODEC_SNAPPY:
        return snappy_max_compressed_length(n);
    case PQ_CODEC_GZIP:
        return (size_t)compressBound((uLong)n) + 32; /* gzip header/trailer */
    case PQ_CODEC_ZSTD:
        return ZSTD_compressBound(n);
    case PQ_CODEC_LZ4_RAW:
        return (size_t)LZ4_compressBound((int)n);
    default:
        return 0;
    }
}

static int gzip_enc(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_cap, size_t *out_len,
                    int level, pq_err *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (level == 0) level = Z_DEFAULT_COMPRESSION;
    if (level < 1 || level > 9) level = Z_DEFAULT_COMPRESSION;
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return pq_errf(err, -ENOMEM, -1, "GZIP: deflateInit2 failed");
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)(dst_cap > UINT_MAX ? UINT_MAX : dst_cap);
    int zr = deflate(&z, Z_FINISH);
    size_t made = (size_t)z.total_out;
    deflateEnd(&z);
    if (zr != Z_STREAM_END)
        return pq_errf(err, RINGSCAN_ELIMIT, -1, "GZIP: output buffer of %zu bytes too small",
                       dst_cap);
    assert(made <= dst_cap);
    *out_len = made;
    return 0;
}

static int zstd_enc(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_cap, size_t *out_len,
                    int level, pq_err *err)
{
    codec_tls *t = tls_get();
    if (t && !t->zstd_c && !fail_point(FAIL_ALLOC)) t->zstd_c = ZSTD_createCCtx();
    if (!t || !t->zstd_c) return pq_errf(err, -ENOMEM, -1, "ZSTD: out of memory for a context");
    if (level == 0) level = ZSTD_CLEVEL_DEFAULT;
    size_t r = ZSTD_compressCCtx(t->zstd_c, dst, dst_cap, src, n, level);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
            return pq_errf(err, RINGSCAN_ELIMIT, -1, "ZSTD: output buffer of %zu bytes too small",
                           dst_cap);
        return pq_errf(err, -ENOMEM, -1, "ZSTD: %s", ZSTD_getErrorName(r));
    }
    assert(r <= dst_cap);
    *out_len = r;
    return 0;
}

int pq_compress(int codec, const uint8_t *src, size_t n, uint8_t *dst, size_t dst_cap,
                size_t *out_len, int level, pq_err *err)
{
    static uint8_t empty[1];
    assert(out_len && (src || n == 0) && (dst || dst_cap == 0));
    *out_len = 0;
    bool writable = codec == PQ_CODEC_UNCOMPRESSED || codec == PQ_CODEC_SNAPPY ||
                    codec == PQ_CODEC_GZIP || codec == PQ_CODEC_ZSTD || codec == PQ_CODEC_LZ4_RAW;
    if (!writable)
        return pq_errf(err, RINGSCAN_EUNSUPPORTED, -1, "cannot compress with codec %s (%d)",
                       codec_label(codec), codec);
    if (n > PQ_CODEC_MAX_BYTES)
        return pq_errf(err, RINGSCAN_ELIMIT, -1, "page of %zu bytes exceeds 2 GiB", n);
    if (!src) src = empty;
    if (!dst) dst = empty;
    switch (codec) {
    case PQ_CODEC_UNCOMPRESSED:
        if (dst_cap < n)
            return pq_errf(err, RINGSCAN_ELIMIT, -1, "output buffer of %zu bytes too small",
                           dst_cap);
        if (n) memcpy(dst, src, n);
        *out_len = n;
        return 0;
    case PQ_CODEC_SNAPPY: {
        if (dst_cap < snappy_max_compressed_length(n))
            return pq_errf(err, RINGSCAN_ELIMIT, -1, "SNAPPY: output buffer of %zu bytes too small",
                           dst_cap);
        size_t len = dst_cap;
        if (snappy_compress((const char *)src, n, (char *)dst, &len) != SNAPPY_OK)
            return pq_errf(err, RINGSCAN_ELIMIT, -1, "SNAPPY: compression failed");
        *out_len = len;
        return 0;
    }
    case PQ_CODEC_GZIP:
        return gzip_enc(src, n, dst, dst_cap, out_len, level, err);
    case PQ_CODEC_ZSTD:
        return zstd_enc(src, n, dst, dst_cap, out_len, level, err);
    case PQ_CODEC_LZ4_RAW: {
        int cap = dst_cap > (size_t)INT_MAX ? INT_MAX : (int)dst_cap;
        int len = LZ4_compress_default((const char *)src, (char *)dst, (int)n, cap);
        if (len <= 0 && n > 0)
            return pq_errf(err, RINGSCAN_ELIMIT, -1,
                           "LZ4_RAW: output buffer of %zu bytes too small", dst_cap);
        *out_len = (size_t)len;
        return 0;
    }
    default:
        break;
    }
    return pq_errf(err, RINGSCAN_EUNSUPPORTED, -1, "cannot compress with codec %d", codec);
}

int pq_compress_buf(int codec, const uint8_t *src, size_t n, pq_buf *out, int level, pq_err *err)
{
    assert(out && out->len <= out->cap);
    size_t bound = pq_compress_bound(codec, n);
    if (bound == 0 && !(codec == PQ_CODEC_UNCOMPRESSED && n == 0))
        return pq_compress(codec, src, n, NULL, 0, &(size_t){0}, level, err); /* the error */
    if (bound > out->cap - out->len) {
        size_t cap = out->cap ? out->cap : 256;
        while (cap - out->len < bound) {
            if (cap > SIZE_MAX / 2) return pq_errf(err, -ENOMEM, -1, "compress: buffer too big");
            cap *= 2;
        }
        uint8_t *d = fail_realloc(out->data, cap);
        if (!d) return pq_errf(err, -ENOMEM, -1, "compress: out of memory for %zu bytes", cap);
        out->data = d;
        out->cap = cap;
    }
    size_t made = 0;
    uint8_t *at = out->data ? out->data + out->len : NULL; /* no arithmetic on NULL */
    int rc = pq_compress(codec, src, n, at, out->cap - out->len, &made, level, err);
    if (rc) return rc;
    assert(made <= bound);
    out->len += made;
    return 0;
}

uint32_t pq_crc32(const uint8_t *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n > 0) { /* zlib takes uInt lengths */
        uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, step);
        p += step;
        n -= step;
    }
    return (uint32_t)c;
}
