/* scan/task_pieces.c: a split's reads: registering every piece up front (its own reads, the
 * reads its unit registered at reservation, or slices of its unit's requests), wanting them,
 * awaiting them, dropping the pages the mask excludes, and the dictionary a split of a cut row
 * group borrows from its leader (ensure_dict). task.h's invariants hold. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "scan/task.h"

/* Whether piece p of slot is a slice of its fetch unit's request (fetch.c), not a read of its
 * own: the unit accounts for those bytes. */
static bool unit_backed(const scan_task *x, int slot, int q)
{
    return x->by_unit && scan_fetch_is_unit_fut(x->fx, x->unit, slot, x->futs[slot][q]);
}

/* The bytes of piece p of slot (resolved): its own read, or its slice of the unit's request
 * (which it marks used). A unit request shorter than planned (a truncated file) yields a
 * short slice, which the page decoder reports at the piece's offset. */
io_bytes task_piece_bytes(scan_task *x, int slot, int q)
{
    if (!unit_backed(x, slot, q)) return *(const io_bytes *)fut_value(x->futs[slot][q]);
    const scan_piece *pc = &x->sp->cols[slot].pieces[q];
    return scan_fetch_slice(x->fx, x->unit, slot, pc->off, pc->len);
}

static void release(scan_task *x, int slot, int p)
{
    if (x->futs[slot][p]) {
        fut_unref(x->futs[slot][p]);
        x->futs[slot][p] = NULL;
    }
}

void task_release_slot(scan_task *x, int slot)
{
    for (int p = 0; p < x->sp->cols[slot].npieces; p++) release(x, slot, p);
}

/* Releases a piece that will not be decoded. io/ counts a resolved read whose future was
 * wanted as used; when the split drops it undecoded (eager or adaptive speculation behind an
 * all-false mask) its bytes were wasted, so they are moved there at the end of the scan. */
void task_discard(scan_task *x, int slot, int p)
{
    fut_t *f = x->futs[slot][p];
    if (f && !unit_backed(x, slot, p)) scan_fetch_discarded(x->fx, f);
    release(x, slot, p);
}

void task_discard_slot(scan_task *x, int slot)
{
    for (int p = 0; p < x->sp->cols[slot].npieces; p++) task_discard(x, slot, p);
}

void task_want_slot(scan_task *x, int slot)
{
    for (int p = 0; p < x->sp->cols[slot].npieces; p++)
        if (x->futs[slot][p]) fut_want(x->futs[slot][p]);
}

/* A split that is not its row group's leader registered no dictionary page: it borrows the
 * leader's once published, waiting (yielding its core) while the leader runs, or is claimed
 * and about to run (its place in the output window is before this split's, so it is let
 * through first) unless the scan still explores (one split per core: the leader could wait
 * for this one); when the leader is not running (not claimed, or ended without it: its rows
 * were all filtered out before this column), the page is read now. A running leader never
 * waits on another split: no cycle. Called once slot's other pieces are in. */
static int ensure_dict(scan_task *x, int slot)
{
    const scan_colplan *cp = &x->sp->cols[slot];
    if (!x->sp->shares_rg || x->sp->leader || cp->npieces < 2 || !cp->pieces[0].dict || x->futs[slot][0])
        return 0;
    bool pages_left = false;
    for (int q = 1; q < cp->npieces; q++) pages_left = pages_left || x->futs[slot][q];
    if (!pages_left || task_wait_dict(x, slot)) return 0;
    /* a stolen unit's owner holds the leader's range, dictionary included: lent, not read */
    int src = x->by_unit ? x->fx->units[x->unit].src : -1;
    const scan_piece *pc = &cp->pieces[0];
    fut_t *f = src >= 0 ? scan_fetch_lend(x->fx, x->core, src, slot, pc->off, pc->len)
                        : io_read(task_io(x), x->plan->f->file, pc->off, pc->len);
    if (!f) return -ENOMEM;
    x->futs[slot][0] = f;
    fut_want(f);
    int rc = task_await(x, f);
    return rc ? pq_errf(&x->err, rc, (int64_t)pc->off, "%s", fut_message(f)) : 0;
}

/* Registers every piece of every needed column (no I/O yet), taking the reads registered
 * when its unit was reserved (fetch.c prefetch); a dictionary page another split of the row
 * group already decoded is not registered. */
