/* cli/cmd_scan.c: `ringscan scan FILE [--columns a,b] [--where EXPR] ...`: runs a scan and
 * prints its batches; --stats prints the counters and --explain the plan and the conjunct
 * order to stderr. `ringscan serve` runs the same scans from stdin lines. Both are clients of
 * ringscan.h alone (batches as Arrow arrays, cli/print.c and cli/checksum.c read them), so
 * every option here is one a host has too. The options are the scan_opts table, which the
 * parser (cli/opts.c) reads and the help prints.
 * Exit status 0 on success, 1 for a bad file (message names file, offset and column) or a
 * failed write of the output (cli/sink.h; message names the output), 2 for bad usage; a
 * closed output pipe ends the scan quietly (status SINK_EXIT_PIPE). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/checksum.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/print.h"
#include "cli/progress.h"
#include "cli/sink.h"
#include "cli/table.h"
#include "ringscan.h"

/* --unordered's gain, measured (bench/RESULTS.md, thirteenth session) */
#define UNORDERED_GAIN "2-9% faster, sf1 lineitem"

enum {
    CLI_COLUMNS_MAX = 4096, /* names one --columns list holds (no --columns: every column) */
    CLI_THREADS_MAX = 256,  /* --threads above this runs this many (ringscan.h's range) */
    CLI_PATHS_MAX = 1024    /* paths and patterns one scan names */
};

typedef struct scan_args {
    const char *path;        /* paths[0] (messages) */
    const char *paths[CLI_PATHS_MAX];
    int npaths;
    bool dataset;            /* a dataset option was given */
    const char *columns;
    print_format fmt;
    int stats;        /* 0 none, 1 text, 2 json */
    bool no_progress; /* --no-progress */
    const char *dict_columns; /* --dictionary-columns */
    ringscan_options o;
} scan_args;

enum scan_opt_id {
    SO_COLUMNS, SO_WHERE, SO_LIMIT, SO_THREADS, SO_SPLIT_ROWS, SO_POLICY, SO_IO, SO_FORMAT,
    SO_ORDERED, SO_EXPLAIN, SO_STATS, SO_STATS_JSON, SO_VERIFY, SO_NO_PAGE_INDEX, SO_NO_BLOOM,
    SO_STORE, SO_FETCH_BUDGET, SO_TLS_INSECURE, SO_NO_ETAG, SO_UNORDERED, SO_NO_PROGRESS,
    SO_ORDER_BY, SO_DESC, SO_HIVE, SO_HIVE_TYPES, SO_UNION, SO_MAX_OPEN, SO_DICT_COLUMNS,
    SO_READ_MODE
};

/* in the order of ringscan_policy, ringscan_io and print_format */
static const char *const scan_policies[] = {"lazy", "eager", "adaptive", NULL};
static const char *const scan_ios[] = {"auto", "uring", "pread", NULL};
static const char *const scan_read_modes[] = {"copy", "mmap", NULL}; /* as ringscan_read_mode */
/* "rows": the name `count` had before it took over the footer count (kept for old scripts) */
static const char *const scan_formats[] = {"table", "csv", "jsonl", "checksum", "count", "rows", NULL};
enum { SCAN_FORMAT_ROWS = 5 };

