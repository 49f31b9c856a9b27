/* scan/arrow.c: exporting scan batches through the Arrow C Data Interface.
 *
 * A batch becomes a struct array ("+s") with one child per projected column. Children take
 * over the batch's pq_vec buffers without copying where Arrow's layout is the same (ints,
 * floats, booleans, strings, binary, fixed-size binary, float16); types Arrow stores
 * differently are converted once: int8/int16/uint8/uint16 narrowed, decimals widened to
 * decimal128, INT96 to timestamp[ns] (pyarrow's wrapping arithmetic; or, with
 * SCAN_ARROW_INT96_RAW, kept as its 12 stored bytes, a fixed-size binary). A nested field's
 * packed rows (format/column_nested.h) become its struct, list and map arrays
 * (scan/arrow_nested.c), each leaf converted as a flat column of its type. What the file says
 * beyond its Parquet types (scan/arrow_types.h: stored zones, large offsets, metadata,
 * dictionary_columns) comes with each column's scan_arrow_col.type.
 * Invariants: every released structure frees exactly what it owns; release sets release to
 * NULL; schema strings live in the schema's private block. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/arrow.h"
#include "common/fail.h"
#include "scan/arrow_types.h"

/* ------------------------------------------------------------------------ schema */

typedef struct schema_priv {
    char format[SCAN_ARROW_FORMAT_MAX]; /* a zone may be long: "tsu:America/Argentina/..." */
    char *name;
    char *metadata;
    struct ArrowSchema **children;
    struct ArrowSchema *child_mem;
} schema_priv;

static void schema_release(struct ArrowSchema *s)
{
    schema_priv *p = s->private_data;
    for (int64_t i = 0; i < s->n_children; i++)
        if (p->child_mem[i].release) p->child_mem[i].release(&p->child_mem[i]);
    free(p->children);
    free(p->child_mem);
    free(p->name);
    free(p->metadata);
    free(p);
    if (s->dictionary && s->dictionary->release) s->dictionary->release(s->dictionary);
    free(s->dictionary);
    s->release = NULL;
}

static bool is_text(const pq_column_desc *d)
{
    return d->logical == PQ_LOGICAL_STRING || d->logical == PQ_LOGICAL_ENUM ||
           d->logical == PQ_LOGICAL_JSON;
}

static const char *int_format(const pq_column_desc *d, char *buf, size_t n)
{
    switch (d->logical) {
    case PQ_LOGICAL_INT8: return "c";
    case PQ_LOGICAL_INT16: return "s";
    case PQ_LOGICAL_UINT8: return "C";
    case PQ_LOGICAL_UINT16: return "S";
    case PQ_LOGICAL_UINT32: return "I";
    case PQ_LOGICAL_UINT64: return "L";
    case PQ_LOGICAL_DATE: return "tdD";
    case PQ_LOGICAL_TIME_MILLIS: return "ttm";
    case PQ_LOGICAL_TIME_MICROS: return "ttu";
    case PQ_LOGICAL_TIME_NANOS: return "ttn";
    case PQ_LOGICAL_TIMESTAMP_MILLIS:
    case PQ_LOGICAL_TIMESTAMP_MICROS:
    case PQ_LOGICAL_TIMESTAMP_NANOS: {
        char u = d->logical == PQ_LOGICAL_TIMESTAMP_MILLIS   ? 'm'
                 : d->logical == PQ_LOGICAL_TIMESTAMP_MICROS ? 'u'
                                                             : 'n';
        snprintf(buf, n, "ts%c:%s", u, d->is_adjusted_to_utc ? "UTC" : "");
        return buf;
    }
    default: return d->physical == PQ_INT32 ? "i" : "l";
    }
}

const char *scan_arrow_format(const pq_column_desc *d, unsigned flags, char *buf, size_t n)
{
    if (d->logical == PQ_LOGICAL_DECIMAL) {
        snprintf(buf, n, "d:%d,%d", d->decimal_precision, d->decimal_scale);
        return buf;
    }
    switch (d->physical) {
    case PQ_BOOLEAN: return "b";
    case PQ_INT32:
    case PQ_INT64: return int_format(d, buf, n);
    case PQ_INT96: return flags & SCAN_ARROW_INT96_RAW ? "w:12" : "tsn:";
    case PQ_FLOAT: return "f";
    case PQ_DOUBLE: return "g";
    case PQ_BYTE_ARRAY: return is_text(d) ? "u" : "z";
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (d->logical == PQ_LOGICAL_FLOAT16 && d->type_length == 2) return "e";
        snprintf(buf, n, "w:%d", d->type_length);
        return buf;
    }
    return "z";
}

