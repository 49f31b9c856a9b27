/* tests for io/store_http.c's pure pieces: S3 URLs (path-style under an endpoint, virtual
 * hosts, key encoding, malformed URLs), Content-Range parsing (a range, a 416's star, every
 * malformed form), S3 error codes, userinfo redaction and the retry backoff's bounds, and
 * the open's errors that need no server (a refused connection names the URL, never a
 * credential), and which credentials an S3 open signs with (a local socket that records the
 * request and answers 403). Requests against real servers are tests/cli/http_*.sh. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "io/store_http.h"

static void s3_urls(void)
{
    char u[256];
    CHECK_EQ_I64(http_s3_url(u, sizeof u, "s3://bkt/a/b.parquet", "http://127.0.0.1:9000", NULL), 0);
    CHECK_STR(u, "http://127.0.0.1:9000/bkt/a/b.parquet");
    CHECK_EQ_I64(http_s3_url(u, sizeof u, "s3://bkt/k", "http://h:1/", "eu-west-1"), 0);
    CHECK_STR(u, "http://h:1/bkt/k");
    CHECK_EQ_I64(http_s3_url(u, sizeof u, "s3://bkt/dir/x y+z%.parquet", NULL, "eu-west-1"), 0);
    CHECK_STR(u, "https://bkt.s3.eu-west-1.amazonaws.com/dir/x%20y%2Bz%25.parquet");
    CHECK_EQ_I64(http_s3_url(u, sizeof u, "s3://bkt/k", NULL, NULL), 0);
    CHECK_STR(u, "https://bkt.s3.us-east-1.amazonaws.com/k");
    CHECK_EQ_I64(http_s3_url(u, sizeof u, "s3://bkt", NULL, NULL), -EINVAL);
    CHECK_EQ_I64(http_s3_url(u, sizeof u, "s3://bkt/", NULL, NULL), -EINVAL);
    CHECK_EQ_I64(http_s3_url(u, sizeof u, "s3:///k", NULL, NULL), -EINVAL);
    CHECK_EQ_I64(http_s3_url(u, 20, "s3://bkt/a-long-key", "http://127.0.0.1:9000", NULL), -EINVAL);
}

/* http(s) URLs as curl and DuckDB's httpfs send them: what no URL may hold is encoded, what
 * is already an escape is not encoded twice, reserved characters keep their meaning. */
static void http_urls(void)
{
    char u[64];
    CHECK_EQ_I64(http_url_encode(u, sizeof u, "http://h:1/d/a b+c.parquet"), 0);
    CHECK_STR(u, "http://h:1/d/a%20b+c.parquet");
    CHECK_EQ_I64(http_url_encode(u, sizeof u, "http://h/a%20b%2fc%.p?x=%zz y#f"), 0);
    CHECK_STR(u, "http://h/a%20b%2fc%25.p?x=%25zz%20y#f");
    CHECK_EQ_I64(http_url_encode(u, sizeof u, "https://u:p w@h/\xc3\xa9\"<>\\^`{|}\x01"), 0);
    CHECK_STR(u, "https://u:p w@h/%C3%A9%22%3C%3E%5C%5E%60%7B%7C%7D%01");
    CHECK_EQ_I64(http_url_encode(u, sizeof u, "http://h"), 0);
    CHECK_STR(u, "http://h");
    CHECK_EQ_I64(http_url_encode(u, sizeof u, "http://h?a=1"), 0);
    CHECK_STR(u, "http://h?a=1");
    CHECK_EQ_I64(http_url_encode(u, 12, "http://h/ab"), 0);       /* 11 bytes and the NUL */
    CHECK_EQ_I64(http_url_encode(u, 12, "http://h/a b"), -EINVAL); /* 13 once encoded */
    CHECK_EQ_I64(http_url_encode(u, 8, "http://hostname/"), -EINVAL);
    /* S3 keys: every byte but the unreserved ones and '/' */
    CHECK_EQ_I64(http_s3_url(u, sizeof u, "s3://b/k #?%+\xc3\xa9=&", "http://h", NULL), 0);
    CHECK_STR(u, "http://h/b/k%20%23%3F%25%2B%C3%A9%3D%26");
}

