/* bench/bench_topk.h: `ringscan bench topk` (issue 21): `SELECT score, id, payload ORDER BY
 * score DESC LIMIT 100` (the control layout: WHERE flag = 0) over the `gen topk` files, their
 * row groups split among 1, 2 and 8 scanners, with the Top-K bound shared between them or
 * not, and the merged answer checked against the generator's model (topk_gen_expect).
 *
 * Owns: the arms, the measured runs and the report:
 *   bench_topk.c       options, data files, the arms, the round loop, the table
 *   bench_topk_run.c   one arm's run: its scanners as concurrent scans in this process
 *                      (scan_opts.topk_cell shares one bound through memory) or as forked
 *                      processes (the public API; bounds exchanged through pipes)
 *
 * Scanner i of N gets row groups [i * G / N, (i + 1) * G / N) (contiguous blocks, as files
 * split among workers). Sharing off: each scanner has its own bound (seeded from its own
 * groups' statistics unless the arm turns seeding off) and nothing is exchanged.
 *
 * Invariants:
 *  1. Rounds are interleaved: every arm runs once per round, in an order rotated by the round
 *     number; the A/A arm is one arm run twice per round, so its two medians show the noise.
 *  2. A run's figures are sums over its scanners; its time covers opening the file, planning,
 *     scanning and the merge (the processes' fork and wait included).
 *  3. Bounded: at most TOPK_BENCH_ARMS_MAX arms, TOPK_BENCH_SCANNERS_MAX scanners, K rows
 *     per scanner, BENCH_ROUNDS_MAX rounds. */
#ifndef RINGSCAN_BENCH_BENCH_TOPK_H
#define RINGSCAN_BENCH_BENCH_TOPK_H
#include <stdbool.h>
#include <stdint.h>

#include "bench/bench_scan.h"
#include "bench/topk_gen.h"

enum {
    TOPK_BENCH_K = 100,
    TOPK_BENCH_SCANNERS_MAX = 8,
    TOPK_BENCH_ARMS_MAX = 40,
    TOPK_BENCH_ROW_GROUPS_MAX = 1024,
    TOPK_BENCH_ROW_GROUPS = 32,       /* issue 21's file: 32 groups of 65536 rows */
    TOPK_BENCH_ROW_GROUP_ROWS = 65536
};

typedef struct bench_topk_opts {
    char data_dir[BENCH_PATH_MAX];
    int rounds;               /* default 5 */
    int64_t row_groups;       /* G, at least TOPK_BENCH_SCANNERS_MAX */
    int64_t row_group_rows;   /* R */
    uint64_t seed;            /* the data's */
    exec_io_backend io;
    bool aa;                  /* the A/A arm (default on) */
} bench_topk_opts;

typedef enum { TOPK_MODE_THREADS = 0, TOPK_MODE_PROCS = 1 } topk_bench_mode;

typedef struct topk_bench_arm {
    topk_layout layout;
    topk_bench_mode mode;
    int scanners;             /* 1 .. TOPK_BENCH_SCANNERS_MAX */
    bool share;               /* one bound for every scanner */
    bool no_seed;             /* scan_opts.topk_no_seed (threads only: the public API has no
                                 such option) */
    bool aa_repeat;           /* the second copy of the A/A arm */
    char label[48];
} topk_bench_arm;

/* One run of an arm: sums over its scanners. */
typedef struct topk_bench_run {
    double ms;
    uint64_t bytes_read, reads, cancelled_reads;
    int64_t row_groups_pruned, pages_pruned, splits_dead, rows_kept;
    bool match;               /* the merged answer equals the model's */
} topk_bench_run;

/* One scanner's part of a run: its answer (best first) and counters. Plain data, so a forked
 * scanner can fill it in shared memory. */
typedef struct topk_bench_part {
    int rc;
    char err[256];
    int64_t n;
    int64_t score[TOPK_BENCH_K], id[TOPK_BENCH_K];
    uint64_t bytes_read, reads, cancelled_reads;
    int64_t row_groups_pruned, pages_pruned, splits_dead, rows_kept;
} topk_bench_part;

/* What every run of an arm needs: the file, its model and the model's answer. */
typedef struct topk_bench_file {
    char path[BENCH_PATH_MAX + 64];
    topk_gen gen;
    int64_t expect[TOPK_BENCH_K], nexpect;
} topk_bench_file;

void bench_topk_opts_default(bench_topk_opts *o);

/* Generates the missing files, runs the rounds and prints the table and the ratio lines.
 * Returns the exit status: 0 when every merged answer equals the model's, 1 on a mismatch or
 * an error (printed to stderr). */
int bench_topk_main(const bench_topk_opts *o);

/* bench_topk_run.c: runs arm a once over file f (parts: room for a->scanners). 0, or -1 with
 * err filled (a scanner that failed to start, scan or exit). */
int topk_bench_run_arm(const bench_topk_opts *o, const topk_bench_file *f,
                       const topk_bench_arm *a, topk_bench_run *out, char *err, size_t cap);

#endif
