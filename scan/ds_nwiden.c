/* scan/ds_nwiden.c: a file's rows of a nested field whose leaves are narrower than the
 * dataset's (the shape of the first file that has the field or, in a union by name, of the
 * file whose leaves the others' widen into: ds_nested.c) widened into it, as
 * DuckDB casts list<int32> under list<int64>, struct<a int32> under struct<a int64>, floats
 * under doubles: an integer into one whose range holds it, FLOAT to DOUBLE, an integer to
 * DOUBLE. The packed rows (format/column_nested.h) are rewritten value by value into the
 * dataset's layout (a flat list's element width changes with its leaf's).
 *
 * Invariants:
 *  1. The two shapes have the same nodes (ds_nested.c same_shape); only leaves differ, each
 *     pair one ds_nested_leaf_widens accepts.
 *  2. Packed rows are the decoder's own, still every length is checked against what remains
 *     (RINGSCAN_EFORMAT naming the column on a mismatch); the widened rows take at most twice
 *     the bytes and 8 more a row. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/ds_impl.h"

bool ds_nested_leaf_same(const pq_column_desc *a, const pq_column_desc *b)
{
    return a->physical == b->physical && a->type_length == b->type_length &&
           a->logical == b->logical && a->decimal_precision == b->decimal_precision &&
           a->decimal_scale == b->decimal_scale && a->is_adjusted_to_utc == b->is_adjusted_to_utc;
}

bool ds_nested_leaf_widens(const pq_column_desc *from, const pq_column_desc *to)
{
    __int128 flo, fhi, tlo, thi;
    bool fi = ds_int_range(from, &flo, &fhi), ti = ds_int_range(to, &tlo, &thi);
    if (fi && ti) return tlo <= flo && fhi <= thi; /* (INT64 holds every INT32 value) */
    return (from->physical == PQ_FLOAT && to->physical == PQ_DOUBLE) ||
           (fi && from->logical != PQ_LOGICAL_UINT64 && to->physical == PQ_DOUBLE &&
            to->logical == PQ_LOGICAL_NONE);
}

typedef struct nw {
    const pq_file_meta *fm, *tm;
    const pq_nest *ft, *tt;
    const uint8_t *p, *end;
    uint8_t *out; /* room checked by the caller (invariant 2) */
    int64_t n;    /* bytes written */
} nw;

/* One leaf value of node k (valid) from the file's width to the dataset's. */
static bool leaf(nw *x, int32_t k)
{
    const pq_column_desc *f = &x->fm->columns[x->ft[k].col], *t = &x->tm->columns[x->tt[k].col];
    int64_t w = f->physical == PQ_BOOLEAN ? 1 : pq_fixed_width(f->physical, f->type_length);
    if (f->physical == PQ_BYTE_ARRAY) {
        uint32_t len;
        if (x->end - x->p < 4) return false;
        memcpy(&len, x->p, 4);
        w = 4 + (int64_t)len;
    }
    if (x->end - x->p < w) return false;
    if (f->physical == t->physical) {
        memcpy(x->out + x->n, x->p, (size_t)w), x->n += w, x->p += w;
        return true;
    }
    int64_t i = 0;
    double d = 0;
    if (f->physical == PQ_FLOAT) {
        float v;
        memcpy(&v, x->p, 4);
        d = v;
    } else if (f->physical == PQ_INT32) {
        int32_t v;
        memcpy(&v, x->p, 4);
        i = f->logical == PQ_LOGICAL_UINT32 ? (int64_t)(uint32_t)v : v, d = (double)i;
    } else {
        memcpy(&i, x->p, 8);
        d = (double)i;
    }
    x->p += w;
    if (t->physical == PQ_DOUBLE)
        memcpy(x->out + x->n, &d, 8);
    else
        memcpy(x->out + x->n, &i, 8);
    x->n += 8;
    return true;
}

/* The packed value of node k (depth bounded by the schema's: column_nested.h invariant 3). */
static bool value(nw *x, int32_t k)
{
    if (x->p >= x->end || *x->p > 1) return false;
    uint8_t flag = *x->p++;
    x->out[x->n++] = flag;
    if (!flag) return true;
    const pq_nest *t = &x->tt[k];
    if (t->kind == PQ_NEST_PRIM) return leaf(x, k);
    if (t->kind == PQ_NEST_STRUCT) {
        for (int32_t c = k + 1, i = 0; i < t->nchildren; i++, c = x->tt[c].end)
            if (!value(x, c)) return false;
        return true;
    }
    uint32_t n;
    if (x->end - x->p < 4) return false;
    memcpy(&n, x->p, 4), memcpy(x->out + x->n, x->p, 4);
    x->p += 4, x->n += 4;
    for (uint32_t i = 0; i < n; i++)
        if (!value(x, k + 1)) return false;
    return true;
}

