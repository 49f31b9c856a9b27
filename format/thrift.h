/* format/thrift.h: the thrift compact protocol, reader and writer, over byte buffers.
 *
 * Invariants:
 *  1. The reader never reads past end: every varint is bounded to 10 bytes, every binary length
 *     and every container count is checked against the bytes left before use (an element takes
 *     at least one byte, so count <= bytes left).
 *  2. The first error sticks: r->status becomes negative, later calls return it and read
 *     nothing; the pq_err names the file offset (base_offset + position).
 *  3. Struct nesting (structs, lists, maps, skipped values) is bounded by max_depth.
 *  4. Field ids follow the compact rules: a header byte delta<<4|type with delta 1..15 adds to
 *     the previous id of the same struct; delta 0 is followed by a zigzag i16 id (long form).
 *  5. Booleans: a struct field's value is its header type (1 true, 2 false); a container
 *     element is one byte, 1 true and 0 or 2 false (both writer conventions are accepted).
 *  6. The writer appends to a pq_buf; allocation failure sticks as -ENOMEM in w->status.
 */
#ifndef RINGSCAN_FORMAT_THRIFT_H
#define RINGSCAN_FORMAT_THRIFT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/meta.h"

/* compact protocol type codes */
enum {
    PQ_T_STOP = 0,
    PQ_T_TRUE = 1,
    PQ_T_FALSE = 2,
    PQ_T_BYTE = 3,
    PQ_T_I16 = 4,
    PQ_T_I32 = 5,
    PQ_T_I64 = 6,
    PQ_T_DOUBLE = 7,
    PQ_T_BINARY = 8,
    PQ_T_LIST = 9,
    PQ_T_SET = 10,
    PQ_T_MAP = 11,
    PQ_T_STRUCT = 12,
};

#define PQ_THRIFT_MAX_DEPTH 64

typedef struct pq_tr {
    const uint8_t *base, *p, *end;
    int64_t base_offset;   /* file offset of base, for messages (-1 unknown) */
    int status;            /* 0 or the first error */
    uint32_t depth, max_depth;
    int16_t last_id;       /* previous field id in the current struct */
    int16_t id_stack[PQ_THRIFT_MAX_DEPTH + 1];
    pq_err *e;
} pq_tr;

/* Starts reading buf[0..len). base_offset is buf's file offset (or -1); max_depth 0 =
 * PQ_THRIFT_MAX_DEPTH (values above it are clamped). */
void pq_tr_init(pq_tr *r, const uint8_t *buf, size_t len, int64_t base_offset,
                uint32_t max_depth, pq_err *e);
/* Records a format error at the current position (first one wins); returns r->status. */
int pq_tr_fail(pq_tr *r, const char *what);
/* Bytes consumed so far. */
static inline size_t pq_tr_pos(const pq_tr *r) { return (size_t)(r->p - r->base); }
static inline size_t pq_tr_left(const pq_tr *r) { return (size_t)(r->end - r->p); }

/* Enter/leave a struct (saves/restores the field id; depth-limited). 0 or status. */
int pq_tr_struct_begin(pq_tr *r);
int pq_tr_struct_end(pq_tr *r);
/* Reads a field header: *type = PQ_T_STOP at the end of the struct. 0 or status. */
static inline int pq_tr_field(pq_tr *r, int16_t *id, uint8_t *type);

/* Raw primitives. */
static inline int pq_tr_varint(pq_tr *r, uint64_t *v); /* unsigned LEB128, <= 10 bytes */
int pq_tr_zigzag(pq_tr *r, int64_t *v);           /* zigzag varint */
int pq_tr_binary(pq_tr *r, const uint8_t **p, uint32_t *n); /* length-bounded bytes */
int pq_tr_double(pq_tr *r, double *v);

/* Integer value of a field or element of compact type `type` (BYTE, I16, I32 or I64; any
 * other type is a format error); range-checked into [lo, hi]. */
static inline int pq_tr_int(pq_tr *r, uint8_t type, int64_t lo, int64_t hi, int64_t *v);
/* Boolean field value from its header type (TRUE/FALSE; else a format error). */
int pq_tr_bool_field(pq_tr *r, uint8_t type, bool *v);
/* Boolean container element (one byte, invariant 5). */
int pq_tr_bool_elem(pq_tr *r, bool *v);

/* List/set header: element type and count (count <= bytes left, invariant 1; also <= max
 * when max > 0). Increments depth; call pq_tr_list_end after the elements. */
int pq_tr_list_begin(pq_tr *r, uint8_t *elem_type, uint32_t *count, uint32_t max);
int pq_tr_list_end(pq_tr *r);
/* Map header (count 0 has no type byte). Increments depth; pq_tr_list_end after. */
int pq_tr_map_begin(pq_tr *r, uint8_t *ktype, uint8_t *vtype, uint32_t *count);

