/* ringscan.h: the public C API of ringscan, an embeddable Parquet scan runtime.
 *
 * Use: ringscan_open() a file; fill ringscan_options (ringscan_options_init, then columns,
 * filter text, limit, policy, threads, io backend); ringscan_scan_start(); pull batches with
 * ringscan_scan_next() as Arrow C Data Interface arrays (a struct array whose children are
 * the projected columns, one ArrowSchema for the scan) or wrap the scan as an
 * ArrowArrayStream; read ringscan_scan_stats(); ringscan_scan_free(); ringscan_close().
 *
 * Errors: every call that can fail returns an int status: 0 on success, a negative errno or
 * a RINGSCAN_E* code on failure, and fills the caller's ringscan_error (may be NULL) with
 * the status and a message naming the file, the byte offset and the column where they apply.
 * Every function checks its arguments: a NULL pointer where an object is required, or an
 * option outside its documented range, returns -EINVAL with a message saying which (functions
 * without a status return -EINVAL as their value or do nothing; NULL to a free is a no-op).
 *
 * Threads: a ringscan_file may be shared by scans on several threads (it is read-only after
 * open, but for its column chunks' statistics, decoded under the file's lock when first
 * asked for: ringscan_file_stats). A ringscan_scan is used by one thread at a time (but
 * ringscan_scan_stop, which any thread may call to cancel it); its own executor threads (one per
 * core asked for) run inside it and stop in ringscan_scan_free. */
#ifndef RINGSCAN_H
#define RINGSCAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden and a version script (ringscan.map): only
 * what is declared here with RINGSCAN_API is exported by libringscan.so. */
#ifndef RINGSCAN_API
#define RINGSCAN_API __attribute__((visibility("default")))
#endif

/* The version of this header: MAJOR.MINOR.PATCH. The shared library's SONAME carries the
 * major version (libringscan.so.0); while it is 0, a minor version may change the ABI, and
 * the CHANGELOG says where. ringscan_version() is the library's own, to compare at run time
 * (a host built against one header and loading another library). */
#define RINGSCAN_VERSION_MAJOR 0
#define RINGSCAN_VERSION_MINOR 1
#define RINGSCAN_VERSION_PATCH 0
#define RINGSCAN_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if */
#define RINGSCAN_VERSION (RINGSCAN_VERSION_MAJOR * 10000 + RINGSCAN_VERSION_MINOR * 100 + RINGSCAN_VERSION_PATCH)

/* The library's RINGSCAN_VERSION (not the header's); ringscan_version_string() its text. */
RINGSCAN_API int ringscan_version(void);
RINGSCAN_API const char *ringscan_version_string(void);

/* Files and scans alive in this process (opened or started and not yet freed, counting those
 * a live stream holds): a host's leak check, e.g. that dropping an unread stream freed it. */
RINGSCAN_API int64_t ringscan_live_objects(void);

/* Frees the read buffers the library keeps between scans (up to 128 MiB process-wide: a scan
 * that ends hands its buffers on so the next scan reads into memory already faulted in), the
 * decode buffers kept the same way (up to 64 MiB; kept only while no scan runs, so this frees
 * them only then), and the coroutine stacks (up to 64 mappings of 260 KiB address space each).
 * Thread-safe; for a host that wants the memory back while no scan runs. */
RINGSCAN_API void ringscan_release_memory(void);

/* ABI rules: enum values are fixed (written out; new ones are appended). Structs the caller
 * passes in (ringscan_options) start with their size, set by ringscan_options_init from the
 * header the caller was built with: new fields are appended, and a library reading an older
 * caller's struct takes the defaults for fields past its size. Structs the library fills
 * (ringscan_stats, ringscan_*_info, ringscan_chunk_*, ringscan_topk_bound, ringscan_kv) only
 * grow at their end, and are written up to the size of this header's definition: build
 * against the header of the library you load (or check ringscan_version() first). */

/* Status codes beyond negative errno values. */
enum {
    RINGSCAN_EFORMAT = -1000,      /* the file is not valid Parquet (message says where) */
    RINGSCAN_EUNSUPPORTED = -1001, /* valid but not supported: nested, encrypted, codec */
    RINGSCAN_ELIMIT = -1002,       /* a configured limit was exceeded (message names it) */
    RINGSCAN_EPARSE = -1003,       /* a filter expression did not parse */
    RINGSCAN_ECHECKSUM = -1004     /* a page CRC did not match */
};

/* Text for a status code (static storage). */
RINGSCAN_API const char *ringscan_strerror(int status);
/* Writes path into out (cap bytes, truncated) as it may be shown to a user: a URL without the
 * userinfo ("user:password@") of its authority, any other path as it is. Every message
 * ringscan builds names paths this way. */
RINGSCAN_API void ringscan_path_shown(char *out, size_t cap, const char *path);
/* True when path is a pattern the dataset calls list (a local glob; '*', '?' or '[' in an s3://
 * URL; '*' or '[' in an http(s) URL's path, whose '?' starts its query) rather than one file. */
RINGSCAN_API bool ringscan_path_is_pattern(const char *path);

typedef struct ringscan_error {
    int status;
    char message[512];
} ringscan_error;

/* ---- Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html) ---- */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};
#endif
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};
#endif

/* ---- files ---- */

typedef struct ringscan_file ringscan_file;

/* Opens a Parquet file and reads its footer (one tail read of up to 1 MiB, a second only when
 * the metadata is larger; the page index, when the tail read holds it, is kept for planning).
 * Returns 0 and *out (ringscan_close), or a status with err filled.
 * Encrypted files are refused with RINGSCAN_EUNSUPPORTED. A file with nested columns (lists,
 * maps, structs) opens: its schema tree is described (ringscan_file_field) and every field
 * scans (ringscan_scan_start), but a LIST or MAP whose shape the format does not allow (which
 * pyarrow refuses too). A MAP whose key is OPTIONAL (parquet-mr 1.12 wrote such) scans as a
 * map with a non-nullable key; a null key in a row the scan returns fails it
 * (RINGSCAN_EFORMAT naming the row, row group, map and key column); under a limit, rows past
 * it are not checked. */
RINGSCAN_API int ringscan_open(const char *path, ringscan_file **out, ringscan_error *err);
/* Drops the opener's hold on f. A scan of f holds f too: f is closed when the last of them
 * ends (ringscan_close may come before ringscan_scan_free). NULL is a no-op. */
RINGSCAN_API void ringscan_close(ringscan_file *f);
/* Rows and leaf columns of the file, nested leaves included (-EINVAL when f is NULL). */
RINGSCAN_API int64_t ringscan_file_rows(const ringscan_file *f);
RINGSCAN_API int ringscan_file_columns(const ringscan_file *f);

/* ---- metadata ----
 * What the footer says, read at ringscan_open (these calls do no I/O). Every pointer a call
 * fills (names, strings, statistics bytes) points into f's metadata: valid until
 * ringscan_close(f), never to be freed by the caller. Each call returns 0, or -EINVAL (out
 * untouched) when f or out is NULL or an index is outside the file's counts. */

/* Parquet physical types (the thrift Type values). */
typedef enum ringscan_physical {
    RINGSCAN_BOOLEAN = 0,
    RINGSCAN_INT32 = 1,
    RINGSCAN_INT64 = 2,
    RINGSCAN_INT96 = 3,
    RINGSCAN_FLOAT = 4,
    RINGSCAN_DOUBLE = 5,
    RINGSCAN_BYTE_ARRAY = 6,
    RINGSCAN_FIXED_LEN_BYTE_ARRAY = 7
} ringscan_physical;

