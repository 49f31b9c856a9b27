/* tests for format/page_walk.c: the page walker over a whole column chunk and over one page
 * piece. A crafted chunk of an OPTIONAL INT32 column (UNCOMPRESSED, at file offset FILE_OFF):
 *   P0 dictionary {100, 200, 300, 400}
 *   P1 v1 RLE_DICTIONARY  5 rows: 300 null 100 400 null
 *   P2 v2 RLE_DICTIONARY  4 rows: 200 200 null 300
 *   P3 v1 PLAIN           3 rows: 7 8 9
 *   P4 v2 PLAIN           3 rows: null 5 6
 * walked with no selection, with selections, with pages skipped, in indices mode (compared
 * with pq_colr_page_idx_sel), as single pieces straddling the window's edges, with a shared
 * dictionary, and broken: truncated header, body past the buffer, row counts that disagree
 * with the offset index or the window. Errors check status, message and file offset. Last, a
 * chunk from format/writer.h (dictionary, several pages, nulls) walked against pq_colr_chunk.
 * And the direct path: a SNAPPY PLAIN page of a required INT64 column, every row wanted, is
 * inflated straight into the output vector (the reader's scratch buffer never grows), after
 * rows already there; its decompressed bytes are counted; a corrupt body appends nothing. A
 * SNAPPY dictionary page of INT64 values is inflated straight into the reader's dictionary. */
#include <errno.h>

#include "check.h"
#include "format/column.h"
#include "format/encoding.h"
#include "format/page_walk.h"
#include "format/writer.h"
#include "format/codec.h"

enum { FILE_OFF = 1000, NPAGES = 5, NROWS = 15, NUL = INT32_MIN };

static const pq_column_desc col = {.name = "o", .physical = PQ_INT32,
                                   .repetition = PQ_OPTIONAL, .max_def_level = 1,
                                   .field_id = -1};
/* every row of the chunk (NUL: null) */
static const int32_t all[NROWS] = {300, NUL, 100, 400, NUL, 200, 200, NUL, 300, 7, 8, 9, NUL, 5, 6};
static const int64_t first_rows[NPAGES] = {0, 0, 5, 9, 12}; /* of data pages P1..P4 */

typedef struct chunk {
    pq_buf b;
    size_t at[NPAGES + 1]; /* byte of page i in b (at[NPAGES] = end) */
    size_t hlen[NPAGES];
} chunk;

static void put_i32s(pq_buf *b, const int32_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        uint8_t x[4] = {(uint8_t)v[i], (uint8_t)(v[i] >> 8), (uint8_t)(v[i] >> 16),
                        (uint8_t)((uint32_t)v[i] >> 24)};
        if (pq_buf_append(b, x, 4)) abort();
    }
}

static void add_page(chunk *c, int i, pq_page_header *h, const pq_buf *body)
{
    h->compressed_size = h->uncompressed_size = (int32_t)body->len;
    c->at[i] = c->b.len;
    if (pq_write_page_header(&c->b, h)) abort();
    c->hlen[i] = c->b.len - c->at[i];
    if (body->len && pq_buf_append(&c->b, body->data, body->len)) abort();
    c->at[i + 1] = c->b.len;
}

/* A data page of n rows with levels lv; body: dictionary indices (dict) or PLAIN values. */
static void data_page(chunk *c, int i, bool v2, bool dict, const uint32_t *lv, int n,
                      const int32_t *vals, int nn)
{
    pq_buf body = {0}, levels = {0};
    if (v2 ? pq_rle_encode(&levels, lv, n, 1) : pq_rle_encode_v1(&levels, lv, n, 1)) abort();
    if (pq_buf_append(&body, levels.data, levels.len)) abort();
    if (dict && pq_rle_encode_dict(&body, (const uint32_t *)(const void *)vals, nn, 2)) abort();
    if (!dict) put_i32s(&body, vals, nn);
    pq_page_header h = {.type = v2 ? PQ_PAGE_DATA_V2 : PQ_PAGE_DATA, .num_values = n,
                        .encoding = dict ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_PLAIN,
                        .def_level_encoding = PQ_ENC_RLE, .rep_level_encoding = PQ_ENC_RLE,
                        .is_compressed = !v2};
    if (v2) {
        h.num_rows = n;
        h.num_nulls = n - nn;
        h.def_levels_byte_length = (int32_t)levels.len;
    }
    add_page(c, i, &h, &body);
    pq_buf_free(&body);
    pq_buf_free(&levels);
}

static void make_chunk(chunk *c)
{
    memset(c, 0, sizeof *c);
    pq_buf body = {0};
    put_i32s(&body, (const int32_t[]){100, 200, 300, 400}, 4);
    pq_page_header h = {.type = PQ_PAGE_DICTIONARY, .num_values = 4, .encoding = PQ_ENC_PLAIN,
                        .is_compressed = true};
    add_page(c, 0, &h, &body);
    pq_buf_free(&body);
    data_page(c, 1, false, true, (const uint32_t[]){1, 0, 1, 1, 0}, 5, (const int32_t[]){2, 0, 3}, 3);
    data_page(c, 2, true, true, (const uint32_t[]){1, 1, 0, 1}, 4, (const int32_t[]){1, 1, 2}, 3);
    data_page(c, 3, false, false, (const uint32_t[]){1, 1, 1}, 3, (const int32_t[]){7, 8, 9}, 3);
    data_page(c, 4, true, false, (const uint32_t[]){0, 1, 1}, 3, (const int32_t[]){5, 6}, 2);
}

static int64_t off_of(const chunk *c, int i) { return FILE_OFF + (int64_t)c->at[i]; }

