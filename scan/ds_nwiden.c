/* scan/ds_nwiden.c: a file's rows of a nested field rewritten into the dataset's shape of it
 * (the first file that has the field or, in a union by name, the file whose leaves and struct
 * fields the others' fit into, or a merged one: ds_nested.c), as DuckDB reads them: leaves
 * widened (list<int32> under list<int64>, FLOAT to DOUBLE, an integer to DOUBLE, FLOAT or
 * HUGEINT, a timestamp to a finer unit, INT96 read as nanoseconds and written) or, without
 * union_by_name, cast to the first file's with a range check (list<int64> under list<int32>,
 * DOUBLE to FLOAT, a FLOAT or DOUBLE to an integer rounded half to even, a timestamp to a
 * coarser unit when exact, a string parsed: ds_parse_leaf); struct fields by
 * name (moved to the dataset's order, null where the file lacks one, dropped where the
 * dataset does). The packed rows (format/column_nested.h) are rewritten value by value into
 * the dataset's layout (a flat list's element width changes with its leaf's).
 *
 * Invariants:
 *  1. The two shapes are paired (ds_nmatch.c: fits): kinds alike, each leaf pair one
 *     ds_nested_leaf_widens or ds_nested_leaf_casts accepts.
 *  2. Packed rows are the decoder's own, still every length is checked against what remains
 *     (RINGSCAN_EFORMAT naming the column on a mismatch); the rewritten rows grow as written
 *     (put), at most INT32_MAX bytes (-EOVERFLOW). */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/ds_impl.h"

typedef struct nw {
    const pq_file_meta *fm, *tm;
    const ds_npair *pr;         /* the two shapes and their pairing (ds_nmatch.c) */
    const uint8_t *p, *end;     /* the file's row being read */
    pq_vec *w;                  /* the rewritten rows: w->data_len bytes written */
    int rc;                     /* put's -ENOMEM or -EOVERFLOW */
    const uint8_t **pos;        /* [pr->nf]: where each field of the struct being read starts */
    int32_t bad;                /* >= 0: the node whose value (bad_text) its type cannot hold */
    bool lossy;                 /* bad: a timestamp whose unit change would lose digits */
    char bad_text[32];
} nw;

/* Appends n bytes to the rewritten rows (grown as needed, at most INT32_MAX). */
static bool put(nw *x, const void *src, int64_t n)
{
    pq_vec *w = x->w;
    if (w->data_len + n > INT32_MAX) return x->rc = -EOVERFLOW, false;
    if (w->data_len + n > w->data_cap && (x->rc = pq_vec_reserve(w, 0, n))) return false;
    memcpy(w->data + w->data_len, src, (size_t)n), w->data_len += n;
    return true;
}

/* Whether a leaf of type f read into type t needs its value checked (ds_nested_leaf_casts: an
 * integer narrowed, a DOUBLE to FLOAT). */
static bool ranged(const pq_column_desc *f, const pq_column_desc *t)
{
    return (t->physical == PQ_FLOAT && f->physical == PQ_DOUBLE) ||
           (ds_int_range(t, &(__int128){0}, &(__int128){0}) && !ds_int_within(f, t)); /* (a
                                                                   FLOAT or DOUBLE: within none) */
}

/* Whether value i (an integer; real: d, a number, rounded to it half to even as DuckDB
 * casts a DOUBLE to an integer) of node kt fits t (ranged); else noted. */
static bool fits(nw *x, int32_t kt, const pq_column_desc *t, bool real, int64_t *i, double d)
{
    __int128 lo, hi;
    bool ints = ds_int_range(t, &lo, &hi), ok;
    if (ints && real) {
        double r = nearbyint(d); /* (within +-2^63: the cast below is defined) */
        ok = isfinite(d) && r >= -9223372036854775808.0 && r < 9223372036854775808.0;
        if (ok) *i = (int64_t)r, ok = *i >= lo && *i <= hi;
    } else {
        ok = ints ? *i >= lo && *i <= hi : !isfinite(d) || isfinite((float)d);
    }
    if (ok) return true;
    x->bad = kt;
    if (ints && !real)
        snprintf(x->bad_text, sizeof x->bad_text, "%lld", (long long)*i);
    else
        snprintf(x->bad_text, sizeof x->bad_text, "%.17g", d);
    return false;
}