/* Every option `ringscan scan` (and each `serve` line) accepts; the help is printed from it. */
static const cli_opt scan_opts[] = {
    {"--columns", NULL, "a,b", CLI_TEXT, SO_COLUMNS, .dflt = "every column",
     .help = "columns to print, in order (nested: s or s.a; \"a,b\" quoted: one name)",
     .once = CLI_ONCE_LIST},
    {"--dictionary-columns", NULL, "a,b", CLI_TEXT, SO_DICT_COLUMNS, .dflt = "none",
     .help = "read these string/binary columns as dictionary arrays", .once = CLI_ONCE_LIST},
    {"--where", NULL, "EXPR", CLI_TEXT, SO_WHERE, .dflt = "every row",
     .help = "a SQL filter: comparisons, IN, LIKE, IS NULL, ... with AND/OR/NOT",
     .once = "join the conditions with AND in one --where"},
    {"--limit", NULL, "N", CLI_INT, SO_LIMIT, 0, INT64_MAX, .dflt = "no limit",
     .help = "stop after N rows"},
    {"--order-by", NULL, "KEYS", CLI_TEXT, SO_ORDER_BY, .dflt = "file order",
     .help = "sort by \"col [ASC|DESC] [NULLS FIRST|LAST], ...\" (Top-K with --limit)",
     .once = CLI_ONCE_LIST},
    {"--desc", NULL, NULL, CLI_FLAG, SO_DESC,
     .help = "keys without ASC/DESC sort descending (nulls last, NaN first)"},
    {"--format", NULL, NULL, CLI_CHOICE, SO_FORMAT, .choices = scan_formats, .dflt = "table",
     .help = "table, RFC 4180 CSV, JSON lines, rows+checksum, row count (footer)"},
    {"--ordered", NULL, NULL, CLI_FLAG, SO_ORDERED,
     .help = "rows in file order (the default, as DuckDB and pyarrow)"},
    {"--unordered", NULL, NULL, CLI_FLAG, SO_UNORDERED,
     .help = "rows as splits finish (" UNORDERED_GAIN ")"},
    {"--threads", NULL, "N", CLI_INT, SO_THREADS, 1, CLI_THREADS_MAX, .dflt = "2",
     .help = "executor cores (1..256)"},
    {"--policy", NULL, NULL, CLI_CHOICE, SO_POLICY, .choices = scan_policies, .dflt = "adaptive",
     .help = "when reads are submitted: as needed, all at once, or by the odds"},
    {"--io", NULL, NULL, CLI_CHOICE, SO_IO, .choices = scan_ios, .dflt = "auto",
     .help = "I/O backend (auto: io_uring where the kernel allows it, else pread)"},
    {"--read-mode", NULL, NULL, CLI_CHOICE, SO_READ_MODE, .choices = scan_read_modes,
     .dflt = "copy", .help = "local files: reads copy from the page cache, or mmap views"},
    {"--split-rows", NULL, "N", CLI_INT, SO_SPLIT_ROWS, 0, INT64_MAX, .dflt = "131072",
     .help = "cut big row groups (with an offset index) into ~N rows; 0: never"},
    {"--stats", NULL, NULL, CLI_FLAG, SO_STATS, .help = "print the scan's counters on stderr"},
    {"--stats=json", NULL, NULL, CLI_FLAG, SO_STATS_JSON,
     .help = "print the counters on stderr as one JSON object"},
    {"--explain", NULL, NULL, CLI_FLAG, SO_EXPLAIN,
     .help = "print the plan and the conjunct order on stderr"},
    {"--verify-checksums", NULL, NULL, CLI_FLAG, SO_VERIFY,
     .help = "check page CRCs (default off)"},
    {"--no-page-index", NULL, NULL, CLI_FLAG, SO_NO_PAGE_INDEX,
     .help = "do not prune pages with the column and offset indexes"},
    {"--no-bloom", NULL, NULL, CLI_FLAG, SO_NO_BLOOM, .help = "do not read bloom filters"},
    {"--store", NULL, "SPEC", CLI_TEXT, SO_STORE, .dflt = "the file itself",
     .help = "read through a simulated object store: sim:ttfb=50ms,bw=500MB/s"},
    {"--fetch-budget", NULL, "BYTES", CLI_BYTES, SO_FETCH_BUDGET, 0, INT64_MAX, .dflt = "256MiB",
     .help = "bytes read ahead per scan (N, NKiB, NMiB, NGiB); 0: no read-ahead"},
    {"--tls-insecure", NULL, NULL, CLI_FLAG, SO_TLS_INSECURE,
     .help = "skip TLS peer and host verification for https:// and s3:// (warns)"},
    {"--unsafe-disable-etag-checks", NULL, NULL, CLI_FLAG, SO_NO_ETAG,
     .help = "remote: an ETag changing between reads is no error (a new size is)"},
    {"--no-progress", NULL, NULL, CLI_FLAG, SO_NO_PROGRESS,
     .help = "no progress line (shown on a tty's stderr after 1 s, not over rows)"},
    CLI_DATASET_OPTS(SO_HIVE, SO_HIVE_TYPES, SO_UNION),
    {"--max-open-files", NULL, "N", CLI_INT, SO_MAX_OPEN, 1, 1024, .dflt = "16",
     .help = "footers a dataset scan reads at once and holds"},
};

static const char *const scan_examples[] = {
    "ringscan scan data.parquet --limit 10",
    "ringscan scan li.parquet --columns l_orderkey,l_shipmode --where \"l_quantity > 45\" --stats",
    "ringscan scan data.parquet --format csv > data.csv",
    "ringscan scan li.parquet --order-by l_extendedprice --desc --limit 10",
    "ringscan scan 'lineitem/**/*.parquet' --where \"year = 1995\" --format count --stats",
    NULL};

const cli_cmd cli_cmd_scan = {
    .name = "scan",
    .usage = "FILE... [options]",
    .purpose = "Scans a Parquet file: projects the chosen columns, filters rows (pruning row\n"
               "groups and pages with statistics, page indexes and bloom filters first) and\n"
               "prints them. Several files, a directory (its *.parquet, recursively) or a\n"
               "pattern ('dir/**/*.parquet') scan as one dataset, in path order.",
    .opts = scan_opts,
    .nopts = sizeof scan_opts / sizeof scan_opts[0],
    .examples = scan_examples,
    .pos_min = 1,
    .pos_max = CLI_PATHS_MAX,
};

