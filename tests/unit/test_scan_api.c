/* tests for the public API (include/ringscan.h, scan/api.c, scan/arrow.c): open, scan start,
 * batches as Arrow C Data Interface struct arrays (formats, validity, values checked against
 * the written data), the ArrowArrayStream wrapper, statistics, LIMIT, error codes and
 * messages, and release callbacks (the sanitizer build checks that nothing leaks). */
#include <sys/stat.h>

#include "check.h"
#include "ringscan.h"
#include "test_scan_common.h"

enum { ROWS = 5000, RG_ROWS = 1000, NC = 8 };

static char path[256];
static const char *const names[NC] = {"id", "i32", "s", "d", "b", "dt", "dec", "fl"};

/* The value model: everything derives from the row id. */
static bool is_null(int c, int64_t r)
{
    switch (c) {
    case 1: return r % 7 == 3;
    case 2: return r % 5 == 1;
    case 4: return r % 3 == 2;
    case 6: return r % 11 == 0;
    default: return false;
    }
}
static int32_t v_i32(int64_t r) { return (int32_t)(r * 37 % 1001) - 500; }
static int str_of(int64_t r, char *out) /* "s<r>" with a run of 'x' of r % 9 */
{
    int n = snprintf(out, 32, "s%lld", (long long)r);
    for (int k = 0; k < (int)(r % 9); k++) out[n++] = 'x';
    return n;
}
static double v_d(int64_t r) { return (double)r * 0.25 - 100.0; }
static bool v_b(int64_t r) { return (r / 2) % 2 == 1; }
static int32_t v_dt(int64_t r) { return 19000 + (int32_t)(r % 400); }
static int64_t v_dec(int64_t r) { return (r - 2500) * 101; }
static void v_fl(int64_t r, uint8_t *o)
{
    for (int k = 0; k < 4; k++) o[k] = (uint8_t)(r >> (8 * k));
}

static pq_column_desc sch[NC];

