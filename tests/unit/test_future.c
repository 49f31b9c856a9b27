/* tests for runtime/future.c: values and errors, waiter order, long then-chains, all/any,
 * want propagation, cancellation reaching producers, and no leaked futures after each test. */
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

/* ---- then ---- */

static int then_calls;
static int add_one(void *value, void *ctx, void **out)
{
    (void)ctx;
    then_calls++;
    *out = (void *)((intptr_t)value + 1);
    return 0;
}

static void then_chain_100000(void)
{
    enum { N = 100000 };
    producer p;
    fut_t *head = prod_start(&p);
    fut_t *cur = fut_ref(head);
    for (int i = 0; i < N; i++) {
        fut_t *next = fut_then(cur, add_one, NULL, NULL);
        CHECK(next != NULL);
        fut_unref(cur); /* the chain holds it now */
        cur = next;
    }
    fut_unref(head); /* only the chain holds the producer's future */
    CHECK_EQ_I64(fut_live_count(), N + 1);
    CHECK_EQ_I64(p.wants, 0);
    fut_want(cur); /* propagates 100,000 links back, without recursion */
    CHECK_EQ_I64(p.wants, 1);
    then_calls = 0;
    fut_resolve(p.f, (void *)(intptr_t)7, NULL);
    sched_run_until_idle();
    CHECK_EQ_I64(then_calls, N);
    CHECK_EQ_I64(fut_status(cur), 0);
    CHECK_EQ_I64((intptr_t)fut_value(cur), 7 + N);
    CHECK_EQ_I64(fut_live_count(), 1); /* links free themselves once passed on */
    fut_unref(cur);
    CHECK_EQ_I64(p.cancels, 0);
    CHECK_CLEAN();
}

/* Builds, wants and drops a 100,000-link chain on a coroutine stack (CORO_STACK_BYTES):
 * recursion per link in want or cancel would overflow it. */
static void chain_cancel_task(void *arg)
{
    enum { N = 100000 };
    producer *p = arg;
    fut_t *cur = prod_start(p);
    for (int i = 0; i < N; i++) {
        fut_t *next = fut_then(cur, add_one, NULL, NULL);
        fut_unref(cur);
        cur = next;
    }
    fut_want(cur);
    CHECK_EQ_I64(p->wants, 1);
    fut_unref(cur); /* drops 100,000 links and cancels the producer, in bounded stack */
}

static void then_chain_cancel_100000(void)
{
    producer p = {0};
    CHECK(sched_spawn(chain_cancel_task, &p) == 0);
    sched_run_until_idle();
    CHECK_EQ_I64(p.cancels, 1);
    CHECK(p.f == NULL);
    CHECK_CLEAN();
}

static int fail_einval(void *value, void *ctx, void **out)
{
    (void)value;
    (void)ctx;
    (void)out;
    return -EINVAL;
}

static void then_errors_propagate(void)
{
    then_calls = 0;
    fut_t *src = fut_new();
    fut_t *a = fut_then(src, add_one, NULL, NULL);
    fut_t *b = fut_then(a, add_one, NULL, NULL);
    fut_t *c = fut_then(b, add_one, NULL, NULL);
    fut_fail(src, -EIO, "page header at offset 77: bad crc");
    sched_run_until_idle();
    CHECK_EQ_I64(then_calls, 0);
    CHECK_EQ_I64(fut_status(c), -EIO);
    CHECK_STR(fut_message(c), "page header at offset 77: bad crc");
    CHECK_EQ_I64(fut_status(a), -EIO);
    fut_unref(src);
    fut_unref(a);
    fut_unref(b);
    fut_unref(c);

    src = fut_new();
    a = fut_then(src, fail_einval, NULL, NULL);
    b = fut_then(a, add_one, NULL, NULL);
    fut_resolve(src, NULL, NULL);
    sched_run_until_idle();
    CHECK_EQ_I64(fut_status(b), -EINVAL);
    CHECK_STR(fut_message(b), "fut_then: function failed with status -22");
    CHECK_EQ_I64(then_calls, 0);
    fut_unref(src);
    fut_unref(a);
    fut_unref(b);
    CHECK_CLEAN();
}