/* Applies one parsed option of scan_opts to the scan_args ctx (cli/opts.h cli_apply_fn). */
static int apply_opt(void *ctx, const cli_opt *opt, const cli_val *v)
{
    scan_args *a = ctx;
    switch ((enum scan_opt_id)opt->id) {
    case SO_COLUMNS: a->columns = v->s; break; /* (given once: cli/opts.c invariant 5) */
    case SO_DICT_COLUMNS: a->dict_columns = v->s; break;
    case SO_WHERE: a->o.filter = v->s; break;
    case SO_LIMIT: a->o.limit = v->i; break;
    case SO_THREADS: a->o.threads = (int)v->i; break;
    case SO_SPLIT_ROWS: a->o.split_rows = v->i == 0 ? -1 : v->i; break;
    case SO_POLICY: a->o.policy = (ringscan_policy)v->i; break;
    case SO_IO: a->o.io = (ringscan_io)v->i; break;
    case SO_READ_MODE: a->o.read_mode = (ringscan_read_mode)v->i; break;
    case SO_FORMAT: a->fmt = v->i == SCAN_FORMAT_ROWS ? PRINT_COUNT : (print_format)v->i; break;
    case SO_ORDERED: a->o.ordered = true; break;
    case SO_UNORDERED: a->o.ordered = false; break;
    case SO_EXPLAIN: a->o.explain = true; break;
    case SO_STATS: a->stats = 1; break;
    case SO_STATS_JSON: a->stats = 2; break;
    case SO_VERIFY: a->o.verify_checksums = true; break;
    case SO_NO_PAGE_INDEX: a->o.use_page_index = false; break;
    case SO_NO_BLOOM: a->o.use_bloom = false; break;
    case SO_STORE: a->o.store = v->s; break;
    case SO_FETCH_BUDGET: a->o.fetch_budget_bytes = v->i; break;
    case SO_TLS_INSECURE: a->o.tls_insecure = true; break;
    case SO_NO_ETAG: a->o.unsafe_disable_etag_checks = true; break;
    case SO_NO_PROGRESS: a->no_progress = true; break;
    case SO_ORDER_BY: a->o.order_by = v->s; break;
    case SO_DESC: a->o.order_desc = true; break;
    case SO_HIVE: cli_dataset_opt(&a->o, CLI_DS_HIVE, v), a->dataset = true; break;
    case SO_HIVE_TYPES: cli_dataset_opt(&a->o, CLI_DS_HIVE_TYPES, v), a->dataset = true; break;
    case SO_UNION: cli_dataset_opt(&a->o, CLI_DS_UNION, v), a->dataset = true; break;
    case SO_MAX_OPEN: a->o.max_open_files = (int)v->i, a->dataset = true; break;
    }
    return 0;
}

/* argv[1 ..) into *a. 0, CLI_HELP_SHOWN, or CLI_EXIT_USAGE (printed). */
static int parse_args(int argc, char **argv, scan_args *a, bool served)
{
    memset(a, 0, sizeof *a);
    ringscan_options_init(&a->o);
    a->o.ordered = true; /* file order unless --unordered (issue 25) */
    a->o.int96_raw = true; /* printed and summed from the stored bytes (cli/checksum.h) */
    a->fmt = served ? PRINT_CHECKSUM : PRINT_TABLE;
    int npos = 0;
    int rc = cli_parse(&cli_cmd_scan, argc, argv, 1, apply_opt, a, a->paths, &npos);
    a->path = a->paths[0];
    a->npaths = npos;
    if (rc == 0 && a->o.order_desc && !a->o.order_by) /* (it was ignored: rows in file order) */
        return cli_usage_error(&cli_cmd_scan, "--desc sorts the --order-by keys; no --order-by given");
    return rc;
}

/* "PATH: message" into err (the CLI's own errors, in the library's form); returns rc. */
static int cli_err(ringscan_error *err, const char *path, int rc, const char *msg)
{
    err->status = rc;
    char shown[512];
    ringscan_path_shown(shown, sizeof shown, path);
    snprintf(err->message, sizeof err->message, "%s: %s", shown, msg ? msg : ringscan_strerror(rc));
    return rc;
}

enum { SUGGEST_NAMES_MAX = 3 }; /* nearest column names a message offers */

/* ", did you mean a, b" candidates: up to SUGGEST_NAMES_MAX of f's column names nearest to
 * name (a different case alone counts as distance 1), nearest first, into buf (empty when none
 * is close: cli_nearest's bound). */
static void suggest_columns(const ringscan_file *f, const char *name, char *buf, size_t cap)
{
    size_t len = strlen(name), limit = 1 + len / 4;
    if (limit >= len) limit = len ? len - 1 : 0;
    const char *best[SUGGEST_NAMES_MAX];
    size_t dist[SUGGEST_NAMES_MAX];
    int n = 0;
    for (int c = 0, nc = ringscan_file_columns(f); c < nc; c++) {
        ringscan_column_info ci;
        if (ringscan_file_column(f, c, &ci)) continue;
        size_t d = strcasecmp(ci.name, name) == 0 ? 1 : cli_edit_distance(name, ci.name);
        if (d > limit || (n == SUGGEST_NAMES_MAX && d >= dist[n - 1])) continue;
        bool seen = false; /* (a flat "a.b" and struct a's leaf a.b: one name offered once) */
        for (int k = 0; k < n; k++) seen |= strcmp(best[k], ci.name) == 0;
        if (seen) continue;
        int at = n < SUGGEST_NAMES_MAX ? n++ : n - 1; /* insertion keeps best[] sorted */
        for (; at > 0 && dist[at - 1] > d; at--) best[at] = best[at - 1], dist[at] = dist[at - 1];
        best[at] = ci.name, dist[at] = d;
    }
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : " (did you mean ",
                                 best[i]);
    if (n && used < cap) snprintf(buf + used, cap - used, "?)");
}

/* True when f has a column named name (in any case: ringscan_scan_start takes the one spelled
 * so, else the only one whose name differs in case alone), or a nested field of that path: the
 * scan then says why it cannot read it. */
static bool has_column(const ringscan_file *f, const char *name)
{
    for (int c = 0, n = ringscan_file_columns(f); c < n; c++) {
        ringscan_column_info ci;
        if (ringscan_file_column(f, c, &ci) == 0 && strcasecmp(ci.name, name) == 0) return true;
    }
    for (int i = 0, n = ringscan_file_fields(f); i < n; i++) {
        ringscan_field_info fi;
        if (ringscan_file_field(f, i, &fi) == 0 && fi.nested && strcasecmp(fi.path, name) == 0)
            return true;
    }
    return false;
}

