/* format/nest_take.c: rows of a nested field's built columns (vec.h invariant 6,
 * pq_nest_cols) taken and cut, for what moves a split's rows on after it is decoded: a
 * dataset's filter on cast values (scan/ds_post.c; a split's own filter cuts the leaves
 * before they are built, format/nest_select.c), Top-K's gathers (scan/topk.c,
 * scan/ds_topk.c) and a limit's last batch (scan/output.c, scan/ds_out.c). Rows join columns
 * of the same layout; rows of null placeholders (packed null rows without bytes: a dataset's
 * file that lacks the field, scan/ds_schema.c ds_const_vec) join them as null rows.
 *
 * Invariants:
 *  1. The layout (pq_nest_cols.shape) says which column is a node (a struct's or list's
 *     validity, a list's offsets) and which a leaf (a pq_vec), and whether a leaf's slots
 *     are rows (a struct) or a list's elements.
 *  2. Every node column this file writes has every validity bit of its slots set (valid or
 *     not) and offsets[0] == 0; what it reads follows vec.h (bits meaningful when the column
 *     counts nulls), so built columns of any origin join.
 *  3. A list's elements stay within INT32_MAX (its int32 offsets): -EOVERFLOW past that.
 *  4. Rows are copied in runs of consecutive rows (a filter's kept rows), and so are a
 *     list's elements (a run of rows' elements are consecutive): one copy per run and leaf. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested_priv.h"

/* The first leaf column of layout c (invariant 1). */
static int32_t first_leaf(const pq_nest_cols *c)
{
    return c->shape == PQ_NEST_COLS_LIST_STRUCT ? 2 : 1;
}

/* Grows *p (cap elements of size sz) to hold need, new bytes zeroed; 0 or -ENOMEM. */
static int grow_zeroed(void **p, int64_t *cap, int64_t need, size_t sz)
{
    if (need <= *cap) return 0;
    int64_t n = *cap > 0 ? *cap : 64;
    while (n < need) n *= 2;
    uint8_t *q = fail_realloc(*p, (size_t)n * sz);
    if (!q) return -ENOMEM;
    memset(q + (size_t)*cap * sz, 0, (size_t)(n - *cap) * sz);
    *p = q, *cap = n;
    return 0;
}

/* Consecutive slots [lo, hi) of a column: the unit rows and elements are copied in. */
typedef struct slot_run {
    int64_t lo, hi;
} slot_run;

/* idx[0..n) as runs of consecutive slots (*nr of them, at most n); NULL on -ENOMEM. A
 * filter's kept rows come in long runs, so a list's elements and a leaf's values are copied
 * run by run, not looked up one by one through an index per element. */
static slot_run *runs_of(const uint32_t *idx, int64_t n, int64_t *nr)
{
    slot_run *r = fail_malloc(sizeof *r * (size_t)(n + 1));
    int64_t k = 0;
    for (int64_t i = 0; r && i < n; i++) {
        if (k > 0 && r[k - 1].hi == (int64_t)idx[i]) r[k - 1].hi++;
        else r[k++] = (slot_run){idx[i], (int64_t)idx[i] + 1};
    }
    *nr = k;
    return r;
}

/* Node d's validity for n more slots: s's slots in runs r[0..nr) (s NULL: n nulls). */
static int node_take(const pq_nest_col *s, const slot_run *r, int64_t nr, int64_t n, pq_nest_col *d)
{
    void *bits = d->valid;
    int rc = grow_zeroed(&bits, &d->valid_cap, (d->length + n + 7) / 8 + 1, 1);
    d->valid = bits;
    if (rc) return rc;
    int64_t at = d->length, nulls = s ? 0 : n;
    for (int64_t i = 0; !s && i < n; i++) pq_bit_set(d->valid, at++, false); /* invariant 2 */
    for (int64_t k = 0; s && k < nr; k++)
        for (int64_t e = r[k].lo; e < r[k].hi; e++) {
            bool ok = s->null_count == 0 || pq_bit_get(s->valid, e);
            pq_bit_set(d->valid, at++, ok);
            nulls += !ok;
        }
    assert(at == d->length + n);
    d->length = at, d->null_count += nulls;
    return 0;
}

