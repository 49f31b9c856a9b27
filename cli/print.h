/* cli/print.h: text forms of decoded values (rules in print.c's header comment). */
#ifndef RINGSCAN_CLI_PRINT_H
#define RINGSCAN_CLI_PRINT_H
#include <stdbool.h>

#include "cli/sink.h"
#include "format/meta.h"
#include "format/vec.h"

typedef enum { PRINT_TABLE, PRINT_CSV, PRINT_JSONL, PRINT_COUNT } print_format;

/* Shortest round-trip text of d in a float of width bytes (2, 4 or 8), Python repr layout,
 * JSON-quoted "NaN"/"Infinity"/"-Infinity" for the non-finite values. */
void print_float(cli_sink *f, double d, int width);
/* One value of row `row` of v (column c); json selects JSON quoting and null. */
void print_value(cli_sink *f, const pq_column_desc *c, const pq_vec *v, int64_t row, bool json);
/* Rows [0, nrows) of ncols vectors, one line per row. 0, or f's write error (negative errno;
 * printing stopped at the row it hit). */
int print_rows(cli_sink *f, print_format fmt, const pq_column_desc *const *cols, const pq_vec *vecs,
                int ncols, int64_t nrows);

#endif
