/* scan/arrow_nested.h: what scan/arrow_nested.c (the general unpacking of a nested field's
 * packed rows into Arrow arrays) shares with scan/arrow_nested_fast.c (the fast shapes:
 * flat lists, structs of primitives and lists of leaves, column_nested.h), which it calls. Private to scan/. */
#ifndef RINGSCAN_SCAN_ARROW_NESTED_H
#define RINGSCAN_SCAN_ARROW_NESTED_H
#include <stdio.h>
#include <stdlib.h>

#include "format/column_nested.h"
#include "scan/arrow.h"
#include "scan/arrow_types.h"

#define NEST_VERIFY(c) ((c) ? (void)0 : (fprintf(stderr, "arrow_nested: broken %s\n", #c), abort()))

/* A node's builder: format's built column (vec.h pq_nest_col), so a split that hands its rows
 * over as columns (pq_vec.cols) gives the export its builders as they are. */
typedef pq_nest_col nest_builder;

typedef struct nest_unpack {
    const pq_file_meta *m;
    pq_nest *t;
    nest_builder *b;
    int32_t n;
    const scan_arrow_ops *ops; /* arrow.c's leaf primitives */
    const scan_arrow_node *nodes; /* the stored types, n entries, or NULL */
    const char *name;          /* the field's name (messages) */
    const char *rename;        /* NULL, or the field's exported name (scan_arrow_col.rename) */
    bool open;                 /* nodes exported nullable (scan_arrow_col.open) */
    pq_err *e;                 /* RINGSCAN_EFORMAT / RINGSCAN_ELIMIT messages */
} nest_unpack;

/* The most elements of one list node in a batch (arrow_nested.c invariant 2): INT32_MAX, Arrow's
 * int32 offsets. Only a test lowers it (tests/unit/test_nested_api.c), before any scan starts,
 * to reach the refusal with a small file. */
extern int64_t scan_nest_elements_max;

/* The most elements a fixed-size list's null slots may bring a batch's element vector to: a
 * stored fixed_size_list<N> with a huge N would otherwise make a few null rows of a tiny
 * file allocate gigabytes (2^28 elements: 131,072 rows of 2,048 at most). */
enum { SCAN_NEST_FIXED_MAX = 1 << 28 };

/* A flat list's rows v (column_nested.h "Flat lists", element width w) into node 0's
 * validity and offsets and node 1's values: v's validity moves to the list, and when no row
 * carries element flags v's bytes are the values and move too (no copy). 0 or -ENOMEM. */
int scan_nest_flat_unpack(nest_unpack *u, int32_t w, pq_vec *v);

/* After scan_nest_flat_unpack, for a list stored as fixed_size_list<size>: every null list
 * gets size null slots and every valid one must hold size elements (else RINGSCAN_EFORMAT),
 * as Arrow lays a fixed-size list out (at most SCAN_NEST_FIXED_MAX elements). 0, -ENOMEM,
 * RINGSCAN_EFORMAT or RINGSCAN_ELIMIT with u->e naming the column. */
int scan_nest_flat_fixed(nest_unpack *u, int32_t w, int32_t size);

/* A struct of primitives' rows v (pq_nest_prim_struct) into node 0's validity and its
 * children's values, every builder sized once, the rows walked with no call per value.
 * 0 or -ENOMEM. */
int scan_nest_struct_unpack(nest_unpack *u, pq_vec *v);

/* A list of leaves' rows v (pq_nest_leaf_list: the general layout) into node 0's validity
 * and offsets, the element struct's validity (when the element is a struct) and the leaves'
 * values, every builder sized once (a first pass reads each row's count), no call per
 * element but the leaf's inline copy. Not for a list stored as fixed_size_list (the general
 * walk gives its null slots). 0, -ENOMEM or RINGSCAN_ELIMIT. */
int scan_nest_list_unpack(nest_unpack *u, pq_vec *v);

#endif
