/* filter/datefn.c: year(col) and date_trunc('unit', col) compared with a literal, rewritten
 * into ranges of the column itself (tree.h).
 *
 * Both are floor functions onto unit boundaries (years, quarters, months, days): f(d) is
 * the last boundary at or before d, so f is non-decreasing and each comparison of f(d) with
 * L is a comparison of d with one or two boundaries: with F = the last boundary at or before
 * L and N = the boundary after F,
 *   f(d) <  L  <=>  d < (L a boundary ? L : N)      f(d) >= L  <=>  d >= (L a boundary ? L : N)
 *   f(d) <= L  <=>  d < N                           f(d) >  L  <=>  d >= N
 *   f(d) =  L  <=>  L a boundary AND L <= d < N     (FALSE otherwise; != is its complement)
 * year(d) = Y is f(d) = Y-01-01 with f on years. The rewritten atoms are ordinary
 * comparisons of the column, so statistics, page indexes and the kernels need nothing new.
 *
 * Invariants:
 *  1. Exact for every value of the column's type: boundaries are dates at midnight, typed
 *     onto the column by flt_type_term (DATE: days; TIMESTAMP: that midnight in its unit, the
 *     stored value read as UTC; INT96: that midnight's Julian day and nanoseconds).
 *  2. Boundaries stay within years 1..9999 (the literal syntax); beyond, the literal is an
 *     error naming it, never a silent wrap. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "filter/tree.h"

typedef struct ymd {
    int64_t y, m, d;
} ymd;

static ymd civil_of(int64_t z)
{
    ymd v;
    flt_civil_from_days(z, &v.y, &v.m, &v.d);
    return v;
}

int flt_unit_parse(const char *s, flt_unit *u)
{
    static const char *names[] = {"year", "quarter", "month", "day"};
    for (int i = 0; i < 4; i++)
        if (strcasecmp(s, names[i]) == 0) return *u = (flt_unit)i, 0;
    return -1;
}

/* The last boundary at or before v, and the one after it. */
static void bounds_of(flt_unit u, ymd v, ymd *floor, ymd *next)
{
    switch (u) {
    case FLT_UNIT_YEAR: *floor = (ymd){v.y, 1, 1}, *next = (ymd){v.y + 1, 1, 1}; return;
    case FLT_UNIT_QUARTER: {
        int64_t m0 = (v.m - 1) / 3 * 3 + 1;
        *floor = (ymd){v.y, m0, 1};
        *next = m0 == 10 ? (ymd){v.y + 1, 1, 1} : (ymd){v.y, m0 + 3, 1};
        return;
    }
    case FLT_UNIT_MONTH:
        *floor = (ymd){v.y, v.m, 1};
        *next = v.m == 12 ? (ymd){v.y + 1, 1, 1} : (ymd){v.y, v.m + 1, 1};
        return;
    default: {
        int64_t days = 0;
        (void)flt_days_from_civil(v.y, v.m, v.d, &days); /* v was checked by the caller */
        *floor = v, *next = civil_of(days + 1);
        return;
    }
    }
}

/* The literal as a date, and whether it has a time of day after midnight: a year (year())
 * or 'YYYY-MM-DD[ 00:00:00...]' (date_trunc: DATE, TIMESTAMP or a string). */
static int literal_date(flt_build *bd, bool year_fn, const flt_raw_lit *r, ymd *v, bool *late)
{
    *late = false;
    int64_t y = 0, m = 1, d = 1;
    int n = 0;
    if (year_fn) {
        long long yy;
        if (r->kind != FLT_LIT_NUMBER || sscanf(r->text, "%lld%n", &yy, &n) != 1 || r->text[n])
            return pq_errf(bd->e, RINGSCAN_EPARSE, r->pos,
                           "year() compares with a whole number, not '%s', at character %d",
                           r->text, r->pos);
        y = yy;
    } else {
        long long yy, mm, dd;
        bool ok = r->kind == FLT_LIT_DATE || r->kind == FLT_LIT_TIMESTAMP ||
                  r->kind == FLT_LIT_STRING;
        ok = ok && sscanf(r->text, "%4lld-%2lld-%2lld%n", &yy, &mm, &dd, &n) == 3 && n == 10;
        /* a time of day may follow (digits and separators; no zone): after midnight when
         * any digit of it is not 0 */
        const char *t = r->text + n;
        ok = ok && strspn(t, " T:.0123456789") == strlen(t);
        for (; ok && *t; t++) *late = *late || (*t >= '1' && *t <= '9');
        if (ok) y = yy, m = mm, d = dd;
        int64_t days;
        if (!ok || !flt_days_from_civil(y, m, d, &days))
            return pq_errf(bd->e, RINGSCAN_EPARSE, r->pos,
                           "date_trunc compares with a date 'YYYY-MM-DD', not '%s', at character "
                           "%d", r->text, r->pos);
    }
    if (y < 1 || y > 9998)
        return pq_errf(bd->e, RINGSCAN_EPARSE, r->pos,
                       "year %lld is out of range (1..9998) at character %d", (long long)y, r->pos);
    *v = (ymd){y, m, d};
    return 0;
}

