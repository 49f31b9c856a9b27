/* tests for format/snappy.c: our snappy decoder against libsnappy (the compressor and the
 * reference): Parquet-like integer pages, hand-built streams exercising every element kind,
 * overlapping copies at offsets 1..20 and the literal length forms; every truncation and
 * thousands of single-byte corruptions of a valid stream must be judged as libsnappy judges
 * them, with the same output when accepted and no write past the stated length. */
#include <snappy-c.h>

#include "check.h"
#include "format/codec.h"

enum { GUARD = 64 };

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Decodes with ours into a block with guard bytes after want bytes, and with libsnappy;
 * checks that they agree (status, output) and the guard is intact. Returns ours' status. */
static int agree(const uint8_t *c, size_t n)
{
    size_t want = 0, head = 0;
    size_t ref_len = 0;
    bool ref_hdr = snappy_uncompressed_length((const char *)c, n, &ref_len) == SNAPPY_OK;
    int hrc = pq_snappy_length(c, n, &want, &head);
    CHECK((hrc == 0) == ref_hdr);
    if (hrc || want > (1u << 22)) return hrc ? hrc : PQ_SNAPPY_SIZE;
    CHECK(ref_len == want);
    uint8_t *a = malloc(want + GUARD), *b = malloc(want + 1);
    memset(a, 0xA5, want + GUARD);
    int rc = pq_snappy_uncompress(c, n, a, want);
    size_t got = want;
    bool ref_ok = snappy_uncompress((const char *)c, n, (char *)b, &got) == SNAPPY_OK && got == want;
    CHECK((rc == 0) == ref_ok);
    CHECK(rc == 0 || rc == PQ_SNAPPY_CORRUPT || rc == PQ_SNAPPY_SIZE);
    if (rc == 0 && ref_ok) CHECK(memcmp(a, b, want) == 0);
    for (size_t i = 0; i < GUARD; i++) CHECK(a[want + i] == 0xA5);
    free(a);
    free(b);
    return rc;
}

static uint8_t *compress(const uint8_t *p, size_t n, size_t *clen)
{
    *clen = snappy_max_compressed_length(n);
    uint8_t *c = malloc(*clen);
    CHECK(snappy_compress((const char *)p, n, (char *)c, clen) == SNAPPY_OK);
    return c;
}

/* p (n bytes, freed here) compressed by libsnappy, decoded by ours back to p, and judged as
 * libsnappy judges it. */
static void round_trip(uint8_t *p, size_t n)
{
    size_t clen;
    uint8_t *c = compress(p, n, &clen);
    uint8_t *d = malloc(n);
    CHECK_EQ_I64(pq_snappy_uncompress(c, clen, d, n), 0);
    CHECK(memcmp(d, p, n) == 0);
    CHECK_EQ_I64(agree(c, clen), 0);
    free(d);
    free(c);
    free(p);
}

/* Little-endian int64 values below 2^24 (a Parquet PLAIN page of prices): a short literal
 * and a short copy per value, the shape the decoder was written for. */
static void integer_pages(void)
{
    uint64_t s = 42;
    for (int page = 0; page < 8; page++) {
        size_t n = (size_t)(1000 + page * 9973) * 8;
        uint8_t *p = malloc(n);
        for (size_t i = 0; i < n; i += 8) {
            uint64_t v = rng(&s) % (page % 2 ? (1u << 24) : 200);
            memcpy(p + i, &v, 8);
        }
        round_trip(p, n);
    }
}

/* ---- hand-built streams */

typedef struct sbuf {
    uint8_t b[1 << 17];
    size_t n;
    size_t out; /* bytes the elements produce */
} sbuf;

