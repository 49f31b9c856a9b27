/* scan/ds_schema.c: a dataset's schema and each file's view of it (ds_impl.h): union by
 * name with widening, virtual columns (partitions, columns a file lacks) as per-file
 * constants for filters and batches. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "filter/kernel.h"
#include "scan/ds_impl.h"

/* Integer columns that widen: INT32/INT64 without a logical type, or INT8..INT64 and the
 * unsigned types up to 32 bits. */
static bool int_class(const pq_column_desc *d)
{
    if (d->physical != PQ_INT32 && d->physical != PQ_INT64) return false;
    pq_logical l = d->logical;
    return l == PQ_LOGICAL_NONE || (l >= PQ_LOGICAL_INT8 && l <= PQ_LOGICAL_UINT32);
}

static bool float_class(const pq_column_desc *d)
{
    return d->physical == PQ_FLOAT || d->physical == PQ_DOUBLE;
}

/* A's logical type with INT32/INT64's missing annotation written out (INT32 = INT(32, signed)). */
static pq_logical int_logical(const pq_column_desc *d)
{
    if (d->logical != PQ_LOGICAL_NONE || !int_class(d)) return d->logical;
    return d->physical == PQ_INT32 ? PQ_LOGICAL_INT32 : PQ_LOGICAL_INT64;
}

/* Whether a and b hold the same values as one Arrow type (a decimal in another physical
 * form converts: ds_widen). */
static bool same_type(const pq_column_desc *a, const pq_column_desc *b)
{
    if (ds_small_decimal(a) && ds_small_decimal(b))
        return a->decimal_precision == b->decimal_precision && a->decimal_scale == b->decimal_scale;
    bool dec = a->logical == PQ_LOGICAL_DECIMAL;
    bool timed = a->logical >= PQ_LOGICAL_TIME_MILLIS && a->logical <= PQ_LOGICAL_TIMESTAMP_NANOS;
    return a->physical == b->physical && int_logical(a) == int_logical(b) &&
           (a->physical != PQ_FIXED_LEN_BYTE_ARRAY || a->type_length == b->type_length) &&
           (!dec || (a->decimal_scale == b->decimal_scale &&
                     a->decimal_precision == b->decimal_precision)) &&
           (!timed || a->is_adjusted_to_utc == b->is_adjusted_to_utc);
}

static bool is_stamp(const pq_column_desc *d)
{
    return d->physical == PQ_INT96 ||
           (d->logical >= PQ_LOGICAL_TIMESTAMP_MILLIS && d->logical <= PQ_LOGICAL_TIMESTAMP_NANOS);
}

/* Two timestamps (or two times of day) in any units and zones into *out: in a union by name
 * the finer unit, UTC-adjusted when either is (DuckDB's union_by_name); otherwise a's type, to
 * which b's values are cast (pyarrow.dataset and DuckDB read a later file in the first file's
 * types; ds_types_file's scale, exact or refused). A later TIME_MILLIS (INT32) under a finer
 * first file's INT64 time is widened (ds_widen) then scaled, as pyarrow.dataset casts
 * time32[ms] to time64; an INT64 time is not narrowed to a first file's INT32: false. INT96
 * timestamps (nanoseconds) beside INT64 ones: a later INT96 file is widened then scaled (a
 * first INT96 file's column is INT64 nanoseconds already: add_flat). */
static bool timed_merge(const pq_column_desc *a, const pq_column_desc *b, bool by_name,
                        pq_column_desc *out)
{
    if (!ds_time_unit(a) || !ds_time_unit(b) || is_stamp(a) != is_stamp(b)) return false;
    *out = *a;
    if (!by_name)
        return a->physical == b->physical ||
               (a->physical == PQ_INT64 && (b->physical == PQ_INT32 || b->physical == PQ_INT96));
    if (ds_time_unit(b) > ds_time_unit(a)) out->logical = b->logical, out->physical = b->physical;
    if (a->physical != b->physical && (a->physical == PQ_INT96 || b->physical == PQ_INT96))
        out->physical = PQ_INT64, out->logical = PQ_LOGICAL_TIMESTAMP_NANOS; /* INT96's unit */
    out->is_adjusted_to_utc = a->is_adjusted_to_utc || b->is_adjusted_to_utc;
    return true;
}

