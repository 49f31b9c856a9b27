/* scan/fetch_steal.c: the fetch floor's balance (fetch.c's header: invariants 2, 5, 6, 7
 * and 8): a core's next split of its unit, pacing's test, and the three steals - the later
 * half of another core's unstarted units (a run), of the unstarted splits of the unit with
 * the most left, and, under ordered output, of the unit that holds the window back. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>

#include "scan/fetch_impl.h"

int fetch_take(scan_unit *u)
{
    uint64_t v = atomic_load(&u->span);
    while (span_next(v) < span_end(v))
        if (atomic_compare_exchange_weak(&u->span, &v, span_pack(span_next(v) + 1, span_end(v))))
            return span_next(v);
    return -1;
}

/* A unit with fewer unstarted live splits is left to its owner: stealing the last one saves
 * at most one split's time and costs a read per column. Except in the scan's tail (invariant
 * 7): there the owner runs one split at a time, so its unstarted ones wait while the thief
 * would idle, and a lend copies the owner's read (no read call). */
enum { STEAL_MIN_LIVE = 4 };

bool fetch_paced(const scan_fetch *fx)
{
    return fx->pace_all || (fx->pace && atomic_load(&fx->live_left) < fx->threads * SCAN_TASKS_PER_CORE);
}

/* The fewest unstarted live splits a thief takes a share of from a unit of owner's. */
static int steal_min(const scan_fetch *fx, int owner)
{
    return fetch_paced(fx) && atomic_load(&fx->cores[owner].busy) > 0 ? 1 : STEAL_MIN_LIVE;
}

/* The split from which the thief takes the later half of the live (unpruned) splits of
 * [next, end): all of them when one is left. */
static int steal_point(const scan_fetch *fx, int next, int end, int live)
{
    int want = (live + 1) / 2, got = 0, mid = end;
    while (mid > next && got < want) got += !fx->plan->splits[--mid].pruned;
    assert(got == want && mid >= next);
    return mid;
}

/* n unit slots past units_used (never past units_cap: loops read that many), the first's
 * index; -1 when too few are left: the thief steals nothing. Unfilled slots stay nobody's. */
static int units_reserve(scan_fetch *fx, int n)
{
    int used = atomic_load(&fx->units_used);
    do {
        if (used + n > fx->units_cap) return -1;
    } while (!atomic_compare_exchange_weak(&fx->units_used, &used, used + n));
    return used;
}

/* The unit a thief on core takes from, or -1: with below (ordered output's window: a split at
 * or past it waits), the one whose next unstarted live split is the lowest before below, the
 * unit holding the window back (invariant 8); else the one with the most unstarted live
 * splits, at least steal_min. */
static int victim(const scan_fetch *fx, int core, int64_t below)
{
    int best = -1, most = 0, lowest = INT32_MAX, used = atomic_load(&fx->units_used);
    for (int u = 0; u < used; u++) {
        uint64_t v = atomic_load_explicit(&fx->units[u].span, memory_order_acquire);
        int left = span_next(v) < span_end(v) ? fetch_stealable_in(fx, span_next(v), span_end(v)) : 0;
        int owner = atomic_load(&fx->units[u].owner); /* -1: a run being reserved */
        if (owner < 0 || owner == core || left == 0) continue;
        if (below < INT64_MAX) {
            if (span_next(v) < below && span_next(v) < lowest) best = u, lowest = span_next(v);
        } else if (left >= steal_min(fx, owner) && left > most) {
            best = u, most = left;
        }
    }
    return best;
}

int fetch_steal(scan_fetch *fx, int core, int64_t below, int *out)
{
    assert(below >= 0);
    int ui = -1; /* the new unit's slot, reserved before a victim's span is cut */
    for (int tries = 0; tries < 64; tries++) {
        int best = victim(fx, core, below);
        if (best < 0) return -1;
        scan_unit *x = &fx->units[best];
        uint64_t v = atomic_load(&x->span);
        int next = span_next(v), end = span_end(v), live = next < end ? fetch_live_in(fx, next, end) : 0;
        if (live == 0) continue;
        int mid = steal_point(fx, next, end, live);
        if (mid >= below) return -1; /* the later half would wait for the window too */
        if (ui < 0 && (ui = units_reserve(fx, 1)) < 0) return -1;
        atomic_fetch_add(&x->holds, 1); /* before the owner can see its splits all claimed */
        if (!atomic_compare_exchange_strong(&x->span, &v, span_pack(next, mid))) {
            atomic_fetch_sub(&x->holds, 1);
            continue;
        }
        if (fetch_unit_init(fx, ui, mid, end, core, best)) return -ENOMEM;
        atomic_fetch_add_explicit(&fx->steals, 1, memory_order_relaxed);
        *out = ui;
        return fetch_take(&fx->units[ui]);
    }
    return -1; /* lost every race: the others are finishing */
}

