/* scan/out_pool.c: the byte bound a dataset's files' output windows share (out_pool.h). */
#include "scan/out_pool.h"

#include <assert.h>

#include "scan/output.h"

void scan_out_pool_init(scan_out_pool *p, int64_t limit)
{
    assert(limit > 0);
    *p = (scan_out_pool){.limit = (uint64_t)limit};
    pthread_mutex_init(&p->mu, NULL);
}

void scan_out_pool_free(scan_out_pool *p)
{
    assert(p->nmembers == 0 && atomic_load(&p->used) == 0 && !atomic_load(&p->head));
    assert(atomic_load(&p->listed) == 0);
    pthread_mutex_destroy(&p->mu);
}

/* Every member's gate may open: their events signalled (invariant 3). */
static void wake_all(scan_out_pool *p)
{
    pthread_mutex_lock(&p->mu);
    for (int k = 0; k < p->nmembers; k++) exec_event_signal(p->members[k]->ev);
    pthread_mutex_unlock(&p->mu);
}

void scan_out_pool_add(scan_out_pool *p, uint64_t n)
{
    if (p && n) atomic_fetch_add(&p->used, n);
}

void scan_out_pool_sub(scan_out_pool *p, uint64_t n)
{
    if (!p || !n) return;
    assert(atomic_load(&p->used) >= n);
    atomic_fetch_sub(&p->used, n); /* (seq_cst, then listed read: invariant 5) */
    if (atomic_load(&p->listed) > 0) wake_all(p);
}

void scan_out_pool_join(scan_out *o)
{
    scan_out_pool *p = o->pool;
    if (!p) return;
    assert(o->ev && !o->pooled);
    pthread_mutex_lock(&p->mu);
    assert(p->nmembers < SCAN_OUT_POOL_MAX);
    p->members[p->nmembers++] = o;
    o->pooled = true;
    pthread_mutex_unlock(&p->mu);
}

void scan_out_pool_leave(scan_out *o)
{
    scan_out_pool *p = o->pool;
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    int k = 0;
    while (k < p->nmembers && p->members[k] != o) k++;
    assert((k < p->nmembers) == o->pooled);
    if (o->pooled) p->members[k] = p->members[--p->nmembers];
    o->pooled = false;
    scan_out *me = o;
    (void)atomic_compare_exchange_strong(&p->head, &me, NULL); /* invariant 4 */
    pthread_mutex_unlock(&p->mu);
}

void scan_out_lead(scan_out *o)
{
    scan_out_pool *p = o->pool;
    if (!p || atomic_load(&p->head) == o) return;
    pthread_mutex_lock(&p->mu);
    if (o->pooled) atomic_store(&p->head, o); /* (invariant 4: a window gone never leads) */
    pthread_mutex_unlock(&p->mu);
    wake_all(p); /* its exemptions, and the files behind it weighed without it */
}

uint64_t scan_out_used(const scan_out *o)
{
    return atomic_load(&o->waiting) + atomic_load(&o->taken) + atomic_load(&o->running_bytes);
}

void scan_out_pool_unlisted(scan_out_pool *p, int n)
{
    if (!p || n == 0) return;
    assert(n > 0 && atomic_load(&p->listed) >= n);
    atomic_fetch_sub(&p->listed, n);
}

bool scan_out_pool_pass(scan_out *o, uint64_t est, bool exempt, bool by_room, bool listed)
{
    scan_out_pool *p = o->pool;
    if (!listed) atomic_fetch_add(&p->listed, 1); /* before used is read (invariant 5) */
    pthread_mutex_lock(&p->mu);
    uint64_t used = atomic_load(&p->used);
    scan_out *lead = atomic_load(&p->head);
    /* the lead's own counters change outside mu: the files behind it are weighed from a
     * moment's view of them, the whole bounded by used alone */
    uint64_t mine = lead ? scan_out_used(lead) : 0, behind = used > mine ? used - mine : 0;
    bool go = exempt || (by_room && used + est <= p->limit &&
                         (lead == o || behind + est <= p->limit / 2));
    if (go) atomic_fetch_add(&p->used, est);
    pthread_mutex_unlock(&p->mu);
    if (go) atomic_fetch_sub(&p->listed, 1); /* (listed before, or just now) */
    return go;
}
