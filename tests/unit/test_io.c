/* tests for io/: exact bytes, short reads, EOF text, cancellation before and after
 * submission, coalescing, lazy requests, the fetch budget and counters, the simulated store
 * and the cost model. Every case runs on
 * the io_uring backend and on the pread fallback. Each case runs as one task on a one-core
 * executor; the main thread waits for the task, then stops the executor. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "io/io.h"
#include "io/io_impl.h" /* io_ctx_t.stall_timer, IO_BUDGET_STALL_NS */
#include "ringscan.h"
#include "runtime/exec.h"
#include "io_harness.h"

enum { FILE_BYTES = 1024 * 1024 + 123 };

static char g_path[64];
static io_file_t *g_file;

static void make_file(void)
{
    snprintf(g_path, sizeof g_path, "/tmp/ringscan_test_io_%d.bin", (int)getpid());
    write_pattern(g_path, FILE_BYTES);
    char err[256];
    CHECK(io_file_open(&g_file, g_path, err, sizeof err) == 0);
    CHECK_EQ_I64(g_file->size_bytes, FILE_BYTES);
}

static io_ctx_t *new_ctx(const io_opts_t *o)
{
    io_ctx_t *ctx = NULL;
    CHECK(io_ctx_new(&ctx, exec_current(), o) == 0);
    return ctx;
}

/* ---- cases (run inside a task) ---- */

static void c_exact_bytes(void)
{
    io_opts_t o = io_opts_default();
    o.coalesce = false;
    io_ctx_t *ctx = new_ctx(&o);
    uint64_t offs[3] = {0, 4097, FILE_BYTES - 5000}, lens[3] = {4096, 70000, 5000};
    fut_t *f[3];
    for (int i = 0; i < 3; i++) f[i] = io_read(ctx, g_file, offs[i], lens[i]);
    for (int i = 0; i < 3; i++) fut_want(f[i]); /* all in flight together */
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_I64(fut_await(f[i]), 0);
        CHECK(bytes_match(fut_value(f[i]), offs[i], lens[i]));
        fut_unref(f[i]);
    }
    fut_t *z = io_read(ctx, g_file, 10, 0);
    CHECK(fut_is_ready(z) && ((io_bytes *)fut_value(z))->len == 0);
    fut_unref(z);
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 3);
    CHECK_EQ_I64(c.bytes_read, 79096);
    CHECK_EQ_I64(c.bytes_used, 79096);
    CHECK_EQ_I64(c.bytes_wasted, 0);
    CHECK_EQ_I64(c.requests_registered, 3);
    CHECK_EQ_I64(c.peak_inflight_bytes, 79096);
    io_ctx_free(ctx);
}

/* A released range buffer of at least IO_POOL_MIN_BYTES is reused by the next range that fits
 * (no fresh pages for the kernel to fault in), and the bytes are the new range's. */
static void c_buffer_reuse(void)
{
    io_opts_t o = io_opts_default();
    io_ctx_t *ctx = new_ctx(&o);
    const uint8_t *first = NULL;
    uint64_t offs[3] = {0, 300000, 17}, lens[3] = {IO_POOL_MIN_BYTES + 1000, IO_POOL_MIN_BYTES, 5000};
    for (int i = 0; i < 3; i++) {
        fut_t *f = io_read(ctx, g_file, offs[i], lens[i]);
        fut_want(f);
        CHECK_EQ_I64(fut_await(f), 0);
        const io_bytes *b = fut_value(f);
        CHECK(bytes_match(b, offs[i], lens[i]));
        if (i == 0) first = b->data;
        if (i == 1) CHECK(b->data == first); /* the pooled buffer */
        if (i == 2) CHECK(b->data != first); /* small: the allocator's, not the pool's */
        fut_unref(f);
    }
    io_ctx_free(ctx);
}

/* A context's pooled buffer outlives it in the process-wide stash: the next context's read
 * of a range that fits lands in it (no fresh pages); io_stash_drain empties the stash. */
static void c_buffer_stash(void)
{
    io_stash_drain();
    io_opts_t o = io_opts_default();
    const uint8_t *first = NULL;
    for (int i = 0; i < 3; i++) {
        if (i == 2) io_stash_drain(); /* nothing kept: a fresh buffer */
        io_ctx_t *ctx = new_ctx(&o);
        uint64_t off = 1000u * (uint64_t)i, len = IO_POOL_MIN_BYTES + 1000u - (uint64_t)i;
        fut_t *f = io_read(ctx, g_file, off, len);
        fut_want(f);
        CHECK_EQ_I64(fut_await(f), 0);
        const io_bytes *b = fut_value(f);
        CHECK(bytes_match(b, off, len));
        if (i == 0) first = b->data;
        if (i == 1) CHECK(b->data == first); /* the first context's buffer, from the stash */
        fut_unref(f);
        io_ctx_free(ctx);
    }
    io_stash_drain();
}

/* With pool_held (a budgeted scan's contexts) the shared held count covers a range's buffer
 * (its capacity: what is resident) while read and buffered, and while idle in the pool, pools at most
 * pool_bytes, and never stashes: the context's end leaves the count and the stash at 0. */
static void c_buffer_held(void)
{
    io_stash_drain();
    _Atomic uint64_t held = 0;
    io_opts_t o = io_opts_default();
    o.held_total = &held;
    o.pool_held = true;
    o.pool_bytes = 1 << 20; /* one buffer of the 1 MiB a pooled-size range is rounded to */
    io_ctx_t *ctx = new_ctx(&o);
    uint64_t lens[3] = {IO_POOL_MIN_BYTES + 1000, IO_POOL_MIN_BYTES, 2 * IO_POOL_MIN_BYTES};
    const uint8_t *first = NULL;
    for (int i = 0; i < 3; i++) {
        fut_t *f = io_read(ctx, g_file, 0, lens[i]);
        fut_want(f);
        CHECK_EQ_I64(fut_await(f), 0);
        const io_bytes *b = fut_value(f);
        CHECK(bytes_match(b, 0, lens[i]));
        CHECK_EQ_I64((int64_t)atomic_load(&held), 1 << 20); /* its buffer, from the pool */
        if (i == 0) first = b->data;
        if (i == 1) CHECK(b->data == first);
        fut_unref(f);
        CHECK_EQ_I64((int64_t)atomic_load(&held), 1 << 20); /* idle, pooled, counted */
    }
    CHECK_EQ_I64((int64_t)io_stash_bytes(), 0);
    fut_t *f[2] = {io_read(ctx, g_file, 0, lens[0]), io_read(ctx, g_file, 600000, lens[0])};
    for (int i = 0; i < 2; i++) fut_want(f[i]);
    for (int i = 0; i < 2; i++) CHECK_EQ_I64(fut_await(f[i]), 0);
    CHECK_EQ_I64((int64_t)atomic_load(&held), 2 << 20); /* the pooled buffer and a new one */
    for (int i = 0; i < 2; i++) fut_unref(f[i]); /* the second buffer finds the pool full */
    CHECK_EQ_I64((int64_t)atomic_load(&held), 1 << 20);
    CHECK_EQ_I64((int64_t)io_stash_bytes(), 0); /* freed, not stashed */
    io_ctx_free(ctx);
    CHECK_EQ_I64((int64_t)atomic_load(&held), 0);
    CHECK_EQ_I64((int64_t)io_stash_bytes(), 0);
}

