/* io/curl_dl.c: libcurl loaded on first use (see curl_dl.h for why and the contract).
 *
 * Owns: the one handle of libcurl.so.4, or of libcurl-gnutls.so.4 (Debian's GnuTLS build, same
 * ABI) when the first is missing (never closed: curl keeps global state, and a host may share
 * the copy), and the table of its functions.
 * Design: every rs_curl_* takes the table through pthread_once, so any of them may come first
 * (io/store_http.c calls rs_curl_global_init first; unit tests call the pure ones alone).
 * When loading failed each returns libcurl's own failure value (NULL, CURLE_FAILED_INIT,
 * CURLM_INTERNAL_ERROR) and the strerror functions the reason. The variadic setters forward
 * their one argument with the type libcurl reads for the option's range (curl.h's
 * CURLOPTTYPE_* bases, shared by the easy and multi options); getinfo's is always a pointer.
 * Invariants:
 *  1. curl_fn is written only inside curl_load (once); loaded says it is complete.
 *  2. curl_load_err is written only inside curl_load; "" while no load failed. */
#include "io/curl_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

typedef void (*curl_any_fn)(void);

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_perform)(CURL *);
    void (*easy_reset)(CURL *);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_assign)(CURLM *, curl_socket_t, void *);
    CURLMcode (*multi_socket_action)(CURLM *, curl_socket_t, int, int *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    const char *(*multi_strerror)(CURLMcode);
    CURLMcode (*multi_cleanup)(CURLM *);
} curl_fn;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static bool loaded;
static char curl_load_err[512];

/* Looks up name in lib (loaded from soname) into *slot; false (and the reason kept, naming the
 * file that was loaded and what to install) when it is missing. */
static bool curl_sym(void *lib, const char *soname, const char *name, void *slot)
{
    void *f = dlsym(lib, name);
    if (!f) {
        snprintf(curl_load_err, sizeof curl_load_err,
                 "%s has no %s (http(s):// and s3:// paths need libcurl 7.66 or later, Debian "
                 "package libcurl4)", soname, name);
        return false;
    }
    *(void **)slot = f; /* POSIX: a function pointer round-trips through void * */
    return true;
}

static void curl_load(void)
{
    const char *soname = "libcurl.so.4";
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(curl_load_err, sizeof curl_load_err,
                 "%s (http(s):// and s3:// paths need libcurl 4, Debian package libcurl4)",
                 e ? e : "libcurl.so.4 cannot be loaded");
        soname = "libcurl-gnutls.so.4"; /* Debian's other build */
        lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!lib) return;
        curl_load_err[0] = 0;
    }
#define CURL_SYM(f) curl_sym(lib, soname, "curl_" #f, &curl_fn.f)
    loaded = CURL_SYM(global_init) && CURL_SYM(easy_init) && CURL_SYM(easy_setopt) &&
             CURL_SYM(easy_getinfo) && CURL_SYM(easy_perform) && CURL_SYM(easy_reset) &&
             CURL_SYM(easy_cleanup) && CURL_SYM(easy_strerror) && CURL_SYM(slist_append) &&
             CURL_SYM(slist_free_all) && CURL_SYM(multi_init) && CURL_SYM(multi_setopt) &&
             CURL_SYM(multi_add_handle) && CURL_SYM(multi_remove_handle) &&
             CURL_SYM(multi_assign) && CURL_SYM(multi_socket_action) &&
             CURL_SYM(multi_perform) && CURL_SYM(multi_poll) && CURL_SYM(multi_info_read) &&
             CURL_SYM(multi_strerror) && CURL_SYM(multi_cleanup);
#undef CURL_SYM
}

/* True once libcurl and every function are loaded (loading on the first call). */
static bool curl_ready(void)
{
    pthread_once(&curl_once, curl_load);
    return loaded;
}

CURLcode rs_curl_global_init(long flags)
{
    return curl_ready() ? curl_fn.global_init(flags) : CURLE_FAILED_INIT;
}

CURL *rs_curl_easy_init(void)
{
    return curl_ready() ? curl_fn.easy_init() : NULL;
}

