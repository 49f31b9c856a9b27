/* scan/ds_parse.c: a later file's strings under a first file's boolean, number, date, time or
 * timestamp column, without union_by_name, read as DuckDB 2.x reads them: cast from VARCHAR
 * to the type DuckDB gives the first file's column, so a string that parses gives its value
 * and one that does not fails the scan naming the file, the column and the string (DuckDB:
 * "Could not convert string"). The casts, as DuckDB 2.0.1 was seen to do them:
 *  - BOOLEAN, integers, decimals, FLOAT/DOUBLE: filter/cast.h's casts (shared with a
 *    filter's string literal against such a column);
 *  - DATE, TIMESTAMP: scan/ds_ptime.c's (hive values take the same cast; [-]inf and
 *    [-]infinity DuckDB's infinities): an offset or zone after a TIMESTAMP ignored, subtracted
 *    under a UTC-adjusted one (TIMESTAMPTZ; a zone name there by ICU, ds_zone.c, as DuckDB
 *    reads it); a TIMESTAMP_NANOS keeps a fraction's ninth digit, the others the sixth
 *    (DuckDB's TIMESTAMP and TIMESTAMPTZ are microseconds; an INT96 first file's too);
 *  - TIME: H[H]:M[M][:S[S][.fraction]] with spaces around, after seconds a 'Z' or a
 *    [+|-]HH[[:]MM[:SS]] offset within 15:59:59 ignored; else a timestamp's text (not an
 *    infinity), its time of day.
 * DuckDB reads a millisecond TIMESTAMP or TIME in microseconds: a string whose value is not
 * whole milliseconds is refused here (the dataset's column is the first file's unit). No I/O. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filter/cast.h"
#include "scan/ds_impl.h"

enum { PARSE_MAX = FLT_CAST_MAX }; /* the longest string parsed (a longer one does not parse) */

/* One or two digits at *p into *v. */
static bool two(const char **p, int64_t *v)
{
    if (!flt_cast_digit(**p)) return false;
    *v = *(*p)++ - '0';
    if (flt_cast_digit(**p)) *v = *v * 10 + (*(*p)++ - '0');
    return true;
}

/* Two digits at p as a number, or -1. */
static int64_t two_at(const char *p)
{
    return flt_cast_digit(p[0]) && flt_cast_digit(p[1]) && !flt_cast_digit(p[2]) ? (p[0] - '0') * 10 + (p[1] - '0') : -1;
}

/* After a TIME's seconds: spaces, then 'Z' or a [+|-]HH[[:]MM[:SS]] offset within 15:59:59
 * (DuckDB's TIMETZ range), which is ignored; *pp past it. */
static bool clock_offset(const char **pp)
{
    const char *p = *pp;
    while (flt_cast_space(*p)) p++;
    if (*p == 'Z') return *pp = p + 1, true;
    if (*p != '+' && *p != '-') return true;
    int64_t h = flt_cast_digit(p[1]) && flt_cast_digit(p[2]) ? (p[1] - '0') * 10 + (p[2] - '0') : -1, m = 0, sec = 0;
    if (h < 0) return false;
    p += 3;
    if (flt_cast_digit(p[0]) && two_at(p) >= 0) m = two_at(p), p += 2; /* HHMM */
    else if (*p == ':' && (m = two_at(p + 1)) >= 0 && (p += 3, *p == ':'))
        if ((sec = two_at(p + 1)) >= 0) p += 3;
    *pp = p;
    return m >= 0 && sec >= 0 && (h * 60 + m) * 60 + sec <= 57599;
}

/* A TIME's text as nanoseconds (digits past the ninth dropped) into *ns. */
static bool clock_ns(const char *p, int64_t *ns)
{
    int64_t h, mi, sec = 0, f = 0;
    while (flt_cast_space(*p)) p++;
    if (!two(&p, &h) || *p++ != ':' || !two(&p, &mi)) return false;
    bool secs = *p == ':';
    if (secs && (p++, !two(&p, &sec))) return false;
    if (secs && *p == '.')
        for (int64_t mult = (p++, 100000000); flt_cast_digit(*p); p++, mult /= 10) f += mult ? (*p - '0') * mult : 0;
    if (secs && !clock_offset(&p)) return false;
    while (flt_cast_space(*p)) p++;
    if (*p || h > 24 || mi > 59 || sec > 59 || (h == 24 && (mi || sec || f))) return false;
    *ns = ((h * 60 + mi) * 60 + sec) * 1000000000 + f;
    return true;
}

/* The digits 7 to 9 of a timestamp's fraction (its first '.': a date holds none) as
 * nanoseconds past its microsecond. */
