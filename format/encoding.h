/* format/encoding.h: every Parquet value and level encoding, decoders and encoders, working on
 * byte buffers only (no I/O, so each decoder is fuzzable alone).
 *
 * Owns: RLE/bit-packed hybrid (rle.c), legacy BIT_PACKED levels, PLAIN (plain.c),
 * dictionaries (dict.c), DELTA_BINARY_PACKED / DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY
 * (delta.c, enc_dba.c), BYTE_STREAM_SPLIT (bss.c), and pq_buf helpers (enc_buf.c) for the encoders.
 *
 * Invariants (every decoder):
 *  1. Reads only inside [buf, buf+len); every length or count read from the data is checked
 *     against the bytes that remain before it is used, and against the caller's count.
 *  2. Decoders produce only NON-NULL values, densely; the caller scatters them over null rows.
 *  3. Value decoders APPEND to a pq_vec: they reserve room for n more rows, write values at
 *     row out->length .. out->length+n-1 and then add n to out->length. They never touch
 *     validity or null_count. BOOLEAN values go to out->values as a bitmap.
 *  4. Errors: 0 on success; RINGSCAN_EFORMAT for malformed data (pq_err message names the
 *     encoding, the position and the bad number); RINGSCAN_ELIMIT when a limit below is hit;
 *     -ENOMEM. On error the output vector's length is unchanged (its buffers may have grown).
 *  5. No per-value allocation; hot loops check bounds once per run/block, then run unchecked.
 *  6. Offsets in pq_err are relative to buf (callers add the page's file offset).
 */
#ifndef RINGSCAN_FORMAT_ENCODING_H
#define RINGSCAN_FORMAT_ENCODING_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/err.h"
#include "format/meta.h" /* pq_buf */
#include "format/vec.h"

/* The Encoding enum (PQ_ENC_PLAIN ... PQ_ENC_BYTE_STREAM_SPLIT) is in format/meta.h. */

/* Limits. Values per call/page are bounded so counts fit int32 and allocations stay sane. */
#define PQ_ENC_MAX_VALUES ((int64_t)INT32_MAX)        /* values in one page / one call */
#define PQ_ENC_MAX_BYTES ((int64_t)INT32_MAX)         /* BYTE_ARRAY bytes in one pq_vec */
#define PQ_DELTA_MAX_BLOCK 32768                      /* values per DELTA block */
#define PQ_DELTA_MAX_MINIBLOCKS 1024                  /* miniblocks per DELTA block */

/* Spare bytes a BYTE_ARRAY copy may write past its value (and read past it in the source):
 * a value of up to PQ_BA_SLACK bytes moves as one fixed-size copy instead of a memcpy call
 * (a call per short string was most of a PLAIN or dictionary string decode). 64, not 32:
 * TPC-H's l_comment runs to 43 bytes and its longer values still took the call. */
#define PQ_BA_SLACK 64

/* Copies value v of l bytes to dst, which has PQ_BA_SLACK bytes of room past l; readable =
 * bytes that may be read from v on, so a short value moves as PQ_BA_SLACK bytes when they
 * are there to read. */
static inline void pq_ba_copy(uint8_t *dst, const uint8_t *v, uint32_t l, size_t readable)
{
    if (l <= PQ_BA_SLACK && readable >= PQ_BA_SLACK) {
        uint8_t t[PQ_BA_SLACK];
        __builtin_memcpy(t, v, PQ_BA_SLACK);
        __builtin_memcpy(dst, t, PQ_BA_SLACK);
    } else if (l) {
        __builtin_memcpy(dst, v, l);
    }
}

/* ---------------------------------------------------------------- growable byte buffer */

/* The encoders append to pq_buf, defined in format/meta.h ({data, len, cap}; zero-initialise
 * before use) with pq_buf_append / pq_buf_free implemented by the thrift writer. Repeated
 * here so this header stands alone: */
int pq_buf_append(pq_buf *b, const void *p, size_t n); /* 0 or -ENOMEM */

/* Ensures room for extra more bytes (geometric growth). 0 or -ENOMEM (b unchanged). */
int pq_enc_reserve(pq_buf *b, size_t extra);
/* Appends an unsigned LEB128 varint / a zigzag varint. 0 or -ENOMEM. */
int pq_enc_put_uvarint(pq_buf *b, uint64_t v);
int pq_enc_put_zigzag(pq_buf *b, int64_t v);

