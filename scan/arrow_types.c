/* scan/arrow_types.c: the Arrow types and metadata of a scan's columns beyond what the
 * Parquet schema alone gives (scan/arrow_types.h), following pyarrow's reading of the same
 * file (parquet/arrow/schema.cc, ApplyOriginalMetadata):
 *   - a timestamp adjusted to UTC whose stored Arrow type has a zone is exported in that zone
 *     (its unit stays the Parquet one, as pyarrow's does);
 *   - a string or binary stored as large_string/large_binary is exported as "U"/"Z" with int64
 *     offsets (scan/arrow.c widens them); an int64 stored as a duration as "tD<unit>";
 *   - the stored field's custom metadata is the child's metadata; a UUID column gets
 *     ARROW:extension:name "arrow.uuid" (pyarrow 26 reads it as that extension with or
 *     without a stored schema); a field id is "PARQUET:field_id";
 *   - a string or binary field stored as a dictionary type is exported as a dictionary array
 *     (as if named in dictionary_columns);
 *   - the file's key-value metadata without ARROW:schema is the struct's metadata.
 * A list column takes only its field's metadata. Invariants: every metadata block is one
 * allocation, its count and lengths int32 and checked against INT32_MAX as it grows. */
#include "scan/arrow_types.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"
#include "format/arrow_schema.h"
#include "format/column_nested.h"
#include "format/name_index.h"
#include "scan/arrow.h"

typedef struct md_builder {
    char *buf;
    size_t len, cap;
    int32_t count;
    bool oom;
} md_builder;

static void md_put(md_builder *b, const void *p, size_t n)
{
    if (b->oom) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n) cap *= 2;
        char *nb = fail_realloc(b->buf, cap);
        if (!nb) {
            b->oom = true;
            return;
        }
        b->buf = nb, b->cap = cap;
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

/* One key and value (the block starts with a count, filled in by md_finish). */
static void md_add(md_builder *b, const char *key, size_t klen, const char *val, size_t vlen)
{
    if (klen > INT32_MAX || vlen > INT32_MAX || b->count == INT32_MAX) {
        b->oom = true;
        return;
    }
    if (b->len == 0) md_put(b, &(int32_t){0}, 4);
    int32_t kl = (int32_t)klen, vl = (int32_t)vlen;
    md_put(b, &kl, 4);
    md_put(b, key, klen);
    md_put(b, &vl, 4);
    md_put(b, val, vlen);
    b->count++;
}

/* The finished block (NULL when empty), or -ENOMEM. */
static int md_finish(md_builder *b, char **out)
{
    *out = NULL;
    if (b->oom) {
        free(b->buf);
        return -ENOMEM;
    }
    if (b->count == 0) return 0;
    assert(b->len >= 4);
    memcpy(b->buf, &b->count, 4);
    *out = b->buf;
    return 0;
}

size_t scan_arrow_metadata_len(const char *md)
{
    if (!md) return 0;
    int32_t n, l;
    size_t at = 4;
    memcpy(&n, md, 4);
    for (int32_t i = 0; i < 2 * n; i++) {
        memcpy(&l, md + at, 4);
        assert(l >= 0);
        at += 4 + (size_t)l;
    }
    return at;
}

/* A column dictionary_columns (or a stored dictionary type) may export as a dictionary. */
static bool dict_eligible(const pq_column_desc *d)
{
    return !d->nested && d->physical == PQ_BYTE_ARRAY && d->logical != PQ_LOGICAL_DECIMAL;
}

static bool has_key(const pqa_field *af, const char *key)
{
    for (int32_t i = 0; af && i < af->nmeta; i++)
        if (strcmp(af->meta[i].key, key) == 0) return true;
    return false;
}

static bool is_timestamp(const pq_column_desc *d)
{
    return d->logical == PQ_LOGICAL_TIMESTAMP_MILLIS || d->logical == PQ_LOGICAL_TIMESTAMP_MICROS ||
           d->logical == PQ_LOGICAL_TIMESTAMP_NANOS;
}

