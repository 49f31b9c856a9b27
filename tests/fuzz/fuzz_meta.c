/* tests/fuzz/fuzz_meta.c: libFuzzer target for format/meta*.c, thrift.c and bloom.c.
 * Treats the input as a whole Parquet file: footer -> FileMetaData; its chunk statistics
 * decoded on demand (format/meta.h invariant 6) column by column, then all at once, as a
 * scan's filter and `ringscan meta` ask for them; then for each chunk (first row groups only)
 * parses the page header at its data page offset, the offset/column indexes
 * and the bloom filter header, all bounded to the input; also parses the input itself as each
 * structure. Everything parsed is freed; sanitizers catch the rest. */
#include <stddef.h>
#include <stdint.h>

#include "format/bloom.h"
#include "format/meta.h"

static void at(const uint8_t *d, size_t n, int64_t off, int64_t len, const uint8_t **p, size_t *pl)
{
    *p = NULL;
    *pl = 0;
    if (off < 0 || (uint64_t)off >= n) return;
    size_t left = n - (size_t)off;
    *p = d + off;
    *pl = (len > 0 && (uint64_t)len < left) ? (size_t)len : left;
}

static void chunk(const uint8_t *d, size_t n, const pq_chunk_meta *ch)
{
    const uint8_t *p;
    size_t pl;
    pq_page_header h;
    at(d, n, ch->data_page_offset, 0, &p, &pl);
    if (p) (void)pq_page_header_parse(p, pl, &h, NULL);
    if (ch->has_offset_index) {
        at(d, n, ch->offset_index_offset, ch->offset_index_length, &p, &pl);
        pq_offset_index oi;
        if (p && pq_offset_index_parse(p, pl, &oi, NULL) == 0) pq_offset_index_free(&oi);
    }
    if (ch->has_column_index) {
        at(d, n, ch->column_index_offset, ch->column_index_length, &p, &pl);
        pq_column_index ci;
        if (p && pq_column_index_parse(p, pl, &ci, NULL) == 0) pq_column_index_free(&ci);
    }
    if (ch->has_bloom_filter) {
        at(d, n, ch->bloom_filter_offset, 0, &p, &pl);
        pq_bloom_header bh;
        if (p && pq_bloom_header_parse(p, pl, &bh, NULL) == 0 && bh.header_len + (size_t)bh.num_bytes <= pl)
            (void)pq_bloom_check(p + bh.header_len, (size_t)bh.num_bytes, pq_bloom_hash(p, 4 < pl ? 4 : pl));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    uint64_t off;
    uint32_t len;
    bool in_tail;
    pq_err e;
    pq_file_meta m;
    if (pq_footer_locate(d, n, n, 0, &off, &len, &in_tail, &e) == 0 && in_tail &&
        pq_file_meta_parse(d + off, len, NULL, &m, &e) == 0) {
        for (int32_t i = m.ncolumns - 1; i >= 0 && i >= m.ncolumns - 64; i--) (void)pq_file_meta_stats(&m, i, &e);
        int stats = pq_file_meta_stats(&m, -1, &e);
        for (int32_t g = 0; g < m.nrow_groups && g < 4; g++)
            for (int32_t i = 0; i < m.ncolumns && i < 64; i++) chunk(d, n, &m.row_groups[g].chunks[i]);
        pq_buf b = {0}; /* the writer writes flat schemas only (meta.h), decoded statistics */
        if (stats == 0 && !m.has_nested && pq_write_file_meta(&b, &m) == 0) {
            pq_file_meta m2;
            if (pq_file_meta_parse(b.data, b.len, NULL, &m2, &e) == 0) {
                (void)pq_file_meta_stats(&m2, -1, &e);
                pq_file_meta_free(&m2);
            }
        }
        pq_buf_free(&b);
        pq_file_meta_free(&m);
    }
    /* the raw input as each structure */
    if (pq_file_meta_parse(d, n, NULL, &m, &e) == 0) {
        (void)pq_file_meta_stats(&m, -1, &e);
        pq_file_meta_free(&m);
    }
    pq_page_header h;
    (void)pq_page_header_parse(d, n, &h, &e);
    pq_offset_index oi;
    if (pq_offset_index_parse(d, n, &oi, &e) == 0) pq_offset_index_free(&oi);
    pq_column_index ci;
    if (pq_column_index_parse(d, n, &ci, &e) == 0) pq_column_index_free(&ci);
    pq_bloom_header bh;
    (void)pq_bloom_header_parse(d, n, &bh, &e);
    return 0;
}
