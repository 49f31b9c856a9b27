/* scan/plan_impl.h: what plan.c, plan_index.c and plan_cut.c share while a plan is built. */
#ifndef RINGSCAN_SCAN_PLAN_IMPL_H
#define RINGSCAN_SCAN_PLAN_IMPL_H
#include "scan/plan.h"

/* A plan being built: the plan, the options it follows, the explain sink. */
typedef struct plan_build {
    scan_plan *p;
    const scan_opts *o;
    scan_explain_buf *x;
    int64_t cut_rows;          /* rows a split aims at (plan.c cut_rows): o->split_rows, less
                                  when statistics keep few row groups of a local file */
    int64_t rows_left;         /* a limit with no filter: the rows still to plan (the splits
                                  after those hold none the output takes: plan.c
                                  limit_reached), else -1 */
} plan_build;

/* Parsed indexes of one file: per row group and slot (has_* false when absent). */
typedef struct plan_index {
    pq_offset_index *oi; /* [rg * nneed + slot] */
    pq_column_index *ci;
    bool *has_oi, *has_ci;
} plan_index;

/* Reads [off, +len) for planning (counted as a plan read), or copies it from the page index
 * bytes the footer read brought. 0 or a status with e filled. */
int plan_read(plan_build *b, uint64_t off, void *buf, size_t len, pq_err *e);

/* Loads the indexes the plan can use (none unless filtering or cutting, or when switched
 * off). 0 or a status; x is then safe to plan_index_free. */
int plan_index_load(plan_build *b, plan_index *x, pq_err *e);
void plan_index_free(plan_build *b, plan_index *x);
/* The usable offset index of slot k in rg, or NULL. */
const pq_offset_index *plan_usable_oi(const plan_build *b, const plan_index *x, int rg, int k);
/* Rows [*a, *z) of page pg of an offset index over a row group of n rows. */
void plan_page_rows(const pq_offset_index *oi, int pg, int64_t n, int64_t *a, int64_t *z);
/* Rows of rg kept by the page indexes of every conjunct (rows->len 0 when none applies). */
int plan_page_prune(plan_build *b, plan_index *x, int rg, int64_t n, flt_mask *rows);
/* Counts the pages of the slots with an offset index and those rows rules out. */
void plan_count_pages(plan_build *b, plan_index *x, int rg, const flt_mask *rows,
                      int64_t *total, int64_t *pruned);

/* (plan_cut.c) Row boundaries cutting kept row group rg into splits of about b->cut_rows
 * rows: cuts[0] = 0 < ... < cuts[n] = rows, each inner cut the first row of a page of the
 * first needed column (pages of other columns may straddle it), or, without offset indexes
 * when the plan cuts for the cores, even (flat columns only; the task moves those to page
 * starts of the first needed column: task_window); a group cut for its nested slots' size
 * at its first nested slot's first leaf's page starts when that slot is first and every
 * nested leaf has an offset index (plan_nest_index), else evenly. Returns n >= 1 (*cuts
 * malloc'd), or -ENOMEM or a read's status (e filled). */
int plan_cuts(plan_build *b, plan_index *x, int rg, int64_t **cuts, pq_err *e);
/* A split of a row group cut without offset indexes (cut_even; flat columns: cp holds the
 * whole chunk): its data pages from the chunk's first one, walked from there with the
 * split's window starting row_lo rows in, and the dictionary page before them as a piece of
 * its own, so the group's splits share one decoded dictionary as they do in an indexed cut
 * group (task_pieces.c ensure_dict). 0 or -ENOMEM. */
int plan_pieces_cut_chunk(const scan_split *sp, const pq_chunk_meta *cm, scan_colplan *cp);

/* Moves the dynamic predicate's column index per row group out of x into p->dyn (none
 * without a dynamic predicate or index). 0 or -ENOMEM; plan_dyn_free frees what was kept. */
int plan_keep_dyn(plan_build *b, plan_index *x);
/* p->proj_first (plan.h) from p->proj_slot, in one pass (a scan per duplicate projection, per
 * batch, was O(n^2) for n names of one column). 0 or -ENOMEM. */
int plan_proj_first(scan_plan *p);
/* Nested slots (scan/plan_nested.c): the slot of projection j (plan_proj_slot: its column's,
 * or one of its own for a nested node another slot of that leaf does not hold; slot_of: the
 * column's first slot, -1 none yet); p->slot_node from the projection's nodes (NULL: each
 * nested slot its top-level field); and the whole-chunk pieces of slot k of split sp into cp
 * (a nested node: one per leaf). */
int plan_proj_slot(scan_plan *p, const int *proj, const int32_t *nodes, int nnodes, int j,
                   int *slot_of);
int plan_choose_nodes(scan_plan *p, const int32_t *nodes, int nnodes); /* 0 or -ENOMEM */
int plan_whole_chunks(plan_build *b, const scan_split *sp, int k, scan_colplan *cp, pq_err *e);
void plan_dyn_free(scan_plan *p);
/* The offset indexes of every leaf of row group rg's nested slots, read and checked against
 * their chunks, kept in p->nest_index for the pieces (plan_whole_chunks points a cut
 * group's nested leaves at them): 1 when every one is usable, 0 when one is not or the page
 * index is switched off (none is kept then: the group's splits decode from the chunk's
 * start, and no core steals them), or -ENOMEM or a read's status (e filled). */
int plan_nest_index(plan_build *b, int rg, pq_err *e);
/* The kept offset index of nested slot k's first leaf in rg, or NULL (a flat slot, none). */
const pq_offset_index *plan_nest_first_index(const scan_plan *p, int rg, int k);
void plan_nest_index_free(scan_plan *p);

#endif