static int write_file(const char *p, int64_t rows, int64_t rg_rows)
{
    sch[0] = ts_desc(names[0], PQ_INT64, 0, false, PQ_LOGICAL_NONE);
    sch[1] = ts_desc(names[1], PQ_INT32, 0, true, PQ_LOGICAL_NONE);
    sch[2] = ts_desc(names[2], PQ_BYTE_ARRAY, 0, true, PQ_LOGICAL_STRING);
    sch[3] = ts_desc(names[3], PQ_DOUBLE, 0, false, PQ_LOGICAL_NONE);
    sch[4] = ts_desc(names[4], PQ_BOOLEAN, 0, true, PQ_LOGICAL_NONE);
    sch[5] = ts_desc(names[5], PQ_INT32, 0, false, PQ_LOGICAL_DATE);
    sch[6] = ts_desc(names[6], PQ_INT64, 0, true, PQ_LOGICAL_DECIMAL);
    sch[7] = ts_desc(names[7], PQ_FIXED_LEN_BYTE_ARRAY, 4, false, PQ_LOGICAL_NONE);
    pq_vec v[NC];
    for (int c = 0; c < NC; c++) ts_vec_new(&v[c], sch[c].physical, sch[c].type_length, rows, rows * 32);
    for (int64_t r = 0; r < rows; r++) {
        int32_t i = v_i32(r), dt = v_dt(r);
        int64_t dec = v_dec(r);
        double d = v_d(r);
        uint8_t b = v_b(r), fl[4];
        char s[32];
        int n = str_of(r, s);
        v_fl(r, fl);
        ts_put_fixed(&v[0], &r, false);
        ts_put_fixed(&v[1], &i, is_null(1, r));
        ts_put_bytes(&v[2], (const uint8_t *)s, n, is_null(2, r));
        ts_put_fixed(&v[3], &d, false);
        ts_put_fixed(&v[4], &b, is_null(4, r));
        ts_put_fixed(&v[5], &dt, false);
        ts_put_fixed(&v[6], &dec, is_null(6, r));
        ts_put_fixed(&v[7], fl, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = rg_rows;
    wo.page_rows = 250;
    wo.page_index = true;
    int rc = ts_write(p, sch, NC, v, rows, &wo);
    for (int c = 0; c < NC; c++) pq_vec_free(&v[c]);
    return rc;
}

static bool valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->buffers[0];
    return a->null_count == 0 || !bits || ((bits[(a->offset + i) >> 3] >> ((a->offset + i) & 7)) & 1);
}

/* Checks every child of a batch against the model; returns rows checked (or -1). */
static int64_t check_batch(const struct ArrowArray *a, int64_t *last_id, bool ordered)
{
    bool ok = a->n_children == NC && a->length > 0 && a->release && a->n_buffers == 1;
    for (int c = 0; ok && c < NC; c++) {
        const struct ArrowArray *ch = a->children[c];
        ok = ch->length == a->length && ch->n_children == 0 && ch->release &&
             ch->n_buffers == (c == 2 ? 3 : 2);
        int64_t nulls = 0;
        for (int64_t i = 0; ok && i < ch->length; i++) nulls += !valid(ch, i);
        ok = ok && nulls == ch->null_count;
    }
    if (!ok) {
        fprintf(stderr, "  bad batch shape\n");
        return -1;
    }
    const int64_t *id = a->children[0]->buffers[1];
    for (int64_t i = 0; i < a->length; i++) {
        int64_t r = id[i];
        if (ordered && r <= *last_id) return -1;
        *last_id = r;
        for (int c = 1; c < NC; c++) {
            const struct ArrowArray *ch = a->children[c];
            bool nul = !valid(ch, i);
            if (nul != is_null(c, r)) {
                fprintf(stderr, "  row %lld column %s: null %d\n", (long long)r, names[c], nul);
                return -1;
            }
            if (nul) continue;
            bool eq = true;
            switch (c) {
            case 1: eq = ((const int32_t *)ch->buffers[1])[i] == v_i32(r); break;
            case 2: {
                const int32_t *off = ch->buffers[1];
                const char *data = ch->buffers[2];
                char s[32];
                int n = str_of(r, s);
                eq = off[i + 1] - off[i] == n && memcmp(data + off[i], s, (size_t)n) == 0;
                break;
            }
            case 3: eq = ((const double *)ch->buffers[1])[i] == v_d(r); break;
            case 4: {
                const uint8_t *bits = ch->buffers[1];
                eq = ((bits[i >> 3] >> (i & 7)) & 1) == v_b(r);
                break;
            }
            case 5: eq = ((const int32_t *)ch->buffers[1])[i] == v_dt(r); break;
            case 6: {
                __int128 x;
                memcpy(&x, (const uint8_t *)ch->buffers[1] + 16 * i, 16);
                eq = x == (__int128)v_dec(r);
                break;
            }
            case 7: {
                uint8_t fl[4];
                v_fl(r, fl);
                eq = memcmp((const uint8_t *)ch->buffers[1] + 4 * i, fl, 4) == 0;
                break;
            }
            }
            if (!eq) {
                fprintf(stderr, "  row %lld column %s: wrong value\n", (long long)r, names[c]);
                return -1;
            }
        }
    }
    return a->length;
}

static void test_open(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    CHECK_EQ_I64(ringscan_file_rows(f), ROWS);
    CHECK_EQ_I64(ringscan_file_columns(f), NC);
    ringscan_close(f);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/nope.parquet", ts_dir);
    CHECK_EQ_I64(ringscan_open(missing, &f, &err), -ENOENT);
    CHECK(f == NULL);
    CHECK(strstr(err.message, "nope.parquet") != NULL);
}

/* Every batch's values against the model, under each read mode (copy, mmap: the same
 * values, and on one thread the same read calls and bytes), cut or not, 1 or 2 threads,
 * ordered or not. */
static void test_schema_and_batches(void)
{
    uint64_t reads[2][2][2] = {{{0}}}, bytes[2][2][2] = {{{0}}}; /* [mode][cut][ordered], 1 thread */
    for (int mode = RINGSCAN_READ_COPY; mode <= RINGSCAN_READ_MMAP; mode++) {
    ringscan_file *f = NULL;
    ringscan_error err;
    ringscan_options oo;
    ringscan_options_init(&oo);
    oo.read_mode = (ringscan_read_mode)mode;
    CHECK_EQ_I64(ringscan_open_with(path, &oo, &f, &err), 0);
    if (!f) return;
    for (int cut = 0; cut < 2; cut++) /* row groups cut into splits of 250 rows, or not */
    for (int th = 1; th <= 2; th++)
        for (int ord = 0; ord < 2; ord++) {
            ringscan_options o;
            ringscan_options_init(&o);
            o.filter = "id >= 100 AND id < 4100";
            o.ordered = ord;
            o.threads = th;
            o.split_rows = cut ? 250 : 0;
            ringscan_scan *s = NULL;
            CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
            if (!s) continue;
            struct ArrowSchema sc;
            CHECK_EQ_I64(ringscan_scan_schema(s, &sc, &err), 0);
            CHECK_STR(sc.format, "+s");
            CHECK_EQ_I64(sc.n_children, NC);
            static const char *const fmt[NC] = {"l", "i", "u", "g", "b", "tdD", "d:18,2", "w:4"};
            for (int c = 0; c < NC && c < sc.n_children; c++) {
                CHECK_STR(sc.children[c]->format, fmt[c]);
                CHECK_STR(sc.children[c]->name, names[c]);
                CHECK_EQ_I64(sc.children[c]->flags & ARROW_FLAG_NULLABLE,
                             sch[c].repetition == PQ_OPTIONAL ? ARROW_FLAG_NULLABLE : 0);
            }
            sc.release(&sc);
            CHECK(sc.release == NULL);
            struct ArrowArray a;
            int64_t total = 0, last = -1, sum_ids = 0;
            int rc;
            while ((rc = ringscan_scan_next(s, &a, &err)) == 1) {
                int64_t n = check_batch(&a, &last, ord);
                CHECK(n > 0);
                const int64_t *id = a.children[0]->buffers[1];
                for (int64_t i = 0; i < a.length; i++) sum_ids += id[i];
                total += a.length;
                a.release(&a);
                CHECK(a.release == NULL);
            }
            CHECK_EQ_I64(rc, 0);
            CHECK(a.release == NULL);
            CHECK_EQ_I64(total, 4000);
            CHECK_EQ_I64(sum_ids, (100 + 4099) * 4000 / 2);
            ringscan_stats st;
            ringscan_scan_stats(s, &st);
            CHECK_EQ_I64(st.rows_out, 4000);
            CHECK_EQ_I64(st.row_groups_total, ROWS / RG_ROWS);
            CHECK_EQ_I64(st.row_groups_pruned, 0);
            CHECK_EQ_I64(st.pages_pruned, 3 * NC); /* pages of 250 rows: [4250, 5000) of rg 4 */
            /* cut: the splits [4250, 4500), [4500, 4750), [4750, 5000) are pruned whole */
            CHECK_EQ_I64(st.rows_scanned, cut ? ROWS - 750 : ROWS);
            CHECK(st.bytes_read > 0 && st.reads > 0);
            if (th == 1) reads[mode][cut][ord] = st.reads, bytes[mode][cut][ord] = st.bytes_read;
            ringscan_scan_free(s);
        }
    ringscan_close(f);
    }
    for (int cut = 0; cut < 2; cut++)
        for (int ord = 0; ord < 2; ord++) {
            CHECK_EQ_I64(reads[RINGSCAN_READ_MMAP][cut][ord], reads[RINGSCAN_READ_COPY][cut][ord]);
            CHECK_EQ_I64(bytes[RINGSCAN_READ_MMAP][cut][ord], bytes[RINGSCAN_READ_COPY][cut][ord]);
        }
}

/* A file truncated after ringscan_open_with mapped it: the scan fails (no crash) with a
 * message naming the file, and an unknown read_mode is refused at open. */
static void test_mmap_truncated(void)
{
    char cut[300];
    snprintf(cut, sizeof cut, "%s.cut", path);
    CHECK_EQ_I64(write_file(cut, ROWS, RG_ROWS), 0);
    ringscan_options o;
    ringscan_options_init(&o);
    o.read_mode = RINGSCAN_READ_MMAP;
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open_with(cut, &o, &f, &err), 0);
    if (!f) return;
    CHECK_EQ_I64(truncate(cut, 4096), 0); /* the footer was read: only data pages are missing */
    ringscan_scan *s = NULL;
    int rc = ringscan_scan_start(f, &o, &s, &err);
    struct ArrowArray a;
    while (rc == 0 && (rc = ringscan_scan_next(s, &a, &err)) == 1) a.release(&a);
    CHECK(rc < 0);
    CHECK(strstr(err.message, cut) != NULL);
    CHECK(strstr(err.message, "unexpected end of file") != NULL); /* not cached: copied */
    ringscan_scan_free(s);
    ringscan_close(f);
    unlink(cut);
    o.read_mode = (ringscan_read_mode)7;
    CHECK_EQ_I64(ringscan_open_with(path, &o, &f, &err), -EINVAL);
    CHECK(strstr(err.message, "read_mode 7") != NULL);
}

