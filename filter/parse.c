/* filter/parse.c: the filter text parser (grammar in expr.h).
 *
 * Owns: tokenizing and recursive descent over filter text, column lookup, and the error
 * messages with 1-based character positions. Literal typing is expr.c's (flt_type_term).
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

#include "filter/expr.h"

typedef enum {
    T_END, T_IDENT, T_QIDENT, T_STRING, T_NUMBER, T_LPAREN, T_RPAREN, T_COMMA,
    T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_BAD,
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
    struct flt_arena **arena;
    const pq_column_desc *cols;
    int32_t ncols;
    pq_err *e;
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
    } else if (is_digit(*c) || ((*c == '-' || *c == '+' || *c == '.') &&
                                (is_digit(c[1]) || (c[1] == '.' && is_digit(c[2]))))) {
        t.type = T_NUMBER, t.n = number_len(c);
    } else if (*c == '(') t.type = T_LPAREN;
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
        return pq_errf(p->e, RINGSCAN_EPARSE, p->t.pos,
                       "unterminated quoted text at character %d", p->t.pos);
    return pq_errf(p->e, RINGSCAN_EPARSE, p->t.pos, "expected %s at character %d", what,
                   p->t.pos);
}

/* Copies a quoted token's content with doubled quotes collapsed into the arena. */
static char *unquote(parser *p, int32_t *len)
{
    char q = p->t.s[0];
    char *out = flt_arena_alloc(p->arena, (size_t)p->t.n);
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
        name = flt_arena_alloc(p->arena, (size_t)p->t.n + 1);
        if (!name) return -ENOMEM;
        memcpy(name, p->t.s, (size_t)p->t.n);
        len = p->t.n;
    }
    for (int32_t i = 0; i < p->ncols; i++) {
        if (p->cols[i].name && strcmp(p->cols[i].name, name) == 0) {
            *col = i;
            next(p);
            return 0;
        }
    }
    (void)len;
    return pq_errf(p->e, RINGSCAN_EPARSE, p->t.pos, "unknown column '%s' at character %d",
                   name, p->t.pos);
}

