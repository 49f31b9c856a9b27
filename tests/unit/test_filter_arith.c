/* tests for filter/vexpr.c and filter/vexpr_eval.c: arithmetic and CAST in filters: the types
 * DuckDB gives, constant folding onto the literal path, the normal form printed back, exact
 * rows on vectors with nulls, NaN and infinities (128-bit exact arithmetic past int64, DuckDB's
 * rounding in CAST, IEEE division), overflow reported only for rows evaluated, pruning by
 * interval arithmetic, and every error message. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "filter/kernel.h"
#include "filter/prune.h"
#include "filter/vexpr.h"

static const pq_column_desc schema[] = {
    {.name = "q", .physical = PQ_INT32},
    {.name = "k", .physical = PQ_INT64},
    {.name = "dec", .physical = PQ_INT64, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 2, .decimal_precision = 15},
    {.name = "dfl", .physical = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 6, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 3, .decimal_precision = 12},
    {.name = "f", .physical = PQ_FLOAT},
    {.name = "d", .physical = PQ_DOUBLE},
    {.name = "dt", .physical = PQ_INT32, .logical = PQ_LOGICAL_DATE},
    {.name = "ts", .physical = PQ_INT64, .logical = PQ_LOGICAL_TIMESTAMP_MICROS, .is_adjusted_to_utc = true},
    {.name = "s", .physical = PQ_BYTE_ARRAY, .logical = PQ_LOGICAL_STRING},
    {.name = "flag", .physical = PQ_BOOLEAN},
};
enum { NCOLS = sizeof schema / sizeof *schema, ROWS = 6 };

#include "filter_check.h"

/* The value comparison of a one-predicate expression (NULL when it is not one). */
static const flt_cmp *vcmp(const flt_expr *ex)
{
    if (!ex || ex->npreds != 1 || !ex->preds[0].multi || ex->preds[0].multi->nitems != 1)
        return NULL;
    const flt_cmp *c = &ex->preds[0].multi->items[0].cmp;
    return c->vl ? c : NULL;
}