/* A projection of two columns in a chosen order; a batch released after the scan is freed. */
static void test_projection_and_late_release(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    const char *cols[] = {"s", "id"};
    o.columns = cols;
    o.ncolumns = 2;
    o.filter = "s LIKE 's12%' AND i32 IS NOT NULL";
    o.ordered = true;
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    if (!s) return;
    struct ArrowSchema sc;
    CHECK_EQ_I64(ringscan_scan_schema(s, &sc, &err), 0);
    CHECK_EQ_I64(sc.n_children, 2);
    CHECK_STR(sc.children[0]->name, "s");
    CHECK_STR(sc.children[1]->name, "id");
    sc.release(&sc);
    int64_t expect = 0;
    for (int64_t r = 0; r < ROWS; r++) {
        char t[32];
        int n = str_of(r, t);
        expect += !is_null(2, r) && !is_null(1, r) && n >= 3 && memcmp(t, "s12", 3) == 0;
    }
    struct ArrowArray keep = {0}, a;
    int64_t total = 0;
    bool ok = true;
    while (ringscan_scan_next(s, &a, &err) == 1) {
        const int64_t *id = a.children[1]->buffers[1];
        const int32_t *off = a.children[0]->buffers[1];
        const char *data = a.children[0]->buffers[2];
        for (int64_t i = 0; i < a.length; i++) {
            char t[32];
            int n = str_of(id[i], t);
            ok = ok && off[i + 1] - off[i] == n && memcmp(data + off[i], t, (size_t)n) == 0;
        }
        total += a.length;
        if (!keep.release) keep = a;
        else a.release(&a);
    }
    CHECK(ok);
    CHECK_EQ_I64(total, expect);
    ringscan_scan_free(s);
    ringscan_close(f);
    CHECK(keep.release != NULL);
    if (keep.release) {
        CHECK(keep.n_children == 2 && keep.children[1]->length == keep.length);
        keep.release(&keep);
    }
}

static void test_stream(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter = "(dec < 0 OR dec IS NULL)";
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    if (!s) return;
    int64_t expect = 0;
    for (int64_t r = 0; r < ROWS; r++) expect += is_null(6, r) || v_dec(r) < 0;
    struct ArrowArrayStream st;
    CHECK_EQ_I64(ringscan_scan_stream(s, &st), 0);
    struct ArrowSchema sc;
    CHECK_EQ_I64(st.get_schema(&st, &sc), 0);
    CHECK_STR(sc.format, "+s");
    CHECK_EQ_I64(sc.n_children, NC);
    sc.release(&sc);
    int64_t total = 0, last = -1;
    for (int guard = 0; guard < 1000; guard++) {
        struct ArrowArray a;
        CHECK_EQ_I64(st.get_next(&st, &a), 0);
        if (!a.release) break;
        CHECK(check_batch(&a, &last, false) > 0);
        total += a.length;
        a.release(&a);
    }
    CHECK_EQ_I64(total, expect);
    CHECK(st.get_last_error(&st) == NULL);
    st.release(&st);
    CHECK(st.release == NULL);
    ringscan_scan_free(s);
    ringscan_close(f);
}

/* The stream holds its scan and the scan its file: closing the file and freeing the scan
 * before the stream is read is allowed, the stream still reads every row, and the last
 * release frees all three (ringscan_live_objects back where it was). */
static void test_stream_holds_scan(void)
{
    int64_t live0 = ringscan_live_objects();
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    CHECK_EQ_I64(ringscan_live_objects(), live0 + 1);
    ringscan_options o;
    ringscan_options_init(&o);
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    if (!s) return;
    struct ArrowArrayStream st, unread;
    CHECK_EQ_I64(ringscan_scan_stream(s, &st), 0);
    CHECK_EQ_I64(ringscan_live_objects(), live0 + 2);
    ringscan_close(f);
    ringscan_scan_free(s);
    CHECK_EQ_I64(ringscan_live_objects(), live0 + 2); /* the stream holds both */
    int64_t total = 0;
    for (int guard = 0; guard < 1000; guard++) {
        struct ArrowArray a;
        CHECK_EQ_I64(st.get_next(&st, &a), 0);
        if (!a.release) break;
        total += a.length;
        a.release(&a);
    }
    CHECK_EQ_I64(total, ROWS);
    st.release(&st);
    CHECK_EQ_I64(ringscan_live_objects(), live0);
    /* a stream never read, released after its scan's free, frees the scan too */
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    if (!s) return;
    CHECK_EQ_I64(ringscan_scan_stream(s, &unread), 0);
    ringscan_scan_free(s);
    ringscan_close(f);
    CHECK_EQ_I64(ringscan_live_objects(), live0 + 2);
    unread.release(&unread);
    CHECK_EQ_I64(ringscan_live_objects(), live0);
}

