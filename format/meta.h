/* format/meta.h: Parquet file metadata decoded from byte buffers (no I/O): the footer, the
 * FileMetaData (schema as a tree and its leaf columns, row groups, column chunks, statistics,
 * key-value metadata), page headers, page indexes (ColumnIndex, OffsetIndex) and the bloom
 * filter header; and the thrift compact writers for the same structures.
 *
 * Invariants:
 *  1. Everything a pq_file_meta points to (columns, row groups, chunks, statistics bytes, names,
 *     key-value strings, the kept bytes of the footer's Statistics structs) lives in memory
 *     owned by the pq_file_meta; pq_file_meta_free releases all of it. No pointer into the
 *     input buffer survives a parse.
 *  2. The schema is a tree (nodes, pre-order, root excluded) of at most max_schema_depth levels
 *     whose groups' child counts add up to exactly the elements the footer lists; columns are
 *     its leaves in pre-order, each with its path and maximum definition and repetition
 *     levels. A column is `nested` unless it is a direct child of the root, REQUIRED or
 *     OPTIONAL, without a LIST/MAP annotation: only those go through the page decoders
 *     (max_def_level 0 or 1, no repetition levels); a nested leaf's chunk is decoded only
 *     with the other leaves of its field (format/column_nested.h: a whole top-level field or a
 *     struct path in one), never alone (scan/ refuses to filter or sort on one).
 *  3. Every row group has exactly ncolumns chunks, chunk i describing column i; every count,
 *     size and offset is >= 0 (checked at parse time, RINGSCAN_EFORMAT otherwise).
 *  4. pq_stats.usable is true only when min/max may be used for pruning under the rules in
 *     meta_stats.c (sort order known, not INT96, not NaN, not old parquet-mr byte arrays).
 *     min/max bytes are PLAIN encoded (byte arrays without their length prefix).
 *  5. Page headers, column/offset indexes and bloom headers parse from caller buffers; the
 *     index structures own their arrays (pq_column_index_free / pq_offset_index_free).
 *  6. A parsed footer's column chunk statistics are decoded on demand (pq_file_meta_stats):
 *     the parse walks each Statistics struct once (its thrift structure checked as every
 *     other field's: lengths, depth) and keeps its null count and a copy of its bytes
 *     (stats_raw, stats_len, in the arena); min, max and the rest are decoded, with
 *     meta_stats.c's rules, when a caller first asks for the column. Until then the chunk is
 *     stats_pending and only stats.has_null_count / stats.null_count are set
 *     (pq_file_meta_check checks them at open, as before). A Statistics struct whose fields
 *     have the wrong types fails only the caller that asks for its column. Statistics built
 *     in memory (the writer, tests) are never pending.
 */
#ifndef RINGSCAN_FORMAT_META_H
#define RINGSCAN_FORMAT_META_H
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/vec.h"

/* ---- limits ---------------------------------------------------------------------------- */

typedef struct pq_meta_limits {
    uint64_t max_meta_bytes;    /* footer metadata length cap; default 64 MiB */
    uint32_t max_schema_depth;  /* nesting depth of the schema tree; default 64 */
    uint32_t max_columns;       /* leaf columns; default 100,000 */
    uint32_t max_row_groups;    /* default 1,000,000 */
    uint32_t max_thrift_depth;  /* struct/list nesting in the thrift reader; default 64 */
} pq_meta_limits;

#define PQ_META_MAX_BYTES_DEFAULT (64u << 20)
/* Hard limits that pq_file_meta_check enforces, so that scan/ and filter/ can size masks,
 * splits and buffers from the footer with plain int64_t arithmetic. */
#define PQ_MAX_ROW_GROUP_ROWS (INT64_C(1) << 30)
#define PQ_MAX_CHUNK_UNCOMPRESSED_BYTES (INT64_C(1) << 48)

/* Fills l with the defaults above. */
void pq_meta_limits_default(pq_meta_limits *l);

/* ---- enums (values equal the thrift enums where one exists) ---------------------------- */

typedef enum {
    PQ_CODEC_UNCOMPRESSED = 0,
    PQ_CODEC_SNAPPY = 1,
    PQ_CODEC_GZIP = 2,
    PQ_CODEC_LZO = 3,
    PQ_CODEC_BROTLI = 4,
    PQ_CODEC_LZ4 = 5, /* Hadoop-framed or raw, see FACTS.md */
    PQ_CODEC_ZSTD = 6,
    PQ_CODEC_LZ4_RAW = 7,
} pq_codec;

