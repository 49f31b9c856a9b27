/* io/store_http.c: HTTP(S) and S3 objects over libcurl (issue 20): opening (the object's size
 * and footer from one suffix-range GET, or an explicit range when a server answers that with
 * the whole object), S3 URLs and SigV4 signing, one request's setup and
 * verdict (status, Content-Range, body length, retries), and the blocking metadata reads.
 * The per-core reads on the ring are store_http_multi.c.
 *
 * Owns: http_obj (io_file_t.be_file of an HTTP or S3 object) and its tail bytes.
 * Invariants (beyond store_http.h):
 *  1. A request succeeds only with all of its bytes: 206 with a Content-Range starting at
 *     its offset and ending within its range (one ending past it over a body of the range's
 *     length disagrees with itself) (or 200 for a range covering the whole object) and
 *     exactly len bytes, with no Content-Encoding but identity (none is asked for: a gzip
 *     body is not the bytes), of the version the open saw: a Content-Range total other than
 *     the open's size, or an ETag other than the open's (when both have one, as DuckDB's
 *     httpfs checks, and the open was not told otherwise: io_open_opts.etag_unchecked keeps
 *     no ETag), is an error (the object changed under the scan), never bytes of another
 *     version.
 *  2. Retries: connection errors, timeouts (a try that moves fewer than HTTP_MIN_BPS over a
 *     timeout's window: a stall or a drip), a body short of its answer's length (a connection
 *     closed mid-body), 429/500/502/503/504 and S3 SlowDown, at most
 *     o->retries after the first try and none starting HTTP_RETRY_TOTAL_NS after it; every
 *     other outcome is final.
 *  3. No message holds userpwd, a token or an URL's userinfo (f->name is redacted). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "io/store_http.h"
#include "common/fail.h"

#define HTTP_COST_TTFB_NS (UINT64_C(30) * 1000 * 1000) /* issue 20's seed: 30 ms */
#define HTTP_COST_BPS (UINT64_C(100) * 1000 * 1000)    /* and 100 MB/s a connection */

static pthread_once_t http_once = PTHREAD_ONCE_INIT;
static CURLcode http_global_rc;
static atomic_flag http_insecure_warned = ATOMIC_FLAG_INIT;

static void http_global_init(void)
{
    http_global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ---- pure pieces ---- */

bool http_unreserved(const unsigned char *p)
{
    unsigned char c = *p;
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.' || c == '~';
}

/* An S3 key's byte sent as it is: unreserved or '/' (aws-cli's and DuckDB's rule). */
static bool http_key_plain(const unsigned char *p)
{
    return *p == '/' || http_unreserved(p);
}

/* An http(s) URL's byte sent as it is: anything a URL may hold (its reserved characters keep
 * their meaning: '?' starts the query), and a '%' that starts an escape (not encoded twice). */
static bool http_url_plain(const unsigned char *p)
{
    static const char hex[] = "0123456789ABCDEFabcdef";
    if (*p == '%') return p[1] && strchr(hex, p[1]) && p[2] && strchr(hex, p[2]);
    return *p > 0x20 && *p < 0x7F && !strchr("\"<>\\^`{|}", *p);
}

size_t http_pct_put(char *out, size_t cap, size_t at, const char *s,
                    bool (*plain)(const unsigned char *p))
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *k = (const unsigned char *)s; *k; k++) {
        bool keep = plain(k);
        if (at + (keep ? 1 : 3) >= cap) return 0;
        if (keep) out[at++] = (char)*k;
        else out[at++] = '%', out[at++] = hex[*k >> 4], out[at++] = hex[*k & 15];
    }
    out[at] = '\0';
    return at;
}

int http_url_encode(char *out, size_t cap, const char *url)
{
    const char *host = strstr(url, "://");
    assert(host);
    size_t n = (size_t)(host + 3 - url) + strcspn(host + 3, "/?#"); /* scheme and authority */
    if (n >= cap) return -EINVAL;
    memcpy(out, url, n);
    out[n] = '\0';
    return http_pct_put(out, cap, n, url + n, http_url_plain) ? 0 : -EINVAL;
}

int http_s3_url(char *out, size_t cap, const char *s3url, const char *endpoint,
                const char *region)
{
    assert(strncmp(s3url, "s3://", 5) == 0);
    const char *b = s3url + 5, *slash = strchr(b, '/');
    if (!slash || slash == b || slash[1] == '\0') return -EINVAL;
    int bn = (int)(slash - b);
    int n = endpoint && *endpoint
                ? snprintf(out, cap, "%s%s%.*s/", endpoint,
                           endpoint[strlen(endpoint) - 1] == '/' ? "" : "/", bn, b)
                : snprintf(out, cap, "https://%.*s.s3.%s.amazonaws.com/", bn, b,
                           region && *region ? region : "us-east-1");
    if (n < 0 || (size_t)n >= cap) return -EINVAL;
    return http_pct_put(out, cap, (size_t)n, slash + 1, http_key_plain) ? 0 : -EINVAL;
}

