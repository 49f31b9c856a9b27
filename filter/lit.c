/* filter/lit.c: typing literals from the column (expr.h invariant 3): numbers parsed exactly,
 * integer ranges, decimals and timestamps rounded per operator, dates, INT96 timestamps, UUIDs.
 *
 * Invariants:
 *  1. Numbers are parsed exactly as mant * 10^exp10 (their first 38 significant digits, a
 *     sticky flag for any nonzero digit past them, |exp10| <= 400) and never go through
 *     binary floating point, except for FLOAT/DOUBLE columns (strtod, correctly rounded;
 *     strtof for a FLOAT column and a literal without exponent, as DuckDB casts it). A
 *     literal past +-10^38 at the column's scale lies beyond every column's values.
 *  2. Rounding: a literal v becomes q = floor(v * 10^scale) and a flag exact. When v is not
 *     exact in the domain, q < v*10^s < q+1, so for an integer x:
 *       x = v  never;  x != v  always (non-null);  x < v and x <= v  <=>  x <= q;
 *       x > v and x >= v  <=>  x >= q+1;  BETWEEN lo AND hi  <=>  ceil(lo) <= x <= floor(hi);
 *       IN drops inexact entries (FALSE when none is left).
 *     Plain integer columns are decimals of scale 0 (`int_col > 5.5` is exact too);
 *     timestamps are nanoseconds rounded to the column's unit the same way.
 *  3. The range check runs after rounding, on the value actually stored; a value outside an
 *     integer-like column's range settles the comparison as DuckDB's wider compare does
 *     (x = v never, x != v always, x < v always or never by the side it lies on; BETWEEN
 *     clamped to the range; IN drops it), so `u64 > -1` keeps every non-null row. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/icu_dl.h"
#include "filter/cast.h"
#include "filter/expr.h"
#include "filter/prune.h"

typedef __int128 i128;

/* ---- numbers: value = mant * 10^exp10, exact ------------------------------------------- */

enum { NUM_MAX_DIGITS = 38, NUM_MAX_EXP = 400 };

static int digits_at(const char **p, int64_t max, int64_t *v)
{
    int n = 0;
    *v = 0;
    while (**p >= '0' && **p <= '9' && n < 18) *v = *v * 10 + (*(*p)++ - '0'), n++;
    return n > 0 && *v <= max ? n : -1;
}

/* s as mant * 10^exp10 from its first 38 significant digits; *sticky: a digit past them is
 * not 0 (the value's magnitude then lies strictly between |mant| and |mant| + 1 at 10^exp10).
 * False when s is no number or its exponent is past NUM_MAX_EXP. */
static bool num_parse(const char *s, i128 *mant, int *exp10, bool *sticky)
{
    bool neg = false;
    int nd = 0, e = 0;
    i128 m = 0;
    *sticky = false;
    if (*s == '-' || *s == '+') neg = *s++ == '-';
    bool any = false, dot = false;
    for (;; s++) {
        if (*s == '.' && !dot) { dot = true; continue; }
        if (*s < '0' || *s > '9') break;
        any = true;
        if (m == 0 && *s == '0') { e -= dot; continue; } /* leading zeros */
        if (nd == NUM_MAX_DIGITS) { /* past 38 digits: dropped, their place kept */
            *sticky |= *s != '0';
            e += !dot;
            if (e > NUM_MAX_EXP) return false; /* (bounds the walk of a long integer part) */
            continue;
        }
        m = m * 10 + (*s - '0');
        nd++;
        e -= dot;
    }
    if (!any) return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        bool en = false;
        if (*s == '-' || *s == '+') en = *s++ == '-';
        int64_t x;
        if (digits_at(&s, NUM_MAX_EXP, &x) < 0) return false;
        e += en ? -(int)x : (int)x;
    }
    if (*s != 0 || e < -NUM_MAX_EXP || e > NUM_MAX_EXP) return false;
    *mant = neg ? -m : m;
    *exp10 = e;
    return true;
}

/* Exactly two digits at *p, at most max: *v, *p past them. */
static bool two_digits(const char **p, int64_t max, int64_t *v)
{
    const char *s = *p;
    if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9') return false;
    *v = (s[0] - '0') * 10 + (s[1] - '0');
    *p = s + 2;
    return *v <= max;
}

bool flt_num_parse(const char *s, __int128 *mant, int *exp10)
{
    bool sticky;
    return num_parse(s, mant, exp10, &sticky) && !sticky;
}

/* q = floor((mant + sticky part) * 10^(exp10 + scale)) (num_parse), saturated to
 * +-(10^38 + 1), inexact, past +-10^38 (returns false then): beyond the values of every
 * column of at most 38 digits (an integer, a DECIMAL(p <= 38)), so the comparison settles as
 * any value past the range does (invariant 3): `x < 1e40` keeps every row, as DuckDB's
 * compare in doubles does. A wider decimal's values reach past it: the caller refuses. */
