/* format/arrow_schema.c: a checked reader of the few flatbuffer tables of an Arrow IPC Schema
 * message (format/arrow_schema.h). Flatbuffer layout, as the reader relies on it:
 *   - a table at t starts with an int32 soffset; its vtable is at t - soffset: uint16 vtable
 *     size, uint16 table size, then one uint16 per field (0: absent), relative to t;
 *   - a reference (table, string, vector) is a uint32 at p pointing to p + value;
 *   - a string is a uint32 length, the bytes, then a NUL; a vector a uint32 count, then its
 *     elements (references for tables, each relative to its own position).
 * Every position is checked against the buffer before it is read (fb_* below), in 64 bits so
 * that no sum wraps. The walk is Message -> Schema -> Field -> (type table, DictionaryEncoding,
 * KeyValue, child Fields); the recursion into children stops at PQA_DEPTH_MAX levels and the
 * count of fields visited at PQA_FIELDS_MAX, so a flatbuffer whose children point back at an
 * ancestor, or share one table many times, is refused, not followed. */
#include "format/arrow_schema.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fail.h"

typedef struct fb {
    const uint8_t *b;
    uint64_t n;
    pq_err *e;
    uint64_t base; /* offset of b in the message, for messages */
} fb;

typedef struct fb_table {
    uint64_t pos, vt;
    uint16_t vt_size, t_size;
} fb_table;

