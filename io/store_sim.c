/* io/store_sim.c: the simulated object store over a local file, the benchmark backend:
 * results never depend on the machine's network.
 *
 * A request waits for the connection that frees first, then its time to first byte (fixed,
 * or drawn from a table of quantiles like DataFusion's SimulatedObjectStore: median 32 ms,
 * p90 110 ms, p99 200 ms), then transfers at conn_bw on its connection and through one pipe
 * of bw shared by every request of the store; it completes when both are done. The schedule
 * is computed when the request starts (under the store's lock: cores share one store), the
 * core waits for it on an executor timer, then reads the bytes from the local file on its
 * ring. A synchronous read (metadata) may come as parts: each is a request of its own,
 * scheduled at once, and the caller's thread waits for the last. A draw depends only on
 * (seed, offset, length), so a scan's requests get the same delays whatever order the cores
 * issue them in. The cost model starts from the store's own figures, or from model_ttfb
 * and model_bw when given (a reader that does not know the store, as an HTTP object's model
 * starts from issue 20's 30 ms and 100 MB/s: its EWMA then moves toward the store's).
 *
 * Owns: sim_store (the parsed spec, each connection's free time, the pipe's), the per-core
 * list of requests waiting for their time. Calls only runtime/ and common/.
 * Invariants:
 *  1. Every read completes once: from its timer (then the file read's own completion), or
 *     cancelled while it waits (exec_complete with -ECANCELED, its timer dropped; a timer
 *     that already fired has its callback queued, which then ends the read instead).
 *  2. conn_free[i] and pipe_free only move forward; a request's done time is at least its
 *     start + ttfb + len / conn_bw and at least the pipe's time for its bytes.
 *  3. The per-core list holds exactly the requests whose timer is pending. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/io.h"
#include "common/fail.h"

enum { SIM_CONNS_MAX = 4096 };
/* The longest fixed time to first byte: a day (a longer one, past 2^63 ns, wrapped to a time
 * near 0 in the schedule's sums, so the store answered at once) */
#define SIM_TTFB_MAX_NS (UINT64_C(86400) * 1000000000u)
/* a connection's default bandwidth: DataFusion's simulated store (100 MiB/s) and issue 20's
 * S3 seed (100 MB/s) */
#define SIM_CONN_BW UINT64_C(100000000)

typedef struct sim_store {
    uint64_t ttfb_ns;   /* fixed time to first byte; 0 with dist */
    bool dist;          /* draw the time to first byte from sim_quantiles */
    uint64_t bw;        /* bytes per second through the store, in total */
    uint64_t conn_bw;   /* bytes per second on one connection */
    uint32_t conns;
    uint64_t seed;
    uint64_t model_ttfb_ns, model_bw; /* the model's seed; 0: the store's own */
    pthread_mutex_t mu;
    uint64_t pipe_free; /* CLOCK_MONOTONIC ns at which the shared pipe is idle */
    uint64_t conn_free[]; /* each connection's */
} sim_store;

typedef struct sim_req {
    exec_op_t *op;
    exec_t *e;
    io_file_t *f;
    fut_t *timer;
    bool cancelled;     /* cancelled after its timer fired: sim_due ends it */
    void *buf;
    uint64_t len, off;
    struct sim_req *prev, *next;
    struct sim_core *core;
} sim_req;

typedef struct sim_core {
    sim_req *head; /* invariant 3 */
} sim_core;

/* Time to first byte quantiles (ms) at 0, 10, 25, 50, 75, 90, 95, 99, 100 %. */
static const double sim_q_at[] = {0, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 1.0};
static const double sim_q_ms[] = {8, 18, 24, 32, 60, 110, 150, 200, 250};

