/* io/store_http.h: private to store_http.c and store_http_multi.c (and their unit test): an
 * object's request settings, one request's state, and the pure pieces (URLs, Content-Range,
 * S3 error codes, the retry rule) shared by the blocking metadata path and the per-core
 * multi-socket driver.
 *
 * Invariants:
 *  1. An http_obj never changes after its open request completed (io_http_open_sync, or the
 *     backend's open on a core, before the file is shared); every core and the metadata path read it
 *     at once. Its credentials live only in userpwd and headers, never in a message.
 *  2. An http_xfer's body lands only in buf[0, len): a byte past len is an overlong body,
 *     and an error status's body goes to the bounded body[] instead: the transfer ends once
 *     body[] is full, so a huge or slow error body costs at most HTTP_BODY_MAX bytes.
 *     buf is the read's own buffer (a range's, or a parallel part's slice of it: curl's
 *     write callback is the one copy a body's bytes take), but for the open's GET, whose buf
 *     is the object's tail: a later read inside it is copied from there (http_tail_take),
 *     and counted (io_file_t.body_copies, body_bytes_copied). */
#ifndef RINGSCAN_IO_STORE_HTTP_H
#define RINGSCAN_IO_STORE_HTTP_H
#include "io/curl_dl.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "io/io.h"

enum {
    HTTP_TAIL_BYTES = 1 << 20,   /* the suffix GET at open: scan/pqfile.h's smallest tail read */
    HTTP_BODY_MAX = 1024,        /* an error status's body kept for its S3 code */
    HTTP_CONNS_PER_CORE = 32,    /* a core's connections (with 2 cores, the sim's 64) */
    HTTP_RETRIES_DEFAULT = 5,    /* tries after the first (RINGSCAN_HTTP_RETRIES) */
    HTTP_TIMEOUT_MS_DEFAULT = 30000, /* connect; a try's rate window (RINGSCAN_HTTP_TIMEOUT_MS) */
    HTTP_URL_MAX = 4096,
    HTTP_MIN_BPS = 1024,         /* a try slower than this over a timeout's window is a stall */
    HTTP_ETAG_MAX = 128,
    HTTP_REDIRS_MAX = 5          /* redirects an unsigned request follows */
};
#define HTTP_BACKOFF_BASE_NS (UINT64_C(100) * 1000 * 1000)       /* 100 ms, doubling */
#define HTTP_BACKOFF_CAP_NS (UINT64_C(5) * 1000 * 1000 * 1000)   /* 5 s */
#define HTTP_RETRY_TOTAL_NS (UINT64_C(60) * 1000 * 1000 * 1000)  /* no retry starts after 60 s */

typedef struct http_obj {
    char url[HTTP_URL_MAX];    /* the request URL (an http URL's userinfo stays here only) */
    char sigv4[96];            /* CURLOPT_AWS_SIGV4 "aws:amz:REGION:s3"; empty: unsigned */
    char *userpwd;             /* "key:secret" for SigV4; NULL when unsigned */
    struct curl_slist *headers; /* x-amz-content-sha256, x-amz-security-token */
    bool insecure;             /* no TLS verification (warned at open) */
    bool path_as_is;           /* an S3 key: its "../" and "./" are the key's, sent as they are
                                  (curl would resolve them: another key's bytes) */
    char ca_file[512];         /* CURL_CA_BUNDLE / SSL_CERT_FILE; empty: the system bundle */
    long timeout_ms;
    int retries;
    uint8_t *tail;             /* the bytes of the suffix GET at open */
    uint64_t tail_off, tail_len;
    char etag[HTTP_ETAG_MAX];  /* the open's ETag (empty: none): every later answer must match */
    bool etag_unchecked;       /* io_open_opts.etag_unchecked: the open's ETag is not kept */
    io_cancel *cancel;         /* io_open_opts.cancel, a reference held; NULL: none */
    pthread_mutex_t mu;        /* guards sync (metadata reads from any thread) */
    CURL *sync;                /* the metadata path's handle: its connection is kept */
} http_obj;

