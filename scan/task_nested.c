/* scan/task_nested.c: a nested field's slot decoded into packed rows (format/column_nested.h):
 * the plan gives its slot one whole-chunk piece per leaf of the field (plan.c whole_chunks),
 * this file decodes each leaf with a reader of its own and assembles the rows, or builds the
 * field's columns straight from the leaves when the scan's batches go to the Arrow export
 * (cols_ok; format/vec.h invariant 6: no packed row written or read). A split whose final
 * mask drops rows cuts the decoded leaves to the kept rows first (format/nest_select.c), so
 * it builds only those: its vector is compacted (task.h), as a projection-only flat column's.
 * A map whose key the schema makes OPTIONAL is then checked for null keys in the rows kept
 * (format/nest_keys.c), as DuckDB checks the rows its filters pass; under a limit only the
 * rows the output reaches count (as DuckDB's LIMIT): the slot's rows end before the first
 * kept row holding one (x->keys_row, the leaves cut before it: nest_select.c), the split's
 * batch with them (task.c keys_cut), and the output fails only if it needs that row
 * (output.h invariant 6). Under ORDER BY ... LIMIT each kept row holding one is read with its
 * field absent and marked for the merge (keys_mark), which fails only if the row is in the
 * answer (topk.h invariant 4). A null key is never assembled.
 * A split decodes its window's rows only (a row group too large for one split is cut by
 * rows: plan_cut.c): each leaf through the slot reader's stream (format/nest_stream.c), so
 * the splits of a cut group one core runs in order decode each page once; a split run out
 * of order with nothing parked for it starts its leaf over from the chunk's first page, or,
 * when the plan kept the leaves' offset indexes (scan_piece.oi), from the page holding its
 * first row (nest_stream.c invariant 7: then another core may steal the group's splits,
 * fetch_impl.h fetch_stealable_in; without them none does). A leaf's chunk
 * over the read window is read in windows as its stream asks (task_nwin.c), the slot's gate
 * held meanwhile (task_nest_enter: the core's other tasks wait for the slot).
 * Invariants: the slot's core reader keeps every leaf's decoded levels and values between
 * splits (pq_nest_leaves_keep: their buffers are reused, a split's worth per leaf held until
 * the scan ends) and every leaf's stream (pq_nest_streams: its place in the chunk, the rows
 * decoded past the last split, and the reader each leaf decodes with, given the slot
 * reader's limits and scan-wide decompression count). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/task.h"

/* Whether slot's rows (field t) may be handed over as columns: the scan's consumer exports
 * batches (env nest_cols; a limit's cut and Top-K's gathers take and cut the columns,
 * format/nest_take.c) and the slot is not decoded as dictionary indices. Every split builds
 * only the rows it keeps (nest_select), so each takes the columns' form. */
static bool cols_ok(const scan_task *x, int slot)
{
    return x->env->nest_cols && !(x->env->dict_slot && x->env->dict_slot[slot]);
}

/* The rows of the split's window a nested slot decodes, from its first: every one, or under a
 * capped mask (task.c cap_rows) those up to its last kept row. A split so capped outputs the
 * limit's rows, so no later split on its core asks its leaves' streams for the rows after
 * (they would be parked: format/nest_stream.c invariant 5). */
static int64_t nest_span(const scan_task *x)
{
    if (!x->capped || x->nmrows <= 0) return x->nrows;
    assert(x->mrows[x->nmrows - 1] < x->nrows);
    return (int64_t)x->mrows[x->nmrows - 1] + 1;
}

/* After the leaves of nest_span's rows are decoded: when the final mask drops some of them
 * (listed in x->mrows), the leaves cut to those (pq_nest_leaves_select); the rows to
 * assemble. */
static int64_t nest_select(scan_task *x, int slot, const pq_file_meta *m, const pq_nest *t,
                           pq_nest_leaf *leaves)
{
    int64_t rows = nest_span(x);
    if (rows < x->nrows) x->compacted[slot] = true; /* (span's rows: each one kept) */
    if (x->nmrows < 0 || x->nmrows == rows) return rows; /* (every row kept) */
    assert(x->nmrows < rows);
    if (!pq_nest_leaves_select(m, t, leaves, rows, x->mrows, x->nmrows)) return rows;
    x->compacted[slot] = true;
    return x->nmrows;
}

