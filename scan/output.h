/* scan/output.h: the output window of the driver floor: the batches splits push, in file
 * order (ordered) or as they finish, handed to the consumer by scan_next.
 *
 * Invariants:
 *  1. Every split pushes exactly one batch (empty when pruned, all-false or failed); a split
 *     runs only when its place < consumed + window (scan.h invariant 1), so pushes never block.
 *  2. Everything below mu is touched under it; consumed, stop and limit_hit are atomics read
 *     without it, and every change of them is followed by exec_event_signal (waits for the
 *     window, and tasks that bail out on stop, are events).
 *  3. scan_out_next returns a batch at most once per split, and rows past the limit never.
 *  4. scan_out_behind is true only while the consumer can free bytes without another split
 *     being claimed: it holds the batch it took last (its next call frees it, invariant 5);
 *     unordered, any waiting batch is one it can take; ordered, the split it takes next is
 *     claimed (so it will be pushed). A task waiting on it is woken by the consumer's next
 *     call (release_taken's signal) or take (consumed_one's signal), the only changes that
 *     can make it false.
 *  5. A batch the consumer took stays counted in the budget's held (taken, not waiting) until
 *     it asks for the next one or the scan is freed: a consumer slower than the cores works
 *     on it meanwhile (a CLI writing CSV holds it, and its Arrow copy, for ~0.2 s at
 *     100 MB/s), so read-ahead is admitted with it counted. A host that keeps batches past
 *     its next call holds those outside the budget.
 *  6. A cut split (scan_out_cut: under a limit, its batch ends before a row whose map key is
 *     null) fails the scan with its error only when the consumer needs a row past its batch's
 *     and the limit is not reached: ordered, once its batch is consumed (the next row in
 *     file order is that one; no later split's rows are taken, nor counted towards the
 *     limit); unordered, once every split is consumed (any other rows serve first). So the
 *     scan fails exactly when the first limit rows it outputs would hold that row, as
 *     DuckDB's LIMIT does in file order; rows it would not output are never checked. The
 *     first cut split in file order is kept (cut_split, cut_err).
 *  7. Bytes, not only splits: with a fetch budget (limit_bytes > 0) a split passes its gate
 *     (scan_out_gate_pass, after its place fits the window) only while the bytes of pushed
 *     batches not taken (waiting), the batch taken last (taken) and the estimated batches of
 *     the splits past their gates and not pushed (running_bytes) leave room for its own
 *     estimate under limit_bytes, or when it is exempt: ordered, it is the split the consumer
 *     takes next (next_needed); or no split is past its gate and the consumer has no batch it
 *     can take (unordered none waiting; ordered the next one not pushed), so nothing else
 *     could free bytes. The pass counts its estimate in running_bytes under mu (two cores are
 *     not both admitted by one room); its push moves it to waiting (the batch's bytes) under
 *     the same lock and signals the event, as a take and release_taken do: every change that
 *     can open the gate wakes its waiters (scan.h invariant 1: no deadlock, the split the
 *     consumer needs next always runs). A split's estimate (scan_out_gate_make) is the
 *     fetch budget's reservation when it made one (a remote store's gated scan), else its
 *     rows' share of its chunks' uncompressed bytes (plan.h scan_plan_split_unc) at the
 *     batch / uncompressed ratio the splits pushed so far showed (twice before any). So what
 *     batches hold stays within limit_bytes plus the one exempt split; a 2.4 GB nested row
 *     group's 16 windowed splits of 32 MiB no longer all wait under a slow consumer (bench/
 *     RESULTS.md, thirty-fifth session). Outside it and bounded per core: each running split's
 *     decode working set and a nested slot's read windows (task_nwin.c invariant 1).
 *  8. The gate passes in place order: a split waiting at it lists its place (gate_wait, one
 *     per task), and passes by room or idleness only when no listed place is lower (the
 *     split the consumer takes next passes regardless: ordered, no lower place waits). A
 *     core's tasks claim a nested group's splits in plan order and must reach its windowed
 *     slot in that order (task_nwin.c invariant 4), or its stream parks the rows between or,
 *     past the parks, the earlier split decodes from the chunk's start. Passed as room came,
 *     a later split could start before an earlier one waiting: a 2.4 GB group's Arrow export
 *     then peaked at 453-583 MB RSS (351-386 MB before the gate, 387 MB in place order). The
 *     lowest place waiting goes on whenever room or idleness comes, so the order adds no
 *     wait that invariant 7's exemptions do not end.
 *  9. A dataset's files share one byte bound (pool, scan_out_pool: its limit is the dataset's
 *     one fetch budget): the gate of a pooled window counts, in place of its own bytes, the
 *     pool's used (every member's waiting + taken + running_bytes, changed with them), and
 *     admits under the pool's mutex (after its own, never before), so two files' cores are
 *     not both admitted by one room. Only the lead (head: the file whose batches the
 *     consumer takes, scan_out_lead) has invariant 7's exemptions, judged on its own window
 *     alone, so the lead never waits on a file behind it; a file behind it passes only by
 *     room, and only while what the files behind the lead hold (used less the lead's own)
 *     leaves room for its estimate under half the limit, so they never crowd the lead out of
 *     more than half. What every file's batches hold together thus stays within the limit
 *     plus the lead's one exempt split (before, each file's gate counted its own bytes: up to
 *     the files at once x the limit). A new lead, and every fall of used while a split
 *     waits at any member's gate (out_pool.h invariant 5), signals every member's event
 *     (under the pool's mutex, which a member takes to leave before its event goes:
 *     scan_out_detach_ev), so a file that waited for room, or to lead, goes on. */
