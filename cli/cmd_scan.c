/* cli/cmd_scan.c: `ringscan scan FILE [--columns a,b] [--where EXPR] ...`: runs a scan
 * (scan/scan.h) and prints its batches; --stats prints the counters and --explain the plan and
 * the conjunct order to stderr.
 * Exit status 0 on success, 1 for a bad file (message names file, offset and column) or a
 * failed write of the output (cli/sink.h; message names the output), 2 for bad usage; a
 * closed output pipe ends the scan quietly (status SINK_EXIT_PIPE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/print.h"
#include "cli/sink.h"
#include "bench/shapes.h"
#include "filter/expr.h"
#include "scan/pqfile.h"
#include "scan/scan.h"


typedef struct scan_args {
    const char *path;
    const char *columns;
    const char *where;
    print_format fmt;
    int stats;        /* 0 none, 1 text, 2 json */
    bool explain;
    scan_opts o;
} scan_args;

static int parse_opt(scan_args *a, const char *s, const char *v)
{
    if (strcmp(s, "--columns") == 0) a->columns = v;
    else if (strcmp(s, "--where") == 0) a->where = v;
    else if (strcmp(s, "--limit") == 0) a->o.limit = strtoll(v, NULL, 10);
    else if (strcmp(s, "--threads") == 0) a->o.threads = atoi(v);
    else if (strcmp(s, "--split-rows") == 0) {
        char *end = NULL;
        a->o.split_rows = strtoll(v, &end, 10);
        if (!*v || *end || a->o.split_rows < 0) return -1;
    }
    else if (strcmp(s, "--policy") == 0) {
        if (strcmp(v, "lazy") == 0) a->o.policy = SCAN_LAZY;
        else if (strcmp(v, "eager") == 0) a->o.policy = SCAN_EAGER;
        else if (strcmp(v, "adaptive") == 0) a->o.policy = SCAN_ADAPTIVE;
        else return -1;
    } else if (strcmp(s, "--io") == 0) {
        if (strcmp(v, "uring") == 0) a->o.io = EXEC_IO_URING;
        else if (strcmp(v, "pread") == 0) a->o.io = EXEC_IO_PREAD;
        else return -1;
    } else if (strcmp(s, "--format") == 0) {
        if (strcmp(v, "table") == 0) a->fmt = PRINT_TABLE;
        else if (strcmp(v, "csv") == 0) a->fmt = PRINT_CSV;
        else if (strcmp(v, "jsonl") == 0) a->fmt = PRINT_JSONL;
        else if (strcmp(v, "count") == 0) a->fmt = PRINT_COUNT;
        else return -1;
    } else return -1;
    return 0;
}

static int parse_args(int argc, char **argv, scan_args *a)
{
    memset(a, 0, sizeof *a);
    scan_opts_default(&a->o);
    a->fmt = PRINT_TABLE;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--verify-checksums") == 0) a->o.col_limits.verify_crc = true;
        else if (strcmp(s, "--ordered") == 0) a->o.ordered = true;
        else if (strcmp(s, "--explain") == 0) a->explain = a->o.explain = true;
        else if (strcmp(s, "--stats") == 0) a->stats = 1;
        else if (strcmp(s, "--stats=json") == 0) a->stats = 2;
        else if (strcmp(s, "--no-page-index") == 0) a->o.use_page_index = false;
        else if (strcmp(s, "--no-bloom") == 0) a->o.use_bloom = false;
        else if (s[0] == '-' && s[1] == '-' && i + 1 < argc) {
            if (parse_opt(a, s, argv[++i])) return -1;
        } else if (s[0] != '-' && !a->path) a->path = s;
        else return -1;
    }
    return a->path ? 0 : -1;
}

