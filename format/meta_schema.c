/* format/meta_schema.c: the Parquet schema (list<SchemaElement>, a tree in pre-order) read as
 * a tree of nodes and its leaf columns, with logical types from the LogicalType union or,
 * failing that, from ConvertedType.
 *
 * Owns: pq_schema_read, the shape of LIST and MAP groups, and the sort order of each leaf type.
 * Invariants:
 *  1. Element 0 is the root group; every other element is a node. A group (no type, or
 *     num_children > 0) has at least one child; the children of every group, counted down a
 *     stack of at most max_schema_depth frames, use up exactly the elements the list holds:
 *     a group that runs past the end, or elements left over after the root's fields, is
 *     RINGSCAN_EFORMAT naming the group or the count.
 *  2. Element count <= 4 * max_columns + 1 (the thrift list's cap), leaves <= max_columns and
 *     depth <= max_schema_depth (RINGSCAN_ELIMIT); a nested path is at most PQ_SCHEMA_PATH_MAX
 *     bytes (RINGSCAN_ELIMIT), so paths cost at most depth x that much per leaf.
 *  3. Levels: a node's max definition level counts the OPTIONAL and REPEATED nodes from the
 *     root's children down to it, its max repetition level the REPEATED ones (<= depth <= the
 *     limit, so they fit int16_t). A top-level REQUIRED/OPTIONAL primitive without LIST/MAP
 *     annotation is a flat column, filled exactly as before nested schemas were read.
 *  4. A LIST or MAP group whose children do not have a shape the format allows keeps
 *     element = -1 (described by meta, never decoded); it does not fail the file. A MAP whose
 *     key_value group holds the key alone has shape LIST (pyarrow reads a list of keys). A
 *     MAP's key may be OPTIONAL where the format says REQUIRED (parquet-mr 1.12 wrote such
 *     files; DuckDB reads them, pyarrow refuses): the map reads, and a key that is null in
 *     the data fails the scan of that row group (format/nest_keys.c).
 *  5. An unknown LogicalType member reads as no logical type (the physical type), falling back
 *     to ConvertedType when that is set.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/meta_priv.h"
#include "common/fail.h"

enum { LT_NONE = 0, LT_UNSUPPORTED_NESTED = 1000, LT_UNDEFINED_ORDER = 1001, LT_LIST = 1002,
       LT_MAP = 1003 };

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
        [1] = PQ_LOGICAL_STRING, [2] = LT_MAP, [3] = LT_LIST,
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

/* Maps ConvertedType to a logical type (MAP, MAP_KEY_VALUE, LIST; INTERVAL: own). */
static int logical_from_converted(int32_t ct)
{
    static const int map[22] = {
        [0] = PQ_LOGICAL_STRING, [1] = LT_MAP, [2] = LT_MAP,
        [3] = LT_LIST, [4] = PQ_LOGICAL_ENUM, [5] = PQ_LOGICAL_DECIMAL,
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
    case LT_NONE: case PQ_LOGICAL_UNKNOWN: case LT_LIST: case LT_MAP: break;
    default: return PQ_ORDER_SIGNED;
    }
    switch (phys) {
    case PQ_INT96: return PQ_ORDER_UNDEFINED;
    case PQ_BYTE_ARRAY: case PQ_FIXED_LEN_BYTE_ARRAY: return PQ_ORDER_UNSIGNED;
    default: return PQ_ORDER_SIGNED;
    }
}

/* The annotation of element el: LT_LIST, LT_MAP, another pq_logical or LT_NONE. */
static int annotation_of(const raw_elem *el)
{
    int lg = el->logical_known ? el->logical : LT_NONE;
    if (lg == LT_NONE && el->has_converted) lg = logical_from_converted(el->converted);
    return lg;
}

static bool is_group(const raw_elem *el)
{
    return !el->has_type || (el->has_children && el->num_children > 0);
}