/* The footer's ColumnOrder list. */
typedef enum ringscan_column_orders {
    RINGSCAN_ORDERS_ABSENT = 0,  /* no list: statistics follow the legacy rules */
    RINGSCAN_ORDERS_UNKNOWN = 1, /* a list with an order this reader does not know */
    RINGSCAN_ORDERS_KNOWN = 2    /* a list of known orders */
} ringscan_column_orders;

typedef struct ringscan_file_info {
    int64_t rows;
    int columns;                 /* leaf columns (ringscan_file_column) */
    int row_groups;              /* ringscan_file_row_group */
    int kv;                      /* key-value metadata entries (ringscan_file_kv) */
    int32_t version;             /* FileMetaData.version */
    const char *created_by;      /* NULL when absent */
    ringscan_column_orders column_orders;
} ringscan_file_info;

RINGSCAN_API int ringscan_file_info_get(const ringscan_file *f, ringscan_file_info *out);

typedef struct ringscan_column_info {
    const char *name;            /* leaf name: its dotted path, "a.list.element" for a leaf
                                    of a nested field (ringscan_file_field), the name itself
                                    for a top-level column */
    ringscan_physical physical;
    const char *physical_name;   /* "BOOLEAN", "INT32", ..., "FIXED_LEN_BYTE_ARRAY" */
    const char *logical_name;    /* "NONE", "STRING", "DECIMAL", "DATE", "TIMESTAMP_MICROS",
                                    "INT8", "UINT32", "FLOAT16", ...: from the LogicalType,
                                    else the ConvertedType */
    bool optional;               /* false: REQUIRED */
    bool adjusted_to_utc;        /* TIME_* and TIMESTAMP_* adjusted to UTC; else false */
    int32_t type_length;         /* FIXED_LEN_BYTE_ARRAY width in bytes, else 0 */
    int32_t precision, scale;    /* DECIMAL, else 0 */
    int32_t field_id;            /* -1 when absent */
} ringscan_column_info;

/* Leaf column i (0 <= i < columns). */
RINGSCAN_API int ringscan_file_column(const ringscan_file *f, int i, ringscan_column_info *out);

/* The schema as a tree: its fields (SchemaElements below the root) in pre-order, a group's
 * descendants right after it. A flat file's fields are its columns, field i = column i. */
typedef enum ringscan_field_kind {
    RINGSCAN_FIELD_PRIMITIVE = 0, /* a leaf: column `column` */
    RINGSCAN_FIELD_GROUP = 1,     /* a group without annotation: a struct, or the repeated
                                     middle level of a list or map */
    RINGSCAN_FIELD_LIST = 2,      /* a group annotated LIST */
    RINGSCAN_FIELD_MAP = 3        /* a group annotated MAP or MAP_KEY_VALUE */
} ringscan_field_kind;

typedef struct ringscan_field_info {
    const char *name;            /* the element's own name */
    const char *path;            /* dotted path from the root ("a.list.element"); a top-level
                                    field's is its name */
    ringscan_field_kind kind;
    const char *arrow_kind;      /* what Arrow reads it as: "list" (repeated, or LIST), "map",
                                    "struct" (another group) or "flat" (a primitive) */
    int repetition;              /* 0 REQUIRED, 1 OPTIONAL, 2 REPEATED */
    int depth;                   /* 1 for a top-level field */
    int parent;                  /* field index; -1 for a top-level field */
    int children;                /* direct children (they follow it) */
    int end;                     /* one past the index of its last descendant */
    int column;                  /* PRIMITIVE: its column (ringscan_file_column); else -1 */
    int max_definition_level;    /* optional and repeated fields from the top down to it */
    int max_repetition_level;    /* repeated fields from the top down to it */
    bool nested;                 /* in a top-level field that is not flat: a scan cannot
                                    filter or sort on it, and projects it as part of its
                                    top-level field or of a struct path in it
                                    (ringscan_scan_start; RINGSCAN_EUNSUPPORTED naming it
                                    otherwise) */
} ringscan_field_info;

/* Fields of the schema tree (-EINVAL when f is NULL). */
RINGSCAN_API int ringscan_file_fields(const ringscan_file *f);
/* Field i (0 <= i < ringscan_file_fields(f)). */
RINGSCAN_API int ringscan_file_field(const ringscan_file *f, int i, ringscan_field_info *out);

typedef struct ringscan_kv {
    const char *key;
    const char *value;           /* NULL when absent; not NUL-terminated in general: value_len */
    uint32_t value_len;
} ringscan_kv;

/* Key-value metadata entry i (0 <= i < kv), in file order. */
RINGSCAN_API int ringscan_file_kv(const ringscan_file *f, int i, ringscan_kv *out);

typedef struct ringscan_row_group_info {
    int64_t rows;
    int64_t total_byte_size;     /* uncompressed bytes, as the writer recorded them */
    int64_t total_compressed_size; /* 0 when absent */
} ringscan_row_group_info;

/* Row group g (0 <= g < row_groups). */
RINGSCAN_API int ringscan_file_row_group(const ringscan_file *f, int g, ringscan_row_group_info *out);

/* A column chunk's Statistics. min and max are PLAIN-encoded values (byte arrays without
 * their length prefix); ringscan_stat_text prints one. */
typedef struct ringscan_chunk_stats {
    bool has_min_max;
    bool min_exact, max_exact;   /* false when the writer truncated the value */
    bool usable;                 /* this reader prunes with min/max (known order, not NaN, ...) */
    const uint8_t *min, *max;
    uint32_t min_len, max_len;
    bool has_null_count, has_distinct_count, has_nan_count;
    int64_t null_count, distinct_count, nan_count;
} ringscan_chunk_stats;

typedef struct ringscan_chunk_info {
    int codec;                   /* thrift CompressionCodec value */
    const char *codec_name;      /* "UNCOMPRESSED", "SNAPPY", "ZSTD", ... */
    uint32_t encodings;          /* bit e set: Encoding e is listed (ringscan_encoding_name) */
    int64_t num_values;
    int64_t compressed_size, uncompressed_size; /* page headers included */
    int64_t data_page_offset;
    int64_t dictionary_page_offset; /* -1 when absent (or written as 0) */
    bool has_offset_index, has_column_index, has_bloom_filter;
    ringscan_chunk_stats stats;
} ringscan_chunk_info;

/* The chunk of column c in row group g. Its statistics are column c's, decoded by
 * ringscan_file_stats on first ask: when they are malformed in any row group, returns that
 * status (RINGSCAN_EFORMAT; ringscan_file_stats gives the message), or -ENOMEM when the
 * decode ran out of memory, with out filled and its stats zeroed. */
RINGSCAN_API int ringscan_file_chunk(const ringscan_file *f, int g, int c, ringscan_chunk_info *out);

/* Decodes the statistics of column c (-1: every column) in every row group, once. A footer's
 * column chunk statistics are decoded when first asked for (a filter or an ORDER BY on the
 * column, ringscan_count, ringscan_file_chunk, this call), not by ringscan_open, so a
 * malformed Statistics struct fails only what reads it. Thread-safe. Returns 0, -EINVAL (f
 * NULL, or c neither -1 nor a column), RINGSCAN_EFORMAT (a Statistics field of the wrong type
 * or out of its range: err names the file, the byte offset and the column), or -ENOMEM. */
RINGSCAN_API int ringscan_file_stats(const ringscan_file *f, int c, ringscan_error *err);

/* The name of Parquet Encoding e ("PLAIN", "RLE_DICTIONARY", ...; static storage), "?" for a
 * value this reader does not know (any e outside 0..9 included). */
RINGSCAN_API const char *ringscan_encoding_name(int e);