static void lit(sbuf *s, const uint8_t *p, size_t len)
{
    size_t m = len - 1;
    if (m < 60) {
        s->b[s->n++] = (uint8_t)(m << 2);
    } else {
        size_t nb = m < 256 ? 1 : m < 65536 ? 2 : m < (1u << 24) ? 3 : 4;
        s->b[s->n++] = (uint8_t)((59 + nb) << 2);
        for (size_t i = 0; i < nb; i++) s->b[s->n++] = (uint8_t)(m >> (8 * i));
    }
    memcpy(s->b + s->n, p, len);
    s->n += len;
    s->out += len;
}

/* A copy element of the given kind (1, 2 or 4 offset bytes). */
static void copy(sbuf *s, int kind, size_t off, size_t len)
{
    if (kind == 1) {
        s->b[s->n++] = (uint8_t)(1 | (len - 4) << 2 | (off >> 8) << 5);
        s->b[s->n++] = (uint8_t)off;
    } else {
        s->b[s->n++] = (uint8_t)((kind == 2 ? 2 : 3) | (len - 1) << 2);
        for (int i = 0; i < kind; i++) s->b[s->n++] = (uint8_t)(off >> (8 * i));
    }
    s->out += len;
}

/* The stream: varint header of the elements' output length, then the elements. */
static size_t finish(const sbuf *s, uint8_t *dst)
{
    size_t h = 0, v = s->out;
    do {
        dst[h++] = (uint8_t)((v & 127) | (v > 127 ? 128 : 0));
        v >>= 7;
    } while (v);
    memcpy(dst + h, s->b, s->n);
    return h + s->n;
}

static void every_element(void)
{
    static uint8_t stream[1 << 18];
    uint8_t text[70000];
    for (size_t i = 0; i < sizeof text; i++) text[i] = (uint8_t)(i * 7 + i / 13);
    /* a 5-byte tail leaves the last copies little room after them, a 70-byte one enough for
     * the whole-word moves */
    for (size_t off = 1; off <= 20; off++) {
        for (size_t len = 1; len <= 64; len++) {
            for (size_t tail = 5; tail <= 70; tail += 65) {
                sbuf *s = calloc(1, sizeof *s);
                lit(s, text, 20);
                if (len >= 4 && len <= 11 && off < 2048) copy(s, 1, off, len);
                copy(s, 2, off, len);
                copy(s, 4, off, len);
                lit(s, text + 3, tail);
                size_t n = finish(s, stream);
                CHECK_EQ_I64(agree(stream, n), 0);
                free(s);
            }
        }
    }
    /* literal lengths across the 1..4-byte length forms, and long copies after them */
    static const size_t lens[] = {1, 16, 17, 60, 61, 255, 256, 257, 65535, 65536, 65537, 69999};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        sbuf *s = calloc(1, sizeof *s);
        lit(s, text, lens[i]);
        copy(s, 2, lens[i] < 64 ? lens[i] : 64, 64);
        copy(s, 4, 1, 33);
        size_t n = finish(s, stream);
        CHECK_EQ_I64(agree(stream, n), 0);
        free(s);
    }
}

/* One element of every tag byte, in one stream long enough that each is taken by the fast
 * loop (after a 2100-byte literal, with a 200-byte literal after them): literal lengths 1..60
 * and the four length-byte forms (the 3- and 4-byte forms not minimal), copy-1 of every length
 * and high offset bits, copy-2 and copy-4 of every length, at offsets from below 16 (the
 * overlapping path) to 2047. The tag table and the fast loop against libsnappy. */
