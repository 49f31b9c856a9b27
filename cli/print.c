/* cli/print.c: text forms of decoded values for `ringscan scan --format jsonl|csv|table`.
 *
 * The jsonl rules (shared with tests/conformance/gen_expected.py, which writes pyarrow's
 * answers in the same form): integers exact; floats as the shortest text that reads back to
 * the same value (Python's repr layout: fixed notation for exponents -4..15, else d.ddde+XX;
 * integral values end in ".0"), NaN and infinities as the strings "NaN", "Infinity",
 * "-Infinity"; strings as JSON strings; other binary and non-decimal fixed-length values as
 * base64; decimals as exact decimal strings; dates "YYYY-MM-DD"; times and timestamps ISO-8601
 * with the unit's fraction digits (3, 6, 9), "Z" when UTC-adjusted; null as null.
 *
 * Everything is written to a cli_sink (cli/sink.h), whose write error is sticky: the
 * printers append without checking each byte, and print_rows reports the error per row. */
#include "cli/print.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ numbers */

/* Float to IEEE half bits, round to nearest even (for the float16 round-trip test). */
static uint16_t float_to_half(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    uint16_t sign = (uint16_t)((b >> 16) & 0x8000);
    uint32_t ex = (b >> 23) & 0xff, m = b & 0x7fffff;
    if (ex == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    int e = (int)ex - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return sign;
        m |= 0x800000;
        int shift = 14 - e;
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

/* Shortest %.*e digits of d that read back as d in the value's own type: width 2 (float16),
 * 4 (float32) or 8 (float64). */
static int shortest_digits(double d, int width, char *buf, size_t n)
{
    for (int prec = 0; prec < 17; prec++) {
        snprintf(buf, n, "%.*e", prec, d);
        bool same = width == 8   ? strtod(buf, NULL) == d
                    : width == 4 ? strtof(buf, NULL) == (float)d
                                 : float_to_half(strtof(buf, NULL)) == float_to_half((float)d);
        if (same) return prec;
    }
    snprintf(buf, n, "%.16e", d);
    return 16;
}

void print_float(cli_sink *f, double d, int width)
{
    if (isnan(d)) { sink_puts(f, "\"NaN\""); return; }
    if (isinf(d)) { sink_puts(f, d > 0 ? "\"Infinity\"" : "\"-Infinity\""); return; }
    char e[40];
    shortest_digits(d, width, e, sizeof e);
    char *ep = strchr(e, 'e');
    int exp10 = atoi(ep + 1);
    char digits[40];
    int nd = 0;
    for (char *p = e; p < ep; p++)
        if (*p >= '0' && *p <= '9') digits[nd++] = *p;
    digits[nd] = 0;
    if (e[0] == '-') sink_putc(f, '-');
    if (exp10 < -4 || exp10 >= 16) {
        sink_printf(f, "%c%s%se%c%02d", digits[0], nd > 1 ? "." : "", digits + 1,
                exp10 < 0 ? '-' : '+', abs(exp10));
        return;
    }
    if (exp10 < 0) {
        sink_puts(f, "0.");
        for (int i = -1; i > exp10; i--) sink_putc(f, '0');
        sink_puts(f, digits);
        return;
    }
    for (int i = 0; i <= exp10; i++) sink_putc(f, i < nd ? digits[i] : '0');
    sink_putc(f, '.');
    if (nd > exp10 + 1) sink_puts(f, digits + exp10 + 1);
    else sink_putc(f, '0');
}

static float half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, ex = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (ex == 0) v = ldexpf((float)m, -24);
    else if (ex == 31) v = m ? NAN : INFINITY;
    else v = ldexpf((float)(m | 0x400), (int)ex - 25);
    return s ? -v : v;
}

/* Writes an unscaled 128-bit integer with scale digits after the point. */
static void print_decimal(cli_sink *f, __int128 v, int32_t scale)
{
    char buf[64];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    do {
        buf[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale) buf[n++] = '0';
    if (neg) sink_putc(f, '-');
    for (int i = n - 1; i >= 0; i--) {
        sink_putc(f, buf[i]);
        if (i == scale && scale > 0) sink_putc(f, '.');
    }
}

/* Big-endian two's complement bytes (at most 16) to a signed 128-bit integer. */
static bool be_to_i128(const uint8_t *p, int32_t n, __int128 *out)
{
    if (n <= 0) { *out = 0; return n == 0; }
    int32_t skip = 0;
    uint8_t sign = (p[0] & 0x80) ? 0xff : 0;
    while (n - skip > 16 && p[skip] == sign) skip++;
    if (n - skip > 16) return false;
    unsigned __int128 u = sign ? ~(unsigned __int128)0 : 0;
    for (int32_t i = skip; i < n; i++) u = (u << 8) | p[i];
    *out = (__int128)u;
    return true;
}

/* -------------------------------------------------------------------- dates and times */

/* Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm). */
static void civil(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static void print_date(cli_sink *f, int64_t days)
{
    int64_t y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    sink_printf(f, "%04" PRId64 "-%02u-%02u", y, m, d);
}

/* Time of day from units since midnight; digits = 3, 6 or 9. */
static void print_tod(cli_sink *f, int64_t v, int digits)
{
    int64_t per_sec = digits == 3 ? 1000 : digits == 6 ? 1000000 : 1000000000;
    int64_t secs = v / per_sec, frac = v % per_sec;
    sink_printf(f, "%02" PRId64 ":%02" PRId64 ":%02" PRId64 ".%0*" PRId64, secs / 3600,
            secs / 60 % 60, secs % 60, digits, frac);
}

static void print_timestamp(cli_sink *f, int64_t v, int digits, bool utc)
{
    int64_t per_sec = digits == 3 ? 1000 : digits == 6 ? 1000000 : 1000000000;
    int64_t per_day = per_sec * 86400;
    int64_t days = v / per_day, rem = v % per_day;
    if (rem < 0) {
        rem += per_day;
        days--;
    }
    print_date(f, days);
    sink_putc(f, 'T');
    print_tod(f, rem, digits);
    if (utc) sink_putc(f, 'Z');
}

/* --------------------------------------------------------------------------- strings */

static void print_json_string(cli_sink *f, const uint8_t *p, int64_t n)
{
    sink_putc(f, '"');
    for (int64_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') sink_printf(f, "\\%c", c);
        else if (c == '\n') sink_puts(f, "\\n");
        else if (c == '\r') sink_puts(f, "\\r");
        else if (c == '\t') sink_puts(f, "\\t");
        else if (c == '\b') sink_puts(f, "\\b");
        else if (c == '\f') sink_puts(f, "\\f");
        else if (c < 0x20) sink_printf(f, "\\u%04x", c);
        else sink_putc(f, c);
    }
    sink_putc(f, '"');
}

static void print_base64(cli_sink *f, const uint8_t *p, int64_t n, bool quoted)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (quoted) sink_putc(f, '"');
    for (int64_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        sink_putc(f, tbl[v >> 18]);
        sink_putc(f, tbl[(v >> 12) & 63]);
        sink_putc(f, i + 1 < n ? tbl[(v >> 6) & 63] : '=');
        sink_putc(f, i + 2 < n ? tbl[v & 63] : '=');
    }
    if (quoted) sink_putc(f, '"');
}

static bool is_text(const pq_column_desc *c)
{
    return c->logical == PQ_LOGICAL_STRING || c->logical == PQ_LOGICAL_ENUM ||
           c->logical == PQ_LOGICAL_JSON;
}

/* ------------------------------------------------------------------------- dispatch */

static void print_bytes(cli_sink *f, const pq_column_desc *c, const uint8_t *p, int64_t n, bool json)
{
    if (c->logical == PQ_LOGICAL_DECIMAL) {
        __int128 v;
        if (be_to_i128(p, (int32_t)n, &v)) {
            if (json) sink_putc(f, '"');
            print_decimal(f, v, c->decimal_scale);
            if (json) sink_putc(f, '"');
            return;
        }
    }
    if (c->logical == PQ_LOGICAL_FLOAT16 && n == 2) {
        print_float(f, half_to_float((uint16_t)(p[0] | p[1] << 8)), 2);
        return;
    }
    if (is_text(c)) {
        if (json) print_json_string(f, p, n);
        else sink_write(f, p, (size_t)n);
        return;
    }
    print_base64(f, p, n, json);
}

static void print_int(cli_sink *f, const pq_column_desc *c, int64_t v, bool json)
{
    switch (c->logical) {
    case PQ_LOGICAL_DECIMAL:
        if (json) sink_putc(f, '"');
        print_decimal(f, v, c->decimal_scale);
        if (json) sink_putc(f, '"');
        return;
    case PQ_LOGICAL_DATE: break;
    case PQ_LOGICAL_TIME_MILLIS: case PQ_LOGICAL_TIME_MICROS: case PQ_LOGICAL_TIME_NANOS:
    case PQ_LOGICAL_TIMESTAMP_MILLIS: case PQ_LOGICAL_TIMESTAMP_MICROS:
    case PQ_LOGICAL_TIMESTAMP_NANOS: break;
    case PQ_LOGICAL_UINT32: sink_printf(f, "%" PRIu32, (uint32_t)v); return;
    case PQ_LOGICAL_UINT64: sink_printf(f, "%" PRIu64, (uint64_t)v); return;
    case PQ_LOGICAL_UINT8: sink_printf(f, "%u", (unsigned)(uint8_t)v); return;
    case PQ_LOGICAL_UINT16: sink_printf(f, "%u", (unsigned)(uint16_t)v); return;
    default: sink_printf(f, "%" PRId64, v); return;
    }
    if (json) sink_putc(f, '"');
    switch (c->logical) {
    case PQ_LOGICAL_DATE: print_date(f, v); break;
    case PQ_LOGICAL_TIME_MILLIS: print_tod(f, v, 3); break;
    case PQ_LOGICAL_TIME_MICROS: print_tod(f, v, 6); break;
    case PQ_LOGICAL_TIME_NANOS: print_tod(f, v, 9); break;
    case PQ_LOGICAL_TIMESTAMP_MILLIS: print_timestamp(f, v, 3, c->is_adjusted_to_utc); break;
    case PQ_LOGICAL_TIMESTAMP_MICROS: print_timestamp(f, v, 6, c->is_adjusted_to_utc); break;
    default: print_timestamp(f, v, 9, c->is_adjusted_to_utc); break;
    }
    if (json) sink_putc(f, '"');
}

/* INT96: 8 bytes nanoseconds of day then 4 bytes Julian day (unsigned), little-endian. */
static void print_int96(cli_sink *f, const uint8_t *p, bool json)
{
    int64_t nanos;
    uint32_t jd; /* unsigned, as Arrow reads it */
    memcpy(&nanos, p, 8);
    memcpy(&jd, p + 8, 4);
    /* pyarrow's arithmetic: wrapping int64 (year 9999 wraps to 1816) */
    uint64_t ns = (uint64_t)((int64_t)jd - 2440588) * UINT64_C(86400000000000) + (uint64_t)nanos;
    if (json) sink_putc(f, '"');
    print_timestamp(f, (int64_t)ns, 9, false);
    if (json) sink_putc(f, '"');
}

void print_value(cli_sink *f, const pq_column_desc *c, const pq_vec *v, int64_t row, bool json)
{
    assert(row >= 0 && row < v->length);
    if (!pq_vec_is_valid(v, row)) {
        sink_puts(f, json ? "null" : "");
        return;
    }
    const uint8_t *p = v->values;
    switch (v->type) {
    case PQ_BOOLEAN: sink_puts(f, pq_bit_get(p, row) ? "true" : "false"); return;
    case PQ_INT32: { int32_t x; memcpy(&x, p + row * 4, 4); print_int(f, c, x, json); return; }
    case PQ_INT64: { int64_t x; memcpy(&x, p + row * 8, 8); print_int(f, c, x, json); return; }
    case PQ_INT96: print_int96(f, p + row * 12, json); return;
    case PQ_FLOAT: { float x; memcpy(&x, p + row * 4, 4); print_float(f, x, 4); return; }
    case PQ_DOUBLE: { double x; memcpy(&x, p + row * 8, 8); print_float(f, x, 8); return; }
    case PQ_FIXED_LEN_BYTE_ARRAY:
        print_bytes(f, c, p + row * v->type_length, v->type_length, json);
        return;
    case PQ_BYTE_ARRAY: {
        int64_t n = v->offsets[row + 1] - v->offsets[row];
        /* an all-empty batch may have data == NULL: form no NULL + 0 */
        print_bytes(f, c, n ? v->data + v->offsets[row] : NULL, n, json);
        return;
    }
    }
}

int print_rows(cli_sink *f, print_format fmt, const pq_column_desc *const *cols, const pq_vec *vecs,
                int ncols, int64_t nrows)
{
    for (int64_t r = 0; r < nrows; r++) {
        if (fmt == PRINT_JSONL) sink_putc(f, '{');
        for (int i = 0; i < ncols; i++) {
            if (i) sink_puts(f, fmt == PRINT_TABLE ? " | " : ",");
            if (fmt == PRINT_JSONL) {
                print_json_string(f, (const uint8_t *)cols[i]->name, (int64_t)strlen(cols[i]->name));
                sink_putc(f, ':');
            }
            print_value(f, cols[i], &vecs[i], r, fmt == PRINT_JSONL);
        }
        if (sink_puts(f, fmt == PRINT_JSONL ? "}\n" : "\n")) break; /* sticky: stop early */
    }
    return f->err;
}