/* Parses a decimal at *p (advancing it). False when there is none or it overflows. */
static bool http_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    if (*s < '0' || *s > '9') return false;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (x > (UINT64_MAX - 9) / 10) return false;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *p = s;
    *v = x;
    return true;
}

bool http_content_range(const char *v, uint64_t *first, uint64_t *last, uint64_t *total)
{
    while (*v == ' ') v++;
    if (strncasecmp(v, "bytes ", 6) != 0) return false;
    v += 6;
    while (*v == ' ') v++;
    if (*v == '*') {
        *first = *last = UINT64_MAX;
        v++;
    } else if (!http_u64(&v, first) || *v++ != '-' || !http_u64(&v, last) || *last < *first) {
        return false;
    }
    if (*v++ != '/' || !http_u64(&v, total)) return false;
    while (*v == ' ' || *v == '\r' || *v == '\n') v++;
    return *v == '\0' && (*first == UINT64_MAX || *last < *total);
}

void http_s3_code(const char *body, size_t n, char *code, size_t cap)
{
    assert(cap > 0);
    code[0] = '\0';
    const char *end = body + n;
    for (const char *p = body; p + 6 <= end; p++) {
        if (memcmp(p, "<Code>", 6) != 0) continue;
        const char *s = p + 6, *e = s;
        while (e < end && *e != '<' && (size_t)(e - s) + 1 < cap) e++;
        memcpy(code, s, (size_t)(e - s));
        code[e - s] = '\0';
        return;
    }
}

uint64_t http_backoff_ns(int attempt, uint64_t rnd)
{
    assert(attempt >= 1);
    uint64_t b = HTTP_BACKOFF_BASE_NS;
    for (int i = 1; i < attempt && b < HTTP_BACKOFF_CAP_NS; i++) b *= 2;
    if (b > HTTP_BACKOFF_CAP_NS) b = HTTP_BACKOFF_CAP_NS;
    return b / 2 + rnd % (b / 2 + 1);
}

/* ---- one request ---- */

/* Body bytes (invariant 2 of store_http.h). */
static size_t http_on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    http_xfer *x = ud;
    size_t n = size * nmemb;
    if (x->status != 206 && x->status != 200) {
        size_t room = sizeof x->body - 1 - x->nbody;
        size_t k = n < room ? n : room;
        memcpy(x->body + x->nbody, p, k);
        x->nbody += k;
        x->body[x->nbody] = '\0';
        x->body_cut = k < n; /* the rest is not waited for: the status and code decide */
        return k < n ? 0 : n;
    }
    if (x->range_bad) return 0;
    if (n > x->len - x->got) {
        x->overlong = true;
        return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
    }
    memcpy(x->buf + x->got, p, n);
    x->got += n;
    return n;
}

/* Whether a 200 or 206 answer is of another version than the open's (invariant 1). */
static bool http_changed(const http_xfer *x)
{
    if (x->suffix) return false; /* the open's own request */
    if (x->o->etag[0] && x->etag[0] && strcmp(x->o->etag, x->etag) != 0) return true;
    return x->status == 206 && x->have_cr && x->cr_total != x->f->size_bytes;
}

/* Copies a header's value (after its name, blanks and CRLF trimmed) into out. */
static void http_header_value(const char *p, size_t n, size_t name_len, char *out, size_t cap)
{
    const char *v = p + name_len, *e = p + n;
    while (v < e && (*v == ' ' || *v == '\t')) v++;
    while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ')) e--;
    size_t k = (size_t)(e - v) < cap - 1 ? (size_t)(e - v) : cap - 1;
    memcpy(out, v, k);
    out[k] = '\0';
}

/* Whether a 200 or 206 answers x's request (invariant 1), once its headers are in. */
static bool http_range_fits(const http_xfer *x, uint64_t size)
{
    if (x->status == 206)
        return x->have_cr && x->cr_first != UINT64_MAX &&
               (x->suffix ? x->cr_last + 1 == x->cr_total && x->cr_total - x->cr_first <= x->len
                          : x->cr_first == x->off && x->cr_last - x->cr_first < x->len);
    /* 200: the whole object; only a request for all of it (or the open's suffix) takes it */
    return x->suffix || (x->off == 0 && x->len == size);
}