static int64_t sub_us(const char *s)
{
    const char *p = strchr(s, '.');
    int64_t ns = 0, mult = 100000000;
    for (int i = 0; p && flt_cast_digit(*++p) && i < 9; i++, mult /= 10) ns += i >= 6 ? (*p - '0') * mult : 0;
    return ns;
}

/* The UTC offset of zone name that ends s's timestamp (ds_ptime_tz took it: its last word)
 * at wall-clock microsecond us. */
static bool zone_offset(const char *s, int64_t us, int64_t *off)
{
    size_t end = strlen(s), start;
    while (end > 0 && flt_cast_space(s[end - 1])) end--;
    for (start = end; start > 0 && s[start - 1] != ' ';) start--;
    return ds_zone_offset(s + start, end - start, us / 1000000 - (us % 1000000 < 0), off);
}

/* The time of day of a timestamp's text s (DuckDB's TIME cast reads "2024-03-01 12:30:05" so,
 * an offset or zone ignored, "24:00:00" the next midnight) as nanoseconds into *ns. */
static bool clock_of_stamp(const char *s, int64_t *ns)
{
    int64_t us, off, day = INT64_C(86400000000);
    bool named;
    if (!ds_ptime_tz(s, &us, &off, &named) || us == INT64_MAX || us == -INT64_MAX) return false;
    *ns = (us % day + (us % day < 0 ? day : 0)) * 1000 + sub_us(s);
    return true;
}

/* A timestamp of s into *x in to's unit (ns: exact to the nanosecond; else DuckDB's
 * microseconds, which must be whole units); utc: an offset, or a zone name's (ds_zone.c),
 * subtracted. */
static bool stamp(const pq_column_desc *to, bool int96, const char *s, __int128 *x)
{
    int64_t us, off;
    bool named;
    if (!ds_ptime_tz(s, &us, &off, &named)) return false;
    if (us == INT64_MAX || us == -INT64_MAX) return *x = us, true; /* infinity */
    if (to->is_adjusted_to_utc && named && !zone_offset(s, us, &off)) return false;
    __int128 ns = ((__int128)us - (to->is_adjusted_to_utc ? (__int128)off * 1000000 : 0)) * 1000;
    if (ds_time_unit(to) == 9 && !int96 && !to->is_adjusted_to_utc) ns += sub_us(s);
    int64_t div = ds_time_unit(to) == 3 ? 1000000 : ds_time_unit(to) == 6 ? 1000 : 1;
    if (ns % div != 0) return false; /* (finer than a millisecond column) */
    *x = ns / div;
    return *x > -INT64_MAX && *x < INT64_MAX;
}

/* String s (NUL-terminated) as a value of type to (ds_texted) into *x (an integer, unscaled
 * decimal, day, time or timestamp count, or a boolean 0/1) or *d (FLOAT, DOUBLE). int96: to
 * is a first INT96 file's nanoseconds (DuckDB: TIMESTAMP). */
static bool parse(const pq_column_desc *to, bool int96, const char *s, __int128 *x, double *d)
{
    __int128 lo, hi;
    int64_t v;
    pq_logical l = to->logical;
    if (to->physical == PQ_BOOLEAN) return flt_cast_bool(s, x);
    if (to->physical == PQ_FLOAT || to->physical == PQ_DOUBLE) return flt_cast_real(s, to->physical == PQ_FLOAT, d);
    if (l == PQ_LOGICAL_DECIMAL) {
        ds_dec_range(to, &lo, &hi);
        return flt_cast_number(s, to->decimal_precision, to->decimal_scale, lo, hi, x);
    }
    if (ds_int_range(to, &lo, &hi)) return flt_cast_number(s, 0, 0, lo, hi, x);
    if (l == PQ_LOGICAL_DATE) return ds_ptime_date(s, false, &v) && (*x = v, true);
    if (l >= PQ_LOGICAL_TIME_MILLIS && l <= PQ_LOGICAL_TIME_NANOS) {
        int64_t div = l == PQ_LOGICAL_TIME_MILLIS ? 1000000 : 1000, ns;
        if (!clock_ns(s, &ns) && !clock_of_stamp(s, &ns)) return false;
        if (l != PQ_LOGICAL_TIME_NANOS) ns -= ns % 1000; /* DuckDB's TIME: microseconds */
        return l == PQ_LOGICAL_TIME_NANOS ? (*x = ns, true) : ns % div == 0 && (*x = ns / div, true);
    }
    assert(int96 || (l >= PQ_LOGICAL_TIMESTAMP_MILLIS && l <= PQ_LOGICAL_TIMESTAMP_NANOS));
    return stamp(to, int96, s, x);
}