static uint64_t splitmix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The time to first byte of a request for [off, off + len). */
static uint64_t sim_ttfb(const sim_store *s, uint64_t off, uint64_t len)
{
    if (!s->dist) return s->ttfb_ns;
    double u = (double)(splitmix(s->seed ^ splitmix(off ^ splitmix(len))) >> 11) / 9007199254740992.0;
    size_t i = 1;
    while (i + 1 < sizeof sim_q_at / sizeof sim_q_at[0] && u > sim_q_at[i]) i++;
    double t = (u - sim_q_at[i - 1]) / (sim_q_at[i] - sim_q_at[i - 1]);
    double ms = sim_q_ms[i - 1] + t * (sim_q_ms[i] - sim_q_ms[i - 1]);
    return (uint64_t)(ms * 1e6);
}

static uint64_t xfer_ns(uint64_t len, uint64_t bps)
{
    unsigned __int128 t = (unsigned __int128)len * 1000000000u / bps;
    return t > UINT64_MAX / 4 ? UINT64_MAX / 4 : (uint64_t)t;
}

/* Places a request of len bytes made at now, its first byte ttfb after it starts, on the
 * connections' free times conn_free[0 .. s->conns) and the pipe's *pipe_free (invariant 2):
 * the connection that frees first (the lowest index of equals) takes it. Returns the time it
 * completes. The store's schedule and io_sim_bound_ns's both. */
static uint64_t sim_place(const sim_store *s, uint64_t *conn_free, uint64_t *pipe_free,
                          uint64_t now, uint64_t ttfb, uint64_t len)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < s->conns; i++)
        if (conn_free[i] < conn_free[best]) best = i;
    uint64_t start = conn_free[best] > now ? conn_free[best] : now;
    uint64_t first = start + ttfb;
    uint64_t done = first + xfer_ns(len, s->conn_bw);
    uint64_t pipe = (*pipe_free > first ? *pipe_free : first) + xfer_ns(len, s->bw);
    assert(pipe >= *pipe_free && done >= conn_free[best]);
    *pipe_free = pipe;
    if (pipe > done) done = pipe;
    conn_free[best] = done;
    return done;
}

/* Reserves a connection and the pipe for a request made at now (invariant 2); returns the
 * time it completes and its time to first byte in *ttfb. */
static uint64_t sim_schedule(sim_store *s, uint64_t now, uint64_t off, uint64_t len,
                             uint64_t *ttfb)
{
    *ttfb = sim_ttfb(s, off, len);
    pthread_mutex_lock(&s->mu);
    uint64_t done = sim_place(s, s->conn_free, &s->pipe_free, now, *ttfb, len);
    pthread_mutex_unlock(&s->mu);
    return done;
}

static void sim_unlink(sim_req *q)
{
    if (q->prev) q->prev->next = q->next;
    else q->core->head = q->next;
    if (q->next) q->next->prev = q->prev;
}

/* The request's time came (or its timer failed: the core is stopping). */
static void sim_due(fut_t *t, void *p)
{
    sim_req *q = p;
    assert(q->timer == t);
    int st = fut_status(t);
    fut_unref(t);
    sim_unlink(q);
    exec_op_t *op = q->op;
    exec_t *e = q->e;
    int rc = st != 0 || q->cancelled ? -ECANCELED
                     : exec_read(e, op, q->f->fd, q->buf, (uint32_t)q->len, q->off);
    if (rc == 0) io_file_count(q->f, q->len);
    free(q);
    if (rc != 0) exec_complete(e, op, rc);
}

static int sim_core_new(void **out, exec_t *e)
{
    (void)e;
    sim_core *c = fail_calloc(1, sizeof *c);
    if (!c) return -ENOMEM;
    *out = c;
    return 0;
}

static void sim_core_free(void *p)
{
    sim_core *c = p;
    assert(!c || c->head == NULL);
    free(c);
}

