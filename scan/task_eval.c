/* scan/task_eval.c: a conjunct evaluated page by page on the one column it reads (moved out
 * of task_decode.c): on dictionary indices where it can - the predicate once per dictionary
 * entry, then a page without nulls straight from its runs to the rows' bits (format/
 * rle_bits.c) - and, when the projection reads that column too, its passing rows' values
 * decoded from the same page bodies as it goes (cut to the final mask before the projection,
 * task_narrow_evaluated). Pages are walked by task_decode.c (task_walk_selected). task.h's
 * invariants hold. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "filter/kernel.h"
#include "scan/task.h"

/* State of one conjunct evaluated page by page (eval_paged). */
typedef struct page_eval {
    const flt_pred *p;
    pq_vec idx, vals;          /* one page's dictionary indices, or its values */
    flt_mask in, out, dmask;   /* the page's input and output; the predicate per dictionary entry */
    pq_vec *keep;              /* NULL, or the projected column's vector: each page's passing
                                  rows' values appended */
    const pq_vec *dmask_dict;  /* the dictionary dmask holds (NULL: none yet) */
    uint32_t *sel;             /* a page's selected rows, page-relative (page_sel_rows) */
    int64_t sel_cap;
    int64_t dmask_loads;       /* and the reader's dict_loads then (the reader's own
                                  dictionary keeps its address when a new page replaces it) */
} page_eval;

/* Whether slot is projected. */
static bool projected(const scan_plan *plan, int slot)
{
    for (int j = 0; j < plan->nproj; j++)
        if (plan->proj_slot[j] == slot) return true;
    return false;
}

/* Whether conjunct k reads one column that no other conjunct reads. */
static bool own_column(const scan_plan *plan, int k)
{
    if (plan->filter->preds[k].multi) return false;
    int slot = plan->pred_slot[k];
    for (int i = 0; i < plan->npreds; i++) {
        int n;
        const int *slots = scan_plan_pred_slots(plan, i, &n);
        for (int s = 0; i != k && s < n; s++)
            if (slots[s] == slot) return false;
    }
    return true;
}

bool task_pageable(const scan_task *x, int k)
{
    const scan_plan *plan = x->plan;
    if (!own_column(plan, k)) return false;
    int slot = plan->pred_slot[k];
    if (!projected(plan, slot)) return true;
    if (x->env->topk) return false; /* its selection reads full-length sort columns */
    /* projected too: only a flat dictionary-coded chunk, whose predicate runs once per entry
     * and whose passing rows are decoded from the same bodies */
    int col = x->sp->cols[slot].col;
    const pq_chunk_meta *cm = &plan->f->meta.row_groups[x->sp->rg].chunks[col];
    uint32_t dict = (1u << PQ_ENC_PLAIN_DICTIONARY) | (1u << PQ_ENC_RLE_DICTIONARY);
    return !plan->f->meta.columns[col].nested && (cm->encodings_mask & dict) != 0;
}

/* mask_page_rows into pe->sel (grown as needed); -ENOMEM when it cannot grow. */
static int64_t page_sel_rows(scan_task *x, page_eval *pe, int64_t first_row, int64_t a, int64_t e)
{
    if (pe->sel_cap < e - a + 1) {
        uint32_t *p = fail_realloc(pe->sel, sizeof(uint32_t) * (size_t)(e - a + 1));
        if (!p) return -ENOMEM;
        pe->sel = p;
        pe->sel_cap = e - a + 1;
    }
    return task_mask_page_rows(x, first_row, a, e, pe->sel);
}

/* The predicate over the k selected rows' values in pe->vals, its passing rows set in x->tmp
 * (whose bits for the page are clear). */