typedef enum {
    PQ_ENC_PLAIN = 0,
    PQ_ENC_PLAIN_DICTIONARY = 2,
    PQ_ENC_RLE = 3,
    PQ_ENC_BIT_PACKED = 4,
    PQ_ENC_DELTA_BINARY_PACKED = 5,
    PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    PQ_ENC_DELTA_BYTE_ARRAY = 7,
    PQ_ENC_RLE_DICTIONARY = 8,
    PQ_ENC_BYTE_STREAM_SPLIT = 9,
} pq_encoding;

typedef enum {
    PQ_PAGE_DATA = 0,
    PQ_PAGE_INDEX = 1,
    PQ_PAGE_DICTIONARY = 2,
    PQ_PAGE_DATA_V2 = 3,
} pq_page_type;

typedef enum {
    PQ_REQUIRED = 0,
    PQ_OPTIONAL = 1,
    PQ_REPEATED = 2, /* only in a nested column (invariant 2) */
} pq_repetition;

/* Logical type of a leaf column: from the LogicalType union, else from ConvertedType. */
typedef enum {
    PQ_LOGICAL_NONE = 0,
    PQ_LOGICAL_STRING,
    PQ_LOGICAL_ENUM,
    PQ_LOGICAL_JSON,
    PQ_LOGICAL_BSON,
    PQ_LOGICAL_UUID,
    PQ_LOGICAL_DECIMAL,  /* decimal_scale, decimal_precision */
    PQ_LOGICAL_DATE,
    PQ_LOGICAL_TIME_MILLIS, /* is_adjusted_to_utc */
    PQ_LOGICAL_TIME_MICROS,
    PQ_LOGICAL_TIME_NANOS,
    PQ_LOGICAL_TIMESTAMP_MILLIS,
    PQ_LOGICAL_TIMESTAMP_MICROS,
    PQ_LOGICAL_TIMESTAMP_NANOS,
    PQ_LOGICAL_INT8,
    PQ_LOGICAL_INT16,
    PQ_LOGICAL_INT32,
    PQ_LOGICAL_INT64,
    PQ_LOGICAL_UINT8,
    PQ_LOGICAL_UINT16,
    PQ_LOGICAL_UINT32,
    PQ_LOGICAL_UINT64,
    PQ_LOGICAL_FLOAT16,
    PQ_LOGICAL_INTERVAL, /* legacy ConvertedType INTERVAL (FLBA 12) */
    PQ_LOGICAL_UNKNOWN,  /* the "null" logical type (always-null column) */
} pq_logical;

/* Column sort order used for statistics (ColumnOrder + logical type). */
typedef enum {
    PQ_ORDER_UNDEFINED = 0, /* no usable min/max */
    PQ_ORDER_SIGNED,
    PQ_ORDER_UNSIGNED,
} pq_sort_order;

typedef enum {
    PQ_BOUNDARY_UNORDERED = 0,
    PQ_BOUNDARY_ASCENDING = 1,
    PQ_BOUNDARY_DESCENDING = 2,
} pq_boundary_order;

/* ---- schema ---------------------------------------------------------------------------- */

/* Limits of the schema tree besides pq_meta_limits: the bytes of a nested leaf's dotted path
 * (a top-level field's path is its name, unbounded as before). */
#define PQ_SCHEMA_PATH_MAX 4096

/* What a schema element is. */
typedef enum {
    PQ_NODE_PRIMITIVE = 0, /* a leaf: one column */
    PQ_NODE_GROUP,         /* a group with no LIST/MAP annotation: a struct, or the repeated
                              middle level of a list or map */
    PQ_NODE_LIST,          /* a group annotated LIST */
    PQ_NODE_MAP,           /* a group annotated MAP or MAP_KEY_VALUE */
} pq_node_kind;

/* What Arrow (pyarrow) reads a node as: a repeated node is a list of itself whatever its
 * annotation says, a LIST group a list, a MAP group a map, another group a struct. */
typedef enum {
    PQ_SHAPE_FLAT = 0, /* a primitive that is not repeated */
    PQ_SHAPE_LIST,
    PQ_SHAPE_MAP,
    PQ_SHAPE_STRUCT,
} pq_shape;

