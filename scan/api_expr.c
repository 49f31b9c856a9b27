/* scan/api_expr.c: the public filter trees (ringscan_expr, include/ringscan.h): nodes of
 * filter/'s flt_tnode with their literals in the text form the parser types, so a tree and
 * the same filter as text become the same predicates (flt_from_tree).
 *
 * Invariants:
 *  1. A node owns its operands and its literal text; ringscan_expr_free frees the subtree.
 *  2. A literal's text is exactly the value: integers in decimal, doubles in the shortest
 *     form that reads back as the same double, dates and timestamps in ISO form (UTC). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/expr.h"
#include "ringscan.h"
#include "scan/api_priv.h"

struct ringscan_expr {
    flt_tnode n;               /* first: args point at the operands' n */
    flt_raw_lit lit;
    char *text;                /* the literal's text, or the column's name */
    ringscan_expr **kids;
    flt_tnode **targs;
    ringscan_expr *next_free;  /* ringscan_expr_free's worklist */
};

static ringscan_expr *leaf(flt_top op, flt_tok_kind kind, const char *text, size_t len)
{
    ringscan_expr *e = fail_calloc(1, sizeof *e);
    char *t = fail_malloc(len + 1);
    if (!e || !t) {
        free(e);
        free(t);
        return NULL;
    }
    if (len) memcpy(t, text, len); /* (none: text may be NULL, an empty view's) */
    t[len] = 0;
    e->text = t;
    e->n.op = op;
    if (op == FLT_T_COLUMN) {
        e->n.name = t;
    } else {
        e->lit = (flt_raw_lit){.kind = kind, .text = t, .len = (int32_t)len, .pos = 0};
        e->n.lit = &e->lit;
    }
    return e;
}

ringscan_expr *ringscan_expr_column(const char *name)
{
    return name ? leaf(FLT_T_COLUMN, FLT_LIT_STRING, name, strlen(name)) : NULL;
}

static ringscan_expr *textual(flt_tok_kind kind, const char *buf)
{
    return leaf(FLT_T_LITERAL, kind, buf, strlen(buf));
}

ringscan_expr *ringscan_expr_int(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return textual(FLT_LIT_NUMBER, buf);
}

ringscan_expr *ringscan_expr_double(double v)
{
    if (isnan(v)) return textual(FLT_LIT_NUMBER, "nan"); /* (typed as a double: lit.c */
    if (isinf(v)) return textual(FLT_LIT_NUMBER, v > 0 ? "inf" : "-inf"); /* host_special) */
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) { /* the shortest text that reads back as v */
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* with an exponent, a DOUBLE in the filter's typing (a host's double, as DuckDB binds a
     * double parameter): against a FLOAT column it is compared in doubles, not cast to FLOAT
     * as a SQL text's 0.1 is (filter/lit.c) */
    if (isfinite(v) && !strpbrk(buf, "eE")) strcat(buf, "e0");
    return textual(FLT_LIT_NUMBER, buf);
}

ringscan_expr *ringscan_expr_decimal(const char *text)
{
    return text ? textual(FLT_LIT_NUMBER, text) : NULL;
}

ringscan_expr *ringscan_expr_string(const char *s, size_t len)
{
    /* (NULL, 0) is the empty string: a host's empty view has no pointer */
    return (s || len == 0) && len < FLT_MAX_TEXT ? leaf(FLT_T_LITERAL, FLT_LIT_STRING, s, len)
                                                 : NULL;
}

ringscan_expr *ringscan_expr_null(void)
{
    return textual(FLT_LIT_NULL, "NULL");
}

ringscan_expr *ringscan_expr_bool(bool v)
{
    return textual(FLT_LIT_BOOL, v ? "TRUE" : "FALSE");
}

