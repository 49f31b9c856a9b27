/* format/column_list.h: decoding the column chunk of a list of a primitive (a top-level LIST
 * whose element is one primitive leaf: the three-level form or the legacy two-level one) into
 * Arrow's list layout: one int32 offset per list, a validity bit per list, and the elements
 * as a pq_vec with their own validity.
 *
 * Levels (Dremel): a level pair (rep, def) per value slot. rep 0 starts a list (a row); def
 * below def_list means the row's list is null, def_list <= def < def_item an empty list,
 * def >= def_item one element, null when def < def_value.
 *
 * Invariants:
 *  1. Every count read from a page is checked before use: num_values against the reader's
 *     max_page_values, repetition levels <= 1 and definition levels <= def_value (EFORMAT
 *     naming the page's file offset and the column), the first level of the chunk starts a
 *     list, the elements fit int32 offsets (ELIMIT), the lists equal the caller's row count.
 *  2. Decoding appends to out or fails leaving it as it was (length, elements).
 *  3. Scratch is the reader's (levels, sel_buf for the repetition levels, page for a page's
 *     dense values): it grows to the largest page and is reused; nothing is allocated per
 *     value beyond out's geometric growth.
 *  4. Null lists and null elements have zeroed value slots (format/vec.h invariant 2); a null
 *     list's offsets are empty (offsets[i] == offsets[i + 1]). */
#ifndef RINGSCAN_FORMAT_COLUMN_LIST_H
#define RINGSCAN_FORMAT_COLUMN_LIST_H
#include <stdbool.h>
#include <stdint.h>

#include "format/column.h"

/* The definition levels that decide a list<primitive> leaf's shape (above). */
typedef struct pq_list_levels {
    int16_t def_list;  /* the LIST node's level: lower is a null list */
    int16_t def_item;  /* the repeated node's level: an element exists from it on */
    int16_t def_value; /* the leaf's max level: the element is not null */
} pq_list_levels;

/* The levels of column col when it is the element leaf of a top-level LIST of a primitive
 * with one repetition level (pq_schema_node.element is the leaf), or the key of a top-level
 * MAP of keys only (read as a list of the keys, as pyarrow does); false for any other column
 * (*out untouched). */
bool pq_list_levels_of(const pq_file_meta *m, int32_t col, pq_list_levels *out);

typedef struct pq_list_vec {
    int64_t length;     /* lists */
    int64_t null_count; /* null lists */
    uint8_t *validity;  /* bit i: list i is not null (always kept, length bits) */
    int32_t *offsets;   /* length + 1 entries into items; offsets[0] == 0 */
    int64_t cap;        /* lists the buffers hold */
    pq_vec items;       /* the elements, in order, with their nulls */
} pq_list_vec;

void pq_list_vec_init(pq_list_vec *l, pq_physical type, int32_t type_length);
void pq_list_vec_free(pq_list_vec *l);

/* Decodes a whole column chunk of a list<primitive> leaf (r initialised for it: its desc is
 * the leaf) whose bytes from its first page to its end are buf[0, len) at file offset
 * file_off, appending its rows lists to out. Dictionary, v1 and v2 data pages and every
 * value encoding the flat reader knows. Returns 0 or a negative status (RINGSCAN_EFORMAT,
 * RINGSCAN_EUNSUPPORTED, RINGSCAN_ELIMIT, RINGSCAN_ECHECKSUM, -ENOMEM) with e naming the
 * offset and the column. */
int pq_colr_list_chunk(pq_col_reader *r, const pq_list_levels *lv, const uint8_t *buf,
                       size_t len, int64_t file_off, int64_t rows, pq_list_vec *out, pq_err *e);

#endif
