/* io/io_flush.c: the flush hook: coalescing wanted requests with their neighbours into
 * ranges, and the fetch budget (with its stall timer).
 *
 * Owns: the choice of each range's members and span, and when it may start. Calls
 * io_range.c (io_range_start: the range's whole lifecycle from there) and io_ctx.c; never
 * called back by either.
 * Invariants:
 *  1. A range is built around a wanted request and only from untaken pending requests of the
 *     same file (wanted ones only unless merge_registered), each within gap_bytes of the range
 *     so far (dense_gap_bytes, at most the file's cost model gap, when at least half of the
 *     range is requested bytes), never longer than max_bytes (a single request longer than
 *     max_bytes forms its own range).
 *     For a remote file both limits come from its backend's cost model (io_cost_gap/max), and
 *     a hole over 4 KiB is merged only while the range stays at least half requested bytes:
 *     the model prices a hole against one request's round trip, but with many requests in
 *     flight the round trips overlap and the hole's bytes take the store's shared bandwidth
 *     (lineitem at sf=1 on sim 50 ms / 500 MB/s: eager read 190 MB for 19 MB decoded).
 *     Nor is a hole over 4 KiB merged while the store has a connection free for the range
 *     after it (ranges in flight on every core + 2 <= the model's conns): the merge saves a
 *     request whose round trip would overlap the others', and costs the hole's bytes on the
 *     connection and on the store's shared pipe (lineitem_order read whole row groups,
 *     235 MB for 148 MB decoded; lineitem_cancel's survivors sent four columns and their
 *     holes as one 4.79 MB request, 98 ms on one connection against 67 ms for three). While
 *     every connection is busy a separate range would wait for one, and the rules above
 *     apply.
 *  2. A range whose buffer cannot be allocated fails its members with -ENOMEM (they were
 *     pending, so nothing was read); the flush goes on with the next.
 *  3. A range starts only if bytes in flight + buffered + its length <= budget_bytes, or when
 *     nothing is in flight or buffered (so one oversized range can always make progress).
 *  4. Flushing does nothing unless a want or a release marked the context dirty.
 *  5. Progress: when wanted ranges wait for the budget with nothing in flight (the buffered
 *     bytes may belong to consumers waiting for them), a timer of IO_BUDGET_STALL_NS lets one
 *     range go if no range was released meanwhile. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "io/io_impl.h"
#include "common/fail.h"

static int io_req_cmp(const void *a, const void *b)
{
    const io_req *x = *(io_req *const *)a, *y = *(io_req *const *)b;
    if (x->file != y->file) return (uintptr_t)x->file < (uintptr_t)y->file ? -1 : 1;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return 0;
}

/* The largest hole merged over and the largest merged range for file f: the options for a
 * local file, the backend's cost model for a remote one (io/store.h). */
static uint64_t io_gap(const io_ctx_t *ctx, const io_file_t *f)
{
    return f->be->remote ? io_cost_gap(&f->cost) : ctx->opts.gap_bytes;
}

static uint64_t io_max(const io_ctx_t *ctx, const io_file_t *f)
{
    return f->be->remote ? io_cost_max(&f->cost) : ctx->opts.max_bytes;
}

/* Whether a remote file's store has a connection free for one more range beside the one
 * being built (invariant 1): ranges every core has in flight, two more, within its
 * connections. */
static bool io_conn_spare(const io_file_t *f)
{
    uint64_t busy = atomic_load_explicit(&f->ranges_in_flight, memory_order_relaxed);
    return f->be->remote && busy + 2 <= f->cost.conns;
}

/* The largest hole merged over while the range stays half requested bytes, for a local file:
 * dense_gap_bytes, but never more than its cost model's gap (a call's time to first byte at
 * its bandwidth: 200 KB for the NVMe-class seed, io_file.c). Reading a hole costs the kernel
 * its bytes out of the page cache wherever they land (a scratch buffer saved nothing:
 * bench/RESULTS.md, twenty-first session), so a hole pays only when a second call would cost
 * more than the hole's transfer; the DuckDB-written lineitem's 820 KB hole (l_partkey,
 * l_suppkey) cost expr_arith 9% CPU and lineitem_order 7% (1 thread) to save 48 and 98
 * calls. */
