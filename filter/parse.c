/* filter/parse.c: the filter text parser (grammar in expr.h).
 *
 * Owns: tokenizing and recursive descent over filter text into the boolean tree (tree.h:
 * NOT pushed to the atoms as it parses), column lookup, and the error messages with 1-based
 * character positions. Literal typing is lit.c's (flt_type_term); the normal form and the
 * predicates are tree.c's.
 *
 * Invariants:
 *  1. The tokenizer never reads past the terminating NUL; every token records the 1-based
 *     position of its first character, and every error names the position of the token that
 *     was not acceptable ("expected X at character N").
 *  2. All memory comes from the expression's arena: on error the whole arena is freed, so
 *     nothing leaks and *out is left NULL.
 *  3. Every loop is bounded by the text length and by FLT_MAX_PREDS / FLT_MAX_TERMS. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filter/tree.h"
#include "filter/vexpr.h"

typedef enum {
    T_END, T_IDENT, T_QIDENT, T_STRING, T_NUMBER, T_LPAREN, T_RPAREN, T_COMMA,
    T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_BAD,
} tok_type;

typedef struct tok {
    tok_type type;
    const char *s; /* start in the text */
    int32_t n;     /* length in the text */
    int32_t pos;   /* 1-based */
} tok;

typedef struct parser {
    const char *text;
    int32_t at;    /* next unread byte */
    tok t;         /* current token */
    flt_build b;   /* arena, schema, error: what the tree is built with (tree.h) */
} parser;

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Length of a quoted token starting at s (quote q), including both quotes; -1 if unclosed. */
static int32_t quoted_len(const char *s, char q)
{
    int32_t i = 1;
    for (;;) {
        if (s[i] == 0) return -1;
        if (s[i] == q) {
            if (s[i + 1] != q) return i + 1;
            i++;
        }
        i++;
    }
}

static int32_t number_len(const char *s)
{
    int32_t i = (s[0] == '-' || s[0] == '+');
    while (is_digit(s[i]) || s[i] == '.') i++;
    if ((s[i] == 'e' || s[i] == 'E') &&
        (is_digit(s[i + 1]) || ((s[i + 1] == '-' || s[i + 1] == '+') && is_digit(s[i + 2]))))
        for (i += 2; is_digit(s[i]); i++) {}
    return i;
}

static void next(parser *p)
{
    const char *s = p->text;
    while (s[p->at] == ' ' || s[p->at] == '\t' || s[p->at] == '\n' || s[p->at] == '\r') p->at++;
    const char *c = s + p->at;
    tok t = {T_BAD, c, 1, p->at + 1};
    if (*c == 0) t.type = T_END, t.n = 0;
    else if (is_ident_start(*c)) {
        t.type = T_IDENT;
        while (is_ident(c[t.n])) t.n++;
    } else if (*c == '"' || *c == '\'') {
        int32_t n = quoted_len(c, *c);
        if (n > 0) t.type = *c == '"' ? T_QIDENT : T_STRING, t.n = n;
    } else if (is_digit(*c) || (*c == '.' && is_digit(c[1]))) {
        t.type = T_NUMBER, t.n = number_len(c);
    } else if (*c == '(') t.type = T_LPAREN;
    else if (*c == '+') t.type = T_PLUS;
    else if (*c == '-') t.type = T_MINUS;
    else if (*c == '*') t.type = T_STAR;
    else if (*c == '/') t.type = T_SLASH;
    else if (*c == ')') t.type = T_RPAREN;
    else if (*c == ',') t.type = T_COMMA;
    else if (*c == '=') t.type = T_EQ, t.n = c[1] == '=' ? 2 : 1;
    else if (*c == '!' && c[1] == '=') t.type = T_NE, t.n = 2;
    else if (*c == '<') {
        t.type = c[1] == '=' ? T_LE : c[1] == '>' ? T_NE : T_LT;
        t.n = 1 + (c[1] == '=' || c[1] == '>');
    }
    else if (*c == '>') t.type = c[1] == '=' ? T_GE : T_GT, t.n = 1 + (c[1] == '=');
    p->t = t;
    p->at += t.n;
}

