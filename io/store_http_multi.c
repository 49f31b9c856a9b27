/* io/store_http_multi.c: HTTP(S)/S3 reads on a core's ring: one libcurl multi handle per core
 * driven by the multi-socket API. Each socket curl watches gets a one-shot poll on the ring
 * (exec_poll), curl's timer is an executor timer, so a core never blocks and needs no
 * second thread. Connections are kept alive in the multi's cache (HTTP_CONNS_PER_CORE at
 * most; HTTP/2 multiplexing where the server offers it). A failed request waits its backoff
 * on an executor timer and goes again (store_http.c decides).
 *
 * Owns: http_core (per core), http_sock (per socket curl watches), http_req (per read).
 * Invariants:
 *  1. A read completes exactly once, through exec_complete: its bytes (all len), a failure
 *     with why written, or -ECANCELED (cancelled, or the core stopping).
 *  2. A socket's record lives until curl has removed the socket AND its poll has completed
 *     (dead && !armed && !busy); its poll op memory stays valid until then (exec.h inv. 3).
 *  3. core->reqs lists exactly the reads started and not yet completed; each is either in
 *     the multi handle or waiting on its retry timer (retry != NULL), never both. A read
 *     stopped after its timer fired (cancel_rc) ends from that timer's queued callback.
 *  5. A timer we drop may have fired already, its callback queued (future.h): the callback
 *     then finds its context marked (cancel_rc, a stale tick) and touches nothing else.
 *  4. curl is never called from inside one of its callbacks: poll completions and timers run
 *     from the core's loop. */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/store_http.h"
#include "common/fail.h"

typedef struct http_core http_core;

typedef struct http_sock {
    exec_op_t op;       /* the poll on the ring */
    exec_t *e;
    http_core *core;    /* NULL once the core is gone */
    curl_socket_t fd;
    uint32_t want;      /* POLLIN/POLLOUT curl asked for; 0 once removed */
    uint32_t armed_ev;  /* what the poll in flight waits for */
    bool armed, dead, busy;
    struct http_sock *prev, *next;
} http_sock;

typedef struct http_req {
    http_xfer x;
    uint64_t full;      /* the read's length: x.len plus a tail part copied from the open's GET */
    CURL *h;
    exec_op_t *op;
    char *why;
    size_t whylen;
    fut_t *retry;       /* the backoff timer before the next try */
    int cancel_rc;      /* ended while its fired retry timer's callback is queued */
    bool opening;       /* an open (http_open): ends by applying the object's size */
    http_core *core;
    struct http_req *prev, *next;
} http_req;

/* The context of curl's timer: its callback may be queued after the timer was replaced or
 * the core freed (a fired future's callbacks run later): c is NULL then. */
typedef struct http_tick {
    http_core *c;
} http_tick;

struct http_core {
    exec_t *e;
    CURLM *m;
    fut_t *timer;       /* curl's timeout */
    http_tick *tick;    /* its callback's context */
    http_req *reqs;     /* invariant 3 */
    http_sock *socks;   /* every socket record not yet freed whose core is this one */
    uint64_t rnd;       /* jitter */
    int abort_rc;       /* a failure met inside a curl callback: every read fails after it */
    const char *abort_why;
};

static void http_core_abort(http_core *c, int status, const char *why);

/* After a call into curl: the failure a callback met ends every read (invariant 4). */
static void http_core_check(http_core *c)
{
    if (!c->abort_rc) return;
    int rc = c->abort_rc;
    c->abort_rc = 0;
    http_core_abort(c, rc, c->abort_why);
}

/* ---- lists ---- */

static void http_req_link(http_core *c, http_req *r)
{
    r->prev = NULL;
    r->next = c->reqs;
    if (c->reqs) c->reqs->prev = r;
    c->reqs = r;
}

static void http_req_unlink(http_core *c, http_req *r)
{
    if (r->prev) r->prev->next = r->next;
    else c->reqs = r->next;
    if (r->next) r->next->prev = r->prev;
    r->prev = r->next = NULL;
}

static void http_sock_unlink(http_sock *s)
{
    if (!s->core) return;
    if (s->prev) s->prev->next = s->next;
    else s->core->socks = s->next;
    if (s->next) s->next->prev = s->prev;
    s->prev = s->next = NULL;
    s->core = NULL;
}

/* Frees s when nothing holds it any more (invariant 2). */
static void http_sock_maybe_free(http_sock *s)
{
    if (!s->dead || s->armed || s->busy) return;
    http_sock_unlink(s);
    free(s);
}

