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
 *     are gone (io_impl.h invariant 3).
 *  6. Holes: on a backend with vectored reads, a range's pieces (io_range_plan) are its
 *     members' bytes in file order, each run of them packed into the buffer one after the
 *     other, and between runs each hole of at least IO_HOLE_MIN_BYTES as pieces of at most
 *     IO_HOLE_SCRATCH_BYTES that all land in the context's one scratch buffer. Every member
 *     lies inside one buffer piece, so its slice is contiguous and no hole byte is written
 *     into the buffer; a read call reads the same file bytes as a plain one (its iovecs are
 *     the pieces from the range's done offset on, trimmed to the call's length), so read
 *     calls, bytes_read and the budget's byte counts stay those of the whole range.
 *  7. A range of a mapped file (io_map.c) whose pages are cached is a view: no buffer of
 *     its own, buf points into the mapping (never written through: const in io_file_t), cap
 *     is its length (what the budget counts, as for a buffer), and each read call populates
 *     its bytes' page tables instead of copying them, with the same calls, bytes_read and
 *     byte counts as a copy (no holes: nothing lands, so bytes_skipped stays 0); a populated
 *     call is checked against the file's size now (fstat), so a file that shrank fails it
 *     instead of handing out zeros. Any other range of a mapped file is read by copy. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io_impl.h"
#include "common/fail.h"

/* Plans where g's bytes land from its members m[0..n) (sorted, spanning g's bytes):
 * g->piece[0..g->npieces) per invariant 6, npieces 0 when no hole reaches IO_HOLE_MIN_BYTES
 * or the pieces would need more than IO_IOV_MAX iovecs (the range then lands whole). Returns
 * the bytes the buffer must hold. */
static uint64_t io_range_plan(io_range *g, io_req *const *m, size_t n)
{
    uint64_t pos = g->off, reach = g->off, at = 0;
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t hole = m[i]->off > reach ? m[i]->off - reach : 0;
        if (hole >= IO_HOLE_MIN_BYTES) {
            uint64_t holes = (hole + IO_HOLE_SCRATCH_BYTES - 1) / IO_HOLE_SCRATCH_BYTES;
            if (holes + 2 > (uint64_t)(IO_IOV_MAX - k)) { /* this, the hole, the last run */
                g->npieces = 0;
                return g->len;
            }
            g->piece[k++] = (io_piece){reach - pos, (int64_t)at};
            at += reach - pos;
            for (uint64_t h = 0; h < hole; h += IO_HOLE_SCRATCH_BYTES)
                g->piece[k++] = (io_piece){hole - h < IO_HOLE_SCRATCH_BYTES ? hole - h
                                                                            : IO_HOLE_SCRATCH_BYTES, -1};
            pos = m[i]->off;
        }
        if (m[i]->off + m[i]->len > reach) reach = m[i]->off + m[i]->len;
    }
    assert(reach == g->off + g->len);
    if (k == 0) return g->len;
    g->piece[k++] = (io_piece){reach - pos, (int64_t)at};
    g->npieces = k;
    return at + (reach - pos);
}

/* Fills g->iov with g's pieces from its byte g->done on, chunk bytes in all (invariant 6).
 * Returns the iovec count. */
static int io_range_iov(io_range *g, uint64_t chunk)
{
    uint64_t skip = g->done;
    int n = 0;
    for (int k = 0; k < g->npieces && chunk > 0; k++) {
        const io_piece *p = &g->piece[k];
        if (skip >= p->len) {
            skip -= p->len;
            continue;
        }
        uint8_t *base = p->at < 0 ? g->ctx->hole_scratch : g->buf + p->at;
        uint64_t take = p->len - skip < chunk ? p->len - skip : chunk;
        assert(p->at >= 0 || skip + take <= IO_HOLE_SCRATCH_BYTES);
        g->iov[n++] = (struct iovec){base + skip, (size_t)take};
        chunk -= take;
        skip = 0;
    }
    assert(n > 0 && chunk == 0);
    return n;
}

/* Where the byte at file offset off of g landed: a member's first byte (never in a hole).
 * *k and *pstart carry the walk over the pieces from one member to the next (sorted). */
static const uint8_t *io_range_at(const io_range *g, uint64_t off, int *k, uint64_t *pstart)
{
    if (g->npieces == 0) return g->buf + (off - g->off);
    while (*k + 1 < g->npieces && off >= *pstart + g->piece[*k].len)
        *pstart += g->piece[(*k)++].len;
    assert(g->piece[*k].at >= 0 && off < *pstart + g->piece[*k].len);
    return g->buf + g->piece[*k].at + (off - *pstart);
}

/* The hole bytes of g's first g->done bytes (read into the scratch). */
static uint64_t io_range_skipped(const io_range *g)
{
    uint64_t pos = 0, skipped = 0;
    for (int k = 0; k < g->npieces && pos < g->done; k++) {
        uint64_t in = g->done - pos < g->piece[k].len ? g->done - pos : g->piece[k].len;
        if (g->piece[k].at < 0) skipped += in;
        pos += g->piece[k].len;
    }
    return skipped;
}

/* Starts g's read call of chunk bytes from g->done on backend core (plain, or vectored over
 * its pieces). Returns 0 or the backend's error (why filled). */
