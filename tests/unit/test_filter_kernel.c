/* tests for filter/kernel.c, kernel_bytes.c and filter/mask.c: the dense, sparse and
 * dictionary paths must equal an independent scalar reference on seeded random data with
 * nulls, for every domain and operator; mask operations on lengths not multiple of 64. */
#include <errno.h>
#include <math.h>

#include "check.h"
#include "common/bits.h"
#include "filter/kernel.h"
#include "filter/mask.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return rng_state = x;
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

/* ---- masks ----------------------------------------------------------------------------- */

static void mask_ops_odd_lengths(void)
{
    int64_t lens[] = {0, 1, 63, 64, 65, 127, 128, 130, 1000};
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        int64_t n = lens[li];
        flt_mask a = {0}, b = {0}, c = {0};
        CHECK(flt_mask_init(&a, n, false) == 0 && flt_mask_init(&b, n, true) == 0);
        CHECK(flt_mask_all_false(&a) && flt_mask_all_true(&b));
        CHECK_EQ_I64(flt_mask_popcount(&b), n);
        flt_mask_not(&b);
        CHECK(flt_mask_all_false(&b) && flt_mask_popcount(&b) == 0);
        flt_mask_not(&b);
        uint8_t ref[1000] = {0};
        for (int64_t i = 0; i < n; i++)
            if (rnd() & 1) flt_mask_set(&a, i), ref[i] = 1;
        int64_t from = n ? rnd_in(0, n) : 0, to = n ? rnd_in(from, n) : 0;
        flt_mask_set_range(&a, from, to, true);
        for (int64_t i = from; i < to; i++) ref[i] = 1;
        int64_t f2 = n ? rnd_in(0, n) : 0, t2 = n ? rnd_in(f2, n) : 0;
        flt_mask_set_range(&a, f2, t2, false);
        for (int64_t i = f2; i < t2; i++) ref[i] = 0;
        int64_t cnt = 0;
        for (int64_t i = 0; i < n; i++) {
            CHECK(flt_mask_get(&a, i) == ref[i]);
            cnt += ref[i];
        }
        CHECK_EQ_I64(flt_mask_popcount(&a), cnt);
        uint32_t sel[1000];
        CHECK_EQ_I64(flt_mask_select(&a, sel, 1000), cnt);
        for (int64_t k = 0, i = 0; i < n; i++)
            if (ref[i]) CHECK_EQ_I64(sel[k++], i);
        /* room for half: the count still, the first half written, nothing past it */
        uint32_t half[1001];
        memset(half, 0xab, sizeof half);
        CHECK_EQ_I64(flt_mask_select(&a, half, cnt / 2), cnt);
        CHECK(memcmp(half, sel, sizeof(uint32_t) * (size_t)(cnt / 2)) == 0);
        CHECK_EQ_I64(half[cnt / 2], 0xababababu);
        CHECK(flt_mask_copy(&c, &a) == 0);
        flt_mask_not(&c);
        CHECK_EQ_I64(flt_mask_popcount(&c), n - cnt);
        flt_mask_or(&c, &a);
        CHECK(flt_mask_all_true(&c));
        flt_mask_and(&c, &a);
        CHECK_EQ_I64(flt_mask_popcount(&c), cnt);
        flt_mask_andnot(&c, &a);
        CHECK(flt_mask_all_false(&c));
        uint8_t bytes[125];
        for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (uint8_t)rnd();
        flt_mask_from_bytes(&c, bytes);
        for (int64_t i = 0; i < n; i++) CHECK(flt_mask_get(&c, i) == pq_bit_get(bytes, i));
        if (n % 64) CHECK((c.words[n / 64] >> (n % 64)) == 0);
        flt_mask_free(&a), flt_mask_free(&b), flt_mask_free(&c);
    }
}

/* ---- random columns -------------------------------------------------------------------- */

typedef struct kcase {
    const char *name;
    pq_physical phys;
    int32_t type_length;
    pq_logical logical;
    flt_domain dom;
} kcase;

static const kcase cases[] = {
    {"bool", PQ_BOOLEAN, 0, PQ_LOGICAL_NONE, FLT_DOM_BOOL},
    {"i32", PQ_INT32, 0, PQ_LOGICAL_NONE, FLT_DOM_I32},
    {"u32", PQ_INT32, 0, PQ_LOGICAL_UINT32, FLT_DOM_U32},
    {"i64", PQ_INT64, 0, PQ_LOGICAL_NONE, FLT_DOM_I64},
    {"u64", PQ_INT64, 0, PQ_LOGICAL_UINT64, FLT_DOM_U64},
    {"f32", PQ_FLOAT, 0, PQ_LOGICAL_NONE, FLT_DOM_F32},
    {"f64", PQ_DOUBLE, 0, PQ_LOGICAL_NONE, FLT_DOM_F64},
    {"str", PQ_BYTE_ARRAY, 0, PQ_LOGICAL_STRING, FLT_DOM_BYTES},
    {"flba", PQ_FIXED_LEN_BYTE_ARRAY, 3, PQ_LOGICAL_NONE, FLT_DOM_BYTES},
    {"decflba", PQ_FIXED_LEN_BYTE_ARRAY, 5, PQ_LOGICAL_DECIMAL, FLT_DOM_SDEC},
    {"decba", PQ_BYTE_ARRAY, 0, PQ_LOGICAL_DECIMAL, FLT_DOM_SDEC},
    {"i96", PQ_INT96, 0, PQ_LOGICAL_NONE, FLT_DOM_INT96},
};

typedef struct rval {
    int64_t i;
    double f;
    uint8_t b[48]; /* up to 40 bytes: string_ranges_match_reference */
    int32_t len;
} rval;

/* flt_mask_any_range / count_range / select_range / slice / copy_bits against a per-bit
 * reference, on ranges that start and end inside, at and across word boundaries. */
