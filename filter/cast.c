/* filter/cast.c: strings cast to numbers and booleans as DuckDB 2.x casts VARCHAR (filter/cast.h):
 * a filter's string literal compared with a numeric or boolean column (filter/lit.c), and a
 * dataset's later file's strings under a first file's such column (scan/ds_parse.c). No
 * allocation; a string of FLT_CAST_MAX bytes or more does not parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filter/cast.h"

/* s without the spaces around it and the '_' between two digits into out (FLT_CAST_MAX bytes);
 * false for an '_' elsewhere, nothing left or more than out holds. */
static bool clean(const char *s, char *out)
{
    while (flt_cast_space(*s)) s++;
    size_t n = strnlen(s, FLT_CAST_MAX), k = 0;
    if (n == FLT_CAST_MAX) return false; /* (every caller's limit, checked here too) */
    while (n > 0 && flt_cast_space(s[n - 1])) n--;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_' && !(i > 0 && flt_cast_digit(s[i - 1]) && i + 1 < n && flt_cast_digit(s[i + 1]))) return false;
        if (s[i] != '_') out[k++] = s[i];
    }
    out[k] = 0;
    return k > 0;
}

/* A number's text [+|-]digits[.digits][(e|E)[+|-]digits], digits of any count: the value is
 * (neg) digits * 10^exp10, digits without leading zeros, n_int of them before the point. */
typedef struct num_text {
    char digits[FLT_CAST_MAX];
    int n, n_int, exp10;
    bool neg;
} num_text;

/* s (cleaned) into *t; false where DuckDB's cast refuses the syntax (no digit, "." alone, an
 * exponent past an int16's range). */
static bool num_scan(const char *s, num_text *t)
{
    t->n = t->n_int = 0, t->neg = *s == '-'; /* (digits not zeroed: n of them are set) */
    s += *s == '+' || *s == '-';
    bool any = false, dot = false;
    int n_frac = 0;
    for (;; s++) {
        if (*s == '.' && !dot) { dot = true; continue; }
        if (!flt_cast_digit(*s)) break;
        any = true;
        n_frac += dot;
        if (t->n == 0 && *s == '0') continue; /* (a leading zero) */
        t->n_int += !dot;
        t->digits[t->n++] = *s; /* (n < FLT_CAST_MAX: s is shorter) */
    }
    long e = 0;
    if (any && (*s == 'e' || *s == 'E')) {
        bool en = *++s == '-';
        s += *s == '+' || *s == '-';
        if (!flt_cast_digit(*s)) return false;
        for (; flt_cast_digit(*s); s++)
            if ((e = e * 10 + (*s - '0')) > 32768) return false;
        if (e == 32768 && !en) return false;
        e = en ? -e : e;
    }
    t->exp10 = (int)e - n_frac;
    return any && *s == 0;
}

/* t * 10^scale rounded half away from zero (the first digit dropped decides, as DuckDB's
 * cast rounds) into *out, within [lo, hi]. */
static bool scaled(const num_text *t, int scale, __int128 lo, __int128 hi, __int128 *out)
{
    int k = t->exp10 + scale, keep = t->n + (k < 0 ? k : 0);
    if (t->n == 0 || keep < 0) return *out = 0, true; /* (below a tenth of the unit: 0) */
    if (keep + (k > 0 ? k : 0) > 38) return false; /* (10^38 or more: above any hi) */
    unsigned __int128 m = 0;
    for (int i = 0; i < keep; i++) m = m * 10 + (unsigned)(t->digits[i] - '0');
    for (int i = 0; i < k; i++) m *= 10;
    m += keep < t->n && t->digits[keep] >= '5';
    __int128 y = t->neg ? -(__int128)m : (__int128)m;
    if (m > (unsigned __int128)hi + 1 || y < lo || y > hi) return false;
    *out = y;
    return true;
}

static int base_digit(char c, int base)
{
    int d = flt_cast_digit(c) ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : 99;
    return d < base ? d : -1;
}

/* "0x..." or "0b..." digits (s without its leading spaces: DuckDB refuses one after them),
 * an '_' between two digits dropped, into *out, at most 2^64 - 1. */
static bool based(const char *s, __int128 *out)
{
    int base = s[1] == 'x' || s[1] == 'X' ? 16 : 2;
    unsigned __int128 x = 0;
    for (s += 2; *s; s++) {
        if (*s == '_' && base_digit(s[-1], base) >= 0 && base_digit(s[1], base) >= 0) continue;
        int d = base_digit(*s, base);
        if (d < 0 || (x = x * (unsigned)base + (unsigned)d) > UINT64_MAX) return false;
    }
    *out = (__int128)x;
    return base_digit(s[-1], base) >= 0;
}

bool flt_cast_number(const char *s, int precision, int scale, __int128 lo, __int128 hi,
                     __int128 *out)
{
    char b[FLT_CAST_MAX];
    num_text t;
    bool ints = precision == 0;
    const char *p = s + strspn(s, " \t\n\v\f\r");
    if (ints && lo == 0 && *p == '-' && p[1 + strspn(p + 1, "0")] != 0)
        return false; /* (DuckDB: "-0", "-00" only, into an unsigned type) */
    if (ints && p[0] == '0' && p[1] && strchr("xXbB", p[1])) return based(p, out) && *out <= hi;
    if (!clean(s, b) || !num_scan(b, &t)) return false;
    if (!ints) return t.n_int <= precision - scale && scaled(&t, scale, lo, hi, out);
    unsigned __int128 whole = 0; /* (its digits before the point) */
    for (int i = 0; i < t.n_int && i < 21; i++) whole = whole * 10 + (unsigned)(t.digits[i] - '0');
    bool u64 = hi == (__int128)UINT64_MAX;
    unsigned __int128 store = u64 ? UINT64_MAX : t.neg ? (unsigned __int128)INT64_MAX + 1 : INT64_MAX;
    return t.n_int <= 20 && whole <= store && scaled(&t, 0, lo, hi, out);
}

/* Whether s is [+|-]digits[.digits][(e|E)[+|-]digits] with a digit before the exponent. */
static bool real_syntax(const char *s)
{
    s += *s == '+' || *s == '-';
    size_t n = strspn(s, "0123456789");
    if (s[n] == '.') n += 1 + strspn(s + n + 1, "0123456789");
    if (n == 0 || strcspn(s, "0123456789") >= n) return false; /* ("." alone) */
    if (s[n] == 'e' || s[n] == 'E') {
        n += 1 + (s[n + 1] == '+' || s[n + 1] == '-');
        size_t k = strspn(s + n, "0123456789");
        if (k == 0) return false;
        n += k;
    }
    return s[n] == 0;
}

bool flt_cast_real(const char *s, bool f32, double *out)
{
    char b[FLT_CAST_MAX], *stop;
    if (!clean(s, b)) return false;
    const char *w = b + (b[0] == '+' || b[0] == '-');
    bool word = strcasecmp(w, "inf") == 0 || strcasecmp(w, "infinity") == 0 || strcasecmp(w, "nan") == 0;
    if (!word && !real_syntax(b)) return false;
    *out = f32 ? strtof(b, &stop) : strtod(b, &stop);
    return *stop == 0;
}

bool flt_cast_bool(const char *s, __int128 *out)
{
    static const char *const yes[] = {"true", "t", "yes", "y", "1"}, *const no[] = {"false", "f", "no", "n", "0"};
    for (int i = 0; i < 5; i++) {
        if (strcasecmp(s, yes[i]) == 0) return *out = 1, true;
        if (strcasecmp(s, no[i]) == 0) return *out = 0, true;
    }
    return false;
}
