/* io/io_range.c: one range's lifecycle: creation over sorted members, the first read (with
 * the scheduling fault hook), each read call (with the fault hook), short-read and retry
 * continuation, completion (EOF, errors, cancellation), slicing into the members' futures,
 * and release once the read and every slice are done.
 *
 * Owns: io_range records and their member lists. Called by io_flush.c (io_range_start) and
 * io_read.c (io_range_drop_member, io_range_cancel_all); calls only io_ctx.c.
 * Invariants:
 *  1. Each read call covers at most EXEC_READ_BYTES_MAX bytes.
 *  2. A range completion either re-issues the read (short read, EINTR/EAGAIN, an unasked
 *     cancellation; errors bounded by IO_RETRIES_MAX consecutive tries) or delivers every
 *     member; never both.
 *  3. A member's future is resolved or failed exactly once, by delivery; it resolves only if
 *     the read covered all of it.
 *  4. bytes_used/bytes_wasted of a resolved member are counted when its future dies
 *     (wanted -> used, else wasted), less the bytes an earlier member of its range already
 *     delivered (io_bytes.shared), so used + wasted never exceeds the bytes read; holes and
 *     dropped members when its range completes.
 *  5. The buffer goes back (io_buf_put) only when the read's reference and every slice's
 *     are gone (io_impl.h invariant 3). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_impl.h"
#include "common/fail.h"

/* Issues g's next read call from g->off + g->done (invariant 1); the fault hook may shorten
 * it or complete it at once as end of file or an error. */
static void io_range_issue(io_range *g)
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
    void *core = NULL;
    g->why[0] = '\0';
    int rc = io_ctx_backend(ctx, g->file->be, &core);
    if (rc == 0)
        rc = g->file->be->read(core, ctx->e, g->file, &g->op, g->buf + g->done, chunk,
                               g->off + g->done, g->why, sizeof g->why);
    else
        snprintf(g->why, sizeof g->why, "%s backend setup failed: %s", g->file->be->name,
                 strerror(-rc));
    if (rc != 0) {
        exec_complete(ctx->e, &g->op, rc);
        return;
    }
    ctx->c.reads_submitted++;
}

/* Asks g's backend to cancel its read. Returns 0 if a cancel was issued. */
static int io_range_cancel_read(io_range *g)
{
    void *core = NULL;
    if (io_ctx_backend(g->ctx, g->file->be, &core) != 0) return -ENOENT;
    return g->file->be->cancel(core, g->ctx->e, &g->op);
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
    if (cancel && ctx->c.reads_submitted > issued) (void)io_range_cancel_read(g);
}

/* Drops one reference to g (its read's or a slice's); the last frees it (invariant 5). */
static void io_range_unref(io_range *g)
{
    io_ctx_t *ctx = g->ctx;
    assert(g->refs > 0);
    if (--g->refs > 0) return;
    assert(!g->in_flight && g->n_members == 0);
    assert(ctx->buffered_bytes >= g->len);
    ctx->buffered_bytes -= g->len;
    if (ctx->opts.held_total) atomic_fetch_sub_explicit(ctx->opts.held_total, g->cap, memory_order_relaxed);
    ctx->stall_escape = false; /* a release is progress: no stall */
    if (ctx->n_wanted > 0) ctx->dirty = true; /* budget freed: waiting ranges may go */
    if (g->prev) g->prev->next = g->next;
    else ctx->ranges = g->next;
    if (g->next) g->next->prev = g->prev;
    io_buf_put(ctx, g->buf, g->cap);
    free(g);
    assert(ctx->n_ranges > 0);
    ctx->n_ranges--;
    io_ctx_maybe_free(ctx);
}

/* free_value of a resolved request's future: the consumer is done with the slice. */
static void io_req_free_value(void *v)
{
    io_req *r = v;
    io_ctx_t *ctx = r->ctx;
    assert(r->state == IO_REQ_DONE && r->range);
    assert(r->value.shared <= r->len);
    if (fut_is_wanted(r->fut)) ctx->c.bytes_used += r->len - r->value.shared;
    else ctx->c.bytes_wasted += r->len - r->value.shared;
    io_range *g = r->range;
    ctx->guard++;
    io_req_free(r);
    io_range_unref(g);
    ctx->guard--;
    io_ctx_maybe_free(ctx);
}

/* Fails member r of range g with status and a message naming the file and range. */
static void io_req_fail(io_range *g, io_req *r, int status)
{
    char msg[FUT_MSG_MAX];
    uint64_t end = r->off + r->len;
    if (status == 0)
        snprintf(msg, sizeof msg, "%s: unexpected end of file reading bytes [%" PRIu64 ", %"
                 PRIu64 ") (file size %" PRIu64 ", read stopped at %" PRIu64 ")",
                 g->file->name, r->off, end, g->file->size_bytes, g->off + g->done);
    else if (status == -ECANCELED || status == -ESHUTDOWN)
        snprintf(msg, sizeof msg, "%s: read of bytes [%" PRIu64 ", %" PRIu64 ") cancelled",
                 g->file->name, r->off, end);
    else
        snprintf(msg, sizeof msg, "%s: read of bytes [%" PRIu64 ", %" PRIu64 ") failed: %s",
                 g->file->name, r->off, end, g->why[0] ? g->why : strerror(-status));
    int st = status == 0 ? -EIO : (status == -ESHUTDOWN ? -ECANCELED : status);
    fut_fail(r->fut, st, msg);
    g->ctx->c.requests_failed++;
    io_req_free(r);
}

