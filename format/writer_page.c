/* format/writer_page.c: closing pages and chunks in the writer: page bodies, compression,
 * page headers, the dictionary page, chunk metadata, the chunk's ColumnIndex / OffsetIndex
 * (serialised at once into the writer's index buffers) and its bloom filter.
 *
 * Invariants:
 *  1. A finished page is header + compressed body in the chunk's `pages` buffer; its location
 *     record's size includes the header (OffsetIndex rule: sizes include headers).
 *  2. Offsets written into an OffsetIndex are absolute: the chunk start is the sink position
 *     when the chunk is emitted (writer invariant 1).
 *  3. Every size written to a thrift i32 field is checked <= INT32_MAX first (ELIMIT).
 *  4. After flush_chunk the column's chunk state is empty and ready for the next row group.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/bloom.h"
#include "common/fail.h"
#include "format/codec.h"
#include "format/writer_priv.h"

int pq_writer_emit(pq_writer *w, const void *p, size_t n, pq_err *e)
{
    if (w->status) return w->status;
    if (n == 0) return 0;
    int rc = w->sink(w->ctx, p, n);
    if (rc) { /* the cause named (a full disk said only "sink failed writing N bytes") */
        int st = rc < 0 ? rc : -EIO;
        return pq_errf(e, st, w->pos, "writing %zu bytes at byte %lld failed: %s", n,
                       (long long)w->pos, strerror(-st));
    }
    w->pos += (int64_t)n;
    w->st.bytes = w->pos;
    return 0;
}

/* Compresses w->scratch into w->cbuf and writes the page header for it into w->hdr. */
static int finish_body(pq_writer *w, pq_wcol *c, pq_page_header *h, pq_err *e)
{
    if (w->scratch.len > INT32_MAX)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "page of column %s has %zu bytes (limit 2 GiB)",
                       c->desc.name, w->scratch.len);
    w->cbuf.len = 0;
    int rc = pq_compress_buf((int)w->o.codec, w->scratch.data, w->scratch.len, &w->cbuf,
                             w->o.level, e);
    if (rc) return rc;
    if (w->cbuf.len > INT32_MAX) return pq_errf(e, RINGSCAN_ELIMIT, -1, "compressed page too big");
    h->uncompressed_size = (int32_t)w->scratch.len;
    h->compressed_size = (int32_t)w->cbuf.len;
    if (w->o.page_crc) {
        h->has_crc = true;
        h->crc = pq_crc32(w->cbuf.data, w->cbuf.len);
    }
    w->hdr.len = 0;
    if ((rc = pq_write_page_header(&w->hdr, h))) return pq_errf(e, rc, -1, "out of memory");
    return 0;
}

/* Page body: v1 definition levels, then RLE_DICTIONARY indices or PLAIN values. */
static int page_body(pq_writer *w, pq_wcol *c, pq_encoding *enc)
{
    int rc = 0;
    w->scratch.len = 0;
    if (c->defs && (rc = pq_rle_encode_v1(&w->scratch, c->defs, c->page_fill, 1))) return rc;
    if (c->dict_mode && c->n_idx > 0) {
        int64_t count = pq_dictb_count(&c->db);
        assert(count > 0);
        *enc = PQ_ENC_RLE_DICTIONARY;
        c->dict_used = true;
        return pq_rle_encode_dict(&w->scratch, c->idx, c->n_idx, pq_bit_width((uint64_t)(count - 1)));
    }
    *enc = PQ_ENC_PLAIN;
    return c->plain.len ? pq_buf_append(&w->scratch, c->plain.data, c->plain.len) : 0;
}

