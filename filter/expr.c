/* filter/expr.c: the expression arena, column domains, dates, and the Top-K bound cell
 * (see expr.h for the invariants). Literal typing with exact rounding is in lit.c. */
#include "filter/expr.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct flt_arena {
    struct flt_arena *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *flt_arena_alloc(struct flt_arena **a, size_t n)
{
    assert(a && n < ((size_t)1 << 40));
    n = (n + 15) & ~(size_t)15;
    if (!*a || (*a)->cap - (*a)->used < n) {
        size_t cap = n > 16384 ? n : 16384;
        struct flt_arena *c = fail_malloc(sizeof *c + cap);
        if (!c) return NULL;
        c->next = *a;
        c->used = 0;
        c->cap = cap;
        *a = c;
    }
    void *p = (*a)->data + (*a)->used;
    (*a)->used += n;
    memset(p, 0, n);
    return p;
}

flt_expr *flt_expr_new(void)
{
    struct flt_arena *a = NULL;
    flt_expr *ex = flt_arena_alloc(&a, sizeof *ex);
    if (!ex) return NULL;
    ex->arena = a;
    return ex;
}

void flt_expr_free(flt_expr *ex)
{
    if (!ex) return;
    struct flt_arena *a = ex->arena; /* ex itself lives in the arena */
    while (a) {
        struct flt_arena *n = a->next;
        free(a);
        a = n;
    }
}

const char *flt_physical_name(pq_physical t)
{
    static const char *n[] = {"BOOLEAN", "INT32", "INT64", "INT96",
                              "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return (unsigned)t < 8 ? n[t] : "?";
}

const char *flt_part_name(int32_t part)
{
    static const char *n[] = {"", "month", "day", "quarter"};
    return part >= 0 && part < 4 ? n[part] : "";
}

size_t flt_scaled_text(__int128 v, int32_t scale, char *buf)
{
    assert(scale >= 0 && scale <= 38);
    char digits[48];
    int n = 0;
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    do digits[n++] = (char)('0' + (int)(u % 10)), u /= 10;
    while (u || n <= scale);
    size_t k = 0;
    if (v < 0) buf[k++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        buf[k++] = digits[i];
        if (i == scale && scale > 0) buf[k++] = '.';
    }
    buf[k] = 0;
    return k;
}

const char *flt_op_name(flt_op op)
{
    static const char *n[] = {"=", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN",
                              "IS NULL", "IS NOT NULL", "LIKE", "FALSE", "NOT IN", "LIKE",
                              "NOT LIKE"};
    return (unsigned)op <= FLT_OP_NOT_LIKE ? n[op] : "?";
}

static bool logical_unsigned(pq_logical l)
{
    return l == PQ_LOGICAL_UINT8 || l == PQ_LOGICAL_UINT16 || l == PQ_LOGICAL_UINT32 ||
           l == PQ_LOGICAL_UINT64;
}

int flt_domain_of(const pq_column_desc *d, flt_domain *dom, pq_err *e)
{
    assert(d && dom);
    bool dec = d->logical == PQ_LOGICAL_DECIMAL;
    switch (d->physical) {
    case PQ_BOOLEAN: *dom = FLT_DOM_BOOL; return 0;
    case PQ_INT32: *dom = logical_unsigned(d->logical) ? FLT_DOM_U32 : FLT_DOM_I32; return 0;
    case PQ_INT64: *dom = logical_unsigned(d->logical) ? FLT_DOM_U64 : FLT_DOM_I64; return 0;
    case PQ_INT96: *dom = FLT_DOM_INT96; return 0;
    case PQ_FLOAT: *dom = FLT_DOM_F32; return 0;
    case PQ_DOUBLE: *dom = FLT_DOM_F64; return 0;
    case PQ_BYTE_ARRAY: *dom = dec ? FLT_DOM_SDEC : FLT_DOM_BYTES; return 0;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (d->logical == PQ_LOGICAL_FLOAT16 || d->logical == PQ_LOGICAL_INTERVAL)
            return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1,
                           "comparisons on FLOAT16/INTERVAL column '%s' are not supported",
                           d->name);
        *dom = dec ? FLT_DOM_SDEC : FLT_DOM_BYTES;
        return 0;
    }
    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%s' has an unknown physical type",
                   d->name);
}

/* H. Hinnant's civil_from_days. */
void flt_civil_from_days(int64_t z, int64_t *y, int64_t *m, int64_t *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1, *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yoe + era * 400 + (*m <= 2);
}

bool flt_days_from_civil(int64_t y, int64_t m, int64_t d, int64_t *days)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < -9999 || y > 9999 || m < 1 || m > 12 || d < 1) return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[m - 1] + (m == 2 && leap)) return false;
    /* Howard Hinnant's days_from_civil */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *days = era * 146097 + doe - 719468;
    return true;
}

/* ---- dynamic bounds -------------------------------------------------------------------- */

static uint64_t dyn_bits(flt_domain dom, flt_lit v)
{
    uint64_t b;
    if (dom == FLT_DOM_F32 || dom == FLT_DOM_F64) memcpy(&b, &v.f, 8);
    else b = (uint64_t)v.i;
    return b;
}