#ifndef RINGSCAN_SCAN_OUTPUT_H
#define RINGSCAN_SCAN_OUTPUT_H
#include <pthread.h>

#include "runtime/event.h"
#include "scan/out_pool.h"
#include "scan/scan.h"

typedef struct scan_out {
    int nsplits;
    bool ordered;
    int64_t limit;             /* rows; < 0 = none */
    int window;                /* splits claimed but not consumed, at most */
    exec_event *ev;            /* invariant 2 (NULL until the executor started) */
    _Atomic int64_t consumed;
    _Atomic int64_t tickets;   /* unordered: splits claimed so far (each one's place) */
    _Atomic int stop;          /* error, or the consumer is done: splits bail out */
    _Atomic int limit_hit;     /* enough rows produced: claim no new split */
    _Atomic int workers_live;
    _Atomic int64_t pushed;    /* splits pushed (progress) */
    _Atomic uint64_t *held;    /* the fetch budget's bytes (fetch.h): a pushed batch counts
                                  there until the consumer takes it (NULL: not counted) */
    _Atomic uint64_t *held_peak; /* with held: its high-water mark (io_held_add) */
    _Atomic uint64_t waiting;  /* bytes of pushed batches not taken yet (invariant 4) */
    _Atomic uint64_t taken;    /* the bytes of the batch handed out last, counted in held
                                  until the next scan_out_next (invariant 5; written under
                                  mu, read by scan_out_behind without it) */
    _Atomic int next_needed;   /* ordered: the split the consumer takes next (next_ordered) */
    _Atomic bool *claimed;     /* ordered: per split, whether a task claimed it */
    uint64_t limit_bytes;      /* invariant 7: the fetch budget (0: no byte gate) */
    _Atomic uint64_t running_bytes; /* invariant 7: estimates of the splits past their gates,
                                       not pushed (written under mu) */
    int running;               /* those splits (under mu) */
    int64_t *gate_wait;        /* invariant 8: the places of the splits waiting at the gate
                                  (under mu), at most gate_wait_cap: one per task */
    int ngate_wait, gate_wait_cap;
    uint64_t seen_unc, seen_out; /* pushed splits' uncompressed bytes and batch bytes: the
                                    estimate's ratio (under mu) */
    scan_out_pool *pool;       /* invariant 9: NULL, or the dataset's (set with limit_bytes) */
    bool pooled;               /* a member of pool (under pool->mu) */

    pthread_mutex_t mu;        /* guards what follows */
    pthread_cond_t cv;
    bool mu_ready;
    scan_batch *results;       /* per split, valid when ready[i] */
    bool *ready;
    int *fifo;                 /* completion order (unordered output) */
    int fifo_head, fifo_tail;
    int next_ordered;
    int prefix_next;           /* first split not yet pushed, in file order */
    int64_t produced_rows;     /* rows pushed: in file-order prefix when ordered (up to
                                  cut_split's), else all */
    int64_t delivered_rows;
    int cut_split;             /* the first cut split (invariant 6), else nsplits */
    pq_err cut_err;            /* its error, while cut_split < nsplits */
    int status;
    pq_err err;
} scan_out;

