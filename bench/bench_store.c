/* bench/bench_store.c: the part of `ringscan bench --store` 's report that only a store has:
 * requests (metadata ones included), bytes fetched and wasted, peak RSS, and the lower bound
 * of each shape on that store, then the target lines (streaming vs off, within 1.25x of the
 * bound, no more requests than off).
 *
 * The lower bound is the time a perfect reader needs there (issue 20): two round trips (the
 * footer, then one wave of every other request at once) plus the bytes it must fetch (the
 * fewest any entry handed to its decoders, its planning reads and the footer itself) at the
 * store's whole bandwidth. It counts one wave whatever the store's connections: a shape with
 * more disjoint ranges than connections (lineitem: 98 on 64 at sf=1) pays a second round trip
 * or reads holes, which no reader avoids (bench/RESULTS.md). Figures are the first round's;
 * times the medians. */
#include <stdio.h>
#include <string.h>

#include "bench/bench_scan.h"

static double mb(uint64_t b) { return (double)b / 1e6; }

/* The lower bound of shape r in ms (0 when the store's model is unknown). */
static double lower_bound_ms(const bench_shape_res *r)
{
    uint64_t need = UINT64_MAX;
    const bench_run *first = &r->e[0].runs[0];
    for (int i = 0; i < r->nentries; i++) {
        const scan_stats *st = &r->e[i].runs[0].st;
        if (st->bytes_used < need) need = st->bytes_used;
    }
    if (first->bw == 0) return 0;
    need += first->st.plan_bytes + first->footer_bytes;
    return 2.0 * (double)first->ttfb_ns / 1e6 + (double)need / (double)first->bw * 1e3;
}

static const bench_entry *entry(const bench_shape_res *r, const char *label)
{
    for (int i = 0; i < r->nentries; i++)
        if (strcmp(r->e[i].label, label) == 0) return &r->e[i];
    return NULL;
}

static void print_rows(const bench_shape_res *r, double bound)
{
    for (int j = 0; j < r->nentries; j++) {
        const bench_entry *en = &r->e[j];
        const bench_run *run = &en->runs[0];
        printf("%-21s %-13s %8llu %9.2f %9.2f %9.1f %8.1f %8.1f %7.2f\n", j ? "" : r->shape->name,
               en->label, (unsigned long long)run->requests, mb(run->store_bytes),
               mb(run->st.bytes_wasted), en->median_ms, mb(run->peak_rss), bound,
               bound > 0 ? en->median_ms / bound : 0.0);
    }
}

/* "policy: on/off ms ratio" for each policy run both ways; counts the targets met. */
static void print_arms(const bench_shape_res *r, double bound, int *near, int *fewer, int *n)
{
    static const char *const pols[] = {"lazy", "eager", "adaptive"};
    printf("  %s: off/streaming", r->shape->name);
    for (int p = 0; p < 3; p++) {
        char off[24];
        snprintf(off, sizeof off, "%s/off", pols[p]);
        const bench_entry *on = entry(r, pols[p]), *o = entry(r, off);
        if (!on || !o || on->median_ms <= 0) continue;
        printf(" %s %.2fx", pols[p], o->median_ms / on->median_ms);
        (*n)++;
        *fewer += on->runs[0].requests <= o->runs[0].requests;
        double best = on->median_ms < o->median_ms ? on->median_ms : o->median_ms;
        *near += bound > 0 && best <= 1.25 * bound;
    }
    printf("\n");
}

void bench_report_store(const bench_ctx *c)
{
    printf("\nstore %s, fetch budget %lld bytes (entries '/off': budget 0, no read-ahead)\n",
           c->o.store, (long long)c->o.fetch_budget);
    printf("  requests: to the store, metadata included | MB_fetched: bytes they returned | "
           "RSS: peak resident MB | bound: 2 round trips + needed bytes / bandwidth\n");
    printf("%-21s %-13s %8s %9s %9s %9s %8s %8s %7s\n", "shape", "entry", "requests",
           "MB_fetch", "MB_waste", "ms", "RSS_MB", "bound", "x_bound");
    int near = 0, fewer = 0, n = 0;
    for (int i = 0; i < c->nshapes; i++) print_rows(&c->shapes[i], lower_bound_ms(&c->shapes[i]));
    for (int i = 0; i < c->nshapes; i++)
        print_arms(&c->shapes[i], lower_bound_ms(&c->shapes[i]), &near, &fewer, &n);
    printf("policies measured both ways: %d; streaming requests <= off on %d; the better arm "
           "within 1.25x of the bound on %d\n", n, fewer, near);
}
