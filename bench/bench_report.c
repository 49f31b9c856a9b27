/* bench/bench_report.c: the text table on stdout and the JSON file of `ringscan bench`.
 *
 * The table shows, per shape and entry, the figures of the first round (read counts are
 * deterministic for lazy and eager; a '~' after reads marks an entry whose count varied
 * across rounds) and the median time; the JSON holds every round of every entry. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/bench_scan.h"
#include "format/meta.h"

static double mb(uint64_t b) { return (double)b / 1e6; }

static const bench_entry *find_entry(const bench_shape_res *r, const char *label)
{
    for (int i = 0; i < r->nentries; i++)
        if (strcmp(r->e[i].label, label) == 0) return &r->e[i];
    return NULL;
}

static void print_entry(const bench_shape_res *r, const bench_entry *en, bool first)
{
    const scan_stats *st = &en->runs[0].st;
    char rg[32], pg[32], xl[16] = "-", xf[16] = "-";
    snprintf(rg, sizeof rg, "%lld/%lld", (long long)st->row_groups_pruned, (long long)st->row_groups_total);
    snprintf(pg, sizeof pg, "%lld/%lld", (long long)st->pages_pruned, (long long)st->pages_total);
    if (en->ratio_lazy > 0) snprintf(xl, sizeof xl, "%.2f", en->ratio_lazy);
    if (r->floor.on && r->floor.median_ms > 0) snprintf(xf, sizeof xf, "%.2f", en->median_ms / r->floor.median_ms);
    printf("%-21s %-11s %6llu%c %8.2f %8.2f %8.2f %5llu %7s %9s %9lld %-4s %9.2f %6s %6s\n",
           first ? r->shape->name : "", en->label, (unsigned long long)st->reads,
           en->reads_vary ? '~' : ' ', mb(st->bytes_read), mb(st->bytes_used),
           mb(st->bytes_wasted), (unsigned long long)st->cancelled_reads, rg, pg,
           (long long)en->runs[0].rows, en->all_match ? "ok" : "BAD", en->median_ms, xl, xf);
}

/* The cores' balance: per shape, the share of the scanned rows the least busy core scanned,
 * per entry (median over rounds; 1/threads = even, 0 = one core did everything). */
static void print_balance(const bench_ctx *c)
{
    if (c->o.threads < 2) return;
    printf("core balance (rows scanned by the least busy core / rows scanned, median of rounds; "
           "even = %.2f):\n", 1.0 / c->o.threads);
    for (int i = 0; i < c->nshapes; i++) {
        const bench_shape_res *r = &c->shapes[i];
        printf("  %-21s", r->shape->name);
        for (int j = 0; j < r->nentries; j++) {
            const bench_entry *en = &r->e[j];
            double v[BENCH_ROUNDS_MAX];
            int n = c->o.rounds < BENCH_ROUNDS_MAX ? c->o.rounds : BENCH_ROUNDS_MAX;
            for (int k = 0; k < n; k++) {
                const scan_stats *st = &en->runs[k].st;
                v[k] = st->rows_scanned > 0 ? (double)st->core_rows_min / (double)st->rows_scanned : 0;
            }
            printf(" %s %.2f", en->label, bench_median(v, n));
        }
        printf("\n");
    }
}

/* The median over entry en's rounds of field f of core c's time, in ms. */
static double core_ms(const bench_ctx *c, const bench_entry *en, int core, size_t off)
{
    double v[BENCH_ROUNDS_MAX];
    int n = c->o.rounds < BENCH_ROUNDS_MAX ? c->o.rounds : BENCH_ROUNDS_MAX;
    for (int k = 0; k < n; k++) {
        const scan_core_stats *cs = &en->runs[k].st.core[core];
        v[k] = (double)*(const uint64_t *)((const char *)cs + off) / 1e6;
    }
    return bench_median(v, n);
}

/* The entry's CPU against the floor's, which a loaded machine distorts less than wall time:
 * the cores' CPU (medians summed over cores) over the floor thread's CPU (median). */
static void print_floor_cpu(const bench_ctx *c, const bench_shape_res *r, const bench_entry *en)
{
    if (!r->floor.on || r->floor.median_cpu_ms <= 0) return;
    double cores = 0;
    for (int core = 0; core < en->runs[0].st.ncores; core++)
        cores += core_ms(c, en, core, offsetof(scan_core_stats, cpu_ns));
    printf("  %-21s %-10s cores' cpu %.2f / floor cpu %.2f = x_floor_cpu %.2f\n", "", "", cores,
           r->floor.median_cpu_ms, cores / r->floor.median_cpu_ms);
}