int task_register_all(scan_task *x)
{
    const scan_plan *plan = x->plan;
    for (int k = 0; k < plan->nneed; k++) {
        const scan_colplan *cp = &x->sp->cols[k];
        x->futs[k] = fail_calloc((size_t)cp->npieces + 1, sizeof(fut_t *));
        if (!x->futs[k]) return -ENOMEM;
        /* a dictionary already published, or one the group's leader reads (ensure_dict) */
        bool skip_dict = task_shared_dict(x, k) != NULL || (x->sp->shares_rg && !x->sp->leader);
        for (int q = 0; q < cp->npieces; q++) {
            fut_t *pre = x->by_unit ? NULL : scan_fetch_take_pre(x->fx, x->unit, x->index, k, q);
            if ((cp->pieces[q].dict && skip_dict) || cp->pieces[q].windowed) {
                if (pre) fut_unref(pre); /* published since the reservation */
                continue; /* (windowed: read as its stream asks, task_nwin.c) */
            }
            if (pre) {
                x->futs[k][q] = pre;
            } else if (x->by_unit) {
                fut_t *u = scan_fetch_unit_fut(x->fx, x->core, x->unit, k);
                x->futs[k][q] = u ? fut_ref(u) : NULL;
            } else {
                x->futs[k][q] = io_read(task_io(x), plan->f->file, cp->pieces[q].off, cp->pieces[q].len);
            }
            if (!x->futs[k][q]) return -ENOMEM;
        }
    }
    return 0;
}

uint32_t *task_sel(scan_task *x, int64_t n)
{
    assert(n >= 0);
    if (x->sel_cap < n + 1) {
        uint32_t *p = fail_realloc(x->sel, sizeof(uint32_t) * (size_t)(n + 1));
        if (!p) return NULL;
        x->sel = p;
        x->sel_cap = n + 1;
    }
    return x->sel;
}

int task_mask_rows(scan_task *x)
{
    int64_t n = flt_mask_popcount(&x->mask);
    assert(x->nmrows < 0 && n <= x->mask.len);
    uint32_t *p = fail_realloc(x->mrows, sizeof(uint32_t) * (size_t)(n + 8));
    if (!p) return -ENOMEM;
    x->mrows = p;
    x->nmrows = flt_mask_select(&x->mask, p, n + 8); /* (room for 8 more: every word's rows
                                                      * by flt_mask_select's wide path) */
    assert(x->nmrows == n);
    return 0;
}

void task_mask_rows_drop(scan_task *x)
{
    x->nmrows = -1;
}

/* The split-relative rows [*a, *b) a page piece contributes (its rows inside the split). */
void task_piece_span(const scan_task *x, const scan_piece *pc, int64_t *a, int64_t *e)
{
    assert(!pc->whole_chunk && x->nrows == x->sp->nrows); /* page pieces: the plan's window */
    *a = pc->first_row < 0 ? 0 : pc->first_row;
    *e = pc->first_row + pc->nrows > x->nrows ? x->nrows : pc->first_row + pc->nrows;
    assert(*a < *e);
}

/* The first nested slot of x's plan, or -1 when every slot is flat. */
static int first_nested_slot(const scan_task *x)
{
    for (int k = 0; k < x->plan->nneed; k++)
        if (x->plan->slot_node[k] >= 0) return k;
    return -1;
}

bool task_window_moves(const scan_task *x)
{
    const scan_split *sp = x->sp;
    const scan_colplan *cp = sp->pruned ? NULL : &sp->cols[0];
    int q = cp ? cp->npieces - 1 : -1; /* a cut chunk's data: its last piece (plan_cut.c) */
    int nk = cp ? first_nested_slot(x) : -1;
    /* a nested slot first keeps the plan's window: its pages' rows are known only from their
     * levels (any slot decodes any window: task_nested.c); so does a group cut at a nested
     * leaf's page starts (its offset index kept with the pieces: plan_nested.c), where a
     * thief's split starts at its page */
    return q >= 0 && cp->pieces[q].whole_chunk && x->futs[0][q] &&
           !x->plan->f->meta.columns[cp->col].nested &&
           (nk < 0 || !sp->cols[nk].pieces[0].oi) &&
           sp->nrows != x->plan->f->meta.row_groups[sp->rg].num_rows;
}

