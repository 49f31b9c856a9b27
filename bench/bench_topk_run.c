/* bench/bench_topk_run.c: one run of a `bench topk` arm (bench_topk.h): its scanners over
 * their blocks of row groups, then the merge of their answers checked against the model.
 *
 * Threads: one host thread per scanner, each opening the file and running a one-core scan
 * (scan_start), all at once; sharing on gives every scan the same zeroed flt_dyn
 * (scan_opts.topk_cell), so a bound one publishes is the others' next load.
 * Processes: one forked child per scanner, each scanning through the public API
 * (ringscan.h) and writing its part to shared memory. Sharing on links every child to this
 * process by two pipes: the child sends its bound up each time it tightens (from the scan's
 * options.on_topk_bound, called by the split that tightened it: a write of one small record
 * to a pipe the hub drains), and this process, the hub, forwards every stricter bound down to
 * the other children, whose offer thread hands it to ringscan_scan_offer_bound.
 *
 * Invariants:
 *  1. A child holds only its own pipe ends (every other is closed after fork), so its up pipe
 *     ends exactly when it has finished scanning; the hub then closes its down pipe, which
 *     ends the child's offer thread; the child frees its scan only after that thread joined.
 *  3. Sharing on, before scanning, each child sends the bound its groups' statistics seed
 *     (ringscan_topk_seed, metadata only; unset when they prove none) and waits for the
 *     hub's answer, the strictest of all, which it starts from (options.topk_bound): the
 *     groups a sibling's seed rules out are pruned at planning, as an engine's coordinator
 *     would hand its workers the best bound it knows.
 *  2. The merge sorts every scanner's rows by score DESC, then id (file order: the scan's tie
 *     rule) and cuts at K; each scanner returns at most K rows. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench_topk.h"
#include "ringscan.h"
#include "scan/arrow.h"
#include "scan/pqfile.h"

static const char *const proj_names[] = {"score", "id", "payload"};

/* The row groups of scanner i of n: [i * G / n, (i + 1) * G / n). */
static int groups_of(const topk_bench_file *f, int i, int n, int *g)
{
    int64_t G = f->gen.row_groups, lo = i * G / n, hi = (i + 1) * G / n;
    for (int64_t x = lo; x < hi; x++) g[x - lo] = (int)x;
    return (int)(hi - lo);
}

static void part_fail(topk_bench_part *p, int rc, const char *what, const char *msg)
{
    p->rc = rc ? rc : -1;
    snprintf(p->err, sizeof p->err, "%s: %s", what, msg && msg[0] ? msg : strerror(rc < 0 ? -rc : EIO));
}

/* ---------------------------------------------------------------------------- threads */

typedef struct thr_ctx {
    const bench_topk_opts *o;
    const topk_bench_file *f;
    const topk_bench_arm *a;
    int idx;
    flt_dyn *cell;            /* shared, or NULL */
    topk_bench_part *part;
    pthread_t th;
} thr_ctx;

/* Drains s into p: the first K rows' score and id (cols 0 and 1 of the projection). */
static int drain_internal(scan_t *s, topk_bench_part *p, pq_err *e)
{
    scan_batch b;
    int rc;
    while ((rc = scan_next(s, &b, e)) == 1) {
        const int64_t *sc = (const int64_t *)b.cols[0].values, *id = (const int64_t *)b.cols[1].values;
        for (int64_t i = 0; i < b.rows && p->n < TOPK_BENCH_K; i++, p->n++)
            p->score[p->n] = sc[i], p->id[p->n] = id[i];
        scan_batch_free(&b);
    }
    return rc;
}

static int open_internal(thr_ctx *c, pqf_t **f, int *proj, flt_expr **filter, pq_err *e)
{
    int rc = pqf_open(f, c->f->path, NULL, e);
    for (int j = 0; rc == 0 && j < 3; j++)
        if ((proj[j] = pq_file_meta_find_column(&(*f)->meta, proj_names[j])) < 0)
            rc = pq_errf(e, RINGSCAN_EFORMAT, -1, "no column %s", proj_names[j]);
    if (rc == 0 && c->a->layout == TOPK_LAYOUT_CONTROL)
        rc = flt_parse("flag = 0", (*f)->meta.columns, (*f)->meta.ncolumns, filter, e);
    return rc;
}

