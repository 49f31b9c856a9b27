/* cli/cmd_bench.c: `ringscan bench` (the scan benchmark, bench/bench_scan.h),
 * `ringscan bench runtime` (the runtime micro-benchmarks, bench/bench_runtime.h) and
 * `ringscan bench topk` (Top-K bounds shared between scanners, bench/bench_topk.h): option
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
#include "bench/bench_topk.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/sink.h"

enum bench_opt_id {
    BO_SF, BO_DATA, BO_SHAPES, BO_POLICIES, BO_THREADS, BO_ROUNDS, BO_JSON, BO_STORE,
    BO_FETCH_BUDGET, BO_CHART, BO_SEED, BO_IO, BO_NO_FLOOR, BO_NO_AA, BO_READ_MODE,
    BO_KEPT, BO_CORE_SUM
};

static const char *const bench_ios[] = {"auto", "uring", "pread", NULL}; /* as exec_io_backend */
static const char *const bench_read_modes[] = {"copy", "mmap", NULL}; /* as io_read_mode */
static const exec_io_backend io_of[] = {EXEC_IO_AUTO, EXEC_IO_URING, EXEC_IO_PREAD};

/* Every option `ringscan bench` accepts; the help is printed from it. */
static const cli_opt bench_opts[] = {
    {"--sf", NULL, "N", CLI_REAL, BO_SF, .rlo = 0, .rhi = 1000, .dflt = "1",
     .help = "lineitem scale factor of the data set"},
    {"--data", NULL, "DIR", CLI_TEXT, BO_DATA, .dflt = "bench/data beside the binary",
     .help = "where the generated files are kept (made when missing)"},
    {"--shapes", NULL, "a,b", CLI_TEXT, BO_SHAPES, .dflt = "every shape",
     .help = "the scan shapes to run (listed below)", .once = CLI_ONCE_LIST},
    {"--policies", NULL, "a,b", CLI_TEXT, BO_POLICIES, .dflt = "lazy,eager,adaptive",
     .help = "the read policies to compare", .once = CLI_ONCE_LIST},
    {"--threads", NULL, "N", CLI_INT, BO_THREADS, 1, EXEC_THREADS_MAX, .dflt = "the CPUs",
     .help = "executor cores"},
    {"--rounds", NULL, "N", CLI_INT, BO_ROUNDS, 1, BENCH_ROUNDS_MAX, .dflt = "5",
     .help = "timed runs per entry (the median is reported)"},
    {"--json", NULL, "FILE", CLI_TEXT, BO_JSON, .help = "also write the results as JSON"},
    {"--chart", NULL, "FILE", CLI_TEXT, BO_CHART,
     .help = "also draw the results: FILE.png or FILE.svg"},
    {"--seed", NULL, "S", CLI_INT, BO_SEED, 0, 1 << 30, .dflt = "1", .help = "the data's seed"},
    {"--io", NULL, NULL, CLI_CHOICE, BO_IO, .choices = bench_ios, .dflt = "auto",
     .help = "I/O backend"},
    {"--store", NULL, "SPEC", CLI_TEXT, BO_STORE, .dflt = "the files themselves",
     .help = "through a simulated object store: sim:ttfb=50ms,bw=500MB/s,conns=64"},
    {"--fetch-budget", NULL, "BYTES", CLI_BYTES, BO_FETCH_BUDGET, 0, INT64_MAX, .dflt = "256MiB",
     .help = "the policies' read-ahead budget (N, NKiB, NMiB, NGiB); 0: none"},
    {"--no-floor", NULL, NULL, CLI_FLAG, BO_NO_FLOOR, .help = "skip the bandwidth floor runs"},
    {"--no-aa", NULL, NULL, CLI_FLAG, BO_NO_AA, .help = "skip the A/A noise runs"},
    {"--read-mode", NULL, NULL, CLI_CHOICE, BO_READ_MODE, .choices = bench_read_modes,
     .dflt = "copy", .help = "how the files' bytes reach the decoders: read copies, mmap views"},
    {"--kept", NULL, NULL, CLI_FLAG, BO_KEPT,
     .help = "also run each policy on a runtime kept across scans (POLICY/kept)"},
    {"--core-sum", NULL, NULL, CLI_FLAG, BO_CORE_SUM,
     .help = "sum the checksum on the cores as they build batches (batch_fn)"},
};

