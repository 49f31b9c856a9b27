/* format/column_nested.h: decoding a nested top-level field (struct, list, map, any depth,
 * every leaf under it) from its leaves' column chunks into one packed value per row.
 *
 * The Arrow shape of a field (pq_nest) follows pyarrow's reading of the schema tree
 * (format/meta.h pq_schema_node): a LIST group is a list of its element (three-level, or the
 * legacy two-level and unannotated forms, LogicalTypes.md's backward-compatibility rules), a
 * MAP (or MAP_KEY_VALUE) group a map of its key_value group's key and value (keys only: a
 * list of the keys), a repeated node that is not a list's middle level a non-null list of
 * itself, another group a struct.
 *
 * Packed value (schema-driven; only this decoder and the Arrow export, scan/arrow_nested.c,
 * know it): value(T) = one flag byte (0 null, 1 valid), then when valid:
 *   PRIM    the value: BOOLEAN one byte 0/1; BYTE_ARRAY a 4-byte little-endian length and the
 *           bytes; other types their fixed width (INT96 12 bytes, FLBA type_length)
 *   STRUCT  value(child) for each child in order
 *   LIST    a 4-byte little-endian count n, then n times value(element)
 *   MAP     as LIST, its element the entries struct<key, value>
 * A row is value(field); the row of a null field is also null in the BYTE_ARRAY vector.
 *
 * Flat lists (pq_nest_flat_width): a field that is a LIST of one primitive leaf of fixed
 * width w >= 2 (INT32, INT64, FLOAT, DOUBLE, INT96, FIXED_LEN_BYTE_ARRAY of 2 bytes or more;
 * a list with one repetition level) packs flat instead, with no flag byte:
 *   a null list or an empty one: no bytes (the vector's validity tells them apart);
 *   n elements, none null: their n*w value bytes (so the length is 0 mod w);
 *   n elements, some null: the n*w value bytes (zeroes at a null), n flag bytes (0 null,
 *           1 valid), then 0 to w-1 zero bytes that make the length 1 mod w (n = length /
 *           (w + 1): pq_nest_flat_count).
 * So a split whose elements are all valid is its leaf's values as decoded, in order: the
 * assembly moves them into the vector (no per-row bytes) and the Arrow export hands them on
 * as the list's values; the list's offsets and validity come from the levels in one pass
 * (Dremel's repetition and definition levels, as Arrow's DefRepLevelsToList).
 *
 * Lists of leaves (pq_nest_leaf_list) and structs of primitives (pq_nest_prim_struct) keep
 * the layout above; format/nest_list.c and format/nest_struct.c pack them in passes over the
 * levels instead of the general walk, and give the walk's bytes and errors.
 *
 * Assembly (Dremel): each leaf's (repetition, definition) level pairs in order; a node's
 * instance is decided by the levels of the first leaf under it, the other leaves consumed in
 * step. Invariants:
 *  1. Every level and count read from a page is checked: levels within the leaf's maxima, a
 *     level pair whose repetition is not the one the structure expects, a leaf whose level
 *     disagrees with the first leaf on a null or empty value, a leaf that ends early or holds
 *     entries past the row group's rows: RINGSCAN_EFORMAT naming the offset of the leaf's
 *     chunk and the leaf column.
 *  2. Decoding appends rows to out or fails leaving its length unchanged.
 *  3. Recursion depth is bounded by the schema depth (max_schema_depth); every loop by the
 *     leaf's level count. */
#ifndef RINGSCAN_FORMAT_COLUMN_NESTED_H
#define RINGSCAN_FORMAT_COLUMN_NESTED_H
#include <stdbool.h>
#include <stdint.h>

#include "format/column.h"

typedef enum { PQ_NEST_PRIM = 0, PQ_NEST_STRUCT, PQ_NEST_LIST, PQ_NEST_MAP } pq_nest_kind;

/* One node of a field's Arrow shape; a field's nodes are an array in pre-order, a node's
 * first child right after it, each next sibling at the previous one's end. */
