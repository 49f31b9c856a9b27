/* tests for format/rle.c, format/plain.c, format/dict.c, format/enc_buf.c
 * (delta, DLBA/DBA and BYTE_STREAM_SPLIT are in test_enc_delta.c). */
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "format/encoding.h"

/* xorshift64*: deterministic data from a seed */
static uint64_t rng(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* test-side LSB-first bit writer, independent of the encoder */
typedef struct { uint8_t b[4096]; size_t bit; } bw_t;
static void put_bits(bw_t *w, uint64_t v, int n)
{
    for (int i = 0; i < n; i++, w->bit++)
        if ((v >> i) & 1) w->b[w->bit >> 3] |= (uint8_t)(1u << (w->bit & 7));
}
static void put_byte(bw_t *w, uint8_t c)
{
    w->bit = (w->bit + 7) & ~(size_t)7;
    put_bits(w, c, 8);
}

static void rle_hand_built_every_width(void)
{
    for (int bw = 0; bw <= 32; bw++) {
        uint32_t mask = bw == 32 ? 0xffffffffu : (1u << bw) - 1;
        bw_t w = {{0}, 0};
        put_byte(&w, 10 << 1); /* RLE run of 10 copies of mask */
        for (int i = 0; i < (bw + 7) / 8; i++) put_byte(&w, (uint8_t)(mask >> (8 * i)));
        put_byte(&w, 2 << 1 | 1); /* bit-packed, 2 groups */
        for (uint32_t i = 0; i < 16; i++) put_bits(&w, (i * 2654435761u) & mask, bw);
        size_t len = (w.bit + 7) / 8;
        for (int chunk = 1; chunk <= 26; chunk += 5) {
            pq_rle_dec d;
            CHECK(pq_rle_init(&d, w.b, len, bw, NULL) == 0);
            uint32_t out[26];
            int64_t got = 0;
            while (got < 26) {
                int64_t k = pq_rle_next(&d, out + got, chunk < 26 - got ? chunk : 26 - got);
                CHECK(k > 0);
                if (k <= 0) break;
                got += k;
            }
            for (int i = 0; i < 10; i++) CHECK_EQ_I64(out[i], mask);
            for (uint32_t i = 0; i < 16; i++) CHECK_EQ_I64(out[10 + i], (i * 2654435761u) & mask);
            CHECK_EQ_I64(pq_rle_next(&d, out, 1), 0); /* ends exactly at the buffer end */
            CHECK(d.p == d.end);
        }
    }
}

static void fill_levels(uint32_t *v, int64_t n, int bw, uint64_t *seed)
{
    uint32_t mask = bw == 32 ? 0xffffffffu : (1u << bw) - 1;
    for (int64_t i = 0; i < n;) {
        uint64_t r = rng(seed);
        int64_t run = (r & 3) == 0 ? (int64_t)(r >> 8) % 40 + 1 : 1;
        uint32_t val = (uint32_t)(rng(seed) & mask);
        for (int64_t j = 0; j < run && i < n; j++, i++) v[i] = (r & 3) == 0 ? val : (uint32_t)(rng(seed) & mask);
    }
}

static void rle_round_trip_random(void)
{
    static uint32_t in[5000], out[5000];
    for (uint64_t seed = 1; seed <= 6; seed++) {
        for (int bw = 0; bw <= 32; bw++) {
            uint64_t s = seed * 7919 + (uint64_t)bw;
            int64_t n = (int64_t)(rng(&s) % 5000);
            fill_levels(in, n, bw, &s);
            pq_buf b = {0};
            CHECK(pq_rle_encode(&b, in, n, bw) == 0);
            pq_rle_dec d;
            CHECK(pq_rle_init(&d, b.data, b.len, bw, NULL) == 0);
            int64_t got = 0, step = (int64_t)(rng(&s) % 50) + 1;
            while (got < n) {
                int64_t k = n - got < step ? n - got : step;
                CHECK(pq_rle_get(&d, out + got, k) == 0);
                got += k;
            }
            CHECK(memcmp(in, out, (size_t)n * 4) == 0);
            pq_buf_free(&b);
            /* v1 (length prefix) and dictionary (width byte) framings */
            CHECK(pq_rle_encode_v1(&b, in, n, bw) == 0);
            uint8_t tail = 0xAB;
            CHECK(pq_buf_append(&b, &tail, 1) == 0);
            size_t used = 0;
            CHECK(pq_rle_init_v1(&d, b.data, b.len, bw, &used, NULL) == 0);
            CHECK_EQ_I64(used, b.len - 1);
            CHECK(pq_rle_get(&d, out, n) == 0);
            CHECK(memcmp(in, out, (size_t)n * 4) == 0);
            pq_buf_free(&b);
            CHECK(pq_rle_encode_dict(&b, in, n, bw) == 0);
            CHECK(pq_rle_init_dict(&d, b.data, b.len, NULL) == 0);
            CHECK(pq_rle_get(&d, out, n) == 0);
            CHECK(memcmp(in, out, (size_t)n * 4) == 0);
            pq_buf_free(&b);
        }
    }
}

/* pq_rle_select against pq_rle_get then a pick: every width, runs and bit-packed groups,
 * selections of every density (none, sparse, pairs, all), called after a partial get (a
 * buffered group, an RLE run begun) and followed by a get that must continue in place. */
static void rle_select_matches_get(void)
{
    static uint32_t in[6000], out[6000], got[6000], rows[6000];
    for (uint64_t seed = 1; seed <= 5; seed++) {
        for (int bw = 0; bw <= 32; bw++) {
            uint64_t s = seed * 104729 + (uint64_t)bw;
            int64_t n = (int64_t)(rng(&s) % 6000);
            fill_levels(in, n, bw, &s);
            pq_buf b = {0};
            CHECK(pq_rle_encode(&b, in, n, bw) == 0);
            int64_t head = n ? (int64_t)(rng(&s) % 13) % (n + 1) : 0;
            int64_t span = n - head, tail = span ? (int64_t)(rng(&s) % 9) % (span + 1) : 0;
            span -= tail;
            uint64_t every = rng(&s) % 12; /* 0: all rows; else about 1 in every */
            int64_t nsel = 0;
            for (int64_t i = 0; i < span; i++)
                if (every == 0 || rng(&s) % every == 0) rows[nsel++] = (uint32_t)i;
            pq_rle_dec d;
            CHECK(pq_rle_init(&d, b.data, b.len, bw, NULL) == 0);
            CHECK(pq_rle_get(&d, got, head) == 0);
            CHECK(pq_rle_select(&d, span, rows, nsel, out) == 0);
            CHECK(pq_rle_get(&d, got + head, tail) == 0);
            CHECK(pq_rle_finish(&d) == 0);
            CHECK(memcmp(in, got, (size_t)head * 4) == 0);
            CHECK(memcmp(in + head + span, got + head, (size_t)tail * 4) == 0);
            int64_t bad = 0;
            for (int64_t j = 0; j < nsel; j++) bad += out[j] != in[head + rows[j]];
            CHECK_EQ_I64(bad, 0);
            pq_buf_free(&b);
        }
    }
    /* hand-built: one bit-packed run of 2 groups at width 5, then an RLE run of 7 threes */
    uint8_t buf[32] = {0};
    bw_t w = {0};
    put_byte(&w, (2 << 1) | 1);
    for (uint32_t i = 0; i < 16; i++) put_bits(&w, (i * 7) & 31, 5);
    put_byte(&w, 7 << 1);
    put_byte(&w, 3);
    memcpy(buf, w.b, sizeof buf);
    size_t len = w.bit / 8;
    uint32_t pick[] = {0, 5, 9, 15, 16, 22}, v[6];
    pq_rle_dec d;
    CHECK(pq_rle_init(&d, buf, len, 5, NULL) == 0);
    CHECK(pq_rle_select(&d, 23, pick, 6, v) == 0);
    CHECK(v[0] == 0 && v[1] == 3 && v[2] == 31 && v[3] == (105 & 31) && v[4] == 3 && v[5] == 3);
    CHECK(pq_rle_finish(&d) == 0);
    /* the data ends before n values: an error, as pq_rle_get's */
    pq_err e = {0};
    CHECK(pq_rle_init(&d, buf, len, 5, &e) == 0);
    CHECK(pq_rle_select(&d, 24, pick, 6, v) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "data ends after 23 of 24") != NULL);
}

