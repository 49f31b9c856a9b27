/* io/io_flush.c: the flush hook: coalescing wanted requests with their neighbours into
 * ranges, the fetch budget, and issuing each range's reads (with the fault hook).
 *
 * Owns: io_range creation and io_range_issue.
 * Invariants:
 *  1. A range is built around a wanted request and only from untaken pending requests of the
 *     same file (wanted ones only unless merge_registered), each within gap_bytes of the range
 *     so far (dense_gap_bytes when at least half of the range is requested bytes), never
 *     longer than max_bytes
 *     (a single request longer than max_bytes forms its own range).
 *  2. Each read call covers at most EXEC_READ_BYTES_MAX bytes.
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

void io_range_issue(io_range *g)
{
    io_ctx_t *ctx = g->ctx;
    assert(g->in_flight && g->done < g->len);
    uint64_t chunk = g->len - g->done;
    if (chunk > EXEC_READ_BYTES_MAX) chunk = EXEC_READ_BYTES_MAX;
    if (ctx->opts.fault) {
        int64_t v = ctx->opts.fault(ctx->opts.fault_ctx, g->file, g->off + g->done, chunk);
        if (v <= 0) { /* 0: simulated end of file; < 0: simulated error */
            exec_complete(ctx->e, &g->op, (int32_t)(v < INT32_MIN ? -EIO : v));
            return;
        }
        if ((uint64_t)v < chunk) chunk = (uint64_t)v;
    }
    int rc = exec_read(ctx->e, &g->op, g->file->fd, g->buf + g->done, (uint32_t)chunk,
                       g->off + g->done);
    if (rc != 0) {
        exec_complete(ctx->e, &g->op, rc);
        return;
    }
    ctx->c.reads_submitted++;
}

/* The held-back first read of g may go (fault injection): the timer fired or failed. */
static void io_range_delay_done(fut_t *t, void *p)
{
    io_range *g = p;
    int st = fut_status(t);
    assert(g->delay == t && g->in_flight && g->done == 0);
    g->delay = NULL;
    fut_unref(t); /* ours; the callback holds its own while it runs */
    if (st != 0 || g->cancel_sent || g->n_members == 0) {
        exec_complete(g->ctx->e, &g->op, -ECANCELED); /* stopping, or nobody wants it */
        return;
    }
    io_range_issue(g);
}

/* First read of a new range; the scheduling fault hook may hold it back or race a cancel. */
static void io_range_first_issue(io_range *g)
{
    io_ctx_t *ctx = g->ctx;
    bool cancel = false;
    uint64_t delay_ns = ctx->opts.fault_sched
                            ? ctx->opts.fault_sched(ctx->opts.fault_ctx, g->file, g->off, g->len, &cancel)
                            : 0;
    if (delay_ns > 0 && (g->delay = exec_sleep_ns(delay_ns)) != NULL) {
        if (fut_on_ready(g->delay, io_range_delay_done, g) == 0) return;
        fut_unref(g->delay);
        g->delay = NULL;
    }
    uint64_t issued = ctx->c.reads_submitted;
    io_range_issue(g);
    if (cancel && ctx->c.reads_submitted > issued) (void)exec_cancel(ctx->e, &g->op);
}

/* Whether request r may join a range of file f being built. */
static bool io_joinable(const io_ctx_t *ctx, const io_req *r, const io_file_t *f)
{
    return r->file == f && r->state != IO_REQ_SUBMITTED &&
           (ctx->opts.merge_registered || r->state == IO_REQ_WANTED);
}

/* The cluster from a[k] on: the joinable requests after it each within gap_bytes of the ones
 * before, the range from start to the cluster's end never longer than max_bytes. Returns the
 * index after it (k when a[k] itself does not fit), its end in *ce (from end) and in *cu
 * the bytes it requests beyond end. */
