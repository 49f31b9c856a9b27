/* scan/ds_run.h: a dataset scan's state (dataset.c), shared with ds_out.c (its output
 * columns and a file's batch rewritten to them). Private to those two files. */
#ifndef RINGSCAN_SCAN_DS_RUN_H
#define RINGSCAN_SCAN_DS_RUN_H
#include "scan/ds_impl.h"
#include "scan/ds_scan.h"
#include "scan/ds_topk.h"
#include "scan/fetch.h"
#include "scan/out_pool.h"
#include "scan/ds_order.h"
#include "scan/scan_rt.h"

/* DS_INFLIGHT_MAX: files whose scans run at once on the dataset's one runtime (scan_rt.h),
 * each on as many cores as it has splits; fewer while the running files after the first hold
 * a window's worth of splits (dataset.c fill) */
enum { DS_EXPLAIN_BYTES = 1 << 20, DS_INFLIGHT_MAX = 16 };

/* A file being scanned. */
typedef struct ds_run {
    int fi;
    scan_t *scan;
    ds_view view;
    int *proj;             /* [nout + nhide]: the file's leaf of each column, or -1 */
    int *pos;              /* [nout + nhide]: its place among the scan's vectors, or -1 */
    int64_t rows;          /* rows it handed on (Top-K positions) */
    int64_t splits;        /* its planned splits (dataset.c fill) */
    int64_t bytes;         /* what its projected chunks may take decoded (dataset.c fill) */
    int64_t *scale;        /* [schema n]: its durations' factor to the dataset's unit */
    int *groups;           /* a count's row groups left to scan (ds_count_file), or NULL */
    bool settled;          /* a count's file whose groups the footer settled (no scan) */
    bool post;             /* its filter is post's, on cast values (ds_post.c) */
    int *fpos;             /* post: [schema n] (ds_post.c invariant 2), owned */
} ds_run;

struct ds_scan {
    ds_scan_args a;        /* columns, filter, order_by borrowed only during start: copied */
    char *filter;          /* owned copy */
    char *order_by;
    ds_schema s;
    int nout, nhide;       /* projected columns, hidden ORDER BY keys after them */
    int *out;              /* [nout + nhide]: schema column of each */
    bool *used;            /* [s.n]: the schema columns the query reads (projected, sorted by,
                              filtered on): their conflicts are errors (ds_conflicts) */
    bool *filtered;        /* [s.n]: the schema columns the filter reads (typed against the
                              schema: a file that casts one is post's, ds_post.c) */
    flt_expr *post;        /* NULL, or the filter typed against the schema (ds_post.c) */
    pq_column_desc *post_cols; /* [s.n]: the schema's types post borrows, owned */
    scan_arrow_col *acols; /* [nout] */
    scan_arrow_type *atypes; /* [nout]: acols' types (ds_types_project) */
    char **opath;          /* [nout]: a path projected inside nested column out[j] ("s.a",
                              read as a one-file scan reads it), owned; NULL: the column */
    scan_arrow_types *ptypes; /* [nout]: a path's Arrow types (atypes[j] its first), owned */
    ds_footers ft;
    io_store_sum store;    /* every file's store counters (a.io.sum) */
    scan_rt *rt;           /* the cores every file's scan runs on, started with the first */
    pthread_mutex_t mu;    /* recursive: runs, head, nrun, gone, ngone, acc against the
                              snapshots of another host thread (ds_stats.c invariant 1) */
    ds_run runs[DS_INFLIGHT_MAX]; /* invariant 1 */
    int head, nrun;
    ds_run gone[DS_INFLIGHT_MAX]; /* invariant 4: ended files whose scans are leaving */
    int ngone;
    scan_budget_share share; /* the fetch budget every file's scan and the footers count in
                              (fetch_budget.c invariant 6), when shared */
    bool shared;           /* a fetch budget was given (> 0): share and pool are set up */
    scan_out_pool pool;    /* the byte bound every file's output window counts in, led by
                              the file being drained (output.h invariant 9), when shared */
    int next;              /* the next file to start */
    int64_t rows_out;
    scan_stats acc;        /* finished files' counters */
    int64_t files_pruned;
    atomic_bool done;      /* (read by a snapshot on another host thread: ds_stats.c) */
    atomic_bool stop;      /* ds_scan_cancel: no batch after it */
    ds_topk topk;          /* nkeys 0 unless ORDER BY */
    ds_orders orders;      /* conjunct orders the files share (scan_opts.order_share) */
    flt_dyn cell;          /* the Top-K bound of the files whose first key has the dataset's
                              own type (zeroed: unset), shared by their scans */
    bool topk_done;
    char *explain;
    size_t explain_len;
};

