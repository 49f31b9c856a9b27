/* tests for out-of-memory handling across the whole library (common/fail.h), in the manner
 * of SQLite's OOM tests: each of five scans through the public API (ringscan_open,
 * ringscan_scan_start, ringscan_scan_next until the end, ringscan_scan_free, ringscan_close)
 * is run with the nth failure point made to fail, for n = 1, 2, ... until a run passes every
 * point without one failing. Each run must end with the uninjected run's rows and checksum
 * or with a clean -ENOMEM (-EAGAIN for a thread that cannot be created); a run that takes
 * longer than RUN_TIMEOUT_S is a hang and kills the program; the sanitizer build's
 * LeakSanitizer checks that no run leaks.
 * Points are allocations, coroutine stacks, io_uring rings and threads, counted across all
 * threads (so two runs of the same n may fail different points; the sweep still ends).
 * Modes: RINGSCAN_OOM_FULL=1 tries every n (one command: scripts/oom.sh); by default a
 * sample of SAMPLE_RUNS values of n per scan (the first 8, then random ones up to the points
 * a whole run passes) from RINGSCAN_OOM_SEED or the clock, printed.
 * RINGSCAN_OOM_PERSIST=1 makes every point from the nth on fail, not only the nth.
 * The writer (format/writer.h) is swept the same way: 0 and a file that scans to the same
 * answer, or -ENOMEM.
 * Every scan that ended, failed ones too, keeps io.h invariant 3 in its statistics (bytes_read +
 * bytes_kept = bytes_used + bytes_wasted).
 * Also: a coroutine stack that cannot be mapped ends the scan with -ENOMEM, not a hang
 * (issue 18, defect 5), and a thread that cannot be created ends ringscan_scan_start. */
#include <signal.h>
#include <time.h>

#include "check.h"
#include "ringscan.h"
#include "common/fail.h"
#include "test_scan_common.h"

enum { ROWS = 8000, RG_ROWS = 1000, NC = 3, RUN_TIMEOUT_S = 30, SAMPLE_RUNS = 200, TOPK_K = 50 };
enum { N_MAX = 1 << 20 }; /* bound on the sweep: far above the points of one run */

static char paths[3][256]; /* snappy, zstd, the writer sweep's */

/* The scans tried: two conjuncts (adaptive order), string ones in file order with every read
 * at once, a LIMIT in file order on one core (their answers are deterministic), no filter
 * over pread (whole row groups: steals and lends), and an IN list that bloom filters and
 * statistics prune, and a Top-K scan (ORDER BY v DESC LIMIT 50: the bound, its page pruning,
 * the heaps and the merge). */
typedef struct oom_case {
    const char *name;
    int file;
    const char *filter;
    int threads;
    ringscan_policy policy;
    bool ordered;
    int64_t limit;
    ringscan_io io;
    int64_t split_rows; /* < 0: whole row groups */
    const char *order_by; /* NULL: no ORDER BY */
} oom_case;
static const oom_case cases[] = {
    {"adaptive, 2 threads", 0, "v < 300 AND id >= 100", 2, RINGSCAN_POLICY_ADAPTIVE, false, -1,
     RINGSCAN_IO_AUTO, 250, NULL},
    {"eager, ordered", 0, "s >= 's5' AND v IS NOT NULL", 2, RINGSCAN_POLICY_EAGER, true, -1,
     RINGSCAN_IO_AUTO, 250, NULL},
    {"zstd, lazy, limit", 1, "id >= 2000 AND v > 100", 1, RINGSCAN_POLICY_LAZY, true, 700,
     RINGSCAN_IO_AUTO, 250, NULL},
    {"no filter, pread, whole row groups", 1, NULL, 2, RINGSCAN_POLICY_ADAPTIVE, false, -1,
     RINGSCAN_IO_PREAD, -1, NULL},
    {"IN list, bloom filters", 1, "id IN (5, 1234, 7777, 9000) AND s IS NOT NULL", 2,
     RINGSCAN_POLICY_ADAPTIVE, false, -1, RINGSCAN_IO_AUTO, -1, NULL},
    {"top-k", 0, "id >= 100", 2, RINGSCAN_POLICY_ADAPTIVE, true, TOPK_K, RINGSCAN_IO_AUTO, 250,
     "v DESC"},
};
enum { NCASES = sizeof cases / sizeof cases[0] };
static const char *const names[NC] = {"id", "v", "s"};

