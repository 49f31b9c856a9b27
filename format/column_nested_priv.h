/* format/column_nested_priv.h: what the fast assemblies (format/nest_struct.c, a struct of
 * primitives; format/nest_list.c, a list of leaves) share: a leaf's cursor and the packing of
 * its next value (column_nested.h layout). Private to format/.
 * Invariant: the caller reserved 16 bytes of slack past the rows' exact bytes, so a short
 * string is copied as one 16-byte move (pq_copy_short). */
#ifndef RINGSCAN_FORMAT_COLUMN_NESTED_PRIV_H
#define RINGSCAN_FORMAT_COLUMN_NESTED_PRIV_H
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

#endif
