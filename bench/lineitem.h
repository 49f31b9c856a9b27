/* bench/lineitem.h: the TPC-H lineitem data model behind `ringscan gen lineitem` and the bench
 * shapes' expected answers (bench/shapes.h).
 *
 * Owns: the column table, the counter-based random model of every row, and filling pq_vecs
 * (format/vec.h) for a range of orders. It never writes files: the Parquet writer takes the
 * vectors.
 *
 * The model (TPC-H 2.x section 4.2.3 domains; dbgen's shapes, not its byte stream):
 *   orders      n_orders = floor(1,500,000 * sf); order index i = 0 .. n_orders-1 (0-based);
 *               orderkey(i) = (i / 8) * 32 + i % 8 + 1 (the spec's sparse keys: the first 8 of
 *               every 32); lines per order uniform 1..7; orderdate uniform in
 *               [1992-01-01, 1998-12-31 - 151 days] = [8035, 10440] days since 1970-01-01.
 *   l_linenumber 1..lines; l_partkey uniform 1..P, P = floor(200,000 * sf);
 *   l_suppkey   (partkey + j * (S/4 + (partkey-1)/S)) % S + 1, j uniform 0..3,
 *               S = floor(10,000 * sf);
 *   l_quantity  1..50; l_extendedprice = quantity * retail(partkey), retail in cents =
 *               90000 + (partkey/10) % 20001 + 100 * (partkey % 1000); l_discount 0..10 cents,
 *               l_tax 0..8 cents. All four are DECIMAL(15,2) held as unscaled INT64.
 *   dates       shipdate = orderdate + 1..121, commitdate = orderdate + 30..90,
 *               receiptdate = shipdate + 1..30 (DATE = INT32 days since 1970-01-01).
 *   flags       returnflag 'R' or 'A' (even odds) when receiptdate <= 1995-06-17 (9298), else
 *               'N'; linestatus 'O' when shipdate > 1995-06-17, else 'F'.
 *   strings     shipinstruct uniform over 4, shipmode uniform over 7 (lineitem_shipinstruct,
 *               lineitem_shipmode); comment: length uniform 10..43 bytes, text = words of a
 *               fixed grammar (adverb adjective noun verb preposition "the" adjective noun
 *               terminator, repeated) drawn uniformly from short dbgen-style word lists, cut
 *               to the length (it may end mid-word or in a space, as dbgen's pool cut does).
 *               dbgen draws from a 300 MB text pool; this simplification keeps the lengths and
 *               the vocabulary, not dbgen's word frequencies.
 *   Exact dbgen bytes are NOT reproduced (tpchgen-cli makes those for peer comparisons).
 *
 * Randomness is counter-based: every value is a pure function of (seed, stream, order index,
 * line number) through splitmix64, so any order range can be generated alone, in any order,
 * on any thread, and the result equals the same rows of a full run. Uniform draws use the
 * 64x64->128 multiply-high reduction (bias below 2^-40 for these ranges).
 *
 * Layout LINEITEM_LAYOUT_CANCEL adds a 17th column, l_cancelkey INT64, placed by global row
 * index r (0-based over the file) and the writer's row-group size R:
 *   r % 64 == 0  -> 0                    (every aligned 64-row block holds the min ...
 *   r % 64 == 1  -> LINEITEM_CANCEL_MAX     ... and the max, so the min/max of any run of
 *                                           >= 65 rows (page, row group, split) spans the literal)
 *   r % 64 == 32 and (r / R) % 8 == 3 -> LINEITEM_CANCEL_LITERAL (odd: the only matches)
 *   otherwise    -> an even value uniform in [0, LINEITEM_CANCEL_MAX] (high cardinality, so a
 *                   dictionary page does not list the values either)
 * So `l_cancelkey = 1000001` matches R/64 rows (rounded by the file end) in row groups 3, 11,
 * 19, ... and no row elsewhere, and min/max statistics (chunk, page index) never prune it.
 * A bloom filter on l_cancelkey WOULD prune it: do not pass it to --bloom for that shape.
 * The placement is right only when the writer cuts row groups every R rows exactly.
 *
 * Invariants:
 *  1. Rows come in order index order; orderkey is strictly increasing across orders and
 *     linenumber runs 1..lines inside an order.
 *  2. lineitem_order_rows(g, i, ...) returns the same rows whatever was generated before.
 *  3. lineitem_order_first_row(g, i) == sum of line counts of orders 0..i-1 (exact).
 *  4. Every BYTE_ARRAY vector keeps data_len <= INT32_MAX (checked before appending). */
#ifndef RINGSCAN_BENCH_LINEITEM_H
#define RINGSCAN_BENCH_LINEITEM_H
#include <stdbool.h>
#include <stdint.h>

#include "format/vec.h"

enum {
    LI_ORDERKEY, LI_PARTKEY, LI_SUPPKEY, LI_LINENUMBER, LI_QUANTITY, LI_EXTENDEDPRICE,
    LI_DISCOUNT, LI_TAX, LI_RETURNFLAG, LI_LINESTATUS, LI_SHIPDATE, LI_COMMITDATE,
    LI_RECEIPTDATE, LI_SHIPINSTRUCT, LI_SHIPMODE, LI_COMMENT,
    LI_CANCELKEY, /* only in LINEITEM_LAYOUT_CANCEL */
    LINEITEM_TPCH_COLS = 16,
    LINEITEM_COLS_MAX = 17,
};

