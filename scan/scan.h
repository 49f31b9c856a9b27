/* scan/scan.h: the scan engine's interface: options, output batches, statistics and the
 * calls the public API (api.c) makes. The engine is built in floors, each with its own header
 * and state, calls going one way (docs/ARCHITECTURE.md): plan (plan.h) <- fetch (fetch.h) <-
 * policy (policy.h) <- split task (task.h) <- driver and output (scan.c, output.h).
 *
 * Flow: scan_start() parses nothing itself - it takes an open pqf_t, projection indexes and a
 * typed filter - builds the plan with static pruning (synchronous metadata reads only),
 * starts one executor thread per core; on each core SCAN_TASKS_PER_CORE worker coroutines
 * claim splits from the fetch floor and run the split task (task.c). Each split pushes
 * exactly one batch (possibly empty) to the output window (output.c); scan_next() pops them.
 *
 * Invariants:
 *  1. A split runs only when its place < consumed + window - its index when ordered, else
 *     the count of splits claimed before it - so every claimed split's batch fits the output
 *     queue: producers never block, ordered output cannot deadlock. With a fetch budget it
 *     also passes the window's byte gate (output.h invariant 7: the batches waiting, the one
 *     taken and the running splits' estimates within the budget), which never holds the
 *     split the consumer takes next (ordered) nor a split when nothing else could free bytes
 *     (no split past its gate, no batch the consumer can take): the gate adds no deadlock.
 *  2. Everything a split registers with io/ is released (unref'd) before its task ends; a
 *     dropped unsubmitted read is never issued, a dropped in-flight read is counted cancelled.
 *  3. Per-core state (io context, column readers) is touched only by that core's thread.
 *  4. Results are identical under every policy and thread count (output order aside when not
 *     --ordered).
 *  5. The scan ends (scan_next returns 0 or an error, scan_free returns) whatever fails: a
 *     core's workers are spawned by one message, so workers that cannot be created are
 *     counted out before any of the core's others runs, and any failure to allocate, read
 *     or start fails the scan instead of leaving a split unpushed. */
#ifndef RINGSCAN_SCAN_SCAN_H
#define RINGSCAN_SCAN_SCAN_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "filter/expr.h"
#include "filter/mask.h"
#include "filter/sortkey.h"
#include "format/column.h"
#include "io/io.h"
#include "runtime/exec.h"
#include "scan/pqfile.h"

enum {
    SCAN_TASKS_PER_CORE = 4,   /* split tasks in flight per core */
    SCAN_MAX_COLUMNS = 4096,
    SCAN_SPLIT_ROWS = 128 * 1024,
    /* the fewest rows of a piece of an even cut (plan_cut.c: a flat row group without offset
     * indexes, cut for the cores): two cores sharing such a group pay a thief's lend round
     * trip and its wait for the leader's dictionary (~1-1.5 ms) and ~1.4 ms more CPU, more
     * than half of a 122,880-row lineitem group's two columns take (lineitem_prune, sf=1:
     * whole groups ran 3:2 in less wall and CPU than groups cut in two; bench/RESULTS.md,
     * thirty-seventh session) */
    SCAN_EVEN_CUT_MIN_ROWS = 64 * 1024,
    SCAN_MAX_SPLITS = 1 << 24,
    /* largest coalesced read (io/ default 4 MiB): twice Arrow's read-range cache cap
     * (FACTS.md), so the columns a unit wants at once are one read even for a 1 Mi-row group of
     * all 16 lineitem columns (~40 MB; 2 reads at 32 MiB, DuckDB reads it in one) */
    SCAN_READ_MAX_BYTES = 64 << 20,
    /* bytes of a run (fetch.c) read ahead at once, on average (whole units: the nearer of the
     * run with or without the unit that crosses it): at 64 MiB, wide|tpchgen at sf=10 on two
     * threads took 1.13-1.26x the time of one unit at a time (5 interleaved rounds), at 32 MiB
     * 0.95-0.99x */
    SCAN_RUN_BYTES = 32 << 20,
    /* a hole of up to 1 MiB (columns not wanted between wanted ones) is read over when at
     * least half of the read stays wanted bytes (io.h), but io/ caps it by the file's cost
     * model gap (200 KB locally: io_flush.c io_dense_gap): lineitem_order on tpchgen's sf=1
     * file read 21 calls for 231 MB at 1 MiB, 126 for 145 MB capped, 5% less CPU (RESULTS.md,
     * twenty-first session); a remote file merges by its own cost model */
    SCAN_DENSE_GAP_BYTES = 1 << 20
};
#define SCAN_FETCH_BUDGET ((int64_t)256 << 20) /* DataFusion #24086's default, per scan */

