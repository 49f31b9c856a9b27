/* scan/plan_index.c: the page index for planning: one read covering every needed column's
 * offset and column index (none when the footer's tail read brought them: pqf_index_bytes),
 * parsed per chunk, checked (pq_offset_index_valid) and used to prune pages and count them.
 *
 * Invariants: an index that does not parse or does not fit its chunk is dropped, never
 * trusted (the chunk is then read whole); the planning reads are counted in stats.plan_reads. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/prune.h"
#include "filter/vexpr.h"
#include "scan/plan_impl.h"

enum { PLAN_INDEX_MAX_BYTES = 256 << 20 };


/* Reads [off, +len) for planning (counted as a plan read), or copies it from the page index
 * bytes the footer read brought (pqf_index_bytes; no read, so nothing counted: plan_bytes is
 * bytes read, and bytes_read - plan_bytes the data bytes). */
int plan_read(plan_build *b, uint64_t off, void *buf, size_t len, pq_err *e)
{
    if (pqf_index_bytes(b->p->f, off, buf, len)) return 0;
    char msg[256];
    int rc = io_read_sync(b->p->f->file, off, buf, len, msg, sizeof msg);
    if (rc) return pq_errf(e, rc, (int64_t)off, "%s", msg);
    b->p->stats.plan_reads++;
    b->p->stats.plan_bytes += len;
    b->p->stats.reads++;
    b->p->stats.bytes_read += len;
    b->p->stats.bytes_used += len;
    return 0;
}

/* ------------------------------------------------------------------------- page index */

/* Parsed indexes of one file: per row group and needed slot (NULL entries when absent). */
void plan_index_free(plan_build *b, plan_index *x)
{
    int n = b->p->f->meta.nrow_groups * b->p->nneed;
    /* after a failed allocation some arrays are NULL, and then nothing was parsed */
    for (int i = 0; x->has_oi && x->has_ci && i < n; i++) {
        if (x->has_oi[i]) pq_offset_index_free(&x->oi[i]);
        if (x->has_ci[i]) pq_column_index_free(&x->ci[i]);
    }
    free(x->oi);
    free(x->ci);
    free(x->has_oi);
    free(x->has_ci);
}

/* The byte span covering every needed column's offset and column index. */
static bool index_span(plan_build *b, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    for (int rg = 0; rg < b->p->f->meta.nrow_groups; rg++)
        for (int k = 0; k < b->p->nneed; k++) {
            const pq_chunk_meta *cm = &b->p->f->meta.row_groups[rg].chunks[b->p->need[k]];
            if (cm->has_offset_index && cm->offset_index_length > 0) {
                if ((uint64_t)cm->offset_index_offset < *lo) *lo = (uint64_t)cm->offset_index_offset;
                uint64_t end = (uint64_t)cm->offset_index_offset + (uint64_t)cm->offset_index_length;
                if (end > *hi) *hi = end;
            }
            if (cm->has_column_index && cm->column_index_length > 0) {
                if ((uint64_t)cm->column_index_offset < *lo) *lo = (uint64_t)cm->column_index_offset;
                uint64_t end = (uint64_t)cm->column_index_offset + (uint64_t)cm->column_index_length;
                if (end > *hi) *hi = end;
            }
        }
    return *hi > *lo && *hi <= b->p->f->file->size_bytes && *hi - *lo <= PLAN_INDEX_MAX_BYTES;
}

/* Parses the indexes of one chunk out of the span buffer. An index is an optimisation: one
 * that does not parse is dropped (the chunk is then read whole), never trusted. */
