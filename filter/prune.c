/* filter/prune.c: statistics, page index, bloom and dynamic-bound pruning (rules and
 * invariants in prune.h).
 *
 * Each term is judged on the non-null values alone (NONE / SOME / ALL match), from bounds
 * [lo, hi]; the predicate's OR of terms is then combined with what the null counts prove. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "filter/kernel.h"
#include "filter/prune.h"
#include "format/bloom.h"

typedef enum { V_NONE, V_SOME, V_ALL } vres;

typedef struct bounds {
    bool has;     /* lo/hi are valid bounds of the non-null values */
    bool no_nan;  /* the unit is known to hold no NaN (or is not floating point) */
    flt_lit lo, hi;
} bounds;

static bool is_float(flt_domain dom) { return dom == FLT_DOM_F32 || dom == FLT_DOM_F64; }

/* PLAIN statistics bytes -> literal of the domain; false when unusable (invariant 2). */
static bool decode_plain(const flt_pred *p, const uint8_t *b, uint32_t len, flt_lit *out)
{
    memset(out, 0, sizeof *out);
    int32_t w = pq_fixed_width(p->desc->physical, p->desc->type_length);
    if (!b || (w && (int64_t)len != w)) return false;
    switch (p->dom) {
    case FLT_DOM_BOOL: if (len < 1) return false; out->i = b[0] & 1; return true;
    case FLT_DOM_I32: { int32_t x; memcpy(&x, b, 4); out->i = x; return true; }
    case FLT_DOM_U32: { uint32_t x; memcpy(&x, b, 4); out->i = x; return true; }
    case FLT_DOM_I64:
    case FLT_DOM_U64: memcpy(&out->i, b, 8); return true;
    case FLT_DOM_F32: { float x; memcpy(&x, b, 4); out->f = x; return x == x; }
    case FLT_DOM_F64: memcpy(&out->f, b, 8); return out->f == out->f;
    case FLT_DOM_BYTES:
    case FLT_DOM_SDEC:
        out->b = len ? b : (const uint8_t *)"", out->len = (int32_t)len;
        return len <= INT32_MAX;
    default: return false; /* INT96: order undefined */
    }
}

static int lcmp(flt_domain dom, const flt_lit *a, const flt_lit *b)
{
    switch (dom) {
    case FLT_DOM_U32:
    case FLT_DOM_U64: {
        uint64_t x = (uint64_t)a->i, y = (uint64_t)b->i;
        return (x > y) - (x < y);
    }
    case FLT_DOM_F32:
    case FLT_DOM_F64: return (a->f > b->f) - (a->f < b->f);
    case FLT_DOM_BYTES: return flt_cmp_bytes(a->b, a->len, b->b, b->len);
    case FLT_DOM_INT96: return flt_cmp_int96(a->b, b->b);
    case FLT_DOM_SDEC: return flt_cmp_sdec(a->b, a->len, b->b, b->len);
    default: return (a->i > b->i) - (a->i < b->i);
    }
}

static bool has_prefix(const flt_lit *s, const flt_lit *pre)
{
    return s->len >= pre->len && (pre->len == 0 || memcmp(s->b, pre->b, (size_t)pre->len) == 0);
}

/* LIKE 'p%': values with prefix p lie in [p, succ(p)); succ strips trailing 0xff bytes and
 * increments the last byte (none when p is all 0xff). */
static vres prefix_vres(const flt_lit *pre, const bounds *b)
{
    if (flt_cmp_bytes(b->hi.b, b->hi.len, pre->b, pre->len) < 0) return V_NONE;
    uint8_t succ[256];
    int32_t n = pre->len < (int32_t)sizeof succ ? pre->len : 0; /* long prefix: skip succ */
    if (n) memcpy(succ, pre->b, (size_t)n);
    while (n > 0 && succ[n - 1] == 0xff) n--;
    if (n > 0) {
        succ[n - 1]++;
        if (flt_cmp_bytes(b->lo.b, b->lo.len, succ, n) >= 0) return V_NONE;
    }
    return has_prefix(&b->lo, pre) && has_prefix(&b->hi, pre) ? V_ALL : V_SOME;
}