static int sim_read(void *core, exec_t *e, io_file_t *f, exec_op_t *op, void *buf,
                    uint64_t len, uint64_t off, char *why, size_t whylen)
{
    sim_store *s = f->be_file;
    assert(len <= EXEC_READ_BYTES_MAX && core);
    sim_req *q = fail_calloc(1, sizeof *q);
    uint64_t now = exec_now_ns(), ttfb;
    uint64_t done = q ? sim_schedule(s, now, off, len, &ttfb) : 0;
    fut_t *t = q ? exec_sleep_ns(done > now ? done - now : 0) : NULL;
    if (!t || fut_on_ready(t, sim_due, q) != 0) {
        if (t) fut_unref(t);
        free(q);
        snprintf(why, whylen, "simulated store: out of memory");
        return -ENOMEM;
    }
    *q = (sim_req){.op = op, .e = e, .f = f, .timer = t, .buf = buf, .len = len, .off = off,
                   .core = core, .next = ((sim_core *)core)->head};
    if (q->next) q->next->prev = q;
    ((sim_core *)core)->head = q;
    io_cost_observe(&f->cost, ttfb, len, done - now > ttfb ? done - now - ttfb : 0);
    return 0;
}

static int sim_cancel(void *core, exec_t *e, exec_op_t *op)
{
    for (sim_req *q = ((sim_core *)core)->head; q; q = q->next) {
        if (q->op != op) continue;
        if (fut_is_ready(q->timer)) { /* fired: sim_due is queued and ends it */
            q->cancelled = true;
            return 0;
        }
        sim_unlink(q);
        fut_unref(q->timer); /* pending: cancelled, sim_due never runs */
        free(q);
        exec_complete(e, op, -ECANCELED);
        return 0;
    }
    return exec_cancel(e, op); /* its file read is in flight (or nothing is) */
}

/* As a read of parts parallel requests: each part [off + i x len / parts, ...) is scheduled
 * now (its own connection and first byte, the pipe shared), and the caller waits for the
 * last; the bytes are then read at once. */
static int sim_read_sync(io_file_t *f, uint64_t off, void *buf, size_t len, uint32_t parts,
                         char *err, size_t errlen)
{
    assert(parts >= 1 && parts <= SIM_CONNS_MAX);
    uint64_t now = exec_now_ns(), done = now, ttfb;
    for (uint32_t i = 0; i < parts; i++) {
        uint64_t lo = off + (uint64_t)len * i / parts, hi = off + (uint64_t)len * (i + 1) / parts;
        uint64_t d = sim_schedule(f->be_file, now, lo, hi - lo, &ttfb);
        if (d > done) done = d;
    }
    for (uint64_t t = now; t < done; t = exec_now_ns()) {
        struct timespec ts = {.tv_sec = (time_t)((done - t) / 1000000000u),
                              .tv_nsec = (long)((done - t) % 1000000000u)};
        nanosleep(&ts, NULL); /* not on a core: the caller's own thread waits (bounded) */
    }
    for (uint32_t i = 0; i < parts; i++)
        io_file_count(f, (uint64_t)len * (i + 1) / parts - (uint64_t)len * i / parts);
    return io_backend_file.read_sync(f, off, buf, len, 1, err, errlen);
}

static void sim_close(io_file_t *f)
{
    sim_store *s = f->be_file;
    if (!s) return;
    pthread_mutex_destroy(&s->mu);
    free(s);
    f->be_file = NULL;
}

const io_backend io_backend_sim = {
    .name = "sim",
    .id = 1,
    .remote = true,
    .core_new = sim_core_new,
    .core_free = sim_core_free,
    .read = sim_read,
    .cancel = sim_cancel,
    .read_sync = sim_read_sync,
    .close = sim_close,
};

/* ---- the spec: "sim:ttfb=50ms,bw=500MB/s,conn_bw=100MB/s,conns=64,seed=1" ---- */

typedef struct sim_unit { const char *name; uint64_t mul; } sim_unit;

/* Parses "<number><unit>" with a unit from units (the empty name allowed when listed).
 * Returns 0 and *out, -EINVAL on anything else or overflow. */
