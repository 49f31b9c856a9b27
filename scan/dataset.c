/* scan/dataset.c: a dataset scan (dataset.h, ds_scan.h): files pruned by their partitions
 * before any footer is read, footers read concurrently (a window of at most max_open files
 * at once, DS_OPEN_THREADS threads), the schema built, then one scan (scan.h) per file in
 * path order, each file's batches rewritten to the dataset's columns (virtual columns as
 * constants, narrower types widened), a limit counted across files, and ORDER BY ... LIMIT
 * merged across files (ds_topk.c).
 *
 * Invariants:
 *  1. At most one file's scan runs at a time; a file's footer is closed when its scan ends.
 *  2. Files are opened (footers read) only in windows [w, w + max_open) of the kept files;
 *     a window's files stay open until scanned (or, building a union schema over more files
 *     than one window, until read).
 *  3. rows_out <= limit (a batch crossing it is cut). */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
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

/* DS_TAIL_BYTES: a dataset file's footer read: DuckDB's files of 76,000 lineitem rows have
 * 12 KB footers; a larger one costs a second read */
enum { DS_OPEN_THREADS = 8, DS_EXPLAIN_BYTES = 64 << 10, DS_TAIL_BYTES = 64 << 10 };

typedef struct ds_slot {
    pqf_t *f;
    int rc;
    pq_err e;
    bool pruned;           /* by partition (no footer) or statistics */
} ds_slot;

struct ds_scan {
    ds_scan_args a;        /* columns, filter, order_by borrowed only during start: copied */
    char *filter;          /* owned copy */
    char *order_by;
    ds_schema s;
    int nout, nhide;       /* projected columns, hidden ORDER BY keys after them */
    int *out;              /* [nout + nhide]: schema column of each */
    scan_arrow_col *acols; /* [nout] */
    ds_slot *slots;        /* [nfiles] */
    _Atomic int next_open; /* opener threads' cursor */
    int open_end;
    int cur;               /* the file being scanned (nfiles: done) */
    ds_view view;          /* cur's */
    scan_t *scan;          /* cur's, NULL between files */
    int *proj;             /* [nout + nhide]: cur's projection (leaf per column, or -1) */
    int *pos;              /* [nout + nhide]: its place among the scan's vectors, or -1 */
    int64_t rows_out, file_rows;
    scan_stats acc;        /* finished files' counters */
    int64_t files_pruned;
    _Atomic int64_t footers;
    bool done;
    ds_topk topk;          /* nkeys 0 unless ORDER BY */
    bool topk_done;
    char *explain;
    size_t explain_len;
};

static void scan_stats_add(scan_stats *a, const scan_stats *b);

static void say(ds_scan *d, const char *fmt, const char *path, const char *why)
{
    if (!d->explain || d->explain_len + 600 >= DS_EXPLAIN_BYTES) return;
    d->explain_len += (size_t)snprintf(d->explain + d->explain_len, DS_EXPLAIN_BYTES - d->explain_len,
                                       fmt, path, why);
}

static void *opener(void *arg)
{
    ds_scan *d = arg;
    for (;;) {
        int i = atomic_fetch_add(&d->next_open, 1);
        if (i >= d->open_end) return NULL;
        ds_slot *sl = &d->slots[i];
        if (sl->pruned || sl->f || sl->rc) continue;
        sl->e = (pq_err){.offset = -1};
        sl->rc = pqf_open_tail(&sl->f, d->a.list->files[i].path, &d->a.io, DS_TAIL_BYTES, NULL, &sl->e);
        atomic_fetch_add(&d->footers, 1);
    }
}

/* Reads the footers of the unpruned files of [from, to) concurrently (invariant 2). */
static int open_window(ds_scan *d, int from, int to)
{
    pthread_t t[DS_OPEN_THREADS];
    int n = 0, want = 0;
    for (int i = from; i < to; i++) want += !d->slots[i].pruned && !d->slots[i].f;
    atomic_store(&d->next_open, from);
    d->open_end = to;
    for (; n < DS_OPEN_THREADS && n < want - 1; n++)
        if (pthread_create(&t[n], NULL, opener, d)) break;
    opener(d); /* this thread too (alone when no thread could start) */
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    return 0;
}

