/* tests for common/bufpool.c under real scans: scans on several host threads at once (the C
 * API), each core's decoded buffers large enough to be pooled (64 KiB and up), batches kept
 * past their scan's ringscan_scan_free while the other threads' scans grow new buffers, then
 * checked again and released on another thread. A block given to the pool while a batch still
 * points at it would be taken by another scan's vector and overwritten: the values checked
 * after that differ (and under AddressSanitizer the idle block's poison shows the first touch).
 * After every scan ends the pool holds at most what the last one kept for the next (bufpool.h
 * invariant 1), which the next scan takes, and nothing after bufpool_release. */
#include <pthread.h>

#include "check.h"
#include "common/bufpool.h"
#include "ringscan.h"
#include "test_scan_common.h"

enum { ROWS = 240000, RG_ROWS = 60000, HOSTS = 3, KEEP_MAX = 256 };

static char path[256];
static pq_column_desc sch[3];

static bool s_null(int64_t r) { return r % 5 == 1; }
static int s_of(int64_t r, char *out) /* "v<r>" and r % 23 bytes of 'a' + r % 26 */
{
    int n = snprintf(out, 48, "v%lld", (long long)r);
    for (int k = 0; k < (int)(r % 23); k++) out[n++] = (char)('a' + r % 26);
    return n;
}
static double d_of(int64_t r) { return (double)r * 0.5 + 1.0; }

static int write_file(void)
{
    sch[0] = ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE);
    sch[1] = ts_desc("s", PQ_BYTE_ARRAY, 0, true, PQ_LOGICAL_STRING);
    sch[2] = ts_desc("d", PQ_DOUBLE, 0, false, PQ_LOGICAL_NONE);
    pq_vec v[3];
    ts_vec_new(&v[0], PQ_INT64, 0, ROWS, 0);
    ts_vec_new(&v[1], PQ_BYTE_ARRAY, 0, ROWS, ROWS * 32);
    ts_vec_new(&v[2], PQ_DOUBLE, 0, ROWS, 0);
    for (int64_t r = 0; r < ROWS; r++) {
        char s[48];
        int n = s_of(r, s);
        double d = d_of(r);
        ts_put_fixed(&v[0], &r, false);
        ts_put_bytes(&v[1], (const uint8_t *)s, n, s_null(r));
        ts_put_fixed(&v[2], &d, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = RG_ROWS;
    int rc = ts_write(path, sch, 3, v, ROWS, &wo);
    for (int c = 0; c < 3; c++) pq_vec_free(&v[c]);
    return rc;
}

static bool valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->buffers[0];
    return a->null_count == 0 || !bits || ((bits[(a->offset + i) >> 3] >> ((a->offset + i) & 7)) & 1);
}

/* Rows of batch a checked against the model; -1 at the first wrong one. */
static int64_t check_batch(const struct ArrowArray *a)
{
    if (a->n_children != 3 || !a->release) return -1;
    const int64_t *id = a->children[0]->buffers[1];
    const struct ArrowArray *s = a->children[1];
    const int32_t *off = s->buffers[1];
    const char *data = s->buffers[2];
    const double *d = a->children[2]->buffers[1];
    for (int64_t i = 0; i < a->length; i++) {
        int64_t r = id[i];
        if (r < 0 || r >= ROWS || d[i] != d_of(r) || !valid(s, i) != s_null(r)) return -1;
        char t[48];
        int n = s_of(r, t);
        if (!s_null(r) && (off[i + 1] - off[i] != n || memcmp(data + off[i], t, (size_t)n) != 0))
            return -1;
    }
    return a->length;
}

typedef struct host {
    int index;
    struct ArrowArray kept[KEEP_MAX];
    int nkept;
    int64_t rows_kept, rows_second, bad;
} host;

static host hosts[HOSTS];
static pthread_barrier_t phase;

/* One scan of every column on two cores; its batches kept in h (keep) or checked and released
 * at once. Rows seen, or -1. */
static int64_t scan_once(host *h, bool keep)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    if (ringscan_open(path, &f, &err) != 0) return -1;
    ringscan_options o;
    ringscan_options_init(&o);
    o.threads = 2;
    ringscan_scan *s = NULL;
    int64_t rows = 0;
    if (ringscan_scan_start(f, &o, &s, &err) != 0) {
        ringscan_close(f);
        return -1;
    }
    struct ArrowArray a;
    int rc;
    while ((rc = ringscan_scan_next(s, &a, &err)) == 1) {
        int64_t n = check_batch(&a);
        if (n < 0) h->bad++;
        rows += a.length;
        if (keep && h->nkept < KEEP_MAX) h->kept[h->nkept++] = a;
        else a.release(&a);
    }
    ringscan_scan_free(s); /* the kept batches outlive their scan */
    ringscan_close(f);
    return rc == 0 ? rows : -1;
}

