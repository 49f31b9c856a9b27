/* format/meta_write.c: thrift compact serialisation of FileMetaData, PageHeader, ColumnIndex,
 * OffsetIndex and BloomFilterHeader for the Parquet writer.
 *
 * Invariants:
 *  1. Output parses back with the readers of this module to the same values (round trip).
 *  2. Fields are written in increasing id order (short delta headers wherever possible).
 *  3. Statistics are written as min_value/max_value (fields 6/5) only; the deprecated fields
 *     are never written. FileMetaData declares TypeDefinedOrder for every column when
 *     column_orders_known.
 *  4. Each writer appends to out and returns 0 or -ENOMEM (out keeps what was appended).
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "format/meta_priv.h"

static void write_stats(pq_tw *w, int16_t id, const pq_stats *s)
{
    pq_tw_field(w, id, PQ_T_STRUCT);
    pq_tw_struct_begin(w);
    if (s->has_null_count) pq_tw_i64_field(w, 3, s->null_count);
    if (s->has_distinct) pq_tw_i64_field(w, 4, s->distinct_count);
    if (s->has_min_max) {
        pq_tw_binary_field(w, 5, s->max, s->max_len);
        pq_tw_binary_field(w, 6, s->min, s->min_len);
        pq_tw_bool_field(w, 7, s->max_exact);
        pq_tw_bool_field(w, 8, s->min_exact);
    }
    if (s->has_nan_count) pq_tw_i64_field(w, 9, s->nan_count);
    pq_tw_struct_end(w);
}

static int converted_of(pq_logical l)
{
    static const int8_t map[] = {
        [PQ_LOGICAL_NONE] = -1, [PQ_LOGICAL_STRING] = 0, [PQ_LOGICAL_ENUM] = 4,
        [PQ_LOGICAL_JSON] = 19, [PQ_LOGICAL_BSON] = 20, [PQ_LOGICAL_UUID] = -1,
        [PQ_LOGICAL_DECIMAL] = 5, [PQ_LOGICAL_DATE] = 6, [PQ_LOGICAL_TIME_MILLIS] = 7,
        [PQ_LOGICAL_TIME_MICROS] = 8, [PQ_LOGICAL_TIME_NANOS] = -1,
        [PQ_LOGICAL_TIMESTAMP_MILLIS] = 9, [PQ_LOGICAL_TIMESTAMP_MICROS] = 10,
        [PQ_LOGICAL_TIMESTAMP_NANOS] = -1, [PQ_LOGICAL_INT8] = 15, [PQ_LOGICAL_INT16] = 16,
        [PQ_LOGICAL_INT32] = 17, [PQ_LOGICAL_INT64] = 18, [PQ_LOGICAL_UINT8] = 11,
        [PQ_LOGICAL_UINT16] = 12, [PQ_LOGICAL_UINT32] = 13, [PQ_LOGICAL_UINT64] = 14,
        [PQ_LOGICAL_FLOAT16] = -1, [PQ_LOGICAL_INTERVAL] = 21, [PQ_LOGICAL_UNKNOWN] = -1,
    };
    return (unsigned)l < sizeof map ? map[l] : -1;
}

/* TIME/TIMESTAMP payload: isAdjustedToUTC + TimeUnit union. */
static void write_time(pq_tw *w, bool utc, int unit)
{
    pq_tw_bool_field(w, 1, utc);
    pq_tw_field(w, 2, PQ_T_STRUCT);
    pq_tw_struct_begin(w);
    pq_tw_empty_struct_field(w, (int16_t)unit);
    pq_tw_struct_end(w);
}

