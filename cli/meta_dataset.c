/* cli/meta_dataset.c: `ringscan meta` over a dataset (several paths, a directory or a pattern,
 * as `ringscan scan` takes them): the files listed as a scan lists them, the dataset's columns
 * with the Arrow types a scan of it exports (the first file's columns, or every file's with
 * --union-by-name; hive partition columns after them, typed as a scan types them), totals, and
 * one line per file from its footer. A client of ringscan.h alone.
 *
 * Invariants:
 *  1. The only I/O is footer reads: a dataset scan started with limit 0 reads the footers its
 *     schema needs and no data (it is freed before its first batch), and each file's footer
 *     is read once more, one file at a time, for its line (at most max_files files).
 *  2. Errors print "ringscan: <msg>" (naming the file) on stderr and return 1.
 *  3. Strings from the files are escaped as JSON strings in both modes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/print.h"
#include "cli/sink.h"
#include "ringscan.h"

/* An Arrow time unit letter as pyarrow names it. */
static const char *unit_name(char u)
{
    switch (u) {
    case 's': return "s";
    case 'm': return "ms";
    case 'u': return "us";
    case 'n': return "ns";
    default: return "?";
    }
}

/* Arrow format f (a flat column's) as pyarrow prints its type, into buf. */
static const char *format_text(const char *f, char *buf, size_t n)
{
    static const struct { const char *fmt, *name; } plain[] = {
        {"n", "null"}, {"b", "bool"}, {"c", "int8"}, {"C", "uint8"}, {"s", "int16"},
        {"S", "uint16"}, {"i", "int32"}, {"I", "uint32"}, {"l", "int64"}, {"L", "uint64"},
        {"e", "halffloat"}, {"f", "float"}, {"g", "double"}, {"z", "binary"},
        {"Z", "large_binary"}, {"u", "string"}, {"U", "large_string"}, {"vu", "string_view"},
        {"vz", "binary_view"}, {"tdD", "date32[day]"}, {"tdm", "date64[ms]"}};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(f, plain[i].fmt) == 0) return plain[i].name;
    if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':')
        snprintf(buf, n, f[4] ? "timestamp[%s, tz=%s]" : "timestamp[%s]", unit_name(f[2]), f + 4);
    else if (f[0] == 't' && (f[1] == 't' || f[1] == 'D') && f[2] && !f[3])
        snprintf(buf, n, "%s[%s]", f[1] == 'D' ? "duration" : f[2] == 's' || f[2] == 'm' ? "time32" : "time64",
                 unit_name(f[2]));
    else if (f[0] == 'd' && f[1] == ':') {
        int p = 0, s = 0, w = 128;
        sscanf(f + 2, "%d,%d,%d", &p, &s, &w);
        snprintf(buf, n, "decimal%d(%d, %d)", w, p, s);
    } else if (f[0] == 'w' && f[1] == ':')
        snprintf(buf, n, "fixed_size_binary[%s]", f + 2);
    else
        snprintf(buf, n, "arrow format '%s'", f);
    return buf;
}

enum { TYPE_TEXT_MAX = 512, TYPE_DEPTH_MAX = 16 };

static const char *type_text_at(const struct ArrowSchema *s, char *buf, size_t n, int depth);

/* A nested type s (+l, +L, +w:N, +s, +m) as pyarrow prints it into buf: its children's types
 * (cut with "..." past buf or TYPE_DEPTH_MAX levels). */