ringscan_expr *ringscan_expr_date(int32_t days)
{
    int64_t y, m, d;
    flt_civil_from_days(days, &y, &m, &d);
    char buf[48];
    snprintf(buf, sizeof buf, "%04" PRId64 "-%02" PRId64 "-%02" PRId64, y, m, d);
    return textual(FLT_LIT_DATE, buf);
}

ringscan_expr *ringscan_expr_timestamp_us(int64_t us)
{
    /* floor division without forming day * 86400000000, which overflows near INT64_MIN */
    int64_t day = us / 86400000000 - (us % 86400000000 < 0), rest = us % 86400000000;
    if (rest < 0) rest += 86400000000;
    int64_t y, m, d, s = rest / 1000000;
    flt_civil_from_days(day, &y, &m, &d);
    char buf[64];
    snprintf(buf, sizeof buf, "%04" PRId64 "-%02" PRId64 "-%02" PRId64 " %02" PRId64 ":%02" PRId64
             ":%02" PRId64 ".%06" PRId64 "Z", y, m, d, s / 3600, s / 60 % 60, s % 60,
             rest % 1000000);
    return textual(FLT_LIT_TIMESTAMP, buf);
}

_Static_assert(FLT_T_CAST - FLT_T_AND == RINGSCAN_EXPR_CAST - RINGSCAN_EXPR_AND &&
                   FLT_T_QUARTER - FLT_T_AND == RINGSCAN_EXPR_QUARTER - RINGSCAN_EXPR_AND &&
                   FLT_T_DATE_TRUNC - FLT_T_AND == RINGSCAN_EXPR_DATE_TRUNC - RINGSCAN_EXPR_AND &&
                   FLT_T_IN - FLT_T_AND == RINGSCAN_EXPR_IN - RINGSCAN_EXPR_AND &&
                   FLT_T_EQ - FLT_T_AND == RINGSCAN_EXPR_EQ - RINGSCAN_EXPR_AND,
               "the public operators are the internal ones in the same order");

/* The internal operator of a public one; -1 when out of range. */
static int top_of(ringscan_expr_op op)
{
    return op >= RINGSCAN_EXPR_AND && op <= RINGSCAN_EXPR_CAST
               ? FLT_T_AND + (int)(op - RINGSCAN_EXPR_AND)
               : -1;
}

/* Internal operator top (-1: none) over args, as ringscan_expr_call. */
static ringscan_expr *call_of(int top, int nargs, ringscan_expr *const *args)
{
    bool ok = top >= 0 && nargs >= 0 && nargs <= FLT_MAX_TERMS + 1 && (args || !nargs);
    for (int i = 0; ok && i < nargs; i++) ok = args[i] != NULL;
    ringscan_expr *e = ok ? fail_calloc(1, sizeof *e) : NULL;
    if (e) {
        e->kids = fail_calloc((size_t)nargs + 1, sizeof *e->kids);
        e->targs = fail_calloc((size_t)nargs + 1, sizeof *e->targs);
    }
    if (!e || !e->kids || !e->targs) {
        if (e) free(e->kids), free(e->targs), free(e);
        for (int i = 0; args && i < nargs; i++) ringscan_expr_free(args[i]);
        return NULL;
    }
    for (int i = 0; i < nargs; i++) e->kids[i] = args[i], e->targs[i] = &args[i]->n;
    e->n.op = (flt_top)top;
    e->n.nargs = nargs;
    e->n.args = e->targs;
    return e;
}

ringscan_expr *ringscan_expr_call(ringscan_expr_op op, int nargs, ringscan_expr *const *args)
{
    return call_of(top_of(op), nargs, args);
}

/* Whether e's tree has more than room levels (recursion at most room + 1 deep). */
static bool deeper_than(const ringscan_expr *e, int room)
{
    if (room == 0) return true;
    for (int i = 0; i < e->n.nargs; i++)
        if (deeper_than(e->kids[i], room - 1)) return true;
    return false;
}

