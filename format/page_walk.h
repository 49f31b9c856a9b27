/* format/page_walk.h: iterating over the pages of one buffer - a whole column chunk, or one
 * page piece (a data page located by the offset index, or a dictionary page alone) - with
 * each page header parsed once. The caller decides per data page: decode its values, its
 * dictionary indices, or skip it undecoded.
 *
 * Rows are counted in the caller's window [0, window_rows) (a split of a row group, or the
 * row group): a page starting at window row first_row holds rows [first_row, first_row +
 * num_values), of which [a, e) lie inside the window.
 *
 * Invariants:
 *  1. Each page header is parsed once (pq_colr_frame): its sizes are checked against the
 *     reader's limits and its body against the buffer before pq_walk_next returns the page,
 *     so skipping a page never reads past the buffer.
 *  2. Dictionary pages are decoded into the reader on the way (its own dictionary; a shared
 *     one is cleared) and index pages skipped; pq_walk_next returns data pages only.
 *  3. Row checks are the walker's: a page piece's data page holds exactly exp_rows rows; no
 *     page holds a negative count; a whole chunk's pages end exactly at window_rows (neither
 *     page past it, nor fewer rows in all). Each is EFORMAT at a page's or the buffer's file
 *     offset, naming the column.
 *  4. At most one decode call per returned page; no allocation per page beyond the reader's
 *     scratch, which grows to the largest page and is reused.
 *  5. After an error every later pq_walk_next returns the same status. */
#ifndef RINGSCAN_FORMAT_PAGE_WALK_H
#define RINGSCAN_FORMAT_PAGE_WALK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/column.h"

/* One data page, as pq_walk_next returns it. */
typedef struct pq_walk_page {
    int64_t off;       /* file offset of the page header */
    pq_page_header h;  /* the parsed header */
    int64_t first_row; /* window row of the page's first row (negative: starts before it) */
    int64_t rows;      /* h.num_values (>= 0) */
    int64_t a, e;      /* its rows inside the window, 0 <= a <= e <= window_rows: the
                          intersection of [first_row, first_row + rows) with the window, or
                          when they do not meet a == e at the window's nearer edge */
} pq_walk_page;

typedef struct pq_page_walk {
    pq_col_reader *r;
    const uint8_t *buf;
    size_t len, pos;     /* pos: the header of the page next returned (or to be parsed) */
    int64_t file_off;    /* file offset of buf[0] */
    int64_t row;         /* window row of the next data page's first row */
    int64_t first;       /* window row of the first data page's first row (first_row) */
    int64_t exp_rows;    /* the page piece's row count by the offset index, or -1 */
    int64_t window_rows;
    int64_t chunk_end;   /* whole chunk: the window row its rows end at (>= window_rows;
                            more when the window is a leading or middle part of the chunk) */
    bool single_page;
    int state;           /* private: walk_state in page_walk.c */
    int status;          /* the error that ended the walk, or 0 */
    pq_page_header h;    /* the current page */
    int hl;              /* its header's length */
    int64_t a, e;
} pq_page_walk;

/* Starts a walk over buf[0, len), the bytes at file offset file_off, decoding with r (which
 * must outlive the walk; buf too). first_row: the window row the first data page starts at
 * (0 for a whole chunk; may be negative for a page piece starting before the window).
 * exp_rows: the rows the single data page must hold by the offset index, or -1 (a whole
 * chunk, or a dictionary page alone). window_rows >= 0: rows of the caller's window.
 * single_page: the buffer holds one page (a page piece or a dictionary piece; bytes after
 * it are ignored); false: a whole chunk, whose pages are walked while rows remain in the
 * window and bytes in the buffer. No allocation. */
void pq_walk_init(pq_page_walk *w, pq_col_reader *r, const uint8_t *buf, size_t len,
                  int64_t file_off, int64_t first_row, int64_t exp_rows, int64_t window_rows,
                  bool single_page);

/* A whole chunk's walk (single_page false) over a window that is only part of its rows: the
 * chunk's rows run from window row first_row (<= 0, as given to pq_walk_init) to chunk_end
 * (>= window_rows). Pages before the window come back with a == e == 0 (skip them undecoded),
 * the walk stops at the first page past the window's end, and the row checks become: no page
 * ends past chunk_end, and the pages reach window_rows. Right after pq_walk_init. */
void pq_walk_set_chunk_end(pq_page_walk *w, int64_t chunk_end);

