/* io/io_impl.h: private to the io/ sources: request, range and context records, and the
 * functions io/ files call in each other.
 *
 * Calls between io/ files go one way, top to bottom:
 *   io_read.c (public API, request hooks) -> io_flush.c (coalescing, budget)
 *     -> io_range.c (one range from creation to release) -> io_ctx.c (records, buffer pool)
 * and a file may skip a level (io_read.c -> io_range.c, io_ctx.c; io_flush.c -> io_ctx.c);
 * io_open.c (a file opened from a task) calls io_file.c and io_ctx.c; io_read.c calls it to
 * cancel the opens in flight (io_ctx_cancel_reads).
 * A completion comes back through exec (io_range.c's own op callback), never by a call up.
 * Invariants:
 *  1. A request is in exactly one place: the context's pending list (REGISTERED, WANTED),
 *     a range's member list (SUBMITTED), or no list (DONE: owned by its future's value).
 *  2. n_wanted counts pending requests in state WANTED; n_pending all pending ones.
 *  3. A range holds one reference while its read is in flight and one per resolved slice;
 *     its buffer is freed when the count reaches 0 (never while the kernel may write it).
 *  4. The context is freed only when closing, with no live request and no range. */
#ifndef RINGSCAN_IO_IO_IMPL_H
#define RINGSCAN_IO_IO_IMPL_H
#include <sys/uio.h>

#include "io/io.h"

enum { IO_REQ_REGISTERED = 1, IO_REQ_WANTED, IO_REQ_SUBMITTED, IO_REQ_DONE };
/* A range's holes (io_range.c invariant 6): a hole of at least IO_HOLE_MIN_BYTES between its
 * members lands in the context's scratch buffer (IO_HOLE_SCRATCH_BYTES, one iovec per that
 * many bytes of hole) instead of the range buffer, when the range's pieces fit in IO_IOV_MAX
 * iovecs; otherwise the range lands whole in its buffer, as one plain read. */
enum {
    IO_IOV_MAX = 64,
    IO_HOLE_SCRATCH_BYTES = 64 * 1024, /* stays in a core's L2 however often it is written */
    IO_HOLE_MIN_BYTES = 4096           /* smaller holes are copied with their neighbours */
};
enum { IO_RETRIES_MAX = 16, IO_REMOTE_FREE_HOLE = 4096 /* io_flush.c invariant 1 */ };
/* Wanted ranges waiting for the budget while nothing is in flight may be waiting for bytes
 * their own consumers hold (a task holding one buffered piece while it awaits another): after
 * this long without a release, one range is issued anyway, so a scan never deadlocks. */
#define IO_BUDGET_STALL_NS (UINT64_C(10) * 1000 * 1000)

typedef struct io_range io_range;

typedef struct io_req {
    io_bytes value; /* first member: the future's value pointer is the request itself */
    io_ctx_t *ctx;
    io_file_t *file;
    fut_t *fut; /* uncounted: valid while the future lives */
    uint64_t off, len;
    int state;
    struct io_req *prev, *next; /* pending list or range member list */
    io_range *range;
} io_req;

/* One piece of a range's bytes in file order: its length and where it lands (io_range.c). */
typedef struct io_piece {
    uint64_t len;
    int64_t at; /* offset in the range buffer, or -1: a hole, into the context's scratch */
} io_piece;

struct io_range {
    io_ctx_t *ctx;
    io_file_t *file;
    uint64_t off, len, done;
    uint8_t *buf;
    size_t cap; /* buf's size: at least the landed bytes (len less the holes), more when it
                   came from the pool */
    int npieces;  /* 0: the range lands whole in buf (one plain read call) */
    io_piece piece[IO_IOV_MAX];
    struct iovec iov[IO_IOV_MAX]; /* the read call in flight's iovecs, with npieces > 0 */
    int64_t refs;
    exec_op_t op;
    io_req *mhead, *mtail;
    uint32_t n_members;
    int retries;
    bool in_flight, cancel_sent;
    bool view;             /* buf points into the file's mapping (io_range.c invariant 7) */
    fut_t *delay;          /* fault injection: the timer holding the first read back */
    char why[IO_WHY_MAX];  /* the backend's message when its read failed (io/store.h inv. 1) */
    io_range *prev, *next; /* the context's range list */
};