static bool kw(const parser *p, const char *k)
{
    return p->t.type == T_IDENT && (size_t)p->t.n == strlen(k) &&
           strncasecmp(p->t.s, k, (size_t)p->t.n) == 0;
}

static int expected(parser *p, const char *what)
{
    if (p->t.type == T_BAD && (*p->t.s == '\'' || *p->t.s == '"'))
        return pq_errf(p->b.e, RINGSCAN_EPARSE, p->t.pos,
                       "unterminated quoted text at character %d", p->t.pos);
    return pq_errf(p->b.e, RINGSCAN_EPARSE, p->t.pos, "expected %s at character %d", what,
                   p->t.pos);
}

/* Copies a quoted token's content with doubled quotes collapsed into the arena. */
static char *unquote(parser *p, int32_t *len)
{
    char q = p->t.s[0];
    char *out = flt_arena_alloc(p->b.arena, (size_t)p->t.n);
    if (!out) return NULL;
    int32_t k = 0;
    for (int32_t i = 1; i < p->t.n - 1; i++) {
        out[k++] = p->t.s[i];
        if (p->t.s[i] == q) i++;
    }
    out[k] = 0;
    *len = k;
    return out;
}

static int parse_column(parser *p, int32_t *col)
{
    if (p->t.type != T_IDENT && p->t.type != T_QIDENT) return expected(p, "column name");
    if (p->t.type == T_IDENT &&
        (kw(p, "AND") || kw(p, "OR") || kw(p, "NOT") || kw(p, "NULL")))
        return expected(p, "column name");
    char *name;
    int32_t len;
    if (p->t.type == T_QIDENT) {
        name = unquote(p, &len);
        if (!name) return -ENOMEM;
    } else {
        name = flt_arena_alloc(p->b.arena, (size_t)p->t.n + 1);
        if (!name) return -ENOMEM;
        memcpy(name, p->t.s, (size_t)p->t.n);
        len = p->t.n;
    }
    for (int32_t i = 0; i < p->b.ncols; i++) {
        if (p->b.cols[i].name && strcmp(p->b.cols[i].name, name) == 0) {
            *col = i;
            next(p);
            return 0;
        }
    }
    (void)len;
    return pq_errf(p->b.e, RINGSCAN_EPARSE, p->t.pos, "unknown column '%s' at character %d",
                   name, p->t.pos);
}

/* True when the current token is a sign and the next a number (a signed literal). */
static bool at_signed_number(const parser *p)
{
    if (p->t.type != T_MINUS && p->t.type != T_PLUS) return false;
    parser q = *p;
    next(&q);
    return q.t.type == T_NUMBER;
}

static int parse_literal(parser *p, flt_raw_lit *r)
{
    memset(r, 0, sizeof *r);
    r->pos = p->t.pos;
    bool minus = p->t.type == T_MINUS;
    if (at_signed_number(p)) next(p);
    if (kw(p, "DATE") || kw(p, "TIMESTAMP")) {
        r->kind = kw(p, "DATE") ? FLT_LIT_DATE : FLT_LIT_TIMESTAMP;
        next(p);
        if (p->t.type != T_STRING) return expected(p, "quoted date/time after DATE/TIMESTAMP");
    } else if (kw(p, "TRUE") || kw(p, "FALSE")) {
        r->kind = FLT_LIT_BOOL;
    } else if (kw(p, "NULL")) {
        r->kind = FLT_LIT_NULL;
    } else if (p->t.type == T_STRING) {
        r->kind = FLT_LIT_STRING;
    } else if (p->t.type == T_NUMBER) {
        r->kind = FLT_LIT_NUMBER;
    } else {
        return expected(p, "literal");
    }
    char *text;
    if (p->t.type == T_STRING) {
        text = unquote(p, &r->len);
    } else { /* a number keeps its sign */
        text = flt_arena_alloc(p->b.arena, (size_t)p->t.n + 2);
        if (text) text[0] = '-', memcpy(text + minus, p->t.s, (size_t)p->t.n), r->len = p->t.n + minus;
    }
    if (!text) return -ENOMEM;
    r->text = text;
    next(p);
    return 0;
}