typedef enum scan_policy { SCAN_LAZY = 0, SCAN_EAGER = 1, SCAN_ADAPTIVE = 2 } scan_policy;

/* One ORDER BY key: a leaf column, its direction and where its nulls go. */
typedef struct scan_order_key {
    int col;
    bool desc;
    bool nulls_first;
} scan_order_key;

struct scan_batch; /* below: scan_opts.batch_fn's argument */

typedef struct scan_opts {
    scan_policy policy;
    int threads;              /* executor cores (>= 1) */
    exec_io_backend io;       /* auto, uring, pread */
    bool ordered;             /* batches in file order */
    int64_t limit;            /* rows; < 0 = none (with order keys: the K of Top-K) */
    int nkeys;                /* ORDER BY keys (0 = none; at most FLT_MAX_SORT_KEYS): the scan
                                 returns the first limit rows in that order (scan/topk.h) */
    scan_order_key keys[FLT_MAX_SORT_KEYS];
    const int *rg_order;      /* the row groups planned, so claimed, in this order (distinct,
                                 nrg_order of them); NULL = every group in file order */
    int nrg_order;
    bool topk_seed_set;       /* a bound to start from (a sibling's): topk_seed, in the first
                                 key's domain (lit.f when topk_seed_float) */
    bool topk_seed_float;
    flt_lit topk_seed;
    flt_dyn *topk_cell;       /* a Top-K bound shared with other scans (zeroed by the caller,
                                 outliving the scan); NULL = the scan's own */
    void (*topk_notify)(void *ctx, flt_domain dom, flt_lit v, uint64_t version);
    void *topk_notify_ctx;    /* called each time the scan itself tightens its bound (a split,
                                 the merge or the statistics' seed; not an offer), with the
                                 bound then */
    bool topk_keep_bad;       /* ORDER BY ... LIMIT: a row of the answer holding a null map key
                                 stays marked in its batch (scan_batch.bad, its names then the
                                 caller's to take before the scan ends) instead of failing the
                                 scan: a dataset's merge decides (ds_topk.h); a plain scan's
                                 batches (a file whose rows go to that merge unsorted) too */
    bool topk_no_seed;        /* no bound from row-group statistics at planning (benchmarks:
                                 what an engine without seeding, as DataFusion, reads) */
    bool topk_bounded;        /* set by scan_start for ORDER BY ... LIMIT: a bound may end a
                                 split before it reads, so no split's reads are made early
                                 (no run-ahead) or for others (each split its own unit) */
    bool use_page_index;      /* read column/offset indexes to prune pages (default true) */
    bool use_bloom;           /* read bloom filters for = / IN (default true) */
    bool explain;             /* keep a text account of planning and ordering */
    int64_t split_rows;       /* a row group of at least twice this many rows whose needed
                                 columns all have an offset index is cut into splits of about
                                 this many rows at page boundaries; 0 = one split per row group
                                 (default SCAN_SPLIT_ROWS) */
    int64_t even_cut_min_rows; /* an even cut makes pieces of at least this many rows, else
                                 the group stays whole (default SCAN_EVEN_CUT_MIN_ROWS) */
    int64_t fetch_budget;     /* bytes held for read-ahead by every core at once (fetch.h
                                 scan_budget); 0 = no read-ahead (default SCAN_FETCH_BUDGET) */
    io_opts_t io_opts;
    pq_col_limits col_limits;
    const bool *dict_out;     /* NULL, or one per projected column: decode it as dictionary
                                 indices and the split's dictionary (scan_batch.dicts) where
                                 scan_dictout_slots allows (read only by scan_start) */
    const int32_t *proj_nodes; /* NULL, or per projected column (the first nproj_nodes, the
                                  caller's; ORDER BY keys come after them): the nested node
                                  it reads (a top-level field or a struct path in one, its
                                  first leaf being the projected column), -1 for a flat
                                  column; NULL: each nested column reads its field */
    int nproj_nodes;
    bool nest_cols;           /* the caller exports every batch whole through scan_arrow_batch
                                 (api.c; ds_out.c for datasets): a split may hand a nested
                                 field's rows over as columns (format/vec.h invariant 6: taken
                                 and cut by format/nest_take.c, so filters, limits and Top-K
                                 keep them) */
    struct scan_rt *rt;       /* NULL, or a runtime shared with other scans (scan_rt.h): the
                                 scan runs its workers on rt's cores (threads = rt's) instead
                                 of starting its own, and leaves them running at its end */
    struct scan_budget_share *share; /* NULL, or a fetch budget shared with other scans (a
                                 dataset's files, fetch.h): fetch_budget is then its limit */
    struct scan_out_pool *out_pool; /* with share: the byte bound the scans' output windows
                                 share (out_pool.h; output.h invariant 9), else NULL */
    struct scan_order_share *order_share; /* NULL, or the adaptive conjunct order of other
                                 scans whose filters are the same conjuncts (policy.h) */
    int groups_besides;       /* row groups the cores run besides this scan's (a dataset's
                                 other files, one each at least): counted with the kept ones
                                 when the plan decides whether few groups are cut for the
                                 cores (plan.c cut_rows), as one plan of every file would */
    /* NULL, or called on the core that built each batch with rows, before the batch is queued
     * for scan_next (a parallel sink): work a host does per batch (a checksum, an aggregate)
     * then runs on the cores as they produce, instead of serially on the consumer, which on
     * a machine with as many CPUs as cores competes with them (issue 26: the bench's checksum
     * over wide's strings took 12 of ~100 ms of each CPU at 2 threads). core is the calling
     * core's index (< threads); cores call it at once, so ctx keeps a part per core. It reads
     * b and keeps nothing of it. Not with a limit or ORDER BY keys, whose batches are cut or
     * merged after the cores (scan_start: -EINVAL). */
    void (*batch_fn)(void *ctx, int core, const struct scan_batch *b);
    void *batch_ctx;
} scan_opts;

