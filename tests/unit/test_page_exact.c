/* tests of exact page consumption (issue 18, defects 8 and 4): a page's decoders must use
 * exactly the bytes and values its header declares, and any mismatch is RINGSCAN_EFORMAT
 * naming the page's body offset (file offset of the page + its header length) and column.
 * Crafted pages through pq_colr_page / pq_colr_page_sel / pq_colr_page_idx: a zstd page that
 * decompresses to one byte less or more than the header says (frames with and without a
 * content size, as DuckDB writes them), PLAIN pages with trailing bytes, dictionary indices
 * past the dictionary (also on the index-output path), level runs shorter or longer than
 * num_values, DELTA headers that disagree with the page. Each case also decodes the exact
 * page once and asserts its values, so a check that refuses good pages fails here too.
 * Last, a chunk whose metadata claims INT64_MAX values gets a clean error (this program is
 * also built with -fsanitize=undefined to show the chunk loop does not overflow). */
#include <zstd.h>

#include "check.h"
#include "format/codec.h"
#include "format/column.h"
#include "format/encoding.h"

enum { FILE_OFF = 5000 };

typedef struct page {
    uint8_t buf[8192];
    size_t len, hlen; /* whole page, header */
} page;

static void make_page(page *p, const pq_page_header *h, const uint8_t *body, size_t n)
{
    pq_buf b = {0};
    if (pq_write_page_header(&b, h) != 0 || b.len + n > sizeof p->buf) abort();
    memcpy(p->buf, b.data, b.len);
    if (n) memcpy(p->buf + b.len, body, n);
    p->hlen = b.len;
    p->len = b.len + n;
    pq_buf_free(&b);
}

static pq_page_header hdr(pq_page_type t, int32_t nvals, pq_encoding enc, size_t body)
{
    pq_page_header h = {.type = t, .uncompressed_size = (int32_t)body,
                        .compressed_size = (int32_t)body, .num_values = nvals, .encoding = enc,
                        .def_level_encoding = PQ_ENC_RLE, .rep_level_encoding = PQ_ENC_RLE,
                        .is_compressed = true};
    return h;
}

#define DESC(n, p, rep, def) {.name = n, .physical = p, .repetition = rep, .max_def_level = def, \
                              .field_id = -1}
static const pq_column_desc req_i32 = DESC("r", PQ_INT32, PQ_REQUIRED, 0);
static const pq_column_desc opt_i32 = DESC("o", PQ_INT32, PQ_OPTIONAL, 1);
static const pq_column_desc req_i64 = DESC("r64", PQ_INT64, PQ_REQUIRED, 0);
static const pq_column_desc req_ba = DESC("s", PQ_BYTE_ARRAY, PQ_REQUIRED, 0);
static const pq_column_desc req_bool = DESC("b", PQ_BOOLEAN, PQ_REQUIRED, 0);

/* Decodes pages in order (page i at FILE_OFF * (i + 1)) into v; status of the first failure.
 * mode 0: pq_colr_page; 1: pq_colr_page_sel of rows {0, 1}; 2: pq_colr_page_idx. */
static int decode_into(const pq_column_desc *c, pq_codec codec, const page *pages, int n,
                       int mode, pq_vec *v, pq_err *e)
{
    pq_col_reader r;
    pq_colr_init(&r, c, codec, NULL);
    pq_vec idx;
    pq_vec_init(&idx, PQ_INT32, 0);
    static const uint32_t sel[2] = {0, 1};
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        memset(e, 0, sizeof *e);
        e->offset = -1;
        size_t used;
        int64_t rows, before = v->length;
        int64_t off = (int64_t)FILE_OFF * (i + 1);
        bool as_idx = false;
        if (mode == 0) rc = pq_colr_page(&r, pages[i].buf, pages[i].len, off, v, &used, &rows, e);
        if (mode == 1)
            rc = pq_colr_page_sel(&r, pages[i].buf, pages[i].len, off, sel, 2, v, &used, &rows, e);
        if (mode == 2)
            rc = pq_colr_page_idx(&r, pages[i].buf, pages[i].len, off, &idx, v, &as_idx, &used,
                                  &rows, e);
        if (rc) CHECK_EQ_I64(v->length, before); /* a failed page appends nothing */
    }
    pq_vec_free(&idx);
    pq_colr_free(&r);
    return rc;
}

