/* tests for the fetch floor (scan/fetch.c, fetch_unit.c, lend.c), each transition driven
 * directly on a plan and a two-core executor, not through scan_start:
 *
 *  - units: one per row group covering the splits in order; a cut group is one shared unit,
 *    an uncut one unshared; pruned splits are not counted live.
 *  - claim: one core claims every split once, in file order, then gets nsplits; with ahead
 *    (and no limit, unordered) a reservation takes a run of consecutive uncut units and
 *    registers their reads; without, a run is one unit.
 *  - steal: a core without work takes the later half of another core's shared unit (split
 *    steal) or of the unstarted units of its run (steal_run); every split is still claimed once.
 *  - lend: the thief's request is copied from the owner's read (no read call on the thief),
 *    from a run's reads registered at reservation, or from the owner's request made (wanted)
 *    while serving it under ahead; when the owner never made it (lazy) the thief reads it
 *    itself; a lend dropped before its reply is freed on the reply. Lends run on io_uring
 *    (skipped where unavailable) and pread.
 *  - tail steal: under pacing, a core without work takes an owner's last unstarted split of a
 *    cut group while the owner runs one (not when the owner runs none).
 *  - pacing: with fewer live splits left than the cores' tasks could hold, a core's task waits
 *    in scan_fetch_pace while its core runs a split (another core's split does not end the
 *    wait; its own split's end does), and goes at once while the core runs none; busy and
 *    live_left count the claims.
 *  - exploration (the policy floor's hold on the window, which the driver asks per core):
 *    until a split is done, adaptive holds a core's second split but not another core's
 *    first, nor a cut group's leader.
 *  - holds and release: a unit stolen from keeps its requests until the thief's unit ends;
 *    the last split's end releases a unit's requests; wanted, read, undecoded bytes are
 *    counted discarded.
 * The main thread runs each step as a task on a chosen core (exec_group_spawn) and waits for
 * it with a bounded loop; tasks wait only on futures or on the fetch's event, and every event
 * wait also ends when the main thread gives up (g_abort), so no wait is unbounded. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"
#include "scan/fetch_impl.h"
#include "scan/output.h"
#include "scan/policy.h"
#include "test_scan_common.h"

/* ====================================================================== files */

enum { OG_ROWS = 6400, OG_PAGE = 100, OG_SPLIT = 400 };    /* one group, 16 splits */
enum { MG_RG = 2400, MG_ROWS = 2 * MG_RG + 600 };           /* groups of 6, 6 and 1 splits */
enum { RA_RGS = 24, RA_RG_ROWS = 2000 };                     /* uncut groups back to back */

/* key = row (INT64), v = row % 50 (INT32); with page_index, pages of OG_PAGE rows and a page
 * index (row groups can be cut), else the writer's pages and none (a column is one piece). */
static pqf_t *open_file(const char *name, int64_t rows, int64_t rg_rows, bool dictionary,
                        bool page_index)
{
    pq_column_desc sch[2] = {ts_desc("key", PQ_INT64, 0, false, PQ_LOGICAL_NONE),
                             ts_desc("v", PQ_INT32, 0, false, PQ_LOGICAL_NONE)};
    pq_vec v[2];
    for (int i = 0; i < 2; i++) ts_vec_new(&v[i], sch[i].physical, 0, rows, 0);
    for (int64_t r = 0; r < rows; r++) {
        int32_t x = (int32_t)(r % 50);
        ts_put_fixed(&v[0], &r, false);
        ts_put_fixed(&v[1], &x, false);
    }
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = rg_rows;
    if (page_index) wo.page_rows = OG_PAGE;
    wo.page_index = page_index;
    wo.dictionary = dictionary;
    char path[256];
    ts_path(path, sizeof path, name);
    int rc = ts_write(path, sch, 2, v, rows, &wo);
    for (int i = 0; i < 2; i++) pq_vec_free(&v[i]);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    CHECK_EQ_I64(rc, 0);
    if (rc || pqf_open(&f, path, NULL, &e)) return NULL;
    io_file_unkeep(f->file); /* small: its chunks lie in the footer's tail; these tests read */
    return f;
}

static pqf_t *open_keyed(const char *name, int64_t rows, int64_t rg_rows, bool dictionary)
{
    return open_file(name, rows, rg_rows, dictionary, true);
}

/* The run file: uncut groups of two plain columns laid out back to back, one piece each. */
static pqf_t *open_runs(void)
{
    return open_file("ahead.parquet", RA_RGS * RA_RG_ROWS, RA_RG_ROWS, false, false);
}

/* ====================================================================== fixture */

typedef struct fix {
    pqf_t *f;
    scan_opts o;
    scan_explain_buf x;
    flt_expr *filter;
    scan_plan plan;
    scan_fetch fx;
    exec_group_t *g;
    exec_event ev;
    bool started, broken; /* broken: a step timed out; teardown leaks instead of asserting */
} fix;

static scan_budget_ticket tk0; /* a reservation's ticket: none (fetch_budget.c invariant 9) */
static atomic_bool g_abort; /* the main thread gave up on a step: event waits end */

typedef void (*step_fn)(fix *t, void *arg);
typedef struct step {
    fix *t;
    step_fn fn;
    void *arg;
    atomic_bool done;
} step;

static void step_task(void *arg)
{
    step *s = arg;
    s->fn(s->t, s->arg);
    atomic_store(&s->done, true);
}

static void step_not_spawned(void *arg, int missing, int status)
{
    step *s = arg;
    CHECK(missing == 1 && status < 0 && 0); /* never expected */
    atomic_store(&s->done, true);
}

/* Runs fn(t, arg) as one task on core and waits for it (at most ~10 s, then fails the test:
 * the step's record is leaked, since the task may still end later). */
static bool on_core(fix *t, int core, step_fn fn, void *arg)
{
    if (t->broken) return false;
    step *s = calloc(1, sizeof *s);
    if (!s) abort();
    s->t = t, s->fn = fn, s->arg = arg;
    atomic_init(&s->done, false);
    int rc = exec_group_spawn(t->g, core, step_task, s, 1, step_not_spawned);
    CHECK_EQ_I64(rc, 0);
    if (rc) {
        free(s);
        t->broken = true;
        return false;
    }
    for (int i = 0; i < 100000 && !atomic_load(&s->done); i++) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    if (!atomic_load(&s->done)) {
        fprintf(stderr, "  FAIL: a step on core %d did not end\n", core);
        chk_case_failed = 1;
        t->broken = true;
        atomic_store(&g_abort, true);
        exec_event_signal(&t->ev);
        return false;
    }
    free(s);
    return true;
}

typedef struct drain_ctx {
    scan_fetch *fx;
    int core;
} drain_ctx;

static bool drained_or_abort(void *ctx)
{
    drain_ctx *d = ctx;
    return atomic_load(&g_abort) || scan_fetch_drained(d->fx, d->core, false);
}

/* On core: waits (on the fetch's event) until scan_fetch_drained(core, false). */
static void wait_drained(fix *t, int core)
{
    drain_ctx d = {.fx = &t->fx, .core = core};
    exec_event_wait_until(&t->ev, drained_or_abort, &d);
}

static void step_io_new(fix *t, void *arg)
{
    (void)arg;
    int core = exec_core_index(exec_current());
    CHECK_EQ_I64(io_ctx_new(&t->fx.cores[core].io, exec_current(), &t->o.io_opts), 0);
}

/* The core's end as the driver does it (scan.c core_drain, core_done). */
static void step_core_end(fix *t, void *arg)
{
    (void)arg;
    int core = exec_core_index(exec_current());
    wait_drained(t, core);
    scan_fetch_core_done(&t->fx, core);
    if (t->fx.cores[core].io) io_ctx_free(t->fx.cores[core].io);
    t->fx.cores[core].io = NULL;
}

/* Plans f (filter where, may be NULL) with split_rows, starts the fetch floor on a two-core
 * group of backend and an io context per core. false (skipped or failed) leaves t to fix_free. */
static bool fix_open(fix *t, pqf_t *f, const char *where, int64_t split_rows,
                     exec_io_backend backend)
{
    memset(t, 0, sizeof *t);
    atomic_store(&g_abort, false);
    t->f = f;
    scan_opts_default(&t->o);
    t->o.threads = 2;
    t->o.io = backend;
    t->o.split_rows = split_rows;
    t->o.even_cut_min_rows = 1; /* small files: every even cut the cores want */
    t->o.io_opts.merge_registered = false; /* as scan_start: only what is wanted is read */
    pq_err e = {.offset = -1};
    if (where) CHECK_EQ_I64(flt_parse(where, f->meta.columns, f->meta.ncolumns, &t->filter, &e), 0);
    const int proj[] = {0, 1};
    CHECK_EQ_I64(scan_explain_init(&t->x, 0), 0);
    int rc = scan_plan_build(&t->plan, f, proj, 2, t->filter, &t->o, &t->x, &e);
    CHECK_EQ_I64(rc, 0);
    if (rc) return false;
    CHECK_EQ_I64(scan_fetch_init(&t->fx, &t->plan, &t->o), 0);
    exec_opts_t eo = exec_opts_default();
    eo.threads = 2;
    eo.io_backend = backend;
    eo.inbox_cap = SCAN_INBOX_CAP;
    rc = exec_group_start(&t->g, &eo);
    if (rc && backend == EXEC_IO_URING && rc != -ENOMEM) {
        SKIP_URING(strerror(-rc)); /* containers without io_uring */
        return false;
    }
    CHECK_EQ_I64(rc, 0);
    if (rc) return false;
    exec_event_init(&t->ev, t->g);
    scan_fetch_start(&t->fx, t->g, &t->ev);
    t->started = true;
    for (int c = 0; c < 2; c++) on_core(t, c, step_io_new, NULL);
    return !t->broken && !chk_case_failed;
}

/* Ends core 1 then core 0 (the thieves here are core 1: its holds go first), stops the group
 * and frees everything (leaks it instead after a step timed out). */
static void fix_free(fix *t)
{
    if (t->started) {
        on_core(t, 1, step_core_end, NULL);
        on_core(t, 0, step_core_end, NULL);
        exec_group_stop(t->g);
        exec_group_destroy(t->g);
    }
    if (t->broken) return;
    scan_fetch_free(&t->fx);
    scan_plan_free(&t->plan);
    scan_explain_free(&t->x);
    flt_expr_free(t->filter);
}

static const exec_io_backend backends[2] = {EXEC_IO_URING, EXEC_IO_PREAD};

/* ====================================================================== units */

static int span_next_of(const scan_unit *u) { return span_next(atomic_load(&u->span)); }
static int span_end_of(const scan_unit *u) { return span_end(atomic_load(&u->span)); }

/* Groups of 2400, 2400 and 600 rows, splits of 400: the first two are cut into 6 splits each
 * (shared units), the last (less than twice 400 rows) is one split (an unshared unit). */
