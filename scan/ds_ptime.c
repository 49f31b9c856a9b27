/* scan/ds_ptime.c: hive partition DATE and TIMESTAMP values read as DuckDB 2.0.1 casts text
 * (ds_ptime_date, ds_ptime_ts; declared in dataset.h). The rules follow DuckDB's
 * Date::TryConvertDate and Timestamp::TryConvertTimestampTZ, with what 2.0.1 was seen to do
 * beside them (tests/cli/hive_types.sh compares every rule's values with it):
 *  - a date is [spaces][-]Y..Y<sep>M[M]<sep>D[D][ (BC)], sep one of ' ' '-' '\\' (and '/',
 *    which a directory name cannot hold), year up to 9 digits (a strict DATE: 2 or more),
 *    the date inside 5877642-06-25 (BC) .. 5881580-07-10; or [-]infinity / epoch / [-]inf
 *    (any case; no space after inf);
 *    only spaces may follow a DATE, but a cast (hive_types, not strict) takes the date of
 *    any timestamp ("2024-01-01 10:00:00" is 2024-01-01);
 *  - a timestamp is a date, then ' ' or 'T' (or spaces), then H..H:[MM[:[SS[.f...]]]] (a
 *    fraction's digits past the sixth dropped, 24:00:00 the next midnight), then 'Z', a
 *    +HH[[:]MM[:SS]] offset, or ' ' and a zone name of [A-Za-z0-9/_+-], then spaces. The
 *    offset or zone is read and ignored: DuckDB 2.0.1's hive value is the wall time written.
 * No I/O, no allocation: one pass over the text with a cursor. */
#include <stdint.h>
#include <string.h>

#include "scan/dataset.h"

enum { DATE_INF = INT32_MAX, HOUR_DIGITS_MAX = 10 };
static const int64_t US_PER_DAY = INT64_C(86400000000);

typedef struct cur {
    const char *s;
    size_t n, pos;
} cur;

static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool at(const cur *c, char ch) { return c->pos < c->n && c->s[c->pos] == ch; }
static bool at_digit(const cur *c) { return c->pos < c->n && is_digit(c->s[c->pos]); }
static void skip_spaces(cur *c)
{
    while (c->pos < c->n && is_space(c->s[c->pos])) c->pos++;
}
static int lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* One or two digits (DuckDB's ParseDoubleDigit). */
static bool two_digits(cur *c, int *v)
{
    if (!at_digit(c)) return false;
    *v = c->s[c->pos++] - '0';
    if (at_digit(c)) *v = *v * 10 + (c->s[c->pos++] - '0');
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil);
 * false outside DuckDB's DATE range or for a day the month lacks. */
static bool civil_days(int64_t y, int m, int d, int64_t *days)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] || (m == 2 && d == 29 && !leap)) return false;
    if (y < -5877641 || (y == -5877641 && (m < 6 || (m == 6 && d < 25)))) return false;
    if (y > 5881580 || (y == 5881580 && (m > 7 || (m == 7 && d > 10)))) return false;
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    *days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    return true;
}

/* "infinity" or "epoch" (any case) at c, then only spaces, or "inf" (any case) ending the text
 * (DuckDB 2.0.1: "inf " is no date). */
static bool date_special(cur *c, bool neg, int64_t *days, bool *special)
{
    static const char *const words[] = {"infinity", "epoch", "inf"};
    for (int w = 0; w < 3; w++) {
        size_t len = strlen(words[w]), i = 0;
        while (i < len && c->pos + i < c->n && lower(c->s[c->pos + i]) == words[w][i]) i++;
        if (i < len) continue;
        c->pos += len;
        if (w < 2) skip_spaces(c);
        *days = w == 1 ? 0 : neg ? -DATE_INF : DATE_INF;
        *special = true;
        return c->pos == c->n;
    }
    return false;
}

/* " (BC)" (any case) at c: the year counted back from 1 (1 BC is year 0). */
static bool bc_at(cur *c, bool neg, int64_t *year)
{
    const char *p = c->s + c->pos;
    if (c->n - c->pos < 5 || !is_space(p[0]) || p[1] != '(' || lower(p[2]) != 'b' || lower(p[3]) != 'c' ||
        p[4] != ')')
        return true;
    if (neg || *year == 0) return false;
    *year = 1 - *year;
    c->pos += 5;
    return true;
}

/* A date at c (DuckDB's Date::TryConvertDate); c->pos after it. whole: only spaces may follow
 * (else anything but a digit: a timestamp's time); strict: a year of 2 or more digits. */
static bool date_at(cur *c, bool strict, bool whole, int64_t *days, bool *special)
{
    *special = false;
    skip_spaces(c);
    bool neg = at(c, '-');
    if (neg) c->pos++;
    if (c->pos >= c->n) return false;
    if (!is_digit(c->s[c->pos])) return date_special(c, neg, days, special);
    int64_t year = 0;
    size_t y0 = c->pos;
    for (; at_digit(c); c->pos++) {
        if (year >= 100000000) return false;
        year = year * 10 + (c->s[c->pos] - '0');
    }
    if (strict && c->pos - y0 < 2) return false; /* 2.0.1: "1-01-01" is no DATE (a TIMESTAMP) */
    if (neg) year = -year;
    if (c->pos >= c->n) return false;
    char sep = c->s[c->pos++];
    int month, day;
    if ((sep != ' ' && sep != '-' && sep != '/' && sep != '\\') || !two_digits(c, &month) || !at(c, sep))
        return false;
    c->pos++;
    if (!two_digits(c, &day) || !bc_at(c, neg, &year)) return false;
    if (whole) {
        skip_spaces(c);
        if (c->pos < c->n) return false;
    } else if (at_digit(c)) {
        return false;
    }
    return civil_days(year, month, day, days);
}

