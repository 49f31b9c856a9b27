/* scan/task_dict.c: the dictionaries the splits of a cut row group share (task.h scan_dicts):
 * published once by the first split that decoded one, borrowed by the others, freed by the
 * group's last split; and the wait of a split for its leader's.
 *
 * Invariants: a published dictionary is immutable until the group's last split frees it
 * (rg_left reaching 0), so a reader that borrowed it (shared_dict) holds it at most until
 * its split ends; a leader's state moves IDLE -> CLAIMED -> RUNNING -> ENDED only, each move
 * signalled on the event. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "scan/task.h"

int scan_dicts_init(scan_dicts *d, const scan_plan *p)
{
    *d = (scan_dicts){.plan = p};
    if (!p->cut) return 0;
    int ng = p->f->meta.nrow_groups;
    d->rg_left = fail_calloc((size_t)ng + 1, sizeof *d->rg_left);
    d->leader_live = fail_calloc((size_t)ng + 1, sizeof *d->leader_live);
    d->dicts = fail_calloc((size_t)ng * (size_t)p->nneed + 1, sizeof *d->dicts);
    if (!d->rg_left || !d->leader_live || !d->dicts) return -ENOMEM;
    for (int i = 0; i < p->nsplits; i++)
        if (p->splits[i].shares_rg) atomic_fetch_add(&d->rg_left[p->splits[i].rg], 1);
    return 0;
}

/* Frees the dictionaries of row group rg (every group when rg < 0). */
static void dicts_free_group(scan_dicts *d, int rg)
{
    int lo = rg < 0 ? 0 : rg, hi = rg < 0 ? d->plan->f->meta.nrow_groups : rg + 1;
    for (int g = lo; d->dicts && g < hi; g++)
        for (int k = 0; k < d->plan->nneed; k++) {
            size_t i = (size_t)g * (size_t)d->plan->nneed + (size_t)k;
            pq_vec *v = atomic_exchange(&d->dicts[i], NULL);
            if (v) pq_vec_free(v);
            free(v);
        }
}

void scan_dicts_free(scan_dicts *d)
{
    if (d->plan) dicts_free_group(d, -1);
    free(d->dicts);
    free(d->rg_left);
    free(d->leader_live);
    d->dicts = NULL;
    d->rg_left = NULL;
    d->leader_live = NULL;
}

void scan_dicts_leader(scan_dicts *d, int i, int state)
{
    const scan_split *sp = &d->plan->splits[i];
    if (!sp->leader) return;
    assert(d->leader_live && atomic_load(&d->leader_live[sp->rg]) < state);
    atomic_store(&d->leader_live[sp->rg], state);
    if (d->ev) exec_event_signal(d->ev); /* its group's splits may wait for it */
}

void scan_dicts_split_end(scan_dicts *d, int i)
{
    const scan_split *sp = &d->plan->splits[i];
    if (sp->shares_rg && atomic_fetch_sub(&d->rg_left[sp->rg], 1) == 1)
        dicts_free_group(d, sp->rg); /* the row group's last split */
}

/* The shared dictionary slot of slot's column, or NULL when the split has its row group alone. */
static _Atomic(pq_vec *) *dict_slot(scan_task *x, int slot)
{
    if (!x->sp->shares_rg) return NULL;
    scan_dicts *d = x->env->dicts;
    return &d->dicts[(size_t)x->sp->rg * (size_t)x->plan->nneed + (size_t)slot];
}

const pq_vec *task_shared_dict(scan_task *x, int slot)
{
    _Atomic(pq_vec *) *d = dict_slot(x, slot);
    return d ? atomic_load_explicit(d, memory_order_acquire) : NULL;
}

void task_publish_dict(scan_task *x, int slot, pq_col_reader *r)
{
    _Atomic(pq_vec *) *d = dict_slot(x, slot);
    if (!d || !r->has_dict || r->shared_dict || atomic_load_explicit(d, memory_order_relaxed)) return;
    pq_vec *v = fail_malloc(sizeof *v);
    if (!v) return; /* sharing is an optimisation: keep the reader's own */
    *v = r->dict;
    pq_vec *none = NULL;
    if (atomic_compare_exchange_strong_explicit(d, &none, v, memory_order_release, memory_order_relaxed)) {
        pq_vec_init(&r->dict, v->type, v->type_length); /* the buffers moved to v */
        r->has_dict = false;
        r->shared_dict = v;
        exec_event_signal(x->env->dicts->ev); /* the group's splits waiting for it */
    } else {
        free(v);
    }
}

typedef struct dict_wait {
    scan_task *x;
    int slot;
} dict_wait;

/* The wait for the leader's dictionary is over: it is published, the scan stops, or the
 * leader is neither running nor claimed-while-not-exploring (a claimed leader's place in the
 * output window is before this split's, so it is let through first; while the scan explores
 * only one split per core runs, and the leader could be waiting for this one). */
static bool dict_wait_over(void *ctx)
{
    dict_wait *w = ctx;
    scan_task *x = w->x;
    if (task_shared_dict(x, w->slot) || atomic_load(x->env->stop)) return true;
    int live = atomic_load(&x->env->dicts->leader_live[x->sp->rg]);
    return !(live == SCAN_LEADER_RUNNING ||
             (live == SCAN_LEADER_CLAIMED && !scan_policy_exploring(x->env->pol)));
}

const pq_vec *task_wait_dict(scan_task *x, int slot)
{
    assert(x->sp->shares_rg && !x->sp->leader);
    dict_wait w = {.x = x, .slot = slot};
    scan_core_time_leave(&x->tc->time, SCAN_WAIT_TASK);
    scan_core_time_enter(&x->tc->time, SCAN_WAIT_DICT);
    uint64_t t0 = exec_now_ns();
    exec_event_wait_until(x->env->dicts->ev, dict_wait_over, &w);
    x->wait_ns += exec_now_ns() - t0;
    scan_core_time_leave(&x->tc->time, SCAN_WAIT_DICT);
    scan_core_time_enter(&x->tc->time, SCAN_WAIT_TASK);
    return task_shared_dict(x, slot);
}