/* The bit of value i through dm, by the test's own reading. */
static int dm_bit(const uint64_t *dm, uint32_t v)
{
    return (int)((dm[v >> 6] >> (v & 63)) & 1);
}

/* pq_rle_bits against pq_rle_get then a lookup per value: dictionaries of 1 entry and at
 * every bit-width boundary (so widths 0..11, the vector path's 1..8 and past it), bitmaps all
 * false, all true and random, runs and bit-packed groups, called after a partial get (a
 * buffered group, an RLE run begun) and followed by a get that must continue in place; the
 * bits past n stay clear. */
static void rle_bits_matches_get(void)
{
    static uint32_t in[7000], got[7000];
    static uint64_t out[7000 / 64 + 2], dm[2048 / 64];
    const uint32_t dlens[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                              127, 128, 129, 255, 256, 257, 1024, 2048};
    for (size_t di = 0; di < sizeof dlens / sizeof dlens[0]; di++) {
        uint32_t dlen = dlens[di];
        int bw = pq_bit_width(dlen - 1);
        for (uint64_t seed = 1; seed <= 4; seed++) {
            uint64_t s = seed * 7577 + dlen;
            int64_t n = (int64_t)(rng(&s) % 7000);
            fill_levels(in, n, 32, &s);
            for (int64_t i = 0; i < n; i++) in[i] %= dlen;
            for (uint32_t w = 0; w < (dlen + 63) / 64; w++)
                dm[w] = seed == 1 ? 0 : seed == 2 ? ~UINT64_C(0) : rng(&s);
            pq_buf b = {0};
            CHECK(pq_rle_encode_dict(&b, in, n, bw) == 0);
            int64_t head = n ? (int64_t)(rng(&s) % 13) % (n + 1) : 0;
            int64_t span = n - head, tail = span ? (int64_t)(rng(&s) % 9) % (span + 1) : 0;
            span -= tail;
            memset(out, 0xff, sizeof out);
            pq_rle_dec d;
            CHECK(pq_rle_init_dict(&d, b.data, b.len, NULL) == 0);
            CHECK(pq_rle_get(&d, got, head) == 0);
            CHECK(pq_rle_bits(&d, span, dm, dlen, out) == 0);
            CHECK(pq_rle_get(&d, got + head, tail) == 0);
            CHECK(pq_rle_finish(&d) == 0);
            CHECK(memcmp(in, got, (size_t)head * 4) == 0);
            CHECK(memcmp(in + head + span, got + head, (size_t)tail * 4) == 0);
            int64_t bad = 0, set = 0;
            for (int64_t i = 0; i < span; i++) {
                int bit = (int)((out[i >> 6] >> (i & 63)) & 1);
                bad += bit != dm_bit(dm, in[head + i]);
                set += bit;
            }
            for (int64_t i = span; i < ((span + 63) & ~(int64_t)63); i++)
                bad += (int)((out[i >> 6] >> (i & 63)) & 1); /* past n: clear */
            CHECK_EQ_I64(bad, 0);
            if (seed == 1) CHECK_EQ_I64(set, 0);
            if (seed == 2) CHECK_EQ_I64(set, span);
            pq_buf_free(&b);
        }
    }
}

/* pq_rle_bits' errors: an index past the dictionary in a bit-packed run long enough for the
 * vector path, in a short one and in an RLE run; data that ends early; width 0. */
static void rle_bits_errors(void)
{
    uint32_t in[200];
    uint64_t out[4], dm[1] = {0x5};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 200; i++) in[i] = k == 2 ? 6 : (uint32_t)(i % 3);
        if (k == 0) in[150] = 6; /* a bit-packed run of 200 values */
        int64_t n = k == 1 ? 12 : 200;
        if (k == 1) in[9] = 6;
        pq_buf b = {0};
        CHECK(pq_rle_encode_dict(&b, in, n, 3) == 0);
        pq_rle_dec d;
        pq_err e = {0};
        CHECK(pq_rle_init_dict(&d, b.data, b.len, &e) == 0);
        CHECK(pq_rle_bits(&d, n, dm, 3, out) == RINGSCAN_EFORMAT);
        CHECK(strstr(e.msg, "dictionary index 6 out of range (dictionary has 3 values)") != NULL);
        CHECK(pq_rle_bits(&d, n, dm, 3, out) == RINGSCAN_EFORMAT); /* sticky */
        CHECK(pq_rle_init_dict(&d, b.data, b.len, &e) == 0);
        CHECK(pq_rle_bits(&d, n, dm, 7, out) == 0); /* the same values in a bigger dictionary */
        CHECK_EQ_I64((int64_t)((out[0] >> 2) & 1), k == 2 ? 0 : 1); /* row 2: entry 2 or 6 */
        pq_err e2 = {0};
        CHECK(pq_rle_init_dict(&d, b.data, b.len, &e2) == 0);
        CHECK(pq_rle_bits(&d, n + 8, dm, 7, out) == RINGSCAN_EFORMAT); /* past the padding */
        CHECK(strstr(e2.msg, "end") != NULL);
        pq_buf_free(&b);
    }
    /* width 0, no data: every row is entry 0 */
    uint8_t zero = 0;
    pq_rle_dec d;
    CHECK(pq_rle_init_dict(&d, &zero, 1, NULL) == 0);
    CHECK(pq_rle_bits(&d, 130, dm, 1, out) == 0);
    CHECK(out[0] == ~UINT64_C(0) && out[1] == ~UINT64_C(0) && out[2] == 3);
}

/* Test-side ULEB128 run header. */
static void put_header(bw_t *w, uint32_t h)
{
    do {
        uint8_t c = (uint8_t)(h & 0x7f);
        h >>= 7;
        put_byte(w, (uint8_t)(c | (h ? 0x80 : 0)));
    } while (h);
}

/* A hand-built stream of width bw (1..8): RLE runs mixed with bit-packed runs of 1..40 groups,
 * values below vmax into v, ending with a bit-packed run; returns its length with the last
 * 0..bw bytes dropped (bw only when that run has 2 groups or more), so the last group may be
 * short or missing. */
