/* bench/bench_scan.h: `ringscan bench`, the scan benchmark: the bench shapes (bench/shapes.h)
 * under each fetch policy on generated TPC-H lineitem files, with read counts, bytes, pruning,
 * correctness against the data model and interleaved timing, plus a decompression floor.
 *
 * Owns: the options and result records shared by its files:
 *   bench_data.c   data files and cached expected answers under the data folder
 *   bench_scan.c   the measured runs and the round loop
 *   bench_floor.c  the decompression floor (same compressed bytes, same codec, one core)
 *   bench_report.c the text table and the JSON
 *   chart.c        the chart (PNG or SVG, drawn with cairo)
 *
 * Invariants:
 *  1. Every measured run opens the file itself (pqf_open), so its scan_stats.reads (footer
 *     tail read + planning reads + data reads) is every read call the run made; the bench's
 *     process total (bench_ctx.reads_total) adds the floor's loading reads, so with
 *     --io pread it equals the pread64 calls on the data files (tests/cli/bench_strace.sh).
 *  2. Data generation and expected-answer computation make no pread64 calls (the writer only
 *     writes; the cache file is read with stdio), so they never disturb invariant 1.
 *  3. Rounds are interleaved: within a round every entry of a shape runs once, in an order
 *     rotated by the round number; the floor runs once per round too.
 *  4. Bounded: at most BENCH_ENTRIES_MAX entries, BENCH_ROUNDS_MAX rounds. */
#ifndef RINGSCAN_BENCH_BENCH_SCAN_H
#define RINGSCAN_BENCH_BENCH_SCAN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/shapes.h"
#include "scan/scan.h"

enum {
    BENCH_ENTRIES_MAX = 8,      /* three policies (twice with --store: budget off and on, or
                                   with --kept) + the A/A repeat */
    BENCH_ROUNDS_MAX = 1000,
    BENCH_PATH_MAX = 4096,
    BENCH_ROW_GROUP_ROWS = 122880 /* DuckDB's row group size (RESULTS.md says why) */
};

typedef struct bench_scan_opts {
    double sf;
    uint64_t seed;
    char data_dir[BENCH_PATH_MAX];
    bool shape_on[SHAPE_COUNT];
    int npolicies;
    scan_policy policies[3];
    exec_io_backend io;
    int threads;
    int rounds;
    const char *json_path, *chart_path; /* NULL: not written */
    bool floor;                         /* measure the decompression floor (default on) */
    bool aa;                            /* the A/A repeat entry (default on) */
    const char *store;                  /* a simulated store over the data (NULL: local);
                                           each policy then also runs with no read-ahead */
    int64_t fetch_budget;               /* the policies' budget (default SCAN_FETCH_BUDGET) */
    int read_mode;                      /* io_read_mode of the local files (default copy) */
    bool kept;                          /* each policy also runs on a kept runtime ("/kept") */
    bool core_sum;                      /* the checksum is summed by each core as it builds a
                                           batch (scan_opts.batch_fn); default: by the
                                           draining thread, as a caller consuming a scan does */
} bench_scan_opts;

/* One measured scan. */
typedef struct bench_run {
    double ms;
    int64_t rows;
    uint64_t checksum;
    bool match; /* rows and checksum equal the model's */
    scan_stats st;
    uint64_t requests, store_bytes; /* the store's, metadata included (0 without --store) */
    uint64_t peak_rss;              /* bytes: the process's high-water mark during the run */
    uint64_t ttfb_ns, bw;           /* the store's time to first byte (median) and bandwidth */
    uint64_t footer_bytes;          /* the file's footer: metadata, its length and magic */
    int64_t plan_ranges;            /* --store: the disjoint ranges the scan's plan reads
                                       (scan_plan_ranges) */
    uint64_t plan_range_bytes;      /* their bytes */
    uint64_t plan_requests;         /* the requests they make, touching ones merged within
                                       the store's cap (io_sim_bound_ns) */
    uint64_t plan_sched_ns;         /* their schedule on the store's connections from idle
                                       (io_sim_bound_ns; 0 off a simulated store) */
    double open_ms, start_ms, drain_ms, end_ms; /* the run's phases: footer, parse; scan_start
                                       (plan, threads); batches; scan_free, close (serial:
                                       all but drain) */
    uint64_t consumer_cpu_ns;       /* the draining thread's CPU time: taking batches (and with
                                       without --core-sum summing them for the checksum; serial,
                                       beside the cores) */
    uint64_t proc_cpu_ns;           /* the process's CPU time over the run: host, cores, the
                                       kernel's io workers (a 1-thread scan's consumer runs on
                                       the other CPU; at 2 threads all of it shares two) */
    uint64_t open_cpu_ns, start_cpu_ns; /* the host thread's CPU time in open and start (the
                                       cores' thread setup runs on the cores, not counted) */
} bench_run;