typedef struct pq_nest {
    pq_nest_kind kind;
    const char *name;   /* the Arrow field name (pyarrow's) */
    bool nullable;
    int16_t def_valid;  /* definition level from which the value is not null */
    int16_t def_item;   /* LIST/MAP: from which the list holds an element */
    int16_t rep_item;   /* LIST/MAP: the repetition level of a next element */
    int32_t col;        /* PRIM: its leaf column; else -1 */
    int32_t leaf_lo, leaf_hi; /* the leaf columns under it: [leaf_lo, leaf_hi) */
    int32_t src;        /* the schema node it comes from (a list a path passes: that list's
                           or map's node; a map's entries: its key_value group) */
    int32_t nchildren;
    int32_t end;        /* index one past its subtree */
} pq_nest;

/* The most nodes a field's shape can take for a field of n schema nodes (a repeated node
 * that is not a list's middle level takes two). */
#define PQ_NEST_NODES(n) (2 * (n) + 2)
/* The most nodes the shape of node `node` of m takes: its subtree's, and one list for each
 * ancestor a path through lists and maps passes (pq_nest_build). */
#define PQ_NEST_CAP(m, node) (PQ_NEST_NODES((m)->nodes[node].end - (node)) + (m)->nodes[node].depth - 1)

/* The shape of field `node` into out[0 .. return) (room for PQ_NEST_CAP(m, node)): a
 * top-level field, or a node inside one, named by its dotted path ("s.a", as DuckDB names a
 * struct's field). Structs on the way are left out (the value is null where a struct above
 * it is); each list or map on the way becomes a list of what the path reaches in its
 * elements ("lst.list.element.a": list<a>, DuckDB's [x.a for x in lst]; "m.key_value.key":
 * list<key>, DuckDB's map_keys(m)); a list's or map's repeated level itself reaches its
 * elements ("lst.list": as "lst"; "m.key_value": list<struct<key, value>>). Inner lists'
 * elements are named "element". RINGSCAN_EUNSUPPORTED with e naming the node for a LIST or
 * MAP whose shape the format does not allow (pyarrow refuses those too). */
int pq_nest_build(const pq_file_meta *m, int32_t node, pq_nest *out, pq_err *e);

/* The top-level field (its node) whose first leaf is column col, or -1 (col is flat or
 * another leaf of its field). */
int32_t pq_nest_field_of(const pq_file_meta *m, int32_t col);

/* 0 when node has a shape pq_nest_build accepts; else its error (e may be NULL) or -ENOMEM. */
int pq_nest_check(const pq_file_meta *m, int32_t node, pq_err *e);

/* The leaf columns under node: their count, *first the first (they are consecutive). */
int32_t pq_nest_leaves(const pq_file_meta *m, int32_t node, int32_t *first);

/* The decoded levels and values of one leaf's column chunk. */
typedef struct pq_nest_leaf {
    int64_t n;          /* level pairs */
    uint16_t *rep, *def;
    int64_t cap;
    pq_vec vals;        /* the non-null values (def == max), dense, in order */
    int64_t pos, vpos;  /* assembly cursors */
    int64_t file_off;   /* the chunk's offset, for messages */
    int64_t row0;       /* the chunk's row its first pair starts (a cut group's split: its
                           first row; else 0), for messages */
} pq_nest_leaf;

void pq_nest_leaf_init(pq_nest_leaf *l, const pq_column_desc *c);

/* The RINGSCAN_EFORMAT of l's level pair pos (column col), what it breaks: "level pair N of
 * the column chunk", counted from row row0 of the chunk when l holds a split's rows (a pair
 * index of the split's leaf alone named no place in the chunk). */
int pq_nest_pair_error(pq_err *e, const pq_nest_leaf *l, const char *col, int64_t pos,
                       const char *what);
/* The RINGSCAN_EFORMAT of l (column col) holding extra level pairs past its rows rows: the
 * rows counted from the chunk's first (row0 + rows), not from the split's. */