/* Verdict on a finished request. */
typedef enum { HTTP_OK = 0, HTTP_RETRY, HTTP_FAIL } http_verdict;

typedef struct http_xfer {
    const http_obj *o;
    io_file_t *f;
    uint8_t *buf;
    uint64_t off, len, got;    /* suffix: off unknown (0) and len the most accepted */
    bool suffix;               /* "bytes=-len": the open's tail GET */
    long status;
    bool overlong, range_bad;
    bool changed;              /* the answer is of another version (size or ETag, invariant 1) */
    bool body_cut;             /* an error body ended at body[]'s bound (the rest not read) */
    bool have_cr;
    uint64_t cr_first, cr_last, cr_total;
    char cr_bad[48];           /* a Content-Range that came and does not parse, for the message
                                  (cut, bytes outside printable ASCII as '?'); "" otherwise */
    bool encoded;              /* a Content-Encoding other than identity: not the object's bytes */
    bool have_clen;            /* a Content-Length came: clen (a 200's is the object's size) */
    uint64_t clen;
    char body[HTTP_BODY_MAX];
    size_t nbody;
    char errbuf[CURL_ERROR_SIZE];
    int tries;                 /* requests sent so far */
    uint64_t progress_ns;      /* when this try's current rate window began */
    uint64_t progress_bytes;   /* bytes it had received then */
    uint64_t slow_bytes;       /* bytes of the window that ended it as too slow */
    char etag[HTTP_ETAG_MAX];  /* the answer's ETag (empty: none) */
    uint64_t t0_ns;            /* the first request's start */
    int err;                   /* on HTTP_FAIL: the negative errno the read fails with */
} http_xfer;

/* Whether *p is an unreserved byte (RFC 3986: A-Z a-z 0-9 - _ . ~), never percent-encoded. */
bool http_unreserved(const unsigned char *p);
/* Appends s to out[0, at), each byte plain(p) refuses as %XX (upper-case hex), and returns the
 * new length (out NUL-terminated), or 0 when it does not fit cap. */
size_t http_pct_put(char *out, size_t cap, size_t at, const char *s,
                    bool (*plain)(const unsigned char *p));
/* The request URL of an http(s) url, as curl and DuckDB's httpfs send it: scheme and
 * authority as they are; in the path and query, bytes no URL may hold (a space, a control
 * byte, a non-ASCII byte, one of "<>\^`{|}) and a '%' that starts no escape as %XX, the rest
 * (reserved characters, and escapes already there: never encoded twice) as they are.
 * 0, or -EINVAL when it does not fit cap. */
int http_url_encode(char *out, size_t cap, const char *url);
/* Builds the request URL of s3url ("s3://bucket/key") into out: path-style under endpoint
 * when one is given (an S3-compatible server), else https://bucket.s3.REGION.amazonaws.com/
 * key. The key is percent-encoded but for '/'. Returns 0 or -EINVAL (no bucket or key, or
 * the URL does not fit). */
int http_s3_url(char *out, size_t cap, const char *s3url, const char *endpoint,
                const char *region);
/* Parses a Content-Range value "bytes FIRST-LAST/TOTAL" (or "bytes STAR/TOTAL" of a 416:
 * then first = last = UINT64_MAX). Returns false when it is not one (total must be known). */
bool http_content_range(const char *v, uint64_t *first, uint64_t *last, uint64_t *total);
/* Copies the <Code> of an S3 XML error body into code (empty when none). */
void http_s3_code(const char *body, size_t n, char *code, size_t cap);
/* The wait before retry number attempt (1 = the first retry): capped doubling with equal
 * jitter from rnd. */
uint64_t http_backoff_ns(int attempt, uint64_t rnd);