void scan_opts_default(scan_opts *o);

/* Counters of one scan; io figures include the planning reads. */
enum { SCAN_STATS_CORES = 8 }; /* cores whose time scan_stats reports */

/* Where one core's time went (scan/core_time.h), for a scan on its own cores (on a shared
 * runtime the other scans' work counts too). Asleep: its executor had nothing runnable, split
 * by what its tasks waited for. busy = wall - every sleep; of it, cpu_ns ran (the rest: the
 * thread was runnable but another process ran, or page faults waited). */
typedef struct scan_core_stats {
    uint64_t wall_ns;     /* its first worker's start to its last worker's end */
    uint64_t cpu_ns;      /* its thread's CPU time over wall_ns */
    uint64_t io_ns;       /* asleep while a split awaited a read or a lend */
    uint64_t dict_ns;     /* asleep while a split awaited its leader's dictionary */
    uint64_t window_ns;   /* asleep while a claimed split awaited the output window */
    uint64_t claim_ns;    /* asleep while its tasks were paced or not admitted (no work) */
    uint64_t drain_ns;    /* asleep at its end awaiting lends and holds */
    uint64_t other_ns;    /* asleep with no task waiting on any of those */
    uint64_t start_ns;    /* the scan's start to its first worker's start */
    uint64_t tail_ns;     /* its last worker's end to the scan's end (0 when after) */
    int64_t splits;       /* splits it ran */
} scan_core_stats;

