/* tests for a dataset's files run as one scan on one runtime (scan/scan_rt.h) through the
 * public API: 60 files of 50 rows (id = file * 50 + row), read on two threads: every row in
 * path order with one runtime counted, a limit mid-dataset, the scan freed after each number
 * of batches from 0 to 59 (files running or leaving the runtime when it ends), a footer window
 * of 2 files, a broken file in the middle named in the error, and the footers counted in the
 * dataset's one fetch budget. */
#include "check.h"
#include "ringscan.h"
#include "test_scan_common.h"

enum { NFILES = 60, PER_FILE = 50, ROWS = NFILES * PER_FILE };

static char dir[256];
static int64_t budget = -1; /* options.fetch_budget_bytes of run() (-1: the default) */

static int write_file(int k)
{
    char p[320];
    snprintf(p, sizeof p, "%s/f%03d.parquet", dir, k);
    pq_column_desc sch[1] = {ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v;
    ts_vec_new(&v, PQ_INT64, 0, PER_FILE, 0);
    for (int64_t i = 0; i < PER_FILE; i++) {
        int64_t id = (int64_t)k * PER_FILE + i;
        ts_put_fixed(&v, &id, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    int rc = ts_write(p, sch, 1, &v, PER_FILE, &wo);
    pq_vec_free(&v);
    return rc;
}

typedef struct result {
    int64_t rows, batches;
    bool in_order;             /* id == its row's rank, for every row */
    ringscan_stats st;
    int rc;
    char msg[512];
} result;

/* Scans dir (threads 2) until the end, an error or stop_after batches (< 0: none). */
static void run(const char *path, int64_t limit, int max_open, int64_t stop_after, result *res)
{
    memset(res, 0, sizeof *res);
    res->in_order = true;
    ringscan_options o;
    ringscan_options_init(&o);
    o.threads = 2, o.limit = limit, o.max_open_files = max_open, o.fetch_budget_bytes = budget;
    ringscan_dataset *d = NULL;
    ringscan_scan *s = NULL;
    ringscan_error err = {0};
    const char *paths[1] = {path};
    res->rc = ringscan_dataset_open(paths, 1, &o, &d, &err);
    if (res->rc == 0) res->rc = ringscan_dataset_scan_start(d, &o, &s, &err);
    struct ArrowArray b;
    int rc = 0;
    while (res->rc == 0 && res->batches != stop_after && (rc = ringscan_scan_next(s, &b, &err)) == 1) {
        const int64_t *id = (const int64_t *)b.children[0]->buffers[1] + b.children[0]->offset;
        for (int64_t r = 0; r < b.length; r++, res->rows++) res->in_order &= id[r] == res->rows;
        res->batches++;
        b.release(&b);
    }
    if (res->rc == 0) res->rc = rc < 0 ? rc : 0;
    if (res->rc) snprintf(res->msg, sizeof res->msg, "%s", err.message);
    ringscan_scan_stats(s, &res->st);
    ringscan_scan_free(s);
    ringscan_dataset_close(d);
}

/* The whole dataset with a footer window of max_open (0: the default): every row in order,
 * each footer read once. */
static void whole(int max_open, result *r)
{
    run(dir, -1, max_open, -1, r);
    CHECK_EQ_I64(r->rc, 0);
    CHECK_EQ_I64(r->rows, ROWS);
    CHECK(r->in_order);
    CHECK_EQ_I64(r->st.footers_read, NFILES);
}

static void every_row(void)
{
    result r;
    whole(0, &r);
    CHECK(r.st.complete);
    CHECK_EQ_I64(r.st.runtimes, 1); /* one runtime for 60 files (was one per file) */
    CHECK_EQ_I64(r.st.files, NFILES);
    CHECK_EQ_I64(r.st.rows_scanned, ROWS);
    CHECK(r.st.core_rows_max <= ROWS && r.st.core_rows_min <= r.st.core_rows_max);
}

static void limit_mid_dataset(void)
{
    static const int64_t limits[] = {1, 49, 50, 1234, ROWS - 1};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        result r;
        run(dir, limits[i], 0, -1, &r);
        CHECK_EQ_I64(r.rc, 0);
        CHECK_EQ_I64(r.rows, limits[i]);
        CHECK(r.in_order);
        CHECK_EQ_I64(r.st.rows_out, limits[i]);
    }
}

/* Freed after k batches: the files running, and those whose scans are leaving the runtime,
 * end with the dataset (no hang, no leak: the test's time limit and the sanitizer pass). */
static void freed_mid_dataset(void)
{
    for (int64_t k = 0; k < NFILES; k += 3) {
        result r;
        run(dir, -1, 0, k, &r);
        CHECK_EQ_I64(r.rc, 0);
        CHECK_EQ_I64(r.batches, k);
        CHECK(r.in_order);
    }
}

/* Footers read ahead in windows of max_open / 2 = 1 file: each read once. */
static void small_footer_window(void)
{
    result r;
    whole(2, &r);
}

/* The footers held count in the dataset's one fetch budget (scan/fetch_budget.c invariant
 * 6): their peak is in the budget's, every footer at once (a window of 64 holds all 60 from
 * the schema on) bounds the peak of windows of one, and without a budget nothing is counted. */
static void footers_in_budget(void)
{
    result all, one, none;
    whole(64, &all);
    whole(2, &one);
    CHECK(all.st.footer_bytes_peak > 0 && all.st.footer_bytes_peak <= all.st.budget_peak_bytes);
    CHECK(one.st.footer_bytes_peak > 0 && one.st.footer_bytes_peak <= all.st.footer_bytes_peak);
    CHECK(one.st.footer_bytes_peak < all.st.footer_bytes_peak); /* 60 footers never at once */
    budget = 0;
    whole(0, &none);
    budget = -1;
    CHECK_EQ_I64((int64_t)none.st.footer_bytes_peak, 0);
}

static void broken_file_named(void)
{
    char bad[320], cmd[800];
    snprintf(bad, sizeof bad, "%s/bad", ts_dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s'/*.parquet '%s'/", bad, dir, bad);
    CHECK(system(cmd) == 0);
    char p[400];
    snprintf(p, sizeof p, "%s/f031.parquet", bad);
    FILE *f = fopen(p, "r+b");
    CHECK(f != NULL);
    if (!f) return;
    fseek(f, -8, SEEK_END); /* the footer's length: past the start of the file */
    uint32_t huge = 1u << 30;
    fwrite(&huge, sizeof huge, 1, f);
    fclose(f);
    result r;
    run(bad, -1, 0, -1, &r);
    CHECK(r.rc < 0);
    CHECK(strstr(r.msg, "f031.parquet") != NULL);
    CHECK(r.rows <= 31 * PER_FILE && r.in_order); /* the files before it, in order */
}

int main(void)
{
    ts_dir_init();
    snprintf(dir, sizeof dir, "%s/ds", ts_dir);
    mkdir(dir, 0700);
    for (int k = 0; k < NFILES; k++)
        if (write_file(k) != 0) return 1;
    RUN(every_row);
    RUN(limit_mid_dataset);
    RUN(freed_mid_dataset);
    RUN(small_footer_window);
    RUN(footers_in_budget);
    RUN(broken_file_named);
    ts_dir_remove();
    return CHECK_DONE("test_dataset_rt");
}
