/* bench/topk_gen.h: the Top-K seed workload (issue 21) behind `ringscan gen topk` and the
 * model that answers its queries without reading the file.
 *
 * Owns: the value functions of every column, filling pq_vecs (format/vec.h) for a row range,
 * writing the whole table to a format/writer.h writer, and the expected answer of
 * `SELECT id ... [WHERE flag = 0] ORDER BY score DESC|ASC, id LIMIT k`.
 *
 * The table (G row groups of R rows, N = G * R rows; row index r = 0 .. N-1 in file order,
 * group g = r / R, position i = r % R):
 *   id       INT64 REQUIRED   r
 *   score    INT64 REQUIRED   see the layouts
 *   payload  BYTE_ARRAY UTF8  TOPK_PAYLOAD_LEN_MIN .. TOPK_PAYLOAD_LEN_MAX printable ASCII
 *                             bytes, a pure function of (seed, r)
 *   flag     INT32 REQUIRED   0, except 1 on the control layout's sentinels
 * Band width W = R, band stride 2W, so band(g) = [(G-1-g) * 2W, (G-1-g) * 2W + W).
 *   pruning  score(r) = band(g).lo + h(seed, r) % W: group 0 holds the highest band and every
 *            group's max is below the previous group's min (a gap of at least W); about 37% of
 *            a group's rows repeat another row's score (R draws from W = R values).
 *   control  the same scores moved by the bijection sigma(r) = (r % G) * R + r / G (a
 *            transpose), so every group of >= G rows draws from every band and min/max
 *            statistics cannot order groups; then in each group the row at position
 *            topk_sentinel_pos(g) gets score INT64_MAX and flag 1 (its moved score is
 *            dropped). Under `WHERE flag = 0` every group's max is still INT64_MAX, so
 *            statistics prune nothing.
 * Every value is a pure function of (layout, seed, G, R, r) through splitmix64, so any range
 * can be generated alone and the model can compute any row's score directly.
 *
 * Invariants:
 *  1. G in [1, TOPK_ROW_GROUPS_MAX], R in [1, TOPK_ROW_GROUP_ROWS_MAX], N <= TOPK_ROWS_MAX,
 *     so every score, band bound and row index fits an int64 with room (checked at init).
 *  2. The writer given to topk_gen_write must cut row groups every R rows (its
 *     row_group_rows == R): the layouts are defined by group.
 *  3. topk_gen_expect keeps at most k candidates (k <= TOPK_EXPECT_MAX): O(N log k) time,
 *     O(k) memory, and it never reads a file. */
#ifndef RINGSCAN_BENCH_TOPK_GEN_H
#define RINGSCAN_BENCH_TOPK_GEN_H
#include <stdbool.h>
#include <stdint.h>

#include "format/err.h"
#include "format/vec.h"
#include "format/writer.h"

#define TOPK_ROW_GROUPS_MAX (1 << 20)
#define TOPK_ROW_GROUP_ROWS_MAX INT32_MAX
#define TOPK_ROWS_MAX (INT64_C(1) << 36)
#define TOPK_EXPECT_MAX (1 << 22)
#define TOPK_PAYLOAD_LEN_MIN 24
#define TOPK_PAYLOAD_LEN_MAX 56
#define TOPK_BATCH_ROWS 8192

enum { TOPK_COLS = 4 };
enum { TOPK_COL_SCORE = 0, TOPK_COL_ID = 1, TOPK_COL_PAYLOAD = 2, TOPK_COL_FLAG = 3 };

typedef enum { TOPK_LAYOUT_PRUNING = 0, TOPK_LAYOUT_CONTROL = 1 } topk_layout;

typedef struct topk_gen {
    topk_layout layout;
    uint64_t seed;
    int64_t row_groups;     /* G */
    int64_t row_group_rows; /* R */
    int64_t rows;           /* N = G * R */
} topk_gen;

/* Sets up g. Returns 0, or -EINVAL for an unknown layout or sizes outside invariant 1 (g is
 * then unusable). */
int topk_gen_init(topk_gen *g, topk_layout layout, uint64_t seed, int64_t row_groups,
                  int64_t row_group_rows);

/* The value functions of row r (0 <= r < g->rows; asserted). */
int64_t topk_score(const topk_gen *g, int64_t r);
int32_t topk_flag(const topk_gen *g, int64_t r);
/* Writes row r's payload (no terminator) to out, which has room for TOPK_PAYLOAD_LEN_MAX
 * bytes; returns its length in [TOPK_PAYLOAD_LEN_MIN, TOPK_PAYLOAD_LEN_MAX]. */
int topk_payload(const topk_gen *g, int64_t r, char *out);
/* Control layout: the position in group grp (0 <= grp < G) of its sentinel row. */
int64_t topk_sentinel_pos(const topk_gen *g, int64_t grp);

/* Fills d[0 .. TOPK_COLS) with the schema, in TOPK_COL_* order (names are static). */
void topk_gen_schema(pq_column_desc *d);

/* Appends rows [first, first + n) to cols[0 .. TOPK_COLS) (vectors of the schema's types,
 * cleared by the caller or not). Returns 0, -EINVAL (range outside [0, N)), RINGSCAN_ELIMIT
 * (payload bytes would pass INT32_MAX) or -ENOMEM; on error the vectors' lengths may differ
 * and must be cleared before reuse. */
int topk_gen_batch(const topk_gen *g, int64_t first, int64_t n, pq_vec *cols);

/* Called after each batch written: rows written so far of total. */
typedef void (*topk_gen_tick)(void *ctx, int64_t rows_done, int64_t rows_total);

/* Writes every row of g to w (opened with topk_gen_schema's columns, row_group_rows == R),
 * in batches of TOPK_BATCH_ROWS, calling tick (may be NULL) after each. Does not close w.
 * Returns 0 or a negative status with e filled. */
int topk_gen_write(const topk_gen *g, pq_writer *w, topk_gen_tick tick, void *ctx, pq_err *e);

/* The model: the ids of `SELECT id FROM t [WHERE flag = 0] ORDER BY score DESC|ASC, id
 * LIMIT k` (desc picks DESC; where_flag applies the filter), best first, ties broken by id
 * (= file order), computed from the value functions alone. ids has room for k entries; *n is
 * set to min(k, rows passing). Returns 0, -EINVAL (k < 0 or k > TOPK_EXPECT_MAX) or
 * -ENOMEM. */
int topk_gen_expect(const topk_gen *g, int64_t k, bool desc, bool where_flag, int64_t *ids,
                    int64_t *n);

#endif
