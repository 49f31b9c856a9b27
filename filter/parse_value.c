/* filter/parse_value.c: the parser's value expressions (arithmetic, unary minus, CAST, typed
 * by vexpr.c) and its atoms on date function calls (year, date_trunc, month, day, quarter,
 * extract); the tokenizer, literals and the boolean grammar are parse.c's (parse.h).
 *
 * Invariants: as parse.c's (every error names a token's position; arena memory only); the
 * recursion is bounded by FLT_MAX_DEPTH through parentheses, signs and CASTs. */
#include <errno.h>
#include <string.h>

#include "filter/parse.h"

/* ---- value expressions: sum := prod (('+'|'-') prod)* ; prod := unary (('*'|'/') unary)* ;
 * unary := ('-'|'+') unary | primary ; primary := column | literal | '(' sum ')'
 *        | CAST '(' sum AS type ['(' n [',' n] ')'] ')' ------------------------------------- */

static bool is_arith(tok_type t) { return t >= T_PLUS && t <= T_SLASH; }

/* Skips one column name or literal on q; false when there is none. */
static bool skip_operand(parser *q)
{
    if (flt_p_at_literal(q)) {
        if (flt_p_at_signed_number(q)) flt_p_next(q);
        if (flt_p_kw(q, "DATE") || flt_p_kw(q, "TIMESTAMP")) flt_p_next(q);
        flt_p_next(q);
        return true;
    }
    if (q->t.type != T_IDENT && q->t.type != T_QIDENT) return false;
    flt_p_next(q);
    return true;
}

/* True when a value expression starts here rather than a bare column or literal: a '(', a
 * CAST, a sign before anything but a number, or an operand an arithmetic operator follows. */
bool flt_p_value_ahead(parser *p)
{
    if (p->t.type == T_LPAREN || flt_p_at_call(p, "CAST")) return true;
    if ((p->t.type == T_MINUS || p->t.type == T_PLUS) && !flt_p_at_signed_number(p)) return true;
    parser q = *p;
    return skip_operand(&q) && is_arith(q.t.type);
}

/* CAST '(' sum AS type ')', at the name CAST. */
static int parse_cast(parser *p, int depth, flt_vnode **out)
{
    int32_t pos = p->t.pos;
    flt_p_next(p), flt_p_next(p); /* CAST ( */
    flt_vnode *a;
    int rc = flt_p_sum(p, depth + 1, &a);
    if (rc) return rc;
    if (!flt_p_kw(p, "AS")) return flt_p_expected(p, "AS");
    flt_p_next(p);
    if (p->t.type != T_IDENT) return flt_p_expected(p, "type name");
    const char *start = p->t.s;
    flt_p_next(p);
    if (p->t.type == T_LPAREN) { /* (p) or (p, s) */
        while (p->t.type == T_LPAREN || p->t.type == T_NUMBER || p->t.type == T_COMMA) flt_p_next(p);
        if (p->t.type != T_RPAREN) return flt_p_expected(p, "')'");
        flt_p_next(p);
    }
    char type[64]; /* the name as written, blanks dropped */
    size_t n = 0;
    for (const char *c = start; c < p->t.s && n + 1 < sizeof type; c++)
        if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r') type[n++] = *c;
    type[n] = 0;
    if (p->t.type != T_RPAREN) return flt_p_expected(p, "')' after the type");
    flt_p_next(p);
    return flt_v_cast(&p->b, pos, a, type, out);
}

static int parse_unary(parser *p, int depth, flt_vnode **out);

static int parse_primary(parser *p, int depth, flt_vnode **out)
{
    int32_t pos = p->t.pos, col;
    int rc;
    if (p->t.type == T_LPAREN) {
        flt_p_next(p);
        if ((rc = flt_p_sum(p, depth + 1, out))) return rc;
        if (p->t.type != T_RPAREN) return flt_p_expected(p, "')'");
        flt_p_next(p);
        return 0;
    }
    if (flt_p_at_call(p, "CAST")) return parse_cast(p, depth, out);
    if (flt_p_at_literal(p)) {
        flt_raw_lit *r = flt_arena_alloc(p->b.arena, sizeof *r);
        if (!r) return -ENOMEM;
        if ((rc = flt_p_literal(p, r))) return rc;
        return flt_v_literal(&p->b, r, out);
    }
    if ((rc = flt_p_column(p, &col))) return rc;
    return flt_v_column(&p->b, col, pos, out);
}

