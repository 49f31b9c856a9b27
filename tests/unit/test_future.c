/* tests for runtime/future.c: values and errors, waiter order, want and cancel through a
 * 100,000-long chain of producers in bounded stack, want by fut_on_ready/fut_await and late
 * hooks, contract breaches, and no leaked futures after each test. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "runtime/future.h"
#include "runtime/sched.h"

/* Every test ends with nothing queued, no task and no future alive. */
#define CHECK_CLEAN()                                                                              \
    do {                                                                                           \
        sched_run_until_idle();                                                                    \
        CHECK_EQ_I64(sched_live_tasks(), 0);                                                       \
        CHECK_EQ_I64(fut_live_count(), 0);                                                         \
    } while (0)

static int freed_values;
static void count_free(void *v)
{
    freed_values++;
    free(v);
}

/* A producer as the io layer writes one: an uncounted pointer, hooks count and forget. */
typedef struct {
    fut_t *f;
    int wants, cancels;
} producer;

static void prod_want(void *ctx)
{
    ((producer *)ctx)->wants++;
}

static void prod_cancel(void *ctx)
{
    producer *p = ctx;
    p->cancels++;
    p->f = NULL;
}

static fut_t *prod_start(producer *p)
{
    p->wants = p->cancels = 0;
    p->f = fut_new();
    if (!p->f) abort();
    fut_set_want_hook(p->f, prod_want, p);
    fut_set_cancel_hook(p->f, prod_cancel, p);
    return p->f;
}

static void resolve_value_and_free(void)
{
    freed_values = 0;
    fut_t *f = fut_new();
    CHECK(f != NULL);
    CHECK(!fut_is_ready(f));
    CHECK_EQ_I64(fut_status(f), FUT_PENDING);
    CHECK(fut_value(f) == NULL);
    CHECK_EQ_I64(fut_live_count(), 1);
    int *v = malloc(sizeof *v);
    *v = 42;
    fut_resolve(f, v, count_free);
    CHECK(fut_is_ready(f));
    CHECK_EQ_I64(fut_status(f), 0);
    CHECK_EQ_I64(*(int *)fut_value(f), 42);
    CHECK_STR(fut_message(f), "");
    fut_ref(f);
    fut_unref(f);
    CHECK_EQ_I64(freed_values, 0);
    fut_unref(f);
    CHECK_EQ_I64(freed_values, 1);
    CHECK_CLEAN();
}

static void fail_keeps_message(void)
{
    fut_t *f = fut_new();
    fut_fail(f, -EIO, "column l_orderkey: short read at offset 4096");
    CHECK_EQ_I64(fut_status(f), -EIO);
    CHECK_STR(fut_message(f), "column l_orderkey: short read at offset 4096");
    CHECK(fut_value(f) == NULL);
    fut_unref(f);
    char longmsg[FUT_MSG_MAX * 2];
    memset(longmsg, 'x', sizeof longmsg - 1);
    longmsg[sizeof longmsg - 1] = '\0';
    f = fut_new();
    fut_fail(f, -EINVAL, longmsg);
    CHECK_EQ_I64(strlen(fut_message(f)), FUT_MSG_MAX - 1);
    fut_unref(f);
    CHECK_CLEAN();
}

/* ---- waiters ---- */

static int trace[32];
static int trace_n;

static void awaiter(void *arg)
{
    fut_t *f = arg;
    int st = fut_await(f);
    trace[trace_n++] = 100 + st + (int)(intptr_t)fut_value(f);
}

static void on_ready_note(fut_t *f, void *ctx)
{
    CHECK(fut_is_ready(f));
    trace[trace_n++] = (int)(intptr_t)ctx;
}

