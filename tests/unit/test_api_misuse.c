/* tests for the public API used the way an embedding host gets it wrong or pushes it to its
 * edges (include/ringscan.h): counts without arrays, literals at the ends of their types, trees
 * deeper than a stack, a filter tree freed once the scan started, patterns that reach a file
 * two ways, an empty string with no pointer. Each case is a defect an adversarial pass found
 * (a crash, a use after free, rows read twice, a valid literal refused); the sanitizer build
 * checks that nothing leaks. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "common/fail.h"
#include "ringscan.h"
#include "scan/api_priv.h"
#include "test_scan_common.h"

enum { ROWS = 300, FILES = 20 }; /* more files than a dataset scan starts at once (16) */

/* One file of ROWS rows: id = base + i (INT64), s = "s<i % 7>" (STRING). */
static int write_file(const char *p, int64_t base)
{
    pq_column_desc sch[2] = {ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("s", PQ_BYTE_ARRAY, 0, false, PQ_LOGICAL_STRING)};
    pq_vec v[2];
    ts_vec_new(&v[0], PQ_INT64, 0, ROWS, 0);
    ts_vec_new(&v[1], PQ_BYTE_ARRAY, 0, ROWS, ROWS * 4);
    for (int64_t i = 0; i < ROWS; i++) {
        int64_t id = base + i;
        char s[8];
        int n = snprintf(s, sizeof s, "s%d", (int)(i % 7));
        ts_put_fixed(&v[0], &id, false);
        ts_put_bytes(&v[1], (const uint8_t *)s, n, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    int rc = ts_write(p, sch, 2, v, ROWS, &wo);
    pq_vec_free(&v[0]), pq_vec_free(&v[1]);
    return rc;
}

/* Rows of a started scan, to its end; -1 when it ends in an error. */
static int64_t drain(ringscan_scan *s)
{
    struct ArrowArray a;
    ringscan_error err;
    int64_t rows = 0;
    int rc;
    for (int k = 0; k < 100000 && (rc = ringscan_scan_next(s, &a, &err)) == 1; k++) {
        rows += a.length;
        a.release(&a);
    }
    return rc == 0 ? rows : -1;
}

static char one[300], dir[300];

/* pthread_mutex_init and _destroy seen by this program (the library is linked in statically,
 * so its calls come here): a destroy of a mutex never initialised is counted (undefined by
 * POSIX; glibc lets it pass). The other libraries' static mutexes are destroyed at exit. */
enum { MUTEXES_MAX = 1 << 14 };
static uintptr_t mu_live[MUTEXES_MAX];
static int mu_nlive, mu_uninit;
static atomic_flag mu_lock = ATOMIC_FLAG_INIT;

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *at)
{
    int (*real)(pthread_mutex_t *, const pthread_mutexattr_t *) =
        (int (*)(pthread_mutex_t *, const pthread_mutexattr_t *))dlsym(RTLD_NEXT, "pthread_mutex_init");
    while (atomic_flag_test_and_set(&mu_lock)) {}
    int i = 0;
    while (i < mu_nlive && mu_live[i] != (uintptr_t)m) i++;
    if (i == mu_nlive && mu_nlive < MUTEXES_MAX) mu_live[mu_nlive++] = (uintptr_t)m;
    atomic_flag_clear(&mu_lock);
    return real(m, at);
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
    int (*real)(pthread_mutex_t *) = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_destroy");
    while (atomic_flag_test_and_set(&mu_lock)) {}
    int i = 0;
    while (i < mu_nlive && mu_live[i] != (uintptr_t)m) i++;
    if (i < mu_nlive) mu_live[i] = mu_live[--mu_nlive];
    else mu_uninit++;
    atomic_flag_clear(&mu_lock);
    return real(m);
}

/* A scan whose plan fails (a bloom filter's header that does not parse) frees the scan
 * without destroying a mutex it never initialised: scan_free destroyed the fetch budget's
 * admission mutex, which only parts_init (after the plan) initialises. */
static void test_plan_failure_mutexes(void)
{
    char p[320];
    snprintf(p, sizeof p, "%s.bloom", one);
    pq_column_desc sch[1] = {ts_desc("id", PQ_INT64, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v;
    ts_vec_new(&v, PQ_INT64, 0, ROWS, 0);
    for (int64_t i = 0; i < ROWS; i++) ts_put_fixed(&v, &i, false);
    uint8_t flags[1] = {PQ_WCOL_BLOOM};
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.col_flags = flags;
    CHECK_EQ_I64(ts_write(p, sch, 1, &v, ROWS, &wo), 0);
    pq_vec_free(&v);
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(p, &f, &err), 0);
    if (!f) return;
    int64_t at = f->f->meta.row_groups[0].chunks[0].bloom_filter_offset;
    CHECK(f->f->meta.row_groups[0].chunks[0].has_bloom_filter && at > 4);
    uint8_t junk[16];
    memset(junk, 0xff, sizeof junk); /* a thrift header that does not parse */
    FILE *w = fopen(p, "r+b");
    CHECK(w && fseek(w, (long)at, SEEK_SET) == 0 && fwrite(junk, 1, sizeof junk, w) == sizeof junk);
    if (w) fclose(w);
    ringscan_close(f);
    CHECK_EQ_I64(ringscan_open(p, &f, &err), 0);
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter = "id = 5";
    ringscan_scan *s = NULL;
    int before = mu_uninit;
    int rc = f ? ringscan_scan_start(f, &o, &s, &err) : -1;
    CHECK(rc < 0 && s == NULL);
    if (rc < 0) CHECK(strstr(err.message, "bloom") != NULL);
    CHECK_EQ_I64(mu_uninit - before, 0);
    ringscan_scan_free(s);
    ringscan_close(f);
}

/* ringscan_scan_stop after one batch, of a file and of a dataset: the scan's counters are
 * complete and balanced (io.h invariant 3), the next call returns 0, a second stop and a stop
 * of NULL do nothing. The CLI's --stats read a running scan's snapshot when its output failed
 * (bytes_read 1947908, bytes_used 0). Also before any batch, of a Top-K scan, with a stream
 * of the scan live (its next call ends too). */
static void check_stopped(ringscan_scan *s, bool one_batch)
{
    struct ArrowArray a;
    ringscan_error err;
    if (one_batch) CHECK_EQ_I64(ringscan_scan_next(s, &a, &err), 1);
    if (one_batch && a.release) a.release(&a);
    struct ArrowArrayStream as;
    CHECK_EQ_I64(ringscan_scan_stream(s, &as), 0); /* outlives the scan's free below */
    ringscan_scan_stop(s);
    ringscan_scan_stop(s);
    ringscan_stats st;
    ringscan_scan_stats(s, &st);
    CHECK(st.complete);
    CHECK_EQ_I64((int64_t)(st.bytes_read + st.bytes_kept), (int64_t)(st.bytes_used + st.bytes_wasted));
    CHECK_EQ_I64(ringscan_scan_next(s, &a, &err), 0);
    CHECK(a.release == NULL);
    CHECK_EQ_I64(as.get_next(&as, &a), 0);
    CHECK(a.release == NULL);
    ringscan_scan_free(s);
    as.release(&as);
}

static void test_scan_stop(void)
{
    ringscan_scan_stop(NULL);
    ringscan_scan *s = NULL;
    ringscan_options o;
    ringscan_options_init(&o);
    o.threads = 2;
    o.split_rows = 10; /* many batches: the scan runs on after the first */
    ringscan_error err;
    ringscan_file *f = NULL;
    const char *paths[] = {dir};
    ringscan_dataset *d = NULL;
    CHECK_EQ_I64(ringscan_open(one, &f, &err), 0);
    CHECK_EQ_I64(ringscan_dataset_open(paths, 1, NULL, &d, &err), 0);
    for (int k = 0; f && d && k < 6; k++) { /* after a batch, before any; Top-K before any */
        o.order_by = k >= 4 ? "id DESC" : NULL;
        o.limit = k >= 4 ? 5 : -1;
        int rc = k % 2 ? ringscan_dataset_scan_start(d, &o, &s, &err) : ringscan_scan_start(f, &o, &s, &err);
        CHECK_EQ_I64(rc, 0);
        if (rc == 0) check_stopped(s, k < 2);
    }
    ringscan_close(f);
    ringscan_dataset_close(d);
}

/* ringscan_scan_stop from another thread while the consumer waits in ringscan_scan_next (a
 * host cancelling a scan: a Ctrl-C handler, a query's deadline): both ended the scan, the
 * executor's threads were joined twice and the process hung in pthread_join. The consumer's
 * call returns 0 (no batch after the stop, a Top-K answer of the rows so far included), every
 * later one 0, and the counters are complete. Reads on a simulated store of 20 ms a request,
 * so the consumer is waiting for a split when the stop comes; a dataset's scan too. */
typedef struct {
    ringscan_scan *s;
    sem_t first;  /* posted after the consumer's first call returned */
    int64_t rows; /* rows the consumer got, -1 after an error */
    int last;     /* its last call's status */
} stop_race;

static void *stop_race_consume(void *arg)
{
    stop_race *r = arg;
    struct ArrowArray a;
    ringscan_error err;
    r->rows = 0;
    for (int k = 0; k < 100000; k++) {
        r->last = ringscan_scan_next(r->s, &a, &err);
        if (k == 0) sem_post(&r->first);
        if (r->last != 1) break;
        r->rows += a.length;
        a.release(&a);
    }
    if (r->last < 0) r->rows = -1;
    return NULL;
}

/* The stop, or with interrupt ringscan_scan_interrupt (a Python Reader's on a Ctrl-C while
 * pyarrow, Polars or DuckDB reads its stream): the consumer's waiting call returns 0 as after
 * a stop, or, when it began after the interrupt, -EINTR; every call after it fails with -EINTR
 * naming the interrupt, the stream's get_next too, so a consumer reading later never takes the
 * rows it got as all of them. */
static void stop_from_another_thread(bool interrupt)
{
    ringscan_options o;
    ringscan_options_init(&o);
    o.store = "sim:ttfb=20ms,bw=100MB/s";
    o.threads = 2;
    o.split_rows = 10;
    o.fetch_budget_bytes = 0; /* each split reads when it starts: the consumer waits */
    ringscan_error err;
    ringscan_file *f = NULL;
    const char *paths[] = {dir};
    ringscan_dataset *d = NULL;
    CHECK_EQ_I64(ringscan_open_with(one, &o, &f, &err), 0);
    CHECK_EQ_I64(ringscan_dataset_open(paths, 1, &o, &d, &err), 0);
    for (int k = 0; f && d && k < 12; k++) { /* a file, a dataset; Top-K from k 8 on */
        o.order_by = k >= 8 ? "id DESC" : NULL;
        o.limit = k >= 8 ? 5 : -1;
        stop_race r = {.last = 9};
        sem_init(&r.first, 0, 0);
        int rc = k % 2 ? ringscan_dataset_scan_start(d, &o, &r.s, &err) : ringscan_scan_start(f, &o, &r.s, &err);
        CHECK_EQ_I64(rc, 0);
        pthread_t t;
        if (rc || pthread_create(&t, NULL, stop_race_consume, &r) != 0) continue;
        if (k < 8 && k % 4 < 2) sem_wait(&r.first); /* else: stop before or in its first call */
        if (interrupt) ringscan_scan_interrupt(r.s);
        else ringscan_scan_stop(r.s);
        pthread_join(t, NULL);
        CHECK(r.last == 0 || (interrupt && r.last == -EINTR));
        int64_t most = r.last == 0 ? (k % 2 ? (int64_t)ROWS * FILES : ROWS) : -1;
        CHECK(r.rows >= (r.last == 0 ? 0 : -1) && r.rows <= most);
        if (k >= 8 && r.last == 0) CHECK(r.rows == 0 || r.rows == 5); /* the answer before the stop, or none */
        struct ArrowArray a;
        CHECK_EQ_I64(ringscan_scan_next(r.s, &a, &err), interrupt ? -EINTR : 0);
        CHECK(a.release == NULL);
        if (interrupt) CHECK(strstr(err.message, "interrupted by its host") != NULL);
        if (interrupt) {
            struct ArrowArrayStream as;
            CHECK_EQ_I64(ringscan_scan_stream(r.s, &as), 0);
            CHECK_EQ_I64(as.get_next(&as, &a), EIO);
            CHECK(strstr(as.get_last_error(&as), "interrupted by its host") != NULL);
            as.release(&as);
        }
        ringscan_stats st;
        ringscan_scan_stats(r.s, &st);
        CHECK(st.complete);
        ringscan_scan_free(r.s);
        sem_destroy(&r.first);
    }
    ringscan_close(f);
    ringscan_dataset_close(d);
}

static void test_stop_from_another_thread(void) { stop_from_another_thread(false); }
static void test_interrupt_from_another_thread(void)
{
    ringscan_scan_interrupt(NULL);
    stop_from_another_thread(true);
}

/* dictionary_columns NULL means none whatever ndictionary_columns says, as columns NULL means
 * every column (it dereferenced the NULL list). */
static void test_dictionary_null_list(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(one, &f, &err), 0);
    if (!f) return;
    ringscan_options o;
    ringscan_options_init(&o);
    o.ndictionary_columns = 3;
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), 0);
    if (s) CHECK_EQ_I64(drain(s), ROWS);
    ringscan_scan_free(s);
    const char *bad[] = {"s", NULL};
    o.dictionary_columns = bad, o.ndictionary_columns = 2; /* a NULL entry is still refused */
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), -EINVAL);
    ringscan_close(f);
}