/* ------------------------------------------------------ RLE / bit-packed hybrid (levels, ids) */

/* Streaming decoder over one RLE/bit-packed hybrid run sequence. Plain struct, no allocation.
 * bit_width 0 over an EMPTY buffer yields zeros for any count (writers may omit the runs when
 * every value is 0); with runs present, the runs are followed as usual.
 * A final bit-packed run whose groups extend past the buffer is accepted as far as whole
 * values fit (writers pad the last group; some drop the padding bytes); asking for values
 * beyond that is an error, not a read past the end. Runs of length 0 are errors. */
typedef struct pq_rle_dec {
    const uint8_t *base, *p, *end; /* whole buffer, cursor, end */
    uint32_t bit_width;            /* 0..32 */
    uint32_t rle_left;             /* values left in the current RLE run */
    uint32_t rle_value;
    uint32_t bp_left;              /* values left in the current bit-packed run (that fit) */
    uint32_t bp_short;             /* 1 when the bit-packed run was cut by the buffer end */
    uint32_t bp_missing;           /* values of that cut run that did not fit (0 if not cut) */
    uint32_t grp_pos, grp_len;     /* buffered values of a partially consumed 8-group */
    uint32_t grp[8];
    pq_err *err;
    int status;                    /* sticky first error, 0 if none */
} pq_rle_dec;

/* Bare hybrid data (v2 page levels): bit_width 0..32 over buf[0..len). 0 or EFORMAT
 * (bit_width > 32). err may be NULL; it is kept for later next() errors. */
int pq_rle_init(pq_rle_dec *d, const uint8_t *buf, size_t len, int bit_width, pq_err *err);
/* v1 page levels: 4-byte LE length then that many bytes of hybrid data. *used = 4 + length,
 * the bytes to skip to reach what follows. EFORMAT when the length exceeds len. */
int pq_rle_init_v1(pq_rle_dec *d, const uint8_t *buf, size_t len, int bit_width, size_t *used,
                   pq_err *err);
/* Dictionary indices: one bit-width byte (0..32) then hybrid data to the end of buf. */
int pq_rle_init_dict(pq_rle_dec *d, const uint8_t *buf, size_t len, pq_err *err);
/* Decodes up to n values into out. Returns how many (== n unless the data ended: fewer, maybe
 * 0) or a negative status (malformed run header, run past the buffer). */
int64_t pq_rle_next(pq_rle_dec *d, uint32_t *out, int64_t n);
/* Decodes exactly n values; EFORMAT "RLE data ends after k of n values" if fewer exist. */
int pq_rle_get(pq_rle_dec *d, uint32_t *out, int64_t n);
/* The next n values, of which only those at rows[0..nsel) (positions among the n; the caller
 * has checked that they rise strictly and stay below n) are written, to out[0..nsel): what
 * pq_rle_get of n values then a pick of those rows would give, without unpacking the others
 * (a bit-packed value is read from its bytes). The decoder then stands after the n values.
 * Errors as pq_rle_get; out is then undefined. */
int pq_rle_select(pq_rle_dec *d, int64_t n, const uint32_t *rows, int64_t nsel, uint32_t *out);
/* The next n values mapped through a dictionary's bitmap: bit i of out (n bits, words
 * zeroed here first) is bit v of dm (dm[v >> 6] >> (v & 63)), v being value i; dm covers
 * dlen entries (dlen >= 1). A run of one value is looked up once and its bits set as a range;
 * bit-packed values are mapped without being stored as indices when bit_width <= 8 and
 * dlen <= 64: 64 at a time with AVX-512 VBMI (a byte shuffle per 8 groups, a table lookup per
 * value), else 8 at a time with AVX2 (one 8-byte load per group). Errors as pq_rle_get, and
 * EFORMAT "dictionary index V out of range (dictionary has DLEN values)" for a value >= dlen
 * (V the largest); out is then undefined. */
