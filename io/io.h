/* io/io.h: read requests as futures, their lifecycle, coalescing, the fetch budget, fault
 * injection and counters, on top of a core's executor (runtime/exec.h).
 *
 * Lifecycle of a request (io_read): registered (no I/O) -> wanted (its future was wanted:
 * fut_want/fut_await/fut_on_ready) -> submitted (inside a merged range read at the next
 * flush) -> done (future resolved with an io_bytes) | failed | cancelled.
 * At flush (once per executor loop iteration) every wanted request is merged with its
 * registered or wanted neighbours of the same file whose gap is <= gap_bytes (or <=
 * dense_gap_bytes, at most the file's cost model gap, while at least half of the range stays
 * requested bytes), up to
 * max_bytes per range; a range is one read (continued on short reads, each call capped at
 * EXEC_READ_BYTES_MAX); the result is sliced to each member, slices reference-count the
 * range buffer. On a backend with vectored reads (a local file), a range's holes between
 * members land in a small reused scratch buffer rather than its buffer (io_range.c): the
 * same read calls of the same bytes, without writing the hole's bytes to fresh memory. Ranges wait (requests stay wanted) while bytes in flight plus buffered
 * would exceed budget_bytes, except that one range may always be in flight, and one more
 * goes after IO_BUDGET_STALL_NS with nothing in flight and no release (no deadlock when the
 * buffered bytes belong to consumers waiting for the held-back range).
 * Invariants:
 *  1. An io_ctx_t and every request, range and future it made belong to one core's thread.
 *  2. A range buffer is freed only after its own completion arrived and its last slice was
 *     released; dropping requests never frees memory the kernel may still write.
 *  3. Counters: bytes_read = bytes returned by the reads; once every future is released,
 *     bytes_read + bytes_kept = bytes_used + bytes_wasted for requests that do not overlap
 *     each other.
 *  4. Lazy requests (never wanted, never merged into a wanted range) are never read.
 *  5. A request inside the bytes its file kept from its open (io_file_keep) is never read: it
 *     resolves at once with a view into them (counted in reads_kept and bytes_kept once
 *     wanted), unless the context has a fault hook (a fault test's reads stay reads). The
 *     view lives while the future does, the kept bytes until io_file_close. */
#ifndef RINGSCAN_IO_IO_H
#define RINGSCAN_IO_IO_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/store.h"
#include "runtime/exec.h"
#include "runtime/future.h"

enum {
    IO_POOL_SLOTS = 8,                 /* range buffers kept per io_ctx for reuse */
    IO_POOL_MIN_BYTES = 256 * 1024,    /* smaller buffers: the allocator's own reuse */
    IO_NAME_MAX = 4096,
    IO_REQUESTS_MAX = 1 << 20 /* live requests per io_ctx */
};
#define IO_REQUEST_BYTES_MAX (UINT64_C(1) << 36) /* 64 GiB per request */
#define IO_POOL_BYTES ((size_t)64 << 20)            /* pooled range buffers per io_ctx, at most */
#define IO_STASH_BYTES ((size_t)128 << 20) /* range buffers kept process-wide between contexts:
                                             a scan's runs in flight (3-4 of SCAN_RUN_BYTES) */
enum { IO_STASH_SLOTS = 32 }; /* 4 cores' pools (IO_POOL_SLOTS each): with 8, one core's
                                  filled it and the second core's reads faulted fresh pages */

/* A snapshot of store counters and a cost model: a file's, or a sum's. */
typedef struct io_store_counts {
    uint64_t requests, bytes, body_copies, body_bytes_copied;
    uint64_t model_ttfb_ns, model_bytes_per_s, model_samples, model_bw_samples;
} io_store_counts;

/* A remote backend's counters over many files (a dataset's): each io_file_count adds to its
 * file's own and to its options' sum (relaxed atomics: read as a snapshot while scans run).
 * The cost model of the file that folded in the most requests when it closed is kept under
 * mu (the owner initialises it: io_store_sum_init). */