static void test_units(void)
{
    pqf_t *f = open_keyed("groups.parquet", MG_ROWS, MG_RG, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
        CHECK_EQ_I64(t.plan.nsplits, 13);
        CHECK_EQ_I64(t.fx.nunits, 3);
        CHECK_EQ_I64(atomic_load(&t.fx.units_used), 3);
        const int first[3] = {0, 6, 12}, end[3] = {6, 12, 13}, live[3] = {6, 6, 1};
        const bool shared[3] = {true, true, false};
        for (int u = 0; u < 3; u++) {
            const scan_unit *x = &t.fx.units[u];
            CHECK_EQ_I64(x->first, first[u]);
            CHECK_EQ_I64(span_next_of(x), first[u]);
            CHECK_EQ_I64(span_end_of(x), end[u]);
            CHECK_EQ_I64(x->live, live[u]);
            CHECK_EQ_I64(x->shared, shared[u]);
            CHECK_EQ_I64(atomic_load(&x->owner), -1);
            CHECK_EQ_I64(x->src, -1);
            CHECK_EQ_I64(atomic_load(&x->holds), 0);
            for (int i = first[u]; i < end[u]; i++) CHECK_EQ_I64(t.plan.splits[i].rg, u);
            uint64_t bytes = 0, lo = UINT64_MAX, hi = 0; /* the pieces of its splits */
            for (int i = first[u]; i < end[u]; i++)
                for (int k = 0; k < t.plan.nneed; k++)
                    for (int p = 0; p < t.plan.splits[i].cols[k].npieces; p++) {
                        const scan_piece *pc = &t.plan.splits[i].cols[k].pieces[p];
                        bytes += pc->len; /* dictionaries counted per split */
                        lo = pc->off < lo ? pc->off : lo;
                        hi = pc->off + pc->len > hi ? pc->off + pc->len : hi;
                    }
            CHECK_EQ_I64(x->bytes, bytes);
            CHECK_EQ_I64(x->lo, lo);
            CHECK_EQ_I64(x->hi, hi);
            CHECK(lo < hi && (u < 2 ? bytes > hi - lo : bytes == hi - lo));
        }
        CHECK_EQ_I64(atomic_load(&t.fx.next_unit), 0);
        CHECK_EQ_I64(t.fx.may_run_ahead, true);
    }
    fix_free(&t);
    /* page-index pruning: only the splits holding keys 1000..1499 ([800, 1200), [1200, 1600)
     * of group 0) stay live; groups 1 and 2 are pruned whole by statistics */
    if (fix_open(&t, f, "key >= 1000 AND key < 1500", OG_SPLIT, EXEC_IO_PREAD)) {
        CHECK_EQ_I64(t.fx.nunits, 3);
        CHECK_EQ_I64(t.fx.units[0].first, 0);
        CHECK_EQ_I64(t.fx.units[0].live, 2);
        CHECK_EQ_I64(t.fx.units[0].shared, true);
        int live1 = 0, live2 = 0, split2 = t.fx.units[2].first;
        for (int i = t.fx.units[1].first; i < split2; i++) live1 += !t.plan.splits[i].pruned;
        for (int i = split2; i < t.plan.nsplits; i++) live2 += !t.plan.splits[i].pruned;
        CHECK_EQ_I64(t.fx.units[1].live, 0);
        CHECK_EQ_I64(t.fx.units[2].live, 0);
        CHECK_EQ_I64(live1 + live2, 0);
        CHECK_EQ_I64(t.fx.units[1].shared, false);
        CHECK_EQ_I64(t.fx.units[1].bytes, 0);
        CHECK_EQ_I64(fetch_live_in(&t.fx, 0, t.plan.nsplits), 2);
        CHECK_EQ_I64(t.plan.splits[2].pruned, false);
        CHECK_EQ_I64(t.plan.splits[3].pruned, false);
    }
    fix_free(&t);
    pqf_close(f);
}

/* ====================================================================== claims */

enum { CLAIMS_MAX = 64 };

typedef struct claims {
    int n, split[CLAIMS_MAX], unit[CLAIMS_MAX];
    int max;        /* claims to make at most (0: until none is left) */
    int64_t below;  /* scan_fetch_claim's window end (0: none, INT64_MAX) */
    bool done_each; /* scan_fetch_split_done after each */
    int last;       /* the last return value */
} claims;

/* Claims on the calling core until nsplits (or max claims). */
static void step_claim(fix *t, void *arg)
{
    claims *c = arg;
    int core = exec_core_index(exec_current());
    for (int j = 0; j < CLAIMS_MAX; j++) {
        if (c->max && c->n >= c->max) return;
        int unit = -1;
        c->last = scan_fetch_claim(&t->fx, core, c->below ? c->below : INT64_MAX, &unit);
        if (c->last < 0 || c->last >= t->plan.nsplits) return;
        c->split[c->n] = c->last;
        c->unit[c->n++] = unit;
        if (c->done_each) scan_fetch_split_done(&t->fx, unit);
    }
    CHECK(0); /* more claims than the plan has splits */
}

/* One core claims every split exactly once, in file order, its units in order, then nsplits. */
static void test_claim_order(void)
{
    pqf_t *f = open_keyed("groups.parquet", MG_ROWS, MG_RG, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
        claims c = {.done_each = true};
        on_core(&t, 0, step_claim, &c);
        CHECK_EQ_I64(c.n, 13);
        CHECK_EQ_I64(c.last, 13);
        for (int j = 0; j < c.n; j++) {
            CHECK_EQ_I64(c.split[j], j);
            CHECK_EQ_I64(c.unit[j], j < 6 ? 0 : j < 12 ? 1 : 2);
        }
        for (int u = 0; u < 3; u++) CHECK_EQ_I64(atomic_load(&t.fx.units[u].owner), 0);
        CHECK_EQ_I64(atomic_load(&t.fx.next_unit), 3);
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 0);
        CHECK_EQ_I64(atomic_load(&t.fx.units_used), 3);
        claims again = {0}; /* nothing left: no steal from oneself */
        on_core(&t, 0, step_claim, &again);
        CHECK_EQ_I64(again.n, 0);
        CHECK_EQ_I64(again.last, 13);
    }
    fix_free(&t);
    pqf_close(f);
}

typedef struct run_check {
    int pre_found, pre_wanted, pre_again;
} run_check;

/* On core 0 after its first claim of unit 0: the reads registered at reservation for its one
 * live split, taken once (a second take gets NULL), wanted when the run was read ahead. */
static void step_take_pre(fix *t, void *arg)
{
    run_check *r = arg;
    const scan_split *sp = &t->plan.splits[0];
    for (int k = 0; k < t->plan.nneed; k++)
        for (int q = 0; q < sp->cols[k].npieces; q++) {
            fut_t *p = scan_fetch_take_pre(&t->fx, 0, 0, k, q);
            r->pre_found += p != NULL;
            r->pre_wanted += p && fut_is_wanted(p);
            r->pre_again += scan_fetch_take_pre(&t->fx, 0, 0, k, q) != NULL;
            if (p) fut_unref(p);
        }
}

/* Uncut groups laid out back to back: with ahead (no limit, unordered) the first claim
 * reserves them all as one run (their bytes follow on, far below SCAN_RUN_BYTES) and wants
 * their reads; without, a run is one unit and its reads stay lazy. */
static void test_claim_runs(void)
{
    pqf_t *f = open_runs();
    if (!f) return;
    for (int ahead = 0; ahead < 2; ahead++) {
        fix t;
        if (fix_open(&t, f, NULL, 0, EXEC_IO_PREAD)) {
            CHECK_EQ_I64(t.fx.nunits, RA_RGS);
            for (int u = 0; u < RA_RGS; u++) CHECK_EQ_I64(t.fx.units[u].shared, false);
            scan_fetch_set_ahead(&t.fx, ahead);
            claims c = {.max = 1};
            on_core(&t, 0, step_claim, &c);
            CHECK_EQ_I64(c.n, 1);
            CHECK_EQ_I64(c.split[0], 0);
            CHECK_EQ_I64(c.unit[0], 0);
            int run = ahead ? RA_RGS : 1;
            CHECK_EQ_I64(t.fx.cores[0].run_next, 1);
            CHECK_EQ_I64(t.fx.cores[0].run_end, run);
            CHECK_EQ_I64(atomic_load(&t.fx.next_unit), run);
            for (int u = 0; u < RA_RGS; u++) {
                CHECK_EQ_I64(atomic_load(&t.fx.units[u].owner), u < run ? 0 : -1);
                CHECK_EQ_I64(t.fx.units[u].pre != NULL, u < run);
            }
            run_check r = {0};
            on_core(&t, 0, step_take_pre, &r);
            CHECK_EQ_I64(r.pre_found, 2); /* one chunk a column, no dictionary */
            CHECK_EQ_I64(r.pre_wanted, ahead ? 2 : 0);
            CHECK_EQ_I64(r.pre_again, 0);
            /* the rest of the run, then the next runs, in file order */
            claims rest = {.done_each = true};
            on_core(&t, 0, step_claim, &rest);
            CHECK_EQ_I64(rest.n, RA_RGS - 1);
            for (int j = 0; j < rest.n; j++) CHECK_EQ_I64(rest.split[j], j + 1);
            CHECK_EQ_I64(rest.last, RA_RGS);
        }
        fix_free(&t);
    }
    pqf_close(f);
}

/* A run read ahead takes units past its first only within the budget's room (fetch_budget.c
 * invariant 10), the budget gated here as on a remote store: room for exactly three units'
 * bytes gives a run of three; no room (held at the limit), or read-ahead paused, a run of
 * the first unit alone (before: the whole file, one run, whatever was held). */
static void test_claim_runs_room(void)
{
    pqf_t *f = open_runs();
    if (!f) return;
    for (int room = 0; room < 3; room++) { /* 0: three units', 1: none, 2: paused */
        fix t;
        if (fix_open(&t, f, NULL, 0, EXEC_IO_PREAD)) {
            scan_budget *b = &t.fx.budget;
            uint64_t three = t.fx.units[0].bytes + t.fx.units[1].bytes + t.fx.units[2].bytes;
            CHECK(t.fx.units[3].bytes > 0 && b->base == b->tasks); /* local: nothing gated */
            b->base = 1, b->limit = 1000 * three; /* gated, as a remote scan's */
            uint64_t held = atomic_load(b->hp);
            atomic_store(b->hp, room == 0 ? b->limit - three : b->limit);
            if (room == 2) atomic_store(b->hp, 0), atomic_store(&b->paused, true);
            scan_fetch_set_ahead(&t.fx, true);
            claims c = {.max = 1, .done_each = true};
            on_core(&t, 0, step_claim, &c);
            CHECK_EQ_I64(c.split[0], 0);
            CHECK_EQ_I64(t.fx.cores[0].run_end, (room == 0 ? 3 : 1));
            CHECK_EQ_I64(atomic_load(&t.fx.next_unit), (room == 0 ? 3 : 1));
            atomic_store(b->hp, held), atomic_store(&b->paused, false);
            b->base = b->tasks; /* the rest claimed as before */
            claims rest = {.done_each = true};
            on_core(&t, 0, step_claim, &rest);
            CHECK_EQ_I64(rest.n, RA_RGS - 1);
            for (int j = 0; j < rest.n; j++) CHECK_EQ_I64(rest.split[j], j + 1);
        }
        fix_free(&t);
    }
    pqf_close(f);
}

/* ====================================================================== steals */

static void step_split_done(fix *t, void *arg)
{
    scan_fetch_split_done(&t->fx, *(const int *)arg);
}