/* Whether a LIKE term's pattern is its fixed head then one '%' ('abc%'): what PREFIX tests. */
static bool like_head_then_any(const flt_term *t)
{
    const flt_lit *l = t->lits;
    int32_t n = l[1].len;
    return n == l[0].len + 1 && l[2].b[n - 1] == FLT_LIKE_ANY &&
           memchr(l[2].b, FLT_LIKE_ANY, (size_t)n - 1) == NULL &&
           memchr(l[2].b, FLT_LIKE_ONE, (size_t)n - 1) == NULL;
}

/* ILIKE with fixed head h: each character of a match equals h's in lowercase (like.c): an
 * ASCII letter's two cases, or a character outside ASCII, whose bytes sort above ASCII's (and
 * 'İ' is 'i', the Kelvin sign 'k'). So a match is never below h's ASCII prefix with its
 * letters upper-cased, nor at or past the successor of that prefix lower-cased and cut before
 * its first 'i' or 'k': a range outside those matches nothing. */
static vres ilike_vres(const flt_lit *head, const bounds *b)
{
    uint8_t up[256], low[256];
    int32_t n = 0, cut = -1;
    for (; n < head->len && n < (int32_t)sizeof up && head->b[n] < 0x80; n++) {
        uint8_t c = head->b[n];
        up[n] = c >= 'a' && c <= 'z' ? (uint8_t)(c - 32) : c;
        low[n] = c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
        if (cut < 0 && (low[n] == 'i' || low[n] == 'k')) cut = n;
    }
    if (n == 0) return V_SOME;
    if (flt_cmp_bytes(b->hi.b, b->hi.len, up, n) < 0) return V_NONE;
    n = cut >= 0 ? cut : n;
    while (n > 0 && low[n - 1] == 0xff) n--; /* succ(low): past every value with prefix low */
    if (n > 0 && (low[n - 1]++, flt_cmp_bytes(b->lo.b, b->lo.len, low, n) >= 0)) return V_NONE;
    return V_SOME;
}

/* One term on the non-null values within b. */
static vres term_vres(flt_domain dom, const flt_term *t, const bounds *b)
{
    if (t->op == FLT_OP_IS_NOT_NULL) return V_ALL;
    if (t->op == FLT_OP_IS_NULL || t->op == FLT_OP_FALSE) return V_NONE;
    if (!b->has) return V_SOME;
    const flt_lit *l = t->lits;
    int clo = t->nlits ? lcmp(dom, &b->lo, &l[0]) : 0; /* sign of lo - v */
    int chi = t->nlits ? lcmp(dom, &b->hi, &l[0]) : 0; /* sign of hi - v */
    /* NaN rows are above every number (kernel.h invariant 2): they fail =, <, <=, BETWEEN
     * and IN (so ALL needs no NaN) and pass !=, >, >= and NOT IN (so NONE needs no NaN) */
    vres all = b->no_nan ? V_ALL : V_SOME, none = b->no_nan ? V_NONE : V_SOME;
    switch (t->op) {
    case FLT_OP_EQ: return clo > 0 || chi < 0 ? V_NONE : clo == 0 && chi == 0 ? all : V_SOME;
    case FLT_OP_NE:
        if (clo > 0 || chi < 0) return V_ALL; /* NaN != v too */
        return clo == 0 && chi == 0 && b->no_nan ? V_NONE : V_SOME;
    case FLT_OP_LT: return clo >= 0 ? V_NONE : chi < 0 ? all : V_SOME;
    case FLT_OP_LE: return clo > 0 ? V_NONE : chi <= 0 ? all : V_SOME;
    case FLT_OP_GT: return chi <= 0 ? none : clo > 0 ? V_ALL : V_SOME;
    case FLT_OP_GE: return chi < 0 ? none : clo >= 0 ? V_ALL : V_SOME;
    case FLT_OP_BETWEEN: {
        int hlo = lcmp(dom, &b->hi, &l[0]), lhi = lcmp(dom, &b->lo, &l[1]);
        int hhi = lcmp(dom, &b->hi, &l[1]);
        if (hlo < 0 || lhi > 0) return V_NONE;
        return clo >= 0 && hhi <= 0 ? all : V_SOME;
    }
    case FLT_OP_IN: { /* (a list holding NaN: NaN rows are in it) */
        vres r = t->nan ? none : V_NONE;
        for (int32_t k = 0; k < t->nlits; k++) {
            int a = lcmp(dom, &b->lo, &l[k]), z = lcmp(dom, &b->hi, &l[k]);
            if (a == 0 && z == 0) return t->nan ? V_ALL : all;
            if (a <= 0 && z >= 0) r = V_SOME;
        }
        return r;
    }
    case FLT_OP_NOT_IN: { /* (a list holding NaN: NaN rows fail) */
        vres r = t->nan ? all : V_ALL;
        for (int32_t k = 0; k < t->nlits; k++) {
            int a = lcmp(dom, &b->lo, &l[k]), z = lcmp(dom, &b->hi, &l[k]);
            if (a == 0 && z == 0) return t->nan ? V_NONE : none; /* every value is this literal */
            if (a <= 0 && z >= 0) r = V_SOME;
        }
        return r;
    }
    case FLT_OP_PREFIX: return prefix_vres(&l[0], b);
    case FLT_OP_LIKE: /* a value outside its fixed head's range cannot match */
        if (t->icase) return ilike_vres(&l[0], b);
        return l[0].len > 0 && prefix_vres(&l[0], b) == V_NONE ? V_NONE : V_SOME;
    case FLT_OP_NOT_LIKE: /* NOT LIKE 'abc%' fails every value when all start with abc */
        return !t->icase && like_head_then_any(t) && prefix_vres(&l[0], b) == V_ALL ? V_NONE
                                                                                  : V_SOME;
    default: return V_SOME;
    }
}

