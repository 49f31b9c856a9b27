/* scan/policy.c: the conjunct order, exploration and the submission policy (policy.h). */
#include "scan/policy.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "common/fail.h"

/* The stated order (implied conjuncts first: filter/expr.h flt_expr_stated_order). */
static void stated_order(const scan_plan *p, int32_t *perm)
{
    if (p->npreds == 0) return; /* (no filter) */
    assert(p->filter && p->filter->npreds == p->npreds);
    flt_expr_stated_order(p->filter, perm);
}

/* Below this chance (percent) that a chain position's input is all-false, its reads are
 * wanted at the split's start (speculated). */
enum { ADAPTIVE_SPECULATE_BELOW_PCT = 10 };

/* The chance conjunct k's output is all-false before any evidence. Statistics that cannot say
 * give 1.0 (plan.c): locally the worst case, so nothing is speculated until a split has run,
 * which costs that split's read calls. On a remote store it is taken as 0.5 (a coin flip):
 * there the first wave is every split the budget admits, and each whose next conjunct was not
 * speculated pays a round trip (lineitem_order at sf=1: l_shipmode = 'AIR', which statistics
 * cannot price, held back l_quantity and the projection of the 25 splits started at once, 3
 * round trips each). At 0.5 the round-trip rule (round_trip_saved) speculates a position of
 * less than ttfb x bandwidth bytes. */
static double prior(const scan_policy_state *pol, int k)
{
    double q = pol->plan->conj_prior[k];
    return pol->cost && q >= 1.0 ? 0.5 : q;
}

/* Chance that conjunct k's output is all-false when it runs, from the splits seen so far.
 * The prior weighs a hundredth of a run, at the chance the statistics give (conj_prior; 1.0
 * when they cannot say): with no evidence the answer is that chance, one run that was not
 * all-false brings it to 0.01 or less, so one split of evidence is enough to speculate a
 * three-conjunct chain (a tenth needed three splits, which cost lineitem_order ~12 read calls
 * over eager at sf=1). */
static double q_killed(const scan_policy_state *pol, int k)
{
    double runs = (double)atomic_load_explicit(&pol->conj_runs[k], memory_order_relaxed);
    double killed = (double)atomic_load_explicit(&pol->conj_killed[k], memory_order_relaxed);
    return (killed + 0.01 * prior(pol, k)) / (runs + 0.01);
}

/* Chance that the input of chain position pos (pos == npreds: the projection) is all-false
 * when position from's input is not (from <= pos; 0: at the split's start): one of the
 * conjuncts from..pos-1 in this split's order produced an all-false mask. Per conjunct, so a
 * change of order does not mix up the evidence. */
static double p_all_false_after(const scan_policy_state *pol, const int32_t *perm, int from,
                                int pos)
{
    double alive = 1.0;
    for (int i = from; i < pos; i++) alive *= 1.0 - q_killed(pol, perm[i]);
    return 1.0 - alive;
}

static double p_input_all_false(const scan_policy_state *pol, const int32_t *perm, int pos)
{
    return p_all_false_after(pol, perm, 0, pos);
}

/* The mean bytes a split reads at chain positions [from, to). */
static double step_bytes(const scan_policy_state *pol, const int32_t *perm, int from, int to)
{
    double b = 0;
    for (int pos = from; pos < to; pos++)
        b += pol->pos_bytes[pos < pol->plan->npreds ? perm[pos] : pol->plan->npreds];
    return b;
}

/* The remote cost model's time to first byte and one connection's bandwidth as seeded: the
 * measured one (the EWMA) counts the time a transfer queued in the store's shared pipe, which
 * fell to ~10 MB/s on lineitem_cancel's first wave and stopped speculation on the core that
 * started later (io_cost_max takes the seed for the same reason). */
static void trip_model(const scan_policy_state *pol, double *ttfb_s, double *bw)
{
    *ttfb_s = (double)atomic_load_explicit(&pol->cost->ttfb_ns, memory_order_relaxed) / 1e9;
    *bw = (double)pol->cost->seed_bytes_per_s;
}

