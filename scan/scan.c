/* scan/scan.c: starting a scan, the per-core workers that claim splits, the output queue and
 * stopping. See scan.h for the flow and invariants. */
#include "scan/scan_impl.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    o->io_opts = io_opts_default();
    o->io_opts.max_bytes = SCAN_READ_MAX_BYTES;
    o->io_opts.dense_gap_bytes = SCAN_DENSE_GAP_BYTES;
    pq_col_limits_default(&o->col_limits);
}

void scan_batch_free(scan_batch *b)
{
    for (int i = 0; b->cols && i < b->ncols; i++) pq_vec_free(&b->cols[i]);
    free(b->cols);
    memset(b, 0, sizeof *b);
}

void scan_explainf(scan_t *s, const char *fmt, ...)
{
    if (!s->o.explain || !s->explain || s->explain_len + 1 >= SCAN_EXPLAIN_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->explain + s->explain_len, SCAN_EXPLAIN_MAX - s->explain_len, fmt, ap);
    va_end(ap);
    if (n > 0) s->explain_len += (size_t)n;
    if (s->explain_len >= SCAN_EXPLAIN_MAX) s->explain_len = SCAN_EXPLAIN_MAX - 1;
}

/* ------------------------------------------------------------------------ output queue */

/* Hands split's batch to the consumer. Unordered, a batch of no rows (a pruned split, or a
 * chain that ended all-false) is consumed right here and wakes the consumer only if it was
 * the last split: waking it for each pruned split (~10 us each on this VM) made a scan that
 * statistics pruned entirely on a 524-row-group file take 8.0 ms instead of 3.0. */
void scan_push(scan_t *s, int split, scan_batch *b)
{
    assert(split >= 0 && split < s->nsplits);
    bool empty = !s->o.ordered && b->rows == 0;
    if (empty) scan_batch_free(b);
    pthread_mutex_lock(&s->mu);
    assert(!s->ready[split]);
    if (empty) {
        s->ready[split] = true;
        if (atomic_fetch_add(&s->consumed, 1) + 1 >= s->nsplits) pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        memset(b, 0, sizeof *b);
        return;
    }
    s->results[split] = *b;
    s->results[split].split = split;
    s->ready[split] = true;
    s->fifo[s->fifo_tail++] = split;
    assert(s->fifo_tail <= s->nsplits);
    if (!s->o.ordered) s->produced_rows += b->rows;
    while (s->o.ordered && s->prefix_next < s->nsplits && s->ready[s->prefix_next])
        s->produced_rows += s->results[s->prefix_next++].rows;
    if (s->o.limit >= 0 && s->produced_rows >= s->o.limit) atomic_store(&s->limit_hit, 1);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    memset(b, 0, sizeof *b);
}