/* Fills one leaf column from its element and its node. */
static int make_leaf(const raw_elem *el, const pq_schema_node *nd, int32_t node, int32_t index,
                     pq_column_desc *c, pq_err *e)
{
    memset(c, 0, sizeof *c);
    c->name = nd->path;
    c->index = index;
    c->node = node;
    c->nested = nd->depth > 1 || nd->shape != PQ_SHAPE_FLAT;
    c->physical = (pq_physical)el->type;
    c->type_length = el->type == PQ_FIXED_LEN_BYTE_ARRAY ? el->type_length : 0;
    if (el->type == PQ_FIXED_LEN_BYTE_ARRAY && (el->type_length <= 0 || el->type_length > (1 << 20))) {
        return pq_errf_col(e, RINGSCAN_EFORMAT, -1, c->name,
                           "column '%s': bad FIXED_LEN_BYTE_ARRAY length %d", c->name,
                           (int)el->type_length);
    }
    c->repetition = nd->repetition;
    c->max_def_level = nd->max_def_level;
    c->max_rep_level = nd->max_rep_level;
    assert(c->nested || (c->max_rep_level == 0 && c->max_def_level <= 1));
    c->field_id = el->field_id;
    int lg = annotation_of(el);
    c->sort_order = sort_order_of(lg, c->physical);
    c->logical = (lg == LT_NONE || lg >= LT_UNSUPPORTED_NESTED) ? PQ_LOGICAL_NONE : (pq_logical)lg;
    /* legacy converted: UTC; INT96 (no annotation) a timestamp without a zone, as pyarrow
     * and DuckDB read it: a dataset that widens it to TIMESTAMP_NANOS keeps it zoneless */
    c->is_adjusted_to_utc = el->logical_known ? el->utc : el->type != PQ_INT96;
    c->int_signed = c->logical >= PQ_LOGICAL_INT8 && c->logical <= PQ_LOGICAL_INT64;
    if (c->logical == PQ_LOGICAL_DECIMAL) {
        bool lt = el->logical_known && el->logical == PQ_LOGICAL_DECIMAL;
        c->decimal_scale = lt ? el->lt_scale : el->scale;
        c->decimal_precision = lt ? el->lt_precision : el->precision;
        /* malformed (or past Arrow's 76 digits, which pyarrow refuses too): read the physical
         * type, never a decimal type no consumer can import nor its value cut to 32 bytes */
        if (c->decimal_precision <= 0 || c->decimal_precision > 76 || c->decimal_scale < 0 ||
            c->decimal_scale > c->decimal_precision)
            c->logical = PQ_LOGICAL_NONE;
    }
    return 0;
}

/* A group whose children are still being counted (invariant 1). */
typedef struct schema_frame {
    int32_t node; /* -1: the root */
    int32_t left; /* children not yet seen */
} schema_frame;

/* The walk's state: elements, nodes being filled, the stack of open groups. */
typedef struct schema_walk {
    const raw_elem *els;
    uint32_t n;
    pq_schema_node *nodes; /* nodes[i] is element i + 1 */
    schema_frame *stack;
    size_t nframes; /* stack capacity: min(depth limit, n) + 1 (invariant 1) */
    uint32_t sp, leaves;
    pq_arena *a;
    const pq_meta_limits *lim;
    pq_err *e;
} schema_walk;

/* node's path: its name under a top-level field, else parent's path "." name. */
static int node_path(schema_walk *w, pq_schema_node *nd)
{
    if (nd->parent < 0) {
        nd->path = nd->name;
        return 0;
    }
    const char *pp = w->nodes[nd->parent].path;
    size_t plen = strlen(pp), nlen = strlen(nd->name), len = plen + 1 + nlen;
    if (len > PQ_SCHEMA_PATH_MAX)
        return pq_errf(w->e, RINGSCAN_ELIMIT, -1,
                       "schema path under '%.200s' longer than %d bytes", pp, PQ_SCHEMA_PATH_MAX);
    char *p = pq_arena_alloc(w->a, len + 1);
    if (!p) return pq_errf(w->e, -ENOMEM, -1, "out of memory");
    memcpy(p, pp, plen);
    p[plen] = '.';
    memcpy(p + plen + 1, nd->name, nlen);
    nd->path = p;
    return 0;
}

/* Names equal but for case among siblings read as DuckDB renames them (meta_names.c); the
 * paths under a renamed node are built again. */
static int walk_rename(schema_walk *w, uint32_t nn)
{
    int renamed = pq_schema_rename(w->nodes, (int32_t)nn, w->a, w->e);
    for (uint32_t i = 0; renamed > 0 && i < nn; i++) {
        int rc = node_path(w, &w->nodes[i]);
        if (rc) return rc;
    }
    return renamed < 0 ? renamed : 0;
}

