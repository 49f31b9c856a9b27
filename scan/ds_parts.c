/* scan/ds_parts.c: hive partition values (dataset.h ds_part_parse, ds_part_infer,
 * ds_part_decode): their types inferred as DuckDB 2.0.1 infers them (the first of DATE,
 * TIMESTAMP, BIGINT a strict cast of the text as a directory name writes it accepts, else
 * VARCHAR; its MultiFileOptions::AutoDetectHiveTypesInternal), parsed into int64 (BIGINT,
 * days, microseconds) as its cast parses them (dates and times: scan/ds_ptime.c; BIGINT:
 * ds_parse.c's cast from VARCHAR), and their %XX escapes decoded. No I/O, no allocation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/ds_impl.h"

static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Digits of base 16 or 2 after "0x" / "0b" (DuckDB: a binary digit may be followed by one '_'
 * and another digit), nothing after them, at most INT64_MAX. */
static bool based_int(const char *d, int base, int64_t *v)
{
    uint64_t x = 0;
    int n = 0;
    for (; *d; d++, n++) {
        int dig = is_digit(*d) ? *d - '0' : (*d | 32) >= 'a' && (*d | 32) <= 'f' ? (*d | 32) - 'a' + 10 : 99;
        if (base == 2 && *d == '_' && n > 0 && (d[1] == '0' || d[1] == '1')) continue;
        if (dig >= base || x > (uint64_t)(INT64_MAX - dig) / (uint64_t)base) return false;
        x = x * (uint64_t)base + (uint64_t)dig;
    }
    *v = (int64_t)x;
    return n > 0;
}

/* DuckDB 2.0.1's strict VARCHAR -> BIGINT cast, as its hive type inference uses it: leading
 * spaces, then "0x"/"0b" digits, or [-]digits and trailing spaces; no '+', no leading zero
 * before a digit unless negative ("-01" is -1, "007" text). (--hive-types' cast, which is not
 * strict, is ds_parse_bigint.) */
static bool hive_int(const char *s, int64_t *v)
{
    while (is_space(*s)) s++;
    bool neg = *s == '-';
    if (!neg && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return based_int(s + 2, 16, v);
    if (!neg && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) return based_int(s + 2, 2, v);
    if (!neg && s[0] == '0' && is_digit(s[1])) return false;
    const char *d = s + neg;
    int64_t x = 0;
    int n = 0, sign = neg ? -1 : 1;
    for (; is_digit(*d); d++, n++)
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, sign * (*d - '0'), &x))
            return false;
    while (is_space(*d)) d++;
    *v = x;
    return n > 0 && !*d;
}

bool ds_part_parse(ds_ptype t, const char *text, int64_t *v)
{
    *v = 0;
    if (t == DS_BIGINT) return ds_parse_bigint(text, v);
    if (t == DS_DATE) return ds_ptime_date(text, false, v);
    if (t == DS_TIMESTAMP) return ds_ptime_ts(text, v);
    return true;
}

bool ds_part_is_null(const char *text) { return strcmp(text, "__HIVE_DEFAULT_PARTITION__") == 0; }

ds_ptype ds_part_infer(const char *text)
{
    int64_t v;
    if (ds_ptime_date(text, true, &v)) return DS_DATE; /* DuckDB's order: DATE, TIMESTAMP, BIGINT */
    if (ds_ptime_ts(text, &v)) return DS_TIMESTAMP;
    if (hive_int(text, &v)) return DS_BIGINT;
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
