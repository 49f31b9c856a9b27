/* io/io_flush.c: the flush hook: coalescing wanted requests with their neighbours into
 * ranges, the fetch budget, and issuing each range's reads (with the fault hook).
 *
 * Owns: io_range creation and io_range_issue.
 * Invariants:
 *  1. A range is built around a wanted request and only from untaken pending requests of the
 *     same file (wanted ones only unless merge_registered), each within gap_bytes of the range
 *     so far, never longer than max_bytes
 *     (a single request longer than max_bytes forms its own range).
 *  2. Each read call covers at most EXEC_READ_BYTES_MAX bytes.
 *  3. A range starts only if bytes in flight + buffered + its length <= budget_bytes, or when
 *     nothing is in flight or buffered (so one oversized range can always make progress).
 *  4. Flushing does nothing unless a want or a release marked the context dirty. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "io/io_impl.h"

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

/* Extends [*lo, *hi] (sorted indexes, one wanted request at first) over untaken neighbours. */
static void io_extend(io_ctx_t *ctx, io_req **a, size_t n, size_t *lo, size_t *hi,
                      uint64_t *start, uint64_t *end)
{
    uint64_t gap = ctx->opts.gap_bytes, max = ctx->opts.max_bytes;
    io_file_t *f = a[*lo]->file;
    while (*hi + 1 < n) {
        io_req *r = a[*hi + 1];
        uint64_t e = r->off + r->len > *end ? r->off + r->len : *end;
        if (r->file != f || r->state == IO_REQ_SUBMITTED) break;
        if (!ctx->opts.merge_registered && r->state != IO_REQ_WANTED) break;
        if (r->off > *end && r->off - *end > gap) break;
        if (e - *start > max) break;
        *end = e;
        (*hi)++;
    }
    while (*lo > 0) {
        io_req *r = a[*lo - 1];
        uint64_t e = r->off + r->len > *end ? r->off + r->len : *end;
        if (r->file != f || r->state == IO_REQ_SUBMITTED) break;
        if (!ctx->opts.merge_registered && r->state != IO_REQ_WANTED) break;
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

/* Starts one range over a[lo..hi], spanning [start, end). */
static void io_range_start(io_ctx_t *ctx, io_req **a, size_t lo, size_t hi, uint64_t start,
                           uint64_t end)
{
    io_range *g = calloc(1, sizeof *g);
    uint8_t *buf = g ? malloc(end - start) : NULL;
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
    io_range_issue(g);
}

/* Copies the pending list into the scratch array, sorted. Returns its length or -ENOMEM. */
static int64_t io_sorted_pending(io_ctx_t *ctx)
{
    if (ctx->n_pending > ctx->scratch_cap) {
        size_t cap = ctx->scratch_cap ? ctx->scratch_cap : 64;
        while (cap < ctx->n_pending) cap *= 2;
        io_req **s = realloc(ctx->scratch, cap * sizeof *s);
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

void io_flush(void *p)
{
    io_ctx_t *ctx = p;
    if (!ctx->dirty || ctx->n_wanted == 0) return;
    ctx->dirty = false;
    int64_t n = io_sorted_pending(ctx);
    if (n < 0) {
        ctx->dirty = true; /* retry next iteration */
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
            ctx->c.budget_waits++; /* stays wanted; a release marks us dirty again */
            break;
        }
        io_range_start(ctx, a, lo, hi, start, end);
        i = hi;
    }
    ctx->guard--;
}