typedef struct io_store_sum {
    _Atomic uint64_t requests, bytes, body_copies, body_bytes_copied;
    pthread_mutex_t mu;
    io_store_counts model; /* its model_* fields only */
} io_store_sum;

/* An open read-only file or object, shared by every core (fields never change after open,
 * except the cost model's estimates: relaxed atomics, io/store.h). */
typedef struct io_file {
    int fd;                 /* the local file (also under a simulated store); -1 for HTTP */
    uint64_t size_bytes;
    const io_backend *be;   /* where the bytes come from (io/store.h) */
    void *be_file;          /* the backend's own per-file data */
    io_cost cost;           /* the backend's cost model, seeded at open */
    _Atomic uint64_t requests, bytes; /* a remote backend's requests (metadata ones too) and
                                         the bytes they returned; 0 for a local file */
    _Atomic uint64_t body_copies, body_bytes_copied; /* reads (and their bytes) a remote
                                         backend copied from a buffer of its own into the
                                         read's buffer, rather than its response landing
                                         there: HTTP's reads served from the open's GET */
    io_store_sum *sum;      /* NULL, or io_open_opts.sum: where the counters above add too */
    _Atomic uint64_t ranges_in_flight; /* remote: ranges every core has started and not yet
                                          completed (io_range.c; coalescing reads it) */
    const uint8_t *map;     /* IO_READ_MMAP: the whole file mapped (io_map.c), a cached range
                               a view into it; NULL: reads copy into range buffers */
    _Atomic uint64_t map_fault; /* 0, or 1 + the file offset of the first mapped page found
                                   past the file's end (it shrank: io_map.c invariant 2) */
    const uint8_t *kept;    /* NULL, or the file's bytes [kept_off, +kept_len) as read at its
                               open (io_file_keep; owned by f): io_read serves requests inside
                               them from them (invariant 5), one snapshot with the footer */
    uint64_t kept_off;
    size_t kept_len;
    char name[];            /* the path or URL as given (never with a credential in it) */
} io_file_t;

/* The value of a resolved io_read future; valid while the future is referenced. */
typedef struct io_bytes {
    const uint8_t *data;
    size_t len;
    size_t shared; /* leading bytes an earlier request of the same coalesced read also
                      delivered: counted once in bytes_used / bytes_wasted (by that one) */
} io_bytes;

/* Fault hook, called before every read call (also continuations) with the chunk about to be
 * read. Return len to read it all, a smaller positive count to read only that much (a short
 * read), 0 to complete it as end of file, or a negative errno to fail it. Runs on the core. */
typedef int64_t (*io_fault_fn)(void *ctx, const io_file_t *f, uint64_t off, uint64_t len);
/* Scheduling fault hook (io/io_fault.h), called once per range before its first read with the
 * whole range: returns nanoseconds to hold the read back (a timer; 0 = issue at once), and
 * sets *cancel to race an ASYNC_CANCEL against the read right after issuing it. A range whose
 * members all went away while held is completed as cancelled without a read. A cancellation
 * io/ did not ask for is retried like EINTR (bounded by IO_RETRIES_MAX). Runs on the core. */
typedef uint64_t (*io_fault_sched_fn)(void *ctx, const io_file_t *f, uint64_t off, uint64_t len,
                                      bool *cancel);

typedef struct io_counters {
    uint64_t reads_submitted;   /* read calls issued (SQEs or preads) */
    uint64_t ranges_submitted;  /* merged ranges (each one or more reads) */
    uint64_t bytes_read;        /* bytes the reads returned */
    uint64_t bytes_skipped;     /* of those, holes the reads put in a reused scratch buffer
                                   (never landed in a range buffer; counted in bytes_wasted) */
    uint64_t reads_kept;        /* wanted requests served from their file's kept bytes (no
                                   read; never-wanted ones count as dropped unsubmitted) */
    uint64_t bytes_kept;        /* their bytes (counted in bytes_used too) */
    uint64_t bytes_used;        /* bytes of requests resolved and wanted by a consumer */
    uint64_t bytes_wasted;      /* holes, dropped/cancelled members, resolved but never wanted */
    uint64_t cancelled;         /* requests dropped while their range was in flight */
    uint64_t cancels_issued;    /* ASYNC_CANCELs for ranges left without members */
    uint64_t requests_registered;
    uint64_t requests_dropped_unsubmitted;
    uint64_t requests_failed;
    uint64_t budget_waits;      /* flushes that left wanted requests waiting for the budget */
    uint64_t peak_inflight_bytes;
} io_counters_t;

