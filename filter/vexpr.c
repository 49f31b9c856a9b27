/* filter/vexpr.c: value expressions: typing by SQL's rules, constant folding, the atoms they
 * make, and pruning by interval arithmetic (contracts and rules in vexpr.h). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filter/cast.h"
#include "filter/vexpr_ops.h"

/* An error at pos ("... at character N" when it has one; a tree's messages drop it). */
static int verr(flt_build *bd, int32_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int verr(flt_build *bd, int32_t pos, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pq_errf(bd->e, RINGSCAN_EPARSE, pos, "%s at character %d", msg, pos);
}

void flt_vtype_name(const flt_vtype *t, char *buf, size_t cap)
{
    static const char *ints[] = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"};
    int w = t->width == 8 ? 0 : t->width == 16 ? 1 : t->width == 32 ? 2 : t->width == 64 ? 3 : 4;
    switch (t->kind) {
    case FLT_VK_INT: snprintf(buf, cap, "%s%s", t->uns ? "U" : "", ints[w]); return;
    case FLT_VK_DEC: snprintf(buf, cap, "DECIMAL(%d,%d)", t->width, t->scale); return;
    case FLT_VK_FLOAT: snprintf(buf, cap, "FLOAT"); return;
    case FLT_VK_DOUBLE: snprintf(buf, cap, "DOUBLE"); return;
    case FLT_VK_DATE: snprintf(buf, cap, "DATE"); return;
    case FLT_VK_TEXT: snprintf(buf, cap, "a string or boolean literal"); return;
    case FLT_VK_NULL: snprintf(buf, cap, "NULL"); return;
    default: snprintf(buf, cap, t->scale == 6 ? "TIMESTAMP" : "TIMESTAMP_%s",
                      t->scale == 3 ? "MS" : "NS");
    }
}

static flt_vnode *vnew(flt_build *bd, flt_vop op, int32_t pos)
{
    flt_vnode *x = flt_arena_alloc(bd->arena, sizeof *x);
    if (x) x->op = op, x->pos = pos, x->slot = -1;
    return x;
}

/* ---- types ----------------------------------------------------------------------------- */

bool flt_v_column_type(const pq_column_desc *d, flt_vtype *t)
{
    static const struct { pq_logical l; int32_t w; bool uns; } ints[] = {
        {PQ_LOGICAL_INT8, 8, false},  {PQ_LOGICAL_INT16, 16, false}, {PQ_LOGICAL_INT32, 32, false},
        {PQ_LOGICAL_INT64, 64, false}, {PQ_LOGICAL_UINT8, 8, true},  {PQ_LOGICAL_UINT16, 16, true},
        {PQ_LOGICAL_UINT32, 32, true}, {PQ_LOGICAL_UINT64, 64, true},
    };
    memset(t, 0, sizeof *t);
    if (d->physical == PQ_INT96) /* nanoseconds (vexpr_eval.c load_column: pq_int96_nanos) */
        return *t = (flt_vtype){FLT_VK_TS, 0, 9, false}, true;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (d->logical == ints[i].l) return *t = (flt_vtype){FLT_VK_INT, ints[i].w, 0, ints[i].uns}, true;
    switch (d->logical) {
    case PQ_LOGICAL_DECIMAL: { /* no precision written: what the physical type holds */
        int32_t p = d->decimal_precision > 0 ? d->decimal_precision
                    : d->physical == PQ_INT32 ? 9 : d->physical == PQ_INT64 ? 18 : 38;
        if (p > 38 || d->decimal_scale < 0 || d->decimal_scale > p) return false;
        *t = (flt_vtype){FLT_VK_DEC, p, d->decimal_scale, false};
        return true;
    }
    case PQ_LOGICAL_DATE: return t->kind = FLT_VK_DATE, d->physical == PQ_INT32;
    case PQ_LOGICAL_TIMESTAMP_MILLIS: return *t = (flt_vtype){FLT_VK_TS, 0, 3, false}, true;
    case PQ_LOGICAL_TIMESTAMP_MICROS: return *t = (flt_vtype){FLT_VK_TS, 0, 6, false}, true;
    case PQ_LOGICAL_TIMESTAMP_NANOS: return *t = (flt_vtype){FLT_VK_TS, 0, 9, false}, true;
    case PQ_LOGICAL_NONE: break;
    default: return false;
    }
    switch (d->physical) {
    case PQ_INT32: return *t = (flt_vtype){FLT_VK_INT, 32, 0, false}, true;
    case PQ_INT64: return *t = (flt_vtype){FLT_VK_INT, 64, 0, false}, true;
    case PQ_FLOAT: return t->kind = FLT_VK_FLOAT, true;
    case PQ_DOUBLE: return t->kind = FLT_VK_DOUBLE, true;
    default: return false;
    }
}

static bool numeric(const flt_vtype *t) { return t->kind <= FLT_VK_DOUBLE; }

bool flt_v_comparable(const flt_vtype *a, const flt_vtype *b)
{
    bool ta = a->kind == FLT_VK_DATE || a->kind == FLT_VK_TS;
    bool tb = b->kind == FLT_VK_DATE || b->kind == FLT_VK_TS;
    return (numeric(a) && numeric(b)) || (ta && tb);
}

/* Digits of an integer type as a decimal (DuckDB: 3, 5, 10, 19; unsigned 64: 20). */
static int32_t int_digits(const flt_vtype *t)
{
    return t->width == 8 ? 3 : t->width == 16 ? 5 : t->width == 32 ? 10
           : t->width == 64 ? (t->uns ? 20 : 19) : 38;
}

/* The smallest integer type holding both (a signed and an unsigned: a signed one wider). */
static flt_vtype int_join(const flt_vtype *a, const flt_vtype *b)
{
    if (a->uns == b->uns) return a->width >= b->width ? *a : *b;
    const flt_vtype *s = a->uns ? b : a, *u = a->uns ? a : b;
    int32_t w = s->width > u->width ? s->width : u->width * 2;
    return (flt_vtype){FLT_VK_INT, w > 64 ? 128 : w, 0, false};
}

/* The digits of an integer literal's value (at least 1). */
static int32_t lit_digits(__int128 v)
{
    int32_t n = 1;
    for (v = v < 0 ? -v : v; v >= 10; v /= 10) n++;
    return n;
}

/* An operand as a decimal: its own type, or an integer's DECIMAL(w, 0). */
static flt_vtype as_dec(const flt_vnode *x)
{
    if (x->t.kind == FLT_VK_DEC) return x->t;
    int32_t w = x->int_lit ? lit_digits(x->k) : int_digits(&x->t);
    return (flt_vtype){FLT_VK_DEC, w, 0, false};
}

/* The type of a op b (vexpr.h's rules); false when the operands take no arithmetic. */
static bool result_type(flt_vop op, const flt_vnode *a, const flt_vnode *b, flt_vtype *t)
{
    const flt_vtype *x = &a->t, *y = &b->t;
    bool dx = x->kind == FLT_VK_DATE, dy = y->kind == FLT_VK_DATE;
    if (dx && dy && op == FLT_V_SUB) /* days between two dates */
        return *t = (flt_vtype){FLT_VK_INT, 64, 0, false}, true;
    if ((dx && y->kind == FLT_VK_INT && op <= FLT_V_SUB) || (dy && x->kind == FLT_VK_INT && op == FLT_V_ADD))
        return *t = (flt_vtype){FLT_VK_DATE, 0, 0, false}, true; /* a date moved by days */
    if (!numeric(x) || !numeric(y)) return false;
    bool dbl = x->kind == FLT_VK_DOUBLE || y->kind == FLT_VK_DOUBLE;
    bool flt = x->kind == FLT_VK_FLOAT || y->kind == FLT_VK_FLOAT;
    if (dbl || flt || op == FLT_V_DIV)
        return *t = (flt_vtype){dbl || !flt ? FLT_VK_DOUBLE : FLT_VK_FLOAT, 0, 0, false}, true;
    if (x->kind == FLT_VK_INT && y->kind == FLT_VK_INT) {
        bool fits_x = b->int_lit && v_fits(x, b->k), fits_y = a->int_lit && v_fits(y, a->k);
        *t = fits_x ? *x : fits_y ? *y : int_join(x, y);
        return true;
    }
    flt_vtype p = as_dec(a), q = as_dec(b);
    int32_t s, w;
    if (op == FLT_V_MUL) {
        s = p.scale + q.scale, w = p.width + q.width;
        if (w > 18 && p.width <= 18 && q.width <= 18) w = 18;
    } else {
        s = p.scale > q.scale ? p.scale : q.scale;
        int32_t ip = p.width - p.scale, iq = q.width - q.scale;
        w = (ip > iq ? ip : iq) + s + 1;
    }
    if (s > 38) return false;
    *t = (flt_vtype){FLT_VK_DEC, w > 38 ? 38 : w < s ? s : w, s, false};
    return true;
}

/* ---- building ---------------------------------------------------------------------------- */

int flt_v_column(flt_build *bd, int32_t col, int32_t pos, flt_vnode **out)
{
    flt_vtype t;
    if (!flt_v_column_type(&bd->cols[col], &t))
        return verr(bd, pos, "column '%s' (%s) takes no arithmetic or CAST", bd->cols[col].name,
                    bd->cols[col].logical ? pq_logical_name(bd->cols[col].logical)
                                          : flt_physical_name(bd->cols[col].physical));
    flt_vnode *x = vnew(bd, FLT_V_COL, pos);
    if (!x) return -ENOMEM;
    x->col = col, x->t = t;
    *out = x;
    return 0;
}

/* A number literal: INTEGER / BIGINT / HUGEINT, DECIMAL(p, s) with a '.', DOUBLE with an
 * exponent or beyond 38 digits. */
static int number_lit(flt_build *bd, const flt_raw_lit *r, flt_vnode *x)
{
    __int128 m;
    int e;
    bool expo = strpbrk(r->text, "eE") != NULL;
    if (!expo && flt_num_parse(r->text, &m, &e) && e <= 0 && -e <= 38) {
        const char *dot = strchr(r->text, '.');
        x->k = m;
        if (!dot) {
            x->int_lit = true;
            int32_t w = m >= INT32_MIN && m <= INT32_MAX ? 32 : m >= INT64_MIN && m <= INT64_MAX ? 64 : 128;
            x->t = (flt_vtype){FLT_VK_INT, w, 0, false};
            return 0;
        }
        int32_t s = (int32_t)strlen(dot + 1), w = lit_digits(m);
        if (!v_rescale(m, s + e, &x->k)) goto dbl; /* e < 0 only with an exponent */
        x->t = (flt_vtype){FLT_VK_DEC, w > s ? w : s + (s < 38), s, false};
        if (x->t.width <= 38) return 0;
    }
dbl:
    x->int_lit = false;
    char *end;
    x->kf = strtod(r->text, &end);
    if (*end || end == r->text) return verr(bd, r->pos, "'%s' is not a number", r->text);
    x->t = (flt_vtype){FLT_VK_DOUBLE, 0, 0, false};
    return 0;
}

int flt_v_literal(flt_build *bd, const flt_raw_lit *r, flt_vnode **out)
{
    flt_vnode *x = vnew(bd, FLT_V_CONST, r->pos);
    flt_raw_lit *kept = flt_arena_alloc(bd->arena, sizeof *kept); /* the tree's may go first */
    char *text = flt_arena_alloc(bd->arena, (size_t)r->len + 1);
    if (!x || !kept || !text) return -ENOMEM;
    memcpy(text, r->text, (size_t)r->len);
    *kept = *r, kept->text = text;
    x->raw = r = kept;
    *out = x;
    __int128 ns;
    switch (r->kind) {
    case FLT_LIT_NUMBER: return number_lit(bd, r, x);
    case FLT_LIT_STRING: return x->t.kind = FLT_VK_TEXT, 0; /* typed where it is compared */
    case FLT_LIT_NULL: return x->t.kind = FLT_VK_NULL, 0;
    case FLT_LIT_DATE:
        if (flt_timestamp_parse(r->text, true, &ns)) {
            x->t.kind = FLT_VK_DATE, x->k = ns / ((__int128)V_DAY_S * 1000000000);
            return 0;
        }
        /* fall through */
    case FLT_LIT_TIMESTAMP:
        if (flt_timestamp_parse(r->text, false, &ns)) {
            x->t = (flt_vtype){FLT_VK_TS, 0, 9, false}, x->k = ns;
            return 0;
        }
        return verr(bd, r->pos, "invalid %s '%s'", r->kind == FLT_LIT_DATE ? "date" : "timestamp",
                    r->text);
    default: x->t.kind = FLT_VK_TEXT; return 0;
    }
}

/* Folds x (a constant op) in place: its value from its constant operands. */
static int fold(flt_build *bd, flt_vnode *x)
{
    const flt_vnode *a = x->a, *b = x->b;
    char tn[32];
    flt_vtype_name(&x->t, tn, sizeof tn);
    bool ok = true;
    if (v_is_float(&x->t)) {
        double p = v_is_float(&a->t) ? a->kf : v_to_double(a->k, v_scale(&a->t));
        double q = !b ? 0 : v_is_float(&b->t) ? b->kf : v_to_double(b->k, v_scale(&b->t));
        if (x->op == FLT_V_DIV && q == 0) return verr(bd, x->pos, "division by zero");
        x->kf = x->op == FLT_V_NEG ? -p : x->op == FLT_V_CAST ? v_round_float(&x->t, p)
                                                             : v_arith_double(x->op, p, q, &x->t);
        ok = x->op != FLT_V_CAST || v_float_cast_ok(p, x->kf);
    } else if (x->op == FLT_V_CAST) {
        ok = v_is_float(&a->t) ? v_from_double(a->kf, &x->t, &x->k)
                               : v_cast_exact(a->k, &a->t, &x->t, &x->k);
    } else if (x->op == FLT_V_NEG) {
        ok = !__builtin_sub_overflow((__int128)0, a->k, &x->k) && v_fits_arith(&x->t, x->k);
    } else {
        ok = v_arith_exact(x->op, a->k, v_scale(&a->t), b->k, v_scale(&b->t), &x->t, &x->k);
    }
    if (!ok) return verr(bd, x->pos, "overflow: the constant is out of range of %s", tn);
    x->op = FLT_V_CONST, x->a = x->b = NULL, x->raw = NULL;
    x->int_lit = x->int_lit && x->t.kind == FLT_VK_INT;
    return 0;
}

static const char *vop_name(flt_vop op)
{
    return op == FLT_V_ADD ? "+" : op == FLT_V_SUB ? "-" : op == FLT_V_MUL ? "*" : "/";
}

int flt_v_binary(flt_build *bd, flt_vop op, int32_t pos, flt_vnode *a, flt_vnode *b,
                 flt_vnode **out)
{
    assert(op >= FLT_V_ADD && op <= FLT_V_DIV);
    flt_vnode *x = vnew(bd, op, pos);
    if (!x) return -ENOMEM;
    if (a->t.kind == FLT_VK_NULL || b->t.kind == FLT_VK_NULL) { /* NULL op x is NULL */
        x->op = FLT_V_CONST, x->t.kind = FLT_VK_NULL; /* a, b kept: the columns it names */
        x->a = a, x->b = b;
        return *out = x, 0;
    }
    if (!result_type(op, a, b, &x->t)) {
        char ta[32], tb[32];
        flt_vtype_name(&a->t, ta, sizeof ta), flt_vtype_name(&b->t, tb, sizeof tb);
        return verr(bd, pos, "cannot apply '%s' to %s and %s", vop_name(op), ta, tb);
    }
    x->a = a, x->b = b, x->int_lit = a->int_lit && b->int_lit;
    *out = x;
    return a->op == FLT_V_CONST && b->op == FLT_V_CONST ? fold(bd, x) : 0;
}

int flt_v_neg(flt_build *bd, int32_t pos, flt_vnode *a, flt_vnode **out)
{
    if (a->t.kind == FLT_VK_NULL) return *out = a, 0;
    if (!numeric(&a->t)) return verr(bd, pos, "cannot negate a date or time");
    flt_vnode *x = vnew(bd, FLT_V_NEG, pos);
    if (!x) return -ENOMEM;
    x->a = a, x->t = a->t, x->int_lit = a->int_lit;
    *out = x;
    return a->op == FLT_V_CONST ? fold(bd, x) : 0;
}

/* A literal kept as written (FLT_VK_TEXT) as a constant of numeric type to, cast as DuckDB
 * casts VARCHAR (filter/cast.h: '5', ' 7.5 ', 'nan'); a string the cast refuses is an error. */
static int text_as_number(flt_build *bd, flt_vnode *x, const flt_vtype *to)
{
    const flt_raw_lit *r = x->raw;
    bool ok = r->len < FLT_CAST_MAX && strlen(r->text) == (size_t)r->len, dec = to->kind == FLT_VK_DEC;
    if (ok && v_is_float(to)) {
        ok = flt_cast_real(r->text, to->kind == FLT_VK_FLOAT, &x->kf);
    } else if (ok) { /* (a UBIGINT's range tells flt_cast_number its store) */
        bool u64 = to->kind == FLT_VK_INT && to->uns && to->width == 64;
        __int128 hi = u64 ? (__int128)UINT64_MAX : (__int128)(~(unsigned __int128)0 >> 1);
        ok = flt_cast_number(r->text, dec ? to->width : 0, dec ? to->scale : 0, to->uns ? 0 : -hi - 1,
                             hi, &x->k) && v_fits(to, x->k);
    }
    if (!ok) {
        char name[32];
        flt_vtype_name(to, name, sizeof name);
        return verr(bd, r->pos, "cannot convert string '%s' to %s", r->text, name);
    }
    x->t = *to;
    return 0;
}

/* A literal kept as written (FLT_VK_TEXT) compared with a value: read as a number of its
 * type, or as a date or time beside one. */
static int text_as_time(flt_build *bd, flt_vnode *x, const flt_vnode *other)
{
    if (x->t.kind != FLT_VK_TEXT) return 0;
    if (numeric(&other->t)) return text_as_number(bd, x, &other->t);
    __int128 ns;
    const flt_raw_lit *r = x->raw;
    if (other->t.kind == FLT_VK_TEXT || !flt_timestamp_parse(r->text, false, &ns))
        return verr(bd, r->pos, "cannot compare '%s' with a numeric expression", r->text);
    if (other->t.kind == FLT_VK_DATE && flt_timestamp_parse(r->text, true, &ns)) { /* a date */
        x->t = (flt_vtype){FLT_VK_DATE, 0, 0, false}, x->k = ns / ((__int128)V_DAY_S * 1000000000);
        return 0;
    }
    x->t = (flt_vtype){FLT_VK_TS, 0, 9, false}, x->k = ns;
    return 0;
}

/* A type name of CAST: 0 and *t, or -1. */
static int type_parse(const char *s, flt_vtype *t)
{
    static const struct { const char *name; flt_vtype t; } names[] = {
        {"TINYINT", {FLT_VK_INT, 8, 0, false}},   {"INT1", {FLT_VK_INT, 8, 0, false}},
        {"SMALLINT", {FLT_VK_INT, 16, 0, false}}, {"INT2", {FLT_VK_INT, 16, 0, false}},
        {"INTEGER", {FLT_VK_INT, 32, 0, false}},  {"INT", {FLT_VK_INT, 32, 0, false}},
        {"INT4", {FLT_VK_INT, 32, 0, false}},     {"BIGINT", {FLT_VK_INT, 64, 0, false}},
        {"INT8", {FLT_VK_INT, 64, 0, false}},     {"HUGEINT", {FLT_VK_INT, 128, 0, false}},
        {"UTINYINT", {FLT_VK_INT, 8, 0, true}},   {"USMALLINT", {FLT_VK_INT, 16, 0, true}},
        {"UINTEGER", {FLT_VK_INT, 32, 0, true}},  {"UBIGINT", {FLT_VK_INT, 64, 0, true}},
        {"DOUBLE", {FLT_VK_DOUBLE, 0, 0, false}}, {"FLOAT8", {FLT_VK_DOUBLE, 0, 0, false}},
        {"REAL", {FLT_VK_FLOAT, 0, 0, false}},    {"FLOAT", {FLT_VK_FLOAT, 0, 0, false}},
        {"FLOAT4", {FLT_VK_FLOAT, 0, 0, false}},  {"DATE", {FLT_VK_DATE, 0, 0, false}},
        {"TIMESTAMP", {FLT_VK_TS, 0, 6, false}},  {"TIMESTAMP_MS", {FLT_VK_TS, 0, 3, false}},
        {"TIMESTAMP_NS", {FLT_VK_TS, 0, 9, false}},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) return *t = names[i].t, 0;
    int p = 18, sc = 3, n = 0; /* DECIMAL alone is DECIMAL(18,3), as in DuckDB */
    if (strncasecmp(s, "DECIMAL", 7) == 0) s += 7;
    else if (strncasecmp(s, "NUMERIC", 7) == 0) s += 7;
    else return -1;
    if (*s == '(' && sscanf(s, "(%d,%d)%n", &p, &sc, &n) != 2 && (sc = 0, sscanf(s, "(%d)%n", &p, &n) != 1))
        return -1;
    if (s[n] || p < 1 || p > 38 || sc < 0 || sc > p) return -1;
    *t = (flt_vtype){FLT_VK_DEC, p, sc, false};
    return 0;
}

int flt_v_cast(flt_build *bd, int32_t pos, flt_vnode *a, const char *type, flt_vnode **out)
{
    flt_vnode *x = vnew(bd, FLT_V_CAST, pos);
    if (!x) return -ENOMEM;
    if (type_parse(type, &x->t))
        return verr(bd, pos, "CAST to unknown or unsupported type '%s'", type);
    if (a->t.kind == FLT_VK_NULL) return *out = a, 0;
    int rc = a->t.kind == FLT_VK_TEXT && a->op == FLT_V_CONST ? text_as_time(bd, a, x) : 0;
    if (rc) return rc; /* (CAST('nan' AS DOUBLE), CAST('2024-01-01' AS DATE): read as it) */
    if (numeric(&a->t) != numeric(&x->t) || a->t.kind == FLT_VK_TEXT) {
        char ta[32];
        flt_vtype_name(&a->t, ta, sizeof ta);
        return verr(bd, pos, "cannot CAST %s to %s", ta, type);
    }
    x->a = a;
    *out = x;
    return a->op == FLT_V_CONST ? fold(bd, x) : 0;
}

/* ---- comparisons ------------------------------------------------------------------------ */

/* A folded constant back as literal text (exact digits, %.17g, or ISO date / time). */
static int const_text(flt_build *bd, const flt_vnode *c, flt_raw_lit *r)
{
    char buf[FLT_SCALED_TEXT_MAX];
    int64_t y, m, d;
    __int128 v = c->k;
    memset(r, 0, sizeof *r);
    r->pos = c->pos, r->kind = FLT_LIT_NUMBER;
    if (v_is_float(&c->t)) {
        snprintf(buf, sizeof buf, "%.17g", c->kf);
    } else if (c->t.kind == FLT_VK_DATE || c->t.kind == FLT_VK_TS) {
        __int128 per_day = c->t.kind == FLT_VK_DATE ? 1 : (__int128)V_DAY_S * v_pow10(v_scale(&c->t));
        __int128 days = v / per_day - (v % per_day < 0), rest = v - days * per_day;
        flt_civil_from_days((int64_t)days, &y, &m, &d);
        __int128 unit = v_pow10(v_scale(&c->t)), sec = c->t.kind == FLT_VK_DATE ? 0 : rest / unit;
        snprintf(buf, sizeof buf, "%04" PRId64 "-%02" PRId64 "-%02" PRId64 " %02d:%02d:%02d.%0*lld",
                 y, m, d, (int)(sec / 3600), (int)(sec / 60 % 60), (int)(sec % 60),
                 (int)(v_scale(&c->t) ? v_scale(&c->t) : 1), (long long)(rest % unit));
        r->kind = c->t.kind == FLT_VK_DATE ? FLT_LIT_DATE : FLT_LIT_TIMESTAMP;
        if (c->t.kind == FLT_VK_DATE) buf[10] = 0;
    } else {
        flt_scaled_text(v, v_scale(&c->t), buf);
    }
    size_t len = strlen(buf);
    char *t = flt_arena_alloc(bd->arena, len + 1);
    if (!t) return -ENOMEM;
    memcpy(t, buf, len + 1);
    r->text = t, r->len = (int32_t)len;
    return 0;
}

/* The first column x reads, or -1. */
static int32_t first_col(const flt_vnode *x)
{
    if (!x) return -1;
    if (x->op == FLT_V_COL) return x->col;
    int32_t c = first_col(x->a);
    return c >= 0 ? c : first_col(x->b);
}

/* A DATE compared with a TIMESTAMP: the date as midnight, in the timestamp's unit. */
static int date_as_ts(flt_build *bd, flt_vnode **x, const flt_vnode *other)
{
    if ((*x)->t.kind != FLT_VK_DATE || other->t.kind != FLT_VK_TS) return 0;
    flt_vnode *c = vnew(bd, FLT_V_CAST, (*x)->pos);
    if (!c) return -ENOMEM;
    c->t = other->t, c->a = *x;
    *x = c;
    return c->a->op == FLT_V_CONST ? fold(bd, c) : 0;
}

/* Brings l and r to types that compare: a string read as a date or time beside one, a date
 * beside a timestamp as midnight; refused when they still do not compare. */
static int unify(flt_build *bd, int32_t pos, flt_vnode **l, flt_vnode **r)
{
    int rc;
    if ((rc = text_as_time(bd, *l, *r)) || (rc = text_as_time(bd, *r, *l)) ||
        (rc = date_as_ts(bd, l, *r)) || (rc = date_as_ts(bd, r, *l)))
        return rc;
    if (flt_v_comparable(&(*l)->t, &(*r)->t)) return 0;
    char ta[32], tb[32];
    flt_vtype_name(&(*l)->t, ta, sizeof ta), flt_vtype_name(&(*r)->t, tb, sizeof tb);
    return verr(bd, pos, "cannot compare %s with %s", ta, tb);
}

/* l op r of two constants, decided now: always or never true (NULL: unknown, never). */
static int const_atom(flt_build *bd, int32_t pos, flt_op op, flt_vnode *l, flt_vnode *r,
                      flt_node **out)
{
    if (l->t.kind == FLT_VK_NULL || r->t.kind == FLT_VK_NULL) return flt_atom_const(bd, pos, -1, out);
    int rc = unify(bd, pos, &l, &r), c;
    if (rc) return rc;
    if (v_is_float(&l->t) || v_is_float(&r->t)) {
        flt_vtype t = {l->t.kind == FLT_VK_DOUBLE || r->t.kind == FLT_VK_DOUBLE ? FLT_VK_DOUBLE
                                                                               : FLT_VK_FLOAT, 0, 0, false};
        double a = v_round_float(&t, v_is_float(&l->t) ? l->kf : v_to_double(l->k, v_scale(&l->t)));
        double b = v_round_float(&t, v_is_float(&r->t) ? r->kf : v_to_double(r->k, v_scale(&r->t)));
        c = v_cmp_double(a, b);
    } else {
        c = v_cmp_exact(l->k, v_scale(&l->t), r->k, v_scale(&r->t));
    }
    return flt_atom_const(bd, pos, v_op_holds(op, c) ? 1 : -1, out);
}

int flt_atom_values(flt_build *bd, int32_t pos, flt_op op, flt_vnode *l, flt_vnode *r,
                    flt_node **out)
{
    assert(op <= FLT_OP_GE && l && r);
    if (v_count(l) > FLT_V_MAX_NODES || v_count(r) > FLT_V_MAX_NODES)
        return pq_errf(bd->e, RINGSCAN_ELIMIT, pos, "an expression of more than %d operations "
                       "at character %d", FLT_V_MAX_NODES, pos);
    int32_t col = first_col(l) >= 0 ? first_col(l) : first_col(r);
    if (col < 0) return const_atom(bd, pos, op, l, r, out);
    if (l->t.kind == FLT_VK_NULL || r->t.kind == FLT_VK_NULL) /* unknown for every row */
        return flt_atom(bd, col, pos, FLT_OP_FALSE, false, NULL, 0, out);
    if (l->op == FLT_V_COL && r->op == FLT_V_COL && flt_cols_comparable(bd, l->col, r->col))
        return flt_atom_two(bd, l->col, r->col, pos, op, out);
    if (r->op == FLT_V_COL && l->op == FLT_V_CONST) {
        flt_vnode *t = l;
        l = r, r = t, op = flt_mirrored(op);
    }
    if (l->op == FLT_V_COL && r->op == FLT_V_CONST) { /* the literal path: exact typing */
        flt_raw_lit text;
        int rc = r->raw ? (text = *r->raw, 0) : const_text(bd, r, &text);
        return rc ? rc : flt_atom(bd, l->col, pos, op, false, &text, 1, out);
    }
    int rc = unify(bd, pos, &l, &r);
    if (rc) return rc;
    flt_node *x = flt_node_new(bd, FLT_N_ATOM, 0);
    if (!x) return -ENOMEM;
    x->column = col;
    x->two = true, x->pos = pos, x->vl = l, x->vr = r;
    x->term.op = op;
    *out = x;
    return 0;
}

flt_vnode *flt_v_slotted(flt_build *bd, const flt_vnode *x, int32_t *cols, int32_t *ncols)
{
    if (!x) return NULL;
    flt_vnode *c = flt_arena_alloc(bd->arena, sizeof *c);
    if (!c) return NULL;
    *c = *x;
    if (x->op == FLT_V_COL) {
        for (c->slot = 0; c->slot < *ncols && cols[c->slot] != x->col; c->slot++) {}
        if (c->slot == *ncols) cols[(*ncols)++] = x->col;
    }
    if ((x->a && !(c->a = flt_v_slotted(bd, x->a, cols, ncols))) ||
        (x->b && !(c->b = flt_v_slotted(bd, x->b, cols, ncols))))
        return NULL;
    return c;
}
