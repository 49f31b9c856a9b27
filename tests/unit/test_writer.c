/* tests for format/writer*.c: every type with nulls written and read back through scan/pqfile,
 * several row groups and pages, dictionary fallback inside a chunk, every codec, exact
 * statistics, page index consistency and bloom filters. Data is seeded (splitmix64). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "format/bloom.h"
#include "format/column.h"
#include "format/encoding.h"
#include "format/writer.h"
#include "scan/pqfile.h"

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- schema: every physical type and the main logical types ---------------------------- */

#define D(n, p, tl, rep, lg) {.name = n, .physical = p, .type_length = tl, .repetition = rep, .logical = lg, .field_id = -1}
static pq_column_desc schema[] = {
    D("b", PQ_BOOLEAN, 0, PQ_OPTIONAL, PQ_LOGICAL_NONE),
    D("i32", PQ_INT32, 0, PQ_OPTIONAL, PQ_LOGICAL_NONE),
    D("i64", PQ_INT64, 0, PQ_OPTIONAL, PQ_LOGICAL_NONE),
    D("i96", PQ_INT96, 0, PQ_OPTIONAL, PQ_LOGICAL_NONE),
    D("f", PQ_FLOAT, 0, PQ_OPTIONAL, PQ_LOGICAL_NONE),
    D("d", PQ_DOUBLE, 0, PQ_OPTIONAL, PQ_LOGICAL_NONE),
    D("s", PQ_BYTE_ARRAY, 0, PQ_OPTIONAL, PQ_LOGICAL_STRING),
    D("fl", PQ_FIXED_LEN_BYTE_ARRAY, 5, PQ_OPTIONAL, PQ_LOGICAL_NONE),
    D("dt", PQ_INT32, 0, PQ_REQUIRED, PQ_LOGICAL_DATE),
    D("dec32", PQ_INT32, 0, PQ_OPTIONAL, PQ_LOGICAL_DECIMAL),
    D("dec64", PQ_INT64, 0, PQ_OPTIONAL, PQ_LOGICAL_DECIMAL),
    D("decf", PQ_FIXED_LEN_BYTE_ARRAY, 16, PQ_OPTIONAL, PQ_LOGICAL_DECIMAL),
    D("decb", PQ_BYTE_ARRAY, 0, PQ_OPTIONAL, PQ_LOGICAL_DECIMAL),
    D("ts", PQ_INT64, 0, PQ_OPTIONAL, PQ_LOGICAL_TIMESTAMP_MICROS),
    D("u8", PQ_INT32, 0, PQ_OPTIONAL, PQ_LOGICAL_UINT8),
    D("u64", PQ_INT64, 0, PQ_OPTIONAL, PQ_LOGICAL_UINT64),
    D("bin", PQ_BYTE_ARRAY, 0, PQ_REQUIRED, PQ_LOGICAL_NONE),
    D("f16", PQ_FIXED_LEN_BYTE_ARRAY, 2, PQ_OPTIONAL, PQ_LOGICAL_FLOAT16),
};
enum { NCOLS = sizeof schema / sizeof schema[0] };

static void fix_schema(void)
{
    for (int i = 0; i < NCOLS; i++) {
        pq_column_desc *c = &schema[i];
        if (c->logical == PQ_LOGICAL_DECIMAL) {
            c->decimal_precision = c->physical == PQ_INT32 ? 9 : c->physical == PQ_INT64 ? 18 : 38;
            c->decimal_scale = 2;
        }
        if (c->logical == PQ_LOGICAL_TIMESTAMP_MICROS) c->is_adjusted_to_utc = true;
    }
}

