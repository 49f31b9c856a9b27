/* scan/pqfile.h: an open Parquet file read synchronously: footer with one tail read (a second
 * only when the metadata is larger), then whole column chunks decoded on demand. The tail read
 * (pqf_tail_bytes) of a remote file is large enough to usually bring the page index written
 * before the footer too: those bytes are kept (index_bytes) and planning takes the indexes from
 * them without a read (a local file's tail is small: planning reads its index). The column
 * chunks the tail holds whole (a small file's every chunk) are kept with the file
 * (io_file_keep), so the scan's reads of them come from that copy, read once at open, and
 * the scan of a small file reads it once; they are the file as it was when its footer was
 * read, even when it changes before the scan. The scan
 * engine and the public API open files with pqf_open and read data through io/ futures;
 * pqf_read_column is the plain synchronous read the tests use as a reference.
 *
 * Invariants: the metadata is parsed once at open; every chunk range is checked against the
 * file size before it is read; error messages name the file, the offset and the column. A
 * column's chunk statistics are decoded when first asked for (pqf_stats, under the file's
 * lock, so scans on several threads may share the file): whatever reads a chunk's statistics
 * calls pqf_stats for its column first, or runs after a caller that did (the cores read only
 * the columns their scan's plan decoded before they started). */
#ifndef RINGSCAN_SCAN_PQFILE_H
#define RINGSCAN_SCAN_PQFILE_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "format/column.h"
#include "format/err.h"
#include "format/meta.h"
#include "io/io.h"

/* The tail read of a remote file: a 1/PQF_TAIL_SHARE of the file within [PQF_TAIL_MIN_BYTES,
 * PQF_TAIL_MAX_BYTES] (the whole file when smaller). The page index grows with the number of
 * pages, so with the file: ringscan gen's is ~0.07% of it (1.8 MB at sf=10, which a fixed
 * 1 MiB tail missed, costing a second request at planning).
 * A local file's: 1/PQF_LOCAL_TAIL_SHARE within [PQF_LOCAL_TAIL_MIN_BYTES,
 * PQF_LOCAL_TAIL_MAX_BYTES]. There a read costs a system call, not a round trip, while the
 * copy of the tail does not shrink with it: a 1 MiB tail for sf=1 lineitem's 63 KB footer was
 * half of every open's CPU (bench/RESULTS.md, twenty-third session). Sized to hold ringscan
 * gen's footers (~1/3700 of the file) in the one read; a longer footer takes a second read
 * (as remotely), and a page index outside the tail is read by planning when the plan uses it
 * (plan_index.c: one read of the needed columns' span, counted in plan_reads). */
enum {
    PQF_TAIL_MIN_BYTES = 1 << 20,
    PQF_TAIL_MAX_BYTES = 8 << 20,
    PQF_TAIL_SHARE = 1024,
    PQF_LOCAL_TAIL_MIN_BYTES = 64 << 10,
    PQF_LOCAL_TAIL_MAX_BYTES = 1 << 20,
    PQF_LOCAL_TAIL_SHARE = 2048,
};

/* Bytes of the tail read for a file of size bytes, remote or local (io_backend.remote). */
size_t pqf_tail_bytes(uint64_t size, bool remote);

typedef struct pqf {
    io_file_t *file;
    pq_file_meta meta;
    uint64_t meta_offset;   /* where the FileMetaData starts */
    uint32_t meta_len;
    int tail_reads;         /* 1, or 2 when the metadata did not fit the first tail read */
    uint8_t *index_bytes;   /* NULL, or file bytes [index_off, +index_len): every column and
                               offset index of the file, when the tail read held them all */
    uint64_t index_off;
    size_t index_len;
    pthread_mutex_t stats_mu; /* held while meta's statistics are decoded (pqf_stats) */
} pqf_t;

struct flt_expr;

/* A zeroed pqf_t with its lock made (pqf_close frees it), or NULL (-ENOMEM). */
pqf_t *pqf_new(void);

/* Decodes the statistics of column col (-1: every column) in every row group, once
 * (format/meta.h invariant 6); thread-safe. 0, or the error of pq_file_meta_stats with
 * e->offset the field's file offset (RINGSCAN_EFORMAT naming the column; the caller's report
 * names the file), or -ENOMEM. */
int pqf_stats(pqf_t *f, int col, pq_err *e);
/* pqf_stats for every column filter x reads (NULL: none). */
int pqf_stats_expr(pqf_t *f, const struct flt_expr *x, pq_err *e);

/* Copies file bytes [off, +len) into buf from the kept index bytes and returns true when they
 * hold them all; false (nothing copied) otherwise. */
bool pqf_index_bytes(const pqf_t *f, uint64_t off, void *buf, size_t len);

/* Opens path and parses its footer. Returns 0 and *out (pqf_close), or a negative status with
 * e filled (e->msg names the problem; the caller prefixes the path). */
int pqf_open(pqf_t **out, const char *path, const pq_meta_limits *limits, pq_err *e);
/* As pqf_open through a store and credentials (io_file_open_with; NULL = defaults). */
int pqf_open_with(pqf_t **out, const char *path, const io_open_opts *io,
                  const pq_meta_limits *limits, pq_err *e);
/* As pqf_open_with with a tail read of at most tail_max bytes (0: pqf_tail_bytes): a
 * dataset's many small files need their footer, not a MiB each. */
int pqf_open_tail(pqf_t **out, const char *path, const io_open_opts *io, size_t tail_max,
                  const pq_meta_limits *limits, pq_err *e);
void pqf_close(pqf_t *f);

/* The pieces of a footer read, for a caller that reads the bytes itself (pqf_async.c, on a
 * core through io/ futures); pqf_open_tail reads them synchronously. f->file is open, the
 * rest of f zeroed. */
/* *len: the tail read's bytes for f (pqf_tail_bytes, at most tail_max unless 0), or
 * RINGSCAN_EFORMAT when the file is too small for Parquet. */
int pqf_tail_len(const pqf_t *f, size_t tail_max, size_t *len, pq_err *e);
/* From tail (the file's last tail_len bytes): when it holds the FileMetaData, parses and checks
 * it and keeps the page-index bytes it holds (*more false); when the metadata starts before
 * it, *more true and f->meta_offset / f->meta_len say what to read (pqf_footer_meta). 0 or a
 * status with e filled (offsets in the file). */
int pqf_footer_tail(pqf_t *f, const uint8_t *tail, size_t tail_len, const pq_meta_limits *limits,
                    bool *more, pq_err *e);
/* Parses and checks meta (f->meta_len bytes read at f->meta_offset), then keeps the index
 * bytes tail holds. 0 or a status with e filled. */
int pqf_footer_meta(pqf_t *f, const uint8_t *meta, const uint8_t *tail, size_t tail_len,
                    const pq_meta_limits *limits, pq_err *e);
/* rc with e filled from io/'s message msg, less the "PATH: " it starts with (the caller's
 * report names the file). Returns rc. */
int pqf_io_fail(pq_err *e, int rc, int64_t off, const char *path, const char *msg);

/* Reads and decodes column `col` of row group `rg` into out (initialised by the caller with
 * the column's type; rows are appended). limits NULL = defaults. 0 or a negative status
 * (RINGSCAN_EUNSUPPORTED for a nested column). */
int pqf_read_column(pqf_t *f, int rg, int col, const pq_col_limits *limits, pq_vec *out,
                    pq_err *e);

#endif
