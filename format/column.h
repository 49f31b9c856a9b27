/* format/column.h: decoding the pages of one column chunk into a pq_vec (Arrow layout).
 *
 * Owns: the column reader and its one-page entry points: page framing (header, CRC,
 * decompression; format/page_walk.c), definition levels, dispatch on the page's value
 * encoding, the chunk's dictionary, and scattering dense non-null values over null rows
 * (format/column.c). Decodes from caller buffers only (no I/O). To iterate over the pages
 * of a buffer with each header parsed once, see format/page_walk.h.
 *
 * Invariants:
 *  1. Every size taken from a page header is checked against the bytes the caller supplied and
 *     against the reader's limits before anything is allocated or decompressed.
 *  2. A data page appends exactly its num_values rows to the output or fails leaving the
 *     output's length unchanged.
 *  3. Null rows have zeroed value slots (fixed width) or empty ranges (byte arrays).
 *  4. The dictionary belongs to the reader and lives until pq_colr_free or the next dictionary
 *     page; dictionary-encoded pages before any dictionary page are EFORMAT.
 *  5. Scratch buffers (decompression, levels, indices) grow to the largest page seen, never
 *     past the limits, and are reused across pages: no allocation per row.
 *  6. A page is consumed exactly as its header declares: the decompressed size equals
 *     uncompressed_size (codec.c), the level runs end with num_values (at most the padding of
 *     a last bit-packed group left), and the value decoder ends at the end of the page (PLAIN,
 *     DELTA_*, BYTE_STREAM_SPLIT, RLE booleans; dictionary indices also lie inside the
 *     dictionary). Anything else is EFORMAT naming the page body's file offset and the column:
 *     without a frame checksum it is how a corrupted zstd page shows. */
#ifndef RINGSCAN_FORMAT_COLUMN_H
#define RINGSCAN_FORMAT_COLUMN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/meta.h"
#include "format/vec.h"

typedef struct pq_col_limits {
    int64_t max_page_bytes;        /* compressed or uncompressed page size; default 1 GiB */
    int64_t max_page_values;       /* rows in one page; default 64 Mi */
    int64_t max_dict_values;       /* dictionary entries; default 64 Mi */
    int64_t max_decompressed_bytes; /* per reader (one chunk or scan); default 64 GiB */
    int64_t max_scan_decompressed_bytes; /* over every reader sharing scan_decompressed (one
                                            scan, all cores); default 256 GiB */
    bool verify_crc;               /* check page CRCs when present (off by default) */
} pq_col_limits;

void pq_col_limits_default(pq_col_limits *l);

/* A predicate's bits per dictionary entry, for a dictionary-encoded page to be turned into
 * its rows' bits directly (page_walk.h pq_walk_dict_bits; format/encoding.h pq_rle_bits). */
typedef struct pq_dict_bits {
    const uint64_t *dm; /* bit v (dm[v >> 6] >> (v & 63)): dictionary entry v passes */
    int64_t dlen;       /* entries dm covers: used only when the page's dictionary has as many */
    uint64_t *out;      /* the page's rows' bits, row i at bit i (words zeroed by the decoder) */
    int64_t cap;        /* bits out has room for */
    const uint64_t *in; /* with kept: the page's rows wanted, row i at bit i (NULL: all) */
    pq_vec *kept;       /* NULL, or the values of the rows whose bit and in-bit are set are
                           appended here (the column's physical type), from the same body */
    bool done;          /* set when the page went to out (and kept) */
} pq_dict_bits;

typedef struct pq_col_reader {
    const pq_column_desc *col;
    pq_codec codec;
    pq_col_limits limits;
    pq_vec dict;                   /* decoded dictionary values */
    bool has_dict;
    const pq_vec *shared_dict;     /* NULL, or a decoded dictionary owned elsewhere (a scan's
                                      cache, immutable while set) used instead of dict; a
                                      dictionary page clears it */
    int64_t dict_loads;            /* dictionary pages decoded (tells a replaced dictionary) */
    uint8_t *scratch;              /* decompressed page body */
    size_t scratch_cap;
    uint32_t *levels;              /* definition levels of one page */
    size_t levels_cap;
    pq_vec page;                   /* one page's rows when a selection needs the full page */
    uint32_t *idx;                 /* dictionary indices of one page */
    size_t idx_cap;                /* bytes */
    uint32_t *sel_buf;             /* gather list and levels of the selected rows */
    size_t sel_cap;                /* bytes */
    uint32_t *range_buf;           /* the rows of a page inside a walk's window (page_walk.c) */
    size_t range_cap;              /* bytes */
    int64_t decompressed_bytes;    /* running total for max_decompressed_bytes */
    _Atomic int64_t *scan_decompressed; /* NULL, or the total of every reader of one scan
                                           (for max_scan_decompressed_bytes; set after init) */
    int64_t pages_decoded;
    struct pq_nest_leaf *nest_keep; /* the leaves of the nested field whose first leaf this
                                       reader reads, kept between chunks so their buffers are
                                       reused (column_nested.h pq_nest_leaves_keep) */
    int32_t nest_nkeep;
    struct pq_nest_stream *nest_stream; /* their decode's place between the splits of a cut row
                                           group (column_nested.h pq_nest_streams), or NULL */
} pq_col_reader;

