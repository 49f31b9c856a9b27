/* cli/print.c: text forms of scan batches (the Arrow arrays of ringscan.h) for `ringscan scan
 * --format jsonl|csv` and the values the table (cli/table.c) lays out. Each column's kind
 * comes from its Arrow format (print_col_init); the Parquet types behind it (INT96 as
 * timestamp[ns], decimals as decimal128, INT8/INT16 and their unsigned forms narrowed) are the library's conversions (scan/arrow.c).
 *
 * The jsonl rules (shared with tests/conformance/gen_expected.py, which writes pyarrow's
 * answers in the same form): integers exact; floats as the shortest text that reads back to
 * the same value (Python's repr layout: fixed notation for exponents -4..15, else d.ddde+XX;
 * integral values end in ".0"), NaN and infinities as the strings "NaN", "Infinity",
 * "-Infinity"; strings as JSON strings; an INTERVAL as DuckDB prints it ("1 month 2 days
 * 00:00:00.003"); other binary and non-decimal fixed-length values as base64; decimals as
 * exact decimal strings; dates "YYYY-MM-DD"; times and timestamps ISO-8601 with the unit's
 * fraction digits (3, 6, 9), "Z" when UTC-adjusted (any zone); durations as their integer
 * count of the unit; dictionary arrays as their values; null as null.
 *
 * CSV (RFC 4180, read back by pyarrow.csv and DuckDB in tests/cli/csv_rfc4180.sh): the values'
 * text as in jsonl without JSON quoting; a header line of the column names; a field holding a
 * comma, quote, CR or LF, or starting or ending with a space or tab, is quoted with its inner
 * quotes doubled; a null is an empty unquoted field and an empty string is "". Lines end in LF
 * (which both readers accept, as RFC 4180's CRLF). NaN and the infinities are quoted as in
 * jsonl, which a CSV reader takes as the text NaN, Infinity, -Infinity.
 *
 * Everything is written to a cli_sink (cli/sink.h), whose write error is sticky: the
 * printers append without checking each byte, and print_rows reports the error per row. */
#include "cli/print.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Writes an unscaled integer of w little-endian two's complement bytes (w <= 32) with scale
 * digits after the point. */
