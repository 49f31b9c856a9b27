/* format/nest_struct.c: the assembly of a struct of primitives (column_nested.h layout,
 * unchanged: a flag byte, then each child's flag and value): the leaves' levels checked in
 * one pass over the rows, the exact bytes reserved once, then the rows written in a second
 * pass with every child's cursor inline (no call per row or per value).
 *
 * Invariants:
 *  1. The checks are column_nested.h invariant 1 for this shape, with the same messages:
 *     where the struct is valid every leaf is defined to at least its level, where it is
 *     null no leaf is; every leaf holds exactly rows pairs (no repetition: one pair a row).
 *  2. Failure leaves out's length, null count and bytes as they were.
 *  3. A leaf's pair is a value exactly when it is defined to the leaf's maximum, so a
 *     child's values in order are its valid slots in order (leaf decoding counted them). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested_priv.h"

bool pq_nest_prim_struct(const pq_file_meta *m, const pq_nest *t)
{
    if (t[0].kind != PQ_NEST_STRUCT || t[0].end != 1 + t[0].nchildren) return false;
    for (int32_t k = 1; k < t[0].end; k++)
        if (t[k].kind != PQ_NEST_PRIM || m->columns[t[k].col].max_rep_level != 0) return false;
    for (int32_t k = 1; k < t[0].end; k++) assert(t[k].col == t[0].leaf_lo + k - 1);
    return true; /* each child a leaf, one after the other: leaves[k - 1] is t[k]'s */
}

static int struct_error(const pq_file_meta *m, const pq_nest *t, const pq_nest_leaf *leaves,
                        int32_t k, int64_t pos, const char *what, pq_err *e)
{
    return pq_nest_pair_error(e, &leaves[k - 1], m->columns[t[k].col].name, pos, what);
}

/* Pass 1: the checks (invariant 1); *bytes the rows' packed bytes, *nulls the null rows. */
static int struct_check(const pq_file_meta *m, const pq_nest *t, const pq_nest_leaf *leaves,
                        int64_t rows, int64_t *bytes, int64_t *nulls, pq_err *e)
{
    int32_t nc = t[0].nchildren;
    int dv = t[0].def_valid;
    int64_t total = rows, valid_rows = 0;
    for (int32_t k = 1; k <= nc; k++) {
        const pq_nest_leaf *l = &leaves[k - 1];
        if (l->n < rows) return struct_error(m, t, leaves, k, l->n, "the column ends before its row group", e);
        if (l->n > rows)
            return pq_nest_pairs_past(e, l, m->columns[t[k].col].name, l->n - rows, rows);
        total += leaf_value_bytes(&l->vals);
    }
    const uint16_t *d0 = leaves[0].def;
    for (int32_t k = 2; k <= nc; k++) { /* the first leaf decides; the others agree */
        const uint16_t *d = leaves[k - 1].def;
        for (int64_t r = 0; r < rows; r++) {
            if ((d[r] >= dv) == (d0[r] >= dv)) continue;
            return struct_error(m, t, leaves, k, r, d0[r] >= dv ? "definition level below its parent's"
                                : "defined where the field's first leaf is not", e);
        }
    }
    for (int64_t r = 0; r < rows; r++) valid_rows += d0[r] >= dv;
    *bytes = total + valid_rows * nc; /* a valid row's children each have a flag */
    *nulls = rows - valid_rows;
    return 0;
}

/* Pass 2: rows rows written at out->data + out->data_len (reserved), offsets and validity
 * from row out->length on. */
