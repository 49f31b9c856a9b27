/* format/meta_schema.c: the Parquet schema (list<SchemaElement>) flattened to leaf columns,
 * with logical types from the LogicalType union or, failing that, from ConvertedType.
 *
 * Owns: pq_schema_read and the sort order of each leaf type.
 * Invariants:
 *  1. Only flat schemas: element 0 is the root group, its num_children children are all
 *     primitive leaves, REQUIRED or OPTIONAL, and there are no further elements. A group child,
 *     a REPEATED/VECTOR leaf, or a LIST/MAP annotation is RINGSCAN_EUNSUPPORTED naming the
 *     column (its dotted path down the first children).
 *  2. Element count <= 4 * max_columns + 1 and the leaf count <= max_columns (RINGSCAN_ELIMIT);
 *     path walks stop at max_schema_depth.
 *  3. An unknown LogicalType member reads as no logical type (the physical type), falling back
 *     to ConvertedType when that is set.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/meta_priv.h"
#include "common/fail.h"

enum { LT_NONE = 0, LT_UNSUPPORTED_NESTED = 1000, LT_UNDEFINED_ORDER = 1001 };

typedef struct raw_elem {
    const uint8_t *name;
    uint32_t name_len;
    bool has_type, has_rep, has_children, has_converted;
    int32_t type, type_length, rep, num_children, converted, scale, precision, field_id;
    bool has_logical;
    int logical;          /* pq_logical, or LT_* above */
    bool logical_known;   /* a LogicalType member we understand */
    bool utc, int_signed;
    int32_t int_bits, lt_scale, lt_precision;
} raw_elem;

/* TimeUnit union: 1 MILLIS, 2 MICROS, 3 NANOS; 0 unknown. */
static int read_time_unit(pq_tr *r, int *unit)
{
    int16_t id;
    uint8_t t;
    *unit = 0;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (id >= 1 && id <= 3 && t == PQ_T_STRUCT) *unit = id;
        pq_tr_skip(r, t);
    }
    return r->status ? r->status : pq_tr_struct_end(r);
}

/* Reads the fields of TimeType/TimestampType/IntType/DecimalType into el. */
static int read_logical_params(pq_tr *r, int16_t member, raw_elem *el)
{
    int16_t id;
    uint8_t t;
    int64_t v;
    int unit = 0;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (member == 5 && (id == 1 || id == 2)) { /* DECIMAL scale, precision */
            if (pq_tr_int(r, t, 0, INT32_MAX, &v)) break;
            *(id == 1 ? &el->lt_scale : &el->lt_precision) = (int32_t)v;
        } else if ((member == 7 || member == 8) && id == 1) {
            pq_tr_bool_field(r, t, &el->utc);
        } else if ((member == 7 || member == 8) && id == 2 && t == PQ_T_STRUCT) {
            read_time_unit(r, &unit);
        } else if (member == 10 && id == 1) {
            if (pq_tr_int(r, t, 0, 64, &v)) break;
            el->int_bits = (int32_t)v;
        } else if (member == 10 && id == 2) {
            pq_tr_bool_field(r, t, &el->int_signed);
        } else {
            pq_tr_skip(r, t);
        }
    }
    if (r->status) return r->status;
    if (member == 7) el->logical = unit == 1 ? PQ_LOGICAL_TIME_MILLIS : unit == 2 ? PQ_LOGICAL_TIME_MICROS
                                   : unit == 3 ? PQ_LOGICAL_TIME_NANOS : LT_NONE;
    if (member == 8) el->logical = unit == 1 ? PQ_LOGICAL_TIMESTAMP_MILLIS
                                   : unit == 2 ? PQ_LOGICAL_TIMESTAMP_MICROS
                                   : unit == 3 ? PQ_LOGICAL_TIMESTAMP_NANOS : LT_NONE;
    if (member == 10) {
        static const int s[] = {PQ_LOGICAL_INT8, PQ_LOGICAL_INT16, PQ_LOGICAL_INT32, PQ_LOGICAL_INT64};
        static const int u[] = {PQ_LOGICAL_UINT8, PQ_LOGICAL_UINT16, PQ_LOGICAL_UINT32, PQ_LOGICAL_UINT64};
        int k = el->int_bits == 8 ? 0 : el->int_bits == 16 ? 1 : el->int_bits == 32 ? 2
                : el->int_bits == 64 ? 3 : -1;
        el->logical = k < 0 ? LT_NONE : el->int_signed ? s[k] : u[k];
    }
    return pq_tr_struct_end(r);
}

