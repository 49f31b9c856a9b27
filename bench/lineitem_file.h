/* bench/lineitem_file.h: writing the lineitem model (bench/lineitem.h) as a Parquet file with
 * format/writer.h. Shared by `ringscan gen lineitem` (cli/cmd_gen.c) and `ringscan bench`
 * (bench/bench_data.c), so both produce byte-identical files for the same options.
 *
 * Owns: the producer thread + bounded batch queue (moved here from cmd_gen.c) and the
 * lineitem schema. Batches are written strictly in order, so the file is identical for any
 * thread count.
 *
 * Invariants:
 *  1. The queue holds at most LINEITEM_FILE_QUEUE batches of LINEITEM_FILE_BATCH_ORDERS
 *     orders (bounded memory); a failed side sets `stop` and the other side exits.
 *  2. Nothing goes to stderr from here: the caller's tick, after each batch written, is where
 *     a progress display lives (cli/progress.h for gen, a bar for bench). */
#ifndef RINGSCAN_BENCH_LINEITEM_FILE_H
#define RINGSCAN_BENCH_LINEITEM_FILE_H
#include <stdbool.h>

#include "bench/lineitem.h"
#include "format/writer.h"

enum { LINEITEM_FILE_BATCH_ORDERS = 8192, LINEITEM_FILE_QUEUE = 4 };

/* Fills d[0 .. g->ncols-1] with the lineitem schema (all REQUIRED; names borrowed from
 * lineitem_columns). */
void lineitem_file_schema(const lineitem_gen *g, pq_column_desc *d);

/* A pq_writer sink (format/writer.h) appending to the stdio FILE file: 0, or the failed
 * write's -errno (-ENOSPC on a full disk names the cause; -EIO only when errno is unset).
 * The one sink of `gen`, the bench's data files and `bench topk`'s. */
int lineitem_file_sink(void *file, const void *p, size_t n);

/* Called on the writing thread after each batch: rows written so far of total. */
typedef void (*lineitem_file_tick)(void *ctx, int64_t rows_done, int64_t rows_total);

/* Writes every row of g to w (opened with lineitem_file_schema's columns), generating on a
 * producer thread when threads >= 2, calling tick(ctx, ...) after each batch (tick may be
 * NULL). Does not close w. Returns 0 or a negative status with e filled. */
int lineitem_file_write(const lineitem_gen *g, pq_writer *w, int threads, lineitem_file_tick tick,
                        void *ctx, pq_err *e);

#endif
