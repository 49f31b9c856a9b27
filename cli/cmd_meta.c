/* cli/cmd_meta.c: `ringscan meta FILE [--json] [--store SPEC] [--tls-insecure]` prints a
 * Parquet file's metadata (a dataset's, several files or a directory or a pattern, is
 * cli/meta_dataset.c's): schema, row groups, column chunks (codec, encodings, decoded
 * statistics, page index and bloom filter presence), key-value metadata; --json prints the same
 * as one JSON object. The text form is for people: each type once ("INT64 TIMESTAMP(MICROS,
 * UTC)"), statistics as values of their logical type (ringscan_stat_display), sizes in
 * B/KiB/MiB; --json keeps raw numbers and the JSON values of ringscan_stat_text for programs. A
 * client of ringscan.h alone (its metadata calls), as a host would be.
 *
 * Invariants:
 *  1. The only I/O is ringscan_open's footer read; everything printed comes from the metadata
 *     calls, which do none. Every column's statistics are decoded (ringscan_file_stats)
 *     before anything is printed, so a malformed one fails the command as a bad footer does.
 *  2. Errors print "ringscan: FILE: <msg> (offset N, column C)" on stderr and exit 1; usage
 *     errors exit 2.
 *  3. Strings from the file are escaped before printing (JSON rules in both modes).
 *  4. Everything goes to cli_out() (cli/sink.h), whose error is sticky; main() checks it: a
 *     failed write exits 1 naming the output, a closed pipe exits quietly.
 *  5. The schema is printed as the tree of fields (ringscan_file_field): a flat file's lines
 *     are its columns' lines as they always were; a nested field's children are indented two
 *     spaces per level, groups with their kind (LIST, MAP, struct, group) and repetition,
 *     nested leaves with their column index, type and levels. --json keeps "schema" as the
 *     list of leaf columns (nested ones with their levels) and adds "fields", the tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/print.h"
#include "cli/sink.h"
#include "ringscan.h"

int cmd_meta(int argc, char **argv);

static void put_str(const char *s, size_t n)
{
    print_json_str(cli_out(), (const uint8_t *)s, (int64_t)n);
}

/* A statistic through fmt (ringscan_stat_text: a JSON value; ringscan_stat_display: the value
 * as its logical type reads, for the text form). */
static void put_stat(int (*fmt)(const ringscan_file *, int, const uint8_t *, uint32_t, char *, size_t),
                     const ringscan_file *f, int col, const uint8_t *p, uint32_t n)
{
    char small[256];
    int len = fmt(f, col, p, n, small, sizeof small);
    if (len < 0) return; /* cannot happen for the file's own statistics (ringscan.h) */
    if ((size_t)len < sizeof small) {
        sink_write(cli_out(), small, (size_t)len);
        return;
    }
    char *big = malloc((size_t)len + 1);
    if (!big) {
        cli_out()->err = -ENOMEM; /* sticky: main() reports the output as failed */
        return;
    }
    fmt(f, col, p, n, big, (size_t)len + 1);
    sink_write(cli_out(), big, (size_t)len);
    free(big);
}

static void put_value(const ringscan_file *f, int col, const uint8_t *p, uint32_t n)
{
    put_stat(ringscan_stat_text, f, col, p, n);
}

static void put_display(const ringscan_file *f, int col, const uint8_t *p, uint32_t n)
{
    put_stat(ringscan_stat_display, f, col, p, n);
}

static void put_encodings(uint32_t mask)
{
    sink_putc(cli_out(), '[');
    for (int b = 0, first = 1; b < 32; b++)
        if (mask & (1u << b)) sink_printf(cli_out(), "%s\"%s\"", first ? "" : ", ", ringscan_encoding_name(b)), first = 0;
    sink_putc(cli_out(), ']');
}

/* Whether column col's statistics read differently as their logical type than as raw JSON
 * values (dates, times, timestamps, decimals, INT96, UUID, FLOAT16, INTERVAL): --json then
 * adds "min_display" / "max_display", the text form's values as JSON strings. */
static bool has_display(const ringscan_file *f, int col)
{
    static const char *const typed[] = {"DATE", "TIME_", "TIMESTAMP_", "DECIMAL", "UUID",
                                        "FLOAT16", "INTERVAL"};
    ringscan_column_info ci;
    if (ringscan_file_column(f, col, &ci) != 0) return false;
    if (ci.physical == RINGSCAN_INT96) return true;
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++)
        if (strncmp(ci.logical_name, typed[i], strlen(typed[i])) == 0) return true;
    return false;
}