/* The format a stored Arrow field af asks for a leaf d where it differs from the Parquet
 * type's, into fmt (left "" when it does not): pyarrow's ApplyOriginalStorageMetadata rules
 * for a leaf. A dictionary field's type is the dictionary, so no other rule applies to it. */
static void leaf_format(const pq_column_desc *d, const pqa_field *af, char *fmt)
{
    enum { N = SCAN_ARROW_FORMAT_MAX };
    bool text = d->logical == PQ_LOGICAL_STRING || d->logical == PQ_LOGICAL_ENUM ||
                d->logical == PQ_LOGICAL_JSON;
    bool bytes = d->physical == PQ_BYTE_ARRAY && d->logical != PQ_LOGICAL_DECIMAL;
    fmt[0] = 0;
    if (af->dictionary) return;
    if (af->type == PQA_TYPE_TIMESTAMP && af->timezone && af->timezone[0] && is_timestamp(d) &&
        d->is_adjusted_to_utc && strlen(af->timezone) < N - 8) {
        char u = d->logical == PQ_LOGICAL_TIMESTAMP_MILLIS   ? 'm'
                 : d->logical == PQ_LOGICAL_TIMESTAMP_MICROS ? 'u'
                                                             : 'n';
        snprintf(fmt, N, "ts%c:%s", u, af->timezone);
    }
    if (af->type == PQA_TYPE_DURATION && af->ts_unit >= 0 && d->physical == PQ_INT64 &&
        d->logical == PQ_LOGICAL_NONE) /* stored as its int64 count: the unit says which */
        snprintf(fmt, N, "tD%c", "smun"[af->ts_unit]);
    if (bytes && text && af->type == PQA_TYPE_LARGE_UTF8) snprintf(fmt, N, "U");
    if (bytes && !text && af->type == PQA_TYPE_LARGE_BINARY) snprintf(fmt, N, "Z");
    if (bytes && text && af->type == PQA_TYPE_UTF8_VIEW) snprintf(fmt, N, "vu");
    if (bytes && !text && af->type == PQA_TYPE_BINARY_VIEW) snprintf(fmt, N, "vz");
    /* decimal32 / 64 / 256 of the column's own precision and scale (pyarrow restores the
     * stored width only then: decimal256(60, 2) stored over a Parquet decimal(9, 2) reads as
     * decimal128(9, 2)) and a precision the width holds */
    int32_t p = d->decimal_precision;
    bool fits = af->param == 256 || (af->param == 64 && p <= 18) || (af->param == 32 && p <= 9);
    bool same = af->dec_precision == p && af->dec_scale == d->decimal_scale;
    if (d->logical == PQ_LOGICAL_DECIMAL && af->type == PQA_TYPE_DECIMAL && af->param != 128 && fits && same)
        snprintf(fmt, N, "d:%d,%d,%d", p, d->decimal_scale, af->param);
}

/* A dictionary's index format for the stored index type ("" for int32, the default). */
static void index_format(const pqa_field *af, char *out)
{
    static const char sig[] = "csil", uns[] = "CSIL";
    int k = af->dict_index_bits == 8 ? 0 : af->dict_index_bits == 16 ? 1 : af->dict_index_bits == 64 ? 3 : 2;
    out[0] = k == 2 && af->dict_index_signed ? 0 : af->dict_index_signed ? sig[k] : uns[k];
    out[1] = 0;
}

/* The stored list type af gives a LIST node: its format into fmt ("" for a plain list);
 * false when af is not one of the list types pyarrow restores (its children are then not
 * matched either). */
