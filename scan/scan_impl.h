/* scan/scan_impl.h: the driver floor's scan: the parts of the floors below, one each, and the
 * driver's per-core state. Nothing else lives here: every part owns its own state (plan.h,
 * fetch.h, policy.h, task.h, output.h). */
#ifndef RINGSCAN_SCAN_SCAN_IMPL_H
#define RINGSCAN_SCAN_SCAN_IMPL_H
#include "scan/output.h"
#include "scan/scan_rt.h"
#include <stdatomic.h>
#include "scan/task.h"
#include "scan/topk.h"

/* The driver's part of a core (its thread only, but io_snap under snap_mu). */
typedef struct scan_core {
    int workers_live;
    int workers_started;       /* each worker's rank on the core (fetch.h scan_budget_admit) */
    scan_task_core task;
    pthread_mutex_t snap_mu;   /* guards io_snap: a host reads it while the scan runs */
    io_counters_t io_snap;     /* the core's io counters after its last split (final at its end) */
    _Atomic int64_t decoded_pages; /* at its end */
    struct scan *owner;        /* a message posted to the core (scan_cancel) finds the scan */
    int id;                    /* and the core */
} scan_core;

struct scan {
    scan_opts o;
    flt_expr *filter;          /* owned; NULL = none */
    scan_explain_buf explain;
    scan_plan plan;
    scan_fetch fetch;
    scan_policy_state pol;
    scan_dicts dicts;
    scan_task_counters cnt;
    scan_task_env env;
    bool *dict_slot;           /* env.dict_slot (owned; scan_dictout_slots) */
    scan_out out;
    scan_topk topk;            /* nkeys 0 unless ORDER BY */
    scan_topk_merge merge;
    bool merged;               /* every split's candidates are in merge */
    int merge_status;          /* its error, returned by every later scan_next */
    exec_group_t *g;           /* its own, or o.rt's */
    scan_rt_leave leave;       /* with o.rt: what leaving it waits for (scan_rt.h inv. 2) */
    scan_rt_member member;     /* with o.rt: what the runtime's cancel reaches (scan_cancel) */
    exec_event ev;             /* every wait of the scan's tasks (runtime/event.h) */
    _Atomic bool finished;     /* finish ran (set before the last count; a snapshot's
                                  scan_stats_fill reads it for its assertion) */
    _Atomic bool stats_final;  /* stats is filled and final: set after finished and the last
                                  write of stats (release), so a snapshot on another host
                                  thread (a stop's end on a third) reads it whole (acquire) */
    uint64_t start_ns;         /* monotonic: start_workers */
    _Atomic uint64_t end_ns;   /* monotonic: the consumer seeing the end (a snapshot on
                                  another host thread reads it: scan_stats.c core_stats) */
    scan_stats stats;          /* final once stats_final */
    scan_core cores[];         /* o.threads of them: a dataset starts a scan per file, and
                                  EXEC_THREADS_MAX of them were 96 KiB zeroed per file */
};

/* (scan_stats.c) Statistics from s's plan, its counters and its cores' io counters (io: their
 * sum, scan_io_sum) into *st. */
void scan_stats_fill(const scan_t *s, const io_counters_t *io, scan_stats *st);
/* (scan_stats.c) Publishes core's io counters (its context's, on the core) for snapshots
 * (scan_get_stats while the scan runs). */
void scan_io_publish(scan_t *s, int core);
/* (scan_stats.c) s's io_opts.on_freed, on the core: the context's final counters replace the
 * core's published ones (a read held past the core's end, by a lend or a kept chunk, counts
 * when its future dies), and on a shared runtime the leave counts the context gone (scan_rt.h
 * invariant 2). finish reads the counters only once every context is freed (the executor
 * stopped, or the leave waited). */
void scan_io_ctx_freed(void *s, const io_counters_t *final);
/* (scan_stats.c) The sum of s's cores' published io counters. */
void scan_io_sum(scan_t *s, io_counters_t *sum);

#endif
