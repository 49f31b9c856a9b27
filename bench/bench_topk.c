/* bench/bench_topk.c: `ringscan bench topk` (see bench_topk.h for the arms and invariants):
 * the data files, the arms, the interleaved rounds and the report.
 *
 * The arms: for each layout, mode (threads, processes) and scanner count (1, 2, 8), sharing
 * off and on; on the pruning layout the threads mode also runs with statistics seeding off
 * (scan_opts.topk_no_seed: what an engine without seeding, as DataFusion, can prune); the
 * control layout's seeding is off anyway (its WHERE keeps statistics from proving K rows).
 * The A/A arm is control, threads, 2 scanners, sharing on, run twice per round. */
#include "bench/bench_topk.h"
#include "bench/lineitem_file.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/writer.h"

static const int scanner_counts[] = {1, 2, 8};
enum { NCOUNTS = 3 };
static const char *const layout_name[] = {"pruning", "control"};
static const char *const mode_name[] = {"threads", "procs"};

void bench_topk_opts_default(bench_topk_opts *o)
{
    bench_scan_opts so;
    bench_scan_opts_default(&so);
    memset(o, 0, sizeof *o);
    snprintf(o->data_dir, sizeof o->data_dir, "%s", so.data_dir);
    o->rounds = 5;
    o->row_groups = TOPK_BENCH_ROW_GROUPS;
    o->row_group_rows = TOPK_BENCH_ROW_GROUP_ROWS;
    o->seed = 1;
    o->io = EXEC_IO_AUTO;
    o->aa = true;
}

/* ---------------------------------------------------------------------------- data */