typedef struct io_opts {
    bool coalesce;         /* merge neighbours (false: one read per request) */
    bool merge_registered; /* also merge registered, not yet wanted neighbours (speculative
                              bytes); false: a range holds only wanted requests */
    uint64_t gap_bytes;    /* largest hole merged over (default 128 KiB) */
    uint64_t dense_gap_bytes; /* largest hole merged over when at least half of the range stays
                                 requested bytes (io_flush.c io_extend), capped by the file's
                                 cost model gap (io_dense_gap); 0 = none (default) */
    uint64_t max_bytes;    /* largest merged range (default 4 MiB); a bigger request is read alone */
    uint64_t budget_bytes; /* bytes in flight + buffered before new ranges wait (default 1 GiB) */
    _Atomic uint64_t *held_total; /* NULL, or a counter shared by several contexts (a scan's
                                     cores): the capacity of the range buffers in flight +
                                     buffered (what is resident), kept up to date */
    _Atomic uint64_t *held_peak; /* NULL, or the most *held_total has reached (io_held_add) */
    bool pool_held;        /* idle range buffers (the pool) count in *held_total too, the pool
                              keeps at most pool_bytes of them, and none goes to the
                              process-wide stash (a budgeted scan: nothing it keeps resident
                              lies outside its budget; io_ctx.c invariant 4) */
    uint64_t pool_bytes;   /* with pool_held: the pool's bytes, at most (<= IO_POOL_BYTES) */
    io_fault_fn fault;     /* NULL: no fault injection */
    io_fault_sched_fn fault_sched; /* NULL: no delays or racing cancels */
    void *fault_ctx;       /* for both hooks */
    void (*on_freed)(void *ctx, const io_counters_t *final);
                           /* NULL, or called on the core once the context is freed (io_ctx_free,
                              then its last request and range gone) with its final counters (a
                              request dying after io_ctx_free still counts there): from then on
                              it touches nothing of its owner's (held_total, the files it read).
                              For an owner that ends while the cores run on (a scan on a shared
                              runtime), and one whose counts must be whole (a scan's --stats) */
    void *on_freed_ctx;
} io_opts_t;

/* Adds n to *held and raises *peak (NULL: none kept) to the new value when it is above it:
 * the high-water mark of a count several threads add to. Thread-safe. */
static inline void io_held_add(_Atomic uint64_t *held, _Atomic uint64_t *peak, uint64_t n)
{
    uint64_t now = atomic_fetch_add_explicit(held, n, memory_order_relaxed) + n;
    if (!peak) return;
    uint64_t was = atomic_load_explicit(peak, memory_order_relaxed);
    while (now > was && !atomic_compare_exchange_weak_explicit(peak, &was, now,
                                                                memory_order_relaxed,
                                                                memory_order_relaxed)) {
    }
}

typedef struct io_ctx io_ctx_t;

/* Defaults: coalesce (registered neighbours too), gap 128 KiB, max 4 MiB, budget 1 GiB, no
 * fault hook. */
io_opts_t io_opts_default(void);

/* Opens path read-only and reads its size. Returns 0 and *out (caller owns; io_file_close),
 * or a negative errno with a message naming the path in err (may be NULL). Thread-safe. */
int io_file_open(io_file_t **out, const char *path, char *err, size_t errlen);
/* As io_file_open, for a path or a URL (http://, https://, s3://), through o's store (a
 * simulated store over a local path) and credentials. o NULL = defaults. A URL names one
 * object, '*', '?' and '[' included (an S3 key may hold them: a dataset lists a pattern and
 * opens each key it found so). */