/* The display text of a statistic as a JSON string. */
static void put_display_json(const ringscan_file *f, int col, const uint8_t *p, uint32_t n)
{
    char small[256];
    int len = ringscan_stat_display(f, col, p, n, small, sizeof small);
    if (len < 0 || (size_t)len >= sizeof small) { /* a typed value is short: not expected */
        sink_puts(cli_out(), "null");
        return;
    }
    put_str(small, (size_t)len);
}

static void put_stats(const ringscan_file *f, int col, const ringscan_chunk_stats *s)
{
    sink_printf(cli_out(), "{\"usable\": %s", s->usable ? "true" : "false");
    if (s->has_min_max) {
        sink_printf(cli_out(), ", \"min\": ");
        put_value(f, col, s->min, s->min_len);
        sink_printf(cli_out(), ", \"max\": ");
        put_value(f, col, s->max, s->max_len);
        if (has_display(f, col)) {
            sink_printf(cli_out(), ", \"min_display\": ");
            put_display_json(f, col, s->min, s->min_len);
            sink_printf(cli_out(), ", \"max_display\": ");
            put_display_json(f, col, s->max, s->max_len);
        }
        if (!s->min_exact || !s->max_exact) sink_printf(cli_out(), ", \"exact\": false");
    }
    if (s->has_null_count) sink_printf(cli_out(), ", \"null_count\": %" PRId64, s->null_count);
    if (s->has_distinct_count) sink_printf(cli_out(), ", \"distinct_count\": %" PRId64, s->distinct_count);
    if (s->has_nan_count) sink_printf(cli_out(), ", \"nan_count\": %" PRId64, s->nan_count);
    sink_putc(cli_out(), '}');
}

static void put_kv_value(const ringscan_kv *kv, uint32_t max_len)
{
    if (kv->value) put_str(kv->value, kv->value_len > max_len ? max_len : kv->value_len);
    else sink_printf(cli_out(), "null");
}


/* "INT64 TIMESTAMP(MICROS, UTC)", "INT32 DECIMAL(9,2)", "BYTE_ARRAY STRING", "INT64": the
 * physical type, then the logical type when it says more than the physical one. */
static void put_type_text(const ringscan_column_info *c)
{
    const char *l = c->logical_name;
    sink_printf(cli_out(), "%s", c->physical_name);
    if (c->physical == RINGSCAN_FIXED_LEN_BYTE_ARRAY) sink_printf(cli_out(), "(%d)", (int)c->type_length);
    if (strcmp(l, "NONE") == 0 || strcmp(l, c->physical_name) == 0) return;
    if (strncmp(l, "TIMESTAMP_", 10) == 0 || strncmp(l, "TIME_", 5) == 0) {
        const char *unit = strchr(l, '_') + 1;
        sink_printf(cli_out(), " %.*s(%s, %s)", (int)(unit - 1 - l), l, unit, c->adjusted_to_utc ? "UTC" : "local");
    } else if (strcmp(l, "DECIMAL") == 0) {
        sink_printf(cli_out(), " DECIMAL(%d,%d)", (int)c->precision, (int)c->scale);
    } else sink_printf(cli_out(), " %s", l);
}

static void print_column_text(const ringscan_column_info *c, int i)
{
    sink_printf(cli_out(), "  %d %s ", i, c->name);
    put_type_text(c);
    sink_printf(cli_out(), " %s\n", c->optional ? "optional" : "required");
}

static const char *const repetition_text[] = {"required", "optional", "repeated"};

/* What a group is in the text tree: LIST, MAP, struct, or group (an unannotated repeated
 * group: the middle level of a list or map, or a list of structs). */
static const char *group_text(const ringscan_field_info *fi)
{
    if (fi->kind == RINGSCAN_FIELD_LIST) return "LIST";
    if (fi->kind == RINGSCAN_FIELD_MAP) return "MAP";
    return fi->repetition == 2 ? "group" : "struct";
}

/* One line of the schema tree (invariant 5): a flat top-level column as print_column_text
 * writes it; a nested leaf with its own name and levels; a group with its kind. */
