/* ringscan.h: the public C API of ringscan, an embeddable Parquet scan runtime.
 *
 * Use: ringscan_open() a file; fill ringscan_options (ringscan_options_init, then columns,
 * filter text, limit, policy, threads, io backend); ringscan_scan_start(); pull batches with
 * ringscan_scan_next() as Arrow C Data Interface arrays (a struct array whose children are
 * the projected columns, one ArrowSchema for the scan) or wrap the scan as an
 * ArrowArrayStream; read ringscan_scan_stats(); ringscan_scan_free(); ringscan_close().
 *
 * Errors: every call that can fail returns an int status: 0 on success, a negative errno or
 * a RINGSCAN_E* code on failure, and fills the caller's ringscan_error (may be NULL) with
 * the status and a message naming the file, the byte offset and the column where they apply.
 * Every function checks its arguments: a NULL pointer where an object is required, or an
 * option outside its documented range, returns -EINVAL with a message saying which (functions
 * without a status return -EINVAL as their value or do nothing; NULL to a free is a no-op).
 *
 * Threads: a ringscan_file may be shared by scans on several threads (it is read-only after
 * open). A ringscan_scan is used by one thread at a time; its own executor threads (one per
 * core asked for) run inside it and stop in ringscan_scan_free. */
#ifndef RINGSCAN_H
#define RINGSCAN_H
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden and a version script (ringscan.map): only
 * what is declared here with RINGSCAN_API is exported by libringscan.so. */
#ifndef RINGSCAN_API
#define RINGSCAN_API __attribute__((visibility("default")))
#endif

/* Status codes beyond negative errno values. */
enum {
    RINGSCAN_EFORMAT = -1000,      /* the file is not valid Parquet (message says where) */
    RINGSCAN_EUNSUPPORTED = -1001, /* valid but not supported: nested, encrypted, codec */
    RINGSCAN_ELIMIT = -1002,       /* a configured limit was exceeded (message names it) */
    RINGSCAN_EPARSE = -1003,       /* a filter expression did not parse */
    RINGSCAN_ECHECKSUM = -1004     /* a page CRC did not match */
};

/* Text for a status code (static storage). */
RINGSCAN_API const char *ringscan_strerror(int status);

typedef struct ringscan_error {
    int status;
    char message[512];
} ringscan_error;

/* ---- Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html) ---- */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};
#endif
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};
#endif

/* ---- files ---- */

typedef struct ringscan_file ringscan_file;

/* Opens a Parquet file and reads its footer (one tail read of up to 1 MiB, a second only when
 * the metadata is larger; the page index, when the tail read holds it, is kept for planning).
 * Returns 0 and *out (ringscan_close), or a status with err filled.
 * Nested, repeated or encrypted files are refused with RINGSCAN_EUNSUPPORTED. */
RINGSCAN_API int ringscan_open(const char *path, ringscan_file **out, ringscan_error *err);
/* Closes f; no scan of f may still be running. NULL is a no-op. */
RINGSCAN_API void ringscan_close(ringscan_file *f);
/* Rows and leaf columns of the file (-EINVAL when f is NULL). */
RINGSCAN_API int64_t ringscan_file_rows(const ringscan_file *f);
RINGSCAN_API int ringscan_file_columns(const ringscan_file *f);

/* ---- scans ---- */

typedef enum ringscan_policy {
    RINGSCAN_POLICY_LAZY = 0,     /* submit a conjunct's reads when its input mask is not all-false */
    RINGSCAN_POLICY_EAGER = 1,    /* submit every read of a split when it starts */
    RINGSCAN_POLICY_ADAPTIVE = 2  /* speculate where the input was rarely all-false (default) */
} ringscan_policy;

typedef enum ringscan_io {
    RINGSCAN_IO_AUTO = 0,  /* io_uring, else pread (said once on stderr and in the stats) */
    RINGSCAN_IO_URING = 1, /* io_uring or fail */
    RINGSCAN_IO_PREAD = 2  /* pread */
} ringscan_io;

typedef struct ringscan_options {
    const char *const *columns; /* projected column names; NULL = every column */
    int ncolumns;
    const char *filter;         /* e.g. "l_linenumber > 5 AND l_shipmode = 'AIR'"; NULL = none */
    int64_t limit;              /* rows; -1 = no limit */
    ringscan_policy policy;
    int threads;                /* executor cores; 0 = 2 */
    ringscan_io io;
    bool ordered;               /* batches in file order (default: as splits finish) */
    bool verify_checksums;      /* check page CRCs (default off, like pyarrow and DuckDB) */
    int64_t split_rows;         /* a row group of at least twice this many rows whose columns
                                   have an offset index is cut at page boundaries into splits
                                   of about this many rows; 0 = 131072, < 0 = never cut */
} ringscan_options;

/* Fills o with the defaults (every column, no filter, no limit, adaptive, 2 threads, auto). */
RINGSCAN_API void ringscan_options_init(ringscan_options *o);

typedef struct ringscan_scan ringscan_scan;

/* Plans a scan of f (statistics, page index and bloom pruning read only metadata) and starts
 * its executor. Returns 0 and *out, or a status: RINGSCAN_EPARSE for a filter that does not
 * parse (message "expected X at character N"), -EINVAL for an unknown column, a NULL entry in
 * columns, a negative ncolumns, a limit below -1, a policy or io that is not one of the enum's
 * values, or threads outside 0..256. f must outlive the scan. */
RINGSCAN_API int ringscan_scan_start(ringscan_file *f, const ringscan_options *o, ringscan_scan **out,
                        ringscan_error *err);

/* The schema of the batches: a struct ("+s") whose children are the projected columns.
 * The caller owns *out and calls out->release. */
RINGSCAN_API int ringscan_scan_schema(ringscan_scan *s, struct ArrowSchema *out, ringscan_error *err);

/* Next batch. Returns 1 and *out (a struct array of the projected columns, only rows that
 * passed the filter; the caller calls out->release, which may happen after ringscan_scan_free),
 * 0 at the end (out->release NULL), or a negative status with err filled (the scan stops). */
RINGSCAN_API int ringscan_scan_next(ringscan_scan *s, struct ArrowArray *out, ringscan_error *err);

/* Wraps the scan as an ArrowArrayStream; the stream borrows s (free s after releasing it). */
RINGSCAN_API int ringscan_scan_stream(ringscan_scan *s, struct ArrowArrayStream *out);

typedef struct ringscan_stats {
    uint64_t reads, bytes_read, bytes_used, bytes_wasted, cancelled_reads;
    int64_t row_groups_total, row_groups_pruned, pages_total, pages_pruned;
    int64_t rows_scanned, rows_out;
    bool io_uring;                     /* false: the pread fallback ran */
} ringscan_stats;

/* The scan's counters; complete once ringscan_scan_next returned 0 or an error (calling it
 * earlier stops the scan). */
RINGSCAN_API void ringscan_scan_stats(ringscan_scan *s, ringscan_stats *out);

/* Stops the scan (cancelling reads in flight) and frees it. NULL is a no-op. */
RINGSCAN_API void ringscan_scan_free(ringscan_scan *s);

#ifdef __cplusplus
}
#endif
#endif
