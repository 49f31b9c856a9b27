/* format/page_walk.c: page framing and the page loops (see page_walk.h and column.h).
 *
 * Owns: parsing a page header and checking its sizes (pq_colr_frame), the CRC, decompression
 * and the split of a v1 or v2 body into levels and values (pq_colr_decode), the one-page
 * entry points of column.h (pq_colr_page*), the whole-chunk decode (pq_colr_chunk), and the
 * page walker. What a page's body decodes to is format/column.c's.
 *
 * Invariants:
 *  1. A body is handed to column.c only after pq_colr_frame has checked compressed_size
 *     against the buffer and both sizes against max_page_bytes (column.h invariant 1).
 *  2. The walker parses each header once and keeps it (w->h, w->hl) until it moves past the
 *     page; moving past uses that header's compressed_size, already checked.
 *  3. Every walk loop ends: each page moves pos forward by at least its header (hl > 0). */
#include "format/page_walk.h"
#include "format/column_priv.h"

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "format/codec.h"
#include "format/encoding.h"

/* ------------------------------------------------------------------------------ framing */

/* Counts dst_len more bytes inflated by r (and by its scan) against the decompression limits. */
static int count_inflated(pq_col_reader *r, size_t dst_len, int64_t off, pq_err *e)
{
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
    return 0;
}

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
    int rc = count_inflated(r, dst_len, off, e);
    if (rc == 0) rc = pq_colr_reserve((void **)&r->scratch, &r->scratch_cap, dst_len ? dst_len : 1);
    if (rc) return rc;
    rc = pq_decompress((int)r->codec, src, src_len, r->scratch, dst_len, e);
    if (rc) return pq_err_place(e, rc, off, r->col->name);
    *out = r->scratch;
    return 0;
}

/* The bytes per value of a compressed page of n values (uncompressed size ulen) of r's
 * fixed-width column that holds exactly n PLAIN values, so it can be inflated straight into
 * a vector; else 0. */
static int plain_fixed_width(const pq_col_reader *r, int64_t n, int32_t ulen)
{
    const pq_column_desc *c = r->col;
    if (r->codec == PQ_CODEC_UNCOMPRESSED || c->physical == PQ_BOOLEAN || c->physical == PQ_BYTE_ARRAY)
        return 0;
    int w = pq_fixed_width(c->physical, c->type_length);
    return w > 0 && n > 0 && n <= PQ_ENC_MAX_VALUES && ulen == n * w ? w : 0;
}

/* Inflates the dictionary page h (body raw, file offset off), n PLAIN values of width w,
 * straight into r's dictionary: no copy out of r->scratch. */
static int dict_direct(pq_col_reader *r, const pq_page_header *h, const uint8_t *raw, int64_t off,
                       int w, pq_err *e)
{
    int64_t n = h->num_values;
    size_t ulen = (size_t)h->uncompressed_size;
    assert(w > 0 && (size_t)n * (size_t)w == ulen && r->dict.type == r->col->physical);
    int rc = pq_colr_dict_reset(r, h, off, e);
    if (rc == 0) rc = count_inflated(r, ulen, off, e);
    if (rc == 0) rc = pq_vec_reserve(&r->dict, n, 0);
    if (rc) return rc;
    rc = pq_decompress((int)r->codec, raw, (size_t)h->compressed_size, r->dict.values, ulen, e);
    if (rc) return pq_err_place(e, rc, off, r->col->name);
    r->dict.length = n;
    r->has_dict = true;
    return 0;
}

/* The bytes per value when data page h of r's column can be inflated straight into the
 * output column: every row wanted (q->nsel < 0), a compressed PLAIN page of a flat required
 * fixed-width column (no levels: its body is the values) whose uncompressed size is exactly
 * num_values values; else 0 (the page goes through r->scratch). */