static const char *nested_text(const struct ArrowSchema *s, char *buf, size_t n, int depth)
{
    const char *f = s->format;
    bool list = strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strncmp(f, "+w:", 3) == 0;
    size_t at = (size_t)snprintf(buf, n, "%s<", f[1] == 's' ? "struct" : f[1] == 'm' ? "map"
                                 : f[1] == 'L' ? "large_list" : f[1] == 'w' ? "fixed_size_list" : "list");
    const struct ArrowSchema *kids = f[1] == 'm' && s->n_children == 1 ? s->children[0] : s;
    for (int64_t i = 0; at < n && i < kids->n_children; i++) {
        char sub[TYPE_TEXT_MAX];
        const struct ArrowSchema *c = kids->children[i];
        const char *t = depth < TYPE_DEPTH_MAX ? type_text_at(c, sub, sizeof sub, depth + 1) : "...";
        if (f[1] == 'm') at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", t);
        else at += (size_t)snprintf(buf + at, n - at, "%s%s: %s", i ? ", " : "", c->name ? c->name : "", t);
    }
    if (at < n) snprintf(buf + at, n - at, list && f[1] == 'w' ? ">[%s]" : ">", f + 3);
    return buf;
}

/* Column s's type text (a dictionary's value type with its index type; nested types with
 * their children) into buf. */
static const char *type_text_at(const struct ArrowSchema *s, char *buf, size_t n, int depth)
{
    if (s->format[0] == '+') return nested_text(s, buf, n, depth);
    if (!s->dictionary) return format_text(s->format, buf, n);
    char v[96], i[96];
    snprintf(v, sizeof v, "%s", format_text(s->dictionary->format, buf, n));
    snprintf(i, sizeof i, "%s", format_text(s->format, buf, n));
    snprintf(buf, n, "dictionary<values=%s, indices=%s>", v, i);
    return buf;
}

static const char *type_text(const struct ArrowSchema *s, char *buf, size_t n)
{
    return type_text_at(s, buf, n, 0);
}

/* The dataset's columns as a scan of it exports them (invariant 1) into *out. */
static int dataset_schema(ringscan_dataset *d, const ringscan_options *base, struct ArrowSchema *out,
                          ringscan_error *err)
{
    ringscan_options o = *base;
    o.limit = 0;
    ringscan_scan *sc = NULL;
    int rc = ringscan_dataset_scan_start(d, &o, &sc, err);
    if (rc == 0) rc = ringscan_scan_schema(sc, out, err);
    ringscan_scan_free(sc);
    return rc;
}

typedef struct file_line {
    int64_t rows, bytes;
    int row_groups, columns;
    char created_by[96];
} file_line;

/* File path's line from its footer. */
static int file_line_get(const char *path, const ringscan_options *o, file_line *l,
                         ringscan_error *err)
{
    ringscan_file *f = NULL;
    int rc = ringscan_open_with(path, o, &f, err);
    if (rc) return rc;
    ringscan_file_info fi;
    ringscan_file_info_get(f, &fi);
    *l = (file_line){.rows = fi.rows, .row_groups = fi.row_groups, .columns = fi.columns};
    snprintf(l->created_by, sizeof l->created_by, "%s", fi.created_by ? fi.created_by : "");
    for (int g = 0; g < fi.row_groups; g++) l->bytes += cli_group_compressed(f, &fi, g);
    ringscan_close(f);
    return 0;
}

/* s with JSON's escapes (invariant 3), in quotes when quoted (JSON) or bare (text). */
static void put_escaped(const char *s, bool quoted)
{
    if (quoted) {
        print_json_str(cli_out(), (const uint8_t *)s, (int64_t)strlen(s));
        return;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f) sink_printf(cli_out(), "\\u%04x", c);
        else sink_putc(cli_out(), (char)c);
    }
}

static void print_schema(const struct ArrowSchema *s, bool json)
{
    char buf[TYPE_TEXT_MAX];
    if (!json) sink_printf(cli_out(), "schema (%" PRId64 " column%s):\n", s->n_children,
                           s->n_children == 1 ? "" : "s");
    for (int64_t i = 0; i < s->n_children; i++) {
        const struct ArrowSchema *c = s->children[i];
        if (json) {
            sink_printf(cli_out(), "%s{\"name\": ", i ? ", " : "");
            put_escaped(c->name, true);
            sink_printf(cli_out(), ", \"type\": ");
            put_escaped(type_text(c, buf, sizeof buf), true);
            sink_printf(cli_out(), ", \"nullable\": %s}", c->flags & ARROW_FLAG_NULLABLE ? "true" : "false");
            continue;
        }
        sink_printf(cli_out(), "  %" PRId64 " ", i);
        put_escaped(c->name, false);
        sink_printf(cli_out(), " %s\n", type_text(c, buf, sizeof buf));
    }
}