/* t with the spaces and tabs around it cut (in place). */
static char *trim(char *t)
{
    while (*t == ' ' || *t == '\t') t++;
    size_t n = strlen(t);
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t')) t[--n] = 0;
    return t;
}

/* One name of the --columns list into names[*n]: refused when empty, missing from f (with the
 * nearest names) or over CLI_COLUMNS_MAX. 0 or a status with err filled. */
static int add_column(const ringscan_file *f, const char *path, const char *list, char *t,
                      const char **names, int *n, ringscan_error *err)
{
    char msg[700], near[400];
    if (!*t) {
        snprintf(msg, sizeof msg, "--columns: an empty name in '%.256s'", list);
        return cli_err(err, path, RINGSCAN_EFORMAT, msg);
    }
    if (f && !has_column(f, t)) { /* a dataset's scan names a missing column itself */
        suggest_columns(f, t, near, sizeof near);
        snprintf(msg, sizeof msg, "no column named '%.256s'%s", t, near);
        return cli_err(err, path, RINGSCAN_EFORMAT, msg);
    }
    if (*n >= CLI_COLUMNS_MAX) {
        snprintf(msg, sizeof msg, "--columns: more than %d names", CLI_COLUMNS_MAX);
        return cli_err(err, path, RINGSCAN_ELIMIT, msg);
    }
    names[(*n)++] = t;
    return 0;
}

/* The name at t of a --columns list, cut there (in place): bare up to the next ',', the spaces
 * around it trimmed, or "quoted" as SQL quotes it ("" for a quote), for a name holding a comma
 * ("Revenue, USD" could not be asked for); *next after its ',' or NULL at the end. NULL for a
 * quoted name not closed or followed by more than spaces before the ','. */
static char *unquote(char *t, char **next)
{
    while (*t == ' ' || *t == '\t') t++;
    if (*t != '"') {
        *next = strchr(t, ',');
        if (*next) *(*next)++ = 0;
        return trim(t);
    }
    char *w = t, *r = t + 1;
    for (; *r && !(*r == '"' && r[1] != '"'); r++) {
        if (*r == '"') r++; /* "" is one quote */
        *w++ = *r;
    }
    if (*r != '"') return NULL;
    for (r++; *r == ' ' || *r == '\t'; r++) {}
    if (*r && *r != ',') return NULL;
    *next = *r ? r + 1 : NULL;
    *w = 0;
    return t;
}

/* The --columns list (NULL: every column, however many; a list names at most
 * CLI_COLUMNS_MAX) as names[0 .. *n) into the options; *copy holds the names' storage (free).
 * Each name is trimmed of the spaces around it; an empty name or one the file lacks is an
 * error. 0 or a status with err filled. */
static int pick_columns(const ringscan_file *f, const char *path, const char *list,
                        const char **names, char **copy, ringscan_options *o, ringscan_error *err)
{
    int n = 0;
    if (!list) return 0; /* columns NULL: every column, however many the file has */
    if (!(*copy = strdup(list))) return cli_err(err, path, -ENOMEM, NULL);
    for (char *t = *copy, *next; t; t = next) { /* strsep-like: keeps empty names */
        t = unquote(t, &next);
        if (!t) {
            char msg[400];
            snprintf(msg, sizeof msg, "--columns: a \"quoted\" name not closed, or not followed by "
                     "',', in '%.256s'", list);
            return cli_err(err, path, RINGSCAN_EFORMAT, msg);
        }
        int rc = add_column(f, path, list, t, names, &n, err);
        if (rc) return rc;
    }
    o->columns = names;
    o->ncolumns = n;
    return 0;
}

/* A filter's "unknown column 'x' at character N" message gets the nearest names of f. */
static void suggest_for_filter(const ringscan_file *f, ringscan_error *err)
{
    const char *tag = "unknown column '", *p = strstr(err->message, tag);
    if (!f || !p) return;
    p += strlen(tag);
    const char *q = strchr(p, '\'');
    char name[CLI_SUGGEST_MAX + 1], near[400];
    if (!q || (size_t)(q - p) > CLI_SUGGEST_MAX) return;
    memcpy(name, p, (size_t)(q - p));
    name[q - p] = 0;
    suggest_columns(f, name, near, sizeof near);
    size_t len = strlen(err->message);
    if (near[0] && len + strlen(near) < sizeof err->message)
        memcpy(err->message + len, near, strlen(near) + 1);
}

