/* scan/listvec.h: a decoded list<primitive> column as the scan's floors carry it, and back.
 *
 * The floors move, compact and merge columns as pq_vec rows; a list column rides along as a
 * BYTE_ARRAY pq_vec, one row per list (a null list a null row), its bytes the list's elements
 * one after another: a flag byte (1: a value follows, 0: a null element), then the value: its
 * fixed width in bytes (BOOLEAN: one byte 0 or 1), or for BYTE_ARRAY a 4-byte little-endian
 * length and the bytes. So every row operation (take, compaction, Top-K's merge) works on it
 * unchanged, and only the two ends know the layout: the split task packs what
 * format/column_list.c decoded, the Arrow export unpacks it into a list array.
 *
 * Invariants:
 *  1. Packed rows are never longer in total than INT32_MAX bytes (RINGSCAN_ELIMIT), as any
 *     BYTE_ARRAY vector (format/vec.h invariant 4).
 *  2. Unpack reads only what pack wrote: a row whose bytes do not parse is a broken invariant
 *     (asserted in every build), never a file's fault. */
#ifndef RINGSCAN_SCAN_LISTVEC_H
#define RINGSCAN_SCAN_LISTVEC_H
#include <stdint.h>

#include "format/column_list.h"

/* Appends l's lists to out (a BYTE_ARRAY vector) as packed rows. 0, RINGSCAN_ELIMIT or
 * -ENOMEM (out unchanged in length then). */
int scan_list_pack(const pq_list_vec *l, pq_vec *out);

/* The elements of v's packed rows appended to items (initialised with the element's type),
 * and offsets[0 .. v->length] (room for v->length + 1) their int32 bounds per row. 0 or
 * -ENOMEM. */
int scan_list_unpack(const pq_vec *v, pq_vec *items, int32_t *offsets);

#endif
