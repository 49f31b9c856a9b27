/* format/vec.h: a decoded column slice in Arrow's memory layout, the layout the scan emits.
 *
 * Invariants:
 *  1. validity bits are meaningful only when null_count > 0 (the buffer may exist and hold
 *     anything otherwise); then bit i (LSB first) is 1 when row i is valid.
 *  2. Value slots of null rows are zeroed (fixed width) or empty (offsets[i] == offsets[i+1]).
 *  3. Fixed-width values: BOOLEAN is a bitmap; INT32/FLOAT 4 bytes; INT64/DOUBLE 8 bytes;
 *     INT96 12 bytes; FIXED_LEN_BYTE_ARRAY type_length bytes; all little-endian, densely packed.
 *  4. BYTE_ARRAY: offsets has length+1 entries, offsets[0] == 0, non-decreasing, and
 *     offsets[length] == data_len <= INT32_MAX; values is unused.
 *  5. Buffers are owned by the vector (pq_vec_free) and sized by the *_cap fields; appending
 *     grows them geometrically, never past the limits the caller checks beforehand.
 *  6. A vector with cols (a nested field's rows handed over column by column,
 *     column_nested.h pq_nest_columns) holds its rows there: length and null_count are the
 *     rows', its own buffers hold none of them (4 does not apply). It is only ever handed on
 *     whole and freed (pq_vec_free, pq_vec_clear): taking or cutting its rows is a broken
 *     invariant, except through pq_vec_take and pq_vec_cut, which know its columns' layout
 *     (pq_nest_cols.shape) and keep it. */
#ifndef RINGSCAN_FORMAT_VEC_H
#define RINGSCAN_FORMAT_VEC_H
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Parquet physical types; values equal the thrift enum. */
typedef enum {
    PQ_BOOLEAN = 0,
    PQ_INT32 = 1,
    PQ_INT64 = 2,
    PQ_INT96 = 3,
    PQ_FLOAT = 4,
    PQ_DOUBLE = 5,
    PQ_BYTE_ARRAY = 6,
    PQ_FIXED_LEN_BYTE_ARRAY = 7,
} pq_physical;

struct pq_nest_cols;

typedef struct pq_vec {
    pq_physical type;
    int32_t type_length; /* FIXED_LEN_BYTE_ARRAY width in bytes; else 0 */
    int64_t length;      /* rows */
    int64_t null_count;
    uint8_t *validity;   /* (length+7)/8 bytes or NULL */
    uint8_t *values;     /* fixed width values or boolean bitmap */
    int32_t *offsets;    /* BYTE_ARRAY only */
    uint8_t *data;       /* BYTE_ARRAY bytes */
    int64_t data_len;
    int64_t validity_cap, values_cap, offsets_cap, data_cap; /* bytes/entries allocated */
    struct pq_nest_cols *cols; /* NULL, or the rows as a nested field's columns (invariant 6) */
} pq_vec;

/* One node of a nested field's Arrow shape as built columns (column_nested.h pq_nest: the
 * node's index in the shape is its index here): a struct's or list's own validity (a leaf's
 * is its vals') and a list's int32 offsets (length + 1), a leaf's values. */
typedef struct pq_nest_col {
    int64_t length, null_count;
    uint8_t *valid;     /* validity bits, meaningful when null_count > 0 */
    int64_t valid_cap;  /* bytes */
    int32_t *offsets;   /* LIST/MAP: length + 1 */
    int64_t off_cap;    /* entries */
    struct pq_vec vals; /* PRIM */
} pq_nest_col;

/* The layouts built columns take (format/column_nested.h pq_nest_columns), what taking and
 * cutting their rows needs to know of the field's shape: a struct of primitives (col[0] the
 * struct, col[1 ..] its leaves, one slot per row), a list of one leaf (col[0] the list,
 * col[1] the leaf, one slot per element) or a list of a struct of primitives (col[0] the
 * list, col[1] the struct, col[2 ..] its leaves, one slot per element). */
typedef enum { PQ_NEST_COLS_STRUCT = 0, PQ_NEST_COLS_LIST, PQ_NEST_COLS_LIST_STRUCT } pq_nest_shape;

/* A nested field's rows as columns: col[0 .. n), one per node of its shape (owned). */
typedef struct pq_nest_cols {
    int32_t n;
    pq_nest_shape shape;
    pq_nest_col *col;
} pq_nest_cols;

/* Frees c's columns and c itself (NULL: nothing). */
void pq_nest_cols_free(pq_nest_cols *c);
/* The bytes c's buffers hold (their capacity). */
uint64_t pq_nest_cols_bytes(const pq_nest_cols *c);

