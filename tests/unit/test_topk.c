/* Top-K scans (scan/topk.h) against a brute-force sort: random files (row-group and page
 * sizes, nulls, NaN, +-0.0, duplicates at the K-th value, a layout whose groups fall so the
 * bound prunes), random ORDER BY lists (1-3 keys, ASC/DESC, NULLS FIRST/LAST), K of 0, 1,
 * some and more than the rows, with and without a filter, every policy, 1 and 2 threads,
 * cut and uncut row groups. The answer is compared row by row (the id column), so ties must
 * fall in file order exactly. The reference comparison below is written apart from
 * filter/sortkey.c on purpose. RINGSCAN_TEST_SEED=N replays one seed. */
#include <math.h>

#include "check.h"
#include "filter/expr.h"
#include "scan/scan_impl.h"
#include "test_scan_common.h"

enum { C_ID, C_A, C_D, C_S, C_F, NCOLS };

typedef struct table {
    int64_t rows;
    int64_t *id, *a;
    double *d;
    char (*s)[8];
    int32_t *f;
    bool *a_null, *d_null, *s_null;
} table;

typedef struct query {
    int nkeys;
    scan_order_key keys[3];
    int64_t k;
    int32_t f_below; /* filter f < f_below; 0 = no filter */
} query;

static uint64_t cur_seed;

static void gen_table(table *t, bool falling)
{
    t->rows = ts_range(1, 6000);
    t->id = calloc((size_t)t->rows, 8), t->a = calloc((size_t)t->rows, 8);
    t->d = calloc((size_t)t->rows, 8), t->s = calloc((size_t)t->rows, 8);
    t->f = calloc((size_t)t->rows, 4);
    t->a_null = calloc((size_t)t->rows, 1), t->d_null = calloc((size_t)t->rows, 1);
    t->s_null = calloc((size_t)t->rows, 1);
    int64_t spread = ts_range(1, 50); /* small: many duplicates */
    static const int null_pct[] = {0, 10, 60, 95};
    int an = null_pct[ts_rnd() % 4], dn = null_pct[ts_rnd() % 4];
    for (int64_t r = 0; r < t->rows; r++) {
        t->id[r] = r;
        t->a[r] = falling ? (t->rows - r) / 7 : ts_range(-spread, spread);
        t->a_null[r] = (int)(ts_rnd() % 100) < an;
        int64_t x = ts_range(0, 40);
        t->d[r] = x == 0 ? NAN : x == 1 ? -0.0 : x == 2 ? 0.0 : (double)ts_range(-20, 20) / 4;
        t->d_null[r] = (int)(ts_rnd() % 100) < dn;
        int n = (int)ts_range(0, 3);
        for (int i = 0; i < n; i++) t->s[r][i] = (char)('a' + ts_range(0, 2));
        t->s_null[r] = ts_rnd() % 9 == 0;
        t->f[r] = (int32_t)ts_range(0, 99);
    }
}

static void table_free(table *t)
{
    free(t->id), free(t->a), free(t->d), free(t->s), free(t->f);
    free(t->a_null), free(t->d_null), free(t->s_null);
}

static int write_table(const table *t, const char *path, const pq_writer_opts *o)
{
    pq_column_desc sch[NCOLS] = {
        ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
        ts_desc("a", PQ_INT64, 0, true, PQ_LOGICAL_NONE),
        ts_desc("d", PQ_DOUBLE, 0, true, PQ_LOGICAL_NONE),
        ts_desc("s", PQ_BYTE_ARRAY, 0, true, PQ_LOGICAL_STRING),
        ts_desc("f", PQ_INT32, 0, false, PQ_LOGICAL_NONE),
    };
    pq_vec v[NCOLS];
    ts_vec_new(&v[C_ID], PQ_INT64, 0, t->rows, 0);
    ts_vec_new(&v[C_A], PQ_INT64, 0, t->rows, 0);
    ts_vec_new(&v[C_D], PQ_DOUBLE, 0, t->rows, 0);
    ts_vec_new(&v[C_S], PQ_BYTE_ARRAY, 0, t->rows, t->rows * 8);
    ts_vec_new(&v[C_F], PQ_INT32, 0, t->rows, 0);
    for (int64_t r = 0; r < t->rows; r++) {
        ts_put_fixed(&v[C_ID], &t->id[r], false);
        ts_put_fixed(&v[C_A], &t->a[r], t->a_null[r]);
        ts_put_fixed(&v[C_D], &t->d[r], t->d_null[r]);
        ts_put_bytes(&v[C_S], (const uint8_t *)t->s[r], (int32_t)strlen(t->s[r]), t->s_null[r]);
        ts_put_fixed(&v[C_F], &t->f[r], false);
    }
    int rc = ts_write(path, sch, NCOLS, v, t->rows, o);
    for (int c = 0; c < NCOLS; c++) pq_vec_free(&v[c]);
    return rc;
}