static size_t build_mixed(bw_t *w, int bw, uint32_t vmax, uint64_t *s, uint32_t *v)
{
    memset(w, 0, sizeof *w);
    int64_t n = 0;
    uint32_t g = 0;
    int runs = 1 + (int)(rng(s) % 6);
    for (int r = 0; r < runs; r++) {
        if (r < runs - 1 && rng(s) % 3 == 0) {
            uint32_t len = 1 + (uint32_t)(rng(s) % 30), val = (uint32_t)(rng(s) % vmax);
            put_header(w, len << 1);
            put_byte(w, (uint8_t)val);
            for (uint32_t i = 0; i < len; i++) v[n++] = val;
        } else {
            g = 1 + (uint32_t)(rng(s) % 40);
            put_header(w, g << 1 | 1);
            w->bit = (w->bit + 7) & ~(size_t)7;
            for (uint32_t i = 0; i < 8 * g; i++) {
                v[n] = (uint32_t)(rng(s) % vmax);
                put_bits(w, v[n++], bw);
            }
        }
    }
    return (w->bit + 7) / 8 - (size_t)(rng(s) % (uint64_t)(g >= 2 ? bw + 1 : bw));
}

/* A copy of buf[0..len) that ends where a PROT_NONE page begins: a read past it faults. */
static uint8_t *guarded_copy(const uint8_t *buf, size_t len, uint8_t **map, size_t *map_len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (len + page - 1) / page * page;
    *map_len = body + page;
    *map = mmap(NULL, *map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(*map != MAP_FAILED);
    CHECK_EQ_I64(mprotect(*map + body, page, PROT_NONE), 0);
    memcpy(*map + body - len, buf, len);
    return *map + body - len;
}

/* A hand-built stream of width bw (1..32) for rle_select_wide_random: RLE runs of 1..30
 * values (ceil(bw / 8) value bytes) mixed with bit-packed runs of 1..12 groups of values over
 * the whole width (the top bit set too), values into v, ending with a bit-packed run; returns
 * its length with the last 0..bw bytes dropped (a short or missing last group: the values
 * that fit are the page). */
static size_t build_mixed_wide(bw_t *w, int bw, uint64_t *s, uint32_t *v)
{
    memset(w, 0, sizeof *w);
    uint32_t mask = bw == 32 ? 0xffffffffu : (1u << bw) - 1;
    int64_t n = 0;
    int runs = 1 + (int)(rng(s) % 6);
    for (int r = 0; r < runs; r++) {
        if (r < runs - 1 && rng(s) % 3 == 0) {
            uint32_t len = 1 + (uint32_t)(rng(s) % 30), val = (uint32_t)rng(s) & mask;
            put_header(w, len << 1);
            for (int i = 0; i < (bw + 7) / 8; i++) put_byte(w, (uint8_t)(val >> (8 * i)));
            for (uint32_t i = 0; i < len; i++) v[n++] = val;
        } else {
            uint32_t g = 1 + (uint32_t)(rng(s) % 12);
            put_header(w, g << 1 | 1);
            w->bit = (w->bit + 7) & ~(size_t)7;
            for (uint32_t i = 0; i < 8 * g; i++) {
                v[n] = (uint32_t)rng(s) & mask;
                if (rng(s) % 5 == 0) v[n] = mask; /* every bit of the width */
                put_bits(w, v[n++], bw);
            }
        }
    }
    return (w->bit + 7) / 8 - (size_t)(rng(s) % (uint64_t)(bw + 1));
}

/* pq_rle_select's 8-row gathers (AVX2: widths 1..25; AVX-512: every width) against the
 * values pq_rle_next gives, every width 1..32, streams of RLE and bit-packed runs mixed whose
 * last group may be cut (they end at a guard page: a load past the data faults), selections
 * empty, full, sparse, dense, and crowded at the page's end (the last loads near the buffer
 * end), after a get of a few values (a buffered group) and before a get of the rest; then a
 * select of one value more than the data holds fails as pq_rle_get does ("data ends after"). */
static void rle_select_wide_random(void)
{
    static uint32_t v[1200], ref[1200], out[1200], rows[1200], tmp[16];
    static bw_t w;
    int64_t selected = 0, errors = 0;
    for (int bw = 1; bw <= 32; bw++) {
        for (uint64_t seed = 1; seed <= 40; seed++) {
            uint64_t s = seed * 7777 + (uint64_t)bw;
            size_t len = build_mixed_wide(&w, bw, &s, v);
            uint8_t *map;
            size_t map_len;
            const uint8_t *buf = guarded_copy(w.b, len, &map, &map_len);
            pq_rle_dec d;
            CHECK(pq_rle_init(&d, buf, len, bw, NULL) == 0);
            int64_t n = 0, k;
            while ((k = pq_rle_next(&d, ref + n, 64)) > 0) n += k; /* the values that fit */
            CHECK(memcmp(ref, v, (size_t)n * 4) == 0);
            int64_t head = n ? (int64_t)(rng(&s) % 14) % (n + 1) : 0;
            int64_t span = n - head, tail = span ? (int64_t)(rng(&s) % 10) % (span + 1) : 0;
            int mode = (int)(seed % 5);
            if (mode == 4) tail = 0; /* crowded at the page's end: the data's end too */
            span -= tail;
            int64_t nsel = 0;
            for (int64_t i = 0; i < span; i++) {
                bool keep = mode == 1 || (mode == 2 && rng(&s) % 20 == 0) ||
                            (mode == 3 && rng(&s) % 2 == 0) ||
                            (mode == 4 && (i >= span - 24 || rng(&s) % 7 == 0));
                if (keep) rows[nsel++] = (uint32_t)i;
            }
            CHECK(pq_rle_init(&d, buf, len, bw, NULL) == 0);
            CHECK(pq_rle_get(&d, tmp, head) == 0);
            CHECK(memcmp(tmp, ref, (size_t)head * 4) == 0);
            memset(out, 0xab, sizeof out);
            CHECK(pq_rle_select(&d, span, rows, nsel, out) == 0);
            CHECK(pq_rle_get(&d, tmp, tail) == 0);
            CHECK(memcmp(tmp, ref + head + span, (size_t)tail * 4) == 0);
            int64_t bad = out[nsel] != 0xabababab; /* nothing written past the selection */
            for (int64_t j = 0; j < nsel; j++) bad += out[j] != ref[head + rows[j]];
            CHECK_EQ_I64(bad, 0);
            selected += nsel;
            /* one value more than pq_rle_next gave: every row selected; the same status and
             * message as pq_rle_get's ("data ends after", or the error that ended the values:
             * a cut group's bytes read as a run header), or the same values */
            pq_err eg = {0}, es = {0};
            for (int64_t i = 0; i <= n; i++) rows[i] = (uint32_t)i;
            CHECK(pq_rle_init(&d, buf, len, bw, &eg) == 0);
            int rg = pq_rle_get(&d, ref, n + 1);
            CHECK(pq_rle_init(&d, buf, len, bw, &es) == 0);
            CHECK_EQ_I64(pq_rle_select(&d, n + 1, rows, n + 1, out), rg);
            CHECK_STR(es.msg, eg.msg);
            if (rg == 0) CHECK(memcmp(out, ref, (size_t)(n + 1) * 4) == 0);
            errors += rg != 0;
            munmap(map, map_len);
        }
    }
    CHECK(selected > 50000 && errors > 1000); /* (65,105 and 1,277 of 1,280) */
}

/* pq_rle_bits' group path (8 values from one 8-byte load) against pq_rle_next then a lookup
 * by hand: every width 1..8, dictionaries of 1, 7, 63 and 64 entries with bits set past dlen,
 * runs mixed, calls of random lengths with gets between them (buffered groups), the last
 * groups near and past the buffer end (scalar there; the stream ends at a guard page, so a
 * read past it faults), then the decoder at the end. */
static void rle_bits_groups_random(void)
{
    static uint32_t v[2048], ref[2048], tmp[64];
    static bw_t w;
    static uint64_t out[8];
    const uint32_t dlens[] = {1, 7, 63, 64};
    int64_t cases = 0, bits_checked = 0;
    for (int bw = 1; bw <= 8; bw++) {
        for (size_t di = 0; di < 4; di++) {
            uint32_t dlen = dlens[di], vmax = dlen < (1u << bw) ? dlen : (1u << bw);
            for (uint64_t seed = 1; seed <= 60; seed++) {
                uint64_t s = seed * 1000003 + (uint64_t)bw * 131 + di;
                size_t len = build_mixed(&w, bw, vmax, &s, v);
                uint8_t *map;
                size_t map_len;
                const uint8_t *buf = guarded_copy(w.b, len, &map, &map_len);
                uint64_t dm[1] = {rng(&s)};
                pq_rle_dec d;
                CHECK(pq_rle_init(&d, buf, len, bw, NULL) == 0);
                int64_t n = 0, k;
                while ((k = pq_rle_next(&d, ref + n, 64)) > 0) n += k; /* the values that fit */
                CHECK(memcmp(ref, v, (size_t)n * 4) == 0);
                CHECK(pq_rle_init(&d, buf, len, bw, NULL) == 0);
                for (int64_t pos = 0; pos < n;) {
                    int64_t want = 1 + (int64_t)(rng(&s) % 300);
                    want = want < n - pos ? want : n - pos;
                    want = want < 512 ? want : 512;
                    if (rng(&s) % 4 == 0) { /* a get of a few values: maybe a buffered group */
                        int64_t g = want < 11 ? want : 11;
                        CHECK(pq_rle_get(&d, tmp, g) == 0);
                        CHECK(memcmp(tmp, ref + pos, (size_t)g * 4) == 0);
                        pos += g;
                        continue;
                    }
                    memset(out, 0xff, sizeof out);
                    CHECK(pq_rle_bits(&d, want, dm, dlen, out) == 0);
                    int64_t bad = 0;
                    for (int64_t i = 0; i < want; i++)
                        bad += (int)((out[i >> 6] >> (i & 63)) & 1) != dm_bit(dm, ref[pos + i]);
                    for (int64_t i = want; i < ((want + 63) & ~(int64_t)63); i++)
                        bad += (int)((out[i >> 6] >> (i & 63)) & 1); /* past n: clear */
                    CHECK_EQ_I64(bad, 0);
                    bits_checked += want;
                    pos += want;
                }
                CHECK(d.p == d.end);
                CHECK_EQ_I64(pq_rle_next(&d, tmp, 1), 0);
                CHECK(pq_rle_bits(&d, 1, dm, dlen, out) == RINGSCAN_EFORMAT); /* data ends */
                munmap(map, map_len);
                cases++;
            }
        }
    }
    CHECK_EQ_I64(cases, 8 * 4 * 60);
    CHECK(bits_checked > 8 * 4 * 60 * 100);
}

/* An index >= dlen in each position of a group, in each of a run's 4 groups, at every width
 * 1..8 (dlen 2^bw - 1, or 64 for widths 7 and 8 so the value is past dm's word): the call
 * fails naming the largest bad value, with RLE data after the run so the group path's 8-byte
 * loads stay in the buffer. */
static void rle_bits_groups_errors(void)
{
    static bw_t w;
    uint64_t out[2], dm[4] = {~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0)};
    for (int bw = 1; bw <= 8; bw++) {
        uint32_t top = (1u << bw) - 1, dlen = top < 64 ? top : 64;
        for (int at = 0; at < 32; at++) {
            memset(&w, 0, sizeof w);
            put_header(&w, 4 << 1 | 1);
            for (int i = 0; i < 32; i++) {
                uint32_t x = i == at ? top : (uint32_t)i % dlen;
                if (bw >= 7 && i == (at + 9) % 32) x = 64; /* a smaller bad value too */
                put_bits(&w, x, bw);
            }
            put_header(&w, 20 << 1);
            put_byte(&w, 0);
            size_t len = (w.bit + 7) / 8;
            uint8_t *buf = malloc(len);
            memcpy(buf, w.b, len);
            pq_rle_dec d;
            pq_err e = {0};
            char want[96];
            snprintf(want, sizeof want,
                     "dictionary index %u out of range (dictionary has %u values)", top, dlen);
            CHECK(pq_rle_init(&d, buf, len, bw, &e) == 0);
            CHECK(pq_rle_bits(&d, 52, dm, dlen, out) == RINGSCAN_EFORMAT);
            CHECK(strstr(e.msg, want) != NULL);
            CHECK(pq_rle_bits(&d, 52, dm, dlen, out) == RINGSCAN_EFORMAT); /* sticky */
            CHECK(pq_rle_init(&d, buf, len, bw, &e) == 0);
            CHECK(pq_rle_bits(&d, 52, dm, top + 1, out) == 0); /* every value in the dictionary */
            free(buf);
        }
    }
}

