/* format/meta_file.c: FileMetaData -> pq_file_meta (row groups, column chunks, key-value
 * metadata, column orders). The schema lives in meta_schema.c, statistics in meta_stats.c.
 *
 * Invariants:
 *  1. Schema before row_groups (see meta.c); each row group has exactly ncolumns chunks.
 *  2. Required thrift fields are tracked in a bit mask; a missing one is RINGSCAN_EFORMAT.
 *  3. Statistics are walked, not decoded (meta.h invariant 6): each chunk keeps its null
 *     count and a copy of its struct's bytes in the arena.
 *  4. Encrypted or externally stored column chunks are RINGSCAN_EUNSUPPORTED naming the column.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/meta_priv.h"
#include "common/fail.h"
#include "format/column_nested.h"

typedef struct ctx {
    pq_tr r;
    pq_file_meta *m;
    pq_arena *a;
    const pq_meta_limits *lim;
    pq_err *e;
    const uint8_t *created_by;
    uint32_t created_by_len;
    uint8_t *orders;
    uint32_t norders;
    bool has_created_by;
} ctx;

static int oom(ctx *c)
{
    if (!c->r.status) c->r.status = pq_errf(c->e, -ENOMEM, -1, "out of memory");
    return c->r.status;
}

static int fail_col(ctx *c, int status, int32_t col, const char *what)
{
    const char *name = c->m->columns[col].name;
    pq_err_column(c->e, name);
    int64_t off = c->r.base_offset >= 0 ? c->r.base_offset + (int64_t)pq_tr_pos(&c->r) : -1;
    if (!c->r.status) c->r.status = pq_errf(c->e, status, off, "column '%s': %s", name, what);
    return c->r.status;
}

static void read_i64(pq_tr *r, uint8_t t, int64_t lo, int64_t *v)
{
    pq_tr_int(r, t, lo, INT64_MAX, v);
}

static int read_encodings(pq_tr *r, uint32_t *mask)
{
    uint8_t et;
    uint32_t n;
    int64_t v;
    if (pq_tr_list_begin(r, &et, &n, 0)) return r->status;
    for (uint32_t i = 0; i < n && !r->status; i++)
        if (!pq_tr_int(r, et, INT32_MIN, INT32_MAX, &v) && v >= 0 && v < 32) *mask |= 1u << v;
    return r->status ? r->status : pq_tr_list_end(r);
}

/* A Statistics struct walked: its bytes and null count kept (invariant 3). A copy per chunk,
 * not one of the footer's span: a span of 0.1-1 MB is fresh memory at every open (glibc
 * maps it, each page faulted in by the copy), a chunk's few dozen bytes come from arena
 * blocks of 64 KiB. */
static void skim_stats(ctx *c, pq_chunk_meta *ch)
{
    size_t at = pq_tr_pos(&c->r);
    if (pq_raw_stats_skim(&c->r, &ch->stats.has_null_count, &ch->stats.null_count)) return;
    size_t end = pq_tr_pos(&c->r);
    assert(at < end && end <= UINT32_MAX); /* the input is at most 4 GiB (pq_file_meta_parse) */
    if (!(ch->stats_raw = pq_arena_copy(c->a, c->r.base + at, end - at))) {
        oom(c);
        return;
    }
    ch->stats_pending = true;
    ch->stats_off = (uint32_t)at;
    ch->stats_len = (uint32_t)(end - at);
}