/* ---- the reference order --------------------------------------------------------------- */

static const table *ref_t;
static const query *ref_q;

static int sign(double x) { return x < 0 ? -1 : x > 0; }

/* Ascending value order of rows x, y on column c (both valid); NaN above every number. */
static int value_cmp(int c, int64_t x, int64_t y)
{
    const table *t = ref_t;
    switch (c) {
    case C_ID: return sign((double)(t->id[x] - t->id[y]));
    case C_A: return t->a[x] < t->a[y] ? -1 : t->a[x] > t->a[y];
    case C_F: return sign((double)t->f[x] - (double)t->f[y]);
    case C_D: {
        bool nx = isnan(t->d[x]), ny = isnan(t->d[y]);
        if (nx || ny) return nx - ny;
        return sign(t->d[x] - t->d[y]);
    }
    default: return sign(strcmp(t->s[x], t->s[y]));
    }
}

static bool is_null(int c, int64_t r)
{
    return c == C_A ? ref_t->a_null[r] : c == C_D ? ref_t->d_null[r] : c == C_S ? ref_t->s_null[r] : false;
}

static int ref_cmp(const void *pa, const void *pb)
{
    int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
    for (int j = 0; j < ref_q->nkeys; j++) {
        const scan_order_key *k = &ref_q->keys[j];
        bool nx = is_null(k->col, x), ny = is_null(k->col, y);
        int c;
        if (nx || ny) c = nx == ny ? 0 : (nx == k->nulls_first ? -1 : 1);
        else c = k->desc ? -value_cmp(k->col, x, y) : value_cmp(k->col, x, y);
        if (c) return c;
    }
    return x < y ? -1 : x > y;
}

/* The expected ids in order; returns their count. */
static int64_t expected(const table *t, const query *q, int64_t *out)
{
    int64_t n = 0;
    for (int64_t r = 0; r < t->rows; r++)
        if (!q->f_below || t->f[r] < q->f_below) out[n++] = r;
    ref_t = t, ref_q = q;
    qsort(out, (size_t)n, sizeof *out, ref_cmp);
    return n < q->k ? n : q->k;
}

/* ---- running ------------------------------------------------------------------------- */

static void describe(const query *q, const scan_opts *o)
{
    static const char *names[NCOLS] = {"id", "a", "d", "s", "f"};
    fprintf(stderr, "  seed %llu (RINGSCAN_TEST_SEED=%llu): k=%lld where f < %d policy=%d "
            "threads=%d split_rows=%lld order by", (unsigned long long)cur_seed,
            (unsigned long long)cur_seed, (long long)q->k, q->f_below, o->policy, o->threads,
            (long long)o->split_rows);
    for (int j = 0; j < q->nkeys; j++)
        fprintf(stderr, " %s %s nulls %s,", names[q->keys[j].col], q->keys[j].desc ? "desc" : "asc",
                q->keys[j].nulls_first ? "first" : "last");
    fputc('\n', stderr);
}