static bool list_format(const pqa_field *af, char *fmt)
{
    enum { N = SCAN_ARROW_FORMAT_MAX };
    fmt[0] = 0;
    switch (af->type) {
    case PQA_TYPE_LIST: return true;
    case PQA_TYPE_LARGE_LIST: snprintf(fmt, N, "+L"); return true;
    case PQA_TYPE_LIST_VIEW: snprintf(fmt, N, "+vl"); return true;
    case PQA_TYPE_LARGE_LIST_VIEW: snprintf(fmt, N, "+vL"); return true;
    case PQA_TYPE_FIXED_SIZE_LIST: snprintf(fmt, N, "+w:%d", (int)af->param); return af->param > 0;
    default: return false;
    }
}

/* The stored field of each schema node of a nested top field, matched as pyarrow's
 * ApplyOriginalStorageMetadata recurses (a list's element with a list's only child, a map's
 * key_value group with its entries and their key and value by position, a struct's fields by
 * position, only where the stored type is the same kind with as many children): map[i -
 * base] for schema node i, NULL where none matches (a repeated node read as a list of itself
 * too: no writer that stores an Arrow schema writes one). Recursion: the schema's depth. */
typedef struct stored_map {
    const pq_file_meta *m;
    const pqa_schema *as;
    const pqa_field **map;
    int32_t base;
} stored_map;

static bool is_list_type(const pqa_field *af)
{
    return af->type == PQA_TYPE_LIST || af->type == PQA_TYPE_LARGE_LIST || af->type == PQA_TYPE_LIST_VIEW ||
           af->type == PQA_TYPE_LARGE_LIST_VIEW || af->type == PQA_TYPE_FIXED_SIZE_LIST;
}

/* Node i (as_element: a two-level list's element, not a list of itself) with stored af. */
static void map_node(stored_map *sm, int32_t i, bool as_element, const pqa_field *af)
{
    const pq_schema_node *nd = &sm->m->nodes[i];
    sm->map[i - sm->base] = af;
    bool one = af->nchildren == 1 && !af->dictionary;
    if (nd->kind == PQ_NODE_LIST && nd->element >= 0 && one && is_list_type(af)) {
        map_node(sm, nd->element, nd->element == i + 1, pqa_field_child(sm->as, af, 0));
    } else if (nd->kind == PQ_NODE_MAP && nd->element >= 0 && one && af->type == PQA_TYPE_MAP) {
        const pq_schema_node *kv = &sm->m->nodes[nd->element];
        const pqa_field *entries = pqa_field_child(sm->as, af, 0);
        if (entries->type != PQA_TYPE_STRUCT || entries->nchildren != kv->nchildren) return;
        sm->map[nd->element - sm->base] = entries;
        for (int32_t c = nd->element + 1, k = 0; k < kv->nchildren; c = sm->m->nodes[c].end, k++)
            map_node(sm, c, false, pqa_field_child(sm->as, entries, k));
    } else if (nd->repetition == PQ_REPEATED && !as_element) {
        sm->map[i - sm->base] = NULL;
    } else if (nd->kind == PQ_NODE_GROUP && af->type == PQA_TYPE_STRUCT &&
               af->nchildren == nd->nchildren && !af->dictionary) {
        for (int32_t c = i + 1, k = 0; k < nd->nchildren; c = sm->m->nodes[c].end, k++)
            map_node(sm, c, false, pqa_field_child(sm->as, af, k));
    }
}

/* Node k of shape (from the stored field af, NULL: none): its format, dictionary and
 * metadata (not for a list a path passes: its field is not this column's). 0 or -ENOMEM. */
static int build_node(const pq_file_meta *m, const pq_nest *n, const pqa_field *af, bool meta,
                      scan_arrow_node *o)
{
    md_builder b = {0};
    for (int32_t i = 0; af && meta && i < af->nmeta; i++)
        md_add(&b, af->meta[i].key, af->meta[i].key_len, af->meta[i].value, af->meta[i].value_len);
    int rc = md_finish(&b, &o->metadata);
    if (rc || !af) return rc;
    if (n->kind == PQ_NEST_LIST && is_list_type(af)) list_format(af, o->format);
    if (n->kind != PQ_NEST_PRIM) return 0;
    const pq_column_desc *d = &m->columns[n->col];
    leaf_format(d, af, o->format);
    if (af->dictionary && d->physical == PQ_BYTE_ARRAY && d->logical != PQ_LOGICAL_DECIMAL) {
        index_format(af, o->index_format); /* as pyarrow: a dictionary inside */
        if (!o->index_format[0]) o->index_format[0] = 'i';
    }
    return 0;
}