/* Appends one random value (or null) of column c to v. card: distinct-ish values (0 = wide). */
static void put_value(pq_vec *v, const pq_column_desc *c, bool null, uint64_t card)
{
    int64_t i = v->length;
    uint64_t r = card ? rnd() % card : rnd();
    uint8_t tmp[32];
    size_t w = (size_t)pq_fixed_width(c->physical, c->type_length), blen = 0;
    memset(tmp, 0, sizeof tmp);
    if (!null) {
        if (c->physical == PQ_FLOAT) {
            float f = card ? (float)r - 5.0f : (float)((double)(int64_t)rnd() / 1e15);
            if (r % 97 == 3) f = NAN;
            if (r % 89 == 4) f = -0.0f;
            memcpy(tmp, &f, 4);
        } else if (c->physical == PQ_DOUBLE) {
            double d = card ? (double)r * 0.5 - 3 : (double)(int64_t)rnd() / 1e9;
            memcpy(tmp, &d, 8);
        } else if (c->logical == PQ_LOGICAL_UINT8) {
            uint32_t u = (uint32_t)(r & 0xff);
            memcpy(tmp, &u, 4);
        } else if (c->logical == PQ_LOGICAL_FLOAT16) {
            uint16_t h = (uint16_t)(0x3c00 + (r % 64) - 32 + ((r & 1) << 15)); /* +-~1.0 */
            memcpy(tmp, &h, 2);
        } else if (c->physical == PQ_INT32 && c->logical == PQ_LOGICAL_DECIMAL) {
            int32_t x = (int32_t)(r % 2000000) - 1000000;
            memcpy(tmp, &x, 4);
        } else if (c->physical == PQ_FIXED_LEN_BYTE_ARRAY && c->logical == PQ_LOGICAL_DECIMAL) {
            int64_t x = (int64_t)(r % 100000) - 50000; /* big-endian 16 bytes, sign-extended */
            for (int k = 0; k < 16; k++) tmp[15 - k] = (uint8_t)(k < 8 ? (uint64_t)x >> (8 * k) : (x < 0 ? 0xff : 0));
        } else if (c->physical == PQ_BYTE_ARRAY && c->logical == PQ_LOGICAL_DECIMAL) {
            int64_t x = (int64_t)(r % 1000000) - 500000;
            blen = 3 + (size_t)(rnd() % 4); /* 3..6 bytes, sign-extended */
            for (size_t k = 0; k < blen; k++) tmp[blen - 1 - k] = (uint8_t)((uint64_t)x >> (8 * (k < 8 ? k : 7)));
        } else if (c->physical == PQ_BYTE_ARRAY) {
            blen = (size_t)(r % 13);
            for (size_t k = 0; k < blen; k++) tmp[k] = (uint8_t)('a' + (r >> (k * 3)) % 26);
            if (c->logical == PQ_LOGICAL_NONE && blen) tmp[0] = (uint8_t)(r >> 40); /* any bytes */
        } else if (c->physical == PQ_BOOLEAN) {
            tmp[0] = r & 1;
        } else {
            uint64_t x = card ? r - card / 2 : r;
            memcpy(tmp, &x, w < 8 ? w : 8);
            if (w > 8) memcpy(tmp + 8, &r, w - 8);
        }
    }
    pq_vec_reserve(v, 1, (int64_t)blen);
    if (v->validity) pq_bit_set(v->validity, i, !null);
    v->null_count += null;
    if (c->physical == PQ_BYTE_ARRAY) {
        memcpy(v->data + v->data_len, tmp, blen);
        v->data_len += (int64_t)blen;
        v->offsets[i + 1] = (int32_t)v->data_len;
    } else if (c->physical == PQ_BOOLEAN) {
        pq_bit_set(v->values, i, tmp[0]);
    } else {
        memcpy(v->values + (size_t)i * w, tmp, w);
    }
    v->length++;
}

/* Random data for every column; nulls ~1/7 in OPTIONAL columns; card 0 = wide values. */
static void make_data(pq_vec *cols, int64_t rows, uint64_t seed, uint64_t card)
{
    rng_state = seed;
    for (int c = 0; c < NCOLS; c++) {
        pq_vec_init(&cols[c], schema[c].physical, schema[c].type_length);
        pq_vec_reserve(&cols[c], rows, rows * 16);
        if (cols[c].offsets) cols[c].offsets[0] = 0;
        for (int64_t i = 0; i < rows; i++)
            put_value(&cols[c], &schema[c], schema[c].repetition == PQ_OPTIONAL && rnd() % 7 == 0,
                      card);
    }
}

static void free_data(pq_vec *cols, int n)
{
    for (int c = 0; c < n; c++) pq_vec_free(&cols[c]);
}

/* Copies rows [a, b) of src into dst (fresh). */
static void copy_rows(pq_vec *dst, const pq_vec *src, int64_t a, int64_t b)
{
    pq_vec_init(dst, src->type, src->type_length);
    pq_vec_reserve(dst, b - a, src->type == PQ_BYTE_ARRAY ? src->offsets[b] - src->offsets[a] : 0);
    if (dst->offsets) dst->offsets[0] = 0;
    int32_t w = pq_fixed_width(src->type, src->type_length);
    for (int64_t i = a; i < b; i++) {
        int64_t j = i - a;
        bool ok = pq_vec_is_valid(src, i);
        if (dst->validity) pq_bit_set(dst->validity, j, ok);
        dst->null_count += !ok;
        if (src->type == PQ_BYTE_ARRAY) {
            int32_t n = src->offsets[i + 1] - src->offsets[i];
            memcpy(dst->data + dst->data_len, src->data + src->offsets[i], (size_t)n);
            dst->data_len += n;
            dst->offsets[j + 1] = (int32_t)dst->data_len;
        } else if (src->type == PQ_BOOLEAN) {
            pq_bit_set(dst->values, j, pq_bit_get(src->values, i));
        } else {
            memcpy(dst->values + j * w, src->values + i * w, (size_t)w);
        }
        dst->length++;
    }
}

/* ---- memory sink and file ------------------------------------------------------------- */

static int buf_sink(void *ctx, const void *p, size_t n)
{
    return pq_buf_append((pq_buf *)ctx, p, n);
}

static char tmp_path[64];

/* Writes cols (rows) in batches of `batch` rows; the file bytes are left in *out and in
 * tmp_path. Returns the writer status. */
