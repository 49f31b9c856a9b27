/* filter/cast.h: strings read as numbers and booleans the way DuckDB 2.x casts VARCHAR to
 * them (filter/cast.c), so that a filter's string literal against a numeric column and a
 * dataset file's strings under a numeric column parse alike:
 *  - BOOLEAN: true/t/yes/y/1 and false/f/no/n/0 in any case, nothing around them;
 *  - integers: spaces around, [+|-]digits[.digits][e[+|-]digits] (any count of digits, the
 *    exponent within an int16's range) rounded half away from zero, the digits before the
 *    point within DuckDB's store (an int64, a UBIGINT's uint64) whatever the exponent; or
 *    spaces, then 0x / 0b digits and nothing after them; an '_' between two digits is
 *    dropped ("1_000"); range checked;
 *  - decimals: the same (no 0x), rounded half away from zero to the scale, at most
 *    precision - scale digits before the point;
 *  - FLOAT/DOUBLE: the same with '.5', '5.', inf, infinity, nan (any case, a sign before
 *    them), past the range an infinity. */
#ifndef RINGSCAN_FILTER_CAST_H
#define RINGSCAN_FILTER_CAST_H
#include <stdbool.h>

enum { FLT_CAST_MAX = 512 }; /* the longest string parsed is FLT_CAST_MAX - 1 bytes */

/* The spaces the cast skips around a value (' ', '\t' .. '\r'), and its digits. */
static inline bool flt_cast_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static inline bool flt_cast_digit(char c) { return c >= '0' && c <= '9'; }

/* An integer (precision 0) or decimal (precision digits, scale after the point) of
 * NUL-terminated s into *out (unscaled) within [lo, hi], as DuckDB's cast reads it: the
 * digits before the point must fit its store (an integer's int64, a UBIGINT's uint64, hi ==
 * UINT64_MAX; a decimal's precision - scale digits), whatever the exponent ("1000e-1" into
 * DECIMAL(5,2) fails). False when it does not parse or is out of range. */
bool flt_cast_number(const char *s, int precision, int scale, __int128 lo, __int128 hi,
                     __int128 *out);
/* A FLOAT (f32: rounded to a float's precision) or DOUBLE of NUL-terminated s into *out. */
bool flt_cast_real(const char *s, bool f32, double *out);
/* A BOOLEAN of NUL-terminated s into *out (1 or 0). */
bool flt_cast_bool(const char *s, __int128 *out);

#endif
