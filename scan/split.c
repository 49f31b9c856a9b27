/* scan/split.c: the split task.
 *
 * Before awaiting anything the task registers, as io/ futures, every read the split may
 * need: for each conjunct in the snapshot order its column's pieces, then the projection
 * columns' pieces. The submission policy decides which of them are wanted at once (eager:
 * all; lazy: none; adaptive: the positions whose input mask was rarely all-false so far), so
 * the I/O layer coalesces everything wanted together. The chain then runs in order: conjunct
 * k wants its pieces (if not yet), awaits them, decodes, evaluates against mask k-1. When a
 * mask is all-false every remaining future is released: unsubmitted reads vanish, in-flight
 * ones are cancelled, nothing more is decoded, and the projection is never read. With page
 * pieces, a page whose rows are all false in the current mask is released the same way
 * before its conjunct or the projection wants it.
 *
 * This is the architecture's chain of mask futures written as one coroutine: mask k is the
 * value the coroutine holds after conjunct k, and "resolved all-false" is the early exit. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/kernel.h"
#include "common/fail.h"
#include "scan/scan_impl.h"

/* Per-split working state (on the task's stack / heap, freed at the end). */
typedef struct split_ctx {
    scan_t *s;
    scan_core *c;
    scan_split *sp;
    int unit;              /* its fetch unit (unit.c) */
    bool by_unit;          /* the unit is shared: pieces are slices of its requests */
    fut_t ***futs;         /* [slot][piece], NULL once released or never registered */
    pq_vec *vecs;          /* decoded columns per slot (valid when decoded[slot]) */
    bool *decoded;
    bool *compacted;       /* decoded[slot] holds only the selected rows (decode_selected) */
    int32_t perm[FLT_MAX_PREDS];
    flt_mask mask, tmp;
    pq_err err;
} split_ctx;

/* ------------------------------------------------------------------------ futures */

/* Whether piece p of slot is a slice of its fetch unit's request (unit.c), not a read of its
 * own: the unit accounts for those bytes. */
static bool unit_backed(const split_ctx *x, int slot, int p)
{
    return x->by_unit && x->futs[slot][p] && x->futs[slot][p] == x->s->units[x->unit].f[slot];
}

/* The bytes of piece p of slot (resolved): its own read, or its slice of the unit's request
 * (which it marks used). A unit request shorter than planned (a truncated file) yields a
 * short slice, which the page decoder reports at the piece's offset. */
static io_bytes piece_bytes(split_ctx *x, int slot, int p)
{
    const io_bytes *b = fut_value(x->futs[slot][p]);
    if (!unit_backed(x, slot, p)) return *b;
    scan_unit *u = &x->s->units[x->unit];
    const scan_piece *pc = &x->sp->cols[slot].pieces[p];
    assert(pc->off >= u->off[slot] && pc->off + pc->len <= u->off[slot] + u->len[slot]);
    uint64_t rel = pc->off - u->off[slot];
    size_t len = rel >= b->len ? 0 : (size_t)(b->len - rel < pc->len ? b->len - rel : pc->len);
    u->used[slot] = true;
    return (io_bytes){.data = b->data + (rel < b->len ? rel : 0), .len = len, .shared = 0};
}

static void release(split_ctx *x, int slot, int p)
{
    if (x->futs[slot][p]) {
        fut_unref(x->futs[slot][p]);
        x->futs[slot][p] = NULL;
    }
}

static void release_slot(split_ctx *x, int slot)
{
    for (int p = 0; p < x->sp->cols[slot].npieces; p++) release(x, slot, p);
}

/* Releases a piece that will not be decoded. io/ counts a resolved read whose future was
 * wanted as used; when the split drops it undecoded (eager or adaptive speculation behind an
 * all-false mask) its bytes were wasted, so they are moved there at the end of the scan. */
static void discard(split_ctx *x, int slot, int p)
{
    fut_t *f = x->futs[slot][p];
    if (f && !unit_backed(x, slot, p)) scan_discarded(x->s, f);
    release(x, slot, p);
}

static void discard_slot(split_ctx *x, int slot)
{
    for (int p = 0; p < x->sp->cols[slot].npieces; p++) discard(x, slot, p);
}

static void want_slot(split_ctx *x, int slot)
{
    for (int p = 0; p < x->sp->cols[slot].npieces; p++)
        if (x->futs[slot][p]) fut_want(x->futs[slot][p]);
}

/* ------------------------------------------------------------- shared dictionaries */

