/* scan/scan_impl.h: state shared by the scan engine's files (scan.c, plan.c, split.c). */
#ifndef RINGSCAN_SCAN_SCAN_IMPL_H
#define RINGSCAN_SCAN_SCAN_IMPL_H
#include "filter/order.h"
#include "scan/scan.h"

/* Per core, touched only by that core's thread (invariant 3). */
typedef struct scan_core {
    io_ctx_t *io;
    pq_col_reader *readers;    /* one per needed column, reused across splits (decoding
                                  never yields, so the core's tasks can share them) */
    pq_vec *vecsets[SCAN_TASKS_PER_CORE]; /* idle decoded-column sets (nneed vectors each),
                                  reused so a split does not fault in fresh memory */
    int nvecsets;
    int workers_live;
    io_counters_t io_counters; /* copied when the core's last worker ends */
    int64_t decoded_pages;
    int64_t dict_eval_pages;   /* split.c page_eval_one */
    int64_t sel_eval_pages;    /* split.c page_eval_one */
    int unit;                  /* the unit it claimed last (unit.c), -1 before */
    int run_next, run_end;     /* planned units it reserved and has not started (unit.c) */
    int lends_out;             /* its lends posted or reading (lend.c), <= scan_lends_max + 1 */
    int lends_serving;         /* others' lends it serves (lend.c lend_serve) */
} scan_core;

/* leader_live states: not claimed, claimed (waiting for its place), running, ended. */
enum { SCAN_LEADER_IDLE, SCAN_LEADER_CLAIMED, SCAN_LEADER_RUNNING, SCAN_LEADER_ENDED };

/* Inbox slots per core; lends out per core are at most SCAN_INBOX_CAP / (2 * threads), so
 * every core's lends and their replies fit any inbox (lend.c scan_lends_max). */
enum { SCAN_INBOX_CAP = 4096 };

/* A fetch unit (unit.c): splits of one row group run by one core. */
typedef struct scan_unit {
    int first;                 /* its first split as planned or stolen */
    _Atomic uint64_t span;     /* next split to claim (low 32 bits), end (high 32 bits) */
    int running;               /* the owner's splits of it now running (owner only) */
    _Atomic int owner;         /* claiming core, -1 before */
    bool shared;               /* two or more unpruned splits: columns are read per unit */
    uint64_t *off, *len;       /* [nneed] the range of each request (owner only) */
    fut_t **f;                 /* [nneed] the column's request once registered (owner only) */
    bool *used;                /* [nneed] a split decoded from it */
    fut_t ***pre;              /* [nneed][piece] reads registered at reservation for the one
                                  live split of an unshared unit, taken by it (owner only) */
    int pre_split;             /* that split */
    int live;                  /* unpruned splits (planned units) */
    uint64_t bytes;            /* bytes its unpruned splits' pieces cover (planned units) */
    uint64_t lo, hi;           /* the file range they lie in (planned units) */
    int src;                   /* stolen: the unit its splits came from (lend.c), else -1 */
    bool hold_dropped;         /* stolen: its hold on src is given back (owner only) */
    struct scan *scan;         /* the scan it belongs to (for messages naming the unit) */
    _Atomic int holds;         /* thieves that may still ask it for lends: its requests stay
                                  until they are done (unit.c, lend.c) */
} scan_unit;

struct scan {
    pqf_t *f;
    scan_opts o;
    int nproj;
    int *proj;                 /* leaf indexes, output order */
    flt_expr *filter;          /* owned; NULL = none */
    int npreds;
    int nneed;                 /* columns read: predicate columns, then projection-only */
    int *need;                 /* leaf index per slot */
    int *pred_slot;            /* slot of each predicate's column */
    int *proj_slot;            /* slot of each projected column */
    flt_order *order;          /* adaptive conjunct order (NULL when npreds < 2) */