static int direct_width(const pq_col_reader *r, const pq_page_header *h, const pq_page_req *q)
{
    const pq_column_desc *c = r->col;
    if (q->nsel >= 0 || h->encoding != PQ_ENC_PLAIN || c->max_def_level != 0 ||
        c->max_rep_level != 0 || q->vals->type != c->physical)
        return 0;
    if (h->type == PQ_PAGE_DATA_V2 &&
        (!h->is_compressed || h->def_levels_byte_length != 0 || h->rep_levels_byte_length != 0 ||
         h->num_nulls != 0))
        return 0;
    if (h->type != PQ_PAGE_DATA && h->type != PQ_PAGE_DATA_V2) return 0;
    if (h->num_values > r->limits.max_page_values) return 0;
    return plain_fixed_width(r, h->num_values, h->uncompressed_size);
}

/* Inflates data page h (body raw at file offset off; direct_width w) into q->vals' next n
 * slots: one pass, no copy out of a scratch buffer. On error nothing is appended (the
 * slots past the vector's length may hold partial bytes). */
static int decode_direct(pq_col_reader *r, const pq_page_header *h, const uint8_t *raw,
                         int64_t off, int w, const pq_page_req *q, pq_err *e)
{
    pq_vec *out = q->vals;
    int64_t n = h->num_values, base = out->length;
    size_t ulen = (size_t)h->uncompressed_size;
    assert(w > 0 && (size_t)n * (size_t)w == ulen);
    int rc = count_inflated(r, ulen, off, e);
    if (rc == 0) rc = pq_vec_reserve(out, n, 0);
    if (rc) return rc;
    rc = pq_decompress((int)r->codec, raw, (size_t)h->compressed_size, out->values + base * w,
                       ulen, e);
    if (rc) return pq_err_place(e, rc, off, r->col->name);
    out->length = base + n;
    pq_colr_spread(out, base, NULL, n, n); /* valid: bits only when earlier rows were null */
    r->pages_decoded++;
    return 0;
}

/* Splits a v1 or v2 page into levels and values, decompressing what is compressed. */
static int page_body_of(pq_col_reader *r, const pq_page_header *h, const uint8_t *raw,
                        int64_t off, pq_page_body *b, pq_err *e)
{
    size_t clen = (size_t)h->compressed_size, ulen = (size_t)h->uncompressed_size;
    b->rep = NULL;
    b->rep_len = 0;
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
    if (h->rep_levels_byte_length != 0 && r->col->max_rep_level == 0)
        return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name,
                           "repetition levels in a flat column");
    b->rep = r->col->max_rep_level > 0 ? raw : NULL;
    b->rep_len = (size_t)h->rep_levels_byte_length;
    b->levels = raw + h->rep_levels_byte_length;
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

int pq_colr_body(pq_col_reader *r, const pq_page_header *h, int hl, const uint8_t *raw,
                 int64_t off, pq_page_body *b, pq_err *e)
{
    memset(b, 0, sizeof *b);
    if (r->limits.verify_crc && h->has_crc && pq_crc32(raw, (size_t)h->compressed_size) != h->crc)
        return pq_errf_col(e, RINGSCAN_ECHECKSUM, off, r->col->name, "page CRC32 mismatch");
    if (h->type == PQ_PAGE_INDEX) return 0;
    int64_t body_off = off + hl;
    int w = h->type == PQ_PAGE_DICTIONARY ? plain_fixed_width(r, h->num_values, h->uncompressed_size) : 0;
    if (w > 0 && r->dict.type == r->col->physical) return dict_direct(r, h, raw, body_off, w, e);
    pq_page_body d;
    int rc = page_body_of(r, h, raw, body_off, &d, e);
    if (rc) return rc;
    if (h->type == PQ_PAGE_DICTIONARY) return pq_colr_dict_page(r, h, d.vals, d.vals_len, body_off, e);
    if (!is_data(h)) return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name, "unknown page type");
    *b = d;
    return 0;
}