/* Leaf s's slots in runs r[0..nr) (n in all) appended to d: values, bytes and validity. */
static int vec_take_runs(const pq_vec *s, const slot_run *r, int64_t nr, int64_t n, pq_vec *d)
{
    int64_t bytes = 0;
    for (int64_t k = 0; s->type == PQ_BYTE_ARRAY && k < nr; k++) /* a leaf without values may */
        if (r[k].hi > r[k].lo) bytes += s->offsets[r[k].hi] - s->offsets[r[k].lo]; /* lack offsets */
    if (d->data_len + bytes > INT32_MAX) return -EOVERFLOW;
    int rc = pq_vec_reserve(d, n, bytes);
    if (rc) return rc;
    bool bits = s->null_count > 0 || d->null_count > 0; /* vec.h invariant 1 */
    if (s->null_count > 0 && d->null_count == 0) /* the earlier slots are valid */
        for (int64_t i = 0; i < d->length; i++) pq_bit_set(d->validity, i, true);
    int32_t w = pq_fixed_width(s->type, s->type_length);
    int64_t at = d->length;
    for (int64_t k = 0; k < nr; k++) {
        int64_t lo = r[k].lo, len = r[k].hi - lo;
        if (len == 0) continue; /* a run of empty lists: s may hold no buffers */
        if (w) memcpy(d->values + (size_t)at * (size_t)w, s->values + (size_t)lo * (size_t)w, (size_t)(len * w));
        for (int64_t i = 0; s->type == PQ_BOOLEAN && i < len; i++)
            pq_bit_set(d->values, at + i, pq_bit_get(s->values, lo + i));
        if (s->type == PQ_BYTE_ARRAY) {
            int32_t from = s->offsets[lo], b = s->offsets[lo + len] - from, shift = (int32_t)d->data_len - from;
            if (b) memcpy(d->data + d->data_len, s->data + from, (size_t)b); /* none: data may be NULL */
            for (int64_t i = 1; i <= len; i++) d->offsets[at + i] = s->offsets[lo + i] + shift;
            d->data_len += b;
        }
        for (int64_t i = 0; bits && i < len; i++) {
            bool ok = pq_vec_is_valid(s, lo + i);
            pq_bit_set(d->validity, at + i, ok);
            d->null_count += !ok;
        }
        at += len;
    }
    d->length = at;
    return 0;
}

/* n null slots appended to leaf v (vec.h invariant 2: zeroed, or empty). */
static int vec_nulls(pq_vec *v, int64_t n)
{
    int rc = pq_vec_reserve(v, n, 0);
    if (rc || n == 0) return rc;
    if (v->null_count == 0) /* bits were not kept: the earlier slots are valid */
        for (int64_t i = 0; i < v->length; i++) pq_bit_set(v->validity, i, true);
    int32_t w = pq_fixed_width(v->type, v->type_length);
    for (int64_t i = v->length; i < v->length + n; i++) {
        pq_bit_set(v->validity, i, false);
        if (v->type == PQ_BYTE_ARRAY) v->offsets[i + 1] = (int32_t)v->data_len;
        else if (v->type == PQ_BOOLEAN) pq_bit_set(v->values, i, false);
    }
    if (w) memset(v->values + (size_t)v->length * (size_t)w, 0, (size_t)n * (size_t)w);
    v->length += n, v->null_count += n;
    return 0;
}

/* List d's validity and offsets for n more rows, s's rows in runs r[0..nr) (s NULL: n null
 * rows); er[k] (room for nr) the elements of run k in s, *ne their count. */
static int list_take(const pq_nest_col *s, const slot_run *r, int64_t nr, int64_t n, pq_nest_col *d,
                     slot_run *er, int64_t *ne)
{
    void *off = d->offsets;
    int rc = grow_zeroed(&off, &d->off_cap, d->length + n + 1, sizeof(int32_t));
    d->offsets = off; /* a fresh column's offsets[0] is 0 (zeroed) */
    if (rc) return rc;
    int64_t total = 0, at = d->length;
    for (int64_t k = 0; s && k < nr; k++) {
        er[k] = (slot_run){s->offsets[r[k].lo], s->offsets[r[k].hi]};
        total += er[k].hi - er[k].lo;
    }
    if (d->offsets[at] + total > INT32_MAX) return -EOVERFLOW; /* invariant 3 */
    for (int64_t i = 0; !s && i < n; i++, at++) d->offsets[at + 1] = d->offsets[at];
    for (int64_t k = 0; s && k < nr; k++) { /* a run's offsets: s's, shifted */
        int32_t shift = d->offsets[at] - s->offsets[r[k].lo];
        for (int64_t j = r[k].lo; j < r[k].hi; j++) d->offsets[++at] = s->offsets[j + 1] + shift;
    }
    assert(at == d->length + n);
    *ne = total;
    return node_take(s, r, nr, n, d);
}

