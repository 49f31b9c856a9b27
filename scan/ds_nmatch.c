/* scan/ds_nmatch.c: a file's nested field paired with a dataset's nested column node by node
 * (issue 23): lists and maps with lists and maps, struct fields by name as DuckDB unions them
 * (a field in another order is moved, one the file lacks reads as null, one the column lacks
 * is dropped: without union_by_name as DuckDB reads a later file in the first file's struct;
 * in a union by name the column takes the file's shape when it holds every field, ds_nested.c),
 * leaves the same, widening, or cast with a range check (ds_nwiden.c).
 *
 * Invariants:
 *  1. map[k] is the file's node of the column's node k, or -1 for a struct field the file
 *     lacks (and every node under it); a matched node has the file node's kind.
 *  2. Work is bounded by the two shapes' nodes (a struct's field found by a walk over the
 *     file struct's fields: at most the product of their counts). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "scan/ds_impl.h"

bool ds_nested_leaf_same(const pq_column_desc *a, const pq_column_desc *b)
{
    return a->physical == b->physical && a->type_length == b->type_length &&
           a->logical == b->logical && a->decimal_precision == b->decimal_precision &&
           a->decimal_scale == b->decimal_scale && a->is_adjusted_to_utc == b->is_adjusted_to_utc;
}

bool ds_nested_leaf_widens(const pq_column_desc *from, const pq_column_desc *to)
{
    __int128 lo, hi;
    bool fi = ds_int_range(from, &lo, &hi);
    if (fi && ds_int_range(to, &lo, &hi)) return ds_int_within(from, to);
    return (from->physical == PQ_FLOAT && to->physical == PQ_DOUBLE) ||
           (fi && from->logical != PQ_LOGICAL_UINT64 && to->physical == PQ_DOUBLE &&
            to->logical == PQ_LOGICAL_NONE);
}

bool ds_nested_leaf_casts(const pq_column_desc *from, const pq_column_desc *to)
{
    __int128 lo, hi;
    bool real = from->physical == PQ_FLOAT || from->physical == PQ_DOUBLE;
    return ((real || (ds_int_range(from, &lo, &hi) && from->logical != PQ_LOGICAL_UINT64)) &&
            ds_int_range(to, &lo, &hi)) ||
           (from->physical == PQ_DOUBLE && to->physical == PQ_FLOAT);
}

/* The file's child of struct node kf named name, or -1. */
static int32_t field_of(const ds_npair *p, int32_t kf, const char *name)
{
    for (int32_t c = kf + 1, i = 0; i < p->ft[kf].nchildren; i++, c = p->ft[c].end)
        if (strcmp(p->ft[c].name, name) == 0) return c;
    return -1;
}

static void leaf_pair(ds_npair *p, int32_t kt, int32_t kf, const pq_file_meta *tm,
                      const pq_file_meta *fm, bool cast)
{
    const pq_column_desc *t = &tm->columns[p->tt[kt].col], *f = &fm->columns[p->ft[kf].col];
    if (ds_nested_leaf_same(t, f)) return;
    p->differ = true;
    if (ds_nested_leaf_widens(f, t) || (cast && ds_nested_leaf_casts(f, t))) return;
    if (p->leaf[0] < 0) p->leaf[0] = p->tt[kt].col, p->leaf[1] = p->ft[kf].col;
    p->fits = false;
}

/* Pairs the column's node kt with the file's node kf (and their subtrees: invariant 1). */
static void pair(ds_npair *p, int32_t kt, int32_t kf, const pq_file_meta *tm,
                 const pq_file_meta *fm, bool cast)
{
    const pq_nest *t = &p->tt[kt], *f = &p->ft[kf];
    p->map[kt] = kf;
    if (t->kind != f->kind) {
        p->fits = false, p->shape_bad = true;
        return;
    }
    if (t->kind == PQ_NEST_PRIM) return leaf_pair(p, kt, kf, tm, fm, cast);
    if (t->kind != PQ_NEST_STRUCT) {
        if (strcmp(p->tt[kt + 1].name, p->ft[kf + 1].name) != 0) p->fits = false, p->shape_bad = true;
        return pair(p, kt + 1, kf + 1, tm, fm, cast);
    }
    int32_t found = 0;
    for (int32_t c = kt + 1, i = 0; i < t->nchildren; i++, c = p->tt[c].end) {
        int32_t fc = field_of(p, kf, p->tt[c].name), nth = -1;
        for (int32_t g = kf + 1, j = 0; fc >= 0 && j < f->nchildren; j++, g = p->ft[g].end)
            if (g == fc) nth = j;
        if (fc < 0 || nth != i) p->differ = true; /* lacked, or moved */
        if (fc >= 0) found++, pair(p, c, fc, tm, fm, cast);
        for (int32_t g = c; fc < 0 && g < p->tt[c].end; g++) p->map[g] = -1;
    }
    if (found < f->nchildren) p->extra = p->differ = true;
}

int ds_npair_init(ds_npair *p, const pq_file_meta *tm, int32_t tn, const pq_file_meta *fm,
                  int32_t fn, bool cast, pq_err *e)
{
    *p = (ds_npair){.fits = true, .leaf = {-1, -1}};
    p->tt = fail_malloc(sizeof *p->tt * (size_t)PQ_NEST_CAP(tm, tn));
    p->ft = fail_malloc(sizeof *p->ft * (size_t)PQ_NEST_CAP(fm, fn));
    p->map = fail_malloc(sizeof *p->map * (size_t)PQ_NEST_CAP(tm, tn));
    if (!p->tt || !p->ft || !p->map) return ds_npair_free(p), -ENOMEM;
    p->nt = pq_nest_build(tm, tn, p->tt, e), p->nf = pq_nest_build(fm, fn, p->ft, e);
    if (p->nt <= 0 || p->nf <= 0) {
        int rc = p->nt <= 0 ? p->nt : p->nf;
        return ds_npair_free(p), rc ? rc : -EINVAL;
    }
    pair(p, 0, 0, tm, fm, cast);
    return 0;
}

void ds_npair_free(ds_npair *p)
{
    free(p->tt), free(p->ft), free(p->map);
    p->tt = p->ft = NULL, p->map = NULL;
}