/* v holds exactly want[0..n) (NUL: a null row, whose slot must be zero). */
static void check_vals(const pq_vec *v, const int32_t *want, int64_t n)
{
    CHECK_EQ_I64(v->length, n);
    if (v->length != n) return;
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t got;
        memcpy(&got, v->values + 4 * i, 4);
        bool valid = pq_vec_is_valid(v, i);
        nulls += want[i] == NUL;
        CHECK_EQ_I64(valid, want[i] != NUL);
        CHECK_EQ_I64(got, want[i] == NUL ? 0 : want[i]);
    }
    CHECK_EQ_I64(v->null_count, nulls);
}

static pq_err fresh_err(void)
{
    pq_err e;
    memset(&e, 0, sizeof e);
    e.offset = -1;
    return e;
}

/* mode 0: every page's values; 1: only pages whose bit is set in keep (others skipped). */
static int walk_all(const chunk *c, pq_col_reader *r, int64_t window, unsigned keep, pq_vec *v,
                    int *pages, pq_err *e)
{
    pq_page_walk w;
    pq_walk_init(&w, r, c->b.data, c->b.len, FILE_OFF, 0, -1, window, false);
    pq_walk_page pg;
    int rc;
    *pages = 0;
    while ((rc = pq_walk_next(&w, &pg, e)) == 1) {
        int i = ++*pages; /* P1.. */
        if (i < NPAGES) {
            CHECK_EQ_I64(pg.off, off_of(c, i));
            CHECK_EQ_I64(pg.first_row, first_rows[i]);
            CHECK_EQ_I64(pg.a, first_rows[i]);
            CHECK_EQ_I64(pg.e, first_rows[i] + pg.rows);
        }
        if (keep >> i & 1) {
            int64_t before = v->length;
            CHECK_EQ_I64(pq_walk_values(&w, NULL, 0, v, e), 0);
            CHECK_EQ_I64(v->length - before, pg.rows);
        }
    }
    return rc;
}

static void test_whole_chunk(void)
{
    chunk c;
    make_chunk(&c);
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec v, ref;
    pq_vec_init(&v, PQ_INT32, 0);
    pq_vec_init(&ref, PQ_INT32, 0);
    pq_err e = fresh_err();
    int pages = 0;
    CHECK_EQ_I64(walk_all(&c, &r, NROWS, ~0u, &v, &pages, &e), 0);
    CHECK_EQ_I64(pages, 4);
    CHECK_EQ_I64(r.dict_loads, 1);
    CHECK_EQ_I64(r.pages_decoded, 4);
    check_vals(&v, all, NROWS);
    /* the same rows as the chunk decode */
    pq_chunk_meta cm = {.num_values = NROWS};
    CHECK_EQ_I64(pq_colr_chunk(&r, &cm, c.b.data, c.b.len, FILE_OFF, &ref, &e), 0);
    check_vals(&ref, all, NROWS);
    /* bytes after the window's last row are not read (pq_colr_chunk does the same) */
    pq_buf_append(&c.b, "\xff\xff\xff", 3);
    pq_vec_clear(&v);
    CHECK_EQ_I64(walk_all(&c, &r, NROWS, ~0u, &v, &pages, &e), 0);
    check_vals(&v, all, NROWS);
    pq_vec_free(&v);
    pq_vec_free(&ref);
    pq_colr_free(&r);
    pq_buf_free(&c.b);
}

static void test_selection(void)
{
    chunk c;
    make_chunk(&c);
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    pq_err e = fresh_err();
    static const uint32_t sels[NPAGES][2] = {{0}, {0, 2}, {1, 2}, {0, 2}, {0, 1}};
    pq_page_walk w;
    pq_walk_init(&w, &r, c.b.data, c.b.len, FILE_OFF, 0, -1, NROWS, false);
    pq_walk_page pg;
    int i = 0, rc;
    while ((rc = pq_walk_next(&w, &pg, &e)) == 1) {
        i++;
        CHECK_EQ_I64(pq_walk_values(&w, sels[i], 2, &v, &e), 0);
    }
    CHECK_EQ_I64(rc, 0);
    CHECK_EQ_I64(i, 4);
    check_vals(&v, (const int32_t[]){300, 100, 200, NUL, 7, 9, NUL, 5}, 8);
    pq_vec_free(&v);
    pq_colr_free(&r);
    pq_buf_free(&c.b);
}

static void test_skipped_pages(void)
{
    chunk c;
    make_chunk(&c);
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    pq_err e = fresh_err();
    int pages = 0;
    /* P1 and P3 skipped undecoded: their rows are not appended, yet counted */
    CHECK_EQ_I64(walk_all(&c, &r, NROWS, 1u << 2 | 1u << 4, &v, &pages, &e), 0);
    CHECK_EQ_I64(pages, 4);
    CHECK_EQ_I64(r.pages_decoded, 2);
    check_vals(&v, (const int32_t[]){200, 200, NUL, 300, NUL, 5, 6}, 7);
    /* every page skipped: the total is still checked against the window */
    pq_vec_clear(&v);
    e = fresh_err();
    CHECK_EQ_I64(walk_all(&c, &r, NROWS + 1, 0, &v, &pages, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "column chunk holds 15 rows, row group has 16") != NULL);
    CHECK_EQ_I64(e.offset, FILE_OFF);
    CHECK_EQ_I64(v.length, 0);
    pq_vec_free(&v);
    pq_colr_free(&r);
    pq_buf_free(&c.b);
}