/* Row r's value x or d into w (to's physical type). */
static void put(const pq_column_desc *to, pq_vec *w, int64_t r, __int128 x, double d)
{
    if (to->physical == PQ_BOOLEAN) {
        if (x) w->values[r >> 3] |= (uint8_t)(1u << (r & 7));
        return;
    }
    if (to->physical == PQ_FLOAT) { float f = (float)d; memcpy(w->values + 4 * r, &f, 4); return; }
    if (to->physical == PQ_DOUBLE) { memcpy(w->values + 8 * r, &d, 8); return; }
    ds_dec_put(to, w, r, x);
}

/* Whether a string of n bytes is parsed at all: a longer one, or one holding a NUL byte (the
 * casts read NUL-terminated text: "12\0abc" would read as 12; DuckDB refuses it), does not. */
static bool parsable(const char *s, size_t n)
{
    return n < PARSE_MAX && (n == 0 || !memchr(s, 0, n));
}

bool ds_parse_bigint(const char *s, int64_t *v)
{
    __int128 x;
    if (strlen(s) >= PARSE_MAX || !flt_cast_number(s, 0, 0, INT64_MIN, INT64_MAX, &x)) return false;
    *v = (int64_t)x;
    return true;
}

bool ds_parse_leaf_typed(const pq_column_desc *to)
{
    return ds_texted(to) && to->physical != PQ_INT96; /* (a FIXED_LEN one: a decimal) */
}

bool ds_parse_leaf(const pq_column_desc *to, const char *s, size_t n, uint8_t *out, int *w)
{
    assert(ds_parse_leaf_typed(to));
    char text[PARSE_MAX];
    __int128 x = 0;
    double d = 0;
    if (!parsable(s, n)) return false;
    memcpy(text, s, n), text[n] = 0;
    if (!parse(to, false, text, &x, &d)) return false;
    if (to->physical == PQ_FIXED_LEN_BYTE_ARRAY) { /* big-endian, as stored */
        assert(to->type_length >= 1 && to->type_length <= 16); /* (ds_texted) */
        *w = to->type_length;
        for (int k = *w - 1; k >= 0; k--, x >>= 8) out[k] = (uint8_t)x; /* (arithmetic shift) */
        return true;
    }
    int32_t i32 = (int32_t)x; /* (an unsigned type's bits) */
    int64_t i64 = (int64_t)x;
    float f = (float)d;
    *w = to->physical == PQ_BOOLEAN ? 1 : pq_fixed_width(to->physical, 0);
    const void *src = to->physical == PQ_BOOLEAN ? (const void *)&(uint8_t){x != 0}
                      : to->physical == PQ_INT32 ? (const void *)&i32
                      : to->physical == PQ_INT64 ? (const void *)&i64
                      : to->physical == PQ_FLOAT ? (const void *)&f
                                                 : (const void *)&d;
    memcpy(out, src, (size_t)*w);
    return true;
}

int ds_parse_cast(const ds_col *c, const char *path, pq_vec *v, pq_err *e)
{
    const pq_column_desc *to = &c->desc;
    assert(v->type == PQ_BYTE_ARRAY && ds_texted(to));
    pq_vec w;
    pq_vec_init(&w, to->physical, to->physical == PQ_FIXED_LEN_BYTE_ARRAY ? to->type_length : 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return pq_vec_free(&w), rc; /* its part allocated */
    if (to->physical == PQ_BOOLEAN) memset(w.values, 0, (size_t)(v->length + 7) / 8);
    bool int96 = c->adesc.physical == PQ_INT96;
    for (int64_t r = 0; r < v->length; r++) {
        __int128 x = 0;
        double d = 0;
        size_t n = (size_t)(v->offsets[r + 1] - v->offsets[r]);
        const char *s = n ? (const char *)v->data + v->offsets[r] : ""; /* (data may be NULL) */
        char text[PARSE_MAX];
        if (parsable(s, n)) memcpy(text, s, n), text[n] = 0;
        if (pq_vec_is_valid(v, r) && (!parsable(s, n) || !parse(to, int96, text, &x, &d))) {
            pq_vec_free(&w);
            char type[64];
            bool held = ds_cast_type_text(to, type, sizeof type);
            const char *nul = memchr(s, 0, n > 60 ? 60 : n);
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.120s: column '%.40s': the string "
                           "'%.*s%s' does not parse as %s, its type from %.120s (%s)", path, c->name,
                           (int)(nul ? nul - s : n > 60 ? 60 : n), s, nul ? "\\0..." : "", type, c->from,
                           held ? "DuckDB reads it in its precision" : "DuckDB's cast refuses it too, "
                           "or reads a form ringscan does not");
        }
        put(to, &w, r, x, d);
    }
    ds_replace_vec(v, &w);
    return 0;
}
