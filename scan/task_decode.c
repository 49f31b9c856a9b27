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





/* Decodes one page piece (or dictionary) appending the page's rows [a, e) of the split: the
 * whole page, or when it straddles the split's edge just its rows inside (pq_colr_page_sel). */
static int decode_page(scan_task *x, pq_col_reader *r, const scan_piece *pc, const io_bytes *b,
                       int64_t a, int64_t e, pq_vec *v)
{
    size_t used = 0;
    int64_t rows = 0;
    int rc;
    if (pc->dict || (a == pc->first_row && e == pc->first_row + pc->nrows)) {
        rc = pq_colr_page(r, b->data, b->len, (int64_t)pc->off, v, &used, &rows, &x->err);
    } else {
        uint32_t *idx = task_sel(x, e - a);
        if (!idx) return -ENOMEM;
        for (int64_t i = a; i < e; i++) idx[i - a] = (uint32_t)(i - pc->first_row);
        rc = pq_colr_page_sel(r, b->data, b->len, (int64_t)pc->off, idx, e - a, v, &used, &rows,
                              &x->err);
    }
    if (rc == 0 && !pc->dict && rows != pc->nrows)
        rc = pq_errf(&x->err, RINGSCAN_EFORMAT, (int64_t)pc->off,
                     "page holds %lld rows, the offset index says %lld", (long long)rows,
                     (long long)pc->nrows);
    return rc;
}

enum { RESERVE_DATA_MAX = 256 << 20 }; /* bytes of string data reserved ahead, at most */

/* Sizes v for the split's rows before decoding (a vector handed to the output starts empty:
 * growing it by doubling would copy it again and again). String data: the split's share of
 * the chunk's uncompressed bytes, a guess that only saves copies. */
static int reserve_split(scan_task *x, const pq_chunk_meta *cm, pq_vec *v)
{
    int64_t rg_rows = x->plan->f->meta.row_groups[x->sp->rg].num_rows, data = 0;
    assert(cm->total_uncompressed_size <= PQ_MAX_CHUNK_UNCOMPRESSED_BYTES); /* meta_check */
    if (v->type == PQ_BYTE_ARRAY && rg_rows > 0 && cm->total_uncompressed_size > 0) {
        double share = (double)x->sp->nrows / (double)rg_rows;
        data = (int64_t)((double)cm->total_uncompressed_size * share);
        if (data > RESERVE_DATA_MAX) data = RESERVE_DATA_MAX;
    }
    return pq_vec_reserve(v, x->sp->nrows, data);
}