static bool v_null(int64_t r) { return r % 7 == 3; }
static int32_t v_of(int64_t r) { return (int32_t)(r * 37 % 1001); }
static bool s_null(int64_t r) { return r % 5 == 1; }
static int s_of(int64_t r, char *out)
{
    return snprintf(out, 32, "s%lld-%lld", (long long)r, (long long)(r % 13));
}

static int file_sink(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : -EIO;
}

/* Writes the table to path with codec (zstd: bloom filters on id and s, v without a
 * dictionary). 0 or the writer's status; prints nothing (the writer sweep fails it often). */
static int write_file(const char *path, pq_codec codec, const pq_vec *v)
{
    static const uint8_t flags[NC] = {PQ_WCOL_BLOOM, PQ_WCOL_NO_DICT, PQ_WCOL_BLOOM};
    pq_column_desc sch[NC] = {ts_desc(names[0], PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                              ts_desc(names[1], PQ_INT32, 0, true, PQ_LOGICAL_NONE),
                              ts_desc(names[2], PQ_BYTE_ARRAY, 0, true, PQ_LOGICAL_STRING)};
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = RG_ROWS;
    wo.page_rows = 250;
    wo.page_index = true;
    wo.codec = codec;
    if (codec == PQ_CODEC_ZSTD) wo.col_flags = flags;
    FILE *fp = fopen(path, "wb");
    if (!fp) return -errno;
    pq_err e = {.offset = -1};
    pq_writer *w = NULL;
    int rc = pq_writer_open(&w, sch, NC, &wo, file_sink, fp, &e);
    if (rc == 0) rc = pq_writer_write(w, v, ROWS, &e);
    if (rc == 0) rc = pq_writer_close(w, &e);
    pq_writer_free(w);
    if (fclose(fp) != 0 && rc == 0) rc = -EIO;
    return rc;
}

/* The table's columns (built disarmed: pq_vec allocates through the hook). */
static pq_vec table[NC];
static void table_build(void)
{
    static const pq_physical phys[NC] = {PQ_INT64, PQ_INT32, PQ_BYTE_ARRAY};
    for (int c = 0; c < NC; c++) ts_vec_new(&table[c], phys[c], 0, ROWS, ROWS * 32);
    for (int64_t r = 0; r < ROWS; r++) {
        int32_t x = v_of(r);
        char s[32];
        int n = s_of(r, s);
        ts_put_fixed(&table[0], &r, false);
        ts_put_fixed(&table[1], &x, v_null(r));
        ts_put_bytes(&table[2], (const uint8_t *)s, n, s_null(r));
    }
}

typedef struct outcome {
    int status;    /* 0, or the first error */
    int64_t rows;  /* rows delivered (before an error) */
    uint64_t hash; /* order-independent: sum of one hash per row */
} outcome;

static bool valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->buffers[0];
    return a->null_count == 0 || !bits || ((bits[(a->offset + i) >> 3] >> ((a->offset + i) & 7)) & 1);
}

static uint64_t row_hash(const struct ArrowArray *a, int64_t i)
{
    const struct ArrowArray *id = a->children[0], *v = a->children[1], *s = a->children[2];
    uint64_t h = ts_mix(0, (uint64_t)((const int64_t *)id->buffers[1])[id->offset + i]);
    h = ts_mix(h, valid(v, i) ? (uint64_t)((const int32_t *)v->buffers[1])[v->offset + i] : ~0ull);
    if (!valid(s, i)) return ts_mix(h, 0x5eed);
    const int32_t *off = (const int32_t *)s->buffers[1] + s->offset;
    return ts_hash_bytes(h, (const uint8_t *)s->buffers[2] + off[i], off[i + 1] - off[i]);
}

