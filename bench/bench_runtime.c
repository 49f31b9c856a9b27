/* bench/bench_runtime.c: `ringscan bench runtime` (see bench_runtime.h for the figures and
 * targets).
 *
 * Invariants:
 *  1. Every benchmark runs once per round; the order inside a round is rotated by the round
 *     number so no benchmark always runs first (warm-up) or last (heat).
 *  2. Medians only; the A/A pair (two identical 1-core read runs per round) shows the noise.
 *  3. Bounded: rounds <= 100; each read run does a fixed number of reads. */
#include "bench/bench_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench/rt_bench_coro.h"
#include "bench/rt_bench_io.h"

enum {
    RT_SWITCH_ITERS = 5000000,
    RT_SWAPCTX_ITERS = 500000,
    RT_FCONTEXT_ITERS = 5000000,
    RT_FUTURE_ITERS = 1000000,
    RT_QD = 32,
    RT_READS_1 = 600000,
    RT_READS_2 = 1200000,
    RT_FIO_SECONDS = 2,
    RT_ROUNDS_MAX = 100,
};

typedef enum {
    M_SWITCH, M_SWITCH_AA, M_FCONTEXT, M_SWAPCTX, M_FUTURE, /* the switch metrics, then reads */
    M_READ1, M_READ1B, M_READ2, M_FIO, M_COUNT
} metric;
enum { M_SWITCH_COUNT = M_READ1 }; /* --switch-only runs metrics [0, M_SWITCH_COUNT) */

static const char *const metric_name[M_COUNT] = {
    "coro_switch_ns", "coro_switch_ns_aa", "fcontext_ns", "swapcontext_ns",
    "future_roundtrip_ns", "reads_per_s_1core", "reads_per_s_1core_aa", "reads_per_s_2core",
    "fio_reads_per_s_1job"};

typedef struct rt_state {
    const bench_runtime_opts *o;
    char path[BENCH_PATH_MAX + 32];
    double v[M_COUNT][RT_ROUNDS_MAX];
    double med[M_COUNT];
    bool fio_ok;
    char fio_msg[512], backend[EXEC_BACKEND_MSG_MAX];
} rt_state;

void bench_runtime_opts_default(bench_runtime_opts *o)
{
    bench_scan_opts so;
    bench_scan_opts_default(&so);
    memset(o, 0, sizeof *o);
    o->rounds = 5;
    o->io = EXEC_IO_AUTO;
    snprintf(o->data_dir, sizeof o->data_dir, "%s", so.data_dir);
}

/* Runs metric m for round k; 0 or 1 (printed). */
static int run_metric(rt_state *s, metric m, int k)
{
    char err[512] = "";
    rt_bench_io_result r;
    int rc = 0;
    double *out = &s->v[m][k];
    switch (m) {
    case M_SWITCH:
    case M_SWITCH_AA: *out = rt_bench_switch_ns(RT_SWITCH_ITERS); break;
    case M_FCONTEXT: *out = rt_bench_fcontext_ns(RT_FCONTEXT_ITERS); break;
    case M_SWAPCTX: *out = rt_bench_swapcontext_ns(RT_SWAPCTX_ITERS); break;
    case M_FUTURE: *out = rt_bench_future_roundtrip_ns(RT_FUTURE_ITERS); break;
    case M_READ1:
    case M_READ1B:
    case M_READ2:
        rc = rt_bench_io_randread(s->path, m == M_READ2 ? 2 : 1, RT_QD,
                                  m == M_READ2 ? RT_READS_2 : RT_READS_1, s->o->io, &r, err,
                                  sizeof err);
        *out = r.iops;
        if (rc == 0) snprintf(s->backend, sizeof s->backend, "%s", r.io_backend);
        break;
    case M_FIO:
        if (!s->fio_ok) break;
        if (rt_bench_io_fio(s->path, RT_QD, RT_FIO_SECONDS, out, s->fio_msg, sizeof s->fio_msg)) {
            s->fio_ok = false;
            *out = 0;
        }
        break;
    default: break;
    }
    if (rc != 0 || *out < 0)
        return fprintf(stderr, "ringscan: bench runtime: %s: %s\n", metric_name[m],
                       err[0] ? err : strerror(-(int)(rc ? rc : *out))), 1;
    return 0;
}

