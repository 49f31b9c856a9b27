/* scan/arrow.c: exporting scan batches through the Arrow C Data Interface.
 *
 * A batch becomes a struct array ("+s") with one child per projected column. A column's
 * Arrow format is its Parquet type's (scan_arrow_format: int8/int16/uint8/uint16 narrowed,
 * decimals as decimal128, or decimal256 past 38 digits, INT96 as timestamp[ns] or, with
 * SCAN_ARROW_INT96_RAW, its 12 stored bytes, the null logical type as "n") or what the stored
 * Arrow schema says (scan/arrow_types.h); scan/arrow_leaf.c builds the array in that format,
 * taking over the batch's buffers where the layouts agree. A nested field's
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
    if (d->logical == PQ_LOGICAL_DECIMAL) { /* decimal256 past 38 digits, as pyarrow reads it */
        snprintf(buf, n, "d:%d,%d%s", d->decimal_precision, d->decimal_scale,
                 d->decimal_precision > 38 ? ",256" : "");
        return buf;
    }
    if (d->logical == PQ_LOGICAL_UNKNOWN) return "n"; /* the null type */
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

static int dict_leaf(const char *fmt, const char *index_fmt, pq_vec *v, struct ArrowArray *a,
                     const char *col, pq_err *e);

/* The leaf primitives a nested field's export uses (arrow.h scan_arrow_ops). */
static const scan_arrow_ops leaf_ops = {.format = scan_arrow_format,
                                        .schema_fill = scan_arrow_schema_fill,
                                        .leaf = scan_arrow_leaf,
                                        .metadata = scan_arrow_schema_metadata,
                                        .mark = scan_arrow_schema_mark,
                                        .dict_leaf = dict_leaf};

/* A flat column's format: what the file says beyond its Parquet type, or that type's. */
static const char *column_format(const scan_arrow_col *c, unsigned flags, char *buf, size_t n)
{
    if (c->type && c->type->format[0]) return c->type->format;
    return scan_arrow_format(c->desc, flags, buf, n);
}

/* A dictionary column's indices' format: the stored index type's, else int32. */
static const char *index_format(const scan_arrow_col *c)
{
    return c->type && c->type->index_format[0] ? c->type->index_format : "i";
}

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
    const char *fmt = column_format(c, flags, buf, sizeof buf);
    int64_t fl = c->desc->repetition == PQ_OPTIONAL ? ARROW_FLAG_NULLABLE : 0;
    bool dict = c->type && c->type->dictionary;
    int rc = scan_arrow_schema_fill(s, dict ? index_format(c) : fmt, c->name, 0, fl);
    if (rc == 0 && dict) { /* int32 indices into a dictionary of the column's type */
        rc = (s->dictionary = fail_calloc(1, sizeof *s->dictionary)) ? 0 : -ENOMEM;
        if (rc == 0) rc = scan_arrow_schema_fill(s->dictionary, fmt, "", 0, 0);
    }
    if (rc == 0) rc = scan_arrow_schema_metadata(s, md);
    if (rc == 0) rc = scan_arrow_schema_mark(s, c->desc, flags);
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

/* True when metadata block md (or NULL) holds key. */
static bool md_has(const char *md, const char *key)
{
    int32_t n = 0, kl, vl;
    if (md) memcpy(&n, md, 4), md += 4;
    for (int32_t i = 0; i < n; i++, md += 8 + kl + vl) {
        memcpy(&kl, md, 4), memcpy(&vl, md + 4 + kl, 4);
        if (kl == (int32_t)strlen(key) && memcmp(md + 4, key, (size_t)kl) == 0) return true;
    }
    return false;
}

/* Appends key = val to built schema s's metadata (a new block; the old one freed). 0 or
 * -ENOMEM. */
