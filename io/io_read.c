/* io/io_read.c: the public side of io/: options, a context's creation and close, io_read
 * (registration), the want and cancel hooks of a request's future, and counters.
 *
 * Owns: io_ctx_t's creation and close, io_req creation, and a request's moves from
 * REGISTERED to WANTED or to dropped. The top of io/: it calls io_flush.c (as the executor
 * hook), io_range.c (a submitted request dropped, ranges cancelled on close) and io_ctx.c.
 * Invariants:
 *  1. A request's future is completed here only by io_ctx_free or io_ctx_cancel_reads
 *     (pending requests fail with -ECANCELED) or at once for a request inside the kept bytes
 *     (invariant 4) or after a cancel (failed: invariant 3); otherwise by
 *     io_flush.c (-ENOMEM before submission) or by its range's delivery (io_range.c),
 *     exactly once either way.
 *  2. A request dropped before submission is unlinked and freed at once and never read; one
 *     dropped after submission leaves its range, which is cancelled once it has no member.
 *  3. Each io_read either returns a completed future (len 0, over a limit, inside the kept
 *     bytes: invariant 4, the context cancelled) or links exactly one REGISTERED request on the pending list and
 *     counts it live.
 *  4. A request inside its file's kept bytes (io.h invariant 5) is made DONE at once, on no
 *     list and in no range, counted live until its future dies (so the context outlives the
 *     view it hands out); when it dies its bytes are counted used and kept if it was wanted,
 *     else it counts as dropped unsubmitted (never wanted: nothing was needed). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io_impl.h"
#include "common/fail.h"
#include "ringscan.h"

static const io_bytes io_empty = {(const uint8_t *)"", 0, 0};

/* The gap: a hole of up to 128 KiB is read over rather than split into two calls - a small
 * column between two wanted ones (tpchgen's l_quantity, 86 KB a row group, between
 * l_linenumber and l_extendedprice: 107 -> 55 calls for lineitem_filter_only at sf=1, 10% more
 * bytes, time within noise side by side); DuckDB merges such holes too. */
io_opts_t io_opts_default(void)
{
    io_opts_t o = {.coalesce = true, .merge_registered = true, .gap_bytes = 128 * 1024,
                   .max_bytes = 4 * 1024 * 1024,
                   .budget_bytes = UINT64_C(1) << 30, .fault = NULL, .fault_ctx = NULL};
    return o;
}

int io_ctx_new(io_ctx_t **out, exec_t *e, const io_opts_t *opts)
{
    assert(out && e && e == exec_current());
    io_opts_t o = opts ? *opts : io_opts_default();
    if (o.max_bytes == 0 || o.budget_bytes == 0) return -EINVAL;
    io_ctx_t *ctx = fail_calloc(1, sizeof *ctx);
    if (!ctx) return -ENOMEM;
    ctx->e = e;
    ctx->opts = o;
    int rc = exec_hook_add(e, io_flush, ctx);
    if (rc != 0) {
        free(ctx);
        return rc;
    }
    *out = ctx;
    return 0;
}

/* Fails every request not submitted yet with -ECANCELED and why (invariant 1). */
static void fail_pending(io_ctx_t *ctx, const char *why)
{
    while (ctx->phead) { /* still referenced by someone: fail, hooks clear themselves */
        io_req *r = ctx->phead;
        io_req_unlink_pending(ctx, r);
        fut_fail(r->fut, -ECANCELED, why);
        ctx->c.requests_failed++;
        io_req_free(r);
    }
}

void io_ctx_free(io_ctx_t *ctx)
{
    assert(ctx && !ctx->closing && exec_current() == ctx->e);
    ctx->closing = true;
    io_pool_release(ctx); /* while the scan that counts its bytes (pool_held) is alive */
    ctx->guard++;
    exec_hook_remove(ctx->e, io_flush, ctx);
    if (ctx->stall_timer && fut_status(ctx->stall_timer) == FUT_PENDING) {
        fut_t *t = ctx->stall_timer; /* dropping it cancels the timer: its callback never runs */
        ctx->stall_timer = NULL;
        fut_unref(t);
    } /* else it fired: its callback is queued and frees ctx (io_stall_fired) */
    fail_pending(ctx, "read cancelled: io context closed");
    io_range_cancel_all(ctx);
    ctx->guard--;
    io_ctx_maybe_free(ctx);
}

void io_ctx_cancel_reads(io_ctx_t *ctx)
{
    assert(ctx && !ctx->closing && exec_current() == ctx->e);
    ctx->cancelled = true; /* (io_read, io_file_open_await) */
    fail_pending(ctx, "read cancelled: the scan was stopped");
    io_range_cancel_all(ctx);
    io_opens_cancel(ctx);
}

static void io_req_want_hook(void *p)
{
    io_req *r = p;
    io_ctx_t *ctx = r->ctx;
    if (r->state != IO_REQ_REGISTERED) return; /* already submitted inside a merged range */
    r->state = IO_REQ_WANTED;
    ctx->n_wanted++;
    ctx->dirty = true;
}