static int decode(const pq_column_desc *c, pq_codec codec, const page *pages, int n, int mode,
                  pq_err *e)
{
    pq_vec v;
    pq_vec_init(&v, c->physical, c->type_length);
    int rc = decode_into(c, codec, pages, n, mode, &v, e);
    pq_vec_free(&v);
    return rc;
}

/* The error names the last page's body offset and the column, and says what. */
static void check_err(int rc, const pq_err *e, const page *last, int index, const char *col,
                      const char *words)
{
    CHECK_EQ_I64(rc, RINGSCAN_EFORMAT);
    CHECK_EQ_I64(e->offset, (int64_t)FILE_OFF * (index + 1) + (int64_t)last->hlen);
    CHECK_STR(e->column, col);
    if (!strstr(e->msg, words)) fprintf(stderr, "  message: %s\n", e->msg);
    CHECK(strstr(e->msg, words) != NULL);
}

/* ------------------------------------------------------------------------- zstd pages */

/* A zstd page of body (n bytes) whose header says n + delta uncompressed bytes. */
static void zstd_page(page *p, const uint8_t *body, size_t n, int delta, bool content_size)
{
    uint8_t z[4096];
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, content_size ? 1 : 0);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0);
    size_t zn = ZSTD_compress2(c, z, sizeof z, body, n);
    ZSTD_freeCCtx(c);
    if (ZSTD_isError(zn)) abort();
    pq_page_header h = hdr(PQ_PAGE_DATA, (int32_t)(n / 4), PQ_ENC_PLAIN, zn);
    h.uncompressed_size = (int32_t)n + delta;
    make_page(p, &h, z, zn);
}

static void test_zstd_size_mismatch(void)
{
    int32_t vals[64];
    for (int i = 0; i < 64; i++) vals[i] = i * 7;
    for (int cs = 0; cs <= 1; cs++) {
        page p;
        pq_err e;
        zstd_page(&p, (const uint8_t *)vals, sizeof vals, 0, cs);
        pq_vec v;
        pq_vec_init(&v, PQ_INT32, 0);
        CHECK_EQ_I64(decode_into(&req_i32, PQ_CODEC_ZSTD, &p, 1, 0, &v, &e), 0);
        CHECK_EQ_I64(v.length, 64);
        if (v.length == 64) CHECK_EQ_I64(((int32_t *)(void *)v.values)[63], 63 * 7);
        pq_vec_free(&v);
        for (int delta = -1; delta <= 1; delta += 2) {
            zstd_page(&p, (const uint8_t *)vals, sizeof vals, delta, cs);
            check_err(decode(&req_i32, PQ_CODEC_ZSTD, &p, 1, 0, &e), &e, &p, 0, "r", "ZSTD");
            CHECK(strstr(e.msg, "page header says") != NULL);
        }
    }
}

/* ------------------------------------------------------------------------ PLAIN pages */

