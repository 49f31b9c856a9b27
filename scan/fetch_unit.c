/* scan/fetch_unit.c: a unit's requests, the lowest file of the fetch floor: their ranges, the
 * reads that make them, slices of them for splits, reads registered at reservation, and the
 * accounting of bytes dropped undecoded. Posts between cores for fetch.c and lend.c.
 * fetch.h's invariants hold: a unit's requests are its owner core's alone. */
#include <assert.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "scan/fetch_impl.h"

int fetch_try_post(scan_fetch *fx, int core, sched_fn fn, void *ctx)
{
    int rc = exec_post(exec_group_core(fx->g, core), fn, ctx);
    if (rc == -EAGAIN) { /* every sender's messages are bounded to fit (SCAN_INBOX_CAP) */
        fprintf(stderr, "ringscan: inbox of core %d full: message accounting broken\n", core);
        abort();
    }
    return rc;
}

void fetch_post(scan_fetch *fx, int core, sched_fn fn, void *ctx)
{
    int rc = fetch_try_post(fx, core, fn, ctx);
    if (rc) {
        fprintf(stderr, "ringscan: lend post to core %d failed (%d)\n", core, rc);
        abort();
    }
}

/* A cut group's dictionary pages count only when its leader is among the splits (the others
 * borrow its dictionary: task_dict.c). */
void fetch_unit_range(scan_fetch *fx, scan_unit *u, int k, int from, int to)
{
    const scan_split *splits = fx->plan->splits;
    bool has_leader = false;
    for (int i = from; i < to; i++) has_leader = has_leader || splits[i].leader;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = from; i < to; i++) {
        const scan_colplan *cp = splits[i].pruned ? NULL : &splits[i].cols[k];
        for (int p = 0; cp && p < cp->npieces; p++) {
            const scan_piece *pc = &cp->pieces[p];
            if (pc->dict && splits[i].shares_rg && !has_leader) continue;
            if (pc->off < lo) lo = pc->off;
            if (pc->off + pc->len > hi) hi = pc->off + pc->len;
        }
    }
    u->off[k] = hi > lo ? lo : 0;
    u->len[k] = hi > lo ? hi - lo : 0;
}

fut_t *fetch_unit_read(scan_fetch *fx, int core, scan_unit *u, int k)
{
    assert(!u->f[k] && u->len[k] > 0 && u->src < 0);
    u->f[k] = io_read(fx->cores[core].io, fx->plan->f->file, u->off[k], u->len[k]);
    return u->f[k];
}

fut_t *fetch_unit_fut_cover(scan_fetch *fx, int unit, int k, uint64_t off, uint64_t len)
{
    scan_unit *u = &fx->units[unit];
    int owner = atomic_load(&u->owner);
    assert(owner == exec_core_index(exec_current()));
    if (u->f[k] || u->src >= 0 || !fx->cores[owner].io) return u->f[k];
    fetch_unit_range(fx, u, k, u->first, span_end(atomic_load(&u->span))); /* fetch.c inv. 4 */
    uint64_t lo = u->off[k], hi = lo + u->len[k];
    if (u->len[k] == 0 || off + len < lo || off > hi + fx->gap_bytes) return NULL;
    u->off[k] = off < lo ? off : lo;
    u->len[k] = (off + len > hi ? off + len : hi) - u->off[k];
    return fetch_unit_read(fx, owner, u, k);
}

void scan_fetch_discarded(scan_fetch *fx, fut_t *f)
{
    if (fut_is_ready(f) && fut_status(f) == 0 && fut_is_wanted(f)) {
        const io_bytes *b = fut_value(f);
        atomic_fetch_add_explicit(&fx->bytes_discarded, b->len - b->shared, memory_order_relaxed);
    }
}

fut_t *scan_fetch_take_pre(scan_fetch *fx, int unit, int i, int k, int q)
{
    scan_unit *u = &fx->units[unit];
    if (!u->pre) return NULL;
    assert(u->pre_split == i && q < fx->plan->splits[u->pre_split].cols[k].npieces);
    fut_t *f = u->pre[k][q];
    u->pre[k][q] = NULL;
    return f;
}

bool scan_fetch_is_unit_fut(const scan_fetch *fx, int unit, int k, const fut_t *f)
{
    const scan_unit *u = &fx->units[unit];
    return u->shared && f && f == u->f[k];
}

io_bytes scan_fetch_slice(scan_fetch *fx, int unit, int k, uint64_t off, uint64_t len)
{
    scan_unit *u = &fx->units[unit];
    assert(u->f[k] && fut_is_ready(u->f[k]) && fut_status(u->f[k]) == 0);
    assert(off >= u->off[k] && off + len <= u->off[k] + u->len[k]);
    const io_bytes *b = fut_value(u->f[k]);
    uint64_t rel = off - u->off[k];
    size_t n = rel >= b->len ? 0 : (size_t)(b->len - rel < len ? b->len - rel : len);
    u->used[k] = true;
    return (io_bytes){.data = b->data + (rel < b->len ? rel : 0), .len = n, .shared = 0};
}