static int write_file(const pq_writer_opts *o, pq_vec *cols, int ncols, const pq_column_desc *sch,
                      int64_t rows, int64_t batch, pq_buf *out, pq_writer_stats *st)
{
    pq_err e = {0};
    pq_writer *w = NULL;
    memset(out, 0, sizeof *out);
    int rc = pq_writer_open(&w, sch, ncols, o, buf_sink, out, &e);
    if (rc) {
        fprintf(stderr, "open: %s\n", e.msg);
        return rc;
    }
    for (int64_t a = 0; a < rows && !rc; a += batch) {
        int64_t b = a + batch < rows ? a + batch : rows;
        pq_vec part[32];
        for (int c = 0; c < ncols; c++) copy_rows(&part[c], &cols[c], a, b);
        rc = pq_writer_write(w, part, b - a, &e);
        free_data(part, ncols);
    }
    if (!rc) rc = pq_writer_close(w, &e);
    if (rc) fprintf(stderr, "writer: %s\n", e.msg);
    if (st) pq_writer_get_stats(w, st);
    pq_writer_free(w);
    snprintf(tmp_path, sizeof tmp_path, "/tmp/test_writer_%d.parquet", (int)getpid());
    FILE *f = fopen(tmp_path, "wb");
    if (!f || fwrite(out->data, 1, out->len, f) != out->len) rc = -EIO;
    if (f) fclose(f);
    return rc;
}

static bool same_value(const pq_vec *a, int64_t i, const pq_vec *b, int64_t j)
{
    if (pq_vec_is_valid(a, i) != pq_vec_is_valid(b, j)) return false;
    if (!pq_vec_is_valid(a, i)) return true;
    if (a->type == PQ_BOOLEAN) return pq_bit_get(a->values, i) == pq_bit_get(b->values, j);
    if (a->type == PQ_BYTE_ARRAY) {
        int32_t n = a->offsets[i + 1] - a->offsets[i];
        return n == b->offsets[j + 1] - b->offsets[j] &&
               memcmp(a->data + a->offsets[i], b->data + b->offsets[j], (size_t)n) == 0;
    }
    int32_t w = pq_fixed_width(a->type, a->type_length);
    return memcmp(a->values + i * w, b->values + j * w, (size_t)w) == 0;
}

/* Reads every column back through pqfile and compares all values; returns mismatches. */
static int64_t read_back(const pq_vec *cols, int ncols, int64_t rows, pqf_t **keep)
{
    pq_err e = {0};
    pqf_t *f = NULL;
    if (pqf_open(&f, tmp_path, NULL, &e)) {
        fprintf(stderr, "pqf_open: %s\n", e.msg);
        return -1;
    }
    int64_t bad = 0;
    CHECK_EQ_I64(f->meta.num_rows, rows);
    for (int c = 0; c < ncols; c++) {
        pq_vec out;
        pq_vec_init(&out, cols[c].type, cols[c].type_length);
        for (int g = 0; g < f->meta.nrow_groups; g++) {
            if (pqf_read_column(f, g, c, NULL, &out, &e)) {
                fprintf(stderr, "read rg %d col %d: %s\n", g, c, e.msg);
                bad++;
                break;
            }
        }
        CHECK_EQ_I64(out.length, rows);
        for (int64_t i = 0; i < rows && i < out.length; i++)
            if (!same_value(&cols[c], i, &out, i)) {
                if (bad < 5) fprintf(stderr, "  column %d row %lld differs\n", c, (long long)i);
                bad++;
            }
        pq_vec_free(&out);
    }
    if (keep) *keep = f;
    else pqf_close(f);
    return bad;
}

/* ---- independent statistics oracle ---------------------------------------------------- */

typedef enum { K_NONE, K_BOOL, K_S, K_U, K_F, K_BYTES, K_BE } okind;

static okind kind_of(const pq_column_desc *c)
{
    if (c->physical == PQ_INT96 || c->logical == PQ_LOGICAL_FLOAT16) return K_NONE; /* f16: skip */
    if (c->physical == PQ_BOOLEAN) return K_BOOL;
    if (c->logical == PQ_LOGICAL_UINT8 || c->logical == PQ_LOGICAL_UINT64) return K_U;
    if (c->physical == PQ_INT32 || c->physical == PQ_INT64) return K_S;
    if (c->physical == PQ_FLOAT || c->physical == PQ_DOUBLE) return K_F;
    if (c->logical == PQ_LOGICAL_DECIMAL) return K_BE;
    return K_BYTES;
}

/* Value i as a comparable key: integers and floats in *num / *u, big-endian ints as int128. */
typedef struct okey {
    __int128 s;
    uint64_t u;
    double f;
    const uint8_t *p;
    size_t n;
} okey;

static okey key_at(const pq_vec *v, const pq_column_desc *c, int64_t i)
{
    okey k;
    memset(&k, 0, sizeof k);
    int32_t w = pq_fixed_width(v->type, v->type_length);
    if (v->type == PQ_BYTE_ARRAY) {
        k.p = v->data + v->offsets[i];
        k.n = (size_t)(v->offsets[i + 1] - v->offsets[i]);
    } else if (v->type == PQ_BOOLEAN) {
        k.s = pq_bit_get(v->values, i);
    } else {
        k.p = v->values + i * w;
        k.n = (size_t)w;
    }
    if (v->type == PQ_INT32) { int32_t x; uint32_t u; memcpy(&x, k.p, 4); memcpy(&u, k.p, 4); k.s = x; k.u = u; }
    if (v->type == PQ_INT64) { int64_t x; uint64_t u; memcpy(&x, k.p, 8); memcpy(&u, k.p, 8); k.s = x; k.u = u; }
    if (v->type == PQ_FLOAT) { float x; memcpy(&x, k.p, 4); k.f = x; }
    if (v->type == PQ_DOUBLE) { double x; memcpy(&x, k.p, 8); k.f = x; }
    if (kind_of(c) == K_BE) {
        __int128 x = (k.n && (k.p[0] & 0x80)) ? -1 : 0;
        for (size_t j = 0; j < k.n; j++) x = (__int128)(((unsigned __int128)x << 8) | k.p[j]);
        k.s = x;
    }
    return k;
}

