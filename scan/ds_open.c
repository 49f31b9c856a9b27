/* scan/ds_open.c: a dataset's footers (ds_impl.h ds_footers): read as futures by up to
 * DS_FOOTER_TASKS tasks on the dataset's runtime (pqf_async.c: the open - a URL's suffix GET -
 * and a tail read, a second for a longer footer, each awaited while the core runs other work);
 * in windows of kept files, for the schema
 * (max_open each) and for the files' scans (max_open / 2 each, the next window read ahead in
 * the background while the files of one are planned and scanned: ds_footers_need), held until
 * their file's scan ends; the schema built from them.
 *
 * Invariants:
 *  1. The slots of [next, end) belong to the footer tasks of the window being read until it
 *     is joined (tasks == 0); the host touches them after, and reads those the cursor did
 *     not hand out (tasks a core could not create: ds_footers_open).
 *  2. A core's footer io context (cores[c].io) exists while a footer task runs there: the
 *     first task on the core makes it, the last frees it, so none outlives the window and
 *     the host never touches it.
 *  3. A cancel (cancel_footers, from the thread that stops the scan) sets stop, then posts a
 *     message to each core that cancels that core's footer io context: a task sees stop
 *     before its next footer, or has registered that footer's open or read when the message
 *     runs (a task runs until it waits), and the context refuses every read after. The
 *     messages are counted in posts until they ran, so f outlives them (join_readers). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/status.h"
#include "scan/ds_impl.h"
#include "scan/fetch.h"
#include "scan/pqf_async.h"
#include "scan/scan_rt.h"

/* DS_TAIL_BYTES: a dataset file's footer read: DuckDB's files of 76,000 lineitem rows have
 * 12 KB footers; a larger one costs a second read */
enum { DS_TAIL_BYTES = 64 << 10 };

int ds_footers_init(ds_footers *f, const ds_list *l, const io_open_opts *io, int max_open,
                    scan_budget_share *share)
{
    *f = (ds_footers){.list = l, .io = io, .max_open = max_open, .share = share};
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->slots = fail_calloc((size_t)l->nfiles + 1, sizeof *f->slots);
    return f->slots ? 0 : -ENOMEM;
}

/* n of f's footer tasks or cancel messages ended (or were never made); the host's join
 * wakes when none is left. */
