/* scan/fetch.c: the top of the fetch floor (fetch.h): fetch units - runs of consecutive splits of
 * one row group that one core runs, so a column is read once for all of them.
 *
 * A row group cut into splits (plan.c plan_cuts) would otherwise be read split by split: one read
 * per split and column, 8 per column of a 1 Mi-row group at the default split size, while a reader
 * of whole row groups issues one. Units give the cut back to the I/O layer: a core claims a whole
 * unit, and the first of its splits to register a column makes one request covering the pieces of
 * that column the unit's splits have (minus a half stolen before); each split holds a reference to
 * that request per piece and slices its pages out of the bytes (task_pieces.c task_piece_bytes,
 * through scan_fetch_slice). The request is wanted when the first split wants the column, so a
 * column the whole unit never needs (every split's mask all-false before it) is still never read;
 * a column one split needs is read whole for the unit.
 *
 * A unit is a row group (an uncut one is a unit of one split). Balance: units are claimed
 * whole, in file order; a core left without one steals the later half of the live splits not
 * yet started of the unit with the most left (at least STEAL_MIN_LIVE), which becomes a unit
 * of its own. Its columns are lent by the owner when the owner's requests already cover them
 * (lend.c: copied from the owner's read, no read call); else the thief makes one request per
 * column, for its splits only. A thief holds the unit it stole from (holds) until its own
 * unit is released, so the owner keeps the requests a lend may still need.
 *
 * Runs (the read-ahead): a core reserves consecutive units at once. Once the submission
 * policy wants every column at a split's start (eager; adaptive with evidence that chains
 * rarely end all-false; never with a limit or ordered output, whose window counts split
 * indexes and would hold back a core whose run lies ahead of the other's), a run holds the
 * uncut units whose bytes follow on from each other, about SCAN_RUN_BYTES of them, and the
 * core registers and wants their pieces at reservation: columns laid out back to back across
 * row groups become one read instead of one per task in flight (tpchgen's 113k-row groups,
 * all 16 columns, sf=1: 16 reads -> 10). Otherwise a run is one unit and a split registers
 * its own reads when it starts. Runs do not shrink towards the end of the scan: a core left
 * without work steals the later half of the units another core reserved and has not started
 * (steal_run), and is lent their columns from the run's read, so the run stays one read
 * however its units end up split between the cores (at two threads, 15 reads -> 9 there).
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
 *  3. A unit's requests are released when none of the owner's splits of it runs, none is
 *     left to claim (so no later split can want them) and no thief holds it, or at the owner
 *     core's end (which waits for the holds unless the scan stopped early, scan.c
 *     core_drain, an event wait on scan_fetch_drained), always before that core's io context is freed.
 *  4. A request made while the unit's span ends at end covers the pieces of splits
 *     [first, end): every split the owner may still run (end only moves down).
 *  5. Reads registered at reservation (pre) belong to the unit's one live split, which takes
 *     them when it registers, or to the lends of the unit a thief made of it when the unit
 *     was stolen whole before it started (its span emptied: its owner never takes it); the
 *     rest are released with the unit (invariant 3). An uncut unit is never split by a steal
 *     (one live split: a steal takes all of it or none, as steal_run does).
 *  6. Pacing (a local file, two cores or more): once fewer live splits are left to claim
 *     than the cores' tasks could hold (threads x SCAN_TASKS_PER_CORE), a core's task claims
 *     only while its core runs no split (scan_fetch_pace), so each core takes the next unit
 *     when it is free for it. Units are claimed whole and a started uncut unit cannot be
 *     stolen: without pacing a core's tasks each claimed a unit at once, and a filter keeping
 *     five row groups ran four of them on the core whose thread started first while the other
 *     sat idle (issue 26). With few kept row groups (fewer than SCAN_CUT_SPLITS_PER_CORE per
 *     core: the plan cut them for the cores) pacing holds from the scan's start (pace_all):
 *     else the first core's tasks start most of the cut groups' splits at once. busy counts a core's claimed splits not done; its change to 0 and
 *     the last live split claimed signal the event while a task waits (the waiter counts
 *     itself in before it checks, so no wake is lost). On a remote store the base tasks'
 *     overlap of round trips matters more: no pacing there.
 *  7. The tail: while pacing holds (invariant 6), a core left without work takes a share of
 *     the unstarted splits of a unit whose owner runs a split even when fewer than
 *     STEAL_MIN_LIVE are left (steal_min), so two cores share a cut row group's last splits
 *     instead of one running them in turn while the other idles (issue 26: few kept row
 *     groups, cut by cores in the plan, were still run one group a core). */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/fetch_impl.h"






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
 * at most one split's time and costs a read per column. Except in the scan's tail (invariant
 * 7): there the owner runs one split at a time, so its unstarted ones wait while the thief
 * would idle, and a lend copies the owner's read (no read call). */