static void test_plain_trailing_bytes(void)
{
    uint8_t body[3 * 4 + 2] = {0};
    for (int i = 0; i < 3; i++) body[4 * i] = (uint8_t)(i + 1);
    page p;
    pq_err e;
    pq_page_header h = hdr(PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, 12);
    make_page(&p, &h, body, 12);
    for (int mode = 0; mode <= 1; mode++) CHECK_EQ_I64(decode(&req_i32, 0, &p, 1, mode, &e), 0);
    h = hdr(PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, sizeof body); /* 2 bytes after the 3 values */
    make_page(&p, &h, body, sizeof body);
    for (int mode = 0; mode <= 1; mode++)
        check_err(decode(&req_i32, 0, &p, 1, mode, &e), &e, &p, 0, "r", "end at byte 12 of 14");
    /* BYTE_ARRAY: "ab", "c", then one stray byte */
    uint8_t ba[] = {2, 0, 0, 0, 'a', 'b', 1, 0, 0, 0, 'c', 'x'};
    h = hdr(PQ_PAGE_DATA, 2, PQ_ENC_PLAIN, sizeof ba - 1);
    make_page(&p, &h, ba, sizeof ba - 1);
    for (int mode = 0; mode <= 1; mode++) CHECK_EQ_I64(decode(&req_ba, 0, &p, 1, mode, &e), 0);
    h = hdr(PQ_PAGE_DATA, 2, PQ_ENC_PLAIN, sizeof ba);
    make_page(&p, &h, ba, sizeof ba);
    for (int mode = 0; mode <= 1; mode++)
        check_err(decode(&req_ba, 0, &p, 1, mode, &e), &e, &p, 0, "s", "end at byte 11 of 12");
    /* BOOLEAN: 8 values take one byte; a second byte is left over */
    uint8_t bits[2] = {0xa5, 0};
    h = hdr(PQ_PAGE_DATA, 8, PQ_ENC_PLAIN, 2);
    make_page(&p, &h, bits, 2);
    check_err(decode(&req_bool, 0, &p, 1, 0, &e), &e, &p, 0, "b", "end at byte 1 of 2");
}

static void test_plain_trailing_after_levels(void)
{
    /* v1, optional: levels (length 2: RLE run of 3 ones), 3 values, then 4 stray bytes */
    uint8_t body[4 + 2 + 12 + 4] = {2, 0, 0, 0, 3 << 1, 1};
    for (int i = 0; i < 3; i++) body[6 + 4 * i] = (uint8_t)(10 + i);
    page p;
    pq_err e;
    pq_page_header h = hdr(PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, sizeof body - 4);
    make_page(&p, &h, body, sizeof body - 4);
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    CHECK_EQ_I64(decode_into(&opt_i32, 0, &p, 1, 0, &v, &e), 0);
    CHECK_EQ_I64(v.length, 3);
    if (v.length == 3) CHECK_EQ_I64(((int32_t *)(void *)v.values)[2], 12);
    pq_vec_free(&v);
    h = hdr(PQ_PAGE_DATA, 3, PQ_ENC_PLAIN, sizeof body);
    make_page(&p, &h, body, sizeof body);
    check_err(decode(&opt_i32, 0, &p, 1, 0, &e), &e, &p, 0, "o", "end at byte 12 of 16");
}

static void test_dict_page_trailing_bytes(void)
{
    int32_t d[3] = {10, 20, 0};
    page p[2];
    pq_err e;
    pq_page_header h = hdr(PQ_PAGE_DICTIONARY, 2, PQ_ENC_PLAIN, 10); /* 2 values + 2 bytes */
    make_page(&p[0], &h, (const uint8_t *)d, 10);
    check_err(decode(&req_i32, 0, p, 1, 0, &e), &e, &p[0], 0, "r", "end at byte 8 of 10");
}

/* ------------------------------------------------------------------ dictionary indices */

static void dict_of_two(page *p)
{
    int32_t vals[2] = {10, 20};
    pq_page_header h = hdr(PQ_PAGE_DICTIONARY, 2, PQ_ENC_PLAIN, sizeof vals);
    make_page(p, &h, (const uint8_t *)vals, sizeof vals);
}

static void test_dict_index_past_dictionary(void)
{
    page p[2];
    pq_err e;
    dict_of_two(&p[0]);
    uint8_t ok[] = {1, 4 << 1, 1}; /* width 1, RLE run of 4 x index 1 */
    pq_page_header h = hdr(PQ_PAGE_DATA, 4, PQ_ENC_RLE_DICTIONARY, sizeof ok);
    make_page(&p[1], &h, ok, sizeof ok);
    for (int mode = 0; mode <= 2; mode++) CHECK_EQ_I64(decode(&req_i32, 0, p, 2, mode, &e), 0);
    uint8_t bad[] = {2, 4 << 1, 2}; /* width 2, RLE run of 4 x index 2 (dictionary has 2) */
    h = hdr(PQ_PAGE_DATA, 4, PQ_ENC_RLE_DICTIONARY, sizeof bad);
    make_page(&p[1], &h, bad, sizeof bad);
    for (int mode = 0; mode <= 2; mode++)
        check_err(decode(&req_i32, 0, p, 2, mode, &e), &e, &p[1], 1, "r", "out of range");
    uint8_t longer[] = {1, 6 << 1, 1}; /* a run of 6 indices for a page of 4 */
    h = hdr(PQ_PAGE_DATA, 4, PQ_ENC_RLE_DICTIONARY, sizeof longer);
    make_page(&p[1], &h, longer, sizeof longer);
    for (int mode = 0; mode <= 2; mode++)
        check_err(decode(&req_i32, 0, p, 2, mode, &e), &e, &p[1], 1, "r", "past the page's values");
}

