/* runtime/future.c: one-shot reference-counted futures and their combinators (one thread).
 *
 * Owns: fut_t records, their waiter lists, combinator state (comb_t) and two thread-local
 * work lists that keep want propagation and cancellation iterative (bounded stack however
 * long a then-chain is).
 * Design: a waiter is either a suspended coroutine (fut_await, waiter on its stack) or a
 * callback (fut_on_ready: heap waiter; combinators: waiter embedded in comb_t). Completing a
 * future detaches every waiter in order: coroutines are sched_wake()d, callbacks are queued
 * with sched_defer_item() (their node is the waiter itself, so completing never allocates)
 * and hold a reference to the future until they have run.
 * Invariants:
 *  1. status goes FUT_PENDING -> 0 or < 0 exactly once; a second completion aborts.
 *  2. refs > 0 for every reachable future; refs reaching 0 puts it on the release list and
 *     the outermost fut_unref frees it (cancel hook first when still pending).
 *  3. A pending future's waiters are only callbacks whose owners hold no reference (heap
 *     fut_on_ready waiters) or waiters whose owners do hold one (await, combinators); so a
 *     future dying while pending can only have heap waiters, which are dropped uncalled.
 *  4. Hooks are cleared when the future completes or dies; each runs at most once.
 *  5. A combinator holds one reference per input until that input's callback ran or the
 *     combinator let go of it (output done or cancelled); comb_t is freed when its output is
 *     gone and no input callback is attached or queued. */
#include "runtime/future.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/sched.h"

#define FUT_MAGIC 0x66757475U
#define FUT_VERIFY(c) ((c) ? (void)0 : fut_panic(#c, __func__))

enum { W_CORO = 1, W_CB };
enum { W_IDLE = 0, W_WAITING, W_QUEUED };
enum { COMB_THEN = 1, COMB_ALL, COMB_ANY };

typedef struct fut_waiter {
    sched_item_t item; /* used while queued */
    struct fut_waiter *prev, *next;
    fut_t *f;
    coro_t *coro; /* W_CORO */
    fut_cb cb;    /* W_CB */
    void *ctx;
    int kind, state;
    bool heap; /* freed after its callback ran (fut_on_ready) */
} fut_waiter_t;

struct fut {
    int64_t refs;
    int status;
    unsigned magic;
    bool wanted, dying;
    fut_hook want_hook, cancel_hook;
    void *want_ctx, *cancel_ctx;
    void *value;
    fut_free_fn free_value;
    char *msg;
    fut_waiter_t *w_head, *w_tail;
    int64_t n_waiters;
    fut_t *next_want, *next_free; /* work-list links */
};

typedef struct comb comb_t;
typedef struct comb_in {
    fut_waiter_t w;
    fut_t *in; /* NULL once released */
    comb_t *owner;
    size_t idx;
} comb_in_t;

struct comb {
    fut_t *out; /* NULL once the output completed or was cancelled */
    int kind;
    size_t n, remaining, attached;
    fut_then_fn fn;
    void *ctx;
    fut_free_fn out_free;
    comb_in_t ins[];
};

static _Thread_local int64_t live_count;
static _Thread_local fut_t *want_list, *free_list;
static _Thread_local bool want_draining, free_draining;
static const char fut_msg_lost[] = "(failure message lost: out of memory)";

static _Noreturn void fut_panic(const char *what, const char *fn)
{
    fprintf(stderr, "ringscan: future contract broken in %s: %s\n", fn, what);
    abort();
}

static void fut_check(const fut_t *f)
{
    FUT_VERIFY(f != NULL && f->magic == FUT_MAGIC);
    FUT_VERIFY(f->refs > 0 || f->dying);
}

fut_t *fut_new(void)
{
    assert(live_count >= 0);
    fut_t *f = fail_calloc(1, sizeof *f);
    if (!f) return NULL;
    f->refs = 1;
    f->status = FUT_PENDING;
    f->magic = FUT_MAGIC;
    live_count++;
    return f;
}

fut_t *fut_ref(fut_t *f)
{
    fut_check(f);
    FUT_VERIFY(f->refs > 0 && f->refs < INT32_MAX);
    f->refs++;
    return f;
}

