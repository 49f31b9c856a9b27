/* scan/lend.c: a thief's columns lent by the core it stole from, instead of read again.
 *
 * A steal (fetch.c) takes the later splits of another core's unit. When the owner had already
 * requested the unit's columns, that request covers the stolen splits' bytes too (fetch.c
 * invariant 4), so reading them again would cost a read call per column (a request on object
 * storage) for bytes already fetched. Instead the thief's request for a column is a lend: a
 * future the owner resolves from its own request.
 *
 * Protocol (every step on the thread that owns what it touches; io.h invariant 1):
 *  1. thief, when its lend is first wanted: posts the lend to the owner's core (exec_post);
 *  2. owner (lend_serve): when its unit still holds a wanted request of that column covering
 *     the range, takes a reference and, once the request resolved, copies the range into a
 *     buffer of the lend's own (lend_copy; a common/bufpool block, so a host on glibc's
 *     malloc does not fault in fresh pages for every lend) and drops the reference (when the owner has not
 *     made that request yet but will want it, it makes it now, covering the thief's range
 *     too: one read for both); when its unit was stolen too and does not cover the range,
 *     passes the lend on to the unit it came from (whose request, made before that steal,
 *     may); else lends nothing; posts the lend back;
 *  3. thief (lend_reply): resolves the future with the copy, or, when nothing was lent (the
 *     owner never wanted the column, released it, or its read failed), reads the range itself
 *     and resolves from that read (the fallback is what a steal did before).
 * A lend dropped by the thief before the reply is freed when the reply arrives. A core does
 * not end while lends it made are unanswered or reading (scan_fetch_drained: lends_out), so
 * neither core's executor stops while a lend is in flight (exec_post never meets
 * -ESHUTDOWN here). At most scan_lends_max lends per core are out (more read for themselves),
 * so the messages in any inbox stay below its capacity and a post always finds room.
 *
 * Accounting: lent bytes were read and counted once, by the owner's request, which the lend
 * marks used; the lent copy is marked shared (task_pieces.c discard and fetch.c unit_release count
 * len - shared as wasted), so nothing is counted twice. A unit stolen whole is the exception:
 * its pieces are taken from it, and the copy's bytes count as the thief decodes or drops
 * them, as if it had read them. */
#include <assert.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bufpool.h"
#include "common/fail.h"
#include "scan/fetch_impl.h"

typedef struct lend {
    scan_fetch *fx;
    scan_fetch_core *thief;          /* its io context reads the fallback */
    int thief_core, src, k;    /* the owner's unit and the slot lent */
    uint64_t off, len;         /* the bytes wanted */
    fut_t *p;                  /* the thief's future (uncounted), NULL once dropped */
    fut_t *src_f;              /* owner side: its request, referenced while copying */
    uint8_t *buf;              /* the copy (got bytes), NULL when nothing was lent */
    size_t cap;                /* buf's size, for common/bufpool */
    size_t got;
    bool posted;               /* the owner has it: the reply is pending */
    fut_t *local;              /* the fallback read, referenced until it resolves */
    fut_t **pre;               /* owner side, a unit stolen whole: its reads of the slot's
                                  pieces, referenced while they resolve (serve_pre) */
    int npre, pre_left;
    bool pre_failed;           /* one could not be waited for (-ENOMEM): nothing is lent */
    uint64_t own;              /* bytes of the copy the thief accounts for (pre pieces) */
} lend;

/* The value of a resolved lend: an io_bytes first, as task_pieces.c reads it. */
typedef struct lend_value {
    io_bytes b;
    uint8_t *buf;              /* owned copy, or NULL */
    size_t cap;                /* buf's size, for common/bufpool */
    fut_t *keep;               /* the fallback read the bytes belong to, or NULL */
} lend_value;

static void lend_value_free(void *v)
{
    lend_value *lv = v;
    bufpool_give(lv->buf, lv->cap);
    if (lv->keep) fut_unref(lv->keep);
    free(lv);
}

