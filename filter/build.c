/* filter/build.c: a filter given as a tree of calls (flt_tnode, the C API's ringscan_expr)
 * turned into the parser's boolean tree (tree.h) with the parser's own builders, then into
 * predicates. NOT is pushed down as the walk goes, exactly as the parser does.
 *
 * Invariants:
 *  1. Everything is allocated in the expression's arena; on error the caller frees it whole.
 *  2. The walk is bounded by FLT_MAX_DEPTH and the builders' limits; every operand count and
 *     kind is checked before use, and each error names the operator. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter/tree.h"
#include "filter/vexpr.h"

const char *flt_top_name(flt_top op)
{
    static const char *n[] = {"column", "literal", "AND", "OR", "NOT", "=", "!=", "<", "<=",
                              ">", ">=", "BETWEEN", "IN", "IS NULL", "IS NOT NULL",
                              "IS DISTINCT FROM", "IS NOT DISTINCT FROM", "LIKE", "ILIKE",
                              "starts_with", "year", "date_trunc", "month", "day", "quarter", "+", "-",
                              "*", "/", "negate", "CAST"};
    return (unsigned)op < sizeof n / sizeof *n ? n[op] : "?";
}

static int bad(flt_build *bd, const flt_tnode *x, const char *what)
{
    return pq_errf(bd->e, RINGSCAN_EPARSE, -1, "%s: %s", flt_top_name(x->op), what);
}

static int column_of(flt_build *bd, const flt_tnode *x, const flt_tnode *c, int32_t *col)
{
    if (!c || c->op != FLT_T_COLUMN || !c->name) return bad(bd, x, "expected a column operand");
    int32_t i = pq_columns_find(bd->cols, bd->ncols, c->name); /* (case-insensitive) */
    if (i >= 0) return *col = i, 0;
    return pq_errf(bd->e, RINGSCAN_EPARSE, -1, "%s: unknown column '%s'", flt_top_name(x->op),
                   c->name);
}

static bool is_lit(const flt_tnode *x) { return x && x->op == FLT_T_LITERAL && x->lit; }

/* A year() or date_trunc() call: its column and unit. */
static int fn_of(flt_build *bd, const flt_tnode *f, int32_t *col, flt_unit *unit)
{
    *unit = FLT_UNIT_YEAR;
    if (f->op == FLT_T_YEAR) {
        if (f->nargs != 1) return bad(bd, f, "takes one column");
        return column_of(bd, f, f->args[0], col);
    }
    if (f->nargs != 2 || !is_lit(f->args[0]) || f->args[0]->lit->kind != FLT_LIT_STRING)
        return bad(bd, f, "takes a unit string and a column");
    if (flt_unit_parse(f->args[0]->lit->text, unit))
        return pq_errf(bd->e, RINGSCAN_EPARSE, -1, "date_trunc: unknown unit '%s' (year, "
                       "quarter, month, day)", f->args[0]->lit->text);
    return column_of(bd, f, f->args[1], col);
}

static bool is_fn(const flt_tnode *x)
{
    return x && (x->op == FLT_T_YEAR || x->op == FLT_T_DATE_TRUNC);
}

/* month(), day(), quarter(): FLT_PART_* of x, or FLT_PART_NONE. */
static int32_t part_of(const flt_tnode *x)
{
    return !x ? FLT_PART_NONE : x->op == FLT_T_MONTH ? FLT_PART_MONTH
           : x->op == FLT_T_DAY ? FLT_PART_DAY : x->op == FLT_T_QUARTER ? FLT_PART_QUARTER
           : FLT_PART_NONE;
}

/* part(column) [NOT] IN / [NOT] BETWEEN (tree.h flt_part_set). */
static int part_set(flt_build *bd, const flt_tnode *f, bool neg, bool in, const flt_raw_lit *r,
                    int32_t n, flt_node **out)
{
    int32_t col;
    if (f->nargs != 1) return bad(bd, f, "takes one column");
    int rc = column_of(bd, f, f->args[0], &col);
    return rc ? rc : flt_part_set(bd, col, 0, part_of(f), neg, in, r, n, out);
}