struct io_ctx {
    exec_t *e;
    io_opts_t opts;
    io_counters_t c;
    io_req *phead, *ptail;
    uint64_t n_pending, n_wanted, n_live_reqs, n_ranges;
    uint64_t inflight_bytes, buffered_bytes;
    io_range *ranges;
    bool dirty, closing;
    fut_t *stall_timer;  /* armed while wanted ranges wait for the budget with nothing in flight */
    bool stall_escape;   /* it fired with no release since: one range may exceed the budget */
    int guard; /* > 0 while a function walks the context: postpones freeing it */
    int n_opens; /* open requests in flight (io_open.c): postpone freeing it too */
    struct io_opening *opens; /* those requests (io_open.c invariant 3) */
    bool cancelled; /* io_ctx_cancel_reads ran: every later read and open fails at once */
    void *be_core[IO_BACKENDS_MAX]; /* each backend's per-core state, made at its first read */
    bool be_made[IO_BACKENDS_MAX];
    io_req **scratch;
    size_t scratch_cap;
    uint8_t *hole_scratch; /* IO_HOLE_SCRATCH_BYTES every range's holes land in (never read);
                              made at the first range with a hole, freed with the context */
    /* range buffers kept for reuse (io_buf_get/put): a fresh buffer costs a page fault and a
     * zeroed page per 4 KiB in the kernel's copy, 16% of a wide scan's time */
    struct io_pooled { uint8_t *p; size_t cap; } pool[IO_POOL_SLOTS];
    int npool;
    size_t pool_bytes;
};

/* io_file.c: opens path as io_file_open_with does, except that a URL's object is made
 * without its open request (f->be->open not NULL: its size is unknown until that request,
 * io_open.c or io_http_open_sync, completes). */
int io_file_begin(io_file_t **out, const char *path, const io_open_opts *o, char *err,
                  size_t errlen);

/* io_ctx.c (calls no other io/ file) */
/* A buffer of at least n bytes (*cap: its size): for n >= IO_POOL_MIN_BYTES the smallest
 * pooled one that fits, else the smallest stashed one, else a new one (from IO_POOL_MIN_BYTES up rounded to 1 MiB so it fits
 * later ranges). NULL on ENOMEM. */
uint8_t *io_buf_get(io_ctx_t *ctx, size_t n, size_t *cap);
/* Gives a range buffer back: pooled while the pool has a slot and stays within
 * IO_POOL_BYTES (opts.pool_bytes with opts.pool_held), else stashed process-wide (io_ctx.c
 * invariant 4; never with opts.pool_held), else freed. */
void io_buf_put(io_ctx_t *ctx, uint8_t *p, size_t cap);
/* Empties ctx's pool (closing: nothing pools after), its bytes leaving the held count. */
void io_pool_release(io_ctx_t *ctx);
/* Takes pending request r (REGISTERED or WANTED) off the pending list, keeping n_pending and
 * n_wanted. r keeps its state; the caller moves it on. */
void io_req_unlink_pending(io_ctx_t *ctx, io_req *r);
/* Frees an unlinked request whose future no longer needs it; may free a closing context. */
void io_req_free(io_req *r);
/* The per-core state of backend be in ctx, made on first use. Returns 0 and *out (may be
 * NULL: the backend needs none), or the backend's error. */
int io_ctx_backend(io_ctx_t *ctx, const io_backend *be, void **out);
/* Frees ctx if it is closing, unguarded and has no live request or range nor a fired stall
 * timer whose callback is still queued (each backend's per-core state with it); else
 * nothing. */
void io_ctx_maybe_free(io_ctx_t *ctx);
/* Fails an unlinked, unsubmitted request with status and "<file>: read of bytes [a, b): why",
 * then frees it. */
void io_req_fail_unsubmitted(io_req *r, int status, const char *why);

/* io_range.c (calls io_ctx.c) */
/* Starts one range over members[0..n) (pending, sorted, same file), spanning [start, end):
 * unlinks them from the pending list, makes them its members (SUBMITTED) and issues its
 * first read. Returns 0, or -ENOMEM with nothing changed (the members stay pending). */
int io_range_start(io_ctx_t *ctx, io_req *const *members, size_t n, uint64_t start,
                   uint64_t end);
/* Removes submitted request r from its in-flight range (its future was dropped), counts it
 * cancelled and frees it; the range's read is cancelled when it has no member left. */
void io_range_drop_member(io_req *r);
/* Cancels the read of every in-flight range of ctx (once per range): closing, or its scan
 * stopped (io_ctx_cancel_reads). On its core. */
void io_range_cancel_all(io_ctx_t *ctx);

/* io_open.c */
/* Asks the backend to cancel every open request of ctx in flight: each completes failed
 * (-ECANCELED) or with its real result. On ctx's core. */
void io_opens_cancel(io_ctx_t *ctx);

/* io_flush.c (calls io_range.c, io_ctx.c) */
/* The executor hook (exec_hook_add): coalesces the wanted requests into ranges and starts
 * those the budget allows. */
void io_flush(void *ctx);

#endif
