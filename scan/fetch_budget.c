/* scan/fetch_budget.c: the fetch budget of the fetch floor (fetch.h): how many split tasks a
 * core runs, and when the read-ahead ones may start another split.
 *
 * On a remote store a request costs a round trip (tens of milliseconds) before its first
 * byte, so the splits that run next are fetched ahead: a core runs SCAN_TASKS_PER_CORE tasks
 * that start splits whenever they are free (as on a local file), plus read-ahead tasks that
 * start one only while the bytes the scan holds (invariant 5) are below the budget. Once the held bytes reach it, read-ahead pauses
 * until at least half the budget is free again (hysteresis, as DataFusion #24086). Pruned row
 * groups are never planned as splits, so they are never fetched ahead. A budget of 0 means no
 * read-ahead: no read-ahead task and no run reserved ahead (fetch.c), each split fetches when
 * it starts.
 *
 * Owns: scan_budget. Calls nothing else of scan/.
 * Invariants:
 *  1. The base tasks (rank < base) are always admitted: a scan whose first splits alone
 *     exceed the budget still runs (the budget bounds read-ahead, not progress). On a remote
 *     store with a budget the base is one task per core, so the first wave of a plan larger
 *     than the budget fetches only what each core's first split needs; elsewhere every task
 *     is a base task (nothing is gated).
 *  2. paused goes true only when held + the last reservation >= limit (the split a gated task
 *     would start is taken to be as big as the last one) and false only when held <= limit / 2.
 *  3. A read-ahead task that waits counts itself in waiting first, and every release of bytes
 *     after a split ends signals the scan's event while someone waits (no lost wake-up: the
 *     wait re-checks its condition after registering, runtime/event.h).
 *  4. No wait outlives the work: once a base task left its loop (no split left for its core,
 *     the limit reached, the scan stopped), closed is set and every gated task goes on to
 *     claim (and finds nothing, or a steal). Bytes a core holds until its end (units a thief
 *     still holds) can then never keep its own tasks waiting.
 *  5. held counts, without counting anything twice, what a budgeted remote scan keeps
 *     resident: read buffers in flight or buffered, with the holes and the run read ahead
 *     they cover (io/ counts them from their issue), idle pooled read buffers (io.h
 *     pool_held; none is stashed outside the scan), each running split's decoded working set
 *     or batch (its reservation, learned from finished splits, each slot weighed by the chance
 *     the split decodes it), and batches not consumed
 *     (output.c). Reads registered but not issued hold nothing; what is issued is bounded by
 *     each core's io budget, limit / 2 / threads (io.h budget_bytes), and the pool by limit /
 *     4 / threads, so read-ahead leaves room for the decoded side. (Holding a range back while
 *     held would pass the limit with it kept held within ~4% of the limit but cost 1.5-2x the
 *     time on sf=1 cancel/order, so it was not kept.) Outside it and bounded:
 *     one idle decoded-column set per core (task.c), the cores' page readers. */
#include <assert.h>

#include "scan/fetch.h"

/* Before any split finished, a split's batch is guessed at twice the uncompressed / compressed
 * size of the chunks the scan reads (decoding expands dictionaries and adds offsets), within
 * [1x, 8x]; x16 for integer arithmetic. */
static uint64_t budget_seed16(const scan_plan *p)
{
    uint64_t comp = 0, unc = 0;
    const pq_file_meta *m = &p->f->meta;
    for (int g = 0; g < m->nrow_groups; g++)
        for (int k = 0; k < p->nneed; k++) {
            const pq_chunk_meta *cm = &m->row_groups[g].chunks[p->need[k]];
            /* sizes were checked against the file at open: each below its size */
            if (cm->total_compressed_size > 0) comp += (uint64_t)cm->total_compressed_size;
            if (cm->total_uncompressed_size > 0) unc += (uint64_t)cm->total_uncompressed_size;
        }
    uint64_t r = comp ? (uint64_t)((unsigned __int128)unc * 32 / comp) : 128;
    return r < 16 ? 16 : r > 128 ? 128 : r;
}

void scan_budget_init(scan_budget *b, const scan_plan *p, int64_t limit)
{
    b->limit = limit > 0 ? (uint64_t)limit : 0;
    atomic_store(&b->held, 0);
    atomic_store(&b->paused, false);
    atomic_store(&b->waiting, 0);
    atomic_store(&b->closed, false);
    atomic_store(&b->read_in, 0);
    atomic_store(&b->out_bytes, 0);
    atomic_store(&b->last, 0);
    b->seed16 = budget_seed16(p);
    bool ahead = p->f->file->be->remote && b->limit > 0;
    b->tasks = SCAN_TASKS_PER_CORE + (ahead ? SCAN_TASKS_AHEAD : 0);
    b->base = ahead ? 1 : b->tasks;
}