/* The bytes of the leaf value of type f at x->p into *w; false when they run past the row. */
static bool leaf_width(const nw *x, const pq_column_desc *f, int64_t *w)
{
    *w = f->physical == PQ_BOOLEAN ? 1 : pq_fixed_width(f->physical, f->type_length);
    if (f->physical == PQ_BYTE_ARRAY) {
        uint32_t len;
        if (x->end - x->p < 4) return false;
        memcpy(&len, x->p, 4);
        *w = 4 + (int64_t)len;
    }
    return x->end - x->p >= *w;
}

/* A timestamp leaf value of node kt (INT96, or INT64 in f's unit: ds_stamp_unit) of w bytes
 * in t's unit (INT64, or a first file's INT96): multiplied, or divided where exact (else
 * noted, as pyarrow.dataset refuses a cast that loses data and ds_rescale a flat one). */
static bool stamp_leaf(nw *x, int32_t kt, const pq_column_desc *f, const pq_column_desc *t, int64_t w)
{
    const int64_t per_day = INT64_C(86400000000000);
    int64_t v, y = 0, k = 1;
    if (f->physical == PQ_INT96) v = pq_int96_nanos(x->p);
    else memcpy(&v, x->p, 8);
    x->p += w;
    int fu = ds_stamp_unit(f), tu = ds_stamp_unit(t);
    for (int i = 0; i < (fu > tu ? fu - tu : tu - fu); i++) k *= 10;
    bool ok = tu >= fu ? !__builtin_mul_overflow(v, k, &y) : (y = v / k, v % k == 0);
    if (!ok) {
        x->bad = kt, x->lossy = true;
        snprintf(x->bad_text, sizeof x->bad_text, "%lld", (long long)v);
        return false;
    }
    if (t->physical != PQ_INT96) return put(x, &y, 8);
    int64_t day = y / per_day - (y % per_day < 0), nod = y - day * per_day; /* (INT96's bytes: */
    uint32_t jd = (uint32_t)(day + 2440588); /* nanoseconds of the day, then the Julian day) */
    uint8_t b[12];
    memcpy(b, &nod, 8), memcpy(b + 8, &jd, 4);
    return put(x, b, 12);
}

/* A string leaf value of node kt (w bytes: its length, then the string) parsed into t's type
 * (ds_parse_leaf); else noted. */
static bool parsed_leaf(nw *x, int32_t kt, const pq_column_desc *t, int64_t w)
{
    uint8_t b[16];
    int n = 0;
    const char *s = (const char *)x->p + 4;
    size_t len = (size_t)(w - 4);
    x->p += w;
    if (ds_parse_leaf(t, s, len, b, &n)) return put(x, b, n);
    x->bad = kt;
    snprintf(x->bad_text, sizeof x->bad_text, "'%.*s'", (int)(len > 24 ? 24 : len), s);
    return false;
}

/* One leaf value of node kt (the file's kf, valid) from the file's type to the dataset's:
 * widened, or cast with a range check (ranged), or a string parsed. */