static uint64_t io_dense_gap(const io_ctx_t *ctx, const io_file_t *f)
{
    uint64_t model = io_cost_gap(&f->cost);
    return ctx->opts.dense_gap_bytes < model ? ctx->opts.dense_gap_bytes : model;
}

/* Whether request r may join a range of file f being built. */
static bool io_joinable(const io_ctx_t *ctx, const io_req *r, const io_file_t *f)
{
    return r->file == f && r->state != IO_REQ_SUBMITTED &&
           (ctx->opts.merge_registered || r->state == IO_REQ_WANTED);
}

/* The cluster from a[k] on: the joinable requests after it each within gap of the ones
 * before, the range from start to the cluster's end never longer than max_bytes. Returns the
 * index after it (k when a[k] itself does not fit), its end in *ce (from end) and in *cu
 * the bytes it requests beyond end. */
static size_t io_cluster(const io_ctx_t *ctx, io_req **a, size_t n, size_t k, uint64_t gap,
                         uint64_t start, uint64_t end, uint64_t *ce, uint64_t *cu)
{
    io_file_t *f = a[k]->file;
    uint64_t max = io_max(ctx, f);
    size_t j = k;
    *ce = end;
    *cu = 0;
    for (; j < n && io_joinable(ctx, a[j], f); j++) {
        io_req *r = a[j];
        if (j > k && r->off > *ce && r->off - *ce > gap) break;
        uint64_t e = r->off + r->len;
        if ((e > *ce ? e : *ce) - start > max) break;
        if (e > *ce) *cu += e - (r->off > *ce ? r->off : *ce), *ce = e;
    }
    return j;
}

/* Extends [*lo, *hi] (sorted indexes, one wanted request at first) over untaken neighbours:
 * to the right over holes up to gap_bytes, or up to dense_gap_bytes when at least half of the
 * range would still be requested bytes (the cluster after the hole counted whole, so a small
 * column right after it does not stop the merge); a remote file's over holes up to 4 KiB
 * only while its store has a connection to spare (invariant 1). */
static void io_extend(io_ctx_t *ctx, io_req **a, size_t n, size_t *lo, size_t *hi,
                      uint64_t *start, uint64_t *end)
{
    io_file_t *f = a[*lo]->file;
    uint64_t gap = io_gap(ctx, f), max = io_max(ctx, f), useful = *end - *start;
    uint64_t dense = f->be->remote ? 0 : io_dense_gap(ctx, f);
    /* holes above this keep the range at least half requested bytes (remote: every hole of
     * more than 4 KiB, invariant 1) */
    uint64_t loose = f->be->remote ? IO_REMOTE_FREE_HOLE : gap;
    bool spare = io_conn_spare(f); /* a connection is free: no hole over 4 KiB is read */
    while (*hi + 1 < n && io_joinable(ctx, a[*hi + 1], f)) {
        uint64_t hole = a[*hi + 1]->off > *end ? a[*hi + 1]->off - *end : 0, ce, cu;
        if (hole > gap && hole > dense) break;
        size_t j = io_cluster(ctx, a, n, *hi + 1, spare ? loose : gap, *start, *end, &ce, &cu);
        if (j == *hi + 1) break;
        if (hole > loose && (spare || 2 * (useful + cu) < ce - *start)) break;
        useful += cu;
        *end = ce;
        *hi = j - 1;
    }
    while (*lo > 0) {
        io_req *r = a[*lo - 1];
        uint64_t e = r->off + r->len > *end ? r->off + r->len : *end;
        if (!io_joinable(ctx, r, f)) break;
        uint64_t lhole = r->off + r->len < *start ? *start - (r->off + r->len) : 0;
        if (lhole > gap || (spare && lhole > loose)) break;
        if (e - r->off > max) break;
        *start = r->off;
        *end = e;
        (*lo)--;
    }
}

/* Fails a[lo..hi] with -ENOMEM (the range buffer could not be allocated). */
static void io_fail_nomem(io_ctx_t *ctx, io_req **a, size_t lo, size_t hi)
{
    for (size_t k = lo; k <= hi; k++) {
        io_req *r = a[k];
        io_req_unlink_pending(ctx, r);
        io_req_fail_unsubmitted(r, -ENOMEM, "read range buffer: out of memory");
    }
}