/* A copy of e's tree, which has at most room levels; NULL when out of memory. */
static ringscan_expr *copy_of(const ringscan_expr *e, int room)
{
    assert(room > 0);
    if (e->text) /* a leaf: a column's name, or a literal's text (its length: NULs inside) */
        return leaf(e->n.op, e->lit.kind, e->text,
                    e->n.op == FLT_T_COLUMN ? strlen(e->text) : (size_t)e->lit.len);
    ringscan_expr **kids = fail_calloc((size_t)e->n.nargs + 1, sizeof *kids);
    bool ok = kids != NULL;
    for (int i = 0; ok && i < e->n.nargs; i++)
        ok = (kids[i] = copy_of(e->kids[i], room - 1)) != NULL;
    /* a NULL kid (out of memory): NULL, the others freed */
    ringscan_expr *c = kids ? call_of(e->n.op, e->n.nargs, kids) : NULL;
    free(kids);
    return c;
}

/* The copy limit: past any depth the typing accepts (filter and value levels together), so a
 * tree refused here is one a scan refuses too. */
enum { EXPR_COPY_DEPTH_MAX = 4 * FLT_MAX_DEPTH };

int scan_expr_copy(const ringscan_expr *e, ringscan_expr **out, pq_err *err)
{
    *out = NULL;
    if (!e) return 0;
    if (deeper_than(e, EXPR_COPY_DEPTH_MAX))
        return pq_errf(err, RINGSCAN_ELIMIT, -1, "filter_expr: filter tree nested deeper than %d",
                       FLT_MAX_DEPTH);
    return (*out = copy_of(e, EXPR_COPY_DEPTH_MAX)) ? 0 : -ENOMEM;
}

/* Iterative: a caller may build a tree far deeper than a stack holds (a scan refuses one
 * deeper than 32 levels, but the caller still frees it), so the nodes left to free are a
 * list threaded through next_free, each node visited once. */
void ringscan_expr_free(ringscan_expr *e)
{
    if (e) e->next_free = NULL;
    while (e) {
        ringscan_expr *x = e;
        e = x->next_free;
        for (int i = 0; i < x->n.nargs; i++) x->kids[i]->next_free = e, e = x->kids[i];
        free(x->kids);
        free(x->targs);
        free(x->text);
        free(x);
    }
}

const flt_tnode *scan_expr_tree(const ringscan_expr *e)
{
    return e ? &e->n : NULL;
}

int scan_filter_from_expr(const ringscan_expr *e, const pq_column_desc *cols, int32_t ncols,
                          flt_expr **out, pq_err *err)
{
    return flt_from_tree(&e->n, cols, ncols, out, err);
}

/* The options' filter, text or tree (api_priv.h). */
int scan_api_filter(ringscan_file *f, const ringscan_options *o, flt_expr **filter, pq_err *e)
{
    const pq_file_meta *m = &f->f->meta;
    int rc = 0;
    *filter = NULL;
    if (o->filter && o->filter_expr)
        rc = pq_errf(e, -EINVAL, -1, "filter and filter_expr are both set; give one");
    if (rc == 0 && o->filter) {
        rc = flt_parse(o->filter, m->columns, m->ncolumns, filter, e);
        rc = scan_nested_filter(m, *filter, rc, "filtered on", e);
    }
    if (rc == 0 && o->filter_expr) {
        rc = scan_filter_from_expr(o->filter_expr, m->columns, m->ncolumns, filter, e);
        rc = scan_nested_filter(m, *filter, rc, "filtered on", e);
        if (rc) { /* name the option the message is about */
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "filter_expr: %s", e->msg);
            memcpy(e->msg, msg, sizeof msg);
        }
    }
    pq_err se = {.offset = -1}; /* (a statistics error is the scan's to report, as before) */
    if (rc == 0 && *filter && pqf_stats_expr(f->f, *filter, &se) == 0)
        rc = flt_expr_add_implied(*filter, m, e); /* cheap one-column tests first */
    return rc;
}