typedef struct pq_schema_node {
    const char *name;        /* the element's own name as read: the file's, or DuckDB's
                                rename when an earlier sibling's differs from it in case
                                alone (`A` after `a` reads as `A_1`: format/meta_names.c) */
    const char *spelled;     /* the file's spelling when renamed, else NULL */
    const char *path;        /* dotted path from the root: "a.list.element"; a top-level
                                field's is its name; a leaf's equals its column's name */
    pq_node_kind kind;
    pq_shape shape;
    pq_repetition repetition;
    int32_t parent;          /* node index; -1 for a top-level field */
    int32_t top;             /* the top-level field it is in (itself at depth 1) */
    int32_t depth;           /* 1 for a top-level field */
    int32_t nchildren;       /* its children follow it (pre-order) */
    int32_t end;             /* one past its last descendant */
    int32_t column;          /* PRIMITIVE: its column index; else -1 */
    int32_t element;         /* LIST: the node a list item is, by the format's backward-
                                compatibility rules (three-level, or the two-level and
                                unannotated forms); MAP: its repeated key_value group;
                                -1 for other kinds and for a LIST or MAP whose shape is not
                                one the rules allow (described, never decoded) */
    int16_t max_def_level;   /* optional and repeated nodes from the root down to it */
    int16_t max_rep_level;   /* repeated nodes from the root down to it */
    int8_t shape_ok;         /* a top-level field that is not flat: 1 when the format can
                                read its shape (pq_nest_check, run once by
                                pq_file_meta_parse), -1 when it cannot; 0 not checked (flat,
                                not top-level, or a tree built another way) */
} pq_schema_node;

typedef struct pq_column_desc {
    const char *name;        /* dotted path (a top-level column: its name) */
    int32_t index;           /* position among the leaf columns */
    pq_physical physical;
    int32_t type_length;     /* FIXED_LEN_BYTE_ARRAY width; else 0 */
    pq_repetition repetition; /* the leaf's own; REPEATED only when nested */
    int16_t max_def_level;   /* flat: 0 (REQUIRED) or 1 (OPTIONAL) */
    int16_t max_rep_level;   /* flat: 0 */
    bool nested;             /* not a flat top-level column (invariant 2) */
    int32_t node;            /* its node in pq_file_meta.nodes */
    pq_logical logical;
    int32_t decimal_scale;   /* DECIMAL only */
    int32_t decimal_precision;
    bool is_adjusted_to_utc; /* TIME_* / TIMESTAMP_* */
    bool int_signed;         /* INT8..UINT64: true for INT*; bit width implied by logical */
    int32_t field_id;        /* -1 when absent */
    pq_sort_order sort_order; /* order of the logical/physical type (ColumnOrder doc) */
    uint8_t column_order;    /* ColumnOrder union member: 0 absent, 1 TYPE_ORDER,
                                2 IEEE_754_TOTAL_ORDER, 3 INT96_TIMESTAMP_ORDER, 255 unknown */
} pq_column_desc;

/* ---- statistics ------------------------------------------------------------------------ */

typedef struct pq_stats {
    bool has_min_max;        /* min/max present (from fields 5/6, or legacy 1/2 when allowed) */
    bool min_exact, max_exact; /* false when the writer truncated (is_*_value_exact false) */
    bool usable;             /* min/max may be used for pruning (invariant 4) */
    bool has_null_count;
    bool has_distinct;
    bool has_nan_count;
    const uint8_t *min;      /* PLAIN bytes (arena-owned for file meta) */
    const uint8_t *max;
    uint32_t min_len, max_len;
    int64_t null_count;
    int64_t distinct_count;
    int64_t nan_count;       /* FLOAT/DOUBLE/FLOAT16 when has_nan_count */
} pq_stats;

/* ---- row groups and column chunks ------------------------------------------------------ */

typedef struct pq_chunk_meta {
    pq_codec codec;
    uint32_t encodings_mask;  /* bit (1u << pq_encoding) per encoding listed */
    int64_t num_values;
    int64_t total_compressed_size;   /* includes page headers */
    int64_t total_uncompressed_size;
    int64_t data_page_offset;
    bool has_dictionary_page_offset; /* false also when the file wrote 0 (see FACTS.md) */
    int64_t dictionary_page_offset;
    bool has_index_page_offset;
    int64_t index_page_offset;
    pq_stats stats;                  /* read through pq_chunk_stats (invariant 6) */
    bool stats_pending;              /* a Statistics struct not decoded yet: its bytes
                                        stats_raw[0, stats_len), copied from the footer */
    const uint8_t *stats_raw;
    uint32_t stats_len;
    uint32_t stats_off;              /* where they were in the parsed buffer */
    bool has_offset_index;
    int64_t offset_index_offset;
    int32_t offset_index_length;
    bool has_column_index;
    int64_t column_index_offset;
    int32_t column_index_length;
    bool has_bloom_filter;
    int64_t bloom_filter_offset;
    bool has_bloom_filter_length;    /* often absent */
    int32_t bloom_filter_length;
} pq_chunk_meta;