static int eval_rows(scan_task *x, page_eval *pe, int64_t first_row, int64_t k, int64_t off)
{
    assert(pe->vals.length == k);
    int rc = flt_mask_init(&pe->in, k, true);
    if (rc == 0) rc = flt_eval(pe->p, &pe->vals, &pe->in, &pe->out);
    if (rc) return pq_errf(&x->err, rc, off, "cannot evaluate the conjunct on this page");
    for (int64_t i = 0; i < k; i++)
        if (flt_mask_get(&pe->out, i)) flt_mask_set(&x->tmp, first_row + pe->sel[i]);
    return 0;
}

/* eval_rows on a page decoded for its selected rows only (counted as such). */
static int eval_selected(scan_task *x, page_eval *pe, int64_t first_row, int64_t k, int64_t off)
{
    int rc = eval_rows(x, pe, first_row, k, off);
    if (rc == 0) atomic_fetch_add_explicit(&x->tc->sel_eval_pages, 1, memory_order_relaxed);
    return rc;
}

/* Whether a dictionary-encoded page whose k selected rows (pe->sel) are listed is cheaper
 * evaluated on those rows' entries of d than on every entry: d not evaluated yet (pe->dmask
 * holds another), no nulls, and k under an eighth of d. A string conjunct late in the chain
 * reaches few rows of a page, and a dictionary of distinct strings (tpchgen's l_comment:
 * about 35,000 entries per row group before its PLAIN fallback) costs more evaluated whole. */
static bool few_of_dict(const page_eval *pe, const pq_col_reader *r, const pq_vec *d, int64_t k)
{
    bool ready = pe->dmask_dict == d && pe->dmask_loads == r->dict_loads;
    return k >= 0 && !ready && pe->idx.null_count == 0 && 8 * k < d->length;
}

/* x->tmp gets the rows of pe->sel[0..k) (page-relative; window row first_row + sel[i])
 * whose dictionary entry of d (pe->idx, one index per page row, checked against d when
 * decoded) passes: the k entries taken into pe->vals and evaluated there. pe->idx is
 * compacted in place to the selected rows' indices (sel ascends, so sel[i] >= i). */
static int eval_dict_selected(scan_task *x, page_eval *pe, const pq_vec *d, int64_t first_row,
                              int64_t k, int64_t off)
{
    uint32_t *ix = (uint32_t *)(void *)pe->idx.values;
    assert(k >= 0 && k <= pe->idx.length && pe->vals.length == 0);
    for (int64_t i = 0; i < k; i++) {
        assert(pe->sel[i] >= i && pe->sel[i] < pe->idx.length);
        ix[i] = ix[pe->sel[i]];
    }
    int rc = pq_vec_take(d, ix, k, &pe->vals);
    if (rc) return pq_errf(&x->err, rc, off, "cannot evaluate the conjunct on this page");
    return eval_rows(x, pe, first_row, k, off);
}

/* pe->dmask = the predicate per entry of dictionary d (r's), unless it holds d already. */
static int prepare_dict(page_eval *pe, const pq_col_reader *r, const pq_vec *d)
{
    if (pe->dmask_dict == d && pe->dmask_loads == r->dict_loads) return 0;
    pe->dmask_dict = NULL;
    int rc = flt_eval_dict_prepare(pe->p, d, &pe->dmask);
    if (rc == 0) pe->dmask_dict = d, pe->dmask_loads = r->dict_loads;
    return rc;
}

/* The passing rows of a page decoded whole into pe->vals (pe->out), appended to pe->keep. */
static int keep_passing(scan_task *x, page_eval *pe)
{
    int64_t n = flt_mask_popcount(&pe->out);
    uint32_t *rows = task_sel(x, n);
    if (!rows) return -ENOMEM;
    flt_mask_select(&pe->out, rows, n);
    return pq_vec_take(&pe->vals, rows, n, pe->keep);
}

/* Decodes the current page for page_eval_one: to bits (and kept values) when its dictionary
 * is loaded and evaluated, else indices or values; k >= 0: sel lists the rows (pe->sel). */
