/* scan/task.h: the split task floor: the coroutine that runs one split's conjunct chain and
 * builds its batch (task.c), the reads it registers and the pages it drops (task_pieces.c),
 * column decoding (task_decode.c), a conjunct evaluated page by page (task_eval.c), and the
 * dictionaries the splits of a cut row group share (task_dict.c). Calls go task.c ->
 * task_eval.c -> task_decode.c -> task_pieces.c -> task_dict.c, and down to the policy, fetch and plan floors; never up to the driver: a task
 * returns its batch or its error to the caller.
 *
 * Invariants:
 *  1. Everything a split registers with io/ or the fetch floor is released (unref'd) before
 *     scan_task_run returns (scan.h invariant 2).
 *  2. A task core's state (readers, vector sets) is touched only by its core's thread; its
 *     counters are relaxed atomics that only that thread writes (snapshots read them).
 *  3. Every wait of a task is an exec_event wait ended by the change it waits for: a
 *     dictionary published, a leader's state, exploration's end, or the scan stopping; or a
 *     future: a read, or a nested slot's gate (task_nwin.c) resolved by the task that holds
 *     it when its decode ends. */
#ifndef RINGSCAN_SCAN_TASK_H
#define RINGSCAN_SCAN_TASK_H
#include <stdatomic.h>

#include "format/column.h"
#include "format/page_walk.h"
#include "scan/core_time.h"
#include "scan/policy.h"
#include "scan/topk.h"

/* A cut row group's leader split, as its group's other splits see it: not claimed, claimed
 * (waiting for its place), running, ended. */
enum { SCAN_LEADER_IDLE, SCAN_LEADER_CLAIMED, SCAN_LEADER_RUNNING, SCAN_LEADER_ENDED };

/* Dictionaries of row groups cut into several splits (none when no group is cut):
 * dicts[rg * nneed + slot] is published once (release) by the first split that decoded it and
 * read (acquire) by the others, which then neither read nor decode that page; rg_left[rg]
 * counts the group's unfinished splits, and the last one frees them. Only a group's leader
 * registers dictionary pages with its other reads; the others wait for its dictionaries while
 * it runs (task_pieces.c ensure_dict). */
typedef struct scan_dicts {
    const scan_plan *plan;
    exec_event *ev;            /* signalled on publish and on a leader's change (set at start) */
    _Atomic(pq_vec *) *dicts;
    _Atomic int *rg_left;
    _Atomic int *leader_live;  /* per row group, its leader's state (SCAN_LEADER_*) */
} scan_dicts;

/* Counters of every task (relaxed atomics). */
typedef struct scan_task_counters {
    _Atomic int64_t rows_scanned, splits_all_false;
    _Atomic int64_t decompressed_bytes; /* every reader's, for max_scan_decompressed_bytes */
} scan_task_counters;

/* What a task sees of the scan (all set before the first task runs). */
typedef struct scan_task_env {
    const scan_plan *plan;
    scan_fetch *fx;
    scan_policy_state *pol;
    scan_dicts *dicts;
    scan_task_counters *cnt;
    const _Atomic int *stop;   /* the scan stops: splits bail out */
    const _Atomic int *enough; /* the limit's rows are produced: running splits bail out too
                                  (their rows come after those, in either output order) */
    scan_topk *topk;           /* a Top-K scan's shared part (topk.h), or NULL */
    const bool *dict_slot;     /* NULL, or per slot: decoded as dictionary indices
                                  (task_dictout.c, scan_dictout_slots) */
    bool nest_cols;            /* scan_opts.nest_cols */
    int64_t limit;             /* the scan's rows (no Top-K: its merge keeps K), or -1 */
    bool keys_mark;            /* a bounded Top-K, or any scan whose caller keeps the marks
                                  (scan_opts.topk_keep_bad: a dataset file's rows that go to
                                  its merge unsorted): a kept row whose map key is null is read
                                  with its map absent and marked in its batch (scan_batch.bad),
                                  the scan failing only if the row is in the answer (topk.h
                                  invariant 4, ds_topk.h invariant 3) */
    bool keys_defer;           /* the output stops at a limit (no Top-K): a map key null in a
                                  kept row ends the split's rows before it, failing the scan
                                  only if the output reaches that row (task_nested.c,
                                  output.h invariant 6); else it fails the split */
} scan_task_env;

