/* bench/bench_scan.c: the measured scan runs and the interleaved round loop of `ringscan bench`
 * (see bench_scan.h for the invariants).
 *
 * A run: CLOCK_MONOTONIC start; pqf_open (footer); the shape's projection and parsed filter;
 * scan_start; drain every batch, summing shape_vec_sum per projected column on the draining
 * thread (with --core-sum on the core that built the batch, scan_opts.batch_fn: at 1 thread
 * the draining thread's sum runs on the second CPU for free, at 2 it takes each core's CPU
 * share); scan_get_stats; scan_free; pqf_close; stop. So the time covers what a caller pays
 * for a fresh scan of the file: footer, planning, reads, decoding, filtering, the checksum
 * pass. The data comes from
 * the page cache (the files were just written or read; the bench cannot drop caches without
 * root, so cold-disk numbers are out of scope). */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_scan.h"
#include "scan/pqfile.h"
#include "scan/scan_rt.h"

double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The process's CPU time: every thread's, the ended ones' included. */
static uint64_t proc_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(const double *v, int n)
{
    if (n <= 0) return 0;
    double tmp[BENCH_ROUNDS_MAX];
    int m = n > BENCH_ROUNDS_MAX ? BENCH_ROUNDS_MAX : n;
    memcpy(tmp, v, (size_t)m * sizeof *tmp);
    qsort(tmp, (size_t)m, sizeof *tmp, cmp_double);
    return m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2;
}

/* <project root>/data when the binary is <root>/zig-out/bin/ringscan, else ./data. */
static void default_data_dir(char *out, size_t cap)
{
    char exe[BENCH_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *tail = "/zig-out/bin/ringscan";
    size_t tl = strlen(tail);
    if (n > (ssize_t)tl) {
        exe[n] = 0;
        if (strcmp(exe + n - tl, tail) == 0) {
            exe[n - tl] = 0;
            snprintf(out, cap, "%s/data", exe);
            return;
        }
    }
    snprintf(out, cap, "data");
}

void bench_scan_opts_default(bench_scan_opts *o)
{
    memset(o, 0, sizeof *o);
    o->sf = 1;
    o->seed = 1;
    default_data_dir(o->data_dir, sizeof o->data_dir);
    for (int i = 0; i < SHAPE_COUNT; i++) o->shape_on[i] = true;
    o->npolicies = 3;
    o->policies[0] = SCAN_LAZY;
    o->policies[1] = SCAN_EAGER;
    o->policies[2] = SCAN_ADAPTIVE;
    o->io = EXEC_IO_AUTO;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus < 1 ? 1 : cpus > EXEC_THREADS_MAX ? EXEC_THREADS_MAX : (int)cpus;
    o->rounds = 5;
    o->floor = true;
    o->aa = true;
    o->fetch_budget = SCAN_FETCH_BUDGET;
}

/* The checksum's column sums, a row per core (scan_opts.batch_fn): each core adds the values
 * of the batches it builds, and their sum is the consumer's (shape_vec_sum adds a value per
 * row, so neither the order nor the core changes it). Rows are cache lines apart. */
typedef struct core_sums {
    int threads;
    struct core_sum {
        _Alignas(64) uint64_t sum[LINEITEM_COLS_MAX];
    } *core;
} core_sums;

static void sum_on_core(void *ctx, int core, const scan_batch *b)
{
    core_sums *cs = ctx;
    assert(core >= 0 && core < cs->threads && b->ncols >= 1 && b->ncols <= LINEITEM_COLS_MAX);
    for (int i = 0; i < b->ncols; i++) shape_vec_sum(&b->cols[i], &cs->core[core].sum[i]);
}

/* Drains sc: rows and the checksum of the projected columns, summed here or, with cs, from
 * the cores' sums. */
static int drain(scan_t *sc, const core_sums *cs, int64_t *rows, uint64_t *checksum, pq_err *e)
{
    uint64_t sum[LINEITEM_COLS_MAX] = {0};
    int n = scan_nproj(sc), rc;
    if (n < 1 || n > LINEITEM_COLS_MAX) return pq_errf(e, -EINVAL, -1, "bad projection");
    *rows = 0;
    scan_batch b;
    while ((rc = scan_next(sc, &b, e)) == 1) {
        *rows += b.rows;
        for (int i = 0; !cs && i < n; i++) shape_vec_sum(&b.cols[i], &sum[i]);
        scan_batch_free(&b);
    }
    for (int c = 0; cs && c < cs->threads; c++)
        for (int i = 0; i < n; i++) sum[i] += cs->core[c].sum[i];
    *checksum = shape_checksum(sum, n);
    return rc;
}

/* Resets the process's resident-set high-water mark (Linux: clear_refs 5), so each run
 * reports its own peak. Best effort: without it the peak is the process's so far. */
static void peak_rss_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return;
    fputs("5", f);
    fclose(f);
}

