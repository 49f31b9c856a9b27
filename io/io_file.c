/* io/io_file.c: opening files and objects (by URL scheme, through a store), the local-file
 * backend (reads on the core's ring) and its synchronous pread loop used for metadata, and
 * the cost model's arithmetic (io/store.h).
 *
 * Owns: io_file_t (fd, size, name, backend, kept bytes). An io_file_t never changes after
 * its open (io_file_open_with, then io_file_keep by its opener; but for its cost estimates),
 * so any number of cores may read it at once.
 * Invariants:
 *  1. io_read_sync returns 0 only when exactly len bytes were copied.
 *  2. Every loop is bounded by the bytes left (each pass either advances or ends).
 *  3. A local file's cost model keeps today's measured coalescing (io_opts gap and max): it
 *     is not remote, so io_cost_max is never asked for it, and io_cost_gap only to cap the
 *     dense gap (io_flush.c io_dense_gap: 100 us x 2 GB/s = 200 KB). */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "common/fail.h"

/* Seeds: a local NVMe-class read (only its gap is used, invariant 3) and object storage
 * (30 ms to first byte, 100 MB/s per connection: io/store.h, issue 20). */
#define IO_COST_LOCAL_TTFB_NS (UINT64_C(100) * 1000)
#define IO_COST_LOCAL_BPS (UINT64_C(2000) * 1000 * 1000)
#define IO_COST_GAP_MIN (UINT64_C(4) << 10)
#define IO_COST_GAP_MAX (UINT64_C(32) << 20)
#define IO_COST_REQ_MAX (UINT64_C(16) << 20)

void io_cost_seed(io_cost *c, uint64_t ttfb_ns, uint64_t bytes_per_s, uint32_t conns)
{
    assert(conns >= 1);
    atomic_store_explicit(&c->ttfb_ns, ttfb_ns, memory_order_relaxed);
    atomic_store_explicit(&c->bytes_per_s, bytes_per_s ? bytes_per_s : 1, memory_order_relaxed);
    atomic_store_explicit(&c->samples, 0, memory_order_relaxed);
    atomic_store_explicit(&c->bw_samples, 0, memory_order_relaxed);
    c->seed_bytes_per_s = bytes_per_s ? bytes_per_s : 1;
    c->ttfb_spread_ns = 0;
    c->conns = conns;
}

/* A part below IO_SPLIT_PART_MIN transfers in 1.3 ms at 100 MB/s, under 3% of an object
 * store's round trip: another request would buy less than a millisecond. A read of a MiB
 * alone on sim:ttfb=50ms (the footer's tail) takes 50 + 10.5 ms on one connection and
 * 50 + 2.1 ms (the store's 500 MB/s) in 8 parts. */
uint32_t io_cost_parts(const io_cost *c, uint64_t len, uint64_t busy)
{
    if (len < 2 * (uint64_t)IO_SPLIT_PART_MIN || busy + 2 > c->conns) return 1;
    uint64_t k = len / IO_SPLIT_PART_MIN, idle = c->conns - busy;
    if (k > idle) k = idle;
    if (k > IO_SPLIT_PARTS_MAX) k = IO_SPLIT_PARTS_MAX;
    unsigned __int128 saved = (unsigned __int128)(len - len / k) * 1000000000u /
                              c->seed_bytes_per_s;
    return saved > c->ttfb_spread_ns ? (uint32_t)k : 1;
}

uint64_t io_cost_gap(const io_cost *c)
{
    uint64_t t = atomic_load_explicit(&c->ttfb_ns, memory_order_relaxed);
    uint64_t bw = atomic_load_explicit(&c->bytes_per_s, memory_order_relaxed);
    /* t * bw / 1e9 without overflow: t < 2^40 ns (18 min) and bw < 2^40 B/s are far beyond any
     * real store; clamp both first */
    if (t > (UINT64_C(1) << 40)) t = UINT64_C(1) << 40;
    if (bw > (UINT64_C(1) << 40)) bw = UINT64_C(1) << 40;
    unsigned __int128 g = (unsigned __int128)t * bw / 1000000000u;
    if (g < IO_COST_GAP_MIN) return IO_COST_GAP_MIN;
    if (g > IO_COST_GAP_MAX) return IO_COST_GAP_MAX;
    return (uint64_t)g;
}