/* Options never passed through ringscan_options_init carry a garbage struct_size: one past
 * any version's is refused before a byte beyond the library's struct is read (the check that
 * a newer caller's tail is zero walked the caller's memory until a nonzero byte: here into a
 * guard page). */
static void test_garbage_struct_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *m = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    if (m == MAP_FAILED) return;
    CHECK_EQ_I64(mprotect(m + 2 * page, (size_t)page, PROT_NONE), 0);
    ringscan_options *o = (ringscan_options *)m; /* zeros up to the guard page */
    ringscan_options_init(o);
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(one, &f, &err), 0);
    ringscan_scan *s = NULL;
    size_t sizes[] = {(size_t)1 << 40, 4097, (size_t)-1};
    for (int k = 0; k < 3; k++) {
        o->struct_size = sizes[k];
        CHECK_EQ_I64(ringscan_scan_start(f, o, &s, &err), -EINVAL);
        CHECK(s == NULL && strstr(err.message, "struct_size") != NULL);
    }
    o->struct_size = sizeof *o + 64; /* a newer caller's zero tail is still taken */
    CHECK_EQ_I64(ringscan_scan_start(f, o, &s, &err), 0);
    if (s) CHECK_EQ_I64(drain(s), ROWS);
    ringscan_scan_free(s);
    ringscan_close(f);
    munmap(m, (size_t)page * 3);
}