static bool leaf(nw *x, int32_t kt, int32_t kf)
{
    const pq_column_desc *f = &x->fm->columns[x->pr->ft[kf].col];
    const pq_column_desc *t = &x->tm->columns[x->pr->tt[kt].col];
    int64_t w;
    if (!leaf_width(x, f, &w)) return false;
    if (f->physical == PQ_BYTE_ARRAY && t->physical != PQ_BYTE_ARRAY) return parsed_leaf(x, kt, t, w);
    if (ds_stamp_unit(t) && (f->physical != t->physical || ds_stamp_unit(f) != ds_stamp_unit(t)))
        return stamp_leaf(x, kt, f, t, w);
    bool check = ranged(f, t);
    if (f->physical == t->physical && !check) return x->p += w, put(x, x->p - w, w);
    if (t->physical == PQ_BYTE_ARRAY) { /* a number, date or time as text (ds_texted) */
        char buf[DS_TEXT_MAX];
        uint32_t n = (uint32_t)ds_value_text(f, x->p, buf);
        x->p += w;
        return put(x, &n, 4) && put(x, buf, n);
    }
    int64_t i = 0;
    double d = 0;
    if (f->physical == PQ_FLOAT) {
        float v;
        memcpy(&v, x->p, 4);
        d = v;
    } else if (f->physical == PQ_DOUBLE) {
        memcpy(&d, x->p, 8);
    } else if (f->physical == PQ_INT32) {
        int32_t v;
        memcpy(&v, x->p, 4);
        i = f->logical == PQ_LOGICAL_UINT32 ? (int64_t)(uint32_t)v : v, d = (double)i;
    } else {
        memcpy(&i, x->p, 8);
        d = (double)i;
    }
    x->p += w;
    bool real = f->physical == PQ_FLOAT || f->physical == PQ_DOUBLE;
    bool u64 = f->logical == PQ_LOGICAL_UINT64; /* (i its bits: past INT64_MAX negative) */
    if (u64) d = (double)(uint64_t)i;
    if (check && u64 && i < 0) /* (past every type it is cast into: ranged) */
        return x->bad = kt, snprintf(x->bad_text, sizeof x->bad_text, "%llu", (unsigned long long)i), false;
    if (check && !fits(x, kt, t, real, &i, d)) return false;
    if (t->physical == PQ_FIXED_LEN_BYTE_ARRAY) { /* DuckDB's HUGEINT: 16 big-endian bytes */
        uint8_t b[16];
        __int128 v = u64 ? (__int128)(uint64_t)i : i;
        for (int k = 15; k >= 0; k--, v >>= 8) b[k] = (uint8_t)v; /* (arithmetic shift) */
        return put(x, b, 16);
    }
    int32_t i32 = (int32_t)i;
    float f32 = real ? (float)d : u64 ? (float)(uint64_t)i : (float)i; /* (rounded once) */
    const void *src = t->physical == PQ_DOUBLE  ? (const void *)&d
                      : t->physical == PQ_FLOAT ? (const void *)&f32
                      : t->physical == PQ_INT32 ? (const void *)&i32
                                                : (const void *)&i;
    return put(x, src, pq_fixed_width(t->physical, 0));
}

/* Steps over the file's packed value of node kf (a struct field the dataset drops or reads in
 * another order); false when it does not match its shape. */
static bool skip(nw *x, int32_t kf)
{
    if (x->p >= x->end || *x->p > 1) return false;
    if (!*x->p++) return true;
    const pq_nest *f = &x->pr->ft[kf];
    int64_t w;
    if (f->kind == PQ_NEST_PRIM)
        return leaf_width(x, &x->fm->columns[f->col], &w) && (x->p += w, true);
    if (f->kind == PQ_NEST_STRUCT) {
        for (int32_t c = kf + 1, i = 0; i < f->nchildren; i++, c = x->pr->ft[c].end)
            if (!skip(x, c)) return false;
        return true;
    }
    uint32_t n;
    if (x->end - x->p < 4) return false;
    memcpy(&n, x->p, 4), x->p += 4;
    for (uint32_t i = 0; i < n; i++)
        if (!skip(x, kf + 1)) return false;
    return true;
}

static bool value(nw *x, int32_t kt);

/* A valid struct's fields (node kt) in the dataset's order: each found where the file has it
 * (x->pos), null where the file lacks it; x->p left past the file's struct. */
static bool fields(nw *x, int32_t kt)
{
    const ds_npair *pr = x->pr;
    int32_t kf = pr->map[kt];
    for (int32_t c = kf + 1, i = 0; i < pr->ft[kf].nchildren; i++, c = pr->ft[c].end)
        if (x->pos[c] = x->p, !skip(x, c)) return false;
    const uint8_t *after = x->p;
    for (int32_t c = kt + 1, i = 0; i < pr->tt[kt].nchildren; i++, c = pr->tt[c].end) {
        if (pr->map[c] < 0 && !put(x, &(uint8_t){0}, 1)) return false; /* lacked: null */
        if (pr->map[c] >= 0 && (x->p = x->pos[pr->map[c]], !value(x, c))) return false;
    }
    x->p = after;
    return true;
}