/* Model constants (see the file header). Dates are days since 1970-01-01. */
#define LINEITEM_LINES_MAX 7
#define LINEITEM_COMMENT_LEN_MIN 10
#define LINEITEM_COMMENT_LEN_MAX 43
#define LINEITEM_DATE_START_DAYS 8035   /* 1992-01-01 */
#define LINEITEM_DATE_CURRENT_DAYS 9298 /* 1995-06-17 */
#define LINEITEM_DATE_END_DAYS 10591    /* 1998-12-31 */
#define LINEITEM_ORDERDATE_MAX_DAYS (LINEITEM_DATE_END_DAYS - 151)
#define LINEITEM_CANCEL_MAX 2000000
#define LINEITEM_CANCEL_LITERAL 1000001
#define LINEITEM_CANCEL_BLOCK_ROWS 64
#define LINEITEM_CANCEL_GROUP_PERIOD 8
#define LINEITEM_CANCEL_GROUP_PHASE 3

typedef enum { LI_KIND_INT, LI_KIND_DECIMAL, LI_KIND_DATE, LI_KIND_STRING } lineitem_kind;

typedef enum { LINEITEM_LAYOUT_TPCH = 0, LINEITEM_LAYOUT_CANCEL = 1 } lineitem_layout;

/* One column: Parquet physical type, logical meaning, and DECIMAL precision/scale (0 else).
 * All columns are REQUIRED (never null). Strings are UTF8 (ASCII in practice). */
typedef struct lineitem_column {
    const char *name;
    pq_physical physical;
    lineitem_kind kind;
    int32_t precision, scale;
} lineitem_column;

extern const lineitem_column lineitem_columns[LINEITEM_COLS_MAX];
extern const char *const lineitem_shipinstruct[4];
extern const char *const lineitem_shipmode[7];

typedef struct lineitem_gen {
    double sf;
    uint64_t seed;
    uint64_t key;               /* seed mixed once */
    int64_t n_orders, n_parts, n_supps;
    int64_t total_rows;
    lineitem_layout layout;
    int64_t row_group_rows;     /* LINEITEM_LAYOUT_CANCEL only; else 0 */
    int ncols;                  /* 16, or 17 with the cancel layout */
    int64_t *chunk_first_row;   /* first row of orders k * LINEITEM_CHUNK_ORDERS; owned */
    int64_t n_chunks;
} lineitem_gen;

#define LINEITEM_CHUNK_ORDERS 1024

/* One generated row. Decimals unscaled (cents), dates in days since 1970-01-01. */
typedef struct lineitem_row {
    int64_t orderkey, partkey, suppkey;
    int32_t linenumber;
    int64_t quantity, extendedprice, discount, tax;
    char returnflag, linestatus;
    int32_t shipdate, commitdate, receiptdate;
    uint8_t shipinstruct, shipmode; /* indexes into lineitem_shipinstruct / _shipmode */
    uint8_t comment_len;
    char comment[LINEITEM_COMMENT_LEN_MAX + 1]; /* NUL-terminated for convenience */
    int64_t cancelkey;  /* LINEITEM_LAYOUT_CANCEL only; else 0 */
    int64_t row_index;  /* global 0-based row index */
} lineitem_row;

/* Sets up a generator for scale factor sf (> 0; 0.01 gives 15,000 orders; counts are
 * floor(base * sf) with a 1e-6 tolerance so that 0.01 * 1.5e6 is 15,000) and seed, TPC-H
 * layout. Computes the per-chunk row offsets (one cheap pass over the orders: ~10 ms at sf=1).
 * Returns 0, -EINVAL (sf out of (0, 100000] or fewer than 1 order/part/supplier... S < 4 is
 * rejected because the suppkey rule needs S/4 >= 1), or -ENOMEM. Free with lineitem_gen_free. */
int lineitem_gen_init(lineitem_gen *g, double sf, uint64_t seed);

/* Switches to the cancel layout (17 columns) for a writer cutting row groups every
 * row_group_rows rows (>= 128). Returns 0 or -EINVAL. */
int lineitem_gen_set_cancel_layout(lineitem_gen *g, int64_t row_group_rows);

/* Releases the offsets table; g may be re-initialised afterwards. */
void lineitem_gen_free(lineitem_gen *g);

/* Exact number of rows of the whole table. */
int64_t lineitem_total_rows(const lineitem_gen *g);

/* Global 0-based row index of the first line of order index i (0 <= i <= n_orders; i ==
 * n_orders gives the total). O(LINEITEM_CHUNK_ORDERS) at most. */
int64_t lineitem_order_first_row(const lineitem_gen *g, int64_t i);

/* Number of lines (1..7) of order index i. */
int lineitem_order_lines(const lineitem_gen *g, int64_t i);

/* Generates the lines of order index i (0 <= i < n_orders), whose first row has global index
 * first_row (= lineitem_order_first_row(g, i); passed in so sequential callers stay O(1)),
 * into rows[0..n-1]; returns n (1..7). Pure: no state changes. */
int lineitem_order_rows(const lineitem_gen *g, int64_t i, int64_t first_row,
                        lineitem_row rows[LINEITEM_LINES_MAX]);

/* Initialises cols[0 .. g->ncols-1] as empty vectors of the columns' physical types. */
void lineitem_vecs_init(const lineitem_gen *g, pq_vec *cols);
/* Frees cols[0 .. g->ncols-1]. */
void lineitem_vecs_free(const lineitem_gen *g, pq_vec *cols);

/* Appends the rows of orders [first_order, first_order + n_orders) to cols[0 .. g->ncols-1]
 * (initialised by lineitem_vecs_init; call pq_vec_clear on each for a fresh batch), in
 * Arrow layout with no nulls, and stores the number of rows appended in *rows_out.
 * Returns 0, -EINVAL (range outside the table), -ENOMEM, or RINGSCAN_ELIMIT when a string
 * column would pass INT32_MAX bytes (nothing is appended then). */
int lineitem_gen_batch(const lineitem_gen *g, int64_t first_order, int64_t n_orders,
                       pq_vec *cols, int64_t *rows_out);

#endif