/* ---- reads ---- */

/* Ends r (invariant 1) with res; r leaves the list and is freed. */
static void http_req_end(http_req *r, int32_t res)
{
    http_core *c = r->core;
    http_req_unlink(c, r);
    if (r->h) curl_easy_cleanup(r->h);
    exec_complete(c->e, r->op, res);
    free(r);
}

/* Hands r's next try to the multi handle. */
static void http_req_go(http_req *r)
{
    http_core *c = r->core;
    r->x.tries++;
    http_xfer_prepare(r->h, &r->x);
    CURLMcode mc = curl_multi_add_handle(c->m, r->h);
    if (mc != CURLM_OK) {
        snprintf(r->why, r->whylen, "libcurl: %s", curl_multi_strerror(mc));
        http_req_end(r, -EIO);
    }
    http_core_check(c);
}

static void http_retry_due(fut_t *t, void *p)
{
    http_req *r = p;
    int st = fut_status(t);
    assert(r->retry == t);
    r->retry = NULL;
    fut_unref(t);
    if (r->cancel_rc) {
        http_req_end(r, r->cancel_rc);
        return;
    }
    if (st != 0) {
        snprintf(r->why, r->whylen, "cancelled while waiting to retry");
        http_req_end(r, -ECANCELED);
        return;
    }
    http_req_go(r);
}

/* A try of r finished with cc: done, failed, or waits its backoff. */
static void http_req_finished(http_req *r, CURLcode cc)
{
    http_verdict v = http_xfer_judge(r->h, &r->x, cc, r->why, r->whylen);
    if (r->opening && r->x.suffix && v == HTTP_FAIL &&
        http_tail_reask((http_obj *)r->x.o, r->x.f, &r->x)) {
        http_req_go(r); /* the tail again, as an explicit range */
        return;
    }
    if (r->opening && v != HTTP_RETRY) { /* the object's size applied */
        http_req_end(r, http_tail_done((http_obj *)r->x.o, r->x.f, &r->x, v == HTTP_OK ? 0 : r->x.err,
                                       NULL, 0, r->why));
        return;
    }
    if (v == HTTP_OK) {
        assert(r->x.got == r->x.len && r->full >= r->x.len);
        http_req_end(r, (int32_t)r->full);
        return;
    }
    if (v == HTTP_FAIL) {
        http_req_end(r, r->x.err);
        return;
    }
    http_core *c = r->core;
    c->rnd = c->rnd * 6364136223846793005u + 1442695040888963407u;
    r->retry = exec_sleep_ns(http_backoff_ns(r->x.tries, c->rnd >> 17));
    if (!r->retry || fut_on_ready(r->retry, http_retry_due, r) != 0) {
        if (r->retry) fut_unref(r->retry);
        r->retry = NULL;
        snprintf(r->why, r->whylen, "out of memory for a retry timer");
        http_req_end(r, -ENOMEM);
    }
}

/* Takes every finished transfer from curl. */
static void http_core_drain(http_core *c)
{
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(c->m, &left)) != NULL) {
        if (msg->msg != CURLMSG_DONE) continue;
        http_req *r = NULL;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        CURLcode cc = msg->data.result;
        assert(r && r->h == msg->easy_handle);
        curl_multi_remove_handle(c->m, r->h);
        http_req_finished(r, cc);
    }
}

static void http_action(http_core *c, curl_socket_t fd, int mask)
{
    int running = 0;
    CURLMcode mc = curl_multi_socket_action(c->m, fd, mask, &running);
    if (mc != CURLM_OK) {
        http_core_abort(c, -EIO, curl_multi_strerror(mc));
        return;
    }
    http_core_drain(c);
    http_core_check(c);
}

/* ---- sockets ---- */

static void http_sock_done(exec_op_t *op);

/* Starts (or changes) s's poll to what curl wants; the poll's end re-arms. A failure is
 * left for http_core_check (this may run inside a curl callback: invariant 4). */
static void http_sock_arm(http_sock *s)
{
    if (s->dead || s->busy || !s->want) return;
    if (s->armed) {
        if (s->armed_ev != s->want) (void)exec_cancel(s->e, &s->op);
        return;
    }
    s->op.done = http_sock_done;
    int rc = exec_poll(s->e, &s->op, s->fd, s->want);
    if (rc != 0) {
        s->core->abort_rc = rc == -ESHUTDOWN ? -ECANCELED : rc;
        s->core->abort_why = rc == -ESHUTDOWN ? "the core is stopping" : "too many sockets to poll";
        return;
    }
    s->armed = true;
    s->armed_ev = s->want;
}