static void *thread_scanner(void *arg)
{
    thr_ctx *c = arg;
    topk_bench_part *p = c->part;
    int groups[TOPK_BENCH_ROW_GROUPS_MAX], proj[3];
    pqf_t *f = NULL;
    flt_expr *filter = NULL;
    scan_t *s = NULL;
    pq_err e = {.offset = -1};
    int rc = open_internal(c, &f, proj, &filter, &e);
    scan_opts so;
    scan_opts_default(&so);
    so.threads = 1, so.io = c->o->io, so.limit = TOPK_BENCH_K, so.nkeys = 1;
    so.keys[0] = (scan_order_key){.col = proj[0], .desc = true};
    so.rg_order = groups, so.nrg_order = groups_of(c->f, c->idx, c->a->scanners, groups);
    so.topk_cell = c->cell, so.topk_no_seed = c->a->no_seed;
    if (rc == 0) rc = scan_start(f, proj, 3, filter, &so, &s, &e);
    else flt_expr_free(filter);
    if (rc == 0) rc = drain_internal(s, p, &e);
    if (rc) part_fail(p, rc, "scan", e.msg);
    if (s) {
        scan_stats st;
        scan_get_stats(s, &st);
        p->bytes_read = st.bytes_read, p->reads = st.reads, p->cancelled_reads = st.cancelled_reads;
        p->row_groups_pruned = st.row_groups_pruned, p->pages_pruned = st.pages_pruned;
        p->splits_dead = st.topk_splits_dead, p->rows_kept = st.topk_rows_kept;
        scan_free(s);
    }
    if (f) pqf_close(f);
    return NULL;
}

static int run_threads(const bench_topk_opts *o, const topk_bench_file *f, const topk_bench_arm *a,
                       topk_bench_part *parts)
{
    flt_dyn cell;
    memset(&cell, 0, sizeof cell); /* scan.h: a shared cell is zeroed by the caller */
    thr_ctx c[TOPK_BENCH_SCANNERS_MAX];
    int started = 0;
    for (int i = 0; i < a->scanners; i++) {
        c[i] = (thr_ctx){.o = o, .f = f, .a = a, .idx = i, .cell = a->share ? &cell : NULL, .part = &parts[i]};
        if (pthread_create(&c[i].th, NULL, thread_scanner, &c[i]) != 0) {
            part_fail(&parts[i], -EAGAIN, "pthread_create", NULL);
            break;
        }
        started++;
    }
    for (int i = 0; i < started; i++) pthread_join(c[i].th, NULL);
    return started == a->scanners ? 0 : -1;
}

/* ---------------------------------------------------------------------------- processes */

typedef struct link_ctx {
    ringscan_scan *s;
    int fd;
} link_ctx;

/* Offers every bound the hub sends until it closes the pipe. */
static void *offer_loop(void *arg)
{
    link_ctx *c = arg;
    ringscan_topk_bound b;
    while (read(c->fd, &b, sizeof b) == (ssize_t)sizeof b) (void)ringscan_scan_offer_bound(c->s, &b);
    return NULL;
}

/* options.on_topk_bound: sends the bound up (ctx: the up pipe's fd). A record under
 * PIPE_BUF is written whole; a failed write (the hub gone) only loses sharing, never the
 * answer. */
static void send_bound(void *ctx, const ringscan_topk_bound *b)
{
    _Static_assert(sizeof *b <= PIPE_BUF, "a bound is one atomic pipe write");
    const int *fd = ctx;
    ssize_t n = write(*fd, b, sizeof *b);
    (void)n;
}

static int drain_public(ringscan_scan *s, topk_bench_part *p, ringscan_error *err)
{
    struct ArrowArray arr;
    int rc;
    while ((rc = ringscan_scan_next(s, &arr, err)) == 1) {
        const struct ArrowArray *cs = arr.children[0], *ci = arr.children[1];
        const int64_t *sc = (const int64_t *)cs->buffers[1] + cs->offset;
        const int64_t *id = (const int64_t *)ci->buffers[1] + ci->offset;
        for (int64_t i = 0; i < arr.length && p->n < TOPK_BENCH_K; i++, p->n++)
            p->score[p->n] = sc[i], p->id[p->n] = id[i];
        arr.release(&arr);
    }
    return rc;
}

/* Before scanning (invariant 3): sends the seed its statistics give (set or not) up and
 * waits for the hub's strictest of every child's, into *start. 0 or a status. */
