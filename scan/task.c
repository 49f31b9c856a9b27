/* scan/task.c: the split task.
 *
 * Before awaiting anything the task registers, as io/ futures, every read the split may
 * need: for each conjunct in the snapshot order its column's pieces, then the projection
 * columns' pieces. The submission policy decides which of them are wanted at once (eager:
 * all; lazy: none; adaptive: the positions whose input mask was rarely all-false so far), so
 * the I/O layer coalesces everything wanted together. The chain then runs in order: conjunct
 * k wants its pieces (if not yet), awaits them, decodes, evaluates against mask k-1. When a
 * mask is all-false every remaining future is released: unsubmitted reads vanish, in-flight
 * ones are cancelled, nothing more is decoded, and the projection is never read. With page
 * pieces, a page whose rows are all false in the current mask is released the same way
 * before its conjunct or the projection wants it.
 *
 * This is the architecture's chain of mask futures written as one coroutine: mask k is the
 * value the coroutine holds after conjunct k, and "resolved all-false" is the early exit. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "common/status.h"
#include "filter/kernel.h"
#include "scan/task.h"

/* Applies the submission policy to the freshly registered futures. */
static void apply_policy(scan_task *x)
{
    scan_policy_wanted(x->env->pol, x->perm, x->wanted);
    for (int k = 0; k < x->plan->nneed; k++)
        if (x->wanted[k]) task_want_slot(x, k);
}

/* Reaching chain position pos with rows left: wants the reads of the step the policy starts
 * there (scan_policy_wanted_from), so the positions after it come in the same round trip. */
static void want_step(scan_task *x, int pos)
{
    if (!scan_policy_wanted_from(x->env->pol, x->perm, pos, x->wanted)) return;
    for (int k = 0; k < x->plan->nneed; k++)
        if (x->wanted[k] && !x->decoded[k]) task_want_slot(x, k);
}

/* ------------------------------------------------------------------------ the chain */

/* The bytes split i reads for conjunct k's columns. */
static uint64_t conj_bytes(const scan_plan *plan, int i, int k)
{
    int n;
    const int *slots = scan_plan_pred_slots(plan, k, &n);
    uint64_t b = 0;
    for (int s = 0; s < n; s++) b += scan_plan_slot_bytes(plan, i, slots[s]);
    return b;
}

/* Runs conjunct perm[pos]; narrows x->mask. */
static int run_conjunct(scan_task *x, int pos)
{
    const scan_plan *plan = x->plan;
    int k = x->perm[pos];
    int slot = plan->pred_slot[k];
    uint64_t t0 = exec_now_ns(), waited = x->wait_ns;
    int64_t rows_in = flt_mask_popcount(&x->mask);
    int rc;
    if (plan->filter->preds[k].multi) {
        rc = task_eval_multi(x, k);
        if (rc) return rc;
    } else if (task_pageable(x, k)) {
        rc = task_eval_paged(x, k);
        if (rc) return rc;
    } else {
        rc = task_load_slot(x, slot);
        if (rc) return rc;
        rc = flt_eval(&plan->filter->preds[k], &x->vecs[slot], &x->mask, &x->tmp);
        if (rc) return task_eval_error(x, k, rc);
    }
    flt_mask swap = x->mask;
    x->mask = x->tmp;
    x->tmp = swap;
    int64_t rows_out = flt_mask_popcount(&x->mask);
    uint64_t ns = exec_now_ns() - t0 - (x->wait_ns - waited); /* (its work, not its waits) */
    scan_policy_measure(x->env->pol, k, rows_in, rows_out, ns, conj_bytes(plan, x->index, k));
    return 0;
}

/* dst (initialised here) = src rows idx[0..n). 0, RINGSCAN_ELIMIT or -ENOMEM. */
static int take_rows(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    pq_vec_init(dst, src->type, src->type_length);
    return pq_vec_take(src, idx, n, dst);
}

/* Hands vector v to the batch: moved when it already holds exactly the output rows (compacted,
 * or every row selected) and no earlier projection entry took it, else the selected rows are
 * copied. */
