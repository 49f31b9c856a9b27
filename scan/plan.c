/* scan/plan.c: splits (a row group, or page-aligned row ranges of a large one) and static
 * pruning before any data read.
 *
 * Pruning order per row group: chunk statistics (no I/O), page index (one read covering every
 * needed index of the file, done once - none when the footer's tail read brought the index:
 * pqf_index_bytes), bloom filters (one read per probed filter, only for
 * = / IN conjuncts on row groups the cheaper tests kept). What survives is, per needed
 * column, the list of byte ranges the split may read: the whole chunk, or with an offset
 * index the dictionary page and the data pages whose rows are still possible.
 *
 * Invariants: planning reads only metadata (indexes, blooms), synchronously, and counts them
 * in stats.plan_reads; a split marked pruned has no pieces; rows0 has len 0 (all rows) or
 * len == nrows. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter/prune.h"
#include "common/fail.h"
#include "format/bloom.h"
#include "format/column_nested.h"
#include "scan/plan_impl.h"

enum { PLAN_BLOOM_PROBE_BYTES = 256 };

/* ---------------------------------------------------------------------------- pruning */

/* Statistics: true when conjunct k cannot match anything in row group rg. */
static bool stats_prune(plan_build *b, int rg, int k)
{
    return flt_prune_group(&b->p->filter->preds[k], b->p->f->meta.row_groups[rg].chunks) ==
           FLT_CANNOT_MATCH;
}

/* Bloom filter: true when single-column predicate p's values are all absent from rg's
 * filter of its column. */
static int bloom_prune_one(plan_build *b, int rg, const flt_pred *p, bool *pruned, pq_err *e)
{
    *pruned = false;
    const pq_chunk_meta *cm = &b->p->f->meta.row_groups[rg].chunks[p->column];
    if (!b->o->use_bloom || !cm->has_bloom_filter || !flt_bloom_applies(p)) return 0;
    uint64_t off = (uint64_t)cm->bloom_filter_offset, size = b->p->f->file->size_bytes;
    if (off >= size) return 0;
    size_t first = cm->has_bloom_filter_length && cm->bloom_filter_length > 0
                       ? (size_t)cm->bloom_filter_length
                       : PLAN_BLOOM_PROBE_BYTES;
    if (first > size - off) first = (size_t)(size - off);
    uint8_t *buf = fail_malloc(first);
    if (!buf) return -ENOMEM;
    int rc = plan_read(b, off, buf, first, e);
    pq_bloom_header h;
    if (rc == 0) rc = pq_bloom_header_parse(buf, first, &h, e);
    if (rc == 0 && h.header_len + (size_t)h.num_bytes > first) {
        size_t total = h.header_len + (size_t)h.num_bytes;
        uint8_t *more = total <= size - off ? fail_realloc(buf, total) : NULL;
        if (!more) rc = total <= size - off ? -ENOMEM : pq_errf(e, RINGSCAN_EFORMAT, (int64_t)off,
                                                                "bloom filter extends past the file");
        else buf = more, rc = plan_read(b, off + first, buf + first, total - first, e);
    }
    if (rc == 0)
        *pruned = flt_prune_bloom_sbbf(p, buf + h.header_len, (size_t)h.num_bytes) == FLT_CANNOT_MATCH;
    if (rc && e) e->offset = (int64_t)off;
    free(buf);
    return rc;
}

/* Bloom filters: true when conjunct k cannot match in rg: a single-column one's values are
 * absent, or every part of a multi-column one is a test of = / IN whose values its column's
 * filter lacks (a comparison of two columns, or another test, keeps the group). */
static int bloom_prune(plan_build *b, int rg, int k, bool *pruned, pq_err *e)
{
    const flt_pred *p = &b->p->filter->preds[k];
    const flt_multi *m = p->multi;
    if (!m) return bloom_prune_one(b, rg, p, pruned, e);
    *pruned = false;
    if (!b->o->use_bloom || !flt_bloom_applies(p)) return 0;
    for (int32_t t = 0; t < m->nitems; t++) {
        int rc = bloom_prune_one(b, rg, &m->items[t].pred, pruned, e);
        if (rc || !*pruned) return rc;
    }
    return 0;
}

/* ----------------------------------------------------------------------------- pieces */

