/* format/codec.h: Parquet page compression codecs (decompress for the reader, compress for the
 * writer) and the page CRC. Pure buffer-to-buffer functions: no I/O, no global state except one
 * reusable decompression context per thread per library (zstd, zlib).
 *
 * Owns: the mapping from thrift CompressionCodec ids to libraries, the "decompressed size must
 * equal the page header's" rule, and the LZ4 (codec 5) Hadoop-framing-or-raw guess.
 *
 * Invariants:
 *  1. pq_decompress never writes outside dst[0, dst_len) and never allocates in proportion to
 *     anything but dst_len (which the caller has already bounded): a decompression bomb stops at
 *     dst_len and is reported as RINGSCAN_EFORMAT.
 *  2. Success means exactly dst_len bytes were produced from exactly the given input: a short or
 *     long output is RINGSCAN_EFORMAT "decompressed N bytes, page header says M".
 *  3. Every status is 0 or negative (RINGSCAN_EFORMAT, RINGSCAN_EUNSUPPORTED, RINGSCAN_ELIMIT,
 *     -ENOMEM); on error
 *     err (if not NULL) holds the status and a message; err->offset is left at -1 (the caller
 *     knows the page's file offset and may set it).
 *  4. pq_compress output decompresses with pq_decompress(codec, ...) to the input bytes. */
#ifndef RINGSCAN_FORMAT_CODEC_H
#define RINGSCAN_FORMAT_CODEC_H
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/meta.h" /* pq_codec ids, pq_buf */

/* Codec ids are the thrift CompressionCodec values, named by pq_codec (PQ_CODEC_*) in
 * format/meta.h, which also holds pq_codec_name and the pq_buf writer buffer. Parameters are
 * plain int so that ids no enum names (unknown or future codecs) reach the error path. */

/* Largest src/dst size the codecs accept (Parquet page sizes are thrift i32). */
#define PQ_CODEC_MAX_BYTES ((size_t)INT32_MAX)

/* Decompresses src[0, src_len) into dst[0, dst_len) with thrift codec id `codec`.
 * dst_len is the page header's uncompressed size, already bounded by the caller's limits; dst
 * must hold dst_len bytes (dst may be NULL when dst_len is 0). UNCOMPRESSED copies (and needs
 * src_len == dst_len). src_len == dst_len == 0 succeeds for every known codec without calling the
 * library (a v2 page with no data bytes). Returns 0 when exactly dst_len bytes were produced.
 * Errors: RINGSCAN_EFORMAT (corrupt/truncated input, size mismatch, output would exceed
 * dst_len), RINGSCAN_EUNSUPPORTED (LZO: "unsupported codec LZO"; unknown id: names the id),
 * RINGSCAN_ELIMIT (src_len or dst_len > PQ_CODEC_MAX_BYTES: Parquet page sizes are i32),
 * -ENOMEM (a per-thread context could not be created). Thread-safe; reuses per-thread
 * contexts, so the per-page cost is the decompression itself. */
int pq_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                  pq_err *err);

/* Worst-case compressed size of n input bytes for `codec` (UNCOMPRESSED, SNAPPY, GZIP, ZSTD,
 * LZ4_RAW). Returns 0 when the codec cannot compress or n is too large for the library. */
size_t pq_compress_bound(int codec, size_t n);

/* Compresses src[0, n) into dst[0, dst_cap) and stores the compressed length in *out_len.
 * Size dst with pq_compress_bound(codec, n). level: codec level (zstd 1..22, gzip 1..9); 0 means
 * the library default; ignored by SNAPPY, LZ4_RAW and UNCOMPRESSED. GZIP writes one gzip member.
 * Errors: RINGSCAN_EUNSUPPORTED (codec not writable: LZO, BROTLI, LZ4, unknown),
 * RINGSCAN_ELIMIT (dst_cap too small), -ENOMEM. */
int pq_compress(int codec, const uint8_t *src, size_t n, uint8_t *dst, size_t dst_cap,
                size_t *out_len, int level, pq_err *err);

/* pq_compress appending to a growable writer buffer (pq_buf, format/meta.h): reserves
 * pq_compress_bound(codec, n) bytes after out->len (growing out->data with realloc, the same
 * allocator pq_buf_append and pq_buf_free use), compresses there and advances out->len.
 * On error out->len is unchanged (out->data may have grown). Errors as pq_compress. */
int pq_compress_buf(int codec, const uint8_t *src, size_t n, pq_buf *out, int level, pq_err *err);

/* Standard CRC-32 (zlib's crc32, IEEE polynomial) of p[0, n): the Parquet page CRC, computed
 * over the page's compressed bytes. p may be NULL when n is 0. */
uint32_t pq_crc32(const uint8_t *p, size_t n);

/* Snappy block decoding (format/snappy.c), used by pq_decompress and exposed for the tests
 * and the fuzz target that compare it with libsnappy. */
enum { PQ_SNAPPY_CORRUPT = -1, PQ_SNAPPY_SIZE = -2 };
/* The uncompressed length the stream's varint header states (*len) and the header's size
 * (*header). 0, or PQ_SNAPPY_CORRUPT (truncated, or more than 32 bits). */
int pq_snappy_length(const uint8_t *src, size_t n, size_t *len, size_t *header);
/* Decodes src[0, n) into exactly dst_len bytes at dst: 0; PQ_SNAPPY_SIZE when the header or
 * the elements state another length; PQ_SNAPPY_CORRUPT for a truncated element, an offset of
 * 0 or before the start, or output past dst_len. Reads only src[0, n), writes only
 * dst[0, dst_len) (partially on error). */
int pq_snappy_uncompress(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len);

#endif
