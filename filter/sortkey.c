/* filter/sortkey.c: ORDER BY key comparisons (sortkey.h). */
#include "filter/sortkey.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filter/kernel.h"

int flt_sort_key_init(flt_sort_key *k, const pq_column_desc *d, bool desc, bool nulls_first,
                      pq_err *e)
{
    assert(k && d);
    *k = (flt_sort_key){.desc = desc, .nulls_first = nulls_first};
    return flt_domain_of(d, &k->dom, e);
}

#define SIGN3(a, b) ((a) < (b) ? -1 : (a) > (b))

/* NaN above every number, equal to itself (invariant 1). */
static int cmp_double(double a, double b)
{
    bool an = a != a, bn = b != b;
    if (an || bn) return an - bn;
    return SIGN3(a, b);
}

static void bytes_at(const pq_vec *v, int64_t i, const uint8_t **p, int32_t *len)
{
    if (v->type == PQ_BYTE_ARRAY) {
        *p = v->data ? v->data + v->offsets[i] : (const uint8_t *)"";
        *len = v->offsets[i + 1] - v->offsets[i];
        return;
    }
    int32_t w = pq_fixed_width(v->type, v->type_length);
    *p = v->values + i * w;
    *len = w;
}

/* The values of two valid rows, ascending. */
static int cmp_values(flt_domain dom, const pq_vec *a, int64_t i, const pq_vec *b, int64_t j)
{
    switch (dom) {
    case FLT_DOM_BOOL: return (int)pq_bit_get(a->values, i) - (int)pq_bit_get(b->values, j);
    case FLT_DOM_I32: return SIGN3(((const int32_t *)a->values)[i], ((const int32_t *)b->values)[j]);
    case FLT_DOM_U32: return SIGN3(((const uint32_t *)a->values)[i], ((const uint32_t *)b->values)[j]);
    case FLT_DOM_I64: return SIGN3(((const int64_t *)a->values)[i], ((const int64_t *)b->values)[j]);
    case FLT_DOM_U64: return SIGN3(((const uint64_t *)a->values)[i], ((const uint64_t *)b->values)[j]);
    case FLT_DOM_F32:
        return cmp_double(((const float *)a->values)[i], ((const float *)b->values)[j]);
    case FLT_DOM_F64:
        return cmp_double(((const double *)a->values)[i], ((const double *)b->values)[j]);
    case FLT_DOM_INT96: return flt_cmp_int96(a->values + i * 12, b->values + j * 12);
    default: break;
    }
    const uint8_t *pa, *pb;
    int32_t la, lb;
    bytes_at(a, i, &pa, &la);
    bytes_at(b, j, &pb, &lb);
    return dom == FLT_DOM_SDEC ? flt_cmp_sdec(pa, la, pb, lb) : flt_cmp_bytes(pa, la, pb, lb);
}

int flt_sort_cmp(const flt_sort_key *k, const pq_vec *a, int64_t i, const pq_vec *b, int64_t j)
{
    assert(i >= 0 && i < a->length && j >= 0 && j < b->length);
    bool va = pq_vec_is_valid(a, i), vb = pq_vec_is_valid(b, j);
    if (!va || !vb) {
        if (va == vb) return 0;
        return (!va) == k->nulls_first ? -1 : 1; /* invariant 2 */
    }
    int c = cmp_values(k->dom, a, i, b, j);
    return k->desc ? -c : c;
}

int flt_keys_cmp(const flt_sort_key *keys, int n, const flt_sort_row *x, const flt_sort_row *y)
{
    for (int k = 0; k < n; k++) {
        int c = flt_sort_cmp(&keys[k], x->keys[k], x->i, y->keys[k], y->i);
        if (c) return c;
    }
    return SIGN3(x->pos, y->pos);
}

/* ------------------------------------------------------------------- ORDER BY text */

typedef struct order_lex {
    const char *s, *at;
    char word[1024];      /* the last identifier or keyword, unescaped */
    bool quoted;
} order_lex;

