/* scan/explain.c: the adaptive conjunct order in --explain text. */
#include <stdatomic.h>

#include "scan/scan_impl.h"

void scan_order_explain(scan_t *s, const char *label)
{
    int32_t perm[FLT_ORDER_MAX];
    flt_order_snapshot(s->order, 0, perm); /* split 0 never explores */
    scan_explainf(s, "conjunct order (%s):", label);
    for (int i = 0; i < s->npreds; i++) {
        const flt_order_stat *st = &s->order->st[perm[i]];
        uint64_t in = atomic_load_explicit(&st->rows_in, memory_order_relaxed);
        uint64_t out = atomic_load_explicit(&st->rows_out, memory_order_relaxed);
        scan_explainf(s, "%s #%d %s (rows in %llu, passed %.3f, rank %.2f)", i ? " ->" : "",
                      perm[i] + 1, s->filter->preds[perm[i]].desc->name, (unsigned long long)in,
                      in ? (double)out / (double)in : 0.0, flt_order_rank(s->order, perm[i]));
    }
    scan_explainf(s, "\n");
}
