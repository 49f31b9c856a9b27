/* scan/scan_rt.h: a runtime several scans share (a dataset's files): one executor group - its
 * core threads, their io rings (or pread fallbacks) and coroutine stacks - started once, on
 * whose cores every attached scan spawns its workers (scan_opts.rt; on as many cores as it has
 * live splits: scan_rt_cores). Each scan keeps its own plan, fetch, policy, output window and
 * per-core io contexts, so its floors are unchanged (a dataset's scans count in one fetch
 * budget besides: scan_opts.share, fetch_budget.c invariant 6); the cores run the splits of every
 * attached scan at once, so a core whose share of one file is done runs the splits of the
 * others, and a scan's start costs no thread.
 *
 * Invariants:
 *  1. At most scans_max scans are attached at once: the group's inboxes hold scans_max times
 *     a scan's message accounting (fetch.h SCAN_INBOX_CAP), so no scan's posts can fill them.
 *  2. A scan leaving the runtime (scan.c finish) waits until its workers ended, its io
 *     contexts are freed (scan_io_ctx_freed: no read of its files in flight, nothing counted
 *     in its budget) and every message posted to the cores before then ran (the leave's
 *     barrier: no wake of its event is left), so it frees its state while the cores run on.
 *  3. core_rows[c] only grows (relaxed adds at each scan's core end).
 *  4. members lists what joined and has not parted; a member's cancel runs under mu, so it
 *     never runs once scan_rt_part returned, and runs at its join when the runtime was
 *     cancelled before: nothing that joins a cancelled runtime escapes the cancel. */
#ifndef RINGSCAN_SCAN_SCAN_RT_H
#define RINGSCAN_SCAN_SCAN_RT_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "format/column.h"
#include "runtime/exec.h"

/* What a cancel of the runtime reaches (scan_rt_cancel): a scan on it, a dataset's footer
 * readers. */
typedef struct scan_rt_member {
    void (*cancel)(void *arg); /* called under rt->mu from any thread: it never blocks, never
                                  takes rt->mu, and posts to the cores at most */
    void *arg;
    struct scan_rt_member *prev, *next;
    bool joined;
} scan_rt_member;

typedef struct scan_rt {
    exec_group_t *g;
    int threads;
    int scans_max;             /* invariant 1 */
    _Atomic int attached;      /* scans on it now */
    _Atomic unsigned next_core; /* where the next scan of fewer cores starts (scan_rt_cores) */
    pthread_mutex_t mu;        /* with cv: the host's waits (counts, barriers) */
    pthread_cond_t cv;
    _Atomic int64_t core_rows[EXEC_THREADS_MAX]; /* rows each core scanned, every scan's */
    scan_rt_member *members;   /* under mu: invariant 4 */
    atomic_bool cancelled;     /* scan_rt_cancel ran */
} scan_rt;

/* Starts a runtime of threads cores (1..EXEC_THREADS_MAX) on io for up to scans_max (>= 1)
 * scans at once. 0 and *out, or a status with e filled. */
int scan_rt_start(scan_rt **out, int threads, exec_io_backend io, int scans_max, pq_err *e);
/* The cores a scan with live splits to run takes: *n = that many (at least 1, at most every
 * core: a split runs on one core, so more would only set up and leave), from *first on
 * (mod threads), the scans of few splits taking the cores in turn. Thread-safe. */
void scan_rt_cores(scan_rt *rt, int live, int *first, int *n);
/* m joins rt (invariant 4): m->cancel(m->arg) runs now if rt was cancelled, else at its
 * cancel if m has not parted by then. Thread-safe. */
void scan_rt_join(scan_rt *rt, scan_rt_member *m);
/* m leaves rt: no cancel of it runs after this returns. A member that never joined: no-op. */
void scan_rt_part(scan_rt *rt, scan_rt_member *m);
/* Cancels every member of rt and every later one (the host stopped the dataset): from any
 * thread, never blocking on the cores. */
void scan_rt_cancel(scan_rt *rt);
/* Whether scan_rt_cancel ran. */
bool scan_rt_cancelled(scan_rt *rt);
/* Stops the cores and frees rt (no scan attached). rt may be NULL. */
void scan_rt_free(scan_rt *rt);
/* What a scan waits for on leaving the runtime (invariant 2): its io contexts still alive,
 * then a barrier message on every core. Counts under rt->mu. */
typedef struct scan_rt_leave {
    scan_rt *rt;
    int live;                  /* its io contexts not yet freed */
    int left;                  /* cores whose barrier message has not run */
    bool posted;               /* the barrier was posted (the host's only) */
} scan_rt_leave;
/* On a core, before it makes an io context for the scan. */
void scan_rt_leave_ctx_add(scan_rt_leave *l);
/* One of them was freed, on a core (scan_io_ctx_freed, its io_opts.on_freed). */
void scan_rt_leave_ctx_done(void *l);
/* From the host, once the scan's workers ended: whether the scan has left (no io context,
 * the barrier ran on every core), posting the barrier once the contexts are gone. Never
 * blocks. */
bool scan_rt_leave_try(scan_rt_leave *l);
/* From the host, once the workers ended: returns when the scan has left. */
void scan_rt_leave_wait(scan_rt_leave *l);

#endif