static int record_page(pq_wcol *c, size_t offset, size_t size)
{
    if (c->nlocs == c->locs_cap) {
        int32_t ncap = c->locs_cap ? c->locs_cap * 2 : 16;
        pq_wpage *p = fail_realloc(c->locs, (size_t)ncap * sizeof *p);
        if (!p) return -ENOMEM;
        c->locs = p;
        c->locs_cap = ncap;
    }
    pq_wpage *pg = &c->locs[c->nlocs++];
    memset(pg, 0, sizeof *pg);
    pg->offset = (int64_t)offset;
    pg->size = (int32_t)size;
    pg->first_row = c->chunk_rows;
    pg->null_count = c->page_nulls;
    pg->null_page = c->page_nulls == c->page_fill;
    pg->has_min_max = c->page_st.has_min_max;
    if (!pg->null_page && !pg->has_min_max) c->all_pages_ordered = false;
    if (!pg->has_min_max) return 0;
    pg->min_off = (uint32_t)c->page_mm.len;
    pg->min_len = (uint32_t)c->page_st.min.len;
    pg->max_off = pg->min_off + pg->min_len;
    pg->max_len = (uint32_t)c->page_st.max.len;
    int rc = pq_buf_append(&c->page_mm, c->page_st.min.data, c->page_st.min.len);
    return rc ? rc : pq_buf_append(&c->page_mm, c->page_st.max.data, c->page_st.max.len);
}

int pq_wcol_flush_page(pq_writer *w, pq_wcol *c, pq_err *e)
{
    if (c->page_fill == 0) return 0;
    assert(c->page_fill <= w->o.page_rows && c->page_nulls <= c->page_fill);
    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DATA;
    h.num_values = (int32_t)c->page_fill;
    h.def_level_encoding = PQ_ENC_RLE;
    h.rep_level_encoding = PQ_ENC_RLE;
    int rc = page_body(w, c, &h.encoding);
    if (rc) return pq_errf(e, rc, -1, "encoding a page of column %s failed", c->desc.name);
    if (w->o.statistics) {
        h.has_stats = true;
        pq_wstats_view(&c->page_st, c->cmp != PQ_CMP_NONE, &h.stats);
    }
    if ((rc = finish_body(w, c, &h, e))) return rc;
    size_t at = c->pages.len, size = w->hdr.len + w->cbuf.len;
    if ((rc = pq_buf_append(&c->pages, w->hdr.data, w->hdr.len)) ||
        (rc = pq_buf_append(&c->pages, w->cbuf.data, w->cbuf.len)) ||
        (rc = record_page(c, at, size)) ||
        (c->track_stats && (rc = pq_wstats_merge(&c->chunk_st, c->cmp, &c->page_st))))
        return pq_errf(e, rc, -1, "out of memory");
    c->enc_mask |= (1u << h.encoding) | (1u << PQ_ENC_RLE);
    c->uncompressed_bytes += (int64_t)(w->hdr.len + w->scratch.len);
    c->chunk_rows += c->page_fill;
    c->page_fill = c->page_nulls = c->n_idx = c->nbits = 0;
    c->plain.len = 0;
    pq_wstats_reset(&c->page_st);
    w->st.pages++;
    return 0;
}

/* Writes the dictionary page (when some page used it); *bytes, *ubytes = its sizes. */
static int emit_dict(pq_writer *w, pq_wcol *c, int64_t *bytes, int64_t *ubytes, pq_err *e)
{
    *bytes = *ubytes = 0;
    if (!c->dict_used) return 0;
    w->scratch.len = 0;
    int rc = pq_dictb_write(&c->db, &w->scratch);
    if (rc) return pq_errf(e, rc, -1, "out of memory");
    pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = PQ_PAGE_DICTIONARY;
    h.num_values = (int32_t)pq_dictb_count(&c->db);
    h.encoding = PQ_ENC_PLAIN;
    if ((rc = finish_body(w, c, &h, e))) return rc;
    if ((rc = pq_writer_emit(w, w->hdr.data, w->hdr.len, e)) ||
        (rc = pq_writer_emit(w, w->cbuf.data, w->cbuf.len, e)))
        return rc;
    c->enc_mask |= 1u << PQ_ENC_PLAIN;
    *bytes = (int64_t)(w->hdr.len + w->cbuf.len);
    *ubytes = (int64_t)(w->hdr.len + w->scratch.len);
    return 0;
}

