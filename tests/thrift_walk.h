/* tests/thrift_walk.h: finds every integer in a thrift compact struct (fields and list
 * elements, any depth) and re-encodes one in place, so footer and page header mutants keep
 * their framing. Used by the field sweep (tests/unit/test_sweep.c) and fuzz_scan's
 * structure-aware mutator. Header-only (static functions). */
#ifndef RINGSCAN_TESTS_THRIFT_WALK_H
#define RINGSCAN_TESTS_THRIFT_WALK_H
#include <string.h>

#include "format/thrift.h"

enum { TW_MAX_SPANS = 4096 };

/* An integer's encoding inside a buffer: [at, at + len), and where it sits. */
typedef struct tw_span {
    size_t at, len;
    int16_t field; /* field id, or -1 for a list element */
    int depth;
    int64_t old;
} tw_span;

typedef struct tw_spans {
    tw_span v[TW_MAX_SPANS];
    int n;
} tw_spans;

static void tw_value(pq_tr *r, uint8_t t, int16_t id, int depth, tw_spans *out);

static void tw_struct(pq_tr *r, int depth, tw_spans *out)
{
    int16_t id;
    uint8_t t;
    if (pq_tr_struct_begin(r)) return;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) tw_value(r, t, id, depth + 1, out);
    pq_tr_struct_end(r);
}

static void tw_value(pq_tr *r, uint8_t t, int16_t id, int depth, tw_spans *out)
{
    if (t == PQ_T_I16 || t == PQ_T_I32 || t == PQ_T_I64) {
        size_t at = pq_tr_pos(r);
        int64_t v;
        if (pq_tr_zigzag(r, &v)) return;
        if (out->n < TW_MAX_SPANS)
            out->v[out->n++] = (tw_span){.at = at, .len = pq_tr_pos(r) - at, .field = id,
                                         .depth = depth, .old = v};
    } else if (t == PQ_T_STRUCT) {
        tw_struct(r, depth, out);
    } else if (t == PQ_T_LIST || t == PQ_T_SET) {
        uint8_t et;
        uint32_t n;
        if (pq_tr_list_begin(r, &et, &n, 0)) return;
        for (uint32_t i = 0; i < n && !r->status; i++) tw_value(r, et, -1, depth + 1, out);
        pq_tr_list_end(r);
    } else {
        pq_tr_skip(r, t);
    }
}

/* Appends the integers of the thrift struct at buf to out; returns the struct's encoded
 * length, 0 when it does not parse (the spans found before the error stay). */
__attribute__((unused)) static size_t tw_walk(const uint8_t *buf, size_t len, tw_spans *out)
{
    pq_tr r;
    pq_tr_init(&r, buf, len, -1, 0, NULL);
    tw_struct(&r, 0, out);
    return r.status ? 0 : pq_tr_pos(&r);
}

/* The zigzag varint of v into out (10 bytes at most); its length. */
__attribute__((unused)) static size_t tw_zigzag(int64_t v, uint8_t out[10])
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    do {
        out[n++] = (uint8_t)((u & 0x7f) | (u >= 0x80 ? 0x80 : 0));
        u >>= 7;
    } while (u);
    return n;
}

/* Writes v over the varint at sp inside buf when its encoding fits sp->len bytes (a shorter
 * one is padded with continuation bytes, which the reader accepts); false when it does not. */
__attribute__((unused)) static bool tw_overwrite(uint8_t *buf, const tw_span *sp, int64_t v)
{
    uint8_t enc[10];
    size_t n = tw_zigzag(v, enc);
    if (n > sp->len) return false;
    for (size_t i = n; i < sp->len; i++) enc[i - 1] |= 0x80, enc[i] = 0;
    memcpy(buf + sp->at, enc, sp->len);
    return true;
}

#endif
