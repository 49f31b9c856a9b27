/* tests for format/nest_stream.c read in windows (invariant 6): a nested leaf's chunk of the
 * parquet-testing corpus handed to pq_nest_leaf_rows in windows of 1 byte up to the whole
 * chunk, the windows read where PQ_NEST_NEED asks (as scan/task_nwin.c reads them), gives
 * the level pairs and values of the whole chunk's decode (pq_nest_leaf_chunk): in one call,
 * in row ranges in order, out of order (a parked range) and after a restart from the
 * chunk's start; every ask lies at the stream's position, within the chunk, and grows past
 * what the last window held; a chunk cut short fails with the whole decode's status and
 * message (RINGSCAN_EFORMAT naming the offset and the column). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/column_nested.h"
#include "format/meta.h"

#include "testing_data.h"

typedef struct chunk {
    const uint8_t *data; /* the chunk's bytes (as far as given: len) */
    uint64_t len;
    int64_t file_off;
    const pq_column_desc *c;
    pq_codec codec;
} chunk;

static void stream_init(pq_nest_stream *s, const pq_column_desc *c)
{
    memset(s, 0, sizeof *s);
    s->rg = s->park_rg = -1;
    pq_nest_leaf_init(&s->carry, c);
    for (int k = 0; k < PQ_NEST_PARKS; k++) pq_nest_leaf_init(&s->park[k].l, c);
}

/* Rows [lo, hi) of k through s in windows of win bytes (at least; what s asks) into out
 * (empty). The status; *asks counts the PQ_NEST_NEED answered. */
static int rows_win(pq_col_reader *r, pq_nest_stream *s, const chunk *k, uint64_t win, int64_t lo,
                    int64_t hi, bool to_end, pq_nest_leaf *out, int *asks, pq_err *e)
{
    pq_nest_win v = {.data = k->data, .off = 0, .len = 0, .chunk_len = k->len, .file_off = k->file_off};
    int rc;
    for (int calls = 0; (rc = pq_nest_leaf_rows(r, s, 0, &v, lo, hi, to_end, out, e)) == PQ_NEST_NEED; calls++) {
        CHECK(s->need_off == s->pos && s->need_len >= 1 && s->need_off + s->need_len <= k->len);
        /* (invariant 6: more than the last window held from there) */
        CHECK(s->need_off < v.off || s->need_off >= v.off + v.len || s->need_len > v.off + v.len - s->need_off);
        CHECK(out->n == 0 && calls < 100000);
        if (calls >= 100000) return -1;
        uint64_t n = s->need_len > win ? s->need_len : win;
        v.off = s->need_off, v.len = n < k->len - v.off ? n : k->len - v.off, v.data = k->data + v.off;
        (*asks)++;
    }
    return rc;
}

/* Whether a holds what ref holds for rows [lo, hi) (hi the last: to ref's end). */
static bool same_rows(const pq_nest_leaf *a, const pq_nest_leaf *ref, const pq_column_desc *c,
                      int64_t lo, int64_t hi, int64_t rows)
{
    int64_t p0 = -1, p1 = hi == rows ? ref->n : -1, row = -1, v0 = 0, nv = 0;
    for (int64_t i = 0; i < ref->n && (p0 < 0 || p1 < 0); i++) {
        row += c->max_rep_level == 0 || ref->rep[i] == 0;
        if (row == lo && p0 < 0) p0 = i;
        if (row == hi && p1 < 0) p1 = i;
    }
    if (p0 < 0 || p1 < p0 || a->n != p1 - p0) return false;
    for (int64_t i = 0; i < p0; i++) v0 += ref->def[i] == c->max_def_level;
    for (int64_t i = p0; i < p1; i++) nv += ref->def[i] == c->max_def_level;
    if (memcmp(a->rep, ref->rep + p0, sizeof *a->rep * (size_t)a->n) ||
        memcmp(a->def, ref->def + p0, sizeof *a->def * (size_t)a->n) || a->vals.length != nv)
        return false;
    const pq_vec *x = &a->vals, *y = &ref->vals;
    if (x->type == PQ_BYTE_ARRAY) {
        int64_t bytes = nv ? y->offsets[v0 + nv] - y->offsets[v0] : 0;
        return x->data_len == bytes && (bytes == 0 || !memcmp(x->data, y->data + y->offsets[v0], (size_t)bytes));
    }
    if (x->type == PQ_BOOLEAN) {
        for (int64_t i = 0; i < nv; i++)
            if (pq_bit_get(x->values, i) != pq_bit_get(y->values, v0 + i)) return false;
        return true;
    }
    size_t w = (size_t)pq_fixed_width(x->type, x->type_length);
    return nv == 0 || !memcmp(x->values, y->values + w * (size_t)v0, w * (size_t)nv);
}

