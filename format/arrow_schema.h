/* format/arrow_schema.h: the Arrow schema a writer stored in a Parquet file's key-value
 * metadata under "ARROW:schema" (base64 of an Arrow IPC Schema message, a flatbuffer), read
 * for what Parquet's own schema loses: timestamp time zones, large types, dictionary
 * encoding, extension names and field/schema metadata.
 *
 * Only what ringscan exports is read: the schema's fields and their children (to
 * PQA_DEPTH_MAX levels), each field's name, type tag, nullability, timestamp unit and zone,
 * decimal bit width, fixed-size list size, dictionary flag and index type, and custom
 * metadata; the schema's custom metadata. No I/O: the parse works on the value's bytes alone
 * (fuzz target tests/fuzz/fuzz_arrow_schema.c).
 *
 * Invariants:
 *   1. every offset read from the flatbuffer is checked against the buffer before use
 *      (tables, vtables, strings, vectors); an offset out of bounds is RINGSCAN_EFORMAT;
 *   2. every string handed out is NUL-terminated inside the decoded buffer (flatbuffers
 *      always write the terminator; a string without one is refused);
 *   3. counts are bounded: PQA_FIELDS_MAX fields in all (children included), PQA_KV_MAX
 *      metadata pairs in all, PQA_DEPTH_MAX levels of children, PQA_B64_MAX base64 bytes;
 *   4. fields[0, nfields) are the top-level fields; a field's children are the nchildren
 *      consecutive entries from first_child, always after it (so a walk down ends). */
#ifndef RINGSCAN_FORMAT_ARROW_SCHEMA_H
#define RINGSCAN_FORMAT_ARROW_SCHEMA_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/name_index.h"

enum { PQA_FIELDS_MAX = 1 << 16, PQA_KV_MAX = 1 << 12, PQA_B64_MAX = 64 << 20, PQA_DEPTH_MAX = 64 };

/* The Type union's tags of Arrow's Schema.fbs (those ringscan looks at). */
enum {
    PQA_TYPE_NONE = 0,
    PQA_TYPE_NULL = 1,
    PQA_TYPE_INT = 2,
    PQA_TYPE_BINARY = 4,
    PQA_TYPE_UTF8 = 5,
    PQA_TYPE_DECIMAL = 7,
    PQA_TYPE_TIMESTAMP = 10,
    PQA_TYPE_LIST = 12,
    PQA_TYPE_STRUCT = 13,
    PQA_TYPE_FIXED_SIZE_BINARY = 15,
    PQA_TYPE_FIXED_SIZE_LIST = 16,
    PQA_TYPE_MAP = 17,
    PQA_TYPE_DURATION = 18,
    PQA_TYPE_LARGE_BINARY = 19,
    PQA_TYPE_LARGE_UTF8 = 20,
    PQA_TYPE_LARGE_LIST = 21,
    PQA_TYPE_BINARY_VIEW = 23,
    PQA_TYPE_UTF8_VIEW = 24,
    PQA_TYPE_LIST_VIEW = 25,
    PQA_TYPE_LARGE_LIST_VIEW = 26
};

typedef struct pqa_kv {
    const char *key;    /* NUL-terminated, in the schema's buffer */
    const char *value;
    uint32_t key_len, value_len;
} pqa_kv;

typedef struct pqa_field {
    const char *name;     /* "" when absent */
    uint8_t type;         /* PQA_TYPE_* (any Type tag, 0..255) */
    bool nullable;
    bool dictionary;      /* the field is dictionary-encoded in Arrow */
    int16_t ts_unit;      /* TIMESTAMP and DURATION: 0 s, 1 ms, 2 us, 3 ns; else -1 */
    const char *timezone; /* TIMESTAMP with a zone; else NULL */
    int32_t param;        /* DECIMAL: bit width (32, 64, 128, 256); FIXED_SIZE_LIST: its size;
                             INT: bit width; else 0 */
    int32_t dec_precision, dec_scale; /* DECIMAL: its precision and scale; else 0 */
    int8_t dict_index_bits; /* a dictionary's index type: 8, 16, 32 or 64 bits (32 when the
                             writer gave none) */
    bool dict_index_signed;
    bool dict_ordered;
    int32_t nchildren;
    int32_t first_child;  /* index in the schema's fields of the first child (invariant 4) */
    int32_t nmeta;
    pqa_kv *meta;         /* custom_metadata, nmeta pairs */
} pqa_field;

typedef struct pqa_schema {
    uint8_t *buf;         /* the decoded message (owned) */
    int32_t nfields;      /* top-level fields */
    int32_t nall;         /* every field, children included */
    pqa_field *fields;    /* nall fields: the top-level ones first, in order (invariant 4) */
    int32_t nmeta;
    pqa_kv *meta;         /* the schema's custom_metadata */
    pqa_kv *kv_mem;       /* every pqa_kv of the schema (owned) */
    pq_name_ref *by_name; /* the nfields top-level fields by name (owned; NULL: a schema built
                             by hand, pqa_schema_field scans) */
} pqa_schema;

/* Decodes base64 text b64[0..len) (standard alphabet, '=' padding) into a new buffer *out of
 * *out_len bytes (caller frees). 0, RINGSCAN_EFORMAT (a character outside the alphabet, a bad
 * length), RINGSCAN_ELIMIT (over PQA_B64_MAX) or -ENOMEM; e says which. */
int pqa_base64_decode(const char *b64, size_t len, uint8_t **out, size_t *out_len, pq_err *e);

/* Parses an encapsulated IPC message (an optional 0xFFFFFFFF continuation, its int32 length,
 * then the flatbuffer Message whose header is a Schema) from msg[0..len) into *out, which
 * takes ownership of msg on success (pqa_schema_free frees it) and leaves it to the caller on
 * failure. 0, RINGSCAN_EFORMAT (offsets out of bounds, not a Schema message, a string
 * without its terminator; e gives the byte offset in msg), RINGSCAN_ELIMIT or -ENOMEM. */
int pqa_schema_parse(uint8_t *msg, size_t len, pqa_schema *out, pq_err *e);

/* base64 decode then pqa_schema_parse: the value of an "ARROW:schema" key. */
int pqa_schema_from_b64(const char *b64, size_t len, pqa_schema *out, pq_err *e);

/* Frees what the schema owns and zeroes it (a zeroed schema is a no-op). */
void pqa_schema_free(pqa_schema *s);

/* The first top-level field named name, or NULL (O(log nfields) once parsed). */
const pqa_field *pqa_schema_field(const pqa_schema *s, const char *name);
/* Child i of field f (0 <= i < f->nchildren). */
const pqa_field *pqa_field_child(const pqa_schema *s, const pqa_field *f, int32_t i);

#endif