/* On a remote store: whether fetching position pos's bytes now, wasted with chance p, costs
 * less than the round trip a later fetch costs otherwise: p x bytes / bandwidth < (1 - p) x
 * time to first byte. At 50 ms and 100 MB/s a 1 MB column is worth fetching unless its input
 * is all-false more than 83% of the time; locally (100 us) the 10% rule decides alone. */
static bool round_trip_saved(const scan_policy_state *pol, const int32_t *perm, int pos, double p)
{
    if (!pol->cost) return false;
    double ttfb, bw;
    trip_model(pol, &ttfb, &bw);
    return p * step_bytes(pol, perm, pos, pos + 1) / bw < (1.0 - p) * ttfb;
}

/* Whether position pos is fetched by the step that starts at position from (from <= pos). */
static bool speculates(const scan_policy_state *pol, const int32_t *perm, int from, int pos)
{
    if (pol->kind == SCAN_EAGER || pos == from) return true;
    double p = p_all_false_after(pol, perm, from, pos);
    return p * 100.0 < ADAPTIVE_SPECULATE_BELOW_PCT || round_trip_saved(pol, perm, pos, p);
}

/* The end of the step that starts at position from: it fetches positions [from, end), end
 * npreds + 1 when it reaches the projection. */
static int step_end(const scan_policy_state *pol, const int32_t *perm, int from)
{
    int pos = from;
    while (pos <= pol->plan->npreds && speculates(pol, perm, from, pos)) pos++;
    return pos;
}

/* The end of the step a split starts with. On a remote store (adaptive) a step that stops
 * before the projection fetches its positions after the first for nothing when the split's
 * survivors' next step would fetch them anyway: the step that starts at position 1 (reached
 * when the first conjunct passes) reaches as far as the one that starts at end. Those
 * positions then go to the next step when their bytes, wasted when the first conjunct kills
 * the split, cost more than the round trip a split killed among them pays to learn it
 * (lineitem_cancel: l_cancelkey kills 94% of splits, its survivors fetched l_shipdate in the
 * first step and the projection a round trip later; from l_shipdate both come in one step). */
static int start_end(const scan_policy_state *pol, const int32_t *perm)
{
    int end = step_end(pol, perm, 0);
    if (!pol->cost || pol->kind != SCAN_ADAPTIVE || end <= 1 || end > pol->plan->npreds) return end;
    if (step_end(pol, perm, 1) < step_end(pol, perm, end)) return end;
    double ttfb, bw, q0 = q_killed(pol, perm[0]);
    trip_model(pol, &ttfb, &bw);
    double mid = p_all_false_after(pol, perm, 1, end); /* killed among [1, end) once alive */
    return q0 * step_bytes(pol, perm, 1, end) / bw > (1.0 - q0) * mid * ttfb ? 1 : end;
}

/* Mean bytes per unpruned split at each conjunct's slot and at the projection's slots. */
static int measure_positions(scan_policy_state *pol, const scan_plan *p)
{
    if (!(pol->pos_bytes = fail_calloc((size_t)p->npreds + 1, sizeof *pol->pos_bytes))) return -ENOMEM;
    int live = 0;
    for (int i = 0; i < p->nsplits; i++) {
        if (p->splits[i].pruned) continue;
        live++;
        for (int k = 0; k < p->npreds; k++) {
            int n;
            const int *slots = scan_plan_pred_slots(p, k, &n);
            for (int s = 0; s < n; s++) pol->pos_bytes[k] += (double)scan_plan_slot_bytes(p, i, slots[s]);
        }
        for (int j = 0; j < p->nproj; j++)
            pol->pos_bytes[p->npreds] += (double)scan_plan_slot_bytes(p, i, p->proj_slot[j]);
    }
    for (int k = 0; live > 0 && k <= p->npreds; k++) pol->pos_bytes[k] /= live;
    if (!(pol->slot_pos = fail_calloc((size_t)p->nneed + 1, sizeof *pol->slot_pos))) return -ENOMEM;
    for (int s = 0; s < p->nneed; s++) pol->slot_pos[s] = p->npreds;
    for (int k = p->npreds - 1; k >= 0; k--) { /* the earliest conjunct reading a slot wins */
        int n;
        const int *slots = scan_plan_pred_slots(p, k, &n);
        for (int s = 0; s < n; s++) {
            assert(slots[s] >= 0 && slots[s] < p->nneed);
            pol->slot_pos[slots[s]] = k;
        }
    }
    return 0;
}