/* ColumnMetaData (field 3 of ColumnChunk). */
static int read_colmeta(ctx *c, int32_t col, pq_chunk_meta *ch)
{
    pq_tr *r = &c->r;
    int16_t id;
    uint8_t t;
    int64_t v;
    uint32_t seen = 0;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (id > 0 && id < 32) seen |= 1u << id;
        switch (id) {
        case 1:
            if (!pq_tr_int(r, t, 0, 7, &v) && v != (int64_t)c->m->columns[col].physical)
                return fail_col(c, RINGSCAN_EFORMAT, col, "chunk type differs from the schema");
            break;
        case 2: if (!pq_tr_expect(r, t, PQ_T_LIST, "encodings")) read_encodings(r, &ch->encodings_mask); break;
        case 4: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) ch->codec = (pq_codec)v; break;
        case 5: read_i64(r, t, 0, &ch->num_values); break;
        case 6: read_i64(r, t, 0, &ch->total_uncompressed_size); break;
        case 7: read_i64(r, t, 0, &ch->total_compressed_size); break;
        case 9: read_i64(r, t, 0, &ch->data_page_offset); break;
        case 10: read_i64(r, t, 0, &ch->index_page_offset); ch->has_index_page_offset = true; break;
        case 11: read_i64(r, t, 0, &ch->dictionary_page_offset); break;
        case 12: if (!pq_tr_expect(r, t, PQ_T_STRUCT, "statistics")) skim_stats(c, ch); break;
        case 14: read_i64(r, t, 0, &ch->bloom_filter_offset); ch->has_bloom_filter = true; break;
        case 15:
            if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) ch->bloom_filter_length = (int32_t)v;
            ch->has_bloom_filter_length = true;
            break;
        default: pq_tr_skip(r, t); break;
        }
    }
    if (r->status) return r->status;
    uint32_t need = 1u << 1 | 1u << 2 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 9;
    if ((seen & need) != need)
        return fail_col(c, RINGSCAN_EFORMAT, col, "ColumnMetaData lacks a required field");
    ch->has_dictionary_page_offset = (seen & 1u << 11) && ch->dictionary_page_offset > 0;
    return pq_tr_struct_end(r);
}

/* ColumnChunk. */
static int read_chunk(ctx *c, int32_t col, pq_chunk_meta *ch)
{
    pq_tr *r = &c->r;
    int16_t id;
    uint8_t t;
    int64_t v;
    bool has_meta = false, has_oil = false, has_cil = false;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        switch (id) {
        case 1: return fail_col(c, RINGSCAN_EUNSUPPORTED, col, "column chunk stored in another file");
        case 3:
            if (pq_tr_expect(r, t, PQ_T_STRUCT, "meta_data")) break;
            has_meta = !read_colmeta(c, col, ch);
            break;
        case 4: read_i64(r, t, 0, &ch->offset_index_offset); ch->has_offset_index = true; break;
        case 5: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) ch->offset_index_length = (int32_t)v; has_oil = true; break;
        case 6: read_i64(r, t, 0, &ch->column_index_offset); ch->has_column_index = true; break;
        case 7: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) ch->column_index_length = (int32_t)v; has_cil = true; break;
        case 8: case 9:
            return fail_col(c, RINGSCAN_EUNSUPPORTED, col, "encrypted columns are not supported");
        default: pq_tr_skip(r, t); break;
        }
    }
    if (r->status) return r->status;
    if (!has_meta) return fail_col(c, RINGSCAN_EFORMAT, col, "column chunk without meta_data");
    ch->has_offset_index = ch->has_offset_index && has_oil && ch->offset_index_length > 0;
    ch->has_column_index = ch->has_column_index && has_cil && ch->column_index_length > 0;
    return pq_tr_struct_end(r);
}

static int read_chunks(ctx *c, pq_row_group *g)
{
    pq_tr *r = &c->r;
    uint8_t et;
    uint32_t n;
    if (pq_tr_list_begin(r, &et, &n, 0)) return r->status;
    if (n != (uint32_t)c->m->ncolumns || (n && et != PQ_T_STRUCT))
        return pq_tr_fail(r, "row group column count differs from the schema");
    g->chunks = pq_arena_alloc(c->a, (size_t)n * sizeof *g->chunks + 1);
    if (!g->chunks) return oom(c);
    for (uint32_t i = 0; i < n && !r->status; i++)
        read_chunk(c, (int32_t)i, &g->chunks[i]);
    return r->status ? r->status : pq_tr_list_end(r);
}

static int read_row_group(ctx *c, int32_t rg)
{
    pq_tr *r = &c->r;
    pq_row_group *g = &c->m->row_groups[rg];
    int16_t id;
    uint8_t t;
    uint32_t seen = 0;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (id > 0 && id < 32) seen |= 1u << id;
        switch (id) {
        case 1: if (!pq_tr_expect(r, t, PQ_T_LIST, "RowGroup.columns")) read_chunks(c, g); break;
        case 2: read_i64(r, t, 0, &g->total_byte_size); break;
        case 3: read_i64(r, t, 0, &g->num_rows); break;
        case 5: read_i64(r, t, 0, &g->file_offset); g->has_file_offset = true; break;
        case 6: read_i64(r, t, 0, &g->total_compressed_size); break;
        default: pq_tr_skip(r, t); break;
        }
    }
    if (r->status) return r->status;
    if ((seen & 0xe) != 0xe) return pq_tr_fail(r, "RowGroup lacks a required field");
    return pq_tr_struct_end(r);
}

