/* format/thrift.c: thrift compact protocol reader and writer (see thrift.h for the rules).
 *
 * Owns: pq_tr_* (decoding from a bounded buffer), pq_tw_* (encoding into a pq_buf), pq_buf.
 * Invariants:
 *  1. r->base <= r->p <= r->end at every return; a failed read leaves p unchanged or at end.
 *  2. After the first error every reader call returns r->status without reading.
 *  3. r->depth <= r->max_depth <= PQ_THRIFT_MAX_DEPTH; id_stack[depth] is the saved id.
 */
#include "format/thrift.h"
#include "common/fail.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pq_tr_init(pq_tr *r, const uint8_t *buf, size_t len, int64_t base_offset,
                uint32_t max_depth, pq_err *e)
{
    assert(r && (buf || len == 0));
    memset(r, 0, sizeof *r);
    r->base = buf;
    r->p = buf;
    r->end = buf + len;
    r->base_offset = base_offset;
    r->max_depth = (max_depth == 0 || max_depth > PQ_THRIFT_MAX_DEPTH) ? PQ_THRIFT_MAX_DEPTH
                                                                       : max_depth;
    r->e = e;
}

int pq_tr_fail(pq_tr *r, const char *what)
{
    if (r->status) return r->status;
    int64_t off = r->base_offset >= 0 ? r->base_offset + (int64_t)pq_tr_pos(r) : -1;
    r->status = pq_errf(r->e, RINGSCAN_EFORMAT, off, "thrift: %s", what);
    return r->status;
}

static int tr_limit(pq_tr *r, const char *what)
{
    if (r->status) return r->status;
    int64_t off = r->base_offset >= 0 ? r->base_offset + (int64_t)pq_tr_pos(r) : -1;
    r->status = pq_errf(r->e, RINGSCAN_ELIMIT, off, "thrift: %s", what);
    return r->status;
}

int pq_tr_varint_slow(pq_tr *r, uint64_t *v)
{
    if (r->status) return r->status;
    uint64_t x = 0;
    const uint8_t *p = r->p;
    for (unsigned i = 0; i < 10; i++) {
        if (p >= r->end) return pq_tr_fail(r, "truncated varint");
        uint8_t b = *p++;
        if (i == 9 && b > 1) return pq_tr_fail(r, "varint overflows 64 bits");
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            r->p = p;
            *v = x;
            return 0;
        }
    }
    return pq_tr_fail(r, "varint longer than 10 bytes");
}

int pq_tr_zigzag(pq_tr *r, int64_t *v)
{
    uint64_t u;
    int rc = pq_tr_varint(r, &u);
    if (rc) return rc;
    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return 0;
}

int pq_tr_binary(pq_tr *r, const uint8_t **p, uint32_t *n)
{
    uint64_t len;
    int rc = pq_tr_varint(r, &len);
    if (rc) return rc;
    if (len > pq_tr_left(r)) return pq_tr_fail(r, "binary length past the end of the buffer");
    if (len > UINT32_MAX) return pq_tr_fail(r, "binary length too large");
    *p = r->p;
    *n = (uint32_t)len;
    r->p += len;
    return 0;
}

int pq_tr_double(pq_tr *r, double *v)
{
    if (r->status) return r->status;
    if (pq_tr_left(r) < 8) return pq_tr_fail(r, "truncated double");
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u |= (uint64_t)r->p[i] << (8 * i);
    memcpy(v, &u, sizeof *v);
    r->p += 8;
    return 0;
}