/* Page pieces of one column from its offset index: the pages overlapping the split's rows
 * that rows0 still allows, the dictionary first. */
static int pieces_from_index(const scan_split *sp, const pq_chunk_meta *cm,
                             const pq_offset_index *oi, int64_t rg_rows, scan_colplan *cp)
{
    cp->pieces = fail_calloc((size_t)oi->npages + 1, sizeof *cp->pieces);
    if (!cp->pieces) return -ENOMEM;
    int64_t first_page = oi->npages > 0 ? oi->pages[0].offset : cm->data_page_offset;
    int64_t dict = cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
    int64_t lo = sp->row_lo, hi = sp->row_lo + sp->nrows;
    for (int pg = 0; pg < oi->npages; pg++) {
        int64_t a, b;
        plan_page_rows(oi, pg, rg_rows, &a, &b);
        if (b <= lo || a >= hi) continue;
        int64_t ca = a < lo ? lo : a, cb = b > hi ? hi : b; /* clipped to the split */
        if (sp->rows0.len && !flt_mask_any_range(&sp->rows0, ca - lo, cb - lo)) continue;
        cp->pieces[cp->npieces++] = (scan_piece){.off = (uint64_t)oi->pages[pg].offset,
                                                 .len = (uint64_t)oi->pages[pg].compressed_page_size,
                                                 .first_row = a - lo, .nrows = b - a};
    }
    if (cp->npieces && dict > 0 && dict < first_page) {
        memmove(cp->pieces + 1, cp->pieces, sizeof *cp->pieces * (size_t)cp->npieces);
        cp->pieces[0] = (scan_piece){.off = (uint64_t)dict, .len = (uint64_t)(first_page - dict),
                                     .dict = true};
        cp->npieces++;
    }
    return 0;
}

static int plan_pieces(plan_build *b, plan_index *x, scan_split *sp, pq_err *e)
{
    int64_t rg_rows = b->p->f->meta.row_groups[sp->rg].num_rows;
    sp->cols = fail_calloc((size_t)b->p->nneed, sizeof *sp->cols);
    if (!sp->cols) return -ENOMEM;
    for (int k = 0; k < b->p->nneed; k++) {
        scan_colplan *cp = &sp->cols[k];
        cp->col = b->p->need[k];
        const pq_chunk_meta *cm = &b->p->f->meta.row_groups[sp->rg].chunks[cp->col];
        const pq_offset_index *oi = plan_usable_oi(b, x, sp->rg, k);
        if (oi) {
            if (pieces_from_index(sp, cm, oi, rg_rows, cp)) return -ENOMEM;
            continue;
        }
        int rc = plan_whole_chunks(b, sp, k, cp, e);
        if (rc) return rc;
        bool nested = b->p->f->meta.columns[cp->col].nested; /* (whole leaves: task_nested.c) */
        if (sp->nrows != rg_rows && !nested && (rc = plan_pieces_cut_chunk(sp, cm, cp)) != 0)
            return rc;
    }
    return 0;
}

/* ----------------------------------------------------------------------------- splits */

/* A new zeroed split at the end of b->p->splits (grown as needed); NULL with *rc = -ENOMEM, or
 * RINGSCAN_ELIMIT past SCAN_MAX_SPLITS (e filled). */
static scan_split *split_add(plan_build *b, int *cap, int *rc, pq_err *e)
{
    *rc = -ENOMEM;
    if (b->p->nsplits == SCAN_MAX_SPLITS) {
        *rc = pq_errf(e, RINGSCAN_ELIMIT, -1, "more than %d splits", SCAN_MAX_SPLITS);
        return NULL;
    }
    if (b->p->nsplits == *cap) {
        int ncap = *cap < 16 ? 16 : (*cap > SCAN_MAX_SPLITS / 2 ? SCAN_MAX_SPLITS : *cap * 2);
        scan_split *ns = fail_realloc(b->p->splits, sizeof *ns * ((size_t)ncap + 1));
        if (!ns) return NULL;
        b->p->splits = ns;
        *cap = ncap;
    }
    scan_split *sp = &b->p->splits[b->p->nsplits++];
    memset(sp, 0, sizeof *sp);
    *rc = 0;
    return sp;
}

