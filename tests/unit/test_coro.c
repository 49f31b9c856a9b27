/* tests for runtime/coro.c: switching, nesting, many live coroutines, the guard page, the
 * stack pool and floating-point control state across switches. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <fenv.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pthread.h>

#include "check.h"
#include "runtime/coro.h"
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

typedef struct {
    int yields;
    int seen[8];
    int n;
    coro_t *self;
} pingpong;

static void pingpong_fn(void *arg)
{
    pingpong *p = arg;
    p->self = coro_self();
    for (int i = 0; i < p->yields; i++) {
        p->seen[p->n++] = i * 10;
        coro_yield();
    }
    p->seen[p->n++] = -1;
}

static void switch_and_return(void)
{
    pingpong p = {.yields = 3};
    coro_t *c = NULL;
    CHECK(coro_create(&c, pingpong_fn, &p) == 0);
    CHECK(coro_self() == NULL);
    CHECK(!coro_finished(c));
    coro_set_data(c, &p);
    CHECK(coro_get_data(c) == &p);
    for (int i = 0; i < 3; i++) {
        coro_resume(c);
        CHECK_EQ_I64(p.n, i + 1);
        CHECK_EQ_I64(p.seen[i], i * 10);
        CHECK(!coro_finished(c));
        CHECK(coro_self() == NULL);
    }
    coro_resume(c);
    CHECK(coro_finished(c));
    CHECK_EQ_I64(p.n, 4);
    CHECK_EQ_I64(p.seen[3], -1);
    CHECK(p.self == c);
    coro_destroy(c);
}

/* Each level creates and drives the next; every yield must return to its own resumer. */
enum { NEST_DEPTH = 64 };
typedef struct {
    int level;
    int *trace;
    int *trace_n;
} nest_arg;

static void nest_fn(void *arg)
{
    nest_arg *a = arg;
    coro_t *me = coro_self();
    a->trace[(*a->trace_n)++] = a->level;
    if (a->level + 1 < NEST_DEPTH) {
        nest_arg child = {a->level + 1, a->trace, a->trace_n};
        coro_t *c = NULL;
        if (coro_create(&c, nest_fn, &child) != 0) abort();
        coro_resume(c); /* child yields once back to us */
        if (coro_self() != me) abort();
        a->trace[(*a->trace_n)++] = 1000 + a->level;
        coro_resume(c); /* child finishes */
        if (!coro_finished(c)) abort();
        coro_destroy(c);
    }
    coro_yield();
    a->trace[(*a->trace_n)++] = 2000 + a->level;
}

static void deep_nesting(void)
{
    static int trace[NEST_DEPTH * 3 + 8];
    int n = 0;
    nest_arg a = {0, trace, &n};
    coro_t *c = NULL;
    CHECK(coro_create(&c, nest_fn, &a) == 0);
    coro_resume(c);
    CHECK(coro_self() == NULL);
    CHECK(!coro_finished(c));
    /* Entering: 0..63, then unwinding: for level 62 down to 0: 1000+L, 2000+L+1. */
    CHECK_EQ_I64(n, NEST_DEPTH + 2 * (NEST_DEPTH - 1));
    for (int i = 0; i < NEST_DEPTH; i++)
        CHECK_EQ_I64(trace[i], i);
    CHECK_EQ_I64(trace[NEST_DEPTH], 1000 + NEST_DEPTH - 2);
    CHECK_EQ_I64(trace[NEST_DEPTH + 1], 2000 + NEST_DEPTH - 1);
    CHECK_EQ_I64(trace[n - 1], 2000 + 1);
    coro_resume(c);
    CHECK(coro_finished(c));
    CHECK_EQ_I64(trace[n - 1], 2000);
    coro_destroy(c);
}

static void counter_fn(void *arg)
{
    int64_t *v = arg;
    int64_t start = *v;
    coro_yield();
    *v = start * 2 + 1;
}

