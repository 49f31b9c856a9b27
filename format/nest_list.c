/* format/nest_list.c: the assembly of a list of leaves (column_nested.h pq_nest_leaf_list: a
 * list<string>, list<bool>, map<k, v>, list<struct of primitives>, one repetition level),
 * in the general layout, unchanged: a first pass over the levels checks them and sizes the
 * rows' bytes exactly, a second writes the rows with every leaf's cursor inline (no call per
 * row, element or value). Either pass may stop at nothing: a split the first pass finds
 * broken is handed to the general walk (pq_nest_walk_assemble), which names what is wrong
 * with its own messages.
 *
 * Invariants:
 *  1. The first pass accepts exactly the splits the general walk accepts for this shape:
 *     rows pairs at repetition 0; a pair at repetition 1 (a next element) is defined to the
 *     list's item level and so is the pair before it; every other leaf has the first
 *     leaf's pair count and repetition levels, and each of its definition levels falls in
 *     the first leaf's class (below the list's valid level, an empty list, a null struct
 *     element, a valid one: the walk's skip and peek checks).
 *  2. Failure leaves out's length, null count and bytes as they were.
 *  3. A leaf's pair is a value exactly when it is defined to the leaf's maximum, so each
 *     leaf's values in order are its valid slots in order (leaf decoding counted them). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested_priv.h"

bool pq_nest_leaf_list(const pq_file_meta *m, const pq_nest *t)
{
    if ((t[0].kind != PQ_NEST_LIST && t[0].kind != PQ_NEST_MAP) || t[0].rep_item != 1 ||
        t[0].nchildren != 1 || pq_nest_flat_width(m, t))
        return false;
    const pq_nest *el = &t[1];
    bool st = el->kind == PQ_NEST_STRUCT;
    if (!st && (el->kind != PQ_NEST_PRIM || t[0].end != 2)) return false;
    if (st && (el->nchildren < 1 || el->nchildren > PQ_NEST_LIST_CHILDREN ||
               el->end != 2 + el->nchildren || t[0].end != el->end))
        return false;
    for (int32_t k = st ? 2 : 1; k < t[0].end; k++)
        if (t[k].kind != PQ_NEST_PRIM || m->columns[t[k].col].max_rep_level != 1) return false;
    for (int32_t k = st ? 2 : 1; k < t[0].end; k++) assert(t[k].col == t[0].leaf_lo + k - (st ? 2 : 1));
    return true; /* each leaf a node, one after the other: leaves[i] is the i-th's */
}

/* The class of definition level d in the first pass (invariant 1): how many of the list's
 * valid level, its item level and its element's valid level it reaches. */
static inline uint32_t level_class(uint16_t d, uint16_t dv, uint16_t di, uint16_t sv)
{
    return (uint32_t)(d >= dv) + (d >= di) + (d >= sv);
}

/* Pass 1, without a branch per pair: invariant 1's checks; *bytes the rows' packed bytes,
 * *nulls the null rows. False when a rule is broken. */
static bool list_check(const pq_nest *t, const pq_nest_leaf *leaves, int64_t rows, int64_t *bytes,
                       int64_t *nulls)
{
    const uint16_t *rep = leaves[0].rep, *def = leaves[0].def;
    const uint16_t dv = (uint16_t)t[0].def_valid, di = (uint16_t)t[0].def_item, sv = (uint16_t)t[1].def_valid;
    int64_t n = leaves[0].n, starts = 0, valid_rows = 0, elems = 0, valid_structs = 0;
    int32_t nleaves = t[0].leaf_hi - t[0].leaf_lo;
    bool st = t[1].kind == PQ_NEST_STRUCT;
    for (int32_t k = 1; k < nleaves; k++) /* every leaf as many pairs as the first */
        if (leaves[k].n != n) return false;
    if (n == 0 || rows == 0) return n == 0 && rows == 0;
    uint32_t bad = rep[0] != 0;
    for (int64_t j = 0; j < n; j++) {
        starts += rep[j] == 0;
        valid_rows += (rep[j] == 0) & (def[j] >= dv);
        elems += def[j] >= di;
        valid_structs += def[j] >= sv;
    }
    for (int64_t j = 1; j < n; j++) bad |= (rep[j] != 0) & ((def[j] < di) | (def[j - 1] < di));
    for (int32_t k = 1; k < nleaves; k++) {
        const pq_nest_leaf *l = &leaves[k];
        for (int64_t j = 0; j < n; j++)
            bad |= (l->rep[j] != rep[j]) | (level_class(l->def[j], dv, di, sv) != level_class(def[j], dv, di, sv));
    }
    if (bad || starts != rows) return false;
    int64_t total = rows + 4 * valid_rows + elems + (st ? valid_structs * t[1].nchildren : 0);
    for (int32_t k = 0; k < nleaves; k++) total += leaf_value_bytes(&leaves[k].vals);
    *bytes = total, *nulls = rows - valid_rows;
    return true;
}