/* LogicalType union: sets el->logical (LT_NONE for members we do not know). */
static int read_logical(pq_tr *r, raw_elem *el)
{
    static const int simple[20] = {
        [1] = PQ_LOGICAL_STRING, [2] = LT_UNSUPPORTED_NESTED, [3] = LT_UNSUPPORTED_NESTED,
        [4] = PQ_LOGICAL_ENUM, [5] = PQ_LOGICAL_DECIMAL, [6] = PQ_LOGICAL_DATE,
        [11] = PQ_LOGICAL_UNKNOWN, [12] = PQ_LOGICAL_JSON, [13] = PQ_LOGICAL_BSON,
        [14] = PQ_LOGICAL_UUID, [15] = PQ_LOGICAL_FLOAT16, [16] = LT_UNSUPPORTED_NESTED,
        [17] = LT_UNDEFINED_ORDER, [18] = LT_UNDEFINED_ORDER, [19] = LT_UNSUPPORTED_NESTED,
    };
    int16_t id;
    uint8_t t;
    el->has_logical = true;
    el->logical = LT_NONE;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        if (t != PQ_T_STRUCT || id < 1 || id > 19) {
            pq_tr_skip(r, t);
            continue;
        }
        el->logical = simple[id];
        el->logical_known = true;
        if (id == 5 || id == 7 || id == 8 || id == 10) read_logical_params(r, id, el);
        else pq_tr_skip(r, t);
        if (el->logical == LT_NONE) el->logical_known = false;
    }
    return r->status ? r->status : pq_tr_struct_end(r);
}

static int read_elem(pq_tr *r, raw_elem *el)
{
    int16_t id;
    uint8_t t;
    int64_t v;
    bool have_name = false;
    el->field_id = -1;
    if (pq_tr_struct_begin(r)) return r->status;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        switch (id) {
        case 1: if (!pq_tr_int(r, t, 0, 7, &v)) { el->type = (int32_t)v; el->has_type = true; } break;
        case 2: if (!pq_tr_int(r, t, INT32_MIN, INT32_MAX, &v)) el->type_length = (int32_t)v; break;
        case 3: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) { el->rep = (int32_t)v; el->has_rep = true; } break;
        case 4:
            if (!pq_tr_expect(r, t, PQ_T_BINARY, "SchemaElement.name"))
                have_name = !pq_tr_binary(r, &el->name, &el->name_len);
            break;
        case 5: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) { el->num_children = (int32_t)v; el->has_children = true; } break;
        case 6: if (!pq_tr_int(r, t, 0, INT32_MAX, &v)) { el->converted = (int32_t)v; el->has_converted = true; } break;
        case 7: if (!pq_tr_int(r, t, INT32_MIN, INT32_MAX, &v)) el->scale = (int32_t)v; break;
        case 8: if (!pq_tr_int(r, t, INT32_MIN, INT32_MAX, &v)) el->precision = (int32_t)v; break;
        case 9: if (!pq_tr_int(r, t, INT32_MIN, INT32_MAX, &v)) el->field_id = (int32_t)v; break;
        case 10: if (!pq_tr_expect(r, t, PQ_T_STRUCT, "SchemaElement.logicalType")) read_logical(r, el); break;
        default: pq_tr_skip(r, t); break;
        }
    }
    if (r->status) return r->status;
    if (!have_name) return pq_tr_fail(r, "SchemaElement without a name");
    return pq_tr_struct_end(r);
}

