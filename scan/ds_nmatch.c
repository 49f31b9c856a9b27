/* scan/ds_nmatch.c: a file's nested field paired with a dataset's nested column node by node
 * (issue 23): lists and maps with lists and maps (whatever each writer named the element or
 * entries), struct fields by name as DuckDB unions them
 * (a field in another order is moved, one the file lacks reads as null, one the column lacks
 * is dropped: without union_by_name as DuckDB reads a later file in the first file's struct;
 * in a union by name the column takes the file's shape when it holds every field, ds_nested.c),
 * leaves the same, widening, or cast with a range check (ds_nwiden.c).
 *
 * Invariants:
 *  1. map[k] is the file's node of the column's node k, or -1 for a struct field the file
 *     lacks (and every node under it); a matched node has the file node's kind.
 *  2. Work is bounded by the two shapes' nodes: a struct's field is found in O(1) expected
 *     through both structs' fields indexed by name (ds_fields.h), or, where both have fewer
 *     than DS_FIELDS_MIN fields (or memory ran out), by a walk over the file struct's
 *     fields (at most the product of their counts).
 *  3. Without union_by_name (cast), a struct inside a list or map sharing no field with the
 *     column's does not pair (DuckDB's STRUCT cast there needs one matching member; a
 *     struct under structs alone reads as nulls, as DuckDB maps it by name). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/name_index.h"
#include "scan/ds_fields.h"
#include "scan/ds_impl.h"

/* Whether two leaves are one type: the fields each type has compared, not the others (a
 * parquet-rs STRING leaf carries is_adjusted_to_utc set, pyarrow's the same STRING not; the
 * type read it "neither widens" naming BYTE_ARRAY/STRING twice). */
bool ds_nested_leaf_same(const pq_column_desc *a, const pq_column_desc *b)
{
    if (a->physical != b->physical || a->logical != b->logical) return false;
    bool clock = a->logical >= PQ_LOGICAL_TIME_MILLIS && a->logical <= PQ_LOGICAL_TIMESTAMP_NANOS;
    return (a->physical != PQ_FIXED_LEN_BYTE_ARRAY || a->type_length == b->type_length) &&
           (a->logical != PQ_LOGICAL_DECIMAL || (a->decimal_precision == b->decimal_precision &&
                                                 a->decimal_scale == b->decimal_scale)) &&
           (!clock || a->is_adjusted_to_utc == b->is_adjusted_to_utc);
}

/* DuckDB's HUGEINT (a UINT64 beside a signed integer), as it exports it to Arrow: a
 * DECIMAL(38, 0) in a 16-byte FIXED_LEN. */
static bool huge(const pq_column_desc *d)
{
    return d->physical == PQ_FIXED_LEN_BYTE_ARRAY && d->type_length == 16 &&
           d->logical == PQ_LOGICAL_DECIMAL && d->decimal_precision == 38 && d->decimal_scale == 0;
}

int ds_stamp_unit(const pq_column_desc *d)
{
    bool stamp = d->physical == PQ_INT96 || (d->logical >= PQ_LOGICAL_TIMESTAMP_MILLIS &&
                                             d->logical <= PQ_LOGICAL_TIMESTAMP_NANOS);
    return stamp ? ds_time_unit(d) : 0;
}

bool ds_nested_leaf_widens(const pq_column_desc *from, const pq_column_desc *to)
{
    __int128 lo, hi;
    if (ds_null_typed(from)) return true; /* (nulls alone: DuckDB's "NULL"[] beside INTEGER[]) */
    int fu = ds_stamp_unit(from), tu = ds_stamp_unit(to);
    if (fu && tu) return fu <= tu; /* (a timestamp into a finer unit, either zone) */
    bool fi = ds_int_range(from, &lo, &hi);
    if (fi && ds_int_range(to, &lo, &hi)) return ds_int_within(from, to);
    bool text = to->physical == PQ_BYTE_ARRAY && to->logical == PQ_LOGICAL_STRING;
    return (text && ds_texted(from)) || /* (DuckDB's VARCHAR beside a string) */
           (fi && (huge(to) || to->physical == PQ_FLOAT)) || /* (DuckDB: FLOAT[] beside INT[]) */
           (from->physical == PQ_FLOAT && to->physical == PQ_DOUBLE) ||
           (fi && from->logical != PQ_LOGICAL_UINT64 && to->physical == PQ_DOUBLE &&
            to->logical == PQ_LOGICAL_NONE);
}