/* Reads '(' lit (',' lit)* ')' into an arena array. */
static int parse_in_list(parser *p, flt_raw_lit **out, int32_t *n)
{
    if (p->t.type != T_LPAREN) return expected(p, "'('");
    next(p);
    int32_t cap = 8;
    flt_raw_lit *r = flt_arena_alloc(p->b.arena, (size_t)cap * sizeof *r);
    if (!r) return -ENOMEM;
    for (*n = 0;;) {
        if (*n == FLT_MAX_TERMS)
            return pq_errf(p->b.e, RINGSCAN_ELIMIT, p->t.pos,
                           "IN list longer than %d at character %d", FLT_MAX_TERMS, p->t.pos);
        if (*n == cap) {
            flt_raw_lit *g = flt_arena_alloc(p->b.arena, (size_t)cap * 2 * sizeof *g);
            if (!g) return -ENOMEM;
            memcpy(g, r, (size_t)cap * sizeof *g);
            r = g, cap *= 2;
        }
        int rc = parse_literal(p, &r[(*n)++]);
        if (rc) return rc;
        if (p->t.type == T_RPAREN) break;
        if (p->t.type != T_COMMA) return expected(p, "',' or ')'");
        next(p);
    }
    next(p);
    *out = r;
    return 0;
}

static flt_op cmp_op(tok_type t)
{
    switch (t) {
    case T_EQ: return FLT_OP_EQ;
    case T_NE: return FLT_OP_NE;
    case T_LT: return FLT_OP_LT;
    case T_LE: return FLT_OP_LE;
    case T_GT: return FLT_OP_GT;
    default: return FLT_OP_GE;
    }
}

/* Lets a NOT IN / NOT BETWEEN / NOT LIKE / IS NOT ... flip the sense. */
static bool take_not(parser *p, bool neg)
{
    if (!kw(p, "NOT")) return neg;
    next(p);
    return !neg;
}

/* True when the current token starts a literal (so it is no column name). */
static bool at_literal(parser *p)
{
    if (p->t.type == T_STRING || p->t.type == T_NUMBER || at_signed_number(p)) return true;
    if (kw(p, "TRUE") || kw(p, "FALSE") || kw(p, "NULL")) return true;
    if (!kw(p, "DATE") && !kw(p, "TIMESTAMP")) return false;
    parser q = *p; /* DATE 'x' is a literal; a column named date is not */
    next(&q);
    return q.t.type == T_STRING;
}

static bool value_ahead(parser *p);
static int parse_sum(parser *p, int depth, flt_vnode **out);

/* col op lit, with the column already read. */
static int atom_cmp(parser *p, int32_t col, int32_t pos, bool neg, flt_node **out)
{
    flt_op op = cmp_op(p->t.type);
    next(p);
    if (value_ahead(p)) { /* col op <arithmetic> */
        flt_vnode *l, *r;
        int rc = flt_v_column(&p->b, col, pos, &l);
        if (!rc) rc = parse_sum(p, 0, &r);
        return rc ? rc : flt_atom_values(&p->b, pos, neg ? flt_complement(op) : op, l, r, out);
    }
    parser q = *p; /* a name of a column here is a comparison of two columns */
    pq_err qe;
    q.b.e = &qe;
    int32_t other;
    if (!at_literal(p) && parse_column(&q, &other) == 0) {
        pq_err *e = p->b.e;
        *p = q, p->b.e = e;
        return flt_atom_two(&p->b, col, other, pos, neg ? flt_complement(op) : op, out);
    }
    flt_raw_lit r;
    int rc = parse_literal(p, &r);
    if (rc) return rc;
    return flt_atom(&p->b, col, pos, neg ? flt_complement(op) : op, false, &r, 1, out);
}

/* [NOT] BETWEEN lo AND hi: NOT is lo > x OR x > hi. */
static int atom_between(parser *p, int32_t col, int32_t pos, bool neg, flt_node **out)
{
    flt_raw_lit r[2];
    int rc = parse_literal(p, &r[0]);
    if (!rc && !kw(p, "AND")) return expected(p, "AND");
    if (!rc) next(p), rc = parse_literal(p, &r[1]);
    if (rc) return rc;
    return flt_atom_between(&p->b, col, pos, neg, r, out);
}