static void ten_thousand_live(void)
{
    enum { N = 10000 };
    coro_t **cs = calloc(N, sizeof *cs);
    int64_t *vals = calloc(N, sizeof *vals);
    CHECK(cs && vals);
    if (!cs || !vals) return;
    int created = 0;
    for (int i = 0; i < N; i++) {
        vals[i] = i;
        if (coro_create(&cs[i], counter_fn, &vals[i]) != 0) break;
        coro_resume(cs[i]);
        created++;
    }
    CHECK_EQ_I64(created, N);
    int64_t sum = 0;
    for (int i = 0; i < created; i++) {
        coro_resume(cs[i]);
        CHECK(coro_finished(cs[i]));
        sum += vals[i];
        coro_destroy(cs[i]);
    }
    CHECK_EQ_I64(sum, (int64_t)N * (N - 1) + N);
    CHECK_EQ_I64(coro_pool_size(), CORO_POOL_MAX);
    coro_pool_drain();
    CHECK_EQ_I64(coro_pool_size(), 0);
    free(cs);
    free(vals);
}

static volatile int overflow_limit = 1 << 30;

static int overflow_recurse(int n)
{
    volatile char buf[1024];
    for (size_t i = 0; i < sizeof buf; i += 64)
        buf[i] = (char)n;
    if (n > overflow_limit) return 0;
    return overflow_recurse(n + 1) + buf[n % 1024];
}

static void overflow_fn(void *arg)
{
    *(int *)arg = overflow_recurse(0);
}

static void big_frame_fn(void *arg)
{
    /* Most of the stack is usable: 200 KiB of locals fits in CORO_STACK_BYTES. */
    volatile char buf[200 * 1024];
    for (size_t i = 0; i < sizeof buf; i += 512)
        buf[i] = (char)i;
    *(int *)arg = buf[512] + buf[sizeof buf - 512];
}

/* Runs body(arg) in a forked child and checks that the child dies of signal sig, with sig's
 * default action (sanitizers' handlers would turn a fault into an abort) and its stderr
 * silenced (an abort's message); a body that returns exits 4, which fails the check. */
static void dies_of(int sig, void (*body)(int), int arg)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        (void)freopen("/dev/null", "w", stderr);
        signal(sig, SIG_DFL);
        body(arg);
        _exit(4);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st));
    if (WIFSIGNALED(st)) CHECK_EQ_I64(WTERMSIG(st), sig);
}

/* A coroutine whose recursion runs off its stack (the guard page must fault). */
static void overflow_child(int unused)
{
    (void)unused;
    int out = 0;
    coro_t *o = NULL;
    if (coro_create(&o, overflow_fn, &out) != 0) _exit(3);
    coro_resume(o);
}

static void stack_overflow_hits_guard(void)
{
    int r = -1;
    coro_t *c = NULL;
    CHECK(coro_create(&c, big_frame_fn, &r) == 0);
    CHECK(coro_stack_usable_bytes(c) >= CORO_STACK_BYTES - 1024);
    coro_resume(c);
    CHECK(coro_finished(c));
    CHECK_EQ_I64(r, (char)512 + (char)(200 * 1024 - 512));
    coro_destroy(c);

    dies_of(SIGSEGV, overflow_child, 0);
}

static void noop_fn(void *arg)
{
    (void)arg;
}

/* The misuses coro.c refuses: each aborts (SIGABRT) rather than switching onto a stack that
 * is running, finished or freed. Which: 0 resumes a finished coroutine, 1 a running one (from
 * itself), 2 destroys a suspended one, 3 resumes a destroyed one, 4 yields from the base. */
static void misuse_self_fn(void *arg)
{
    (void)arg;
    coro_resume(coro_self());
}

static void misuse_yield_fn(void *arg)
{
    (void)arg;
    coro_yield();
}