static int md_append(struct ArrowSchema *s, const char *key, const char *val)
{
    schema_priv *p = s->private_data;
    int32_t kl = (int32_t)strlen(key), vl = (int32_t)strlen(val), n = 0;
    size_t old = p->metadata ? scan_arrow_metadata_len(p->metadata) : 4;
    char *md = fail_malloc(old + 8 + (size_t)kl + (size_t)vl);
    if (!md) return -ENOMEM;
    if (p->metadata) memcpy(md, p->metadata, old), memcpy(&n, md, 4);
    n++; /* the entries kept, then this one */
    memcpy(md, &n, 4);
    memcpy(md + old, &kl, 4), memcpy(md + old + 4, key, (size_t)kl);
    memcpy(md + old + 4 + kl, &vl, 4), memcpy(md + old + 8 + kl, val, (size_t)vl);
    free(p->metadata);
    s->metadata = p->metadata = md;
    return 0;
}

int scan_arrow_schema_mark(struct ArrowSchema *s, const pq_column_desc *d, unsigned flags)
{
    bool raw96 = (flags & SCAN_ARROW_INT96_RAW) && strcmp(s->format, "w:12") == 0;
    if (d->physical == PQ_INT96 && raw96)
        return md_append(s, SCAN_ARROW_INT96_KEY, "raw");
    if (d->logical == PQ_LOGICAL_INTERVAL && strcmp(s->format, "w:12") == 0)
        return md_append(s, SCAN_ARROW_INTERVAL_KEY, "interval");
    bool uuid = d->logical == PQ_LOGICAL_UUID && strcmp(s->format, "w:16") == 0;
    if (!uuid || md_has(s->metadata, "ARROW:extension:name")) return 0;
    int rc = md_append(s, "ARROW:extension:name", "arrow.uuid"); /* as pyarrow, stored or not */
    return rc ? rc : md_append(s, "ARROW:extension:metadata", "");
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

/* 0 when every index of idx (int32, >= 0) fits the stored index type index_fmt; else
 * RINGSCAN_EFORMAT with e naming column col: a stored dictionary<int8> (or uint8, int16,
 * uint16) whose values the file holds more of than the type counts cannot be exported
 * (narrowed, an index would wrap to a wrong value or a negative one), as pyarrow refuses it
 * ("Integer value 128 not in range: -128 to 127"). */
static int index_fits(const char *index_fmt, const pq_vec *idx, const char *col, pq_err *e)
{
    static const char narrow[] = "cCsS";
    static const int32_t top[] = {INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX};
    static const char *const name[] = {"int8", "uint8", "int16", "uint16"};
    const char *k = index_fmt[0] && !index_fmt[1] ? strchr(narrow, index_fmt[0]) : NULL;
    if (!k) return 0; /* int32 or wider: every index fits */
    assert(idx->type == PQ_INT32);
    const int32_t *x = (const int32_t *)(const void *)idx->values;
    int32_t max = 0;
    for (int64_t r = 0; r < idx->length; r++) max = x[r] > max ? x[r] : max;
    int i = (int)(k - narrow);
    if (max <= top[i]) return 0;
    return pq_errf(e, RINGSCAN_EFORMAT, -1, "column '%.100s': dictionary index %d does not fit "
                   "the stored index type %s (0..%d)", col, max, name[i], top[i]);
}

/* A dictionary array of int32 indices idx into the values dict (both taken over), the
 * indices in index_fmt's width and the values in fmt. 0, -ENOMEM or index_fits's error. */
static int dict_of(const char *fmt, const char *index_fmt, pq_vec idx, pq_vec dict,
                   struct ArrowArray *a, const char *col, pq_err *e)
{
    int rc = index_fits(index_fmt, &idx, col, e);
    if (rc) {
        pq_vec_free(&idx);
        pq_vec_free(&dict);
        return rc;
    }
    struct ArrowArray *d = fail_calloc(1, sizeof *d);
    rc = d ? scan_arrow_leaf(fmt, &dict, d, col, e) : -ENOMEM;
    if (rc == 0 && (rc = scan_arrow_leaf(index_fmt, &idx, a, col, e)) != 0) d->release(d);
    pq_vec_free(&idx);
    pq_vec_free(&dict);
    if (rc) {
        free(d);
        return rc;
    }
    a->dictionary = d;
    return 0;
}

/* A dictionary array (options.dictionary_columns): given (the split decoded v as int32
 * indices into *given, scan/task_dictout.c) both are taken over; else v's values are encoded
 * here (scan/arrow_dict.c: a column a filter also read) and its buffers freed. The indices
 * take the stored index type's width (scan_arrow_type.index_format). */
static int dict_array(const scan_arrow_col *c, const char *fmt, pq_vec *v, pq_vec *given,
                      struct ArrowArray *a, pq_err *e)
{
    pq_vec idx, dict;
    if (given) {
        assert(v->type == PQ_INT32 && given->type == c->desc->physical);
        idx = *v, dict = *given;
        pq_vec_init(v, PQ_INT32, 0);
        pq_vec_init(given, dict.type, dict.type_length);
    } else {
        int rc = scan_arrow_dict_encode(v, &idx, &dict);
        if (rc) return rc;
    }
    pq_vec_free(v);
    return dict_of(fmt, index_format(c), idx, dict, a, c->name, e);
}

/* A nested field's leaf stored as a dictionary (arrow_nested.c, through scan_arrow_ops). */
static int dict_leaf(const char *fmt, const char *index_fmt, pq_vec *v, struct ArrowArray *a,
                     const char *col, pq_err *e)
{
    pq_vec idx, dict;
    int rc = scan_arrow_dict_encode(v, &idx, &dict);
    if (rc) return rc;
    pq_vec_free(v);
    return dict_of(fmt, index_fmt, idx, dict, a, col, e);
}

/* Column i of b as its Arrow array: a nested field's tree, a dictionary array, or a flat
 * column in its format. 0 or a negative status (*a not set). */
static int column_array(const scan_arrow_col *c, unsigned flags, scan_batch *b, int i,
                        struct ArrowArray *a, pq_err *e)
{
    if (c->node >= 0) return scan_arrow_nested_array(c, flags, &leaf_ops, &b->cols[i], a, e);
    char buf[32];
    const char *fmt = column_format(c, flags, buf, sizeof buf);
    if (c->type && c->type->dictionary)
        return dict_array(c, fmt, &b->cols[i], b->dict_on && b->dict_on[i] ? &b->dicts[i] : NULL, a, e);
    return scan_arrow_leaf(fmt, &b->cols[i], a, c->name, e);
}

/* Where column c's chunk of row group rg starts in the file (its dictionary page's offset
 * when it has one), for a message about its rows; -1 when unknown. */
static int64_t chunk_offset(const scan_arrow_col *c, int32_t rg)
{
    const pq_file_meta *m = c->meta;
    int32_t i = c->desc->index; /* (c->desc is m's own column: not a dataset's copy) */
    if (!m || rg < 0 || rg >= m->nrow_groups || i < 0 || i >= m->ncolumns || c->desc != &m->columns[i])
        return -1;
    const pq_chunk_meta *cm = &m->row_groups[rg].chunks[i];
    return cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
}

int scan_arrow_batch(const scan_arrow_col *cols, unsigned flags, scan_batch *b,
                     struct ArrowArray *out, pq_err *e)
{
    int rc = scan_arrow_struct_new(b->rows, b->ncols, out);
    for (int i = 0; rc == 0 && i < b->ncols; i++) {
        b->cols[i].length = b->rows;
        rc = column_array(&cols[i], flags, b, i, out->children[i], e);
        if (rc == 0) out->n_children = i + 1;
        if (rc && e->offset < 0) e->offset = chunk_offset(&cols[i], b->row_group);
    }
    if (rc && out->release) out->release(out);
    return rc;
}