/* A decimal ds_widen reads: INT32, INT64 or a FIXED_LEN of at most 16 bytes. */
static bool readable_decimal(const pq_column_desc *d)
{
    return d->logical == PQ_LOGICAL_DECIMAL && d->decimal_precision <= 38 &&
           (d->physical == PQ_INT32 || d->physical == PQ_INT64 ||
            (d->physical == PQ_FIXED_LEN_BYTE_ARRAY && d->type_length <= 16));
}

/* Two decimals of other precisions or scales as one that holds both (DuckDB's union_by_name:
 * the larger scale, the larger count of integer digits) into *out: stored as INT64 up to 18
 * digits, else as a 16-byte FIXED_LEN (ds_wide_decimal), values converted by ds_dec_cast. Past
 * 38 digits, DuckDB's cap: 38 digits, the scale cut to what the integer digits leave (values
 * of larger scales rounded), or kept (keep_scale: an integer beside a decimal, whose values
 * past the 38 digits DuckDB refuses, as ds_dec_cast does). */
static bool decimal_merge(const pq_column_desc *a, const pq_column_desc *b, bool keep_scale,
                          pq_column_desc *out)
{
    if (!readable_decimal(a) || !readable_decimal(b)) return false;
    int32_t scale = a->decimal_scale > b->decimal_scale ? a->decimal_scale : b->decimal_scale;
    int32_t ia = a->decimal_precision - a->decimal_scale, ib = b->decimal_precision - b->decimal_scale;
    int32_t digits = ia > ib ? ia : ib, prec = digits + scale;
    if (prec > 38) prec = 38, scale = keep_scale ? scale : 38 - digits;
    assert(scale >= 0 && scale <= prec);
    out->physical = prec > 18 ? PQ_FIXED_LEN_BYTE_ARRAY : PQ_INT64;
    out->type_length = prec > 18 ? 16 : 0;
    out->decimal_precision = prec, out->decimal_scale = scale;
    return true;
}

/* Integer column d as the decimal DuckDB casts it to beside a decimal: DECIMAL(digits, 0), its
 * type's most digits (3, 5, 10 or 19). */
static pq_column_desc int_as_decimal(const pq_column_desc *d)
{
    assert(int_class(d));
    pq_column_desc x = *d;
    pq_logical l = int_logical(d);
    x.decimal_precision = l == PQ_LOGICAL_INT8 || l == PQ_LOGICAL_UINT8     ? 3
                          : l == PQ_LOGICAL_INT16 || l == PQ_LOGICAL_UINT16 ? 5
                          : l == PQ_LOGICAL_INT64                           ? 19
                                                                            : 10;
    x.logical = PQ_LOGICAL_DECIMAL, x.decimal_scale = 0;
    return x;
}

/* An integer beside a decimal as one decimal holding both into *out (DuckDB's union_by_name:
 * BIGINT with DECIMAL(5,2) is DECIMAL(21,2), not a DOUBLE that would round large integers;
 * past 38 digits DECIMAL(38, the decimal's scale)); false unless one is an integer and the
 * other a decimal ds_dec_cast reads. */
static bool int_decimal_merge(const pq_column_desc *a, const pq_column_desc *b, pq_column_desc *out)
{
    bool ia = int_class(a), ib = int_class(b);
    if (ia == ib || !readable_decimal(ia ? b : a)) return false;
    pq_column_desc x = ia ? int_as_decimal(a) : *a, y = ib ? int_as_decimal(b) : *b;
    if (!decimal_merge(&x, &y, true, out)) return false;
    out->logical = PQ_LOGICAL_DECIMAL;
    return true;
}

