/* scan/task_decode.c: decoding a split's columns from its pieces: a column in full (pages the
 * mask excludes become placeholder rows), a projection-only column straight into its
 * compacted form, and a conjunct evaluated page by page (on dictionary indices where it can).
 * Pages are framed by format/ (one walk per piece); this file decides per page what to keep.
 * task.h's invariants hold. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/kernel.h"
#include "format/page_walk.h"
#include "scan/task.h"

/* Readies the core's reader of slot for this split's pages. */
static pq_col_reader *reader_for(scan_task *x, int slot)
{
    pq_col_reader *r = &x->tc->readers[slot];
    r->codec = x->plan->f->meta.row_groups[x->sp->rg].chunks[x->sp->cols[slot].col].codec;
    r->has_dict = false;
    r->shared_dict = task_shared_dict(x, slot);
    return r;
}

/* ------------------------------------------------------------------------ decoding */

/* Appends n placeholder rows (null, zeroed) for a page that was not read. */
static int append_placeholder(pq_vec *v, int64_t n)
{
    int rc = pq_vec_reserve(v, n, 0);
    if (rc) return rc;
    int64_t base = v->length;
    if (v->null_count == 0)
        for (int64_t i = 0; i < base; i++) pq_bit_set(v->validity, i, true);
    for (int64_t i = 0; i < n; i++) pq_bit_set(v->validity, base + i, false);
    if (v->type == PQ_BYTE_ARRAY) {
        for (int64_t i = 0; i < n; i++) v->offsets[base + i + 1] = (int32_t)v->data_len;
    } else if (v->type == PQ_BOOLEAN) {
        for (int64_t i = 0; i < n; i++) pq_bit_set(v->values, base + i, false);
    } else {
        size_t w = (size_t)pq_fixed_width(v->type, v->type_length);
        memset(v->values + (size_t)base * w, 0, (size_t)n * w);
    }
    v->length += n;
    v->null_count += n;
    return 0;
}





/* Starts the walk (format/page_walk.h) of piece pc's bytes b: a whole chunk's pages, or one
 * page (or dictionary) piece, over the split's rows. */
static void walk_init(scan_task *x, pq_page_walk *w, pq_col_reader *r, const scan_piece *pc,
                      const io_bytes *b)
{
    int64_t exp = pc->whole_chunk || pc->dict ? -1 : pc->nrows;
    int64_t first = pc->whole_chunk ? -x->row_lo : pc->first_row; /* the window's, moved */
    pq_walk_init(w, r, b->data, b->len, (int64_t)pc->off, first, exp, x->nrows, !pc->whole_chunk);
    if (pc->whole_chunk) /* a cut group's chunk (plan_cut.c cut_even) runs past the split */
        pq_walk_set_chunk_end(w, x->plan->f->meta.row_groups[x->sp->rg].num_rows - x->row_lo);
}

/* Whether piece pc is a whole chunk of a group the plan cut (plan_cut.c cut_even; the split's
 * moved window may still hold all its rows, task_window): its pages are walked, the ones
 * outside the window skipped undecoded. */
static bool chunk_cut(const scan_task *x, const scan_piece *pc)
{
    return pc->whole_chunk && x->sp->nrows != x->plan->f->meta.row_groups[x->sp->rg].num_rows;
}

/* Decodes one page (or dictionary) piece: its rows inside the split are appended to v. */
static int decode_piece(scan_task *x, pq_col_reader *r, const scan_piece *pc, const io_bytes *b,
                        pq_vec *v)
{
    pq_page_walk w;
    pq_walk_page pg;
    walk_init(x, &w, r, pc, b);
    int n;
    while ((n = pq_walk_next(&w, &pg, &x->err)) > 0) {
        if (pg.a == pg.e) continue; /* before a cut split's rows */
        int rc = pq_walk_values(&w, NULL, 0, v, &x->err);
        if (rc) return rc;
    }
    return n;
}