static void write_logical(pq_tw *w, const pq_column_desc *c)
{
    static const int8_t member[] = {
        [PQ_LOGICAL_STRING] = 1, [PQ_LOGICAL_ENUM] = 4, [PQ_LOGICAL_DECIMAL] = 5,
        [PQ_LOGICAL_DATE] = 6, [PQ_LOGICAL_TIME_MILLIS] = 7, [PQ_LOGICAL_TIME_MICROS] = 7,
        [PQ_LOGICAL_TIME_NANOS] = 7, [PQ_LOGICAL_TIMESTAMP_MILLIS] = 8,
        [PQ_LOGICAL_TIMESTAMP_MICROS] = 8, [PQ_LOGICAL_TIMESTAMP_NANOS] = 8,
        [PQ_LOGICAL_INT8] = 10, [PQ_LOGICAL_INT16] = 10, [PQ_LOGICAL_INT32] = 10,
        [PQ_LOGICAL_INT64] = 10, [PQ_LOGICAL_UINT8] = 10, [PQ_LOGICAL_UINT16] = 10,
        [PQ_LOGICAL_UINT32] = 10, [PQ_LOGICAL_UINT64] = 10, [PQ_LOGICAL_UNKNOWN] = 11,
        [PQ_LOGICAL_JSON] = 12, [PQ_LOGICAL_BSON] = 13, [PQ_LOGICAL_UUID] = 14,
        [PQ_LOGICAL_FLOAT16] = 15,
    };
    int id = (unsigned)c->logical < sizeof member ? member[c->logical] : 0;
    if (id == 0) return;
    pq_tw_field(w, 10, PQ_T_STRUCT);
    pq_tw_struct_begin(w);
    pq_tw_field(w, (int16_t)id, PQ_T_STRUCT);
    pq_tw_struct_begin(w);
    pq_logical l = c->logical;
    if (id == 5) {
        pq_tw_i32_field(w, 1, c->decimal_scale);
        pq_tw_i32_field(w, 2, c->decimal_precision);
    } else if (id == 7) {
        write_time(w, c->is_adjusted_to_utc, (int)(l - PQ_LOGICAL_TIME_MILLIS) + 1);
    } else if (id == 8) {
        write_time(w, c->is_adjusted_to_utc, (int)(l - PQ_LOGICAL_TIMESTAMP_MILLIS) + 1);
    } else if (id == 10) {
        int k = l >= PQ_LOGICAL_UINT8 ? (int)(l - PQ_LOGICAL_UINT8) : (int)(l - PQ_LOGICAL_INT8);
        uint8_t bits = (uint8_t)(8 << k);
        pq_tw_field(w, 1, PQ_T_BYTE);
        pq_tw_bytes(w, &bits, 1);
        pq_tw_bool_field(w, 2, l < PQ_LOGICAL_UINT8);
    }
    pq_tw_struct_end(w);
    pq_tw_struct_end(w);
}

static void write_schema(pq_tw *w, const pq_file_meta *m)
{
    pq_tw_field(w, 2, PQ_T_LIST);
    pq_tw_list_begin(w, PQ_T_STRUCT, (uint32_t)m->ncolumns + 1);
    pq_tw_struct_begin(w);
    pq_tw_binary_field(w, 4, "schema", 6);
    pq_tw_i32_field(w, 5, m->ncolumns);
    pq_tw_struct_end(w);
    for (int32_t i = 0; i < m->ncolumns; i++) {
        const pq_column_desc *c = &m->columns[i];
        assert(c->repetition == PQ_REQUIRED || c->repetition == PQ_OPTIONAL);
        pq_tw_struct_begin(w);
        pq_tw_i32_field(w, 1, (int32_t)c->physical);
        if (c->physical == PQ_FIXED_LEN_BYTE_ARRAY) pq_tw_i32_field(w, 2, c->type_length);
        pq_tw_i32_field(w, 3, (int32_t)c->repetition);
        pq_tw_binary_field(w, 4, c->name, (uint32_t)strlen(c->name));
        int ct = converted_of(c->logical);
        bool utc_only = c->logical >= PQ_LOGICAL_TIME_MILLIS && c->logical <= PQ_LOGICAL_TIMESTAMP_NANOS;
        if (ct >= 0 && (!utc_only || c->is_adjusted_to_utc)) pq_tw_i32_field(w, 6, ct);
        if (c->logical == PQ_LOGICAL_DECIMAL) {
            pq_tw_i32_field(w, 7, c->decimal_scale);
            pq_tw_i32_field(w, 8, c->decimal_precision);
        }
        if (c->field_id >= 0) pq_tw_i32_field(w, 9, c->field_id);
        write_logical(w, c);
        pq_tw_struct_end(w);
    }
}

static void write_colmeta(pq_tw *w, const pq_column_desc *c, const pq_chunk_meta *ch)
{
    pq_tw_field(w, 3, PQ_T_STRUCT);
    pq_tw_struct_begin(w);
    pq_tw_i32_field(w, 1, (int32_t)c->physical);
    uint32_t nenc = (uint32_t)__builtin_popcount(ch->encodings_mask);
    pq_tw_field(w, 2, PQ_T_LIST);
    pq_tw_list_begin(w, PQ_T_I32, nenc);
    for (int b = 0; b < 32; b++)
        if (ch->encodings_mask & (1u << b)) pq_tw_zigzag(w, b);
    pq_tw_field(w, 3, PQ_T_LIST);
    pq_tw_list_begin(w, PQ_T_BINARY, 1);
    pq_tw_binary(w, c->name, (uint32_t)strlen(c->name));
    pq_tw_i32_field(w, 4, (int32_t)ch->codec);
    pq_tw_i64_field(w, 5, ch->num_values);
    pq_tw_i64_field(w, 6, ch->total_uncompressed_size);
    pq_tw_i64_field(w, 7, ch->total_compressed_size);
    pq_tw_i64_field(w, 9, ch->data_page_offset);
    if (ch->has_index_page_offset) pq_tw_i64_field(w, 10, ch->index_page_offset);
    if (ch->has_dictionary_page_offset) pq_tw_i64_field(w, 11, ch->dictionary_page_offset);
    const pq_stats *st = pq_chunk_stats(ch); /* a parsed footer: pq_file_meta_stats first */
    if (st->has_min_max || st->has_null_count || st->has_distinct || st->has_nan_count)
        write_stats(w, 12, st);
    if (ch->has_bloom_filter) pq_tw_i64_field(w, 14, ch->bloom_filter_offset);
    if (ch->has_bloom_filter && ch->has_bloom_filter_length) pq_tw_i32_field(w, 15, ch->bloom_filter_length);
    pq_tw_struct_end(w);
}

