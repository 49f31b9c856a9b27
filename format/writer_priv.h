/* format/writer_priv.h: internal state of the Parquet writer (format/writer*.c only).
 *
 * Invariants:
 *  1. A pq_wstats owns copies of its min/max bytes (never pointers into caller vectors).
 *  2. A pq_wcol's open page holds page_fill rows: defs[0..page_fill) (OPTIONAL only),
 *     n_idx dictionary indices (dictionary mode) or PLAIN bytes in `plain` / bits in `bits`.
 *  3. `pages` holds the open chunk's finished data pages (header + compressed body), in order;
 *     `locs` has one entry per page with its offset inside `pages`.
 */
#ifndef RINGSCAN_FORMAT_WRITER_PRIV_H
#define RINGSCAN_FORMAT_WRITER_PRIV_H
#include "format/encoding.h"
#include "format/writer.h"

/* How min/max compare for a column (type-defined order). */
typedef enum {
    PQ_CMP_NONE = 0, /* no min/max (INT96, INTERVAL) */
    PQ_CMP_BOOL,
    PQ_CMP_I32,
    PQ_CMP_U32,
    PQ_CMP_I64,
    PQ_CMP_U64,
    PQ_CMP_F32,
    PQ_CMP_F64,
    PQ_CMP_F16,   /* FLBA(2) FLOAT16, little-endian half floats */
    PQ_CMP_BYTES, /* unsigned lexicographic */
    PQ_CMP_BE_SIGNED, /* big-endian two's complement (decimal on FLBA / BYTE_ARRAY) */
} pq_cmp_kind;

typedef struct pq_wstats {
    bool has_min_max;
    int64_t null_count;
    int64_t values;     /* non-null values seen */
    pq_buf min, max;    /* PLAIN bytes (byte arrays: without length prefix) */
} pq_wstats;

/* Set of 64-bit hashes (bloom filter input): open addressing, 0 stored out of band. */
typedef struct pq_hset {
    uint64_t *slots;
    uint64_t cap, count; /* cap a power of two, count < cap / 2 */
    bool has_zero;
} pq_hset;

typedef struct pq_wpage {
    int64_t offset;     /* in the chunk's `pages` buffer */
    int32_t size;       /* header + compressed body */
    int64_t first_row;  /* in the row group */
    int64_t null_count;
    bool null_page;     /* every row null */
    bool has_min_max;
    uint32_t min_off, min_len, max_off, max_len; /* in pq_wcol.page_mm */
} pq_wpage;

typedef struct pq_wcol {
    pq_column_desc desc;
    pq_cmp_kind cmp;
    int32_t width;          /* fixed width in bytes (0: BOOLEAN, BYTE_ARRAY) */
    bool dict_allowed, bloom, track_stats; /* track_stats: statistics or page index on */
    /* chunk state */
    bool dict_mode;         /* currently dictionary-encoding */
    bool dict_used;         /* some page of the chunk is RLE_DICTIONARY */
    bool dict_fell_back;
    pq_dict_builder db;
    int64_t chunk_rows;
    uint32_t enc_mask;
    int64_t uncompressed_bytes; /* data pages incl. headers */
    pq_wstats chunk_st;
    pq_buf pages;
    pq_wpage *locs;
    int32_t nlocs, locs_cap;
    pq_buf page_mm;         /* per-page min/max bytes */
    bool all_pages_ordered; /* every non-null page has min/max (ColumnIndex possible) */
    pq_hset hashes;
    /* open page */
    int64_t page_fill, page_nulls;
    uint32_t *defs, *idx;   /* page_rows entries each */
    int64_t n_idx;
    pq_buf plain;
    int64_t nbits;          /* BOOLEAN: bits used in plain */
    pq_wstats page_st;
} pq_wcol;

/* Pending index/bloom records of one finished chunk (file offsets fixed at close). */
typedef struct pq_wchunk_ix {
    int64_t ci_off, oi_off, bloom_off; /* in w->ci_buf / w->oi_buf / w->bloom_buf; -1 none */
    int32_t ci_len, oi_len, bloom_len;
} pq_wchunk_ix;

struct pq_writer {
    pq_writer_opts o;
    pq_sink_fn sink;
    void *ctx;
    int status;             /* sticky first error (invariant 5) */
    bool closed;
    int ncols;
    pq_wcol *cols;
    pq_file_meta fm;        /* columns, created_by, kv in its arena; row_groups ours */
    int32_t rg_cap;
    pq_wchunk_ix *ix;       /* nrow_groups * ncols */
    int64_t pos;            /* bytes sent (invariant 1) */
    int64_t rg_fill;        /* rows in the open row group */
    pq_buf scratch, cbuf, hdr; /* page body, compressed body, page header */
    pq_buf ci_buf, oi_buf, bloom_buf;
    pq_writer_stats st;
};

/* writer_stats.c */
pq_cmp_kind pq_wcmp_kind(const pq_column_desc *c);
void pq_wstats_reset(pq_wstats *s);
void pq_wstats_free(pq_wstats *s);
/* Adds rows [start, start+n) of v (nulls counted, NaN skipped) to s. 0 or -ENOMEM. */
int pq_wstats_add(pq_wstats *s, pq_cmp_kind k, const pq_vec *v, int64_t start, int64_t n);
/* Merges a (finished page) into s. 0 or -ENOMEM. */
int pq_wstats_merge(pq_wstats *s, pq_cmp_kind k, const pq_wstats *a);
/* Compares PLAIN values a and b under k: <0, 0, >0. */
int pq_wcmp(pq_cmp_kind k, const uint8_t *a, size_t an, const uint8_t *b, size_t bn);
/* Fills a pq_stats view of s (pointers into s). */
void pq_wstats_view(const pq_wstats *s, bool with_min_max, pq_stats *out);

/* writer_col.c */
int pq_wcol_init(pq_wcol *c, const pq_column_desc *d, const pq_writer_opts *o, uint8_t flags);
void pq_wcol_free(pq_wcol *c);
/* Appends rows [start, start+n) of v to the column's open chunk, cutting pages. */
int pq_wcol_append(pq_writer *w, pq_wcol *c, const pq_vec *v, int64_t start, int64_t n,
                   pq_err *e);
/* Closes the open page (if any rows). */
int pq_wcol_flush_page(pq_writer *w, pq_wcol *c, pq_err *e);
/* Emits the chunk (dictionary page + data pages) to the sink, fills *cm and the index
 * records, resets the chunk state. */
int pq_wcol_flush_chunk(pq_writer *w, pq_wcol *c, pq_chunk_meta *cm, pq_wchunk_ix *ix,
                        pq_err *e);
/* Empties a hash set (keeps a small table). */
void pq_hset_clear(pq_hset *s);
/* Sends bytes to the sink and advances w->pos. */
int pq_writer_emit(pq_writer *w, const void *p, size_t n, pq_err *e);

#endif
