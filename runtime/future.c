/* runtime/future.c: one-shot reference-counted futures (one thread).
 *
 * Owns: fut_t records, their waiter lists and two thread-local work lists that keep want
 * propagation and cancellation iterative (bounded stack however long a chain of producers
 * whose hooks want or drop the next future is).
 * Design: a waiter is either a suspended coroutine (fut_await, waiter on its stack) or a
 * callback (fut_on_ready, waiter on the heap). Completing a future detaches every waiter in
 * order: coroutines are sched_wake()d, callbacks are queued with sched_defer_item() (their
 * node is the waiter itself, so completing never allocates) and hold a reference to the
 * future until they have run.
 * Invariants:
 *  1. status goes FUT_PENDING -> 0 or < 0 exactly once; a second completion aborts.
 *  2. refs > 0 for every reachable future; refs reaching 0 puts it on the release list and
 *     the outermost fut_unref frees it (cancel hook first when still pending).
 *  3. A pending future's waiters are only callbacks whose owners hold no reference (heap
 *     fut_on_ready waiters) or waiters whose owners do hold one (fut_await); so a future
 *     dying while pending can only have heap waiters, which are dropped uncalled.
 *  4. Hooks are cleared when the future completes or dies; each runs at most once. */
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

typedef struct fut_waiter {
    sched_item_t item; /* used while queued */
    struct fut_waiter *prev, *next;
    fut_t *f;
    coro_t *coro; /* W_CORO */
    fut_cb cb;    /* W_CB */
    void *ctx;
    int kind, state;
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
        FUT_VERIFY(w->kind == W_CB && w->state == W_WAITING);
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
    free(w); /* every callback waiter is fut_on_ready's, on the heap */
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
