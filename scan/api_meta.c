/* scan/api_meta.c: the metadata half of the public API (ringscan.h "metadata"): plain structs
 * filled from the pq_file_meta that ringscan_open parsed, and the text of a statistics value.
 *
 * Invariants:
 *  1. No call does I/O: everything comes from f->f->meta, which is read-only after open but
 *     for its statistics, decoded (allocating in the metadata's arena) on first ask under
 *     the file's lock (scan/pqfile.h pqf_stats), so these calls may run on any thread
 *     alongside scans of f.
 *  2. Every pointer handed out points into that metadata's arena (or static storage): it
 *     lives until ringscan_close.
 *  3. An argument check fails before out is written: on -EINVAL out is untouched.
 *  4. ringscan_stat_text follows snprintf: it counts the whole text whatever cap is, writes
 *     at most cap - 1 bytes and always NUL-terminates when cap > 0.
 *
 * Why the value text lives here and not in cli/: how a statistic's bytes read depends on the
 * column's physical and logical type (unsigned logical types, float bit patterns, which byte
 * arrays are text), which the library knows and every host would otherwise re-derive; the raw
 * bytes stay available in ringscan_chunk_stats for hosts that want their own form. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringscan.h"
#include "scan/api_priv.h"

static const pq_file_meta *meta_of(const ringscan_file *f) { return &f->f->meta; }

int ringscan_file_info_get(const ringscan_file *f, ringscan_file_info *out)
{
    if (!f || !out) return -EINVAL;
    const pq_file_meta *m = meta_of(f);
    *out = (ringscan_file_info){
        .rows = m->num_rows, .columns = m->ncolumns, .row_groups = m->nrow_groups, .kv = m->nkv,
        .version = m->version, .created_by = m->created_by,
        .column_orders = m->column_orders_known     ? RINGSCAN_ORDERS_KNOWN
                         : m->column_orders_present ? RINGSCAN_ORDERS_UNKNOWN
                                                    : RINGSCAN_ORDERS_ABSENT};
    return 0;
}

_Static_assert((int)RINGSCAN_FIELD_PRIMITIVE == PQ_NODE_PRIMITIVE && (int)RINGSCAN_FIELD_GROUP ==
                   PQ_NODE_GROUP && (int)RINGSCAN_FIELD_LIST == PQ_NODE_LIST &&
                   (int)RINGSCAN_FIELD_MAP == PQ_NODE_MAP, "ringscan_field_kind = pq_node_kind");

int ringscan_file_fields(const ringscan_file *f) { return f ? meta_of(f)->nnodes : -EINVAL; }

int ringscan_file_field(const ringscan_file *f, int i, ringscan_field_info *out)
{
    if (!f || !out || i < 0 || i >= meta_of(f)->nnodes) return -EINVAL;
    const pq_file_meta *m = meta_of(f);
    const pq_schema_node *nd = &m->nodes[i];
    *out = (ringscan_field_info){
        .name = nd->name, .path = nd->path, .kind = (ringscan_field_kind)nd->kind,
        .arrow_kind = pq_shape_name(nd->shape), .repetition = (int)nd->repetition,
        .depth = nd->depth, .parent = nd->parent, .children = nd->nchildren, .end = nd->end,
        .column = nd->column, .max_definition_level = nd->max_def_level,
        .max_repetition_level = nd->max_rep_level,
        .nested = m->nodes[nd->top].shape != PQ_SHAPE_FLAT};
    return 0;
}

void scan_column_info(const pq_column_desc *c, ringscan_column_info *out)
{
    bool dec = c->logical == PQ_LOGICAL_DECIMAL;
    bool timed = c->logical >= PQ_LOGICAL_TIME_MILLIS && c->logical <= PQ_LOGICAL_TIMESTAMP_NANOS;
    *out = (ringscan_column_info){
        .name = c->name, .physical = (ringscan_physical)c->physical,
        .physical_name = pq_physical_name(c->physical), .logical_name = pq_logical_name(c->logical),
        .optional = c->repetition == PQ_OPTIONAL, .adjusted_to_utc = timed && c->is_adjusted_to_utc,
        .type_length = c->physical == PQ_FIXED_LEN_BYTE_ARRAY ? c->type_length : 0,
        .precision = dec ? c->decimal_precision : 0, .scale = dec ? c->decimal_scale : 0,
        .field_id = c->field_id};
}

int ringscan_file_column(const ringscan_file *f, int i, ringscan_column_info *out)
{
    if (!f || !out || i < 0 || i >= meta_of(f)->ncolumns) return -EINVAL;
    scan_column_info(&meta_of(f)->columns[i], out);
    return 0;
}

int ringscan_file_kv(const ringscan_file *f, int i, ringscan_kv *out)
{
    if (!f || !out || i < 0 || i >= meta_of(f)->nkv) return -EINVAL;
    const pq_kv *kv = &meta_of(f)->kv[i];
    *out = (ringscan_kv){.key = kv->key, .value = kv->value, .value_len = kv->value ? kv->value_len : 0};
    return 0;
}

int ringscan_file_row_group(const ringscan_file *f, int g, ringscan_row_group_info *out)
{
    if (!f || !out || g < 0 || g >= meta_of(f)->nrow_groups) return -EINVAL;
    const pq_row_group *rg = &meta_of(f)->row_groups[g];
    *out = (ringscan_row_group_info){.rows = rg->num_rows, .total_byte_size = rg->total_byte_size,
                                     .total_compressed_size = rg->total_compressed_size};
    return 0;
}

static ringscan_chunk_stats stats_of(const pq_stats *s)
{
    return (ringscan_chunk_stats){
        .has_min_max = s->has_min_max, .min_exact = s->min_exact, .max_exact = s->max_exact,
        .usable = s->usable, .min = s->has_min_max ? s->min : NULL,
        .max = s->has_min_max ? s->max : NULL, .min_len = s->has_min_max ? s->min_len : 0,
        .max_len = s->has_min_max ? s->max_len : 0, .has_null_count = s->has_null_count,
        .has_distinct_count = s->has_distinct, .has_nan_count = s->has_nan_count,
        .null_count = s->null_count, .distinct_count = s->distinct_count, .nan_count = s->nan_count};
}

int ringscan_file_chunk(const ringscan_file *f, int g, int c, ringscan_chunk_info *out)
{
    if (!f || !out || g < 0 || g >= meta_of(f)->nrow_groups || c < 0 || c >= meta_of(f)->ncolumns)
        return -EINVAL;
    int rc = pqf_stats(f->f, c, NULL); /* column c's, once */
    const pq_chunk_meta *ch = &meta_of(f)->row_groups[g].chunks[c];
    *out = (ringscan_chunk_info){
        .codec = (int)ch->codec, .codec_name = pq_codec_name(ch->codec),
        .encodings = ch->encodings_mask, .num_values = ch->num_values,
        .compressed_size = ch->total_compressed_size,
        .uncompressed_size = ch->total_uncompressed_size,
        .data_page_offset = ch->data_page_offset,
        .dictionary_page_offset = ch->has_dictionary_page_offset ? ch->dictionary_page_offset : -1,
        .has_offset_index = ch->has_offset_index, .has_column_index = ch->has_column_index,
        .has_bloom_filter = ch->has_bloom_filter};
    if (rc == 0) out->stats = stats_of(pq_chunk_stats(ch));
    return rc;
}