static void every_tag(void)
{
    static uint8_t stream[1 << 18];
    uint8_t text[4096];
    for (size_t i = 0; i < sizeof text; i++) text[i] = (uint8_t)(i * 131 + i / 7);
    sbuf *s = calloc(1, sizeof *s);
    lit(s, text, 2100);
    for (unsigned t = 0; t < 256; t++) {
        size_t d = t >> 2, low = t % 3 == 0 ? 5 : 0x40 + t % 100;
        switch (t & 3) {
        case 0:
            if (d < 60) {
                lit(s, text + t, d + 1);
            } else { /* d - 59 length bytes holding 99: a 100-byte literal */
                s->b[s->n++] = (uint8_t)t;
                for (size_t i = 0; i < d - 59; i++) s->b[s->n++] = i == 0 ? 99 : 0;
                memcpy(s->b + s->n, text + t, 100);
                s->n += 100;
                s->out += 100;
            }
            break;
        case 1: copy(s, 1, (size_t)(t >> 5) << 8 | low, 4 + (d & 7)); break;
        case 2: copy(s, 2, low + d * 13, d + 1); break;
        default: copy(s, 4, low + d * 29, d + 1); break;
        }
    }
    lit(s, text + 7, 200);
    size_t n = finish(s, stream);
    CHECK_EQ_I64(agree(stream, n), 0);
    free(s);
}

/* Copies at a period of 1, 2, 4 and 8 bytes taken by the fast loop right after a literal of 0
 * to 9 bytes (0: right after another copy), so that the pattern comes from the pending
 * element's source, from the older output, or from both joined; repeated 50 times with
 * varied bytes, then a long literal. And sorted int64 keys each repeated 1 to 7 times (a
 * PLAIN page of l_orderkey: a short literal, then a copy at offset 8) through libsnappy. */
static void periods_after_short_elements(void)
{
    static uint8_t stream[1 << 18];
    uint8_t text[4096];
    for (size_t i = 0; i < sizeof text; i++) text[i] = (uint8_t)(i * 37 + i / 5);
    static const size_t offs[] = {1, 2, 4, 8};
    for (size_t o = 0; o < 4; o++)
        for (size_t pre = 0; pre <= 9; pre++)
            for (size_t len = 9; len <= 64; len += 11) {
                sbuf *s = calloc(1, sizeof *s);
                lit(s, text, 300);
                for (size_t r = 0; r < 50; r++) {
                    copy(s, 2, 100 + r, 5 + r % 7); /* an older element before the literal */
                    if (pre) lit(s, text + 7 * r, pre);
                    copy(s, r % 2 ? 2 : 4, offs[o], len);
                }
                lit(s, text + 5, 300);
                CHECK_EQ_I64(agree(stream, finish(s, stream)), 0);
                free(s);
            }
    uint64_t seed = 9, key = 1;
    size_t n = 80000 * 8;
    uint8_t *p = malloc(n);
    for (size_t i = 0; i < n;) {
        key += 1 + rng(&seed) % 40;
        for (size_t k = 1 + rng(&seed) % 7; k > 0 && i < n; k--, i += 8) memcpy(p + i, &key, 8);
    }
    round_trip(p, n);
}

/* Bad offsets met inside the fast loop (which needs 129 input bytes and 193 output bytes
 * ahead): short literals from the first output byte (a literal's stand-in offset of 256 is
 * "before the start" there), then offset 0 (an overlapping copy), a copy-1 and a copy-2 from
 * before the start of the output, each followed by enough elements to keep the loop running;
 * and the same stream with the copy valid. */
static void bad_offsets_in_fast_loop(void)
{
    static uint8_t st[4096];
    static const uint8_t text[] = "abcdefghijklmnopqrstuvwxyz";
    static const struct { int kind; size_t off, len; int want; } bad[] = {
        {1, 0, 4, PQ_SNAPPY_CORRUPT}, {2, 0, 20, PQ_SNAPPY_CORRUPT},
        {1, 1500, 8, PQ_SNAPPY_CORRUPT}, {2, 5000, 30, PQ_SNAPPY_CORRUPT},
        {2, 1138, 64, PQ_SNAPPY_CORRUPT}, {2, 1137, 64, 0}, {1, 3, 11, 0}, {2, 40, 33, 0},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        sbuf *s = calloc(1, sizeof *s);
        for (int i = 0; i < 100; i++) lit(s, text + i % 20, 1 + (size_t)i % 7); /* 395 bytes */
        for (int i = 0; i < 100; i++) copy(s, 1, 50 + (size_t)i, 4 + (size_t)i % 8);
        copy(s, bad[b].kind, bad[b].off, bad[b].len); /* after 395 + 742 = 1137 bytes */
        for (int i = 0; i < 200; i++) lit(s, text + i % 20, 1 + (size_t)i % 5);
        CHECK_EQ_I64(agree(st, finish(s, st)), bad[b].want);
        free(s);
    }
}

