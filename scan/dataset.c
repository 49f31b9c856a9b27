/* scan/dataset.c: a dataset scan (dataset.h, ds_scan.h): files pruned by their partitions
 * before any footer is read, footers read concurrently (ds_open.c), the schema built, then
 * one scan (scan.h) per file in path order, every one on the dataset's one runtime (scan_rt.h:
 * the cores, their io rings and coroutine stacks started once), on as many of its cores as it
 * has splits, up to DS_INFLIGHT_MAX of them at once while the files after the one being
 * drained hold less than a window of splits and a sixteenth of the fetch budget decoded (a
 * core whose share of one file is done runs the next files' splits), each file's batches
 * rewritten to the dataset's columns (ds_out.c), a limit counted across files, ORDER BY ...
 * LIMIT merged across files (ds_topk.c). Every file's scan and the footers count in one fetch
 * budget (share: fetch_budget.c invariant 6), every file's batches in one byte bound within it
 * (pool: output.h invariant 9); the file whose batches are being taken leads both.
 *
 * Invariants:
 *  1. runs[head .. head + nrun) (mod DS_INFLIGHT_MAX) are the running files, in path order;
 *     batches are taken from runs[head] only, so output is path order, then row order.
 *  2. A file's footer stays open until its scan has left the runtime; footers are read in
 *     windows (ds_open.c), so at most max_open + DS_INFLIGHT_MAX are held.
 *  3. rows_out <= limit (a batch crossing it is cut).
 *  4. gone[0 .. ngone) are files whose scans returned their last batch but have not left the
 *     runtime yet (scan_left: reads of theirs may be in flight); nrun + ngone <=
 *     DS_INFLIGHT_MAX, the scans attached to the runtime at once (scan_rt.h invariant 1). */
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
#include "scan/ds_run.h"

/* Parse error rc of a filter naming a nested field, or a path in one, of file m or of the
 * dataset: rewritten to say so (as a one-file scan's; the file may lack the field). */
static int nested_named(const ds_scan *d, const pq_file_meta *m, int rc, pq_err *e)
{
    rc = scan_nested_filter(m, NULL, rc, "filtered on", e);
    for (int c = 0; rc != RINGSCAN_EUNSUPPORTED && c < d->s.n; c++)
        if (d->s.cols[c].node >= 0)
            rc = scan_nested_filter(d->s.cols[c].meta, NULL, rc, "filtered on", e);
    return rc;
}

/* File r->fi's filter, parsed against its view; *none when its constants rule it out. A filter
 * on a nested field is refused naming it. */