void scan_budget_io_opts(const scan_budget *b, io_opts_t *o, int threads)
{
    assert(threads >= 1);
    if (b->base == b->tasks) return; /* nothing gated: io/'s own pools and stash */
    o->pool_held = true;
    o->pool_bytes = b->limit / 4 / (uint64_t)threads;
    uint64_t reads = b->limit / 2 / (uint64_t)threads; /* invariant 5 */
    if (reads < o->budget_bytes) o->budget_bytes = reads > 0 ? reads : 1;
}

bool scan_budget_room(scan_budget *b)
{
    uint64_t held = atomic_load_explicit(&b->held, memory_order_relaxed);
    if (atomic_load_explicit(&b->paused, memory_order_relaxed)) {
        if (held > b->limit / 2) return false;
        atomic_store_explicit(&b->paused, false, memory_order_relaxed);
    }
    uint64_t next = atomic_load_explicit(&b->last, memory_order_relaxed);
    if (held + next < b->limit) return true;
    atomic_store_explicit(&b->paused, true, memory_order_relaxed);
    return false;
}

typedef struct budget_wait {
    scan_budget *b;
    const _Atomic int *stop;
} budget_wait;

static bool admitted(void *ctx)
{
    budget_wait *w = ctx;
    return atomic_load(w->stop) || atomic_load(&w->b->closed) || scan_budget_room(w->b);
}

void scan_budget_admit(scan_budget *b, exec_event *ev, int rank, const _Atomic int *stop)
{
    assert(rank >= 0 && rank < b->tasks);
    if (rank < b->base) return; /* invariant 1 */
    budget_wait w = {.b = b, .stop = stop};
    if (admitted(&w)) return;
    atomic_fetch_add(&b->waiting, 1);
    exec_event_wait_until(ev, admitted, &w);
    atomic_fetch_sub(&b->waiting, 1);
}

uint64_t scan_budget_reserve(scan_budget *b, const scan_split *sp, int nslots, uint64_t *in,
                             const double *reach, const int *slot_pos)
{
    *in = 0;
    if (b->limit == 0 || b->base == b->tasks || sp->pruned) return 0;
    for (int c = 0; c < nslots; c++) {
        uint64_t len = 0;
        for (int k = 0; k < sp->cols[c].npieces; k++) len += sp->cols[c].pieces[k].len;
        double w = reach ? reach[slot_pos[c]] : 1.0;
        assert(w >= 0.0 && w <= 1.0);
        *in += (uint64_t)((double)len * w); /* len is below the file's size: exact enough */
    }
    uint64_t seen_in = atomic_load_explicit(&b->read_in, memory_order_relaxed);
    uint64_t seen_out = atomic_load_explicit(&b->out_bytes, memory_order_relaxed);
    /* pieces are bounded by the file's size, so these products stay far below 2^64 */
    uint64_t out = seen_in ? (uint64_t)((unsigned __int128)*in * seen_out / seen_in)
                           : (uint64_t)((unsigned __int128)*in * b->seed16 / 16);
    uint64_t n = out; /* its reads count in io/ once issued (invariant 5) */
    atomic_fetch_add_explicit(&b->held, n, memory_order_relaxed);
    atomic_store_explicit(&b->last, n, memory_order_relaxed);
    return n;
}

void scan_budget_unreserve(scan_budget *b, uint64_t n, uint64_t in, uint64_t out)
{
    assert(atomic_load_explicit(&b->held, memory_order_relaxed) >= n);
    atomic_fetch_sub_explicit(&b->held, n, memory_order_relaxed);
    if (n == 0) return;
    atomic_fetch_add_explicit(&b->read_in, in, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->out_bytes, out, memory_order_relaxed);
}

void scan_budget_released(scan_budget *b, exec_event *ev)
{
    if (atomic_load(&b->waiting) > 0) exec_event_signal(ev);
}

void scan_budget_left(scan_budget *b, exec_event *ev, int rank)
{
    if (rank >= b->base || atomic_exchange(&b->closed, true)) return;
    exec_event_signal(ev);
}