static void content_ranges(void)
{
    uint64_t a, b, t;
    CHECK(http_content_range(" bytes 10-19/100\r\n", &a, &b, &t));
    CHECK(a == 10 && b == 19 && t == 100);
    CHECK(http_content_range("bytes */0", &a, &b, &t));
    CHECK(a == UINT64_MAX && b == UINT64_MAX && t == 0);
    CHECK(!http_content_range("bytes 10-19/*", &a, &b, &t));   /* total unknown */
    CHECK(!http_content_range("bytes 19-10/100", &a, &b, &t)); /* backwards */
    CHECK(!http_content_range("bytes 10-100/100", &a, &b, &t)); /* past the end */
    CHECK(!http_content_range("items 1-2/3", &a, &b, &t));
    CHECK(!http_content_range("bytes 1-2/3x", &a, &b, &t));
    CHECK(!http_content_range("bytes 99999999999999999999-1/2", &a, &b, &t)); /* overflow */
    CHECK(!http_content_range("bytes -1/2", &a, &b, &t));
}

static void s3_codes(void)
{
    char c[32];
    const char *body = "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>gone</Message></Error>";
    http_s3_code(body, strlen(body), c, sizeof c);
    CHECK_STR(c, "NoSuchKey");
    http_s3_code("<html>404</html>", 16, c, sizeof c);
    CHECK_STR(c, "");
    const char *cut = "<Error><Code>SlowDo"; /* a body cut at HTTP_BODY_MAX */
    http_s3_code(cut, strlen(cut), c, sizeof c);
    CHECK_STR(c, "SlowDo");
    http_s3_code(body, strlen(body), c, 4); /* bounded by the caller's buffer */
    CHECK_STR(c, "NoS");
}

static void redaction(void)
{
    char o[128];
    io_path_shown(o, sizeof o, "http://user:secret@host:8080/a@b.parquet");
    CHECK_STR(o, "http://host:8080/a@b.parquet");
    io_path_shown(o, sizeof o, "https://host/a@b.parquet");
    CHECK_STR(o, "https://host/a@b.parquet");
    io_path_shown(o, sizeof o, "https://host?x=a@b");
    CHECK_STR(o, "https://host?x=a@b");
    io_path_shown(o, sizeof o, "user@host/a.parquet"); /* a local path is not a URL */
    CHECK_STR(o, "user@host/a.parquet");
}

/* A query string is not a pattern over http(s) (presigned URLs); over s3:// '?' is one. */
static void patterns(void)
{
    CHECK(!io_url_has_pattern("https://h/a.parquet?X-Amz-Signature=1&b=[2]*"));
    CHECK(io_url_has_pattern("https://h/a*.parquet?x=1"));
    CHECK(io_url_has_pattern("http://h/a[12].parquet"));
    CHECK(io_url_has_pattern("s3://b/a?.parquet"));
    CHECK(!io_url_has_pattern("s3://b/a.parquet"));
    CHECK(!io_url_has_pattern("http://[::1]:8080/a.parquet")); /* an IPv6 host */
    CHECK(!io_url_has_pattern("http://u:p@[fe80::1%25eth0]/d/a.parquet?q=[1]"));
    CHECK(io_url_has_pattern("http://[::1]/a[12].parquet"));
    CHECK(!io_url_has_pattern("http://[::1]"));
}

static void backoff(void)
{
    for (int attempt = 1; attempt <= 12; attempt++) {
        uint64_t b = HTTP_BACKOFF_BASE_NS << (attempt - 1);
        if (b > HTTP_BACKOFF_CAP_NS || attempt > 10) b = HTTP_BACKOFF_CAP_NS;
        for (uint64_t r = 0; r < 5; r++) {
            uint64_t v = http_backoff_ns(attempt, r * 0x9e3779b97f4a7c15u);
            CHECK(v >= b / 2 && v <= b);
        }
    }
    CHECK_EQ_I64((int64_t)http_backoff_ns(1, 0), (int64_t)(HTTP_BACKOFF_BASE_NS / 2));
}

/* The open's tail (bytes [100, 110) of a 110-byte object) serves a read inside it whole, the
 * end of a read that straddles its start (the rest is left to fetch), and nothing else; each
 * read it serves counts one copy and the bytes it copied. */
static void tail_take(void)
{
    uint8_t tail[10];
    for (int i = 0; i < 10; i++) tail[i] = (uint8_t)(100 + i);
    http_obj o = {.tail = tail, .tail_off = 100, .tail_len = 10};
    io_file_t *f = calloc(1, sizeof *f + 1);
    CHECK(f != NULL);
    if (!f) return;
    f->be_file = &o;
    uint8_t buf[20];
    memset(buf, 0, sizeof buf);
    CHECK_EQ_I64((int64_t)http_tail_take(f, 103, 4, buf), 0);
    CHECK(buf[0] == 103 && buf[3] == 106);
    memset(buf, 0, sizeof buf);
    CHECK_EQ_I64((int64_t)http_tail_take(f, 95, 15, buf), 5); /* [95, 100) still to fetch */
    CHECK(buf[4] == 0 && buf[5] == 100 && buf[14] == 109);
    CHECK_EQ_I64((int64_t)http_tail_take(f, 90, 10, buf), 10); /* ends where the tail starts */
    CHECK_EQ_I64((int64_t)http_tail_take(f, 105, 10, buf), 10); /* past the object's end */
    CHECK_EQ_I64((int64_t)http_tail_take(f, 100, 10, buf), 0);
    CHECK_EQ_I64((int64_t)f->body_copies, 3);            /* 4 + 10 + 10 bytes copied */
    CHECK_EQ_I64((int64_t)f->body_bytes_copied, 24);
    free(f);
}