/* A dictionary page of 5 INT32 values (10, 20, .., 50) in p[0] and a data page of n rows of
 * indices idx (RLE_DICTIONARY, width 3) in p[1]. */
static void dict_of_five_page(page *p, const uint32_t *idx, int64_t n)
{
    int32_t vals[5] = {10, 20, 30, 40, 50};
    pq_page_header h = hdr(PQ_PAGE_DICTIONARY, 5, PQ_ENC_PLAIN, sizeof vals);
    make_page(&p[0], &h, (const uint8_t *)vals, sizeof vals);
    pq_buf b = {0};
    CHECK(pq_rle_encode_dict(&b, idx, n, 3) == 0);
    h = hdr(PQ_PAGE_DATA, (int32_t)n, PQ_ENC_RLE_DICTIONARY, b.len);
    make_page(&p[1], &h, b.data, b.len);
    pq_buf_free(&b);
}

/* The selected rows' indices read from a bit-packed page (pq_rle_select, 8 rows a gather
 * with AVX2 or AVX-512) and gathered: an index past the dictionary at each of 120 positions,
 * selected among every row but one or among every third row, fails naming the index and the
 * dictionary's size; without it the selected values are right. */
static void test_dict_index_past_dictionary_selected(void)
{
    enum { N = 120 };
    page p[2];
    uint32_t idx[N], sel[N];
    int bad = 0;
    for (int64_t at = -1; at < N; at++) {
        for (int64_t i = 0; i < N; i++) idx[i] = (uint32_t)((i * 7 + 3) % 5);
        if (at >= 0) idx[at] = 5 + (uint32_t)(at % 3);
        dict_of_five_page(p, idx, N);
        for (int way = 0; way < 2; way++) {
            int64_t nsel = 0;
            for (int64_t i = 0; i < N; i++)
                if (way == 0 ? i != (at + 1) % N : i % 3 == (at < 0 ? 0 : at) % 3)
                    sel[nsel++] = (uint32_t)i;
            pq_col_reader r;
            pq_colr_init(&r, &req_i32, 0, NULL);
            pq_vec v;
            pq_vec_init(&v, PQ_INT32, 0);
            pq_err e = {0};
            size_t used;
            int64_t rows;
            int rc = pq_colr_page(&r, p[0].buf, p[0].len, FILE_OFF, &v, &used, &rows, &e);
            CHECK_EQ_I64(rc, 0);
            rc = pq_colr_page_sel(&r, p[1].buf, p[1].len, 2 * FILE_OFF, sel, nsel, &v, &used,
                                  &rows, &e);
            if (at < 0) {
                CHECK_EQ_I64(rc, 0);
                CHECK_EQ_I64(v.length, nsel);
                const int32_t *got = (const int32_t *)v.values;
                for (int64_t j = 0; j < nsel && j < v.length; j++)
                    bad += got[j] != 10 * (int32_t)(idx[sel[j]] + 1);
            } else {
                char want[96];
                snprintf(want, sizeof want, "dictionary index %u out of range (dictionary has 5 values)",
                         idx[at]);
                check_err(rc, &e, &p[1], 1, "r", want);
                CHECK_EQ_I64(v.length, 0);
            }
            pq_vec_free(&v);
            pq_colr_free(&r);
        }
    }
    CHECK_EQ_I64(bad, 0);
}

/* --------------------------------------------------------------------------- levels */

