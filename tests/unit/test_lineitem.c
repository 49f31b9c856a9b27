/* tests for bench/lineitem.c and bench/shapes.c at sf=0.01 (15,000 orders, ~60,000 rows).
 * The reference checks here read the generated column vectors (pq_vec), not lineitem_row, and
 * evaluate the shapes' predicates on them with their own code, so shapes.c and this file
 * cross-check each other. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "bench/lineitem.h"
#include "bench/shapes.h"
#include "check.h"
#include "ringscan.h"

#define SF 0.01
#define SEED 42

typedef struct table {
    lineitem_gen g;
    pq_vec cols[LINEITEM_COLS_MAX];
    int64_t rows;
} table;

static int table_make(table *t, double sf, uint64_t seed, int64_t cancel_rg_rows)
{
    int rc = lineitem_gen_init(&t->g, sf, seed);
    if (rc) return rc;
    if (cancel_rg_rows > 0) rc = lineitem_gen_set_cancel_layout(&t->g, cancel_rg_rows);
    if (rc) return rc;
    lineitem_vecs_init(&t->g, t->cols);
    return lineitem_gen_batch(&t->g, 0, t->g.n_orders, t->cols, &t->rows);
}

static void table_free(table *t)
{
    lineitem_vecs_free(&t->g, t->cols);
    lineitem_gen_free(&t->g);
}

static int64_t i64_at(const pq_vec *v, int64_t i)
{
    int64_t x;
    memcpy(&x, v->values + i * 8, 8);
    return x;
}

static int32_t i32_at(const pq_vec *v, int64_t i)
{
    int32_t x;
    memcpy(&x, v->values + i * 4, 4);
    return x;
}

static bool str_eq(const pq_vec *v, int64_t i, const char *s)
{
    int64_t len = v->offsets[i + 1] - v->offsets[i];
    return len == (int64_t)strlen(s) && memcmp(v->data + v->offsets[i], s, (size_t)len) == 0;
}

static uint64_t table_checksum(const table *t)
{
    uint64_t sums[LINEITEM_COLS_MAX] = {0};
    for (int c = 0; c < t->g.ncols; c++) shape_vec_sum(&t->cols[c], &sums[c]);
    return shape_checksum(sums, t->g.ncols);
}

static void total_rows_exact(void)
{
    table t;
    CHECK(table_make(&t, SF, SEED, 0) == 0);
    CHECK_EQ_I64(t.g.n_orders, 15000);
    CHECK_EQ_I64(t.g.n_parts, 2000);
    CHECK_EQ_I64(t.g.n_supps, 100);
    int64_t sum = 0;
    int seen[LINEITEM_LINES_MAX + 1] = {0};
    for (int64_t i = 0; i < t.g.n_orders; i++) {
        CHECK(lineitem_order_first_row(&t.g, i) == sum);
        int n = lineitem_order_lines(&t.g, i);
        seen[n]++;
        sum += n;
    }
    CHECK_EQ_I64(lineitem_total_rows(&t.g), sum);
    CHECK_EQ_I64(t.rows, sum);
    CHECK_EQ_I64(lineitem_order_first_row(&t.g, t.g.n_orders), sum);
    for (int c = 0; c < t.g.ncols; c++) CHECK_EQ_I64(t.cols[c].length, sum);
    for (int n = 1; n <= LINEITEM_LINES_MAX; n++)
        CHECK(seen[n] > 15000 / 7 - 200 && seen[n] < 15000 / 7 + 200);
    table_free(&t);
}

static bool suppkey_ok(int64_t partkey, int64_t suppkey, int64_t S)
{
    for (int64_t j = 0; j < 4; j++)
        if ((partkey + j * (S / 4 + (partkey - 1) / S)) % S + 1 == suppkey) return true;
    return false;
}

static bool comment_ok(const pq_vec *v, int64_t i)
{
    int64_t len = v->offsets[i + 1] - v->offsets[i];
    if (len < 10 || len > 43) return false;
    for (int64_t k = 0; k < len; k++) {
        uint8_t ch = v->data[v->offsets[i] + k];
        if (ch < 0x20 || ch > 0x7e) return false;
    }
    return true;
}

static bool in_list(const pq_vec *v, int64_t i, const char *const *list, int n)
{
    for (int k = 0; k < n; k++)
        if (str_eq(v, i, list[k])) return true;
    return false;
}

static void domains(void)
{
    table t;
    CHECK(table_make(&t, SF, SEED, 0) == 0);
    const pq_vec *c = t.cols;
    int64_t bad[LINEITEM_COLS_MAX] = {0};
    int qty_seen[51] = {0}, disc_seen[11] = {0}, tax_seen[9] = {0};
    for (int64_t i = 0; i < t.rows; i++) {
        int64_t pk = i64_at(&c[LI_PARTKEY], i), q = i64_at(&c[LI_QUANTITY], i);
        bad[LI_PARTKEY] += pk < 1 || pk > t.g.n_parts;
        bad[LI_SUPPKEY] += !suppkey_ok(pk, i64_at(&c[LI_SUPPKEY], i), t.g.n_supps);
        bad[LI_QUANTITY] += q < 100 || q > 5000 || q % 100 != 0;
        if (q >= 100 && q <= 5000) qty_seen[q / 100]++;
        int64_t retail = 90000 + (pk / 10) % 20001 + 100 * (pk % 1000);
        bad[LI_EXTENDEDPRICE] += i64_at(&c[LI_EXTENDEDPRICE], i) != q / 100 * retail;
        int64_t d = i64_at(&c[LI_DISCOUNT], i), x = i64_at(&c[LI_TAX], i);
        bad[LI_DISCOUNT] += d < 0 || d > 10;
        bad[LI_TAX] += x < 0 || x > 8;
        if (d >= 0 && d <= 10) disc_seen[d]++;
        if (x >= 0 && x <= 8) tax_seen[x]++;
        bad[LI_SHIPINSTRUCT] += !in_list(&c[LI_SHIPINSTRUCT], i, lineitem_shipinstruct, 4);
        bad[LI_SHIPMODE] += !in_list(&c[LI_SHIPMODE], i, lineitem_shipmode, 7);
        bad[LI_COMMENT] += !comment_ok(&c[LI_COMMENT], i);
        int32_t ln = i32_at(&c[LI_LINENUMBER], i);
        bad[LI_LINENUMBER] += ln < 1 || ln > 7;
    }
    for (int k = 0; k < LINEITEM_COLS_MAX; k++) CHECK_EQ_I64(bad[k], 0);
    for (int q = 1; q <= 50; q++) CHECK(qty_seen[q] > 0);
    for (int k = 0; k <= 10; k++) CHECK(disc_seen[k] > 0);
    for (int k = 0; k <= 8; k++) CHECK(tax_seen[k] > 0);
    table_free(&t);
}

/* Dates and flags, order by order: all lines of an order share one order date d in
 * [8035, 10440] with ship - 121 <= d <= ship - 1 and commit - 90 <= d <= commit - 30. */