static void *host_main(void *p)
{
    host *h = p;
    h->rows_kept = scan_once(h, true);
    pthread_barrier_wait(&phase);
    /* every host's batches are held now; the second scans grow into whatever is idle */
    h->rows_second = scan_once(h, false);
    pthread_barrier_wait(&phase);
    /* the next host's batches: still the values they were, released on this thread */
    host *o = &hosts[(h->index + 1) % HOSTS];
    for (int i = 0; i < o->nkept; i++) {
        if (check_batch(&o->kept[i]) < 0) h->bad++;
        o->kept[i].release(&o->kept[i]);
    }
    return NULL;
}

static void batches_outlive_scans_across_hosts(void)
{
    pthread_t t[HOSTS];
    CHECK(pthread_barrier_init(&phase, NULL, HOSTS) == 0);
    for (int i = 0; i < HOSTS; i++) {
        hosts[i].index = i;
        CHECK(pthread_create(&t[i], NULL, host_main, &hosts[i]) == 0);
    }
    for (int i = 0; i < HOSTS; i++) CHECK(pthread_join(t[i], NULL) == 0);
    pthread_barrier_destroy(&phase);
    for (int i = 0; i < HOSTS; i++) {
        CHECK_EQ_I64(hosts[i].rows_kept, ROWS);
        CHECK_EQ_I64(hosts[i].rows_second, ROWS);
        CHECK_EQ_I64(hosts[i].bad, 0);
        CHECK(hosts[i].nkept < KEEP_MAX); /* every batch was kept */
    }
    CHECK((int64_t)bufpool_idle() <= (int64_t)BUFPOOL_KEEP_MAX); /* invariant 1 */
    bufpool_release();
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
}

/* A scan's batches released while another scan runs and after it: the pool's idle bytes stay
 * within that scan's allowance, and none are held once both have ended. */
static void idle_bounded_and_emptied(void)
{
    host a = {0}, b = {0};
    CHECK_EQ_I64(scan_once(&a, true), ROWS);
    bufpool_release(); /* what a's scan kept for the next: not the point here */
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(path, &f, &err), 0);
    ringscan_options o;
    ringscan_options_init(&o);
    o.fetch_budget_bytes = 8 << 20; /* an allowance of 4 MiB */
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    for (int i = 0; i < a.nkept; i++) {
        CHECK(check_batch(&a.kept[i]) >= 0);
        a.kept[i].release(&a.kept[i]); /* given while s holds the pool */
    }
    int64_t idle = (int64_t)bufpool_idle();
    CHECK(idle > 0 && idle <= (int64_t)(4 << 20)); /* the test's batches are of pooled sizes */
    struct ArrowArray x;
    int64_t rows = 0;
    while (ringscan_scan_next(s, &x, &err) == 1) {
        b.bad += check_batch(&x) < 0;
        rows += x.length;
        x.release(&x);
    }
    CHECK_EQ_I64(rows, ROWS);
    CHECK_EQ_I64(b.bad, 0);
    ringscan_scan_free(s);
    ringscan_close(f);
    CHECK((int64_t)bufpool_idle() <= (int64_t)(4 << 20)); /* kept: its allowance at most */
    bufpool_release();
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
}

/* Scans one after another on one host thread (a host without a caching allocator scanning
 * again and again): a scan's end keeps its large buffers, within BUFPOOL_KEEP_MAX and its own
 * allowance, and the next scan takes them instead of faulting in fresh pages. */
static void kept_for_the_next_scan(void)
{
    host a = {0};
    bufpool_release();
    CHECK_EQ_I64(scan_once(&a, false), ROWS);
    int64_t idle = (int64_t)bufpool_idle();
    CHECK(idle > 0 && idle <= (int64_t)BUFPOOL_KEEP_MAX);
    for (int i = 0; i < 3; i++) {
        uint64_t taken = bufpool_taken();
        CHECK_EQ_I64(scan_once(&a, false), ROWS);
        CHECK(bufpool_taken() > taken); /* blocks the scan before kept */
        CHECK((int64_t)bufpool_idle() <= (int64_t)BUFPOOL_KEEP_MAX);
    }
    CHECK_EQ_I64(a.bad, 0);
    ringscan_release_memory(); /* the public call frees the kept blocks too */
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
    CHECK_EQ_I64(scan_once(&a, false), ROWS); /* and kept again after a release */
    CHECK(bufpool_idle() > 0);
    bufpool_release();
}

int main(void)
{
    ts_dir_init();
    ts_path(path, sizeof path, "pool.parquet");
    if (write_file() != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    RUN(batches_outlive_scans_across_hosts);
    RUN(idle_bounded_and_emptied);
    RUN(kept_for_the_next_scan);
    ts_dir_remove();
    return CHECK_DONE("test_bufpool_scan");
}