int pq_colr_decode(pq_col_reader *r, const pq_page_header *h, int hl, const uint8_t *raw,
                   int64_t off, const pq_page_req *q, bool *as_idx, pq_err *e)
{
    if (as_idx) *as_idx = false;
    int w = q ? direct_width(r, h, q) : 0; /* q: NULL for a dictionary or index page */
    if (w > 0) {
        if (r->limits.verify_crc && h->has_crc &&
            pq_crc32(raw, (size_t)h->compressed_size) != h->crc)
            return pq_errf_col(e, RINGSCAN_ECHECKSUM, off, r->col->name, "page CRC32 mismatch");
        return decode_direct(r, h, raw, off + hl, w, q, e);
    }
    pq_page_body b;
    int rc = pq_colr_body(r, h, hl, raw, off, &b, e);
    if (rc || !is_data(h)) return rc; /* an index or dictionary page: nothing more to decode */
    return pq_colr_data_page(r, h, &b, off + hl, q, as_idx, e);
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


/* ----------------------------------------------------------------------------- the walker */

typedef enum walk_state {
    WALK_START,   /* no page returned yet */
    WALK_PAGE,    /* a data page returned, not decoded */
    WALK_DECODED, /* a data page returned and decoded */
    WALK_END,     /* ended: w->status is 0 or the error */
} walk_state;

void pq_walk_init(pq_page_walk *w, pq_col_reader *r, const uint8_t *buf, size_t len,
                  int64_t file_off, int64_t first_row, int64_t exp_rows, int64_t window_rows,
                  bool single_page)
{
    assert(r && (buf || len == 0) && window_rows >= 0 && exp_rows >= -1);
    assert(single_page || exp_rows == -1);
    *w = (pq_page_walk){.r = r, .buf = buf, .len = len, .file_off = file_off, .row = first_row,
                        .first = first_row, .exp_rows = exp_rows, .window_rows = window_rows,
                        .chunk_end = window_rows, .single_page = single_page,
                        .state = WALK_START};
}

void pq_walk_set_chunk_end(pq_page_walk *w, int64_t chunk_end)
{
    assert(!w->single_page && w->state == WALK_START && w->row <= 0);
    assert(chunk_end >= w->window_rows);
    w->chunk_end = chunk_end;
}

static int walk_fail(pq_page_walk *w, int status)
{
    assert(status < 0);
    w->state = WALK_END;
    w->status = status;
    return status;
}

/* The end of the walk: a whole chunk's data pages must have filled the window exactly, and a
 * page piece's bytes must have held its data page. The rows named are the chunk's, from its
 * first row (a window cut from the group counts from its own first row: "holds -5000 rows,
 * row group has 15000" was a chunk of 20000 rows in a group of 40000). */
static int walk_end(pq_page_walk *w, bool data_seen, pq_err *e)
{
    const char *col = w->r->col->name;
    if (!w->single_page && (w->row < w->window_rows || w->row > w->chunk_end))
        return walk_fail(w, pq_errf_col(e, RINGSCAN_EFORMAT, w->file_off, col,
                                        "column chunk holds %lld rows, row group has %lld",
                                        (long long)(w->row - w->first),
                                        (long long)(w->chunk_end - w->first)));
    if (w->single_page && w->exp_rows >= 0 && !data_seen)
        return walk_fail(w, pq_errf_col(e, RINGSCAN_EFORMAT, w->file_off, col,
                                        "the offset index points at a page that is not a data "
                                        "page"));
    w->state = WALK_END;
    return 0;
}

/* The current page is a data page at file offset off: checks its rows (invariant 3 of
 * page_walk.h) and fills pg. */
static int walk_data(pq_page_walk *w, int64_t off, pq_walk_page *pg, pq_err *e)
{
    const char *col = w->r->col->name;
    int64_t n = w->h.num_values, end = w->row + n;
    if (w->exp_rows >= 0 && n != w->exp_rows)
        return walk_fail(w, pq_errf_col(e, RINGSCAN_EFORMAT, off, col,
                                        "page holds %lld rows, the offset index says %lld",
                                        (long long)n, (long long)w->exp_rows));
    if (n < 0 || (w->exp_rows < 0 && end > w->chunk_end))
        return walk_fail(w, pq_errf_col(e, RINGSCAN_EFORMAT, off, col,
                                        "pages hold more rows than the row group"));
    /* the page's rows clamped to the window: empty at its nearer edge when they miss it */
    w->a = w->row < 0 ? 0 : w->row > w->window_rows ? w->window_rows : w->row;
    w->e = end < w->a ? w->a : end > w->window_rows ? w->window_rows : end;
    *pg = (pq_walk_page){.off = off, .h = w->h, .first_row = w->row, .rows = n, .a = w->a,
                         .e = w->e};
    w->state = WALK_PAGE;
    return 1;
}

/* Whether another page is to be read at w->pos: a piece's only page, or a whole chunk's
 * next while the window has rows left (bytes after its last row are not read). */
static bool walk_more(const pq_page_walk *w)
{
    if (w->pos >= w->len) return false;
    if (w->single_page) return w->pos == 0;
    return w->row < w->window_rows;
}

int pq_walk_next(pq_page_walk *w, pq_walk_page *pg, pq_err *e)
{
    if (w->state == WALK_END) return w->status;
    bool seen = w->state != WALK_START;
    if (seen) { /* move past the data page last returned (its size checked by the frame) */
        w->pos += (size_t)w->hl + (size_t)w->h.compressed_size;
        w->row += w->h.num_values;
    }
    while (walk_more(w)) {
        int64_t off = w->file_off + (int64_t)w->pos;
        const uint8_t *p = w->buf + w->pos;
        int hl = pq_colr_frame(w->r, p, w->len - w->pos, off, &w->h, e);
        if (hl < 0) return walk_fail(w, hl);
        w->hl = hl;
        if (is_data(&w->h)) return walk_data(w, off, pg, e);
        if (w->h.type != PQ_PAGE_DICTIONARY && w->h.type != PQ_PAGE_INDEX)
            return walk_fail(w, pq_errf_col(e, RINGSCAN_EFORMAT, off, w->r->col->name,
                                            "unknown page type"));
        int rc = pq_colr_decode(w->r, &w->h, hl, p + hl, off, NULL, NULL, e);
        if (rc) return walk_fail(w, rc);
        w->pos += (size_t)hl + (size_t)w->h.compressed_size; /* > 0: loop ends (inv. 3) */
        if (w->single_page) break;
    }
    return walk_end(w, seen, e);
}

/* Decodes the current page as q asks (once: invariant 4 of page_walk.h). */
static int walk_decode(pq_page_walk *w, const pq_page_req *q, bool *as_idx, pq_err *e)
{
    assert(w->state == WALK_PAGE);
    w->state = WALK_DECODED;
    int64_t off = w->file_off + (int64_t)w->pos;
    const uint8_t *raw = w->buf + w->pos + w->hl;
    return pq_colr_decode(w->r, &w->h, w->hl, raw, off, q, as_idx, e);
}

int pq_walk_values(pq_page_walk *w, const uint32_t *sel, int64_t nsel, pq_vec *out, pq_err *e)
{
    pq_col_reader *r = w->r;
    int64_t lo = w->a - w->row, hi = w->e - w->row, n = w->h.num_values;
    pq_page_req q = {.vals = out, .sel = sel, .nsel = nsel};
    if (sel) {
        assert(nsel >= 0 && (nsel == 0 || (sel[0] >= lo && sel[nsel - 1] < hi)));
    } else if (lo > 0 || hi < n) { /* a page straddling the window's edge: its rows inside */
        int rc = pq_colr_reserve((void **)&r->range_buf, &r->range_cap,
                                 (size_t)(hi - lo + 1) * sizeof(uint32_t));
        if (rc) return rc;
        for (int64_t i = lo; i < hi; i++) r->range_buf[i - lo] = (uint32_t)i;
        q.sel = r->range_buf;
        q.nsel = hi - lo;
    } else {
        q.nsel = -1;
    }
    return walk_decode(w, &q, NULL, e);
}

int pq_walk_indices(pq_page_walk *w, const uint32_t *sel, int64_t nsel, pq_vec *idx,
                    pq_vec *vals, bool *as_idx, pq_err *e)
{
    assert(idx && idx->type == PQ_INT32 && vals && as_idx);
    assert(!sel || nsel >= 0);
    pq_page_req q = {.vals = vals, .sel = sel, .nsel = sel ? nsel : -1, .idx = idx};
    return walk_decode(w, &q, as_idx, e);
}

int pq_walk_dict_bits(pq_page_walk *w, const uint32_t *sel, int64_t nsel, pq_vec *idx,
                      pq_vec *vals, bool *as_idx, pq_dict_bits *bits, pq_err *e)
{
    assert((!idx || idx->type == PQ_INT32) && vals && as_idx && bits && bits->dm);
    assert(!sel || (nsel >= 0 && idx));
    bits->done = false;
    pq_page_req q = {.vals = vals, .sel = sel, .nsel = sel ? nsel : -1, .idx = idx, .bits = bits};
    return walk_decode(w, &q, as_idx, e);
}

/* ------------------------------------------------------------------ moving a window's edges */

/* One edge pq_walk_snap moves: the data page starts nearest to it on either side. */
typedef struct snap_edge {
    int64_t row;
    int64_t below; /* the last start in (0, row], or -1 */
    int64_t above; /* the first start past row, or -1 (then chunk_rows) */
} snap_edge;

/* A data page starts at row start (0 < start < chunk_rows): the nearest starts so far. */
static void snap_note(snap_edge *g, int64_t start)
{
    if (start <= g->row) g->below = start;
    else if (g->above < 0) g->above = start;
}

static int64_t snap_result(const snap_edge *g, int64_t chunk_rows)
{
    if (g->row == 0) return 0;
    int64_t above = g->above < 0 ? chunk_rows : g->above;
    assert(above >= g->row && (g->below < 0 || g->below <= g->row));
    return g->below >= 0 && g->row - g->below < above - g->row ? g->below : above;
}

int pq_walk_snap(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                 int64_t chunk_rows, int64_t *lo, int64_t *hi, pq_err *e)
{
    assert(r && (buf || len == 0) && 0 <= *lo && *lo <= *hi && *hi <= chunk_rows);
    snap_edge g[2] = {{.row = *lo, .below = -1, .above = -1}, {.row = *hi, .below = -1, .above = -1}};
    int64_t row = 0; /* where the next data page starts */
    size_t pos = 0;
    while (pos < len && row < chunk_rows && g[1].above < 0) {
        pq_page_header h;
        int64_t off = file_off + (int64_t)pos;
        int hl = pq_colr_frame(r, buf + pos, len - pos, off, &h, e);
        if (hl < 0) return hl;
        pos += (size_t)hl + (size_t)h.compressed_size; /* checked by the frame; > 0: ends */
        if (!is_data(&h)) continue;
        if (h.num_values < 0)
            return pq_errf_col(e, RINGSCAN_EFORMAT, off, r->col->name,
                               "pages hold more rows than the row group");
        if (row > 0) snap_note(&g[0], row), snap_note(&g[1], row);
        row += h.num_values; /* row < chunk_rows and num_values <= INT32_MAX: no overflow */
    }
    *lo = snap_result(&g[0], chunk_rows);
    *hi = snap_result(&g[1], chunk_rows);
    assert(0 <= *lo && *lo <= *hi && *hi <= chunk_rows);
    return 0;
}
