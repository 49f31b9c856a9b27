/* scan/fetch.h: the fetch floor: which core runs which splits, and the reads behind them.
 *
 * Offers claim (the next split for a core: fetch.c), pieces (a split's reads registered at
 * reservation, or slices of its unit's request), discard (bytes read and dropped undecoded)
 * and done (a split ended; a core ended), plus lends (lend.c: a thief's columns copied from the
 * owner's read). It takes the policy as an input (scan_fetch_set_ahead: whether every slot is
 * wanted at a split's start), never asks it. Units, runs, steals: fetch.c's opening; lends:
 * lend.c's. fetch_unit.c holds what both need of a unit's requests.
 *
 * Invariants (the numbered ones of fetch.c and lend.c hold too):
 *  1. A unit's requests and counters are touched only by its owner core (io/ futures belong to
 *     one core, io.h invariant 1); the other cores touch only its span, owner and holds
 *     (atomically).
 *  2. Per-core state (cores[i]) is touched only by core i's thread.
 *  3. Every change that may end a wait of the driver's (lends out or served, holds) is followed
 *     by exec_event_signal on the scan's event. */
#ifndef RINGSCAN_SCAN_FETCH_H
#define RINGSCAN_SCAN_FETCH_H
#include <pthread.h>
#include <stdatomic.h>

#include "io/io.h"
#include "runtime/event.h"
#include "scan/plan.h"

/* Inbox slots per core; lends out per core are at most (SCAN_INBOX_CAP - the event's slots)
 * / (2 * threads), so every core's lends, their replies and the event's wakes fit any inbox
 * (lend.c scan_lends_max). */
enum { SCAN_INBOX_CAP = 4096 };

typedef struct scan_fetch scan_fetch;

/* The fetch budget (fetch_budget.c): split tasks per core and read-ahead admission. */
enum { SCAN_TASKS_AHEAD = 28 /* read-ahead tasks per core on a remote store */ };
enum { SCAN_SHARE_MAX = 32 /* scans attached to one share at once */ };
struct scan_budget;

/* A task's admission until its split reserves or it leaves (fetch_budget.c invariant 9). */
typedef struct scan_budget_ticket {
    uint64_t bytes;            /* one split like the last, counted in the scan's tickets */
    bool forced;               /* a base task's start without room, counted in forced */
} scan_budget_ticket;

/* A fetch budget the scans of a dataset's files share (scan_opts.share; fetch_budget.c
 * invariant 6): one held count, with its high-water mark, against one limit, the footers the
 * dataset holds counted in it too, and the scans attached, so that bytes freed in one file
 * wake the read-ahead tasks of another. */
typedef struct scan_budget_share {
    uint64_t limit;            /* the dataset's fetch budget (> 0) */
    int split;                 /* files whose io contexts may run at once: each file's io read
                                  and pool bounds are 1/split of a lone scan's (invariant 6) */
    _Atomic uint64_t held;     /* every attached scan's held bytes, and footer_bytes */
    _Atomic uint64_t peak;     /* the most held has reached */
    _Atomic uint64_t footer_bytes; /* footers held (ds_open.c): serialized metadata and the
                                      page-index bytes they keep */
    _Atomic uint64_t footer_peak;
    _Atomic uint64_t pending;  /* every attached scan's pending */
    _Atomic int waiting;       /* read-ahead tasks waiting, over every attached scan */
    _Atomic uint64_t tickets;  /* every attached scan's tickets */
    _Atomic int forced;        /* every attached scan's forced starts */
    pthread_mutex_t adm;       /* every attached scan's admissions (fetch_budget.c inv. 9) */
    pthread_mutex_t mu;        /* guards what follows and every wake posted to them */
    int nattached;
    struct scan_budget *scans[SCAN_SHARE_MAX];
} scan_budget_share;