/* Page i through pq_colr_page_idx_sel with a reader that has read the dictionary page. */
static void ref_indices(const chunk *c, int i, const uint32_t *sel, int64_t nsel, pq_vec *idx,
                        pq_vec *vals, bool *as_idx)
{
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec scratch;
    pq_vec_init(&scratch, PQ_INT32, 0);
    size_t used;
    int64_t rows;
    pq_err e = fresh_err();
    CHECK_EQ_I64(pq_colr_page(&r, c->b.data, c->b.len, FILE_OFF, &scratch, &used, &rows, &e), 0);
    CHECK_EQ_I64(pq_colr_page_idx_sel(&r, c->b.data + c->at[i], c->b.len - c->at[i],
                                      off_of(c, i), sel, nsel, idx, vals, as_idx, &used, &rows, &e), 0);
    pq_vec_free(&scratch);
    pq_colr_free(&r);
}

static bool same_i32(const pq_vec *a, const pq_vec *b)
{
    if (a->length != b->length || a->null_count != b->null_count) return false;
    for (int64_t i = 0; i < a->length; i++)
        if (pq_vec_is_valid(a, i) != pq_vec_is_valid(b, i) ||
            memcmp(a->values + 4 * i, b->values + 4 * i, 4) != 0)
            return false;
    return true;
}

static void test_indices(void)
{
    chunk c;
    make_chunk(&c);
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec idx[NPAGES], vals[NPAGES], ridx, rvals;
    pq_vec_init(&ridx, PQ_INT32, 0);
    pq_vec_init(&rvals, PQ_INT32, 0);
    static const uint32_t sel[1] = {1};
    pq_err e = fresh_err();
    pq_page_walk w;
    pq_walk_init(&w, &r, c.b.data, c.b.len, FILE_OFF, 0, -1, NROWS, false);
    pq_walk_page pg;
    bool as_idx[NPAGES] = {0};
    for (int i = 1; i < NPAGES; i++) {
        pq_vec_init(&idx[i], PQ_INT32, 0);
        pq_vec_init(&vals[i], PQ_INT32, 0);
        CHECK_EQ_I64(pq_walk_next(&w, &pg, &e), 1);
        /* pages 2 and 4 with a selection: a dictionary page still gives every index */
        const uint32_t *s = i % 2 == 0 ? sel : NULL;
        as_idx[i] = !as_idx[i];
        CHECK_EQ_I64(pq_walk_indices(&w, s, 1, &idx[i], &vals[i], &as_idx[i], &e), 0);
        bool ref_as = false;
        pq_vec_clear(&ridx);
        pq_vec_clear(&rvals);
        ref_indices(&c, i, s, s ? 1 : -1, &ridx, &rvals, &ref_as);
        CHECK_EQ_I64(as_idx[i], ref_as);
        CHECK(same_i32(&idx[i], &ridx));
        CHECK(same_i32(&vals[i], &rvals));
    }
    CHECK_EQ_I64(pq_walk_next(&w, &pg, &e), 0);
    CHECK(as_idx[1] && as_idx[2] && !as_idx[3] && !as_idx[4]);
    check_vals(&idx[1], (const int32_t[]){2, NUL, 0, 3, NUL}, 5);
    check_vals(&idx[2], (const int32_t[]){1, 1, NUL, 2}, 4);
    CHECK_EQ_I64(vals[1].length + vals[2].length, 0);
    check_vals(&vals[3], (const int32_t[]){7, 8, 9}, 3);
    check_vals(&vals[4], (const int32_t[]){5}, 1);
    CHECK_EQ_I64(idx[3].length + idx[4].length, 0);
    for (int i = 1; i < NPAGES; i++) {
        pq_vec_free(&idx[i]);
        pq_vec_free(&vals[i]);
    }
    pq_vec_free(&ridx);
    pq_vec_free(&rvals);
    pq_colr_free(&r);
    pq_buf_free(&c.b);
}

/* pq_walk_dict_bits over a chunk of the dictionary {100, 200, 300, 400} and pages: v1 and v2
 * dictionary pages without nulls (to bits: row i's bit is its entry's), a v1 dictionary page
 * with nulls and a PLAIN page (both as pq_walk_indices: indices, values), for bitmaps all
 * false, all true and 0b0101; a bitmap of another length or too small a cap: indices. Then
 * with kept values and no indices: the passing rows' values of the bits pages (all, none,
 * half, one row in five: both ways of decoding them), every value of the others. */
