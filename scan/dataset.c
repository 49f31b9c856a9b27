/* scan/dataset.c: a dataset scan (dataset.h, ds_scan.h): files pruned by their partitions
 * before any footer is read, footers read concurrently (ds_open.c), the schema built, then
 * one scan (scan.h) per file in path order, up to `inflight` of them running at once (the
 * files after the one being drained run ahead into their own bounded output windows), each
 * file's batches rewritten to the dataset's columns (virtual columns as constants, narrower
 * types widened), a limit counted across files, and ORDER BY ... LIMIT merged across files
 * (ds_topk.c).
 *
 * Invariants:
 *  1. runs[head .. head + nrun) (mod DS_INFLIGHT_MAX) are the running files, in path order;
 *     batches are taken from runs[head] only, so output is path order, then row order.
 *  2. A running file's footer stays open until its scan ends; footers are read in windows
 *     (ds_open.c), so at most max_open + inflight are held.
 *  3. rows_out <= limit (a batch crossing it is cut). */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/status.h"
#include "filter/prune.h"
#include "filter/sortkey.h"
#include "scan/api_priv.h"
#include "scan/ds_impl.h"
#include "scan/ds_scan.h"
#include "scan/ds_topk.h"

/* DS_INFLIGHT_MAX: files whose scans run at once: with `threads` cores, `threads` files of
 * one core each (a file of one row group is one split, so one file at a time would leave
 * every other core idle) */
enum { DS_EXPLAIN_BYTES = 1 << 20, DS_INFLIGHT_MAX = 8 };

/* A file being scanned. */
typedef struct ds_run {
    int fi;
    scan_t *scan;
    ds_view view;
    int *proj;             /* [nout + nhide]: the file's leaf of each column, or -1 */
    int *pos;              /* [nout + nhide]: its place among the scan's vectors, or -1 */
    int64_t rows;          /* rows it handed on (Top-K positions) */
    int64_t *scale;        /* [schema n]: its durations' factor to the dataset's unit */
    int *groups;           /* a count's row groups left to scan (ds_count_file), or NULL */
    bool settled;          /* a count's file whose groups the footer settled (no scan) */
} ds_run;

struct ds_scan {
    ds_scan_args a;        /* columns, filter, order_by borrowed only during start: copied */
    char *filter;          /* owned copy */
    char *order_by;
    ds_schema s;
    int nout, nhide;       /* projected columns, hidden ORDER BY keys after them */
    int *out;              /* [nout + nhide]: schema column of each */
    scan_arrow_col *acols; /* [nout] */
    scan_arrow_type *atypes; /* [nout]: acols' types (ds_types_project) */
    ds_footers ft;
    ds_run runs[DS_INFLIGHT_MAX]; /* invariant 1 */
    int head, nrun, inflight;
    int next;              /* the next file to start */
    int64_t rows_out;
    scan_stats acc;        /* finished files' counters */
    int64_t files_pruned;
    bool done;
    ds_topk topk;          /* nkeys 0 unless ORDER BY */
    flt_dyn cell;          /* the Top-K bound of the files whose first key has the dataset's
                              own type (zeroed: unset), shared by their scans */
    bool topk_done;
    char *explain;
    size_t explain_len;
};

static void scan_stats_add(scan_stats *a, const scan_stats *b);

/* Appends to the --explain text (cut at DS_EXPLAIN_BYTES, then nothing more). */
static void say(ds_scan *d, const char *fmt, const char *path, const char *why)
{
    if (!d->explain || d->explain_len + 1 >= DS_EXPLAIN_BYTES) return;
    size_t room = DS_EXPLAIN_BYTES - d->explain_len;
    int n = snprintf(d->explain + d->explain_len, room, fmt, path, why);
    d->explain_len += n < 0 ? 0 : (size_t)n < room ? (size_t)n : room - 1;
}

/* Whether the query may need a column only the files pruned by partition have: every column
 * (no column list), or a name the schema lacks: projected, an ORDER BY key, or one the filter
 * reads (it fails to type against every schema column). */