/* Kind, repetition, shape and levels of node i from its element and its parent. */
static int node_fill(schema_walk *w, uint32_t i, int32_t parent)
{
    const raw_elem *el = &w->els[i + 1];
    pq_schema_node *nd = &w->nodes[i];
    if (el->has_rep && el->rep > PQ_REPEATED)
        return pq_errf(w->e, RINGSCAN_EFORMAT, -1, "schema element %u: repetition %d is not a "
                       "FieldRepetitionType", i + 1, (int)el->rep);
    nd->name = pq_arena_strdup(w->a, el->name, el->name_len);
    if (!nd->name) return pq_errf(w->e, -ENOMEM, -1, "out of memory");
    nd->parent = parent;
    nd->repetition = el->has_rep ? (pq_repetition)el->rep : PQ_OPTIONAL;
    int lg = annotation_of(el);
    nd->kind = !is_group(el) ? PQ_NODE_PRIMITIVE
               : lg == LT_LIST ? PQ_NODE_LIST : lg == LT_MAP ? PQ_NODE_MAP : PQ_NODE_GROUP;
    nd->shape = nd->repetition == PQ_REPEATED || lg == LT_LIST ? PQ_SHAPE_LIST
                : lg == LT_MAP ? PQ_SHAPE_MAP
                : nd->kind == PQ_NODE_GROUP ? PQ_SHAPE_STRUCT : PQ_SHAPE_FLAT;
    const pq_schema_node *up = parent >= 0 ? &w->nodes[parent] : NULL;
    nd->depth = up ? up->depth + 1 : 1;
    nd->top = up ? up->top : (int32_t)i;
    nd->max_def_level = (int16_t)((up ? up->max_def_level : 0) + (nd->repetition != PQ_REQUIRED));
    nd->max_rep_level = (int16_t)((up ? up->max_rep_level : 0) + (nd->repetition == PQ_REPEATED));
    nd->column = -1;
    nd->element = -1;
    nd->end = (int32_t)i + 1;
    return node_path(w, nd);
}

/* Closes the groups whose children are all seen, up to node index i (exclusive). */
static void walk_close(schema_walk *w, uint32_t i)
{
    while (w->sp > 1 && w->stack[w->sp - 1].left == 0) {
        w->nodes[w->stack[w->sp - 1].node].end = (int32_t)i;
        w->sp--;
    }
}

/* One element below the root: becomes node i, a child of the innermost open group. */
static int walk_one(schema_walk *w, uint32_t i)
{
    walk_close(w, i);
    schema_frame *f = &w->stack[w->sp - 1];
    if (f->left == 0)
        return pq_errf(w->e, RINGSCAN_EFORMAT, -1, "schema has %u elements, its groups declare "
                       "%u", w->n - 1, i);
    f->left--;
    int rc = node_fill(w, i, f->node);
    if (rc) return rc;
    const raw_elem *el = &w->els[i + 1];
    if (!is_group(el)) {
        if (++w->leaves > w->lim->max_columns)
            return pq_errf(w->e, RINGSCAN_ELIMIT, -1, "schema has more than %u columns, the "
                           "limit max_columns", w->lim->max_columns);
        return 0;
    }
    if (!el->has_children || el->num_children == 0)
        return pq_errf_col(w->e, RINGSCAN_EFORMAT, -1, w->nodes[i].path,
                           "group '%s' has no children", w->nodes[i].path);
    if (w->sp >= w->lim->max_schema_depth)
        return pq_errf_col(w->e, RINGSCAN_ELIMIT, -1, w->nodes[i].path, "schema deeper than "
                           "max_schema_depth=%u at '%.200s'", w->lim->max_schema_depth,
                           w->nodes[i].path);
    w->nodes[i].nchildren = el->num_children;
    assert(w->sp + 1 < w->nframes); /* each frame a distinct group, and sp < the depth limit */
    w->stack[w->sp++] = (schema_frame){.node = (int32_t)i, .left = el->num_children};
    return 0;
}

/* LIST node k's element by the backward-compatibility rules of the format's LogicalTypes.md:
 * its one child must be repeated; that child is the element when it is a primitive, a group
 * of several fields, or a one-field group named "array" or "<list>_tuple"; otherwise its one
 * child is (the three-level form). -1 when the shape is none of these. */
static int32_t list_element(const pq_schema_node *nodes, int32_t k)
{
    const pq_schema_node *l = &nodes[k], *r = &nodes[k + 1];
    if (l->nchildren != 1 || r->repetition != PQ_REPEATED) return -1;
    if (r->kind == PQ_NODE_PRIMITIVE || r->nchildren > 1) return k + 1;
    size_t ln = strlen(l->name);
    bool tuple = strncmp(r->name, l->name, ln) == 0 && strcmp(r->name + ln, "_tuple") == 0;
    return strcmp(r->name, "array") == 0 || tuple ? k + 1 : k + 2;
}