static size_t io_cluster(const io_ctx_t *ctx, io_req **a, size_t n, size_t k, uint64_t start,
                         uint64_t end, uint64_t *ce, uint64_t *cu)
{
    io_file_t *f = a[k]->file;
    size_t j = k;
    *ce = end;
    *cu = 0;
    for (; j < n && io_joinable(ctx, a[j], f); j++) {
        io_req *r = a[j];
        if (j > k && r->off > *ce && r->off - *ce > ctx->opts.gap_bytes) break;
        uint64_t e = r->off + r->len;
        if ((e > *ce ? e : *ce) - start > ctx->opts.max_bytes) break;
        if (e > *ce) *cu += e - (r->off > *ce ? r->off : *ce), *ce = e;
    }
    return j;
}

/* Extends [*lo, *hi] (sorted indexes, one wanted request at first) over untaken neighbours:
 * to the right over holes up to gap_bytes, or up to dense_gap_bytes when at least half of the
 * range would still be requested bytes (the cluster after the hole counted whole, so a small
 * column right after it does not stop the merge). */
static void io_extend(io_ctx_t *ctx, io_req **a, size_t n, size_t *lo, size_t *hi,
                      uint64_t *start, uint64_t *end)
{
    uint64_t gap = ctx->opts.gap_bytes, max = ctx->opts.max_bytes, useful = *end - *start;
    io_file_t *f = a[*lo]->file;
    while (*hi + 1 < n && io_joinable(ctx, a[*hi + 1], f)) {
        uint64_t hole = a[*hi + 1]->off > *end ? a[*hi + 1]->off - *end : 0, ce, cu;
        if (hole > gap && hole > ctx->opts.dense_gap_bytes) break;
        size_t j = io_cluster(ctx, a, n, *hi + 1, *start, *end, &ce, &cu);
        if (j == *hi + 1) break;
        if (hole > gap && 2 * (useful + cu) < ce - *start) break;
        useful += cu;
        *end = ce;
        *hi = j - 1;
    }
    while (*lo > 0) {
        io_req *r = a[*lo - 1];
        uint64_t e = r->off + r->len > *end ? r->off + r->len : *end;
        if (!io_joinable(ctx, r, f)) break;
        if (r->off + r->len < *start && *start - (r->off + r->len) > gap) break;
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

/* Starts one range over a[lo..hi], spanning [start, end). */
static void io_range_start(io_ctx_t *ctx, io_req **a, size_t lo, size_t hi, uint64_t start,
                           uint64_t end)
{
    io_range *g = fail_calloc(1, sizeof *g);
    size_t cap = 0;
    uint8_t *buf = g ? io_buf_get(ctx, end - start, &cap) : NULL;
    if (!g || !buf) {
        free(g);
        io_fail_nomem(ctx, a, lo, hi);
        return;
    }
    for (size_t k = lo; k <= hi; k++) {
        io_req *r = a[k];
        io_req_unlink_pending(ctx, r);
        r->state = IO_REQ_SUBMITTED;
        r->range = g;
        r->prev = g->mtail;
        if (g->mtail) g->mtail->next = r;
        else g->mhead = r;
        g->mtail = r;
        g->n_members++;
    }
    g->ctx = ctx;
    g->file = a[lo]->file;
    g->off = start;
    g->len = end - start;
    g->buf = buf;
    g->cap = cap;
    g->refs = 1;
    g->in_flight = true;
    g->op.done = io_range_done;
    g->next = ctx->ranges;
    if (ctx->ranges) ctx->ranges->prev = g;
    ctx->ranges = g;
    ctx->n_ranges++;
    ctx->c.ranges_submitted++;
    ctx->inflight_bytes += g->len;
    if (ctx->inflight_bytes > ctx->c.peak_inflight_bytes)
        ctx->c.peak_inflight_bytes = ctx->inflight_bytes;
    io_range_first_issue(g);
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

static void io_stall_fired(fut_t *t, void *p)
{
    io_ctx_t *ctx = p;
    assert(ctx->stall_timer == t);
    ctx->stall_timer = NULL;
    if (fut_status(t) == 0) {
        ctx->stall_escape = true;
        ctx->dirty = true;
    }
    fut_unref(t);
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
        io_range_start(ctx, a, lo, hi, start, end);
        i = hi;
    }
    ctx->guard--;
}
