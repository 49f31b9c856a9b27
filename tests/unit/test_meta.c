/* tests for format/meta*.c and format/bloom.c on the parquet-testing corpus (run from the
 * project root) and on synthetic buffers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "format/bloom.h"
#include "format/meta.h"
#include "format/meta_priv.h"
#include "format/name_index.h"


#include "testing_data.h"

/* Loads a whole file, parses its footer and decodes its statistics. Returns the first
 * failing status; *file owns the bytes. */
static int load(const char *name, uint8_t **file, size_t *len, pq_file_meta *m, pq_err *e)
{
    *file = slurp(name, len);
    if (!*file) return -1;
    uint64_t off;
    uint32_t mlen;
    bool in_tail;
    int rc = pq_footer_locate(*file, *len, *len, 0, &off, &mlen, &in_tail, e);
    if (rc) return rc;
    if (!in_tail) return -2;
    rc = pq_file_meta_parse(*file + off, mlen, NULL, m, e);
    return rc ? rc : pq_file_meta_stats(m, -1, e);
}

static void alltypes_plain(void)
{
    uint8_t *f;
    size_t n;
    pq_file_meta m;
    pq_err e = {0};
    CHECK(load("alltypes_plain.parquet", &f, &n, &m, &e) == 0);
    if (!f) return;
    CHECK_EQ_I64(m.num_rows, 8);
    CHECK_EQ_I64(m.ncolumns, 11);
    CHECK_EQ_I64(m.nrow_groups, 1);
    static const char *names[] = {"id", "bool_col", "tinyint_col", "smallint_col", "int_col", "bigint_col",
                                  "float_col", "double_col", "date_string_col", "string_col", "timestamp_col"};
    static const pq_physical types[] = {PQ_INT32, PQ_BOOLEAN, PQ_INT32, PQ_INT32, PQ_INT32, PQ_INT64,
                                        PQ_FLOAT, PQ_DOUBLE, PQ_BYTE_ARRAY, PQ_BYTE_ARRAY, PQ_INT96};
    for (int i = 0; i < 11 && i < m.ncolumns; i++) {
        CHECK_STR(m.columns[i].name, names[i]);
        CHECK_EQ_I64(m.columns[i].physical, types[i]);
        CHECK_EQ_I64(m.columns[i].max_def_level, 1);
    }
    CHECK_EQ_I64(pq_file_meta_find_column(&m, "string_col"), 9);
    CHECK(strncmp(m.created_by, "impala version 1.3.0", 20) == 0);
    CHECK(!m.column_orders_present);
    const pq_chunk_meta *ch = &m.row_groups[0].chunks[0];
    CHECK_EQ_I64(ch->codec, PQ_CODEC_UNCOMPRESSED);
    CHECK_EQ_I64(ch->num_values, 8);
    CHECK(ch->encodings_mask & (1u << PQ_ENC_PLAIN_DICTIONARY));
    CHECK(!m.row_groups[0].chunks[10].stats.usable); /* INT96 */
    /* the first page of column id: dictionary page at dictionary_page_offset or data_page_offset */
    int64_t p0 = ch->has_dictionary_page_offset ? ch->dictionary_page_offset : ch->data_page_offset;
    pq_page_header h;
    int hl = pq_page_header_parse(f + p0, n - (size_t)p0, &h, &e);
    CHECK(hl > 0);
    CHECK_EQ_I64(h.type, PQ_PAGE_DICTIONARY);
    CHECK_EQ_I64(h.num_values, 8);
    /* the data page follows the dictionary */
    int64_t p1 = p0 + hl + h.compressed_size;
    hl = pq_page_header_parse(f + p1, n - (size_t)p1, &h, &e);
    CHECK(hl > 0 && h.type == PQ_PAGE_DATA && h.num_values == 8);
    CHECK_EQ_I64(h.encoding, PQ_ENC_PLAIN_DICTIONARY);
    pq_file_meta_free(&m);
    free(f);
}