typedef struct pq_row_group {
    int64_t num_rows;
    int64_t total_byte_size;
    bool has_file_offset;
    int64_t file_offset;
    int64_t total_compressed_size;   /* 0 when absent */
    pq_chunk_meta *chunks;           /* ncolumns entries */
} pq_row_group;

typedef struct pq_kv {
    const char *key;
    const char *value; /* NULL when absent */
    uint32_t value_len;
} pq_kv;

typedef struct pq_file_meta {
    int32_t version;
    int64_t num_rows;
    int32_t ncolumns;
    pq_column_desc *columns;
    int32_t nnodes;                  /* schema elements below the root (invariant 2) */
    pq_schema_node *nodes;
    bool has_nested;                 /* some column is nested */
    int32_t nrow_groups;
    pq_row_group *row_groups;
    int32_t nkv;
    pq_kv *kv;
    const char *created_by;          /* NULL when absent */
    bool column_orders_present;
    bool column_orders_known;        /* present and every entry a known order */
    uint8_t *stats_decoded;          /* per column: 1 once pq_file_meta_stats decoded all of
                                        its chunks (NULL: built in memory, nothing pending) */
    int64_t footer_offset;           /* the parsed buffer's file offset, for the messages of
                                        pq_file_meta_stats: -1 (unknown) after a parse; the
                                        caller that knows it sets it */
    struct pq_name_ref *col_index;   /* ncolumns refs to the columns by name, and nnodes to */
    struct pq_name_ref *node_index;  /* the nodes by path (format/name_index.h), built by
                                        pq_file_meta_parse; NULL (a meta built in memory):
                                        lookups scan the arrays */
    struct pq_arena *arena;          /* owns everything above */
} pq_file_meta;

/* The statistics of a chunk whose column pq_file_meta_stats decoded (asserted: invariant 6). */
static inline const pq_stats *pq_chunk_stats(const pq_chunk_meta *cm)
{
    assert(!cm->stats_pending);
    return &cm->stats;
}

/* ---- page headers ---------------------------------------------------------------------- */

typedef struct pq_page_header {
    pq_page_type type;
    int32_t uncompressed_size;
    int32_t compressed_size;
    bool has_crc;
    uint32_t crc;
    int32_t num_values;             /* data v1/v2 and dictionary */
    pq_encoding encoding;
    pq_encoding def_level_encoding; /* v1 only */
    pq_encoding rep_level_encoding; /* v1 only */
    int32_t num_nulls;              /* v2 */
    int32_t num_rows;               /* v2 */
    int32_t def_levels_byte_length; /* v2 */
    int32_t rep_levels_byte_length; /* v2 */
    bool is_compressed;             /* v2 (default true); v1/dictionary: true */
    bool dict_is_sorted;            /* dictionary */
    bool has_stats;
    pq_stats stats;                 /* min/max point into the parsed buffer; usable is false */
} pq_page_header;

/* ---- page index ------------------------------------------------------------------------ */

typedef struct pq_column_index {
    int32_t npages;
    bool *null_pages;
    const uint8_t **min; /* per page, into owned storage; NULL/0 for null pages */
    const uint8_t **max;
    uint32_t *min_len, *max_len;
    pq_boundary_order boundary_order;
    bool has_null_counts;
    int64_t *null_counts;
    void *storage;       /* owns everything above */
} pq_column_index;

typedef struct pq_page_location {
    int64_t offset;
    int32_t compressed_page_size; /* includes the page header */
    int64_t first_row_index;
} pq_page_location;

typedef struct pq_offset_index {
    int32_t npages;
    pq_page_location *pages;
} pq_offset_index;

/* ---- bloom filter ---------------------------------------------------------------------- */

typedef struct pq_bloom_header {
    int32_t num_bytes;      /* bitset length, a positive multiple of 32 */
    uint32_t header_len;    /* bytes of thrift header before the bitset */
} pq_bloom_header;

/* ---- growable byte buffer (writer output) ---------------------------------------------- */

typedef struct pq_buf {
    uint8_t *data;
    size_t len, cap;
} pq_buf;

void pq_buf_free(pq_buf *b);

/* ---- footer ---------------------------------------------------------------------------- */

