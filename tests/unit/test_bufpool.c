/* tests for common/bufpool.c (bufpool_alloc too) and its use by format/vec.c: a large buffer given back on one
 * thread is taken again on another; idle bytes stay within the holders' allowances; nothing
 * is kept while no holder runs. */
#include "check.h"
#include "common/bufpool.h"
#include "format/vec.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

/* No holder: a given block is freed, never kept. */
static void nothing_kept_without_holder(void)
{
    bufpool_give(malloc(MIB), MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
    CHECK(bufpool_take(MIB) == NULL);
}

/* A block given is the one taken for its class; other classes and sizes miss. */
static void take_returns_given(void)
{
    bufpool_hold(8 * MIB);
    uint8_t *p = malloc(2 * MIB);
    memset(p, 7, 2 * MIB);
    bufpool_give(p, 2 * MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(2 * MIB));
    CHECK(bufpool_take(MIB) == NULL);
    CHECK(bufpool_take(4 * MIB) == NULL);
    CHECK(bufpool_take(3 * MIB) == NULL); /* not a class */
    CHECK(bufpool_take(2 * MIB) == p);
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
    CHECK(p[2 * MIB - 1] == 7); /* the block whole */
    bufpool_give(p, 3 * MIB - 5); /* not a class: freed */
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
    bufpool_give(malloc(BUFPOOL_MIN / 2), BUFPOOL_MIN / 2); /* below the classes: freed */
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
    bufpool_drop(8 * MIB);
}

/* bufpool_alloc: past half the smallest class a class's block (the idle one given back, else
 * a new one of the class's size), smaller sizes exactly; every block usable to its cap. */
static void alloc_rounds_to_classes(void)
{
    bufpool_hold(16 * MIB);
    size_t cap = 0;
    uint8_t *p = bufpool_alloc(MIB + 1, &cap);
    CHECK(p != NULL);
    CHECK_EQ_I64((int64_t)cap, (int64_t)(2 * MIB));
    memset(p, 1, cap); /* the whole class is the block's */
    bufpool_give(p, cap);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(2 * MIB));
    uint64_t taken = bufpool_taken();
    size_t cap2 = 0;
    CHECK(bufpool_alloc(2 * MIB, &cap2) == p); /* the idle block again */
    CHECK_EQ_I64((int64_t)cap2, (int64_t)(2 * MIB));
    CHECK_EQ_I64((int64_t)(bufpool_taken() - taken), 1);
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
    bufpool_give(p, cap2);
    uint8_t *s = bufpool_alloc(BUFPOOL_MIN / 2, &cap); /* small: its own size, not pooled */
    CHECK(s != NULL);
    CHECK_EQ_I64((int64_t)cap, (int64_t)(BUFPOOL_MIN / 2));
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(2 * MIB));
    bufpool_give(s, cap); /* below the classes: freed */
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(2 * MIB));
    uint8_t *z = bufpool_alloc(0, &cap);
    CHECK(z != NULL);
    CHECK_EQ_I64((int64_t)cap, 0);
    bufpool_give(z, cap);
    size_t big = BUFPOOL_MAX + 1; /* past the classes: its own size */
    uint8_t *h = bufpool_alloc(big, &cap);
    CHECK(h != NULL);
    CHECK_EQ_I64((int64_t)cap, (int64_t)big);
    bufpool_give(h, cap);
    bufpool_drop(16 * MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
}

/* Idle bytes stay within the allowances summed; a drop trims to what the others allow and
 * the last drop empties the pool. */
static void idle_within_allowances(void)
{
    bufpool_hold(4 * MIB);
    bufpool_hold(2 * MIB);
    for (int i = 0; i < 8; i++) bufpool_give(malloc(MIB), MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(6 * MIB));
    bufpool_drop(4 * MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(2 * MIB));
    bufpool_drop(2 * MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
    CHECK(bufpool_take(MIB) == NULL);
}

/* A holder's end may keep idle blocks for the next (within its keep and BUFPOOL_KEEP_MAX):
 * gives with no holder keep within it too, a take counts, and bufpool_release empties it. */
static void kept_between_holders(void)
{
    bufpool_hold(8 * MIB);
    for (int i = 0; i < 6; i++) bufpool_give(malloc(MIB), MIB);
    bufpool_drop_keep(8 * MIB, 4 * MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(4 * MIB)); /* trimmed to the keep */
    bufpool_give(malloc(MIB), MIB);                             /* no holder: over the keep */
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(4 * MIB));
    uint64_t taken = bufpool_taken();
    void *p = bufpool_take(MIB);
    CHECK(p != NULL);
    CHECK_EQ_I64((int64_t)(bufpool_taken() - taken), 1);
    bufpool_give(p, MIB); /* no holder, within the keep: kept */
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(4 * MIB));
    bufpool_hold(2 * MIB); /* a holder allowing less: the kept blocks are only taken */
    bufpool_give(malloc(MIB), MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(4 * MIB));
    bufpool_release(); /* a holder runs: nothing done */
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(4 * MIB));
    bufpool_drop_keep(2 * MIB, (size_t)1 << 40); /* keep capped: at most BUFPOOL_KEEP_MAX */
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(4 * MIB));
    bufpool_release();
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
    bufpool_give(malloc(MIB), MIB); /* released: nothing kept until the next drop_keep */
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
}