/* One group of OG_ROWS rows in 16 splits, one shared unit. Core 0 claims split 0; core 1,
 * with no unit left, steals the later half of the 15 unstarted splits: [8, 16). Then each
 * core claims until none is left: core 0 runs 1..7 and steals [12, 16) from core 1 (7 left),
 * core 1 runs 9..11 (3 left of 0's: fewer than STEAL_MIN_LIVE). */
/* A thief that finds no unit slot left steals nothing: the count of units never passes the
 * array (units_cap; every loop over units_used reads that many slots, and a steal that bumped
 * it past the cap read past the array and failed the scan with -ENOMEM), and the owner runs
 * every split. The cap is shrunk to the planned units to reach that state without a race. */
static void test_steal_no_slot(void)
{
    pqf_t *f = open_keyed("one_group.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
        CHECK_EQ_I64(t.fx.nunits, 1);
        t.fx.units_cap = t.fx.nunits;
        claims a = {.max = 1, .done_each = true}, b = {.done_each = true}, a2 = {.done_each = true};
        on_core(&t, 0, step_claim, &a);
        on_core(&t, 1, step_claim, &b);
        CHECK_EQ_I64(b.n, 0);
        CHECK_EQ_I64(b.last, 16); /* no work, not -ENOMEM */
        CHECK_EQ_I64(atomic_load(&t.fx.units_used), 1);
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 0);
        on_core(&t, 0, step_claim, &a2);
        CHECK_EQ_I64(a2.n, 15);
        for (int j = 0; j < a2.n && j < 15; j++) CHECK_EQ_I64(a2.split[j], j + 1);
    }
    fix_free(&t);
    pqf_close(f);
}

static void test_steal_split(void)
{
    pqf_t *f = open_keyed("one_group.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
        CHECK_EQ_I64(t.plan.nsplits, 16);
        CHECK_EQ_I64(t.fx.nunits, 1);
        claims a = {.max = 1, .done_each = true}, b = {.max = 1, .done_each = true};
        on_core(&t, 0, step_claim, &a);
        on_core(&t, 1, step_claim, &b);
        CHECK_EQ_I64(a.split[0], 0);
        CHECK_EQ_I64(b.split[0], 8);
        CHECK_EQ_I64(b.unit[0], 1);
        const scan_unit *x = &t.fx.units[0], *y = &t.fx.units[1];
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 1);
        CHECK_EQ_I64(atomic_load(&t.fx.units_used), 2);
        CHECK_EQ_I64(y->first, 8);
        CHECK_EQ_I64(y->src, 0);
        CHECK_EQ_I64(y->shared, true);
        CHECK_EQ_I64(y->live, 8);
        CHECK_EQ_I64(atomic_load(&y->owner), 1);
        CHECK_EQ_I64(span_next_of(y), 9);
        CHECK_EQ_I64(span_end_of(y), 16);
        CHECK_EQ_I64(span_next_of(x), 1);
        CHECK_EQ_I64(span_end_of(x), 8); /* the owner's span ends where the thief's begins */
        CHECK_EQ_I64(atomic_load(&x->holds), 1);
        CHECK_EQ_I64(atomic_load(&y->holds), 0);
        claims a2 = {.done_each = true}, b2 = {.done_each = true};
        on_core(&t, 0, step_claim, &a2);
        on_core(&t, 1, step_claim, &b2);
        const int a_exp[] = {1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15}, b_exp[] = {9, 10, 11};
        CHECK_EQ_I64(a2.n, 11);
        CHECK_EQ_I64(b2.n, 3);
        for (int j = 0; j < a2.n && j < 11; j++) {
            CHECK_EQ_I64(a2.split[j], a_exp[j]);
            CHECK_EQ_I64(a2.unit[j], j < 7 ? 0 : 2);
        }
        for (int j = 0; j < b2.n && j < 3; j++) CHECK_EQ_I64(b2.split[j], b_exp[j]);
        CHECK_EQ_I64(a2.last, 16);
        CHECK_EQ_I64(b2.last, 16);
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 2);
        CHECK_EQ_I64(t.fx.units[2].first, 12);
        CHECK_EQ_I64(t.fx.units[2].src, 1);
        CHECK_EQ_I64(span_end_of(y), 12);
        int seen[16] = {0};
        seen[a.split[0]]++, seen[b.split[0]]++;
        for (int j = 0; j < a2.n; j++) seen[a2.split[j]]++;
        for (int j = 0; j < b2.n; j++) seen[b2.split[j]]++;
        for (int i = 0; i < 16; i++) CHECK_EQ_I64(seen[i], 1);
    }
    fix_free(&t);
    pqf_close(f);
}

/* Ordered output's window (fetch.c invariant 8), on groups of 6, 6 and 1 splits: core 1 runs
 * split 0 of unit 0 (not done); core 0 claims unit 1's splits 6 and 7. With the window ending
 * at 8, core 0's next split (8) would wait: it steals the later half of unit 0's unstarted
 * splits 1..5 (3, 4, 5) and sets unit 1 aside; it runs them, then takes unit 1 up again (8..11)
 * and unit 2 (12); core 1, its split done, keeps 1 and 2. Every split is claimed once. A window that fits
 * core 0's next split steals nothing, nor does one the later half would not fit (end 3). */
static void test_steal_window(void)
{
    pqf_t *f = open_keyed("groups.parquet", MG_ROWS, MG_RG, true);
    if (!f) return;
    const int64_t ends[3] = {8, 9, 3};
    for (int w = 0; w < 3; w++) {
        fix t;
        if (!fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
            fix_free(&t);
            break;
        }
        claims b = {.max = 1}, a = {.max = 2, .done_each = true};
        on_core(&t, 1, step_claim, &b);
        on_core(&t, 0, step_claim, &a);
        CHECK_EQ_I64(b.split[0], 0);
        CHECK_EQ_I64(a.split[0], 6);
        CHECK_EQ_I64(a.split[1], 7);
        claims a1 = {.max = 1, .done_each = true, .below = ends[w]};
        on_core(&t, 0, step_claim, &a1);
        if (w > 0) { /* 8 fits a window ending at 9; 3..5 do not fit one ending at 3 */
            CHECK_EQ_I64(a1.split[0], 8);
            CHECK_EQ_I64(atomic_load(&t.fx.steals), 0);
            CHECK_EQ_I64(t.fx.cores[0].aside, -1);
            on_core(&t, 1, step_split_done, &b.unit[0]);
            fix_free(&t);
            continue;
        }
        CHECK_EQ_I64(a1.split[0], 3);
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 1);
        CHECK_EQ_I64(t.fx.cores[0].aside, 1);
        const scan_unit *x = &t.fx.units[0], *y = &t.fx.units[a1.unit[0]];
        CHECK_EQ_I64(y->src, 0);
        CHECK_EQ_I64(y->first, 3);
        CHECK_EQ_I64(span_end_of(x), 3);
        CHECK_EQ_I64(atomic_load(&x->holds), 1);
        claims a2 = {.done_each = true}, b2 = {.done_each = true};
        on_core(&t, 1, step_split_done, &b.unit[0]); /* core 1 idle: no tail steal of 1, 2 */
        on_core(&t, 0, step_claim, &a2);
        on_core(&t, 1, step_claim, &b2);
        const int a_exp[] = {4, 5, 8, 9, 10, 11, 12}, b_exp[] = {1, 2};
        CHECK_EQ_I64(a2.n, 7);
        for (int j = 0; j < a2.n && j < 7; j++) CHECK_EQ_I64(a2.split[j], a_exp[j]);
        CHECK_EQ_I64(b2.n, 2);
        for (int j = 0; j < b2.n && j < 2; j++) CHECK_EQ_I64(b2.split[j], b_exp[j]);
        CHECK_EQ_I64(t.fx.cores[0].aside, -1);
        int seen[13] = {0};
        seen[b.split[0]]++, seen[a.split[0]]++, seen[a.split[1]]++, seen[a1.split[0]]++;
        for (int j = 0; j < a2.n && j < 7; j++) seen[a2.split[j]]++;
        for (int j = 0; j < b2.n && j < 2; j++) seen[b2.split[j]]++;
        for (int i = 0; i < 13; i++) CHECK_EQ_I64(seen[i], 1);
        CHECK_EQ_I64(atomic_load(&t.fx.live_left), 0);
        fix_free(&t);
    }
    pqf_close(f);
}

/* One group of two splits (one shared unit; one kept group: paced from the start). Core 0
 * claims split 0 and runs it; core 1, idle, takes split 1, the one unstarted split (fewer than
 * STEAL_MIN_LIVE, but the owner is busy: fetch.c invariant 7), as a unit of its own lent from
 * unit 0. When core 0's split is done before core 1 asks, core 1 takes nothing and core 0
 * runs split 1 itself. */
static void test_steal_tail(void)
{
    pqf_t *f = open_keyed("tail.parquet", 2 * OG_SPLIT, 2 * OG_SPLIT, true);
    if (!f) return;
    for (int busy = 1; busy >= 0; busy--) {
        fix t;
        if (!fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
            fix_free(&t);
            break;
        }
        CHECK_EQ_I64(t.plan.nsplits, 2);
        CHECK_EQ_I64(t.fx.nunits, 1);
        CHECK(t.fx.pace_all);
        claims a = {.max = 1, .done_each = !busy}, b = {.max = 1};
        on_core(&t, 0, step_claim, &a);
        CHECK_EQ_I64(a.split[0], 0);
        CHECK_EQ_I64(atomic_load(&t.fx.cores[0].busy), busy);
        on_core(&t, 1, step_claim, &b);
        if (busy) {
            CHECK_EQ_I64(b.n, 1);
            CHECK_EQ_I64(b.split[0], 1);
            CHECK_EQ_I64(b.unit[0], 1);
            CHECK_EQ_I64(atomic_load(&t.fx.steals), 1);
            CHECK_EQ_I64(t.fx.units[1].src, 0);
            CHECK_EQ_I64(t.fx.units[1].live, 1);
            CHECK_EQ_I64(span_end_of(&t.fx.units[0]), 1);
            on_core(&t, 1, step_split_done, &b.unit[0]);
            on_core(&t, 0, step_split_done, &a.unit[0]);
        } else {
            CHECK_EQ_I64(b.n, 0);
            CHECK_EQ_I64(b.last, 2);
            CHECK_EQ_I64(atomic_load(&t.fx.steals), 0);
            claims c = {.done_each = true};
            on_core(&t, 0, step_claim, &c);
            CHECK_EQ_I64(c.n, 1);
            CHECK_EQ_I64(c.split[0], 1);
        }
        CHECK_EQ_I64(atomic_load(&t.fx.live_left), 0);
        fix_free(&t);
    }
    pqf_close(f);
}

/* The prune shape in small: of three 40,000-row groups without offset indexes, the filter
 * keeps the first. The plan cuts it evenly for the cores (plan.c cut_even: three splits, the
 * dictionary page a piece of its own, the data pages one whole-chunk piece each walks from
 * -row_lo); core 0 claims split 0 and core 1, once past the pruned groups and idle while
 * core 0 runs it, takes the last unstarted split (a steal: its columns lent by core 0, no
 * read added): the kept group runs on both cores. */