/* Decodes slot's pieces into x->vecs[slot]; released pages become placeholder rows. */
static int decode_slot(scan_task *x, int slot)
{
    const scan_plan *plan = x->plan;
    scan_colplan *cp = &x->sp->cols[slot];
    pq_col_reader *r = reader_for(x, slot);
    const pq_chunk_meta *cm = &plan->f->meta.row_groups[x->sp->rg].chunks[cp->col];
    pq_vec *v = &x->vecs[slot];
    int rc = reserve_split(x, cm, v);
    bool paged = false;
    for (int p = 0; rc == 0 && p < cp->npieces; p++) {
        scan_piece *pc = &cp->pieces[p];
        if (pc->dict && r->shared_dict) { /* published since it was registered */
            task_discard(x, slot, p);
            continue;
        }
        fut_t *f = x->futs[slot][p];
        int64_t a = 0, e = 0;
        if (!pc->dict && !pc->whole_chunk) {
            paged = true;
            task_piece_span(x->sp, pc, &a, &e);
            /* pages pruned at planning have no piece: their rows become placeholders too */
            if (a > v->length && (rc = append_placeholder(v, a - v->length))) break;
        }
        if (!f) {
            if (!pc->dict) rc = append_placeholder(v, e - a);
            continue;
        }
        io_bytes b = task_piece_bytes(x, slot, p);
        if (pc->whole_chunk) {
            rc = pq_colr_chunk(r, cm, b.data, b.len, (int64_t)pc->off, v, &x->err);
            continue;
        }
        rc = decode_page(x, r, pc, &b, a, e, v);
        if (rc == 0 && pc->dict) task_publish_dict(x, slot, r);
    }
    r->shared_dict = NULL; /* not kept past the split: the last split of the group frees it */
    if (rc == 0 && paged && v->length < x->sp->nrows) /* trailing pages pruned at planning */
        rc = append_placeholder(v, x->sp->nrows - v->length);
    if (rc == 0 && v->length != x->sp->nrows)
        rc = pq_errf(&x->err, RINGSCAN_EFORMAT, cp->npieces ? (int64_t)cp->pieces[0].off : -1,
                     "column chunk decoded to %lld rows, row group has %lld",
                     (long long)v->length, (long long)x->sp->nrows);
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


/* Checks a data page's row count (h) at split-relative first_row: exp_rows is the page's
 * row count by the offset index (page pieces) or -1 (pages of a whole chunk, which must end
 * inside the row group). Sets [*a, *e): its rows inside the split. */
static int page_rows_check(scan_task *x, const pq_page_header *h, int64_t off, int64_t first_row,
                           int64_t exp_rows, int64_t *a, int64_t *e)
{
    int64_t end = first_row + h->num_values;
    if (exp_rows >= 0 && h->num_values != exp_rows)
        return pq_errf(&x->err, RINGSCAN_EFORMAT, off, "page holds %lld rows, the offset index says %lld",
                       (long long)h->num_values, (long long)exp_rows);
    if (h->num_values < 0 || (exp_rows < 0 && end > x->sp->nrows))
        return pq_errf(&x->err, RINGSCAN_EFORMAT, off, "pages hold more rows than the row group");
    *a = first_row < 0 ? 0 : first_row;
    *e = end > x->sp->nrows ? x->sp->nrows : end;
    return 0;
}

/* Whether the data page (h, hl header bytes, len available) can be skipped undecoded: its
 * body is in the buffer and the mask selects none of its rows [a, e). */
static bool page_skippable(const scan_task *x, const pq_page_header *h, int hl, size_t len,
                           int64_t a, int64_t e, size_t *used, int64_t *rows)
{
    if ((size_t)h->compressed_size > len - (size_t)hl || flt_mask_any_range(&x->mask, a, e)) return false;
    *used = (size_t)hl + (size_t)h->compressed_size;
    *rows = h->num_values;
    return true;
}

/* Decodes one data page of a piece that holds rows the mask selects: the page starts at
 * split-relative row first_row and its rows [a, e) lie inside the split; sets the bytes it
 * took and the rows it holds (piece_pages has checked the header's row count). */
typedef int (*page_fn)(scan_task *x, pq_col_reader *r, void *ctx, const uint8_t *buf, size_t len,
                       int64_t off, int64_t first_row, int64_t a, int64_t e, size_t *used,
                       int64_t *rows);

/* The rows of the page starting at split row first_row that the mask selects in [a, e), as
 * page-relative row numbers into out (room for e - a); returns their count. */
static int64_t mask_page_rows(const scan_task *x, int64_t first_row, int64_t a, int64_t e,
                              uint32_t *out)
{
    assert(a >= first_row && e >= a);
    int64_t k = flt_mask_select_range(&x->mask, a, e, out);
    for (int64_t i = 0; a > first_row && i < k; i++) out[i] += (uint32_t)(a - first_row);
    return k;
}

/* A page of a projection-only column: only its selected rows are decoded and appended to
 * the vector ctx (pq_colr_page_sel). */
static int page_selected(scan_task *x, pq_col_reader *r, void *ctx, const uint8_t *buf, size_t len,
                         int64_t off, int64_t first_row, int64_t a, int64_t e, size_t *used,
                         int64_t *rows)
{
    uint32_t *idx = task_sel(x, e - a);
    if (!idx) return -ENOMEM;
    int64_t k = mask_page_rows(x, first_row, a, e, idx);
    int rc = pq_colr_page_sel(r, buf, len, off, idx, k, ctx, used, rows, &x->err);
    return rc;
}

/* One page of a piece through fn, unless it is not a data page (a dictionary page loads the
 * reader's dictionary, scratch is the column-typed vector that call needs and that gets no
 * rows; index pages are skipped) or the mask selects none of its rows inside the split
 * (skipped undecoded). exp_rows: the page's row count by the offset index, or -1 for the
 * pages of a whole chunk. */
static int piece_page(scan_task *x, pq_col_reader *r, const uint8_t *buf, size_t len, int64_t off,
                      int64_t first_row, int64_t exp_rows, page_fn fn, void *ctx, pq_vec *scratch,
                      size_t *used, int64_t *rows)
{
    pq_page_header h;
    int hl = pq_page_header_parse(buf, len, &h, &x->err);
    if (hl < 0) {
        x->err.offset = off; /* the header's file offset, as pq_colr_page reports it */
        return hl;
    }
    if (h.type != PQ_PAGE_DATA && h.type != PQ_PAGE_DATA_V2)
        return pq_colr_page(r, buf, len, off, scratch, used, rows, &x->err);
    int64_t a, e;
    int rc = page_rows_check(x, &h, off, first_row, exp_rows, &a, &e);
    if (rc || page_skippable(x, &h, hl, len, a, e, used, rows)) return rc;
    return fn(x, r, ctx, buf, len, off, first_row, a, e, used, rows);
}

/* Every page of one piece (a whole chunk holds many, which must end exactly at the row
 * group's last row; a page piece one) through piece_page. */
static int piece_pages(scan_task *x, pq_col_reader *r, const scan_piece *pc, const io_bytes *b,
                       page_fn fn, void *ctx, pq_vec *scratch)
{
    size_t pos = 0;
    int64_t row = pc->whole_chunk ? 0 : pc->first_row;
    while (pos < b->len && (pc->whole_chunk ? row < x->sp->nrows : pos == 0)) {
        size_t used = 0;
        int64_t rows = 0;
        int rc = piece_page(x, r, b->data + pos, b->len - pos, (int64_t)(pc->off + pos), row,
                            pc->whole_chunk || pc->dict ? -1 : pc->nrows, fn, ctx, scratch, &used,
                            &rows);
        if (rc) return rc;
        assert(used > 0);
        pos += used;
        row += rows;
    }
    if (pc->whole_chunk && row != x->sp->nrows)
        return pq_errf(&x->err, RINGSCAN_EFORMAT, (int64_t)pc->off,
                       "column chunk holds %lld rows, row group has %lld", (long long)row,
                       (long long)x->sp->nrows);
    return 0;
}

/* Decodes a projection-only column straight into its compacted form (the rows the final
 * mask selects): no full-length vector is ever built. */
static int decode_selected(scan_task *x, int slot)
{
    scan_colplan *cp = &x->sp->cols[slot];
    pq_col_reader *r = reader_for(x, slot);
    pq_vec *v = &x->vecs[slot];
    int64_t want = flt_mask_popcount(&x->mask);
    int rc = pq_vec_reserve(v, want, 0);
    for (int p = 0; rc == 0 && p < cp->npieces; p++) {
        if (cp->pieces[p].dict && r->shared_dict) task_discard(x, slot, p);
        if (!x->futs[slot][p]) continue;
        io_bytes b = task_piece_bytes(x, slot, p);
        rc = piece_pages(x, r, &cp->pieces[p], &b, page_selected, v, v);
        if (rc == 0 && cp->pieces[p].dict) task_publish_dict(x, slot, r);
    }
    r->shared_dict = NULL;
    if (rc == 0 && v->length != want)
        rc = pq_errf(&x->err, RINGSCAN_EFORMAT, (int64_t)cp->pieces[0].off,
                     "column chunk yielded %lld selected rows, the filter selected %lld",
                     (long long)v->length, (long long)want);
    if (rc) pq_err_column(&x->err, x->plan->f->meta.columns[cp->col].name);
    task_release_slot(x, slot);
    x->decoded[slot] = rc == 0;
    x->compacted[slot] = rc == 0;
    return rc;
}

/* A projected column that no conjunct decoded: compacted decode when the mask drops rows. */
int task_load_projected(scan_task *x, int slot)
{
    if (x->decoded[slot]) return 0;
    if (flt_mask_all_true(&x->mask)) return task_load_slot(x, slot);
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
    const pq_vec *dmask_dict;  /* the dictionary dmask holds (NULL: none yet) */
    uint32_t *sel;             /* a page's selected rows, page-relative (page_sel_rows) */
    int64_t sel_cap;
    int64_t dmask_loads;       /* and the reader's dict_loads then (the reader's own
                                  dictionary keeps its address when a new page replaces it) */
} page_eval;

/* Whether conjunct k can be evaluated page by page: its column is neither projected nor
 * tested by another conjunct, so no decoded vector of it is ever needed. */
bool task_pageable(const scan_plan *plan, int k)
{
    int slot = plan->pred_slot[k];
    for (int j = 0; j < plan->nproj; j++)
        if (plan->proj_slot[j] == slot) return false;
    for (int i = 0; i < plan->npreds; i++)
        if (i != k && plan->pred_slot[i] == slot) return false;
    return true;
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

/* One page: x->tmp = mask AND predicate over its rows [a, e) inside the split. A
 * dictionary-encoded page is evaluated from its indices (the predicate once per dictionary
 * entry, then mapped); a byte-array page the mask selects under half of from the selected
 * rows' values only (a string conjunct late in the chain copies the few rows that reach it,
 * not the page); others from all their values. */
static int page_eval_one(scan_task *x, pq_col_reader *r, void *ctx, const uint8_t *buf, size_t len,
                         int64_t off, int64_t first_row, int64_t a, int64_t e, size_t *used,
                         int64_t *rows)
{
    page_eval *pe = ctx;
    pq_vec_clear(&pe->idx);
    pq_vec_clear(&pe->vals);
    int64_t k = -1; /* listed selected rows, when the page is byte arrays selected sparsely */
    if (r->col->physical == PQ_BYTE_ARRAY && 2 * flt_mask_count_range(&x->mask, a, e) < e - a) {
        k = page_sel_rows(x, pe, first_row, a, e);
        if (k < 0) return (int)k;
    }
    bool as_idx = false;
    int rc = pq_colr_page_idx_sel(r, buf, len, off, pe->sel, k, &pe->idx, &pe->vals, &as_idx,
                                  used, rows, &x->err);
    if (rc == 0 && k >= 0 && !as_idx) return eval_selected(x, pe, first_row, k, off);
    if (rc == 0) rc = flt_mask_init(&pe->in, *rows, false);
    if (rc) return rc;
    flt_mask_copy_bits(&pe->in, a - first_row, &x->mask, a, e - a);
    if (as_idx) {
        atomic_fetch_add_explicit(&x->tc->dict_eval_pages, 1, memory_order_relaxed);
        const pq_vec *d = r->shared_dict ? r->shared_dict : &r->dict;
        if (pe->dmask_dict != d || pe->dmask_loads != r->dict_loads) {
            pe->dmask_dict = NULL;
            rc = flt_eval_dict_prepare(pe->p, d, &pe->dmask);
            if (rc == 0) pe->dmask_dict = d, pe->dmask_loads = r->dict_loads;
        }
        if (rc == 0)
            rc = flt_eval_dict_map(pe->p, &pe->dmask, (const uint32_t *)(const void *)pe->idx.values,
                                   *rows, pe->idx.null_count ? pe->idx.validity : NULL, &pe->in, &pe->out);
    } else {
        rc = flt_eval(pe->p, &pe->vals, &pe->in, &pe->out);
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
    page_eval pe = {.p = &plan->filter->preds[k]};
    pq_vec_init(&pe.idx, PQ_INT32, 0);
    pq_vec_init(&pe.vals, d->physical, d->type_length);
    rc = flt_mask_init(&x->tmp, x->sp->nrows, false);
    for (int p = 0; rc == 0 && p < cp->npieces; p++) {
        if (cp->pieces[p].dict && r->shared_dict) task_discard(x, slot, p);
        if (!x->futs[slot][p]) continue;
        io_bytes b = task_piece_bytes(x, slot, p);
        rc = piece_pages(x, r, &cp->pieces[p], &b, page_eval_one, &pe, &pe.vals);
        if (rc == 0 && cp->pieces[p].dict) task_publish_dict(x, slot, r);
    }
    r->shared_dict = NULL;
    if (rc) pq_err_column(&x->err, d->name);
    task_release_slot(x, slot);
    pq_vec_free(&pe.idx);
    pq_vec_free(&pe.vals);
    flt_mask_free(&pe.in);
    flt_mask_free(&pe.out);
    flt_mask_free(&pe.dmask);
    free(pe.sel);
    return rc;
}