static int parse_with_unit(const char *v, size_t n, const sim_unit *units, uint64_t *out)
{
    size_t i = 0;
    uint64_t x = 0;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        if (x > (UINT64_MAX - 9) / 10) return -EINVAL;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    if (i == 0) return -EINVAL;
    for (const sim_unit *u = units; u->name; u++) {
        if (strlen(u->name) != n - i || strncmp(v + i, u->name, n - i) != 0) continue;
        if (u->mul && x > UINT64_MAX / u->mul) return -EINVAL;
        *out = x * u->mul;
        return 0;
    }
    return -EINVAL;
}

static const sim_unit time_units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000},
                                      {"s", 1000000000}, {NULL, 0}};
static const sim_unit bw_units[] = {{"B/s", 1}, {"KB/s", 1000}, {"MB/s", 1000000},
                                    {"GB/s", 1000000000}, {"KiB/s", 1024}, {"MiB/s", 1 << 20},
                                    {"GiB/s", 1 << 30}, {NULL, 0}};
static const sim_unit no_units[] = {{"", 1}, {NULL, 0}};

typedef struct sim_spec {
    uint64_t ttfb, bw, conn_bw, conns, seed, model_ttfb, model_bw;
    bool dist;
} sim_spec;

/* Applies one key=value of the spec to p. */
static int sim_key(sim_spec *p, const char *k, size_t kn, const char *v, size_t vn)
{
#define KEY(s) (kn == sizeof(s) - 1 && strncmp(k, s, kn) == 0)
    if (KEY("ttfb") && vn == 4 && strncmp(v, "dist", 4) == 0) return p->dist = true, 0;
    if (KEY("ttfb")) return p->dist = false, parse_with_unit(v, vn, time_units, &p->ttfb);
    if (KEY("bw")) return parse_with_unit(v, vn, bw_units, &p->bw);
    if (KEY("conn_bw")) return parse_with_unit(v, vn, bw_units, &p->conn_bw);
    if (KEY("conns")) return parse_with_unit(v, vn, no_units, &p->conns);
    if (KEY("seed")) return parse_with_unit(v, vn, no_units, &p->seed);
    if (KEY("model_ttfb")) return parse_with_unit(v, vn, time_units, &p->model_ttfb);
    if (KEY("model_bw")) return parse_with_unit(v, vn, bw_units, &p->model_bw);
#undef KEY
    return -ENOENT;
}

/* Parses spec into p (defaults: ttfb=dist, bw=500MB/s, conn_bw=min(bw, 100MB/s), conns=64,
 * seed=1; model_ttfb and model_bw: the store's own first byte and conn_bw). */
static int sim_parse(const char *spec, sim_spec *p, char *err, size_t errlen)
{
    *p = (sim_spec){.dist = true, .bw = 500000000, .conns = 64, .seed = 1};
    if (strncmp(spec, "sim:", 4) != 0 && strcmp(spec, "sim") != 0) {
        snprintf(err, errlen, "store '%s': expected sim:key=value,... (keys ttfb, bw, conn_bw, "
                 "conns, seed, model_ttfb, model_bw)", spec);
        return -EINVAL;
    }
    for (const char *s = spec[3] ? spec + 4 : spec + 3; *s;) {
        size_t n = strcspn(s, ",");
        const char *eq = memchr(s, '=', n);
        int rc = eq ? sim_key(p, s, (size_t)(eq - s), eq + 1, n - (size_t)(eq - s) - 1) : -ENOENT;
        if (rc) {
            snprintf(err, errlen, "store '%s': %s '%.*s' (keys ttfb=50ms|dist, bw=500MB/s, "
                     "conn_bw=100MB/s, conns=64, seed=1, model_ttfb=30ms, model_bw=100MB/s)", spec,
                     rc == -ENOENT ? "unknown key in" : "bad value in", (int)n, s);
            return -EINVAL;
        }
        s += n + (s[n] == ',');
    }
    if (!p->dist && p->ttfb > SIM_TTFB_MAX_NS) {
        snprintf(err, errlen, "store '%s': ttfb must be at most 86400s", spec);
        return -EINVAL;
    }
    if (p->conn_bw == 0) p->conn_bw = p->bw < SIM_CONN_BW ? p->bw : SIM_CONN_BW;
    if (p->bw == 0 || p->conns == 0 || p->conns > SIM_CONNS_MAX) {
        snprintf(err, errlen, "store '%s': bw and conn_bw must be above 0 and conns in [1, %d]",
                 spec, SIM_CONNS_MAX);
        return -EINVAL;
    }
    return 0;
}