bool ds_ptime_date(const char *text, bool strict, int64_t *days)
{
    cur c = {text, strlen(text), 0};
    bool special;
    if (date_at(&c, strict, true, days, &special)) return true;
    int64_t us;
    if (strict || !ds_ptime_ts(text, &us)) return false;
    *days = us == INT64_MAX ? DATE_INF : us == -INT64_MAX ? -DATE_INF : us / US_PER_DAY - (us % US_PER_DAY < 0);
    return true;
}

/* ".f..." at c (the '.' included) as microseconds: digits past the sixth read and dropped. */
static int64_t fraction_at(cur *c)
{
    int64_t frac = 0, mult = 100000;
    for (c->pos++; at_digit(c); c->pos++, mult /= 10) frac += (c->s[c->pos] - '0') * mult;
    return frac;
}

/* H..H:[MM[:[SS[.f...]]]] at c as microseconds (at most one day: 24:00:00). */
static bool time_at(cur *c, int64_t *us)
{
    skip_spaces(c);
    int64_t hour = 0;
    int digits = 0, min = 0, sec = 0;
    for (; at_digit(c); c->pos++, digits++) {
        if (digits == HOUR_DIGITS_MAX) return false;
        hour = hour * 10 + (c->s[c->pos] - '0');
    }
    if (digits == 0 || hour > 24 || !at(c, ':')) return false;
    c->pos++;
    int64_t frac = 0;
    if (two_digits(c, &min) && at(c, ':')) {
        c->pos++;
        if (two_digits(c, &sec) && at(c, '.')) frac = fraction_at(c);
    }
    if (min >= 60 || sec >= 60) return false;
    *us = ((hour * 60 + min) * 60 + sec) * INT64_C(1000000) + frac;
    return *us <= US_PER_DAY;
}

/* [+-]HH[[:]MM[:SS]] at c, its seconds east of UTC into *off. */
static bool offset_at(cur *c, int64_t *off)
{
    const char *p = c->s + c->pos;
    size_t left = c->n - c->pos, k = 3;
    if (left < 3 || (p[0] != '+' && p[0] != '-') || !is_digit(p[1]) || !is_digit(p[2])) return false;
    int64_t part[3] = {(p[1] - '0') * 10 + (p[2] - '0'), 0, 0};
    if (k + 3 <= left && p[k] == ':' && is_digit(p[k + 1]) && is_digit(p[k + 2])) k += 3;
    else if (k + 2 <= left && is_digit(p[k]) && is_digit(p[k + 1])) k += 2;
    if (k > 3) part[1] = (p[k - 2] - '0') * 10 + (p[k - 1] - '0');
    if (k > 3 && k + 3 <= left && p[k] == ':' && is_digit(p[k + 1]) && is_digit(p[k + 2]))
        k += 3, part[2] = (p[k - 2] - '0') * 10 + (p[k - 1] - '0');
    *off = (p[0] == '-' ? -1 : 1) * (part[0] * 3600 + part[1] * 60 + part[2]);
    c->pos += k;
    return true;
}

static bool zone_char(char ch)
{
    return is_digit(ch) || (lower(ch) >= 'a' && lower(ch) <= 'z') || ch == '/' || ch == '_' || ch == '+' ||
           ch == '-' || ch == ':'; /* (':': ICU's custom zones, "GMT+05:30") */
}

/* What may follow a timestamp's time: 'Z', an offset (its seconds into *off), or ' ' and a
 * zone name (*named); then spaces. */
static bool zone_at(cur *c, int64_t *off, bool *named)
{
    if (c->pos == c->n) return true;
    if (at(c, 'Z')) {
        c->pos++;
    } else if (!offset_at(c, off)) {
        if (!at(c, ' ')) return false;
        for (c->pos++; c->pos < c->n && zone_char(c->s[c->pos]); c->pos++) *named = true;
    }
    skip_spaces(c);
    return c->pos == c->n;
}

bool ds_ptime_ts(const char *text, int64_t *us)
{
    int64_t off;
    bool named;
    return ds_ptime_tz(text, us, &off, &named);
}

bool ds_ptime_tz(const char *text, int64_t *us, int64_t *off_s, bool *named)
{
    *off_s = 0, *named = false;
    cur c = {text, strlen(text), 0};
    int64_t days, t;
    bool special;
    if (!date_at(&c, false, false, &days, &special)) return false;
    if (special) {
        *us = days == 0 ? 0 : days > 0 ? INT64_MAX : -INT64_MAX;
        return true;
    }
    if (c.pos == c.n) return !__builtin_mul_overflow(days, US_PER_DAY, us);
    if (at(&c, ' ') || at(&c, 'T')) c.pos++;
    if (!time_at(&c, &t) || __builtin_mul_overflow(days, US_PER_DAY, us) ||
        __builtin_add_overflow(*us, t, us) || *us == INT64_MAX || *us == -INT64_MAX)
        return false;
    return zone_at(&c, off_s, named);
}
