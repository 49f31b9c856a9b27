/* filter/expr.h: filter expressions: a conjunction (AND) of per-column predicates, each an OR
 * of terms on that one column, with literals already typed from the column's descriptor.
 *
 * Owns: the AST types, the arena that holds one expression (expr.c), the text parser
 * (parse.c), the typing of literals (lit.c: integer ranges, exact decimal/timestamp rounding,
 * dates, UUID text), and the dynamic (Top-K) bound cell (expr.c).
 *
 * Invariants:
 *  1. Everything an flt_expr points to (predicates, terms, literal bytes, column names) lives
 *     in its arena; flt_expr_free releases all of it in one go. The column descriptors passed
 *     to flt_parse are borrowed and must outlive the expression (pred->desc points at them).
 *  2. A predicate reads one column; its terms are OR-ed. The expression is the AND of its
 *     predicates. A predicate with zero terms never exists.
 *  3. Literals are exact in the column's domain: a comparison that the literal's true value
 *     cannot reach in the domain was rewritten at parse time (x < 0.055 on decimal scale 2 ->
 *     x <= 5 unscaled; x = 0.055 -> FLT_OP_FALSE; x != 0.055 -> FLT_OP_IS_NOT_NULL), so the
 *     kernels compare integers with integers and never round.
 *  4. Literal field by domain: BOOL/I32/U32/I64/U64 use lit.i (U64 as its bit pattern, U32
 *     zero-extended); F32/F64 use lit.f (a double; FLOAT values are widened to double to
 *     compare, which is exact); BYTES/SDEC/INT96 use lit.b/lit.len. SDEC literals are 16-byte
 *     big-endian two's complement; comparisons sign-extend the shorter operand.
 *  5. Term shapes: EQ..GE and PREFIX have 1 literal; BETWEEN 2 (lo <= x <= hi, inclusive);
 *     IN and NOT_IN >= 1, sorted without repeats, never NaN (a float list that held NaN sets
 *     nan: NaN rows are in it; a comparison with NaN was rewritten, lit.c nan_cmp); LIKE and
 *     NOT_LIKE 3 (invariant 7); IS_NULL, IS_NOT_NULL, FALSE none. Only IS_NULL matches a null row (NOT IN and NOT LIKE never match one: SQL's
 *     unknown).
 *  6. A dynamic predicate (flt_expr_add_dynamic) keeps the rows that can still make a Top-K
 *     cut: its first term is GE (descending) or LE (ascending) against the literal read from
 *     its flt_dyn at evaluation / pruning time (ties kept: a tie may win on file order), a
 *     second term IS NULL when nulls sort first; descending on floats it also keeps NaN (NaN
 *     sorts above every number) and then prunes only units proven free of NaN. While the
 *     bound is unset it keeps every row (including nulls) and prunes nothing.
 *  7. LIKE terms (BYTES domain): lits[0] is the pattern's fixed head (the bytes before its
 *     first wildcard, escapes resolved; pruning bounds it like PREFIX when case matters),
 *     lits[1] the pattern's characters and lits[2], as long, each one's kind: FLT_LIKE_CHAR,
 *     FLT_LIKE_ONE (`_`: one UTF-8 character) or FLT_LIKE_ANY (`%`: any run of bytes). ILIKE
 *     (icase) compares characters in lowercase (ICU's simple case mapping outside ASCII, as
 *     DuckDB lowers both sides; like.c).
 *  8. A multi-column predicate (multi != NULL, nterms == 0) is an OR of items over its
 *     columns: single-column predicates (terms as above, never dynamic) and comparisons of
 *     two columns (SQL: a null on either side is unknown, so the row fails; NaN ordered as
 *     in kernel.h invariant 2). It comes from a clause that names several columns, or any
 *     comparison of two columns. It is evaluated with flt_eval_multi and pruned with
 *     flt_prune_group; the single-column entry points must not be given one.
 *  9. An implied predicate (implied > 0, flt_expr_add_implied) is redundant: every row the
 *     conjunct it names keeps, it keeps. It only lets a cheap one-column test run first. */
