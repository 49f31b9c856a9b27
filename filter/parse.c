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

/* LIKE 'pattern': a prefix followed by one trailing '%', or no wildcard at all (equality). */
static int parse_like(parser *p, flt_op *op, flt_raw_lit *r)
{
    if (p->t.type != T_STRING) return expected(p, "quoted pattern after LIKE");
    int32_t pos = p->t.pos;
    int rc = parse_literal(p, r);
    if (rc) return rc;
    char *s = (char *)r->text;
    for (int32_t i = 0; i < r->len; i++) {
        bool last = i == r->len - 1;
        if (s[i] == '_' || (s[i] == '%' && !last))
            return pq_errf(p->e, RINGSCAN_EPARSE, pos,
                           "only prefix LIKE 'abc%%' is supported at character %d", pos);
    }
    *op = FLT_OP_EQ;
    if (r->len > 0 && s[r->len - 1] == '%') {
        s[--r->len] = 0;
        *op = r->len == 0 ? FLT_OP_IS_NOT_NULL : FLT_OP_PREFIX;
    }
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

/* pred := col (op lit | BETWEEN lit AND lit | IN (...) | IS [NOT] NULL | LIKE 'p%') */
static int parse_term(parser *p, int32_t *col, flt_domain *dom, flt_term *t)
{
    int rc = parse_column(p, col);
    if (rc) return rc;
    const pq_column_desc *d = &p->cols[*col];
    flt_raw_lit one[2], *raw = one;
    int32_t nraw = 0, pos = p->t.pos;
    flt_op op;
    if (p->t.type >= T_EQ && p->t.type <= T_GE) {
        op = cmp_op(p->t.type);
        next(p);
        rc = parse_literal(p, &one[0]), nraw = 1;
    } else if (kw(p, "BETWEEN")) {
        op = FLT_OP_BETWEEN;
        next(p);
        rc = parse_literal(p, &one[0]);
        if (!rc && !kw(p, "AND")) return expected(p, "AND");
        if (!rc) next(p), rc = parse_literal(p, &one[1]), nraw = 2;
    } else if (kw(p, "IN")) {
        op = FLT_OP_IN;
        next(p);
        rc = parse_in_list(p, &raw, &nraw);
    } else if (kw(p, "IS")) {
        next(p);
        op = FLT_OP_IS_NULL;
        if (kw(p, "NOT")) op = FLT_OP_IS_NOT_NULL, next(p);
        if (!kw(p, "NULL")) return expected(p, "NULL");
        next(p);
    } else if (kw(p, "LIKE")) {
        next(p);
        rc = parse_like(p, &op, &one[0]), nraw = op == FLT_OP_IS_NOT_NULL ? 0 : 1;
    } else if (kw(p, "NOT")) {
        return pq_errf(p->e, RINGSCAN_EPARSE, pos, "NOT is not supported at character %d",
                       pos);
    } else {
        return expected(p, "comparison operator");
    }
    if (rc) return rc;
    *dom = FLT_DOM_BYTES; /* IS [NOT] NULL works on every column */
    if (nraw > 0) {
        pq_err de;
        if (flt_domain_of(d, dom, &de))
            return pq_errf(p->e, RINGSCAN_EPARSE, pos, "%s", de.msg);
    }
    return flt_type_term(p->arena, d, *dom, op, raw, nraw, t, p->e);
}

/* conj := pred | '(' pred (OR pred)* ')'; fills one predicate. */
static int parse_conj(parser *p, flt_pred *pr)
{
    bool paren = p->t.type == T_LPAREN;
    int32_t cap = 1, n = 0;
    flt_term *terms = flt_arena_alloc(p->arena, sizeof *terms);
    if (!terms) return -ENOMEM;
    if (paren) next(p);
    for (;;) {
        if (n == FLT_MAX_TERMS)
            return pq_errf(p->e, RINGSCAN_ELIMIT, p->t.pos,
                           "more than %d OR terms at character %d", FLT_MAX_TERMS, p->t.pos);
        if (n == cap) {
            flt_term *g = flt_arena_alloc(p->arena, (size_t)cap * 2 * sizeof *g);
            if (!g) return -ENOMEM;
            memcpy(g, terms, (size_t)cap * sizeof *g);
            terms = g, cap *= 2;
        }
        int32_t col, pos = p->t.pos;
        flt_domain dom;
        int rc = parse_term(p, &col, &dom, &terms[n]);
        if (rc) return rc;
        if (n > 0 && col != pr->column)
            return pq_errf(p->e, RINGSCAN_EPARSE, pos,
                           "OR across different columns '%s' and '%s' is not supported at "
                           "character %d", p->cols[pr->column].name, p->cols[col].name, pos);
        (void)dom;
        pr->column = col;
        n++;
        if (!paren) break;
        if (kw(p, "OR")) { next(p); continue; }
        if (p->t.type != T_RPAREN) return expected(p, "OR or ')'");
        next(p);
        break;
    }
    pr->desc = &p->cols[pr->column];
    pr->terms = terms, pr->nterms = n;
    /* a column without a comparison domain (FLOAT16, INTERVAL) reached here only through
     * IS [NOT] NULL terms, which never look at values: BYTES is a safe placeholder */
    if (flt_domain_of(pr->desc, &pr->dom, NULL) != 0) pr->dom = FLT_DOM_BYTES;
    return 0;
}

static int parse_all(parser *p, flt_expr *ex)
{
    flt_pred *preds = flt_arena_alloc(p->arena, FLT_MAX_PREDS * sizeof *preds);
    if (!preds) return -ENOMEM;
    next(p);
    if (p->t.type == T_END) return expected(p, "column name");
    for (int32_t n = 0;;) {
        if (n == FLT_MAX_PREDS)
            return pq_errf(p->e, RINGSCAN_ELIMIT, p->t.pos,
                           "more than %d conjuncts at character %d", FLT_MAX_PREDS, p->t.pos);
        int rc = parse_conj(p, &preds[n++]);
        if (rc) return rc;
        ex->npreds = n;
        if (p->t.type == T_END) break;
        if (kw(p, "OR"))
            return pq_errf(p->e, RINGSCAN_EPARSE, p->t.pos,
                           "OR must be inside parentheses and on one column at character %d",
                           p->t.pos);
        if (!kw(p, "AND")) return expected(p, "AND or end of input");
        next(p);
    }
    ex->preds = preds;
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