/* [NOT] LIKE / ILIKE 'pattern' [ESCAPE 'c']. */
static int atom_like(parser *p, int32_t col, int32_t pos, bool neg, bool icase, flt_node **out)
{
    if (p->t.type != T_STRING) return expected(p, "quoted pattern after LIKE");
    flt_raw_lit r[2];
    int32_t nraw = 1;
    int rc = parse_literal(p, &r[0]);
    if (!rc && kw(p, "ESCAPE")) {
        next(p);
        if (p->t.type != T_STRING) return expected(p, "quoted character after ESCAPE");
        rc = parse_literal(p, &r[1]), nraw = 2;
    }
    if (rc) return rc;
    return flt_atom(&p->b, col, pos, neg ? FLT_OP_NOT_LIKE : FLT_OP_LIKE, icase, r, nraw, out);
}

/* IS [NOT] NULL | IS [NOT] DISTINCT FROM lit (null is a value there: x IS DISTINCT FROM v
 * is x != v OR x IS NULL). */
static int atom_is(parser *p, int32_t col, int32_t pos, bool neg, flt_node **out)
{
    neg = take_not(p, neg);
    if (kw(p, "NULL")) {
        next(p);
        flt_op op = neg ? FLT_OP_IS_NOT_NULL : FLT_OP_IS_NULL;
        return flt_atom(&p->b, col, pos, op, false, NULL, 0, out);
    }
    if (!kw(p, "DISTINCT")) return expected(p, "NULL or DISTINCT FROM");
    next(p);
    if (!kw(p, "FROM")) return expected(p, "FROM");
    next(p);
    flt_raw_lit r;
    int rc = parse_literal(p, &r);
    if (rc) return rc;
    return flt_atom_distinct(&p->b, col, pos, !neg, &r, out);
}

/* starts_with(col, 'text'): LIKE 'text%' with the text's wildcards escaped. */
static int atom_starts_with(parser *p, bool neg, flt_node **out)
{
    int32_t pos = p->t.pos, col;
    next(p);
    if (p->t.type != T_LPAREN) return expected(p, "'(' after starts_with");
    next(p);
    int rc = parse_column(p, &col);
    if (rc) return rc;
    if (p->t.type != T_COMMA) return expected(p, "','");
    next(p);
    if (p->t.type != T_STRING) return expected(p, "quoted text");
    flt_raw_lit r;
    if ((rc = parse_literal(p, &r))) return rc;
    if (p->t.type != T_RPAREN) return expected(p, "')'");
    next(p);
    return flt_atom_starts_with(&p->b, col, pos, neg, &r, out);
}

/* lit op col (the literal on the left): the mirrored comparison. */
static int atom_lit_first(parser *p, bool neg, flt_node **out)
{
    int32_t pos = p->t.pos, col;
    flt_raw_lit r;
    int rc = parse_literal(p, &r);
    if (rc) return rc;
    if (!(p->t.type >= T_EQ && p->t.type <= T_GE)) return expected(p, "comparison operator");
    flt_op op = flt_mirrored(cmp_op(p->t.type));
    next(p);
    if (value_ahead(p) || at_literal(p)) { /* lit op <arithmetic> or lit op lit */
        flt_vnode *l, *rv;
        flt_raw_lit *kept = flt_arena_alloc(p->b.arena, sizeof *kept);
        if (!kept) return -ENOMEM;
        *kept = r;
        if (!(rc = flt_v_literal(&p->b, kept, &l))) rc = parse_sum(p, 0, &rv);
        flt_op w = flt_mirrored(op);
        return rc ? rc : flt_atom_values(&p->b, pos, neg ? flt_complement(w) : w, l, rv, out);
    }
    if ((rc = parse_column(p, &col))) return rc;
    return flt_atom(&p->b, col, pos, neg ? flt_complement(op) : op, false, &r, 1, out);
}

/* True when the current token is the function name fn followed by '(' (so a column of that
 * name still parses as a column). */
static bool at_call(parser *p, const char *fn)
{
    if (!kw(p, fn)) return false;
    parser q = *p;
    next(&q);
    return q.t.type == T_LPAREN;
}

/* ---- value expressions: sum := prod (('+'|'-') prod)* ; prod := unary (('*'|'/') unary)* ;
 * unary := ('-'|'+') unary | primary ; primary := column | literal | '(' sum ')'
 *        | CAST '(' sum AS type ['(' n [',' n] ')'] ')' ------------------------------------- */

