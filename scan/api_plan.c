/* scan/api_plan.c: the public calls that plan without scanning (ringscan.h): the Top-K seed
 * from statistics, and the row groups a scan would read, for a host that hands a file's row
 * groups to several workers (the Dask integration plans on its client with it); and a running
 * Top-K scan's bound, taken and offered (siblings exchange it). */
#include "ringscan.h"
#include "common/fail.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scan/api_priv.h"
#include "scan/explain.h"
#include "scan/plan.h"
#include "scan/scan.h"
#include "scan/topk.h"

int ringscan_topk_seed(ringscan_file *f, const ringscan_options *o, ringscan_topk_bound *out,
                       ringscan_error *err)
{
    if (!out) return scan_api_bad_arg(err, "ringscan_topk_seed: out is NULL");
    memset(out, 0, sizeof *out);
    if (!f || !o) return scan_api_bad_arg(err, !f ? "ringscan_topk_seed: file is NULL" : "ringscan_topk_seed: options are NULL");
    ringscan_options oo;
    int bad = api_take_options(o, &oo, "ringscan_topk_seed", true, err);
    if (bad) return bad;
    o = &oo;
    if (!o->order_by || o->limit < 0) return scan_api_bad_arg(err, "ringscan_topk_seed: the options have no ORDER BY ... LIMIT");
    pq_err e = {.offset = -1};
    int *idx = NULL, n = 0;
    flt_expr *filter = NULL;
    scan_opts so;
    int *rgs = NULL; /* options.row_groups, sorted */
    int32_t *nodes = NULL;
    int rc = api_prepare(f, o, &rgs, &idx, &nodes, &n, &filter, &so, &e);
    flt_lit v = {0};
    flt_domain dom = FLT_DOM_I64;
    bool set = false;
    if (rc == 0) rc = scan_topk_seed(f->f, &so, n, filter, &v, &dom, &set, &e); /* owns filter */
    else flt_expr_free(filter);
    free(idx);
    free(nodes);
    free(rgs);
    if (rc) return api_report(err, f->path, rc, &e);
    api_bound_out(dom, &v, 0, set, out);
    return 0;
}

/* The unpruned splits' row groups of p, ascending and distinct, into out[0..cap); the count. */
static int kept_groups(const scan_plan *p, int *out, int cap)
{
    int n = 0, last = -1;
    for (int i = 0; i < p->nsplits; i++) { /* splits come in row-group order */
        const scan_split *sp = &p->splits[i];
        if (sp->pruned || sp->rg == last) continue;
        last = sp->rg;
        if (n < cap) out[n] = sp->rg;
        n++;
    }
    return n;
}

int ringscan_plan_row_groups(ringscan_file *f, const ringscan_options *o, int *out, int cap,
                             ringscan_error *err)
{
    if (!f || !o) return scan_api_bad_arg(err, !f ? "ringscan_plan_row_groups: file is NULL" : "ringscan_plan_row_groups: options are NULL");
    if (cap < 0 || (cap > 0 && !out)) return scan_api_bad_arg(err, "ringscan_plan_row_groups: out is NULL or cap negative");
    ringscan_options oo;
    int bad = api_take_options(o, &oo, "ringscan_plan_row_groups", true, err);
    if (bad) return bad;
    oo.order_by = NULL; /* statistics pruning for the filter only */
    pq_err e = {.offset = -1};
    int *idx = NULL, n = 0, *rgs = NULL;
    flt_expr *filter = NULL;
    scan_opts so;
    scan_plan p;
    memset(&p, 0, sizeof p);
    scan_explain_buf x;
    int32_t *nodes = NULL;
    int rc = api_prepare(f, &oo, &rgs, &idx, &nodes, &n, &filter, &so, &e);
    if (rc == 0) rc = scan_explain_init(&x, 0);
    if (rc == 0) {
        rc = scan_plan_build(&p, f->f, idx, n, filter, &so, &x, &e);
        if (rc == 0) rc = kept_groups(&p, out, cap);
        scan_plan_free(&p);
        scan_explain_free(&x);
    }
    flt_expr_free(filter);
    free(idx);
    free(nodes);
    free(rgs);
    return rc < 0 ? api_report(err, f->path, rc, &e) : rc;
}

int ringscan_scan_topk_bound(ringscan_scan *s, ringscan_topk_bound *out)
{
    if (!out) return -EINVAL;
    memset(out, 0, sizeof *out);
    if (!s || !s->topk) return -EINVAL;
    flt_lit v;
    uint64_t version = 0;
    flt_domain dom = FLT_DOM_I64;
    bool set = scan_topk_bound(s->scan, &v, &version, &dom);
    api_bound_out(dom, &v, version, set, out);
    return 0;
}

int ringscan_scan_offer_bound(ringscan_scan *s, const ringscan_topk_bound *b)
{
    if (!s || !b || !s->topk) return -EINVAL;
    flt_lit v;
    uint64_t ver;
    flt_domain dom = FLT_DOM_BOOL;
    scan_topk_bound(s->scan, &v, &ver, &dom);
    if (dom == FLT_DOM_BOOL) return -EINVAL; /* no numeric bound for this key */
    if (b->is_float != (dom == FLT_DOM_F32 || dom == FLT_DOM_F64)) return -EINVAL;
    if (!b->set) return 0;
    v = (flt_lit){.i = b->i, .f = b->f};
    return scan_topk_offer_bound(s->scan, v) ? 1 : 0;
}