void cli_print_stats(FILE *out, const ringscan_stats *st, bool json)
{
    const char *fmt = json ? "{\"reads\":%llu,\"bytes_read\":%llu,\"bytes_used\":%llu,"
                             "\"bytes_wasted\":%llu,\"cancelled_reads\":%llu,"
                             "\"row_groups_total\":%lld,\"row_groups_pruned\":%lld,"
                             "\"pages_total\":%lld,\"pages_pruned\":%lld,\"rows_scanned\":%lld,"
                             "\"rows_out\":%lld,\"splits_all_false\":%lld,\"plan_reads\":%llu,"
                             "\"splits\":%lld,\"pages_dict_evaluated\":%lld,"
                             "\"pages_sel_evaluated\":%lld,"
                             "\"bytes_decompressed\":%lld,\"steals\":%lld,\"reads_lent\":%lld,"
                             "\"store_requests\":%llu,\"store_bytes\":%llu,\"body_copies\":%llu,"
                             "\"body_bytes_copied\":%llu,\"topk_splits_pruned\":%lld,"
                             "\"topk_rows_kept\":%lld,\"topk_pages_pruned\":%lld,\"files\":%lld,"
                             "\"files_pruned\":%lld,\"footers_read\":%lld,\"runtimes\":%lld,"
                             "\"core_rows_min\":%lld,\"core_rows_max\":%lld,\"bytes_skipped\":%llu,"
                             "\"budget_peak_bytes\":%llu,\"footer_bytes_peak\":%llu,\"footer_reads\":%lld,"
                             "\"footers_on_cores\":%lld,\"reads_kept\":%llu,\"bytes_kept\":%llu,"
                             "\"model_ttfb_ns\":%llu,\"model_bytes_per_s\":%llu,\"model_samples\":%llu,"
                             "\"model_bw_samples\":%llu,"
                             "\"io_backend\":\"%s\"}\n"
                           : "reads %llu, bytes_read %llu, bytes_used %llu, bytes_wasted %llu, "
                             "cancelled_reads %llu, row_groups %lld (pruned %lld), pages %lld "
                             "(pruned %lld), rows_scanned %lld, rows_out %lld, splits_all_false "
                             "%lld, plan_reads %llu, splits %lld, pages_dict_evaluated %lld, "
                             "pages_sel_evaluated %lld, "
                             "bytes_decompressed %lld, steals %lld, reads_lent %lld, "
                             "store_requests %llu, store_bytes %llu, body_copies %llu, body_bytes_copied %llu, "
                             "topk_splits_pruned %lld, "
                             "topk_rows_kept %lld, topk_pages_pruned %lld, files %lld (pruned "
                             "%lld), footers_read %lld, runtimes %lld, core_rows %lld..%lld, bytes_skipped %llu, "
                             "budget_peak %llu, footer_bytes_peak %llu, footer_reads %lld, footers_on_cores %lld, "
                             "reads_kept %llu, bytes_kept %llu, model_ttfb_ns %llu, model_bytes_per_s %llu, "
                             "model_samples %llu, model_bw_samples %llu, io %s\n";
    fprintf(out, fmt, (unsigned long long)st->reads, (unsigned long long)st->bytes_read,
            (unsigned long long)st->bytes_used, (unsigned long long)st->bytes_wasted,
            (unsigned long long)st->cancelled_reads, (long long)st->row_groups_total,
            (long long)st->row_groups_pruned, (long long)st->pages_total,
            (long long)st->pages_pruned, (long long)st->rows_scanned, (long long)st->rows_out,
            (long long)st->splits_all_false, (unsigned long long)st->plan_reads,
            (long long)st->splits, (long long)st->pages_dict_evaluated,
            (long long)st->pages_sel_evaluated, (long long)st->bytes_decompressed,
            (long long)st->steals, (long long)st->reads_lent,
            (unsigned long long)st->store_requests, (unsigned long long)st->store_bytes,
            (unsigned long long)st->store_body_copies,
            (unsigned long long)st->store_body_bytes_copied,
            (long long)st->topk_splits_pruned, (long long)st->topk_rows_kept,
            (long long)st->topk_pages_pruned, (long long)st->files, (long long)st->files_pruned,
            (long long)st->footers_read, (long long)st->runtimes, (long long)st->core_rows_min,
            (long long)st->core_rows_max, (unsigned long long)st->bytes_skipped,
            (unsigned long long)st->budget_peak_bytes, (unsigned long long)st->footer_bytes_peak,
            (long long)st->footer_reads, (long long)st->footers_on_cores,
            (unsigned long long)st->reads_kept, (unsigned long long)st->bytes_kept,
            (unsigned long long)st->store_model_ttfb_ns,
            (unsigned long long)st->store_model_bytes_per_s,
            (unsigned long long)st->store_model_samples,
            (unsigned long long)st->store_model_bw_samples, st->io_backend);
}

/* The Parquet column batch column i comes from (a file's, or a dataset's column). */
static ringscan_column_info column_of(ringscan_scan *sc, int i)
{
    ringscan_column_info ci = {0};
    if (ringscan_scan_column(sc, i, &ci) == 0) return ci;
    return (ringscan_column_info){.name = "", .physical = RINGSCAN_BYTE_ARRAY};
}

/* How each projected column sums (cli/checksum.h): its Arrow format and Parquet type. */
static int sum_cols_init(ringscan_scan *sc, const struct ArrowSchema *schema, sum_col *cols)
{
    for (int64_t i = 0; i < schema->n_children; i++) {
        ringscan_column_info ci = column_of(sc, (int)i);
        if (sum_col_init(&cols[i], schema->children[i], &ci)) return -EINVAL;
    }
    return 0;
}

/* Batches a warm `serve` scan keeps until its timer stopped (count format): the peers'
 * benchmark workers also build the whole result inside their timer and checksum it after. */
typedef struct batch_keep {
    struct ArrowArray *b;
    int n, cap, nproj;
    sum_col *cols;   /* nproj, owned */
    struct ArrowSchema schema; /* owned when release is set: cols borrow it */
} batch_keep;

