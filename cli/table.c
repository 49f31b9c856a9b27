/* cli/table.c: the table form of scan batches (`--format table`), for people.
 *
 * Rules:
 *  - A header line of the column names, then one line per row, cells joined by " | ".
 *  - A null is NULL; an empty string is an empty cell, so the two never look alike.
 *  - Text is escaped so one row is one line and nothing in it acts on the terminal: \n, \r,
 *    \t, \\, \xHH for other control bytes, and \uHHHH for C1 controls and U+2028 / U+2029.
 *  - Columns are aligned by display width (table_display_width: wide characters count 2):
 *    numbers (integers, floats, decimals) to the right, everything else to the left; the last
 *    column is not padded on the right.
 *  - The widths come from the header and the first TABLE_SAMPLE_ROWS rows (fewer when their
 *    text reaches TABLE_SAMPLE_BYTES or they are TABLE_SAMPLE_CELLS cells), held until then;
 *    later rows use those widths, and a longer cell only pushes the rest of its line.
 *
 * Invariants:
 *  1. Memory is bounded: the sample holds at most TABLE_SAMPLE_ROWS rows, about
 *     TABLE_SAMPLE_BYTES of text and TABLE_SAMPLE_CELLS cells (each plus one row); a cell is
 *     at most TABLE_CELL_MAX_BYTES of text; one that would be longer is cut at a character
 *     boundary at or below that and gets "..." after it.
 *  2. Output order is the batches' order; nothing is reordered by the sampling.
 *  3. Values other than strings and binary print as print_value's text (cli/print.c). */
#include "cli/table.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CELL_CAP = TABLE_CELL_MAX_BYTES + 8 }; /* room for the cut mark and an escape */

struct print_table {
    const print_col *cols;
    int n;
    size_t *width;  /* display width of each column: header and sample */
    bool streaming; /* the sample is out; widths are fixed */
    char *data;     /* the sample's cells, back to back */
    size_t len, cap;
    size_t *ends; /* end offset in data of each sampled cell, row-major */
    size_t ncells, cells_cap;
    char cell[CELL_CAP]; /* one rendered cell */
    size_t cell_len;
    cli_sink scratch; /* print_value's output for one short value (never flushed) */
};

/* ------------------------------------------------------------------------ widths */

/* A code point's columns (table.h table_display_width). */
static int cp_width(uint32_t cp)
{
    if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) ||
        (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe00 && cp <= 0xfe0f))
        return 0;
    if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) ||
        (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
        (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
        (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
        (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd))
        return 2;
    return 1;
}

size_t table_display_width(const char *s, size_t n)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        int len = p[i] < 0x80             ? 1
                  : (p[i] & 0xe0) == 0xc0 ? 2
                  : (p[i] & 0xf0) == 0xe0 ? 3
                  : (p[i] & 0xf8) == 0xf0 ? 4
                                          : 0;
        bool ok = len > 0 && i + (size_t)len <= n;
        for (int k = 1; ok && k < len; k++)
            ok = (p[i + k] & 0xc0) == 0x80;
        if (!ok) { /* an invalid byte: one column (the terminal's replacement character) */
            w++, i++;
            continue;
        }
        uint32_t cp = len == 1 ? p[i] : (uint32_t)(p[i] & (0x7f >> len));
        for (int k = 1; k < len; k++)
            cp = cp << 6 | (p[i + k] & 0x3f);
        w += (size_t)cp_width(cp);
        i += (size_t)len;
    }
    return w;
}

/* ------------------------------------------------------------------------ cells */

/* Appends n bytes to the cell; false (nothing appended) when they would pass the cap. */
static bool cell_put(print_table *t, const void *p, size_t n)
{
    if (t->cell_len + n > TABLE_CELL_MAX_BYTES) return false;
    memcpy(t->cell + t->cell_len, p, n);
    t->cell_len += n;
    return true;
}

/* Ends a cut cell: back to a character boundary, then "...". */
static void cell_cut(print_table *t)
{
    size_t start = t->cell_len, k = 0; /* the last character: its lead byte, its length */
    while (start > 0 && k < 3 && ((uint8_t)t->cell[start - 1] & 0xc0) == 0x80) start--, k++;
    if (start > 0 && (uint8_t)t->cell[start - 1] >= 0xc0) {
        uint8_t lead = (uint8_t)t->cell[start - 1];
        size_t need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : 1; /* continuation bytes */
        if (k < need) t->cell_len = start - 1;                 /* cut inside it: drop it */
    }
    assert(t->cell_len + 3 <= CELL_CAP);
    memcpy(t->cell + t->cell_len, "...", 3);
    t->cell_len += 3;
}

