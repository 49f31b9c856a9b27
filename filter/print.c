/* filter/print.c: a predicate as SQL text after normalization (NOT pushed down, literals as
 * typed: rounded to the column's domain, constants folded to FALSE / IS NOT NULL, IN lists
 * sorted), for --explain.
 *
 * Invariants:
 *  1. Output is bounded by the caller's buffer; a longer text ends with "..." (never a
 *     write past cap). Literals are printed as their column's logical type reads them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "filter/expr.h"
#include "filter/vexpr.h"

typedef struct out {
    char *buf;
    size_t cap, len;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    if (o->len + 1 >= o->cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    o->len += (size_t)n < o->cap - o->len ? (size_t)n : o->cap - o->len - 1;
}

/* An integer scaled by 10^scale, as decimal text. */
static void put_scaled(out *o, __int128 v, int32_t scale)
{
    char buf[FLT_SCALED_TEXT_MAX];
    flt_scaled_text(v, scale, buf);
    put(o, "%s", buf);
}

static void put_date(out *o, int64_t days)
{
    int64_t y, m, d;
    flt_civil_from_days(days, &y, &m, &d);
    put(o, "%04" PRId64 "-%02" PRId64 "-%02" PRId64, y, m, d);
}

static void put_timestamp(out *o, int64_t v, int64_t per_s)
{
    int64_t per_day = 86400 * per_s, day = v / per_day - (v % per_day < 0);
    int64_t rest = v - day * per_day, s = rest / per_s;
    put(o, "TIMESTAMP '");
    put_date(o, day);
    put(o, " %02" PRId64 ":%02" PRId64 ":%02" PRId64, s / 3600, s / 60 % 60, s % 60);
    int digits = per_s == 1000 ? 3 : per_s == 1000000 ? 6 : 9;
    if (rest % per_s) put(o, ".%0*" PRId64, digits, rest % per_s);
    put(o, "'");
}

static void put_bytes(out *o, const uint8_t *b, int32_t n)
{
    put(o, "'");
    for (int32_t i = 0; i < n; i++) put(o, b[i] == '\'' ? "''" : "%c", b[i]);
    put(o, "'");
}

static void put_lit(out *o, const flt_pred *p, const flt_lit *l)
{
    const pq_column_desc *d = p->desc;
    switch (p->dom) {
    case FLT_DOM_BOOL: put(o, l->i ? "TRUE" : "FALSE"); return;
    case FLT_DOM_F32:
    case FLT_DOM_F64: put(o, "%.17g", l->f); return;
    case FLT_DOM_U32:
    case FLT_DOM_U64: put(o, "%" PRIu64, (uint64_t)l->i); return;
    case FLT_DOM_BYTES: put_bytes(o, l->b, l->len); return;
    case FLT_DOM_SDEC: {
        __int128 v = l->len > 0 && (l->b[0] & 0x80) ? -1 : 0;
        for (int32_t k = 0; k < l->len; k++) v = (__int128)((unsigned __int128)v << 8) | l->b[k];
        put_scaled(o, v, d->decimal_scale);
        return;
    }
    case FLT_DOM_INT96:
        put(o, "X'");
        for (int32_t k = 0; k < l->len; k++) put(o, "%02x", l->b[k]);
        put(o, "'");
        return;
    default: break;
    }
    switch (d->logical) {
    case PQ_LOGICAL_DATE: put(o, "DATE '"), put_date(o, l->i), put(o, "'"); return;
    case PQ_LOGICAL_TIMESTAMP_MILLIS: put_timestamp(o, l->i, 1000); return;
    case PQ_LOGICAL_TIMESTAMP_MICROS: put_timestamp(o, l->i, 1000000); return;
    case PQ_LOGICAL_TIMESTAMP_NANOS: put_timestamp(o, l->i, 1000000000); return;
    case PQ_LOGICAL_DECIMAL: put_scaled(o, l->i, d->decimal_scale); return;
    default: put(o, "%" PRId64, l->i); return;
    }
}

/* A LIKE pattern back as text: wildcards as themselves, literal %, _ and \ escaped by \. */
static void put_pattern(out *o, const uint8_t *c, const uint8_t *k, int32_t n, bool any_tail)
{
    bool esc = false;
    put(o, "'");
    for (int32_t i = 0; i < n; i++) {
        bool lit = !k || k[i] == FLT_LIKE_CHAR;
        if (lit && (c[i] == '%' || c[i] == '_' || c[i] == '\\')) put(o, "\\"), esc = true;
        if (lit) put(o, c[i] == '\'' ? "''" : "%c", c[i]);
        else put(o, "%c", k[i] == FLT_LIKE_ANY ? '%' : '_');
    }
    put(o, "%s'%s", any_tail ? "%" : "", esc ? " ESCAPE '\\'" : "");
}

