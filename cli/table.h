/* cli/table.h: `ringscan scan --format table`: batches as an aligned table for people (rules
 * and invariants in table.c's header comment). */
#ifndef RINGSCAN_CLI_TABLE_H
#define RINGSCAN_CLI_TABLE_H
#include "cli/print.h"
#include "cli/sink.h"

enum {
    TABLE_SAMPLE_ROWS = 1000,     /* rows held to size the columns before printing */
    TABLE_SAMPLE_BYTES = 4 << 20, /* ... or fewer, when their text reaches this */
    TABLE_SAMPLE_CELLS = 1 << 18, /* ... or their cells this many (empty cells take no text) */
    TABLE_CELL_MAX_BYTES = 1024,  /* a cell's text is cut at this and ends in "..." */
};

typedef struct print_table print_table;

/* A table of the n columns cols (borrowed: they must outlive it). NULL when out of memory. */
print_table *table_new(const print_col *cols, int n);
/* Adds a batch's rows: held while the sample fills, then printed with the sample's widths.
 * 0 or out's write error, or -ENOMEM. */
int table_add(print_table *t, cli_sink *out, const struct ArrowArray *batch);
/* Prints what is still held (at least the header line). 0 or out's write error. */
int table_end(print_table *t, cli_sink *out);
void table_free(print_table *t);

/* The columns a terminal shows the UTF-8 text s[0 .. n) in: East Asian wide and emoji
 * characters 2, combining marks and zero-width characters 0, anything else (an invalid byte
 * too) 1. */
size_t table_display_width(const char *s, size_t n);

#endif
