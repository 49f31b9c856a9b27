/* tests for io/io_map.c, the mmap read mode: a cached range is a view into the mapping with
 * the file's bytes and the same counters as a copying read; a range not cached is copied; a
 * file that shrank before a read fails it naming the file; a file truncated under a view
 * read by a task turns the SIGBUS into zeros plus an error from io_file_faulted naming the
 * file (the process lives); a SIGBUS that is not a mapping's reaches the handler the host
 * had installed. Every case runs on the io_uring backend and on the pread fallback, as one
 * task on a one-core executor. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"
#include "ringscan.h"
#include "runtime/exec.h"
#include "io_harness.h"

enum { FILE_BYTES = 300 * 1024 + 77 };

static char g_path[64];
static volatile sig_atomic_t g_host_sigbus;

/* (Re)writes the pattern file at g_path. */
static void make_file(void) { write_pattern(g_path, FILE_BYTES); }

static io_file_t *open_mode(int mode)
{
    io_file_t *f = NULL;
    char err[256];
    CHECK(io_file_open_with(&f, g_path, &(io_open_opts){.read_mode = mode}, err, sizeof err) == 0);
    if (f) CHECK((f->map != NULL) == (mode == IO_READ_MMAP));
    return f;
}

/* Reads five ranges of f (the first four coalesce, the last is alone) and checks their
 * bytes; returns the counters. *views: every slice pointed into f's mapping. */
static io_counters_t read_five(io_file_t *f, bool *views)
{
    io_opts_t o = io_opts_default();
    io_ctx_t *ctx = NULL;
    CHECK(io_ctx_new(&ctx, exec_current(), &o) == 0);
    static const uint64_t off[5] = {0, 5000, 100000, 130000, FILE_BYTES - 4000};
    static const uint64_t len[5] = {4096, 9000, 20000, 7000, 4000};
    fut_t *fu[5];
    for (int i = 0; i < 5; i++) fu[i] = io_read(ctx, f, off[i], len[i]);
    for (int i = 0; i < 5; i++) fut_want(fu[i]);
    *views = true;
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_I64(fut_await(fu[i]), 0);
        const io_bytes *b = fut_value(fu[i]);
        CHECK(bytes_match(b, off[i], len[i]));
        *views = *views && f->map && b && b->data == f->map + off[i];
        fut_unref(fu[i]);
    }
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    io_ctx_free(ctx);
    return c;
}

/* ---- cases (run inside a task) ---- */

static void c_views(void)
{
    io_file_t *copy = open_mode(IO_READ_COPY), *map = open_mode(IO_READ_MMAP);
    if (!copy || !map) return;
    bool views_copy, views_map;
    io_counters_t a = read_five(copy, &views_copy), b = read_five(map, &views_map);
    CHECK(!views_copy && views_map);
    CHECK_EQ_I64(b.reads_submitted, a.reads_submitted);
    CHECK_EQ_I64(b.ranges_submitted, a.ranges_submitted);
    CHECK_EQ_I64(b.bytes_read, a.bytes_read);
    CHECK_EQ_I64(b.bytes_used, a.bytes_used);
    CHECK_EQ_I64(b.bytes_wasted, a.bytes_wasted);
    CHECK_EQ_I64(a.ranges_submitted, 2); /* four merged (gap 128 KiB), the last alone */
    CHECK_EQ_I64(b.bytes_skipped, 0); /* no hole lands anywhere */
    char err[256];
    CHECK_EQ_I64(io_file_faulted(map, err, sizeof err), 0);
    io_file_close(copy);
    io_file_close(map);
}

/* The file shrank between open and read: a read of a page still cached (the new last one)
 * is a view whose populate is checked against the size now, and fails naming the file; a
 * read past the new end is not cached, so it is copied and meets the end of the file. */