/* Writes a statistics value of column c (value, len: PLAIN bytes as in ringscan_chunk_stats)
 * as the JSON value `ringscan meta` prints: booleans, integers (unsigned for UINT*
 * columns) and floats (%.17g; NaN as "NaN") bare, text and plain byte arrays as escaped
 * JSON strings, anything else (or a length that does not fit the type) as "0x<hex>".
 * snprintf's contract: writes at most cap - 1 bytes and a NUL into buf (buf may be NULL when
 * cap is 0) and returns the length of the whole text; -EINVAL when f is NULL, c is not a
 * column, or value (with len > 0) or buf (with cap > 0) is NULL; -EOVERFLOW when the text
 * would be longer than INT_MAX (never for a value of f's own statistics: a footer is at most
 * 64 MiB). */
RINGSCAN_API int ringscan_stat_text(const ringscan_file *f, int c, const uint8_t *value, uint32_t len,
                                    char *buf, size_t cap);

/* Writes the same value as a person reads it in the column's logical type (the text form of
 * `ringscan meta`): DATE as YYYY-MM-DD; TIMESTAMP_* as "YYYY-MM-DD HH:MM:SS" with 3, 6 or 9
 * fraction digits for the unit and "Z" when adjusted to UTC; TIME_* as HH:MM:SS.fff...;
 * DECIMAL with its scale ("-12.34", unscaled values of up to 16 bytes); INT96 as an Impala
 * timestamp; FLOAT16, FLOAT and DOUBLE as the shortest text that reads back the same (NaN,
 * inf); UUID as 8-4-4-4-12 hex; text (and unannotated byte arrays that are valid UTF-8) as
 * an escaped JSON string; booleans and integers as ringscan_stat_text; anything else, or a
 * length the type does not have, as bare 0x<hex>. Contract and errors as ringscan_stat_text. */
RINGSCAN_API int ringscan_stat_display(const ringscan_file *f, int c, const uint8_t *value, uint32_t len,
                                       char *buf, size_t cap);

/* ---- scans ---- */

typedef enum ringscan_policy {
    RINGSCAN_POLICY_LAZY = 0,     /* submit a conjunct's reads when its input mask is not all-false */
    RINGSCAN_POLICY_EAGER = 1,    /* submit every read of a split when it starts */
    RINGSCAN_POLICY_ADAPTIVE = 2  /* speculate where the input was rarely all-false (default) */
} ringscan_policy;

typedef enum ringscan_io {
    RINGSCAN_IO_AUTO = 0,  /* io_uring, else pread (said once on stderr and in the stats) */
    RINGSCAN_IO_URING = 1, /* io_uring or fail */
    RINGSCAN_IO_PREAD = 2  /* pread */
} ringscan_io;

/* How a local file's bytes reach the decoders (ringscan_open_with, ringscan_dataset_open);
 * results are identical under both. A remote or simulated store ignores it. */
typedef enum ringscan_read_mode {
    RINGSCAN_READ_COPY = 0, /* buffered reads on io_uring (or pread) into the scan's buffers:
                               the kernel copies the page cache's bytes (default) */
    RINGSCAN_READ_MMAP = 1  /* the file mapped read-only; a read whose bytes are cached
                               populates the mapping's page tables on io_uring's workers and
                               the decoders read the page cache itself (no copy); one that is
                               not cached is copied as in RINGSCAN_READ_COPY. Installs a
                               SIGBUS handler (chained to the host's) so that a file truncated
                               while mapped makes the scan fail, naming the file, instead of
                               killing the process */
} ringscan_read_mode;

/* ---- filters as expression trees -------------------------------------------------------
 * What an engine's planner pushes down, built without printing SQL: leaves from the
 * constructors below, operators from ringscan_expr_call. The tree means exactly what the
 * same filter as text means (README's grammar; the same code types both). A tree is
 * immutable once built; a call owns its operands (free the root only). Every constructor
 * returns NULL when out of memory, and a call given a NULL operand returns NULL (freeing the
 * others), so a tree can be built in one expression and checked once. */
typedef struct ringscan_expr ringscan_expr;

typedef enum ringscan_expr_op {
    RINGSCAN_EXPR_AND = 0,              /* (a, b, ...): SQL three-valued AND */
    RINGSCAN_EXPR_OR = 1,               /* (a, b, ...) */
    RINGSCAN_EXPR_NOT = 2,              /* (a) */
    RINGSCAN_EXPR_EQ = 3,               /* (x, y): a column and a literal (either side), two
                                           columns, year() / date_trunc() and a literal, or
                                           value expressions (ADD .. CAST below); a null
                                           operand makes it unknown */
    RINGSCAN_EXPR_NE = 4,
    RINGSCAN_EXPR_LT = 5,
    RINGSCAN_EXPR_LE = 6,
    RINGSCAN_EXPR_GT = 7,
    RINGSCAN_EXPR_GE = 8,
    RINGSCAN_EXPR_BETWEEN = 9,          /* (x, low, high): inclusive; x a column or a date
                                           function, low and high literals; or any of them
                                           value expressions */
    RINGSCAN_EXPR_IN = 10,              /* (x, literal, ...): 1 to 4096 literals (64 when
                                           any operand is a value expression) */
    RINGSCAN_EXPR_IS_NULL = 11,         /* (column) */
    RINGSCAN_EXPR_IS_NOT_NULL = 12,     /* (column) */
    RINGSCAN_EXPR_IS_DISTINCT_FROM = 13, /* (column, literal): null is a value */
    RINGSCAN_EXPR_IS_NOT_DISTINCT_FROM = 14, /* (column, literal) */
    RINGSCAN_EXPR_LIKE = 15,            /* (column, pattern[, escape]): % any run, _ one
                                           character; strings */
    RINGSCAN_EXPR_ILIKE = 16,           /* the same, ASCII letters folded */
    RINGSCAN_EXPR_STARTS_WITH = 17,     /* (column, string) */
    RINGSCAN_EXPR_YEAR = 18,            /* (column): a DATE or TIMESTAMP's year, as an operand
                                           of a comparison, BETWEEN or IN only */
    RINGSCAN_EXPR_DATE_TRUNC = 19,      /* (unit string: year, quarter, month, day; column) */
    RINGSCAN_EXPR_MONTH = 20,           /* (column): 1..12, as an operand like YEAR */
    RINGSCAN_EXPR_DAY = 21,             /* (column): the day of the month */
    RINGSCAN_EXPR_QUARTER = 22,         /* (column): 1..4 */
    /* Value expressions, operands of a comparison, BETWEEN or IN. Types follow DuckDB:
     * integers keep their width, decimals their precision and scale (+ -: the larger scale;
     * *: the scales added), FLOAT or DOUBLE with any floating operand; / divides in
     * floating point (x / 0 is infinite or NaN). Exact arithmetic is carried out in 128 bits
     * and fails only past 38 digits ("out of range" when the scan evaluates it). DATE - DATE
     * is the days between them, DATE +- an integer a date. A constant division by zero is
     * refused when the tree is typed. */
    RINGSCAN_EXPR_ADD = 23,             /* (x, y) */
    RINGSCAN_EXPR_SUB = 24,             /* (x, y) */
    RINGSCAN_EXPR_MUL = 25,             /* (x, y) */
    RINGSCAN_EXPR_DIV = 26,             /* (x, y) */
    RINGSCAN_EXPR_NEG = 27,             /* (x): -x */
    RINGSCAN_EXPR_CAST = 28,            /* (x, type string): "INTEGER", "BIGINT", "DECIMAL(p,s)",
                                           "DOUBLE", "FLOAT", "DATE", "TIMESTAMP", ... Into
                                           an integer or decimal it rounds half away from
                                           zero (from a DOUBLE into an integer: half to even);
                                           a value that does not fit is an error */
} ringscan_expr_op;

RINGSCAN_API ringscan_expr *ringscan_expr_column(const char *name);
RINGSCAN_API ringscan_expr *ringscan_expr_int(int64_t v);
RINGSCAN_API ringscan_expr *ringscan_expr_double(double v);     /* NaN and the infinities too
                                                                   (NaN equals NaN, above every
                                                                   number, as in DuckDB);
                                                                   a DOUBLE: a FLOAT column compares
                                                                   in doubles (SQL text's 0.1 is
                                                                   cast to FLOAT, as DuckDB does) */