/* The length of a character at p[0, n) that a terminal may act on: a C1 control (U+0080 to
 * U+009F, whose U+009B starts an escape sequence) or the line and paragraph separators
 * (U+2028, U+2029); 0 for any other. Its code point into *cp. */
static size_t unsafe_char(const uint8_t *p, size_t n, unsigned *cp)
{
    if (n >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) return *cp = p[1], 2;
    if (n >= 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
        return *cp = 0x2000u | (p[2] - 0x80u), 3;
    return 0;
}

/* Text bytes into the cell, escaped (see the rules above), cut at the cap. */
static void cell_text(print_table *t, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        char esc[8] = {'\\', 0, 0, 0};
        size_t k = 2, m;
        unsigned cp;
        if ((m = unsafe_char(p + i, n - i, &cp)) > 0)
            k = (size_t)snprintf(esc, sizeof esc, "\\u%04x", cp), i += m - 1;
        else if (c == '\n')
            esc[1] = 'n';
        else if (c == '\r')
            esc[1] = 'r';
        else if (c == '\t')
            esc[1] = 't';
        else if (c == '\\')
            esc[1] = '\\';
        else if (c < 0x20 || c == 0x7f)
            esc[1] = 'x', esc[2] = hex[c >> 4], esc[3] = hex[c & 15], k = 4;
        else
            esc[0] = (char)c, k = 1;
        if (!cell_put(t, esc, k)) {
            cell_cut(t);
            return;
        }
    }
}

/* Copies what print_value left in the scratch sink into the cell (cut at the cap). */
static void cell_from_scratch(print_table *t)
{
    cell_text(t, (const uint8_t *)t->scratch.buf, t->scratch.len);
    t->scratch.len = 0;
    t->scratch.err = 0; /* a long nested value's JSON filled it: the cell holds its head */
}

/* Renders row `row` of column i into t->cell. */
static void render(print_table *t, int i, const struct ArrowArray *a, int64_t row)
{
    const print_col *c = &t->cols[i];
    t->cell_len = 0;
    if (print_is_null(a, row)) {
        cell_put(t, "NULL", 4);
        return;
    }
    if (c->kind == PK_STRING || c->kind == PK_BINARY || c->kind == PK_FIXED) {
        const uint8_t *p;
        int64_t n = print_value_bytes(c, a, row, &p);
        if (c->kind == PK_STRING) {
            cell_text(t, p, (size_t)n);
            return;
        }
        int64_t keep = n > TABLE_CELL_MAX_BYTES / 4 * 3 ? TABLE_CELL_MAX_BYTES / 4 * 3 - 3 : n;
        print_base64(&t->scratch, p, keep, false);
        cell_from_scratch(t);
        if (keep < n) cell_cut(t);
        return;
    }
    print_value(&t->scratch, c, a, row, false); /* a number, date, time: short */
    if (c->kind == PK_FLOAT && t->scratch.len > 2 && t->scratch.buf[0] == '"') {
        t->scratch.len -= 2; /* NaN, Infinity: print_float's JSON quotes are not for people */
        memmove(t->scratch.buf, t->scratch.buf + 1, t->scratch.len);
    }
    cell_from_scratch(t);
}

/* ------------------------------------------------------------------------ lines */

static bool right_aligned(const print_col *c)
{
    return c->kind == PK_INT || c->kind == PK_UINT || c->kind == PK_FLOAT || c->kind == PK_DECIMAL;
}

static void put_spaces(cli_sink *out, size_t n)
{
    static const char sp[] = "                                ";
    for (; n > 0; n -= n < 32 ? n : 32)
        sink_write(out, sp, n < 32 ? n : 32);
}

