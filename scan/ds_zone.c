/* scan/ds_zone.c: a time zone name's offsets from the system's zone database (the TZif files,
 * RFC 8536, under $TZDIR or /usr/share/zoneinfo), for a string read as a timestamp under a
 * UTC column (ds_parse.c) as DuckDB's cast reads '2024-03-01 12:00 Europe/Paris' with ICU's
 * zones: the instant of that local time, in a gap (a skipped hour) with the offset before the
 * transition, in an overlap (a repeated hour) the later instant, as ICU's default wall-time
 * options give them. Names match each path component case-insensitively, as DuckDB's do.
 *
 * Invariants:
 *  1. Every count and length read from a file is checked against the bytes read (at most
 *     DS_ZONE_FILE_MAX); a file that does not parse is a zone not found (false).
 *  2. A zone is loaded once per process and kept in a cache of at most DS_ZONE_CACHE entries
 *     (past it, loaded for the call and freed), guarded by a mutex; an entry is immutable once
 *     published. The load is a blocking read of one small file, once per name.
 *  3. An instant before the file's first transition takes its first type (local mean time);
 *     one past its last follows the footer's POSIX TZ rule when it has one. */
#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/fail.h"
#include "scan/ds_impl.h"

enum { DS_ZONE_FILE_MAX = 1 << 16, DS_ZONE_CACHE = 32, DS_ZONE_PATH_MAX = 512 };

typedef struct rule { /* a POSIX TZ rule's day (M: month.week.weekday; J: 1..365 without Feb 29;
                         N: 0..365) and its local time of day in seconds */
    char kind;
    int m, w, d;
    int64_t secs;
} rule;

typedef struct zone {
    char name[DS_ZONE_NAME_MAX + 1];
    int64_t *at;        /* transitions (UTC seconds), rising */
    int32_t *off;       /* the offset from each on */
    int32_t n, off0;    /* their count; the offset before the first (type 0) */
    bool has_rule, dst; /* the footer's rule: a fixed offset, or standard and daylight time */
    int32_t std_off, dst_off;
    rule start, end;
} zone;

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static zone *cache[DS_ZONE_CACHE];
static int ncached;

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static int64_t be64(const uint8_t *p) { return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)); }

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Hinnant's days_from_civil). */
static int64_t days_of(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* The year of day `days` since 1970-01-01. */
static int64_t year_of(int64_t days)
{
    int64_t y = 1970 + days / 366;
    while (days_of(y + 1, 1, 1) <= days) y++;
    while (days_of(y, 1, 1) > days) y--;
    return y;
}

/* [+-]hh[:mm[:ss]] at *p into *s (seconds); false when absent. */
static bool hms(const char **p, int64_t *s)
{
    int sign = **p == '-' ? -1 : 1, part = 0;
    if (**p == '+' || **p == '-') (*p)++;
    if (!isdigit((unsigned char)**p)) return false;
    int64_t v[3] = {0, 0, 0};
    for (; part < 3; part++) {
        for (int k = 0; k < 3 && isdigit((unsigned char)**p); k++) v[part] = v[part] * 10 + (*(*p)++ - '0');
        if (part == 2 || **p != ':') break;
        (*p)++;
    }
    *s = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
    return true;
}

/* A POSIX TZ abbreviation at *p (letters, or <...>). */
static bool abbr(const char **p)
{
    const char *q = *p;
    if (*q == '<') {
        while (*q && *q != '>') q++;
        if (*q != '>') return false;
        *p = q + 1;
        return true;
    }
    while (isalpha((unsigned char)*q)) q++;
    bool ok = q - *p >= 3;
    *p = q;
    return ok;
}

static bool rule_at(const char **p, rule *r)
{
    char *end;
    r->kind = **p == 'M' || **p == 'J' ? *(*p)++ : 'N';
    long a = strtol(*p, &end, 10);
    *p = end;
    if (r->kind == 'M') {
        long b = **p == '.' ? strtol(*p + 1, &end, 10) : -1;
        *p = end;
        long c = **p == '.' ? strtol(*p + 1, &end, 10) : -1;
        *p = end;
        if (a < 1 || a > 12 || b < 1 || b > 5 || c < 0 || c > 6) return false;
        r->m = (int)a, r->w = (int)b, r->d = (int)c;
    } else {
        if (a < 0 || a > 365) return false;
        r->d = (int)a;
    }
    r->secs = 7200;
    if (**p == '/') {
        (*p)++;
        return hms(p, &r->secs);
    }
    return true;
}

/* The footer's POSIX TZ rule s (NUL-terminated) into z: "CET-1CEST,M3.5.0,M10.5.0/3". */
static void footer(zone *z, const char *s)
{
    int64_t o, d;
    if (!abbr(&s) || !hms(&s, &o)) return;
    z->std_off = (int32_t)-o, z->has_rule = true; /* (POSIX counts west of UTC) */
    if (!*s) return;
    if (!abbr(&s)) return (void)(z->has_rule = false);
    z->dst_off = z->std_off + 3600;
    if (*s != ',' && hms(&s, &d)) z->dst_off = (int32_t)-d;
    if (*s++ != ',' || !rule_at(&s, &z->start) || *s++ != ',' || !rule_at(&s, &z->end) || *s)
        return (void)(z->has_rule = false); /* (no rule: the last transition's offset) */
    z->dst = true;
}

/* Seconds from the epoch to rule r's local time in year y (local: UTC plus the offset). */
static int64_t rule_local(const rule *r, int64_t y)
{
    int64_t day;
    if (r->kind == 'J') day = days_of(y, 1, 1) + r->d - 1 + (leap(y) && r->d >= 60);
    else if (r->kind == 'N') day = days_of(y, 1, 1) + r->d;
    else {
        int64_t first = days_of(y, r->m, 1);
        int wd = (int)(((first + 4) % 7 + 7) % 7); /* (1970-01-01 was a Thursday) */
        int mday = 1 + (r->d - wd + 7) % 7 + (r->w - 1) * 7;
        static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int last = mdays[r->m - 1] + (r->m == 2 && leap(y));
        while (mday > last) mday -= 7;
        day = first + mday - 1;
    }
    return day * 86400 + r->secs;
}

/* The offset of zone z at UTC second t. */
static int32_t offset_at(const zone *z, int64_t t)
{
    if (z->n == 0 || t < z->at[0]) return z->n == 0 && z->has_rule && !z->dst ? z->std_off : z->off0;
    if (t >= z->at[z->n - 1] && z->has_rule) {
        if (!z->dst) return z->std_off;
        int64_t y = year_of((t + z->std_off) / 86400 - ((t + z->std_off) % 86400 < 0));
        int64_t on = rule_local(&z->start, y) - z->std_off, off = rule_local(&z->end, y) - z->dst_off;
        bool in = on < off ? t >= on && t < off : !(t >= off && t < on);
        return in ? z->dst_off : z->std_off;
    }
    assert(z->n > 0 && t >= z->at[0]); /* (parse: at[] rising) */
    int32_t lo = 0, hi = z->n - 1; /* the last transition at or before t */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (z->at[mid] <= t) lo = mid;
        else hi = mid - 1;
    }
    return z->off[lo];
}