static int64_t short_hook(void *ctx, const io_file_t *f, uint64_t off, uint64_t len)
{
    (void)f;
    (void)off;
    int64_t max = *(int64_t *)ctx;
    return (int64_t)len < max ? (int64_t)len : max;
}

static void c_short_reads(void)
{
    int64_t max = 1000;
    io_opts_t o = io_opts_default();
    o.fault = short_hook;
    o.fault_ctx = &max;
    io_ctx_t *ctx = new_ctx(&o);
    fut_t *f = io_read(ctx, g_file, 5, 10000);
    CHECK_EQ_I64(fut_await(f), 0);
    CHECK(bytes_match(fut_value(f), 5, 10000));
    fut_unref(f);
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 10);
    CHECK_EQ_I64(c.ranges_submitted, 1);
    CHECK_EQ_I64(c.bytes_read, 10000);
    CHECK_EQ_I64(c.bytes_used, 10000);
    CHECK_EQ_I64(c.bytes_wasted, 0);
    io_ctx_free(ctx);
}

static int64_t eof_hook(void *ctx, const io_file_t *f, uint64_t off, uint64_t len)
{
    (void)f;
    (void)len;
    uint64_t at = *(uint64_t *)ctx;
    return off >= at ? 0 : (int64_t)(at - off < len ? at - off : len);
}

static int64_t err_hook(void *ctx, const io_file_t *f, uint64_t off, uint64_t len)
{
    (void)ctx;
    (void)f;
    (void)off;
    (void)len;
    return -EIO;
}

static void c_eof_text(void)
{
    io_ctx_t *ctx = new_ctx(NULL);
    fut_t *f = io_read(ctx, g_file, FILE_BYTES - 100, 200);
    CHECK_EQ_I64(fut_await(f), -EIO);
    char want[512];
    snprintf(want, sizeof want, "%s: unexpected end of file reading bytes [%d, %d) (file size %d, read stopped at %d)",
             g_path, FILE_BYTES - 100, FILE_BYTES + 100, FILE_BYTES, FILE_BYTES);
    CHECK_STR(fut_message(f), want);
    fut_unref(f);
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.bytes_read, 100);
    CHECK_EQ_I64(c.bytes_wasted, 100);
    CHECK_EQ_I64(c.requests_failed, 1);
    io_ctx_free(ctx);

    /* a simulated early EOF in the middle of a merged range: the covered request resolves */
    uint64_t at = 3000;
    io_opts_t o = io_opts_default();
    o.fault = eof_hook;
    o.fault_ctx = &at;
    ctx = new_ctx(&o);
    fut_t *a = io_read(ctx, g_file, 0, 1000), *b = io_read(ctx, g_file, 2000, 2000);
    fut_want(a);
    fut_want(b);
    CHECK_EQ_I64(fut_await(a), 0);
    CHECK(bytes_match(fut_value(a), 0, 1000));
    CHECK_EQ_I64(fut_await(b), -EIO);
    snprintf(want, sizeof want, "%s: unexpected end of file reading bytes [2000, 4000) (file size %d, read stopped at 3000)",
             g_path, FILE_BYTES);
    CHECK_STR(fut_message(b), want);
    fut_unref(a);
    fut_unref(b);
    io_ctx_free(ctx);

    o.fault = err_hook;
    ctx = new_ctx(&o);
    f = io_read(ctx, g_file, 8, 8);
    CHECK_EQ_I64(fut_await(f), -EIO);
    snprintf(want, sizeof want, "%s: read of bytes [8, 16) failed: %s", g_path, strerror(EIO));
    CHECK_STR(fut_message(f), want);
    fut_unref(f);
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 0);
    io_ctx_free(ctx);
}

static void c_cancel_before_submit(void)
{
    io_ctx_t *ctx = new_ctx(NULL);
    fut_t *w = io_read(ctx, g_file, 0, 4096), *r = io_read(ctx, g_file, 8192, 4096);
    fut_want(w);
    fut_unref(w); /* wanted but dropped before any flush */
    fut_unref(r); /* registered only */
    exec_yield();
    exec_yield();
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 0);
    CHECK_EQ_I64(c.bytes_read, 0);
    CHECK_EQ_I64(c.requests_registered, 2);
    CHECK_EQ_I64(c.requests_dropped_unsubmitted, 2);
    CHECK_EQ_I64(c.cancelled, 0);
    io_ctx_free(ctx);
}

static void c_cancel_after_submit(void)
{
    int64_t max = 1; /* one byte per read call: the range stays in flight across iterations */
    io_opts_t o = io_opts_default();
    o.fault = short_hook;
    o.fault_ctx = &max;
    io_ctx_t *ctx = new_ctx(&o);
    fut_t *f = io_read(ctx, g_file, 100, 65536);
    fut_want(f);
    exec_yield(); /* flushed, first read done, its continuation issued */
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK(c.reads_submitted >= 2);
    CHECK(!fut_is_ready(f));
    fut_unref(f); /* in flight: cancelled, buffer kept until the completion */
    for (int i = 0; i < 4; i++) exec_yield();
    CHECK_EQ_I64(exec_ops_pending(exec_current()), 0);
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.cancelled, 1);
    CHECK_EQ_I64(c.cancels_issued, 1);
    CHECK_EQ_I64(c.bytes_used, 0);
    CHECK(c.bytes_read >= 1 && c.bytes_read < 65536);
    CHECK_EQ_I64(c.bytes_wasted, c.bytes_read);
    io_ctx_free(ctx);
}