static int index_parse_one(const plan_build *b, int rg, const pq_chunk_meta *cm, const uint8_t *span,
                           uint64_t lo, pq_offset_index *oi, bool *has_oi, pq_column_index *ci,
                           bool *has_ci, pq_err *e)
{
    if (cm->has_offset_index && cm->offset_index_length > 0) {
        pq_err ignored = {.offset = -1};
        int rc = pq_offset_index_parse(span + ((uint64_t)cm->offset_index_offset - lo),
                                       (size_t)cm->offset_index_length, oi, &ignored);
        if (rc == -ENOMEM) return pq_errf(e, rc, -1, "out of memory");
        uint64_t off, len;
        *has_oi = rc == 0 && pq_chunk_range(cm, b->p->f->file->size_bytes, &off, &len, NULL) == 0 &&
                  pq_offset_index_valid(oi, b->p->f->meta.row_groups[rg].num_rows, off, len);
        if (rc == 0 && !*has_oi) pq_offset_index_free(oi);
    }
    if (cm->has_column_index && cm->column_index_length > 0) {
        pq_err ignored = {.offset = -1};
        int rc = pq_column_index_parse(span + ((uint64_t)cm->column_index_offset - lo),
                                       (size_t)cm->column_index_length, ci, &ignored);
        if (rc == -ENOMEM) return pq_errf(e, rc, -1, "out of memory");
        *has_ci = rc == 0;
    }
    return 0;
}

/* Whether a row group is large enough to be cut into splits (then its offset indexes are
 * wanted even without a filter): plan_cuts' test (2 x cut_rows overflows for split_rows
 * above INT64_MAX / 2). */
static bool any_cut(const plan_build *b)
{
    for (int rg = 0; b->cut_rows > 0 && rg < b->p->f->meta.nrow_groups; rg++)
        if (b->p->f->meta.row_groups[rg].num_rows / 2 >= b->cut_rows) return true;
    return false;
}

int plan_index_load(plan_build *b, plan_index *x, pq_err *e)
{
    memset(x, 0, sizeof *x);
    uint64_t lo, hi;
    if (!b->o->use_page_index || (b->p->npreds == 0 && !any_cut(b)) || !index_span(b, &lo, &hi))
        return 0;
    size_t n = (size_t)b->p->f->meta.nrow_groups * (size_t)b->p->nneed;
    x->oi = fail_calloc(n, sizeof *x->oi);
    x->ci = fail_calloc(n, sizeof *x->ci);
    x->has_oi = fail_calloc(n, sizeof *x->has_oi);
    x->has_ci = fail_calloc(n, sizeof *x->has_ci);
    uint8_t *span = fail_malloc(hi - lo);
    int rc = (!x->oi || !x->ci || !x->has_oi || !x->has_ci || !span) ? -ENOMEM : 0;
    if (rc == 0) rc = plan_read(b, lo, span, hi - lo, e);
    for (int rg = 0; rc == 0 && rg < b->p->f->meta.nrow_groups; rg++)
        for (int k = 0; rc == 0 && k < b->p->nneed; k++) {
            size_t i = (size_t)rg * (size_t)b->p->nneed + (size_t)k;
            const pq_chunk_meta *cm = &b->p->f->meta.row_groups[rg].chunks[b->p->need[k]];
            /* a nested column has no usable index: its chunks are read whole (a group cut
             * evenly, plan_cut.c, its splits find their rows from the levels) */
            if (b->p->f->meta.columns[b->p->need[k]].nested) continue;
            rc = index_parse_one(b, rg, cm, span, lo, &x->oi[i], &x->has_oi[i], &x->ci[i],
                                 &x->has_ci[i], e);
            if (rc) pq_err_column(e, b->p->f->meta.columns[b->p->need[k]].name);
        }
    free(span);
    return rc;
}

/* Whether a column's min/max order may be used for its page index. */
static bool order_usable(const plan_build *b, const pq_chunk_meta *cm, const pq_column_desc *d)
{
    return pq_chunk_stats(cm)->usable || (d->sort_order != PQ_ORDER_UNDEFINED && b->p->f->meta.column_orders_known);
}

/* Clears in rows (a mask of the row group's n rows, initialised) the rows of the pages p's
 * column index rules out. */