static void print_decimal(cli_sink *f, const uint8_t *le, int w, int32_t scale)
{
    uint64_t limb[4] = {0}; /* the magnitude, little-endian 64-bit limbs */
    bool neg = (le[w - 1] & 0x80) != 0;
    for (int i = 0; i < 32; i++) {
        uint8_t b = i < w ? le[i] : neg ? 0xff : 0;
        limb[i / 8] |= (uint64_t)b << (8 * (i % 8));
    }
    if (neg) { /* two's complement negated: inverted, plus one */
        unsigned carry = 1;
        for (int k = 0; k < 4; k++) {
            limb[k] = ~limb[k] + carry;
            carry = carry && limb[k] == 0;
        }
    }
    char buf[160]; /* 78 digits of 2^256, and the zeros a scale up to 76 adds */
    int n = 0;
    do { /* divided by 10 limb by limb, most significant first */
        unsigned __int128 rem = 0;
        for (int k = 3; k >= 0; k--) {
            unsigned __int128 cur = rem << 64 | limb[k];
            limb[k] = (uint64_t)(cur / 10);
            rem = cur % 10;
        }
        buf[n++] = (char)('0' + (int)rem);
    } while ((limb[0] | limb[1] | limb[2] | limb[3]) && n < (int)sizeof buf);
    while (n <= scale && n < (int)sizeof buf) buf[n++] = '0';
    if (neg) sink_putc(f, '-');
    for (int i = n - 1; i >= 0; i--) {
        sink_putc(f, buf[i]);
        if (i == scale && scale > 0) sink_putc(f, '.');
    }
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

/* The length of the well-formed UTF-8 sequence starting p[0] (of n > 0 bytes, p[0] >= 0x80):
 * 2 to 4 (Unicode's table 3-7: no overlong form, surrogate or code point past U+10FFFF), or 0. */
static int utf8_seq(const uint8_t *p, int64_t n)
{
    uint8_t c = p[0], lo = 0x80, hi = 0xbf;
    int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (len == 0 || n < len || p[1] < lo || p[1] > hi) return 0;
    for (int k = 2; k < len; k++)
        if ((p[k] & 0xc0) != 0x80) return 0;
    return len;
}

void print_json_str(cli_sink *f, const uint8_t *p, int64_t n)
{
    sink_putc(f, '"');
    for (int64_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        int len = c >= 0x80 ? utf8_seq(p + i, n - i) : 1;
        if (len == 0) sink_puts(f, "\\ufffd");
        else if (len > 1) sink_write(f, p + i, (size_t)len), i += len - 1;
        else if (c == '"' || c == '\\') sink_printf(f, "\\%c", c);
        else if (c == '\n') sink_puts(f, "\\n");
        else if (c == '\r') sink_puts(f, "\\r");
        else if (c == '\t') sink_puts(f, "\\t");
        else if (c == '\b') sink_puts(f, "\\b");
        else if (c == '\f') sink_puts(f, "\\f");
        else if (c < 0x20 || c == 0x7f) sink_printf(f, "\\u%04x", c);
        else sink_putc(f, c);
    }
    sink_putc(f, '"');
}

/* A CSV field per RFC 4180: quoted when it holds a comma, a quote, CR or LF, starts or ends
 * with a space or tab, or is empty (so an empty string reads back as "" and never as the
 * empty unquoted field of a null); inner quotes doubled. */
static void print_csv_field(cli_sink *f, const uint8_t *p, int64_t n)
{
    bool quote = n == 0 || p[0] == ' ' || p[0] == '\t' || p[n - 1] == ' ' || p[n - 1] == '\t';
    for (int64_t i = 0; i < n && !quote; i++)
        quote = p[i] == ',' || p[i] == '"' || p[i] == '\r' || p[i] == '\n';
    if (!quote) {
        sink_write(f, p, (size_t)n);
        return;
    }
    if (n == 0) { /* p may be NULL: no pointer arithmetic on it */
        sink_puts(f, "\"\"");
        return;
    }
    sink_putc(f, '"');
    for (int64_t i = 0, run = 0; i <= n; i++) { /* runs up to each quote, written at once */
        if (i < n && p[i] != '"') continue;
        sink_write(f, p + run, (size_t)(i - run));
        if (i < n) sink_puts(f, "\"\"");
        run = i + 1;
    }
    sink_putc(f, '"');
}

void print_base64(cli_sink *f, const uint8_t *p, int64_t n, bool quoted)
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

/* ------------------------------------------------------------------------- columns */

/* True when s's metadata holds key with value val (ringscan.h ringscan_scan_schema: an INT96
 * leaf scanned with int96_raw carries "ringscan:int96" = "raw", so a nested field's INT96
 * leaves print as the columns do; a UUID "ARROW:extension:name" = "arrow.uuid"). */
static bool md_is(const struct ArrowSchema *s, const char *key, const char *val)
{
    const char *md = s->metadata;
    int32_t n = 0, kl, vl;
    if (md) memcpy(&n, md, 4), md += 4;
    for (int32_t i = 0; i < n; i++) { /* key then value, each a length and its bytes */
        memcpy(&kl, md, 4);
        memcpy(&vl, md + 4 + kl, 4);
        if (kl == (int32_t)strlen(key) && memcmp(md + 4, key, (size_t)kl) == 0)
            return vl == (int32_t)strlen(val) && memcmp(md + 8 + kl, val, (size_t)vl) == 0;
        md += 8 + kl + vl;
    }
    return false;
}

/* The Arrow formats ringscan_scan_schema produces (scan/arrow.c) and their printing kind. */
int print_col_init(print_col *c, const struct ArrowSchema *s, bool int96)
{
    int96 = int96 || md_is(s, "ringscan:int96", "raw");
    if (s->dictionary) { /* integer indices, printed as their values */
        static const char idx[] = "csilCSIL";
        const char *at = s->format[0] && !s->format[1] ? strchr(idx, s->format[0]) : NULL;
        if (!at || s->dictionary->dictionary) return -EINVAL;
        int rc = print_col_init(c, s->dictionary, int96);
        c->name = s->name ? s->name : "";
        c->index_width = 1 << ((at - idx) % 4), c->index_signed = at - idx < 4;
        return rc;
    }
    const char *f = s->format;
    int a = 0, b = 0, w = 128;
    char form = strcmp(f, "+l") == 0 ? 'l' : strcmp(f, "+L") == 0 ? 'L' : strcmp(f, "+vl") == 0 ? 'v'
              : strcmp(f, "+vL") == 0 ? 'V' : sscanf(f, "+w:%d", &a) == 1 && a >= 0 ? 'w' : 0;
    bool nested = form || strcmp(f, "+s") == 0 || strcmp(f, "+m") == 0;
    if (nested) { /* every value inside must be printable: checked once here */
        *c = (print_col){.name = s->name ? s->name : "", .schema = s, .list_form = form,
                         .width = form == 'w' ? a : 0,
                         .kind = form ? PK_LIST : f[1] == 's' ? PK_STRUCT : PK_MAP};
        if ((c->kind != PK_STRUCT && s->n_children != 1) ||
            (c->kind == PK_MAP && s->children[0]->n_children != 2))
            return -EINVAL;
        for (int64_t i = 0; i < s->n_children; i++) {
            print_col child;
            if (print_col_init(&child, s->children[i], false)) return -EINVAL;
        }
        return 0;
    }
    *c = (print_col){.name = s->name ? s->name : ""};
    if (int96) {
        c->kind = PK_INT96;
        c->width = 12;
        return strcmp(f, "w:12") == 0 ? 0 : -EINVAL;
    }
    static const struct { const char *fmt; print_kind kind; int width; } fixed[] = {
        {"b", PK_BOOL, 0},     {"c", PK_INT, 1},      {"s", PK_INT, 2},     {"i", PK_INT, 4},
        {"l", PK_INT, 8},      {"C", PK_UINT, 1},     {"S", PK_UINT, 2},    {"I", PK_UINT, 4},
        {"L", PK_UINT, 8},     {"f", PK_FLOAT, 4},    {"g", PK_FLOAT, 8},   {"e", PK_FLOAT, 2},
        {"u", PK_STRING, 0},   {"z", PK_BINARY, 0},   {"U", PK_STRING, 8},  {"Z", PK_BINARY, 8},
        {"vu", PK_STRING, 16}, {"vz", PK_BINARY, 16}, {"n", PK_NULL, 0},
        {"tdD", PK_DATE, 4},   {"ttm", PK_TIME, 4},
        {"tDs", PK_INT, 8},    {"tDm", PK_INT, 8},    {"tDu", PK_INT, 8},   {"tDn", PK_INT, 8},
        {"ttu", PK_TIME, 8},   {"ttn", PK_TIME, 8},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(f, fixed[i].fmt) == 0) {
            c->kind = fixed[i].kind;
            c->width = fixed[i].width;
            if (c->kind == PK_STRING || c->kind == PK_BINARY)
                c->large = c->width == 8, c->view = c->width == 16, c->width = 0;
            if (c->kind == PK_TIME) c->digits = f[2] == 'm' ? 3 : f[2] == 'u' ? 6 : 9;
            return 0;
        }
    if (f[0] == 't' && f[1] == 's' && f[2] && strchr("mun", f[2]) && f[3] == ':') {
        *c = (print_col){.name = c->name, .kind = PK_TIMESTAMP, .width = 8,
                         .digits = f[2] == 'm' ? 3 : f[2] == 'u' ? 6 : 9, .utc = f[4] != '\0'};
        return 0;
    }
    if (sscanf(f, "d:%d,%d,%d", &a, &b, &w) >= 2 && (w == 32 || w == 64 || w == 128 || w == 256)) {
        *c = (print_col){.name = c->name, .kind = PK_DECIMAL, .width = w / 8, .scale = b};
        return 0;
    }
    if (sscanf(f, "w:%d", &a) == 1 && a > 0) { /* a UUID as DuckDB and pyarrow's str print it */
        bool uuid = a == 16 && md_is(s, "ARROW:extension:name", "arrow.uuid");
        bool interval = a == 12 && md_is(s, "ringscan:logical", "interval");
        *c = (print_col){.name = c->name, .width = a,
                         .kind = uuid ? PK_UUID : interval ? PK_INTERVAL : PK_FIXED};
        return 0;
    }
    return -EINVAL;
}

/* ------------------------------------------------------------------------- dispatch */

static int64_t load_int(const uint8_t *p, int width, bool is_signed)
{
    switch (width) {
    case 1: return is_signed ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
    case 2: { uint16_t x; memcpy(&x, p, 2); return is_signed ? (int64_t)(int16_t)x : (int64_t)x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return is_signed ? (int64_t)(int32_t)x : (int64_t)x; }
    default: { int64_t x; memcpy(&x, p, 8); return x; }
    }
}

static void print_quoted_decimal(cli_sink *f, const uint8_t *le, int w, int32_t scale, bool json)
{
    if (json) sink_putc(f, '"');
    print_decimal(f, le, w, scale);
    if (json) sink_putc(f, '"');
}

/* A TIME value within a day, up to 24:00:00 exactly (DuckDB reads that one; a broken file's
 * other values, which DuckDB refuses, print as pyarrow casts them to text:
 * "<value out of range: -1>"). */
static bool time_in_day(int64_t v, int digits)
{
    int64_t per_sec = digits == 3 ? 1000 : digits == 6 ? 1000000 : 1000000000;
    return v >= 0 && v <= per_sec * 86400;
}

/* Dates, times and timestamps: JSON-quoted in jsonl. */
static void print_temporal(cli_sink *f, const print_col *c, int64_t v, bool json)
{
    if (json) sink_putc(f, '"');
    if (c->kind == PK_DATE) print_date(f, v);
    else if (c->kind == PK_TIME && time_in_day(v, c->digits)) print_tod(f, v, c->digits);
    else if (c->kind == PK_TIME) sink_printf(f, "<value out of range: %" PRId64 ">", v);
    else print_timestamp(f, v, c->digits, c->utc);
    if (json) sink_putc(f, '"');
}

/* A string or binary value: JSON-quoted (json), CSV-quoted where needed (csv), or raw. */
static void print_bytes(cli_sink *f, const print_col *c, const uint8_t *p, int64_t n, bool json,
                        bool csv)
{
    if (c->kind != PK_STRING) print_base64(f, p, n, json);
    else if (json) print_json_str(f, p, n);
    else if (csv) print_csv_field(f, p, n);
    else sink_write(f, p, (size_t)n);
}

/* A UUID's 16 bytes as 8-4-4-4-12 lowercase hex digits. */
static void print_uuid(cli_sink *f, const uint8_t *p, bool json)
{
    static const char hex[] = "0123456789abcdef";
    if (json) sink_putc(f, '"');
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) sink_putc(f, '-');
        sink_putc(f, hex[p[i] >> 4]);
        sink_putc(f, hex[p[i] & 15]);
    }
    if (json) sink_putc(f, '"');
}