static int parse_unary(parser *p, int depth, flt_vnode **out)
{
    if (depth > FLT_MAX_DEPTH)
        return pq_errf(p->b.e, RINGSCAN_ELIMIT, p->t.pos,
                       "expression nested deeper than %d at character %d", FLT_MAX_DEPTH, p->t.pos);
    if ((p->t.type != T_MINUS && p->t.type != T_PLUS) || flt_p_at_signed_number(p))
        return parse_primary(p, depth, out);
    int32_t pos = p->t.pos;
    bool minus = p->t.type == T_MINUS;
    flt_p_next(p);
    flt_vnode *a;
    int rc = parse_unary(p, depth + 1, &a);
    if (rc || !minus) return rc ? rc : (*out = a, 0);
    return flt_v_neg(&p->b, pos, a, out);
}

/* A run of sub joined by the operators lo..hi (left-associative). */
static int parse_chain(parser *p, int depth, tok_type lo, tok_type hi, flt_vnode **out,
                       int (*sub)(parser *, int, flt_vnode **))
{
    int rc = sub(p, depth, out);
    while (rc == 0 && (p->t.type == lo || p->t.type == hi)) {
        static const flt_vop ops[] = {FLT_V_ADD, FLT_V_SUB, FLT_V_MUL, FLT_V_DIV};
        flt_vop op = ops[p->t.type - T_PLUS];
        int32_t pos = p->t.pos;
        flt_vnode *b;
        flt_p_next(p);
        if ((rc = sub(p, depth, &b))) break;
        rc = flt_v_binary(&p->b, op, pos, *out, b, out);
    }
    return rc;
}

static int parse_prod(parser *p, int depth, flt_vnode **out)
{
    return parse_chain(p, depth, T_STAR, T_SLASH, out, parse_unary);
}

int flt_p_sum(parser *p, int depth, flt_vnode **out)
{
    return parse_chain(p, depth, T_PLUS, T_MINUS, out, parse_prod);
}

/* value op value | value [NOT] BETWEEN value AND value | value [NOT] IN (value, ...), where a
 * value expression starts (value_ahead). */
int flt_p_atom_values(parser *p, bool neg, flt_node **out)
{
    int32_t pos = p->t.pos;
    flt_vnode *l, *v[2];
    int rc = flt_p_sum(p, 0, &l);
    if (rc) return rc;
    if (p->t.type >= T_EQ && p->t.type <= T_GE) {
        flt_op op = flt_p_cmp_op(p->t.type);
        flt_p_next(p);
        if ((rc = flt_p_sum(p, 0, &v[0]))) return rc;
        return flt_atom_values(&p->b, pos, neg ? flt_complement(op) : op, l, v[0], out);
    }
    neg = flt_p_take_not(p, neg);
    if (flt_p_kw(p, "BETWEEN")) { /* l >= lo AND l <= hi; NOT: l < lo OR l > hi */
        flt_p_next(p);
        if ((rc = flt_p_sum(p, 0, &v[0]))) return rc;
        if (!flt_p_kw(p, "AND")) return flt_p_expected(p, "AND");
        flt_p_next(p);
        if ((rc = flt_p_sum(p, 0, &v[1]))) return rc;
        flt_node *a, *b;
        if ((rc = flt_atom_values(&p->b, pos, neg ? FLT_OP_LT : FLT_OP_GE, l, v[0], &a)) ||
            (rc = flt_atom_values(&p->b, pos, neg ? FLT_OP_GT : FLT_OP_LE, l, v[1], &b)))
            return rc;
        return flt_pair(&p->b, neg ? FLT_N_OR : FLT_N_AND, a, b, out);
    }
    if (!flt_p_kw(p, "IN")) return flt_p_expected(p, "comparison operator");
    flt_p_next(p);
    if (p->t.type != T_LPAREN) return flt_p_expected(p, "'('");
    flt_node *x = flt_node_new(&p->b, neg ? FLT_N_AND : FLT_N_OR, FLT_V_MAX_NODES);
    if (!x) return -ENOMEM;
    x->n = 0;
    do { /* IN: l = each, OR-ed; NOT IN: l != each, AND-ed */
        flt_p_next(p);
        if (x->n == FLT_V_MAX_NODES)
            return pq_errf(p->b.e, RINGSCAN_ELIMIT, p->t.pos, "IN list of an expression longer "
                           "than %d at character %d", FLT_V_MAX_NODES, p->t.pos);
        if ((rc = flt_p_sum(p, 0, &v[0])) ||
            (rc = flt_atom_values(&p->b, pos, neg ? FLT_OP_NE : FLT_OP_EQ, l, v[0], &x->kids[x->n])))
            return rc;
        x->n++;
    } while (p->t.type == T_COMMA);
    if (p->t.type != T_RPAREN) return flt_p_expected(p, "',' or ')'");
    flt_p_next(p);
    *out = x;
    return 0;
}