/* ringscan_plan_row_groups: the groups statistics keep for the filter, within row_groups. */
static void test_plan_row_groups(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    int out[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    CHECK_EQ_I64(ringscan_plan_row_groups(f, &o, out, 8, &err), ROWS / RG_ROWS);
    CHECK(out[0] == 0 && out[4] == 4 && out[5] == -1);
    o.filter = "id >= 1500 AND id < 3200";
    CHECK_EQ_I64(ringscan_plan_row_groups(f, &o, NULL, 0, &err), 3);
    CHECK_EQ_I64(ringscan_plan_row_groups(f, &o, out, 2, &err), 3); /* count beyond cap */
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 2);
    int some[] = {4, 1, 3};
    o.row_groups = some, o.nrow_groups = 3;
    CHECK_EQ_I64(ringscan_plan_row_groups(f, &o, out, 8, &err), 2);
    CHECK(out[0] == 1 && out[1] == 3);
    o.row_groups = NULL, o.nrow_groups = 0;
    o.filter = "id >";
    CHECK_EQ_I64(ringscan_plan_row_groups(f, &o, out, 8, &err), RINGSCAN_EPARSE);
    o.filter = "nope = 1";
    CHECK_EQ_I64(ringscan_plan_row_groups(f, &o, out, 8, &err), RINGSCAN_EPARSE);
    CHECK(strstr(err.message, "nope") != NULL);
    o.filter = NULL;
    const char *unknown[] = {"nope"};
    o.columns = unknown, o.ncolumns = 1;
    CHECK_EQ_I64(ringscan_plan_row_groups(f, &o, out, 8, &err), -EINVAL);
    CHECK_EQ_I64(ringscan_plan_row_groups(f, &o, NULL, 3, &err), -EINVAL);
    ringscan_close(f);
}

static void test_errors(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    ringscan_scan *s = (ringscan_scan *)&o; /* must be reset to NULL on failure */
    o.filter = "id >= 5 AND AND i32 < 3";
    memset(&err, 0, sizeof err);
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), RINGSCAN_EPARSE);
    CHECK(s == NULL);
    CHECK_EQ_I64(err.status, RINGSCAN_EPARSE);
    CHECK(strstr(err.message, "at character 13") != NULL);
    CHECK(strstr(err.message, "api.parquet") != NULL);
    if (chk_case_failed) fprintf(stderr, "  message: %s\n", err.message);
    /* a filter naming no column of the file */
    o.filter = "nosuch > 3";
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), RINGSCAN_EPARSE);
    CHECK(strstr(err.message, "nosuch") != NULL);
    /* a literal of the wrong type */
    o.filter = "id = 'abc'";
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), RINGSCAN_EPARSE);
    /* an unknown projected column */
    o.filter = NULL;
    const char *cols[] = {"id", "missing_col"};
    o.columns = cols;
    o.ncolumns = 2;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), -EINVAL);
    CHECK(s == NULL);
    CHECK(strstr(err.message, "missing_col") != NULL);
    o.ncolumns = 0;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), -EINVAL);
    ringscan_close(f);
    /* a nested file opens (tests/unit/test_nested_api.c has its scans) */
    const char *nested = "../shared/parquet-testing/data/nested_lists.snappy.parquet";
    if (access(nested, R_OK) != 0) nested = "/work/shared/parquet-testing/data/nested_lists.snappy.parquet";
    CHECK_EQ_I64(ringscan_open(nested, &f, &err), 0);
    CHECK_EQ_I64(ringscan_file_columns(f), 2);
    ringscan_close(f);
    /* not a parquet file */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/bad.parquet", ts_dir);
    FILE *fp = fopen(bad, "wb");
    fputs("this is not parquet at all, not even close", fp);
    fclose(fp);
    CHECK_EQ_I64(ringscan_open(bad, &f, &err), RINGSCAN_EFORMAT);
    CHECK(f == NULL);
}

/* Issue 18 defects 9 and 10: every public function refuses bad arguments with -EINVAL and a
 * message (a NULL column name crashed, NULL options were dereferenced, policy 77 and io 9 were
 * accepted); a FIFO without a writer is refused at once instead of blocking open(). */
static bool einval(int rc, const ringscan_error *err, const char *says)
{
    bool ok = rc == -EINVAL && err->status == -EINVAL && strstr(err->message, says) != NULL;
    if (!ok) fprintf(stderr, "  status %d, message '%s' (wanted '%s')\n", rc, err->message, says);
    return ok;
}

static void test_bad_arguments(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK(einval(ringscan_open(NULL, &f, &err), &err, "path is NULL"));
    CHECK_EQ_I64(ringscan_open(path, NULL, NULL), -EINVAL);
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    ringscan_scan *s = (ringscan_scan *)&err;
    CHECK(einval(ringscan_scan_start(f, NULL, &s, &err), &err, "options are NULL"));
    CHECK(s == NULL);
    ringscan_options o;
    ringscan_options_init(&o);
    CHECK(einval(ringscan_scan_start(NULL, &o, &s, &err), &err, "file is NULL"));
    CHECK_EQ_I64(ringscan_scan_start(f, &o, NULL, NULL), -EINVAL);
    const char *cols[] = {"id", NULL};
    o.columns = cols;
    o.ncolumns = 2;
    CHECK(einval(ringscan_scan_start(f, &o, &s, &err), &err, "columns[1] is NULL"));
    o.ncolumns = -1;
    CHECK(einval(ringscan_scan_start(f, &o, &s, &err), &err, "ncolumns is negative"));
    ringscan_options_init(&o);
    o.policy = (ringscan_policy)77;
    CHECK(einval(ringscan_scan_start(f, &o, &s, &err), &err, "policy 77"));
    ringscan_options_init(&o);
    o.io = (ringscan_io)9;
    CHECK(einval(ringscan_scan_start(f, &o, &s, &err), &err, "io 9"));
    ringscan_options_init(&o);
    o.threads = -3;
    CHECK(einval(ringscan_scan_start(f, &o, &s, &err), &err, "threads -3"));
    o.threads = 100000;
    CHECK(einval(ringscan_scan_start(f, &o, &s, &err), &err, "threads 100000"));
    ringscan_options_init(&o);
    o.limit = -7;
    CHECK(einval(ringscan_scan_start(f, &o, &s, &err), &err, "limit"));
    CHECK(s == NULL);
    struct ArrowArray a;
    struct ArrowSchema sc;
    struct ArrowArrayStream st;
    CHECK(einval(ringscan_scan_next(NULL, &a, &err), &err, "scan is NULL"));
    CHECK(a.release == NULL);
    CHECK(einval(ringscan_scan_schema(NULL, &sc, &err), &err, "scan is NULL"));
    CHECK_EQ_I64(ringscan_scan_stream(NULL, &st), -EINVAL);
    ringscan_stats stats;
    ringscan_scan_stats(NULL, &stats);
    CHECK_EQ_I64(stats.reads, 0);
    CHECK_EQ_I64(ringscan_file_rows(NULL), -EINVAL);
    CHECK_EQ_I64(ringscan_file_columns(NULL), -EINVAL);
    char shown[8] = "xxxxxxx"; /* a NULL path: "" and no pattern (both trapped on it) */
    ringscan_path_shown(shown, sizeof shown, NULL);
    CHECK_STR(shown, "");
    ringscan_path_shown(NULL, sizeof shown, "http://u:p@h/x");
    CHECK(!ringscan_path_is_pattern(NULL));
    ringscan_path_shown(shown, sizeof shown, "http://u:p@h/x"); /* cut at cap, never the password */
    CHECK_STR(shown, "http://");
    ringscan_options_init(&o); /* the valid options still scan */
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    CHECK(einval(ringscan_scan_next(s, NULL, &err), &err, "out is NULL"));
    ringscan_scan_free(s);
    ringscan_scan_free(NULL);
    ringscan_close(f);
    ringscan_close(NULL);
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/fifo.parquet", ts_dir);
    CHECK_EQ_I64(mkfifo(fifo, 0600), 0);
    f = (ringscan_file *)&err;
    CHECK_EQ_I64(ringscan_open(fifo, &f, &err), -EINVAL); /* returns at once: no writer needed */
    CHECK(f == NULL);
    CHECK(strstr(err.message, "not a regular file") != NULL);
    unlink(fifo);
}