static int keep_add(batch_keep *k, struct ArrowArray *b)
{
    if (k->n == k->cap) {
        int cap = k->cap ? 2 * k->cap : 64;
        struct ArrowArray *nb = realloc(k->b, sizeof *nb * (size_t)cap);
        if (!nb) return -ENOMEM;
        k->b = nb;
        k->cap = cap;
    }
    k->b[k->n++] = *b;
    return 0;
}

/* The checksum (cli/checksum.h) of the kept batches' columns; releases them. */
static uint64_t keep_checksum(batch_keep *k)
{
    uint64_t *sum = calloc((size_t)k->nproj + 1, sizeof *sum);
    for (int j = 0; j < k->n; j++) {
        for (int i = 0; sum && i < k->nproj; i++) sum_col_add(&k->cols[i], k->b[j].children[i], &sum[i]);
        k->b[j].release(&k->b[j]);
    }
    uint64_t c = sum ? sum_checksum(sum, k->nproj) : 0;
    free(sum);
    free(k->b);
    free(k->cols);
    if (k->schema.release) k->schema.release(&k->schema);
    *k = (batch_keep){0};
    return c;
}

/* The progress line of the scan being drained (cli/progress.h): one scan at a time runs in
 * this process, and its batches are pulled on this thread only. */
static cli_progress scan_line;

/* ringscan_scan_next, then the progress line redrawn from the scan's counters when due. */
static int next_batch(ringscan_scan *sc, struct ArrowArray *b, ringscan_error *err)
{
    int rc = ringscan_scan_next(sc, b, err);
    if (rc == 1 && cli_progress_due(&scan_line)) {
        ringscan_stats st;
        ringscan_scan_stats(sc, &st);
        char line[CLI_PROGRESS_LINE_MAX];
        cli_progress_scan_line(line, sizeof line, st.rows_scanned, (int64_t)st.bytes_read,
                               st.splits_done, st.splits, cli_progress_elapsed_s(&scan_line));
        cli_progress_draw(&scan_line, line);
    }
    return rc;
}

/* Sums each batch's columns into sum (or, with keep, hands the batch there). */
static int count_batches(ringscan_scan *sc, const char *path, const sum_col *cols, int n,
                         uint64_t *sum, int64_t *rows, batch_keep *keep, ringscan_error *err)
{
    struct ArrowArray b;
    int rc;
    while ((rc = next_batch(sc, &b, err)) == 1) {
        *rows += b.length;
        if (keep) {
            if (keep_add(keep, &b) == 0) continue;
            b.release(&b);
            return cli_err(err, path, -ENOMEM, NULL);
        }
        for (int i = 0; i < n; i++) sum_col_add(&cols[i], b.children[i], &sum[i]);
        b.release(&b);
    }
    return rc;
}

/* --format checksum: rows and the checksum (cli/checksum.h) of the projected columns; with
 * keep, the batches go there and the checksum is left to keep_checksum. */
static int drain_count(const char *path, ringscan_scan *sc, int64_t *rows,
                       uint64_t *checksum, batch_keep *keep, ringscan_error *err)
{
    struct ArrowSchema schema;
    int rc = ringscan_scan_schema(sc, &schema, err);
    if (rc) return rc;
    int n = (int)schema.n_children;
    sum_col *cols = calloc((size_t)n + 1, sizeof *cols);
    uint64_t *sum = calloc((size_t)n + 1, sizeof *sum);
    rc = cols && sum ? sum_cols_init(sc, &schema, cols) : -ENOMEM;
    *rows = 0;
    if (rc == 0 && keep) { /* the kept columns borrow the schema (nested ones print) */
        keep->nproj = n;
        keep->cols = cols;
        keep->schema = schema;
        schema.release = NULL;
        cols = NULL;
    }
    if (rc == 0) rc = count_batches(sc, path, keep ? keep->cols : cols, n, sum, rows, keep, err);
    else cli_err(err, path, rc, rc == -EINVAL ? "a column type the checksum does not know" : NULL);
    *checksum = sum ? sum_checksum(sum, n) : 0;
    free(sum);
    free(cols);
    if (schema.release) schema.release(&schema);
    return rc;
}

/* --format table: every batch through cli/table.c. As print_batches. */
static int print_table_batches(ringscan_scan *sc, const scan_args *a, const print_col *cols, int n,
                               ringscan_error *err)
{
    cli_sink *out = cli_out();
    print_table *t = table_new(cols, n);
    if (!t) return cli_err(err, a->path, -ENOMEM, NULL);
    struct ArrowArray b;
    int rc;
    while ((rc = next_batch(sc, &b, err)) == 1) {
        int wrc = table_add(t, out, &b);
        b.release(&b);
        if (wrc == -ENOMEM && !out->err) rc = cli_err(err, a->path, -ENOMEM, NULL);
        if (wrc) break; /* the output failed: stop; the caller frees the scan */
    }
    if (rc == 0) rc = table_end(t, out);
    table_free(t);
    return rc == 1 ? out->err : rc;
}

/* Prints each batch (header line first unless jsonl). 0, a scan error (err filled), or the
 * sink's write error (err untouched). */