/* Locates the FileMetaData given the last tail_len bytes of a file of file_size bytes.
 * Checks the trailing magic `PAR1` (`PARE` -> RINGSCAN_EUNSUPPORTED "file is encrypted"), the
 * leading magic when the tail reaches the file start, and bounds the metadata length by
 * max_meta_bytes (0 = default; RINGSCAN_ELIMIT naming the limit) and by the file size.
 * On success sets *meta_offset and *meta_len (file offsets) and *in_tail (the tail already holds
 * the metadata: it starts at tail[*meta_offset - (file_size - tail_len)]). Returns 0 or a
 * negative status with e filled. */
int pq_footer_locate(const uint8_t *tail, size_t tail_len, uint64_t file_size,
                     uint64_t max_meta_bytes, uint64_t *meta_offset, uint32_t *meta_len,
                     bool *in_tail, pq_err *e);

/* ---- file metadata --------------------------------------------------------------------- */

/* Parses a serialised FileMetaData (buf, len) into *out (limits NULL = defaults).
 * Errors: RINGSCAN_EFORMAT (malformed; a schema whose child counts do not match its elements
 * names the group), RINGSCAN_EUNSUPPORTED (encrypted columns, message and e->column name the
 * column), RINGSCAN_ELIMIT (schema deeper than max_schema_depth, more leaves than
 * max_columns, a nested path over PQ_SCHEMA_PATH_MAX), -ENOMEM. e->offset is the position
 * in buf where the decoding failed (the caller adds buf's offset in the file), -1 when no
 * position names the error. On error *out is left empty (nothing to free); on success free
 * with pq_file_meta_free. */
int pq_file_meta_parse(const uint8_t *buf, size_t len, const pq_meta_limits *limits,
                       pq_file_meta *out, pq_err *e);
/* Checks what only the whole footer shows (format/meta_check.c has the invariants it
 * establishes): each row group's rows within PQ_MAX_ROW_GROUP_ROWS and their sum equal to
 * num_rows, each chunk's values equal to its group's rows, its data page offset and compressed
 * size inside a file of file_size bytes, its uncompressed size within
 * PQ_MAX_CHUNK_UNCOMPRESSED_BYTES. Returns 0, RINGSCAN_EFORMAT or RINGSCAN_ELIMIT (message
 * names the row group, e->column the column). Call it after pq_file_meta_parse, before use.
 * One repair, the only write: a footer num_rows of 0 while the row groups hold rows (what
 * parquet-rs 0.3.0 wrote, repeated_no_annotation.parquet) becomes the groups' sum, as pyarrow
 * reads the groups' rows; any other disagreement stays EFORMAT. */
int pq_file_meta_check(pq_file_meta *m, uint64_t file_size, pq_err *e);
/* Decodes the statistics of column col (-1: every column) in every row group where they are
 * pending (invariant 6), in row group order, applying meta_stats.c's rules; a decoded chunk
 * stays decoded, and a column decoded whole is not looked at again (stats_decoded: a call
 * per chunk, as `ringscan meta` makes, costs O(1) each). Not thread-safe: one
 * caller at a time per m (scan/pqfile.c pqf_stats holds a file's lock). Returns 0,
 * RINGSCAN_EFORMAT when a Statistics struct has a field of the wrong type or out of its
 * range (e->column names the column, the message the row group, e->offset the field's file
 * offset when m->footer_offset is known, else -1), or -ENOMEM. A chunk that fails stays
 * pending: asking again fails again with the same error. */
int pq_file_meta_stats(pq_file_meta *m, int32_t col, pq_err *e);
/* Builds col_index and node_index (format/name_index.h) in m's arena, from the columns' names
 * and the nodes' paths as they stand (call it after every rename: pq_file_meta_parse does).
 * 0 or -ENOMEM (the indexes then stay as they were). */
int pq_file_meta_index(pq_file_meta *m);
/* Releases everything the metadata owns; safe on a zeroed struct; leaves it zeroed. */
void pq_file_meta_free(pq_file_meta *m);
/* Finds a leaf column by name (its dotted path); its index (the first so named) or -1.
 * O(log ncolumns) with the index a parse builds (col_index), else a scan. */
int32_t pq_file_meta_find_column(const pq_file_meta *m, const char *name);
/* Finds a schema node by dotted path; its index or -1. */
int32_t pq_file_meta_find_node(const pq_file_meta *m, const char *path);
/* Finds a schema node by a dotted path whose every name is spelled as the node's, else
 * differs in case alone from exactly one sibling's (SQL's rule, as DuckDB finds struct
 * fields: `s.A` for field `a`); the exact path first. Its index or -1. */