static bool scale_floor(i128 mant, int exp10, bool sticky, int scale, i128 *q, bool *exact)
{
    int k = exp10 + scale;
    i128 lim = 1;
    for (int i = 0; i < NUM_MAX_DIGITS; i++) lim *= 10;
    bool neg = mant < 0;
    i128 mag = neg ? -mant : mant;
    if (k >= 0) {
        for (int i = 0; i < k && mag <= lim; i++) /* (10 * 10^38 overflows i128) */
            mag = mag > lim / 10 ? lim + 1 : mag * 10;
        if (mag > lim || (sticky && k > 0)) { /* (a sticky part scaled up: past 10^38 too) */
            *q = neg ? -lim - 2 : lim + 1, *exact = false;
            return false;
        }
        *q = neg ? -mag - sticky : mag, *exact = !sticky;
        return true;
    }
    if (-k > NUM_MAX_DIGITS) {
        *q = neg ? -1 : 0, *exact = mag == 0 && !sticky;
        return true;
    }
    i128 d = 1;
    for (int i = 0; i < -k; i++) d *= 10;
    i128 r = mag % d, f = mag / d;
    bool frac = r != 0 || sticky; /* (mant + a sticky part never lands on a multiple of d) */
    *q = neg ? -f - frac : f, *exact = !frac;
    return true;
}

/* ---- timestamps: 'YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,9}]]][Z|(+|-)HH[[:]MM]]' -> nanoseconds -- */

/* 'HH:MM[:SS[.f{1,9}]]' (or 24:00[:00[.0]], the day's end) at *p: *sec its seconds since
 * midnight, *frac the nanoseconds past them, *p past it; false when it is not one. */
static bool clock_at(const char **p, int64_t *sec, int64_t *frac)
{
    const char *s = *p;
    int64_t h, mi, ss = 0, f = 0;
    if (!two_digits(&s, 24, &h) || *s++ != ':' || !two_digits(&s, 59, &mi)) return false;
    if (*s == ':') {
        s++;
        if (!two_digits(&s, 59, &ss)) return false;
        if (*s == '.') {
            s++;
            int n = 0;
            while (*s >= '0' && *s <= '9' && n < 9) f = f * 10 + (*s++ - '0'), n++;
            if (n == 0 || (*s >= '0' && *s <= '9')) return false;
            for (; n < 9; n++) f *= 10;
        }
    }
    *sec = h * 3600 + mi * 60 + ss, *frac = f, *p = s;
    return h < 24 || (*sec == 86400 && f == 0); /* (as DuckDB reads it) */
}

bool flt_timestamp_parse(const char *s, bool date_only, __int128 *nanos)
{
    int64_t y, mo, d, sec = 0, frac = 0, days;
    bool neg = *s == '-';
    s += neg;
    if (digits_at(&s, 9999, &y) != 4 || *s++ != '-') return false;
    if (digits_at(&s, 12, &mo) != 2 || *s++ != '-') return false;
    if (digits_at(&s, 31, &d) != 2) return false;
    if (!flt_days_from_civil(neg ? -y : y, mo, d, &days)) return false;
    if (!date_only && (*s == ' ' || *s == 'T')) {
        s++;
        if (!clock_at(&s, &sec, &frac)) return false;
        int64_t off = 0, oh, om;
        if (*s == 'Z') {
            s++;
        } else if (*s == '+' || *s == '-') {
            int sign = *s++ == '-' ? -1 : 1; /* +HH, +HHMM or +HH:MM (PostgreSQL prints +HH) */
            if (!two_digits(&s, 23, &oh)) return false;
            om = 0;
            bool colon = *s == ':';
            s += colon;
            if ((colon || (*s >= '0' && *s <= '9')) && !two_digits(&s, 59, &om)) return false;
            off = sign * (oh * 3600 + om * 60);
        }
        sec -= off;
    }
    if (*s != 0) return false;
    *nanos = ((i128)days * 86400 + sec) * 1000000000 + frac;
    return true;
}

/* ---- literal typing -------------------------------------------------------------------- */

typedef struct typed {
    i128 q;     /* integer-like domains: floor of the scaled value */
    bool exact; /* q equals the literal exactly */
    double f;
    const uint8_t *b;
    int32_t len;
} typed;

static const char *kind_name(flt_tok_kind k)
{
    static const char *n[] = {"number", "string", "date", "timestamp", "boolean"};
    return n[k];
}

static int mismatch(const pq_column_desc *d, const flt_raw_lit *r, pq_err *e)
{
    return pq_errf(e, RINGSCAN_EPARSE, r->pos, "cannot compare %s column '%s' with %s",
                   d->logical == PQ_LOGICAL_NONE ? flt_physical_name(d->physical)
                                                 : pq_logical_name(d->logical),
                   d->name, kind_name(r->kind)); /* (TIME_MICROS, not its INT64) */
}

static bool is_timestamp(pq_logical l)
{
    return l == PQ_LOGICAL_TIMESTAMP_MILLIS || l == PQ_LOGICAL_TIMESTAMP_MICROS ||
           l == PQ_LOGICAL_TIMESTAMP_NANOS;
}