static void skip_space(order_lex *x)
{
    while (isspace((unsigned char)*x->at)) x->at++;
}

static int lex_err(order_lex *x, pq_err *e, const char *what)
{
    int64_t pos = (int64_t)(x->at - x->s) + 1;
    pq_errf(e, RINGSCAN_EPARSE, -1, "ORDER BY: expected %s at character %lld", what, (long long)pos);
    if (e) e->offset = pos;
    return RINGSCAN_EPARSE;
}

/* The next word (bare or quoted) into x->word; false when none starts here. */
static bool next_word(order_lex *x)
{
    skip_space(x);
    size_t n = 0;
    x->quoted = *x->at == '"';
    if (x->quoted) {
        const char *p = x->at + 1;
        for (; *p && !(*p == '"' && p[1] != '"'); p++) {
            if (*p == '"') p++; /* "" is one quote */
            if (n + 1 >= sizeof x->word) return false;
            x->word[n++] = *p;
        }
        if (*p != '"') return false;
        x->at = p + 1;
    } else {
        while (isalnum((unsigned char)*x->at) || *x->at == '_' || *x->at == '.' ||
               (unsigned char)*x->at >= 0x80) { /* (UTF-8 past ASCII: as the filter's names) */
            if (n + 1 >= sizeof x->word) return false;
            x->word[n++] = *x->at++;
        }
    }
    x->word[n] = 0;
    return n > 0 || x->quoted;
}

/* Whether the next bare word is kw (consumed when it is). */
static bool keyword(order_lex *x, const char *kw)
{
    order_lex save = *x;
    if (next_word(x) && !x->quoted && strcasecmp(x->word, kw) == 0) return true;
    *x = save;
    return false;
}

static int find_col(const pq_column_desc *cols, int32_t ncols, const char *name)
{
    int32_t c = pq_columns_find(cols, ncols, name); /* (case-insensitive, -2 ambiguous) */
    return c >= 0 ? c : -1;
}

/* One key: column, direction, null placement. */
static int parse_key(order_lex *x, const pq_column_desc *cols, int32_t ncols, bool desc_default,
                     flt_order_term *t, pq_err *e)
{
    const char *start = x->at;
    if (!next_word(x)) return lex_err(x, e, "a column name");
    int c = find_col(cols, ncols, x->word);
    if (c < 0) {
        x->at = start;
        skip_space(x);
        return pq_errf(e, -EINVAL, -1, "ORDER BY: no column named '%s'", x->word);
    }
    *t = (flt_order_term){.column = c, .desc = desc_default};
    if (keyword(x, "desc")) t->desc = true;
    else if (keyword(x, "asc")) t->desc = false;
    if (keyword(x, "nulls")) {
        if (keyword(x, "first")) t->nulls_first = true;
        else if (!keyword(x, "last")) return lex_err(x, e, "FIRST or LAST");
    }
    return 0;
}

int flt_parse_order(const char *text, const pq_column_desc *cols, int32_t ncols,
                    bool desc_default, flt_order_term *out, int *n, pq_err *e)
{
    assert(text && cols && out && n);
    *n = 0;
    if (strlen(text) >= FLT_MAX_TEXT)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "ORDER BY text over %d bytes", FLT_MAX_TEXT);
    order_lex x = {.s = text, .at = text};
    for (;;) {
        if (*n == FLT_MAX_SORT_KEYS)
            return pq_errf(e, RINGSCAN_ELIMIT, -1, "ORDER BY: more than %d keys", FLT_MAX_SORT_KEYS);
        int rc = parse_key(&x, cols, ncols, desc_default, &out[*n], e);
        if (rc) return rc;
        (*n)++;
        skip_space(&x);
        if (*x.at == 0) return 0;
        if (*x.at != ',') return lex_err(&x, e, "',' or the end");
        x.at++;
    }
}
