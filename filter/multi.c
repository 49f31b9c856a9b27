/* filter/multi.c: predicates over several columns (expr.h invariant 8): evaluation as an OR
 * of items, comparisons of two columns, and their pruning from row-group statistics.
 *
 * Invariants:
 *  1. Each item is evaluated only on the rows no earlier item passed (in AND NOT out), so a
 *     late item of a wide OR touches few rows, and the loop ends once every row passed.
 *  2. A comparison of two columns passes a row only when both values are valid (a part of a
 *     date, when its one value is); values are
 *     read once per row through a switch on the physical type that takes the same branch
 *     for every row of a vector; the operator is a table lookup on the three-way result
 *     (two INT32 or two INT64 vectors in a signed domain: 64 rows at a time with boolean
 *     operations, unselected rows masked off after).
 *  3. Pruning is sound: a group is ruled out only when every item is, and an item comparing
 *     two columns is ruled out only from both columns' usable min/max (never on floats,
 *     whose statistics omit NaN); one comparing value expressions, from their intervals
 *     (vexpr.h); a month / quarter only when the group's dates lie in one year, a day only
 *     when they lie in one month. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "filter/kernel.h"
#include "filter/kernel_int.h"
#include "filter/prune.h"
#include "filter/vexpr.h"

/* ---- comparing two columns ------------------------------------------------------------- */

static int64_t int_at(const pq_vec *v, int64_t i)
{
    return v->type == PQ_BOOLEAN ? pq_bit_get(v->values, i) : pq_vec_int_at(v, i);
}

static double float_at(const pq_vec *v, int64_t i)
{
    if (v->type == PQ_FLOAT) {
        float x;
        memcpy(&x, v->values + 4 * i, 4);
        return x;
    }
    double x;
    memcpy(&x, v->values + 8 * i, 8);
    return x;
}

static const uint8_t *bytes_at(const pq_vec *v, int64_t i, int32_t *len)
{
    if (v->type == PQ_BYTE_ARRAY) {
        *len = v->offsets[i + 1] - v->offsets[i];
        return v->data ? v->data + v->offsets[i] : (const uint8_t *)"";
    }
    *len = pq_fixed_width(v->type, v->type_length);
    return v->values + (int64_t)*len * i;
}

/* NaN equals NaN and is above every number (kernel.h invariant 2). */
static int cmp_float(double x, double y)
{
    if (x != x || y != y) return (x != x) - (y != y);
    return (x > y) - (x < y);
}

static int cmp_rows(flt_domain dom, const pq_vec *a, const pq_vec *b, int64_t i)
{
    switch (dom) {
    case FLT_DOM_U64: {
        uint64_t x = (uint64_t)int_at(a, i), y = (uint64_t)int_at(b, i);
        return (x > y) - (x < y);
    }
    case FLT_DOM_F32:
    case FLT_DOM_F64: return cmp_float(float_at(a, i), float_at(b, i));
    case FLT_DOM_BYTES:
    case FLT_DOM_SDEC: {
        int32_t la, lb;
        const uint8_t *x = bytes_at(a, i, &la), *y = bytes_at(b, i, &lb);
        return dom == FLT_DOM_SDEC ? flt_cmp_sdec(x, la, y, lb) : flt_cmp_bytes(x, la, y, lb);
    }
    default: {
        int64_t x = int_at(a, i), y = int_at(b, i);
        return (x > y) - (x < y);
    }
    }
}

/* Whether op holds for each three-way result -1, 0, 1. */
static const bool op_table[6][3] = {
    [FLT_OP_EQ] = {0, 1, 0}, [FLT_OP_NE] = {1, 0, 1}, [FLT_OP_LT] = {1, 0, 0},
    [FLT_OP_LE] = {1, 1, 0}, [FLT_OP_GT] = {0, 0, 1}, [FLT_OP_GE] = {0, 1, 1},
};

/* Rows [i, i + m) (m <= 64) of a op b, both INT32 or both INT64 read as signed, as the bits of
 * a word, op given by its three-way outcomes (0 or 1 each): boolean operations in place of
 * the per-row lookup, so the loop vectorizes (the lookup per selected row was most of
 * expr_cols' `l_receiptdate > l_commitdate`, bench/RESULTS.md's twentieth session). */