static int ts_scale(pq_logical l)
{
    return l == PQ_LOGICAL_TIMESTAMP_MILLIS ? 3 : l == PQ_LOGICAL_TIMESTAMP_MICROS ? 6 : 9;
}

/* A DATE column's literal as DuckDB types it: a date; a string holding a timestamp is cast
 * to DATE, its time (and zone) dropped ('1970-01-01 12:00' is 1970-01-01); a TIMESTAMP
 * compares with the date's midnight, so a time past it is an inexact day (invariant 2:
 * d < TIMESTAMP '1970-01-01 12:00' keeps 1970-01-01). Both were refused. */
static int type_date(const pq_column_desc *d, const flt_raw_lit *r, typed *t, pq_err *e)
{
    const i128 day = (i128)86400 * 1000000000;
    i128 ns;
    if (r->kind != FLT_LIT_DATE && r->kind != FLT_LIT_STRING && r->kind != FLT_LIT_TIMESTAMP)
        return mismatch(d, r, e);
    bool ok = flt_timestamp_parse(r->text, true, &ns);
    if (!ok && r->kind != FLT_LIT_DATE && flt_timestamp_parse(r->text, false, &ns)) {
        ok = true;
        if (r->kind == FLT_LIT_STRING) { /* the date before the time, as written */
            char date[32];
            size_t n = strcspn(r->text, " T");
            ok = n < sizeof date;
            if (ok) memcpy(date, r->text, n), date[n] = 0;
            ok = ok && flt_timestamp_parse(date, true, &ns);
        }
    }
    if (!ok)
        return pq_errf(e, RINGSCAN_EPARSE, r->pos, "invalid date '%s' at character %d",
                       r->text, r->pos);
    i128 q = ns / day, rem = ns % day;
    if (rem < 0) q -= 1, rem += day; /* floor */
    t->q = q, t->exact = rem == 0;
    return 0;
}

/* 'HH:MM[:SS[.f{1,9}]]' -> nanoseconds since midnight; false when it is not one. */
static bool time_parse(const char *s, i128 *ns)
{
    int64_t sec, frac;
    if (!clock_at(&s, &sec, &frac) || *s != 0) return false;
    *ns = (i128)sec * 1000000000 + frac;
    return true;
}

static int time_scale(pq_logical l)
{
    return l == PQ_LOGICAL_TIME_MILLIS ? 3 : l == PQ_LOGICAL_TIME_MICROS ? 6
         : l == PQ_LOGICAL_TIME_NANOS  ? 9 : -1;
}

static void int_range(const pq_column_desc *d, flt_domain dom, i128 *lo, i128 *hi);

/* A string literal DuckDB's cast from VARCHAR to the column's type refuses (filter/cast.h). */
static int not_converted(const pq_column_desc *d, const flt_raw_lit *r, pq_err *e)
{
    return pq_errf(e, RINGSCAN_EPARSE, r->pos, "cannot convert string '%s' to %s for column "
                   "'%s' at character %d", r->text, d->logical == PQ_LOGICAL_NONE
                   ? flt_physical_name(d->physical) : pq_logical_name(d->logical), d->name, r->pos);
}

/* Whether r's text is what the casts read: NUL-terminated where it ends, short enough. */
static bool castable(const flt_raw_lit *r)
{
    return r->len < FLT_CAST_MAX && strlen(r->text) == (size_t)r->len;
}

/* A string literal against a boolean, integer or decimal column, as DuckDB compares one:
 * cast to the column's type ('5' is 5, '5.5' into an integer rounds to 6, '300' fails for
 * an INT8), so the value is exact (invariant 2) and in range (invariant 3). */
static int int_text(const pq_column_desc *d, flt_domain dom, const flt_raw_lit *r, typed *t,
                    pq_err *e)
{
    i128 lo, hi;
    int_range(d, dom, &lo, &hi);
    bool dec = d->logical == PQ_LOGICAL_DECIMAL;
    bool ok = castable(r) && (dom == FLT_DOM_BOOL ? flt_cast_bool(r->text, &t->q)
                              : flt_cast_number(r->text, dec ? d->decimal_precision : 0,
                                                dec ? d->decimal_scale : 0, lo, hi, &t->q));
    t->exact = true;
    return ok ? 0 : not_converted(d, r, e);
}

/* A host's double that is no number's text (scan/api_expr.c ringscan_expr_double): "nan",
 * "inf" or "-inf" into *f; false for any other text. */
static bool host_special(const flt_raw_lit *r, double *f)
{
    if (r->kind != FLT_LIT_NUMBER) return false;
    if (strcmp(r->text, "nan") == 0) return *f = NAN, true;
    if (strcmp(r->text, "inf") == 0 || strcmp(r->text, "-inf") == 0)
        return *f = r->text[0] == '-' ? -INFINITY : INFINITY, true;
    return false;
}