/* Nothing listens on the port: the open fails after its retries with a message naming the
 * URL (redacted) and curl's cause, and never the password or the S3 secret. */
static void refused(void)
{
    setenv("RINGSCAN_HTTP_RETRIES", "1", 1);
    io_file_t *f = NULL;
    char err[512];
    io_open_opts o = {0};
    int rc = io_file_open_with(&f, "http://me:hunter2@127.0.0.1:1/x.parquet", &o, err, sizeof err);
    CHECK(rc < 0 && f == NULL);
    CHECK(strstr(err, "http://127.0.0.1:1/x.parquet") != NULL);
    CHECK(strstr(err, "hunter2") == NULL && strstr(err, "me:") == NULL);
    CHECK(strstr(err, "bytes=-") != NULL);
    o.s3_key_id = "AKIDTEST";
    o.s3_secret = "s3cr3tVALUE";
    o.s3_endpoint = "http://127.0.0.1:1";
    rc = io_file_open_with(&f, "s3://bkt/x.parquet", &o, err, sizeof err);
    CHECK(rc < 0 && f == NULL);
    CHECK(strstr(err, "s3://bkt/x.parquet") != NULL);
    CHECK(strstr(err, "s3cr3tVALUE") == NULL);
    rc = io_file_open_with(&f, "s3://bkt", &o, err, sizeof err);
    CHECK_EQ_I64(rc, -EINVAL);
    CHECK(strstr(err, "s3://bucket/key") != NULL);
    unsetenv("RINGSCAN_HTTP_RETRIES");
}

/* A listener on 127.0.0.1 that records the requests' headers and answers each 403, until
 * stopped (or 30 s pass without a connection). */
typedef struct rec_server {
    int fd, port;
    char seen[8192];
    size_t len;
    pthread_t th;
} rec_server;

static void *rec_serve(void *arg)
{
    rec_server *s = arg;
    for (;;) {
        struct pollfd p = {.fd = s->fd, .events = POLLIN};
        if (poll(&p, 1, 30000) <= 0) return NULL; /* (rec_stop wakes it) */
        int c = accept(s->fd, NULL, NULL);
        if (c < 0) return NULL;
        char buf[4096];
        size_t n = 0;
        while (n < sizeof buf - 1) { /* up to the headers' end */
            ssize_t r = read(c, buf + n, sizeof buf - 1 - n);
            if (r <= 0) break;
            n += (size_t)r;
            buf[n] = 0;
            if (strstr(buf, "\r\n\r\n")) break;
        }
        if (n < sizeof s->seen - s->len) memcpy(s->seen + s->len, buf, n), s->len += n;
        static const char resp[] = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n"
                                   "Connection: close\r\n\r\n";
        ssize_t w = write(c, resp, sizeof resp - 1);
        (void)w;
        close(c);
    }
}

static int rec_start(rec_server *s)
{
    memset(s, 0, sizeof *s);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(s->fd, 8) != 0 ||
        getsockname(s->fd, (struct sockaddr *)&a, &al) != 0)
        return -1;
    s->port = ntohs(a.sin_port);
    return pthread_create(&s->th, NULL, rec_serve, s) == 0 ? 0 : -1;
}

static void rec_stop(rec_server *s)
{
    shutdown(s->fd, SHUT_RDWR); /* its poll or accept ends */
    pthread_join(s->th, NULL);
    close(s->fd);
}

/* The request an S3 open of the options o sends to the recording server, into s. */
static void s3_open_seen(rec_server *s, io_open_opts *o)
{
    char ep[64], err[512];
    CHECK(rec_start(s) == 0);
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", s->port);
    o->s3_endpoint = ep;
    io_file_t *f = NULL;
    int rc = io_file_open_with(&f, "s3://bkt/x.parquet", o, err, sizeof err);
    CHECK(rc < 0 && f == NULL);
    rec_stop(s);
    CHECK(s->len > 0 && strstr(s->seen, "/bkt/x.parquet") != NULL);
}