/* Where each core's time went (scan_core_stats), medians of rounds in ms: a core idles when
 * it sleeps (io, dict, window, claim, drain, other) or has ended before the scan (tail). */
static void print_core_time(const bench_ctx *c)
{
    printf("core time (ms, medians of rounds): busy = wall - asleep; cpu: of busy, on a CPU; "
           "asleep while its tasks awaited io (reads, lends) | dict | window | claim (paced, no "
           "work) | drain | other; tail: its end to the scan's; consumer: the draining thread's CPU; "
           "proc: the process's CPU over the run; "
           "x_floor_cpu: the cores' CPU / the floor thread's CPU; "
           "the run's phases: open (footer), start (scan_start: plan, threads), drain, end "
           "(scan_free, close), with the host thread's CPU in open and start\n");
    static const struct { const char *name; size_t off; } f[] = {
        {"io", offsetof(scan_core_stats, io_ns)}, {"dict", offsetof(scan_core_stats, dict_ns)},
        {"window", offsetof(scan_core_stats, window_ns)},
        {"claim", offsetof(scan_core_stats, claim_ns)},
        {"drain", offsetof(scan_core_stats, drain_ns)},
        {"other", offsetof(scan_core_stats, other_ns)},
        {"start", offsetof(scan_core_stats, start_ns)}, {"tail", offsetof(scan_core_stats, tail_ns)}};
    for (int i = 0; i < c->nshapes; i++) {
        const bench_shape_res *r = &c->shapes[i];
        for (int j = 0; j < r->nentries; j++) {
            const bench_entry *en = &r->e[j];
            double ph[8][BENCH_ROUNDS_MAX];
            int n = c->o.rounds < BENCH_ROUNDS_MAX ? c->o.rounds : BENCH_ROUNDS_MAX;
            for (int k = 0; k < n; k++) {
                const bench_run *run = &en->runs[k];
                ph[0][k] = (double)run->consumer_cpu_ns / 1e6, ph[1][k] = run->open_ms;
                ph[2][k] = run->start_ms, ph[3][k] = run->drain_ms, ph[4][k] = run->end_ms;
                ph[5][k] = (double)run->open_cpu_ns / 1e6, ph[6][k] = (double)run->start_cpu_ns / 1e6;
                ph[7][k] = (double)run->proc_cpu_ns / 1e6;
            }
            for (int core = 0; core < en->runs[0].st.ncores; core++) {
                double wall = core_ms(c, en, core, offsetof(scan_core_stats, wall_ns)), asleep = 0;
                for (size_t k = 0; k < 6; k++) asleep += core_ms(c, en, core, f[k].off);
                printf("  %-21s %-10s c%d splits %3lld wall %7.2f busy %7.2f cpu %7.2f",
                       core ? "" : r->shape->name, core ? "" : en->label, core,
                       (long long)en->runs[0].st.core[core].splits, wall, wall - asleep,
                       core_ms(c, en, core, offsetof(scan_core_stats, cpu_ns)));
                for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
                    printf(" %s %.2f", f[k].name, core_ms(c, en, core, f[k].off));
                if (core == 0)
                    printf(" | consumer %.2f proc %.2f; open %.2f (cpu %.2f) start %.2f (cpu %.2f) "
                           "drain %.2f end %.2f", bench_median(ph[0], n), bench_median(ph[7], n),
                           bench_median(ph[1], n),
                           bench_median(ph[5], n), bench_median(ph[2], n), bench_median(ph[6], n),
                           bench_median(ph[3], n), bench_median(ph[4], n));
                printf("\n");
            }
            print_floor_cpu(c, r, en);
        }
    }
}