static void truncated_footer(void)
{
    size_t n;
    uint8_t *f = slurp("alltypes_plain.parquet", &n);
    if (!f) { CHECK(0); return; }
    uint64_t off;
    uint32_t mlen;
    bool in_tail;
    CHECK(pq_footer_locate(f, n, n, 0, &off, &mlen, &in_tail, NULL) == 0);
    /* every prefix of the metadata fails cleanly */
    for (uint32_t cut = 0; cut < mlen; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, f + off, cut);
        pq_file_meta m;
        pq_err e = {0};
        int rc = pq_file_meta_parse(copy, cut, NULL, &m, &e);
        CHECK(rc == RINGSCAN_EFORMAT);
        CHECK(m.arena == NULL && m.columns == NULL);
        free(copy);
    }
    /* every tail shorter than 8 bytes, or cut file sizes, fails in the footer */
    pq_err e = {0};
    for (size_t t = 0; t < 8; t++) CHECK(pq_footer_locate(f + n - t, t, n, 0, &off, &mlen, &in_tail, &e) < 0);
    for (size_t cut = 1; cut < n; cut += 7) {
        int rc = pq_footer_locate(f, cut, cut, 0, &off, &mlen, &in_tail, &e);
        if (rc == 0) {
            pq_file_meta m;
            rc = pq_file_meta_parse(f + off, mlen, NULL, &m, &e);
            pq_file_meta_free(&m);
        }
        CHECK(rc < 0);
    }
    /* a tail not holding the metadata asks for a second read */
    CHECK(pq_footer_locate(f + n - 100, 100, n, 0, &off, &mlen, &in_tail, &e) == 0);
    CHECK(!in_tail && off + mlen + 8 == n);
    /* the metadata cap */
    CHECK(pq_footer_locate(f, n, n, 16, &off, &mlen, &in_tail, &e) == RINGSCAN_ELIMIT);
    CHECK(strstr(e.msg, "max_meta_bytes") != NULL);
    /* encrypted footer */
    uint8_t enc[16] = "PARExxxx\0\0\0\0PARE";
    CHECK(pq_footer_locate(enc, 16, 16, 0, &off, &mlen, &in_tail, &e) == RINGSCAN_EUNSUPPORTED);
    CHECK_STR(e.msg, "file is encrypted");
    free(f);
}

/* Nested files open: their leaves keep their paths and pyarrow's levels (ParquetSchema.column
 * max_definition_level / max_repetition_level), flat top-level columns stay flat. */
static void nested_files(void)
{
    static const struct {
        const char *file, *path;
        int32_t col, def, rep;
        bool nested;
    } want[] = {
        {"nested_lists.snappy.parquet", "a.list.element.list.element.list.element", 0, 7, 3, true},
        {"nested_lists.snappy.parquet", "b", 1, 0, 0, false},
        {"list_columns.parquet", "int64_list.list.item", 0, 3, 1, true},
        {"nested_structs.rust.parquet", "roll_num.min", 0, 0, 0, true},
        {"repeated_primitive_no_list.parquet", "Int32_list", 0, 1, 1, true},
        {"repeated_primitive_no_list.parquet", "group_of_lists.String_list_in_group", 3, 1, 1, true},
        {"old_list_structure.parquet", "a.array.array", 0, 2, 2, true},
        {"nested_maps.snappy.parquet", "a.key_value.value.key_value.value", 2, 4, 2, true},
        {"nested_maps.snappy.parquet", "b", 3, 0, 0, false},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint8_t *f;
        size_t n;
        pq_file_meta m;
        pq_err e = {0};
        int rc = load(want[i].file, &f, &n, &m, &e);
        if (rc) fprintf(stderr, "  %s: %d %s\n", want[i].file, rc, e.msg);
        CHECK(rc == 0);
        if (rc == 0) {
            CHECK(m.has_nested);
            CHECK_EQ_I64(pq_file_meta_find_column(&m, want[i].path), want[i].col);
            const pq_column_desc *c = &m.columns[want[i].col];
            CHECK_STR(c->name, want[i].path);
            CHECK_EQ_I64(c->max_def_level, want[i].def);
            CHECK_EQ_I64(c->max_rep_level, want[i].rep);
            CHECK_EQ_I64(c->nested, want[i].nested);
            CHECK_EQ_I64(m.nodes[c->node].column, want[i].col);
            CHECK_EQ_I64(pq_file_meta_check(&m, n, &e), 0);
        }
        pq_file_meta_free(&m);
        free(f);
    }
    /* the LIST of old_list_structure is the legacy "array" form: its item is a.array */
    uint8_t *f;
    size_t n;
    pq_file_meta m;
    pq_err e = {0};
    CHECK(load("old_list_structure.parquet", &f, &n, &m, &e) == 0);
    if (m.nnodes == 3) {
        CHECK_EQ_I64(m.nodes[0].kind, PQ_NODE_LIST);
        CHECK_EQ_I64(m.nodes[0].element, 1);
        CHECK_EQ_I64(m.nodes[1].kind, PQ_NODE_LIST);
        CHECK_EQ_I64(m.nodes[1].element, 2);
    } else CHECK_EQ_I64(m.nnodes, 3);
    pq_file_meta_free(&m);
    free(f);
}

