/* common/icu_dl.h: ICU (Debian libicu), loaded on first use instead of linked.
 *
 * Why: linked, libicuuc, libicui18n and the libstdc++ they need were mapped and relocated by
 * every process that loads ringscan (~0.9-1.4 ms of CPU at each `ringscan` start, and at the
 * Python package's load), for two rare uses: ILIKE on text outside ASCII (filter/like.c,
 * u_tolower) and zone names in strings cast to timestamps (scan/ds_zone.c, the calendar).
 * Now the first of those loads the libraries of the major version ringscan was built against
 * (libicuuc.so.72 and libicui18n.so.72 on Debian 12), as io/curl_dl.c loads libcurl.
 *
 * Invariants:
 *  1. icu_dl() loads both libraries and every function of the table once (thread-safe, any
 *     thread first); after a success it returns the same table, which never changes (read
 *     without a lock); after a failure it returns NULL every time and icu_dl_error() says why
 *     (the loader's message, or the function missing, and the package to install).
 *  2. The libraries are never closed (ICU keeps global caches; a host may share the copy). */
#ifndef RINGSCAN_COMMON_ICU_DL_H
#define RINGSCAN_COMMON_ICU_DL_H
#include <unicode/ucal.h>
#include <unicode/uchar.h>
#include <unicode/uenum.h>
#include <unicode/ustring.h>

/* ICU's functions ringscan calls, typed by ICU's own declarations (each member named after
 * the function, which the headers rename to its versioned symbol, e.g. ucal_open_72). */
typedef struct icu_fns {
    __typeof__(&u_tolower) tolower_;
    __typeof__(&u_strncmp) strncmp_;
    __typeof__(&u_strFromUTF8) str_from_utf8;
    __typeof__(&u_uastrcpy) uastrcpy;
    __typeof__(&uenum_next) enum_next;
    __typeof__(&uenum_close) enum_close;
    __typeof__(&ucal_openTimeZones) open_time_zones;
    __typeof__(&ucal_open) open;
    __typeof__(&ucal_getTimeZoneID) time_zone_id;
    __typeof__(&ucal_close) close;
    __typeof__(&ucal_setMillis) set_millis;
    __typeof__(&ucal_getTimeZoneOffsetFromLocal) offset_from_local;
} icu_fns;

/* The loaded functions (invariant 1), or NULL when ICU could not be loaded. */
const icu_fns *icu_dl(void);
/* Why icu_dl() returned NULL ("" while it has not failed). */
const char *icu_dl_error(void);

#endif