RINGSCAN_API ringscan_expr *ringscan_expr_decimal(const char *text); /* exact, e.g. "0.055", "-12", "1e3" */
RINGSCAN_API ringscan_expr *ringscan_expr_string(const char *s, size_t len); /* len bytes
                                                                   (NULs too; s may be NULL
                                                                   when len is 0); NULL at
                                                                   1 MiB or more */
RINGSCAN_API ringscan_expr *ringscan_expr_bool(bool v);
RINGSCAN_API ringscan_expr *ringscan_expr_null(void);           /* SQL NULL: a comparison with it is unknown */
RINGSCAN_API ringscan_expr *ringscan_expr_date(int32_t days);   /* days since 1970-01-01 */
RINGSCAN_API ringscan_expr *ringscan_expr_timestamp_us(int64_t us); /* microseconds since 1970-01-01 UTC */
/* op applied to args[0..nargs) (owned by the result from here, even when it returns NULL).
 * Operand kinds and counts are checked when a scan types the tree against its file's columns
 * (ringscan_scan_start: RINGSCAN_EPARSE naming the operator and what it expected). */
RINGSCAN_API ringscan_expr *ringscan_expr_call(ringscan_expr_op op, int nargs, ringscan_expr *const *args);
/* Frees a tree (NULL is a no-op). */
RINGSCAN_API void ringscan_expr_free(ringscan_expr *e);

typedef struct ringscan_options {
    size_t struct_size;         /* sizeof(ringscan_options) as the caller was built: set by
                                   ringscan_options_init, never by hand (0, a size below
                                   the first version's, or one over 4096, is -EINVAL; a
                                   larger one than the library knows is -EINVAL unless every
                                   byte past it is 0) */
    const char *const *columns; /* projected column names (a nested field by its name "s",
                                   or a struct's field by its path "s.a":
                                   ringscan_scan_start); NULL = every top-level field */
    int ncolumns;
    const char *filter;         /* SQL boolean expression, e.g. "l_linenumber > 5 AND
                                   (l_shipmode = 'AIR' OR l_comment LIKE '%fast%')" (grammar
                                   in README); NULL = none */
    const ringscan_expr *filter_expr; /* the filter as a tree (borrowed: it must outlive
                                   ringscan_scan_start only); NULL = none; not with filter */
    int64_t limit;              /* rows; -1 = no limit (with order_by: the K of ORDER BY ... LIMIT K) */
    const char *order_by;       /* NULL, or an ORDER BY list: "score DESC, id" (col [ASC|DESC]
                                   [NULLS FIRST|LAST], at most 16 keys; nulls last by default
                                   in both directions, NaN above every number, as DuckDB): the
                                   scan returns the first `limit` rows in that order (every row
                                   when -1), ties broken by file order, with the projected
                                   columns; batches come in that order whatever `ordered` says */
    bool order_desc;            /* order_by keys without ASC or DESC sort descending */
    const struct ringscan_topk_bound *topk_bound; /* a sibling's bound to start from
                                   (ringscan_scan_offer_bound before planning: row groups it
                                   rules out are pruned unread); NULL = none */
    void (*on_topk_bound)(void *ctx, const struct ringscan_topk_bound *b);
    void *on_topk_bound_ctx;    /* ORDER BY ... LIMIT: called each time the scan itself
                                   tightens its bound (from a split on one of the scan's
                                   threads, from the merge inside ringscan_scan_next, or from
                                   the statistics inside ringscan_scan_start; never for an
                                   offered bound), with the bound as
                                   ringscan_scan_topk_bound would give it: the push side of
                                   sharing it with siblings (no polling). It must return soon
                                   and not block; it may call ringscan_scan_offer_bound on
                                   other scans, never free this one. NULL = none */
    const int *row_groups;      /* scan only these row groups (distinct indexes, any order;
                                   read in file order), e.g. one worker's share of a file;
                                   NULL = every row group */
    int nrow_groups;
    ringscan_policy policy;
    int threads;                /* executor cores; 0 = 2 */
    ringscan_io io;
    bool ordered;               /* batches in file order (default: as splits finish) */
    bool verify_checksums;      /* check page CRCs (default off, like pyarrow and DuckDB) */
    int64_t split_rows;         /* a row group of at least twice this many rows whose columns
                                   have an offset index is cut at page boundaries into splits
                                   of about this many rows; 0 = 131072, < 0 = never cut */
    bool use_page_index;        /* prune pages with the column and offset indexes (default on) */
    bool use_bloom;             /* read bloom filters for = and IN conjuncts (default on) */
    bool explain;               /* keep a text account of the plan (ringscan_scan_explain) */
    bool int96_raw;             /* INT96 columns as their 12 stored bytes, fixed-size binary
                                   "w:12" (nanoseconds of the day, then the Julian day, both
                                   little-endian), instead of timestamp[ns], whose int64 wraps
                                   outside the years 1677..2262 (pyarrow's arithmetic) */
    /* Object storage (read by ringscan_open_with; a scan ignores them). NULL: the standard
     * environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION or
     * AWS_DEFAULT_REGION, AWS_ENDPOINT_URL: path-style addressing when set). The credentials
     * are one set: with s3_access_key_id given (not NULL or empty) the key, the secret and
     * the token are these fields' alone, whatever the environment holds (an
     * AWS_SESSION_TOKEN there is not sent; a key without s3_secret_access_key is refused,
     * -EINVAL); without it, all three are the environment's. s3_region and s3_endpoint
     * each win over their environment variables when given. */
    const char *store;          /* a simulated object store over a local file:
                                   "sim:ttfb=50ms,bw=500MB/s,conn_bw=100MB/s,conns=64,seed=1"
                                   (ttfb=dist draws from quantiles: median 32 ms, p90 110 ms,
                                   p99 200 ms; model_ttfb=, model_bw=: the cost model's
                                   seed, default the store's own); NULL = the file itself */
    const char *s3_access_key_id, *s3_secret_access_key, *s3_session_token, *s3_region,
        *s3_endpoint;
    bool tls_insecure;          /* skip TLS peer and host verification (warns on stderr) */
    int64_t fetch_budget_bytes; /* bytes read ahead and held for decoding, per scan: splits that
                                   run next are fetched ahead while it allows; 0 = no read-ahead
                                   (each split fetches when it starts); -1 = the default,
                                   256 MiB */
    /* Datasets (ringscan_dataset_open, ringscan_dataset_scan_start; a one-file scan ignores
     * them). */
    int hive_partitioning;      /* `key=value` directories as columns: 0 = when every file's
                                   path has the same keys (DuckDB's auto-detection), 1 = always
                                   (a file without them is an error), -1 = never */
    const char *hive_types;     /* "year:BIGINT,month:VARCHAR,day:DATE" (or TIMESTAMP): of some
                                   keys; the others are inferred as DuckDB 2.0.1 does (BIGINT
                                   when every value is an integer written without leading
                                   zeros, DATE when every value is YYYY-MM-DD, TIMESTAMP when
                                   every value is YYYY-MM-DD HH:MM:SS[.f], else VARCHAR).
                                   A key that is no partition key, as spelled, is -EINVAL
                                   (DuckDB's "Unknown hive_type"). NULL = infer every key */
    bool union_by_name;         /* the schema is every file's columns by name (DuckDB's
                                   union_by_name): a column a file lacks reads as nulls there;
                                   integers widen to the wider integer, integers and floats to
                                   DOUBLE; other differences are RINGSCAN_EUNSUPPORTED naming
                                   both files and the column. The union is over the files the
                                   partition filter keeps, and over every file (the pruned
                                   ones' footers read, not their data) when the scan asks for
                                   every column or names one the kept files lack, so the
                                   schema is DuckDB's. false: the first kept file's columns,
                                   matched by name in each file (a column missing from a file,
                                   or wider there, is that error; extra columns are ignored) */
    int max_files;              /* files a dataset may list; 0 = 100000 (at most 1 << 20); a
                                   local listing reads at most 2 * max_files + 1024
                                   directories (a link loop, repeated `**`s) */
    int max_open_files;         /* footers read at once and held (a dataset's scan reads them
                                   max_open_files / 2 at a time, the next ones ahead); 0 = 16
                                   (at most 1024) */
    const char *const *dictionary_columns; /* projected columns exported as Arrow dictionary
                                   arrays (format "i": int32 indices, the dictionary a child
                                   of the column's own type), as pyarrow's read_dictionary;
                                   each a string or binary column (BYTE_ARRAY, not DECIMAL)
                                   named in the projection, else -EINVAL. Each batch carries
                                   its own dictionary. A column no filter reads, in a scan
                                   without ORDER BY, is decoded as indices: the batch's
                                   dictionary is its chunk's dictionary page (values no
                                   selected row uses included), no row's value is decoded;
                                   pages a writer wrote PLAIN after its dictionary filled add
                                   their values to it, as pyarrow does. A column a filter reads
                                   (or with ORDER BY) is decoded as values and encoded again:
                                   its dictionary holds the batch's distinct values in
                                   first-appearance order. A dataset scan encodes every
                                   batch so (a partition column may be named). NULL = none */
    int ndictionary_columns;
    bool unsafe_disable_etag_checks; /* http(s) and s3: do not compare each answer's ETag with
                                   the open's (DuckDB httpfs's option of that name), for servers
                                   whose ETag changes while the bytes do not (a pool of servers
                                   that each make their own). Off by default: an object
                                   rewritten during a scan then reads as a mix of versions
                                   unless its size changed too (a Content-Range total other
                                   than the open's size still fails the read) */
    ringscan_read_mode read_mode; /* local files: copy (default) or mmap (read by
                                   ringscan_open_with and ringscan_dataset_open) */
    struct ringscan_cancel *cancel; /* NULL, or a host's cancel (ringscan_cancel_new) for the
                                   remote objects these options open: ringscan_open_with,
                                   ringscan_dataset_open (its listing) and
                                   ringscan_dataset_scan_start (its footers) */
} ringscan_options;

