/* scan/scan.c: the driver floor: starting a scan (plan, then the floors above it), the
 * executor threads and the per-core workers that claim splits and run their tasks, the waits
 * for the output window and for a core's end, statistics (a snapshot while the scan runs,
 * final once it ended), stopping. See scan.h for the flow and invariants. */
#include "scan/scan_impl.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bufpool.h"
#include "common/fail.h"
#include "common/status.h"

void scan_opts_default(scan_opts *o)
{
    memset(o, 0, sizeof *o);
    o->policy = SCAN_ADAPTIVE;
    o->threads = 2;
    o->io = EXEC_IO_AUTO;
    o->limit = -1;
    o->use_page_index = true;
    o->use_bloom = true;
    o->split_rows = SCAN_SPLIT_ROWS;
    o->even_cut_min_rows = SCAN_EVEN_CUT_MIN_ROWS;
    o->fetch_budget = SCAN_FETCH_BUDGET;
    o->io_opts = io_opts_default();
    o->io_opts.max_bytes = SCAN_READ_MAX_BYTES;
    o->io_opts.dense_gap_bytes = SCAN_DENSE_GAP_BYTES;
    pq_col_limits_default(&o->col_limits);
}

/* ----------------------------------------------------------------------------- workers */

/* The core's last worker publishes its io counters and frees its io context and readers. */
static void core_done(scan_t *s, int core)
{
    scan_core *c = &s->cores[core];
    scan_fetch_core_done(&s->fetch, core);
    scan_task_core_windows_free(&c->task, s->env.plan->nneed); /* (reads of its io context) */
    if (s->fetch.cores[core].io) {
        scan_io_publish(s, core);
        io_ctx_free(s->fetch.cores[core].io);
        s->fetch.cores[core].io = NULL;
    }
    c->decoded_pages += scan_task_core_free(&c->task, &s->env);
    scan_core_time_end(&c->task.time);
    if (s->o.rt) atomic_fetch_add_explicit(&s->o.rt->core_rows[core], atomic_load_explicit(
                     &c->task.rows_scanned, memory_order_relaxed), memory_order_relaxed);
}

static int core_setup(scan_t *s, int core)
{
    if (s->fetch.cores[core].io) return 0;
    if (s->o.rt) scan_rt_leave_ctx_add(&s->leave); /* io_opts.on_freed takes it back */
    int rc = io_ctx_new(&s->fetch.cores[core].io, exec_current(), &s->o.io_opts);
    if (rc && s->o.rt) scan_rt_leave_ctx_done(&s->leave);
    return rc ? rc : scan_task_core_init(&s->cores[core].task, &s->env, &s->o.col_limits);
}

typedef struct window_wait {
    scan_t *s;
    int64_t place;
    int core;
    const scan_split *sp;
    scan_out_gate *g;
} window_wait;

static bool window_open(void *ctx)
{
    window_wait *w = ctx;
    scan_t *s = w->s;
    return atomic_load(&s->out.stop) || (scan_out_fits(&s->out, w->place) && /* then bytes: */
           !scan_policy_holds(&s->pol, w->core, w->sp) && scan_out_gate_pass(&s->out, w->g));
}

/* Waits until split sp on core, whose place is place (scan.h invariant 1), fits the output
 * window, exploration allows it and it passes its byte gate g (output.h invariant 7), or the
 * scan stops; false when it stopped. */
static bool wait_window(scan_t *s, int core, const scan_split *sp, int64_t place,
                        scan_out_gate *g)
{
    window_wait w = {.s = s, .place = place, .core = core, .sp = sp, .g = g};
    scan_core_time *t = &s->cores[core].task.time;
    scan_core_time_enter(t, SCAN_WAIT_WINDOW);
    exec_event_wait_until(&s->ev, window_open, &w);
    scan_core_time_leave(t, SCAN_WAIT_WINDOW);
    return !atomic_load(&s->out.stop);
}

typedef struct drain_wait {
    scan_t *s;
    int core;
} drain_wait;

static bool drained(void *ctx)
{
    drain_wait *w = ctx;
    scan_t *s = w->s;
    bool stopping = atomic_load(&s->out.stop) || atomic_load(&s->out.limit_hit);
    return scan_fetch_drained(&s->fetch, w->core, stopping);
}