static pq_boundary_order boundary_of(const pq_wcol *c)
{
    bool asc = true, desc = true;
    const pq_wpage *prev = NULL;
    for (int32_t i = 0; i < c->nlocs; i++) {
        const pq_wpage *p = &c->locs[i];
        if (!p->has_min_max) continue;
        if (prev) {
            const uint8_t *mm = c->page_mm.data;
            int a = pq_wcmp(c->cmp, mm + prev->min_off, prev->min_len, mm + p->min_off, p->min_len);
            int b = pq_wcmp(c->cmp, mm + prev->max_off, prev->max_len, mm + p->max_off, p->max_len);
            if (a > 0 || b > 0) asc = false;
            if (a < 0 || b < 0) desc = false;
        }
        prev = p;
    }
    return asc ? PQ_BOUNDARY_ASCENDING : desc ? PQ_BOUNDARY_DESCENDING : PQ_BOUNDARY_UNORDERED;
}

static int write_column_index(pq_writer *w, pq_wcol *c, pq_wchunk_ix *ix)
{
    int32_t n = c->nlocs;
    pq_column_index ci;
    memset(&ci, 0, sizeof ci);
    ci.npages = n;
    ci.null_pages = fail_calloc((size_t)n, sizeof *ci.null_pages);
    ci.min = fail_calloc((size_t)n, sizeof *ci.min);
    ci.max = fail_calloc((size_t)n, sizeof *ci.max);
    ci.min_len = fail_calloc((size_t)n, sizeof *ci.min_len);
    ci.max_len = fail_calloc((size_t)n, sizeof *ci.max_len);
    ci.null_counts = fail_calloc((size_t)n, sizeof *ci.null_counts);
    int rc = -ENOMEM;
    if (ci.null_pages && ci.min && ci.max && ci.min_len && ci.max_len && ci.null_counts) {
        static const uint8_t empty[1] = {0};
        for (int32_t i = 0; i < n; i++) {
            const pq_wpage *p = &c->locs[i];
            ci.null_pages[i] = p->null_page;
            ci.null_counts[i] = p->null_count;
            ci.min[i] = p->has_min_max ? c->page_mm.data + p->min_off : empty;
            ci.max[i] = p->has_min_max ? c->page_mm.data + p->max_off : empty;
            ci.min_len[i] = p->has_min_max ? p->min_len : 0;
            ci.max_len[i] = p->has_min_max ? p->max_len : 0;
        }
        ci.boundary_order = boundary_of(c);
        ci.has_null_counts = true;
        ix->ci_off = (int64_t)w->ci_buf.len;
        rc = pq_write_column_index(&w->ci_buf, &ci);
        ix->ci_len = (int32_t)((int64_t)w->ci_buf.len - ix->ci_off);
    }
    free(ci.null_pages);
    free(ci.min);
    free(ci.max);
    free(ci.min_len);
    free(ci.max_len);
    free(ci.null_counts);
    return rc;
}

static int write_offset_index(pq_writer *w, pq_wcol *c, int64_t data_start, pq_wchunk_ix *ix)
{
    pq_offset_index oi = {.npages = c->nlocs, .pages = fail_calloc((size_t)c->nlocs + 1, sizeof(pq_page_location))};
    if (!oi.pages) return -ENOMEM;
    for (int32_t i = 0; i < c->nlocs; i++) {
        oi.pages[i].offset = data_start + c->locs[i].offset;
        oi.pages[i].compressed_page_size = c->locs[i].size;
        oi.pages[i].first_row_index = c->locs[i].first_row;
    }
    ix->oi_off = (int64_t)w->oi_buf.len;
    int rc = pq_write_offset_index(&w->oi_buf, &oi);
    ix->oi_len = (int32_t)((int64_t)w->oi_buf.len - ix->oi_off);
    free(oi.pages);
    return rc;
}