/* A host's cancel of calls that wait for a remote store (an open whose server stalls waits up
 * to RINGSCAN_HTTP_TIMEOUT_MS, and retries): given as ringscan_options.cancel, and requested
 * from any thread (a Ctrl-C handler, a deadline) with ringscan_cancel_request, it makes every
 * request to a store for the objects opened with those options fail with -ECANCELED within
 * about a second (libcurl's progress calls), a request in flight to a stalled server too, and
 * every later one at once, without a retry: the open or listing waiting returns -ECANCELED
 * with a message naming the URL, and so does a scan's read of such an object (its scan fails;
 * ringscan_scan_stop is the way to stop a scan without an error). Local files and the
 * simulated store never wait on a server and are not affected. Each object opened holds a
 * reference, so ringscan_cancel_free may come before they are closed. */
typedef struct ringscan_cancel ringscan_cancel;
/* A new cancel, not requested; NULL on ENOMEM. */
RINGSCAN_API ringscan_cancel *ringscan_cancel_new(void);
/* Requests it: thread-safe, idempotent. NULL: no-op. */
RINGSCAN_API void ringscan_cancel_request(ringscan_cancel *c);
/* Drops the host's reference (the objects opened with it keep theirs). NULL: no-op. */
RINGSCAN_API void ringscan_cancel_free(ringscan_cancel *c);

/* Fills o with the defaults (every column, no filter, no limit, adaptive, 2 threads, auto, page
 * index and bloom filters used, no explain text, INT96 as timestamp[ns]). */
RINGSCAN_API void ringscan_options_init(ringscan_options *o);

/* As ringscan_open (with the file section above), for a path or a URL (s3://bucket/key, http://host/path, https://...),
 * through o's store and S3 fields (o NULL = ringscan_open). Errors name the URL, the byte
 * range and the HTTP status; a credential never appears in a message. */
RINGSCAN_API int ringscan_open_with(const char *path, const ringscan_options *o,
                                    ringscan_file **out, ringscan_error *err);

typedef struct ringscan_scan ringscan_scan;

/* Plans a scan of f (statistics, page index and bloom pruning read only metadata) and starts
 * its executor. Returns 0 and *out, or a status: RINGSCAN_EPARSE for a filter that does not
 * parse (message "expected X at character N"), -EINVAL for an unknown column, a NULL entry in
 * columns, a negative ncolumns, a limit below -1, a policy or io that is not one of the enum's
 * values, or threads outside 0..256. f must outlive the scan.
 * Nested columns (ringscan_field_info.nested): a top-level field (struct, list, map, at any
 * depth; LIST in its three-level, two-level and unannotated repeated forms, MAP and
 * MAP_KEY_VALUE, as pyarrow reads them) is projected by its name ("s") and exported as Arrow
 * struct "+s", list "+l" (int32 offsets; "+L", "+w:N", "+vl" or "+vL" when the stored Arrow
 * schema says large, fixed-size or view list) or map "+m" (entries struct<key, value>, keys not
 * null), validity at every level, children named as pyarrow names them (a map's entries after
 * the map, a list's element after the file's element node). A field inside a struct is
 * projected by its dotted path ("s.a", as DuckDB's s.a), a column named "s.a" holding that
 * field alone, null where a struct above it is null; only its leaves' chunks are read. A
 * path through a list or map (its Parquet column path) is a column of that name holding, per
 * row, the list of what the path reaches in each element, structs on the way left out and
 * each list or map passed adding a list level: "l.list.element.a" is list<a> (DuckDB's
 * [x.a for x in l]), "m.key_value.key" list<key> (map_keys(m)), "m.key_value.value"
 * list<value>, "m.key_value" the entries; inner lists' elements are named "element"; each
 * list passed keeps its stored list type (large_list: "+L") and what the path reaches its
 * stored type and field metadata. Two nodes that start at one leaf ("s" and "s.a", "l" and
 * "l.list.element") project together, as DuckDB's SELECT s, s.a (their chunks read once, the
 * leaf decoded for each). Any filter or ORDER BY on a
 * nested column is RINGSCAN_EUNSUPPORTED naming it. Arrow types beyond the Parquet schema
 * follow the stored ARROW:schema as pyarrow 26 reads it (large, fixed-size and view lists,
 * zones, durations, large and view strings, decimal32/64/256, dictionaries with their index
 * type, the null type "n"), inside nested fields too. A row group whose nested leaves hold
 * over 32 MiB uncompressed (or 8 Mi level pairs) is cut evenly into splits of about that
 * size, run in order on one core; a leaf's chunk over 64 MiB is read in windows, else whole;
 * a scan reads none of an unprojected field's chunks (beyond the holes any unprojected column's bytes may fill when
 * reads are coalesced). Counts from the file are checked: levels above a leaf's maxima, a
 * repetition level the structure does not expect, leaves of one field that disagree, a leaf
 * that ends before its rows or runs past them are RINGSCAN_EFORMAT naming the offset and the
 * column. */
RINGSCAN_API int ringscan_scan_start(ringscan_file *f, const ringscan_options *o, ringscan_scan **out,
                        ringscan_error *err);

