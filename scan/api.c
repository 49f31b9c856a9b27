/* scan/api.c: the public API (ringscan.h) over pqfile.h, scan.h and arrow.h. */
#include "ringscan.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/api_priv.h"
#include "scan/arrow.h"
#include "scan/arrow_types.h"
#include "scan/ds_scan.h"
#include "scan/scan.h"

/* Appends e's place in the file, " (offset N, column C)" (either alone when the other is
 * unknown), to err's message of n characters. */
static void report_where(ringscan_error *err, int n, const pq_err *e)
{
    if (!e || (e->offset < 0 && !e->column[0]) || n <= 0 || (size_t)n >= sizeof err->message) return;
    char *at = err->message + n;
    size_t cap = sizeof err->message - (size_t)n;
    if (e->offset >= 0 && e->column[0])
        snprintf(at, cap, " (offset %lld, column %s)", (long long)e->offset, e->column);
    else if (e->offset >= 0)
        snprintf(at, cap, " (offset %lld)", (long long)e->offset);
    else
        snprintf(at, cap, " (column %s)", e->column);
}

int api_report(ringscan_error *err, const char *path, int rc, const pq_err *e)
{
    if (!err) return rc;
    err->status = rc;
    const char *msg = e && e->msg[0] ? e->msg : ringscan_strerror(rc);
    char shown[512]; /* a URL's password stays out of the message (io/store.h) */
    io_path_shown(shown, sizeof shown, path);
    int n = io_msg_named(msg, path) ? snprintf(err->message, sizeof err->message, "%s", msg)
                  : snprintf(err->message, sizeof err->message, "%s: %s", shown, msg);
    report_where(err, n, e);
    return rc;
}

int ringscan_open(const char *path, ringscan_file **out, ringscan_error *err)
{
    return ringscan_open_with(path, NULL, out, err);
}

int ringscan_open_with(const char *path, const ringscan_options *o, ringscan_file **out,
                       ringscan_error *err)
{
    if (!out) return scan_api_bad_arg(err, "ringscan_open: out is NULL");
    *out = NULL;
    if (!path) return scan_api_bad_arg(err, "ringscan_open: path is NULL");
    ringscan_options oo;
    if (o && api_take_options(o, &oo, "ringscan_open_with", false, err)) return -EINVAL;
    if (o) o = &oo;
    ringscan_file *f = fail_calloc(1, sizeof *f);
    if (!f || !(f->path = fail_strdup(path))) {
        free(f);
        return api_report(err, path, -ENOMEM, NULL);
    }
    pq_err e = {.offset = -1};
    io_open_opts io = {0};
    if (o) scan_api_io_opts(o, &io);
    int rc = pqf_open_with(&f->f, path, &io, NULL, &e);
    if (rc) {
        free(f->path);
        free(f);
        return api_report(err, path, rc, &e);
    }
    atomic_init(&f->refs, 1);
    atomic_fetch_add_explicit(&api_live_objects, 1, memory_order_relaxed);
    *out = f;
    return 0;
}

void api_file_unref(ringscan_file *f)
{
    int was = atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel);
    assert(was >= 1);
    if (was > 1) return;
    atomic_fetch_sub_explicit(&api_live_objects, 1, memory_order_relaxed);
    pqf_close(f->f);
    free(f->path);
    free(f);
}

void ringscan_close(ringscan_file *f)
{
    if (f) api_file_unref(f);
}

int ringscan_file_stats(const ringscan_file *f, int c, ringscan_error *err)
{
    if (!f) return scan_api_bad_arg(err, "ringscan_file_stats: file is NULL");
    if (c < -1 || c >= f->f->meta.ncolumns)
        return scan_api_bad_arg(err, "ringscan_file_stats: c is neither -1 nor a column");
    pq_err e = {.offset = -1};
    int rc = pqf_stats(f->f, c, &e); /* (here, not in api_meta.c: api_report is this file's) */
    return rc ? api_report(err, f->path, rc, &e) : 0;
}

ringscan_scan *api_scan_new(void)
{
    ringscan_scan *s = fail_calloc(1, sizeof *s);
    if (!s) return NULL;
    atomic_init(&s->refs, 1);
    s->pid = getpid();
    pthread_mutex_init(&s->next_mu, NULL);
    atomic_fetch_add_explicit(&api_live_objects, 1, memory_order_relaxed);
    return s;
}