/* LIMIT on a file of many row groups: exact rows, and the scan stops early. */
static void test_limit(void)
{
    char many[300];
    snprintf(many, sizeof many, "%s/many.parquet", ts_dir);
    CHECK_EQ_I64(write_file(many, 20000, 200), 0); /* 100 row groups */
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(many, &f, &err), 0);
    if (!f) return;
    for (int ord = 0; ord < 2; ord++)
        for (int pol = 0; pol < 3; pol++) {
            ringscan_options o;
            ringscan_options_init(&o);
            o.limit = 250;
            o.ordered = ord;
            o.policy = (ringscan_policy)pol;
            o.filter = "d > -1000";
            ringscan_scan *s = NULL;
            CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
            if (!s) continue;
            struct ArrowArray a;
            int64_t total = 0, last = -1;
            int rc;
            while ((rc = ringscan_scan_next(s, &a, &err)) == 1) {
                CHECK(check_batch(&a, &last, ord) > 0);
                if (ord) CHECK(((const int64_t *)a.children[0]->buffers[1])[0] == total);
                total += a.length;
                a.release(&a);
            }
            CHECK_EQ_I64(rc, 0);
            CHECK_EQ_I64(total, 250);
            ringscan_stats st;
            ringscan_scan_stats(s, &st);
            CHECK_EQ_I64(st.rows_out, 250);
            CHECK(st.rows_scanned >= 400);
            CHECK(st.rows_scanned <= 20000 / 4);
            if (chk_case_failed) fprintf(stderr, "  limit: ordered %d policy %d scanned %lld\n", ord, pol, (long long)st.rows_scanned);
            ringscan_scan_free(s);
        }
    /* a scan freed before its end (consumer gone) */
    ringscan_options o;
    ringscan_options_init(&o);
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    struct ArrowArray a;
    if (s && ringscan_scan_next(s, &a, &err) == 1) a.release(&a);
    ringscan_scan_free(s);
    ringscan_close(f);
}

/* Statistics while a scan runs are a snapshot that does not stop it (progress for hosts):
 * after the first batch the scan is not complete, some splits are done and rows were scanned;
 * the scan then goes on to deliver every row, and the final counters are complete. */
static void test_progress(void)
{
    char many[300];
    snprintf(many, sizeof many, "%s/progress.parquet", ts_dir);
    CHECK_EQ_I64(write_file(many, 20000, 200), 0); /* 100 row groups */
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(many, &f, &err), 0);
    if (!f) return;
    for (int ord = 0; ord < 2; ord++) {
        ringscan_options o;
        ringscan_options_init(&o);
        o.ordered = ord;
        o.threads = 1;
        ringscan_scan *s = NULL;
        CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
        if (!s) continue;
        struct ArrowArray a;
        int64_t total = 0, done_before = -1;
        int rc, batches = 0;
        while ((rc = ringscan_scan_next(s, &a, &err)) == 1) {
            total += a.length;
            a.release(&a);
            if (++batches % 10 != 1) continue;
            ringscan_stats st;
            ringscan_scan_stats(s, &st);
            CHECK(!st.complete);
            CHECK_EQ_I64(st.splits, 100);
            CHECK(st.splits_done >= batches && st.splits_done <= 100);
            CHECK(st.splits_done >= done_before); /* progress only moves forward */
            CHECK(st.rows_scanned >= total && st.rows_out == total);
            done_before = st.splits_done;
        }
        CHECK_EQ_I64(rc, 0);
        CHECK_EQ_I64(total, 20000); /* the snapshots did not stop the scan */
        ringscan_stats st;
        ringscan_scan_stats(s, &st);
        CHECK(st.complete);
        CHECK_EQ_I64(st.splits_done, 100);
        CHECK_EQ_I64(st.rows_out, 20000);
        CHECK_EQ_I64(st.rows_scanned, 20000);
        CHECK(st.bytes_read > 0 && st.reads > 0);
        ringscan_scan_free(s);
    }
    ringscan_close(f);
}

/* Runs a scan of f with o; returns its rows (or -1), fills *st and the explain text. */
static int64_t run_scan(ringscan_file *f, ringscan_options *o, ringscan_stats *st, char *explain,
                        size_t explain_cap)
{
    ringscan_error err;
    ringscan_scan *s = NULL;
    if (ringscan_scan_start(f, o, &s, &err)) return -1;
    struct ArrowArray a;
    int64_t rows = 0;
    int rc;
    while ((rc = ringscan_scan_next(s, &a, &err)) == 1) {
        rows += a.length;
        a.release(&a);
    }
    ringscan_scan_stats(s, st);
    snprintf(explain, explain_cap, "%s", ringscan_scan_explain(s));
    ringscan_scan_free(s);
    return rc == 0 ? rows : -1;
}