static void test_cut_unindexed_cores(void)
{
    enum { CU_RG = 40000 };
    pqf_t *f = open_file("cut_unindexed.parquet", 3 * CU_RG, CU_RG, true, false);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, "key < 40000", SCAN_SPLIT_ROWS, EXEC_IO_PREAD)) {
        CHECK_EQ_I64(t.plan.nsplits, 5); /* 3 of the kept group, 2 pruned groups */
        CHECK(t.fx.pace_all);
        for (int i = 0; i < 3; i++) {
            const scan_split *sp = &t.plan.splits[i];
            CHECK_EQ_I64(sp->row_lo, i * (int64_t)CU_RG / 3);
            CHECK(sp->shares_rg && sp->leader == (i == 0));
            const pq_chunk_meta *cm = &f->meta.row_groups[0].chunks[1];
            const scan_colplan *cp = &sp->cols[1]; /* v: 50 values, a dictionary */
            CHECK(cm->has_dictionary_page_offset);
            CHECK_EQ_I64(cp->npieces, 2);
            CHECK(cp->pieces[0].dict && cp->pieces[1].whole_chunk);
            CHECK_EQ_I64((int64_t)cp->pieces[0].off, cm->dictionary_page_offset);
            CHECK_EQ_I64((int64_t)cp->pieces[1].off, cm->data_page_offset);
            CHECK_EQ_I64(cp->pieces[1].first_row, -sp->row_lo);
        }
        claims a = {.max = 1}, b = {.max = 3, .done_each = true};
        on_core(&t, 0, step_claim, &a);
        CHECK_EQ_I64(a.split[0], 0);
        on_core(&t, 1, step_claim, &b); /* the pruned groups' splits first, then the steal */
        CHECK_EQ_I64(b.n, 3);
        CHECK_EQ_I64(b.split[0], 3);
        CHECK_EQ_I64(b.split[1], 4);
        CHECK_EQ_I64(b.split[2], 2);
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 1);
        CHECK_EQ_I64(atomic_load(&t.fx.cores[0].busy), 1);
        on_core(&t, 0, step_split_done, &a.unit[0]);
        claims rest = {.done_each = true};
        on_core(&t, 0, step_claim, &rest);
        CHECK_EQ_I64(rest.n, 1);
        CHECK_EQ_I64(rest.split[0], 1);
        CHECK_EQ_I64(atomic_load(&t.fx.live_left), 0);
    }
    fix_free(&t);
    pqf_close(f);
}

/* ====================================================================== exploration */

/* One group cut into 16 splits (split 0 its leader), filter "v < 10", adaptive: core 0's
 * first split is not held; once it started, core 0's next is held while core 1's first is
 * not (the hold is per core: issue 26, two splits on the first core while the other idled);
 * a leader is never held; the first split done ends every hold. */
static void test_explore_per_core(void)
{
    pqf_t *f = open_keyed("explore.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, "v < 10", OG_SPLIT, EXEC_IO_PREAD)) {
        CHECK_EQ_I64(t.plan.nsplits, 16);
        scan_policy_state pol;
        t.o.policy = SCAN_ADAPTIVE;
        CHECK_EQ_I64(scan_policy_init(&pol, &t.plan, &t.o, &t.fx), 0);
        const scan_split *lead = &t.plan.splits[0], *sp = &t.plan.splits[1];
        CHECK(lead->leader && lead->shares_rg && !sp->leader);
        CHECK(!scan_policy_holds(&pol, 0, sp));
        CHECK(!scan_policy_holds(&pol, 1, sp));
        scan_policy_split_started(&pol, 0);
        CHECK(scan_policy_holds(&pol, 0, sp));
        CHECK(!scan_policy_holds(&pol, 0, lead));
        CHECK(!scan_policy_holds(&pol, 1, sp));
        CHECK(!scan_policy_exploring(&pol)); /* one started of two cores */
        scan_policy_split_started(&pol, 1);
        CHECK(scan_policy_holds(&pol, 1, sp));
        CHECK(scan_policy_exploring(&pol));
        CHECK_EQ_I64(atomic_load(&pol.core_started[0]), 1);
        CHECK_EQ_I64(atomic_load(&pol.core_started[1]), 1);
        scan_policy_split_done(&pol);
        CHECK(!scan_policy_holds(&pol, 0, sp));
        CHECK(!scan_policy_holds(&pol, 1, sp));
        CHECK(!scan_policy_exploring(&pol));
        scan_policy_free(&pol);
    }
    fix_free(&t);
    pqf_close(f);
}

/* Speculation per chain step on a remote store (policy.c start_end, step_end), on pol over
 * "v < 10 AND key >= 0" with no conjunct noted yet: the first conjunct kills 94 of 100 splits,
 * the second none. The second's small column (0.1 MB: 0.94 x 0.1 MB / 100 MB/s < 0.06 x
 * 50 ms) would be speculated at the start, the projection (10 MB) not; but a survivor's step
 * from the second conjunct fetches the projection anyway (its input is alive: under the 10%
 * rule), so the first step is the first conjunct alone and the step from position 1 takes
 * the second conjunct with the projection. Locally (no cost model) there are no later steps. */
static void check_speculation_steps(fix *t, scan_policy_state *pol)
{
    int sv = t->plan.pred_slot[0], sk = t->plan.pred_slot[1];
    CHECK(sv != sk && t->plan.nneed == 2 && pol->cost == NULL);
    int32_t perm[2] = {0, 1};
    bool wanted[2];
    CHECK(!scan_policy_wanted_from(pol, perm, 1, wanted)); /* local */
    for (int i = 0; i < 100; i++) scan_policy_note(pol, 0, i < 94);
    for (int i = 0; i < 6; i++) scan_policy_note(pol, 1, false);
    io_cost c;
    io_cost_seed(&c, 50 * 1000 * 1000, 100 * 1000 * 1000, 64);
    double bytes[3] = {1e6, 1e5, 1e7}; /* v's, key's, the projection's */
    pol->cost = &c; /* as on a remote store (policy.c sets both from the file's backend) */
    pol->pos_bytes = bytes;
    scan_policy_wanted(pol, perm, wanted);
    CHECK(wanted[sv] && !wanted[sk]);
    memset(wanted, 0, sizeof wanted);
    CHECK(scan_policy_wanted_from(pol, perm, 1, wanted));
    CHECK(wanted[sk] && wanted[sv]); /* key, and the projection's key and v */
    bytes[2] = 1e5; /* a small projection: the whole chain at the start */
    scan_policy_wanted(pol, perm, wanted);
    CHECK(wanted[sv] && wanted[sk]);
    CHECK(scan_policy_wants_all(pol));
    pol->cost = NULL;
    pol->pos_bytes = NULL;
}

/* Two conjuncts, only the first measured (the second, never reached, ranks -1 in order.h):
 * locally the unmeasured one goes first so the next split measures it; on a remote store
 * (a cost model) it stays behind the measured one, since every split started at once would
 * pay a round trip for it; once measured, the ranks decide as locally. Then the speculation
 * per chain step on the same state (check_speculation_steps). */
static void test_order_remote_measured_first(void)
{
    pqf_t *f = open_keyed("explore.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, "v < 10 AND key >= 0", OG_SPLIT, EXEC_IO_PREAD)) {
        scan_policy_state pol;
        t.o.policy = SCAN_ADAPTIVE;
        CHECK_EQ_I64(scan_policy_init(&pol, &t.plan, &t.o, &t.fx), 0);
        CHECK(pol.order != NULL && pol.cost == NULL);
        scan_policy_measure(&pol, 0, 400, 80, 4000, 1600);
        scan_policy_split_done(&pol); /* ranked from here */
        int32_t perm[2];
        scan_policy_order(&pol, 0, perm);
        CHECK(perm[0] == 1 && perm[1] == 0); /* local: the unmeasured one first */
        io_cost c;
        io_cost_seed(&c, 50 * 1000 * 1000, 100 * 1000 * 1000, 64);
        pol.cost = &c; /* as on a remote store (policy.c sets it from the file's backend) */
        scan_policy_order(&pol, 0, perm);
        CHECK(perm[0] == 0 && perm[1] == 1);
        scan_policy_measure(&pol, 1, 80, 0, 10, 1); /* measured, cheaper and more selective */
        scan_policy_order(&pol, 1, perm);
        CHECK(perm[0] == 1 && perm[1] == 0);
        pol.cost = NULL;
        check_speculation_steps(&t, &pol); /* no conjunct noted so far */
        scan_policy_free(&pol);
    }
    fix_free(&t);
    pqf_close(f);
}

/* ====================================================================== pacing */

typedef struct pace_ctx {
    _Atomic int stop;
    atomic_bool done;
} pace_ctx;

static void pace_task(void *arg)
{
    step *s = arg;
    pace_ctx *p = s->arg;
    scan_fetch_pace(&s->t->fx, exec_core_index(exec_current()), &p->stop);
    atomic_store(&p->done, true);
    atomic_store(&s->done, true);
}

/* Waits (bounded, ~10 s) until *flag; its value. */
static bool wait_flag(atomic_bool *flag)
{
    for (int i = 0; i < 100000 && !atomic_load(flag); i++) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    return atomic_load(flag);
}

static void step_pace(fix *t, void *arg)
{
    scan_fetch_pace(&t->fx, exec_core_index(exec_current()), &((pace_ctx *)arg)->stop);
}

/* Five uncut groups (five live splits, fewer than the 2 x SCAN_TASKS_PER_CORE tasks could
 * hold). Core 0 claims split 0: a second task of core 0 waits to claim, while core 1 (which
 * runs nothing) passes at once and claims split 1; core 1's split ending does not end core
 * 0's wait, core 0's own does. The counts: busy per core, live splits left. */
static void test_pace(void)
{
    pqf_t *f = open_file("pace.parquet", 5 * RA_RG_ROWS, RA_RG_ROWS, false, false);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, 0, EXEC_IO_PREAD)) {
        CHECK_EQ_I64(t.plan.nsplits, 5);
        CHECK(t.fx.pace);
        CHECK_EQ_I64(atomic_load(&t.fx.live_left), 5);
        claims a = {.max = 1}, b = {.max = 1};
        on_core(&t, 0, step_claim, &a);
        CHECK_EQ_I64(a.split[0], 0);
        CHECK_EQ_I64(atomic_load(&t.fx.cores[0].busy), 1);
        CHECK_EQ_I64(atomic_load(&t.fx.live_left), 4);
        pace_ctx p0 = {0}, p1 = {0};
        step *s = calloc(1, sizeof *s);
        if (!s) abort();
        s->t = &t, s->arg = &p0;
        CHECK_EQ_I64(exec_group_spawn(t.g, 0, pace_task, s, 1, step_not_spawned), 0);
        on_core(&t, 1, step_pace, &p1); /* core 1 runs nothing: no wait */
        on_core(&t, 1, step_claim, &b);
        CHECK_EQ_I64(b.split[0], 1);
        CHECK_EQ_I64(atomic_load(&t.fx.cores[1].busy), 1);
        CHECK_EQ_I64(atomic_load(&t.fx.live_left), 3);
        on_core(&t, 1, step_split_done, &b.unit[0]);
        CHECK_EQ_I64(atomic_load(&t.fx.cores[1].busy), 0);
        CHECK(!atomic_load(&p0.done)); /* core 0 still runs split 0 */
        on_core(&t, 0, step_split_done, &a.unit[0]);
        CHECK_EQ_I64(atomic_load(&t.fx.cores[0].busy), 0);
        CHECK(wait_flag(&p0.done));
        if (atomic_load(&s->done)) free(s); /* else leaked: the task may still end */
        claims rest = {.done_each = true};
        on_core(&t, 0, step_claim, &rest);
        CHECK_EQ_I64(rest.n, 3);
        CHECK_EQ_I64(atomic_load(&t.fx.live_left), 0);
        CHECK_EQ_I64(atomic_load(&t.fx.cores[0].busy), 0);
    }
    fix_free(&t);
    pqf_close(f);
}