/* Reads scan s (started when out->status is 0) to its end, each batch handed to add, then
 * frees it; the first failure's status in out->status, err filled. */
static void drain(ringscan_scan *s, outcome *out, ringscan_error *err,
                  void (*add)(const struct ArrowArray *a, outcome *out))
{
    struct ArrowArray a;
    int rc = 0;
    while (out->status == 0 && (rc = ringscan_scan_next(s, &a, err)) == 1) {
        add(&a, out);
        out->rows += a.length;
        a.release(&a);
    }
    if (out->status == 0) out->status = rc;
    if (out->status < 0) CHECK(err->status == out->status && err->message[0] != '\0');
    ringscan_stats st; /* io.h invariant 3 holds at the end, a failed scan's too */
    ringscan_scan_stats(s, &st);
    if (st.complete && st.bytes_read + st.bytes_kept != st.bytes_used + st.bytes_wasted)
        fprintf(stderr, "  stats: status %d: bytes_read %llu + bytes_kept %llu != bytes_used %llu + "
                "bytes_wasted %llu\n", out->status, (unsigned long long)st.bytes_read,
                (unsigned long long)st.bytes_kept, (unsigned long long)st.bytes_used,
                (unsigned long long)st.bytes_wasted);
    CHECK(!st.complete || st.bytes_read + st.bytes_kept == st.bytes_used + st.bytes_wasted);
    ringscan_scan_free(s);
}

/* One whole scan of path with o through the public API, each batch handed to add (which
 * folds it into out's hash); every step's failure ends it with its status. */
static outcome scan_with(const char *path, const ringscan_options *o,
                         void (*add)(const struct ArrowArray *a, outcome *out))
{
    outcome out = {0, 0, 0};
    ringscan_file *f = NULL;
    ringscan_scan *s = NULL;
    ringscan_error err;
    out.status = ringscan_open(path, &f, &err);
    if (out.status != 0) return out;
    out.status = ringscan_scan_start(f, o, &s, &err);
    drain(s, &out, &err, add);
    ringscan_close(f);
    return out;
}

/* The rows of a batch of the model's table: one hash each, summed (order-independent). */
static void add_rows(const struct ArrowArray *a, outcome *out)
{
    CHECK(a->n_children == NC && a->length > 0);
    for (int64_t i = 0; i < a->length && a->n_children == NC; i++) out->hash += row_hash(a, i);
}

/* One scan of case c. */
static outcome scan_once(const oom_case *c)
{
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter = c->filter;
    o.threads = c->threads;
    o.policy = c->policy;
    o.ordered = c->ordered;
    o.limit = c->limit;
    o.io = c->io;
    o.split_rows = c->split_rows;
    o.order_by = c->order_by;
    return scan_with(paths[c->file], &o, add_rows);
}

/* ---- the watchdog: a run that does not end is a hang ---- */

static volatile sig_atomic_t g_run_n;

static void on_alarm(int sig)
{
    (void)sig;
    char msg[96];
    int len = snprintf(msg, sizeof msg, "test_oom: HANG: run with failure point %d did not end\n",
                       (int)g_run_n);
    if (write(2, msg, (size_t)len) < 0) _exit(3);
    _exit(2);
}

static outcome refs[NCASES];
static int64_t g_ok, g_nomem, g_again, g_tried;

/* Runs one scan with point n (>= 1) armed; checks its end. Returns the points that failed. */
static int64_t run_armed(const oom_case *c, int64_t n, bool persist)
{
    const outcome ref = refs[c - cases];
    g_run_n = (sig_atomic_t)n;
    alarm(RUN_TIMEOUT_S);
    fail_arm(FAIL_ALL, n, persist);
    outcome got = scan_once(c);
    fail_disarm();
    alarm(0);
    int64_t fired = fail_points_fired();
    g_tried++;
    bool right = got.status == 0 && got.rows == ref.rows && got.hash == ref.hash;
    if (right) {
        g_ok++;
    } else if (fired > 0 && got.status == -ENOMEM) {
        g_nomem++;
    } else if (fired > 0 && got.status == -EAGAIN) {
        g_again++;
    } else {
        fprintf(stderr, "  %s: point %lld (%lld failed): status %d, %lld rows (want %lld)\n",
                c->name, (long long)n, (long long)fired, got.status, (long long)got.rows,
                (long long)ref.rows);
        CHECK(right);
    }
    return fired;
}

