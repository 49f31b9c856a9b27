/* io/store.h: where a file's bytes come from. A store is a backend behind io_file_t: a local
 * file (reads on the core's ring), the simulated object store over a local file (store_sim.c:
 * connection slots, time to first byte and bandwidth on the executor's timers), or HTTP(S)
 * and S3 (store_http.c: libcurl's multi-socket API on the core's ring).
 *
 * Owns: the backend interface, the open options (store spec, S3 credentials), the cost model
 * every backend has (a request costs ttfb + bytes / bandwidth) and the coalescing limits it
 * implies (io_cost_gap / io_cost_max: Arrow C++'s CacheOptions::MakeFromNetworkMetrics).
 * Calls between io/ files: io_range.c and io_ctx.c call a backend through io_file_t's vtable;
 * io_file.c opens by URL scheme; store_*.c call only runtime/ and common/ (never io_*.c).
 * Invariants:
 *  1. A backend read completes exactly once through exec (exec_complete or an exec op's own
 *     completion) with op->res = bytes delivered (all of len, or an error: a backend never
 *     returns a short count silently) or a negative errno, and on error it has written a
 *     message naming the URL, the byte range and the cause into the why buffer it was given.
 *  2. Per-core backend state (core_new) belongs to one io_ctx on one core; it is freed
 *     (core_free) only when none of its reads is in flight.
 *  3. A message a backend writes never holds a credential (secret key or session token). */
#ifndef RINGSCAN_IO_STORE_H
#define RINGSCAN_IO_STORE_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/exec.h"

enum {
    IO_WHY_MAX = 384,   /* a backend's failure message */
    IO_BACKENDS_MAX = 4 /* local, sim, http: ids of io_backend */
};

/* A host's cancel of the requests to remote stores made for what was opened with it
 * (io_open_opts.cancel; ringscan_cancel): once requested, a request in flight is aborted at
 * libcurl's next progress call (at least one a second, so a stalled server's too) and fails
 * with -ECANCELED, as does every later one, without a retry. Counted references: every remote
 * object opened with it holds one (io_cancel.c). */
typedef struct io_cancel {
    atomic_bool requested;
    atomic_int refs;
} io_cancel;

/* A new cancel, one reference held (NULL on ENOMEM). */
io_cancel *io_cancel_new(void);
/* Another reference to c (NULL: none). */
io_cancel *io_cancel_ref(io_cancel *c);
/* Drops a reference; the last frees c. NULL: no-op. */
void io_cancel_unref(io_cancel *c);
/* Requests the cancel (any thread). */
void io_cancel_request(io_cancel *c);
/* Whether it was requested (false for NULL). */
bool io_cancel_requested(const io_cancel *c);

/* How a file is opened. Every pointer may be NULL: the S3 fields then come from the standard
 * environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION or
 * AWS_DEFAULT_REGION, AWS_ENDPOINT_URL), as ringscan_options' S3 fields say (ringscan.h):
 * s3_key_id given, the key, secret and token are all the options' (a key without a secret
 * is refused), else all the environment's (s3_secret and s3_token are then unused); region
 * and endpoint each the option's, else the environment's. */
typedef struct io_open_opts {
    const char *store;   /* "sim:ttfb=50ms,bw=500MB/s,conns=64,seed=1" over a local file */
    const char *s3_key_id, *s3_secret, *s3_token, *s3_region, *s3_endpoint;
    bool tls_insecure;   /* no TLS peer/host verification (warns once on stderr) */
    bool etag_unchecked; /* answers' ETags are not compared with the open's (the size still is) */
    int read_mode;       /* io_read_mode: how a local file's bytes reach a request */
    struct io_store_sum *sum; /* NULL, or where every file opened with these options adds its
                                 store counters too, as they happen (a dataset's, over its
                                 files: io.h io_file_count) */
    io_cancel *cancel;   /* NULL, or the host's cancel of every remote request for the files
                            opened with these options (and listings) */
} io_open_opts;

/* How a local file (without a store) is read; results are identical under every mode. */
typedef enum io_read_mode {
    IO_READ_COPY = 0, /* buffered reads on the ring into range buffers (the page cache copies) */
    IO_READ_MMAP      /* the file mapped, a request a view into the mapping (io_map.c) */
} io_read_mode;

/* A backend's cost model: a request costs ttfb_ns + bytes / bytes_per_s. Seeded per backend
 * at open; refined (EWMA) from measured requests with relaxed atomics, so any core may read a
 * slightly stale model (it only shapes coalescing and read-ahead, never results). */