/* The schema of the batches: a struct ("+s") whose children are the projected columns.
 * The caller owns *out and calls out->release. Types follow pyarrow's reading of the file:
 * INT8/INT16/UINT8/UINT16 narrowed, DECIMAL as decimal128 ("d:p,s"), DATE "tdD", TIME
 * "ttm"/"ttu"/"ttn", TIMESTAMP "tsm:"/"tsu:"/"tsn:" with "UTC" when adjusted to UTC, or the
 * zone of the Arrow schema the writer stored in the key-value metadata ("ARROW:schema", as
 * pyarrow: "tsu:America/New_York"; the unit stays the Parquet one), INT96 "tsn:" (or "w:12",
 * int96_raw, a column's or a nested field's leaf, with metadata "ringscan:int96" = "raw", which
 * tells it from an INTERVAL), STRING/ENUM/JSON "u", other byte arrays "z" ("U"/"Z", int64
 * offsets, when the stored Arrow schema says large_string/large_binary), FIXED_LEN_BYTE_ARRAY
 * "w:N" (UUID, a column's or a nested leaf's, with metadata ARROW:extension:name "arrow.uuid",
 * INTERVAL "w:12" with metadata "ringscan:logical" = "interval"), FLOAT16 "e",
 * dictionary_columns "i" with a dictionary (and so is a string or binary field the stored
 * Arrow schema says is dictionary-encoded, as pyarrow reads it), an INT64 stored as an Arrow
 * duration "tDs"/"tDm"/"tDu"/"tDn". Metadata: a field's stored Arrow metadata and
 * "PARQUET:field_id" on the child; the file's key-value metadata without ARROW:schema on the
 * struct. An ARROW:schema that does not parse fails ringscan_scan_start (RINGSCAN_EFORMAT
 * naming the key and the offset in the decoded message), as pyarrow refuses the file. */
RINGSCAN_API int ringscan_scan_schema(ringscan_scan *s, struct ArrowSchema *out, ringscan_error *err);

/* Next batch. Returns 1 and *out (a struct array of the projected columns, only rows that
 * passed the filter; the caller calls out->release, which may happen after ringscan_scan_free),
 * 0 at the end (out->release NULL), or a negative status with err filled (the scan stops).
 * In a child process forked while the scan ran: -EINVAL, "the scan was started in process N,
 * this is a fork of it" (its threads are the parent's; the call waited for them forever). */
RINGSCAN_API int ringscan_scan_next(ringscan_scan *s, struct ArrowArray *out, ringscan_error *err);

/* Wraps the scan as an ArrowArrayStream. The stream holds s (and s its file): releasing the
 * stream and ringscan_scan_free(s) may come in either order, from different threads; the scan
 * is freed after both. One consumer reads a scan: take batches from the stream or from
 * ringscan_scan_next, not both. The stream's get_next calls run one at a time (a consumer
 * such as pyarrow's reader may make them from several threads at once). */
RINGSCAN_API int ringscan_scan_stream(ringscan_scan *s, struct ArrowArrayStream *out);

/* Arrow PyCapsules (the Arrow PyCapsule interface) for bindings that cannot compile a
 * destructor, as the Python package (cffi in ABI mode): ringscan_capsule_alloc gives a zeroed
 * struct of kind (RINGSCAN_CAPSULE_STREAM: an ArrowArrayStream, RINGSCAN_CAPSULE_SCHEMA: an
 * ArrowSchema), or NULL (out of memory, or another kind), to fill (ringscan_scan_stream,
 * ringscan_scan_schema) and wrap in a capsule named "arrow_array_stream" or "arrow_schema"
 * whose destructor is the matching ringscan_capsule_free_*: it releases the struct unless a
 * consumer moved it out (release NULL), then frees it. A destructor written in Python would
 * lose the exception a failing consumer is raising when it drops the capsule; these call only
 * the interpreter's PyCapsule_GetPointer (looked up in the process) and keep it. Only for a
 * capsule inside a Python process; a C host has no use for them. */
enum { RINGSCAN_CAPSULE_STREAM = 0, RINGSCAN_CAPSULE_SCHEMA = 1 };
RINGSCAN_API void *ringscan_capsule_alloc(int kind);
RINGSCAN_API void ringscan_capsule_free_stream(void *capsule);
RINGSCAN_API void ringscan_capsule_free_schema(void *capsule);

typedef struct ringscan_stats {
    uint64_t reads, bytes_read, bytes_used, bytes_wasted, cancelled_reads;
    int64_t row_groups_total, row_groups_pruned, pages_total, pages_pruned;
    int64_t rows_scanned, rows_out;
    bool io_uring;                     /* false: the pread fallback ran */
    int64_t splits;                    /* planned, pruned ones included */
    int64_t splits_all_false;          /* splits whose filter left no row */
    uint64_t plan_reads, plan_bytes;   /* synchronous planning reads: indexes, bloom filters */
    int64_t pages_dict_evaluated;      /* pages a conjunct evaluated on dictionary indices */
    int64_t pages_sel_evaluated;       /* pages a conjunct evaluated on its selected rows only */
    int64_t bytes_decompressed;        /* page bodies inflated */
    int64_t steals;                    /* times a core took later splits of another's work */
    int64_t reads_lent;                /* stolen column bytes copied from the owner's read */
    char io_backend[160];              /* "io_uring", or "pread (io_uring unavailable: ...)" */
    int64_t splits_done;               /* splits finished so far, of `splits` (progress) */
    bool complete;                     /* the scan ended: every counter is final */
    uint64_t store_requests;           /* requests to a remote or simulated store since the
                                          file was opened (its metadata's too); 0 locally; a
                                          dataset: over every file it opened (the footers of
                                          files its statistics pruned too). So are the
                                          body-copy counts below */
    uint64_t store_bytes;              /* the bytes those requests returned */
    int64_t topk_splits_pruned;        /* ORDER BY ... LIMIT: splits the bound ended before
                                          reading their data (their reads never sent) */
    int64_t topk_rows_kept;            /* rows the splits passed on as candidates (<= K each) */
    int64_t topk_pages_pruned;         /* pages a bound tightened after planning ruled out in
                                          a running split (their unsent reads dropped) */
    int64_t files;                     /* a dataset scan: files listed (1 for a file's scan) */
    int64_t files_pruned;              /* files no row was read from: ruled out by their
                                          partition values (before their footer was read) or
                                          by their footer's statistics */
    int64_t footers_read;              /* footers read (1 for a file's scan) */
    int64_t runtimes;                  /* executor groups started (their core threads, io
                                          rings and stacks): 1 for a file's scan and for a
                                          dataset's, whose files all run on its cores */
    int64_t core_rows_min, core_rows_max; /* rows scanned by the least and the most busy core
                                          (a dataset: over every file, at its end) */
    uint64_t bytes_skipped;            /* of bytes_read (and of bytes_wasted): holes between
                                          wanted columns that a merged local read put in a
                                          small reused scratch buffer, never in memory the
                                          scan keeps (same read calls, same bytes read) */
    uint64_t budget_peak_bytes;        /* the most bytes the fetch budget counted at once: reads
                                          in flight and buffered, running splits' reservations,
                                          batches not taken (and idle pooled read buffers
                                          under a remote store's budget); a dataset with a
                                          fetch budget: its one budget's, over every file and
                                          the footers held. Bounds read-ahead, not progress:
                                          it may pass fetch_budget_bytes (see README) */
    uint64_t footer_bytes_peak;        /* a dataset with a fetch budget: the most footer bytes
                                          (serialized metadata and kept page-index bytes) held
                                          at once; 0 otherwise */
    int64_t footer_reads;              /* read calls of the footers: a tail each, a second for
                                          a footer longer than the tail (a dataset's; a file's
                                          scan: its own footer's) */
    int64_t footers_on_cores;          /* a dataset: footers read as futures by tasks on its
                                          runtime's cores (the rest by threads: every file
                                          pruned, or URLs) */
    uint64_t reads_kept;               /* column reads served from the bytes the footer's read
                                          already brought (a small file's whole chunks: its
                                          tail is the file), not counted in reads */
    uint64_t bytes_kept;               /* their bytes (in bytes_used, not in bytes_read) */
    uint64_t store_body_copies;        /* reads served by copying bytes a response already
                                          put in memory (over HTTP/S3: from the object's last
                                          MiB, fetched at its open), not by a response
                                          landing in the read's own buffer */
    uint64_t store_body_bytes_copied;  /* the bytes those copies moved */
    uint64_t store_model_ttfb_ns;      /* a remote or simulated store: its cost model's time
                                          to first byte now (seeded at the open, then each
                                          request folded in: x += (measured - x) / 8); 0
                                          locally */
    uint64_t store_model_bytes_per_s;  /* and a connection's bandwidth (folded in from
                                          requests whose transfer took 1 ms or more) */
    uint64_t store_model_samples;      /* requests folded into the time to first byte */
    uint64_t store_model_bw_samples;   /* of them, those folded into the bandwidth. A dataset:
                                          each file has its own model; these four are the
                                          one of the file that folded in the most requests */
} ringscan_stats;