/* Arrow's cap (gap x u / (1 - u), u = 0.9) assumes requests run one after another. Requests in
 * flight here run on parallel connections, each at most the connection's bandwidth: a request
 * that transfers for longer than a round trip finishes later than its halves would on two
 * connections, while the round trip the merge saves is paid in parallel. So a request is also
 * capped at ttfb x the connection's seeded bandwidth (50 ms x 100 MB/s = 5 MB on sim): at sf=1
 * lineitem_wide read 16 MiB runs of 3.5 row groups, each 170 ms on one connection. Both terms
 * take the seeded bandwidth, not the EWMA's: a measured transfer slowed by a store's shared
 * bandwidth (a queue behind the read-ahead's requests) would shrink the cap (and fragment
 * adjacent columns) exactly when splitting cannot help, and only while the queue is deep, so
 * a scan's requests would depend on its timing (sf=10 lineitem_wide lazy: 9 x the EWMA's gap
 * fell to 3.76 MB under the 256 MiB budget, never with --fetch-budget 0). With the seed, 9 x
 * gap is never below the round trip's transfer (gap's 32 MiB clamp is above the 16 MiB cap),
 * so the cap is that transfer, clamped to [4 KiB, 16 MiB]; only the first byte's EWMA moves it. */
uint64_t io_cost_max(const io_cost *c)
{
    uint64_t t = atomic_load_explicit(&c->ttfb_ns, memory_order_relaxed);
    uint64_t bw = c->seed_bytes_per_s;
    if (t > (UINT64_C(1) << 40)) t = UINT64_C(1) << 40; /* as io_cost_gap: no overflow */
    if (bw > (UINT64_C(1) << 40)) bw = UINT64_C(1) << 40;
    unsigned __int128 trip = (unsigned __int128)t * bw / 1000000000u;
    if (trip < IO_COST_GAP_MIN) return IO_COST_GAP_MIN;
    return trip > IO_COST_REQ_MAX ? IO_COST_REQ_MAX : (uint64_t)trip;
}

/* x + (v - x) / 8 without underflow. */
static uint64_t ewma8(uint64_t x, uint64_t v)
{
    return v >= x ? x + (v - x) / 8 : x - (x - v) / 8;
}

void io_cost_observe(io_cost *c, uint64_t ttfb_ns, uint64_t bytes, uint64_t transfer_ns)
{
    uint64_t t = atomic_load_explicit(&c->ttfb_ns, memory_order_relaxed);
    atomic_store_explicit(&c->ttfb_ns, ewma8(t, ttfb_ns), memory_order_relaxed);
    /* bandwidth only from transfers long enough to measure (1 ms): a small read's time is
     * mostly its first byte */
    if (transfer_ns >= 1000000 && bytes > 0) {
        unsigned __int128 bps = (unsigned __int128)bytes * 1000000000u / transfer_ns;
        uint64_t v = bps > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)bps;
        uint64_t b = atomic_load_explicit(&c->bytes_per_s, memory_order_relaxed);
        uint64_t nb = ewma8(b, v);
        atomic_store_explicit(&c->bytes_per_s, nb ? nb : 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->bw_samples, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&c->samples, 1, memory_order_relaxed);
}

static int file_read_sync(io_file_t *f, uint64_t off, void *buf, size_t len, uint32_t parts,
                          char *err, size_t errlen);

static int file_read(void *core, exec_t *e, io_file_t *f, exec_op_t *op, void *buf,
                     uint64_t len, uint64_t off, char *why, size_t whylen)
{
    (void)core;
    assert(len <= EXEC_READ_BYTES_MAX);
    bool view = f->map && (const uint8_t *)buf == f->map + off; /* io_range.c invariant 7 */
    int rc = view ? exec_populate(e, op, buf, (uint32_t)len)
                  : exec_read(e, op, f->fd, buf, (uint32_t)len, off);
    if (rc) snprintf(why, whylen, "%s", strerror(-rc));
    return rc;
}

static int file_readv(void *core, exec_t *e, io_file_t *f, exec_op_t *op,
                      const struct iovec *iov, int n, uint64_t off, char *why, size_t whylen)
{
    (void)core;
    int rc = exec_readv(e, op, f->fd, iov, n, off);
    if (rc) snprintf(why, whylen, "%s", strerror(-rc));
    return rc;
}

static int file_cancel(void *core, exec_t *e, exec_op_t *op)
{
    (void)core;
    return exec_cancel(e, op);
}

static void file_close(io_file_t *f)
{
    (void)f;
}

const io_backend io_backend_file = {
    .name = "file",
    .id = 0,
    .remote = false,
    .read = file_read,
    .readv = file_readv,
    .cancel = file_cancel,
    .read_sync = file_read_sync,
    .close = file_close,
};

bool io_is_url(const char *path)
{
    return strncmp(path, "http://", 7) == 0 || strncmp(path, "https://", 8) == 0 ||
           strncmp(path, "s3://", 5) == 0;
}

bool io_url_has_pattern(const char *path)
{
    if (strncmp(path, "s3://", 5) == 0) return strpbrk(path, "*?[") != NULL;
    const char *auth = strstr(path, "://");
    assert(auth);
    auth += 3;
    const char *p = auth + strcspn(auth, "/?#"); /* the path: an IPv6 host's '[' is none */
    return strcspn(p, "*[") < strcspn(p, "?#");
}