int pq_tr_int_slow(pq_tr *r, uint8_t type, int64_t lo, int64_t hi, int64_t *v)
{
    assert(lo <= hi);
    if (r->status) return r->status;
    int64_t x;
    if (type == PQ_T_BYTE) {
        if (pq_tr_left(r) < 1) return pq_tr_fail(r, "truncated byte");
        x = (int8_t)*r->p++;
    } else if (type == PQ_T_I16 || type == PQ_T_I32 || type == PQ_T_I64) {
        int rc = pq_tr_zigzag(r, &x);
        if (rc) return rc;
        if (type == PQ_T_I16 && (x < INT16_MIN || x > INT16_MAX))
            return pq_tr_fail(r, "i16 out of range");
        if (type == PQ_T_I32 && (x < INT32_MIN || x > INT32_MAX))
            return pq_tr_fail(r, "i32 out of range");
    } else {
        return pq_tr_fail(r, "integer expected");
    }
    if (x < lo || x > hi) return pq_tr_fail(r, "integer value out of range");
    *v = x;
    return 0;
}

int pq_tr_bool_field(pq_tr *r, uint8_t type, bool *v)
{
    if (r->status) return r->status;
    if (type != PQ_T_TRUE && type != PQ_T_FALSE) return pq_tr_fail(r, "boolean expected");
    *v = type == PQ_T_TRUE;
    return 0;
}

int pq_tr_bool_elem(pq_tr *r, bool *v)
{
    if (r->status) return r->status;
    if (pq_tr_left(r) < 1) return pq_tr_fail(r, "truncated boolean");
    uint8_t b = *r->p;
    if (b > 2) return pq_tr_fail(r, "bad boolean element");
    r->p++;
    *v = b == 1;
    return 0;
}

int pq_tr_struct_begin(pq_tr *r)
{
    if (r->status) return r->status;
    if (r->depth >= r->max_depth) return tr_limit(r, "nesting deeper than the limit max_thrift_depth");
    r->id_stack[r->depth++] = r->last_id;
    r->last_id = 0;
    assert(r->depth <= PQ_THRIFT_MAX_DEPTH);
    return 0;
}

int pq_tr_struct_end(pq_tr *r)
{
    if (r->status) return r->status;
    assert(r->depth > 0);
    r->last_id = r->id_stack[--r->depth];
    return 0;
}

int pq_tr_field_slow(pq_tr *r, int16_t *id, uint8_t *type)
{
    if (r->status) return r->status;
    if (pq_tr_left(r) < 1) return pq_tr_fail(r, "truncated struct (no field header)");
    uint8_t b = *r->p++;
    uint8_t t = b & 0x0f;
    if (t == PQ_T_STOP) {
        if (b != 0) return pq_tr_fail(r, "bad stop byte");
        *type = PQ_T_STOP;
        *id = 0;
        return 0;
    }
    if (t > PQ_T_STRUCT) return pq_tr_fail(r, "unknown field type");
    int64_t fid;
    if (b >> 4) {
        fid = (int64_t)r->last_id + (b >> 4);
        if (fid > INT16_MAX) return pq_tr_fail(r, "field id overflows i16");
    } else {
        int rc = pq_tr_int(r, PQ_T_I16, INT16_MIN, INT16_MAX, &fid);
        if (rc) return rc;
    }
    r->last_id = (int16_t)fid;
    *id = (int16_t)fid;
    *type = t;
    return 0;
}

static bool tr_valid_elem(uint8_t t)
{
    return t >= PQ_T_TRUE && t <= PQ_T_STRUCT;
}

int pq_tr_list_begin(pq_tr *r, uint8_t *elem_type, uint32_t *count, uint32_t max)
{
    if (r->status) return r->status;
    if (pq_tr_left(r) < 1) return pq_tr_fail(r, "truncated list header");
    uint8_t b = *r->p++;
    uint64_t n = b >> 4;
    if (n == 15) {
        int rc = pq_tr_varint(r, &n);
        if (rc) return rc;
    }
    uint8_t t = b & 0x0f;
    if (!tr_valid_elem(t)) return pq_tr_fail(r, "bad list element type");
    if (n > pq_tr_left(r)) return pq_tr_fail(r, "list count larger than the bytes left");
    if (max && n > max) return tr_limit(r, "list count above the configured limit");
    if (r->depth >= r->max_depth) return tr_limit(r, "nesting deeper than the limit max_thrift_depth");
    r->id_stack[r->depth++] = r->last_id;
    *elem_type = t;
    *count = (uint32_t)n;
    return 0;
}

