/* scan/api_dataset.c: the public API of datasets' file lists (ringscan.h "datasets"); their
 * scans start in api.c (ringscan_dataset_scan_start), run in dataset.c. */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/api_priv.h"
#include "scan/ds_scan.h"

int ringscan_dataset_open(const char *const *paths, int npaths, const ringscan_options *o,
                          ringscan_dataset **out, ringscan_error *err)
{
    ringscan_options oo;
    if (o && api_take_options(o, &oo, "ringscan_dataset_open", false, err)) return -EINVAL;
    if (o) o = &oo;
    pq_err e = {.offset = -1};
    int rc = 0;
    ringscan_dataset *d = NULL;
    if (!out) rc = pq_errf(&e, -EINVAL, -1, "invalid argument: ringscan_dataset_open: out is NULL");
    else *out = NULL;
    if (rc == 0 && (!paths || npaths < 1))
        rc = pq_errf(&e, -EINVAL, -1, "invalid argument: ringscan_dataset_open: no paths");
    if (rc == 0 && o && (o->max_files < 0 || o->max_files > DS_FILES_MAX))
        rc = pq_errf(&e, -EINVAL, -1, "invalid argument: max_files outside 0..%d", DS_FILES_MAX);
    if (rc == 0 && o && (o->hive_partitioning < -1 || o->hive_partitioning > 1))
        rc = pq_errf(&e, -EINVAL, -1, "invalid argument: hive_partitioning is not -1, 0 or 1");
    if (rc == 0 && !(d = fail_calloc(1, sizeof *d))) rc = -ENOMEM;
    io_open_opts io = {0};
    if (o) scan_api_io_opts(o, &io);
    if (rc == 0)
        rc = ds_list_build(paths, npaths, o ? o->hive_partitioning : 0, o ? o->hive_types : NULL,
                           o ? o->max_files : 0, &io, &d->list, &e);
    if (rc == 0) {
        atomic_init(&d->refs, 1);
        atomic_fetch_add_explicit(&api_live_objects, 1, memory_order_relaxed);
        *out = d;
        return 0;
    }
    free(d);
    if (err) {
        err->status = rc;
        snprintf(err->message, sizeof err->message, "%s", e.msg[0] ? e.msg : ringscan_strerror(rc));
    }
    return rc;
}

int ringscan_dataset_files(const ringscan_dataset *d)
{
    return d ? d->list.nfiles : -EINVAL;
}

const char *ringscan_dataset_file(const ringscan_dataset *d, int i)
{
    return d && i >= 0 && i < d->list.nfiles ? d->list.files[i].path : NULL;
}

void ringscan_dataset_close(ringscan_dataset *d)
{
    if (d) api_dataset_unref(d);
}

/* What a dataset scan takes from o (check_options passed). 0 or -EINVAL with e filled. */
static int ds_args(ringscan_dataset *d, const ringscan_options *o, ds_scan_args *a, pq_err *e)
{
    *a = (ds_scan_args){.list = &d->list, .columns = o->columns, .ncolumns = o->columns ? o->ncolumns : 0,
                        .filter = o->filter, .filter_expr = o->filter_expr, .order_by = o->order_by,
                        .order_desc = o->order_desc, .limit = o->limit,
                        .union_by_name = o->union_by_name,
                        .dict_columns = o->dictionary_columns,
                        .ndict = o->dictionary_columns ? o->ndictionary_columns : 0,
                        .max_open = o->max_open_files ? o->max_open_files : DS_OPEN_DEFAULT,
                        .arrow_flags = o->int96_raw ? SCAN_ARROW_INT96_RAW : 0};
    scan_api_io_opts(o, &a->io);
    scan_api_scan_opts(o, &a->so);
    if (o->filter && o->filter_expr)
        return pq_errf(e, -EINVAL, -1, "filter and filter_expr are both set; give one");
    if (o->row_groups) return pq_errf(e, -EINVAL, -1, "row_groups is not taken by a dataset scan");
    if (o->on_topk_bound || o->topk_bound)
        return pq_errf(e, -EINVAL, -1, "a dataset scan shares no Top-K bound (topk_bound, on_topk_bound)");
    if (o->max_open_files < 0 || o->max_open_files > DS_OPEN_MAX)
        return pq_errf(e, -EINVAL, -1, "max_open_files outside 0..%d", DS_OPEN_MAX);
    return 0;
}