bool ds_nested_leaf_casts(const pq_column_desc *from, const pq_column_desc *to)
{
    __int128 lo, hi;
    bool real = from->physical == PQ_FLOAT || from->physical == PQ_DOUBLE;
    if (ds_stamp_unit(from) && ds_stamp_unit(to)) return true; /* coarser: exact or refused */
    if (from->physical == PQ_BYTE_ARRAY && from->logical == PQ_LOGICAL_STRING)
        return ds_parse_leaf_typed(to); /* (DuckDB's cast of VARCHAR[] to INTEGER[]) */
    return ((real || ds_int_range(from, &lo, &hi)) && ds_int_range(to, &lo, &hi)) ||
           (from->physical == PQ_DOUBLE && to->physical == PQ_FLOAT);
}

/* The children of struct node k of shape t whose name equals name but for case. */
static int32_t alike(const pq_nest *t, int32_t k, const char *name)
{
    int32_t n = 0;
    for (int32_t c = k + 1, i = 0; i < t[k].nchildren; i++, c = t[c].end)
        n += pq_ascii_casecmp(t[c].name, name) == 0;
    return n;
}

/* The file's child of struct node kf named as the column's child c of kt (else the only one
 * whose name differs from it in case alone, as DuckDB pairs struct fields, unless kt has
 * another child so spelled: a and A are then two fields, each paired by exact name), or -1. */
static int32_t field_of(const ds_npair *p, int32_t kf, int32_t kt, int32_t c)
{
    const char *name = p->tt[c].name;
    int32_t folded = -1, n = 0;
    for (int32_t g = kf + 1, i = 0; i < p->ft[kf].nchildren; i++, g = p->ft[g].end) {
        if (strcmp(p->ft[g].name, name) == 0) return g;
        if (pq_ascii_casecmp(p->ft[g].name, name) == 0) folded = g, n++;
    }
    return n == 1 && alike(p->tt, kt, name) == 1 ? folded : -1;
}

/* The fields of struct node k of shape t, to pair with a struct of other fields, by name. */
static void fields_of(ds_fields *x, const pq_nest *t, int32_t k, int32_t other)
{
    ds_fields_init(x, t[k].nchildren, other);
    for (int32_t c = k + 1, i = 0; x->on && i < t[k].nchildren; i++, c = t[c].end)
        ds_fields_add(x, t[c].name, c);
}

/* field_of(p, kf, kt, c) through the indexes fi (kf's) and ti (kt's) when both are on (else
 * walked), and its position among kf's children in *nth (-1 when none). */