static void page_index(void)
{
    uint8_t *f;
    size_t n;
    pq_file_meta m;
    pq_err e = {0};
    CHECK(load("alltypes_tiny_pages_plain.parquet", &f, &n, &m, &e) == 0);
    if (!f) return;
    CHECK_EQ_I64(m.num_rows, 7300);
    CHECK_EQ_I64(m.ncolumns, 13);
    CHECK(m.column_orders_known);
    CHECK_EQ_I64(m.columns[2].logical, PQ_LOGICAL_INT8);
    CHECK_EQ_I64(m.columns[9].logical, PQ_LOGICAL_STRING);
    const pq_chunk_meta *ch = &m.row_groups[0].chunks[0]; /* id */
    CHECK(ch->stats.usable && ch->stats.min_len == 4);
    int32_t mn, mx;
    memcpy(&mn, ch->stats.min, 4);
    memcpy(&mx, ch->stats.max, 4);
    CHECK_EQ_I64(mn, 0);
    CHECK_EQ_I64(mx, 7299);
    CHECK(ch->has_offset_index && ch->has_column_index);
    pq_offset_index oi;
    CHECK(pq_offset_index_parse(f + ch->offset_index_offset, (size_t)ch->offset_index_length, &oi, &e) == 0);
    CHECK(oi.npages > 1);
    CHECK_EQ_I64(oi.pages[0].first_row_index, 0);
    CHECK_EQ_I64(oi.pages[0].offset, ch->data_page_offset);
    pq_column_index ci;
    CHECK(pq_column_index_parse(f + ch->column_index_offset, (size_t)ch->column_index_length, &ci, &e) == 0);
    CHECK_EQ_I64(ci.npages, oi.npages);
    CHECK(ci.has_null_counts && ci.null_counts[0] == 0 && !ci.null_pages[0]);
    CHECK(ci.min_len[0] == 4);
    memcpy(&mn, ci.min[0], 4); /* the first page holds ids 122.. (checked by decoding it) */
    CHECK_EQ_I64(mn, 122);
    CHECK_EQ_I64(ci.boundary_order, PQ_BOUNDARY_UNORDERED);
    CHECK_EQ_I64(oi.npages, 325);
    /* the first page's header: size + header length == the offset index's page size */
    pq_page_header h;
    int hl = pq_page_header_parse(f + oi.pages[0].offset, n - (size_t)oi.pages[0].offset, &h, &e);
    CHECK(hl > 0 && hl + h.compressed_size == oi.pages[0].compressed_page_size);
    /* round trips of the indexes */
    pq_buf b = {0};
    CHECK(pq_write_offset_index(&b, &oi) == 0);
    pq_offset_index oi2;
    CHECK(pq_offset_index_parse(b.data, b.len, &oi2, &e) == 0);
    CHECK(oi2.npages == oi.npages && memcmp(oi2.pages, oi.pages, sizeof *oi.pages * (size_t)oi.npages) == 0);
    b.len = 0;
    CHECK(pq_write_column_index(&b, &ci) == 0);
    pq_column_index ci2;
    CHECK(pq_column_index_parse(b.data, b.len, &ci2, &e) == 0);
    CHECK(ci2.npages == ci.npages && ci2.boundary_order == ci.boundary_order);
    for (int32_t i = 0; i < ci.npages && i < ci2.npages; i++)
        CHECK(ci2.max_len[i] == ci.max_len[i] && memcmp(ci2.max[i], ci.max[i], ci.max_len[i]) == 0 &&
              ci2.null_counts[i] == ci.null_counts[i]);
    /* truncations of the offset index fail */
    for (int32_t cut = 0; cut < ch->offset_index_length; cut++) {
        pq_offset_index t;
        CHECK(pq_offset_index_parse(f + ch->offset_index_offset, (size_t)cut, &t, NULL) < 0);
    }
    pq_buf_free(&b);
    pq_offset_index_free(&oi);
    pq_offset_index_free(&oi2);
    pq_column_index_free(&ci);
    pq_column_index_free(&ci2);
    pq_file_meta_free(&m);
    free(f);
}