static void test_dict_bits(void)
{
    chunk c;
    memset(&c, 0, sizeof c);
    pq_buf body = {0};
    put_i32s(&body, (const int32_t[]){100, 200, 300, 400}, 4);
    pq_page_header h = {.type = PQ_PAGE_DICTIONARY, .num_values = 4, .encoding = PQ_ENC_PLAIN,
                        .is_compressed = true};
    add_page(&c, 0, &h, &body);
    pq_buf_free(&body);
    const uint32_t ones[6] = {1, 1, 1, 1, 1, 1};
    data_page(&c, 1, false, true, ones, 6, (const int32_t[]){2, 0, 3, 3, 1, 0}, 6);
    data_page(&c, 2, true, true, ones, 5, (const int32_t[]){1, 1, 0, 2, 3}, 5);
    data_page(&c, 3, false, true, (const uint32_t[]){1, 0, 1}, 3, (const int32_t[]){3, 1}, 2);
    data_page(&c, 4, true, false, ones, 2, (const int32_t[]){5, 6}, 2);
    const uint64_t maps[3] = {0, 0xf, 0x5};
    for (int m = 0; m < 5; m++) {
        pq_col_reader r;
        pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
        pq_err e = fresh_err();
        pq_page_walk w;
        pq_walk_init(&w, &r, c.b.data, c.b.len, FILE_OFF, 0, -1, 16, false);
        pq_walk_page pg;
        uint64_t dm = maps[m % 3], out[2];
        pq_vec idx, vals;
        pq_vec_init(&idx, PQ_INT32, 0);
        pq_vec_init(&vals, PQ_INT32, 0);
        for (int i = 1; i < NPAGES; i++) {
            CHECK_EQ_I64(pq_walk_next(&w, &pg, &e), 1);
            pq_dict_bits b = {.dm = &dm, .dlen = m == 3 ? 5 : 4, .out = out,
                              .cap = m == 4 ? 5 : 64};
            bool as_idx = false;
            pq_vec_clear(&idx);
            pq_vec_clear(&vals);
            memset(out, 0xee, sizeof out);
            CHECK_EQ_I64(pq_walk_dict_bits(&w, NULL, 0, &idx, &vals, &as_idx, &b, &e), 0);
            bool to_bits = i <= 2 && m != 3 && !(m == 4 && i == 1); /* 6 rows past cap 5 */
            CHECK_EQ_I64(b.done, to_bits);
            CHECK_EQ_I64(as_idx, i <= 3);
            if (to_bits) {
                static const uint32_t e1[6] = {2, 0, 3, 3, 1, 0}, e2[5] = {1, 1, 0, 2, 3};
                const uint32_t *ent = i == 1 ? e1 : e2;
                uint64_t want = 0;
                for (int j = 0; j < (i == 1 ? 6 : 5); j++) want |= ((dm >> ent[j]) & 1) << j;
                CHECK_EQ_I64(out[0], want); /* the bits past the page's rows clear */
                CHECK(out[1] == 0xeeeeeeeeeeeeeeeeULL); /* one word: nothing past it */
                CHECK_EQ_I64(idx.length + vals.length, 0);
            } else if (i <= 2) {
                CHECK_EQ_I64(idx.length, i == 1 ? 6 : 5);
            } else if (i == 3) {
                check_vals(&idx, (const int32_t[]){3, NUL, 1}, 3);
            } else {
                check_vals(&vals, (const int32_t[]){5, 6}, 2);
            }
        }
        CHECK_EQ_I64(pq_walk_next(&w, &pg, &e), 0);
        pq_vec_free(&idx);
        pq_vec_free(&vals);
        pq_colr_free(&r);
    }
    /* kept values (idx NULL): of the rows whose bit and in-bit are set, by the per-row select
     * (a quarter of the rows or fewer) or the bulk unpack; the other pages' values */
    const uint64_t kmaps[4] = {0, 0xf, 0x5, 0x8};
    static const int32_t dict[4] = {100, 200, 300, 400};
    static const uint32_t ents[2][6] = {{2, 0, 3, 3, 1, 0}, {1, 1, 0, 2, 3}};
    for (int m = 0; m < 8; m++) {
        pq_col_reader r;
        pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
        pq_err e = fresh_err();
        pq_page_walk w;
        pq_walk_init(&w, &r, c.b.data, c.b.len, FILE_OFF, 0, -1, 16, false);
        pq_walk_page pg;
        uint64_t dm = kmaps[m % 4], out[1], in = m < 4 ? ~UINT64_C(0) : 0x1b; /* rows 0,1,3,4 */
        pq_vec kept, vals;
        pq_vec_init(&kept, PQ_INT32, 0);
        pq_vec_init(&vals, PQ_INT32, 0);
        int32_t want[16];
        int nwant = 0;
        for (int i = 1; i < NPAGES; i++) {
            CHECK_EQ_I64(pq_walk_next(&w, &pg, &e), 1);
            pq_dict_bits b = {.dm = &dm, .dlen = 4, .out = out, .cap = 64, .in = &in, .kept = &kept};
            bool as_idx = true;
            pq_vec_clear(&vals);
            CHECK_EQ_I64(pq_walk_dict_bits(&w, NULL, 0, NULL, &vals, &as_idx, &b, &e), 0);
            CHECK_EQ_I64(b.done, i <= 2);
            CHECK_EQ_I64(as_idx, i <= 2);
            for (int j = 0; i <= 2 && j < (i == 1 ? 6 : 5); j++)
                if (((dm >> ents[i - 1][j]) & 1) && ((in >> j) & 1)) want[nwant++] = dict[ents[i - 1][j]];
            if (i == 3) check_vals(&vals, (const int32_t[]){400, NUL, 200}, 3);
            if (i == 4) check_vals(&vals, (const int32_t[]){5, 6}, 2);
        }
        check_vals(&kept, want, nwant);
        pq_vec_free(&kept);
        pq_vec_free(&vals);
        pq_colr_free(&r);
    }
    pq_buf_free(&c.b);
}

/* Walks page i alone as a page piece at window row first_row of a window of nrows rows;
 * appends its values (rows inside the window). Returns the walk's first failure or 0. */
static int walk_piece(const chunk *c, pq_col_reader *r, int i, int64_t first_row,
                      int64_t exp_rows, int64_t nrows, pq_vec *v, pq_walk_page *pg, pq_err *e)
{
    pq_page_walk w;
    pq_walk_init(&w, r, c->b.data + c->at[i], c->at[i + 1] - c->at[i], off_of(c, i), first_row,
                 exp_rows, nrows, true);
    int rc, n = 0;
    while ((rc = pq_walk_next(&w, pg, e)) == 1) {
        n++;
        rc = pq_walk_values(&w, NULL, 0, v, e);
        if (rc) return rc;
    }
    if (rc == 0) CHECK(n <= 1);
    return rc;
}