    int nsplits;
    scan_split *splits;
    int nunits;                /* planned units: cover the splits in order (unit.c) */
    scan_unit *units;          /* planned units, then the ones steals made */
    int units_cap;
    _Atomic int units_used;
    _Atomic int next_unit;     /* first planned unit not claimed yet */
    /* Dictionaries of row groups cut into several splits (NULL when none is cut):
     * dicts[rg * nneed + slot] is published once (release) by the first split that decoded
     * it and read (acquire) by the others, which then neither read nor decode that page;
     * rg_left[rg] counts the row group's unfinished splits, and the last one frees them.
     * Only a group's leader (its first unpruned split) registers dictionary pages with its
     * other reads; the others wait for its dictionaries while it runs (split.c ensure_dict). */
    _Atomic(pq_vec *) *dicts;
    _Atomic int *rg_left;
    _Atomic int *leader_live;  /* per row group, its leader split's state (SCAN_LEADER_*):
                                  a split waits for a leader while it runs, or is claimed and
                                  the scan no longer explores (split.c ensure_dict) */

    /* adaptive submission: per conjunct, how often it ran and how often its output mask was
     * all-false; independent of the order it ran in (split.c p_input_all_false) */
    _Atomic int64_t conj_runs[FLT_MAX_PREDS];
    _Atomic int64_t conj_killed[FLT_MAX_PREDS];
    /* per conjunct, the chance from statistics that its mask is all-false on a split (mean
     * over the live splits; 1.0 where the statistics cannot say), the prior the evidence
     * above starts from: set at planning, read-only afterwards (plan.c plan_priors) */
    double conj_prior[FLT_MAX_PREDS];

    /* runtime */
    exec_group_t *g;
    int window;                /* splits claimed but not consumed, at most */
    _Atomic int64_t consumed;
    _Atomic int64_t tickets;   /* unordered: splits claimed so far (each one's place) */
    _Atomic int64_t rows_out;
    _Atomic int stop;          /* error, or the consumer is done: splits bail out */
    _Atomic int limit_hit;     /* enough rows produced: claim no new split */
    _Atomic int workers_live;
    _Atomic int64_t rows_scanned, splits_all_false;
    _Atomic int64_t decompressed_bytes; /* every reader's, for max_scan_decompressed_bytes */
    _Atomic uint64_t bytes_discarded; /* read for a split, then dropped undecoded (wasted) */
    _Atomic int64_t steals, lends;      /* units stolen; column ranges lent to a thief */
    _Atomic int splits_started, splits_done; /* adaptive exploration (scan.c wait_window) */

    pthread_mutex_t mu;        /* guards what follows */
    pthread_cond_t cv;
    scan_batch *results;       /* per split, valid when ready[i] */
    bool *ready;
    int *fifo;                 /* completion order (unordered output) */
    int fifo_head, fifo_tail;
    int next_ordered;
    int prefix_next;           /* first split not yet pushed, in file order */
    int64_t produced_rows;     /* rows pushed: in file-order prefix when ordered, else all */
    int64_t delivered_rows;
    bool finished;
    int status;
    pq_err err;

    scan_stats stats;          /* planning part filled at start, the rest at the end */
    scan_core cores[EXEC_THREADS_MAX];
    char *explain;
    size_t explain_len;
};

/* plan.c: builds s->splits with static pruning; 0 or a negative status. */
int scan_plan(scan_t *s, pq_err *e);
void scan_plan_free(scan_t *s);
/* Frees the shared dictionaries of row group rg (every row group when rg < 0). */
void scan_shared_dicts_free(scan_t *s, int rg);

/* unit.c: groups the planned splits into fetch units; 0 or -ENOMEM. */
int scan_units_plan(scan_t *s);
void scan_units_free(scan_t *s);
/* The next split for core c (index core) and its unit (*unit): the rest of c's unit, else the
 * first split of the next unit of c's run, else of a run of unclaimed units c reserves (and
 * registers the reads of), else the later half of the unstarted splits of another core's
 * unit, made a unit of c's (unit.c steal); s->nsplits when none is left, -ENOMEM. Runs on
 * the core. */
