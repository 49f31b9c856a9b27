/* filter/kernel.h: vectorised predicate kernels: one predicate over a decoded column slice
 * (pq_vec) or a dictionary-encoded slice, producing a row bit mask.
 *
 * Owns: the dense path (every row evaluated branch-free, 64 rows -> one mask word, then ANDed
 * with validity and the input mask), the sparse path (only rows set in the input mask), the
 * choice between them by input density, and the dictionary path.
 *
 * Invariants:
 *  1. valid(i) is the validity bit when null_count > 0, else true (format/vec.h).
 *     out[i] = in[i] AND valid(i) AND (some term matches value(i)), OR, when the predicate
 *     has an IS NULL term, in[i] AND NOT valid(i). Nulls never match a comparison.
 *  2. Floating point orders as PostgreSQL and DuckDB do: NaN is above every number (so it
 *     passes > and >=, fails =, <, <=, BETWEEN and IN, and passes != and NOT IN; literals are
 *     never NaN: a comparison with NaN was rewritten, and an IN list that held it keeps the
 *     NaN rows in it, expr.h invariant 5); -0.0 == +0.0. FLOAT values are widened to double before comparing with the
 *     (double) literal, which is exact.
 *  3. Dense, sparse and dictionary paths give bit-identical masks (tested against a scalar
 *     reference); the path only changes speed.
 *  4. No allocation per row; no function pointer per row: the switch on type and operator
 *     runs once per call (dense: once per term), loops run over 64-row blocks.
 *  5. A dynamic predicate whose bound is unset copies the input mask (keeps nulls too); once
 *     set it is its terms (expr.h invariant 6), plus the NaN rows when it keeps NaN. */
#ifndef RINGSCAN_FILTER_KERNEL_H
#define RINGSCAN_FILTER_KERNEL_H
#include <stdint.h>

#include "filter/expr.h"
#include "filter/mask.h"
#include "format/vec.h"

/* Input density below which the sparse path is used (Vortex uses 0.2). */
#define FLT_SPARSE_DENSITY 0.2

typedef enum flt_path {
    FLT_PATH_AUTO,   /* by density */
    FLT_PATH_DENSE,
    FLT_PATH_SPARSE,
} flt_path;

/* Evaluates p over the v->length rows of v, restricted to in (NULL = every row), into out
 * (re-initialised to v->length bits; its buffer is reused). in->len must equal v->length.
 * v->type must be p->desc->physical (FLBA: same type_length).
 * Returns 0, -EINVAL (type mismatch, the literal's domain does not fit the vector) or
 * -ENOMEM (growing out). */
int flt_eval(const flt_pred *p, const pq_vec *v, const flt_mask *in, flt_mask *out);
/* Same with the path forced (tests, benchmarks). */
int flt_eval_path(const flt_pred *p, const pq_vec *v, const flt_mask *in, flt_mask *out,
                  flt_path path);

/* Dictionary path, step 1: dmask = the value terms of p evaluated once per dictionary entry
 * (dict holds no nulls). Cache dmask for as long as the dictionary page lives. 0/-EINVAL/
 * -ENOMEM. */
int flt_eval_dict_prepare(const flt_pred *p, const pq_vec *dict, flt_mask *dmask);
/* Step 2: out (n bits) = dmask[idx[i]] for valid rows, applying validity (Arrow bytes, NULL =
 * none null), IS NULL terms and in (NULL = all) per invariant 1. idx of null rows is ignored.
 * Returns 0, RINGSCAN_EFORMAT if a valid row's index is >= dmask->len, or -ENOMEM. */
int flt_eval_dict_map(const flt_pred *p, const flt_mask *dmask, const uint32_t *idx, int64_t n,
                      const uint8_t *validity, const flt_mask *in, flt_mask *out);
/* Step 2 when out (in->len bits) already holds dmask's bit of each row's index and every row
 * is valid (format/page_walk.h pq_walk_dict_bits): out &= in, or out = in while p's dynamic
 * terms are unset (dmask then says nothing). */
void flt_eval_dict_bits(const flt_pred *p, const flt_mask *in, flt_mask *out);
/* Both steps with a temporary dictionary mask. */
int flt_eval_dict(const flt_pred *p, const pq_vec *dict, const uint32_t *idx, int64_t n,
                  const uint8_t *validity, const flt_mask *in, flt_mask *out);

/* A multi-column predicate (expr.h invariant 8) over vecs[i] = the rows of p->multi->cols[i]
 * (all of one length n): out (re-initialised to n bits) = in (NULL = all) AND the OR of its
 * items. Returns 0, -EINVAL (lengths differ, a vector of the wrong type) or -ENOMEM. */
int flt_eval_multi(const flt_pred *p, const pq_vec *const *vecs, const flt_mask *in,
                   flt_mask *out);

/* Scalar value comparisons shared with pruning and sort keys: signed big-endian integers (any
 * lengths, sign-extended), unsigned lexicographic bytes, and INT96 timestamps (12 bytes each:
 * nanoseconds of the day, then the Julian day, little-endian; by day, then nanoseconds).
 * Return <0, 0, >0. */
int flt_cmp_sdec(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen);
int flt_cmp_bytes(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen);
int flt_cmp_int96(const uint8_t *a, const uint8_t *b);

#endif