typedef struct scan_budget {
    uint64_t limit;            /* bytes held by every core at once for read-ahead; 0 = none */
    _Atomic uint64_t held;     /* what the scan keeps resident (fetch_budget.c invariant 5) */
    _Atomic uint64_t *hp;      /* where it is counted: &held, or the share's held */
    _Atomic uint64_t peak;     /* the most held has reached (alone) */
    _Atomic uint64_t *pp;      /* &peak, or the share's peak */
    _Atomic uint64_t pending;  /* the bytes running splits reserved to read: reads they may
                                  still issue (fetch_budget.c invariant 7) */
    _Atomic uint64_t *qp;      /* &pending, or the share's pending */
    _Atomic uint64_t tickets;  /* admitted splits not reserved yet: one like the last each
                                  (fetch_budget.c invariant 9) */
    _Atomic uint64_t *tp;      /* &tickets, or the share's */
    _Atomic int forced;        /* base tasks admitted without room, not reserved yet (0 or 1) */
    _Atomic int *fp;           /* &forced, or the share's */
    pthread_mutex_t adm;       /* orders admissions and tickets given back (invariant 9) */
    pthread_mutex_t *mp;       /* &adm, or the share's */
    exec_event *wake;          /* the scan's event (scan_budget_attach) */
    bool (*behind)(void *ctx, uint64_t bytes); /* NULL, or whether the consumer lags by
                                  bytes it alone can free (output.h scan_out_behind): base
                                  tasks wait on it (fetch_budget.c invariant 8) */
    void *behind_ctx;
    scan_budget_share *share;  /* NULL, or the dataset's (invariant 6) */
    exec_event *ev;            /* attached to the share: the scan's event */
    _Atomic bool lead;         /* with a share: the file being drained, whose base tasks never
                                  wait (invariant 6) */
    _Atomic bool paused;       /* held reached limit: resumes at limit / 2 */
    _Atomic int waiting;       /* read-ahead tasks waiting for room */
    _Atomic bool closed;       /* a base task left its loop: nobody waits any more */
    _Atomic int running;       /* splits of the scan past their window wait and not pushed:
                                  each ends without the consumer (fetch_budget.c inv. 8) */
    _Atomic uint64_t read_in;  /* bytes finished splits reserved to read */
    _Atomic uint64_t out_bytes; /* and the bytes they held decoded: the larger of their
                                   decoded columns' capacity (working set) and their batch */
    _Atomic uint64_t last;     /* the last split's reservation: the next one's guess */
    uint64_t seed16;           /* decoded bytes per byte read, x16, before any split finished */
    uint64_t kept_off, kept_len; /* the file's kept bytes (io_file_t.kept): no fetch */
    uint64_t run_bytes;        /* a core's run of units read ahead at once (fetch.c), about:
                                  SCAN_RUN_BYTES, within a core's io read budget when gated */
    int tasks;                 /* split tasks per core (base + read-ahead) */
    int base;                  /* ranks below it never wait (fetch_budget.c invariant 1) */
} scan_budget;

/* Sets sh up for a dataset's fetch budget limit (> 0), split (>= 1) files' io contexts at once. */
void scan_budget_share_init(scan_budget_share *sh, int64_t limit, int split);
/* Once every scan left it and every footer closed: nothing is counted in it any more. */
void scan_budget_share_free(scan_budget_share *sh);
/* Footer bytes held by the dataset change by d (> 0: read; < 0: closed): counted in held and
 * footer_bytes, with their peaks; a release wakes waiting read-ahead tasks. Thread-safe. */
void scan_budget_share_footer(scan_budget_share *sh, int64_t d);
/* Wakes the attached scans whose read-ahead tasks wait (bytes were freed: a batch consumed, a
 * split ended, a footer closed). Cheap when none waits. Thread-safe. */
void scan_budget_share_wake(scan_budget_share *sh);

/* Sets b up for plan p (its file's backend says whether read-ahead tasks run); with share
 * (NULL: none) b counts in it against its limit (limit is then the share's). */
void scan_budget_init(scan_budget *b, const scan_plan *p, int64_t limit, scan_budget_share *share);
/* Undoes scan_budget_init (no ticket is out). */
void scan_budget_free(scan_budget *b);
/* Before b's scan's workers start: its tasks wait on ev. With a share: attaches b to it, and
 * detaches it (once they ended, before the scan leaves the runtime: no wake is posted to ev
 * after); without one, detaching does nothing. */