int pq_nest_pairs_past(pq_err *e, const pq_nest_leaf *l, const char *col, int64_t extra,
                       int64_t rows);

/* Sizes l for n level pairs (and as many fixed-width values) up front: the chunk metadata's
 * value count, a hint only (decoding still checks and grows). 0 or -ENOMEM. */
int pq_nest_leaf_reserve(pq_nest_leaf *l, int64_t n);
void pq_nest_leaf_free(pq_nest_leaf *l);

/* The n leaves (columns first .. first + n - 1) r keeps for the nested field whose first
 * leaf it reads: made on the first call, then handed back empty with their buffers (levels,
 * values) kept, so a core decoding one row group after another reuses the memory instead of
 * mapping and faulting in fresh pages for each. Freed by pq_colr_free. NULL: -ENOMEM. */
pq_nest_leaf *pq_nest_leaves_keep(pq_col_reader *r, const pq_column_desc *first, int32_t n);

/* Decodes leaf r->col's whole column chunk (bytes buf[0, len) at file offset file_off, from
 * its first page to its end) into l: its levels and non-null values. Dictionary, v1 and v2
 * pages, every value encoding the flat reader knows. 0 or a negative status with e naming the
 * page's offset and the column. */
int pq_nest_leaf_chunk(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                       pq_nest_leaf *l, pq_err *e);

/* Decodes the page of leaf r->col's chunk (buf[0, len) at file offset file_off) starting at
 * *pos (< len) onto l, as pq_nest_leaf_chunk does for each page, and moves *pos past it. 0 or
 * pq_nest_leaf_chunk's errors (the page's levels and values are then not in l). */
int pq_nest_leaf_next(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                      size_t *pos, pq_nest_leaf *l, pq_err *e);

/* Where the decode of one leaf's chunk stands between the splits of a cut row group one
 * core runs (format/nest_stream.c): the pages before pos are decoded, and carry holds the
 * level pairs and values of rows from row on that the last split did not take (the rest of
 * the page its last row ended in). The leaf decodes with rd, kept here so that a dictionary
 * decoded at the chunk's start serves its later pages. While a call waits for chunk bytes
 * (PQ_NEST_NEED) need_len > 0 and the call's rows and choice to park are kept (resume_*). */
#define PQ_NEST_PARKS 4 /* row ranges a stream parks at most (the oldest goes first) */
typedef struct pq_nest_stream {
    int32_t rg;          /* the row group streamed, -1 none */
    int64_t file_off;    /* its chunk's offset */
    int64_t row;         /* the row carry starts at */
    size_t pos;          /* chunk bytes decoded */
    pq_nest_leaf carry;
    struct pq_nest_park { /* rows [lo, hi) of row group park_rg's chunk at park_off, decoded */
        pq_nest_leaf l;   /* while skipping to a later split before an earlier one ran (split */
        int64_t lo, hi;   /* tasks of one core run out of order): that one takes them here */
    } park[PQ_NEST_PARKS];
    int32_t park_rg;     /* -1 none */
    int64_t park_off;
    uint64_t need_off, need_len; /* PQ_NEST_NEED: chunk bytes [need_off, +need_len) at least */
    int64_t resume_lo, resume_hi; /* the rows of the call that returned PQ_NEST_NEED */
    bool resume_keep;    /* whether that call parks the rows it skips */
    bool need_exact;     /* PQ_NEST_NEED asks need_len bytes and no more (the dictionary
                            page before a jump: nest_stream.c invariant 7) */
    int64_t next_row;    /* with an index: the row the next row start decoded begins (the
                            rows started since the stream's start or jump: invariant 7) */
    int64_t resume_from; /* the first row the call that returned PQ_NEST_NEED parks */
    int64_t ran_lo;      /* with an index: the row the stream ran from since its last jump
                            or start (rows [ran_lo, row) went to calls or parks) */
    int32_t done_rg;     /* with an index: rows [done_lo, done_hi) of done_rg's chunk at */
    int64_t done_off;    /* done_off were run (the stream went back behind them, or on to */
    int64_t done_lo, done_hi; /* the chunk's end): never parked again. done_rg -1: none */
    pq_col_reader rd;    /* the leaf's reader (rd.col NULL until first used) */
} pq_nest_stream;