static bool is_text(const pq_column_desc *d)
{
    return d->physical == PQ_BYTE_ARRAY && d->logical == PQ_LOGICAL_STRING;
}

/* The type both a and b widen to into *out (by_name: a union by name, which may widen a);
 * false when they do not. */
static bool type_merge(const pq_column_desc *a, const pq_column_desc *b, bool by_name,
                       pq_column_desc *out)
{
    *out = *a;
    if (same_type(a, b) || ds_null_typed(b)) return true; /* b's nulls read as a's (ds_col_leaf) */
    if (ds_null_typed(a)) return by_name ? (*out = *b, true) : false; /* as DuckDB and pyarrow */
    if ((is_text(a) && ds_texted(b)) || (by_name && ds_texted(a) && is_text(b))) {
        *out = is_text(a) ? *a : *b; /* DuckDB: a number, date or time beside a string is */
        return true; /* VARCHAR (without union_by_name a later file's cast to the first's) */
    }
    if (ds_time_unit(a) || ds_time_unit(b)) return timed_merge(a, b, by_name, out);
    if (decimal_merge(a, b, false, out)) return true; /* (without by_name: a's, add_flat) */
    if (int_decimal_merge(a, b, out)) return true; /* (the same) */
    bool ia = int_class(a), ib = int_class(b);
    bool na = ia || float_class(a) || ds_small_decimal(a);
    bool nb = ib || float_class(b) || ds_small_decimal(b);
    bool u64 = a->logical == PQ_LOGICAL_UINT64 || b->logical == PQ_LOGICAL_UINT64;
    if ((na || u64) && (nb || u64) && (float_class(a) || float_class(b))) { /* DuckDB: a float */
        bool dbl = a->physical == PQ_DOUBLE || b->physical == PQ_DOUBLE; /* with a number is a */
        out->physical = dbl ? PQ_DOUBLE : PQ_FLOAT, out->logical = PQ_LOGICAL_NONE; /* FLOAT */
        out->type_length = out->decimal_precision = out->decimal_scale = 0; /* unless either */
        return true; /* is a DOUBLE */
    }
    if (na && nb && !(ia && ib)) { /* a decimal with another kind */
        out->physical = PQ_DOUBLE, out->logical = PQ_LOGICAL_NONE;
        return true;
    }
    if (!ia || !ib) return false;
    bool wide = a->physical == PQ_INT64 || b->physical == PQ_INT64 ||
                a->logical == PQ_LOGICAL_UINT32 || b->logical == PQ_LOGICAL_UINT32;
    out->physical = wide ? PQ_INT64 : PQ_INT32;
    out->logical = PQ_LOGICAL_NONE, out->int_signed = true;
    return true;
}

int ds_schema_find(const ds_schema *s, const char *name)
{
    assert(s->names.n == s->n);
    size_t len = strlen(name);
    int at = ds_names_exact(&s->names, name, len); /* (the only one so spelled: add_col) */
    if (at >= 0) return at;
    at = ds_names_group(&s->names, name, len); /* none spelled so: the only one but for case */
    return at >= 0 && s->names.next[at] < 0 ? at : -1;
}

/* The column of s that file m's top-level column name joins: the one spelled so, else the one
 * whose name differs in case alone (DuckDB's union_by_name keeps the first file's spelling),
 * unless m has a column spelled as it too (then name is a column of its own, ds_col.twin). */
static int match_col(const ds_schema *s, const char *name, const pq_file_meta *m)
{
    assert(s->names.n == s->n);
    size_t len = strlen(name);
    int at = ds_names_exact(&s->names, name, len), folded = -1, n = 0;
    if (at >= 0) return at;
    for (int i = ds_names_group(&s->names, name, len); i >= 0; i = s->names.next[i])
        if (!s->cols[i].twin && !pq_file_meta_top_name(m, s->cols[i].name, true))
            folded = i, n++;
    return n == 1 ? folded : -1;
}