int scan_arrow_schema_fill(struct ArrowSchema *s, const char *format, const char *name, int64_t nchild,
                           int64_t flags)
{
    schema_priv *p = fail_calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    snprintf(p->format, sizeof p->format, "%s", format);
    p->name = fail_strdup(name ? name : "");
    p->children = fail_calloc((size_t)nchild + 1, sizeof *p->children);
    p->child_mem = fail_calloc((size_t)nchild + 1, sizeof *p->child_mem);
    if (!p->name || !p->children || !p->child_mem) {
        free(p->name);
        free(p->children);
        free(p->child_mem);
        free(p);
        return -ENOMEM;
    }
    for (int64_t i = 0; i < nchild; i++) p->children[i] = &p->child_mem[i];
    *s = (struct ArrowSchema){.format = p->format, .name = p->name, .flags = flags,
                              .n_children = nchild, .children = p->children,
                              .release = schema_release, .private_data = p};
    return 0;
}

/* The leaf primitives a nested field's export uses (arrow.h scan_arrow_ops). */
static const scan_arrow_ops leaf_ops = {.format = scan_arrow_format,
                                        .schema_fill = scan_arrow_schema_fill,
                                        .leaf = scan_arrow_leaf};

/* The schema of one column: a flat one's type, or a nested field's tree (arrow_nested.c). */
static int column_schema(const scan_arrow_col *c, unsigned flags, struct ArrowSchema *s)
{
    char buf[32];
    const char *md = c->type ? c->type->metadata : NULL;
    if (c->node >= 0) {
        int rc = scan_arrow_nested_schema(c, flags, &leaf_ops, s);
        if (rc == 0 && (rc = scan_arrow_schema_metadata(s, md)) != 0) s->release(s);
        return rc;
    }
    const char *fmt = scan_arrow_format(c->desc, flags, buf, sizeof buf);
    if (c->type && c->type->format[0]) fmt = c->type->format;
    int64_t fl = c->desc->repetition == PQ_OPTIONAL ? ARROW_FLAG_NULLABLE : 0;
    bool dict = c->type && c->type->dictionary;
    int rc = scan_arrow_schema_fill(s, dict ? "i" : fmt, c->name, 0, fl);
    if (rc == 0 && dict) { /* int32 indices into a dictionary of the column's type */
        rc = (s->dictionary = fail_calloc(1, sizeof *s->dictionary)) ? 0 : -ENOMEM;
        if (rc == 0) rc = scan_arrow_schema_fill(s->dictionary, fmt, "", 0, 0);
    }
    if (rc == 0) rc = scan_arrow_schema_metadata(s, md);
    if (rc && s->release) s->release(s); /* s was zeroed: release is set once filled */
    return rc;
}

int scan_arrow_schema_metadata(struct ArrowSchema *s, const char *md)
{
    schema_priv *p = s->private_data;
    assert(p && !p->metadata);
    if (!md) return 0;
    size_t n = scan_arrow_metadata_len(md);
    if (!(p->metadata = fail_malloc(n))) return -ENOMEM;
    memcpy(p->metadata, md, n);
    s->metadata = p->metadata;
    return 0;
}