static void write_row_group(pq_tw *w, const pq_file_meta *m, const pq_row_group *g)
{
    pq_tw_struct_begin(w);
    pq_tw_field(w, 1, PQ_T_LIST);
    pq_tw_list_begin(w, PQ_T_STRUCT, (uint32_t)m->ncolumns);
    for (int32_t i = 0; i < m->ncolumns; i++) {
        const pq_chunk_meta *ch = &g->chunks[i];
        pq_tw_struct_begin(w);
        pq_tw_i64_field(w, 2, ch->data_page_offset); /* deprecated file_offset: the chunk start */
        write_colmeta(w, &m->columns[i], ch);
        if (ch->has_offset_index) {
            pq_tw_i64_field(w, 4, ch->offset_index_offset);
            pq_tw_i32_field(w, 5, ch->offset_index_length);
        }
        if (ch->has_column_index) {
            pq_tw_i64_field(w, 6, ch->column_index_offset);
            pq_tw_i32_field(w, 7, ch->column_index_length);
        }
        pq_tw_struct_end(w);
    }
    pq_tw_i64_field(w, 2, g->total_byte_size);
    pq_tw_i64_field(w, 3, g->num_rows);
    if (g->has_file_offset) pq_tw_i64_field(w, 5, g->file_offset);
    if (g->total_compressed_size) pq_tw_i64_field(w, 6, g->total_compressed_size);
    pq_tw_struct_end(w);
}

int pq_write_file_meta(pq_buf *out, const pq_file_meta *m)
{
    assert(out && m && m->ncolumns >= 0 && m->nrow_groups >= 0 && !m->has_nested);
    pq_tw w;
    pq_tw_init(&w, out);
    pq_tw_struct_begin(&w);
    pq_tw_i32_field(&w, 1, m->version ? m->version : 2);
    write_schema(&w, m);
    pq_tw_i64_field(&w, 3, m->num_rows);
    pq_tw_field(&w, 4, PQ_T_LIST);
    pq_tw_list_begin(&w, PQ_T_STRUCT, (uint32_t)m->nrow_groups);
    for (int32_t g = 0; g < m->nrow_groups; g++) write_row_group(&w, m, &m->row_groups[g]);
    if (m->nkv > 0) {
        pq_tw_field(&w, 5, PQ_T_LIST);
        pq_tw_list_begin(&w, PQ_T_STRUCT, (uint32_t)m->nkv);
        for (int32_t i = 0; i < m->nkv; i++) {
            pq_tw_struct_begin(&w);
            pq_tw_binary_field(&w, 1, m->kv[i].key, (uint32_t)strlen(m->kv[i].key));
            if (m->kv[i].value) pq_tw_binary_field(&w, 2, m->kv[i].value, m->kv[i].value_len);
            pq_tw_struct_end(&w);
        }
    }
    if (m->created_by) pq_tw_binary_field(&w, 6, m->created_by, (uint32_t)strlen(m->created_by));
    if (m->column_orders_known) {
        pq_tw_field(&w, 7, PQ_T_LIST);
        pq_tw_list_begin(&w, PQ_T_STRUCT, (uint32_t)m->ncolumns);
        for (int32_t i = 0; i < m->ncolumns; i++) {
            pq_tw_struct_begin(&w);
            pq_tw_empty_struct_field(&w, 1);
            pq_tw_struct_end(&w);
        }
    }
    pq_tw_struct_end(&w);
    assert(w.depth == 0);
    return w.status;
}