static int print_batches(ringscan_scan *sc, const scan_args *a, const print_col *cols, int n,
                         ringscan_error *err)
{
    if (a->fmt == PRINT_TABLE) return print_table_batches(sc, a, cols, n, err);
    cli_sink *out = cli_out();
    if (print_header(out, a->fmt, cols, n)) return out->err;
    struct ArrowArray b;
    int rc;
    while ((rc = next_batch(sc, &b, err)) == 1) {
        int wrc = print_rows(out, a->fmt, cols, &b);
        b.release(&b);
        if (wrc) return wrc; /* the output failed: stop; the caller frees the scan */
    }
    return rc;
}

/* Pulls every batch and prints it to cli_out() (count: sets *rows and *checksum, prints
 * nothing). 0, a scan error (err filled), or the sink's write error (err untouched; the scan
 * is left unfinished for ringscan_scan_free to stop). */
static int drain(ringscan_scan *sc, const scan_args *a, int64_t *rows,
                 uint64_t *checksum, batch_keep *keep, ringscan_error *err)
{
    if (a->fmt == PRINT_CHECKSUM) return drain_count(a->path, sc, rows, checksum, keep, err);
    struct ArrowSchema schema;
    int rc = ringscan_scan_schema(sc, &schema, err);
    if (rc) return rc;
    int n = (int)schema.n_children;
    print_col *cols = calloc((size_t)n + 1, sizeof *cols);
    rc = cols ? 0 : cli_err(err, a->path, -ENOMEM, NULL);
    for (int i = 0; rc == 0 && i < n; i++)
        if (print_col_init(&cols[i], schema.children[i],
                           column_of(sc, i).physical == RINGSCAN_INT96))
            rc = cli_err(err, a->path, -EINVAL, "a column type the printer does not know");
    if (rc == 0) rc = print_batches(sc, a, cols, n, err);
    free(cols);
    schema.release(&schema); /* after printing: cols borrow its names */
    return rc;
}

/* Under a filter error (RINGSCAN_EPARSE, whose "(offset N)" is the 1-based character of the
 * filter text where it went wrong), the filter and a caret under that character, on stderr:
 *     i32 > AND
 *           ^
 * Control characters print as spaces, so the caret stays under its place; the indent is the
 * display width of what comes before it (cli/table.h). Nothing when the offset is missing or
 * past the end (the end itself gets the caret after the last character). */
static void show_filter_place(const char *filter, const char *msg)
{
    const char *p = filter ? strstr(msg, "(offset ") : NULL;
    long long at = 0;
    size_t n = filter ? strlen(filter) : 0;
    if (!p || sscanf(p, "(offset %lld)", &at) != 1 || at < 1 || (size_t)at > n + 1) return;
    fputs("    ", stderr);
    for (size_t i = 0; i < n; i++) fputc((unsigned char)filter[i] < 0x20 ? ' ' : filter[i], stderr);
    fprintf(stderr, "\n    %*s^\n", (int)table_display_width(filter, (size_t)at - 1), "");
}

/* Whether argv asks for the help (cli_parse prints it on stdout, among serve's answers). */
static bool asks_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return true;
    return false;
}

/* One scan as `ringscan scan` runs it; count results land in *rows and *checksum (keep: the
 * batches are kept there instead, for keep_checksum; serve's request: --format checksum unless
 * it names another, which is refused, as --help is: rows or help printed among the answers
 * were read as answers). */