static size_t http_on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    http_xfer *x = ud;
    size_t n = size * nmemb;
    if (n > 5 && memcmp(p, "HTTP/", 5) == 0) { /* a status line: a new response begins */
        const char *sp = memchr(p, ' ', n);
        x->status = sp ? strtol(sp + 1, NULL, 10) : 0;
        x->have_cr = x->have_clen = x->encoded = false;
        x->etag[0] = x->cr_bad[0] = '\0';
        return n;
    }
    static const char cl[] = "content-length:";
    if (n > sizeof cl && strncasecmp(p, cl, sizeof cl - 1) == 0) {
        const char *v = p + sizeof cl - 1;
        while (*v == ' ' || *v == '\t') v++;
        x->have_clen = http_u64(&v, &x->clen);
    }
    static const char ce[] = "content-encoding:";
    if (n > sizeof ce && strncasecmp(p, ce, sizeof ce - 1) == 0) {
        char v[32];
        http_header_value(p, n, sizeof ce - 1, v, sizeof v);
        x->encoded = v[0] && strcasecmp(v, "identity") != 0;
    }
    static const char et[] = "etag:";
    if (n > sizeof et && strncasecmp(p, et, sizeof et - 1) == 0)
        http_header_value(p, n, sizeof et - 1, x->etag, sizeof x->etag);
    static const char cr[] = "content-range:";
    if (n > sizeof cr && strncasecmp(p, cr, sizeof cr - 1) == 0) {
        char v[128];
        size_t k = n - (sizeof cr - 1) < sizeof v - 1 ? n - (sizeof cr - 1) : sizeof v - 1;
        memcpy(v, p + sizeof cr - 1, k);
        v[k] = '\0';
        x->have_cr = http_content_range(v, &x->cr_first, &x->cr_last, &x->cr_total);
        x->cr_bad[0] = '\0';
        if (!x->have_cr) { /* "Content-Range missing" named one that came */
            http_header_value(p, n, sizeof cr - 1, x->cr_bad, sizeof x->cr_bad);
            for (char *c = x->cr_bad; *c; c++)
                if (*c < ' ' || *c > '~') *c = '?';
        }
    }
    if (n <= 2 && (x->status == 200 || x->status == 206)) { /* end of headers */
        x->changed = http_changed(x);
        x->range_bad = x->changed || x->encoded ||
                       !http_range_fits(x, x->f ? x->f->size_bytes : 0);
    }
    if (n <= 2 && x->status == 416 && !x->suffix && x->f && x->have_cr &&
        x->cr_total != x->f->size_bytes)
        x->changed = true; /* a range inside the open's size is past the end now: it shrank */
    return n;
}

/* The bytes a try must move in each timeout_ms window: HTTP_MIN_BPS's share, at least 1. */
static uint64_t http_window_floor(const http_obj *o)
{
    uint64_t b = (uint64_t)HTTP_MIN_BPS * (uint64_t)o->timeout_ms / 1000u;
    return b ? b : 1;
}

/* A try that moves fewer than http_window_floor bytes in a window of timeout_ms (a stall, or a
 * body dripped a byte at a time, which "no byte for timeout_ms" alone never ends) is ended as
 * a timeout (libcurl's low-speed check averages over several seconds; this one is exact to its
 * callback's ~1 s cadence). A try that ends within a window is never judged by it. */
static int http_on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                            curl_off_t ulnow)
{
    (void)dltotal, (void)ultotal, (void)ulnow;
    http_xfer *x = ud;
    if (io_cancel_requested(x->o->cancel)) return 1; /* abort (http_xfer_judge says why) */
    uint64_t now = exec_now_ns();
    if (now - x->progress_ns <= (uint64_t)x->o->timeout_ms * 1000000u) return 0;
    uint64_t moved = (uint64_t)dlnow - x->progress_bytes;
    if (moved < http_window_floor(x->o)) {
        x->slow_bytes = moved;
        return 1; /* abort: CURLE_ABORTED_BY_CALLBACK */
    }
    x->progress_ns = now;
    x->progress_bytes = (uint64_t)dlnow;
    return 0;
}