/* A dataset scan of d with o (count: a dataset count's, ds_scan_args.count) as a public scan
 * holding d. As ringscan_dataset_scan_start. */
static int ds_start(ringscan_dataset *d, const ringscan_options *o, ds_count *count,
                    ringscan_scan **out, ringscan_error *err, const char *fn)
{
    ringscan_options oo;
    int bad = api_take_options(o, &oo, fn, true, err);
    if (bad) return bad;
    o = &oo;
    pq_err e = {.offset = -1};
    ds_scan_args a;
    ringscan_scan *s = api_scan_new();
    int rc = s ? ds_args(d, o, &a, &e) : -ENOMEM;
    if (rc == 0 && scan_api_io_own(&a.io, &s->io_strs) != 0) rc = -ENOMEM; /* (opens go on) */
    if (rc == 0) rc = scan_expr_copy(o->filter_expr, &s->filter_expr, &e);
    if (rc == 0) a.filter_expr = s->filter_expr;
    if (count) a.count = count, a.columns = NULL, a.ncolumns = 0, a.order_by = NULL, a.limit = -1,
               a.dict_columns = NULL, a.ndict = 0;
    if (rc == 0) rc = ds_scan_start(&a, &s->ds, &e);
    if (rc) {
        ringscan_scan_free(s);
        return scan_api_report(err, rc, &e);
    }
    s->dataset = d;
    atomic_fetch_add_explicit(&d->refs, 1, memory_order_relaxed);
    *out = s;
    return 0;
}

int ringscan_dataset_scan_start(ringscan_dataset *d, const ringscan_options *o, ringscan_scan **out,
                                ringscan_error *err)
{
    if (!out) return scan_api_bad_arg(err, "ringscan_dataset_scan_start: out is NULL");
    *out = NULL;
    if (!d || !o) return scan_api_bad_arg(err, !d ? "ringscan_dataset_scan_start: dataset is NULL" : "ringscan_dataset_scan_start: options are NULL");
    return ds_start(d, o, NULL, out, err, "ringscan_dataset_scan_start");
}

int ringscan_dataset_count(ringscan_dataset *d, const ringscan_options *o, ringscan_count_info *out,
                           ringscan_error *err)
{
    if (!out) return scan_api_bad_arg(err, "ringscan_dataset_count: out is NULL");
    memset(out, 0, sizeof *out);
    if (!d || !o) return scan_api_bad_arg(err, !d ? "ringscan_dataset_count: dataset is NULL" : "ringscan_dataset_count: options are NULL");
    ds_count c = {0};
    ringscan_scan *s = NULL;
    int rc = ds_start(d, o, &c, &s, err, "ringscan_dataset_count");
    struct ArrowArray b;
    int64_t rows = 0;
    while (rc == 0 && (rc = ringscan_scan_next(s, &b, err)) == 1) {
        rows += b.length;
        b.release(&b);
        rc = 0;
    }
    if (rc == 0) {
        ringscan_scan_stats(s, &out->scan);
        out->rows = c.rows + rows;
        if (o->limit >= 0 && out->rows > o->limit) out->rows = o->limit;
        out->row_groups = c.groups, out->row_groups_settled = c.settled;
        out->row_groups_pruned = c.pruned, out->row_groups_scanned = c.scanned;
        assert(c.settled + c.pruned + c.scanned == c.groups);
    }
    ringscan_scan_free(s);
    return rc;
}