/* The first file's (or slot's) open error, the path in front. */
static int slot_error(ds_scan *d, int i, pq_err *e)
{
    const char *path = d->a.list->files[i].path;
    pq_err *se = &d->slots[i].e;
    *e = *se;
    snprintf(e->msg, sizeof e->msg, "%.120s: %.128s", path, se->msg[0] ? se->msg : status_text(d->slots[i].rc));
    return d->slots[i].rc;
}

/* The end of the window of at most max_open kept files starting at from. */
static int window_end(const ds_scan *d, int from)
{
    int kept = 0, i = from;
    for (; i < d->a.list->nfiles && kept < d->a.max_open; i++) kept += !d->slots[i].pruned;
    return i;
}

/* The data columns: every kept file's (union) or the first kept file's. */
static int build_schema(ds_scan *d, pq_err *e)
{
    const ds_list *l = d->a.list;
    int first = 0, nkept = 0, rc = 0;
    while (first < l->nfiles && d->slots[first].pruned) first++;
    for (int i = 0; i < l->nfiles; i++) nkept += !d->slots[i].pruned;
    if (first == l->nfiles) { /* every file pruned: the first file's schema, as DuckDB binds */
        first = 0, d->slots[0].pruned = false;
        rc = open_window(d, 0, 1);
        d->slots[0].pruned = true;
        if (rc == 0 && d->slots[0].rc) return slot_error(d, 0, e);
        rc = ds_schema_add(&d->s, &d->slots[0].f->meta, l->files[0].path, true, e);
        pqf_close(d->slots[0].f), d->slots[0].f = NULL;
        return rc;
    }
    bool keep = nkept <= d->a.max_open;
    for (int w = first; rc == 0 && w < l->nfiles;) {
        int end = window_end(d, w);
        rc = open_window(d, w, end);
        for (int i = w; rc == 0 && i < end; i++) {
            if (d->slots[i].pruned) continue;
            if (d->slots[i].rc) return slot_error(d, i, e);
            rc = ds_schema_add(&d->s, &d->slots[i].f->meta, l->files[i].path, true, e);
            if (!d->a.union_by_name) return rc; /* the first file's columns (its window kept) */
            if (!keep) pqf_close(d->slots[i].f), d->slots[i].f = NULL;
        }
        w = end;
    }
    return rc;
}