static void mask_ranges(void)
{
    flt_mask m = {0};
    CHECK(flt_mask_init(&m, 300, false) == 0);
    uint64_t x = 88172645463325252ull;
    for (int64_t i = 0; i < 300; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (x % 5 == 0) flt_mask_set(&m, i);
    }
    uint32_t idx[300];
    for (int64_t a = 0; a <= 300; a += 7)
        for (int64_t b = a; b <= 300; b += 13) {
            int64_t want = 0;
            uint32_t ref[300];
            for (int64_t r = a; r < b; r++)
                if (flt_mask_get(&m, r)) ref[want++] = (uint32_t)(r - a);
            CHECK(flt_mask_any_range(&m, a, b) == (want > 0));
            CHECK_EQ_I64(flt_mask_count_range(&m, a, b), want);
            int64_t got = flt_mask_select_range(&m, a, b, idx);
            CHECK_EQ_I64(got, want);
            CHECK(got != want || memcmp(idx, ref, sizeof(uint32_t) * (size_t)want) == 0);
            flt_mask sl = {0};
            CHECK(flt_mask_slice(&sl, &m, a, b) == 0);
            CHECK_EQ_I64(sl.len, b - a);
            CHECK_EQ_I64(flt_mask_popcount(&sl), want); /* also checks the tail is clear */
            for (int64_t r = a; r < b; r++) CHECK(flt_mask_get(&sl, r - a) == flt_mask_get(&m, r));
            /* the same bits pasted into an all-ones mask at another offset: only they change */
            flt_mask ones = {0};
            int64_t at = (a * 3) % (301 - (b - a));
            CHECK(flt_mask_init(&ones, 300, true) == 0);
            flt_mask_copy_bits(&ones, at, &m, a, b - a);
            for (int64_t r = 0; r < 300; r++)
                CHECK(flt_mask_get(&ones, r) == (r >= at && r < at + (b - a) ? flt_mask_get(&m, a + r - at) : true));
            CHECK_EQ_I64(flt_mask_popcount(&ones), 300 - (b - a) + want);
            flt_mask_free(&ones);
            flt_mask_free(&sl);
        }
    CHECK(!flt_mask_any_range(&m, 64, 64));
    CHECK_EQ_I64(flt_mask_count_range(&m, 64, 64), 0);
    flt_mask_free(&m);
}

static void be_encode(int64_t v, uint8_t *out, int32_t len)
{
    for (int32_t k = len - 1; k >= 0; k--) out[k] = (uint8_t)v, v >>= 8; /* arithmetic */
}

static int64_t be_decode(const uint8_t *b, int32_t len)
{
    int64_t v = len > 0 && (b[0] & 0x80) ? -1 : 0;
    for (int32_t k = 0; k < len; k++) v = (int64_t)((uint64_t)v << 8) | b[k];
    return v;
}

static rval gen_value(const kcase *c)
{
    rval r = {0};
    int64_t small = rnd_in(-20, 20);
    bool extreme = rnd() % 10 == 0;
    switch (c->dom) {
    case FLT_DOM_BOOL: r.i = rnd() & 1; break;
    case FLT_DOM_I32: r.i = extreme ? (rnd() & 1 ? INT32_MIN : INT32_MAX) : small; break;
    case FLT_DOM_U32: r.i = extreme ? (rnd() & 1 ? 0xffffffffll : 0x80000000ll) : small + 20; break;
    case FLT_DOM_I64: r.i = extreme ? (rnd() & 1 ? INT64_MIN : INT64_MAX) : small; break;
    case FLT_DOM_U64: r.i = extreme ? (rnd() & 1 ? -1 : INT64_MIN) : small + 20; break;
    case FLT_DOM_F32:
    case FLT_DOM_F64: {
        static const double sp[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY};
        r.f = extreme ? sp[rnd() % 5] : small * 0.5;
        break;
    }
    case FLT_DOM_BYTES:
        r.len = c->type_length ? c->type_length
                : rnd() % 4 ? (int32_t)rnd_in(0, 4) : (int32_t)rnd_in(5, 12); /* > 8: memcmp path */
        for (int32_t k = 0; k < r.len; k++) {
            static const uint8_t al[] = {'a', 'b', 0x00, 0xff};
            r.b[k] = al[rnd() % (c->type_length ? 4 : 2)];
            if (!c->type_length && rnd() % 8 == 0) r.b[k] = 'A'; /* ILIKE folds it */
            if (!c->type_length && k + 1 < r.len && rnd() % 8 == 0) /* 'é': one character */
                r.b[k] = 0xc3, r.b[++k] = 0xa9;
        }
        break;
    case FLT_DOM_SDEC:
        r.i = extreme ? (rnd() & 1 ? -((int64_t)1 << 39) : ((int64_t)1 << 39) - 1) : small;
        r.len = c->type_length ? c->type_length : (int32_t)rnd_in(1, 18);
        be_encode(r.i, r.b, r.len);
        break;
    case FLT_DOM_INT96:
        r.len = 12;
        for (int k = 0; k < 12; k++) /* nanoseconds of the day, then the Julian day: both vary */
            r.b[k] = (uint8_t)(k == 0 ? rnd() % 3 : k == 7 ? rnd() % 2 : k == 8 ? 6 + rnd() % 2 : 7);
        break;
    }
    return r;
}

static void append(pq_vec *v, const rval *r, bool valid)
{
    int64_t i = v->length;
    CHECK(pq_vec_reserve(v, 1, r->len) == 0);
    pq_bit_set(v->validity, i, valid);
    v->null_count += !valid;
    switch (v->type) {
    case PQ_BOOLEAN: pq_bit_set(v->values, i, valid && r->i); break;
    case PQ_INT32: { int32_t x = valid ? (int32_t)r->i : 0; memcpy(v->values + 4 * i, &x, 4); break; }
    case PQ_INT64: { int64_t x = valid ? r->i : 0; memcpy(v->values + 8 * i, &x, 8); break; }
    case PQ_FLOAT: { float x = valid ? (float)r->f : 0; memcpy(v->values + 4 * i, &x, 4); break; }
    case PQ_DOUBLE: { double x = valid ? r->f : 0; memcpy(v->values + 8 * i, &x, 8); break; }
    case PQ_BYTE_ARRAY:
        if (valid && r->len) memcpy(v->data + v->data_len, r->b, (size_t)r->len), v->data_len += r->len;
        v->offsets[i + 1] = (int32_t)v->data_len;
        break;
    default: {
        int32_t w = pq_fixed_width(v->type, v->type_length);
        if (valid) memcpy(v->values + (int64_t)w * i, r->b, (size_t)w);
        else memset(v->values + (int64_t)w * i, 0, (size_t)w);
    }
    }
    v->length++;
}