static void dates_and_flags(void)
{
    table t;
    CHECK(table_make(&t, SF, SEED, 0) == 0);
    const pq_vec *c = t.cols;
    int64_t bad_dates = 0, bad_flags = 0, n_r = 0, n_a = 0;
    int32_t lo = LINEITEM_DATE_START_DAYS, hi = LINEITEM_ORDERDATE_MAX_DAYS;
    for (int64_t i = 0; i < t.rows; i++) {
        if (i32_at(&c[LI_LINENUMBER], i) == 1) {
            lo = LINEITEM_DATE_START_DAYS;
            hi = LINEITEM_ORDERDATE_MAX_DAYS;
        }
        int32_t ship = i32_at(&c[LI_SHIPDATE], i), commit = i32_at(&c[LI_COMMITDATE], i);
        int32_t receipt = i32_at(&c[LI_RECEIPTDATE], i);
        if (ship - 121 > lo) lo = ship - 121;
        if (commit - 90 > lo) lo = commit - 90;
        if (ship - 1 < hi) hi = ship - 1;
        if (commit - 30 < hi) hi = commit - 30;
        bad_dates += lo > hi || receipt - ship < 1 || receipt - ship > 30;
        bad_dates += receipt > LINEITEM_DATE_END_DAYS;
        bool returned = receipt <= LINEITEM_DATE_CURRENT_DAYS;
        bool r = str_eq(&c[LI_RETURNFLAG], i, "R"), a = str_eq(&c[LI_RETURNFLAG], i, "A");
        n_r += r, n_a += a;
        bad_flags += returned ? !(r || a) : !str_eq(&c[LI_RETURNFLAG], i, "N");
        bad_flags += !str_eq(&c[LI_LINESTATUS], i, ship > LINEITEM_DATE_CURRENT_DAYS ? "O" : "F");
    }
    CHECK_EQ_I64(bad_dates, 0);
    CHECK_EQ_I64(bad_flags, 0);
    CHECK(n_r > 1000 && n_a > 1000 && n_r < 2 * n_a && n_a < 2 * n_r);
    table_free(&t);
}

