/* scan/scan_stats.c: a scan's statistics from its plan, its counters and its cores' io
 * counters (scan_impl.h), read by the driver (scan.c) at its end and for snapshots
 * (scan_get_stats, scan_finished; and its --explain text, scan_explain); the byte ranges
 * its plan reads (scan_plan_ranges, for the bench's bound on a store); its columns
 * (scan_nproj, scan_proj_desc); its Top-K bound (scan_topk_bound, scan_topk_offer_bound). */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"

#include "scan/scan_impl.h"

/* Core c's time (core_time.h), relative to the scan's start and, once it ended, its end. */
static void core_stats(const scan_t *s, int c, scan_core_stats *o)
{
    const scan_core_time *t = &s->cores[c].task.time;
    memset(o, 0, sizeof *o);
    uint64_t *sl[SCAN_WAIT_N] = {&o->io_ns, &o->dict_ns, &o->window_ns, &o->claim_ns,
                                 &o->drain_ns, &o->other_ns};
    for (int w = 0; w < SCAN_WAIT_N; w++)
        *sl[w] = atomic_load_explicit(&t->sleep_ns[w], memory_order_relaxed);
    o->splits = atomic_load_explicit(&t->splits, memory_order_relaxed);
    uint64_t end = atomic_load_explicit(&t->end_ns, memory_order_acquire);
    if (end == 0) return; /* still running: wall and cpu come at its end */
    o->wall_ns = atomic_load_explicit(&t->wall_ns, memory_order_relaxed);
    o->cpu_ns = atomic_load_explicit(&t->cpu_ns, memory_order_relaxed);
    o->start_ns = t->start_ns > s->start_ns ? t->start_ns - s->start_ns : 0;
    uint64_t scan_end = atomic_load(&s->end_ns);
    o->tail_ns = scan_end > end ? scan_end - end : 0;
}

/* Statistics from the plan, the counters and the cores' io counters (io: their sum). */
void scan_stats_fill(const scan_t *s, const io_counters_t *io, scan_stats *st)
{
    *st = s->plan.stats;
    for (int c = 0; c < s->o.threads; c++) {
        int64_t rows = atomic_load_explicit(&s->cores[c].task.rows_scanned, memory_order_relaxed);
        st->core_rows_min = c == 0 || rows < st->core_rows_min ? rows : st->core_rows_min;
        st->core_rows_max = rows > st->core_rows_max ? rows : st->core_rows_max;
        st->decoded_pages += s->cores[c].decoded_pages;
        st->dict_eval_pages += atomic_load_explicit(&s->cores[c].task.dict_eval_pages, memory_order_relaxed);
        st->sel_eval_pages += atomic_load_explicit(&s->cores[c].task.sel_eval_pages, memory_order_relaxed);
    }
    st->bytes_decompressed = atomic_load(&s->cnt.decompressed_bytes);
    st->reads += io->reads_submitted;
    st->bytes_read += io->bytes_read;
    st->bytes_skipped += io->bytes_skipped;
    st->reads_kept += io->reads_kept;
    st->bytes_kept += io->bytes_kept;
    uint64_t discarded = atomic_load(&s->fetch.bytes_discarded);
    /* Final: every io context is freed and counted (scan_io_ctx_freed), and a discarded byte
     * was used first. While the scan runs, a core's published counters may lag its discards. */
    assert(!s->finished || discarded <= io->bytes_used);
    uint64_t used = io->bytes_used > discarded ? io->bytes_used - discarded : 0;
    st->bytes_used += used;
    st->bytes_wasted += io->bytes_wasted + discarded;
    st->cancelled_reads = io->cancelled + io->requests_dropped_unsubmitted;
    st->requests_registered = io->requests_registered;
    st->requests_dropped = io->requests_dropped_unsubmitted;
    st->peak_inflight_bytes = io->peak_inflight_bytes;
    st->rows_scanned = atomic_load(&s->cnt.rows_scanned);
    st->splits_all_false = atomic_load(&s->cnt.splits_all_false);
    st->steals = atomic_load(&s->fetch.steals);
    st->reads_lent = atomic_load(&s->fetch.lends);
    st->splits_done = atomic_load(&s->out.pushed);
    st->topk_splits_dead = atomic_load(&s->topk.splits_dead);
    st->topk_rows_kept = atomic_load(&s->topk.rows_kept);
    st->topk_pages_dead = atomic_load(&s->topk.pages_dead);
    st->runtimes = s->o.rt ? 0 : 1;
    st->budget_peak_bytes = scan_budget_peak(&s->fetch.budget);
    st->ncores = s->o.threads < SCAN_STATS_CORES ? s->o.threads : SCAN_STATS_CORES;
    for (int c = 0; c < st->ncores; c++) core_stats(s, c, &st->core[c]);
}