static void print_field_text(const ringscan_file *f, const ringscan_field_info *fi)
{
    int indent = 2 * fi->depth;
    if (fi->column >= 0) {
        ringscan_column_info c;
        ringscan_file_column(f, fi->column, &c);
        if (!fi->nested) {
            print_column_text(&c, fi->column);
            return;
        }
        sink_printf(cli_out(), "%*s%d %s ", indent, "", fi->column, fi->name);
        put_type_text(&c);
        sink_printf(cli_out(), " %s (levels: definition %d, repetition %d)\n",
                    repetition_text[fi->repetition], fi->max_definition_level,
                    fi->max_repetition_level);
        return;
    }
    sink_printf(cli_out(), "%*s%s %s %s\n", indent, "", fi->name, group_text(fi),
                repetition_text[fi->repetition]);
}

static void put_encodings_text(uint32_t mask)
{
    for (int b = 0, first = 1; b < 32; b++)
        if (mask & (1u << b)) sink_printf(cli_out(), "%s%s", first ? "" : " ", ringscan_encoding_name(b)), first = 0;
}

/* ", min 2009-01-01, max 2009-04-01, nulls 0" and the rest of what the Statistics hold. */
static void put_stats_text(const ringscan_file *f, int col, const ringscan_chunk_stats *s)
{
    if (s->has_min_max) {
        sink_printf(cli_out(), ", min ");
        put_display(f, col, s->min, s->min_len);
        sink_printf(cli_out(), "%s, max ", s->min_exact ? "" : " (truncated)");
        put_display(f, col, s->max, s->max_len);
        sink_printf(cli_out(), "%s", s->max_exact ? "" : " (truncated)");
        if (!s->usable) sink_printf(cli_out(), " (not used for pruning)");
    } else sink_printf(cli_out(), ", no min/max");
    if (s->has_null_count) sink_printf(cli_out(), ", nulls %" PRId64, s->null_count);
    if (s->has_distinct_count) sink_printf(cli_out(), ", distinct %" PRId64, s->distinct_count);
    if (s->has_nan_count) sink_printf(cli_out(), ", NaNs %" PRId64, s->nan_count);
}

int64_t cli_group_compressed(const ringscan_file *f, const ringscan_file_info *fi, int g)
{
    ringscan_row_group_info rg;
    ringscan_file_row_group(f, g, &rg);
    if (rg.total_compressed_size > 0) return rg.total_compressed_size;
    int64_t sum = 0;
    for (int i = 0; i < fi->columns; i++) {
        ringscan_chunk_info ch;
        ringscan_file_chunk(f, g, i, &ch);
        sum += ch.compressed_size;
    }
    return sum;
}

static void print_row_group_text(const ringscan_file *f, const ringscan_file_info *fi, int g)
{
    ringscan_row_group_info rg;
    char b1[32], b2[32];
    ringscan_file_row_group(f, g, &rg);
    sink_printf(cli_out(), "row group %d: %" PRId64 " row%s, %s compressed, %s uncompressed\n", g,
                rg.rows, rg.rows == 1 ? "" : "s", cli_human_bytes(cli_group_compressed(f, fi, g), b1),
                cli_human_bytes(rg.total_byte_size, b2));
    for (int i = 0; i < fi->columns; i++) {
        ringscan_column_info c;
        ringscan_chunk_info ch;
        ringscan_file_column(f, i, &c);
        ringscan_file_chunk(f, g, i, &ch);
        sink_printf(cli_out(), "  %s: %s, %" PRId64 " values, %s compressed, %s uncompressed, ", c.name, ch.codec_name,
                    ch.num_values, cli_human_bytes(ch.compressed_size, b1), cli_human_bytes(ch.uncompressed_size, b2));
        sink_printf(cli_out(), "encodings ");
        put_encodings_text(ch.encodings);
        put_stats_text(f, i, &ch.stats);
        sink_printf(cli_out(), "%s%s%s\n", ch.has_offset_index ? ", offset index" : "",
               ch.has_column_index ? ", column index" : "", ch.has_bloom_filter ? ", bloom filter" : "");
    }
}