/* MAP node k's repeated key_value group: one repeated child of one or two fields, the first
 * (the key) REQUIRED or OPTIONAL (invariant 4; never REPEATED); -1 otherwise (pyarrow
 * refuses such a map too). */
static int32_t map_element(const pq_schema_node *nodes, int32_t k)
{
    const pq_schema_node *m = &nodes[k], *kv = &nodes[k + 1];
    if (m->repetition == PQ_REPEATED) return -1; /* MAP_KEY_VALUE on the middle level itself */
    if (m->nchildren != 1 || kv->repetition != PQ_REPEATED || kv->kind == PQ_NODE_PRIMITIVE)
        return -1;
    if (kv->nchildren < 1 || kv->nchildren > 2 || nodes[k + 2].repetition == PQ_REPEATED) return -1;
    return k + 1;
}

/* After the walk: elements of LIST/MAP nodes, the columns (leaves in pre-order). */
static int walk_finish(schema_walk *w, pq_file_meta *m)
{
    uint32_t nn = w->n - 1;
    m->columns = pq_arena_alloc(w->a, (size_t)(w->leaves ? w->leaves : 1) * sizeof *m->columns);
    if (!m->columns) return pq_errf(w->e, -ENOMEM, -1, "out of memory");
    int32_t col = 0;
    for (uint32_t i = 0; i < nn; i++) {
        pq_schema_node *nd = &w->nodes[i];
        if (nd->kind == PQ_NODE_LIST) nd->element = list_element(w->nodes, (int32_t)i);
        if (nd->kind == PQ_NODE_MAP) nd->element = map_element(w->nodes, (int32_t)i);
        if (nd->kind == PQ_NODE_MAP && nd->element >= 0 && w->nodes[nd->element].nchildren == 1)
            nd->shape = PQ_SHAPE_LIST; /* keys only: a list of them, as parquet-cpp reads it */
        if (nd->kind != PQ_NODE_PRIMITIVE) continue;
        nd->column = col;
        int rc = make_leaf(&w->els[i + 1], nd, (int32_t)i, col, &m->columns[col], w->e);
        if (rc) return rc;
        m->has_nested = m->has_nested || m->columns[col].nested;
        col++;
    }
    assert((uint32_t)col == w->leaves);
    m->ncolumns = col;
    m->nnodes = (int32_t)nn;
    m->nodes = w->nodes;
    return 0;
}

/* Reads the tree of els[0..n) into m->nodes and m->columns (invariants 1-4). */
static int build_tree(const raw_elem *els, uint32_t n, pq_file_meta *m, pq_arena *a,
                      const pq_meta_limits *lim, pq_err *e)
{
    if (n == 0) return pq_errf(e, RINGSCAN_EFORMAT, -1, "schema is empty");
    if (els[0].has_type || !els[0].has_children)
        return pq_errf(e, RINGSCAN_EFORMAT, -1, "schema root is not a group");
    if (lim->max_schema_depth == 0)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "max_schema_depth=0 allows no column");
    schema_walk w = {.els = els, .n = n, .a = a, .lim = lim, .e = e};
    w.nodes = pq_arena_alloc(a, (size_t)(n > 1 ? n - 1 : 1) * sizeof *w.nodes);
    /* frames: one per open group, at most the depth limit and the element count */
    size_t frames = (lim->max_schema_depth < n ? lim->max_schema_depth : n) + (size_t)1;
    w.stack = fail_calloc(frames, sizeof *w.stack);
    w.nframes = frames;
    if (!w.nodes || !w.stack) {
        free(w.stack);
        return pq_errf(e, -ENOMEM, -1, "out of memory");
    }
    w.stack[w.sp++] = (schema_frame){.node = -1, .left = els[0].num_children};
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i + 1 < n; i++) rc = walk_one(&w, i);
    if (rc == 0) walk_close(&w, n - 1);
    if (rc == 0 && w.stack[w.sp - 1].left > 0) {
        int32_t g = w.stack[w.sp - 1].node;
        const char *what = g < 0 ? "the root" : w.nodes[g].path;
        rc = pq_errf(e, RINGSCAN_EFORMAT, -1, "schema ends before %d more children of "
                     "%s%.200s%s", (int)w.stack[w.sp - 1].left, g < 0 ? "" : "group '", what,
                     g < 0 ? "" : "'");
    }
    free(w.stack);
    if (rc == 0) rc = walk_rename(&w, n - 1);
    return rc ? rc : walk_finish(&w, m);
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
    if (!rc) rc = build_tree(els, n, m, a, lim, e);
    free(els);
    return rc;
}
