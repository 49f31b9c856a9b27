/* cli/print.h: text forms of scan batches (Arrow C Data Interface arrays from ringscan.h;
 * rules in print.c's header comment). */
#ifndef RINGSCAN_CLI_PRINT_H
#define RINGSCAN_CLI_PRINT_H
#include <stdbool.h>
#include <stdint.h>

#include "cli/sink.h"
#include "ringscan.h"

/* PRINT_CHECKSUM: rows and a checksum of the values (the values are read); PRINT_COUNT: the
 * row count alone, from the footer where statistics settle a row group (cli/rows.c). */
typedef enum { PRINT_TABLE, PRINT_CSV, PRINT_JSONL, PRINT_CHECKSUM, PRINT_COUNT } print_format;

/* How a column's values print, from its Arrow format. */
typedef enum {
    PK_BOOL,      /* bitmap */
    PK_INT,       /* signed integer of width bytes */
    PK_UINT,      /* unsigned integer of width bytes */
    PK_FLOAT,     /* IEEE float of width 2, 4 or 8 bytes */
    PK_DATE,      /* int32 days since 1970-01-01 */
    PK_TIME,      /* time of day, width 4 or 8, digits 3/6/9 */
    PK_TIMESTAMP, /* int64 since the epoch, digits 3/6/9, utc */
    PK_DECIMAL,   /* decimal of width bytes (4, 8, 16 or 32: "d:P,S[,W]"), scale */
    PK_FIXED,     /* fixed-size binary of width bytes (base64) */
    PK_INT96,     /* the 12 stored bytes of an INT96 timestamp (ringscan_options.int96_raw) */
    PK_UUID,      /* fixed-size binary of 16 bytes with the arrow.uuid extension (8-4-4-4-12 hex) */
    PK_INTERVAL,  /* a Parquet INTERVAL: fixed-size binary of 12 bytes with "ringscan:logical" =
                     "interval" (months, days, milliseconds), printed as DuckDB prints one */
    PK_STRING,    /* utf8 (int32 offsets; large: int64; view: 16-byte views) */
    PK_BINARY,    /* binary (int32 offsets, large: int64, view; base64) */
    PK_NULL,      /* the null type ("n"): every value null, no buffers */
    PK_LIST,      /* list ("+l", "+L", "+vl", "+vL", "+w:N": list_form): a JSON array of
                     its elements' JSON values */
    PK_STRUCT,    /* struct: a JSON object of its fields, in order */
    PK_MAP        /* map: a JSON array of {"key":k,"value":v} objects (pyarrow's to_pylist
                     order); nested kinds print the same JSON text in every format (a CSV
                     cell quoted per RFC 4180) */
} print_kind;

typedef struct print_col {
    const char *name;  /* borrowed from the schema */
    print_kind kind;
    int width;         /* value bytes (fixed-width kinds) */
    int digits;        /* fraction digits of times and timestamps */
    int scale;         /* decimals */
    bool utc;          /* timestamps: "Z" suffix (any zone: the value is an instant) */
    bool large;        /* PK_STRING, PK_BINARY: int64 offsets ("U", "Z") */
    bool view;         /* PK_STRING, PK_BINARY: views ("vu", "vz") */
    char list_form;    /* PK_LIST: 'l' int32 offsets, 'L' int64, 'v' / 'V' list views of
                          int32 / int64 offsets and sizes, 'w' fixed size (width elements) */
    int index_width;   /* a dictionary array's index bytes (1, 2, 4, 8); 0: not one */
    bool index_signed;
    const struct ArrowSchema *schema; /* PK_LIST/STRUCT/MAP: the column's schema (borrowed;
                                         its children describe the values inside) */
} print_col;

/* Reads a child of ringscan_scan_schema's struct schema (c->name borrows s->name); int96:
 * the column is an INT96 one scanned with int96_raw. A list ("+l"), struct ("+s") or map ("+m")
 * is PK_LIST, PK_STRUCT or PK_MAP, its children checked to be known formats. 0, or -EINVAL for a format the library never produces. */
int print_col_init(print_col *c, const struct ArrowSchema *s, bool int96);

/* Shortest round-trip text of d in a float of width bytes (2, 4 or 8), Python repr layout,
 * JSON-quoted "NaN"/"Infinity"/"-Infinity" for the non-finite values. */
void print_float(cli_sink *f, double d, int width);
/* One value of row `row` of array a (column c); json selects JSON quoting and null. */
void print_value(cli_sink *f, const print_col *c, const struct ArrowArray *a, int64_t row, bool json);
/* The JSON text of row `row` (not null) of nested column c (PK_LIST/STRUCT/MAP), any length,
 * handed to emit in pieces in order (last set on the final one; a text under SINK_BUF_BYTES
 * comes in one piece, a longer one is rendered through a memory file and read back). 0 or a
 * negative errno (the memory file could not be made or written). One thread at a time. */
int print_nested_text(const print_col *c, const struct ArrowArray *a, int64_t row,
                      void (*emit)(void *ctx, const uint8_t *p, size_t n, bool last), void *ctx);
/* True when row `row` of a is null. */
bool print_is_null(const struct ArrowArray *a, int64_t row);
/* The bytes of row `row` of a string, binary or fixed-size binary column c (not null):
 * returns their length, *p their start (NULL when the length is 0). */
int64_t print_value_bytes(const print_col *c, const struct ArrowArray *a, int64_t row, const uint8_t **p);
/* p[0 .. n) as a JSON string (RFC 8259: UTF-8 text), in quotes: '"', '\\' and control
 * characters (DEL too) escaped; a byte that starts no well-formed UTF-8 sequence (a string
 * column or a name in a file may hold any bytes) written as U+FFFD, one per byte. */
void print_json_str(cli_sink *f, const uint8_t *p, int64_t n);
/* p[0 .. n) as base64 (in JSON quotes when quoted). */
void print_base64(cli_sink *f, const uint8_t *p, int64_t n, bool quoted);
/* The header line of fmt (table: names joined by " | "; CSV: RFC 4180 fields; jsonl and
 * count: nothing). 0 or f's write error. */
int print_header(cli_sink *f, print_format fmt, const print_col *cols, int n);
/* Every row of a struct batch (one child per column of cols), one line per row. 0, or f's
 * write error (negative errno; printing stopped at the row it hit). */
int print_rows(cli_sink *f, print_format fmt, const print_col *cols, const struct ArrowArray *batch);

#endif
