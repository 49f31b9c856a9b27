/* cli/checksum.h: the count format's checksum of scan batches (Arrow arrays from ringscan.h),
 * by the definition in bench/shapes.h, so `ringscan scan --format count` and `ringscan bench`
 * agree on every file: per projected column, the wrapping sum over non-null rows of
 *   INT32/INT64 values (ints, DECIMAL unscaled, dates, times, timestamps) sign-extended to 64
 *   bits; DOUBLE and FLOAT bit patterns; 1 per true BOOLEAN; FNV-1a 64 of the value's bytes
 *   for BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96;
 * then checksum = fold c = c * 1000003 + col_sum[j] over the columns in projection order.
 *
 * The library hands some types over converted (scan/arrow.c); the stored form is rebuilt
 * from the Arrow value and the column's Parquet type (ringscan_file_column):
 *  - INT8/INT16/UINT8/UINT16 narrowed to 1 or 2 bytes: extended by their own signedness,
 *    the stored INT32 for any value in the type's range;
 *  - decimals as Arrow decimals of 32, 64, 128 or 256 bits (the stored Arrow schema's, or
 *    decimal256 past 38 digits): INT32/INT64 ones sum the low 64 bits (the unscaled
 *    value); FIXED_LEN_BYTE_ARRAY ones hash the type_length big-endian bytes of the value;
 *    BYTE_ARRAY ones hash the shortest big-endian two's complement form (what Java's
 *    BigInteger, pyarrow and DuckDB write; a writer that pads differs);
 *  - large, view and dictionary strings and binary hash their values' bytes; the null type
 *    adds nothing (every row is null);
 *  - INT96 is scanned as its stored bytes (ringscan_options.int96_raw): timestamp[ns] wraps
 *    outside 1677..2262 and could not be turned back;
 *  - a nested column (list, struct, map) sums, over its non-null rows, FNV-1a 64 of the row's
 *    JSON text exactly as --format jsonl prints the value (cli/print.h print_nested_text, any
 *    length). The column's schema must outlive the sum_col. */
#ifndef RINGSCAN_CLI_CHECKSUM_H
#define RINGSCAN_CLI_CHECKSUM_H
#include <stdint.h>

#include "cli/print.h"
#include "ringscan.h"

typedef enum {
    SUM_SIGNED,   /* little-endian integer of width bytes, sign-extended */
    SUM_UNSIGNED, /* little-endian integer of width bytes, zero-extended */
    SUM_BOOL,
    SUM_DEC_LOW,  /* decimal128: the low 64 bits */
    SUM_DEC_FIXED,/* decimal128 as width big-endian bytes, hashed */
    SUM_DEC_VAR,  /* decimal128 as its shortest big-endian bytes, hashed */
    SUM_FIXED,    /* width bytes, hashed */
    SUM_VAR,      /* a string or binary value's bytes (print_value_bytes), hashed */
    SUM_JSON,     /* a nested value's JSON text, hashed */
    SUM_NULL      /* the null type: nothing */
} sum_kind;

typedef struct sum_col {
    sum_kind kind;
    int width;
    int dec_bytes; /* SUM_DEC_*: bytes of the Arrow decimal (4, 8, 16 or 32) */
    print_col pc; /* SUM_JSON, SUM_VAR: how the value prints (borrows the schema) */
} sum_col;

/* How column c (Arrow schema s, Parquet column ci) adds to its sum. 0, or -EINVAL for a
 * format the library never produces (an INT96 column not scanned with int96_raw included). */
int sum_col_init(sum_col *c, const struct ArrowSchema *s, const ringscan_column_info *ci);
/* Adds the non-null rows of a to *sum. */
void sum_col_add(const sum_col *c, const struct ArrowArray *a, uint64_t *sum);
/* The fold over col_sum[0 .. n-1]. */
uint64_t sum_checksum(const uint64_t *col_sum, int n);

#endif