static void c_coalesce(void)
{
    io_ctx_t *ctx = new_ctx(NULL); /* gap 128 KiB, max 4 MiB */
    fut_t *f[4], *far;
    for (int i = 0; i < 4; i++) f[i] = io_read(ctx, g_file, (uint64_t)i * 8192, 4096);
    far = io_read(ctx, g_file, 900000, 4096); /* beyond the gap: never read */
    CHECK_EQ_I64(fut_await(f[1]), 0);
    for (int i = 0; i < 4; i++) {
        CHECK(fut_is_ready(f[i]) && fut_status(f[i]) == 0);
        CHECK(bytes_match(fut_value(f[i]), (uint64_t)i * 8192, 4096));
    }
    CHECK(!fut_is_ready(far));
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 1);
    CHECK_EQ_I64(c.ranges_submitted, 1);
    CHECK_EQ_I64(c.bytes_read, 28672);
    CHECK_EQ_I64(c.bytes_wasted, 12288); /* the three holes */
    for (int i = 0; i < 4; i++) fut_unref(f[i]);
    fut_unref(far);
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.bytes_used, 4096);
    CHECK_EQ_I64(c.bytes_wasted, 12288 + 3 * 4096); /* plus three slices never wanted */
    CHECK_EQ_I64(c.bytes_used + c.bytes_wasted, c.bytes_read);
    CHECK_EQ_I64(c.requests_dropped_unsubmitted, 1);
    CHECK_EQ_I64(c.peak_inflight_bytes, 28672);
    io_ctx_free(ctx);

    io_opts_t o = io_opts_default(); /* max_bytes caps a merge */
    o.max_bytes = 12288;
    ctx = new_ctx(&o);
    for (int i = 0; i < 4; i++) f[i] = io_read(ctx, g_file, (uint64_t)i * 8192, 4096);
    CHECK_EQ_I64(fut_await(f[0]), 0);
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 1);
    CHECK_EQ_I64(c.bytes_read, 12288);
    CHECK(fut_is_ready(f[1]) && !fut_is_ready(f[2]));
    for (int i = 0; i < 4; i++) fut_unref(f[i]);
    io_ctx_free(ctx);

    /* overlapping requests (two splits wanting one dictionary page) share one read, and
     * their common bytes are counted once */
    ctx = new_ctx(NULL);
    f[0] = io_read(ctx, g_file, 4096, 8192);
    f[1] = io_read(ctx, g_file, 4096, 8192);
    f[2] = io_read(ctx, g_file, 8192, 8192);
    for (int i = 0; i < 3; i++) fut_want(f[i]);
    CHECK_EQ_I64(fut_await(f[2]), 0);
    for (int i = 0; i < 3; i++) {
        CHECK(fut_is_ready(f[i]) && fut_status(f[i]) == 0);
        CHECK(bytes_match(fut_value(f[i]), i == 2 ? 8192 : 4096, 8192));
    }
    const io_bytes *v0 = fut_value(f[0]), *v1 = fut_value(f[1]), *v2 = fut_value(f[2]);
    CHECK_EQ_I64(v0->shared + v1->shared + v2->shared, 8192 + 4096);
    for (int i = 0; i < 3; i++) fut_unref(f[i]);
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 1);
    CHECK_EQ_I64(c.bytes_read, 12288);
    CHECK_EQ_I64(c.bytes_used, 12288);
    CHECK_EQ_I64(c.bytes_wasted, 0);
    io_ctx_free(ctx);
}

/* Reads the wanted requests [off, off + len) x n under gap 4 KiB and dense_gap; checks the
 * bytes and returns the ranges made and bytes read in *bytes. */
static int64_t dense_ranges(uint64_t dense_gap, const uint64_t *off, const uint64_t *len, int n,
                            uint64_t *bytes)
{
    io_opts_t o = io_opts_default();
    o.gap_bytes = 4096;
    o.dense_gap_bytes = dense_gap;
    io_ctx_t *ctx = new_ctx(&o);
    fut_t *f[4];
    CHECK(n <= 4);
    if (n > 4) return -1;
    for (int i = 0; i < n; i++) f[i] = io_read(ctx, g_file, off[i], len[i]);
    for (int i = 0; i < n; i++) fut_want(f[i]);
    for (int i = 0; i < n; i++) {
        CHECK_EQ_I64(fut_await(f[i]), 0);
        CHECK(bytes_match(fut_value(f[i]), off[i], len[i]));
        fut_unref(f[i]);
    }
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.bytes_used + c.bytes_wasted, c.bytes_read);
    io_ctx_free(ctx);
    *bytes = c.bytes_read;
    return (int64_t)c.ranges_submitted;
}

/* A hole up to dense_gap_bytes (at most the file's cost model gap) is read over when at least
 * half of the range stays requested, the requests after the hole counted as the cluster they
 * make (a small one right after the hole does not stop it); a sparser or wider hole splits
 * the read. */
static void c_dense_gap(void)
{
    uint64_t bytes;
    /* 40000 + hole 60000 + (4000 + gap 1000 + 59000): 103000 of 164000 requested */
    const uint64_t off1[] = {0, 100000, 105000}, len1[] = {40000, 4000, 59000};
    CHECK_EQ_I64(dense_ranges(65536, off1, len1, 3, &bytes), 1);
    CHECK_EQ_I64(bytes, 164000);
    CHECK_EQ_I64(dense_ranges(0, off1, len1, 3, &bytes), 2); /* off: the 4 KiB gap only */
    CHECK_EQ_I64(bytes, 104000);
    CHECK_EQ_I64(dense_ranges(50000, off1, len1, 3, &bytes), 2); /* the hole is wider */
    /* 10000 + hole 60000 + 10000: a quarter requested */
    const uint64_t off2[] = {0, 70000}, len2[] = {10000, 10000};
    CHECK_EQ_I64(dense_ranges(65536, off2, len2, 2, &bytes), 2);
    CHECK_EQ_I64(bytes, 20000);
    /* exactly half requested merges */
    const uint64_t off3[] = {0, 90000}, len3[] = {30000, 30000};
    CHECK_EQ_I64(dense_ranges(65536, off3, len3, 2, &bytes), 1);
    CHECK_EQ_I64(bytes, 120000);
    /* a local file's cost model caps the dense gap at its gap (100 us x 2 GB/s = 200000):
     * under 1 MiB a hole of 190000 is merged, one of 300000 is not */
    CHECK_EQ_I64(io_cost_gap(&g_file->cost), 200000);
    const uint64_t off4[] = {0, 540000}, len4[] = {350000, 350000};
    CHECK_EQ_I64(dense_ranges(1 << 20, off4, len4, 2, &bytes), 1);
    CHECK_EQ_I64(bytes, 890000);
    const uint64_t off5[] = {0, 650000}, len5[] = {350000, 350000};
    CHECK_EQ_I64(dense_ranges(1 << 20, off5, len5, 2, &bytes), 2);
    CHECK_EQ_I64(bytes, 700000);
}

/* Reads the n wanted requests [off, off + len) as one merged range (gap 512 KiB) with fault
 * hook fault (NULL: none); checks each one's bytes, returns its data pointers in *data and
 * the counters in *c. */
