/* scan/output.c: the output window (output.h). */
#include "scan/output.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"

int scan_out_init(scan_out *o, int nsplits, const scan_opts *opts, int tasks_per_core)
{
    memset(o, 0, sizeof *o);
    o->nsplits = nsplits;
    o->ordered = opts->ordered;
    o->limit = opts->limit;
    o->cut_split = nsplits;
    o->window = opts->threads * tasks_per_core * 2;
    o->results = fail_calloc((size_t)nsplits + 1, sizeof *o->results);
    o->ready = fail_calloc((size_t)nsplits + 1, sizeof *o->ready);
    o->fifo = fail_calloc((size_t)nsplits + 1, sizeof *o->fifo);
    if (o->ordered) o->claimed = fail_calloc((size_t)nsplits + 1, sizeof *o->claimed);
    o->gate_wait_cap = opts->threads * tasks_per_core; /* a split per task (invariant 8) */
    o->gate_wait = fail_calloc((size_t)o->gate_wait_cap, sizeof *o->gate_wait);
    if (!o->results || !o->ready || !o->fifo || (o->ordered && !o->claimed) || !o->gate_wait)
        return -ENOMEM;
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
    o->mu_ready = true;
    return 0;
}

static void signal_ev(scan_out *o)
{
    if (o->ev) exec_event_signal(o->ev);
}

/* Split i's batch leaves the output (taken or dropped, under mu): its bytes leave the
 * budget's held and the waiting count. */
static void release_held(scan_out *o, int i)
{
    uint64_t n = o->results[i].held;
    o->results[i].held = 0;
    if (!n) return;
    assert(atomic_load(&o->waiting) >= n);
    atomic_fetch_sub_explicit(&o->waiting, n, memory_order_relaxed);
    if (o->held) atomic_fetch_sub_explicit(o->held, n, memory_order_relaxed);
    scan_out_pool_sub(o->pool, n);
}

/* The batch handed out last leaves the budget's held (the consumer asks for the next one, or
 * the scan is freed); under mu, or once no other thread runs. Whether bytes were freed. */
static bool release_taken(scan_out *o)
{
    uint64_t n = o->taken;
    o->taken = 0;
    if (!n) return false;
    if (o->held) atomic_fetch_sub_explicit(o->held, n, memory_order_relaxed);
    scan_out_pool_sub(o->pool, n);
    return true; /* (the byte gate counts it too: invariant 7) */
}

void scan_out_free(scan_out *o)
{
    scan_out_pool_leave(o); /* (left already once its workers ended: scan_out_detach_ev) */
    scan_out_pool_unlisted(o->pool, o->ngate_wait); /* (none once its tasks ended) */
    (void)release_taken(o); /* a shared budget, and a pool, outlive o */
    for (int i = 0; o->results && i < o->nsplits; i++) {
        release_held(o, i);
        scan_batch_free(&o->results[i]);
    }
    if (o->mu_ready) {
        pthread_mutex_destroy(&o->mu);
        pthread_cond_destroy(&o->cv);
    }
    free(o->results);
    free(o->ready);
    free(o->fifo);
    free(o->claimed);
    free(o->gate_wait);
    memset(o, 0, sizeof *o);
}

scan_out_gate scan_out_gate_make(scan_out *o, int split, int64_t place, uint64_t unc,
                                 uint64_t reserved)
{
    assert(split >= 0 && split < o->nsplits && place >= 0);
    scan_out_gate g = {.split = split, .place = place, .unc = unc, .est = reserved};
    if (g.est || !unc || !o->limit_bytes) return g;
    pthread_mutex_lock(&o->mu);
    /* unc is a share of the file's chunk sizes and seen_out of batches held at once: the
     * products stay far below 2^64 */
    g.est = o->seen_unc ? (uint64_t)((unsigned __int128)unc * o->seen_out / o->seen_unc)
                        : unc * 2;
    pthread_mutex_unlock(&o->mu);
    return g;
}

/* Whether no split is past its gate and the consumer has no batch to take: nothing else
 * could free bytes (invariant 7). Under mu. */
