/* filter/sortkey.h: ORDER BY keys: how two rows of decoded columns compare under one key
 * (direction, null placement), and under a list of keys with file order breaking ties. The
 * Top-K scan (scan/task_topk.c, scan/topk.c) sorts with these and nothing else.
 *
 * Invariants:
 *  1. Values compare in their column's domain (flt_domain_of): signed or unsigned integers,
 *     floats with NaN above every number and equal to NaN (-0.0 == +0.0), strings as unsigned
 *     bytes (a prefix first), decimals as signed numbers, INT96 by Julian day then nanoseconds
 *     of the day, booleans false < true.
 *  2. A null compares equal to a null, and before (nulls_first) or after every value whatever
 *     the direction; desc reverses the value order only (the SQL meaning of DESC NULLS LAST).
 *  3. flt_keys_cmp is a total order: key by key, then the row's file position, ascending, so
 *     equal keys keep file order and two different rows never compare equal. */
#ifndef RINGSCAN_FILTER_SORTKEY_H
#define RINGSCAN_FILTER_SORTKEY_H
#include <stdbool.h>
#include <stdint.h>

#include "filter/expr.h"
#include "format/vec.h"

enum { FLT_MAX_SORT_KEYS = 16 };

typedef struct flt_sort_key {
    flt_domain dom;
    bool desc;
    bool nulls_first;
} flt_sort_key;

/* One side of a comparison: row i of each key's vector, at file position pos. */
typedef struct flt_sort_row {
    const pq_vec *const *keys; /* nkeys vectors */
    int64_t i;
    int64_t pos;
} flt_sort_row;

/* One parsed ORDER BY key. */
typedef struct flt_order_term {
    int32_t column;   /* index into the schema */
    bool desc;
    bool nulls_first;
} flt_order_term;

/* Parses an ORDER BY list (NUL-terminated, < FLT_MAX_TEXT bytes) against cols[0..ncols):
 *   list := key (',' key)* ; key := col [ASC | DESC] [NULLS (FIRST | LAST)]
 * (keywords case-insensitive; col bare, letters digits _ . and UTF-8 past ASCII, or "quoted"
 * with "" escape).
 * A key without ASC or DESC takes desc_default; nulls go last unless NULLS FIRST (DuckDB's
 * default, in both directions). Returns 0 and out[0..*n) (room for FLT_MAX_SORT_KEYS), or
 * RINGSCAN_EPARSE ("... at character N", e->offset = N), -EINVAL ("no column named 'x'"),
 * RINGSCAN_ELIMIT (more than FLT_MAX_SORT_KEYS keys). */
int flt_parse_order(const char *text, const pq_column_desc *cols, int32_t ncols,
                    bool desc_default, flt_order_term *out, int *n, pq_err *e);

/* The key for column d (desc, nulls_first as given); 0 or RINGSCAN_EUNSUPPORTED with e filled
 * (a type nothing compares: FLOAT16, INTERVAL, ...). */
int flt_sort_key_init(flt_sort_key *k, const pq_column_desc *d, bool desc, bool nulls_first,
                      pq_err *e);
/* <0, 0, >0 as row i of a sorts before, with, after row j of b under k (invariants 1-2). a and
 * b have the key's column type; i < a->length, j < b->length. */
int flt_sort_cmp(const flt_sort_key *k, const pq_vec *a, int64_t i, const pq_vec *b, int64_t j);
/* Row x against row y under keys[0..n) then file position (invariant 3). */
int flt_keys_cmp(const flt_sort_key *keys, int n, const flt_sort_row *x, const flt_sort_row *y);

#endif
