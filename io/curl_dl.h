/* io/curl_dl.h: libcurl, loaded on first use instead of linked (private to io/store_http*.c).
 *
 * Why: linked, libcurl and the ~25 libraries it needs (TLS, Kerberos, LDAP, SSH, IDN...) were
 * mapped and relocated by every process that loads ringscan, for every local scan too: most
 * of a `ringscan` process's start-up CPU and of the Python package's import. Now the first
 * http(s):// or s3:// open loads libcurl.so.4 (Debian libcurl4); a process that reads only
 * local files never maps it.
 *
 * The call sites keep libcurl's names: each curl_* below is a macro naming a hidden rs_curl_*
 * function of the same prototype that forwards to the loaded library (so a host that links
 * libcurl itself keeps its own symbols, and shares the loaded copy with us).
 * Invariants:
 *  1. Whichever rs_curl_* comes first loads the library and every function (once, thread-safe;
 *     io/store_http.c calls rs_curl_global_init first). After a failure each returns libcurl's
 *     own failure value (NULL, CURLE_FAILED_INIT, CURLM_INTERNAL_ERROR), and the two strerror
 *     functions return the reason (the loader's message and the package to install), so an
 *     error message built as for any libcurl failure names it.
 *  2. After a success the table of functions never changes (read without a lock). */
#ifndef RINGSCAN_IO_CURL_DL_H
#define RINGSCAN_IO_CURL_DL_H
#define CURL_DISABLE_TYPECHECK 1 /* its macros would name the real functions */
#include <curl/curl.h>

CURLcode rs_curl_global_init(long flags);
CURL *rs_curl_easy_init(void);
CURLcode rs_curl_easy_setopt(CURL *h, CURLoption opt, ...);
CURLcode rs_curl_easy_getinfo(CURL *h, CURLINFO info, ...);
CURLcode rs_curl_easy_perform(CURL *h);
void rs_curl_easy_reset(CURL *h);
void rs_curl_easy_cleanup(CURL *h);
const char *rs_curl_easy_strerror(CURLcode rc);
struct curl_slist *rs_curl_slist_append(struct curl_slist *l, const char *s);
void rs_curl_slist_free_all(struct curl_slist *l);
CURLM *rs_curl_multi_init(void);
CURLMcode rs_curl_multi_setopt(CURLM *m, CURLMoption opt, ...);
CURLMcode rs_curl_multi_add_handle(CURLM *m, CURL *h);
CURLMcode rs_curl_multi_remove_handle(CURLM *m, CURL *h);
CURLMcode rs_curl_multi_assign(CURLM *m, curl_socket_t s, void *p);
CURLMcode rs_curl_multi_socket_action(CURLM *m, curl_socket_t s, int ev, int *running);
CURLMcode rs_curl_multi_perform(CURLM *m, int *running);
CURLMcode rs_curl_multi_poll(CURLM *m, struct curl_waitfd *fds, unsigned n, int ms, int *nfds);
CURLMsg *rs_curl_multi_info_read(CURLM *m, int *left);
const char *rs_curl_multi_strerror(CURLMcode rc);
CURLMcode rs_curl_multi_cleanup(CURLM *m);

#define curl_global_init rs_curl_global_init
#define curl_easy_init rs_curl_easy_init
#undef curl_easy_setopt /* curl.h names the function through a macro */
#define curl_easy_setopt rs_curl_easy_setopt
#undef curl_easy_getinfo /* curl.h names the function through a macro */
#define curl_easy_getinfo rs_curl_easy_getinfo
#define curl_easy_perform rs_curl_easy_perform
#define curl_easy_reset rs_curl_easy_reset
#define curl_easy_cleanup rs_curl_easy_cleanup
#define curl_easy_strerror rs_curl_easy_strerror
#define curl_slist_append rs_curl_slist_append
#define curl_slist_free_all rs_curl_slist_free_all
#define curl_multi_init rs_curl_multi_init
#undef curl_multi_setopt /* curl.h names the function through a macro */
#define curl_multi_setopt rs_curl_multi_setopt
#define curl_multi_add_handle rs_curl_multi_add_handle
#define curl_multi_remove_handle rs_curl_multi_remove_handle
#define curl_multi_assign rs_curl_multi_assign
#define curl_multi_socket_action rs_curl_multi_socket_action
#define curl_multi_perform rs_curl_multi_perform
#define curl_multi_poll rs_curl_multi_poll
#define curl_multi_info_read rs_curl_multi_info_read
#define curl_multi_strerror rs_curl_multi_strerror
#define curl_multi_cleanup rs_curl_multi_cleanup

#endif
