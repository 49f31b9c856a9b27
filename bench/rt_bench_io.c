/* bench/rt_bench_io.c: random 4 KiB read throughput of runtime/exec + io/ versus fio.
 *
 * Owns: the benchmark file helper, the per-core benchmark tasks and the fio runner.
 * Design: per core one io_ctx (coalescing off) and queue_depth tasks; each task awaits one
 * read at a time at xorshift-random 4 KiB-aligned offsets, so the core keeps queue_depth
 * reads in flight. The last task of a core records its end time and frees the context.
 * Invariants:
 *  1. Every read is checked (status 0, 4096 bytes) and folded into a checksum.
 *  2. The main thread only polls atomics until every core reported done, then stops.
 *  3. Bounded: threads <= EXEC_THREADS_MAX, queue_depth <= RT_BENCH_QD_MAX, polling loop
 *     bounded by a deadline. */
#include "bench/rt_bench_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/io.h"

enum { RT_BENCH_QD_MAX = 4096, RT_BENCH_BS = 4096 };

typedef struct rt_core {
    struct rt_bench *b;
    int index;
    io_ctx_t *ctx;
    uint64_t reads_per_worker, extra; /* the first `extra` workers do one more read */
    int workers_left;
    uint64_t checksum, errors, start_ns, end_ns;
    io_counters_t counters;
    atomic_int done;
} rt_core;

typedef struct rt_worker {
    rt_core *core;
    uint64_t reads, rng;
} rt_worker;

typedef struct rt_bench {
    io_file_t *file;
    int qd;
    rt_core *cores;
    rt_worker *workers; /* threads * qd */
} rt_bench;

static uint64_t rt_xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void rt_worker_task(void *arg)
{
    rt_worker *w = arg;
    rt_core *c = w->core;
    uint64_t blocks = c->b->file->size_bytes / RT_BENCH_BS;
    for (uint64_t i = 0; i < w->reads; i++) {
        uint64_t off = (rt_xorshift(&w->rng) % blocks) * RT_BENCH_BS;
        fut_t *f = io_read(c->ctx, c->b->file, off, RT_BENCH_BS);
        if (!f || fut_await(f) != 0) {
            c->errors++;
        } else {
            io_bytes *v = fut_value(f);
            c->checksum += v->len == RT_BENCH_BS ? v->data[0] : 0;
            c->errors += v->len != RT_BENCH_BS;
        }
        if (f) fut_unref(f);
    }
    if (--c->workers_left > 0) return;
    c->end_ns = exec_now_ns();
    io_ctx_counters(c->ctx, &c->counters);
    io_ctx_free(c->ctx);
    atomic_store(&c->done, 1);
}

/* Runs on a core: makes its context and spawns its workers. */
static void rt_core_start(void *arg)
{
    rt_core *c = arg;
    io_opts_t o = io_opts_default();
    o.coalesce = false;
    c->start_ns = exec_now_ns();
    if (io_ctx_new(&c->ctx, exec_current(), &o) != 0) {
        c->errors++;
        atomic_store(&c->done, 1);
        return;
    }
    c->workers_left = c->b->qd;
    for (int i = 0; i < c->b->qd; i++) {
        rt_worker *w = &c->b->workers[c->index * c->b->qd + i];
        w->core = c;
        w->reads = c->reads_per_worker + ((uint64_t)i < c->extra ? 1 : 0);
        w->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)c->index << 32) ^ (uint64_t)(i + 1);
        if (sched_spawn(rt_worker_task, w) != 0) {
            c->errors++;
            c->workers_left--; /* never started: counts as done */
        }
    }
    if (c->workers_left == 0) {
        io_ctx_free(c->ctx);
        atomic_store(&c->done, 1);
    }
}

static void rt_collect(rt_bench *b, int threads, rt_bench_io_result *out)
{
    uint64_t start = UINT64_MAX, end = 0;
    for (int i = 0; i < threads; i++) {
        rt_core *c = &b->cores[i];
        if (c->start_ns < start) start = c->start_ns;
        if (c->end_ns > end) end = c->end_ns;
        out->checksum += c->checksum;
        out->bytes_read += c->counters.bytes_read;
        out->reads_submitted += c->counters.reads_submitted;
    }
    out->seconds = end > start ? (double)(end - start) / 1e9 : 0;
    out->iops = out->seconds > 0 ? (double)out->reads / out->seconds : 0;
}