static int okey_cmp(okind kd, const okey *a, const okey *b)
{
    switch (kd) {
    case K_BOOL: case K_S: case K_BE: return (a->s > b->s) - (a->s < b->s);
    case K_U: return (a->u > b->u) - (a->u < b->u);
    case K_F: return (a->f > b->f) - (a->f < b->f);
    case K_BYTES: {
        size_t m = a->n < b->n ? a->n : b->n;
        int r = m ? memcmp(a->p, b->p, m) : 0;
        return r ? (r < 0 ? -1 : 1) : (a->n > b->n) - (a->n < b->n);
    }
    default: return 0;
    }
}

/* Stored PLAIN stats bytes as a key of the column's type. */
static okey key_of_bytes(const pq_column_desc *c, const uint8_t *p, uint32_t n)
{
    pq_vec v;
    pq_vec_init(&v, c->physical, c->type_length);
    pq_vec_reserve(&v, 1, (int64_t)n + 1);
    v.length = 1;
    if (c->physical == PQ_BYTE_ARRAY) {
        memcpy(v.data, p, n);
        v.offsets[0] = 0;
        v.offsets[1] = (int32_t)n;
    } else if (c->physical == PQ_BOOLEAN) {
        v.values[0] = p[0];
    } else {
        memcpy(v.values, p, n);
    }
    okey k = key_at(&v, c, 0);
    static uint8_t hold[64][64]; /* keep byte keys alive (test only) */
    static int slot;
    if (k.p) {
        memcpy(hold[slot], k.p, k.n < 64 ? k.n : 64);
        k.p = hold[slot];
        slot = (slot + 1) % 64;
    }
    pq_vec_free(&v);
    return k;
}

/* Checks stats s (min/max, null_count) against rows [a, b) of v. */
static void check_stats(const pq_stats *s, const pq_column_desc *c, const pq_vec *v, int64_t a,
                        int64_t b)
{
    okind kd = kind_of(c);
    int64_t nulls = 0, lo = -1, hi = -1;
    for (int64_t i = a; i < b; i++) {
        if (!pq_vec_is_valid(v, i)) { nulls++; continue; }
        okey k = key_at(v, c, i);
        if (kd == K_NONE || (kd == K_F && isnan(k.f))) continue;
        okey l = lo >= 0 ? key_at(v, c, lo) : k, h = hi >= 0 ? key_at(v, c, hi) : k;
        if (lo < 0 || okey_cmp(kd, &k, &l) < 0) lo = i;
        if (hi < 0 || okey_cmp(kd, &k, &h) > 0) hi = i;
    }
    CHECK(s->has_null_count);
    CHECK_EQ_I64(s->null_count, nulls);
    if (kd == K_NONE) return;
    CHECK(s->has_min_max == (lo >= 0));
    if (lo < 0 || !s->has_min_max) return;
    okey want_lo = key_at(v, c, lo), want_hi = key_at(v, c, hi);
    okey got_lo = key_of_bytes(c, s->min, s->min_len), got_hi = key_of_bytes(c, s->max, s->max_len);
    CHECK(okey_cmp(kd, &want_lo, &got_lo) == 0);
    CHECK(okey_cmp(kd, &want_hi, &got_hi) == 0);
    if (kd == K_BYTES) CHECK(s->min_len == want_lo.n && s->max_len == want_hi.n);
}

/* Whether a and b are the same statistics: flags, counts and min/max bytes. */
static bool same_stats(const pq_stats *a, const pq_stats *b)
{
    bool flags = a->has_min_max == b->has_min_max && a->min_exact == b->min_exact &&
                 a->max_exact == b->max_exact && a->usable == b->usable &&
                 a->has_null_count == b->has_null_count && a->has_distinct == b->has_distinct &&
                 a->has_nan_count == b->has_nan_count && a->null_count == b->null_count &&
                 a->distinct_count == b->distinct_count && a->nan_count == b->nan_count;
    return flags && a->min_len == b->min_len && a->max_len == b->max_len &&
           (!a->min_len || memcmp(a->min, b->min, a->min_len) == 0) &&
           (!a->max_len || memcmp(a->max, b->max, a->max_len) == 0);
}

/* f was just opened: every chunk's statistics pending (format/meta.h invariant 6) with only
 * their null count read; decoding column c, last to first, decodes column c alone, once (a
 * second call keeps the same bytes), to what decoding every column at once in a second open
 * of the file gives; INT96 is the one column whose min/max no rule lets prune. */