static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

/* ---- cases ---- */

/* Rows case c must give (computed from the model, in file order up to its limit). */
static int64_t want_rows(const oom_case *c)
{
    int64_t n = 0;
    for (int64_t r = 0; r < ROWS; r++) {
        char str[32];
        s_of(r, str);
        bool keep = c == &cases[0]   ? !v_null(r) && v_of(r) < 300 && r >= 100
                    : c == &cases[1] ? !s_null(r) && strcmp(str, "s5") >= 0 && !v_null(r)
                    : c == &cases[2] ? r >= 2000 && !v_null(r) && v_of(r) > 100
                    : c == &cases[3] ? true
                    : c == &cases[5] ? r >= 100
                                     : (r == 5 || r == 1234 || r == 7777) && !s_null(r);
        n += keep;
    }
    return c->limit >= 0 && n > c->limit ? c->limit : n;
}

static void reference(void)
{
    for (int k = 0; k < NCASES; k++) {
        refs[k] = scan_once(&cases[k]);
        CHECK_EQ_I64(refs[k].status, 0);
        CHECK_EQ_I64(refs[k].rows, want_rows(&cases[k]));
        CHECK(refs[k].rows > 0);
        outcome again = scan_once(&cases[k]); /* the answer is deterministic */
        CHECK(again.status == 0 && again.rows == refs[k].rows && again.hash == refs[k].hash);
    }
}

/* Issue 18 defect 5: the first coroutine stack cannot be mapped (so none of one core's
 * workers exists), then no stack at all: the scan ends with -ENOMEM, never hangs. */
static void stack_mapping_fails(void)
{
    for (int persist = 0; persist < 2; persist++) {
        g_run_n = -1;
        alarm(RUN_TIMEOUT_S);
        ringscan_release_memory(); /* earlier scans' stacks: this one's are mapped anew */
        fail_arm(FAIL_STACK, 1, persist);
        outcome got = scan_once(&cases[0]);
        fail_disarm();
        alarm(0);
        CHECK(fail_points_fired() >= 1);
        CHECK_EQ_I64(got.status, -ENOMEM);
    }
    /* disarmed again, the next scan is whole */
    outcome again = scan_once(&cases[0]);
    CHECK_EQ_I64(again.status, 0);
    CHECK_EQ_I64(again.rows, refs[0].rows);
    CHECK(again.hash == refs[0].hash);
}

/* The second executor thread cannot be created: ringscan_scan_start returns -EAGAIN. */
static void thread_creation_fails(void)
{
    g_run_n = -2;
    alarm(RUN_TIMEOUT_S);
    fail_arm(FAIL_THREAD, 2, false);
    outcome got = scan_once(&cases[0]);
    fail_disarm();
    alarm(0);
    CHECK_EQ_I64(fail_points_fired(), 1);
    CHECK_EQ_I64(got.status, -EAGAIN);
}

/* Every n from RINGSCAN_OOM_FROM (default 1) until a run passes all its points. */
static void sweep_full(const oom_case *c, bool persist)
{
    const char *from = getenv("RINGSCAN_OOM_FROM"); /* to rerun one failing point */
    int64_t n = from ? strtoll(from, NULL, 10) : 1;
    if (n < 1) n = 1;
    while (n < N_MAX && run_armed(c, n, persist) > 0 && !chk_case_failed) n++;
    CHECK(n < N_MAX);
}