/* Row value of a materialised vector. */
static rval get_value(const pq_vec *v, int64_t i)
{
    rval r = {0};
    switch (v->type) {
    case PQ_BOOLEAN: r.i = pq_bit_get(v->values, i); break;
    case PQ_INT32: { int32_t x; memcpy(&x, v->values + 4 * i, 4); r.i = x; break; }
    case PQ_INT64: memcpy(&r.i, v->values + 8 * i, 8); break;
    case PQ_FLOAT: { float x; memcpy(&x, v->values + 4 * i, 4); r.f = x; break; }
    case PQ_DOUBLE: memcpy(&r.f, v->values + 8 * i, 8); break;
    case PQ_BYTE_ARRAY:
        r.len = v->offsets[i + 1] - v->offsets[i];
        if (r.len) memcpy(r.b, v->data + v->offsets[i], (size_t)r.len);
        break;
    default:
        r.len = pq_fixed_width(v->type, v->type_length);
        memcpy(r.b, v->values + (int64_t)r.len * i, (size_t)r.len);
    }
    return r;
}

/* ---- reference: one row against one term, written independently of kernel_int.h -------- */

/* NaN is above every number and literals are never NaN (kernel.h invariant 2). */
static uint32_t le_u32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t le_u64(const uint8_t *b) { return le_u32(b) | (uint64_t)le_u32(b + 4) << 32; }

static int ref_cmp(const kcase *c, const rval *x, const flt_lit *l)
{
    switch (c->dom) {
    case FLT_DOM_BOOL:
    case FLT_DOM_I32:
    case FLT_DOM_I64: return (x->i > l->i) - (x->i < l->i);
    case FLT_DOM_U32: {
        uint64_t a = (uint32_t)x->i, b = (uint64_t)l->i;
        return (a > b) - (a < b);
    }
    case FLT_DOM_U64: {
        uint64_t a = (uint64_t)x->i, b = (uint64_t)l->i;
        return (a > b) - (a < b);
    }
    case FLT_DOM_F32:
    case FLT_DOM_F64:
        if (isnan(x->f)) return 1;
        return (x->f > l->f) - (x->f < l->f);
    case FLT_DOM_SDEC: {
        int64_t a = be_decode(x->b, x->len), b = be_decode(l->b, l->len);
        return (a > b) - (a < b);
    }
    case FLT_DOM_INT96: { /* days, then nanoseconds of the day */
        int64_t dx = (int32_t)le_u32(x->b + 8), dl = (int32_t)le_u32(l->b + 8);
        int64_t nx = (int64_t)le_u64(x->b), nl = (int64_t)le_u64(l->b);
        return dx != dl ? (dx > dl) - (dx < dl) : (nx > nl) - (nx < nl);
    }
    default:
        for (int32_t k = 0; k < x->len && k < l->len; k++)
            if (x->b[k] != l->b[k]) return x->b[k] < l->b[k] ? -1 : 1;
        return (x->len > l->len) - (x->len < l->len);
    }
}