static const char *const bench_examples[] = {
    "ringscan bench --sf 0.1 --rounds 3",
    "ringscan bench --shapes lineitem_prune --policies lazy,adaptive --json out.json",
    "ringscan bench --store sim:ttfb=50ms,bw=500MB/s --fetch-budget 64MiB",
    NULL};

const cli_cmd cli_cmd_bench = {
    .name = "bench",
    .usage = "[options] | bench runtime [options] | bench topk [options]",
    .purpose = "Benchmarks scans of generated lineitem files: each shape under each read\n"
               "policy, checked against the data model's counts and checksums. `bench runtime`\n"
               "measures the runtime's primitives (context switch, future, reads).",
    .opts = bench_opts,
    .nopts = sizeof bench_opts / sizeof bench_opts[0],
    .examples = bench_examples,
};

enum bench_runtime_opt_id { BR_JSON, BR_DATA, BR_ROUNDS, BR_SWITCH_ONLY };

static const cli_opt bench_runtime_opts_table[] = {
    {"--rounds", NULL, "N", CLI_INT, BR_ROUNDS, 1, 100, .dflt = "5", .help = "runs per metric"},
    {"--data", NULL, "DIR", CLI_TEXT, BR_DATA, .dflt = "bench/data beside the binary",
     .help = "where the read benchmark's file is kept"},
    {"--json", NULL, "FILE", CLI_TEXT, BR_JSON, .help = "also write the results as JSON"},
    {"--switch-only", NULL, NULL, CLI_FLAG, BR_SWITCH_ONLY,
     .help = "only the switches (vs jump_fcontext, swapcontext), future"},
};

static const char *const bench_runtime_examples[] = {"ringscan bench runtime --rounds 3", NULL};

const cli_cmd cli_cmd_bench_runtime = {
    .name = "bench runtime",
    .usage = "[options]",
    .purpose = "Measures the runtime's primitives: coroutine switch, swapcontext, future\n"
               "round trip, random reads at queue depth 1 and 2.",
    .opts = bench_runtime_opts_table,
    .nopts = sizeof bench_runtime_opts_table / sizeof bench_runtime_opts_table[0],
    .examples = bench_runtime_examples,
};

enum bench_topk_opt_id { BT_DATA, BT_ROUNDS, BT_ROW_GROUPS, BT_RG_ROWS, BT_SEED, BT_IO, BT_NO_AA };

static const cli_opt bench_topk_opts_table[] = {
    {"--data", NULL, "DIR", CLI_TEXT, BT_DATA, .dflt = "bench/data beside the binary",
     .help = "where the topk files are kept (written when missing)"},
    {"--rounds", NULL, "N", CLI_INT, BT_ROUNDS, 1, BENCH_ROUNDS_MAX, .dflt = "5",
     .help = "interleaved rounds (the median is reported)"},
    {"--row-groups", NULL, "N", CLI_INT, BT_ROW_GROUPS, TOPK_BENCH_SCANNERS_MAX, TOPK_BENCH_ROW_GROUPS_MAX,
     .dflt = "32", .help = "row groups of each file"},
    {"--row-group-rows", NULL, "N", CLI_INT, BT_RG_ROWS, 1, 1 << 24, .dflt = "65536",
     .help = "rows per row group"},
    {"--seed", NULL, "S", CLI_INT, BT_SEED, 0, 1 << 30, .dflt = "1", .help = "the data's seed"},
    {"--io", NULL, NULL, CLI_CHOICE, BT_IO, .choices = bench_ios, .dflt = "auto",
     .help = "I/O backend"},
    {"--no-aa", NULL, NULL, CLI_FLAG, BT_NO_AA, .help = "skip the A/A noise arm"},
};

