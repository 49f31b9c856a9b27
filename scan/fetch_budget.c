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
 * Owns: scan_budget, scan_budget_share. Calls nothing else of scan/.
 * Invariants:
 *  1. The base tasks (rank < base) are admitted without room when nothing else can free
 *     bytes: a scan whose first splits alone exceed the budget still runs (the budget bounds
 *     read-ahead, not progress; invariant 8). On a remote
 *     store with a budget the base is one task per core, so the first wave of a plan larger
 *     than the budget fetches only what each core's first split needs; elsewhere every task
 *     is a base task (nothing is gated).
 *  2. paused goes true only when held + the last reservation >= limit (the split a gated task
 *     would start is taken to be as big as the last one) and false only when held <= limit / 2.
 *  3. A read-ahead task that waits counts itself in waiting first, and every release of bytes
 *     after a split ends signals the scan's event while someone waits (no lost wake-up: the
 *     wait re-checks its condition after registering, runtime/event.h).
 *  4. No wait outlives the work: once a base task left its loop (no split left for its core,
 *     the limit reached, the scan stopped), closed is set, and a gated task of a core with
 *     no split running is admitted as a base task would be (invariant 8) and goes on to
 *     claim (and finds nothing, or a steal). Bytes a core holds until its end (units a
 *     thief still holds) can then never keep its own tasks waiting. A core with a split
 *     running still waits for room: its split's end wakes it. (Every gated task went on
 *     once closed before: the base task of a core whose runs were done left early, and the
 *     other core's 31 gated tasks then stole splits past the budget: 22 splits running,
 *     budget_peak 55 MB under 8 MiB.)
 *  5. held counts, without counting anything twice, what a budgeted remote scan keeps
 *     resident: read buffers in flight or buffered, with the holes and the run read ahead
 *     they cover (io/ counts them from their issue), idle pooled read buffers (io.h
 *     pool_held; none is stashed outside the scan), each running split's decoded working set
 *     or batch (its reservation, learned from finished splits, each slot weighed by the chance
 *     the split decodes it), batches not consumed (output.c), and the chunk bytes its file
 *     kept from its footer's tail (io_file_t.kept, counted once from the start: the reads
 *     they serve hold no buffer; a dataset counts them with its footer, invariant 6), and the
 *     batch the consumer took last, until it asks for the next one (output.h invariant 5).
 *     Reads
 *     registered but not issued hold nothing; what is issued is bounded by each core's io
 *     budget, limit / 2 / threads (io.h budget_bytes), and the pool by limit /
 *     4 / threads, so read-ahead leaves room for the decoded side. (Holding a range back while
 *     held would pass the limit with it kept held within ~4% of the limit but cost 1.5-2x the
 *     time on sf=1 cancel/order, so it was not kept.) Outside it and bounded:
 *     one idle decoded-column set per core (task.c), the cores' page readers.
 *  6. A dataset's files share one budget (scan_budget_share): every file's held bytes, and
 *     the footers the dataset holds, are counted in the share's one held against the
 *     dataset's one limit, so a file's read-ahead is admitted by what every file holds. With
 *     read-ahead on, only the lead (the file being drained: its batches are the ones the
 *     consumer takes) has base tasks that never wait; the others' are gated too, so files
 *     run ahead only within the budget and the lead always progresses (no file waits on
 *     bytes only the consumer can free unless the consumer is taking the lead's). A release
 *     in any file wakes the waiting tasks of every attached file (under the share's mutex,
 *     which detaching takes too, so no wake reaches a scan after it detached). The io/ read
 *     and pool bounds of invariant 5 stay per scan: a file's are 1/split of a lone scan's,
 *     so the files' reads in flight stay within limit / 2 between them. The files' batches
 *     are bound together at their output gates too (output.h invariant 9, the same lead).
 *  7. A gated task is admitted against held plus pending: the bytes every running split
 *     reserved to fetch (scan_budget_reserve's fetch: its reads outside the file's kept
 *     bytes, which held counts once already), from its reservation to its end. io/
 *     counts a read in held only from its issue, so without pending the splits admitted
 *     while held was low issued their reads after the check and held passed the limit by up
 *     to io/'s half of it (sf=10 lineitem, every column, 256 MiB: budget_peak 360-413 MB,
 *     peak RSS 387 MB). A split's reads that are issued count in both until it ends: the
 *     check errs on the side of admitting less; held and its peak stay what is resident.
 *     A run's read-ahead (fetch.c prefetch: the pieces of units a core reserved, wanted
 *     before any task was admitted for their splits) counts in pending too, from its
 *     reservation until a split of its unit is claimed (whose reservation then counts it) or
 *     the unit is released (scan_budget_ahead); and a run is at most a core's io read budget
 *     (run_bytes): it goes out as one read, which io/ issues whole. Unordered (runs are read
 *     ahead only there), sf=1 every column under 64 MiB: budget_peak 112 -> 86 MB.
 *  8. A base task is exempt from the room check only when nothing else can free bytes:
 *     while held + pending + one split like the last reach the limit (room without the
 *     hysteresis) and a split of the scan runs (running: past its window wait, not pushed;
 *     it ends without the consumer, and its release signals the event) or the consumer
 *     holds the batch it took last or has one it can take without another split claimed
 *     (behind: output.h invariant 4; its next call or take signals the event), the base task
 *     waits too. (Without the batch it holds, a base task started a split while a slow
 *     consumer wrote that batch out: 122,880-row groups, 48 MiB, unordered: budget_peak 89 MB
 *     in 7 of 8 runs, two splits over the limit.) When neither holds, waiting could
 *     only wait for itself: it starts its split, so a budget of 1 byte, or one smaller than
 *     a split, still ends. Before, a base task went on unless a quarter of the limit was
 *     batches waiting: with a consumer slower than the cores the base splits ran on top of a
 *     full budget (sf=1 every column as CSV into a reader of ~100 MB/s, 64 MiB: budget_peak
 *     91 MB ordered), and earlier still (no consumer check) they filled the output window
 *     (sf=10 lineitem, every column, 256 MiB: peak RSS 2.5 GB). What stays over the limit:
 *     the split a base task starts without room (about one), and one more when a base task
 *     finds another's split between its reservation and its start (invariant 9).
 *  9. Admission is atomic: under one mutex (the share's for a dataset) a task admitted with
 *     room takes a ticket of one split like the last, counted in tickets, which the room
 *     checks add to held + pending, until its split's reservation counts (scan_budget_reserve
 *     adds it, then gives the ticket back) or the task leaves without one (scan_budget_left).
 *     So the cores' tasks are not both admitted by the same room (before, each checked before
 *     the other reserved: budget_peak passed the limit by one split a core). A base task
 *     admitted without room (invariant 8) takes the scan's one forced start, given back the
 *     same way: another base task that finds no room, no split running and no batch to take
 *     waits for it instead of starting a split too (both cores' base tasks started at once,
 *     a split each over the limit). A forced start is given back at its reservation, before
 *     its window wait: no task waits on one that may wait for the consumer. Giving back
 *     either wakes waiting tasks.
 * 10. A run read ahead (fetch.c reserve_run) takes units past its first only within the room
 *     left below the limit (limit - held - pending - tickets when it is reserved; none while
 *     read-ahead pauses): its reads are wanted at once and count from then, but the task
 *     that reserves it was admitted for one split, perhaps without room (invariant 8).
 *     Before, a base task started without room reserved a whole run (up to run_bytes, a
 *     core's io budget): sf=1 every column as CSV into a slow reader, 2 cores, 256 MiB,
 *     unordered: pending +29 MB at once, peak RSS 350-363 MB (the bound 335.5); now
 *     326 MB (RESULTS, thirtieth session). */
#include <assert.h>

#include "scan/fetch.h"

/* Before any split finished, a split's batch is guessed at 2.9 times the uncompressed /
 * compressed size of the chunks the scan reads, within [1x, 8x]; x16 for integer arithmetic.
 * Decoding expands dictionaries and adds offsets (twice the uncompressed size), and a batch
 * counts its vectors' capacities, which grow by doubling: 1/ln 2 = 1.44 times their length
 * for lengths spread evenly on a log scale. At twice (before), the first wave's reservations
 * fell short of its batches: sf=1 every column as CSV into a slow reader, 2 cores, 256 MiB,
 * ordered: budget_peak 294.6 MB, peak RSS 336.0-336.4 MB against the bound's 335.5; at 2.9
 * times 271.1 MB and 291-301 MB (RESULTS, thirtieth session). Invariant 9's tickets, a split
 * like the last reserved, follow. */
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
    uint64_t r = comp ? (uint64_t)((unsigned __int128)unc * 46 / comp) : 128;
    return r < 16 ? 16 : r > 128 ? 128 : r;
}