static void types(void)
{
    static const struct { const char *text; flt_vtype t; } cases[] = {
        {"dec * dec > 0", {FLT_VK_DEC, 18, 4, false}},     /* 15 + 15 digits capped at 18 */
        {"dec + q > 0", {FLT_VK_DEC, 16, 2, false}},       /* max(13, 10) + 2 + 1 */
        {"dec - 1 > 0", {FLT_VK_DEC, 16, 2, false}},       /* a literal's own digits */
        {"dec * dfl > 0", {FLT_VK_DEC, 18, 5, false}},
        {"q + 1 > 0", {FLT_VK_INT, 32, 0, false}},         /* the literal takes q's type */
        {"q + 3000000000 > 0", {FLT_VK_INT, 64, 0, false}}, /* a BIGINT literal */
        {"q * k > 0", {FLT_VK_INT, 64, 0, false}},
        {"q + 1.5 > 0", {FLT_VK_DEC, 12, 1, false}},       /* DuckDB: DECIMAL(12,1) */
        {"f * 2 > 0", {FLT_VK_FLOAT, 0, 0, false}},
        {"f * dec > 0", {FLT_VK_FLOAT, 0, 0, false}},
        {"f * d > 0", {FLT_VK_DOUBLE, 0, 0, false}},
        {"q / 2 > 0", {FLT_VK_DOUBLE, 0, 0, false}},
        {"f / q > 0", {FLT_VK_FLOAT, 0, 0, false}},
        {"dt - dt > 0", {FLT_VK_INT, 64, 0, false}},
        {"dt + 1 > DATE '2000-01-01'", {FLT_VK_DATE, 0, 0, false}},
        {"CAST(q AS DECIMAL(9,2)) > 0", {FLT_VK_DEC, 9, 2, false}},
        {"CAST(q AS DECIMAL) > 0", {FLT_VK_DEC, 18, 3, false}},
        {"CAST(ts AS DATE) > DATE '2000-01-01'", {FLT_VK_DATE, 0, 0, false}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        flt_expr *ex = parse_ok(cases[i].text);
        const flt_cmp *c = vcmp(ex);
        const flt_vtype *t = c ? &c->vl->t : NULL;
        bool ok = t && t->kind == cases[i].t.kind && t->width == cases[i].t.width &&
                  t->scale == cases[i].t.scale;
        char name[32] = "none";
        if (t) flt_vtype_name(t, name, sizeof name);
        if (!ok) fprintf(stderr, "  %s: type %s\n", cases[i].text, name);
        CHECK(ok);
        flt_expr_free(ex);
    }
}

/* Constants fold, and a column compared with a constant takes the literal path. */
static void folding(void)
{
    static const struct { const char *text; flt_op op; int64_t v; } cases[] = {
        {"q > 10 * 4 + 9", FLT_OP_GT, 49},
        {"q < -(2 - 7)", FLT_OP_LT, 5},
        {"q >= 7 / 2", FLT_OP_GE, 4},          /* 3.5 (DOUBLE): q >= 4, exact rounding */
        {"dec > 0.1 * 0.5", FLT_OP_GT, 5},     /* 0.05 at scale 2 */
        {"q * 1 + 0 = 3", FLT_OP_EQ, 3},       /* not folded: q * 1 is an expression */
        {"CAST(7.5 AS INTEGER) = q", FLT_OP_EQ, 8},
        {"dt = DATE '2000-01-01' + 1", FLT_OP_EQ, 10958},
        {"q = NULL + 1", FLT_OP_FALSE, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        flt_expr *ex = parse_ok(cases[i].text);
        if (!ex) continue;
        bool lit = ex->npreds == 1 && !ex->preds[0].multi && ex->preds[0].nterms == 1;
        if (i == 4) { /* an expression stays one */
            CHECK(vcmp(ex) != NULL);
        } else {
            const flt_term *t = lit ? &ex->preds[0].terms[0] : NULL;
            bool ok = t && t->op == cases[i].op && (t->nlits == 0 || t->lits[0].i == cases[i].v);
            if (!ok) fprintf(stderr, "  %s: not folded to op %d %lld\n", cases[i].text,
                             cases[i].op, (long long)cases[i].v);
            CHECK(ok);
        }
        flt_expr_free(ex);
    }
}

/* Comparisons of constants are decided when parsed: an always-true atom drops its clause,
 * a never-true one leaves it, and a filter that can hold for no row is one FALSE. */
static void constants(void)
{
    flt_expr *ex = parse_ok("1 + 1 = 2");
    CHECK(ex && ex->npreds == 0);
    flt_expr_free(ex);
    ex = parse_ok("(1 = 2 OR q = 3) AND (2 > 1 OR k = 1) AND 7 / 2 = 3.5");
    CHECK(ex && ex->npreds == 1 && ex->preds[0].column == 0 && ex->preds[0].nterms == 1 &&
          ex->preds[0].terms[0].op == FLT_OP_EQ);
    flt_expr_free(ex);
    ex = parse_ok("k > 5 AND (1 = NULL OR 2 < 1)");
    CHECK(ex && ex->npreds == 1 && ex->preds[0].column == 0 && ex->preds[0].terms[0].op == FLT_OP_FALSE);
    flt_expr_free(ex);
    ex = parse_ok("NOT (DATE '2000-01-02' > TIMESTAMP '2000-01-01 23:00') OR q = 1");
    CHECK(ex && ex->npreds == 1 && ex->preds[0].column == 0 && ex->preds[0].terms[0].op == FLT_OP_EQ);
    flt_expr_free(ex);
}

static void printing(void)
{
    static const struct { const char *text, *want; } cases[] = {
        {"k * (1 - dec) > 2", "k * (1 - dec) > 2"},
        {"k - (q - 1) < 0", "k - (q - 1) < 0"},
        {"(k - q) - 1 < 0", "k - q - 1 < 0"},
        {"-(k + 1) < 0", "-(k + 1) < 0"},
        {"k / (q * 2) >= 1.5", "k / (q * 2) >= 1.5"},
        {"CAST(dec*2 AS decimal(10, 1)) = q", "CAST(dec * 2 AS DECIMAL(10,1)) = q"},
        {"NOT (q + 1 > 2)", "q + 1 <= 2"},
        {"q * 2 BETWEEN 1 AND 5", "q * 2 >= 1"},    /* the first of its two conjuncts */
        {"CAST(ts AS DATE) = '2000-01-02'", "CAST(ts AS DATE) = '2000-01-02'"},
        {"CAST(ts AS DATE) < '2000-01-02 10:00'",
         "CAST(CAST(ts AS DATE) AS TIMESTAMP_NS) < '2000-01-02 10:00'"},
        {"q > dec", "q > dec"},
        /* a minus before a minus: "--" is a comment (it printed "--k + q > 0") */
        {"- -k + q > 0", "-(-k) + q > 0"},
        {"-(-(k * 2)) + q > 0", "-(-(k * 2)) + q > 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        flt_expr *ex = parse_ok(cases[i].text);
        char buf[256] = "";
        if (ex) flt_pred_print(&ex->preds[0], buf, sizeof buf);
        CHECK_STR(buf, cases[i].want);
        flt_expr_free(ex);
    }
}

/* ---- evaluation ---------------------------------------------------------------------------- */

static pq_vec vecs[NCOLS];

static void put_fixed(int c, const void *src, size_t width)
{
    pq_vec_init(&vecs[c], schema[c].physical, schema[c].type_length);
    CHECK(pq_vec_reserve(&vecs[c], ROWS, 0) == 0);
    memcpy(vecs[c].values, src, ROWS * width);
    vecs[c].length = ROWS;
    for (int i = 0; i < ROWS; i++) pq_bit_set(vecs[c].validity, i, true);
}

static void make_vectors(void)
{
    int32_t q[ROWS] = {1, 2, 3, 4, 5, 0};
    int64_t k[ROWS] = {10, -20, 30, 2147483647, INT64_MAX, 0};
    int64_t dec[ROWS] = {125, 250, -375, 5, 10000, 0}; /* 1.25 2.50 -3.75 0.05 100.00 null */
    uint8_t dfl[ROWS][6] = {{0, 0, 0, 0, 0x04, 0xe2}, {0, 0, 0, 0, 0, 1}, /* 1.250 0.001 */
                            {0xff, 0xff, 0xff, 0xff, 0xfe, 0x0c}, {0, 0, 0, 0, 0x07, 0xd0},
                            {0, 0, 0, 0, 0x0c, 0x45}, {0, 0, 0, 0, 0x27, 0x0f}}; /* -0.5 2 3.141 9.999 */
    float f[ROWS] = {0.5f, NAN, -1.5f, 2.0f, 3.0f, 1.0f};
    double d[ROWS] = {0.5, INFINITY, NAN, -2.0, 7.5, 1e308};
    int32_t dt[ROWS] = {0, 1, 10957, -1, 20000, 18262};
    int64_t ts[ROWS];
    for (int i = 0; i < ROWS; i++) ts[i] = (int64_t)dt[i] * 86400000000 + 3600000000;
    put_fixed(0, q, 4), put_fixed(1, k, 8), put_fixed(2, dec, 8), put_fixed(3, dfl, 6);
    put_fixed(4, f, 4), put_fixed(5, d, 8), put_fixed(6, dt, 4), put_fixed(7, ts, 8);
    pq_bit_set(vecs[0].validity, 5, false), vecs[0].null_count = 1;
    pq_bit_set(vecs[2].validity, 5, false), vecs[2].null_count = 1;
}

/* The rows (bit i: row i) of in where text's one conjunct holds; -1 when it cannot be
 * evaluated, *rc its status. */
static int rows_of(const char *text, unsigned in_bits, int *rc)
{
    flt_expr *ex = parse_ok(text);
    int rows = -1;
    *rc = -1;
    if (ex && ex->npreds == 1) {
        const flt_pred *p = &ex->preds[0];
        flt_mask in = {0}, out = {0};
        CHECK(flt_mask_init(&in, ROWS, false) == 0);
        for (int i = 0; i < ROWS; i++)
            if (in_bits >> i & 1) flt_mask_set(&in, i);
        const pq_vec *v[FLT_MAX_MULTI_COLS];
        if (p->multi) {
            for (int32_t i = 0; i < p->multi->ncols; i++) v[i] = &vecs[p->multi->cols[i]];
            *rc = flt_eval_multi(p, v, &in, &out);
        } else {
            *rc = flt_eval(p, &vecs[p->column], &in, &out);
        }
        if (*rc == 0) {
            rows = 0;
            for (int i = 0; i < ROWS; i++) rows |= flt_mask_get(&out, i) << i;
        }
        flt_mask_free(&in), flt_mask_free(&out);
    }
    flt_expr_free(ex);
    return rows;
}

static void evaluation(void)
{
    static const struct { const char *text; unsigned in; int want; } cases[] = {
        {"q * 2 > 5", 0x3f, 0x1c},
        {"k + 1 > 2147483647", 0x3f, 0x18},        /* INT64_MAX + 1: exact, not wrapped */
        {"k * 2 = 18446744073709551614", 0x3f, 0x10},
        {"dec * q >= 5", 0x3f, 0x12},              /* 2.50 * 2 = 5.00; null row out */
        {"dec + dfl = 2.5", 0x3f, 0x01},           /* scales 2 and 3 aligned */
        {"dec / q < 1", 0x3f, 0x0c},
        {"f * 2 > 2", 0x3f, 0x1a},                 /* NaN * 2 is NaN, above every number */
        {"d - d = 0", 0x3f, 0x39},                 /* inf - inf is NaN */
        {"d / 0 > 1e308", 0x3f, 0x37},             /* x / 0 is +-inf (NaN for NaN) */
        {"CAST(dec AS INTEGER) = 3", 0x3f, 0x02},  /* 2.50 rounds half away from zero */
        {"CAST(dec AS INTEGER) = -4", 0x3f, 0x04},
        {"CAST(d AS INTEGER) = 8", 0x19, 0x10},    /* 7.5: half to even; inf, NaN not asked */
        {"CAST(d AS INTEGER) = 0", 0x19, 0x01},
        {"dt - 1 < DATE '1970-01-01'", 0x3f, 0x09},
        {"dt - dt = 0", 0x3f, 0x3f},
        {"CAST(ts AS DATE) = dt", 0x3f, 0x3f},     /* 01:00 on day -1 is day -1 */
        {"CAST(dt AS TIMESTAMP) < ts", 0x3f, 0x3f},
        {"-q < -3", 0x3f, 0x18},
        {"q + NULL > 0", 0x3f, 0x00},
        {"q < dec", 0x3f, 0x13},                   /* integer with decimal, exactly */
        {"q * 1.0 > d", 0x3f, 0x09},               /* against inf and NaN */
        {"q * 2 > 5", 0x0c, 0x0c},                 /* the input mask */
        {"q * 2 BETWEEN 4 AND 8", 0x3f, 0x0e},
        {"q * 2 IN (2, 10)", 0x3f, 0x11},
        {"q * 2 NOT IN (2, 10)", 0x3f, 0x0e},
        /* a string beside a number is cast to its type, as DuckDB casts VARCHAR (it was
         * "cannot compare '5' with a numeric expression"; CAST('nan' AS DOUBLE) was refused) */
        {"q * 2 > '5'", 0x3f, 0x1c},
        {"q * 2 = ' 6 '", 0x3f, 0x04},
        {"d - d = 'nan'", 0x3f, 0x06},            /* NaN equals NaN */
        {"d / 0 > CAST('1e308' AS DOUBLE)", 0x3f, 0x37},
        {"q < CAST(' 3.5 ' AS INTEGER)", 0x3f, 0x07}, /* 4: half away from zero */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc, got = -1;
        flt_expr *ex = parse_ok(cases[i].text);
        if (ex && ex->npreds == 2) { /* BETWEEN: both conjuncts */
            int a = rows_of("q * 2 >= 4", cases[i].in, &rc), b = rows_of("q * 2 <= 8", cases[i].in, &rc);
            got = a & b;
        } else {
            got = rows_of(cases[i].text, cases[i].in, &rc);
        }
        flt_expr_free(ex);
        if (got != cases[i].want) fprintf(stderr, "  %s: rows %#x want %#x\n", cases[i].text, got, cases[i].want);
        CHECK(got == cases[i].want);
    }
}

/* A value out of its type's range is an error, but only in a row the conjunct evaluates. */
static void overflow(void)
{
    int rc;
    CHECK(rows_of("CAST(d AS INTEGER) = 0", 0x3f, &rc) == -1);
    CHECK_EQ_I64(rc, -ERANGE);                  /* inf in row 1 */
    CHECK(rows_of("CAST(k AS INTEGER) > 0", 0x3f, &rc) == -1 && rc == -ERANGE);
    CHECK(rows_of("CAST(k AS INTEGER) > 0", 0x07, &rc) == 0x05 && rc == 0);
    CHECK(rows_of("k * k * k > 0", 0x3f, &rc) == -1 && rc == -ERANGE); /* past 128 bits */
    CHECK(rows_of("k * k * k > 0", 0x07, &rc) == 0x05 && rc == 0);
    CHECK(rows_of("CAST(dec AS DECIMAL(3,2)) > 0", 0x0b, &rc) == 0x0b && rc == 0);
    CHECK(rows_of("CAST(dec AS DECIMAL(3,2)) > 0", 0x10, &rc) == -1 && rc == -ERANGE);
}

/* flt_eval_multi of text's one conjunct on vecs[1] (k) alone. */
static int rows_of_big(const char *text, const flt_mask *in, flt_mask *out)
{
    flt_expr *ex = parse_ok(text);
    const pq_vec *v1[1] = {&vecs[1]};
    int rc = ex ? flt_eval_multi(&ex->preds[0], v1, in, out) : -1;
    flt_expr_free(ex);
    return rc;
}

/* flt_eval_multi of text's one conjunct over vecs[] with input in, into out; -1 when it does
 * not parse. */
static int eval_text(const char *text, const flt_mask *in, flt_mask *out)
{
    flt_expr *ex = parse_ok(text);
    if (!ex) return -1;
    const flt_pred *p = &ex->preds[0];
    const pq_vec *v[FLT_MAX_MULTI_COLS];
    for (int32_t i = 0; i < p->multi->ncols; i++) v[i] = &vecs[p->multi->cols[i]];
    int rc = flt_eval_multi(p, v, in, out);
    flt_expr_free(ex);
    return rc;
}

/* Chunks whose input rows are few are evaluated on those rows alone (vexpr_eval.c invariant
 * 4): 3000 rows (three chunks of 1024 and a short one) of q, k, dec and d, input masks from
 * every row to one row in 97, against the rows computed here; an overflow in an unselected
 * row of a sparse chunk is not reported, one in a selected row is. Each vector is swapped into
 * vecs[] for the test and back. */
static void sparse_chunks(void)
{
    enum { N = 3000 };
    pq_vec big[4], saved[4];
    static const int cols[4] = {0, 1, 2, 5}; /* q, k, dec, d */
    for (int j = 0; j < 4; j++) {
        int c = cols[j];
        pq_vec_init(&big[j], schema[c].physical, schema[c].type_length);
        CHECK(pq_vec_reserve(&big[j], N, 0) == 0);
        big[j].length = N;
        for (int i = 0; i < N; i++) pq_bit_set(big[j].validity, i, true);
        saved[j] = vecs[c], vecs[c] = big[j];
    }
    int32_t *q = (int32_t *)(void *)vecs[0].values;
    int64_t *k = (int64_t *)(void *)vecs[1].values, *dec = (int64_t *)(void *)vecs[2].values;
    double *d = (double *)(void *)vecs[5].values;
    for (int i = 0; i < N; i++)
        q[i] = i % 50 + 1, k[i] = (i * 7919) % 1000 - 500, dec[i] = i * 37 % 5000, d[i] = i * 0.25;
    k[1500] = INT64_MAX; /* overflows k * k * k */
    static const int every[] = {1, 3, 9, 97};
    for (size_t e = 0; e < sizeof every / sizeof *every; e++) {
        flt_mask in = {0}, out = {0};
        CHECK(flt_mask_init(&in, N, false) == 0);
        for (int i = 0; i < N; i++)
            if (i % every[e] == 0 && i != 1500) flt_mask_set(&in, i);
        static const char *const texts[] = {"CAST(dec AS INTEGER) * 2 - q > 40", "k * q < -100",
                                            "d * 2 > dec", "k * 2 > 0"};
        for (int t = 0; t < 4; t++) {
            CHECK_EQ_I64(eval_text(texts[t], &in, &out), 0);
            int bad = 0;
            for (int i = 0; i < N; i++) {
                int64_t dround = (dec[i] + 50) / 100; /* dec >= 0: half away from zero */
                bool want = t == 0   ? dround * 2 - q[i] > 40
                            : t == 1 ? k[i] * q[i] < -100
                            : t == 2 ? d[i] * 2 > (double)dec[i] / 100
                                     : k[i] > 0;
                bad += flt_mask_get(&out, i) != (flt_mask_get(&in, i) && want);
            }
            CHECK_EQ_I64(bad, 0);
        }
        CHECK(rows_of_big("k * k * k > 0", &in, &out) == 0); /* row 1500 not selected */
        flt_mask_set(&in, 1500); /* now selected: its overflow (past 128 bits) counts */
        flt_expr *ex = parse_ok("k * k * k > 0");
        const pq_vec *v1[1] = {&vecs[1]};
        if (ex) CHECK_EQ_I64(flt_eval_multi(&ex->preds[0], v1, &in, &out), -ERANGE);
        flt_expr_free(ex);
        flt_mask_free(&in), flt_mask_free(&out);
    }
    for (int j = 0; j < 4; j++) {
        vecs[cols[j]] = saved[j];
        pq_vec_free(&big[j]);
    }
}

/* Puts n-row vectors (every row valid, values for the caller to fill) in place of the first
 * nv columns of vecs, the old ones kept in saved; big_end puts them back. */
static void big_begin(pq_vec *big, pq_vec *saved, int nv, int64_t n)
{
    for (int j = 0; j < nv; j++) {
        pq_vec_init(&big[j], schema[j].physical, 0);
        CHECK(pq_vec_reserve(&big[j], n, 0) == 0);
        big[j].length = n;
        for (int64_t i = 0; i < n; i++) pq_bit_set(big[j].validity, i, true);
        saved[j] = vecs[j], vecs[j] = big[j];
    }
}

static void big_end(pq_vec *big, const pq_vec *saved, int nv)
{
    for (int j = 0; j < nv; j++) {
        vecs[j] = saved[j];
        pq_vec_free(&big[j]);
    }
}

/* A step's result bound from its operands' (vexpr_eval.c invariant 6) over 3000 rows of k and
 * q whose largest magnitudes sit in different rows: k * q is bounded by 41 + 31 bits (past
 * 62) while no row exceeds 2^40, k * q * q reaches 2^60, and times 8 it is 2^63, past the
 * 64-bit lane (a wrap there would flip its sign; DuckDB computes it, as the 128-bit lane
 * does); a CAST to INTEGER of k * q fits only in odd rows; a constant's magnitude counts
 * (k * 2^23). Each outcome against the rows computed here. */
static void step_bounds(void)
{
    enum { N = 3000 };
    pq_vec big[2], saved[2];
    big_begin(big, saved, 2, N);
    int32_t *q = (int32_t *)(void *)vecs[0].values;
    int64_t *k = (int64_t *)(void *)vecs[1].values;
    for (int i = 0; i < N; i++) /* odd rows: q = 2^30, k = 1 or -1; even: q = 1, k = +-2^40 */
        q[i] = i % 2 ? 1 << 30 : 1, k[i] = (i % 2 ? 1 : INT64_C(1) << 40) * (i % 3 ? 1 : -1);
    flt_mask all = {0}, odd = {0}, out = {0};
    CHECK(flt_mask_init(&all, N, true) == 0 && flt_mask_init(&odd, N, false) == 0);
    for (int i = 1; i < N; i += 2) flt_mask_set(&odd, i);
    static const char *const texts[] = {"k * q > 1000", "k * q * q > 1000", "k * q * q * 2 < -1000",
                                        "-(k * q) * q - k > 0", "CAST(k * q AS INTEGER) < 2",
                                        "k * q * q * 8 > 0", "k * 8388608 > 0"};
    for (int t = 0; t < 7; t++) {
        const flt_mask *in = t == 4 ? &odd : &all; /* (odd rows' k * q, 2^30, fits INTEGER) */
        CHECK_EQ_I64(eval_text(texts[t], in, &out), 0);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            __int128 kq = (__int128)k[i] * q[i], kqq = kq * q[i];
            bool want = t == 0   ? kq > 1000
                        : t == 1 ? kqq > 1000
                        : t == 2 ? kqq * 2 < -1000
                        : t == 3 ? -kqq - k[i] > 0
                        : t == 4 ? kq < 2
                        : t == 5 ? kqq * 8 > 0
                                 : k[i] > 0; /* (2^40 * 2^23: past the 64-bit lane) */
            bad += flt_mask_get(&out, i) != (flt_mask_get(in, i) && want);
        }
        if (bad) fprintf(stderr, "  %s: %d rows wrong\n", texts[t], bad);
        CHECK_EQ_I64(bad, 0);
    }
    flt_mask_free(&all), flt_mask_free(&odd), flt_mask_free(&out);
    big_end(big, saved, 2);
}

/* Products and scaled sums on operands below 2^31 in magnitude take 32x32-bit multiplies
 * (vexpr_eval.c mul_int32, scale_add_int32); one of 2^31 or more must not (as an int32 it
 * would be -2^31 or wrap). Random k, q and dec of up to 31 bits in the first and last of
 * three chunks, the middle one also holding k = +-2^31, 2^31 + 5 and -2^31 + 1 (every product
 * still below 2^62: the 64-bit lane). Each outcome against the rows computed in 128 bits. */
static void int32_products(void)
{
    enum { N = 3000 };
    pq_vec big[3], saved[3];
    big_begin(big, saved, 3, N);
    int32_t *q = (int32_t *)(void *)vecs[0].values;
    int64_t *k = (int64_t *)(void *)vecs[1].values, *dec = (int64_t *)(void *)vecs[2].values;
    static const int64_t edge[] = {INT64_C(1) << 31, -(INT64_C(1) << 31), (INT64_C(1) << 31) + 5,
                                   -(INT64_C(1) << 31) + 1, INT32_MAX, -INT32_MAX};
    uint64_t seed = 0x38;
    for (int i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        k[i] = (int64_t)(int32_t)(seed >> 32) | (i % 7 == 0 ? 0 : 1); /* never INT32_MIN */
        if (k[i] == INT32_MIN) k[i] = INT32_MIN + 1;
        q[i] = (int32_t)((seed >> 8) % 2000001) - 1000000;
        dec[i] = (int64_t)(int32_t)(seed >> 16) / 2;
        if (i >= 1024 && i < 2048 && i % 5 == 0) k[i] = edge[(i / 5) % 6];
    }
    flt_mask all = {0}, out = {0};
    CHECK(flt_mask_init(&all, N, true) == 0);
    static const char *const texts[] = {"k * q > 1000", "k * q < -1000", "k + dec > 0",
                                        "dec - k < 0", "q * dec > 0", "k * 3 - dec * 7 > 0"};
    for (int t = 0; t < 6; t++) {
        CHECK_EQ_I64(eval_text(texts[t], &all, &out), 0);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            __int128 kk = k[i], qq = q[i], dd = dec[i];
            bool want = t == 0   ? kk * qq > 1000
                        : t == 1 ? kk * qq < -1000
                        : t == 2 ? kk * 100 + dd > 0
                        : t == 3 ? dd - kk * 100 < 0
                        : t == 4 ? qq * dd > 0
                                 : kk * 300 - dd * 7 > 0;
            bad += flt_mask_get(&out, i) != want;
        }
        if (bad) fprintf(stderr, "  %s: %d rows wrong\n", texts[t], bad);
        CHECK_EQ_I64(bad, 0);
    }
    flt_mask_free(&all), flt_mask_free(&out);
    big_end(big, saved, 3);
}

/* ---- pruning -------------------------------------------------------------------------------- */

static int32_t dtb[2] = {11021, 11036}; /* dt's statistics: 2000-03-05 .. 2000-03-20 */

static flt_prune prune(const char *text)
{
    static int32_t qb[2] = {1, 7};
    static int64_t kb[2] = {100, 200};
    static float fb[2] = {1.0f, 2.0f};
    pq_chunk_meta chunks[NCOLS] = {0};
    pq_stats base = {.has_min_max = true, .min_exact = true, .max_exact = true, .usable = true,
                     .has_null_count = true};
    chunks[0].stats = base, chunks[1].stats = base, chunks[4].stats = base;
    chunks[0].stats.min = (uint8_t *)&qb[0], chunks[0].stats.max = (uint8_t *)&qb[1];
    chunks[0].stats.min_len = chunks[0].stats.max_len = 4;
    chunks[1].stats.min = (uint8_t *)&kb[0], chunks[1].stats.max = (uint8_t *)&kb[1];
    chunks[1].stats.min_len = chunks[1].stats.max_len = 8;
    chunks[4].stats.min = (uint8_t *)&fb[0], chunks[4].stats.max = (uint8_t *)&fb[1];
    chunks[4].stats.min_len = chunks[4].stats.max_len = 4;
    chunks[6].stats = base;
    chunks[6].stats.min = (uint8_t *)&dtb[0], chunks[6].stats.max = (uint8_t *)&dtb[1];
    chunks[6].stats.min_len = chunks[6].stats.max_len = 4;
    for (int c = 0; c < NCOLS; c++) chunks[c].num_values = 100;
    flt_expr *ex = parse_ok(text);
    flt_prune r = ex ? flt_prune_group(&ex->preds[0], chunks) : FLT_CAN_MATCH;
    flt_expr_free(ex);
    return r;
}

static void pruning(void)
{
    static const struct { const char *text; flt_prune want; } cases[] = {
        {"k * 2 > 400", FLT_CANNOT_MATCH},    {"k * 2 >= 400", FLT_CAN_MATCH},
        {"k - q < 93", FLT_CANNOT_MATCH},     {"k - q <= 93", FLT_CAN_MATCH},
        {"k / q < 14", FLT_CANNOT_MATCH},     {"k / q < 14.3", FLT_CAN_MATCH}, /* 100 / 7 */
        {"k / (q - 1) < 0", FLT_CAN_MATCH},   /* the divisor's range holds 0 */
        {"CAST(k AS DECIMAL(5,1)) > 200.0", FLT_CANNOT_MATCH},
        {"-k > -100", FLT_CANNOT_MATCH},      {"-k >= -100", FLT_CAN_MATCH},
        {"k * q = 50", FLT_CANNOT_MATCH},     {"k * q = 1400", FLT_CAN_MATCH},
        {"k * q <> 1400", FLT_CAN_MATCH},     {"q > k", FLT_CANNOT_MATCH},
        {"f * 2 > 100", FLT_CAN_MATCH},       /* float statistics omit NaN */
        {"k * 2 > 400 OR q * 2 > 14", FLT_CANNOT_MATCH},
        {"k * 2 > 400 OR q * 2 > 13", FLT_CAN_MATCH},
        {"CAST(q AS DOUBLE) / 2 > 3.5", FLT_CANNOT_MATCH},
        {"dec * 2 > 0", FLT_CAN_MATCH},       /* no statistics for dec */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        flt_prune got = prune(cases[i].text);
        if (got != cases[i].want) fprintf(stderr, "  %s: got %d want %d\n", cases[i].text, got, cases[i].want);
        CHECK(got == cases[i].want);
    }
}

/* month / day / quarter prune a group whose dates lie in one year (one month for day). */
static void date_parts(void)
{
    static const struct { const char *text; flt_prune in_march, across; } cases[] = {
        {"month(dt) = 4", FLT_CANNOT_MATCH, FLT_CAN_MATCH},
        {"month(dt) = 3", FLT_CAN_MATCH, FLT_CAN_MATCH},
        {"extract(month FROM dt) > 3", FLT_CANNOT_MATCH, FLT_CAN_MATCH},
        {"quarter(dt) = 2", FLT_CANNOT_MATCH, FLT_CAN_MATCH},
        {"quarter(dt) <> 1", FLT_CANNOT_MATCH, FLT_CAN_MATCH},
        {"day(dt) < 5", FLT_CANNOT_MATCH, FLT_CAN_MATCH},
        {"day(dt) <= 5", FLT_CAN_MATCH, FLT_CAN_MATCH},
        {"day(dt) IN (1, 21, 31)", FLT_CANNOT_MATCH, FLT_CAN_MATCH},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dtb[0] = 11021, dtb[1] = 11036; /* March 2000 */
        flt_prune a = prune(cases[i].text);
        dtb[1] = 11383; /* to 2001-03-02: across a year */
        flt_prune b = prune(cases[i].text);
        if (a != cases[i].in_march || b != cases[i].across)
            fprintf(stderr, "  %s: got %d, %d\n", cases[i].text, a, b);
        CHECK(a == cases[i].in_march && b == cases[i].across);
    }
    dtb[0] = 11021, dtb[1] = 11036;
}

static void errors(void)
{
    parse_err("q > 1 / 0", "division by zero at character 7", 7);
    parse_err("q > 1.5 / (2 - 2)", "division by zero at character 9", 9);
    parse_err("s + 1 = 2", "column 's' (STRING) takes no arithmetic or CAST at character 1", 1);
    parse_err("flag * 2 = 2", "column 'flag' (BOOLEAN) takes no arithmetic or CAST at character 1", 1);
    parse_err("CAST(q AS VARCHAR) = 1", "CAST to unknown or unsupported type 'VARCHAR' at character 1", 1);
    parse_err("CAST(q AS DECIMAL(40,2)) = 1", "CAST to unknown or unsupported type 'DECIMAL(40,2)' at character 1", 1);
    parse_err("CAST(dt AS INTEGER) = 1", "cannot CAST DATE to INTEGER at character 1", 1);
    parse_err("dt + dt > 1", "cannot apply '+' to DATE and DATE at character 4", 4);
    parse_err("q + 1 = DATE '2000-01-01'", "cannot compare INTEGER with DATE at character 1", 1);
    parse_err("q + 1 = 'x'", "cannot convert string 'x' to INTEGER at character 9", 9);
    parse_err("CAST('1.5x' AS DOUBLE) < d", "cannot convert string '1.5x' to DOUBLE at character 6", 6);
    parse_err("q + 1 > '3000000000'", "cannot convert string '3000000000' to INTEGER at character 9", 9);
    parse_err("dt - 1 = DATE '2000-02-30'", "invalid date '2000-02-30' at character 10", 10);
    parse_err("'a' = 1 + 1", "cannot convert string 'a' to INTEGER at character 1", 1);
    parse_err("DATE '2000-01-01' < 1 * 2", "cannot compare DATE with INTEGER at character 1", 1);
    parse_err("q > 99999999999999999999999999999999999999 * 10",
              "overflow: the constant is out of range of HUGEINT at character 44", 44);
    parse_err("CAST(300 AS TINYINT) = q", "overflow: the constant is out of range of TINYINT at character 1", 1);
    parse_err("dt < k", "cannot compare DATE column 'dt' with INT64 column 'k' at character 1", 1);
    parse_err("s = q", "cannot compare STRING column 's' with INT32 column 'q' at character 1", 1);
    parse_err("(q + 1 > 2", "expected AND, OR or ')' at character 11", 11);
    parse_err("(q + 1) * 2", "expected comparison operator at character 12", 12);
    parse_err("CAST(q INTEGER) = 1", "expected AS at character 8", 8);
}

int main(void)
{
    make_vectors();
    RUN(types);
    RUN(folding);
    RUN(constants);
    RUN(printing);
    RUN(evaluation);
    RUN(overflow);
    RUN(sparse_chunks);
    RUN(step_bounds);
    RUN(int32_products);
    RUN(pruning);
    RUN(date_parts);
    RUN(errors);
    for (int c = 0; c < NCOLS; c++) pq_vec_free(&vecs[c]);
    return CHECK_DONE("test_filter_arith");
}