const char *ringscan_encoding_name(int e)
{
    return e >= 0 && e <= PQ_ENC_BYTE_STREAM_SPLIT ? pq_encoding_name((pq_encoding)e) : "?";
}

/* ---- the text of a statistics value ---- */

/* snprintf-style output: len counts every byte, only the first cap - 1 are stored. */
typedef struct txt {
    char *buf;
    size_t cap, len;
} txt;

static void txt_put(txt *t, const char *s, size_t n)
{
    if (t->len < t->cap) {
        size_t room = t->cap - 1 - t->len < n ? t->cap - 1 - t->len : n;
        memcpy(t->buf + t->len, s, room);
    }
    t->len += n;
}

__attribute__((format(printf, 2, 3))) static void txt_printf(txt *t, const char *fmt, ...)
{
    char tmp[64]; /* every format below is a number: at most 24 bytes */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) txt_put(t, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A JSON string: '"' and '\\' escaped, control bytes and DEL as \u00XX. */
static void txt_str(txt *t, const uint8_t *p, uint32_t n)
{
    txt_put(t, "\"", 1);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') txt_printf(t, "\\%c", c);
        else if (c < 0x20 || c == 0x7f) txt_printf(t, "\\u%04x", c);
        else txt_put(t, (const char *)&p[i], 1);
    }
    txt_put(t, "\"", 1);
}