/* Rows [lo, hi) through s against ref (a fresh leaf each call, as the scan empties its own). */
static void check_rows(pq_col_reader *r, pq_nest_stream *s, const chunk *k, uint64_t win,
                       int64_t lo, int64_t hi, int64_t rows, const pq_nest_leaf *ref, int *asks)
{
    pq_err e = {0};
    pq_nest_leaf got;
    pq_nest_leaf_init(&got, k->c);
    CHECK_EQ_I64(rows_win(r, s, k, win, lo, hi, hi == rows, &got, asks, &e), 0);
    CHECK(same_rows(&got, ref, k->c, lo, hi, rows));
    pq_nest_leaf_free(&got);
}

/* One leaf's chunk k (rows rows) against its whole decode ref, in windows of win bytes. */
static void leaf_windows(const chunk *k, int64_t rows, uint64_t win, const pq_nest_leaf *ref)
{
    pq_col_reader r;
    pq_nest_stream s;
    int asks = 0;
    pq_colr_init(&r, k->c, k->codec, NULL);
    stream_init(&s, k->c);
    /* one call, then a restart from the chunk's start (the stream was reset at its end) */
    check_rows(&r, &s, k, win, 0, rows, rows, ref, &asks);
    check_rows(&r, &s, k, win, 0, rows, rows, ref, &asks);
    for (int64_t i = 0; i < rows; i++) check_rows(&r, &s, k, win, i, i + 1, rows, ref, &asks);
    if (rows >= 3) { /* 0, then 2.. (row 1 parked while the stream skips it), then 1 */
        check_rows(&r, &s, k, win, 0, 1, rows, ref, &asks);
        check_rows(&r, &s, k, win, 2, rows, rows, ref, &asks);
        check_rows(&r, &s, k, win, 1, 2, rows, ref, &asks);
    }
    CHECK(win >= k->len || asks > 0);
    pq_nest_stream_free(&s);
    pq_colr_free(&r);
}

/* Corpus file name's bytes (*n of them) with its footer in m; NULL when it cannot be read. */
static uint8_t *open_corpus(const char *name, size_t *n, pq_file_meta *m)
{
    uint8_t *f = slurp(name, n);
    CHECK(f != NULL);
    pq_err e = {0};
    uint64_t off;
    uint32_t mlen;
    bool in_tail;
    int rc = f ? pq_footer_locate(f, *n, *n, 0, &off, &mlen, &in_tail, &e) : -1;
    if (rc == 0) rc = pq_file_meta_parse(f + off, mlen, NULL, m, &e);
    CHECK_EQ_I64(rc, 0);
    if (rc == 0) return f;
    free(f);
    return NULL;
}

