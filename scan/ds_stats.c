/* scan/ds_stats.c: a dataset scan's counters summed over its files (ds_scan_stats,
 * ds_scan_store), read by a host thread while the scan's own host thread runs it (a progress
 * snapshot beside a next, a stop's end on a third: ringscan_scan_stats), and the lock that
 * makes that safe. Below dataset.c (ds_run.h).
 * Invariants:
 *  1. d->mu (recursive) is held by the host thread that changes which scans d->runs and d->gone
 *     hold (a file started, moved to gone, closed and freed), and by these snapshots, so a
 *     snapshot never reads a scan being freed, nor one file twice; a slot without a scan is
 *     skipped. The host never waits on a snapshot's thread while holding it. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "scan/api_priv.h"
#include "scan/ds_run.h"

void ds_lock_init(ds_scan *d)
{
    pthread_mutexattr_t at;
    int rc = pthread_mutexattr_init(&at);
    if (rc == 0) rc = pthread_mutexattr_settype(&at, PTHREAD_MUTEX_RECURSIVE);
    if (rc == 0) rc = pthread_mutex_init(&d->mu, &at);
    assert(rc == 0); /* (glibc: never fails for a recursive mutex) */
    (void)rc;
    pthread_mutexattr_destroy(&at);
}

void ds_lock_free(ds_scan *d)
{
    pthread_mutex_destroy(&d->mu);
}

void ds_lock(ds_scan *d)
{
    int rc = pthread_mutex_lock(&d->mu);
    assert(rc == 0);
    (void)rc;
}

void ds_unlock(ds_scan *d)
{
    pthread_mutex_unlock(&d->mu);
}

void ds_stats_add(scan_stats *a, const scan_stats *b)
{
    a->reads += b->reads, a->bytes_read += b->bytes_read, a->bytes_used += b->bytes_used;
    a->bytes_wasted += b->bytes_wasted, a->cancelled_reads += b->cancelled_reads;
    a->bytes_skipped += b->bytes_skipped;
    a->reads_kept += b->reads_kept, a->bytes_kept += b->bytes_kept;
    a->plan_reads += b->plan_reads, a->plan_bytes += b->plan_bytes;
    a->row_groups_total += b->row_groups_total, a->row_groups_pruned += b->row_groups_pruned;
    a->pages_total += b->pages_total, a->pages_pruned += b->pages_pruned;
    a->rows_scanned += b->rows_scanned, a->splits_all_false += b->splits_all_false;
    a->steals += b->steals, a->reads_lent += b->reads_lent;
    a->topk_splits_dead += b->topk_splits_dead, a->topk_rows_kept += b->topk_rows_kept;
    a->topk_pages_dead += b->topk_pages_dead, a->splits += b->splits;
    a->splits_done += b->splits_done, a->bytes_decompressed += b->bytes_decompressed;
    a->dict_eval_pages += b->dict_eval_pages, a->sel_eval_pages += b->sel_eval_pages;
    a->runtimes += b->runtimes;
    if (b->budget_peak_bytes > a->budget_peak_bytes) a->budget_peak_bytes = b->budget_peak_bytes;
    a->uring = b->uring;
    memcpy(a->io_backend, b->io_backend, sizeof a->io_backend);
}

/* st += r's scan's counters, when it has a scan (invariant 1). */
static void add_run(scan_stats *st, const ds_run *r)
{
    scan_stats cur;
    if (!r->scan) return;
    scan_get_stats(r->scan, &cur);
    ds_stats_add(st, &cur);
}

void ds_scan_stats(ds_scan *d, scan_stats *st, int64_t *files, int64_t *pruned, int64_t *footers,
                   bool *complete)
{
    ds_lock(d); /* invariant 1: no file closes or moves meanwhile */
    *st = d->acc;
    for (int k = 0; k < d->nrun; k++) add_run(st, &d->runs[(d->head + k) % DS_INFLIGHT_MAX]);
    for (int k = 0; k < d->ngone; k++) add_run(st, &d->gone[k]);
    st->rows_out = d->rows_out;
    *pruned = d->files_pruned;
    *complete = d->done;
    ds_unlock(d);
    if (d->rt) { /* the runtime's io backend (its scans' own say nothing until they end) */
        exec_stats_t es;
        exec_group_stats(d->rt->g, 0, &es);
        st->uring = es.uring;
        snprintf(st->io_backend, sizeof st->io_backend, "%s", es.io_backend);
    }
    if (d->shared) { /* the one budget's high-water marks, footers included */
        st->budget_peak_bytes = atomic_load_explicit(&d->share.peak, memory_order_relaxed);
        st->footer_bytes_peak = atomic_load_explicit(&d->share.footer_peak, memory_order_relaxed);
    }
    *files = d->a.list->nfiles;
    *footers = atomic_load(&d->ft.read);
    st->footer_reads = atomic_load(&d->ft.reads);
    st->footers_on_cores = atomic_load(&d->ft.on_cores);
    st->runtimes += d->rt != NULL; /* the cores' rows over every file (scan_rt.h) */
    for (int c = 0; d->rt && c < d->rt->threads; c++) {
        int64_t rows = atomic_load_explicit(&d->rt->core_rows[c], memory_order_relaxed);
        st->core_rows_min = c == 0 || rows < st->core_rows_min ? rows : st->core_rows_min;
        st->core_rows_max = rows > st->core_rows_max ? rows : st->core_rows_max;
    }
}

void ds_scan_store(ds_scan *d, io_store_counts *out)
{
    io_store_sum_counts(&d->store, out);
    ds_lock(d); /* invariant 1: no footer closes meanwhile */
    for (int k = 0; k < d->nrun; k++) { /* the files running: their footers open */
        const ds_run *r = &d->runs[(d->head + k) % DS_INFLIGHT_MAX];
        if (r->fi >= 0 && d->ft.slots[r->fi].f) io_store_counts_model(out, d->ft.slots[r->fi].f->file);
    }
    for (int k = 0; k < d->ngone; k++)
        if (d->ft.slots[d->gone[k].fi].f) io_store_counts_model(out, d->ft.slots[d->gone[k].fi].f->file);
    ds_unlock(d);
}