#ifndef RINGSCAN_FILTER_EXPR_H
#define RINGSCAN_FILTER_EXPR_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/meta.h"
#include "format/vec.h"

enum {
    FLT_MAX_PREDS = 256,     /* conjuncts per expression */
    FLT_MAX_TERMS = 4096,    /* OR terms + IN list entries per predicate */
    FLT_MAX_TEXT = 1 << 20,  /* filter text bytes */
    FLT_MAX_DEPTH = 32,      /* parenthesis nesting */
    FLT_MAX_MULTI_COLS = 16, /* columns one multi-column predicate reads */
};

typedef enum flt_op {
    FLT_OP_EQ,
    FLT_OP_NE,
    FLT_OP_LT,
    FLT_OP_LE,
    FLT_OP_GT,
    FLT_OP_GE,
    FLT_OP_BETWEEN,
    FLT_OP_IN,
    FLT_OP_IS_NULL,
    FLT_OP_IS_NOT_NULL,
    FLT_OP_PREFIX, /* LIKE 'abc%' */
    FLT_OP_FALSE,  /* matches nothing (a literal the domain cannot equal) */
    FLT_OP_NOT_IN, /* matches every non-null value not in the list */
    FLT_OP_LIKE,   /* SQL LIKE / ILIKE pattern (invariant 7) */
    FLT_OP_NOT_LIKE,
} flt_op;

/* The kinds of a LIKE pattern's characters (invariant 7). */
enum { FLT_LIKE_CHAR, FLT_LIKE_ONE, FLT_LIKE_ANY };

/* How a column's values compare; chosen from physical + logical type (flt_domain_of). */
typedef enum flt_domain {
    FLT_DOM_BOOL,
    FLT_DOM_I32,
    FLT_DOM_U32,
    FLT_DOM_I64,
    FLT_DOM_U64,
    FLT_DOM_F32,
    FLT_DOM_F64,
    FLT_DOM_BYTES, /* BYTE_ARRAY / FLBA: unsigned lexicographic, shorter prefix first */
    FLT_DOM_SDEC,  /* decimal on BYTE_ARRAY / FLBA: signed big-endian integers */
    FLT_DOM_INT96, /* 12 raw bytes: = and != only */
} flt_domain;

typedef struct flt_lit {
    int64_t i;
    double f;
    const uint8_t *b;
    int32_t len;
} flt_lit;

typedef struct flt_term {
    flt_op op;
    int32_t nlits;
    flt_lit *lits;
    bool icase;    /* LIKE / NOT LIKE: ILIKE (invariant 7) */
    bool nan;      /* IN / NOT_IN on F32/F64: the list holds NaN, kept out of lits (invariant 5) */
} flt_term;

/* A Top-K bound cell shared by the scan's cores: the literal of a dynamic predicate.
 * Zero-initialised (static, calloc or {0}: glibc's mutex initialiser is all zeroes). */
typedef struct flt_dyn {
    pthread_mutex_t first;    /* serialises the first publication only */
    _Atomic uint32_t state;   /* 0 unset, 2 set (written under first) */
    _Atomic uint64_t version; /* bumped after every published change */
    _Atomic uint64_t bits;    /* int64 value or double bits, per the predicate's domain */
} flt_dyn;

struct flt_multi;

typedef struct flt_pred {
    int32_t column;             /* index into the schema given to the parser (multi: its
                                   first column) */
    const pq_column_desc *desc; /* borrowed (invariant 1) */
    flt_domain dom;
    int32_t nterms;             /* 0 for a multi-column predicate */
    flt_term *terms;
    flt_dyn *dyn;               /* non-NULL: dynamic predicate (invariant 6) */
    bool keep_nan;              /* dynamic, descending, float: NaN rows pass (invariant 6) */
    const struct flt_multi *multi; /* non-NULL: a predicate over several columns (invariant 8) */
    int32_t implied;            /* 0, or 1 + the conjunct this one is implied by (invariant 9) */
} flt_pred;