/* Rows idx[0..n) of s (NULL: n null rows) appended to d, of the same layout. */
static int cols_take(const pq_nest_cols *s, const uint32_t *idx, int64_t n, pq_nest_cols *d)
{
    assert(!s || (s->shape == d->shape && s->n == d->n));
    int32_t leaf0 = first_leaf(d);
    int64_t nr = 0, slots = n;
    slot_run *r = s ? runs_of(idx, n, &nr) : NULL;
    slot_run *er = s && d->shape != PQ_NEST_COLS_STRUCT ? fail_malloc(sizeof *er * (size_t)(nr + 1)) : NULL;
    int rc = s && (!r || (d->shape != PQ_NEST_COLS_STRUCT && !er)) ? -ENOMEM : 0;
    if (rc == 0)
        rc = d->shape == PQ_NEST_COLS_STRUCT ? node_take(s ? &s->col[0] : NULL, r, nr, n, &d->col[0])
                                             : list_take(s ? &s->col[0] : NULL, r, nr, n, &d->col[0], er, &slots);
    const slot_run *at = d->shape == PQ_NEST_COLS_STRUCT ? r : er; /* the leaves' slots */
    if (rc == 0 && leaf0 == 2 && s) rc = node_take(&s->col[1], at, nr, slots, &d->col[1]);
    for (int32_t k = leaf0; rc == 0 && k < d->n; k++) {
        pq_vec *v = &d->col[k].vals;
        rc = s ? vec_take_runs(&s->col[k].vals, at, nr, slots, v) : vec_nulls(v, slots);
        d->col[k].length = v->length;
    }
    free(r), free(er);
    return rc;
}

/* Whether rows idx[0..n) of packed rows v are all null placeholders (null, no bytes). */
static bool placeholders(const pq_vec *v, const uint32_t *idx, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (pq_vec_is_valid(v, idx[i]) || v->offsets[idx[i] + 1] != v->offsets[idx[i]]) return false;
    return true;
}

/* dst (packed rows, all null placeholders) made columns of like's layout with as many null
 * rows. 0, -EOVERFLOW (a row that is not a placeholder) or -ENOMEM (dst then to be freed). */
static int adopt(pq_vec *dst, const pq_nest_cols *like)
{
    int64_t rows = dst->length;
    if (dst->null_count != rows || dst->data_len != 0) return -EOVERFLOW;
    pq_nest_cols *c = pq_nest_cols_new(like->n, like->shape);
    if (!c) return -ENOMEM;
    for (int32_t k = first_leaf(like); k < like->n; k++)
        pq_vec_init(&c->col[k].vals, like->col[k].vals.type, like->col[k].vals.type_length);
    pq_vec_free(dst);
    dst->cols = c;
    int rc = cols_take(NULL, NULL, rows, c);
    dst->length = rows, dst->null_count = rows;
    return rc;
}

int pq_nest_cols_take(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    assert(src->type == PQ_BYTE_ARRAY && dst->type == PQ_BYTE_ARRAY && (src->cols || dst->cols));
    if (!src->cols && !placeholders(src, idx, n)) return -EOVERFLOW; /* packed rows: not these */
    int rc = dst->cols ? 0 : adopt(dst, src->cols);
    if (rc == 0) rc = cols_take(src->cols, idx, n, dst->cols);
    if (rc) return rc;
    dst->length += n;
    dst->null_count = dst->cols->col[0].null_count;
    assert(dst->cols->col[0].length == dst->length);
    return 0;
}

/* Node c cut to its first n slots. */
static void node_cut(pq_nest_col *c, int64_t n)
{
    assert(n <= c->length);
    c->length = n;
    if (c->null_count == 0) return;
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) nulls += !pq_bit_get(c->valid, i);
    c->null_count = nulls;
}

void pq_nest_cols_cut(pq_vec *v, int64_t n)
{
    pq_nest_cols *c = v->cols;
    assert(c && n >= 0 && n <= v->length && c->col[0].length == v->length);
    node_cut(&c->col[0], n);
    int64_t slots = n; /* the leaves' */
    if (c->shape != PQ_NEST_COLS_STRUCT) {
        assert(c->col[0].offsets[0] == 0);
        slots = c->col[0].offsets[n];
    }
    if (c->shape == PQ_NEST_COLS_LIST_STRUCT) node_cut(&c->col[1], slots);
    for (int32_t k = first_leaf(c); k < c->n; k++) {
        pq_vec_cut(&c->col[k].vals, slots);
        c->col[k].length = slots;
    }
    v->length = n, v->null_count = c->col[0].null_count;
}