static void bloom_files(void)
{
    size_t n;
    uint8_t *f = slurp("bloom_filter.xxhash.bin", &n);
    if (!f) { CHECK(0); return; }
    pq_bloom_header bh;
    pq_err e = {0};
    CHECK(pq_bloom_header_parse(f, n, &bh, &e) == 0);
    CHECK(bh.header_len + (size_t)bh.num_bytes == n);
    static const char *in[] = {"hello", "parquet", "bloom", "filter"};
    for (int i = 0; i < 4; i++)
        CHECK(pq_bloom_check(f + bh.header_len, (size_t)bh.num_bytes, pq_bloom_hash(in[i], strlen(in[i]))));
    int absent = 0;
    char word[32];
    for (int i = 0; i < 100; i++) {
        snprintf(word, sizeof word, "absent-%d", i);
        absent += !pq_bloom_check(f + bh.header_len, (size_t)bh.num_bytes, pq_bloom_hash(word, strlen(word)));
    }
    CHECK(absent >= 95);
    free(f);
    /* the murmur3 format is refused (no thrift header with these unions) */
    f = slurp("bloom_filter.bin", &n);
    if (f) CHECK(pq_bloom_header_parse(f, n, &bh, NULL) < 0);
    free(f);

    pq_file_meta m;
    CHECK(load("data_index_bloom_encoding_stats.parquet", &f, &n, &m, &e) == 0);
    if (!f) return;
    const pq_chunk_meta *ch = &m.row_groups[0].chunks[0];
    CHECK(ch->has_bloom_filter && !ch->has_bloom_filter_length);
    CHECK(pq_bloom_header_parse(f + ch->bloom_filter_offset, n - (size_t)ch->bloom_filter_offset, &bh, &e) == 0);
    const uint8_t *bits = f + ch->bloom_filter_offset + bh.header_len;
    CHECK(pq_bloom_check(bits, (size_t)bh.num_bytes, pq_bloom_hash("Hello", 5)));
    CHECK(!pq_bloom_check(bits, (size_t)bh.num_bytes, pq_bloom_hash("Hello_Not_Exists", 16)));
    /* string statistics: min "Hello", max "today" */
    CHECK(ch->stats.usable && ch->stats.min_len == 5 && memcmp(ch->stats.min, "Hello", 5) == 0);
    CHECK(ch->stats.max_len == 5 && memcmp(ch->stats.max, "today", 5) == 0);
    CHECK(ch->stats.has_null_count && ch->stats.null_count == 0);
    pq_file_meta_free(&m);
    free(f);
    CHECK(load("data_index_bloom_encoding_with_length.parquet", &f, &n, &m, &e) == 0);
    if (f && m.nrow_groups == 1) CHECK(m.row_groups[0].chunks[0].has_bloom_filter_length);
    pq_file_meta_free(&m);
    free(f);
}