/* unsafe_disable_etag_checks, appended after ndictionary_columns: off by default; a caller
 * built before it (struct_size ending before it) keeps the check whatever its memory holds
 * past its struct; a caller built with it gets what it set, down to io/'s open options. */
static void test_etag_option_abi(void)
{
    ringscan_options in, out;
    ringscan_options_init(&in);
    CHECK(!in.unsafe_disable_etag_checks);
    in.unsafe_disable_etag_checks = true; /* past an older caller's struct: not its field */
    in.struct_size = offsetof(ringscan_options, unsafe_disable_etag_checks);
    ringscan_error err;
    io_open_opts io;
    CHECK_EQ_I64(api_take_options(&in, &out, "t", true, &err), 0);
    scan_api_io_opts(&out, &io);
    CHECK(!out.unsafe_disable_etag_checks && !io.etag_unchecked);
    in.struct_size = sizeof in;
    CHECK_EQ_I64(api_take_options(&in, &out, "t", true, &err), 0);
    scan_api_io_opts(&out, &io);
    CHECK(out.unsafe_disable_etag_checks && io.etag_unchecked);
}

/* Timestamps at the ends of int64 build a literal (the day split overflowed: a trap under
 * UBSan, so in ReleaseSafe); a scan then refuses them as out of a DATE column's range. */