/* Every prefix of a valid stream: either the n values come out right or an error, never a
 * read past the prefix (ASan checks the copy). */
static void rle_truncated_every_byte(void)
{
    uint32_t in[300], out[300];
    uint64_t s = 42;
    for (int bw = 1; bw <= 32; bw += 3) {
        fill_levels(in, 300, bw, &s);
        pq_buf b = {0};
        CHECK(pq_rle_encode(&b, in, 300, bw) == 0);
        for (size_t cut = 0; cut < b.len; cut++) {
            uint8_t *copy = malloc(cut ? cut : 1);
            memcpy(copy, b.data, cut);
            pq_rle_dec d;
            pq_err e = {0};
            CHECK(pq_rle_init(&d, copy, cut, bw, &e) == 0);
            int rc = pq_rle_get(&d, out, 300);
            if (rc == 0) CHECK(memcmp(in, out, sizeof in) == 0);
            else CHECK(rc == RINGSCAN_EFORMAT && e.msg[0] != 0);
            free(copy);
        }
        pq_buf_free(&b);
    }
}

static void rle_errors(void)
{
    pq_rle_dec d;
    pq_err e = {0};
    uint8_t buf[16] = {0};
    CHECK(pq_rle_init(&d, buf, 4, 33, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "33") != NULL);
    uint32_t out[64];
    buf[0] = 0; /* RLE run of length 0 */
    CHECK(pq_rle_init(&d, buf, 4, 3, &e) == 0);
    CHECK_EQ_I64(pq_rle_next(&d, out, 1), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "length 0") != NULL);
    CHECK_EQ_I64(pq_rle_next(&d, out, 1), RINGSCAN_EFORMAT); /* sticky */
    buf[0] = 1; /* bit-packed, 0 groups */
    pq_rle_init(&d, buf, 4, 3, &e);
    CHECK_EQ_I64(pq_rle_next(&d, out, 1), RINGSCAN_EFORMAT);
    uint8_t vi[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0x01}; /* varint over 5 bytes */
    pq_rle_init(&d, vi, 6, 3, &e);
    CHECK_EQ_I64(pq_rle_next(&d, out, 1), RINGSCAN_EFORMAT);
    uint8_t big[2] = {4 << 1, 9}; /* RLE value 9 in 3 bits */
    pq_rle_init(&d, big, 2, 3, &e);
    CHECK_EQ_I64(pq_rle_next(&d, out, 1), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "value 9") != NULL);
    uint8_t cut[2] = {4 << 1, 9}; /* RLE value cut off (needs 2 bytes at width 9) */
    pq_rle_init(&d, cut, 2, 9, &e);
    CHECK_EQ_I64(pq_rle_next(&d, out, 1), RINGSCAN_EFORMAT);
    /* bit-packed run of 2 groups at width 8 with 10 bytes: 10 values fit, the 11th is an error */
    uint8_t bp[11] = {2 << 1 | 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    pq_rle_init(&d, bp, 11, 8, &e);
    CHECK(pq_rle_get(&d, out, 10) == 0);
    CHECK_EQ_I64(out[9], 10);
    CHECK(pq_rle_get(&d, out, 1) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "ends after 0 of 1") != NULL);
    uint8_t v1[6] = {9, 0, 0, 0, 2, 0};
    size_t used;
    CHECK(pq_rle_init_v1(&d, v1, 6, 1, &used, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "length 9") != NULL);
    uint8_t dw[2] = {40, 0};
    CHECK(pq_rle_init_dict(&d, dw, 2, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "40") != NULL);
    /* width 0 with no data: zeros */
    pq_rle_init(&d, NULL, 0, 0, &e);
    out[0] = out[99 % 64] = 7;
    CHECK(pq_rle_get(&d, out, 64) == 0);
    CHECK(out[0] == 0 && out[63] == 0);
    /* empty dictionary-index data: 0 values fine, 1 value an error */
    CHECK(pq_rle_init_dict(&d, NULL, 0, &e) == 0);
    CHECK(pq_rle_get(&d, out, 0) == 0);
    CHECK(pq_rle_get(&d, out, 1) == RINGSCAN_EFORMAT);
    /* skip */
    uint8_t sk[4] = {5 << 1, 1, 3 << 1, 2};
    pq_rle_init(&d, sk, 4, 2, &e);
    CHECK(pq_rle_skip(&d, 4) == 0);
    CHECK(pq_rle_get(&d, out, 2) == 0);
    CHECK(out[0] == 1 && out[1] == 2);
}