static bool gate_idle(const scan_out *o)
{
    if (o->running > 0) return false;
    if (!o->ordered) return o->fifo_head == o->fifo_tail;
    return o->next_ordered >= o->nsplits || !o->ready[o->next_ordered];
}

/* Whether a place lower than g's waits at the gate (invariant 8). Under mu. */
static bool gate_behind(const scan_out *o, const scan_out_gate *g)
{
    for (int k = 0; k < o->ngate_wait; k++)
        if (o->gate_wait[k] < g->place) return true;
    return false;
}

/* g's place leaves gate_wait, if listed (invariant 8). Under mu. */
static void gate_unlist(scan_out *o, scan_out_gate *g)
{
    if (!g->listed) return;
    int k = 0;
    while (k < o->ngate_wait && o->gate_wait[k] != g->place) k++;
    assert(k < o->ngate_wait);
    o->gate_wait[k] = o->gate_wait[--o->ngate_wait];
    g->listed = false;
}

bool scan_out_gate_pass(scan_out *o, scan_out_gate *g)
{
    if (g->counted || g->est == 0 || o->limit_bytes == 0) return true;
    pthread_mutex_lock(&o->mu);
    bool leads = !o->pool || atomic_load(&o->pool->head) == o, later = gate_behind(o, g);
    bool exempt = leads && ((o->ordered && g->split == atomic_load(&o->next_needed)) ||
                            (!later && gate_idle(o)));
    bool go = o->pool ? scan_out_pool_pass(o, g->est, exempt, !later, g->listed)
                      : exempt || (!later && scan_out_used(o) + g->est <= o->limit_bytes);
    if (go) {
        gate_unlist(o, g);
        atomic_fetch_add(&o->running_bytes, g->est);
        o->running++;
        g->counted = true;
    } else if (!g->listed) {
        assert(o->ngate_wait < o->gate_wait_cap); /* one split per task waits */
        o->gate_wait[o->ngate_wait++] = g->place;
        g->listed = true;
    }
    pthread_mutex_unlock(&o->mu);
    return go;
}

/* g's estimate leaves running_bytes (under mu), and the pool's used. */
static void gate_leave(scan_out *o, scan_out_gate *g)
{
    if (!g || !g->counted) return;
    assert(o->running > 0 && atomic_load(&o->running_bytes) >= g->est);
    atomic_fetch_sub(&o->running_bytes, g->est);
    o->running--;
    g->counted = false;
    scan_out_pool_sub(o->pool, g->est);
}

void scan_out_gate_drop(scan_out *o, scan_out_gate *g)
{
    if (!g->counted && !g->listed) return;
    pthread_mutex_lock(&o->mu);
    if (g->listed) scan_out_pool_unlisted(o->pool, 1);
    gate_unlist(o, g);
    gate_leave(o, g);
    signal_ev(o); /* room for the others */
    pthread_mutex_unlock(&o->mu);
}

/* One more split consumed (under mu): the window moves. */
static void consumed_one(scan_out *o)
{
    atomic_fetch_add(&o->consumed, 1);
    signal_ev(o);
}

/* Unordered, a batch of no rows (a pruned split, or a chain that ended all-false) is consumed
 * right here and wakes the consumer only if it was the last split: waking it for each pruned
 * split (~10 us each on this VM) made a scan that statistics pruned entirely on a
 * 524-row-group file take 8.0 ms instead of 3.0. */