static int page_prune_one(plan_build *b, const pq_offset_index *oi, const pq_column_index *ci,
                          int rg, const flt_pred *p, int64_t n, flt_mask *rows)
{
    const pq_chunk_meta *cm = &b->p->f->meta.row_groups[rg].chunks[p->column];
    int64_t *nr = fail_malloc(sizeof(int64_t) * (size_t)oi->npages);
    uint64_t *keep = fail_calloc((size_t)(oi->npages + 63) / 64 + 1, sizeof(uint64_t));
    if (!nr || !keep) {
        free(nr);
        free(keep);
        return -ENOMEM;
    }
    for (int pg = 0; pg < oi->npages; pg++) {
        int64_t z = pg + 1 < oi->npages ? oi->pages[pg + 1].first_row_index : n;
        nr[pg] = z - oi->pages[pg].first_row_index;
    }
    flt_prune_pages(p, ci, order_usable(b, cm, p->desc), nr, keep, NULL);
    for (int pg = 0; pg < oi->npages; pg++) {
        if ((keep[pg >> 6] >> (pg & 63)) & 1) continue;
        int64_t a = oi->pages[pg].first_row_index, z = a + nr[pg];
        if (a >= 0 && a < z && z <= n) flt_mask_set_range(rows, a, z, false);
    }
    free(nr);
    free(keep);
    return 0;
}

/* The index entry of slot in rg when both indexes are usable and agree; else -1. */
static ptrdiff_t indexed(const plan_build *b, const plan_index *x, int rg, int slot)
{
    size_t i = (size_t)rg * (size_t)b->p->nneed + (size_t)slot;
    if (!x->has_oi || !x->has_oi[i] || !x->has_ci[i] || x->ci[i].npages != x->oi[i].npages)
        return -1;
    return (ptrdiff_t)i;
}

/* Clears in rows the pages of one column (slot of m) where a comparison of value
 * expressions over that column alone holds for no row: interval arithmetic on each page's
 * min/max (vexpr.h); an all-null page holds none. */
static int page_prune_value(plan_build *b, const pq_offset_index *oi, const pq_column_index *ci,
                            int rg, const flt_multi *m, const flt_cmp *c, int32_t slot, int64_t n,
                            flt_mask *rows)
{
    const pq_chunk_meta *cm = &b->p->f->meta.row_groups[rg].chunks[m->cols[slot]];
    bool usable = order_usable(b, cm, &m->schema[m->cols[slot]]);
    const pq_stats *stats[FLT_MAX_MULTI_COLS] = {0};
    for (int pg = 0; pg < oi->npages; pg++) {
        pq_stats ps = {.has_min_max = !ci->null_pages[pg] && ci->min[pg] && ci->max[pg],
                       .usable = usable, .min = ci->min[pg], .max = ci->max[pg],
                       .min_len = ci->min_len[pg], .max_len = ci->max_len[pg]};
        stats[slot] = &ps;
        if (!ci->null_pages[pg] &&
            flt_v_prune(c->op, c->vl, c->vr, m->schema, m->cols, stats) != FLT_CANNOT_MATCH)
            continue;
        int64_t a = oi->pages[pg].first_row_index;
        int64_t z = pg + 1 < oi->npages ? oi->pages[pg + 1].first_row_index : n;
        if (a >= 0 && a < z && z <= n) flt_mask_set_range(rows, a, z, false);
    }
    return 0;
}

/* The column (slot of m) a part reads for page pruning: a single-column predicate's, or the
 * one column of a comparison of value expressions; -1 for a comparison of two columns. */
static int32_t part_slot(const flt_item *it)
{
    if (!it->is_cmp) return it->col;
    return it->cmp.vl ? flt_v_one_slot(it->cmp.vl, it->cmp.vr) : -1;
}

/* A multi-column conjunct's rows: the union of each part's (expr.h invariant 8), each part
 * on one column with its own page index; nothing is ruled out when a part compares two
 * columns (or value expressions over several) or has no index. */