/* env->keys_mark (a bounded Top-K): the kept rows (rows of them, sel as for keys_check)
 * holding a null map key are marked in x->bad (made on the first, one entry per batch row)
 * and their fields made absent (pq_nest_leaves_blank), so the rows still rank and the batch
 * carries them to the merge, which fails the scan only if one is in the answer (topk.h
 * invariant 4). Leaves that do not hold the batch's rows fail the split with the first
 * null key, as without a limit. 0 or a negative status. */
static int keys_mark(scan_task *x, const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                     int64_t rows, const uint32_t *sel)
{
    int64_t at = -1;
    pq_err e = {.offset = -1};
    int rc = pq_nest_keys_check(m, t, leaves, sel, x->sp->rg, x->row_lo, &at, &e);
    if (rc == 0) return 0;
    if (rows != flt_mask_popcount(&x->mask)) return x->err = e, rc;
    pq_nest_null_key *mine = fail_malloc(sizeof *mine * (size_t)rows);
    uint32_t *blank = fail_malloc(sizeof *blank * (size_t)rows);
    if (!x->bad) x->bad = fail_malloc(sizeof *x->bad * (size_t)rows);
    rc = mine && blank && x->bad ? 0 : -ENOMEM;
    if (rc == 0 && !x->nbad) /* (the first slot to mark: no row marked yet) */
        for (int64_t i = 0; i < rows; i++) x->bad[i].map = -1;
    int64_t nb = 0;
    if (rc == 0 && pq_nest_keys_rows(t, leaves, rows, sel, x->sp->rg, x->row_lo, mine) > 0)
        for (int64_t i = 0; i < rows; i++) {
            if (mine[i].map < 0) continue;
            blank[nb++] = (uint32_t)i;
            if (x->bad[i].map < 0) x->bad[i] = mine[i], x->nbad++; /* (an earlier slot's first) */
        }
    assert(rc != 0 || nb > 0); /* (pq_nest_keys_check found one) */
    if (rc == 0 && !pq_nest_leaves_blank(m, t, leaves, rows, blank, nb))
        x->err = e, rc = e.status;
    free(mine);
    free(blank);
    return rc;
}

/* The map keys of the kept rows *rows (the leaves cut to them when *rows < x->nrows, named by
 * x->mrows): a null key fails the split (x->err), unless env->keys_defer: the leaves are then
 * cut before x->keys_row (an earlier slot's) and before the first row here holding one (which
 * becomes x->keys_row, its error x->keys_err), *rows counting what is left. Leaves that do
 * not hold *rows rows are left whole, for the assembly to name. 0 or RINGSCAN_EFORMAT. */
static int keys_check(scan_task *x, int slot, const pq_file_meta *m, const pq_nest *t,
                      pq_nest_leaf *leaves, int64_t *rows)
{
    const uint32_t *sel = *rows < x->nrows ? x->mrows : NULL; /* (a prefix keeps their ranks) */
    if (x->env->keys_mark) return keys_mark(x, m, t, leaves, *rows, sel);
    if (x->keys_row >= 0 && pq_nest_leaves_head(m, t, leaves, *rows, x->keys_row))
        *rows = x->keys_row, x->compacted[slot] = true;
    int64_t at = -1;
    pq_err e = {.offset = -1};
    int rc = pq_nest_keys_check(m, t, leaves, sel, x->sp->rg, x->row_lo, &at, &e);
    if (rc == 0) return 0;
    assert(at >= 0);
    if (!x->env->keys_defer || at >= *rows || !pq_nest_leaves_head(m, t, leaves, *rows, at))
        return x->err = e, rc;
    assert(x->keys_row < 0 || at < x->keys_row); /* (cut before keys_row above) */
    x->keys_row = at, x->keys_err = e;
    *rows = at, x->compacted[slot] = true;
    return 0;
}

/* Leaf i of slot's field (its piece: the whole chunk read, or windows read as its stream asks,
 * task_nwin.c; footer metadata cm) decoded for the split's window into l: through the
 * reader's stream st[i] (format/nest_stream.c), so the splits of a cut row group this core
 * runs in order decode each page once. Each leaf
 * decodes with its stream's own reader (its dictionary kept with it, reset when the stream
 * starts a chunk over); the slot's reader r lends its limits and decompression count. */
