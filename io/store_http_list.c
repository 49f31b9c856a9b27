/* io/store_http_list.c: listing an S3 prefix (ListObjectsV2) for datasets' patterns over
 * s3:// (issue 20, item 7). One blocking easy handle, signed as the object reads are
 * (store_http.c's http_obj), pages followed by their continuation token; each page's body is
 * bounded (IO_LIST_BODY_MAX) and so is the number of pages (IO_LIST_PAGES_MAX) and keys.
 *
 * Invariants:
 *  1. A key is handed on only once its <Key> element is complete and entity-decoded; a page
 *     whose body is cut (over the bound) is an error, never a partial listing.
 *  2. Credentials stay in the handle's userpwd and headers: a message names the URL (no
 *     userinfo in an s3:// URL) and the HTTP status with the S3 code.
 *  3. A listing ends: a truncated page must carry a continuation token never seen before in
 *     this listing (a server that repeats one, or cycles through several, would list the same
 *     keys until IO_LIST_PAGES_MAX); otherwise it stops at that page with an error naming the
 *     URL and the token. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "io/io.h"
#include "io/store_http.h"
#include "ringscan.h"

typedef struct list_body {
    char *p;
    size_t n, cap;
    bool over;
} list_body;

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    list_body *b = ud;
    size_t n = size * nmemb;
    if (b->n + n + 1 > IO_LIST_BODY_MAX) {
        b->over = true;
        return 0; /* curl fails the transfer: invariant 1 */
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64 << 10;
        while (cap < b->n + n + 1) cap *= 2;
        char *np = fail_realloc(b->p, cap);
        if (!np) return 0;
        b->p = np, b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = 0;
    return n;
}

/* s percent-encoded for a query value (all but unreserved characters) after out[*n]. */
static bool put_enc(char *out, size_t cap, size_t *n, const char *s)
{
    size_t at = http_pct_put(out, cap, *n, s, http_unreserved);
    if (at == 0) return false;
    *n = at;
    return true;
}

/* The text of the first <tag>...</tag> at or after *at (entity-decoded into out, at most cap
 * bytes with its NUL); *at moves past it. false when there is none (or it does not fit). */
static bool xml_text(const char **at, const char *tag, char *out, size_t cap)
{
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *a = strstr(*at, open), *z = a ? strstr(a, close) : NULL;
    if (!a || !z) return false;
    a += strlen(open);
    size_t n = 0;
    static const struct { const char *ent; char c; } ents[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (const char *p = a; p < z; n++) {
        if (n + 1 >= cap) return false;
        char c = *p++;
        for (size_t i = 0; c == '&' && i < sizeof ents / sizeof ents[0]; i++) {
            size_t len = strlen(ents[i].ent);
            if (strncmp(p - 1, ents[i].ent, len) == 0) c = ents[i].c, p += len - 1;
        }
        out[n] = c;
    }
    out[n] = 0;
    *at = z + strlen(close);
    return true;
}

/* libcurl's progress call: non-zero aborts the page (the host's cancel, store.h io_cancel). */
static int on_progress(void *o, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return io_cancel_requested(((const http_obj *)o)->cancel);
}

/* One page: GET url into b. 0, or a status with err naming the URL, HTTP status and S3 code. */
static int get_page(CURL *h, const http_obj *o, const char *url, list_body *b, const char *shown,
                    char *err, size_t errlen)
{
    b->n = 0, b->over = false;
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 4 * o->timeout_ms);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)o);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    http_obj_setopts(h, o);
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (cc == CURLE_OK && status == 200) return 0;
    if (io_cancel_requested(o->cancel))
        return snprintf(err, errlen, "%s: listing: cancelled by the host", shown), -ECANCELED;
    char code[64] = "";
    if (b->p) http_s3_code(b->p, b->n, code, sizeof code);
    if (b->over)
        snprintf(err, errlen, "%s: listing: a page over %d bytes", shown, IO_LIST_BODY_MAX);
    else if (cc != CURLE_OK)
        snprintf(err, errlen, "%s: listing: %s", shown, curl_easy_strerror(cc));
    else
        snprintf(err, errlen, "%s: listing: HTTP %ld%s%s", shown, status, code[0] ? " " : "", code);
    return b->over ? RINGSCAN_ELIMIT : status == 403 ? -EACCES : status == 404 ? -ENOENT : -EIO;
}

/* The keys of one page (asked for with continuation token asked, "" for the first) to fn;
 * the next continuation token into tok ("" when the listing ended). */
static int page_keys(const list_body *b, int64_t *nkeys, int64_t max_keys,
                     int (*fn)(void *, const char *), void *ctx, const char *asked, char *tok,
                     size_t tokcap, const char *shown, char *err, size_t errlen)
{
    char key[HTTP_URL_MAX];
    const char *at = b->p;
    int rc = 0;
    while (rc == 0 && xml_text(&at, "Key", key, sizeof key)) {
        if (++*nkeys > max_keys) {
            snprintf(err, errlen, "%s: more than %lld objects", shown, (long long)max_keys);
            return RINGSCAN_ELIMIT;
        }
        rc = fn(ctx, key);
    }
    const char *t = b->p;
    char trunc[16] = "";
    xml_text(&t, "IsTruncated", trunc, sizeof trunc);
    t = b->p;
    tok[0] = 0;
    if (rc == 0 && strcmp(trunc, "true") == 0 && !xml_text(&t, "NextContinuationToken", tok, tokcap)) {
        snprintf(err, errlen, "%s: listing: a truncated page without a continuation token (the page "
                 "asked for with %s%.200s%s)", shown, asked[0] ? "token '" : "no token", asked,
                 asked[0] ? "'" : "");
        rc = -EIO;
    }
    return rc;
}