/* Fails every wanted request with -ENOMEM (registered ones stay: nobody waits on them). */
static void io_fail_wanted(io_ctx_t *ctx, const char *why)
{
    ctx->guard++;
    for (io_req *r = ctx->phead, *next; r; r = next) {
        next = r->next;
        if (r->state != IO_REQ_WANTED) continue;
        io_req_unlink_pending(ctx, r);
        io_req_fail_unsubmitted(r, -ENOMEM, why);
    }
    assert(ctx->n_wanted == 0);
    ctx->guard--;
}

/* Copies the pending list into the scratch array, sorted. Returns its length or -ENOMEM. */
static int64_t io_sorted_pending(io_ctx_t *ctx)
{
    if (ctx->n_pending > ctx->scratch_cap) {
        size_t cap = ctx->scratch_cap ? ctx->scratch_cap : 64;
        while (cap < ctx->n_pending) cap *= 2;
        io_req **s = fail_realloc(ctx->scratch, cap * sizeof *s);
        if (!s) return -ENOMEM;
        ctx->scratch = s;
        ctx->scratch_cap = cap;
    }
    size_t n = 0;
    for (io_req *r = ctx->phead; r; r = r->next) ctx->scratch[n++] = r;
    assert(n == ctx->n_pending);
    qsort(ctx->scratch, n, sizeof *ctx->scratch, io_req_cmp);
    return (int64_t)n;
}

/* The stall timer's callback. It may be queued when io_ctx_free closes ctx (the timer fired,
 * the callback not yet run): ctx then waits for it to be freed (io_ctx_maybe_free). It was
 * taken for cancelled with the timer dropped, and ran on the freed context: a dataset scan
 * whose core ended while the callback was queued (ASan: heap-use-after-free here). */
static void io_stall_fired(fut_t *t, void *p)
{
    io_ctx_t *ctx = p;
    assert(ctx->stall_timer == t);
    ctx->stall_timer = NULL;
    if (fut_status(t) == 0 && !ctx->closing) {
        ctx->stall_escape = true;
        ctx->dirty = true;
    }
    fut_unref(t);
    if (ctx->closing) io_ctx_maybe_free(ctx);
}

/* Arms the budget stall timer (invariant 5) unless it is armed. */
static void io_arm_stall_timer(io_ctx_t *ctx)
{
    if (ctx->stall_timer || ctx->closing) return;
    ctx->stall_timer = exec_sleep_ns(IO_BUDGET_STALL_NS);
    if (ctx->stall_timer && fut_on_ready(ctx->stall_timer, io_stall_fired, ctx) != 0) {
        fut_unref(ctx->stall_timer);
        ctx->stall_timer = NULL;
    }
}

void io_flush(void *p)
{
    io_ctx_t *ctx = p;
    if (!ctx->dirty || ctx->n_wanted == 0) return;
    ctx->dirty = false;
    int64_t n = io_sorted_pending(ctx);
    if (n < 0) { /* retrying could wait forever: nothing wakes a core to flush again */
        io_fail_wanted(ctx, "sorting the wanted reads: out of memory");
        return;
    }
    io_req **a = ctx->scratch;
    ctx->guard++;
    for (size_t i = 0; i < (size_t)n; i++) {
        if (a[i]->state != IO_REQ_WANTED) continue;
        size_t lo = i, hi = i;
        uint64_t start = a[i]->off, end = a[i]->off + a[i]->len;
        if (ctx->opts.coalesce) io_extend(ctx, a, (size_t)n, &lo, &hi, &start, &end);
        uint64_t held = ctx->inflight_bytes + ctx->buffered_bytes;
        if (held > 0 && held + (end - start) > ctx->opts.budget_bytes) {
            if (ctx->inflight_bytes == 0 && ctx->stall_escape) {
                ctx->stall_escape = false; /* stalled (invariant 5): this one goes */
            } else {
                ctx->c.budget_waits++; /* stays wanted; a release marks us dirty again */
                if (ctx->inflight_bytes == 0) io_arm_stall_timer(ctx);
                break;
            }
        }
        if (io_range_start(ctx, a + lo, hi - lo + 1, start, end) != 0)
            io_fail_nomem(ctx, a, lo, hi);
        i = hi;
    }
    ctx->guard--;
}