/* The operands after the first, all literals, into an arena array. */
static int lits_of(flt_build *bd, const flt_tnode *x, int32_t from, flt_raw_lit **out)
{
    int32_t n = x->nargs - from;
    if (n < 1 || n > FLT_MAX_TERMS) return bad(bd, x, "needs 1 to 4096 literal operands");
    flt_raw_lit *r = flt_arena_alloc(bd->arena, (size_t)n * sizeof *r);
    if (!r) return -ENOMEM;
    for (int32_t i = 0; i < n; i++) {
        if (!is_lit(x->args[from + i])) return bad(bd, x, "expected a literal operand");
        r[i] = *x->args[from + i]->lit;
    }
    *out = r;
    return 0;
}

static int walk(flt_build *bd, const flt_tnode *x, bool neg, int depth, flt_node **out);

/* An operator of value expressions (arithmetic, CAST). */
static bool is_value_op(const flt_tnode *x) { return x && x->op >= FLT_T_ADD && x->op <= FLT_T_CAST; }

/* A column, literal, arithmetic or CAST operand as a value expression (vexpr.h). */
static int value_of(flt_build *bd, const flt_tnode *x, int depth, flt_vnode **out)
{
    int32_t col;
    flt_vnode *a, *b;
    if (!x) return pq_errf(bd->e, RINGSCAN_EPARSE, -1, "filter tree: an operand is missing");
    if (depth > FLT_MAX_DEPTH)
        return pq_errf(bd->e, RINGSCAN_ELIMIT, -1, "filter tree nested deeper than %d",
                       FLT_MAX_DEPTH);
    if (is_lit(x)) return flt_v_literal(bd, x->lit, out);
    if (x->op == FLT_T_COLUMN) {
        int rc = column_of(bd, x, x, &col);
        return rc ? rc : flt_v_column(bd, col, 0, out);
    }
    if (!is_value_op(x)) return bad(bd, x, "is not a value here (a column, literal, "
                                   "arithmetic or CAST)");
    bool unary = x->op == FLT_T_NEG;
    if (x->nargs != (unary ? 1 : 2)) return bad(bd, x, unary ? "takes one operand" : "takes two operands");
    if (x->op == FLT_T_CAST) {
        if (!is_lit(x->args[1]) || x->args[1]->lit->kind != FLT_LIT_STRING)
            return bad(bd, x, "takes an operand and a type name string");
        int rc = value_of(bd, x->args[0], depth + 1, &a);
        return rc ? rc : flt_v_cast(bd, 0, a, x->args[1]->lit->text, out);
    }
    int rc = value_of(bd, x->args[0], depth + 1, &a);
    if (rc || unary) return rc ? rc : flt_v_neg(bd, 0, a, out);
    if ((rc = value_of(bd, x->args[1], depth + 1, &b))) return rc;
    static const flt_vop ops[] = {FLT_V_ADD, FLT_V_SUB, FLT_V_MUL, FLT_V_DIV};
    return flt_v_binary(bd, ops[x->op - FLT_T_ADD], 0, a, b, out);
}

/* x op y (op EQ..GE) where either is arithmetic or CAST. */
static int value_cmp(flt_build *bd, flt_op op, const flt_tnode *x, const flt_tnode *y,
                     flt_node **out)
{
    flt_vnode *l, *r;
    int rc = value_of(bd, x, 0, &l);
    if (rc == 0) rc = value_of(bd, y, 0, &r);
    return rc ? rc : flt_atom_values(bd, 0, op, l, r, out);
}

/* x [NOT] BETWEEN lo AND hi or x [NOT] IN (...) where x or an operand is arithmetic or CAST:
 * the AND / OR of comparisons (as the parser's atom_values). */
static int value_set(flt_build *bd, const flt_tnode *x, bool neg, flt_node **out)
{
    bool in = x->op == FLT_T_IN;
    int32_t n = x->nargs - 1;
    flt_node *j = flt_node_new(bd, in == neg ? FLT_N_AND : FLT_N_OR, n);
    if (!j) return -ENOMEM;
    for (int32_t i = 0; i < n; i++) {
        flt_op op = in ? (neg ? FLT_OP_NE : FLT_OP_EQ)
                       : i == 0 ? (neg ? FLT_OP_LT : FLT_OP_GE) : (neg ? FLT_OP_GT : FLT_OP_LE);
        int rc = value_cmp(bd, op, x->args[0], x->args[1 + i], &j->kids[i]);
        if (rc) return rc;
    }
    *out = j;
    return 0;
}