/* Frees a future whose last reference went: cancel hook if pending, drop heap waiters. */
static void fut_destroy(fut_t *f)
{
    assert(f->magic == FUT_MAGIC && f->refs == 0);
    f->dying = true;
    if (f->status == FUT_PENDING && f->cancel_hook) {
        fut_hook hook = f->cancel_hook;
        f->cancel_hook = NULL;
        f->want_hook = NULL;
        hook(f->cancel_ctx);
    }
    FUT_VERIFY(f->refs == 0); /* the hook must not resurrect it */
    while (f->w_head) {
        fut_waiter_t *w = f->w_head;
        FUT_VERIFY(w->kind == W_CB && w->heap && w->state == W_WAITING);
        f->w_head = w->next;
        free(w);
    }
    if (f->status == 0 && f->free_value) f->free_value(f->value);
    if (f->msg != fut_msg_lost) free(f->msg);
    f->magic = 0;
    free(f);
    live_count--;
    assert(live_count >= 0);
}

void fut_unref(fut_t *f)
{
    fut_check(f);
    FUT_VERIFY(f->refs > 0);
    if (--f->refs > 0) return;
    f->next_free = free_list;
    free_list = f;
    if (free_draining) return; /* an outer fut_unref frees it: no recursion */
    free_draining = true;
    while (free_list) {
        fut_t *g = free_list;
        free_list = g->next_free;
        fut_destroy(g);
    }
    free_draining = false;
}

void fut_set_cancel_hook(fut_t *f, fut_hook hook, void *ctx)
{
    fut_check(f);
    FUT_VERIFY(f->cancel_hook == NULL && f->status == FUT_PENDING);
    f->cancel_hook = hook;
    f->cancel_ctx = ctx;
}

void fut_set_want_hook(fut_t *f, fut_hook hook, void *ctx)
{
    fut_check(f);
    FUT_VERIFY(f->want_hook == NULL && f->status == FUT_PENDING);
    f->want_hook = hook;
    f->want_ctx = ctx;
    if (f->wanted && hook) { /* already wanted: demand it now, through the work list */
        f->wanted = false;
        fut_want(f);
    }
}

/* Appends w to f's waiters, or queues it at once when f is already complete. */
static void waiter_attach(fut_t *f, fut_waiter_t *w)
{
    assert(w->state == W_IDLE && w->kind != 0);
    FUT_VERIFY(f->n_waiters < FUT_WAITERS_MAX);
    w->f = f;
    w->prev = f->w_tail;
    w->next = NULL;
    if (f->w_tail)
        f->w_tail->next = w;
    else
        f->w_head = w;
    f->w_tail = w;
    f->n_waiters++;
    w->state = W_WAITING;
}

/* Unlinks a waiting w from its future. */
static void waiter_detach(fut_waiter_t *w)
{
    fut_t *f = w->f;
    assert(w->state == W_WAITING && f->n_waiters > 0);
    if (w->prev)
        w->prev->next = w->next;
    else
        f->w_head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        f->w_tail = w->prev;
    w->prev = w->next = NULL;
    f->n_waiters--;
    w->state = W_IDLE;
}

/* The ready-queue function of a callback waiter. */
static void waiter_run(void *ctx)
{
    fut_waiter_t *w = ctx;
    fut_t *f = w->f;
    assert(w->state == W_QUEUED && w->kind == W_CB);
    fut_check(f);
    w->state = W_IDLE;
    fut_cb cb = w->cb;
    void *cb_ctx = w->ctx;
    if (w->heap) free(w);
    cb(f, cb_ctx);
    fut_unref(f); /* the reference taken when it was queued */
}

/* Hands a waiter of the complete future f to the scheduler. */
static void waiter_fire(fut_t *f, fut_waiter_t *w)
{
    assert(f->status != FUT_PENDING && w->state == W_IDLE);
    if (w->kind == W_CORO) {
        sched_wake(w->coro);
        return;
    }
    fut_ref(f);
    w->state = W_QUEUED;
    sched_defer_item(&w->item, waiter_run, w);
}

/* Common tail of resolve and fail: clear hooks, fire every waiter in order. */
static void fut_complete(fut_t *f)
{
    assert(f->status != FUT_PENDING);
    f->want_hook = NULL;
    f->cancel_hook = NULL;
    int64_t fired = 0;
    while (f->w_head) {
        fut_waiter_t *w = f->w_head;
        waiter_detach(w);
        waiter_fire(f, w);
        FUT_VERIFY(++fired <= FUT_WAITERS_MAX);
    }
    assert(f->n_waiters == 0 && f->w_tail == NULL);
}

void fut_resolve(fut_t *f, void *value, fut_free_fn free_value)
{
    fut_check(f);
    FUT_VERIFY(f->status == FUT_PENDING && !f->dying);
    f->status = 0;
    f->value = value;
    f->free_value = free_value;
    fut_complete(f);
}

