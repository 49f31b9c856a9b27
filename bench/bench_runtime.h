/* bench/bench_runtime.h: `ringscan bench runtime`: the runtime micro-benchmarks of
 * bench/rt_bench_coro.h and bench/rt_bench_io.h measured side by side in one run, in
 * interleaved rounds (every benchmark once per round, order rotated per round), reported as
 * medians with an A/A line (the 1-core read benchmark twice per round).
 *
 * Figures and targets (reported, never asserted):
 *   coroutine switch ns vs Boost.Context jump_fcontext target: <= 1.2x of it (A/A: the
 *                                                      switch measured twice per round)
 *   coroutine switch ns vs glibc swapcontext ns       target: >= 10x faster
 *   future resolve-and-wake round trip ns
 *   random 4 KiB reads/s, 1 core, QD 32, page cache   vs fio --ioengine=io_uring (1 job,
 *                                                      QD 32, same file): target >= 0.9x
 *   the same on 2 cores                                scaling 2-core/1-core: target >= 1.8x
 * The read file is <data>/rt_bench_randread.bin (BENCH_RT_FILE_BYTES, reused when its size
 * matches), read once before the rounds so it sits in the page cache. */
#ifndef RINGSCAN_BENCH_BENCH_RUNTIME_H
#define RINGSCAN_BENCH_BENCH_RUNTIME_H

#include "bench/bench_scan.h"

#define BENCH_RT_FILE_BYTES (UINT64_C(1) << 30)

typedef struct bench_runtime_opts {
    int rounds;                 /* default 5 */
    char data_dir[BENCH_PATH_MAX];
    const char *json_path;      /* NULL: none */
    exec_io_backend io;         /* default auto (io_uring when it works) */
    bool switch_only;           /* only the switch and future figures: no read file, no fio */
} bench_runtime_opts;

void bench_runtime_opts_default(bench_runtime_opts *o);

/* Runs the rounds, prints the table, writes the JSON. Returns 0, or 1 on an error (printed).
 * fio missing is not an error: the comparison line says so. */
int bench_runtime_main(const bench_runtime_opts *o);

#endif