/* The credentials are one set (ringscan.h): without a key id in the options, the key, secret
 * and token are all the environment's, so an option's secret or token alone is never sent
 * with the environment's key (a set mixed from two places, refused by S3 as a bad
 * signature, or the options' token sent for the environment's identity). */
static void s3_creds_one_set(void)
{
    setenv("RINGSCAN_HTTP_RETRIES", "1", 1);
    setenv("AWS_ACCESS_KEY_ID", "AKIDENVIRONMENT", 1);
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    rec_server s;
    io_open_opts o = {.s3_secret = "optSECRET", .s3_token = "optTOKEN"};
    s3_open_seen(&s, &o); /* the environment has a key, no secret: anonymous */
    CHECK(strstr(s.seen, "AKIDENVIRONMENT") == NULL && strcasestr(s.seen, "Authorization") == NULL);
    CHECK(strstr(s.seen, "optTOKEN") == NULL);
    setenv("AWS_SECRET_ACCESS_KEY", "envSECRET", 1);
    setenv("AWS_SESSION_TOKEN", "envTOKEN", 1);
    o = (io_open_opts){.s3_token = "optTOKEN"};
    s3_open_seen(&s, &o); /* the environment's whole set, its token with it */
    CHECK(strstr(s.seen, "Credential=AKIDENVIRONMENT/") != NULL);
    CHECK(strstr(s.seen, "envTOKEN") != NULL && strstr(s.seen, "optTOKEN") == NULL);
    o = (io_open_opts){.s3_key_id = "AKIDOPTIONS", .s3_secret = "optSECRET"};
    s3_open_seen(&s, &o); /* the options' set, no token from the environment */
    CHECK(strstr(s.seen, "Credential=AKIDOPTIONS/") != NULL && strstr(s.seen, "envTOKEN") == NULL);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("RINGSCAN_HTTP_RETRIES");
}

typedef struct open_call {
    const char *url;
    io_open_opts o;
    int rc;
    char err[512];
} open_call;

static void *open_on_thread(void *arg)
{
    open_call *c = arg;
    io_file_t *f = NULL;
    c->rc = io_file_open_with(&f, c->url, &c->o, c->err, sizeof c->err);
    io_file_close(f);
    return NULL;
}

static int64_t list_key_count;
static int count_key(void *ctx, const char *key) { (void)ctx, (void)key; list_key_count++; return 0; }

/* A server that takes the connection and never answers (a listening socket never accepted:
 * the kernel completes the handshake, the request waits): an open from another thread, with
 * a 10 minute timeout, returns -ECANCELED naming the URL once the host's cancel is requested
 * (store.h io_cancel); a cancel requested before an open or an S3 listing fails it at once,
 * without a retry. */
static void host_cancel(void)
{
    setenv("RINGSCAN_HTTP_TIMEOUT_MS", "600000", 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 8) == 0 &&
          getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    char url[96], ep[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x.parquet", ntohs(a.sin_port));
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", ntohs(a.sin_port));
    open_call c = {.url = url, .o = {.cancel = io_cancel_new()}};
    CHECK(c.o.cancel != NULL);
    pthread_t th;
    CHECK_EQ_I64(pthread_create(&th, NULL, open_on_thread, &c), 0);
    usleep(300 * 1000); /* (the request sent and waiting; a cancel before it fails it too) */
    io_cancel_request(c.o.cancel);
    pthread_join(th, NULL);
    CHECK_EQ_I64(c.rc, -ECANCELED);
    CHECK(strstr(c.err, url) != NULL && strstr(c.err, "cancelled by the host") != NULL);
    c.rc = 0, c.err[0] = 0;
    open_on_thread(&c); /* requested already */
    CHECK_EQ_I64(c.rc, -ECANCELED);
    list_key_count = 0;
    io_open_opts lo = {.s3_endpoint = ep, .cancel = c.o.cancel};
    char err[512] = "";
    CHECK_EQ_I64(io_s3_list("s3://bkt/p/", &lo, 100, count_key, NULL, err, sizeof err), -ECANCELED);
    CHECK(strstr(err, "cancelled by the host") != NULL && list_key_count == 0);
    io_cancel_unref(c.o.cancel);
    close(fd);
    unsetenv("RINGSCAN_HTTP_TIMEOUT_MS");
}

int main(void)
{
    RUN(s3_urls);
    RUN(http_urls);
    RUN(content_ranges);
    RUN(s3_codes);
    RUN(redaction);
    RUN(patterns);
    RUN(backoff);
    RUN(tail_take);
    RUN(refused);
    RUN(s3_creds_one_set);
    RUN(host_cancel);
    return CHECK_DONE("test_http");
}