/* The nested column c's node types from the stored fields into t->nodes (a top field, a
 * struct's field or a path through lists: each node of its shape from the schema node it
 * comes from); *root: the stored field of the shape's root when it is c's node itself (not a
 * list a path passes). 0 or -ENOMEM (the shape was accepted when the scan was planned). */
static int build_nodes(const scan_arrow_col *c, const pqa_schema *as, scan_arrow_type *t,
                       const pqa_field **root)
{
    const pq_file_meta *m = c->meta;
    int32_t top = m->nodes[c->node].top, nn = m->nodes[top].end - top;
    const pqa_field *af = pqa_schema_field(as, pq_node_spelling(&m->nodes[top]));
    if (!af) return 0;
    pq_nest *shape = fail_malloc(sizeof *shape * (size_t)PQ_NEST_CAP(m, c->node));
    stored_map sm = {.m = m, .as = as, .map = fail_calloc((size_t)nn, sizeof *sm.map), .base = top};
    int32_t n = shape && sm.map ? pq_nest_build(m, c->node, shape, &(pq_err){0}) : -ENOMEM;
    int rc = n < 0 ? n : 0;
    if (rc == 0) t->nodes = fail_calloc((size_t)n, sizeof *t->nodes);
    if (rc == 0 && !t->nodes) rc = -ENOMEM;
    if (rc == 0) t->nnodes = n, map_node(&sm, top, false, af);
    for (int32_t k = 0; rc == 0 && k < n; k++) { /* node 0's metadata: the column's (build_col) */
        int32_t s = shape[k].src;
        assert(s >= top && s < top + nn);
        rc = build_node(m, &shape[k], sm.map[s - top], k > 0 && s >= c->node, &t->nodes[k]);
    }
    if (rc == 0 && shape[0].src == c->node) *root = sm.map[c->node - top];
    free(shape);
    free(sm.map);
    return rc;
}

/* The name flat column c has in the file's stored Arrow schema: the file's spelling when
 * the reader renamed it (format/meta_names.c), else its name. */
static const char *stored_name(const pq_file_meta *m, const scan_arrow_col *c)
{
    const pq_column_desc *d = c->desc;
    bool own = d >= m->columns && d < m->columns + m->ncolumns;
    return own && m->nodes[d->node].spelled ? m->nodes[d->node].spelled : c->name;
}

static int build_col(const pq_file_meta *m, const scan_arrow_col *c, const pqa_schema *as,
                     scan_arrow_type *t)
{
    const pq_column_desc *d = c->desc;
    const pqa_field *af = as && c->node < 0 ? pqa_schema_field(as, stored_name(m, c)) : NULL;
    int rc = as && c->node >= 0 ? build_nodes(c, as, t, &af) : 0;
    md_builder b = {0};
    for (int32_t i = 0; af && i < af->nmeta; i++)
        md_add(&b, af->meta[i].key, af->meta[i].key_len, af->meta[i].value, af->meta[i].value_len);
    if (c->node < 0 && d->logical == PQ_LOGICAL_UUID && d->type_length == 16 &&
        !has_key(af, "ARROW:extension:name")) {
        md_add(&b, "ARROW:extension:name", 20, "arrow.uuid", 10);
        md_add(&b, "ARROW:extension:metadata", 24, "", 0);
    }
    if (c->node < 0 && d->field_id >= 0 && !has_key(af, "PARQUET:field_id")) {
        char id[16];
        int n = snprintf(id, sizeof id, "%d", (int)d->field_id);
        md_add(&b, "PARQUET:field_id", 16, id, (size_t)n);
    }
    if (af && c->node < 0) leaf_format(d, af, t->format);
    if (af && af->dictionary && c->node < 0) index_format(af, t->index_format); /* else int32 */
    t->stored_dictionary = af && af->dictionary;
    t->dictionary = t->stored_dictionary && c->node < 0 && dict_eligible(d); /* as pyarrow */
    int mrc = md_finish(&b, &t->metadata);
    return rc ? rc : mrc;
}

