/* common/icu_dl.c: ICU loaded on first use (see icu_dl.h for why and the contract).
 *
 * Owns: the handles of libicuuc and libicui18n (never closed) and the table of functions.
 * Design: the symbol names come from ICU's headers, which rename each function to its
 * versioned symbol (u_tolower -> u_tolower_72), so stringizing the expanded name gives the
 * symbol the library exports; the sonames carry the same major version.
 * Invariants:
 *  1. fns is written only inside icu_load (once); loaded says it is complete.
 *  2. icu_err is written only inside icu_load; "" while no load failed. */
#include "common/icu_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <unicode/uvernum.h>

#define ICU_STR_(x) #x
#define ICU_STR(x) ICU_STR_(x)
#define ICU_MAJOR ICU_STR(U_ICU_VERSION_MAJOR_NUM)
#define ICU_PACKAGE "Debian package libicu" ICU_MAJOR

static icu_fns fns;
static bool loaded;
static char icu_err[512];
static pthread_once_t icu_once = PTHREAD_ONCE_INIT;

/* dlopen of soname; NULL with the reason kept when it cannot be loaded. */
static void *icu_open(const char *soname)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(icu_err, sizeof icu_err, "%s (ILIKE on text outside ASCII and zone names need "
                 "ICU %s, " ICU_PACKAGE ")", e ? e : soname, ICU_MAJOR);
    }
    return lib;
}

/* Looks up name in lib (loaded from soname) into *slot; false, the reason kept, if missing. */
static bool icu_sym(void *lib, const char *soname, const char *name, void *slot)
{
    void *f = dlsym(lib, name);
    if (!f) {
        snprintf(icu_err, sizeof icu_err, "%s has no %s (ringscan was built against ICU %s, "
                 ICU_PACKAGE ")", soname, name, ICU_MAJOR);
        return false;
    }
    *(void **)slot = f; /* POSIX: a function pointer round-trips through void * */
    return true;
}

static void icu_load(void)
{
    const char *uc_name = "libicuuc.so." ICU_MAJOR, *i18n_name = "libicui18n.so." ICU_MAJOR;
    void *uc = icu_open(uc_name);
    void *i18n = uc ? icu_open(i18n_name) : NULL;
    if (!i18n) return;
#define UC(f, m) icu_sym(uc, uc_name, ICU_STR(f), &fns.m)
#define I18N(f, m) icu_sym(i18n, i18n_name, ICU_STR(f), &fns.m)
    loaded = UC(u_tolower, tolower_) && UC(u_strncmp, strncmp_) &&
             UC(u_strFromUTF8, str_from_utf8) && UC(u_uastrcpy, uastrcpy) &&
             UC(uenum_next, enum_next) && UC(uenum_close, enum_close) &&
             I18N(ucal_openTimeZones, open_time_zones) && I18N(ucal_open, open) &&
             I18N(ucal_getTimeZoneID, time_zone_id) && I18N(ucal_close, close) &&
             I18N(ucal_setMillis, set_millis) &&
             I18N(ucal_getTimeZoneOffsetFromLocal, offset_from_local);
#undef UC
#undef I18N
}

const icu_fns *icu_dl(void)
{
    pthread_once(&icu_once, icu_load);
    return loaded ? &fns : NULL;
}

const char *icu_dl_error(void)
{
    return icu_err; /* written before loaded's fate is known to any caller (pthread_once) */
}