int pq_tr_list_end(pq_tr *r)
{
    return pq_tr_struct_end(r);
}

int pq_tr_map_begin(pq_tr *r, uint8_t *ktype, uint8_t *vtype, uint32_t *count)
{
    uint64_t n;
    int rc = pq_tr_varint(r, &n);
    if (rc) return rc;
    *ktype = *vtype = 0;
    if (n > 0) {
        if (pq_tr_left(r) < 1) return pq_tr_fail(r, "truncated map header");
        uint8_t b = *r->p++;
        *ktype = b >> 4;
        *vtype = b & 0x0f;
        if (!tr_valid_elem(*ktype) || !tr_valid_elem(*vtype))
            return pq_tr_fail(r, "bad map key/value type");
        if (n > pq_tr_left(r) / 2) return pq_tr_fail(r, "map count larger than the bytes left");
    }
    if (r->depth >= r->max_depth) return tr_limit(r, "nesting deeper than the limit max_thrift_depth");
    r->id_stack[r->depth++] = r->last_id;
    *count = (uint32_t)n;
    return 0;
}

static int tr_skip_elems(pq_tr *r, uint8_t type, uint32_t n)
{
    for (uint32_t i = 0; i < n && !r->status; i++) {
        if (type == PQ_T_TRUE || type == PQ_T_FALSE) {
            bool b;
            pq_tr_bool_elem(r, &b);
        } else {
            pq_tr_skip(r, type);
        }
    }
    return r->status;
}

int pq_tr_skip(pq_tr *r, uint8_t type)
{
    if (r->status) return r->status;
    int64_t i;
    uint64_t u;
    const uint8_t *p;
    uint32_t n;
    double d;
    uint8_t t, kt, vt;
    int16_t id;
    switch (type) {
    case PQ_T_TRUE: case PQ_T_FALSE: return 0; /* value lives in the field header */
    case PQ_T_BYTE: return pq_tr_int(r, type, INT64_MIN, INT64_MAX, &i);
    case PQ_T_I16: case PQ_T_I32: case PQ_T_I64: return pq_tr_varint(r, &u);
    case PQ_T_DOUBLE: return pq_tr_double(r, &d);
    case PQ_T_BINARY: return pq_tr_binary(r, &p, &n);
    case PQ_T_LIST: case PQ_T_SET:
        if (pq_tr_list_begin(r, &t, &n, 0)) return r->status;
        tr_skip_elems(r, t, n);
        return pq_tr_list_end(r);
    case PQ_T_MAP:
        if (pq_tr_map_begin(r, &kt, &vt, &n)) return r->status;
        for (uint32_t k = 0; k < n && !r->status; k++) {
            tr_skip_elems(r, kt, 1);
            tr_skip_elems(r, vt, 1);
        }
        return pq_tr_list_end(r);
    case PQ_T_STRUCT:
        if (pq_tr_struct_begin(r)) return r->status;
        for (;;) {
            if (pq_tr_field(r, &id, &t)) return r->status;
            if (t == PQ_T_STOP) break;
            if (pq_tr_skip(r, t)) return r->status;
        }
        return pq_tr_struct_end(r);
    default: return pq_tr_fail(r, "cannot skip unknown type");
    }
}

int pq_tr_expect(pq_tr *r, uint8_t type, uint8_t want, const char *what)
{
    if (r->status) return r->status;
    bool ok = type == want || ((want == PQ_T_TRUE || want == PQ_T_FALSE) &&
                               (type == PQ_T_TRUE || type == PQ_T_FALSE)) ||
              (want == PQ_T_LIST && type == PQ_T_SET);
    if (ok) return 0;
    int64_t off = r->base_offset >= 0 ? r->base_offset + (int64_t)pq_tr_pos(r) : -1;
    r->status = pq_errf(r->e, RINGSCAN_EFORMAT, off, "thrift: field %s has wrong type %u",
                        what, (unsigned)type);
    return r->status;
}