static int parse_literal(parser *p, flt_raw_lit *r)
{
    memset(r, 0, sizeof *r);
    r->pos = p->t.pos;
    if (kw(p, "DATE") || kw(p, "TIMESTAMP")) {
        r->kind = kw(p, "DATE") ? FLT_LIT_DATE : FLT_LIT_TIMESTAMP;
        next(p);
        if (p->t.type != T_STRING) return expected(p, "quoted date/time after DATE/TIMESTAMP");
    } else if (kw(p, "TRUE") || kw(p, "FALSE")) {
        r->kind = FLT_LIT_BOOL;
    } else if (kw(p, "NULL")) {
        return pq_errf(p->e, RINGSCAN_EPARSE, p->t.pos,
                       "comparison with NULL never matches; use IS NULL at character %d",
                       p->t.pos);
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
    } else {
        text = flt_arena_alloc(p->arena, (size_t)p->t.n + 1);
        if (text) memcpy(text, p->t.s, (size_t)p->t.n), r->len = p->t.n;
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
    flt_raw_lit *r = flt_arena_alloc(p->arena, (size_t)cap * sizeof *r);
    if (!r) return -ENOMEM;
    for (*n = 0;;) {
        if (*n == FLT_MAX_TERMS)
            return pq_errf(p->e, RINGSCAN_ELIMIT, p->t.pos,
                           "IN list longer than %d at character %d", FLT_MAX_TERMS, p->t.pos);
        if (*n == cap) {
            flt_raw_lit *g = flt_arena_alloc(p->arena, (size_t)cap * 2 * sizeof *g);
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

/* ---- the boolean tree -------------------------------------------------------------------
 * NOT is pushed down while parsing (De Morgan; each comparison flips to its complement,
 * which is exact in SQL's three-valued logic because NaN is ordered: kernel.h invariant 2),
 * so the tree holds AND, OR and atoms only; it is then put in conjunctive normal form. */

typedef enum { N_ATOM, N_AND, N_OR } nkind;

typedef struct node {
    nkind kind;
    int32_t n;           /* AND / OR: children */
    struct node **kids;
    int32_t column, pos; /* atom: its column and the 1-based position of its text */
    flt_term term;       /* atom: typed */
    int32_t column2;     /* atom comparing two columns: the right one (term.op only) */
    bool two;
} node;

static node *new_node(parser *p, nkind k, int32_t n)
{
    node *x = flt_arena_alloc(p->arena, sizeof *x);
    if (x && n) x->kids = flt_arena_alloc(p->arena, (size_t)n * sizeof *x->kids);
    if (!x || (n && !x->kids)) return NULL;
    x->kind = k, x->n = n;
    return x;
}

static flt_op complement(flt_op op)
{
    switch (op) {
    case FLT_OP_EQ: return FLT_OP_NE;
    case FLT_OP_NE: return FLT_OP_EQ;
    case FLT_OP_LT: return FLT_OP_GE;
    case FLT_OP_LE: return FLT_OP_GT;
    case FLT_OP_GT: return FLT_OP_LE;
    case FLT_OP_GE: return FLT_OP_LT;
    case FLT_OP_IN: return FLT_OP_NOT_IN;
    case FLT_OP_NOT_IN: return FLT_OP_IN;
    case FLT_OP_IS_NULL: return FLT_OP_IS_NOT_NULL;
    case FLT_OP_IS_NOT_NULL: return FLT_OP_IS_NULL;
    case FLT_OP_LIKE: return FLT_OP_NOT_LIKE;
    default: assert(op == FLT_OP_NOT_LIKE); return FLT_OP_LIKE;
    }
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

/* `5 < x` is `x > 5`. */
static flt_op mirrored(flt_op op)
{
    switch (op) {
    case FLT_OP_LT: return FLT_OP_GT;
    case FLT_OP_LE: return FLT_OP_GE;
    case FLT_OP_GT: return FLT_OP_LT;
    case FLT_OP_GE: return FLT_OP_LE;
    default: return op;
    }
}

/* An atom `col op raw[0..nraw)`, typed now (the column's domain decides the literals). */
static int atom(parser *p, int32_t col, int32_t pos, flt_op op, bool icase,
                const flt_raw_lit *raw, int32_t nraw, node **out)
{
    const pq_column_desc *d = &p->cols[col];
    flt_domain dom = FLT_DOM_BYTES; /* IS [NOT] NULL works on every column */
    if (nraw > 0) {
        pq_err de;
        if (flt_domain_of(d, &dom, &de)) return pq_errf(p->e, RINGSCAN_EPARSE, pos, "%s", de.msg);
    }
    node *x = new_node(p, N_ATOM, 0);
    if (!x) return -ENOMEM;
    x->column = col, x->pos = pos;
    *out = x;
    return flt_type_term(p->arena, d, dom, op, icase, raw, nraw, &x->term, p->e);
}

/* Two atoms joined by AND or OR (k). */
static int pair(parser *p, nkind k, node *a, node *b, node **out)
{
    node *x = new_node(p, k, 2);
    if (!x) return -ENOMEM;
    x->kids[0] = a, x->kids[1] = b;
    *out = x;
    return 0;
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
    if (p->t.type == T_STRING || p->t.type == T_NUMBER) return true;
    if (kw(p, "TRUE") || kw(p, "FALSE") || kw(p, "NULL")) return true;
    if (!kw(p, "DATE") && !kw(p, "TIMESTAMP")) return false;
    parser q = *p; /* DATE 'x' is a literal; a column named date is not */
    next(&q);
    return q.t.type == T_STRING;
}

/* A column's type as an error names it: the logical type when it has one. */
static const char *type_name(const pq_column_desc *d)
{
    return d->logical == PQ_LOGICAL_NONE ? flt_physical_name(d->physical)
                                         : pq_logical_name(d->logical);
}

/* An integer without a meaning beyond its width (INT8..UINT32, or none). */
static bool plain_int(pq_logical l)
{
    return l == PQ_LOGICAL_NONE || (l >= PQ_LOGICAL_INT8 && l <= PQ_LOGICAL_UINT32);
}

/* How two columns compare: the same class of values (integers of any width and sign but
 * UINT64 with UINT64 only, decimals of one scale, dates, timestamps or times of one unit,
 * floats, strings, booleans); 0 or an error naming both columns' types. */
static int comparable(parser *p, int32_t a, int32_t b, int32_t pos)
{
    const pq_column_desc *x = &p->cols[a], *y = &p->cols[b];
    flt_domain dx = FLT_DOM_INT96, dy = FLT_DOM_INT96; /* no domain: refused below */
    bool ok = flt_domain_of(x, &dx, NULL) == 0 && flt_domain_of(y, &dy, NULL) == 0;
    bool intx = dx == FLT_DOM_I32 || dx == FLT_DOM_U32 || dx == FLT_DOM_I64;
    bool inty = dy == FLT_DOM_I32 || dy == FLT_DOM_U32 || dy == FLT_DOM_I64;
    bool fx = dx == FLT_DOM_F32 || dx == FLT_DOM_F64, fy = dy == FLT_DOM_F32 || dy == FLT_DOM_F64;
    ok = ok && (dx == dy || (intx && inty) || (fx && fy)) && dx != FLT_DOM_INT96;
    bool plain = intx && inty && plain_int(x->logical) && plain_int(y->logical);
    ok = ok && (x->logical == y->logical || plain);
    if (ok && x->logical == PQ_LOGICAL_DECIMAL) ok = x->decimal_scale == y->decimal_scale;
    if (!ok)
        return pq_errf(p->e, RINGSCAN_EPARSE, pos,
                       "cannot compare %s column '%s' with %s column '%s' (not supported yet) at "
                       "character %d", type_name(x), x->name, type_name(y), y->name, pos);
    return 0;
}

/* col op col2: an atom of two columns (term.op only). */
static int atom_two(parser *p, int32_t col, int32_t col2, int32_t pos, flt_op op, node **out)
{
    int rc = comparable(p, col, col2, pos);
    if (rc) return rc;
    node *x = new_node(p, N_ATOM, 0);
    if (!x) return -ENOMEM;
    x->column = col, x->column2 = col2, x->two = true, x->pos = pos;
    x->term.op = op;
    *out = x;
    return 0;
}

/* col op lit, with the column already read. */
static int atom_cmp(parser *p, int32_t col, int32_t pos, bool neg, node **out)
{
    flt_op op = cmp_op(p->t.type);
    next(p);
    parser q = *p; /* a name of a column here is a comparison of two columns */
    pq_err qe;
    q.e = &qe;
    int32_t other;
    if (!at_literal(p) && parse_column(&q, &other) == 0) {
        pq_err *e = p->e;
        *p = q, p->e = e;
        return atom_two(p, col, other, pos, neg ? complement(op) : op, out);
    }
    flt_raw_lit r;
    int rc = parse_literal(p, &r);
    if (rc) return rc;
    return atom(p, col, pos, neg ? complement(op) : op, false, &r, 1, out);
}

/* [NOT] BETWEEN lo AND hi: NOT is lo > x OR x > hi. */
static int atom_between(parser *p, int32_t col, int32_t pos, bool neg, node **out)
{
    flt_raw_lit r[2];
    int rc = parse_literal(p, &r[0]);
    if (!rc && !kw(p, "AND")) return expected(p, "AND");
    if (!rc) next(p), rc = parse_literal(p, &r[1]);
    if (rc) return rc;
    if (!neg) return atom(p, col, pos, FLT_OP_BETWEEN, false, r, 2, out);
    node *a, *b;
    if ((rc = atom(p, col, pos, FLT_OP_LT, false, &r[0], 1, &a)) ||
        (rc = atom(p, col, pos, FLT_OP_GT, false, &r[1], 1, &b)))
        return rc;
    return pair(p, N_OR, a, b, out);
}

/* [NOT] LIKE / ILIKE 'pattern' [ESCAPE 'c']. */
static int atom_like(parser *p, int32_t col, int32_t pos, bool neg, bool icase, node **out)
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
    return atom(p, col, pos, neg ? FLT_OP_NOT_LIKE : FLT_OP_LIKE, icase, r, nraw, out);
}

/* IS [NOT] NULL | IS [NOT] DISTINCT FROM lit (null is a value there: x IS DISTINCT FROM v
 * is x != v OR x IS NULL). */
static int atom_is(parser *p, int32_t col, int32_t pos, bool neg, node **out)
{
    neg = take_not(p, neg);
    if (kw(p, "NULL")) {
        next(p);
        return atom(p, col, pos, neg ? FLT_OP_IS_NOT_NULL : FLT_OP_IS_NULL, false, NULL, 0, out);
    }
    if (!kw(p, "DISTINCT")) return expected(p, "NULL or DISTINCT FROM");
    next(p);
    if (!kw(p, "FROM")) return expected(p, "FROM");
    next(p);
    flt_raw_lit r;
    int rc = parse_literal(p, &r);
    if (rc) return rc;
    if (neg) return atom(p, col, pos, FLT_OP_EQ, false, &r, 1, out); /* NOT DISTINCT */
    node *a, *b;
    if ((rc = atom(p, col, pos, FLT_OP_NE, false, &r, 1, &a)) ||
        (rc = atom(p, col, pos, FLT_OP_IS_NULL, false, NULL, 0, &b)))
        return rc;
    return pair(p, N_OR, a, b, out);
}

/* starts_with(col, 'text'): LIKE 'text%' with the text's wildcards escaped. */
static int atom_starts_with(parser *p, bool neg, node **out)
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
    flt_raw_lit r[2];
    if ((rc = parse_literal(p, &r[0]))) return rc;
    if (p->t.type != T_RPAREN) return expected(p, "')'");
    next(p);
    char *pat = flt_arena_alloc(p->arena, (size_t)r[0].len * 2 + 2);
    if (!pat) return -ENOMEM;
    int32_t n = 0;
    for (int32_t i = 0; i < r[0].len; i++) {
        char c = r[0].text[i];
        if (c == '%' || c == '_' || c == '\\') pat[n++] = '\\';
        pat[n++] = c;
    }
    pat[n++] = '%';
    r[0].text = pat, r[0].len = n;
    r[1] = (flt_raw_lit){.kind = FLT_LIT_STRING, .text = "\\", .len = 1, .pos = pos};
    return atom(p, col, pos, neg ? FLT_OP_NOT_LIKE : FLT_OP_LIKE, false, r, 2, out);
}

/* lit op col (the literal on the left): the mirrored comparison. */
static int atom_lit_first(parser *p, bool neg, node **out)
{
    int32_t pos = p->t.pos, col;
    flt_raw_lit r;
    int rc = parse_literal(p, &r);
    if (rc) return rc;
    if (!(p->t.type >= T_EQ && p->t.type <= T_GE)) return expected(p, "comparison operator");
    flt_op op = mirrored(cmp_op(p->t.type));
    next(p);
    if ((rc = parse_column(p, &col))) return rc;
    return atom(p, col, pos, neg ? complement(op) : op, false, &r, 1, out);
}

/* atom := col (cmp lit | [NOT] BETWEEN | [NOT] IN | IS ... | [NOT] [I]LIKE) | lit cmp col |
 *         starts_with(col, 'text'); neg: it is negated. */
static int parse_atom(parser *p, bool neg, node **out)
{
    if (at_literal(p)) return atom_lit_first(p, neg, out);
    if (kw(p, "starts_with")) return atom_starts_with(p, neg, out);
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
        return atom(p, col, pos, neg ? FLT_OP_NOT_IN : FLT_OP_IN, false, raw, nraw, out);
    }
    return expected(p, "comparison operator");
}

static int parse_or(parser *p, bool neg, int depth, node **out);

/* not := NOT not | '(' or ')' | atom */
static int parse_not(parser *p, bool neg, int depth, node **out)
{
    if (depth > FLT_MAX_DEPTH)
        return pq_errf(p->e, RINGSCAN_ELIMIT, p->t.pos,
                       "filter nested deeper than %d at character %d", FLT_MAX_DEPTH, p->t.pos);
    if (kw(p, "NOT")) return next(p), parse_not(p, !neg, depth + 1, out);
    if (p->t.type != T_LPAREN) return parse_atom(p, neg, out);
    next(p);
    int rc = parse_or(p, neg, depth + 1, out);
    if (rc) return rc;
    if (p->t.type != T_RPAREN) return expected(p, "AND, OR or ')'");
    next(p);
    return 0;
}

/* A run of `sub` joined by the keyword sep; negated, AND and OR swap (De Morgan). */
static int parse_list(parser *p, bool neg, int depth, const char *sep, node **out,
                      int (*sub)(parser *, bool, int, node **))
{
    node *k;
    int rc = sub(p, neg, depth, &k);
    if (rc || !kw(p, sep)) return *out = k, rc;
    bool is_and = sep[0] == 'A';
    node *x = new_node(p, is_and != neg ? N_AND : N_OR, 0);
    if (!x) return -ENOMEM;
    for (int32_t cap = 0;;) {
        if (x->n == cap) {
            if (cap == FLT_MAX_TERMS)
                return pq_errf(p->e, RINGSCAN_ELIMIT, p->t.pos, "more than %d %s operands "
                               "at character %d", FLT_MAX_TERMS, sep, p->t.pos);
            node **g = flt_arena_alloc(p->arena, (size_t)(cap ? cap * 2 : 4) * sizeof *g);
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

static int parse_and(parser *p, bool neg, int depth, node **out)
{
    return parse_list(p, neg, depth, "AND", out, parse_not);
}

static int parse_or(parser *p, bool neg, int depth, node **out)
{
    return parse_list(p, neg, depth, "OR", out, parse_and);
}

/* ---- conjunctive normal form: an AND of clauses, each an OR of atoms ---------------------- */

typedef struct clause {
    int32_t n;
    node **atoms;
} clause;

typedef struct cnf {
    int32_t n;
    clause *c;
} cnf;

static int too_complex(parser *p)
{
    return pq_errf(p->e, RINGSCAN_ELIMIT, -1,
                   "filter too large in conjunctive normal form (more than %d conjuncts or "
                   "%d terms in one)", FLT_MAX_PREDS, FLT_MAX_TERMS);
}

/* An OR of the n normal forms f[]: one clause per choice of a clause from each (their
 * product), built in one pass so a long OR costs its length, not its square. */
static int cross(parser *p, const cnf *f, int32_t n, cnf *out)
{
    int64_t count = 1;
    for (int32_t k = 0; k < n; k++)
        if ((count *= f[k].n) > FLT_MAX_PREDS) return too_complex(p);
    out->n = (int32_t)count;
    out->c = flt_arena_alloc(p->arena, (size_t)(count ? count : 1) * sizeof *out->c);
    int32_t *pick = flt_arena_alloc(p->arena, (size_t)n * sizeof *pick); /* zeroed */
    if (!out->c || !pick) return -ENOMEM;
    for (int32_t i = 0; i < out->n; i++) {
        clause *c = &out->c[i];
        int64_t atoms = 0;
        for (int32_t k = 0; k < n; k++) atoms += f[k].c[pick[k]].n;
        if (atoms > FLT_MAX_TERMS) return too_complex(p);
        c->atoms = flt_arena_alloc(p->arena, (size_t)atoms * sizeof *c->atoms);
        if (!c->atoms) return -ENOMEM;
        for (int32_t k = 0; k < n; k++) {
            const clause *ck = &f[k].c[pick[k]];
            memcpy(c->atoms + c->n, ck->atoms, (size_t)ck->n * sizeof *c->atoms);
            c->n += ck->n;
        }
        for (int32_t k = n - 1; k >= 0 && ++pick[k] == f[k].n; k--) pick[k] = 0; /* next */
    }
    return 0;
}

static int to_cnf(parser *p, const node *x, cnf *out)
{
    if (x->kind == N_ATOM) {
        out->n = 1;
        out->c = flt_arena_alloc(p->arena, sizeof *out->c);
        if (!out->c) return -ENOMEM;
        out->c->n = 1;
        out->c->atoms = flt_arena_alloc(p->arena, sizeof *out->c->atoms);
        if (!out->c->atoms) return -ENOMEM;
        out->c->atoms[0] = (node *)x;
        return 0;
    }
    cnf *f = flt_arena_alloc(p->arena, (size_t)x->n * sizeof *f);
    if (!f) return -ENOMEM;
    int64_t total = 0;
    for (int32_t k = 0; k < x->n; k++) {
        int rc = to_cnf(p, x->kids[k], &f[k]);
        if (rc) return rc;
        total += f[k].n;
    }
    if (x->kind == N_OR) return cross(p, f, x->n, out);
    if (total > FLT_MAX_PREDS) return too_complex(p);
    out->n = 0; /* AND: every child's clauses */
    out->c = flt_arena_alloc(p->arena, (size_t)total * sizeof *out->c);
    if (!out->c) return -ENOMEM;
    for (int32_t k = 0; k < x->n; k++)
        for (int32_t j = 0; j < f[k].n; j++) out->c[out->n++] = f[k].c[j];
    return 0;
}

/* pr = the terms of the clause's atoms on column col (one predicate of one column). */
static int column_pred(parser *p, const clause *c, int32_t col, flt_pred *pr)
{
    int32_t n = 0;
    for (int32_t k = 0; k < c->n; k++) n += !c->atoms[k]->two && c->atoms[k]->column == col;
    pr->column = col;
    pr->desc = &p->cols[col];
    pr->terms = flt_arena_alloc(p->arena, (size_t)n * sizeof *pr->terms);
    if (!pr->terms) return -ENOMEM;
    for (int32_t k = 0; k < c->n; k++)
        if (!c->atoms[k]->two && c->atoms[k]->column == col) pr->terms[pr->nterms++] = c->atoms[k]->term;
    /* a column without a comparison domain (FLOAT16, INTERVAL) reached here only through
     * IS [NOT] NULL terms, which never look at values: BYTES is a safe placeholder */
    if (flt_domain_of(pr->desc, &pr->dom, NULL) != 0) pr->dom = FLT_DOM_BYTES;
    return 0;
}

/* The index of col in cols[0..*n), appended when new. */
static int32_t col_index(int32_t *cols, int32_t *n, int32_t col)
{
    for (int32_t i = 0; i < *n; i++)
        if (cols[i] == col) return i;
    cols[*n] = col;
    return (*n)++;
}

/* A clause over several columns (or comparing two): one item per column's atoms, one per
 * comparison (expr.h invariant 8). */
static int multi_pred(parser *p, const clause *c, flt_pred *pr)
{
    flt_multi *m = flt_arena_alloc(p->arena, sizeof *m);
    int32_t *cols = flt_arena_alloc(p->arena, (size_t)c->n * 2 * sizeof *cols);
    flt_item *items = flt_arena_alloc(p->arena, (size_t)c->n * sizeof *items);
    flt_domain *doms = flt_arena_alloc(p->arena, (size_t)c->n * 2 * sizeof *doms);
    if (!m || !cols || !items || !doms) return -ENOMEM;
    for (int32_t k = 0; k < c->n; k++) {
        const node *x = c->atoms[k];
        int32_t ia = col_index(cols, &m->ncols, x->column);
        if (x->two) {
            int32_t ib = col_index(cols, &m->ncols, x->column2);
            items[m->nitems++] = (flt_item){.is_cmp = true, .cmp = {x->term.op, ia, ib}};
            continue;
        }
        bool seen = false; /* one item per column: its atoms' terms OR-ed */
        for (int32_t i = 0; i < m->nitems; i++) seen = seen || (!items[i].is_cmp && items[i].col == ia);
        if (seen) continue;
        flt_item *it = &items[m->nitems++];
        it->col = ia;
        int rc = column_pred(p, c, x->column, &it->pred);
        if (rc) return rc;
    }
    if (m->ncols > FLT_MAX_MULTI_COLS)
        return pq_errf(p->e, RINGSCAN_ELIMIT, c->atoms[0]->pos, "an OR over more than %d columns "
                       "at character %d", FLT_MAX_MULTI_COLS, c->atoms[0]->pos);
    for (int32_t i = 0; i < m->ncols; i++)
        if (flt_domain_of(&p->cols[cols[i]], &doms[i], NULL) != 0) doms[i] = FLT_DOM_BYTES;
    size_t len = 1;
    for (int32_t i = 0; i < m->ncols; i++) len += strlen(p->cols[cols[i]].name) + 1;
    char *label = flt_arena_alloc(p->arena, len);
    if (!label) return -ENOMEM;
    for (int32_t i = 0; i < m->ncols; i++) {
        if (i) strcat(label, "|");
        strcat(label, p->cols[cols[i]].name);
    }
    m->cols = cols, m->doms = doms, m->items = items, m->label = label, m->schema = p->cols;
    pr->column = cols[0];
    pr->desc = &p->cols[cols[0]];
    pr->dom = doms[0];
    pr->multi = m;
    return 0;
}

/* One clause as a predicate: on one column, or over several (multi_pred). */
static int clause_pred(parser *p, const clause *c, flt_pred *pr)
{
    bool one = true;
    for (int32_t k = 0; k < c->n; k++)
        one = one && !c->atoms[k]->two && c->atoms[k]->column == c->atoms[0]->column;
    return one ? column_pred(p, c, c->atoms[0]->column, pr) : multi_pred(p, c, pr);
}

static int parse_all(parser *p, flt_expr *ex)
{
    next(p);
    if (p->t.type == T_END) return expected(p, "column name");
    node *root;
    int rc = parse_or(p, false, 0, &root);
    if (rc) return rc;
    if (p->t.type != T_END) return expected(p, "AND, OR or end of input");
    cnf f;
    if ((rc = to_cnf(p, root, &f))) return rc;
    ex->preds = flt_arena_alloc(p->arena, (size_t)f.n * sizeof *ex->preds);
    if (!ex->preds) return -ENOMEM;
    for (int32_t k = 0; k < f.n; k++) {
        if ((rc = clause_pred(p, &f.c[k], &ex->preds[k]))) return rc;
        ex->npreds = k + 1;
    }
    return 0;
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
    parser p = {.text = text, .arena = &ex->arena, .cols = cols, .ncols = ncols, .e = e};
    int rc = parse_all(&p, ex);
    if (rc) {
        if (rc == -ENOMEM) pq_errf(e, -ENOMEM, -1, "out of memory parsing the filter");
        flt_expr_free(ex);
        return rc;
    }
    *out = ex;
    return 0;
}