static int add_col(ds_schema *s, const char *name, const pq_column_desc *d, int part,
                   const char *from)
{
    ds_col *nc = fail_realloc(s->cols, sizeof *nc * (size_t)(s->n + 1));
    if (!nc) return -ENOMEM;
    s->cols = nc;
    ds_col *c = &nc[s->n];
    *c = (ds_col){.name = fail_strdup(name), .desc = *d, .part = part, .node = -1,
                  .from = fail_strdup(from ? from : "")};
    if (!c->name || !c->from) {
        free(c->name), free(c->from);
        return -ENOMEM;
    }
    c->desc.name = c->name;
    c->desc.index = s->n;
    c->desc.repetition = PQ_OPTIONAL, c->desc.max_def_level = 1;
    int twins = ds_names_group(&s->names, name, strlen(name));
    assert(ds_names_exact(&s->names, name, strlen(name)) < 0); /* (callers looked it up) */
    if (ds_names_add(&s->names, c->name) != 0) {
        free(c->name), free(c->from);
        return -ENOMEM;
    }
    for (int i = twins; i >= 0; i = s->names.next[i]) /* (a file holds both spellings: */
        nc[i].twin = true;                              /* match_col); c itself the last */
    s->n++;
    return 0;
}

/* Column at's conflict noted from tmp's message (the first one kept): 0, or -ENOMEM. */
static int defer(ds_schema *s, int at, int rc, const pq_err *tmp)
{
    if (rc != RINGSCAN_EUNSUPPORTED) return rc;
    if (s->cols[at].conflict) return 0;
    return (s->cols[at].conflict = fail_strdup(tmp->msg)) ? 0 : -ENOMEM;
}

/* Whether name is a partition key of s->list (its files' own column of that name is replaced). */
static bool part_key(const ds_schema *s, const char *name)
{
    for (int j = 0; s->list && j < s->list->npart; j++)
        if (strcmp(s->list->part[j].name, name) == 0) return true;
    return false;
}

/* Adds nested top-level field i of m (file path) to s as a column read whole (add_new), or
 * checks it against the column s has of its name (ds_impl.h invariant 5); a field the format
 * cannot read is remembered for messages. */
static int add_field(ds_schema *s, const pq_file_meta *m, int32_t i, const char *path, bool add_new,
                     pq_err *e)
{
    const char *name = m->nodes[i].path;
    int at = match_col(s, name, m), leaf = ds_nested_readable(m, i);
    if (leaf == -ENOMEM) return pq_errf(e, -ENOMEM, -1, "out of memory"); /* not unreadable */
    if (leaf < 0) return add_new && at < 0 ? ds_nested_remember(s, name, path) : 0;
    if (at >= 0 && (s->cols[at].part >= 0 || part_key(s, s->cols[at].name))) return 0; /* ds_schema_parts */
    pq_err tmp = {.offset = -1};
    bool took = false; /* (m's leaves the wider: its shape, and its Arrow type) */
    int rc = at >= 0 ? ds_nested_match(s, at, m, i, path, add_new, &took, &tmp) : 0;
    if (at >= 0) /* (took: m's shape, or a merged one: ds_nested_merge, ds_nested_union) */
        return rc == 0 && took ? ds_types_col(s, at, m, path, e) : defer(s, at, rc, &tmp);
    rc = add_new ? add_col(s, name, &m->columns[leaf], -1, path) : 0;
    if (rc == 0 && add_new) s->cols[s->n - 1].node = i, s->cols[s->n - 1].meta = m;
    return rc;
}

/* d's type as messages name it: PHYSICAL/LOGICAL, a decimal's with its precision and scale. */
static const char *type_text(const pq_column_desc *d, char *buf, size_t cap)
{
    if (d->logical == PQ_LOGICAL_DECIMAL)
        snprintf(buf, cap, "%s/DECIMAL(%d,%d)", pq_physical_name(d->physical),
                 (int)d->decimal_precision, (int)d->decimal_scale);
    else
        snprintf(buf, cap, "%s/%s", pq_physical_name(d->physical), pq_logical_name(d->logical));
    return buf;
}

