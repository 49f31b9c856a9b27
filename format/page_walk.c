/* format/page_walk.c: page framing and the page loops (see page_walk.h and column.h).
 *
 * Owns: parsing a page header and checking its sizes (pq_colr_frame), the CRC, decompression
 * and the split of a v1 or v2 body into levels and values (pq_colr_decode), the one-page
 * entry points of column.h (pq_colr_page*), the whole-chunk decode (pq_colr_chunk), and the
 * page walker (to come). What a page's body decodes to is format/column.c's.
 *
 * Invariants:
 *  1. A body is handed to column.c only after pq_colr_frame has checked compressed_size
 *     against the buffer and both sizes against max_page_bytes (column.h invariant 1).
 *  2. The walker parses each header once and keeps it (w->h, w->hl) until it moves past the
 *     page; moving past uses that header's compressed_size, already checked.
 *  3. Every walk loop ends: each page moves pos forward by at least its header (hl > 0). */
#include "format/column.h"
#include "format/column_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>

#include "format/codec.h"

/* ------------------------------------------------------------------------------ framing */

/* Decompresses src (src_len) into r->scratch (dst_len bytes); sets *out. */
static int decompress(pq_col_reader *r, const uint8_t *src, size_t src_len, size_t dst_len,
                      bool compressed, int64_t off, const uint8_t **out, pq_err *e)
{
    if (!compressed || r->codec == PQ_CODEC_UNCOMPRESSED) {
        if (src_len != dst_len)
            return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name,
                               "uncompressed page: %zu bytes stored, header says %zu", src_len,
                               dst_len);
        *out = src;
        return 0;
    }
    r->decompressed_bytes += (int64_t)dst_len;
    if (r->decompressed_bytes > r->limits.max_decompressed_bytes)
        return pq_errf_col(e, RINGSCAN_ELIMIT, off, r->col->name,
                           "limit max_decompressed_bytes=%lld exceeded: %lld bytes decompressed "
                           "by this reader (decompression bomb?)",
                           (long long)r->limits.max_decompressed_bytes,
                           (long long)r->decompressed_bytes);
    if (r->scan_decompressed) {
        int64_t total = atomic_fetch_add(r->scan_decompressed, (int64_t)dst_len) + (int64_t)dst_len;
        if (total > r->limits.max_scan_decompressed_bytes)
            return pq_errf_col(e, RINGSCAN_ELIMIT, off, r->col->name,
                               "limit max_scan_decompressed_bytes=%lld exceeded: %lld bytes "
                               "decompressed by the scan (decompression bomb?)",
                               (long long)r->limits.max_scan_decompressed_bytes,
                               (long long)total);
    }
    int rc = pq_colr_reserve((void **)&r->scratch, &r->scratch_cap, dst_len ? dst_len : 1);
    if (rc) return rc;
    rc = pq_decompress((int)r->codec, src, src_len, r->scratch, dst_len, e);
    if (rc) return pq_err_place(e, rc, off, r->col->name);
    *out = r->scratch;
    return 0;
}


/* Splits a v1 or v2 page into levels and values, decompressing what is compressed. */
static int page_body_of(pq_col_reader *r, const pq_page_header *h, const uint8_t *raw,
                        int64_t off, pq_page_body *b, pq_err *e)
{
    size_t clen = (size_t)h->compressed_size, ulen = (size_t)h->uncompressed_size;
    if (h->type != PQ_PAGE_DATA_V2) {
        int rc = decompress(r, raw, clen, ulen, true, off, &b->levels, e);
        b->levels_len = b->vals_len = ulen;
        b->vals = b->levels;
        return rc;
    }
    size_t lv = (size_t)h->def_levels_byte_length + (size_t)h->rep_levels_byte_length;
    if (h->def_levels_byte_length < 0 || h->rep_levels_byte_length < 0 || lv > clen || lv > ulen)
        return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name,
                           "v2 page level lengths exceed the page");
    if (h->rep_levels_byte_length != 0)
        return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name,
                           "repetition levels in a flat column");
    b->levels = raw;
    b->levels_len = (size_t)h->def_levels_byte_length;
    b->vals_len = ulen - lv;
    bool compressed = h->is_compressed && ulen - lv > 0;
    return decompress(r, raw + lv, clen - lv, ulen - lv, compressed, off, &b->vals, e);
}

static bool is_data(const pq_page_header *h)
{
    return h->type == PQ_PAGE_DATA || h->type == PQ_PAGE_DATA_V2;
}

int pq_colr_frame(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t off,
                  pq_page_header *h, pq_err *e)
{
    const char *col = r->col->name;
    int hl = pq_page_header_parse(buf, len, h, e);
    if (hl < 0) return pq_err_place(e, hl, off, col);
    assert(hl > 0 && (size_t)hl <= len);
    int64_t max = r->limits.max_page_bytes;
    if (h->compressed_size > max || h->uncompressed_size > max)
        return pq_errf_col(e, RINGSCAN_ELIMIT, off, col,
                           "limit max_page_bytes=%lld exceeded: page of %d bytes (%d uncompressed)",
                           (long long)max, h->compressed_size, h->uncompressed_size);
    if (h->compressed_size < 0 || (size_t)h->compressed_size > len - (size_t)hl)
        return pq_errf_col(e, RINGSCAN_EFORMAT, off, col, "page extends past the column chunk");
    return hl;
}