/* VmHWM in bytes, 0 when unknown. */
static uint64_t peak_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) break;
    if (f) fclose(f);
    return (uint64_t)kb * 1024;
}

/* --store: the ranges sc's plan reads and their schedule on f's store (bench_store.c's
 * connection bound) into out. Returns the ms it took (taken out of the run's time). */
static double plan_schedule(const scan_t *sc, pqf_t *f, bench_run *out)
{
    double t0 = bench_now_ms();
    scan_range *r = NULL;
    int64_t n = 0;
    uint64_t *off = NULL, *len = NULL;
    if (scan_plan_ranges(sc, &r, &n) == 0 && n > 0) {
        off = malloc((size_t)n * sizeof *off);
        len = malloc((size_t)n * sizeof *len);
    }
    out->plan_ranges = 0, out->plan_range_bytes = 0, out->plan_sched_ns = 0;
    out->plan_requests = 0;
    if (off && len) {
        for (int64_t i = 0; i < n; i++) {
            off[i] = r[i].off, len[i] = r[i].len;
            out->plan_range_bytes += r[i].len;
        }
        out->plan_ranges = n;
        size_t req = 0;
        (void)io_sim_bound_ns(f->file, off, len, (size_t)n, &out->plan_sched_ns, &req);
        out->plan_requests = req;
    }
    free(off);
    free(len);
    free(r);
    return bench_now_ms() - t0;
}

/* One measured scan of shape sh on path with entry en's policy and budget. 0 or a negative status with e. */
static int run_once(const bench_ctx *c, const bench_shape_res *r, const bench_entry *en,
                    bench_run *out, pq_err *e)
{
    const bench_shape *sh = r->shape;
    peak_rss_reset(); /* the bench's own: a write to procfs, outside the timed scan */
    core_sums sums = {.threads = c->o.threads};
    size_t sums_bytes = sizeof *sums.core * (size_t)sums.threads;
    if (c->o.core_sum && !(sums.core = aligned_alloc(_Alignof(struct core_sum), sums_bytes)))
        return pq_errf(e, -ENOMEM, -1, "no memory for the checksum's sums");
    if (sums.core) memset(sums.core, 0, sums_bytes);
    double t0 = bench_now_ms();
    uint64_t p0 = proc_cpu_ns(), c0 = exec_thread_cpu_ns();
    pqf_t *f = NULL;
    flt_expr *filter = NULL;
    scan_t *sc = NULL;
    int proj[LINEITEM_COLS_MAX];
    io_open_opts io = {.store = c->o.store, .read_mode = c->o.read_mode};
    int rc = pqf_open_with(&f, r->path, &io, NULL, e);
    for (int i = 0; rc == 0 && i < sh->nproj; i++) {
        proj[i] = pq_file_meta_find_column(&f->meta, lineitem_columns[sh->proj[i]].name);
        if (proj[i] < 0) rc = pq_errf(e, RINGSCAN_EFORMAT, -1, "no column %s", lineitem_columns[sh->proj[i]].name);
    }
    if (rc == 0) rc = flt_parse(sh->where, f->meta.columns, f->meta.ncolumns, &filter, e);
    scan_opts so;
    scan_opts_default(&so);
    so.policy = en->policy;
    so.fetch_budget = en->fetch_budget;
    so.threads = c->o.threads;
    so.io = c->o.io;
    so.rt = en->kept ? c->rt : NULL;
    if (sums.core) so.batch_fn = sum_on_core, so.batch_ctx = &sums;
    double t1 = bench_now_ms();
    uint64_t c1 = exec_thread_cpu_ns();
    if (rc == 0) {
        rc = scan_start(f, proj, sh->nproj, filter, &so, &sc, e);
        filter = NULL; /* owned by the scan now, even on failure */
    }
    double t2 = bench_now_ms();
    uint64_t cpu0 = exec_thread_cpu_ns();
    out->open_cpu_ns = c1 - c0, out->start_cpu_ns = cpu0 - c1;
    if (rc == 0) rc = drain(sc, sums.core ? &sums : NULL, &out->rows, &out->checksum, e);
    out->consumer_cpu_ns = exec_thread_cpu_ns() - cpu0;
    double t3 = bench_now_ms();
    double plan_ms = c->o.store && sc && rc == 0 ? plan_schedule(sc, f, out) : 0;
    if (sc) scan_get_stats(sc, &out->st);
    else if (f) out->st.reads = (uint64_t)f->tail_reads;
    scan_free(sc);
    flt_expr_free(filter);
    out->ms = bench_now_ms() - t0 - plan_ms; /* the bound's computation is not the scan's */
    out->proc_cpu_ns = proc_cpu_ns() - p0;
    out->open_ms = t1 - t0, out->start_ms = t2 - t1, out->drain_ms = t3 - t2;
    out->end_ms = out->ms - (t3 - t0);
    out->peak_rss = peak_rss();
    if (f) {
        out->requests = atomic_load(&f->file->requests);
        out->store_bytes = atomic_load(&f->file->bytes);
        (void)io_sim_model(f->file, &out->ttfb_ns, &out->bw);
        out->footer_bytes = (uint64_t)f->meta_len + 8;
    }
    pqf_close(f);
    free(sums.core);
    out->match = rc == 0 && out->rows == r->expected.rows && out->checksum == r->expected.checksum;
    return rc;
}