static int32_t field_at(const ds_npair *p, const ds_fields *fi, const ds_fields *ti, int32_t kf,
                        int32_t kt, int32_t c, int32_t *nth)
{
    if (fi->on && ti->on) {
        *nth = ds_fields_pair(fi, ti, p->tt[c].name);
        return *nth >= 0 ? fi->node[*nth] : -1;
    }
    int32_t fc = field_of(p, kf, kt, c);
    *nth = -1;
    for (int32_t g = kf + 1, j = 0; fc >= 0 && j < p->ft[kf].nchildren; j++, g = p->ft[g].end)
        if (g == fc) *nth = j;
    return fc;
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
    if (p->lacking && p->lists == p->lack_lists) { /* (ds_npair_lacking: past the lists) */
        for (int32_t g = kt; g < t->end; g++) p->map[g] = -1;
        p->lack_t = kt, p->lack_f = kf, p->differ = true;
        return;
    }
    if (t->kind != f->kind) {
        p->fits = false, p->shape_bad = true;
        return;
    }
    if (t->kind == PQ_NEST_PRIM) return leaf_pair(p, kt, kf, tm, fm, cast);
    if (t->kind != PQ_NEST_STRUCT) { /* (a list's element or a map's entries by position: their
                                       names, "element", "item", "array", "key_value", "map",
                                       are the writer's, as DuckDB and pyarrow read them) */
        p->lists++;
        pair(p, kt + 1, kf + 1, tm, fm, cast);
        p->lists--;
        return;
    }
    int32_t found = 0, nth;
    ds_fields fi, ti; /* (each field found in O(1): invariant 2) */
    fields_of(&fi, p->ft, kf, t->nchildren), fields_of(&ti, p->tt, kt, f->nchildren);
    for (int32_t c = kt + 1, i = 0; i < t->nchildren; i++, c = p->tt[c].end) {
        int32_t fc = field_at(p, &fi, &ti, kf, kt, c, &nth);
        if (fc < 0 || nth != i) p->differ = true; /* lacked, or moved */
        if (fc >= 0) found++, pair(p, c, fc, tm, fm, cast);
        for (int32_t g = c; fc < 0 && g < p->tt[c].end; g++) p->map[g] = -1;
    }
    ds_fields_free(&fi), ds_fields_free(&ti);
    if (found < f->nchildren) p->extra = p->differ = true;
    if (found == 0 && cast && p->lists > 0) /* (DuckDB's cast of a list's or map's structs: */
        p->fits = false, p->shape_bad = true; /* "at least one matching member") */
}

/* The two shapes of a pairing, not yet paired. */
static int shapes(ds_npair *p, const pq_file_meta *tm, int32_t tn, const pq_file_meta *fm,
                  int32_t fn, pq_err *e)
{
    *p = (ds_npair){.fits = true, .leaf = {-1, -1}, .lack_t = -1, .lack_f = -1};
    p->tt = fail_malloc(sizeof *p->tt * (size_t)PQ_NEST_CAP(tm, tn));
    p->ft = fail_malloc(sizeof *p->ft * (size_t)PQ_NEST_CAP(fm, fn));
    p->map = fail_malloc(sizeof *p->map * (size_t)PQ_NEST_CAP(tm, tn));
    if (!p->tt || !p->ft || !p->map) return ds_npair_free(p), -ENOMEM;
    p->nt = pq_nest_build(tm, tn, p->tt, e), p->nf = pq_nest_build(fm, fn, p->ft, e);
    if (p->nt <= 0 || p->nf <= 0) {
        int rc = p->nt <= 0 ? p->nt : p->nf;
        return ds_npair_free(p), rc ? rc : -EINVAL;
    }
    return 0;
}

int ds_npair_init(ds_npair *p, const pq_file_meta *tm, int32_t tn, const pq_file_meta *fm,
                  int32_t fn, bool cast, pq_err *e)
{
    int rc = shapes(p, tm, tn, fm, fn, e);
    if (rc == 0) pair(p, 0, 0, tm, fm, cast);
    return rc;
}

int ds_npair_lacking(ds_npair *p, const pq_file_meta *tm, int32_t tn, const pq_file_meta *fm,
                     int32_t fn, bool cast, pq_err *e)
{
    int rc = shapes(p, tm, tn, fm, fn, e);
    if (rc) return rc;
    p->lacking = true, p->lack_lists = fm->nodes[fn].max_rep_level; /* (a list per level) */
    pair(p, 0, 0, tm, fm, cast);
    if (p->lack_t < 0) p->fits = false; /* (the path has fewer lists) */
    return 0;
}

void ds_npair_free(ds_npair *p)
{
    free(p->tt), free(p->ft), free(p->map);
    p->tt = p->ft = NULL, p->map = NULL;
}

/* The smallest signed integer type holding [lo, hi] into d's physical and logical type. */
static void signed_int(__int128 lo, __int128 hi, pq_column_desc *d)
{
    int bits = lo >= INT16_MIN && hi <= INT16_MAX ? 16 : lo >= INT32_MIN && hi <= INT32_MAX ? 32 : 64;
    d->physical = bits == 64 ? PQ_INT64 : PQ_INT32;
    d->logical = bits == 16 ? PQ_LOGICAL_INT16 : PQ_LOGICAL_NONE;
    d->int_signed = true, d->type_length = 0, d->decimal_precision = d->decimal_scale = 0;
}