void http_xfer_prepare(CURL *h, http_xfer *x)
{
    const http_obj *o = x->o;
    char range[64];
    if (x->suffix) snprintf(range, sizeof range, "-%" PRIu64, x->len);
    else snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, x->off, x->off + x->len - 1);
    x->got = 0;
    x->status = 0;
    x->overlong = x->range_bad = x->have_cr = x->have_clen = x->changed = x->body_cut = false;
    x->encoded = false;
    x->etag[0] = x->cr_bad[0] = '\0';
    x->slow_bytes = 0;
    x->nbody = 0;
    x->body[0] = x->errbuf[0] = '\0';
    x->progress_ns = exec_now_ns();
    x->progress_bytes = 0;
    curl_easy_setopt(h, CURLOPT_URL, o->url);
    curl_easy_setopt(h, CURLOPT_RANGE, range);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, http_on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, http_on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(h, CURLOPT_PRIVATE, x);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    /* over TLS, wait for the first connection's ALPN so HTTP/2 multiplexes the rest; over
     * plain http (HTTP/1.1) waiting would hold every other request back one round trip */
    curl_easy_setopt(h, CURLOPT_PIPEWAIT, strncmp(o->url, "https://", 8) == 0 ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->timeout_ms);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L); /* no byte for timeout: a stall */
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (o->timeout_ms + 999) / 1000);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, http_on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    http_obj_setopts(h, o);
}

void http_obj_setopts(CURL *h, const http_obj *o)
{
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
    curl_easy_setopt(h, CURLOPT_PATH_AS_IS, o->path_as_is ? 1L : 0L);
    if (o->ca_file[0]) curl_easy_setopt(h, CURLOPT_CAINFO, o->ca_file);
    if (o->headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, o->headers);
    if (o->userpwd) {
        curl_easy_setopt(h, CURLOPT_USERPWD, o->userpwd);
        curl_easy_setopt(h, CURLOPT_AWS_SIGV4, o->sigv4);
        return; /* a signature is for its host and path: S3's 301 is an error with its code */
    }
    /* a public object behind a redirect (a CDN, a moved path): followed, as DuckDB's httpfs
     * and fsspec do, at most HTTP_REDIRS_MAX times and only to http(s); the Range goes along,
     * and a URL's userinfo never goes to another host (curl's default) */
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, (long)HTTP_REDIRS_MAX);
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
}

static bool http_retryable(const http_xfer *x, CURLcode cc, const char *code)
{
    switch (cc) {
    case CURLE_ABORTED_BY_CALLBACK: /* http_on_progress: no byte for the timeout */
    case CURLE_COULDNT_CONNECT: case CURLE_OPERATION_TIMEDOUT: case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR: case CURLE_PARTIAL_FILE: case CURLE_GOT_NOTHING: case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: case CURLE_SSL_CONNECT_ERROR:
        return true;
    case CURLE_OK:
        break;
    default:
        return false;
    }
    long s = x->status;
    return s == 429 || s == 500 || s == 502 || s == 503 || s == 504 ||
           strcmp(code, "SlowDown") == 0;
}

/* The errno a final HTTP status fails with. */
static int http_status_errno(long s)
{
    return s == 404 ? -ENOENT : (s == 401 || s == 403) ? -EACCES : s == 416 ? -ERANGE : -EIO;
}

/* The cause of a changed object (invariant 1): what the open saw and what came now. */
static void http_cause_changed(const http_xfer *x, const char *range, char *why, size_t whylen)
{
    char now[32] = "unknown";
    if ((x->status == 206 || x->status == 416) && x->have_cr)
        snprintf(now, sizeof now, "%" PRIu64, x->cr_total);
    snprintf(why, whylen, "GET %s: the object changed since it was opened (at open: size %" PRIu64
             ", ETag %s; now: size %s, ETag %s); not read as a mix of versions", range,
             x->f->size_bytes, x->o->etag[0] ? x->o->etag : "none", now,
             x->etag[0] ? x->etag : "none");
}

