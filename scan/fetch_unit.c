/* scan/fetch_unit.c: a unit's requests, the lowest file of the fetch floor: their ranges, the
 * reads that make them, slices of them for splits, reads registered at reservation, and the
 * accounting of bytes dropped undecoded. Posts between cores for fetch.c and lend.c.
 * fetch.h's invariants hold: a unit's requests are its owner core's alone. */
#include <assert.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/fetch_impl.h"

int fetch_try_post(scan_fetch *fx, int core, sched_fn fn, void *ctx)
{
    int rc = exec_post(exec_group_core(fx->g, core), fn, ctx);
    if (rc == -EAGAIN) { /* every sender's messages are bounded to fit (SCAN_INBOX_CAP) */
        fprintf(stderr, "ringscan: inbox of core %d full: message accounting broken\n", core);
        abort();
    }
    return rc;
}

void fetch_post(scan_fetch *fx, int core, sched_fn fn, void *ctx)
{
    int rc = fetch_try_post(fx, core, fn, ctx);
    if (rc) {
        fprintf(stderr, "ringscan: lend post to core %d failed (%d)\n", core, rc);
        abort();
    }
}

/* A cut group's dictionary pages count only when its leader is among the splits (the others
 * borrow its dictionary: task_dict.c). */
void fetch_unit_range(scan_fetch *fx, scan_unit *u, int k, int from, int to)
{
    const scan_split *splits = fx->plan->splits;
    bool has_leader = false;
    for (int i = from; i < to; i++) has_leader = has_leader || splits[i].leader;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = from; i < to; i++) {
        const scan_colplan *cp = splits[i].pruned ? NULL : &splits[i].cols[k];
        for (int p = 0; cp && p < cp->npieces; p++) {
            const scan_piece *pc = &cp->pieces[p];
            if ((pc->dict && splits[i].shares_rg && !has_leader) || pc->windowed) continue;
            if (pc->off < lo) lo = pc->off;
            if (pc->off + pc->len > hi) hi = pc->off + pc->len;
        }
    }
    u->off[k] = hi > lo ? lo : 0;
    u->len[k] = hi > lo ? hi - lo : 0;
}

fut_t *fetch_unit_read(scan_fetch *fx, int core, scan_unit *u, int k)
{
    assert(!u->f[k] && u->len[k] > 0 && u->src < 0);
    u->f[k] = io_read(fx->cores[core].io, fx->plan->f->file, u->off[k], u->len[k]);
    return u->f[k];
}

fut_t *fetch_unit_fut_cover(scan_fetch *fx, int unit, int k, uint64_t off, uint64_t len)
{
    scan_unit *u = &fx->units[unit];
    int owner = atomic_load(&u->owner);
    assert(owner == exec_core_index(exec_current()));
    if (u->f[k] || u->src >= 0 || !fx->cores[owner].io) return u->f[k];
    fetch_unit_range(fx, u, k, u->first, span_end(atomic_load(&u->span))); /* fetch.c inv. 4 */
    uint64_t lo = u->off[k], hi = lo + u->len[k];
    if (u->len[k] == 0 || off + len < lo || off > hi + fx->gap_bytes) return NULL;
    u->off[k] = off < lo ? off : lo;
    u->len[k] = (off + len > hi ? off + len : hi) - u->off[k];
    return fetch_unit_read(fx, owner, u, k);
}

void scan_fetch_discarded(scan_fetch *fx, fut_t *f)
{
    if (fut_is_ready(f) && fut_status(f) == 0 && fut_is_wanted(f)) {
        const io_bytes *b = fut_value(f);
        atomic_fetch_add_explicit(&fx->bytes_discarded, b->len - b->shared, memory_order_relaxed);
    }
}

fut_t *scan_fetch_take_pre(scan_fetch *fx, int unit, int i, int k, int q)
{
    scan_unit *u = &fx->units[unit];
    if (!u->pre) return NULL;
    assert(u->pre_split == i && q < fx->plan->splits[u->pre_split].cols[k].npieces);
    fut_t *f = u->pre[k][q];
    u->pre[k][q] = NULL;
    return f;
}