static int read_row_groups(ctx *c)
{
    pq_tr *r = &c->r;
    uint8_t et;
    uint32_t n;
    if (pq_tr_list_begin(r, &et, &n, c->lim->max_row_groups)) {
        if (r->status == RINGSCAN_ELIMIT && r->e) /* name the limit (thrift.c cannot) */
            snprintf(r->e->msg, sizeof r->e->msg, "row group count above the limit max_row_groups=%u",
                     c->lim->max_row_groups);
        return r->status;
    }
    if (n && et != PQ_T_STRUCT) return pq_tr_fail(r, "row_groups is not a list of structs");
    size_t nchunks = (size_t)n * (size_t)c->m->ncolumns;
    if (nchunks > pq_tr_left(r)) return pq_tr_fail(r, "more column chunks than bytes left");
    c->m->row_groups = pq_arena_alloc(c->a, (size_t)n * sizeof *c->m->row_groups + 1);
    if (!c->m->row_groups) return oom(c);
    c->m->nrow_groups = (int32_t)n;
    for (uint32_t i = 0; i < n && !r->status; i++) read_row_group(c, (int32_t)i);
    return r->status ? r->status : pq_tr_list_end(r);
}

static int read_kv(ctx *c)
{
    pq_tr *r = &c->r;
    uint8_t et, t;
    uint32_t n;
    int16_t id;
    if (pq_tr_list_begin(r, &et, &n, 0)) return r->status;
    if (n && et != PQ_T_STRUCT) return pq_tr_fail(r, "key_value_metadata is not a list of structs");
    c->m->kv = pq_arena_alloc(c->a, (size_t)n * sizeof *c->m->kv + 1);
    if (!c->m->kv) return oom(c);
    for (uint32_t i = 0; i < n && !r->status; i++) {
        pq_kv *kv = &c->m->kv[i];
        const uint8_t *p;
        uint32_t len;
        if (pq_tr_struct_begin(r)) break;
        while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
            if ((id == 1 || id == 2) && !pq_tr_expect(r, t, PQ_T_BINARY, "KeyValue") &&
                !pq_tr_binary(r, &p, &len)) {
                char *s = pq_arena_strdup(c->a, p, len);
                if (!s) return oom(c);
                if (id == 1) kv->key = s;
                else kv->value = s, kv->value_len = len;
            } else if (id != 1 && id != 2) {
                pq_tr_skip(r, t);
            }
        }
        if (!r->status && !kv->key) pq_tr_fail(r, "KeyValue without a key");
        pq_tr_struct_end(r);
        c->m->nkv = (int32_t)i + 1;
    }
    return r->status ? r->status : pq_tr_list_end(r);
}

/* list<ColumnOrder>: each a union; remembers the member id (255 when not one we know). */
static int read_column_orders(ctx *c)
{
    pq_tr *r = &c->r;
    uint8_t et, t;
    uint32_t n;
    int16_t id;
    if (pq_tr_list_begin(r, &et, &n, 0)) return r->status;
    if (n && et != PQ_T_STRUCT) return pq_tr_fail(r, "column_orders is not a list of structs");
    c->orders = pq_arena_alloc(c->a, n + 1u);
    if (!c->orders) return oom(c);
    c->norders = n;
    c->m->column_orders_present = true;
    for (uint32_t i = 0; i < n && !r->status; i++) {
        c->orders[i] = 255;
        if (pq_tr_struct_begin(r)) break;
        while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
            if (id >= 1 && id <= 3 && t == PQ_T_STRUCT) c->orders[i] = (uint8_t)id;
            pq_tr_skip(r, t);
        }
        pq_tr_struct_end(r);
    }
    return r->status ? r->status : pq_tr_list_end(r);
}