void scan_out_push(scan_out *o, int split, scan_batch *b, scan_out_gate *g)
{
    assert(split >= 0 && split < o->nsplits && (!g || g->split == split));
    bool empty = !o->ordered && b->rows == 0;
    uint64_t bytes = b->held;
    if (empty) scan_batch_free(b);
    pthread_mutex_lock(&o->mu);
    assert(!o->ready[split]);
    scan_out_pool_add(o->pool, empty ? 0 : bytes); /* before its estimate leaves (out_pool.h
                                                       invariant 1) */
    if (g && g->counted) { /* invariant 7: its estimate becomes its batch; the gate may open */
        gate_leave(o, g);
        o->seen_unc += g->unc, o->seen_out += bytes;
        signal_ev(o);
    }
    atomic_fetch_add_explicit(&o->pushed, 1, memory_order_relaxed);
    o->ready[split] = true;
    if (empty) {
        consumed_one(o);
        if (atomic_load(&o->consumed) >= o->nsplits) pthread_cond_broadcast(&o->cv);
        pthread_mutex_unlock(&o->mu);
        memset(b, 0, sizeof *b);
        return;
    }
    o->results[split] = *b;
    o->results[split].split = split;
    atomic_fetch_add_explicit(&o->waiting, b->held, memory_order_relaxed);
    if (o->held) io_held_add(o->held, o->held_peak, b->held);
    o->fifo[o->fifo_tail++] = split;
    assert(o->fifo_tail <= o->nsplits);
    if (!o->ordered) o->produced_rows += b->rows;
    while (o->ordered && o->prefix_next < o->nsplits && o->prefix_next <= o->cut_split &&
           o->ready[o->prefix_next]) /* (no rows after a cut split's: invariant 6) */
        o->produced_rows += o->results[o->prefix_next++].rows;
    if (o->limit >= 0 && o->produced_rows >= o->limit && !atomic_exchange(&o->limit_hit, 1))
        signal_ev(o); /* a core waiting to end stops waiting for holds */
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    memset(b, 0, sizeof *b);
}

/* scan_out_fail under mu. */
static void fail_locked(scan_out *o, int status, const pq_err *e)
{
    assert(status < 0);
    if (o->status == 0) {
        o->status = status;
        if (e) o->err = *e;
        o->err.status = status;
    }
    atomic_store(&o->stop, 1);
    signal_ev(o);
    pthread_cond_broadcast(&o->cv);
}

void scan_out_fail(scan_out *o, int status, const pq_err *e)
{
    pthread_mutex_lock(&o->mu);
    fail_locked(o, status, e);
    pthread_mutex_unlock(&o->mu);
}

void scan_out_cut(scan_out *o, int split, const pq_err *e)
{
    assert(split >= 0 && split < o->nsplits && e->status < 0);
    pthread_mutex_lock(&o->mu);
    assert(!o->ready[split]); /* (before its push: the prefix has not passed it) */
    if (split < o->cut_split) o->cut_split = split, o->cut_err = *e;
    pthread_mutex_unlock(&o->mu);
}

void scan_out_stop(scan_out *o)
{
    atomic_store(&o->stop, 1);
    signal_ev(o);
}

void scan_out_cancel(scan_out *o, void (*on_live)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&o->mu);
    scan_out_stop(o); /* o->ev NULL once detached: nothing posted to a stopped executor */
    if (o->ev) on_live(ctx);
    pthread_mutex_unlock(&o->mu);
}

void scan_out_detach_ev(scan_out *o)
{
    assert(atomic_load(&o->workers_live) == 0);
    scan_out_pool_leave(o); /* no pool's wake after this (invariant 9) */
    pthread_mutex_lock(&o->mu);
    o->ev = NULL;
    pthread_mutex_unlock(&o->mu);
}

void scan_out_claimed(scan_out *o, int split)
{
    assert(split >= 0 && split < o->nsplits);
    if (o->claimed) atomic_store(&o->claimed[split], true);
}

bool scan_out_behind(scan_out *o, uint64_t bytes)
{
    uint64_t taken = atomic_load(&o->taken); /* its next call frees it (invariant 4) */
    if (taken > 0 && taken >= bytes) return true;
    uint64_t waiting = atomic_load_explicit(&o->waiting, memory_order_relaxed);
    if (waiting == 0 || taken + waiting < bytes) return false; /* too little to take */
    if (!o->ordered) return true;
    int next = atomic_load(&o->next_needed);
    return next >= o->nsplits || atomic_load(&o->claimed[next]);
}

bool scan_out_fits(scan_out *o, int64_t place)
{
    return place < scan_out_window_end(o);
}

int64_t scan_out_window_end(scan_out *o)
{
    return atomic_load(&o->consumed) + o->window;
}

