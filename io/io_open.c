/* io/io_open.c: a file opened from a task on a core (io.h io_file_open_await): a local file at
 * once, a URL's open request through the core's backend state and awaited as a future.
 *
 * Owns: one open in flight (io_opening, on the awaiting task's stack). Calls io_file.c
 * (io_file_begin) and io_ctx.c (the backend's per-core state), then the backend's open.
 * Invariants:
 *  1. The task awaits its open's future to the end, so the opening it points at (on the task's
 *     stack) outlives the op's completion.
 *  2. ctx->n_opens counts the opens in flight: the context (with the backend state the request
 *     runs on) is not freed before their completions (io_ctx.c io_ctx_maybe_free).
 *  3. ctx->opens lists exactly those opens, from their request's start to its completion, so
 *     io_opens_cancel reaches each one in flight and none after it completed. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "io/io_impl.h"

struct io_opening {
    exec_op_t op;
    fut_t *done;
    io_ctx_t *ctx;
    const io_backend *be;
    struct io_opening *prev, *next; /* ctx->opens: in flight (invariant 3) */
    char why[IO_WHY_MAX];
};
typedef struct io_opening io_opening;

static void opened(exec_op_t *op)
{
    io_opening *w = (io_opening *)((char *)op - offsetof(io_opening, op));
    assert(w->ctx->n_opens > 0);
    w->ctx->n_opens--;
    if (w->prev) w->prev->next = w->next;
    else w->ctx->opens = w->next;
    if (w->next) w->next->prev = w->prev;
    if (op->res < 0) fut_fail(w->done, op->res, w->why);
    else fut_resolve(w->done, NULL, NULL);
    io_ctx_maybe_free(w->ctx);
}

/* f's open request (its backend's open) on ctx's core, awaited. 0, or a status with why filled. */
static int await_open(io_ctx_t *ctx, io_file_t *f, io_opening *w)
{
    void *core = NULL;
    int rc = io_ctx_backend(ctx, f->be, &core);
    if (rc) return snprintf(w->why, sizeof w->why, "cannot set up its connections"), rc;
    w->done = fut_new();
    if (!w->done) return snprintf(w->why, sizeof w->why, "out of memory"), -ENOMEM;
    w->op.done = opened;
    w->be = f->be;
    rc = f->be->open(core, ctx->e, f, &w->op, w->why, sizeof w->why);
    if (rc == 0) { /* invariants 1, 3 */
        ctx->n_opens++;
        w->next = ctx->opens;
        if (ctx->opens) ctx->opens->prev = w;
        ctx->opens = w;
        rc = fut_await(w->done);
    }
    fut_unref(w->done);
    return rc;
}

int io_file_open_await(io_ctx_t *ctx, io_file_t **out, const char *path, const io_open_opts *o,
                       char *err, size_t errlen)
{
    assert(ctx && out && path && exec_current() == ctx->e);
    if (ctx->cancelled) { /* io_ctx_cancel_reads: nothing starts after it */
        if (err) snprintf(err, errlen, "%s: open cancelled: the scan was stopped", path);
        *out = NULL;
        return -ECANCELED;
    }
    int rc = io_file_begin(out, path, o, err, errlen);
    if (rc || !(*out)->be->open) return rc;
    io_opening w = {.ctx = ctx};
    rc = await_open(ctx, *out, &w);
    if (rc) {
        if (err) snprintf(err, errlen, "%s: %s", (*out)->name, w.why);
        io_file_close(*out);
        *out = NULL;
    }
    return rc;
}

void io_opens_cancel(io_ctx_t *ctx)
{
    assert(exec_current() == ctx->e);
    for (io_opening *w = ctx->opens, *next; w; w = next) {
        next = w->next; /* (a completion that came at once unlinked w) */
        void *core = NULL;
        if (io_ctx_backend(ctx, w->be, &core) == 0 && w->be->cancel)
            (void)w->be->cancel(core, ctx->e, &w->op); /* its completion fails the open */
    }
}