static int make_box(void *value, void *ctx, void **out)
{
    (void)ctx;
    int *box = malloc(sizeof *box);
    if (!box) return -ENOMEM;
    *box = (int)(intptr_t)value * 2;
    *out = box;
    return 0;
}

static void then_output_freed_with_future(void)
{
    freed_values = 0;
    fut_t *src = fut_new();
    fut_t *t = fut_then(src, make_box, NULL, count_free);
    fut_resolve(src, (void *)(intptr_t)21, NULL);
    fut_unref(src);
    sched_run_until_idle();
    CHECK_EQ_I64(*(int *)fut_value(t), 42);
    fut_unref(t);
    CHECK_EQ_I64(freed_values, 1);
    /* Output dropped after src resolved but before the step ran: fn never runs, no leak. */
    src = fut_new();
    t = fut_then(src, make_box, NULL, count_free);
    fut_resolve(src, (void *)(intptr_t)1, NULL);
    fut_unref(t);
    fut_unref(src);
    CHECK_EQ_I64(fut_live_count(), 1); /* src: the queued step still holds it */
    sched_run_until_idle();
    CHECK_EQ_I64(freed_values, 1);
    CHECK_CLEAN();
}

/* ---- all / any ---- */

static void all_semantics(void)
{
    fut_t *in[3];
    for (int i = 0; i < 3; i++)
        in[i] = fut_new();
    fut_t *all = fut_all(in, 3);
    CHECK(all != NULL);
    fut_resolve(in[2], NULL, NULL);
    fut_resolve(in[0], NULL, NULL);
    sched_run_until_idle();
    CHECK(!fut_is_ready(all));
    fut_resolve(in[1], NULL, NULL);
    sched_run_until_idle();
    CHECK_EQ_I64(fut_status(all), 0);
    CHECK(fut_value(all) == NULL);
    fut_unref(all);
    for (int i = 0; i < 3; i++)
        fut_unref(in[i]);

    /* A failure fails the output with its message and lets go of the other inputs. */
    producer p0, p2;
    fut_t *f0 = prod_start(&p0), *f1 = fut_new(), *f2 = prod_start(&p2);
    fut_t *ins[3] = {f0, f1, f2};
    all = fut_all(ins, 3);
    fut_unref(f0); /* only the combinator holds f0 and f2 now */
    fut_unref(f2);
    fut_fail(f1, -ENOENT, "column c9 not found");
    sched_run_until_idle();
    CHECK_EQ_I64(fut_status(all), -ENOENT);
    CHECK_STR(fut_message(all), "column c9 not found");
    CHECK_EQ_I64(p0.cancels, 1);
    CHECK_EQ_I64(p2.cancels, 1);
    fut_unref(f1);
    fut_unref(all);

    fut_t *none = fut_all(NULL, 0);
    CHECK_EQ_I64(fut_status(none), 0);
    fut_unref(none);
    CHECK_CLEAN();
}

static void any_semantics(void)
{
    producer p0, p1;
    fut_t *f0 = prod_start(&p0), *f1 = prod_start(&p1), *f2 = fut_new();
    fut_t *ins[3] = {f0, f1, f2};
    fut_t *any = fut_any(ins, 3);
    fut_unref(f0);
    fut_unref(f1);
    fut_resolve(f2, NULL, NULL);
    CHECK(!fut_is_ready(any));
    sched_run_until_idle();
    CHECK_EQ_I64(fut_status(any), 0);
    CHECK_EQ_I64((intptr_t)fut_value(any), 2);
    CHECK_EQ_I64(p0.cancels + p1.cancels, 2); /* losers released and cancelled */
    fut_unref(any);
    fut_unref(f2);

    /* First ready wins even when it failed; the caller inspects that input. */
    fut_t *g[2] = {fut_new(), fut_new()};
    any = fut_any(g, 2);
    fut_fail(g[1], -EIO, "boom");
    fut_resolve(g[0], NULL, NULL);
    sched_run_until_idle();
    CHECK_EQ_I64((intptr_t)fut_value(any), 1);
    CHECK_EQ_I64(fut_status(g[1]), -EIO);
    fut_unref(any);
    fut_unref(g[0]);
    fut_unref(g[1]);

    fut_t *none = fut_any(NULL, 0);
    CHECK_EQ_I64(fut_status(none), -EINVAL);
    fut_unref(none);
    CHECK_CLEAN();
}

