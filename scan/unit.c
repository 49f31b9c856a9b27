/* scan/unit.c: fetch units - runs of consecutive splits of one row group that one core runs,
 * so a column is read once for all of them.
 *
 * A row group cut into splits (plan.c plan_cuts) would otherwise be read split by split: one
 * read per split and column, 8 per column of a 1 Mi-row group at the default split size, while
 * a reader of whole row groups issues one. Units give the cut back to the I/O layer: a core
 * claims a whole unit, and the first of its splits to register a column makes one request
 * covering every piece the unit's splits have of that column; each split then holds a
 * reference to that request per piece and slices its pages out of the bytes (split.c
 * piece_bytes). The request is wanted when the first split wants the column, so a column the
 * whole unit never needs (every split's mask all-false before it) is still never read; a
 * column one split needs is read whole for the unit.
 *
 * Balance: units are claimed whole, in file order; once none is left unclaimed, a core with
 * idle tasks steals single splits from the unit with the most left (the scan's tail), and a
 * stolen split reads its own pieces (no request crosses cores).
 *
 * How many units per row group: one while there are at least two active row groups per core
 * (each core gets whole groups); with fewer, each group is cut into up to 2 x threads / active
 * units so every core still gets work.
 *
 * Accounting: a unit request's bytes count as used once any split decoded from it, else
 * (wanted, read, never decoded) as wasted when the unit ends; pages inside the range that no
 * split decoded (pruned or excluded pages between needed ones) count with the request.
 *
 * Invariants:
 *  1. A unit, its requests and its counters are touched only by the core that claimed it
 *     (s->units[u].owner): io/ futures belong to one core (io.h invariant 1).
 *  2. units cover splits [0, nsplits) in order, without gaps or overlap.
 *  3. A unit's requests are released when none of the owner's splits of it runs and none is
 *     left to claim (so no later split can want them), or at the owner core's end (scan
 *     stopped early), always before that core's io context is freed.
 *  4. Only the owner's splits slice the unit's requests; a stolen split reads its own. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "scan/scan_impl.h"

/* Units per active row group: 1 with at least two groups per core, else enough to give every
 * core two units. */
static int units_per_group(const scan_t *s)
{
    int active = 0, last = -1;
    for (int i = 0; i < s->nsplits; i++)
        if (!s->splits[i].pruned && s->splits[i].rg != last) {
            last = s->splits[i].rg;
            active++;
        }
    int want = 2 * s->o.threads;
    return active == 0 || active >= want ? 1 : (want + active - 1) / active;
}

/* The byte range covering the pieces the unit's splits register for slot k: dictionary pages
 * only when the unit holds the group's leader (the others borrow its dictionary). */
static void unit_range(scan_t *s, scan_unit *u, int k)
{
    bool has_leader = false;
    for (int i = u->first; i < u->first + u->n; i++) has_leader = has_leader || s->splits[i].leader;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = u->first; i < u->first + u->n; i++) {
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

static int unit_add(scan_t *s, int first, int n)
{
    assert(n >= 1 && first + n <= s->nsplits);
    scan_unit *u = &s->units[s->nunits];
    *u = (scan_unit){.first = first, .n = n, .next = first, .owner = -1};
    int live = 0;
    for (int i = first; i < first + n; i++) {
        s->splits[i].unit = s->nunits;
        live += !s->splits[i].pruned;
    }
    s->nunits++;
    if (live < 2) return 0;
    u->shared = true;
    u->off = calloc((size_t)s->nneed, sizeof *u->off);
    u->len = calloc((size_t)s->nneed, sizeof *u->len);
    u->f = calloc((size_t)s->nneed, sizeof *u->f);
    u->used = calloc((size_t)s->nneed, sizeof *u->used);
    if (!u->off || !u->len || !u->f || !u->used) return -ENOMEM;
    for (int k = 0; k < s->nneed; k++) unit_range(s, u, k);
    return 0;
}

int scan_units_plan(scan_t *s)
{
    s->units = calloc((size_t)s->nsplits + 1, sizeof *s->units);
    if (!s->units) return -ENOMEM;
    s->nunits = 0;
    int per = units_per_group(s);
    for (int a = 0, b; a < s->nsplits; a = b) {
        for (b = a + 1; b < s->nsplits && s->splits[b].rg == s->splits[a].rg;) b++;
        int size = (b - a + per - 1) / per;
        for (int j = a; j < b; j += size) {
            int rc = unit_add(s, j, j + size <= b ? size : b - j);
            if (rc) return rc;
        }
    }
    assert(s->nunits <= s->nsplits);
    return 0;
}

/* Takes the next split of unit u, or -1 when it has none left. */
static int take(scan_unit *u)
{
    int i = atomic_fetch_add(&u->next, 1);
    return i < u->first + u->n ? i : -1;
}

/* A split of the unit (owned by another core) with the most splits left, or -1. */
static int steal(scan_t *s, int core)
{
    int best = -1, most = 0, claimed = atomic_load(&s->next_unit);
    for (int u = 0; u < claimed && u < s->nunits; u++) {
        scan_unit *x = &s->units[u];
        int left = x->first + x->n - atomic_load(&x->next);
        if (atomic_load(&x->owner) != core && left > most) best = u, most = left;
    }
    return best < 0 ? -1 : take(&s->units[best]);
}

int scan_unit_claim(scan_t *s, scan_core *c, int core, bool *stolen)
{
    *stolen = false;
    int i = c->unit >= 0 ? take(&s->units[c->unit]) : -1;
    while (i < 0) {
        int u = atomic_fetch_add(&s->next_unit, 1);
        if (u >= s->nunits) break;
        atomic_store(&s->units[u].owner, core);
        c->unit = u;
        i = take(&s->units[u]); /* -1 when stolen whole meanwhile: claim another */
    }
    if (i >= 0) {
        s->units[c->unit].running++;
        return i;
    }
    i = steal(s, core);
    *stolen = i >= 0;
    return i >= 0 ? i : s->nsplits;
}

fut_t *scan_unit_fut(scan_t *s, scan_core *c, int unit, int k)
{
    scan_unit *u = &s->units[unit];
    assert(u->shared && atomic_load(&u->owner) == exec_core_index(exec_current()));
    assert(u->len[k] > 0);
    if (!u->f[k]) u->f[k] = io_read(c->io, s->f->file, u->off[k], u->len[k]);
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

void scan_unit_split_done(scan_t *s, int split, bool stolen)
{
    scan_unit *u = &s->units[s->splits[split].unit];
    if (stolen) return;
    assert(u->running > 0);
    if (--u->running == 0 && atomic_load(&u->next) >= u->first + u->n) unit_release(s, u);
}

void scan_units_core_done(scan_t *s, int core)
{
    for (int u = 0; s->units && u < s->nunits; u++)
        if (atomic_load(&s->units[u].owner) == core) unit_release(s, &s->units[u]);
}

void scan_units_free(scan_t *s)
{
    for (int u = 0; s->units && u < s->nunits; u++) {
        for (int k = 0; s->units[u].f && k < s->nneed; k++) assert(!s->units[u].f[k]); /* invariant 3 */
        free(s->units[u].off);
        free(s->units[u].len);
        free(s->units[u].f);
        free(s->units[u].used);
    }
    free(s->units);
    s->units = NULL;
    s->nunits = 0;
}