static void test_timestamp_extremes(void)
{
    ringscan_expr *lo = ringscan_expr_timestamp_us(INT64_MIN);
    ringscan_expr *hi = ringscan_expr_timestamp_us(INT64_MAX);
    CHECK(lo != NULL && hi != NULL);
    ringscan_expr_free(lo);
    ringscan_expr_free(hi);
    ringscan_expr *e = ringscan_expr_timestamp_us(-1); /* one microsecond before the epoch */
    ringscan_expr *args[] = {ringscan_expr_column("id"), e};
    ringscan_expr *lt = ringscan_expr_call(RINGSCAN_EXPR_LT, 2, args);
    CHECK(lt != NULL);
    ringscan_expr_free(lt);
}

/* A NOT chain a million deep: freed without recursion (it overflowed the stack), refused by
 * a scan with RINGSCAN_ELIMIT, and by a dataset scan too. */
static void test_deep_tree(void)
{
    ringscan_expr *args[] = {ringscan_expr_column("id"), ringscan_expr_int(5)};
    ringscan_expr *x = ringscan_expr_call(RINGSCAN_EXPR_GT, 2, args);
    for (int k = 0; k < 1000000 && x; k++) x = ringscan_expr_call(RINGSCAN_EXPR_NOT, 1, &x);
    CHECK(x != NULL);
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(one, &f, &err), 0);
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter_expr = x;
    ringscan_scan *s = NULL;
    CHECK_EQ_I64(ringscan_scan_start(f, &o, &s, &err), RINGSCAN_ELIMIT);
    CHECK(strstr(err.message, "nested deeper than 32") != NULL);
    ringscan_close(f);
    const char *paths[] = {dir};
    ringscan_dataset *d = NULL;
    CHECK_EQ_I64(ringscan_dataset_open(paths, 1, NULL, &d, &err), 0);
    if (d) CHECK_EQ_I64(ringscan_dataset_scan_start(d, &o, &s, &err), RINGSCAN_ELIMIT);
    ringscan_dataset_close(d);
    ringscan_expr_free(x);
}