/* ---- want ---- */

static void want_through_combinators(void)
{
    producer pa, pb, pc;
    fut_t *a = prod_start(&pa), *b = prod_start(&pb), *c = prod_start(&pc);
    fut_t *t = fut_then(a, add_one, NULL, NULL);
    fut_t *ab[2] = {t, b};
    fut_t *all = fut_all(ab, 2);
    fut_t *ac[2] = {all, c};
    fut_t *any = fut_any(ac, 2);
    CHECK(!fut_is_wanted(a) && !fut_is_wanted(t) && !fut_is_wanted(all));
    CHECK_EQ_I64(pa.wants + pb.wants + pc.wants, 0); /* building wants nothing */
    fut_want(any);
    CHECK(fut_is_wanted(a) && fut_is_wanted(b) && fut_is_wanted(c));
    CHECK(fut_is_wanted(t) && fut_is_wanted(all));
    CHECK_EQ_I64(pa.wants, 1);
    CHECK_EQ_I64(pb.wants, 1);
    CHECK_EQ_I64(pc.wants, 1);
    fut_want(any);
    fut_want(a);
    CHECK_EQ_I64(pa.wants, 1); /* once */
    fut_unref(any);
    fut_unref(all);
    fut_unref(t);
    fut_unref(a);
    fut_unref(b);
    fut_unref(c);
    CHECK_EQ_I64(pa.cancels + pb.cancels + pc.cancels, 3);

    /* fut_on_ready and fut_await want; a want hook set late runs at once. */
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

/* ---- cancellation ---- */

static void cancel_reaches_producers(void)
{
    producer p1, p2;
    fut_t *r1 = prod_start(&p1), *r2 = prod_start(&p2);
    fut_t *t = fut_then(r1, add_one, NULL, NULL);
    fut_t *ins[2] = {t, r2};
    fut_t *all = fut_all(ins, 2);
    fut_t *tail = fut_then(all, add_one, NULL, NULL);
    fut_unref(r1);
    fut_unref(r2);
    fut_unref(t);
    fut_unref(all);
    fut_want(tail);
    CHECK_EQ_I64(p1.wants + p2.wants, 2);
    CHECK_EQ_I64(fut_live_count(), 5);
    fut_unref(tail); /* the only reference left: everything behind it is cancelled */
    CHECK_EQ_I64(p1.cancels, 1);
    CHECK_EQ_I64(p2.cancels, 1);
    CHECK(p1.f == NULL && p2.f == NULL);
    CHECK_CLEAN();

    /* A partly done chain: r1 resolved and its step queued when the output goes. */
    r1 = prod_start(&p1);
    r2 = prod_start(&p2);
    t = fut_then(r1, add_one, NULL, NULL);
    fut_t *ins2[2] = {t, r2};
    all = fut_all(ins2, 2);
    fut_unref(r1);
    fut_unref(r2);
    fut_unref(t);
    fut_resolve(p1.f, NULL, NULL);
    fut_unref(all);
    CHECK_EQ_I64(p2.cancels, 1);
    CHECK_EQ_I64(p1.cancels, 0); /* resolved futures are never cancelled */
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
    RUN(then_chain_100000);
    RUN(then_chain_cancel_100000);
    RUN(then_errors_propagate);
    RUN(then_output_freed_with_future);
    RUN(all_semantics);
    RUN(any_semantics);
    RUN(want_through_combinators);
    RUN(await_wants);
    RUN(cancel_reaches_producers);
    RUN(breaches_abort);
    RUN(task_resolves_for_task);
    coro_pool_drain();
    return CHECK_DONE("test_future");
}