void scan_budget_share_init(scan_budget_share *sh, int64_t limit, int split)
{
    assert(limit > 0 && split >= 1);
    *sh = (scan_budget_share){.limit = (uint64_t)limit, .split = split};
    pthread_mutex_init(&sh->mu, NULL);
    pthread_mutex_init(&sh->adm, NULL);
}

void scan_budget_share_free(scan_budget_share *sh)
{
    assert(sh->nattached == 0); /* every scan left: what they held was given back */
    assert(atomic_load(&sh->held) == 0 && atomic_load(&sh->footer_bytes) == 0);
    assert(atomic_load(&sh->pending) == 0);
    assert(atomic_load(&sh->tickets) == 0 && atomic_load(&sh->forced) == 0);
    pthread_mutex_destroy(&sh->mu);
    pthread_mutex_destroy(&sh->adm);
}

void scan_budget_share_footer(scan_budget_share *sh, int64_t d)
{
    if (d >= 0) {
        io_held_add(&sh->held, &sh->peak, (uint64_t)d);
        io_held_add(&sh->footer_bytes, &sh->footer_peak, (uint64_t)d);
        return;
    }
    assert(atomic_load(&sh->footer_bytes) >= (uint64_t)-d);
    atomic_fetch_sub_explicit(&sh->footer_bytes, (uint64_t)-d, memory_order_relaxed);
    atomic_fetch_sub_explicit(&sh->held, (uint64_t)-d, memory_order_relaxed);
    scan_budget_share_wake(sh);
}

