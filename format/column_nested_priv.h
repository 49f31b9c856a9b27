/* format/column_nested_priv.h: what the fast assemblies (format/nest_struct.c, a struct of
 * primitives; format/nest_list.c, a list of leaves) share: a leaf's cursor and the packing of
 * its next value (column_nested.h layout). Private to format/.
 * Invariant: the caller reserved 16 bytes of slack past the rows' exact bytes, so a short
 * string is copied as one 16-byte move (pq_copy_short). */
#ifndef RINGSCAN_FORMAT_COLUMN_NESTED_PRIV_H
#define RINGSCAN_FORMAT_COLUMN_NESTED_PRIV_H
#include <stdlib.h>
#include <string.h>

#include "format/column_nested.h"

/* One leaf's cursor in a write pass. */
typedef struct child_cur {
    const uint16_t *def;
    int def_valid;
    int32_t w;          /* fixed width; 0 for BOOLEAN and BYTE_ARRAY */
    const pq_vec *v;
    int64_t at;         /* its next value */
} child_cur;

static inline child_cur child_cur_of(const pq_nest_leaf *l, int def_valid)
{
    const pq_vec *v = &l->vals;
    return (child_cur){.def = l->def, .def_valid = def_valid, .v = v,
                       .w = v->type == PQ_BOOLEAN || v->type == PQ_BYTE_ARRAY ? 0
                            : pq_fixed_width(v->type, v->type_length)};
}

/* The packed bytes of every value of v: what its valid slots add to the rows. */
static inline int64_t leaf_value_bytes(const pq_vec *v)
{
    return v->type == PQ_BYTE_ARRAY ? 4 * v->length + v->data_len
           : v->type == PQ_BOOLEAN ? v->length : v->length * pq_fixed_width(v->type, v->type_length);
}

/* pq_vec_reserve for rows more rows of bytes packed bytes (and 16 of slack, for put_child):
 * when out holds no bytes yet its data buffer (a guess the split reserved) is dropped first
 * rather than grown, as a realloc would copy its whole old capacity into fresh pages (17% of
 * a struct read's page faults, bench/RESULTS.md). 0 or -ENOMEM, out's rows unchanged. */
static inline int reserve_rows(pq_vec *out, int64_t rows, int64_t bytes)
{
    if (out->data_len == 0 && out->data_cap < bytes + 16) {
        free(out->data);
        out->data = NULL, out->data_cap = 0;
    }
    return pq_vec_reserve(out, rows, bytes + 16);
}

/* Child c's value at its cursor, packed at p (16 bytes of slack past the rows); the byte
 * past it. */
static inline uint8_t *put_child(child_cur *c, uint8_t *p)
{
    const pq_vec *v = c->v;
    int64_t i = c->at++;
    if (c->w) {
        pq_copy_fixed(p, v->values + (size_t)c->w * (size_t)i, c->w);
        return p + c->w;
    }
    if (v->type == PQ_BOOLEAN) {
        *p = pq_bit_get(v->values, i);
        return p + 1;
    }
    uint32_t n = (uint32_t)(v->offsets[i + 1] - v->offsets[i]);
    memcpy(p, &n, 4);
    if (n) /* no bytes: data may be NULL (every string of the leaf empty) */
        pq_copy_short(p + 4, v->data + v->offsets[i], n, v->data_len - v->offsets[i] >= 16);
    return p + 4 + n;
}

/* An empty set of n built columns of layout shape (vec.h pq_nest_cols), or NULL (-ENOMEM). */
pq_nest_cols *pq_nest_cols_new(int32_t n, pq_nest_shape shape);

/* The end of a build of columns c (rc its status so far): on failure c is freed and out left
 * as it was; else c becomes out's (rows rows, nulls null) and the nleaves leaves are spent.
 * Returns rc. */
int pq_nest_cols_set(pq_nest_cols *c, int rc, pq_nest_leaf *leaves, int32_t nleaves, int64_t rows,
                     int64_t nulls, pq_vec *out);

/* Leaf l's values spread over slots into out (initialised here): of l's n level pairs def,
 * those defined to at least lo are the slots, in order, and a slot is l's next value when
 * defined to dv (else null: zeroed, or empty). When every slot is a value l's buffers move
 * into out, and a BYTE_ARRAY leaf's bytes move always (nest_cols.c invariant 3). 0 or
 * -ENOMEM (out then holds what it got: the caller frees it). */
int pq_nest_leaf_spread(pq_nest_leaf *l, const uint16_t *def, int64_t n, uint16_t lo, uint16_t dv,
                        int64_t slots, pq_vec *out);

/* pq_nest_columns for a list of leaves or a flat list (format/nest_list.c): a split its
 * checks refuse (or past INT32_MAX packed bytes) goes to the packed assembly (the general
 * walk, or the flat one), so out then holds packed rows or that assembly's error. */
int pq_nest_list_columns(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves, int64_t rows,
                         pq_vec *out, pq_err *e);

/* pq_nest_columns for a struct of primitives (format/nest_struct.c). */
int pq_nest_struct_columns(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                           int64_t rows, pq_vec *out, pq_err *e);

#endif