/* [NOT] BETWEEN lit AND lit | [NOT] IN (lit, ...) after a function call: *neg flipped by the
 * NOT, the literals in one[] (BETWEEN) or *raw (IN: then *raw != one). */
static int parse_set(parser *p, bool *neg, flt_raw_lit one[2], flt_raw_lit **raw, int32_t *nraw)
{
    *neg = flt_p_take_not(p, *neg);
    *raw = one, *nraw = 2;
    if (flt_p_kw(p, "BETWEEN")) {
        flt_p_next(p);
        int rc = flt_p_literal(p, &one[0]);
        if (!rc && !flt_p_kw(p, "AND")) return flt_p_expected(p, "AND");
        if (!rc) flt_p_next(p), rc = flt_p_literal(p, &one[1]);
        return rc;
    }
    if (!flt_p_kw(p, "IN")) return flt_p_expected(p, "comparison operator");
    flt_p_next(p);
    return flt_p_in_list(p, raw, nraw);
}

/* extract(part FROM col), at the name extract: year, quarter, month or day of a date. */
static int call_extract(parser *p, int32_t *col, int32_t *part, bool *year_fn)
{
    flt_p_next(p), flt_p_next(p); /* extract ( */
    int32_t upos = p->t.pos;
    *year_fn = flt_p_kw(p, "year");
    *part = flt_part_parse(p->t.s, (size_t)p->t.n);
    if (p->t.type != T_IDENT || (!*year_fn && !*part))
        return pq_errf(p->b.e, RINGSCAN_EPARSE, upos, "extract takes year, quarter, month or "
                       "day at character %d", upos);
    flt_p_next(p);
    if (!flt_p_kw(p, "FROM")) return flt_p_expected(p, "FROM");
    flt_p_next(p);
    return flt_p_column(p, col);
}

/* fn(col) cmp lit | fn(col) [NOT] BETWEEN lit AND lit | fn(col) [NOT] IN (lit, ...), fn one
 * of year(col), extract(year FROM col) and date_trunc('unit', col), each comparison rewritten
 * into ranges of the column (datefn.c), or month / day / quarter (col) and their extract
 * forms, evaluated row by row (flt_atom_part); BETWEEN and IN as the AND / OR of comparisons. */
int flt_p_atom_call(parser *p, bool neg, flt_node **out)
{
    int32_t pos = p->t.pos, col, part = flt_part_parse(p->t.s, (size_t)p->t.n);
    bool year_fn = flt_p_kw(p, "year");
    flt_unit unit = FLT_UNIT_YEAR;
    int rc;
    if (flt_p_kw(p, "extract")) {
        if ((rc = call_extract(p, &col, &part, &year_fn))) return rc;
    } else {
        flt_p_next(p), flt_p_next(p); /* the name, '(' */
        if (!year_fn && !part) { /* date_trunc */
            int32_t upos = p->t.pos;
            flt_raw_lit u;
            if (p->t.type != T_STRING) return flt_p_expected(p, "quoted unit ('year', 'month', ...)");
            if ((rc = flt_p_literal(p, &u))) return rc;
            if (flt_unit_parse(u.text, &unit))
                return pq_errf(p->b.e, RINGSCAN_EPARSE, upos, "unknown date_trunc unit '%s' "
                               "(year, quarter, month, day) at character %d", u.text, upos);
            if (p->t.type != T_COMMA) return flt_p_expected(p, "','");
            flt_p_next(p);
        }
        if ((rc = flt_p_column(p, &col))) return rc;
    }
    if (p->t.type != T_RPAREN) return flt_p_expected(p, "')'");
    flt_p_next(p);
    if (p->t.type >= T_EQ && p->t.type <= T_GE) {
        flt_op op = flt_p_cmp_op(p->t.type);
        flt_raw_lit r;
        flt_p_next(p);
        if ((rc = flt_p_literal(p, &r))) return rc;
        if (neg) op = flt_complement(op);
        return part ? flt_atom_part(&p->b, col, pos, part, op, &r, out)
                    : flt_datefn(&p->b, col, pos, unit, year_fn, op, &r, out);
    }
    flt_raw_lit one[2], *raw;
    int32_t nraw;
    if ((rc = parse_set(p, &neg, one, &raw, &nraw))) return rc;
    return part ? flt_part_set(&p->b, col, pos, part, neg, raw != one, raw, nraw, out)
                : flt_datefn_set(&p->b, col, pos, unit, year_fn, neg, raw != one, raw, nraw, out);
}

