/* Top-K bounds shared across processes (ringscan_scan_topk_bound, ringscan_scan_offer_bound,
 * options.topk_bound): two processes scan disjoint row groups of one file (the layouts of
 * `ringscan gen topk`), exchanging bounds over pipes. A scanner given a sibling's bound returns
 * only its rows that can still make the cut, and the merge of both outputs, sorted and cut at
 * K, equals the model's answer exactly (ties included). On the pruning layout the scanner of
 * the low groups, given the high groups' bound before planning, prunes every group unread. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/topk_gen.h"
#include "check.h"
#include "ringscan.h"
#include "scan/arrow.h"
#include "test_scan_common.h"

enum { G = 16, R = 4096, K = 100 };

typedef struct answer {
    int64_t n;
    int64_t score[K], id[K];
    ringscan_stats st;
    ringscan_topk_bound bound; /* at the end */
    int64_t ncalls;            /* options.on_topk_bound calls */
    int64_t best_notified;     /* the strictest (largest) bound they reported */
} answer;

static char path[2][256];
static const topk_gen *gens[2];

static int write_file(const topk_gen *g, const char *p)
{
    pq_column_desc d[TOPK_COLS];
    topk_gen_schema(d);
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = R;
    wo.page_rows = 512;
    FILE *fp = fopen(p, "wb");
    pq_writer *w = NULL;
    pq_err e = {.offset = -1};
    int rc = fp ? pq_writer_open(&w, d, TOPK_COLS, &wo, ts_file_sink, fp, &e) : -errno;
    if (rc == 0) rc = topk_gen_write(g, w, NULL, NULL, &e);
    if (rc == 0) rc = pq_writer_close(w, &e);
    pq_writer_free(w);
    if (fp) fclose(fp);
    return rc;
}

/* The live exchange: a thread offering what the sibling sends (fd) until it closes. */
typedef struct offer_ctx {
    ringscan_scan *s;
    int fd;
    int offered;
} offer_ctx;

static void *offer_loop(void *arg)
{
    offer_ctx *c = arg;
    ringscan_topk_bound b;
    while (read(c->fd, &b, sizeof b) == (ssize_t)sizeof b) c->offered += ringscan_scan_offer_bound(c->s, &b) == 1;
    return NULL;
}

/* options.on_topk_bound: sends the bound to fd (when >= 0) and records it; called from the
 * scan's cores, so under a lock. */
typedef struct send_ctx {
    pthread_mutex_t mu;
    int fd;
    answer *a;
    bool bad;                  /* a call without a set integer bound */
} send_ctx;

static void send_bound(void *ctx, const ringscan_topk_bound *b)
{
    send_ctx *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->bad = c->bad || !b->set || b->is_float;
    if (c->a->ncalls++ == 0 || b->i > c->a->best_notified) c->a->best_notified = b->i;
    if (c->fd >= 0) (void)!write(c->fd, b, sizeof *b);
    pthread_mutex_unlock(&c->mu);
}

/* Scans groups [lo, hi) of file which (ORDER BY score DESC LIMIT K, optional flag = 0), starting
 * from *start when given; with in/out fds, exchanges bounds live. */
