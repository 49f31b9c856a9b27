/* tests for filter/vexpr_imply.c: the single-column bounds a comparison of value expressions
 * implies from its columns' spans, exact at their edges (equality at the bound, negative
 * factors, subtraction, division in doubles, CAST's rounding, decimals of two scales), none
 * through a float column or an overflowing step, and flt_expr_add_implied over a file's row
 * groups (a group without statistics or with min > max implies nothing). Each expected bound
 * is the exact one: a bound one step looser or tighter fails the case. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "filter/vexpr.h"

static const pq_column_desc schema[] = {
    {.name = "p", .physical = PQ_INT64, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 2, .decimal_precision = 15},
    {.name = "disc", .physical = PQ_INT64, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 2, .decimal_precision = 15},
    {.name = "tax", .physical = PQ_INT64, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 2, .decimal_precision = 15},
    {.name = "q", .physical = PQ_INT64, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 2, .decimal_precision = 15},
    {.name = "n", .physical = PQ_INT32},
    {.name = "k", .physical = PQ_INT64},
    {.name = "j", .physical = PQ_INT32},
    {.name = "dfl", .physical = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 6, .logical = PQ_LOGICAL_DECIMAL, .decimal_scale = 3, .decimal_precision = 12},
    {.name = "d", .physical = PQ_DOUBLE},
};
enum { NCOLS = sizeof schema / sizeof *schema };

#include "filter_check.h"

/* Spans by schema column (TPC-H's lineitem for p, disc, tax, q, n). */
static const flt_vspan spans[NCOLS] = {
    {true, 90400, 10489950}, {true, 0, 10}, {true, 0, 8}, {true, 100, 5000}, {true, 1, 7},
    {true, -100, 100},       {true, 1, 3},  {true, 0, 2000}, {false, 0, 0},
};

/* The bound text's one comparison implies on schema column col: 1 and *t, 0 none, -1 when
 * text is not one comparison of value expressions over col. */
static int bound(const char *text, int32_t col, bool above, __int128 *t)
{
    flt_expr *ex = parse_ok(text);
    int got = -1;
    const flt_multi *m = ex && ex->npreds == 1 ? ex->preds[0].multi : NULL;
    if (m && m->nitems == 1 && m->items[0].is_cmp && m->items[0].cmp.vl) {
        flt_vspan sp[FLT_MAX_MULTI_COLS];
        int32_t slot = -1;
        for (int32_t i = 0; i < m->ncols; i++) {
            sp[i] = spans[m->cols[i]];
            if (m->cols[i] == col) slot = i;
        }
        const flt_cmp *c = &m->items[0].cmp;
        if (slot >= 0) got = flt_v_implied_bound(c->op, c->vl, c->vr, sp, slot, above, t);
        for (int32_t i = 0; slot >= 0 && i < m->ncols; i++) /* restored */
            CHECK(sp[i].lo == spans[m->cols[i]].lo && sp[i].hi == spans[m->cols[i]].hi);
    }
    flt_expr_free(ex);
    return got;
}

static void bounds(void)
{
    static const struct { const char *text; int32_t col; bool above; int found; int64_t t; } cases[] = {
        /* expr_arith: price * 1 * 1.08 > 100000 needs price > 92592.59 (92592.60 * 1.08 >) */
        {"p * (1 - disc) * (1 + tax) > 100000", 0, true, 1, 9259259},
        {"p * (1 - disc) * (1 + tax) > 100000", 0, false, 0, 0},
        {"p * (1 - disc) * (1 + tax) > 100000", 1, true, 0, 0}, /* disc < 0.1173: not in span */
        {"p * (1 - disc) * (1 + tax) > 100000", 1, false, 0, 0},
        {"p * (1 - disc) * (1 + tax) > 100000", 2, true, 0, 0},
        {"100000 < p * (1 - disc) * (1 + tax)", 0, true, 1, 9259259}, /* mirrored */
        {"p * (1 - disc) * (1 + tax) <= 1000", 0, false, 1, 111112}, /* p < 1111.12: 1111.11 * 0.9 <= 1000 */
        /* CAST(q AS INTEGER) rounds half away: 45.50 -> 46, 46 * 2 - 1 > 90 */
        {"CAST(q AS INTEGER) * 2 - n > 90", 3, true, 1, 4549},
        {"CAST(q AS INTEGER) * 2 - n > 90", 4, true, 0, 0},
        {"CAST(q AS INTEGER) * 2 - n > 90", 4, false, 0, 0}, /* n < 10: not in span */
        {"k * 2 >= 10", 5, true, 1, 4},  /* equality at the bound: k = 5 holds */
        {"k * 2 > 10", 5, true, 1, 5},
        {"k * 2 = 10", 5, true, 1, 4},
        {"k * 2 = 10", 5, false, 1, 6},
        {"k * (0 - j) > 10", 5, false, 1, -3}, /* k * j < -10: k <= -4 */
        {"k - j > 50", 5, true, 1, 51},
        {"k - j > 50", 6, false, 0, 0},     /* j < 50: the whole span */
        {"k - j >= 99", 6, false, 1, 2},    /* j <= 100 - 99 = 1 */
        {"k / 4 > 2.5", 5, true, 1, 10},    /* in doubles: 10 / 4 = 2.5 does not hold */
        {"k / j < -30", 5, false, 1, -30},  /* k / j < -30 needs k < -30 (j = 1) */
        {"q + dfl > 5", 3, true, 1, 300},   /* dfl <= 2.000: q > 3.00 */
        {"q + dfl > 5.0015", 3, true, 1, 300}, /* 3.00 + 2.000 = 5.000; 3.01 + 2.000 > 5.0015 */
        {"q + dfl > 5", 7, true, 0, 0},
        {"q * disc - dfl > 4", 7, false, 1, 1000}, /* 50.00 * 0.10 - dfl > 4: dfl < 1.000 */
        {"d * k > 10", 5, true, 0, 0},      /* a double column has no span */
        {"p * p * p * p > 0", 0, true, 0, 0}, /* p >= 904.00: every value may hold */
        /* p^6 passes 38 digits above p = 21544.34: those rows stay (their overflow is
         * reported), the ones below are proven false */
        {"p * p * p * p * p * p < 0", 0, true, 1, 2154434},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        __int128 t = 0;
        int got = bound(cases[i].text, cases[i].col, cases[i].above, &t);
        bool ok = got == cases[i].found && (got != 1 || t == cases[i].t);
        if (!ok)
            fprintf(stderr, "  %s (%s, %s): found %d, t %lld\n", cases[i].text,
                    schema[cases[i].col].name, cases[i].above ? "above" : "below", got, (long long)t);
        CHECK(ok);
    }
}

