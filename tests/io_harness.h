/* tests/io_harness.h: runs one test case as a task on a fresh one-core executor, on the
 * io_uring backend and on the pread fallback (test_io.c, test_io_map.c), and the pattern
 * file they read (byte i is pat(i)). Include after check.h, io/io.h and runtime/exec.h.
 * both(fn) runs fn on each backend; before_each, when set, runs on the test's thread before
 * each of them (a case that changes its file remakes it). */
#ifndef RINGSCAN_TESTS_IO_HARNESS_H
#define RINGSCAN_TESTS_IO_HARNESS_H
#include <fcntl.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static exec_io_backend g_backend;
static atomic_int g_task_done;
static void (*before_each)(void);

static uint8_t pat(uint64_t i) { return (uint8_t)(i * 131u + (i >> 8) + 7u); }

/* True when b holds exactly the len pattern bytes from file offset off. */
static bool bytes_match(const io_bytes *b, uint64_t off, uint64_t len)
{
    if (!b || b->len != len) return false;
    for (uint64_t i = 0; i < len; i++)
        if (b->data[i] != pat(off + i)) return false;
    return true;
}

/* (Re)writes path with n pattern bytes. */
static void write_pattern(const char *path, size_t n)
{
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    CHECK(fd >= 0);
    uint8_t *buf = malloc(n);
    CHECK(buf != NULL);
    for (size_t i = 0; buf && i < n; i++) buf[i] = pat(i);
    CHECK(buf && write(fd, buf, n) == (ssize_t)n);
    free(buf);
    close(fd);
}

typedef void (*case_fn)(void);
static case_fn g_case;

static void case_task(void *arg)
{
    (void)arg;
    g_case();
    atomic_store(&g_task_done, 1);
}

/* The task could not be created (never expected here): ends the wait, fails the test. */
static void case_not_spawned(void *arg, int missing, int status)
{
    (void)arg;
    CHECK(missing == 1 && status < 0 && 0);
    atomic_store(&g_task_done, 1);
}

/* Runs fn as one task on a fresh one-core executor with the current backend. */
static void on_core(case_fn fn)
{
    exec_opts_t o = exec_opts_default();
    o.io_backend = g_backend;
    exec_group_t *g = NULL;
    int rc = exec_group_start(&g, &o);
    if (rc != 0 && g_backend == EXEC_IO_URING && rc != -ENOMEM) {
        SKIP_URING(strerror(-rc)); /* containers without io_uring */
        return;
    }
    CHECK(rc == 0);
    if (!g) return;
    exec_stats_t st;
    exec_group_stats(g, 0, &st);
    CHECK(st.uring == (g_backend == EXEC_IO_URING));
    g_case = fn;
    atomic_store(&g_task_done, 0);
    CHECK(exec_group_spawn(g, 0, case_task, NULL, 1, case_not_spawned) == 0);
    for (int i = 0; i < 200000 && !atomic_load(&g_task_done); i++) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    CHECK(atomic_load(&g_task_done));
    exec_group_stop(g);
    exec_group_stats(g, 0, &st);
    CHECK_EQ_I64(st.live_tasks_at_exit, 0);
    exec_group_destroy(g);
}

static void both(case_fn fn)
{
    if (before_each) before_each();
    g_backend = EXEC_IO_URING;
    on_core(fn);
    if (before_each) before_each();
    g_backend = EXEC_IO_PREAD;
    on_core(fn);
}

#endif
