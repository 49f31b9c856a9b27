/* scan/scan_rt.c: a runtime several scans share (scan_rt.h): the executor group started once,
 * the barrier and the count a scan leaving it waits on. Calls nothing of scan/. */
#include "scan/scan_rt.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/fail.h"
#include "common/status.h"
#include "scan/fetch.h"

int scan_rt_start(scan_rt **out, int threads, exec_io_backend io, int scans_max, pq_err *e)
{
    assert(out && threads >= 1 && threads <= EXEC_THREADS_MAX && scans_max >= 1);
    *out = NULL;
    scan_rt *rt = fail_calloc(1, sizeof *rt);
    if (!rt) return -ENOMEM;
    rt->threads = threads, rt->scans_max = scans_max;
    pthread_mutex_init(&rt->mu, NULL);
    pthread_cond_init(&rt->cv, NULL);
    exec_opts_t eo = exec_opts_default();
    eo.threads = threads;
    eo.io_backend = io;
    eo.inbox_cap = (unsigned)SCAN_INBOX_CAP * (unsigned)scans_max; /* invariant 1 */
    int rc = exec_group_start(&rt->g, &eo);
    if (rc) {
        scan_rt_free(rt);
        return pq_errf(e, rc, -1, "cannot start %d executor threads: %s", threads, status_text(rc));
    }
    *out = rt;
    return 0;
}

void scan_rt_cores(scan_rt *rt, int live, int *first, int *n)
{
    *n = live < 1 ? 1 : live < rt->threads ? live : rt->threads;
    unsigned at = *n == rt->threads ? 0 : atomic_fetch_add(&rt->next_core, (unsigned)*n);
    *first = (int)(at % (unsigned)rt->threads);
}

void scan_rt_join(scan_rt *rt, scan_rt_member *m)
{
    assert(m->cancel && !m->joined);
    pthread_mutex_lock(&rt->mu);
    m->joined = true, m->prev = NULL, m->next = rt->members;
    if (rt->members) rt->members->prev = m;
    rt->members = m;
    if (atomic_load(&rt->cancelled)) m->cancel(m->arg);
    pthread_mutex_unlock(&rt->mu);
}

void scan_rt_part(scan_rt *rt, scan_rt_member *m)
{
    pthread_mutex_lock(&rt->mu);
    if (m->joined) {
        if (m->prev) m->prev->next = m->next;
        else rt->members = m->next;
        if (m->next) m->next->prev = m->prev;
        m->joined = false;
    }
    pthread_mutex_unlock(&rt->mu);
}

void scan_rt_cancel(scan_rt *rt)
{
    pthread_mutex_lock(&rt->mu);
    atomic_store(&rt->cancelled, true);
    for (scan_rt_member *m = rt->members; m; m = m->next) m->cancel(m->arg);
    pthread_mutex_unlock(&rt->mu);
}

bool scan_rt_cancelled(scan_rt *rt)
{
    return atomic_load(&rt->cancelled);
}

void scan_rt_free(scan_rt *rt)
{
    if (!rt) return;
    assert(atomic_load(&rt->attached) == 0 && !rt->members);
    if (rt->g) {
        exec_group_stop(rt->g);
        exec_group_destroy(rt->g);
    }
    pthread_cond_destroy(&rt->cv);
    pthread_mutex_destroy(&rt->mu);
    free(rt);
}

void scan_rt_leave_ctx_add(scan_rt_leave *l)
{
    pthread_mutex_lock(&l->rt->mu);
    l->live++;
    pthread_mutex_unlock(&l->rt->mu);
}

/* One less of *n (a count of l's, under rt->mu); its waiters woken at 0. */
static void count_down(scan_rt *rt, int *n)
{
    pthread_mutex_lock(&rt->mu);
    assert(*n > 0);
    if (--*n == 0) pthread_cond_broadcast(&rt->cv);
    pthread_mutex_unlock(&rt->mu);
}

void scan_rt_leave_ctx_done(void *arg)
{
    scan_rt_leave *l = arg;
    count_down(l->rt, &l->live);
}

static void barrier_reached(void *arg)
{
    scan_rt_leave *l = arg;
    count_down(l->rt, &l->left);
}

/* Posts the barrier (each core's inbox is first in, first out: a message posted to it before,
 * a wake of the scan's event among them, runs before it). */
static void post_barrier(scan_rt_leave *l)
{
    scan_rt *rt = l->rt;
    l->posted = true;
    pthread_mutex_lock(&rt->mu);
    l->left = rt->threads;
    pthread_mutex_unlock(&rt->mu);
    for (int c = 0; c < rt->threads; c++) {
        int rc = exec_post(exec_group_core(rt->g, c), barrier_reached, l);
        if (rc) { /* the leaving scan's own share of the inbox is free (invariant 1) */
            fprintf(stderr, "ringscan: barrier post to core %d failed (%d)\n", c, rc);
            abort();
        }
    }
}

bool scan_rt_leave_try(scan_rt_leave *l)
{
    pthread_mutex_lock(&l->rt->mu);
    bool ctxs_gone = l->live == 0, done = l->posted && l->left == 0;
    pthread_mutex_unlock(&l->rt->mu);
    if (ctxs_gone && !l->posted) post_barrier(l);
    return done;
}

void scan_rt_leave_wait(scan_rt_leave *l)
{
    scan_rt *rt = l->rt;
    pthread_mutex_lock(&rt->mu);
    while (l->live > 0) pthread_cond_wait(&rt->cv, &rt->mu);
    pthread_mutex_unlock(&rt->mu);
    if (!l->posted) post_barrier(l);
    pthread_mutex_lock(&rt->mu);
    while (l->left > 0) pthread_cond_wait(&rt->cv, &rt->mu);
    pthread_mutex_unlock(&rt->mu);
}
