/* scan/ds_text.c: a file's vector of a dataset column cast to text, as DuckDB 2.x's cast to
 * VARCHAR prints each value (a union by name's VARCHAR where another file has a string
 * column: ds_schema.c type_merge, ds_widen):
 *  - BOOLEAN "true"/"false"; integers in decimal (UINT32/UINT64 unsigned); a decimal's
 *    unscaled value with its scale's digits after a '.' ("-0.50");
 *  - FLOAT/DOUBLE the shortest digits that read back as the same float (a FLOAT's as a
 *    float), laid out as Python's repr lays them out ("1.5", "3.0", "1e+16", "1e-05",
 *    "-0.0", "nan", "inf");
 *  - DATE "YYYY-MM-DD", " (BC)" after a year before 1; TIME and TIMESTAMP with their
 *    fraction's trailing zeros dropped (none when it is zero), in the column's unit except
 *    INT96, which DuckDB reads as microseconds (floored); a UTC-adjusted timestamp with
 *    "+00" (DuckDB prints TIMESTAMPTZ in the session's zone: UTC here); a DATE or TIMESTAMP
 *    of its type's largest value or that value's negation "infinity" / "-infinity" (DuckDB's
 *    infinite values), and every other value, INT64_MIN too, as a date without overflow.
 * And what the other ds_ files share with it: a decimal's unscaled value read and written, a
 * vector replaced by its conversion, a time's unit.
 * Invariants: every value fits TEXT_MAX bytes; a null is an empty value. No I/O. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/expr.h"
#include "scan/ds_impl.h"

enum { TEXT_MAX = DS_TEXT_MAX }; /* the longest: "-292277-01-01 (BC) 23:59:59.999999999+00"
                                    and NUL */

__int128 ds_dec_get128(const pq_column_desc *d, const pq_vec *v, int64_t r)
{
    if (d->physical == PQ_INT32) {
        int32_t x;
        memcpy(&x, v->values + 4 * r, 4);
        return d->logical == PQ_LOGICAL_UINT32 ? (__int128)(uint32_t)x : x;
    }
    if (d->physical == PQ_INT64) {
        int64_t x;
        memcpy(&x, v->values + 8 * r, 8);
        return d->logical == PQ_LOGICAL_UINT64 ? (__int128)(uint64_t)x : x;
    }
    const uint8_t *b = v->values + (int64_t)d->type_length * r;
    unsigned __int128 x = d->type_length > 0 && (b[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (int i = 0; i < d->type_length; i++)
        x = x << 8 | b[i];
    return (__int128)x;
}

void ds_dec_range(const pq_column_desc *d, __int128 *lo, __int128 *hi)
{
    assert(d->logical == PQ_LOGICAL_DECIMAL && d->decimal_precision >= 1 && d->decimal_precision <= 38);
    int bits = d->physical == PQ_INT32 ? 32 : d->physical == PQ_INT64 ? 64 : 8 * d->type_length;
    assert(bits >= 8 && bits <= 128); /* (an FLBA of at most 16 bytes: ds_dec_put) */
    __int128 p = 1;
    for (int i = 0; i < d->decimal_precision; i++) p *= 10;
    __int128 top = (__int128)(((unsigned __int128)1 << (bits - 1)) - 1);
    *hi = p - 1 < top ? p - 1 : top;
    *lo = -*hi;
}

bool ds_cast_type_text(const pq_column_desc *d, char *buf, size_t cap)
{
    if (d->logical != PQ_LOGICAL_DECIMAL) {
        snprintf(buf, cap, "%s/%s", pq_physical_name(d->physical), pq_logical_name(d->logical));
        return false;
    }
    __int128 lo, hi, p = 1;
    ds_dec_range(d, &lo, &hi);
    for (int i = 0; i < d->decimal_precision; i++) p *= 10;
    bool held = hi < p - 1; /* (its physical form holds fewer digits than its precision) */
    int n = snprintf(buf, cap, "DECIMAL(%d,%d)", (int)d->decimal_precision, (int)d->decimal_scale);
    if (held && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " held in %d bytes",
                 d->physical == PQ_INT32 ? 4 : d->physical == PQ_INT64 ? 8 : (int)d->type_length);
    return held;
}

void ds_dec_put(const pq_column_desc *d, pq_vec *v, int64_t r, __int128 x)
{
    if (d->physical == PQ_INT32) { int32_t y = (int32_t)x; memcpy(v->values + 4 * r, &y, 4); return; }
    if (d->physical == PQ_INT64) { int64_t y = (int64_t)x; memcpy(v->values + 8 * r, &y, 8); return; }
    uint8_t *b = v->values + (int64_t)d->type_length * r;
    for (int i = d->type_length - 1; i >= 0; i--, x >>= 8) b[i] = (uint8_t)x; /* arithmetic shift */
}

void ds_replace_vec(pq_vec *v, pq_vec *w)
{
    if (v->null_count > 0) memcpy(w->validity, v->validity, (size_t)(v->length + 7) / 8);
    w->length = v->length, w->null_count = v->null_count;
    pq_vec_free(v);
    *v = *w;
}

/* The decimal digits of m into buf, at least min of them (zeros in front); their count. */
static int digits_of(unsigned __int128 m, int min, char *buf)
{
    char rev[48];
    int n = 0;
    for (; m > 0 || n < min; m /= 10)
        rev[n++] = (char)('0' + (int)(m % 10));
    for (int i = 0; i < n; i++)
        buf[i] = rev[n - 1 - i];
    return n;
}

int ds_decimal_text(__int128 x, int scale, char *buf)
{
    unsigned __int128 m = x < 0 ? -(unsigned __int128)x : (unsigned __int128)x;
    char d[48];
    int n = digits_of(m, scale + 1, d), len = 0;
    if (x < 0) buf[len++] = '-';
    memcpy(buf + len, d, (size_t)(n - scale)), len += n - scale;
    if (scale > 0) buf[len++] = '.', memcpy(buf + len, d + n - scale, (size_t)scale), len += scale;
    return len;
}

/* x's shortest digits that read back as x (as a float when f32) into digits (no sign, no
 * point), its decimal exponent in *exp10: the count of digits. */
static int shortest(double x, bool f32, char *digits, int *exp10)
{
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, x);
        if (f32 ? strtof(buf, NULL) == (float)x : strtod(buf, NULL) == x) break;
    }
    const char *s = buf + (buf[0] == '-');
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.') digits[n++] = *s;
    *exp10 = atoi(s + 1);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    return n;
}