void scan_budget_share_wake(scan_budget_share *sh)
{
    atomic_thread_fence(memory_order_seq_cst); /* the bytes freed before the count read */
    if (atomic_load(&sh->waiting) == 0) return;
    pthread_mutex_lock(&sh->mu);
    for (int k = 0; k < sh->nattached; k++)
        if (atomic_load(&sh->scans[k]->waiting) > 0) exec_event_signal(sh->scans[k]->ev);
    pthread_mutex_unlock(&sh->mu);
}

void scan_budget_attach(scan_budget *b, exec_event *ev)
{
    scan_budget_share *sh = b->share;
    b->wake = ev;
    if (!sh) return;
    pthread_mutex_lock(&sh->mu);
    assert(sh->nattached < SCAN_SHARE_MAX && !b->ev);
    b->ev = ev;
    sh->scans[sh->nattached++] = b;
    pthread_mutex_unlock(&sh->mu);
}

void scan_budget_detach(scan_budget *b)
{
    scan_budget_share *sh = b->share;
    if (!sh || !b->ev) return;
    pthread_mutex_lock(&sh->mu);
    int k = 0;
    while (k < sh->nattached && sh->scans[k] != b) k++;
    assert(k < sh->nattached);
    sh->scans[k] = sh->scans[--sh->nattached];
    b->ev = NULL;
    pthread_mutex_unlock(&sh->mu);
}

void scan_budget_lead(scan_budget *b)
{
    if (!b->share || atomic_exchange(&b->lead, true)) return;
    scan_budget_share_wake(b->share); /* its base tasks may wait (invariant 6) */
}

uint64_t scan_budget_peak(const scan_budget *b)
{
    return b->pp ? atomic_load_explicit(b->pp, memory_order_relaxed) : 0; /* NULL: no plan */
}