int scan_lends_max(const scan_fetch *fx)
{
    int n = (SCAN_INBOX_CAP - EXEC_EVENT_INBOX_SLOTS) / (2 * fx->threads);
    assert(n >= 7); /* EXEC_THREADS_MAX cores */
    return n;
}

/* ---------------------------------------------------------------------------- owner side */

/* The core running this, which serves a lend from lend_serve until served(): it does not end
 * meanwhile (scan_fetch_drained), so the reads the lend waits for are counted in its io
 * context's figures. */
static scan_fetch_core *server(scan_fetch *fx)
{
    return &fx->cores[exec_core_index(exec_current())];
}

/* The owner is done with the lend: posts fn (the reply, or the serve of the next owner). */
static void served(lend *l, int core, sched_fn fn)
{
    scan_fetch_core *c = server(l->fx);
    assert(c->lends_serving > 0);
    c->lends_serving--;
    scan_fetch *fx = l->fx; /* l is the other core's once posted */
    fetch_post(fx, core, fn, l);
    exec_event_signal(fx->ev); /* this core may be waiting to end (fetch.h invariant 3) */
}

static void lend_copy(lend *l)
{
    const io_bytes *b = fut_status(l->src_f) == 0 ? fut_value(l->src_f) : NULL;
    const scan_unit *x = &l->fx->units[l->src];
    uint64_t rel = l->off - x->off[l->k];
    size_t n = !b || rel >= b->len ? 0 : (size_t)(b->len - rel < l->len ? b->len - rel : l->len);
    if (b && (l->buf = bufpool_alloc(n, &l->cap))) {
        memcpy(l->buf, b->data + rel, n);
        l->got = n;
    }
    fut_unref(l->src_f);
    l->src_f = NULL;
}

static void lend_reply(void *ctx);

static void lend_src_ready(fut_t *f, void *ctx)
{
    (void)f;
    lend *l = ctx;
    lend_copy(l);
    served(l, l->thief_core, lend_reply);
}

/* The pieces of the slot of unit x's one live split that reservation registered (fetch.c
 * prefetch), all within the lend's range: how many, or -1 when one is missing or outside. */
static int pre_pieces(const lend *l, const scan_unit *x)
{
    const scan_colplan *cp = &l->fx->plan->splits[x->pre_split].cols[l->k];
    if (!x->pre[l->k]) return -1; /* its reservation ran out of memory */
    for (int p = 0; p < cp->npieces; p++) {
        const scan_piece *pc = &cp->pieces[p];
        if (!x->pre[l->k][p] || pc->off < l->off || pc->off + pc->len > l->off + l->len) return -1;
    }
    return cp->npieces;
}

/* Copies the resolved pieces into the lend's buffer at their place in its range (holes
 * between them zeroed); nothing is lent when one failed or came back short. The pieces'
 * bytes are the thief's to account for (own): used if it decodes them, else wasted. */
static void pre_copy(lend *l)
{
    const scan_colplan *cp = &l->fx->plan->splits[l->fx->units[l->src].pre_split].cols[l->k];
    bool ok = !l->pre_failed && (l->buf = bufpool_alloc(l->len, &l->cap)) != NULL;
    uint64_t pos = 0;
    for (int p = 0; ok && p < l->npre; p++) {
        const scan_piece *pc = &cp->pieces[p];
        const io_bytes *b = fut_status(l->pre[p]) == 0 ? fut_value(l->pre[p]) : NULL;
        uint64_t rel = pc->off - l->off;
        ok = b && b->len >= pc->len && rel >= pos;
        if (!ok) break;
        memset(l->buf + pos, 0, rel - pos);
        memcpy(l->buf + rel, b->data, pc->len);
        pos = rel + pc->len;
        l->own += pc->len - (b->shared < pc->len ? b->shared : pc->len); /* as io counted it */
    }
    if (ok) {
        memset(l->buf + pos, 0, l->len - pos);
        l->got = l->len;
    } else {
        bufpool_give(l->buf, l->cap);
        l->buf = NULL;
        l->own = 0;
    }
    for (int p = 0; p < l->npre; p++) {
        if (!ok) scan_fetch_discarded(l->fx, l->pre[p]); /* read and not lent */
        fut_unref(l->pre[p]);
    }
    free(l->pre);
    l->pre = NULL;
}