static void put_term(out *o, const flt_pred *p, const flt_term *t)
{
    const char *c = p->desc->name;
    const flt_lit *l = t->lits;
    switch (t->op) {
    case FLT_OP_BETWEEN:
        put(o, "%s BETWEEN ", c), put_lit(o, p, &l[0]), put(o, " AND "), put_lit(o, p, &l[1]);
        return;
    case FLT_OP_IN:
    case FLT_OP_NOT_IN:
        put(o, "%s %s (", c, t->op == FLT_OP_IN ? "IN" : "NOT IN");
        for (int32_t i = 0; i < t->nlits; i++) put(o, "%s", i ? ", " : ""), put_lit(o, p, &l[i]);
        put(o, "%s)", t->nan ? (t->nlits ? ", 'NaN'" : "'NaN'") : "");
        return;
    case FLT_OP_IS_NULL:
    case FLT_OP_IS_NOT_NULL: put(o, "%s %s", c, flt_op_name(t->op)); return;
    case FLT_OP_FALSE: put(o, "FALSE"); return;
    case FLT_OP_PREFIX: put(o, "%s LIKE ", c), put_pattern(o, l[0].b, NULL, l[0].len, true); return;
    case FLT_OP_LIKE:
    case FLT_OP_NOT_LIKE:
        put(o, "%s %s%s ", c, t->op == FLT_OP_NOT_LIKE ? "NOT " : "", t->icase ? "ILIKE" : "LIKE");
        put_pattern(o, l[1].b, l[2].b, l[1].len, false);
        return;
    default: put(o, "%s %s ", c, flt_op_name(t->op)), put_lit(o, p, &l[0]); return;
    }
}

static void put_pred(out *o, const flt_pred *p, bool alone)
{
    if (p->dyn) {
        put(o, "%s beats the Top-K bound", p->desc->name);
        return;
    }
    bool paren = !alone && p->nterms > 1;
    put(o, "%s", paren ? "(" : "");
    for (int32_t k = 0; k < p->nterms; k++)
        put(o, "%s", k ? " OR " : ""), put_term(o, p, &p->terms[k]);
    put(o, "%s", paren ? ")" : "");
}

/* How tightly an operator binds (a child binding less needs parentheses). */
static int binds(const flt_vnode *x)
{
    switch (x->op) {
    case FLT_V_ADD: case FLT_V_SUB: return 1;
    case FLT_V_MUL: case FLT_V_DIV: return 2;
    case FLT_V_NEG: return 3;
    default: return 4;
    }
}

/* A value expression as SQL (vexpr.h); parentheses where a child binds less than its parent
 * needs (min), constants as their exact digits or dates. */
static void put_value(out *o, const flt_multi *m, const flt_vnode *x, int min)
{
    char tn[32];
    bool paren = binds(x) < min;
    put(o, "%s", paren ? "(" : "");
    switch (x->op) {
    case FLT_V_COL: put(o, "%s", m->schema[m->cols[x->slot]].name); break;
    case FLT_V_CONST:
        if (x->raw)
            put(o, x->raw->kind == FLT_LIT_STRING ? "'%s'" : x->raw->kind == FLT_LIT_DATE ? "DATE '%s'"
                   : x->raw->kind == FLT_LIT_TIMESTAMP ? "TIMESTAMP '%s'" : "%s", x->raw->text);
        else if (x->t.kind == FLT_VK_FLOAT || x->t.kind == FLT_VK_DOUBLE) put(o, "%.17g", x->kf);
        else if (x->t.kind == FLT_VK_DATE) put(o, "DATE '"), put_date(o, (int64_t)x->k), put(o, "'");
        else if (x->t.kind == FLT_VK_TS && x->k >= INT64_MIN && x->k <= INT64_MAX)
            put_timestamp(o, (int64_t)x->k, (int64_t)(x->t.scale == 3 ? 1000 : x->t.scale == 6 ? 1000000 : 1000000000));
        else put_scaled(o, x->k, x->t.kind == FLT_VK_DEC ? x->t.scale : 0);
        break;
    case FLT_V_NEG: /* -(-x), -(-5): "--" would read back as a comment (parse.c) */
        put(o, "-"), put_value(o, m, x->a, x->a->op == FLT_V_NEG || x->a->op == FLT_V_CONST ? 5 : 3);
        break;
    case FLT_V_CAST:
        flt_vtype_name(&x->t, tn, sizeof tn);
        put(o, "CAST("), put_value(o, m, x->a, 0), put(o, " AS %s)", tn);
        break;
    default: {
        int b = binds(x);
        put_value(o, m, x->a, b);
        put(o, " %s ", x->op == FLT_V_ADD ? "+" : x->op == FLT_V_SUB ? "-" : x->op == FLT_V_MUL ? "*" : "/");
        put_value(o, m, x->b, b + 1); /* a - (b - c), a / (b * c) */
    }
    }
    put(o, "%s", paren ? ")" : "");
}

size_t flt_pred_print(const flt_pred *p, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    if (cap == 0) return 0;
    buf[0] = 0;
    const flt_multi *m = p->multi;
    if (!m) put_pred(&o, p, true);
    for (int32_t k = 0; m && k < m->nitems; k++) {
        const flt_item *it = &m->items[k];
        put(&o, "%s", k ? " OR " : "");
        if (!it->is_cmp) put_pred(&o, &it->pred, m->nitems == 1);
        else if (it->cmp.vl) {
            put_value(&o, m, it->cmp.vl, 0);
            put(&o, " %s ", flt_op_name(it->cmp.op));
            put_value(&o, m, it->cmp.vr, 0);
        } else if (it->cmp.part)
            put(&o, "%s(%s) %s %" PRId64, flt_part_name(it->cmp.part),
                m->schema[m->cols[it->cmp.a]].name, flt_op_name(it->cmp.op), it->cmp.v);
        else put(&o, "%s %s %s", m->schema[m->cols[it->cmp.a]].name, flt_op_name(it->cmp.op),
                 m->schema[m->cols[it->cmp.b]].name);
    }
    if (o.len + 1 >= cap && cap > 4) memcpy(buf + cap - 4, "...", 4), o.len = cap - 1;
    return o.len;
}