static int scan_part(int which, int lo, int hi, bool where, const ringscan_topk_bound *start,
                     int in_fd, int out_fd, answer *a)
{
    memset(a, 0, sizeof *a);
    ringscan_file *f = NULL;
    ringscan_error err;
    if (ringscan_open(path[which], &f, &err)) return -1;
    int groups[G], n = 0;
    for (int g = lo; g < hi; g++) groups[n++] = g;
    const char *cols[] = {"score", "id"};
    ringscan_options o;
    ringscan_options_init(&o);
    o.columns = cols, o.ncolumns = 2;
    o.order_by = "score DESC";
    o.limit = K;
    o.filter = where ? "flag = 0" : NULL;
    o.row_groups = groups, o.nrow_groups = n;
    o.topk_bound = start;
    send_ctx sc = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = out_fd, .a = a};
    o.on_topk_bound = send_bound, o.on_topk_bound_ctx = &sc;
    ringscan_scan *s = NULL;
    int rc = ringscan_scan_start(f, &o, &s, &err);
    offer_ctx oc = {.s = s, .fd = in_fd};
    pthread_t ot;
    if (rc == 0 && in_fd >= 0) pthread_create(&ot, NULL, offer_loop, &oc);
    struct ArrowArray arr;
    while (rc == 0 && (rc = ringscan_scan_next(s, &arr, &err)) == 1) {
        rc = 0;
        const int64_t *sc_v = arr.children[0]->buffers[1], *id_v = arr.children[1]->buffers[1];
        for (int64_t i = 0; i < arr.length && a->n < K; i++, a->n++)
            a->score[a->n] = sc_v[i], a->id[a->n] = id_v[i];
        arr.release(&arr);
    }
    if (rc) fprintf(stderr, "  scan: rc %d: %s\n", rc, err.message);
    CHECK(!sc.bad);
    if (s) ringscan_scan_topk_bound(s, &a->bound);
    if (out_fd >= 0 && a->bound.set) (void)!write(out_fd, &a->bound, sizeof a->bound);
    if (out_fd >= 0) close(out_fd);
    if (in_fd >= 0 && s) pthread_join(ot, NULL);
    ringscan_scan_stats(s, &a->st);
    ringscan_scan_free(s);
    ringscan_close(f);
    return rc;
}

/* Merges two answers (each best first) and compares the first K ids with the model. */
static bool merged_equals(const topk_gen *g, bool where, const answer *x, const answer *y)
{
    int64_t exp[K], nexp = 0, got[K], n = 0, i = 0, j = 0;
    if (topk_gen_expect(g, K, true, where, exp, &nexp)) return false;
    while (n < K && (i < x->n || j < y->n)) {
        bool take_x = j >= y->n || (i < x->n && (x->score[i] > y->score[j] ||
                                                 (x->score[i] == y->score[j] && x->id[i] < y->id[j])));
        got[n++] = take_x ? x->id[i++] : y->id[j++];
    }
    bool ok = n == nexp;
    for (int64_t r = 0; ok && r < n; r++) ok = got[r] == exp[r];
    if (!ok) fprintf(stderr, "  merged answer differs (n %lld, expected %lld)\n", (long long)n, (long long)nexp);
    return ok;
}

/* The K-th best score of two answers together (each best first; both hold K rows at most). */
static int64_t kth_of(const answer *x, const answer *y)
{
    int64_t i = 0, j = 0, v = INT64_MIN;
    for (int n = 0; n < K && (i < x->n || j < y->n); n++)
        v = j >= y->n || (i < x->n && x->score[i] >= y->score[j]) ? x->score[i++] : y->score[j++];
    return v;
}

/* Runs the high groups in a child process and sends its answer and bound over a pipe. */
static pid_t child_scan(int which, bool where, int bound_fd, int answer_fd, int in_fd,
                        const int *parent_fds, int nparent)
{
    pid_t pid = fork();
    if (pid != 0) return pid;
    for (int i = 0; i < nparent; i++) close(parent_fds[i]); /* else a pipe never ends */
    answer a;
    int rc = scan_part(which, 0, G / 2, where, NULL, in_fd, bound_fd, &a);
    if (bound_fd < 0 && a.bound.set) (void)!write(answer_fd, &a.bound, sizeof a.bound);
    (void)!write(answer_fd, &a, sizeof a);
    _exit(rc == 0 ? 0 : 1);
}