/* Resolves the --columns list (NULL: every column) to indexes. */
static int pick_columns(const pq_file_meta *m, const char *list, int *idx, int *n, pq_err *e)
{
    *n = 0;
    if (!list) {
        for (int i = 0; i < m->ncolumns && i < SCAN_MAX_COLUMNS; i++) idx[(*n)++] = i;
        return 0;
    }
    char *copy = strdup(list), *save = NULL;
    if (!copy) return -ENOMEM;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int32_t c = pq_file_meta_find_column(m, t);
        if (c < 0 || *n >= SCAN_MAX_COLUMNS) {
            pq_errf(e, RINGSCAN_EFORMAT, -1, "no column named '%s'", t);
            free(copy);
            return RINGSCAN_EFORMAT;
        }
        idx[(*n)++] = c;
    }
    free(copy);
    return *n > 0 ? 0 : pq_errf(e, RINGSCAN_EFORMAT, -1, "no columns chosen");
}

void cli_print_error(const char *path, const pq_err *e, int rc)
{
    fprintf(stderr, "ringscan: %s: %s", path, e->msg[0] ? e->msg : ringscan_strerror(rc));
    if (e->offset >= 0 || e->column[0]) {
        fputs(" (", stderr);
        if (e->offset >= 0) fprintf(stderr, "offset %lld", (long long)e->offset);
        if (e->column[0]) fprintf(stderr, "%scolumn %s", e->offset >= 0 ? ", " : "", e->column);
        fputc(')', stderr);
    }
    fputc('\n', stderr);
}

void cli_print_stats(FILE *out, const scan_stats *st, bool json)
{
    const char *fmt = json ? "{\"reads\":%llu,\"bytes_read\":%llu,\"bytes_used\":%llu,"
                             "\"bytes_wasted\":%llu,\"cancelled_reads\":%llu,"
                             "\"row_groups_total\":%lld,\"row_groups_pruned\":%lld,"
                             "\"pages_total\":%lld,\"pages_pruned\":%lld,\"rows_scanned\":%lld,"
                             "\"rows_out\":%lld,\"splits_all_false\":%lld,\"plan_reads\":%llu,"
                             "\"splits\":%lld,\"pages_dict_evaluated\":%lld,"
                             "\"pages_sel_evaluated\":%lld,"
                             "\"bytes_decompressed\":%lld,\"steals\":%lld,\"reads_lent\":%lld,"
                             "\"io_backend\":\"%s\"}\n"
                           : "reads %llu, bytes_read %llu, bytes_used %llu, bytes_wasted %llu, "
                             "cancelled_reads %llu, row_groups %lld (pruned %lld), pages %lld "
                             "(pruned %lld), rows_scanned %lld, rows_out %lld, splits_all_false "
                             "%lld, plan_reads %llu, splits %lld, pages_dict_evaluated %lld, "
                             "pages_sel_evaluated %lld, "
                             "bytes_decompressed %lld, steals %lld, reads_lent %lld, io %s\n";
    fprintf(out, fmt, (unsigned long long)st->reads, (unsigned long long)st->bytes_read,
            (unsigned long long)st->bytes_used, (unsigned long long)st->bytes_wasted,
            (unsigned long long)st->cancelled_reads, (long long)st->row_groups_total,
            (long long)st->row_groups_pruned, (long long)st->pages_total,
            (long long)st->pages_pruned, (long long)st->rows_scanned, (long long)st->rows_out,
            (long long)st->splits_all_false, (unsigned long long)st->plan_reads,
            (long long)st->splits, (long long)st->dict_eval_pages, (long long)st->sel_eval_pages,
            (long long)st->bytes_decompressed, (long long)st->steals, (long long)st->reads_lent,
            st->io_backend);
}

/* Batches a warm `serve` scan keeps until its timer stopped (count format): the peers'
 * benchmark workers also build the whole result inside their timer and checksum it after. */
typedef struct batch_keep {
    scan_batch *b;
    int n, cap, nproj;
} batch_keep;