/* Offset 0, an offset before the start, output past the stated length, a stream shorter than
 * it: rejected with the right status. */
static void bad_streams(void)
{
    uint8_t st[64];
    static const uint8_t text[] = "abcdefgh";
    sbuf *s = calloc(1, sizeof *s);
    lit(s, text, 8);
    copy(s, 2, 0, 4); /* offset 0 */
    CHECK_EQ_I64(agree(st, finish(s, st)), PQ_SNAPPY_CORRUPT);
    memset(s, 0, sizeof *s);
    lit(s, text, 8);
    copy(s, 1, 9, 4); /* before the start */
    CHECK_EQ_I64(agree(st, finish(s, st)), PQ_SNAPPY_CORRUPT);
    memset(s, 0, sizeof *s);
    lit(s, text, 8);
    copy(s, 1, 8, 8);
    size_t n = finish(s, st);
    st[0] = 12; /* states 12 bytes, elements make 16 */
    CHECK_EQ_I64(agree(st, n), PQ_SNAPPY_CORRUPT);
    st[0] = 20; /* states 20, elements make 16 */
    CHECK_EQ_I64(agree(st, n), PQ_SNAPPY_SIZE);
    uint8_t d[20];
    CHECK_EQ_I64(pq_snappy_uncompress(st, n, d, 19), PQ_SNAPPY_SIZE); /* header vs dst_len */
    /* a 4-byte literal length of 0xffffffff wraps to an empty literal, as in libsnappy (found
     * by fuzz_snappy: libsnappy accepts this stream) */
    static const uint8_t wrap[] = {0x00, 0xfc, 0xff, 0xff, 0xff, 0xff};
    CHECK_EQ_I64(agree(wrap, sizeof wrap), 0);
    static const uint8_t big_varint[] = {0xff, 0xff, 0xff, 0xff, 0x1f};
    size_t len, head;
    CHECK_EQ_I64(pq_snappy_length(big_varint, 5, &len, &head), PQ_SNAPPY_CORRUPT);
    CHECK_EQ_I64(pq_snappy_length(big_varint, 3, &len, &head), PQ_SNAPPY_CORRUPT);
    free(s);
}

/* Every truncation and 4000 single-byte corruptions of a valid stream: judged as libsnappy
 * judges them. */
static void truncations_and_corruptions(void)
{
    uint64_t r = 7;
    size_t n = 20000;
    uint8_t *p = malloc(n);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i % 3000 < 1500 ? rng(&r) % 4 : "parquet"[i % 7]);
    size_t clen;
    uint8_t *c = compress(p, n, &clen);
    for (size_t cut = 0; cut < clen; cut += (cut < 64 ? 1 : 37)) CHECK(agree(c, cut) != 0);
    uint8_t *m = malloc(clen);
    for (int k = 0; k < 4000; k++) {
        memcpy(m, c, clen);
        m[rng(&r) % clen] ^= (uint8_t)(1 + rng(&r) % 255);
        agree(m, clen);
    }
    free(m);
    free(c);
    free(p);
}

int main(void)
{
    RUN(integer_pages);
    RUN(every_element);
    RUN(every_tag);
    RUN(periods_after_short_elements);
    RUN(bad_streams);
    RUN(bad_offsets_in_fast_loop);
    RUN(truncations_and_corruptions);
    return CHECK_DONE("test_snappy");
}