static void txt_hex(txt *t, const uint8_t *p, uint32_t n, bool quoted)
{
    static const char digits[] = "0123456789abcdef";
    txt_put(t, quoted ? "\"0x" : "0x", quoted ? 3 : 2);
    for (uint32_t i = 0; i < n; i++) {
        char two[2] = {digits[p[i] >> 4], digits[p[i] & 15]};
        txt_put(t, two, 2);
    }
    if (quoted) txt_put(t, "\"", 1);
}

/* A little-endian FLOAT (n 4) or DOUBLE (n 8) statistic as a double. */
static double le_float(const uint8_t *p, uint32_t n)
{
    assert(n == 4 || n == 8);
    double d;
    if (n == 4) {
        uint32_t u = (uint32_t)le(p, 4);
        float x;
        memcpy(&x, &u, 4);
        d = x;
    } else {
        uint64_t u = le(p, 8);
        memcpy(&d, &u, 8);
    }
    return d;
}

/* A float as a JSON value: NaN and the infinities are strings (JSON has no literal for them). */
static void txt_float(txt *t, const uint8_t *p, uint32_t n)
{
    double d = le_float(p, n);
    if (d != d) txt_put(t, "\"NaN\"", 5);
    else if (isinf(d)) txt_put(t, d > 0 ? "\"Infinity\"" : "\"-Infinity\"", d > 0 ? 10 : 11);
    else txt_printf(t, "%.17g", d);
}

static void txt_value(txt *t, const pq_column_desc *c, const uint8_t *p, uint32_t n)
{
    bool uns = c->logical >= PQ_LOGICAL_UINT8 && c->logical <= PQ_LOGICAL_UINT64;
    bool text = c->logical == PQ_LOGICAL_STRING || c->logical == PQ_LOGICAL_ENUM ||
                c->logical == PQ_LOGICAL_JSON || c->logical == PQ_LOGICAL_NONE;
    if (c->physical == PQ_BOOLEAN && n == 1) txt_put(t, p[0] ? "true" : "false", p[0] ? 4 : 5);
    else if (c->physical == PQ_INT32 && n == 4)
        uns ? txt_printf(t, "%" PRIu32, (uint32_t)le(p, 4))
            : txt_printf(t, "%" PRId32, (int32_t)(uint32_t)le(p, 4));
    else if (c->physical == PQ_INT64 && n == 8)
        uns ? txt_printf(t, "%" PRIu64, le(p, 8)) : txt_printf(t, "%" PRId64, (int64_t)le(p, 8));
    else if ((c->physical == PQ_FLOAT && n == 4) || (c->physical == PQ_DOUBLE && n == 8))
        txt_float(t, p, n);
    else if (c->physical == PQ_BYTE_ARRAY && text) txt_str(t, p, n);
    else txt_hex(t, p, n, true);
}

/* value as fmt writes it for column c, under the snprintf contract of ringscan_stat_text. */
static int stat_format(const ringscan_file *f, int c, const uint8_t *value, uint32_t len,
                       char *buf, size_t cap,
                       void (*fmt)(txt *, const pq_column_desc *, const uint8_t *, uint32_t))
{
    if (!f || c < 0 || c >= meta_of(f)->ncolumns || (!value && len > 0) || (!buf && cap > 0))
        return -EINVAL;
    static const uint8_t none[1];
    txt t = {.buf = buf, .cap = cap};
    fmt(&t, &meta_of(f)->columns[c], value ? value : none, len);
    if (cap > 0) buf[t.len < cap ? t.len : cap - 1] = 0;
    return t.len > INT_MAX ? -EOVERFLOW : (int)t.len;
}

static void txt_display(txt *t, const pq_column_desc *c, const uint8_t *p, uint32_t n);

int ringscan_stat_text(const ringscan_file *f, int c, const uint8_t *value, uint32_t len,
                       char *buf, size_t cap)
{
    return stat_format(f, c, value, len, buf, cap, txt_value);
}

/* ---- the display form of a statistics value (ringscan_stat_display) ---- */