/* Adds flat column d of file path to s (add_new: a new name appended; INT96 timestamps as
 * INT64 nanoseconds, the type pyarrow.dataset reads them as, so that a later INT64 file's
 * values cast to it as to any first file's unit), or merges it into the column s has of its
 * name (ds_schema_add). */
static int add_flat(ds_schema *s, const pq_file_meta *m, const pq_column_desc *d, const char *path,
                    bool add_new)
{
    int at = match_col(s, d->name, m);
    pq_column_desc w = *d;
    if (d->physical == PQ_INT96) w.physical = PQ_INT64, w.logical = PQ_LOGICAL_TIMESTAMP_NANOS;
    if (at < 0) return add_new ? add_col(s, d->name, &w, -1, path) : 0;
    if (s->cols[at].part >= 0 || part_key(s, s->cols[at].name)) return 0; /* (ds_schema_parts) */
    if (s->cols[at].node >= 0 && ds_null_typed(d)) return 0; /* nulls of the nested field here */
    pq_err tmp = {.offset = -1}, *e = &tmp; /* a conflict is noted (defer), not returned */
    if (s->cols[at].node >= 0)
        return defer(s, at, pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s' is a nested "
                                    "field in %.80s but flat in %.80s: a dataset's nested "
                                    "fields must match", d->name, s->cols[at].from, path), e);
    char ta[48], tb[48];
    const pq_column_desc *first = &s->cols[at].desc;
    bool u64 = d->logical == PQ_LOGICAL_UINT64, first64 = first->logical == PQ_LOGICAL_UINT64;
    if (!add_new && (readable_decimal(first) || int_class(first) || first64) &&
        (readable_decimal(d) || int_class(d) || float_class(d) || u64))
        return 0; /* DuckDB casts a later file's decimals and integers (a wider INT64 under a
                     first INT32 too) to the first file's type: ds_dec_cast (where the first
                     file's type does not hold every value: ds_dec_cast_needed), rounding,
                     range checked; or ds_widen; a float or double rounded too */
    if (!add_new && first->physical == PQ_FLOAT &&
        (d->physical == PQ_DOUBLE || int_class(d) || ds_small_decimal(d) || u64))
        return 0; /* a later DOUBLE under a first FLOAT: cast, ds_dec_cast; a number: ds_widen */
    if (!add_new && is_text(d) && ds_texted(first))
        return 0; /* a later file's strings parsed as the first file's type: ds_parse_cast */
    if (!add_new && ds_null_typed(first) && !ds_null_typed(d)) /* (a union by name takes d's) */
        return defer(s, at, pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s' is of the "
                       "null type in %.80s but %s in %.80s: read with union_by_name", d->name,
                       s->cols[at].from, type_text(d, tb, sizeof tb), path), e);
    if (!type_merge(&s->cols[at].desc, d, add_new, &w))
        return defer(s, at, pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s' is %s in "
                       "%.80s but %s in %.80s: the types do not widen", d->name,
                       type_text(&s->cols[at].desc, ta, sizeof ta), s->cols[at].from,
                       type_text(d, tb, sizeof tb), path), e);
    if (ds_null_typed(d)) return 0; /* nulls of the column's type in this file */
    /* DuckDB reads a later file in the first file's types */
    if (!add_new && !same_type(&w, &s->cols[at].desc))
        return defer(s, at, pq_errf(e, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s' is %s in %.80s "
                       "but wider (%s) in %.80s: read with union_by_name", d->name,
                       type_text(&s->cols[at].desc, ta, sizeof ta), s->cols[at].from,
                       type_text(d, tb, sizeof tb), path), e);
    if (ds_null_typed(&s->cols[at].desc) || /* its type from now on this file's (messages) */
        (is_text(&w) && !is_text(&s->cols[at].desc))) {
        char *from = fail_strdup(path);
        if (!from) return -ENOMEM;
        free(s->cols[at].from), s->cols[at].from = from;
    }
    s->cols[at].desc = w, s->cols[at].desc.name = s->cols[at].name;
    s->cols[at].desc.index = at;
    return 0;
}