static void c_shrunk_before(void)
{
    io_file_t *f = open_mode(IO_READ_MMAP);
    if (!f) return;
    CHECK_EQ_I64(truncate(g_path, 5000), 0);
    io_opts_t o = io_opts_default();
    o.coalesce = false; /* two ranges */
    io_ctx_t *ctx = NULL;
    CHECK(io_ctx_new(&ctx, exec_current(), &o) == 0);
    fut_t *in = io_read(ctx, f, 4200, 1800), *past = io_read(ctx, f, 100000, 5000);
    fut_want(in);
    fut_want(past);
    CHECK_EQ_I64(fut_await(in), -EIO);
    CHECK_EQ_I64(fut_await(past), -EIO);
    char want[256];
    snprintf(want, sizeof want, "%s: read of bytes [4200, 6000) failed: the file shrank "
             "while it was read (mapped, %d bytes when opened)", g_path, FILE_BYTES);
    CHECK_STR(fut_message(in), want);
    snprintf(want, sizeof want, "%s: unexpected end of file reading bytes [100000, 105000) "
             "(file size %d, read stopped at 100000)", g_path, FILE_BYTES);
    CHECK_STR(fut_message(past), want);
    fut_unref(in);
    fut_unref(past);
    io_ctx_free(ctx);
    io_file_close(f);
}

/* A range whose pages left the page cache is read by copy (same bytes, same counters as a
 * copying file's reads); skipped where the file system keeps every page (tmpfs). */
static void c_cold_copied(void)
{
    int fd = open(g_path, O_RDONLY);
    CHECK(fd >= 0 && fsync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
    close(fd);
    io_file_t *copy = open_mode(IO_READ_COPY), *map = open_mode(IO_READ_MMAP);
    if (!copy || !map) return;
    CHECK(!io_map_resident(map, FILE_BYTES - 10, 11)); /* past the end: never a view */
    if (io_map_resident(map, 0, FILE_BYTES)) {
        SKIP("the page cache kept the file (tmpfs?)");
    } else {
        bool views;
        io_counters_t b = read_five(map, &views), a = read_five(copy, &views);
        CHECK(!views);
        CHECK_EQ_I64(b.reads_submitted, a.reads_submitted);
        CHECK_EQ_I64(b.bytes_read, a.bytes_read);
        CHECK(io_map_resident(map, 0, 4096)); /* the copy brought its pages in */
    }
    io_file_close(copy);
    io_file_close(map);
}

/* Truncated under a resolved view: touching it reads zeros (no crash) and io_file_faulted
 * names the file and the first page found missing. */
static void c_truncated_under_view(void)
{
    io_file_t *f = open_mode(IO_READ_MMAP);
    if (!f) return;
    io_ctx_t *ctx = NULL;
    CHECK(io_ctx_new(&ctx, exec_current(), NULL) == 0);
    fut_t *fu = io_read(ctx, f, 10000, 70000);
    fut_want(fu);
    CHECK_EQ_I64(fut_await(fu), 0);
    const io_bytes *b = fut_value(fu);
    CHECK(bytes_match(b, 10000, 70000));
    CHECK_EQ_I64(truncate(g_path, 0), 0);
    uint64_t sum = 0;
    for (size_t i = 0; b && i < b->len; i++) sum += ((const volatile uint8_t *)b->data)[i];
    CHECK_EQ_I64(sum, 0);
    char err[256], want[256];
    CHECK_EQ_I64(io_file_faulted(f, err, sizeof err), -EIO);
    snprintf(want, sizeof want, "%s: the file shrank while it was read (mapped: the page at "
             "byte 8192 is past its end now; it was %d bytes when opened)", g_path, FILE_BYTES);
    CHECK_STR(err, want);
    fut_unref(fu);
    io_ctx_free(ctx);
    io_file_close(f);
}

static void host_sigbus(int sig)
{
    (void)sig;
    g_host_sigbus++;
}

/* A SIGBUS raised by someone (not a mapping's fault) reaches the host's own handler, which
 * was installed before the first mapping. */
static void foreign_sigbus(void)
{
    make_file();
    g_host_sigbus = 0;
    CHECK(signal(SIGBUS, host_sigbus) != SIG_ERR);
    io_file_t *f = open_mode(IO_READ_MMAP); /* installs io_map.c's handler, chained */
    raise(SIGBUS);
    CHECK_EQ_I64(g_host_sigbus, 1);
    io_file_close(f);
}

static void views(void) { both(c_views); }
static void shrunk_before(void) { both(c_shrunk_before); }
static void truncated_under_view(void) { both(c_truncated_under_view); }
static void cold_copied(void) { both(c_cold_copied); }

int main(void)
{
    snprintf(g_path, sizeof g_path, "/tmp/ringscan_test_io_map_%d.bin", (int)getpid());
    before_each = make_file; /* the cases truncate it */
    RUN(foreign_sigbus);
    RUN(views);
    RUN(shrunk_before);
    RUN(truncated_under_view);
    RUN(cold_copied);
    unlink(g_path);
    return CHECK_DONE("test_io_map");
}