typedef struct scan_stats {
    uint64_t reads, bytes_read, bytes_used, bytes_wasted, cancelled_reads;
    uint64_t bytes_skipped;               /* of bytes_read: holes read into io/'s scratch
                                             buffer, never landed in a read buffer */
    uint64_t reads_kept, bytes_kept;      /* requests served from the chunk bytes the file's
                                             footer tail held (io.h invariant 5): no read */
    uint64_t requests_registered, requests_dropped;
    uint64_t plan_reads, plan_bytes;      /* synchronous reads: footer, indexes, blooms */
    int64_t row_groups_total, row_groups_pruned, pages_total, pages_pruned;
    int64_t rows_scanned, rows_out, splits_all_false;
    int64_t core_rows_min, core_rows_max; /* rows scanned by the least and the most busy core
                                             (equal: the cores shared the work evenly) */
    int64_t steals;                       /* times a core took the later splits of another
                                             core's unit */
    int64_t reads_lent;                   /* a stolen run's column bytes copied from the owner's
                                             read instead of read again (scan/lend.c) */
    int64_t decoded_pages, decoded_values;
    int64_t topk_splits_dead;             /* splits the Top-K bound ended before their data */
    int64_t topk_rows_kept;               /* rows the splits passed on as Top-K candidates */
    int64_t topk_pages_dead;              /* pages a bound published after planning ruled out */
    int64_t splits;                       /* planned, pruned ones included */
    int64_t splits_done;                  /* pushed to the output so far (progress) */
    int64_t bytes_decompressed;           /* page bodies inflated by every core */
    int64_t dict_eval_pages;              /* pages a conjunct evaluated on dictionary indices */
    int64_t sel_eval_pages;               /* pages a conjunct evaluated on its selected rows only */
    uint64_t peak_inflight_bytes;
    int64_t runtimes;                     /* executor groups started (scan_rt.h): 1 for a scan
                                             on its own cores, 0 on a shared runtime */
    uint64_t budget_peak_bytes;           /* the most its fetch budget's held bytes reached (a
                                             dataset: the shared budget's, footers included) */
    uint64_t footer_bytes_peak;           /* a dataset: the most footer bytes held at once */
    int64_t footer_reads;                 /* a dataset: read calls of its footers (a tail each,
                                             a second for a longer footer) */
    int64_t footers_on_cores;             /* a dataset: footers read as futures on its runtime */
    int ncores;                           /* entries of core (the scan's cores, at most
                                             SCAN_STATS_CORES) */
    scan_core_stats core[SCAN_STATS_CORES];
    bool uring;
    char io_backend[EXEC_BACKEND_MSG_MAX];
} scan_stats;

/* An output batch: the projected columns, only the selected rows. */
typedef struct scan_batch {
    int split;
    int32_t row_group;         /* the file's row group its rows come from; -1 when not one
                                  (a Top-K batch, a dataset's) or unknown */
    int64_t rows;
    int ncols;
    pq_vec *cols;              /* ncols vectors, owned */
    int64_t *pos;              /* Top-K splits only: each row's position in the file (owned) */
    struct pq_nest_null_key *bad; /* Top-K splits only: NULL, or per row the null map key it
                                     holds (map >= 0; its map read as absent) or map -1
                                     (owned; topk.h invariant 4) */
    pq_vec *dicts;             /* NULL, or ncols dictionaries (scan_opts.dict_out; owned) */
    bool *dict_on;             /* ncols entries with dicts: cols[j] are indices into dicts[j] */
    uint64_t held;             /* bytes counted in the scan's fetch budget until the consumer
                                  takes the batch (0 once taken) */
} scan_batch;

void scan_batch_free(scan_batch *b);
/* Column j of b holds int32 indices into *dict, moved into b (dict left empty). 0 or -ENOMEM
 * (dict freed). */
int scan_batch_set_dict(scan_batch *b, int j, pq_vec *dict);
/* The bytes b's vectors have allocated. */
uint64_t scan_batch_bytes(const scan_batch *b);

typedef struct scan scan_t;

/* Plans and starts a scan over f (borrowed; must outlive the scan). proj: leaf indexes to
 * output, in order (nproj >= 1). filter: owned by the scan from now on (NULL = no filter).
 * Returns 0 and *out, or a negative status with e filled (the file is named by the caller):
 * RINGSCAN_EUNSUPPORTED when a projected, filtered or ORDER BY column is nested. */