/* Few kept row groups leave cores idle: the last group a core claims is the scan's tail.
 * When statistics keep fewer than SCAN_CUT_SPLITS_PER_CORE row groups per core of a local
 * file, a split aims at the kept groups' rows spread over that many splits per core (never
 * below SCAN_CUT_MIN_ROWS rows), else at o->split_rows: cut at page starts where offset
 * indexes allow, else evenly (cut_even, flat columns). On a remote store more splits are
 * more requests: there it is unchanged. A dataset's other files keep the cores busy too
 * (o->groups_besides): an even cut decodes a page straddling it once per split, so a
 * dataset of 84 one-group files of one page per column cut in 5 decompressed every page 5
 * times (bench/RESULTS.md, twenty-third session). */
enum { SCAN_CUT_MIN_ROWS = 16384 };

static int64_t cut_rows(plan_build *b, int ngroups)
{
    const scan_opts *o = b->o;
    if (o->split_rows <= 0 || o->threads < 2 || b->p->f->file->be->remote) return o->split_rows;
    int kept = 0;
    int64_t rows = 0;
    for (int i = 0; i < ngroups; i++) {
        int rg = o->rg_order ? o->rg_order[i] : i;
        bool pruned = b->p->f->meta.row_groups[rg].num_rows == 0;
        for (int k = 0; !pruned && k < b->p->npreds; k++) pruned = stats_prune(b, rg, k);
        if (!pruned) kept++, rows += b->p->f->meta.row_groups[rg].num_rows;
    }
    int want = SCAN_CUT_SPLITS_PER_CORE * o->threads;
    if (kept == 0 || kept + (int64_t)o->groups_besides >= want) return o->split_rows;
    int64_t pieces = (want + kept - 1) / kept, per = rows / kept / pieces;
    per = per < SCAN_CUT_MIN_ROWS ? SCAN_CUT_MIN_ROWS : per;
    return per < o->split_rows ? per : o->split_rows;
}

/* Under a limit of L rows with no filter, the splits in plan order after the first that
 * hold L rows between them are never needed (the output takes L rows, in file order or any),
 * so they are pruned, read by nobody: true once b->rows_left is spent. */
static bool limit_reached(const plan_build *b)
{
    return b->rows_left == 0;
}

/* Splits rows [lo, hi) of rg; rows is the row group's page-index mask (len 0 = all rows). */
static int plan_range(plan_build *b, plan_index *x, int rg, int64_t lo, int64_t hi,
                      const flt_mask *rows, int *cap, pq_err *e)
{
    int rc;
    scan_split *sp = split_add(b, cap, &rc, e);
    if (!sp) return rc;
    *sp = (scan_split){.rg = rg, .row_lo = lo, .nrows = hi - lo};
    if (limit_reached(b)) {
        sp->pruned = true;
        scan_explainf(b->x, "  split %d (row group %d, rows %lld..%lld): pruned by the limit\n",
                      b->p->nsplits - 1, rg, (long long)lo, (long long)hi);
        return 0;
    }
    if (b->rows_left > 0) b->rows_left -= hi - lo < b->rows_left ? hi - lo : b->rows_left;
    rc = rows->len ? flt_mask_slice(&sp->rows0, rows, lo, hi) : 0;
    if (rc) return rc;
    if (sp->rows0.len && flt_mask_all_false(&sp->rows0)) {
        sp->pruned = true;
        flt_mask_free(&sp->rows0);
        scan_explainf(b->x, "  split %d (row group %d, rows %lld..%lld): pruned by page index\n",
                      b->p->nsplits - 1, rg, (long long)lo, (long long)hi);
        return 0;
    }
    rc = plan_pieces(b, x, sp, e);
    if (rc == 0)
        scan_explainf(b->x, "  split %d (row group %d, rows %lld..%lld): read\n", b->p->nsplits - 1, rg,
                      (long long)lo, (long long)hi);
    return rc;
}

/* Decides one row group: pruned whole (with a reason), or cut into splits with their
 * pieces. */