/* Core 0 reserves the whole file as one run (ahead) and starts unit 0; core 1, with nothing
 * left, steals the later half of the 23 unstarted units (12..23), which become its run
 * (units 24..35 in file order); every split is still claimed once. */
static void test_steal_run(void)
{
    pqf_t *f = open_runs();
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, 0, EXEC_IO_PREAD)) {
        scan_fetch_set_ahead(&t.fx, true);
        claims a = {.max = 1, .done_each = true}, b = {.max = 1}; /* 12 stays running */
        on_core(&t, 0, step_claim, &a);
        CHECK_EQ_I64(t.fx.cores[0].run_end, RA_RGS);
        on_core(&t, 1, step_claim, &b);
        CHECK_EQ_I64(a.split[0], 0);
        CHECK_EQ_I64(b.split[0], 12);
        CHECK_EQ_I64(b.unit[0], RA_RGS);
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 12);
        CHECK_EQ_I64(atomic_load(&t.fx.units_used), RA_RGS + 12);
        CHECK_EQ_I64(t.fx.cores[1].run_next, RA_RGS + 1);
        CHECK_EQ_I64(t.fx.cores[1].run_end, RA_RGS + 12);
        CHECK_EQ_I64(t.fx.cores[0].run_end, RA_RGS); /* its run keeps its end: emptied units */
        for (int j = 0; j < 12; j++) {
            const scan_unit *y = &t.fx.units[RA_RGS + j], *x = &t.fx.units[12 + j];
            CHECK_EQ_I64(y->first, 12 + j);
            CHECK_EQ_I64(y->src, 12 + j);
            CHECK_EQ_I64(y->shared, true);
            CHECK_EQ_I64(atomic_load(&y->owner), 1);
            CHECK_EQ_I64(atomic_load(&x->owner), 0);
            CHECK_EQ_I64(span_next_of(x), span_end_of(x)); /* emptied */
            CHECK_EQ_I64(atomic_load(&x->holds), 1);
        }
        for (int u = 1; u < 12; u++) CHECK_EQ_I64(atomic_load(&t.fx.units[u].holds), 0);
        on_core(&t, 1, step_split_done, &(int){RA_RGS});
        claims a2 = {.done_each = true}, b2 = {.done_each = true};
        on_core(&t, 0, step_claim, &a2);
        on_core(&t, 1, step_claim, &b2);
        CHECK_EQ_I64(a2.n, 11);
        CHECK_EQ_I64(b2.n, 11);
        for (int j = 0; j < a2.n && j < 11; j++) CHECK_EQ_I64(a2.split[j], 1 + j);
        for (int j = 0; j < b2.n && j < 11; j++) {
            CHECK_EQ_I64(b2.split[j], 13 + j);
            CHECK_EQ_I64(b2.unit[j], RA_RGS + 1 + j);
        }
        CHECK_EQ_I64(a2.last, RA_RGS);
        CHECK_EQ_I64(b2.last, RA_RGS);
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 12);
    }
    fix_free(&t);
    pqf_close(f);
}

/* ====================================================================== lends */

typedef struct probe {
    bool drained, drained_stopping;
    int holds, requests, wanted, used; /* of unit 0 */
} probe;

/* On core 0 (a unit's requests are its owner's alone: read them there). */

static void step_probe(fix *t, void *arg)
{
    probe *p = arg;
    p->drained = scan_fetch_drained(&t->fx, 0, false);
    p->drained_stopping = scan_fetch_drained(&t->fx, 0, true);
    p->holds = atomic_load(&t->fx.units[0].holds);
    p->requests = 0;
    p->wanted = p->used = 0;
    for (int k = 0; k < t->plan.nneed; k++) {
        fut_t *f = t->fx.units[0].f[k];
        p->requests += f != NULL;
        p->wanted += f && fut_is_wanted(f);
        p->used += t->fx.units[0].used[k];
    }
}


/* Requests of one unit's slots made on the calling core, awaited, their bytes checked
 * against a direct (synchronous) read of the unit's range; the core's read calls around. */
typedef struct req {
    int unit;
    bool await;               /* want and await them (else only make them) */
    int ok;                   /* slots whose bytes matched */
    uint64_t reads_before, reads_after;
} req;

static uint64_t core_reads(fix *t)
{
    io_counters_t c;
    io_ctx_counters(t->fx.cores[exec_core_index(exec_current())].io, &c);
    return c.reads_submitted;
}

/* Whether resolved future f holds exactly bytes [off, +len) of the file. */
static bool bytes_match(fix *t, fut_t *f, uint64_t off, uint64_t len)
{
    if (fut_status(f) != 0 || len == 0) return false;
    const io_bytes *b = fut_value(f);
    uint8_t *want = malloc(len);
    bool ok = want && b->len == len &&
              io_read_sync(t->plan.f->file, off, want, len, NULL, 0) == 0 &&
              memcmp(want, b->data, len) == 0;
    free(want);
    return ok;
}

static void step_requests(fix *t, void *arg)
{
    req *r = arg;
    int core = exec_core_index(exec_current());
    r->reads_before = core_reads(t);
    for (int k = 0; k < t->plan.nneed; k++) {
        fut_t *f = scan_fetch_unit_fut(&t->fx, core, r->unit, k);
        CHECK(f != NULL);
        if (!f) continue;
        CHECK(scan_fetch_is_unit_fut(&t->fx, r->unit, k, f));
        if (!r->await) continue;
        fut_t *held = fut_ref(f);
        CHECK_EQ_I64(fut_await(held), 0);
        const scan_unit *u = &t->fx.units[r->unit];
        r->ok += bytes_match(t, held, u->off[k], u->len[k]);
        fut_unref(held);
    }
    r->reads_after = core_reads(t);
}

/* Claims split 0 on core 0 and steals [8, 16) on core 1 (test_steal_split); own: core 0 made
 * and awaited its unit's requests first. */
static void claim_and_steal(fix *t, req *own)
{
    claims a = {.max = 1}, b = {.max = 1};
    on_core(t, 0, step_claim, &a);
    if (own) on_core(t, 0, step_requests, own);
    on_core(t, 1, step_claim, &b);
    CHECK_EQ_I64(a.split[0], 0);
    CHECK_EQ_I64(b.split[0], 8);
    CHECK_EQ_I64(b.unit[0], 1);
}

/* The owner made and awaited its requests (covering splits [0, 16): made before the steal):
 * the thief's requests of [8, 16) are lent from them, no read call on the thief. */
static void test_lend_from_owner(void)
{
    pqf_t *f = open_keyed("one_group.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    for (int be = 0; be < 2; be++) {
        fix t;
        if (fix_open(&t, f, NULL, OG_SPLIT, backends[be])) {
            int nneed = t.plan.nneed;
            CHECK_EQ_I64(nneed, 2);
            req own = {.unit = 0, .await = true};
            claim_and_steal(&t, &own);
            CHECK_EQ_I64(own.ok, nneed);
            CHECK_EQ_I64(own.reads_after - own.reads_before, nneed);
            CHECK_EQ_I64(atomic_load(&t.fx.lends), 0);
            req thief = {.unit = 1, .await = true};
            on_core(&t, 1, step_requests, &thief);
            CHECK_EQ_I64(thief.ok, nneed);
            CHECK_EQ_I64(thief.reads_after - thief.reads_before, 0);
            CHECK_EQ_I64(atomic_load(&t.fx.lends), nneed);
            for (int k = 0; k < nneed; k++) {
                const scan_unit *x = &t.fx.units[0], *y = &t.fx.units[1];
                CHECK(y->off[k] >= x->off[k] && y->off[k] + y->len[k] <= x->off[k] + x->len[k]);
                CHECK(y->len[k] > 0 && y->len[k] < x->len[k]);
            }
            probe p;
            on_core(&t, 0, step_probe, &p);
            CHECK_EQ_I64(p.used, nneed); /* lent: the owner's bytes were used */
        }
        fix_free(&t);
    }
    pqf_close(f);
}

/* The owner never made its requests (lazy: ahead false): nothing to lend from, so the thief
 * reads its range itself, one read call a slot, with the same bytes; nothing counts lent. */
static void test_lend_fallback(void)
{
    pqf_t *f = open_keyed("one_group.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    for (int be = 0; be < 2; be++) {
        fix t;
        if (fix_open(&t, f, NULL, OG_SPLIT, backends[be])) {
            claim_and_steal(&t, NULL);
            req thief = {.unit = 1, .await = true};
            on_core(&t, 1, step_requests, &thief);
            CHECK_EQ_I64(thief.ok, t.plan.nneed);
            CHECK_EQ_I64(thief.reads_after - thief.reads_before, t.plan.nneed);
            CHECK_EQ_I64(atomic_load(&t.fx.lends), 0);
            for (int k = 0; k < t.plan.nneed; k++) CHECK(t.fx.units[0].f[k] == NULL);
        }
        fix_free(&t);
    }
    pqf_close(f);
}

/* A unit stolen whole from a run before it started: its columns are lent from the reads its
 * reservation registered (lend.c serve_pre), so the thief makes no read call. */
static void test_lend_from_run(void)
{
    pqf_t *f = open_runs();
    if (!f) return;
    for (int be = 0; be < 2; be++) {
        fix t;
        if (fix_open(&t, f, NULL, 0, backends[be])) {
            scan_fetch_set_ahead(&t.fx, true);
            claims a = {.max = 1}, b = {.max = 1};
            on_core(&t, 0, step_claim, &a);
            on_core(&t, 1, step_claim, &b);
            CHECK_EQ_I64(b.split[0], 12);
            CHECK_EQ_I64(b.unit[0], RA_RGS);
            req thief = {.unit = RA_RGS, .await = true};
            on_core(&t, 1, step_requests, &thief);
            CHECK_EQ_I64(thief.ok, t.plan.nneed);
            CHECK_EQ_I64(thief.reads_after - thief.reads_before, 0);
            CHECK_EQ_I64(atomic_load(&t.fx.lends), t.plan.nneed);
            for (int k = 0; k < t.plan.nneed; k++)
                CHECK(t.fx.units[12].pre[k][0] == NULL); /* taken by the lend */
        }
        fix_free(&t);
    }
    pqf_close(f);
}

typedef struct drop {
    uint64_t off, len;
    int lends_out_before_reply;
} drop;

/* On core 1: a lend of slot 0 from unit 0, wanted (posted), then dropped before its reply
 * can arrive (the reply runs on this core, after this task returns); waits for the reply. */