static void orderkeys_sorted_sparse(void)
{
    table t;
    CHECK(table_make(&t, SF, SEED, 0) == 0);
    const pq_vec *ok = &t.cols[LI_ORDERKEY], *ln = &t.cols[LI_LINENUMBER];
    int64_t order = -1, prev = 0, bad = 0;
    for (int64_t i = 0; i < t.rows; i++) {
        int64_t k = i64_at(ok, i);
        if (k != prev) {
            order++;
            bad += k < prev || i32_at(ln, i) != 1 || (k - 1) % 32 >= 8;
            bad += k != (order / 8) * 32 + order % 8 + 1;
            bad += lineitem_order_first_row(&t.g, order) != i;
        } else {
            bad += i32_at(ln, i) != i32_at(ln, i - 1) + 1;
        }
        prev = k;
    }
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(order + 1, t.g.n_orders);
    CHECK_EQ_I64(prev, ((15000 - 1) / 8) * 32 + (15000 - 1) % 8 + 1);
    table_free(&t);
}

static bool vec_equal_range(const pq_vec *a, int64_t a0, const pq_vec *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (a->type == PQ_BYTE_ARRAY) {
            int64_t la = a->offsets[a0 + i + 1] - a->offsets[a0 + i];
            int64_t lb = b->offsets[i + 1] - b->offsets[i];
            if (la != lb) return false;
            const uint8_t *pa = a->data + a->offsets[a0 + i], *pb = b->data + b->offsets[i];
            if (memcmp(pa, pb, (size_t)la)) return false;
        } else {
            int w = pq_fixed_width(a->type, 0);
            if (memcmp(a->values + (a0 + i) * w, b->values + i * w, (size_t)w)) return false;
        }
    }
    return true;
}

static void determinism(void)
{
    table a, b, c;
    CHECK(table_make(&a, SF, SEED, 0) == 0);
    CHECK(table_make(&b, SF, SEED, 0) == 0);
    CHECK(table_make(&c, SF, SEED + 1, 0) == 0);
    CHECK(table_checksum(&a) == table_checksum(&b));
    CHECK(table_checksum(&a) != table_checksum(&c));
    /* two halves, generated second half first, equal the whole */
    pq_vec h[LINEITEM_COLS_MAX];
    int64_t mid = 7001, n2 = 0, n1 = 0;
    lineitem_vecs_init(&a.g, h);
    CHECK(lineitem_gen_batch(&a.g, mid, a.g.n_orders - mid, h, &n2) == 0);
    int64_t first2 = lineitem_order_first_row(&a.g, mid);
    for (int k = 0; k < a.g.ncols; k++) CHECK(vec_equal_range(&a.cols[k], first2, &h[k], n2));
    for (int k = 0; k < a.g.ncols; k++) pq_vec_clear(&h[k]);
    CHECK(lineitem_gen_batch(&a.g, 0, mid, h, &n1) == 0);
    CHECK_EQ_I64(n1 + n2, a.rows);
    CHECK_EQ_I64(n1, first2);
    for (int k = 0; k < a.g.ncols; k++) CHECK(vec_equal_range(&a.cols[k], 0, &h[k], n1));
    lineitem_vecs_free(&a.g, h);
    table_free(&a);
    table_free(&b);
    table_free(&c);
}