/* Row group 0's chunk of column col, and its whole decode into ref (made here). */
static chunk chunk_of(const uint8_t *f, size_t n, const pq_file_meta *m, int32_t col,
                      pq_nest_leaf *ref, pq_err *e)
{
    const pq_chunk_meta *cm = &m->row_groups[0].chunks[col];
    uint64_t co = 0, cl = 0;
    CHECK_EQ_I64(pq_chunk_range(cm, n, &co, &cl, e), 0);
    chunk k = {f + co, cl, (int64_t)co, &m->columns[col], cm->codec};
    pq_col_reader r;
    pq_colr_init(&r, k.c, k.codec, NULL);
    pq_nest_leaf_init(ref, k.c);
    CHECK_EQ_I64(pq_nest_leaf_chunk(&r, k.data, (size_t)k.len, k.file_off, ref, e), 0);
    pq_colr_free(&r);
    return k;
}

static void corpus(void)
{
    static const struct { const char *file, *path; } cases[] = {
        {"list_columns.parquet", "int64_list"},       {"list_columns.parquet", "utf8_list"},
        {"datapage_v2.snappy.parquet", "e"},          {"nullable.impala.parquet", "int_array"},
        {"nested_maps.snappy.parquet", "a"},          {"repeated_no_annotation.parquet", "phoneNumbers"},
    };
    static const uint64_t wins[] = {1, 2, 3, 7, 16, 40, 100, 1 << 20};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n;
        pq_file_meta m;
        uint8_t *f = open_corpus(cases[i].file, &n, &m);
        if (!f) continue;
        int32_t first, nl = pq_nest_leaves(&m, pq_file_meta_find_node(&m, cases[i].path), &first);
        for (int32_t j = 0; j < nl; j++) {
            pq_err e = {0};
            pq_nest_leaf ref;
            chunk k = chunk_of(f, n, &m, first + j, &ref, &e);
            for (size_t w = 0; w < sizeof wins / sizeof *wins; w++)
                leaf_windows(&k, m.row_groups[0].num_rows, wins[w], &ref);
            pq_nest_leaf_free(&ref);
        }
        pq_file_meta_free(&m);
        free(f);
    }
}

/* A chunk cut short (its last bytes missing): in windows, the whole decode's error. */
static void cut_chunk(void)
{
    size_t n;
    pq_file_meta m;
    uint8_t *f = open_corpus("list_columns.parquet", &n, &m);
    if (!f) return;
    int32_t first;
    pq_nest_leaves(&m, pq_file_meta_find_node(&m, "utf8_list"), &first);
    pq_err e0 = {0};
    pq_nest_leaf ref;
    chunk k = chunk_of(f, n, &m, first, &ref, &e0);
    pq_nest_leaf_free(&ref);
    k.len -= 5;
    pq_col_reader r;
    pq_colr_init(&r, k.c, k.codec, NULL);
    pq_nest_leaf_init(&ref, k.c);
    int rc0 = pq_nest_leaf_chunk(&r, k.data, (size_t)k.len, k.file_off, &ref, &e0);
    pq_colr_free(&r);
    pq_nest_leaf_free(&ref);
    CHECK_EQ_I64(rc0, RINGSCAN_EFORMAT);
    for (uint64_t win = 1; win < 64; win += 5) {
        pq_err e1 = {0};
        pq_nest_stream s;
        pq_nest_leaf got;
        int asks = 0;
        pq_colr_init(&r, k.c, k.codec, NULL);
        stream_init(&s, k.c);
        pq_nest_leaf_init(&got, k.c);
        CHECK_EQ_I64(rows_win(&r, &s, &k, win, 0, m.row_groups[0].num_rows, true, &got, &asks, &e1), rc0);
        CHECK(asks > 0);
        CHECK_STR(e1.msg, e0.msg);
        CHECK_EQ_I64(e1.offset, e0.offset);
        pq_nest_leaf_free(&got);
        pq_nest_stream_free(&s);
        pq_colr_free(&r);
    }
    pq_file_meta_free(&m);
    free(f);
}

int main(void)
{
    RUN(corpus);
    RUN(cut_chunk);
    return CHECK_DONE("test_nest_window");
}
