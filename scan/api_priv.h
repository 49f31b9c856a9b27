/* scan/api_priv.h: what the files of the public API (scan/api.c, scan/api_meta.c,
 * scan/api_expr.c) share: the definition of ringscan_file, the typing of filter trees.
 * Nothing here is exported (ringscan.map). */
#ifndef RINGSCAN_SCAN_API_PRIV_H
#define RINGSCAN_SCAN_API_PRIV_H
#include <pthread.h>
#include <unistd.h>

#include "ringscan.h"
#include "filter/expr.h"
#include "scan/arrow.h"
#include "scan/arrow_types.h"
#include "scan/dataset.h"
#include "scan/pqfile.h"
#include "scan/scan.h"

/* Nested columns (scan/api_nested.c): 0, or RINGSCAN_EUNSUPPORTED with e naming the column.
 * scan_nested_all: the columns of a scan with no column list into idx[0 .. *n) (room for
 * ncolumns): every top-level field, flat or a list of a primitive; refused when some other
 * nested field is there, the message listing the fields that can be read.
 * scan_nested_resolve: a projected name into *col: a column (flat), or a top-level list of a
 * primitive (its leaf); a nested leaf's or field's path is the nested error, another name
 * -EINVAL "no column named". Names match as SQL's do: spelled so, else the only one that
 * differs in case alone, at each step of a path (pq_file_meta_find_path).
 * scan_nested_filter / scan_nested_keys: rc == 0, the parsed filter's predicates / the sort
 * key columns cols[0..n); rc != 0, the parse error rc, rewritten to the nested error when its
 * message quotes the path of a node in a nested field. `use` says what the column was asked
 * for ("filtered on").
 * scan_nested_arrow_col: a projected column as the Arrow export shows it (a list's field and
 * element names). */
int scan_nested_all(const pq_file_meta *m, int *idx, int32_t *nodes, int *n, pq_err *e);
int scan_nested_resolve(const pq_file_meta *m, const char *name, int *col, int32_t *node,
                        pq_err *e);
int scan_nested_filter(const pq_file_meta *m, const flt_expr *f, int rc, const char *use,
                       pq_err *e);
int scan_nested_keys(const pq_file_meta *m, const int *cols, int n, int rc, pq_err *e);
scan_arrow_col scan_nested_arrow_col(const pq_file_meta *m, const pq_column_desc *d, int32_t node);
/* Whether a stored Arrow type makes a list of the projected columns (idx[0..n), their nodes
 * or NULL) a fixed-size list, whose null lists only the packed rows' export fills with
 * null slots (scan/arrow_nested.c): such a scan keeps packed rows (scan_opts.nest_cols).
 * Also true when the types cannot be built (the scan then reports why). */
bool scan_nested_fixed_lists(const pq_file_meta *m, const int *idx, const int32_t *nodes, int n);

/* A column descriptor as the API describes it (ringscan_file_column). */
void scan_column_info(const pq_column_desc *c, ringscan_column_info *out);

/* A scan of a file (scan, cols) or of a dataset (ds) as the API hands it out. */
struct ringscan_scan {
    _Atomic int refs;          /* the caller's (ringscan_scan_free) and each live stream's */
    ringscan_file *file;       /* holds one of its refs; NULL for a dataset's scan */
    ringscan_dataset *dataset; /* a dataset's scan: holds one of its refs; else NULL */
    scan_t *scan;
    struct ds_scan *ds;               /* a dataset's scan (dataset.c); NULL for a file's */
    scan_arrow_col *cols;      /* the projected columns as Arrow shows them */
    int ncols;
    unsigned arrow_flags;      /* scan/arrow.h SCAN_ARROW_* */
    scan_arrow_types types;    /* what the file says beyond Parquet types (cols[i].type) */
    bool topk;                 /* an ORDER BY ... LIMIT scan */
    int *row_groups;           /* options.row_groups, sorted (the scan reads it) */
    int32_t *nodes;            /* per projected column: its nested node or -1 (api_nested.c) */
    void (*on_bound)(void *ctx, const struct ringscan_topk_bound *b); /* options' */
    void *on_bound_ctx;
    ringscan_expr *filter_expr; /* a dataset's scan: its copy of options.filter_expr, which
                                  its files type as they open (the caller's may be freed) */
    char *io_strs;             /* a dataset's scan: its copies of options.store and the S3
                                  strings, which its files and footers open with after the
                                  start (the caller's may be freed: scan_api_io_own) */
    _Atomic bool stopped;      /* ringscan_scan_stop (any thread): no batch after it */
    _Atomic bool interrupted;  /* ringscan_scan_interrupt: each next after the stop fails */
    _Atomic int64_t rows_dropped; /* the rows of a batch the stop cut short (stopped_result):
                                     never handed out, so not in the stats' rows_out */
    pid_t pid;                 /* the process that started it: a child forked meanwhile holds a
                                  copy whose threads do not exist there, and never frees it
                                  (its end would wait for them forever) */
    pthread_mutex_t next_mu;   /* ringscan_scan_next's calls (the stream's get_next among
                                  them) and ringscan_scan_stop's end, one at a time: a consumer
                                  may call get_next from two threads at once (pyarrow's reader
                                  read by two Python threads), a host may stop the scan from
                                  another thread while its consumer waits, and scan_next's end
                                  is not reentrant (both ends joined the executor's threads) */
    char last_error[512];
};