static void test_straddling_pieces(void)
{
    chunk c;
    make_chunk(&c);
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    pq_err e = fresh_err();
    pq_walk_page pg;
    /* the dictionary alone: loaded, no data page */
    CHECK_EQ_I64(walk_piece(&c, &r, 0, 0, -1, 4, &v, &pg, &e), 0);
    CHECK_EQ_I64(r.dict_loads, 1);
    CHECK_EQ_I64(v.length, 0);
    /* P2 (4 rows) from window row -1 in a window of 2 rows: its rows 1 and 2 */
    CHECK_EQ_I64(walk_piece(&c, &r, 2, -1, 4, 2, &v, &pg, &e), 0);
    CHECK_EQ_I64(pg.first_row, -1);
    CHECK_EQ_I64(pg.rows, 4);
    CHECK_EQ_I64(pg.a, 0);
    CHECK_EQ_I64(pg.e, 2);
    CHECK_EQ_I64(pg.off, off_of(&c, 2));
    check_vals(&v, (const int32_t[]){200, NUL}, 2);
    /* P1 (5 rows) from row 3 of a window of 5: its rows 0 and 1 */
    pq_vec_clear(&v);
    CHECK_EQ_I64(walk_piece(&c, &r, 1, 3, 5, 5, &v, &pg, &e), 0);
    CHECK_EQ_I64(pg.a, 3);
    CHECK_EQ_I64(pg.e, 5);
    check_vals(&v, (const int32_t[]){300, NUL}, 2);
    /* P3 (PLAIN, 3 rows) from row -2 of a window of 1: its last row only */
    pq_vec_clear(&v);
    CHECK_EQ_I64(walk_piece(&c, &r, 3, -2, 3, 1, &v, &pg, &e), 0);
    check_vals(&v, (const int32_t[]){9}, 1);
    /* P4 (v2 PLAIN with a null) from row -1 of a window of 1: its row 1 */
    pq_vec_clear(&v);
    CHECK_EQ_I64(walk_piece(&c, &r, 4, -1, 3, 1, &v, &pg, &e), 0);
    check_vals(&v, (const int32_t[]){5}, 1);
    /* wholly before the window: an empty [a, e), nothing appended */
    pq_vec_clear(&v);
    CHECK_EQ_I64(walk_piece(&c, &r, 2, -10, 4, 5, &v, &pg, &e), 0);
    CHECK_EQ_I64(pg.a, 0);
    CHECK_EQ_I64(pg.e, 0);
    CHECK_EQ_I64(v.length, 0);
    /* wholly after it: empty at the window's end */
    CHECK_EQ_I64(walk_piece(&c, &r, 2, 7, 4, 5, &v, &pg, &e), 0);
    CHECK_EQ_I64(pg.a, 5);
    CHECK_EQ_I64(pg.e, 5);
    CHECK_EQ_I64(v.length, 0);
    /* inside the window: the whole page */
    pq_vec_clear(&v);
    CHECK_EQ_I64(walk_piece(&c, &r, 1, 2, 5, 10, &v, &pg, &e), 0);
    check_vals(&v, all, 5);
    pq_vec_free(&v);
    pq_colr_free(&r);
    pq_buf_free(&c.b);
}

static void test_shared_dict(void)
{
    chunk c;
    make_chunk(&c);
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec shared, v;
    pq_vec_init(&shared, PQ_INT32, 0);
    pq_vec_init(&v, PQ_INT32, 0);
    CHECK_EQ_I64(pq_vec_reserve(&shared, 4, 0), 0);
    int32_t d[4] = {1, 2, 3, 4};
    memcpy(shared.values, d, sizeof d);
    shared.length = 4;
    pq_err e = fresh_err();
    pq_walk_page pg;
    /* P1 alone decodes against the shared dictionary */
    r.shared_dict = &shared;
    CHECK_EQ_I64(walk_piece(&c, &r, 1, 0, 5, 5, &v, &pg, &e), 0);
    check_vals(&v, (const int32_t[]){3, NUL, 1, 4, NUL}, 5);
    CHECK(r.shared_dict == &shared);
    /* a walk through the dictionary page loads the reader's own and drops the shared one */
    pq_vec_clear(&v);
    int pages;
    CHECK_EQ_I64(walk_all(&c, &r, NROWS, ~0u, &v, &pages, &e), 0);
    CHECK(r.shared_dict == NULL);
    check_vals(&v, all, NROWS);
    pq_vec_free(&v);
    pq_vec_free(&shared);
    pq_colr_free(&r);
    pq_buf_free(&c.b);
}

/* ----------------------------------------------------------------------------- errors */

static void check_err(int rc, const pq_err *e, int status, int64_t off, const char *words)
{
    CHECK_EQ_I64(rc, status);
    CHECK_EQ_I64(e->status, status);
    CHECK_EQ_I64(e->offset, off);
    CHECK_STR(e->column, "o");
    if (!strstr(e->msg, words)) fprintf(stderr, "  message: %s (wanted %s)\n", e->msg, words);
    CHECK(strstr(e->msg, words) != NULL);
}

/* The walk of buf[0, len) at the chunk's offset of page i; status of the first failure. */
static int walk_bytes(const uint8_t *buf, size_t len, int64_t off, int64_t first_row,
                      int64_t exp_rows, int64_t nrows, bool single, pq_err *e)
{
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    pq_page_walk w;
    pq_walk_init(&w, &r, buf, len, off, first_row, exp_rows, nrows, single);
    pq_walk_page pg;
    int rc;
    *e = fresh_err();
    while ((rc = pq_walk_next(&w, &pg, e)) == 1)
        if ((rc = pq_walk_values(&w, NULL, 0, &v, e))) break;
    if (rc < 0) { /* sticky: the walk stays failed */
        pq_err again = fresh_err();
        CHECK_EQ_I64(pq_walk_next(&w, &pg, &again), rc);
    }
    pq_vec_free(&v);
    pq_colr_free(&r);
    return rc;
}

/* A window inside the chunk (a split of a row group cut without offset indexes): for every
 * [lo, hi), the walk from window row -lo with chunk_end NROWS - lo returns the pages before
 * the window empty at its start (a == e == 0), decodes exactly rows lo..hi of the chunk from
 * the pages it touches, and stops at the first page past hi. */
