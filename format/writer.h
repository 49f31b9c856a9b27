/* format/writer.h: the Parquet writer. Flat schemas (REQUIRED or OPTIONAL leaves of every
 * physical type, logical types from pq_column_desc), v1 data pages, RLE definition levels,
 * dictionary encoding with fallback to PLAIN inside a chunk, exact statistics per chunk and per
 * page, optional page index (ColumnIndex + OffsetIndex) and split-block bloom filters.
 * format/ does no I/O: every byte leaves through the caller's sink callback, in file order.
 *
 * Defaults mimic pyarrow's writer (FACTS.md "Writer defaults"): SNAPPY, dictionary on (1 MiB
 * dictionary page cap, then PLAIN), v1 pages, statistics on, no page index, 1 Mi-row groups,
 * data pages cut at 20,000 rows or 1 MiB of encoded values, whichever comes first.
 *
 * Owns: buffering rows into pages, the chunk layout [dictionary page][data pages], the file
 * layout, and the metadata it serialises with format/meta.h's thrift writers:
 *   PAR1 | row group 0 chunks | ... | bloom filters | column indexes | offset indexes |
 *   FileMetaData | 4-byte LE length | PAR1
 *
 * Invariants:
 *  1. Bytes reach the sink strictly in file order; w->pos is the count sent so far, so every
 *     offset recorded in the metadata is the sink position at the time it was written.
 *  2. At most one row group's encoded pages are held in memory (per column: the data pages of
 *     the open chunk plus the dictionary); page indexes and bloom filters of finished row
 *     groups are kept serialised (small) until close.
 *  3. A row group holds exactly row_group_rows rows except the last; a data page holds at most
 *     page_rows rows and is cut once its encoded values reach page_bytes.
 *  4. Statistics are exact: min/max PLAIN bytes under the column's type-defined order (signed
 *     ints, dates, times, timestamps and decimals; unsigned for UINT_* annotations; unsigned
 *     lexicographic for byte arrays and strings; IEEE floats without NaN, -0.0 as min and +0.0
 *     as max); INT96 and INTERVAL get null_count only. A chunk whose pages are not all
 *     orderable (all-NaN page, INT96) gets no ColumnIndex (its OffsetIndex is still written).
 *  5. After an error the writer is failed: every later call returns the first status.
 */
#ifndef RINGSCAN_FORMAT_WRITER_H
#define RINGSCAN_FORMAT_WRITER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/meta.h"
#include "format/vec.h"

#define PQ_WRITER_CREATED_BY "ringscan 0.1.0"

/* Limits on options (bound every buffer the writer sizes from them). */
#define PQ_WRITER_MAX_COLUMNS 10000
#define PQ_WRITER_MAX_PAGE_ROWS (1 << 24)
#define PQ_WRITER_MAX_PAGE_BYTES (512 << 20)

/* Receives the file's bytes in order. Returns 0 or a negative status (e.g. -errno), which
 * the writer returns from the call that was writing (and from every later call). */
typedef int (*pq_sink_fn)(void *ctx, const void *buf, size_t len);

/* Per-column flags (pq_writer_opts.col_flags). */
enum {
    PQ_WCOL_NO_DICT = 1, /* never dictionary-encode this column */
    PQ_WCOL_BLOOM = 2,   /* write a bloom filter for this column (not BOOLEAN) */
};

typedef struct pq_writer_opts {
    pq_codec codec;          /* UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW; default SNAPPY */
    int level;               /* codec level; 0 = library default */
    int64_t row_group_rows;  /* default 1,048,576 */
    int64_t page_rows;       /* max rows per data page; default 20,000 */
    int64_t page_bytes;      /* cut a page once its encoded values reach this; default 1 MiB */
    bool dictionary;         /* default true (BOOLEAN never) */
    int64_t dict_page_bytes; /* dictionary cap per chunk, PLAIN bytes; default 1 MiB */
    bool statistics;         /* chunk + page statistics; default true */
    bool page_index;         /* ColumnIndex + OffsetIndex; default false */
    bool page_crc;           /* CRC-32 in page headers; default false */
    double bloom_fpp;        /* false-positive rate of bloom filters; default 0.01 */
    const uint8_t *col_flags; /* NULL or ncols PQ_WCOL_* masks */
    const pq_kv *kv;         /* key-value metadata copied at open (value may be NULL) */
    int32_t nkv;
} pq_writer_opts;

typedef struct pq_writer pq_writer;

/* Fills o with the defaults above. */
void pq_writer_opts_default(pq_writer_opts *o);

/* Creates a writer for n leaf columns (cols[i].name, physical, type_length, repetition,
 * logical and its parameters are used; index/max levels/sort order are derived). Copies cols,
 * names and kv. o NULL = defaults. Sends the leading "PAR1" to the sink. Returns 0 and *out,
 * or RINGSCAN_EINVAL-style errors: -EINVAL (bad option or schema, message names the column),
 * RINGSCAN_EUNSUPPORTED (codec not writable), a sink status, -ENOMEM. On error *out is NULL. */
int pq_writer_open(pq_writer **out, const pq_column_desc *cols, int n, const pq_writer_opts *o,
                   pq_sink_fn write, void *ctx, pq_err *e);

/* Appends rows [0, rows) of cols[0..n-1] (each of the column's physical type and type_length,
 * with length >= rows). Data is encoded at once (the vectors may be reused after the call);
 * a row group is flushed to the sink every row_group_rows rows. Errors: -EINVAL (type
 * mismatch, short vector, null in a REQUIRED column), codec errors, sink status, -ENOMEM;
 * the writer is failed afterwards (invariant 5). */
int pq_writer_write(pq_writer *w, const pq_vec *cols, int64_t rows, pq_err *e);

/* Flushes the last row group (if it has rows), writes bloom filters, page indexes, the
 * footer and the trailing magic. Returns 0 or the first error. The writer must still be
 * freed. Calling it twice is -EINVAL. */
int pq_writer_close(pq_writer *w, pq_err *e);

/* Releases everything; safe on NULL and on a failed writer. */
void pq_writer_free(pq_writer *w);

/* Progress counters (valid at any time). */
typedef struct pq_writer_stats {
    int64_t rows;        /* rows accepted */
    int64_t row_groups;  /* row groups flushed */
    int64_t bytes;       /* bytes sent to the sink */
    int64_t pages;       /* data pages written */
    int64_t dict_fallbacks; /* chunks that switched from dictionary to PLAIN */
} pq_writer_stats;

void pq_writer_get_stats(const pq_writer *w, pq_writer_stats *s);

#endif
