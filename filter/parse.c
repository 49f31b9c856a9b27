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

#include "filter/parse.h"

/* A byte of a bare name's first character: an ASCII letter, '_', or any byte of a UTF-8
 * character past ASCII (a name in another script, as DuckDB and PostgreSQL take it bare). */
static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (unsigned char)c >= 0x80;
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

void flt_p_next(parser *p)
{
    const char *s = p->text;
    for (;;) { /* spaces, and SQL's "--" comments to the line's end ("x > 1 --y" is x > 1) */
        while (s[p->at] == ' ' || s[p->at] == '\t' || s[p->at] == '\n' || s[p->at] == '\r') p->at++;
        if (s[p->at] != '-' || s[p->at + 1] != '-') break;
        while (s[p->at] && s[p->at] != '\n') p->at++;
    }
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

bool flt_p_kw(const parser *p, const char *k)
{
    return p->t.type == T_IDENT && (size_t)p->t.n == strlen(k) &&
           strncasecmp(p->t.s, k, (size_t)p->t.n) == 0;
}

int flt_p_expected(parser *p, const char *what)
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

int flt_p_column(parser *p, int32_t *col)
{
    if (p->t.type != T_IDENT && p->t.type != T_QIDENT) return flt_p_expected(p, "column name");
    if (p->t.type == T_IDENT &&
        (flt_p_kw(p, "AND") || flt_p_kw(p, "OR") || flt_p_kw(p, "NOT") || flt_p_kw(p, "NULL")))
        return flt_p_expected(p, "column name");
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
    int32_t i = pq_columns_find(p->b.cols, p->b.ncols, name); /* (case-insensitive) */
    if (i >= 0) {
        *col = i;
        flt_p_next(p);
        return 0;
    }
    (void)len;
    if (i == -2)
        return pq_errf(p->b.e, RINGSCAN_EPARSE, p->t.pos, "column '%s' at character %d is ambiguous: "
                       "columns differ from it in case alone (name one as it is spelled)", name, p->t.pos);
    return pq_errf(p->b.e, RINGSCAN_EPARSE, p->t.pos, "unknown column '%s' at character %d",
                   name, p->t.pos);
}

/* True when the current token is a sign and the next a number (a signed literal). */
bool flt_p_at_signed_number(const parser *p)
{
    if (p->t.type != T_MINUS && p->t.type != T_PLUS) return false;
    parser q = *p;
    flt_p_next(&q);
    return q.t.type == T_NUMBER;
}

int flt_p_literal(parser *p, flt_raw_lit *r)
{
    memset(r, 0, sizeof *r);
    r->pos = p->t.pos;
    bool minus = p->t.type == T_MINUS;
    if (flt_p_at_signed_number(p)) flt_p_next(p);
    if (flt_p_kw(p, "DATE") || flt_p_kw(p, "TIMESTAMP")) {
        r->kind = flt_p_kw(p, "DATE") ? FLT_LIT_DATE : FLT_LIT_TIMESTAMP;
        flt_p_next(p);
        if (p->t.type != T_STRING) return flt_p_expected(p, "quoted date/time after DATE/TIMESTAMP");
    } else if (flt_p_kw(p, "TRUE") || flt_p_kw(p, "FALSE")) {
        r->kind = FLT_LIT_BOOL;
    } else if (flt_p_kw(p, "NULL")) {
        r->kind = FLT_LIT_NULL;
    } else if (p->t.type == T_STRING) {
        r->kind = FLT_LIT_STRING;
    } else if (p->t.type == T_NUMBER) {
        r->kind = FLT_LIT_NUMBER;
    } else {
        return flt_p_expected(p, "literal");
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
    flt_p_next(p);
    return 0;
}

/* Reads '(' lit (',' lit)* ')' into an arena array. */
int flt_p_in_list(parser *p, flt_raw_lit **out, int32_t *n)
{
    if (p->t.type != T_LPAREN) return flt_p_expected(p, "'('");
    flt_p_next(p);
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
        int rc = flt_p_literal(p, &r[(*n)++]);
        if (rc) return rc;
        if (p->t.type == T_RPAREN) break;
        if (p->t.type != T_COMMA) return flt_p_expected(p, "',' or ')'");
        flt_p_next(p);
    }
    flt_p_next(p);
    *out = r;
    return 0;
}

flt_op flt_p_cmp_op(tok_type t)
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
bool flt_p_take_not(parser *p, bool neg)
{
    if (!flt_p_kw(p, "NOT")) return neg;
    flt_p_next(p);
    return !neg;
}

/* True when the current token starts a literal (so it is no column name). */
bool flt_p_at_literal(parser *p)
{
    if (p->t.type == T_STRING || p->t.type == T_NUMBER || flt_p_at_signed_number(p)) return true;
    if (flt_p_kw(p, "TRUE") || flt_p_kw(p, "FALSE") || flt_p_kw(p, "NULL")) return true;
    if (!flt_p_kw(p, "DATE") && !flt_p_kw(p, "TIMESTAMP")) return false;
    parser q = *p; /* DATE 'x' is a literal; a column named date is not */
    flt_p_next(&q);
    return q.t.type == T_STRING;
}

/* col op lit, with the column already read. */
static int atom_cmp(parser *p, int32_t col, int32_t pos, bool neg, flt_node **out)
{
    flt_op op = flt_p_cmp_op(p->t.type);
    flt_p_next(p);
    if (flt_p_value_ahead(p)) { /* col op <arithmetic> */
        flt_vnode *l, *r;
        int rc = flt_v_column(&p->b, col, pos, &l);
        if (!rc) rc = flt_p_sum(p, 0, &r);
        return rc ? rc : flt_atom_values(&p->b, pos, neg ? flt_complement(op) : op, l, r, out);
    }
    parser q = *p; /* a name of a column here is a comparison of two columns */
    pq_err qe;
    q.b.e = &qe;
    int32_t other;
    if (!flt_p_at_literal(p) && flt_p_column(&q, &other) == 0) {
        pq_err *e = p->b.e;
        *p = q, p->b.e = e;
        return flt_atom_two(&p->b, col, other, pos, neg ? flt_complement(op) : op, out);
    }
    flt_raw_lit r;
    int rc = flt_p_literal(p, &r);
    if (rc) return rc;
    return flt_atom(&p->b, col, pos, neg ? flt_complement(op) : op, false, &r, 1, out);
}

/* [NOT] BETWEEN lo AND hi: NOT is lo > x OR x > hi. */
static int atom_between(parser *p, int32_t col, int32_t pos, bool neg, flt_node **out)
{
    flt_raw_lit r[2];
    int rc = flt_p_literal(p, &r[0]);
    if (!rc && !flt_p_kw(p, "AND")) return flt_p_expected(p, "AND");
    if (!rc) flt_p_next(p), rc = flt_p_literal(p, &r[1]);
    if (rc) return rc;
    return flt_atom_between(&p->b, col, pos, neg, r, out);
}

/* [NOT] LIKE / ILIKE 'pattern' [ESCAPE 'c']. */
static int atom_like(parser *p, int32_t col, int32_t pos, bool neg, bool icase, flt_node **out)
{
    if (p->t.type != T_STRING) return flt_p_expected(p, "quoted pattern after LIKE");
    flt_raw_lit r[2];
    int32_t nraw = 1;
    int rc = flt_p_literal(p, &r[0]);
    if (!rc && flt_p_kw(p, "ESCAPE")) {
        flt_p_next(p);
        if (p->t.type != T_STRING) return flt_p_expected(p, "quoted character after ESCAPE");
        rc = flt_p_literal(p, &r[1]), nraw = 2;
    }
    if (rc) return rc;
    return flt_atom(&p->b, col, pos, neg ? FLT_OP_NOT_LIKE : FLT_OP_LIKE, icase, r, nraw, out);
}

/* IS [NOT] NULL | IS [NOT] DISTINCT FROM lit (null is a value there: x IS DISTINCT FROM v
 * is x != v OR x IS NULL). */
static int atom_is(parser *p, int32_t col, int32_t pos, bool neg, flt_node **out)
{
    neg = flt_p_take_not(p, neg);
    if (flt_p_kw(p, "NULL")) {
        flt_p_next(p);
        flt_op op = neg ? FLT_OP_IS_NOT_NULL : FLT_OP_IS_NULL;
        return flt_atom(&p->b, col, pos, op, false, NULL, 0, out);
    }
    if (!flt_p_kw(p, "DISTINCT")) return flt_p_expected(p, "NULL or DISTINCT FROM");
    flt_p_next(p);
    if (!flt_p_kw(p, "FROM")) return flt_p_expected(p, "FROM");
    flt_p_next(p);
    flt_raw_lit r;
    int rc = flt_p_literal(p, &r);
    if (rc) return rc;
    return flt_atom_distinct(&p->b, col, pos, !neg, &r, out);
}

/* starts_with(col, 'text'): LIKE 'text%' with the text's wildcards escaped. */
static int atom_starts_with(parser *p, bool neg, flt_node **out)
{
    int32_t pos = p->t.pos, col;
    flt_p_next(p);
    if (p->t.type != T_LPAREN) return flt_p_expected(p, "'(' after starts_with");
    flt_p_next(p);
    int rc = flt_p_column(p, &col);
    if (rc) return rc;
    if (p->t.type != T_COMMA) return flt_p_expected(p, "','");
    flt_p_next(p);
    if (p->t.type != T_STRING) return flt_p_expected(p, "quoted text");
    flt_raw_lit r;
    if ((rc = flt_p_literal(p, &r))) return rc;
    if (p->t.type != T_RPAREN) return flt_p_expected(p, "')'");
    flt_p_next(p);
    return flt_atom_starts_with(&p->b, col, pos, neg, &r, out);
}

/* lit op col (the literal on the left): the mirrored comparison. */
static int atom_lit_first(parser *p, bool neg, flt_node **out)
{
    int32_t pos = p->t.pos, col;
    flt_raw_lit r;
    int rc = flt_p_literal(p, &r);
    if (rc) return rc;
    if (!(p->t.type >= T_EQ && p->t.type <= T_GE)) return flt_p_expected(p, "comparison operator");
    flt_op op = flt_mirrored(flt_p_cmp_op(p->t.type));
    flt_p_next(p);
    if (flt_p_value_ahead(p) || flt_p_at_literal(p)) { /* lit op <arithmetic> or lit op lit */
        flt_vnode *l, *rv;
        flt_raw_lit *kept = flt_arena_alloc(p->b.arena, sizeof *kept);
        if (!kept) return -ENOMEM;
        *kept = r;
        if (!(rc = flt_v_literal(&p->b, kept, &l))) rc = flt_p_sum(p, 0, &rv);
        flt_op w = flt_mirrored(op);
        return rc ? rc : flt_atom_values(&p->b, pos, neg ? flt_complement(w) : w, l, rv, out);
    }
    if ((rc = flt_p_column(p, &col))) return rc;
    return flt_atom(&p->b, col, pos, neg ? flt_complement(op) : op, false, &r, 1, out);
}

/* True when the current token is the function name fn followed by '(' (so a column of that
 * name still parses as a column). */
bool flt_p_at_call(parser *p, const char *fn)
{
    if (!flt_p_kw(p, fn)) return false;
    parser q = *p;
    flt_p_next(&q);
    return q.t.type == T_LPAREN;
}

/* atom := col (cmp lit | [NOT] BETWEEN | [NOT] IN | IS ... | [NOT] [I]LIKE) | lit cmp col |
 *         starts_with(col, 'text'); neg: it is negated. */
static int parse_atom(parser *p, bool neg, flt_node **out)
{
    if (flt_p_kw(p, "starts_with")) return atom_starts_with(p, neg, out);
    if (flt_p_at_call(p, "year") || flt_p_at_call(p, "date_trunc") || flt_p_at_call(p, "month") ||
        flt_p_at_call(p, "day") || flt_p_at_call(p, "quarter") || flt_p_at_call(p, "extract"))
        return flt_p_atom_call(p, neg, out);
    if (flt_p_value_ahead(p)) return flt_p_atom_values(p, neg, out);
    if (flt_p_at_literal(p)) return atom_lit_first(p, neg, out);
    int32_t col, pos = p->t.pos;
    int rc = flt_p_column(p, &col);
    if (rc) return rc;
    if (p->t.type >= T_EQ && p->t.type <= T_GE) return atom_cmp(p, col, pos, neg, out);
    if (flt_p_kw(p, "IS")) return flt_p_next(p), atom_is(p, col, pos, neg, out);
    neg = flt_p_take_not(p, neg);
    bool icase = flt_p_kw(p, "ILIKE");
    if (flt_p_kw(p, "LIKE") || icase) return flt_p_next(p), atom_like(p, col, pos, neg, icase, out);
    if (flt_p_kw(p, "BETWEEN")) return flt_p_next(p), atom_between(p, col, pos, neg, out);
    if (flt_p_kw(p, "IN")) {
        flt_p_next(p);
        flt_raw_lit *raw;
        int32_t nraw;
        if ((rc = flt_p_in_list(p, &raw, &nraw))) return rc;
        return flt_atom(&p->b, col, pos, neg ? FLT_OP_NOT_IN : FLT_OP_IN, false, raw, nraw, out);
    }
    return flt_p_expected(p, "comparison operator");
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
        flt_p_next(&q);
    } while (depth > 0);
    return !(flt_p_kw(&q, "AND") || flt_p_kw(&q, "OR") || q.t.type == T_RPAREN || q.t.type == T_END);
}

