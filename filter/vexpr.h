/* filter/vexpr.h: value expressions over columns: arithmetic (+ - * /, unary -) and CAST,
 * typed by SQL's rules as DuckDB applies them, and comparisons of two of them; internal to
 * filter/ and the plan (vexpr.c: typing, folding, the atoms; vexpr_eval.c: vectorized
 * evaluation; vexpr_prune.c: interval pruning; vexpr_ops.h: the scalar operations all share;
 * print.c prints them).
 *
 * Types (flt_vtype), DuckDB's rules:
 *  - Integers keep a width (8..64 bits, or 128 for literals beyond BIGINT) and a sign. An
 *    operation on two integers has the wider type (a signed and an unsigned type: the
 *    smallest signed type holding both). An integer literal takes the other operand's
 *    integer type when its value fits it (`tinyint_col + 1` is TINYINT). The arithmetic itself
 *    is exact in 128 bits: a result beyond its type's range is kept (DuckDB moves constants
 *    across a comparison and PostgreSQL errors; an exact answer is right in both cases), and
 *    only a value past 38 digits is an error ("out of range").
 *  - Decimals DECIMAL(p, s), p <= 38. An integer operand is DECIMAL(w, 0), w its type's
 *    digits (3, 5, 10, 19 or 20; a literal: its own digits). + and -: scale max(s1, s2),
 *    precision max(p1 - s1, p2 - s2) + scale + 1, capped at 38. *: scale s1 + s2 (at most
 *    38), precision p1 + p2, capped at 18 when both are at most 18, else at 38 (the type a
 *    CAST or an explicit comparison sees; results are exact up to 38 digits).
 *  - FLOAT with an integer, a decimal or a FLOAT is FLOAT (computed in double, rounded to
 *    float after each operation: exact, as double has more than twice float's bits); any
 *    operation with a DOUBLE is DOUBLE. `/` always divides in floating point (FLOAT when an
 *    operand is FLOAT and none is DOUBLE, else DOUBLE), IEEE: x / 0 is +-inf, 0 / 0 NaN.
 *  - DATE (days): DATE - DATE is the BIGINT number of days between them, DATE +- integer
 *    the date that many days later / earlier. TIMESTAMP (a unit: scale 3, 6 or 9 digits of a
 *    second) takes no arithmetic. CAST converts between them (to DATE: the day, floored).
 *  - CAST between numeric types rounds half away from zero into integers and decimals from
 *    decimals and doubles (DuckDB: a DOUBLE into an integer rounds half to even); a value
 *    that does not fit its target is an error, as in DuckDB.
 * Comparisons: two numeric values compare exactly (scales aligned) when both are integers
 * or decimals, else as doubles; NaN equals NaN and sorts above every number (kernel.h
 * invariant 2). DATE with TIMESTAMP compares the date as midnight. A null in any column an
 * expression reads makes the comparison unknown: the row fails.
 *
 * Invariants:
 *  1. Every node lives in the expression's arena (expr.h invariant 1); a tree is immutable
 *     once typed, except for slots, which tree.c sets on the copy it makes for each clause.
 *  2. A node whose operands are constants is folded into a constant when built; a constant
 *     division by zero, or a constant that overflows its type, is an error then.
 *  3. A comparison has at most FLT_V_MAX_NODES nodes on each side (bounded scratch: each
 *     node evaluates FLT_V_CHUNK rows at a time into its own slot of three lanes).
 *  4. Evaluation never allocates per row, takes one switch per node and chunk (never per
 *     row), and reports overflow only for rows it was asked to evaluate. */
#ifndef RINGSCAN_FILTER_VEXPR_H
#define RINGSCAN_FILTER_VEXPR_H
#include "filter/mask.h"
#include "filter/prune.h"
#include "filter/tree.h"

enum {
    FLT_V_MAX_NODES = 64, /* nodes of one side of a comparison */
    FLT_V_CHUNK = 1024,   /* rows a node evaluates at a time */
};

typedef enum flt_vkind {
    FLT_VK_INT,    /* width bits, uns */
    FLT_VK_DEC,    /* width = precision, scale */
    FLT_VK_FLOAT,
    FLT_VK_DOUBLE,
    FLT_VK_DATE,   /* days since 1970-01-01 */
    FLT_VK_TS,     /* scale = 3 (ms), 6 (us) or 9 (ns) digits of a second, UTC */
    FLT_VK_TEXT,   /* a string or boolean literal: typed only where it meets a column */
    FLT_VK_NULL,   /* the NULL literal, and any operation on it: comparisons are unknown */
} flt_vkind;

typedef struct flt_vtype {
    flt_vkind kind;
    int32_t width;
    int32_t scale;
    bool uns;
} flt_vtype;

typedef enum flt_vop {
    FLT_V_COL, FLT_V_CONST, FLT_V_ADD, FLT_V_SUB, FLT_V_MUL, FLT_V_DIV, FLT_V_NEG, FLT_V_CAST,
} flt_vop;

typedef struct flt_vnode {
    flt_vop op;
    flt_vtype t;                 /* the result's type */
    int32_t col;                 /* COL: the schema column */
    int32_t slot;                /* COL: its index in flt_multi.cols (set per clause) */
    bool int_lit;                /* CONST: an integer literal (takes its partner's type) */
    __int128 k;                  /* CONST of an exact type: the unscaled value */
    double kf;                   /* CONST of FLOAT / DOUBLE */
    const struct flt_vnode *a, *b; /* operands (NEG, CAST: a only) */
    const flt_raw_lit *raw;      /* CONST from a literal as written (folded: NULL) */
    int32_t pos;                 /* 1-based text position for messages (0: a C API tree) */
} flt_vnode;