/* A core's task state (invariant 2). */
typedef struct scan_task_core {
    pq_col_reader *readers;    /* one per slot, reused across splits (decoding never yields,
                                  so the core's tasks can share them) */
    pq_vec *vecsets[SCAN_TASKS_PER_CORE]; /* idle decoded-column sets (nneed vectors each),
                                  reused so a split does not fault in fresh memory */
    int nvecsets;
    uint64_t last_work;        /* bytes the last split's decoded columns held at its end (their
                                  capacity): its working set, learned by the fetch budget */
    _Atomic int64_t dict_eval_pages; /* pages a conjunct evaluated on dictionary indices */
    _Atomic int64_t sel_eval_pages;  /* pages a conjunct evaluated on its selected rows */
    _Atomic int64_t rows_scanned;    /* rows of the splits this core ran (the balance of the
                                        cores' work: scan_stats core_rows_min/max) */
    scan_core_time time;       /* where the core's time went (core_time.h) */
    struct task_nslot *nslots; /* NULL, or per slot: the windows of its nested leaves' chunks
                                  the core holds and the gate of its decode (task_nwin.c) */
} scan_task_core;

/* The core's readers; 0 or -ENOMEM (tc then safe to free). On the core. */
int scan_task_core_init(scan_task_core *tc, const scan_task_env *env, const pq_col_limits *lim);
/* Frees the core's readers and vectors; returns the pages they decoded. */
int64_t scan_task_core_free(scan_task_core *tc, const scan_task_env *env);

/* Runs split i of unit (claimed by core, the calling core) as the current coroutine: 0 and
 * *b (its batch: no rows when pruned or all-false, or when the scan stopped), or a negative
 * status with e filled (b empty). With env->keys_defer, 0 and *cut true when b's rows stop
 * before a kept row whose map key is null: e then holds that row's error (scan_out_cut);
 * else *cut false. */
int scan_task_run(const scan_task_env *env, scan_task_core *tc, int core, int i, int unit,
                  scan_batch *b, bool *cut, pq_err *e);

/* task_dict.c. 0 or -ENOMEM (d then safe to free). */
int scan_dicts_init(scan_dicts *d, const scan_plan *p);
void scan_dicts_free(scan_dicts *d);
/* Split i's leader state (no-op unless it is a leader); wakes the waiters. */
void scan_dicts_leader(scan_dicts *d, int i, int state);
/* Split i ended: the last split of its row group frees the group's dictionaries. */
void scan_dicts_split_end(scan_dicts *d, int i);