static int page_decode(scan_task *x, pq_col_reader *r, page_eval *pe, pq_page_walk *w,
                       int64_t k, int64_t nrows, pq_dict_bits *bits, bool *as_idx)
{
    static const uint64_t none = 0; /* a bitmap for pq_walk_dict_bits that fits no page */
    const pq_vec *d = r->shared_dict ? r->shared_dict : r->has_dict ? &r->dict : NULL;
    bool to_bits = d && k < 0 && prepare_dict(pe, r, d) == 0 && pe->dmask.len > 0 &&
                   flt_mask_init(&pe->out, nrows, false) == 0; /* else as before */
    *bits = (pq_dict_bits){.dm = to_bits ? pe->dmask.words : &none,
                           .dlen = to_bits ? pe->dmask.len : 0,
                           .out = pe->out.words, .cap = to_bits ? nrows : 0,
                           .in = pe->in.words, .kept = pe->keep};
    if (pe->keep) /* every page either to bits and kept values, or values */
        return pq_walk_dict_bits(w, NULL, 0, NULL, &pe->vals, as_idx, bits, &x->err);
    if (to_bits)
        return pq_walk_dict_bits(w, NULL, 0, &pe->idx, &pe->vals, as_idx, bits, &x->err);
    return pq_walk_indices(w, k >= 0 ? pe->sel : NULL, k >= 0 ? k : 0, &pe->idx, &pe->vals,
                           as_idx, &x->err);
}

/* One page: x->tmp = mask AND predicate over its rows [a, e) inside the split. A
 * dictionary-encoded page is evaluated from its indices (the predicate once per dictionary
 * entry, then mapped; without nulls straight from the runs to bits); a byte-array page the
 * mask selects under half of from the selected rows' values only (a string conjunct late in
 * the chain copies the few rows that reach it, not the page); others from all their values.
 * A projected column's passing rows are appended to pe->keep. */
static int page_eval_one(scan_task *x, pq_col_reader *r, void *ctx, pq_page_walk *w,
                         const pq_walk_page *pg)
{
    page_eval *pe = ctx;
    int64_t off = pg->off, first_row = pg->first_row, a = pg->a, e = pg->e, nrows = pg->rows;
    pq_vec_clear(&pe->idx);
    pq_vec_clear(&pe->vals);
    int64_t k = -1; /* listed selected rows, when the page is byte arrays selected sparsely */
    if (!pe->keep && r->col->physical == PQ_BYTE_ARRAY &&
        2 * flt_mask_count_range(&x->mask, a, e) < e - a) {
        k = page_sel_rows(x, pe, first_row, a, e);
        if (k < 0) return (int)k;
    }
    int rc = flt_mask_init(&pe->in, nrows, false);
    if (rc) return rc;
    flt_mask_copy_bits(&pe->in, a - first_row, &x->mask, a, e - a);
    pq_dict_bits bits;
    bool as_idx = false;
    rc = page_decode(x, r, pe, w, k, nrows, &bits, &as_idx);
    if (rc == 0 && k >= 0 && !as_idx) return eval_selected(x, pe, first_row, k, off);
    if (rc) return rc;
    if (as_idx) atomic_fetch_add_explicit(&x->tc->dict_eval_pages, 1, memory_order_relaxed);
    const pq_vec *d = r->shared_dict ? r->shared_dict : &r->dict;
    if (as_idx && !bits.done && few_of_dict(pe, r, d, k))
        return eval_dict_selected(x, pe, d, first_row, k, off);
    if (bits.done) {
        flt_eval_dict_bits(pe->p, &pe->in, &pe->out);
    } else if (as_idx) {
        rc = prepare_dict(pe, r, d);
        if (rc == 0)
            rc = flt_eval_dict_map(pe->p, &pe->dmask, (const uint32_t *)(const void *)pe->idx.values,
                                   nrows, pe->idx.null_count ? pe->idx.validity : NULL, &pe->in, &pe->out);
    } else {
        rc = flt_eval(pe->p, &pe->vals, &pe->in, &pe->out);
        if (rc == 0 && pe->keep) rc = keep_passing(x, pe);
    }
    if (rc) return pq_errf(&x->err, rc, off, "cannot evaluate the conjunct on this page");
    flt_mask_copy_bits(&x->tmp, a, &pe->out, a - first_row, e - a);
    return 0;
}