enum { RESERVE_DATA_MAX = 256 << 20 }; /* bytes of string data reserved ahead, at most */

/* The string data to reserve for the split's rows of v (chunk cm): the split's share of the
 * chunk's uncompressed bytes, a guess that only saves copies. */
static int64_t split_data(const scan_task *x, const pq_chunk_meta *cm, const pq_vec *v)
{
    int64_t rg_rows = x->plan->f->meta.row_groups[x->sp->rg].num_rows, data = 0;
    assert(cm->total_uncompressed_size <= PQ_MAX_CHUNK_UNCOMPRESSED_BYTES); /* meta_check */
    if (v->type == PQ_BYTE_ARRAY && rg_rows > 0 && cm->total_uncompressed_size > 0) {
        double share = (double)x->nrows / (double)rg_rows;
        data = (int64_t)((double)cm->total_uncompressed_size * share);
        if (data > RESERVE_DATA_MAX) data = RESERVE_DATA_MAX;
    }
    return data;
}

/* Decodes slot's pieces into x->vecs[slot]; released pages become placeholder rows. */
static int decode_slot(scan_task *x, int slot)
{
    const scan_plan *plan = x->plan;
    scan_colplan *cp = &x->sp->cols[slot];
    pq_col_reader *r = reader_for(x, slot);
    const pq_chunk_meta *cm = &plan->f->meta.row_groups[x->sp->rg].chunks[cp->col];
    pq_vec *v = &x->vecs[slot];
    /* sized for the split's rows first (a vector handed to the output starts empty: growing
     * it by doubling would copy it again and again); a nested slot sizes its own */
    int rc = r->col->nested ? task_decode_nested(x, slot, r, v, split_data(x, cm, v))
                            : pq_vec_reserve(v, x->nrows, split_data(x, cm, v));
    bool paged = false;
    for (int p = 0; rc == 0 && !r->col->nested && p < cp->npieces; p++) {
        scan_piece *pc = &cp->pieces[p];
        if (pc->dict && r->shared_dict) { /* published since it was registered */
            task_discard(x, slot, p);
            continue;
        }
        fut_t *f = x->futs[slot][p];
        int64_t a = 0, e = 0;
        if (!pc->dict && !pc->whole_chunk) {
            paged = true;
            task_piece_span(x, pc, &a, &e);
            /* pages pruned at planning have no piece: their rows become placeholders too */
            if (a > v->length && (rc = append_placeholder(v, a - v->length))) break;
        }
        if (!f) {
            if (!pc->dict) rc = append_placeholder(v, e - a);
            continue;
        }
        io_bytes b = task_piece_bytes(x, slot, p);
        if (pc->whole_chunk && !chunk_cut(x, pc)) {
            rc = pq_colr_chunk(r, cm, b.data, b.len, (int64_t)pc->off, v, &x->err);
            continue;
        }
        rc = decode_piece(x, r, pc, &b, v);
        if (rc == 0 && pc->dict) task_publish_dict(x, slot, r);
    }
    r->shared_dict = NULL; /* not kept past the split: the last split of the group frees it */
    if (rc == 0 && paged && v->length < x->nrows) /* trailing pages pruned at planning */
        rc = append_placeholder(v, x->nrows - v->length);
    int64_t want = x->compacted[slot] ? x->nmrows : x->nrows; /* (a nested slot's kept rows:
                                                                 task_nested.c) */
    if (rc == 0 && v->length != want)
        rc = pq_errf(&x->err, RINGSCAN_EFORMAT, cp->npieces ? (int64_t)cp->pieces[0].off : -1,
                     "column chunk decoded to %lld rows, %s %lld",
                     (long long)v->length, want == x->nrows ? "row group has" : "kept rows",
                     (long long)want);
    if (rc) pq_err_column(&x->err, plan->f->meta.columns[cp->col].name);
    task_release_slot(x, slot); /* bytes are decoded: let the buffers go */
    x->decoded[slot] = rc == 0;
    return rc;
}

