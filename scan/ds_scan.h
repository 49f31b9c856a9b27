/* scan/ds_scan.h: a dataset scan (dataset.h) as the public API drives it: started from a
 * file list and resolved options, pulled batch by batch as Arrow arrays. */
#ifndef RINGSCAN_SCAN_DS_SCAN_H
#define RINGSCAN_SCAN_DS_SCAN_H
#include "ringscan.h"
#include "scan/dataset.h"
#include "scan/scan.h"

/* What a dataset scan takes from ringscan_options (borrowed until ds_scan_start returns,
 * except list, which must outlive the scan). */
/* What a dataset count (ringscan_dataset_count) adds up besides the rows its scans return:
 * over the files whose footers were read, their row groups, and how each was decided. */
typedef struct ds_count {
    int64_t rows;               /* rows of settled groups (counted unread) */
    int groups, settled, pruned, scanned;
} ds_count;

typedef struct ds_scan_args {
    const ds_list *list;
    const char *const *columns; /* NULL = every column of the schema */
    int ncolumns;
    const char *filter;         /* text, or */
    const ringscan_expr *filter_expr;
    const char *order_by;
    bool order_desc;
    int64_t limit;              /* < 0: none */
    bool union_by_name;
    const char *const *dict_columns; /* options.dictionary_columns (borrowed until start) */
    int ndict;
    int max_open;               /* footers held at once (>= 1) */
    scan_opts so;               /* each file's scan (limit, keys: set per file) */
    io_open_opts io;
    unsigned arrow_flags;       /* scan/arrow.h */
    ds_count *count;            /* non-NULL: a count (columns, order_by and limit unused):
                                   nothing is projected; a file's row groups its statistics
                                   settle are counted here unread (ds_count_file) and only
                                   the rest scanned, reading the filter's first column */
} ds_scan_args;

typedef struct ds_scan ds_scan;

/* Prunes by partition, reads the footers it needs, builds the schema and starts the first
 * file's scan. 0 and *out (ds_scan_free), or a status with e filled (its message names the
 * file: the caller adds no path). */
int ds_scan_start(const ds_scan_args *a, ds_scan **out, pq_err *e);
/* The dataset's schema as the batches have it (a struct of the projected columns). */
int ds_scan_schema(ds_scan *d, struct ArrowSchema *out);
/* The next batch: 1 and *out, 0 at the end, or a status with e filled (message names the
 * file); an error ends the scan as its end does (every file stopped and closed, the counters
 * final: ds_scan_stats complete), and every later call returns 0. */
int ds_scan_next(ds_scan *d, struct ArrowArray *out, pq_err *e);
/* Counters summed over the files scanned so far (a snapshot until the end), and the
 * dataset's own: files listed, files pruned (partitions or statistics), footers read. */
void ds_scan_stats(ds_scan *d, scan_stats *st, int64_t *files, int64_t *pruned, int64_t *footers,
                   bool *complete);
/* The store counters summed over every file the dataset opened (footers of pruned files
 * too), and the cost model of the file, closed or open, that folded in the most requests. */
void ds_scan_store(ds_scan *d, io_store_counts *out);
/* The projected column i's descriptor (NULL outside 0..n). */
const pq_column_desc *ds_scan_column(const ds_scan *d, int i);
/* Which files were pruned and why, then each scanned file's own account as its scan ended
 * (NUL-terminated, at most 1 MiB; "" without explain). */
const char *ds_scan_explain(const ds_scan *d);
/* Ends the dataset's scan before its end: every running file stopped and closed and the
 * footers read ahead waited for, so the counters are final (ds_scan_stats complete);
 * ds_scan_next returns 0 after it. */
void ds_scan_stop(ds_scan *d);
/* From any thread while a ds_scan_next may wait on another (a host's Ctrl-C): every file's
 * reads in flight and footer reads cancelled (scan_rt_cancel), and that call returns soon
 * after, with 0 or an error (ringscan_scan_stop drops it); ds_scan_stop must follow, on the
 * scan's thread once that call returned. */
void ds_scan_cancel(ds_scan *d);
void ds_scan_free(ds_scan *d);

/* A count's decision on file f under its filter x (NULL: none): each row group settled (every
 * row passes: its rows added to c), pruned, or left to scan; those left become so's row
 * groups (*groups, malloc'd: the caller frees it after the scan ends), *none when none is
 * left (the file needs no scan). 0 or -ENOMEM. */
int ds_count_file(ds_count *c, const pqf_t *f, const flt_expr *x, scan_opts *so, int **groups,
                  bool *none);

#endif