static int keep_add(batch_keep *k, scan_batch *b)
{
    if (k->n == k->cap) {
        int cap = k->cap ? 2 * k->cap : 64;
        scan_batch *nb = realloc(k->b, sizeof *nb * (size_t)cap);
        if (!nb) return -ENOMEM;
        k->b = nb;
        k->cap = cap;
    }
    k->b[k->n++] = *b;
    return 0;
}

/* The bench checksum (bench/shapes.h) of the kept batches' columns; frees them. */
static uint64_t keep_checksum(batch_keep *k)
{
    uint64_t *sum = calloc((size_t)k->nproj + 1, sizeof *sum);
    for (int j = 0; j < k->n; j++) {
        for (int i = 0; sum && i < k->nproj; i++) shape_vec_sum(&k->b[j].cols[i], &sum[i]);
        scan_batch_free(&k->b[j]);
    }
    uint64_t c = sum ? shape_checksum(sum, k->nproj) : 0;
    free(sum);
    free(k->b);
    *k = (batch_keep){0};
    return c;
}

/* --format count: rows and the bench checksum (bench/shapes.h) of the projected columns;
 * with keep, the batches go there and the checksum is left to keep_checksum. */
static int drain_count(scan_t *sc, int64_t *rows, uint64_t *checksum, batch_keep *keep, pq_err *e)
{
    int n = scan_nproj(sc);
    uint64_t *sum = calloc((size_t)n + 1, sizeof *sum);
    if (!sum) return -ENOMEM;
    if (keep) keep->nproj = n;
    *rows = 0;
    scan_batch b;
    int rc;
    while ((rc = scan_next(sc, &b, e)) == 1) {
        *rows += b.rows;
        if (keep) {
            if (keep_add(keep, &b) == 0) continue;
            scan_batch_free(&b);
            rc = -ENOMEM;
            break;
        }
        for (int i = 0; i < n; i++) shape_vec_sum(&b.cols[i], &sum[i]);
        scan_batch_free(&b);
    }
    *checksum = shape_checksum(sum, n);
    free(sum);
    return rc;
}

/* Pulls every batch and prints it to cli_out() (count: sets *rows and *checksum, prints
 * nothing). 0, a scan error (e filled), or the sink's write error (e untouched; the scan is
 * left unfinished for scan_free to stop). */
static int drain(scan_t *sc, const scan_args *a, int64_t *rows, uint64_t *checksum,
                 batch_keep *keep, pq_err *e)
{
    if (a->fmt == PRINT_COUNT) return drain_count(sc, rows, checksum, keep, e);
    const pq_column_desc *cols[SCAN_MAX_COLUMNS];
    int n = scan_nproj(sc);
    for (int i = 0; i < n; i++) cols[i] = scan_proj_desc(sc, i);
    cli_sink *out = cli_out();
    if (a->fmt != PRINT_JSONL) {
        for (int i = 0; i < n; i++)
            sink_printf(out, "%s%s", i ? (a->fmt == PRINT_TABLE ? " | " : ",") : "", cols[i]->name);
        sink_putc(out, '\n');
    }
    scan_batch b;
    int rc;
    while ((rc = scan_next(sc, &b, e)) == 1) {
        int wrc = print_rows(out, a->fmt, cols, b.cols, n, b.rows);
        scan_batch_free(&b);
        if (wrc) return wrc; /* the output failed: stop; the caller frees the scan */
    }
    return rc;
}

/* One scan as `ringscan scan` runs it; count results land in *rows and *checksum (keep: the
 * batches are kept there instead, for keep_checksum). */