/* Parts of a date a comparison may take (flt_cmp.part). */
enum { FLT_PART_NONE, FLT_PART_MONTH, FLT_PART_DAY, FLT_PART_QUARTER };
/* "month", "day", "quarter" ("" for FLT_PART_NONE or another value). */
const char *flt_part_name(int32_t part);

/* Column op column, both of one comparison class (flt_parse checks it); or, with part set,
 * that part of column a's dates (DATE or TIMESTAMP, read as UTC) op the integer v; or, with
 * vl set, value expression vl op value expression vr (vexpr.h: arithmetic and CAST; their
 * columns' slots index flt_multi.cols; a and b unused). */
typedef struct flt_cmp {
    flt_op op;                  /* EQ..GE */
    int32_t a, b;               /* indexes into flt_multi.cols (b unused with a part) */
    int32_t part;               /* FLT_PART_* */
    int64_t v;
    const struct flt_vnode *vl, *vr;
} flt_cmp;

/* One operand of a multi-column predicate's OR: a single-column predicate, or a comparison
 * of two columns. */
typedef struct flt_item {
    bool is_cmp;
    int32_t col;                /* !is_cmp: index into flt_multi.cols of pred's column */
    flt_pred pred;              /* !is_cmp */
    flt_cmp cmp;                /* is_cmp */
} flt_item;

typedef struct flt_multi {
    int32_t ncols;
    const int32_t *cols;        /* the distinct schema columns it reads, first = pred.column */
    const flt_domain *doms;     /* their domains (BYTES placeholder as for IS NULL) */
    int32_t nitems;
    const flt_item *items;      /* OR-ed */
    const char *label;          /* its columns' names joined by '|' (for --explain) */
    const pq_column_desc *schema; /* the parser's (borrowed, invariant 1): cols index it */
} flt_multi;

/* p as SQL text after normalization (print.c) into buf (cap bytes, NUL-terminated; a longer
 * text ends with "..."); returns its length. */
size_t flt_pred_print(const flt_pred *p, char *buf, size_t cap);

/* The name a predicate is shown by: its column's, or a multi-column one's label. */
static inline const char *flt_pred_label(const flt_pred *p)
{
    return p->multi ? p->multi->label : p->desc->name;
}

struct flt_arena;
typedef struct flt_expr {
    int32_t npreds;
    flt_pred *preds;
    struct flt_arena *arena;
} flt_expr;

/* Domain of a column: 0, or RINGSCAN_EUNSUPPORTED with e filled when no comparison on it is
 * supported at all (FLOAT16, INTERVAL, unknown physical types). */
int flt_domain_of(const pq_column_desc *d, flt_domain *dom, pq_err *e);

