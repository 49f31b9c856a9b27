/* tests for datasets through the public API (ringscan_dataset_open, ringscan_dataset_scan_start,
 * ringscan_scan_column, the dataset counters): three hive files k=1..3, the second with a
 * wider v, the third without v, read with union_by_name. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "check.h"
#include "ringscan.h"
#include "test_scan_common.h"

enum { PER_FILE = 100 };

static char pat[256];

/* File k (1..3) of the dataset: id = (k - 1) * 100 + i, v = 2 * id (INT32, INT64, absent). */
static int write_part(int k)
{
    char d[256], p[300];
    snprintf(d, sizeof d, "%s/k=%d", ts_dir, k);
    mkdir(d, 0700);
    snprintf(p, sizeof p, "%s/part.parquet", d);
    pq_column_desc sch[2] = {ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("v", k == 1 ? PQ_INT32 : PQ_INT64, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v[2];
    ts_vec_new(&v[0], PQ_INT64, 0, PER_FILE, 0);
    ts_vec_new(&v[1], sch[1].physical, 0, PER_FILE, 0);
    for (int64_t i = 0; i < PER_FILE; i++) {
        int64_t id = (k - 1) * PER_FILE + i, x = 2 * id;
        int32_t x32 = (int32_t)x;
        ts_put_fixed(&v[0], &id, false);
        ts_put_fixed(&v[1], k == 1 ? (const void *)&x32 : (const void *)&x, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    int rc = ts_write(p, sch, k == 3 ? 1 : 2, v, PER_FILE, &wo);
    pq_vec_free(&v[0]), pq_vec_free(&v[1]);
    return rc;
}

typedef struct result {
    int64_t rows;
    int64_t id[400], v[400], k[400];
    bool v_null[400];
    ringscan_stats st;
    int rc;
    char msg[512];
} result;

static int64_t i64_at(const struct ArrowArray *a, int64_t r)
{
    return ((const int64_t *)a->buffers[1])[a->offset + r];
}

static bool is_null(const struct ArrowArray *a, int64_t r)
{
    const uint8_t *valid = a->buffers[0];
    return a->null_count > 0 && valid && !((valid[(a->offset + r) >> 3] >> ((a->offset + r) & 7)) & 1);
}

/* Scans the dataset projecting id, v, k with o's filter, limit and order. */
static void run(ringscan_options *o, result *res)
{
    static const char *cols[3] = {"id", "v", "k"};
    memset(res, 0, sizeof *res);
    o->columns = cols, o->ncolumns = 3;
    o->union_by_name = o->union_by_name || !o->filter || strcmp(o->filter, "plain") != 0;
    ringscan_dataset *d = NULL;
    ringscan_scan *s = NULL;
    ringscan_error err = {0};
    const char *paths[1] = {pat};
    res->rc = ringscan_dataset_open(paths, 1, o, &d, &err);
    if (res->rc == 0) res->rc = ringscan_dataset_scan_start(d, o, &s, &err);
    struct ArrowArray b;
    int rc = 0;
    while (res->rc == 0 && (rc = ringscan_scan_next(s, &b, &err)) == 1) {
        for (int64_t r = 0; r < b.length && res->rows < 400; r++, res->rows++) {
            res->id[res->rows] = i64_at(b.children[0], r);
            res->v[res->rows] = i64_at(b.children[1], r);
            res->v_null[res->rows] = is_null(b.children[1], r);
            res->k[res->rows] = i64_at(b.children[2], r);
        }
        b.release(&b);
    }
    if (res->rc == 0) res->rc = rc;
    if (res->rc) snprintf(res->msg, sizeof res->msg, "%s", err.message);
    ringscan_scan_stats(s, &res->st);
    ringscan_scan_free(s);
    ringscan_dataset_close(d);
}

static void every_row(void)
{
    ringscan_options o;
    ringscan_options_init(&o);
    result r;
    run(&o, &r);
    CHECK_EQ_I64(r.rc, 0);
    CHECK_EQ_I64(r.rows, 300);
    for (int64_t i = 0; i < r.rows; i++) { /* path order, then row order */
        CHECK(r.id[i] == i);
        CHECK(r.k[i] == i / PER_FILE + 1);
        CHECK(r.v_null[i] == (i >= 200));
        if (i < 200) CHECK(r.v[i] == 2 * i); /* INT32 in k=1, widened */
    }
    CHECK_EQ_I64(r.st.files, 3);
    CHECK_EQ_I64(r.st.files_pruned, 0);
    CHECK_EQ_I64(r.st.footers_read, 3);
    CHECK_EQ_I64(r.st.rows_out, 300);
}

static void pruning(void)
{
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter = "k = 2 AND id > 150";
    result r;
    run(&o, &r);
    CHECK_EQ_I64(r.rc, 0);
    CHECK_EQ_I64(r.rows, 49);
    CHECK(r.id[0] == 151 && r.k[0] == 2);
    CHECK_EQ_I64(r.st.files_pruned, 2);  /* by k, before their footers */
    CHECK_EQ_I64(r.st.footers_read, 1);
    o.filter = "v IS NULL";              /* the file without v; the others by statistics */
    run(&o, &r);
    CHECK_EQ_I64(r.rows, 100);
    CHECK(r.id[0] == 200 && r.v_null[0]);
    CHECK_EQ_I64(r.st.files_pruned, 2);
    CHECK_EQ_I64(r.st.footers_read, 3);
    o.filter = "k = 3";                  /* v is only in the pruned files: their footers are
                                            read for the schema (as DuckDB binds), not scanned */
    run(&o, &r);
    CHECK_EQ_I64(r.rc, 0);
    CHECK_EQ_I64(r.rows, 100);
    CHECK(r.id[0] == 200 && r.v_null[0] && r.v_null[99]);
    CHECK_EQ_I64(r.st.files_pruned, 2);
    CHECK_EQ_I64(r.st.footers_read, 3);
    o.filter = "v > 390";                /* nulls of the third file fail it */
    run(&o, &r);
    CHECK_EQ_I64(r.rows, 4);
    CHECK(r.id[0] == 196);
    o.filter = NULL;                     /* the same as a tree: pruned before footers too */
    ringscan_expr *k2[2] = {ringscan_expr_column("k"), ringscan_expr_int(2)};
    ringscan_expr *id[2] = {ringscan_expr_column("id"), ringscan_expr_int(150)};
    ringscan_expr *both[2] = {ringscan_expr_call(RINGSCAN_EXPR_EQ, 2, k2),
                              ringscan_expr_call(RINGSCAN_EXPR_GT, 2, id)};
    ringscan_expr *tree = ringscan_expr_call(RINGSCAN_EXPR_AND, 2, both);
    o.filter_expr = tree;
    run(&o, &r);
    CHECK_EQ_I64(r.rc, 0);
    CHECK_EQ_I64(r.rows, 49);
    CHECK_EQ_I64(r.st.files_pruned, 2);
    CHECK_EQ_I64(r.st.footers_read, 1);
    o.filter_expr = NULL;
    ringscan_expr_free(tree);
    o.filter = "k = 1 OR id = 250";      /* a clause ORing a partition with a column: per file */
    run(&o, &r);
    CHECK_EQ_I64(r.rc, 0);
    CHECK_EQ_I64(r.rows, 101);           /* every row of k=1, and id 250 of k=3 */
    CHECK(r.id[0] == 0 && r.id[99] == 99 && r.id[100] == 250);
    o.filter = "k < id";                 /* one comparison of a partition with a column */
    run(&o, &r);
    CHECK_EQ_I64(r.rc, RINGSCAN_EUNSUPPORTED);
    CHECK(strstr(r.msg, "partition") != NULL);
}

static void limit_and_order(void)
{
    ringscan_options o;
    ringscan_options_init(&o);
    o.limit = 150;
    o.ordered = true;
    result r;
    run(&o, &r);
    CHECK_EQ_I64(r.rows, 150);
    CHECK(r.id[149] == 149);
    CHECK_EQ_I64(r.st.rows_out, 150);
    o.limit = 5;
    o.order_by = "id DESC";
    run(&o, &r);
    CHECK_EQ_I64(r.rows, 5);
    CHECK(r.id[0] == 299 && r.id[4] == 295);
    o.order_by = "id";           /* one file at a time: the first file's bound (id <= 4)
                                    rules out the row groups of the next two unread */
    o.threads = 1;
    run(&o, &r);
    CHECK(r.rows == 5 && r.id[0] == 0 && r.id[4] == 4);
    CHECK_EQ_I64(r.st.row_groups_pruned, 2);
    o.threads = 2;
    o.limit = 3;
    o.order_by = "k DESC, id DESC"; /* a partition key, constant in each file */
    run(&o, &r);
    CHECK_EQ_I64(r.rows, 3);
    CHECK(r.id[0] == 299 && r.id[2] == 297 && r.k[0] == 3);
    o.order_by = "v NULLS FIRST";
    run(&o, &r);
    CHECK(r.rows == 3 && r.v_null[0] && r.id[0] == 200 && r.id[2] == 202);
}

static void columns_and_errors(void)
{
    ringscan_options o;
    ringscan_options_init(&o);
    o.union_by_name = true;
    ringscan_dataset *d = NULL;
    ringscan_scan *s = NULL;
    ringscan_error err;
    const char *paths[1] = {pat};
    CHECK_EQ_I64(ringscan_dataset_open(paths, 1, &o, &d, &err), 0);
    CHECK_EQ_I64(ringscan_dataset_files(d), 3);
    CHECK(ringscan_dataset_file(d, 3) == NULL && strstr(ringscan_dataset_file(d, 0), "k=1"));
    CHECK_EQ_I64(ringscan_dataset_scan_start(d, &o, &s, &err), 0);
    ringscan_column_info ci;
    CHECK(ringscan_scan_column(s, 1, &ci) == 0 && ci.physical == RINGSCAN_INT64 && strcmp(ci.name, "v") == 0);
    CHECK(ringscan_scan_column(s, 2, &ci) == 0 && ci.physical == RINGSCAN_INT64 && strcmp(ci.name, "k") == 0);
    CHECK_EQ_I64(ringscan_scan_column(s, 3, &ci), -EINVAL);
    ringscan_scan_free(s);
    o.union_by_name = false; /* the first file's columns: v is narrower there (the second
                                file's INT64 values, which fit, cast to it as DuckDB casts
                                them) and missing from the third, named when the scan starts
                                that file */
    for (int threads = 1; threads <= 2; threads++) {
        o.threads = threads;
        int rc = ringscan_dataset_scan_start(d, &o, &s, &err), batches = 0;
        struct ArrowArray b;
        while (rc == 0 && batches++ < 10) {
            if ((rc = ringscan_scan_next(s, &b, &err)) == 1) b.release(&b), rc = 0;
            else if (rc == 0) break; /* the end: no error, which the check below fails */
        }
        CHECK_EQ_I64(rc, RINGSCAN_EUNSUPPORTED);
        CHECK(strstr(err.message, "'v'") && strstr(err.message, "k=3"));
        ringscan_scan_free(s);
        s = NULL;
    }
    o.row_groups = (const int[]){0};
    o.nrow_groups = 1;
    CHECK_EQ_I64(ringscan_dataset_scan_start(d, &o, &s, &err), -EINVAL);
    ringscan_dataset_close(d);
    const char *none[1] = {"/nonexistent/**/*.parquet"};
    CHECK_EQ_I64(ringscan_dataset_open(none, 1, NULL, &d, &err), -ENOENT);
    CHECK(strstr(err.message, "/nonexistent/**/*.parquet") != NULL);
    CHECK_EQ_I64(ringscan_dataset_open(NULL, 1, NULL, &d, &err), -EINVAL);
}

/* ringscan_dataset_count of filter (union_by_name) into *c; its status. */
static int count_of(const char *filter, int64_t limit, ringscan_count_info *c, char *msg)
{
    ringscan_options o;
    ringscan_options_init(&o);
    o.union_by_name = true;
    o.filter = filter;
    o.limit = limit;
    ringscan_error err = {0};
    ringscan_dataset *d = NULL;
    const char *p[1] = {pat};
    int rc = ringscan_dataset_open(p, 1, &o, &d, &err);
    if (rc == 0) rc = ringscan_dataset_count(d, &o, c, &err);
    snprintf(msg, sizeof err.message, "%s", err.message);
    ringscan_dataset_close(d);
    return rc;
}

static void counting(void)
{
    ringscan_count_info c;
    char msg[sizeof ((ringscan_error *)0)->message];
    CHECK_EQ_I64(count_of(NULL, -1, &c, msg), 0);  /* footers only */
    CHECK_EQ_I64(c.rows, 300);
    CHECK_EQ_I64(c.scan.reads, 0);
    CHECK_EQ_I64(c.row_groups, 3);
    CHECK_EQ_I64(c.row_groups_settled, 3);
    CHECK_EQ_I64(c.scan.footers_read, 3);
    CHECK_EQ_I64(count_of("k = 2 AND id > 150", -1, &c, msg), 0);
    CHECK_EQ_I64(c.rows, 49);                       /* the scan of file 2's one group */
    CHECK_EQ_I64(c.scan.files_pruned, 2);
    CHECK_EQ_I64(c.row_groups_scanned, 1);
    CHECK_EQ_I64(count_of("k >= 2 AND id >= 100", -1, &c, msg), 0);
    CHECK_EQ_I64(c.rows, 200);                      /* both groups settled unread */
    CHECK_EQ_I64(c.row_groups_settled, 2);
    CHECK_EQ_I64(c.scan.reads, 0);
    CHECK_EQ_I64(count_of("v IS NULL", -1, &c, msg), 0);
    CHECK_EQ_I64(c.rows, 100);                      /* the file without v: all null */
    CHECK_EQ_I64(count_of("v > 390", -1, &c, msg), 0);
    CHECK_EQ_I64(c.rows, 4);
    CHECK_EQ_I64(count_of("id >= 0", 7, &c, msg), 0);
    CHECK_EQ_I64(c.rows, 7);
    CHECK_EQ_I64(count_of("nope > 1", -1, &c, msg), RINGSCAN_EPARSE);
    CHECK(strstr(msg, "nope") != NULL);
    ringscan_options o;
    ringscan_options_init(&o);
    ringscan_error err = {0};
    CHECK_EQ_I64(ringscan_dataset_count(NULL, &o, &c, &err), -EINVAL);
    CHECK_EQ_I64(ringscan_dataset_count(NULL, &o, NULL, &err), -EINVAL);
}

/* A scan of the file path with o (*f), or of the test's dataset when path is NULL (*d); NULL
 * (a failed check, f and d closed) when it could not start. */
static ringscan_scan *start_one(const char *path, ringscan_options *o, ringscan_file **f,
                                ringscan_dataset **d)
{
    ringscan_scan *s = NULL;
    ringscan_error err = {0};
    const char *paths[1] = {pat};
    if (path) CHECK_EQ_I64(ringscan_open_with(path, o, f, &err), 0);
    else CHECK_EQ_I64(ringscan_dataset_open(paths, 1, o, d, &err), 0);
    if (*f) CHECK_EQ_I64(ringscan_scan_start(*f, o, &s, &err), 0);
    if (*d) CHECK_EQ_I64(ringscan_dataset_scan_start(*d, o, &s, &err), 0);
    if (!s) ringscan_dataset_close(*d), ringscan_close(*f), *d = NULL, *f = NULL;
    return s;
}

typedef struct stopper {
    ringscan_scan *s;
    long delay_us;
    ringscan_stats *after; /* NULL, or the counters right after its stop returned */
} stopper;

static void *stop_later(void *arg)
{
    stopper *t = arg;
    usleep((useconds_t)t->delay_us);
    ringscan_scan_stop(t->s);
    if (t->after) ringscan_scan_stats(t->s, t->after);
    return NULL;
}

/* ringscan_scan_stop from another thread at moments spread over a dataset scan on a
 * simulated store (each read 2 ms, footers two at a time, a window read ahead): the scan's
 * next calls end (0 after the stop, never an error), the rows before it are whole files'
 * rows in path order, the counters are final once stopped, and the runtime, footers and
 * scans are freed (ASan and the leak check in the sanitized run). */
static void stop_from_another_thread(void)
{
    static const char *cols[2] = {"id", "k"};
    for (int round = 0; round < 24; round++) {
        ringscan_options o;
        ringscan_options_init(&o);
        o.columns = cols, o.ncolumns = 2, o.union_by_name = true, o.threads = 1 + round % 2;
        o.max_open_files = 2;
        o.store = "sim:ttfb=2ms,bw=1GB/s,conns=4,seed=3";
        ringscan_dataset *d = NULL;
        ringscan_file *f = NULL;
        ringscan_error err = {0};
        ringscan_scan *s = start_one(NULL, &o, &f, &d);
        if (!s) return;
        stopper t = {.s = s, .delay_us = round * 500};
        pthread_t th;
        CHECK_EQ_I64(pthread_create(&th, NULL, stop_later, &t), 0);
        struct ArrowArray b;
        int rc;
        int64_t rows = 0, bad = 0;
        while ((rc = ringscan_scan_next(s, &b, &err)) == 1) {
            for (int64_t r = 0; r < b.length; r++, rows++) bad += i64_at(b.children[0], r) != rows;
            b.release(&b);
        }
        ringscan_stats now; /* the next returned 0: complete, the stop's end maybe not run yet */
        ringscan_scan_stats(s, &now);
        CHECK(now.complete);
        pthread_join(th, NULL);
        CHECK_EQ_I64(rc, 0);
        CHECK_EQ_I64(bad, 0);
        CHECK(rows <= 3 * PER_FILE);
        CHECK_EQ_I64(ringscan_scan_next(s, &b, &err), 0);
        ringscan_stats st;
        ringscan_scan_stats(s, &st);
        CHECK(st.complete);
        CHECK_EQ_I64(st.rows_out, rows);
        ringscan_scan_free(s);
        ringscan_dataset_close(d);
    }
}

typedef struct snapper {
    ringscan_scan *s;
    atomic_bool done;
    ringscan_stats last_complete; /* the first snapshot that said complete */
    bool saw_complete;
    int64_t snaps;
} snapper;

/* Snapshots s's counters until told to end (at most 100000): the host's progress thread. */
static void *snap_loop(void *arg)
{
    snapper *t = arg;
    for (; !atomic_load(&t->done) && t->snaps < 100000; t->snaps++) {
        ringscan_stats st;
        ringscan_scan_stats(t->s, &st);
        if (st.complete && !t->saw_complete) t->last_complete = st, t->saw_complete = true;
        usleep(20);
    }
    return NULL;
}

/* ringscan_scan_stats from a progress thread while the host reads and a third thread stops
 * the scan (a dataset's, and every fourth round a file's): a snapshot never reads a file's
 * scan the stop (or the next) freed (ASan), and one that says complete holds the final
 * counters (a stop's end had not summed them, or not written them whole, yet). */
static void stats_while_stopping(void)
{
    static const char *cols[2] = {"id", "k"}, *fcols[1] = {"id"};
    char one[300];
    snprintf(one, sizeof one, "%s/k=2/part.parquet", ts_dir);
    for (int round = 0; round < 32; round++) {
        bool file = round % 4 == 3;
        ringscan_options o;
        ringscan_options_init(&o);
        o.columns = file ? fcols : cols, o.ncolumns = file ? 1 : 2, o.union_by_name = true;
        o.threads = 1 + round % 2, o.max_open_files = 2, o.ordered = true;
        o.store = "sim:ttfb=2ms,bw=1GB/s,conns=4,seed=3";
        if (round % 8 == 7) o.order_by = "id DESC", o.limit = 10; /* a file's Top-K */
        ringscan_dataset *d = NULL;
        ringscan_file *f = NULL;
        ringscan_error err = {0};
        ringscan_scan *s = start_one(file ? one : NULL, &o, &f, &d);
        if (!s) return;
        stopper t = {.s = s, .delay_us = (round / 4) * 1500 + (round % 4) * 300};
        snapper sn = {.s = s};
        pthread_t th, ts;
        CHECK_EQ_I64(pthread_create(&ts, NULL, snap_loop, &sn), 0);
        CHECK_EQ_I64(pthread_create(&th, NULL, stop_later, &t), 0);
        struct ArrowArray b;
        int64_t rows = 0;
        while (ringscan_scan_next(s, &b, &err) == 1) rows += b.length, b.release(&b);
        pthread_join(th, NULL);
        atomic_store(&sn.done, true);
        pthread_join(ts, NULL);
        ringscan_stats st;
        ringscan_scan_stats(s, &st);
        CHECK(st.complete);
        CHECK_EQ_I64(st.rows_out, rows);
        CHECK(st.bytes_read + st.bytes_kept == st.bytes_used + st.bytes_wasted);
        if (sn.saw_complete) { /* final when it said so */
            CHECK_EQ_I64(sn.last_complete.rows_scanned, st.rows_scanned);
            CHECK_EQ_I64((int64_t)sn.last_complete.bytes_read, (int64_t)st.bytes_read);
            CHECK_EQ_I64(sn.last_complete.splits, st.splits);
        }
        ringscan_scan_free(s);
        ringscan_dataset_close(d), ringscan_close(f);
    }
}

/* Two threads stop the scan at about the same moment: the one whose stop came second
 * returned before the first had ended the scan, its counters not final yet; each stop now
 * returns with them final (a dataset's, and every fourth round a file's). */
static void stop_twice_at_once(void)
{
    static const char *cols[1] = {"id"};
    char one[300];
    snprintf(one, sizeof one, "%s/k=2/part.parquet", ts_dir);
    for (int round = 0; round < 32; round++) {
        bool file = round % 4 == 3;
        ringscan_options o;
        ringscan_options_init(&o);
        o.columns = cols, o.ncolumns = 1, o.union_by_name = true, o.threads = 1 + round % 2;
        o.max_open_files = 2, o.store = "sim:ttfb=2ms,bw=1GB/s,conns=4,seed=3";
        ringscan_dataset *d = NULL;
        ringscan_file *f = NULL;
        ringscan_error err = {0};
        ringscan_scan *s = start_one(file ? one : NULL, &o, &f, &d);
        if (!s) return;
        ringscan_stats after = {0};
        long at = (round / 4) * 1000;
        stopper a = {.s = s, .delay_us = at}, b = {.s = s, .delay_us = at + round % 3 * 50, .after = &after};
        pthread_t ta, tb;
        CHECK_EQ_I64(pthread_create(&ta, NULL, stop_later, &a), 0);
        CHECK_EQ_I64(pthread_create(&tb, NULL, stop_later, &b), 0);
        struct ArrowArray x;
        int64_t rows = 0;
        while (ringscan_scan_next(s, &x, &err) == 1) rows += x.length, x.release(&x);
        pthread_join(ta, NULL), pthread_join(tb, NULL);
        CHECK(after.complete); /* b's stop returned with the scan ended */
        CHECK(after.bytes_read + after.bytes_kept == after.bytes_used + after.bytes_wasted);
        ringscan_stats st;
        ringscan_scan_stats(s, &st);
        CHECK_EQ_I64(st.rows_out, rows);
        CHECK_EQ_I64(after.rows_scanned, st.rows_scanned);
        ringscan_scan_free(s);
        ringscan_dataset_close(d), ringscan_close(f);
    }
}

/* The options' strings may be freed once the scan started (as the Python package drops
 * them): a dataset's later files and footers opened with the caller's store string, by then
 * overwritten ("unknown key" in the sim store's spec, or a use after free). Every row is read
 * with the files opened after the start (two footers at a time). */
static void options_freed_after_start(void)
{
    static const char *cols[1] = {"id"};
    static const char spec[] = "sim:ttfb=1ms,bw=1GB/s,conns=4,seed=3";
    for (int round = 0; round < 4; round++) {
        char *store = malloc(sizeof spec);
        memcpy(store, spec, sizeof spec);
        ringscan_options o;
        ringscan_options_init(&o);
        o.columns = cols, o.ncolumns = 1, o.union_by_name = round % 2 == 0, o.threads = 1 + round / 2;
        o.max_open_files = 2, o.store = store, o.ordered = true;
        ringscan_dataset *d = NULL;
        ringscan_file *f = NULL;
        ringscan_error err = {0};
        ringscan_scan *s = start_one(NULL, &o, &f, &d);
        memset(store, '`', sizeof spec - 1); /* the caller's string is gone */
        free(store);
        struct ArrowArray b;
        int rc;
        int64_t rows = 0, bad = 0;
        while (s && (rc = ringscan_scan_next(s, &b, &err)) == 1) {
            for (int64_t r = 0; r < b.length; r++, rows++) bad += i64_at(b.children[0], r) != rows;
            b.release(&b);
        }
        CHECK_EQ_I64(rc, 0);
        if (rc) fprintf(stderr, "  %s\n", err.message);
        CHECK_EQ_I64(rows, 3 * PER_FILE);
        CHECK_EQ_I64(bad, 0);
        ringscan_scan_free(s);
        ringscan_dataset_close(d);
    }
}

int main(void)
{
    ts_dir_init();
    snprintf(pat, sizeof pat, "%s/**/*.parquet", ts_dir);
    for (int k = 1; k <= 3; k++)
        if (write_part(k) != 0) return 1;
    RUN(every_row);
    RUN(pruning);
    RUN(limit_and_order);
    RUN(columns_and_errors);
    RUN(counting);
    RUN(stop_from_another_thread);
    RUN(stats_while_stopping);
    RUN(stop_twice_at_once);
    RUN(options_freed_after_start);
    ts_dir_remove();
    return CHECK_DONE("test_dataset_api");
}