/* api.c's argument checks and option mapping, shared with api_dataset.c: the options' own
 * values (0, or -EINVAL with err filled), ringscan_options to scan_opts, an -EINVAL naming
 * what, and err from e's message (which names the file already); the last two return rc. */
int scan_api_check_options(const ringscan_options *o, ringscan_error *err);
void scan_api_scan_opts(const ringscan_options *o, scan_opts *so);
/* The store and S3 fields of o as io/ takes them. */
void scan_api_io_opts(const ringscan_options *o, io_open_opts *io);
/* io's strings (store, the S3 key, secret, token, region and endpoint) copied into one block,
 * *owned (the caller frees it), and io pointed at the copies: what opens after the options'
 * strings were freed reads its own. 0 or -ENOMEM (io unchanged, *owned NULL). */
int scan_api_io_own(io_open_opts *io, char **owned);
/* A file's or a dataset's store counters and cost model into ringscan_stats' store_* fields
 * (io_file_counts, ds_scan_store: a snapshot while the scan runs). */
void scan_api_store_stats(const io_store_counts *c, ringscan_stats *out);
int scan_api_bad_arg(ringscan_error *err, const char *what);
int scan_api_report(ringscan_error *err, int rc, const pq_err *e);

/* A listed dataset (scan/api_dataset.c): its files and partitions. */
struct ringscan_dataset {
    ds_list list;
    _Atomic int refs;          /* the opener's (ringscan_dataset_close) and one per scan */
};

/* Drops one reference to d; closes it at the last (scan/api_dataset.c). */
void api_dataset_unref(ringscan_dataset *d);

/* An open file: the parsed footer (f->meta, read-only after open) and the path its messages
 * name. refs: the opener's reference (dropped by ringscan_close) and one per scan of it
 * (dropped when the scan is freed); the file is closed when the last goes. */
struct ringscan_file {
    pqf_t *f;
    char *path;
    _Atomic int refs;
};

/* Files and scans alive in the process (ringscan_live_objects; scan/api_abi.c). */
extern _Atomic int64_t api_live_objects;

/* Drops one reference to f (above); closes it at the last. */
void api_file_unref(ringscan_file *f);

/* A zeroed scan holding the caller's reference, counted alive; NULL when out of memory. */
ringscan_scan *api_scan_new(void);

/* api_report: "PATH: message (offset N, column C)" into err, returning rc. api_prepare: what
 * a file's scan or plan resolves from the options: the projected columns (*idx, *n:
 * malloc'd; *nodes: each one's nested node or -1, malloc'd), the parsed filter (*filter: the caller frees it; NULL = none), the checked row
 * group list (*rgs: malloc'd, NULL when none) and so; 0 or a status with e filled (the
 * outputs set so far are the caller's to free). api_bound_out: a Top-K bound in the public
 * form. */
int api_report(ringscan_error *err, const char *path, int rc, const pq_err *e);
int api_prepare(ringscan_file *f, const ringscan_options *o, int **rgs, int **idx,
                int32_t **nodes, int *n, flt_expr **filter, scan_opts *so, pq_err *e);
void api_bound_out(flt_domain dom, const flt_lit *v, uint64_t version, bool set,
                   ringscan_topk_bound *out);

/* The caller's options in, as this library's struct in *out (scan/api_abi.c): the fields past
 * in->struct_size take their defaults. 0, or -EINVAL with err naming fn when struct_size is
 * not a size ringscan_options_init ever set, or is larger and sets bytes this library does
 * not know; then, with check (a scan's caller, not an open's), the options' own ranges
 * (scan_api_check_options: -EINVAL naming the field). */
int api_take_options(const ringscan_options *in, ringscan_options *out, const char *fn,
                     bool check, ringscan_error *err);

/* A copy of the tree e into *out (NULL for NULL), for a scan that types it after
 * ringscan_*scan_start returned (a dataset's files): 0, -ENOMEM, or RINGSCAN_ELIMIT with err
 * filled for a tree deeper than any scan accepts. */
int scan_expr_copy(const ringscan_expr *e, ringscan_expr **out, pq_err *err);

/* The filter/ tree a ringscan_expr is (NULL for NULL). */
const flt_tnode *scan_expr_tree(const ringscan_expr *e);

/* scan_api_filter (scan/api_expr.c): o's filter (text or tree) parsed against f's columns into
 * *filter (the caller's; NULL when none), nested columns refused as a scan refuses them; 0 or
 * a status with e filled. */
int scan_api_filter(ringscan_file *f, const ringscan_options *o, flt_expr **filter, pq_err *e);

/* The predicates of a filter tree over the schema cols[0..ncols) (flt_from_tree). */
int scan_filter_from_expr(const ringscan_expr *e, const pq_column_desc *cols, int32_t ncols,
                          flt_expr **out, pq_err *err);

#endif