/* v1 optional INT32 page: 4-byte level length, level bytes lv, then nv values 0, 1, ... */
static void levels_page(page *p, int32_t num_values, const uint8_t *lv, uint32_t lvn, int nv)
{
    uint8_t body[256];
    memcpy(body, &lvn, 4);
    memcpy(body + 4, lv, lvn);
    for (int i = 0; i < nv; i++) memcpy(body + 4 + lvn + 4 * i, &i, 4);
    size_t n = 4 + lvn + 4 * (size_t)nv;
    pq_page_header h = hdr(PQ_PAGE_DATA, num_values, PQ_ENC_PLAIN, n);
    make_page(p, &h, body, n);
}

static void test_level_runs(void)
{
    page p;
    pq_err e;
    uint8_t exact[] = {10 << 1, 1}; /* RLE run of 10 ones */
    levels_page(&p, 10, exact, sizeof exact, 10);
    CHECK_EQ_I64(decode(&opt_i32, 0, &p, 1, 0, &e), 0);
    levels_page(&p, 12, exact, sizeof exact, 10); /* the run stops 2 short of num_values */
    check_err(decode(&opt_i32, 0, &p, 1, 0, &e), &e, &p, 0, "o", "data ends after 10 of 12");
    uint8_t longer[] = {12 << 1, 1}; /* a run of 12 for a page of 10 */
    levels_page(&p, 10, longer, sizeof longer, 10);
    check_err(decode(&opt_i32, 0, &p, 1, 0, &e), &e, &p, 0, "o", "past the page's values");
    uint8_t two[] = {6 << 1, 1, 6 << 1, 0}; /* 6 ones, then a second run past the page's 6 */
    levels_page(&p, 6, two, sizeof two, 6);
    check_err(decode(&opt_i32, 0, &p, 1, 0, &e), &e, &p, 0, "o", "past the page's values");
    /* a bit-packed run of 2 groups (16 levels) with only the first group's byte present:
     * short by a whole group, not just the padding some writers drop */
    uint8_t shortbp[] = {2 << 1 | 1, 0xff};
    levels_page(&p, 8, shortbp, sizeof shortbp, 8);
    check_err(decode(&opt_i32, 0, &p, 1, 0, &e), &e, &p, 0, "o", "past the page's values");
    uint8_t padded[] = {1 << 1 | 1, 0x1f}; /* one group, 5 levels used, 3 of padding: fine */
    levels_page(&p, 5, padded, sizeof padded, 5);
    CHECK_EQ_I64(decode(&opt_i32, 0, &p, 1, 0, &e), 0);
}

/* ---------------------------------------------------------------------------- DELTA */

static void test_delta_disagrees(void)
{
    page p;
    pq_err e;
    pq_buf b = {0};
    int64_t vals[9] = {5, 6, 8, 11, 15, 20, 26, 33, 41};
    if (pq_delta_encode_i64(&b, vals, 8) != 0) abort();
    pq_page_header h = hdr(PQ_PAGE_DATA, 8, PQ_ENC_DELTA_BINARY_PACKED, b.len);
    make_page(&p, &h, b.data, b.len);
    pq_vec v;
    pq_vec_init(&v, PQ_INT64, 0);
    CHECK_EQ_I64(decode_into(&req_i64, 0, &p, 1, 0, &v, &e), 0);
    CHECK_EQ_I64(v.length, 8);
    if (v.length == 8) CHECK_EQ_I64(((int64_t *)(void *)v.values)[7], 33);
    pq_vec_free(&v);
    h = hdr(PQ_PAGE_DATA, 7, PQ_ENC_DELTA_BINARY_PACKED, b.len); /* its header says 8 */
    make_page(&p, &h, b.data, b.len);
    check_err(decode(&req_i64, 0, &p, 1, 0, &e), &e, &p, 0, "r64", "declares 8 values");
    uint8_t more[256];
    memcpy(more, b.data, b.len);
    more[b.len] = 0x55; /* one byte after the encoded values */
    h = hdr(PQ_PAGE_DATA, 8, PQ_ENC_DELTA_BINARY_PACKED, b.len + 1);
    make_page(&p, &h, more, b.len + 1);
    check_err(decode(&req_i64, 0, &p, 1, 0, &e), &e, &p, 0, "r64", "DELTA_BINARY_PACKED");
    pq_buf_free(&b);
}