static int project_one(scan_task *x, int slot, const uint32_t *idx, int64_t n, bool *moved,
                       pq_vec *dst)
{
    pq_vec *v = &x->vecs[slot];
    bool exact = x->compacted[slot] || n == v->length;
    if (exact && !moved[slot]) {
        *dst = *v;
        pq_vec_init(v, v->type, v->type_length); /* the batch owns the buffers now */
        moved[slot] = true;
        return 0;
    }
    if (!moved[slot]) return take_rows(v, idx, n, dst);
    return -EALREADY; /* filled by the caller from the first entry */
}

/* Builds the batch from the projected columns (selected rows only); pos (owned from here:
 * freed with the batch) is a Top-K split's row positions. */
static int project(scan_task *x, scan_batch *b, int64_t *pos)
{
    const scan_plan *plan = x->plan;
    int64_t n = flt_mask_popcount(&x->mask);
    b->cols = fail_calloc((size_t)plan->nproj, sizeof *b->cols);
    uint32_t *idx = fail_malloc(sizeof(uint32_t) * (size_t)(n + 1));
    bool *moved = fail_calloc((size_t)plan->nneed, sizeof(bool));
    b->pos = pos;
    if (x->nbad > 0) b->bad = x->bad, x->bad = NULL; /* one entry per row: keys_mark's n */
    int rc = b->cols && idx && moved ? 0 : -ENOMEM;
    if (rc == 0) {
        b->ncols = plan->nproj;
        b->rows = n;
    }
    /* the index list only once a vector needs its rows taken: not when every row is selected
     * or every projected vector was decoded compacted (a projection-only column) */
    bool have_idx = n == x->nrows;
    for (int j = 0; rc == 0 && j < plan->nproj; j++) {
        pq_vec dict;
        int slot = plan->proj_slot[j];
        if (task_dictout_take(x, slot, &b->cols[j], &dict)) { /* indices */
            if (b->cols[j].length > n) pq_vec_cut(&b->cols[j], n); /* (keys_cut's rows) */
            rc = scan_batch_set_dict(b, j, &dict);
            continue;
        }
        if (!have_idx && !x->compacted[slot] && x->vecs[slot].length != n) {
            int64_t got = flt_mask_select(&x->mask, idx, n);
            assert(got == n);
            (void)got;
            have_idx = true;
        }
        rc = project_one(x, slot, idx, n, moved, &b->cols[j]);
        if (rc == -EALREADY) { /* the same column projected twice: copy the first entry */
            int first = plan->proj_first[j];
            assert(first < j && plan->proj_slot[first] == plan->proj_slot[j]);
            uint32_t *all = fail_malloc(sizeof(uint32_t) * (size_t)(n + 1));
            for (int64_t i = 0; all && i < n; i++) all[i] = (uint32_t)i;
            rc = all ? take_rows(&b->cols[first], all, n, &b->cols[j]) : -ENOMEM;
            free(all);
        }
    }
    free(idx);
    free(moved);
    return rc;
}

/* A nested slot's rows end before the split's kept row x->keys_row, whose map key is null
 * (task_nested.c keys_check): the mask keeps the rows before it and every vector holding
 * only kept rows (compacted: a projection-only column's, an evaluated one's, a nested one's)
 * is cut to those, so the batch stops before that row (a dictionary slot's indices are cut
 * in project). Runs once every projected slot is loaded. 0 or -ENOMEM. */
static int keys_cut(scan_task *x)
{
    int64_t r = x->keys_row, n = flt_mask_popcount(&x->mask);
    if (r < 0) return 0;
    assert(r < n);
    uint32_t *rows = task_sel(x, r + 1);
    if (!rows) return -ENOMEM;
    int64_t got = flt_mask_select(&x->mask, rows, r + 1);
    assert(got == n); /* (it counts every selected row, writes the first r + 1) */
    (void)got;
    flt_mask_set_range(&x->mask, rows[r], x->mask.len, false);
    for (int slot = 0; slot < x->plan->nneed; slot++)
        if (x->decoded[slot] && x->compacted[slot] && x->vecs[slot].length > r)
            pq_vec_cut(&x->vecs[slot], r);
    assert(flt_mask_popcount(&x->mask) == r);
    return 0;
}