void scan_budget_init(scan_budget *b, const scan_plan *p, int64_t limit, scan_budget_share *share)
{
    if (share) limit = (int64_t)share->limit;
    b->limit = limit > 0 ? (uint64_t)limit : 0;
    atomic_store(&b->held, 0);
    atomic_store(&b->peak, 0);
    b->share = share, b->ev = NULL;
    b->hp = share ? &share->held : &b->held;
    b->pp = share ? &share->peak : &b->peak;
    atomic_store(&b->pending, 0);
    b->behind = NULL, b->behind_ctx = NULL;
    b->qp = share ? &share->pending : &b->pending;
    atomic_store(&b->tickets, 0);
    atomic_store(&b->forced, 0);
    pthread_mutex_init(&b->adm, NULL);
    b->tp = share ? &share->tickets : &b->tickets;
    b->fp = share ? &share->forced : &b->forced;
    b->mp = share ? &share->adm : &b->adm;
    b->wake = NULL;
    atomic_store(&b->lead, false);
    atomic_store(&b->paused, false);
    atomic_store(&b->waiting, 0);
    atomic_store(&b->closed, false);
    atomic_store(&b->running, 0);
    atomic_store(&b->read_in, 0);
    atomic_store(&b->out_bytes, 0);
    atomic_store(&b->last, 0);
    b->seed16 = budget_seed16(p);
    if (!share) io_held_add(b->hp, b->pp, p->f->file->kept_len); /* invariant 5 */
    b->kept_off = p->f->file->kept_off, b->kept_len = p->f->file->kept_len; /* invariant 7 */
    bool ahead = p->f->file->be->remote && b->limit > 0;
    b->run_bytes = SCAN_RUN_BYTES;
    b->tasks = SCAN_TASKS_PER_CORE + (ahead ? SCAN_TASKS_AHEAD : 0);
    b->base = ahead ? 1 : b->tasks;
}

void scan_budget_free(scan_budget *b)
{
    assert(atomic_load(&b->tickets) == 0 && atomic_load(&b->forced) == 0);
    pthread_mutex_destroy(&b->adm);
}

void scan_budget_io_opts(scan_budget *b, io_opts_t *o, int threads)
{
    assert(threads >= 1);
    if (b->base == b->tasks) return; /* nothing gated: io/'s own pools and stash */
    uint64_t part = b->limit / (uint64_t)(b->share ? b->share->split : 1); /* invariant 6 */
    o->pool_held = true;
    o->pool_bytes = part / 4 / (uint64_t)threads;
    uint64_t reads = part / 2 / (uint64_t)threads; /* invariant 5 */
    if (reads < o->budget_bytes) o->budget_bytes = reads > 0 ? reads : 1;
    if (reads < b->run_bytes) b->run_bytes = reads; /* a run is one read: issued whole */
}

/* held + pending + tickets (invariants 7 and 9). */
static uint64_t counted(const scan_budget *b)
{
    return atomic_load_explicit(b->hp, memory_order_relaxed) +
           atomic_load_explicit(b->qp, memory_order_relaxed) +
           atomic_load_explicit(b->tp, memory_order_relaxed);
}

bool scan_budget_room(scan_budget *b)
{
    uint64_t held = counted(b);
    if (atomic_load_explicit(&b->paused, memory_order_relaxed)) {
        if (held > b->limit / 2) return false;
        atomic_store_explicit(&b->paused, false, memory_order_relaxed);
    }
    uint64_t next = atomic_load_explicit(&b->last, memory_order_relaxed);
    if (held + next < b->limit) return true;
    atomic_store_explicit(&b->paused, true, memory_order_relaxed);
    return false;
}

uint64_t scan_budget_run_room(const scan_budget *b)
{
    if (b->base == b->tasks || b->limit == 0) return UINT64_MAX;
    if (atomic_load_explicit(&b->paused, memory_order_relaxed)) return 0;
    uint64_t held = counted(b);
    return held < b->limit ? b->limit - held : 0;
}

typedef struct budget_wait {
    scan_budget *b;
    int rank;
    const _Atomic int *stop;
    const _Atomic int *busy;
    scan_budget_ticket *t;
} budget_wait;

/* Whether task rank never waits (invariants 1 and 6). */
static bool exempt(scan_budget *b, int rank)
{
    return rank < b->base && (b->base == b->tasks || !b->share || atomic_load(&b->lead));
}