static void stats_on_demand(pqf_t *f)
{
    pq_err e = {.offset = -1};
    pqf_t *all = NULL;
    CHECK(pqf_open(&all, tmp_path, NULL, &e) == 0 && pqf_stats(all, -1, &e) == 0);
    if (!all) return;
    const pq_file_meta *m = &f->meta;
    for (int g = 0; g < m->nrow_groups; g++)
        for (int c = 0; c < NCOLS; c++) {
            const pq_chunk_meta *cm = &m->row_groups[g].chunks[c];
            CHECK(cm->stats_pending && !cm->stats.has_min_max && cm->stats.has_null_count);
            CHECK_EQ_I64(cm->stats.null_count, all->meta.row_groups[g].chunks[c].stats.null_count);
        }
    for (int c = NCOLS - 1; c >= 0; c--) {
        CHECK_EQ_I64(pqf_stats(f, c, &e), 0);
        const uint8_t *min0 = m->row_groups[0].chunks[c].stats.min;
        CHECK_EQ_I64(pqf_stats(f, c, &e), 0);
        CHECK(m->row_groups[0].chunks[c].stats.min == min0);
        for (int g = 0; g < m->nrow_groups; g++) {
            const pq_chunk_meta *cm = &m->row_groups[g].chunks[c];
            const pq_stats *want = pq_chunk_stats(&all->meta.row_groups[g].chunks[c]);
            CHECK(!cm->stats_pending && same_stats(pq_chunk_stats(cm), want));
            CHECK(want->has_min_max || schema[c].physical == PQ_INT96);
            CHECK(want->usable == (want->has_min_max && schema[c].physical != PQ_INT96));
            for (int k = 0; k < c; k++) CHECK(m->row_groups[g].chunks[k].stats_pending);
        }
    }
    pqf_close(all);
}

/* ---- cases ------------------------------------------------------------------------------ */

enum { ROWS = 5000 };

static void roundtrip_all_types(void)
{
    pq_vec cols[NCOLS];
    make_data(cols, ROWS, 42, 0);
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.row_group_rows = 1500;
    o.page_rows = 300;
    pq_buf file;
    pq_writer_stats st;
    CHECK(write_file(&o, cols, NCOLS, schema, ROWS, 777, &file, &st) == 0);
    CHECK(memcmp(file.data, "PAR1", 4) == 0 && memcmp(file.data + file.len - 4, "PAR1", 4) == 0);
    CHECK_EQ_I64(st.rows, ROWS);
    CHECK_EQ_I64(st.row_groups, 4);
    CHECK_EQ_I64(st.bytes, (int64_t)file.len);
    pqf_t *f = NULL;
    CHECK_EQ_I64(read_back(cols, NCOLS, ROWS, &f), 0);
    if (f) {
        stats_on_demand(f);
        CHECK_EQ_I64(f->meta.nrow_groups, 4);
        CHECK_STR(f->meta.created_by, "ringscan 0.1.0");
        CHECK(f->meta.column_orders_known);
        for (int g = 0; g < f->meta.nrow_groups; g++) {
            const pq_row_group *rg = &f->meta.row_groups[g];
            CHECK_EQ_I64(rg->num_rows, g < 3 ? 1500 : 500);
            CHECK_EQ_I64(rg->file_offset, rg->chunks[0].has_dictionary_page_offset
                                              ? rg->chunks[0].dictionary_page_offset
                                              : rg->chunks[0].data_page_offset);
            for (int c = 0; c < NCOLS; c++) {
                const pq_chunk_meta *cm = &rg->chunks[c];
                CHECK_EQ_I64(cm->num_values, rg->num_rows);
                CHECK(cm->codec == PQ_CODEC_SNAPPY);
                check_stats(pq_chunk_stats(cm), &schema[c], &cols[c], g * 1500, g * 1500 + rg->num_rows);
            }
        }
        for (int c = 0; c < NCOLS; c++) CHECK_STR(f->meta.columns[c].name, schema[c].name);
        CHECK(f->meta.columns[9].logical == PQ_LOGICAL_DECIMAL && f->meta.columns[9].decimal_scale == 2);
        CHECK(f->meta.columns[13].logical == PQ_LOGICAL_TIMESTAMP_MICROS && f->meta.columns[13].is_adjusted_to_utc);
        CHECK(f->meta.columns[14].logical == PQ_LOGICAL_UINT8);
        CHECK(f->meta.columns[17].logical == PQ_LOGICAL_FLOAT16);
        CHECK(f->meta.columns[8].repetition == PQ_REQUIRED);
        pqf_close(f);
    }
    pq_buf_free(&file);
    free_data(cols, NCOLS);
}

/* Low-cardinality data (dictionary everywhere) in one go, no statistics. */
static void roundtrip_dictionary(void)
{
    pq_vec cols[NCOLS];
    make_data(cols, ROWS, 7, 10);
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.statistics = false;
    pq_buf file;
    CHECK(write_file(&o, cols, NCOLS, schema, ROWS, ROWS, &file, NULL) == 0);
    pqf_t *f = NULL;
    CHECK_EQ_I64(read_back(cols, NCOLS, ROWS, &f), 0);
    if (f) {
        CHECK_EQ_I64(f->meta.nrow_groups, 1);
        for (int c = 1; c < NCOLS; c++) {
            const pq_chunk_meta *cm = &f->meta.row_groups[0].chunks[c];
            CHECK(cm->has_dictionary_page_offset);
            CHECK(cm->encodings_mask & (1u << PQ_ENC_RLE_DICTIONARY));
            CHECK(!cm->stats_pending && !cm->stats.has_min_max && !cm->stats.has_null_count);
        }
        CHECK(!f->meta.row_groups[0].chunks[0].has_dictionary_page_offset); /* BOOLEAN */
        pqf_close(f);
    }
    pq_buf_free(&file);
    free_data(cols, NCOLS);
}