/* Row j of a w-byte (4 or 8) signed integer array, sign-extended. */
static inline int64_t int_w(const uint8_t *p, int j, int w)
{
    if (w == 4) {
        int32_t x;
        memcpy(&x, p + 4 * j, 4);
        return x;
    }
    int64_t x;
    memcpy(&x, p + 8 * j, 8);
    return x;
}

/* cmp_word_int's loop over w-byte values (w a constant where inlined). */
static inline uint64_t cmp_word_w(const uint8_t *pa, const uint8_t *pb, int m, int w,
                                  uint64_t lt, uint64_t eq, uint64_t gt)
{
    uint64_t r = 0;
    for (int j = 0; j < m; j++) {
        int64_t x = int_w(pa, j, w), y = int_w(pb, j, w);
        r |= (((uint64_t)(x < y) & lt) | ((uint64_t)(x == y) & eq) | ((uint64_t)(x > y) & gt)) << j;
    }
    return r;
}

static uint64_t cmp_word_int(const pq_vec *a, const pq_vec *b, int64_t i, int m, const bool *want)
{
    assert(m >= 0 && m <= 64 && a->type == b->type);
    if (a->type == PQ_INT32)
        return cmp_word_w(a->values + 4 * i, b->values + 4 * i, m, 4, want[0], want[1], want[2]);
    return cmp_word_w(a->values + 8 * i, b->values + 8 * i, m, 8, want[0], want[1], want[2]);
}

/* out = rows of rest where a op b (both valid). */
static void eval_cmp(flt_domain dom, flt_op op, const pq_vec *a, const pq_vec *b,
                     const flt_mask *rest, flt_mask *out)
{
    assert(op <= FLT_OP_GE && a->length == b->length && rest->len == a->length);
    const bool *want = op_table[op];
    int64_t n = a->length, nw = flt_mask_nwords(n);
    const uint8_t *va = flt_validity(a), *vb = flt_validity(b);
    /* the signed integer domains read both sides as int_at does: a word at a time */
    bool words = (dom == FLT_DOM_I32 || dom == FLT_DOM_I64) && a->type == b->type &&
                 (a->type == PQ_INT32 || a->type == PQ_INT64);
    for (int64_t w = 0; w < nw; w++) {
        uint64_t sel = rest->words[w] & flt_load_word(va, n, w) & flt_load_word(vb, n, w), r = 0;
        if (words && sel) {
            int m = n - (w << 6) < 64 ? (int)(n - (w << 6)) : 64;
            out->words[w] = cmp_word_int(a, b, w << 6, m, want) & sel;
            continue;
        }
        for (; sel; sel &= sel - 1) {
            int j = __builtin_ctzll(sel);
            r |= (uint64_t)want[cmp_rows(dom, a, b, (w << 6) + j) + 1] << j;
        }
        out->words[w] = r;
    }
}

/* The day of x, a DATE (days) or a TIMESTAMP in its unit read as UTC (INT96: nanoseconds,
 * part_at), floored. */
static int64_t days_of(const pq_column_desc *d, int64_t x)
{
    int64_t per_day = d->logical == PQ_LOGICAL_TIMESTAMP_MILLIS ? 86400000
                      : d->logical == PQ_LOGICAL_TIMESTAMP_MICROS ? 86400000000
                      : d->logical == PQ_LOGICAL_TIMESTAMP_NANOS || d->physical == PQ_INT96
                          ? 86400000000000
                          : 1;
    return x / per_day - (x % per_day < 0);
}

/* The month, day or quarter of a day number. */
static int64_t part_of_day(int64_t days, int32_t part)
{
    int64_t y, m, dd;
    flt_civil_from_days(days, &y, &m, &dd);
    return part == FLT_PART_MONTH ? m : part == FLT_PART_DAY ? dd : (m - 1) / 3 + 1;
}

/* The month, day or quarter of row i's date (DATE days, or a TIMESTAMP in its unit as UTC;
 * INT96 as its nanoseconds, pq_int96_nanos). */