/* The target lines: adaptive against the better of lazy and eager, and the A/A noise. */
static void print_targets(const bench_ctx *c)
{
    int n = 0, reads_ok = 0, time_ok = 0;
    char aa[1024] = "";
    size_t used = 0;
    for (int i = 0; i < c->nshapes; i++) {
        const bench_shape_res *r = &c->shapes[i];
        const bench_entry *l = find_entry(r, "lazy"), *e = find_entry(r, "eager"),
                          *a = find_entry(r, "adaptive"), *a2 = find_entry(r, "adaptive#2");
        if (a && a2 && a->median_ms > 0 && used < sizeof aa - 64)
            used += (size_t)snprintf(aa + used, sizeof aa - used, " %s %.3f", r->shape->name,
                                     a2->median_ms / a->median_ms);
        if (!l || !e || !a) continue;
        n++;
        uint64_t best_reads = l->runs[0].st.reads < e->runs[0].st.reads ? l->runs[0].st.reads : e->runs[0].st.reads;
        double best_ms = l->median_ms < e->median_ms ? l->median_ms : e->median_ms;
        reads_ok += a->runs[0].st.reads <= best_reads;
        time_ok += a->median_ms <= best_ms * 1.05;
    }
    if (aa[0]) printf("A/A noise (adaptive#2 ms / adaptive ms):%s\n", aa);
    if (n)
        printf("adaptive vs the better of lazy and eager: reads <= on %d of %d shapes, time within "
               "5%% on %d of %d\n", reads_ok, n, time_ok, n);
}

void bench_report_table(const bench_ctx *c)
{
    printf("ringscan bench: sf=%g, %d threads, io %s, %d interleaved rounds, %s\n", c->o.sf,
           c->o.threads, c->io_backend, c->o.rounds, c->date);
    printf("  reads: read calls incl. footer | MB read/used/wasted: bytes read, handed to decoders, read for nothing | cxl: reads dropped or cancelled | rg, pg: row groups, pages pruned/total\n");
    printf("  ok: rows+checksum equal the data model's | ms: median wall time (open..last batch, warm page cache) | x lazy: ms / lazy's ms | x floor: ms / one-core decompression of the same chunks\n");
    printf("%-21s %-11s %7s %8s %8s %8s %5s %7s %9s %9s %-4s %9s %6s %6s\n", "shape", "policy",
           "reads", "MB_read", "MB_used", "MB_waste", "cxl", "rg", "pg", "rows", "ok", "ms",
           "x_lazy", "x_floor");
    for (int i = 0; i < c->nshapes; i++) {
        const bench_shape_res *r = &c->shapes[i];
        for (int j = 0; j < r->nentries; j++) print_entry(r, &r->e[j], j == 0);
        if (r->floor.on)
            printf("%-21s %-11s %6llu  %8.2f  (%s, %lld pages in %lld chunks, %lld of %lld row "
                   "groups kept -> %.2f MB) %24.2f (thread cpu %.2f)\n",
                   "", "floor", (unsigned long long)r->floor.reads, mb(r->floor.bytes_compressed),
                   pq_codec_name(r->floor.codec), (long long)r->floor.pages,
                   (long long)r->floor.chunks,
                   (long long)(r->floor.row_groups - r->floor.row_groups_pruned),
                   (long long)r->floor.row_groups, mb(r->floor.bytes_uncompressed),
                   r->floor.median_ms, r->floor.median_cpu_ms);
    }
    print_targets(c);
    print_balance(c);
    print_core_time(c);
    if (c->o.store) bench_report_store(c);
    printf("read calls in this process: %llu (scans %llu, data check + floor loading %llu); %.1f s\n",
           (unsigned long long)c->reads_total, (unsigned long long)c->scan_reads_total,
           (unsigned long long)(c->reads_total - c->scan_reads_total), c->seconds_total);
}

/* ------------------------------------------------------------------------------ JSON */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

