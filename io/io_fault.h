/* io/io_fault.h: seeded fault injection for io/ reads, built on io_opts.fault (results of
 * read calls) and io_opts.fault_sched (timing of ranges). For tests and fuzzing.
 *
 * Faults, each with a rate in parts per million of read calls (or ranges, for the scheduling
 * ones):
 *   eio      the read call fails with -EIO                     -> the request fails
 *   short    the read call returns fewer bytes than asked      -> io/ continues the read
 *   zero     the read call returns 0 (end of file)             -> the request fails (EOF)
 *   eintr    the read call fails with -EINTR / -EAGAIN once (the retry of the same read
 *            passes)                                          -> io/ retries it
 *   delay    the range's first read is held back 1..delay_ns_max ns by a timer, so ranges
 *            complete late and out of order                    -> same result
 *   cancel   an ASYNC_CANCEL races the range's first read      -> io/ retries or the read won
 *   truncate once `truncate_after_calls` read calls were seen, the file at truncate_path is
 *            really truncated to truncate_to bytes (ftruncate): later reads past it get short
 *            reads and end of file from the kernel             -> the request fails (EOF)
 *
 * Determinism: every decision is a pure function of (seed, offset, length, fault kind), so a
 * read gets the same fault whichever core issues it and in whatever order (the truncation
 * moment counts calls, which is exact with one core). The hooks are thread-safe (the counters
 * are atomics): one io_fault_t may serve every core of a scan.
 *
 * Invariants:
 *  1. A hook never returns more than the length asked, nor 0 or an error unless that fault
 *     was chosen; rates of 0 leave reads untouched.
 *  2. The truncation happens at most once per io_fault_t. */
#ifndef RINGSCAN_IO_IO_FAULT_H
#define RINGSCAN_IO_IO_FAULT_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "io/io.h"

enum { IO_FAULT_PPM = 1000000, IO_FAULT_EINTR_KEYS = 4096 };

typedef struct io_fault_cfg {
    uint64_t seed;
    uint32_t eio_ppm, short_ppm, zero_ppm, eintr_ppm; /* per read call */
    uint32_t delay_ppm, cancel_ppm;                   /* per range */
    uint64_t delay_ns_max;                            /* default 2 ms */
    const char *truncate_path;                        /* NULL: never truncate */
    uint64_t truncate_to;                             /* bytes left after truncation */
    uint64_t truncate_after_calls;                    /* read calls before it happens */
} io_fault_cfg;

typedef struct io_fault {
    io_fault_cfg cfg;
    _Atomic uint64_t calls, eio, shorts, zeros, eintrs, delays, cancels;
    _Atomic int truncated; /* 1 once truncation was done (or tried: truncate_status) */
    int truncate_status;   /* 0 or -errno of the ftruncate */
    pthread_mutex_t mu;    /* guards eintr_keys: reads that got EINTR once (the retry passes) */
    uint64_t eintr_keys[IO_FAULT_EINTR_KEYS];
} io_fault_t;

/* Zero rates, seed 0, no truncation. */
void io_fault_cfg_default(io_fault_cfg *c);

/* A random profile from seed: each fault kind enabled with probability ~1/2 at a rate drawn
 * from a few magnitudes (some seeds fault rarely, some often); truncation only when path is
 * not NULL (then at a random call to a random size below file_size). */
void io_fault_cfg_random(io_fault_cfg *c, uint64_t seed, const char *path, uint64_t file_size);

/* Prepares f (counters zeroed) and points o's fault hooks at it. f must outlive every io
 * context made with o; release it with io_fault_destroy. */
void io_fault_attach(io_fault_t *f, const io_fault_cfg *c, io_opts_t *o);

void io_fault_destroy(io_fault_t *f);

/* One line describing the profile and the faults injected so far (for failure reports). */
void io_fault_describe(const io_fault_t *f, char *buf, size_t len);

/* The hooks themselves (io_fault_attach installs them; exposed for direct tests). */
int64_t io_fault_read(void *ctx, const io_file_t *file, uint64_t off, uint64_t len);
uint64_t io_fault_sched(void *ctx, const io_file_t *file, uint64_t off, uint64_t len,
                        bool *cancel);

#endif
