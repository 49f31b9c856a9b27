/* scan/ds_widen.c: a file's vector of a dataset column widened to the dataset's type
 * (ds_impl.h invariant 2): integers to the wider integer, numbers to DOUBLE, INT96 timestamps
 * to INT64 nanoseconds; decimals and integers into the dataset's decimal as DuckDB casts them
 * (ds_dec_cast: another physical form, the unscaled value multiplied up to the dataset's
 * scale, or divided down rounding half away from zero where a union past 38 digits or a
 * first file's type has fewer decimals, and a value past its precision refused); values as
 * text beside a string column are ds_text.c's. Null slots stay zero (format/vec.h invariant
 * 2). No I/O. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scan/ds_impl.h"

/* A small decimal as DOUBLE (unscaled / 10^scale, as DuckDB casts it), or that as a FLOAT
 * (f32: under a first file's FLOAT). */
static int dec_to_double(const pq_column_desc *from, bool f32, pq_vec *v)
{
    pq_vec w;
    pq_vec_init(&w, f32 ? PQ_FLOAT : PQ_DOUBLE, 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return pq_vec_free(&w), rc; /* its part allocated */
    double scale = 1;
    for (int i = 0; i < from->decimal_scale; i++) scale *= 10;
    for (int64_t r = 0; r < v->length; r++) {
        double d = pq_vec_is_valid(v, r) ? (double)ds_dec_get128(from, v, r) / scale : 0;
        float f = (float)d;
        if (f32) memcpy(w.values + 4 * r, &f, 4);
        else memcpy(w.values + 8 * r, &d, 8);
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
    if (rc) return pq_vec_free(&w), rc; /* its part allocated */
    for (int64_t r = 0; r < v->length; r++) {
        int64_t x = pq_vec_is_valid(v, r) ? pq_int96_nanos(v->values + 12 * r) : 0;
        memcpy(w.values + 8 * r, &x, 8);
    }
    ds_replace_vec(v, &w);
    return 0;
}

static unsigned __int128 pow10_128(int n)
{
    assert(n >= 0 && n <= 38);
    unsigned __int128 f = 1;
    for (int i = 0; i < n; i++) f *= 10;
    return f;
}

/* x (an unscaled decimal) times 10^shift, or divided by 10^-shift rounding half away from
 * zero (DuckDB's decimal cast), into *out; false when the result lies outside [lo, hi]. */
static bool dec_shift(__int128 x, int shift, __int128 lo, __int128 hi, __int128 *out)
{
    unsigned __int128 m = x < 0 ? -(unsigned __int128)x : (unsigned __int128)x;
    unsigned __int128 f = pow10_128(shift < 0 ? -shift : shift), cap = (unsigned __int128)hi + 1;
    if (shift >= 0 && m > cap / f) return false; /* (no 128-bit overflow below) */
    if (shift >= 0) m *= f;
    else m = m / f + (m % f >= f / 2); /* f a power of ten, at least 10 */
    if (m > cap) return false;
    __int128 y = x < 0 ? -(__int128)m : (__int128)m;
    if (y < lo || y > hi) return false;
    *out = y;
    return true;
}

/* The values type d holds as [*lo, *hi]: a decimal's (ds_dec_range), an integer's range by
 * width and sign. */
static void dec_range(const pq_column_desc *d, __int128 *lo, __int128 *hi)
{
    if (d->logical == PQ_LOGICAL_DECIMAL) {
        ds_dec_range(d, lo, hi);
        return;
    }
    bool ok = ds_int_range(d, lo, hi);
    assert(ok); /* an integer (ds_dec_cast_needed) */
    (void)ok;
}

/* The file's value x (scale fs) that does not fit c: the error naming it. */
static int does_not_fit(const ds_col *c, __int128 x, int fs, const char *path, pq_err *e)
{
    char text[48], type[64];
    text[ds_decimal_text(x, fs, text)] = 0;
    bool held = ds_cast_type_text(&c->desc, type, sizeof type);
    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.120s: column '%.40s': the value %s does not "
                   "fit %s, its type from %.120s (%s)", path, c->name, text, type, c->from,
                   held ? "DuckDB reads it in its precision" : "DuckDB refuses it too");
}

/* Value x of a FLOAT or DOUBLE as type to into *out (an unscaled decimal, an integer, or a
 * FLOAT's bits), as DuckDB casts it: a decimal's x * 10^scale rounded half away from zero, an
 * integer's x rounded half to even, each within to's range; a FLOAT's (float)x, finite when x
 * is. False when it does not fit. */
static bool real_value(const pq_column_desc *to, double x, __int128 *out)
{
    if (to->physical == PQ_FLOAT) {
        float f = (float)x;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        *out = (__int128)bits;
        return !isfinite(x) || isfinite(f);
    }
    __int128 lo, hi;
    dec_range(to, &lo, &hi);
    if (to->logical == PQ_LOGICAL_DECIMAL) {
        double y = x * (double)pow10_128(to->decimal_scale);
        x = y < 0 ? -floor(-y + 0.5) : floor(y + 0.5);
    } else {
        x = nearbyint(x);
    }
    if (!(x > -1.7e38 && x < 1.7e38)) return false; /* (NaN and infinities too; in __int128) */
    *out = (__int128)x;
    return *out >= lo && *out <= hi;
}

/* v (FLOAT or DOUBLE values, type from) cast to c's type (real_value). */
static int real_cast(const ds_col *c, const pq_column_desc *from, const char *path, pq_vec *v,
                     pq_err *e)
{
    const pq_column_desc *to = &c->desc;
    pq_vec w;
    pq_vec_init(&w, to->physical, to->physical == PQ_FIXED_LEN_BYTE_ARRAY ? to->type_length : 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return pq_vec_free(&w), rc; /* its part allocated (it leaked) */
    for (int64_t r = 0; r < v->length; r++) {
        float f = 0;
        double x = 0;
        if (from->physical == PQ_FLOAT) memcpy(&f, v->values + 4 * r, 4), x = f;
        else memcpy(&x, v->values + 8 * r, 8);
        __int128 y = 0;
        if (pq_vec_is_valid(v, r) && !real_value(to, x, &y)) {
            pq_vec_free(&w);
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "%.120s: column '%.40s': the value "
                           "%.17g does not fit its type from %.120s (DuckDB refuses it too)",
                           path, c->name, x, c->from);
        }
        if (to->physical == PQ_FLOAT) { uint32_t b = (uint32_t)y; memcpy(w.values + 4 * r, &b, 4); }
        else ds_dec_put(to, &w, r, y);
    }
    ds_replace_vec(v, &w);
    return 0;
}

int ds_dec_cast(const ds_col *c, const pq_column_desc *from, const char *path, pq_vec *v,
                pq_err *e)
{
    const pq_column_desc *to = &c->desc;
    assert(ds_dec_cast_needed(to, from));
    if (from->physical == PQ_BYTE_ARRAY) return ds_parse_cast(c, path, v, e);
    if (from->physical == PQ_FLOAT || from->physical == PQ_DOUBLE)
        return real_cast(c, from, path, v, e);
    pq_vec w;
    pq_vec_init(&w, to->physical, to->physical == PQ_FIXED_LEN_BYTE_ARRAY ? to->type_length : 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return pq_vec_free(&w), rc; /* its part allocated */
    int fs = from->logical == PQ_LOGICAL_DECIMAL ? from->decimal_scale : 0; /* an integer: 0 */
    int ts = to->logical == PQ_LOGICAL_DECIMAL ? to->decimal_scale : 0;
    __int128 lo, hi;
    dec_range(to, &lo, &hi);
    for (int64_t r = 0; r < v->length; r++) {
        __int128 x = pq_vec_is_valid(v, r) ? ds_dec_get128(from, v, r) : 0, y = 0;
        if (!dec_shift(x, ts - fs, lo, hi, &y)) {
            pq_vec_free(&w);
            return does_not_fit(c, x, fs, path, e);
        }
        ds_dec_put(to, &w, r, y);
    }
    ds_replace_vec(v, &w);
    return 0;
}

int ds_widen(const pq_column_desc *to, const pq_column_desc *from, pq_vec *v)
{
    if (to->physical == PQ_BYTE_ARRAY && from->physical != PQ_BYTE_ARRAY) return ds_to_text(from, v);
    assert(!ds_dec_cast_needed(to, from));
    if (to->physical == from->physical && to->type_length == from->type_length) return 0;
    if (from->physical == PQ_INT96 && to->physical == PQ_INT64) return int96_nanos(v);
    if (ds_small_decimal(from)) return dec_to_double(from, to->physical == PQ_FLOAT, v);
    pq_vec w;
    pq_vec_init(&w, to->physical, 0);
    int rc = pq_vec_reserve(&w, v->length, 0);
    if (rc) return pq_vec_free(&w), rc; /* its part allocated */
    bool u32 = from->logical == PQ_LOGICAL_UINT32, u64 = from->logical == PQ_LOGICAL_UINT64;
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
        if (u64) d = (double)(uint64_t)i; /* (a UINT64 beside a float) */
        bool ints = from->physical == PQ_INT32 || from->physical == PQ_INT64;
        float f = !ints ? (float)d : u64 ? (float)(uint64_t)i : (float)i; /* (rounded once) */
        if (to->physical == PQ_DOUBLE) memcpy(w.values + 8 * r, &d, 8);
        else if (to->physical == PQ_FLOAT) memcpy(w.values + 4 * r, &f, 4);
        else if (to->physical == PQ_INT64) memcpy(w.values + 8 * r, &i, 8);
        else { int32_t x = (int32_t)i; memcpy(w.values + 4 * r, &x, 4); }
    }
    for (int64_t r = 0; v->null_count > 0 && r < v->length; r++) /* null slots stay zero (vec.h 2) */
        if (!pq_bit_get(v->validity, r)) memset(w.values + pq_fixed_width(w.type, 0) * r, 0,
                                                (size_t)pq_fixed_width(w.type, 0));
    ds_replace_vec(v, &w);
    return 0;
}