int pq_rle_bits(pq_rle_dec *d, int64_t n, const uint64_t *dm, uint32_t dlen, uint64_t *out);
/* Reads the next run header (rle.c's, for rle_bits.c). 0, 1 when the data has ended, or a
 * negative status. */
int pq_rle_header(pq_rle_dec *d);
/* Skips exactly n values (same errors as pq_rle_get). */
int pq_rle_skip(pq_rle_dec *d, int64_t n);
/* After a page's last value: 0 when the data ended with it - no RLE values left and no
 * further runs or bytes - or inside a bit-packed run whose groups are all present (its
 * remaining values are padding: DuckDB ends runs on whole groups well past the last value,
 * and pyarrow reads those files). Else
 * EFORMAT "... continue past the page's values": the runs declared more values than the
 * page, so levels or values and the header disagree (corruption). */
int pq_rle_finish(pq_rle_dec *d);

/* Legacy BIT_PACKED levels (deprecated, MSB-first, no length prefix): decodes n values of
 * bit_width (0..32) from buf; *used = ceil(n*bit_width/8). EFORMAT when buf is too short. */
int pq_bitpacked_msb_decode(const uint8_t *buf, size_t len, int bit_width, uint32_t *out,
                            int64_t n, size_t *used, pq_err *err);

/* Unpacks 8 values of bit_width (1..32) LSB-first from in (exactly bit_width bytes). */
void pq_unpack8(const uint8_t *in, uint32_t bit_width, uint32_t out[8]);
/* Bits needed for values 0..max_value (0 for 0). */
int pq_bit_width(uint64_t max_value);

/* Encoders. Hybrid runs for n values (each < 2^bit_width), bit_width 0..32. */
int pq_rle_encode(pq_buf *out, const uint32_t *vals, int64_t n, int bit_width);
/* v1 levels: 4-byte LE length prefix, then pq_rle_encode. */
int pq_rle_encode_v1(pq_buf *out, const uint32_t *vals, int64_t n, int bit_width);
/* Dictionary indices: bit-width byte, then pq_rle_encode. */
int pq_rle_encode_dict(pq_buf *out, const uint32_t *idx, int64_t n, int bit_width);

/* ------------------------------------------------------------------------------- PLAIN */

/* Fixed-width PLAIN (INT32/INT64/INT96/FLOAT/DOUBLE/FLBA; out's type decides the width):
 * appends n values (one bounds check, then memcpy). *used = bytes consumed. */
int pq_plain_decode_fixed(const uint8_t *buf, size_t len, int64_t n, pq_vec *out, size_t *used,
                          pq_err *err);
/* Fixed-width PLAIN, selected values only: of the n values in buf (checked to hold all n,
 * as above), those at the nsel ascending indices sel (each below n) are appended to out -
 * a selection over a page copies its rows, not the page. Not for BOOLEAN. */
int pq_plain_select_fixed(const uint8_t *buf, size_t len, int64_t n, const uint32_t *sel,
                          int64_t nsel, pq_vec *out, pq_err *err);
/* BOOLEAN PLAIN: n bits LSB-first starting at bit bit_offset of buf (0..7, for pages decoded
 * in several batches), appended to out's bitmap. *used_bits = bit_offset + n, the bit
 * position after the last value (the caller advances buf by used_bits / 8). */
int pq_plain_decode_bool(const uint8_t *buf, size_t len, int bit_offset, int64_t n, pq_vec *out,
                         size_t *used_bits, pq_err *err);
/* BYTE_ARRAY PLAIN: n values of 4-byte LE length + bytes, appended to out (offsets/data).
 * Each length is checked against bytes left; ELIMIT when out's data would pass INT32_MAX. */
int pq_plain_decode_ba(const uint8_t *buf, size_t len, int64_t n, pq_vec *out, size_t *used,
                       pq_err *err);
/* BYTE_ARRAY PLAIN, selected values only: of the n values in buf, those at the nsel
 * ascending indices sel (each below n) are appended to out. Every length prefix is checked
 * as pq_plain_decode_ba checks it; at is scratch for nsel positions; len < 2^32. *used =
 * bytes the n values take (the caller checks it against the page). */
int pq_plain_select_ba(const uint8_t *buf, size_t len, int64_t n, const uint32_t *sel,
                       int64_t nsel, uint32_t *at, pq_vec *out, size_t *used, pq_err *err);