static void holed_read(const uint64_t *off, const uint64_t *len, int n, io_fault_fn fault,
                       void *fault_ctx, const uint8_t **data, io_counters_t *c)
{
    io_opts_t o = io_opts_default();
    o.gap_bytes = 512 * 1024;
    o.fault = fault;
    o.fault_ctx = fault_ctx;
    io_ctx_t *ctx = new_ctx(&o);
    fut_t *f[64];
    CHECK(n <= 64);
    if (n > 64) return;
    for (int i = 0; i < n; i++) f[i] = io_read(ctx, g_file, off[i], len[i]);
    for (int i = 0; i < n; i++) fut_want(f[i]);
    for (int i = 0; i < n; i++) {
        CHECK_EQ_I64(fut_await(f[i]), 0);
        CHECK(bytes_match(fut_value(f[i]), off[i], len[i]));
        data[i] = ((const io_bytes *)fut_value(f[i]))->data;
    }
    for (int i = 0; i < n; i++) fut_unref(f[i]); /* every slice alive until all were checked */
    io_ctx_counters(ctx, c);
    CHECK_EQ_I64(c->ranges_submitted, 1);
    CHECK_EQ_I64(c->bytes_used + c->bytes_wasted, c->bytes_read);
    io_ctx_free(ctx);
}

/* A merged range's holes of 4 KiB or more land in the scratch buffer (io_range.c invariant
 * 6): the members' bytes are packed one run after another in the range buffer, each exact
 * (a hole written into the buffer would move them), a smaller hole lands with its
 * neighbours, and the read is still one call of the range's whole bytes, continued over the
 * pieces when a call comes back short. */
static void c_holes(void)
{
    /* A, hole 5000, B, hole 280000 (5 scratch pieces), C with E inside it, hole 100, D */
    const uint64_t off[] = {0, 15000, 300000, 300000, 310100};
    const uint64_t len[] = {10000, 5000, 10000, 5000, 9900};
    const uint8_t *d[5];
    io_counters_t c;
    holed_read(off, len, 5, NULL, NULL, d, &c);
    CHECK_EQ_I64(c.reads_submitted, 1);
    CHECK_EQ_I64(c.bytes_read, 320000);
    CHECK_EQ_I64(c.bytes_skipped, 5000 + 280000);
    CHECK_EQ_I64(c.bytes_wasted, 5000 + 280000 + 100);
    CHECK_EQ_I64(d[1] - d[0], 10000);        /* B right after A */
    CHECK_EQ_I64(d[2] - d[0], 15000);        /* C right after B */
    CHECK(d[3] == d[2]);                     /* E shares C's bytes */
    CHECK_EQ_I64(d[4] - d[0], 15000 + 10100); /* D after C and the 100-byte hole */
    /* calls cut at 7000 bytes: 46 calls over the 320000 bytes, the same bytes landed */
    int64_t max = 7000;
    holed_read(off, len, 5, short_hook, &max, d, &c);
    CHECK_EQ_I64(c.reads_submitted, (320000 + 6999) / 7000);
    CHECK_EQ_I64(c.bytes_read, 320000);
    CHECK_EQ_I64(c.bytes_skipped, 5000 + 280000);
    CHECK_EQ_I64(d[4] - d[0], 15000 + 10100);
    /* 40 members 5000 bytes apart (holes of 4900): 79 pieces, over IO_IOV_MAX, so the range
     * lands whole in its buffer */
    uint64_t off2[40], len2[40];
    for (int i = 0; i < 40; i++) off2[i] = (uint64_t)i * 5000, len2[i] = 100;
    const uint8_t *d2[40];
    holed_read(off2, len2, 40, NULL, NULL, d2, &c);
    CHECK_EQ_I64(c.reads_submitted, 1);
    CHECK_EQ_I64(c.bytes_read, 39 * 5000 + 100);
    CHECK_EQ_I64(c.bytes_skipped, 0);
    CHECK_EQ_I64(d2[39] - d2[0], 39 * 5000);
}

static void c_lazy(void)
{
    io_ctx_t *ctx = new_ctx(NULL);
    fut_t *f[10];
    for (int i = 0; i < 10; i++) f[i] = io_read(ctx, g_file, (uint64_t)i * 100, 50);
    for (int i = 0; i < 3; i++) exec_yield();
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 0);
    for (int i = 0; i < 10; i++) CHECK(!fut_is_ready(f[i]));
    for (int i = 0; i < 10; i++) fut_unref(f[i]);
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.requests_dropped_unsubmitted, 10);
    CHECK_EQ_I64(c.bytes_read + c.bytes_used + c.bytes_wasted, 0);
    io_ctx_free(ctx);
}

/* Kept bytes (io.h invariant 5): a file given bytes of its own (here 0xAB, not the file's
 * pattern, so a read of the file would show) serves a request inside them at once with no
 * read: counted kept and used when wanted, dropped when not; a request reaching outside
 * them, or under a fault hook, is read from the file. */
static void c_kept(void)
{
    io_file_t *f = NULL;
    char err[256];
    CHECK(io_file_open(&f, g_path, err, sizeof err) == 0);
    enum { KEPT_OFF = FILE_BYTES - 100000, KEPT_LEN = 90000 };
    uint8_t *buf = malloc(KEPT_LEN);
    memset(buf, 0xAB, KEPT_LEN);
    io_file_keep(f, buf, KEPT_OFF, KEPT_LEN);
    io_ctx_t *ctx = new_ctx(NULL);
    fut_t *in = io_read(ctx, f, KEPT_OFF + 10, KEPT_LEN - 10); /* to the kept end */
    fut_t *lazy = io_read(ctx, f, KEPT_OFF, 100);
    fut_t *out = io_read(ctx, f, KEPT_OFF - 1, 100); /* one byte before them */
    CHECK(fut_is_ready(in) && fut_is_ready(lazy) && !fut_is_ready(out));
    CHECK_EQ_I64(fut_await(in), 0);
    const io_bytes *b = fut_value(in);
    CHECK(b->len == KEPT_LEN - 10 && b->data[0] == 0xAB && b->data[b->len - 1] == 0xAB);
    CHECK_EQ_I64(fut_await(out), 0);
    CHECK(bytes_match(fut_value(out), KEPT_OFF - 1, 100));
    fut_unref(in), fut_unref(lazy), fut_unref(out);
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 1);
    CHECK_EQ_I64(c.bytes_read, 100);
    CHECK_EQ_I64(c.reads_kept, 1);
    CHECK_EQ_I64(c.bytes_kept, KEPT_LEN - 10);
    CHECK_EQ_I64(c.bytes_used, KEPT_LEN - 10 + 100);
    CHECK_EQ_I64(c.bytes_wasted, 0);
    CHECK_EQ_I64(c.requests_dropped_unsubmitted, 1);
    CHECK_EQ_I64(c.requests_registered, 3);
    io_ctx_free(ctx);
    int64_t max = 1 << 30;
    io_opts_t o = io_opts_default();
    o.fault = short_hook;
    o.fault_ctx = &max;
    ctx = new_ctx(&o);
    fut_t *faulted = io_read(ctx, f, KEPT_OFF, 100);
    CHECK_EQ_I64(fut_await(faulted), 0);
    CHECK(bytes_match(fut_value(faulted), KEPT_OFF, 100));
    fut_unref(faulted);
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.reads_submitted, 1);
    CHECK_EQ_I64(c.reads_kept, 0);
    io_ctx_free(ctx);
    io_file_close(f); /* frees buf */
}