static void misuse(int which)
{
    coro_t *c = NULL;
    if (which == 1) {
        if (coro_create(&c, misuse_self_fn, NULL) != 0) _exit(3);
        coro_resume(c);
        return;
    }
    if (which == 4) {
        coro_yield();
        return;
    }
    if (coro_create(&c, which == 2 ? misuse_yield_fn : noop_fn, NULL) != 0) _exit(3);
    coro_resume(c);
    if (which == 2) {
        coro_destroy(c);
        return;
    }
    if (which == 3) coro_destroy(c);
    coro_resume(c);
}

static void misuse_aborts(void)
{
    for (int which = 0; which < 5; which++) dies_of(SIGABRT, misuse, which);
}

static void pool_reuse(void)
{
    coro_pool_drain();
    coro_t *a = NULL, *b = NULL;
    CHECK(coro_create(&a, noop_fn, NULL) == 0);
    coro_resume(a);
    coro_destroy(a);
    CHECK_EQ_I64(coro_pool_size(), 1);
    CHECK(coro_create(&b, noop_fn, NULL) == 0);
    CHECK_EQ_I64(coro_pool_size(), 0);
    CHECK(a == b);   /* same mapping, same header slot */
    coro_destroy(b); /* never resumed: goes back too */
    CHECK_EQ_I64(coro_pool_size(), 1);

    enum { N = CORO_POOL_MAX + 10 };
    static coro_t *cs[N];
    for (int i = 0; i < N; i++)
        CHECK(coro_create(&cs[i], noop_fn, NULL) == 0);
    CHECK_EQ_I64(coro_pool_size(), 0);
    for (int i = 0; i < N; i++)
        coro_destroy(cs[i]);
    CHECK_EQ_I64(coro_pool_size(), CORO_POOL_MAX);
    coro_pool_drain();
    CHECK_EQ_I64(coro_pool_size(), 0);
}

static void *stash_thread(void *arg)
{
    coro_t **out = arg;
    CHECK(coro_create(out, noop_fn, NULL) == 0);
    coro_resume(*out);
    coro_destroy(*out);
    coro_pool_drain(); /* as an executor thread ends */
    return NULL;
}

/* A thread's stacks outlive it in the stash, and another thread's coroutine takes one (the
 * same mapping: its header sits at the same place); the stash keeps at most CORO_STASH_MAX,
 * unmapping the rest, and coro_stash_drain empties it. */
static void stash_handoff(void)
{
    coro_pool_drain();
    (void)coro_stash_drain();
    CHECK_EQ_I64(coro_stash_size(), 0);
    coro_t *a = NULL, *b = NULL;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, stash_thread, &a) == 0);
    pthread_join(t, NULL);
    CHECK_EQ_I64(coro_stash_size(), 1);
    CHECK_EQ_I64(coro_pool_size(), 0);
    CHECK(coro_create(&b, noop_fn, NULL) == 0);
    CHECK(a == b);
    CHECK_EQ_I64(coro_stash_size(), 0);
    coro_resume(b);
    coro_destroy(b);

    enum { N = CORO_STASH_MAX + 5 };
    static coro_t *cs[N];
    for (int i = 0; i < N; i++) CHECK(coro_create(&cs[i], noop_fn, NULL) == 0);
    for (int i = 0; i < N; i++) coro_destroy(cs[i]);
    CHECK_EQ_I64(coro_pool_size(), N);
    coro_pool_drain();
    CHECK_EQ_I64(coro_pool_size(), 0);
    CHECK_EQ_I64(coro_stash_size(), CORO_STASH_MAX);
    CHECK_EQ_I64(coro_stash_drain(), CORO_STASH_MAX);
    CHECK_EQ_I64(coro_stash_size(), 0);
}

typedef struct {
    int round_inside[2];
    unsigned csr_inside[2];
} fp_state;

static void fp_fn(void *arg)
{
    fp_state *s = arg;
    fesetround(FE_TOWARDZERO);
    s->round_inside[0] = fegetround();
#if defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() | 0x8040); /* FTZ and DAZ */
    s->csr_inside[0] = _mm_getcsr();
#endif
    coro_yield();
    s->round_inside[1] = fegetround();
#if defined(__x86_64__)
    s->csr_inside[1] = _mm_getcsr();
#endif
}