/* The scan's counters. While the scan runs this is a snapshot that does not stop it (for
 * progress: rows_scanned, bytes_read, splits_done of splits; io figures lag by at most the
 * split each core is running, io_backend is filled at the end); complete (out->complete) once
 * ringscan_scan_next returned 0 or an error. Thread-safe against the scan's own threads and
 * against a ringscan_scan_next or ringscan_scan_stop running on another host thread (a
 * progress thread, a dataset's scan too); call it from one host thread at a time. */
RINGSCAN_API void ringscan_scan_stats(ringscan_scan *s, ringscan_stats *out);

/* The plan's text account (row groups and pages pruned and why, the conjunct order), NUL-
 * terminated, valid until ringscan_scan_free(s); "" when options.explain was false or s is
 * NULL. The conjunct-order part is complete once ringscan_scan_next returned 0 or an error. */
RINGSCAN_API const char *ringscan_scan_explain(ringscan_scan *s);

/* A Top-K scan's bound: the value of the first ORDER BY key that the K-th row of the answer is
 * at least as good as (DESC: >=, ASC: <=); rows worse than it cannot make the cut. It tightens
 * as the scan runs; siblings scanning other parts of the same query (other row groups, files,
 * processes or machines) exchange it so each prunes with the best one known. */
typedef struct ringscan_topk_bound {
    bool set;         /* false: no bound yet (or none for this key: not numeric) */
    bool is_float;    /* the key is FLOAT or DOUBLE: the value is f, else i */
    int64_t i;        /* integer keys (UINT32 zero-extended, UINT64 as its bit pattern) */
    double f;
    uint64_t version; /* grows every time the bound tightens */
} ringscan_topk_bound;

/* Fills *out with s's current bound. Thread-safe (any thread, while the scan runs). Returns 0,
 * or -EINVAL when s is NULL or not an ORDER BY ... LIMIT scan. */
RINGSCAN_API int ringscan_scan_topk_bound(ringscan_scan *s, ringscan_topk_bound *out);

/* The bound a scan of f with o (an ORDER BY ... LIMIT scan's options) would start from, from
 * the footer's statistics only (no data read): what the scan seeds itself with (see
 * --explain), or o->topk_bound when stricter; out->set false when no bound follows from them
 * (a filter no group's statistics prove, fewer than K rows, a key no numeric bound holds).
 * Siblings that exchange their seeds before starting (the strictest given to each as
 * options.topk_bound) prune at planning the row groups a sibling's seed rules out. Returns 0,
 * or a status with err filled (-EINVAL when o has no order_by or limit < 0). Thread-safe for
 * distinct calls on one file. */
RINGSCAN_API int ringscan_topk_seed(ringscan_file *f, const ringscan_options *o,
                                    ringscan_topk_bound *out, ringscan_error *err);

/* The row groups a scan of f with o would read, from metadata only (no data read): those that
 * o's row_groups (when set) list and that o's filter does not prune by statistics, bloom
 * filters or page indexes (ORDER BY is not applied: siblings prune by their bounds as they
 * run). Writes the first cap of them, ascending, to out and returns how many there are (call
 * with cap 0 to count), or a status with err filled: what ringscan_scan_start would refuse.
 * For a host that hands a file's row groups to several workers (options.row_groups). */
RINGSCAN_API int ringscan_plan_row_groups(ringscan_file *f, const ringscan_options *o, int *out,
                                          int cap, ringscan_error *err);

/* Offers a sibling's bound b (taken from its ringscan_scan_topk_bound: the sibling holds K
 * rows at least as good, so using it never changes the merged answer). s keeps the stricter of
 * its own and b; rows of s worse than it are dropped, and its row groups and splits that
 * cannot beat it are not read. The merge of every sibling's rows sorted and cut at K is the
 * exact answer. Thread-safe. Returns 1 when the bound tightened, 0 when b is not stricter or
 * not set, -EINVAL when s is not a Top-K scan with a numeric first key or b's type differs. */
RINGSCAN_API int ringscan_scan_offer_bound(ringscan_scan *s, const ringscan_topk_bound *b);

/* ---- counting rows ---- */

typedef struct ringscan_count_info {
    int64_t rows;               /* rows that pass the filter (at most options.limit) */
    int row_groups;             /* row groups considered (options.row_groups, or all) */
    int row_groups_pruned;      /* statistics prove no row of the group passes */
    int row_groups_settled;     /* statistics prove every row passes: counted, never read */
    int row_groups_scanned;     /* the rest: read and filtered by a scan (0 when the settled
                                   groups reached the limit: then nothing is read) */
    ringscan_stats scan;        /* that scan's counters (all zero, complete, when no group
                                   needed one: scan.reads == 0 and scan.bytes_read == 0) */
} ringscan_count_info;

/* Counts the rows of f that pass o's filter (filter or filter_expr; none: every row), over
 * o->row_groups (NULL: all), capped at o->limit (-1: no cap). Answered from the footer where
 * it can be: without a filter the row groups' row counts; with one, a row group whose
 * statistics prove every row passes (every conjunct ALL_MATCH, filter/prune.h) counts its rows
 * unread, one they prove none passes is skipped, and only the others are scanned (projecting
 * the filter's first column, with o's policy, threads, io, page index and bloom options;
 * columns, order_by and the Top-K fields are ignored). Returns 0 and *out, or a status with
 * err filled as ringscan_scan_start's (filter parse errors, a filter on a nested column,
 * bad options, a row group not in the file or listed twice: -EINVAL). */
RINGSCAN_API int ringscan_count(ringscan_file *f, const ringscan_options *o,
                                ringscan_count_info *out, ringscan_error *err);

/* Ends the scan before its last row, for a host that wants no more of them (its output
 * failed, it has enough): reads in flight are cancelled and the scan's tasks end, as in
 * ringscan_scan_free. Afterwards ringscan_scan_next returns 0 and ringscan_scan_stats is
 * complete (its counters final: bytes_read + bytes_kept = bytes_used + bytes_wasted), which a
 * snapshot taken while the scan runs need not be (a stop on another thread at the same moment:
 * each returns once the scan ended). A scan that ended already, or NULL: no-op.
 * Thread-safe against a ringscan_scan_next (or the stream's get_next) waiting on another
 * thread, the way a host cancels a scan (a Ctrl-C handler, a deadline): its reads in flight
 * (a stalled server's too; a dataset's footer reads too) are cancelled and that call wakes,
 * returning 0 once the splits running end their current step.
 * Not against ringscan_scan_free. In a child process forked while the scan ran: no-op. */
RINGSCAN_API void ringscan_scan_stop(ringscan_scan *s);