/* Wants n reads of 4096 bytes 200,000 apart (never coalesced) into f, awaits the first two
 * and lets the core loop a few times: a budget that fits two holds the rest back. Returns
 * the ranges submitted by then. */
static int64_t want_spread(io_ctx_t *ctx, fut_t **f, int n)
{
    for (int i = 0; i < n; i++) {
        f[i] = io_read(ctx, g_file, (uint64_t)i * 200000, 4096);
        fut_want(f[i]);
    }
    CHECK_EQ_I64(fut_await(f[0]), 0);
    CHECK_EQ_I64(fut_await(f[1]), 0);
    for (int i = 0; i < 3; i++) exec_yield();
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    return (int64_t)c.ranges_submitted;
}

static void c_budget(void)
{
    io_opts_t o = io_opts_default();
    o.budget_bytes = 8192;
    io_ctx_t *ctx = new_ctx(&o);
    fut_t *f[4];
    CHECK_EQ_I64(want_spread(ctx, f, 4), 2); /* the budget holds the other two back */
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK(c.budget_waits >= 1);
    CHECK(!fut_is_ready(f[2]) && !fut_is_ready(f[3]));
    fut_unref(f[0]);
    fut_unref(f[1]);
    CHECK_EQ_I64(fut_await(f[2]), 0);
    CHECK_EQ_I64(fut_await(f[3]), 0);
    CHECK(bytes_match(fut_value(f[3]), 600000, 4096));
    fut_unref(f[2]);
    fut_unref(f[3]);
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.ranges_submitted, 4);
    CHECK_EQ_I64(c.peak_inflight_bytes, 8192);
    CHECK_EQ_I64(c.bytes_used, 16384);
    io_ctx_free(ctx);
}

typedef struct stall_free {
    io_ctx_t *ctx;
    fut_t *f[4];
    int freed;
} stall_free;

static void stall_freed(void *p, const io_counters_t *final)
{
    CHECK(final != NULL);
    ((stall_free *)p)->freed++;
}

/* A timer's callback queued ahead of the stall timer's: drops the reads, closes the context. */
static void stall_close(fut_t *t, void *p)
{
    (void)t;
    stall_free *sf = p;
    for (int i = 3; i >= 0; i--) fut_unref(sf->f[i]);
    io_ctx_free(sf->ctx);
}

/* The budget's stall timer (io_flush.c, invariant 5) fired, its callback queued, when the
 * context closes: the context lives until the callback ran. io_ctx_free took the fired timer
 * for a pending one (dropping it "cancels" it) and freed the context at once, and the queued
 * callback ran on freed memory (found by a dataset scan under a fetch budget, ASan). Both
 * timers fire in one pass of the loop: the core is held past both deadlines. */
static void c_stall_queued(void)
{
    bool tried = false;
    for (int attempt = 0; attempt < 10 && !tried; attempt++) {
        stall_free sf = {0};
        io_opts_t o = io_opts_default();
        o.budget_bytes = 8192;
        o.on_freed = stall_freed, o.on_freed_ctx = &sf;
        sf.ctx = new_ctx(&o);
        CHECK_EQ_I64(want_spread(sf.ctx, sf.f, 4), 2); /* two wait, none in flight */
        fut_t *first = exec_sleep_ns(0);
        CHECK(first && fut_on_ready(first, stall_close, &sf) == 0);
        /* the stall timer still pending: its deadline comes after first's */
        tried = sf.ctx->stall_timer && !fut_is_ready(sf.ctx->stall_timer);
        nanosleep(&(struct timespec){0, (long)(2 * IO_BUDGET_STALL_NS)}, NULL);
        fut_t *after = exec_sleep_ns(1000000);
        CHECK_EQ_I64(fut_await(after), 0);
        fut_unref(after);
        fut_unref(first);
        CHECK_EQ_I64(sf.freed, 1);
    }
    CHECK(tried); /* in 10 tries, once at least within the window that orders the timers */
}

static void c_ctx_free_pending(void)
{
    io_ctx_t *ctx = new_ctx(NULL);
    fut_t *f = io_read(ctx, g_file, 0, 10);
    io_ctx_free(ctx); /* f still referenced: it fails, the context goes */
    CHECK_EQ_I64(fut_status(f), -ECANCELED);
    fut_unref(f);
}

/* ---- plain tests (main thread) ---- */

static void read_sync(void)
{
    uint8_t buf[300];
    char err[512];
    CHECK_EQ_I64(io_read_sync(g_file, 1000, buf, sizeof buf, err, sizeof err), 0);
    io_bytes b = {buf, sizeof buf, 0};
    CHECK(bytes_match(&b, 1000, sizeof buf));
    CHECK_EQ_I64(io_read_sync(g_file, FILE_BYTES - 10, buf, 20, err, sizeof err), -EIO);
    char want[512];
    snprintf(want, sizeof want, "%s: unexpected end of file reading bytes [%d, %d) (file size %d)",
             g_path, FILE_BYTES - 10, FILE_BYTES + 10, FILE_BYTES);
    CHECK_STR(err, want);
    io_file_t *nf = NULL;
    CHECK_EQ_I64(io_file_open(&nf, "/nonexistent/x.parquet", err, sizeof err), -ENOENT);
    CHECK_STR(err, "/nonexistent/x.parquet: cannot open: No such file or directory");
}


/* ---- the simulated store and the cost model (io/store.h, io/store_sim.c) ---- */

/* A file of the pattern on a simulated store of spec (NULL: 4 connections): 2 ms to first
 * byte, 100 MB/s per connection (the default under bw=1GB/s), so the cost model's gap is
 * 200,000 bytes. */
static io_file_t *sim_file_of(const char *spec)
{
    io_file_t *f = NULL;
    char err[256];
    if (!spec) spec = "sim:ttfb=2ms,bw=1GB/s,conns=4,seed=7";
    CHECK(io_file_open_with(&f, g_path, &(io_open_opts){.store = spec}, err, sizeof err) == 0);
    return f;
}

static io_file_t *sim_file(void) { return sim_file_of(NULL); }

/* The six reads of c_sim_bytes on f, each checked, on a fresh context whose own gap is 0;
 * returns the context's counters. */
