/* scan/arrow.h: scan batches as Arrow C Data Interface structures (see arrow.c). */
#ifndef RINGSCAN_SCAN_ARROW_H
#define RINGSCAN_SCAN_ARROW_H
#include <stdbool.h>
#include <stddef.h>

#include "ringscan.h"
#include "scan/scan.h"

/* How types without one Arrow form are exported (bits). */
enum {
    SCAN_ARROW_INT96_RAW = 1 /* INT96 as its 12 stored bytes ("w:12"), not timestamp[ns] */
};

/* One projected column as Arrow shows it. */
typedef struct scan_arrow_col {
    const pq_column_desc *desc; /* the leaf read */
    const char *name;           /* the field's name */
    const pq_file_meta *meta;   /* a nested field: the file's schema; else NULL */
    int32_t node;               /* a nested field (its batch vector packed rows,
                                   format/column_nested.h): its top-level node; -1: flat */
    const struct scan_arrow_type *type; /* what the file says beyond its Parquet type
                                   (scan/arrow_types.h); NULL: the Parquet type alone */
    const char *rename;         /* NULL, or a nested field's exported name instead of its
                                   node's (a dataset's: the first file's spelling) */
    bool open;                  /* a nested field of a dataset: every node exported nullable
                                   but a map's entries and keys (Arrow's map allows no null
                                   there), as a dataset's flat columns are, since another file
                                   may hold a null wherever the shape's file holds none */
} scan_arrow_col;

/* Arrow format string of a column ("l", "u", "d:15,2", "tsu:UTC", ...), in buf when built. */
const char *scan_arrow_format(const pq_column_desc *d, unsigned flags, char *buf, size_t n);
/* A struct schema with one child per column (a list: "+l" with its element as child). 0 or
 * -ENOMEM. */
int scan_arrow_schema(const scan_arrow_col *cols, int n, unsigned flags, struct ArrowSchema *out);
/* v's rows as int32 dictionary indices (*idx: v's validity, a null's index 0) into the distinct
 * values *dict (first-appearance order), both initialised here (scan/arrow_dict.c). 0 or
 * -ENOMEM (nothing left allocated). */
int scan_arrow_dict_encode(const pq_vec *v, pq_vec *idx, pq_vec *dict);
/* Sets a built schema's metadata to a copy of md (an encoded block, scan/arrow_types.h;
 * NULL: none). 0 or -ENOMEM. */
int scan_arrow_schema_metadata(struct ArrowSchema *s, const char *md);
/* The metadata key an INT96 column or leaf exported as its 12 stored bytes carries
 * (SCAN_ARROW_INT96_RAW: "w:12" alone does not tell it from an INTERVAL), value "raw". */
#define SCAN_ARROW_INT96_KEY "ringscan:int96"
/* The metadata key a Parquet INTERVAL column or leaf (fixed-size binary(12): months, days,
 * milliseconds) carries, value "interval", so that text output prints its parts. */
#define SCAN_ARROW_INTERVAL_KEY "ringscan:logical"
/* What built schema s of column or leaf d says beyond its format: SCAN_ARROW_INT96_KEY when d
 * is INT96 exported raw (s's format "w:12" under SCAN_ARROW_INT96_RAW);
 * SCAN_ARROW_INTERVAL_KEY for an INTERVAL ("w:12"); the arrow.uuid
 * extension for a UUID ("w:16") without one (a nested field's leaf, with no stored Arrow
 * schema: pyarrow reads it as that extension too); else nothing. 0 or -ENOMEM. */
int scan_arrow_schema_mark(struct ArrowSchema *s, const pq_column_desc *d, unsigned flags);
/* An ArrowSchema of the given format, name, child count (children zeroed, to be filled) and
 * flags; its strings live in its private block. 0 or -ENOMEM. */
int scan_arrow_schema_fill(struct ArrowSchema *s, const char *format, const char *name,
                           int64_t nchild, int64_t flags);
/* A flat column's (or a nested field's leaf's) array of Arrow format fmt from v (its buffers
 * taken over, v left empty), converted where Arrow's layout differs (scan/arrow_leaf.c). 0,
 * -ENOMEM, or RINGSCAN_EFORMAT with e naming column col (a decimal wider than its Arrow
 * width); v untouched on failure. */
int scan_arrow_leaf(const char *fmt, pq_vec *v, struct ArrowArray *a, const char *col, pq_err *e);
/* A struct array of length rows with room for nchild children (a->children[i] zeroed, to be
 * filled; a->n_children counts those filled, which release frees). 0 or -ENOMEM. */
int scan_arrow_struct_new(int64_t length, int64_t nchild, struct ArrowArray *a);
/* What scan/arrow_nested.c takes from arrow.c for the leaves of a nested field (handed over,
 * so calls go one way: arrow.c -> arrow_nested.c). */
typedef struct scan_arrow_ops {
    const char *(*format)(const pq_column_desc *d, unsigned flags, char *buf, size_t n);
    int (*schema_fill)(struct ArrowSchema *s, const char *format, const char *name,
                       int64_t nchild, int64_t flags);
    int (*leaf)(const char *fmt, pq_vec *v, struct ArrowArray *a, const char *col, pq_err *e);
    int (*metadata)(struct ArrowSchema *s, const char *md);
    int (*mark)(struct ArrowSchema *s, const pq_column_desc *d, unsigned flags);
    /* v's values as a dictionary array of index format index_fmt into values of format fmt
     * (v's buffers freed). 0, -ENOMEM, or RINGSCAN_EFORMAT with e naming column col when an
     * index does not fit a narrow stored index type (int8: more than 128 distinct values). */
    int (*dict_leaf)(const char *fmt, const char *index_fmt, pq_vec *v, struct ArrowArray *a,
                     const char *col, pq_err *e);
} scan_arrow_ops;

/* A nested field's schema, and its array from v's packed rows (v left empty)
 * (scan/arrow_nested.c). 0, RINGSCAN_ELIMIT (a list's elements past int32 offsets) or
 * -ENOMEM. */
int scan_arrow_nested_schema(const scan_arrow_col *c, unsigned flags, const scan_arrow_ops *ops,
                             struct ArrowSchema *s);
int scan_arrow_nested_array(const scan_arrow_col *c, unsigned flags, const scan_arrow_ops *ops,
                            pq_vec *v, struct ArrowArray *a, pq_err *e);

/* Moves b's vectors into a struct array (b's vectors are left empty; a list's packed rows
 * are unpacked into a list array). 0, -ENOMEM, or RINGSCAN_EFORMAT / RINGSCAN_ELIMIT with e
 * naming the column (a nested field whose rows break its stored Arrow type). */
int scan_arrow_batch(const scan_arrow_col *cols, unsigned flags, scan_batch *b,
                     struct ArrowArray *out, pq_err *e);

#endif