/* z's transitions and types from TZif bytes b[0 .. len) (invariant 1). */
static bool parse(zone *z, const uint8_t *b, size_t len)
{
    if (len < 44 || memcmp(b, "TZif", 4) != 0) return false;
    int w = 4; /* the first block's 4-byte times, or past it a version 2+ file's 8-byte ones */
    size_t pos = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (len - pos < 44 || memcmp(b + pos, "TZif", 4) != 0) return false;
        uint64_t isut = be32(b + pos + 20), isstd = be32(b + pos + 24), nleap = be32(b + pos + 28);
        uint64_t nt = be32(b + pos + 32), ntype = be32(b + pos + 36), nchar = be32(b + pos + 40);
        uint64_t body = nt * (uint64_t)w + nt + ntype * 6 + nchar + nleap * (uint64_t)(w + 4) + isstd + isut;
        if (ntype == 0 || ntype > 256 || nt > DS_ZONE_FILE_MAX || body > len - pos - 44) return false;
        const uint8_t *p = b + pos + 44, *idx = p + nt * (uint64_t)w, *types = idx + nt;
        if (pass == 0 && b[4] >= '2') { /* (skip the 32-bit block) */
            pos += 44 + body, w = 8;
            continue;
        }
        z->at = fail_malloc(sizeof *z->at * (nt + 1)), z->off = fail_malloc(sizeof *z->off * (nt + 1));
        if (!z->at || !z->off) return false;
        for (uint64_t i = 0; i < nt; i++) {
            if (idx[i] >= ntype) return false;
            z->at[i] = w == 8 ? be64(p + i * 8) : (int32_t)be32(p + i * 4);
            z->off[i] = (int32_t)be32(types + idx[i] * 6);
            if (i > 0 && z->at[i] <= z->at[i - 1]) return false;
        }
        z->n = (int32_t)nt, z->off0 = (int32_t)be32(types);
        const char *foot = (const char *)(b + pos + 44 + body);
        size_t left = len - pos - 44 - body;
        char s[128];
        if (w == 8 && left >= 2 && foot[0] == '\n' && left - 1 < sizeof s) {
            memcpy(s, foot + 1, left - 1), s[left - 1] = 0;
            char *nl = strchr(s, '\n');
            if (nl) *nl = 0, footer(z, s);
        }
        return true;
    }
    return false;
}