static bool is_cont(uint8_t c) { return (c & 0xc0) == 0x80; }
static uint8_t lower(uint8_t c, bool icase) { return icase && c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* LIKE by backtracking over characters: `%` tries every character boundary, `_` takes one
 * UTF-8 character. */
static bool ref_like(const uint8_t *s, int32_t n, const uint8_t *c, const uint8_t *k, int32_t m,
                     bool icase)
{
    if (m == 0) return n == 0;
    if (k[0] == FLT_LIKE_ANY) {
        for (int32_t i = 0; i <= n; i++)
            if ((i == n || !is_cont(s[i])) && ref_like(s + i, n - i, c + 1, k + 1, m - 1, icase))
                return true;
        return false;
    }
    if (n == 0) return false;
    if (k[0] == FLT_LIKE_ONE) {
        int32_t w = 1;
        while (w < n && is_cont(s[w])) w++;
        return ref_like(s + w, n - w, c + 1, k + 1, m - 1, icase);
    }
    return lower(s[0], icase) == lower(c[0], icase) &&
           ref_like(s + 1, n - 1, c + 1, k + 1, m - 1, icase);
}

static bool ref_term(const kcase *c, const rval *x, const flt_term *t)
{
    const flt_lit *l = t->lits;
    switch (t->op) {
    case FLT_OP_EQ: return ref_cmp(c, x, &l[0]) == 0;
    case FLT_OP_NE: return ref_cmp(c, x, &l[0]) != 0;
    case FLT_OP_LT: return ref_cmp(c, x, &l[0]) < 0;
    case FLT_OP_LE: return ref_cmp(c, x, &l[0]) <= 0;
    case FLT_OP_GT: return ref_cmp(c, x, &l[0]) > 0;
    case FLT_OP_GE: return ref_cmp(c, x, &l[0]) >= 0;
    case FLT_OP_BETWEEN: return ref_cmp(c, x, &l[0]) >= 0 && ref_cmp(c, x, &l[1]) <= 0;
    case FLT_OP_IN:
    case FLT_OP_NOT_IN: {
        bool in = t->nan && isnan(x->f); /* (a list holding NaN: expr.h invariant 5) */
        for (int32_t k = 0; k < t->nlits; k++) in = in || ref_cmp(c, x, &l[k]) == 0;
        return in == (t->op == FLT_OP_IN);
    }
    case FLT_OP_PREFIX:
        return x->len >= l[0].len && memcmp(x->b, l[0].b, (size_t)l[0].len) == 0;
    case FLT_OP_LIKE:
    case FLT_OP_NOT_LIKE:
        return ref_like(x->b, x->len, l[1].b, l[2].b, l[1].len, t->icase) ==
               (t->op == FLT_OP_LIKE);
    case FLT_OP_IS_NOT_NULL: return true;
    default: return false;
    }
}

static bool ref_row(const kcase *c, const flt_pred *p, const pq_vec *v, int64_t i)
{
    bool valid = pq_vec_is_valid(v, i);
    for (int32_t k = 0; k < p->nterms; k++) {
        if (p->terms[k].op == FLT_OP_IS_NULL && !valid) return true;
        if (valid && p->terms[k].op != FLT_OP_IS_NULL) {
            rval x = get_value(v, i);
            if (ref_term(c, &x, &p->terms[k])) return true;
        }
    }
    return false;
}

/* ---- random predicates ----------------------------------------------------------------- */

static uint8_t lit_pool[1 << 16];
static size_t lit_used;

static flt_lit make_lit(const kcase *c, const pq_vec *dict)
{
    rval r = rnd() % 3 && dict->length ? get_value(dict, (int64_t)(rnd() % (uint64_t)dict->length))
                                       : gen_value(c);
    flt_lit l = {0};
    l.i = r.i, l.f = isnan(r.f) ? 0.5 : r.f; /* the parser never makes a NaN literal */
    if (c->dom == FLT_DOM_U32) l.i = (uint32_t)r.i;
    if (c->dom == FLT_DOM_SDEC) { /* literals are 16-byte big-endian (expr.h invariant 4) */
        int64_t val = be_decode(r.b, r.len);
        r.len = 16;
        be_encode(val, r.b, 16);
    }
    if (c->dom == FLT_DOM_BYTES && rnd() % 2 && r.len > 0) r.len--; /* prefixes and misses */
    if (c->dom >= FLT_DOM_BYTES) {
        if (lit_used + 32 > sizeof lit_pool) lit_used = 0;
        memcpy(lit_pool + lit_used, r.b, (size_t)r.len);
        l.b = lit_pool + lit_used, l.len = r.len;
        lit_used += 32;
    }
    return l;
}

static const flt_op all_ops[] = {FLT_OP_EQ, FLT_OP_NE, FLT_OP_LT, FLT_OP_LE, FLT_OP_GT,
                                 FLT_OP_GE, FLT_OP_BETWEEN, FLT_OP_IN, FLT_OP_IS_NULL,
                                 FLT_OP_IS_NOT_NULL, FLT_OP_PREFIX, FLT_OP_FALSE,
                                 FLT_OP_NOT_IN, FLT_OP_LIKE, FLT_OP_NOT_LIKE};

static bool op_allowed(const kcase *c, flt_op op)
{
    if (op == FLT_OP_PREFIX || op == FLT_OP_LIKE || op == FLT_OP_NOT_LIKE)
        return c->dom == FLT_DOM_BYTES;
    return true;
}

/* A random pattern over the values' bytes ('a', 'b', 0x00, 0xff, 'A') and both wildcards,
 * in lits[0..3) as the parser lays it out (expr.h invariant 7). */
static void make_like(flt_term *t, flt_lit *lits)
{
    static const uint8_t al[] = {'a', 'b', 0x00, 0xff, 'A', '%', '_', '%'};
    if (lit_used + 32 > sizeof lit_pool) lit_used = 0;
    uint8_t *pc = lit_pool + lit_used, *pk = pc + 16;
    lit_used += 32;
    int32_t m = (int32_t)rnd_in(0, 6), head = -1;
    for (int32_t i = 0; i < m; i++) {
        uint8_t ch = al[rnd() % sizeof al];
        pc[i] = ch, pk[i] = ch == '%' ? FLT_LIKE_ANY : ch == '_' ? FLT_LIKE_ONE : FLT_LIKE_CHAR;
        if (head < 0 && pk[i] != FLT_LIKE_CHAR) head = i;
    }
    lits[0] = (flt_lit){.b = pc, .len = head < 0 ? m : head};
    lits[1] = (flt_lit){.b = pc, .len = m}, lits[2] = (flt_lit){.b = pk, .len = m};
    t->nlits = 3, t->icase = rnd() % 3 == 0;
}

static void make_term(const kcase *c, const pq_vec *dict, flt_op op, flt_term *t, flt_lit *lits)
{
    *t = (flt_term){.op = op, .lits = lits};
    if (op == FLT_OP_LIKE || op == FLT_OP_NOT_LIKE) return make_like(t, lits);
    if (op <= FLT_OP_GE || op == FLT_OP_PREFIX) t->nlits = 1;
    if (op == FLT_OP_BETWEEN) t->nlits = 2;
    if (op == FLT_OP_IN || op == FLT_OP_NOT_IN) t->nlits = (int32_t)rnd_in(1, 4);
    bool real = c->dom == FLT_DOM_F32 || c->dom == FLT_DOM_F64;
    t->nan = real && (op == FLT_OP_IN || op == FLT_OP_NOT_IN) && rnd() % 2; /* (expr.h 5) */
    for (int32_t k = 0; k < t->nlits; k++) lits[k] = make_lit(c, dict);
}

static int64_t mismatches;

static void check_paths(const kcase *c, const flt_pred *p, const pq_vec *v, const pq_vec *dict,
                        const uint32_t *idx, const flt_mask *in)
{
    flt_mask out = {0};
    flt_path paths[] = {FLT_PATH_DENSE, FLT_PATH_SPARSE, FLT_PATH_AUTO};
    for (int pi = 0; pi < 4; pi++) {
        int rc = pi < 3 ? flt_eval_path(p, v, in, &out, paths[pi])
                        : flt_eval_dict(p, dict, idx, v->length, v->null_count ? v->validity : NULL,
                                        in, &out);
        CHECK(rc == 0);
        CHECK_EQ_I64(out.len, v->length);
        for (int64_t i = 0; i < v->length && rc == 0; i++) {
            bool want = ref_row(c, p, v, i) && (!in || flt_mask_get(in, i));
            if (flt_mask_get(&out, i) != want) {
                if (mismatches++ < 10)
                    fprintf(stderr, "  %s op %d nterms %d path %d row %lld: got %d want %d\n",
                            c->name, p->terms[0].op, p->nterms, pi, (long long)i, !want, want);
                CHECK(0);
                break;
            }
        }
        if (v->length % 64) CHECK((out.words[v->length / 64] >> (v->length % 64)) == 0);
    }
    flt_mask_free(&out);
}

static void one_case(const kcase *c, int64_t n, double null_rate)
{
    pq_vec dict, v;
    pq_vec_init(&dict, c->phys, c->type_length);
    pq_vec_init(&v, c->phys, c->type_length);
    int64_t nd = rnd() % 2 ? rnd_in(1, 64) : rnd_in(65, 300); /* one-word and longer dictionary masks */
    for (int64_t k = 0; k < nd; k++) { rval r = gen_value(c); append(&dict, &r, true); }
    uint32_t *idx = calloc((size_t)n + 1, sizeof *idx);
    for (int64_t i = 0; i < n; i++) {
        bool valid = (double)(rnd() % 1000) >= null_rate * 1000;
        idx[i] = valid ? (uint32_t)(rnd() % (uint64_t)nd) : 0;
        rval r = get_value(&dict, idx[i]);
        append(&v, &r, valid);
    }
    if (v.null_count == 0 && (rnd() & 1)) free(v.validity), v.validity = NULL, v.validity_cap = 0;
    else if (v.null_count == 0) /* no nulls: the bitmap may hold anything (vec.h) */
        for (int64_t k = 0; k < v.validity_cap; k++) v.validity[k] = (uint8_t)rnd();
    free(dict.validity), dict.validity = NULL, dict.validity_cap = 0;
    pq_column_desc d = {.name = c->name, .physical = c->phys, .type_length = c->type_length,
                        .logical = c->logical, .decimal_scale = 0};
    flt_mask in = {0};
    for (size_t oi = 0; oi < sizeof all_ops / sizeof *all_ops; oi++) {
        if (!op_allowed(c, all_ops[oi])) continue;
        for (int rep = 0; rep < 4; rep++) {
            flt_term terms[2];
            flt_lit lits[2][4];
            flt_pred p = {.column = 0, .desc = &d, .dom = c->dom, .nterms = 1 + (rep == 3), .terms = terms};
            make_term(c, &dict, all_ops[oi], &terms[0], lits[0]);
            flt_op op2 = all_ops[rnd() % (sizeof all_ops / sizeof *all_ops)];
            while (!op_allowed(c, op2)) op2 = all_ops[rnd() % (sizeof all_ops / sizeof *all_ops)];
            make_term(c, &dict, op2, &terms[1], lits[1]);
            double dens[] = {1.0, 0.5, 0.05, 0.0};
            for (int di = 0; di < 5; di++) {
                CHECK(flt_mask_init(&in, n, false) == 0);
                for (int64_t i = 0; di < 4 && i < n; i++)
                    if ((double)(rnd() % 1000) < dens[di] * 1000) flt_mask_set(&in, i);
                check_paths(c, &p, &v, &dict, idx, di == 4 ? NULL : &in);
            }
        }
    }
    flt_mask_free(&in);
    free(idx);
    pq_vec_free(&dict), pq_vec_free(&v);
}

static void kernels_match_reference(void)
{
    int64_t lens[] = {1, 63, 64, 65, 1000, 4099};
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++)
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            one_case(&cases[ci], lens[li], 0.0);
            one_case(&cases[ci], lens[li], 0.3);
        }
}