/* Waits (the core's loop keeps serving lends) until the lends the core made are answered and
 * their fallback reads done (no executor may stop, nor this core's io context go, while one
 * is out), and the ones it serves are answered (their reads are the core's to count), and,
 * unless the scan stops early, until no thief holds a unit of the core (its requests stay for
 * the lends; a stopped scan releases units only at the cores' ends, so waiting for holds then
 * could wait on each other). */
static void core_drain(scan_t *s, int core)
{
    drain_wait w = {.s = s, .core = core};
    scan_core_time_enter(&s->cores[core].task.time, SCAN_WAIT_DRAIN);
    exec_event_wait_until(&s->ev, drained, &w);
    scan_core_time_leave(&s->cores[core].task.time, SCAN_WAIT_DRAIN);
}

/* Runs split i of unit (claimed by core) once its place fits the window; false when the scan
 * stopped first. */
static bool run_split(scan_t *s, int core, int i, int unit, scan_budget_ticket *tk)
{
    const scan_split *sp = &s->plan.splits[i];
    /* unordered, a core's run (fetch.c) may lie far past the other core's splits */
    int64_t place = s->o.ordered ? i : atomic_fetch_add(&s->out.tickets, 1);
    scan_out_claimed(&s->out, i); /* the consumer's next split may now be waited for */
    scan_dicts_leader(&s->dicts, i, SCAN_LEADER_CLAIMED); /* its group waits for it */
    double reach[FLT_MAX_PREDS + 1];
    const int *slot_pos = NULL;
    bool weigh = scan_policy_reach(&s->pol, reach, &slot_pos);
    uint64_t in = 0, fetch = 0, reserved = scan_budget_reserve(&s->fetch.budget, sp,
                                    s->plan.nneed, &in, &fetch, weigh ? reach : NULL, slot_pos, tk);
    scan_out_gate g = scan_out_gate_make(&s->out, i, place, scan_plan_split_unc(&s->plan, i),
                                         reserved);
    if (!wait_window(s, core, sp, place, &g)) {
        scan_out_gate_drop(&s->out, &g);
        scan_budget_unreserve(&s->fetch.budget, reserved, in, fetch, false, 0);
        scan_fetch_split_done(&s->fetch, unit);
        return false;
    }
    scan_budget_runs(&s->fetch.budget);
    if (!sp->pruned) scan_policy_split_started(&s->pol, core);
    scan_batch b;
    pq_err e = {.offset = -1};
    bool cut = false;
    scan_core_time *t = &s->cores[core].task.time;
    scan_core_time_enter(t, SCAN_WAIT_TASK);
    int rc = scan_task_run(&s->env, &s->cores[core].task, core, i, unit, &b, &cut, &e);
    scan_core_time_leave(t, SCAN_WAIT_TASK);
    atomic_fetch_add_explicit(&t->splits, 1, memory_order_relaxed);
    if (rc) scan_out_fail(&s->out, rc, &e);
    else if (s->o.batch_fn && b.rows > 0) /* the split's work: its core stays busy (pacing) */
        s->o.batch_fn(s->o.batch_ctx, core, &b);
    if (!sp->pruned) scan_policy_split_done(&s->pol);
    b.held = rc ? 0 : scan_batch_bytes(&b); /* counted in the budget until consumed */
    uint64_t work = s->cores[core].task.last_work; /* what the split held while it ran */
    scan_budget_unreserve(&s->fetch.budget, reserved, in, fetch, rc == 0,
                          work > b.held ? work : b.held);
    scan_fetch_split_done(&s->fetch, unit);
    if (!sp->pruned) scan_io_publish(s, core);
    if (cut) scan_out_cut(&s->out, i, &e); /* (before its push: output.h invariant 6) */
    scan_out_push(&s->out, i, &b, &g);
    scan_budget_released(&s->fetch.budget);
    return true;
}