static int prepare_file(rt_state *s)
{
    if (mkdir(s->o->data_dir, 0755) != 0 && errno != EEXIST)
        return fprintf(stderr, "ringscan: bench runtime: mkdir %s: %s\n", s->o->data_dir,
                       strerror(errno)), 1;
    snprintf(s->path, sizeof s->path, "%s/rt_bench_randread.bin", s->o->data_dir);
    struct stat st;
    char err[512];
    if (stat(s->path, &st) == 0 && (uint64_t)st.st_size == BENCH_RT_FILE_BYTES) {
        rt_bench_io_result r; /* one pass to pull it into the page cache */
        return rt_bench_io_randread(s->path, 1, RT_QD, BENCH_RT_FILE_BYTES / 4096, s->o->io, &r,
                                    err, sizeof err) ? (fprintf(stderr, "ringscan: bench runtime: %s\n", err), 1) : 0;
    }
    fprintf(stderr, "ringscan: bench runtime: writing %s (1 GiB)...\n", s->path);
    if (rt_bench_io_make_file(s->path, BENCH_RT_FILE_BYTES, err, sizeof err) != 0)
        return fprintf(stderr, "ringscan: bench runtime: %s\n", err), 1;
    return 0;
}

/* The switch lines: ringscan's switch against Boost.Context's jump_fcontext (target <= 1.2x)
 * and glibc's swapcontext (target >= 10x faster), with the switch's own A/A. */
static void print_switch(const rt_state *s)
{
    const double *m = s->med;
    double vs_fc = m[M_SWITCH] / m[M_FCONTEXT];
    printf("%-34s %14.2f %14.2f %8.2fx %s\n", "coroutine switch ns (vs fcontext)", m[M_SWITCH],
           m[M_FCONTEXT], vs_fc, vs_fc <= 1.2 ? "<= 1.2x: met" : "<= 1.2x: NOT met");
    printf("%-34s %14.2f %14.2f %8.1fx %s\n", "coroutine switch ns (vs swapcontext)", m[M_SWITCH],
           m[M_SWAPCTX], m[M_SWAPCTX] / m[M_SWITCH],
           m[M_SWAPCTX] / m[M_SWITCH] >= 10 ? ">= 10x: met" : ">= 10x: NOT met");
    printf("%-34s %14.2f %14.2f %8.3fx (noise)\n", "A/A: coroutine switch ns, run twice",
           m[M_SWITCH_AA], m[M_SWITCH], m[M_SWITCH_AA] / m[M_SWITCH]);
    printf("%-34s %14.1f %14s %9s %s\n", "future resolve+wake round trip ns", m[M_FUTURE], "-", "-", "-");
}