/* The idle blocks are counted: at most BUFPOOL_IDLE_BLOCKS_MAX, whatever the bytes allow. */
static void idle_blocks_capped(void)
{
    bufpool_hold(BUFPOOL_ALLOW_MAX);
    for (int i = 0; i < BUFPOOL_IDLE_BLOCKS_MAX + 10; i++)
        bufpool_give(malloc(BUFPOOL_MIN), BUFPOOL_MIN);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)BUFPOOL_IDLE_BLOCKS_MAX * (int64_t)BUFPOOL_MIN);
    bufpool_drop(BUFPOOL_ALLOW_MAX);
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
}

static void *give_on_thread(void *p)
{
    bufpool_give(p, 4 * MIB);
    return NULL;
}

/* A vector grown on this thread, its buffer given back on another (a consumer releasing a
 * core's batch): the next vector grown here takes that block, with the old contents copied
 * when a vector grows into a taken block. */
static void vec_reuses_across_threads(void)
{
    bufpool_hold(64 * MIB);
    pq_vec v;
    pq_vec_init(&v, PQ_INT64, 0);
    CHECK(pq_vec_reserve(&v, (int64_t)(4 * MIB / 8), 0) == 0);
    CHECK_EQ_I64(v.values_cap, (int64_t)(4 * MIB));
    uint8_t *block = v.values;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, give_on_thread, block) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    v.values = NULL, v.values_cap = 0; /* given away above */
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(4 * MIB));
    pq_vec_free(&v);
    pq_vec_init(&v, PQ_INT64, 0);
    CHECK(pq_vec_reserve(&v, (int64_t)(2 * MIB / 8), 0) == 0); /* 2 MiB: a miss */
    int64_t *x = (int64_t *)v.values;
    for (int64_t i = 0; i < (int64_t)(2 * MIB / 8); i++) x[i] = i * 3;
    v.length = (int64_t)(2 * MIB / 8);
    CHECK(pq_vec_reserve(&v, 1, 0) == 0); /* grows to 4 MiB: the given block */
    CHECK(v.values == block);
    x = (int64_t *)v.values;
    CHECK_EQ_I64(x[0], 0);
    CHECK_EQ_I64(x[(int64_t)(2 * MIB / 8) - 1], ((int64_t)(2 * MIB / 8) - 1) * 3);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(2 * MIB)); /* the 2 MiB one, given back */
    int64_t validity = v.validity_cap; /* 64 KiB: a class too */
    CHECK_EQ_I64(validity, (int64_t)BUFPOOL_MIN);
    pq_vec_free(&v);
    CHECK_EQ_I64((int64_t)bufpool_idle(), (int64_t)(6 * MIB) + validity);
    bufpool_drop(64 * MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
}

static _Atomic int churning;

/* Gives and takes a block in a loop, so the pool's lock is often held, until told to stop. */
static void *churn(void *arg)
{
    (void)arg;
    while (atomic_load(&churning)) {
        void *p = bufpool_take(MIB);
        bufpool_give(p ? p : malloc(MIB), MIB);
    }
    return NULL;
}

/* Forks while another thread works the pool: each child uses the pool at once and exits 0;
 * a child that inherited the lock held would wait forever (its alarm kills it). */
static void fork_while_busy(void)
{
    bufpool_hold(8 * MIB);
    atomic_store(&churning, 1);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, churn, NULL) == 0);
    int ok = 0, forks = 200;
    for (int i = 0; i < forks && ok == i; i++) { /* the first child that hangs ends it */
        pid_t pid = fork();
        if (pid == 0) {
            alarm(2);
            bufpool_give(bufpool_take(MIB), MIB);
            _exit(bufpool_idle() <= 8 * MIB ? 0 : 1);
        }
        int st = 0;
        if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) ok++;
    }
    atomic_store(&churning, 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_EQ_I64(ok, forks);
    bufpool_drop(8 * MIB);
    CHECK_EQ_I64((int64_t)bufpool_idle(), 0);
}

int main(void)
{
    RUN(nothing_kept_without_holder);
    RUN(take_returns_given);
    RUN(alloc_rounds_to_classes);
    RUN(idle_within_allowances);
    RUN(kept_between_holders);
    RUN(idle_blocks_capped);
    RUN(vec_reuses_across_threads);
    RUN(fork_while_busy);
    return CHECK_DONE("test_bufpool");
}