static bool read_full(int fd, void *p, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

/* The child (high groups) finishes first; the parent starts from its bound. */
static void sequential(int which, bool where)
{
    int ans[2];
    CHECK(pipe(ans) == 0);
    pid_t pid = child_scan(which, where, -1, ans[1], -1, ans, 1);
    CHECK(pid > 0);
    close(ans[1]);
    ringscan_topk_bound b;
    answer hi, lo;
    CHECK(read_full(ans[0], &b, sizeof b) && read_full(ans[0], &hi, sizeof hi));
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ans[0]);
    CHECK(b.set && !b.is_float && hi.n == K);
    /* the callback reported the child's bound as it tightened, up to the final one, and never
     * one stricter than its K-th best row */
    CHECK(hi.ncalls >= 1 && hi.best_notified == b.i && b.i <= hi.score[K - 1]);
    CHECK(scan_part(which, G / 2, G, where, &b, -1, -1, &lo) == 0);
    CHECK(merged_equals(gens[which], where, &hi, &lo));
    for (int64_t i = 0; i < lo.n; i++) CHECK(lo.score[i] >= b.i); /* only rows still in the running */
    if (which == 0) { /* pruning: every low group lies below the high groups' bound */
        CHECK_EQ_I64(lo.n, 0);
        CHECK_EQ_I64(lo.st.row_groups_pruned, G / 2);
        CHECK_EQ_I64(lo.st.rows_scanned, 0);
    } else { /* control: the sentinels defeat the statistics; rows are dropped by the bound */
        CHECK_EQ_I64(lo.st.row_groups_pruned, 0);
        CHECK(lo.st.topk_rows_kept < K * G / 2);
    }
}

/* Both run at once and exchange bounds as they tighten. */
static void live(int which, bool where)
{
    int c2p[2], p2c[2], ans[2];
    CHECK(pipe(c2p) == 0 && pipe(p2c) == 0 && pipe(ans) == 0);
    int parent_fds[3] = {c2p[0], p2c[1], ans[0]};
    pid_t pid = child_scan(which, where, c2p[1], ans[1], p2c[0], parent_fds, 3);
    CHECK(pid > 0);
    close(c2p[1]), close(p2c[0]), close(ans[1]);
    answer lo, hi;
    CHECK(scan_part(which, G / 2, G, where, NULL, c2p[0], p2c[1], &lo) == 0);
    CHECK(read_full(ans[0], &hi, sizeof hi));
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(c2p[0]), close(ans[0]);
    CHECK(merged_equals(gens[which], where, &hi, &lo));
    /* the first bound either side held was one it found itself (offers carry only what a
     * sibling reported), so at least one reported; neither reported one stricter than the
     * K-th best row of both. On the pruning layout no low row beats the high groups' K-th,
     * so the high side always tightens past any bound the low side sends. */
    CHECK(hi.ncalls + lo.ncalls >= 1);
    CHECK(which == 1 || hi.ncalls >= 1);
    CHECK(hi.ncalls == 0 || hi.best_notified <= kth_of(&hi, &lo));
    CHECK(lo.ncalls == 0 || lo.best_notified <= kth_of(&hi, &lo));
}

/* ringscan_topk_seed of groups [lo, hi) of file which, ORDER BY score DESC LIMIT K. */
static ringscan_topk_bound seed_of(int which, int lo, int hi, bool where)
{
    ringscan_topk_bound b = {.set = true, .i = -1};
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK(ringscan_open(path[which], &f, &err) == 0);
    int groups[G], n = 0;
    for (int g = lo; g < hi; g++) groups[n++] = g;
    ringscan_options o;
    ringscan_options_init(&o);
    o.order_by = "score DESC", o.limit = K;
    o.filter = where ? "flag = 0" : NULL;
    o.row_groups = groups, o.nrow_groups = n;
    CHECK(f && ringscan_topk_seed(f, &o, &b, &err) == 0);
    ringscan_close(f);
    return b;
}

/* Siblings exchange their seeds before starting (metadata only), each starting from the
 * strictest: on the pruning layout the low groups' scanner prunes every group at planning. */
