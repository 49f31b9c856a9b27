/* scan/explain.c: the --explain sink (explain.h) and the adaptive conjunct order as text. */
#include "scan/explain.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/fail.h"

int scan_explain_init(scan_explain_buf *x, int on)
{
    x->len = 0;
    x->buf = on ? fail_calloc(1, SCAN_EXPLAIN_MAX) : NULL;
    return on && !x->buf ? -ENOMEM : 0;
}

void scan_explain_free(scan_explain_buf *x)
{
    free(x->buf);
    x->buf = NULL;
    x->len = 0;
}

void scan_explainf(scan_explain_buf *x, const char *fmt, ...)
{
    if (!x || !x->buf || x->len + 1 >= SCAN_EXPLAIN_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(x->buf + x->len, SCAN_EXPLAIN_MAX - x->len, fmt, ap);
    va_end(ap);
    if (n > 0) x->len += (size_t)n;
    if (x->len >= SCAN_EXPLAIN_MAX) x->len = SCAN_EXPLAIN_MAX - 1;
}

void scan_explain_order(scan_explain_buf *x, const flt_order *order, const flt_expr *filter,
                        const char *label)
{
    int32_t perm[FLT_ORDER_MAX];
    flt_order_snapshot(order, 0, perm); /* split 0 never explores */
    scan_explainf(x, "conjunct order (%s):", label);
    for (int i = 0; i < filter->npreds; i++) {
        const flt_order_stat *st = &order->st[perm[i]];
        uint64_t in = atomic_load_explicit(&st->rows_in, memory_order_relaxed);
        uint64_t out = atomic_load_explicit(&st->rows_out, memory_order_relaxed);
        scan_explainf(x, "%s #%d %s (rows in %llu, passed %.3f, rank %.2f)", i ? " ->" : "",
                      perm[i] + 1, filter->preds[perm[i]].desc->name, (unsigned long long)in,
                      in ? (double)out / (double)in : 0.0,
                      flt_order_rank(order, perm[i]));
    }
    scan_explainf(x, "\n");
}

const char *scan_explain_text(const scan_explain_buf *x)
{
    return x->buf ? x->buf : "";
}