/* Column i's text s[0 .. n), padded to its width. */
static void put_cell(print_table *t, cli_sink *out, int i, const char *s, size_t n)
{
    size_t w = table_display_width(s, n), pad = w < t->width[i] ? t->width[i] - w : 0;
    if (i) sink_puts(out, " | ");
    if (right_aligned(&t->cols[i])) put_spaces(out, pad);
    sink_write(out, s, n);
    if (!right_aligned(&t->cols[i]) && i + 1 < t->n) put_spaces(out, pad);
}

static void put_header(print_table *t, cli_sink *out)
{
    for (int i = 0; i < t->n; i++) {
        t->cell_len = 0;
        cell_text(t, (const uint8_t *)t->cols[i].name, strlen(t->cols[i].name));
        put_cell(t, out, i, t->cell, t->cell_len);
    }
    sink_putc(out, '\n');
}

/* Prints the header and the held rows, then streams. */
static int flush_sample(print_table *t, cli_sink *out)
{
    put_header(t, out);
    size_t start = 0;
    for (size_t k = 0; k < t->ncells; k++) {
        int i = (int)(k % (size_t)t->n);
        put_cell(t, out, i, t->data + start, t->ends[k] - start);
        start = t->ends[k];
        if (i + 1 == t->n && sink_putc(out, '\n')) break;
    }
    t->streaming = true;
    t->len = t->ncells = 0;
    return out->err;
}

/* Holds the cell just rendered as sample cell (row-major); -ENOMEM when it cannot. */
static int hold_cell(print_table *t, int i)
{
    /* allocated at the first cell, empty or not: an empty first cell (an empty string) was
     * copied to NULL + 0 (memcpy's nonnull argument: a UBSan trap, SIGILL in ReleaseSafe) */
    if (!t->data || t->len + t->cell_len > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64 * 1024;
        while (cap < t->len + t->cell_len)
            cap *= 2;
        char *d = realloc(t->data, cap);
        if (!d) return -ENOMEM;
        t->data = d, t->cap = cap;
    }
    if (t->ncells == t->cells_cap) {
        size_t cap = t->cells_cap ? 2 * t->cells_cap : 1024;
        size_t *e = realloc(t->ends, cap * sizeof *e);
        if (!e) return -ENOMEM;
        t->ends = e, t->cells_cap = cap;
    }
    memcpy(t->data + t->len, t->cell, t->cell_len);
    t->len += t->cell_len;
    t->ends[t->ncells++] = t->len;
    size_t w = table_display_width(t->cell, t->cell_len);
    if (w > t->width[i]) t->width[i] = w;
    return 0;
}

/* ------------------------------------------------------------------------ API */

print_table *table_new(const print_col *cols, int n)
{
    assert(n >= 0);
    print_table *t = calloc(1, sizeof *t);
    if (!t || !(t->width = calloc((size_t)n + 1, sizeof *t->width))) {
        free(t);
        return NULL;
    }
    t->cols = cols;
    t->n = n;
    t->scratch.fd = -1; /* a memory sink (sink.h): a nested value's JSON may fill it */
    t->scratch.name = "table cell";
    for (int i = 0; i < n; i++) {
        t->cell_len = 0;
        cell_text(t, (const uint8_t *)cols[i].name, strlen(cols[i].name));
        t->width[i] = table_display_width(t->cell, t->cell_len);
    }
    return t;
}

int table_add(print_table *t, cli_sink *out, const struct ArrowArray *batch)
{
    assert(batch->n_children == t->n);
    for (int64_t r = 0; r < batch->length; r++) {
        for (int i = 0; i < t->n; i++) {
            render(t, i, batch->children[i], r);
            if (t->streaming)
                put_cell(t, out, i, t->cell, t->cell_len);
            else if (hold_cell(t, i))
                return -ENOMEM;
        }
        if (t->streaming && sink_putc(out, '\n')) return out->err;
        if (!t->streaming && (t->ncells / (size_t)(t->n ? t->n : 1) >= TABLE_SAMPLE_ROWS ||
                              t->len >= TABLE_SAMPLE_BYTES || t->ncells >= TABLE_SAMPLE_CELLS)) {
            int rc = flush_sample(t, out);
            if (rc) return rc;
        }
    }
    return out->err;
}

int table_end(print_table *t, cli_sink *out)
{
    return t->streaming ? out->err : flush_sample(t, out);
}

void table_free(print_table *t)
{
    if (!t) return;
    free(t->width);
    free(t->data);
    free(t->ends);
    free(t);
}