static void bloom_insert_roundtrip(void)
{
    uint8_t bits[1024] = {0};
    for (uint64_t i = 0; i < 50; i++) pq_bloom_insert(bits, sizeof bits, pq_bloom_hash(&i, 8));
    for (uint64_t i = 0; i < 50; i++) CHECK(pq_bloom_check(bits, sizeof bits, pq_bloom_hash(&i, 8)));
    int fp = 0;
    for (uint64_t i = 1000; i < 2000; i++) fp += pq_bloom_check(bits, sizeof bits, pq_bloom_hash(&i, 8));
    CHECK(fp < 20);
    CHECK(pq_bloom_optimal_bytes(1000, 0.01) >= 1024 && pq_bloom_optimal_bytes(1000, 0.01) <= 4096);
    CHECK_EQ_I64(pq_bloom_optimal_bytes(0, 0.01), 32);
    pq_buf b = {0};
    CHECK(pq_write_bloom_header(&b, 1024) == 0);
    pq_bloom_header bh;
    CHECK(pq_bloom_header_parse(b.data, b.len, &bh, NULL) == 0 && bh.num_bytes == 1024 && bh.header_len == b.len);
    pq_buf_free(&b);
}

static void stats_rules(void)
{
    uint8_t *f;
    size_t n;
    pq_file_meta m;
    pq_err e = {0};
    CHECK(load("nan_in_stats.parquet", &f, &n, &m, &e) == 0);
    if (f && m.nrow_groups) CHECK(m.row_groups[0].chunks[0].stats.has_min_max && !m.row_groups[0].chunks[0].stats.usable);
    pq_file_meta_free(&m);
    free(f);
    CHECK(load("binary_truncated_min_max.parquet", &f, &n, &m, &e) == 0);
    if (f && m.nrow_groups) {
        const pq_stats *s = &m.row_groups[0].chunks[0].stats;
        CHECK(s->usable && !s->min_exact && !s->max_exact);
    }
    pq_file_meta_free(&m);
    free(f);
    CHECK(pq_created_by_old_parquet_mr("parquet-mr version 1.8.1 (build x)"));
    CHECK(!pq_created_by_old_parquet_mr("parquet-mr version 1.10.0"));
    CHECK(!pq_created_by_old_parquet_mr("parquet-cpp version 1.3.2"));
}

static void unknown_logical(void)
{
    uint8_t *f;
    size_t n;
    pq_file_meta m;
    pq_err e = {0};
    CHECK(load("unknown-logical-type.parquet", &f, &n, &m, &e) == 0);
    if (f && m.ncolumns >= 2) {
        CHECK_EQ_I64(m.columns[1].physical, PQ_BYTE_ARRAY);
        CHECK(m.columns[1].logical == PQ_LOGICAL_NONE);
    }
    pq_file_meta_free(&m);
    free(f);
    CHECK(load("int32_decimal.parquet", &f, &n, &m, &e) == 0);
    if (f && m.ncolumns >= 1) {
        CHECK_EQ_I64(m.columns[0].logical, PQ_LOGICAL_DECIMAL);
        CHECK_EQ_I64(m.columns[0].decimal_precision, 4);
        CHECK_EQ_I64(m.columns[0].decimal_scale, 2);
    }
    pq_file_meta_free(&m);
    free(f);
}