static void struct_write(const pq_nest *t, pq_nest_leaf *leaves, child_cur *cur, int64_t rows, pq_vec *out)
{
    int32_t nc = t[0].nchildren;
    int dv = t[0].def_valid;
    for (int32_t k = 0; k < nc; k++) cur[k] = child_cur_of(&leaves[k], t[k + 1].def_valid);
    uint8_t *base = out->data, *p = base + out->data_len;
    int64_t row0 = out->length;
    for (int64_t r = 0; r < rows; r++) {
        bool valid = cur[0].def[r] >= dv;
        *p++ = valid;
        for (int32_t k = 0; valid && k < nc; k++) {
            bool cv = cur[k].def[r] >= cur[k].def_valid;
            *p++ = cv;
            if (cv) p = put_child(&cur[k], p);
        }
        pq_bit_set(out->validity, row0 + r, valid);
        out->offsets[row0 + r + 1] = (int32_t)(p - base);
    }
    for (int32_t k = 0; k < nc; k++) assert(cur[k].at == cur[k].v->length); /* invariant 3 */
}

int pq_nest_struct_assemble(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                            int64_t rows, pq_vec *out, pq_err *e)
{
    assert(out->type == PQ_BYTE_ARRAY && rows >= 0 && pq_nest_prim_struct(m, t));
    int64_t bytes = 0, nulls = 0;
    int rc = struct_check(m, t, leaves, rows, &bytes, &nulls, e);
    if (rc || rows == 0) return rc;
    if (out->data_len + bytes > INT32_MAX)
        return pq_errf_col(e, RINGSCAN_ELIMIT, leaves[0].file_off, m->columns[t[0].leaf_lo].name,
                           "nested rows past %d packed bytes in a split", INT32_MAX);
    child_cur *cur = fail_malloc(sizeof *cur * (size_t)t[0].nchildren);
    rc = cur ? reserve_rows(out, rows, bytes) : -ENOMEM;
    if (rc) {
        free(cur);
        return rc; /* invariant 2 */
    }
    if (out->null_count == 0) /* bits were not kept: the earlier rows are valid */
        for (int64_t r = 0; r < out->length; r++) pq_bit_set(out->validity, r, true);
    struct_write(t, leaves, cur, rows, out);
    free(cur);
    out->length += rows, out->data_len += bytes, out->null_count += nulls;
    assert(out->offsets[out->length] == out->data_len);
    for (int32_t k = 0; k < t[0].nchildren; k++) leaves[k].pos = leaves[k].n, leaves[k].vpos = leaves[k].vals.length;
    return 0;
}

/* The struct's own validity (node 0) from the first leaf's levels, a byte of rows at a time. */
static int struct_validity(const pq_nest *t, const pq_nest_leaf *leaves, int64_t rows, int64_t nulls,
                           pq_nest_col *c)
{
    c->valid_cap = (rows + 7) / 8 + 1;
    c->valid = fail_malloc((size_t)c->valid_cap);
    if (!c->valid) return -ENOMEM;
    const uint16_t *d0 = leaves[0].def;
    uint16_t dv = (uint16_t)t[0].def_valid;
    for (int64_t r = 0; r < rows; r += 8) {
        uint8_t byte = 0;
        for (int64_t i = 0; i < 8 && r + i < rows; i++) byte |= (uint8_t)((d0[r + i] >= dv) << i);
        c->valid[r >> 3] = byte;
    }
    c->length = rows, c->null_count = nulls;
    return 0;
}

int pq_nest_struct_columns(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                           int64_t rows, pq_vec *out, pq_err *e)
{
    assert(out->length == 0 && !out->cols && pq_nest_prim_struct(m, t));
    int64_t bytes = 0, nulls = 0;
    int rc = struct_check(m, t, leaves, rows, &bytes, &nulls, e);
    if (rc) return rc;
    int32_t nc = t[0].nchildren;
    pq_nest_cols *c = pq_nest_cols_new(1 + nc, PQ_NEST_COLS_STRUCT);
    rc = c ? struct_validity(t, leaves, rows, nulls, &c->col[0]) : -ENOMEM;
    for (int32_t k = 1; rc == 0 && k <= nc; k++) { /* a null struct's children are null there */
        pq_nest_leaf *l = &leaves[k - 1];
        rc = pq_nest_leaf_spread(l, l->def, rows, 0, (uint16_t)t[k].def_valid, rows, &c->col[k].vals);
        c->col[k].length = rows;
    }
    return pq_nest_cols_set(c, rc, leaves, nc, rows, nulls, out);
}