static int fb_bad(const fb *f, uint64_t at, const char *what)
{
    return pq_errf(f->e, RINGSCAN_EFORMAT, (int64_t)(f->base + at),
                   "ARROW:schema: %s out of bounds or malformed", what);
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* The table at pos, its vtable checked to lie in the buffer. */
static int fb_table_at(const fb *f, uint64_t pos, fb_table *t)
{
    if (pos + 4 > f->n) return fb_bad(f, pos, "table");
    int64_t vt = (int64_t)pos - (int32_t)rd32(f->b + pos);
    if (vt < 0 || (uint64_t)vt + 4 > f->n) return fb_bad(f, pos, "vtable");
    t->pos = pos, t->vt = (uint64_t)vt;
    t->vt_size = rd16(f->b + vt), t->t_size = rd16(f->b + vt + 2);
    if (t->vt_size < 4 || (t->vt_size & 1) || t->vt + t->vt_size > f->n || t->t_size < 4 ||
        pos + t->t_size > f->n)
        return fb_bad(f, pos, "vtable");
    return 0;
}

/* Position of field id (width bytes) in t, or 0 when absent; -1 when it lies outside t. */
static int64_t fb_field(const fb_table *t, const fb *f, int id, unsigned width)
{
    unsigned voff = 4 + 2 * (unsigned)id;
    if (voff + 2 > t->vt_size) return 0;
    uint16_t off = rd16(f->b + t->vt + voff);
    if (off == 0) return 0;
    if (off < 4 || (uint64_t)off + width > t->t_size) return -1;
    return (int64_t)(t->pos + off);
}

/* The target of the reference in field id of t: *to (0: field absent). */
static int fb_ref(const fb *f, const fb_table *t, int id, uint64_t *to)
{
    int64_t p = fb_field(t, f, id, 4);
    *to = 0;
    if (p < 0) return fb_bad(f, t->pos, "field");
    if (p == 0) return 0;
    uint64_t target = (uint64_t)p + rd32(f->b + p);
    if (target + 4 > f->n) return fb_bad(f, (uint64_t)p, "reference");
    *to = target;
    return 0;
}

static int fb_u8(const fb *f, const fb_table *t, int id, unsigned def, unsigned *out)
{
    int64_t p = fb_field(t, f, id, 1);
    if (p < 0) return fb_bad(f, t->pos, "field");
    *out = p ? f->b[p] : def;
    return 0;
}

static int fb_i16(const fb *f, const fb_table *t, int id, int16_t def, int16_t *out)
{
    int64_t p = fb_field(t, f, id, 2);
    if (p < 0) return fb_bad(f, t->pos, "field");
    *out = p ? (int16_t)rd16(f->b + p) : def;
    return 0;
}

static int fb_i32(const fb *f, const fb_table *t, int id, int32_t def, int32_t *out)
{
    int64_t p = fb_field(t, f, id, 4);
    if (p < 0) return fb_bad(f, t->pos, "field");
    *out = p ? (int32_t)rd32(f->b + p) : def;
    return 0;
}

/* The string at target (its length checked, its NUL inside the buffer). */
static int fb_string_at(const fb *f, uint64_t at, const char **s, uint32_t *len)
{
    uint32_t n = rd32(f->b + at); /* at + 4 <= f->n: checked by fb_ref */
    if (at + 4 + (uint64_t)n + 1 > f->n || f->b[at + 4 + n] != 0) return fb_bad(f, at, "string");
    *s = (const char *)f->b + at + 4;
    if (len) *len = n;
    return 0;
}

static int fb_string(const fb *f, const fb_table *t, int id, const char **s, uint32_t *len)
{
    uint64_t at;
    int rc = fb_ref(f, t, id, &at);
    *s = NULL;
    if (len) *len = 0;
    return rc || at == 0 ? rc : fb_string_at(f, at, s, len);
}

/* The vector of references in field id of t: *count and *first (position of element 0). */
static int fb_vector(const fb *f, const fb_table *t, int id, uint32_t max, uint32_t *count,
                     uint64_t *first)
{
    uint64_t at;
    int rc = fb_ref(f, t, id, &at);
    *count = 0, *first = 0;
    if (rc || at == 0) return rc;
    uint32_t n = rd32(f->b + at);
    if (at + 4 + (uint64_t)n * 4 > f->n) return fb_bad(f, at, "vector");
    if (n > max)
        return pq_errf(f->e, RINGSCAN_ELIMIT, (int64_t)(f->base + at),
                       "ARROW:schema: %u entries, more than the limit %u", n, max);
    *count = n, *first = at + 4;
    return 0;
}

/* The table element i of a vector of references starting at first. */
static int fb_elem(const fb *f, uint64_t first, uint32_t i, fb_table *t)
{
    uint64_t p = first + (uint64_t)i * 4;
    assert(p + 4 <= f->n);
    return fb_table_at(f, p + rd32(f->b + p), t);
}

/* A KeyValue vector (field id of t) into kv (*n pairs, at most PQA_KV_MAX). */
static int read_kv(const fb *f, const fb_table *t, int id, pqa_kv *kv, int32_t *n)
{
    uint32_t count;
    uint64_t first;
    int rc = fb_vector(f, t, id, PQA_KV_MAX, &count, &first);
    for (uint32_t i = 0; rc == 0 && i < count; i++) {
        fb_table k;
        rc = fb_elem(f, first, i, &k);
        if (rc == 0) rc = fb_string(f, &k, 0, &kv[i].key, &kv[i].key_len);
        if (rc == 0) rc = fb_string(f, &k, 1, &kv[i].value, &kv[i].value_len);
        if (rc == 0 && !kv[i].key) kv[i].key = "", kv[i].key_len = 0;
        if (rc == 0 && !kv[i].value) kv[i].value = "", kv[i].value_len = 0;
    }
    *n = rc ? 0 : (int32_t)count;
    return rc;
}

static int kv_count(const fb *f, const fb_table *t, int id, uint32_t *count)
{
    uint64_t first;
    return fb_vector(f, t, id, PQA_KV_MAX, count, &first);
}

/* The type table of a field with tag `tag` at type_at: the parameters ringscan uses. */
static int read_type(const fb *f, unsigned tag, uint64_t type_at, pqa_field *out)
{
    fb_table tt;
    int rc = fb_table_at(f, type_at, &tt);
    if (rc) return rc;
    if (tag == PQA_TYPE_TIMESTAMP || tag == PQA_TYPE_DURATION) {
        /* unit (0; Timestamp's default SECOND, Duration's MILLISECOND), timezone (1) */
        rc = fb_i16(f, &tt, 0, tag == PQA_TYPE_DURATION ? 1 : 0, &out->ts_unit);
        if (rc == 0 && tag == PQA_TYPE_TIMESTAMP) rc = fb_string(f, &tt, 1, &out->timezone, NULL);
        if (rc == 0 && (out->ts_unit < 0 || out->ts_unit > 3)) rc = fb_bad(f, type_at, "time unit");
    } else if (tag == PQA_TYPE_DECIMAL) { /* precision (0), scale (1), bitWidth (2) */
        rc = fb_i32(f, &tt, 2, 128, &out->param);
        if (rc == 0) rc = fb_i32(f, &tt, 0, 0, &out->dec_precision);
        if (rc == 0) rc = fb_i32(f, &tt, 1, 0, &out->dec_scale);
        if (rc == 0 && out->param != 32 && out->param != 64 && out->param != 128 && out->param != 256)
            rc = fb_bad(f, type_at, "decimal bit width");
    } else if (tag == PQA_TYPE_FIXED_SIZE_LIST) { /* listSize (0) */
        rc = fb_i32(f, &tt, 0, 0, &out->param);
        if (rc == 0 && out->param < 0) rc = fb_bad(f, type_at, "list size");
    } else if (tag == PQA_TYPE_INT) { /* bitWidth (0) */
        rc = fb_i32(f, &tt, 0, 0, &out->param);
    }
    return rc;
}

/* DictionaryEncoding at at: id (0), indexType (1, an Int: bitWidth (0), is_signed (1)),
 * isOrdered (2). A missing index type is int32 (the format's default). */
static int read_dictionary(const fb *f, uint64_t at, pqa_field *out)
{
    fb_table dt, it;
    uint64_t idx_at;
    unsigned ordered, is_signed = 1;
    int32_t bits = 32;
    int rc = fb_table_at(f, at, &dt);
    if (rc == 0) rc = fb_ref(f, &dt, 1, &idx_at);
    if (rc == 0) rc = fb_u8(f, &dt, 2, 0, &ordered);
    if (rc == 0 && idx_at) rc = fb_table_at(f, idx_at, &it);
    if (rc == 0 && idx_at) rc = fb_i32(f, &it, 0, 32, &bits);
    if (rc == 0 && idx_at) rc = fb_u8(f, &it, 1, 0, &is_signed);
    if (rc == 0 && bits != 8 && bits != 16 && bits != 32 && bits != 64)
        rc = fb_bad(f, at, "dictionary index width");
    if (rc) return rc;
    out->dictionary = true, out->dict_ordered = ordered != 0;
    out->dict_index_bits = (int8_t)bits, out->dict_index_signed = is_signed != 0;
    return 0;
}

/* One Field table: name (0), nullable (1), type_type (2), type (3), dictionary (4),
 * children (5), custom_metadata (6). Its metadata pairs go to kv; its children vector's first
 * element to *children (their count in out->nchildren). */
static int read_field(const fb *f, const fb_table *t, pqa_field *out, pqa_kv *kv, uint64_t *children)
{
    unsigned nullable, tag;
    uint64_t type_at, dict_at;
    uint32_t nchildren;
    *out = (pqa_field){.name = "", .ts_unit = -1, .meta = kv};
    int rc = fb_string(f, t, 0, &out->name, NULL);
    if (rc == 0 && !out->name) out->name = "";
    if (rc == 0) rc = fb_u8(f, t, 1, 0, &nullable);
    if (rc == 0) rc = fb_u8(f, t, 2, 0, &tag);
    if (rc == 0) rc = fb_ref(f, t, 3, &type_at);
    if (rc == 0) rc = fb_ref(f, t, 4, &dict_at);
    if (rc == 0) rc = fb_vector(f, t, 5, PQA_FIELDS_MAX, &nchildren, children);
    if (rc == 0) rc = read_kv(f, t, 6, kv, &out->nmeta);
    if (rc) return rc;
    out->nullable = nullable != 0, out->type = (uint8_t)tag;
    out->nchildren = (int32_t)nchildren;
    if (type_at) rc = read_type(f, tag, type_at, out);
    if (rc == 0 && dict_at) rc = read_dictionary(f, dict_at, out);
    return rc;
}

/* What a schema's fields take: the fields (children included) and metadata pairs of the n
 * fields of the vector at first, depth levels down, added to *nf and *nkv. Stops with
 * RINGSCAN_ELIMIT past the limits (invariant 3), so a shared or cyclic child ends. */
static int count_fields(const fb *f, uint64_t first, uint32_t n, int depth, uint64_t *nf,
                        uint64_t *nkv)
{
    if (depth > PQA_DEPTH_MAX)
        return pq_errf(f->e, RINGSCAN_ELIMIT, -1, "ARROW:schema: fields nested more than %d "
                       "levels deep", PQA_DEPTH_MAX);
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        fb_table ft;
        uint32_t nmeta = 0, nchildren = 0;
        uint64_t children;
        if (++*nf > PQA_FIELDS_MAX)
            return pq_errf(f->e, RINGSCAN_ELIMIT, -1, "ARROW:schema: more than %d fields",
                           PQA_FIELDS_MAX);
        rc = fb_elem(f, first, i, &ft);
        if (rc == 0) rc = kv_count(f, &ft, 6, &nmeta);
        if (rc == 0) rc = fb_vector(f, &ft, 5, PQA_FIELDS_MAX, &nchildren, &children);
        *nkv += nmeta;
        if (rc == 0 && *nkv > PQA_KV_MAX) /* fields may share one vector: bound the sum */
            rc = pq_errf(f->e, RINGSCAN_ELIMIT, -1, "ARROW:schema: %llu metadata pairs, more "
                         "than the limit %d", (unsigned long long)*nkv, PQA_KV_MAX);
        if (rc == 0 && nchildren) rc = count_fields(f, children, nchildren, depth + 1, nf, nkv);
    }
    return rc;
}