int fetch_next_own(const scan_fetch *fx, int core)
{
    const scan_fetch_core *c = &fx->cores[core];
    if (c->unit >= 0) {
        uint64_t v = atomic_load(&fx->units[c->unit].span);
        if (span_next(v) < span_end(v)) return span_next(v);
    }
    for (int u = c->run_next; u < c->run_end; u++) {
        uint64_t v = atomic_load(&fx->units[u].span);
        if (span_next(v) < span_end(v)) return span_next(v);
    }
    int a = atomic_load(&fx->next_unit);
    return a < fx->nunits ? fx->units[a].first : INT32_MAX;
}

/* The core other than core that reserved planned unit u when none of u's splits was claimed
 * yet (a unit of that core's run it has not reached), else -1. */
static int unstarted_owner(const scan_fetch *fx, int u, int core)
{
    const scan_unit *x = &fx->units[u];
    int owner = atomic_load(&x->owner);
    uint64_t v = atomic_load_explicit(&x->span, memory_order_acquire);
    bool unstarted = !x->shared && x->live > 0 && span_next(v) == x->first &&
                     span_next(v) < span_end(v);
    return unstarted && owner >= 0 && owner != core ? owner : -1;
}

int fetch_steal_run(scan_fetch *fx, int core)
{
    enum { RUN_STEAL_MAX = 64 };
    int best_owner = -1, most = 0;
    for (int u = 0, n = 0, o = -1; u < fx->nunits; u++) {
        if (fx->units[u].live == 0) continue; /* pruned units ride along in runs: no work */
        int owner = unstarted_owner(fx, u, core);
        n = owner < 0 ? 0 : owner == o ? n + 1 : 1;
        o = owner;
        if (n > most) best_owner = owner, most = n;
    }
    if (most == 0) return -1;
    int want = (most + 1) / 2, got = 0, stolen[RUN_STEAL_MAX], end[RUN_STEAL_MAX];
    if (want > RUN_STEAL_MAX) want = RUN_STEAL_MAX;
    int ui = units_reserve(fx, want); /* before any span is emptied; unused ones stay nobody's */
    if (ui < 0) return -1;
    for (int u = fx->nunits - 1; u >= 0 && got < want; u--) {
        scan_unit *x = &fx->units[u];
        uint64_t v = atomic_load(&x->span);
        if (x->live == 0 || atomic_load(&x->owner) != best_owner || span_next(v) >= span_end(v))
            continue; /* pruned, another's, done, or stolen before */
        if (unstarted_owner(fx, u, core) < 0) break; /* reached the one it runs */
        atomic_fetch_add(&x->holds, 1); /* before its owner can see it emptied */
        if (!atomic_compare_exchange_strong(&x->span, &v, span_pack(x->first, x->first))) {
            atomic_fetch_sub(&x->holds, 1);
            if (span_next(v) >= span_end(v)) continue; /* another thief emptied it */
            break; /* the owner reached it */
        }
        stolen[got] = u;
        end[got++] = span_end(v); /* a split steal before may have cut it */
    }
    if (got == 0) return -1;
    int rc = 0;
    for (int j = 0; j < got; j++) { /* file order: the last stolen is the first */
        int x = stolen[got - 1 - j];
        /* on -ENOMEM still owned by core, with its source set: the hold taken above is
         * given back at the core's end (unit_release), like every other unit's */
        int r = fetch_unit_init(fx, ui + j, fx->units[x].first, end[got - 1 - j], core, x);
        if (rc == 0) rc = r;
    }
    if (rc) return rc;
    atomic_fetch_add_explicit(&fx->steals, got, memory_order_relaxed);
    fx->cores[core].run_next = ui;
    fx->cores[core].run_end = ui + got;
    return 0;
}