static int64_t part_at(const pq_column_desc *d, const pq_vec *v, int64_t i, int32_t part)
{
    int64_t x = d->physical == PQ_INT96 ? pq_int96_nanos(v->values + 12 * i) : int_at(v, i);
    return part_of_day(days_of(d, x), part);
}

/* out = rows of rest where part(a) op c->v (a valid). */
static void eval_part(const flt_multi *m, const flt_cmp *c, const pq_vec *a, const flt_mask *rest,
                      flt_mask *out)
{
    const pq_column_desc *d = &m->schema[m->cols[c->a]];
    const bool *want = op_table[c->op];
    int64_t n = a->length, nw = flt_mask_nwords(n);
    const uint8_t *va = flt_validity(a);
    for (int64_t w = 0; w < nw; w++) {
        uint64_t sel = rest->words[w] & flt_load_word(va, n, w), r = 0;
        for (; sel; sel &= sel - 1) {
            int j = __builtin_ctzll(sel);
            int64_t x = part_at(d, a, (w << 6) + j, c->part);
            r |= (uint64_t)want[(x > c->v) - (x < c->v) + 1] << j;
        }
        out->words[w] = r;
    }
}

/* The domain both columns of a comparison are read in (flt_parse allowed the pair). */
static flt_domain cmp_domain(const flt_multi *m, const flt_cmp *c)
{
    flt_domain x = m->doms[c->a], y = m->doms[c->b];
    if (x == y) return x;
    if (x == FLT_DOM_F32 || x == FLT_DOM_F64) return FLT_DOM_F64;
    return FLT_DOM_I64; /* I32 / U32 / I64 mixed: exact in int64 */
}

int flt_eval_multi(const flt_pred *p, const pq_vec *const *vecs, const flt_mask *in,
                   flt_mask *out)
{
    const flt_multi *m = p->multi;
    assert(m && m->nitems > 0 && vecs);
    int64_t n = vecs[0]->length;
    for (int32_t i = 1; i < m->ncols; i++)
        if (vecs[i]->length != n) return -EINVAL;
    flt_mask rest = {0}, got = {0};
    int rc = in ? flt_mask_copy(&rest, in) : flt_mask_init(&rest, n, true);
    if (rc == 0) rc = flt_mask_init(out, n, false);
    if (rc == 0) rc = flt_mask_init(&got, n, false);
    for (int32_t k = 0; rc == 0 && k < m->nitems && !flt_mask_all_false(&rest); k++) {
        const flt_item *it = &m->items[k];
        if (it->is_cmp && it->cmp.vl)
            rc = flt_v_eval(it->cmp.op, it->cmp.vl, it->cmp.vr, vecs, &rest, &got);
        else if (it->is_cmp && it->cmp.part) eval_part(m, &it->cmp, vecs[it->cmp.a], &rest, &got);
        else if (it->is_cmp) eval_cmp(cmp_domain(m, &it->cmp), it->cmp.op, vecs[it->cmp.a],
                                      vecs[it->cmp.b], &rest, &got);
        else rc = flt_eval(&it->pred, vecs[it->col], &rest, &got);
        if (rc) break;
        flt_mask_or(out, &got);
        flt_mask_andnot(&rest, &got);
    }
    flt_mask_free(&rest);
    flt_mask_free(&got);
    return rc;
}

/* ---- pruning --------------------------------------------------------------------------- */

/* Statistics bound (max when want_max) of column i of m in chunks, as its domain reads it
 * (integers of any width land in lit.i, so mixed widths compare as int64). */
static bool bound_of(const flt_multi *m, int32_t i, const pq_chunk_meta *chunks, bool want_max,
                     flt_lit *out)
{
    flt_pred one = {.column = m->cols[i], .desc = &m->schema[m->cols[i]], .dom = m->doms[i]};
    return flt_stats_value(&one, pq_chunk_stats(&chunks[m->cols[i]]), want_max, out);
}

/* part(a) op v from a's min/max: a part is monotone only within one year (month, quarter) or
 * one month (day), so only a group whose dates all lie there is ruled out. */