/* Prepares r for pages of column col compressed with codec (limits NULL = defaults). The
 * reader borrows col, which must outlive it. No allocation until the first page. */
void pq_colr_init(pq_col_reader *r, const pq_column_desc *col, pq_codec codec,
                  const pq_col_limits *limits);
void pq_colr_free(pq_col_reader *r);

/* Decodes the page starting at buf (header and body; len bytes available, at file offset
 * file_off, used only for messages). Data pages append their rows to out (initialised by the
 * caller with the column's physical type); dictionary pages replace the dictionary; index
 * pages are skipped. Sets *consumed to header + compressed body bytes and *rows to rows
 * appended. Returns 0 or a negative status (RINGSCAN_EFORMAT, RINGSCAN_EUNSUPPORTED,
 * RINGSCAN_ELIMIT, RINGSCAN_ECHECKSUM, -ENOMEM) with e naming offset and column. */
int pq_colr_page(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off, pq_vec *out,
                 size_t *consumed, int64_t *rows, pq_err *e);

/* Like pq_colr_page, but a data page appends only its rows sel[0..nsel) (page-relative,
 * strictly increasing, each < the page's num_values; EFORMAT otherwise). Dictionary-encoded
 * pages gather just the selected values, PLAIN pages without nulls copy just them; other
 * pages decode the page into r->page first.
 * *rows is still the page's full row count. */
int pq_colr_page_sel(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                     const uint32_t *sel, int64_t nsel, pq_vec *out, size_t *consumed,
                     int64_t *rows, pq_err *e);

/* Like pq_colr_page, but a dictionary-encoded data page (with a dictionary loaded) appends
 * its rows' dictionary indices to idx (an INT32 vector: null rows 0 and invalid) and sets
 * *as_idx; any other data page appends its values to vals and clears *as_idx. The indices
 * are checked against the dictionary's size (EFORMAT). */
int pq_colr_page_idx(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                     pq_vec *idx, pq_vec *vals, bool *as_idx, size_t *consumed, int64_t *rows,
                     pq_err *e);

/* pq_colr_page_idx, but a data page that is not dictionary-encoded appends only the values
 * of the nsel selected rows sel (ascending, each below the page's row count; checked) to vals,
 * as pq_colr_page_sel does; a dictionary-encoded page still gives every row's index. nsel -1:
 * no selection, as pq_colr_page_idx. */
int pq_colr_page_idx_sel(pq_col_reader *r, const uint8_t *buf, size_t len, int64_t file_off,
                         const uint32_t *sel, int64_t nsel, pq_vec *idx, pq_vec *vals,
                         bool *as_idx, size_t *consumed, int64_t *rows, pq_err *e);

/* Decodes a whole column chunk whose bytes (from its first page, dictionary or data, to
 * its end) are buf[0, len) at file offset file_off, appending cm->num_values rows to out.
 * EFORMAT when the pages hold fewer or more values than the chunk metadata says. */
int pq_colr_chunk(pq_col_reader *r, const pq_chunk_meta *cm, const uint8_t *buf, size_t len,
                  int64_t file_off, pq_vec *out, pq_err *e);

/* File offset and length of a chunk's pages: from the dictionary page when there is one
 * (dispatching on offsets as FACTS.md says: 0 or absent means none), to the end of the data.
 * EFORMAT when the range is negative or beyond file_size. */
int pq_chunk_range(const pq_chunk_meta *cm, uint64_t file_size, uint64_t *off, uint64_t *len,
                   pq_err *e);

#endif
