/* scan/policy.h: the policy floor: the conjunct order, adaptive exploration, and the evidence
 * behind lazy, eager and adaptive submission (which of a split's reads are wanted at once).
 *
 * Evidence: per conjunct, how often it ran and how often its output mask was all-false,
 * independent of the order it ran in; the plan's priors (the chance from statistics) are where
 * it starts. Exploration: until one split has completed (so every chain position has
 * evidence), adaptive runs at most one split per core (scan_policy_holds: per core, so the
 * first cores' splits start on different cores, not two on the core whose thread ran first
 * while another core waits idle for the first split's end; issue 26).
 *
 * Invariants:
 *  1. Counters are relaxed atomics written by every core: a decision may read a count one
 *     split old, which changes what is read ahead, never what a scan returns (scan.h
 *     invariant 4).
 *  2. The fetch floor's input (scan_fetch_set_ahead) is refreshed after each change of the
 *     evidence, and the scan's event is signalled when exploration may have ended.
 *  3. The order used (used_*) is the permutation the file's last split that started ran in
 *     (the highest index, so which split does not hang on timing), exploring splits (order.h
 *     invariant 4) left out; it changes only under used_mu, once per split, so a reader under
 *     used_mu sees a whole permutation, never two splits' halves. */
#ifndef RINGSCAN_SCAN_POLICY_H
#define RINGSCAN_SCAN_POLICY_H
#include <pthread.h>
#include <stdatomic.h>

#include "filter/order.h"
#include "scan/fetch.h"

/* One conjunct order for several scans whose filters are the same conjuncts in the same order
 * (a dataset's files, scan_opts.order_share): their splits report into one evidence, take
 * their exploring turn from one sequence (the first ranked split's turn explores) and rank
 * once any of them finished a split, so a
 * dataset of one-split files learns its order as one file of many splits does (order.h
 * invariant 4: one split in 16 explores, which a one-split file alone never reaches). The
 * order is made by the first scan's policy with its plan's conjunct count (scan_start runs on
 * one thread); a scan with another count keeps its own. Zeroed by its owner, freed by
 * scan_order_share_free once every scan using it has ended. */
typedef struct scan_order_share {
    flt_order *order;          /* NULL until the first scan's policy; cache-line aligned */
    _Atomic uint64_t seq;      /* splits that took a ranked order, over every scan */
    _Atomic int splits_done;   /* over every scan */
} scan_order_share;
void scan_order_share_free(scan_order_share *s);

typedef struct scan_policy_state {
    scan_policy kind;
    int threads;
    const scan_plan *plan;
    scan_fetch *fx;            /* takes our "ahead" as its input */
    exec_event *ev;            /* signalled when exploration may end (set at start) */
    flt_order *order;          /* adaptive conjunct order (NULL when npreds < 2): own, or
                                  share's */
    scan_order_share *share;   /* NULL, or the order shared with other scans (o->order_share) */
    const io_cost *cost;       /* a remote store's cost model (NULL: a local file) */
    double *pos_bytes;         /* [npreds + 1] mean bytes a split reads at each conjunct's slot
                                  (by conjunct index), then the projection's (remote only) */
    int *slot_pos;             /* [nneed] the first chain position (stated order) that reads the
                                  slot; npreds: the projection only (remote only) */
    _Atomic int64_t conj_runs[FLT_MAX_PREDS];
    _Atomic int64_t conj_killed[FLT_MAX_PREDS];
    _Atomic int splits_started, splits_done;
    _Atomic int core_started[EXEC_THREADS_MAX]; /* splits (not pruned) each core started */
    pthread_mutex_t used_mu;   /* guards the used_* fields (invariant 3); once per split */
    bool used_mu_live;         /* used_mu initialised (free destroys it) */
    int used_split;            /* the highest split started in a ranked order; -1: none yet */
    int used_reordered;        /* splits that ran (not exploring) in an order not the stated one */
    int used_explored;         /* splits that ran an exploring order */
    int32_t used_perm[FLT_ORDER_MAX];
} scan_policy_state;

/* 0 or -ENOMEM (pol then safe to free). */
int scan_policy_init(scan_policy_state *pol, const scan_plan *p, const scan_opts *o,
                     scan_fetch *fx);
void scan_policy_free(scan_policy_state *pol);

/* Whether adaptive exploration still holds back splits: no split done yet and at least as
 * many started as there are cores. */
bool scan_policy_exploring(scan_policy_state *pol);
/* Whether exploration holds back split sp on core: adaptive, no split done yet, and the core
 * already started one. A cut row group's leader is never held (its group's other splits may
 * be waiting for its dictionary: task_dict.c). Thread-safe. */
bool scan_policy_holds(scan_policy_state *pol, int core, const scan_split *sp);
/* Whether every slot is wanted at a split's start whatever its conjunct order. */
bool scan_policy_wants_all(scan_policy_state *pol);
/* The conjunct order split i runs in (perm[0..npreds)); notes it as the order used unless the
 * split explores (invariant 3). */
void scan_policy_order(scan_policy_state *pol, int i, int32_t *perm);
/* The order used (invariant 3) into perm[0..npreds), with the number of splits that ran
 * reordered and that explored; returns the split it is the order of, or -1 when no split ran
 * (perm then untouched). */
int scan_policy_used_order(scan_policy_state *pol, int32_t *perm, int *reordered, int *explored);
/* Sets wanted[slot] for the slots whose reads a split running in order perm wants at its
 * start (every slot false first). */
void scan_policy_wanted(scan_policy_state *pol, const int32_t *perm, bool *wanted);
/* On a remote store (adaptive): sets wanted[slot] for the slots of the step a split running in
 * order perm starts when it reaches chain position from (1..npreds) with rows left: from and
 * the positions after it the policy speculates given that from's input is not all-false.
 * false (wanted untouched) elsewhere: each position is fetched when reached. */
bool scan_policy_wanted_from(scan_policy_state *pol, const int32_t *perm, int from, bool *wanted);
/* On a remote store: the chance, from the evidence so far, that a split decodes each chain
 * position in the stated order (reach[0..npreds], reach[npreds] the projection), and in
 * *slot_pos the position that first reads each slot; false (nothing set) on a local file. The
 * fetch budget weighs a split's pieces by it (scan_budget_reserve). */
bool scan_policy_reach(scan_policy_state *pol, double *reach, const int **slot_pos);
/* A split (not pruned) starts on core / ends. */
void scan_policy_split_started(scan_policy_state *pol, int core);
void scan_policy_split_done(scan_policy_state *pol);
/* Conjunct k ran on a split: its mask ended all_false or not; rows in and out, its time and
 * the bytes of its column (the adaptive order's measure). */
void scan_policy_note(scan_policy_state *pol, int k, bool all_false);
void scan_policy_measure(scan_policy_state *pol, int k, int64_t rows_in, int64_t rows_out,
                         uint64_t ns, uint64_t bytes);

#endif