int io_file_open_with(io_file_t **out, const char *path, const io_open_opts *o, char *err,
                      size_t errlen);
/* Lists the objects of an S3 bucket whose keys start with prefix (ListObjectsV2, paginated
 * with continuation tokens, signed as io_file_open_with signs reads): calls fn(ctx, key) for
 * each key in the order S3 returns them (UTF-8 binary order), until fn returns non-zero (that
 * value is returned). bucket_url is "s3://bucket/prefix" (prefix may be empty). At most
 * max_keys keys (RINGSCAN_ELIMIT past it) and IO_LIST_PAGES_MAX pages. 0, or a negative
 * status with err naming the URL and the HTTP status with the S3 error code. Blocking. */
enum { IO_LIST_PAGES_MAX = 10000, IO_LIST_BODY_MAX = 16 << 20 };
int io_s3_list(const char *bucket_url, const io_open_opts *o, int64_t max_keys,
               int (*fn)(void *ctx, const char *key), void *ctx, char *err, size_t errlen);

/* As io_file_open_with, from a task on ctx's core: a local file (or a simulated store over
 * one) is opened at once (open and fstat: no request); a URL's open request (the suffix GET
 * that gives its size and keeps its last bytes for the footer) is sent through the core's
 * backend state in ctx and awaited (the task suspends, the core runs on), not made blocking.
 * Same results and messages as io_file_open_with. Only from a task on ctx's core. */
int io_file_open_await(io_ctx_t *ctx, io_file_t **out, const char *path, const io_open_opts *o,
                       char *err, size_t errlen);
/* io_map.c. Maps local file f (open, fd and size set) whole for IO_READ_MMAP: f->map, or
 * NULL when it cannot be (empty, mmap refused, IO_MAPS_MAX files mapped: reads copy then).
 * Installs the process's SIGBUS handler at the first call (chained to the one it replaces). */
void io_map_file(io_file_t *f);
/* True when the pages of [off, off + len) of mapped file f are in the page cache: the first
 * and last page and one in every 256 KiB between (mincore), so a range that was read or
 * evicted as a whole is told apart for a few system calls. False for a range past the size
 * f had when opened. */
bool io_map_resident(const io_file_t *f, uint64_t off, uint64_t len);
/* Unmaps f (no request on f pending or in flight). Nothing when f is not mapped. */
void io_map_unmap(io_file_t *f);
/* 0, or -EIO with a message naming f and the offset when a mapped page of f was found past
 * its end (the file shrank while mapped): bytes read from f since may be zeros. Call it on
 * the thread that used f's bytes, after using them (io_map.c invariant 2). Thread-safe. */
int io_file_faulted(const io_file_t *f, char *err, size_t errlen);

/* Gives f bytes [off, +len) of itself, read at its open (buf: from malloc, owned by f from now
 * on, freed by io_file_close): io_read serves a request inside them from them (invariant 5).
 * A small file's footer tail holds its column chunks, which the scan would read again. Only
 * before f is shared with any core (its fields never change after its open), at most once.
 * off + len is at most f's size. */
void io_file_keep(io_file_t *f, uint8_t *buf, uint64_t off, size_t len);

/* Frees f's kept bytes: every request of f is read from then on. For tests of the read path
 * (coalescing, read-ahead, lending) on files small enough to be kept. No request of f live. */
void io_file_unkeep(io_file_t *f);

/* Closes f (and frees its kept bytes). No request on f may be pending or in flight on any
 * core, and no resolved future of one referenced. f may be NULL. With f->sum, its cost model
 * is kept there when it folded in more requests than the one kept. */
void io_file_close(io_file_t *f);

/* A remote backend's request on f returned bytes: counted in f and in f->sum. Any thread. */
void io_file_count(io_file_t *f, uint64_t bytes);
/* A remote backend copied bytes of its own into a read's buffer (io.h body_copies): counted
 * in f and in f->sum. Any thread. */