/* Days since 1970-01-01 as YYYY-MM-DD (proleptic Gregorian; H. Hinnant's civil_from_days). */
static void txt_date(txt *t, int64_t z)
{
    z += 719468; /* |z| <= 2^63 / 86400 for every caller, so this cannot overflow */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    txt_printf(t, "%04" PRId64 "-%02u-%02u", (int64_t)yoe + era * 400 + (m <= 2), m, d);
}

/* a = q * b + r with 0 <= r < b (b > 0), without the overflow of computing q * b. */
static void floor_divmod(int64_t a, int64_t b, int64_t *q, int64_t *r)
{
    *q = a / b;
    *r = a % b;
    if (*r < 0) *r += b, *q -= 1;
}

/* sod seconds of a day and frac ticks of 10^-digits s as HH:MM:SS[.frac]. */
static void txt_clock(txt *t, int64_t sod, int64_t frac, int digits)
{
    txt_printf(t, "%02d:%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
    if (digits) txt_printf(t, ".%0*" PRId64, digits, frac);
}

/* v ticks of 1/per_s s since the epoch as "YYYY-MM-DD HH:MM:SS.f", "Z" appended when UTC. */
static void txt_timestamp(txt *t, int64_t v, int64_t per_s, int digits, bool utc)
{
    int64_t s, frac, days, sod;
    floor_divmod(v, per_s, &s, &frac);
    floor_divmod(s, 86400, &days, &sod);
    txt_date(t, days);
    txt_put(t, " ", 1);
    txt_clock(t, sod, frac, digits);
    if (utc) txt_put(t, "Z", 1);
}

/* An unscaled decimal with scale digits after the point (0 <= scale <= 38). */
static void txt_decimal(txt *t, __int128 v, int scale)
{
    char d[48];
    int n = 0;
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    do d[n++] = (char)('0' + (int)(u % 10)), u /= 10;
    while (u); /* at most 39 digits */
    while (n <= scale) d[n++] = '0';
    if (v < 0) txt_put(t, "-", 1);
    for (int i = n - 1; i >= 0; i--) {
        txt_put(t, &d[i], 1);
        if (i == scale && scale) txt_put(t, ".", 1);
    }
}

/* A decimal's unscaled value: INT32/INT64 little-endian, byte arrays big-endian two's
 * complement of 1..16 bytes. False for anything else (printed as hex). */
static bool decimal_of(const pq_column_desc *c, const uint8_t *p, uint32_t n, __int128 *out)
{
    if (c->physical == PQ_INT32 && n == 4) *out = (int32_t)(uint32_t)le(p, 4);
    else if (c->physical == PQ_INT64 && n == 8) *out = (int64_t)le(p, 8);
    else if ((c->physical == PQ_BYTE_ARRAY || c->physical == PQ_FIXED_LEN_BYTE_ARRAY) && n >= 1 && n <= 16) {
        unsigned __int128 u = p[0] & 0x80 ? ~(unsigned __int128)0 : 0;
        for (uint32_t i = 0; i < n; i++) u = u << 8 | p[i];
        *out = (__int128)u;
    } else return false;
    return c->decimal_scale >= 0 && c->decimal_scale <= 38;
}

/* The shortest %g text that reads back as the same float (single) or double. */
static void txt_shortest(txt *t, double d, bool single)
{
    if (d != d) {
        txt_put(t, "NaN", 3);
        return;
    }
    if (isinf(d)) {
        txt_put(t, d < 0 ? "-inf" : "inf", d < 0 ? 4 : 3);
        return;
    }
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        double back = strtod(tmp, NULL);
        if (single ? (float)back == (float)d : back == d) break;
    }
    txt_put(t, tmp, strlen(tmp));
}

static double half_to_double(uint16_t h)
{
    int e = h >> 10 & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}

static void txt_uuid(txt *t, const uint8_t *p)
{
    for (int i = 0; i < 16; i++) {
        txt_printf(t, "%02x", p[i]);
        if (i == 3 || i == 5 || i == 7 || i == 9) txt_put(t, "-", 1);
    }
}

