/* tests for runtime/sched.c: FIFO order of tasks and callbacks, suspend/wake pairing,
 * yields, many live tasks, run limits, and aborts on broken pairing. */
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/rt_bench_coro.h"
#include "check.h"
#include "runtime/future.h"
#include "runtime/sched.h"

static int order[64];
static int order_n;

static void note(int v)
{
    if (order_n < 64) order[order_n++] = v;
}

static void note_task(void *arg)
{
    note((int)(intptr_t)arg);
}

static void note_cb(void *arg)
{
    note((int)(intptr_t)arg);
}

static void tasks_and_callbacks_fifo(void)
{
    order_n = 0;
    CHECK(sched_spawn(note_task, (void *)1) == 0);
    CHECK(sched_defer(note_cb, (void *)2) == 0);
    CHECK(sched_spawn(note_task, (void *)3) == 0);
    sched_item_t item = {0};
    sched_defer_item(&item, note_cb, (void *)4);
    CHECK_EQ_I64(order_n, 0); /* nothing runs inside the calls that queue */
    CHECK_EQ_I64(sched_live_tasks(), 2);
    CHECK(!sched_idle());
    CHECK_EQ_I64(sched_run_until_idle(), 4);
    CHECK(sched_idle());
    CHECK_EQ_I64(order_n, 4);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I64(order[i], i + 1);
    CHECK_EQ_I64(sched_live_tasks(), 0);
}

/* A callback that defers another: the second runs after everything queued before it. */
static void chain_cb(void *arg)
{
    int v = (int)(intptr_t)arg;
    note(v);
    if (v < 3) CHECK(sched_defer(chain_cb, (void *)(intptr_t)(v + 10)) == 0);
}

static void deferred_from_callbacks_queue_behind(void)
{
    order_n = 0;
    CHECK(sched_defer(chain_cb, (void *)1) == 0);
    CHECK(sched_defer(chain_cb, (void *)2) == 0);
    CHECK(sched_defer(chain_cb, (void *)3) == 0);
    CHECK_EQ_I64(sched_run_until_idle(), 5);
    int want[] = {1, 2, 3, 11, 12};
    CHECK_EQ_I64(order_n, 5);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_I64(order[i], want[i]);
}

static coro_t *parked;

static void park_task(void *arg)
{
    int *state = arg;
    *state = 1;
    parked = sched_current();
    CHECK(parked == coro_self());
    sched_suspend();
    *state = 2;
}

static void suspend_and_wake(void)
{
    int state = 0;
    parked = NULL;
    CHECK(sched_current() == NULL);
    CHECK(sched_spawn(park_task, &state) == 0);
    CHECK_EQ_I64(sched_run_until_idle(), 1);
    CHECK_EQ_I64(state, 1);
    CHECK(parked != NULL);
    CHECK(sched_idle());
    CHECK_EQ_I64(sched_live_tasks(), 1);
    sched_wake(parked);
    CHECK_EQ_I64(state, 1); /* waking does not run it */
    CHECK_EQ_I64(sched_run_until_idle(), 1);
    CHECK_EQ_I64(state, 2);
    CHECK_EQ_I64(sched_live_tasks(), 0);
}

static void yielder(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < 3; i++) {
        note(id * 10 + i);
        sched_yield_task();
    }
}

static void yields_interleave(void)
{
    order_n = 0;
    CHECK(sched_spawn(yielder, (void *)1) == 0);
    CHECK(sched_spawn(yielder, (void *)2) == 0);
    CHECK_EQ_I64(sched_run_until_idle(), 8);
    int want[] = {10, 20, 11, 21, 12, 22};
    CHECK_EQ_I64(order_n, 6);
    for (int i = 0; i < 6; i++)
        CHECK_EQ_I64(order[i], want[i]);
    CHECK_EQ_I64(sched_live_tasks(), 0);
}

enum { MANY = 10000 };
static coro_t *many_parked[MANY];
static int many_parked_n;

static void many_task(void *arg)
{
    int64_t *sum = arg;
    int my = many_parked_n;
    many_parked[many_parked_n++] = sched_current();
    sched_suspend();
    *sum += my;
}