/* Integer-like domains (I32/U32/I64/U64/SDEC/BOOL): fills t->q/t->exact. */
static int type_intlike(const pq_column_desc *d, flt_domain dom, const flt_raw_lit *r,
                        typed *t, pq_err *e)
{
    i128 ns;
    if (dom == FLT_DOM_BOOL) {
        if (r->kind == FLT_LIT_STRING) return int_text(d, dom, r, t, e);
        if (r->kind != FLT_LIT_BOOL) return mismatch(d, r, e);
        t->q = r->text[0] == 't' || r->text[0] == 'T', t->exact = true;
        return 0;
    }
    if (d->logical == PQ_LOGICAL_DATE)
        return type_date(d, r, t, e);
    if (is_timestamp(d->logical)) {
        if (r->kind == FLT_LIT_NUMBER || r->kind == FLT_LIT_BOOL) return mismatch(d, r, e);
        if (!flt_timestamp_parse(r->text, false, &ns))
            return pq_errf(e, RINGSCAN_EPARSE, r->pos,
                           "invalid timestamp '%s' at character %d", r->text, r->pos);
        (void)scale_floor(ns, -9, false, ts_scale(d->logical), &t->q, &t->exact);
        return 0;
    }
    if (time_scale(d->logical) > 0 && r->kind == FLT_LIT_STRING) { /* t < '12:30' (refused) */
        if (!time_parse(r->text, &ns))
            return pq_errf(e, RINGSCAN_EPARSE, r->pos, "invalid time '%s' at character %d",
                           r->text, r->pos);
        (void)scale_floor(ns, -9, false, time_scale(d->logical), &t->q, &t->exact);
        return 0;
    }
    if (r->kind == FLT_LIT_STRING) return int_text(d, dom, r, t, e);
    if (r->kind != FLT_LIT_NUMBER) return mismatch(d, r, e);
    double f;
    if (host_special(r, &f)) { /* compared as doubles (DuckDB): past every value, NaN above */
        t->q = f < 0 ? -(i128)(~(unsigned __int128)0 >> 1) : (i128)(~(unsigned __int128)0 >> 1);
        t->exact = true; /* (out of range: invariant 3 settles it) */
        return 0;
    }
    i128 m;
    int x;
    bool sticky;
    int scale = d->logical == PQ_LOGICAL_DECIMAL ? d->decimal_scale : 0;
    if (!num_parse(r->text, &m, &x, &sticky))
        return pq_errf(e, RINGSCAN_EPARSE, r->pos,
                       "invalid or too large number '%s' at character %d", r->text, r->pos);
    bool wide = d->logical == PQ_LOGICAL_DECIMAL && d->decimal_precision > NUM_MAX_DIGITS;
    if (!scale_floor(m, x, sticky, scale, &t->q, &t->exact) && wide) /* (its values pass 10^38) */
        return pq_errf(e, RINGSCAN_EPARSE, r->pos,
                       "invalid or too large number '%s' at character %d", r->text, r->pos);
    return 0;
}

static void int_range(const pq_column_desc *d, flt_domain dom, i128 *lo, i128 *hi)
{
    switch (d->logical) {
    case PQ_LOGICAL_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return;
    case PQ_LOGICAL_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return;
    case PQ_LOGICAL_UINT8: *lo = 0, *hi = UINT8_MAX; return;
    case PQ_LOGICAL_UINT16: *lo = 0, *hi = UINT16_MAX; return;
    default: break;
    }
    switch (dom) {
    case FLT_DOM_BOOL: *lo = 0, *hi = 1; return;
    case FLT_DOM_I32: *lo = INT32_MIN, *hi = INT32_MAX; return;
    case FLT_DOM_U32: *lo = 0, *hi = UINT32_MAX; return;
    case FLT_DOM_I64: *lo = INT64_MIN, *hi = INT64_MAX; return;
    case FLT_DOM_U64: *lo = 0, *hi = UINT64_MAX; return;
    default: break;
    }
    /* SDEC: FLBA width bounds it; BYTE_ARRAY only by the 38 digits of the parser */
    int bytes = d->physical == PQ_FIXED_LEN_BYTE_ARRAY ? d->type_length : 16;
    if (bytes >= 16) {
        *hi = (i128)(~(unsigned __int128)0 >> 1), *lo = -*hi - 1;
    } else {
        *hi = ((i128)1 << (8 * bytes - 1)) - 1, *lo = -*hi - 1;
    }
}

/* Stores q into l for the domain (range already checked). */
static int store_int(struct flt_arena **a, flt_domain dom, i128 q, flt_lit *l)
{
    if (dom != FLT_DOM_SDEC) {
        l->i = dom == FLT_DOM_U64 ? (int64_t)(uint64_t)q : (int64_t)q;
        return 0;
    }
    uint8_t *b = flt_arena_alloc(a, 16);
    if (!b) return -ENOMEM;
    unsigned __int128 u = (unsigned __int128)q;
    for (int i = 15; i >= 0; i--) b[i] = (uint8_t)u, u >>= 8;
    l->b = b, l->len = 16;
    return 0;
}