bool scan_policy_reach(scan_policy_state *pol, double *reach, const int **slot_pos)
{
    if (!pol->cost) return false;
    int32_t perm[FLT_MAX_PREDS];
    stated_order(pol->plan, perm);
    for (int pos = 0; pos <= pol->plan->npreds; pos++) {
        reach[pos] = 1.0 - p_input_all_false(pol, perm, pos);
        assert(reach[pos] >= 0.0 && reach[pos] <= 1.0);
    }
    *slot_pos = pol->slot_pos;
    return true;
}

bool scan_policy_wants_all(scan_policy_state *pol)
{
    if (pol->kind != SCAN_ADAPTIVE) return pol->kind == SCAN_EAGER;
    int32_t perm[FLT_MAX_PREDS];
    stated_order(pol->plan, perm);
    return start_end(pol, perm) > pol->plan->npreds;
}

/* An adaptive conjunct order for n conjuncts, cache-line aligned (its counters), or NULL. */
static flt_order *order_new(int n)
{
    size_t size = (sizeof(flt_order) + 63) / 64 * 64;
    flt_order *ord = fail_aligned_alloc(64, size);
    if (ord) flt_order_init(ord, n, 0, 0);
    return ord;
}

void scan_order_share_free(scan_order_share *s)
{
    free(s->order);
    s->order = NULL;
}

/* pol->order: share's (made on its first use) when its conjunct count is the plan's, else own. */
static int order_init(scan_policy_state *pol, const scan_plan *p, scan_order_share *share)
{
    if (p->npreds < 2 || p->npreds > FLT_ORDER_MAX) return 0;
    if (share && !share->order) share->order = order_new(p->npreds);
    if (share && share->order && share->order->n == p->npreds) {
        pol->share = share, pol->order = share->order;
        return 0;
    }
    return (pol->order = order_new(p->npreds)) ? 0 : -ENOMEM;
}

/* Splits done: the scan's, and with a shared order every scan's (its evidence). */
static int done(scan_policy_state *pol)
{
    return atomic_load(&pol->splits_done) + (pol->share ? atomic_load(&pol->share->splits_done) : 0);
}

int scan_policy_init(scan_policy_state *pol, const scan_plan *p, const scan_opts *o,
                     scan_fetch *fx)
{
    memset(pol, 0, sizeof *pol);
    pol->used_split = -1;
    if (pthread_mutex_init(&pol->used_mu, NULL)) return -ENOMEM;
    pol->used_mu_live = true;
    pol->kind = o->policy;
    pol->threads = o->threads;
    pol->plan = p;
    pol->fx = fx;
    if (order_init(pol, p, o->order_share)) return -ENOMEM;
    if (p->f->file->be->remote) {
        if (measure_positions(pol, p)) return -ENOMEM;
        pol->cost = &p->f->file->cost;
    }
    scan_fetch_set_ahead(fx, scan_policy_wants_all(pol));
    return 0;
}

void scan_policy_free(scan_policy_state *pol)
{
    if (!pol->share) free(pol->order);
    pol->order = NULL;
    free(pol->pos_bytes);
    pol->pos_bytes = NULL;
    free(pol->slot_pos);
    pol->slot_pos = NULL;
    if (pol->used_mu_live) pthread_mutex_destroy(&pol->used_mu);
    pol->used_mu_live = false;
}