void fut_fail(fut_t *f, int status, const char *msg)
{
    fut_check(f);
    FUT_VERIFY(f->status == FUT_PENDING && !f->dying);
    FUT_VERIFY(status < 0);
    f->status = status;
    if (msg && msg[0]) {
        size_t len = strnlen(msg, FUT_MSG_MAX - 1);
        f->msg = fail_malloc(len + 1);
        if (f->msg) {
            memcpy(f->msg, msg, len);
            f->msg[len] = '\0';
        } else {
            f->msg = (char *)fut_msg_lost;
        }
    }
    fut_complete(f);
}

void fut_want(fut_t *f)
{
    fut_check(f);
    if (f->wanted) return;
    f->wanted = true;
    if (f->status != FUT_PENDING || !f->want_hook) return;
    f->next_want = want_list;
    want_list = fut_ref(f);    /* kept alive until its hook ran */
    if (want_draining) return; /* an outer fut_want runs it: no recursion */
    want_draining = true;
    while (want_list) {
        fut_t *g = want_list;
        want_list = g->next_want;
        fut_hook hook = g->want_hook;
        g->want_hook = NULL;
        if (hook && g->status == FUT_PENDING) hook(g->want_ctx);
        fut_unref(g);
    }
    want_draining = false;
}

bool fut_is_wanted(const fut_t *f)
{
    fut_check(f);
    return f->wanted;
}

bool fut_is_ready(const fut_t *f)
{
    fut_check(f);
    return f->status != FUT_PENDING;
}

int fut_status(const fut_t *f)
{
    fut_check(f);
    return f->status;
}

void *fut_value(const fut_t *f)
{
    fut_check(f);
    return f->status == 0 ? f->value : NULL;
}

const char *fut_message(const fut_t *f)
{
    fut_check(f);
    return (f->status < 0 && f->msg) ? f->msg : "";
}

int fut_await(fut_t *f)
{
    fut_check(f);
    coro_t *self = sched_current();
    FUT_VERIFY(self != NULL); /* only from a task spawned with sched_spawn */
    fut_want(f);
    if (f->status != FUT_PENDING) return f->status;
    fut_waiter_t w = {.kind = W_CORO, .coro = self};
    fut_ref(f);
    waiter_attach(f, &w);
    sched_suspend();
    FUT_VERIFY(f->status != FUT_PENDING && w.state == W_IDLE);
    int st = f->status;
    fut_unref(f);
    return st;
}

int fut_on_ready(fut_t *f, fut_cb cb, void *ctx)
{
    fut_check(f);
    FUT_VERIFY(cb != NULL);
    fut_waiter_t *w = fail_calloc(1, sizeof *w);
    if (!w) return -ENOMEM;
    w->kind = W_CB;
    w->cb = cb;
    w->ctx = ctx;
    w->heap = true;
    fut_want(f);
    if (f->status != FUT_PENDING) {
        w->f = f;
        waiter_fire(f, w);
    } else {
        waiter_attach(f, w);
    }
    return 0;
}

int64_t fut_live_count(void)
{
    assert(live_count >= 0);
    return live_count;
}

/* ---- combinators ---- */

/* Frees c once its output is gone and no input callback can still reach it. */
static void comb_maybe_free(comb_t *c)
{
    assert(c->attached <= c->n);
    if (c->out == NULL && c->attached == 0) free(c);
}

/* Lets go of every input whose callback is still waiting (output done or cancelled). */
static void comb_release_waiting(comb_t *c)
{
    assert(c->out == NULL);
    for (size_t i = 0; i < c->n; i++) {
        comb_in_t *ci = &c->ins[i];
        if (ci->w.state != W_WAITING) continue;
        waiter_detach(&ci->w);
        c->attached--;
        fut_t *in = ci->in;
        ci->in = NULL;
        fut_unref(in); /* may cancel the producer behind it */
    }
}

/* Completes c's output: status 0 resolves with value, < 0 fails with msg. */
static void comb_finish(comb_t *c, int status, void *value, fut_free_fn vfree, const char *msg)
{
    fut_t *out = c->out;
    assert(out != NULL);
    c->out = NULL;
    if (status == 0)
        fut_resolve(out, value, vfree);
    else
        fut_fail(out, status, msg);
    comb_release_waiting(c);
}