static bool names_missing(const ds_scan *d, const ds_scan_args *a)
{
    if (!a->columns && !a->count) return true; /* a count reads the filter's columns only: */
    /* they are checked below (a union by name's column only a pruned file has) */
    for (int j = 0; a->columns && j < a->ncolumns; j++)
        if (ds_schema_find(&d->s, a->columns[j]) < 0) return true;
    pq_column_desc *cols = fail_malloc(sizeof *cols * (size_t)(d->s.n + 1));
    if (!cols) return false;
    for (int c = 0; c < d->s.n; c++) cols[c] = d->s.cols[c].desc, cols[c].index = c;
    flt_order_term t[FLT_MAX_SORT_KEYS];
    flt_expr *x = NULL;
    pq_err e = {.offset = -1};
    int nk = 0;
    bool miss = a->order_by && flt_parse_order(a->order_by, cols, d->s.n, false, t, &nk, &e) != 0;
    if (!miss && a->filter) miss = flt_parse(a->filter, cols, d->s.n, &x, &e) != 0;
    else if (!miss && a->filter_expr) miss = scan_filter_from_expr(a->filter_expr, cols, d->s.n, &x, &e) != 0;
    flt_expr_free(x);
    free(cols);
    return miss;
}

/* The projected columns (names resolved in the schema) and ORDER BY keys hidden after them. */
static int resolve_out(ds_scan *d, const ds_scan_args *a, pq_err *e)
{
    int n = a->count ? 0 : a->columns ? a->ncolumns : d->s.n;
    d->out = fail_malloc(sizeof(int) * (size_t)(n + FLT_MAX_SORT_KEYS + 1));
    d->acols = fail_calloc((size_t)n + 1, sizeof *d->acols);
    if (!d->out || !d->acols) return -ENOMEM;
    for (int j = 0; j < n; j++) {
        d->out[j] = a->columns ? ds_schema_find(&d->s, a->columns[j]) : j;
        const char *in = d->out[j] < 0 ? ds_schema_nested(&d->s, a->columns[j]) : NULL;
        if (in)
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.100s' is nested (a list, struct "
                           "or map) in %.200s: a dataset scan reads flat columns only", a->columns[j], in);
        if (d->out[j] < 0)
            return pq_errf(e, -EINVAL, -1, "no column named '%.100s' in the dataset", a->columns[j]);
        const ds_col *c = &d->s.cols[d->out[j]];
        d->acols[j] = (scan_arrow_col){.desc = &c->desc, .name = c->name, .node = -1};
    }
    d->nout = n; /* their Arrow types (ds_impl.h invariant 4) and dictionary_columns */
    int rc = ds_types_project(&d->s, d->out, n, a->dict_columns, a->ndict, d->acols, &d->atypes, e);
    if (rc) return rc;
    if (n == 0 && !a->count) return pq_errf(e, -EINVAL, -1, "no columns to scan");
    if (!a->order_by || a->limit < 0) return 0;
    pq_column_desc *cols = fail_malloc(sizeof *cols * (size_t)(d->s.n + 1));
    flt_order_term t[FLT_MAX_SORT_KEYS];
    int nk = 0;
    rc = cols ? 0 : -ENOMEM;
    for (int c = 0; rc == 0 && c < d->s.n; c++) cols[c] = d->s.cols[c].desc;
    if (rc == 0) rc = flt_parse_order(a->order_by, cols, d->s.n, a->order_desc, t, &nk, e);
    for (int k = 0; rc == 0 && k < nk; k++) {
        int at = n;
        for (int j = 0; j < n; j++) if (d->out[j] == t[k].column) at = j;
        if (at == n) at = n + d->nhide, d->out[n + d->nhide++] = t[k].column;
        rc = ds_topk_key(&d->topk, &d->s.cols[t[k].column].desc, at, t[k].desc, t[k].nulls_first, e);
    }
    free(cols);
    if (rc == 0) d->topk.k = a->limit;
    return rc;
}

/* File r->fi's filter, parsed against its view; *none when its constants rule it out. */
static int file_filter(ds_scan *d, const ds_run *r, flt_expr **out, bool *none, pq_err *e)
{
    *out = NULL, *none = false;
    const ds_view *v = &r->view;
    int rc = 0;
    if (d->filter) rc = flt_parse(d->filter, v->cols, v->ncols, out, e);
    else if (d->a.filter_expr) rc = scan_filter_from_expr(d->a.filter_expr, v->cols, v->ncols, out, e);
    if (rc == 0 && *out) rc = ds_filter_split(&d->s, v, &d->a.list->files[r->fi], *out, none, e);
    if (rc == 0 && *out && (*out)->npreds == 0) flt_expr_free(*out), *out = NULL;
    return rc;
}