static void errors(void)
{
    lineitem_gen g;
    CHECK_EQ_I64(lineitem_gen_init(&g, 0, 1), -EINVAL);
    CHECK_EQ_I64(lineitem_gen_init(&g, 0.0001, 1), -EINVAL); /* 1 supplier: S/4 would be 0 */
    CHECK(lineitem_gen_init(&g, SF, 1) == 0);
    CHECK_EQ_I64(lineitem_gen_set_cancel_layout(&g, 100), -EINVAL);
    pq_vec v[LINEITEM_COLS_MAX];
    int64_t n = -1;
    lineitem_vecs_init(&g, v);
    CHECK_EQ_I64(lineitem_gen_batch(&g, g.n_orders - 1, 2, v, &n), -EINVAL);
    CHECK_EQ_I64(n, 0);
    CHECK(lineitem_gen_batch(&g, g.n_orders, 0, v, &n) == 0 && n == 0);
    lineitem_vecs_free(&g, v);
    lineitem_gen_free(&g);
}

/* Brute force over the column vectors: the shapes' predicates re-written on columns. */
static bool ref_match(const table *t, shape_id id, int64_t i)
{
    const pq_vec *c = t->cols;
    int32_t ln = i32_at(&c[LI_LINENUMBER], i);
    int64_t ok = i64_at(&c[LI_ORDERKEY], i);
    switch (id) {
    case SHAPE_FILTER_ONLY: case SHAPE_LINEITEM: case SHAPE_WIDE: return ln > 5;
    case SHAPE_AND: return ln > 5 && ok < 3000000;
    case SHAPE_PRUNE: return ok < 600000;
    case SHAPE_CANCEL:
        return i64_at(&c[LI_CANCELKEY], i) == 1000001 && i32_at(&c[LI_SHIPDATE], i) >= 8766;
    case SHAPE_ORDER: {
        const pq_vec *m = &c[LI_COMMENT]; /* >= 'c': every comment is >= 1 byte long */
        return m->data[m->offsets[i]] >= 'c' &&
               str_eq(&c[LI_SHIPMODE], i, "AIR") && i64_at(&c[LI_QUANTITY], i) < 200;
    }
    default: return false;
    }
}

/* Copies row i of src onto the end of dst (same type, room reserved by the caller's loop). */
static void copy_row(pq_vec *dst, const pq_vec *src, int64_t i)
{
    if (src->type == PQ_BYTE_ARRAY) {
        int64_t len = src->offsets[i + 1] - src->offsets[i];
        CHECK(pq_vec_reserve(dst, 1, len) == 0);
        memcpy(dst->data + dst->data_len, src->data + src->offsets[i], (size_t)len);
        dst->data_len += len;
        dst->offsets[++dst->length] = (int32_t)dst->data_len;
    } else {
        int w = pq_fixed_width(src->type, 0);
        CHECK(pq_vec_reserve(dst, 1, 0) == 0);
        memcpy(dst->values + dst->length * w, src->values + i * w, (size_t)w);
        dst->length++;
    }
}

/* Filters the table into projected vectors (as a scan would emit) and checksums them. */
static void brute_force(const table *t, const bench_shape *s, int64_t *rows, uint64_t *sum)
{
    pq_vec out[LINEITEM_COLS_MAX];
    for (int j = 0; j < s->nproj; j++)
        pq_vec_init(&out[j], lineitem_columns[s->proj[j]].physical, 0);
    for (int64_t i = 0; i < t->rows; i++)
        if (ref_match(t, s->id, i))
            for (int j = 0; j < s->nproj; j++) copy_row(&out[j], &t->cols[s->proj[j]], i);
    uint64_t col[LINEITEM_COLS_MAX] = {0};
    for (int j = 0; j < s->nproj; j++) shape_vec_sum(&out[j], &col[j]);
    *rows = out[0].length;
    *sum = shape_checksum(col, s->nproj);
    for (int j = 0; j < s->nproj; j++) pq_vec_free(&out[j]);
}

/* Expected answers at sf=0.01, seed 42 (cancel layout: 8,192-row groups), pinned so that any
 * change to the model shows up here; each is also re-derived by brute force below. */
