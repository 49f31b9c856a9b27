/* bench/shapes.h: the bench query shapes on TPC-H lineitem and their exact expected answers,
 * computed from the data model (bench/lineitem.h) by plain C predicates, never by the scan.
 *
 * Owns: the shape table (name, --where text in the filter layer's syntax, projection, layout
 * needed) and the checksum definition shared by the expected side and the scan side.
 *
 * Checksum (what the bench computes from the scan's output, and shape_expected from the model):
 *   For each projected column j (0-based, in projection order) over the rows that pass:
 *     col_sum[j] = sum over rows of value(row), wrapping mod 2^64, where value is
 *       INT64 / INT32 columns (ints, DECIMAL unscaled, DATE days): the value sign-extended to
 *         64 bits and reinterpreted as uint64;
 *       BYTE_ARRAY columns: FNV-1a 64 of the value's bytes (offset basis 0xcbf29ce484222325,
 *         prime 0x100000001b3; the empty string hashes to the offset basis).
 *   checksum = fold over j = 0 .. nproj-1 of  c = c * 1000003 + col_sum[j]  (mod 2^64, c0 = 0).
 *   Row order does not matter; column order does. shape_vec_sum() computes col_sum from a
 *   pq_vec so the scan side need not re-implement it. (Deviation from the wording:
 *   strings contribute a hash per value, not only their length, so a decoder that returns
 *   the wrong bytes of the right length is caught.)
 *
 * Invariants:
 *  1. shape_acc_range over disjoint order ranges, merged with shape_result_merge, equals one
 *     call over their union (sums are order-free), so shape_expected may split by ranges.
 *  2. A shape with layout LINEITEM_LAYOUT_CANCEL is only evaluated on a generator in that
 *     layout (its filter reads l_cancelkey); other shapes read only the 16 TPC-H columns,
 *     which are the same in both layouts. */
#ifndef RINGSCAN_BENCH_SHAPES_H
#define RINGSCAN_BENCH_SHAPES_H
#include <stdint.h>

#include "bench/lineitem.h"
#include "format/vec.h"

typedef enum {
    SHAPE_FILTER_ONLY,
    SHAPE_LINEITEM,
    SHAPE_AND,
    SHAPE_PRUNE,
    SHAPE_WIDE,
    SHAPE_CANCEL,
    SHAPE_ORDER,
    SHAPE_COUNT
} shape_id;

typedef struct bench_shape {
    shape_id id;
    const char *name;      /* e.g. "lineitem_and" */
    const char *where;     /* filter text for --where */
    const char *project;   /* comma-separated column names for --columns */
    int nproj;
    int8_t proj[LINEITEM_COLS_MAX]; /* column indexes (LI_*) in projection order */
    lineitem_layout layout;         /* the file layout the shape needs */
    const char *note;      /* what the shape exercises, selectivity */
} bench_shape;

typedef struct shape_result {
    int64_t rows;
    uint64_t col_sum[LINEITEM_COLS_MAX]; /* per projected column, projection order */
    uint64_t checksum;                   /* filled by shape_result_finish */
} shape_result;

extern const bench_shape bench_shapes[SHAPE_COUNT];

/* The shape named name, or NULL. */
const bench_shape *shape_find(const char *name);

/* True when row r passes s's filter (the reference predicate, hand-written per shape). */
bool shape_match(const bench_shape *s, const lineitem_row *r);

/* FNV-1a 64 of len bytes. */
uint64_t shape_fnv1a64(const void *p, int64_t len);

/* Adds column j's contribution over all rows of v to *sum (see the checksum definition).
 * Null rows (validity bit 0) contribute nothing. Beyond lineitem's types (INT32, INT64,
 * BYTE_ARRAY as defined above): DOUBLE and FLOAT add their bit patterns, BOOLEAN adds 1 per
 * true, FIXED_LEN_BYTE_ARRAY and INT96 add the FNV-1a 64 of their bytes; so `scan --format
 * count` works on any flat file. */
void shape_vec_sum(const pq_vec *v, uint64_t *sum);

/* checksum from col_sum[0 .. nproj-1]. */
uint64_t shape_checksum(const uint64_t *col_sum, int nproj);

/* Zeroes *acc. */
void shape_result_init(shape_result *acc);
/* acc += other (rows and per-column sums). */
void shape_result_merge(shape_result *acc, const shape_result *other);
/* Sets acc->checksum from its col_sum for shape s. */
void shape_result_finish(const bench_shape *s, shape_result *acc);

/* Adds the passing rows of orders [first_order, first_order + n_orders) to *acc (rows and
 * col_sum; not checksum). The range must lie within the table. */
void shape_acc_range(const lineitem_gen *g, const bench_shape *s, int64_t first_order,
                     int64_t n_orders, shape_result *acc);

/* Exact expected answer of s over the whole table on nthreads threads (1..64; each takes a
 * contiguous order range). Returns 0, -EINVAL (s needs the cancel layout and g is not in it,
 * or bad nthreads), or a pthread_create error as negative errno (nothing partial is kept). */
int shape_expected(const lineitem_gen *g, const bench_shape *s, int nthreads, shape_result *out);

#endif
