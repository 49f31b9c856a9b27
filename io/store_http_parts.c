/* io/store_http_parts.c: a blocking read of an HTTP(S)/S3 object as parallel ranged GETs, for
 * the metadata path (io_read_sync with parts > 1, io_cost_parts): a footer longer than the
 * open's suffix GET brought, whose length that GET's last 8 bytes gave, is fetched over
 * several connections at once rather than in one GET on one (at 100 MB/s a connection, 3 MB
 * is 30 ms on one and ~4 ms over 8, beside a 30-50 ms round trip either way).
 *
 * Each part is its own easy handle on one multi handle made for the read, so its own
 * connection (the object's sync handle keeps its own), run on the calling thread to the
 * end: the caller waits, as for one GET. A part judged retryable (http_xfer_judge: the same
 * causes and bounds as one GET's) is sent again after its backoff; the first part that fails
 * for good fails the read, naming its own range, and the others are stopped.
 *
 * Invariants:
 *  1. Part i is [off + len x i / n, off + len x (i + 1) / n): the parts cover the range once,
 *     each lands in its own slice of buf, none is empty (len >= n).
 *  2. The read returns 0 only when every part was judged HTTP_OK (exactly its bytes).
 *  3. A part's handle is in the multi handle exactly while its request runs (added, then
 *     removed when it is done); one waiting for its retry is not in it. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/store_http.h"

typedef struct http_part {
    CURL *h;
    http_xfer x;
    uint64_t due_ns; /* a retry waiting for its backoff: when it goes (0: none) */
    bool done;
} http_part;

/* Sends part p's request (again). */
static void part_go(CURLM *m, http_part *p)
{
    curl_easy_reset(p->h);
    http_xfer_prepare(p->h, &p->x);
    p->due_ns = 0;
    curl_multi_add_handle(m, p->h);
}

/* Judges the requests that ended (invariant 3): *left counts the parts not yet done. Returns
 * 0, or the first failure's status with why written. */
static int parts_reap(CURLM *m, http_part *p, uint32_t n, uint32_t *left, char *why,
                      size_t whylen)
{
    CURLMsg *msg;
    int queued;
    while ((msg = curl_multi_info_read(m, &queued))) {
        if (msg->msg != CURLMSG_DONE) continue;
        uint32_t i = 0;
        while (i < n && p[i].h != msg->easy_handle) i++;
        assert(i < n && !p[i].done);
        CURLcode cc = msg->data.result;
        curl_multi_remove_handle(m, p[i].h);
        http_verdict v = http_xfer_judge(p[i].h, &p[i].x, cc, why, whylen);
        if (v == HTTP_FAIL) return p[i].x.err;
        if (v == HTTP_OK) {
            p[i].done = true;
            (*left)--;
            continue;
        }
        p[i].due_ns = exec_now_ns() + http_backoff_ns(p[i].x.tries, (uint64_t)rand());
        p[i].x.tries++;
    }
    return 0;
}

/* Sends the retries whose backoff ended; returns the ms until the next one (at most 1000). */
static int parts_due(CURLM *m, http_part *p, uint32_t n)
{
    uint64_t now = exec_now_ns(), next = now + 1000000000u;
    for (uint32_t i = 0; i < n; i++) {
        if (p[i].done || p[i].due_ns == 0) continue;
        if (p[i].due_ns <= now) part_go(m, &p[i]);
        else if (p[i].due_ns < next) next = p[i].due_ns;
    }
    return (int)((next - now + 999999) / 1000000);
}

int http_read_parts(const http_obj *o, io_file_t *f, uint64_t off, uint8_t *buf, uint64_t len,
                    uint32_t n, char *why, size_t whylen)
{
    assert(n >= 2 && n <= IO_SPLIT_PARTS_MAX && len >= n);
    http_part p[IO_SPLIT_PARTS_MAX];
    memset(p, 0, sizeof p);
    CURLM *m = curl_multi_init();
    int rc = m ? 0 : -ENOMEM;
    uint64_t t0 = exec_now_ns();
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        uint64_t lo = len * i / n, hi = len * (i + 1) / n; /* invariant 1 */
        p[i].x = (http_xfer){.o = o, .f = f, .buf = buf + lo, .off = off + lo, .len = hi - lo,
                             .tries = 1, .t0_ns = t0};
        if (!(p[i].h = curl_easy_init())) rc = -ENOMEM;
        else part_go(m, &p[i]);
    }
    if (rc == -ENOMEM) snprintf(why, whylen, "out of memory for %u parallel GETs", n);
    uint32_t left = n;
    while (rc == 0 && left > 0) {
        int running = 0;
        CURLMcode mc = curl_multi_perform(m, &running);
        rc = mc == CURLM_OK ? parts_reap(m, p, n, &left, why, whylen) : -EIO;
        if (mc != CURLM_OK) snprintf(why, whylen, "curl: %s", curl_multi_strerror(mc));
        if (rc == 0 && left > 0) curl_multi_poll(m, NULL, 0, parts_due(m, p, n), NULL);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!p[i].h) continue;
        curl_multi_remove_handle(m, p[i].h); /* a no-op for one not in it */
        curl_easy_cleanup(p[i].h);
    }
    if (m) curl_multi_cleanup(m);
    return rc;
}