static void ten_thousand_tasks(void)
{
    int64_t sum = 0;
    many_parked_n = 0;
    for (int i = 0; i < MANY; i++)
        CHECK(sched_spawn(many_task, &sum) == 0);
    CHECK_EQ_I64(sched_live_tasks(), MANY);
    CHECK_EQ_I64(sched_run_until_idle(), MANY);
    CHECK_EQ_I64(many_parked_n, MANY);
    CHECK_EQ_I64(sched_live_tasks(), MANY);
    for (int i = MANY - 1; i >= 0; i--)
        sched_wake(many_parked[i]);
    CHECK_EQ_I64(sched_run_until_idle(), MANY);
    CHECK_EQ_I64(sum, (int64_t)MANY * (MANY - 1) / 2);
    CHECK_EQ_I64(sched_live_tasks(), 0);
    coro_pool_drain();
}

static void run_limit(void)
{
    order_n = 0;
    for (int i = 0; i < 5; i++)
        CHECK(sched_defer(note_cb, (void *)(intptr_t)i) == 0);
    CHECK_EQ_I64(sched_run(2), 2);
    CHECK_EQ_I64(order_n, 2);
    CHECK_EQ_I64(sched_run(0), 0);
    CHECK_EQ_I64(sched_run(10), 3);
    CHECK_EQ_I64(sched_run(10), 0);
    CHECK_EQ_I64(order_n, 5);
    CHECK(sched_idle());
}

/* Runs fn in a child process and returns the signal that ended it (0 if it exited). */
static int child_signal(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fclose(stderr); /* the abort message is expected */
        fn();
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

static void clean_child(void)
{
    order_n = 0;
    CHECK(sched_spawn(note_task, (void *)1) == 0);
    sched_run_until_idle();
}

static void wake_self_task(void *arg)
{
    (void)arg;
    sched_wake(sched_current()); /* running, not suspended: abort */
}

static void wake_running_child(void)
{
    CHECK(sched_spawn(wake_self_task, NULL) == 0);
    sched_run_until_idle();
}

static void wake_twice_task(void *arg)
{
    (void)arg;
    coro_t *me = sched_current();
    sched_defer(note_cb, (void *)7);
    parked = me;
    sched_suspend();
}

static void wake_twice_child(void)
{
    CHECK(sched_spawn(wake_twice_task, NULL) == 0);
    sched_run_until_idle();
    sched_wake(parked);
    sched_wake(parked); /* second wake without a suspend in between: abort */
}

static void bare_yield_task(void *arg)
{
    (void)arg;
    coro_yield(); /* not through sched_suspend: the scheduler must notice */
}

static void bare_yield_child(void)
{
    CHECK(sched_spawn(bare_yield_task, NULL) == 0);
    sched_run_until_idle();
}

static void suspend_outside_task_child(void)
{
    sched_suspend();
}

static void broken_pairing_aborts(void)
{
    CHECK_EQ_I64(child_signal(clean_child), 0); /* control: a clean run exits */
    CHECK_EQ_I64(child_signal(wake_running_child), SIGABRT);
    CHECK_EQ_I64(child_signal(wake_twice_child), SIGABRT);
    CHECK_EQ_I64(child_signal(bare_yield_child), SIGABRT);
    CHECK_EQ_I64(child_signal(suspend_outside_task_child), SIGABRT);
}

/* The runtime benchmarks run and leave nothing behind (their timing is not checked). */
static void benchmarks_leave_clean_state(void)
{
    CHECK(rt_bench_switch_ns(1000) > 0);
    CHECK(rt_bench_swapcontext_ns(1000) > 0);
    CHECK(rt_bench_fcontext_ns(1000) > 0);
    CHECK(rt_bench_future_roundtrip_ns(1000) > 0);
    CHECK(sched_idle());
    CHECK_EQ_I64(sched_live_tasks(), 0);
    CHECK_EQ_I64(fut_live_count(), 0);
}

int main(void)
{
    RUN(tasks_and_callbacks_fifo);
    RUN(deferred_from_callbacks_queue_behind);
    RUN(suspend_and_wake);
    RUN(yields_interleave);
    RUN(ten_thousand_tasks);
    RUN(run_limit);
    RUN(broken_pairing_aborts);
    RUN(benchmarks_leave_clean_state);
    coro_pool_drain();
    return CHECK_DONE("test_sched");
}