/* Combines the terms' verdicts on non-null values with the null facts (invariant 4). */
static flt_prune decide(const flt_pred *p, const flt_term *terms, const bounds *b,
                        int64_t nulls, int64_t nvals, bool all_null)
{
    if (nvals == 0) return FLT_CANNOT_MATCH;
    bool is_null = false;
    vres v = V_NONE;
    for (int32_t k = 0; k < p->nterms; k++) {
        if (terms[k].op == FLT_OP_IS_NULL) {
            is_null = true;
            continue;
        }
        vres r = term_vres(p->dom, &terms[k], b);
        if (r == V_ALL) v = V_ALL;
        else if (r == V_SOME && v == V_NONE) v = V_SOME;
    }
    all_null = all_null || (nulls >= 0 && nvals >= 0 && nulls >= nvals);
    if (all_null) return is_null ? FLT_ALL_MATCH : FLT_CANNOT_MATCH;
    bool no_null = nulls == 0;
    if (v == V_NONE) return is_null && !no_null ? FLT_CAN_MATCH : FLT_CANNOT_MATCH;
    if (v == V_ALL) return no_null || is_null ? FLT_ALL_MATCH : FLT_CAN_MATCH;
    return FLT_CAN_MATCH;
}


bool flt_stats_value(const flt_pred *p, const pq_stats *s, bool want_max, flt_lit *out)
{
    assert(p && out);
    if (!s || !s->has_min_max || !s->usable) return false;
    return want_max ? decode_plain(p, s->max, s->max_len, out) : decode_plain(p, s->min, s->min_len, out);
}

int flt_lit_cmp(flt_domain dom, const flt_lit *a, const flt_lit *b)
{
    return lcmp(dom, a, b);
}

flt_prune flt_prune_stats(const flt_pred *p, const pq_stats *s, int64_t num_values)
{
    assert(p && p->desc && (p->nterms >= 1 || p->multi));
    if (p->multi) return FLT_CAN_MATCH;
    flt_term dt[2];
    flt_lit dl;
    const flt_term *terms = flt_dyn_terms(p, dt, &dl);
    if (!terms) return FLT_CAN_MATCH; /* invariant 5 */
    bounds b = {0};
    b.no_nan = !is_float(p->dom) || (s && s->has_nan_count && s->nan_count == 0);
    if (p->keep_nan && !b.no_nan) return FLT_CAN_MATCH; /* a NaN row would pass (expr.h 6) */
    if (s && s->has_min_max && s->usable)
        b.has = decode_plain(p, s->min, s->min_len, &b.lo) &&
                decode_plain(p, s->max, s->max_len, &b.hi);
    int64_t nulls = s && s->has_null_count ? s->null_count : -1;
    return decide(p, terms, &b, nulls, num_values, false);
}