/* The first points, then a sample of the points of a whole run. */
static void sweep_sample(const oom_case *c, bool persist)
{
    fail_arm(FAIL_ALL, INT64_MAX, false); /* counts the points of a whole run */
    outcome counted = scan_once(c);
    fail_disarm();
    int64_t points = fail_points_seen();
    CHECK_EQ_I64(counted.status, 0);
    CHECK(points > 0);
    for (int i = 0; i < SAMPLE_RUNS && points > 0 && !chk_case_failed; i++)
        run_armed(c, i < 8 ? i + 1 : ts_range(1, points), persist);
}

static void sweep(void)
{
    bool full = env_on("RINGSCAN_OOM_FULL"), persist = env_on("RINGSCAN_OOM_PERSIST");
    const char *se = getenv("RINGSCAN_OOM_SEED");
    uint64_t seed = se ? strtoull(se, NULL, 10) : (uint64_t)time(NULL);
    ts_rng = seed;
    for (int k = 0; k < NCASES && !chk_case_failed; k++) {
        int64_t tried = g_tried;
        if (full) sweep_full(&cases[k], persist);
        else sweep_sample(&cases[k], persist);
        printf("  %s: %lld failure points tried\n", cases[k].name, (long long)(g_tried - tried));
    }
    printf("  %s%s: %lld failure points tried (seed %llu): %lld right answers, %lld -ENOMEM, "
           "%lld -EAGAIN\n", full ? "full sweep" : "sample (RINGSCAN_OOM_FULL=1: every point)",
           persist ? ", persistent" : "", (long long)g_tried, (unsigned long long)seed,
           (long long)g_ok, (long long)g_nomem, (long long)g_again);
}

/* The writer (format/writer.h) with point n failing: 0 and a file that scans to the same
 * answer as the uninjected one, or -ENOMEM; nothing leaks. Returns the points that failed. */
static int64_t write_armed(int file, int64_t n, bool persist)
{
    pq_codec codec = file == 0 ? PQ_CODEC_SNAPPY : PQ_CODEC_ZSTD;
    g_run_n = (sig_atomic_t)n;
    alarm(RUN_TIMEOUT_S);
    fail_arm(FAIL_ALL, n, persist);
    int rc = write_file(paths[2], codec, table);
    fail_disarm();
    alarm(0);
    int64_t fired = fail_points_fired();
    g_tried++;
    if (rc == -ENOMEM && fired > 0) {
        g_nomem++;
        return fired;
    }
    CHECK_EQ_I64(rc, 0);
    oom_case c = cases[file == 0 ? 0 : 4]; /* a scan of each file's */
    c.file = 2;
    outcome got = scan_once(&c);
    const outcome *ref = &refs[file == 0 ? 0 : 4];
    CHECK(got.status == 0 && got.rows == ref->rows && got.hash == ref->hash);
    g_ok++;
    return fired;
}

static void writer_sweep(void)
{
    bool full = env_on("RINGSCAN_OOM_FULL"), persist = env_on("RINGSCAN_OOM_PERSIST");
    g_tried = g_ok = g_nomem = g_again = 0;
    for (int file = 0; file < 2 && !chk_case_failed; file++) {
        int64_t tried = g_tried;
        fail_arm(FAIL_ALL, INT64_MAX, false); /* counts the points of a whole write */
        CHECK_EQ_I64(write_file(paths[2], file == 0 ? PQ_CODEC_SNAPPY : PQ_CODEC_ZSTD, table), 0);
        fail_disarm();
        int64_t points = fail_points_seen();
        if (full) {
            int64_t n = 1;
            while (n < N_MAX && write_armed(file, n, persist) > 0 && !chk_case_failed) n++;
            CHECK(n < N_MAX);
        } else {
            for (int i = 0; i < SAMPLE_RUNS / 2 && points > 0 && !chk_case_failed; i++)
                write_armed(file, i < 8 ? i + 1 : ts_range(1, points), persist);
        }
        printf("  writer, %s: %lld failure points tried (a write passes %lld)\n",
               file == 0 ? "snappy" : "zstd, bloom filters", (long long)(g_tried - tried),
               (long long)points);
    }
    printf("  writer %s%s: %lld failure points tried: %lld whole files, %lld -ENOMEM\n",
           full ? "full sweep" : "sample", persist ? ", persistent" : "", (long long)g_tried,
           (long long)g_ok, (long long)g_nomem);
}