static int write_bloom(pq_writer *w, pq_wcol *c, pq_wchunk_ix *ix)
{
    uint64_t ndv = c->hashes.count + (c->hashes.has_zero ? 1 : 0);
    size_t nbytes = pq_bloom_optimal_bytes(ndv ? ndv : 1, w->o.bloom_fpp);
    assert(nbytes >= 32 && nbytes % 32 == 0 && nbytes <= INT32_MAX);
    ix->bloom_off = (int64_t)w->bloom_buf.len;
    int rc = pq_write_bloom_header(&w->bloom_buf, (int32_t)nbytes);
    if (rc || (rc = pq_enc_reserve(&w->bloom_buf, nbytes))) return rc;
    uint8_t *bits = w->bloom_buf.data + w->bloom_buf.len;
    memset(bits, 0, nbytes);
    for (uint64_t i = 0; i < c->hashes.cap; i++)
        if (c->hashes.slots[i]) pq_bloom_insert(bits, nbytes, c->hashes.slots[i]);
    if (c->hashes.has_zero) pq_bloom_insert(bits, nbytes, 0);
    w->bloom_buf.len += nbytes;
    ix->bloom_len = (int32_t)((int64_t)w->bloom_buf.len - ix->bloom_off);
    return 0;
}

/* Invariant 4: empties the chunk state, keeping buffers. */
static int reset_chunk(pq_writer *w, pq_wcol *c)
{
    int rc = 0;
    if (c->dict_allowed) {
        pq_dictb_free(&c->db);
        rc = pq_dictb_init(&c->db, c->desc.physical, c->desc.type_length, w->o.dict_page_bytes,
                           INT32_MAX);
    }
    c->dict_mode = c->dict_allowed;
    c->dict_used = c->dict_fell_back = false;
    c->chunk_rows = 0;
    c->enc_mask = 0;
    c->uncompressed_bytes = 0;
    pq_wstats_reset(&c->chunk_st);
    c->pages.len = 0;
    c->page_mm.len = 0;
    c->nlocs = 0;
    c->all_pages_ordered = true;
    pq_hset_clear(&c->hashes);
    return rc;
}

/* Chunk statistics copied into the metadata arena (they must outlive the chunk state). */
static int chunk_stats(pq_writer *w, pq_wcol *c, pq_stats *out)
{
    pq_wstats_view(&c->chunk_st, c->cmp != PQ_CMP_NONE, out);
    if (!out->has_min_max) return 0;
    uint8_t *mn = pq_file_meta_alloc(&w->fm, out->min_len + 1);
    uint8_t *mx = pq_file_meta_alloc(&w->fm, out->max_len + 1);
    if (!mn || !mx) return -ENOMEM;
    memcpy(mn, out->min, out->min_len);
    memcpy(mx, out->max, out->max_len);
    out->min = mn;
    out->max = mx;
    return 0;
}

int pq_wcol_flush_chunk(pq_writer *w, pq_wcol *c, pq_chunk_meta *cm, pq_wchunk_ix *ix, pq_err *e)
{
    int rc = pq_wcol_flush_page(w, c, e);
    if (rc) return rc;
    memset(cm, 0, sizeof *cm);
    ix->ci_off = ix->oi_off = ix->bloom_off = -1;
    int64_t start = w->pos, dbytes, dubytes;
    if ((rc = emit_dict(w, c, &dbytes, &dubytes, e))) return rc;
    cm->codec = w->o.codec;
    if (dbytes) {
        cm->has_dictionary_page_offset = true;
        cm->dictionary_page_offset = start;
    }
    cm->data_page_offset = start + dbytes;
    if ((rc = pq_writer_emit(w, c->pages.data, c->pages.len, e))) return rc;
    cm->num_values = c->chunk_rows;
    cm->total_compressed_size = dbytes + (int64_t)c->pages.len;
    cm->total_uncompressed_size = dubytes + c->uncompressed_bytes;
    cm->encodings_mask = c->enc_mask;
    if (w->o.statistics && (rc = chunk_stats(w, c, &cm->stats))) goto nomem;
    if (w->o.page_index) {
        if ((rc = write_offset_index(w, c, cm->data_page_offset, ix))) goto nomem;
        if (c->cmp != PQ_CMP_NONE && c->all_pages_ordered && (rc = write_column_index(w, c, ix)))
            goto nomem;
    }
    if (c->bloom && (rc = write_bloom(w, c, ix))) goto nomem;
    if ((rc = reset_chunk(w, c))) goto nomem;
    return 0;
nomem:
    return pq_errf(e, rc, -1, "finishing chunk of column %s failed", c->desc.name);
}