/* Whether the footer's statistics rule every row group of f out under filter x. */
static bool stats_prune(const pqf_t *f, const flt_expr *x)
{
    for (int g = 0; x && g < f->meta.nrow_groups; g++)
        if (flt_prune_expr_group(x, f->meta.row_groups[g].chunks) != FLT_CANNOT_MATCH) return false;
    return x != NULL;
}

/* r's projection: per column its leaf (or -1) and its vector's place; the keys of the file's
 * own columns into so. */
static int file_proj(ds_scan *d, ds_run *r, const flt_expr *x, scan_opts *so, int *leaves,
                     int *nleaves, pq_err *e)
{
    int n = d->nout + d->nhide;
    *nleaves = 0;
    for (int j = 0; j < n; j++) {
        int leaf = r->view.leaf[d->out[j]];
        r->proj[j] = leaf;
        r->pos[j] = leaf >= 0 ? *nleaves : -1;
        if (leaf >= 0) leaves[(*nleaves)++] = leaf;
    }
    if (*nleaves == 0) { /* only virtual columns: the file's first flat column counts its rows
                            (a count's: the filter's first, which the filter reads anyway) */
        int c = x && x->npreds > 0 && x->preds[0].column >= 0 ? x->preds[0].column : 0;
        if (c >= r->view.nfile) c = 0;
        while (c < r->view.nfile && r->view.cols[c].nested) c++;
        if (c == r->view.nfile)
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.200s: no flat column", d->a.list->files[r->fi].path);
        leaves[(*nleaves)++] = c;
    }
    so->nkeys = 0;
    for (int k = 0; k < d->topk.nkeys; k++) {
        int leaf = r->proj[d->topk.col[k]];
        if (leaf < 0) continue; /* a constant in this file: the merge sorts by it */
        so->keys[so->nkeys++] = (scan_order_key){.col = leaf, .desc = d->topk.keys[k].desc,
                                                 .nulls_first = d->topk.keys[k].nulls_first};
    }
    return 0;
}

/* Starts r's scan (its footer open); *pruned when its constants or statistics rule it out. */
static int start_file(ds_scan *d, ds_run *r, bool *pruned, pq_err *e)
{
    pqf_t *f = d->ft.slots[r->fi].f;
    const char *path = d->a.list->files[r->fi].path;
    int n = d->nout + d->nhide + 1;
    r->proj = fail_malloc(sizeof(int) * (size_t)n), r->pos = fail_malloc(sizeof(int) * (size_t)n);
    int *leaves = fail_malloc(sizeof(int) * (size_t)n), nleaves = 0;
    r->scale = fail_malloc(sizeof(int64_t) * (size_t)(d->s.n + 1));
    int rc = r->proj && r->pos && leaves && r->scale ? 0 : -ENOMEM;
    if (rc == 0 && !d->a.union_by_name) rc = ds_schema_add(&d->s, &f->meta, path, false, e);
    if (rc == 0) rc = ds_view_init(&r->view, &d->s, &f->meta);
    if (rc == 0) rc = ds_types_file(&d->s, &r->view, &f->meta, path, r->scale, e);
    flt_expr *x = NULL;
    if (rc == 0) rc = file_filter(d, r, &x, pruned, e);
    if (rc == 0) rc = ds_types_filter(&d->s, &r->view, r->scale, x, path, e);
    scan_opts so = d->a.so;
    if (rc == 0 && !*pruned && d->a.count) rc = ds_count_file(d->a.count, f, x, &so, &r->groups, &r->settled);
    if (rc == 0 && (*pruned || r->settled || stats_prune(f, x))) {
        say(d, "file %s: %s\n", path, *pruned ? "pruned by its partition values"
                                    : r->settled ? "counted from its footer" : "pruned by footer statistics");
        *pruned = true;
    }
    if (rc == 0 && !*pruned) rc = file_proj(d, r, x, &so, leaves, &nleaves, e);
    bool *dict_out = NULL; /* dictionary columns as indices (not through Top-K's merge) */
    if (rc == 0 && !*pruned && !d->topk.nkeys)
        rc = ds_types_dict_out(d->atypes, r->pos, d->nout, nleaves, &dict_out);
    so.dict_out = dict_out;
    int64_t left = d->a.limit < 0 ? -1 : d->a.limit - (d->topk.nkeys ? 0 : d->rows_out);
    so.limit = so.nkeys || !d->topk.nkeys ? left : -1;
    if (d->topk.nkeys && !so.nkeys) so.limit = left; /* constant keys: the first K rows */
    so.threads = d->a.so.threads / d->inflight > 1 ? d->a.so.threads / d->inflight : 1;
    if (so.nkeys > 0 && r->proj[d->topk.col[0]] >= 0) { /* the first key is the file's own */
        const pq_column_desc *k = &r->view.cols[r->proj[d->topk.col[0]]];
        const pq_column_desc *dk = &d->s.cols[d->out[d->topk.col[0]]].desc;
        if (k->physical == dk->physical && k->logical == dk->logical &&
            k->type_length == dk->type_length && !r->scale[d->out[d->topk.col[0]]])
            so.topk_cell = &d->cell; /* one domain: a bound from any file prunes the others */
    }
    if (rc == 0 && !*pruned) rc = scan_start(f, leaves, nleaves, x, &so, &r->scan, e); /* owns x */
    else flt_expr_free(x);
    free(leaves), free(dict_out);
    return rc;
}