/* Parses text (NUL-terminated, < FLT_MAX_TEXT bytes) against the schema cols[0..ncols).
 * Grammar (keywords case-insensitive, identifiers bare or "quoted" with "" escape; SQL's
 * precedence: OR below AND below NOT):
 *   or := and (OR and)* ; and := not (AND not)* ; not := NOT not | '(' or ')' | atom
 *   atom := col cmp lit | lit cmp col | col cmp col | col [NOT] BETWEEN lit AND lit
 *         | col [NOT] IN (lit, ...)
 *         | value cmp value | value [NOT] BETWEEN value AND value | value [NOT] IN (value, ...)
 *         | col IS [NOT] NULL | col IS [NOT] DISTINCT FROM lit
 *         | col [NOT] LIKE|ILIKE 'pattern' [ESCAPE 'c'] | starts_with(col, 'text')
 *         | fn cmp lit | fn [NOT] BETWEEN lit AND lit | fn [NOT] IN (lit, ...)
 *   fn := year(col) | date_trunc('year'|'quarter'|'month'|'day', col)   (DATE / TIMESTAMP)
 *       | month(col) | day(col) | quarter(col)        (compared row by row: invariant 8)
 *       | extract(year|quarter|month|day FROM col)
 *   value := sum ; sum := prod (('+'|'-') prod)* ; prod := unary (('*'|'/') unary)*
 *   unary := ('-'|'+') unary | col | lit | '(' sum ')' | CAST '(' sum AS type ')'
 *         (vexpr.h: typed by DuckDB's rules; a value form is taken where a '(' opens a value,
 *          a CAST or a sign starts one, or an arithmetic operator follows a column or literal)
 *   cmp := = | == | != | <> | < | <= | > | >=
 * NOT is pushed down to the atoms and the result put in conjunctive normal form; each of its
 * clauses (an OR of atoms) becomes one predicate: on one column, or over several (invariant
 * 8; at most FLT_MAX_MULTI_COLS). `col cmp col` takes two columns of one class of values
 * (integers of any width, UINT64 only with UINT64; decimals of one scale; one date/time type
 * and unit; floats; strings; booleans) directly; numbers of other kinds, or a date with a
 * timestamp, as value expressions; others are refused ("cannot compare ..."). LIKE: `%`
 * any run, `_` one character, no escape character unless ESCAPE gives one. Literals:
 * numbers, 'strings' ('' escapes a quote), NULL (a comparison with it is unknown),
 * DATE 'YYYY-MM-DD', TIMESTAMP 'YYYY-MM-DD[ HH:MM:SS[.f...]][Z|+HH:MM]' (no offset = UTC;
 * the same wall-clock value is used for columns not adjusted to UTC), TRUE, FALSE. Date and
 * timestamp columns also accept a plain 'YYYY-MM-DD...' string; UUID columns take hex text.
 * Integer literals are range-checked against the column (INT8..UINT64, FLBA decimal width):
 * an out-of-range literal is an error, not folded.
 * Returns 0 and *out (free with flt_expr_free) or a negative status with e filled:
 * RINGSCAN_EPARSE (e->offset = 1-based character position; message ends "at character N"
 * or names the column), RINGSCAN_ELIMIT, -ENOMEM. */
int flt_parse(const char *text, const pq_column_desc *cols, int32_t ncols, flt_expr **out,
              pq_err *e);

/* Columns of one constant value in a scan: cols[first..ncols) of the parser's schema (a
 * dataset file's partition values and the columns it lacks). Each atom that reads only them
 * is decided before the normal form is built: truth(ctx, p, &keep) evaluates the predicate p
 * made of the atom alone on those values, and the atom becomes always true (keep) or never
 * (false or unknown: exact, as NOT is pushed down to the atoms first). So `part = 1 OR x > 5`
 * is TRUE or `x > 5` in each file. truth returns 0 or a status (it fills nothing: the
 * caller's e keeps its own message). */
typedef struct flt_fold {
    int32_t first;
    int (*truth)(void *ctx, const flt_pred *p, bool *keep);
    void *ctx;
} flt_fold;
/* flt_parse with the atoms over fold's columns decided first (fold NULL: flt_parse). */
int flt_parse_fold(const char *text, const pq_column_desc *cols, int32_t ncols,
                   const flt_fold *fold, flt_expr **out, pq_err *e);

/* A filter as a tree of calls (the C API's ringscan_expr): what flt_parse reads from text,
 * built by an engine instead. Literals keep a text form typed exactly as the parser's. */
typedef enum flt_top {
    FLT_T_COLUMN, FLT_T_LITERAL,
    FLT_T_AND, FLT_T_OR, FLT_T_NOT,
    FLT_T_EQ, FLT_T_NE, FLT_T_LT, FLT_T_LE, FLT_T_GT, FLT_T_GE,
    FLT_T_BETWEEN, FLT_T_IN, FLT_T_IS_NULL, FLT_T_IS_NOT_NULL,
    FLT_T_IS_DISTINCT_FROM, FLT_T_IS_NOT_DISTINCT_FROM,
    FLT_T_LIKE, FLT_T_ILIKE, FLT_T_STARTS_WITH, FLT_T_YEAR, FLT_T_DATE_TRUNC,
    FLT_T_MONTH, FLT_T_DAY, FLT_T_QUARTER,
    FLT_T_ADD, FLT_T_SUB, FLT_T_MUL, FLT_T_DIV, FLT_T_NEG, FLT_T_CAST,
} flt_top;