/* Takes a ticket of one split like the last (invariant 9); under *b->mp. */
static void ticket_take(scan_budget *b, scan_budget_ticket *t)
{
    t->bytes = atomic_load_explicit(&b->last, memory_order_relaxed);
    atomic_fetch_add_explicit(b->tp, t->bytes, memory_order_relaxed);
}

/* Wakes the scan's waiting tasks (with a share: every attached scan's). */
static void wake(scan_budget *b)
{
    if (b->share) scan_budget_share_wake(b->share);
    else if (atomic_load(&b->waiting) > 0 && b->wake) exec_event_signal(b->wake);
}

/* Gives back ticket t, if any (invariant 9), and wakes the waiting tasks. */
static void ticket_drop(scan_budget *b, scan_budget_ticket *t)
{
    if (!t->bytes && !t->forced) return;
    pthread_mutex_lock(b->mp);
    assert(atomic_load(b->tp) >= t->bytes && (!t->forced || atomic_load(b->fp) == 1));
    atomic_fetch_sub(b->tp, t->bytes);
    if (t->forced) atomic_store(b->fp, 0);
    pthread_mutex_unlock(b->mp);
    *t = (scan_budget_ticket){0};
    wake(b);
}

/* Whether a base task may start a split (invariant 8), taking its ticket (invariant 9):
 * nothing is gated, the split fits (held + pending + tickets + one more like the last below
 * the limit, without the hysteresis), or nothing else can free bytes: no split of the scan
 * runs, the consumer holds no batch and has none it can take, and no other forced start is
 * out. Under *b->mp. */
static bool base_may_start(scan_budget *b, scan_budget_ticket *t)
{
    if (b->base == b->tasks || b->limit == 0) return true;
    if (counted(b) + atomic_load_explicit(&b->last, memory_order_relaxed) < b->limit) {
        ticket_take(b, t);
        return true;
    }
    if (atomic_load(&b->running) > 0) return false; /* its end wakes us (invariant 3) */
    if (b->behind && b->behind(b->behind_ctx, 1)) return false; /* its next call wakes us */
    if (atomic_load(b->fp) > 0) return false; /* its reservation wakes us (invariant 9) */
    atomic_store(b->fp, 1);
    t->bytes = 0, t->forced = true;
    return true;
}

static bool admitted(void *ctx)
{
    budget_wait *w = ctx;
    if (atomic_load(w->stop)) return true;
    scan_budget *b = w->b;
    bool base = exempt(b, w->rank) || /* invariant 4: as a base task once closed */
                (atomic_load(&b->closed) && atomic_load(w->busy) == 0);
    pthread_mutex_lock(b->mp);
    bool go = base ? base_may_start(b, w->t) : scan_budget_room(b);
    if (go && !base) ticket_take(b, w->t);
    pthread_mutex_unlock(b->mp);
    return go;
}

void scan_budget_admit(scan_budget *b, exec_event *ev, int rank, const _Atomic int *stop,
                       const _Atomic int *busy, scan_budget_ticket *t)
{
    assert(rank >= 0 && rank < b->tasks && !t->bytes && !t->forced);
    if (b->base == b->tasks) return; /* nothing is gated: every task is a base task */
    budget_wait w = {.b = b, .rank = rank, .stop = stop, .busy = busy, .t = t};
    if (admitted(&w)) return;
    atomic_fetch_add(&b->waiting, 1); /* before the share's: its wake looks for this one */
    if (b->share) atomic_fetch_add(&b->share->waiting, 1);
    exec_event_wait_until(ev, admitted, &w);
    if (b->share) atomic_fetch_sub(&b->share->waiting, 1);
    atomic_fetch_sub(&b->waiting, 1);
}

/* The bytes of piece p inside the file's kept bytes. */
static uint64_t kept_overlap(const scan_budget *b, const scan_piece *p)
{
    uint64_t lo = p->off > b->kept_off ? p->off : b->kept_off;
    uint64_t end = p->off + p->len, kend = b->kept_off + b->kept_len; /* both within the file */
    uint64_t hi = end < kend ? end : kend;
    return hi > lo ? hi - lo : 0;
}

/* The bytes split sp reads (*in) and fetches outside the kept bytes (*fetch), each slot
 * weighed by reach (NULL: 1). */