/* Skips a value of the given type (any nesting, depth-limited). */
int pq_tr_skip(pq_tr *r, uint8_t type);
/* Checks that a field's type is `want` (else format error naming field `what`). */
int pq_tr_expect(pq_tr *r, uint8_t type, uint8_t want, const char *what);

/* ---- inline fast paths ------------------------------------------------------------------
 * A footer of 524 row groups x 16 columns is ~400k of these calls; out of line they were 70% of
 * a scan that statistics pruned entirely. Each fast path takes only the common well-formed
 * case with room to spare and leaves everything else, errors included, to the checked
 * out-of-line version (thrift.c), which reads again from the same position. */
int pq_tr_varint_slow(pq_tr *r, uint64_t *v);
int pq_tr_field_slow(pq_tr *r, int16_t *id, uint8_t *type);
int pq_tr_int_slow(pq_tr *r, uint8_t type, int64_t lo, int64_t hi, int64_t *v);

static inline int pq_tr_varint(pq_tr *r, uint64_t *v)
{
    if (r->status == 0 && r->end - r->p >= 10) {
        const uint8_t *p = r->p;
        uint64_t x = 0;
        for (unsigned i = 0; i < 9; i++) { /* a 10th byte (bit 63) is the slow path's */
            x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
            if (p[i] < 0x80) {
                r->p = p + i + 1;
                *v = x;
                return 0;
            }
        }
    }
    return pq_tr_varint_slow(r, v);
}

static inline int pq_tr_field(pq_tr *r, int16_t *id, uint8_t *type)
{
    if (r->status == 0 && r->p < r->end) {
        uint8_t b = *r->p, t = b & 0x0f;
        if (b == 0) { /* the struct's end */
            r->p++;
            *id = 0;
            *type = PQ_T_STOP;
            return 0;
        }
        int32_t fid = (int32_t)r->last_id + (b >> 4);
        if ((b >> 4) != 0 && t != PQ_T_STOP && t <= PQ_T_STRUCT && fid <= INT16_MAX) {
            r->p++;
            r->last_id = (int16_t)fid;
            *id = (int16_t)fid;
            *type = t;
            return 0;
        }
    }
    return pq_tr_field_slow(r, id, type);
}

static inline int pq_tr_int(pq_tr *r, uint8_t type, int64_t lo, int64_t hi, int64_t *v)
{
    if (type == PQ_T_I32 || type == PQ_T_I64) {
        const uint8_t *at = r->p;
        uint64_t u;
        if (pq_tr_varint(r, &u) == 0) {
            int64_t x = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
            bool fits = type == PQ_T_I64 || (x >= INT32_MIN && x <= INT32_MAX);
            if (fits && x >= lo && x <= hi) {
                *v = x;
                return 0;
            }
            r->p = at; /* out of range: the checked version reads it again and says why */
        }
    }
    return pq_tr_int_slow(r, type, lo, hi, v);
}

/* ---- writer ---------------------------------------------------------------------------- */

typedef struct pq_tw {
    pq_buf *out;
    int status;
    uint32_t depth;
    int16_t last_id;
    int16_t id_stack[PQ_THRIFT_MAX_DEPTH + 1];
} pq_tw;

/* Appends n bytes to b (grows geometrically); 0 or -ENOMEM. */
int pq_buf_append(pq_buf *b, const void *p, size_t n);

void pq_tw_init(pq_tw *w, pq_buf *out);
void pq_tw_struct_begin(pq_tw *w);
void pq_tw_struct_end(pq_tw *w); /* writes STOP */
void pq_tw_field(pq_tw *w, int16_t id, uint8_t type);
void pq_tw_varint(pq_tw *w, uint64_t v);
void pq_tw_zigzag(pq_tw *w, int64_t v);
void pq_tw_bytes(pq_tw *w, const void *p, size_t n); /* raw */
void pq_tw_binary(pq_tw *w, const void *p, uint32_t n);
void pq_tw_list_begin(pq_tw *w, uint8_t elem_type, uint32_t count);
void pq_tw_bool_elem(pq_tw *w, bool v);
/* Field shorthands. */
void pq_tw_i32_field(pq_tw *w, int16_t id, int32_t v);
void pq_tw_i64_field(pq_tw *w, int16_t id, int64_t v);
void pq_tw_bool_field(pq_tw *w, int16_t id, bool v);
void pq_tw_binary_field(pq_tw *w, int16_t id, const void *p, uint32_t n);
/* An empty struct as field id (union members such as TYPE_ORDER). */
void pq_tw_empty_struct_field(pq_tw *w, int16_t id);

#endif