typedef struct io_cost {
    _Atomic uint64_t ttfb_ns;
    _Atomic uint64_t bytes_per_s;
    _Atomic uint64_t samples;     /* requests folded in (each moves ttfb_ns) */
    _Atomic uint64_t bw_samples;  /* of them, those long enough to move bytes_per_s */
    uint64_t seed_bytes_per_s; /* one connection's bandwidth as seeded: caps a request (io_cost_max) */
    uint64_t ttfb_spread_ns;   /* how much later than one request's the slowest first byte of a
                                  few parallel ones comes (0: a fixed time; io_cost_parts) */
    uint32_t conns;            /* connections a file's reads share (coalescing: io_flush.c inv. 1) */
} io_cost;

struct io_file;
struct iovec;
typedef struct io_backend {
    const char *name; /* "file", "sim", "http", "s3" */
    int id;           /* 0..IO_BACKENDS_MAX-1: the slot of its per-core state in an io_ctx */
    bool remote;      /* coalescing and read-ahead follow the cost model */
    /* Per-core state for one io_ctx on core e (NULL *out is allowed: none needed). */
    int (*core_new)(void **out, exec_t *e);
    void (*core_free)(void *core);
    /* Starts reading [off, off + len) of f into buf (invariant 1). Returns 0, or a negative
     * errno with op not started (why filled). */
    int (*read)(void *core, exec_t *e, struct io_file *f, exec_op_t *op, void *buf, uint64_t len,
                uint64_t off, char *why, size_t whylen);
    /* NULL, or as read, one read call of [off, off + the iovecs' total) landing in iov[0..n)
     * in order (n <= IO_IOV_MAX; iov stays valid until the read completes). A backend with it
     * lets a merged range land its holes in a reused scratch buffer (io_range.c). */
    int (*readv)(void *core, exec_t *e, struct io_file *f, exec_op_t *op,
                 const struct iovec *iov, int n, uint64_t off, char *why, size_t whylen);
    /* Asks to cancel a started read: its completion still comes, with -ECANCELED or the real
     * result. Returns 0 if a cancel was issued, -ENOENT if op is not in flight. */
    int (*cancel)(void *core, exec_t *e, exec_op_t *op);
    /* NULL (a local file: opened whole by io_file_open), or starts the open request of f (made
     * without one: io_http_file) on core e: op completes (invariant 1) with 0 once
     * f->size_bytes is set, or a negative errno with why filled. Returns 0, or a negative errno
     * with op not started (why filled). */
    int (*open)(void *core, exec_t *e, struct io_file *f, exec_op_t *op, char *why,
                size_t whylen);
    /* Reads exactly len bytes at off on the calling thread (metadata; blocking allowed), as
     * parts (>= 1) parallel requests of about len / parts bytes each when the backend can
     * (io_cost_parts; a backend that cannot sends one). */
    int (*read_sync)(struct io_file *f, uint64_t off, void *buf, size_t len, uint32_t parts,
                     char *err, size_t errlen);
    void (*close)(struct io_file *f); /* frees be_file */
} io_backend;

/* The cost model's coalescing limits for f: merge over a hole below ttfb x bandwidth (the
 * EWMA's), clamped to [4 KiB, 32 MiB]; cap a merged request at ttfb x the seeded bandwidth of
 * one connection (one round trip of transfer; Arrow's gap x u / (1 - u), u = 0.9, is never
 * below it with the seed: io_file.c), in [4 KiB, 16 MiB] (Vortex's object-storage cap; at
 * issue 20's 64 MiB a few huge requests serialize on their connections while the others
 * idle: bench/RESULTS.md, twelfth session). The measured bandwidth never moves the cap. */
uint64_t io_cost_gap(const io_cost *c);
uint64_t io_cost_max(const io_cost *c);
/* Into how many parallel requests (1..IO_SPLIT_PARTS_MAX) a read of len bytes is split while
 * busy of c's connections are taken: parts of at least IO_SPLIT_PART_MIN bytes, one per idle
 * connection, and only when the transfer the split saves on one connection (len / bandwidth
 * less a part's) exceeds c's ttfb_spread_ns (each part waits for its own first byte, the read
 * for the slowest). */
enum { IO_SPLIT_PART_MIN = 128 << 10, IO_SPLIT_PARTS_MAX = 8 };
uint32_t io_cost_parts(const io_cost *c, uint64_t len, uint64_t busy);
/* Seeds c: ttfb_ns and one connection's bytes_per_s, for reads that share conns (>= 1)
 * connections; ttfb_spread_ns 0 (a backend whose first bytes vary sets it after). */