/* The packed value of the dataset's node kt from the file's (map[kt]; depth bounded by the
 * schema's: column_nested.h invariant 3). */
static bool value(nw *x, int32_t kt)
{
    if (kt == x->pr->lack_t) /* null where the file's struct lacks the path's field */
        return skip(x, x->pr->lack_f) && put(x, &(uint8_t){0}, 1);
    if (x->p >= x->end || *x->p > 1) return false;
    uint8_t flag = *x->p++;
    if (!put(x, &flag, 1)) return false;
    if (!flag) return true;
    const pq_nest *t = &x->pr->tt[kt];
    if (t->kind == PQ_NEST_PRIM) return leaf(x, kt, x->pr->map[kt]);
    if (t->kind == PQ_NEST_STRUCT) return fields(x, kt);
    uint32_t n;
    if (x->end - x->p < 4) return false;
    if (memcpy(&n, x->p, 4), !put(x, x->p, 4)) return false;
    x->p += 4;
    for (uint32_t i = 0; i < n; i++)
        if (!value(x, kt + 1)) return false;
    return true;
}

/* A flat list's row (no flag byte: column_nested.h) from width fw to tw. */
static bool flat_row(nw *x, int32_t fw, int32_t tw)
{
    bool flagged;
    int64_t len = x->end - x->p, n = pq_nest_flat_count(len, fw, &flagged), start = x->w->data_len;
    const uint8_t *flags = x->p + n * fw;
    static const uint8_t zero[16];
    if (flagged && x->end - flags < n) return false;
    for (int64_t i = 0; i < n; i++) { /* a null's slot zero (its zero bytes are no value) */
        bool null = flagged && flags[i] == 0;
        for (int32_t b = 0; null && b < tw; b += 16)
            if (!put(x, zero, tw - b < 16 ? tw - b : 16)) return false;
        if (null ? (x->p += fw, false) : !leaf(x, 1, 1)) return false;
    }
    if (!flagged) return true;
    if (x->end - x->p < n || x->end - x->p - n >= fw) return false; /* flags, then padding */
    if (!put(x, x->p, n)) return false;
    x->p = x->end;
    while ((x->w->data_len - start) % tw != 1)
        if (!put(x, &(uint8_t){0}, 1)) return false; /* the row's length 1 mod tw */
    return true;
}

/* A flat list's row (a file's list<leaf> of fixed width fw) as a packed one (its leaf's type
 * in the dataset's shape a string: column_nested.h); valid: the row's validity. */
static bool flat_to_packed(nw *x, int32_t fw, bool valid)
{
    bool flagged;
    int64_t len = x->end - x->p, n = pq_nest_flat_count(len, fw, &flagged);
    const uint8_t *flags = x->p + n * fw;
    uint32_t count = (uint32_t)n;
    if (!put(x, &(uint8_t){valid}, 1) || (valid && !put(x, &count, 4))) return false;
    if (flagged && (x->end - flags < n || x->end - flags - n >= fw)) return false; /* padding */
    for (int64_t i = 0; i < n; i++) {
        uint8_t flag = flagged ? flags[i] : 1;
        if (flag > 1 || !put(x, &flag, 1)) return false;
        if (flag && !leaf(x, 1, 1)) return false;
        if (!flag) x->p += fw; /* (a null's zero bytes) */
    }
    x->p = x->end;
    return true;
}

/* A packed row of a list of one string leaf (the file's) as a flat one of width tw (its
 * elements parsed: column_nested.h's layout, flags and padding where some are null). */