enum { STEAL_MIN_LIVE = 4 };

/* Whether pacing holds the cores to one split at a time (invariant 6). */
static bool paced(const scan_fetch *fx)
{
    return fx->pace_all || (fx->pace && atomic_load(&fx->live_left) < fx->threads * SCAN_TASKS_PER_CORE);
}

/* The fewest unstarted live splits a thief takes a share of from a unit of owner's. */
static int steal_min(const scan_fetch *fx, int owner)
{
    return paced(fx) && atomic_load(&fx->cores[owner].busy) > 0 ? 1 : STEAL_MIN_LIVE;
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

/* Steals the later half of the unstarted live splits of the unit (owned by another core) with
 * the most left; they become unit *out owned by core. Returns the first stolen split, -1, or
 * -ENOMEM. */
static int steal(scan_fetch *fx, int core, int *out)
{
    int ui = -1; /* the new unit's slot, reserved before a victim's span is cut */
    for (int tries = 0; tries < 64; tries++) {
        int best = -1, most = 0, used = atomic_load(&fx->units_used);
        for (int u = 0; u < used; u++) {
            uint64_t v = atomic_load_explicit(&fx->units[u].span, memory_order_acquire);
            int left = span_next(v) < span_end(v) ? fetch_stealable_in(fx, span_next(v), span_end(v)) : 0;
            int owner = atomic_load(&fx->units[u].owner); /* -1: a run being reserved */
            if (owner >= 0 && owner != core && left >= steal_min(fx, owner) && left > most)
                best = u, most = left;
        }
        if (best < 0) return -1;
        scan_unit *x = &fx->units[best];
        uint64_t v = atomic_load(&x->span);
        int next = span_next(v), end = span_end(v), live = next < end ? fetch_live_in(fx, next, end) : 0;
        if (live == 0) continue;
        int mid = steal_point(fx, next, end, live);
        if (ui < 0 && (ui = units_reserve(fx, 1)) < 0) return -1;
        atomic_fetch_add(&x->holds, 1); /* before the owner can see its splits all claimed */
        if (!atomic_compare_exchange_strong(&x->span, &v, span_pack(next, mid))) {
            atomic_fetch_sub(&x->holds, 1);
            continue;
        }
        if (fetch_unit_init(fx, ui, mid, end, core, best)) return -ENOMEM;
        atomic_fetch_add_explicit(&fx->steals, 1, memory_order_relaxed);
        *out = ui;
        return take(&fx->units[ui]);
    }
    return -1; /* lost every race: the others are finishing */
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

/* Steals the later half of the unstarted units of another core's run (the core with the most
 * of them): each becomes a unit of core's, whose columns that core lends from the reads it
 * registered for the run (lend.c), so the run stays one read however the work ends up split.
 * They become c's run: 0, or -1 when there is none, or -ENOMEM. Only planned units are
 * stolen whole, once each (their span is emptied), so the units made stay within units_cap
 * (scan_units_plan: each new unit's first split is a planned unit's first or, for a split
 * steal, one no other unit starts at). */
static int steal_run(scan_fetch *fx, int core)
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

/* Whether planned unit b's reads can join those of the run ending at unit b - 1 (hi: the
 * end of the run's last bytes): b is uncut and its bytes start within the io gap of hi
 * (pruned units, with no bytes, always can). */
static bool run_joins(const scan_fetch *fx, int b, uint64_t hi)
{
    const scan_unit *u = &fx->units[b];
    uint64_t hole = u->lo >= hi ? u->lo - hi : 0;
    return !u->shared && (u->bytes == 0 || hole <= fx->gap_bytes);
}

/* Whether a run of bytes that could take unit b is nearer the budget's run_bytes with it, and
 * b's bytes fit in room (fetch_budget.c invariant 10): whole units, run_bytes on average (6 of
 * tpchgen's 4.8 MB groups: 29 MB, 7: 34). */
static bool run_nearer(const scan_fetch *fx, uint64_t bytes, int b, uint64_t room)
{
    uint64_t cap = fx->budget.run_bytes, more = fx->units[b].bytes;
    if (bytes >= room || more > room - bytes) return false;
    if (bytes + more <= cap) return true;
    return bytes < cap && bytes + more - cap < cap - bytes;
}

/* The end of the run of planned units that starts at unit a: unless its reads are wanted
 * ahead (prefetch), or a is cut into splits (shared: it makes its requests when its splits
 * start), the unit alone; else the uncut units whose bytes follow on from each other (so the
 * flush reads them as one: the read-ahead), about run_bytes of them within room (run_nearer).
 * A core left without work steals the later half of another's run (steal_run). */
static int run_end_for(const scan_fetch *fx, int a, bool ahead)
{
    assert(a < fx->nunits);
    if (!ahead || fx->units[a].shared) return a + 1;
    int b = a;
    uint64_t bytes = 0, hi = 0, room = scan_budget_run_room(&fx->budget);
    do {
        bytes += fx->units[b].bytes;
        if (fx->units[b].bytes) hi = fx->units[b].hi;
        b++;
    } while (b < fx->nunits && run_joins(fx, b, hi) && run_nearer(fx, bytes, b, room));
    return b;
}

/* Registers, for its owner, the pieces of the live split of reserved unit ui when it is
 * unshared (a shared unit makes its requests on first use); ahead (the policy wants every
 * slot, scan_policy_wants_all), wants them now: the flush then coalesces them with the run's
 * other units, so columns of consecutive row groups laid out back to back become one read
 * (the read-ahead). 0 or -ENOMEM. */
static int prefetch(scan_fetch *fx, int core, int ui, bool ahead)
{
    scan_unit *u = &fx->units[ui];
    if (u->live != 1 || u->shared || u->pre) return 0;
    int i = u->first;
    while (fx->plan->splits[i].pruned) i++;
    const scan_split *sp = &fx->plan->splits[i];
    if (!(u->pre = fail_calloc((size_t)fx->plan->nneed, sizeof *u->pre))) return -ENOMEM;
    u->pre_split = i;
    for (int k = 0; k < fx->plan->nneed; k++) {
        const scan_colplan *cp = &sp->cols[k];
        if (!(u->pre[k] = fail_calloc((size_t)cp->npieces + 1, sizeof **u->pre))) return -ENOMEM;
        for (int p = 0; p < cp->npieces; p++) {
            const scan_piece *pc = &cp->pieces[p]; /* (ensure_dict's; windowed: task_nwin.c) */
            if ((pc->dict && sp->shares_rg && !sp->leader) || pc->windowed) continue;
            u->pre[k][p] = io_read(fx->cores[core].io, fx->plan->f->file, pc->off, pc->len);
            if (!u->pre[k][p]) return -ENOMEM;
        }
    }
    for (int k = 0; ahead && k < fx->plan->nneed; k++)
        for (int p = 0; p < sp->cols[k].npieces; p++)
            if (u->pre[k][p]) fut_want(u->pre[k][p]);
    if (ahead) atomic_store(&u->ahead, scan_budget_ahead(&fx->budget, sp, fx->plan->nneed));
    return 0;
}

/* Reserves the next run of unclaimed planned units for core c and registers their reads.
 * false when none is left or on -ENOMEM (*rc). */
static bool reserve_run(scan_fetch *fx, int core, int *rc)
{
    scan_fetch_core *c = &fx->cores[core];
    bool ahead = fx->may_run_ahead && atomic_load_explicit(&fx->ahead, memory_order_relaxed);
    int a = atomic_load(&fx->next_unit), b;
    do {
        if (a >= fx->nunits) return false;
        b = run_end_for(fx, a, ahead);
    } while (!atomic_compare_exchange_weak(&fx->next_unit, &a, b));
    for (int u = a; u < b; u++) atomic_store(&fx->units[u].owner, core);
    c->run_next = a;
    c->run_end = b;
    for (int u = a; u < b && *rc == 0; u++) *rc = prefetch(fx, core, u, ahead);
    return *rc == 0;
}

typedef struct pace_wait {
    scan_fetch *fx;
    int core;
    const _Atomic int *stop;
} pace_wait;

static bool pace_over(void *ctx)
{
    const pace_wait *w = ctx;
    const scan_fetch *fx = w->fx;
    int left = atomic_load(&fx->live_left);
    return atomic_load(w->stop) || atomic_load(&fx->budget.closed) || left == 0 || !paced(fx) ||
           atomic_load(&fx->cores[w->core].busy) == 0;
}

void scan_fetch_pace(scan_fetch *fx, int core, const _Atomic int *stop)
{
    assert(core >= 0 && core < fx->threads);
    pace_wait w = {.fx = fx, .core = core, .stop = stop};
    if (!fx->pace || pace_over(&w)) return;
    atomic_fetch_add(&fx->pace_waiting, 1);
    exec_event_wait_until(fx->ev, pace_over, &w);
    atomic_fetch_sub(&fx->pace_waiting, 1);
}

/* Counts split i claimed by core (d = +1) or done (d = -1) in its busy and, claimed, in the
 * live splits left; a busy count reaching 0 and the last live split claimed may end a pacing
 * wait (invariant 6). */
static void busy_add(scan_fetch *fx, int core, int i, int d)
{
    assert(core >= 0 && core < fx->threads && (d == -1 || (d == 1 && i >= 0 && i < fx->plan->nsplits)));
    int was = atomic_fetch_add(&fx->cores[core].busy, d);
    assert(was + d >= 0);
    bool last = d > 0 && !fx->plan->splits[i].pruned && atomic_fetch_sub(&fx->live_left, 1) == 1;
    if ((was + d == 0 || last) && atomic_load(&fx->pace_waiting) > 0) exec_event_signal(fx->ev);
}

bool scan_fetch_exhausted(scan_fetch *fx)
{
    return atomic_load(&fx->next_unit) >= fx->nunits && atomic_load(&fx->live_left) == 0;
}

int scan_fetch_claim(scan_fetch *fx, int core, int *unit)
{
    scan_fetch_core *c = &fx->cores[core];
    int i = c->unit >= 0 ? take(&fx->units[c->unit]) : -1, rc = 0;
    for (;;) {
        while (i < 0 && (c->run_next < c->run_end || reserve_run(fx, core, &rc))) {
            c->unit = c->run_next++;
            i = take(&fx->units[c->unit]); /* -1 when stolen whole meanwhile: claim another */
        }
        if (rc) return rc;
        if (i >= 0 || (rc = steal_run(fx, core)) < 0) break;
    }
    if (rc == -ENOMEM) return rc;
    if (i < 0) {
        int u = -1;
        i = steal(fx, core, &u);
        if (i == -ENOMEM) return i;
        if (i >= 0) c->unit = u;
    }
    if (i < 0) return fx->plan->nsplits;
    busy_add(fx, core, i, 1);
    scan_fetch_ahead_drop(fx, c->unit); /* its reservation counts its reads from here */
    fx->units[c->unit].running++;
    *unit = c->unit;
    return i;
}

/* Makes unit u's request of slot k for [u->off[k], +u->len[k]): lent by the unit it was
 * stolen from (lend.c), else read on core. */
static fut_t *unit_request(scan_fetch *fx, int core, scan_unit *u, int k)
{
    assert(!u->f[k] && u->len[k] > 0);
    if (u->src < 0) return fetch_unit_read(fx, core, u, k);
    u->f[k] = scan_fetch_lend(fx, core, u->src, k, u->off[k], u->len[k]);
    return u->f[k];
}

fut_t *scan_fetch_unit_fut(scan_fetch *fx, int core, int unit, int k)
{
    scan_unit *u = &fx->units[unit];
    assert(u->shared && atomic_load(&u->owner) == core && core == exec_core_index(exec_current()));
    if (u->f[k]) return u->f[k];
    fetch_unit_range(fx, u, k, u->first, span_end(atomic_load(&u->span))); /* invariant 4 */
    return unit_request(fx, core, u, k);
}

static void unit_release(scan_fetch *fx, scan_unit *u);

/* Whether unit u's requests can go: none of the owner's splits of it runs or is left to
 * claim, and no thief may still ask for a lend of them. Owner only. */
static bool unit_idle(const scan_unit *u)
{
    uint64_t v = atomic_load(&u->span);
    return u->running == 0 && span_next(v) >= span_end(v) && atomic_load(&u->holds) == 0;
}

/* On the owner of unit u: a thief's hold on it ended; its requests go when it is idle. */
static void hold_end(void *ctx)
{
    scan_unit *u = ctx;
    assert(atomic_load(&u->owner) == exec_core_index(exec_current()));
    int was = atomic_fetch_sub(&u->holds, 1);
    assert(was > 0);
    if (unit_idle(u)) unit_release(u->fx, u);
    exec_event_signal(u->fx->ev); /* its core may be waiting to end (fetch.h invariant 3) */
}

/* Gives back the hold a unit stolen from src has on it: posted to src's owner. When the
 * owner is stopping its requests went at its end, and nothing is left to release. */
static void hold_drop(scan_fetch *fx, int src)
{
    (void)fetch_try_post(fx, atomic_load(&fx->units[src].owner), hold_end, &fx->units[src]);
}

/* Drops the unit's own references: a request wanted and read that no split decoded from is
 * moved to the wasted bytes (like task_pieces.c task_discard). */
static void unit_release(scan_fetch *fx, scan_unit *u)
{
    if (u->src >= 0 && !u->hold_dropped) {
        u->hold_dropped = true;
        hold_drop(fx, u->src);
    }
    for (int k = 0; u->pre && k < fx->plan->nneed; k++) {
        for (int p = 0; u->pre[k] && p < fx->plan->splits[u->pre_split].cols[k].npieces; p++)
            if (u->pre[k][p]) {
                scan_fetch_discarded(fx, u->pre[k][p]); /* its split never ran, nor was it lent */
                fut_unref(u->pre[k][p]);
            }
        free(u->pre[k]);
    }
    free(u->pre), u->pre = NULL;
    scan_fetch_ahead_drop(fx, (int)(u - fx->units));
    for (int k = 0; u->f && k < fx->plan->nneed; k++) {
        fut_t *f = u->f[k];
        if (!f) continue;
        if (!u->used[k]) scan_fetch_discarded(fx, f);
        fut_unref(f);
        u->f[k] = NULL;
    }
}

void scan_fetch_split_done(scan_fetch *fx, int unit)
{
    scan_unit *u = &fx->units[unit];
    assert(u->running > 0);
    u->running--;
    busy_add(fx, atomic_load(&u->owner), -1, -1);
    if (unit_idle(u)) unit_release(fx, u);
}

/* Whether a unit core owns is held by a thief. */
static bool units_held(scan_fetch *fx, int core)
{
    int used = fx->units ? atomic_load(&fx->units_used) : 0;
    for (int u = 0; u < used; u++)
        if (atomic_load(&fx->units[u].owner) == core && atomic_load(&fx->units[u].holds) > 0)
            return true;
    return false;
}

bool scan_fetch_drained(scan_fetch *fx, int core, bool stopping)
{
    const scan_fetch_core *c = &fx->cores[core];
    return c->lends_out == 0 && c->lends_serving == 0 && (stopping || !units_held(fx, core));
}

void scan_fetch_core_done(scan_fetch *fx, int core)
{
    int used = fx->units ? atomic_load(&fx->units_used) : 0;
    for (int u = 0; u < used; u++)
        if (atomic_load(&fx->units[u].owner) == core) unit_release(fx, &fx->units[u]);
}