static int junction(flt_build *bd, const flt_tnode *x, bool neg, int depth, flt_node **out)
{
    if (x->nargs < 1 || x->nargs > FLT_MAX_TERMS) return bad(bd, x, "needs 1 to 4096 operands");
    bool is_and = x->op == FLT_T_AND;
    flt_node *n = flt_node_new(bd, is_and != neg ? FLT_N_AND : FLT_N_OR, x->nargs);
    if (!n) return -ENOMEM;
    for (int32_t i = 0; i < x->nargs; i++) {
        int rc = walk(bd, x->args[i], neg, depth + 1, &n->kids[i]);
        if (rc) return rc;
    }
    *out = n;
    return 0;
}

/* a op b: column with literal (either side), two columns, year()/date_trunc() with a
 * literal, or value expressions (arithmetic, CAST). */
static int comparison(flt_build *bd, const flt_tnode *x, bool neg, flt_node **out)
{
    if (x->nargs != 2 || !x->args[0] || !x->args[1]) return bad(bd, x, "takes two operands");
    flt_op op = (flt_op)(FLT_OP_EQ + (x->op - FLT_T_EQ));
    const flt_tnode *a = x->args[0], *b = x->args[1];
    if (is_lit(a) && !is_lit(b)) a = x->args[1], b = x->args[0], op = flt_mirrored(op);
    if (neg) op = flt_complement(op);
    if (is_value_op(a) || is_value_op(b)) return value_cmp(bd, op, a, b, out);
    int32_t col, col2;
    flt_unit unit;
    int rc;
    if (part_of(a) && is_lit(b)) {
        if (a->nargs != 1) return bad(bd, a, "takes one column");
        if ((rc = column_of(bd, a, a->args[0], &col))) return rc;
        return flt_atom_part(bd, col, 0, part_of(a), op, b->lit, out);
    }
    if (is_fn(a) && is_lit(b)) {
        if ((rc = fn_of(bd, a, &col, &unit))) return rc;
        return flt_datefn(bd, col, 0, unit, a->op == FLT_T_YEAR, op, b->lit, out);
    }
    if ((rc = column_of(bd, x, a, &col))) return rc;
    if (is_lit(b)) return flt_atom(bd, col, 0, op, false, b->lit, 1, out);
    if (b->op != FLT_T_COLUMN)
        return bad(bd, x, "takes a column and a literal, two columns, or year() / date_trunc() "
                          "and a literal");
    if ((rc = column_of(bd, x, b, &col2))) return rc;
    return flt_atom_two(bd, col, col2, 0, op, out);
}

/* x [NOT] BETWEEN lo AND hi, x [NOT] IN (...): x a column or a date function. */
static int set_test(flt_build *bd, const flt_tnode *x, bool neg, flt_node **out)
{
    bool in = x->op == FLT_T_IN;
    if (x->nargs < 2 || !x->args[0] || (!in && x->nargs != 3))
        return bad(bd, x, in ? "takes an operand and literals" : "takes an operand, low, high");
    bool values = false;
    for (int32_t i = 0; i < x->nargs; i++) values = values || is_value_op(x->args[i]);
    if (values) {
        if (x->nargs - 1 > FLT_V_MAX_NODES) return bad(bd, x, "takes at most 64 expressions");
        return value_set(bd, x, neg, out);
    }
    flt_raw_lit *r;
    int32_t col;
    flt_unit unit;
    int rc = lits_of(bd, x, 1, &r);
    if (rc) return rc;
    if (part_of(x->args[0])) return part_set(bd, x->args[0], neg, in, r, x->nargs - 1, out);
    if (is_fn(x->args[0])) {
        if ((rc = fn_of(bd, x->args[0], &col, &unit))) return rc;
        return flt_datefn_set(bd, col, 0, unit, x->args[0]->op == FLT_T_YEAR, neg, in, r,
                              x->nargs - 1, out);
    }
    if ((rc = column_of(bd, x, x->args[0], &col))) return rc;
    if (!in) return flt_atom_between(bd, col, 0, neg, r, out);
    return flt_atom(bd, col, 0, neg ? FLT_OP_NOT_IN : FLT_OP_IN, false, r, x->nargs - 1, out);
}