static bool packed_to_flat(nw *x, int32_t tw)
{
    static const uint8_t zero[16];
    uint32_t n;
    assert(tw >= 2 && tw <= 16); /* (a flat list of a type ds_parse_leaf writes) */
    if (x->end - x->p < 5 || *x->p != 1) return x->end - x->p == 1 && *x->p++ == 0; /* (null) */
    memcpy(&n, x->p + 1, 4), x->p += 5;
    const uint8_t *first = x->p;
    int64_t start = x->w->data_len, w = 0;
    bool nulls = false;
    for (uint32_t i = 0; i < n; i++) { /* the values (a null's zero), then the flags */
        if (x->p >= x->end || *x->p > 1) return false;
        nulls = nulls || !*x->p;
        if (!*x->p++ ? !put(x, zero, tw) : !leaf(x, 1, 1)) return false;
    }
    const uint8_t *after = x->p;
    const pq_column_desc *f = &x->fm->columns[x->pr->ft[1].col];
    for (x->p = first; nulls && x->p < after;) { /* (the elements checked above) */
        uint8_t flag = *x->p++;
        if (!put(x, &flag, 1) || (flag && !leaf_width(x, f, &w))) return false;
        x->p += flag ? w : 0;
    }
    while (nulls && (x->w->data_len - start) % tw != 1)
        if (!put(x, zero, 1)) return false; /* the row's length 1 mod tw */
    x->p = after;
    return true;
}

/* A row of the file's lists whose values lack the path's field (ds_npair_lacking: the
 * file's value at lack_f skipped) in the dataset's shape: the lists as they are, every value
 * at lack_t null. fw, tw: the two shapes' flat widths (a list of one leaf: column_nested.h's
 * flat layout, n nulls as zero values, zero flags, then padding; a null or empty list no
 * bytes); valid: the row's validity. */
static bool lacked_row(nw *x, int32_t fw, int32_t tw, bool valid)
{
    static const uint8_t zero[16]; /* (put in pieces: a FIXED_LEN_BYTE_ARRAY may be wider) */
    if (fw == 0 && tw == 0) return x->p == x->end || value(x, 0);
    assert(x->pr->lack_t == 1); /* (a list of one leaf) */
    int64_t n = 0;
    bool flagged;
    if (fw > 0) {
        n = pq_nest_flat_count(x->end - x->p, fw, &flagged), x->p = x->end;
    } else if (x->p < x->end && *x->p == 1) {
        uint32_t count;
        if (x->end - x->p < 5) return false;
        memcpy(&count, x->p + 1, 4), x->p += 5, n = count;
        for (uint32_t i = 0; i < count; i++)
            if (!skip(x, x->pr->lack_f)) return false;
    } else if (x->p < x->end && *x->p++ != 0) {
        return false; /* (else a null row) */
    }
    if (tw == 0) { /* packed: the list's flag and count, a null flag per element */
        uint32_t count = (uint32_t)n;
        if (!put(x, &(uint8_t){valid}, 1) || (valid && !put(x, &count, 4))) return false;
        for (int64_t i = 0; valid && i < n; i++)
            if (!put(x, zero, 1)) return false;
        return true;
    }
    int64_t start = x->w->data_len, len = n * (tw + 1);
    for (int64_t b = 0; b < len; b += 16)
        if (!put(x, zero, len - b < 16 ? len - b : 16)) return false;
    while (n > 0 && (x->w->data_len - start) % tw != 1)
        if (!put(x, zero, 1)) return false; /* the row's length 1 mod tw */
    return true;
}

/* The error for x's value that does not fit its leaf's type in the dataset (x->bad). */
static int does_not_fit(const nw *x, const ds_col *c, pq_err *e)
{
    const pq_column_desc *t = &x->tm->columns[x->pr->tt[x->bad].col];
    return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s': the value %s of its leaf "
                   "'%.80s' does not fit %s/%s, its type from %.120s (%s)", c->name, x->bad_text,
                   t->name, pq_physical_name(t->physical), pq_logical_name(t->logical), c->from,
                   x->lossy ? "digits the unit would lose; union_by_name takes the finer unit"
                            : "DuckDB refuses it too");
}