/* The future was dropped while pending. */
static void io_req_cancel_hook(void *p)
{
    io_req *r = p;
    io_ctx_t *ctx = r->ctx;
    if (r->state != IO_REQ_SUBMITTED) {
        io_req_unlink_pending(ctx, r);
        ctx->c.requests_dropped_unsubmitted++;
        io_req_free(r);
        return;
    }
    io_range_drop_member(r); /* in flight: the range keeps going without it */
}

/* free_value of a kept request's future (invariant 4): wanted, its bytes were used (and
 * kept: no read); never wanted, it was dropped as a lazy request is, before any read. */
static void io_kept_free_value(void *v)
{
    io_req *r = v;
    io_ctx_t *ctx = r->ctx;
    assert(r->state == IO_REQ_DONE && !r->range);
    if (fut_is_wanted(r->fut)) {
        ctx->c.reads_kept++;
        ctx->c.bytes_kept += r->len;
        ctx->c.bytes_used += r->len;
    } else {
        ctx->c.requests_dropped_unsubmitted++;
    }
    io_req_free(r);
}

/* Whether a request of [off, +len) of f is served from f's kept bytes (io.h invariant 5). */
static bool io_kept_serves(const io_ctx_t *ctx, const io_file_t *f, uint64_t off, uint64_t len)
{
    if (!f->kept || ctx->opts.fault || ctx->opts.fault_sched) return false;
    return off >= f->kept_off && off - f->kept_off <= f->kept_len &&
           len <= f->kept_len - (off - f->kept_off);
}

/* Resolves fut with r's view into its file's kept bytes (invariant 4). */
static void io_kept_resolve(io_req *r)
{
    r->state = IO_REQ_DONE;
    r->value = (io_bytes){r->file->kept + (r->off - r->file->kept_off), (size_t)r->len, 0};
    fut_resolve(r->fut, &r->value, io_kept_free_value);
}

fut_t *io_read(io_ctx_t *ctx, io_file_t *f, uint64_t off, uint64_t len)
{
    assert(ctx && f && !ctx->closing && exec_current() == ctx->e);
    fut_t *fut = fut_new();
    if (!fut) return NULL;
    if (len == 0) {
        fut_resolve(fut, (void *)&io_empty, NULL);
        return fut;
    }
    if (ctx->cancelled) { /* io_ctx_cancel_reads */
        char msg[FUT_MSG_MAX];
        snprintf(msg, sizeof msg, "%s: read of %" PRIu64 " bytes at %" PRIu64
                 " cancelled: the scan was stopped", f->name, len, off);
        fut_fail(fut, -ECANCELED, msg);
        return fut;
    }
    if (len > IO_REQUEST_BYTES_MAX || off > UINT64_MAX - len ||
        ctx->n_live_reqs >= IO_REQUESTS_MAX) {
        char msg[FUT_MSG_MAX];
        snprintf(msg, sizeof msg, "%s: read of %" PRIu64 " bytes at %" PRIu64
                 " refused: over IO_REQUEST_BYTES_MAX or IO_REQUESTS_MAX", f->name, len, off);
        fut_fail(fut, RINGSCAN_ELIMIT, msg);
        return fut;
    }
    io_req *r = fail_calloc(1, sizeof *r);
    if (!r) {
        fut_unref(fut);
        return NULL;
    }
    r->ctx = ctx;
    r->file = f;
    r->fut = fut;
    r->off = off;
    r->len = len;
    ctx->n_live_reqs++;
    ctx->c.requests_registered++;
    if (io_kept_serves(ctx, f, off, len)) {
        io_kept_resolve(r);
        return fut;
    }
    r->state = IO_REQ_REGISTERED;
    r->prev = ctx->ptail;
    if (ctx->ptail) ctx->ptail->next = r;
    else ctx->phead = r;
    ctx->ptail = r;
    ctx->n_pending++;
    fut_set_cancel_hook(fut, io_req_cancel_hook, r);
    fut_set_want_hook(fut, io_req_want_hook, r);
    return fut;
}

fut_t *io_read_tail(io_ctx_t *ctx, io_file_t *f, uint64_t len)
{
    assert(f);
    if (len > f->size_bytes) len = f->size_bytes;
    return io_read(ctx, f, f->size_bytes - len, len);
}

void io_ctx_counters(const io_ctx_t *ctx, io_counters_t *out)
{
    assert(ctx && out);
    *out = ctx->c;
}

void io_counters_add(io_counters_t *sum, const io_counters_t *c)
{
    assert(sum && c);
    sum->reads_submitted += c->reads_submitted;
    sum->ranges_submitted += c->ranges_submitted;
    sum->bytes_read += c->bytes_read;
    sum->bytes_skipped += c->bytes_skipped;
    sum->reads_kept += c->reads_kept;
    sum->bytes_kept += c->bytes_kept;
    sum->bytes_used += c->bytes_used;
    sum->bytes_wasted += c->bytes_wasted;
    sum->cancelled += c->cancelled;
    sum->cancels_issued += c->cancels_issued;
    sum->requests_registered += c->requests_registered;
    sum->requests_dropped_unsubmitted += c->requests_dropped_unsubmitted;
    sum->requests_failed += c->requests_failed;
    sum->budget_waits += c->budget_waits;
    if (c->peak_inflight_bytes > sum->peak_inflight_bytes)
        sum->peak_inflight_bytes = c->peak_inflight_bytes;
}