/* A Parquet INTERVAL's 12 bytes (months, days, milliseconds, little-endian; DuckDB reads the
 * months and days as signed, the milliseconds as unsigned) as DuckDB prints an INTERVAL:
 * "1 year 2 months 3 days 04:05:06.007", each part that is zero left out ("1 day", "-1 days"),
 * "00:00:00" when every one is. */
static void print_interval(cli_sink *f, const uint8_t *p, bool json)
{
    static const char *const name[3] = {"year", "month", "day"};
    int32_t months, days, part[3];
    uint32_t ms;
    memcpy(&months, p, 4), memcpy(&days, p + 4, 4), memcpy(&ms, p + 8, 4);
    part[0] = months / 12, part[1] = months % 12, part[2] = days;
    bool any = false;
    if (json) sink_putc(f, '"');
    for (int i = 0; i < 3; i++) {
        if (part[i] == 0) continue;
        sink_printf(f, "%s%" PRId32 " %s%s", any ? " " : "", part[i], name[i],
                    part[i] == 1 || part[i] == -1 ? "" : "s");
        any = true;
    }
    if (ms != 0 || !any) {
        uint32_t s = ms / 1000, frac = ms % 1000;
        sink_printf(f, "%s%02" PRIu32 ":%02" PRIu32 ":%02" PRIu32, any ? " " : "", s / 3600,
                    s / 60 % 60, s % 60);
        if (frac) sink_printf(f, frac % 100 == 0 ? ".%01" PRIu32 : frac % 10 == 0 ? ".%02" PRIu32 : ".%03" PRIu32,
                              frac % 100 == 0 ? frac / 100 : frac % 10 == 0 ? frac / 10 : frac);
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

static void print_float_at(cli_sink *f, const uint8_t *p, int width)
{
    if (width == 2) {
        print_float(f, half_to_float((uint16_t)(p[0] | p[1] << 8)), 2);
    } else if (width == 4) {
        float x;
        memcpy(&x, p, 4);
        print_float(f, x, 4);
    } else {
        double x;
        memcpy(&x, p, 8);
        print_float(f, x, 8);
    }
}

static void print_value_as(cli_sink *f, const print_col *c, const struct ArrowArray *a, int64_t row,
                           print_format fmt);

/* The print_col of child k of nested column c (its schema was checked by print_col_init). */
static print_col child_col(const print_col *c, int64_t k)
{
    print_col ch;
    int rc = print_col_init(&ch, c->schema->children[k], false);
    assert(rc == 0);
    (void)rc;
    return ch;
}

/* The elements [*lo, *hi) of row i (offset applied) of a list or map array a. */
static void list_range(const print_col *c, const struct ArrowArray *a, int64_t i, int64_t *lo,
                       int64_t *hi)
{
    const void *off = a->buffers[1];
    switch (c->kind == PK_MAP ? 'l' : c->list_form) {
    case 'L': *lo = ((const int64_t *)off)[i], *hi = ((const int64_t *)off)[i + 1]; break;
    case 'w': *lo = i * c->width, *hi = *lo + c->width; break;
    case 'v': /* offsets, then sizes */
        *lo = ((const int32_t *)off)[i], *hi = *lo + ((const int32_t *)a->buffers[2])[i]; break;
    case 'V': *lo = ((const int64_t *)off)[i], *hi = *lo + ((const int64_t *)a->buffers[2])[i]; break;
    default: *lo = ((const int32_t *)off)[i], *hi = ((const int32_t *)off)[i + 1]; break;
    }
}

/* Row i (offset applied) of a list, struct or map array a as JSON text (print.h). */
static void print_nested(cli_sink *f, const print_col *c, const struct ArrowArray *a, int64_t i)
{
    if (c->kind == PK_STRUCT) {
        sink_putc(f, '{');
        for (int64_t k = 0; k < a->n_children; k++) {
            print_col ch = child_col(c, k);
            if (k) sink_putc(f, ',');
            print_json_str(f, (const uint8_t *)ch.name, (int64_t)strlen(ch.name));
            sink_putc(f, ':');
            print_value_as(f, &ch, a->children[k], i, PRINT_JSONL);
        }
        sink_putc(f, '}');
        return;
    }
    int64_t lo, hi;
    list_range(c, a, i, &lo, &hi);
    print_col item = child_col(c, 0);
    const struct ArrowArray *e = a->children[0];
    print_col kv[2];
    if (c->kind == PK_MAP) kv[0] = child_col(&item, 0), kv[1] = child_col(&item, 1);
    sink_putc(f, '[');
    for (int64_t j = lo; j < hi; j++) {
        if (j > lo) sink_putc(f, ',');
        if (c->kind == PK_LIST) {
            print_value_as(f, &item, e, j, PRINT_JSONL);
            continue;
        }
        sink_puts(f, "{\"key\":"); /* map entries as pyarrow's to_pylist pairs, named */
        print_value_as(f, &kv[0], e->children[0], e->offset + j, PRINT_JSONL);
        sink_puts(f, ",\"value\":");
        print_value_as(f, &kv[1], e->children[1], e->offset + j, PRINT_JSONL);
        sink_putc(f, '}');
    }
    sink_putc(f, ']');
}

int print_nested_text(const print_col *c, const struct ArrowArray *a, int64_t row,
                      void (*emit)(void *ctx, const uint8_t *p, size_t n, bool last), void *ctx)
{
    static cli_sink scratch; /* the CLI prints on one thread */
    static int memfd = -1;   /* a long value's text, written out and read back in pieces */
    int64_t i = a->offset + row;
    sink_init(&scratch, -1, "a nested value");
    print_nested(&scratch, c, a, i);
    if (!scratch.err) {
        emit(ctx, (const uint8_t *)scratch.buf, scratch.len, true);
        return 0;
    }
    if (memfd < 0 && (memfd = memfd_create("ringscan-nested-text", MFD_CLOEXEC)) < 0) return -errno;
    if (ftruncate(memfd, 0) != 0 || lseek(memfd, 0, SEEK_SET) != 0) return -errno;
    sink_init(&scratch, memfd, "a nested value");
    print_nested(&scratch, c, a, i);
    if (sink_flush(&scratch)) return scratch.err;
    off_t total = lseek(memfd, 0, SEEK_CUR), at = 0;
    if (total < 0 || lseek(memfd, 0, SEEK_SET) != 0) return -errno;
    while (at < total) { /* bounded: each pass reads at least one byte or fails */
        ssize_t got = read(memfd, scratch.buf, sizeof scratch.buf);
        if (got <= 0) return got < 0 ? -errno : -EIO;
        at += got;
        emit(ctx, (const uint8_t *)scratch.buf, (size_t)got, at >= total);
    }
    return 0;
}

/* print_nested_text's emit for a CSV cell: the text quoted, inner quotes doubled (RFC 4180);
 * a short text goes through print_csv_field (quoted only when it needs to be). */
typedef struct csv_cell {
    cli_sink *f;
    bool open; /* a long text's opening quote is written */
} csv_cell;

static void emit_csv(void *ctx, const uint8_t *p, size_t n, bool last)
{
    csv_cell *cc = ctx;
    if (last && !cc->open) {
        print_csv_field(cc->f, p, (int64_t)n);
        return;
    }
    if (!cc->open) sink_putc(cc->f, '"');
    cc->open = true;
    for (size_t i = 0, run = 0; i <= n; i++) { /* runs up to each quote, written at once */
        if (i < n && p[i] != '"') continue;
        sink_write(cc->f, p + run, i - run);
        if (i < n) sink_puts(cc->f, "\"\"");
        run = i + 1;
    }
    if (last) sink_putc(cc->f, '"');
}

/* A nested value's JSON text as one CSV field (any length). */
static void print_nested_csv(cli_sink *f, const print_col *c, const struct ArrowArray *a, int64_t i)
{
    csv_cell cc = {.f = f};
    int rc = print_nested_text(c, a, i - a->offset, emit_csv, &cc);
    if (rc && !f->err) f->err = rc;
}

/* One value in the form of fmt (PRINT_JSONL: JSON; PRINT_CSV: a CSV field; else raw). */
static void print_value_as(cli_sink *f, const print_col *c, const struct ArrowArray *a, int64_t row,
                           print_format fmt)
{
    bool json = fmt == PRINT_JSONL, csv = fmt == PRINT_CSV;
    assert(row >= 0 && row < a->length);
    int64_t i = a->offset + row;
    const uint8_t *valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
    const uint8_t *p = a->n_buffers > 1 ? a->buffers[1] : NULL;
    if (c->kind == PK_NULL || (a->null_count != 0 && valid && !((valid[i >> 3] >> (i & 7)) & 1))) {
        sink_puts(f, json ? "null" : "");
        return;
    }
    if (a->dictionary) { /* a dictionary array: the value its index names */
        print_value_as(f, c, a->dictionary, load_int(p + i * c->index_width, c->index_width, c->index_signed), fmt);
        return;
    }
    switch (c->kind) {
    case PK_BOOL: sink_puts(f, (p[i >> 3] >> (i & 7)) & 1 ? "true" : "false"); return;
    case PK_INT: sink_printf(f, "%" PRId64, load_int(p + i * c->width, c->width, true)); return;
    case PK_UINT: sink_printf(f, "%" PRIu64, (uint64_t)load_int(p + i * c->width, c->width, false)); return;
    case PK_FLOAT: print_float_at(f, p + i * c->width, c->width); return;
    case PK_DATE:
    case PK_TIME:
    case PK_TIMESTAMP: print_temporal(f, c, load_int(p + i * c->width, c->width, true), json); return;
    case PK_DECIMAL: print_quoted_decimal(f, p + i * c->width, c->width, c->scale, json); return;
    case PK_NULL: sink_puts(f, json ? "null" : ""); return;
    case PK_FIXED: print_bytes(f, c, p + i * c->width, c->width, json, csv); return;
    case PK_INT96: print_int96(f, p + i * 12, json); return;
    case PK_UUID: print_uuid(f, p + i * 16, json); return;
    case PK_INTERVAL: print_interval(f, p + i * 12, json); return;
    case PK_LIST:
    case PK_STRUCT:
    case PK_MAP:
        if (csv) print_nested_csv(f, c, a, i);
        else print_nested(f, c, a, i);
        return;
    case PK_STRING:
    case PK_BINARY: {
        const uint8_t *data;
        int64_t n = print_value_bytes(c, a, row, &data);
        print_bytes(f, c, data, n, json, csv);
        return;
    }
    }
}

bool print_is_null(const struct ArrowArray *a, int64_t row)
{
    assert(row >= 0 && row < a->length);
    int64_t i = a->offset + row;
    const uint8_t *valid = a->n_buffers ? a->buffers[0] : NULL;
    if (a->n_buffers == 0) return true; /* the null type */
    return a->null_count != 0 && valid && !((valid[i >> 3] >> (i & 7)) & 1);
}

int64_t print_value_bytes(const print_col *c, const struct ArrowArray *a, int64_t row, const uint8_t **p)
{
    assert(row >= 0 && row < a->length);
    assert(c->kind == PK_STRING || c->kind == PK_BINARY || c->kind == PK_FIXED);
    int64_t i = a->offset + row;
    const uint8_t *b = a->buffers[1];
    if (a->dictionary)
        return print_value_bytes(c, a->dictionary, load_int(b + i * c->index_width, c->index_width, c->index_signed), p);
    if (c->kind == PK_FIXED) {
        *p = b + i * c->width;
        return c->width;
    }
    int64_t start, n;
    if (c->view) { /* a length, then the bytes inline (up to 12) or a buffer and offset */
        const uint8_t *v = b + 16 * i;
        int32_t len, buf, at;
        memcpy(&len, v, 4), memcpy(&buf, v + 8, 4), memcpy(&at, v + 12, 4);
        *p = len <= 12 ? v + 4 : (const uint8_t *)a->buffers[2 + buf] + at;
        return len;
    }
    if (c->large) {
        const int64_t *off = (const int64_t *)(const void *)b;
        start = off[i], n = off[i + 1] - off[i];
    } else {
        const int32_t *off = (const int32_t *)(const void *)b;
        start = off[i], n = off[i + 1] - off[i];
    }
    /* an all-empty batch may have data == NULL: form no NULL + 0 */
    *p = n ? (const uint8_t *)a->buffers[2] + start : NULL;
    return n;
}

void print_value(cli_sink *f, const print_col *c, const struct ArrowArray *a, int64_t row, bool json)
{
    print_value_as(f, c, a, row, json ? PRINT_JSONL : PRINT_TABLE);
}

int print_header(cli_sink *f, print_format fmt, const print_col *cols, int n)
{
    if (fmt == PRINT_JSONL || fmt == PRINT_CHECKSUM) return f->err;
    for (int i = 0; i < n; i++) {
        if (i) sink_puts(f, fmt == PRINT_TABLE ? " | " : ",");
        const uint8_t *name = (const uint8_t *)cols[i].name;
        if (fmt == PRINT_CSV) print_csv_field(f, name, (int64_t)strlen(cols[i].name));
        else sink_puts(f, cols[i].name);
    }
    return sink_putc(f, '\n');
}

int print_rows(cli_sink *f, print_format fmt, const print_col *cols, const struct ArrowArray *batch)
{
    for (int64_t r = 0; r < batch->length; r++) {
        if (fmt == PRINT_JSONL) sink_putc(f, '{');
        for (int64_t i = 0; i < batch->n_children; i++) {
            if (i) sink_puts(f, fmt == PRINT_TABLE ? " | " : ",");
            if (fmt == PRINT_JSONL) {
                print_json_str(f, (const uint8_t *)cols[i].name, (int64_t)strlen(cols[i].name));
                sink_putc(f, ':');
            }
            print_value_as(f, &cols[i], batch->children[i], r, fmt);
        }
        if (sink_puts(f, fmt == PRINT_JSONL ? "}\n" : "\n")) break; /* sticky: stop early */
    }
    return f->err;
}