/* A flat list's row (no flag byte: column_nested.h) from width fw to tw. */
static bool flat_row(nw *x, int32_t fw, int32_t tw)
{
    bool flagged;
    int64_t len = x->end - x->p, n = pq_nest_flat_count(len, fw, &flagged), start = x->n;
    for (int64_t i = 0; i < n; i++)
        if (!leaf(x, 1)) return false;
    if (!flagged) return true;
    if (x->end - x->p < n || x->end - x->p - n >= fw) return false; /* flags, then padding */
    memcpy(x->out + x->n, x->p, (size_t)n), x->n += n, x->p = x->end;
    while ((x->n - start) % tw != 1)
        x->out[x->n++] = 0; /* the row's length 1 mod tw */
    return true;
}

/* Packed rows v (file shape ft) rewritten into the dataset's shape tt. */
static int repack(nw *x, const char *name, pq_vec *v, pq_err *e)
{
    int32_t fw = pq_nest_flat_width(x->fm, x->ft), tw = pq_nest_flat_width(x->tm, x->tt);
    if ((fw > 0) != (tw > 0)) /* (ds_nested.c accepts no such pair) */
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, -1,
                       "column '%.40s': a flat list widened into "
                       "a packed one",
                       name);
    int64_t cap = 2 * v->data_len + 8 * v->length;
    if (cap > INT32_MAX) return -EOVERFLOW;
    pq_vec w;
    pq_vec_init(&w, PQ_BYTE_ARRAY, 0);
    int rc = pq_vec_reserve(&w, v->length, cap);
    if (rc) return pq_vec_free(&w), rc; /* its part allocated */
    x->out = w.data, x->n = 0;
    w.offsets[0] = 0;
    for (int64_t r = 0; rc == 0 && r < v->length; r++) {
        x->p = v->data + v->offsets[r], x->end = v->data + v->offsets[r + 1];
        bool ok = x->p == x->end || (fw > 0 ? flat_row(x, fw, tw) : value(x, 0));
        if (!ok || x->p != x->end)
            rc = pq_errf(e, RINGSCAN_EFORMAT, -1,
                         "column '%.40s': a packed row of %d bytes "
                         "does not match its shape",
                         name, (int)(v->offsets[r + 1] - v->offsets[r]));
        w.offsets[r + 1] = (int32_t)x->n;
    }
    if (rc) return pq_vec_free(&w), rc;
    w.data_len = x->n;
    ds_replace_vec(v, &w);
    return 0;
}

bool ds_nested_same_leaves(const ds_col *c, const pq_file_meta *m, int32_t node)
{
    int32_t ff, tf, nf = pq_nest_leaves(m, node, &ff), nt = pq_nest_leaves(c->meta, c->node, &tf);
    bool same = nf == nt;
    for (int32_t i = 0; same && i < nf; i++)
        same = ds_nested_leaf_same(&m->columns[ff + i], &c->meta->columns[tf + i]);
    return same;
}

int ds_nested_widen(const ds_col *c, const pq_file_meta *m, int32_t node, pq_vec *v, pq_err *e)
{
    if (v->length == 0 || ds_nested_same_leaves(c, m, node)) return 0;
    assert(!v->cols); /* a dataset's scans hand packed rows (no scan_opts.nest_cols) */
    pq_nest *ft = fail_malloc(sizeof *ft * (size_t)PQ_NEST_CAP(m, node));
    pq_nest *tt = fail_malloc(sizeof *tt * (size_t)PQ_NEST_CAP(c->meta, c->node));
    int rc = ft && tt ? 0 : -ENOMEM;
    int32_t n = rc ? 0 : pq_nest_build(m, node, ft, e),
            k = rc ? 0 : pq_nest_build(c->meta, c->node, tt, e);
    if (rc == 0 && (n < 0 || k < 0)) rc = n < 0 ? n : k;
    assert(rc || n == k); /* invariant 1 */
    nw x = {.fm = m, .tm = c->meta, .ft = ft, .tt = tt};
    if (rc == 0) rc = repack(&x, c->name, v, e);
    free(ft), free(tt);
    return rc;
}