/* Writes x's cause into why: the HTTP status and S3 code, or curl's error. */
static void http_cause(const http_xfer *x, CURLcode cc, const char *code, char *why,
                       size_t whylen)
{
    char range[64];
    if (x->suffix) snprintf(range, sizeof range, "bytes=-%" PRIu64, x->len);
    else snprintf(range, sizeof range, "bytes=%" PRIu64 "-%" PRIu64, x->off, x->off + x->len - 1);
    char tries[32] = "";
    if (x->tries > 1) snprintf(tries, sizeof tries, " (after %d tries)", x->tries);
    if (x->changed)
        http_cause_changed(x, range, why, whylen);
    else if (x->encoded)
        snprintf(why, whylen, "GET %s: HTTP %ld with a Content-Encoding (none was asked for: the "
                 "body is not the object's bytes)", range, x->status);
    else if ((x->overlong || x->range_bad) && x->status == 200)
        snprintf(why, whylen, "GET %s: the server ignores Range (HTTP 200 with the whole object%s)",
                 range, x->overlong ? ", larger than the range" : "");
    else if (x->overlong)
        snprintf(why, whylen, "GET %s: the body is longer than the %" PRIu64 " bytes asked for",
                 range, x->len);
    else if (x->range_bad && x->have_cr && x->cr_first != UINT64_MAX)
        snprintf(why, whylen, "GET %s: HTTP %ld does not answer the range (Content-Range "
                 "elsewhere: bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64 ")", range, x->status,
                 x->cr_first, x->cr_last, x->cr_total);
    else if (x->range_bad && x->cr_bad[0])
        snprintf(why, whylen, "GET %s: HTTP %ld does not answer the range (Content-Range '%s' "
                 "does not parse)", range, x->status, x->cr_bad);
    else if (x->range_bad)
        snprintf(why, whylen, "GET %s: HTTP %ld does not answer the range (Content-Range %s)",
                 range, x->status, x->have_cr ? "elsewhere" : "missing");
    else if (cc == CURLE_ABORTED_BY_CALLBACK)
        snprintf(why, whylen, "GET %s: timed out (%" PRIu64 " bytes in %ld ms, under %" PRIu64
                 ")%s", range, x->slow_bytes, x->o->timeout_ms, http_window_floor(x->o), tries);
    else if (cc == CURLE_OPERATION_TIMEDOUT)
        snprintf(why, whylen, "GET %s: timed out (no progress for %ld ms: %s)%s", range,
                 x->o->timeout_ms, x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc), tries);
    else if (cc != CURLE_OK)
        snprintf(why, whylen, "GET %s: %s%s", range, x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc),
                 tries);
    else if (x->status == 200 || x->status == 206)
        snprintf(why, whylen, "GET %s: short body: %" PRIu64 " of %" PRIu64 " bytes%s", range,
                 x->got, x->len, tries);
    else
        snprintf(why, whylen, "GET %s: HTTP %ld%s%s%s%s", range, x->status, code[0] ? " " : "",
                 code, tries, x->status == 403 && x->o->path_as_is && !x->o->userpwd
                 ? " (no credentials were given)" : ""); /* (an s3:// object's hint only) */
}

http_verdict http_xfer_judge(CURL *h, http_xfer *x, CURLcode cc, char *why, size_t whylen)
{
    char code[64];
    http_s3_code(x->body, x->nbody, code, sizeof code);
    if (x->body_cut && cc == CURLE_WRITE_ERROR) cc = CURLE_OK; /* an error body's bound */
    io_file_count(x->f, x->got);
    /* a suffix answered by 200 is the whole object, however short (an empty file on nginx) */
    bool whole = x->suffix ? x->have_cr ? x->got == x->cr_last - x->cr_first + 1 : x->status == 200
                           : x->got == x->len;
    if (cc == CURLE_OK && (x->status == 200 || x->status == 206) && !x->range_bad && whole) {
        curl_off_t start = 0, total = 0;
        curl_easy_getinfo(h, CURLINFO_STARTTRANSFER_TIME_T, &start);
        curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total);
        if (start > 0 && total >= start)
            io_cost_observe(&x->f->cost, (uint64_t)start * 1000, x->got,
                            (uint64_t)(total - start) * 1000);
        return HTTP_OK;
    }
    if (io_cancel_requested(x->o->cancel)) { /* the host's (store.h io_cancel): no retry */
        snprintf(why, whylen, "cancelled by the host");
        x->err = -ECANCELED;
        return HTTP_FAIL;
    }
    /* a body that ended short of what its answer promised: a connection closed mid-body with
     * no Content-Length to tell curl (which then sees a clean end), as transient as a reset */
    bool cut = cc == CURLE_OK && (x->status == 200 || x->status == 206);
    if (!x->overlong && !x->range_bad && (cut || http_retryable(x, cc, code)) &&
        x->tries <= x->o->retries && exec_now_ns() - x->t0_ns < HTTP_RETRY_TOTAL_NS)
        return HTTP_RETRY;
    http_cause(x, cc, code, why, whylen);
    x->err = cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_ABORTED_BY_CALLBACK ? -ETIMEDOUT
             : cc != CURLE_OK || x->overlong || x->range_bad || x->changed || x->status == 200 ||
                       x->status == 206
                 ? -EIO
                 : http_status_errno(x->status);
    return HTTP_FAIL;
}

/* ---- the blocking path: the open and metadata reads ---- */

