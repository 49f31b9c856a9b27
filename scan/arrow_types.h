/* scan/arrow_types.h: what the Arrow export says about a column beyond its Parquet type, as
 * pyarrow reads the same file: the Arrow schema the writer stored ("ARROW:schema", format/
 * arrow_schema.h) gives back timestamp zones, large string/binary and field metadata; a UUID
 * column carries the arrow.uuid extension name; a field id is "PARQUET:field_id" metadata;
 * the file's key-value metadata (ARROW:schema itself left out) is the schema's metadata.
 * Built once per scan (scan/api.c), read by scan/arrow.c. */
#ifndef RINGSCAN_SCAN_ARROW_TYPES_H
#define RINGSCAN_SCAN_ARROW_TYPES_H
#include <stdbool.h>
#include <stddef.h>

#include "format/err.h"
#include "format/meta.h"

enum { SCAN_ARROW_FORMAT_MAX = 96 };

/* One node of a nested column's Arrow shape (format/column_nested.h pq_nest, same order). */
typedef struct scan_arrow_node {
    char format[SCAN_ARROW_FORMAT_MAX]; /* "": the Parquet shape's ("+l", a leaf's type);
                                   else "+L", "+w:N", "+vl", "+vL", a leaf's stored type */
    char *metadata;       /* the stored field's metadata (below the top node), or NULL */
    char index_format[2]; /* a leaf stored as a dictionary of strings or binary: its
                             indices' format ("i" for int32), exported as a dictionary array;
                             "": not one */
} scan_arrow_node;

typedef struct scan_arrow_type {
    char format[SCAN_ARROW_FORMAT_MAX]; /* "": scan_arrow_format's for the Parquet type */
    char index_format[2]; /* a dictionary's indices: "" (int32) or the stored index type's */
    bool dictionary;      /* exported as a dictionary array (options.dictionary_columns, or
                             a string/binary field stored_dictionary) */
    bool stored_dictionary; /* the writer's Arrow type was dictionary-encoded */
    char *metadata;       /* ArrowSchema.metadata (C Data Interface encoding), or NULL */
    int32_t nnodes;       /* a nested column with a stored Arrow field: its shape's nodes */
    scan_arrow_node *nodes; /* nnodes entries (node 0's metadata is `metadata`), or NULL */
} scan_arrow_type;

typedef struct scan_arrow_types {
    int n;
    scan_arrow_type *cols; /* one per projected column */
    char *metadata;        /* the top-level struct's metadata, or NULL */
} scan_arrow_types;

struct scan_arrow_col;

/* Fills out for the projected columns cols[0..n) of the file m. 0, -ENOMEM, or the error
 * of an ARROW:schema value that does not parse (RINGSCAN_EFORMAT naming the key and the
 * offset in the decoded message: pyarrow refuses such a file too). */
int scan_arrow_types_build(const pq_file_meta *m, const struct scan_arrow_col *cols, int n,
                           scan_arrow_types *out, pq_err *e);
void scan_arrow_types_free(scan_arrow_types *t);
/* Whether a list of cols[0 .. n) is exported as a fixed-size list ("+w:N"), whose null lists
 * only the packed rows' export fills with null slots (scan/arrow_nested.c): a scan with one
 * keeps packed rows (scan_opts.nest_cols off). */
bool scan_arrow_fixed_lists(const scan_arrow_type *cols, int n);
/* Frees one column's type (its metadata and nodes) and zeroes it. */
void scan_arrow_type_free(scan_arrow_type *t);
/* Marks the columns named in names[0..n) (options.dictionary_columns) as dictionary arrays:
 * each must be one of cols[0..t->n) (its name, or the only one differing from it in case
 * alone, as --columns matches names) and a BYTE_ARRAY column that is not a DECIMAL nor a list.
 * 0, -EINVAL with e naming the column, or -ENOMEM (the projection's names indexed: O((n + t->n)
 * log t->n) comparisons). */
int scan_arrow_types_dictionary(scan_arrow_types *t, const struct scan_arrow_col *cols,
                                const char *const *names, int n, pq_err *e);

/* The scan's dict_out flags (scan_opts, *out: n entries): projected leaf idx[j] is a flat
 * BYTE_ARRAY column (not DECIMAL) named in names[0..nnames) (in any case as the file's own
 * name matches, pq_file_meta_top_name) or stored with a dictionary type
 * in ARROW:schema (other names are refused by scan_arrow_types_dictionary). 0 or -ENOMEM. */
int scan_arrow_dict_out(const pq_file_meta *m, const int *idx, int n, const char *const *names,
                        int nnames, bool **out);

/* Bytes of an encoded metadata block (its int32 count, then each key and value with an int32
 * length), 0 for NULL. */
size_t scan_arrow_metadata_len(const char *md);

#endif