bool ds_nested_leaf_merge(pq_column_desc *a, const pq_column_desc *b)
{
    int au = ds_stamp_unit(a), bu = ds_stamp_unit(b);
    if (au && bu && !ds_nested_leaf_same(a, b)) { /* the finer unit (INT96: nanoseconds, as */
        a->physical = PQ_INT64, a->type_length = 0; /* ds_schema.c's timed_merge), UTC when */
        a->logical = PQ_LOGICAL_TIMESTAMP_MILLIS + (au > bu ? au : bu) / 3 - 1; /* either is */
        a->is_adjusted_to_utc = a->is_adjusted_to_utc || b->is_adjusted_to_utc;
        return true;
    }
    if (ds_nested_leaf_same(a, b) || ds_nested_leaf_widens(b, a)) return true;
    if (ds_nested_leaf_widens(a, b)) {
        a->physical = b->physical, a->logical = b->logical, a->type_length = b->type_length;
        a->int_signed = b->int_signed, a->is_adjusted_to_utc = b->is_adjusted_to_utc;
        a->decimal_precision = b->decimal_precision, a->decimal_scale = b->decimal_scale;
        return true;
    }
    __int128 alo, ahi, blo, bhi;
    if (!ds_int_range(a, &alo, &ahi) || !ds_int_range(b, &blo, &bhi))
        return false; /* (DuckDB: VARCHAR beside a string) */
    if (a->logical == PQ_LOGICAL_UINT64 || b->logical == PQ_LOGICAL_UINT64) { /* HUGEINT */
        a->physical = PQ_FIXED_LEN_BYTE_ARRAY, a->type_length = 16, a->int_signed = true;
        a->logical = PQ_LOGICAL_DECIMAL, a->decimal_precision = 38, a->decimal_scale = 0;
        return true;
    }
    signed_int(alo < blo ? alo : blo, ahi > bhi ? ahi : bhi, a);
    return true;
}

/* A merged shape's own memory (its columns, then itself; NULL: nothing). */
static void meta_free(pq_file_meta *x)
{
    if (x) free(x->columns), free(x);
}

void ds_col_prev_free(ds_col *c)
{
    meta_free(c->prev.merged);
    c->prev.meta = NULL, c->prev.merged = NULL;
}

void ds_col_unmerge(ds_col *c)
{
    meta_free(c->merged);
    c->merged = NULL, c->held = NULL;
    ds_col_prev_free(c);
}

void ds_col_retire(ds_col *c)
{
    meta_free(c->prev.merged);
    c->prev.meta = c->meta, c->prev.node = c->node, c->prev.merged = c->merged;
    c->merged = NULL, c->held = NULL;
}

int ds_nested_merge(ds_col *c, const pq_file_meta *tm, int32_t tn, const ds_npair *p,
                    const pq_file_meta *fm)
{
    assert(!p->shape_bad && !p->extra);
    const pq_file_meta *base = tm == c->merged ? c->held : tm;
    pq_file_meta *x = fail_malloc(sizeof *x);
    pq_column_desc *cols = fail_malloc(sizeof *cols * (size_t)(tm->ncolumns + 1));
    if (!x || !cols) return free(x), free(cols), -ENOMEM;
    *x = *tm;
    memcpy(cols, tm->columns, sizeof *cols * (size_t)tm->ncolumns);
    x->columns = cols;
    x->nkv = 0, x->kv = NULL; /* (its Arrow types: the files' paired by ds_types_col) */
    x->nrow_groups = 0, x->row_groups = NULL;
    bool ok = true;
    for (int32_t k = 0; ok && k < p->nt; k++)
        if (p->tt[k].kind == PQ_NEST_PRIM && p->map[k] >= 0)
            ok = ds_nested_leaf_merge(&cols[p->tt[k].col], &fm->columns[p->ft[p->map[k]].col]);
    if (!ok) return free(cols), free(x), RINGSCAN_EUNSUPPORTED;
    ds_col_retire(c); /* (its Arrow types paired with the new shape's: ds_types_col) */
    c->merged = x, c->held = base, c->meta = x, c->node = tn;
    return 0;
}