/* A policy measured over the rounds ("adaptive#2" is the A/A repeat of "adaptive"). */
typedef struct bench_entry {
    char label[24];
    scan_policy policy;
    int64_t fetch_budget;    /* 0: the "/off" arm of a --store run */
    bool kept;               /* the "/kept" arm: scans on bench_ctx.rt's cores (no thread,
                                no io ring set up per scan) */
    bench_run *runs;         /* rounds */
    double median_ms, ratio_lazy; /* ratio_lazy 0 when lazy was not run */
    bool all_match, reads_vary;
} bench_entry;

/* The decompression floor of one shape (bench_floor.c). */
typedef struct bench_floor {
    bool on;
    int codec;
    int64_t row_groups, row_groups_pruned, chunks, pages;
    uint64_t bytes_compressed, bytes_uncompressed, reads;
    double *ms;              /* rounds */
    double *cpu_ms;          /* rounds: the thread's CPU time, in the ms allocation */
    double median_ms, median_cpu_ms;
    /* loaded data (freed by bench_floor_free) */
    uint8_t **bufs;
    int nbufs;
    struct bench_page *pg;
    int64_t npg, max_page;
    uint8_t *scratch;
} bench_floor;

typedef struct bench_shape_res {
    const bench_shape *shape;
    char path[BENCH_PATH_MAX];
    shape_result expected;
    int nentries;
    bench_entry e[BENCH_ENTRIES_MAX];
    bench_floor floor;
} bench_shape_res;

typedef struct bench_ctx {
    bench_scan_opts o;
    int nshapes;
    bench_shape_res shapes[SHAPE_COUNT];
    uint64_t reads_total, scan_reads_total; /* invariant 1 */
    double seconds_total;
    char io_backend[EXEC_BACKEND_MSG_MAX];
    char date[64];
    bool any_mismatch, any_error;
    struct scan_rt *rt;      /* --kept: the kept runtime, started once for every "/kept" run */
} bench_ctx;

/* Fills o with the defaults: sf 1, seed 1, data folder <project root>/data, every shape, the
 * three policies, io auto, threads = online CPUs, 5 rounds, floor and A/A on. */
void bench_scan_opts_default(bench_scan_opts *o);

/* Runs the benchmark and prints the table; writes the JSON and the chart when asked.
 * Returns the exit status: 0 when every count and checksum matched, 1 on a mismatch or an
 * error (printed to stderr). */
int bench_scan_main(const bench_scan_opts *o);

/* bench_store.c: the --store table (requests, bytes, peak RSS, the lower bound) and its
 * target lines, printed after the main table. */
void bench_report_store(const bench_ctx *c);

/* bench_data.c: makes sure the file for `layout` at o's sf exists (generating it when missing
 * or written with other settings) and stores its path; *reads += the footer reads its check
 * made. 0 or 1 (message printed). */
int bench_data_file(const bench_scan_opts *o, lineitem_layout layout, char *path, size_t cap,
                    uint64_t *reads);
/* Fills every shape's expected answer from the cache next to the data (computing and saving
 * the missing ones). 0 or 1 (message printed). */
int bench_data_expected(bench_ctx *c);

/* bench_floor.c: loads the compressed pages of the columns the shape reads (projection and
 * filter) in the row groups its filter's statistics keep. 0 or a negative status with e. */
int bench_floor_load(const char *path, const bench_shape *sh, int rounds, bench_floor *fl,
                     pq_err *e);
/* Decompresses every loaded page once on this thread; ms of wall time, or < 0 on error.
 * *cpu_ms gets the thread's CPU time over the same loop. */
double bench_floor_time(bench_floor *fl, double *cpu_ms, pq_err *e);
void bench_floor_free(bench_floor *fl);

/* bench_report.c */
void bench_report_table(const bench_ctx *c);
int bench_report_json(const bench_ctx *c, const char *path);
/* Closes f, written as path by command who ("bench", "bench runtime"): 0, or a negative errno
 * after a message naming path, the file then removed when it is a regular one (a partial
 * report is none; a device such as /dev/full stays). */
int bench_close_checked(FILE *f, const char *path, const char *who);
/* chart.c: grouped bars of reads and of median time per shape and entry, as a PNG (path ends
 * in .png) or SVG (.svg). 0, -EINVAL (no shapes, another extension) or -EIO with *why set to
 * cairo's text (static) and a partial file removed (when a regular one). */
int bench_chart(const bench_ctx *c, const char *path, const char **why);

double bench_median(const double *v, int n);
double bench_now_ms(void);

#endif
