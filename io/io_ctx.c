/* io/io_ctx.c: the records every other io/ file releases through: the pending list, a
 * request's end, the range buffer pool and the context's own end.
 *
 * Owns: freeing io_req records and the io_ctx_t, the pending list's unlinking, and the pool
 * of range buffers (io_buf_get/put). The bottom of io/: it calls no other io/ file.
 * Invariants:
 *  1. The context is freed once, by io_ctx_maybe_free, when it is closing, no function walks
 *     it (guard == 0), no request or range is alive and no stall timer's callback is queued
 *     (io_flush.c io_stall_fired); the pool's buffers go with it.
 *  2. The pool holds at most IO_POOL_SLOTS buffers and IO_POOL_BYTES bytes (opts.pool_bytes
 *     with opts.pool_held), each at least IO_POOL_MIN_BYTES; a closing context pools nothing.
 *     With opts.pool_held the pool's bytes are counted in *opts.held_total while pooled (added
 *     by io_buf_put, taken back when a buffer leaves the pool or the context closes).
 *  3. A request leaves the pending list only through io_req_unlink_pending, which keeps
 *     n_pending and n_wanted equal to the list's length and its WANTED members.
 *  4. The stash (process-wide, under stash_mu) holds at most IO_STASH_SLOTS buffers and
 *     IO_STASH_BYTES bytes, each at least IO_POOL_MIN_BYTES: a closing context's pooled and
 *     returned buffers go there (freed instead with opts.pool_held: the stash is outside every
 *     scan's budget), and a context whose own pool has none that fits takes one
 *     from it. A scan's contexts end with the scan, so without it every scan read into fresh
 *     memory that the kernel faulted in and zeroed page by page (issue 26: 11% of a one-thread
 *     wide scan's samples in clear_page_erms under the read's copy). io_stash_drain frees it. */
#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/io_impl.h"
#include "common/fail.h"

static pthread_mutex_t stash_mu = PTHREAD_MUTEX_INITIALIZER;
static struct io_pooled stash[IO_STASH_SLOTS];
static int nstash;
static size_t stash_bytes;

/* The smallest stashed buffer of at least n bytes (*cap its size), taken out; NULL if none. */
static uint8_t *stash_take(size_t n, size_t *cap)
{
    pthread_mutex_lock(&stash_mu);
    assert(nstash >= 0 && nstash <= IO_STASH_SLOTS && stash_bytes <= IO_STASH_BYTES);
    int best = -1;
    for (int i = 0; i < nstash; i++)
        if (stash[i].cap >= n && (best < 0 || stash[i].cap < stash[best].cap)) best = i;
    uint8_t *p = NULL;
    if (best >= 0) {
        p = stash[best].p;
        *cap = stash[best].cap;
        stash_bytes -= *cap;
        stash[best] = stash[--nstash];
    }
    pthread_mutex_unlock(&stash_mu);
    return p;
}

/* Keeps buffer p (cap bytes) in the stash while it has room (invariant 4), else frees it. */
static void stash_put(uint8_t *p, size_t cap)
{
    if (!p) return;
    pthread_mutex_lock(&stash_mu);
    bool kept = cap >= IO_POOL_MIN_BYTES && nstash < IO_STASH_SLOTS &&
                stash_bytes + cap <= IO_STASH_BYTES;
    if (kept) {
        stash[nstash++] = (struct io_pooled){p, cap};
        stash_bytes += cap;
    }
    pthread_mutex_unlock(&stash_mu);
    if (!kept) free(p);
}

void io_stash_drain(void)
{
    pthread_mutex_lock(&stash_mu);
    while (nstash > 0) free(stash[--nstash].p);
    stash_bytes = 0;
    pthread_mutex_unlock(&stash_mu);
}

/* The pool's bytes change by d (invariant 2: in the shared held count too with pool_held). */
static void pool_count(io_ctx_t *ctx, int64_t d)
{
    assert(d >= 0 || ctx->pool_bytes >= (size_t)-d);
    ctx->pool_bytes += (size_t)d; /* modular: d < 0 subtracts */
    if (!ctx->opts.pool_held || !ctx->opts.held_total) return;
    if (d >= 0) io_held_add(ctx->opts.held_total, ctx->opts.held_peak, (uint64_t)d);
    else atomic_fetch_sub_explicit(ctx->opts.held_total, (uint64_t)-d, memory_order_relaxed);
}

/* A buffer that leaves the context: stashed for the next context, or freed (pool_held). */
static void buf_leave(io_ctx_t *ctx, uint8_t *p, size_t cap)
{
    if (ctx->opts.pool_held) free(p);
    else stash_put(p, cap);
}