/* ---- nested fields (format/column_nested.c, scan/task_nested.c, scan/arrow_nested.c) ---- */

#define NESTED_FILE "../shared/parquet-testing/data/nullable.impala.parquet"

/* The shape of array a: lengths, null counts and list offsets at every level (leaf values are
 * covered by the conformance test; here a failure must end whole or with -ENOMEM). */
static uint64_t shape_hash(const struct ArrowArray *a, uint64_t h)
{
    h = ts_mix(ts_mix(h, (uint64_t)a->length), (uint64_t)a->null_count);
    if (a->n_children == 1 && a->n_buffers == 2) /* a list or map: its offsets */
        for (int64_t i = 0; i <= a->length; i++)
            h = ts_mix(h, (uint64_t)((const int32_t *)a->buffers[1])[a->offset + i]);
    for (int64_t c = 0; c < a->n_children; c++) h = shape_hash(a->children[c], h);
    return h;
}

static void add_shape(const struct ArrowArray *a, outcome *out)
{
    out->hash = shape_hash(a, out->hash);
}

/* Every field of NESTED_FILE (maps, lists of lists, lists of maps, a struct of lists). */
static outcome nested_once(void)
{
    ringscan_options o;
    ringscan_options_init(&o);
    o.ordered = true;
    return scan_with(NESTED_FILE, &o, add_shape);
}

/* Every failure point of a scan of every nested field: the whole answer or -ENOMEM. */
static void nested_sweep(void)
{
    outcome ref = nested_once();
    CHECK_EQ_I64(ref.status, 0);
    CHECK_EQ_I64(ref.rows, 7);
    int64_t n = 1, ok = 0, nomem = 0;
    for (; n < N_MAX && !chk_case_failed; n++) {
        g_run_n = (sig_atomic_t)n;
        alarm(RUN_TIMEOUT_S);
        fail_arm(FAIL_ALL, n, false);
        outcome got = nested_once();
        fail_disarm();
        alarm(0);
        int64_t fired = fail_points_fired();
        bool right = got.status == 0 && got.rows == ref.rows && got.hash == ref.hash;
        if (!right && !(fired > 0 && (got.status == -ENOMEM || got.status == -EAGAIN)))
            fprintf(stderr, "  nested: point %lld: status %d, %lld rows\n", (long long)n,
                    got.status, (long long)got.rows);
        CHECK(right || (fired > 0 && (got.status == -ENOMEM || got.status == -EAGAIN)));
        ok += right, nomem += !right;
        if (fired == 0) break; /* past the run's last point */
    }
    CHECK(n < N_MAX);
    printf("  nested fields: %lld failure points tried: %lld right answers, %lld -ENOMEM/-EAGAIN\n",
           (long long)n, (long long)ok, (long long)nomem);
}

/* ---- a dataset: footers read as futures, union_by_name casts, a filter on cast values ---- */

static char ds_dir[256];

static char real_dir[256];

/* real_dir: 1.parquet the model's id and v and its id as a DECIMAL(18,2) "s"; 2.parquet the
 * same with "s" a DOUBLE (the id's value), which a scan without union_by_name casts into the
 * first file's decimal (ds_widen.c real_cast). */