int32_t flt_prune_pages(const flt_pred *p, const pq_column_index *ci, bool order_usable,
                        const int64_t *page_rows, uint64_t *keep, uint64_t *all)
{
    assert(p && ci && keep && ci->npages >= 0);
    int32_t n = ci->npages, kept = 0;
    memset(keep, 0, (size_t)((n + 63) / 64) * 8);
    if (all) memset(all, 0, (size_t)((n + 63) / 64) * 8);
    flt_term dt[2];
    flt_lit dl;
    const flt_term *terms = p->multi ? NULL : flt_dyn_terms(p, dt, &dl);
    for (int32_t i = 0; i < n; i++) {
        flt_prune r = FLT_CAN_MATCH;
        if (terms && !p->keep_nan) { /* a page index does not say whether NaN is present */
            bounds b = {.no_nan = !is_float(p->dom)};
            bool null_page = ci->null_pages && ci->null_pages[i];
            if (!null_page && order_usable && ci->min && ci->max)
                b.has = decode_plain(p, ci->min[i], ci->min_len[i], &b.lo) &&
                        decode_plain(p, ci->max[i], ci->max_len[i], &b.hi);
            int64_t rows = page_rows ? page_rows[i] : -1;
            int64_t nulls = ci->has_null_counts ? ci->null_counts[i] : -1;
            if (nulls < 0 || (rows >= 0 && nulls > rows)) nulls = -1; /* impossible: unknown */
            r = decide(p, terms, &b, nulls, rows, null_page);
        }
        if (r != FLT_CANNOT_MATCH) keep[i >> 6] |= UINT64_C(1) << (i & 63), kept++;
        if (r == FLT_ALL_MATCH && all) all[i >> 6] |= UINT64_C(1) << (i & 63);
    }
    return kept;
}

/* ---- bloom ----------------------------------------------------------------------------- */

bool flt_prunable(const flt_pred *p)
{
    for (int32_t k = 0; !p->multi && k < p->nterms; k++) {
        const flt_term *t = &p->terms[k];
        bool blind = (t->op == FLT_OP_NOT_LIKE && (t->icase || !like_head_then_any(t))) ||
                     (t->op == FLT_OP_LIKE && t->lits[0].len == 0);
        if (blind) return false; /* an OR with a term no bound rules out: neither is the OR */
    }
    return !p->multi && p->nterms > 0;
}

bool flt_bloom_applies(const flt_pred *p)
{
    const flt_multi *m = p->multi;
    for (int32_t t = 0; m && t < m->nitems; t++)
        if (m->items[t].is_cmp || !flt_bloom_applies(&m->items[t].pred)) return false;
    if (m) return true;
    for (int32_t t = 0; t < p->nterms; t++)
        if (p->terms[t].op != FLT_OP_EQ && p->terms[t].op != FLT_OP_IN) return false;
    return p->nterms > 0 && !p->dyn;
}

int flt_plain_encode(const flt_pred *p, const flt_lit *l, uint8_t out[2][16], int32_t len[2])
{
    assert(p && l && out && len);
    const pq_column_desc *d = p->desc;
    switch (p->dom) {
    case FLT_DOM_I32:
    case FLT_DOM_U32: { uint32_t x = (uint32_t)l->i; memcpy(out[0], &x, 4); len[0] = 4; return 1; }
    case FLT_DOM_I64:
    case FLT_DOM_U64: memcpy(out[0], &l->i, 8), len[0] = 8; return 1;
    case FLT_DOM_F32: {
        float x = (float)l->f;
        if ((double)x != l->f) return 0; /* no float equals it (NaN included) */
        memcpy(out[0], &x, 4), len[0] = 4;
        if (x != 0) return 1;
        x = -x, memcpy(out[1], &x, 4), len[1] = 4;
        return 2;
    }
    case FLT_DOM_F64: {
        double x = l->f;
        if (x != x) return 0;
        memcpy(out[0], &x, 8), len[0] = 8;
        if (x != 0) return 1;
        x = -x, memcpy(out[1], &x, 8), len[1] = 8;
        return 2;
    }
    case FLT_DOM_INT96:
        if (l->len != 12) return 0;
        memcpy(out[0], l->b, 12), len[0] = 12;
        return 1;
    case FLT_DOM_SDEC: {
        /* FLBA decimals have one encoding of width type_length; BYTE_ARRAY ones do not */
        int32_t w = d->type_length;
        if (d->physical != PQ_FIXED_LEN_BYTE_ARRAY || w < 1 || w > 16 || l->len != 16) return -1;
        for (int32_t k = 0; k < 16 - w; k++) /* dropped bytes must be pure sign extension */
            if (l->b[k] != ((l->b[16 - w] & 0x80) ? 0xff : 0)) return 0;
        memcpy(out[0], l->b + 16 - w, (size_t)w), len[0] = w;
        return 1;
    }
    default: return -1; /* BYTES is probed directly by flt_prune_bloom; BOOL: no */
    }
}