typedef struct fill_state {
    pqa_schema *out;
    uint64_t nf, nkv; /* sizes counted by count_fields */
    int32_t next;     /* the next free field */
    uint64_t kv_used;
} fill_state;

/* Reads the n fields of the vector at first into out->fields[at, at + n), then each one's
 * children into a block taken from st->next (invariant 4); the same walk as count_fields. */
static int fill_fields(const fb *f, fill_state *st, uint64_t first, uint32_t n, int32_t at)
{
    uint64_t children;
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        fb_table ft;
        pqa_field *fd = &st->out->fields[at + (int32_t)i];
        rc = fb_elem(f, first, i, &ft);
        if (rc == 0) rc = read_field(f, &ft, fd, st->out->kv_mem + st->kv_used, &children);
        if (rc == 0) st->kv_used += (uint64_t)fd->nmeta;
        assert(rc || st->kv_used <= st->nkv);
    }
    for (uint32_t i = 0; rc == 0 && i < n; i++) { /* the children: their vector read again */
        fb_table ft;
        uint32_t nc;
        pqa_field *fd = &st->out->fields[at + (int32_t)i];
        rc = fb_elem(f, first, i, &ft);
        if (rc == 0) rc = fb_vector(f, &ft, 5, PQA_FIELDS_MAX, &nc, &children);
        if (rc) break;
        assert(nc == (uint32_t)fd->nchildren);
        fd->first_child = st->next;
        st->next += fd->nchildren;
        assert((uint64_t)st->next <= st->nf); /* the count pass walked the same tree */
        if (fd->nchildren) rc = fill_fields(f, st, children, nc, fd->first_child);
    }
    return rc;
}