static void errors_and_edges(void)
{
    pq_column_desc d = {.name = "a", .physical = PQ_INT32};
    flt_lit l = {.i = 1};
    flt_term t = {.op = FLT_OP_EQ, .nlits = 1, .lits = &l};
    flt_pred p = {.desc = &d, .dom = FLT_DOM_I32, .nterms = 1, .terms = &t};
    pq_vec dict, wrong;
    pq_vec_init(&dict, PQ_INT32, 0);
    CHECK(pq_vec_reserve(&dict, 2, 0) == 0);
    dict.length = 2, ((int32_t *)dict.values)[0] = 1, ((int32_t *)dict.values)[1] = 2;
    uint32_t idx[3] = {1, 0, 7};
    uint8_t valid = 0x3; /* row 2 null: its bad index is ignored */
    flt_mask out = {0};
    CHECK(flt_eval_dict(&p, &dict, idx, 3, &valid, NULL, &out) == 0);
    CHECK(!flt_mask_get(&out, 0) && flt_mask_get(&out, 1) && !flt_mask_get(&out, 2));
    valid = 0x7;
    CHECK(flt_eval_dict(&p, &dict, idx, 3, &valid, NULL, &out) == RINGSCAN_EFORMAT);
    t.op = FLT_OP_IS_NULL, t.nlits = 0, valid = 0x3;
    CHECK(flt_eval_dict(&p, &dict, idx, 3, &valid, NULL, &out) == 0);
    CHECK(flt_mask_popcount(&out) == 1 && flt_mask_get(&out, 2));
    pq_vec_init(&wrong, PQ_INT64, 0);
    CHECK(flt_eval(&p, &wrong, NULL, &out) == -EINVAL);
    pq_vec empty;
    pq_vec_init(&empty, PQ_INT32, 0);
    CHECK(flt_eval(&p, &empty, NULL, &out) == 0 && out.len == 0);
    flt_mask_free(&out);
    pq_vec_free(&dict);
}

/* ---- multi-column predicates ------------------------------------------------------------ */