static int page_prune_multi(plan_build *b, plan_index *x, int rg, int k, int64_t n,
                            flt_mask *rows)
{
    const flt_multi *m = b->p->filter->preds[k].multi;
    int ns;
    const int *slots = scan_plan_pred_slots(b->p, k, &ns);
    for (int32_t t = 0; t < m->nitems; t++)
        if (part_slot(&m->items[t]) < 0 || indexed(b, x, rg, slots[part_slot(&m->items[t])]) < 0)
            return 0;
    flt_mask any = {0}, part = {0};
    int rc = flt_mask_init(&any, n, false);
    for (int32_t t = 0; rc == 0 && t < m->nitems; t++) {
        const flt_item *it = &m->items[t];
        ptrdiff_t i = indexed(b, x, rg, slots[part_slot(it)]);
        rc = flt_mask_init(&part, n, true);
        if (rc == 0 && it->is_cmp)
            rc = page_prune_value(b, &x->oi[i], &x->ci[i], rg, m, &it->cmp, part_slot(it), n, &part);
        else if (rc == 0) rc = page_prune_one(b, &x->oi[i], &x->ci[i], rg, &it->pred, n, &part);
        if (rc == 0) flt_mask_or(&any, &part);
    }
    if (rc == 0 && rows->len == 0) rc = flt_mask_init(rows, n, true);
    if (rc == 0) flt_mask_and(rows, &any);
    flt_mask_free(&any);
    flt_mask_free(&part);
    return rc;
}

/* Rows of rg kept by the page indexes of every conjunct (mask len 0 when none applies). */
int plan_page_prune(plan_build *b, plan_index *x, int rg, int64_t n, flt_mask *rows)
{
    for (int k = 0; k < b->p->npreds; k++) {
        const flt_pred *p = &b->p->filter->preds[k];
        int rc;
        if (p->multi) {
            rc = page_prune_multi(b, x, rg, k, n, rows);
        } else {
            ptrdiff_t i = indexed(b, x, rg, b->p->pred_slot[k]);
            if (i < 0) continue;
            rc = rows->len == 0 ? flt_mask_init(rows, n, true) : 0;
            if (rc == 0) rc = page_prune_one(b, &x->oi[i], &x->ci[i], rg, p, n, rows);
        }
        if (rc) return rc;
    }
    return 0;
}

/* The usable offset index of needed slot k in rg, or NULL. */
const pq_offset_index *plan_usable_oi(const plan_build *b, const plan_index *x, int rg, int k)
{
    size_t i = (size_t)rg * (size_t)b->p->nneed + (size_t)k;
    return x->has_oi && x->has_oi[i] ? &x->oi[i] : NULL; /* pq_offset_index_valid at load */
}

/* Rows [a, z) of page pg of an offset index over a row group of n rows. */
void plan_page_rows(const pq_offset_index *oi, int pg, int64_t n, int64_t *a, int64_t *z)
{
    *a = oi->pages[pg].first_row_index;
    *z = pg + 1 < oi->npages ? oi->pages[pg + 1].first_row_index : n;
}

/* Counts (in stats and for --explain) the pages of the needed columns with an offset index,
 * and those rows (the row group's page-index mask, len 0 = all) rules out. */
void plan_count_pages(plan_build *b, plan_index *x, int rg, const flt_mask *rows, int64_t *total,
                        int64_t *pruned)
{
    int64_t n = b->p->f->meta.row_groups[rg].num_rows;
    *total = *pruned = 0;
    for (int k = 0; k < b->p->nneed; k++) {
        const pq_offset_index *oi = plan_usable_oi(b, x, rg, k);
        for (int pg = 0; oi && pg < oi->npages; pg++) {
            int64_t a, z;
            plan_page_rows(oi, pg, n, &a, &z);
            ++*total;
            *pruned += rows->len != 0 && !flt_mask_any_range(rows, a, z);
        }
    }
    b->p->stats.pages_total += *total;
    b->p->stats.pages_pruned += *pruned;
}


/* ------------------------------------------------------- the dynamic predicate's index */

/* Moves (out of x, which then no longer frees it) the column index of the dynamic
 * predicate's column in every row group into p->dyn, with its pages' first rows, so splits
 * can prune pages by the bound as it tightens. No-op without a dynamic predicate or index. */