int task_load_slot(scan_task *x, int slot)
{
    if (x->decoded[slot]) return 0;
    task_drop_excluded_pages(x, slot);
    int rc = task_await_slot(x, slot);
    return rc ? rc : decode_slot(x, slot);
}

/* ------------------------------------------------------------- late materialisation */




/* First index of rows[0..n) (rising) whose row is >= r. */
static int64_t rows_lower(const uint32_t *rows, int64_t n, int64_t r)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((int64_t)rows[mid] < r) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The rows of the page starting at split row first_row that the mask selects in [a, e), as
 * page-relative row numbers into out (room for e - a); returns their count. In the
 * projection, taken from the listed rows (task_mask_rows): scanning the mask per column and
 * page was 2.7% of a one-thread lineitem_wide scan (16 columns). */
static int64_t mask_page_rows(const scan_task *x, int64_t first_row, int64_t a, int64_t e,
                              uint32_t *out)
{
    assert(a >= first_row && e >= a);
    if (x->nmrows >= 0) {
        int64_t lo = rows_lower(x->mrows, x->nmrows, a), hi = rows_lower(x->mrows, x->nmrows, e);
        for (int64_t i = lo; i < hi; i++) out[i - lo] = x->mrows[i] - (uint32_t)first_row;
        return hi - lo;
    }
    int64_t k = flt_mask_select_range(&x->mask, a, e, out);
    for (int64_t i = 0; a > first_row && i < k; i++) out[i] += (uint32_t)(a - first_row);
    return k;
}





/* Walks the pages of slot's remaining pieces (publishing a dictionary the walk loaded): a page
 * the mask selects none of is skipped undecoded, the others go to fn. 0 or the first error. */
static int walk_selected(scan_task *x, int slot, pq_col_reader *r, selected_page_fn fn, void *ctx)
{
    const scan_colplan *cp = &x->sp->cols[slot];
    int rc = 0;
    for (int q = 0; rc == 0 && q < cp->npieces; q++) {
        if (cp->pieces[q].dict && r->shared_dict) task_discard(x, slot, q);
        if (!x->futs[slot][q]) continue;
        io_bytes b = task_piece_bytes(x, slot, q);
        pq_page_walk w;
        pq_walk_page pg;
        walk_init(x, &w, r, &cp->pieces[q], &b);
        while ((rc = pq_walk_next(&w, &pg, &x->err)) > 0) {
            if (!flt_mask_any_range(&x->mask, pg.a, pg.e)) continue;
            if ((rc = fn(x, r, ctx, &w, &pg))) break;
        }
        if (rc == 0 && cp->pieces[q].dict) task_publish_dict(x, slot, r);
    }
    r->shared_dict = NULL; /* not kept past the split: the last split of the group frees it */
    return rc;
}

int task_walk_selected(scan_task *x, int slot, selected_page_fn fn, void *ctx)
{
    return walk_selected(x, slot, reader_for(x, slot), fn, ctx);
}

int64_t task_mask_page_rows(const scan_task *x, int64_t first_row, int64_t a, int64_t e,
                            uint32_t *out)
{
    return mask_page_rows(x, first_row, a, e, out);
}

/* One page of a projection-only column: its selected rows appended to the vector ctx. */
static int page_selected(scan_task *x, pq_col_reader *r, void *ctx, pq_page_walk *w,
                         const pq_walk_page *pg)
{
    (void)r;
    uint32_t *idx = task_sel(x, pg->e - pg->a);
    if (!idx) return -ENOMEM;
    int64_t k = mask_page_rows(x, pg->first_row, pg->a, pg->e, idx);
    return pq_walk_values(w, idx, k, ctx, &x->err);
}

/* Decodes a projection-only column straight into its compacted form (the rows the final
 * mask selects): no full-length vector is ever built; a page the mask selects none of is
 * skipped undecoded. */