/* Under a limit of L rows, a split's rows past its first L kept ones are never output (the
 * output takes L rows in all, in either order): the final mask drops them, so the projection
 * reads, decodes and builds none of them (x->capped: a nested slot stops decoding at the
 * last kept row, task_nested.c). 0 or -ENOMEM. */
static int cap_rows(scan_task *x)
{
    int64_t lim = x->env->limit;
    if (lim < 0 || flt_mask_popcount(&x->mask) <= lim) return 0;
    uint32_t *rows = task_sel(x, lim + 1);
    if (!rows) return -ENOMEM;
    int64_t got = flt_mask_select(&x->mask, rows, lim + 1);
    assert(got > lim); /* (it counts every selected row, writes the first lim + 1) */
    (void)got;
    flt_mask_set_range(&x->mask, rows[lim], x->mask.len, false);
    assert(flt_mask_popcount(&x->mask) == lim);
    x->capped = true;
    return 0;
}

/* Whether the split's rows are no longer needed: the scan stops, or the limit's rows are
 * produced by others. */
static bool task_bail(const scan_task *x)
{
    return atomic_load(x->env->stop) || (x->env->enough && atomic_load(x->env->enough));
}

/* The chain, then the projection gated on the final mask. */
static int run_chain(scan_task *x, scan_batch *b)
{
    const scan_plan *plan = x->plan;
    bool all_false = false;
    for (int pos = 0; pos < plan->npreds; pos++) {
        int rc = task_topk_pages(x); /* the bound may have tightened while this split waited */
        if (rc) return rc;
        all_false = flt_mask_all_false(&x->mask);
        if (all_false || task_bail(x)) break;
        if (pos > 0) want_step(x, pos);
        rc = run_conjunct(x, pos);
        if (rc) return rc;
        scan_policy_note(x->env->pol, x->perm[pos], flt_mask_all_false(&x->mask));
    }
    int rc0 = all_false ? 0 : cap_rows(x);
    if (rc0) return rc0;
    all_false = all_false || flt_mask_all_false(&x->mask);
    if (all_false || task_bail(x)) {
        if (all_false) atomic_fetch_add_explicit(&x->env->cnt->splits_all_false, 1, memory_order_relaxed);
        return 0; /* everything still registered is released by the caller */
    }
    int64_t *pos = NULL;
    if (x->env->topk) { /* late materialisation: the projection reads only the best K rows */
        int rc = task_topk_pages(x);
        if (rc == 0) rc = task_topk_select(x, &pos);
        if (rc || flt_mask_all_false(&x->mask)) {
            free(pos);
            return rc;
        }
    }
    /* the projection is one phase: drop excluded pages, then want every remaining read of
     * every projected column before awaiting any, so they coalesce (lazy too) */
    for (int j = 0; j < plan->nproj; j++)
        if (!x->decoded[plan->proj_slot[j]]) task_drop_excluded_pages(x, plan->proj_slot[j]);
    for (int j = 0; j < plan->nproj; j++)
        if (!x->decoded[plan->proj_slot[j]]) task_want_slot(x, plan->proj_slot[j]);
    /* the mask is final until project(); every row kept: the columns are read whole */
    int rc = flt_mask_all_true(&x->mask) ? 0 : task_mask_rows(x);
    bool bail = false;
    for (int j = 0; rc == 0 && !bail && j < plan->nproj; j++) {
        int slot = plan->proj_slot[j];
        bool dict = x->env->dict_slot && x->env->dict_slot[slot] && !x->decoded[slot];
        rc = dict ? task_dictout_load(x, slot) : task_load_projected(x, slot);
        if (exec_inbox_waiting()) exec_yield(); /* a lend: its thief waits for this core */
        bail = task_bail(x); /* after the yield: a cancel meanwhile loads no other column */
    }
    task_mask_rows_drop(x);
    if (rc == 0 && !bail) rc = task_narrow_evaluated(x);
    if (rc == 0 && !bail) rc = keys_cut(x);
    if (rc || bail) {
        free(pos);
        return rc;
    }
    return project(x, b, pos);
}

