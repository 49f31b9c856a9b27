/* scan/ds_zone.c: a time zone name's offset from ICU's calendar (Debian libicu), for a string
 * read as a timestamp under a UTC column (ds_parse.c) as DuckDB's cast reads '2024-03-01 12:00
 * Europe/Paris' with ICU: the name as ICU takes it (a zone ID, or a custom one such as
 * "GMT+5"), else matched case-insensitively against ICU's zone list, as DuckDB matches it; the
 * offset of that local time as ICU's calendar gives it under the wall-time options DuckDB
 * leaves at their defaults (UCAL_WALLTIME_LAST, which the calendar itself computes as
 * ucal_getTimeZoneOffsetFromLocal's FORMER/LATTER below): a skipped hour takes the offset
 * before the transition, a repeated one the later instant's.
 *
 * ICU is loaded on the first zone asked for (common/icu_dl.h); when it cannot be, no zone is
 * found.
 *
 * Invariants:
 *  1. Every ICU call's status is checked; a failure is a zone not found (false).
 *  2. A thread keeps the calendars of the last DS_ZONE_CACHE names it asked for (opening one
 *     costs ~60 us, a name matched in the list ~0.9 ms; a lookup ~0.1 us); nothing is shared
 *     between threads; the thread's end closes them. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include "common/icu_dl.h"
#include "scan/ds_impl.h"

enum { DS_ZONE_CACHE = 8 };

typedef struct zcache { /* a thread's zones: the names asked for (as given) and their calendars */
    char key[DS_ZONE_CACHE][DS_ZONE_NAME_MAX + 1];
    UCalendar *cal[DS_ZONE_CACHE];
    int next; /* the entry replaced next */
} zcache;

static _Thread_local zcache cache;
static pthread_key_t cache_key; /* (set to &cache: its destructor closes the thread's calendars) */
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static bool key_ok;

/* ICU's zone list's entry equal to key in any case (an exact one first) into id; false when
 * none (or ICU fails). */
static bool listed(const icu_fns *icu, const char *key, char *id, size_t cap)
{
    UErrorCode st = U_ZERO_ERROR;
    UEnumeration *all = icu->open_time_zones(&st);
    bool found = false;
    int32_t n;
    for (const char *z; U_SUCCESS(st) && (z = icu->enum_next(all, &n, &st)) != NULL;) {
        if (strcasecmp(z, key) != 0 || (found && strcmp(z, key) != 0) || (size_t)n >= cap) continue;
        memcpy(id, z, (size_t)n + 1), found = true;
    }
    icu->enum_close(all);
    return found && U_SUCCESS(st);
}

/* A calendar of zone id (UTF-16), or NULL when ICU does not know it (its "Etc/Unknown",
 * unless asked for by that exact name, as DuckDB takes it) or fails. */
static UCalendar *open_zone(const icu_fns *icu, const UChar *id, bool unknown_ok)
{
    UErrorCode st = U_ZERO_ERROR;
    UCalendar *cal = icu->open(id, -1, "", UCAL_GREGORIAN, &st);
    UChar got[DS_ZONE_NAME_MAX + 1], unknown[] = u"Etc/Unknown";
    int32_t n = U_SUCCESS(st) ? icu->time_zone_id(cal, got, DS_ZONE_NAME_MAX + 1, &st) : 0;
    if (U_SUCCESS(st) && (unknown_ok || n != (int32_t)(sizeof unknown / sizeof *unknown - 1) ||
                          icu->strncmp_(got, unknown, n) != 0))
        return cal;
    icu->close(cal);
    return NULL;
}

/* This thread's cache (invariant 2), its calendars closed when the thread ends. */
static void cache_free(void *p)
{
    zcache *c = p;
    for (int i = 0; i < DS_ZONE_CACHE; i++)
        if (c->cal[i]) icu_dl()->close(c->cal[i]), c->cal[i] = NULL; /* (loaded: it opened them) */
}

static void cache_key_make(void) { key_ok = pthread_key_create(&cache_key, cache_free) == 0; }

/* The calendar of zone key, any case, from this thread's cache or opened into it; NULL when
 * no zone has that name (or ICU or the cache's key fails). */
static UCalendar *zone_of(const icu_fns *icu, const char *key, size_t len)
{
    assert(cache.next >= 0 && cache.next < DS_ZONE_CACHE && len <= DS_ZONE_NAME_MAX);
    for (int i = 0; i < DS_ZONE_CACHE; i++)
        if (cache.cal[i] && strcmp(cache.key[i], key) == 0) return cache.cal[i];
    char id[DS_ZONE_NAME_MAX + 1];
    UChar uid[DS_ZONE_NAME_MAX + 1];
    UErrorCode st = U_ZERO_ERROR;
    icu->str_from_utf8(uid, DS_ZONE_NAME_MAX + 1, NULL, key, (int32_t)len, &st);
    UCalendar *cal = U_SUCCESS(st) ? open_zone(icu, uid, strcmp(key, "Etc/Unknown") == 0) : NULL;
    if (!cal && listed(icu, key, id, sizeof id)) cal = open_zone(icu, icu->uastrcpy(uid, id), true);
    pthread_once(&cache_once, cache_key_make);
    if (!cal || !key_ok || pthread_setspecific(cache_key, &cache) != 0) {
        if (cal) icu->close(cal);
        return NULL;
    }
    int at = cache.next;
    cache.next = (at + 1) % DS_ZONE_CACHE;
    if (cache.cal[at]) icu->close(cache.cal[at]);
    memcpy(cache.key[at], key, len + 1), cache.cal[at] = cal;
    return cal;
}

bool ds_zone_offset(const char *name, size_t len, int64_t local_s, int64_t *off_s)
{
    char key[DS_ZONE_NAME_MAX + 1];
    if (len == 0 || len > DS_ZONE_NAME_MAX) return false;
    memcpy(key, name, len), key[len] = 0;
    const icu_fns *icu = icu_dl();
    UCalendar *cal = icu ? zone_of(icu, key, len) : NULL;
    if (!cal) return false;
    UErrorCode st = U_ZERO_ERROR;
    int32_t raw_ms = 0, dst_ms = 0;
    icu->set_millis(cal, (UDate)local_s * 1000, &st); /* (read as a local time below, proleptic) */
    icu->offset_from_local(cal, UCAL_TZ_LOCAL_FORMER, UCAL_TZ_LOCAL_LATTER, &raw_ms, &dst_ms, &st);
    if (U_FAILURE(st)) return false;
    *off_s = ((int64_t)raw_ms + dst_ms) / 1000;
    return true;
}