static void waiters_in_order(void)
{
    trace_n = 0;
    fut_t *f = fut_new();
    CHECK(sched_spawn(awaiter, f) == 0);
    sched_run_until_idle(); /* task 1 now waits */
    CHECK(fut_is_wanted(f));
    CHECK(fut_on_ready(f, on_ready_note, (void *)1) == 0);
    CHECK(sched_spawn(awaiter, f) == 0);
    sched_run_until_idle(); /* task 2 waits after the callback */
    CHECK(fut_on_ready(f, on_ready_note, (void *)2) == 0);
    CHECK_EQ_I64(trace_n, 0);
    fut_resolve(f, (void *)(intptr_t)5, NULL);
    CHECK_EQ_I64(trace_n, 0); /* nothing runs inside fut_resolve */
    sched_run_until_idle();
    CHECK_EQ_I64(trace_n, 4);
    int want[] = {105, 1, 105, 2};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I64(trace[i], want[i]);
    /* Already ready: the callback still runs from the queue, and await returns at once. */
    CHECK(fut_on_ready(f, on_ready_note, (void *)3) == 0);
    CHECK_EQ_I64(trace_n, 4);
    CHECK(sched_spawn(awaiter, f) == 0);
    sched_run_until_idle();
    CHECK_EQ_I64(trace_n, 6);
    CHECK_EQ_I64(trace[4], 3);
    CHECK_EQ_I64(trace[5], 105);
    fut_unref(f);
    CHECK_CLEAN();
}

static void on_ready_dropped_never_runs(void)
{
    trace_n = 0;
    producer p;
    fut_t *f = prod_start(&p);
    CHECK(fut_on_ready(f, on_ready_note, (void *)9) == 0);
    CHECK_EQ_I64(p.wants, 1);
    fut_unref(f);
    CHECK_EQ_I64(p.cancels, 1);
    CHECK(p.f == NULL);
    sched_run_until_idle();
    CHECK_EQ_I64(trace_n, 0);
    CHECK_CLEAN();
}

/* ---- chains of producers ---- */

/* A producer built on another future, as scan/lend.c is one: it holds a reference to its
 * input, wants it from its want hook and drops it from its cancel hook. */
typedef struct {
    fut_t *out, *in;
} link_t;

static void link_want(void *ctx)
{
    fut_want(((link_t *)ctx)->in);
}

static void link_cancel(void *ctx)
{
    link_t *l = ctx;
    fut_t *in = l->in;
    l->out = l->in = NULL;
    fut_unref(in); /* the last reference: this link's input is cancelled in turn */
}

enum { CHAIN_LINKS = 100000 };

/* Builds, wants and drops a 100,000-link chain on a coroutine stack (CORO_STACK_BYTES):
 * recursion per link in want or cancel would overflow it. */
static void chain_task(void *arg)
{
    producer *p = arg;
    link_t *links = calloc(CHAIN_LINKS, sizeof *links);
    CHECK(links != NULL);
    if (!links) return;
    fut_t *cur = prod_start(p);
    for (int i = 0; i < CHAIN_LINKS; i++) {
        link_t *l = &links[i];
        l->in = cur; /* the caller's reference passes to the link */
        l->out = fut_new();
        CHECK(l->out != NULL);
        fut_set_want_hook(l->out, link_want, l);
        fut_set_cancel_hook(l->out, link_cancel, l);
        cur = l->out;
    }
    CHECK_EQ_I64(fut_live_count(), CHAIN_LINKS + 1);
    CHECK_EQ_I64(p->wants, 0);
    fut_want(cur); /* reaches the producer 100,000 links back */
    CHECK_EQ_I64(p->wants, 1);
    CHECK(fut_is_wanted(p->f) && fut_is_wanted(links[CHAIN_LINKS / 2].out));
    fut_want(cur);
    CHECK_EQ_I64(p->wants, 1); /* once */
    fut_unref(cur); /* drops every link and cancels the producer */
    CHECK_EQ_I64(p->cancels, 1);
    CHECK_EQ_I64(fut_live_count(), 0);
    CHECK(links[0].in == NULL && links[CHAIN_LINKS - 1].out == NULL);
    free(links);
}

static void chain_want_cancel_100000(void)
{
    producer p = {0};
    CHECK(sched_spawn(chain_task, &p) == 0);
    sched_run_until_idle();
    CHECK_EQ_I64(p.cancels, 1);
    CHECK(p.f == NULL);
    CHECK_CLEAN();
}

/* ---- want ---- */