/* Maps ConvertedType to a logical type (LIST/MAP/MAP_KEY_VALUE: nested; INTERVAL: own). */
static int logical_from_converted(int32_t ct)
{
    static const int map[22] = {
        [0] = PQ_LOGICAL_STRING, [1] = LT_UNSUPPORTED_NESTED, [2] = LT_UNSUPPORTED_NESTED,
        [3] = LT_UNSUPPORTED_NESTED, [4] = PQ_LOGICAL_ENUM, [5] = PQ_LOGICAL_DECIMAL,
        [6] = PQ_LOGICAL_DATE, [7] = PQ_LOGICAL_TIME_MILLIS, [8] = PQ_LOGICAL_TIME_MICROS,
        [9] = PQ_LOGICAL_TIMESTAMP_MILLIS, [10] = PQ_LOGICAL_TIMESTAMP_MICROS,
        [11] = PQ_LOGICAL_UINT8, [12] = PQ_LOGICAL_UINT16, [13] = PQ_LOGICAL_UINT32,
        [14] = PQ_LOGICAL_UINT64, [15] = PQ_LOGICAL_INT8, [16] = PQ_LOGICAL_INT16,
        [17] = PQ_LOGICAL_INT32, [18] = PQ_LOGICAL_INT64, [19] = PQ_LOGICAL_JSON,
        [20] = PQ_LOGICAL_BSON, [21] = PQ_LOGICAL_INTERVAL,
    };
    return ct >= 0 && ct < 22 ? map[ct] : LT_NONE;
}

/* Sort order of a leaf for statistics, per the ColumnOrder documentation. */
static pq_sort_order sort_order_of(int logical, pq_physical phys)
{
    switch (logical) {
    case PQ_LOGICAL_STRING: case PQ_LOGICAL_ENUM: case PQ_LOGICAL_JSON: case PQ_LOGICAL_BSON:
    case PQ_LOGICAL_UUID: case PQ_LOGICAL_UINT8: case PQ_LOGICAL_UINT16:
    case PQ_LOGICAL_UINT32: case PQ_LOGICAL_UINT64:
        return PQ_ORDER_UNSIGNED;
    case PQ_LOGICAL_INTERVAL: case LT_UNDEFINED_ORDER: return PQ_ORDER_UNDEFINED;
    case LT_NONE: case PQ_LOGICAL_UNKNOWN: break;
    default: return PQ_ORDER_SIGNED;
    }
    switch (phys) {
    case PQ_INT96: return PQ_ORDER_UNDEFINED;
    case PQ_BYTE_ARRAY: case PQ_FIXED_LEN_BYTE_ARRAY: return PQ_ORDER_UNSIGNED;
    default: return PQ_ORDER_SIGNED;
    }
}

/* Dotted path of element i followed down its first children (bounded by depth). */
static void first_leaf_path(const raw_elem *els, uint32_t n, uint32_t i, uint32_t max_depth,
                            char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (uint32_t d = 0; i < n && d < max_depth; d++, i++) {
        int w = snprintf(out + len, cap - len, "%s%.*s", d ? "." : "", (int)els[i].name_len,
                         (const char *)els[i].name);
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
        if (!els[i].has_children || els[i].num_children == 0) break;
    }
}

static int refuse_nested(const raw_elem *els, uint32_t n, uint32_t i, const pq_meta_limits *lim,
                         pq_err *e)
{
    char path[128];
    first_leaf_path(els, n, i, lim->max_schema_depth, path, sizeof path);
    return pq_errf_col(e, RINGSCAN_EUNSUPPORTED, -1, path,
                       "column '%s': nested/repeated columns are not supported", path);
}