static void step_drop_lend(fix *t, void *arg)
{
    drop *d = arg;
    fut_t *p = scan_fetch_lend(&t->fx, 1, 0, 0, d->off, d->len);
    CHECK(p != NULL);
    if (!p) return;
    fut_want(p);
    d->lends_out_before_reply = t->fx.cores[1].lends_out;
    fut_unref(p);
    wait_drained(t, 1);
}

/* A lend the thief drops before the owner's reply is freed when the reply arrives (ASan:
 * nothing leaks or is touched after free); it counts neither lent nor discarded. */
static void test_lend_dropped(void)
{
    pqf_t *f = open_keyed("one_group.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
        req own = {.unit = 0, .await = true};
        claim_and_steal(&t, &own);
        drop d = {.off = t.fx.units[0].off[0], .len = t.fx.units[0].len[0] / 2};
        on_core(&t, 1, step_drop_lend, &d);
        CHECK_EQ_I64(d.lends_out_before_reply, 1);
        CHECK_EQ_I64(t.fx.cores[1].lends_out, 0);
        CHECK_EQ_I64(atomic_load(&t.fx.lends), 0);
        CHECK_EQ_I64(atomic_load(&t.fx.bytes_discarded), 0);
    }
    fix_free(&t);
    pqf_close(f);
}

/* ====================================================================== holds, release */

static void step_wait_drained0(fix *t, void *arg)
{
    (void)arg;
    wait_drained(t, 0);
}

/* The owner runs all its splits of the unit stolen from while the thief's unit still runs:
 * its requests stay (the thief may still ask for lends), and core 0 is not drained; once
 * the thief's last split ends (its requests released), its hold goes back and the owner's
 * requests are released. */
static void test_holds(void)
{
    pqf_t *f = open_keyed("one_group.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
        int nneed = t.plan.nneed;
        req own = {.unit = 0, .await = true};
        claim_and_steal(&t, &own);
        req thief = {.unit = 1, .await = true};
        on_core(&t, 1, step_requests, &thief);
        /* core 0: ends split 0, runs 1..7 (its span is now empty) */
        claims a = {.max = 7, .done_each = true};
        on_core(&t, 0, step_split_done, &(int){0});
        on_core(&t, 0, step_claim, &a);
        CHECK_EQ_I64(a.n, 7);
        CHECK_EQ_I64(a.split[6], 7);
        probe p;
        on_core(&t, 0, step_probe, &p);
        CHECK_EQ_I64(p.holds, 1);
        CHECK_EQ_I64(p.requests, nneed); /* kept for the thief */
        CHECK_EQ_I64(p.drained, false);
        CHECK_EQ_I64(p.drained_stopping, true);
        /* core 1: ends split 8, runs 9..15; its last end releases its unit */
        claims b = {.max = 7, .done_each = true};
        on_core(&t, 1, step_split_done, &(int){1});
        on_core(&t, 1, step_claim, &b);
        CHECK_EQ_I64(b.n, 7);
        CHECK_EQ_I64(b.split[6], 15);
        for (int k = 0; k < nneed; k++) CHECK(t.fx.units[1].f[k] == NULL);
        CHECK_EQ_I64(t.fx.units[1].hold_dropped, true);
        on_core(&t, 0, step_wait_drained0, NULL);
        on_core(&t, 0, step_probe, &p);
        CHECK_EQ_I64(p.holds, 0);
        CHECK_EQ_I64(p.requests, 0);
        CHECK_EQ_I64(p.drained, true);
        /* both requests were used (lent), so nothing counts discarded */
        CHECK_EQ_I64(atomic_load(&t.fx.bytes_discarded), 0);
    }
    fix_free(&t);
    pqf_close(f);
}

typedef struct discard {
    uint64_t lazy, wanted, len;  /* bytes_discarded grown by each (len: the read's) */
    int slice_ok;
} discard;

/* On core 0: a read only registered counts nothing discarded, a wanted and read one its
 * bytes; slot 0 of unit 0 sliced (split 0's first piece: the bytes at its place) is used. */
static void step_discard(fix *t, void *arg)
{
    discard *d = arg;
    scan_fetch *fx = &t->fx;
    uint64_t off = t->fx.units[0].off[1], len = 1000;
    fut_t *f = io_read(fx->cores[0].io, t->plan.f->file, off, len);
    CHECK(f != NULL);
    if (!f) return;
    uint64_t before = atomic_load(&fx->bytes_discarded);
    scan_fetch_discarded(fx, f);
    d->lazy = atomic_load(&fx->bytes_discarded) - before;
    CHECK_EQ_I64(fut_await(f), 0);
    scan_fetch_discarded(fx, f);
    d->wanted = atomic_load(&fx->bytes_discarded) - before;
    d->len = ((const io_bytes *)fut_value(f))->len;
    fut_unref(f);
    atomic_store(&fx->bytes_discarded, before);
    const scan_piece *pc = &t->plan.splits[0].cols[0].pieces[0];
    io_bytes b = scan_fetch_slice(fx, 0, 0, pc->off, pc->len);
    uint8_t *want = malloc(pc->len);
    d->slice_ok = want && b.len == pc->len && b.shared == 0 &&
                  io_read_sync(t->plan.f->file, pc->off, want, pc->len, NULL, 0) == 0 &&
                  memcmp(want, b.data, pc->len) == 0;
    free(want);
}

/* One core runs a shared unit whose two requests it made and read: slot 0 is sliced (used),
 * slot 1 never decoded. The requests stay while splits are left to claim; the last split's
 * end releases them, and slot 1's bytes (wanted, read, undecoded) count discarded. */