/* Parse -> write -> parse gives the same metadata. */
static void roundtrip_file_meta(void)
{
    uint8_t *f;
    size_t n;
    pq_file_meta m, m2;
    pq_err e = {0};
    CHECK(load("alltypes_tiny_pages_plain.parquet", &f, &n, &m, &e) == 0);
    if (!f) return;
    pq_buf b = {0};
    CHECK(pq_write_file_meta(&b, &m) == 0);
    CHECK(pq_file_meta_parse(b.data, b.len, NULL, &m2, &e) == 0 && pq_file_meta_stats(&m2, -1, &e) == 0);
    CHECK(m2.num_rows == m.num_rows && m2.ncolumns == m.ncolumns && m2.nrow_groups == m.nrow_groups);
    CHECK(m2.column_orders_known && m2.nkv == m.nkv);
    CHECK_STR(m2.created_by, m.created_by);
    for (int32_t i = 0; i < m.ncolumns && i < m2.ncolumns; i++) {
        CHECK_STR(m2.columns[i].name, m.columns[i].name);
        CHECK(m2.columns[i].physical == m.columns[i].physical && m2.columns[i].logical == m.columns[i].logical);
        CHECK(m2.columns[i].repetition == m.columns[i].repetition);
        const pq_chunk_meta *a = &m.row_groups[0].chunks[i], *c = &m2.row_groups[0].chunks[i];
        CHECK(a->data_page_offset == c->data_page_offset && a->num_values == c->num_values);
        CHECK(a->total_compressed_size == c->total_compressed_size && a->encodings_mask == c->encodings_mask);
        CHECK(a->offset_index_offset == c->offset_index_offset && a->has_column_index == c->has_column_index);
        CHECK(a->stats.usable == c->stats.usable && a->stats.min_len == c->stats.min_len);
        CHECK(a->stats.min_len == 0 || memcmp(a->stats.min, c->stats.min, a->stats.min_len) == 0);
    }
    pq_buf_free(&b);
    pq_file_meta_free(&m);
    pq_file_meta_free(&m2);
    free(f);
}

static void roundtrip_page_header(void)
{
    pq_page_header h = {.type = PQ_PAGE_DATA_V2, .uncompressed_size = 1000, .compressed_size = 600,
                        .has_crc = true, .crc = 0xdeadbeef, .num_values = 100, .encoding = PQ_ENC_RLE_DICTIONARY,
                        .num_nulls = 3, .num_rows = 100, .def_levels_byte_length = 10,
                        .rep_levels_byte_length = 0, .is_compressed = false, .has_stats = true};
    int32_t lo = -5, hi = 77;
    h.stats.has_min_max = true, h.stats.min = (const uint8_t *)&lo, h.stats.max = (const uint8_t *)&hi;
    h.stats.min_len = h.stats.max_len = 4, h.stats.min_exact = h.stats.max_exact = true;
    h.stats.has_null_count = true, h.stats.null_count = 3;
    pq_buf b = {0};
    CHECK(pq_write_page_header(&b, &h) == 0);
    pq_page_header g;
    CHECK(pq_page_header_parse(b.data, b.len, &g, NULL) == (int)b.len);
    CHECK(g.type == PQ_PAGE_DATA_V2 && g.uncompressed_size == 1000 && g.compressed_size == 600);
    CHECK(g.has_crc && g.crc == 0xdeadbeef && g.num_values == 100 && g.num_nulls == 3 && g.num_rows == 100);
    CHECK(g.encoding == PQ_ENC_RLE_DICTIONARY && g.def_levels_byte_length == 10 && !g.is_compressed);
    CHECK(g.has_stats && g.stats.min_len == 4 && memcmp(g.stats.min, &lo, 4) == 0 && g.stats.null_count == 3);
    for (size_t cut = 0; cut < b.len; cut++) CHECK(pq_page_header_parse(b.data, cut, &g, NULL) < 0);
    /* v2 level lengths larger than the page are refused */
    h.def_levels_byte_length = 700;
    b.len = 0;
    CHECK(pq_write_page_header(&b, &h) == 0);
    CHECK(pq_page_header_parse(b.data, b.len, &g, NULL) == RINGSCAN_EFORMAT);
    pq_buf_free(&b);
}