typedef struct flt_tnode {
    flt_top op;
    const char *name;             /* COLUMN */
    struct flt_raw_lit *lit;      /* LITERAL (pos 0) */
    int32_t nargs;                /* operators */
    struct flt_tnode *const *args;
} flt_tnode;

/* Types root against the schema cols[0..ncols) into *out (free with flt_expr_free), as
 * flt_parse does for text (the same builders, so the same predicates). Errors name the
 * operator: RINGSCAN_EPARSE (wrong operands, unknown column, literal of the wrong type),
 * RINGSCAN_ELIMIT, -ENOMEM; *out is then NULL. Depth at most FLT_MAX_DEPTH. */
int flt_from_tree(const flt_tnode *root, const pq_column_desc *cols, int32_t ncols,
                  flt_expr **out, pq_err *e);
/* flt_from_tree with the atoms over fold's columns decided first (as flt_parse_fold). */
int flt_from_tree_fold(const flt_tnode *root, const pq_column_desc *cols, int32_t ncols,
                       const flt_fold *fold, flt_expr **out, pq_err *e);
/* The operator's name as SQL writes it ("=", "BETWEEN", "year", ...). */
const char *flt_top_name(flt_top op);

/* How a dynamic predicate orders its column (flags of flt_expr_add_dynamic). */
enum { FLT_DYN_DESC = 1, FLT_DYN_NULLS_FIRST = 2 };

/* Appends a dynamic predicate `cols[column] >= bound` (FLT_DYN_DESC) or `<= bound`, OR IS
 * NULL with FLT_DYN_NULLS_FIRST (invariant 6), reading dyn (owned by the caller, must outlive
 * ex; zero-initialise it = unset). ex may be an empty expression from flt_expr_new. Numeric
 * domains only (I32/U32/I64/U64/F32/F64). Returns 0, RINGSCAN_EUNSUPPORTED, RINGSCAN_ELIMIT
 * or -ENOMEM. */
int flt_expr_add_dynamic(flt_expr *ex, const pq_column_desc *cols, int32_t ncols,
                         int32_t column, int flags, flt_dyn *dyn, pq_err *e);
enum { FLT_IMPLIED_MAX = 8 }; /* implied predicates one expression gets at most */
/* Appends the single-column predicates `col > t` / `col < t` that each conjunct of one
 * comparison of value expressions implies for the file m (filter/vexpr_imply.c: interval
 * arithmetic on the union of every row group's statistics; invariant 9), marked implied.
 * Reads only chunk statistics already decoded (pq_file_meta_stats; a pending one counts as
 * absent). Returns 0 (perhaps adding none), -ENOMEM or a typing error (e filled). */
int flt_expr_add_implied(flt_expr *ex, const pq_file_meta *m, pq_err *e);
/* The stated order of ex's conjuncts into perm[0..ex->npreds): the implied ones (invariant 9:
 * cheap one-column tests) first, then the user's, each group in its own order. */
void flt_expr_stated_order(const flt_expr *ex, int32_t *perm);
/* Copies p's terms into dt[0..p->nterms) with a dynamic predicate's first literal bound to
 * *dl (dt, dl must outlive the use; p->nterms <= 2 when dynamic): p->terms for a static
 * predicate, dt when the bound is set, NULL when it is unset. */
const flt_term *flt_dyn_terms(const flt_pred *p, flt_term dt[2], flt_lit *dl);
/* An empty expression (matches every row); NULL on ENOMEM. */
flt_expr *flt_expr_new(void);
/* Frees the expression and everything in its arena; NULL is a no-op. */
void flt_expr_free(flt_expr *ex);