/* Whether m has a flat column c of the null type (its nulls read as the dataset's type). */
static bool null_typed_in(const pq_file_meta *m, const ds_col *c)
{
    const char *name = pq_file_meta_top_name(m, c->name, c->twin);
    int leaf = name ? pq_file_meta_find_column(m, name) : -1;
    return leaf >= 0 && ds_null_typed(&m->columns[leaf]);
}

int ds_schema_add(ds_schema *s, const pq_file_meta *m, const char *path, bool add_new, pq_err *e)
{
    int rc = 0, first = s->n;
    for (int i = 0; rc == 0 && !m->has_nested && i < m->ncolumns; i++)
        rc = add_flat(s, m, &m->columns[i], path, add_new);
    for (int32_t i = 0; rc == 0 && m->has_nested && i < m->nnodes; i = m->nodes[i].end) {
        if (m->nodes[i].shape == PQ_SHAPE_FLAT)
            rc = add_flat(s, m, &m->columns[m->nodes[i].column], path, add_new);
        else
            rc = add_field(s, m, i, path, add_new, e);
    }
    pq_err tmp = {.offset = -1};
    for (int c = 0; rc == 0 && !add_new && c < s->n; c++)
        if (s->cols[c].part < 0 && ds_col_leaf(&s->cols[c], m, &(int32_t){0}) < 0 &&
            !null_typed_in(m, &s->cols[c]))
            rc = defer(s, c, pq_errf(&tmp, RINGSCAN_EUNSUPPORTED, -1, "column '%.40s' of %.80s is "
                                     "missing from %.80s: read with union_by_name",
                                     s->cols[c].name, s->cols[c].from, path), &tmp);
    if (rc == 0 && add_new) rc = ds_types_add(s, first, m, path, e); /* invariant 4 */
    return rc;
}

/* Data column c (index at) becomes partition j of type d, in its place: DuckDB reads a hive
 * partition over a file's own column of its name (values and type the partition's). */
static void as_part(ds_col *c, const pq_column_desc *d, int j, int at)
{
    ds_col_unmerge(c);
    c->part = j, c->node = -1, c->meta = NULL;
    c->desc = *d;
    c->desc.name = c->name, c->desc.index = at;
    c->desc.repetition = PQ_OPTIONAL, c->desc.max_def_level = 1;
}

int ds_schema_parts(ds_schema *s, const ds_list *l)
{
    int rc = 0;
    for (int j = 0; rc == 0 && j < l->npart; j++) {
        int at = ds_schema_find(s, l->part[j].name);
        if (at < 0) rc = add_col(s, l->part[j].name, &l->part[j].desc, j, NULL);
        else if (s->cols[at].part < 0) as_part(&s->cols[at], &l->part[j].desc, j, at);
    }
    return rc;
}

void ds_schema_drop_parts(ds_schema *s)
{
    /* a partition over a data column stays in that column's place (ds_schema_parts) */
    while (s->n > 0 && s->cols[s->n - 1].part >= 0) {
        s->n--;
        free(s->cols[s->n].name), free(s->cols[s->n].from), free(s->cols[s->n].conflict);
        scan_arrow_type_free(&s->cols[s->n].atype);
    }
    ds_names_cut(&s->names, s->n); /* (the names freed above are not read: their entries go) */
}

void ds_schema_free(ds_schema *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->cols[i].name), free(s->cols[i].from), free(s->cols[i].conflict);
        scan_arrow_type_free(&s->cols[i].atype);
        ds_col_unmerge(&s->cols[i]);
    }
    free(s->cols);
    ds_names_free(&s->names);
    free(s->metadata);
    for (int i = 0; i < s->nnested; i++) free(s->nested[i]);
    free(s->nested);
    *s = (ds_schema){0};
}