/* A string literal's bytes, copied into the filter's arena: the raw literal's text belongs to
 * its source (the caller's filter text or expression tree), which need not outlive the scan's
 * start (ringscan.h), while the typed literal lives as long as the filter. */
static int copy_bytes(struct flt_arena **a, const flt_raw_lit *r, typed *t)
{
    assert(r->len >= 0);
    uint8_t *b = flt_arena_alloc(a, (size_t)r->len + 1);
    if (!b) return -ENOMEM;
    memcpy(b, r->text, (size_t)r->len);
    b[r->len] = 0;
    t->b = b, t->len = r->len;
    return 0;
}

/* 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx' (hyphens optional) -> 16 bytes. */
static int parse_uuid(struct flt_arena **a, const flt_raw_lit *r, typed *t, pq_err *e)
{
    uint8_t *b = flt_arena_alloc(a, 16);
    if (!b) return -ENOMEM;
    int nib = 0;
    for (const char *s = r->text; *s; s++) {
        int v = *s >= '0' && *s <= '9'   ? *s - '0'
                : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
                                         : -1;
        if (*s == '-') continue;
        if (v < 0 || nib == 32) nib = 33;
        if (nib >= 32) break;
        b[nib / 2] = (uint8_t)(b[nib / 2] << 4 | v), nib++;
    }
    if (nib != 32)
        return pq_errf(e, RINGSCAN_EPARSE, r->pos, "invalid UUID '%s' at character %d", r->text,
                       r->pos);
    t->b = b, t->len = 16;
    return 0;
}

/* Whether number text s is a DOUBLE in DuckDB's typing: an exponent, or more digits than a
 * DECIMAL holds (38; the integer part's leading zeros not counted). */
static bool double_text(const char *s)
{
    if (strpbrk(s, "eE")) return true;
    int n = 0;
    bool lead = true;
    for (; *s; s++) {
        if (*s == '.') lead = false;
        if (*s < '0' || *s > '9' || (lead && *s == '0')) continue;
        lead = false, n++;
    }
    return n > NUM_MAX_DIGITS;
}

static int type_one(struct flt_arena **a, const pq_column_desc *d, flt_domain dom,
                    const flt_raw_lit *r, typed *t, pq_err *e)
{
    memset(t, 0, sizeof *t);
    t->exact = true;
    switch (dom) {
    case FLT_DOM_F32:
    case FLT_DOM_F64: {
        if (r->kind == FLT_LIT_STRING) /* ('nan', 'inf', '1.5': DuckDB's cast to the type) */
            return castable(r) && flt_cast_real(r->text, dom == FLT_DOM_F32, &t->f)
                   ? 0 : not_converted(d, r, e);
        if (r->kind != FLT_LIT_NUMBER) return mismatch(d, r, e);
        if (host_special(r, &t->f)) return 0;
        i128 m;
        int x;
        bool sticky; /* (digits past 38 only round: strtod reads them all) */
        if (!num_parse(r->text, &m, &x, &sticky))
            return pq_errf(e, RINGSCAN_EPARSE, r->pos, "invalid number '%s' at character %d",
                           r->text, r->pos);
        /* DuckDB's types: an integer or decimal literal against a FLOAT column is cast to
         * FLOAT, so the value a FLOAT prints as (0.14285715) finds it; a DOUBLE one (an
         * exponent, or past 38 digits) compares with the column in doubles */
        t->f = dom == FLT_DOM_F32 && !double_text(r->text) ? (double)strtof(r->text, NULL)
                                                           : strtod(r->text, NULL);
        return 0;
    }
    case FLT_DOM_BYTES:
        if (r->kind != FLT_LIT_STRING) return mismatch(d, r, e);
        if (d->logical == PQ_LOGICAL_UUID) return parse_uuid(a, r, t, e);
        return copy_bytes(a, r, t);
    case FLT_DOM_INT96: {
        i128 ns;
        if (r->kind != FLT_LIT_TIMESTAMP && r->kind != FLT_LIT_STRING && r->kind != FLT_LIT_DATE)
            return mismatch(d, r, e); /* a DATE: its midnight, as for INT64 timestamps */
        if (!flt_timestamp_parse(r->text, false, &ns))
            return pq_errf(e, RINGSCAN_EPARSE, r->pos,
                           "invalid timestamp '%s' at character %d", r->text, r->pos);
        i128 day = ns / ((i128)86400000000000), nod = ns % ((i128)86400000000000);
        if (nod < 0) nod += (i128)86400000000000, day -= 1;
        uint8_t *b = flt_arena_alloc(a, 12);
        if (!b) return -ENOMEM;
        uint64_t n64 = (uint64_t)nod;
        uint32_t jd = (uint32_t)(day + 2440588);
        memcpy(b, &n64, 8), memcpy(b + 8, &jd, 4); /* little-endian host */
        t->b = b, t->len = 12;
        return 0;
    }
    default: {
        int rc = type_intlike(d, dom, r, t, e);
        if (rc) return rc;
        return 0;
    }
    }
}