static int decode_selected(scan_task *x, int slot)
{
    const scan_colplan *cp = &x->sp->cols[slot];
    pq_col_reader *r = reader_for(x, slot);
    pq_vec *v = &x->vecs[slot];
    int64_t want = flt_mask_popcount(&x->mask);
    int rc = pq_vec_reserve(v, want, 0);
    if (rc == 0) rc = walk_selected(x, slot, r, page_selected, v);
    if (rc == 0 && v->length != want)
        rc = pq_errf(&x->err, RINGSCAN_EFORMAT, (int64_t)cp->pieces[0].off,
                     "column chunk yielded %lld selected rows, the filter selected %lld",
                     (long long)v->length, (long long)want);
    if (rc) /* (the page's offset kept: -1 here dropped it from every such error) */
        pq_err_place(&x->err, rc, x->err.offset, x->plan->f->meta.columns[cp->col].name);
    task_release_slot(x, slot);
    x->decoded[slot] = rc == 0;
    x->compacted[slot] = rc == 0;
    return rc;
}

/* A projected column that no conjunct decoded: compacted decode when the mask drops rows. */
int task_load_projected(scan_task *x, int slot)
{
    if (x->decoded[slot]) return 0;
    bool list = x->plan->f->meta.columns[x->sp->cols[slot].col].nested; /* read whole */
    if (list || flt_mask_all_true(&x->mask)) return task_load_slot(x, slot);
    task_drop_excluded_pages(x, slot);
    int rc = task_await_slot(x, slot);
    return rc ? rc : decode_selected(x, slot);
}

/* ------------------------------------------------------- conjuncts evaluated per page */

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
    return mask_page_rows(x, first_row, a, e, pe->sel);
}

/* The predicate over the k selected rows' values in pe->vals, its passing rows set in x->tmp
 * (whose bits for the page are clear). */
static int eval_selected(scan_task *x, page_eval *pe, int64_t first_row, int64_t k, int64_t off)
{
    assert(pe->vals.length == k);
    int rc = flt_mask_init(&pe->in, k, true);
    if (rc == 0) rc = flt_eval(pe->p, &pe->vals, &pe->in, &pe->out);
    if (rc) return pq_errf(&x->err, rc, off, "cannot evaluate the conjunct on this page");
    for (int64_t i = 0; i < k; i++)
        if (flt_mask_get(&pe->out, i)) flt_mask_set(&x->tmp, first_row + pe->sel[i]);
    atomic_fetch_add_explicit(&x->tc->sel_eval_pages, 1, memory_order_relaxed);
    return 0;
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
    if (bits.done) {
        flt_eval_dict_bits(pe->p, &pe->in, &pe->out);
    } else if (as_idx) {
        rc = prepare_dict(pe, r, r->shared_dict ? r->shared_dict : &r->dict);
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
    pq_col_reader *r = reader_for(x, slot);
    bool keep = projected(plan, slot);
    page_eval pe = {.p = &plan->filter->preds[k], .keep = keep ? &x->vecs[slot] : NULL};
    pq_vec_init(&pe.idx, PQ_INT32, 0);
    pq_vec_init(&pe.vals, d->physical, d->type_length);
    if (keep) pq_vec_clear(&x->vecs[slot]);
    /* sized for the rows reaching the conjunct (as decode_slot sizes for the split's): grown
       by doubling it was copied again and again, lineitem_prune's l_orderkey 15% dearer */
    const pq_chunk_meta *cm = &plan->f->meta.row_groups[x->sp->rg].chunks[cp->col];
    rc = keep ? pq_vec_reserve(&x->vecs[slot], flt_mask_popcount(&x->mask),
                               split_data(x, cm, &x->vecs[slot]))
              : 0;
    if (rc == 0) rc = flt_mask_init(&x->tmp, x->nrows, false);
    if (rc == 0) rc = walk_selected(x, slot, r, page_eval_one, &pe);
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