/* A file of two row groups: stats per column as int64 min/max (m[c][g][0..1]). */
enum { GROUPS = 2 };
static int64_t vals[NCOLS][GROUPS][2];
static uint8_t flba[GROUPS][2][6];
static pq_chunk_meta chunks[GROUPS][NCOLS];
static pq_row_group rgs[GROUPS];

static void file_stats(pq_file_meta *m)
{
    memset(m, 0, sizeof *m);
    for (int g = 0; g < GROUPS; g++) {
        for (int c = 0; c < NCOLS; c++) {
            pq_stats *s = &chunks[g][c].stats;
            *s = (pq_stats){.has_min_max = true, .min_exact = true, .max_exact = true, .usable = true};
            bool four = schema[c].physical == PQ_INT32, fl = schema[c].physical == PQ_FIXED_LEN_BYTE_ARRAY;
            s->min = fl ? flba[g][0] : (const uint8_t *)&vals[c][g][0];
            s->max = fl ? flba[g][1] : (const uint8_t *)&vals[c][g][1];
            s->min_len = s->max_len = fl ? 6 : four ? 4 : 8;
            if (four) { /* little-endian: the low half first */
                int32_t lo = (int32_t)vals[c][g][0], hi = (int32_t)vals[c][g][1];
                memcpy((void *)s->min, &lo, 4), memcpy((void *)s->max, &hi, 4);
            }
        }
        rgs[g] = (pq_row_group){.num_rows = 10, .chunks = chunks[g]};
    }
    m->ncolumns = NCOLS, m->columns = (pq_column_desc *)schema;
    m->nrow_groups = GROUPS, m->row_groups = rgs;
}

/* The implied predicates text gets on the file (printed, joined by "; "). */
static void implied(const char *text, const pq_file_meta *m, char *out, size_t cap)
{
    flt_expr *ex = parse_ok(text);
    pq_err e = {0};
    out[0] = 0;
    CHECK(ex && flt_expr_add_implied(ex, m, &e) == 0);
    for (int32_t k = 0; ex && k < ex->npreds; k++) {
        char buf[128];
        if (!ex->preds[k].implied) continue;
        CHECK(ex->preds[k].implied == 1 && !ex->preds[k].multi);
        flt_pred_print(&ex->preds[k], buf, sizeof buf);
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s%s", len ? "; " : "", buf);
    }
    flt_expr_free(ex);
}

static void add_implied(void)
{
    static const int64_t span[5][GROUPS][2] = {
        {{90400, 5000000}, {100000, 10489950}}, {{0, 5}, {3, 10}}, {{0, 8}, {1, 4}},
        {{100, 5000}, {100, 4900}}, {{1, 7}, {1, 4}},
    };
    memcpy(vals, span, sizeof span);
    pq_file_meta m;
    char got[512];
    file_stats(&m);
    implied("p * (1 - disc) * (1 + tax) > 100000", &m, got, sizeof got);
    CHECK_STR(got, "p > 92592.59");
    implied("CAST(q AS INTEGER) * 2 - n > 90 AND p > 0", &m, got, sizeof got);
    CHECK_STR(got, "q > 45.49");
    implied("p * (1 - disc) > 100000 OR q > 1", &m, got, sizeof got); /* an OR: none */
    CHECK_STR(got, "");
    chunks[1][2].stats.has_min_max = false; /* tax unknown in one group: nothing on p */
    implied("p * (1 - disc) * (1 + tax) > 100000", &m, got, sizeof got);
    CHECK_STR(got, "");
    file_stats(&m);
    vals[2][1][0] = 9, vals[2][1][1] = 4; /* min > max */
    implied("p * (1 - disc) * (1 + tax) > 100000", &m, got, sizeof got);
    CHECK_STR(got, "");
    vals[2][1][0] = 1, vals[2][1][1] = 4;
    chunks[0][3].stats_pending = true; /* not decoded: absent */
    implied("CAST(q AS INTEGER) * 2 - n > 90", &m, got, sizeof got);
    CHECK_STR(got, "");
    chunks[0][3].stats_pending = false;
    implied("k - j < 0 - 50", &m, got, sizeof got); /* k, j spans: 0 .. 0 -> nothing holds */
    CHECK_STR(got, "");
}

int main(void)
{
    (void)parse_err; /* (filter_check.h's; no error is tested here) */
    RUN(bounds);
    RUN(add_implied);
    return CHECK_DONE("test_filter_imply");
}
