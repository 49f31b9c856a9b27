/* bench/rt_bench_io.h: micro-benchmarks of the executor + io layer against fio.
 *
 * Random 4 KiB reads from the page cache: our io layer (no coalescing, queue_depth tasks
 * per core each awaiting one read at a time) on 1..n cores with the same total work split
 * evenly, and Debian's fio (io_uring engine, buffered) on the same file for reference.
 * Timing is wall clock over all cores (first start to last end); not for tests. */
#ifndef RINGSCAN_BENCH_RT_BENCH_IO_H
#define RINGSCAN_BENCH_RT_BENCH_IO_H
#include <stddef.h>
#include <stdint.h>

#include "runtime/exec.h"

typedef struct rt_bench_io_result {
    int threads, queue_depth;
    uint64_t reads, bytes_read, reads_submitted;
    double seconds, iops;
    uint64_t checksum; /* sum of the first byte of every read (keeps the reads honest) */
    char io_backend[EXEC_BACKEND_MSG_MAX];
} rt_bench_io_result;

/* Creates (or truncates) path with size_bytes of pseudo-random bytes and reads it once so it
 * sits in the page cache. Returns 0 or a negative errno with a message in err. */
int rt_bench_io_make_file(const char *path, uint64_t size_bytes, char *err, size_t errlen);

/* total_reads random 4 KiB-aligned 4 KiB reads of path (>= 4 KiB), split evenly over
 * `threads` pinned cores, queue_depth concurrent reads per core (1..4096), backend as in
 * exec_opts_t. Fills *out. Returns 0, or a negative errno with a message in err. Blocking;
 * call from a thread that is not a core. */
int rt_bench_io_randread(const char *path, int threads, int queue_depth, uint64_t total_reads,
                         exec_io_backend backend, rt_bench_io_result *out, char *err,
                         size_t errlen);

/* Runs `fio --ioengine=io_uring --rw=randread --bs=4k --iodepth=<queue_depth> --direct=0
 * --invalidate=0` on path for runtime_s seconds (one job) and parses its read IOPS into
 * *iops_out. --invalidate=0 matters: fio's default drops the file from the page cache first,
 * which turns the comparison into disk reads (measured here: 14.7k vs ~100k IOPS).
 * Returns 0; -1 with "fio not found" in err when fio is absent; -EIO with fio's output
 * head in err when it fails or its output does not parse. */
int rt_bench_io_fio(const char *path, int queue_depth, int runtime_s, double *iops_out,
                    char *err, size_t errlen);

#endif