/* not := NOT not | '(' or ')' | atom */
static int parse_not(parser *p, bool neg, int depth, flt_node **out)
{
    if (depth > FLT_MAX_DEPTH)
        return pq_errf(p->b.e, RINGSCAN_ELIMIT, p->t.pos,
                       "filter nested deeper than %d at character %d", FLT_MAX_DEPTH, p->t.pos);
    if (flt_p_kw(p, "NOT")) return flt_p_next(p), parse_not(p, !neg, depth + 1, out);
    if (p->t.type != T_LPAREN || paren_opens_value(p)) return parse_atom(p, neg, out);
    flt_p_next(p);
    int rc = parse_or(p, neg, depth + 1, out);
    if (rc) return rc;
    if (p->t.type != T_RPAREN) return flt_p_expected(p, "AND, OR or ')'");
    flt_p_next(p);
    return 0;
}

/* A run of `sub` joined by the keyword sep; negated, AND and OR swap (De Morgan). */
static int parse_list(parser *p, bool neg, int depth, const char *sep, flt_node **out,
                      int (*sub)(parser *, bool, int, flt_node **))
{
    flt_node *k;
    int rc = sub(p, neg, depth, &k);
    if (rc || !flt_p_kw(p, sep)) return *out = k, rc;
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
        if (!flt_p_kw(p, sep)) break;
        flt_p_next(p);
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
    flt_p_next(p);
    if (p->t.type == T_END) return flt_p_expected(p, "column name");
    flt_node *root;
    int rc = parse_or(p, false, 0, &root);
    if (rc) return rc;
    if (p->t.type != T_END) return flt_p_expected(p, "AND, OR or end of input");
    return flt_tree_to_expr(&p->b, root, ex);
}

int flt_parse(const char *text, const pq_column_desc *cols, int32_t ncols, flt_expr **out,
              pq_err *e)
{
    return flt_parse_fold(text, cols, ncols, NULL, out, e);
}

int flt_parse_fold(const char *text, const pq_column_desc *cols, int32_t ncols,
                   const flt_fold *fold, flt_expr **out, pq_err *e)
{
    assert(text && out && (cols || ncols == 0) && ncols >= 0);
    *out = NULL;
    size_t len = strnlen(text, FLT_MAX_TEXT);
    if (len >= FLT_MAX_TEXT)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "filter text longer than %d bytes", FLT_MAX_TEXT);
    flt_expr *ex = flt_expr_new();
    if (!ex) return -ENOMEM;
    parser p = {.text = text,
                .b = {.arena = &ex->arena, .cols = cols, .ncols = ncols, .e = e, .fold = fold}};
    int rc = parse_all(&p, ex);
    if (rc) {
        if (rc == -ENOMEM) pq_errf(e, -ENOMEM, -1, "out of memory parsing the filter");
        flt_expr_free(ex);
        return rc;
    }
    *out = ex;
    return 0;
}
