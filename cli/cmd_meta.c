/* cli/cmd_meta.c: `ringscan meta FILE [--json]` prints a Parquet file's metadata: schema, row
 * groups, column chunks (codec, encodings, decoded statistics, page index and bloom filter
 * presence), key-value metadata; --json prints the same as one JSON object. A client of
 * ringscan.h alone (its metadata calls), as a host would be.
 *
 * Invariants:
 *  1. The only I/O is ringscan_open's footer read; everything printed comes from the metadata
 *     calls, which do none.
 *  2. Errors print "ringscan: FILE: <msg> (offset N, column C)" on stderr and exit 1; usage
 *     errors exit 2.
 *  3. Strings from the file are escaped before printing (JSON rules in both modes).
 *  4. Everything goes to cli_out() (cli/sink.h), whose error is sticky; main() checks it: a
 *     failed write exits 1 naming the output, a closed pipe exits quietly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sink.h"
#include "ringscan.h"

int cmd_meta(int argc, char **argv);

static void put_str(const char *s, size_t n)
{
    sink_putc(cli_out(), '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') sink_printf(cli_out(), "\\%c", c);
        else if (c < 0x20 || c == 0x7f) sink_printf(cli_out(), "\\u%04x", c);
        else sink_putc(cli_out(), c);
    }
    sink_putc(cli_out(), '"');
}

/* A statistic as a readable value (a JSON value in both modes: ringscan_stat_text). */
static void put_value(const ringscan_file *f, int col, const uint8_t *p, uint32_t n)
{
    char small[256];
    int len = ringscan_stat_text(f, col, p, n, small, sizeof small);
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
    ringscan_stat_text(f, col, p, n, big, (size_t)len + 1);
    sink_write(cli_out(), big, (size_t)len);
    free(big);
}

static void put_encodings(uint32_t mask)
{
    sink_putc(cli_out(), '[');
    for (int b = 0, first = 1; b < 32; b++)
        if (mask & (1u << b)) sink_printf(cli_out(), "%s\"%s\"", first ? "" : ", ", ringscan_encoding_name(b)), first = 0;
    sink_putc(cli_out(), ']');
}

static void put_stats(const ringscan_file *f, int col, const ringscan_chunk_stats *s)
{
    sink_printf(cli_out(), "{\"usable\": %s", s->usable ? "true" : "false");
    if (s->has_min_max) {
        sink_printf(cli_out(), ", \"min\": ");
        put_value(f, col, s->min, s->min_len);
        sink_printf(cli_out(), ", \"max\": ");
        put_value(f, col, s->max, s->max_len);
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

static void print_column_text(const ringscan_column_info *c, int i)
{
    sink_printf(cli_out(), "  %d %s %s", i, c->name, c->physical_name);
    if (c->physical == RINGSCAN_FIXED_LEN_BYTE_ARRAY) sink_printf(cli_out(), "(%d)", (int)c->type_length);
    if (strcmp(c->logical_name, "NONE") != 0) sink_printf(cli_out(), " %s", c->logical_name);
    if (strcmp(c->logical_name, "DECIMAL") == 0) sink_printf(cli_out(), "(%d,%d)", (int)c->precision, (int)c->scale);
    sink_printf(cli_out(), " %s\n", c->optional ? "optional" : "required");
}

static void print_row_group_text(const ringscan_file *f, const ringscan_file_info *fi, int g)
{
    ringscan_row_group_info rg;
    ringscan_file_row_group(f, g, &rg);
    sink_printf(cli_out(), "row group %d: rows %" PRId64 ", bytes %" PRId64 "\n", g, rg.rows, rg.total_byte_size);
    for (int i = 0; i < fi->columns; i++) {
        ringscan_column_info c;
        ringscan_chunk_info ch;
        ringscan_file_column(f, i, &c);
        ringscan_file_chunk(f, g, i, &ch);
        sink_printf(cli_out(), "  %s: %s, values %" PRId64 ", compressed %" PRId64 ", uncompressed %" PRId64 ", encodings ",
               c.name, ch.codec_name, ch.num_values, ch.compressed_size, ch.uncompressed_size);
        put_encodings(ch.encodings);
        sink_printf(cli_out(), ", stats ");
        put_stats(f, i, &ch.stats);
        sink_printf(cli_out(), "%s%s%s\n", ch.has_offset_index ? ", offset index" : "",
               ch.has_column_index ? ", column index" : "", ch.has_bloom_filter ? ", bloom filter" : "");
    }
}

static void print_text(const char *path, const ringscan_file *f)
{
    ringscan_file_info fi;
    ringscan_file_info_get(f, &fi);
    static const char *orders[] = {"absent", "unknown", "known"};
    sink_printf(cli_out(), "file: %s\nrows: %" PRId64 "\ncreated_by: %s\ncolumn_orders: %s\n", path, fi.rows,
           fi.created_by ? fi.created_by : "(none)", orders[fi.column_orders]);
    sink_printf(cli_out(), "schema (%d columns):\n", fi.columns);
    for (int i = 0; i < fi.columns; i++) {
        ringscan_column_info c;
        ringscan_file_column(f, i, &c);
        print_column_text(&c, i);
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

static void print_column_json(const ringscan_column_info *c, int i)
{
    sink_printf(cli_out(), "%s{\"name\": ", i ? ", " : "");
    put_str(c->name, strlen(c->name));
    sink_printf(cli_out(), ", \"physical\": \"%s\", \"logical\": \"%s\", \"repetition\": \"%s\"", c->physical_name,
           c->logical_name, c->optional ? "OPTIONAL" : "REQUIRED");
    if (c->physical == RINGSCAN_FIXED_LEN_BYTE_ARRAY) sink_printf(cli_out(), ", \"type_length\": %d", (int)c->type_length);
    if (strcmp(c->logical_name, "DECIMAL") == 0)
        sink_printf(cli_out(), ", \"precision\": %d, \"scale\": %d", (int)c->precision, (int)c->scale);
    sink_putc(cli_out(), '}');
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
    for (int i = 0; i < fi.columns; i++) {
        ringscan_column_info c;
        ringscan_file_column(f, i, &c);
        print_column_json(&c, i);
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

int cmd_meta(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = true;
        else if (!path && argv[i][0] != '-') path = argv[i];
        else path = NULL, i = argc;
    }
    if (!path) {
        fprintf(stderr, "usage: ringscan meta FILE [--json]\n");
        return 2;
    }
    ringscan_file *f = NULL;
    ringscan_error err;
    if (ringscan_open(path, &f, &err)) {
        fprintf(stderr, "ringscan: %s\n", err.message);
        return 1;
    }
    if (json) print_json(f);
    else print_text(path, f);
    ringscan_close(f);
    return 0; /* main() flushes cli_out() and turns a write error into status 1 */
}