int32_t pq_file_meta_find_path(const pq_file_meta *m, const char *path);
/* The child of parent (-1: a top-level field) whose name begins path, ending at a '.' or at
 * its end: the one spelled so, else the only one differing in case alone (find_path's rule
 * for one step); *rest after its name. Its index, or -1. */
int32_t pq_file_meta_child(const pq_file_meta *m, int32_t parent, const char *path,
                           const char **rest);
/* How m spells top-level column or field name: name when m has one so spelled, else (unless
 * exact) the only one whose name differs from it in case alone (as SQL identifiers and
 * DuckDB's dataset names match), else NULL. The result is name or a string of m's. */
const char *pq_file_meta_top_name(const pq_file_meta *m, const char *name, bool exact);
/* The column of cols[0..n) named name (a NULL name is none's) as SQL identifiers match
 * (DuckDB's, case-insensitive): the one spelled as name, else the only one whose name differs
 * from it in case alone. Its index, -1 when none matches, -2 when several do so only. */
int32_t pq_columns_find(const pq_column_desc *cols, int32_t n, const char *name);
/* How the file spells node nd's name (its name unless the reader renamed it). */
static inline const char *pq_node_spelling(const pq_schema_node *nd)
{
    return nd->spelled ? nd->spelled : nd->name;
}
/* "list", "map", "struct" (pyarrow's words) or "flat". */
const char *pq_shape_name(pq_shape s);
/* Value of a key-value metadata key or NULL. */
const pq_kv *pq_file_meta_find_kv(const pq_file_meta *m, const char *key);

/* Text names for printing (static storage; "?" for unknown values). */
const char *pq_physical_name(pq_physical t);
const char *pq_logical_name(pq_logical l);
const char *pq_codec_name(pq_codec c);
const char *pq_encoding_name(pq_encoding enc);
const char *pq_page_type_name(pq_page_type t);

/* ---- page header and indexes ----------------------------------------------------------- */

/* Parses one PageHeader at the start of buf. Returns the header length in bytes (> 0) or a
 * negative status. Sizes and counts are checked >= 0. Page statistics point into buf. */
int pq_page_header_parse(const uint8_t *buf, size_t len, pq_page_header *h, pq_err *e);

/* Parses a ColumnIndex; on success the index owns its arrays (pq_column_index_free).
 * Checks that all per-page lists have the same length. */
int pq_column_index_parse(const uint8_t *buf, size_t len, pq_column_index *ci, pq_err *e);
void pq_column_index_free(pq_column_index *ci);

/* Parses an OffsetIndex; checks offsets and first_row_index non-decreasing, sizes > 0. */
int pq_offset_index_parse(const uint8_t *buf, size_t len, pq_offset_index *oi, pq_err *e);
void pq_offset_index_free(pq_offset_index *oi);
/* Whether a parsed offset index can be trusted for the chunk it describes: its pages tile the
 * chunk's nrows rows (first row 0, strictly increasing, each below nrows) and its byte ranges
 * lie, in order and without overlap, inside [chunk_off, chunk_off + chunk_len) with positive
 * sizes. An index that fails is to be ignored (the chunk read whole), not trusted. */
bool pq_offset_index_valid(const pq_offset_index *oi, int64_t nrows, uint64_t chunk_off,
                           uint64_t chunk_len);

/* ---- writers (thrift compact into a growable buffer; append to out) --------------------- */

/* Each returns 0 or -ENOMEM; the input must satisfy the invariants above (asserted). The
 * FileMetaData writer emits the schema as a flat root with ncolumns leaves (m->has_nested
 * false: asserted), column_orders as
 * TypeDefinedOrder when column_orders_known, min_value/max_value statistics (a parsed
 * footer's decoded first: no chunk may be stats_pending, asserted). */
int pq_write_file_meta(pq_buf *out, const pq_file_meta *m);
int pq_write_page_header(pq_buf *out, const pq_page_header *h);
int pq_write_column_index(pq_buf *out, const pq_column_index *ci);
int pq_write_offset_index(pq_buf *out, const pq_offset_index *oi);
int pq_write_bloom_header(pq_buf *out, int32_t num_bytes);

/* ---- metadata builder for writers ------------------------------------------------------- */

/* Copies n bytes into m's arena (creating it); returns the copy or NULL on -ENOMEM. Writers
 * use it to fill a pq_file_meta they then serialise and free with pq_file_meta_free. */
void *pq_file_meta_alloc(pq_file_meta *m, size_t n);

#endif