static int ctx_init(scan_task *x, const scan_task_env *env, scan_task_core *tc, int core, int i,
                    int unit)
{
    const scan_plan *plan = env->plan;
    *x = (scan_task){.env = env, .plan = plan, .fx = env->fx, .tc = tc, .core = core, .index = i,
                     .sp = &plan->splits[i], .unit = unit, .nmrows = -1, .keys_row = -1,
                     .err = {.offset = -1}};
    x->row_lo = x->sp->row_lo, x->nrows = x->sp->nrows; /* until task_window */
    x->by_unit = env->fx->units[unit].shared;
    x->futs = fail_calloc((size_t)plan->nneed, sizeof *x->futs);
    x->vecs = tc->nvecsets > 0 ? tc->vecsets[--tc->nvecsets] : fail_calloc((size_t)plan->nneed, sizeof *x->vecs);
    x->decoded = fail_calloc((size_t)plan->nneed, sizeof *x->decoded);
    x->compacted = fail_calloc((size_t)plan->nneed, sizeof *x->compacted);
    x->evaluated = fail_calloc((size_t)plan->nneed, sizeof *x->evaluated);
    x->after = fail_calloc((size_t)plan->nneed, sizeof *x->after);
    x->wanted = fail_calloc((size_t)plan->nneed, sizeof *x->wanted);
    if (!x->futs || !x->vecs || !x->decoded || !x->compacted || !x->evaluated || !x->after ||
        !x->wanted)
        return -ENOMEM;
    for (int k = 0; k < plan->nneed; k++) {
        const pq_column_desc *d = &plan->f->meta.columns[plan->need[k]];
        pq_vec *v = &x->vecs[k];
        /* a nested field rides as packed BYTE_ARRAY rows (format/column_nested.h) */
        pq_physical t = d->nested ? PQ_BYTE_ARRAY : d->physical;
        int32_t tl = t == PQ_FIXED_LEN_BYTE_ARRAY ? d->type_length : 0;
        if (v->values_cap + v->offsets_cap + v->validity_cap + v->data_cap == 0 && !v->cols)
            pq_vec_init(v, t, tl); /* a fresh set (a reused one may hold only built columns) */
        assert(v->type == t && v->type_length == tl);
        pq_vec_clear(v);
    }
    scan_policy_order(env->pol, i, x->perm);
    return 0;
}

/* The split's mask over its window (task_window), all rows or those page indexes kept. */
static int mask_init(scan_task *x)
{
    if (!x->sp->rows0.len) return flt_mask_init(&x->mask, x->nrows, true);
    assert(x->nrows == x->sp->nrows); /* page indexes: a window the plan cut at page starts */
    return flt_mask_copy(&x->mask, &x->sp->rows0);
}

static void ctx_free(scan_task *x)
{
    const scan_plan *plan = x->plan;
    for (int k = 0; x->futs && k < plan->nneed; k++) {
        if (x->futs[k]) task_discard_slot(x, k);
        free(x->futs[k]);
    }
    /* under a fetch budget idle sets sit outside it: a core keeps one (a local scan keeps one
       per task, so a split does not fault in fresh memory) */
    const scan_budget *bg = &x->fx->budget;
    int keep = bg->base < bg->tasks ? 1 : SCAN_TASKS_PER_CORE;
    x->tc->last_work = 0;
    for (int k = 0; x->vecs && k < plan->nneed; k++) {
        const pq_vec *v = &x->vecs[k];
        x->tc->last_work += (uint64_t)v->validity_cap + (uint64_t)v->values_cap +
                            (uint64_t)v->offsets_cap * sizeof(int32_t) + (uint64_t)v->data_cap;
    }
    if (x->vecs && x->tc->nvecsets < keep) {
        x->tc->vecsets[x->tc->nvecsets++] = x->vecs; /* keep the buffers for the next split */
    } else if (x->vecs) {
        for (int k = 0; k < plan->nneed; k++) pq_vec_free(&x->vecs[k]);
        free(x->vecs);
    }
    free(x->futs);
    free(x->decoded);
    free(x->compacted);
    free(x->evaluated);
    for (int k = 0; x->after && k < plan->nneed; k++) flt_mask_free(&x->after[k]);
    free(x->after);
    free(x->wanted);
    free(x->sel);
    free(x->mrows);
    free(x->bad);
    task_dictout_free(x);
    flt_mask_free(&x->mask);
    flt_mask_free(&x->tmp);
}