static void json_stats(FILE *f, const scan_stats *s)
{
    fprintf(f, "\"reads\":%llu,\"bytes_read\":%llu,\"bytes_used\":%llu,\"bytes_wasted\":%llu,"
               "\"cancelled_reads\":%llu,\"requests_registered\":%llu,\"requests_dropped\":%llu,"
               "\"plan_reads\":%llu,\"plan_bytes\":%llu,\"row_groups_total\":%lld,"
               "\"row_groups_pruned\":%lld,\"pages_total\":%lld,\"pages_pruned\":%lld,"
               "\"rows_scanned\":%lld,\"rows_out\":%lld,\"splits_all_false\":%lld,"
               "\"core_rows_min\":%lld,\"core_rows_max\":%lld,"
               "\"decoded_pages\":%lld,\"peak_inflight_bytes\":%llu,\"bytes_skipped\":%llu,"
               "\"steals\":%lld,\"reads_lent\":%lld,\"io_backend\":",
            (unsigned long long)s->reads, (unsigned long long)s->bytes_read,
            (unsigned long long)s->bytes_used, (unsigned long long)s->bytes_wasted,
            (unsigned long long)s->cancelled_reads, (unsigned long long)s->requests_registered,
            (unsigned long long)s->requests_dropped, (unsigned long long)s->plan_reads,
            (unsigned long long)s->plan_bytes, (long long)s->row_groups_total,
            (long long)s->row_groups_pruned, (long long)s->pages_total, (long long)s->pages_pruned,
            (long long)s->rows_scanned, (long long)s->rows_out, (long long)s->splits_all_false,
            (long long)s->core_rows_min, (long long)s->core_rows_max, (long long)s->decoded_pages, (unsigned long long)s->peak_inflight_bytes,
            (unsigned long long)s->bytes_skipped, (long long)s->steals, (long long)s->reads_lent);
    json_str(f, s->io_backend);
    fprintf(f, ",\"cores\":[");
    for (int c = 0; c < s->ncores; c++) {
        const scan_core_stats *k = &s->core[c];
        fprintf(f, "%s{\"splits\":%lld,\"wall_ns\":%llu,\"cpu_ns\":%llu,\"io_ns\":%llu,"
                   "\"dict_ns\":%llu,\"window_ns\":%llu,\"claim_ns\":%llu,\"drain_ns\":%llu,"
                   "\"other_ns\":%llu,\"start_ns\":%llu,\"tail_ns\":%llu}",
                c ? "," : "", (long long)k->splits, (unsigned long long)k->wall_ns,
                (unsigned long long)k->cpu_ns, (unsigned long long)k->io_ns,
                (unsigned long long)k->dict_ns, (unsigned long long)k->window_ns,
                (unsigned long long)k->claim_ns, (unsigned long long)k->drain_ns,
                (unsigned long long)k->other_ns, (unsigned long long)k->start_ns,
                (unsigned long long)k->tail_ns);
    }
    fputc(']', f);
}

static void json_entry(FILE *f, const bench_shape_res *r, const bench_entry *en, int rounds)
{
    fprintf(f, "{\"label\":");
    json_str(f, en->label);
    fprintf(f, ",\"median_ms\":%.4f,\"ratio_lazy\":%.4f,\"ratio_floor\":%.4f,\"match\":%s,"
               "\"reads_vary\":%s,\"runs\":[",
            en->median_ms, en->ratio_lazy,
            r->floor.on && r->floor.median_ms > 0 ? en->median_ms / r->floor.median_ms : 0.0,
            en->all_match ? "true" : "false", en->reads_vary ? "true" : "false");
    for (int k = 0; k < rounds; k++) {
        const bench_run *run = &en->runs[k];
        fprintf(f, "%s{\"round\":%d,\"ms\":%.4f,\"rows\":%lld,\"checksum\":%llu,\"match\":%s,"
                   "\"fetch_budget\":%lld,\"store_requests\":%llu,\"store_bytes\":%llu,"
                   "\"peak_rss\":%llu,\"consumer_cpu_ns\":%llu,\"open_ms\":%.4f,"
                   "\"start_ms\":%.4f,\"drain_ms\":%.4f,\"end_ms\":%.4f,\"open_cpu_ns\":%llu,"
                   "\"start_cpu_ns\":%llu,\"proc_cpu_ns\":%llu,\"plan_ranges\":%lld,"
                   "\"plan_range_bytes\":%llu,\"plan_requests\":%llu,\"plan_sched_ns\":%llu,",
                k ? "," : "", k + 1, run->ms, (long long)run->rows,
                (unsigned long long)run->checksum, run->match ? "true" : "false",
                (long long)en->fetch_budget, (unsigned long long)run->requests,
                (unsigned long long)run->store_bytes, (unsigned long long)run->peak_rss,
                (unsigned long long)run->consumer_cpu_ns, run->open_ms, run->start_ms,
                run->drain_ms, run->end_ms, (unsigned long long)run->open_cpu_ns,
                (unsigned long long)run->start_cpu_ns, (unsigned long long)run->proc_cpu_ns,
                (long long)run->plan_ranges, (unsigned long long)run->plan_range_bytes,
                (unsigned long long)run->plan_requests, (unsigned long long)run->plan_sched_ns);
        json_stats(f, &run->st);
        fputc('}', f);
    }
    fprintf(f, "]}");
}