/* The i64 chunk through pq_colr_page_idx: RLE_DICTIONARY pages give indices whose dictionary
 * values (and nulls) are the written rows, PLAIN pages give the values themselves. */
static void check_page_idx(const pq_buf *file, const pq_chunk_meta *cm, const pq_column_desc *col,
                           const pq_vec *want, int ndict, int nplain)
{
    pq_col_reader r;
    pq_colr_init(&r, col, cm->codec, NULL);
    pq_vec idx, vals;
    pq_vec_init(&idx, PQ_INT32, 0);
    pq_vec_init(&vals, PQ_INT64, 0);
    int64_t pos = cm->dictionary_page_offset, end = pos + cm->total_compressed_size, row = 0;
    int idx_pages = 0, val_pages = 0;
    while (pos < end) {
        size_t used = 0;
        int64_t rows = 0;
        bool as_idx = false;
        pq_err e = {.offset = -1};
        pq_vec_clear(&idx);
        pq_vec_clear(&vals);
        int rc = pq_colr_page_idx(&r, file->data + pos, (size_t)(end - pos), pos, &idx, &vals,
                                  &as_idx, &used, &rows, &e);
        CHECK_EQ_I64(rc, 0);
        if (rc) break;
        const pq_vec *got = as_idx ? &idx : &vals;
        CHECK_EQ_I64(got->length, rows);
        CHECK_EQ_I64((as_idx ? &vals : &idx)->length, 0);
        for (int64_t i = 0; i < rows && row + i < want->length; i++) {
            bool valid = pq_vec_is_valid(want, row + i);
            CHECK(pq_vec_is_valid(got, i) == valid);
            if (!valid) continue;
            int64_t w = ((const int64_t *)(const void *)want->values)[row + i];
            uint32_t k = as_idx ? ((const uint32_t *)(const void *)idx.values)[i] : 0;
            CHECK(!as_idx || k < (uint32_t)r.dict.length);
            int64_t v = as_idx ? (k < (uint32_t)r.dict.length ? ((const int64_t *)(const void *)r.dict.values)[k] : -1)
                               : ((const int64_t *)(const void *)vals.values)[i];
            CHECK_EQ_I64(v, w);
        }
        idx_pages += as_idx;
        val_pages += !as_idx && rows > 0;
        row += rows;
        pos += (int64_t)used;
    }
    CHECK_EQ_I64(row, want->length);
    CHECK_EQ_I64(idx_pages, ndict);
    CHECK_EQ_I64(val_pages, nplain);
    pq_vec_free(&idx);
    pq_vec_free(&vals);
    pq_colr_free(&r);
}

/* Tiny dictionary cap: dictionary page, RLE_DICTIONARY pages, then PLAIN pages in one chunk. */
static void dictionary_fallback(void)
{
    pq_vec cols[NCOLS];
    make_data(cols, ROWS, 99, 0);
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.dict_page_bytes = 600; /* ~75 INT64 values */
    o.page_rows = 50;
    o.codec = PQ_CODEC_ZSTD;
    pq_buf file;
    pq_writer_stats st;
    CHECK(write_file(&o, cols, NCOLS, schema, ROWS, 1000, &file, &st) == 0);
    CHECK(st.dict_fallbacks >= 10);
    pqf_t *f = NULL;
    CHECK_EQ_I64(read_back(cols, NCOLS, ROWS, &f), 0);
    if (f) {
        const pq_chunk_meta *cm = &f->meta.row_groups[0].chunks[2]; /* i64 */
        CHECK(cm->has_dictionary_page_offset);
        uint32_t want = (1u << PQ_ENC_RLE_DICTIONARY) | (1u << PQ_ENC_PLAIN);
        CHECK((cm->encodings_mask & want) == want);
        /* Walk the pages: DICTIONARY, then RLE_DICTIONARY data pages, then PLAIN ones. */
        int64_t off = cm->dictionary_page_offset, end = off + cm->total_compressed_size;
        int phase = 0, ndict = 0, nplain = 0;
        int64_t values = 0;
        for (int guard = 0; off < end && guard < 1000; guard++) {
            pq_page_header h;
            pq_err e;
            int hl = pq_page_header_parse(file.data + off, (size_t)(end - off), &h, &e);
            CHECK(hl > 0);
            if (hl <= 0) break;
            if (phase == 0) {
                CHECK(h.type == PQ_PAGE_DICTIONARY);
                phase = 1;
            } else {
                CHECK(h.type == PQ_PAGE_DATA);
                values += h.num_values;
                if (h.encoding == PQ_ENC_RLE_DICTIONARY) {
                    CHECK(phase == 1);
                    ndict++;
                } else {
                    CHECK(h.encoding == PQ_ENC_PLAIN);
                    phase = 2;
                    nplain++;
                }
            }
            off += hl + h.compressed_size;
        }
        CHECK_EQ_I64(off, end);
        CHECK(ndict >= 1 && nplain >= 1);
        CHECK_EQ_I64(values, cm->num_values);
        check_page_idx(&file, cm, &f->meta.columns[2], &cols[2], ndict, nplain);
        pqf_close(f);
    }
    pq_buf_free(&file);
    free_data(cols, NCOLS);
}