static void print_file(const char *given, const file_line *l, bool json, int i)
{
    char b[32], path[512];
    ringscan_path_shown(path, sizeof path, given); /* a URL's password is never printed */
    if (json) {
        sink_printf(cli_out(), "%s{\"path\": ", i ? ", " : "");
        put_escaped(path, true);
        sink_printf(cli_out(), ", \"rows\": %" PRId64 ", \"row_groups\": %d, \"columns\": %d, "
                    "\"compressed_bytes\": %" PRId64 ", \"created_by\": ", l->rows, l->row_groups,
                    l->columns, l->bytes);
        put_escaped(l->created_by, true);
        sink_putc(cli_out(), '}');
        return;
    }
    sink_printf(cli_out(), "  ");
    put_escaped(path, false);
    sink_printf(cli_out(), ": %" PRId64 " rows, %d row group%s, %d column%s, %s compressed, created by ",
                l->rows, l->row_groups, l->row_groups == 1 ? "" : "s", l->columns,
                l->columns == 1 ? "" : "s", cli_human_bytes(l->bytes, b));
    put_escaped(l->created_by[0] ? l->created_by : "(none)", false);
    sink_putc(cli_out(), '\n');
}

/* Every file's line (text: after the totals; JSON: the "files" list) and the totals. */
static int print_files(ringscan_dataset *d, const ringscan_options *o, bool json, ringscan_error *err)
{
    int n = ringscan_dataset_files(d), groups = 0;
    int64_t rows = 0, bytes = 0;
    if (json) sink_printf(cli_out(), ", \"files\": [");
    else sink_printf(cli_out(), "files:\n");
    for (int i = 0; i < n; i++) {
        file_line l;
        int rc = file_line_get(ringscan_dataset_file(d, i), o, &l, err);
        if (rc) return rc;
        print_file(ringscan_dataset_file(d, i), &l, json, i);
        rows += l.rows, bytes += l.bytes, groups += l.row_groups;
    }
    char b[32];
    if (json)
        sink_printf(cli_out(), "], \"totals\": {\"files\": %d, \"rows\": %" PRId64 ", \"row_groups\": "
                    "%d, \"compressed_bytes\": %" PRId64 "}}\n", n, rows, groups, bytes);
    else
        sink_printf(cli_out(), "total: %d file%s, %" PRId64 " rows, %d row groups, %s compressed\n",
                    n, n == 1 ? "" : "s", rows, groups, cli_human_bytes(bytes, b));
    return 0;
}

int cli_meta_dataset(const char *const *paths, int npaths, const ringscan_options *o, bool json)
{
    ringscan_dataset *d = NULL;
    ringscan_error err = {0};
    struct ArrowSchema s = {0};
    int rc = ringscan_dataset_open(paths, npaths, o, &d, &err);
    if (rc == 0) rc = dataset_schema(d, o, &s, &err);
    if (rc == 0) {
        if (json) sink_printf(cli_out(), "{\"dataset\": true, \"union_by_name\": %s, \"schema\": [",
                              o->union_by_name ? "true" : "false");
        else sink_printf(cli_out(), "dataset: %d file%s, %s\n", ringscan_dataset_files(d),
                         ringscan_dataset_files(d) == 1 ? "" : "s",
                         o->union_by_name ? "every file's columns by name" : "the first file's columns");
        print_schema(&s, json);
        if (json) sink_putc(cli_out(), ']');
        rc = print_files(d, o, json, &err);
    }
    if (s.release) s.release(&s);
    ringscan_dataset_close(d);
    if (rc) {
        sink_flush(cli_out());
        fprintf(stderr, "ringscan: %s\n", err.message);
    }
    return rc ? 1 : 0;
}