int pq_colr_decode(pq_col_reader *r, const pq_page_header *h, int hl, const uint8_t *raw,
                   int64_t off, const pq_page_req *q, bool *as_idx, pq_err *e)
{
    const char *col = r->col->name;
    if (as_idx) *as_idx = false;
    if (r->limits.verify_crc && h->has_crc && pq_crc32(raw, (size_t)h->compressed_size) != h->crc)
        return pq_errf_col(e, RINGSCAN_ECHECKSUM, off, col, "page CRC32 mismatch");
    if (h->type == PQ_PAGE_INDEX) return 0;
    int64_t body_off = off + hl;
    pq_page_body b;
    int rc = page_body_of(r, h, raw, body_off, &b, e);
    if (rc) return rc;
    if (h->type == PQ_PAGE_DICTIONARY) return pq_colr_dict_page(r, h, b.vals, b.vals_len, body_off, e);
    if (!is_data(h)) return pq_errf_col(e, RINGSCAN_EFORMAT, off, col, "unknown page type");
    return pq_colr_data_page(r, h, &b, body_off, q, as_idx, e);
}

/* ----------------------------------------------------------------------- one page at a time */

/* Frames and decodes the page at buf as q asks; *consumed and *rows as column.h says. */
static int page_common(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                       const pq_page_req *q, bool *as_idx, size_t *consumed, int64_t *rows,
                       pq_err *e)
{
    assert(r && buf && q->vals && consumed && rows);
    *rows = 0;
    if (as_idx) *as_idx = false;
    pq_page_header h;
    int hl = pq_colr_frame(r, buf, len, file_off, &h, e);
    if (hl < 0) return hl;
    *consumed = (size_t)hl + (size_t)h.compressed_size;
    int rc = pq_colr_decode(r, &h, hl, buf + hl, file_off, q, as_idx, e);
    if (rc == 0 && is_data(&h)) *rows = h.num_values;
    return rc;
}

int pq_colr_page(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off, pq_vec *out,
                 size_t *consumed, int64_t *rows, pq_err *e)
{
    pq_page_req q = {.vals = out, .nsel = -1};
    return page_common(r, buf, len, file_off, &q, NULL, consumed, rows, e);
}

int pq_colr_page_sel(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                     const uint32_t *sel, int64_t nsel, pq_vec *out, size_t *consumed,
                     int64_t *rows, pq_err *e)
{
    assert(nsel >= 0 && (sel || nsel == 0));
    pq_page_req q = {.vals = out, .sel = sel, .nsel = nsel};
    return page_common(r, buf, len, file_off, &q, NULL, consumed, rows, e);
}

int pq_colr_page_idx(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                     pq_vec *idx, pq_vec *vals, bool *as_idx, size_t *consumed, int64_t *rows,
                     pq_err *e)
{
    return pq_colr_page_idx_sel(r, buf, len, file_off, NULL, -1, idx, vals, as_idx, consumed,
                                rows, e);
}

int pq_colr_page_idx_sel(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                         const uint32_t *sel, int64_t nsel, pq_vec *idx, pq_vec *vals,
                         bool *as_idx, size_t *consumed, int64_t *rows, pq_err *e)
{
    assert(idx && idx->type == PQ_INT32 && vals && as_idx);
    assert(nsel == -1 || (nsel >= 0 && (sel || nsel == 0)));
    pq_page_req q = {.vals = vals, .sel = sel, .nsel = nsel, .idx = idx};
    return page_common(r, buf, len, file_off, &q, as_idx, consumed, rows, e);
}

int pq_colr_chunk(pq_col_reader *r, const pq_chunk_meta *cm, const uint8_t *buf, size_t len,
                  int64_t file_off, pq_vec *out, pq_err *e)
{
    assert(cm->num_values >= 0);
    int64_t want = cm->num_values, got = 0;
    size_t pos = 0;
    for (int64_t pages = 0; got < want; pages++) {
        if (pos >= len) break;
        size_t used = 0;
        int64_t rows = 0;
        int rc = pq_colr_page(r, buf + pos, len - pos, file_off + (int64_t)pos, out, &used, &rows, e);
        if (rc) return rc;
        assert(used > 0 && used <= len - pos);
        pos += used;
        if (rows > want - got) /* got < want, so want - got cannot overflow */
            return pq_errf_col(e, RINGSCAN_EFORMAT, file_off + (int64_t)pos, r->col->name,
                               "column chunk holds more values than its metadata says");
        got += rows;
        if (pages - 16 > want) break; /* a chunk of empty pages is malformed; no overflow */
    }
    if (got != want)
        return pq_errf_col(e, RINGSCAN_EFORMAT, file_off + (int64_t)pos, r->col->name,
                           "column chunk holds %lld values, its metadata says %lld",
                           (long long)got, (long long)want);
    return 0;
}

int pq_chunk_range(const pq_chunk_meta *cm, uint64_t file_size, uint64_t *off, uint64_t *len,
                   pq_err *e)
{
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
        cm->dictionary_page_offset < start)
        start = cm->dictionary_page_offset;
    int64_t size = cm->total_compressed_size;
    if (start < 4 || size <= 0 || (uint64_t)start > file_size || (uint64_t)size > file_size - (uint64_t)start)
        return pq_errf(e, RINGSCAN_EFORMAT, start,
                       "column chunk range [%lld, +%lld) lies outside the file (%llu bytes)",
                       (long long)start, (long long)size, (unsigned long long)file_size);
    *off = (uint64_t)start;
    *len = (uint64_t)size;
    return 0;
}