/* Bytes per value of a fixed-width type (BOOLEAN and BYTE_ARRAY: 0). */
static inline int32_t pq_fixed_width(pq_physical t, int32_t type_length)
{
    switch (t) {
    case PQ_INT32: case PQ_FLOAT: return 4;
    case PQ_INT64: case PQ_DOUBLE: return 8;
    case PQ_INT96: return 12;
    case PQ_FIXED_LEN_BYTE_ARRAY: return type_length;
    default: return 0;
    }
}

static inline bool pq_bit_get(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

static inline void pq_bit_set(uint8_t *bits, int64_t i, bool v)
{
    uint8_t m = (uint8_t)(1u << (i & 7));
    bits[i >> 3] = v ? (uint8_t)(bits[i >> 3] | m) : (uint8_t)(bits[i >> 3] & ~m);
}

/* Copies n bytes from src to dst. slack: 16 bytes may be read at src and written at dst
 * (inside their buffers), so n <= 16 moves as one fixed 16-byte copy, not a libc call per
 * short value; the bytes past n written at dst are left for the caller to overwrite. */
static inline void pq_copy_short(uint8_t *dst, const uint8_t *src, size_t n, bool slack)
{
    if (slack && n <= 16) memcpy(dst, src, 16);
    else if (n) memcpy(dst, src, n);
}

/* Copies one fixed-width value of w bytes, with the common widths as constant copies. */
static inline void pq_copy_fixed(uint8_t *dst, const uint8_t *src, int32_t w)
{
    if (w == 8) memcpy(dst, src, 8);
    else if (w == 4) memcpy(dst, src, 4);
    else memcpy(dst, src, (size_t)w);
}

/* An INT96 timestamp (8 bytes of nanoseconds in the day, then a 4-byte Julian day, little
 * endian) as nanoseconds since the epoch, as pyarrow and DuckDB read it (wrapping as they do
 * outside the int64 range). */
static inline int64_t pq_int96_nanos(const uint8_t *p)
{
    uint64_t ns;
    uint32_t jd;
    memcpy(&ns, p, 8);
    memcpy(&jd, p + 8, 4);
    return (int64_t)((uint64_t)((int64_t)jd - 2440588) * UINT64_C(86400000000000) + ns);
}

/* Row r of an INT32 or INT64 vector v, sign-extended. */
static inline int64_t pq_vec_int_at(const pq_vec *v, int64_t r)
{
    assert(v->type == PQ_INT32 || v->type == PQ_INT64);
    if (v->type == PQ_INT32) {
        int32_t x;
        memcpy(&x, v->values + 4 * r, 4);
        return x;
    }
    int64_t x;
    memcpy(&x, v->values + 8 * r, 8);
    return x;
}

static inline bool pq_vec_is_valid(const pq_vec *v, int64_t i)
{
    return v->null_count == 0 || pq_bit_get(v->validity, i);
}

/* Initialises an empty vector of the given type (no allocation). */
void pq_vec_init(pq_vec *v, pq_physical type, int32_t type_length);
/* Ensures room for rows more rows (and data_bytes more BYTE_ARRAY bytes); 0 or -ENOMEM. */
int pq_vec_reserve(pq_vec *v, int64_t rows, int64_t data_bytes);
/* Frees every buffer and re-initialises v as empty. */
void pq_vec_free(pq_vec *v);
/* Resets length/null_count/data_len to 0 keeping the buffers. */
void pq_vec_clear(pq_vec *v);
/* Copies the w-byte values src[idx[i]] (i < n) to dst back to back; no alignment needed. */
void pq_gather_fixed(uint8_t *dst, const uint8_t *src, const uint32_t *idx, int64_t n, size_t w);
/* Appends rows idx[0..n) of src to dst (same type and width), values and validity. A nested
 * field's vector with columns (invariant 6) takes into columns of the same layout (an empty
 * dst gets them; rows of null placeholders, packed null rows without bytes as a dataset's
 * file that lacks the field gives, join either form as null rows). Returns 0, -EOVERFLOW
 * (byte-array data or a list's elements past INT32_MAX; packed rows that are not null
 * placeholders beside columns) or -ENOMEM; on failure dst's rows are as they were or dst is
 * to be freed (its columns may hold part of the rows). format/nest_take.c for columns. */
int pq_vec_take(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst);
/* Cuts v to its first n rows (n <= length) keeping the invariants: null counts count only
 * those rows (Arrow consumers read them), a BYTE_ARRAY's data_len == offsets[n], a nested
 * field's columns cut at every level. */
void pq_vec_cut(pq_vec *v, int64_t n);
/* pq_vec_take and pq_vec_cut for vectors with columns (format/nest_take.c). */
int pq_nest_cols_take(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst);
void pq_nest_cols_cut(pq_vec *v, int64_t n);

#endif