static void test_release_discard(void)
{
    pqf_t *f = open_keyed("one_group.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    fix t;
    if (fix_open(&t, f, NULL, OG_SPLIT, EXEC_IO_PREAD)) {
        claims a = {.max = 1, .done_each = true};
        on_core(&t, 0, step_claim, &a);
        req own = {.unit = 0, .await = true};
        on_core(&t, 0, step_requests, &own);
        CHECK_EQ_I64(own.ok, 2);
        discard d = {0};
        on_core(&t, 0, step_discard, &d);
        CHECK_EQ_I64(d.lazy, 0);
        CHECK_EQ_I64(d.len, 1000);
        CHECK_EQ_I64(d.wanted, 1000);
        CHECK_EQ_I64(d.slice_ok, 1);
        CHECK_EQ_I64(t.fx.units[0].used[0], true);
        CHECK_EQ_I64(t.fx.units[0].used[1], false);
        claims rest = {.max = 14, .done_each = true}; /* splits 1..14: one left to claim */
        on_core(&t, 0, step_claim, &rest);
        CHECK_EQ_I64(rest.n, 14);
        for (int k = 0; k < 2; k++) CHECK(t.fx.units[0].f[k] != NULL);
        CHECK_EQ_I64(atomic_load(&t.fx.bytes_discarded), 0);
        claims last = {.done_each = true};
        on_core(&t, 0, step_claim, &last);
        CHECK_EQ_I64(last.n, 1);
        CHECK_EQ_I64(last.split[0], 15);
        CHECK_EQ_I64(last.last, 16);
        for (int k = 0; k < 2; k++) CHECK(t.fx.units[0].f[k] == NULL);
        CHECK_EQ_I64(atomic_load(&t.fx.bytes_discarded), t.fx.units[0].len[1]);
        CHECK_EQ_I64(atomic_load(&t.fx.steals), 0);
    }
    fix_free(&t);
    pqf_close(f);
}

/* The owner has not made its requests yet but the policy wants every slot (ahead): serving
 * the thief's lend makes the owner's request now, wanted, covering both ranges (lend.c step
 * 2): the thief's bytes are lent from it, no read call on the thief. */
static void test_lend_cover(void)
{
    pqf_t *f = open_keyed("one_group.parquet", OG_ROWS, OG_ROWS, true);
    if (!f) return;
    for (int be = 0; be < 2; be++) {
        fix t;
        if (fix_open(&t, f, NULL, OG_SPLIT, backends[be])) {
            scan_fetch_set_ahead(&t.fx, true);
            claim_and_steal(&t, NULL);
            for (int k = 0; k < t.plan.nneed; k++) CHECK(t.fx.units[0].f[k] == NULL);
            req thief = {.unit = 1, .await = true};
            on_core(&t, 1, step_requests, &thief);
            CHECK_EQ_I64(thief.ok, t.plan.nneed);
            CHECK_EQ_I64(thief.reads_after - thief.reads_before, 0);
            CHECK_EQ_I64(atomic_load(&t.fx.lends), t.plan.nneed);
            probe p;
            on_core(&t, 0, step_probe, &p);
            CHECK_EQ_I64(p.requests, t.plan.nneed);
            CHECK_EQ_I64(p.wanted, t.plan.nneed);
            CHECK_EQ_I64(p.used, t.plan.nneed);
            for (int k = 0; k < t.plan.nneed; k++) {
                const scan_unit *x = &t.fx.units[0], *y = &t.fx.units[1];
                CHECK(x->off[k] <= y->off[k] && x->off[k] + x->len[k] >= y->off[k] + y->len[k]);
            }
        }
        fix_free(&t);
    }
    pqf_close(f);
}

/* The fetch budget's hysteresis: gated tasks start splits while held (with pending and the
 * tickets out) plus the last split's reservation stays below the limit; once that reached
 * the limit they wait until at most half is held, not merely below the limit. */
static void test_budget_room(void)
{
    scan_budget b = {.limit = 1000, .tasks = 32, .base = 1};
    b.hp = &b.held, b.pp = &b.peak, b.qp = &b.pending; /* its own (scan_budget_init: no share) */
    b.tp = &b.tickets, b.fp = &b.forced;
    atomic_store(&b.held, 0);
    CHECK(scan_budget_room(&b));
    atomic_store(&b.held, 999);
    CHECK(scan_budget_room(&b));
    atomic_store(&b.held, 1000);
    CHECK(!scan_budget_room(&b) && atomic_load(&b.paused));
    atomic_store(&b.held, 700); /* below the limit, above half: still paused */
    CHECK(!scan_budget_room(&b));
    atomic_store(&b.held, 500);
    CHECK(scan_budget_room(&b) && !atomic_load(&b.paused));
    atomic_store(&b.held, 900); /* resumed: room again up to the limit */
    CHECK(scan_budget_room(&b));
    atomic_store(&b.last, 150); /* the next split is taken to be as big as the last one */
    atomic_store(&b.held, 849);
    CHECK(scan_budget_room(&b));
    atomic_store(&b.held, 850);
    CHECK(!scan_budget_room(&b) && atomic_load(&b.paused));
    atomic_store(&b.held, 501);
    CHECK(!scan_budget_room(&b));
    atomic_store(&b.held, 500);
    CHECK(scan_budget_room(&b) && !atomic_load(&b.paused));
    atomic_store(&b.last, 0);
    atomic_store(&b.held, 400);
    atomic_store(&b.pending, 599); /* reads running splits may still issue count as held */
    CHECK(scan_budget_room(&b));
    atomic_store(&b.pending, 600);
    CHECK(!scan_budget_room(&b) && atomic_load(&b.paused));
    atomic_store(&b.held, 0);
    atomic_store(&b.pending, 0);
    CHECK(scan_budget_room(&b) && !atomic_load(&b.paused));
    atomic_store(&b.held, 400);
    atomic_store(&b.tickets, 599); /* admissions not reserved yet count too (invariant 9) */
    CHECK(scan_budget_room(&b));
    atomic_store(&b.tickets, 600);
    CHECK(!scan_budget_room(&b) && atomic_load(&b.paused));
    atomic_store(&b.held, 0);
    atomic_store(&b.tickets, 0);
    CHECK(scan_budget_room(&b));
    b.limit = 0; /* no budget: a gated task never has room while anything is held */
    CHECK(!scan_budget_room(&b));
}

/* The room a run read ahead may take (fetch_budget.c invariant 10): the limit less held,
 * pending and the tickets out; none at or past the limit or while read-ahead pauses; no bound
 * when nothing is gated. */
static void test_budget_run_room(void)
{
    scan_budget b = {.limit = 1000, .tasks = 32, .base = 1};
    b.hp = &b.held, b.pp = &b.peak, b.qp = &b.pending, b.tp = &b.tickets, b.fp = &b.forced;
    atomic_store(&b.held, 0), atomic_store(&b.pending, 0), atomic_store(&b.tickets, 0);
    atomic_store(&b.paused, false);
    CHECK_EQ_I64((int64_t)scan_budget_run_room(&b), 1000);
    atomic_store(&b.held, 300), atomic_store(&b.pending, 200), atomic_store(&b.tickets, 100);
    CHECK_EQ_I64((int64_t)scan_budget_run_room(&b), 400);
    atomic_store(&b.held, 700);
    CHECK_EQ_I64((int64_t)scan_budget_run_room(&b), 0); /* exactly at the limit */
    atomic_store(&b.held, 900);
    CHECK_EQ_I64((int64_t)scan_budget_run_room(&b), 0); /* past it */
    atomic_store(&b.held, 0), atomic_store(&b.paused, true);
    CHECK_EQ_I64((int64_t)scan_budget_run_room(&b), 0); /* paused */
    b.base = b.tasks;
    CHECK(scan_budget_run_room(&b) == UINT64_MAX); /* nothing gated */
}

/* A dataset's files share one budget (fetch_budget.c invariant 6): one file's reservation and
 * the footers held leave the other less room, the high-water mark is the share's, and a
 * release gives it back. */
static void test_budget_share(void)
{
    scan_budget_share sh;
    scan_budget_share_init(&sh, 1000, 2);
    scan_piece piece = {.off = 0, .len = 50};
    scan_colplan col = {.npieces = 1, .pieces = &piece};
    scan_split sp = {.cols = &col};
    scan_budget a = {.limit = 1000, .tasks = 32, .base = 1, .seed16 = 128, .share = &sh};
    scan_budget b = a;
    a.hp = b.hp = &sh.held, a.pp = b.pp = &sh.peak, a.qp = b.qp = &sh.pending;
    a.tp = b.tp = &sh.tickets, a.fp = b.fp = &sh.forced, a.mp = b.mp = &sh.adm;
    scan_budget_share_footer(&sh, 50);
    CHECK_EQ_I64((int64_t)atomic_load(&sh.footer_bytes), 50);
    uint64_t in = 0, fetch = 0;
    uint64_t n = scan_budget_reserve(&a, &sp, 1, &in, &fetch, NULL, NULL, &tk0); /* 50 read, 8x */
    CHECK_EQ_I64((int64_t)n, 400);
    CHECK_EQ_I64((int64_t)atomic_load(&sh.held), 450);
    CHECK_EQ_I64((int64_t)atomic_load(&sh.pending), 50); /* its reads, not issued yet */
    atomic_store(&b.last, 500);
    CHECK(!scan_budget_room(&b)); /* 450 held + 50 to read by the other file + 500 */
    CHECK(scan_budget_room(&a)); /* a's own guess is 400 + 50: 950 < 1000 */
    scan_budget_unreserve(&a, n, in, fetch, true, 400);
    CHECK_EQ_I64((int64_t)atomic_load(&sh.pending), 0);
    scan_budget_share_footer(&sh, -50);
    CHECK_EQ_I64((int64_t)atomic_load(&sh.held), 0);
    CHECK_EQ_I64((int64_t)scan_budget_peak(&b), 450);
    CHECK_EQ_I64((int64_t)atomic_load(&sh.footer_peak), 50);
    CHECK(scan_budget_room(&b)); /* paused above, resumed at half the limit */
    scan_budget_share_free(&sh);
}

/* A split's reservation is what it holds decoded, estimated from what it reads (its reads
 * count in io/ once issued, not here: nothing twice): the seed (8x here) before any split
 * finished, then the ratio finished ones showed; local scans and pruned splits reserve
 * nothing; the split's end gives it all back. The last reservation is kept. */
static void test_budget_reserve(void)
{
    scan_piece pieces[2] = {{.off = 0, .len = 100}, {.off = 500, .len = 50}};
    scan_colplan cols[2] = {{.npieces = 1, .pieces = &pieces[0]}, {.npieces = 1, .pieces = &pieces[1]}};
    scan_split sp = {.cols = cols};
    scan_budget b = {.limit = 1000, .tasks = 32, .base = 1, .seed16 = 128};
    b.hp = &b.held, b.pp = &b.peak, b.qp = &b.pending;
    b.tp = &b.tickets, b.fp = &b.forced, b.mp = &b.adm;
    pthread_mutex_init(&b.adm, NULL);
    atomic_store(&b.held, 0);
    atomic_store(&b.pending, 0);
    atomic_store(&b.read_in, 0);
    atomic_store(&b.out_bytes, 0);
    uint64_t in = 0, fetch = 0, n = scan_budget_reserve(&b, &sp, 2, &in, &fetch, NULL, NULL, &tk0);
    CHECK_EQ_I64((int64_t)in, 150);
    CHECK_EQ_I64((int64_t)n, 150 * 8);
    CHECK_EQ_I64((int64_t)atomic_load(&b.held), 150 * 8);
    CHECK_EQ_I64((int64_t)atomic_load(&b.pending), 150); /* its reads count from now */
    CHECK_EQ_I64((int64_t)atomic_load(&b.last), 150 * 8 + 150); /* what it added to both */
    atomic_store(&b.held, atomic_load(&b.held) + 200); /* its reads issued: io/'s count */
    scan_budget_unreserve(&b, n, in, fetch, true, 300); /* its working set: twice what it read */
    CHECK_EQ_I64((int64_t)atomic_load(&b.held), 200);
    atomic_store(&b.held, 0); /* its reads released */
    CHECK_EQ_I64((int64_t)atomic_load(&b.pending), 0);
    n = scan_budget_reserve(&b, &sp, 2, &in, &fetch, NULL, NULL, &tk0);
    CHECK_EQ_I64((int64_t)n, 300);
    CHECK_EQ_I64((int64_t)atomic_load(&b.last), 300 + 150);
    scan_budget_unreserve(&b, n, in, fetch, false, 0); /* stopped early: teaches nothing */
    CHECK_EQ_I64((int64_t)atomic_load(&b.read_in), 150);
    CHECK_EQ_I64((int64_t)atomic_load(&b.pending), 0); /* given back all the same */
    sp.pruned = true;
    CHECK_EQ_I64((int64_t)scan_budget_reserve(&b, &sp, 2, &in, &fetch, NULL, NULL, &tk0), 0);
    sp.pruned = false;
    b.base = b.tasks; /* a local file: no read-ahead, nothing reserved */
    CHECK_EQ_I64((int64_t)scan_budget_reserve(&b, &sp, 2, &in, &fetch, NULL, NULL, &tk0), 0);
    CHECK_EQ_I64((int64_t)atomic_load(&b.held), 0);
    /* weighed by the chance each slot is decoded: slot 0 at chain position 0 (always), slot 1
     * read by the projection (position 1), reached by a tenth of the splits */
    b.base = 1;
    atomic_store(&b.read_in, 0);
    atomic_store(&b.out_bytes, 0);
    const double reach[2] = {1.0, 0.1};
    const int slot_pos[2] = {0, 1};
    n = scan_budget_reserve(&b, &sp, 2, &in, &fetch, reach, slot_pos, &tk0);
    CHECK_EQ_I64((int64_t)in, 100 + 5);
    CHECK_EQ_I64((int64_t)n, 105 * 8);
    scan_budget_unreserve(&b, n, in, fetch, true, 0);
    CHECK_EQ_I64((int64_t)atomic_load(&b.held), 0);
    CHECK_EQ_I64((int64_t)atomic_load(&b.pending), 0);
    /* bytes the file keeps from its footer's tail are served without a fetch: not pending
     * (held counts them once already), still read for the decoded estimate */
    b.kept_off = 520, b.kept_len = 1000; /* piece 1's last 30 bytes */
    n = scan_budget_reserve(&b, &sp, 2, &in, &fetch, NULL, NULL, &tk0);
    CHECK_EQ_I64((int64_t)in, 150);
    CHECK_EQ_I64((int64_t)fetch, 120);
    CHECK_EQ_I64((int64_t)atomic_load(&b.pending), 120);
    scan_budget_unreserve(&b, n, in, fetch, false, 0);
    CHECK_EQ_I64((int64_t)atomic_load(&b.pending), 0);
    pthread_mutex_destroy(&b.adm);
}

/* Pushes a one-row batch of n bytes for split i (claimed first, as run_split does). */
static void push_bytes(scan_out *o, int i, uint64_t n)
{
    scan_out_claimed(o, i);
    scan_batch b = {.rows = 1, .held = n};
    scan_out_push(o, i, &b, NULL);
}

/* Takes the next batch: its split, or -1. */
static int take_split(scan_out *o)
{
    scan_batch b;
    pq_err e = {0};
    if (scan_out_next(o, &b, &e) != 1) return -1;
    int i = b.split;
    scan_batch_free(&b);
    return i;
}

/* The consumer is behind (fetch_budget.c invariant 8, output.h invariant 4) only by batches
 * it can free without another split claimed: ordered, while the split it takes next was not
 * claimed, later ones waiting never count (a base task waiting on them would wait for
 * itself); unordered, any waiting batch counts; and the batch it took last, which its next
 * call frees. Waiting falls as it takes them; held keeps the batch taken last until the next
 * call (output.h invariant 5). */
static void test_out_behind(void)
{
    for (int ordered = 1; ordered >= 0; ordered--) {
        scan_opts so = {.threads = 1, .limit = -1, .ordered = ordered};
        scan_out o;
        CHECK(scan_out_init(&o, 3, &so, 1) == 0);
        _Atomic uint64_t held = 0, peak = 0;
        o.held = &held, o.held_peak = &peak;
        push_bytes(&o, 1, 100);
        CHECK_EQ_I64((int64_t)atomic_load(&held), 100);
        CHECK(scan_out_behind(&o, 100) == !ordered); /* ordered: split 0 not claimed yet */
        scan_out_claimed(&o, 0);
        CHECK(scan_out_behind(&o, 100) && !scan_out_behind(&o, 101));
        push_bytes(&o, 0, 50);
        CHECK(scan_out_behind(&o, 150));
        CHECK_EQ_I64(take_split(&o), ordered ? 0 : 1);
        CHECK_EQ_I64((int64_t)atomic_load(&held), 150); /* the batch taken still counts */
        CHECK(scan_out_behind(&o, 150) && !scan_out_behind(&o, 151)); /* its next call frees it */
        CHECK_EQ_I64(take_split(&o), ordered ? 1 : 0);
        CHECK(scan_out_behind(&o, 1) && !scan_out_behind(&o, ordered ? 101 : 51));
        CHECK_EQ_I64((int64_t)atomic_load(&held), ordered ? 100 : 50); /* the first one left */
        push_bytes(&o, 2, 10);
        CHECK_EQ_I64(take_split(&o), 2);
        CHECK_EQ_I64((int64_t)atomic_load(&held), 10);
        scan_out_free(&o); /* gives the last taken batch's bytes back */
        CHECK_EQ_I64((int64_t)atomic_load(&held), 0);
    }
}

/* The output window's byte gate (output.h invariant 7): a split passes while the batches
 * waiting, the one taken and the running splits' estimates leave room for its own under
 * limit_bytes; ordered, the split the consumer takes next always passes; and any split passes
 * when none is past its gate and the consumer has no batch to take. A push turns a split's
 * estimate into its batch's bytes, and the ratio learned scales the next estimates. */
static void test_out_gate(void)
{
    for (int ordered = 1; ordered >= 0; ordered--) {
        scan_opts so = {.threads = 1, .limit = -1, .ordered = ordered};
        scan_out o;
        CHECK(scan_out_init(&o, 4, &so, 4) == 0); /* 4 tasks: 4 may wait */
        o.limit_bytes = 100;
        scan_out_gate g[4];
        for (int i = 0; i < 4; i++) g[i] = scan_out_gate_make(&o, i, i, 40, 0);
        CHECK_EQ_I64((int64_t)g[0].est, 80); /* twice before any split was pushed */
        CHECK(scan_out_gate_pass(&o, &g[1])); /* 0 + 80 <= 100 */
        CHECK(!scan_out_gate_pass(&o, &g[2])); /* 80 + 80 > 100, split 1 runs */
        CHECK(scan_out_gate_pass(&o, &g[0]) == ordered); /* ordered: the next one needed */
        CHECK_EQ_I64((int64_t)atomic_load(&o.running_bytes), ordered ? 160 : 80);
        scan_out_claimed(&o, 1);
        scan_batch b = {.rows = 1, .held = 20};
        scan_out_push(&o, 1, &b, &g[1]); /* its estimate becomes its batch: 20 of 40 unc */
        CHECK(!g[1].counted);
        CHECK_EQ_I64((int64_t)scan_out_gate_make(&o, 3, 3, 40, 0).est, 20);
        CHECK_EQ_I64((int64_t)scan_out_gate_make(&o, 3, 3, 40, 7).est, 7); /* a reservation */
        if (ordered) { /* split 0 runs: split 2 waits for bytes (80 + 20 + 80 > 100) */
            CHECK(!scan_out_gate_pass(&o, &g[2]));
            scan_out_claimed(&o, 0);
            b = (scan_batch){.rows = 1, .held = 90};
            scan_out_push(&o, 0, &b, &g[0]);
            CHECK(!scan_out_gate_pass(&o, &g[2])); /* 110 waiting, none running: 0 to take */
            CHECK_EQ_I64(take_split(&o), 0);
            CHECK_EQ_I64(take_split(&o), 1); /* frees split 0's 90; split 1's 20 is taken */
            CHECK(!scan_out_gate_pass(&o, &g[3])); /* room for one: split 2 waits before it */
            CHECK(scan_out_gate_pass(&o, &g[2])); /* taken 20 + 80: room again */
            scan_out_claimed(&o, 2);
            b = (scan_batch){.rows = 1, .held = 5};
            scan_out_push(&o, 2, &b, &g[2]);
        } else { /* split 0 waited first (listed): it goes before split 2 (invariant 8) */
            CHECK(!scan_out_gate_pass(&o, &g[2])); /* room for 80, but split 0 waits */
            CHECK(scan_out_gate_pass(&o, &g[0]));  /* 20 + 80 <= 100 */
            CHECK(!scan_out_gate_pass(&o, &g[2])); /* 20 + 80 + 80 > 100 */
            CHECK_EQ_I64(take_split(&o), 1);
            scan_out_gate_drop(&o, &g[0]); /* (the scan stopped before splits 0 and 2 ran) */
            CHECK_EQ_I64(o.ngate_wait, 1);
            scan_out_gate_drop(&o, &g[2]);
            CHECK_EQ_I64(o.ngate_wait, 0);
            scan_out_gate big = scan_out_gate_make(&o, 0, 0, 400, 0);
            CHECK_EQ_I64((int64_t)big.est, 200);
            CHECK(scan_out_gate_pass(&o, &big)); /* over the limit: none runs, none waits */
            CHECK(!scan_out_gate_pass(&o, &g[3])); /* split 0 runs */
            b = (scan_batch){.rows = 1, .held = 5};
            scan_out_push(&o, 0, &b, &big);
        }
        CHECK_EQ_I64((int64_t)atomic_load(&o.running_bytes), 0);
        CHECK_EQ_I64(o.ngate_wait, 1); /* split 3's place, listed while it waits */
        scan_out_free(&o);
    }
}

/* A dataset's windows share one byte bound (output.h invariant 9): every window's batches and
 * running estimates count in the pool's used against its limit; only the lead is exempt (the
 * split it needs next, or idle), a window behind it passes by room alone and only while the
 * windows behind hold at most half the limit; a window that leaves stops leading. */
static void test_out_pool(void)
{
    for (int ordered = 1; ordered >= 0; ordered--) {
        scan_opts so = {.threads = 1, .limit = -1, .ordered = ordered};
        scan_out_pool p;
        scan_out_pool_init(&p, 100);
        scan_out a, b;
        CHECK(scan_out_init(&a, 4, &so, 4) == 0 && scan_out_init(&b, 4, &so, 4) == 0);
        a.limit_bytes = b.limit_bytes = 100, a.pool = b.pool = &p;
        atomic_store(&p.head, &a); /* (scan_out_lead, for a member: its event set) */
        scan_out_gate ga[4], gb[4];
        for (int i = 0; i < 4; i++) { /* reservations of 40 */
            ga[i] = scan_out_gate_make(&a, i, i, 1, 40);
            gb[i] = scan_out_gate_make(&b, i, i, 1, 40);
        }
        CHECK(scan_out_gate_pass(&b, &gb[1])); /* behind: 0 + 40 <= 50 */
        CHECK(!scan_out_gate_pass(&b, &gb[0])); /* 40 + 40 > 50: next needed, idle or not */
        CHECK(scan_out_gate_pass(&a, &ga[1])); /* the lead: 40 + 40 <= 100 */
        CHECK(!scan_out_gate_pass(&a, &ga[2])); /* 80 + 40 > 100: b's bytes count */
        CHECK(scan_out_gate_pass(&a, &ga[0]) == ordered); /* ordered: the lead's next needed */
        CHECK_EQ_I64((int64_t)atomic_load(&p.used), ordered ? 120 : 80);
        CHECK_EQ_I64(atomic_load(&p.listed), ordered ? 2 : 3); /* the splits waiting */
        scan_out_claimed(&b, 1), scan_out_claimed(&a, 1);
        scan_batch x = {.rows = 1, .held = 30};
        scan_out_push(&b, 1, &x, &gb[1]); /* its estimate becomes its batch */
        x = (scan_batch){.rows = 1, .held = 10};
        scan_out_push(&a, 1, &x, &ga[1]);
        CHECK(scan_out_gate_pass(&a, &ga[0])); /* (unordered: by room now, 40 + 40 <= 100) */
        CHECK_EQ_I64((int64_t)atomic_load(&p.used), 80); /* a: 40 running + 10, b: 30 */
        CHECK(!scan_out_gate_pass(&b, &gb[0])); /* behind the lead's 50: 30 + 40 > 50 */
        scan_out_gate_drop(&a, &ga[0]);
        scan_out_free(&a); /* its batch given back; it leads no more */
        CHECK_EQ_I64((int64_t)atomic_load(&p.used), 30);
        CHECK(atomic_load(&p.head) == NULL);
        CHECK(!scan_out_gate_pass(&b, &gb[0])); /* no lead: b is still behind */
        atomic_store(&p.head, &b);
        CHECK(scan_out_gate_pass(&b, &gb[0])); /* the lead: 30 + 40 <= 100 */
        CHECK(!scan_out_gate_pass(&b, &gb[2])); /* 70 + 40 > 100 */
        CHECK_EQ_I64((int64_t)atomic_load(&p.used), 70);
        CHECK_EQ_I64(atomic_load(&p.listed), 1); /* b's split 2 (a's left with a) */
        scan_out_gate_drop(&b, &gb[0]), scan_out_gate_drop(&b, &gb[2]);
        CHECK_EQ_I64(atomic_load(&p.listed), 0);
        scan_out_free(&b);
        CHECK_EQ_I64((int64_t)atomic_load(&p.used), 0);
        scan_out_pool_free(&p);
    }
}

/* A budgeted remote scan's io contexts: idle pooled buffers count in held (pool_held), at
 * most a quarter of the limit between the threads, and the reads issued at most half of it;
 * a local scan (or one without read-ahead) keeps io/'s pools, stash and budget. */
static void test_budget_io_opts(void)
{
    scan_budget b = {.limit = 256 << 20, .tasks = 32, .base = 1};
    io_opts_t o = io_opts_default();
    scan_budget_io_opts(&b, &o, 2);
    CHECK(o.pool_held);
    CHECK_EQ_I64((int64_t)o.pool_bytes, 32 << 20);
    CHECK_EQ_I64((int64_t)o.budget_bytes, 64 << 20);
    b.limit = 3; /* a tiny budget still leaves io/ a valid one */
    o = io_opts_default();
    scan_budget_io_opts(&b, &o, 2);
    CHECK_EQ_I64((int64_t)o.budget_bytes, 1);
    CHECK_EQ_I64((int64_t)o.pool_bytes, 0);
    b.limit = 256 << 20;
    b.base = b.tasks; /* a local file: nothing gated */
    o = io_opts_default();
    scan_budget_io_opts(&b, &o, 2);
    CHECK(!o.pool_held);
    CHECK_EQ_I64((int64_t)o.budget_bytes, (int64_t)io_opts_default().budget_bytes);
}

int main(void)
{
    ts_dir_init();
    RUN(test_units);
    RUN(test_budget_room);
    RUN(test_budget_run_room);
    RUN(test_budget_share);
    RUN(test_budget_reserve);
    RUN(test_out_behind);
    RUN(test_out_gate);
    RUN(test_out_pool);
    RUN(test_budget_io_opts);
    RUN(test_claim_order);
    RUN(test_claim_runs);
    RUN(test_claim_runs_room);
    RUN(test_steal_split);
    RUN(test_steal_window);
    RUN(test_steal_no_slot);
    RUN(test_pace);
    RUN(test_explore_per_core);
    RUN(test_order_remote_measured_first);
    RUN(test_steal_tail);
    RUN(test_cut_unindexed_cores);
    RUN(test_steal_run);
    RUN(test_lend_from_owner);
    RUN(test_lend_fallback);
    RUN(test_lend_from_run);
    RUN(test_lend_dropped);
    RUN(test_lend_cover);
    RUN(test_holds);
    RUN(test_release_discard);
    ts_dir_remove();
    return CHECK_DONE("test_fetch");
}