static void every_codec(void)
{
    static const pq_codec codecs[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP,
                                      PQ_CODEC_ZSTD, PQ_CODEC_LZ4_RAW};
    pq_vec cols[NCOLS];
    make_data(cols, 2000, 5, 50);
    for (size_t k = 0; k < sizeof codecs / sizeof codecs[0]; k++) {
        pq_writer_opts o;
        pq_writer_opts_default(&o);
        o.codec = codecs[k];
        o.page_rows = 400;
        o.page_crc = true;
        o.dictionary = k % 2 == 0;
        pq_buf file;
        CHECK(write_file(&o, cols, NCOLS, schema, 2000, 2000, &file, NULL) == 0);
        pqf_t *f = NULL;
        CHECK_EQ_I64(read_back(cols, NCOLS, 2000, &f), 0);
        if (f) {
            CHECK(f->meta.row_groups[0].chunks[5].codec == codecs[k]);
            pqf_close(f);
        }
        pq_buf_free(&file);
    }
    free_data(cols, NCOLS);
}

/* OffsetIndex: one entry per data page, first rows k * page_rows, offsets at page headers;
 * ColumnIndex: per-page null counts and exact min/max. */
static void page_index(void)
{
    pq_vec cols[NCOLS];
    make_data(cols, ROWS, 11, 0);
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.page_index = true;
    o.row_group_rows = 2000;
    o.page_rows = 256;
    pq_buf file;
    CHECK(write_file(&o, cols, NCOLS, schema, ROWS, 999, &file, NULL) == 0);
    pqf_t *f = NULL;
    CHECK_EQ_I64(read_back(cols, NCOLS, ROWS, &f), 0);
    for (int g = 0; f && g < f->meta.nrow_groups; g++) {
        const pq_row_group *rg = &f->meta.row_groups[g];
        for (int c = 0; c < NCOLS; c++) {
            const pq_chunk_meta *cm = &rg->chunks[c];
            CHECK(cm->has_offset_index);
            CHECK(cm->has_column_index == (kind_of(&schema[c]) != K_NONE || c == 17));
            pq_offset_index oi = {0};
            pq_err e;
            CHECK(pq_offset_index_parse(file.data + cm->offset_index_offset,
                                        (size_t)cm->offset_index_length, &oi, &e) == 0);
            int64_t want = (rg->num_rows + 255) / 256;
            CHECK_EQ_I64(oi.npages, want);
            for (int32_t p = 0; p < oi.npages; p++) {
                CHECK_EQ_I64(oi.pages[p].first_row_index, (int64_t)p * 256);
                int64_t next = p + 1 < oi.npages ? oi.pages[p + 1].offset
                                                 : cm->data_page_offset + cm->total_compressed_size -
                                                       (cm->has_dictionary_page_offset ? cm->data_page_offset - cm->dictionary_page_offset : 0);
                CHECK_EQ_I64(oi.pages[p].offset + oi.pages[p].compressed_page_size, next);
                pq_page_header h;
                int hl = pq_page_header_parse(file.data + oi.pages[p].offset, 4096, &h, &e);
                CHECK(hl > 0 && h.type == PQ_PAGE_DATA);
                CHECK_EQ_I64(hl + h.compressed_size, oi.pages[p].compressed_page_size);
                int64_t prow = p + 1 < oi.npages ? 256 : rg->num_rows - p * 256;
                CHECK_EQ_I64(h.num_values, prow);
            }
            CHECK_EQ_I64(oi.pages[0].offset, cm->data_page_offset);
            if (cm->has_column_index) {
                pq_column_index ci = {0};
                CHECK(pq_column_index_parse(file.data + cm->column_index_offset,
                                            (size_t)cm->column_index_length, &ci, &e) == 0);
                CHECK_EQ_I64(ci.npages, oi.npages);
                for (int32_t p = 0; p < ci.npages && ci.npages == oi.npages; p++) {
                    int64_t a = g * 2000 + p * 256, b = a + (p + 1 < oi.npages ? 256 : rg->num_rows - p * 256);
                    pq_stats s = {.has_null_count = true, .null_count = ci.null_counts[p],
                                  .has_min_max = !ci.null_pages[p], .min = ci.min[p], .max = ci.max[p],
                                  .min_len = ci.min_len[p], .max_len = ci.max_len[p]};
                    if (kind_of(&schema[c]) != K_NONE) check_stats(&s, &schema[c], &cols[c], a, b);
                }
                pq_column_index_free(&ci);
            }
            pq_offset_index_free(&oi);
        }
    }
    if (f) pqf_close(f);
    pq_buf_free(&file);
    free_data(cols, NCOLS);
}