static void pre_ready(fut_t *f, void *ctx)
{
    (void)f;
    lend *l = ctx;
    assert(l->pre_left > 0);
    if (--l->pre_left > 0) return;
    pre_copy(l);
    served(l, l->thief_core, lend_reply);
}

/* Unit x was stolen whole from the owner's run before any split of it started: the bytes are
 * its reservation's reads of the slot's pieces (read with the run's other units: one call),
 * wanted now if the run did not want them yet, and taken from x (the lend accounts for them).
 * The reply follows once all resolved. */
static void serve_pre(lend *l, scan_unit *x)
{
    int n = pre_pieces(l, x);
    if (n <= 0 || !(l->pre = fail_calloc((size_t)n, sizeof *l->pre))) {
        served(l, l->thief_core, lend_reply);
        return;
    }
    for (int p = 0; p < n; p++) {
        l->pre[p] = x->pre[l->k][p];
        x->pre[l->k][p] = NULL;
    }
    /* pieces already read are not waited for through the ready queue (behind every task
     * ready on this core, one step each): the lend's thief is idle meanwhile */
    l->npre = n;
    l->pre_left = 1; /* this call's own count, dropped last */
    for (int p = 0; p < n && !l->pre_failed; p++) {
        fut_want(l->pre[p]); /* io counts its bytes used, which the thief accounts for (own);
                                a piece served from the file's kept bytes is ready unwanted */
        if (fut_is_ready(l->pre[p])) continue;
        if (fut_on_ready(l->pre[p], pre_ready, l) == 0)
            l->pre_left++;
        else /* -ENOMEM: the rest are not waited for, and nothing is lent */
            l->pre_failed = true;
    }
    pre_ready(NULL, l); /* the reply now when none is waited for */
}

static void lend_serve(void *ctx)
{
    lend *l = ctx;
    scan_unit *x = &l->fx->units[l->src];
    assert(atomic_load(&x->owner) == exec_core_index(exec_current()));
    server(l->fx)->lends_serving++;
    if (x->pre && !x->shared) {
        serve_pre(l, x);
        return;
    }
    fut_t *f = x->f ? x->f[l->k] : NULL;
    if (!f && x->f && atomic_load_explicit(&l->fx->ahead, memory_order_relaxed)) {
        /* the owner will want it: make it now, wanted (a request only registered would be
         * refused below, so the thief read its bytes again and the owner read them too) */
        f = fetch_unit_fut_cover(l->fx, l->src, l->k, l->off, l->len);
        if (f) fut_want(f);
    }
    bool covers = f && l->off >= x->off[l->k] && l->off + l->len <= x->off[l->k] + x->len[l->k];
    if (!covers && x->src >= 0) {
        /* x was stolen too: the unit it came from may hold the bytes (a request made before
         * that steal covers x's splits and so the thief's); x's hold keeps it */
        l->src = x->src;
        served(l, atomic_load(&l->fx->units[l->src].owner), lend_serve);
        return;
    }
    if (!covers || !fut_is_wanted(f) || (fut_is_ready(f) && fut_status(f) != 0)) {
        served(l, l->thief_core, lend_reply);
        return;
    }
    x->used[l->k] = true;
    l->src_f = fut_ref(f);
    if (fut_is_ready(f)) {
        lend_copy(l);
        served(l, l->thief_core, lend_reply);
    } else if (fut_on_ready(f, lend_src_ready, l) != 0) {
        fut_unref(l->src_f);
        l->src_f = NULL;
        served(l, l->thief_core, lend_reply);
    }
}