/* Dispatch on out->type to the three above (BOOLEAN uses bit_offset 0, *used in bytes
 * rounded up). */
int pq_plain_decode(const uint8_t *buf, size_t len, int64_t n, pq_vec *out, size_t *used,
                    pq_err *err);

/* PLAIN encoders. Rows [start, start+n) of v; null rows (validity bit 0) are skipped when
 * skip_nulls. BOOLEAN values are bit-packed (the last byte zero-padded). */
int pq_plain_encode(pq_buf *out, const pq_vec *v, int64_t start, int64_t n, bool skip_nulls);

/* ---------------------------------------------------------------------------- dictionary */

/* Decodes a dictionary page (PLAIN, num_values values) into dict (initialised by the caller
 * with the column's type; BOOLEAN dictionaries are EFORMAT). dict->length = num_values. */
int pq_dict_decode_page(const uint8_t *buf, size_t len, int64_t num_values, pq_vec *dict,
                        pq_err *err);
/* Appends dict[idx[i]] for i < n to out (same type as dict). Every index is checked:
 * EFORMAT "dictionary index 7 out of range (dictionary has 5 values)". */
int pq_dict_gather(const pq_vec *dict, const uint32_t *idx, int64_t n, pq_vec *out,
                   pq_err *err);
/* Pulls n indices from d (pq_rle_init_dict) and gathers them, in stack-sized chunks. */
int pq_dict_decode(const pq_vec *dict, pq_rle_dec *d, int64_t n, pq_vec *out, pq_err *err);

/* Dictionary builder for the writer: distinct values in insertion order plus an open
 * addressing hash table. Full when adding a value would pass max_bytes of PLAIN-encoded
 * dictionary or max_values entries; then the writer falls back to PLAIN. */
typedef struct pq_dict_builder {
    pq_vec values;      /* distinct values, PLAIN order = index order */
    uint32_t *slots;    /* hash table: index+1, 0 = empty */
    uint64_t *hashes;   /* hash per distinct value */
    uint32_t nslots;    /* power of two */
    int64_t plain_bytes;
    int64_t max_bytes, max_values;
} pq_dict_builder;

/* type BOOLEAN is refused (EUNSUPPORTED). 0 or -ENOMEM. */
int pq_dictb_init(pq_dict_builder *b, pq_physical type, int32_t type_length, int64_t max_bytes,
                  int64_t max_values);
/* Adds rows [start, start+n) of v (skipping nulls), writing one index per non-null row to
 * idx (*n_idx = how many) and *rows_done = rows consumed. Returns 0 (*rows_done == n),
 * RINGSCAN_ELIMIT when the dictionary is full (row start + *rows_done is the first row whose
 * value did not fit; entries added so far stay), or -ENOMEM. */
int pq_dictb_add(pq_dict_builder *b, const pq_vec *v, int64_t start, int64_t n, uint32_t *idx,
                 int64_t *n_idx, int64_t *rows_done);
/* Appends the dictionary page body (PLAIN of the distinct values). */
int pq_dictb_write(const pq_dict_builder *b, pq_buf *out);
/* Number of distinct values. */
static inline int64_t pq_dictb_count(const pq_dict_builder *b) { return b->values.length; }
void pq_dictb_free(pq_dict_builder *b);

/* ----------------------------------------------------------------------------- DELTA */

/* Streaming DELTA_BINARY_PACKED decoder (INT32 and INT64). The header is validated at init:
 * block size a positive multiple of 128 (<= PQ_DELTA_MAX_BLOCK), miniblocks per block dividing
 * it into multiples of 32, total_values <= max_values (the page's value count). Arithmetic
 * wraps as the spec says (int32 decoding wraps at 32 bits). Bit widths up to 64. */
typedef struct pq_delta_dec {
    const uint8_t *base, *p, *end;
    uint64_t block_size, miniblocks, mb_size; /* values per block / count / values per mb */
    int64_t total, done;                      /* values declared / produced */
    uint64_t last;                            /* last value (wrapping, as uint64) */
    uint64_t min_delta;
    uint8_t widths[PQ_DELTA_MAX_MINIBLOCKS];
    uint64_t mb_index, mb_left;               /* miniblock in block, values left in it */
    const uint8_t *mb_data;                   /* current miniblock's packed bits */
    uint64_t mb_pos;                          /* value index within the miniblock */
    bool is32;
    pq_err *err;
} pq_delta_dec;