static int scan_once(int argc, char **argv, int64_t *rows, uint64_t *checksum, bool *counted,
                     batch_keep *keep)
{
    scan_args a;
    if (keep && asks_help(argc, argv)) {
        fprintf(stderr, "ringscan: serve: --help is not served (ringscan scan --help)\n");
        return CLI_EXIT_USAGE;
    }
    int prc = parse_args(argc, argv, &a, keep != NULL);
    if (prc == CLI_HELP_SHOWN) return 0;
    if (prc) return prc;
    if (keep && a.fmt != PRINT_CHECKSUM) {
        fprintf(stderr, "ringscan: serve: only --format checksum is served (an answer is one JSON line)\n");
        return CLI_EXIT_USAGE;
    }
    *counted = a.fmt == PRINT_CHECKSUM;
    ringscan_error err = {0};
    ringscan_file *f = NULL;
    ringscan_scan *sc = NULL;
    static const char *names[CLI_COLUMNS_MAX];
    char *copy = NULL;
    /* not for serve (keep: its answers are the output) nor over rows printed to the terminal */
    cli_progress_start(&scan_line, !keep && !a.no_progress && (a.fmt == PRINT_CHECKSUM || !isatty(1)));
    ringscan_dataset *ds = NULL;
    int rc = cli_is_dataset(a.paths, a.npaths, a.dataset) ? ringscan_dataset_open(a.paths, a.npaths, &a.o, &ds, &err)
                            : ringscan_open_with(a.path, &a.o, &f, &err);
    if (rc == 0 && a.fmt == PRINT_COUNT) { /* no scan of its own: ringscan_count */
        rc = cli_count_rows(f, ds, &a.o, a.stats, &err);
        a.stats = 0, a.o.explain = false;
    } else if (rc == 0) rc = pick_columns(f, a.path, a.columns, names, &copy, &a.o, &err);
    char *dcopy = NULL;
    if (rc == 0 && a.fmt != PRINT_COUNT && cli_dictionary_columns(a.dict_columns, &a.o, &dcopy))
        rc = cli_err(&err, a.path, -EINVAL, "--dictionary-columns: out of memory or too many");
    if (rc == 0 && a.fmt != PRINT_COUNT && ds) rc = ringscan_dataset_scan_start(ds, &a.o, &sc, &err);
    else if (rc == 0 && a.fmt != PRINT_COUNT && (rc = ringscan_scan_start(f, &a.o, &sc, &err)) != 0)
        suggest_for_filter(f, &err);
    if (rc == 0 && sc) rc = drain(sc, &a, rows, checksum, keep, &err);
    cli_progress_end(&scan_line); /* before anything else goes to stderr */
    /* rows before any message on stderr; a write error is the output's, reported by the
     * caller (sink_exit_status) and not as the input file's */
    bool out_failed = sink_flush(cli_out()) != 0;
    if (rc < 0 && !out_failed) fprintf(stderr, "ringscan: %s\n", err.message);
    if (rc == RINGSCAN_EPARSE && !out_failed) show_filter_place(a.o.filter, err.message);
    /* a scan the output's failure left running: ended, so --stats and --explain are final
     * (a running scan's counters are a snapshot that breaks io.h invariant 3) */
    if (sc && (a.o.explain || a.stats)) ringscan_scan_stop(sc);
    if (sc && a.o.explain) fputs(ringscan_scan_explain(sc), stderr);
    if (sc && a.stats) {
        ringscan_stats st;
        ringscan_scan_stats(sc, &st);
        cli_print_stats(stderr, &st, a.stats == 2);
    }
    ringscan_scan_free(sc);
    ringscan_close(f);
    ringscan_dataset_close(ds);
    free(copy);
    free(dcopy);
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

/* `ringscan serve`: one scan per stdin line (the `ringscan scan` arguments, tab-separated;
 * --format checksum, the only format served, is implied), answered by one JSON line on
 * stdout: {"rc", "rows", "checksum", "secs", "cpu"}; secs and cpu (every thread of the
 * process) cover open..last batch; the batches are kept and checksummed after the timer
 * stops, as the peers' workers checksum their result table after theirs. A warm process, as the peers' benchmark workers are (bench/compare).
 * One answer per line, always: a line longer than SERVE_LINE_MAX - 2 bytes, holding a NUL
 * byte, with more than SERVE_ARGS_MAX arguments, another --format or --help is answered rc 2
 * (usage) with its number or the reason on stderr. Ends at end of input. */
static const char *const serve_examples[] = {
    "printf 'data.parquet\\t--where\\tx > 5\\n' | ringscan serve", NULL};

const cli_cmd cli_cmd_serve = {
    .name = "serve",
    .usage = "",
    .purpose = "Runs one scan per line of standard input (the arguments of `ringscan scan`,\n"
               "tab-separated; --format checksum is implied, no other format is served) in one\n"
               "warm process, and answers each with one JSON line: {\"rc\", \"rows\",\n"
               "\"checksum\", \"secs\", \"cpu\"}. Ends at end of input.",
    .examples = serve_examples,
};

/* The next request line of stdin (up to its '\n' or the end of input) into line
 * (SERVE_LINE_MAX bytes, NUL-terminated, without the '\n'); false at the end of input. *whole:
 * it fits (SERVE_LINE_MAX - 2 bytes at most; the rest of a longer one is read and dropped, so
 * its tail is not taken for the next request); *nul: it holds a NUL byte. Bytes are counted
 * as read, not by strlen: a NUL inside a request (fgets and strlen took it for a request cut
 * at the buffer's end, and dropped the next request as its tail) is one request too. */
static bool serve_line(char *line, bool *whole, bool *nul)
{
    size_t len = 0;
    int c;
    *whole = true, *nul = false;
    while ((c = getchar()) != EOF && c != '\n') {
        *nul = *nul || c == 0;
        if (len < SERVE_LINE_MAX - 2) line[len++] = (char)c;
        else *whole = false;
    }
    line[len] = 0;
    return c != EOF || len > 0 || !*whole;
}

int cmd_serve(int argc, char **argv)
{
    int npos = 0;
    int prc = cli_parse(&cli_cmd_serve, argc, argv, 1, NULL, NULL, NULL, &npos);
    if (prc) return prc == CLI_HELP_SHOWN ? 0 : prc;
    static char line[SERVE_LINE_MAX];
    bool whole, nul;
    for (int64_t no = 1; serve_line(line, &whole, &nul); no++) {
        char *args[SERVE_ARGS_MAX + 1] = {"scan"};
        int n = 1;
        char *tok = whole && !nul ? strtok(line, "\t") : NULL;
        for (; tok && n <= SERVE_ARGS_MAX; tok = strtok(NULL, "\t")) args[n++] = tok;
        int64_t rows = 0;
        uint64_t checksum = 0;
        bool counted = false;
        batch_keep keep = {0};
        double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        int rc = CLI_EXIT_USAGE;
        if (!whole)
            fprintf(stderr, "ringscan: serve: request %" PRId64 " is longer than %d bytes\n", no,
                    SERVE_LINE_MAX - 2);
        else if (nul)
            fprintf(stderr, "ringscan: serve: request %" PRId64 " holds a NUL byte\n", no);
        else if (tok) /* arguments past the last slot were dropped: refused instead */
            fprintf(stderr, "ringscan: serve: request %" PRId64 " has more than %d arguments\n",
                    no, SERVE_ARGS_MAX);
        else rc = scan_once(n, args, &rows, &checksum, &counted, &keep);
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