/* True when bound a is strictly stricter than b. */
static bool dyn_stricter(flt_domain dom, bool descending, uint64_t a, uint64_t b)
{
    int c;
    if (dom == FLT_DOM_F32 || dom == FLT_DOM_F64) {
        double x, y;
        memcpy(&x, &a, 8), memcpy(&y, &b, 8);
        c = x < y ? -1 : x > y ? 1 : 0; /* NaN compares equal: never stricter */
    } else if (dom == FLT_DOM_U64) {
        c = a < b ? -1 : a > b;
    } else {
        c = (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
    }
    return descending ? c > 0 : c < 0;
}

bool flt_dyn_publish(flt_dyn *d, flt_domain dom, bool descending, flt_lit v)
{
    assert(d);
    if ((dom == FLT_DOM_F32 || dom == FLT_DOM_F64) && v.f != v.f) return false; /* NaN */
    uint64_t nb = dyn_bits(dom, v);
    if (atomic_load_explicit(&d->state, memory_order_acquire) != 2) {
        /* the first publication: writers racing it wait on the lock, held for two stores,
         * instead of spinning until the winner's value is visible */
        pthread_mutex_lock(&d->first);
        bool first = atomic_load_explicit(&d->state, memory_order_relaxed) == 0;
        if (first) {
            atomic_store_explicit(&d->bits, nb, memory_order_relaxed);
            atomic_store_explicit(&d->state, 2, memory_order_release);
            atomic_fetch_add_explicit(&d->version, 1, memory_order_release);
        }
        pthread_mutex_unlock(&d->first);
        if (first) return true;
    }
    uint64_t cur = atomic_load_explicit(&d->bits, memory_order_relaxed);
    while (dyn_stricter(dom, descending, nb, cur)) {
        if (atomic_compare_exchange_weak_explicit(&d->bits, &cur, nb, memory_order_acq_rel,
                                                  memory_order_relaxed)) {
            atomic_fetch_add_explicit(&d->version, 1, memory_order_release);
            return true;
        }
    }
    return false;
}

bool flt_dyn_load(flt_dyn *d, flt_domain dom, flt_lit *v, uint64_t *version)
{
    assert(d && v);
    uint64_t ver = atomic_load_explicit(&d->version, memory_order_acquire);
    if (atomic_load_explicit(&d->state, memory_order_acquire) != 2) return false;
    uint64_t b = atomic_load_explicit(&d->bits, memory_order_acquire);
    memset(v, 0, sizeof *v);
    if (dom == FLT_DOM_F32 || dom == FLT_DOM_F64) memcpy(&v->f, &b, 8);
    else v->i = (int64_t)b;
    if (version) *version = ver;
    return true;
}

int flt_expr_add_dynamic(flt_expr *ex, const pq_column_desc *cols, int32_t ncols,
                         int32_t column, int flags, flt_dyn *dyn, pq_err *e)
{
    assert(ex && cols && dyn);
    if (column < 0 || column >= ncols)
        return pq_errf(e, -EINVAL, -1, "Top-K column %d is not in the schema", column);
    flt_domain dom;
    int rc = flt_domain_of(&cols[column], &dom, e);
    if (rc) return rc;
    if (dom == FLT_DOM_BOOL || dom == FLT_DOM_BYTES || dom == FLT_DOM_SDEC ||
        dom == FLT_DOM_INT96)
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1,
                       "Top-K bound on column '%s' needs a numeric column", cols[column].name);
    if (ex->npreds >= FLT_MAX_PREDS)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "more than %d conjuncts", FLT_MAX_PREDS);
    bool desc = flags & FLT_DYN_DESC, nulls = flags & FLT_DYN_NULLS_FIRST;
    flt_pred *np = flt_arena_alloc(&ex->arena, (size_t)(ex->npreds + 1) * sizeof *np);
    flt_term *t = flt_arena_alloc(&ex->arena, 2 * sizeof *t);
    flt_lit *l = flt_arena_alloc(&ex->arena, sizeof *l);
    if (!np || !t || !l) return -ENOMEM;
    if (ex->npreds) memcpy(np, ex->preds, (size_t)ex->npreds * sizeof *np);
    t[0] = (flt_term){.op = desc ? FLT_OP_GE : FLT_OP_LE, .nlits = 1, .lits = l};
    t[1] = (flt_term){.op = FLT_OP_IS_NULL};
    flt_pred *p = &np[ex->npreds];
    *p = (flt_pred){.column = column, .desc = &cols[column], .dom = dom,
                    .nterms = nulls ? 2 : 1, .terms = t, .dyn = dyn,
                    .keep_nan = desc && (dom == FLT_DOM_F32 || dom == FLT_DOM_F64)};
    ex->preds = np;
    ex->npreds++;
    return 0;
}

const flt_term *flt_dyn_terms(const flt_pred *p, flt_term dt[2], flt_lit *dl)
{
    if (!p->dyn) return p->terms;
    assert(p->nterms >= 1 && p->nterms <= 2);
    if (!flt_dyn_load(p->dyn, p->dom, dl, NULL)) return NULL;
    memcpy(dt, p->terms, sizeof *dt * (size_t)p->nterms);
    dt[0].lits = dl;
    return dt;
}