void scan_budget_attach(scan_budget *b, exec_event *ev);
void scan_budget_detach(scan_budget *b);
/* With a share: b's scan is the file being drained, so its base tasks go without waiting
 * (waiting ones are woken). Host thread. */
void scan_budget_lead(scan_budget *b);
/* The most b's held (with a share: the share's) has reached. */
uint64_t scan_budget_peak(const scan_budget *b);
/* Under a budget with read-ahead (a remote store): the io contexts of the scan's threads
 * count their idle pooled buffers in held, pool at most a quarter of the limit between them
 * and stash none (io.h pool_held) and read at most half of it at once between them, and a
 * core's run read ahead (run_bytes) is within its share of that half; elsewhere o keeps
 * io/'s pools and stash (a local scan's reuse of faulted-in memory, issue 26). */
void scan_budget_io_opts(scan_budget *b, io_opts_t *o, int threads);
/* Whether a gated task may start a split now: held, plus the reads running splits may still
 * issue (pending), plus the last split's reservation (the one it would start is taken to be
 * as big) stays below limit, except that once that reached the limit it waits until held +
 * pending <= limit / 2 (hysteresis). Thread-safe. */
bool scan_budget_room(scan_budget *b);
/* The bytes a run read ahead may take now (fetch.c reserve_run; fetch_budget.c invariant
 * 10): the room below the limit (held + pending + tickets), none while read-ahead pauses;
 * UINT64_MAX when nothing is gated. */
uint64_t scan_budget_run_room(const scan_budget *b);
/* From task rank (0 <= rank < b->tasks) of a core whose claimed splits not done are *busy,
 * before it claims a split: a base task waits on ev while the split would not fit (held +
 * pending + one like the last reach the limit) and a split of the scan runs, the consumer
 * holds or can take a batch, or another base task's start without room is out
 * (fetch_budget.c invariants 8 and 9); any other task waits on ev until the
 * budget has room, or it is closed and *busy is 0 (then as a base task); any wait ends on
 * *stop. An admission sets *t (zeroed before): what it counts until the task's split
 * reserves or the task leaves (fetch_budget.c invariant 9). */
void scan_budget_admit(scan_budget *b, exec_event *ev, int rank, const _Atomic int *stop,
                       const _Atomic int *busy, scan_budget_ticket *t);
/* Counts what split sp will hold decoded in held while it runs, so a task admitted after it
 * sees those bytes before they exist: its working set and batch, estimated from the bytes it
 * reads (its pieces over nslots slots) at the ratio finished splits showed (before any,
 * twice the needed chunks' uncompressed / compressed sizes, within [1x, 8x]). Its reads are
 * not counted here: io/ counts them in held from their issue (fetch_budget.c invariant 5).
 * With a budget and read-ahead only (else 0). Sets *in to the bytes read and *fetch to those
 * of them outside the file's kept bytes (io_file_t.kept: served without a read, counted in
 * held once already), counted in pending until scan_budget_unreserve. With reach (NULL:
 * every slot is decoded), a slot's pieces count at the chance reach[slot_pos[slot]] that
 * the split decodes it (scan_policy_reach): a chain whose first conjunct kills most splits
 * reserves for what they decode, not for every column. Gives back the task's ticket t (its
 * admission: fetch_budget.c invariant 9) once the reservation counts. Thread-safe. */
uint64_t scan_budget_reserve(scan_budget *b, const scan_split *sp, int nslots, uint64_t *in,
                             uint64_t *fetch, const double *reach, const int *slot_pos,
                             scan_budget_ticket *t);
/* A run's read-ahead (fetch.c prefetch): split sp's reads, all wanted before any task was
 * admitted for it, count in pending from then on, so admission sees them before io/ issues
 * them (fetch_budget.c invariant 7). Returns the bytes counted (0 without a budget and
 * read-ahead), given back with scan_budget_ahead_drop once a split of its unit reserves (its
 * own fetch then counts them) or the unit is released. Thread-safe. */
