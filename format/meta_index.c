/* format/meta_index.c: PageHeader, ColumnIndex and OffsetIndex decoders.
 *
 * Invariants:
 *  1. Page sizes and counts are >= 0; the page-type specific header matching `type` must be
 *     present (DATA_PAGE -> field 5, DICTIONARY_PAGE -> 7, DATA_PAGE_V2 -> 8).
 *  2. v2 level lengths are >= 0 and their sum <= compressed_page_size.
 *  3. ColumnIndex lists (null_pages, min_values, max_values, null_counts) have equal lengths;
 *     the index owns a copy of every min/max in one allocation.
 *  4. OffsetIndex: offsets >= 0 and increasing, sizes > 0, first_row_index starts at 0 and
 *     increases strictly.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/meta_priv.h"
#include "common/fail.h"

/* DataPageHeader (v1), DictionaryPageHeader and DataPageHeaderV2 share this reader; `kind`
 * selects the field numbering. */
static int read_sub(pq_tr *r, int kind, pq_page_header *h, pq_raw_stats *raw)
{
    int16_t id;
    uint8_t t;
    int64_t v;
    uint32_t seen = 0;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (id > 0 && id < 32) seen |= 1u << id;
        int key = kind * 100 + id;
        switch (key) {
        case 501: case 701: case 801: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) h->num_values = (int32_t)v; break;
        case 502: case 702: case 804: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) h->encoding = (pq_encoding)v; break;
        case 503: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) h->def_level_encoding = (pq_encoding)v; break;
        case 504: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) h->rep_level_encoding = (pq_encoding)v; break;
        case 505: case 808:
            if (!pq_tr_expect(r, t, PQ_T_STRUCT, "page statistics") && !pq_raw_stats_read(r, raw))
                h->has_stats = true;
            break;
        case 703: pq_tr_bool_field(r, t, &h->dict_is_sorted); break;
        case 802: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) h->num_nulls = (int32_t)v; break;
        case 803: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) h->num_rows = (int32_t)v; break;
        case 805: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) h->def_levels_byte_length = (int32_t)v; break;
        case 806: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) h->rep_levels_byte_length = (int32_t)v; break;
        case 807: pq_tr_bool_field(r, t, &h->is_compressed); break;
        default: pq_tr_skip(r, t); break;
        }
    }
    if (r->status) return r->status;
    uint32_t need = kind == 5 ? 0x1e : kind == 7 ? 0x6 : 0x7e;
    if ((seen & need) != need) return pq_tr_fail(r, "page header lacks a required field");
    return pq_tr_struct_end(r);
}

static int check_page(pq_tr *r, pq_page_header *h, uint32_t seen)
{
    if ((seen & 0xe) != 0xe) return pq_tr_fail(r, "PageHeader lacks type or sizes");
    int want = h->type == PQ_PAGE_DATA ? 5 : h->type == PQ_PAGE_DICTIONARY ? 7
               : h->type == PQ_PAGE_DATA_V2 ? 8 : 0;
    if (want && !(seen & (1u << want)))
        return pq_tr_fail(r, "PageHeader lacks the header of its page type");
    if (h->type == PQ_PAGE_DATA_V2) {
        int64_t lv = (int64_t)h->def_levels_byte_length + h->rep_levels_byte_length;
        if (lv > h->compressed_size) return pq_tr_fail(r, "v2 level lengths exceed the page size");
        if (h->num_nulls > h->num_values) return pq_tr_fail(r, "v2 num_nulls exceeds num_values");
    }
    return 0;
}

int pq_page_header_parse(const uint8_t *buf, size_t len, pq_page_header *h, pq_err *e)
{
    assert(h && (buf || len == 0));
    pq_tr r;
    pq_tr_init(&r, buf, len, -1, 0, e);
    memset(h, 0, sizeof *h);
    h->is_compressed = true;
    pq_raw_stats raw;
    memset(&raw, 0, sizeof raw);
    int16_t id;
    uint8_t t;
    int64_t v;
    uint32_t seen = 0;
    if (pq_tr_struct_begin(&r)) return r.status;
    while (!pq_tr_field(&r, &id, &t) && t != PQ_T_STOP) {
        if (id > 0 && id < 32) seen |= 1u << id;
        switch (id) {
        case 1: if (!pq_tr_int(&r, t, 0, 3, &v)) h->type = (pq_page_type)v; break;
        case 2: if (!pq_tr_int(&r, t, 0, INT32_MAX, &v)) h->uncompressed_size = (int32_t)v; break;
        case 3: if (!pq_tr_int(&r, t, 0, INT32_MAX, &v)) h->compressed_size = (int32_t)v; break;
        case 4:
            if (!pq_tr_int(&r, t, INT32_MIN, INT32_MAX, &v)) h->crc = (uint32_t)v, h->has_crc = true;
            break;
        case 5: case 7: case 8:
            if (!pq_tr_expect(&r, t, PQ_T_STRUCT, "page type header")) read_sub(&r, id, h, &raw);
            break;
        default: pq_tr_skip(&r, t); break;
        }
    }
    if (!r.status) check_page(&r, h, seen);
    if (!r.status) pq_tr_struct_end(&r);
    if (r.status) return r.status;
    if (h->has_stats) pq_stats_from_raw(&raw, &h->stats);
    assert(pq_tr_pos(&r) > 0 && pq_tr_pos(&r) <= len);
    return (int)pq_tr_pos(&r);
}