/* The projected columns (names resolved in the schema) and ORDER BY keys hidden after them. */
static int resolve_out(ds_scan *d, const ds_scan_args *a, pq_err *e)
{
    int n = a->columns ? a->ncolumns : d->s.n;
    d->out = fail_malloc(sizeof(int) * (size_t)(n + FLT_MAX_SORT_KEYS + 1));
    d->acols = fail_calloc((size_t)n + 1, sizeof *d->acols);
    if (!d->out || !d->acols) return -ENOMEM;
    for (int j = 0; j < n; j++) {
        d->out[j] = a->columns ? ds_schema_find(&d->s, a->columns[j]) : j;
        if (d->out[j] < 0)
            return pq_errf(e, -EINVAL, -1, "no column named '%.100s' in the dataset", a->columns[j]);
        d->acols[j] = (scan_arrow_col){.desc = &d->s.cols[d->out[j]].desc, .name = d->s.cols[d->out[j]].name};
    }
    d->nout = n;
    if (n == 0) return pq_errf(e, -EINVAL, -1, "no columns to scan");
    if (!a->order_by || a->limit < 0) return 0;
    pq_column_desc *cols = fail_malloc(sizeof *cols * (size_t)(d->s.n + 1));
    flt_order_term t[FLT_MAX_SORT_KEYS];
    int nk = 0, rc = cols ? 0 : -ENOMEM;
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

/* File i's filter, parsed against its view; *none when its constants rule it out. */
static int file_filter(ds_scan *d, int i, flt_expr **out, bool *none, pq_err *e)
{
    *out = NULL, *none = false;
    const ds_view *v = &d->view;
    int rc = 0;
    if (d->filter) rc = flt_parse(d->filter, v->cols, v->ncols, out, e);
    else if (d->a.filter_expr) rc = scan_filter_from_expr(d->a.filter_expr, v->cols, v->ncols, out, e);
    if (rc == 0 && *out) rc = ds_filter_split(&d->s, v, &d->a.list->files[i], *out, none, e);
    if (rc == 0 && *out && (*out)->npreds == 0) flt_expr_free(*out), *out = NULL;
    return rc;
}

/* Whether the footer's statistics rule every row group of file i out under filter x. */
static bool stats_prune(const pqf_t *f, const flt_expr *x)
{
    if (!x) return false;
    for (int g = 0; g < f->meta.nrow_groups; g++) {
        bool out = false;
        for (int k = 0; !out && k < x->npreds; k++)
            out = !x->preds[k].dyn && flt_prune_group(&x->preds[k], f->meta.row_groups[g].chunks) == FLT_CANNOT_MATCH;
        if (!out) return false;
    }
    return true;
}

/* The projection of file i: per column its leaf (or -1) and its vector's place; the keys of
 * the file's own columns into so. */
static int file_proj(ds_scan *d, int i, scan_opts *so, int *leaves, int *nleaves, pq_err *e)
{
    int n = d->nout + d->nhide;
    *nleaves = 0;
    for (int j = 0; j < n; j++) {
        int leaf = d->view.leaf[d->out[j]];
        d->proj[j] = leaf;
        d->pos[j] = leaf >= 0 ? *nleaves : -1;
        if (leaf >= 0) leaves[(*nleaves)++] = leaf;
    }
    if (*nleaves == 0) { /* only virtual columns: the file's first column counts its rows */
        int c = 0;
        while (c < d->view.nfile && d->view.cols[c].nested) c++;
        if (c == d->view.nfile)
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.200s: no flat column", d->a.list->files[i].path);
        leaves[(*nleaves)++] = c;
    }
    so->nkeys = 0;
    for (int k = 0; k < d->topk.nkeys; k++) {
        int leaf = d->proj[d->topk.col[k]];
        if (leaf < 0) continue; /* a constant in this file: the merge sorts by it */
        so->keys[so->nkeys++] = (scan_order_key){.col = leaf, .desc = d->topk.keys[k].desc,
                                                 .nulls_first = d->topk.keys[k].nulls_first};
    }
    return 0;
}

/* Starts the scan of file i (its footer open), or marks it pruned. */
static int start_file(ds_scan *d, int i, pq_err *e)
{
    ds_slot *sl = &d->slots[i];
    const char *path = d->a.list->files[i].path;
    int rc = d->a.union_by_name ? 0 : ds_schema_add(&d->s, &sl->f->meta, path, false, e);
    if (rc == 0) rc = ds_view_init(&d->view, &d->s, &sl->f->meta);
    flt_expr *x = NULL;
    bool none = false;
    if (rc == 0) rc = file_filter(d, i, &x, &none, e);
    if (rc == 0 && (none || stats_prune(sl->f, x))) {
        say(d, "file %s: pruned by %s\n", path, none ? "its partition values" : "footer statistics");
        d->files_pruned++;
        flt_expr_free(x);
        return 0;
    }
    int *leaves = rc ? NULL : fail_malloc(sizeof(int) * (size_t)(d->nout + d->nhide + 1));
    int nleaves = 0;
    scan_opts so = d->a.so;
    if (rc == 0 && !leaves) rc = -ENOMEM;
    if (rc == 0) rc = file_proj(d, i, &so, leaves, &nleaves, e);
    int64_t left = d->a.limit < 0 ? -1 : d->a.limit - (d->topk.nkeys ? 0 : d->rows_out);
    so.limit = so.nkeys || !d->topk.nkeys ? left : -1;
    if (d->topk.nkeys && !so.nkeys) so.limit = left; /* constant keys: the first K rows */
    if (rc == 0) rc = scan_start(sl->f, leaves, nleaves, x, &so, &d->scan, e); /* owns x */
    else flt_expr_free(x);
    free(leaves);
    d->file_rows = 0;
    return rc;
}

/* Ends file i's scan: its counters kept, its footer and view freed (invariant 1). */
static void end_file(ds_scan *d, int i)
{
    if (d->scan) {
        scan_stats st;
        scan_get_stats(d->scan, &st);
        scan_stats_add(&d->acc, &st);
        scan_free(d->scan);
        d->scan = NULL;
    }
    ds_view_free(&d->view);
    if (d->slots[i].f) pqf_close(d->slots[i].f), d->slots[i].f = NULL;
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

/* Moves to the next file that yields a scan: opens windows as needed, skips pruned files.
 * Sets d->done past the last. */
static int next_file(ds_scan *d, pq_err *e)
{
    const ds_list *l = d->a.list;
    while (!d->scan && !d->done) {
        if (d->cur >= 0 && d->cur < l->nfiles) end_file(d, d->cur);
        d->cur++;
        if (d->cur >= l->nfiles || (d->a.limit >= 0 && !d->topk.nkeys && d->rows_out >= d->a.limit)) {
            d->done = true;
            break;
        }
        ds_slot *sl = &d->slots[d->cur];
        if (sl->pruned) continue;
        if (!sl->f && !sl->rc) open_window(d, d->cur, window_end(d, d->cur));
        if (sl->rc) return slot_error(d, d->cur, e);
        int rc = start_file(d, d->cur, e);
        if (rc) return rc;
    }
    return 0;
}

/* b (file cur's batch) rewritten to the dataset's columns into out (b's vectors moved). */
static int to_dataset(ds_scan *d, scan_batch *b, scan_batch *out)
{
    int n = d->nout + d->nhide;
    *out = (scan_batch){.split = b->split, .rows = b->rows, .ncols = n};
    out->cols = fail_calloc((size_t)n + 1, sizeof *out->cols);
    if (!out->cols) return -ENOMEM;
    int rc = 0;
    for (int j = 0; j < n; j++) {
        const ds_col *c = &d->s.cols[d->out[j]];
        if (rc) {
            pq_vec_init(&out->cols[j], c->desc.physical, c->desc.type_length);
        } else if (d->pos[j] < 0) {
            rc = ds_const_vec(&d->s, d->out[j], &d->a.list->files[d->cur], b->rows, &out->cols[j]);
        } else {
            pq_vec *v = &b->cols[d->pos[j]];
            out->cols[j] = *v;
            pq_vec_init(v, v->type, v->type_length);
            rc = ds_widen(&c->desc, &d->view.cols[d->proj[j]], &out->cols[j]);
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

/* The next dataset batch (hidden keys included) from the files, or 0 at the end. */
static int pull(ds_scan *d, scan_batch *out, pq_err *e)
{
    for (;;) {
        int rc = next_file(d, e);
        if (rc || d->done) return rc;
        scan_batch b;
        rc = scan_next(d->scan, &b, e);
        if (rc < 0 && e->msg[0]) { /* name the file */
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "%.100s: %s", d->a.list->files[d->cur].path, e->msg);
            memcpy(e->msg, msg, sizeof msg);
        }
        if (rc < 0) return rc;
        if (rc == 0) {
            end_file(d, d->cur);
            continue;
        }
        rc = to_dataset(d, &b, out);
        scan_batch_free(&b);
        if (rc) return scan_batch_free(out), rc;
        out->split = d->cur;
        return 1;
    }
}

/* ORDER BY ... LIMIT: every file's best rows merged (ds_topk.c), then one batch. */
static int pull_topk(ds_scan *d, scan_batch *out, pq_err *e)
{
    if (d->topk_done) return 0;
    scan_batch b;
    int rc;
    while ((rc = pull(d, &b, e)) == 1) {
        int64_t base = ((int64_t)d->cur << 40) + d->file_rows;
        d->file_rows += b.rows;
        rc = ds_topk_add(&d->topk, &b, base);
        if (rc) return rc;
    }
    if (rc) return rc;
    d->topk_done = true;
    rc = ds_topk_finish(&d->topk, out);
    return rc ? rc : out->rows > 0 ? 1 : 0;
}

int ds_scan_next(ds_scan *d, struct ArrowArray *out, pq_err *e)
{
    memset(out, 0, sizeof *out);
    scan_batch b;
    int rc = d->topk.nkeys ? pull_topk(d, &b, e) : pull(d, &b, e);
    if (rc <= 0) return rc;
    if (d->a.limit >= 0 && d->rows_out + b.rows > d->a.limit) cut_rows(&b, d->a.limit - d->rows_out);
    d->rows_out += b.rows;
    for (int j = d->nout; j < b.ncols; j++) pq_vec_free(&b.cols[j]); /* hidden keys */
    b.ncols = d->nout;
    rc = scan_arrow_batch(d->acols, d->a.arrow_flags, &b, out);
    scan_batch_free(&b);
    return rc ? rc : 1;
}

int ds_scan_start(const ds_scan_args *a, ds_scan **out, pq_err *e)
{
    ds_scan *d = fail_calloc(1, sizeof *d);
    if (!d) return -ENOMEM;
    *out = d;
    d->a = *a;
    d->cur = -1;
    const ds_list *l = a->list;
    d->slots = fail_calloc((size_t)l->nfiles + 1, sizeof *d->slots);
    d->filter = a->filter ? fail_strdup(a->filter) : NULL;
    d->explain = a->so.explain ? fail_calloc(1, DS_EXPLAIN_BYTES) : NULL;
    if (!d->slots || (a->filter && !d->filter) || (a->so.explain && !d->explain)) return -ENOMEM;
    d->a.columns = NULL, d->a.filter = NULL, d->a.order_by = NULL;
    ds_schema ps = {0}; /* the partition columns alone, for pruning before any footer */
    int rc = ds_schema_parts(&ps, l);
    for (int i = 0; rc == 0 && i < l->nfiles; i++)
        if ((d->slots[i].pruned = ds_prune_partitions(&ps, l, i, d->filter))) {
            say(d, "file %s: pruned by %s\n", l->files[i].path, "its partition values (no footer read)");
            d->files_pruned++;
        }
    ds_schema_free(&ps);
    if (rc == 0) rc = build_schema(d, e);
    if (rc == 0) rc = ds_schema_parts(&d->s, l);
    if (rc == 0) rc = resolve_out(d, a, e);
    int n = d->nout + d->nhide + 1;
    d->proj = rc ? NULL : fail_malloc(sizeof(int) * (size_t)n);
    d->pos = rc ? NULL : fail_malloc(sizeof(int) * (size_t)n);
    if (rc == 0 && (!d->proj || !d->pos)) rc = -ENOMEM;
    if (rc == 0) rc = next_file(d, e); /* the first file's errors (a filter's) now */
    return rc;
}

int ds_scan_schema(ds_scan *d, struct ArrowSchema *out)
{
    return scan_arrow_schema(d->acols, d->nout, d->a.arrow_flags, out);
}

void ds_scan_stats(ds_scan *d, scan_stats *st, int64_t *files, int64_t *pruned, int64_t *footers,
                   bool *complete)
{
    *st = d->acc;
    if (d->scan) {
        scan_stats cur;
        scan_get_stats(d->scan, &cur);
        scan_stats_add(st, &cur);
    }
    st->rows_out = d->rows_out;
    *files = d->a.list->nfiles;
    *pruned = d->files_pruned;
    *footers = atomic_load(&d->footers);
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
    if (d->cur >= 0 && d->cur < d->a.list->nfiles) end_file(d, d->cur);
    for (int i = 0; d->slots && i < d->a.list->nfiles; i++)
        if (d->slots[i].f) pqf_close(d->slots[i].f);
    ds_topk_free(&d->topk);
    ds_schema_free(&d->s);
    free(d->slots), free(d->filter), free(d->out), free(d->acols), free(d->proj), free(d->pos);
    free(d->explain);
    free(d);
}