/* Bytes [off, off + len) of a leaf's column chunk (chunk_len bytes at file offset file_off)
 * at data: the whole chunk (off 0, len chunk_len) or a window of it, which the scan reads
 * when a stream asks (PQ_NEST_NEED) so that a chunk larger than memory streams through. */
typedef struct pq_nest_win {
    const uint8_t *data;
    uint64_t off;
    size_t len;
    uint64_t chunk_len;
    int64_t file_off;
    const pq_offset_index *oi; /* the chunk's offset index, checked against it
                                  (pq_offset_index_valid), or NULL: with one a call starts at
                                  the page holding its first row (nest_stream.c invariant 7) */
    int64_t park_from;         /* with oi: the caller's core may still ask for rows from here
                                  on before the call's (its other tasks' splits): those the
                                  call decodes on its way are parked, the rows before not
                                  decoded (0 without an index: the stream's own rule) */
} pq_nest_win;

/* pq_nest_leaf_rows' status (> 0, no error) when the window given ends before the next page
 * does (its header or its body) and the chunk goes on: call again for the same rows with a
 * window holding chunk bytes [s->need_off, + s->need_len) (need_off is s->pos, the page's
 * start; need_len at most the chunk's rest). */
#define PQ_NEST_NEED 1
/* The largest page header a window is grown to hold, and that a whole chunk's decode parses
 * (a header that does not parse within this many bytes is broken: RINGSCAN_EFORMAT "page
 * header not parsed within", whatever the window size; pyarrow's limit too). */
#define PQ_NEST_HEADER_MAX ((uint64_t)16 << 20)

/* The streams (one per leaf, n: as given to pq_nest_leaves_keep, called first) r keeps for
 * the nested field whose first leaf it reads; freed by pq_colr_free. NULL: -ENOMEM. */
pq_nest_stream *pq_nest_streams(pq_col_reader *r, const pq_column_desc *first, int32_t n);
/* Frees s's carry and reader (pq_colr_free calls it for the streams a reader keeps). */
void pq_nest_stream_free(pq_nest_stream *s);

/* Rows [lo, hi) of row group rg's chunk of leaf r->col (w: a window of it, or all of it)
 * into l (empty): their level pairs and values, what decoding only those rows would have
 * given (format/nest_stream.c). Pages are decoded once across calls that ask for rising row
 * ranges (the splits of a cut group, in order): s keeps the position and the rows decoded
 * past hi; a call for rows before s's restarts from the chunk's start (a split run out of
 * order or stolen: correct, slower), or with w->oi from the page holding row lo, as does a
 * call whose row lo lies in a page s has not reached (a jump; each page decoded that the
 * index starts is checked to begin the row the index gives it, RINGSCAN_EFORMAT naming it
 * otherwise).
 * With to_end (hi is the group's last row) every page left is decoded, so level pairs past
 * the group's rows stay in l for the assembly to name (invariant 1). PQ_NEST_NEED when a
 * page the call needs does not lie wholly inside w while the chunk goes on (l is then empty
 * again, the rows decoded so far kept in s): the caller calls again with the bytes s asks
 * for (a page larger than any window grows it, up to the chunk's end; a header to
 * PQ_NEST_HEADER_MAX; exactly those bytes when s->need_exact). A chunk ending before row lo:
 * RINGSCAN_EFORMAT; ending before hi leaves l short (the assembly names it). Other errors
 * pq_nest_leaf_chunk's, a page past the chunk's end RINGSCAN_EFORMAT naming its offset and
 * the column; on any error s is reset. */
int pq_nest_leaf_rows(pq_col_reader *r, pq_nest_stream *s, int32_t rg, const pq_nest_win *w,
                      int64_t lo, int64_t hi, bool to_end, pq_nest_leaf *l, pq_err *e);