/* Per-split working state, shared by the task's files. */
typedef struct scan_task {
    const scan_task_env *env;
    const scan_plan *plan;
    scan_fetch *fx;
    scan_task_core *tc;
    int core;
    int index;             /* the split's */
    const scan_split *sp;
    int64_t row_lo, nrows; /* its window: rows [row_lo, row_lo + nrows) of its row group, the
                              plan's, or for a group the plan cut evenly moved to page starts
                              (task_window); nrows may then be 0 */
    int unit;              /* its fetch unit */
    bool by_unit;          /* the unit is shared: pieces are slices of its requests */
    fut_t ***futs;         /* [slot][piece], NULL once released or never registered */
    pq_vec *vecs;          /* decoded columns per slot (valid when decoded[slot]) */
    bool *decoded;
    bool *compacted;       /* decoded[slot] holds only the selected rows (decode_selected) */
    bool *evaluated;       /* [slot] vecs[slot] holds the rows of after[slot]: its conjunct
                              decoded them as it ran (task_eval_paged, a projected column) */
    flt_mask *after;       /* [slot] the mask that conjunct left (while evaluated[slot]) */
    bool *wanted;          /* [slot] scratch for the policy's choice */
    uint32_t *sel;         /* a page's selected rows, page-relative (reused across pages) */
    int64_t sel_cap;
    uint32_t *mrows;       /* the final mask's rows, split-relative, while nmrows >= 0 */
    int64_t nmrows;        /* -1 outside the projection (the mask may still change) */
    bool capped;           /* the final mask keeps only the first env->limit kept rows of more
                              (task.c cap_rows): a nested slot decodes up to the last of them */
    int32_t perm[FLT_MAX_PREDS];
    flt_mask mask, tmp;
    uint64_t topk_version; /* the Top-K bound's version the mask was last pruned by */
    struct task_dictout *dout; /* per slot (task_dictout.c), NULL until a slot needs it */
    int64_t keys_row;      /* env->keys_defer: the first kept row (its rank among the mask's)
                              holding a null map key, whose nested slots' rows end before it
                              (task_nested.c; task.c cuts the others), else -1 */
    pq_err keys_err;       /* its error, while keys_row >= 0 */
    struct pq_nest_null_key *bad; /* env->keys_mark: NULL, or per kept row (the batch's) its
                                     null map key, map -1 for none (task_nested.c keys_mark);
                                     moved into the batch */
    int64_t nbad;          /* rows marked in bad */
    uint64_t wait_ns;      /* time suspended in task_await and a dictionary's wait, which a
                              conjunct's measured cost leaves out (task.c run_conjunct) */
    pq_err err;
} scan_task;

/* fut_await(f), the time the task was suspended added to x->wait_ns: other tasks' work on
 * the core and the read's latency are no part of what a conjunct costs (with many files or
 * splits in flight they were milliseconds for a page's decode). */
static inline int task_await(scan_task *x, fut_t *f)
{
    uint64_t t0 = exec_now_ns();
    int rc = fut_await(f);
    x->wait_ns += exec_now_ns() - t0;
    return rc;
}

/* task_dictout.c: a dict_slot's selected rows as int32 indices and the split's dictionary
 * (task_dictout_load: decoded, compacted; task_dictout_take: moved into idx and dict, false
 * when slot holds none; task_dictout_free: at the task's end). scan_dictout_slots: the slots
 * decoded so, *out (nneed entries, the caller frees; NULL when none): a projected column with
 * dict_out[j] projected once and read by no predicate, in a scan without Top-K. */
typedef struct task_dictout task_dictout;
int task_dictout_load(scan_task *x, int slot);
bool task_dictout_take(scan_task *x, int slot, pq_vec *idx, pq_vec *dict);
void task_dictout_free(scan_task *x);
int scan_dictout_slots(const scan_plan *p, const bool *dict_out, bool topk, bool **out);

/* task_decode.c, for task_dictout.c: a page the mask selects rows of (fn's arguments), over
 * slot's remaining pieces (task_walk_selected: readies the core's reader, publishes a
 * dictionary the walk loaded; 0 or the first error); the selected rows of the page starting
 * at split row first_row within [a, e), page-relative, into out (task_mask_page_rows: their
 * count). */
typedef int (*selected_page_fn)(scan_task *x, pq_col_reader *r, void *ctx, pq_page_walk *w,
                                const pq_walk_page *pg);
int task_walk_selected(scan_task *x, int slot, selected_page_fn fn, void *ctx);
int64_t task_mask_page_rows(const scan_task *x, int64_t first_row, int64_t a, int64_t e,
                            uint32_t *out);

/* task_dict.c: the dictionary another split of the row group published for slot, or NULL. */
const pq_vec *task_shared_dict(scan_task *x, int slot);
/* After r decoded slot's dictionary page itself: moves it to the row group's slot for the
 * others (the first publisher wins; r then borrows it like they do). */
