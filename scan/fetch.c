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
 *     groups, cut by cores in the plan, were still run one group a core).
 *  8. Ordered output: a core whose own next split would wait for the output window (its index
 *     at or past the consumed splits + window, scan_fetch_claim's below) first steals the later
 *     half of the unstarted splits of the unit whose next unstarted split is the lowest (the
 *     one holding the window back), even one split, when that half fits the window; its own
 *     unit, splits left, is set aside (one at a time: scan_fetch_core.aside) and taken up
 *     again once the stolen splits are claimed. Without it a core whose next units were cheap
 *     ran up to the window's end and waited there while the other ran the costly group's
 *     splits one after another: the cancel shape's matches lie in one of six row groups, and
 *     two cores took 70 and 40 ms of CPU (issue 26). Steals made here are bounded like the
 *     others by units_cap (units_reserve). */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/fetch_impl.h"







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
    return atomic_load(w->stop) || atomic_load(&fx->budget.closed) || left == 0 || !fetch_paced(fx) ||
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

/* Under ordered output, when core's own next split would wait for the window (at or past
 * below), the later half of the unstarted splits of the unit holding the window back, made
 * core's unit; the unit it leaves with splits left is set aside, taken up again once the
 * stolen splits are claimed (invariant 8). The stolen split, -1 (none), or -ENOMEM. */
static int claim_below(scan_fetch *fx, int core, int64_t below)
{
    scan_fetch_core *c = &fx->cores[core];
    if (below == INT64_MAX || c->aside >= 0 || fetch_next_own(fx, core) < below) return -1;
    int u = -1, i = fetch_steal(fx, core, below, &u);
    if (i < 0) return i;
    uint64_t v = c->unit >= 0 ? atomic_load(&fx->units[c->unit].span) : 0;
    c->aside = span_next(v) < span_end(v) ? c->unit : -1;
    c->unit = u;
    return i;
}

/* The next split of the core's unit, else of the unit it set aside (claim_below), or -1. */
static int take_own(scan_fetch *fx, scan_fetch_core *c)
{
    int i = c->unit >= 0 ? fetch_take(&fx->units[c->unit]) : -1;
    if (i < 0 && c->aside >= 0) {
        c->unit = c->aside;
        c->aside = -1;
        i = fetch_take(&fx->units[c->unit]); /* -1 when stolen meanwhile */
    }
    return i;
}

int scan_fetch_claim(scan_fetch *fx, int core, int64_t below, int *unit)
{
    scan_fetch_core *c = &fx->cores[core];
    int i = claim_below(fx, core, below), rc = 0;
    if (i == -ENOMEM) return i;
    if (i < 0) i = take_own(fx, c);
    for (;;) {
        while (i < 0 && (c->run_next < c->run_end || reserve_run(fx, core, &rc))) {
            c->unit = c->run_next++;
            i = fetch_take(&fx->units[c->unit]); /* -1 when stolen whole meanwhile: claim another */
        }
        if (rc) return rc;
        if (i >= 0 || (rc = fetch_steal_run(fx, core)) < 0) break;
    }
    if (rc == -ENOMEM) return rc;
    if (i < 0) {
        int u = -1;
        i = fetch_steal(fx, core, INT64_MAX, &u);
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