static int file_filter(ds_scan *d, const ds_run *r, flt_expr **out, bool *none, pq_err *e)
{
    *out = NULL, *none = false;
    const ds_view *v = &r->view;
    ds_fold fold; /* comparisons of partition (or missing) columns decided on this file's values */
    ds_fold_init(&fold, &d->s, v, &d->a.list->files[r->fi]);
    int rc = 0;
    if (d->filter) rc = flt_parse_fold(d->filter, v->cols, v->ncols, &fold.fold, out, e);
    else if (d->a.filter_expr)
        rc = flt_from_tree_fold(scan_expr_tree(d->a.filter_expr), v->cols, v->ncols, &fold.fold,
                                out, e);
    const pq_file_meta *m = &d->ft.slots[r->fi].f->meta;
    if (rc) return nested_named(d, m, rc, e);
    if (*out) rc = ds_filter_split(&d->s, v, &d->a.list->files[r->fi], *out, none, e);
    if (rc == 0 && *out) /* (what is left reads the file's own columns) */
        rc = scan_nested_filter(m, *out, 0, "filtered on", e);
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
                     int32_t *nodes, int *nleaves, pq_err *e)
{
    int n = d->nout + d->nhide;
    *nleaves = 0;
    for (int j = 0; j < n; j++) {
        int leaf = r->view.leaf[d->out[j]], rc = 0;
        int32_t node = r->view.node[d->out[j]]; /* a nested column's (or a path's) node here */
        if (leaf >= 0 && j < d->nout && d->opath[j])
            rc = ds_out_path_leaf(d, j, &d->ft.slots[r->fi].f->meta, d->a.list->files[r->fi].path,
                                  &leaf, &node, e);
        if (rc) return rc;
        r->proj[j] = leaf;
        r->pos[j] = leaf >= 0 ? *nleaves : -1;
        if (leaf >= 0) nodes[*nleaves] = node, leaves[(*nleaves)++] = leaf;
    }
    so->proj_nodes = nodes, so->nproj_nodes = *nleaves;
    if (*nleaves == 0) { /* only virtual columns: the file's first flat column counts its rows
                            (a count's: the filter's first, which the filter reads anyway) */
        int c = x && x->npreds > 0 && x->preds[0].column >= 0 ? x->preds[0].column : 0;
        if (c >= r->view.nfile) c = 0;
        while (c < r->view.nfile && r->view.cols[c].nested) c++;
        int32_t top = -1; /* (none: a nested field the file can read counts them, read whole) */
        const pq_file_meta *m = &d->ft.slots[r->fi].f->meta;
        for (int k = 0; c == r->view.nfile && k < m->ncolumns && top < 0; k++) {
            int32_t t = m->nodes[m->columns[k].node].top;
            if (m->nodes[t].shape_ok > 0 && ds_nested_readable(m, t) == k) c = k, top = t;
        }
        if (c == r->view.nfile) {
            pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "no flat column");
            return ds_file_errf(e, RINGSCAN_EUNSUPPORTED, d->a.list->files[r->fi].path, e->msg);
        }
        nodes[*nleaves] = top, leaves[(*nleaves)++] = c;
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

/* Whether projected column j is read from file r in another physical type than the dataset's
 * (ds_widen converts it: the file's dictionary, if any, is not the column's). */
static bool widened(const ds_scan *d, const ds_run *r, int j)
{
    const pq_column_desc *to = &d->s.cols[d->out[j]].desc;
    int leaf = r->proj[j];
    return leaf >= 0 && d->s.cols[d->out[j]].node < 0 &&
           (r->view.cols[leaf].physical != to->physical || r->view.cols[leaf].type_length != to->type_length);
}

/* Whether an ORDER BY key of d is a column file r's values are cast to text in (ds_widen) or
 * from text (ds_parse_cast): the file's own order of them is not the dataset's ("10" < "9"). */
static bool texted_key(const ds_scan *d, const ds_run *r)
{
    for (int k = 0, j; k < d->topk.nkeys && (j = d->topk.col[k], true); k++)
        if (widened(d, r, j) && (d->s.cols[d->out[j]].desc.physical == PQ_BYTE_ARRAY ||
                                 r->view.cols[r->proj[j]].physical == PQ_BYTE_ARRAY)) return true;
    return false;
}

/* What file f's leaves may take decoded, from its footer: per chunk its uncompressed bytes,
 * or 8 a value when more (dictionary-encoded columns decode to more than their pages). */
static int64_t decoded_bytes(const pqf_t *f, const int *leaves, int n)
{
    int64_t sum = 0;
    for (int g = 0; g < f->meta.nrow_groups; g++)
        for (int j = 0; j < n; j++) {
            const pq_chunk_meta *c = &f->meta.row_groups[g].chunks[leaves[j]];
            int64_t v = c->num_values > INT64_MAX / 8 ? INT64_MAX / 8 : c->num_values * 8;
            int64_t b = c->total_uncompressed_size > v ? c->total_uncompressed_size : v;
            sum = b > INT64_MAX / 2 - sum ? INT64_MAX / 2 : sum + b;
        }
    return sum;
}

/* Starts r's scan (its footer open); *pruned when its constants or statistics rule it out. */
static int start_file(ds_scan *d, ds_run *r, bool *pruned, pq_err *e)
{
    pqf_t *f = d->ft.slots[r->fi].f;
    const char *path = d->a.list->files[r->fi].path;
    int n = d->nout + d->nhide + 1;
    r->proj = fail_malloc(sizeof(int) * (size_t)n), r->pos = fail_malloc(sizeof(int) * (size_t)n);
    int *leaves = fail_malloc(sizeof(int) * (size_t)(n + d->s.n)), nleaves = 0;
    int32_t *nodes = fail_malloc(sizeof(int32_t) * (size_t)(n + d->s.n)); /* (ds_post_leaves) */
    r->scale = fail_malloc(sizeof(int64_t) * (size_t)(d->s.n + 1));
    int rc = r->proj && r->pos && leaves && nodes && r->scale ? 0 : -ENOMEM;
    if (rc == 0 && !d->a.union_by_name) rc = ds_schema_add(&d->s, &f->meta, path, false, e);
    if (rc == 0) rc = ds_conflicts(d, e); /* a column the query reads, this file's in conflict */
    if (rc == 0) rc = ds_view_init(&r->view, &d->s, &f->meta);
    if (rc == 0) rc = ds_types_file(&d->s, &r->view, &f->meta, path, r->scale, e);
    r->post = rc == 0 && ds_post_needed(d, r); /* a filter on cast values: ds_post.c */
    flt_expr *x = NULL; /* (none for a post file: its filter is on cast values) */
    const bool *fl = d->filtered;
    if (rc == 0 && !r->post) rc = ds_types_filter(&d->s, &r->view, r->scale, fl, NULL, path, e);
    if (rc == 0 && !r->post) rc = file_filter(d, r, &x, pruned, e);
    if (rc == 0 && !r->post) rc = ds_types_filter(&d->s, &r->view, r->scale, fl, x, path, e);
    scan_opts so = d->a.so;
    if (rc == 0 && x && (rc = pqf_stats_expr(f, x, e)) != 0) /* what the pruning below reads */
        ds_file_errf(e, rc, path, e->msg);
    if (rc == 0 && !*pruned && d->a.count && !r->post)
        rc = ds_count_file(d->a.count, f, x, &so, &r->groups, &r->settled);
    if (rc == 0 && d->a.count && r->post) /* every group scanned, its rows counted after post */
        d->a.count->groups += f->meta.nrow_groups, d->a.count->scanned += f->meta.nrow_groups;
    if (rc == 0 && (*pruned || r->settled || stats_prune(f, x))) {
        ds_say(d, "file %s: %s\n", path, *pruned ? "pruned by its partition values"
                                    : r->settled ? "counted from its footer" : "pruned by footer statistics");
        *pruned = true;
    }
    if (rc == 0 && !*pruned) rc = file_proj(d, r, x, &so, leaves, nodes, &nleaves, e);
    if (rc == 0 && !*pruned && r->post) rc = ds_post_leaves(d, r, leaves, nodes, &nleaves);
    so.nproj_nodes = nleaves;
    bool *dict_out = NULL; /* dictionary columns as indices (not through Top-K's merge) */
    if (rc == 0 && !*pruned && !d->topk.nkeys && !r->post)
        rc = ds_types_dict_out(d->atypes, r->pos, d->nout, nleaves, &dict_out);
    for (int j = 0; dict_out && j < d->nout; j++) /* a vector ds_widen converts: its values */
        if (r->pos[j] >= 0 && widened(d, r, j)) dict_out[r->pos[j]] = false;
    so.dict_out = dict_out;
    so.topk_keep_bad = d->topk.nkeys > 0; /* (ds_topk.h invariant 3) */
    int64_t left = d->a.limit < 0 ? -1 : d->a.limit - (d->topk.nkeys ? 0 : d->rows_out);
    so.limit = so.nkeys || !d->topk.nkeys ? left : -1;
    if (d->topk.nkeys && !so.nkeys) so.limit = left; /* constant keys: the first K rows */
    /* every row to the merge (it orders text), or to the filter on cast values */
    if (rc == 0 && !*pruned && (texted_key(d, r) || r->post)) so.nkeys = 0, so.limit = -1;
    so.share = d->shared ? &d->share : NULL, so.out_pool = d->shared ? &d->pool : NULL;
    so.order_share = ds_orders_for(&d->orders, x); /* and one conjunct order per filter */
    /* packed rows in a file whose nested leaves are widened (ds_nested_widen rewrites only
     * those) and in every file of a Top-K (its merge joins no packed rows with columns) */
    if (rc == 0 && (d->topk.nkeys || ds_view_nested_widened(&d->s, &r->view, &f->meta)))
        so.nest_cols = false;
    so.rt = d->rt; /* started before the footers (ds_scan_start) */
    if (so.nkeys > 0 && r->proj[d->topk.col[0]] >= 0) { /* the first key is the file's own */
        const pq_column_desc *k = &r->view.cols[r->proj[d->topk.col[0]]];
        const pq_column_desc *dk = &d->s.cols[d->out[d->topk.col[0]]].desc;
        if (k->physical == dk->physical && k->logical == dk->logical &&
            k->type_length == dk->type_length && !r->scale[d->out[d->topk.col[0]]])
            so.topk_cell = &d->cell; /* one domain: a bound from any file prunes the others */
    }
    if (rc == 0 && !*pruned && (rc = scan_start(f, leaves, nleaves, x, &so, &r->scan, e)) != 0)
        ds_file_errf(e, rc, path, e->msg); /* (it owned x) its plan's error names no file */
    else if (rc || *pruned) flt_expr_free(x);
    if (r->scan) {
        scan_stats st;
        scan_get_stats(r->scan, &st);
        r->splits = st.splits;
        r->bytes = decoded_bytes(f, leaves, nleaves);
    }
    free(leaves), free(nodes), free(dict_out);
    return rc;
}

/* Ends r's scan: its counters kept, its footer and view freed (invariant 2). */
static void close_file(ds_scan *d, ds_run *r)
{
    if (r->scan) {
        scan_end(r->scan); /* its counters final */
        ds_say(d, "file %s:\n%s", d->a.list->files[r->fi].path, scan_explain(r->scan));
    }
    ds_lock(d); /* (ds_stats.c invariant 1) */
    scan_stats st;
    if (r->scan) scan_get_stats(r->scan, &st), ds_stats_add(&d->acc, &st), scan_free(r->scan);
    ds_view_free(&r->view);
    free(r->proj), free(r->pos), free(r->groups), free(r->scale), free(r->fpos);
    ds_footers_close(&d->ft, r->fi);
    *r = (ds_run){.fi = -1};
    ds_unlock(d);
}

/* Closes the ended files whose scans have left the runtime (scan_left: their reads done, so
 * their footers may close); with wait, the oldest too, waiting for it. */
static void reap(ds_scan *d, bool wait)
{
    int kept = 0;
    ds_lock(d); /* (ds_stats.c invariant 1: no gone file seen twice) */
    for (int k = 0; k < d->ngone; k++) {
        if (scan_left(d->gone[k].scan) || (wait && k == 0)) close_file(d, &d->gone[k]);
        else d->gone[kept++] = d->gone[k];
    }
    d->ngone = kept;
    ds_unlock(d);
}

/* r's scan ended: closed now, or kept among the gone files until its scan left the runtime
 * (invariant 4), so the next files start without waiting for this one's last reads. */
static void end_file(ds_scan *d, ds_run *r)
{
    if (r->scan && !scan_left(r->scan) && d->ngone < DS_INFLIGHT_MAX) {
        ds_lock(d); /* (ds_stats.c invariant 1) */
        d->gone[d->ngone++] = *r;
        *r = (ds_run){.fi = -1};
        ds_unlock(d);
    } else close_file(d, r);
}

/* The end of the dataset's rows (the last file's, or the limit's): the files still running
 * stopped and every file closed, and the footers read ahead waited for (their requests count
 * in the footer and store counters), so the counters summed are final (ds_scan_stats). */
static void end_all(ds_scan *d)
{
    ds_lock(d); /* (ds_stats.c invariant 1) */
    for (; d->nrun > 0; d->nrun--, d->head = (d->head + 1) % DS_INFLIGHT_MAX)
        close_file(d, &d->runs[d->head]);
    while (d->ngone > 0) reap(d, true);
    ds_unlock(d);
    if (d->ft.slots) ds_footers_join(&d->ft);
}

/* Whether another file may start: fewer than DS_INFLIGHT_MAX run, and the ones after the
 * first hold fewer splits than one scan's output window and may decode less than a sixteenth
 * of the fetch budget (the first keeps every core busy alone when it is big; small files run
 * many at once). */
static bool room(ds_scan *d)
{
    if (d->nrun + d->ngone >= DS_INFLIGHT_MAX) reap(d, true); /* scan_rt.h invariant 1 */
    if (d->nrun == 0) return true;
    int64_t ahead = 0, bytes = 0;
    for (int k = 1; k < d->nrun; k++) {
        const ds_run *r = &d->runs[(d->head + k) % DS_INFLIGHT_MAX];
        ahead += r->splits, bytes += r->bytes;
    }
    int64_t cap = (d->a.so.fetch_budget > 0 ? d->a.so.fetch_budget : SCAN_FETCH_BUDGET) / 16;
    return d->nrun + d->ngone < DS_INFLIGHT_MAX && bytes < cap &&
           ahead < 2 * (int64_t)SCAN_TASKS_PER_CORE * d->a.so.threads;
}

/* Starts files after the last started while there is room (or none is left): footers read
 * in windows as needed, pruned files skipped. Without wait (the scan's start), only files
 * whose footers are read, the next ones' read in the background: the start never waits on a
 * footer (a stalled footer read then waits in a next, which a stop cancels). */
static int fill(ds_scan *d, bool wait, pq_err *e)
{
    const ds_list *l = d->a.list;
    while (room(d) && d->next < l->nfiles && !d->done) {
        if (!wait && !ds_footers_try(&d->ft, d->next)) break;
        int i = d->next++;
        ds_slot *sl = &d->ft.slots[i];
        if (sl->pruned) continue;
        ds_footers_need(&d->ft, i); /* and the next window's read ahead */
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
        ds_lock(d), d->nrun++, ds_unlock(d); /* (ds_stats.c invariant 1) */
    }
    return 0;
}

/* The next dataset batch (hidden keys included) from the first running file, its first
 * row's position (file << 40, then its rank in the file) in *pos; 0 at the end. */
static int pull(ds_scan *d, scan_batch *out, int64_t *pos, pq_err *e)
{
    for (;;) {
        if (atomic_load(&d->stop)) return 0; /* ds_scan_stop ends it: then done, the counters final */
        reap(d, false);
        int rc = d->done ? 0 : fill(d, true, e);
        if (rc) return rc; /* (ended: every file ended) */
        bool full = d->a.limit >= 0 && !d->topk.nkeys && d->rows_out >= d->a.limit;
        if (d->nrun == 0 || full) /* every counter final */
            return end_all(d), atomic_store(&d->done, true), 0;
        ds_run *r = &d->runs[d->head];
        scan_batch b = {.row_group = -1};
        scan_lead(r->scan); /* its base tasks never wait on the shared budget */
        rc = scan_next(r->scan, &b, e);
        if (d->shared) scan_budget_share_wake(&d->share); /* a batch taken: room for all */
        if (rc < 0 && e->msg[0]) /* name the file */
            ds_file_errf(e, e->status, d->a.list->files[r->fi].path, e->msg);
        if (rc == 1 && b.bad && ds_topk_names(&d->topk, &b, d->a.list->files[r->fi].path,
                                              &d->ft.slots[r->fi].f->meta) != 0)
            rc = -ENOMEM; /* (topk_keep_bad's marks: named while the footer is open) */
        if (rc < 0) return scan_batch_free(&b), rc;
        if (rc == 0) {
            ds_lock(d); /* (ds_stats.c invariant 1) */
            end_file(d, r);
            d->head = (d->head + 1) % DS_INFLIGHT_MAX, d->nrun--;
            ds_unlock(d);
            continue;
        }
        if (r->post && (rc = ds_post_filter(d, r, &b, e)) != 0) return scan_batch_free(&b), rc;
        if (r->post && b.rows == 0) { scan_batch_free(&b); continue; } /* (none passed) */
        rc = ds_to_dataset(d, r, &b, out, e);
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
    if ((rc = ds_topk_answer(&d->topk, out, e)) == 0 && out->rows == 0) scan_batch_free(out);
    return rc ? rc : out->rows > 0 ? 1 : 0; /* (no row: the end, its empty batch freed) */
}

/* rc; an error ends every file, so the counters are final (ds_scan.h). */
static int ended(ds_scan *d, int rc)
{
    if (rc < 0) end_all(d), d->done = d->topk_done = true;
    return rc;
}

int ds_scan_next(ds_scan *d, struct ArrowArray *out, pq_err *e)
{
    memset(out, 0, sizeof *out);
    scan_batch b;
    int64_t pos;
    int rc = ended(d, d->topk.nkeys ? pull_topk(d, &b, e) : pull(d, &b, &pos, e));
    if (rc <= 0) return rc;
    if (d->a.limit >= 0 && d->rows_out + b.rows > d->a.limit) ds_cut_rows(&b, d->a.limit - d->rows_out);
    ds_lock(d), d->rows_out += b.rows, ds_unlock(d); /* (ds_stats.c invariant 1) */
    for (int j = d->nout; j < b.ncols; j++) pq_vec_free(&b.cols[j]); /* hidden keys */
    b.ncols = d->nout;
    rc = ended(d, scan_arrow_batch(d->acols, d->a.arrow_flags, &b, out, e));
    scan_batch_free(&b);
    return rc ? rc : 1;
}

int ds_scan_start(const ds_scan_args *a, ds_scan **out, pq_err *e)
{
    ds_scan *d = fail_calloc(1, sizeof *d);
    if (!d) return -ENOMEM;
    ds_lock_init(d);
    *out = d;
    d->a = *a;
    io_store_sum_init(&d->store);
    d->a.io.sum = &d->store, d->a.io.cancel = io_cancel_ref(a->io.cancel); /* (the footers') */
    const ds_list *l = a->list;
    d->shared = a->so.fetch_budget > 0; /* before any footer: they count in it */
    if (d->shared) scan_budget_share_init(&d->share, a->so.fetch_budget, 1);
    if (d->shared) scan_out_pool_init(&d->pool, a->so.fetch_budget);
    int rc = ds_footers_init(&d->ft, l, &d->a.io, a->max_open, d->shared ? &d->share : NULL);
    d->filter = a->filter ? fail_strdup(a->filter) : NULL;
    d->explain = a->so.explain ? fail_calloc(1, DS_EXPLAIN_BYTES) : NULL;
    if (rc || (a->filter && !d->filter) || (a->so.explain && !d->explain)) return -ENOMEM;
    d->a.columns = NULL, d->a.filter = NULL, d->a.order_by = NULL, d->a.dict_columns = NULL;
    ds_schema ps = {0}; /* the partition columns alone, for pruning before any footer */
    rc = ds_schema_parts(&ps, l);
    for (int i = 0; rc == 0 && i < l->nfiles; i++)
        if ((d->ft.slots[i].pruned = ds_prune_partitions(&ps, l, i, d->filter, scan_expr_tree(a->filter_expr)))) {
            ds_say(d, "file %s: pruned by %s\n", l->files[i].path, "its partition values (no footer read)");
            d->files_pruned++;
        }
    ds_schema_free(&ps);
    int kept = 0; /* the files whose io contexts may run at once split the io bounds */
    for (int i = 0; i < l->nfiles; i++) kept += !d->ft.slots[i].pruned;
    d->share.split = kept < DS_INFLIGHT_MAX ? kept > 1 ? kept : 1 : DS_INFLIGHT_MAX;
    d->a.so.groups_besides = kept > 1 ? kept - 1 : 0; /* each file's cut sees the others */
    if (d->a.so.threads < 1) d->a.so.threads = 1;
    if (d->a.so.threads > EXEC_THREADS_MAX) d->a.so.threads = EXEC_THREADS_MAX;
    if (rc == 0) /* the runtime, once (scan_rt.h): it reads the footers too, so its inboxes
                    count their spawns as one scan's more */
        rc = scan_rt_start(&d->rt, d->a.so.threads, d->a.so.io, DS_INFLIGHT_MAX + 1, e);
    if (rc == 0 && d->rt) rc = ds_footers_run_on(&d->ft, d->rt);
    d->s.list = l; /* a file column under a partition's name is not merged (ds_schema_parts) */
    if (rc == 0) rc = ds_footers_schema(&d->ft, &d->s, a->union_by_name, e);
    if (rc == 0) rc = ds_schema_parts(&d->s, l);
    if (rc == 0 && a->union_by_name && d->files_pruned > 0 && ds_names_missing(d, a)) {
        ds_schema_drop_parts(&d->s); /* invariant 1: data columns first */
        rc = ds_footers_schema_pruned(&d->ft, &d->s, e);
        if (rc == 0) rc = ds_schema_parts(&d->s, l);
    }
    if (rc == 0) rc = ds_resolve_out(d, a, e);
    if (rc == 0) rc = fill(d, false, e); /* the first files' errors (a filter's) now */
    return rc;
}

void ds_scan_stop(ds_scan *d)
{
    ds_lock(d); /* done with the counters final (ds_scan_stats) */
    end_all(d);
    d->done = d->topk_done = true; /* no file starts, no Top-K answer from the rows so far */
    ds_unlock(d);
}

void ds_scan_cancel(ds_scan *d)
{
    atomic_store(&d->stop, true);
    if (d->rt) scan_rt_cancel(d->rt);
}

void ds_scan_free(ds_scan *d)
{
    if (!d) return;
    end_all(d);
    if (d->ft.slots) ds_footers_free(&d->ft); /* its footer tasks ended */
    scan_rt_free(d->rt); /* every file's scan has left it */
    if (d->shared) scan_budget_share_free(&d->share); /* nothing counts in it any more */
    if (d->shared) scan_out_pool_free(&d->pool);
    ds_orders_free(&d->orders); /* (no file's scan reports into them) */
    io_store_sum_free(&d->store), io_cancel_unref(d->a.io.cancel); /* every file closed */
    ds_topk_free(&d->topk);
    ds_schema_free(&d->s);
    ds_out_free(d);
    free(d->filter), free(d->out), free(d->used), free(d->filtered), free(d->acols), free(d->atypes);
    flt_expr_free(d->post), free(d->post_cols);
    free(d->explain);
    ds_lock_free(d);
    free(d);
}