/* Ends r's scan: its counters kept, its footer and view freed (invariant 2). */
static void end_file(ds_scan *d, ds_run *r)
{
    if (r->scan) {
        say(d, "file %s:\n%s", d->a.list->files[r->fi].path, scan_explain(r->scan));
        scan_stats st;
        scan_get_stats(r->scan, &st);
        scan_stats_add(&d->acc, &st);
        scan_free(r->scan);
    }
    ds_view_free(&r->view);
    free(r->proj), free(r->pos), free(r->groups), free(r->scale);
    ds_footers_close(&d->ft, r->fi);
    *r = (ds_run){.fi = -1};
}

static void scan_stats_add(scan_stats *a, const scan_stats *b)
{
    a->reads += b->reads, a->bytes_read += b->bytes_read, a->bytes_used += b->bytes_used;
    a->bytes_wasted += b->bytes_wasted, a->cancelled_reads += b->cancelled_reads;
    a->plan_reads += b->plan_reads, a->plan_bytes += b->plan_bytes;
    a->row_groups_total += b->row_groups_total, a->row_groups_pruned += b->row_groups_pruned;
    a->pages_total += b->pages_total, a->pages_pruned += b->pages_pruned;
    a->rows_scanned += b->rows_scanned, a->splits_all_false += b->splits_all_false;
    a->steals += b->steals, a->reads_lent += b->reads_lent;
    a->topk_splits_dead += b->topk_splits_dead, a->topk_rows_kept += b->topk_rows_kept;
    a->topk_pages_dead += b->topk_pages_dead, a->splits += b->splits;
    a->splits_done += b->splits_done, a->bytes_decompressed += b->bytes_decompressed;
    a->dict_eval_pages += b->dict_eval_pages, a->sel_eval_pages += b->sel_eval_pages;
    a->uring = b->uring;
    memcpy(a->io_backend, b->io_backend, sizeof a->io_backend);
}

/* Starts files after the last started until inflight run (or none is left): footers read in
 * windows as needed, pruned files skipped. */
static int fill(ds_scan *d, pq_err *e)
{
    const ds_list *l = d->a.list;
    while (d->nrun < d->inflight && d->next < l->nfiles && !d->done) {
        int i = d->next++;
        ds_slot *sl = &d->ft.slots[i];
        if (sl->pruned) continue;
        if (!sl->f && !sl->rc) ds_footers_open(&d->ft, i, ds_footers_window_end(&d->ft, i));
        if (sl->rc) return ds_footers_error(&d->ft, i, e);
        ds_run *r = &d->runs[(d->head + d->nrun) % DS_INFLIGHT_MAX];
        *r = (ds_run){.fi = i};
        bool pruned = false;
        int rc = start_file(d, r, &pruned, e);
        if (rc || pruned) {
            d->files_pruned += pruned && rc == 0 && !r->settled;
            end_file(d, r);
            if (rc) return rc;
            continue;
        }
        d->nrun++;
    }
    return 0;
}