/* The file's top-level field count, which a stored schema must match for pyarrow to use it. */
static int32_t top_fields(const pq_file_meta *m)
{
    if (m->nnodes == 0) return m->ncolumns;
    int32_t n = 0;
    for (int32_t i = 0; i < m->nnodes; i = m->nodes[i].end) n++;
    return n;
}

/* The schema's metadata: a stored Arrow schema's own (pyarrow's FromParquetSchema), else the
 * file's key-value metadata without ARROW:schema. */
static int file_metadata(const pq_file_meta *m, const pqa_schema *as, char **out)
{
    md_builder b = {0};
    for (int32_t i = 0; as && i < as->nmeta; i++) /* a stored schema: its own (as pyarrow) */
        md_add(&b, as->meta[i].key, as->meta[i].key_len, as->meta[i].value, as->meta[i].value_len);
    for (int32_t i = 0; !as && i < m->nkv; i++) {
        const pq_kv *kv = &m->kv[i];
        if (!kv->key || strcmp(kv->key, "ARROW:schema") == 0) continue;
        md_add(&b, kv->key, strlen(kv->key), kv->value ? kv->value : "",
               kv->value ? kv->value_len : 0);
    }
    return md_finish(&b, out);
}

int scan_arrow_types_build(const pq_file_meta *m, const scan_arrow_col *cols, int n,
                           scan_arrow_types *out, pq_err *e)
{
    memset(out, 0, sizeof *out);
    pqa_schema as = {0};
    const pq_kv *kv = pq_file_meta_find_kv(m, "ARROW:schema");
    int rc = 0;
    if (kv && kv->value) {
        rc = pqa_schema_from_b64(kv->value, kv->value_len, &as, e);
        if (rc && e) {
            char why[sizeof e->msg];
            snprintf(why, sizeof why, "%s", e->msg);
            pq_errf(e, rc, -1, "key-value metadata %s", why);
        }
        if (rc) return rc;
    }
    out->cols = fail_calloc((size_t)n + 1, sizeof *out->cols);
    rc = out->cols ? 0 : -ENOMEM;
    if (rc == 0) out->n = n;
    bool use = kv && kv->value && as.nfields == top_fields(m); /* pyarrow ignores a schema of other fields */
    for (int i = 0; rc == 0 && i < n; i++) rc = build_col(m, &cols[i], use ? &as : NULL, &out->cols[i]);
    if (rc == 0) rc = file_metadata(m, use ? &as : NULL, &out->metadata);
    pqa_schema_free(&as);
    if (rc) {
        scan_arrow_types_free(out);
        return pq_errf(e, rc, -1, "out of memory");
    }
    return 0;
}

void scan_arrow_type_free(scan_arrow_type *t)
{
    free(t->metadata);
    for (int32_t k = 0; k < t->nnodes; k++) free(t->nodes[k].metadata);
    free(t->nodes);
    *t = (scan_arrow_type){0};
}

bool scan_arrow_fixed_lists(const scan_arrow_type *cols, int n)
{
    for (int i = 0; i < n; i++)
        for (int32_t k = 0; k < cols[i].nnodes; k++)
            if (strncmp(cols[i].nodes[k].format, "+w:", 3) == 0) return true;
    return false;
}

void scan_arrow_types_free(scan_arrow_types *t)
{
    for (int i = 0; t->cols && i < t->n; i++) scan_arrow_type_free(&t->cols[i]);
    free(t->cols);
    free(t->metadata);
    memset(t, 0, sizeof *t);
}