/* ringscan_scan_stop for a host that stops a scan which a consumer it does not control may
 * read (a Ctrl-C while pyarrow, Polars or DuckDB reads the stream): a call waiting when it
 * comes returns 0, as after a stop (that consumer is the one being interrupted: the host
 * raises its interrupt there), and every call that begins after it fails with -EINTR ("the
 * scan was interrupted by its host"; a stream's get_next with EIO and that message), so a
 * consumer that reads the stream later never takes the rows it gets as all of them. The
 * counters are complete after it, as after a stop. Thread-safe as ringscan_scan_stop; NULL:
 * no-op. */
RINGSCAN_API void ringscan_scan_interrupt(ringscan_scan *s);

/* Stops the scan (cancelling reads in flight) and frees it; when a stream of it
 * (ringscan_scan_stream) is still live, the scan lives on until that is released, and the
 * caller must not use s after this call either way. NULL is a no-op. In a child process
 * forked while the scan ran, this (or releasing a stream of it) frees nothing: the scan's
 * threads are the parent's, and its end would wait for them forever. */
RINGSCAN_API void ringscan_scan_free(ringscan_scan *s);

/* Projected column i of a scan as ringscan_column_info describes a file's column (a
 * dataset's partition column: INT64 for BIGINT, INT32 DATE, BYTE_ARRAY STRING; a widened
 * column: its dataset type). Pointers are valid until ringscan_scan_free(s). 0, or -EINVAL
 * when s or out is NULL or i is not a projected column. */
RINGSCAN_API int ringscan_scan_column(ringscan_scan *s, int i, ringscan_column_info *out);

/* ---- datasets: many files as one table ----
 * A dataset is a list of Parquet files scanned as one: the schema of their columns (see
 * ringscan_options.union_by_name) followed by hive partition columns (sorted by name, as
 * DuckDB), rows in path order then file order, one filter, projection, limit and ORDER BY
 * over all of them. Files are local, URLs named exactly, or s3:// patterns listed with
 * ListObjectsV2 (below). Arrow types as pyarrow.dataset gives them: a data column exports
 * the Arrow type the first file that has it stores in ARROW:schema (zone, large or view
 * string, dictionary, decimal32/64, duration, field metadata; none when union_by_name widened
 * it; a nested field union_by_name merged from files' shapes: at each node what the files
 * store alike, the first file's field metadata, as pyarrow's unify_schemas merges them), the
 * schema's metadata is the first file's, and later files are cast to those types:
 * a duration stored in another unit is rescaled (RINGSCAN_EUNSUPPORTED naming both files,
 * the column and the value when it overflows or would lose data, as pyarrow refuses it; a
 * filter on such a column is RINGSCAN_EUNSUPPORTED). Nested top-level fields (lists,
 * structs, maps, any depth) are read whole, in the shape the first file that has them gives
 * (a file with another shape is RINGSCAN_EUNSUPPORTED naming both; without union_by_name a
 * file lacking one is refused, with it the field is null there); a path inside one ("s.a")
 * is projected as in one file; a filter or a sort key on one is RINGSCAN_EUNSUPPORTED. */
typedef struct ringscan_dataset ringscan_dataset;

/* Lists a dataset: each of paths[0..npaths) is a file, a directory (every *.parquet below
 * it, recursively) or a pattern (* ? [...] inside a path component, `**` any number of
 * directories: "data/ ** / *.parquet" without the spaces; neither `**` nor a directory's
 * listing descends through a symbolic link to a directory, as DuckDB's glob, while a link a
 * component names and a link to a file are followed; as DuckDB 2.0.1 lists them, a pattern
 * is the files it matches, and the file named as it is, pattern characters and all, only
 * when it matches none ("a[1].parquet" is a1.parquet when that exists, "x*.parquet" is x1 and
 * the file "x*.parquet"; "a[[]1].parquet" and "x[*].parquet" name those files alone), and a
 * pattern ending in '/' (it names directories) matches no file); the files are sorted by path, a
 * file named by two paths or patterns read twice as DuckDB and pyarrow.dataset read it (one
 * pattern names a file once, however many ways its `**`s reach it). An s3:// pattern (or an
 * s3:// prefix ending in '/': every *.parquet below it)
 * lists the bucket from the pattern's literal head (ListObjectsV2, signed with o's S3 fields
 * or the environment) and keeps the keys it matches; a pattern over http(s):// is
 * RINGSCAN_EUNSUPPORTED (no listing). Reads no footer. o (may be NULL: defaults) gives hive_partitioning,
 * hive_types, max_files. Returns 0 and *out (ringscan_dataset_close), or a status with err
 * naming the pattern or file: -ENOENT when a pattern matches no file or a path does not
 * exist, RINGSCAN_ELIMIT beyond max_files (or its bound on directories read), -EINVAL for
 * bad hive_types (an unknown type, a key given twice) or a partition value
 * that is not of its given type, RINGSCAN_EUNSUPPORTED for a pattern over http(s); a failed
 * listing names the URL and the HTTP status with the S3 code. */
RINGSCAN_API int ringscan_dataset_open(const char *const *paths, int npaths,
                                       const ringscan_options *o, ringscan_dataset **out,
                                       ringscan_error *err);
/* The files listed, and file i's path (valid until ringscan_dataset_close; NULL outside). */
RINGSCAN_API int ringscan_dataset_files(const ringscan_dataset *d);
RINGSCAN_API const char *ringscan_dataset_file(const ringscan_dataset *d, int i);
/* Drops the opener's hold on d; a scan of d holds it too, and d is closed when the last of
 * them ends (as ringscan_close). NULL is a no-op. */
RINGSCAN_API void ringscan_dataset_close(ringscan_dataset *d);

/* Starts a scan of every file of d with o (as ringscan_scan_start: columns, filter or
 * filter_expr, limit, order_by, policy, threads, io, ...; the store and S3 fields open the
 * files; row_groups is refused). Files whose partition values fail the filter's top-level
 * AND terms on partition columns are pruned before their footer is read; the footers of at
 * most max_open_files files are read at once (concurrently, the next half of them read ahead
 * while the files before are scanned) and held; a file whose footer statistics rule out
 * every row group is pruned before its scan starts. Every file's scan runs on the dataset's
 * one set of `threads` cores (started once), up to 16 files at once, each on as many cores as
 * it has splits, and batches are taken from the files in path order (output is path order, then row order
 * within each file as ringscan_options.ordered says). ORDER BY ... LIMIT keeps each file's
 * best rows and merges them, the files sharing one bound. A clause (an OR) that
 * mixes partition columns with data columns is RINGSCAN_EUNSUPPORTED. Errors name the file.
 * The returned scan is used as any (next, schema, stream, stats, explain, free); it holds d. */
RINGSCAN_API int ringscan_dataset_scan_start(ringscan_dataset *d, const ringscan_options *o,
                                             ringscan_scan **out, ringscan_error *err);

/* Counts the rows of d that pass o's filter (none: every row), capped at o->limit (-1: no
 * cap), as ringscan_count counts one file's: files are pruned by partition values as a scan
 * prunes them (no footer read), and of every other file each row group whose statistics
 * prove every row passes counts its rows unread, one they prove none passes is skipped, and
 * only the rest is scanned (reading the filter's first column); without a filter only
 * footers are read. out->row_groups and its split count the groups of the files whose
 * footers were read; out->scan holds the scans' counters (files, files_pruned and
 * footers_read included). o's columns, order_by and Top-K fields are ignored. Returns 0 and
 * *out, or a status with err filled as ringscan_dataset_scan_start's. */
RINGSCAN_API int ringscan_dataset_count(ringscan_dataset *d, const ringscan_options *o,
                                        ringscan_count_info *out, ringscan_error *err);

#ifdef __cplusplus
}
#endif
#endif
