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
    char digits[48];
    int n = 0;
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    do digits[n++] = (char)('0' + (int)(u % 10)), u /= 10;
    while (u || n <= scale);
    put(o, "%s", v < 0 ? "-" : "");
    for (int i = n - 1; i >= 0; i--) put(o, "%c%s", digits[i], i == scale && scale > 0 ? "." : "");
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
        put(o, ")");
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
        else if (it->cmp.part)
            put(&o, "%s(%s) %s %" PRId64, flt_part_name(it->cmp.part),
                m->schema[m->cols[it->cmp.a]].name, flt_op_name(it->cmp.op), it->cmp.v);
        else put(&o, "%s %s %s", m->schema[m->cols[it->cmp.a]].name, flt_op_name(it->cmp.op),
                 m->schema[m->cols[it->cmp.b]].name);
    }
    if (o.len + 1 >= cap && cap > 4) memcpy(buf + cap - 4, "...", 4), o.len = cap - 1;
    return o.len;
}