void scan_io_publish(scan_t *s, int core)
{
    io_counters_t now;
    io_ctx_counters(s->fetch.cores[core].io, &now);
    pthread_mutex_lock(&s->cores[core].snap_mu);
    s->cores[core].io_snap = now;
    pthread_mutex_unlock(&s->cores[core].snap_mu);
}

void scan_io_ctx_freed(void *arg, const io_counters_t *final)
{
    scan_t *s = arg;
    exec_t *e = exec_current();
    assert(e);
    scan_core *c = &s->cores[exec_core_index(e)];
    pthread_mutex_lock(&c->snap_mu);
    c->io_snap = *final;
    pthread_mutex_unlock(&c->snap_mu);
    if (s->o.rt) scan_rt_leave_ctx_done(&s->leave);
}

void scan_get_stats(scan_t *s, scan_stats *out)
{
    if (atomic_load_explicit(&s->stats_final, memory_order_acquire)) { /* written whole */
        *out = s->stats;
        return;
    }
    io_counters_t sum;
    scan_io_sum(s, &sum);
    scan_stats_fill(s, &sum, out);
    pthread_mutex_lock(&s->out.mu);
    out->rows_out = s->out.delivered_rows;
    pthread_mutex_unlock(&s->out.mu);
}

bool scan_finished(const scan_t *s)
{
    return atomic_load_explicit(&s->stats_final, memory_order_acquire);
}

const char *scan_explain(const scan_t *s)
{
    return scan_explain_text(&s->explain);
}

/* The sum of the cores' published io counters. */
void scan_io_sum(scan_t *s, io_counters_t *sum)
{
    memset(sum, 0, sizeof *sum);
    for (int c = 0; c < s->o.threads; c++) {
        pthread_mutex_lock(&s->cores[c].snap_mu);
        io_counters_add(sum, &s->cores[c].io_snap);
        pthread_mutex_unlock(&s->cores[c].snap_mu);
    }
}

static int range_cmp(const void *a, const void *b)
{
    const scan_range *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off ? 1 : 0;
}

int scan_plan_ranges(const scan_t *s, scan_range **out, int64_t *n)
{
    const scan_plan *p = &s->plan;
    int64_t cap = 0, m = 0;
    for (int i = 0; i < p->nsplits; i++)
        for (int k = 0; !p->splits[i].pruned && k < p->nneed; k++)
            cap += p->splits[i].cols[k].npieces;
    *out = NULL, *n = 0;
    if (cap == 0) return 0;
    scan_range *r = fail_malloc((size_t)cap * sizeof *r);
    if (!r) return -ENOMEM;
    for (int i = 0; i < p->nsplits; i++)
        for (int k = 0; !p->splits[i].pruned && k < p->nneed; k++)
            for (int q = 0; q < p->splits[i].cols[k].npieces; q++) {
                const scan_piece *pc = &p->splits[i].cols[k].pieces[q];
                if (pc->len) r[m++] = (scan_range){.off = pc->off, .len = pc->len};
            }
    assert(m <= cap);
    qsort(r, (size_t)m, sizeof *r, range_cmp);
    int64_t w = 0;
    for (int64_t i = 0; i < m; i++) {
        if (w > 0 && r[i].off < r[w - 1].off + r[w - 1].len) { /* overlaps */
            uint64_t end = r[i].off + r[i].len;
            if (end > r[w - 1].off + r[w - 1].len) r[w - 1].len = end - r[w - 1].off;
            continue;
        }
        r[w++] = r[i];
    }
    *out = r, *n = w;
    return 0;
}

int scan_nproj(const scan_t *s)
{
    return s->topk.nkeys ? s->topk.nout : s->plan.nproj;
}

const pq_column_desc *scan_proj_desc(const scan_t *s, int i)
{
    assert(i >= 0 && i < s->plan.nproj);
    return &s->plan.f->meta.columns[s->plan.proj[i]];
}

bool scan_topk_bound(scan_t *s, flt_lit *v, uint64_t *version, flt_domain *dom)
{
    return scan_topk_load(&s->topk, v, version, dom);
}

bool scan_topk_offer_bound(scan_t *s, flt_lit v)
{
    return scan_topk_offer(&s->topk, v);
}
