/* scan/task_decode.c: decoding a split's columns from its pieces: a column in full (pages the
 * mask excludes become placeholder rows), a projection-only column straight into its
 * compacted form, and the page walk task_eval.c evaluates a conjunct with. Pages are framed
 * by format/ (one walk per piece); this file decides per page what to keep.
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

int64_t task_split_data(const scan_task *x, const pq_chunk_meta *cm, const pq_vec *v)
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
    int rc = r->col->nested ? task_decode_nested(x, slot, r, v, task_split_data(x, cm, v))
                            : pq_vec_reserve(v, x->nrows, task_split_data(x, cm, v));
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
    if (r->col->nested && x->keys_row >= 0) want = x->keys_row; /* (before a null map key) */
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

/* Decodes slot straight into v in its compacted form (the rows the mask selects): no
 * full-length vector is ever built; a page the mask selects none of is skipped undecoded; the
 * slot's reads are released. */
static int selected_into(scan_task *x, int slot, pq_vec *v)
{
    const scan_colplan *cp = &x->sp->cols[slot];
    pq_col_reader *r = reader_for(x, slot);
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
    return rc;
}

static int decode_selected(scan_task *x, int slot)
{
    int rc = selected_into(x, slot, &x->vecs[slot]);
    x->decoded[slot] = rc == 0;
    x->compacted[slot] = rc == 0;
    return rc;
}

int task_decode_compacted(scan_task *x, int slot, pq_vec *out)
{
    assert(!x->decoded[slot] && x->nmrows < 0 && x->plan->slot_node[slot] < 0);
    pq_vec_init(out, x->vecs[slot].type, x->vecs[slot].type_length);
    task_drop_excluded_pages(x, slot);
    int rc = task_await_slot(x, slot);
    return rc ? rc : selected_into(x, slot, out);
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