/* Scans with q under o; true when the ids equal exp[0..nexp) in order. */
static bool run_one(pqf_t *f, const query *q, scan_opts o, const int64_t *exp, int64_t nexp,
                    scan_stats *st)
{
    o.limit = q->k == INT64_MAX ? -1 : q->k;
    o.nkeys = q->nkeys;
    memcpy(o.keys, q->keys, sizeof q->keys);
    flt_expr *ex = NULL;
    pq_err e = {.offset = -1};
    char text[64];
    snprintf(text, sizeof text, "f < %d", q->f_below);
    if (q->f_below && flt_parse(text, f->meta.columns, f->meta.ncolumns, &ex, &e)) return false;
    int proj[2] = {C_ID, C_S};
    scan_t *s = NULL;
    if (scan_start(f, proj, 2, ex, &o, &s, &e)) {
        fprintf(stderr, "  scan_start: %s\n", e.msg);
        return false;
    }
    scan_batch b;
    int rc;
    int64_t got = 0;
    bool ok = true;
    while ((rc = scan_next(s, &b, &e)) == 1) {
        ok = ok && b.ncols == 2 && b.cols[0].length == b.rows;
        for (int64_t i = 0; ok && i < b.rows; i++, got++)
            ok = got < nexp && ((const int64_t *)b.cols[0].values)[i] == exp[got];
        scan_batch_free(&b);
    }
    scan_get_stats(s, st);
    scan_free(s);
    ok = ok && rc == 0 && got == nexp && st->rows_out == nexp;
    if (!ok) {
        fprintf(stderr, "  mismatch at row %lld of %lld (rc %d)\n", (long long)got, (long long)nexp, rc);
        describe(q, &o);
    }
    return ok;
}

static void gen_query(const table *t, query *q)
{
    static const int64_t ks[] = {0, 1, 7, 40};
    q->nkeys = (int)ts_range(1, 3);
    for (int j = 0; j < q->nkeys; j++)
        q->keys[j] = (scan_order_key){.col = (int)ts_range(C_A, C_F), .desc = ts_rnd() % 2,
                                      .nulls_first = ts_rnd() % 3 == 0};
    int pick = (int)ts_range(0, 5);
    q->k = pick < 4 ? ks[pick] : pick == 4 ? t->rows + 5 : INT64_MAX;
    q->f_below = ts_rnd() % 2 ? (int32_t)ts_range(1, 100) : 0;
}

static bool one_seed(uint64_t seed, int queries)
{
    ts_rng = seed * 0x2545f4914f6cdd1dull + 7;
    cur_seed = seed;
    table t;
    gen_table(&t, seed % 3 == 0);
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = ts_rnd() % 2 ? ts_range(3, 60) : ts_range(50, 2000);
    wo.page_rows = ts_range(10, 400);
    wo.page_index = ts_rnd() % 4 != 0;
    wo.dictionary = ts_rnd() % 3 != 0;
    char path[256];
    ts_path(path, sizeof path, "topk.parquet");
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    bool ok = write_table(&t, path, &wo) == 0 && pqf_open(&f, path, NULL, &e) == 0;
    int64_t *exp = malloc(sizeof *exp * (size_t)t.rows);
    for (int qi = 0; ok && qi < queries; qi++) {
        query q;
        gen_query(&t, &q);
        int64_t nexp = expected(&t, &q, exp);
        scan_opts o;
        scan_opts_default(&o);
        o.split_rows = ts_rnd() % 2 ? ts_range(16, 600) : 0;
        for (int pol = 0; ok && pol < 3; pol++)
            for (int th = 1; ok && th <= 2; th++) {
                o.policy = (scan_policy)pol, o.threads = th;
                scan_stats st;
                ok = run_one(f, &q, o, exp, nexp, &st);
                ok = ok && st.topk_rows_kept >= nexp;
            }
    }
    free(exp);
    pqf_close(f);
    table_free(&t);
    return ok;
}

static void property(void)
{
    const char *one = getenv("RINGSCAN_TEST_SEED");
    if (one) {
        CHECK(one_seed(strtoull(one, NULL, 10), 12));
        return;
    }
    for (uint64_t seed = 1; seed <= 24; seed++) CHECK(one_seed(seed, 6));
}

/* The falling layout (each row group's values at or below the previous one's), ORDER BY a
 * DESC LIMIT 5 on one thread. No filter: the bound seeded from statistics (group 0's minimum,
 * whose 100 rows reach it) prunes at planning exactly the groups whose maximum is below it;
 * with seeding off (topk_no_seed) none is pruned at planning and the published bound ends
 * them unread instead. A
 * filter statistics cannot prove (f < 50): nothing is seeded, and once the first splits
 * published, later groups end from their statistics unread. */