/* The atom `col op boundary`. */
static int boundary_atom(flt_build *bd, int32_t col, int32_t pos, flt_op op, ymd b,
                         flt_node **out)
{
    char *text = flt_arena_alloc(bd->arena, 16);
    if (!text) return -ENOMEM;
    snprintf(text, 16, "%04lld-%02lld-%02lld", (long long)b.y, (long long)b.m, (long long)b.d);
    flt_raw_lit r = {.kind = FLT_LIT_DATE, .text = text, .len = 10, .pos = pos};
    return flt_atom(bd, col, pos, op, false, &r, 1, out);
}

static bool same(ymd a, ymd b) { return a.y == b.y && a.m == b.m && a.d == b.d; }

int flt_datefn(flt_build *bd, int32_t col, int32_t pos, flt_unit unit, bool year_fn, flt_op op,
               const flt_raw_lit *lit, flt_node **out)
{
    const pq_column_desc *d = &bd->cols[col];
    bool dated = d->logical == PQ_LOGICAL_DATE || d->logical == PQ_LOGICAL_TIMESTAMP_MILLIS ||
                 d->logical == PQ_LOGICAL_TIMESTAMP_MICROS ||
                 d->logical == PQ_LOGICAL_TIMESTAMP_NANOS || d->physical == PQ_INT96;
    if (!dated)
        return pq_errf(bd->e, RINGSCAN_EPARSE, pos,
                       "%s needs a date or timestamp column; '%s' is not one, at character %d",
                       year_fn ? "year()" : "date_trunc", d->name, pos);
    ymd v, f, n;
    bool late;
    int rc = literal_date(bd, year_fn, lit, &v, &late);
    if (rc) return rc;
    bounds_of(year_fn ? FLT_UNIT_YEAR : unit, v, &f, &n);
    bool edge = same(f, v) && !late; /* the literal is a boundary */
    ymd up = edge ? v : n;           /* the first boundary at or after it */
    flt_node *a, *b;
    switch (op) {
    case FLT_OP_LT: return boundary_atom(bd, col, pos, FLT_OP_LT, up, out);
    case FLT_OP_GE: return boundary_atom(bd, col, pos, FLT_OP_GE, up, out);
    case FLT_OP_LE: return boundary_atom(bd, col, pos, FLT_OP_LT, n, out);
    case FLT_OP_GT: return boundary_atom(bd, col, pos, FLT_OP_GE, n, out);
    case FLT_OP_EQ:
        if (!edge) return flt_atom(bd, col, pos, FLT_OP_FALSE, false, NULL, 0, out);
        if ((rc = boundary_atom(bd, col, pos, FLT_OP_GE, v, &a)) ||
            (rc = boundary_atom(bd, col, pos, FLT_OP_LT, n, &b)))
            return rc;
        return flt_pair(bd, FLT_N_AND, a, b, out);
    default: /* NE: a null stays unknown, every other value differs from a non-boundary */
        if (!edge) return flt_atom(bd, col, pos, FLT_OP_IS_NOT_NULL, false, NULL, 0, out);
        if ((rc = boundary_atom(bd, col, pos, FLT_OP_LT, v, &a)) ||
            (rc = boundary_atom(bd, col, pos, FLT_OP_GE, n, &b)))
            return rc;
        return flt_pair(bd, FLT_N_OR, a, b, out);
    }
}