int scan_start(pqf_t *f, const int *proj, int nproj, flt_expr *filter, const scan_opts *o,
               scan_t **out, pq_err *e);

/* Next batch: 1 and *b filled (caller frees with scan_batch_free), 0 at the end, or a negative
 * status with e filled (the first error of any split; the scan is stopped). Blocks. */
int scan_next(scan_t *s, scan_batch *b, pq_err *e);

/* Copies the counters: a snapshot while the scan runs (it goes on; per-core io counters are
 * those published after each core's last split), final once scan_next returned 0 or an
 * error (scan_finished). From one thread at a time. */
void scan_get_stats(scan_t *s, scan_stats *out);
/* Whether the scan ended and its counters are final. */
bool scan_finished(const scan_t *s);
/* The --explain text (NUL-terminated; "" unless explain was set). */
const char *scan_explain(const scan_t *s);
/* A byte range of the file. */
typedef struct scan_range {
    uint64_t off, len;
} scan_range;
/* (scan_stats.c) The byte ranges s's plan reads: every piece of every slot of every unpruned
 * split, in file order, overlapping ones merged (a dictionary the splits of a cut row group
 * share; touching ones stay apart, for the caller to merge within its request cap). What a
 * reader of only the plan's bytes must fetch, whatever its policy: a lazy one may fetch
 * less (the pieces of splits its first conjunct empties). *out (malloc'd, the caller frees
 * it; NULL when *n is 0) gets *n disjoint ranges. 0 or -ENOMEM. Any time between scan_start
 * and scan_free. */
int scan_plan_ranges(const scan_t *s, scan_range **out, int64_t *n);
/* Projection descriptors. */
const pq_column_desc *scan_proj_desc(const scan_t *s, int i);
int scan_nproj(const scan_t *s);

/* A Top-K scan's bound (scan/topk.h scan_topk_load, scan_topk_offer); thread-safe. */
bool scan_topk_bound(scan_t *s, flt_lit *v, uint64_t *version, flt_domain *dom);
bool scan_topk_offer_bound(scan_t *s, flt_lit v);
/* (scan/topk.c) The bound a scan of f with o (o->nkeys >= 1, o->limit = K) would start from, before any
 * data read: the statistics' seed, or o's topk_seed when stricter. filter (owned from now on,
 * may be NULL) is the scan's; nout the columns it projects. 0 and *set (with *v, *dom when
 * set), or a status with e filled. */
int scan_topk_seed(pqf_t *f, const scan_opts *o, int nout, flt_expr *filter, flt_lit *v,
                   flt_domain *dom, bool *set, pq_err *e);

/* Once scan_next returned 0 or an error: whether the scan ended, its counters and --explain
 * final (scan_finished) and scan_free would not wait. A scan on a shared runtime (scan_opts.rt)
 * ends only once it has left it (its workers, io contexts and messages gone: scan_rt.h
 * invariant 2); false until then, and the call never blocks for it (poll it, or scan_free). */
bool scan_left(scan_t *s);
/* Stops the scan if it runs and waits until it ended (on a shared runtime: until it left it):
 * its counters and --explain final (scan_finished) before scan_free, e.g. for a dataset to sum
 * a file's counters (a file's scan stopped by the limit, or not yet left, reads its io
 * counters low until then: bytes read without their use counted). */
void scan_end(scan_t *s);
/* Asks a running scan to stop, from any thread, while another may wait in scan_next: its
 * workers end at their next step and that call returns (0, or a Top-K answer of the rows so
 * far). Thread-safe; never blocks on the scan; the end itself (scan_end) is the consumer's. */
void scan_cancel(scan_t *s);
/* A scan on a shared fetch budget (scan_opts.share) is now the one its consumer drains: its
 * base tasks go on without waiting for room (fetch_budget.c invariant 6), and it leads its
 * output pool (scan_opts.out_pool; output.h invariant 9). Host thread. */
void scan_lead(scan_t *s);

/* Stops the executor (cancelling what is in flight), frees everything. */
void scan_free(scan_t *s);

#endif