static bool is_arith(tok_type t) { return t >= T_PLUS && t <= T_SLASH; }

/* Skips one column name or literal on q; false when there is none. */
static bool skip_operand(parser *q)
{
    if (at_literal(q)) {
        if (at_signed_number(q)) next(q);
        if (kw(q, "DATE") || kw(q, "TIMESTAMP")) next(q);
        next(q);
        return true;
    }
    if (q->t.type != T_IDENT && q->t.type != T_QIDENT) return false;
    next(q);
    return true;
}

/* True when a value expression starts here rather than a bare column or literal: a '(', a
 * CAST, a sign before anything but a number, or an operand an arithmetic operator follows. */
static bool value_ahead(parser *p)
{
    if (p->t.type == T_LPAREN || at_call(p, "CAST")) return true;
    if ((p->t.type == T_MINUS || p->t.type == T_PLUS) && !at_signed_number(p)) return true;
    parser q = *p;
    return skip_operand(&q) && is_arith(q.t.type);
}

/* CAST '(' sum AS type ')', at the name CAST. */
static int parse_cast(parser *p, int depth, flt_vnode **out)
{
    int32_t pos = p->t.pos;
    next(p), next(p); /* CAST ( */
    flt_vnode *a;
    int rc = parse_sum(p, depth + 1, &a);
    if (rc) return rc;
    if (!kw(p, "AS")) return expected(p, "AS");
    next(p);
    if (p->t.type != T_IDENT) return expected(p, "type name");
    const char *start = p->t.s;
    next(p);
    if (p->t.type == T_LPAREN) { /* (p) or (p, s) */
        while (p->t.type == T_LPAREN || p->t.type == T_NUMBER || p->t.type == T_COMMA) next(p);
        if (p->t.type != T_RPAREN) return expected(p, "')'");
        next(p);
    }
    char type[64]; /* the name as written, blanks dropped */
    size_t n = 0;
    for (const char *c = start; c < p->t.s && n + 1 < sizeof type; c++)
        if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r') type[n++] = *c;
    type[n] = 0;
    if (p->t.type != T_RPAREN) return expected(p, "')' after the type");
    next(p);
    return flt_v_cast(&p->b, pos, a, type, out);
}

static int parse_unary(parser *p, int depth, flt_vnode **out);

static int parse_primary(parser *p, int depth, flt_vnode **out)
{
    int32_t pos = p->t.pos, col;
    int rc;
    if (p->t.type == T_LPAREN) {
        next(p);
        if ((rc = parse_sum(p, depth + 1, out))) return rc;
        if (p->t.type != T_RPAREN) return expected(p, "')'");
        next(p);
        return 0;
    }
    if (at_call(p, "CAST")) return parse_cast(p, depth, out);
    if (at_literal(p)) {
        flt_raw_lit *r = flt_arena_alloc(p->b.arena, sizeof *r);
        if (!r) return -ENOMEM;
        if ((rc = parse_literal(p, r))) return rc;
        return flt_v_literal(&p->b, r, out);
    }
    if ((rc = parse_column(p, &col))) return rc;
    return flt_v_column(&p->b, col, pos, out);
}

static int parse_unary(parser *p, int depth, flt_vnode **out)
{
    if (depth > FLT_MAX_DEPTH)
        return pq_errf(p->b.e, RINGSCAN_ELIMIT, p->t.pos,
                       "expression nested deeper than %d at character %d", FLT_MAX_DEPTH, p->t.pos);
    if ((p->t.type != T_MINUS && p->t.type != T_PLUS) || at_signed_number(p))
        return parse_primary(p, depth, out);
    int32_t pos = p->t.pos;
    bool minus = p->t.type == T_MINUS;
    next(p);
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
        next(p);
        if ((rc = sub(p, depth, &b))) break;
        rc = flt_v_binary(&p->b, op, pos, *out, b, out);
    }
    return rc;
}

static int parse_prod(parser *p, int depth, flt_vnode **out)
{
    return parse_chain(p, depth, T_STAR, T_SLASH, out, parse_unary);
}