/* x as DuckDB prints a DOUBLE (or a FLOAT, f32): Python's repr layout of its shortest digits,
 * exponent form below 1e-4 and from 1e16. */
static int float_text(double x, bool f32, char *buf)
{
    if (isnan(x)) return (int)(memcpy(buf, "nan", 3), 3);
    if (isinf(x)) return x < 0 ? (memcpy(buf, "-inf", 4), 4) : (memcpy(buf, "inf", 3), 3);
    char d[24];
    int e, n = shortest(x, f32, d, &e), len = 0;
    if (signbit(x)) buf[len++] = '-';
    if (e < -4 || e >= 16) {
        buf[len++] = d[0];
        if (n > 1) buf[len++] = '.', memcpy(buf + len, d + 1, (size_t)(n - 1)), len += n - 1;
        return len + snprintf(buf + len, 8, "e%c%02d", e < 0 ? '-' : '+', abs(e));
    }
    if (e < 0) {
        buf[len++] = '0', buf[len++] = '.';
        for (int i = 0; i < -e - 1; i++)
            buf[len++] = '0';
        memcpy(buf + len, d, (size_t)n);
        return len + n;
    }
    for (int i = 0; i <= e; i++)
        buf[len++] = i < n ? d[i] : '0';
    buf[len++] = '.';
    if (n <= e + 1) return (buf[len++] = '0', len);
    memcpy(buf + len, d + e + 1, (size_t)(n - e - 1));
    return len + n - e - 1;
}

static int64_t floor_div(int64_t x, int64_t y)
{
    return x / y - (x % y != 0 && (x % y < 0) != (y < 0));
}

/* x mod y in [0, y) (y > 0), without the overflow of x - floor_div(x, y) * y at INT64_MIN. */
static int64_t floor_mod(int64_t x, int64_t y)
{
    int64_t m = x % y;
    return m < 0 ? m + y : m;
}

/* DuckDB's infinite DATE and TIMESTAMP: the largest value and its negation (none for
 * INT64_MIN / INT32_MIN, which print as dates); its text into buf, or 0. */
static int infinity_text(int64_t x, int64_t max, char *buf)
{
    if (x != max && x != -max) return 0;
    int len = x < 0 ? (buf[0] = '-', 1) : 0;
    memcpy(buf + len, "infinity", 8);
    return len + 8;
}