/* Runs x to its end on the calling thread (retries sleep). Returns 0 or x->err. */
static int http_run_sync(http_obj *o, http_xfer *x, char *why, size_t whylen)
{
    pthread_mutex_lock(&o->mu);
    x->t0_ns = exec_now_ns();
    int rc = 0;
    for (x->tries = 1;; x->tries++) {
        curl_easy_reset(o->sync);
        http_xfer_prepare(o->sync, x);
        CURLcode cc = curl_easy_perform(o->sync);
        http_verdict v = http_xfer_judge(o->sync, x, cc, why, whylen);
        if (v == HTTP_OK) break;
        if (v == HTTP_FAIL) {
            rc = x->err;
            break;
        }
        uint64_t ns = http_backoff_ns(x->tries, (uint64_t)rand());
        nanosleep(&(struct timespec){(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)}, NULL);
    }
    pthread_mutex_unlock(&o->mu);
    return rc;
}

uint64_t http_tail_take(io_file_t *f, uint64_t off, uint64_t len, uint8_t *buf)
{
    const http_obj *o = f->be_file;
    uint64_t tail_end = o->tail_off + o->tail_len;
    if (off > tail_end || len > tail_end - off || off + len <= o->tail_off) return len;
    uint64_t from = off > o->tail_off ? off : o->tail_off; /* the first byte the tail has */
    memcpy(buf + (from - off), o->tail + (from - o->tail_off), off + len - from);
    io_file_count_copy(f, off + len - from);
    return from - off;
}

/* The open's tail serves what it holds; the rest is one GET, or parallel GETs
 * (store_http_parts.c) when parts > 1 and the cost model (io_cost_parts) still splits what
 * the tail left: a footer longer than the tail, after the suffix GET gave its length. */
static int http_read_sync(io_file_t *f, uint64_t off, void *buf, size_t len, uint32_t parts,
                          char *err, size_t errlen)
{
    http_obj *o = f->be_file;
    if (off > f->size_bytes || len > f->size_bytes - off) {
        if (err)
            snprintf(err, errlen, "%s: bytes [%" PRIu64 ", %" PRIu64 ") lie past the end (size %"
                     PRIu64 ")", f->name, off, off + len, f->size_bytes);
        return -EIO;
    }
    len = http_tail_take(f, off, len, buf);
    if (len == 0) return 0;
    if (parts > 1)
        parts = io_cost_parts(&f->cost, len,
                              atomic_load_explicit(&f->ranges_in_flight, memory_order_relaxed));
    char why[IO_WHY_MAX];
    int rc;
    if (parts > 1) {
        rc = http_read_parts(o, f, off, buf, len, parts, why, sizeof why);
    } else {
        http_xfer x = {.o = o, .f = f, .buf = buf, .off = off, .len = len};
        rc = http_run_sync(o, &x, why, sizeof why);
    }
    if (rc && err) snprintf(err, errlen, "%s: %s", f->name, why);
    return rc;
}

static void http_obj_free(http_obj *o)
{
    if (!o) return;
    if (o->sync) curl_easy_cleanup(o->sync);
    curl_slist_free_all(o->headers);
    if (o->userpwd) {
        memset(o->userpwd, 0, strlen(o->userpwd));
        free(o->userpwd);
    }
    free(o->tail);
    io_cancel_unref(o->cancel);
    pthread_mutex_destroy(&o->mu);
    free(o);
}

static void http_close(io_file_t *f)
{
    http_obj_free(f->be_file);
    f->be_file = NULL;
}

const io_backend io_backend_http = {
    .name = "http", .id = 2, .remote = true, .core_new = http_core_new,
    .core_free = http_core_free, .read = http_read, .cancel = http_cancel,
    .read_sync = http_read_sync, .close = http_close, .open = http_open,
};
const io_backend io_backend_s3 = {
    .name = "s3", .id = 2, .remote = true, .core_new = http_core_new,
    .core_free = http_core_free, .read = http_read, .cancel = http_cancel,
    .read_sync = http_read_sync, .close = http_close, .open = http_open,
};

/* ---- opening ---- */

static const char *http_pick(const char *given, const char *env1, const char *env2)
{
    if (given && *given) return given;
    const char *v = env1 ? getenv(env1) : NULL;
    if (v && *v) return v;
    v = env2 ? getenv(env2) : NULL;
    return v && *v ? v : NULL;
}

/* A positive integer from the environment, or def. */
static long http_env_long(const char *name, long def, long lo, long hi)
{
    const char *v = getenv(name);
    if (!v || !*v) return def;
    char *end;
    long x = strtol(v, &end, 10);
    return *end == '\0' && x >= lo && x <= hi ? x : def;
}

/* Signing: S3 with credentials gets SigV4 (x-amz-content-sha256 always sent: Debian's curl
 * 7.88 does not add it, and then signs it); anything else goes unsigned. */