static flt_prune part_prune(const flt_multi *m, const flt_cmp *c, const pq_chunk_meta *chunks)
{
    const pq_column_desc *d = &m->schema[m->cols[c->a]];
    flt_lit lo, hi;
    if (d->physical == PQ_INT96) return FLT_CAN_MATCH; /* INT96 statistics: order undefined */
    if (!bound_of(m, c->a, chunks, false, &lo) || !bound_of(m, c->a, chunks, true, &hi))
        return FLT_CAN_MATCH;
    int64_t y1, m1, d1, y2, m2, d2, a = days_of(d, lo.i), b = days_of(d, hi.i);
    flt_civil_from_days(a, &y1, &m1, &d1), flt_civil_from_days(b, &y2, &m2, &d2);
    if (y1 != y2 || (c->part == FLT_PART_DAY && m1 != m2)) return FLT_CAN_MATCH;
    int64_t plo = part_of_day(a, c->part), phi = part_of_day(b, c->part);
    int hi_lo = (phi > c->v) - (phi < c->v), lo_hi = (plo > c->v) - (plo < c->v);
    return flt_ranges_exclude(c->op, hi_lo, lo_hi) ? FLT_CANNOT_MATCH : FLT_CAN_MATCH;
}

static flt_prune cmp_prune(const flt_multi *m, const flt_cmp *c, const pq_chunk_meta *chunks)
{
    if (c->vl) {
        const pq_stats *stats[FLT_MAX_MULTI_COLS];
        for (int32_t i = 0; i < m->ncols; i++) stats[i] = pq_chunk_stats(&chunks[m->cols[i]]);
        return flt_v_prune(c->op, c->vl, c->vr, m->schema, m->cols, stats);
    }
    if (c->part) return part_prune(m, c, chunks);
    flt_domain dom = cmp_domain(m, c);
    if (dom == FLT_DOM_F32 || dom == FLT_DOM_F64 || dom == FLT_DOM_INT96) return FLT_CAN_MATCH;
    flt_lit amin, amax, bmin, bmax;
    if (!bound_of(m, c->a, chunks, false, &amin) ||
        !bound_of(m, c->a, chunks, true, &amax) ||
        !bound_of(m, c->b, chunks, false, &bmin) ||
        !bound_of(m, c->b, chunks, true, &bmax))
        return FLT_CAN_MATCH;
    int hi_lo = flt_lit_cmp(dom, &amax, &bmin), lo_hi = flt_lit_cmp(dom, &amin, &bmax);
    return flt_ranges_exclude(c->op, hi_lo, lo_hi) ? FLT_CANNOT_MATCH : FLT_CAN_MATCH;
}

flt_prune flt_prune_group(const flt_pred *p, const pq_chunk_meta *chunks)
{
    assert(p && chunks);
    if (!p->multi) {
        const pq_chunk_meta *cm = &chunks[p->column];
        return flt_prune_stats(p, pq_chunk_stats(cm), cm->num_values);
    }
    const flt_multi *m = p->multi;
    bool all_none = true, any_all = false;
    for (int32_t k = 0; k < m->nitems; k++) {
        const flt_item *it = &m->items[k];
        const pq_chunk_meta *cm = it->is_cmp ? NULL : &chunks[m->cols[it->col]];
        flt_prune r = it->is_cmp ? cmp_prune(m, &it->cmp, chunks)
                                 : flt_prune_stats(&it->pred, pq_chunk_stats(cm), cm->num_values);
        all_none = all_none && r == FLT_CANNOT_MATCH;
        any_all = any_all || r == FLT_ALL_MATCH;
    }
    return all_none ? FLT_CANNOT_MATCH : any_all ? FLT_ALL_MATCH : FLT_CAN_MATCH;
}

flt_prune flt_prune_expr_group(const flt_expr *x, const pq_chunk_meta *chunks)
{
    assert(chunks);
    flt_prune v = FLT_ALL_MATCH;
    for (int32_t k = 0; x && k < x->npreds; k++) {
        flt_prune p = x->preds[k].dyn ? FLT_CAN_MATCH : flt_prune_group(&x->preds[k], chunks);
        if (p == FLT_CANNOT_MATCH) return p;
        if (p == FLT_CAN_MATCH) v = p;
    }
    return v;
}