static void bitpacked_msb(void)
{
    /* Encodings.md example: 0..7 at width 3 -> 00000101 00111001 01110111 */
    uint8_t buf[3] = {0x05, 0x39, 0x77};
    uint32_t out[8];
    size_t used;
    CHECK(pq_bitpacked_msb_decode(buf, 3, 3, out, 8, &used, NULL) == 0);
    CHECK_EQ_I64(used, 3);
    for (int i = 0; i < 8; i++) CHECK_EQ_I64(out[i], i);
    pq_err e = {0};
    CHECK(pq_bitpacked_msb_decode(buf, 2, 3, out, 8, &used, &e) == RINGSCAN_EFORMAT);
    CHECK(pq_bitpacked_msb_decode(buf, 3, 1, out, 5, &used, &e) == 0);
    CHECK_EQ_I64(used, 1);
    CHECK(out[0] == 0 && out[5 - 1] == 0 && out[4] == 0);
    uint8_t w32[4] = {0x12, 0x34, 0x56, 0x78};
    CHECK(pq_bitpacked_msb_decode(w32, 4, 32, out, 1, &used, &e) == 0);
    CHECK_EQ_I64(out[0], 0x12345678);
}

static void unpack_every_width(void)
{
    for (uint32_t bw = 0; bw <= 32; bw++) {
        uint32_t mask = bw == 32 ? 0xffffffffu : (1u << bw) - 1, vals[8], out[8];
        bw_t w = {{0}, 0};
        for (uint32_t i = 0; i < 8; i++) put_bits(&w, vals[i] = (0xdeadbeefu * (i + 1)) & mask, (int)bw);
        pq_unpack8(w.b, bw, out);
        CHECK(memcmp(vals, out, sizeof out) == 0);
    }
    CHECK_EQ_I64(pq_bit_width(0), 0);
    CHECK_EQ_I64(pq_bit_width(1), 1);
    CHECK_EQ_I64(pq_bit_width(255), 8);
    CHECK_EQ_I64(pq_bit_width(256), 9);
}

static void plain_fixed(void)
{
    static const pq_physical types[] = {PQ_INT32, PQ_INT64, PQ_INT96, PQ_FLOAT, PQ_DOUBLE,
                                        PQ_FIXED_LEN_BYTE_ARRAY};
    uint8_t buf[600];
    for (int i = 0; i < 600; i++) buf[i] = (uint8_t)(i * 7);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        pq_vec v;
        pq_vec_init(&v, types[t], 5);
        int32_t w = pq_fixed_width(types[t], 5);
        size_t used = 0;
        CHECK(pq_plain_decode(buf, 600, 10, &v, &used, NULL) == 0);
        CHECK(pq_plain_decode(buf + used, 600 - used, 3, &v, &used, NULL) == 0);
        CHECK_EQ_I64(v.length, 13);
        CHECK_EQ_I64(used, 3 * w);
        CHECK(memcmp(v.values, buf, (size_t)(13 * w)) == 0);
        pq_err e = {0};
        CHECK(pq_plain_decode(buf, (size_t)(4 * w - 1), 4, &v, &used, &e) == RINGSCAN_EFORMAT);
        CHECK_EQ_I64(v.length, 13);
        CHECK(pq_plain_decode(buf, 0, 0, &v, &used, &e) == 0); /* empty page */
        /* selected values only: rows 0, 2, 9 of a 10-value page (page 2 = buf from 3 * w) */
        static const uint32_t sel[] = {0, 2, 9};
        CHECK(pq_plain_select_fixed(buf + 3 * w, 10 * (size_t)w, 10, sel, 3, &v, &e) == 0);
        CHECK_EQ_I64(v.length, 16);
        for (int k = 0; k < 3; k++)
            CHECK(memcmp(v.values + (13 + k) * w, buf + (3 + sel[k]) * w, (size_t)w) == 0);
        /* the page must hold all ten values even when the selection stops short of the end */
        CHECK(pq_plain_select_fixed(buf, (size_t)(10 * w - 1), 10, sel, 2, &v, &e) ==
              RINGSCAN_EFORMAT);
        CHECK(pq_plain_select_fixed(buf, 600, 10, sel, 0, &v, &e) == 0);
        CHECK_EQ_I64(v.length, 16);
        pq_buf b = {0};
        CHECK(pq_plain_encode(&b, &v, 0, 13, true) == 0);
        CHECK(b.len == (size_t)(13 * w) && memcmp(b.data, buf, b.len) == 0);
        pq_buf_free(&b);
        pq_vec_free(&v);
    }
}