/* Conjunct k on a pageable column: x->tmp = x->mask AND the predicate, page by page. */
int task_eval_paged(scan_task *x, int k)
{
    const scan_plan *plan = x->plan;
    int slot = plan->pred_slot[k];
    task_drop_excluded_pages(x, slot);
    int rc = task_await_slot(x, slot);
    if (rc) return rc;
    scan_colplan *cp = &x->sp->cols[slot];
    const pq_column_desc *d = &plan->f->meta.columns[cp->col];
    bool keep = projected(plan, slot);
    page_eval pe = {.p = &plan->filter->preds[k], .keep = keep ? &x->vecs[slot] : NULL};
    pq_vec_init(&pe.idx, PQ_INT32, 0);
    pq_vec_init(&pe.vals, d->physical, d->type_length);
    if (keep) pq_vec_clear(&x->vecs[slot]);
    /* sized for the rows reaching the conjunct (as decode_slot sizes for the split's): grown
       by doubling it was copied again and again, lineitem_prune's l_orderkey 15% dearer */
    const pq_chunk_meta *cm = &plan->f->meta.row_groups[x->sp->rg].chunks[cp->col];
    rc = keep ? pq_vec_reserve(&x->vecs[slot], flt_mask_popcount(&x->mask),
                               task_split_data(x, cm, &x->vecs[slot]))
              : 0;
    if (rc == 0) rc = flt_mask_init(&x->tmp, x->nrows, false);
    if (rc == 0) rc = task_walk_selected(x, slot, page_eval_one, &pe);
    if (rc == 0 && keep) rc = flt_mask_copy(&x->after[slot], &x->tmp);
    if (rc) pq_err_column(&x->err, d->name);
    x->evaluated[slot] = x->decoded[slot] = keep && rc == 0;
    task_release_slot(x, slot);
    pq_vec_free(&pe.idx);
    pq_vec_free(&pe.vals);
    flt_mask_free(&pe.in);
    flt_mask_free(&pe.out);
    flt_mask_free(&pe.dmask);
    free(pe.sel);
    return rc;
}

/* The final mask's rows of a vector holding the rows of after (a superset): each one's rank
 * among after's rows, into rows (room for the final count). */
static void ranks(const flt_mask *mask, const flt_mask *after, uint32_t *rows)
{
    int64_t k = 0, rank = 0;
    for (int64_t w = 0, nw = flt_mask_nwords(mask->len); w < nw; w++) {
        uint64_t f = mask->words[w], g = after->words[w];
        assert((f & ~g) == 0);
        for (; f; f &= f - 1)
            rows[k++] = (uint32_t)(rank + __builtin_popcountll(g & ((f & -f) - 1)));
        rank += __builtin_popcountll(g);
    }
}

int task_narrow_evaluated(scan_task *x)
{
    int64_t n = flt_mask_popcount(&x->mask);
    for (int slot = 0; slot < x->plan->nneed; slot++) {
        if (!x->evaluated[slot]) continue;
        pq_vec *v = &x->vecs[slot];
        assert(x->after[slot].len == x->mask.len && v->length >= n);
        if (v->length > n) { /* a later conjunct dropped rows */
            uint32_t *rows = task_sel(x, n);
            pq_vec cut;
            pq_vec_init(&cut, v->type, v->type_length);
            int rc = rows ? 0 : -ENOMEM;
            if (rc == 0) ranks(&x->mask, &x->after[slot], rows);
            if (rc == 0) rc = pq_vec_take(v, rows, n, &cut);
            if (rc) {
                pq_vec_free(&cut);
                return rc;
            }
            pq_vec_free(v);
            *v = cut;
        }
        x->compacted[slot] = true;
    }
    return 0;
}
