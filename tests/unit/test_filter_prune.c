/* tests for filter/prune.c: truth tables for statistics pruning (exact and truncated bounds,
 * null counts, all-null units, NaN), page index pruning, bloom filters, dynamic bounds. */
#include <math.h>
#include <pthread.h>

#include "check.h"
#include "filter/kernel.h"
#include "filter/prune.h"
#include "format/bloom.h"

static const pq_column_desc schema[] = {
    {.name = "a", .physical = PQ_INT32},
    {.name = "s", .physical = PQ_BYTE_ARRAY, .logical = PQ_LOGICAL_STRING},
    {.name = "u", .physical = PQ_INT32, .logical = PQ_LOGICAL_UINT32},
    {.name = "d", .physical = PQ_DOUBLE},
    {.name = "dec", .physical = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 6, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 3},
    {.name = "f", .physical = PQ_FLOAT},
    {.name = "k", .physical = PQ_INT64},
};
enum { NCOLS = sizeof schema / sizeof *schema };

static flt_expr *px(const char *text)
{
    flt_expr *ex = NULL;
    pq_err e = {0};
    if (flt_parse(text, schema, NCOLS, &ex, &e)) fprintf(stderr, "  parse %s: %s\n", text, e.msg);
    CHECK(ex && ex->npreds == 1);
    return ex;
}

static flt_prune run(const char *text, const pq_stats *s, int64_t nv)
{
    flt_expr *ex = px(text);
    flt_prune r = ex ? flt_prune_stats(&ex->preds[0], s, nv) : FLT_CAN_MATCH;
    flt_expr_free(ex);
    return r;
}

#define EXPECT(text, s, nv, want)                                                       \
    do {                                                                                \
        flt_prune r_ = run(text, s, nv);                                                \
        if (r_ != (want)) fprintf(stderr, "  %s: got %d want %d\n", text, r_, want);     \
        CHECK(r_ == (want));                                                            \
    } while (0)

static pq_stats i32_stats(int32_t mn, int32_t mx, int64_t nulls, uint8_t buf[8])
{
    memcpy(buf, &mn, 4), memcpy(buf + 4, &mx, 4);
    pq_stats s = {.has_min_max = true, .min_exact = true, .max_exact = true, .usable = true,
                  .has_null_count = nulls >= 0, .min = buf, .max = buf + 4, .min_len = 4,
                  .max_len = 4, .null_count = nulls};
    return s;
}