static void plain_bool(void)
{
    uint8_t buf[3] = {0xA5, 0x0F, 0x01}; /* 1010 0101, 0000 1111, 1 */
    pq_vec v;
    pq_vec_init(&v, PQ_BOOLEAN, 0);
    size_t bits = 0;
    CHECK(pq_plain_decode_bool(buf, 3, 0, 3, &v, &bits, NULL) == 0); /* 1,0,1 */
    CHECK_EQ_I64(bits, 3);
    CHECK(pq_plain_decode_bool(buf, 3, 3, 14, &v, &bits, NULL) == 0);
    CHECK_EQ_I64(bits, 17);
    CHECK_EQ_I64(v.length, 17);
    for (int i = 0; i < 17; i++) CHECK(pq_bit_get(v.values, i) == pq_bit_get(buf, i));
    pq_err e = {0};
    CHECK(pq_plain_decode_bool(buf, 3, 1, 24, &v, &bits, &e) == RINGSCAN_EFORMAT);
    pq_buf b = {0};
    CHECK(pq_plain_encode(&b, &v, 0, 17, false) == 0);
    CHECK_EQ_I64(b.len, 3);
    CHECK(b.data[0] == 0xA5 && b.data[1] == 0x0F && b.data[2] == 0x01);
    pq_buf_free(&b);
    pq_vec_free(&v);
}

static void plain_byte_array(void)
{
    uint8_t buf[] = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0, 2, 0, 0, 0, 'x', 'y'};
    pq_vec v;
    pq_vec_init(&v, PQ_BYTE_ARRAY, 0);
    size_t used = 0;
    CHECK(pq_plain_decode(buf, sizeof buf, 3, &v, &used, NULL) == 0);
    CHECK_EQ_I64(used, sizeof buf);
    CHECK_EQ_I64(v.length, 3);
    CHECK(v.offsets[0] == 0 && v.offsets[1] == 3 && v.offsets[2] == 3 && v.offsets[3] == 5);
    CHECK(memcmp(v.data, "abcxy", 5) == 0);
    pq_err e = {0};
    for (size_t cut = 0; cut < sizeof buf; cut++) /* every truncation is an error */
        CHECK(pq_plain_decode(buf, cut, 3, &v, &used, &e) == RINGSCAN_EFORMAT);
    CHECK_EQ_I64(v.length, 3);
    uint8_t bad[] = {0xff, 0xff, 0xff, 0x7f, 'a'};
    CHECK(pq_plain_decode(bad, sizeof bad, 1, &v, &used, &e) == RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "2147483647") != NULL);
    /* nulls skipped by the encoder */
    CHECK(v.validity != NULL && v.validity_cap >= 1); /* reserve grew it */
    v.validity[0] = 0;
    v.null_count = 1;
    pq_bit_set(v.validity, 0, true);
    pq_bit_set(v.validity, 2, true);
    pq_buf b = {0};
    CHECK(pq_plain_encode(&b, &v, 0, 3, true) == 0);
    uint8_t want[] = {3, 0, 0, 0, 'a', 'b', 'c', 2, 0, 0, 0, 'x', 'y'};
    CHECK(b.len == sizeof want && memcmp(b.data, want, b.len) == 0);
    pq_buf_free(&b);
    pq_vec_free(&v);
}

/* PLAIN BYTE_ARRAY decoded in one pass (format/plain.c pq_plain_decode_ba): 0 to 300 values
 * of 0 to 150 bytes (short ones moved as PQ_BA_SLACK bytes, long ones by length), appended
 * after values already there, equal their bytes and end where the page does; a page cut or
 * with a length past its end fails at every value, leaving the vector as it was. */
static void plain_byte_array_many(void)
{
    static uint8_t page[300 * 154];
    static uint8_t want[300 * 150];
    int bad = 0;
    for (int n = 0; n <= 300; n += n < 20 ? 1 : 37) {
        size_t len = 0, wl = 0;
        for (int i = 0; i < n; i++) {
            uint32_t l = (uint32_t)((i * 53 + n) % 151);
            memcpy(page + len, &l, 4);
            for (uint32_t b = 0; b < l; b++) page[len + 4 + b] = want[wl + b] = (uint8_t)(i + b * 7);
            len += 4 + l, wl += l;
        }
        pq_vec v;
        pq_vec_init(&v, PQ_BYTE_ARRAY, 0);
        size_t used = 0;
        const uint8_t two[] = {2, 0, 0, 0, 'h', 'i'};
        CHECK(pq_plain_decode(two, sizeof two, 1, &v, &used, NULL) == 0);
        bad += pq_plain_decode(page, len, n, &v, &used, NULL) != 0 || used != len;
        bad += v.length != n + 1 || v.data_len != (int64_t)(wl + 2) || v.offsets[1] != 2;
        bad += memcmp(v.data, "hi", 2) != 0 || (wl && memcmp(v.data + 2, want, wl) != 0);
        for (int i = 0, at = 2; i < n; i++) {
            int l = (i * 53 + n) % 151;
            bad += v.offsets[i + 2] - v.offsets[i + 1] != l || v.offsets[i + 1] != at;
            at += l;
        }
        for (int i = 0; n > 0 && i < n; i += 1 + n / 7) { /* cut inside value i, or a length past the end */
            pq_err e = {0};
            size_t at = 0;
            for (int k = 0; k < i; k++) at += 4 + (size_t)((k * 53 + n) % 151);
            int64_t len0 = v.length, data0 = v.data_len;
            bad += pq_plain_decode(page, at + 3, n, &v, &used, &e) != RINGSCAN_EFORMAT;
            uint32_t keep;
            memcpy(&keep, page + at, 4);
            uint32_t huge = (uint32_t)(len - at);
            memcpy(page + at, &huge, 4);
            bad += pq_plain_decode(page, len, n, &v, &used, &e) != RINGSCAN_EFORMAT;
            memcpy(page + at, &keep, 4);
            bad += v.length != len0 || v.data_len != data0;
        }
        pq_vec_free(&v);
    }
    CHECK_EQ_I64(bad, 0);
}

/* A BYTE_ARRAY page's value count is checked against its bytes before anything is reserved:
 * each value takes a 4-byte prefix at least, so a dictionary page claiming 64 Mi values (the
 * column reader's max_dict_values) in 8 bytes fails as corrupt with the vector's buffers as
 * small as they were. The one-pass decode reserved (and zeroed) n offsets and validity bits
 * first: 520 MiB per such 8-byte page (offsets grown to 512 MiB; peak RSS 523 MiB). */
static void plain_byte_array_count_past_bytes(void)
{
    const uint8_t page[8] = {1, 0, 0, 0, 'x', 9, 0, 0}; /* "x", then a length cut off */
    pq_vec v;
    pq_vec_init(&v, PQ_BYTE_ARRAY, 0);
    pq_err e = {0};
    CHECK_EQ_I64(pq_dict_decode_page(page, sizeof page, (int64_t)64 << 20, &v, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "value 1") != NULL);
    CHECK(v.offsets_cap <= 64 && v.validity_cap <= 64); /* room for the 2 values the bytes hold */
    size_t used = 0;
    CHECK_EQ_I64(pq_plain_decode(page, 5, 2, &v, &used, &e), RINGSCAN_EFORMAT); /* n = len / 4 + 1 */
    CHECK_EQ_I64(pq_plain_decode(page, 5, 1, &v, &used, &e), 0);
    CHECK(used == 5 && v.length == 1 && v.offsets[1] == 1 && v.data[0] == 'x');
    pq_vec_free(&v);
}

/* Gathers gi[0..pre) (at most n) then gi[0..n) from fixed-width dict into one vector: its
 * length is both counts and each value of the second gather equals its entry (idx: gi's
 * indices where the test reads them). */
