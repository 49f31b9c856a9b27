/* filter/parse.h: the filter parser's tokenizer and shared steps, internal to parse.c (tokens,
 * literals, columns, the boolean grammar and the atoms of one column) and parse_value.c (value
 * expressions: arithmetic and CAST, and the date function calls). Contracts as in parse.c's
 * invariants: positions are 1-based, every error names the token that was not acceptable,
 * and everything is allocated in the expression's arena. */
#ifndef RINGSCAN_FILTER_PARSE_H
#define RINGSCAN_FILTER_PARSE_H
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

/* The next token into p->t. */
void flt_p_next(parser *p);
/* Whether the current token is the keyword k (any case). */
bool flt_p_kw(const parser *p, const char *k);
/* RINGSCAN_EPARSE "expected <what> at character N" (or an unterminated quote's message). */
int flt_p_expected(parser *p, const char *what);
/* A column name (bare or "quoted") into *col, or "unknown column". */
int flt_p_column(parser *p, int32_t *col);
/* A literal (number with its sign, 'string', DATE '...', TIMESTAMP '...', TRUE, FALSE, NULL). */
int flt_p_literal(parser *p, flt_raw_lit *r);
/* '(' lit (',' lit)* ')' into an arena array of *n (at most FLT_MAX_TERMS). */
int flt_p_in_list(parser *p, flt_raw_lit **out, int32_t *n);
/* The comparison operator of a token T_EQ..T_GE. */
flt_op flt_p_cmp_op(tok_type t);
/* neg flipped when the current token is NOT (which it takes). */
bool flt_p_take_not(parser *p, bool neg);
/* Whether a literal starts here (so it is no column name). */
bool flt_p_at_literal(parser *p);
/* Whether a sign then a number start here (a signed literal). */
bool flt_p_at_signed_number(const parser *p);
/* Whether the function name fn then '(' start here. */
bool flt_p_at_call(parser *p, const char *fn);

/* parse_value.c: whether a value expression starts here rather than a bare column or literal. */
bool flt_p_value_ahead(parser *p);
/* A value expression (the sum of the grammar) into *out. */
int flt_p_sum(parser *p, int depth, flt_vnode **out);
/* An atom whose first operand is a value expression (comparison, [NOT] BETWEEN, [NOT] IN). */
int flt_p_atom_values(parser *p, bool neg, flt_node **out);
/* An atom on a date function call: year, date_trunc, month, day, quarter, extract. */
int flt_p_atom_call(parser *p, bool neg, flt_node **out);

#endif