/* ---- ColumnIndex ----------------------------------------------------------------------- */

static int ci_list(pq_tr *r, uint8_t t, uint32_t *n, int32_t *npages, uint8_t *et)
{
    if (pq_tr_expect(r, t, PQ_T_LIST, "ColumnIndex list")) return r->status;
    if (pq_tr_list_begin(r, et, n, 0)) return r->status;
    if (*npages >= 0 && (uint32_t)*npages != *n) return pq_tr_fail(r, "ColumnIndex lists differ in length");
    *npages = (int32_t)*n;
    return 0;
}

/* storage layout: [values block pointer (16 bytes)][min ptrs][max ptrs][null counts]
 * [min lens][max lens][null_pages]; the values block holds the copied min/max bytes. */
static int ci_alloc(pq_column_index *ci, uint32_t n)
{
    if (ci->storage) return 0;
    size_t sz = (size_t)n * (sizeof(bool) + 2 * sizeof(uint8_t *) + 2 * sizeof(uint32_t) + sizeof(int64_t));
    uint8_t *s = fail_calloc(1, 16 + sz + 64);
    if (!s) return -ENOMEM;
    ci->storage = s;
    ci->min = (const uint8_t **)(s + 16);
    ci->max = ci->min + n;
    ci->null_counts = (int64_t *)(ci->max + n);
    ci->min_len = (uint32_t *)(ci->null_counts + n);
    ci->max_len = ci->min_len + n;
    ci->null_pages = (bool *)(ci->max_len + n);
    return 0;
}

static int ci_field(pq_tr *r, pq_column_index *ci, int16_t id, uint8_t t)
{
    uint8_t et;
    uint32_t n;
    int64_t v;
    if (id == 4) {
        if (!pq_tr_int(r, t, 0, 2, &v)) ci->boundary_order = (pq_boundary_order)v;
        return r->status;
    }
    if (id < 1 || id > 5) return pq_tr_skip(r, t);
    if (ci_list(r, t, &n, &ci->npages, &et)) return r->status;
    if (ci_alloc(ci, n)) return r->status = pq_errf(r->e, -ENOMEM, -1, "out of memory");
    for (uint32_t i = 0; i < n && !r->status; i++) {
        if (id == 1) pq_tr_bool_elem(r, &ci->null_pages[i]);
        else if (id == 2) pq_tr_binary(r, &ci->min[i], &ci->min_len[i]);
        else if (id == 3) pq_tr_binary(r, &ci->max[i], &ci->max_len[i]);
        else if (!pq_tr_int(r, et, INT64_MIN, INT64_MAX, &v)) ci->null_counts[i] = v;
    }
    /* some writers put -1 ("unknown") in null_counts: then none of them is used */
    bool counts_ok = true;
    for (uint32_t i = 0; id == 5 && i < n; i++) counts_ok = counts_ok && ci->null_counts[i] >= 0;
    if (id == 5) ci->has_null_counts = counts_ok;
    if (!r->status && n && (id == 2 || id == 3) && et != PQ_T_BINARY) pq_tr_fail(r, "min/max not binary");
    return r->status ? r->status : pq_tr_list_end(r);
}

/* Copies min/max out of the parsed buffer into the owned values block. */
static int ci_own(pq_column_index *ci)
{
    assert(ci->storage);
    size_t total = 0;
    for (int32_t i = 0; i < ci->npages; i++) total += (size_t)ci->min_len[i] + ci->max_len[i];
    uint8_t *blk = fail_malloc(total + 1);
    if (!blk) return -ENOMEM;
    memcpy(ci->storage, &blk, sizeof blk);
    uint8_t *p = blk;
    for (int32_t i = 0; i < ci->npages; i++) {
        if (ci->min_len[i]) memcpy(p, ci->min[i], ci->min_len[i]);
        ci->min[i] = p, p += ci->min_len[i];
        if (ci->max_len[i]) memcpy(p, ci->max[i], ci->max_len[i]);
        ci->max[i] = p, p += ci->max_len[i];
    }
    return 0;
}

int pq_column_index_parse(const uint8_t *buf, size_t len, pq_column_index *ci, pq_err *e)
{
    assert(ci && (buf || len == 0));
    memset(ci, 0, sizeof *ci);
    ci->npages = -1;
    pq_tr r;
    pq_tr_init(&r, buf, len, -1, 0, e);
    int16_t id;
    uint8_t t;
    uint32_t seen = 0;
    if (!pq_tr_struct_begin(&r))
        while (!pq_tr_field(&r, &id, &t) && t != PQ_T_STOP) {
            if (id > 0 && id < 32) seen |= 1u << id;
            ci_field(&r, ci, id, t);
        }
    if (!r.status && ((seen & 0x1e) != 0x1e || !ci->storage))
        pq_tr_fail(&r, "ColumnIndex lacks a required field");
    if (!r.status && ci_own(ci)) r.status = pq_errf(e, -ENOMEM, -1, "out of memory");
    if (r.status) {
        int st = r.status;
        pq_column_index_free(ci);
        return st;
    }
    for (int32_t i = 0; i < ci->npages; i++)
        if (ci->null_pages[i]) ci->min_len[i] = ci->max_len[i] = 0;
    return 0;
}