static bool intlike(flt_domain dom)
{
    return dom == FLT_DOM_BOOL || dom == FLT_DOM_I32 || dom == FLT_DOM_U32 ||
           dom == FLT_DOM_I64 || dom == FLT_DOM_U64 || dom == FLT_DOM_SDEC;
}

/* Whether q is a value an integer-like column d can hold (int_range). A q outside lies below
 * the range exactly when it is negative: every range holds 0. */
static bool in_range(const pq_column_desc *d, flt_domain dom, i128 q)
{
    i128 lo, hi;
    int_range(d, dom, &lo, &hi);
    assert(lo <= 0 && hi >= 0);
    return q >= lo && q <= hi;
}

/* Stores a typed literal: an integer-like one as q, which the caller settled as in range
 * (invariant 3). */
static int store_typed(struct flt_arena **a, const pq_column_desc *d, flt_domain dom,
                       const typed *t, i128 q, flt_lit *l)
{
    if (intlike(dom)) {
        assert(in_range(d, dom, q));
        return store_int(a, dom, q, l);
    }
    l->f = t->f, l->b = t->b, l->len = t->len;
    return 0;
}

static bool is_nan(flt_domain dom, const typed *v)
{
    return (dom == FLT_DOM_F32 || dom == FLT_DOM_F64) && v->f != v->f;
}

/* t becomes x op f (one F32/F64 literal). */
static int one_real(struct flt_arena **a, flt_op op, double f, flt_term *t)
{
    t->op = op, t->nlits = 1;
    t->lits = flt_arena_alloc(a, sizeof *t->lits);
    if (!t->lits) return -ENOMEM;
    memset(t->lits, 0, sizeof *t->lits);
    t->lits[0].f = f;
    return 0;
}

/* x op NaN (a 'nan' string literal) as a term the kernels and pruning know: NaN equals NaN
 * and is above every number (DuckDB's order, kernel.h invariant 2), so x = NaN and x >= NaN
 * hold for the NaN rows (x > +inf), x < NaN and x != NaN for the others (x <= +inf), x <= NaN
 * for every non-null row and x > NaN for none. */
static int nan_cmp(struct flt_arena **a, flt_op op, flt_term *t)
{
    t->nan = false;
    switch (op) {
    case FLT_OP_GT: t->op = FLT_OP_FALSE, t->nlits = 0; return 0;
    case FLT_OP_LE: t->op = FLT_OP_IS_NOT_NULL, t->nlits = 0; return 0;
    case FLT_OP_EQ: case FLT_OP_GE: return one_real(a, FLT_OP_GT, INFINITY, t);
    default: assert(op == FLT_OP_LT || op == FLT_OP_NE); return one_real(a, FLT_OP_LE, INFINITY, t);
    }
}

/* One-literal comparison: rewrite per the rounding rules in the file header. */
static int type_cmp(struct flt_arena **a, const pq_column_desc *d, flt_domain dom, flt_op op,
                    const flt_raw_lit *r, flt_term *t, pq_err *e)
{
    typed v;
    int rc = type_one(a, d, dom, r, &v, e);
    if (rc) return rc;
    if (is_nan(dom, &v)) return nan_cmp(a, op, t);
    i128 q = v.q;
    if (!v.exact) {
        switch (op) {
        case FLT_OP_EQ: t->op = FLT_OP_FALSE, t->nlits = 0; return 0;
        case FLT_OP_NE: t->op = FLT_OP_IS_NOT_NULL, t->nlits = 0; return 0;
        case FLT_OP_LT: case FLT_OP_LE: op = FLT_OP_LE; break;
        case FLT_OP_GT: case FLT_OP_GE: op = FLT_OP_GE, q += 1; break;
        default: assert(0);
        }
    }
    if (intlike(dom) && !in_range(d, dom, q)) { /* settled for every value, as DuckDB answers */
        bool below = q < 0, up = op == FLT_OP_GT || op == FLT_OP_GE;
        bool all = op == FLT_OP_NE || (op != FLT_OP_EQ && below == up);
        t->op = all ? FLT_OP_IS_NOT_NULL : FLT_OP_FALSE, t->nlits = 0;
        return 0;
    }
    t->op = op, t->nlits = 1;
    t->lits = flt_arena_alloc(a, sizeof *t->lits);
    if (!t->lits) return -ENOMEM;
    return store_typed(a, d, dom, &v, q, &t->lits[0]);
}

