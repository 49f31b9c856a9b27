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

void scan_rt_free(scan_rt *rt)
{
    if (!rt) return;
    assert(atomic_load(&rt->attached) == 0);
    if (rt->g) {
        exec_group_stop(rt->g);
        exec_group_destroy(rt->g);
    }
    pthread_cond_destroy(&rt->cv);
    pthread_mutex_destroy(&rt->mu);
    free(rt);
}

typedef struct barrier {
    scan_rt *rt;
    int left;                  /* cores whose message has not run (under rt->mu) */
} barrier;

static void barrier_reached(void *arg)
{
    barrier *b = arg;
    pthread_mutex_lock(&b->rt->mu);
    if (--b->left == 0) pthread_cond_broadcast(&b->rt->cv);
    pthread_mutex_unlock(&b->rt->mu);
}

void scan_rt_barrier(scan_rt *rt)
{
    barrier b = {.rt = rt, .left = rt->threads};
    for (int c = 0; c < rt->threads; c++) {
        int rc = exec_post(exec_group_core(rt->g, c), barrier_reached, &b);
        if (rc) { /* the leaving scan's own share of the inbox is free (invariant 1) */
            fprintf(stderr, "ringscan: barrier post to core %d failed (%d)\n", c, rc);
            abort();
        }
    }
    pthread_mutex_lock(&rt->mu);
    while (b.left > 0) pthread_cond_wait(&rt->cv, &rt->mu);
    pthread_mutex_unlock(&rt->mu);
}

void scan_rt_count_add(scan_rt_count *c)
{
    pthread_mutex_lock(&c->rt->mu);
    c->live++;
    pthread_mutex_unlock(&c->rt->mu);
}

void scan_rt_count_done(void *arg)
{
    scan_rt_count *c = arg;
    pthread_mutex_lock(&c->rt->mu);
    assert(c->live > 0);
    if (--c->live == 0) pthread_cond_broadcast(&c->rt->cv);
    pthread_mutex_unlock(&c->rt->mu);
}

void scan_rt_count_wait(scan_rt_count *c)
{
    pthread_mutex_lock(&c->rt->mu);
    while (c->live > 0) pthread_cond_wait(&c->rt->cv, &c->rt->mu);
    pthread_mutex_unlock(&c->rt->mu);
}