static const char *const bench_topk_examples[] = {
    "ringscan bench topk --rounds 5", "ringscan bench topk --rounds 1 --row-groups 8 --row-group-rows 4096",
    NULL};

const cli_cmd cli_cmd_bench_topk = {
    .name = "bench topk",
    .usage = "[options]",
    .purpose = "ORDER BY score DESC LIMIT 100 over the `gen topk` layouts split among 1, 2 and 8\n"
               "scanners (concurrent scans, then processes exchanging bounds over pipes), the\n"
               "bound shared or not: scan bytes, pruning, cancelled reads, time, and the merged\n"
               "answer checked against the generator's model.",
    .opts = bench_topk_opts_table,
    .nopts = sizeof bench_topk_opts_table / sizeof bench_topk_opts_table[0],
    .examples = bench_topk_examples,
};

static int parse_shapes(bench_scan_opts *o, const char *list)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    const char *names[SHAPE_COUNT];
    for (int i = 0; i < SHAPE_COUNT; i++) o->shape_on[i] = false, names[i] = bench_shapes[i].name;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const bench_shape *s = shape_find(t);
        int at = s ? 0 : cli_nearest(t, names, SHAPE_COUNT);
        if (!s && at >= 0)
            return cli_usage_error(&cli_cmd_bench, "--shapes: no shape '%s' (did you mean %s?)", t,
                                   names[at]);
        if (!s) return cli_usage_error(&cli_cmd_bench, "--shapes: no shape '%s'", t);
        o->shape_on[s->id] = true;
    }
    return 0;
}

static int parse_policies(bench_scan_opts *o, const char *list)
{
    static const char *const names[] = {"lazy", "eager", "adaptive"};
    static const scan_policy of[] = {SCAN_LAZY, SCAN_EAGER, SCAN_ADAPTIVE};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    o->npolicies = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < 3 && strcmp(t, names[k]) != 0) k++;
        if (k == 3)
            return cli_usage_error(&cli_cmd_bench,
                                   "--policies: no policy '%s'; lazy, eager or adaptive", t);
        for (int i = 0; i < o->npolicies; i++)
            if (o->policies[i] == of[k])
                return cli_usage_error(&cli_cmd_bench, "--policies: '%s' twice", t);
        o->policies[o->npolicies++] = of[k];
    }
    return o->npolicies > 0 ? 0 : cli_usage_error(&cli_cmd_bench, "--policies: none given");
}

/* Applies one parsed option of bench_opts to the bench_scan_opts ctx (cli_apply_fn). */
static int apply_opt(void *ctx, const cli_opt *opt, const cli_val *v)
{
    bench_scan_opts *o = ctx;
    switch ((enum bench_opt_id)opt->id) {
    case BO_SF: o->sf = v->r; break;
    case BO_DATA: snprintf(o->data_dir, sizeof o->data_dir, "%s", v->s); break;
    case BO_SHAPES: return parse_shapes(o, v->s);
    case BO_POLICIES: return parse_policies(o, v->s);
    case BO_THREADS: o->threads = (int)v->i; break;
    case BO_ROUNDS: o->rounds = (int)v->i; break;
    case BO_JSON: o->json_path = v->s; break;
    case BO_STORE: o->store = v->s; break;
    case BO_FETCH_BUDGET: o->fetch_budget = v->i; break;
    case BO_CHART: {
        size_t n = strlen(v->s); /* the chart's format is its name's: FILE.png or FILE.svg */
        if (n < 5 || (strcmp(v->s + n - 4, ".png") != 0 && strcmp(v->s + n - 4, ".svg") != 0))
            return cli_usage_error(&cli_cmd_bench, "--chart: '%s' is neither FILE.png nor FILE.svg",
                                   v->s);
        o->chart_path = v->s;
        break;
    }
    case BO_SEED: o->seed = (uint64_t)v->i; break;
    case BO_IO: o->io = io_of[v->i]; break;
    case BO_NO_FLOOR: o->floor = false; break;
    case BO_NO_AA: o->aa = false; break;
    case BO_READ_MODE: o->read_mode = (int)v->i; break;
    case BO_KEPT: o->kept = true; break;
    case BO_CORE_SUM: o->core_sum = true; break;
    }
    return 0;
}