static io_counters_t sim_six_reads(io_file_t *f)
{
    io_opts_t o = io_opts_default();
    o.gap_bytes = 0; /* a local file's gap: not the one a remote file uses */
    io_ctx_t *ctx = new_ctx(&o);
    /* [0, 90000): holes of 2000, 2000 (free) and 14000 (72000 of 90000 requested); then a
     * hole of 209000 (over the gap); then one of 99000 that would leave 2000 of 101000 */
    enum { N = 6 };
    uint64_t offs[N] = {0, 3000, 6000, 30000, 300000, 400000};
    uint64_t lens[N] = {1000, 1000, 10000, 60000, 1000, 1000};
    fut_t *r[N];
    for (int i = 0; i < N; i++) r[i] = io_read(ctx, f, offs[i], lens[i]);
    for (int i = 0; i < N; i++) fut_want(r[i]);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_I64(fut_await(r[i]), 0);
        CHECK(bytes_match(fut_value(r[i]), offs[i], lens[i]));
        fut_unref(r[i]);
    }
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    io_ctx_free(ctx);
    CHECK_EQ_I64(atomic_load(&f->ranges_in_flight), 0);
    return c;
}

/* Bytes come back exact; each range is one request to the store. While the store has a
 * connection free for another range (4 connections, none busy), wanted requests merge over
 * holes of up to 4 KiB only (the 14,000-byte hole is not read: 4 ranges); with its one
 * connection busy from the first range on, also over a larger hole below ttfb x bandwidth
 * while the range stays half requested, never over one above it, whatever the context's own
 * gap (3 ranges). */
static void c_sim_bytes(void)
{
    io_file_t *f = sim_file();
    if (!f) return;
    CHECK(f->be->remote && strcmp(f->be->name, "sim") == 0);
    CHECK_EQ_I64(io_cost_gap(&f->cost), 200000);
    CHECK_EQ_I64(f->cost.conns, 4);
    io_counters_t c = sim_six_reads(f);
    CHECK_EQ_I64(c.ranges_submitted, 4);
    CHECK_EQ_I64(c.bytes_read, 16000 + 60000 + 1000 + 1000);
    CHECK_EQ_I64(atomic_load(&f->requests), 4);
    CHECK_EQ_I64(atomic_load(&f->bytes), 78000);
    io_file_close(f);
    if (!(f = sim_file_of("sim:ttfb=2ms,bw=1GB/s,conns=1,seed=7"))) return;
    c = sim_six_reads(f);
    CHECK_EQ_I64(c.ranges_submitted, 3);
    CHECK_EQ_I64(c.bytes_read, 90000 + 1000 + 1000);
    CHECK_EQ_I64(atomic_load(&f->requests), 3);
    CHECK_EQ_I64(atomic_load(&f->bytes), 92000);
    io_file_close(f);
}


/* A request dropped while it waits for its time is cancelled without a file read; the store
 * counts no transfer and nothing leaks. */
/* A read of 8192 bytes at 4096 on a new context over the simulated file f, flushed: its
 * range waits for its simulated first byte. */
static fut_t *sim_waiting_read(io_file_t *f, io_ctx_t **ctx)
{
    *ctx = new_ctx(NULL);
    fut_t *r = io_read(*ctx, f, 4096, 8192);
    fut_want(r);
    exec_yield();
    return r;
}

static void c_sim_cancel(void)
{
    io_file_t *f = sim_file();
    if (!f) return;
    io_ctx_t *ctx;
    fut_unref(sim_waiting_read(f, &ctx));
    fut_t *t = exec_sleep_ns(5 * 1000 * 1000);
    CHECK_EQ_I64(fut_await(t), 0);
    fut_unref(t);
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.ranges_submitted, 1);
    CHECK_EQ_I64(c.cancelled, 1);
    CHECK_EQ_I64(c.cancels_issued, 1);
    CHECK_EQ_I64(c.bytes_read, 0);
    CHECK_EQ_I64(atomic_load(&f->requests), 0);
    CHECK_EQ_I64(atomic_load(&f->ranges_in_flight), 0); /* the cancelled range left */
    io_ctx_free(ctx);
    io_file_close(f);
}

/* io_ctx_cancel_reads: a range waiting for its first byte fails -ECANCELED with its read
 * cancelled, a request registered and not submitted fails at once, and every read after the
 * cancel fails at once without a request to the store (a task between two reads reads
 * nothing more). */
static void c_sim_cancel_reads(void)
{
    io_file_t *f = sim_file();
    if (!f) return;
    io_ctx_t *ctx;
    fut_t *r = sim_waiting_read(f, &ctx);
    fut_t *p = io_read(ctx, f, 300000, 100); /* registered, never flushed */
    io_ctx_cancel_reads(ctx);
    CHECK_EQ_I64(fut_status(p), -ECANCELED);
    CHECK_EQ_I64(fut_await(r), -ECANCELED);
    fut_t *later = io_read(ctx, f, 0, 10);
    CHECK_EQ_I64(fut_status(later), -ECANCELED);
    CHECK(strstr(fut_message(later), "cancelled") != NULL);
    fut_unref(later), fut_unref(p), fut_unref(r);
    io_counters_t c;
    io_ctx_counters(ctx, &c);
    CHECK_EQ_I64(c.ranges_submitted, 1);
    CHECK_EQ_I64(c.cancels_issued, 1);
    CHECK_EQ_I64(c.bytes_read, 0);
    CHECK_EQ_I64(c.requests_registered, 2); /* the read after the cancel: none */
    CHECK_EQ_I64(atomic_load(&f->requests), 0);
    io_ctx_free(ctx);
    CHECK_EQ_I64(atomic_load(&f->ranges_in_flight), 0);
    io_file_close(f);
}

/* The metadata path waits for the simulated time too and counts the request. */
static void sim_sync(void)
{
    io_file_t *f = sim_file();
    if (!f) return;
    uint8_t buf[300];
    char err[256];
    uint64_t t0 = exec_now_ns();
    CHECK(io_read_sync(f, 5000, buf, sizeof buf, err, sizeof err) == 0);
    CHECK(exec_now_ns() - t0 >= 2 * 1000 * 1000); /* a lower bound of the model, not a timing */
    CHECK(bytes_match(&(io_bytes){.data = buf, .len = sizeof buf}, 5000, sizeof buf));
    CHECK_EQ_I64(atomic_load(&f->requests), 1);
    uint64_t ttfb, bw;
    CHECK(io_sim_model(f, &ttfb, &bw));
    CHECK_EQ_I64(ttfb, 2000000);
    CHECK_EQ_I64(bw, 400000000); /* 4 connections of 100 MB/s under 1 GB/s */
    CHECK(!io_sim_model(g_file, &ttfb, &bw));
    io_file_close(f);
}