static const pq_column_desc mschema[] = {
    {.name = "a", .physical = PQ_INT32},
    {.name = "b", .physical = PQ_INT64},
    {.name = "d", .physical = PQ_DOUBLE},
    {.name = "f", .physical = PQ_FLOAT},
};

/* The rows (bit per row, row 0 lowest) of five rows that text keeps with input mask in_bits:
 * a = [1, null, 3, 4, 5], b = [1, 2, 2, null, 9], d = [NaN, 1, NaN, -0, 2], f = [NaN, 1, 0, 0, 3]. */
static int multi_rows(const char *text, unsigned in_bits)
{
    pq_vec v[4];
    int32_t a[5] = {1, 0, 3, 4, 5};
    int64_t b[5] = {1, 2, 2, 0, 9};
    double d[5] = {NAN, 1, NAN, -0.0, 2};
    float f[5] = {NAN, 1, 0, 0, 3};
    const void *src[4] = {a, b, d, f};
    size_t w[4] = {4, 8, 8, 4};
    for (int c = 0; c < 4; c++) {
        pq_vec_init(&v[c], mschema[c].physical, 0);
        CHECK(pq_vec_reserve(&v[c], 5, 0) == 0);
        memcpy(v[c].values, src[c], 5 * w[c]);
        v[c].length = 5;
        for (int i = 0; i < 5; i++) pq_bit_set(v[c].validity, i, true);
    }
    pq_bit_set(v[0].validity, 1, false), v[0].null_count = 1;
    pq_bit_set(v[1].validity, 3, false), v[1].null_count = 1;
    flt_expr *ex = NULL;
    pq_err e = {0};
    int rows = -1;
    if (flt_parse(text, mschema, 4, &ex, &e)) fprintf(stderr, "  parse %s: %s\n", text, e.msg);
    if (ex && ex->npreds == 1 && ex->preds[0].multi) {
        const flt_multi *m = ex->preds[0].multi;
        const pq_vec *vecs[FLT_MAX_MULTI_COLS];
        for (int32_t i = 0; i < m->ncols; i++) vecs[i] = &v[m->cols[i]];
        flt_mask in = {0}, out = {0};
        CHECK(flt_mask_init(&in, 5, false) == 0);
        for (int i = 0; i < 5; i++)
            if (in_bits >> i & 1) flt_mask_set(&in, i);
        CHECK(flt_eval_multi(&ex->preds[0], vecs, &in, &out) == 0);
        rows = 0;
        for (int i = 0; i < 5; i++) rows |= flt_mask_get(&out, i) << i;
        flt_mask_free(&in), flt_mask_free(&out);
    }
    flt_expr_free(ex);
    for (int c = 0; c < 4; c++) pq_vec_free(&v[c]);
    return rows;
}

static void multi_column_eval(void)
{
    static const struct { const char *text; unsigned in; int want; } cases[] = {
        {"a = b", 0x1f, 0x01},           {"a < b", 0x1f, 0x10},
        {"a >= b", 0x1f, 0x05},          {"NOT a = b", 0x1f, 0x14}, /* nulls stay out */
        {"d = f", 0x1f, 0x0b},           /* NaN = NaN, -0 = 0 */
        {"d > f", 0x1f, 0x04},           /* NaN above 0 */
        {"f >= d", 0x1f, 0x1b},
        {"a = 1 OR b = 9", 0x1f, 0x11},  {"a = 4 OR b IS NULL", 0x1f, 0x08},
        {"a < b", 0x0f, 0x00},           /* the input mask */
        {"a = 1 OR d > f OR b = 2", 0x1d, 0x05},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = multi_rows(cases[i].text, cases[i].in);
        if (got != cases[i].want) fprintf(stderr, "  %s: rows %#x want %#x\n", cases[i].text, got, cases[i].want);
        CHECK(got == cases[i].want);
    }
}

/* Two INT32 and two INT64 columns compared 64 rows at a time (filter/multi.c invariant 2):
 * 200 rows (a partial last word), values equal, below and above each other and of both
 * signs, nulls on either side, an input mask; every operator against the rows computed here. */
static void column_pairs_by_word(void)
{
    enum { N = 200 };
    static const pq_column_desc sch[] = {
        {.name = "x", .physical = PQ_INT32}, {.name = "y", .physical = PQ_INT32},
        {.name = "u", .physical = PQ_INT64}, {.name = "v", .physical = PQ_INT64},
    };
    pq_vec v[4];
    for (int c = 0; c < 4; c++) {
        pq_vec_init(&v[c], sch[c].physical, 0);
        CHECK(pq_vec_reserve(&v[c], N, 0) == 0);
        v[c].length = N;
        for (int i = 0; i < N; i++) pq_bit_set(v[c].validity, i, i % (11 + c) != 5);
        v[c].null_count = 1; /* at least one: validity is read */
    }
    int64_t val[4][N];
    for (int i = 0; i < N; i++) {
        val[0][i] = i % 7 - 3, val[1][i] = i % 5 - 2;
        val[2][i] = (int64_t)(i % 9 - 4) * (INT64_C(1) << 40), val[3][i] = (int64_t)(i % 4 - 2) * (INT64_C(1) << 40);
        int32_t x = (int32_t)val[0][i], y = (int32_t)val[1][i];
        memcpy(v[0].values + 4 * i, &x, 4), memcpy(v[1].values + 4 * i, &y, 4);
        memcpy(v[2].values + 8 * i, &val[2][i], 8), memcpy(v[3].values + 8 * i, &val[3][i], 8);
    }
    static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
    flt_mask in = {0}, out = {0};
    CHECK(flt_mask_init(&in, N, false) == 0);
    for (int i = 0; i < N; i++)
        if (i % 3 != 1) flt_mask_set(&in, i);
    for (int pair = 0; pair < 2; pair++)
        for (int o = 0; o < 6; o++) {
            char text[32];
            snprintf(text, sizeof text, "%s %s %s", pair ? "u" : "x", ops[o], pair ? "v" : "y");
            flt_expr *ex = NULL;
            pq_err e = {0};
            CHECK(flt_parse(text, sch, 4, &ex, &e) == 0);
            if (!ex) continue;
            const flt_multi *m = ex->preds[0].multi;
            const pq_vec *vecs[FLT_MAX_MULTI_COLS];
            for (int32_t i = 0; i < m->ncols; i++) vecs[i] = &v[m->cols[i]];
            CHECK(flt_eval_multi(&ex->preds[0], vecs, &in, &out) == 0);
            int bad = 0, a = 2 * pair, b = 2 * pair + 1;
            for (int i = 0; i < N; i++) {
                int64_t x = val[a][i], y = val[b][i];
                bool holds = o == 0 ? x == y : o == 1 ? x != y : o == 2 ? x < y
                             : o == 3 ? x <= y : o == 4 ? x > y : x >= y;
                bool want = flt_mask_get(&in, i) && pq_bit_get(v[a].validity, i) &&
                            pq_bit_get(v[b].validity, i) && holds;
                bad += flt_mask_get(&out, i) != want;
            }
            if (bad) fprintf(stderr, "  %s: %d rows wrong\n", text, bad);
            CHECK_EQ_I64(bad, 0);
            flt_mask_free(&out);
            flt_expr_free(ex);
        }
    flt_mask_free(&in);
    for (int c = 0; c < 4; c++) pq_vec_free(&v[c]);
}

