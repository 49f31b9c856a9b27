/* scan/ds_parts.c: hive partition values (dataset.h ds_part_parse, ds_part_infer,
 * ds_part_decode): their types inferred as DuckDB 2.0.1 infers them (BIGINT, DATE,
 * TIMESTAMP, else VARCHAR) from the text as a directory name writes it, parsed into int64
 * (days, microseconds), and their %XX escapes decoded. No I/O, no allocation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/dataset.h"

static bool canonical_int(const char *s, int64_t *v)
{
    const char *d = s + (*s == '-');
    if (!*d || (d[0] == '0' && d[1]) || strlen(d) > 19 || strspn(d, "0123456789") != strlen(d))
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno || *end || (x == 0 && *s == '-')) return false;
    *v = x;
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool parse_date(const char *s, int64_t *v)
{
    int y, m, d, n = 0;
    if (strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10) return false;
    if (s[4] != '-' || s[7] != '-' || strspn(s, "0123456789-") != 10) return false;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] || (m == 2 && d == 29 && !leap)) return false;
    *v = days_from_civil(y, m, d);
    return true;
}

/* An integer with an optional '-' and leading zeros allowed (a cast, as DuckDB's). */
static bool any_int(const char *s, int64_t *v)
{
    const char *d = s + (*s == '-');
    if (!*d || strspn(d, "0123456789") != strlen(d)) return false;
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno || *end) return false;
    *v = x;
    return true;
}

/* "YYYY-MM-DD HH:MM:SS[.f...]" (or 'T' between) as microseconds since the epoch, up to 6
 * fraction digits. */
static bool parse_ts(const char *s, int64_t *v)
{
    char date[11];
    int h, m, sec, n = 0;
    if (strlen(s) < 19 || (s[10] != ' ' && s[10] != 'T')) return false;
    memcpy(date, s, 10), date[10] = 0;
    int64_t days;
    if (!parse_date(date, &days)) return false;
    if (sscanf(s + 11, "%2d:%2d:%2d%n", &h, &m, &sec, &n) != 3 || n != 8 || s[13] != ':' ||
        s[16] != ':' || strspn(s + 11, "0123456789:") < 8 || h > 23 || m > 59 || sec > 59)
        return false;
    const char *f = s + 19;
    int64_t frac = 0, digits = 0;
    if (*f == '.')
        for (f++; *f >= '0' && *f <= '9' && digits < 6; f++, digits++) frac = frac * 10 + (*f - '0');
    if (*f) return false;
    for (; digits < 6; digits++) frac *= 10;
    *v = ((days * 24 + h) * 60 + m) * INT64_C(60000000) + sec * INT64_C(1000000) + frac;
    return true;
}

bool ds_part_parse(ds_ptype t, const char *text, int64_t *v)
{
    *v = 0;
    if (t == DS_BIGINT) return any_int(text, v);
    if (t == DS_DATE) return parse_date(text, v);
    if (t == DS_TIMESTAMP) return parse_ts(text, v);
    return true;
}

bool ds_part_is_null(const char *text) { return strcmp(text, "__HIVE_DEFAULT_PARTITION__") == 0; }

ds_ptype ds_part_infer(const char *text)
{
    int64_t v;
    if (canonical_int(text, &v)) return DS_BIGINT;
    if (parse_date(text, &v)) return DS_DATE;
    if (parse_ts(text, &v)) return DS_TIMESTAMP;
    return DS_VARCHAR;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

void ds_part_decode(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        int hi = p[0] == '%' ? hex_digit(p[1]) : -1, lo = hi >= 0 ? hex_digit(p[2]) : -1;
        if (lo >= 0 && (hi | lo) != 0) {
            *o++ = (char)(hi * 16 + lo);
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
}