static void print_text(const char *path, const ringscan_file *f)
{
    ringscan_file_info fi;
    ringscan_file_info_get(f, &fi);
    static const char *orders[] = {"absent", "unknown", "known"};
    char shown[512];
    ringscan_path_shown(shown, sizeof shown, path);
    sink_printf(cli_out(), "file: %s\nrows: %" PRId64 "\ncreated_by: %s\ncolumn_orders: %s\n", shown, fi.rows,
           fi.created_by ? fi.created_by : "(none)", orders[fi.column_orders]);
    int64_t packed = 0, unpacked = 0;
    for (int g = 0; g < fi.row_groups; g++) {
        ringscan_row_group_info rg;
        ringscan_file_row_group(f, g, &rg);
        packed += cli_group_compressed(f, &fi, g);
        unpacked += rg.total_byte_size;
    }
    char b1[32], b2[32];
    sink_printf(cli_out(), "row groups: %d, %s compressed, %s uncompressed\n", fi.row_groups,
                cli_human_bytes(packed, b1), cli_human_bytes(unpacked, b2));
    sink_printf(cli_out(), "schema (%d column%s):\n", fi.columns, fi.columns == 1 ? "" : "s");
    for (int i = 0, n = ringscan_file_fields(f); i < n; i++) {
        ringscan_field_info fd;
        ringscan_file_field(f, i, &fd);
        print_field_text(f, &fd);
    }
    for (int g = 0; g < fi.row_groups; g++) print_row_group_text(f, &fi, g);
    for (int i = 0; i < fi.kv; i++) {
        ringscan_kv kv;
        ringscan_file_kv(f, i, &kv);
        sink_printf(cli_out(), "kv %s = ", kv.key);
        put_kv_value(&kv, 200);
        sink_putc(cli_out(), '\n');
    }
}

static void print_chunk_json(const ringscan_file *f, int g, int col)
{
    ringscan_column_info c;
    ringscan_chunk_info ch;
    ringscan_file_column(f, col, &c);
    ringscan_file_chunk(f, g, col, &ch);
    sink_printf(cli_out(), "{\"column\": ");
    put_str(c.name, strlen(c.name));
    sink_printf(cli_out(), ", \"codec\": \"%s\", \"encodings\": ", ch.codec_name);
    put_encodings(ch.encodings);
    sink_printf(cli_out(), ", \"num_values\": %" PRId64 ", \"compressed_size\": %" PRId64 ", \"uncompressed_size\": %" PRId64
           ", \"data_page_offset\": %" PRId64,
           ch.num_values, ch.compressed_size, ch.uncompressed_size, ch.data_page_offset);
    if (ch.dictionary_page_offset >= 0) sink_printf(cli_out(), ", \"dictionary_page_offset\": %" PRId64, ch.dictionary_page_offset);
    sink_printf(cli_out(), ", \"statistics\": ");
    put_stats(f, col, &ch.stats);
    sink_printf(cli_out(), ", \"offset_index\": %s, \"column_index\": %s, \"bloom_filter\": %s}",
           ch.has_offset_index ? "true" : "false", ch.has_column_index ? "true" : "false",
           ch.has_bloom_filter ? "true" : "false");
}

static const char *const repetition_json[] = {"REQUIRED", "OPTIONAL", "REPEATED"};

static void print_column_json(const ringscan_column_info *c, int i, int repetition)
{
    sink_printf(cli_out(), "%s{\"name\": ", i ? ", " : "");
    put_str(c->name, strlen(c->name));
    sink_printf(cli_out(), ", \"physical\": \"%s\", \"logical\": \"%s\", \"repetition\": \"%s\"", c->physical_name,
           c->logical_name, repetition_json[repetition]);
    if (c->physical == RINGSCAN_FIXED_LEN_BYTE_ARRAY) sink_printf(cli_out(), ", \"type_length\": %d", (int)c->type_length);
    if (strcmp(c->logical_name, "DECIMAL") == 0)
        sink_printf(cli_out(), ", \"precision\": %d, \"scale\": %d", (int)c->precision, (int)c->scale);
    if (strncmp(c->logical_name, "TIME", 4) == 0)
        sink_printf(cli_out(), ", \"adjusted_to_utc\": %s", c->adjusted_to_utc ? "true" : "false");
}

/* A leaf of "schema" (fd: its field): as before for a flat column; a nested one adds its
 * levels. */