static void split_bytes(const scan_budget *b, const scan_split *sp, int nslots, uint64_t *in,
                        uint64_t *fetch, const double *reach, const int *slot_pos)
{
    *in = 0, *fetch = 0;
    for (int c = 0; c < nslots; c++) {
        uint64_t len = 0, kept = 0;
        for (int k = 0; k < sp->cols[c].npieces; k++) {
            len += sp->cols[c].pieces[k].len;
            kept += kept_overlap(b, &sp->cols[c].pieces[k]);
        }
        double w = reach ? reach[slot_pos[c]] : 1.0;
        assert(w >= 0.0 && w <= 1.0 && kept <= len);
        *in += (uint64_t)((double)len * w); /* len is below the file's size: exact enough */
        *fetch += (uint64_t)((double)(len - kept) * w);
    }
}

uint64_t scan_budget_ahead(scan_budget *b, const scan_split *sp, int nslots)
{
    uint64_t in, fetch;
    if (b->limit == 0 || b->base == b->tasks || sp->pruned) return 0;
    split_bytes(b, sp, nslots, &in, &fetch, NULL, NULL);
    atomic_fetch_add_explicit(b->qp, fetch, memory_order_relaxed);
    return fetch;
}

void scan_budget_ahead_drop(scan_budget *b, uint64_t n)
{
    assert(atomic_load_explicit(b->qp, memory_order_relaxed) >= n);
    atomic_fetch_sub_explicit(b->qp, n, memory_order_relaxed);
}

uint64_t scan_budget_reserve(scan_budget *b, const scan_split *sp, int nslots, uint64_t *in,
                             uint64_t *fetch, const double *reach, const int *slot_pos,
                             scan_budget_ticket *t)
{
    *in = 0, *fetch = 0;
    if (b->limit == 0 || b->base == b->tasks || sp->pruned) {
        ticket_drop(b, t);
        return 0;
    }
    split_bytes(b, sp, nslots, in, fetch, reach, slot_pos);
    uint64_t seen_in = atomic_load_explicit(&b->read_in, memory_order_relaxed);
    uint64_t seen_out = atomic_load_explicit(&b->out_bytes, memory_order_relaxed);
    /* pieces are bounded by the file's size, so these products stay far below 2^64 */
    uint64_t out = seen_in ? (uint64_t)((unsigned __int128)*in * seen_out / seen_in)
                           : (uint64_t)((unsigned __int128)*in * b->seed16 / 16);
    uint64_t n = out; /* its reads count in io/ once issued (invariant 5), in pending until
                         the split ends (invariant 7) */
    io_held_add(b->hp, b->pp, n);
    atomic_fetch_add_explicit(b->qp, *fetch, memory_order_relaxed);
    atomic_store_explicit(&b->last, n + *in, memory_order_relaxed); /* decoded and read */
    ticket_drop(b, t); /* after: a check under its mutex sees the reservation (invariant 9) */
    return n;
}

void scan_budget_unreserve(scan_budget *b, uint64_t n, uint64_t in, uint64_t fetch, bool ok,
                           uint64_t out)
{
    assert(atomic_load_explicit(b->hp, memory_order_relaxed) >= n && fetch <= in);
    assert(atomic_load_explicit(b->qp, memory_order_relaxed) >= fetch);
    atomic_fetch_sub_explicit(b->hp, n, memory_order_relaxed);
    atomic_fetch_sub_explicit(b->qp, fetch, memory_order_relaxed);
    if (n == 0 || !ok) return;
    atomic_fetch_add_explicit(&b->read_in, in, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->out_bytes, out, memory_order_relaxed);
}

void scan_budget_runs(scan_budget *b)
{
    atomic_fetch_add(&b->running, 1);
}

void scan_budget_released(scan_budget *b)
{
    assert(atomic_load(&b->running) > 0 && b->wake);
    atomic_fetch_sub(&b->running, 1); /* before the wake: a base task waiting on it goes */
    wake(b);
}

void scan_budget_left(scan_budget *b, exec_event *ev, int rank, scan_budget_ticket *t)
{
    ticket_drop(b, t);
    if (rank >= b->base || atomic_exchange(&b->closed, true)) return;
    exec_event_signal(ev);
}