/* Fails when a map in field t (pq_nest_build) whose key the schema makes OPTIONAL holds a
 * null key in its decoded leaves (rows of row group rg from row row0 on, a split's window:
 * every one, or when sel is not NULL the rows sel[0..] of the window they were cut to,
 * pq_nest_leaves_select): RINGSCAN_EFORMAT with e naming the row (in rg: row0 + its index
 * in the window), rg, the map, the key's column and its chunk's offset, and *at_row the
 * row's index among the leaves' rows (the earliest holding a null key in any of t's maps);
 * else 0 and *at_row -1. A map's keys export as non-null, so a caller checks before
 * assembling (format/nest_keys.c), and assembles at most the rows before *at_row. */
int pq_nest_keys_check(const pq_file_meta *m, const pq_nest *t, const pq_nest_leaf *leaves,
                       const uint32_t *sel, int32_t rg, int64_t row0, int64_t *at_row,
                       pq_err *e);

/* A row holding a null map key, kept to be named later (pq_nest_null_key_err), once the
 * leaves that showed it are gone: a Top-K split reads such a row with its map absent and
 * fails the scan only if the row reaches the answer (scan/topk.h invariant 4). */
typedef struct pq_nest_null_key {
    int64_t row;      /* in its row group */
    int64_t file_off; /* the key column's chunk */
    int32_t rg;
    int32_t map;      /* the map's schema node (m->nodes), or -1: the row holds no null key */
    int32_t col;      /* the key's leaf column */
} pq_nest_null_key;

/* As pq_nest_keys_check, for every row: out[i] (i < rows, the rows the leaves hold) names the
 * first of t's maps holding a null key in row i, or has map -1. Returns how many rows hold
 * one (a row past rows, in leaves that do not hold exactly rows rows, is left to the
 * assembly to name). */
int64_t pq_nest_keys_rows(const pq_nest *t, const pq_nest_leaf *leaves, int64_t rows,
                          const uint32_t *sel, int32_t rg, int64_t row0, pq_nest_null_key *out);
/* Fills e with k's error (k->map >= 0): pq_nest_keys_check's. Returns RINGSCAN_EFORMAT. */
int pq_nest_null_key_err(const pq_file_meta *m, const pq_nest_null_key *k, pq_err *e);
/* The same, with the key's column and the map's path given (k's footer gone). */
int pq_nest_null_key_named(const pq_nest_null_key *k, const char *column, const char *map,
                           pq_err *e);

/* Field t's decoded leaves (its leaf_hi - leaf_lo, as for pq_nest_assemble) cut in place to
 * the rows sel[0..nsel) (rising, each < rows) of the rows rows they hold, so an assembly of
 * nsel rows builds only those (format/nest_select.c). False, the leaves left whole, when one
 * does not hold exactly rows rows (the assembly of rows rows then names it). */
bool pq_nest_leaves_select(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                           int64_t rows, const uint32_t *sel, int64_t nsel);
/* Field t's decoded leaves (as for pq_nest_leaves_select) cut in place to their first keep
 * rows (0 <= keep <= rows) of the rows rows they hold: what decoding only those would have
 * given (format/nest_select.c). False, the leaves left whole, when one does not hold exactly
 * rows rows. */
bool pq_nest_leaves_head(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                         int64_t rows, int64_t keep);
/* Field t's decoded leaves (as for pq_nest_leaves_select) with the rows blank[0..nblank)
 * (rising, each < rows) made absent in place: each such row's level pairs become one pair
 * (repetition 0, definition 0: its shallowest optional or repeated node is null or empty)
 * and its values go; a leaf whose definition level is always 0 (required all the way)
 * keeps its one value per row. Every other row is unchanged. False, the leaves left whole,
 * when one does not hold exactly rows rows. */
bool pq_nest_leaves_blank(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                          int64_t rows, const uint32_t *blank, int64_t nblank);

/* The element width w >= 2 when field t (pq_nest_build) packs as a flat list (layout
 * above), else 0. */