static void worker(void *arg)
{
    scan_t *s = arg;
    int core = exec_core_index(exec_current());
    scan_core *c = &s->cores[core];
    int rank = c->workers_started++;
    if (rank == 0) scan_core_time_start(&c->task.time);
    bool idle = s->o.rt && !s->fetch.cores[core].io && scan_fetch_exhausted(&s->fetch);
    int rc = idle ? 1 : core_setup(s, core); /* idle: its file left this core nothing */
    scan_budget_ticket tk = {0}; /* an admission until its split reserves (fetch.h) */
    if (rc < 0) scan_out_fail(&s->out, rc, NULL);
    while (rc == 0 && !atomic_load(&s->out.stop) && !atomic_load(&s->out.limit_hit)) {
        scan_core_time_enter(&c->task.time, SCAN_WAIT_CLAIM);
        scan_budget_admit(&s->fetch.budget, &s->ev, rank, &s->out.stop, &s->fetch.cores[core].busy,
                          &tk);
        scan_fetch_pace(&s->fetch, core, &s->out.stop);
        scan_core_time_leave(&c->task.time, SCAN_WAIT_CLAIM);
        if (atomic_load(&s->out.stop)) break;
        int unit = -1;
        int64_t below = s->o.ordered ? scan_out_window_end(&s->out) : INT64_MAX; /* places */
        int i = scan_fetch_claim(&s->fetch, core, below, &unit);
        if (i < 0) scan_out_fail(&s->out, i, NULL);
        if (i < 0 || i >= s->plan.nsplits || !run_split(s, core, i, unit, &tk)) break;
    }
    scan_budget_left(&s->fetch.budget, &s->ev, rank, &tk);
    if (c->workers_live == 1) core_drain(s, core);
    if (--c->workers_live == 0) core_done(s, core);
    scan_out_workers_gone(&s->out, 1);
}

/* exec_group_spawn's failure callback, on the core, before any of its workers has started:
 * the missing workers never run, so the core's count shrinks and the scan fails. */
static void workers_not_spawned(void *arg, int missing, int status)
{
    scan_t *s = arg;
    int core = exec_core_index(exec_current());
    scan_core *c = &s->cores[core];
    assert(missing >= 1 && missing <= c->workers_live && status < 0);
    assert(s->fetch.cores[core].io == NULL); /* no worker of the core has run */
    c->workers_live -= missing;
    pq_err e = {.offset = -1};
    pq_errf(&e, status, -1, "cannot start %d of the scan tasks on core %d: %s", missing, core,
            status_text(status));
    scan_out_fail(&s->out, status, &e);
    scan_out_workers_gone(&s->out, missing);
}

/* ------------------------------------------------------------------------ start / free */

/* On core c: its reads in flight cancelled (scan_cancel); nothing once the core's io context
 * was freed (core_done, on this thread too). */
static void cancel_core_reads(void *p)
{
    scan_core *c = p;
    io_ctx_t *io = c->owner->fetch.cores[c->id].io;
    if (io) io_ctx_cancel_reads(io);
}

/* Under the output's lock, the event not detached yet (scan_out_cancel): its cores run every
 * message posted before they stop (exec.c invariant 3), or before the barrier of its leave
 * from a shared runtime (posted once the event is detached: scan_left, finish), so s
 * outlives them. */
static void post_cancels(void *p)
{
    scan_t *s = p;
    for (int c = 0; s->g && c < s->o.threads; c++)
        (void)exec_post(exec_group_core(s->g, c), cancel_core_reads, &s->cores[c]); /* best effort */
}

void scan_cancel(scan_t *s)
{
    scan_out_cancel(&s->out, post_cancels, s);
}

static void cancel_member(void *s) { scan_cancel(s); } /* the runtime's cancel (scan_rt.h) */

