/* filter/tree.h: the boolean tree the filter parser builds and its conjunctive normal form
 * (tree.c); internal to filter/.
 *
 * NOT is pushed down while parsing (De Morgan; each comparison flips to its complement,
 * which is exact in SQL's three-valued logic because NaN is ordered: kernel.h invariant 2),
 * so the tree holds AND, OR and atoms only. flt_tree_to_expr puts it in conjunctive normal
 * form and makes one predicate per clause: on one column, or over several (expr.h
 * invariant 8).
 *
 * Invariants:
 *  1. Every node, and everything the expression points to, comes from bd->arena (expr.h
 *     invariant 1); an error leaves the arena to be freed whole by the caller.
 *  2. Atoms are typed when made (flt_atom: the column's domain decides the literals).
 *  3. The normal form is bounded by FLT_MAX_PREDS clauses of FLT_MAX_TERMS atoms; beyond,
 *     RINGSCAN_ELIMIT ("too large in conjunctive normal form"), never an unbounded build. */
#ifndef RINGSCAN_FILTER_TREE_H
#define RINGSCAN_FILTER_TREE_H
#include "filter/expr.h"

/* What a tree is built with: the expression's arena, the schema, the error to fill. */
typedef struct flt_build {
    struct flt_arena **arena;
    const pq_column_desc *cols;
    int32_t ncols;
    pq_err *e;
    const flt_fold *fold;  /* NULL, or the constant columns whose atoms are decided first */
} flt_build;

typedef enum { FLT_N_ATOM, FLT_N_AND, FLT_N_OR } flt_nkind;

typedef struct flt_node {
    flt_nkind kind;
    int32_t n;           /* AND / OR: children */
    struct flt_node **kids;
    int32_t column, pos; /* flt_atom: its column and the 1-based position of its text */
    flt_term term;       /* flt_atom: typed */
    int32_t column2;     /* flt_atom comparing two columns: the right one (term.op only) */
    bool two;            /* two columns, a part of a date (part > 0, value pval), or two
                            value expressions (vl, vr: vexpr.h) */
    const struct flt_vnode *vl, *vr;
    int8_t konst;        /* a comparison of constants: 1 always true, -1 never (false or
                            unknown), 0 not one; column is then -1 */
    int32_t part;
    int64_t pval;
} flt_node;

/* A node of kind k with room for n children; NULL on ENOMEM. */
flt_node *flt_node_new(flt_build *bd, flt_nkind k, int32_t n);
/* The complement of a comparison, IN, IS NULL or LIKE operator (NOT of it). */
flt_op flt_complement(flt_op op);
/* The operator with its operands swapped: `5 < x` is `x > 5`. */
flt_op flt_mirrored(flt_op op);
/* *out = the typed atom `cols[col] op raw[0..nraw)` (flt_type_term); pos for messages. */
int flt_atom(flt_build *bd, int32_t col, int32_t pos, flt_op op, bool icase,
             const flt_raw_lit *raw, int32_t nraw, flt_node **out);
/* Whether cols[a] and cols[b] are of one class of values (integers of any width but UINT64
 * with UINT64 only, decimals of one scale, one date/time type and unit, floats, strings,
 * booleans): the kernels compare them directly. */
bool flt_cols_comparable(const flt_build *bd, int32_t a, int32_t b);
/* *out = the atom `cols[col] op cols[col2]`: of one class (flt_cols_comparable), or else
 * numbers of different kinds or a date with a timestamp as value expressions (vexpr.h);
 * refused with RINGSCAN_EPARSE naming both types otherwise. */
int flt_atom_two(flt_build *bd, int32_t col, int32_t col2, int32_t pos, flt_op op,
                 flt_node **out);
/* *out = `part(cols[col]) op lit` (month / day / quarter of a DATE or TIMESTAMP column; lit a
 * whole number): an atom evaluated row by row (multi.c), which no statistics prune. */
int flt_atom_part(flt_build *bd, int32_t col, int32_t pos, int32_t part, flt_op op,
                  const flt_raw_lit *lit, flt_node **out);
/* part(cols[col]) [NOT] IN (raw[0..nraw)) (in) or [NOT] BETWEEN raw[0] AND raw[1]: the AND /
 * OR of flt_atom_part comparisons. */
int flt_part_set(flt_build *bd, int32_t col, int32_t pos, int32_t part, bool neg, bool in,
                 const flt_raw_lit *raw, int32_t nraw, flt_node **out);
/* The part named s ("month", "day", "quarter"), or FLT_PART_NONE. */
int32_t flt_part_parse(const char *s, size_t n);

/* *out = a AND b (k FLT_N_AND) or a OR b (FLT_N_OR). */
int flt_pair(flt_build *bd, flt_nkind k, flt_node *a, flt_node *b, flt_node **out);
/* The units of date_trunc. */
typedef enum { FLT_UNIT_YEAR, FLT_UNIT_QUARTER, FLT_UNIT_MONTH, FLT_UNIT_DAY } flt_unit;
/* 'year' / 'quarter' / 'month' / 'day' (any case) -> *u: 0, or -1 for another name. */
int flt_unit_parse(const char *s, flt_unit *u);
/* *out = `year(cols[col]) op lit` (year_fn; lit a whole number) or `date_trunc(unit,
 * cols[col]) op lit` (lit a date, optionally with a time of day), op EQ..GE, as ranges of the
 * column (datefn.c). The column must be a DATE or TIMESTAMP; errors RINGSCAN_EPARSE. */
int flt_datefn(flt_build *bd, int32_t col, int32_t pos, flt_unit unit, bool year_fn, flt_op op,
               const flt_raw_lit *lit, flt_node **out);

/* [NOT] BETWEEN r[0] AND r[1] on cols[col] (NOT: x < lo OR x > hi). */
int flt_atom_between(flt_build *bd, int32_t col, int32_t pos, bool neg, const flt_raw_lit r[2],
                     flt_node **out);
/* cols[col] IS DISTINCT FROM r (x != r OR x IS NULL), or IS NOT DISTINCT FROM (= r). */
int flt_atom_distinct(flt_build *bd, int32_t col, int32_t pos, bool distinct,
                      const flt_raw_lit *r, flt_node **out);
/* [NOT] starts_with(cols[col], text): LIKE 'text%' with text's wildcards escaped. */
int flt_atom_starts_with(flt_build *bd, int32_t col, int32_t pos, bool neg,
                         const flt_raw_lit *text, flt_node **out);
/* fn(cols[col]) [NOT] IN (raw[0..nraw)) (in) or [NOT] BETWEEN raw[0] AND raw[1], fn as in
 * flt_datefn: the AND / OR of its comparisons. */
int flt_datefn_set(flt_build *bd, int32_t col, int32_t pos, flt_unit unit, bool year_fn,
                   bool neg, bool in, const flt_raw_lit *raw, int32_t nraw, flt_node **out);

/* *out = an atom of constant truth: always true (truth > 0) or never (a comparison of
 * constants, folded). */
int flt_atom_const(flt_build *bd, int32_t pos, int truth, flt_node **out);

/* ex->preds = the normal form of root, one predicate per clause (atoms over bd->fold's
 * columns decided first, expr.h flt_fold): a clause with an always-true
 * atom is dropped, never-true atoms leave their clauses, and a clause left empty makes the
 * whole filter one FALSE predicate (on the first column, which statistics then rule out).
 * 0, RINGSCAN_ELIMIT, RINGSCAN_EPARSE or -ENOMEM with bd->e filled. */
int flt_tree_to_expr(flt_build *bd, const flt_node *root, flt_expr *ex);

#endif