/* LIKE '%text%' on the dense path searches the whole buffer: hits that cross from one value
 * into the next must not count; rows across word boundaries; NOT LIKE is the complement. */
static void like_contains_buffer(void)
{
    static const char *vals[] = {"ab", "cspe", "cial", "special", "", "xspecialx", "spe",
                                 "cialspecial", "specia", "l"};
    enum { NV = sizeof vals / sizeof *vals, REP = 23 };
    const bool want[NV] = {0, 0, 0, 1, 0, 1, 0, 1, 0, 0};
    pq_column_desc sd = {.name = "s", .physical = PQ_BYTE_ARRAY, .logical = PQ_LOGICAL_STRING};
    pq_vec v;
    pq_vec_init(&v, PQ_BYTE_ARRAY, 0);
    for (int r = 0; r < REP; r++)
        for (int i = 0; i < NV; i++) {
            rval x = {.len = (int32_t)strlen(vals[i])};
            memcpy(x.b, vals[i], (size_t)x.len);
            append(&v, &x, true);
        }
    const char *texts[] = {"s LIKE '%special%'", "s NOT LIKE '%special%'"};
    for (int k = 0; k < 2; k++) {
        flt_expr *ex = NULL;
        pq_err e = {0};
        CHECK(flt_parse(texts[k], &sd, 1, &ex, &e) == 0 && ex->preds[0].terms[0].nlits == 3);
        flt_path paths[] = {FLT_PATH_DENSE, FLT_PATH_SPARSE};
        for (int pi = 0; pi < 2; pi++) {
            flt_mask out = {0};
            CHECK(flt_eval_path(&ex->preds[0], &v, NULL, &out, paths[pi]) == 0);
            for (int64_t i = 0; i < v.length; i++)
                if (flt_mask_get(&out, i) != (want[i % NV] != (k == 1))) {
                    fprintf(stderr, "  %s path %d row %lld '%s'\n", texts[k], pi, (long long)i, vals[i % NV]);
                    CHECK(0);
                    break;
                }
            CHECK(v.length % 64 == 0 || (out.words[v.length / 64] >> (v.length % 64)) == 0);
            flt_mask_free(&out);
        }
        flt_expr_free(ex);
    }
    pq_vec_free(&v);
}

/* <, <=, > and >= on strings (kernel_bytes.c's dense_range_ba: 8-byte big-endian heads, the
 * tie to lengths or memcmp) against ref_cmp, dense and sparse paths, on random values built
 * from a few stems so that heads tie often: lengths 0..40 (crossing 8, 16 and 32), bytes
 * 0x00, 0x7f, 0x80 and 0xff beside letters, literals cut from the values (equal prefixes),
 * the empty literal, and a value ending inside the buffer's last 8 bytes. */
static void string_ranges_match_reference(void)
{
    static const uint8_t al[] = {'a', 'c', 'z', 0x00, 0x7f, 0x80, 0xff};
    static const kcase c = {"str", PQ_BYTE_ARRAY, 0, PQ_LOGICAL_STRING, FLT_DOM_BYTES};
    pq_column_desc d = {.name = "s", .physical = PQ_BYTE_ARRAY, .logical = PQ_LOGICAL_STRING};
    uint8_t stems[4][40];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 40; i++) stems[k][i] = al[rnd() % sizeof al];
    static const flt_op ops[] = {FLT_OP_LT, FLT_OP_LE, FLT_OP_GT, FLT_OP_GE};
    for (int round = 0; round < 200; round++) {
        pq_vec v;
        pq_vec_init(&v, PQ_BYTE_ARRAY, 0);
        int64_t n = rnd_in(1, 300);
        for (int64_t i = 0; i < n; i++) {
            rval x = {.len = (int32_t)rnd_in(0, 40)};
            const uint8_t *stem = stems[rnd() % 4];
            int32_t keep = (int32_t)rnd_in(0, x.len); /* the stem's head, then random bytes */
            for (int32_t k = 0; k < x.len; k++) x.b[k] = k < keep ? stem[k] : al[rnd() % sizeof al];
            append(&v, &x, true);
        }
        rval lv = get_value(&v, (int64_t)(rnd() % (uint64_t)n));
        lv.len = rnd() % 4 == 0 ? (int32_t)rnd_in(0, lv.len) : lv.len; /* a prefix, maybe empty */
        if (rnd() % 3 == 0 && lv.len > 0) lv.b[lv.len - 1] ^= (uint8_t)(1u << (rnd() % 8));
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++) {
            flt_lit l = {.b = lv.b, .len = lv.len};
            flt_term t = {.op = ops[oi], .lits = &l, .nlits = 1};
            flt_pred p = {.column = 0, .desc = &d, .dom = FLT_DOM_BYTES, .nterms = 1, .terms = &t};
            flt_path paths[] = {FLT_PATH_DENSE, FLT_PATH_SPARSE};
            for (int pi = 0; pi < 2; pi++) {
                flt_mask out = {0};
                CHECK(flt_eval_path(&p, &v, NULL, &out, paths[pi]) == 0);
                for (int64_t i = 0; i < n; i++) {
                    rval x = get_value(&v, i);
                    int r = ref_cmp(&c, &x, &l);
                    bool want = ops[oi] == FLT_OP_LT ? r < 0 : ops[oi] == FLT_OP_LE ? r <= 0
                              : ops[oi] == FLT_OP_GT ? r > 0 : r >= 0;
                    if (flt_mask_get(&out, i) != want) {
                        if (mismatches++ < 10)
                            fprintf(stderr, "  op %d path %d row %lld len %d lit len %d: got %d\n",
                                    ops[oi], pi, (long long)i, x.len, l.len, !want);
                        CHECK(0);
                        break;
                    }
                }
                CHECK(n % 64 == 0 || (out.words[n / 64] >> (n % 64)) == 0);
                flt_mask_free(&out);
            }
        }
        pq_vec_free(&v);
    }
}