static int start_workers(scan_t *s, pq_err *e)
{
    exec_opts_t eo = exec_opts_default();
    eo.threads = s->o.threads;
    eo.io_backend = s->o.io;
    eo.inbox_cap = SCAN_INBOX_CAP; /* sizes the lends out per core (lend.c) */
    int rc = s->o.rt ? 0 : exec_group_start(&s->g, &eo);
    if (s->o.rt) s->g = s->o.rt->g, atomic_fetch_add(&s->o.rt->attached, 1);
    if (rc) return pq_errf(e, rc, -1, "cannot start %d executor threads: %s", s->o.threads,
                           status_text(rc));
    exec_event_init(&s->ev, s->g);
    scan_fetch_start(&s->fetch, s->g, &s->ev);
    scan_budget_attach(&s->fetch.budget, &s->ev); /* a shared budget's wakes reach it */
    s->pol.ev = s->dicts.ev = s->out.ev = &s->ev;
    scan_out_pool_join(&s->out); /* the other files' releases wake its gate */
    s->member = (scan_rt_member){.cancel = cancel_member, .arg = s};
    if (s->o.rt) scan_rt_join(s->o.rt, &s->member); /* (cancelled: it stops at once) */
    int tasks = s->fetch.budget.tasks, n = s->o.threads, first = 0, t = s->o.threads;
    s->start_ns = exec_now_ns();
    if (s->o.rt) /* as many cores as it has live splits, taking the runtime's next in turn */
        scan_rt_cores(s->o.rt, atomic_load(&s->fetch.live_left), &first, &n);
    atomic_store(&s->out.workers_live, n * tasks);
    for (int j = 0; j < n; j++) s->cores[(first + j) % t].workers_live = tasks;
    for (int j = 0; j < n; j++) { /* one message per core: a failure is reported before any
                                     of its workers ran */
        rc = exec_group_spawn(s->g, (first + j) % t, worker, s, tasks, workers_not_spawned);
        if (rc == 0) continue;
        for (int k = j; k < n; k++) s->cores[(first + k) % t].workers_live = 0;
        scan_out_workers_gone(&s->out, (n - j) * tasks);
        return pq_errf(e, rc, -1, "cannot start the scan tasks of core %d: %s", (first + j) % t,
                       status_text(rc));
    }
    return 0;
}

static bool out_behind(void *out, uint64_t bytes) { return scan_out_behind(out, bytes); }

/* The floors above the plan, bottom up; 0 or -ENOMEM. */
static int parts_init(scan_t *s)
{
    int rc = scan_fetch_init(&s->fetch, &s->plan, &s->o);
    if (rc == 0) rc = scan_policy_init(&s->pol, &s->plan, &s->o, &s->fetch);
    if (rc == 0) rc = scan_dicts_init(&s->dicts, &s->plan);
    if (rc == 0) rc = scan_out_init(&s->out, s->plan.nsplits, &s->o, s->fetch.budget.tasks);
    s->o.io_opts.held_total = s->fetch.budget.hp; /* before any core's io context */
    s->o.io_opts.held_peak = s->fetch.budget.pp;
    if (rc == 0) scan_budget_io_opts(&s->fetch.budget, &s->o.io_opts, s->o.threads);
    s->out.held = s->fetch.budget.hp, s->out.held_peak = s->fetch.budget.pp,
    s->out.limit_bytes = s->fetch.budget.limit; /* (output.h invariants 7 and 9) */
    s->out.pool = s->out.limit_bytes ? s->o.out_pool : NULL;
    s->fetch.budget.behind = out_behind, s->fetch.budget.behind_ctx = &s->out;
    s->env = (scan_task_env){.plan = &s->plan, .fx = &s->fetch, .pol = &s->pol,
                             .dicts = &s->dicts, .cnt = &s->cnt,
                             .stop = &s->out.stop, .enough = &s->out.limit_hit,
                             .topk = s->topk.nkeys ? &s->topk : NULL,
                             .dict_slot = s->dict_slot,
                             .nest_cols = s->o.nest_cols,
                             .limit = s->o.limit, /* (Top-K's is -1 here) */
                             .keys_mark = (s->topk.nkeys && s->o.topk_bounded) ||
                                          s->o.topk_keep_bad, /* (a dataset's merge decides) */
                             .keys_defer = s->o.limit >= 0}; /* (Top-K's is -1 here) */
    s->merge.t = &s->topk;
    return rc;
}

/* The idle decode blocks a scan lets the process keep for reuse between its cores
 * (common/bufpool.h): half its part of the fetch budget, half the default's without one. */
static size_t pool_allow(const scan_opts *o)
{
    int64_t b = o->share ? (int64_t)(o->share->limit / (uint64_t)o->share->split) : o->fetch_budget;
    return (size_t)(b > 0 ? b : SCAN_FETCH_BUDGET) / 2;
}