static void http_sock_done(exec_op_t *op)
{
    http_sock *s = (http_sock *)((char *)op - offsetof(http_sock, op));
    s->armed = false;
    int32_t res = op->res;
    if (s->dead || !s->core) {
        s->dead = true;
        http_sock_maybe_free(s);
        return;
    }
    http_core *c = s->core;
    if (res == -ECANCELED) { /* we changed what it waits for, or the core stops */
        http_sock_arm(s);
        http_core_check(c);
        return;
    }
    int mask = res < 0 ? CURL_CSELECT_ERR : 0;
    if (res > 0 && (res & (POLLIN | POLLHUP | POLLERR))) mask |= CURL_CSELECT_IN;
    if (res > 0 && (res & POLLOUT)) mask |= CURL_CSELECT_OUT;
    if (res > 0 && (res & POLLERR)) mask |= CURL_CSELECT_ERR;
    s->busy = true;
    http_action(c, s->fd, mask);
    s->busy = false;
    if (s->dead) {
        http_sock_maybe_free(s);
        return;
    }
    http_sock_arm(s);
    http_core_check(c);
}

static int http_on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    (void)easy;
    http_core *c = userp;
    http_sock *s = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (!s) return 0;
        curl_multi_assign(c->m, fd, NULL);
        s->dead = true;
        s->want = 0;
        if (s->armed) (void)exec_cancel(s->e, &s->op);
        http_sock_maybe_free(s);
        return 0;
    }
    if (!s) {
        s = fail_calloc(1, sizeof *s);
        if (!s) return -1; /* curl fails the transfer */
        s->e = c->e;
        s->core = c;
        s->fd = fd;
        s->next = c->socks;
        if (c->socks) c->socks->prev = s;
        c->socks = s;
        curl_multi_assign(c->m, fd, s);
    }
    s->want = (what & CURL_POLL_IN ? POLLIN : 0) | (what & CURL_POLL_OUT ? POLLOUT : 0);
    http_sock_arm(s);
    return 0;
}

/* ---- curl's timer ---- */

/* Drops curl's timer: a pending one is cancelled, a fired one's queued callback finds its
 * tick stale. */
static void http_timer_drop(http_core *c)
{
    if (!c->timer) return;
    if (fut_is_ready(c->timer)) c->tick->c = NULL; /* its callback frees the tick */
    else free(c->tick);
    fut_unref(c->timer);
    c->timer = NULL;
    c->tick = NULL;
}

static void http_timer_due(fut_t *t, void *p)
{
    http_tick *k = p;
    http_core *c = k->c;
    free(k);
    if (!c) return; /* replaced or dropped after it fired: our reference went then */
    int st = fut_status(t);
    assert(c->timer == t);
    c->timer = NULL;
    c->tick = NULL;
    fut_unref(t);
    if (st != 0) {
        http_core_abort(c, -ECANCELED, "the core is stopping");
        return;
    }
    http_action(c, CURL_SOCKET_TIMEOUT, 0);
}

static int http_on_timer(CURLM *m, long timeout_ms, void *userp)
{
    (void)m;
    http_core *c = userp;
    http_timer_drop(c);
    if (timeout_ms < 0) return 0;
    http_tick *k = fail_malloc(sizeof *k);
    fut_t *t = k ? exec_sleep_ns((uint64_t)timeout_ms * 1000000u) : NULL;
    if (!t || fut_on_ready(t, http_timer_due, k) != 0) {
        if (t) fut_unref(t);
        free(k);
        return -1;
    }
    k->c = c;
    c->timer = t;
    c->tick = k;
    return 0;
}

/* ---- the backend's per-core entry points ---- */

/* Ends r with status now, or (its retry timer fired, the callback queued) from that
 * callback. */
static void http_req_stop(http_core *c, http_req *r, int status, const char *why)
{
    if (r->cancel_rc) return; /* already stopping */
    snprintf(r->why, r->whylen, "%s", why);
    if (r->retry && fut_is_ready(r->retry)) {
        r->cancel_rc = status;
        return;
    }
    if (r->retry) {
        fut_unref(r->retry); /* pending: cancelled, http_retry_due never runs */
        r->retry = NULL;
    } else {
        curl_multi_remove_handle(c->m, r->h);
    }
    http_req_end(r, status);
}