static void tasks_end(ds_footers *f, int n, int posts)
{
    pthread_mutex_lock(&f->mu);
    f->tasks -= n, f->posts -= posts;
    if (f->tasks == 0 && f->posts == 0) pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* On a core (invariant 3): its footer tasks' reads and opens cancelled, and every later one
 * on their io context (io_ctx_cancel_reads). */
static void cancel_core(void *arg)
{
    ds_fcore *c = arg;
    if (c->io) io_ctx_cancel_reads(c->io);
    tasks_end(c->f, 0, 1);
}

/* The runtime's cancel (scan_rt.h: any thread, under rt->mu): no footer read starts after
 * it, the ones in flight cancelled on their cores. */
static void cancel_footers(void *arg)
{
    ds_footers *f = arg;
    atomic_store(&f->stop, true); /* before the posts: a task that missed it has its reads
                                     registered when the message runs (invariant 3) */
    for (int c = 0; c < f->rt->threads; c++) {
        pthread_mutex_lock(&f->mu);
        f->posts++;
        pthread_mutex_unlock(&f->mu);
        if (exec_post(exec_group_core(f->rt->g, c), cancel_core, &f->cores[c]) != 0)
            tasks_end(f, 0, 1); /* (a full inbox: that core's reads run to their end) */
    }
}

int ds_footers_run_on(ds_footers *f, scan_rt *rt)
{
    f->cores = fail_calloc((size_t)rt->threads, sizeof *f->cores);
    if (!f->cores) return -ENOMEM;
    for (int c = 0; c < rt->threads; c++) f->cores[c].f = f;
    f->rt = rt;
    f->member = (scan_rt_member){.cancel = cancel_footers, .arg = f};
    scan_rt_join(rt, &f->member);
    return 0;
}

/* What an open footer holds from the file: its serialized metadata, the index bytes and the
 * column chunks its tail held (io_file_t.kept: counted here once, not by the reads they
 * serve, which hold no buffer). */
static uint64_t footer_bytes(const pqf_t *p)
{
    return (uint64_t)p->meta_len + (uint64_t)p->index_len + (uint64_t)p->file->kept_len;
}

void ds_footers_close(ds_footers *f, int i)
{
    if (f->slots[i].held) return; /* a nested column's shape: closed by ds_footers_free */
    pqf_t *p = f->slots[i].f;
    if (!p) return;
    if (f->share) scan_budget_share_footer(f->share, -(int64_t)footer_bytes(p));
    pqf_close(p), f->slots[i].f = NULL;
}

void ds_footers_free(ds_footers *f)
{
    if (f->rt) scan_rt_part(f->rt, &f->member); /* no cancel posts after */
    ds_footers_join(f);
    for (int i = 0; f->slots && i < f->list->nfiles; i++) f->slots[i].held = false, ds_footers_close(f, i);
    free(f->slots), free(f->cores);
    f->slots = NULL, f->cores = NULL;
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
}

/* Reads the footers of the window's slots the cursor hands out: through io on a core (a task),
 * or blocking (io NULL: the host when no task could be spawned, or a task whose core could
 * make no io context). */
static void read_window(ds_footers *f, io_ctx_t *io)
{
    for (;;) {
        int i = atomic_fetch_add(&f->next, 1);
        if (i >= f->end) return;
        ds_slot *sl = &f->slots[i];
        if (sl->pruned || sl->f || sl->rc) continue;
        sl->e = (pq_err){.offset = -1};
        const char *path = f->list->files[i].path;
        if (atomic_load(&f->stop)) { /* cancel_footers */
            sl->rc = pq_errf(&sl->e, -ECANCELED, -1, "footer read cancelled: the scan was stopped");
            continue;
        }
        sl->rc = io ? pqf_open_async(&sl->f, io, path, f->io, DS_TAIL_BYTES, NULL, &sl->e)
                    : pqf_open_tail(&sl->f, path, f->io, DS_TAIL_BYTES, NULL, &sl->e);
        uint64_t n = sl->rc ? 0 : footer_bytes(sl->f);
        if (f->share && n) scan_budget_share_footer(f->share, (int64_t)n);
        atomic_fetch_add(&f->bytes, n);
        atomic_fetch_add(&f->reads, sl->rc ? 1 : sl->f->tail_reads);
        atomic_fetch_add(&f->on_cores, io != NULL);
        atomic_fetch_add(&f->read, 1);
    }
}

static void spawn_failed(void *arg, int missing, int status)
{
    (void)status;
    tasks_end(arg, missing, 0);
}

/* A footer task (invariant 2): the core's io context shared by its footer tasks. */
static void footer_task(void *arg)
{
    ds_footers *f = arg;
    exec_t *e = exec_current();
    ds_fcore *c = &f->cores[exec_core_index(e)];
    io_opts_t o = io_opts_default();
    o.coalesce = false; /* one file's tail, then its metadata: nothing to merge */
    if (c->tasks++ == 0 && io_ctx_new(&c->io, e, &o) != 0) c->io = NULL;
    read_window(f, c->io);
    if (--c->tasks == 0 && c->io) io_ctx_free(c->io), c->io = NULL;
    tasks_end(f, 1, 0);
}

/* Spawns the readers of the window [next, end) of want footers: up to DS_FOOTER_TASKS tasks
 * spread over the runtime's cores. Returns how many were spawned (0: none could be, the inbox
 * full or no runtime; the caller reads them itself then). */
static int start_readers(ds_footers *f, int want)
{
    int spawned = 0;
    int n = want < DS_FOOTER_TASKS ? want : DS_FOOTER_TASKS;
    for (int c = 0; f->rt && c < f->rt->threads; c++) {
        int k = n / f->rt->threads + (c < n % f->rt->threads);
        if (k == 0) continue;
        pthread_mutex_lock(&f->mu);
        f->tasks += k;
        pthread_mutex_unlock(&f->mu);
        if (exec_group_spawn(f->rt->g, c, footer_task, f, k, spawn_failed) != 0) tasks_end(f, k, 0);
        else spawned += k;
    }
    return spawned;
}

/* Waits until every footer task spawned has ended (invariant 1), and every cancel message
 * posted has run (invariant 3). */
static void join_readers(ds_footers *f)
{
    pthread_mutex_lock(&f->mu);
    while (f->tasks > 0 || f->posts > 0) pthread_cond_wait(&f->cv, &f->mu);
    pthread_mutex_unlock(&f->mu);
}

/* The footers of [from, to) not read yet and not pruned. */
static int unread(const ds_footers *f, int from, int to)
{
    int want = 0;
    for (int i = from; i < to; i++) want += !f->slots[i].pruned && !f->slots[i].f;
    return want;
}

void ds_footers_open(ds_footers *f, int from, int to)
{
    atomic_store(&f->next, from);
    f->end = to;
    (void)start_readers(f, unread(f, from, to));
    join_readers(f);
    /* blocking: no reader started, or tasks spawned that their core could not create
     * (spawn_failed) left slots unhanded (a slot neither read nor failed was dereferenced) */
    read_window(f, NULL);
}

int ds_footers_window_end(const ds_footers *f, int from, int kept_max)
{
    int kept = 0, i = from;
    for (; i < f->list->nfiles && kept < kept_max; i++) kept += !f->slots[i].pruned;
    return i;
}

/* (ds_impl.h; the cursor and its slots are this thread's again) */
void ds_footers_join(ds_footers *f)
{
    join_readers(f);
    if (f->ahead_to > 0) f->win_end = f->ahead_to;
    f->ahead_to = 0;
}

/* Starts reading the footers of [from, to) in the background (none when no reader starts:
 * ds_footers_need reads them when their turn comes). */
static void start_ahead(ds_footers *f, int from, int to)
{
    atomic_store(&f->next, from);
    f->end = to, f->ahead_to = to;
    (void)start_readers(f, unread(f, from, to));
}

/* Whether the next window of n files fits the fetch budget's room at the footers' mean
 * size so far (always without a budget, or before any footer was read). */
static bool ahead_fits(ds_footers *f, int n)
{
    int64_t read = atomic_load(&f->read);
    if (!f->share || read == 0) return true;
    uint64_t mean = atomic_load(&f->bytes) / (uint64_t)read;
    uint64_t held = atomic_load_explicit(&f->share->held, memory_order_relaxed);
    return held + mean * (uint64_t)n < f->share->limit;
}

/* The kept files of a window read for the scans (ds_footers_need). */
static int half_window(const ds_footers *f)
{
    return f->max_open / 2 > 0 ? f->max_open / 2 : 1;
}

void ds_footers_need(ds_footers *f, int i)
{
    int half = half_window(f);
    if (f->ahead_to > 0 && i >= f->win_end && i < f->ahead_to) ds_footers_join(f); /* its turn */
    ds_slot *sl = &f->slots[i];
    if (!sl->f && !sl->rc) { /* past every window read: read its own now */
        ds_footers_join(f);
        f->win_end = ds_footers_window_end(f, i, half);
        ds_footers_open(f, i, f->win_end);
    }
    if (f->ahead_to == 0 && f->win_end > i && f->win_end < f->list->nfiles && ahead_fits(f, half))
        start_ahead(f, f->win_end, ds_footers_window_end(f, f->win_end, half));
}

bool ds_footers_try(ds_footers *f, int i)
{
    if (f->ahead_to > 0 && i >= f->win_end && i < f->ahead_to) {
        pthread_mutex_lock(&f->mu);
        bool reading = f->tasks > 0;
        pthread_mutex_unlock(&f->mu);
        if (reading) return false; /* invariant 1: the slot is a task's */
        ds_footers_join(f);
    }
    const ds_slot *sl = &f->slots[i];
    if (sl->pruned || sl->f || sl->rc) return true;
    if (f->ahead_to == 0) { /* the slots before i were handed out: i's window is next */
        f->win_end = i;
        start_ahead(f, i, ds_footers_window_end(f, i, half_window(f)));
    }
    return false;
}

int ds_footers_error(const ds_footers *f, int i, pq_err *e)
{
    const ds_slot *sl = &f->slots[i];
    *e = sl->e;
    return ds_file_errf(e, sl->rc, f->list->files[i].path,
                        sl->e.msg[0] ? sl->e.msg : status_text(sl->rc));
}

/* Keeps file i's footer open while s takes a nested column's shape from it. */
static void hold(ds_footers *f, const ds_schema *s, int i)
{
    f->slots[i].held = f->slots[i].held || ds_schema_holds(s, &f->slots[i].f->meta);
}

/* Every file pruned: the first file's columns, as DuckDB binds to it. */
static int first_schema(ds_footers *f, ds_schema *s, pq_err *e)
{
    f->slots[0].pruned = false;
    ds_footers_open(f, 0, 1);
    f->slots[0].pruned = true;
    if (f->slots[0].rc) return ds_footers_error(f, 0, e);
    int rc = ds_schema_add(s, &f->slots[0].f->meta, f->list->files[0].path, true, e);
    hold(f, s, 0);
    ds_footers_close(f, 0);
    return rc;
}

int ds_footers_schema(ds_footers *f, ds_schema *s, bool union_by_name, pq_err *e)
{
    const ds_list *l = f->list;
    int first = 0, nkept = 0, rc = 0;
    while (first < l->nfiles && f->slots[first].pruned) first++;
    for (int i = 0; i < l->nfiles; i++) nkept += !f->slots[i].pruned;
    if (first == l->nfiles) return first_schema(f, s, e);
    bool keep = nkept <= f->max_open;
    for (int w = first; rc == 0 && w < l->nfiles;) {
        int end = ds_footers_window_end(f, w, f->max_open);
        ds_footers_open(f, w, end);
        for (int i = w; rc == 0 && i < end; i++) {
            if (f->slots[i].pruned) continue;
            if (f->slots[i].rc) return ds_footers_error(f, i, e);
            rc = ds_schema_add(s, &f->slots[i].f->meta, l->files[i].path, true, e);
            hold(f, s, i);
            if (!union_by_name) return rc; /* the first file's columns (its window kept) */
            if (!keep) ds_footers_close(f, i);
        }
        w = end;
    }
    return rc;
}

int ds_footers_schema_pruned(ds_footers *f, ds_schema *s, pq_err *e)
{
    const ds_list *l = f->list;
    int rc = 0;
    for (int w = 0; rc == 0 && w < l->nfiles; w += f->max_open) {
        int end = w + f->max_open < l->nfiles ? w + f->max_open : l->nfiles, k;
        for (k = w; k < end; k++) f->slots[k].pruned = !f->slots[k].pruned; /* the pruned only */
        ds_footers_open(f, w, end);
        for (k = w; k < end; k++) f->slots[k].pruned = !f->slots[k].pruned;
        for (k = w; rc == 0 && k < end; k++) {
            if (!f->slots[k].pruned) continue;
            if (f->slots[k].rc) return ds_footers_error(f, k, e);
            rc = ds_schema_add(s, &f->slots[k].f->meta, l->files[k].path, true, e);
            hold(f, s, k);
            ds_footers_close(f, k);
        }
    }
    return rc;
}