static void int_truth_table(void)
{
    uint8_t b[8];
    pq_stats s = i32_stats(10, 20, 0, b);
    EXPECT("a > 20", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("a > 19", &s, 100, FLT_CAN_MATCH);
    EXPECT("a > 9", &s, 100, FLT_ALL_MATCH);
    EXPECT("a >= 10", &s, 100, FLT_ALL_MATCH);
    EXPECT("a < 10", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("a <= 10", &s, 100, FLT_CAN_MATCH);
    EXPECT("a < 21", &s, 100, FLT_ALL_MATCH);
    EXPECT("a = 15", &s, 100, FLT_CAN_MATCH);
    EXPECT("a = 9", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("a = 21", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("a != 15", &s, 100, FLT_CAN_MATCH);
    EXPECT("a != 9", &s, 100, FLT_ALL_MATCH);
    EXPECT("a BETWEEN 0 AND 9", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("a BETWEEN 10 AND 20", &s, 100, FLT_ALL_MATCH);
    EXPECT("a BETWEEN 15 AND 30", &s, 100, FLT_CAN_MATCH);
    EXPECT("a IN (1, 25)", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("a IN (1, 15)", &s, 100, FLT_CAN_MATCH);
    EXPECT("a IS NULL", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("a IS NOT NULL", &s, 100, FLT_ALL_MATCH);
    EXPECT("(a < 5 OR a > 25)", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("(a < 5 OR a > 8)", &s, 100, FLT_ALL_MATCH);
    EXPECT("a = 15.5", &s, 100, FLT_CANNOT_MATCH);
    s = i32_stats(15, 15, 0, b);
    EXPECT("a = 15", &s, 100, FLT_ALL_MATCH);
    EXPECT("a != 15", &s, 100, FLT_CANNOT_MATCH);
    EXPECT("a IN (3, 15)", &s, 100, FLT_ALL_MATCH);
    s = i32_stats(10, 20, 5, b);
    EXPECT("a > 9", &s, 100, FLT_CAN_MATCH);
    EXPECT("a IS NULL", &s, 100, FLT_CAN_MATCH);
    EXPECT("a IS NOT NULL", &s, 100, FLT_CAN_MATCH);
    EXPECT("(a > 9 OR a IS NULL)", &s, 100, FLT_ALL_MATCH);
    EXPECT("(a > 30 OR a IS NULL)", &s, 100, FLT_CAN_MATCH);
    EXPECT("a > 30", &s, 100, FLT_CANNOT_MATCH);
    s = i32_stats(10, 20, -1, b); /* null count unknown */
    EXPECT("a > 9", &s, 100, FLT_CAN_MATCH);
    EXPECT("a IS NULL", &s, 100, FLT_CAN_MATCH);
    EXPECT("(a > 30 OR a IS NULL)", &s, 100, FLT_CAN_MATCH);
    pq_stats allnull = {.has_null_count = true, .null_count = 100};
    EXPECT("a > 0", &allnull, 100, FLT_CANNOT_MATCH);
    EXPECT("a IS NULL", &allnull, 100, FLT_ALL_MATCH);
    EXPECT("a IS NOT NULL", &allnull, 100, FLT_CANNOT_MATCH);
    EXPECT("a != 3", &allnull, 100, FLT_CANNOT_MATCH);
    EXPECT("a > 0", NULL, 100, FLT_CAN_MATCH);
    EXPECT("a IS NULL", NULL, 100, FLT_CAN_MATCH);
    EXPECT("a IS NULL", NULL, 0, FLT_CANNOT_MATCH);
    s = i32_stats(10, 20, 0, b);
    s.usable = false;
    EXPECT("a > 20", &s, 100, FLT_CAN_MATCH);
    EXPECT("a IS NULL", &s, 100, FLT_CANNOT_MATCH); /* null count still usable */
    uint8_t ub[8] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}; /* unsigned 1 .. 4294967295 */
    pq_stats us = {.has_min_max = true, .usable = true, .min = ub, .max = ub + 4, .min_len = 4, .max_len = 4};
    EXPECT("u > 5", &us, 10, FLT_CAN_MATCH);
    EXPECT("u < 1", &us, 10, FLT_CANNOT_MATCH);
    EXPECT("u > 4294967294", &us, 10, FLT_CAN_MATCH);
    EXPECT("u = 4294967295", &us, 10, FLT_CAN_MATCH);
    EXPECT("u = 0", &us, 10, FLT_CANNOT_MATCH);
}

static pq_stats bytes_stats(const char *mn, const char *mx, bool exact)
{
    pq_stats s = {.has_min_max = true, .min_exact = exact, .max_exact = exact, .usable = true,
                  .has_null_count = true, .null_count = 0, .min = (const uint8_t *)mn,
                  .max = (const uint8_t *)mx, .min_len = (uint32_t)strlen(mn),
                  .max_len = (uint32_t)strlen(mx)};
    return s;
}

static void bytes_truncated_bounds(void)
{
    /* true values in ["apple", "banana"]; truncated min "app" (rounded down) and max "bb"
     * (rounded up) remain bounds */
    pq_stats s = bytes_stats("app", "bb", false);
    EXPECT("s = 'bz'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s = 'ba'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s = 'bb'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s < 'app'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s > 'bb'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s >= 'a'", &s, 50, FLT_ALL_MATCH);
    EXPECT("s < 'c'", &s, 50, FLT_ALL_MATCH);
    EXPECT("s LIKE 'c%'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s LIKE 'b%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s LIKE 'a%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s LIKE 'ap%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s LIKE 'aa%'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s IN ('zz', 'a')", &s, 50, FLT_CANNOT_MATCH);
    s = bytes_stats("ab", "abz", true);
    EXPECT("s LIKE 'ab%'", &s, 50, FLT_ALL_MATCH);
    EXPECT("s LIKE 'abz%'", &s, 50, FLT_CAN_MATCH);
    s = bytes_stats("", "", true);
    EXPECT("s = ''", &s, 50, FLT_ALL_MATCH);
    EXPECT("s > ''", &s, 50, FLT_CANNOT_MATCH);
    s = bytes_stats("a\xff\xff", "b", true); /* succ('a\xff') = 'b' */
    EXPECT("s LIKE 'a\xff%'", &s, 50, FLT_CAN_MATCH);
    s = bytes_stats("b", "c", true);
    EXPECT("s LIKE 'a\xff%'", &s, 50, FLT_CANNOT_MATCH);
    /* a general LIKE prunes by its fixed head only; ILIKE by its head's upper- and lower-case
     * range; NOT LIKE 'head%' when every value starts with head */
    s = bytes_stats("apple", "apricot", true);
    EXPECT("s LIKE 'ap_le%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s LIKE 'b%x'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s LIKE 'aq_'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s LIKE '%zz%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s ILIKE 'b%x'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s NOT LIKE 'a%'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s NOT LIKE 'ap%'", &s, 50, FLT_CANNOT_MATCH);
    EXPECT("s NOT LIKE 'apr%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s NOT LIKE 'ap_%'", &s, 50, FLT_CAN_MATCH);   /* not a plain head */
    EXPECT("s NOT ILIKE 'a%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("NOT s LIKE 'b%x'", &s, 50, FLT_CAN_MATCH);
    s = bytes_stats("cat", "dog", true);
    EXPECT("s ILIKE 'B%'", &s, 50, FLT_CANNOT_MATCH);     /* matches lie in ['B', 'c') */
    EXPECT("s ILIKE 'C%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s ILIKE 'DOG%'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s ILIKE 'E_%'", &s, 50, FLT_CAN_MATCH);       /* ['E', 'f') meets ['cat', 'dog'] */
    s = bytes_stats("A1", "B9", true);
    EXPECT("s ILIKE 'c%'", &s, 50, FLT_CANNOT_MATCH);     /* all below 'C' */
    EXPECT("s ILIKE 'b%'", &s, 50, FLT_CAN_MATCH);
    s = bytes_stats("0", "9", true);
    EXPECT("s ILIKE 'a%'", &s, 50, FLT_CANNOT_MATCH);     /* all below 'A' */
    EXPECT("s ILIKE '%a'", &s, 50, FLT_CAN_MATCH);
    EXPECT("s = 'zz' OR s LIKE 'b_'", &s, 50, FLT_CANNOT_MATCH);
}

static void float_nan_rules(void)
{
    double mm[2] = {1.0, 2.0};
    pq_stats s = {.has_min_max = true, .usable = true, .min = (uint8_t *)&mm[0],
                  .max = (uint8_t *)&mm[1], .min_len = 8, .max_len = 8,
                  .has_null_count = true, .null_count = 0};
    /* NaN is above every number (kernel.h invariant 2): it passes > and >= */
    EXPECT("d > 0.5", &s, 10, FLT_ALL_MATCH);
    EXPECT("d > 3", &s, 10, FLT_CAN_MATCH); /* NaN rows would pass */
    EXPECT("d NOT IN (5, 6)", &s, 10, FLT_ALL_MATCH);
    EXPECT("d <= 0.5", &s, 10, FLT_CANNOT_MATCH); /* NaN fails <= */
    EXPECT("d < 1", &s, 10, FLT_CANNOT_MATCH);
    EXPECT("d != 1.5", &s, 10, FLT_CAN_MATCH);
    EXPECT("d != 5", &s, 10, FLT_ALL_MATCH); /* NaN != 5 too */
    EXPECT("d IS NOT NULL", &s, 10, FLT_ALL_MATCH);
    s.has_nan_count = true, s.nan_count = 0;
    EXPECT("d > 0.5", &s, 10, FLT_ALL_MATCH);
    EXPECT("d > 3", &s, 10, FLT_CANNOT_MATCH);
    EXPECT("NOT d <= 3", &s, 10, FLT_CANNOT_MATCH);
    EXPECT("d BETWEEN 1 AND 2", &s, 10, FLT_ALL_MATCH);
    s.nan_count = 3;
    EXPECT("d BETWEEN 1 AND 2", &s, 10, FLT_CAN_MATCH);
    double one[2] = {1.0, 1.0};
    s.min = (uint8_t *)&one[0], s.max = (uint8_t *)&one[1];
    EXPECT("d != 1", &s, 10, FLT_CAN_MATCH); /* NaN rows (nan_count 3) match != */
    s.nan_count = 0;
    EXPECT("d != 1", &s, 10, FLT_CANNOT_MATCH);
    double nan[2] = {0.0 / 0.0, 2.0}; /* a NaN bound is never used (even if marked usable) */
    s.min = (uint8_t *)&nan[0], s.max = (uint8_t *)&nan[1];
    EXPECT("d > 3", &s, 10, FLT_CAN_MATCH);
    double z[2] = {-0.0, 0.0};
    s.min = (uint8_t *)&z[0], s.max = (uint8_t *)&z[1];
    EXPECT("d = 0", &s, 10, FLT_ALL_MATCH);
    EXPECT("d > 0", &s, 10, FLT_CANNOT_MATCH);
    EXPECT("d NOT IN (0)", &s, 10, FLT_CANNOT_MATCH);
    EXPECT("d NOT IN (1)", &s, 10, FLT_ALL_MATCH);
}

static void decimal_flba(void)
{
    uint8_t mn[6] = {0xff, 0xff, 0xff, 0xff, 0xfc, 0x18}; /* -1000 = -1.000 */
    uint8_t mx[6] = {0, 0, 0, 0, 0x09, 0xc4};             /*  2500 =  2.500 */
    pq_stats s = {.has_min_max = true, .usable = true, .min = mn, .max = mx, .min_len = 6,
                  .max_len = 6, .has_null_count = true, .null_count = 0};
    EXPECT("dec > 2.5", &s, 10, FLT_CANNOT_MATCH);
    EXPECT("dec >= 2.5", &s, 10, FLT_CAN_MATCH);
    EXPECT("dec >= -1", &s, 10, FLT_ALL_MATCH);
    EXPECT("dec < -1.0005", &s, 10, FLT_CANNOT_MATCH);
    EXPECT("dec < -0.9995", &s, 10, FLT_CAN_MATCH);
    EXPECT("dec BETWEEN -5 AND 5", &s, 10, FLT_ALL_MATCH);
}

/* flt_estimate_stats: the uniform guesses, the proofs (0 and 1), and the cases it must call
 * unknown (-1). */
static double est(const char *text, const pq_stats *s, int64_t nv)
{
    flt_expr *ex = px(text);
    double r = ex ? flt_estimate_stats(&ex->preds[0], s, nv) : -2;
    flt_expr_free(ex);
    return r;
}

#define EXPECT_EST(text, s, nv, want)                                                  \
    do {                                                                               \
        double r_ = est(text, s, nv);                                                  \
        if (r_ < (want) - 1e-9 || r_ > (want) + 1e-9)                                  \
            fprintf(stderr, "  %s: estimate %.6f want %.6f\n", text, r_, (double)(want)); \
        CHECK(r_ >= (want) - 1e-9 && r_ <= (want) + 1e-9);                             \
    } while (0)

static void estimate(void)
{
    uint8_t b[8];
    pq_stats s = i32_stats(1, 50, 0, b); /* 50 integer values */
    EXPECT_EST("a < 2", &s, 100, 1.0 / 50);
    EXPECT_EST("a <= 2", &s, 100, 2.0 / 50);
    EXPECT_EST("a > 45", &s, 100, 5.0 / 50);
    EXPECT_EST("a >= 45", &s, 100, 6.0 / 50);
    EXPECT_EST("a BETWEEN 11 AND 20", &s, 100, 10.0 / 50);
    EXPECT_EST("a BETWEEN 41 AND 90", &s, 100, 10.0 / 50); /* clipped at max */
    EXPECT_EST("a = 7", &s, 100, 1.0 / 50);
    EXPECT_EST("a != 7", &s, 100, 49.0 / 50);
    EXPECT_EST("a IN (3, 4, 99)", &s, 100, 2.0 / 50); /* 99 lies outside */
    EXPECT_EST("(a < 2 OR a > 45)", &s, 100, 6.0 / 50);
    EXPECT_EST("a > 50", &s, 100, 0.0);  /* proofs */
    EXPECT_EST("a >= 1", &s, 100, 1.0);
    s = i32_stats(1, 50, 20, b); /* a fifth null */
    EXPECT_EST("a < 2", &s, 100, 0.8 / 50);
    EXPECT_EST("a IS NULL", &s, 100, 0.2);
    EXPECT_EST("a IS NOT NULL", &s, 100, 0.8);
    EXPECT_EST("(a < 2 OR a IS NULL)", &s, 100, 0.2 + 0.8 / 50);
    s = i32_stats(1, 50, -1, b);
    EXPECT_EST("a IS NULL", &s, 100, -1.0);
    s.distinct_count = 5, s.has_distinct = true;
    EXPECT_EST("a = 7", &s, 100, 1.0 / 5);
    EXPECT_EST("a > 0", NULL, 100, -1.0);
    s.usable = false;
    EXPECT_EST("a < 2", &s, 100, -1.0);

    pq_stats t = bytes_stats("a", "e", true); /* first bytes 0x61 .. 0x65 */
    EXPECT_EST("s >= 'c'", &t, 100, 0.5);
    EXPECT_EST("s < 'b'", &t, 100, 0.25);
    EXPECT_EST("s LIKE 'b%'", &t, 100, 0.25);
    EXPECT_EST("s = 'c'", &t, 100, -1.0); /* strings: no distinct count, no guess */
    EXPECT_EST("s != 'c'", &t, 100, 1.0);
    t = bytes_stats("prefix_aaaa1", "prefix_aaaa9", true); /* first 8 bytes tie */
    EXPECT_EST("s > 'prefix_aaaa5'", &t, 100, -1.0);

    uint8_t mn[6] = {0xff, 0xff, 0xff, 0xff, 0xfc, 0x18}; /* -1.000 */
    uint8_t mx[6] = {0, 0, 0, 0, 0x0b, 0xb7};             /*  2.999: 4000 values */
    pq_stats d = {.has_min_max = true, .usable = true, .min = mn, .max = mx, .min_len = 6,
                  .max_len = 6, .has_null_count = true, .null_count = 0};
    EXPECT_EST("dec < 0", &d, 10, 1000.0 / 4000);
    EXPECT_EST("dec >= 2", &d, 10, 1000.0 / 4000);

    double inf[2] = {-HUGE_VAL, HUGE_VAL}; /* infinite bounds: no share to take (fuzz_scan) */
    pq_stats f = {.has_min_max = true, .usable = true, .min = (const uint8_t *)&inf[0],
                  .max = (const uint8_t *)&inf[1], .min_len = 8, .max_len = 8,
                  .has_null_count = true, .null_count = 0, .has_nan_count = true};
    EXPECT_EST("d < 0", &f, 10, -1.0);
    f.null_count = 50; /* more nulls than values: still a share in [0, 1] */
    EXPECT_EST("d IS NULL", &f, 10, 1.0);
}

static void page_index(void)
{
    int32_t v[4] = {1, 5, 6, 9};
    const uint8_t *mins[3] = {(uint8_t *)&v[0], NULL, (uint8_t *)&v[2]};
    const uint8_t *maxs[3] = {(uint8_t *)&v[1], NULL, (uint8_t *)&v[3]};
    uint32_t lens[3] = {4, 0, 4};
    bool nullp[3] = {false, true, false};
    int64_t nc[3] = {0, 10, 2}, rows[3] = {10, 10, 10};
    pq_column_index ci = {.npages = 3, .null_pages = nullp, .min = mins, .max = maxs,
                          .min_len = lens, .max_len = lens, .has_null_counts = true,
                          .null_counts = nc};
    static const struct { const char *text; uint64_t keep, all; int32_t kept_unusable; } cases[] = {
        {"a > 5", 4, 0, 2}, {"a IS NULL", 6, 2, 2}, {"a <= 5", 1, 1, 2}, {"a = 7", 4, 0, 2},
        {"a IS NOT NULL", 5, 1, 2}, {"(a < 2 OR a IS NULL)", 7, 2, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        flt_expr *ex = px(cases[i].text);
        uint64_t keep = 99, all = 99;
        int32_t k = flt_prune_pages(&ex->preds[0], &ci, true, rows, &keep, &all);
        if (keep != cases[i].keep || all != cases[i].all)
            fprintf(stderr, "  %s: keep %llu all %llu\n", cases[i].text,
                    (unsigned long long)keep, (unsigned long long)all);
        CHECK(keep == cases[i].keep && all == cases[i].all);
        CHECK_EQ_I64(k, __builtin_popcountll(cases[i].keep));
        CHECK_EQ_I64(flt_prune_pages(&ex->preds[0], &ci, false, NULL, &keep, NULL),
                     cases[i].kept_unusable); /* order unusable: only null facts */
        flt_expr_free(ex);
    }
    /* A null count above the page's rows is impossible, so unknown: page 0 (1..5, no nulls
     * written as 2^31) must not read as all-null and be dropped by IS NOT NULL (test_sweep). */
    nc[0] = (int64_t)1 << 31;
    flt_expr *ex = px("a IS NOT NULL");
    uint64_t keep = 0;
    CHECK_EQ_I64(flt_prune_pages(&ex->preds[0], &ci, false, rows, &keep, NULL), 2);
    CHECK_EQ_I64(keep, 5);
    flt_expr_free(ex);
}

static void insert_plain(uint8_t *bits, size_t n, const void *v, size_t len)
{
    pq_bloom_insert(bits, n, pq_bloom_hash(v, len));
}

static flt_prune bloom_run(const char *text, const uint8_t *bits, size_t n)
{
    flt_expr *ex = px(text);
    flt_prune r = ex ? flt_prune_bloom_sbbf(&ex->preds[0], bits, n) : FLT_CAN_MATCH;
    flt_expr_free(ex);
    return r;
}

static void bloom(void)
{
    static uint8_t bits[1024];
    memset(bits, 0, sizeof bits);
    for (int32_t x = 1; x <= 3; x++) insert_plain(bits, sizeof bits, &x, 4);
    insert_plain(bits, sizeof bits, "AIR", 3);
    double nz = -0.0;
    insert_plain(bits, sizeof bits, &nz, 8);
    float quarter = 0.25f;
    insert_plain(bits, sizeof bits, &quarter, 4);
    CHECK(bloom_run("a = 4", bits, sizeof bits) == FLT_CANNOT_MATCH);
    CHECK(bloom_run("a = 2", bits, sizeof bits) == FLT_CAN_MATCH);
    CHECK(bloom_run("a IN (7, 8, 3)", bits, sizeof bits) == FLT_CAN_MATCH);
    CHECK(bloom_run("a IN (7, 8)", bits, sizeof bits) == FLT_CANNOT_MATCH);
    CHECK(bloom_run("(a = 7 OR a = 1)", bits, sizeof bits) == FLT_CAN_MATCH);
    CHECK(bloom_run("a > 1", bits, sizeof bits) == FLT_CAN_MATCH);
    CHECK(bloom_run("(a = 7 OR a IS NULL)", bits, sizeof bits) == FLT_CAN_MATCH);
    CHECK(bloom_run("s = 'AIR'", bits, sizeof bits) == FLT_CAN_MATCH);
    CHECK(bloom_run("s = 'MAIL'", bits, sizeof bits) == FLT_CANNOT_MATCH);
    CHECK(bloom_run("d = 0", bits, sizeof bits) == FLT_CAN_MATCH); /* probes -0.0 too */
    CHECK(bloom_run("d = 1", bits, sizeof bits) == FLT_CANNOT_MATCH);
    CHECK(bloom_run("f = 0.25", bits, sizeof bits) == FLT_CAN_MATCH);
    CHECK(bloom_run("f = 0.1", bits, sizeof bits) == FLT_CANNOT_MATCH); /* no float is 0.1 */
    CHECK(bloom_run("a = 2", bits, 0) == FLT_CAN_MATCH);
    /* FLBA decimal: the literal is probed in the column's 6-byte encoding */
    uint8_t dec[6] = {0xff, 0xff, 0xff, 0xff, 0xfc, 0x18}; /* -1.000 */
    insert_plain(bits, sizeof bits, dec, 6);
    CHECK(bloom_run("dec = -1", bits, sizeof bits) == FLT_CAN_MATCH);
    CHECK(bloom_run("dec = 1", bits, sizeof bits) == FLT_CANNOT_MATCH);
}

static void dynamic_bounds(void)
{
    flt_dyn desc_bound = {0}, asc_bound = {0};
    flt_expr *ex = flt_expr_new();
    CHECK(ex && flt_expr_add_dynamic(ex, schema, NCOLS, 6, FLT_DYN_DESC, &desc_bound, NULL) == 0);
    CHECK(flt_expr_add_dynamic(ex, schema, NCOLS, 6, 0, &asc_bound, NULL) == 0);
    CHECK(flt_expr_add_dynamic(ex, schema, NCOLS, 1, 0, &asc_bound, NULL) ==
          RINGSCAN_EUNSUPPORTED);
    CHECK_EQ_I64(ex->npreds, 2);
    int64_t mm[2] = {10, 20};
    pq_stats s = {.has_min_max = true, .usable = true, .min = (uint8_t *)&mm[0],
                  .max = (uint8_t *)&mm[1], .min_len = 8, .max_len = 8};
    flt_pred *gt = &ex->preds[0], *lt = &ex->preds[1];
    CHECK(flt_prune_stats(gt, &s, 100) == FLT_CAN_MATCH); /* unset prunes nothing */
    CHECK(flt_prune_stats(lt, &s, 100) == FLT_CAN_MATCH);
    flt_lit v = {.i = 20}, got;
    uint64_t ver0 = 0, ver1 = 0;
    CHECK(flt_dyn_publish(&desc_bound, FLT_DOM_I64, true, v));
    CHECK(flt_dyn_load(&desc_bound, FLT_DOM_I64, &got, &ver0) && got.i == 20 && ver0 == 1);
    CHECK(flt_prune_stats(gt, &s, 100) == FLT_CAN_MATCH); /* max == v: a tie may still win */
    v.i = 21;
    CHECK(flt_dyn_publish(&desc_bound, FLT_DOM_I64, true, v));
    CHECK(flt_prune_stats(gt, &s, 100) == FLT_CANNOT_MATCH); /* max < v */
    v.i = 15;
    CHECK(!flt_dyn_publish(&desc_bound, FLT_DOM_I64, true, v)); /* not stricter */
    CHECK(flt_dyn_load(&desc_bound, FLT_DOM_I64, &got, &ver1) && got.i == 21 && ver1 == 2);
    v.i = 11;
    CHECK(flt_dyn_publish(&asc_bound, FLT_DOM_I64, false, v));
    CHECK(flt_prune_stats(lt, &s, 100) == FLT_CAN_MATCH); /* min 10 < 11 */
    v.i = 10;
    CHECK(flt_dyn_publish(&asc_bound, FLT_DOM_I64, false, v));
    CHECK(flt_prune_stats(lt, &s, 100) == FLT_CAN_MATCH); /* min == v: a tie */
    v.i = 9;
    CHECK(flt_dyn_publish(&asc_bound, FLT_DOM_I64, false, v));
    CHECK(flt_prune_stats(lt, &s, 100) == FLT_CANNOT_MATCH); /* min > v */
    CHECK(flt_dyn_load(&asc_bound, FLT_DOM_I64, &got, &ver1) && ver1 == 3);
    /* kernel: unset keeps the input (nulls too); set evaluates col > v */
    flt_dyn fresh = {0};
    gt->dyn = &fresh;
    pq_vec vec;
    pq_vec_init(&vec, PQ_INT64, 0);
    CHECK(pq_vec_reserve(&vec, 70, 0) == 0);
    vec.length = 70;
    for (int64_t i = 0; i < 70; i++) ((int64_t *)vec.values)[i] = i;
    memset(vec.validity, 0xff, 9);
    pq_bit_set(vec.validity, 69, false), ((int64_t *)vec.values)[69] = 0, vec.null_count = 1;
    flt_mask out = {0};
    CHECK(flt_eval(gt, &vec, NULL, &out) == 0 && flt_mask_popcount(&out) == 70);
    v.i = 60;
    CHECK(flt_dyn_publish(&fresh, FLT_DOM_I64, true, v));
    CHECK(flt_eval(gt, &vec, NULL, &out) == 0 && flt_mask_popcount(&out) == 9); /* 60..68 */
    CHECK(flt_mask_get(&out, 60) && !flt_mask_get(&out, 59) && !flt_mask_get(&out, 69));
    flt_mask_free(&out);
    pq_vec_free(&vec);
    flt_expr_free(ex);
}

/* Descending on a float keeps NaN (it sorts above every number) and prunes only what is
 * proven NaN-free; NULLS FIRST keeps null rows. */
static void dynamic_nan_nulls(void)
{
    flt_dyn dd = {0}, dk = {0};
    flt_expr *ex = flt_expr_new();
    CHECK(ex && flt_expr_add_dynamic(ex, schema, NCOLS, 3, FLT_DYN_DESC, &dd, NULL) == 0);
    CHECK(flt_expr_add_dynamic(ex, schema, NCOLS, 6, FLT_DYN_NULLS_FIRST, &dk, NULL) == 0);
    flt_pred *pd = &ex->preds[0], *pk = &ex->preds[1];
    CHECK(pd->keep_nan && !pk->keep_nan && pk->nterms == 2);
    flt_lit v = {.f = 5.0};
    CHECK(flt_dyn_publish(&dd, FLT_DOM_F64, true, v));
    double mm[2] = {1, 4};
    pq_stats s = {.has_min_max = true, .usable = true, .min = (uint8_t *)&mm[0],
                  .max = (uint8_t *)&mm[1], .min_len = 8, .max_len = 8};
    CHECK(flt_prune_stats(pd, &s, 10) == FLT_CAN_MATCH); /* NaN may be there */
    s.has_nan_count = true, s.nan_count = 0;
    CHECK(flt_prune_stats(pd, &s, 10) == FLT_CANNOT_MATCH);
    pq_vec d;
    pq_vec_init(&d, PQ_DOUBLE, 0);
    CHECK(pq_vec_reserve(&d, 6, 0) == 0);
    double vals[6] = {1, 5, 7, NAN, 0, 4.99};
    memcpy(d.values, vals, sizeof vals);
    d.length = 6, d.null_count = 1;
    memset(d.validity, 0xff, 1);
    pq_bit_set(d.validity, 4, false);
    flt_mask out = {0};
    CHECK(flt_eval(pd, &d, NULL, &out) == 0 && flt_mask_popcount(&out) == 3);
    CHECK(flt_mask_get(&out, 1) && flt_mask_get(&out, 2) && flt_mask_get(&out, 3));
    pq_vec k;
    pq_vec_init(&k, PQ_INT64, 0);
    CHECK(pq_vec_reserve(&k, 4, 0) == 0);
    int64_t kv[4] = {3, 0, 9, 2};
    memcpy(k.values, kv, sizeof kv);
    k.length = 4, k.null_count = 1;
    memset(k.validity, 0xff, 1);
    pq_bit_set(k.validity, 1, false);
    v = (flt_lit){.i = 3};
    CHECK(flt_dyn_publish(&dk, FLT_DOM_I64, false, v));
    CHECK(flt_eval(pk, &k, NULL, &out) == 0 && flt_mask_popcount(&out) == 3); /* 3, null, 2 */
    CHECK(!flt_mask_get(&out, 2));
    int64_t km[2] = {5, 8};
    pq_stats ks = {.has_min_max = true, .usable = true, .min = (uint8_t *)&km[0],
                   .max = (uint8_t *)&km[1], .min_len = 8, .max_len = 8,
                   .has_null_count = true, .null_count = 0};
    CHECK(flt_prune_stats(pk, &ks, 10) == FLT_CANNOT_MATCH);
    ks.null_count = 1;
    CHECK(flt_prune_stats(pk, &ks, 10) == FLT_CAN_MATCH); /* its null still sorts first */
    flt_mask_free(&out);
    pq_vec_free(&d);
    pq_vec_free(&k);
    flt_expr_free(ex);
}

static flt_dyn race_bound;

static void *publisher(void *arg)
{
    int64_t base = (int64_t)(intptr_t)arg;
    for (int64_t i = 0; i < 20000; i++) {
        flt_lit v = {.i = i * 2 + base}, got;
        flt_dyn_publish(&race_bound, FLT_DOM_I64, true, v);
        uint64_t ver;
        if (flt_dyn_load(&race_bound, FLT_DOM_I64, &got, &ver) && got.i < v.i) return (void *)1;
    }
    return NULL;
}

/* Two cores publish interleaved rising bounds: the bound only ever rises and ends at the
 * maximum; every load after a publish sees at least the value published. */
static void dynamic_bound_threads(void)
{
    pthread_t a, b;
    void *ra = (void *)2, *rb = (void *)2;
    CHECK(pthread_create(&a, NULL, publisher, (void *)0) == 0);
    CHECK(pthread_create(&b, NULL, publisher, (void *)1) == 0);
    pthread_join(a, &ra);
    pthread_join(b, &rb);
    CHECK(ra == NULL && rb == NULL);
    flt_lit got;
    uint64_t ver;
    CHECK(flt_dyn_load(&race_bound, FLT_DOM_I64, &got, &ver) && got.i == 39999);
    CHECK(ver >= 20000 && ver <= 40000);
}

/* flt_prune_group on a row group of chunks per schema column (a, s, u, d, dec, f, k). */
static flt_prune group(const char *text, const pq_chunk_meta *chunks)
{
    flt_expr *ex = NULL;
    pq_err e = {0};
    if (flt_parse(text, schema, NCOLS, &ex, &e)) fprintf(stderr, "  parse %s: %s\n", text, e.msg);
    CHECK(ex && ex->npreds == 1);
    flt_prune r = ex ? flt_prune_group(&ex->preds[0], chunks) : FLT_CAN_MATCH;
    flt_expr_free(ex);
    return r;
}

#define EXPECT_GROUP(text, chunks, want)                                                \
    do {                                                                                \
        flt_prune r_ = group(text, chunks);                                             \
        if (r_ != (want)) fprintf(stderr, "  %s: got %d want %d\n", text, r_, want);     \
        CHECK(r_ == (want));                                                            \
    } while (0)

/* Multi-column predicates: an OR is ruled out only when every item is; a comparison of two
 * columns from both min/max (integers of mixed widths compare as int64; never on floats). */
static void multi_column_groups(void)
{
    uint8_t ba[8], bu[8];
    int64_t kmm[2] = {30, 40};
    pq_chunk_meta c[NCOLS] = {0};
    c[0].stats = i32_stats(10, 20, 0, ba), c[0].num_values = 100;
    c[2].stats = i32_stats(5, 5, 0, bu), c[2].num_values = 100;
    c[6].stats = (pq_stats){.has_min_max = true, .usable = true, .has_null_count = true,
                            .min = (uint8_t *)&kmm[0], .max = (uint8_t *)&kmm[1], .min_len = 8,
                            .max_len = 8};
    c[6].num_values = 100;
    EXPECT_GROUP("a > 30 OR k < 30", c, FLT_CANNOT_MATCH);
    EXPECT_GROUP("a > 30 OR k <= 30", c, FLT_CAN_MATCH);
    EXPECT_GROUP("a > 30 OR k > 0", c, FLT_ALL_MATCH); /* one item passes every row */
    EXPECT_GROUP("a >= k", c, FLT_CANNOT_MATCH);     /* max a 20 < min k 30 */
    EXPECT_GROUP("a > k", c, FLT_CANNOT_MATCH);
    EXPECT_GROUP("a = k", c, FLT_CANNOT_MATCH);
    EXPECT_GROUP("a < k", c, FLT_CAN_MATCH);         /* never ALL: a null would fail */
    EXPECT_GROUP("k <= a", c, FLT_CANNOT_MATCH);
    EXPECT_GROUP("a != k", c, FLT_CAN_MATCH);
    EXPECT_GROUP("u != u", c, FLT_CANNOT_MATCH);     /* one value on both sides */
    EXPECT_GROUP("u > a OR a > 25", c, FLT_CANNOT_MATCH); /* max u 5 <= min a 10 */
    EXPECT_GROUP("u < a", c, FLT_CAN_MATCH);
    EXPECT_GROUP("d > f", c, FLT_CAN_MATCH);         /* no statistics: never ruled out */
    EXPECT_GROUP("a > 30", c, FLT_CANNOT_MATCH);     /* single-column: as flt_prune_stats */
}

int main(void)
{
    RUN(int_truth_table);
    RUN(multi_column_groups);
    RUN(dynamic_nan_nulls);
    RUN(bytes_truncated_bounds);
    RUN(float_nan_rules);
    RUN(decimal_flba);
    RUN(estimate);
    RUN(page_index);
    RUN(bloom);
    RUN(dynamic_bounds);
    RUN(dynamic_bound_threads);
    return CHECK_DONE("test_filter_prune");
}