/* The then step: run fn on src's value, or pass src's failure on. */
static void comb_then_step(comb_t *c, fut_t *src)
{
    if (src->status < 0) {
        comb_finish(c, src->status, NULL, NULL, fut_message(src));
        return;
    }
    void *ov = NULL;
    int rc = c->fn(src->value, c->ctx, &ov);
    FUT_VERIFY(rc <= 0);
    if (c->out == NULL) { /* fn dropped the output itself */
        if (rc == 0 && ov && c->out_free) c->out_free(ov);
        return;
    }
    if (rc == 0) {
        comb_finish(c, 0, ov, c->out_free, NULL);
        return;
    }
    char msg[64];
    snprintf(msg, sizeof msg, "fut_then: function failed with status %d", rc);
    comb_finish(c, rc, NULL, NULL, msg);
}

/* Input callback of every combinator. */
static void comb_input_ready(fut_t *f, void *ctx)
{
    comb_in_t *ci = ctx;
    comb_t *c = ci->owner;
    assert(ci->in == f && c->attached > 0);
    c->attached--;
    if (c->out != NULL) {
        if (c->kind == COMB_THEN) {
            comb_then_step(c, f);
        } else if (c->kind == COMB_ANY) {
            comb_finish(c, 0, (void *)(uintptr_t)ci->idx, NULL, NULL);
        } else if (f->status < 0) {
            comb_finish(c, f->status, NULL, NULL, fut_message(f));
        } else {
            assert(c->remaining > 0);
            if (--c->remaining == 0) comb_finish(c, 0, NULL, NULL, NULL);
        }
    }
    ci->in = NULL;
    fut_unref(f); /* the combinator's reference; waiter_run still holds its own */
    comb_maybe_free(c);
}

/* Want hook of the output: want every input still held. */
static void comb_want(void *ctx)
{
    comb_t *c = ctx;
    assert(c->out != NULL);
    for (size_t i = 0; i < c->n; i++)
        if (c->ins[i].in) fut_want(c->ins[i].in);
}

/* Cancel hook of the output: it was dropped while pending. */
static void comb_cancel(void *ctx)
{
    comb_t *c = ctx;
    assert(c->out != NULL);
    c->out = NULL;
    comb_release_waiting(c);
    comb_maybe_free(c);
}

/* Builds a combinator over n inputs (n may be 0); NULL on ENOMEM. */
static fut_t *comb_new(int kind, fut_t *const *inputs, size_t n)
{
    FUT_VERIFY(n <= FUT_INPUTS_MAX && (n == 0 || inputs != NULL));
    comb_t *c = fail_calloc(1, sizeof *c + n * sizeof(comb_in_t));
    if (!c) return NULL;
    fut_t *out = fut_new();
    if (!out) {
        free(c);
        return NULL;
    }
    c->out = out;
    c->kind = kind;
    c->n = c->remaining = c->attached = n;
    fut_set_want_hook(out, comb_want, c);
    fut_set_cancel_hook(out, comb_cancel, c);
    for (size_t i = 0; i < n; i++) {
        comb_in_t *ci = &c->ins[i];
        ci->in = fut_ref(inputs[i]);
        ci->owner = c;
        ci->idx = i;
        ci->w.kind = W_CB;
        ci->w.cb = comb_input_ready;
        ci->w.ctx = ci;
        if (ci->in->status != FUT_PENDING) {
            ci->w.f = ci->in;
            waiter_fire(ci->in, &ci->w);
        } else {
            waiter_attach(ci->in, &ci->w);
        }
    }
    return out;
}

fut_t *fut_then(fut_t *src, fut_then_fn fn, void *ctx, fut_free_fn out_free)
{
    fut_check(src);
    FUT_VERIFY(fn != NULL);
    fut_t *out = comb_new(COMB_THEN, &src, 1);
    if (!out) return NULL;
    comb_t *c = out->want_ctx;
    c->fn = fn;
    c->ctx = ctx;
    c->out_free = out_free;
    return out;
}

fut_t *fut_all(fut_t *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fut_check(inputs[i]);
    fut_t *out = comb_new(COMB_ALL, inputs, n);
    if (out && n == 0) {
        comb_t *c = out->want_ctx;
        comb_finish(c, 0, NULL, NULL, NULL);
        comb_maybe_free(c);
    }
    return out;
}

fut_t *fut_any(fut_t *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fut_check(inputs[i]);
    fut_t *out = comb_new(COMB_ANY, inputs, n);
    if (out && n == 0) {
        comb_t *c = out->want_ctx;
        comb_finish(c, -EINVAL, NULL, NULL, "fut_any of no inputs");
        comb_maybe_free(c);
    }
    return out;
}
