/* format/nest_cols.c: a nested field's rows handed over as its columns (format/vec.h
 * invariant 6, pq_nest_cols: one built column per node of its Arrow shape) instead of packed
 * rows, straight from its decoded leaves: what Arrow's own reader does (validity and offsets
 * from the levels, each leaf's dense values spread over its slots), so no packed row is
 * written and read back. Shapes: structs of primitives (format/nest_struct.c), lists of
 * leaves and flat lists (format/nest_list.c); each checks its levels as its packed assembly
 * does.
 *
 * Invariants:
 *  1. A leaf's values in order are its valid slots in order (a pair is a value exactly when
 *     it is defined to the leaf's maximum: leaf decoding counted them), so spreading walks
 *     the levels once and each value once.
 *  2. A slot that holds no value is null and zeroed (fixed width) or empty (BYTE_ARRAY), as
 *     vec.h invariant 2 asks.
 *  3. Buffers that already are the column's (every slot valid; a BYTE_ARRAY leaf's bytes
 *     always) move from the leaf without a copy; the leaf is left without them (spent). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested_priv.h"

bool pq_nest_has_columns(const pq_file_meta *m, const pq_nest *t)
{
    return pq_nest_prim_struct(m, t) || pq_nest_leaf_list(m, t) || pq_nest_flat_width(m, t) > 0;
}

int pq_nest_columns(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves, int64_t rows,
                    pq_vec *out, pq_err *e)
{
    assert(out->type == PQ_BYTE_ARRAY && out->length == 0 && !out->cols && rows >= 0);
    assert(pq_nest_has_columns(m, t));
    if (pq_nest_prim_struct(m, t)) return pq_nest_struct_columns(m, t, leaves, rows, out, e);
    return pq_nest_list_columns(m, t, leaves, rows, out, e);
}

pq_nest_cols *pq_nest_cols_new(int32_t n, pq_nest_shape shape)
{
    assert(n > (shape == PQ_NEST_COLS_LIST_STRUCT ? 2 : 1));
    pq_nest_cols *c = fail_calloc(1, sizeof *c);
    if (c && !(c->col = fail_calloc((size_t)n, sizeof *c->col))) {
        free(c);
        return NULL;
    }
    if (c) c->n = n, c->shape = shape;
    return c;
}

int pq_nest_cols_set(pq_nest_cols *c, int rc, pq_nest_leaf *leaves, int32_t nleaves, int64_t rows,
                     int64_t nulls, pq_vec *out)
{
    assert(out->length == 0 && !out->cols && (rc != 0 || c != NULL));
    if (rc) {
        pq_nest_cols_free(c);
        return rc; /* out unchanged */
    }
    out->cols = c, out->length = rows, out->null_count = nulls;
    for (int32_t k = 0; k < nleaves; k++) leaves[k].pos = leaves[k].n, leaves[k].vpos = leaves[k].vals.length;
    return 0;
}

/* Every value of l moved into out (no slot is null). */
static void leaf_move(pq_nest_leaf *l, int64_t slots, pq_vec *out)
{
    assert(l->vals.length == slots);
    *out = l->vals;
    out->null_count = 0;
    pq_vec_init(&l->vals, out->type, out->type_length);
}

/* The slots' validity bits and fixed-width values (w bytes, zeroed at a null). */
static void spread_fixed(const pq_nest_leaf *l, const uint16_t *def, int64_t n, uint16_t lo,
                         uint16_t dv, int32_t w, pq_vec *out)
{
    const uint8_t *src = l->vals.values; /* NULL when no slot is valid: never read then */
    uint8_t *dst = out->values, *bits = out->validity;
    int64_t i = 0, v = 0;
    for (int64_t j = 0; j < n; j++) {
        if (def[j] < lo) continue;
        bool valid = def[j] >= dv;
        if (valid) pq_copy_fixed(dst, src + (size_t)w * (size_t)v++, w);
        else memset(dst, 0, (size_t)w);
        dst += w;
        bits[i >> 3] |= (uint8_t)(valid << (i & 7));
        i++;
    }
    assert(i == out->length && v == l->vals.length);
}

/* The slots' validity bits and BYTE_ARRAY offsets (the leaf's bytes move as they are). */
static void spread_bytes(pq_nest_leaf *l, const uint16_t *def, int64_t n, uint16_t lo, uint16_t dv,
                         pq_vec *out)
{
    static const int32_t none = 0; /* a leaf without values may have no offsets */
    const int32_t *from = l->vals.offsets ? l->vals.offsets : &none;
    int32_t *off = out->offsets;
    uint8_t *bits = out->validity;
    int64_t i = 0, v = 0;
    off[0] = 0;
    for (int64_t j = 0; j < n; j++) {
        if (def[j] < lo) continue;
        bool valid = def[j] >= dv;
        v += valid;
        off[i + 1] = from[v]; /* the values so far end there (from[0] == 0) */
        bits[i >> 3] |= (uint8_t)(valid << (i & 7));
        i++;
    }
    assert(i == out->length && v == l->vals.length);
    out->data = l->vals.data, out->data_cap = l->vals.data_cap, out->data_len = l->vals.data_len;
    l->vals.data = NULL, l->vals.data_cap = 0, l->vals.data_len = 0;
}

/* The slots' validity and boolean value bits. */
static void spread_bools(const pq_nest_leaf *l, const uint16_t *def, int64_t n, uint16_t lo,
                         uint16_t dv, pq_vec *out)
{
    int64_t i = 0, v = 0;
    for (int64_t j = 0; j < n; j++) {
        if (def[j] < lo) continue;
        bool valid = def[j] >= dv;
        if (valid) pq_bit_set(out->values, i, pq_bit_get(l->vals.values, v++));
        pq_bit_set(out->validity, i, valid);
        i++;
    }
    assert(i == out->length && v == l->vals.length);
}

int pq_nest_leaf_spread(pq_nest_leaf *l, const uint16_t *def, int64_t n, uint16_t lo, uint16_t dv,
                        int64_t slots, pq_vec *out)
{
    assert(slots >= l->vals.length && out->length == 0);
    pq_vec_init(out, l->vals.type, l->vals.type_length);
    if (l->vals.length == slots) { /* every slot a value: the leaf's values are the column */
        leaf_move(l, slots, out);
        return 0;
    }
    int rc = pq_vec_reserve(out, slots, 0); /* validity (and boolean bits) zeroed */
    if (rc) return rc;
    out->length = slots, out->null_count = slots - l->vals.length;
    int32_t w = pq_fixed_width(l->vals.type, l->vals.type_length);
    if (l->vals.type == PQ_BYTE_ARRAY) spread_bytes(l, def, n, lo, dv, out);
    else if (l->vals.type == PQ_BOOLEAN) spread_bools(l, def, n, lo, dv, out);
    else spread_fixed(l, def, n, lo, dv, w, out);
    return 0;
}