/* The empty string as a host's empty view gives it, no pointer and length 0 (C++'s
 * std::string_view{}, an empty slice of a binding): it was refused (NULL), so the whole tree
 * it went into was freed and the host read "out of memory". s <> '' keeps every row and
 * s = '' none (no s of the file is empty). */
static void test_empty_string_no_pointer(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_open(one, &f, &err), 0);
    for (int k = 0; f && k < 2; k++) {
        ringscan_expr *args[] = {ringscan_expr_column("s"), ringscan_expr_string(NULL, 0)};
        CHECK(args[1] != NULL);
        ringscan_expr *x = ringscan_expr_call(k ? RINGSCAN_EXPR_EQ : RINGSCAN_EXPR_NE, 2, args);
        CHECK(x != NULL);
        ringscan_options o;
        ringscan_options_init(&o);
        o.filter_expr = x;
        ringscan_scan *s = NULL;
        int rc = x ? ringscan_scan_start(f, &o, &s, &err) : -ENOMEM;
        CHECK_EQ_I64(rc, 0);
        if (rc == 0) CHECK_EQ_I64(drain(s), k ? 0 : ROWS);
        ringscan_scan_free(s);
        ringscan_expr_free(x);
    }
    CHECK(ringscan_expr_string(NULL, 1) == NULL); /* a length without bytes: refused */
    ringscan_close(f);
}

/* The filter tree must outlive ringscan_dataset_scan_start only: a dataset's files type it as
 * they open (the first 16 in ringscan_dataset_scan_start, the others in ringscan_scan_next),
 * so the scan keeps its own copy (it read the caller's freed tree: what the Python package
 * does with col("id") < 150 on a directory). */
static void test_dataset_tree_freed(void)
{
    const char *paths[] = {dir};
    ringscan_dataset *d = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_dataset_open(paths, 1, NULL, &d, &err), 0);
    if (!d) return;
    CHECK_EQ_I64(ringscan_dataset_files(d), FILES);
    ringscan_options o;
    ringscan_options_init(&o);
    o.max_open_files = 2;
    for (int round = 0; round < 2; round++) {
        ringscan_expr *args[] = {ringscan_expr_column("id"), ringscan_expr_int(ROWS / 2)};
        ringscan_expr *x = ringscan_expr_call(RINGSCAN_EXPR_LT, 2, args);
        o.filter_expr = x;
        ringscan_scan *s = NULL;
        CHECK_EQ_I64(ringscan_dataset_scan_start(d, &o, &s, &err), 0);
        ringscan_expr_free(x);
        void *junk[64]; /* the freed nodes' memory handed out again and overwritten */
        for (int k = 0; k < 64; k++) junk[k] = malloc(96), memset(junk[k], 0xff, 96);
        if (s) CHECK_EQ_I64(drain(s), FILES * (ROWS / 2)); /* every file: id = i */
        for (int k = 0; k < 64; k++) free(junk[k]);
        ringscan_scan_free(s);
        if (round == 1) break;
        ringscan_count_info c; /* a count's scan holds no tree past its call, but copies too */
        ringscan_expr *lt10[] = {ringscan_expr_column("id"), ringscan_expr_int(10)};
        x = ringscan_expr_call(RINGSCAN_EXPR_LT, 2, lt10);
        o.filter_expr = x;
        CHECK_EQ_I64(ringscan_dataset_count(d, &o, &c, &err), 0);
        CHECK_EQ_I64(c.rows, FILES * 10);
        ringscan_expr_free(x);
    }
    ringscan_dataset_close(d);
}