static void test_chunk_window(void)
{
    chunk c;
    make_chunk(&c);
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    for (int64_t lo = 0; lo < NROWS; lo++) {
        for (int64_t hi = lo + 1; hi <= NROWS; hi++) {
            pq_err e = fresh_err();
            pq_page_walk w;
            pq_walk_init(&w, &r, c.b.data, c.b.len, FILE_OFF, -lo, -1, hi - lo, false);
            pq_walk_set_chunk_end(&w, NROWS - lo);
            pq_walk_page pg;
            int rc, touched = 0, want = 0;
            pq_vec_clear(&v);
            while ((rc = pq_walk_next(&w, &pg, &e)) == 1) {
                if (pg.a == pg.e) {
                    CHECK(pg.e == 0 && pg.first_row + pg.rows <= 0);
                    continue;
                }
                touched++;
                CHECK_EQ_I64(pq_walk_values(&w, NULL, 0, &v, &e), 0);
            }
            CHECK_EQ_I64(rc, 0);
            for (int i = 1; i < NPAGES; i++) {
                int64_t a = first_rows[i], z = i + 1 < NPAGES ? first_rows[i + 1] : NROWS;
                want += a < hi && z > lo;
            }
            CHECK_EQ_I64(touched, want);
            check_vals(&v, all + lo, hi - lo);
        }
    }
    /* a page past chunk_end, and pages ending before the window's end */
    pq_err e = fresh_err();
    pq_page_walk w;
    pq_walk_page pg;
    pq_walk_init(&w, &r, c.b.data, c.b.len, FILE_OFF, -6, -1, 2, false);
    pq_walk_set_chunk_end(&w, 2); /* P2 holds window rows -1..3 */
    int rc;
    while ((rc = pq_walk_next(&w, &pg, &e)) == 1) {
    }
    check_err(rc, &e, RINGSCAN_EFORMAT, off_of(&c, 2), "more rows than the row group");
    e = fresh_err();
    pq_walk_init(&w, &r, c.b.data, c.at[3], FILE_OFF, -5, -1, 6, false); /* P0..P2: 9 rows */
    pq_walk_set_chunk_end(&w, NROWS - 5);
    while ((rc = pq_walk_next(&w, &pg, &e)) == 1) {
    }
    /* the chunk's rows from its first, not the window's: it said "holds 4 rows, row group has 6" */
    check_err(rc, &e, RINGSCAN_EFORMAT, FILE_OFF, "column chunk holds 9 rows, row group has 15");
    pq_vec_free(&v);
    pq_colr_free(&r);
    pq_buf_free(&c.b);
}

/* pq_walk_snap on the chunk (data pages start at rows 0, 5, 9, 12 of 15): every edge goes to
 * the nearest of 5, 9, 12 and 15 (a tie to the later; 0 stays), so moved edges never
 * reverse and windows cut anywhere still tile the chunk; the dictionary page is skipped
 * undecoded; headers are read only up to the first data page starting past hi (a buffer
 * cut after P3 serves hi 6 but not hi 10: P4's header is not whole). */
static void test_snap(void)
{
    chunk c;
    make_chunk(&c);
    pq_col_reader r;
    pq_colr_init(&r, &col, PQ_CODEC_UNCOMPRESSED, NULL);
    const int64_t want[NROWS + 1] = {0, 5, 5, 5, 5, 5, 5, 9, 9, 9, 9, 12, 12, 12, 15, 15};
    int64_t prev = 0;
    for (int64_t row = 0; row <= NROWS; row++) {
        int64_t lo = row, hi = NROWS;
        pq_err e = fresh_err();
        CHECK_EQ_I64(pq_walk_snap(&r, c.b.data, c.b.len, FILE_OFF, NROWS, &lo, &hi, &e), 0);
        CHECK_EQ_I64(lo, want[row]);
        CHECK_EQ_I64(hi, NROWS);
        CHECK(lo >= prev); /* never reverses */
        prev = lo;
        lo = 0, hi = row;
        CHECK_EQ_I64(pq_walk_snap(&r, c.b.data, c.b.len, FILE_OFF, NROWS, &lo, &hi, &e), 0);
        CHECK_EQ_I64(lo, 0);
        CHECK_EQ_I64(hi, want[row]);
    }
    CHECK(!r.has_dict);
    CHECK_EQ_I64(r.pages_decoded, 0);
    int64_t lo = 1, hi = 6;
    pq_err e = fresh_err();
    CHECK_EQ_I64(pq_walk_snap(&r, c.b.data, c.at[4], FILE_OFF, NROWS, &lo, &hi, &e), 0);
    CHECK_EQ_I64(lo, 5);
    CHECK_EQ_I64(hi, 5);
    lo = 1, hi = 10;
    int rc = pq_walk_snap(&r, c.b.data, c.at[4] + 2, FILE_OFF, NROWS, &lo, &hi, &e);
    CHECK(rc < 0);
    CHECK_EQ_I64(e.offset, off_of(&c, 4));
    pq_colr_free(&r);
    pq_buf_free(&c.b);
}