void task_publish_dict(scan_task *x, int slot, pq_col_reader *r);
/* Waits (task.h invariant 3) while the group's leader may still publish slot's dictionary:
 * it runs, or is claimed and the scan no longer explores. Returns the published one or NULL. */
const pq_vec *task_wait_dict(scan_task *x, int slot);

/* The core's io context (the fetch floor's, set while the core runs). */
static inline io_ctx_t *task_io(const scan_task *x)
{
    return x->fx->cores[x->core].io;
}

/* task_pieces.c */
io_bytes task_piece_bytes(scan_task *x, int slot, int q);
void task_release_slot(scan_task *x, int slot);
void task_discard(scan_task *x, int slot, int q);
void task_discard_slot(scan_task *x, int slot);
void task_want_slot(scan_task *x, int slot);
/* Registers every piece of every slot (no I/O yet). 0 or -ENOMEM. */
int task_register_all(scan_task *x);
/* The split-relative rows [*a, *e) a page piece contributes (its rows inside the split). */
void task_piece_span(const scan_task *x, const scan_piece *pc, int64_t *a, int64_t *e);
/* The split's window (x->row_lo, x->nrows): the plan's, except for a split of a row group the
 * plan cut evenly (no offset index: plan_cut.c cut_even), whose edges move to page starts of
 * slot 0's chunk (format/page_walk.h pq_walk_snap), so each page of that column is decoded by
 * one split of the group: a chunk of one page is read by the group's first split alone, the
 * others come out empty (nrows 0). Each split moves its own edges on the same bytes, so the
 * windows still tile the group without the splits agreeing on anything. Only when
 * task_window_moves; wants and awaits slot 0's chunk. 0, or a read's or a page header's error
 * (x->err filled). */
int task_window(scan_task *x);
/* Whether the split's window moves (task_window reads): its group was cut evenly. */
bool task_window_moves(const scan_task *x);
/* Releases page pieces of slot whose rows the mask excludes (and the dictionary when no page
 * is left). Whole-chunk pieces are kept. */
void task_drop_excluded_pages(scan_task *x, int slot);
/* Awaits every remaining piece of slot, then its shared dictionary; 0 or the first error. */
int task_await_slot(scan_task *x, int slot);
/* The task's selection buffer with room for n rows; NULL on -ENOMEM. */
uint32_t *task_sel(scan_task *x, int64_t n);
/* The final mask's selected rows listed once (x->mrows, x->nmrows) for the projection's
 * pages to take their ranges from, instead of each column's pages scanning the mask again;
 * task_mask_rows_drop ends it (before the mask can change). 0 or -ENOMEM. */
int task_mask_rows(scan_task *x);
void task_mask_rows_drop(scan_task *x);

/* task_topk.c */
/* Whether the Top-K bound rules the split out from its row group's statistics (or K is 0). */
bool task_topk_dead(scan_task *x);
/* When the bound changed since the split last looked: clears in x->mask the rows of the
 * bound column's pages the bound now rules out (their page index: scan_plan_dyn_prune) and
 * releases every undecoded column's pages the mask no longer selects. 0 or -ENOMEM. */
int task_topk_pages(scan_task *x);
/* After the chain: x->mask keeps the split's best K rows (keys no conjunct decoded are
 * decoded for the selected rows only, then cut to the kept ones), the
 * scan's bound is tightened when the split holds K rows, and *pos (malloc'd, one per kept row
 * in mask order) gets their file positions. 0 or a status (*pos NULL). */
int task_topk_select(scan_task *x, int64_t **pos);

/* task_decode.c */
/* Decodes slot (awaiting its pieces) in full, or reuses it decoded. */
int task_load_slot(scan_task *x, int slot);
/* A nested field's slot (its pieces: one whole chunk per leaf, awaited) decoded with r (the
 * slot's reader, for the first leaf) into v (empty): packed rows (v first sized for the
 * split's rows and data bytes of packed data, a guess), or the field's columns (format/vec.h
 * invariant 6) when the split hands the vector on whole and the shape has them
 * (scan/task_nested.c). The kept rows, or with env->keys_defer and x->keys_row >= 0 after it
 * returns the first keys_row of them (the slot then compacted). */