static int real_build(const pq_writer_opts *wo)
{
    char p[300];
    snprintf(real_dir, sizeof real_dir, "%s/oomreal", ts_dir);
    if (mkdir(real_dir, 0755) != 0) return -errno;
    pq_vec dbl;
    ts_vec_new(&dbl, PQ_DOUBLE, 0, ROWS, 0);
    for (int64_t r = 0; r < ROWS; r++) {
        double x = (double)r;
        ts_put_fixed(&dbl, &x, false);
    }
    pq_column_desc sch[3] = {ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("v", PQ_INT32, 0, true, PQ_LOGICAL_NONE),
                             ts_desc("s", PQ_INT64, 0, false, PQ_LOGICAL_DECIMAL)};
    pq_vec cols[3] = {table[0], table[1], table[0]};
    snprintf(p, sizeof p, "%s/1.parquet", real_dir);
    int rc = ts_write(p, sch, 3, cols, ROWS, wo);
    sch[2] = ts_desc("s", PQ_DOUBLE, 0, false, PQ_LOGICAL_NONE), cols[2] = dbl;
    snprintf(p, sizeof p, "%s/2.parquet", real_dir);
    if (rc == 0) rc = ts_write(p, sch, 3, cols, ROWS, wo);
    pq_vec_free(&dbl);
    return rc;
}

/* ds_dir: 1.parquet the model's table; 2.parquet its id and v's values as an INT32 "s" (no
 * v); 3.parquet its id, v and id as a DECIMAL(18,2) "s". union_by_name: s VARCHAR (the
 * integers and decimals cast to text), so a filter on s is evaluated on cast values. */
static int dataset_build(void)
{
    char p[300];
    snprintf(ds_dir, sizeof ds_dir, "%s/oomds", ts_dir);
    if (mkdir(ds_dir, 0755) != 0) return -errno;
    snprintf(p, sizeof p, "%s/1.parquet", ds_dir);
    int rc = write_file(p, PQ_CODEC_SNAPPY, table);
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = RG_ROWS;
    pq_column_desc two[2] = {ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("s", PQ_INT32, 0, true, PQ_LOGICAL_NONE)};
    pq_vec cols2[2] = {table[0], table[1]};
    snprintf(p, sizeof p, "%s/2.parquet", ds_dir);
    if (rc == 0) rc = ts_write(p, two, 2, cols2, ROWS, &wo);
    pq_column_desc three[3] = {ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                               ts_desc("v", PQ_INT32, 0, true, PQ_LOGICAL_NONE),
                               ts_desc("s", PQ_INT64, 0, false, PQ_LOGICAL_DECIMAL)};
    pq_vec cols3[3] = {table[0], table[1], table[0]};
    snprintf(p, sizeof p, "%s/3.parquet", ds_dir);
    if (rc == 0) rc = ts_write(p, three, 3, cols3, ROWS, &wo);
    return rc == 0 ? real_build(&wo) : rc;
}

/* The dataset's rows: their count and the sum of a hash of each id (order-independent). */
static void add_ids(const struct ArrowArray *a, outcome *out)
{
    CHECK(a->n_children == NC && a->length > 0);
    const struct ArrowArray *id = a->children[0];
    for (int64_t i = 0; i < a->length && a->n_children == NC; i++)
        out->hash += ts_mix(0, (uint64_t)((const int64_t *)id->buffers[1])[id->offset + i]);
}

/* One scan of the dataset: variant bit 0 mmap, bit 1 one footer at a time (windows of one
 * file, read on the runtime's cores), bit 2 a filter on s (cast values) and a limit, bit 3
 * ORDER BY v DESC LIMIT 30 (the files' best rows merged: ds_topk.c), bit 4 NESTED_FILE named
 * twice instead (every nested field: the schema's shapes, ds_nested.c), bit 5 real_dir
 * without union_by_name instead (a DOUBLE cast into a decimal). */