static const struct { int64_t rows; uint64_t checksum; } pinned[SHAPE_COUNT] = {
    {6190, 22158696899ull},           /* lineitem_filter_only */
    {6190, 186974189960031ull},       /* lineitem */
    {6190, 186974189960031ull},       /* lineitem_and: every key < 3,000,000 at sf=0.01 */
    {59560, 1789144417791863ull},     /* lineitem_prune: every key < 600,000 at sf=0.01 */
    {6190, 5991160584799914304ull},   /* lineitem_wide */
    {98, 14172532790605586775ull},    /* lineitem_cancel */
    {135, 4347717233024ull},          /* lineitem_order */
};

static void shapes_expected(void)
{
    table t;
    CHECK(table_make(&t, SF, SEED, 8192) == 0);
    for (int k = 0; k < SHAPE_COUNT; k++) {
        const bench_shape *s = &bench_shapes[k];
        CHECK(shape_find(s->name) == s);
        shape_result r1, r2;
        CHECK(shape_expected(&t.g, s, 1, &r1) == 0);
        CHECK(shape_expected(&t.g, s, 2, &r2) == 0);
        int64_t rows = -1;
        uint64_t sum = 0;
        brute_force(&t, s, &rows, &sum);
        printf("  %-22s rows %8" PRId64 " checksum %20" PRIu64 "\n", s->name, r1.rows, r1.checksum);
        CHECK_EQ_I64(r1.rows, rows);
        CHECK(r1.checksum == sum);
        CHECK(r2.rows == r1.rows && r2.checksum == r1.checksum);
        CHECK(r1.rows > 0);
        CHECK_EQ_I64(r1.rows, pinned[k].rows);
        CHECK(r1.checksum == pinned[k].checksum);
    }
    CHECK(shape_find("nope") == NULL);
    table_free(&t);
    lineitem_gen g;
    CHECK(lineitem_gen_init(&g, SF, SEED) == 0);
    shape_result r;
    CHECK_EQ_I64(shape_expected(&g, &bench_shapes[SHAPE_CANCEL], 1, &r), -EINVAL);
    lineitem_gen_free(&g);
}

/* Windows of window rows (the last may be shorter) whose min/max of l_cancelkey does not
 * strictly span the literal although they hold >= 65 rows. */
static int64_t span_misses(const pq_vec *ck, int64_t rows, int64_t window)
{
    int64_t misses = 0;
    for (int64_t w0 = 0; w0 < rows; w0 += window) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int64_t i = w0; i < rows && i < w0 + window; i++) {
            int64_t v = i64_at(ck, i);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        bool spans = lo < LINEITEM_CANCEL_LITERAL && hi > LINEITEM_CANCEL_LITERAL;
        if (rows - w0 >= 65) misses += !spans;
    }
    return misses;
}

/* Every row group's, 1,000-row window's and 65-row window's min/max of l_cancelkey spans the
 * literal; matches only in groups 3, 11, ...; the 16 TPC-H columns equal the plain layout's. */
static void cancel_layout(void)
{
    enum { RG = 8192 };
    table t, plain;
    CHECK(table_make(&t, SF, SEED, RG) == 0);
    CHECK(table_make(&plain, SF, SEED, 0) == 0);
    CHECK_EQ_I64(t.g.ncols, 17);
    for (int k = 0; k < LINEITEM_TPCH_COLS; k++)
        CHECK(vec_equal_range(&t.cols[k], 0, &plain.cols[k], t.rows));
    const pq_vec *ck = &t.cols[LI_CANCELKEY];
    int64_t bad_value = 0, bad_match = 0, matches = 0;
    for (int64_t i = 0; i < t.rows; i++) {
        int64_t v = i64_at(ck, i);
        bad_value += v < 0 || v > LINEITEM_CANCEL_MAX;
        if (v == LINEITEM_CANCEL_LITERAL) {
            matches++;
            bad_match += (i / RG) % 8 != 3;
        } else {
            bad_value += v % 2 != 0;
        }
    }
    CHECK_EQ_I64(bad_value, 0);
    CHECK_EQ_I64(bad_match, 0);
    CHECK_EQ_I64(matches, RG / 64); /* sf=0.01 has ~60k rows: only group 3 (rows 24,576..32,767) */
    CHECK_EQ_I64(span_misses(ck, t.rows, RG), 0);
    CHECK_EQ_I64(span_misses(ck, t.rows, 1000), 0);
    CHECK_EQ_I64(span_misses(ck, t.rows, 65), 0);
    table_free(&t);
    table_free(&plain);
}

