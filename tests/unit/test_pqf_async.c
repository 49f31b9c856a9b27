/* tests for scan/pqf_async.c: a footer read as futures by a task on a core gives what the
 * blocking read (pqf_open_tail) gives, file by file: the status and message, the metadata's
 * place and length, its row groups, columns and rows, the page-index bytes kept and the read
 * count (1, or 2 for a footer longer than the tail), over every file of the parquet-testing
 * corpus (encrypted and malformed ones included) and written ones: a footer of 2,000 row
 * groups (longer than a 64 KiB tail: two reads), a file too small for Parquet, one cut short
 * and one whose footer length points before the file; locally and through a simulated store,
 * with a 64 KiB tail (a dataset's) and pqf_tail_bytes' own (a local file's 64 KiB here, a
 * remote one's 1 MiB: the big footer then one read); and a URL nothing listens at (its
 * open request, awaited on the core, fails as the blocking one does, the password unshown); a
 * mapped file that shrinks between its footer's read and its parse reports the shrink. */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "runtime/exec.h"
#include "scan/pqf_async.h"
#include "test_scan_common.h"

enum { FILES_MAX = 128 };

static char files[FILES_MAX][512];
static int nfiles, nbig = -1;
static char dir[256];
static const io_open_opts *g_open;
static size_t g_tail;
static _Atomic int g_done;
static int g_two_reads; /* files read twice both ways */

/* msg with curl's elapsed times ("after 1 ms") made "after _ ms": the one part of a failed
 * connection's message that differs between two tries. */
static void untimed(char *msg)
{
    for (char *p = strstr(msg, "after "); p; p = strstr(p + 1, "after ")) {
        char *d = p + 6, *q = d;
        while (*q >= '0' && *q <= '9') q++;
        if (q == d || strncmp(q, " ms", 3) != 0) continue;
        *d = '_';
        memmove(d + 1, q, strlen(q) + 1);
    }
}

/* Expected: file i read the blocking way; compared with the futures' read. */
static void compare(int i, io_ctx_t *io)
{
    pqf_t *a = NULL, *b = NULL;
    pq_err ea = {.offset = -1}, eb = {.offset = -1};
    int ra = pqf_open_tail(&a, files[i], g_open, g_tail, NULL, &ea);
    int rb = pqf_open_async(&b, io, files[i], g_open, g_tail, NULL, &eb);
    CHECK_EQ_I64(ra, rb);
    untimed(ea.msg), untimed(eb.msg);
    if (ra != rb || strcmp(ea.msg, eb.msg) != 0 || ea.offset != eb.offset)
        fprintf(stderr, "  %s: blocking %d '%s' @%lld, futures %d '%s' @%lld\n", files[i], ra,
                ea.msg, (long long)ea.offset, rb, eb.msg, (long long)eb.offset);
    CHECK(strcmp(ea.msg, eb.msg) == 0 && !strstr(eb.msg, "hunter2"));
    CHECK_EQ_I64(ea.offset, eb.offset);
    CHECK((a == NULL) == (b == NULL));
    if (a && b) {
        CHECK_EQ_I64(a->meta_offset, b->meta_offset);
        CHECK_EQ_I64(a->meta_len, b->meta_len);
        CHECK_EQ_I64(a->tail_reads, b->tail_reads);
        CHECK_EQ_I64(a->index_len, b->index_len);
        CHECK(a->index_len == 0 || memcmp(a->index_bytes, b->index_bytes, a->index_len) == 0);
        CHECK_EQ_I64(a->meta.nrow_groups, b->meta.nrow_groups);
        CHECK_EQ_I64(a->meta.ncolumns, b->meta.ncolumns);
        CHECK_EQ_I64(a->meta.num_rows, b->meta.num_rows);
        g_two_reads += b->tail_reads == 2;
        /* the big footer: one read only in a remote file's own tail (1 MiB; a local file's
           and a dataset's are 64 KiB) */
        bool remote = g_open && g_open->store;
        if (i == nbig) CHECK_EQ_I64(b->tail_reads, g_tail || !remote ? 2 : 1);
    }
    pqf_close(a), pqf_close(b);
}

static void task(void *arg)
{
    (void)arg;
    io_ctx_t *io = NULL;
    CHECK(io_ctx_new(&io, exec_current(), NULL) == 0);
    for (int i = 0; io && i < nfiles; i++) compare(i, io);
    if (io) io_ctx_free(io);
    atomic_store(&g_done, 1);
}

static void not_spawned(void *arg, int missing, int status)
{
    (void)arg, (void)missing, (void)status;
    atomic_store(&g_done, 1);
}

