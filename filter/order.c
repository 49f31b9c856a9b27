/* filter/order.c: adaptive conjunct order (see order.h for the model and invariants). */
#include "filter/order.h"

#include <assert.h>
#include <string.h>

void flt_order_init(flt_order *o, int32_t n, double ns_per_byte, uint64_t decay_rows)
{
    assert(o && n >= 1 && n <= FLT_ORDER_MAX);
    o->n = n;
    o->ns_per_byte = ns_per_byte > 0 ? ns_per_byte : FLT_ORDER_NS_PER_BYTE_DEFAULT;
    o->decay_rows = decay_rows ? decay_rows : FLT_ORDER_DECAY_ROWS_DEFAULT;
    for (int32_t k = 0; k < FLT_ORDER_MAX; k++) {
        atomic_init(&o->st[k].rows_in, 0);
        atomic_init(&o->st[k].rows_out, 0);
        atomic_init(&o->st[k].ns, 0);
        atomic_init(&o->st[k].bytes, 0);
        atomic_init(&o->st[k].runs, 0);
        atomic_init(&o->st[k].emptied, 0);
    }
}

/* x -= x / 2 atomically (concurrent additions survive). */
static void halve(_Atomic uint64_t *x)
{
    uint64_t cur = atomic_load_explicit(x, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(x, &cur, cur - cur / 2, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

void flt_order_report(flt_order *o, int32_t k, uint64_t rows_in, uint64_t rows_out,
                      uint64_t ns, uint64_t bytes)
{
    assert(o && k >= 0 && k < o->n && rows_out <= rows_in);
    if (rows_in == 0) return;
    flt_order_stat *s = &o->st[k];
    atomic_fetch_add_explicit(&s->rows_out, rows_out, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->ns, ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes, bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->emptied, rows_out == 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->runs, 1, memory_order_relaxed);
    uint64_t total = atomic_fetch_add_explicit(&s->rows_in, rows_in, memory_order_relaxed) +
                     rows_in;
    if (total <= o->decay_rows) return;
    /* One reporter wins the right to decay: the one whose CAS halves rows_in. */
    if (!atomic_compare_exchange_strong_explicit(&s->rows_in, &total, total - total / 2,
                                                 memory_order_relaxed, memory_order_relaxed))
        return;
    halve(&s->rows_out);
    halve(&s->ns);
    halve(&s->bytes);
    halve(&s->emptied); /* (before runs: a reader clamps q into [0, 1]) */
    halve(&s->runs);
}

double flt_order_rank(const flt_order *o, int32_t k)
{
    assert(o && k >= 0 && k < o->n);
    const flt_order_stat *s = &o->st[k];
    uint64_t in = atomic_load_explicit(&s->rows_in, memory_order_relaxed);
    if (in == 0) return -1.0;
    double out = (double)atomic_load_explicit(&s->rows_out, memory_order_relaxed);
    double ns = (double)atomic_load_explicit(&s->ns, memory_order_relaxed);
    double bytes = (double)atomic_load_explicit(&s->bytes, memory_order_relaxed);
    double runs = (double)atomic_load_explicit(&s->runs, memory_order_relaxed);
    double emptied = (double)atomic_load_explicit(&s->emptied, memory_order_relaxed);
    double sel = out / (double)in;
    if (sel > FLT_ORDER_MAX_SEL) sel = FLT_ORDER_MAX_SEL;
    if (sel < 0) sel = 0;
    double q = runs > 0 ? emptied / runs : 0.0;
    if (q > 1.0) q = 1.0;
    double cost = (ns + bytes * o->ns_per_byte) / (double)in;
    /* 1 - f (invariant 2): > 0, as 1 - sel >= 1 - FLT_ORDER_MAX_SEL */
    double saved = (1.0 - FLT_ORDER_SPLIT_WEIGHT) * (1.0 - sel) + FLT_ORDER_SPLIT_WEIGHT * q;
    assert(saved > 0);
    return cost / saved;
}

bool flt_order_explores(const flt_order *o, uint64_t split_index)
{
    assert(o && o->n >= 1 && o->n <= FLT_ORDER_MAX);
    return o->n >= 2 && split_index % FLT_ORDER_EXPLORE_PERIOD == FLT_ORDER_EXPLORE_PERIOD - 1;
}

void flt_order_snapshot(const flt_order *o, uint64_t split_index, int32_t *perm)
{
    assert(o && perm && o->n >= 1 && o->n <= FLT_ORDER_MAX);
    int32_t n = o->n;
    double rank[FLT_ORDER_MAX];
    for (int32_t k = 0; k < n; k++) rank[k] = flt_order_rank(o, k);
    /* insertion sort by (rank, index): stable, n <= 64 */
    for (int32_t i = 0; i < n; i++) {
        int32_t j = i;
        for (; j > 0 && rank[perm[j - 1]] > rank[i]; j--) perm[j] = perm[j - 1];
        perm[j] = i;
    }
    if (!flt_order_explores(o, split_index)) return;
    int32_t pick = (int32_t)((split_index / FLT_ORDER_EXPLORE_PERIOD) % (uint64_t)n), at = 0;
    while (perm[at] != pick) at++;
    if (at == 0) {
        perm[0] = perm[1], perm[1] = pick;
    } else {
        memmove(perm + 1, perm, (size_t)at * sizeof *perm);
        perm[0] = pick;
    }
}