/* An element of the list at pair j (defined to the item level) packed at p; the byte past it. */
static inline uint8_t *put_element(const pq_nest *t, child_cur *cur, int32_t nc, uint16_t d, int64_t j,
                                   uint8_t *p)
{
    bool valid = d >= t[1].def_valid;
    *p++ = valid;
    if (!valid) return p;
    if (t[1].kind == PQ_NEST_PRIM) return put_child(&cur[0], p);
    for (int32_t k = 0; k < nc; k++) {
        bool cv = cur[k].def[j] >= cur[k].def_valid;
        *p++ = cv;
        if (cv) p = put_child(&cur[k], p);
    }
    return p;
}

/* Pass 2: the rows written at out->data + out->data_len (reserved), offsets and validity
 * from row out->length on, from the first leaf's (checked) levels. */
static void list_write(const pq_nest *t, const pq_nest_leaf *leaves, child_cur *cur, int32_t nc, pq_vec *out)
{
    const uint16_t *rep = leaves[0].rep, *def = leaves[0].def;
    const uint16_t dv = (uint16_t)t[0].def_valid, di = (uint16_t)t[0].def_item;
    uint8_t *base = out->data, *p = base + out->data_len, *count_at = NULL;
    int64_t row = out->length - 1, n = leaves[0].n;
    uint32_t count = 0;
    for (int64_t j = 0; j < n; j++) {
        uint16_t d = def[j];
        if (rep[j] == 0) { /* a row starts: the previous one ends */
            if (count_at) memcpy(count_at, &count, 4);
            if (row >= out->length) out->offsets[row + 1] = (int32_t)(p - base);
            row++;
            bool valid = d >= dv;
            *p++ = valid;
            pq_bit_set(out->validity, row, valid);
            count_at = valid ? p : NULL, count = 0;
            p += valid ? 4 : 0;
            if (d < di) continue; /* null or empty: one pair */
        }
        count++;
        p = put_element(t, cur, nc, d, j, p);
    }
    if (count_at) memcpy(count_at, &count, 4);
    if (row >= out->length) out->offsets[row + 1] = (int32_t)(p - base);
}

int pq_nest_list_assemble(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                          int64_t rows, pq_vec *out, pq_err *e)
{
    assert(out->type == PQ_BYTE_ARRAY && rows >= 0 && pq_nest_leaf_list(m, t));
    int64_t bytes = 0, nulls = 0;
    if (!list_check(t, leaves, rows, &bytes, &nulls) || out->data_len + bytes > INT32_MAX)
        return pq_nest_walk_assemble(m, t, leaves, rows, out, e); /* names what is wrong */
    if (rows == 0) return 0;
    int rc = reserve_rows(out, rows, bytes);
    if (rc) return rc; /* invariant 2 */
    if (out->null_count == 0) /* bits were not kept: the earlier rows are valid */
        for (int64_t r = 0; r < out->length; r++) pq_bit_set(out->validity, r, true);
    bool st = t[1].kind == PQ_NEST_STRUCT;
    int32_t nc = st ? t[1].nchildren : 1;
    child_cur cur[PQ_NEST_LIST_CHILDREN];
    for (int32_t k = 0; k < nc; k++) cur[k] = child_cur_of(&leaves[k], t[st ? 2 + k : 1].def_valid);
    list_write(t, leaves, cur, nc, out);
    out->length += rows, out->data_len += bytes, out->null_count += nulls;
    assert(out->offsets[out->length] == out->data_len);
    for (int32_t k = 0; k < nc; k++) {
        assert(cur[k].at == cur[k].v->length); /* invariant 3 */
        leaves[k].pos = leaves[k].n, leaves[k].vpos = leaves[k].vals.length;
    }
    return 0;
}

