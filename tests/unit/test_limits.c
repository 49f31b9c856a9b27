/* tests for the configurable caps (pq_meta_limits, pq_col_limits, per-scan decompressed
 * bytes): each one, set below what a small generated file needs, makes open or scan fail with
 * RINGSCAN_ELIMIT and a message that names the limit, with the byte offset (and the column for
 * page limits); the same file passes under the defaults. The file name is the caller's to add
 * (the CLI and the public API prefix the path). */
#include <unistd.h>

#include "check.h"
#include "hardening_util.h"

static char path[128];

static int open_with(const pq_meta_limits *l, pqf_t **f, pq_err *e)
{
    memset(e, 0, sizeof *e);
    e->offset = -1;
    return pqf_open(f, path, l, e);
}

static void meta_limit(const char *name, void (*set)(pq_meta_limits *))
{
    pq_meta_limits l;
    pq_meta_limits_default(&l);
    set(&l);
    pqf_t *f = NULL;
    pq_err e;
    int rc = open_with(&l, &f, &e);
    CHECK_EQ_I64(rc, RINGSCAN_ELIMIT);
    CHECK(strstr(e.msg, name) != NULL);
    CHECK(e.offset > 0);
    if (!strstr(e.msg, name)) fprintf(stderr, "  %s: message \"%s\"\n", name, e.msg);
    pqf_close(f);
}

static void set_meta_bytes(pq_meta_limits *l) { l->max_meta_bytes = 64; }
static void set_columns(pq_meta_limits *l) { l->max_columns = 3; }
static void set_row_groups(pq_meta_limits *l) { l->max_row_groups = 2; }
static void set_thrift_depth(pq_meta_limits *l) { l->max_thrift_depth = 2; }

static void test_defaults_pass(void)
{
    pqf_t *f = NULL;
    pq_err e;
    CHECK_EQ_I64(open_with(NULL, &f, &e), 0);
    if (!f) return;
    int proj[HU_NCOLS] = {0, 1, 2, 3, 4};
    scan_opts o;
    scan_opts_default(&o);
    hu_result r;
    hu_scan(f, proj, HU_NCOLS, NULL, &o, &r);
    CHECK_EQ_I64(r.status, 0);
    CHECK_EQ_I64(r.rows, 3000);
    pqf_close(f);
}

static void test_meta_bytes(void) { meta_limit("max_meta_bytes", set_meta_bytes); }
static void test_columns(void) { meta_limit("max_columns", set_columns); }
static void test_row_groups(void) { meta_limit("max_row_groups", set_row_groups); }
static void test_thrift_depth(void) { meta_limit("max_thrift_depth", set_thrift_depth); }

/* A scan with one column limit lowered: ELIMIT naming it, an offset inside the file and the
 * column. */
static void col_limit(const char *name, void (*set)(pq_col_limits *), int threads)
{
    pqf_t *f = NULL;
    pq_err e;
    CHECK_EQ_I64(open_with(NULL, &f, &e), 0);
    if (!f) return;
    int proj[HU_NCOLS] = {0, 1, 2, 3, 4};
    scan_opts o;
    scan_opts_default(&o);
    o.threads = threads;
    set(&o.col_limits);
    hu_result r;
    hu_scan(f, proj, HU_NCOLS, NULL, &o, &r);
    CHECK_EQ_I64(r.status, RINGSCAN_ELIMIT);
    CHECK(strstr(r.err.msg, name) != NULL);
    CHECK(r.err.offset >= 4 && (uint64_t)r.err.offset < f->file->size_bytes);
    CHECK(r.err.column[0] != 0);
    if (!strstr(r.err.msg, name)) fprintf(stderr, "  %s: message \"%s\"\n", name, r.err.msg);
    /* the synchronous reader applies the same limits */
    if (strcmp(name, "max_scan_decompressed_bytes") != 0) {
        pq_vec v;
        pq_vec_init(&v, PQ_BYTE_ARRAY, 0);
        pq_err e2 = {.offset = -1};
        int rc = 0;
        for (int rg = 0; rc == 0 && rg < f->meta.nrow_groups; rg++) {
            pq_vec_clear(&v);
            rc = pqf_read_column(f, rg, 2, &o.col_limits, &v, &e2);
        }
        CHECK_EQ_I64(rc, RINGSCAN_ELIMIT);
        CHECK(strstr(e2.msg, name) != NULL || strstr(e2.msg, "max_page_bytes") != NULL);
        pq_vec_free(&v);
    }
    pqf_close(f);
}

static void set_page_bytes(pq_col_limits *l) { l->max_page_bytes = 100; }
static void set_page_values(pq_col_limits *l) { l->max_page_values = 50; }
static void set_dict_values(pq_col_limits *l) { l->max_dict_values = 10; }
static void set_decompressed(pq_col_limits *l) { l->max_decompressed_bytes = 2000; }
static void set_scan_decompressed(pq_col_limits *l) { l->max_scan_decompressed_bytes = 20000; }

static void test_page_bytes(void) { col_limit("max_page_bytes", set_page_bytes, 1); }
static void test_page_values(void) { col_limit("max_page_values", set_page_values, 2); }
static void test_dict_values(void) { col_limit("max_dict_values", set_dict_values, 1); }
static void test_decompressed(void) { col_limit("max_decompressed_bytes", set_decompressed, 2); }

static void test_scan_decompressed(void)
{
    /* each reader stays under its own cap; the scan as a whole (2 cores) goes over */
    col_limit("max_scan_decompressed_bytes", set_scan_decompressed, 2);
}

static void test_budget_is_a_throttle(void)
{
    /* io_opts.budget_bytes (total bytes in flight + buffered) holds reads back but never
     * fails or deadlocks a scan: a budget of 1 byte still gives the exact result */
    pqf_t *f = NULL;
    pq_err e;
    CHECK_EQ_I64(open_with(NULL, &f, &e), 0);
    if (!f) return;
    int proj[HU_NCOLS] = {0, 1, 2, 3, 4};
    scan_opts o;
    scan_opts_default(&o);
    hu_result ref, got;
    hu_scan(f, proj, HU_NCOLS, "a < 700", &o, &ref);
    for (int pol = 0; pol < 3; pol++) {
        o.policy = (scan_policy)pol;
        o.io_opts.budget_bytes = 1;
        hu_scan(f, proj, HU_NCOLS, "a < 700", &o, &got);
        CHECK_EQ_I64(got.status, 0);
        CHECK_EQ_I64(got.rows, ref.rows);
        CHECK(got.sum == ref.sum);
    }
    pqf_close(f);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/ringscan_limits_%d.parquet", (int)getpid());
    hu_file_opts fo = {.rows = 3000, .row_group_rows = 1000, .page_rows = 200,
                       .codec = PQ_CODEC_ZSTD, .page_index = true, .dictionary = true};
    if (hu_write(path, &fo) != 0) return 1;
    RUN(test_defaults_pass);
    RUN(test_meta_bytes);
    RUN(test_columns);
    RUN(test_row_groups);
    RUN(test_thrift_depth);
    RUN(test_page_bytes);
    RUN(test_page_values);
    RUN(test_dict_values);
    RUN(test_decompressed);
    RUN(test_scan_decompressed);
    RUN(test_budget_is_a_throttle);
    unlink(path);
    return CHECK_DONE("test_limits");
}