void io_path_shown(char *out, size_t cap, const char *path)
{
    const char *host = io_is_url(path) ? strstr(path, "://") + 3 : NULL, *at = NULL;
    for (const char *p = host; p && *p && *p != '/' && *p != '?' && *p != '#'; p++)
        if (*p == '@') at = p;
    if (at) snprintf(out, cap, "%.*s%s", (int)(host - path), path, at + 1);
    else snprintf(out, cap, "%s", path);
}

size_t io_msg_named(const char *msg, const char *path)
{
    char shown[IO_NAME_MAX];
    io_path_shown(shown, sizeof shown, path);
    size_t n = strlen(shown);
    return n && strncmp(msg, shown, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ' ? n + 2 : 0;
}

int io_file_open(io_file_t **out, const char *path, char *err, size_t errlen)
{
    assert(out && path);
    size_t n = strnlen(path, IO_NAME_MAX);
    if (n == 0 || n >= IO_NAME_MAX) {
        if (err) snprintf(err, errlen, "invalid path (empty or over %d bytes)", IO_NAME_MAX);
        return -EINVAL;
    }
    /* O_NONBLOCK: opening a FIFO without a writer (or a device) must not block; it has no
     * effect on a regular file, the only kind kept. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int rc = -errno;
        if (err) snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
        return rc;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int rc = -errno;
        if (err) snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(-rc));
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        if (err) snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -EINVAL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int rc = -errno;
        if (err) snprintf(err, errlen, "%s: cannot clear O_NONBLOCK: %s", path, strerror(-rc));
        close(fd);
        return rc;
    }
    io_file_t *f = fail_malloc(sizeof *f + n + 1);
    if (!f) {
        close(fd);
        if (err) snprintf(err, errlen, "%s: out of memory", path);
        return -ENOMEM;
    }
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->size_bytes = (uint64_t)st.st_size;
    f->be = &io_backend_file;
    io_cost_seed(&f->cost, IO_COST_LOCAL_TTFB_NS, IO_COST_LOCAL_BPS, 1);
    memcpy(f->name, path, n + 1);
    *out = f;
    return 0;
}

int io_file_begin(io_file_t **out, const char *path, const io_open_opts *o, char *err,
                  size_t errlen)
{
    assert(out && path);
    io_open_opts none = {0};
    if (!o) o = &none;
    if (io_is_url(path)) {
        char shown[512];
        io_path_shown(shown, sizeof shown, path);
        if (o->store && *o->store) {
            if (err) snprintf(err, errlen, "%s: a store (%s) wraps a local file, not a URL", shown,
                              o->store);
            return -EINVAL;
        }
        int rc = io_http_file(out, path, o, err, errlen);
        if (rc == 0) (*out)->sum = o->sum; /* before its open's request */
        return rc;
    }
    int rc = io_file_open(out, path, err, errlen);
    if (rc == 0) (*out)->sum = o->sum;
    if (rc == 0 && (!o->store || !*o->store) && o->read_mode == IO_READ_MMAP) io_map_file(*out);
    if (rc || !o->store || !*o->store) return rc;
    rc = io_sim_wrap(*out, o->store, err, errlen);
    if (rc) {
        io_file_close(*out);
        *out = NULL;
    }
    return rc;
}

int io_file_open_with(io_file_t **out, const char *path, const io_open_opts *o, char *err,
                      size_t errlen)
{
    int rc = io_file_begin(out, path, o, err, errlen);
    if (rc || !(*out)->be->open) return rc;
    rc = io_http_open_sync(*out, err, errlen); /* the one backend with an open request */
    if (rc) {
        io_file_close(*out);
        *out = NULL;
    }
    return rc;
}

void io_file_keep(io_file_t *f, uint8_t *buf, uint64_t off, size_t len)
{
    assert(f && buf && len > 0 && !f->kept);
    assert(off <= f->size_bytes && len <= f->size_bytes - off);
    f->kept = buf;
    f->kept_off = off;
    f->kept_len = len;
}

void io_file_unkeep(io_file_t *f)
{
    free((void *)f->kept);
    f->kept = NULL;
    f->kept_off = 0;
    f->kept_len = 0;
}

static void add(_Atomic uint64_t *a, _Atomic uint64_t *b, uint64_t n)
{
    atomic_fetch_add_explicit(a, n, memory_order_relaxed);
    if (b) atomic_fetch_add_explicit(b, n, memory_order_relaxed);
}

void io_file_count(io_file_t *f, uint64_t bytes)
{
    add(&f->requests, f->sum ? &f->sum->requests : NULL, 1);
    add(&f->bytes, f->sum ? &f->sum->bytes : NULL, bytes);
}