static void gather_appended(const pq_vec *dict, const uint32_t *gi, const uint32_t *idx, int n,
                            int64_t pre)
{
    size_t w = (size_t)pq_fixed_width(dict->type, 0);
    int64_t base = pre < n ? pre : n;
    pq_vec out;
    pq_vec_init(&out, dict->type, 0);
    CHECK(pq_dict_gather(dict, gi, base, &out, NULL) == 0);
    CHECK(pq_dict_gather(dict, gi, n, &out, NULL) == 0);
    CHECK_EQ_I64(out.length, base + n);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += memcmp(out.values + (size_t)(base + i) * w, dict->values + (size_t)idx[i] * w, w) != 0;
    CHECK_EQ_I64(bad, 0);
    pq_vec_free(&out);
}

/* Gathers of 4- and 8-byte values from dictionaries of 1 to 40 values (the register path
 * takes up to 32 or 16 of them, format/dict.c gather_small), every index, 0 to 100 rows,
 * appended after rows already there: each value equals its dictionary entry. */
static void dict_gather_sizes(void)
{
    uint32_t idx[100];
    for (int w = 4; w <= 8; w += 4)
        for (int len = 1; len <= 40; len++)
            for (int n = 0; n <= 100; n += 11) {
                pq_vec dict;
                pq_vec_init(&dict, w == 4 ? PQ_INT32 : PQ_INT64, 0);
                CHECK(pq_vec_reserve(&dict, len, 0) == 0);
                for (int k = 0; k < len; k++) {
                    int64_t x = -1000003 * (int64_t)(k + 1) + (int64_t)k * k * 7919;
                    memcpy(dict.values + (size_t)k * (size_t)w, &x, (size_t)w);
                }
                dict.length = len;
                for (int i = 0; i < n; i++) idx[i] = (uint32_t)((i * 13 + n) % len);
                gather_appended(&dict, idx, idx, n, 3);
                pq_vec_free(&dict);
            }
}

/* Random gathers against a scalar reference (format/dict.c gather_small: AVX2 permutes of at
 * most 16 values, 8-byte ones only when every value fits int32, sign-extended): dictionaries
 * of 1 to 17 values (16 in the registers, 17 not) holding int32's edges, negative values and,
 * in some 8-byte ones, a value past int32 (the scalar path); the last index the dictionary
 * has in every batch; indices that end where a PROT_NONE page begins (a load past them
 * faults); 0 to 300 rows, appended after others. */
static void dict_gather_small_random(void)
{
    static const int64_t edge[] = {INT32_MIN, INT32_MAX, -1, 0, 1, (int64_t)INT32_MAX + 1,
                                   (int64_t)INT32_MIN - 1};
    uint64_t seed = 0x5eed38;
    uint32_t idx[300];
    for (int round = 0; round < 3000; round++) {
        int w = round % 2 ? 8 : 4, len = 1 + (int)(rng(&seed) % 17);
        int n = (int)(rng(&seed) % 301), wide = w == 8 && rng(&seed) % 4 == 0;
        pq_vec dict;
        pq_vec_init(&dict, w == 4 ? PQ_INT32 : PQ_INT64, 0);
        CHECK(pq_vec_reserve(&dict, len, 0) == 0);
        for (int k = 0; k < len; k++) {
            uint64_t r = rng(&seed);
            int64_t x = r % 3 == 0 ? edge[r % 5] : (int64_t)(int32_t)(r >> 32);
            if (wide && k == len - 1) x = edge[5 + (int)(r % 2)]; /* past int32 */
            memcpy(dict.values + (size_t)k * (size_t)w, &x, (size_t)w); /* w == 4: low half */
        }
        dict.length = len;
        for (int i = 0; i < n; i++) idx[i] = (uint32_t)(rng(&seed) % (uint64_t)len);
        if (n > 0) idx[n - 1] = (uint32_t)len - 1, idx[0] = (uint32_t)len - 1;
        uint8_t *map = NULL;
        size_t map_len = 0;
        const uint32_t *gi = n ? (const uint32_t *)(const void *)guarded_copy(
                                     (const uint8_t *)idx, (size_t)n * 4, &map, &map_len)
                               : idx;
        gather_appended(&dict, gi, idx, n, n % 5);
        if (map) munmap(map, map_len);
        pq_vec_free(&dict);
    }
}

/* String gathers (short values move as PQ_BA_SLACK-byte copies): values of 0-70 bytes, the
 * longest last so its copy ends at the dictionary's last byte, gathered in two appends; every
 * value and offset compared with the dictionary's, and nothing written past data_len shows. */
static void dict_gather_strings(void)
{
    enum { NV = 71, NI = 400 };
    pq_vec dict, out;
    pq_vec_init(&dict, PQ_BYTE_ARRAY, 0);
    pq_vec_init(&out, PQ_BYTE_ARRAY, 0);
    static uint8_t page[NV * 4 + NV * 71];
    size_t len = 0;
    for (uint32_t v = 0; v < NV; v++) {
        memcpy(page + len, &v, 4);
        for (uint32_t k = 0; k < v; k++) page[len + 4 + k] = (uint8_t)(v * 31 + k);
        len += 4 + v;
    }
    CHECK(pq_dict_decode_page(page, len, NV, &dict, NULL) == 0);
    static uint32_t idx[NI];
    uint64_t s = 7;
    for (int i = 0; i < NI; i++) idx[i] = (uint32_t)(i % 5 == 0 ? NV - 1 : rng(&s) % NV);
    CHECK(pq_dict_gather(&dict, idx, 7, &out, NULL) == 0);
    CHECK(pq_dict_gather(&dict, idx + 7, NI - 7, &out, NULL) == 0);
    CHECK_EQ_I64(out.length, NI);
    int bad = 0;
    for (int i = 0; i < NI; i++) {
        int32_t a = out.offsets[i], l = out.offsets[i + 1] - a;
        bad += l != (int32_t)idx[i];
        for (int32_t k = 0; k < l && l == (int32_t)idx[i]; k++)
            bad += out.data[a + k] != (uint8_t)(idx[i] * 31 + (uint32_t)k);
    }
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(out.data_len, out.offsets[NI]);
    pq_vec_free(&dict);
    pq_vec_free(&out);
}