/* Empties the pool (a closing context): its buffers leave (buf_leave), their count too. */
void io_pool_release(io_ctx_t *ctx)
{
    for (int i = 0; i < ctx->npool; i++) {
        pool_count(ctx, -(int64_t)ctx->pool[i].cap);
        buf_leave(ctx, ctx->pool[i].p, ctx->pool[i].cap);
    }
    ctx->npool = 0;
    assert(ctx->pool_bytes == 0);
}

size_t io_stash_bytes(void)
{
    pthread_mutex_lock(&stash_mu);
    size_t n = stash_bytes;
    pthread_mutex_unlock(&stash_mu);
    return n;
}

uint8_t *io_buf_get(io_ctx_t *ctx, size_t n, size_t *cap)
{
    int best = -1;
    for (int i = 0; n >= IO_POOL_MIN_BYTES && i < ctx->npool; i++)
        if (ctx->pool[i].cap >= n && (best < 0 || ctx->pool[i].cap < ctx->pool[best].cap)) best = i;
    if (best >= 0) {
        uint8_t *p = ctx->pool[best].p;
        *cap = ctx->pool[best].cap;
        pool_count(ctx, -(int64_t)*cap);
        ctx->pool[best] = ctx->pool[--ctx->npool];
        return p;
    }
    uint8_t *kept = n >= IO_POOL_MIN_BYTES ? stash_take(n, cap) : NULL;
    if (kept) return kept;
    size_t mib = (size_t)1 << 20;
    *cap = n < IO_POOL_MIN_BYTES ? n : (n + mib - 1) / mib * mib;
    return fail_malloc(*cap ? *cap : 1);
}

void io_buf_put(io_ctx_t *ctx, uint8_t *p, size_t cap)
{
    assert(ctx->npool >= 0 && ctx->npool <= IO_POOL_SLOTS && ctx->pool_bytes <= IO_POOL_BYTES);
    size_t most = ctx->opts.pool_held && ctx->opts.pool_bytes < IO_POOL_BYTES
                      ? (size_t)ctx->opts.pool_bytes : IO_POOL_BYTES;
    if (p && !ctx->closing && cap >= IO_POOL_MIN_BYTES && ctx->npool < IO_POOL_SLOTS &&
        ctx->pool_bytes + cap <= most) {
        ctx->pool[ctx->npool++] = (struct io_pooled){p, cap};
        pool_count(ctx, (int64_t)cap);
        return;
    }
    if (p) buf_leave(ctx, p, cap);
}

int io_ctx_backend(io_ctx_t *ctx, const io_backend *be, void **out)
{
    assert(be->id >= 0 && be->id < IO_BACKENDS_MAX);
    if (!ctx->be_made[be->id]) {
        void *core = NULL;
        int rc = be->core_new ? be->core_new(&core, ctx->e) : 0;
        if (rc) return rc;
        ctx->be_core[be->id] = core;
        ctx->be_made[be->id] = true;
    }
    *out = ctx->be_core[be->id];
    return 0;
}

/* Frees each backend's per-core state (no read of theirs is in flight: no range is). */
static void io_ctx_free_backends(io_ctx_t *ctx)
{
    assert(ctx->n_ranges == 0);
    static const io_backend *const kinds[] = {&io_backend_file, &io_backend_sim, &io_backend_http};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const io_backend *be = kinds[i];
        if (ctx->be_made[be->id] && be->core_free) be->core_free(ctx->be_core[be->id]);
        ctx->be_made[be->id] = false;
    }
}

void io_ctx_maybe_free(io_ctx_t *ctx)
{
    if (!ctx->closing || ctx->guard > 0 || ctx->n_opens > 0 || ctx->n_live_reqs > 0 ||
        ctx->n_ranges > 0 || ctx->stall_timer)
        return;
    assert(ctx->phead == NULL && ctx->ranges == NULL && ctx->inflight_bytes == 0);
    io_ctx_free_backends(ctx);
    io_pool_release(ctx);
    free(ctx->scratch);
    free(ctx->hole_scratch);
    void (*freed)(void *, const io_counters_t *) = ctx->opts.on_freed;
    void *arg = ctx->opts.on_freed_ctx;
    io_counters_t final = ctx->c;
    free(ctx);
    if (freed) freed(arg, &final);
}

void io_req_free(io_req *r)
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

void io_req_fail_unsubmitted(io_req *r, int status, const char *why)
{
    char msg[FUT_MSG_MAX];
    snprintf(msg, sizeof msg, "%s: read of bytes [%" PRIu64 ", %" PRIu64 "): %s", r->file->name,
             r->off, r->off + r->len, why);
    fut_fail(r->fut, status, msg);
    r->ctx->c.requests_failed++;
    io_req_free(r);
}
