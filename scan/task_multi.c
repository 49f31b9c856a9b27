/* scan/task_multi.c: a conjunct over several columns (filter/expr.h invariant 8) in the split
 * task's chain, and the message of a conjunct's evaluation error.
 *
 * Every column's reads are wanted before any is awaited (they coalesce). When the mask
 * reaching the conjunct keeps under an eighth of the split's rows, the conjunct runs on those
 * rows alone: a column no later step reads is decoded straight into its selected rows
 * (task_decode_compacted: a dictionary column gathers only them), one already decoded is cut
 * to them, the conjunct is evaluated on the short vectors, and its result bits are put back at
 * the rows' places. expr_arith's `l_extendedprice * (1 - l_discount) * (1 + l_tax) > 100000`
 * after its implied `l_extendedprice > 92592.59` (filter/vexpr_imply.c) reaches 0.8% of the
 * rows, and its four dictionary columns were gathered whole for them. Otherwise the columns
 * are decoded whole (task_load_slot), as before.
 *
 * Invariants:
 *  1. Either way x->tmp ends as x->mask AND the conjunct, of the mask's length: the short
 *     path evaluates exactly the rows the mask selects, in their order, and sets the bit of
 *     row idx[i] for short row i that passes.
 *  2. The short path decodes a column into its own vector only when no projection, sort key or
 *     other conjunct reads the slot (so releasing its reads loses nothing) and it is flat and
 *     appears once in the conjunct; a slot decoded whole is only read. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "filter/kernel.h"
#include "scan/task.h"

/* Under one row in this many selected, a conjunct over several columns runs on those rows. */
enum { MULTI_SHORT_BELOW = 8 };

int task_eval_error(scan_task *x, int k, int rc)
{
    if (rc != -ERANGE) return pq_errf(&x->err, rc, -1, "cannot evaluate conjunct %d", k + 1);
    char text[256];
    flt_pred_print(&x->plan->filter->preds[k], text, sizeof text);
    return pq_errf(&x->err, rc, -1, "conjunct %d (%s): a value is out of range of its type",
                   k + 1, text);
}

/* Whether slot is read by conjunct k alone, once, and is flat (invariant 2). */
static bool only_here(const scan_plan *p, int k, int slot)
{
    if (p->slot_node[slot] >= 0) return false;
    for (int j = 0; j < p->nproj; j++)
        if (p->proj_slot[j] == slot) return false;
    for (int q = 0; q < p->npreds; q++) {
        int n, seen = 0;
        const int *slots = scan_plan_pred_slots(p, q, &n);
        for (int s = 0; s < n; s++) seen += slots[s] == slot;
        if (seen > (q == k ? 1 : 0)) return false;
    }
    return true;
}

/* Whether the short path may take conjunct k's slots (invariant 2). */
static bool short_ok(const scan_task *x, int k, const int *slots, int n)
{
    for (int s = 0; s < n; s++) {
        int slot = slots[s];
        if (x->decoded[slot] ? x->compacted[slot] : !only_here(x->plan, k, slot)) return false;
    }
    return true;
}

/* Conjunct k on the sel rows idx[] of the mask: short vectors, then the bits put back. */
static int eval_short(scan_task *x, int k, const int *slots, int n, const uint32_t *idx,
                      int64_t sel)
{
    pq_vec own[FLT_MAX_MULTI_COLS];
    const pq_vec *vecs[FLT_MAX_MULTI_COLS];
    flt_mask got = {0};
    int made = 0, rc = 0;
    for (int s = 0; rc == 0 && s < n; s++, made++) {
        const pq_vec *full = &x->vecs[slots[s]];
        if (x->decoded[slots[s]]) {
            pq_vec_init(&own[s], full->type, full->type_length);
            rc = pq_vec_take(full, idx, sel, &own[s]);
        } else {
            rc = task_decode_compacted(x, slots[s], &own[s]);
        }
        vecs[s] = &own[s];
        assert(rc != 0 || own[s].length == sel);
    }
    if (rc == 0) {
        rc = flt_eval_multi(&x->plan->filter->preds[k], vecs, NULL, &got);
        if (rc) rc = task_eval_error(x, k, rc);
    }
    if (rc == 0) rc = flt_mask_init(&x->tmp, x->mask.len, false);
    for (int64_t i = 0; rc == 0 && i < sel; i++)
        if (flt_mask_get(&got, i)) flt_mask_set(&x->tmp, idx[i]);
    flt_mask_free(&got);
    for (int s = 0; s < made; s++) pq_vec_free(&own[s]);
    return rc;
}

int task_eval_multi(scan_task *x, int k)
{
    const scan_plan *plan = x->plan;
    int n;
    const int *slots = scan_plan_pred_slots(plan, k, &n);
    assert(n <= FLT_MAX_MULTI_COLS);
    for (int s = 0; s < n; s++) {
        if (x->decoded[slots[s]]) continue;
        task_drop_excluded_pages(x, slots[s]);
        task_want_slot(x, slots[s]);
    }
    int64_t sel = flt_mask_popcount(&x->mask);
    if (sel == 0) return flt_mask_init(&x->tmp, x->mask.len, false); /* nothing to evaluate */
    if (sel * MULTI_SHORT_BELOW < x->mask.len && x->nmrows < 0 && short_ok(x, k, slots, n)) {
        uint32_t *idx = fail_malloc(sizeof *idx * (size_t)(sel + 8));
        if (!idx) return -ENOMEM;
        int64_t got = flt_mask_select(&x->mask, idx, sel + 8); /* (room: its wide path) */
        assert(got == sel);
        int rc = eval_short(x, k, slots, n, idx, got);
        free(idx);
        return rc;
    }
    const pq_vec *vecs[FLT_MAX_MULTI_COLS];
    for (int s = 0; s < n; s++) {
        int rc = task_load_slot(x, slots[s]);
        if (rc) return rc;
        vecs[s] = &x->vecs[slots[s]];
    }
    int rc = flt_eval_multi(&plan->filter->preds[k], vecs, &x->mask, &x->tmp);
    return rc ? task_eval_error(x, k, rc) : 0;
}