static void bloom_filters(void)
{
    pq_vec cols[NCOLS];
    make_data(cols, ROWS, 13, 0);
    uint8_t flags[NCOLS] = {0};
    flags[2] = flags[6] = flags[11] = PQ_WCOL_BLOOM;
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.col_flags = flags;
    o.row_group_rows = 3000;
    pq_buf file;
    CHECK(write_file(&o, cols, NCOLS, schema, ROWS, ROWS, &file, NULL) == 0);
    pqf_t *f = NULL;
    CHECK_EQ_I64(read_back(cols, NCOLS, ROWS, &f), 0);
    for (int g = 0; f && g < f->meta.nrow_groups; g++) {
        for (int c = 0; c < NCOLS; c++) {
            const pq_chunk_meta *cm = &f->meta.row_groups[g].chunks[c];
            CHECK(cm->has_bloom_filter == (flags[c] != 0));
            if (!cm->has_bloom_filter) continue;
            CHECK(cm->has_bloom_filter_length);
            pq_bloom_header bh;
            pq_err e;
            CHECK(pq_bloom_header_parse(file.data + cm->bloom_filter_offset, (size_t)cm->bloom_filter_length, &bh, &e) == 0);
            CHECK_EQ_I64((int64_t)bh.header_len + bh.num_bytes, cm->bloom_filter_length);
            const uint8_t *bits = file.data + cm->bloom_filter_offset + bh.header_len;
            int64_t a = g * 3000, b = g == 0 ? 3000 : ROWS, missing = 0, fp = 0;
            int32_t w = pq_fixed_width(cols[c].type, cols[c].type_length);
            for (int64_t i = a; i < b; i++) {
                if (!pq_vec_is_valid(&cols[c], i)) continue;
                uint64_t h = cols[c].type == PQ_BYTE_ARRAY
                                 ? pq_bloom_hash(cols[c].data + cols[c].offsets[i], (size_t)(cols[c].offsets[i + 1] - cols[c].offsets[i]))
                                 : pq_bloom_hash(cols[c].values + i * w, (size_t)w);
                missing += !pq_bloom_check(bits, (size_t)bh.num_bytes, h);
            }
            CHECK_EQ_I64(missing, 0);
            for (int k = 0; k < 2000; k++) { /* absent values: 8-byte randoms, 40-byte strings */
                uint8_t junk[40];
                for (int j = 0; j < 40; j++) junk[j] = (uint8_t)rnd();
                size_t n = cols[c].type == PQ_BYTE_ARRAY ? 40 : (size_t)w;
                fp += pq_bloom_check(bits, (size_t)bh.num_bytes, pq_bloom_hash(junk, n));
            }
            CHECK(fp < 100); /* fpp 0.01 -> ~20 expected; string column has ~few distinct */
        }
    }
    if (f) pqf_close(f);
    pq_buf_free(&file);
    free_data(cols, NCOLS);
}

static void errors(void)
{
    pq_buf out = {0};
    pq_writer *w = NULL;
    pq_err e = {0};
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    o.page_rows = 0;
    CHECK(pq_writer_open(&w, schema, NCOLS, &o, buf_sink, &out, &e) == -EINVAL && !w);
    pq_writer_opts_default(&o);
    o.codec = PQ_CODEC_LZO;
    CHECK(pq_writer_open(&w, schema, NCOLS, &o, buf_sink, &out, &e) == RINGSCAN_EUNSUPPORTED);
    pq_column_desc bad = schema[6];
    bad.physical = PQ_INT32; /* STRING on INT32 */
    CHECK(pq_writer_open(&w, &bad, 1, NULL, buf_sink, &out, &e) == -EINVAL);
    /* null in a REQUIRED column */
    pq_column_desc req = schema[8];
    CHECK(pq_writer_open(&w, &req, 1, NULL, buf_sink, &out, &e) == 0);
    pq_vec v;
    pq_vec_init(&v, PQ_INT32, 0);
    pq_vec_reserve(&v, 10, 0);
    v.length = 10;
    v.null_count = 1;
    memset(v.validity, 0xff, 2);
    pq_bit_set(v.validity, 4, false);
    CHECK(pq_writer_write(w, &v, 10, &e) == -EINVAL);
    CHECK(strstr(e.msg, "row 4") != NULL);
    v.null_count = 0;
    CHECK(pq_writer_write(w, &v, 10, &e) == 0);
    CHECK(pq_writer_close(w, &e) == 0);
    CHECK(pq_writer_close(w, &e) == -EINVAL);
    pq_writer_free(w);
    pq_vec_free(&v);
    pq_buf_free(&out);
}

/* Zero rows: a valid file with no row groups. */
static void empty_file(void)
{
    pq_writer_opts o;
    pq_writer_opts_default(&o);
    pq_buf file;
    CHECK(write_file(&o, NULL, NCOLS, schema, 0, 1, &file, NULL) == 0);
    pqf_t *f = NULL;
    pq_err e;
    CHECK(pqf_open(&f, tmp_path, NULL, &e) == 0);
    if (f) {
        CHECK_EQ_I64(f->meta.nrow_groups, 0);
        CHECK_EQ_I64(f->meta.ncolumns, NCOLS);
        pqf_close(f);
    }
    pq_buf_free(&file);
}

int main(void)
{
    fix_schema();
    RUN(roundtrip_all_types);
    RUN(roundtrip_dictionary);
    RUN(dictionary_fallback);
    RUN(every_codec);
    RUN(page_index);
    RUN(bloom_filters);
    RUN(errors);
    RUN(empty_file);
    unlink(tmp_path);
    return CHECK_DONE("test_writer");
}