/* b (r's batch) rewritten to the dataset's columns into out (b's vectors moved). */
static int to_dataset(ds_scan *d, const ds_run *r, scan_batch *b, scan_batch *out, pq_err *e)
{
    int n = d->nout + d->nhide;
    *out = (scan_batch){.split = r->fi, .rows = b->rows, .ncols = n};
    out->cols = fail_calloc((size_t)n + 1, sizeof *out->cols);
    if (!out->cols) return -ENOMEM;
    int rc = 0;
    for (int j = 0; j < n; j++) {
        const ds_col *c = &d->s.cols[d->out[j]];
        if (rc) {
            pq_vec_init(&out->cols[j], c->desc.physical, c->desc.type_length);
        } else if (r->pos[j] < 0) {
            rc = ds_const_vec(&d->s, d->out[j], &d->a.list->files[r->fi], b->rows, &out->cols[j]);
        } else {
            pq_vec *v = &b->cols[r->pos[j]];
            out->cols[j] = *v;
            pq_vec_init(v, v->type, v->type_length);
            if (b->dict_on && b->dict_on[r->pos[j]]) { /* indices: their dictionary with them */
                rc = scan_batch_set_dict(out, j, &b->dicts[r->pos[j]]);
                continue;
            }
            rc = ds_widen(&c->desc, &r->view.cols[r->proj[j]], &out->cols[j]);
            int64_t k = r->scale[d->out[j]];
            if (rc == 0 && k) rc = ds_rescale(c, k, d->a.list->files[r->fi].path, &out->cols[j], e);
        }
    }
    return rc;
}

/* Cuts b to its first rows rows (invariant 3); null counts recounted. */
static void cut_rows(scan_batch *b, int64_t rows)
{
    for (int j = 0; j < b->ncols; j++) {
        pq_vec *v = &b->cols[j];
        v->length = rows;
        if (v->type == PQ_BYTE_ARRAY) v->data_len = v->offsets[rows];
        if (v->null_count == 0) continue;
        int64_t nulls = 0;
        for (int64_t r = 0; r < rows; r++) nulls += !pq_bit_get(v->validity, r);
        v->null_count = nulls;
    }
    b->rows = rows;
}

/* The next dataset batch (hidden keys included) from the first running file, its first
 * row's position (file << 40, then its rank in the file) in *pos; 0 at the end. */
static int pull(ds_scan *d, scan_batch *out, int64_t *pos, pq_err *e)
{
    for (;;) {
        int rc = d->done ? 0 : fill(d, e);
        if (rc || d->nrun == 0) return d->done = true, rc;
        if (d->a.limit >= 0 && !d->topk.nkeys && d->rows_out >= d->a.limit) return d->done = true, 0;
        ds_run *r = &d->runs[d->head];
        scan_batch b;
        rc = scan_next(r->scan, &b, e);
        if (rc < 0 && e->msg[0]) { /* name the file */
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "%.100s: %s", d->a.list->files[r->fi].path, e->msg);
            memcpy(e->msg, msg, sizeof msg);
        }
        if (rc < 0) return rc;
        if (rc == 0) {
            end_file(d, r);
            d->head = (d->head + 1) % DS_INFLIGHT_MAX, d->nrun--;
            continue;
        }
        rc = to_dataset(d, r, &b, out, e);
        scan_batch_free(&b);
        if (rc) return scan_batch_free(out), rc;
        *pos = ((int64_t)r->fi << 40) + r->rows;
        r->rows += out->rows;
        return 1;
    }
}

/* ORDER BY ... LIMIT: every file's best rows merged (ds_topk.c), then one batch. */
static int pull_topk(ds_scan *d, scan_batch *out, pq_err *e)
{
    if (d->topk_done) return 0;
    scan_batch b;
    int64_t pos = 0;
    int rc;
    while ((rc = pull(d, &b, &pos, e)) == 1)
        if ((rc = ds_topk_add(&d->topk, &b, pos)) != 0) return rc;
    if (rc) return rc;
    d->topk_done = true;
    rc = ds_topk_finish(&d->topk, out);
    return rc ? rc : out->rows > 0 ? 1 : 0;
}

int ds_scan_next(ds_scan *d, struct ArrowArray *out, pq_err *e)
{
    memset(out, 0, sizeof *out);
    scan_batch b;
    int64_t pos;
    int rc = d->topk.nkeys ? pull_topk(d, &b, e) : pull(d, &b, &pos, e);
    if (rc <= 0) return rc;
    if (d->a.limit >= 0 && d->rows_out + b.rows > d->a.limit) cut_rows(&b, d->a.limit - d->rows_out);
    d->rows_out += b.rows;
    for (int j = d->nout; j < b.ncols; j++) pq_vec_free(&b.cols[j]); /* hidden keys */
    b.ncols = d->nout;
    rc = scan_arrow_batch(d->acols, d->a.arrow_flags, &b, out, e);
    scan_batch_free(&b);
    return rc ? rc : 1;
}

