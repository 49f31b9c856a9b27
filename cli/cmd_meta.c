/* cli/cmd_meta.c: `ringscan meta FILE [--json]` prints a Parquet file's metadata: schema, row
 * groups, column chunks (codec, encodings, decoded statistics, page index and bloom filter
 * presence), key-value metadata; --json prints the same as one JSON object.
 *
 * Invariants:
 *  1. The only I/O is io_read_sync of the tail (64 KiB) and, when the metadata is larger,
 *     of the metadata itself; the decoding is format/ (pq_footer_locate, pq_file_meta_parse).
 *  2. Errors print "ringscan: FILE: <msg> (offset N, column C)" on stderr and exit 1; usage
 *     errors exit 2.
 *  3. Strings from the file are escaped before printing (JSON rules in both modes).
 *  4. Everything goes to cli_out() (cli/sink.h), whose error is sticky; main() checks it: a
 *     failed write exits 1 naming the output, a closed pipe exits quietly.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sink.h"
#include "format/meta.h"
#include "io/io.h"

int cmd_meta(int argc, char **argv);

enum { TAIL_BYTES = 64 * 1024 };

static int report(const char *file, const pq_err *e)
{
    fprintf(stderr, "ringscan: %s: %s", file, e->msg);
    if (e->offset >= 0 && e->column[0]) fprintf(stderr, " (offset %" PRId64 ", column %s)", e->offset, e->column);
    else if (e->offset >= 0) fprintf(stderr, " (offset %" PRId64 ")", e->offset);
    else if (e->column[0]) fprintf(stderr, " (column %s)", e->column);
    fputc('\n', stderr);
    return 1;
}

/* An io/ message without the "PATH: " it starts with (report prints the path). */
static const char *io_msg(const char *path, const char *msg)
{
    size_t n = strlen(path);
    return strncmp(msg, path, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ' ? msg + n + 2 : msg;
}

static int read_at(io_file_t *f, uint8_t *buf, size_t n, uint64_t off, pq_err *e)
{
    char msg[256];
    int rc = io_read_sync(f, off, buf, n, msg, sizeof msg);
    return rc ? pq_errf(e, rc, (int64_t)off, "%s", io_msg(f->name, msg)) : 0;
}

/* Reads and parses the metadata of path into m. 0 or 1 (reported). */
static int load(const char *path, pq_file_meta *m)
{
    pq_err e = {.offset = -1};
    io_file_t *f = NULL;
    char msg[256];
    int rc = io_file_open(&f, path, msg, sizeof msg); /* a FIFO is refused, never waited on */
    if (rc) {
        pq_errf(&e, rc, -1, "%s", io_msg(path, msg));
        return report(path, &e);
    }
    uint64_t size = f->size_bytes;
    size_t tail_len = size < TAIL_BYTES ? (size_t)size : TAIL_BYTES;
    uint8_t *tail = malloc(tail_len ? tail_len : 1), *meta = NULL;
    uint64_t moff = 0;
    uint32_t mlen = 0;
    bool in_tail = false, located = false;
    rc = tail ? read_at(f, tail, tail_len, size - tail_len, &e) : -ENOMEM;
    if (!rc) rc = pq_footer_locate(tail, tail_len, size, 0, &moff, &mlen, &in_tail, &e);
    located = rc == 0;
    if (!rc && in_tail) {
        rc = pq_file_meta_parse(tail + (moff - (size - tail_len)), mlen, NULL, m, &e);
    } else if (!rc) {
        meta = malloc(mlen ? mlen : 1);
        rc = meta ? read_at(f, meta, mlen, moff, &e) : -ENOMEM;
        if (!rc) rc = pq_file_meta_parse(meta, mlen, NULL, m, &e);
    }
    if (rc && located && e.offset < 0 && rc != -ENOMEM && e.msg[0] && rc != RINGSCAN_EUNSUPPORTED)
        e.offset = (int64_t)moff; /* the metadata's start: the parser reports no file offset */
    free(tail);
    free(meta);
    io_file_close(f);
    return rc ? report(path, &e) : 0;
}

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

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A statistic as a readable value (a JSON value in both modes). */
static void put_value(const pq_column_desc *c, const uint8_t *p, uint32_t n)
{
    bool uns = c->logical >= PQ_LOGICAL_UINT8 && c->logical <= PQ_LOGICAL_UINT64;
    if (c->physical == PQ_BOOLEAN && n == 1) sink_printf(cli_out(), "%s", p[0] ? "true" : "false");
    else if (c->physical == PQ_INT32 && n == 4)
        uns ? sink_printf(cli_out(), "%" PRIu32, (uint32_t)le(p, 4)) : sink_printf(cli_out(), "%" PRId32, (int32_t)(uint32_t)le(p, 4));
    else if (c->physical == PQ_INT64 && n == 8)
        uns ? sink_printf(cli_out(), "%" PRIu64, le(p, 8)) : sink_printf(cli_out(), "%" PRId64, (int64_t)le(p, 8));
    else if ((c->physical == PQ_FLOAT && n == 4) || (c->physical == PQ_DOUBLE && n == 8)) {
        double d;
        if (n == 4) {
            uint32_t u = (uint32_t)le(p, 4);
            float f;
            memcpy(&f, &u, 4);
            d = f;
        } else {
            uint64_t u = le(p, 8);
            memcpy(&d, &u, 8);
        }
        if (d != d) sink_printf(cli_out(), "\"NaN\"");
        else sink_printf(cli_out(), "%.17g", d);
    } else if (c->physical == PQ_BYTE_ARRAY &&
               (c->logical == PQ_LOGICAL_STRING || c->logical == PQ_LOGICAL_ENUM || c->logical == PQ_LOGICAL_JSON ||
                c->logical == PQ_LOGICAL_NONE)) {
        put_str((const char *)p, n);
    } else {
        sink_printf(cli_out(), "\"0x");
        for (uint32_t i = 0; i < n; i++) sink_printf(cli_out(), "%02x", p[i]);
        sink_putc(cli_out(), '"');
    }
}

static void put_encodings(uint32_t mask)
{
    sink_putc(cli_out(), '[');
    for (int b = 0, first = 1; b < 32; b++)
        if (mask & (1u << b)) sink_printf(cli_out(), "%s\"%s\"", first ? "" : ", ", pq_encoding_name((pq_encoding)b)), first = 0;
    sink_putc(cli_out(), ']');
}

static void put_stats(const pq_column_desc *c, const pq_stats *s)
{
    sink_printf(cli_out(), "{\"usable\": %s", s->usable ? "true" : "false");
    if (s->has_min_max) {
        sink_printf(cli_out(), ", \"min\": ");
        put_value(c, s->min, s->min_len);
        sink_printf(cli_out(), ", \"max\": ");
        put_value(c, s->max, s->max_len);
        if (!s->min_exact || !s->max_exact) sink_printf(cli_out(), ", \"exact\": false");
    }
    if (s->has_null_count) sink_printf(cli_out(), ", \"null_count\": %" PRId64, s->null_count);
    if (s->has_distinct) sink_printf(cli_out(), ", \"distinct_count\": %" PRId64, s->distinct_count);
    if (s->has_nan_count) sink_printf(cli_out(), ", \"nan_count\": %" PRId64, s->nan_count);
    sink_putc(cli_out(), '}');
}

static void print_text(const char *path, const pq_file_meta *m)
{
    sink_printf(cli_out(), "file: %s\nrows: %" PRId64 "\ncreated_by: %s\ncolumn_orders: %s\n", path, m->num_rows,
           m->created_by ? m->created_by : "(none)",
           m->column_orders_known ? "known" : m->column_orders_present ? "unknown" : "absent");
    sink_printf(cli_out(), "schema (%d columns):\n", (int)m->ncolumns);
    for (int32_t i = 0; i < m->ncolumns; i++) {
        const pq_column_desc *c = &m->columns[i];
        sink_printf(cli_out(), "  %d %s %s", (int)i, c->name, pq_physical_name(c->physical));
        if (c->physical == PQ_FIXED_LEN_BYTE_ARRAY) sink_printf(cli_out(), "(%d)", (int)c->type_length);
        if (c->logical != PQ_LOGICAL_NONE) sink_printf(cli_out(), " %s", pq_logical_name(c->logical));
        if (c->logical == PQ_LOGICAL_DECIMAL) sink_printf(cli_out(), "(%d,%d)", (int)c->decimal_precision, (int)c->decimal_scale);
        sink_printf(cli_out(), " %s\n", c->repetition == PQ_REQUIRED ? "required" : "optional");
    }
    for (int32_t g = 0; g < m->nrow_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        sink_printf(cli_out(), "row group %d: rows %" PRId64 ", bytes %" PRId64 "\n", (int)g, rg->num_rows, rg->total_byte_size);
        for (int32_t i = 0; i < m->ncolumns; i++) {
            const pq_chunk_meta *ch = &rg->chunks[i];
            sink_printf(cli_out(), "  %s: %s, values %" PRId64 ", compressed %" PRId64 ", uncompressed %" PRId64 ", encodings ",
                   m->columns[i].name, pq_codec_name(ch->codec), ch->num_values, ch->total_compressed_size,
                   ch->total_uncompressed_size);
            put_encodings(ch->encodings_mask);
            sink_printf(cli_out(), ", stats ");
            put_stats(&m->columns[i], &ch->stats);
            sink_printf(cli_out(), "%s%s%s\n", ch->has_offset_index ? ", offset index" : "",
                   ch->has_column_index ? ", column index" : "", ch->has_bloom_filter ? ", bloom filter" : "");
        }
    }
    for (int32_t i = 0; i < m->nkv; i++) {
        sink_printf(cli_out(), "kv %s = ", m->kv[i].key);
        if (m->kv[i].value) put_str(m->kv[i].value, m->kv[i].value_len > 200 ? 200 : m->kv[i].value_len);
        else sink_printf(cli_out(), "null");
        sink_putc(cli_out(), '\n');
    }
}

static void print_chunk_json(const pq_column_desc *c, const pq_chunk_meta *ch)
{
    sink_printf(cli_out(), "{\"column\": ");
    put_str(c->name, strlen(c->name));
    sink_printf(cli_out(), ", \"codec\": \"%s\", \"encodings\": ", pq_codec_name(ch->codec));
    put_encodings(ch->encodings_mask);
    sink_printf(cli_out(), ", \"num_values\": %" PRId64 ", \"compressed_size\": %" PRId64 ", \"uncompressed_size\": %" PRId64
           ", \"data_page_offset\": %" PRId64,
           ch->num_values, ch->total_compressed_size, ch->total_uncompressed_size, ch->data_page_offset);
    if (ch->has_dictionary_page_offset) sink_printf(cli_out(), ", \"dictionary_page_offset\": %" PRId64, ch->dictionary_page_offset);
    sink_printf(cli_out(), ", \"statistics\": ");
    put_stats(c, &ch->stats);
    sink_printf(cli_out(), ", \"offset_index\": %s, \"column_index\": %s, \"bloom_filter\": %s}",
           ch->has_offset_index ? "true" : "false", ch->has_column_index ? "true" : "false",
           ch->has_bloom_filter ? "true" : "false");
}

static void print_json(const pq_file_meta *m)
{
    sink_printf(cli_out(), "{\"num_rows\": %" PRId64 ", \"created_by\": ", m->num_rows);
    if (m->created_by) put_str(m->created_by, strlen(m->created_by));
    else sink_printf(cli_out(), "null");
    sink_printf(cli_out(), ", \"column_orders_known\": %s, \"schema\": [", m->column_orders_known ? "true" : "false");
    for (int32_t i = 0; i < m->ncolumns; i++) {
        const pq_column_desc *c = &m->columns[i];
        sink_printf(cli_out(), "%s{\"name\": ", i ? ", " : "");
        put_str(c->name, strlen(c->name));
        sink_printf(cli_out(), ", \"physical\": \"%s\", \"logical\": \"%s\", \"repetition\": \"%s\"", pq_physical_name(c->physical),
               pq_logical_name(c->logical), c->repetition == PQ_REQUIRED ? "REQUIRED" : "OPTIONAL");
        if (c->physical == PQ_FIXED_LEN_BYTE_ARRAY) sink_printf(cli_out(), ", \"type_length\": %d", (int)c->type_length);
        if (c->logical == PQ_LOGICAL_DECIMAL)
            sink_printf(cli_out(), ", \"precision\": %d, \"scale\": %d", (int)c->decimal_precision, (int)c->decimal_scale);
        sink_putc(cli_out(), '}');
    }
    sink_printf(cli_out(), "], \"row_groups\": [");
    for (int32_t g = 0; g < m->nrow_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        sink_printf(cli_out(), "%s{\"num_rows\": %" PRId64 ", \"total_byte_size\": %" PRId64 ", \"columns\": [", g ? ", " : "",
               rg->num_rows, rg->total_byte_size);
        for (int32_t i = 0; i < m->ncolumns; i++) {
            if (i) sink_printf(cli_out(), ", ");
            print_chunk_json(&m->columns[i], &rg->chunks[i]);
        }
        sink_printf(cli_out(), "]}");
    }
    sink_printf(cli_out(), "], \"key_value_metadata\": {");
    for (int32_t i = 0; i < m->nkv; i++) {
        sink_printf(cli_out(), "%s", i ? ", " : "");
        put_str(m->kv[i].key, strlen(m->kv[i].key));
        sink_printf(cli_out(), ": ");
        if (m->kv[i].value) put_str(m->kv[i].value, m->kv[i].value_len);
        else sink_printf(cli_out(), "null");
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
    pq_file_meta m = {0};
    if (load(path, &m)) return 1;
    if (json) print_json(&m);
    else print_text(path, &m);
    pq_file_meta_free(&m);
    return 0; /* main() flushes cli_out() and turns a write error into status 1 */
}