static void print_report(const rt_state *s)
{
    const double *m = s->med;
    printf("ringscan bench runtime: %d interleaved rounds, medians; io %s; file %s (page cache)\n",
           s->o->rounds, s->o->switch_only ? "-" : s->backend, s->o->switch_only ? "-" : s->path);
    printf("  switch/fcontext/swapcontext: one-direction context switch (ping-pong / 2); future: new future, await, resolve, wake, resume\n");
    if (!s->o->switch_only)
        printf("  reads/s: random 4 KiB reads at queue depth %d per core; fio: --ioengine=io_uring, 1 job, same file\n", RT_QD);
    printf("%-34s %14s %14s %9s %s\n", "figure", "ringscan", "reference", "ratio", "target");
    print_switch(s);
    if (s->o->switch_only) return;
    if (s->fio_ok)
        printf("%-34s %14.0f %14.0f %8.2fx %s\n", "reads/s 1 core (vs fio 1 job)", m[M_READ1],
               m[M_FIO], m[M_READ1] / m[M_FIO],
               m[M_READ1] / m[M_FIO] >= 0.9 ? ">= 0.9x: met" : ">= 0.9x: NOT met");
    else
        printf("%-34s %14.0f %14s %9s fio comparison skipped: %s\n", "reads/s 1 core", m[M_READ1],
               "-", "-", s->fio_msg);
    printf("%-34s %14.0f %14.0f %8.2fx %s\n", "reads/s 2 cores (vs 1 core)", m[M_READ2],
           m[M_READ1], m[M_READ2] / m[M_READ1],
           m[M_READ2] / m[M_READ1] >= 1.8 ? ">= 1.8x: met" : ">= 1.8x: NOT met");
    printf("%-34s %14.0f %14.0f %8.3fx (noise)\n", "A/A: reads/s 1 core, run twice", m[M_READ1B],
           m[M_READ1], m[M_READ1B] / m[M_READ1]);
}

/* a / b, or 0 when b was not measured (--switch-only), so the JSON never holds nan */
static double rt_ratio(double a, double b)
{
    return b > 0 ? a / b : 0.0;
}

static int write_json(const rt_state *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return fprintf(stderr, "ringscan: bench runtime: %s: %s\n", path, strerror(errno)), 1;
    fprintf(f, "{\"bench\":\"runtime\",\"rounds\":%d,\"queue_depth\":%d,\"io_backend\":\"%s\","
               "\"fio\":%s,\"medians\":{",
            s->o->rounds, RT_QD, s->backend, s->fio_ok ? "true" : "false");
    for (int m = 0; m < M_COUNT; m++)
        fprintf(f, "%s\"%s\":%.3f", m ? "," : "", metric_name[m], s->med[m]);
    fprintf(f, "},\"rounds_values\":{");
    for (int m = 0; m < M_COUNT; m++) {
        fprintf(f, "%s\"%s\":[", m ? "," : "", metric_name[m]);
        for (int k = 0; k < s->o->rounds; k++) fprintf(f, "%s%.3f", k ? "," : "", s->v[m][k]);
        fprintf(f, "]");
    }
    const double *m = s->med;
    fprintf(f, "},\"ratios\":{\"switch_vs_fcontext\":%.3f,\"switch_aa\":%.4f,"
               "\"switch_speedup\":%.3f,\"reads_vs_fio\":%.4f,\"scaling_2core\":%.4f,"
               "\"aa\":%.4f}}\n",
            rt_ratio(m[M_SWITCH], m[M_FCONTEXT]), rt_ratio(m[M_SWITCH_AA], m[M_SWITCH]),
            rt_ratio(m[M_SWAPCTX], m[M_SWITCH]), s->fio_ok ? rt_ratio(m[M_READ1], m[M_FIO]) : 0.0,
            rt_ratio(m[M_READ2], m[M_READ1]), rt_ratio(m[M_READ1B], m[M_READ1]));
    return bench_close_checked(f, path, "bench runtime") ? 1 : 0;
}

int bench_runtime_main(const bench_runtime_opts *o)
{
    static rt_state s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.fio_ok = true;
    if (o->rounds < 1 || o->rounds > RT_ROUNDS_MAX) return 2;
    int n = o->switch_only ? M_SWITCH_COUNT : M_COUNT;
    if (!o->switch_only && prepare_file(&s)) return 1;
    for (int k = 0; k < o->rounds; k++) {
        fprintf(stderr, "ringscan: bench runtime: round %d of %d\n", k + 1, o->rounds);
        for (int j = 0; j < n; j++)
            if (run_metric(&s, (metric)((j + k) % n), k)) return 1;
    }
    for (int m = 0; m < n; m++) s.med[m] = bench_median(s.v[m], o->rounds);
    print_report(&s);
    return o->json_path ? write_json(&s, o->json_path) : 0;
}