static int type_between(struct flt_arena **a, const pq_column_desc *d, flt_domain dom,
                        const flt_raw_lit *raw, flt_term *t, pq_err *e)
{
    typed lo, hi;
    int rc = type_one(a, d, dom, &raw[0], &lo, e);
    if (!rc) rc = type_one(a, d, dom, &raw[1], &hi, e);
    if (rc) return rc;
    if (is_nan(dom, &lo)) /* NaN <= x only for x NaN, which is <= hi only when hi is NaN */
        return is_nan(dom, &hi) ? nan_cmp(a, FLT_OP_EQ, t) : (t->op = FLT_OP_FALSE, 0);
    if (is_nan(dom, &hi)) return one_real(a, FLT_OP_GE, lo.f, t); /* (x <= NaN: any x) */
    i128 qlo = lo.exact ? lo.q : lo.q + 1, qhi = hi.q;
    if (intlike(dom)) { /* bounds past the column's range clamped to it (DuckDB's answer) */
        i128 rlo, rhi;
        int_range(d, dom, &rlo, &rhi);
        qlo = qlo < rlo ? rlo : qlo, qhi = qhi > rhi ? rhi : qhi;
        if (qlo > qhi) {
            t->op = FLT_OP_FALSE, t->nlits = 0;
            return 0;
        }
    }
    t->op = FLT_OP_BETWEEN, t->nlits = 2;
    t->lits = flt_arena_alloc(a, 2 * sizeof *t->lits);
    if (!t->lits) return -ENOMEM;
    rc = store_typed(a, d, dom, &lo, qlo, &t->lits[0]);
    if (!rc) rc = store_typed(a, d, dom, &hi, qhi, &t->lits[1]);
    return rc;
}

static int lit_order(const void *a, const void *b, void *dom)
{
    return flt_lit_cmp(*(const flt_domain *)dom, a, b);
}

/* The list in the domain's order without repeats (what --explain shows; the kernels and
 * pruning give the same answer for any order). */
static void sort_unique(flt_domain dom, flt_term *t)
{
    if (t->nlits < 2) return;
    qsort_r(t->lits, (size_t)t->nlits, sizeof *t->lits, lit_order, &dom);
    int32_t n = 1;
    for (int32_t i = 1; i < t->nlits; i++)
        if (flt_lit_cmp(dom, &t->lits[n - 1], &t->lits[i]) != 0) t->lits[n++] = t->lits[i];
    t->nlits = n;
}

/* IN or NOT_IN (op): literals no value of the column can equal are dropped; an empty list
 * leaves FALSE (IN) or IS NOT NULL (NOT IN). */
static int type_in(struct flt_arena **a, const pq_column_desc *d, flt_domain dom, flt_op op,
                   const flt_raw_lit *raw, int32_t nraw, flt_term *t, pq_err *e)
{
    t->op = op, t->nlits = 0;
    t->lits = flt_arena_alloc(a, (size_t)nraw * sizeof *t->lits);
    if (!t->lits) return -ENOMEM;
    for (int32_t i = 0; i < nraw; i++) {
        typed v;
        int rc = type_one(a, d, dom, &raw[i], &v, e);
        if (rc) return rc;
        if (is_nan(dom, &v)) t->nan = true; /* (kept out of the sorted list: expr.h 5) */
        if (is_nan(dom, &v) || !v.exact || (intlike(dom) && !in_range(d, dom, v.q)))
            continue; /* cannot equal any value of the column */
        rc = store_typed(a, d, dom, &v, v.q, &t->lits[t->nlits]);
        if (rc) return rc;
        t->nlits++;
    }
    if (t->nlits == 0 && t->nan) return nan_cmp(a, op == FLT_OP_IN ? FLT_OP_EQ : FLT_OP_NE, t);
    if (t->nlits == 0) t->op = op == FLT_OP_IN ? FLT_OP_FALSE : FLT_OP_IS_NOT_NULL;
    sort_unique(dom, t);
    return 0;
}

static flt_lit arena_bytes(struct flt_arena **a, int32_t n)
{
    flt_lit l = {.b = flt_arena_alloc(a, (size_t)n + 1), .len = n};
    return l;
}

/* The pattern's characters and kinds (expr.h invariant 7) with the escape (esc >= 0)
 * resolved; fills lits[1], lits[2] and lits[0] (the fixed head). */
static int like_compile(struct flt_arena **a, const flt_raw_lit *pat, int esc, flt_lit lits[3],
                        pq_err *e)
{
    lits[1] = arena_bytes(a, pat->len), lits[2] = arena_bytes(a, pat->len);
    if (!lits[1].b || !lits[2].b) return -ENOMEM;
    uint8_t *c = (uint8_t *)lits[1].b, *k = (uint8_t *)lits[2].b;
    int32_t n = 0, head = -1;
    for (int32_t i = 0; i < pat->len; i++, n++) {
        uint8_t ch = (uint8_t)pat->text[i];
        k[n] = ch == '%' ? FLT_LIKE_ANY : ch == '_' ? FLT_LIKE_ONE : FLT_LIKE_CHAR;
        if (esc >= 0 && ch == (uint8_t)esc) {
            if (++i == pat->len)
                return pq_errf(e, RINGSCAN_EPARSE, pat->pos,
                               "LIKE pattern ends with its escape character at character %d",
                               pat->pos);
            ch = (uint8_t)pat->text[i], k[n] = FLT_LIKE_CHAR;
        }
        c[n] = ch;
        if (head < 0 && k[n] != FLT_LIKE_CHAR) head = n;
    }
    lits[1].len = lits[2].len = n;
    lits[0].b = c, lits[0].len = head < 0 ? n : head;
    return 0;
}