/* Day number days (since 1970-01-01) as DuckDB prints a DATE. */
static int date_text(int64_t days, char *buf)
{
    int64_t y, m, d;
    flt_civil_from_days(days, &y, &m, &d);
    bool bc = y <= 0;
    return snprintf(buf, 32, "%04lld-%02d-%02d%s", (long long)(bc ? 1 - y : y), (int)m, (int)d,
                    bc ? " (BC)" : "");
}

/* t units (10^-unit seconds) into a day as HH:MM:SS[.fraction], the fraction's trailing zeros
 * dropped; 24:00:00 exactly as DuckDB reads it; a broken file's time outside that (DuckDB
 * refuses it) as pyarrow's text and the CLI's print, "<value out of range: -1>". */
static int clock_text(int64_t t, int unit, char *buf)
{
    int64_t per_s = 1;
    for (int i = 0; i < unit; i++)
        per_s *= 10;
    if (t < 0 || t > 86400 * per_s)
        return snprintf(buf, TEXT_MAX, "<value out of range: %lld>", (long long)t);
    int64_t s = t / per_s, f = t % per_s;
    int len =
        snprintf(buf, 16, "%02d:%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60));
    if (f == 0) return len;
    buf[len++] = '.';
    len += digits_of((unsigned __int128)f, unit, buf + len);
    while (buf[len - 1] == '0')
        len--;
    return len;
}

/* x units (10^-unit seconds) since the epoch as DuckDB prints a TIMESTAMP ("+00": UTC). */
static int stamp_text(int64_t x, int unit, bool utc, char *buf)
{
    int64_t per_day = 86400;
    for (int i = 0; i < unit; i++)
        per_day *= 10;
    int len = date_text(floor_div(x, per_day), buf);
    buf[len++] = ' ';
    len += clock_text(floor_mod(x, per_day), unit, buf + len);
    if (utc) memcpy(buf + len, "+00", 3), len += 3;
    return len;
}

/* Row r of v (a BOOLEAN, integer, decimal, float, date, time or timestamp: ds_texted) as
 * DuckDB's cast to VARCHAR prints it into buf (TEXT_MAX bytes); its length. */
static int text_of(const pq_column_desc *from, const pq_vec *v, int64_t r, char *buf)
{
    pq_logical l = from->logical;
    if (from->physical == PQ_BOOLEAN)
        return pq_bit_get(v->values, r) ? (memcpy(buf, "true", 4), 4)
                                        : (memcpy(buf, "false", 5), 5);
    if (from->physical == PQ_FLOAT) {
        float f;
        memcpy(&f, v->values + 4 * r, 4);
        return float_text(f, true, buf);
    }
    if (from->physical == PQ_DOUBLE) {
        double f;
        memcpy(&f, v->values + 8 * r, 8);
        return float_text(f, false, buf);
    }
    if (from->physical == PQ_INT96) /* DuckDB's TIMESTAMP: microseconds, floored */
        return stamp_text(floor_div(pq_int96_nanos(v->values + 12 * r), 1000), 6, false, buf);
    if (l == PQ_LOGICAL_DECIMAL)
        return ds_decimal_text(ds_dec_get128(from, v, r), from->decimal_scale, buf);
    int inf = l == PQ_LOGICAL_DATE ? infinity_text(pq_vec_int_at(v, r), INT32_MAX, buf) : 0;
    if (l == PQ_LOGICAL_DATE) return inf ? inf : date_text(pq_vec_int_at(v, r), buf);
    if (l >= PQ_LOGICAL_TIME_MILLIS && l <= PQ_LOGICAL_TIME_NANOS)
        return clock_text(pq_vec_int_at(v, r), ds_time_unit(from), buf);
    if (l >= PQ_LOGICAL_TIMESTAMP_MILLIS && l <= PQ_LOGICAL_TIMESTAMP_NANOS &&
        (inf = infinity_text(pq_vec_int_at(v, r), INT64_MAX, buf)) > 0)
        return inf;
    if (l >= PQ_LOGICAL_TIMESTAMP_MILLIS && l <= PQ_LOGICAL_TIMESTAMP_NANOS)
        return stamp_text(pq_vec_int_at(v, r), ds_time_unit(from), from->is_adjusted_to_utc, buf);
    int64_t x = pq_vec_int_at(v, r);
    if (l == PQ_LOGICAL_UINT32) return ds_decimal_text((uint32_t)x, 0, buf);
    return ds_decimal_text(l == PQ_LOGICAL_UINT64 ? (__int128)(uint64_t)x : x, 0, buf);
}

int ds_value_text(const pq_column_desc *from, const uint8_t *value, char buf[DS_TEXT_MAX])
{
    pq_vec v = {.type = from->physical, .type_length = from->type_length, .length = 1,
                .values = (uint8_t *)value}; /* (read only: text_of reads row 0's bytes) */
    return text_of(from, &v, 0, buf);
}

int ds_time_unit(const pq_column_desc *d)
{
    if (d->physical == PQ_INT96) return 9; /* a timestamp in nanoseconds (pq_int96_nanos) */
    switch (d->logical) {
    case PQ_LOGICAL_TIME_MILLIS:
    case PQ_LOGICAL_TIMESTAMP_MILLIS:
        return 3;
    case PQ_LOGICAL_TIME_MICROS:
    case PQ_LOGICAL_TIMESTAMP_MICROS:
        return 6;
    case PQ_LOGICAL_TIME_NANOS:
    case PQ_LOGICAL_TIMESTAMP_NANOS:
        return 9;
    default:
        return 0;
    }
}

bool ds_int_range(const pq_column_desc *d, __int128 *lo, __int128 *hi)
{
    pq_logical l = d->logical;
    if ((d->physical != PQ_INT32 && d->physical != PQ_INT64) ||
        (l != PQ_LOGICAL_NONE && !(l >= PQ_LOGICAL_INT8 && l <= PQ_LOGICAL_UINT64)))
        return false;
    int bits = l == PQ_LOGICAL_INT8 || l == PQ_LOGICAL_UINT8     ? 8
               : l == PQ_LOGICAL_INT16 || l == PQ_LOGICAL_UINT16 ? 16
               : d->physical == PQ_INT32                         ? 32
                                                                 : 64;
    bool u = l >= PQ_LOGICAL_UINT8 && l <= PQ_LOGICAL_UINT64;
    *hi = ((__int128)1 << (u ? bits : bits - 1)) - 1;
    *lo = u ? 0 : -*hi - 1;
    return true;
}

bool ds_int_within(const pq_column_desc *from, const pq_column_desc *to)
{
    __int128 flo, fhi, tlo, thi;
    return ds_int_range(from, &flo, &fhi) && ds_int_range(to, &tlo, &thi) && tlo <= flo &&
           fhi <= thi;
}

bool ds_texted(const pq_column_desc *d)
{
    pq_logical l = d->logical;
    bool ints = d->physical == PQ_INT32 || d->physical == PQ_INT64;
    return (d->physical == PQ_BOOLEAN && l == PQ_LOGICAL_NONE) || d->physical == PQ_FLOAT ||
           d->physical == PQ_DOUBLE || d->physical == PQ_INT96 ||
           (l == PQ_LOGICAL_DECIMAL && d->decimal_precision <= 38 &&
            (ints || (d->physical == PQ_FIXED_LEN_BYTE_ARRAY && d->type_length <= 16))) ||
           (ints && (l == PQ_LOGICAL_NONE || (l >= PQ_LOGICAL_INT8 && l <= PQ_LOGICAL_UINT64) ||
                     l == PQ_LOGICAL_DATE ||
                     (l >= PQ_LOGICAL_TIME_MILLIS && l <= PQ_LOGICAL_TIME_NANOS &&
                      !d->is_adjusted_to_utc) ||
                     (l >= PQ_LOGICAL_TIMESTAMP_MILLIS && l <= PQ_LOGICAL_TIMESTAMP_NANOS)));
}

int ds_to_text(const pq_column_desc *from, pq_vec *v)
{
    assert(ds_texted(from));
    if (v->length > INT32_MAX / TEXT_MAX) return -EOVERFLOW;
    pq_vec w;
    pq_vec_init(&w, PQ_BYTE_ARRAY, 0);
    int rc = pq_vec_reserve(&w, v->length, v->length * TEXT_MAX);
    if (rc) return pq_vec_free(&w), rc; /* its part allocated */
    int32_t at = 0;
    w.offsets[0] = 0;
    for (int64_t r = 0; r < v->length; r++) {
        if (pq_vec_is_valid(v, r)) {
            char buf[TEXT_MAX];
            int n = text_of(from, v, r, buf);
            assert(n > 0 && n < TEXT_MAX);
            memcpy(w.data + at, buf, (size_t)n);
            at += n;
        }
        w.offsets[r + 1] = at;
    }
    w.data_len = at;
    ds_replace_vec(v, &w);
    return 0;
}