/* Forwards a setter's one argument as libcurl reads it for opt's range (curl.h). */
#define CURL_FORWARD_OPT(call, h, opt, ap)                                                      \
    ((opt) < CURLOPTTYPE_OBJECTPOINT     ? call(h, opt, va_arg(ap, long))                       \
     : (opt) < CURLOPTTYPE_FUNCTIONPOINT ? call(h, opt, va_arg(ap, void *))                     \
     : (opt) < CURLOPTTYPE_OFF_T         ? call(h, opt, va_arg(ap, curl_any_fn))                \
     : (opt) < CURLOPTTYPE_BLOB          ? call(h, opt, va_arg(ap, curl_off_t))                 \
                                         : call(h, opt, va_arg(ap, void *)))

CURLcode rs_curl_easy_setopt(CURL *h, CURLoption opt, ...)
{
    if (!curl_ready()) return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, opt);
    CURLcode rc = CURL_FORWARD_OPT(curl_fn.easy_setopt, h, opt, ap);
    va_end(ap);
    return rc;
}

CURLcode rs_curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
    if (!curl_ready()) return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, info);
    CURLcode rc = curl_fn.easy_getinfo(h, info, va_arg(ap, void *)); /* always a pointer */
    va_end(ap);
    return rc;
}

CURLcode rs_curl_easy_perform(CURL *h)
{
    return curl_ready() ? curl_fn.easy_perform(h) : CURLE_FAILED_INIT;
}

void rs_curl_easy_reset(CURL *h)
{
    if (curl_ready()) curl_fn.easy_reset(h);
}

void rs_curl_easy_cleanup(CURL *h)
{
    if (curl_ready()) curl_fn.easy_cleanup(h);
}

const char *rs_curl_easy_strerror(CURLcode rc)
{
    return curl_ready() ? curl_fn.easy_strerror(rc) : curl_load_err;
}

struct curl_slist *rs_curl_slist_append(struct curl_slist *l, const char *s)
{
    return curl_ready() ? curl_fn.slist_append(l, s) : NULL;
}

void rs_curl_slist_free_all(struct curl_slist *l)
{
    if (curl_ready()) curl_fn.slist_free_all(l);
}

CURLM *rs_curl_multi_init(void)
{
    return curl_ready() ? curl_fn.multi_init() : NULL;
}

CURLMcode rs_curl_multi_setopt(CURLM *m, CURLMoption opt, ...)
{
    if (!curl_ready()) return CURLM_INTERNAL_ERROR;
    va_list ap;
    va_start(ap, opt);
    CURLMcode rc = CURL_FORWARD_OPT(curl_fn.multi_setopt, m, opt, ap);
    va_end(ap);
    return rc;
}

CURLMcode rs_curl_multi_add_handle(CURLM *m, CURL *h)
{
    return curl_ready() ? curl_fn.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode rs_curl_multi_remove_handle(CURLM *m, CURL *h)
{
    return curl_ready() ? curl_fn.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode rs_curl_multi_assign(CURLM *m, curl_socket_t s, void *p)
{
    return curl_ready() ? curl_fn.multi_assign(m, s, p) : CURLM_INTERNAL_ERROR;
}

CURLMcode rs_curl_multi_socket_action(CURLM *m, curl_socket_t s, int ev, int *running)
{
    return curl_ready() ? curl_fn.multi_socket_action(m, s, ev, running) : CURLM_INTERNAL_ERROR;
}

CURLMcode rs_curl_multi_perform(CURLM *m, int *running)
{
    return curl_ready() ? curl_fn.multi_perform(m, running) : CURLM_INTERNAL_ERROR;
}

CURLMcode rs_curl_multi_poll(CURLM *m, struct curl_waitfd *fds, unsigned n, int ms, int *nfds)
{
    return curl_ready() ? curl_fn.multi_poll(m, fds, n, ms, nfds) : CURLM_INTERNAL_ERROR;
}

CURLMsg *rs_curl_multi_info_read(CURLM *m, int *left)
{
    return curl_ready() ? curl_fn.multi_info_read(m, left) : NULL;
}

const char *rs_curl_multi_strerror(CURLMcode rc)
{
    return curl_ready() ? curl_fn.multi_strerror(rc) : curl_load_err;
}

CURLMcode rs_curl_multi_cleanup(CURLM *m)
{
    return curl_ready() ? curl_fn.multi_cleanup(m) : CURLM_INTERNAL_ERROR;
}