static const char *policy_name(scan_policy p)
{
    return p == SCAN_LAZY ? "lazy" : p == SCAN_EAGER ? "eager" : "adaptive";
}

/* Sets up the entries of r: the policies (each followed by its "/kept" and "/off" arms while
 * one entry is left for the A/A repeat), then the A/A repeat of adaptive (or of the last). */
static int setup_entries(bench_ctx *c, bench_shape_res *r)
{
    for (int i = 0; i < c->o.npolicies; i++) {
        bench_entry *p = &r->e[r->nentries++], *en;
        p->policy = c->o.policies[i];
        p->fetch_budget = c->o.fetch_budget;
        snprintf(p->label, sizeof p->label, "%s", policy_name(p->policy));
        if (c->o.kept && r->nentries < BENCH_ENTRIES_MAX - 1) {
            en = &r->e[r->nentries++]; /* the same policy on the kept runtime */
            *en = *p;
            en->kept = true;
            snprintf(en->label, sizeof en->label, "%s/kept", policy_name(en->policy));
        }
        if (!c->o.store || c->o.fetch_budget == 0 || r->nentries >= BENCH_ENTRIES_MAX - 1) continue;
        en = &r->e[r->nentries++]; /* the same policy with no read-ahead */
        *en = *p;
        en->fetch_budget = 0;
        snprintf(en->label, sizeof en->label, "%s/off", policy_name(en->policy));
    }
    if (c->o.aa && r->nentries < BENCH_ENTRIES_MAX) {
        scan_policy p = c->o.policies[c->o.npolicies - 1];
        for (int i = 0; i < c->o.npolicies; i++)
            if (c->o.policies[i] == SCAN_ADAPTIVE) p = SCAN_ADAPTIVE;
        bench_entry *en = &r->e[r->nentries++];
        en->policy = p;
        en->fetch_budget = c->o.fetch_budget;
        snprintf(en->label, sizeof en->label, "%s#2", policy_name(p));
    }
    for (int i = 0; i < r->nentries; i++) {
        r->e[i].runs = calloc((size_t)c->o.rounds, sizeof *r->e[i].runs);
        if (!r->e[i].runs) return -ENOMEM;
    }
    return 0;
}

/* Medians, ratios, match flags of one shape. */
static void summarise(bench_ctx *c, bench_shape_res *r)
{
    double v[BENCH_ROUNDS_MAX], lazy = 0;
    for (int i = 0; i < r->nentries; i++) {
        bench_entry *en = &r->e[i];
        en->all_match = true;
        for (int k = 0; k < c->o.rounds; k++) {
            v[k] = en->runs[k].ms;
            en->all_match &= en->runs[k].match;
            en->reads_vary |= en->runs[k].st.reads != en->runs[0].st.reads;
        }
        en->median_ms = bench_median(v, c->o.rounds);
        if (strcmp(en->label, "lazy") == 0) lazy = en->median_ms;
        if (!en->all_match) c->any_mismatch = true;
    }
    for (int i = 0; i < r->nentries; i++)
        r->e[i].ratio_lazy = lazy > 0 ? r->e[i].median_ms / lazy : 0;
    if (r->floor.on) {
        r->floor.median_ms = bench_median(r->floor.ms, c->o.rounds);
        r->floor.median_cpu_ms = bench_median(r->floor.cpu_ms, c->o.rounds);
    }
}