static int plan_group(plan_build *b, plan_index *x, int rg, int *cap, pq_err *e)
{
    int64_t n = b->p->f->meta.row_groups[rg].num_rows;
    flt_mask rows = {0};
    const char *why = n == 0 ? "empty" : limit_reached(b) ? "the limit" : NULL;
    int rc = 0;
    for (int k = 0; !why && k < b->p->npreds; k++)
        if (stats_prune(b, rg, k)) why = "statistics";
    if (!why && (rc = plan_page_prune(b, x, rg, n, &rows)) == 0 && rows.len && flt_mask_all_false(&rows))
        why = "page index";
    for (int k = 0; rc == 0 && !why && k < b->p->npreds; k++) {
        bool out = false;
        rc = bloom_prune(b, rg, k, &out, e);
        if (out) why = "bloom filter";
    }
    if (rc == 0 && why) {
        scan_split *sp = split_add(b, cap, &rc, e);
        if (sp) *sp = (scan_split){.rg = rg, .nrows = n, .pruned = true};
        b->p->stats.row_groups_pruned++;
        scan_explainf(b->x, "  split %d (row group %d, %lld row%s): pruned by %s\n",
                      b->p->nsplits - 1, rg, (long long)n, scan_explain_plural(n), why);
    } else if (rc == 0) {
        int64_t total, pruned, *cuts = NULL;
        plan_count_pages(b, x, rg, &rows, &total, &pruned);
        int m = plan_cuts(b, x, rg, &cuts, e);
        rc = m < 0 ? m : 0;
        if (rc == 0)
            scan_explainf(b->x, "  row group %d (%lld row%s): pages pruned %lld of %lld, %d split%s\n",
                          rg, (long long)n, scan_explain_plural(n), (long long)pruned,
                          (long long)total, m, scan_explain_plural(m));
        for (int i = 0; rc == 0 && i < m; i++) rc = plan_range(b, x, rg, cuts[i], cuts[i + 1], &rows, cap, e);
        free(cuts);
    }
    flt_mask_free(&rows);
    return rc;
}

static double split_prior(const scan_split *sp, double sel)
{
    if (sel < 0) return 1.0;
    if (sel >= 1) return 0.0;
    double rows = (double)(sp->rows0.len ? flt_mask_popcount(&sp->rows0) : sp->nrows);
    double q = rows > 0 ? exp(rows * log1p(-sel)) : 1.0;
    return q >= 0 && q <= 1 ? q : 1.0; /* a count or share read from the file: bound it */
}

/* Sets conj_prior[k]: the mean of split_prior over the live splits (1.0 when none), the
 * estimate made once per row group. The adaptive policy starts from it instead of assuming
 * the worst, so a first split whose conjuncts its statistics show to keep rows is read in one
 * go, not conjunct by conjunct. */
static void plan_priors(plan_build *b)
{
    for (int k = 0; k < b->p->npreds; k++) {
        const flt_pred *p = &b->p->filter->preds[k];
        double sum = 0, sel = -1;
        int n = 0, rg = -1, known = 0;
        for (int i = 0; i < b->p->nsplits; i++) {
            const scan_split *sp = &b->p->splits[i];
            if (sp->pruned) continue;
            if (sp->rg != rg) {
                const pq_chunk_meta *cm = &b->p->f->meta.row_groups[sp->rg].chunks[p->column];
                rg = sp->rg;
                sel = flt_estimate_stats(p, pq_chunk_stats(cm), cm->num_values);
            }
            sum += split_prior(sp, sel), n++;
            known += sel >= 0;
        }
        b->p->conj_prior[k] = n ? sum / n : 1.0;
        assert(b->p->conj_prior[k] >= 0 && b->p->conj_prior[k] <= 1);
        /* statistics that cannot say (a string's equality, no min/max) leave the worst case */
        const char *why = n == 0 ? " (every split pruned)" : known == 0 ? " (statistics cannot say)" : "";
        scan_explainf(b->x, "conjunct #%d %s: chance all-false on a split from statistics %.3f%s\n",
                      k + 1, flt_pred_label(p), b->p->conj_prior[k], why);
    }
}


/* Marks the splits that share a row group (plan.h invariant 4). */
static int plan_shared(plan_build *b)
{
    scan_plan *p = b->p;
    int ng = p->f->meta.nrow_groups;
    if (p->nsplits <= ng) return 0; /* no row group was cut */
    int *live = fail_calloc((size_t)ng + 1, sizeof *live);
    bool *leader_seen = fail_calloc((size_t)ng + 1, sizeof(bool));
    if (!live || !leader_seen) {
        free(live);
        free(leader_seen);
        return -ENOMEM;
    }
    for (int i = 0; i < p->nsplits; i++) live[p->splits[i].rg] += !p->splits[i].pruned;
    for (int i = 0; i < p->nsplits; i++) {
        scan_split *sp = &p->splits[i];
        sp->shares_rg = !sp->pruned && live[sp->rg] > 1;
        sp->leader = sp->shares_rg && !leader_seen[sp->rg];
        if (sp->leader) leader_seen[sp->rg] = true;
        p->cut = p->cut || sp->shares_rg;
    }
    free(live);
    free(leader_seen);
    return 0;
}

