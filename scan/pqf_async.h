/* scan/pqf_async.h: a Parquet footer read as futures on a core (a dataset's footers: ds_open.c),
 * rather than by a thread blocking in pqf_open_tail. */
#ifndef RINGSCAN_SCAN_PQF_ASYNC_H
#define RINGSCAN_SCAN_PQF_ASYNC_H
#include "io/io.h"
#include "scan/pqfile.h"

/* From a task on io's core: opens path through o's store (NULL: defaults) as
 * io_file_open_await does (a URL's open request awaited, never blocking the core) and reads
 * its footer through io: one read of
 * its last pqf_tail_bytes (at most tail_max, 0: no cap), a second of the metadata's start when
 * the metadata is longer, each awaited (the task suspends; the core runs others). Returns 0 and
 * *out (pqf_close; f->tail_reads counts the reads), or a status with e filled as pqf_open_tail
 * fills it (the caller prefixes the path). */
int pqf_open_async(pqf_t **out, io_ctx_t *io, const char *path, const io_open_opts *o,
                   size_t tail_max, const pq_meta_limits *limits, pq_err *e);
/* For tests: when set, called with the file once its footer's tail is read, before the bytes
 * are parsed (a deterministic window to shrink a mapped file in). NULL otherwise. */
extern void (*pqf_async_read_hook)(const io_file_t *file);

#endif
