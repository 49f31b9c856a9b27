/* bench/bench_store.c: the part of `ringscan bench --store` 's report that only a store has:
 * requests (metadata ones included), bytes fetched and wasted, peak RSS, and two lower bounds
 * of each shape on that store, then the target lines (streaming vs off, within 1.25x of the
 * bound, no more requests than off).
 *
 * bound, the (issue 20): the time a perfect reader needs there counting round trips
 * but not connections: two round trips (the footer, then one wave of every other request at
 * once) plus the bytes it must fetch (the fewest any entry handed to its decoders, its
 * planning reads and the footer itself) at the store's whole bandwidth. A shape with more
 * disjoint ranges than connections (lineitem: 98 on 64 at sf=1, 978 at sf=10) pays further
 * round trips or reads holes, which no reader avoids (bench/RESULTS.md).
 *
 * b_conn, the connections' bound: the footer's round trip (its first byte, then its bytes and
 * the planning reads' at the store's whole bandwidth, as parts over idle connections reach
 * it), then the ranges the scan's plan reads (scan_plan_ranges: every piece of every unpruned
 * split) all requested at once in file order, touching ones as one request within the
 * store's request cap (5 MB on sim:ttfb=50ms, as io/ merges them; no hole read), served as
 * the store serves them (io_sim_bound_ns: each on the connection that frees first, its first
 * byte, then its transfer on it and through the store's pipe). From the plan, not from
 * the run's requests. It counts every piece the plan lists: where a lazy reader fetched fewer
 * bytes than the plan's (the fewest bytes_used of the entries is below them: a first
 * conjunct emptied whole splits, cancel) it is marked '*' and is not a lower bound for that
 * reader. Figures are the first round's; times the medians. */
#include <stdio.h>
#include <string.h>

#include "bench/bench_scan.h"

static double mb(uint64_t b) { return (double)b / 1e6; }

/* The fewest bytes any entry of r handed to its decoders (first round). */
static uint64_t used_min(const bench_shape_res *r)
{
    uint64_t need = UINT64_MAX;
    for (int i = 0; i < r->nentries; i++) {
        const scan_stats *st = &r->e[i].runs[0].st;
        if (st->bytes_used < need) need = st->bytes_used;
    }
    return need;
}

/* The lower bound of shape r in ms (0 when the store's model is unknown). */
static double lower_bound_ms(const bench_shape_res *r)
{
    const bench_run *first = &r->e[0].runs[0];
    if (first->bw == 0) return 0;
    uint64_t need = used_min(r) + first->st.plan_bytes + first->footer_bytes;
    return 2.0 * (double)first->ttfb_ns / 1e6 + (double)need / (double)first->bw * 1e3;
}

/* The connections' bound of shape r in ms (0 off a simulated store): the footer's round trip,
 * then the plan's ranges as the store schedules them. */
static double conn_bound_ms(const bench_shape_res *r)
{
    const bench_run *first = &r->e[0].runs[0];
    if (first->bw == 0 || first->plan_ranges == 0) return 0;
    uint64_t footer = first->st.plan_bytes + first->footer_bytes;
    return (double)(first->ttfb_ns + first->plan_sched_ns) / 1e6 +
           (double)footer / (double)first->bw * 1e3;
}

/* Whether r's connection bound counts more bytes than some entry used ('*'). */
static bool conn_over(const bench_shape_res *r)
{
    return r->e[0].runs[0].plan_range_bytes > used_min(r);
}

static const bench_entry *entry(const bench_shape_res *r, const char *label)
{
    for (int i = 0; i < r->nentries; i++)
        if (strcmp(r->e[i].label, label) == 0) return &r->e[i];
    return NULL;
}

static void print_rows(const bench_shape_res *r, double bound)
{
    double conn = conn_bound_ms(r);
    for (int j = 0; j < r->nentries; j++) {
        const bench_entry *en = &r->e[j];
        const bench_run *run = &en->runs[0];
        printf("%-21s %-13s %8llu %9.2f %9.2f %9.1f %8.1f %8.1f %7.2f %8.1f%c %6.2f\n",
               j ? "" : r->shape->name, en->label, (unsigned long long)run->requests,
               mb(run->store_bytes), mb(run->st.bytes_wasted), en->median_ms,
               mb(run->peak_rss), bound, bound > 0 ? en->median_ms / bound : 0.0, conn,
               conn_over(r) ? '*' : ' ', conn > 0 ? en->median_ms / conn : 0.0);
    }
}

/* "policy: on/off ms ratio" for each policy run both ways; counts the targets met. */
static void print_arms(const bench_shape_res *r, double bound, int *near, int *fewer, int *n)
{
    static const char *const pols[] = {"lazy", "eager", "adaptive"};
    const bench_run *first = &r->e[0].runs[0];
    printf("  %s: plan %lld ranges, %.2f MB, %llu requests on the store's connections %.1f "
           "ms; off/streaming", r->shape->name, (long long)first->plan_ranges,
           mb(first->plan_range_bytes), (unsigned long long)first->plan_requests,
           (double)first->plan_sched_ns / 1e6);
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
           "RSS: peak resident MB (the process's: past its first entry it includes what the "
           "allocator keeps committed from earlier scans)\n"
           "  bound: 2 round trips + needed bytes / bandwidth, connections not counted (the "
           "issue's)\n"
           "  b_conn: the footer's round trip + the plan's ranges (touching ones merged within the "
           "request cap, no hole read) all requested at once, each on the connection that frees "
           "first as the store serves them; '*': the plan holds more bytes than an entry used "
           "(not a bound for it)\n"
           "  x_bound, x_conn: ms / bound, ms / b_conn\n");
    printf("%-21s %-13s %8s %9s %9s %9s %8s %8s %7s %9s %6s\n", "shape", "entry", "requests",
           "MB_fetch", "MB_waste", "ms", "RSS_MB", "bound", "x_bound", "b_conn", "x_conn");
    int near = 0, fewer = 0, n = 0;
    for (int i = 0; i < c->nshapes; i++) print_rows(&c->shapes[i], lower_bound_ms(&c->shapes[i]));
    for (int i = 0; i < c->nshapes; i++)
        print_arms(&c->shapes[i], lower_bound_ms(&c->shapes[i]), &near, &fewer, &n);
    printf("policies measured both ways: %d; streaming requests <= off on %d; the better arm "
           "within 1.25x of the bound on %d\n", n, fewer, near);
}