flt_prune flt_prune_bloom(const flt_pred *p, bool (*probe)(void *ctx, const uint8_t *plain,
                                                           size_t n),
                          void *ctx)
{
    assert(p && probe);
    if (p->dyn || p->multi) return FLT_CAN_MATCH;
    for (int32_t k = 0; k < p->nterms; k++) {
        const flt_term *t = &p->terms[k];
        if (t->op == FLT_OP_FALSE) continue;
        if ((t->op != FLT_OP_EQ && t->op != FLT_OP_IN) || t->nan) return FLT_CAN_MATCH;
        for (int32_t j = 0; j < t->nlits; j++) {
            const flt_lit *l = &t->lits[j];
            if (p->dom == FLT_DOM_BYTES) {
                bool fixed = p->desc->physical == PQ_FIXED_LEN_BYTE_ARRAY;
                if (fixed && l->len != p->desc->type_length) continue; /* cannot be equal */
                if (probe(ctx, l->len ? l->b : (const uint8_t *)"", (size_t)l->len))
                    return FLT_CAN_MATCH;
                continue;
            }
            uint8_t enc[2][16];
            int32_t len[2];
            int ne = flt_plain_encode(p, l, enc, len);
            if (ne < 0) return FLT_CAN_MATCH;
            for (int e = 0; e < ne; e++)
                if (probe(ctx, enc[e], (size_t)len[e])) return FLT_CAN_MATCH;
        }
    }
    return FLT_CANNOT_MATCH;
}

typedef struct sbbf {
    const uint8_t *bits;
    size_t len;
} sbbf;

static bool sbbf_probe(void *ctx, const uint8_t *plain, size_t n)
{
    const sbbf *f = ctx;
    return pq_bloom_check(f->bits, f->len, pq_bloom_hash(plain, n));
}

flt_prune flt_prune_bloom_sbbf(const flt_pred *p, const uint8_t *bitset, size_t bitset_len)
{
    assert(p);
    if (!bitset || bitset_len == 0 || bitset_len % 32 != 0) return FLT_CAN_MATCH;
    sbbf f = {bitset, bitset_len};
    return flt_prune_bloom(p, sbbf_probe, &f);
}

/* ---- selectivity estimate --------------------------------------------------------------- */

/* A value as a number on which the domain's order is the numeric order (strings by their first
 * 8 bytes, decimals by their leading digits): only for the uniform estimate. */
static double est_key(flt_domain dom, const flt_lit *l)
{
    switch (dom) {
    case FLT_DOM_I32:
    case FLT_DOM_I64: return (double)l->i;
    case FLT_DOM_U32:
    case FLT_DOM_U64: return (double)(uint64_t)l->i;
    case FLT_DOM_F32:
    case FLT_DOM_F64: return l->f;
    case FLT_DOM_SDEC: {
        double v = l->len > 0 ? (double)(int8_t)l->b[0] : 0;
        for (int32_t k = 1; k < l->len; k++) v = v * 256.0 + l->b[k];
        return v;
    }
    default: { /* BYTES */
        uint64_t v = 0;
        for (int32_t k = 0; k < 8; k++) v = v << 8 | (k < l->len ? l->b[k] : 0);
        return (double)v;
    }
    }
}

