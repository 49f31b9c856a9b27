/* scan/explain.c: the --explain sink (explain.h) and the conjunct orders, stated and used, as
 * text. */
#include "scan/explain.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/prune.h"
#include "filter/vexpr.h"

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

void scan_explainf_at(scan_explain_buf *x, size_t at, const char *fmt, ...)
{
    if (!x || !x->buf) return;
    assert(at <= x->len && x->len < SCAN_EXPLAIN_MAX);
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    size_t add = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (at + add > SCAN_EXPLAIN_MAX - 1) add = SCAN_EXPLAIN_MAX - 1 - at;
    size_t keep = x->len - at; /* the tail that moves; what passes the end is dropped */
    if (at + add + keep > SCAN_EXPLAIN_MAX - 1) keep = SCAN_EXPLAIN_MAX - 1 - at - add;
    memmove(x->buf + at + add, x->buf + at, keep);
    memcpy(x->buf + at, line, add);
    x->len = at + add + keep;
    x->buf[x->len] = 0;
}

const char *scan_explain_plural(long long n)
{
    return n == 1 ? "" : "s";
}

/* How a multi-column conjunct prunes: statistics, and page indexes unless a part compares
 * two columns or value expressions over several (plan_index.c). */
static const char *multi_rule(const flt_multi *m, bool page_index)
{
    bool cmp = false;
    for (int32_t t = 0; t < m->nitems; t++) {
        const flt_cmp *c = &m->items[t].cmp;
        cmp = cmp || (m->items[t].is_cmp && (!c->vl || flt_v_one_slot(c->vl, c->vr) < 0));
    }
    return page_index && !cmp ? "statistics, page index (each part)" : "statistics (each part)";
}

void scan_explain_filter(scan_explain_buf *x, const flt_expr *filter, bool page_index,
                         bool bloom)
{
    for (int k = 0; k < filter->npreds; k++) {
        const flt_pred *p = &filter->preds[k];
        char text[512], cols[256];
        flt_pred_print(p, text, sizeof text);
        snprintf(cols, sizeof cols, "%s", flt_pred_label(p));
        for (char *c = cols; *c; c++) *c = *c == '|' ? ',' : *c;
        const char *rule = p->dyn ? "the Top-K bound, by statistics and page index as it tightens"
                           : p->multi ? multi_rule(p->multi, page_index)
                           : !flt_prunable(p) ? "nothing (no bound rules it out)"
                           : page_index ? "statistics, page index" : "statistics";
        char from[48] = "";
        if (p->implied) snprintf(from, sizeof from, "implied by conjunct #%d; ", p->implied);
        scan_explainf(x, "conjunct #%d: %s (%sreads %s; prunes by %s%s)\n", k + 1, text, from, cols,
                      rule, bloom && flt_bloom_applies(p) ? ", bloom filter" : "");
    }
}

void scan_explain_start_order(scan_explain_buf *x, const flt_expr *filter)
{
    int32_t perm[FLT_MAX_PREDS];
    flt_expr_stated_order(filter, perm); /* the order the policy starts from */
    scan_explainf(x, "conjunct order (start):");
    for (int i = 0; i < filter->npreds; i++)
        scan_explainf(x, "%s #%d %s", i ? " ->" : "", perm[i] + 1,
                      flt_pred_label(&filter->preds[perm[i]]));
    scan_explainf(x, "\n");
}

void scan_explain_final_order(scan_explain_buf *x, const flt_order *order, const flt_expr *filter,
                              const int32_t *perm, int split, int reordered, int explored)
{
    if (split < 0 && explored > 0) { /* a dataset's one-split file (a shared order's turn) */
        scan_explainf(x, "conjunct order (final): none but an exploring one (%d split%s explored)\n",
                      explored, scan_explain_plural(explored));
        return;
    }
    if (split < 0) {
        scan_explainf(x, "conjunct order (final): as at the start (no split ran the filter)\n");
        return;
    }
    scan_explainf(x, "conjunct order (final, split %d; %d split%s reordered, %d explored):", split,
                  reordered, scan_explain_plural(reordered), explored);
    for (int i = 0; i < filter->npreds; i++) {
        assert(perm[i] >= 0 && perm[i] < order->n);
        const flt_order_stat *st = &order->st[perm[i]];
        uint64_t in = atomic_load_explicit(&st->rows_in, memory_order_relaxed);
        uint64_t out = atomic_load_explicit(&st->rows_out, memory_order_relaxed);
        uint64_t runs = atomic_load_explicit(&st->runs, memory_order_relaxed);
        uint64_t emptied = atomic_load_explicit(&st->emptied, memory_order_relaxed);
        scan_explainf(x, "%s #%d %s (rows in %llu, passed %.3f, emptied %llu of %llu, rank %.2f)",
                      i ? " ->" : "", perm[i] + 1, flt_pred_label(&filter->preds[perm[i]]),
                      (unsigned long long)in, in ? (double)out / (double)in : 0.0,
                      (unsigned long long)emptied, (unsigned long long)runs,
                      flt_order_rank(order, perm[i]));
    }
    scan_explainf(x, "\n");
}

const char *scan_explain_text(const scan_explain_buf *x)
{
    return x->buf ? x->buf : "";
}

void scan_explain_store(scan_explain_buf *x, const io_file_t *f, int tasks, int base,
                        uint64_t limit, bool run_ahead)
{
    if (!f->be->remote) {
        scan_explainf(x, "store: local file; read-ahead: %s\n",
                      run_ahead ? "runs of units (eager)" : "none");
        return;
    }
    scan_explainf(x, "store: %s, model %.1f ms to first byte, %.1f MB/s a connection, "
                  "%u connections: merge over holes up to %llu B (over 4096 B only while every "
                  "connection is busy), requests up to %llu B; read-ahead: %d tasks "
                  "per core (%d never wait), budget %llu B\n", f->be->name,
                  (double)atomic_load(&f->cost.ttfb_ns) / 1e6,
                  (double)atomic_load(&f->cost.bytes_per_s) / 1e6, f->cost.conns,
                  (unsigned long long)io_cost_gap(&f->cost), (unsigned long long)io_cost_max(&f->cost),
                  tasks, base, (unsigned long long)limit);
}