/* Whether adaptive exploration is on and no split has completed yet. */
static bool explores(scan_policy_state *pol)
{
    /* on a remote store holding splits back costs round trips, and the round-trip rule
     * (round_trip_saved) speculates without evidence wherever a fetch later would cost more */
    return pol->kind == SCAN_ADAPTIVE && pol->plan->npreds > 0 && !pol->cost && done(pol) == 0;
}

bool scan_policy_exploring(scan_policy_state *pol)
{
    return explores(pol) && atomic_load(&pol->splits_started) >= pol->threads;
}

bool scan_policy_holds(scan_policy_state *pol, int core, const scan_split *sp)
{
    assert(core >= 0 && core < pol->threads && core < EXEC_THREADS_MAX);
    if (sp->shares_rg && sp->leader) return false;
    return explores(pol) && atomic_load(&pol->core_started[core]) > 0;
}

/* A Top-K bound (a dynamic predicate) heads every chain (scan/topk.h): the rest keep their
 * order behind it. */
static void pin_bound_first(const scan_plan *p, int32_t *perm)
{
    for (int pos = 1; pos < p->npreds; pos++) {
        if (!p->filter->preds[perm[pos]].dyn) continue;
        int32_t k = perm[pos];
        memmove(perm + 1, perm, sizeof *perm * (size_t)pos);
        perm[0] = k;
        return;
    }
}

/* On a remote store: the conjuncts never measured yet move behind the measured ones (each
 * group keeping its order), unless split i explores. order.h puts a never-measured conjunct
 * first so the next split measures it; locally that costs one split's decoding, but remotely
 * every split that starts before the measurement comes back pays a round trip for a conjunct
 * that may kill nothing (lineitem_cancel: the date, never reached in the splits the first
 * conjunct killed, went first in ~25 splits started at once, each then fetching the first
 * conjunct's column a round trip later). A never-measured conjunct is still measured by its
 * split's chain when the conjuncts before it pass, and by order.h's exploring splits. */
static void measured_first(const scan_policy_state *pol, uint64_t i, int32_t *perm)
{
    if (!pol->cost || flt_order_explores(pol->order, i)) return;
    int n = pol->plan->npreds, m = 0;
    int32_t later[FLT_MAX_PREDS];
    int nlater = 0;
    assert(n <= FLT_MAX_PREDS);
    for (int pos = 0; pos < n; pos++) {
        if (flt_order_rank(pol->order, perm[pos]) < 0) later[nlater++] = perm[pos];
        else perm[m++] = perm[pos];
    }
    for (int k = 0; k < nlater; k++) perm[m + k] = later[k];
    assert(m + nlater == n);
}

void scan_policy_order(scan_policy_state *pol, int i, int32_t *perm)
{
    /* the stated order until a split completed: a split starting while the first ones are
     * between two conjuncts would otherwise put the one not measured yet first */
    bool ranked = pol->order && done(pol) > 0;
    int n = pol->plan->npreds;
    /* the split's turn to explore: its index, or with a shared order its place among every
     * sharing scan's ranked splits, the first of which explores. The files in flight before
     * any split was done ran the stated order and measured the others only behind the first,
     * on its few rows left, where a cost per row holds its pages' decoding: until a split
     * measures each first, the ranked order stays the stated one, and when the 16th turn
     * came before or after the first split was done, 23 or 8 of 40 one-split files learned
     * the order (tests/cli/dataset_order.sh) */
    uint64_t turn = (uint64_t)i;
    if (pol->share && ranked)
        turn = atomic_fetch_add(&pol->share->seq, 1) + FLT_ORDER_EXPLORE_PERIOD - 1;
    if (ranked) {
        flt_order_snapshot(pol->order, turn, perm);
        measured_first(pol, turn, perm);
    } else {
        stated_order(pol->plan, perm);
    }
    pin_bound_first(pol->plan, perm);
    if (!pol->order) return; /* nothing to reorder, nothing to tell */
    assert(n >= 2 && n <= FLT_ORDER_MAX);
    pthread_mutex_lock(&pol->used_mu);
    if (ranked && flt_order_explores(pol->order, turn)) {
        pol->used_explored++;
    } else {
        int32_t st[FLT_MAX_PREDS];
        bool stated = true;
        stated_order(pol->plan, st);
        pin_bound_first(pol->plan, st);
        for (int k = 0; k < n; k++) stated = stated && perm[k] == st[k];
        pol->used_reordered += !stated;
        if (i > pol->used_split) { /* the file's last split: which one does not hang on timing */
            memcpy(pol->used_perm, perm, sizeof *perm * (size_t)n);
            pol->used_split = i;
        }
    }
    pthread_mutex_unlock(&pol->used_mu);
}