static void falling_prunes(void)
{
    ts_rng = 99;
    cur_seed = 0;
    table t;
    gen_table(&t, true);
    while (t.rows < 4000) table_free(&t), gen_table(&t, true);
    for (int64_t r = 0; r < t.rows; r++) t.a_null[r] = false;
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = 100;
    char path[256];
    ts_path(path, sizeof path, "falling.parquet");
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK(write_table(&t, path, &wo) == 0 && pqf_open(&f, path, NULL, &e) == 0);
    int64_t groups = (t.rows + 99) / 100, below = 0;
    for (int64_t g = 1; g < groups; g++) below += t.a[g * 100] < t.a[99]; /* max of g, min of 0 */
    query q = {.nkeys = 1, .keys = {{.col = C_A, .desc = true}}, .k = 5};
    int64_t *exp = malloc(sizeof *exp * (size_t)t.rows);
    int64_t nexp = expected(&t, &q, exp);
    scan_opts o;
    scan_opts_default(&o);
    o.threads = 1;
    scan_stats st;
    CHECK(f && run_one(f, &q, o, exp, nexp, &st));
    CHECK_EQ_I64(st.row_groups_pruned, below);
    CHECK(below >= groups - 2);
    o.topk_no_seed = true; /* no seed: nothing pruned at planning, the bound ends them later */
    CHECK(f && run_one(f, &q, o, exp, nexp, &st));
    CHECK_EQ_I64(st.row_groups_pruned, 0);
    CHECK(st.topk_splits_dead >= groups - 2 * SCAN_TASKS_PER_CORE);
    o.topk_no_seed = false;
    q.f_below = 50;
    nexp = expected(&t, &q, exp);
    CHECK(f && run_one(f, &q, o, exp, nexp, &st));
    int64_t no_f = 0; /* groups the filter itself prunes: no f below 50 */
    for (int64_t g = 0; g < groups; g++) {
        bool any = false;
        for (int64_t r = g * 100; r < t.rows && r < g * 100 + 100; r++) any = any || t.f[r] < 50;
        no_f += !any;
    }
    CHECK_EQ_I64(st.row_groups_pruned, no_f);
    CHECK(st.topk_splits_dead >= groups - 2 * SCAN_TASKS_PER_CORE);
    CHECK(st.topk_rows_kept <= 5 * 2 * SCAN_TASKS_PER_CORE);
    free(exp);
    pqf_close(f);
    table_free(&t);
}

/* One row group of the falling layout cut into splits, no seed, a filter that keeps every
 * row (so nothing is pruned at planning): the first split's bound rules out every page of
 * the later splits, which end at their start or at their next chain step (their pages'
 * reads dropped), with the answer unchanged. */
static void falling_pages(void)
{
    ts_rng = 7;
    cur_seed = 0;
    table t;
    gen_table(&t, true);
    while (t.rows < 4000) table_free(&t), gen_table(&t, true);
    for (int64_t r = 0; r < t.rows; r++) t.a_null[r] = false, t.f[r] = 0;
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = t.rows, wo.page_rows = 50, wo.page_index = true;
    char path[256];
    ts_path(path, sizeof path, "falling_one.parquet");
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK(write_table(&t, path, &wo) == 0 && pqf_open(&f, path, NULL, &e) == 0);
    query q = {.nkeys = 1, .keys = {{.col = C_A, .desc = true}}, .k = 5, .f_below = 1};
    int64_t *exp = malloc(sizeof *exp * (size_t)t.rows);
    int64_t nexp = expected(&t, &q, exp);
    scan_opts o;
    scan_opts_default(&o);
    o.topk_no_seed = true, o.split_rows = 200;
    for (int threads = 1; threads <= 2; threads++) {
        o.threads = threads;
        scan_stats st;
        CHECK(f && run_one(f, &q, o, exp, nexp, &st));
        int64_t splits = st.splits, running = (int64_t)threads * SCAN_TASKS_PER_CORE;
        CHECK(splits >= t.rows / 200 / 2 && st.row_groups_pruned == 0 && st.pages_pruned == 0);
        /* every split that started after the first published is dead from its pages */
        CHECK(st.topk_splits_dead >= splits - running);
        CHECK(st.topk_pages_dead >= st.topk_splits_dead);
        CHECK(st.rows_scanned <= running * (t.rows / (splits - 1) + 1));
    }
    free(exp);
    pqf_close(f);
    table_free(&t);
}

int main(void)
{
    ts_dir_init();
    RUN(property);
    RUN(falling_prunes);
    RUN(falling_pages);
    ts_dir_remove();
    return CHECK_DONE("test_topk");
}