static void seeds_first(int which, bool where)
{
    ringscan_topk_bound hi_seed = seed_of(which, 0, G / 2, where);
    ringscan_topk_bound lo_seed = seed_of(which, G / 2, G, where);
    if (which == 1) { /* control: the sentinels keep the statistics from proving anything */
        CHECK(!hi_seed.set && !lo_seed.set);
        return;
    }
    /* the seed is the worst score of the best group: group 0 / group G/2's minimum */
    CHECK(hi_seed.set && !hi_seed.is_float && lo_seed.set && hi_seed.i > lo_seed.i);
    CHECK_EQ_I64(hi_seed.version, 0);
    answer hi, lo;
    CHECK(scan_part(which, 0, G / 2, where, &hi_seed, -1, -1, &hi) == 0);
    CHECK(scan_part(which, G / 2, G, where, &hi_seed, -1, -1, &lo) == 0);
    CHECK(merged_equals(gens[which], where, &hi, &lo));
    CHECK_EQ_I64(lo.n, 0);
    CHECK_EQ_I64(lo.st.row_groups_pruned, G / 2);
    CHECK_EQ_I64(lo.st.bytes_read - lo.st.plan_bytes, 0); /* no data read */
    CHECK_EQ_I64(hi.st.row_groups_pruned, G / 2 - 1);     /* it reads its best group only */
    CHECK(hi.bound.i >= hi_seed.i);
}

static void pruning_seeds(void) { seeds_first(0, false); }
static void control_seeds(void) { seeds_first(1, true); }

static void pruning_sequential(void) { sequential(0, false); }
static void control_sequential(void) { sequential(1, true); }
static void pruning_live(void) { live(0, false); }
static void control_live(void) { live(1, true); }

/* Misuse: a bound offered to a scan without ORDER BY, or of the wrong type. */
static void misuse(void)
{
    ringscan_file *f = NULL;
    ringscan_error err;
    CHECK(ringscan_open(path[0], &f, &err) == 0);
    ringscan_options o;
    ringscan_options_init(&o);
    ringscan_scan *s = NULL;
    CHECK(ringscan_scan_start(f, &o, &s, &err) == 0);
    ringscan_topk_bound b = {.set = true, .i = 5};
    CHECK(ringscan_scan_offer_bound(s, &b) == -EINVAL);
    CHECK(ringscan_topk_seed(f, &o, &b, &err) == -EINVAL && strstr(err.message, "ORDER BY") && !b.set);
    CHECK(ringscan_topk_seed(f, &o, NULL, &err) == -EINVAL);
    b.set = true;
    CHECK(ringscan_scan_topk_bound(s, &b) == -EINVAL && !b.set); /* cleared */
    ringscan_scan_free(s);
    o.order_by = "score DESC", o.limit = 10;
    b = (ringscan_topk_bound){.set = true, .is_float = true, .f = 5};
    o.topk_bound = &b;
    CHECK(ringscan_scan_start(f, &o, &s, &err) == -EINVAL);
    CHECK(strstr(err.message, "is_float") != NULL);
    o.topk_bound = NULL;
    CHECK(ringscan_scan_start(f, &o, &s, &err) == 0);
    CHECK(ringscan_scan_offer_bound(s, &b) == -EINVAL);
    b.is_float = false, b.set = false;
    CHECK(ringscan_scan_offer_bound(s, &b) == 0);
    ringscan_scan_free(s);
    int dup[2] = {1, 1};
    o.row_groups = dup, o.nrow_groups = 2;
    CHECK(ringscan_scan_start(f, &o, &s, &err) == -EINVAL && strstr(err.message, "listed twice"));
    dup[1] = G;
    CHECK(ringscan_scan_start(f, &o, &s, &err) == -EINVAL && strstr(err.message, "not in the file"));
    ringscan_close(f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    ts_dir_init();
    static topk_gen g[2];
    CHECK(topk_gen_init(&g[0], TOPK_LAYOUT_PRUNING, 7, G, R) == 0);
    CHECK(topk_gen_init(&g[1], TOPK_LAYOUT_CONTROL, 7, G, R) == 0);
    gens[0] = &g[0], gens[1] = &g[1];
    ts_path(path[0], sizeof path[0], "pruning.parquet");
    ts_path(path[1], sizeof path[1], "control.parquet");
    CHECK(write_file(&g[0], path[0]) == 0 && write_file(&g[1], path[1]) == 0);
    RUN(pruning_sequential);
    RUN(control_sequential);
    RUN(pruning_live);
    RUN(control_live);
    RUN(pruning_seeds);
    RUN(control_seeds);
    RUN(misuse);
    ts_dir_remove();
    return CHECK_DONE("test_topk_procs");
}