/* The shared dictionary slot of slot's column, or NULL when the split has its row group alone. */
static _Atomic(pq_vec *) *dict_slot(split_ctx *x, int slot)
{
    if (!x->sp->shares_rg) return NULL;
    return &x->s->dicts[(size_t)x->sp->rg * (size_t)x->s->nneed + (size_t)slot];
}

/* The dictionary another split of the row group published for slot, or NULL. */
static const pq_vec *shared_dict(split_ctx *x, int slot)
{
    _Atomic(pq_vec *) *d = dict_slot(x, slot);
    return d ? atomic_load_explicit(d, memory_order_acquire) : NULL;
}

/* After r decoded slot's dictionary page itself: moves it to the row group's slot for the
 * other splits (the first publisher wins; r then borrows it like they do). */
static void publish_dict(split_ctx *x, int slot, pq_col_reader *r)
{
    _Atomic(pq_vec *) *d = dict_slot(x, slot);
    if (!d || !r->has_dict || r->shared_dict || atomic_load_explicit(d, memory_order_relaxed)) return;
    pq_vec *v = fail_malloc(sizeof *v);
    if (!v) return; /* sharing is an optimisation: keep the reader's own */
    *v = r->dict;
    pq_vec *none = NULL;
    if (atomic_compare_exchange_strong_explicit(d, &none, v, memory_order_release, memory_order_relaxed)) {
        pq_vec_init(&r->dict, v->type, v->type_length); /* the buffers moved to v */
        r->has_dict = false;
        r->shared_dict = v;
    } else {
        free(v);
    }
}

/* A split that is not its row group's leader registered no dictionary page: it borrows the
 * leader's once published, waiting (yielding its core) while the leader runs, or is claimed
 * and about to run (its place in the output window is before this split's, so it is let
 * through first) unless the scan still explores (one split per core: the leader could wait
 * for this one); when the leader is not running (not claimed, or ended without it: its rows
 * were all filtered out before this column), the page is read now. A running leader never
 * waits on another split: no cycle. Called once slot's other pieces are in. */
static int ensure_dict(split_ctx *x, int slot)
{
    scan_colplan *cp = &x->sp->cols[slot];
    if (!x->sp->shares_rg || x->sp->leader || cp->npieces < 2 || !cp->pieces[0].dict || x->futs[slot][0])
        return 0;
    bool pages_left = false;
    for (int p = 1; p < cp->npieces; p++) pages_left = pages_left || x->futs[slot][p];
    if (!pages_left) return 0;
    for (int live; !shared_dict(x, slot) && !atomic_load(&x->s->stop) &&
                   ((live = atomic_load(&x->s->leader_live[x->sp->rg])) == SCAN_LEADER_RUNNING ||
                    (live == SCAN_LEADER_CLAIMED && !scan_exploring(x->s)));)
        exec_yield();
    if (shared_dict(x, slot)) return 0;
    /* a stolen unit's owner holds the leader's range, dictionary included: lent, not read */
    int src = x->by_unit ? x->s->units[x->unit].src : -1;
    fut_t *f = src >= 0 ? scan_lend(x->s, x->c, src, slot, cp->pieces[0].off, cp->pieces[0].len)
                        : io_read(x->c->io, x->s->f->file, cp->pieces[0].off, cp->pieces[0].len);
    if (!f) return -ENOMEM;
    x->futs[slot][0] = f;
    fut_want(f);
    int rc = fut_await(f);
    return rc ? pq_errf(&x->err, rc, (int64_t)cp->pieces[0].off, "%s", fut_message(f)) : 0;
}

/* Readies the core's reader of slot for this split's pages. */
static pq_col_reader *reader_for(split_ctx *x, int slot)
{
    pq_col_reader *r = &x->c->readers[slot];
    r->codec = x->s->f->meta.row_groups[x->sp->rg].chunks[x->sp->cols[slot].col].codec;
    r->has_dict = false;
    r->shared_dict = shared_dict(x, slot);
    return r;
}

/* Registers every piece of every needed column (no I/O yet), taking the reads registered
 * when its unit was reserved (unit.c prefetch); a dictionary page another split of the row
 * group already decoded is not registered. */