/* Slots (plan.h invariant 1). */
static int choose_columns(scan_plan *p, const int *proj, int nproj, const int32_t *nodes,
                          int nnodes)
{
    int ncols = p->f->meta.ncolumns, nread = 0;
    for (int k = 0; k < p->npreds; k++) {
        const flt_multi *m = p->filter->preds[k].multi;
        nread += m ? m->ncols : 1;
    }
    int *slot_of = fail_malloc(sizeof(int) * (size_t)ncols);
    p->need = fail_malloc(sizeof(int) * (size_t)(nproj + nread + 1)); /* (a slot per at most) */
    p->pred_slot = fail_malloc(sizeof(int) * (size_t)(p->npreds + 1));
    p->pred_at = fail_malloc(sizeof(int) * (size_t)(p->npreds + 1));
    p->pred_slots = fail_malloc(sizeof(int) * (size_t)(nread + 1));
    p->proj_slot = fail_malloc(sizeof(int) * (size_t)nproj);
    p->proj = fail_malloc(sizeof(int) * (size_t)nproj);
    if (!slot_of || !p->need || !p->pred_slot || !p->pred_at || !p->pred_slots || !p->proj_slot ||
        !p->proj) {
        free(slot_of);
        return -ENOMEM;
    }
    for (int i = 0; i < ncols; i++) slot_of[i] = -1;
    int at = 0;
    for (int k = 0; k < p->npreds; k++) {
        const flt_pred *pr = &p->filter->preds[k];
        int n = pr->multi ? pr->multi->ncols : 1;
        p->pred_at[k] = at;
        for (int i = 0; i < n; i++) {
            int col = pr->multi ? pr->multi->cols[i] : pr->column;
            assert(col >= 0 && col < ncols);
            if (slot_of[col] < 0) slot_of[col] = p->nneed, p->need[p->nneed++] = col;
            p->pred_slots[at++] = slot_of[col];
        }
        p->pred_slot[k] = p->pred_slots[p->pred_at[k]];
    }
    p->pred_at[p->npreds] = at;
    for (int j = 0; j < nproj; j++) {
        assert(proj[j] >= 0 && proj[j] < ncols);
        p->proj_slot[j] = plan_proj_slot(p, proj, nodes, nnodes, j, slot_of);
        p->proj[j] = proj[j];
    }
    p->nproj = nproj;
    free(slot_of);
    return plan_proj_first(p);
}

/* A nested column among the slots is RINGSCAN_EUNSUPPORTED (format/meta.h invariant 2: only
 * flat columns are decoded by the page walk), except the first leaf of a nested node that is
 * only projected (its leaves read whole into packed rows, format/column_nested.h). The public API refuses the others
 * first, with their kind (scan/api_nested.c); this holds for every other caller of
 * scan_start (bench, fuzz, tests). */
static int refuse_nested(const scan_plan *p, pq_err *e)
{
    for (int i = 0; i < p->nneed; i++) {
        const pq_column_desc *c = &p->f->meta.columns[p->need[i]];
        bool filtered = false;
        for (int k = 0; k < p->pred_at[p->npreds]; k++) filtered = filtered || p->pred_slots[k] == i;
        int32_t top = p->slot_node[i], first = -1;
        if (top >= 0) pq_nest_leaves(&p->f->meta, top, &first);
        int shape = c->nested && !filtered && first == p->need[i] ? pq_nest_check(&p->f->meta, top, e) : 0;
        if (shape == -ENOMEM) return shape;
        if (c->nested && (filtered || first != p->need[i] || shape))
            return pq_errf_col(e, RINGSCAN_EUNSUPPORTED, -1, c->name,
                               "column '%.200s': nested columns cannot be read yet", c->name);
    }
    return 0;
}