static int parse_sum(parser *p, int depth, flt_vnode **out)
{
    return parse_chain(p, depth, T_PLUS, T_MINUS, out, parse_prod);
}

/* value op value | value [NOT] BETWEEN value AND value | value [NOT] IN (value, ...), where a
 * value expression starts (value_ahead). */
static int atom_values(parser *p, bool neg, flt_node **out)
{
    int32_t pos = p->t.pos;
    flt_vnode *l, *v[2];
    int rc = parse_sum(p, 0, &l);
    if (rc) return rc;
    if (p->t.type >= T_EQ && p->t.type <= T_GE) {
        flt_op op = cmp_op(p->t.type);
        next(p);
        if ((rc = parse_sum(p, 0, &v[0]))) return rc;
        return flt_atom_values(&p->b, pos, neg ? flt_complement(op) : op, l, v[0], out);
    }
    neg = take_not(p, neg);
    if (kw(p, "BETWEEN")) { /* l >= lo AND l <= hi; NOT: l < lo OR l > hi */
        next(p);
        if ((rc = parse_sum(p, 0, &v[0]))) return rc;
        if (!kw(p, "AND")) return expected(p, "AND");
        next(p);
        if ((rc = parse_sum(p, 0, &v[1]))) return rc;
        flt_node *a, *b;
        if ((rc = flt_atom_values(&p->b, pos, neg ? FLT_OP_LT : FLT_OP_GE, l, v[0], &a)) ||
            (rc = flt_atom_values(&p->b, pos, neg ? FLT_OP_GT : FLT_OP_LE, l, v[1], &b)))
            return rc;
        return flt_pair(&p->b, neg ? FLT_N_OR : FLT_N_AND, a, b, out);
    }
    if (!kw(p, "IN")) return expected(p, "comparison operator");
    next(p);
    if (p->t.type != T_LPAREN) return expected(p, "'('");
    flt_node *x = flt_node_new(&p->b, neg ? FLT_N_AND : FLT_N_OR, FLT_V_MAX_NODES);
    if (!x) return -ENOMEM;
    x->n = 0;
    do { /* IN: l = each, OR-ed; NOT IN: l != each, AND-ed */
        next(p);
        if (x->n == FLT_V_MAX_NODES)
            return pq_errf(p->b.e, RINGSCAN_ELIMIT, p->t.pos, "IN list of an expression longer "
                           "than %d at character %d", FLT_V_MAX_NODES, p->t.pos);
        if ((rc = parse_sum(p, 0, &v[0])) ||
            (rc = flt_atom_values(&p->b, pos, neg ? FLT_OP_NE : FLT_OP_EQ, l, v[0], &x->kids[x->n])))
            return rc;
        x->n++;
    } while (p->t.type == T_COMMA);
    if (p->t.type != T_RPAREN) return expected(p, "',' or ')'");
    next(p);
    *out = x;
    return 0;
}

/* [NOT] BETWEEN lit AND lit | [NOT] IN (lit, ...) after a function call: *neg flipped by the
 * NOT, the literals in one[] (BETWEEN) or *raw (IN: then *raw != one). */
static int parse_set(parser *p, bool *neg, flt_raw_lit one[2], flt_raw_lit **raw, int32_t *nraw)
{
    *neg = take_not(p, *neg);
    *raw = one, *nraw = 2;
    if (kw(p, "BETWEEN")) {
        next(p);
        int rc = parse_literal(p, &one[0]);
        if (!rc && !kw(p, "AND")) return expected(p, "AND");
        if (!rc) next(p), rc = parse_literal(p, &one[1]);
        return rc;
    }
    if (!kw(p, "IN")) return expected(p, "comparison operator");
    next(p);
    return parse_in_list(p, raw, nraw);
}

/* extract(part FROM col), at the name extract: year, quarter, month or day of a date. */
static int call_extract(parser *p, int32_t *col, int32_t *part, bool *year_fn)
{
    next(p), next(p); /* extract ( */
    int32_t upos = p->t.pos;
    *year_fn = kw(p, "year");
    *part = flt_part_parse(p->t.s, (size_t)p->t.n);
    if (p->t.type != T_IDENT || (!*year_fn && !*part))
        return pq_errf(p->b.e, RINGSCAN_EPARSE, upos, "extract takes year, quarter, month or "
                       "day at character %d", upos);
    next(p);
    if (!kw(p, "FROM")) return expected(p, "FROM");
    next(p);
    return parse_column(p, col);
}