void io_file_count_copy(io_file_t *f, uint64_t bytes);
/* sum's counters zeroed and its mutex made (io_store_sum_free destroys it). */
void io_store_sum_init(io_store_sum *sum);
void io_store_sum_free(io_store_sum *sum);

/* f's counters and cost model (a local file's: all 0). */
void io_file_counts(const io_file_t *f, io_store_counts *out);
/* sum's counters, and the model kept from its closed files or, when open file f (NULL: none)
 * folded in more requests, f's. Call it for each open file to see their models too. */
void io_store_sum_counts(io_store_sum *sum, io_store_counts *out);
void io_store_counts_model(io_store_counts *out, const io_file_t *f);

/* Reads exactly len bytes at off, blocking (for metadata, on any thread; a plain pread loop
 * for a local file, the backend's own synchronous read otherwise).
 * Returns 0; -EIO ("unexpected end of file") with a message naming the file and range when
 * the file ends first; or the pread errno. Fills err (may be NULL) on failure. */
int io_read_sync(io_file_t *f, uint64_t off, void *buf, size_t len, char *err, size_t errlen);

/* Creates a context on e, which must be the calling core (exec_current()). opts NULL = the
 * defaults. Registers a flush hook on e. Returns 0 and *out, -ENOMEM, -EINVAL, or -ENOSPC
 * (too many hooks on e). Only on e's thread. */
int io_ctx_new(io_ctx_t **out, exec_t *e, const io_opts_t *opts);

/* Closes ctx: unsubmitted requests still referenced fail with -ECANCELED, in-flight ranges
 * are cancelled. Memory stays alive until their completions arrived and every resolved
 * future was released (the context is freed then). Only on its core's thread. */
void io_ctx_free(io_ctx_t *ctx);

/* Cancels ctx's reads (a scan stopped by its host: a read waiting on a stalled server would
 * hold the stop for the store's whole timeout and retries): its requests not submitted yet
 * fail with -ECANCELED at once, its ranges and open requests in flight once the backend
 * confirms, and every later io_read and io_file_open_await on ctx fails with -ECANCELED at
 * once (a task that was between two reads reads nothing more). Only on its core's thread. */
void io_ctx_cancel_reads(io_ctx_t *ctx);

/* Frees the range buffers kept process-wide between contexts (at most IO_STASH_BYTES: a
 * context's pooled buffers go there when it ends, and the next context's reads reuse them,
 * already faulted in). Thread-safe; for hosts that want the memory back, and for tests. */
void io_stash_drain(void);
/* Bytes the stash holds now. Thread-safe; for tests. */
size_t io_stash_bytes(void);

/* Registers a read of len bytes at off of f: no I/O until the future is wanted (inside f's
 * kept bytes: none at all, the future resolved at once, invariant 5). Returns a
 * future (one reference, the caller's) whose value is an io_bytes* of exactly len bytes;
 * it fails with -EIO naming the file and range on an early end of file, with the read's
 * errno, -ECANCELED when the context closes or the core stops, or RINGSCAN_ELIMIT past
 * IO_REQUESTS_MAX / IO_REQUEST_BYTES_MAX. NULL only on ENOMEM. Releasing the last reference
 * before submission drops the request; after submission it is counted cancelled. len 0
 * resolves at once. Only on ctx's thread. */
fut_t *io_read(io_ctx_t *ctx, io_file_t *f, uint64_t off, uint64_t len);

/* A suffix read: io_read of f's last len bytes (all of f when it is shorter), as a footer is
 * read. Only on ctx's thread. */
fut_t *io_read_tail(io_ctx_t *ctx, io_file_t *f, uint64_t len);

/* Copies ctx's counters. Only on ctx's thread. */
void io_ctx_counters(const io_ctx_t *ctx, io_counters_t *out);

/* sum += c (peak_inflight_bytes: the maximum). For per-scan totals over cores. */
void io_counters_add(io_counters_t *sum, const io_counters_t *c);

#endif