/* is32: INT32 values (deltas wrap at 32 bits). 0 or EFORMAT/ELIMIT for a bad header. */
int pq_delta_init(pq_delta_dec *d, const uint8_t *buf, size_t len, bool is32, int64_t max_values,
                  pq_err *err);
/* Decodes up to n values into out (int32_t* when is32, else int64_t*). Returns the count
 * (fewer than n only when total_values are done) or a negative status. */
int64_t pq_delta_next(pq_delta_dec *d, void *out, int64_t n);
/* Bytes consumed so far (after all values: the end of the encoded data, which DLBA/DBA
 * need to find the data that follows). Reads through the block of the last value. */
size_t pq_delta_used(const pq_delta_dec *d);
/* Consumes the rest of the values (to learn pq_delta_used); 0 or negative status. */
int pq_delta_finish(pq_delta_dec *d);
/* Appends n INT32/INT64 values of out's type via a delta decoder (convenience). */
int pq_delta_decode(pq_delta_dec *d, int64_t n, pq_vec *out);

/* DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY streaming decoders. init makes one validating
 * pass over the lengths (no allocation: each >= 0, their sum fits the bytes left, DBA's two
 * counts agree, the count <= max_values) and positions the data cursor; next re-decodes the
 * lengths as it goes. Output: BYTE_ARRAY appends offsets/data; FIXED_LEN_BYTE_ARRAY appends
 * values, each length must equal type_length. DBA keeps the previous value in prev (malloc'd,
 * bounded by the page's bytes). */
typedef struct pq_dba_dec {
    pq_delta_dec prefix, lens;        /* prefix lengths (DBA only); suffix / value lengths */
    bool has_prefix;                  /* DBA */
    const uint8_t *base, *data, *end; /* data: suffix / value bytes cursor */
    int64_t count, pos;               /* values in the page / produced */
    uint8_t *prev;                    /* previous value (DBA) */
    int64_t prev_len, prev_cap;
    pq_err *err;
} pq_dba_dec;

int pq_dlba_init(pq_dba_dec *d, const uint8_t *buf, size_t len, int64_t max_values, pq_err *err);
int pq_dba_init(pq_dba_dec *d, const uint8_t *buf, size_t len, int64_t max_values, pq_err *err);
/* Appends exactly n values to out (EFORMAT if fewer remain). A prefix longer than the previous
 * value is EFORMAT. Nothing is appended on error. */
int pq_dba_next(pq_dba_dec *d, int64_t n, pq_vec *out);
/* Values the page declares. */
static inline int64_t pq_dba_count(const pq_dba_dec *d) { return d->count; }
void pq_dba_free(pq_dba_dec *d);

/* Encoders (block 128, 4 miniblocks of 32). */
int pq_delta_encode_i32(pq_buf *out, const int32_t *vals, int64_t n);
int pq_delta_encode_i64(pq_buf *out, const int64_t *vals, int64_t n);
/* DLBA / DBA of rows [start, start+n) of a BYTE_ARRAY or FLBA vec, nulls skipped. */
int pq_dlba_encode(pq_buf *out, const pq_vec *v, int64_t start, int64_t n);
int pq_dba_encode(pq_buf *out, const pq_vec *v, int64_t start, int64_t n);

/* ------------------------------------------------------------------- BYTE_STREAM_SPLIT */

/* buf holds a whole page of num_values values of width bytes (FLOAT 4, DOUBLE 8, INT32 4,
 * INT64 8, FLBA type_length e.g. 2 for float16) split into width streams; len must equal
 * num_values*width. Appends values [start, start+n) to out (width from out's type). */
int pq_bss_decode(const uint8_t *buf, size_t len, int64_t num_values, int64_t start, int64_t n,
                  pq_vec *out, pq_err *err);
/* Encodes rows [start, start+n) of a fixed-width vec, nulls skipped. */
int pq_bss_encode(pq_buf *out, const pq_vec *v, int64_t start, int64_t n);

#endif