/* Whether tok (of a truncated page) came before in this listing: seen[0..n) hold the FNV-1a
 * hashes of the tokens so far (a 64-bit hash: two distinct tokens collide with odds near
 * 2^-64, and then the listing fails, never lists wrong keys); tok's is added as seen[n]. */
static bool token_seen(uint64_t *seen, int n, const char *tok)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (const unsigned char *p = (const unsigned char *)tok; *p; p++)
        h = (h ^ *p) * UINT64_C(1099511628211);
    for (int i = 0; i < n; i++)
        if (seen[i] == h) return true;
    seen[n] = h;
    return false;
}

int io_s3_list(const char *bucket_url, const io_open_opts *op, int64_t max_keys,
               int (*fn)(void *ctx, const char *key), void *ctx, char *err, size_t errlen)
{
    const char *b0 = strncmp(bucket_url, "s3://", 5) == 0 ? bucket_url + 5 : NULL;
    const char *slash = b0 ? strchr(b0, '/') : NULL;
    if (!b0 || slash == b0) {
        snprintf(err, errlen, "%s: not an s3://bucket/prefix URL", bucket_url);
        return -EINVAL;
    }
    const char *prefix = slash ? slash + 1 : "";
    char probe[HTTP_URL_MAX];
    snprintf(probe, sizeof probe, "s3://%.*s/k", (int)(slash ? slash - b0 : (long)strlen(b0)), b0);
    http_obj *o = NULL;
    io_open_opts none = {0};
    int rc = http_obj_make(&o, probe, op ? op : &none, err, errlen);
    if (rc) return rc;
    char *url = fail_malloc(3 * HTTP_URL_MAX), tok[HTTP_URL_MAX] = "", asked[HTTP_URL_MAX];
    uint64_t *seen = fail_malloc(sizeof *seen * IO_LIST_PAGES_MAX); /* invariant 3 */
    CURL *h = curl_easy_init();
    list_body b = {0};
    int64_t nkeys = 0;
    if (!url || !h || !seen) rc = -ENOMEM;
    size_t base = strlen(o->url) - 1; /* ".../bucket/k" -> ".../bucket/" */
    /* keys per page: the server's default (1000), or RINGSCAN_S3_LIST_KEYS (tests: pages) */
    char page_keys_q[32] = "";
    const char *pk = getenv("RINGSCAN_S3_LIST_KEYS");
    long pkn = pk ? strtol(pk, NULL, 10) : 0;
    if (pkn >= 1 && pkn <= 1000) snprintf(page_keys_q, sizeof page_keys_q, "&max-keys=%ld", pkn);
    for (int page = 0; rc == 0; page++) {
        if (page >= IO_LIST_PAGES_MAX) {
            snprintf(err, errlen, "%s: more than %d listing pages", bucket_url, IO_LIST_PAGES_MAX);
            rc = RINGSCAN_ELIMIT;
            break;
        }
        size_t n = base, cap = 3 * HTTP_URL_MAX;
        memcpy(url, o->url, n);
        url[n] = 0;
        if (tok[0]) { /* the query sorted, as SigV4 canonicalizes it */
            n += (size_t)snprintf(url + n, cap - n, "?continuation-token=");
            if (!put_enc(url, cap, &n, tok)) rc = -ENAMETOOLONG;
            n += (size_t)snprintf(url + n, cap - n, "&list-type=2%s&prefix=", page_keys_q);
        } else {
            n += (size_t)snprintf(url + n, cap - n, "?list-type=2%s&prefix=", page_keys_q);
        }
        if (rc == 0 && !put_enc(url, 3 * HTTP_URL_MAX, &n, prefix)) rc = -ENAMETOOLONG;
        if (rc) {
            snprintf(err, errlen, "%s: listing URL too long", bucket_url);
            break;
        }
        memcpy(asked, tok, sizeof tok);
        rc = get_page(h, o, url, &b, bucket_url, err, errlen);
        if (rc == 0)
            rc = page_keys(&b, &nkeys, max_keys, fn, ctx, asked, tok, sizeof tok, bucket_url, err,
                           errlen);
        if (rc || !tok[0]) break;
        if (token_seen(seen, page, tok)) {
            snprintf(err, errlen, "%s: listing: page %d's continuation token '%.200s' came "
                     "before (the server would list the same keys again)", bucket_url, page + 1, tok);
            rc = -EIO;
        }
    }
    free(seen);
    free(b.p);
    free(url);
    if (h) curl_easy_cleanup(h);
    http_obj_drop(o);
    return rc;
}