static void dict_gather_and_errors(void)
{
    int32_t dv[5] = {10, 20, 30, 40, 50};
    pq_vec dict, out;
    pq_vec_init(&dict, PQ_INT32, 0);
    pq_vec_init(&out, PQ_INT32, 0);
    CHECK(pq_dict_decode_page((const uint8_t *)dv, sizeof dv, 5, &dict, NULL) == 0);
    CHECK_EQ_I64(dict.length, 5);
    uint32_t idx[4] = {4, 0, 2, 2};
    CHECK(pq_dict_gather(&dict, idx, 4, &out, NULL) == 0);
    int32_t *o = (int32_t *)(void *)out.values;
    CHECK(o[0] == 50 && o[1] == 10 && o[2] == 30 && o[3] == 30);
    pq_err e = {0};
    uint32_t bad[3] = {1, 7, 9};
    CHECK(pq_dict_gather(&dict, bad, 3, &out, &e) == RINGSCAN_EFORMAT);
    CHECK_STR(e.msg, "dictionary index 7 out of range (dictionary has 5 values)");
    CHECK_EQ_I64(out.length, 4);
    /* bit width 0: every index is 0 */
    uint8_t w0[2] = {0, 8 << 1};
    pq_rle_dec d;
    CHECK(pq_rle_init_dict(&d, w0, 2, NULL) == 0);
    CHECK(pq_dict_decode(&dict, &d, 8, &out, NULL) == 0);
    CHECK_EQ_I64(out.length, 12);
    o = (int32_t *)(void *)out.values;
    CHECK(o[4] == 10 && o[11] == 10);
    /* indices from the RLE stream out of range */
    uint8_t ids[3] = {3, 2 << 1, 6};
    CHECK(pq_rle_init_dict(&d, ids, 3, NULL) == 0);
    CHECK(pq_dict_decode(&dict, &d, 2, &out, &e) == RINGSCAN_EFORMAT);
    CHECK_STR(e.msg, "dictionary index 6 out of range (dictionary has 5 values)");
    CHECK_EQ_I64(out.length, 12);
    /* a dictionary page too short for its count */
    CHECK(pq_dict_decode_page((const uint8_t *)dv, 19, 5, &dict, &e) == RINGSCAN_EFORMAT);
    CHECK(strncmp(e.msg, "dictionary page: ", 17) == 0);
    pq_vec_free(&dict);
    pq_vec_free(&out);
}

static void dict_builder_round_trip(void)
{
    static const pq_physical types[] = {PQ_INT32, PQ_INT64, PQ_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY,
                                        PQ_DOUBLE};
    for (size_t t = 0; t < 5; t++) {
        uint64_t s = 99 + t;
        pq_vec in;
        pq_vec_init(&in, types[t], 3);
        int64_t n = 3000;
        CHECK(pq_vec_reserve(&in, n, n * 8) == 0);
        int32_t w = pq_fixed_width(types[t], 3);
        for (int64_t i = 0; i < n; i++) {
            uint64_t r = rng(&s) % 700; /* 700 distinct values at most */
            if (types[t] == PQ_BYTE_ARRAY) {
                int l = (int)(r % 9);
                for (int k = 0; k < l; k++) in.data[in.data_len + k] = (uint8_t)(r + (uint64_t)k);
                in.data_len += l;
                in.offsets[i + 1] = (int32_t)in.data_len;
            } else {
                memcpy(in.values + i * w, &r, (size_t)w);
            }
            in.length++;
        }
        pq_dict_builder b;
        CHECK(pq_dictb_init(&b, types[t], 3, 1 << 20, 1 << 20) == 0);
        static uint32_t idx[3000];
        int64_t nidx = 0, rows = 0;
        CHECK(pq_dictb_add(&b, &in, 0, n, idx, &nidx, &rows) == 0);
        CHECK(nidx == n && rows == n);
        CHECK(pq_dictb_count(&b) <= 700 && pq_dictb_count(&b) > 100);
        pq_buf page = {0}, ids = {0};
        CHECK(pq_dictb_write(&b, &page) == 0);
        CHECK(pq_rle_encode_dict(&ids, idx, n, pq_bit_width((uint64_t)pq_dictb_count(&b) - 1)) == 0);
        pq_vec dict, out;
        pq_vec_init(&dict, types[t], 3);
        pq_vec_init(&out, types[t], 3);
        CHECK(pq_dict_decode_page(page.data, page.len, pq_dictb_count(&b), &dict, NULL) == 0);
        pq_rle_dec d;
        CHECK(pq_rle_init_dict(&d, ids.data, ids.len, NULL) == 0);
        CHECK(pq_dict_decode(&dict, &d, n, &out, NULL) == 0);
        CHECK_EQ_I64(out.length, n);
        if (types[t] == PQ_BYTE_ARRAY) {
            CHECK(out.data_len == in.data_len && memcmp(out.data, in.data, (size_t)in.data_len) == 0);
            CHECK(memcmp(out.offsets, in.offsets, (size_t)(n + 1) * 4) == 0);
        } else {
            CHECK(memcmp(out.values, in.values, (size_t)(n * w)) == 0);
        }
        pq_dictb_free(&b);
        /* cap: at most 50 distinct values */
        CHECK(pq_dictb_init(&b, types[t], 3, 1 << 20, 50) == 0);
        CHECK(pq_dictb_add(&b, &in, 0, n, idx, &nidx, &rows) == RINGSCAN_ELIMIT);
        CHECK_EQ_I64(pq_dictb_count(&b), 50);
        CHECK(rows < n && nidx == rows);
        pq_dictb_free(&b);
        pq_buf_free(&page);
        pq_buf_free(&ids);
        pq_vec_free(&dict);
        pq_vec_free(&out);
        pq_vec_free(&in);
    }
    pq_dict_builder b;
    CHECK(pq_dictb_init(&b, PQ_BOOLEAN, 0, 100, 100) == RINGSCAN_EUNSUPPORTED);
    /* fuzz find: only empty strings (the vector's data buffer is NULL) */
    pq_vec e;
    pq_vec_init(&e, PQ_BYTE_ARRAY, 0);
    CHECK(pq_vec_reserve(&e, 3, 0) == 0);
    e.length = 3;
    CHECK(e.data == NULL);
    CHECK(pq_dictb_init(&b, PQ_BYTE_ARRAY, 0, 100, 100) == 0);
    uint32_t idx[3];
    int64_t k = 0, rows = 0;
    CHECK(pq_dictb_add(&b, &e, 0, 3, idx, &k, &rows) == 0);
    CHECK(k == 3 && idx[0] == 0 && idx[2] == 0 && pq_dictb_count(&b) == 1);
    pq_dictb_free(&b);
    pq_buf out = {0};
    CHECK(pq_dba_encode(&out, &e, 0, 3) == 0);
    pq_buf_free(&out);
    pq_vec_free(&e);
}

static void buf_varints(void)
{
    pq_buf b = {0};
    CHECK(pq_enc_put_uvarint(&b, 300) == 0);
    CHECK(pq_enc_put_zigzag(&b, -1) == 0);
    CHECK(pq_enc_put_zigzag(&b, INT64_MIN) == 0);
    CHECK(b.len == 2 + 1 + 10);
    CHECK(b.data[0] == 0xAC && b.data[1] == 0x02 && b.data[2] == 0x01);
    CHECK(b.data[3] == 0xff && b.data[12] == 0x01);
    pq_buf_free(&b);
}

int main(void)
{
    RUN(rle_hand_built_every_width);
    RUN(rle_round_trip_random);
    RUN(rle_select_matches_get);
    RUN(rle_select_wide_random);
    RUN(rle_bits_matches_get);
    RUN(rle_bits_errors);
    RUN(rle_bits_groups_random);
    RUN(rle_bits_groups_errors);
    RUN(rle_truncated_every_byte);
    RUN(rle_errors);
    RUN(bitpacked_msb);
    RUN(unpack_every_width);
    RUN(plain_fixed);
    RUN(plain_bool);
    RUN(plain_byte_array);
    RUN(plain_byte_array_many);
    RUN(plain_byte_array_count_past_bytes);
    RUN(dict_gather_and_errors);
    RUN(dict_gather_strings);
    RUN(dict_gather_sizes);
    RUN(dict_gather_small_random);
    RUN(dict_builder_round_trip);
    RUN(buf_varints);
    return CHECK_DONE("test_encoding");
}