uint64_t scan_budget_ahead(scan_budget *b, const scan_split *sp, int nslots);
void scan_budget_ahead_drop(scan_budget *b, uint64_t n);
/* At the split's end: drops its reservation n and its reads to fetch (as
 * scan_budget_reserve set them), and when the split ran to its end (ok) learns from in
 * bytes read -> out bytes held decoded (the larger of its decoded columns' capacity and its
 * batch). */
void scan_budget_unreserve(scan_budget *b, uint64_t n, uint64_t in, uint64_t fetch, bool ok,
                           uint64_t out);
/* A split passed its window wait and runs (until scan_budget_released). */
void scan_budget_runs(scan_budget *b);
/* After a split that ran ended and pushed its batch (its bytes released): it no longer runs;
 * wakes waiting tasks. */
void scan_budget_released(scan_budget *b);
/* Task rank left its loop, giving back its ticket t if it holds one (an admission whose
 * split never reserved); a base task's leaving ends every wait (fetch_budget.c inv. 4). */
void scan_budget_left(scan_budget *b, exec_event *ev, int rank, scan_budget_ticket *t);

/* A fetch unit: splits of one row group run by one core. */
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
    _Atomic uint64_t ahead;    /* bytes of pre wanted at reservation and counted in the
                                  budget's pending (scan_budget_ahead) until a split of it, or
                                  of a unit stolen from it, is claimed, or it is released */
    int live;                  /* unpruned splits (planned units) */
    uint64_t bytes;            /* bytes its unpruned splits' pieces cover (planned units) */
    uint64_t lo, hi;           /* the file range they lie in (planned units) */
    int src;                   /* stolen: the unit its splits came from (lend.c), else -1 */
    bool hold_dropped;         /* stolen: its hold on src is given back (owner only) */
    scan_fetch *fx;            /* the fetch it belongs to */
    _Atomic int holds;         /* thieves that may still ask it for lends: its requests stay
                                  until they are done (fetch.c, lend.c) */
} scan_unit;

/* One core's part (invariant 2). */
typedef struct scan_fetch_core {
    io_ctx_t *io;              /* its io context, set by the driver while the core runs */
    int unit;                  /* the unit it claimed last, -1 before */
    int run_next, run_end;     /* planned units it reserved and has not started */
    int aside;                 /* a unit with splits left it set aside to steal, or -1
                                  (fetch.c invariant 8) */
    int lends_out;             /* its lends posted or reading (lend.c), <= scan_lends_max + 1 */
    int lends_serving;         /* others' lends it serves (lend.c lend_serve) */
    _Atomic int busy;          /* its splits claimed and not done: written by its thread,
                                  read by the other cores' pacing (fetch.c invariant 6) */
} scan_fetch_core;

struct scan_fetch {
    const scan_plan *plan;
    exec_group_t *g;           /* set by scan_fetch_start */
    exec_event *ev;            /* invariant 3 */
    int threads;
    uint64_t gap_bytes;        /* io/'s coalescing gap: ranges this near are read as one */
    bool may_run_ahead;        /* no limit, unordered, a fetch budget: runs may be read ahead */
    scan_budget budget;
    _Atomic bool ahead;        /* the policy wants every slot at a split's start */
    int nunits;                /* planned units: cover the splits in order */
    scan_unit *units;          /* planned units, then the ones steals made */
    int units_cap;
    _Atomic int units_used;
    _Atomic int next_unit;     /* first planned unit not claimed yet */
    _Atomic uint64_t bytes_discarded; /* read for a split, then dropped undecoded (wasted) */
    _Atomic int64_t steals, lends;    /* units stolen; column ranges lent to a thief */
    bool pace;                 /* a local file on two cores or more (fetch.c invariant 6) */
    bool pace_all;             /* and few kept row groups: paced from the start (invariant 6) */
    _Atomic int pace_waiting;  /* tasks waiting in scan_fetch_pace */
    _Atomic int live_left;     /* unpruned splits not claimed yet */
    scan_fetch_core cores[EXEC_THREADS_MAX];
};

