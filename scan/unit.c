/* scan/unit.c: fetch units - runs of consecutive splits of one row group that one core runs,
 * so a column is read once for all of them.
 *
 * A row group cut into splits (plan.c plan_cuts) would otherwise be read split by split: one
 * read per split and column, 8 per column of a 1 Mi-row group at the default split size, while
 * a reader of whole row groups issues one. Units give the cut back to the I/O layer: a core
 * claims a whole unit, and the first of its splits to register a column makes one request
 * covering the pieces of that column the unit's splits have (minus a half stolen before); each
 * split holds
 * a reference to that request per piece and slices its pages out of the bytes (split.c
 * piece_bytes). The request is wanted when the first split wants the column, so a column the
 * whole unit never needs (every split's mask all-false before it) is still never read; a
 * column one split needs is read whole for the unit.
 *
 * A unit is a row group (an uncut one is a unit of one split). Balance: units are claimed
 * whole, in file order; a core left without one steals the later half of the live splits not
 * yet started of the unit with the most left (at least two), which becomes a unit of its own:
 * a steal costs one request per column, not one per split.
 *
 * Accounting: a unit request's bytes count as used once any split decoded from it, else
 * (wanted, read, never decoded) as wasted when the unit ends; pages inside the range that no
 * split decoded (pruned or excluded pages between needed ones, or the stolen half's when the
 * request was made before the steal) count with the request.
 *
 * Invariants:
 *  1. A unit's requests and counters are touched only by its owner core (io/ futures belong
 *     to one core, io.h invariant 1); the other cores touch only its span (atomically).
 *  2. The planned units cover splits [0, nsplits) in order; a split is claimed once: span
 *     (next, end) only moves next up (owner) or end down (thief), by compare-and-swap.
 *  3. A unit's requests are released when none of the owner's splits of it runs and none is
 *     left to claim (so no later split can want them), or at the owner core's end (scan
 *     stopped early), always before that core's io context is freed.
 *  4. A request made while the unit's span ends at end covers the pieces of splits
 *     [first, end): every split the owner may still run (end only moves down). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "scan/scan_impl.h"

static uint64_t span_pack(int next, int end)
{
    return (uint64_t)(uint32_t)next | (uint64_t)(uint32_t)end << 32;
}
static int span_next(uint64_t v) { return (int)(uint32_t)v; }
static int span_end(uint64_t v) { return (int)(uint32_t)(v >> 32); }

/* The byte range covering the pieces splits [from, to) register for slot k: dictionary pages
 * only when the group's leader is among them (the others borrow its dictionary). */
static void unit_range(scan_t *s, scan_unit *u, int k, int from, int to)
{
    bool has_leader = false;
    for (int i = from; i < to; i++) has_leader = has_leader || s->splits[i].leader;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = from; i < to; i++) {
        const scan_colplan *cp = s->splits[i].pruned ? NULL : &s->splits[i].cols[k];
        for (int p = 0; cp && p < cp->npieces; p++) {
            const scan_piece *pc = &cp->pieces[p];
            if (pc->dict && !has_leader) continue;
            if (pc->off < lo) lo = pc->off;
            if (pc->off + pc->len > hi) hi = pc->off + pc->len;
        }
    }
    u->off[k] = hi > lo ? lo : 0;
    u->len[k] = hi > lo ? hi - lo : 0;
}

/* Fills unit slot ui with splits [first, end), owned by owner (-1: not claimed yet); the span
 * is stored last (release), so a core scanning for a unit to steal from never sees a half-made
 * one with splits left. 0 or -ENOMEM. */
static int unit_init(scan_t *s, int ui, int first, int end, int owner)
{
    assert(first < end && end <= s->nsplits && ui < s->units_cap);
    scan_unit *u = &s->units[ui];
    int live = 0;
    for (int i = first; i < end; i++) live += !s->splits[i].pruned;
    u->first = first;
    u->running = 0;
    atomic_store(&u->owner, owner);
    if (live >= 2) {
        u->shared = true;
        u->off = calloc((size_t)s->nneed + 1, sizeof *u->off);
        u->len = calloc((size_t)s->nneed + 1, sizeof *u->len);
        u->f = calloc((size_t)s->nneed + 1, sizeof *u->f);
        u->used = calloc((size_t)s->nneed + 1, sizeof *u->used);
        if (!u->off || !u->len || !u->f || !u->used) return -ENOMEM;
    }
    atomic_store_explicit(&u->span, span_pack(first, end), memory_order_release);
    return 0;
}

int scan_units_plan(scan_t *s)
{
    s->units_cap = 2 * s->nsplits + 1; /* planned units plus one per possible steal */
    s->units = calloc((size_t)s->units_cap, sizeof *s->units);
    if (!s->units) return -ENOMEM;
    atomic_store(&s->units_used, 0);
    for (int a = 0, b; a < s->nsplits; a = b) {
        for (b = a + 1; b < s->nsplits && s->splits[b].rg == s->splits[a].rg;) b++;
        int rc = unit_init(s, atomic_fetch_add(&s->units_used, 1), a, b, -1);
        if (rc) return rc;
    }
    s->nunits = atomic_load(&s->units_used);
    assert(s->nunits <= s->nsplits);
    return 0;
}