static int io_range_read(io_range *g, void *core, uint64_t chunk)
{
    io_ctx_t *ctx = g->ctx;
    const io_backend *be = g->file->be;
    uint64_t at = g->off + g->done;
    if (g->npieces == 0)
        return be->read(core, ctx->e, g->file, &g->op, g->buf + g->done, chunk, at, g->why,
                        sizeof g->why);
    int n = io_range_iov(g, chunk);
    return be->readv(core, ctx->e, g->file, &g->op, g->iov, n, at, g->why, sizeof g->why);
}

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
        rc = io_range_read(g, core, chunk);
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
    if (!g->view) io_buf_put(ctx, g->buf, g->cap);
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
    else if (status == -EFAULT && g->view) /* the file ends before the view's bytes now */
        snprintf(msg, sizeof msg, "%s: read of bytes [%" PRIu64 ", %" PRIu64 ") failed: the "
                 "file shrank while it was read (mapped, %" PRIu64 " bytes when opened)",
                 g->file->name, r->off, end, g->file->size_bytes);
    else if (status == -ECANCELED || status == -ESHUTDOWN)
        snprintf(msg, sizeof msg, "%s: read of bytes [%" PRIu64 ", %" PRIu64 ") cancelled",
                 g->file->name, r->off, end);
    else
        snprintf(msg, sizeof msg, "%s: read of bytes [%" PRIu64 ", %" PRIu64 ") failed: %s",
                 g->file->name, r->off, end, g->why[0] ? g->why : strerror(-status));
    int st = status == 0 || (status == -EFAULT && g->view) ? -EIO
             : (status == -ESHUTDOWN ? -ECANCELED : status);
    fut_fail(r->fut, st, msg);
    g->ctx->c.requests_failed++;
    io_req_free(r);
}

/* Resolves the members the read covered, fails the others with status (0 = EOF). */
static void io_range_deliver(io_range *g, int status)
{
    io_ctx_t *ctx = g->ctx;
    uint64_t reach = g->off, covered = 0, stop = g->off + g->done, pstart = g->off;
    int k = 0;
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
        r->value.data = io_range_at(g, r->off, &k, &pstart);
        r->value.len = (size_t)r->len;
        r->value.shared = (size_t)((s < r->off + r->len ? s : r->off + r->len) - r->off);
        g->refs++;
        fut_resolve(r->fut, &r->value, io_req_free_value);
    }
    g->mtail = NULL;
    assert(g->n_members == 0 && covered <= g->done);
    ctx->c.bytes_wasted += g->done - covered; /* holes, dropped members, unused tail */
    ctx->c.bytes_skipped += io_range_skipped(g);
    ctx->guard--;
}

/* True when the file of view g now ends before the n bytes a populate call just covered
 * (invariant 7: the partial last page of a shrunk file would read as zeros). */
static bool io_view_shrank(const io_range *g, uint64_t n)
{
    struct stat st;
    return fstat(g->file->fd, &st) == 0 && (uint64_t)st.st_size < g->off + g->done + n;
}

/* Completion of one read call of the range behind op. */
static void io_range_done(exec_op_t *op)
{
    io_range *g = (io_range *)((char *)op - offsetof(io_range, op));
    io_ctx_t *ctx = g->ctx;
    int32_t res = op->res;
    assert(g->in_flight && g->done < g->len);
    if (g->view && res > 0 && io_view_shrank(g, (uint64_t)res)) res = -EFAULT;
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
    if (g->file->be->remote)
        atomic_fetch_sub_explicit(&g->file->ranges_in_flight, 1, memory_order_relaxed);
    assert(ctx->inflight_bytes >= g->len);
    ctx->inflight_bytes -= g->len;
    ctx->buffered_bytes += g->len;
    int status = res < 0 ? res : (g->cancel_sent && g->done < g->len ? -ECANCELED : 0);
    if (ctx->n_wanted > 0) ctx->dirty = true; /* in flight went down: see io_flush.c inv. 5 */
    io_range_deliver(g, status);
    io_range_unref(g); /* the read's reference */
}

/* Plans g's holes (invariant 6) when its file's backend reads vectored and the context's
 * scratch buffer exists or can be made; else g lands whole. Returns the bytes to land. */
static uint64_t io_range_holes(io_ctx_t *ctx, io_range *g, io_req *const *members, size_t n)
{
    if (!members[0]->file->be->readv) return g->len;
    uint64_t landed = io_range_plan(g, members, n);
    if (g->npieces > 0 && !ctx->hole_scratch &&
        !(ctx->hole_scratch = fail_malloc(IO_HOLE_SCRATCH_BYTES))) {
        g->npieces = 0; /* no scratch: the holes land in the buffer as before */
        return g->len;
    }
    return landed;
}

int io_range_start(io_ctx_t *ctx, io_req *const *members, size_t n, uint64_t start,
                   uint64_t end)
{
    assert(n > 0 && start < end && end - start <= IO_REQUEST_BYTES_MAX + ctx->opts.max_bytes);
    io_range *g = fail_calloc(1, sizeof *g);
    if (!g) return -ENOMEM;
    g->off = start;
    g->len = end - start;
    const io_file_t *f = members[0]->file;
    size_t cap = (size_t)g->len;
    /* a cached range of a mapped file is a view: its "read" only populates (invariant 7) */
    g->view = f->map && io_map_resident(f, start, g->len);
    uint8_t *buf = g->view ? (uint8_t *)f->map + start
                           : io_buf_get(ctx, io_range_holes(ctx, g, members, n), &cap);
    if (!buf) {
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
    if (g->file->be->remote)
        atomic_fetch_add_explicit(&g->file->ranges_in_flight, 1, memory_order_relaxed);
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
    assert(exec_current() == ctx->e);
    for (io_range *g = ctx->ranges; g; g = g->next) {
        if (!g->in_flight || g->cancel_sent) continue;
        if (io_range_cancel_read(g) == 0) ctx->c.cancels_issued++;
        g->cancel_sent = true;
    }
}