void scan_fetch_ahead_drop(scan_fetch *fx, int unit)
{
    scan_unit *u = &fx->units[unit];
    scan_budget_ahead_drop(&fx->budget, atomic_exchange(&u->ahead, 0));
    if (u->src >= 0) /* stolen whole: its reads are the source's */
        scan_budget_ahead_drop(&fx->budget, atomic_exchange(&fx->units[u->src].ahead, 0));
}

bool scan_fetch_is_unit_fut(const scan_fetch *fx, int unit, int k, const fut_t *f)
{
    const scan_unit *u = &fx->units[unit];
    return u->shared && f && f == u->f[k];
}

io_bytes scan_fetch_slice(scan_fetch *fx, int unit, int k, uint64_t off, uint64_t len)
{
    scan_unit *u = &fx->units[unit];
    assert(u->f[k] && fut_is_ready(u->f[k]) && fut_status(u->f[k]) == 0);
    assert(off >= u->off[k] && off + len <= u->off[k] + u->len[k]);
    const io_bytes *b = fut_value(u->f[k]);
    uint64_t rel = off - u->off[k];
    size_t n = rel >= b->len ? 0 : (size_t)(b->len - rel < len ? b->len - rel : len);
    u->used[k] = true;
    return (io_bytes){.data = b->data + (rel < b->len ? rel : 0), .len = n, .shared = 0};
}

int fetch_live_in(const scan_fetch *fx, int from, int to)
{
    int n = 0;
    for (int i = from; i < to; i++) n += !fx->plan->splits[i].pruned;
    return n;
}

/* Whether split sp's nested slots start at its first row's page: every leaf's piece has
 * its chunk's offset index (plan_nested.c plan_nest_index; format/nest_stream.c invariant
 * 7). Without, a split another core runs decodes its leaves from the chunk's start: two
 * cores took longer than one and twice the memory (the thirty-first session). */
static bool nest_seekable(const scan_plan *p, const scan_split *sp)
{
    for (int k = 0; k < p->nneed; k++)
        for (int q = 0; p->slot_node[k] >= 0 && q < sp->cols[k].npieces; q++)
            if (!sp->cols[k].pieces[q].oi) return false;
    return true;
}

int fetch_stealable_in(const scan_fetch *fx, int from, int to)
{
    const scan_plan *p = fx->plan;
    int first = from; /* (a unit is one row group: its first live split stands for all) */
    while (first < to && p->splits[first].pruned) first++;
    if (first < to && p->splits[first].shares_rg && !nest_seekable(p, &p->splits[first]))
        return 0;
    return fetch_live_in(fx, from, to);
}

/* Fills unit slot ui with splits [first, end), owned by owner (-1: not claimed yet), stolen
 * from unit src (-1: planned); the span is stored last (release), so a core scanning for a
 * unit to steal from never sees a half-made one with splits left. 0 or -ENOMEM. */
int fetch_unit_init(scan_fetch *fx, int ui, int first, int end, int owner, int src)
{
    assert(first < end && end <= fx->plan->nsplits && ui < fx->units_cap);
    scan_unit *u = &fx->units[ui];
    int live = fetch_live_in(fx, first, end);
    u->first = first;
    u->live = live;
    u->running = 0;
    u->src = src;
    u->fx = fx;
    u->hold_dropped = false;
    atomic_store(&u->holds, 0);
    atomic_store(&u->ahead, 0);
    atomic_store(&u->owner, owner);
    if (live >= 2 || src >= 0) { /* a stolen unit asks for its columns whole: lends */
        u->shared = true;
        u->off = fail_calloc((size_t)fx->plan->nneed + 1, sizeof *u->off);
        u->len = fail_calloc((size_t)fx->plan->nneed + 1, sizeof *u->len);
        u->f = fail_calloc((size_t)fx->plan->nneed + 1, sizeof *u->f);
        u->used = fail_calloc((size_t)fx->plan->nneed + 1, sizeof *u->used);
        if (!u->off || !u->len || !u->f || !u->used) return -ENOMEM;
    }
    atomic_store_explicit(&u->span, span_pack(first, end), memory_order_release);
    return 0;
}

/* Bytes the pieces of unpruned splits [from, to) cover for every slot (dictionaries counted
 * per split: an estimate for sizing runs), and the file range they lie in (0, 0: none). */