/* Writes f's table to f->path (through a temporary, renamed once complete). 0 or 1 (printed). */
static int write_file(const topk_bench_file *f)
{
    char tmp[sizeof f->path + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", f->path);
    fprintf(stderr, "ringscan: bench topk: writing %s\n", f->path);
    pq_column_desc d[TOPK_COLS];
    topk_gen_schema(d);
    pq_writer_opts wo;
    pq_writer_opts_default(&wo); /* as `ringscan gen topk` */
    wo.row_group_rows = f->gen.row_group_rows;
    FILE *fp = fopen(tmp, "wb");
    pq_writer *w = NULL;
    pq_err e = {.offset = -1};
    int rc = fp ? pq_writer_open(&w, d, TOPK_COLS, &wo, lineitem_file_sink, fp, &e) : -errno;
    if (rc == 0) rc = topk_gen_write(&f->gen, w, NULL, NULL, &e);
    if (rc == 0) rc = pq_writer_close(w, &e);
    pq_writer_free(w);
    if (fp && fclose(fp) != 0 && rc == 0) rc = -EIO;
    if (rc == 0 && rename(tmp, f->path) != 0) rc = -errno;
    if (rc == 0) return 0;
    unlink(tmp);
    fprintf(stderr, "ringscan: bench topk: %s: %s\n", f->path, e.msg[0] ? e.msg : strerror(-rc));
    return 1;
}

/* Sets up the file of layout l (written when missing) and the model's answer. 0 or 1. */
static int data_file(const bench_topk_opts *o, topk_layout l, topk_bench_file *f)
{
    memset(f, 0, sizeof *f);
    if (topk_gen_init(&f->gen, l, o->seed, o->row_groups, o->row_group_rows))
        return fprintf(stderr, "ringscan: bench topk: bad sizes\n"), 1;
    snprintf(f->path, sizeof f->path, "%s/topk-%s-g%lld-r%lld-s%llu.parquet", o->data_dir,
             layout_name[l], (long long)o->row_groups, (long long)o->row_group_rows,
             (unsigned long long)o->seed);
    struct stat st;
    if (stat(f->path, &st) != 0 && write_file(f)) return 1;
    if (topk_gen_expect(&f->gen, TOPK_BENCH_K, true, l == TOPK_LAYOUT_CONTROL, f->expect, &f->nexpect))
        return fprintf(stderr, "ringscan: bench topk: the model failed\n"), 1;
    return 0;
}

/* ---------------------------------------------------------------------------- arms */

static void add_arm(topk_bench_arm *arms, int *n, topk_layout l, topk_bench_mode m, int scanners,
                    bool share, bool no_seed, bool aa_repeat)
{
    topk_bench_arm *a = &arms[(*n)++];
    *a = (topk_bench_arm){.layout = l, .mode = m, .scanners = scanners, .share = share,
                          .no_seed = no_seed, .aa_repeat = aa_repeat};
    snprintf(a->label, sizeof a->label, "%s %-7s %s %d %s%s", layout_name[l], mode_name[m],
             no_seed ? "noseed" : "seed  ", scanners, share ? "on " : "off", aa_repeat ? " #2" : "");
}

static int build_arms(const bench_topk_opts *o, topk_bench_arm *arms)
{
    int n = 0;
    for (int l = 0; l < 2; l++)
        for (int m = 0; m < 2; m++)
            for (int ns = 0; ns < (l == TOPK_LAYOUT_PRUNING && m == TOPK_MODE_THREADS ? 2 : 1); ns++)
                for (int c = 0; c < NCOUNTS; c++)
                    for (int sh = 0; sh < 2; sh++)
                        add_arm(arms, &n, (topk_layout)l, (topk_bench_mode)m, scanner_counts[c], sh, ns, false);
    if (o->aa) add_arm(arms, &n, TOPK_LAYOUT_CONTROL, TOPK_MODE_THREADS, 2, true, false, true);
    return n;
}

/* ---------------------------------------------------------------------------- report */

typedef struct arm_med {
    double ms, bytes, rg_pruned, pages_pruned, cancelled, dead, kept;
    bool bytes_vary, all_match;
} arm_med;

static void medians(const topk_bench_run *runs, int rounds, arm_med *m)
{
    double v[7][BENCH_ROUNDS_MAX];
    m->all_match = true, m->bytes_vary = false;
    for (int r = 0; r < rounds; r++) {
        const topk_bench_run *x = &runs[r];
        v[0][r] = x->ms, v[1][r] = (double)x->bytes_read, v[2][r] = (double)x->row_groups_pruned;
        v[3][r] = (double)x->pages_pruned, v[4][r] = (double)x->cancelled_reads;
        v[5][r] = (double)x->splits_dead, v[6][r] = (double)x->rows_kept;
        m->all_match = m->all_match && x->match;
        m->bytes_vary = m->bytes_vary || x->bytes_read != runs[0].bytes_read;
    }
    m->ms = bench_median(v[0], rounds), m->bytes = bench_median(v[1], rounds);
    m->rg_pruned = bench_median(v[2], rounds), m->pages_pruned = bench_median(v[3], rounds);
    m->cancelled = bench_median(v[4], rounds), m->dead = bench_median(v[5], rounds);
    m->kept = bench_median(v[6], rounds);
}

static void print_arms(const topk_bench_arm *arms, const arm_med *m, int n)
{
    printf("%-30s %12s %9s %9s %9s %9s %9s %9s  %s\n", "arm (layout mode seed N share)",
           "scan_bytes", "rg_pruned", "pg_pruned", "cancelled", "dead", "kept", "median_ms", "result");
    for (int i = 0; i < n; i++)
        printf("%-30s %11.0f%s %9.0f %9.0f %9.0f %9.0f %9.0f %9.2f  %s\n", arms[i].label, m[i].bytes,
               m[i].bytes_vary ? "*" : " ", m[i].rg_pruned, m[i].pages_pruned, m[i].cancelled, m[i].dead,
               m[i].kept, m[i].ms, m[i].all_match ? "equal" : "DIFFERS");
    printf("(* bytes varied between rounds: the median is shown; kept = rows passed on as candidates)\n");
}

static int find_arm(const topk_bench_arm *arms, int n, topk_layout l, topk_bench_mode mo, bool ns,
                    int scanners, bool share)
{
    for (int i = 0; i < n; i++)
        if (arms[i].layout == l && arms[i].mode == mo && arms[i].no_seed == ns &&
            arms[i].scanners == scanners && arms[i].share == share && !arms[i].aa_repeat)
            return i;
    return -1;
}

/* The target beside a (layout, scanners) ratio. */
static const char *target_of(topk_layout l, int scanners, double ratio, bool same)
{
    if (scanners == 1) return "-";
    if (l == TOPK_LAYOUT_CONTROL) return same ? "identical: met" : "identical: NOT met";
    if (scanners == 2) return ratio <= 0.25 ? "<= 0.25 (df-dist 0.25): met" : "<= 0.25 (df-dist 0.25): NOT met";
    return ratio <= 0.5 ? "<= 0.5 (df-dist 0.861): met" : "<= 0.5 (df-dist 0.861): NOT met";
}

static void print_ratios(const topk_bench_arm *arms, const arm_med *m, int n)
{
    int aa = -1, ab = -1;
    for (int i = 0; i < n; i++)
        if (arms[i].aa_repeat) ab = i, aa = find_arm(arms, n, arms[i].layout, arms[i].mode, false, arms[i].scanners, true);
    double noise = aa >= 0 ? 100 * (m[ab].ms - m[aa].ms) / m[aa].ms : 0;
    printf("\nsharing on / off (medians)\n%-24s %12s %12s %7s %9s %9s %7s  %s\n", "layout mode seed N",
           "bytes_on", "bytes_off", "ratio", "ms_on", "ms_off", "time", "target");
    for (int i = 0; i < n; i++) {
        const topk_bench_arm *a = &arms[i];
        if (!a->share || a->aa_repeat) continue;
        int off = find_arm(arms, n, a->layout, a->mode, a->no_seed, a->scanners, false);
        if (off < 0) continue;
        double ratio = m[off].bytes > 0 ? m[i].bytes / m[off].bytes : 0;
        bool same = m[i].bytes == m[off].bytes && !m[i].bytes_vary && !m[off].bytes_vary;
        printf("%-7s %-7s %-6s %2d %12.0f %12.0f %7.3f %9.2f %9.2f %+6.1f%%  %s\n", layout_name[a->layout],
               mode_name[a->mode], a->no_seed ? "noseed" : "seed", a->scanners, m[i].bytes, m[off].bytes,
               ratio, m[i].ms, m[off].ms, 100 * (m[i].ms - m[off].ms) / m[off].ms,
               target_of(a->layout, a->scanners, ratio, same));
    }
    if (aa >= 0)
        printf("A/A (%s, twice a round): %.2f vs %.2f ms, %+.1f%%: the noise the control's time is "
               "compared with\n", arms[aa].label, m[aa].ms, m[ab].ms, noise);
}

/* ---------------------------------------------------------------------------- main */

static int run_rounds(const bench_topk_opts *o, const topk_bench_file *files, const topk_bench_arm *arms,
                      int n, topk_bench_run (*runs)[BENCH_ROUNDS_MAX])
{
    char err[512];
    for (int r = 0; r < o->rounds; r++)
        for (int j = 0; j < n; j++) { /* invariant 1: rotated by the round */
            int i = (j + r) % n;
            if (topk_bench_run_arm(o, &files[arms[i].layout], &arms[i], &runs[i][r], err, sizeof err)) {
                fprintf(stderr, "ringscan: bench topk: %s\n", err);
                return 1;
            }
        }
    return 0;
}

int bench_topk_main(const bench_topk_opts *o)
{
    if (o->rounds < 1 || o->rounds > BENCH_ROUNDS_MAX || o->row_groups < TOPK_BENCH_SCANNERS_MAX ||
        o->row_groups > TOPK_BENCH_ROW_GROUPS_MAX)
        return fprintf(stderr, "ringscan: bench topk: rounds or row groups out of range\n"), 1;
    signal(SIGPIPE, SIG_IGN); /* a hub writing to a finished scanner's pipe */
    if (mkdir(o->data_dir, 0755) != 0 && errno != EEXIST)
        return fprintf(stderr, "ringscan: bench topk: mkdir %s: %s\n", o->data_dir, strerror(errno)), 1;
    static topk_bench_file files[2];
    if (data_file(o, TOPK_LAYOUT_PRUNING, &files[0]) || data_file(o, TOPK_LAYOUT_CONTROL, &files[1])) return 1;
    topk_bench_arm arms[TOPK_BENCH_ARMS_MAX];
    int n = build_arms(o, arms);
    topk_bench_run (*runs)[BENCH_ROUNDS_MAX] = calloc((size_t)n, sizeof *runs);
    arm_med m[TOPK_BENCH_ARMS_MAX];
    if (!runs) return fprintf(stderr, "ringscan: bench topk: out of memory\n"), 1;
    fflush(stdout); /* nothing buffered is copied into the scanners' processes */
    int rc = run_rounds(o, files, arms, n, runs);
    bool all = rc == 0;
    for (int i = 0; rc == 0 && i < n; i++) medians(runs[i], o->rounds, &m[i]), all = all && m[i].all_match;
    if (rc == 0) {
        printf("bench topk: SELECT score, id, payload ORDER BY score DESC LIMIT %d (control: WHERE flag = 0), "
               "%lld row groups x %lld rows, seed %llu, %d round%s, each scan 1 core\n", TOPK_BENCH_K,
               (long long)o->row_groups, (long long)o->row_group_rows, (unsigned long long)o->seed,
               o->rounds, o->rounds == 1 ? "" : "s");
        print_arms(arms, m, n);
        print_ratios(arms, m, n);
        printf("results: %s\n", all ? "every merged answer equals the model's" : "SOME MERGED ANSWERS DIFFER");
    }
    free(runs);
    return rc == 0 && all ? 0 : 1;
}