static bool est_discrete(flt_domain dom)
{
    return dom == FLT_DOM_I32 || dom == FLT_DOM_U32 || dom == FLT_DOM_I64 ||
           dom == FLT_DOM_U64 || dom == FLT_DOM_SDEC;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* x as a share in [0, 1], or -1 (unknown) when it is not a number (infinite bounds). */
static double share_or_unknown(double x) { return x == x ? clamp01(x) : -1; }

/* Share of the values in [lo, hi] (width w: the count of values when discrete) that fall in
 * [a, z] (a, z: keys; inclusive when discrete). */
static double est_span(double lo, double hi, double w, bool discrete, double a, double z)
{
    double from = a > lo ? a : lo, to = z < hi ? z : hi;
    return clamp01((to - from + (discrete ? 1 : 0)) / w);
}

/* One term's share of the non-null values within b (b->has, lo < hi), or -1: unknown. */
static double term_est(const flt_pred *p, const flt_term *t, const bounds *b, const pq_stats *s)
{
    vres v = term_vres(p->dom, t, b);
    if (v != V_SOME) return v == V_ALL ? 1.0 : 0.0;
    bool disc = est_discrete(p->dom);
    double lo = est_key(p->dom, &b->lo), hi = est_key(p->dom, &b->hi);
    double w = hi - lo + (disc ? 1 : 0), eq = -1;
    if (!(w > 0 && w < HUGE_VAL)) return -1; /* keys tie (long common prefix), NaN, infinity */
    if (s->has_distinct && s->distinct_count > 0) eq = 1.0 / (double)s->distinct_count;
    else if (disc) eq = 1.0 / w;
    double x = t->nlits ? est_key(p->dom, &t->lits[0]) : 0, step = disc ? 1 : 0;
    switch (t->op) {
    case FLT_OP_EQ: return eq;
    case FLT_OP_NE: return eq < 0 ? 1.0 : 1.0 - eq;
    case FLT_OP_LT: return est_span(lo, hi, w, disc, lo, x - step);
    case FLT_OP_LE: return est_span(lo, hi, w, disc, lo, x);
    case FLT_OP_GT: return est_span(lo, hi, w, disc, x + step, hi);
    case FLT_OP_GE: return est_span(lo, hi, w, disc, x, hi);
    case FLT_OP_BETWEEN: return est_span(lo, hi, w, disc, x, est_key(p->dom, &t->lits[1]));
    case FLT_OP_IN:
    case FLT_OP_NOT_IN: {
        int32_t in = 0; /* literals inside the bounds */
        for (int32_t k = 0; k < t->nlits; k++) {
            double y = est_key(p->dom, &t->lits[k]);
            in += y >= lo && y <= hi;
        }
        if (eq < 0) return -1;
        return t->op == FLT_OP_IN ? clamp01(eq * in) : clamp01(1.0 - eq * in);
    }
    case FLT_OP_PREFIX: {
        flt_lit z = t->lits[0];
        uint8_t succ[8];
        int32_t n = z.len < 8 ? z.len : 8;
        memcpy(succ, z.b, (size_t)n);
        while (n > 0 && succ[n - 1] == 0xff) n--;
        if (n == 0) return -1;
        succ[n - 1]++;
        z.b = succ, z.len = n;
        return est_span(lo, hi, w, false, x, est_key(p->dom, &z));
    }
    default: return -1;
    }
}

double flt_estimate_stats(const flt_pred *p, const pq_stats *s, int64_t num_values)
{
    assert(p && p->desc && (p->nterms >= 1 || p->multi));
    if (p->multi) return -1;
    flt_prune r = flt_prune_stats(p, s, num_values);
    if (r != FLT_CAN_MATCH) return r == FLT_ALL_MATCH ? 1.0 : 0.0;
    if (p->dyn || !s || num_values <= 0 || p->dom == FLT_DOM_BOOL || p->dom == FLT_DOM_INT96)
        return -1;
    double nulls = s->has_null_count ? (double)s->null_count / (double)num_values : 0;
    bounds b = {.no_nan = !is_float(p->dom) || (s->has_nan_count && s->nan_count == 0)};
    if (s->has_min_max && s->usable)
        b.has = decode_plain(p, s->min, s->min_len, &b.lo) &&
                decode_plain(p, s->max, s->max_len, &b.hi);
    double sel = 0;
    for (int32_t k = 0; k < p->nterms; k++) {
        const flt_term *t = &p->terms[k];
        double e;
        if (t->op == FLT_OP_IS_NULL || t->op == FLT_OP_IS_NOT_NULL) {
            if (!s->has_null_count) return -1;
            e = t->op == FLT_OP_IS_NULL ? nulls : 1.0 - nulls;
        } else if (t->op == FLT_OP_FALSE) {
            e = 0;
        } else {
            e = b.has ? term_est(p, t, &b, s) : -1;
            if (!(e >= 0)) return -1; /* unknown, or not a number (infinite bounds) */
            e = clamp01(e);
            e *= 1.0 - nulls;
        }
        sel += e;
    }
    return share_or_unknown(sel);
}