/* common/bits.h against a bit-by-bit reference: bits_rows (and bits_rows_wide) lists base +
 * each set bit and bits_keep32 picks src at each set bit, in place too (dst == src, words after
 * words), on words with no bit, every bit, one bit at either end, 16-bit runs and random bits;
 * neither writes past its count, nor bits_rows_wide past its count + 8 (a guard entry after it
 * keeps its value). */
static void bits_lists_match_reference(void)
{
    enum { W = 40 };
    uint64_t words[W] = {0, ~UINT64_C(0), 1, UINT64_C(1) << 63, 0xffff, 0xffff0000ffff0000ull,
                         0x8000000000000001ull, 0x0001000100010001ull};
    for (int i = 8; i < W; i++) words[i] = rnd() & (i % 3 ? rnd() : ~UINT64_C(0));
    uint32_t src[W * 64], inplace[W * 64 + 1];
    for (int i = 0; i < W * 64; i++) src[i] = inplace[i] = (uint32_t)rnd();
    inplace[W * 64] = 0xdeadbeef;
    int bad = 0;
    int64_t at = 0;
    for (int w = 0; w < W; w++) {
        uint32_t got[65], want[64];
        int64_t n = 0;
        for (int b = 0; b < 64; b++)
            if ((words[w] >> b) & 1) want[n++] = 1000u + (uint32_t)(w * 64 + b);
        got[n] = 0xdeadbeef;
        bad += bits_rows(words[w], 1000u + (uint32_t)(w * 64), got) != n || got[n] != 0xdeadbeef;
        for (int64_t j = 0; j < n; j++) bad += got[j] != want[j];
        uint32_t wide[64 + 9]; /* room for n + 8, then a guard */
        wide[n + 8] = 0xdeadbeef;
        bad += bits_rows_wide(words[w], 1000u + (uint32_t)(w * 64), wide) != n;
        bad += wide[n + 8] != 0xdeadbeef;
        for (int64_t j = 0; j < n; j++) bad += wide[j] != want[j];
        n = 0;
        for (int b = 0; b < 64; b++)
            if ((words[w] >> b) & 1) want[n++] = src[w * 64 + b];
        got[n] = 0xdeadbeef;
        bad += bits_keep32(words[w], src + w * 64, got) != n || got[n] != 0xdeadbeef;
        for (int64_t j = 0; j < n; j++) bad += got[j] != want[j];
        bad += bits_keep32(words[w], inplace + w * 64, inplace + at) != n;
        for (int64_t j = 0; j < n; j++) bad += inplace[at + j] != want[j];
        at += n;
    }
    CHECK_EQ_I64(bad, 0);
    CHECK(inplace[W * 64] == 0xdeadbeef);
}

/* flt_mask_select against the mask's bits at every room 0..count + 10 (its wide path where
 * 8 entries past a word's rows fit in the room, the row-by-row one after): the count always,
 * the first min(room, count) rows, nothing written past the room (a guard after it), on
 * masks of 1..700 bits sparse, dense, full and with runs. */
static void mask_select_every_room(void)
{
    int bad = 0;
    for (int t = 0; t < 60; t++) {
        int64_t n = 1 + rnd_in(0, 699), cnt = 0;
        int every = t % 4 == 0 ? 1 : t % 4 == 1 ? 2 : t % 4 == 2 ? 9 : 40;
        flt_mask m = {0};
        CHECK(flt_mask_init(&m, n, false) == 0);
        uint32_t want[700], got[712];
        for (int64_t i = 0; i < n; i++)
            if (rnd() % (uint64_t)every == 0 || (t % 5 == 0 && i % 128 < 70)) {
                flt_mask_set(&m, i);
                want[cnt++] = (uint32_t)i;
            }
        for (int64_t room = 0; room <= cnt + 10; room++) {
            memset(got, 0xab, sizeof got);
            bad += flt_mask_select(&m, got, room) != cnt;
            for (int64_t j = 0; j < room && j < cnt; j++) bad += got[j] != want[j];
            bad += got[room] != 0xababababu;
        }
        flt_mask_free(&m);
    }
    CHECK_EQ_I64(bad, 0);
}

int main(void)
{
    RUN(bits_lists_match_reference);
    RUN(mask_select_every_room);
    RUN(mask_ops_odd_lengths);
    RUN(like_contains_buffer);
    RUN(multi_column_eval);
    RUN(column_pairs_by_word);
    RUN(mask_ranges);
    RUN(errors_and_edges);
    RUN(kernels_match_reference);
    RUN(string_ranges_match_reference);
    return CHECK_DONE("test_filter_kernel");
}