/* Groups the plan's splits into units (fetch.c opening). 0 or -ENOMEM (fx then safe to free). */
int scan_fetch_init(scan_fetch *fx, const scan_plan *p, const scan_opts *o);
/* The executor group and the event, once started. */
void scan_fetch_start(scan_fetch *fx, exec_group_t *g, exec_event *ev);
/* Frees what scan_fetch_init made; also a zeroed fx whose init never ran (its plan failed). */
void scan_fetch_free(scan_fetch *fx);
/* The policy's input: whether every slot is now wanted at a split's start. */
void scan_fetch_set_ahead(scan_fetch *fx, bool ahead);

/* Before core's task claims (on its thread): while the core runs a split and fewer live splits
 * are left to claim than the cores' tasks could hold, waits on the event until the core runs
 * none, no live split is left, the budget closed (a base task left its loop) or *stop
 * (fetch.c invariant 6). Returns at once on one core or a remote file. */
void scan_fetch_pace(scan_fetch *fx, int core, const _Atomic int *stop);
/* Whether nothing is left for a core that holds no unit to claim or steal: every planned unit
 * reserved and no unpruned split unclaimed (the pruned ones left are their reservers'). Such
 * a core needs no io context for this scan. Thread-safe. */
bool scan_fetch_exhausted(scan_fetch *fx);
/* The next split for core (on its thread) and its unit (*unit): the rest of the core's unit,
 * else the first split of the next unit of its run, else of a run of unclaimed units it
 * reserves (and registers the reads of), else the later half of the unstarted splits of
 * another core's unit, made a unit of its own; plan->nsplits when none is left, -ENOMEM.
 * below: under ordered output the first split that would wait for the output window (its
 * consumed splits + window), INT64_MAX otherwise; a core whose next split lies at or past it
 * first steals from the unit holding the window back (fetch.c invariant 8). */
int scan_fetch_claim(scan_fetch *fx, int core, int64_t below, int *unit);
/* Takes piece q of slot k of split i registered when the unit was reserved (i is the unshared
 * unit's one live split), or NULL; the caller owns the reference. Owner only. */
fut_t *scan_fetch_take_pre(scan_fetch *fx, int unit, int i, int k, int q);
/* The request covering slot k's pieces of the (shared) unit's splits, made on first use;
 * NULL on -ENOMEM. The unit keeps its reference: callers take theirs with fut_ref. Owner only. */
fut_t *scan_fetch_unit_fut(scan_fetch *fx, int core, int unit, int k);
/* Whether f is the unit's request of slot k (a piece that is a slice of it). */
bool scan_fetch_is_unit_fut(const scan_fetch *fx, int unit, int k, const fut_t *f);
/* Piece [off, +len) of the unit's resolved request of slot k, which it marks used; short (or
 * empty) when the read came back short. Owner only. */
io_bytes scan_fetch_slice(scan_fetch *fx, int unit, int k, uint64_t off, uint64_t len);
/* A future for bytes [off, +len) of slot k of the thief's unit stolen from unit src (lend.c).
 * NULL on -ENOMEM. On the thief's core. */
fut_t *scan_fetch_lend(scan_fetch *fx, int core, int src, int k, uint64_t off, uint64_t len);
/* A read no split decoded from, dropped: its bytes are wasted once it was wanted and read. */
void scan_fetch_discarded(scan_fetch *fx, fut_t *f);
/* A split of unit is claimed, or unit is released: the bytes its read-ahead counted in the
 * budget's pending (scan_unit.ahead), and those of the unit it was stolen from, leave it. */
void scan_fetch_ahead_drop(scan_fetch *fx, int unit);
/* After one of the owner's splits of unit ended. */
void scan_fetch_split_done(scan_fetch *fx, int unit);
/* Whether core may end: its lends are answered and their fallbacks read, the ones it serves
 * answered, and (unless stopping early) no thief holds a unit of it. On its thread. */
bool scan_fetch_drained(scan_fetch *fx, int core, bool stopping);
/* The core's end: releases the requests of units it owns. */
void scan_fetch_core_done(scan_fetch *fx, int core);

#endif