/* ---- filters as trees (ringscan_expr) ------------------------------------------------ */

#define COL(n) ringscan_expr_column(n)
#define INT(v) ringscan_expr_int(v)
#define CALL(op, ...)                                                                     \
    ringscan_expr_call(RINGSCAN_EXPR_##op, sizeof((ringscan_expr *[]){__VA_ARGS__}) /      \
                                               sizeof(ringscan_expr *),                   \
                       (ringscan_expr *[]){__VA_ARGS__})

/* Rows of a scan of f with the filter as text or as a tree (-1 on error, err filled). */
/* Rows passing text or tree. The options borrow both for ringscan_scan_start only (ringscan.h):
 * the text is a copy freed, and a tree given as owned freed, before the first batch is read,
 * so a scan that kept a pointer into either reads freed memory. */
static int64_t filtered_rows_of(ringscan_file *f, const char *text, ringscan_expr *owned,
                                const ringscan_expr *tree, ringscan_error *err)
{
    ringscan_options o;
    ringscan_options_init(&o);
    char *copy = text ? strdup(text) : NULL;
    o.filter = copy, o.filter_expr = owned ? owned : tree;
    ringscan_scan *s = NULL;
    int started = ringscan_scan_start(f, &o, &s, err);
    free(copy);
    ringscan_expr_free(owned);
    enum { SCRIBBLES = 512 };
    void *scribble[SCRIBBLES]; /* take the freed blocks back and overwrite them */
    for (int i = 0; i < SCRIBBLES; i++)
        if ((scribble[i] = malloc((size_t)(1 + i % 64)))) memset(scribble[i], 'Z', (size_t)(1 + i % 64));
    if (started) {
        for (int i = 0; i < SCRIBBLES; i++) free(scribble[i]);
        return -1;
    }
    struct ArrowArray a;
    int64_t rows = 0;
    int rc;
    while ((rc = ringscan_scan_next(s, &a, err)) == 1) rows += a.length, a.release(&a);
    ringscan_scan_free(s);
    for (int i = 0; i < SCRIBBLES; i++) free(scribble[i]);
    return rc == 0 ? rows : -1;
}

static int64_t filtered_rows(ringscan_file *f, const char *text, const ringscan_expr *tree,
                             ringscan_error *err)
{
    return filtered_rows_of(f, text, NULL, tree, err);
}

/* A tree means what the same filter as text means: equal row counts on every operator, and
 * errors that name the operator. */