/* The zone file of name under dir, each component matched case-insensitively (an exact match
 * first), into path. */
static bool find(const char *dir, const char *name, char *path, size_t cap)
{
    if ((size_t)snprintf(path, cap, "%s", dir) >= cap) return false;
    for (const char *c = name; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || n > 255) return false;
        char want[256], got[256] = "";
        memcpy(want, c, n), want[n] = 0;
        DIR *dp = opendir(path);
        if (!dp) return false;
        for (struct dirent *de; (de = readdir(dp));)
            if (strcasecmp(de->d_name, want) == 0 && (!got[0] || strcmp(de->d_name, want) == 0))
                snprintf(got, sizeof got, "%s", de->d_name);
        closedir(dp);
        size_t at = strlen(path);
        if (!got[0] || (size_t)snprintf(path + at, cap - at, "/%s", got) >= cap - at) return false;
        c += n + (c[n] == '/');
    }
    return true;
}

static void zone_free(zone *z)
{
    if (z) free(z->at), free(z->off), free(z);
}

/* Zone name loaded from the database, or NULL (not found, or out of memory). */
static zone *load(const char *name)
{
    const char *dir = getenv("TZDIR");
    char path[DS_ZONE_PATH_MAX];
    if (name[0] == '/' || strncasecmp(name, "posix/", 6) == 0 || strncasecmp(name, "right/", 6) == 0 ||
        !find(dir && *dir ? dir : "/usr/share/zoneinfo", name, path, sizeof path))
        return NULL; /* (the database's variants: not ICU's names) */
    FILE *f = fopen(path, "rb");
    uint8_t *b = f ? fail_malloc(DS_ZONE_FILE_MAX) : NULL;
    size_t len = b ? fread(b, 1, DS_ZONE_FILE_MAX, f) : 0;
    zone *z = b && len < DS_ZONE_FILE_MAX ? fail_calloc(1, sizeof *z) : NULL;
    if (f) fclose(f);
    if (z && !parse(z, b, len)) zone_free(z), z = NULL;
    if (z) snprintf(z->name, sizeof z->name, "%s", name);
    free(b);
    return z;
}

/* The offset of local second `local` in z (the rules above). */
static int32_t local_offset(const zone *z, int64_t local)
{
    int32_t cand[3] = {offset_at(z, local - 2 * 86400), offset_at(z, local), offset_at(z, local + 2 * 86400)};
    int32_t best = 0, hi = cand[0];
    bool found = false;
    for (int i = 0; i < 3; i++) {
        hi = cand[i] > hi ? cand[i] : hi;
        if (offset_at(z, local - cand[i]) == cand[i] && (!found || local - cand[i] > local - best))
            best = cand[i], found = true; /* (an overlap: the later instant) */
    }
    return found ? best : offset_at(z, local - hi); /* (a gap: the offset before it) */
}

bool ds_zone_offset(const char *name, size_t len, int64_t local_s, int64_t *off_s)
{
    char key[DS_ZONE_NAME_MAX + 1];
    if (len == 0 || len > DS_ZONE_NAME_MAX) return false;
    memcpy(key, name, len), key[len] = 0;
    zone *z = NULL, *own = NULL;
    pthread_mutex_lock(&cache_mu);
    assert(ncached >= 0 && ncached <= DS_ZONE_CACHE);
    for (int i = 0; i < ncached && !z; i++)
        if (strcasecmp(cache[i]->name, key) == 0) z = cache[i];
    if (!z && (own = load(key)) && ncached < DS_ZONE_CACHE) cache[ncached++] = own, z = own, own = NULL;
    pthread_mutex_unlock(&cache_mu);
    if (!z) z = own;
    if (z) *off_s = local_offset(z, local_s);
    zone_free(own);
    return z != NULL;
}