static void test_errors(void)
{
    chunk c;
    make_chunk(&c);
    const uint8_t *p1 = c.b.data + c.at[1];
    size_t n1 = c.at[2] - c.at[1];
    int64_t o1 = off_of(&c, 1);
    pq_err e;
    /* the good piece first, so each failure below is the broken part's */
    CHECK_EQ_I64(walk_bytes(c.b.data, c.at[1], FILE_OFF, 0, -1, 4, true, &e), 0);
    pq_buf b = {0};
    pq_buf_append(&b, c.b.data, c.at[1]); /* dictionary, then P1 */
    pq_buf_append(&b, p1, n1);
    CHECK_EQ_I64(walk_bytes(b.data, b.len, FILE_OFF, 0, -1, 5, false, &e), 0);
    /* truncated header (3 of its bytes) */
    int rc = walk_bytes(p1, 3, o1, 0, 5, 5, true, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, o1, "thrift");
    /* body one byte longer than the buffer */
    rc = walk_bytes(p1, n1 - 1, o1, 0, 5, 5, true, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, o1, "page extends past the column chunk");
    /* the same within a whole chunk: P1's body cut by the chunk's end */
    rc = walk_bytes(b.data, b.len - 1, FILE_OFF, 0, -1, 5, false, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, o1, "page extends past the column chunk");
    /* the offset index disagrees with the page */
    rc = walk_bytes(p1, n1, o1, 0, 6, 10, true, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, o1, "page holds 5 rows, the offset index says 6");
    /* the offset index points at the dictionary page */
    rc = walk_bytes(c.b.data, c.at[1], FILE_OFF, 0, 4, 4, true, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, FILE_OFF, "not a data page");
    /* a whole chunk whose pages hold fewer rows than the window */
    rc = walk_bytes(c.b.data, c.b.len, FILE_OFF, 0, -1, NROWS + 2, false, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, FILE_OFF, "column chunk holds 15 rows, row group has 17");
    /* ... or more: P4 ends at row 15, past a window of 14; P3 at 12, past 10 */
    rc = walk_bytes(c.b.data, c.b.len, FILE_OFF, 0, -1, NROWS - 1, false, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, off_of(&c, 4), "pages hold more rows than the row group");
    rc = walk_bytes(c.b.data, c.b.len, FILE_OFF, 0, -1, 10, false, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, off_of(&c, 3), "pages hold more rows than the row group");
    /* a negative row count: the header parser refuses it already (the walker's own check
     * stays as a second line) */
    chunk neg;
    memset(&neg, 0, sizeof neg);
    pq_buf body = {0};
    pq_page_header h = {.type = PQ_PAGE_DATA, .num_values = -1, .encoding = PQ_ENC_PLAIN,
                        .def_level_encoding = PQ_ENC_RLE, .rep_level_encoding = PQ_ENC_RLE,
                        .is_compressed = true};
    pq_buf_append(&body, "\0\0\0\0", 4);
    add_page(&neg, 0, &h, &body);
    rc = walk_bytes(neg.b.data, neg.b.len, 77, 0, -1, 5, true, &e);
    check_err(rc, &e, RINGSCAN_EFORMAT, 77, "thrift: integer value out of range");
    pq_buf_free(&body);
    pq_buf_free(&neg.b);
    pq_buf_free(&b);
    pq_buf_free(&c.b);
}

/* ------------------------------------------------------------------ a writer's chunk */

static int sink(void *ctx, const void *p, size_t n) { return pq_buf_append(ctx, p, n); }

static void test_writer_chunk(void)
{
    enum { N = 50 };
    pq_column_desc wc = col;
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.page_rows = 8;
    pq_buf file = {0};
    pq_writer *w = NULL;
    pq_err e = fresh_err();
    CHECK_EQ_I64(pq_writer_open(&w, &wc, 1, &o, sink, &file, &e), 0);
    pq_vec in;
    pq_vec_init(&in, PQ_INT32, 0);
    int32_t want[N];
    CHECK_EQ_I64(pq_vec_reserve(&in, N, 0), 0);
    for (int i = 0; i < N; i++) {
        want[i] = i % 7 == 3 ? NUL : (i * 37) % 5 * 10;
        int32_t x = want[i] == NUL ? 0 : want[i];
        memcpy(in.values + 4 * i, &x, 4);
        pq_bit_set(in.validity, i, want[i] != NUL);
        in.null_count += want[i] == NUL;
    }
    in.length = N;
    CHECK_EQ_I64(pq_writer_write(w, &in, N, &e), 0);
    CHECK_EQ_I64(pq_writer_close(w, &e), 0);
    pq_writer_free(w);
    uint64_t moff, coff, clen;
    uint32_t mlen;
    bool in_tail;
    pq_file_meta m;
    CHECK_EQ_I64(pq_footer_locate(file.data, file.len, file.len, 0, &moff, &mlen, &in_tail, &e), 0);
    CHECK_EQ_I64(pq_file_meta_parse(file.data + moff, mlen, NULL, &m, &e), 0);
    const pq_chunk_meta *cm = &m.row_groups[0].chunks[0];
    CHECK_EQ_I64(pq_chunk_range(cm, file.len, &coff, &clen, &e), 0);
    CHECK(cm->has_dictionary_page_offset);
    pq_col_reader r;
    pq_colr_init(&r, &m.columns[0], cm->codec, NULL);
    pq_vec v, ref;
    pq_vec_init(&v, PQ_INT32, 0);
    pq_vec_init(&ref, PQ_INT32, 0);
    pq_page_walk pw;
    pq_walk_init(&pw, &r, file.data + coff, clen, (int64_t)coff, 0, -1, N, false);
    pq_walk_page pg;
    int rc, pages = 0;
    int64_t next_row = 0;
    while ((rc = pq_walk_next(&pw, &pg, &e)) == 1) {
        pages++;
        CHECK_EQ_I64(pg.first_row, next_row);
        next_row += pg.rows;
        CHECK_EQ_I64(pq_walk_values(&pw, NULL, 0, &v, &e), 0);
    }
    CHECK_EQ_I64(rc, 0);
    CHECK_EQ_I64(pages, (N + 7) / 8);
    CHECK_EQ_I64(r.dict_loads, 1);
    check_vals(&v, want, N);
    CHECK_EQ_I64(pq_colr_chunk(&r, cm, file.data + coff, clen, (int64_t)coff, &ref, &e), 0);
    CHECK(same_i32(&v, &ref));
    pq_vec_free(&v);
    pq_vec_free(&ref);
    pq_vec_free(&in);
    pq_colr_free(&r);
    pq_file_meta_free(&m);
    pq_buf_free(&file);
}

