/* format/column_priv.h: what format/column.c (a page body's decoding) and format/page_walk.c
 * (framing: headers, CRCs, decompression, the page loop) share. Not for use outside format/.
 *
 * Invariants:
 *  1. A pq_page_req says everything one call wants from a data page; the reader keeps no
 *     trace of it (column.c resolves it per page).
 *  2. pq_colr_data_page and pq_colr_dict_page see only bodies whose sizes page_walk.c has
 *     checked against the buffer and the limits (column.h invariant 1). */
#ifndef RINGSCAN_FORMAT_COLUMN_PRIV_H
#define RINGSCAN_FORMAT_COLUMN_PRIV_H
#include "format/column.h"

/* What a caller wants from a data page. */
typedef struct pq_page_req {
    pq_vec *vals;        /* values are appended here (the column's physical type) */
    const uint32_t *sel; /* with nsel >= 0: only rows sel[0..nsel) (page-relative, strictly
                            increasing, each below num_values; checked, EFORMAT) */
    int64_t nsel;        /* -1: every row */
    pq_vec *idx;         /* NULL, or an INT32 vector: a dictionary-encoded page (dictionary
                            loaded) appends every row's index here instead, ignoring sel */
    pq_dict_bits *bits;  /* NULL, or a dictionary-encoded page without nulls whose dictionary
                            has bits->dlen entries and rows within bits->cap goes to bits->out
                            (and bits->kept) instead (bits->done set; idx untouched); with idx
                            NULL, any other page's values of every row go to vals */
} pq_page_req;

/* A data page's body split into levels and values (decompressed where compressed). */
typedef struct pq_page_body {
    const uint8_t *rep;    /* v2 repetition level bytes in the page (a repeated column only;
                              v1 keeps them at the start of levels); else NULL */
    size_t rep_len;
    const uint8_t *levels; /* v1: start of the decompressed body; v2: definition level bytes */
    size_t levels_len;
    const uint8_t *vals;
    size_t vals_len;
} pq_page_body;

/* Grows a scratch buffer to n bytes (old contents dropped). 0 or -ENOMEM. */
int pq_colr_reserve(void **buf, size_t *cap, size_t n);

/* Checks dictionary page h (file offset off) and empties the reader's dictionary for it
 * (has_dict false, shared_dict cleared, dict_loads counted). Errors name off and the column. */
int pq_colr_dict_reset(pq_col_reader *r, const pq_page_header *h, int64_t off, pq_err *e);
/* Replaces the reader's dictionary with the dictionary page body[0, n) (file offset off),
 * clearing shared_dict. Errors name off and the column. */
int pq_colr_dict_page(pq_col_reader *r, const pq_page_header *h, const uint8_t *body, size_t n,
                      int64_t off, pq_err *e);

/* Decodes data page h (body b at file offset off) as q asks; *as_idx (if not NULL) tells
 * whether indices went to q->idx. Nothing is appended on error; errors name off and the
 * column. */
int pq_colr_data_page(pq_col_reader *r, const pq_page_header *h, const pq_page_body *b,
                      int64_t off, const pq_page_req *q, bool *as_idx, pq_err *e);

/* Parses and frames the page at buf (len bytes, at file offset off): the header, its sizes
 * against the limits (ELIMIT) and its body against len ("page extends past the column chunk",
 * EFORMAT). Returns the header's length (> 0) or a negative status, e naming off. */
int pq_colr_frame(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t off,
                  pq_page_header *h, pq_err *e);

/* Decodes a page framed by pq_colr_frame (header h of hl bytes at file offset off, body raw):
 * CRC when asked, index pages nothing, dictionary pages into the reader, data pages as q asks
 * (q is unused otherwise). */
int pq_colr_decode(pq_col_reader *r, const pq_page_header *h, int hl, const uint8_t *raw,
                   int64_t off, const pq_page_req *q, bool *as_idx, pq_err *e);

/* What pq_colr_decode does up to a data page's body: CRC when asked, index pages nothing,
 * dictionary pages into the reader (*b->vals NULL then); a data page's body split into *b
 * (format/column_nested.c decodes it). */
int pq_colr_body(pq_col_reader *r, const pq_page_header *h, int hl, const uint8_t *raw,
                 int64_t off, pq_page_body *b, pq_err *e);

/* Appends nn non-null values encoded with enc (the page's value encoding) to out. On error
 * out's length and byte data may have moved past where they were: the caller restores them. */
int pq_colr_values(pq_col_reader *r, pq_encoding enc, const uint8_t *p, size_t len, int64_t nn,
                   pq_vec *out, pq_err *e);

/* out holds nn dense values at [base, base + nn) and length base + n: spreads them over
 * the n slots [base, base + n) where present[i] != 0 (nn of them), zeroing the others, and
 * sets their validity. */
void pq_colr_spread(pq_vec *out, int64_t base, const uint32_t *present, int64_t n, int64_t nn);

#endif