/* A pattern whose `**`s reach a file several ways lists it once (each walk of "** / **" added
 * it again: rows read twice or three times; DuckDB refuses such a pattern, an s3:// one matched
 * each key once); two patterns naming one file still list it twice. */
static void test_double_star_once(void)
{
    char p[400], q[400];
    snprintf(p, sizeof p, "%s/**/**/*.parquet", dir);
    snprintf(q, sizeof q, "%s/**/**/**/f0*.parquet", dir);
    const char *paths[] = {p, q};
    ringscan_dataset *d = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_dataset_open(paths, 1, NULL, &d, &err), 0);
    CHECK_EQ_I64(ringscan_dataset_files(d), FILES);
    ringscan_dataset_close(d);
    CHECK_EQ_I64(ringscan_dataset_open(paths + 1, 1, NULL, &d, &err), 0);
    CHECK_EQ_I64(ringscan_dataset_files(d), 10); /* f00 .. f09 */
    ringscan_dataset_close(d);
    CHECK_EQ_I64(ringscan_dataset_open(paths, 2, NULL, &d, &err), 0);
    CHECK_EQ_I64(ringscan_dataset_files(d), FILES + 10);
    ringscan_dataset_close(d);
}

/* A dataset's schema that cannot be built for want of memory is -ENOMEM, said so (it was
 * -EINVAL). The scan is drained first: no allocation of its cores meets the armed failure. */
static void test_dataset_schema_nomem(void)
{
    const char *paths[] = {dir};
    ringscan_dataset *d = NULL;
    ringscan_error err;
    CHECK_EQ_I64(ringscan_dataset_open(paths, 1, NULL, &d, &err), 0);
    ringscan_options o;
    ringscan_options_init(&o);
    ringscan_scan *s = NULL;
    if (d) CHECK_EQ_I64(ringscan_dataset_scan_start(d, &o, &s, &err), 0);
    if (s) CHECK_EQ_I64(drain(s), FILES * ROWS);
    struct ArrowSchema sch = {0};
    fail_arm(FAIL_ALLOC, 1, true);
    int rc = s ? ringscan_scan_schema(s, &sch, &err) : 0;
    fail_disarm();
    CHECK_EQ_I64(rc, -ENOMEM);
    CHECK(rc == -ENOMEM && err.status == -ENOMEM && strstr(err.message, "out of memory"));
    if (rc == 0 && sch.release) sch.release(&sch);
    CHECK_EQ_I64(s ? ringscan_scan_schema(s, &sch, &err) : -1, 0); /* and once memory is back */
    if (sch.release) sch.release(&sch);
    ringscan_scan_free(s);
    ringscan_dataset_close(d);
}

int main(void)
{
    ts_dir_init();
    ts_path(one, sizeof one, "one.parquet");
    ts_path(dir, sizeof dir, "ds");
    mkdir(dir, 0700);
    int bad = write_file(one, 0);
    for (int k = 0; k < FILES && !bad; k++) { /* ds/a/f00.parquet .. ds/a/f19.parquet */
        char sub[400], p[420];
        snprintf(sub, sizeof sub, "%s/a", dir);
        mkdir(sub, 0700);
        snprintf(p, sizeof p, "%s/f%02d.parquet", sub, k);
        bad = write_file(p, 0);
    }
    if (bad) {
        fprintf(stderr, "cannot write the test files under %s\n", ts_dir);
        return 1;
    }
    RUN(test_plan_failure_mutexes);
    RUN(test_scan_stop);
    RUN(test_stop_from_another_thread);
    RUN(test_interrupt_from_another_thread);
    RUN(test_dictionary_null_list);
    RUN(test_garbage_struct_size);
    RUN(test_etag_option_abi);
    RUN(test_timestamp_extremes);
    RUN(test_deep_tree);
    RUN(test_empty_string_no_pointer);
    RUN(test_dataset_tree_freed);
    RUN(test_double_star_once);
    RUN(test_dataset_schema_nomem);
    ts_dir_remove();
    return CHECK_DONE("test_api_misuse");
}