static outcome dataset_once(int variant)
{
    outcome out = {0, 0, 0};
    const char *paths[] = {variant & 32 ? real_dir : ds_dir}, *nested[] = {NESTED_FILE, NESTED_FILE};
    ringscan_options o;
    ringscan_options_init(&o);
    o.union_by_name = !(variant & 32);
    o.threads = 2;
    o.read_mode = variant & 1 ? RINGSCAN_READ_MMAP : RINGSCAN_READ_COPY;
    o.max_open_files = variant & 2 ? 1 : 64;
    if (variant & 4) o.filter = "s >= '5' AND id >= 100", o.limit = 9000, o.ordered = true;
    if (variant & 8) o.order_by = "v DESC", o.limit = 30, o.filter = "id >= 10";
    o.ordered = o.ordered || (variant & 16);
    ringscan_dataset *d = NULL;
    ringscan_scan *s = NULL;
    ringscan_error err;
    out.status = variant & 16 ? ringscan_dataset_open(nested, 2, &o, &d, &err)
                              : ringscan_dataset_open(paths, 1, &o, &d, &err);
    if (out.status == 0) out.status = ringscan_dataset_scan_start(d, &o, &s, &err);
    drain(s, &out, &err, variant & 16 ? add_shape : add_ids);
    ringscan_dataset_close(d);
    return out;
}

/* Every failure point of six dataset scans: the whole answer, or -ENOMEM / -EAGAIN (found:
 * a footer task its core could not create left a slot unread, dereferenced as NULL; casts'
 * vectors leaked when their allocation failed half-way; the filter's typing against the
 * schema out of memory made the files parse it in their own types, RINGSCAN_EPARSE; the
 * Top-K merge's batch leaked when a take failed half-way; a nested field whose shape check
 * ran out of memory was taken for one the format cannot read and left out of the schema,
 * the scan ending 0 without that column; a DOUBLE cast into a decimal leaked its vector when
 * its allocation failed half-way). */
static void dataset_sweep(void)
{
    CHECK_EQ_I64(dataset_build(), 0);
    static const int variants[] = {2, 5, 6, 8, 16, 32};
    for (size_t k = 0; k < sizeof variants / sizeof variants[0] && !chk_case_failed; k++) {
        outcome ref = dataset_once(variants[k]);
        CHECK_EQ_I64(ref.status, 0);
        CHECK(ref.rows > 0);
        int64_t n = 1, ok = 0, nomem = 0;
        for (; n < N_MAX && !chk_case_failed; n++) {
            g_run_n = (sig_atomic_t)n;
            alarm(RUN_TIMEOUT_S);
            fail_arm(FAIL_ALL, n, env_on("RINGSCAN_OOM_PERSIST"));
            outcome got = dataset_once(variants[k]);
            fail_disarm();
            alarm(0);
            int64_t fired = fail_points_fired();
            bool right = got.status == 0 && got.rows == ref.rows && got.hash == ref.hash;
            bool nomem_ok = fired > 0 && (got.status == -ENOMEM || got.status == -EAGAIN);
            if (!right && !nomem_ok)
                fprintf(stderr, "  dataset variant %d: point %lld: status %d, %lld rows (want "
                        "%lld)\n", variants[k], (long long)n, got.status, (long long)got.rows,
                        (long long)ref.rows);
            CHECK(right || nomem_ok);
            ok += right, nomem += !right;
            if (fired == 0) break; /* past the run's last point */
        }
        CHECK(n < N_MAX);
        printf("  dataset variant %d: %lld failure points tried: %lld right answers, %lld "
               "-ENOMEM/-EAGAIN\n", variants[k], (long long)n, (long long)ok, (long long)nomem);
    }
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    ts_dir_init();
    ts_path(paths[0], sizeof paths[0], "oom-snappy.parquet");
    ts_path(paths[1], sizeof paths[1], "oom-zstd.parquet");
    ts_path(paths[2], sizeof paths[2], "oom-written.parquet");
    table_build();
    if (write_file(paths[0], PQ_CODEC_SNAPPY, table) != 0 ||
        write_file(paths[1], PQ_CODEC_ZSTD, table) != 0) {
        printf("test_oom: 0 passed, 1 failed\n");
        return 1;
    }
    RUN(reference);
    RUN(stack_mapping_fails);
    RUN(thread_creation_fails);
    RUN(sweep);
    RUN(writer_sweep);
    RUN(nested_sweep);
    RUN(dataset_sweep);
    for (int c = 0; c < NC; c++) pq_vec_free(&table[c]);
    ts_dir_remove();
    return CHECK_DONE("test_oom");
}