/* io_sim_bound_ns schedules as the store does, from idle connections, on hand-computed
 * cases (10 ms to first byte, 50 MB/s a connection, 100 MB/s through the pipe; 1 MB takes
 * 20 ms on a connection, 10 ms of the pipe): 3 ranges of 1 MB on 2 connections finish at 30,
 * 30 (the second waits for the pipe until 30) and 60 ms (the third takes connection 0 at 30,
 * its first byte at 40, its transfer until 60); on 4 connections 4 of them are pipe-bound
 * (20, 30, 40, 50 ms); 0.5 MB then 2 MB on 2 connections end at 20 and 50 ms (its own
 * connection, not the pipe's 35). Touching ranges merge within the cap (10 ms x 50 MB/s =
 * 500,000 bytes): three of 200,000 from 0 are a request of 400,000 (8 ms on its connection:
 * 18 ms) and one of 200,000 (16 ms: the pipe's 14 + 2). The store's own schedule is
 * untouched. */
static void sim_bound(void)
{
    static const char *const spec = "sim:ttfb=10ms,bw=100MB/s,conn_bw=50MB/s,conns=2,seed=7";
    static const struct {
        const char *spec;
        int n;
        uint64_t off[4], len[4], ns, requests;
    } cases[] = {
        {NULL, 3, {0, 2000000, 4000000}, {1000000, 1000000, 1000000}, 60000000, 3},
        {"sim:ttfb=10ms,bw=100MB/s,conn_bw=50MB/s,conns=4,seed=7", 4,
         {0, 2000000, 4000000, 6000000}, {1000000, 1000000, 1000000, 1000000}, 50000000, 4},
        {NULL, 2, {0, 2000000}, {500000, 2000000}, 50000000, 2},
        {NULL, 3, {0, 200000, 400000}, {200000, 200000, 200000}, 18000000, 2},
        {NULL, 0, {0}, {0}, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        io_file_t *f = sim_file_of(cases[k].spec ? cases[k].spec : spec);
        if (!f) return;
        for (int twice = 0; twice < 2; twice++) { /* the store's connections were not moved */
            uint64_t ns = 1;
            size_t req = 1;
            CHECK_EQ_I64(io_sim_bound_ns(f, cases[k].off, cases[k].len, (size_t)cases[k].n, &ns,
                                         &req), 0);
            CHECK_EQ_I64(ns, cases[k].ns);
            CHECK_EQ_I64(req, cases[k].requests);
        }
        CHECK_EQ_I64(atomic_load(&f->requests), 0);
        io_file_close(f);
    }
    uint64_t off = 0, len = 1000, ns = 1;
    size_t req = 1;
    CHECK_EQ_I64(io_sim_bound_ns(g_file, &off, &len, 1, &ns, &req), -EINVAL);
    CHECK_EQ_I64(ns, 0);
    CHECK_EQ_I64(req, 0);
}

/* A metadata read of a MiB on a store with a fixed first byte and idle connections goes as
 * parallel requests of at least IO_SPLIT_PART_MIN (one a connection, at most 8), their bytes
 * the read's; with drawn first bytes (the read would wait for the slowest) or one connection
 * it is one request. */
static void sim_sync_split(void)
{
    static const struct { const char *spec; int64_t requests; } cases[] = {
        {"sim:ttfb=2ms,bw=1GB/s,conns=64,seed=7", 8},
        {"sim:ttfb=2ms,bw=1GB/s,conns=4,seed=7", 4},
        {"sim:ttfb=2ms,bw=1GB/s,conns=1,seed=7", 1},
        {"sim:ttfb=dist,bw=1GB/s,conns=64,seed=7", 1},
    };
    enum { LEN = 1 << 20 };
    uint8_t *buf = malloc(LEN);
    char err[256];
    for (size_t i = 0; buf && i < sizeof cases / sizeof cases[0]; i++) {
        io_file_t *f = sim_file_of(cases[i].spec);
        if (!f) break;
        CHECK_EQ_I64(io_read_sync(f, 100, buf, LEN, err, sizeof err), 0);
        CHECK(bytes_match(&(io_bytes){.data = buf, .len = LEN}, 100, LEN));
        CHECK_EQ_I64(atomic_load(&f->requests), cases[i].requests);
        CHECK_EQ_I64(atomic_load(&f->bytes), LEN);
        io_file_close(f);
    }
    free(buf);
}

/* The same MiB while three ranges are in flight on 4 connections (one idle beside the read)
 * goes as one request; the three are counted when they complete. */
static void c_sim_sync_busy(void)
{
    io_file_t *f = sim_file();
    if (!f) return;
    io_ctx_t *ctx = new_ctx(NULL);
    fut_t *r[3];
    for (int i = 0; i < 3; i++) { /* holes of 299 KB: on 4 connections, three ranges */
        r[i] = io_read(ctx, f, 300000 * (uint64_t)i, 1000);
        fut_want(r[i]);
    }
    exec_yield(); /* flushed: the three wait for their simulated first bytes */
    CHECK_EQ_I64(atomic_load(&f->ranges_in_flight), 3);
    enum { LEN = 1 << 20 };
    uint8_t *buf = malloc(LEN);
    char err[256];
    CHECK(buf && io_read_sync(f, 100, buf, LEN, err, sizeof err) == 0);
    CHECK(buf && bytes_match(&(io_bytes){.data = buf, .len = LEN}, 100, LEN));
    CHECK_EQ_I64(atomic_load(&f->requests), 1);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_I64(fut_await(r[i]), 0);
        fut_unref(r[i]);
    }
    CHECK_EQ_I64(atomic_load(&f->requests), 4);
    CHECK_EQ_I64(atomic_load(&f->bytes), LEN + 3000);
    free(buf);
    io_ctx_free(ctx);
    io_file_close(f);
}