static void test_dlba_trailing_bytes(void)
{
    uint8_t ba[] = {2, 0, 0, 0, 'a', 'b', 1, 0, 0, 0, 'c'};
    pq_vec s;
    pq_vec_init(&s, PQ_BYTE_ARRAY, 0);
    size_t used;
    pq_buf b = {0};
    if (pq_plain_decode(ba, sizeof ba, 2, &s, &used, NULL) || pq_dlba_encode(&b, &s, 0, 2))
        abort();
    uint8_t body[256];
    memcpy(body, b.data, b.len);
    body[b.len] = 'z'; /* a byte after the value bytes */
    page p;
    pq_err e;
    pq_page_header h = hdr(PQ_PAGE_DATA, 2, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY, b.len);
    make_page(&p, &h, body, b.len);
    pq_vec v;
    pq_vec_init(&v, PQ_BYTE_ARRAY, 0);
    CHECK_EQ_I64(decode_into(&req_ba, 0, &p, 1, 0, &v, &e), 0);
    CHECK_EQ_I64(v.length, 2);
    CHECK_EQ_I64(v.data_len, 3);
    pq_vec_free(&v);
    h = hdr(PQ_PAGE_DATA, 2, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY, b.len + 1);
    make_page(&p, &h, body, b.len + 1);
    check_err(decode(&req_ba, 0, &p, 1, 0, &e), &e, &p, 0, "s", "DELTA_LENGTH_BYTE_ARRAY");
    pq_buf_free(&b);
    pq_vec_free(&s);
}

/* ---------------------------------------------------------------- chunk of INT64_MAX */

static void test_chunk_num_values_int64_max(void)
{
    int32_t vals[4] = {1, 2, 3, 4};
    page p;
    pq_page_header h = hdr(PQ_PAGE_DATA, 4, PQ_ENC_PLAIN, sizeof vals);
    make_page(&p, &h, (const uint8_t *)vals, sizeof vals);
    uint8_t buf[4 * sizeof p.buf];
    size_t len = 0;
    for (int i = 0; i < 4; i++, len += p.len) memcpy(buf + len, p.buf, p.len);
    pq_chunk_meta cm = {.codec = PQ_CODEC_UNCOMPRESSED, .num_values = INT64_MAX};
    pq_col_reader r;
    pq_colr_init(&r, &req_i32, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    pq_err e = {.offset = -1};
    CHECK_EQ_I64(pq_colr_chunk(&r, &cm, buf, len, FILE_OFF, &v, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "holds 16 values, its metadata says 9223372036854775807") != NULL);
    CHECK_EQ_I64(e.offset, FILE_OFF + (int64_t)len);
    CHECK_STR(e.column, "r");
    cm.num_values = 3; /* fewer than the first page: more values than the metadata says */
    pq_vec_clear(&v);
    CHECK_EQ_I64(pq_colr_chunk(&r, &cm, buf, len, FILE_OFF, &v, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "more values than its metadata") != NULL);
    cm.num_values = 16;
    pq_vec_clear(&v);
    CHECK_EQ_I64(pq_colr_chunk(&r, &cm, buf, len, FILE_OFF, &v, &e), 0);
    CHECK_EQ_I64(v.length, 16);
    pq_vec_free(&v);
    pq_colr_free(&r);
}

int main(void)
{
    RUN(test_zstd_size_mismatch);
    RUN(test_plain_trailing_bytes);
    RUN(test_plain_trailing_after_levels);
    RUN(test_dict_page_trailing_bytes);
    RUN(test_dict_index_past_dictionary);
    RUN(test_dict_index_past_dictionary_selected);
    RUN(test_level_runs);
    RUN(test_delta_disagrees);
    RUN(test_dlba_trailing_bytes);
    RUN(test_chunk_num_values_int64_max);
    return CHECK_DONE("test_page_exact");
}