/* Resolves the members the read covered, fails the others with status (0 = EOF). */
static void io_range_deliver(io_range *g, int status)
{
    io_ctx_t *ctx = g->ctx;
    uint64_t reach = g->off, covered = 0, stop = g->off + g->done;
    ctx->guard++;
    while (g->mhead) {
        io_req *r = g->mhead;
        g->mhead = r->next;
        g->n_members--;
        r->prev = r->next = NULL;
        if (r->off + r->len > stop) {
            io_req_fail(g, r, status);
            continue;
        }
        uint64_t s = r->off > reach ? r->off : reach;
        if (r->off + r->len > s) {
            covered += r->off + r->len - s;
            reach = r->off + r->len;
        }
        r->state = IO_REQ_DONE;
        r->value.data = g->buf + (r->off - g->off);
        r->value.len = (size_t)r->len;
        r->value.shared = (size_t)((s < r->off + r->len ? s : r->off + r->len) - r->off);
        g->refs++;
        fut_resolve(r->fut, &r->value, io_req_free_value);
    }
    g->mtail = NULL;
    assert(g->n_members == 0 && covered <= g->done);
    ctx->c.bytes_wasted += g->done - covered; /* holes, dropped members, unused tail */
    ctx->guard--;
}

/* Completion of one read call of the range behind op. */
static void io_range_done(exec_op_t *op)
{
    io_range *g = (io_range *)((char *)op - offsetof(io_range, op));
    io_ctx_t *ctx = g->ctx;
    int32_t res = op->res;
    assert(g->in_flight && g->done < g->len);
    if (res > 0) {
        assert((uint64_t)res <= g->len - g->done);
        ctx->c.bytes_read += (uint64_t)res;
        g->done += (uint64_t)res;
        g->retries = 0; /* IO_RETRIES_MAX bounds consecutive failures, not a range's total */
        if (g->done < g->len && g->n_members > 0 && !g->cancel_sent) {
            io_range_issue(g); /* short read: continue from the advanced offset */
            return;
        }
    } else if ((res == -EINTR || res == -EAGAIN || (res == -ECANCELED && !g->cancel_sent)) &&
               g->retries++ < IO_RETRIES_MAX && g->n_members > 0) {
        io_range_issue(g);
        return;
    }
    g->in_flight = false;
    assert(ctx->inflight_bytes >= g->len);
    ctx->inflight_bytes -= g->len;
    ctx->buffered_bytes += g->len;
    int status = res < 0 ? res : (g->cancel_sent && g->done < g->len ? -ECANCELED : 0);
    if (ctx->n_wanted > 0) ctx->dirty = true; /* in flight went down: see io_flush.c inv. 5 */
    io_range_deliver(g, status);
    io_range_unref(g); /* the read's reference */
}

int io_range_start(io_ctx_t *ctx, io_req *const *members, size_t n, uint64_t start,
                   uint64_t end)
{
    assert(n > 0 && start < end && end - start <= IO_REQUEST_BYTES_MAX + ctx->opts.max_bytes);
    io_range *g = fail_calloc(1, sizeof *g);
    size_t cap = 0;
    uint8_t *buf = g ? io_buf_get(ctx, end - start, &cap) : NULL;
    if (!g || !buf) {
        free(g);
        return -ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        io_req *r = members[k];
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
    g->file = members[0]->file;
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
    if (ctx->opts.held_total) io_held_add(ctx->opts.held_total, ctx->opts.held_peak, g->cap);
    if (ctx->inflight_bytes > ctx->c.peak_inflight_bytes)
        ctx->c.peak_inflight_bytes = ctx->inflight_bytes;
    io_range_first_issue(g);
    return 0;
}

void io_range_drop_member(io_req *r)
{
    io_ctx_t *ctx = r->ctx;
    io_range *g = r->range;
    assert(r->state == IO_REQ_SUBMITTED);
    assert(g && g->n_members > 0 && g->in_flight);
    if (r->prev) r->prev->next = r->next;
    else g->mhead = r->next;
    if (r->next) r->next->prev = r->prev;
    else g->mtail = r->prev;
    g->n_members--;
    ctx->c.cancelled++;
    if (g->n_members == 0 && !g->cancel_sent) { /* nobody wants the range any more */
        if (io_range_cancel_read(g) == 0) ctx->c.cancels_issued++;
        g->cancel_sent = true;
    }
    io_req_free(r);
}

void io_range_cancel_all(io_ctx_t *ctx)
{
    assert(ctx->closing);
    for (io_range *g = ctx->ranges; g; g = g->next) {
        if (!g->in_flight || g->cancel_sent) continue;
        if (io_range_cancel_read(g) == 0) ctx->c.cancels_issued++;
        g->cancel_sent = true;
    }
}