/* Bad specs are refused with the key or value named; a store cannot wrap a URL. */
static void sim_spec_errors(void)
{
    static const struct { const char *spec, *msg; } bad[] = {
        {"sim:ttfb=50", "bad value in 'ttfb=50'"},
        {"sim:ttfb=50ms,speed=3", "unknown key in 'speed=3'"},
        {"sim:bw=0B/s", "bw and conn_bw must be above 0"},
        {"sim:conns=100000", "conns in [1, 4096]"},
        {"simulated", "expected sim:key=value"},
        {"sim:bw=99999999999999999999MB/s", "bad value in"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        io_file_t *f = NULL;
        char err[256] = "";
        CHECK_EQ_I64(io_file_open_with(&f, g_path, &(io_open_opts){.store = bad[i].spec}, err,
                                       sizeof err), -EINVAL);
        CHECK(f == NULL);
        if (!strstr(err, bad[i].msg)) fprintf(stderr, "  got: %s\n", err);
        CHECK(strstr(err, bad[i].msg) != NULL);
    }
    io_file_t *f = NULL;
    char err[256] = "";
    CHECK_EQ_I64(io_file_open_with(&f, "http://127.0.0.1:1/x", &(io_open_opts){.store = "sim:"},
                                   err, sizeof err), -EINVAL);
    CHECK(strstr(err, "wraps a local file") != NULL);
}

/* The cost model's arithmetic: gap = ttfb x bandwidth in [4 KiB, 32 MiB], request cap ttfb x
 * the seeded bandwidth (Arrow's 9 x gap with the seed is never below it) in [4 KiB, 16 MiB],
 * whatever the measured bandwidth; the EWMA moves an eighth of the way. */
static void cost_model(void)
{
    io_cost c;
    io_cost_seed(&c, 30 * 1000 * 1000, 100 * 1000 * 1000, 64); /* S3's seed: 30 ms, 100 MB/s */
    CHECK_EQ_I64(io_cost_gap(&c), 3000000);
    CHECK_EQ_I64(io_cost_max(&c), 3000000); /* one round trip of transfer, not 9 x gap */
    io_cost_seed(&c, 1000, 1000 * 1000, 64); /* 1 us x 1 MB/s = 1 byte */
    CHECK_EQ_I64(io_cost_gap(&c), 4096);
    CHECK_EQ_I64(io_cost_max(&c), 4096);
    io_cost_seed(&c, UINT64_MAX, UINT64_MAX, 64);
    CHECK_EQ_I64(io_cost_gap(&c), 32 << 20);
    CHECK_EQ_I64(io_cost_max(&c), 16 << 20);
    /* a slow measured transfer (a shared pipe) shrinks the gap and 9 x gap, not the seed's cap */
    io_cost_seed(&c, 50 * 1000 * 1000, 100 * 1000 * 1000, 64); /* sim: 50 ms, 100 MB/s */
    CHECK_EQ_I64(io_cost_max(&c), 5000000);
    for (int i = 0; i < 8; i++) io_cost_observe(&c, 50 * 1000 * 1000, 4000000, 400000000);
    CHECK(io_cost_gap(&c) < 5000000 && io_cost_gap(&c) > 1000000);
    CHECK_EQ_I64(io_cost_max(&c), 5000000);
    /* ... however slow: 9 x the EWMA's gap under the seed's cap (a queue 50 requests deep
     * behind a 500 MB/s pipe measures 10 MB/s) leaves it (it fell to 3.76 MB on sf=10 wide) */
    for (int i = 0; i < 40; i++) io_cost_observe(&c, 50 * 1000 * 1000, 4000000, 1000000000);
    CHECK(io_cost_gap(&c) * 9 < 5000000);
    CHECK_EQ_I64(io_cost_max(&c), 5000000);
    io_cost_seed(&c, 8000, 1000, 64);
    io_cost_observe(&c, 16000, 1000000, 1000000000); /* 1 MB in 1 s: 1 MB/s */
    CHECK_EQ_I64(atomic_load(&c.ttfb_ns), 9000);
    CHECK_EQ_I64(atomic_load(&c.bytes_per_s), 1000 + (1000000 - 1000) / 8);
    io_cost_observe(&c, 0, 10, 10); /* too short to measure bandwidth: only ttfb moves */
    CHECK_EQ_I64(atomic_load(&c.bytes_per_s), 1000 + (1000000 - 1000) / 8);
    CHECK_EQ_I64(atomic_load(&c.samples), 2);
    /* splitting over idle connections: parts of >= 128 KiB, one per idle connection, 8 at
     * most, none when the transfer saved is under the first byte's spread */
    io_cost_seed(&c, 50 * 1000 * 1000, 100 * 1000 * 1000, 64); /* 1 MiB: 10.5 ms alone */
    CHECK_EQ_I64(io_cost_parts(&c, 1 << 20, 0), 8);
    CHECK_EQ_I64(io_cost_parts(&c, 5 << 20, 0), 8);
    CHECK_EQ_I64(io_cost_parts(&c, 384 << 10, 0), 3);
    CHECK_EQ_I64(io_cost_parts(&c, (256 << 10) - 1, 0), 1);
    CHECK_EQ_I64(io_cost_parts(&c, 1 << 20, 60), 4); /* 4 connections idle */
    CHECK_EQ_I64(io_cost_parts(&c, 1 << 20, 63), 1); /* busy: one request */
    CHECK_EQ_I64(io_cost_parts(&c, 1 << 20, 64), 1);
    c.ttfb_spread_ns = 9 * 1000 * 1000; /* 1 MiB in 8 saves 9.2 ms */
    CHECK_EQ_I64(io_cost_parts(&c, 1 << 20, 0), 8);
    c.ttfb_spread_ns = 10 * 1000 * 1000;
    CHECK_EQ_I64(io_cost_parts(&c, 1 << 20, 0), 1);
}

static void exact_bytes(void) { both(c_exact_bytes); }
static void buffer_reuse(void) { both(c_buffer_reuse); }
static void buffer_stash(void) { both(c_buffer_stash); }
static void buffer_held(void) { both(c_buffer_held); }
static void short_reads(void) { both(c_short_reads); }
static void eof_text(void) { both(c_eof_text); }
static void cancel_before_submit(void) { both(c_cancel_before_submit); }
static void cancel_after_submit(void) { both(c_cancel_after_submit); }
static void stall_queued(void) { both(c_stall_queued); }
static void coalesce(void) { both(c_coalesce); }
static void dense_gap(void) { both(c_dense_gap); }
static void holes(void) { both(c_holes); }
static void lazy(void) { both(c_lazy); }
static void kept(void) { both(c_kept); }
static void budget(void) { both(c_budget); }
static void ctx_free_pending(void) { both(c_ctx_free_pending); }
static void sim_bytes(void) { both(c_sim_bytes); }
static void sim_cancel(void) { both(c_sim_cancel); }
static void sim_cancel_reads(void) { both(c_sim_cancel_reads); }
static void sim_sync_busy(void) { both(c_sim_sync_busy); }

int main(void)
{
    make_file();
    if (!g_file) return CHECK_DONE("test_io");
    RUN(read_sync);
    RUN(exact_bytes);
    RUN(buffer_reuse);
    RUN(buffer_stash);
    RUN(buffer_held);
    RUN(short_reads);
    RUN(eof_text);
    RUN(cancel_before_submit);
    RUN(cancel_after_submit);
    RUN(coalesce);
    RUN(dense_gap);
    RUN(holes);
    RUN(lazy);
    RUN(kept);
    RUN(budget);
    RUN(ctx_free_pending);
    RUN(stall_queued);
    RUN(sim_bytes);
    RUN(sim_cancel);
    RUN(sim_cancel_reads);
    RUN(sim_sync);
    RUN(sim_sync_split);
    RUN(sim_bound);
    RUN(sim_sync_busy);
    RUN(sim_spec_errors);
    RUN(cost_model);
    io_file_close(g_file);
    unlink(g_path);
    return CHECK_DONE("test_io");
}