static void fp_control_preserved(void)
{
    fp_state s = {{0, 0}, {0, 0}};
    int base_round = fegetround();
    CHECK_EQ_I64(base_round, FE_TONEAREST);
#if defined(__x86_64__)
    unsigned base_csr = _mm_getcsr();
    unsigned short base_cw = 0;
    __asm__ volatile("fnstcw %0" : "=m"(base_cw));
#endif
    coro_t *c = NULL;
    CHECK(coro_create(&c, fp_fn, &s) == 0);
    coro_resume(c);
    /* The coroutine changed its rounding and flush modes; ours must be untouched. */
    CHECK_EQ_I64(fegetround(), base_round);
#if defined(__x86_64__)
    CHECK_EQ_I64(_mm_getcsr(), base_csr);
    unsigned short cw = 0;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    CHECK_EQ_I64(cw, base_cw);
#endif
    fesetround(FE_UPWARD); /* and ours changing must not leak into it */
    coro_resume(c);
    CHECK(coro_finished(c));
    CHECK_EQ_I64(fegetround(), FE_UPWARD);
    fesetround(base_round);
    CHECK_EQ_I64(s.round_inside[0], FE_TOWARDZERO);
    CHECK_EQ_I64(s.round_inside[1], FE_TOWARDZERO);
#if defined(__x86_64__)
    CHECK(s.csr_inside[0] & 0x8040);
    CHECK_EQ_I64(s.csr_inside[1], s.csr_inside[0]);
#endif
    coro_destroy(c);
}

static void inherit_fn(void *arg)
{
    *(int *)arg = fegetround();
}

static void new_coro_inherits_fp_control(void)
{
    int seen = -1;
    fesetround(FE_DOWNWARD);
    coro_t *c = NULL;
    CHECK(coro_create(&c, inherit_fn, &seen) == 0);
    fesetround(FE_TONEAREST);
    coro_resume(c);
    CHECK_EQ_I64(seen, FE_DOWNWARD);
    CHECK_EQ_I64(fegetround(), FE_TONEAREST);
    coro_destroy(c);
}

/* Many values live across a switch (register pressure forces callee-saved registers). */
static void regs_fn(void *arg)
{
    volatile int64_t *out = arg;
    int64_t a = out[0], b = a * 3, c = b + 7, d = c ^ 0x55, e = d * 11, f = e - a;
    int64_t g = f + b, h = g * 2, i = h - c, j = i + d;
    double x = (double)a * 1.5, y = x + 0.25, z = y * 3.0;
    coro_yield();
    out[1] = a + b + c + d + e + f + g + h + i + j;
    out[2] = (int64_t)((x + y + z) * 4.0);
}

static void registers_survive(void)
{
    volatile int64_t v[3] = {5, 0, 0};
    int64_t a = 5, b = a * 3, c = b + 7, d = c ^ 0x55, e = d * 11, f = e - a;
    int64_t g = f + b, h = g * 2, i = h - c, j = i + d;
    double x = 7.5, y = x + 0.25, z = y * 3.0;
    coro_t *co = NULL;
    CHECK(coro_create(&co, regs_fn, (void *)v) == 0);
    coro_resume(co);
    coro_resume(co);
    CHECK(coro_finished(co));
    coro_destroy(co);
    CHECK_EQ_I64(v[1], a + b + c + d + e + f + g + h + i + j);
    CHECK_EQ_I64(v[2], (int64_t)((x + y + z) * 4.0));
}

int main(void)
{
    RUN(switch_and_return);
    RUN(deep_nesting);
    RUN(ten_thousand_live);
    RUN(stack_overflow_hits_guard);
    RUN(pool_reuse);
    RUN(stash_handoff);
    RUN(fp_control_preserved);
    RUN(new_coro_inherits_fp_control);
    RUN(registers_survive);
    RUN(misuse_aborts);
    coro_pool_drain();
    (void)coro_stash_drain();
    return CHECK_DONE("test_coro");
}