void pq_column_index_free(pq_column_index *ci)
{
    if (!ci) return;
    if (ci->storage) {
        void *values;
        memcpy(&values, ci->storage, sizeof values);
        free(values);
        free(ci->storage);
    }
    memset(ci, 0, sizeof *ci);
}

/* ---- OffsetIndex ----------------------------------------------------------------------- */

static int read_location(pq_tr *r, pq_page_location *pl)
{
    int16_t id;
    uint8_t t;
    int64_t v;
    uint32_t seen = 0;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (id > 0 && id < 32) seen |= 1u << id;
        if (id == 1) pq_tr_int(r, t, 0, INT64_MAX, &pl->offset);
        else if (id == 2 && !pq_tr_int(r, t, 1, INT32_MAX, &v)) pl->compressed_page_size = (int32_t)v;
        else if (id == 3) pq_tr_int(r, t, 0, INT64_MAX, &pl->first_row_index);
        else pq_tr_skip(r, t);
    }
    if (r->status) return r->status;
    if ((seen & 0xe) != 0xe) return pq_tr_fail(r, "PageLocation lacks a required field");
    return pq_tr_struct_end(r);
}

static int oi_pages(pq_tr *r, pq_offset_index *oi)
{
    uint8_t et;
    uint32_t n;
    if (pq_tr_list_begin(r, &et, &n, 0)) return r->status;
    if (n && et != PQ_T_STRUCT) return pq_tr_fail(r, "page_locations is not a list of structs");
    free(oi->pages);
    oi->pages = fail_calloc(n ? n : 1, sizeof *oi->pages);
    if (!oi->pages) return r->status = pq_errf(r->e, -ENOMEM, -1, "out of memory");
    oi->npages = (int32_t)n;
    for (uint32_t i = 0; i < n && !r->status; i++) {
        pq_page_location *pl = &oi->pages[i];
        if (read_location(r, pl)) break;
        if (i == 0 && pl->first_row_index != 0) pq_tr_fail(r, "first page does not start at row 0");
        if (i > 0 && (pl->offset <= pl[-1].offset || pl->first_row_index <= pl[-1].first_row_index))
            pq_tr_fail(r, "page locations are not increasing");
    }
    return r->status ? r->status : pq_tr_list_end(r);
}

int pq_offset_index_parse(const uint8_t *buf, size_t len, pq_offset_index *oi, pq_err *e)
{
    assert(oi && (buf || len == 0));
    memset(oi, 0, sizeof *oi);
    pq_tr r;
    pq_tr_init(&r, buf, len, -1, 0, e);
    int16_t id;
    uint8_t t;
    bool have = false;
    if (!pq_tr_struct_begin(&r))
        while (!pq_tr_field(&r, &id, &t) && t != PQ_T_STOP) {
            if (id == 1 && !pq_tr_expect(&r, t, PQ_T_LIST, "page_locations")) have = !oi_pages(&r, oi);
            else if (id != 1) pq_tr_skip(&r, t);
        }
    if (!r.status && !have) pq_tr_fail(&r, "OffsetIndex without page_locations");
    if (!r.status) pq_tr_struct_end(&r);
    if (r.status) {
        pq_offset_index_free(oi);
        return r.status;
    }
    return 0;
}

void pq_offset_index_free(pq_offset_index *oi)
{
    if (!oi) return;
    free(oi->pages);
    memset(oi, 0, sizeof *oi);
}

bool pq_offset_index_valid(const pq_offset_index *oi, int64_t nrows, uint64_t chunk_off,
                           uint64_t chunk_len)
{
    assert(oi && nrows >= 0 && chunk_len <= UINT64_MAX - chunk_off);
    if (oi->npages <= 0 || oi->pages[0].first_row_index != 0) return false;
    uint64_t at = chunk_off, end = chunk_off + chunk_len;
    for (int32_t pg = 0; pg < oi->npages; pg++) {
        const pq_page_location *l = &oi->pages[pg];
        if (pg > 0 && (l->first_row_index <= oi->pages[pg - 1].first_row_index ||
                       l->first_row_index >= nrows))
            return false;
        if (l->offset < 0 || (uint64_t)l->offset < at || (uint64_t)l->offset > end ||
            l->compressed_page_size <= 0 || (uint64_t)l->compressed_page_size > end - (uint64_t)l->offset)
            return false;
        at = (uint64_t)l->offset + (uint64_t)l->compressed_page_size;
    }
    return true;
}