static int register_all(split_ctx *x)
{
    scan_t *s = x->s;
    for (int k = 0; k < s->nneed; k++) {
        scan_colplan *cp = &x->sp->cols[k];
        x->futs[k] = fail_calloc((size_t)cp->npieces + 1, sizeof(fut_t *));
        if (!x->futs[k]) return -ENOMEM;
        /* a dictionary already published, or one the group's leader reads (ensure_dict) */
        bool skip_dict = shared_dict(x, k) != NULL || (x->sp->shares_rg && !x->sp->leader);
        int i = (int)(x->sp - s->splits);
        for (int p = 0; p < cp->npieces; p++) {
            fut_t *pre = x->by_unit ? NULL : scan_unit_take_pre(s, x->unit, i, k, p);
            if (cp->pieces[p].dict && skip_dict) {
                if (pre) fut_unref(pre); /* published since the reservation */
                continue;
            }
            if (pre) {
                x->futs[k][p] = pre;
            } else if (x->by_unit) {
                fut_t *u = scan_unit_fut(s, x->c, x->unit, k);
                x->futs[k][p] = u ? fut_ref(u) : NULL;
            } else {
                x->futs[k][p] = io_read(x->c->io, s->f->file, cp->pieces[p].off, cp->pieces[p].len);
            }
            if (!x->futs[k][p]) return -ENOMEM;
        }
    }
    return 0;
}

/* Chance that conjunct k's output is all-false when it runs, from the splits seen so far.
 * The prior weighs a hundredth of a run, at the chance the statistics give (conj_prior; 1.0
 * when they cannot say): with no evidence the answer is that chance, one run that was not
 * all-false brings it to 0.01 or less, so one split of evidence is enough to speculate a
 * three-conjunct chain (a tenth needed three splits, which cost lineitem_order ~12 read calls
 * over eager at sf=1). */
static double q_killed(scan_t *s, int k)
{
    double runs = (double)atomic_load_explicit(&s->conj_runs[k], memory_order_relaxed);
    double killed = (double)atomic_load_explicit(&s->conj_killed[k], memory_order_relaxed);
    return (killed + 0.01 * s->conj_prior[k]) / (runs + 0.01);
}

/* Chance that the input of chain position pos (pos == npreds: the projection) is all-false:
 * one of the conjuncts before it in this split's order produced an all-false mask. Per
 * conjunct, so a change of order does not mix up the evidence. */
static double p_input_all_false(scan_t *s, const int32_t *perm, int pos)
{
    double alive = 1.0;
    for (int i = 0; i < pos; i++) alive *= 1.0 - q_killed(s, perm[i]);
    return 1.0 - alive;
}

enum { ADAPTIVE_SPECULATE_BELOW_PCT = 10 };

bool scan_policy_wants_all(scan_t *s)
{
    if (s->o.policy != SCAN_ADAPTIVE) return s->o.policy == SCAN_EAGER;
    int32_t perm[FLT_MAX_PREDS];
    for (int k = 0; k < s->npreds; k++) perm[k] = k;
    return p_input_all_false(s, perm, s->npreds) * 100.0 < ADAPTIVE_SPECULATE_BELOW_PCT;
}