int scan_task_run(const scan_task_env *env, scan_task_core *tc, int core, int i, int unit,
                  scan_batch *b, bool *cut, pq_err *e)
{
    const scan_plan *plan = env->plan;
    assert(i >= 0 && i < plan->nsplits && core == exec_core_index(exec_current()));
    *b = (scan_batch){.split = i, .row_group = plan->splits[i].rg};
    *cut = false;
    if (plan->splits[i].pruned) return 0;
    scan_dicts_leader(env->dicts, i, SCAN_LEADER_RUNNING);
    scan_task x;
    int rc = ctx_init(&x, env, tc, core, i, unit);
    if (rc == 0) rc = task_register_all(&x);
    /* the Top-K bound beats every row: its statistics (before any read) or its pages */
    bool dead = rc == 0 && task_topk_dead(&x);
    bool moves = rc == 0 && !dead && task_window_moves(&x);
    if (moves) {
        apply_policy(&x); /* before the window's read, so the wanted reads go out together */
        rc = task_window(&x);
    }
    bool empty = rc == 0 && !dead && x.nrows == 0; /* an evenly cut group's page was elsewhere */
    if (rc == 0 && !dead && !empty) rc = mask_init(&x);
    if (rc == 0 && !dead && !empty && env->topk) {
        rc = task_topk_pages(&x);
        dead = rc == 0 && flt_mask_all_false(&x.mask);
    }
    if (rc == 0 && dead) {
        /* what it registered is released unsent below */
        atomic_fetch_add_explicit(&env->topk->splits_dead, 1, memory_order_relaxed);
    } else if (rc == 0 && !empty) {
        if (!moves) apply_policy(&x);
        atomic_fetch_add_explicit(&env->cnt->rows_scanned, x.nrows, memory_order_relaxed);
        atomic_fetch_add_explicit(&tc->rows_scanned, x.nrows, memory_order_relaxed);
        rc = run_chain(&x, b);
    }
    char lost[sizeof x.err.msg];
    if (io_file_faulted(plan->f->file, lost, sizeof lost)) /* its bytes may be zeros */
        rc = pq_errf(&x.err, -EIO, -1, "%s", lost);
    if (rc) {
        *e = x.err;
        if (e->status == 0) pq_errf(e, rc, -1, "%s", status_text(rc));
        scan_batch_free(b);
        b->split = i;
    } else if (x.keys_row >= 0) { /* (the rows before a null map key: keys_cut) */
        assert(env->keys_defer && x.keys_err.status != 0);
        *e = x.keys_err, *cut = true;
    }
    ctx_free(&x);
    scan_dicts_leader(env->dicts, i, SCAN_LEADER_ENDED);
    scan_dicts_split_end(env->dicts, i);
    return rc;
}

int scan_task_core_init(scan_task_core *tc, const scan_task_env *env, const pq_col_limits *lim)
{
    const scan_plan *plan = env->plan;
    if (tc->readers) return 0;
    tc->readers = fail_calloc((size_t)plan->nneed, sizeof *tc->readers);
    if (!tc->readers) return -ENOMEM;
    for (int k = 0; k < plan->nneed; k++) {
        const pq_column_desc *d = &plan->f->meta.columns[plan->need[k]];
        pq_colr_init(&tc->readers[k], d, PQ_CODEC_UNCOMPRESSED, lim);
        tc->readers[k].scan_decompressed = &env->cnt->decompressed_bytes;
    }
    return 0;
}

int64_t scan_task_core_free(scan_task_core *tc, const scan_task_env *env)
{
    int64_t pages = 0;
    scan_task_core_windows_free(tc, env->plan->nneed);
    for (int k = 0; tc->readers && k < env->plan->nneed; k++) {
        pages += tc->readers[k].pages_decoded;
        pq_colr_free(&tc->readers[k]);
    }
    free(tc->readers);
    tc->readers = NULL;
    for (int i = 0; i < tc->nvecsets; i++) {
        for (int k = 0; k < env->plan->nneed; k++) pq_vec_free(&tc->vecsets[i][k]);
        free(tc->vecsets[i]);
    }
    tc->nvecsets = 0;
    return pages;
}