/* Runs every round of one shape (invariant 3). 0 or 1 on an error (printed). */
static int bench_shape_rounds(bench_ctx *c, bench_shape_res *r)
{
    pq_err e = {.offset = -1};
    if (setup_entries(c, r)) return fprintf(stderr, "ringscan: bench: out of memory\n"), 1;
    if (c->o.floor) {
        int rc = bench_floor_load(r->path, r->shape, c->o.rounds, &r->floor, &e);
        c->reads_total += r->floor.reads;
        if (rc) return fprintf(stderr, "ringscan: bench: floor of %s: %s\n", r->shape->name, e.msg), 1;
    }
    for (int k = 0; k < c->o.rounds; k++) {
        for (int j = 0; j < r->nentries; j++) {
            bench_entry *en = &r->e[(j + k) % r->nentries];
            bench_run *run = &en->runs[k];
            int rc = run_once(c, r, en, run, &e);
            c->reads_total += run->st.reads;
            c->scan_reads_total += run->st.reads;
            if (!c->io_backend[0]) snprintf(c->io_backend, sizeof c->io_backend, "%s", run->st.io_backend);
            if (rc) {
                fprintf(stderr, "ringscan: bench: %s/%s: %s\n", r->shape->name, en->label,
                        e.msg[0] ? e.msg : ringscan_strerror(rc));
                c->any_error = true;
                return 1;
            }
            if (!run->match)
                fprintf(stderr, "ringscan: bench: %s/%s round %d: rows %lld checksum %llu, "
                                "expected rows %lld checksum %llu\n",
                        r->shape->name, en->label, k + 1, (long long)run->rows,
                        (unsigned long long)run->checksum, (long long)r->expected.rows,
                        (unsigned long long)r->expected.checksum);
        }
        if (r->floor.on) {
            r->floor.ms[k] = bench_floor_time(&r->floor, &r->floor.cpu_ms[k], &e);
            if (r->floor.ms[k] < 0)
                return fprintf(stderr, "ringscan: bench: floor of %s: %s\n", r->shape->name, e.msg), 1;
        }
    }
    bench_floor_free(&r->floor); /* keeps the figures, drops the loaded bytes */
    summarise(c, r);
    return 0;
}

static void ctx_free(bench_ctx *c)
{
    for (int i = 0; i < c->nshapes; i++) {
        for (int j = 0; j < c->shapes[i].nentries; j++) free(c->shapes[i].e[j].runs);
        bench_floor_free(&c->shapes[i].floor);
        free(c->shapes[i].floor.ms);
    }
    free(c);
}

/* Data files and expected answers for every chosen shape. 0 or 1. */
static int prepare(bench_ctx *c)
{
    char paths[2][BENCH_PATH_MAX] = {"", ""};
    for (int i = 0; i < SHAPE_COUNT; i++) {
        if (!c->o.shape_on[i]) continue;
        bench_shape_res *r = &c->shapes[c->nshapes++];
        r->shape = &bench_shapes[i];
        int l = (int)r->shape->layout;
        if (!paths[l][0] && bench_data_file(&c->o, r->shape->layout, paths[l], sizeof paths[l],
                                            &c->reads_total))
            return 1;
        snprintf(r->path, sizeof r->path, "%s", paths[l]);
    }
    return bench_data_expected(c);
}

int bench_scan_main(const bench_scan_opts *o)
{
    bench_ctx *c = calloc(1, sizeof *c);
    if (!c) return fprintf(stderr, "ringscan: bench: out of memory\n"), 1;
    c->o = *o;
    time_t now = time(NULL);
    strftime(c->date, sizeof c->date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    int rc = prepare(c);
    pq_err e = {.offset = -1};
    if (rc == 0 && o->kept && scan_rt_start(&c->rt, o->threads, o->io, 1, &e) != 0) {
        fprintf(stderr, "ringscan: bench: --kept: %s\n", e.msg);
        rc = 1;
    }
    double t0 = bench_now_ms();
    for (int i = 0; rc == 0 && i < c->nshapes; i++) rc = bench_shape_rounds(c, &c->shapes[i]);
    c->seconds_total = (bench_now_ms() - t0) / 1e3;
    if (rc == 0) {
        bench_report_table(c);
        if (o->json_path && bench_report_json(c, o->json_path) != 0) rc = 1;
        const char *why = "";
        if (o->chart_path && bench_chart(c, o->chart_path, &why) != 0) {
            fprintf(stderr, "ringscan: bench: cannot write %s: %s\n", o->chart_path, why);
            rc = 1;
        }
    }
    if (rc == 0 && c->any_mismatch) {
        fprintf(stderr, "ringscan: bench: some counts or checksums did not match the model\n");
        rc = 1;
    }
    scan_rt_free(c->rt);
    ctx_free(c);
    return rc;
}