int32_t pq_nest_flat_width(const pq_file_meta *m, const pq_nest *t);

/* The element count of a flat row of len bytes (w: pq_nest_flat_width); *flagged whether it
 * carries element flags (some element is null). */
static inline int64_t pq_nest_flat_count(int64_t len, int32_t w, bool *flagged)
{
    *flagged = len % w == 1;
    return *flagged ? len / (w + 1) : len / w;
}

/* Assembles rows packed values (layout above) of the field t (pq_nest_build) from its leaves'
 * decoded chunks leaves[0 .. t->leaf_hi - t->leaf_lo) and appends them to out (BYTE_ARRAY).
 * 0, RINGSCAN_EFORMAT (invariant 1), RINGSCAN_ELIMIT (packed bytes past INT32_MAX) or -ENOMEM,
 * with e naming the offset and column. The leaves are spent (a flat list's values may move
 * into out, leaving the leaf with none): decode them again before another assembly. */
int pq_nest_assemble(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                     int64_t rows, pq_vec *out, pq_err *e);

/* pq_nest_assemble for a flat list (w = pq_nest_flat_width(m, t) > 0) from its one leaf. */
int pq_nest_flat_assemble(const pq_file_meta *m, const pq_nest *t, int32_t w, pq_nest_leaf *l,
                          int64_t rows, pq_vec *out, pq_err *e);

/* Whether field t is a struct whose children are all primitives without repetition (its
 * rows keep the layout above; pq_nest_assemble packs them column by column). */
bool pq_nest_prim_struct(const pq_file_meta *m, const pq_nest *t);

/* pq_nest_assemble by the general walk, row by row and node by node (any shape but a flat
 * list, whose layout differs): what the fast assemblies of the general layout (structs of
 * primitives, lists of leaves) fall back to for the error of a split they find broken, and
 * what tests compare their bytes with. */
int pq_nest_walk_assemble(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                          int64_t rows, pq_vec *out, pq_err *e);

/* Whether field t is a list of leaves: a LIST or MAP with one repetition level whose element
 * is a primitive that does not pack flat (BYTE_ARRAY, BOOLEAN, a one-byte
 * FIXED_LEN_BYTE_ARRAY) or a struct of at most PQ_NEST_LIST_CHILDREN primitives (a map's
 * entries, a list of structs), every leaf repeated once. Its rows keep the layout above;
 * pq_nest_assemble packs them in two passes over the levels (format/nest_list.c). */
#define PQ_NEST_LIST_CHILDREN 64
bool pq_nest_leaf_list(const pq_file_meta *m, const pq_nest *t);

/* pq_nest_assemble for a list of leaves (pq_nest_leaf_list). */
int pq_nest_list_assemble(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                          int64_t rows, pq_vec *out, pq_err *e);

/* pq_nest_assemble for a struct of primitives (pq_nest_prim_struct). */
int pq_nest_struct_assemble(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves,
                            int64_t rows, pq_vec *out, pq_err *e);

/* Whether field t's rows can be handed over as its columns (pq_nest_columns): a struct of
 * primitives, a list of leaves or a flat list. */
bool pq_nest_has_columns(const pq_file_meta *m, const pq_nest *t);

/* The rows of field t (pq_nest_has_columns) as its columns (format/vec.h invariant 6, one
 * pq_nest_col per node of t, in t's order: a struct's or list's validity and offsets, a
 * leaf's values with their validity, every slot of a null parent null) built from its
 * leaves' decoded chunks, set as out->cols with out->length = rows (out empty). The checks
 * and errors are pq_nest_assemble's; on failure out is unchanged. A list whose levels its
 * checks refuse goes to its packed assembly: out then holds packed rows (or that assembly's
 * error names the problem), so a caller accepts either form. The leaves are spent
 * (buffers may move into the columns), as after pq_nest_assemble. format/nest_cols.c. */
int pq_nest_columns(const pq_file_meta *m, const pq_nest *t, pq_nest_leaf *leaves, int64_t rows,
                    pq_vec *out, pq_err *e);

#endif