int pq_write_page_header(pq_buf *out, const pq_page_header *h)
{
    assert(out && h && h->compressed_size >= 0 && h->uncompressed_size >= 0);
    pq_tw w;
    pq_tw_init(&w, out);
    pq_tw_struct_begin(&w);
    pq_tw_i32_field(&w, 1, (int32_t)h->type);
    pq_tw_i32_field(&w, 2, h->uncompressed_size);
    pq_tw_i32_field(&w, 3, h->compressed_size);
    if (h->has_crc) pq_tw_i32_field(&w, 4, (int32_t)h->crc);
    int16_t sub = h->type == PQ_PAGE_DATA ? 5 : h->type == PQ_PAGE_DICTIONARY ? 7 : 8;
    assert(h->type != PQ_PAGE_INDEX);
    pq_tw_field(&w, sub, PQ_T_STRUCT);
    pq_tw_struct_begin(&w);
    pq_tw_i32_field(&w, 1, h->num_values);
    if (sub == 5) {
        pq_tw_i32_field(&w, 2, (int32_t)h->encoding);
        pq_tw_i32_field(&w, 3, (int32_t)h->def_level_encoding);
        pq_tw_i32_field(&w, 4, (int32_t)h->rep_level_encoding);
        if (h->has_stats) write_stats(&w, 5, &h->stats);
    } else if (sub == 7) {
        pq_tw_i32_field(&w, 2, (int32_t)h->encoding);
        if (h->dict_is_sorted) pq_tw_bool_field(&w, 3, true);
    } else {
        pq_tw_i32_field(&w, 2, h->num_nulls);
        pq_tw_i32_field(&w, 3, h->num_rows);
        pq_tw_i32_field(&w, 4, (int32_t)h->encoding);
        pq_tw_i32_field(&w, 5, h->def_levels_byte_length);
        pq_tw_i32_field(&w, 6, h->rep_levels_byte_length);
        pq_tw_bool_field(&w, 7, h->is_compressed);
        if (h->has_stats) write_stats(&w, 8, &h->stats);
    }
    pq_tw_struct_end(&w);
    pq_tw_struct_end(&w);
    return w.status;
}

int pq_write_column_index(pq_buf *out, const pq_column_index *ci)
{
    assert(out && ci && ci->npages >= 0);
    uint32_t n = (uint32_t)ci->npages;
    pq_tw w;
    pq_tw_init(&w, out);
    pq_tw_struct_begin(&w);
    pq_tw_field(&w, 1, PQ_T_LIST);
    pq_tw_list_begin(&w, PQ_T_TRUE, n);
    for (uint32_t i = 0; i < n; i++) pq_tw_bool_elem(&w, ci->null_pages[i]);
    pq_tw_field(&w, 2, PQ_T_LIST);
    pq_tw_list_begin(&w, PQ_T_BINARY, n);
    for (uint32_t i = 0; i < n; i++) pq_tw_binary(&w, ci->min[i], ci->min_len[i]);
    pq_tw_field(&w, 3, PQ_T_LIST);
    pq_tw_list_begin(&w, PQ_T_BINARY, n);
    for (uint32_t i = 0; i < n; i++) pq_tw_binary(&w, ci->max[i], ci->max_len[i]);
    pq_tw_i32_field(&w, 4, (int32_t)ci->boundary_order);
    if (ci->has_null_counts) {
        pq_tw_field(&w, 5, PQ_T_LIST);
        pq_tw_list_begin(&w, PQ_T_I64, n);
        for (uint32_t i = 0; i < n; i++) pq_tw_zigzag(&w, ci->null_counts[i]);
    }
    pq_tw_struct_end(&w);
    return w.status;
}

int pq_write_offset_index(pq_buf *out, const pq_offset_index *oi)
{
    assert(out && oi && oi->npages >= 0);
    pq_tw w;
    pq_tw_init(&w, out);
    pq_tw_struct_begin(&w);
    pq_tw_field(&w, 1, PQ_T_LIST);
    pq_tw_list_begin(&w, PQ_T_STRUCT, (uint32_t)oi->npages);
    for (int32_t i = 0; i < oi->npages; i++) {
        pq_tw_struct_begin(&w);
        pq_tw_i64_field(&w, 1, oi->pages[i].offset);
        pq_tw_i32_field(&w, 2, oi->pages[i].compressed_page_size);
        pq_tw_i64_field(&w, 3, oi->pages[i].first_row_index);
        pq_tw_struct_end(&w);
    }
    pq_tw_struct_end(&w);
    return w.status;
}

int pq_write_bloom_header(pq_buf *out, int32_t num_bytes)
{
    assert(out && num_bytes > 0 && num_bytes % 32 == 0);
    pq_tw w;
    pq_tw_init(&w, out);
    pq_tw_struct_begin(&w);
    pq_tw_i32_field(&w, 1, num_bytes);
    for (int16_t id = 2; id <= 4; id++) { /* BLOCK, XXHASH, UNCOMPRESSED: member 1 of each */
        pq_tw_field(&w, id, PQ_T_STRUCT);
        pq_tw_struct_begin(&w);
        pq_tw_empty_struct_field(&w, 1);
        pq_tw_struct_end(&w);
    }
    pq_tw_struct_end(&w);
    return w.status;
}