void io_file_count_copy(io_file_t *f, uint64_t bytes)
{
    add(&f->body_copies, f->sum ? &f->sum->body_copies : NULL, 1);
    add(&f->body_bytes_copied, f->sum ? &f->sum->body_bytes_copied : NULL, bytes);
}

void io_store_sum_init(io_store_sum *sum)
{
    *sum = (io_store_sum){0};
    pthread_mutex_init(&sum->mu, NULL);
}

void io_store_sum_free(io_store_sum *sum)
{
    pthread_mutex_destroy(&sum->mu);
}

static uint64_t get(const _Atomic uint64_t *a)
{
    return atomic_load_explicit(a, memory_order_relaxed);
}

void io_store_counts_model(io_store_counts *out, const io_file_t *f)
{
    if (!f || !f->be->remote) return;
    uint64_t n = get(&f->cost.samples);
    if (n < out->model_samples && out->model_ttfb_ns) return;
    out->model_ttfb_ns = get(&f->cost.ttfb_ns), out->model_bytes_per_s = get(&f->cost.bytes_per_s);
    out->model_samples = n, out->model_bw_samples = get(&f->cost.bw_samples);
}

void io_file_counts(const io_file_t *f, io_store_counts *out)
{
    *out = (io_store_counts){0};
    if (!f || !f->be->remote) return; /* a local file's are 0 */
    *out = (io_store_counts){.requests = get(&f->requests), .bytes = get(&f->bytes),
                             .body_copies = get(&f->body_copies),
                             .body_bytes_copied = get(&f->body_bytes_copied)};
    io_store_counts_model(out, f);
}

void io_store_sum_counts(io_store_sum *sum, io_store_counts *out)
{
    pthread_mutex_lock(&sum->mu);
    *out = (io_store_counts){.requests = get(&sum->requests), .bytes = get(&sum->bytes),
                             .body_copies = get(&sum->body_copies),
                             .body_bytes_copied = get(&sum->body_bytes_copied),
                             .model_ttfb_ns = sum->model.model_ttfb_ns,
                             .model_bytes_per_s = sum->model.model_bytes_per_s,
                             .model_samples = sum->model.model_samples,
                             .model_bw_samples = sum->model.model_bw_samples};
    pthread_mutex_unlock(&sum->mu);
}

/* f's cost model kept in its sum when it folded in more requests than the one kept. */
static void keep_model(io_file_t *f)
{
    pthread_mutex_lock(&f->sum->mu);
    io_store_counts_model(&f->sum->model, f);
    pthread_mutex_unlock(&f->sum->mu);
}

void io_file_close(io_file_t *f)
{
    if (!f) return;
    if (f->sum && f->be->remote) keep_model(f);
    free((void *)f->kept);
    io_map_unmap(f);
    f->be->close(f);
    if (f->fd >= 0) close(f->fd);
    free(f);
}

int io_read_sync(io_file_t *f, uint64_t off, void *buf, size_t len, char *err, size_t errlen)
{
    assert(f && (buf || len == 0));
    uint32_t parts = 1;
    if (f->be->remote)
        parts = io_cost_parts(&f->cost, len,
                              atomic_load_explicit(&f->ranges_in_flight, memory_order_relaxed));
    return f->be->read_sync(f, off, buf, len, parts, err, errlen);
}

static int file_read_sync(io_file_t *f, uint64_t off, void *buf, size_t len, uint32_t parts,
                          char *err, size_t errlen)
{
    assert(f && (buf || len == 0) && parts >= 1);
    (void)parts; /* one pread loop: a local file gains nothing from parallel requests */
    uint8_t *p = buf;
    size_t done = 0;
    int eintr = 0;
    while (done < len) {
        size_t chunk = len - done > EXEC_READ_BYTES_MAX ? EXEC_READ_BYTES_MAX : len - done;
        ssize_t r = pread(f->fd, p + done, chunk, (off_t)(off + done));
        if (r < 0 && (errno == EINTR || errno == EAGAIN) && ++eintr < 1000) continue;
        if (r < 0) {
            int rc = -errno;
            if (err)
                snprintf(err, errlen, "%s: read of bytes [%" PRIu64 ", %" PRIu64 ") failed: %s",
                         f->name, off, off + len, strerror(-rc));
            return rc;
        }
        if (r == 0) {
            if (err)
                snprintf(err, errlen,
                         "%s: unexpected end of file reading bytes [%" PRIu64 ", %" PRIu64
                         ") (file size %" PRIu64 ")",
                         f->name, off, off + len, f->size_bytes);
            return -EIO;
        }
        assert((size_t)r <= chunk);
        done += (size_t)r;
    }
    return 0;
}