int ds_scan_start(const ds_scan_args *a, ds_scan **out, pq_err *e)
{
    ds_scan *d = fail_calloc(1, sizeof *d);
    if (!d) return -ENOMEM;
    *out = d;
    d->a = *a;
    const ds_list *l = a->list;
    int rc = ds_footers_init(&d->ft, l, &d->a.io, a->max_open);
    d->filter = a->filter ? fail_strdup(a->filter) : NULL;
    d->explain = a->so.explain ? fail_calloc(1, DS_EXPLAIN_BYTES) : NULL;
    if (rc || (a->filter && !d->filter) || (a->so.explain && !d->explain)) return -ENOMEM;
    d->a.columns = NULL, d->a.filter = NULL, d->a.order_by = NULL, d->a.dict_columns = NULL;
    ds_schema ps = {0}; /* the partition columns alone, for pruning before any footer */
    rc = ds_schema_parts(&ps, l);
    for (int i = 0; rc == 0 && i < l->nfiles; i++)
        if ((d->ft.slots[i].pruned = ds_prune_partitions(&ps, l, i, d->filter, scan_expr_tree(a->filter_expr)))) {
            say(d, "file %s: pruned by %s\n", l->files[i].path, "its partition values (no footer read)");
            d->files_pruned++;
        }
    ds_schema_free(&ps);
    int kept = 0; /* inflight: one file per core, at most the files left and DS_INFLIGHT_MAX */
    for (int i = 0; i < l->nfiles; i++) kept += !d->ft.slots[i].pruned;
    d->inflight = a->so.threads < kept ? a->so.threads : kept;
    if (d->inflight > DS_INFLIGHT_MAX) d->inflight = DS_INFLIGHT_MAX;
    if (d->inflight < 1) d->inflight = 1;
    if (rc == 0) rc = ds_footers_schema(&d->ft, &d->s, a->union_by_name, e);
    if (rc == 0) rc = ds_schema_parts(&d->s, l);
    if (rc == 0 && a->union_by_name && d->files_pruned > 0 && names_missing(d, a)) {
        ds_schema_drop_parts(&d->s); /* invariant 1: data columns first */
        rc = ds_footers_schema_pruned(&d->ft, &d->s, e);
        if (rc == 0) rc = ds_schema_parts(&d->s, l);
    }
    if (rc == 0) rc = resolve_out(d, a, e);
    if (rc == 0) rc = fill(d, e); /* the first files' errors (a filter's) now */
    return rc;
}

int ds_scan_schema(ds_scan *d, struct ArrowSchema *out)
{
    int rc = scan_arrow_schema(d->acols, d->nout, d->a.arrow_flags, out);
    if (rc == 0 && (rc = scan_arrow_schema_metadata(out, d->s.metadata)) != 0) out->release(out);
    return rc;
}

void ds_scan_stats(ds_scan *d, scan_stats *st, int64_t *files, int64_t *pruned, int64_t *footers,
                   bool *complete)
{
    *st = d->acc;
    for (int k = 0; k < d->nrun; k++) {
        scan_stats cur;
        scan_get_stats(d->runs[(d->head + k) % DS_INFLIGHT_MAX].scan, &cur);
        scan_stats_add(st, &cur);
    }
    st->rows_out = d->rows_out;
    *files = d->a.list->nfiles;
    *pruned = d->files_pruned;
    *footers = atomic_load(&d->ft.read);
    *complete = d->done;
}

const pq_column_desc *ds_scan_column(const ds_scan *d, int i)
{
    return i >= 0 && i < d->nout ? &d->s.cols[d->out[i]].desc : NULL;
}

const char *ds_scan_explain(const ds_scan *d)
{
    return d->explain ? d->explain : "";
}

void ds_scan_free(ds_scan *d)
{
    if (!d) return;
    for (; d->nrun > 0; d->nrun--, d->head = (d->head + 1) % DS_INFLIGHT_MAX)
        end_file(d, &d->runs[d->head]);
    if (d->ft.slots) ds_footers_free(&d->ft);
    ds_topk_free(&d->topk);
    ds_schema_free(&d->s);
    free(d->filter), free(d->out), free(d->acols), free(d->atypes);
    free(d->explain);
    free(d);
}