int ds_view_init(ds_view *v, const ds_schema *s, const pq_file_meta *m)
{
    *v = (ds_view){.nfile = m->ncolumns};
    v->leaf = fail_malloc(sizeof(int) * (size_t)(s->n + 1));
    v->virt = fail_malloc(sizeof(int) * (size_t)(s->n + 1));
    v->node = fail_malloc(sizeof(int32_t) * (size_t)(s->n + 1));
    v->cols = fail_malloc(sizeof *v->cols * (size_t)(m->ncolumns + s->n + 1));
    if (!v->leaf || !v->virt || !v->node || !v->cols) return -ENOMEM;
    memcpy(v->cols, m->columns, sizeof *v->cols * (size_t)m->ncolumns);
    v->ncols = m->ncolumns;
    for (int c = 0; c < s->n; c++) {
        int leaf = ds_col_leaf(&s->cols[c], m, &v->node[c]);
        /* a file's column under a partition's name (ds_schema_parts), or of the null type
         * under another type (ds_null_typed), is hidden from the filter's names */
        const char *name = leaf < 0 ? pq_file_meta_top_name(m, s->cols[c].name, s->cols[c].twin) : NULL;
        int own = name ? pq_file_meta_find_column(m, name) : -1;
        if (own >= 0) v->cols[own].name = "";
        if (leaf >= 0 && v->node[c] < 0) v->cols[leaf].name = s->cols[c].name; /* (the filter's) */
        v->leaf[c] = leaf;
        if (leaf >= 0 || s->cols[c].node >= 0) continue; /* no filter reads a nested field */
        v->virt[v->ncols - v->nfile] = c;
        v->cols[v->ncols] = s->cols[c].desc;
        v->cols[v->ncols].index = v->ncols;
        v->ncols++;
    }
    return 0;
}

void ds_view_free(ds_view *v)
{
    free(v->leaf), free(v->virt), free(v->node), free(v->cols);
    *v = (ds_view){0};
}

int ds_const_vec(const ds_schema *s, int c, const ds_file *f, int64_t rows, pq_vec *out)
{
    const ds_col *col = &s->cols[c];
    if (col->node >= 0) /* a nested field's rows: null placeholders (column_nested.h) */
        pq_vec_init(out, PQ_BYTE_ARRAY, 0);
    else
        pq_vec_init(out, col->desc.physical, col->desc.type_length);
    const char *text = col->part >= 0 ? f->text[col->part] : NULL;
    int64_t bytes = text && col->desc.physical == PQ_BYTE_ARRAY ? (int64_t)strlen(text) * rows : 0;
    if (bytes > INT32_MAX) return -EOVERFLOW;
    int rc = pq_vec_reserve(out, rows, bytes);
    if (rc || rows == 0) return rc;
    int64_t w = pq_fixed_width(out->type, out->type_length);
    if (!text) { /* null in every row; value slots zeroed (vec.h invariant 2) */
        memset(out->validity, 0, (size_t)(rows + 7) / 8);
        if (w) memset(out->values, 0, (size_t)(w * rows));
        if (out->type == PQ_BOOLEAN) memset(out->values, 0, (size_t)(rows + 7) / 8);
        if (out->offsets) memset(out->offsets, 0, sizeof(int32_t) * (size_t)(rows + 1));
        out->null_count = rows;
    } else if (out->type == PQ_BYTE_ARRAY) {
        size_t len = strlen(text);
        out->offsets[0] = 0;
        for (int64_t r = 0; r < rows; r++) {
            if (len) memcpy(out->data + (size_t)r * len, text, len); /* "k=": data may be NULL */
            out->offsets[r + 1] = (int32_t)((size_t)(r + 1) * len);
        }
        out->data_len = bytes;
    } else {
        int64_t v = f->ival[col->part];
        int32_t v32 = (int32_t)v;
        for (int64_t r = 0; r < rows; r++)
            memcpy(out->values + r * w, w == 8 ? (const void *)&v : (const void *)&v32, (size_t)w);
    }
    out->length = rows;
    return 0;
}