static int exchange_seed(ringscan_file *file, const ringscan_options *ro, int up, int down,
                         ringscan_topk_bound *start, ringscan_error *err)
{
    ringscan_topk_bound seed;
    int rc = ringscan_topk_seed(file, ro, &seed, err);
    if (rc) return rc;
    if (write(up, &seed, sizeof seed) != (ssize_t)sizeof seed) return -EPIPE;
    if (read(down, start, sizeof *start) != (ssize_t)sizeof *start) return -EPIPE;
    return 0;
}

/* A child's scan of its groups; up/down are -1 when not sharing. */
static int child_scan(const bench_topk_opts *o, const topk_bench_file *f, const topk_bench_arm *a,
                      int idx, int up, int down, topk_bench_part *p)
{
    static const ringscan_io io_of[] = {RINGSCAN_IO_AUTO, RINGSCAN_IO_URING, RINGSCAN_IO_PREAD};
    int groups[TOPK_BENCH_ROW_GROUPS_MAX];
    ringscan_file *file = NULL;
    ringscan_error err = {0};
    ringscan_scan *s = NULL;
    int rc = ringscan_open(f->path, &file, &err);
    ringscan_options ro;
    ringscan_options_init(&ro);
    ro.columns = proj_names, ro.ncolumns = 3, ro.order_by = "score DESC", ro.limit = TOPK_BENCH_K;
    ro.filter = a->layout == TOPK_LAYOUT_CONTROL ? "flag = 0" : NULL;
    ro.row_groups = groups, ro.nrow_groups = groups_of(f, idx, a->scanners, groups);
    ro.threads = 1, ro.io = io_of[o->io];
    ringscan_topk_bound start = {0};
    if (rc == 0 && up >= 0) rc = exchange_seed(file, &ro, up, down, &start, &err);
    if (start.set) ro.topk_bound = &start;
    if (up >= 0) ro.on_topk_bound = send_bound, ro.on_topk_bound_ctx = &up;
    if (rc == 0) rc = ringscan_scan_start(file, &ro, &s, &err);
    link_ctx in = {.s = s, .fd = down};
    pthread_t ti;
    bool offers = rc == 0 && up >= 0 && pthread_create(&ti, NULL, offer_loop, &in) == 0;
    if (rc == 0) rc = drain_public(s, p, &err);
    if (up >= 0) close(up); /* invariant 1: the hub now closes down; no split runs any more */
    if (offers) pthread_join(ti, NULL);
    if (rc) part_fail(p, rc, "scan", err.message);
    if (s) {
        ringscan_stats st;
        ringscan_scan_stats(s, &st);
        p->bytes_read = st.bytes_read, p->reads = st.reads, p->cancelled_reads = st.cancelled_reads;
        p->row_groups_pruned = st.row_groups_pruned, p->pages_pruned = st.pages_pruned;
        p->splits_dead = st.topk_splits_pruned, p->rows_kept = st.topk_rows_kept;
    }
    ringscan_scan_free(s);
    ringscan_close(file);
    return rc;
}

/* The hub: reads bounds from every child's up pipe and forwards each stricter one to the
 * other children; closes a child's down pipe when its up pipe ends (invariant 1). */