/* ---- writer ---------------------------------------------------------------------------- */

void pq_buf_free(pq_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

int pq_buf_append(pq_buf *b, const void *p, size_t n)
{
    assert(b->len <= b->cap);
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) return -ENOMEM;
            cap *= 2;
        }
        uint8_t *d = fail_realloc(b->data, cap);
        if (!d) return -ENOMEM;
        b->data = d;
        b->cap = cap;
    }
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

void pq_tw_init(pq_tw *w, pq_buf *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

void pq_tw_bytes(pq_tw *w, const void *p, size_t n)
{
    if (!w->status) w->status = pq_buf_append(w->out, p, n);
}

void pq_tw_varint(pq_tw *w, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        tmp[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    assert(n <= 10);
    pq_tw_bytes(w, tmp, n);
}

void pq_tw_zigzag(pq_tw *w, int64_t v)
{
    pq_tw_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void pq_tw_binary(pq_tw *w, const void *p, uint32_t n)
{
    pq_tw_varint(w, n);
    pq_tw_bytes(w, p, n);
}

void pq_tw_struct_begin(pq_tw *w)
{
    assert(w->depth < PQ_THRIFT_MAX_DEPTH);
    w->id_stack[w->depth++] = w->last_id;
    w->last_id = 0;
}

void pq_tw_struct_end(pq_tw *w)
{
    assert(w->depth > 0);
    uint8_t stop = 0;
    pq_tw_bytes(w, &stop, 1);
    w->last_id = w->id_stack[--w->depth];
}

void pq_tw_field(pq_tw *w, int16_t id, uint8_t type)
{
    assert(type > 0 && type <= PQ_T_STRUCT);
    int delta = id - w->last_id;
    if (delta > 0 && delta <= 15) {
        uint8_t b = (uint8_t)(delta << 4 | type);
        pq_tw_bytes(w, &b, 1);
    } else {
        pq_tw_bytes(w, &type, 1);
        pq_tw_zigzag(w, id);
    }
    w->last_id = id;
}

void pq_tw_list_begin(pq_tw *w, uint8_t elem_type, uint32_t count)
{
    assert(elem_type > 0 && elem_type <= PQ_T_STRUCT);
    if (count < 15) {
        uint8_t b = (uint8_t)(count << 4 | elem_type);
        pq_tw_bytes(w, &b, 1);
    } else {
        uint8_t b = (uint8_t)(0xf0 | elem_type);
        pq_tw_bytes(w, &b, 1);
        pq_tw_varint(w, count);
    }
}

void pq_tw_bool_elem(pq_tw *w, bool v)
{
    uint8_t b = v ? 1 : 2;
    pq_tw_bytes(w, &b, 1);
}

void pq_tw_i32_field(pq_tw *w, int16_t id, int32_t v)
{
    pq_tw_field(w, id, PQ_T_I32);
    pq_tw_zigzag(w, v);
}

void pq_tw_i64_field(pq_tw *w, int16_t id, int64_t v)
{
    pq_tw_field(w, id, PQ_T_I64);
    pq_tw_zigzag(w, v);
}

void pq_tw_bool_field(pq_tw *w, int16_t id, bool v)
{
    pq_tw_field(w, id, v ? PQ_T_TRUE : PQ_T_FALSE);
}

void pq_tw_binary_field(pq_tw *w, int16_t id, const void *p, uint32_t n)
{
    pq_tw_field(w, id, PQ_T_BINARY);
    pq_tw_binary(w, p, n);
}

void pq_tw_empty_struct_field(pq_tw *w, int16_t id)
{
    pq_tw_field(w, id, PQ_T_STRUCT);
    pq_tw_struct_begin(w);
    pq_tw_struct_end(w);
}