/* Tests of one column: IS [NOT] NULL, IS [NOT] DISTINCT FROM, [I]LIKE, starts_with. */
static int column_test(flt_build *bd, const flt_tnode *x, bool neg, flt_node **out)
{
    bool unary = x->op == FLT_T_IS_NULL || x->op == FLT_T_IS_NOT_NULL;
    bool like = x->op == FLT_T_LIKE || x->op == FLT_T_ILIKE;
    if (x->nargs < 1 || (unary ? x->nargs != 1 : x->nargs != 2 + (like && x->nargs == 3)))
        return bad(bd, x, unary ? "takes one column" : like ? "takes a column, a pattern and "
                   "an optional escape" : "takes a column and a literal");
    int32_t col;
    int rc = column_of(bd, x, x->args[0], &col);
    if (rc) return rc;
    if (unary) {
        bool is_null = (x->op == FLT_T_IS_NULL) != neg;
        return flt_atom(bd, col, 0, is_null ? FLT_OP_IS_NULL : FLT_OP_IS_NOT_NULL, false, NULL, 0,
                        out);
    }
    flt_raw_lit *r;
    if ((rc = lits_of(bd, x, 1, &r))) return rc;
    switch (x->op) {
    case FLT_T_IS_DISTINCT_FROM:
    case FLT_T_IS_NOT_DISTINCT_FROM:
        return flt_atom_distinct(bd, col, 0, (x->op == FLT_T_IS_DISTINCT_FROM) != neg, r, out);
    case FLT_T_STARTS_WITH:
        if (r->kind != FLT_LIT_STRING) return bad(bd, x, "takes a string");
        return flt_atom_starts_with(bd, col, 0, neg, r, out);
    default:
        return flt_atom(bd, col, 0, neg ? FLT_OP_NOT_LIKE : FLT_OP_LIKE, x->op == FLT_T_ILIKE, r,
                        x->nargs - 1, out);
    }
}

static int walk(flt_build *bd, const flt_tnode *x, bool neg, int depth, flt_node **out)
{
    if (!x) return pq_errf(bd->e, RINGSCAN_EPARSE, -1, "filter tree: an operand is missing");
    if (depth > FLT_MAX_DEPTH)
        return pq_errf(bd->e, RINGSCAN_ELIMIT, -1, "filter tree nested deeper than %d",
                       FLT_MAX_DEPTH);
    switch (x->op) {
    case FLT_T_AND:
    case FLT_T_OR: return junction(bd, x, neg, depth, out);
    case FLT_T_NOT:
        if (x->nargs != 1) return bad(bd, x, "takes one operand");
        return walk(bd, x->args[0], !neg, depth + 1, out);
    case FLT_T_EQ: case FLT_T_NE: case FLT_T_LT: case FLT_T_LE: case FLT_T_GT: case FLT_T_GE:
        return comparison(bd, x, neg, out);
    case FLT_T_BETWEEN:
    case FLT_T_IN: return set_test(bd, x, neg, out);
    case FLT_T_IS_NULL: case FLT_T_IS_NOT_NULL: case FLT_T_IS_DISTINCT_FROM:
    case FLT_T_IS_NOT_DISTINCT_FROM: case FLT_T_LIKE: case FLT_T_ILIKE: case FLT_T_STARTS_WITH:
        return column_test(bd, x, neg, out);
    default:
        return pq_errf(bd->e, RINGSCAN_EPARSE, -1, "%s is not a boolean expression here",
                       flt_top_name(x->op));
    }
}

/* The builders' messages end with their text position; a tree has none. */
static void drop_position(pq_err *e)
{
    char *at = strstr(e->msg, " at character ");
    if (at) {
        if (at > e->msg && at[-1] == ',') at--;
        *at = 0;
    }
}

int flt_from_tree(const flt_tnode *root, const pq_column_desc *cols, int32_t ncols,
                  flt_expr **out, pq_err *e)
{
    return flt_from_tree_fold(root, cols, ncols, NULL, out, e);
}

int flt_from_tree_fold(const flt_tnode *root, const pq_column_desc *cols, int32_t ncols,
                       const flt_fold *fold, flt_expr **out, pq_err *e)
{
    assert(out && (cols || ncols == 0) && ncols >= 0);
    *out = NULL;
    flt_expr *ex = flt_expr_new();
    if (!ex) return -ENOMEM;
    flt_build bd = {.arena = &ex->arena, .cols = cols, .ncols = ncols, .e = e, .fold = fold};
    flt_node *n = NULL;
    int rc = walk(&bd, root, false, 0, &n);
    if (rc == 0) rc = flt_tree_to_expr(&bd, n, ex);
    if (rc) {
        if (rc == -ENOMEM) pq_errf(e, -ENOMEM, -1, "out of memory building the filter");
        else drop_position(e);
        e->offset = -1;
        flt_expr_free(ex);
        return rc;
    }
    *out = ex;
    return 0;
}