/* The first-byte time the store's model starts from: the median of the table, or the fixed
 * time. */
static uint64_t sim_typical_ttfb(const sim_store *s)
{
    return s->dist ? (uint64_t)(sim_q_ms[3] * 1e6) : s->ttfb_ns;
}

/* The cost model the store's file starts from (what the spec says: the store's figures, or
 * model_ttfb and model_bw); drawn first bytes: a few parallel requests wait for the slowest,
 * about the p90. */
static void sim_seed(io_cost *c, const sim_store *s)
{
    io_cost_seed(c, s->model_ttfb_ns ? s->model_ttfb_ns : sim_typical_ttfb(s),
                 s->model_bw ? s->model_bw : s->conn_bw, s->conns);
    if (s->dist) c->ttfb_spread_ns = (uint64_t)((sim_q_ms[5] - sim_q_ms[3]) * 1e6);
}

bool io_sim_model(const io_file_t *f, uint64_t *ttfb_ns, uint64_t *bytes_per_s)
{
    if (f->be != &io_backend_sim) return false;
    const sim_store *s = f->be_file;
    *ttfb_ns = sim_typical_ttfb(s);
    unsigned __int128 all = (unsigned __int128)s->conn_bw * s->conns;
    *bytes_per_s = all < s->bw ? (uint64_t)all : s->bw;
    return true;
}

int io_sim_bound_ns(const io_file_t *f, const uint64_t *off, const uint64_t *len, size_t n,
                    uint64_t *ns, size_t *requests)
{
    *ns = 0, *requests = 0;
    if (f->be != &io_backend_sim) return -EINVAL;
    const sim_store *s = f->be_file;
    io_cost seed; /* the store's seeded model, as at open: its cap, not the run's EWMA's */
    sim_seed(&seed, s);
    uint64_t cap = io_cost_max(&seed), *conn_free = fail_calloc(s->conns, sizeof *conn_free);
    uint64_t pipe_free = 0;
    if (!conn_free) return -ENOMEM;
    for (size_t i = 0, j; i < n; i = j) {
        uint64_t at = off[i], bytes = len[i];
        for (j = i + 1; j < n && off[j] == at + bytes && bytes + len[j] <= cap; j++)
            bytes += len[j]; /* touching: one request, within the cap */
        uint64_t done = sim_place(s, conn_free, &pipe_free, 0, sim_ttfb(s, at, bytes), bytes);
        if (done > *ns) *ns = done;
        (*requests)++;
    }
    free(conn_free);
    return 0;
}

int io_sim_wrap(io_file_t *f, const char *spec, char *err, size_t errlen)
{
    assert(f && f->be == &io_backend_file && spec);
    char none[1];
    if (!err) err = none, errlen = sizeof none;
    sim_spec p;
    int rc = sim_parse(spec, &p, err, errlen);
    if (rc) return rc;
    sim_store *s = fail_calloc(1, sizeof *s + p.conns * sizeof s->conn_free[0]);
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", f->name);
        return -ENOMEM;
    }
    *s = (sim_store){.ttfb_ns = p.ttfb, .dist = p.dist, .bw = p.bw, .conn_bw = p.conn_bw,
                     .conns = (uint32_t)p.conns, .seed = p.seed, .model_ttfb_ns = p.model_ttfb,
                     .model_bw = p.model_bw};
    pthread_mutex_init(&s->mu, NULL);
    f->be = &io_backend_sim;
    f->be_file = s;
    sim_seed(&f->cost, s);
    return 0;
}