/* Marks the projected columns dictionary names name[k] as dictionary arrays (every copy of a
 * column projected twice), found in by_name (cols[0 .. t->n) indexed by name: each name one
 * binary search, not a walk of the projection: 20,000 names over 20,000 columns were 400
 * million comparisons); done[i]: column i's copies marked. 0 or -EINVAL with e naming it. */
static int dict_mark(scan_arrow_types *t, const scan_arrow_col *cols, const pq_name_ref *by_name,
                     bool *done, const char *name, pq_err *e)
{
    int32_t r = name ? pq_name_index_spelling(by_name, t->n, name) : -1; /* (--columns' rule; */
    if (r < 0) /* a column projected twice is one name) */
        return pq_errf(e, -EINVAL, -1, "dictionary_columns: '%s' is not a projected column",
                       name ? name : "(NULL)");
    int i = by_name[r].at;
    assert(i >= 0 && i < t->n);
    if (cols[i].node >= 0 || !dict_eligible(cols[i].desc))
        return pq_errf(e, -EINVAL, -1, "dictionary_columns: '%s' is not a string or binary "
                       "column", name);
    if (done[i]) return 0; /* (named before: its copies marked with it) */
    done[i] = true;
    for (int32_t k = r; k < t->n && strcmp(by_name[k].name, cols[i].name) == 0; k++)
        t->cols[by_name[k].at].dictionary = true; /* (its copies follow it: name_index.h) */
    return 0;
}

int scan_arrow_types_dictionary(scan_arrow_types *t, const scan_arrow_col *cols,
                                const char *const *names, int n, pq_err *e)
{
    if (n < 0 || (n > 0 && !names)) return pq_errf(e, -EINVAL, -1, "dictionary_columns: bad count");
    if (n == 0) return 0;
    pq_name_ref *by_name = fail_malloc(sizeof *by_name * ((size_t)t->n + 1));
    bool *done = fail_calloc((size_t)t->n + 1, sizeof *done);
    if (!by_name || !done) return free(by_name), free(done), pq_errf(e, -ENOMEM, -1, "out of memory");
    for (int i = 0; i < t->n; i++) by_name[i] = (pq_name_ref){cols[i].name, i};
    pq_name_index_sort(by_name, t->n);
    int rc = 0;
    for (int k = 0; rc == 0 && k < n; k++) rc = dict_mark(t, cols, by_name, done, names[k], e);
    free(by_name), free(done);
    return rc;
}

int scan_arrow_dict_out(const pq_file_meta *m, const int *idx, int n, const char *const *names,
                        int nnames, bool **out)
{
    *out = NULL;
    bool *f = fail_calloc((size_t)n + 1, sizeof *f);
    bool *named = fail_calloc((size_t)m->ncolumns + 1, sizeof *named); /* by a name, each once */
    if (!f || !named) {
        free(f), free(named);
        return -ENOMEM;
    }
    for (int k = 0; k < nnames; k++) { /* as the projection matches it */
        const char *spelled = names[k] ? pq_file_meta_top_name(m, names[k], false) : NULL;
        int32_t c = spelled ? pq_file_meta_find_column(m, spelled) : -1;
        if (c >= 0) named[c] = true;
    }
    pqa_schema as = {0}; /* its errors are scan_arrow_types_build's to report */
    const pq_kv *kv = pq_file_meta_find_kv(m, "ARROW:schema");
    bool stored = kv && kv->value && pqa_schema_from_b64(kv->value, kv->value_len, &as, NULL) == 0 &&
                  as.nfields == top_fields(m);
    for (int j = 0; j < n; j++) {
        const pq_column_desc *d = &m->columns[idx[j]];
        const char *spelled = pq_node_spelling(&m->nodes[d->node]);
        const pqa_field *af = stored ? pqa_schema_field(&as, spelled) : NULL;
        f[j] = dict_eligible(d) && ((af && af->dictionary) || named[idx[j]]);
    }
    free(named);
    pqa_schema_free(&as);
    *out = f;
    return 0;
}