/* Takes the next split of unit u for its owner, or -1 when it has none left. */
static int take(scan_unit *u)
{
    uint64_t v = atomic_load(&u->span);
    while (span_next(v) < span_end(v))
        if (atomic_compare_exchange_weak(&u->span, &v, span_pack(span_next(v) + 1, span_end(v))))
            return span_next(v);
    return -1;
}

/* A unit with fewer unstarted live splits is left to its owner: stealing the last one saves
 * at most one split's time and costs a read per column. */
enum { STEAL_MIN_LIVE = 4 };

static int live_in(const scan_t *s, int from, int to)
{
    int n = 0;
    for (int i = from; i < to; i++) n += !s->splits[i].pruned;
    return n;
}

/* The split from which the thief takes the later half of the live (unpruned) splits of
 * [next, end): all of them when one is left. */
static int steal_point(const scan_t *s, int next, int end, int live)
{
    int want = (live + 1) / 2, got = 0, mid = end;
    while (mid > next && got < want) got += !s->splits[--mid].pruned;
    assert(got == want && mid >= next);
    return mid;
}

/* Steals the later half of the unstarted live splits of the unit (owned by another core) with
 * the most left; they become unit *out owned by core. Returns the first stolen split, -1, or
 * -ENOMEM. */
static int steal(scan_t *s, int core, int *out)
{
    for (int tries = 0; tries < 64; tries++) {
        int best = -1, most = 0, used = atomic_load(&s->units_used);
        for (int u = 0; u < used; u++) {
            uint64_t v = atomic_load_explicit(&s->units[u].span, memory_order_acquire);
            int left = span_next(v) < span_end(v) ? live_in(s, span_next(v), span_end(v)) : 0;
            if (atomic_load(&s->units[u].owner) != core && left > most) best = u, most = left;
        }
        if (best < 0 || most < STEAL_MIN_LIVE) return -1;
        scan_unit *x = &s->units[best];
        uint64_t v = atomic_load(&x->span);
        int next = span_next(v), end = span_end(v), live = next < end ? live_in(s, next, end) : 0;
        if (live == 0) continue;
        int mid = steal_point(s, next, end, live);
        if (!atomic_compare_exchange_strong(&x->span, &v, span_pack(next, mid))) continue;
        int ui = atomic_fetch_add(&s->units_used, 1);
        if (ui >= s->units_cap || unit_init(s, ui, mid, end, core)) return -ENOMEM;
        *out = ui;
        return take(&s->units[ui]);
    }
    return -1; /* lost every race: the others are finishing */
}

int scan_unit_claim(scan_t *s, scan_core *c, int core, int *unit)
{
    int i = c->unit >= 0 ? take(&s->units[c->unit]) : -1;
    while (i < 0) {
        int u = atomic_fetch_add(&s->next_unit, 1);
        if (u >= s->nunits) break;
        atomic_store(&s->units[u].owner, core);
        c->unit = u;
        i = take(&s->units[u]); /* -1 when stolen whole meanwhile: claim another */
    }
    if (i < 0) {
        int u = -1;
        i = steal(s, core, &u);
        if (i == -ENOMEM) return i;
        if (i >= 0) c->unit = u;
    }
    if (i < 0) return s->nsplits;
    s->units[c->unit].running++;
    *unit = c->unit;
    return i;
}

fut_t *scan_unit_fut(scan_t *s, scan_core *c, int unit, int k)
{
    scan_unit *u = &s->units[unit];
    assert(u->shared && atomic_load(&u->owner) == exec_core_index(exec_current()));
    if (!u->f[k]) {
        unit_range(s, u, k, u->first, span_end(atomic_load(&u->span))); /* invariant 4 */
        assert(u->len[k] > 0);
        u->f[k] = io_read(c->io, s->f->file, u->off[k], u->len[k]);
    }
    return u->f[k];
}

/* Drops the unit's own references: a request wanted and read that no split decoded from is
 * moved to the wasted bytes (like split.c discard). */
static void unit_release(scan_t *s, scan_unit *u)
{
    for (int k = 0; u->f && k < s->nneed; k++) {
        fut_t *f = u->f[k];
        if (!f) continue;
        if (fut_is_ready(f) && fut_status(f) == 0 && fut_is_wanted(f) && !u->used[k]) {
            const io_bytes *b = fut_value(f);
            atomic_fetch_add_explicit(&s->bytes_discarded, b->len - b->shared, memory_order_relaxed);
        }
        fut_unref(f);
        u->f[k] = NULL;
    }
}

void scan_unit_split_done(scan_t *s, int unit)
{
    scan_unit *u = &s->units[unit];
    assert(u->running > 0);
    uint64_t v = atomic_load(&u->span);
    if (--u->running == 0 && span_next(v) >= span_end(v)) unit_release(s, u);
}

void scan_units_core_done(scan_t *s, int core)
{
    int used = s->units ? atomic_load(&s->units_used) : 0;
    for (int u = 0; u < used; u++)
        if (atomic_load(&s->units[u].owner) == core) unit_release(s, &s->units[u]);
}

void scan_units_free(scan_t *s)
{
    int used = s->units ? atomic_load(&s->units_used) : 0;
    for (int u = 0; u < used; u++) {
        for (int k = 0; s->units[u].f && k < s->nneed; k++)
            assert(!s->units[u].f[k]); /* invariant 3 */
        free(s->units[u].off);
        free(s->units[u].len);
        free(s->units[u].f);
        free(s->units[u].used);
    }
    free(s->units);
    s->units = NULL;
    s->nunits = 0;
}