static int scan_once(int argc, char **argv, int64_t *rows, uint64_t *checksum, bool *counted,
                     batch_keep *keep)
{
    scan_args a;
    if (parse_args(argc, argv, &a)) {
        fprintf(stderr, "usage: ringscan scan FILE [--columns a,b] [--where EXPR] [--limit N] "
                        "[--policy lazy|eager|adaptive] [--threads N] [--io uring|pread] "
                        "[--ordered] [--format table|csv|jsonl|count] [--stats[=json]] [--explain] "
                        "[--verify-checksums] [--no-page-index] [--no-bloom] [--split-rows N]\n");
        return 2;
    }
    *counted = a.fmt == PRINT_COUNT;
    pq_err e = {.offset = -1};
    pqf_t *f = NULL;
    flt_expr *filter = NULL;
    scan_t *sc = NULL;
    static int idx[SCAN_MAX_COLUMNS];
    int n = 0;
    int rc = pqf_open(&f, a.path, NULL, &e);
    if (rc == 0) rc = pick_columns(&f->meta, a.columns, idx, &n, &e);
    if (rc == 0 && a.where) rc = flt_parse(a.where, f->meta.columns, f->meta.ncolumns, &filter, &e);
    if (rc == 0) rc = scan_start(f, idx, n, filter, &a.o, &sc, &e);
    if (rc == 0) rc = drain(sc, &a, rows, checksum, keep, &e);
    /* rows before any message on stderr; a write error is the output's, reported by the
     * caller (sink_exit_status) and not as the input file's */
    bool out_failed = sink_flush(cli_out()) != 0;
    if (rc < 0 && !out_failed) cli_print_error(a.path, &e, rc);
    if (sc && a.explain) fputs(scan_explain(sc), stderr);
    if (sc && a.stats) {
        scan_stats st;
        scan_get_stats(sc, &st);
        cli_print_stats(stderr, &st, a.stats == 2);
    }
    scan_free(sc);
    pqf_close(f);
    return rc < 0 ? 1 : 0;
}

int cmd_scan(int argc, char **argv)
{
    int64_t rows = 0;
    uint64_t checksum = 0;
    bool counted = false;
    int rc = scan_once(argc, argv, &rows, &checksum, &counted, NULL);
    if (rc == 0 && counted)
        sink_printf(cli_out(), "rows %lld checksum %llu\n", (long long)rows,
                    (unsigned long long)checksum);
    return rc; /* main() flushes and checks cli_out() */
}

enum { SERVE_LINE_MAX = 1 << 16, SERVE_ARGS_MAX = 64 };

static double now_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* `ringscan serve`: one scan per stdin line (the `ringscan scan` arguments, tab-separated,
 * --format count), answered by one JSON line on stdout: {"rc", "rows", "checksum", "secs",
 * "cpu"}; secs and cpu (every thread of the process) cover open..last batch; the batches are
 * kept and checksummed after the timer stops, as the peers' workers checksum their result
 * table after theirs. A warm process, as the peers' benchmark workers are (bench/compare).
 * Ends at end of input. */
int cmd_serve(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    static char line[SERVE_LINE_MAX];
    while (fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n') line[--len] = 0;
        char *args[SERVE_ARGS_MAX + 1] = {"scan"};
        int n = 1;
        for (char *tok = strtok(line, "\t"); tok && n < SERVE_ARGS_MAX; tok = strtok(NULL, "\t"))
            args[n++] = tok;
        int64_t rows = 0;
        uint64_t checksum = 0;
        bool counted = false;
        batch_keep keep = {0};
        double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        int rc = scan_once(n, args, &rows, &checksum, &counted, &keep);
        double t1 = now_s(CLOCK_MONOTONIC), c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        if (keep.nproj > 0 || keep.n > 0) checksum = keep_checksum(&keep);
        sink_printf(cli_out(), "{\"rc\":%d,\"rows\":%lld,\"checksum\":\"%llu\",\"secs\":%.6f,"
                               "\"cpu\":%.6f}\n",
                    rc, (long long)rows, (unsigned long long)checksum, t1 - t0, c1 - c0);
        fflush(stderr);
        if (sink_flush(cli_out())) break; /* the reader is gone or the output failed: stop */
    }
    return 0; /* main() reports a write error from cli_out() */
}