/* The Schema table: endianness (0), fields (1), custom_metadata (2). */
static int read_schema(const fb *f, const fb_table *st, pqa_schema *out)
{
    uint32_t nfields = 0, nmeta = 0;
    uint64_t first;
    fill_state fs = {.out = out};
    int rc = fb_vector(f, st, 1, PQA_FIELDS_MAX, &nfields, &first);
    if (rc == 0) rc = kv_count(f, st, 2, &nmeta);
    fs.nkv = nmeta;
    if (rc == 0) rc = count_fields(f, first, nfields, 1, &fs.nf, &fs.nkv);
    if (rc) return rc;
    out->fields = fail_calloc((size_t)fs.nf + 1, sizeof *out->fields);
    out->kv_mem = fail_calloc((size_t)fs.nkv + 1, sizeof *out->kv_mem);
    if (!out->fields || !out->kv_mem) return pq_errf(f->e, -ENOMEM, -1, "out of memory");
    rc = read_kv(f, st, 2, out->kv_mem, &out->nmeta);
    out->meta = out->kv_mem;
    fs.kv_used = (uint64_t)out->nmeta;
    fs.next = (int32_t)nfields;
    if (rc == 0) rc = fill_fields(f, &fs, first, nfields, 0);
    assert(rc || (uint64_t)fs.next == fs.nf);
    out->nfields = rc ? 0 : (int32_t)nfields;
    out->nall = rc ? 0 : fs.next;
    return rc;
}