static void hub(int n, int *up, int *down)
{
    struct pollfd pf[TOPK_BENCH_SCANNERS_MAX];
    ringscan_topk_bound best = {0};
    int open_n = n;
    for (int i = 0; i < n; i++) { /* invariant 3: every child's seed first */
        ringscan_topk_bound b;
        if (read(up[i], &b, sizeof b) == (ssize_t)sizeof b && b.set && (!best.set || b.i > best.i))
            best = b;
    }
    for (int i = 0; i < n; i++) (void)!write(down[i], &best, sizeof best);
    for (int i = 0; i < n; i++) pf[i] = (struct pollfd){.fd = up[i], .events = POLLIN};
    while (open_n > 0) {
        if (poll(pf, (nfds_t)n, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < n; i++) {
            if (pf[i].fd < 0 || !pf[i].revents) continue;
            ringscan_topk_bound b;
            if (read(pf[i].fd, &b, sizeof b) != (ssize_t)sizeof b) { /* the child is done */
                close(pf[i].fd), close(down[i]);
                pf[i].fd = -1, down[i] = -1, open_n--;
                continue;
            }
            if (!b.set || (best.set && b.i <= best.i)) continue; /* DESC: larger is stricter */
            best = b;
            for (int j = 0; j < n; j++)
                if (j != i && down[j] >= 0) (void)!write(down[j], &b, sizeof b);
        }
    }
    for (int i = 0; i < n; i++)
        if (down[i] >= 0) close(down[i]);
}

/* Forks the scanners; sharing on, runs the hub until every child has finished. */
static int run_procs(const bench_topk_opts *o, const topk_bench_file *f, const topk_bench_arm *a,
                     topk_bench_part *parts)
{
    int n = a->scanners, up[TOPK_BENCH_SCANNERS_MAX][2], down[TOPK_BENCH_SCANNERS_MAX][2];
    pid_t pid[TOPK_BENCH_SCANNERS_MAX];
    for (int i = 0; i < n; i++) {
        up[i][0] = up[i][1] = down[i][0] = down[i][1] = -1;
        if (a->share && (pipe(up[i]) != 0 || pipe(down[i]) != 0)) return -1;
    }
    int forked = 0;
    for (int i = 0; i < n; i++, forked++) {
        if ((pid[i] = fork()) < 0) break;
        if (pid[i] > 0) continue;
        for (int j = 0; j < n; j++) { /* invariant 1: only its own ends */
            if (up[j][0] >= 0) close(up[j][0]), close(down[j][1]);
            if (j != i && up[j][1] >= 0) close(up[j][1]), close(down[j][0]);
        }
        _exit(child_scan(o, f, a, i, up[i][1], down[i][0], &parts[i]) == 0 ? 0 : 1);
    }
    int hu[TOPK_BENCH_SCANNERS_MAX], hd[TOPK_BENCH_SCANNERS_MAX];
    for (int i = 0; i < n; i++) {
        if (up[i][1] >= 0) close(up[i][1]), close(down[i][0]);
        hu[i] = up[i][0], hd[i] = down[i][1];
    }
    if (a->share && forked == n) hub(n, hu, hd);
    for (int i = 0; a->share && forked < n && i < n; i++) close(hu[i]), close(hd[i]);
    int bad = forked < n;
    for (int i = 0; i < forked; i++) {
        int status = 0;
        bad |= waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    return bad ? -1 : 0;
}

/* ---------------------------------------------------------------------------- merge */

typedef struct row {
    int64_t score, id;
} row;

static int row_cmp(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Invariant 2: the merged answer equals the model's. */
static bool merged_equals(const topk_bench_file *f, const topk_bench_part *parts, int n)
{
    row all[TOPK_BENCH_SCANNERS_MAX * TOPK_BENCH_K];
    int64_t m = 0;
    for (int i = 0; i < n; i++)
        for (int64_t r = 0; r < parts[i].n; r++) all[m++] = (row){parts[i].score[r], parts[i].id[r]};
    qsort(all, (size_t)m, sizeof *all, row_cmp);
    if (m > TOPK_BENCH_K) m = TOPK_BENCH_K;
    bool ok = m == f->nexpect;
    for (int64_t r = 0; ok && r < m; r++) ok = all[r].id == f->expect[r];
    return ok;
}

int topk_bench_run_arm(const bench_topk_opts *o, const topk_bench_file *f,
                       const topk_bench_arm *a, topk_bench_run *out, char *err, size_t cap)
{
    size_t bytes = sizeof(topk_bench_part) * (size_t)a->scanners;
    topk_bench_part *parts = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (parts == MAP_FAILED) return snprintf(err, cap, "mmap: %s", strerror(errno)), -1;
    memset(parts, 0, bytes);
    memset(out, 0, sizeof *out);
    double t0 = bench_now_ms();
    int rc = a->mode == TOPK_MODE_THREADS ? run_threads(o, f, a, parts) : run_procs(o, f, a, parts);
    out->match = rc == 0 && merged_equals(f, parts, a->scanners);
    out->ms = bench_now_ms() - t0;
    if (rc) snprintf(err, cap, "%s: a scanner did not start or exit", a->label);
    for (int i = 0; i < a->scanners; i++) {
        const topk_bench_part *p = &parts[i];
        if (p->rc && rc == 0) rc = -1, snprintf(err, cap, "%s: scanner %d: %s", a->label, i, p->err);
        out->bytes_read += p->bytes_read, out->reads += p->reads, out->cancelled_reads += p->cancelled_reads;
        out->row_groups_pruned += p->row_groups_pruned, out->pages_pruned += p->pages_pruned;
        out->splits_dead += p->splits_dead, out->rows_kept += p->rows_kept;
    }
    munmap(parts, bytes);
    return rc;
}
