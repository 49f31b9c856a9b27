/* cli/checksum.c: the count format's checksum over Arrow arrays (definition and the rebuilt
 * stored forms in checksum.h). The type dispatch happens once per column per batch; the row
 * loops under it are plain. */
#include "cli/checksum.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static uint64_t fnv1a64(const uint8_t *p, int64_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Width of the fixed-width integer formats (0: not one). */
static int int_width(const char *f, bool *is_signed)
{
    static const struct { const char *fmt; int width; bool is_signed; } t[] = {
        {"c", 1, true}, {"s", 2, true}, {"i", 4, true}, {"l", 8, true},  {"C", 1, false},
        {"S", 2, false}, {"I", 4, true}, {"L", 8, true}, {"f", 4, false}, {"g", 8, true},
        {"tdD", 4, true}, {"ttm", 4, true}, {"ttu", 8, true}, {"ttn", 8, true},
        {"tDs", 8, true}, {"tDm", 8, true}, {"tDu", 8, true}, {"tDn", 8, true},
    };
    /* "I": a UINT32 is stored as INT32 and summed sign-extended like every INT32 */
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(f, t[i].fmt) == 0) return *is_signed = t[i].is_signed, t[i].width;
    if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':') return *is_signed = true, 8;
    return 0;
}

int sum_col_init(sum_col *c, const struct ArrowSchema *s, const ringscan_column_info *ci)
{
    if (s->dictionary) { /* strings or binary, summed as their values */
        int rc = sum_col_init(c, s->dictionary, ci);
        if (rc == 0 && c->kind != SUM_VAR) rc = -EINVAL;
        return rc ? rc : print_col_init(&c->pc, s, false); /* the indices' width too */
    }
    const char *f = s->format;
    bool sgn = false;
    int w = int_width(f, &sgn), n = 0;
    if (f[0] == '+') {
        *c = (sum_col){.kind = SUM_JSON};
        return print_col_init(&c->pc, s, false);
    }
    if (ci->physical == RINGSCAN_INT96) {
        if (strcmp(f, "w:12") != 0) return -EINVAL;
        *c = (sum_col){.kind = SUM_FIXED, .width = 12};
    } else if (w) *c = (sum_col){.kind = sgn ? SUM_SIGNED : SUM_UNSIGNED, .width = w};
    else if (strcmp(f, "b") == 0) *c = (sum_col){.kind = SUM_BOOL, .width = 0};
    else if (strchr("uzUZ", f[0]) && !f[1]) *c = (sum_col){.kind = SUM_VAR};
    else if (strcmp(f, "vu") == 0 || strcmp(f, "vz") == 0) *c = (sum_col){.kind = SUM_VAR};
    else if (strcmp(f, "n") == 0) *c = (sum_col){.kind = SUM_NULL};
    else if (strcmp(f, "e") == 0) *c = (sum_col){.kind = SUM_FIXED, .width = 2};
    else if (sscanf(f, "w:%d", &n) == 1 && n > 0) *c = (sum_col){.kind = SUM_FIXED, .width = n};
    else if (f[0] == 'd' && f[1] == ':') {
        int p, sc, bits = 128;
        if (sscanf(f, "d:%d,%d,%d", &p, &sc, &bits) < 2 || (bits != 32 && bits != 64 && bits != 128 && bits != 256))
            return -EINVAL;
        if (ci->physical == RINGSCAN_FIXED_LEN_BYTE_ARRAY) *c = (sum_col){.kind = SUM_DEC_FIXED, .width = ci->type_length};
        else if (ci->physical == RINGSCAN_BYTE_ARRAY) *c = (sum_col){.kind = SUM_DEC_VAR};
        else *c = (sum_col){.kind = SUM_DEC_LOW};
        c->dec_bytes = bits / 8;
    } else return -EINVAL;
    return c->kind == SUM_VAR ? print_col_init(&c->pc, s, false) : 0;
}

static uint64_t load_int(const uint8_t *p, int width, bool is_signed)
{
    uint64_t x = 0;
    memcpy(&x, p, (size_t)width); /* little-endian host */
    if (is_signed && width < 8 && (x >> (8 * width - 1)) & 1) x |= ~UINT64_C(0) << (8 * width);
    return x;
}

/* Hash of a decimal of lw little-endian bytes as `width` big-endian two's complement bytes
 * (sign-extended past lw), or, when width is 0, as the fewest bytes that keep its sign. */