/* (ds_out.c) Appends fmt with path (as shown: no password) and why to the --explain text,
 * cut at DS_EXPLAIN_BYTES, then nothing more. */
void ds_say(ds_scan *d, const char *fmt, const char *path, const char *why);
/* (ds_out.c) Whether the query may need a column only the files pruned by partition have. */
bool ds_names_missing(const ds_scan *d, const ds_scan_args *a);
/* (ds_out.c) The projected columns (names resolved in d's schema) and ORDER BY keys hidden
 * after them, and the columns the query reads (d->used), none of them in conflict
 * (ds_conflicts). 0 or a status with e filled. */
int ds_resolve_out(ds_scan *d, const ds_scan_args *a, pq_err *e);
/* (ds_out.c) RINGSCAN_EUNSUPPORTED with the conflict of a column the query reads (ds_col
 * .conflict: noted as files are added, so checked again as each file joins the schema), or 0. */
int ds_conflicts(const ds_scan *d, pq_err *e);
/* (ds_out.c) Frees what ds_resolve_out made of paths inside nested columns. */
void ds_out_free(ds_scan *d);
/* (ds_out.c) File m's (path's) leaf and node for output column j, a path inside a nested
 * column m has (*node: in, m's node of that column's field; out, the path's): 0, with *leaf
 * -1 when m's field lacks a struct field on the path outside lists (null rows, as DuckDB
 * reads them), or, when it lacks one inside a list or map, *node m's struct that lacks it
 * and *leaf its first leaf (the lists read from it, their values null: DuckDB's
 * [x.c FOR x IN k]); or the error naming path and the projected path. */
int ds_out_path_leaf(const ds_scan *d, int j, const pq_file_meta *m, const char *path, int *leaf,
                     int32_t *node, pq_err *e);
/* (ds_out.c) b (r's batch) rewritten to the dataset's columns into out (b's vectors moved). */
int ds_to_dataset(ds_scan *d, const ds_run *r, scan_batch *b, scan_batch *out, pq_err *e);
/* (ds_out.c) Cuts b to its first rows rows; null counts recounted. */
void ds_cut_rows(scan_batch *b, int64_t rows);
/* (ds_post.c) Whether file r (its view made) casts a column d's filter reads so that its
 * values compare otherwise in the dataset's type (ds_types_cast): then its filter is post's. */
bool ds_post_needed(const ds_scan *d, const ds_run *r);
/* (ds_post.c) r->fpos set (invariant 2) for a post file: the leaves the filter reads that r's
 * projection (leaves[0 .. *nleaves), flat ones with node -1) lacks are appended (room for
 * d->s.n more), their nodes -1. 0 or -ENOMEM. */
int ds_post_leaves(const ds_scan *d, ds_run *r, int *leaves, int32_t *nodes, int *nleaves);
/* (ds_post.c) b (post file r's batch, before ds_to_dataset) cut to the rows d->post passes
 * on its columns cast to the dataset's types. 0 or a status with e filled (a value a cast
 * refuses, a nested field's columns in b: unsupported). */
int ds_post_filter(const ds_scan *d, const ds_run *r, scan_batch *b, pq_err *e);
/* (ds_stats.c) a += b (a dataset's counters over its files). */
void ds_stats_add(scan_stats *a, const scan_stats *b);
/* (ds_stats.c) d->mu made (recursive; ds_scan_start, before anything may free d), freed
 * (ds_scan_free), taken and released (ds_stats.c invariant 1). */
void ds_lock_init(ds_scan *d);
void ds_lock_free(ds_scan *d);
void ds_lock(ds_scan *d);
void ds_unlock(ds_scan *d);

#endif