int scan_policy_used_order(scan_policy_state *pol, int32_t *perm, int *reordered, int *explored)
{
    if (!pol->order) return -1;
    pthread_mutex_lock(&pol->used_mu);
    int split = pol->used_split;
    if (split >= 0) memcpy(perm, pol->used_perm, sizeof *perm * (size_t)pol->plan->npreds);
    *reordered = pol->used_reordered;
    *explored = pol->used_explored;
    pthread_mutex_unlock(&pol->used_mu);
    return split;
}

/* Sets wanted[slot] for the slots of chain positions [from, to). */
static void want_positions(const scan_plan *p, const int32_t *perm, int from, int to, bool *wanted)
{
    memset(wanted, 0, sizeof(bool) * (size_t)p->nneed);
    for (int pos = from; pos < to; pos++) {
        if (pos < p->npreds) {
            int n;
            const int *slots = scan_plan_pred_slots(p, perm[pos], &n);
            for (int s = 0; s < n; s++) wanted[slots[s]] = true;
        } else {
            for (int j = 0; j < p->nproj; j++) wanted[p->proj_slot[j]] = true;
        }
    }
}

void scan_policy_wanted(scan_policy_state *pol, const int32_t *perm, bool *wanted)
{
    /* a later position depends on an earlier one's outcome: the step stops at the first
     * position that does not speculate */
    want_positions(pol->plan, perm, 0, pol->kind == SCAN_LAZY ? 0 : start_end(pol, perm), wanted);
}

bool scan_policy_wanted_from(scan_policy_state *pol, const int32_t *perm, int from, bool *wanted)
{
    assert(from > 0 && from <= pol->plan->npreds);
    if (!pol->cost || pol->kind != SCAN_ADAPTIVE) return false;
    want_positions(pol->plan, perm, from, step_end(pol, perm, from), wanted);
    return true;
}

void scan_policy_split_started(scan_policy_state *pol, int core)
{
    assert(core >= 0 && core < pol->threads && core < EXEC_THREADS_MAX);
    atomic_fetch_add(&pol->core_started[core], 1);
    atomic_fetch_add(&pol->splits_started, 1);
}

void scan_policy_split_done(scan_policy_state *pol)
{
    if (pol->share) atomic_fetch_add(&pol->share->splits_done, 1);
    if (atomic_fetch_add(&pol->splits_done, 1) == 0 && pol->ev)
        exec_event_signal(pol->ev); /* exploration ended: held-back splits may start */
}

void scan_policy_note(scan_policy_state *pol, int k, bool all_false)
{
    assert(k >= 0 && k < pol->plan->npreds);
    atomic_fetch_add_explicit(&pol->conj_runs[k], 1, memory_order_relaxed);
    if (all_false) atomic_fetch_add_explicit(&pol->conj_killed[k], 1, memory_order_relaxed);
    scan_fetch_set_ahead(pol->fx, scan_policy_wants_all(pol)); /* invariant 2 */
}

void scan_policy_measure(scan_policy_state *pol, int k, int64_t rows_in, int64_t rows_out,
                         uint64_t ns, uint64_t bytes)
{
    if (pol->order) flt_order_report(pol->order, k, (uint64_t)rows_in, (uint64_t)rows_out, ns, bytes);
}