static uint64_t dec_hash(const uint8_t *le, int lw, int width)
{
    uint8_t be[64];
    uint8_t sign = (le[lw - 1] & 0x80) ? 0xff : 0;
    int n = width;
    if (n == 0) {
        n = lw;
        while (n > 1 && le[n - 1] == sign && ((le[n - 2] ^ sign) & 0x80) == 0) n--;
    }
    if (n > (int)sizeof be) n = (int)sizeof be;
    for (int i = 0; i < n; i++) be[n - 1 - i] = i < lw ? le[i] : sign;
    return fnv1a64(be, n);
}

/* Row r of a string or binary array (any offsets, views, a dictionary's value) hashed. */
static uint64_t var_hash(const print_col *pc, const struct ArrowArray *a, int64_t r)
{
    const uint8_t *p;
    int64_t n = print_value_bytes(pc, a, r, &p);
    assert(n >= 0);
    return fnv1a64(p, n); /* an empty value may be at NULL: no byte is read */
}

/* acc += expr over the valid rows i of a (the type dispatch stays outside the row loop). */
#define SUM_ROWS(expr)                                                                       \
    for (int64_t r = 0; r < a->length; r++) {                                                \
        int64_t i = a->offset + r;                                                           \
        if (!valid || ((valid[i >> 3] >> (i & 7)) & 1)) acc += (expr);                       \
    }

/* acc += the valid rows' integers: the low w bytes of each stride-byte value. Each width gets
 * its own loop with a constant width, so load_int's memcpy is a plain load (a memcpy of a
 * variable size was a call per row: most of the CLI's checksum time on an int64 column). */
static void sum_ints(const struct ArrowArray *a, const uint8_t *valid, const uint8_t *p,
                     int stride, int w, bool is_signed, uint64_t *sum)
{
    assert(w <= stride);
    uint64_t acc = *sum;
    switch (w) {
    case 1: SUM_ROWS(load_int(p + i * stride, 1, is_signed)); break;
    case 2: SUM_ROWS(load_int(p + i * stride, 2, is_signed)); break;
    case 4: SUM_ROWS(load_int(p + i * stride, 4, is_signed)); break;
    case 8: SUM_ROWS(load_int(p + i * stride, 8, is_signed)); break;
    default: assert(!"an integer width sum_col_init does not make"); break;
    }
    *sum = acc;
}

/* print_nested_text's emit: FNV-1a 64 continued over the piece. */
static void emit_fnv(void *ctx, const uint8_t *p, size_t n, bool last)
{
    uint64_t *h = ctx;
    (void)last;
    for (size_t i = 0; i < n; i++) *h = (*h ^ p[i]) * 0x100000001b3ull;
}

/* FNV-1a 64 of row r's JSON text (checksum.h); a text that cannot be rendered hashes as the
 * bytes rendered before the failure (said on stderr once). */
static uint64_t json_hash(const print_col *pc, const struct ArrowArray *a, int64_t r)
{
    uint64_t h = 0xcbf29ce484222325ull;
    static bool said;
    if (print_nested_text(pc, a, r, emit_fnv, &h) && !said) {
        said = true;
        fprintf(stderr, "ringscan: a nested value's JSON text could not be rendered for the checksum\n");
    }
    return h;
}

void sum_col_add(const sum_col *c, const struct ArrowArray *a, uint64_t *sum)
{
    if (c->kind == SUM_NULL) return; /* no buffers; every row null */
    const uint8_t *valid = a->null_count != 0 ? a->buffers[0] : NULL;
    const uint8_t *p = a->buffers[1];
    int w = c->width, db = c->dec_bytes;
    uint64_t acc = *sum;
    switch (c->kind) {
    case SUM_SIGNED: sum_ints(a, valid, p, w, w, true, &acc); break;
    case SUM_UNSIGNED: sum_ints(a, valid, p, w, w, false, &acc); break;
    case SUM_BOOL: SUM_ROWS((uint64_t)((p[i >> 3] >> (i & 7)) & 1)); break;
    case SUM_DEC_LOW: sum_ints(a, valid, p, db, db < 8 ? db : 8, true, &acc); break;
    case SUM_DEC_FIXED: SUM_ROWS(dec_hash(p + i * db, db, w)); break;
    case SUM_DEC_VAR: SUM_ROWS(dec_hash(p + i * db, db, 0)); break;
    case SUM_FIXED: SUM_ROWS(fnv1a64(p + i * w, w)); break;
    case SUM_VAR: SUM_ROWS(var_hash(&c->pc, a, i - a->offset)); break;
    case SUM_JSON: SUM_ROWS(json_hash(&c->pc, a, i - a->offset)); break;
    case SUM_NULL: break;
    }
    *sum = acc;
}

uint64_t sum_checksum(const uint64_t *col_sum, int n)
{
    assert(n >= 0);
    uint64_t c = 0;
    for (int j = 0; j < n; j++) c = c * 1000003ull + col_sum[j];
    return c;
}