/* Publishes v (lit.i or lit.f per dom) if it is stricter than the current bound (greater for
 * a descending bound, smaller for ascending) or the bound is unset. Lock-free once set; the
 * first publication is made under a lock that writers racing it wait on (no spinning).
 * Returns true if changed. */
bool flt_dyn_publish(flt_dyn *d, flt_domain dom, bool descending, flt_lit v);
/* Loads the bound: false when unset; else fills *v (i or f per dom) and *version. */
bool flt_dyn_load(flt_dyn *d, flt_domain dom, flt_lit *v, uint64_t *version);

/* Arena allocation for the expression (zeroed, 16-byte aligned); NULL on ENOMEM. Used by
 * the parser; callers building expressions by hand may use it too. */
void *flt_arena_alloc(struct flt_arena **a, size_t n);

/* Raw literal tokens from the parser, typed by flt_type_term (lit.c); internal to filter/. */
typedef enum flt_tok_kind {
    FLT_LIT_NUMBER,
    FLT_LIT_STRING,
    FLT_LIT_DATE,
    FLT_LIT_TIMESTAMP,
    FLT_LIT_BOOL,
    FLT_LIT_NULL,      /* SQL's NULL: any comparison with it is unknown */
} flt_tok_kind;

typedef struct flt_raw_lit {
    flt_tok_kind kind;
    const char *text; /* NUL-terminated, unescaped (arena) */
    int32_t len;
    int32_t pos;      /* 1-based character position for messages */
} flt_raw_lit;

/* Builds the term `column op raw[0..nraw)` in t (lits from the arena), applying the exact
 * rounding of invariant 3. op is EQ..GE (1 literal), BETWEEN (2), IN / NOT_IN (>= 1),
 * IS_NULL / IS_NOT_NULL / FALSE (0), or LIKE / NOT_LIKE (the pattern, then optionally the
 * ESCAPE string; icase for ILIKE), which may come out as EQ, NE, PREFIX, IS_NOT_NULL or
 * FALSE when the pattern allows. A NULL literal makes the term FALSE (SQL's unknown: no row
 * passes), except in IN, where NULL entries drop out (FALSE when none is left); NOT IN with a
 * NULL is FALSE. Errors: RINGSCAN_EPARSE with message, -ENOMEM. */
int flt_type_term(struct flt_arena **a, const pq_column_desc *d, flt_domain dom, flt_op op,
                  bool icase, const flt_raw_lit *raw, int32_t nraw, flt_term *t, pq_err *e);

/* A number's text as mant * 10^exp10, exactly (at most 38 significant digits, |exp10| <= 400,
 * an optional sign and exponent); false when it is not one. */
bool flt_num_parse(const char *s, __int128 *mant, int *exp10);
/* 'YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,9}]]][Z|(+|-)HH[[:]MM]]' (only the date when date_only) as
 * nanoseconds since 1970-01-01 UTC (no offset: UTC); false when it is not one. */
bool flt_timestamp_parse(const char *s, bool date_only, __int128 *nanos);

/* Days since 1970-01-01 of a proleptic Gregorian date; false if y/m/d is not a valid date. */
bool flt_days_from_civil(int64_t y, int64_t m, int64_t d, int64_t *days);
/* The proleptic Gregorian date of a day number since 1970-01-01 (|days| < 2^60). */
void flt_civil_from_days(int64_t days, int64_t *y, int64_t *m, int64_t *d);

const char *flt_op_name(flt_op op);
/* v / 10^scale as exact decimal text ("-12.50" for -1250 at scale 2) into buf, which holds
 * FLT_SCALED_TEXT_MAX bytes (scale <= 38); returns its length. */
enum { FLT_SCALED_TEXT_MAX = 84 };
size_t flt_scaled_text(__int128 v, int32_t scale, char *buf);
/* "INT32", "BYTE_ARRAY", ... (static storage; "?" for unknown values). */
const char *flt_physical_name(pq_physical t);

#endif