/* A SNAPPY PLAIN page (data, or dictionary when dict) of n INT64 values 3*i (header then
 * body) in c; *hl: the body's offset in c. */
static void direct_page(pq_buf *c, int n, size_t *hl, bool dict)
{
    pq_buf raw = {0}, body = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t x = 3 * i;
        if (pq_buf_append(&raw, &x, 8)) abort();
    }
    pq_err e = {.offset = -1};
    if (pq_compress_buf(PQ_CODEC_SNAPPY, raw.data, raw.len, &body, 0, &e)) abort();
    pq_page_header h = {.type = dict ? PQ_PAGE_DICTIONARY : PQ_PAGE_DATA, .num_values = n,
                        .encoding = PQ_ENC_PLAIN,
                        .def_level_encoding = PQ_ENC_RLE, .rep_level_encoding = PQ_ENC_RLE,
                        .compressed_size = (int32_t)body.len,
                        .uncompressed_size = (int32_t)raw.len};
    if (pq_write_page_header(c, &h)) abort();
    *hl = c->len;
    if (pq_buf_append(c, body.data, body.len)) abort();
    pq_buf_free(&raw);
    pq_buf_free(&body);
}

/* A required INT64 column's SNAPPY reader, its output vector and one direct_page of n values. */
typedef struct direct_fix {
    pq_buf c;
    size_t hl;
    pq_col_reader r;
    pq_vec v;
    pq_err e;
    size_t used;
    int64_t rows;
} direct_fix;

static void direct_open(direct_fix *t, int n, bool dict)
{
    static const pq_column_desc req = {.name = "r", .physical = PQ_INT64,
                                       .repetition = PQ_REQUIRED, .field_id = -1};
    memset(t, 0, sizeof *t);
    t->e.offset = -1;
    t->rows = -1;
    direct_page(&t->c, n, &t->hl, dict);
    pq_colr_init(&t->r, &req, PQ_CODEC_SNAPPY, NULL);
    pq_vec_init(&t->v, PQ_INT64, 0);
}

/* Decodes the page (its body's first 4 bytes, the snappy length, broken when corrupt). */
static int direct_decode(direct_fix *t, bool corrupt)
{
    if (corrupt) memset(t->c.data + t->hl, 0xff, 4);
    return pq_colr_page(&t->r, t->c.data, t->c.len, FILE_OFF, &t->v, &t->used, &t->rows, &t->e);
}

static void direct_close(direct_fix *t)
{
    pq_vec_free(&t->v);
    pq_colr_free(&t->r);
    pq_buf_free(&t->c);
}

static void test_direct_plain(void)
{
    enum { N = 1000 };
    direct_fix t;
    direct_open(&t, N, false);
    int64_t first = -7;
    CHECK_EQ_I64(pq_vec_reserve(&t.v, 1, 0), 0);
    memcpy(t.v.values, &first, 8);
    t.v.length = 1;
    CHECK_EQ_I64(direct_decode(&t, false), 0);
    CHECK_EQ_I64(t.rows, N);
    CHECK_EQ_I64((int64_t)t.used, (int64_t)t.c.len);
    CHECK_EQ_I64(t.v.length, N + 1);
    CHECK_EQ_I64(t.v.null_count, 0);
    CHECK_EQ_I64(((const int64_t *)t.v.values)[0], -7);
    for (int i = 0; i < N; i++) CHECK_EQ_I64(((const int64_t *)t.v.values)[i + 1], 3 * i);
    CHECK_EQ_I64((int64_t)t.r.scratch_cap, 0); /* never copied through the scratch buffer */
    CHECK_EQ_I64(t.r.decompressed_bytes, N * 8);
    CHECK_EQ_I64(t.r.pages_decoded, 1);
    CHECK(direct_decode(&t, true) < 0); /* an error at the body, nothing appended */
    CHECK_EQ_I64(t.e.offset, FILE_OFF + (int64_t)t.hl);
    CHECK_EQ_I64(t.v.length, N + 1);
    direct_close(&t);
}

static void test_direct_dict(void)
{
    enum { N = 300 };
    direct_fix t;
    direct_open(&t, N, true);
    CHECK_EQ_I64(direct_decode(&t, false), 0);
    CHECK_EQ_I64(t.rows, 0);
    CHECK_EQ_I64(t.v.length, 0);
    CHECK(t.r.has_dict);
    CHECK_EQ_I64(t.r.dict_loads, 1);
    CHECK_EQ_I64(t.r.dict.length, N);
    for (int i = 0; i < N; i++) CHECK_EQ_I64(((const int64_t *)t.r.dict.values)[i], 3 * i);
    CHECK_EQ_I64((int64_t)t.r.scratch_cap, 0); /* never copied through the scratch buffer */
    CHECK_EQ_I64(t.r.decompressed_bytes, N * 8);
    CHECK(direct_decode(&t, true) < 0); /* an error at the body, no dictionary left */
    CHECK_EQ_I64(t.e.offset, FILE_OFF + (int64_t)t.hl);
    CHECK(!t.r.has_dict);
    direct_close(&t);
}

int main(void)
{
    RUN(test_direct_plain);
    RUN(test_direct_dict);
    RUN(test_whole_chunk);
    RUN(test_chunk_window);
    RUN(test_snap);
    RUN(test_selection);
    RUN(test_skipped_pages);
    RUN(test_indices);
    RUN(test_dict_bits);
    RUN(test_straddling_pieces);
    RUN(test_shared_dict);
    RUN(test_errors);
    RUN(test_writer_chunk);
    return CHECK_DONE("test_page_walk");
}