/* Fills one leaf column from its element. */
static int make_leaf(const raw_elem *el, int32_t index, pq_arena *a, pq_column_desc *c, pq_err *e)
{
    memset(c, 0, sizeof *c);
    c->name = pq_arena_strdup(a, el->name, el->name_len);
    if (!c->name) return pq_errf(e, -ENOMEM, -1, "out of memory");
    c->index = index;
    c->physical = (pq_physical)el->type;
    c->type_length = el->type == PQ_FIXED_LEN_BYTE_ARRAY ? el->type_length : 0;
    if (el->type == PQ_FIXED_LEN_BYTE_ARRAY && (el->type_length <= 0 || el->type_length > (1 << 20))) {
        return pq_errf_col(e, RINGSCAN_EFORMAT, -1, c->name,
                           "column '%s': bad FIXED_LEN_BYTE_ARRAY length %d", c->name,
                           (int)el->type_length);
    }
    c->repetition = el->has_rep ? (pq_repetition)el->rep : PQ_OPTIONAL;
    c->max_def_level = c->repetition == PQ_OPTIONAL ? 1 : 0;
    c->field_id = el->field_id;
    int lg = el->logical_known ? el->logical : LT_NONE;
    if (lg == LT_NONE && el->has_converted) lg = logical_from_converted(el->converted);
    c->sort_order = sort_order_of(lg, c->physical);
    c->logical = (lg == LT_NONE || lg >= LT_UNSUPPORTED_NESTED) ? PQ_LOGICAL_NONE : (pq_logical)lg;
    c->is_adjusted_to_utc = el->logical_known ? el->utc : true; /* legacy converted: UTC */
    c->int_signed = c->logical >= PQ_LOGICAL_INT8 && c->logical <= PQ_LOGICAL_INT64;
    if (c->logical == PQ_LOGICAL_DECIMAL) {
        bool lt = el->logical_known && el->logical == PQ_LOGICAL_DECIMAL;
        c->decimal_scale = lt ? el->lt_scale : el->scale;
        c->decimal_precision = lt ? el->lt_precision : el->precision;
        if (c->decimal_precision <= 0 || c->decimal_scale < 0 || c->decimal_scale > c->decimal_precision)
            c->logical = PQ_LOGICAL_NONE; /* malformed annotation: read the physical type */
    }
    return 0;
}

/* Checks the flat shape of els[0..n) and fills m->columns. */
static int flatten(const raw_elem *els, uint32_t n, pq_file_meta *m, pq_arena *a,
                   const pq_meta_limits *lim, pq_err *e)
{
    if (n == 0) return pq_errf(e, RINGSCAN_EFORMAT, -1, "schema is empty");
    if (els[0].has_type || !els[0].has_children)
        return pq_errf(e, RINGSCAN_EFORMAT, -1, "schema root is not a group");
    uint32_t nleaves = (uint32_t)els[0].num_children;
    if (nleaves > lim->max_columns)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "schema has %u columns, above the limit max_columns=%u",
                       nleaves, lim->max_columns);
    for (uint32_t i = 1; i < n && i <= nleaves; i++) {
        const raw_elem *el = &els[i];
        bool group = !el->has_type || (el->has_children && el->num_children > 0);
        bool nested_lt = (el->logical_known && el->logical == LT_UNSUPPORTED_NESTED) ||
                         (el->has_converted && logical_from_converted(el->converted) == LT_UNSUPPORTED_NESTED);
        if (group || nested_lt || (el->has_rep && el->rep >= PQ_REPEATED))
            return refuse_nested(els, n, i, lim, e);
    }
    if (n != nleaves + 1)
        return pq_errf(e, RINGSCAN_EFORMAT, -1, "schema has %u elements, root declares %u children",
                       n - 1, nleaves);
    m->ncolumns = (int32_t)nleaves;
    m->columns = pq_arena_alloc(a, (size_t)nleaves * sizeof *m->columns);
    if (nleaves && !m->columns) return pq_errf(e, -ENOMEM, -1, "out of memory");
    for (uint32_t i = 0; i < nleaves; i++) {
        int rc = make_leaf(&els[i + 1], (int32_t)i, a, &m->columns[i], e);
        if (rc) return rc;
    }
    return 0;
}

int pq_schema_read(pq_tr *r, pq_file_meta *m, pq_arena *a, const pq_meta_limits *lim, pq_err *e)
{
    assert(r && m && a && lim);
    uint8_t et;
    uint32_t n;
    uint64_t cap = (uint64_t)lim->max_columns * 4 + 1;
    if (pq_tr_list_begin(r, &et, &n, cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap)) return r->status;
    if (n && et != PQ_T_STRUCT) return pq_tr_fail(r, "schema is not a list of structs");
    raw_elem *els = fail_calloc(n ? n : 1, sizeof *els);
    if (!els) return pq_errf(e, -ENOMEM, -1, "out of memory");
    for (uint32_t i = 0; i < n && !r->status; i++) read_elem(r, &els[i]);
    int rc = r->status ? r->status : pq_tr_list_end(r);
    if (!rc) rc = flatten(els, n, m, a, lim, e);
    free(els);
    return rc;
}