int scan_start(pqf_t *f, const int *proj, int nproj, flt_expr *filter, const scan_opts *o,
               scan_t **out, pq_err *e)
{
    assert(f && proj && nproj >= 1 && o && out);
    *out = NULL;
    if (o->batch_fn && (o->limit >= 0 || o->nkeys > 0)) { /* scan_opts.batch_fn */
        flt_expr_free(filter);
        return pq_errf(e, -EINVAL, -1, "a batch function on the cores needs a scan without a "
                                       "limit or ORDER BY keys");
    }
    int threads = o->rt ? o->rt->threads : o->threads < 1 ? 1 : o->threads;
    threads = threads > EXEC_THREADS_MAX ? EXEC_THREADS_MAX : threads;
    scan_t *s = fail_calloc(1, sizeof *s + sizeof(scan_core) * (size_t)threads);
    if (!s) {
        flt_expr_free(filter);
        return -ENOMEM;
    }
    bufpool_hold(pool_allow(o)); /* dropped by scan_free */
    s->o = *o;
    s->o.threads = threads;
    s->o.dict_out = NULL; /* the caller's: read once below */
    s->o.io_opts.merge_registered = false; /* only what the policy wants is read */
    if (s->o.rt) { /* its cores; its contexts counted until freed (scan_rt.h invariant 2) */
        assert(atomic_load(&s->o.rt->attached) < s->o.rt->scans_max);
        s->leave.rt = s->o.rt;
    }
    s->o.io_opts.on_freed = scan_io_ctx_freed, s->o.io_opts.on_freed_ctx = s;
    s->filter = filter;
    for (int c = 0; c < threads; c++) {
        pthread_mutex_init(&s->cores[c].snap_mu, NULL);
        s->cores[c].owner = s, s->cores[c].id = c;
    }
    int *all = fail_malloc(sizeof *all * (size_t)(nproj + s->o.nkeys)); /* keys: hidden last */
    int rc = all ? scan_explain_init(&s->explain, s->o.explain) : -ENOMEM;
    if (rc == 0) memcpy(all, proj, sizeof *all * (size_t)nproj);
    if (rc == 0 && s->o.nkeys) {
        rc = scan_topk_init(&s->topk, f, &s->o, nproj, &s->filter, all, &s->explain, e);
        s->o.topk_bounded = o->limit >= 0;
        s->o.limit = -1;       /* every split runs: the merge keeps K */
        s->o.ordered = false;  /* the merge orders */
        if (s->topk.rg_order) s->o.rg_order = s->topk.rg_order, s->o.nrg_order = s->topk.nrg;
    }
    if (rc == 0)
        rc = scan_plan_build(&s->plan, f, all, nproj + s->o.nkeys, s->filter, &s->o, &s->explain, e);
    free(all);
    if (rc == 0) rc = scan_dictout_slots(&s->plan, o->dict_out, s->o.nkeys > 0, &s->dict_slot);
    if (rc == 0) rc = parts_init(s);
    if (rc == 0 && s->pol.order && s->o.explain)
        scan_explain_start_order(&s->explain, s->filter);
    if (rc == 0)
        scan_explain_store(&s->explain, s->plan.f->file, s->fetch.budget.tasks,
                           s->fetch.budget.base, s->fetch.budget.limit, s->fetch.may_run_ahead);
    if (rc == 0) rc = start_workers(s, e);
    if (rc) {
        if (e && e->status == 0) pq_errf(e, rc, -1, "%s", status_text(rc));
        scan_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* The last line of --explain: the order the scan ran in at its end (policy.h invariant 3). */
static void explain_final_order(scan_t *s)
{
    int32_t perm[FLT_ORDER_MAX];
    int reordered = 0, explored = 0;
    int split = scan_policy_used_order(&s->pol, perm, &reordered, &explored);
    scan_explain_final_order(&s->explain, s->pol.order, s->filter, perm, split, reordered, explored);
}

/* Waits for every worker to end, then stops the executor (or leaves the runtime) and fixes
 * the statistics. On a shared runtime, scan_next's end only stops the scan: the waits are
 * scan_free's (scan_left tells when they would not block). */
static void finish(scan_t *s, bool freeing)
{
    if (s->finished) return;
    if (atomic_load(&s->end_ns) == 0) atomic_store(&s->end_ns, exec_now_ns());
    scan_out_stop(&s->out);
    if (s->o.rt && !freeing) return;
    if (s->g) {
        scan_out_wait_workers(&s->out);
        exec_stats_t es;
        exec_group_stats(s->g, 0, &es);
        s->stats.uring = es.uring;
        snprintf(s->stats.io_backend, sizeof s->stats.io_backend, "%s", es.io_backend);
        scan_budget_detach(&s->fetch.budget); /* before the leave's barrier: no wake after */
        scan_out_detach_ev(&s->out);          /* nor a scan_cancel's from another thread */
        if (s->o.rt) /* once nothing of its own is left on the cores (scan_rt.h invariant 2) */
            scan_rt_part(s->o.rt, &s->member), scan_rt_leave_wait(&s->leave),
            atomic_fetch_sub(&s->o.rt->attached, 1);
        else exec_group_stop(s->g), exec_group_destroy(s->g);
        s->g = NULL;
    }
    bool uring = s->stats.uring;
    char backend[sizeof s->stats.io_backend];
    memcpy(backend, s->stats.io_backend, sizeof backend);
    io_counters_t sum;
    scan_io_sum(s, &sum);
    s->finished = true;
    scan_stats_fill(s, &sum, &s->stats);
    s->stats.uring = uring;
    memcpy(s->stats.io_backend, backend, sizeof backend);
    s->stats.rows_out = s->merged ? s->merge.norder : s->out.delivered_rows; /* (Top-K: its rows) */
    atomic_store_explicit(&s->stats_final, true, memory_order_release); /* (scan_get_stats) */
    if (s->pol.order && s->o.explain) explain_final_order(s);
}

void scan_end(scan_t *s)
{
    finish(s, true);
}

bool scan_left(scan_t *s)
{
    if (s->o.rt && s->g && !s->finished) {
        if (atomic_load(&s->out.workers_live) > 0) return false;
        scan_budget_detach(&s->fetch.budget); /* before the leave's barrier: no wake after */
        scan_out_detach_ev(&s->out);          /* nor a scan_cancel's */
        if (!scan_rt_leave_try(&s->leave)) return false;
    }
    finish(s, true); /* it waits for nothing now */
    return true;
}

void scan_lead(scan_t *s)
{
    scan_budget_lead(&s->fetch.budget);
    scan_out_lead(&s->out);
}

/* Top-K: every split's candidates into the merge, then the answer in order. */
static int topk_next(scan_t *s, scan_batch *b, pq_err *e)
{
    int rc = 0;
    while (!s->merged && (rc = scan_out_next(&s->out, b, e)) == 1) {
        rc = scan_topk_add(&s->merge, b);
        if (rc) {
            scan_batch_free(b);
            pq_errf(e, rc, -1, "cannot keep the Top-K rows: %s", status_text(rc));
            scan_out_fail(&s->out, rc, e);
            break;
        }
    }
    if (!s->merged && rc == 0) rc = scan_topk_finish(&s->merge, &s->plan.f->meta, e);
    if (!s->merged) {
        s->merged = true;
        finish(s, false); /* (rows_out: the merge's, written before the counters are final) */
        s->merge_status = rc;
    }
    if (s->merge_status) return s->merge_status; /* e was filled the first time */
    rc = scan_topk_next(&s->merge, b);
    if (rc < 0) pq_errf(e, rc, -1, "cannot build a Top-K batch: %s", status_text(rc));
    return rc;
}

int scan_next(scan_t *s, scan_batch *b, pq_err *e)
{
    if (s->topk.nkeys) return topk_next(s, b, e);
    int rc = scan_out_next(&s->out, b, e);
    if (rc != 1) finish(s, false); /* the end: statistics are final from here on */
    return rc;
}

void scan_free(scan_t *s)
{
    if (!s) return;
    finish(s, true);
    scan_out_free(&s->out);
    scan_topk_merge_free(&s->merge);
    scan_topk_free(&s->topk);
    scan_dicts_free(&s->dicts);
    scan_policy_free(&s->pol);
    scan_fetch_free(&s->fetch);
    scan_plan_free(&s->plan);
    free(s->dict_slot);
    scan_explain_free(&s->explain);
    flt_expr_free(s->filter);
    for (int c = 0; c < s->o.threads; c++) pthread_mutex_destroy(&s->cores[c].snap_mu);
    size_t allow = pool_allow(&s->o);
    free(s);
    bufpool_drop_keep(allow, allow); /* the next scan takes what this one kept */
}
