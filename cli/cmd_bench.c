/* cli/cmd_bench.c: `ringscan bench` (the scan benchmark, bench/bench_scan.h) and
 * `ringscan bench runtime` (the runtime micro-benchmarks, bench/bench_runtime.h): option
 * parsing and dispatch only.
 *
 * Exit status: 0 ok; 1 an error or (scan bench) a count/checksum that differs from the data
 * model; 2 bad usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_runtime.h"
#include "bench/bench_scan.h"
#include "cli/cli.h"

static int usage(const char *msg)
{
    if (msg) fprintf(stderr, "ringscan: bench: %s\n", msg);
    fprintf(stderr,
            "usage: ringscan bench [--sf N] [--data DIR] [--shapes a,b,...] "
            "[--policies lazy,eager,adaptive]\n"
            "         [--io auto|uring|pread] [--threads N] [--rounds N] [--json FILE] "
            "[--chart FILE.png|FILE.svg] [--seed S] [--no-floor] [--no-aa]\n"
            "         [--store sim:ttfb=50ms,bw=500MB/s,conns=64] [--fetch-budget BYTES]\n"
            "       ringscan bench runtime [--rounds N] [--data DIR] [--json FILE]\n"
            "shapes:");
    for (int i = 0; i < SHAPE_COUNT; i++) fprintf(stderr, " %s", bench_shapes[i].name);
    fprintf(stderr, "\n");
    return 2;
}

static bool parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static int parse_shapes(bench_scan_opts *o, const char *list)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (int i = 0; i < SHAPE_COUNT; i++) o->shape_on[i] = false;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const bench_shape *s = shape_find(t);
        if (!s) return fprintf(stderr, "ringscan: bench: no shape '%s'\n", t), -1;
        o->shape_on[s->id] = true;
    }
    return 0;
}

static int parse_policies(bench_scan_opts *o, const char *list)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    o->npolicies = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        scan_policy p;
        if (strcmp(t, "lazy") == 0) p = SCAN_LAZY;
        else if (strcmp(t, "eager") == 0) p = SCAN_EAGER;
        else if (strcmp(t, "adaptive") == 0) p = SCAN_ADAPTIVE;
        else return -1;
        for (int i = 0; i < o->npolicies; i++)
            if (o->policies[i] == p) return -1;
        o->policies[o->npolicies++] = p;
    }
    return o->npolicies > 0 ? 0 : -1;
}

/* One option with a value. 0 or -1. */
static int scan_opt(bench_scan_opts *o, const char *k, const char *v)
{
    if (strcmp(k, "--sf") == 0) {
        char *end;
        o->sf = strtod(v, &end);
        return *end || !(o->sf > 0 && o->sf <= 1000) ? -1 : 0;
    }
    if (strcmp(k, "--data") == 0) return snprintf(o->data_dir, sizeof o->data_dir, "%s", v), 0;
    if (strcmp(k, "--shapes") == 0) return parse_shapes(o, v);
    if (strcmp(k, "--policies") == 0) return parse_policies(o, v);
    if (strcmp(k, "--threads") == 0) return parse_int(v, 1, EXEC_THREADS_MAX, &o->threads) ? 0 : -1;
    if (strcmp(k, "--rounds") == 0) return parse_int(v, 1, BENCH_ROUNDS_MAX, &o->rounds) ? 0 : -1;
    if (strcmp(k, "--json") == 0) return o->json_path = v, 0;
    if (strcmp(k, "--store") == 0) return o->store = v, 0;
    if (strcmp(k, "--fetch-budget") == 0) {
        char *end;
        errno = 0;
        long long b = strtoll(v, &end, 10);
        return errno || end == v || *end || b < 0 ? -1 : (o->fetch_budget = b, 0);
    }
    if (strcmp(k, "--chart") == 0) {
        size_t n = strlen(v); /* the chart's format is its name's: FILE.png or FILE.svg */
        if (n < 5 || (strcmp(v + n - 4, ".png") != 0 && strcmp(v + n - 4, ".svg") != 0)) return -1;
        return o->chart_path = v, 0;
    }
    if (strcmp(k, "--seed") == 0) {
        int s;
        if (!parse_int(v, 0, 1 << 30, &s)) return -1;
        o->seed = (uint64_t)s;
        return 0;
    }
    if (strcmp(k, "--io") == 0) {
        if (strcmp(v, "uring") == 0) o->io = EXEC_IO_URING;
        else if (strcmp(v, "pread") == 0) o->io = EXEC_IO_PREAD;
        else if (strcmp(v, "auto") == 0) o->io = EXEC_IO_AUTO;
        else return -1;
        return 0;
    }
    return -1;
}

static int bench_runtime_cmd(int argc, char **argv)
{
    bench_runtime_opts o;
    bench_runtime_opts_default(&o);
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return usage("option needs a value");
        i++;
        if (strcmp(k, "--json") == 0) o.json_path = v;
        else if (strcmp(k, "--data") == 0) snprintf(o.data_dir, sizeof o.data_dir, "%s", v);
        else if (strcmp(k, "--rounds") == 0) {
            if (!parse_int(v, 1, 100, &o.rounds)) return usage("--rounds must be 1..100");
        } else return usage(NULL);
    }
    return bench_runtime_main(&o);
}

int cmd_bench(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "runtime") == 0) return bench_runtime_cmd(argc, argv);
    bench_scan_opts o;
    bench_scan_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (strcmp(k, "--no-floor") == 0) o.floor = false;
        else if (strcmp(k, "--no-aa") == 0) o.aa = false;
        else if (strcmp(k, "-h") == 0 || strcmp(k, "--help") == 0) return usage(NULL);
        else if (i + 1 >= argc) return usage("option needs a value");
        else if (scan_opt(&o, k, argv[i + 1]) != 0) {
            fprintf(stderr, "ringscan: bench: bad option or value: %s %s\n", k, argv[i + 1]);
            return usage(NULL);
        } else i++;
    }
    return bench_scan_main(&o);
}