static void json_floor(FILE *f, const bench_floor *fl, int rounds)
{
    if (!fl->on) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{\"codec\":\"%s\",\"row_groups\":%lld,\"row_groups_pruned\":%lld,\"chunks\":%lld,"
               "\"pages\":%lld,\"bytes_compressed\":%llu,\"bytes_uncompressed\":%llu,"
               "\"reads\":%llu,\"median_ms\":%.4f,\"median_cpu_ms\":%.4f,\"ms\":[",
            pq_codec_name(fl->codec), (long long)fl->row_groups, (long long)fl->row_groups_pruned,
            (long long)fl->chunks, (long long)fl->pages, (unsigned long long)fl->bytes_compressed,
            (unsigned long long)fl->bytes_uncompressed, (unsigned long long)fl->reads,
            fl->median_ms, fl->median_cpu_ms);
    for (int k = 0; k < rounds; k++) fprintf(f, "%s%.4f", k ? "," : "", fl->ms[k]);
    fprintf(f, "],\"cpu_ms\":[");
    for (int k = 0; k < rounds; k++) fprintf(f, "%s%.4f", k ? "," : "", fl->cpu_ms[k]);
    fprintf(f, "]}");
}

static void json_machine(FILE *f)
{
    struct utsname u;
    char cpu[256] = "?", line[512];
    FILE *ci = fopen("/proc/cpuinfo", "r");
    while (ci && fgets(line, sizeof line, ci))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            snprintf(cpu, sizeof cpu, "%s", strchr(line, ':') + 2);
            cpu[strcspn(cpu, "\n")] = 0;
            break;
        }
    if (ci) fclose(ci);
    uname(&u);
    fprintf(f, "\"machine\":{\"nproc\":%ld,\"memory_bytes\":%lld,\"kernel\":",
            sysconf(_SC_NPROCESSORS_ONLN),
            (long long)sysconf(_SC_PHYS_PAGES) * (long long)sysconf(_SC_PAGESIZE));
    json_str(f, u.release);
    fprintf(f, ",\"cpu\":");
    json_str(f, cpu);
    fprintf(f, "}");
}

/* A write that failed before the last flush leaves only ferror set (glibc's fclose can still
 * succeed on what remained), so both are checked; errno is kept from the failed call when it
 * says more than EIO. The partial file was left in place before (bench --json onto a full
 * disk: an empty or cut report). */
int bench_close_checked(FILE *f, const char *path, const char *who)
{
    struct stat st;
    bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    errno = 0;
    int werr = (fflush(f) != 0 || ferror(f)) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !werr) werr = errno ? errno : EIO;
    if (!werr) return 0;
    fprintf(stderr, "ringscan: %s: error writing %s: %s\n", who, path, strerror(werr));
    if (regular) unlink(path);
    return -werr;
}

int bench_report_json(const bench_ctx *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return fprintf(stderr, "ringscan: bench: %s: %s\n", path, strerror(errno)), -errno;
    fprintf(f, "{\"bench\":\"scan\",\"date\":");
    json_str(f, c->date);
    fprintf(f, ",\"sf\":%g,\"seed\":%llu,\"threads\":%d,\"rounds\":%d,\"row_group_rows\":%d,"
               "\"io_backend\":",
            c->o.sf, (unsigned long long)c->o.seed, c->o.threads, c->o.rounds, BENCH_ROW_GROUP_ROWS);
    json_str(f, c->io_backend);
    fprintf(f, ",\"data_dir\":");
    json_str(f, c->o.data_dir);
    fprintf(f, ",");
    json_machine(f);
    fprintf(f, ",\"reads_total\":%llu,\"scan_reads_total\":%llu,\"seconds_total\":%.3f,"
               "\"all_match\":%s,\"shapes\":[",
            (unsigned long long)c->reads_total, (unsigned long long)c->scan_reads_total,
            c->seconds_total, c->any_mismatch ? "false" : "true");
    for (int i = 0; i < c->nshapes; i++) {
        const bench_shape_res *r = &c->shapes[i];
        fprintf(f, "%s{\"name\":", i ? "," : "");
        json_str(f, r->shape->name);
        fprintf(f, ",\"where\":");
        json_str(f, r->shape->where);
        fprintf(f, ",\"file\":");
        json_str(f, r->path);
        fprintf(f, ",\"expected\":{\"rows\":%lld,\"checksum\":%llu},\"entries\":[",
                (long long)r->expected.rows, (unsigned long long)r->expected.checksum);
        for (int j = 0; j < r->nentries; j++) {
            if (j) fputc(',', f);
            json_entry(f, r, &r->e[j], c->o.rounds);
        }
        fprintf(f, "],\"floor\":");
        json_floor(f, &r->floor, c->o.rounds);
        fputc('}', f);
    }
    fprintf(f, "]}\n");
    return bench_close_checked(f, path, "bench");
}