static void all_corpus_files(void)
{
    /* every flat file parses */
    static const char *flat[] = {"alltypes_dictionary.parquet", "alltypes_plain.snappy.parquet", "binary.parquet",
                                 "byte_array_decimal.parquet", "delta_binary_packed.parquet",
                                 "fixed_length_decimal.parquet", "fixed_length_decimal_legacy.parquet",
                                 "int96_from_spark.parquet", "overflow_i16_page_cnt.parquet",
                                 "hadoop_lz4_compressed.parquet", "float16_zeros_and_nans.parquet",
                                 "floating_orders_nan_count.parquet", "column_chunk_key_value_metadata.parquet"};
    for (size_t i = 0; i < sizeof flat / sizeof flat[0]; i++) {
        uint8_t *f;
        size_t n;
        pq_file_meta m;
        pq_err e = {0};
        int rc = load(flat[i], &f, &n, &m, &e);
        if (rc) fprintf(stderr, "  %s: %d %s\n", flat[i], rc, e.msg);
        CHECK(rc == 0);
        pq_file_meta_free(&m);
        free(f);
    }
}

/* format/name_index.h: lookups agree with the scans they replace (pq_columns_find's rule),
 * the first of names spelled alike found, and a parsed footer's lookups use the index. */
static void name_index(void)
{
    pq_name_ref r[] = {{"a", 0}, {"B", 1}, {"b", 2}, {"a", 3}, {"c", 4}, {"Dd", 5}};
    int32_t n = (int32_t)(sizeof r / sizeof r[0]);
    pq_name_index_sort(r, n);
    for (int32_t i = 1; i < n; i++) CHECK(strcasecmp(r[i - 1].name, r[i].name) <= 0);
    CHECK_EQ_I64(pq_name_index_find(r, n, "a"), 0); /* the first so spelled */
    CHECK_EQ_I64(pq_name_index_find(r, n, "b"), 2);
    CHECK_EQ_I64(pq_name_index_find(r, n, "B"), 1);
    CHECK_EQ_I64(pq_name_index_find(r, n, "A"), -1);
    CHECK_EQ_I64(pq_name_index_find(r, n, "dd"), -1);
    CHECK_EQ_I64(pq_name_index_folded(r, n, "dd"), 5);  /* the only one but for case */
    CHECK_EQ_I64(pq_name_index_folded(r, n, "C"), 4);
    CHECK_EQ_I64(pq_name_index_folded(r, n, "b"), 2);   /* spelled so: before case */
    CHECK_EQ_I64(pq_name_index_folded(r, n, "A"), -2);  /* two: several, as pq_columns_find */
    CHECK_EQ_I64(pq_name_index_folded(r, n, "x"), -1);
    CHECK_EQ_I64(pq_name_index_find(r, 0, "a"), -1);
    uint8_t *f;
    size_t len;
    pq_file_meta m;
    pq_err e = {0};
    CHECK(load("alltypes_plain.parquet", &f, &len, &m, &e) == 0);
    if (!f) return;
    CHECK(m.col_index != NULL && m.node_index != NULL);
    for (int32_t i = 0; i < m.ncolumns; i++) {
        CHECK_EQ_I64(pq_file_meta_find_column(&m, m.columns[i].name), i);
        CHECK_EQ_I64(pq_file_meta_find_node(&m, m.nodes[m.columns[i].node].path), m.columns[i].node);
    }
    CHECK_STR(pq_file_meta_top_name(&m, "STRING_COL", false), "string_col");
    CHECK(pq_file_meta_top_name(&m, "STRING_COL", true) == NULL);
    CHECK(pq_file_meta_top_name(&m, "string_co", false) == NULL);
    pq_file_meta_free(&m);
    free(f);
}

int main(void)
{
    RUN(name_index);
    RUN(alltypes_plain);
    RUN(truncated_footer);
    RUN(nested_files);
    RUN(page_index);
    RUN(bloom_files);
    RUN(bloom_insert_roundtrip);
    RUN(stats_rules);
    RUN(unknown_logical);
    RUN(roundtrip_file_meta);
    RUN(roundtrip_page_header);
    RUN(all_corpus_files);
    return CHECK_DONE("test_meta");
}
