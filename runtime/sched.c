/* runtime/sched.c: the per-thread ready queue (tasks and deferred callbacks).
 *
 * Owns: this thread's FIFO of sched_item_t (intrusive, singly linked, head/tail), the task
 * records of coroutines spawned here, and the nodes of allocating sched_defer() calls.
 * A task is a coroutine plus a record holding its queue item; the item's fn resumes it.
 * Invariants:
 *  1. Task state machine: READY -(run)-> RUNNING -(sched_suspend)-> SUSPENDED -(sched_wake)->
 *     READY, or RUNNING -(sched_yield_task)-> READY, or RUNNING -(returns)-> destroyed. Any other
 *     transition aborts: a wake of a task that is not suspended, a suspend outside a task,
 *     a task that switched away by bare coro_yield().
 *  2. An item is queued at most once at a time (it->queued); the queue length stays below
 *     SCHED_READY_MAX.
 *  3. Items run in FIFO order and never inside the call that queued them.
 *  4. live tasks <= SCHED_TASKS_MAX, pending allocated callbacks <= SCHED_DEFER_MAX. */
#include "runtime/sched.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

enum { TASK_READY = 1, TASK_RUNNING, TASK_SUSPENDED };
#define TASK_MAGIC 0x7461736bU

typedef struct task {
    sched_item_t item; /* first: the queue entry that resumes the task */
    coro_t *coro;
    int state;
    unsigned magic;
} task_t;

typedef struct defer_node {
    sched_item_t item;
    sched_fn fn;
    void *ctx;
} defer_node_t;

static _Thread_local sched_item_t *q_head, *q_tail;
static _Thread_local int64_t q_len;
static _Thread_local task_t *cur_task;
static _Thread_local int64_t live_tasks;
static _Thread_local int64_t defer_pending;

static _Noreturn void sched_panic(const char *what)
{
    fprintf(stderr, "ringscan: sched: %s\n", what);
    abort();
}

/* Appends it to the ready queue. */
static void q_push(sched_item_t *it)
{
    if (it->queued) sched_panic("item queued twice");
    if (q_len >= SCHED_READY_MAX) sched_panic("ready queue over SCHED_READY_MAX");
    assert((q_head == NULL) == (q_tail == NULL));
    it->next = NULL;
    it->queued = 1;
    if (q_tail)
        q_tail->next = it;
    else
        q_head = it;
    q_tail = it;
    q_len++;
}

/* Removes and returns the oldest item, or NULL. */
static sched_item_t *q_pop(void)
{
    sched_item_t *it = q_head;
    if (!it) return NULL;
    assert(q_len > 0 && it->queued);
    q_head = it->next;
    if (!q_head) q_tail = NULL;
    q_len--;
    it->next = NULL;
    it->queued = 0;
    return it;
}

static task_t *task_of(coro_t *c)
{
    if (!c) sched_panic("NULL coroutine");
    task_t *t = coro_get_data(c);
    if (!t || t->magic != TASK_MAGIC || t->coro != c) sched_panic("coroutine is not a task");
    return t;
}

/* The item function of a task: resumes it, then destroys it if it finished. */
static void task_run(void *ctx)
{
    task_t *t = ctx;
    assert(t->magic == TASK_MAGIC);
    if (t->state != TASK_READY) sched_panic("running a task that is not ready");
    task_t *prev = cur_task;
    t->state = TASK_RUNNING;
    cur_task = t;
    coro_resume(t->coro);
    cur_task = prev;
    if (coro_finished(t->coro)) {
        assert(!t->item.queued);
        coro_destroy(t->coro);
        t->magic = 0;
        free(t);
        live_tasks--;
        assert(live_tasks >= 0);
        return;
    }
    if (t->state == TASK_RUNNING) sched_panic("task left by coro_yield, not sched_suspend");
    assert(t->state == TASK_SUSPENDED || (t->state == TASK_READY && t->item.queued));
}

int sched_spawn(coro_fn fn, void *arg)
{
    assert(fn != NULL);
    assert(live_tasks >= 0 && live_tasks <= SCHED_TASKS_MAX);
    if (live_tasks >= SCHED_TASKS_MAX) return -ENOMEM;
    task_t *t = fail_calloc(1, sizeof *t);
    if (!t) return -ENOMEM;
    if (coro_create(&t->coro, fn, arg) != 0) {
        free(t);
        return -ENOMEM;
    }
    coro_set_data(t->coro, t);
    t->magic = TASK_MAGIC;
    t->state = TASK_READY;
    t->item.fn = task_run;
    t->item.ctx = t;
    live_tasks++;
    q_push(&t->item);
    return 0;
}

/* The item function of an allocated deferral: frees its node, then calls the user. */
static void defer_run(void *ctx)
{
    defer_node_t *d = ctx;
    sched_fn fn = d->fn;
    void *fctx = d->ctx;
    assert(fn != NULL && defer_pending > 0);
    free(d);
    defer_pending--;
    fn(fctx);
}

int sched_defer(sched_fn fn, void *ctx)
{
    assert(fn != NULL);
    assert(defer_pending >= 0 && defer_pending <= SCHED_DEFER_MAX);
    if (defer_pending >= SCHED_DEFER_MAX) return -ENOMEM;
    defer_node_t *d = fail_calloc(1, sizeof *d);
    if (!d) return -ENOMEM;
    d->fn = fn;
    d->ctx = ctx;
    defer_pending++;
    sched_defer_item(&d->item, defer_run, d);
    return 0;
}

void sched_defer_item(sched_item_t *it, sched_fn fn, void *ctx)
{
    assert(it != NULL && fn != NULL);
    it->fn = fn;
    it->ctx = ctx;
    q_push(it);
}

void sched_wake(coro_t *c)
{
    task_t *t = task_of(c);
    if (t->state != TASK_SUSPENDED) sched_panic("sched_wake of a task that is not suspended");
    t->state = TASK_READY;
    q_push(&t->item);
}

void sched_suspend(void)
{
    task_t *t = cur_task;
    if (!t || coro_self() != t->coro) sched_panic("sched_suspend outside a task");
    assert(t->state == TASK_RUNNING);
    t->state = TASK_SUSPENDED;
    coro_yield();
    assert(t->state == TASK_RUNNING && cur_task == t);
}

void sched_yield_task(void)
{
    task_t *t = cur_task;
    if (!t || coro_self() != t->coro) sched_panic("sched_yield_task outside a task");
    assert(t->state == TASK_RUNNING);
    t->state = TASK_READY;
    q_push(&t->item);
    coro_yield();
    assert(t->state == TASK_RUNNING && cur_task == t);
}

coro_t *sched_current(void)
{
    task_t *t = cur_task;
    if (!t || coro_self() != t->coro) return NULL;
    return t->coro;
}

int sched_run(int max)
{
    assert(max >= 0);
    int n = 0;
    while (n < max) {
        sched_item_t *it = q_pop();
        if (!it) break;
        assert(it->fn != NULL);
        it->fn(it->ctx);
        n++;
    }
    assert(n <= max);
    return n;
}

bool sched_idle(void)
{
    assert((q_head == NULL) == (q_len == 0));
    return q_head == NULL;
}

int64_t sched_run_until_idle(void)
{
    int64_t total = 0;
    while (!sched_idle()) {
        int n = sched_run(4096);
        assert(n > 0);
        total += n;
    }
    assert(q_len == 0);
    return total;
}

int64_t sched_live_tasks(void)
{
    assert(live_tasks >= 0 && live_tasks <= SCHED_TASKS_MAX);
    return live_tasks;
}