int task_decode_nested(scan_task *x, int slot, pq_col_reader *r, pq_vec *v, int64_t data);
/* task_nwin.c: a nested leaf's chunk read in windows (plan.h scan_nest_window_bytes). */
/* Before a nested slot's leaves are decoded: waits while another task of the core holds the
 * slot's gate (it awaits a window mid-decode: the core's readers, streams and kept leaves are
 * the slot's, one decode at a time). 0 or a wait's status. task_nest_leave after the decode
 * (also on failure) resolves the gate when this task held it and hands a new one to the
 * waiting task whose split comes first (task_nwin.c invariant 4), so the slot's splits run
 * in their order. */
int task_nest_enter(scan_task *x, int slot);
void task_nest_leave(scan_task *x, int slot);
/* Rows [lo, hi) of leaf i of slot (piece pc; first: its resolved read, the whole chunk, or
 * nothing when pc is windowed) into l through the stream s and its reader ri
 * (format/nest_stream.c), a windowed chunk's windows read as s asks (io_read on the core's
 * context, awaited, counted as every read is) into the one window the core holds for the
 * leaf, released once s reaches the chunk's end. 0 or a negative status (x->err names the
 * offset and the column). */
int task_nest_rows(scan_task *x, int slot, int i, pq_col_reader *ri, struct pq_nest_stream *s,
                   const scan_piece *pc, io_bytes first, int64_t lo, int64_t hi, bool to_end,
                   struct pq_nest_leaf *l);
/* Releases the windows the core holds (before its io context is freed) and their slots. */
void scan_task_core_windows_free(scan_task_core *tc, int nneed);

/* A projected column that no conjunct decoded: compacted decode when the mask drops rows. */
int task_load_projected(scan_task *x, int slot);
/* Flat slot, not decoded, read by nothing after the caller (its reads are released): the rows
 * the mask selects now into out (initialised here; the caller frees it), x->decoded[slot]
 * left false. 0 or a negative status with x->err filled. */
int task_decode_compacted(scan_task *x, int slot, pq_vec *out);
/* The string data to reserve for the split's rows of v (chunk cm): the split's share of the
 * chunk's uncompressed bytes, a guess that only saves copies. */
int64_t task_split_data(const scan_task *x, const pq_chunk_meta *cm, const pq_vec *v);

/* task_multi.c */
/* Conjunct k over several columns: x->tmp = x->mask AND it (on the selected rows alone when
 * few are). 0 or a negative status with x->err filled. */
int task_eval_multi(scan_task *x, int k);
/* rc, an evaluation's failure of conjunct k, as x->err: a value out of its type's range names
 * the conjunct as the filter reads after normalization. */
int task_eval_error(scan_task *x, int k, int rc);

/* task_eval.c */
/* Whether conjunct k can be evaluated page by page in split x: its column is read by no other
 * conjunct, and either not projected, or projected and a flat dictionary-coded chunk in a
 * scan without Top-K (the predicate then runs on the dictionary indices, and each page's
 * passing rows are decoded from the same decompressed body: no full-length vector of the
 * column is built, no page decompressed twice). */
bool task_pageable(const scan_task *x, int k);
/* Conjunct k on a pageable column: x->tmp = x->mask AND the predicate, page by page; a
 * projected column's vector then holds the rows of x->tmp (x->evaluated[slot], x->after[slot]),
 * which task_narrow_evaluated cuts to the final mask. */
int task_eval_paged(scan_task *x, int k);
/* Cuts each evaluated slot's vector to the final mask's rows (compacted[slot] set). 0 or
 * -ENOMEM. */
int task_narrow_evaluated(scan_task *x);

#endif
