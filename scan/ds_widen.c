/* scan/ds_widen.c: a file's vector of a dataset column widened to the dataset's type
 * (ds_impl.h invariant 2): integers to the wider integer, numbers to DOUBLE, INT96 timestamps
 * to INT64 nanoseconds, small decimals into another physical form, and decimals of other
 * precisions or scales into a 128-bit one (a union by name's DECIMAL over 18 digits: the
 * unscaled value multiplied up to the dataset's scale here, exactly); values as text beside a
 * string column are ds_text.c's. Null slots stay zero (format/vec.h invariant 2). No I/O. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "scan/ds_impl.h"

__int128 ds_dec_get128(const pq_column_desc *d, const pq_vec *v, int64_t r)
{
    if (d->physical == PQ_INT32) {
        int32_t x;
        memcpy(&x, v->values + 4 * r, 4);
        return d->logical == PQ_LOGICAL_UINT32 ? (__int128)(uint32_t)x : x;
    }
    if (d->physical == PQ_INT64) { int64_t x; memcpy(&x, v->values + 8 * r, 8); return x; }
    const uint8_t *b = v->values + (int64_t)d->type_length * r;
    unsigned __int128 x = d->type_length > 0 && (b[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (int i = 0; i < d->type_length; i++) x = x << 8 | b[i];
    return (__int128)x;
}

/* A small decimal's unscaled value (ds_small_decimal: it fits 64 bits). */
static int64_t dec_get(const pq_column_desc *d, const pq_vec *v, int64_t r)
{
    return (int64_t)ds_dec_get128(d, v, r);
}

static void dec_put(const pq_column_desc *d, pq_vec *v, int64_t r, int64_t x)
{
    if (d->physical == PQ_INT32) { int32_t y = (int32_t)x; memcpy(v->values + 4 * r, &y, 4); return; }
    if (d->physical == PQ_INT64) { memcpy(v->values + 8 * r, &x, 8); return; }
    uint8_t *b = v->values + (int64_t)d->type_length * r;
    for (int i = d->type_length - 1; i >= 0; i--, x >>= 8) b[i] = (uint8_t)x; /* arithmetic shift */
}

void ds_replace_vec(pq_vec *v, pq_vec *w)
{
    if (v->null_count > 0) memcpy(w->validity, v->validity, (size_t)(v->length + 7) / 8);
    w->length = v->length, w->null_count = v->null_count;
    pq_vec_free(v);
    *v = *w;
}