/* ---------------------------------------------------------------------------- thief side */

static void lend_free(lend *l)
{
    bufpool_give(l->buf, l->cap);
    free(l);
}

/* A lend that was out (posted, or reading its fallback) ends. */
static void lend_done(lend *l)
{
    assert(l->thief->lends_out > 0);
    l->thief->lends_out--;
    exec_event_signal(l->fx->ev); /* fetch.h invariant 3 */
    lend_free(l);
}

static void lend_local_ready(fut_t *f, void *ctx)
{
    lend *l = ctx;
    assert(f == l->local);
    if (l->p && fut_status(f) != 0) {
        fut_fail(l->p, fut_status(f), fut_message(f));
    } else if (l->p) {
        lend_value *v = fail_calloc(1, sizeof *v);
        if (!v) {
            fut_fail(l->p, -ENOMEM, "out of memory");
        } else {
            v->b = *(const io_bytes *)fut_value(f);
            v->keep = fut_ref(f);
            fut_resolve(l->p, v, lend_value_free);
        }
    }
    fut_unref(l->local);
    lend_done(l);
}

/* Reads the range on the thief's core and resolves the lend from that read. */
static void lend_fallback(lend *l)
{
    l->local = io_read(l->thief->io, l->fx->plan->f->file, l->off, l->len);
    if (!l->local || fut_on_ready(l->local, lend_local_ready, l) != 0) {
        if (l->local) fut_unref(l->local);
        if (l->p) fut_fail(l->p, -ENOMEM, "out of memory");
        lend_done(l);
    }
}

static void lend_reply(void *ctx)
{
    lend *l = ctx;
    assert(l->posted);
    l->posted = false;
    if (!l->p) { /* dropped meanwhile: what it took to account for was read for nothing */
        atomic_fetch_add_explicit(&l->fx->bytes_discarded, l->own, memory_order_relaxed);
        lend_done(l);
        return;
    }
    if (!l->buf) {
        lend_fallback(l);
        return;
    }
    lend_value *v = fail_calloc(1, sizeof *v);
    if (!v) {
        fut_fail(l->p, -ENOMEM, "out of memory");
    } else {
        v->buf = l->buf;
        v->cap = l->cap;
        v->b = (io_bytes){.data = l->buf, .len = l->got, .shared = l->got - l->own};
        l->buf = NULL;
        atomic_fetch_add_explicit(&l->fx->lends, 1, memory_order_relaxed);
        fut_resolve(l->p, v, lend_value_free);
    }
    lend_done(l);
}

static void lend_want(void *ctx)
{
    lend *l = ctx;
    l->thief->lends_out++;
    if (l->thief->lends_out > scan_lends_max(l->fx)) {
        lend_fallback(l);
        return;
    }
    l->posted = true;
    fetch_post(l->fx, atomic_load(&l->fx->units[l->src].owner), lend_serve, l);
}

/* The thief dropped its future: a pending reply or fallback read frees the lend later. */
static void lend_cancel(void *ctx)
{
    lend *l = ctx;
    l->p = NULL;
    if (!l->posted && !l->local) lend_free(l);
}

fut_t *scan_fetch_lend(scan_fetch *fx, int core, int src, int k, uint64_t off, uint64_t len)
{
    assert(src >= 0 && k >= 0 && k < fx->plan->nneed && len > 0);
    assert(core == exec_core_index(exec_current()));
    lend *l = fail_calloc(1, sizeof *l);
    fut_t *p = l ? fut_new() : NULL;
    if (!p) {
        free(l);
        return NULL;
    }
    *l = (lend){.fx = fx, .thief = &fx->cores[core], .thief_core = core, .src = src, .k = k,
                .off = off, .len = len, .p = p};
    fut_set_cancel_hook(p, lend_cancel, l);
    fut_set_want_hook(p, lend_want, l);
    return p;
}