int pqa_schema_parse(uint8_t *msg, size_t len, pqa_schema *out, pq_err *e)
{
    memset(out, 0, sizeof *out);
    fb f = {.b = msg, .n = len, .e = e};
    uint64_t start = 4;
    if (len >= 8 && rd32(msg) == 0xFFFFFFFFu) start = 8;
    if (len < start) return fb_bad(&f, 0, "message length");
    uint32_t body = rd32(msg + start - 4);
    if ((uint64_t)body > len - start || body < 4) return fb_bad(&f, start - 4, "message length");
    f = (fb){.b = msg + start, .n = body, .e = e, .base = start};
    fb_table m, st;
    unsigned header_type;
    uint64_t header_at;
    int rc = fb_table_at(&f, rd32(f.b), &m);
    if (rc == 0) rc = fb_u8(&f, &m, 1, 0, &header_type);
    if (rc == 0) rc = fb_ref(&f, &m, 2, &header_at);
    if (rc == 0 && (header_type != 1 || header_at == 0))
        rc = pq_errf(e, RINGSCAN_EFORMAT, (int64_t)start,
                     "ARROW:schema: the message is not a Schema (header type %u)", header_type);
    if (rc == 0) rc = fb_table_at(&f, header_at, &st);
    if (rc == 0) rc = read_schema(&f, &st, out);
    if (rc == 0 && !(out->by_name = fail_malloc(sizeof *out->by_name * ((size_t)out->nfields + 1))))
        rc = pq_errf(e, -ENOMEM, -1, "out of memory");
    for (int32_t i = 0; rc == 0 && i < out->nfields; i++)
        out->by_name[i] = (pq_name_ref){out->fields[i].name, i};
    if (rc == 0) pq_name_index_sort(out->by_name, out->nfields);
    if (rc) {
        free(out->by_name);
        free(out->fields);
        free(out->kv_mem);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->buf = msg;
    return 0;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

int pqa_base64_decode(const char *b64, size_t len, uint8_t **out, size_t *out_len, pq_err *e)
{
    *out = NULL, *out_len = 0;
    if (len > PQA_B64_MAX)
        return pq_errf(e, RINGSCAN_ELIMIT, -1, "ARROW:schema: %zu bytes, more than the limit %d",
                       len, PQA_B64_MAX);
    while (len > 0 && b64[len - 1] == '=') len--;
    if (len % 4 == 1) return pq_errf(e, RINGSCAN_EFORMAT, -1, "ARROW:schema: not base64 (length)");
    uint8_t *o = fail_malloc(len / 4 * 3 + 3);
    if (!o) return pq_errf(e, -ENOMEM, -1, "out of memory");
    size_t n = 0;
    uint32_t acc = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value((unsigned char)b64[i]);
        if (v < 0) {
            free(o);
            return pq_errf(e, RINGSCAN_EFORMAT, -1, "ARROW:schema: not base64 (character %zu)", i);
        }
        acc = acc << 6 | (uint32_t)v;
        if (i % 4 == 3) o[n++] = (uint8_t)(acc >> 16), o[n++] = (uint8_t)(acc >> 8), o[n++] = (uint8_t)acc;
    }
    if (len % 4 == 2) o[n++] = (uint8_t)(acc >> 4);
    if (len % 4 == 3) o[n++] = (uint8_t)(acc >> 10), o[n++] = (uint8_t)(acc >> 2);
    assert(n <= len / 4 * 3 + 3);
    *out = o, *out_len = n;
    return 0;
}

int pqa_schema_from_b64(const char *b64, size_t len, pqa_schema *out, pq_err *e)
{
    uint8_t *msg;
    size_t n;
    memset(out, 0, sizeof *out);
    int rc = pqa_base64_decode(b64, len, &msg, &n, e);
    if (rc) return rc;
    rc = pqa_schema_parse(msg, n, out, e);
    if (rc) free(msg);
    return rc;
}

void pqa_schema_free(pqa_schema *s)
{
    free(s->buf);
    free(s->by_name);
    free(s->fields);
    free(s->kv_mem);
    memset(s, 0, sizeof *s);
}

const pqa_field *pqa_field_child(const pqa_schema *s, const pqa_field *f, int32_t i)
{
    assert(i >= 0 && i < f->nchildren && f->first_child + i < s->nall);
    return &s->fields[f->first_child + i];
}

const pqa_field *pqa_schema_field(const pqa_schema *s, const char *name)
{
    if (s->by_name) {
        int32_t i = pq_name_index_find(s->by_name, s->nfields, name);
        return i >= 0 ? &s->fields[i] : NULL;
    }
    for (int32_t i = 0; i < s->nfields; i++)
        if (strcmp(s->fields[i].name, name) == 0) return &s->fields[i];
    return NULL;
}