/* ---- building (parse.c, build.c); errors RINGSCAN_EPARSE naming the operator -------------- */

/* *out = cols[col] as a value; its type must be numeric, DATE or TIMESTAMP. */
int flt_v_column(flt_build *bd, int32_t col, int32_t pos, flt_vnode **out);
/* *out = a literal: a number (INTEGER, BIGINT or a 128-bit integer by size, DECIMAL(p, s) with
 * a '.', DOUBLE with an exponent), DATE or TIMESTAMP; a string or boolean is kept as written
 * (FLT_VK_TEXT: typed by the column or date/time value it is compared with). */
int flt_v_literal(flt_build *bd, const flt_raw_lit *r, flt_vnode **out);
/* *out = a op b (ADD, SUB, MUL, DIV), typed, folded when both are constants. */
int flt_v_binary(flt_build *bd, flt_vop op, int32_t pos, flt_vnode *a, flt_vnode *b,
                 flt_vnode **out);
/* *out = -a. */
int flt_v_neg(flt_build *bd, int32_t pos, flt_vnode *a, flt_vnode **out);
/* *out = CAST(a AS type), type as SQL names it ("INTEGER", "DECIMAL(10,2)", "DOUBLE", "DATE",
 * ...; case-insensitive). */
int flt_v_cast(flt_build *bd, int32_t pos, flt_vnode *a, const char *type, flt_vnode **out);
/* *out = the atom `l op r` (op EQ..GE): the existing single-column atom when one side is a
 * bare column and the other a constant (statistics, page index, dictionary and bloom filter
 * then apply as to any literal), the two-column atom for two bare columns, else an atom of
 * value expressions (multi.c). Refused: no column on either side, incomparable types. */
int flt_atom_values(flt_build *bd, int32_t pos, flt_op op, flt_vnode *l, flt_vnode *r,
                    flt_node **out);

/* The value type of a column (vexpr.h's rules); false when it takes no part in arithmetic. */
bool flt_v_column_type(const pq_column_desc *d, flt_vtype *t);

/* Whether values of types a and b compare: numbers with numbers, dates and timestamps with
 * each other. */
bool flt_v_comparable(const flt_vtype *a, const flt_vtype *b);

/* A copy of x (arena) with each column's slot its index in cols[0..*ncols), appended when
 * new (cols has room for every column x reads); NULL on ENOMEM. */
flt_vnode *flt_v_slotted(flt_build *bd, const flt_vnode *x, int32_t *cols, int32_t *ncols);

/* ---- using ------------------------------------------------------------------------------ */

/* The type as SQL names it ("DECIMAL(18,4)") into buf. */
void flt_vtype_name(const flt_vtype *t, char *buf, size_t cap);

/* Whether `l op r` can hold for some row of a row group or page, from the min/max of its
 * columns (interval arithmetic): stats[slot] for the column at cols[slot] of schema (as in
 * flt_multi; NULL: unknown). FLT_CANNOT_MATCH only when the intervals prove it;
 * floating-point columns prove nothing (statistics omit NaN). */
flt_prune flt_v_prune(flt_op op, const flt_vnode *l, const flt_vnode *r,
                      const pq_column_desc *schema, const int32_t *cols,
                      const pq_stats *const *stats);
/* The range of one column's values as exact values of its type (flt_v_column_type: an
 * integer, a decimal's unscaled value, days, a timestamp's units): known only when both ends
 * are, lo <= hi. */
typedef struct flt_vspan {
    bool known;
    __int128 lo, hi;
} flt_vspan;
/* The span of schema column col from one chunk's statistics s (NULL: none) into lo, hi; false
 * when s has no usable min/max, min > max, or the column is a float or takes no arithmetic. */
bool flt_v_stats_span(const pq_column_desc *schema, int32_t col, const pq_stats *s, __int128 *lo,
                      __int128 *hi);
/* flt_v_prune with each column slot's values in spans[slot] (an unknown span proves nothing). */
flt_prune flt_v_prune_spans(flt_op op, const flt_vnode *l, const flt_vnode *r,
                            const flt_vspan *spans);
/* A necessary bound on column slot alone (vexpr_imply.c): with every column in its span, the
 * largest t (above) such that no row whose slot value lies in [lo, t] can satisfy `l op r`
 * (so a row that does has value > t), or the smallest t (!above) such that none in [t, hi]
 * can (value < t). False when there is none inside the span: the span's first (last) value
 * may satisfy it, or no value can (the group is pruned instead). spans is restored. */
bool flt_v_implied_bound(flt_op op, const flt_vnode *l, const flt_vnode *r, flt_vspan *spans,
                         int32_t slot, bool above, __int128 *t);

/* The one column (slot) l and r read, or -1 when they read several or none. */
int32_t flt_v_one_slot(const flt_vnode *l, const flt_vnode *r);

/* out = rows of rest where `l op r` holds (both sides valid); vecs[slot] the columns.
 * Returns 0, -ERANGE on an overflow in a row of rest, or -ENOMEM. */
int flt_v_eval(flt_op op, const flt_vnode *l, const flt_vnode *r, const pq_vec *const *vecs,
               const flt_mask *rest, flt_mask *out);

#endif