static int http_obj_sign(http_obj *o, const char *url, const io_open_opts *op, char *err,
                         size_t errlen)
{
    /* the credentials are one set: the options' when they give a key id (the environment's
     * secret or token, perhaps another identity's, never mixed in), else the environment's
     * (an option's secret or token without a key id, with the environment's key, would be
     * such a mix too: ringscan.h) */
    bool given = op->s3_key_id && *op->s3_key_id;
    const char *key = given ? op->s3_key_id : http_pick(NULL, "AWS_ACCESS_KEY_ID", NULL);
    const char *secret = given ? http_pick(op->s3_secret, NULL, NULL)
                               : http_pick(NULL, "AWS_SECRET_ACCESS_KEY", NULL);
    const char *token = given ? http_pick(op->s3_token, NULL, NULL)
                              : http_pick(NULL, "AWS_SESSION_TOKEN", NULL);
    const char *region = http_pick(op->s3_region, "AWS_REGION", "AWS_DEFAULT_REGION");
    const char *endpoint = http_pick(op->s3_endpoint, "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
    if (http_s3_url(o->url, sizeof o->url, url, endpoint, region) != 0) {
        if (err) snprintf(err, errlen, "%s: not an S3 URL of the form s3://bucket/key", url);
        return -EINVAL;
    }
    if (given && !secret) {
        if (err) snprintf(err, errlen, "%s: an S3 access key id is given without its secret", url);
        return -EINVAL;
    }
    if (!key || !secret) return 0; /* anonymous */
    snprintf(o->sigv4, sizeof o->sigv4, "aws:amz:%s:s3", region ? region : "us-east-1");
    size_t n = strlen(key) + strlen(secret) + 2;
    o->userpwd = fail_malloc(n);
    if (!o->userpwd) return -ENOMEM;
    snprintf(o->userpwd, n, "%s:%s", key, secret);
    char tok[4096];
    struct curl_slist *h = curl_slist_append(NULL, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (h && token) {
        snprintf(tok, sizeof tok, "x-amz-security-token: %s", token);
        struct curl_slist *h2 = curl_slist_append(h, tok);
        memset(tok, 0, sizeof tok);
        if (!h2) curl_slist_free_all(h);
        h = h2;
    }
    o->headers = h;
    return h ? 0 : -ENOMEM;
}

static void http_obj_tls(http_obj *o, const char *shown, const io_open_opts *op)
{
    o->insecure = op->tls_insecure;
    const char *ca = http_pick(NULL, "CURL_CA_BUNDLE", "SSL_CERT_FILE");
    if (ca) snprintf(o->ca_file, sizeof o->ca_file, "%s", ca);
    if (o->insecure && strncmp(shown, "http://", 7) != 0 &&
        !atomic_flag_test_and_set(&http_insecure_warned))
        fprintf(stderr, "ringscan: warning: TLS certificate and host verification are off (%s)\n",
                shown);
}

bool http_tail_reask(http_obj *o, io_file_t *f, http_xfer *x)
{
    if (!(x->overlong && x->status == 200 && x->have_clen && x->clen > HTTP_TAIL_BYTES))
        return false;
    f->size_bytes = x->clen; /* what the ranged answer's Content-Range total must say */
    /* the start kept: a task's request retries within HTTP_RETRY_TOTAL_NS of it (zero, the
     * re-asked range was never retried on the multi handle; the blocking run sets its own) */
    *x = (http_xfer){.o = o, .f = f, .buf = o->tail, .off = x->clen - HTTP_TAIL_BYTES,
                     .len = HTTP_TAIL_BYTES, .t0_ns = x->t0_ns};
    return true;
}

int http_tail_done(http_obj *o, io_file_t *f, http_xfer *x, int rc, char *err, size_t errlen,
                   const char *why)
{
    if (rc == -ERANGE && x->have_cr && x->cr_first == UINT64_MAX && x->cr_total == 0) {
        rc = 0; /* 416 on an empty object: size 0, and the Parquet check says so */
        x->got = 0;
        x->cr_first = 0;
        x->cr_total = 0;
    }
    if (rc) {
        if (err) snprintf(err, errlen, "%s: %s", f->name, why);
        return rc;
    }
    f->size_bytes = x->status == 206 ? x->cr_total : x->got;
    o->tail_len = x->got;
    if (!o->etag_unchecked) snprintf(o->etag, sizeof o->etag, "%s", x->etag); /* none: unchecked */
    o->tail_off = f->size_bytes - x->got;
    assert(o->tail_off <= f->size_bytes);
    return 0;
}

int http_tail_xfer(http_obj *o, io_file_t *f, http_xfer *x)
{
    o->tail = fail_malloc(HTTP_TAIL_BYTES);
    if (!o->tail) return -ENOMEM;
    *x = (http_xfer){.o = o, .f = f, .buf = o->tail, .len = HTTP_TAIL_BYTES, .suffix = true};
    return 0;
}

/* The suffix GET on this thread: the object's size and its last HTTP_TAIL_BYTES (kept for the
 * footer), and its ETag unless etag_unchecked (later answers are then not compared with one).
 * A whole-object answer to the suffix is asked again as an explicit range (http_tail_reask). */
static int http_obj_tail(http_obj *o, io_file_t *f, char *err, size_t errlen)
{
    http_xfer x;
    if (http_tail_xfer(o, f, &x) != 0) return -ENOMEM;
    char why[IO_WHY_MAX];
    int rc = http_run_sync(o, &x, why, sizeof why);
    if (rc && http_tail_reask(o, f, &x)) rc = http_run_sync(o, &x, why, sizeof why);
    return http_tail_done(o, f, &x, rc, err, errlen, why);
}

static int http_obj_new(http_obj **out, const char *url, const char *shown,
                        const io_open_opts *op, char *err, size_t errlen)
{
    http_obj *o = fail_calloc(1, sizeof *o);
    if (!o) return -ENOMEM;
    pthread_mutex_init(&o->mu, NULL);
    o->timeout_ms = http_env_long("RINGSCAN_HTTP_TIMEOUT_MS", HTTP_TIMEOUT_MS_DEFAULT, 100, 3600000);
    o->retries = (int)http_env_long("RINGSCAN_HTTP_RETRIES", HTTP_RETRIES_DEFAULT, 0, 100);
    int rc = 0;
    o->path_as_is = strncmp(url, "s3://", 5) == 0;
    if (o->path_as_is) rc = http_obj_sign(o, url, op, err, errlen);
    else rc = http_url_encode(o->url, sizeof o->url, url);
    if (rc == -EINVAL && err && strncmp(url, "s3://", 5) != 0)
        snprintf(err, errlen, "%s: URL longer than %d bytes (percent-encoded)", shown,
                 HTTP_URL_MAX - 1);
    if (rc == 0 && !(o->sync = curl_easy_init())) rc = -ENOMEM;
    if (rc) {
        if (rc == -ENOMEM && err) snprintf(err, errlen, "%s: out of memory", shown);
        http_obj_free(o);
        return rc;
    }
    http_obj_tls(o, shown, op);
    o->etag_unchecked = op->etag_unchecked;
    o->cancel = io_cancel_ref(op->cancel);
    *out = o;
    return 0;
}

int http_obj_make(http_obj **out, const char *url, const io_open_opts *op, char *err,
                  size_t errlen)
{
    return http_obj_new(out, url, url, op, err, errlen);
}

void http_obj_drop(http_obj *o)
{
    if (o) http_obj_free(o);
}

int io_http_file(io_file_t **out, const char *url, const io_open_opts *op, char *err,
                 size_t errlen)
{
    assert(out && url && op);
    pthread_once(&http_once, http_global_init);
    char shown[HTTP_URL_MAX];
    io_path_shown(shown, sizeof shown, url);
    if (http_global_rc != CURLE_OK) {
        if (err) snprintf(err, errlen, "%s: libcurl: %s", shown, curl_easy_strerror(http_global_rc));
        return -EIO;
    }
    size_t n = strlen(shown);
    io_file_t *f = fail_malloc(sizeof *f + n + 1);
    if (!f) {
        if (err) snprintf(err, errlen, "%s: out of memory", shown);
        return -ENOMEM;
    }
    memset(f, 0, sizeof *f);
    memcpy(f->name, shown, n + 1);
    f->fd = -1;
    f->be = strncmp(url, "s3://", 5) == 0 ? &io_backend_s3 : &io_backend_http;
    /* one core's connection limit: ranges in flight are counted over every core, so with
     * several cores the connections count as busy early and holes merge sooner (io_flush.c
     * invariant 1) */
    io_cost_seed(&f->cost, HTTP_COST_TTFB_NS, HTTP_COST_BPS, HTTP_CONNS_PER_CORE);
    f->cost.ttfb_spread_ns = HTTP_COST_TTFB_NS; /* a real store's first bytes vary */
    http_obj *o = NULL;
    int rc = http_obj_new(&o, url, shown, op, err, errlen);
    if (rc) {
        free(f);
        return rc;
    }
    f->be_file = o;
    *out = f;
    return 0;
}

int io_http_open_sync(io_file_t *f, char *err, size_t errlen)
{
    return http_obj_tail(f->be_file, f, err, errlen);
}