static const char *policy_name(scan_policy k)
{
    return k == SCAN_LAZY ? "lazy" : k == SCAN_EAGER ? "eager" : "adaptive";
}

/* The plan's first line, inserted at head: the counts its other lines and --stats give
 *     plan: 1 row group (0 pruned), 5 splits (0 pruned), 3 conjuncts, 16 columns read, ... */
static void explain_summary(plan_build *b, size_t head)
{
    const scan_plan *p = b->p;
    int groups = (int)p->stats.row_groups_total, pruned = 0;
    for (int i = 0; i < p->nsplits; i++) pruned += p->splits[i].pruned;
    scan_explainf_at(b->x, head, "plan: %d row group%s (%lld pruned), %d split%s (%d pruned), "
                     "%d conjunct%s, %d column%s read, policy %s\n", groups,
                     scan_explain_plural(groups), (long long)p->stats.row_groups_pruned,
                     p->nsplits, scan_explain_plural(p->nsplits), pruned, p->npreds,
                     scan_explain_plural(p->npreds), p->nneed, scan_explain_plural(p->nneed),
                     policy_name(b->o->policy));
}

int scan_plan_build(scan_plan *p, pqf_t *f, const int *proj, int nproj, const flt_expr *filter,
                    const scan_opts *o, scan_explain_buf *x, pq_err *e)
{
    assert(p && f && proj && nproj >= 1 && o);
    memset(p, 0, sizeof *p);
    p->f = f;
    p->filter = filter;
    p->npreds = filter ? filter->npreds : 0;
    p->dyn_pred = -1;
    plan_build bb = {.p = p, .o = o, .x = x}, *b = &bb;
    int rc = pqf_stats_expr(f, filter, e); /* what pruning and the priors read */
    if (rc) return rc;
    rc = choose_columns(p, proj, nproj, o->proj_nodes, o->nproj_nodes);
    if (rc == 0) rc = plan_choose_nodes(p, o->proj_nodes, o->nproj_nodes);
    if (rc) return rc;
    rc = refuse_nested(p, e);
    if (rc) return rc;
    size_t head = x ? x->len : 0; /* where the summary goes once its counts are known */
    if (filter) scan_explain_filter(x, filter, o->use_page_index, o->use_bloom);
    int ngroups = o->rg_order ? o->nrg_order : f->meta.nrow_groups;
    p->stats.row_groups_total = ngroups;
    p->stats.reads = (uint64_t)f->tail_reads;
    plan_index ix;
    int cap = 0;
    b->cut_rows = cut_rows(b, ngroups);
    b->rows_left = o->limit >= 0 && !filter ? o->limit : -1; /* (Top-K's is -1: scan.c) */
    rc = plan_index_load(b, &ix, e);
    for (int i = 0; rc == 0 && i < ngroups; i++)
        rc = plan_group(b, &ix, o->rg_order ? o->rg_order[i] : i, &cap, e);
    if (rc == 0) rc = plan_keep_dyn(b, &ix);
    plan_index_free(b, &ix);
    if (rc == 0) rc = plan_shared(b);
    if (rc == 0) plan_priors(b);
    p->stats.splits = p->nsplits;
    if (rc == 0) explain_summary(b, head);
    return rc;
}

void scan_plan_free(scan_plan *p)
{
    for (int i = 0; p->splits && i < p->nsplits; i++) {
        scan_split *sp = &p->splits[i];
        for (int k = 0; sp->cols && k < p->nneed; k++) free(sp->cols[k].pieces);
        free(sp->cols);
        flt_mask_free(&sp->rows0);
    }
    plan_dyn_free(p);
    plan_nest_index_free(p);
    free(p->splits);
    free(p->need);
    free(p->pred_slot);
    free(p->pred_at);
    free(p->pred_slots);
    free(p->proj_slot);
    free(p->proj_first);
    free(p->slot_node);
    free(p->proj);
    memset(p, 0, sizeof *p);
}

uint64_t scan_plan_slot_bytes(const scan_plan *p, int i, int k)
{
    assert(i >= 0 && i < p->nsplits && k >= 0 && k < p->nneed && !p->splits[i].pruned);
    uint64_t bytes = 0;
    for (int q = 0; q < p->splits[i].cols[k].npieces; q++) bytes += p->splits[i].cols[k].pieces[q].len;
    return bytes;
}