/* The planned edge before (side -1) or after (+1) x's split's window in its row group: the
 * neighbour split's far edge, or the group's end. */
static int64_t planned_neighbour(const scan_task *x, int side)
{
    const scan_split *sp = x->sp, *first = x->plan->splits;
    const scan_split *end = first + x->plan->nsplits, *nb = sp + side;
    if (nb < first || nb >= end || nb->rg != sp->rg)
        return side < 0 ? 0 : x->plan->f->meta.row_groups[sp->rg].num_rows;
    assert(side < 0 ? nb->row_lo + nb->nrows == sp->row_lo : sp->row_lo + sp->nrows == nb->row_lo);
    return side < 0 ? nb->row_lo : nb->row_lo + nb->nrows;
}

/* In a plan with a nested slot, a moved edge stays strictly between the planned edges beside
 * it, else it does not move: the group was cut for its nested slots' size (plan_cut.c
 * nest_splits), and a flat first slot of few pages would otherwise move every edge to the
 * group's ends (one split decoding the whole group at once). Each edge's rule reads only the
 * plan and the page starts, so the two splits that share an edge agree, the order of edges
 * is kept (pq_walk_snap's moves keep it, and a kept edge lies between its neighbours' moved
 * ones) and the windows still tile the group, each at most two planned splits long. */
static void keep_between(const scan_task *x, int64_t *lo, int64_t *hi)
{
    const scan_split *sp = x->sp;
    int64_t plo = sp->row_lo, phi = sp->row_lo + sp->nrows;
    if (!(planned_neighbour(x, -1) < *lo && *lo < phi)) *lo = plo;
    if (!(plo < *hi && *hi < planned_neighbour(x, +1))) *hi = phi;
    assert(*lo <= *hi);
}

int task_window(scan_task *x)
{
    assert(task_window_moves(x));
    const scan_split *sp = x->sp;
    int64_t n = x->plan->f->meta.row_groups[sp->rg].num_rows;
    const scan_colplan *cp = &sp->cols[0];
    int q = cp->npieces - 1;
    fut_t *f = x->futs[0][q];
    fut_want(f);
    int rc = task_await(x, f);
    if (rc) return pq_errf(&x->err, rc, (int64_t)cp->pieces[q].off, "%s", fut_message(f));
    io_bytes b = task_piece_bytes(x, 0, q);
    int64_t lo = sp->row_lo, hi = sp->row_lo + sp->nrows;
    rc = pq_walk_snap(&x->tc->readers[0], b.data, b.len, (int64_t)cp->pieces[q].off, n, &lo, &hi,
                      &x->err);
    if (rc) return rc;
    if (first_nested_slot(x) >= 0) keep_between(x, &lo, &hi);
    x->row_lo = lo, x->nrows = hi - lo;
    return 0;
}

/* Releases page pieces of slot whose rows the mask excludes (and the dictionary when no page
 * is left). Whole-chunk pieces are kept. */
void task_drop_excluded_pages(scan_task *x, int slot)
{
    scan_colplan *cp = &x->sp->cols[slot];
    bool any_page = false;
    for (int p = 0; p < cp->npieces; p++) {
        scan_piece *pc = &cp->pieces[p];
        if (pc->dict || !x->futs[slot][p]) continue;
        if (pc->whole_chunk) { /* kept: a cut group's data pages need its dictionary */
            any_page = true;
            continue;
        }
        int64_t a, b;
        task_piece_span(x, pc, &a, &b);
        if (!flt_mask_any_range(&x->mask, a, b)) task_discard(x, slot, p);
        else any_page = true;
    }
    for (int p = 0; p < cp->npieces; p++)
        if (cp->pieces[p].dict && !any_page) task_discard(x, slot, p);
}

/* Awaits every remaining piece of slot; 0 or the first read error. */
int task_await_slot(scan_task *x, int slot)
{
    task_want_slot(x, slot);
    for (int p = 0; p < x->sp->cols[slot].npieces; p++) {
        fut_t *f = x->futs[slot][p];
        if (!f) continue;
        int rc = task_await(x, f);
        if (rc) return pq_errf(&x->err, rc, (int64_t)x->sp->cols[slot].pieces[p].off, "%s",
                               fut_message(f));
    }
    return ensure_dict(x, slot);
}