/* Fails every read of c with status (the core stops, or curl cannot go on). */
static void http_core_abort(http_core *c, int status, const char *why)
{
    for (http_req *r = c->reqs, *next; r; r = next) {
        next = r->next;
        http_req_stop(c, r, status, why);
    }
}

int http_core_new(void **out, exec_t *e)
{
    http_core *c = fail_calloc(1, sizeof *c);
    if (!c) return -ENOMEM;
    c->e = e;
    c->rnd = exec_now_ns() ^ (uint64_t)(uintptr_t)c;
    c->m = curl_multi_init();
    if (!c->m) {
        free(c);
        return -ENOMEM;
    }
    curl_multi_setopt(c->m, CURLMOPT_SOCKETFUNCTION, http_on_socket);
    curl_multi_setopt(c->m, CURLMOPT_SOCKETDATA, c);
    curl_multi_setopt(c->m, CURLMOPT_TIMERFUNCTION, http_on_timer);
    curl_multi_setopt(c->m, CURLMOPT_TIMERDATA, c);
    curl_multi_setopt(c->m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)HTTP_CONNS_PER_CORE);
    curl_multi_setopt(c->m, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)HTTP_CONNS_PER_CORE);
    *out = c;
    return 0;
}

static int http_on_socket_gone(CURL *easy, curl_socket_t fd, int what, void *userp, void *sp)
{
    (void)easy, (void)fd, (void)what, (void)userp, (void)sp;
    return 0;
}

void http_core_free(void *core)
{
    http_core *c = core;
    if (!c) return;
    assert(!c->reqs); /* store.h invariant 2 */
    curl_multi_setopt(c->m, CURLMOPT_SOCKETFUNCTION, http_on_socket_gone);
    curl_multi_setopt(c->m, CURLMOPT_TIMERFUNCTION, (curl_multi_timer_callback)NULL);
    curl_multi_cleanup(c->m);
    http_timer_drop(c);
    while (c->socks) { /* a poll still in flight frees its record when it ends */
        http_sock *s = c->socks;
        s->dead = true;
        s->want = 0;
        if (s->armed) (void)exec_cancel(s->e, &s->op);
        http_sock_unlink(s);
        http_sock_maybe_free(s);
    }
    free(c);
}

/* Hands a new request r (its transfer set up) to the multi handle; or -ENOMEM with why filled
 * (h NULL: no easy handle could be made; r freed). */
static int http_req_start(http_core *c, http_req *r, CURL *h, exec_op_t *op, char *why,
                          size_t whylen)
{
    if (!h) {
        free(r);
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    r->x.t0_ns = exec_now_ns();
    r->h = h;
    r->op = op;
    r->why = why;
    r->whylen = whylen;
    r->core = c;
    http_req_link(c, r);
    http_req_go(r);
    return 0;
}

int http_read(void *core, exec_t *e, io_file_t *f, exec_op_t *op, void *buf, uint64_t len,
              uint64_t off, char *why, size_t whylen)
{
    http_core *c = core;
    http_obj *o = f->be_file;
    assert(c && c->e == e && len > 0);
    uint64_t rest = http_tail_take(f, off, len, buf); /* the open's GET may hold its end */
    if (rest == 0) {
        exec_complete(e, op, (int32_t)len);
        return 0;
    }
    http_req *r = fail_calloc(1, sizeof *r);
    if (r) r->full = len, r->x = (http_xfer){.o = o, .f = f, .buf = buf, .off = off, .len = rest};
    return http_req_start(c, r, r ? curl_easy_init() : NULL, op, why, whylen);
}

int http_open(void *core, exec_t *e, io_file_t *f, exec_op_t *op, char *why, size_t whylen)
{
    http_core *c = core;
    assert(c && c->e == e);
    http_req *r = fail_calloc(1, sizeof *r);
    if (r && http_tail_xfer(f->be_file, f, &r->x) != 0) free(r), r = NULL;
    if (r) r->opening = true;
    return http_req_start(c, r, r ? curl_easy_init() : NULL, op, why, whylen);
}

int http_cancel(void *core, exec_t *e, exec_op_t *op)
{
    http_core *c = core;
    assert(c && c->e == e);
    for (http_req *r = c->reqs; r; r = r->next) {
        if (r->op != op) continue;
        http_req_stop(c, r, -ECANCELED, "cancelled");
        return 0;
    }
    return -ENOENT; /* completed from the tail, or already ended */
}