/* fn(col) cmp lit | fn(col) [NOT] BETWEEN lit AND lit | fn(col) [NOT] IN (lit, ...), fn one
 * of year(col), extract(year FROM col) and date_trunc('unit', col), each comparison rewritten
 * into ranges of the column (datefn.c), or month / day / quarter (col) and their extract
 * forms, evaluated row by row (flt_atom_part); BETWEEN and IN as the AND / OR of comparisons. */
static int atom_call(parser *p, bool neg, flt_node **out)
{
    int32_t pos = p->t.pos, col, part = flt_part_parse(p->t.s, (size_t)p->t.n);
    bool year_fn = kw(p, "year");
    flt_unit unit = FLT_UNIT_YEAR;
    int rc;
    if (kw(p, "extract")) {
        if ((rc = call_extract(p, &col, &part, &year_fn))) return rc;
    } else {
        next(p), next(p); /* the name, '(' */
        if (!year_fn && !part) { /* date_trunc */
            int32_t upos = p->t.pos;
            flt_raw_lit u;
            if (p->t.type != T_STRING) return expected(p, "quoted unit ('year', 'month', ...)");
            if ((rc = parse_literal(p, &u))) return rc;
            if (flt_unit_parse(u.text, &unit))
                return pq_errf(p->b.e, RINGSCAN_EPARSE, upos, "unknown date_trunc unit '%s' "
                               "(year, quarter, month, day) at character %d", u.text, upos);
            if (p->t.type != T_COMMA) return expected(p, "','");
            next(p);
        }
        if ((rc = parse_column(p, &col))) return rc;
    }
    if (p->t.type != T_RPAREN) return expected(p, "')'");
    next(p);
    if (p->t.type >= T_EQ && p->t.type <= T_GE) {
        flt_op op = cmp_op(p->t.type);
        flt_raw_lit r;
        next(p);
        if ((rc = parse_literal(p, &r))) return rc;
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

/* atom := col (cmp lit | [NOT] BETWEEN | [NOT] IN | IS ... | [NOT] [I]LIKE) | lit cmp col |
 *         starts_with(col, 'text'); neg: it is negated. */
static int parse_atom(parser *p, bool neg, flt_node **out)
{
    if (kw(p, "starts_with")) return atom_starts_with(p, neg, out);
    if (at_call(p, "year") || at_call(p, "date_trunc") || at_call(p, "month") ||
        at_call(p, "day") || at_call(p, "quarter") || at_call(p, "extract"))
        return atom_call(p, neg, out);
    if (value_ahead(p)) return atom_values(p, neg, out);
    if (at_literal(p)) return atom_lit_first(p, neg, out);
    int32_t col, pos = p->t.pos;
    int rc = parse_column(p, &col);
    if (rc) return rc;
    if (p->t.type >= T_EQ && p->t.type <= T_GE) return atom_cmp(p, col, pos, neg, out);
    if (kw(p, "IS")) return next(p), atom_is(p, col, pos, neg, out);
    neg = take_not(p, neg);
    bool icase = kw(p, "ILIKE");
    if (kw(p, "LIKE") || icase) return next(p), atom_like(p, col, pos, neg, icase, out);
    if (kw(p, "BETWEEN")) return next(p), atom_between(p, col, pos, neg, out);
    if (kw(p, "IN")) {
        next(p);
        flt_raw_lit *raw;
        int32_t nraw;
        if ((rc = parse_in_list(p, &raw, &nraw))) return rc;
        return flt_atom(&p->b, col, pos, neg ? FLT_OP_NOT_IN : FLT_OP_IN, false, raw, nraw, out);
    }
    return expected(p, "comparison operator");
}

static int parse_or(parser *p, bool neg, int depth, flt_node **out);

/* Whether the '(' here opens a value expression, not a group of conditions: what follows its
 * ')' is neither AND, OR, ')' nor the end. Bounded by the text (and, nested, by the depth). */
static bool paren_opens_value(const parser *p)
{
    parser q = *p;
    int32_t depth = 0;
    do {
        if (q.t.type == T_END || q.t.type == T_BAD) return false;
        depth += q.t.type == T_LPAREN ? 1 : q.t.type == T_RPAREN ? -1 : 0;
        next(&q);
    } while (depth > 0);
    return !(kw(&q, "AND") || kw(&q, "OR") || q.t.type == T_RPAREN || q.t.type == T_END);
}

/* not := NOT not | '(' or ')' | atom */
static int parse_not(parser *p, bool neg, int depth, flt_node **out)
{
    if (depth > FLT_MAX_DEPTH)
        return pq_errf(p->b.e, RINGSCAN_ELIMIT, p->t.pos,
                       "filter nested deeper than %d at character %d", FLT_MAX_DEPTH, p->t.pos);
    if (kw(p, "NOT")) return next(p), parse_not(p, !neg, depth + 1, out);
    if (p->t.type != T_LPAREN || paren_opens_value(p)) return parse_atom(p, neg, out);
    next(p);
    int rc = parse_or(p, neg, depth + 1, out);
    if (rc) return rc;
    if (p->t.type != T_RPAREN) return expected(p, "AND, OR or ')'");
    next(p);
    return 0;
}

/* A run of `sub` joined by the keyword sep; negated, AND and OR swap (De Morgan). */
static int parse_list(parser *p, bool neg, int depth, const char *sep, flt_node **out,
                      int (*sub)(parser *, bool, int, flt_node **))
{
    flt_node *k;
    int rc = sub(p, neg, depth, &k);
    if (rc || !kw(p, sep)) return *out = k, rc;
    bool is_and = sep[0] == 'A';
    flt_node *x = flt_node_new(&p->b, is_and != neg ? FLT_N_AND : FLT_N_OR, 0);
    if (!x) return -ENOMEM;
    for (int32_t cap = 0;;) {
        if (x->n == cap) {
            if (cap == FLT_MAX_TERMS)
                return pq_errf(p->b.e, RINGSCAN_ELIMIT, p->t.pos, "more than %d %s operands "
                               "at character %d", FLT_MAX_TERMS, sep, p->t.pos);
            flt_node **g = flt_arena_alloc(p->b.arena, (size_t)(cap ? cap * 2 : 4) * sizeof *g);
            if (!g) return -ENOMEM;
            if (cap) memcpy(g, x->kids, (size_t)cap * sizeof *g);
            x->kids = g, cap = cap ? cap * 2 : 4;
        }
        x->kids[x->n++] = k;
        if (!kw(p, sep)) break;
        next(p);
        if ((rc = sub(p, neg, depth, &k))) return rc;
    }
    *out = x;
    return 0;
}

static int parse_and(parser *p, bool neg, int depth, flt_node **out)
{
    return parse_list(p, neg, depth, "AND", out, parse_not);
}

static int parse_or(parser *p, bool neg, int depth, flt_node **out)
{
    return parse_list(p, neg, depth, "OR", out, parse_and);
}

static int parse_all(parser *p, flt_expr *ex)
{
    next(p);
    if (p->t.type == T_END) return expected(p, "column name");
    flt_node *root;
    int rc = parse_or(p, false, 0, &root);
    if (rc) return rc;
    if (p->t.type != T_END) return expected(p, "AND, OR or end of input");
    return flt_tree_to_expr(&p->b, root, ex);
}

int flt_parse(const char *text, const pq_column_desc *cols, int32_t ncols, flt_expr **out,
              pq_err *e)
{
    assert(text && out && (cols || ncols == 0) && ncols >= 0);
    *out = NULL;
    size_t len = strnlen(text, FLT_MAX_TEXT);
    if (len >= FLT_MAX_TEXT)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "filter text longer than %d bytes", FLT_MAX_TEXT);
    flt_expr *ex = flt_expr_new();
    if (!ex) return -ENOMEM;
    parser p = {.text = text, .b = {.arena = &ex->arena, .cols = cols, .ncols = ncols, .e = e}};
    int rc = parse_all(&p, ex);
    if (rc) {
        if (rc == -ENOMEM) pq_errf(e, -ENOMEM, -1, "out of memory parsing the filter");
        flt_expr_free(ex);
        return rc;
    }
    *out = ex;
    return 0;
}