int scan_unit_claim(scan_t *s, scan_core *c, int core, int *unit);
/* Takes piece p of slot k of split i registered when the unit was reserved (i is the unshared
 * unit's one live split), or NULL; the caller owns the reference. Owner only. */
fut_t *scan_unit_take_pre(scan_t *s, int unit, int i, int k, int p);
/* The request covering slot k's pieces of the (shared) unit's splits, made on first use;
 * NULL on -ENOMEM. The unit keeps its own reference: callers take theirs with
 * fut_ref. Owner only. */
fut_t *scan_unit_fut(scan_t *s, scan_core *c, int unit, int k);
/* For a lend of [off, +len) of slot k (lend.c): unit's request of slot k, made now when
 * there is none yet, covering its own splits and that range too (when the two lie within the
 * io gap of each other), so one read serves the owner and the thief. NULL when there is none
 * and none can be made (a stolen unit, the core's end, ranges apart, -ENOMEM). Owner only. */
fut_t *scan_unit_fut_cover(scan_t *s, int unit, int k, uint64_t off, uint64_t len);
/* A read no split decoded from, dropped: its bytes are wasted once it was wanted and read
 * (bytes_discarded; the part io_bytes.shared names is another's to count). */
void scan_discarded(scan_t *s, fut_t *f);
/* After one of the owner's splits of unit ended: when none of them runs and none is left to
 * claim, the unit's requests are released. */
void scan_unit_split_done(scan_t *s, int unit);
/* The core's end: releases the requests of units it owns whose splits did not all run. */
void scan_units_core_done(scan_t *s, int core);

/* lend.c: a future for bytes [off, +len) of slot k of the thief's unit stolen from unit src,
 * resolved (io_bytes value) from src's owner's request of that column when it covers them,
 * else from a read of the thief's own (c's io). Posts to the owner when first wanted; NULL
 * on -ENOMEM. Runs on the thief's core. */
fut_t *scan_lend(scan_t *s, scan_core *c, int src, int k, uint64_t off, uint64_t len);
/* Lends a core may have out at once (the rest read for themselves). */
int scan_lends_max(const scan_t *s);

/* lend.c: gives back the hold the thief's unit (stolen from src) has on src: posted to src's
 * owner, which releases src's requests if nothing else keeps them. Runs on the thief's core. */
void scan_lend_hold_drop(scan_t *s, int src);
/* unit.c: a hold on unit src ended; releases its requests when idle. Owner only. */
void scan_unit_hold_ended(scan_t *s, int src);
/* unit.c: whether a unit core owns is held by a thief (the core must not end yet). */
bool scan_units_held(scan_t *s, int core);

/* scan.c: whether adaptive exploration still holds back all but one split per core. */
bool scan_exploring(scan_t *s);

/* split.c: whether the policy now wants every slot at a split's start, whatever its conjunct
 * order (the chance that the whole chain ends all-false bounds every prefix's). */
bool scan_policy_wants_all(scan_t *s);
/* split.c: runs split i of unit (claimed by this core) on the current core (a coroutine);
 * pushes its batch or error. A shared unit's pieces are slices of the unit's requests. */
void scan_run_split(scan_t *s, scan_core *c, int i, int unit);

/* take.c: dst (initialised here) = src rows idx[0..n). 0, RINGSCAN_ELIMIT or -ENOMEM. */
int scan_take(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst);

/* explain.c: the conjunct order (label "start" or "final") into the explain text. */
void scan_order_explain(scan_t *s, const char *label);

/* scan.c: hands a finished split's batch to the consumer (takes ownership of b). */
void scan_push(scan_t *s, int split, scan_batch *b);
/* Records the first error and stops the scan. */
void scan_fail(scan_t *s, int status, const pq_err *e);
/* Appends printf-style text to the explain buffer (no-op unless explain). */
void scan_explainf(scan_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
