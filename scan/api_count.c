/* scan/api_count.c: ringscan_count, counting rows from the footer where it can (ringscan.h).
 * A row group is settled by its statistics (every conjunct ALL_MATCH: all rows pass), pruned
 * (a conjunct CANNOT_MATCH: none pass), or neither; only the third kind is scanned, as one
 * scan over those groups projecting the filter's first column (the filter reads it anyway,
 * so the projection adds no read). Invariant: rows = settled groups' rows + the scan's rows,
 * capped at the limit; a group is in exactly one of the three counts. */
#include "ringscan.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/prune.h"
#include "scan/api_priv.h"

/* The groups to count: o->row_groups checked (in the file, none twice), or all. */
static int count_groups(const pq_file_meta *m, const ringscan_options *o, int **out, int *n,
                        pq_err *e)
{
    int ng = m->nrow_groups, want = o->row_groups ? o->nrow_groups : ng;
    if (want < 0) return pq_errf(e, -EINVAL, -1, "nrow_groups is negative");
    int *g = fail_malloc(sizeof(int) * (size_t)(want + 1));
    uint8_t *seen = fail_calloc((size_t)ng + 1, 1);
    int rc = g && seen ? 0 : -ENOMEM;
    for (int i = 0; rc == 0 && i < want; i++) {
        g[i] = o->row_groups ? o->row_groups[i] : i;
        if (g[i] < 0 || g[i] >= ng)
            rc = pq_errf(e, -EINVAL, -1, "row group %d is not in the file (it has %d)", g[i], ng);
        else if (seen[g[i]]++)
            rc = pq_errf(e, -EINVAL, -1, "row group %d is listed twice", g[i]);
    }
    free(seen);
    if (rc) free(g), g = NULL;
    *out = g, *n = rc ? 0 : want;
    return rc;
}

/* Scans groups[0..n) with o's filter, counting rows into *rows (at most limit; -1 none). */
static int scan_rest(ringscan_file *f, const ringscan_options *o, const flt_expr *filter,
                     const int *groups, int n, int64_t limit, ringscan_count_info *out,
                     ringscan_error *err)
{
    assert(filter && filter->npreds > 0 && n > 0);
    int32_t c = filter->preds[0].column; /* a constant atom may name none: any column */
    const char *col = f->f->meta.columns[c >= 0 && c < f->f->meta.ncolumns ? c : 0].name;
    ringscan_options so = *o;
    so.columns = &col, so.ncolumns = 1;
    so.order_by = NULL, so.topk_bound = NULL, so.on_topk_bound = NULL;
    so.row_groups = groups, so.nrow_groups = n;
    so.limit = limit;
    so.explain = false;
    ringscan_scan *s;
    int rc = ringscan_scan_start(f, &so, &s, err);
    if (rc) return rc;
    struct ArrowArray b;
    int64_t rows = 0;
    while ((rc = ringscan_scan_next(s, &b, err)) == 1) {
        rows += b.length;
        b.release(&b);
    }
    ringscan_scan_stats(s, &out->scan);
    ringscan_scan_free(s);
    out->rows += rows;
    return rc;
}

int ringscan_count(ringscan_file *f, const ringscan_options *o, ringscan_count_info *out,
                   ringscan_error *err)
{
    if (!out) return scan_api_bad_arg(err, "ringscan_count: out is NULL");
    memset(out, 0, sizeof *out);
    if (!f || !o) return scan_api_bad_arg(err, !f ? "ringscan_count: file is NULL" : "ringscan_count: options are NULL");
    ringscan_options oo;
    int rc = api_take_options(o, &oo, "ringscan_count", true, err);
    if (rc) return rc;
    o = &oo;
    const pq_file_meta *m = &f->f->meta;
    pq_err e = {.offset = -1};
    flt_expr *filter = NULL;
    int *groups = NULL, n = 0, nrest = 0;
    rc = scan_api_filter(f, o, &filter, &e);
    if (rc == 0) rc = pqf_stats_expr(f->f, filter, &e); /* what the pruning below reads */
    if (rc == 0) rc = count_groups(m, o, &groups, &n, &e);
    if (rc) {
        flt_expr_free(filter);
        return api_report(err, f->path, rc, &e);
    }
    for (int i = 0; i < n; i++) { /* groups[0..nrest): those to scan, in place */
        const pq_row_group *g = &m->row_groups[groups[i]];
        flt_prune v = flt_prune_expr_group(filter, g->chunks);
        if (v == FLT_ALL_MATCH) out->rows += g->num_rows, out->row_groups_settled++;
        else if (v == FLT_CANNOT_MATCH) out->row_groups_pruned++;
        else groups[nrest++] = groups[i];
    }
    out->row_groups = n, out->row_groups_scanned = nrest;
    int64_t left = o->limit < 0 ? -1 : o->limit > out->rows ? o->limit - out->rows : 0;
    if (nrest > 0 && left != 0) rc = scan_rest(f, o, filter, groups, nrest, left, out, err);
    if (o->limit >= 0 && out->rows > o->limit) out->rows = o->limit;
    if (nrest == 0 || left == 0) {
        out->scan.complete = true, out->row_groups_scanned = 0;
        out->scan.row_groups_total = n, out->scan.row_groups_pruned = out->row_groups_pruned;
        out->scan.rows_out = out->rows;
    }
    assert(rc || out->row_groups_settled + out->row_groups_pruned + out->row_groups_scanned == n ||
           left == 0);
    flt_expr_free(filter);
    free(groups);
    return rc;
}