void scan_fail(scan_t *s, int status, const pq_err *e)
{
    assert(status < 0);
    pthread_mutex_lock(&s->mu);
    if (s->status == 0) {
        s->status = status;
        if (e) s->err = *e;
        s->err.status = status;
    }
    atomic_store(&s->stop, 1);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* Takes the next deliverable split's batch, or -1 when none is ready yet. Under s->mu. */
static int take_ready(scan_t *s)
{
    if (s->o.ordered) {
        while (s->next_ordered < s->nsplits && s->ready[s->next_ordered]) {
            int i = s->next_ordered++;
            if (s->results[i].rows > 0) return i;
            scan_batch_free(&s->results[i]);
            atomic_fetch_add(&s->consumed, 1);
        }
        return -1;
    }
    while (s->fifo_head < s->fifo_tail) {
        int i = s->fifo[s->fifo_head++];
        if (s->results[i].rows > 0) return i;
        scan_batch_free(&s->results[i]);
        atomic_fetch_add(&s->consumed, 1);
    }
    return -1;
}

static bool all_consumed(scan_t *s)
{
    return atomic_load(&s->consumed) >= s->nsplits;
}

static bool limit_reached(const scan_t *s)
{
    return s->o.limit >= 0 && s->delivered_rows >= s->o.limit;
}

/* Cuts v to its first n rows keeping vec.h's invariants: null_count counts only those rows
 * (Arrow consumers read it), BYTE_ARRAY data_len == offsets[n]. */
static void truncate_vec(pq_vec *v, int64_t n)
{
    assert(n >= 0 && n <= v->length);
    v->length = n;
    if (v->null_count > 0) {
        int64_t nulls = 0;
        for (int64_t i = 0; i < n; i++) nulls += !pq_bit_get(v->validity, i);
        v->null_count = nulls;
    }
    if (v->type == PQ_BYTE_ARRAY && v->offsets) v->data_len = v->offsets[n];
}

int scan_next(scan_t *s, scan_batch *b, pq_err *e)
{
    memset(b, 0, sizeof *b);
    pthread_mutex_lock(&s->mu);
    int i = -1;
    /* take_ready may consume the last (empty) splits itself: re-check before waiting, or
     * nobody would wake us (every worker may have ended) */
    while (s->status == 0 && !limit_reached(s) && (i = take_ready(s)) < 0 && !all_consumed(s) &&
           atomic_load(&s->workers_live) > 0)
        pthread_cond_wait(&s->cv, &s->mu);
    /* Every worker ended: each split it claimed was pushed, or the scan failed or was
     * stopped (ringscan_scan_stats before the end); waiting more would never end. */
    assert(s->status != 0 || limit_reached(s) || i >= 0 || all_consumed(s) ||
           atomic_load(&s->stop));
    int rc = s->status;
    if (rc == 0 && i >= 0) {
        *b = s->results[i];
        memset(&s->results[i], 0, sizeof s->results[i]);
        if (s->o.limit >= 0 && s->delivered_rows + b->rows > s->o.limit) {
            b->rows = s->o.limit - s->delivered_rows;
            for (int c = 0; c < b->ncols; c++) truncate_vec(&b->cols[c], b->rows);
        }
        s->delivered_rows += b->rows;
        atomic_fetch_add(&s->consumed, 1);
        rc = 1;
    } else if (rc < 0 && e) {
        *e = s->err;
    }
    if (rc != 1 && limit_reached(s)) atomic_store(&s->stop, 1);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* ----------------------------------------------------------------------------- workers */

/* The core's last worker copies its io counters and frees its io context. */
static void core_done(scan_t *s, scan_core *c)
{
    scan_units_core_done(s, (int)(c - s->cores));
    if (c->io) {
        io_ctx_counters(c->io, &c->io_counters);
        io_ctx_free(c->io);
        c->io = NULL;
    }
    for (int k = 0; c->readers && k < s->nneed; k++) {
        c->decoded_pages += c->readers[k].pages_decoded;
        pq_colr_free(&c->readers[k]);
    }
    free(c->readers);
    c->readers = NULL;
    for (int i = 0; i < c->nvecsets; i++) {
        for (int k = 0; k < s->nneed; k++) pq_vec_free(&c->vecsets[i][k]);
        free(c->vecsets[i]);
    }
    c->nvecsets = 0;
}

static int core_setup(scan_t *s, scan_core *c)
{
    if (c->io) return 0;
    int rc = io_ctx_new(&c->io, exec_current(), &s->o.io_opts);
    if (rc) return rc;
    c->readers = fail_calloc((size_t)s->nneed, sizeof *c->readers);
    if (!c->readers) return -ENOMEM;
    for (int k = 0; k < s->nneed; k++) {
        const pq_column_desc *d = &s->f->meta.columns[s->need[k]];
        pq_colr_init(&c->readers[k], d, PQ_CODEC_UNCOMPRESSED, &s->o.col_limits);
        c->readers[k].scan_decompressed = &s->decompressed_bytes;
    }
    return 0;
}

/* Adaptive submission explores first: until one split has completed (so every chain position
 * has evidence), at most one split per core runs. */
bool scan_exploring(scan_t *s)
{
    return s->o.policy == SCAN_ADAPTIVE && s->npreds > 0 && atomic_load(&s->splits_done) == 0 &&
           atomic_load(&s->splits_started) >= s->o.threads;
}

/* Waits (yielding the core) until a split whose place is place (scan.h invariant 1) fits the
 * output window and exploration allows it, or the scan stops. */
static bool wait_window(scan_t *s, int64_t place)
{
    while (!atomic_load(&s->stop) &&
           (place >= atomic_load(&s->consumed) + s->window || scan_exploring(s))) {
        fut_t *t = exec_sleep_ns(50 * 1000);
        if (!t) { /* the split is never run: the scan must end with the error */
            scan_fail(s, -ENOMEM, NULL);
            return false;
        }
        fut_await(t);
        fut_unref(t);
    }
    return !atomic_load(&s->stop);
}

/* Waits (yielding the core, whose loop keeps serving lends) until the lends the core made
 * are answered and their fallback reads done (no executor may stop, nor this core's io context
 * go, while one is out), and the ones it serves are answered (their reads are the core's to
 * count), and, unless the scan stops early, until no thief holds a unit of the core (its
 * requests stay for the lends; a stopped scan releases units only at the cores' ends, so
 * waiting for holds then could wait on each other). */
static void drain_lends(scan_t *s, scan_core *c, int core)
{
    while (c->lends_out > 0 || c->lends_serving > 0 ||
           (!atomic_load(&s->stop) && !atomic_load(&s->limit_hit) && scan_units_held(s, core))) {
        fut_t *t = exec_sleep_ns(50 * 1000);
        if (!t) { /* ENOMEM: spin through the loop; the answer needs no memory of ours */
            sched_yield_task();
            continue;
        }
        fut_await(t);
        fut_unref(t);
    }
}

/* n workers (or workers that will never run) are gone; the last wakes finish(). */
static void workers_gone(scan_t *s, int n)
{
    assert(n >= 1);
    pthread_mutex_lock(&s->mu);
    int before = atomic_fetch_sub(&s->workers_live, n);
    assert(before >= n);
    if (before == n) pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void worker(void *arg)
{
    scan_t *s = arg;
    int core = exec_core_index(exec_current());
    scan_core *c = &s->cores[core];
    int rc = core_setup(s, c);
    if (rc) scan_fail(s, rc, NULL);
    while (rc == 0 && !atomic_load(&s->stop) && !atomic_load(&s->limit_hit)) {
        int unit = -1;
        int i = scan_unit_claim(s, c, core, &unit);
        if (i < 0) scan_fail(s, i, NULL);
        if (i < 0 || i >= s->nsplits) break;
        /* unordered, a core's run (unit.c) may lie far past the other core's splits */
        int64_t place = s->o.ordered ? i : atomic_fetch_add(&s->tickets, 1);
        if (s->splits[i].leader) /* its row group's other splits wait for its dictionaries */
            atomic_store(&s->leader_live[s->splits[i].rg], SCAN_LEADER_CLAIMED);
        if (!wait_window(s, place)) {
            scan_unit_split_done(s, unit);
            break;
        }
        atomic_fetch_add(&s->splits_started, !s->splits[i].pruned);
        scan_run_split(s, c, i, unit);
        atomic_fetch_add(&s->splits_done, !s->splits[i].pruned);
        scan_unit_split_done(s, unit);
    }
    if (c->workers_live == 1) drain_lends(s, c, core);
    if (--c->workers_live == 0) core_done(s, c);
    workers_gone(s, 1);
}

/* exec_group_spawn's failure callback, on the core, before any of its workers has started:
 * the missing workers never run, so the core's count shrinks and the scan fails. */
static void workers_not_spawned(void *arg, int missing, int status)
{
    scan_t *s = arg;
    int core = exec_core_index(exec_current());
    scan_core *c = &s->cores[core];
    assert(missing >= 1 && missing <= c->workers_live && status < 0);
    assert(c->io == NULL); /* no worker of the core has run */
    c->workers_live -= missing;
    pq_err e = {.offset = -1};
    pq_errf(&e, status, -1, "cannot start %d of the scan tasks on core %d: %s", missing, core,
            ringscan_strerror(status));
    scan_fail(s, status, &e);
    workers_gone(s, missing);
}

/* ------------------------------------------------------------------------ start / free */

/* Adaptive conjunct order shared by the cores (cache-line aligned counters). */
static int order_new(scan_t *s)
{
    size_t size = (sizeof(flt_order) + 63) / 64 * 64;
    s->order = fail_aligned_alloc(64, size);
    if (!s->order) return -ENOMEM;
    flt_order_init(s->order, s->npreds, 0, 0);
    return 0;
}

/* Slots: predicate columns first (deduplicated), then projection-only columns. */
static int choose_columns(scan_t *s, const int *proj, int nproj)
{
    int ncols = s->f->meta.ncolumns;
    int *slot_of = fail_malloc(sizeof(int) * (size_t)ncols);
    s->need = fail_malloc(sizeof(int) * (size_t)(nproj + s->npreds + 1));
    s->pred_slot = fail_malloc(sizeof(int) * (size_t)(s->npreds + 1));
    s->proj_slot = fail_malloc(sizeof(int) * (size_t)nproj);
    s->proj = fail_malloc(sizeof(int) * (size_t)nproj);
    if (!slot_of || !s->need || !s->pred_slot || !s->proj_slot || !s->proj) {
        free(slot_of);
        return -ENOMEM;
    }
    for (int i = 0; i < ncols; i++) slot_of[i] = -1;
    for (int k = 0; k < s->npreds; k++) {
        int col = s->filter->preds[k].column;
        assert(col >= 0 && col < ncols);
        if (slot_of[col] < 0) slot_of[col] = s->nneed, s->need[s->nneed++] = col;
        s->pred_slot[k] = slot_of[col];
    }
    for (int j = 0; j < nproj; j++) {
        assert(proj[j] >= 0 && proj[j] < ncols);
        if (slot_of[proj[j]] < 0) slot_of[proj[j]] = s->nneed, s->need[s->nneed++] = proj[j];
        s->proj_slot[j] = slot_of[proj[j]];
        s->proj[j] = proj[j];
    }
    s->nproj = nproj;
    free(slot_of);
    return 0;
}

static int alloc_runtime(scan_t *s)
{
    s->results = fail_calloc((size_t)s->nsplits + 1, sizeof *s->results);
    s->ready = fail_calloc((size_t)s->nsplits + 1, sizeof *s->ready);
    s->fifo = fail_calloc((size_t)s->nsplits + 1, sizeof *s->fifo);
    if (!s->results || !s->ready || !s->fifo) return -ENOMEM;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->window = s->o.threads * SCAN_TASKS_PER_CORE * 2;
    return 0;
}

static int start_workers(scan_t *s, pq_err *e)
{
    exec_opts_t eo = exec_opts_default();
    eo.threads = s->o.threads;
    eo.io_backend = s->o.io;
    eo.inbox_cap = SCAN_INBOX_CAP; /* sizes the lends out per core (lend.c) */
    int rc = exec_group_start(&s->g, &eo);
    if (rc) return pq_errf(e, rc, -1, "cannot start %d executor threads: %s", s->o.threads,
                           ringscan_strerror(rc));
    atomic_store(&s->workers_live, s->o.threads * SCAN_TASKS_PER_CORE);
    for (int c = 0; c < s->o.threads; c++) {
        s->cores[c].workers_live = SCAN_TASKS_PER_CORE;
        s->cores[c].unit = -1;
    }
    for (int c = 0; c < s->o.threads; c++) {
        /* one message per core: a failure there is reported before any worker ran */
        rc = exec_group_spawn(s->g, c, worker, s, SCAN_TASKS_PER_CORE, workers_not_spawned);
        if (rc == 0) continue;
        for (int d = c; d < s->o.threads; d++) s->cores[d].workers_live = 0;
        workers_gone(s, (s->o.threads - c) * SCAN_TASKS_PER_CORE);
        return pq_errf(e, rc, -1, "cannot start the scan tasks of core %d: %s", c,
                       ringscan_strerror(rc));
    }
    return 0;
}

int scan_start(pqf_t *f, const int *proj, int nproj, flt_expr *filter, const scan_opts *o,
               scan_t **out, pq_err *e)
{
    assert(f && proj && nproj >= 1 && o && out);
    *out = NULL;
    scan_t *s = fail_calloc(1, sizeof *s);
    if (!s) {
        flt_expr_free(filter);
        return -ENOMEM;
    }
    s->f = f;
    s->o = *o;
    s->o.io_opts.merge_registered = false; /* only what the policy wants is read */
    if (s->o.threads < 1) s->o.threads = 1;
    if (s->o.threads > EXEC_THREADS_MAX) s->o.threads = EXEC_THREADS_MAX;
    s->filter = filter;
    s->npreds = filter ? filter->npreds : 0;
    int rc = choose_columns(s, proj, nproj);
    if (rc == 0 && s->o.explain && !(s->explain = fail_calloc(1, SCAN_EXPLAIN_MAX))) rc = -ENOMEM;
    if (rc == 0 && s->npreds > 1 && s->npreds <= FLT_ORDER_MAX) rc = order_new(s);
    scan_explainf(s, "plan: %d splits, %d conjuncts, %d columns read, policy %s\n",
                  s->f->meta.nrow_groups, s->npreds, s->nneed,
                  s->o.policy == SCAN_LAZY ? "lazy" : s->o.policy == SCAN_EAGER ? "eager" : "adaptive");
    if (rc == 0) rc = scan_plan(s, e);
    s->stats.splits = s->nsplits;
    if (rc == 0) rc = alloc_runtime(s);
    if (rc == 0 && s->order && s->o.explain) scan_order_explain(s, "start");
    if (rc == 0) rc = start_workers(s, e);
    if (rc) {
        if (e && e->status == 0) pq_errf(e, rc, -1, "%s", ringscan_strerror(rc));
        scan_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* Waits for every worker to end, then stops the executor and sums the counters. */
static void finish(scan_t *s)
{
    if (s->finished) return;
    s->finished = true;
    atomic_store(&s->stop, 1);
    if (s->g) {
        pthread_mutex_lock(&s->mu);
        while (atomic_load(&s->workers_live) > 0) pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
        exec_stats_t es;
        exec_group_stats(s->g, 0, &es);
        s->stats.uring = es.uring;
        snprintf(s->stats.io_backend, sizeof s->stats.io_backend, "%s", es.io_backend);
        exec_group_stop(s->g);
        exec_group_destroy(s->g);
        s->g = NULL;
    }
    io_counters_t sum = {0};
    for (int c = 0; c < s->o.threads; c++) {
        io_counters_add(&sum, &s->cores[c].io_counters);
        s->stats.decoded_pages += s->cores[c].decoded_pages;
        s->stats.dict_eval_pages += s->cores[c].dict_eval_pages;
        s->stats.sel_eval_pages += s->cores[c].sel_eval_pages;
    }
    s->stats.bytes_decompressed = atomic_load(&s->decompressed_bytes);
    s->stats.reads += sum.reads_submitted;
    s->stats.bytes_read += sum.bytes_read;
    uint64_t discarded = atomic_load(&s->bytes_discarded);
    assert(discarded <= sum.bytes_used);
    s->stats.bytes_used += sum.bytes_used - discarded;
    s->stats.bytes_wasted += sum.bytes_wasted + discarded;
    s->stats.cancelled_reads = sum.cancelled + sum.requests_dropped_unsubmitted;
    s->stats.requests_registered = sum.requests_registered;
    s->stats.requests_dropped = sum.requests_dropped_unsubmitted;
    s->stats.peak_inflight_bytes = sum.peak_inflight_bytes;
    s->stats.rows_scanned = atomic_load(&s->rows_scanned);
    s->stats.splits_all_false = atomic_load(&s->splits_all_false);
    s->stats.steals = atomic_load(&s->steals);
    s->stats.reads_lent = atomic_load(&s->lends);
    s->stats.rows_out = s->delivered_rows;
    if (s->order && s->o.explain) scan_order_explain(s, "final");
}

void scan_get_stats(const scan_t *s, scan_stats *out)
{
    finish((scan_t *)s);
    *out = s->stats;
}

const char *scan_explain(const scan_t *s)
{
    return s->explain ? s->explain : "";
}

const pq_column_desc *scan_proj_desc(const scan_t *s, int i)
{
    assert(i >= 0 && i < s->nproj);
    return &s->f->meta.columns[s->proj[i]];
}

int scan_nproj(const scan_t *s)
{
    return s->nproj;
}

void scan_free(scan_t *s)
{
    if (!s) return;
    finish(s);
    for (int i = 0; s->results && i < s->nsplits; i++) scan_batch_free(&s->results[i]);
    if (s->results) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    scan_plan_free(s);
    free(s->order);
    flt_expr_free(s->filter);
    free(s->results);
    free(s->ready);
    free(s->fifo);
    free(s->need);
    free(s->pred_slot);
    free(s->proj_slot);
    free(s->proj);
    free(s->explain);
    free(s);
}