static int leaf_rows(scan_task *x, int slot, pq_col_reader *r, pq_nest_stream *st, int i,
                     const pq_column_desc *d, const pq_chunk_meta *cm, pq_nest_leaf *l)
{
    const scan_piece *pc = &x->sp->cols[slot].pieces[i];
    io_bytes b = {0}; /* (windowed: none read up front, task_nwin.c) */
    if (!pc->windowed) b = task_piece_bytes(x, slot, i);
    pq_col_reader *ri = &st[i].rd;
    if (!ri->col) pq_colr_init(ri, d, cm->codec, &r->limits);
    ri->codec = cm->codec; /* (a stream restarts at a new chunk, whose codec may differ) */
    ri->scan_decompressed = r->scan_decompressed;
    int64_t rg_rows = x->plan->f->meta.row_groups[x->sp->rg].num_rows;
    int64_t lo = x->row_lo, hi = x->row_lo + nest_span(x);
    assert(lo >= 0 && hi <= rg_rows);
    /* the footer's value count, the window's share, sizes the leaf once (a hint, capped so
     * that a footer that lies costs little: the chunk's bytes bound it, decoding grows past
     * it when true) */
    int64_t nv = cm->num_values, cap = 4 * cm->total_uncompressed_size + 1024;
    nv = nv < cap ? nv : cap;
    if (nv > 0 && rg_rows > 0)
        nv = (int64_t)((double)nv * (double)(hi - lo) / (double)rg_rows) + 1024;
    int rc = nv > 0 ? pq_nest_leaf_reserve(l, nv) : 0;
    return rc ? rc : task_nest_rows(x, slot, i, ri, &st[i], pc, b, lo, hi, hi == rg_rows, l);
}

int task_decode_nested(scan_task *x, int slot, pq_col_reader *r, pq_vec *v, int64_t data)
{
    assert(v->length == 0 && !v->cols);
    const pq_file_meta *m = &x->plan->f->meta;
    const scan_colplan *cp = &x->sp->cols[slot];
    int32_t top = x->plan->slot_node[slot];
    assert(top >= 0);
    int n = cp->npieces;
    int rc = task_nest_enter(x, slot); /* (r's leaves and streams: one decode at a time) */
    if (rc) return rc;
    pq_nest *t = fail_malloc(sizeof *t * (size_t)PQ_NEST_CAP(m, top));
    pq_nest_leaf *leaves = pq_nest_leaves_keep(r, &m->columns[cp->col], n);
    pq_nest_stream *st = leaves ? pq_nest_streams(r, &m->columns[cp->col], n) : NULL;
    rc = t && leaves && st ? 0 : -ENOMEM;
    if (rc == 0 && (rc = pq_nest_build(m, top, t, &x->err)) > 0) rc = 0;
    if (rc == 0 && t[0].leaf_hi - t[0].leaf_lo != n)
        rc = pq_errf_col(&x->err, RINGSCAN_EFORMAT, -1, m->nodes[top].path, "field has %d "
                         "leaves, the plan %d", t[0].leaf_hi - t[0].leaf_lo, n);
    bool cols = rc == 0 && pq_nest_has_columns(m, t) && cols_ok(x, slot);
    for (int i = 0; rc == 0 && i < n; i++) {
        const pq_chunk_meta *cm = &m->row_groups[x->sp->rg].chunks[cp->col + i];
        rc = leaf_rows(x, slot, r, st, i, &m->columns[cp->col + i], cm, &leaves[i]);
    }
    int64_t rows = rc == 0 ? nest_select(x, slot, m, t, leaves) : 0;
    if (rc == 0) rc = keys_check(x, slot, m, t, leaves, &rows);
    int64_t guess = x->nrows ? data * rows / x->nrows : data; /* (the kept rows') */
    if (rc == 0 && !cols) rc = pq_vec_reserve(v, rows, guess);
    if (rc == 0 && cols) rc = pq_nest_columns(m, t, leaves, rows, v, &x->err);
    else if (rc == 0) rc = pq_nest_assemble(m, t, leaves, rows, v, &x->err);
    task_nest_leave(x, slot);
    free(t);
    return rc;
}