static void print_leaf_json(const ringscan_file *f, const ringscan_field_info *fd)
{
    ringscan_column_info c;
    ringscan_file_column(f, fd->column, &c);
    print_column_json(&c, fd->column, fd->repetition);
    if (fd->nested)
        sink_printf(cli_out(), ", \"nested\": true, \"max_definition_level\": %d, "
                    "\"max_repetition_level\": %d", fd->max_definition_level,
                    fd->max_repetition_level);
    sink_putc(cli_out(), '}');
}

/* "fields": the schema tree, field i and its descendants as nested objects; returns the
 * index after them. Depth is bounded by the footer's check (max_schema_depth). */
static int print_field_json(const ringscan_file *f, int i)
{
    static const char *const kinds[] = {"primitive", "group", "LIST", "MAP"};
    ringscan_field_info fd;
    ringscan_file_field(f, i, &fd);
    sink_printf(cli_out(), "{\"name\": ");
    put_str(fd.name, strlen(fd.name));
    sink_printf(cli_out(), ", \"kind\": \"%s\", \"arrow\": \"%s\", \"repetition\": \"%s\", "
                "\"max_definition_level\": %d, \"max_repetition_level\": %d",
                kinds[fd.kind], fd.arrow_kind, repetition_json[fd.repetition], fd.max_definition_level,
                fd.max_repetition_level);
    if (fd.column >= 0) sink_printf(cli_out(), ", \"column\": %d}", fd.column);
    if (fd.column >= 0) return i + 1;
    sink_printf(cli_out(), ", \"children\": [");
    int k = i + 1;
    for (int c = 0; c < fd.children; c++) {
        sink_printf(cli_out(), "%s", c ? ", " : "");
        k = print_field_json(f, k);
    }
    sink_printf(cli_out(), "]}");
    return k;
}

static void print_json(const ringscan_file *f)
{
    ringscan_file_info fi;
    ringscan_file_info_get(f, &fi);
    sink_printf(cli_out(), "{\"num_rows\": %" PRId64 ", \"created_by\": ", fi.rows);
    if (fi.created_by) put_str(fi.created_by, strlen(fi.created_by));
    else sink_printf(cli_out(), "null");
    sink_printf(cli_out(), ", \"column_orders_known\": %s, \"schema\": [",
                fi.column_orders == RINGSCAN_ORDERS_KNOWN ? "true" : "false");
    for (int i = 0, n = ringscan_file_fields(f); i < n; i++) { /* leaves in column order */
        ringscan_field_info fd;
        if (ringscan_file_field(f, i, &fd) == 0 && fd.column >= 0) print_leaf_json(f, &fd);
    }
    sink_printf(cli_out(), "], \"fields\": [");
    for (int i = 0, n = ringscan_file_fields(f); i < n;) {
        sink_printf(cli_out(), "%s", i ? ", " : "");
        i = print_field_json(f, i);
    }
    sink_printf(cli_out(), "], \"row_groups\": [");
    for (int g = 0; g < fi.row_groups; g++) {
        ringscan_row_group_info rg;
        ringscan_file_row_group(f, g, &rg);
        sink_printf(cli_out(), "%s{\"num_rows\": %" PRId64 ", \"total_byte_size\": %" PRId64 ", \"columns\": [", g ? ", " : "",
               rg.rows, rg.total_byte_size);
        for (int i = 0; i < fi.columns; i++) {
            if (i) sink_printf(cli_out(), ", ");
            print_chunk_json(f, g, i);
        }
        sink_printf(cli_out(), "]}");
    }
    sink_printf(cli_out(), "], \"key_value_metadata\": {");
    for (int i = 0; i < fi.kv; i++) {
        ringscan_kv kv;
        ringscan_file_kv(f, i, &kv);
        sink_printf(cli_out(), "%s", i ? ", " : "");
        put_str(kv.key, strlen(kv.key));
        sink_printf(cli_out(), ": ");
        put_kv_value(&kv, UINT32_MAX);
    }
    sink_printf(cli_out(), "}}\n");
}

enum meta_opt_id { MO_JSON, MO_STORE, MO_FETCH_BUDGET, MO_TLS_INSECURE, MO_NO_ETAG, MO_HIVE,
                   MO_HIVE_TYPES, MO_UNION };

enum { CLI_META_PATHS_MAX = 1024 }; /* paths and patterns one meta names, as scan's */


