/* scan/ds_npair.h: a file's nested field paired with a dataset's nested column node by node
 * (ds_nmatch.c) and its packed rows rewritten into the column's shape (ds_nwiden.c): the
 * leaf types that pair, the pairing, the rewrite. Part of ds_impl.h (included there). */
#ifndef RINGSCAN_SCAN_DS_NPAIR_H
#define RINGSCAN_SCAN_DS_NPAIR_H
#include <stdbool.h>
#include <stdint.h>

#include "format/column_nested.h"
#include "format/vec.h"

typedef struct ds_col ds_col; /* (ds_impl.h) */

/* (ds_nmatch.c) Whether nested leaves a and b hold the same values in the same bytes. */
bool ds_nested_leaf_same(const pq_column_desc *a, const pq_column_desc *b);
/* (ds_nmatch.c) Whether a nested leaf of type from widens into one of type to, as DuckDB
 * casts it: an integer (INT32 or INT64, any annotation) into one whose range holds it, an
 * integer into DuckDB's HUGEINT (a 16-byte DECIMAL(38, 0)) or a FLOAT, FLOAT to DOUBLE, an
 * integer to DOUBLE, a value ds_texted prints into a string (DuckDB's VARCHAR beside a
 * string); a timestamp (INT96: nanoseconds) into one of a unit as fine or finer, either zone;
 * a leaf of the null type (ds_null_typed: every value null) into any. */
bool ds_nested_leaf_widens(const pq_column_desc *from, const pq_column_desc *to);
/* (ds_nmatch.c) A timestamp's unit as a power of ten of seconds (3, 6, 9; INT96: 9), or 0 when
 * d is no timestamp. */
int ds_stamp_unit(const pq_column_desc *d);
/* (ds_nmatch.c) Whether a nested leaf of type from is cast into one of type to with a range
 * check, as DuckDB casts a later file's leaves to the first file's without union_by_name
 * (list<int64> under list<int32>: a value out of range fails the scan): an integer, a FLOAT
 * or a DOUBLE (rounded half to even) into any integer, a DOUBLE into a FLOAT; a timestamp
 * into a coarser unit (exactly, or refused as a flat column's rescale refuses it); a string
 * into a type ds_parse_leaf parses (a string that does not parse fails the scan). */
bool ds_nested_leaf_casts(const pq_column_desc *from, const pq_column_desc *to);
/* (ds_nmatch.c) A file's nested field (shape ft) paired with a dataset's nested column
 * (shape tt) node by node: struct fields by name, leaves the same, widening, or cast. */
typedef struct ds_npair {
    pq_nest *tt, *ft;           /* owned */
    int32_t nt, nf;
    int32_t *map;               /* [nt]: the file's node of each of tt's, or -1 (a struct field
                                   the file lacks: null) */
    bool fits;                  /* every node paired: kinds alike, leaves that read as tt's */
    bool shape_bad;             /* a node of another kind */
    bool extra;                 /* the file has struct fields tt lacks (dropped in a read) */
    bool differ;                /* the file's packed rows need a rewrite (ds_nested_widen) */
    int32_t lists;              /* while pairing: the lists and maps above the node paired */
    int32_t leaf[2];            /* the first leaf pair that does not read: its column in the
                                   column's file and in the file, else -1 */
    bool lacking;               /* paired by ds_npair_lacking */
    int32_t lack_lists;         /* ds_npair_lacking: the lists above the field the file lacks */
    int32_t lack_t, lack_f;     /* ds_npair_lacking: the column's node whose every value is
                                   null (the file lacks a struct field on its path) and the
                                   file's struct node read in its place (skipped); else -1 */
} ds_npair;
/* Pairs field fn of fm with field tn of tm (cast: leaves ds_nested_leaf_casts accepts pair
 * too). 0, -ENOMEM, or a status with e naming a node whose shape the format does not allow;
 * p freed by ds_npair_free (on an error too). */
int ds_npair_init(ds_npair *p, const pq_file_meta *tm, int32_t tn, const pq_file_meta *fm,
                  int32_t fn, bool cast, pq_err *e);
/* ds_npair_init for a path tn inside a nested column (a list or map on the way) that file
 * fm lacks a struct field on: fn is a node of fm as deep in lists as the struct that lacks the
 * field (the same repetition level: its shape the path's lists, then a node). The lists pair
 * as ds_npair_init pairs them; the column's node under them pairs with the file's there as
 * lack_t, lack_f (every value null, the file's skipped, as DuckDB reads [x.c FOR x IN k]
 * where a file's struct lacks c). Same returns. */
int ds_npair_lacking(ds_npair *p, const pq_file_meta *tm, int32_t tn, const pq_file_meta *fm,
                     int32_t fn, bool cast, pq_err *e);
void ds_npair_free(ds_npair *p);
/* (ds_nwiden.c) Whether nested field node of file m packs as nested column c does (the same
 * nodes, field names in the same order, leaf types): its rows need no rewrite. */
bool ds_nested_same_leaves(const ds_col *c, const pq_file_meta *m, int32_t node);
/* (ds_nwiden.c) v (file m's packed rows of node `node` there: nested column c's field, or a
 * path inside it) widened into the shape of node tn of c->meta (c->node, or the same path
 * there; its leaves narrower: ds_nested_leaf_widens, or cast: ds_nested_leaf_casts; struct
 * fields by name). 0, -ENOMEM, -EOVERFLOW, or a status with e naming the column (and the
 * value and leaf, RINGSCAN_EUNSUPPORTED, when a cast value does not fit). */
int ds_nested_widen(const ds_col *c, int32_t tn, const pq_file_meta *m, int32_t node, pq_vec *v,
                    pq_err *e);
/* ds_nested_widen for a path tn that file m lacks a struct field on inside a list or map
 * (node: the file's struct that lacks it, ds_npair_lacking): the file's lists as they are,
 * every value the path reaches in them null. */
int ds_nested_widen_lacking(const ds_col *c, int32_t tn, const pq_file_meta *m, int32_t node,
                            pq_vec *v, pq_err *e);

#endif
