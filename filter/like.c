/* filter/like.c: SQL LIKE / ILIKE matching of one value against a typed pattern (expr.h
 * invariant 7).
 *
 * The pattern is split at its `%` characters into segments. The first segment must match at
 * the value's start, the last one must end at the value's end, and each one between is taken
 * at its leftmost match after the previous one. A segment's `_` consumes one UTF-8 character,
 * so from a later start a segment also ends later; the leftmost match therefore leaves the
 * most room for what follows, and greedy matching is exact (no backtracking). A segment
 * without `_` on a case-sensitive pattern is found with memmem.
 *
 * ILIKE compares characters by their lowercase, as DuckDB's ILIKE lowers both sides: ASCII
 * letters by a fold, any other character by ICU's simple case mapping (u_tolower, loaded by
 * common/icu_dl.h when the term is typed: 'Ä' is 'ä',
 * 'İ' is 'i', 'ß' stays 'ß'), so a value or pattern holding one matches a character at a time
 * and a segment's byte length no longer fixes its match's.
 *
 * Invariants:
 *  1. Reads s[0..len) and the pattern only; no allocation.
 *  2. Only the start of a UTF-8 character is tried as a segment's start; a byte that is no
 *     valid lead byte counts as one character, so malformed text still terminates (under
 *     ILIKE an ill-formed sequence compares as its first byte). */
#include <assert.h>
#include <string.h>
#include <unicode/utf8.h>

#include "common/icu_dl.h"
#include "filter/kernel_int.h"

static uint8_t fold(uint8_t c, bool icase)
{
    return icase && c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

/* Under ILIKE, whether the character at s[*at] equals the pattern's at p[*i] (both bounded
 * by their lengths) in lowercase, either of them not ASCII; advances both past it. */
static bool uni_eq(const uint8_t *s, int32_t len, int32_t *at, const uint8_t *p, int32_t plen,
                   int32_t *i)
{
    UChar32 a, b;
    int32_t ea = *at, eb = *i;
    U8_NEXT(s, ea, len, a);
    U8_NEXT(p, eb, plen, b);
    if (a < 0 || b < 0) { /* (ill-formed: invariant 2) */
        if (s[*at] != p[*i]) return false;
        return (*at)++, (*i)++, true;
    }
    *at = ea, *i = eb;
    if (a == b) return true;
    const icu_fns *icu = icu_dl(); /* loaded when the ILIKE term was typed (filter/lit.c) */
    assert(icu);
    return icu->tolower_(a) == icu->tolower_(b);
}

/* Whether s[0, len) holds a byte outside ASCII. */
static bool any_high(const uint8_t *s, int32_t len)
{
    for (int32_t i = 0; i < len; i++)
        if (s[i] >= 0x80) return true;
    return false;
}

static bool is_cont(uint8_t c) { return (c & 0xc0) == 0x80; }

/* The end of the character starting at s[at] (at < len). */
static int32_t char_end(const uint8_t *s, int32_t len, int32_t at)
{
    int32_t e = at + 1;
    while (e < len && is_cont(s[e])) e++;
    return e;
}

typedef struct seg {
    const uint8_t *c, *k; /* characters and kinds */
    int32_t n;
    bool plain;           /* no `_` */
} seg;

/* Matches g at s[at..]; the end on success, -1 otherwise. uni: ILIKE where the value or the
 * pattern holds a character outside ASCII. */
static int32_t seg_at(const uint8_t *s, int32_t len, int32_t at, const seg *g, bool icase,
                      bool uni)
{
    for (int32_t i = 0; i < g->n;) {
        if (at >= len) return -1;
        if (g->k[i] == FLT_LIKE_ONE) at = char_end(s, len, at), i++;
        else if (uni && (s[at] >= 0x80 || g->c[i] >= 0x80)) {
            if (!uni_eq(s, len, &at, g->c, g->n, &i)) return -1;
        } else if (fold(s[at], icase) != fold(g->c[i], icase)) return -1;
        else at++, i++;
    }
    return at;
}

/* The end of the leftmost match of g in s[from..len), or -1. */
static int32_t seg_find(const uint8_t *s, int32_t len, int32_t from, const seg *g, bool icase,
                        bool uni)
{
    if (g->plain && !icase && g->n > 0) {
        const uint8_t *hit = memmem(s + from, (size_t)(len - from), g->c, (size_t)g->n);
        return hit ? (int32_t)(hit - s) + g->n : -1;
    }
    for (int32_t at = from; at <= len; at++) {
        if (at < len && is_cont(s[at])) continue;
        int32_t e = seg_at(s, len, at, g, icase, uni);
        if (e >= 0) return e;
    }
    return -1;
}

/* The segment of the pattern starting at character i (up to the next `%` or the end). */
static seg next_seg(const flt_lit *pc, const flt_lit *pk, int32_t i)
{
    seg g = {pc->b + i, pk->b + i, 0, true};
    while (i + g.n < pk->len && pk->b[i + g.n] != FLT_LIKE_ANY) {
        g.plain = g.plain && pk->b[i + g.n] == FLT_LIKE_CHAR;
        g.n++;
    }
    return g;
}

bool flt_like_match(const uint8_t *s, int32_t len, const flt_term *t)
{
    assert(t->nlits == 3 && t->lits[1].len == t->lits[2].len);
    const flt_lit *pc = &t->lits[1], *pk = &t->lits[2];
    bool icase = t->icase, uni = icase && (any_high(s, len) || any_high(pc->b, pc->len));
    seg g = next_seg(pc, pk, 0);
    int32_t at = seg_at(s, len, 0, &g, icase, uni), i = g.n;
    if (at < 0) return false;
    if (i == pk->len) return at == len; /* no `%` */
    while (i < pk->len) {
        i++; /* the `%` */
        g = next_seg(pc, pk, i);
        i += g.n;
        if (i < pk->len) { /* a middle segment: its leftmost match */
            at = seg_find(s, len, at, &g, icase, uni);
            if (at < 0) return false;
            continue;
        }
        /* the last segment must end at the end: fixed-width when it has no `_` (and its
         * characters match bytes for bytes: not uni), else try every start */
        if (g.plain && !uni)
            return len - at >= g.n && seg_at(s, len, len - g.n, &g, icase, uni) == len;
        for (int32_t from = at; from <= len; from++)
            if ((from == len || !is_cont(s[from])) && seg_at(s, len, from, &g, icase, uni) == len)
                return true;
        return false;
    }
    assert(0); /* the loop returns at the last segment */
    return false;
}