/* Copies into buf the part of [off, off + len) that the open's tail of f (an HTTP or S3
 * object) holds, when the range ends inside it (the tail is the object's end, so a range
 * ending there ends at or before it), and returns how many leading bytes are still to fetch:
 * 0 when the tail held it all, len when it holds none of it. A copy counts one in
 * f->body_copies and its bytes in f->body_bytes_copied (invariant 2). */
uint64_t http_tail_take(io_file_t *f, uint64_t off, uint64_t len, uint8_t *buf);

/* store_http_parts.c: reads [off, off + len) of o's object into buf as n (2 ..
 * IO_SPLIT_PARTS_MAX, at most len) parallel ranged GETs, each on its own connection, each
 * retried as one GET is; blocking. 0, or the first part's failure with why naming its range
 * and cause (-ENOMEM: why says so). */
int http_read_parts(const http_obj *o, io_file_t *f, uint64_t off, uint8_t *buf, uint64_t len,
                    uint32_t n, char *why, size_t whylen);

/* Points easy handle h at x's request (range, callbacks, signing, TLS, timeouts) and resets
 * x's per-request state. */
void http_xfer_prepare(CURL *h, http_xfer *x);
/* o's TLS verification, CA bundle, headers and SigV4 signing on h (every request of o). */
void http_obj_setopts(CURL *h, const http_obj *o);
/* Judges x's finished request (cc from curl): counts it on the file, folds a success into the
 * cost model, and on HTTP_FAIL or a retry refused by its bounds writes a message naming the
 * range and the cause (HTTP status, S3 code, curl error) into why. */
http_verdict http_xfer_judge(CURL *h, http_xfer *x, CURLcode cc, char *why, size_t whylen);

/* An object's request settings for url (s3://: its signed path-style or virtual-hosted URL;
 * http(s)://: the URL itself), as io_http_file makes them, without any request; freed with
 * http_obj_drop. 0 or a negative errno with err filled. (The S3 lister: store_http_list.c.) */
int http_obj_make(http_obj **out, const char *url, const io_open_opts *op, char *err,
                  size_t errlen);
void http_obj_drop(http_obj *o);

/* store_http_multi.c: the per-core driver (core_new, core_free, read, cancel of
 * io_backend_http). */
int http_core_new(void **out, exec_t *e);
void http_core_free(void *core);
int http_read(void *core, exec_t *e, io_file_t *f, exec_op_t *op, void *buf, uint64_t len,
              uint64_t off, char *why, size_t whylen);
int http_cancel(void *core, exec_t *e, exec_op_t *op);
/* The backend's open (store.h): the suffix GET of f through the core's multi handle, its answer
 * applied by http_tail_done. */
int http_open(void *core, exec_t *e, io_file_t *f, exec_op_t *op, char *why, size_t whylen);
/* The open's transfer into x: the suffix GET of HTTP_TAIL_BYTES into o's tail (allocated
 * here). 0 or -ENOMEM. */
int http_tail_xfer(http_obj *o, io_file_t *f, http_xfer *x);
/* After a failed suffix GET x of an open that the server answered with the whole object (HTTP
 * 200 and its Content-Length: a server that takes no "bytes=-N", as Azure Blob Storage), x made
 * the explicit range of the object's last HTTP_TAIL_BYTES, to be run again, and true; false when
 * x failed otherwise. A server that ignores ranges altogether fails the second try as it failed
 * the first ("ignores Range"). */
bool http_tail_reask(http_obj *o, io_file_t *f, http_xfer *x);

/* The open's answer (x ended with rc, why its cause) applied: f's size, o's tail and ETag (a
 * 416 on an empty object is size 0); on failure err (may be NULL) gets "NAME: why". Returns
 * 0 or rc. On the thread that made the request, before f is shared. */
int http_tail_done(http_obj *o, io_file_t *f, http_xfer *x, int rc, char *err, size_t errlen,
                   const char *why);

#endif