int64_t ringscan_file_rows(const ringscan_file *f) { return f ? f->f->meta.num_rows : -EINVAL; }
int ringscan_file_columns(const ringscan_file *f) { return f ? f->f->meta.ncolumns : -EINVAL; }

static int resolve_columns(ringscan_file *f, const ringscan_options *o, int **idx,
                           int32_t **nodes, int *n, pq_err *e)
{
    const pq_file_meta *m = &f->f->meta;
    *n = o->columns ? o->ncolumns : m->ncolumns;
    *idx = fail_malloc(sizeof(int) * (size_t)(*n > 0 ? *n : 1));
    *nodes = fail_malloc(sizeof(int32_t) * (size_t)(*n > 0 ? *n : 1));
    if (!*idx || !*nodes) return -ENOMEM;
    if (!o->columns) return scan_nested_all(m, *idx, *nodes, n, e);
    for (int i = 0; i < *n; i++) {
        int rc = scan_nested_resolve(m, o->columns[i], &(*idx)[i], &(*nodes)[i], e);
        if (rc) return rc;
    }
    return *n > 0 ? 0 : pq_errf(e, -EINVAL, -1, "no columns to scan");
}

void scan_api_scan_opts(const ringscan_options *o, scan_opts *so)
{
    scan_opts_default(so);
    so->policy = (scan_policy)o->policy;
    so->threads = o->threads > 0 ? o->threads : 2;
    so->io = o->io == RINGSCAN_IO_URING ? EXEC_IO_URING : o->io == RINGSCAN_IO_PREAD ? EXEC_IO_PREAD
                                                                                      : EXEC_IO_AUTO;
    so->ordered = o->ordered;
    so->limit = o->limit;
    so->col_limits.verify_crc = o->verify_checksums;
    so->split_rows = o->split_rows == 0 ? SCAN_SPLIT_ROWS : (o->split_rows < 0 ? 0 : o->split_rows);
    so->use_page_index = o->use_page_index;
    so->use_bloom = o->use_bloom;
    so->explain = o->explain;
    so->fetch_budget = o->fetch_budget_bytes < 0 ? SCAN_FETCH_BUDGET : o->fetch_budget_bytes;
    if (o->topk_bound && o->topk_bound->set) {
        so->topk_seed_set = true;
        so->topk_seed_float = o->topk_bound->is_float;
        so->topk_seed = (flt_lit){.i = o->topk_bound->i, .f = o->topk_bound->f};
    }
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* o->row_groups, checked and sorted into *rgs (malloc'd), as the plan's groups. */
static int pick_row_groups(ringscan_file *f, const ringscan_options *o, int **rgs,
                           scan_opts *so, pq_err *e)
{
    int ng = f->f->meta.nrow_groups;
    if (o->nrow_groups < 0) return pq_errf(e, -EINVAL, -1, "nrow_groups is negative");
    int *g = *rgs = fail_malloc(sizeof(int) * (size_t)(o->nrow_groups + 1));
    if (!g) return -ENOMEM;
    memcpy(g, o->row_groups, sizeof(int) * (size_t)o->nrow_groups);
    qsort(g, (size_t)o->nrow_groups, sizeof(int), int_cmp);
    for (int i = 0; i < o->nrow_groups; i++) {
        if (g[i] < 0 || g[i] >= ng)
            return pq_errf(e, -EINVAL, -1, "row group %d is not in the file (it has %d)", g[i], ng);
        if (i > 0 && g[i] == g[i - 1])
            return pq_errf(e, -EINVAL, -1, "row group %d is listed twice", g[i]);
    }
    so->rg_order = g;
    so->nrg_order = o->nrow_groups;
    return 0;
}

/* o->order_by's keys into so. 0 or a status with e filled. */
static int order_keys(ringscan_file *f, const ringscan_options *o, scan_opts *so, pq_err *e)
{
    flt_order_term t[FLT_MAX_SORT_KEYS];
    int n = 0;
    const pq_file_meta *m = &f->f->meta;
    int rc = flt_parse_order(o->order_by, m->columns, m->ncolumns, o->order_desc, t, &n, e);
    int cols[FLT_MAX_SORT_KEYS];
    for (int j = 0; rc == 0 && j < n; j++) cols[j] = t[j].column;
    rc = scan_nested_keys(m, cols, rc ? 0 : n, rc, e);
    for (int j = 0; rc == 0 && j < n; j++)
        so->keys[j] = (scan_order_key){.col = t[j].column, .desc = t[j].desc,
                                       .nulls_first = t[j].nulls_first};
    if (rc == 0) so->nkeys = n;
    return rc;
}

/* The bound as the API gives it. */
/* scan_opts.topk_notify: hands the bound to options.on_topk_bound (ctx: the ringscan_scan,
 * whose scan field may not be set yet). */
static void notify_bound(void *ctx, flt_domain dom, flt_lit v, uint64_t version)
{
    const ringscan_scan *s = ctx;
    ringscan_topk_bound b;
    api_bound_out(dom, &v, version, true, &b);
    s->on_bound(s->on_bound_ctx, &b);
}

int api_prepare(ringscan_file *f, const ringscan_options *o, int **rgs, int **idx,
                int32_t **nodes, int *n, flt_expr **filter, scan_opts *so, pq_err *e)
{
    int rc = resolve_columns(f, o, idx, nodes, n, e);
    if (rc == 0) rc = scan_api_filter(f, o, filter, e);
    scan_api_scan_opts(o, so);
    so->proj_nodes = *nodes, so->nproj_nodes = rc == 0 ? *n : 0;
    if (rc == 0 && o->order_by) rc = order_keys(f, o, so, e);
    if (rc == 0 && o->row_groups) rc = pick_row_groups(f, o, rgs, so, e);
    return rc;
}

int ringscan_scan_start(ringscan_file *f, const ringscan_options *o, ringscan_scan **out,
                        ringscan_error *err)
{
    if (!out) return scan_api_bad_arg(err, "ringscan_scan_start: out is NULL");
    *out = NULL;
    if (!f || !o) return scan_api_bad_arg(err, !f ? "ringscan_scan_start: file is NULL" : "ringscan_scan_start: options are NULL");
    ringscan_options oo;
    int bad = api_take_options(o, &oo, "ringscan_scan_start", true, err);
    if (bad) return bad;
    o = &oo;
    pq_err e = {.offset = -1};
    int *idx = NULL, n = 0;
    flt_expr *filter = NULL;
    scan_opts so;
    ringscan_scan *s = api_scan_new();
    int rc = s ? api_prepare(f, o, &s->row_groups, &idx, &s->nodes, &n, &filter, &so, &e) : -ENOMEM;
    if (rc == 0 && o->on_topk_bound) {
        s->on_bound = o->on_topk_bound, s->on_bound_ctx = o->on_topk_bound_ctx;
        so.topk_notify = notify_bound, so.topk_notify_ctx = s;
    }
    bool *dict_out = NULL; /* options.dictionary_columns: indices where the decode allows */
    if (rc == 0) rc = scan_arrow_dict_out(&f->f->meta, idx, n, o->dictionary_columns,
                                          o->ndictionary_columns, &dict_out);
    so.dict_out = dict_out;
    /* ringscan_scan_next exports each batch whole */
    so.nest_cols = rc == 0 && !scan_nested_fixed_lists(&f->f->meta, idx, s->nodes, n);
    if (rc == 0) rc = scan_start(f->f, idx, n, filter, &so, &s->scan, &e); /* owns filter */
    else flt_expr_free(filter);
    free(dict_out);
    if (rc == 0 && !(s->cols = fail_calloc((size_t)n, sizeof *s->cols))) rc = -ENOMEM;
    free(idx);
    if (rc) {
        if (s) ringscan_scan_free(s);
        return api_report(err, f->path, rc, &e);
    }
    s->file = f;
    atomic_fetch_add_explicit(&f->refs, 1, memory_order_relaxed);
    s->ncols = n;
    s->topk = so.nkeys > 0 && so.limit >= 0;
    s->arrow_flags = o->int96_raw ? SCAN_ARROW_INT96_RAW : 0;
    for (int i = 0; i < n; i++)
        s->cols[i] = scan_nested_arrow_col(&f->f->meta, scan_proj_desc(s->scan, i), s->nodes[i]);
    if ((rc = scan_arrow_types_build(&f->f->meta, s->cols, n, &s->types, &e)) != 0 ||
        (rc = scan_arrow_types_dictionary(&s->types, s->cols, o->dictionary_columns,
                                          o->ndictionary_columns, &e)) != 0) {
        ringscan_scan_free(s);
        return api_report(err, f->path, rc, &e);
    }
    for (int i = 0; i < n; i++) s->cols[i].type = &s->types.cols[i];
    *out = s;
    return 0;
}

/* err from e (whose message names the file already); returns rc. */
int scan_api_report(ringscan_error *err, int rc, const pq_err *e)
{
    if (err) {
        err->status = rc;
        int n = snprintf(err->message, sizeof err->message, "%s", e->msg[0] ? e->msg : ringscan_strerror(rc));
        /* a place in a dataset's file, as its own scan reports it (a column alone names
         * what a dataset-wide message names already) */
        if (e->offset >= 0) report_where(err, n, e);
    }
    return rc;
}

int ringscan_scan_column(ringscan_scan *s, int i, ringscan_column_info *out)
{
    if (!s || !out) return -EINVAL;
    const pq_column_desc *d = s->ds ? ds_scan_column(s->ds, i) : i >= 0 && i < s->ncols ? s->cols[i].desc : NULL;
    if (!d) return -EINVAL;
    scan_column_info(d, out);
    if (!s->ds) out->name = s->cols[i].name;
    return 0;
}

int ringscan_scan_schema(ringscan_scan *s, struct ArrowSchema *out, ringscan_error *err)
{
    if (!s || !out) return scan_api_bad_arg(err, !s ? "ringscan_scan_schema: scan is NULL" : "ringscan_scan_schema: out is NULL");
    if (s->ds) {
        int rc = ds_scan_schema(s->ds, out);
        pq_err e = {.offset = -1};
        if (rc) pq_errf(&e, rc, -1, "the dataset's schema: %s", rc == -ENOMEM ? "out of memory" : "cannot be exported");
        return rc ? scan_api_report(err, rc, &e) : 0;
    }
    int rc = scan_arrow_schema(s->cols, s->ncols, s->arrow_flags, out);
    if (rc == 0 && (rc = scan_arrow_schema_metadata(out, s->types.metadata)) != 0) out->release(out);
    return rc ? api_report(err, s->file->path, rc, NULL) : 0;
}

/* ringscan_scan_next under s->next_mu. */
static int scan_next_locked(ringscan_scan *s, struct ArrowArray *out, ringscan_error *err)
{
    if (atomic_load(&s->stopped)) return 0; /* batches a stop left queued are not handed out */
    scan_batch b;
    pq_err e = {.offset = -1};
    int rc = s->ds ? ds_scan_next(s->ds, out, &e) : scan_next(s->scan, &b, &e);
    if (rc < 0) {
        if (s->ds) scan_api_report(err, rc, &e);
        else api_report(err, s->file->path, rc, &e);
        snprintf(s->last_error, sizeof s->last_error, "%s", err ? err->message : e.msg);
        return rc;
    }
    if (rc == 0 || s->ds) return rc;
    rc = scan_arrow_batch(s->cols, s->arrow_flags, &b, out, &e);
    scan_batch_free(&b);
    if (rc == 0) return 1;
    api_report(err, s->file->path, rc, &e); /* the stream's get_last_error says it too */
    snprintf(s->last_error, sizeof s->last_error, "%s", err ? err->message : e.msg);
    return rc;
}

/* The end of a stopped scan, under next_mu: its files' scans ended, the counters final
 * (ringscan_scan_stats complete). It runs once: no-op after. */
static void scan_stop_end(ringscan_scan *s)
{
    if (s->ds) ds_scan_stop(s->ds);
    else scan_end(s->scan);
}

/* What a call that returned rc while another thread stopped the scan returns: 0, as every
 * call after the stop (a batch, maybe a partial Top-K answer, released; an error, its reads'
 * cancellation, dropped). */
static int stopped_result(ringscan_scan *s, struct ArrowArray *out, int rc, ringscan_error *err)
{
    if (rc == 1) atomic_fetch_add(&s->rows_dropped, out->length), out->release(out);
    s->last_error[0] = '\0';
    if (err) memset(err, 0, sizeof *err);
    return 0;
}

/* What a next call that began after ringscan_scan_interrupt returns: -EINTR, err filled. */
static int interrupted(ringscan_scan *s, ringscan_error *err)
{
    pq_err e = {.offset = -1};
    pq_errf(&e, -EINTR, -1, "the scan was interrupted by its host (ringscan_scan_interrupt)");
    int rc = s->ds ? scan_api_report(err, -EINTR, &e) : api_report(err, s->file->path, -EINTR, &e);
    snprintf(s->last_error, sizeof s->last_error, "%s", err ? err->message : e.msg);
    return rc;
}

/* What a next call in a child forked while the scan ran returns: -EINVAL, err filled (the
 * scan's threads are the parent's: the call waited for them forever; next_mu may be a parent
 * thread's, so it is not taken). */
static int forked(ringscan_scan *s, ringscan_error *err)
{
    pq_err e = {.offset = -1};
    pq_errf(&e, -EINVAL, -1, "the scan was started in process %d, this is a fork of it (start "
            "a scan in this process)", (int)s->pid);
    int rc = s->ds ? scan_api_report(err, -EINVAL, &e) : api_report(err, s->file->path, -EINVAL, &e);
    snprintf(s->last_error, sizeof s->last_error, "%s", err ? err->message : e.msg);
    return rc;
}

int ringscan_scan_next(ringscan_scan *s, struct ArrowArray *out, ringscan_error *err)
{
    if (!out) return scan_api_bad_arg(err, "ringscan_scan_next: out is NULL");
    memset(out, 0, sizeof *out);
    if (!s) return scan_api_bad_arg(err, "ringscan_scan_next: scan is NULL");
    if (s->pid != getpid()) return forked(s, err);
    bool late = atomic_load(&s->interrupted); /* a call after an interrupt fails */
    pthread_mutex_lock(&s->next_mu);
    int rc = late ? interrupted(s, err) : scan_next_locked(s, out, err);
    if (!late && atomic_load(&s->stopped)) { /* a stop on another thread: this call ends the scan */
        if (rc != 0) rc = stopped_result(s, out, rc, err);
        scan_stop_end(s); /* (the stop's own may wait for next_mu still) */
    }
    pthread_mutex_unlock(&s->next_mu);
    return rc;
}

/* Drops a reference to s; frees it and its file's at the last (not in a forked child). */
static void scan_unref(ringscan_scan *s)
{
    int was = atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel);
    assert(was >= 1);
    if (was > 1 || s->pid != getpid()) return; /* (a forked child's copy: api_priv.h) */
    atomic_fetch_sub_explicit(&api_live_objects, 1, memory_order_relaxed);
    ds_scan_free(s->ds);
    scan_free(s->scan);
    if (s->file) api_file_unref(s->file);
    if (s->dataset) api_dataset_unref(s->dataset);
    ringscan_expr_free(s->filter_expr); /* after ds_scan_free: the last to type it */
    free(s->io_strs);                    /* and the last to open a file with them */
    free(s->cols);
    scan_arrow_types_free(&s->types);
    free(s->row_groups);
    free(s->nodes);
    pthread_mutex_destroy(&s->next_mu);
    free(s);
}

void ringscan_scan_stop(ringscan_scan *s)
{
    if (!s || s->pid != getpid()) return; /* a forked child's copy: its threads are the parent's */
    if (!atomic_exchange(&s->stopped, true)) { /* the first stop cancels */
        if (s->ds) ds_scan_cancel(s->ds); /* a next waiting on another thread returns */
        else scan_cancel(s->scan);
    }
    /* then one end: the next's, or this one, which a later stop (another thread's) waits for
     * too, so every stop returns with the counters final (the end runs once: no-op after) */
    pthread_mutex_lock(&s->next_mu);
    scan_stop_end(s);
    pthread_mutex_unlock(&s->next_mu);
}

void ringscan_scan_interrupt(ringscan_scan *s)
{
    if (!s) return;
    atomic_store(&s->interrupted, true); /* a next beginning from now fails */
    ringscan_scan_stop(s);
}

void ringscan_scan_free(ringscan_scan *s)
{
    if (s) scan_unref(s);
}

/* ---- ArrowArrayStream ---- */

static int stream_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
    return ringscan_scan_schema(st->private_data, out, NULL) ? EIO : 0;
}

static int stream_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
    ringscan_error err;
    int rc = ringscan_scan_next(st->private_data, out, &err); /* one at a time (next_mu) */
    return rc < 0 ? EIO : 0; /* end of stream: out->release == NULL */
}

static const char *stream_error(struct ArrowArrayStream *st)
{
    ringscan_scan *s = st->private_data;
    return s->last_error[0] ? s->last_error : NULL;
}

static void stream_release(struct ArrowArrayStream *st)
{
    scan_unref(st->private_data);
    st->release = NULL;
}

int ringscan_scan_stream(ringscan_scan *s, struct ArrowArrayStream *out)
{
    if (!s || !out) return -EINVAL;
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    *out = (struct ArrowArrayStream){.get_schema = stream_schema, .get_next = stream_next,
                                     .get_last_error = stream_error, .release = stream_release,
                                     .private_data = s};
    return 0;
}