/* Runs fn as one task on a one-core runtime, to its end. */
static void on_core(void (*fn)(void *))
{
    atomic_store(&g_done, 0);
    exec_opts_t eo = exec_opts_default();
    exec_group_t *g = NULL;
    CHECK(exec_group_start(&g, &eo) == 0);
    if (!g) return;
    CHECK(exec_group_spawn(g, 0, fn, NULL, 1, not_spawned) == 0);
    for (int i = 0; i < 600000 && !atomic_load(&g_done); i++) { /* a test: up to 60 s */
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    CHECK(atomic_load(&g_done));
    exec_group_stop(g);
    exec_group_destroy(g);
}

/* Runs the comparison on a one-core runtime. */
static void run(const io_open_opts *o, size_t tail)
{
    g_open = o, g_tail = tail, g_two_reads = 0;
    on_core(task);
    CHECK(g_two_reads >= (tail || !(o && o->store) ? 1 : 0)); /* the big footer at least */
}

static char g_shrink[320];
static bool g_mapped;

/* pqf_async_read_hook: the file shrinks to nothing once its tail is read, before the parse. */
static void shrink_now(const io_file_t *file)
{
    g_mapped = file->map != NULL;
    CHECK_EQ_I64(truncate(g_shrink, 0), 0);
}

/* Opens g_shrink mapped (IO_READ_MMAP), its tail a view that the hook's truncation empties. */
static void shrink_task(void *arg)
{
    (void)arg;
    io_ctx_t *io = NULL;
    CHECK(io_ctx_new(&io, exec_current(), NULL) == 0);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    pqf_async_read_hook = shrink_now;
    int rc = io ? pqf_open_async(&f, io, g_shrink, &(io_open_opts){.read_mode = IO_READ_MMAP},
                                 64 << 10, NULL, &e)
                : -1;
    pqf_async_read_hook = NULL;
    if (!g_mapped) {
        SKIP("the file was not mapped (a kernel without MADV_POPULATE_READ?)");
    } else {
        CHECK_EQ_I64(rc, -EIO);
        CHECK(f == NULL);
        static const char want[] = "the file shrank while it was read (mapped: the page at "
                                   "byte 0 is past its end now; it was ";
        bool ok = strncmp(e.msg, want, sizeof want - 1) == 0;
        if (!ok) fprintf(stderr, "  got '%s'\n", e.msg);
        CHECK(ok);
    }
    pqf_close(f);
    if (io) io_ctx_free(io);
    atomic_store(&g_done, 1);
}

/* A mapped file that shrinks between its footer's read and its parse: the parse met zeros,
 * and the report is the shrink (io_file_faulted), not "no PAR1 at the end". */
static void shrunk_mapped(void)
{
    snprintf(g_shrink, sizeof g_shrink, "%s/shrink.parquet", dir);
    CHECK_EQ_I64(ts_write_ids(g_shrink, "id", 100, 0, 0, false), 0);
    on_core(shrink_task);
    unlink(g_shrink);
}

static void add(const char *path)
{
    if (nfiles < FILES_MAX) snprintf(files[nfiles++], sizeof files[0], "%s", path);
}

static void write_bytes(const char *name, const void *p, size_t n)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(p, 1, n, fp) == n);
    if (fp) fclose(fp);
    add(path);
}

/* A file of 2,000 row groups of 10 rows (a footer of ~200 KB), then broken ones. */
static void write_files(void)
{
    char path[320];
    snprintf(path, sizeof path, "%s/big.parquet", dir);
    CHECK_EQ_I64(ts_write_ids(path, "id", 20000, 10, 0, false), 0);
    nbig = nfiles;
    add(path);
    write_bytes("tiny.parquet", "PAR1PAR1", 8);
    FILE *fp = fopen(path, "rb");
    static uint8_t buf[1 << 20];
    size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp) fclose(fp);
    CHECK(n > 4096);
    write_bytes("cut.parquet", buf, n / 2);
    uint8_t bad[64] = "PAR1";
    memcpy(bad + 56, "\xff\xff\xff\x7f" "PAR1", 8); /* metadata length past the file's start */
    write_bytes("badlen.parquet", bad, sizeof bad);
    add("/nonexistent/dir/missing.parquet");
    add("http://me:hunter2@127.0.0.1:1/x.parquet"); /* refused: the open request fails */
}

static void corpus(void)
{
    const char *d = access("../shared/parquet-testing/data", R_OK) == 0
                        ? "../shared/parquet-testing/data"
                        : "/work/shared/parquet-testing/data";
    DIR *dp = opendir(d);
    if (!dp) return;
    char names[FILES_MAX][256];
    int n = 0;
    for (struct dirent *de; (de = readdir(dp)) != NULL && n < FILES_MAX / 2;)
        if (strstr(de->d_name, ".parquet")) snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    closedir(dp);
    for (int i = 0; i < n; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", d, names[i]);
        add(p);
    }
}

static void local_dataset_tail(void) { run(NULL, 64 << 10); }
static void local_own_tail(void) { run(NULL, 0); }
static void sim_store(void)
{
    io_open_opts o = {.store = "sim:ttfb=1ms,bw=1000MB/s"};
    run(&o, 64 << 10);
}
static void sim_store_own_tail(void)
{
    io_open_opts o = {.store = "sim:ttfb=1ms,bw=1000MB/s"};
    run(&o, 0);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_pqf_async.XXXXXX");
    if (!mkdtemp(dir)) return 1;
    setenv("RINGSCAN_HTTP_RETRIES", "1", 1); /* the refused URL's one retry */
    write_files();
    corpus();
    CHECK(nfiles > 6);
    RUN(local_dataset_tail);
    RUN(local_own_tail);
    RUN(sim_store);
    RUN(sim_store_own_tail);
    RUN(shrunk_mapped);
    for (int i = 0; i < nfiles; i++)
        if (strncmp(files[i], dir, strlen(dir)) == 0) unlink(files[i]);
    rmdir(dir);
    return CHECK_DONE("test_pqf_async");
}