/* True when every kind after the head is `%` (a pattern `head%...%`). */
static bool like_is_prefix(const flt_lit lits[3])
{
    for (int32_t i = lits[0].len; i < lits[2].len; i++)
        if (lits[2].b[i] != FLT_LIKE_ANY) return false;
    return lits[0].len < lits[2].len;
}

/* [NOT] LIKE raw[0] [ESCAPE raw[1]]; case-insensitive when icase. Patterns that are plain
 * text become = / !=, `head%` (case-sensitive LIKE) becomes PREFIX, and `%` alone IS NOT
 * NULL / FALSE, so the kernels' fast paths and pruning see them. */
static int type_like(struct flt_arena **a, const pq_column_desc *d, flt_domain dom, flt_op op,
                     bool icase, const flt_raw_lit *raw, int32_t nraw, flt_term *t, pq_err *e)
{
    if (dom != FLT_DOM_BYTES || raw[0].kind != FLT_LIT_STRING)
        return pq_errf(e, RINGSCAN_EPARSE, raw[0].pos, "LIKE needs a string column; '%s' is %s",
                       d->name, flt_physical_name(d->physical));
    int esc = -1;
    if (nraw == 2) {
        if (raw[1].kind != FLT_LIT_STRING || raw[1].len != 1)
            return pq_errf(e, RINGSCAN_EPARSE, raw[1].pos,
                           "ESCAPE takes one character at character %d", raw[1].pos);
        esc = (uint8_t)raw[1].text[0];
    }
    if (icase && !icu_dl()) /* its case mapping outside ASCII (filter/like.c) */
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, raw[0].pos, "ILIKE on '%s' needs ICU: %s",
                       d->name, icu_dl_error());
    t->lits = flt_arena_alloc(a, 3 * sizeof *t->lits);
    if (!t->lits) return -ENOMEM;
    int rc = like_compile(a, &raw[0], esc, t->lits, e);
    if (rc) return rc;
    bool neg = op == FLT_OP_NOT_LIKE, plain = t->lits[0].len == t->lits[2].len;
    if (like_is_prefix(t->lits) && t->lits[0].len == 0) { /* only `%`s */
        t->op = neg ? FLT_OP_FALSE : FLT_OP_IS_NOT_NULL, t->nlits = 0;
    } else if (plain && !icase) {
        t->op = neg ? FLT_OP_NE : FLT_OP_EQ, t->nlits = 1;
    } else if (like_is_prefix(t->lits) && !icase && !neg) {
        t->op = FLT_OP_PREFIX, t->nlits = 1;
    } else {
        t->op = op, t->icase = icase, t->nlits = 3;
    }
    return 0;
}

int flt_type_term(struct flt_arena **a, const pq_column_desc *d, flt_domain dom, flt_op op,
                  bool icase, const flt_raw_lit *raw, int32_t nraw, flt_term *t, pq_err *e)
{
    assert(a && d && t && nraw >= 0 && nraw <= FLT_MAX_TERMS);
    memset(t, 0, sizeof *t);
    int32_t nulls = 0, kept = 0; /* NULL literals: a comparison with one is unknown (no row) */
    for (int32_t k = 0; k < nraw; k++) nulls += raw[k].kind == FLT_LIT_NULL;
    if (nulls && (op != FLT_OP_IN || nulls == nraw)) return t->op = FLT_OP_FALSE, 0;
    flt_raw_lit *known = NULL; /* IN: x = NULL never holds, so NULL entries drop out */
    if (nulls && !(known = flt_arena_alloc(a, (size_t)nraw * sizeof *known))) return -ENOMEM;
    for (int32_t k = 0; nulls && k < nraw; k++)
        if (raw[k].kind != FLT_LIT_NULL) known[kept++] = raw[k];
    if (nulls) raw = known, nraw = kept;
    switch (op) {
    case FLT_OP_IS_NULL:
    case FLT_OP_IS_NOT_NULL:
    case FLT_OP_FALSE:
        assert(nraw == 0);
        t->op = op;
        return 0;
    case FLT_OP_BETWEEN:
        assert(nraw == 2);
        return type_between(a, d, dom, raw, t, e);
    case FLT_OP_IN:
    case FLT_OP_NOT_IN:
        assert(nraw >= 1);
        return type_in(a, d, dom, op, raw, nraw, t, e);
    case FLT_OP_LIKE:
    case FLT_OP_NOT_LIKE:
        assert(nraw == 1 || nraw == 2);
        return type_like(a, d, dom, op, icase, raw, nraw, t, e);
    default:
        assert(nraw == 1 && op <= FLT_OP_GE);
        return type_cmp(a, d, dom, op, raw, t, e);
    }
}