int scan_arrow_schema(const scan_arrow_col *cols, int n, unsigned flags, struct ArrowSchema *out)
{
    int rc = scan_arrow_schema_fill(out, "+s", "", n, 0);
    if (rc) return rc;
    schema_priv *p = out->private_data;
    for (int i = 0; i < n; i++) {
        rc = column_schema(&cols[i], flags, &p->child_mem[i]);
        if (rc) {
            out->release(out);
            return rc;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------- arrays */

typedef struct array_priv {
    pq_vec vec;                 /* buffers taken over from the batch */
    void *converted;            /* values in Arrow's width when they differ */
    const void *buffers[3];
    struct ArrowArray **children;
    struct ArrowArray *child_mem;
} array_priv;

static void array_release(struct ArrowArray *a)
{
    array_priv *p = a->private_data;
    for (int64_t i = 0; i < a->n_children; i++)
        if (p->child_mem[i].release) p->child_mem[i].release(&p->child_mem[i]);
    pq_vec_free(&p->vec);
    free(p->converted);
    if (a->dictionary && a->dictionary->release) a->dictionary->release(a->dictionary);
    free(a->dictionary);
    free(p->children);
    free(p->child_mem);
    free(p);
    a->release = NULL;
}

/* Decimal128 from the stored unscaled form; 16 bytes little-endian per row. */
static void widen_decimal(const pq_vec *v, __int128 *out)
{
    for (int64_t r = 0; r < v->length; r++) {
        __int128 x = 0;
        if (v->type == PQ_INT32) x = ((const int32_t *)(const void *)v->values)[r];
        else if (v->type == PQ_INT64) x = ((const int64_t *)(const void *)v->values)[r];
        else {
            const uint8_t *b = v->type == PQ_BYTE_ARRAY ? v->data + v->offsets[r]
                                                        : v->values + (size_t)r * (size_t)v->type_length;
            int32_t n = v->type == PQ_BYTE_ARRAY ? v->offsets[r + 1] - v->offsets[r] : v->type_length;
            unsigned __int128 u = (n > 0 && (b[0] & 0x80)) ? ~(unsigned __int128)0 : 0;
            for (int32_t i = n > 16 ? n - 16 : 0; i < n; i++) u = (u << 8) | b[i];
            x = (__int128)u;
        }
        memcpy(&out[r], &x, 16);
    }
}

/* Converts values whose Arrow width differs; sets *conv (NULL when the layout is the same). */
static int convert(const pq_column_desc *d, unsigned flags, const pq_vec *v, void **conv)
{
    *conv = NULL;
    int64_t n = v->length;
    if (d->logical == PQ_LOGICAL_DECIMAL) {
        *conv = fail_malloc((size_t)(n + 1) * 16);
        if (!*conv) return -ENOMEM;
        widen_decimal(v, *conv);
        return 0;
    }
    if (v->type == PQ_INT96 && !(flags & SCAN_ARROW_INT96_RAW)) {
        int64_t *o = fail_malloc((size_t)(n + 1) * 8);
        if (!o) return -ENOMEM;
        for (int64_t r = 0; r < n; r++) {
            uint64_t ns;
            uint32_t jd;
            memcpy(&ns, v->values + r * 12, 8);
            memcpy(&jd, v->values + r * 12 + 8, 4);
            o[r] = (int64_t)((uint64_t)((int64_t)jd - 2440588) * UINT64_C(86400000000000) + ns);
        }
        *conv = o;
        return 0;
    }
    int width = d->logical == PQ_LOGICAL_INT8 || d->logical == PQ_LOGICAL_UINT8     ? 1
                : d->logical == PQ_LOGICAL_INT16 || d->logical == PQ_LOGICAL_UINT16 ? 2
                                                                                     : 0;
    if (width == 0 || v->type != PQ_INT32) return 0;
    uint8_t *o = fail_malloc((size_t)(n + 1) * (size_t)width);
    if (!o) return -ENOMEM;
    const int32_t *src = (const int32_t *)(const void *)v->values;
    for (int64_t r = 0; r < n; r++) {
        if (width == 1) o[r] = (uint8_t)src[r];
        else memcpy(o + r * 2, &(uint16_t){(uint16_t)src[r]}, 2);
    }
    *conv = o;
    return 0;
}

int scan_arrow_leaf(const pq_column_desc *d, unsigned flags, pq_vec *v, struct ArrowArray *a)
{
    array_priv *p = fail_calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    int rc = convert(d, flags, v, &p->converted);
    if (rc) {
        free(p);
        return rc;
    }
    p->vec = *v;
    pq_vec_init(v, v->type, v->type_length); /* the array owns the buffers now */
    bool var = p->vec.type == PQ_BYTE_ARRAY && d->logical != PQ_LOGICAL_DECIMAL;
    p->buffers[0] = p->vec.null_count > 0 ? p->vec.validity : NULL;
    p->buffers[1] = var ? (const void *)p->vec.offsets : p->converted ? p->converted : p->vec.values;
    p->buffers[2] = p->vec.data;
    static const int32_t zero_offset = 0;
    if (var && !p->vec.offsets) p->buffers[1] = &zero_offset;
    *a = (struct ArrowArray){.length = p->vec.length, .null_count = p->vec.null_count,
                             .n_buffers = var ? 3 : 2, .buffers = p->buffers,
                             .release = array_release, .private_data = p};
    return 0;
}

/* A string or binary child's int32 offsets as int64 ("U", "Z"). 0 or -ENOMEM. */
static int widen_offsets(struct ArrowArray *a)
{
    array_priv *p = a->private_data;
    assert(a->n_buffers == 3 && !p->converted);
    int64_t *o = fail_malloc(sizeof *o * (size_t)(a->length + 1));
    if (!o) return -ENOMEM;
    const int32_t *src = p->buffers[1];
    for (int64_t r = 0; r <= a->length; r++) o[r] = src[r];
    p->converted = o;
    p->buffers[1] = o;
    return 0;
}

/* A dictionary array (options.dictionary_columns): given (the split decoded v as int32
 * indices into *given, scan/task_dictout.c) both are taken over; else v's values are encoded
 * here (scan/arrow_dict.c: a column a filter also read) and its buffers freed. */
static int dict_array(const scan_arrow_col *c, unsigned flags, pq_vec *v, pq_vec *given,
                      struct ArrowArray *a)
{
    static const pq_column_desc idx_desc = {.physical = PQ_INT32, .logical = PQ_LOGICAL_NONE};
    pq_vec idx, dict;
    int rc = 0;
    if (given) {
        assert(v->type == PQ_INT32 && given->type == c->desc->physical);
        idx = *v, dict = *given;
        pq_vec_init(v, PQ_INT32, 0);
        pq_vec_init(given, dict.type, dict.type_length);
    } else if ((rc = scan_arrow_dict_encode(v, &idx, &dict)) != 0) {
        return rc;
    }
    pq_vec_free(v);
    struct ArrowArray *d = fail_calloc(1, sizeof *d);
    rc = d ? scan_arrow_leaf(c->desc, flags, &dict, d) : -ENOMEM;
    if (rc == 0 && c->type->large && (rc = widen_offsets(d)) != 0) d->release(d);
    if (rc == 0 && (rc = scan_arrow_leaf(&idx_desc, flags, &idx, a)) != 0) d->release(d);
    pq_vec_free(&idx);
    pq_vec_free(&dict);
    if (rc) {
        free(d);
        return rc;
    }
    a->dictionary = d;
    return 0;
}

/* Column i of b as its Arrow array: a nested field's tree, a dictionary array, or a flat
 * column (its offsets widened for a large type). 0 or a negative status (*a not set). */
static int column_array(const scan_arrow_col *c, unsigned flags, scan_batch *b, int i,
                        struct ArrowArray *a)
{
    if (c->node >= 0) return scan_arrow_nested_array(c, flags, &leaf_ops, &b->cols[i], a);
    if (c->type && c->type->dictionary)
        return dict_array(c, flags, &b->cols[i], b->dict_on && b->dict_on[i] ? &b->dicts[i] : NULL, a);
    int rc = scan_arrow_leaf(c->desc, flags, &b->cols[i], a);
    if (rc == 0 && c->type && c->type->large && (rc = widen_offsets(a)) != 0) a->release(a);
    return rc;
}

int scan_arrow_batch(const scan_arrow_col *cols, unsigned flags, scan_batch *b,
                     struct ArrowArray *out)
{
    array_priv *p = fail_calloc(1, sizeof *p);
    if (!p) return -ENOMEM;
    p->children = fail_calloc((size_t)b->ncols + 1, sizeof *p->children);
    p->child_mem = fail_calloc((size_t)b->ncols + 1, sizeof *p->child_mem);
    if (!p->children || !p->child_mem) {
        free(p->children);
        free(p->child_mem);
        free(p);
        return -ENOMEM;
    }
    pq_vec_init(&p->vec, PQ_INT32, 0);
    *out = (struct ArrowArray){.length = b->rows, .n_buffers = 1, .buffers = p->buffers,
                               .n_children = b->ncols, .children = p->children,
                               .release = array_release, .private_data = p};
    for (int i = 0; i < b->ncols; i++) {
        p->children[i] = &p->child_mem[i];
        b->cols[i].length = b->rows;
        int rc = column_array(&cols[i], flags, b, i, &p->child_mem[i]);
        if (rc) {
            out->n_children = i;
            out->release(out);
            return rc;
        }
    }
    return 0;
}