/* Every option `ringscan meta` accepts; the help is printed from it. */
static const cli_opt meta_opts[] = {
    {"--json", NULL, NULL, CLI_FLAG, MO_JSON,
     .help = "print one JSON object with raw numbers (default: text for people)"},
    {"--store", NULL, "SPEC", CLI_TEXT, MO_STORE, .dflt = "the file itself",
     .help = "read through a simulated object store, e.g. sim:ttfb=50ms,bw=500MB/s"},
    {"--fetch-budget", NULL, "BYTES", CLI_BYTES, MO_FETCH_BUDGET, 0, INT64_MAX, .dflt = "256MiB",
     .help = "as scan's (meta reads only the footer, so it changes nothing here)"},
    {"--tls-insecure", NULL, NULL, CLI_FLAG, MO_TLS_INSECURE,
     .help = "skip TLS peer and host verification for https:// and s3:// (warns)"},
    {"--unsafe-disable-etag-checks", NULL, NULL, CLI_FLAG, MO_NO_ETAG,
     .help = "as scan's: a remote object's ETag may change between reads"},
    CLI_DATASET_OPTS(MO_HIVE, MO_HIVE_TYPES, MO_UNION),
};

static const char *const meta_examples[] = {
    "ringscan meta data.parquet",
    "ringscan meta data.parquet --json | jq .row_groups[0]",
    "ringscan meta 'sales/**/*.parquet' --union-by-name",
    NULL};

const cli_cmd cli_cmd_meta = {
    .name = "meta",
    .usage = "FILE... [options]",
    .purpose = "Prints a Parquet file's metadata: schema, row groups, column chunks (codec,\n"
               "encodings, statistics as values of their type, page index and bloom filter\n"
               "presence) and key-value metadata. Reads only the footer. Several files, a\n"
               "directory or a pattern print the dataset's columns as a scan of it types them,\n"
               "a line per file and the totals.",
    .opts = meta_opts,
    .nopts = sizeof meta_opts / sizeof meta_opts[0],
    .examples = meta_examples,
    .pos_min = 1,
    .pos_max = CLI_META_PATHS_MAX,
};

typedef struct meta_args {
    bool json;
    bool dataset; /* a dataset option was given */
    ringscan_options o;
} meta_args;

/* Applies one parsed option of meta_opts to the meta_args ctx (cli/opts.h cli_apply_fn). */
static int apply_opt(void *ctx, const cli_opt *opt, const cli_val *v)
{
    meta_args *a = ctx;
    switch ((enum meta_opt_id)opt->id) {
    case MO_JSON: a->json = true; break;
    case MO_STORE: a->o.store = v->s; break;
    case MO_FETCH_BUDGET: a->o.fetch_budget_bytes = v->i; break;
    case MO_TLS_INSECURE: a->o.tls_insecure = true; break;
    case MO_NO_ETAG: a->o.unsafe_disable_etag_checks = true; break;
    case MO_HIVE: cli_dataset_opt(&a->o, CLI_DS_HIVE, v), a->dataset = true; break;
    case MO_HIVE_TYPES: cli_dataset_opt(&a->o, CLI_DS_HIVE_TYPES, v), a->dataset = true; break;
    case MO_UNION: cli_dataset_opt(&a->o, CLI_DS_UNION, v), a->dataset = true; break;
    }
    return 0;
}

int cmd_meta(int argc, char **argv)
{
    static const char *paths[CLI_META_PATHS_MAX];
    meta_args a = {0};
    ringscan_options_init(&a.o);
    int npos = 0;
    int rc = cli_parse(&cli_cmd_meta, argc, argv, 1, apply_opt, &a, paths, &npos);
    if (rc) return rc == CLI_HELP_SHOWN ? 0 : rc;
    if (cli_is_dataset(paths, npos, a.dataset)) return cli_meta_dataset(paths, npos, &a.o, a.json);
    const char *path = paths[0];
    ringscan_file *f = NULL;
    ringscan_error err;
    if (ringscan_open_with(path, &a.o, &f, &err)) {
        fprintf(stderr, "ringscan: %s\n", err.message);
        return 1;
    }
    if (ringscan_file_stats(f, -1, &err)) { /* decoded on demand: meta prints them all */
        fprintf(stderr, "ringscan: %s\n", err.message);
        ringscan_close(f);
        return 1;
    }
    if (a.json) print_json(f);
    else print_text(path, f);
    ringscan_close(f);
    return 0; /* main() flushes cli_out() and turns a write error into status 1 */
}
