/* io/io_read.c: the request lifecycle: registration, want and cancel hooks, range completion
 * (continuations, EOF, errors), slicing into futures, counters and the context's lifetime.
 *
 * Owns: io_ctx_t, io_req (one per io_read) and the completion side of io_range.
 * Invariants:
 *  1. A request's future is resolved or failed exactly once, only from a range completion
 *     or from io_ctx_free; its want/cancel hooks are cleared by the future layer then.
 *  2. bytes_used/bytes_wasted of a resolved request are counted when its future dies
 *     (wanted -> used, else wasted), less the bytes an earlier member of its range already
 *     delivered (io_bytes.shared), so used + wasted never exceeds the bytes read; holes and
 *     dropped members when its range completes.
 *  3. A range completion either re-issues the read (short read, EINTR/EAGAIN, bounded by
 *     IO_RETRIES_MAX for errors) or delivers every member; never both. */
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

uint8_t *io_buf_get(io_ctx_t *ctx, size_t n, size_t *cap)
{
    int best = -1;
    for (int i = 0; n >= IO_POOL_MIN_BYTES && i < ctx->npool; i++)
        if (ctx->pool[i].cap >= n && (best < 0 || ctx->pool[i].cap < ctx->pool[best].cap)) best = i;
    if (best >= 0) {
        uint8_t *p = ctx->pool[best].p;
        *cap = ctx->pool[best].cap;
        ctx->pool_bytes -= *cap;
        ctx->pool[best] = ctx->pool[--ctx->npool];
        return p;
    }
    size_t mib = (size_t)1 << 20;
    *cap = n < IO_POOL_MIN_BYTES ? n : (n + mib - 1) / mib * mib;
    return fail_malloc(*cap ? *cap : 1);
}

void io_buf_put(io_ctx_t *ctx, uint8_t *p, size_t cap)
{
    assert(ctx->npool >= 0 && ctx->npool <= IO_POOL_SLOTS && ctx->pool_bytes <= IO_POOL_BYTES);
    if (p && !ctx->closing && cap >= IO_POOL_MIN_BYTES && ctx->npool < IO_POOL_SLOTS &&
        ctx->pool_bytes + cap <= IO_POOL_BYTES) {
        ctx->pool[ctx->npool++] = (struct io_pooled){p, cap};
        ctx->pool_bytes += cap;
        return;
    }
    free(p);
}

void io_ctx_maybe_free(io_ctx_t *ctx)
{
    if (!ctx->closing || ctx->guard > 0 || ctx->n_live_reqs > 0 || ctx->n_ranges > 0) return;
    assert(ctx->phead == NULL && ctx->ranges == NULL && ctx->inflight_bytes == 0);
    for (int i = 0; i < ctx->npool; i++) free(ctx->pool[i].p);
    free(ctx->scratch);
    free(ctx);
}

static void io_req_free(io_req *r)
{
    io_ctx_t *ctx = r->ctx;
    assert(ctx->n_live_reqs > 0);
    ctx->n_live_reqs--;
    free(r);
    io_ctx_maybe_free(ctx);
}

void io_req_unlink_pending(io_ctx_t *ctx, io_req *r)
{
    assert(r->state == IO_REQ_REGISTERED || r->state == IO_REQ_WANTED);
    assert(ctx->n_pending > 0);
    if (r->prev) r->prev->next = r->next;
    else ctx->phead = r->next;
    if (r->next) r->next->prev = r->prev;
    else ctx->ptail = r->prev;
    r->prev = r->next = NULL;
    ctx->n_pending--;
    if (r->state == IO_REQ_WANTED) {
        assert(ctx->n_wanted > 0);
        ctx->n_wanted--;
    }
}

void io_ctx_free(io_ctx_t *ctx)
{
    assert(ctx && !ctx->closing && exec_current() == ctx->e);
    ctx->closing = true;
    ctx->guard++;
    exec_hook_remove(ctx->e, io_flush, ctx);
    if (ctx->stall_timer) { /* dropping it cancels the timer: its callback never runs */
        fut_t *t = ctx->stall_timer;
        ctx->stall_timer = NULL;
        fut_unref(t);
    }
    while (ctx->phead) { /* still referenced by someone: fail, hooks clear themselves */
        io_req *r = ctx->phead;
        io_req_unlink_pending(ctx, r);
        fut_fail(r->fut, -ECANCELED, "read cancelled: io context closed");
        ctx->c.requests_failed++;
        io_req_free(r);
    }
    for (io_range *g = ctx->ranges; g; g = g->next) {
        if (!g->in_flight || g->cancel_sent) continue;
        if (exec_cancel(ctx->e, &g->op) == 0) ctx->c.cancels_issued++;
        g->cancel_sent = true;
    }
    ctx->guard--;
    io_ctx_maybe_free(ctx);
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
    io_range *g = r->range;
    assert(g && g->n_members > 0 && g->in_flight);
    if (r->prev) r->prev->next = r->next;
    else g->mhead = r->next;
    if (r->next) r->next->prev = r->prev;
    else g->mtail = r->prev;
    g->n_members--;
    ctx->c.cancelled++;
    if (g->n_members == 0 && !g->cancel_sent) { /* nobody wants the range any more */
        if (exec_cancel(ctx->e, &g->op) == 0) ctx->c.cancels_issued++;
        g->cancel_sent = true;
    }
    io_req_free(r);
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
    r->state = IO_REQ_REGISTERED;
    r->prev = ctx->ptail;
    if (ctx->ptail) ctx->ptail->next = r;
    else ctx->phead = r;
    ctx->ptail = r;
    ctx->n_pending++;
    ctx->n_live_reqs++;
    ctx->c.requests_registered++;
    fut_set_cancel_hook(fut, io_req_cancel_hook, r);
    fut_set_want_hook(fut, io_req_want_hook, r);
    return fut;
}

static void io_range_unref(io_range *g)
{
    io_ctx_t *ctx = g->ctx;
    assert(g->refs > 0);
    if (--g->refs > 0) return;
    assert(!g->in_flight && g->n_members == 0);
    assert(ctx->buffered_bytes >= g->len);
    ctx->buffered_bytes -= g->len;
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

void io_req_fail_unsubmitted(io_req *r, int status, const char *why)
{
    char msg[FUT_MSG_MAX];
    snprintf(msg, sizeof msg, "%s: read of bytes [%" PRIu64 ", %" PRIu64 "): %s", r->file->name,
             r->off, r->off + r->len, why);
    fut_fail(r->fut, status, msg);
    r->ctx->c.requests_failed++;
    io_req_free(r);
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
                 g->file->name, r->off, end, strerror(-status));
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

void io_range_done(exec_op_t *op)
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