/* A small decimal in from's physical form into to's (same precision and scale). */
static int dec_convert(const pq_column_desc *to, const pq_column_desc *from, pq_vec *v)
{
    pq_vec w;
    pq_vec_init(&w, to->physical, to->physical == PQ_FIXED_LEN_BYTE_ARRAY ? to->type_length : 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return rc;
    for (int64_t r = 0; r < v->length; r++)
        dec_put(to, &w, r, pq_vec_is_valid(v, r) ? dec_get(from, v, r) : 0);
    ds_replace_vec(v, &w);
    return 0;
}

/* A small decimal as DOUBLE (unscaled / 10^scale, as DuckDB casts it). */
static int dec_to_double(const pq_column_desc *from, pq_vec *v)
{
    pq_vec w;
    pq_vec_init(&w, PQ_DOUBLE, 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return rc;
    double scale = 1;
    for (int i = 0; i < from->decimal_scale; i++) scale *= 10;
    for (int64_t r = 0; r < v->length; r++) {
        double d = pq_vec_is_valid(v, r) ? (double)dec_get(from, v, r) / scale : 0;
        memcpy(w.values + 8 * r, &d, 8);
    }
    ds_replace_vec(v, &w);
    return 0;
}

/* INT96 timestamps as INT64 nanoseconds (pq_int96_nanos; a null's slot zero). */
static int int96_nanos(pq_vec *v)
{
    pq_vec w;
    pq_vec_init(&w, PQ_INT64, 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return rc;
    for (int64_t r = 0; r < v->length; r++) {
        int64_t x = pq_vec_is_valid(v, r) ? pq_int96_nanos(v->values + 12 * r) : 0;
        memcpy(w.values + 8 * r, &x, 8);
    }
    ds_replace_vec(v, &w);
    return 0;
}

/* A decimal into to's 16-byte FLBA (a union by name's DECIMAL of 19 to 38 digits), its
 * unscaled value multiplied by 10^(to's scale - from's): exact, as to holds from's digits
 * (ds_schema.c decimal_merge); a value past its own precision (a broken file) wraps, without
 * undefined behaviour. */
static int dec_to_wide(const pq_column_desc *to, const pq_column_desc *from, pq_vec *v)
{
    pq_vec w;
    pq_vec_init(&w, PQ_FIXED_LEN_BYTE_ARRAY, 16);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return rc;
    unsigned __int128 f = 1;
    int fs = from->logical == PQ_LOGICAL_DECIMAL ? from->decimal_scale : 0; /* an integer: 0 */
    for (int i = fs; i < to->decimal_scale; i++) f *= 10;
    for (int64_t r = 0; r < v->length; r++) {
        unsigned __int128 x = 0;
        if (pq_vec_is_valid(v, r)) x = (unsigned __int128)ds_dec_get128(from, v, r) * f;
        uint8_t *b = w.values + 16 * r;
        for (int i = 15; i >= 0; i--, x >>= 8) b[i] = (uint8_t)x;
    }
    ds_replace_vec(v, &w);
    return 0;
}

int ds_widen(const pq_column_desc *to, const pq_column_desc *from, pq_vec *v)
{
    if (to->physical == PQ_BYTE_ARRAY && from->physical != PQ_BYTE_ARRAY) return ds_to_text(from, v);
    if (ds_wide_decimal(to) && from->logical == PQ_LOGICAL_DECIMAL &&
        (from->type_length != 16 || from->decimal_scale != to->decimal_scale))
        return dec_to_wide(to, from, v);
    if (ds_wide_decimal(to) && from->logical != PQ_LOGICAL_DECIMAL)
        return dec_to_wide(to, from, v); /* an integer (ds_schema.c int_decimal_merge) */
    if (to->physical == from->physical && to->type_length == from->type_length) return 0;
    if (from->physical == PQ_INT96 && to->physical == PQ_INT64) return int96_nanos(v);
    if (ds_small_decimal(to) && ds_small_decimal(from)) return dec_convert(to, from, v);
    if (ds_small_decimal(from)) return dec_to_double(from, v);
    pq_vec w;
    pq_vec_init(&w, to->physical, 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return rc;
    bool u32 = from->logical == PQ_LOGICAL_UINT32;
    for (int64_t r = 0; r < v->length; r++) {
        int64_t i = 0;
        double d = 0;
        if (from->physical == PQ_INT32) {
            int32_t x;
            memcpy(&x, v->values + 4 * r, 4);
            i = u32 ? (int64_t)(uint32_t)x : x, d = (double)i;
        } else if (from->physical == PQ_INT64) {
            memcpy(&i, v->values + 8 * r, 8), d = (double)i;
        } else if (from->physical == PQ_FLOAT) {
            float x;
            memcpy(&x, v->values + 4 * r, 4), d = x;
        } else {
            memcpy(&d, v->values + 8 * r, 8);
        }
        if (to->physical == PQ_DOUBLE) memcpy(w.values + 8 * r, &d, 8);
        else if (to->physical == PQ_INT64) memcpy(w.values + 8 * r, &i, 8);
        else { int32_t x = (int32_t)i; memcpy(w.values + 4 * r, &x, 4); }
    }
    for (int64_t r = 0; v->null_count > 0 && r < v->length; r++) /* null slots stay zero (vec.h 2) */
        if (!pq_bit_get(v->validity, r)) memset(w.values + pq_fixed_width(w.type, 0) * r, 0,
                                                (size_t)pq_fixed_width(w.type, 0));
    ds_replace_vec(v, &w);
    return 0;
}