int plan_keep_dyn(plan_build *b, plan_index *x)
{
    scan_plan *p = b->p;
    p->dyn_pred = -1;
    for (int k = 0; k < p->npreds && p->dyn_pred < 0; k++)
        if (p->filter->preds[k].dyn) p->dyn_pred = k;
    if (p->dyn_pred < 0 || !x->has_ci) return 0;
    int nrg = p->f->meta.nrow_groups, slot = p->pred_slot[p->dyn_pred];
    const flt_pred *pr = &p->filter->preds[p->dyn_pred];
    p->dyn = fail_calloc((size_t)nrg, sizeof *p->dyn);
    if (!p->dyn) return -ENOMEM;
    for (int rg = 0; rg < nrg; rg++) {
        size_t i = (size_t)rg * (size_t)p->nneed + (size_t)slot;
        if (!x->has_oi[i] || !x->has_ci[i] || x->ci[i].npages != x->oi[i].npages) continue;
        scan_dyn_index *d = &p->dyn[rg];
        int32_t n = x->oi[i].npages;
        d->first = fail_malloc(sizeof(int64_t) * ((size_t)n + 1));
        if (!d->first) return -ENOMEM;
        for (int pg = 0; pg < n; pg++) d->first[pg] = x->oi[i].pages[pg].first_row_index;
        d->first[n] = p->f->meta.row_groups[rg].num_rows;
        d->order_usable = order_usable(b, &p->f->meta.row_groups[rg].chunks[pr->column], pr->desc);
        d->ci = x->ci[i];
        x->has_ci[i] = false; /* p->dyn owns it now */
        d->has = true;
    }
    return 0;
}

void plan_dyn_free(scan_plan *p)
{
    for (int rg = 0; p->dyn && rg < p->f->meta.nrow_groups; rg++) {
        if (p->dyn[rg].has) pq_column_index_free(&p->dyn[rg].ci);
        free(p->dyn[rg].first);
    }
    free(p->dyn);
    p->dyn = NULL;
}

int scan_plan_dyn_prune(const scan_plan *p, int i, flt_mask *mask)
{
    assert(i >= 0 && i < p->nsplits);
    const scan_split *sp = &p->splits[i];
    const scan_dyn_index *d = p->dyn ? &p->dyn[sp->rg] : NULL;
    if (!d || !d->has || d->ci.npages == 0) return 0;
    /* an offset index: the group was cut at page starts, so the split's window is the plan's
     * (one the task moved is of a group without any: task_window) */
    assert(mask->len == sp->nrows);
    int32_t n = d->ci.npages;
    int64_t *nr = fail_malloc(sizeof(int64_t) * (size_t)n);
    uint64_t *keep = fail_calloc(((size_t)n + 63) / 64, sizeof(uint64_t));
    if (!nr || !keep) {
        free(nr);
        free(keep);
        return -ENOMEM;
    }
    for (int pg = 0; pg < n; pg++) nr[pg] = d->first[pg + 1] - d->first[pg];
    flt_prune_pages(&p->filter->preds[p->dyn_pred], &d->ci, d->order_usable, nr, keep, NULL);
    int cleared = 0;
    for (int pg = 0; pg < n; pg++) {
        if ((keep[pg >> 6] >> (pg & 63)) & 1) continue;
        int64_t a = d->first[pg] - sp->row_lo, z = d->first[pg + 1] - sp->row_lo;
        a = a < 0 ? 0 : a;
        z = z > sp->nrows ? sp->nrows : z;
        if (a >= z || !flt_mask_any_range(mask, a, z)) continue;
        flt_mask_set_range(mask, a, z, false);
        cleared++;
    }
    free(nr);
    free(keep);
    return cleared;
}

bool scan_plan_dyn_sorted(const scan_plan *p, int rg)
{
    assert(rg >= 0 && rg < p->f->meta.nrow_groups);
    return p->dyn && p->dyn[rg].has && p->dyn[rg].order_usable &&
           p->dyn[rg].ci.boundary_order != PQ_BOUNDARY_UNORDERED;
}