/* fut_on_ready and fut_await want; a want hook set late runs at once. */
static void want_by_on_ready_and_late_hook(void)
{
    producer pd;
    fut_t *d = prod_start(&pd);
    CHECK(fut_on_ready(d, on_ready_note, (void *)0) == 0);
    CHECK_EQ_I64(pd.wants, 1);
    fut_resolve(d, NULL, NULL);
    fut_t *e = fut_new();
    fut_want(e);
    producer pe = {0};
    fut_set_want_hook(e, prod_want, &pe);
    CHECK(fut_is_wanted(e));
    CHECK_EQ_I64(pe.wants, 1);
    trace_n = 0;
    sched_run_until_idle();
    CHECK_EQ_I64(trace_n, 1);
    fut_unref(d);
    fut_unref(e);
    CHECK_CLEAN();
}

static void await_wants(void)
{
    producer p;
    fut_t *f = prod_start(&p);
    trace_n = 0;
    CHECK(sched_spawn(awaiter, f) == 0);
    sched_run_until_idle();
    CHECK_EQ_I64(p.wants, 1);
    fut_resolve(p.f, (void *)(intptr_t)1, NULL);
    sched_run_until_idle();
    CHECK_EQ_I64(trace_n, 1);
    CHECK_EQ_I64(trace[0], 101);
    fut_unref(f);
    CHECK_CLEAN();
}

/* ---- contract breaches abort ---- */

static int child_signal(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fclose(stderr);
        fn();
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

static void double_resolve(void)
{
    fut_t *f = fut_new();
    fut_resolve(f, NULL, NULL);
    fut_fail(f, -EIO, "again");
}

static void fail_with_positive_status(void)
{
    fut_t *f = fut_new();
    fut_fail(f, 5, "statuses are negative");
}

static void cancel_hook_twice(void)
{
    producer p;
    fut_t *f = prod_start(&p);
    fut_set_cancel_hook(f, prod_cancel, &p);
}

static void await_outside_task(void)
{
    fut_t *f = fut_new();
    fut_await(f);
}

static void breaches_abort(void)
{
    CHECK_EQ_I64(child_signal(double_resolve), SIGABRT);
    CHECK_EQ_I64(child_signal(await_outside_task), SIGABRT);
    CHECK_EQ_I64(child_signal(fail_with_positive_status), SIGABRT);
    CHECK_EQ_I64(child_signal(cancel_hook_twice), SIGABRT);
    CHECK_CLEAN();
}

/* ---- tasks resolving for tasks ---- */

static fut_t *slot;
static int rounds_done;

static void ping_task(void *arg)
{
    int n = (int)(intptr_t)arg;
    for (int i = 0; i < n; i++) {
        fut_t *f = fut_new();
        slot = f;
        CHECK_EQ_I64(fut_await(f), 0);
        CHECK_EQ_I64((intptr_t)fut_value(f), i);
        fut_unref(f);
        rounds_done++;
    }
}

static void pong_task(void *arg)
{
    int n = (int)(intptr_t)arg;
    for (int i = 0; i < n; i++) {
        while (!slot)
            sched_yield_task();
        fut_t *f = slot;
        slot = NULL;
        fut_resolve(f, (void *)(intptr_t)i, NULL);
    }
}

static void task_resolves_for_task(void)
{
    rounds_done = 0;
    slot = NULL;
    CHECK(sched_spawn(ping_task, (void *)1000) == 0);
    CHECK(sched_spawn(pong_task, (void *)1000) == 0);
    sched_run_until_idle();
    CHECK_EQ_I64(rounds_done, 1000);
    CHECK_CLEAN();
}

int main(void)
{
    RUN(resolve_value_and_free);
    RUN(fail_keeps_message);
    RUN(waiters_in_order);
    RUN(on_ready_dropped_never_runs);
    RUN(chain_want_cancel_100000);
    RUN(want_by_on_ready_and_late_hook);
    RUN(await_wants);
    RUN(breaches_abort);
    RUN(task_resolves_for_task);
    coro_pool_drain();
    return CHECK_DONE("test_future");
}