static void test_filter_expr(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    struct { const char *text; ringscan_expr *tree; } cases[] = {
        {"id >= 100 AND id < 200", CALL(AND, CALL(GE, COL("id"), INT(100)), CALL(LT, COL("id"), INT(200)))},
        {"NOT (i32 > 0 OR s LIKE 's1%')",
         CALL(NOT, CALL(OR, CALL(GT, COL("i32"), INT(0)),
                        CALL(LIKE, COL("s"), ringscan_expr_string("s1%", 3))))},
        {"i32 < id", CALL(LT, COL("i32"), COL("id"))},
        {"5 < i32", CALL(LT, INT(5), COL("i32"))},
        {"dt BETWEEN DATE '2022-01-01' AND DATE '2022-03-01'",
         CALL(BETWEEN, COL("dt"), ringscan_expr_date(18993), ringscan_expr_date(19052))},
        {"year(dt) IN (2023, 2030)", CALL(IN, CALL(YEAR, COL("dt")), INT(2023), INT(2030))},
        {"month(dt) NOT BETWEEN 2 AND 11 OR day(dt) = 1",
         CALL(OR, CALL(NOT, CALL(BETWEEN, CALL(MONTH, COL("dt")), INT(2), INT(11))),
              CALL(EQ, CALL(DAY, COL("dt")), INT(1)))},
        {"quarter(dt) IN (1, 4)", CALL(IN, CALL(QUARTER, COL("dt")), INT(1), INT(4))},
        {"date_trunc('month', dt) = DATE '2022-02-01'",
         CALL(EQ, CALL(DATE_TRUNC, ringscan_expr_string("month", 5), COL("dt")), ringscan_expr_date(19024))},
        {"d > 10.5 AND b IS NOT NULL",
         CALL(AND, CALL(GT, COL("d"), ringscan_expr_double(10.5)), CALL(IS_NOT_NULL, COL("b")))},
        {"s IS DISTINCT FROM 's3' AND NOT starts_with(s, 's1')",
         CALL(AND, CALL(IS_DISTINCT_FROM, COL("s"), ringscan_expr_string("s3", 2)),
              CALL(NOT, CALL(STARTS_WITH, COL("s"), ringscan_expr_string("s1", 2))))},
        {"d <= 0 OR i32 NOT IN (1, 2, 3) OR b = TRUE",
         CALL(OR, CALL(LE, COL("d"), ringscan_expr_decimal("0")),
              CALL(NOT, CALL(IN, COL("i32"), INT(1), INT(2), INT(3))),
              CALL(EQ, COL("b"), ringscan_expr_bool(true)))},
        {"i32 * 2 + 1 > id / 10", CALL(GT, CALL(ADD, CALL(MUL, COL("i32"), INT(2)), INT(1)),
                                         CALL(DIV, COL("id"), INT(10)))},
        {"-(id - 50) BETWEEN -100 AND CAST(d AS INTEGER)",
         CALL(BETWEEN, CALL(NEG, CALL(SUB, COL("id"), INT(50))), INT(-100),
              CALL(CAST, COL("d"), ringscan_expr_string("INTEGER", 7)))},
        {"id * 1.5 IN (30, 45.0, 151.5) OR i32 = NULL",
         CALL(OR, CALL(IN, CALL(MUL, COL("id"), ringscan_expr_decimal("1.5")), INT(30),
                       ringscan_expr_decimal("45.0"), ringscan_expr_decimal("151.5")),
              CALL(EQ, COL("i32"), ringscan_expr_null()))},
        {"i32 < d", CALL(LT, COL("i32"), COL("d"))},
        {"s = 's3' OR s IN ('s1x', 's7xxxxxxx')",
         CALL(OR, CALL(EQ, COL("s"), ringscan_expr_string("s3", 2)),
              CALL(IN, COL("s"), ringscan_expr_string("s1x", 3), ringscan_expr_string("s7xxxxxxx", 9)))},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK(cases[i].tree != NULL);
        int64_t want = filtered_rows(f, cases[i].text, NULL, &err);
        int64_t got = filtered_rows_of(f, NULL, cases[i].tree, NULL, &err); /* frees it */
        if (got != want || want <= 0 || want >= ROWS)
            fprintf(stderr, "  %s: tree %lld, text %lld (%s)\n", cases[i].text, (long long)got,
                    (long long)want, err.message);
        CHECK(want > 0 && want < ROWS && got == want);
    }
    struct { ringscan_expr *tree; const char *says; } bad[] = {
        {CALL(EQ, INT(1), INT(2)), "filter_expr: =: expected a column operand"},
        {CALL(LT, COL("nope"), INT(2)), "filter_expr: <: unknown column 'nope'"},
        {CALL(EQ, CALL(YEAR, COL("id")), INT(2)),
         "filter_expr: year() needs a date or timestamp column; 'id' is not one"},
        {CALL(BETWEEN, COL("id"), INT(1)), "filter_expr: BETWEEN: takes an operand, low, high"},
        {CALL(GT, COL("s"), ringscan_expr_double(1.0 / 0.0)),
         "filter_expr: cannot compare STRING column 's' with number"},
        {CALL(IS_NULL, INT(1)), "filter_expr: IS NULL: expected a column operand"},
        {CALL(YEAR, COL("dt")), "filter_expr: year is not a boolean expression here"},
        {CALL(GT, COL("id"), CALL(DIV, INT(1), INT(0))), "filter_expr: division by zero"},
        {CALL(GT, CALL(ADD, COL("s"), INT(1)), INT(0)),
         "filter_expr: column 's' (STRING) takes no arithmetic or CAST"},
        {CALL(GT, CALL(CAST, COL("id"), ringscan_expr_string("TEXT", 4)), INT(0)),
         "filter_expr: CAST to unknown or unsupported type 'TEXT'"},
        {CALL(GT, CALL(CAST, COL("id"), INT(3)), INT(0)),
         "filter_expr: CAST: takes an operand and a type name string"},
        {CALL(GT, CALL(NEG, COL("id"), INT(3)), INT(0)), "filter_expr: negate: takes one operand"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(filtered_rows(f, NULL, bad[i].tree, &err) == -1 && err.status == RINGSCAN_EPARSE);
        size_t n = strlen(err.message), k = strlen(bad[i].says); /* after "path: " */
        bool ends = n > k + 2 && strcmp(err.message + n - k, bad[i].says) == 0 &&
                    strncmp(err.message + n - k - 2, ": ", 2) == 0;
        if (!ends) fprintf(stderr, "  got: %s\n", err.message);
        CHECK(ends);
        ringscan_expr_free(bad[i].tree);
    }
    /* arithmetic prunes row groups by interval arithmetic: ids 0..999 are the first group */
    static const struct { const char *text; int64_t rows, pruned, pages; } arith[] = {
        {"id * 2 < 200", 100, ROWS / RG_ROWS - 1, 3},          /* pages of 250 rows: 1 of 4 */
        {"(id - 500) * (id - 500) < 100", 19, ROWS / RG_ROWS - 1, 2},   /* pages 1 and 2 kept */
        {"CAST(id AS DOUBLE) / 1000 >= 4.5", 500, ROWS / RG_ROWS - 1, 2},
        {"id + i32 < -10000", 0, -1, -1},                               /* i32's range decides */
        {"id * 2 < 200 OR id = 4999", 101, ROWS / RG_ROWS - 2, 6},      /* the union of parts */
    };
    for (size_t i = 0; i < sizeof arith / sizeof *arith; i++) {
        ringscan_options o;
        ringscan_stats st;
        ringscan_options_init(&o);
        o.filter = arith[i].text;
        int64_t rows = run_scan(f, &o, &st, NULL, 0);
        if (rows != arith[i].rows || (arith[i].pruned >= 0 && st.row_groups_pruned != arith[i].pruned) ||
            (arith[i].pages >= 0 && st.pages_pruned != arith[i].pages * NC))
            fprintf(stderr, "  %s: rows %lld, pruned %lld, pages %lld\n", arith[i].text, (long long)rows,
                    (long long)st.row_groups_pruned, (long long)st.pages_pruned);
        CHECK(rows == arith[i].rows);
        CHECK(arith[i].pruned < 0 || st.row_groups_pruned == arith[i].pruned);
        CHECK(arith[i].pages < 0 || st.pages_pruned == arith[i].pages * NC);
    }
    ringscan_expr *t = CALL(GT, COL("id"), INT(1));
    CHECK(filtered_rows(f, "id > 1", t, &err) == -1 && err.status == -EINVAL);
    ringscan_expr_free(t);
    /* a NULL operand (an allocation that failed) makes the whole call NULL */
    CHECK(CALL(AND, COL("id"), NULL) == NULL);
    CHECK(ringscan_expr_call(RINGSCAN_EXPR_CAST + 1, 0, NULL) == NULL);
    ringscan_close(f);
}

/* The options and counters appended for hosts (and ringscan scan): page index and bloom
 * switches, explain text, INT96 form, and the extra counters. */
static void test_options_tail(void)
{
    ringscan_options o;
    memset(&o, 0x5a, sizeof o);
    ringscan_options_init(&o);
    CHECK(o.use_page_index && o.use_bloom && !o.explain && !o.int96_raw);
    CHECK(strcmp(ringscan_scan_explain(NULL), "") == 0);
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    if (!f) return;
    static char text[1 << 16];
    ringscan_stats st;
    o.filter = "id >= 100 AND id < 200"; /* row group 0 only; its pages of 250 rows: 1 of 4 */
    CHECK_EQ_I64(run_scan(f, &o, &st, text, sizeof text), 100);
    CHECK(strcmp(text, "") == 0);
    CHECK_EQ_I64(st.splits, ROWS / RG_ROWS);
    CHECK_EQ_I64(st.row_groups_pruned, ROWS / RG_ROWS - 1);
    CHECK_EQ_I64(st.pages_pruned, 3 * NC); /* counted per column */
    CHECK(st.io_backend[0] && (strcmp(st.io_backend, "io_uring") == 0) == st.io_uring);
    CHECK(st.bytes_decompressed > 0);
    /* a conjunct over two columns prunes row groups when both parts rule them out, and pages
     * outside the union of its parts' pages: d < -90 (rows 0..39) keeps page 0 of row group 0,
     * id > 4960 page 3 of row group 4; the three groups between are pruned whole. (d is a
     * double: d > x could not prune, a NaN would pass it; d < x can.) */
    o.filter = "d < -90 OR id > 4960";
    CHECK_EQ_I64(run_scan(f, &o, &st, text, sizeof text), 40 + 39);
    CHECK_EQ_I64(st.row_groups_pruned, 3);
    CHECK_EQ_I64(st.pages_pruned, 2 * 3 * NC);
    o.filter = "id < 100 OR id > i32"; /* a part that compares two columns: no page ruled out */
    CHECK(run_scan(f, &o, &st, text, sizeof text) > 100);
    CHECK_EQ_I64(st.pages_pruned, 0);
    o.filter = "id >= 100 AND id < 200";
    o.use_page_index = false;
    o.explain = true;
    CHECK_EQ_I64(run_scan(f, &o, &st, text, sizeof text), 100);
    CHECK_EQ_I64(st.pages_pruned, 0);
    CHECK_EQ_I64(st.plan_reads, 0);
    CHECK(strstr(text, "pruned by") != NULL); /* the four other row groups */
    ringscan_close(f);
}

/* Over a simulated store (1 ms to first byte), every policy, thread count and fetch budget
 * (default, 0 = no read-ahead, 1 byte = read-ahead paused after the first range) returns
 * exactly the local file's rows and values, ordered when asked; --explain names the store,
 * its cost model and the read-ahead. */
static void test_store(void)
{
    ringscan_options o;
    ringscan_options_init(&o);
    CHECK_EQ_I64(o.fetch_budget_bytes, -1);
    o.store = "sim:ttfb=1ms,bw=1GB/s,conns=8,seed=3";
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open_with(path, &o, &f, &err), 0);
    if (!f) return;
    static const int64_t budgets[] = {-1, 0, 1};
    for (int p = 0; p < 3; p++)
        for (int th = 1; th <= 2; th++)
            for (size_t b = 0; b < 3; b++) {
                o.policy = (ringscan_policy)p;
                o.threads = th;
                o.fetch_budget_bytes = budgets[b];
                o.ordered = b == 2;
                o.filter = "i32 > -300 AND id < 4500";
                o.explain = true;
                ringscan_scan *s = NULL;
                CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
                if (!s) continue;
                struct ArrowArray a;
                int64_t rows = 0, last = -1, got;
                while (ringscan_scan_next(s, &a, &err) == 1) {
                    got = check_batch(&a, &last, o.ordered);
                    CHECK(got > 0);
                    rows += got > 0 ? got : 0;
                    a.release(&a);
                }
                int64_t want = 0;
                for (int64_t r = 0; r < 4500; r++) want += !is_null(1, r) && v_i32(r) > -300;
                CHECK_EQ_I64(rows, want);
                const char *x = ringscan_scan_explain(s);
                CHECK(strstr(x, "store: sim, model 1.0 ms to first byte") != NULL);
                CHECK(strstr(x, budgets[b] == 0 ? "read-ahead: 4 tasks per core (4 never wait), budget 0 B"
                                                : "read-ahead: 32 tasks per core (1 never wait)") != NULL);
                ringscan_scan_free(s);
            }
    /* a limit ends the base tasks early: the gated ones never wait on (inv. 4 of fetch_budget.c) */
    o.filter = NULL;
    o.limit = 10;
    o.ordered = false;
    o.fetch_budget_bytes = 1;
    for (int th = 1; th <= 2; th++) {
        o.threads = th;
        ringscan_stats st;
        static char text[1 << 16];
        CHECK_EQ_I64(run_scan(f, &o, &st, text, sizeof text), 10);
        /* the store's requests since the open: the footer's only (its tail holds the small
         * file whole: the splits' chunks come from it, pqfile.h) */
        CHECK(st.store_requests == 1 && st.reads == (uint64_t)st.footer_reads && st.reads_kept >= 1);
    }
    o.limit = -1;
    ringscan_close(f);
    ringscan_stats local;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    CHECK(run_scan(f, &o, &local, NULL, 0) > 0);
    CHECK(local.store_requests == 0 && local.store_bytes == 0); /* a local file has no store */
    ringscan_close(f);
    o.fetch_budget_bytes = -2;
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), -EINVAL);
    CHECK(strstr(err.message, "fetch_budget_bytes below -1") != NULL);
    ringscan_close(f);
    o.store = "sim:nope=1";
    CHECK_EQ_I64(ringscan_open_with(path, &o, &f, &err), -EINVAL);
    CHECK(f == NULL && strstr(err.message, "unknown key in 'nope=1'") != NULL);
}

int main(void)
{
    ts_dir_init();
    ts_path(path, sizeof path, "api.parquet");
    if (write_file(path, ROWS, RG_ROWS) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    RUN(test_open);
    RUN(test_schema_and_batches);
    RUN(test_mmap_truncated);
    RUN(test_projection_and_late_release);
    RUN(test_stream);
    RUN(test_stream_holds_scan);
    RUN(test_plan_row_groups);
    RUN(test_errors);
    RUN(test_limit);
    RUN(test_progress);
    RUN(test_bad_arguments);
    RUN(test_options_tail);
    RUN(test_filter_expr);
    RUN(test_store);
    ts_dir_remove();
    return CHECK_DONE("test_scan_api");
}