static void read_top_field(ctx *c, int16_t id, uint8_t t, uint32_t *seen)
{
    pq_tr *r = &c->r;
    int64_t v;
    if (id > 0 && id < 32) {
        if (*seen & (1u << id)) {
            pq_tr_fail(r, "FileMetaData field repeated");
            return;
        }
        *seen |= 1u << id;
    }
    switch (id) {
    case 1: if (!pq_tr_int(r, t, INT32_MIN, INT32_MAX, &v)) c->m->version = (int32_t)v; break;
    case 2:
        if (!pq_tr_expect(r, t, PQ_T_LIST, "schema")) {
            int rc = pq_schema_read(r, c->m, c->a, c->lim, c->e);
            if (rc && !r->status) r->status = rc;
        }
        break;
    case 3: read_i64(r, t, 0, &c->m->num_rows); break;
    case 4:
        if (!(*seen & (1u << 2))) pq_tr_fail(r, "row_groups before the schema");
        else if (!pq_tr_expect(r, t, PQ_T_LIST, "row_groups")) read_row_groups(c);
        break;
    case 5: if (!pq_tr_expect(r, t, PQ_T_LIST, "key_value_metadata")) read_kv(c); break;
    case 6:
        if (!pq_tr_expect(r, t, PQ_T_BINARY, "created_by") &&
            !pq_tr_binary(r, &c->created_by, &c->created_by_len))
            c->has_created_by = true;
        break;
    case 7: if (!pq_tr_expect(r, t, PQ_T_LIST, "column_orders")) read_column_orders(c); break;
    case 8:
        if (!r->status)
            r->status = pq_errf(c->e, RINGSCAN_EUNSUPPORTED, -1, "file is encrypted");
        break;
    default: pq_tr_skip(r, t); break;
    }
}

/* Column orders onto columns; no column's statistics decoded yet (meta.h invariant 6). */
static int finish(ctx *c)
{
    pq_file_meta *m = c->m;
    if (!(m->stats_decoded = pq_arena_alloc(c->a, (size_t)m->ncolumns + 1))) return oom(c);
    if (c->has_created_by && !(m->created_by = pq_arena_strdup(c->a, c->created_by, c->created_by_len)))
        return oom(c);
    bool match = m->column_orders_present && c->norders == (uint32_t)m->ncolumns;
    m->column_orders_known = match;
    for (int32_t i = 0; i < m->ncolumns; i++) {
        uint8_t o = !m->column_orders_present ? 0 : match ? c->orders[i] : 255;
        m->columns[i].column_order = o;
        if (o == 255) m->column_orders_known = false;
    }
    return 0;
}

/* Each top-level field that is not flat: whether the format can read its shape, once, here
 * (pq_schema_node.shape_ok), so that looking a field up later needs no memory: a lookup that
 * ran out of it was taken for a shape that cannot be read (a dataset's schema then left the
 * field out, its scan ending 0 without it). */
static void check_shapes(ctx *c)
{
    pq_file_meta *m = c->m;
    for (int32_t i = 0; m->has_nested && i < m->nnodes; i = m->nodes[i].end) {
        assert(m->nodes[i].depth == 1 && m->nodes[i].end > i);
        if (m->nodes[i].shape == PQ_SHAPE_FLAT) continue;
        int rc = pq_nest_check(m, i, NULL);
        if (rc == -ENOMEM) {
            oom(c);
            return;
        }
        m->nodes[i].shape_ok = rc == 0 ? 1 : -1;
    }
}

int pq_file_meta_parse(const uint8_t *buf, size_t len, const pq_meta_limits *limits,
                       pq_file_meta *out, pq_err *e)
{
    assert(out && (buf || len == 0));
    pq_meta_limits deflim;
    if (!limits) pq_meta_limits_default(&deflim), limits = &deflim;
    memset(out, 0, sizeof *out);
    if (len > UINT32_MAX) /* chunks keep 32-bit positions of their statistics in it */
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "metadata of %zu bytes is over 4 GiB", len);
    out->footer_offset = -1;
    ctx c = {.m = out, .lim = limits, .e = e};
    pq_tr_init(&c.r, buf, len, 0, limits->max_thrift_depth, e); /* (offsets: positions in buf) */
    if (!(c.a = pq_arena_new())) return pq_errf(e, -ENOMEM, -1, "out of memory");
    out->arena = c.a;
    int16_t id;
    uint8_t t;
    uint32_t seen = 0;
    if (!pq_tr_struct_begin(&c.r))
        while (!pq_tr_field(&c.r, &id, &t) && t != PQ_T_STOP) read_top_field(&c, id, t, &seen);
    if (!c.r.status && (seen & 0x1c) != 0x1c)
        pq_tr_fail(&c.r, "FileMetaData lacks schema, num_rows or row_groups");
    if (!c.r.status) finish(&c);
    if (!c.r.status) check_shapes(&c);
    if (!c.r.status && pq_file_meta_index(out)) oom(&c);
    if (c.r.status) {
        int st = c.r.status;
        pq_file_meta_free(out);
        return st;
    }
    assert(out->nrow_groups >= 0 && out->ncolumns >= 0);
    return 0;
}