/* Packed rows v (the file's shape) rewritten into the dataset's shape. */
static int repack(nw *x, const ds_col *c, pq_vec *v, pq_err *e)
{
    int32_t fw = pq_nest_flat_width(x->fm, x->pr->ft), tw = pq_nest_flat_width(x->tm, x->pr->tt);
    /* (fw 0 under tw > 0: a list of strings parsed, ds_nested_leaf_casts) */
    pq_vec w;
    pq_vec_init(&w, PQ_BYTE_ARRAY, 0);
    int rc = pq_vec_reserve(&w, v->length, v->data_len + v->length);
    if (rc) return pq_vec_free(&w), rc; /* its part allocated */
    x->w = &w;
    w.offsets[0] = 0;
    /* rows that hold no bytes (every one null or empty) may come without a buffer: no offset
     * from NULL (a UBSan trap, SIGILL in ReleaseSafe) */
    const uint8_t *data = v->data ? v->data : (const uint8_t *)"";
    for (int64_t r = 0; rc == 0 && r < v->length; r++) {
        x->p = data + v->offsets[r], x->end = data + v->offsets[r + 1];
        bool ok = x->pr->lack_t >= 0       ? lacked_row(x, fw, tw, pq_vec_is_valid(v, r))
                  : fw > 0 && tw == 0 ? flat_to_packed(x, fw, pq_vec_is_valid(v, r))
                  : x->p == x->end || (fw > 0   ? flat_row(x, fw, tw)
                                       : tw > 0 ? packed_to_flat(x, tw)
                                                : value(x, 0));
        if (!ok && x->rc)
            rc = x->rc;
        else if (!ok && x->bad >= 0)
            rc = does_not_fit(x, c, e);
        else if (!ok || x->p != x->end)
            rc = pq_errf(e, RINGSCAN_EFORMAT, -1, "column '%.40s': a packed row of %d bytes "
                         "does not match its shape", c->name,
                         (int)(v->offsets[r + 1] - v->offsets[r]));
        w.offsets[r + 1] = (int32_t)w.data_len;
    }
    if (rc) return pq_vec_free(&w), rc;
    ds_replace_vec(v, &w);
    return 0;
}

bool ds_nested_same_leaves(const ds_col *c, const pq_file_meta *m, int32_t node)
{
    ds_npair pr;
    pq_err ignore = {.offset = -1};
    bool same = ds_npair_init(&pr, c->meta, c->node, m, node, true, &ignore) == 0 && !pr.differ;
    ds_npair_free(&pr);
    return same;
}

/* ds_nested_widen, or ds_nested_widen_lacking (lacking). */
static int widen(const ds_col *c, int32_t tn, const pq_file_meta *m, int32_t node, pq_vec *v,
                 bool lacking, pq_err *e)
{
    if (v->length == 0) return 0;
    ds_npair pr;
    int rc = lacking ? ds_npair_lacking(&pr, c->meta, tn, m, node, true, e)
                     : ds_npair_init(&pr, c->meta, tn, m, node, true, e);
    if (rc || !pr.differ) return ds_npair_free(&pr), rc;
    if (lacking && !pr.fits) /* (ds_out.c checked the pairing: lists that differ) */
        return ds_npair_free(&pr), pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s': the "
                                           "lists on the path differ in shape", c->name);
    assert(pr.fits); /* invariant 1 */
    assert(!v->cols); /* such a file's scan packs rows (ds_view_nested_widened: no nest_cols) */
    nw x = {.fm = m, .tm = c->meta, .pr = &pr, .bad = -1};
    x.pos = fail_malloc(sizeof *x.pos * (size_t)pr.nf);
    rc = x.pos ? repack(&x, c, v, e) : -ENOMEM;
    free(x.pos);
    ds_npair_free(&pr);
    return rc;
}

int ds_nested_widen(const ds_col *c, int32_t tn, const pq_file_meta *m, int32_t node, pq_vec *v,
                    pq_err *e)
{
    return widen(c, tn, m, node, v, false, e);
}

int ds_nested_widen_lacking(const ds_col *c, int32_t tn, const pq_file_meta *m, int32_t node,
                            pq_vec *v, pq_err *e)
{
    return widen(c, tn, m, node, v, true, e);
}

bool ds_view_nested_widened(const ds_schema *s, const ds_view *v, const pq_file_meta *m)
{
    for (int i = 0; i < s->n; i++)
        if (s->cols[i].node >= 0 && v->node[i] >= 0 &&
            !ds_nested_same_leaves(&s->cols[i], m, v->node[i]))
            return true;
    return false;
}