/* TIME_* and TIMESTAMP_* ticks per second and fraction digits; 0 for other types. */
static int64_t ticks_per_s(pq_logical l, int *digits)
{
    bool ms = l == PQ_LOGICAL_TIME_MILLIS || l == PQ_LOGICAL_TIMESTAMP_MILLIS;
    bool us = l == PQ_LOGICAL_TIME_MICROS || l == PQ_LOGICAL_TIMESTAMP_MICROS;
    bool ns = l == PQ_LOGICAL_TIME_NANOS || l == PQ_LOGICAL_TIMESTAMP_NANOS;
    *digits = ms ? 3 : us ? 6 : ns ? 9 : 0;
    return ms ? 1000 : us ? 1000000 : ns ? 1000000000 : 0;
}

/* The types whose value reads differently from the JSON form; false: not one of them. */
static bool txt_logical(txt *t, const pq_column_desc *c, const uint8_t *p, uint32_t n)
{
    bool intv = (c->physical == PQ_INT32 && n == 4) || (c->physical == PQ_INT64 && n == 8);
    int64_t v = !intv ? 0 : n == 4 ? (int32_t)(uint32_t)le(p, 4) : (int64_t)le(p, 8);
    int digits;
    int64_t per_s = ticks_per_s(c->logical, &digits);
    __int128 dec;
    if (c->logical == PQ_LOGICAL_DATE && intv) txt_date(t, v);
    else if (per_s && intv && c->logical >= PQ_LOGICAL_TIMESTAMP_MILLIS)
        txt_timestamp(t, v, per_s, digits, c->is_adjusted_to_utc);
    else if (per_s && intv && v >= 0 && v / per_s < 86400) txt_clock(t, v / per_s, v % per_s, digits);
    else if (c->logical == PQ_LOGICAL_DECIMAL && decimal_of(c, p, n, &dec)) txt_decimal(t, dec, c->decimal_scale);
    else if (c->logical == PQ_LOGICAL_FLOAT16 && n == 2) txt_shortest(t, half_to_double((uint16_t)le(p, 2)), true);
    else if (c->logical == PQ_LOGICAL_UUID && n == 16) txt_uuid(t, p);
    else return false;
    return true;
}

/* True when p[0..n) is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
static bool utf8_valid(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        uint8_t c = p[i];
        uint32_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 4;
        if (k == 4 || n - i <= k) return k == 0;
        uint32_t cp = k == 0 ? c : c & (0x3f >> k);
        for (uint32_t j = 1; j <= k; j++) {
            if ((p[i + j] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (p[i + j] & 0x3f);
        }
        static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
        if (cp < least[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += k + 1;
    }
    return true;
}

static void txt_display(txt *t, const pq_column_desc *c, const uint8_t *p, uint32_t n)
{
    if (txt_logical(t, c, p, n)) return;
    bool text = c->logical == PQ_LOGICAL_STRING || c->logical == PQ_LOGICAL_ENUM ||
                c->logical == PQ_LOGICAL_JSON || c->logical == PQ_LOGICAL_NONE;
    if (c->physical == PQ_INT96 && n == 12) {
        /* nanoseconds of the day, then the Julian day (Impala and Spark's legacy timestamp) */
        int64_t nanos = (int64_t)le(p, 8), jd = (int32_t)(uint32_t)le(p + 8, 4);
        if (nanos >= 0 && nanos < INT64_C(86400000000000)) {
            txt_date(t, jd - 2440588);
            txt_put(t, " ", 1);
            txt_clock(t, nanos / 1000000000, nanos % 1000000000, 9);
            return;
        }
    }
    if ((c->physical == PQ_FLOAT && n == 4) || (c->physical == PQ_DOUBLE && n == 8)) {
        txt_shortest(t, le_float(p, n), n == 4);
    } else if ((c->physical == PQ_BYTE_ARRAY && text && (c->logical != PQ_LOGICAL_NONE || utf8_valid(p, n))) ||
               (c->physical == PQ_BOOLEAN && n == 1) || (c->physical == PQ_INT32 && n == 4) ||
               (c->physical == PQ_INT64 && n == 8))
        txt_value(t, c, p, n); /* text, booleans and integers read as in the JSON form */
    else txt_hex(t, p, n, false); /* other bytes, or a length the type does not have */
}

int ringscan_stat_display(const ringscan_file *f, int c, const uint8_t *value, uint32_t len,
                          char *buf, size_t cap)
{
    return stat_format(f, c, value, len, buf, cap, txt_display);
}