static uint64_t live_bytes(const scan_fetch *fx, int from, int to, uint64_t *lo, uint64_t *hi)
{
    uint64_t n = 0;
    *lo = UINT64_MAX;
    *hi = 0;
    for (int i = from; i < to; i++)
        for (int k = 0; !fx->plan->splits[i].pruned && k < fx->plan->nneed; k++)
            for (int p = 0; p < fx->plan->splits[i].cols[k].npieces; p++) {
                const scan_piece *pc = &fx->plan->splits[i].cols[k].pieces[p];
                n += pc->len;
                if (pc->off < *lo) *lo = pc->off;
                if (pc->off + pc->len > *hi) *hi = pc->off + pc->len;
            }
    if (n == 0) *lo = 0;
    return n;
}

int scan_fetch_init(scan_fetch *fx, const scan_plan *p, const scan_opts *o)
{
    memset(fx, 0, sizeof *fx);
    fx->plan = p;
    fx->threads = o->threads;
    fx->gap_bytes = o->io_opts.gap_bytes;
    fx->may_run_ahead = o->limit < 0 && !o->ordered && o->fetch_budget != 0 && !o->topk_bounded;
    scan_budget_init(&fx->budget, p, o->fetch_budget, o->share);
    fx->pace = o->threads >= 2 && !p->f->file->be->remote;
    atomic_store(&fx->live_left, fetch_live_in(fx, 0, p->nsplits));
    for (int c = 0; c < EXEC_THREADS_MAX; c++) fx->cores[c].unit = fx->cores[c].aside = -1;
    fx->units_cap = 2 * fx->plan->nsplits + 1; /* planned units plus one per possible steal */
    fx->units = fail_calloc((size_t)fx->units_cap, sizeof *fx->units);
    if (!fx->units) return -ENOMEM;
    for (int u = 0; u < fx->units_cap; u++) { /* a slot never filled belongs to nobody */
        atomic_init(&fx->units[u].owner, -1);
        fx->units[u].src = -1;
    }
    atomic_store(&fx->units_used, 0);
    for (int a = 0, b; a < fx->plan->nsplits; a = b) {
        /* a Top-K bound may end a split of a cut group before it reads (task_topk_pages)
         * when the key's pages are sorted: then each split is its own unit and reads its
         * own pages, not its share of whole-column requests made for the group */
        int rg = fx->plan->splits[a].rg;
        bool per_split = o->topk_bounded && scan_plan_dyn_sorted(fx->plan, rg);
        for (b = a + 1; !per_split && b < fx->plan->nsplits && fx->plan->splits[b].rg == rg;) b++;
        int ui = atomic_fetch_add(&fx->units_used, 1);
        int rc = fetch_unit_init(fx, ui, a, b, -1, -1);
        if (rc) return rc;
        scan_unit *u = &fx->units[ui];
        u->bytes = live_bytes(fx, a, b, &u->lo, &u->hi);
    }
    fx->nunits = atomic_load(&fx->units_used);
    assert(fx->nunits <= fx->plan->nsplits);
    int kept = 0;
    for (int u = 0; u < fx->nunits; u++) kept += fx->units[u].live > 0;
    fx->pace_all = fx->pace && kept < SCAN_CUT_SPLITS_PER_CORE * o->threads;
    return 0;
}

void scan_fetch_start(scan_fetch *fx, exec_group_t *g, exec_event *ev)
{
    fx->g = g;
    fx->ev = ev;
}

void scan_fetch_set_ahead(scan_fetch *fx, bool ahead)
{
    atomic_store_explicit(&fx->ahead, ahead, memory_order_relaxed);
}

void scan_fetch_free(scan_fetch *fx)
{
    int used = fx->units ? atomic_load(&fx->units_used) : 0;
    for (int u = 0; u < used; u++) {
        for (int k = 0; fx->units[u].f && k < fx->plan->nneed; k++)
            assert(!fx->units[u].f[k]); /* invariant 3 */
        assert(!fx->units[u].pre);
        free(fx->units[u].off);
        free(fx->units[u].len);
        free(fx->units[u].f);
        free(fx->units[u].used);
    }
    free(fx->units);
    if (fx->plan) /* NULL: scan_fetch_init never ran (the plan failed): no budget, no mutex */
        scan_budget_free(&fx->budget);
    fx->units = NULL;
    fx->nunits = 0;
}