/* Applies the submission policy to the freshly registered futures. */
static void apply_policy(split_ctx *x)
{
    scan_t *s = x->s;
    if (s->o.policy == SCAN_LAZY) return;
    bool *slot_wanted = fail_calloc((size_t)s->nneed, sizeof(bool));
    if (!slot_wanted) return;
    for (int pos = 0; pos <= s->npreds; pos++) {
        bool speculate = s->o.policy == SCAN_EAGER || pos == 0 ||
                         p_input_all_false(s, x->perm, pos) * 100.0 < ADAPTIVE_SPECULATE_BELOW_PCT;
        if (!speculate) break; /* later positions depend on this one's outcome */
        if (pos < s->npreds) {
            slot_wanted[s->pred_slot[x->perm[pos]]] = true;
        } else {
            for (int j = 0; j < s->nproj; j++) slot_wanted[s->proj_slot[j]] = true;
        }
    }
    for (int k = 0; k < s->nneed; k++)
        if (slot_wanted[k]) want_slot(x, k);
    free(slot_wanted);
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


/* The split-relative rows [*a, *b) a page piece contributes (its rows inside the split). */
static void piece_span(const scan_split *sp, const scan_piece *pc, int64_t *a, int64_t *b)
{
    *a = pc->first_row < 0 ? 0 : pc->first_row;
    *b = pc->first_row + pc->nrows > sp->nrows ? sp->nrows : pc->first_row + pc->nrows;
    assert(*a < *b);
}

/* Releases page pieces of slot whose rows the mask excludes (and the dictionary when no page
 * is left). Whole-chunk pieces are kept. */
static void drop_excluded_pages(split_ctx *x, int slot)
{
    scan_colplan *cp = &x->sp->cols[slot];
    bool any_page = false;
    for (int p = 0; p < cp->npieces; p++) {
        scan_piece *pc = &cp->pieces[p];
        if (pc->dict || pc->whole_chunk || !x->futs[slot][p]) continue;
        int64_t a, b;
        piece_span(x->sp, pc, &a, &b);
        if (!flt_mask_any_range(&x->mask, a, b)) discard(x, slot, p);
        else any_page = true;
    }
    for (int p = 0; p < cp->npieces; p++)
        if (cp->pieces[p].dict && !any_page) discard(x, slot, p);
}

/* Awaits every remaining piece of slot; 0 or the first read error. */
static int await_slot(split_ctx *x, int slot)
{
    want_slot(x, slot);
    for (int p = 0; p < x->sp->cols[slot].npieces; p++) {
        fut_t *f = x->futs[slot][p];
        if (!f) continue;
        int rc = fut_await(f);
        if (rc) return pq_errf(&x->err, rc, (int64_t)x->sp->cols[slot].pieces[p].off, "%s",
                               fut_message(f));
    }
    return ensure_dict(x, slot);
}

/* Decodes one page piece (or dictionary) appending the page's rows [a, e) of the split: the
 * whole page, or when it straddles the split's edge just its rows inside (pq_colr_page_sel). */
static int decode_page(split_ctx *x, pq_col_reader *r, const scan_piece *pc, const io_bytes *b,
                       int64_t a, int64_t e, pq_vec *v)
{
    size_t used = 0;
    int64_t rows = 0;
    int rc;
    if (pc->dict || (a == pc->first_row && e == pc->first_row + pc->nrows)) {
        rc = pq_colr_page(r, b->data, b->len, (int64_t)pc->off, v, &used, &rows, &x->err);
    } else {
        uint32_t *idx = fail_malloc(sizeof(uint32_t) * (size_t)(e - a));
        if (!idx) return -ENOMEM;
        for (int64_t i = a; i < e; i++) idx[i - a] = (uint32_t)(i - pc->first_row);
        rc = pq_colr_page_sel(r, b->data, b->len, (int64_t)pc->off, idx, e - a, v, &used, &rows,
                              &x->err);
        free(idx);
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
static int reserve_split(split_ctx *x, const pq_chunk_meta *cm, pq_vec *v)
{
    int64_t rg_rows = x->s->f->meta.row_groups[x->sp->rg].num_rows, data = 0;
    assert(cm->total_uncompressed_size <= PQ_MAX_CHUNK_UNCOMPRESSED_BYTES); /* meta_check */
    if (v->type == PQ_BYTE_ARRAY && rg_rows > 0 && cm->total_uncompressed_size > 0) {
        double share = (double)x->sp->nrows / (double)rg_rows;
        data = (int64_t)((double)cm->total_uncompressed_size * share);
        if (data > RESERVE_DATA_MAX) data = RESERVE_DATA_MAX;
    }
    return pq_vec_reserve(v, x->sp->nrows, data);
}

/* Decodes slot's pieces into x->vecs[slot]; released pages become placeholder rows. */
static int decode_slot(split_ctx *x, int slot)
{
    scan_t *s = x->s;
    scan_colplan *cp = &x->sp->cols[slot];
    pq_col_reader *r = reader_for(x, slot);
    const pq_chunk_meta *cm = &s->f->meta.row_groups[x->sp->rg].chunks[cp->col];
    pq_vec *v = &x->vecs[slot];
    int rc = reserve_split(x, cm, v);
    bool paged = false;
    for (int p = 0; rc == 0 && p < cp->npieces; p++) {
        scan_piece *pc = &cp->pieces[p];
        if (pc->dict && r->shared_dict) { /* published since it was registered */
            discard(x, slot, p);
            continue;
        }
        fut_t *f = x->futs[slot][p];
        int64_t a = 0, e = 0;
        if (!pc->dict && !pc->whole_chunk) {
            paged = true;
            piece_span(x->sp, pc, &a, &e);
            /* pages pruned at planning have no piece: their rows become placeholders too */
            if (a > v->length && (rc = append_placeholder(v, a - v->length))) break;
        }
        if (!f) {
            if (!pc->dict) rc = append_placeholder(v, e - a);
            continue;
        }
        io_bytes b = piece_bytes(x, slot, p);
        if (pc->whole_chunk) {
            rc = pq_colr_chunk(r, cm, b.data, b.len, (int64_t)pc->off, v, &x->err);
            continue;
        }
        rc = decode_page(x, r, pc, &b, a, e, v);
        if (rc == 0 && pc->dict) publish_dict(x, slot, r);
    }
    r->shared_dict = NULL; /* not kept past the split: the last split of the group frees it */
    if (rc == 0 && paged && v->length < x->sp->nrows) /* trailing pages pruned at planning */
        rc = append_placeholder(v, x->sp->nrows - v->length);
    if (rc == 0 && v->length != x->sp->nrows)
        rc = pq_errf(&x->err, RINGSCAN_EFORMAT, cp->npieces ? (int64_t)cp->pieces[0].off : -1,
                     "column chunk decoded to %lld rows, row group has %lld",
                     (long long)v->length, (long long)x->sp->nrows);
    if (rc) pq_err_column(&x->err, s->f->meta.columns[cp->col].name);
    release_slot(x, slot); /* bytes are decoded: let the buffers go */
    x->decoded[slot] = rc == 0;
    return rc;
}

static int load_slot(split_ctx *x, int slot)
{
    if (x->decoded[slot]) return 0;
    drop_excluded_pages(x, slot);
    int rc = await_slot(x, slot);
    return rc ? rc : decode_slot(x, slot);
}

/* ------------------------------------------------------------- late materialisation */


/* Checks a data page's row count (h) at split-relative first_row: exp_rows is the page's
 * row count by the offset index (page pieces) or -1 (pages of a whole chunk, which must end
 * inside the row group). Sets [*a, *e): its rows inside the split. */
static int page_rows_check(split_ctx *x, const pq_page_header *h, int64_t off, int64_t first_row,
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
static bool page_skippable(const split_ctx *x, const pq_page_header *h, int hl, size_t len,
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
typedef int (*page_fn)(split_ctx *x, pq_col_reader *r, void *ctx, const uint8_t *buf, size_t len,
                       int64_t off, int64_t first_row, int64_t a, int64_t e, size_t *used,
                       int64_t *rows);

/* The rows of the page starting at split row first_row that the mask selects in [a, e), as
 * page-relative row numbers into out (room for e - a); returns their count. */
static int64_t mask_page_rows(const split_ctx *x, int64_t first_row, int64_t a, int64_t e,
                              uint32_t *out)
{
    assert(a >= first_row && e >= a);
    int64_t k = flt_mask_select_range(&x->mask, a, e, out);
    for (int64_t i = 0; a > first_row && i < k; i++) out[i] += (uint32_t)(a - first_row);
    return k;
}

/* A page of a projection-only column: only its selected rows are decoded and appended to
 * the vector ctx (pq_colr_page_sel). */
static int page_selected(split_ctx *x, pq_col_reader *r, void *ctx, const uint8_t *buf, size_t len,
                         int64_t off, int64_t first_row, int64_t a, int64_t e, size_t *used,
                         int64_t *rows)
{
    uint32_t *idx = fail_malloc(sizeof(uint32_t) * (size_t)(e - a + 1));
    if (!idx) return -ENOMEM;
    int64_t k = mask_page_rows(x, first_row, a, e, idx);
    int rc = pq_colr_page_sel(r, buf, len, off, idx, k, ctx, used, rows, &x->err);
    free(idx);
    return rc;
}

/* One page of a piece through fn, unless it is not a data page (a dictionary page loads the
 * reader's dictionary, scratch is the column-typed vector that call needs and that gets no
 * rows; index pages are skipped) or the mask selects none of its rows inside the split
 * (skipped undecoded). exp_rows: the page's row count by the offset index, or -1 for the
 * pages of a whole chunk. */
static int piece_page(split_ctx *x, pq_col_reader *r, const uint8_t *buf, size_t len, int64_t off,
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
static int piece_pages(split_ctx *x, pq_col_reader *r, const scan_piece *pc, const io_bytes *b,
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
static int decode_selected(split_ctx *x, int slot)
{
    scan_colplan *cp = &x->sp->cols[slot];
    pq_col_reader *r = reader_for(x, slot);
    pq_vec *v = &x->vecs[slot];
    int64_t want = flt_mask_popcount(&x->mask);
    int rc = pq_vec_reserve(v, want, 0);
    for (int p = 0; rc == 0 && p < cp->npieces; p++) {
        if (cp->pieces[p].dict && r->shared_dict) discard(x, slot, p);
        if (!x->futs[slot][p]) continue;
        io_bytes b = piece_bytes(x, slot, p);
        rc = piece_pages(x, r, &cp->pieces[p], &b, page_selected, v, v);
        if (rc == 0 && cp->pieces[p].dict) publish_dict(x, slot, r);
    }
    r->shared_dict = NULL;
    if (rc == 0 && v->length != want)
        rc = pq_errf(&x->err, RINGSCAN_EFORMAT, (int64_t)cp->pieces[0].off,
                     "column chunk yielded %lld selected rows, the filter selected %lld",
                     (long long)v->length, (long long)want);
    if (rc) pq_err_column(&x->err, x->s->f->meta.columns[cp->col].name);
    release_slot(x, slot);
    x->decoded[slot] = rc == 0;
    x->compacted[slot] = rc == 0;
    return rc;
}

/* A projected column that no conjunct decoded: compacted decode when the mask drops rows. */
static int load_projected(split_ctx *x, int slot)
{
    if (x->decoded[slot]) return 0;
    if (flt_mask_all_true(&x->mask)) return load_slot(x, slot);
    drop_excluded_pages(x, slot);
    int rc = await_slot(x, slot);
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
static bool pageable(const scan_t *s, int k)
{
    int slot = s->pred_slot[k];
    for (int j = 0; j < s->nproj; j++)
        if (s->proj_slot[j] == slot) return false;
    for (int i = 0; i < s->npreds; i++)
        if (i != k && s->pred_slot[i] == slot) return false;
    return true;
}

/* mask_page_rows into pe->sel (grown as needed); -ENOMEM when it cannot grow. */
static int64_t page_sel_rows(split_ctx *x, page_eval *pe, int64_t first_row, int64_t a, int64_t e)
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
static int eval_selected(split_ctx *x, page_eval *pe, int64_t first_row, int64_t k, int64_t off)
{
    assert(pe->vals.length == k);
    int rc = flt_mask_init(&pe->in, k, true);
    if (rc == 0) rc = flt_eval(pe->p, &pe->vals, &pe->in, &pe->out);
    if (rc) return pq_errf(&x->err, rc, off, "cannot evaluate the conjunct on this page");
    for (int64_t i = 0; i < k; i++)
        if (flt_mask_get(&pe->out, i)) flt_mask_set(&x->tmp, first_row + pe->sel[i]);
    x->c->sel_eval_pages++;
    return 0;
}

/* One page: x->tmp = mask AND predicate over its rows [a, e) inside the split. A
 * dictionary-encoded page is evaluated from its indices (the predicate once per dictionary
 * entry, then mapped); a byte-array page the mask selects under half of from the selected
 * rows' values only (a string conjunct late in the chain copies the few rows that reach it,
 * not the page); others from all their values. */
static int page_eval_one(split_ctx *x, pq_col_reader *r, void *ctx, const uint8_t *buf, size_t len,
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
        x->c->dict_eval_pages++;
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
static int eval_paged(split_ctx *x, int k)
{
    scan_t *s = x->s;
    int slot = s->pred_slot[k];
    drop_excluded_pages(x, slot);
    int rc = await_slot(x, slot);
    if (rc) return rc;
    scan_colplan *cp = &x->sp->cols[slot];
    const pq_column_desc *d = &s->f->meta.columns[cp->col];
    pq_col_reader *r = reader_for(x, slot);
    page_eval pe = {.p = &s->filter->preds[k]};
    pq_vec_init(&pe.idx, PQ_INT32, 0);
    pq_vec_init(&pe.vals, d->physical, d->type_length);
    rc = flt_mask_init(&x->tmp, x->sp->nrows, false);
    for (int p = 0; rc == 0 && p < cp->npieces; p++) {
        if (cp->pieces[p].dict && r->shared_dict) discard(x, slot, p);
        if (!x->futs[slot][p]) continue;
        io_bytes b = piece_bytes(x, slot, p);
        rc = piece_pages(x, r, &cp->pieces[p], &b, page_eval_one, &pe, &pe.vals);
        if (rc == 0 && cp->pieces[p].dict) publish_dict(x, slot, r);
    }
    r->shared_dict = NULL;
    if (rc) pq_err_column(&x->err, d->name);
    release_slot(x, slot);
    pq_vec_free(&pe.idx);
    pq_vec_free(&pe.vals);
    flt_mask_free(&pe.in);
    flt_mask_free(&pe.out);
    flt_mask_free(&pe.dmask);
    free(pe.sel);
    return rc;
}

/* ------------------------------------------------------------------------ the chain */

/* Runs conjunct perm[pos]; narrows x->mask. */
static int run_conjunct(split_ctx *x, int pos)
{
    scan_t *s = x->s;
    int k = x->perm[pos];
    int slot = s->pred_slot[k];
    uint64_t t0 = exec_now_ns();
    int64_t rows_in = flt_mask_popcount(&x->mask);
    int rc;
    if (pageable(s, k)) {
        rc = eval_paged(x, k);
        if (rc) return rc;
    } else {
        rc = load_slot(x, slot);
        if (rc) return rc;
        rc = flt_eval(&s->filter->preds[k], &x->vecs[slot], &x->mask, &x->tmp);
        if (rc) return pq_errf(&x->err, rc, -1, "cannot evaluate conjunct %d", k + 1);
    }
    flt_mask swap = x->mask;
    x->mask = x->tmp;
    x->tmp = swap;
    int64_t rows_out = flt_mask_popcount(&x->mask);
    if (s->order) {
        uint64_t bytes = 0;
        for (int p = 0; p < x->sp->cols[slot].npieces; p++) bytes += x->sp->cols[slot].pieces[p].len;
        flt_order_report(s->order, k, (uint64_t)rows_in, (uint64_t)rows_out, exec_now_ns() - t0, bytes);
    }
    return 0;
}

/* Hands vector v to the batch: moved when it already holds exactly the output rows (compacted,
 * or every row selected) and no earlier projection entry took it, else the selected rows are
 * copied. */
static int project_one(split_ctx *x, int slot, const uint32_t *idx, int64_t n, bool *moved,
                       pq_vec *dst)
{
    pq_vec *v = &x->vecs[slot];
    bool exact = x->compacted[slot] || n == v->length;
    if (exact && !moved[slot]) {
        *dst = *v;
        pq_vec_init(v, v->type, v->type_length); /* the batch owns the buffers now */
        moved[slot] = true;
        return 0;
    }
    if (!moved[slot]) return scan_take(v, idx, n, dst);
    return -EALREADY; /* filled by the caller from the first entry */
}

/* Builds the batch from the projected columns (selected rows only). */
static int project(split_ctx *x, scan_batch *b)
{
    scan_t *s = x->s;
    int64_t n = flt_mask_popcount(&x->mask);
    b->cols = fail_calloc((size_t)s->nproj, sizeof *b->cols);
    uint32_t *idx = fail_malloc(sizeof(uint32_t) * (size_t)(n + 1));
    bool *moved = fail_calloc((size_t)s->nneed, sizeof(bool));
    int rc = b->cols && idx && moved ? 0 : -ENOMEM;
    if (rc == 0) {
        b->ncols = s->nproj;
        b->rows = n;
        /* every row selected: all vectors are moved whole, no index list is needed */
        int64_t got = n == x->sp->nrows ? n : flt_mask_select(&x->mask, idx, n);
        assert(got == n);
    }
    for (int j = 0; rc == 0 && j < s->nproj; j++) {
        rc = project_one(x, s->proj_slot[j], idx, n, moved, &b->cols[j]);
        if (rc == -EALREADY) { /* the same column projected twice: copy the first entry */
            int first = 0;
            while (s->proj_slot[first] != s->proj_slot[j]) first++;
            uint32_t *all = fail_malloc(sizeof(uint32_t) * (size_t)(n + 1));
            for (int64_t i = 0; all && i < n; i++) all[i] = (uint32_t)i;
            rc = all ? scan_take(&b->cols[first], all, n, &b->cols[j]) : -ENOMEM;
            free(all);
        }
    }
    free(idx);
    free(moved);
    return rc;
}

static void note_conjunct(scan_t *s, int k, bool all_false)
{
    atomic_fetch_add_explicit(&s->conj_runs[k], 1, memory_order_relaxed);
    if (all_false) atomic_fetch_add_explicit(&s->conj_killed[k], 1, memory_order_relaxed);
}

/* The chain, then the projection gated on the final mask. */
static int run_chain(split_ctx *x, scan_batch *b)
{
    scan_t *s = x->s;
    bool all_false = false;
    for (int pos = 0; pos < s->npreds; pos++) {
        all_false = flt_mask_all_false(&x->mask);
        if (all_false || atomic_load(&s->stop)) break;
        int rc = run_conjunct(x, pos);
        if (rc) return rc;
        note_conjunct(s, x->perm[pos], flt_mask_all_false(&x->mask));
    }
    all_false = all_false || flt_mask_all_false(&x->mask);
    if (all_false || atomic_load(&s->stop)) {
        if (all_false) atomic_fetch_add(&s->splits_all_false, 1);
        return 0; /* everything still registered is released by the caller */
    }
    /* the projection is one phase: drop excluded pages, then want every remaining read of
     * every projected column before awaiting any, so they coalesce (lazy too) */
    for (int j = 0; j < s->nproj; j++)
        if (!x->decoded[s->proj_slot[j]]) drop_excluded_pages(x, s->proj_slot[j]);
    for (int j = 0; j < s->nproj; j++)
        if (!x->decoded[s->proj_slot[j]]) want_slot(x, s->proj_slot[j]);
    for (int j = 0; j < s->nproj; j++) {
        int rc = load_projected(x, s->proj_slot[j]);
        if (rc) return rc;
    }
    return project(x, b);
}

static int ctx_init(split_ctx *x, scan_t *s, scan_core *c, int i)
{
    memset(x, 0, sizeof *x);
    x->s = s;
    x->c = c;
    x->sp = &s->splits[i];
    x->err.offset = -1;
    x->futs = fail_calloc((size_t)s->nneed, sizeof *x->futs);
    x->vecs = c->nvecsets > 0 ? c->vecsets[--c->nvecsets] : fail_calloc((size_t)s->nneed, sizeof *x->vecs);
    x->decoded = fail_calloc((size_t)s->nneed, sizeof *x->decoded);
    x->compacted = fail_calloc((size_t)s->nneed, sizeof *x->compacted);
    if (!x->futs || !x->vecs || !x->decoded || !x->compacted) return -ENOMEM;
    for (int k = 0; k < s->nneed; k++) {
        const pq_column_desc *d = &s->f->meta.columns[s->need[k]];
        pq_vec *v = &x->vecs[k];
        if (v->values_cap + v->offsets_cap + v->validity_cap + v->data_cap == 0)
            pq_vec_init(v, d->physical, d->type_length); /* a fresh set */
        assert(v->type == d->physical && v->type_length == (d->physical == PQ_FIXED_LEN_BYTE_ARRAY ? d->type_length : 0));
        pq_vec_clear(v);
    }
    int rc = x->sp->rows0.len ? flt_mask_copy(&x->mask, &x->sp->rows0)
                              : flt_mask_init(&x->mask, x->sp->nrows, true);
    if (rc) return rc;
    /* the stated order until a split completed: a split starting while the first ones are
     * between two conjuncts would otherwise put the one not measured yet first */
    if (s->order && atomic_load(&s->splits_done) > 0)
        flt_order_snapshot(s->order, (uint64_t)i, x->perm);
    else
        for (int k = 0; k < s->npreds; k++) x->perm[k] = k;
    return 0;
}

static void ctx_free(split_ctx *x)
{
    for (int k = 0; x->futs && k < x->s->nneed; k++) {
        if (x->futs[k]) discard_slot(x, k);
        free(x->futs[k]);
    }
    if (x->vecs && x->c->nvecsets < SCAN_TASKS_PER_CORE) {
        x->c->vecsets[x->c->nvecsets++] = x->vecs; /* keep the buffers for the next split */
    } else if (x->vecs) {
        for (int k = 0; k < x->s->nneed; k++) pq_vec_free(&x->vecs[k]);
        free(x->vecs);
    }
    free(x->futs);
    free(x->decoded);
    free(x->compacted);
    flt_mask_free(&x->mask);
    flt_mask_free(&x->tmp);
}

void scan_run_split(scan_t *s, scan_core *c, int i, int unit)
{
    scan_batch b = {.split = i};
    if (s->splits[i].pruned) {
        scan_push(s, i, &b);
        return;
    }
    if (s->splits[i].leader) atomic_store(&s->leader_live[s->splits[i].rg], SCAN_LEADER_RUNNING);
    split_ctx x;
    int rc = ctx_init(&x, s, c, i);
    x.unit = unit;
    x.by_unit = s->units[unit].shared;
    if (rc == 0) rc = register_all(&x);
    if (rc == 0) {
        apply_policy(&x);
        atomic_fetch_add(&s->rows_scanned, x.sp->nrows);
        rc = run_chain(&x, &b);
    }
    if (rc) {
        if (x.err.status == 0) pq_errf(&x.err, rc, -1, "%s", ringscan_strerror(rc));
        scan_fail(s, rc, &x.err);
        scan_batch_free(&b);
    }
    ctx_free(&x);
    if (s->splits[i].leader) atomic_store(&s->leader_live[s->splits[i].rg], SCAN_LEADER_ENDED);
    if (s->splits[i].shares_rg && atomic_fetch_sub(&s->rg_left[s->splits[i].rg], 1) == 1)
        scan_shared_dicts_free(s, s->splits[i].rg); /* the row group's last split */
    scan_push(s, i, &b);
}