/* The list's own validity and offsets (node 0), from the first leaf's (checked: the first
 * pair starts a row) levels, in one pass with no branch per pair: a row's start offset goes
 * to its slot, any other pair's to a scratch slot past the end; *elems the elements. */
static int list_frame(const pq_nest *t, const pq_nest_leaf *l0, int64_t rows, int64_t nulls,
                      pq_nest_col *c, int64_t *elems)
{
    c->valid_cap = (rows + 7) / 8 + 1;
    c->valid = fail_calloc((size_t)c->valid_cap, 1);
    c->off_cap = rows + 2; /* offsets[rows + 1]: the scratch slot */
    c->offsets = fail_malloc(sizeof(int32_t) * (size_t)c->off_cap);
    if (!c->valid || !c->offsets) return -ENOMEM;
    const uint16_t *rep = l0->rep, *def = l0->def;
    const uint16_t dv = (uint16_t)t[0].def_valid, di = (uint16_t)t[0].def_item;
    assert(l0->n == 0 || rep[0] == 0); /* no pairs: no rows (list_check) */
    int64_t row = -1, k = 0;
    for (int64_t j = 0; j < l0->n; j++) {
        bool start = rep[j] == 0;
        row += start;
        c->offsets[start ? row : rows + 1] = (int32_t)k;
        c->valid[row >> 3] |= (uint8_t)((start & (def[j] >= dv)) << (row & 7));
        k += def[j] >= di;
    }
    c->offsets[rows] = (int32_t)k;
    assert(row + 1 == rows);
    c->length = rows, c->null_count = nulls;
    *elems = k;
    return 0;
}

/* A list of structs' element validity (node 1): where a pair is an element, whether it
 * reaches the struct's valid level. */
static int element_validity(const pq_nest *t, const pq_nest_leaf *l0, int64_t elems, pq_nest_col *c)
{
    c->valid_cap = (elems + 7) / 8 + 1;
    c->valid = fail_calloc((size_t)c->valid_cap, 1);
    if (!c->valid) return -ENOMEM;
    const uint16_t di = (uint16_t)t[0].def_item, sv = (uint16_t)t[1].def_valid;
    int64_t i = 0, nulls = 0;
    for (int64_t j = 0; j < l0->n; j++) {
        if (l0->def[j] < di) continue;
        bool valid = l0->def[j] >= sv;
        c->valid[i >> 3] |= (uint8_t)(valid << (i & 7));
        nulls += !valid, i++;
    }
    c->length = elems, c->null_count = nulls;
    return 0;
}

int pq_nest_list_columns(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves, int64_t rows,
                         pq_vec *out, pq_err *e)
{
    int32_t w = pq_nest_flat_width(m, t);
    assert(out->length == 0 && !out->cols && (w > 0 || pq_nest_leaf_list(m, t)));
    int64_t bytes = 0, nulls = 0, elems = 0;
    if (!list_check(t, leaves, rows, &bytes, &nulls) || bytes > INT32_MAX) { /* packed rows, */
        if (w) return pq_nest_flat_assemble(m, t, w, &leaves[0], rows, out, e); /* which name */
        return pq_nest_walk_assemble(m, t, leaves, rows, out, e);              /* the error */
    }
    bool st = t[1].kind == PQ_NEST_STRUCT;
    int32_t nc = st ? t[1].nchildren : 1, leaf0 = st ? 2 : 1;
    pq_nest_cols *c = pq_nest_cols_new(leaf0 + nc, st ? PQ_NEST_COLS_LIST_STRUCT : PQ_NEST_COLS_LIST);
    int rc = c ? list_frame(t, &leaves[0], rows, nulls, &c->col[0], &elems) : -ENOMEM;
    if (rc == 0 && st) rc = element_validity(t, &leaves[0], elems, &c->col[1]);
    for (int32_t k = 0; rc == 0 && k < nc; k++) { /* slots: the pairs that are elements */
        pq_nest_leaf *l = &leaves[k];
        rc = pq_nest_leaf_spread(l, l->def, l->n, (uint16_t)t[0].def_item,
                                 (uint16_t)t[leaf0 + k].def_valid, elems, &c->col[leaf0 + k].vals);
        c->col[leaf0 + k].length = elems;
    }
    return pq_nest_cols_set(c, rc, leaves, nc, rows, nulls, out);
}