/* A batch of only empty strings may have no data buffer at all (data == NULL, as a vector
 * that was never appended to): its checksum equals that of the same empty strings over a
 * real buffer, 3 empty values each adding FNV-1a 64 of nothing (the offset basis), and the
 * hashing forms no NULL + 0 pointer (UBSan "applying zero offset to null pointer"). */
static void checksum_empty_strings(void)
{
    int32_t offsets[4] = {0, 0, 0, 0};
    uint8_t buf[1] = {'x'};
    pq_vec none = {.type = PQ_BYTE_ARRAY, .length = 3, .offsets = offsets, .data = NULL};
    pq_vec some = none;
    some.data = buf;
    uint64_t sum_none = 7, sum_some = 7;
    shape_vec_sum(&none, &sum_none);
    shape_vec_sum(&some, &sum_some);
    CHECK(sum_none == sum_some);
    CHECK(sum_none == 7 + 3 * 0xcbf29ce484222325ull);
    CHECK(shape_fnv1a64(NULL, 0) == 0xcbf29ce484222325ull);
    uint64_t c_none = shape_checksum(&sum_none, 1), c_some = shape_checksum(&sum_some, 1);
    CHECK(c_none == c_some);
}

/* shape_vec_sum of a BYTE_ARRAY column hashes 8 rows at once where it can (bench/shapes.c
 * ba_sum, with AVX-512): its sum equals the one-row-at-a-time sum of shape_fnv1a64 over the
 * valid rows, for 0..40 rows (fewer than 8, groups of 8 and a rest), lengths 0..70 (empty
 * values between long ones, words read past a value's end), without nulls, with some and with
 * all rows null, and data_cap from none (row by row) to the buffer's size (the last group's
 * words would pass it: row by row). */
static void checksum_strings_lanes(void)
{
    enum { MAXN = 40 };
    static uint8_t data[MAXN * 70];
    for (int i = 0; i < (int)sizeof data; i++) data[i] = (uint8_t)(i * 131 + (i >> 7));
    int bad = 0;
    for (int n = 0; n <= MAXN; n++) {
        for (int nulls = 0; nulls < 6; nulls++) {
            int32_t offsets[MAXN + 1] = {0};
            uint8_t validity[(MAXN + 7) / 8] = {0};
            uint64_t want = 5;
            int64_t null_count = 0;
            for (int i = 0; i < n; i++) {
                int len = (i * 37 + n * 11) % 71 * (i % 5 != 2); /* every fifth empty */
                offsets[i + 1] = offsets[i] + len;
                bool valid = nulls % 3 == 0 || (nulls % 3 == 1 && i % 3 != 1);
                if (valid) validity[i / 8] |= (uint8_t)(1u << (i % 8));
                else null_count++;
                if (valid) want += shape_fnv1a64(data + offsets[i], len);
            }
            pq_vec v = {.type = PQ_BYTE_ARRAY, .length = n, .offsets = offsets, .data = data,
                        .validity = validity, .null_count = null_count,
                        .data_cap = nulls < 3 ? (int64_t)sizeof data : 0};
            uint64_t got = 5;
            shape_vec_sum(&v, &got);
            bad += got != want;
        }
    }
    CHECK_EQ_I64(bad, 0);
}

int main(void)
{
    RUN(checksum_empty_strings);
    RUN(checksum_strings_lanes);
    RUN(total_rows_exact);
    RUN(domains);
    RUN(dates_and_flags);
    RUN(orderkeys_sorted_sparse);
    RUN(determinism);
    RUN(errors);
    RUN(shapes_expected);
    RUN(cancel_layout);
    return CHECK_DONE("test_lineitem");
}