/* Polls until every core is done (bounded by 10 minutes). Returns 0 or -ETIMEDOUT. */
static int rt_wait_cores(rt_bench *b, int threads)
{
    uint64_t deadline = exec_now_ns() + 600ull * 1000000000ull;
    for (int i = 0; i < threads; i++) {
        while (!atomic_load(&b->cores[i].done)) {
            if (exec_now_ns() > deadline) return -ETIMEDOUT;
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

static int rt_run_group(rt_bench *b, int threads, uint64_t total, exec_io_backend backend,
                        rt_bench_io_result *out, char *err, size_t errlen)
{
    exec_opts_t o = exec_opts_default();
    o.threads = threads;
    o.pin = true;
    o.io_backend = backend;
    o.queue_depth = (unsigned)(b->qd < 64 ? 64 : b->qd);
    exec_group_t *g = NULL;
    int rc = exec_group_start(&g, &o);
    if (rc != 0) {
        snprintf(err, errlen, "executor start failed: %s", strerror(-rc));
        return rc;
    }
    for (int i = 0; i < threads; i++) {
        rt_core *c = &b->cores[i];
        uint64_t share = total / (uint64_t)threads + ((uint64_t)i < total % (uint64_t)threads);
        c->b = b;
        c->index = i;
        c->reads_per_worker = share / (uint64_t)b->qd;
        c->extra = share % (uint64_t)b->qd;
        rc = exec_post(exec_group_core(g, i), rt_core_start, c);
        if (rc != 0) break;
    }
    if (rc == 0) rc = rt_wait_cores(b, threads);
    exec_stats_t st;
    exec_group_stats(g, 0, &st);
    snprintf(out->io_backend, sizeof out->io_backend, "%s", st.io_backend);
    exec_group_stop(g);
    exec_group_destroy(g);
    if (rc != 0) {
        snprintf(err, errlen, "benchmark did not finish: %s", strerror(-rc));
        return rc;
    }
    rt_collect(b, threads, out);
    uint64_t errors = 0;
    for (int i = 0; i < threads; i++) errors += b->cores[i].errors;
    if (errors) {
        snprintf(err, errlen, "%" PRIu64 " reads failed", errors);
        return -EIO;
    }
    return 0;
}

int rt_bench_io_randread(const char *path, int threads, int queue_depth, uint64_t total_reads,
                         exec_io_backend backend, rt_bench_io_result *out, char *err,
                         size_t errlen)
{
    if (!path || !out || threads < 1 || threads > EXEC_THREADS_MAX || queue_depth < 1 ||
        queue_depth > RT_BENCH_QD_MAX || total_reads == 0) {
        snprintf(err, errlen, "bad arguments");
        return -EINVAL;
    }
    memset(out, 0, sizeof *out);
    out->threads = threads;
    out->queue_depth = queue_depth;
    out->reads = total_reads;
    rt_bench b = {.qd = queue_depth};
    int rc = io_file_open(&b.file, path, err, errlen);
    if (rc != 0) return rc;
    if (b.file->size_bytes < RT_BENCH_BS) {
        snprintf(err, errlen, "%s: smaller than 4 KiB", path);
        io_file_close(b.file);
        return -EINVAL;
    }
    b.cores = calloc((size_t)threads, sizeof *b.cores);
    b.workers = calloc((size_t)threads * (size_t)queue_depth, sizeof *b.workers);
    if (!b.cores || !b.workers) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
    } else {
        rc = rt_run_group(&b, threads, total_reads, backend, out, err, errlen);
    }
    free(b.cores);
    free(b.workers);
    io_file_close(b.file);
    return rc;
}

int rt_bench_io_make_file(const char *path, uint64_t size_bytes, char *err, size_t errlen)
{
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
    if (fd < 0) {
        int rc = -errno;
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(-rc));
        return rc;
    }
    enum { CHUNK = 1 << 20 };
    uint64_t *buf = malloc(CHUNK), s = 88172645463325252ull;
    int rc = buf ? 0 : -ENOMEM;
    for (uint64_t done = 0; rc == 0 && done < size_bytes;) {
        size_t n = size_bytes - done < CHUNK ? (size_t)(size_bytes - done) : CHUNK;
        for (size_t i = 0; i < CHUNK / 8; i++) buf[i] = rt_xorshift(&s);
        ssize_t w = write(fd, buf, n);
        if (w <= 0) rc = w < 0 ? -errno : -EIO;
        else done += (uint64_t)w;
    }
    for (uint64_t off = 0; rc == 0 && off < size_bytes; off += CHUNK) /* into the page cache */
        if (pread(fd, buf, CHUNK, (off_t)off) < 0) rc = -errno;
    free(buf);
    close(fd);
    if (rc != 0) snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-rc));
    return rc;
}

/* Field 8 (1-based) of fio's terse v3 line is the read IOPS. */
static int rt_parse_terse(const char *line, double *iops)
{
    const char *p = line;
    for (int field = 1; field < 8; field++) {
        p = strchr(p, ';');
        if (!p) return -EIO;
        p++;
    }
    char *end;
    double v = strtod(p, &end);
    if (end == p || *end != ';' || v <= 0) return -EIO;
    *iops = v;
    return 0;
}

int rt_bench_io_fio(const char *path, int queue_depth, int runtime_s, double *iops_out,
                    char *err, size_t errlen)
{
    if (access("/usr/bin/fio", X_OK) != 0 && system("command -v fio >/dev/null 2>&1") != 0) {
        snprintf(err, errlen, "fio not found (apt-get install fio)");
        return -1;
    }
    if (!path || strchr(path, '\'') || queue_depth < 1 || runtime_s < 1) {
        snprintf(err, errlen, "bad arguments");
        return -EINVAL;
    }
    char cmd[4096 + 512];
    snprintf(cmd, sizeof cmd,
             "fio --name=rt --filename='%s' --ioengine=io_uring --rw=randread --bs=4k "
             "--iodepth=%d --direct=0 --invalidate=0 --numjobs=1 --runtime=%d --time_based "
             "--output-format=terse --terse-version=3 2>&1",
             path, queue_depth, runtime_s);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(err, errlen, "cannot run fio: %s", strerror(errno));
        return -EIO;
    }
    char line[8192], first[256] = "";
    int rc = -EIO;
    while (fgets(line, sizeof line, p)) {
        if (!first[0]) snprintf(first, sizeof first, "%s", line);
        if (strncmp(line, "3;", 2) == 0 && rt_parse_terse(line, iops_out) == 0) rc = 0;
    }
    int status = pclose(p);
    if (rc != 0 || status != 0) {
        snprintf(err, errlen, "fio failed (status %d): %s", status, first);
        return -EIO;
    }
    return 0;
}