/* Moves the edges *lo <= *hi (in [0, chunk_rows]) of a window of a whole chunk's rows to data
 * page starts, from the page headers of buf[0, len) (the chunk's bytes from its first page, at
 * file offset file_off; framed as pq_walk_next frames them, no body read, dictionary and
 * other pages skipped): an edge at 0 stays; any other goes to the nearest of the starts of
 * the data pages that begin past row 0 and before chunk_rows, and chunk_rows itself (a tie
 * to the later). The move depends only on the bytes and the edge and never reverses the
 * order of two edges, so windows that tile [0, chunk_rows), each moved so on the same bytes,
 * still tile it (some empty), and none of them starts or ends inside a page of this chunk.
 * Headers are read only up to the first data page starting past *hi. 0, or a status with e
 * filled: a header's (as pq_walk_next), EFORMAT "pages hold more rows than the row group" on
 * a negative row count (the page's offset). No allocation; r's state is not changed. */
int pq_walk_snap(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                 int64_t chunk_rows, int64_t *lo, int64_t *hi, pq_err *e);

/* Advances to the next data page (moving past the previous one, decoded or not, by its
 * header's compressed_size). Returns 1 with *pg filled; 0 at the end; or a negative status
 * with e filled (file offset, column):
 *  - the header's status (thrift EFORMAT, ELIMIT) at the page's offset, as pq_colr_page;
 *  - ELIMIT "limit max_page_bytes" / EFORMAT "page extends past the column chunk" (page's
 *    offset); "unknown page type" (page's offset); a dictionary page's decoding errors;
 *  - EFORMAT "page holds N rows, the offset index says M" (exp_rows >= 0, page's offset);
 *  - EFORMAT "pages hold more rows than the row group": num_values < 0, or with exp_rows -1
 *    a page ending past window_rows (past chunk_end: pq_walk_set_chunk_end) (page's offset);
 *  - EFORMAT "the offset index points at a page that is not a data page" (exp_rows >= 0 and
 *    the single page is a dictionary or index page; file_off);
 *  - at the end of a whole chunk, EFORMAT "column chunk holds N rows, row group has M" when
 *    its data pages' rows N differ from window_rows M (file_off) (with pq_walk_set_chunk_end:
 *    when they end before window_rows; N and M counted from the chunk's first row then, not
 *    the window's). */
int pq_walk_next(pq_page_walk *w, pq_walk_page *pg, pq_err *e);

/* Decodes the current page's values, appending to out (the column's physical type): sel
 * NULL, the rows [a, e) of the page (all of it when it lies inside the window, e - a rows);
 * else its rows sel[0..nsel) (page-relative, strictly increasing, each in
 * [a - first_row, e - first_row); nsel rows). Returns 0 or a negative status as pq_colr_page
 * (CRC, decompression, levels, values; e names the body's offset and the column); nothing
 * is appended on error. At most once per page, and not after pq_walk_indices. */
int pq_walk_values(pq_page_walk *w, const uint32_t *sel, int64_t nsel, pq_vec *out, pq_err *e);

/* Decodes the current page as pq_colr_page_idx_sel does: when it is dictionary-encoded and
 * the reader has a dictionary (its own or shared_dict), appends every row's dictionary index
 * to idx (INT32, nulls 0 and invalid; pg->rows entries, entry i being window row
 * first_row + i) and sets *as_idx; otherwise clears *as_idx and appends values to vals: of
 * every row of the page (pg->rows, sel NULL) or of rows sel[0..nsel) (page-relative,
 * ascending, each below pg->rows). Indices are checked against the dictionary's size.
 * Errors as pq_walk_values; at most once per page. */
int pq_walk_indices(pq_page_walk *w, const uint32_t *sel, int64_t nsel, pq_vec *idx,
                    pq_vec *vals, bool *as_idx, pq_err *e);
/* pq_walk_indices, except that a dictionary-encoded page without nulls whose dictionary has
 * bits->dlen entries (and whose rows fit bits->cap) is turned into its rows' bits instead:
 * bit i of bits->out (page row i, pg->rows bits, the words past them zeroed) is entry
 * idx_i's bit of bits->dm; bits->done and *as_idx set, idx untouched; with bits->kept, the
 * values of the rows whose bit and bits->in bit are set are appended to it too (decoded from
 * the same decompressed body). Any other page goes as pq_walk_indices says (bits->done
 * false), or with idx NULL (sel NULL then) its every row's values to vals (*as_idx false).
 * Errors as pq_walk_indices. */
int pq_walk_dict_bits(pq_page_walk *w, const uint32_t *sel, int64_t nsel, pq_vec *idx,
                      pq_vec *vals, bool *as_idx, pq_dict_bits *bits, pq_err *e);

#endif
