/* io/io_open.c: a file opened from a task on a core (io.h io_file_open_await): a local file at
 * once, a URL's open request through the core's backend state and awaited as a future.
 *
 * Owns: one open in flight (io_opening, on the awaiting task's stack). Calls io_file.c
 * (io_file_begin) and io_ctx.c (the backend's per-core state), then the backend's open.
 * Invariants:
 *  1. The task awaits its open's future to the end, so the opening it points at (on the task's
 *     stack) outlives the op's completion.
 *  2. ctx->n_opens counts the opens in flight: the context (with the backend state the request
 *     runs on) is not freed before their completions (io_ctx.c io_ctx_maybe_free). */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "io/io_impl.h"

typedef struct io_opening {
    exec_op_t op;
    fut_t *done;
    io_ctx_t *ctx;
    char why[IO_WHY_MAX];
} io_opening;

static void opened(exec_op_t *op)
{
    io_opening *w = (io_opening *)((char *)op - offsetof(io_opening, op));
    assert(w->ctx->n_opens > 0);
    w->ctx->n_opens--;
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
    rc = f->be->open(core, ctx->e, f, &w->op, w->why, sizeof w->why);
    if (rc == 0) ctx->n_opens++, rc = fut_await(w->done); /* invariant 1 */
    fut_unref(w->done);
    return rc;
}

int io_file_open_await(io_ctx_t *ctx, io_file_t **out, const char *path, const io_open_opts *o,
                       char *err, size_t errlen)
{
    assert(ctx && out && path && exec_current() == ctx->e);
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