/* Applies one parsed option of bench_runtime_opts_table (cli_apply_fn). */
static int apply_runtime_opt(void *ctx, const cli_opt *opt, const cli_val *v)
{
    bench_runtime_opts *o = ctx;
    switch ((enum bench_runtime_opt_id)opt->id) {
    case BR_JSON: o->json_path = v->s; break;
    case BR_DATA: snprintf(o->data_dir, sizeof o->data_dir, "%s", v->s); break;
    case BR_ROUNDS: o->rounds = (int)v->i; break;
    case BR_SWITCH_ONLY: o->switch_only = true; break;
    }
    return 0;
}

static int bench_runtime_cmd(int argc, char **argv)
{
    bench_runtime_opts o;
    bench_runtime_opts_default(&o);
    int npos = 0;
    int rc = cli_parse(&cli_cmd_bench_runtime, argc, argv, 2, apply_runtime_opt, &o, NULL, &npos);
    if (rc) return rc == CLI_HELP_SHOWN ? 0 : rc;
    return bench_runtime_main(&o);
}

/* Applies one parsed option of bench_topk_opts_table (cli_apply_fn). */
static int apply_topk_opt(void *ctx, const cli_opt *opt, const cli_val *v)
{
    bench_topk_opts *o = ctx;
    switch ((enum bench_topk_opt_id)opt->id) {
    case BT_DATA: snprintf(o->data_dir, sizeof o->data_dir, "%s", v->s); break;
    case BT_ROUNDS: o->rounds = (int)v->i; break;
    case BT_ROW_GROUPS: o->row_groups = v->i; break;
    case BT_RG_ROWS: o->row_group_rows = v->i; break;
    case BT_SEED: o->seed = (uint64_t)v->i; break;
    case BT_IO: o->io = io_of[v->i]; break;
    case BT_NO_AA: o->aa = false; break;
    }
    return 0;
}

static int bench_topk_cmd(int argc, char **argv)
{
    bench_topk_opts o;
    bench_topk_opts_default(&o);
    int npos = 0;
    int rc = cli_parse(&cli_cmd_bench_topk, argc, argv, 2, apply_topk_opt, &o, NULL, &npos);
    if (rc) return rc == CLI_HELP_SHOWN ? 0 : rc;
    return bench_topk_main(&o);
}

/* The shapes, after the option table, for `ringscan help bench`. */
void cli_bench_help_tail(void)
{
    sink_puts(cli_out(), "\nshapes (--shapes):\n");
    for (int i = 0; i < SHAPE_COUNT; i++) sink_printf(cli_out(), "  %s\n", bench_shapes[i].name);
    sink_putc(cli_out(), '\n');
    cli_help(&cli_cmd_bench_runtime);
    sink_putc(cli_out(), '\n');
    cli_help(&cli_cmd_bench_topk);
}

int cmd_bench(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "runtime") == 0) return bench_runtime_cmd(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "topk") == 0) return bench_topk_cmd(argc, argv);
    bench_scan_opts o;
    bench_scan_opts_default(&o);
    int npos = 0;
    int rc = cli_parse(&cli_cmd_bench, argc, argv, 1, apply_opt, &o, NULL, &npos);
    if (rc == CLI_HELP_SHOWN) cli_bench_help_tail();
    if (rc) return rc == CLI_HELP_SHOWN ? 0 : rc;
    return bench_scan_main(&o);
}