/* 0 or -ENOMEM (o then safe to free). The window holds two splits per task of every core;
 * limit_bytes (invariant 7) is 0 and pool NULL until the caller sets them (scan.c: the fetch
 * budget's limit, a dataset's for each of its files, with the dataset's pool: invariant 9). */
int scan_out_init(scan_out *o, int nsplits, const scan_opts *opts, int tasks_per_core);

/* One split's place at the byte gate (invariant 7), the split's own while it runs. */
typedef struct scan_out_gate {
    int split;
    int64_t place;             /* its place in the window (scan.h invariant 1) */
    bool listed;               /* its place is in gate_wait (invariant 8) */
    uint64_t unc;              /* its rows' share of its chunks' uncompressed bytes */
    uint64_t est;              /* its batch's bytes, estimated (0: passes uncounted) */
    bool counted;              /* est counts in running_bytes (passed, not pushed) */
} scan_out_gate;

/* The gate of split (unc: scan_plan_split_unc; reserved: the fetch budget's reservation of
 * it, 0 when none): est is reserved when it is not 0, else unc at the ratio pushed splits
 * showed, twice before any. Thread-safe. */
scan_out_gate scan_out_gate_make(scan_out *o, int split, int64_t place, uint64_t unc,
                                 uint64_t reserved);
/* Whether g's split may start now (invariant 7); once true it stays true and est counts in
 * running_bytes until g's push or scan_out_gate_drop. Thread-safe (takes mu). */
bool scan_out_gate_pass(scan_out *o, scan_out_gate *g);
/* g's split will not be pushed (the scan stopped before it ran): its estimate leaves
 * running_bytes. */
void scan_out_gate_drop(scan_out *o, scan_out_gate *g);
void scan_out_free(scan_out *o);
/* Split was claimed by a task (before it waits for the window). Core side, lock-free. */
void scan_out_claimed(scan_out *o, int split);
/* Whether the consumer can free at least bytes (and at least one byte) without any further
 * split claimed: the batch it took last, and pushed batches waiting that it can take
 * (invariant 4). Lock-free. */
bool scan_out_behind(scan_out *o, uint64_t bytes);
/* Hands split's batch to the consumer (takes ownership of b, which is left empty); b->held
 * (its bytes, scan_batch_bytes) counts in o->held until the consumer takes it. g (NULL: the
 * split passed no gate) is the split's gate: its estimate leaves running_bytes and the
 * ratio learns from it (invariant 7). */
void scan_out_push(scan_out *o, int split, scan_batch *b, scan_out_gate *g);
/* Split's batch, pushed next, ends before a row the scan must not output (a null map key
 * under a limit): e is the error the scan fails with if the consumer needs that row
 * (invariant 6). Core side, before scan_out_push of split. */
void scan_out_cut(scan_out *o, int split, const pq_err *e);
/* Records the first error and stops the scan. */
void scan_out_fail(scan_out *o, int status, const pq_err *e);
/* Stops the scan (no error). */
void scan_out_stop(scan_out *o);
/* scan_out_stop from a thread other than the consumer's, while the consumer may be waiting in
 * scan_out_next or ending the scan: under mu, and, until scan_out_detach_ev ran (the executor
 * may be gone after), a wake of the event and on_live(ctx) (still under mu). */
void scan_out_cancel(scan_out *o, void (*on_live)(void *ctx), void *ctx);
/* The executor is about to stop (every worker ended): no wake goes to its cores after this
 * (o leaves its pool first, and stops leading it; its bytes stay counted until freed). */
void scan_out_detach_ev(scan_out *o);
/* Whether a split whose place is place fits the window now. */
bool scan_out_fits(scan_out *o, int64_t place);
/* The first place that does not fit the window now (consumed + window). */
int64_t scan_out_window_end(scan_out *o);
/* n workers (or workers that will never run) are gone; the last wakes the consumer. */
void scan_out_workers_gone(scan_out *o, int n);
/* Blocks until no worker is live. */
void scan_out_wait_workers(scan_out *o);
/* Next batch: 1 and *b, 0 at the end, or the scan's error (e filled). Blocks. The batch
 * handed out before leaves the budget's held first (invariant 5). */
int scan_out_next(scan_out *o, scan_batch *b, pq_err *e);

#endif