void io_cost_seed(io_cost *c, uint64_t ttfb_ns, uint64_t bytes_per_s, uint32_t conns);
/* Folds one measured request (time to first byte, bytes and transfer time after it) into c
 * (EWMA, weight 1/8: x += (v - x) / 8, rounded toward x; the bandwidth only from a transfer of
 * 1 ms or more, counted in bw_samples). Thread-safe, but a load and a store, not one atomic
 * step: two cores folding at the same moment may lose one fold (the model is a hint for
 * coalescing, never a result); tests/cli/store_model.sh checks the values on one core. */
void io_cost_observe(io_cost *c, uint64_t ttfb_ns, uint64_t bytes, uint64_t transfer_ns);

/* The backends: local file (io_file.c), simulated store (store_sim.c), HTTP/S3
 * (store_http.c). */
extern const io_backend io_backend_file, io_backend_sim, io_backend_http, io_backend_s3;

/* store_sim.c: parses spec ("sim:k=v,..." keys ttfb, bw, conn_bw, conns, seed, quantiles)
 * and wraps the open local file f (fd, size set) as a simulated store. Returns 0 or -EINVAL
 * with a message naming the bad key or value. */
int io_sim_wrap(struct io_file *f, const char *spec, char *err, size_t errlen);
/* A simulated store's time to first byte (the fixed one, or the table's median) and the
 * bandwidth its connections reach together (min(bw, conns x conn_bw)). False when f is not
 * on a simulated store. */
bool io_sim_model(const struct io_file *f, uint64_t *ttfb_ns, uint64_t *bytes_per_s);
/* The time a simulated store f takes to serve the n ranges [off[i], off[i] + len[i]) (in file
 * order, disjoint), requested at time 0 on connections and a pipe idle until then, as the
 * store schedules requests (each on the connection that frees first: its first byte, then
 * its transfer on it and through the pipe): touching ranges go as one request while it stays
 * within the store's request cap (io_cost_max of its seeded model: ttfb x a connection's
 * bandwidth, 5 MB on sim:ttfb=50ms), as io/ merges them; a hole is never read. *ns from the
 * first request to the last byte (0 for n = 0), *requests how many were made. The bench's
 * bound of a plan's ranges. 0, -EINVAL (f not on a simulated store: both 0) or -ENOMEM.
 * Touches nothing of f's store. */
int io_sim_bound_ns(const struct io_file *f, const uint64_t *off, const uint64_t *len,
                    size_t n, uint64_t *ns, size_t *requests);

/* store_http.c: the object of url (http://, https:// or s3://bucket/key) with its request
 * settings, before any request: its size is not known until its open request (the suffix
 * GET, which keeps the object's last bytes for the footer) is made by io_http_open_sync on
 * the calling thread, or by the backend's open on a core. Returns 0 and *out (io_file_close),
 * or a negative errno with a message naming the URL (never a credential). */
int io_http_file(struct io_file **out, const char *url, const io_open_opts *o, char *err,
                 size_t errlen);
/* The open request of f (io_http_file) on the calling thread, blocking: its size from the
 * suffix GET's Content-Range. 0, or a negative errno / RINGSCAN_E* with a message naming the
 * URL and the HTTP status. */
int io_http_open_sync(struct io_file *f, char *err, size_t errlen);

/* True when path names a remote object (a scheme this build reads over the network). */
bool io_is_url(const char *path);
/* True when URL path is a pattern (a listing): '*', '?' or '[' in an s3:// URL; '*' or '[' in
 * an http(s) URL's path (not its authority: "[::1]" is an IPv6 host), whose '?' starts its
 * query (a presigned URL's signature). */
bool io_url_has_pattern(const char *path);
/* path as it may be shown (a message, --explain, meta's "file:"): a URL without the userinfo
 * ("user:password@") of its authority, anything else as it is. Truncated to cap. */
void io_path_shown(char *out, size_t cap, const char *path);
/* The length of the "PATH: " msg starts with when it names path already (path as shown by
 * io_path_shown: io/'s open and read errors start so), else 0. The one rule every layer that
 * names a file in a message follows (scan/pqfile.c, scan/api.c, the dataset's file errors),
 * so a path is named once however many layers pass the message up. */
size_t io_msg_named(const char *msg, const char *path);

#endif