void scan_out_workers_gone(scan_out *o, int n)
{
    assert(n >= 1);
    pthread_mutex_lock(&o->mu);
    int before = atomic_fetch_sub(&o->workers_live, n);
    assert(before >= n);
    if (before == n) pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

void scan_out_wait_workers(scan_out *o)
{
    pthread_mutex_lock(&o->mu);
    while (atomic_load(&o->workers_live) > 0) pthread_cond_wait(&o->cv, &o->mu);
    pthread_mutex_unlock(&o->mu);
}

/* Takes the next deliverable split's batch, or -1 when none is ready yet. Under mu. */
static int take_ready(scan_out *o)
{
    if (o->ordered) { /* (none past a cut split: invariant 6) */
        while (o->next_ordered < o->nsplits && o->next_ordered <= o->cut_split &&
               o->ready[o->next_ordered]) {
            int i = o->next_ordered++;
            atomic_store(&o->next_needed, o->next_ordered);
            if (o->results[i].rows > 0) return i;
            release_held(o, i);
            scan_batch_free(&o->results[i]);
            consumed_one(o);
        }
        return -1;
    }
    while (o->fifo_head < o->fifo_tail) {
        int i = o->fifo[o->fifo_head++];
        if (o->results[i].rows > 0) return i;
        release_held(o, i);
        scan_batch_free(&o->results[i]);
        consumed_one(o);
    }
    return -1;
}

static bool all_consumed(scan_out *o)
{
    return atomic_load(&o->consumed) >= o->nsplits;
}

static bool limit_reached(const scan_out *o)
{
    return o->limit >= 0 && o->delivered_rows >= o->limit;
}

/* Whether the consumer needs a row past the cut split's batch (invariant 6). Under mu. */
static bool cut_due(scan_out *o)
{
    if (o->cut_split >= o->nsplits || limit_reached(o)) return false;
    return o->ordered ? o->next_ordered > o->cut_split : all_consumed(o);
}

int scan_out_next(scan_out *o, scan_batch *b, pq_err *e)
{
    memset(b, 0, sizeof *b);
    pthread_mutex_lock(&o->mu);
    if (release_taken(o)) signal_ev(o); /* the consumer is done with it: room, maybe */
    int i = -1;
    /* take_ready may consume the last (empty) splits itself: re-check before waiting, or
     * nobody would wake us (every worker may have ended) */
    while (o->status == 0 && !limit_reached(o) && (i = take_ready(o)) < 0 && !cut_due(o) &&
           !all_consumed(o) && atomic_load(&o->workers_live) > 0)
        pthread_cond_wait(&o->cv, &o->mu);
    if (o->status == 0 && i < 0 && cut_due(o)) fail_locked(o, o->cut_err.status, &o->cut_err);
    /* Every worker ended: each split it claimed was pushed, or the scan failed or was
     * stopped; waiting more would never end. */
    assert(o->status != 0 || limit_reached(o) || i >= 0 || all_consumed(o) ||
           atomic_load(&o->stop));
    int rc = o->status;
    if (rc == 0 && i >= 0) {
        o->taken = o->results[i].held; /* leaves waiting, stays in held (invariant 5) */
        o->results[i].held = 0;
        assert(atomic_load(&o->waiting) >= o->taken);
        atomic_fetch_sub_explicit(&o->waiting, o->taken, memory_order_relaxed);
        *b = o->results[i];
        memset(&o->results[i], 0, sizeof o->results[i]);
        if (o->limit >= 0 && o->delivered_rows + b->rows > o->limit) {
            b->rows = o->limit - o->delivered_rows;
            for (int c = 0; c < b->ncols; c++) pq_vec_cut(&b->cols[c], b->rows);
        }
        o->delivered_rows += b->rows;
        consumed_one(o);
        rc = 1;
    } else if (rc < 0 && e) {
        *e = o->err;
    }
    if (rc != 1 && limit_reached(o)) scan_out_stop(o);
    pthread_mutex_unlock(&o->mu);
    return rc;
}
