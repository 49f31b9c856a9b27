/* tests/fuzz/fuzz_scan.c: libFuzzer target for a whole-file scan: the input is written to a
 * memfd, opened by path (/proc/self/fd/N) like any file, and scanned by the scan engine
 * (plan, pruning, split tasks, io/ futures, column decoding) with a filter, projection,
 * policy and io backend derived from a hash of the input. Then the synchronous column reader
 * (pqf_read_column) reads the first row groups. Every error must be a status with a message;
 * sanitizers catch the rest. Threads: 1 core (2 when the hash says so) so runs stay fast.
 *
 * A structure-aware mutator (LLVMFuzzerCustomMutator) re-encodes one integer of the footer's
 * thrift or of a page header that the footer points at (tests/thrift_walk.h), so that
 * mutations reach deep fields (row counts, offsets, sizes, types, page counts) without breaking
 * the footer's framing; half of the mutations are libFuzzer's own byte-level ones. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "filter/expr.h"
#include "thrift_walk.h"
#include "scan/scan.h"

static uint64_t hash(const uint8_t *d, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

/* A conjunct on column c of the kinds the parser accepts for its type. */
static void conjunct(char *out, size_t cap, const pq_column_desc *c, uint64_t h)
{
    static const char *ops[] = {"=", "<>", "<", "<=", ">", ">="};
    const char *op = ops[(h >> 3) % 6];
    long v = (long)((h >> 8) % 2000) - 500;
    switch ((h >> 20) % 4) {
    case 0: snprintf(out, cap, "\"%s\" IS %sNULL", c->name, (h >> 24) & 1 ? "NOT " : ""); return;
    default: break;
    }
    switch (c->physical) {
    case PQ_BOOLEAN: snprintf(out, cap, "\"%s\" = %s", c->name, v & 1 ? "TRUE" : "FALSE"); break;
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if ((h >> 30) & 1) snprintf(out, cap, "\"%s\" LIKE '%c%%'", c->name, 'a' + (int)(v & 15));
        else snprintf(out, cap, "\"%s\" %s '%ld'", c->name, op, v);
        break;
    default:
        if ((h >> 30) & 1) snprintf(out, cap, "\"%s\" BETWEEN %ld AND %ld", c->name, v, v + 100);
        else if ((h >> 31) & 1) snprintf(out, cap, "\"%s\" IN (%ld, %ld, %ld)", c->name, v, v + 1, v * 2);
        else snprintf(out, cap, "\"%s\" %s %ld", c->name, op, v);
        break;
    }
}

/* Parses up to two conjuncts; falls back to fewer when one does not type-check. */
static flt_expr *make_filter(const pq_file_meta *m, uint64_t h)
{
    if (m->ncolumns == 0 || (h & 7) == 0) return NULL;
    char a[512], b[512], text[1100];
    uint64_t h2 = h * 0x9e3779b97f4a7c15ull + 1;
    conjunct(a, sizeof a, &m->columns[(h >> 33) % (uint64_t)m->ncolumns], h);
    conjunct(b, sizeof b, &m->columns[(h2 >> 33) % (uint64_t)m->ncolumns], h2);
    const char *tries[3] = {text, a, b};
    snprintf(text, sizeof text, "%s AND %s", a, b);
    for (int i = 0; i < 3; i++) {
        flt_expr *ex = NULL;
        pq_err e = {.offset = -1};
        if (flt_parse(tries[i], m->columns, m->ncolumns, &ex, &e) == 0) return ex;
    }
    return NULL;
}

static void scan_once(pqf_t *f, uint64_t h)
{
    const pq_file_meta *m = &f->meta;
    if (m->ncolumns <= 0 || m->nrow_groups <= 0) return;
    int proj[8], nproj = 0;
    for (int i = 0; i < m->ncolumns && nproj < 8; i++)
        if (((h >> (i % 16)) & 1) || i == 0) proj[nproj++] = i;
    scan_opts o;
    scan_opts_default(&o);
    o.threads = (h >> 50) % 4 == 0 ? 2 : 1;
    o.policy = (scan_policy)((h >> 52) % 3);
    o.io = (h >> 54) & 1 ? EXEC_IO_PREAD : EXEC_IO_AUTO;
    o.ordered = (h >> 55) & 1;
    o.use_page_index = (h >> 56) & 1;
    o.limit = (h >> 57) % 4 == 0 ? (int64_t)((h >> 59) % 50) : -1;
    o.col_limits.max_page_bytes = 16 << 20;
    o.col_limits.max_page_values = 1 << 20;
    o.col_limits.max_dict_values = 1 << 20;
    o.col_limits.max_decompressed_bytes = 256 << 20;
    o.io_opts.budget_bytes = 64 << 20;
    scan_t *s = NULL;
    pq_err e = {.offset = -1};
    int rc = scan_start(f, proj, nproj, make_filter(m, h), &o, &s, &e);
    if (rc) {
        if (rc > 0 || (e.msg[0] == 0 && rc != -ENOMEM)) abort();
        return;
    }
    scan_batch b;
    for (int i = 0; i < 100000; i++) {
        pq_err e2 = {.offset = -1};
        rc = scan_next(s, &b, &e2);
        if (rc <= 0) {
            if (rc < 0 && e2.msg[0] == 0 && rc != -ENOMEM) abort();
            break;
        }
        if (b.ncols != nproj) abort();
        for (int c = 0; c < b.ncols; c++)
            if (b.cols[c].length != b.rows) abort();
        scan_batch_free(&b);
    }
    scan_free(s);
}

static void read_columns(pqf_t *f)
{
    pq_col_limits lim;
    pq_col_limits_default(&lim);
    lim.max_page_bytes = 16 << 20;
    lim.max_page_values = 1 << 20;
    lim.max_decompressed_bytes = 256 << 20;
    for (int rg = 0; rg < f->meta.nrow_groups && rg < 2; rg++)
        for (int c = 0; c < f->meta.ncolumns && c < 8; c++) {
            pq_vec v;
            const pq_column_desc *d = &f->meta.columns[c];
            pq_vec_init(&v, d->physical, d->type_length);
            pq_err e = {.offset = -1};
            int rc = pqf_read_column(f, rg, c, &lim, &v, &e);
            if (rc > 0 || (rc < 0 && e.msg[0] == 0 && rc != -ENOMEM)) abort();
            pq_vec_free(&v);
        }
}

/* d[0 .. n) as a file (a memfd) opened by path (/proc/self/fd/N, into path): its fd, or -1.
 * (fuzz_api.c's input too.) */
static int input_file(const uint8_t *d, size_t n, const char *name, char path[64])
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, d + off, n - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    char path[64];
    int fd = input_file(d, n, "fuzz_scan", path);
    if (fd < 0) return 0;
    pq_meta_limits ml;
    pq_meta_limits_default(&ml);
    ml.max_columns = 1000;
    ml.max_row_groups = 1000;
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    int rc = pqf_open(&f, path, &ml, &e);
    if (rc == 0) {
        uint64_t h = hash(d, n);
        scan_once(f, h);
        read_columns(f);
        pqf_close(f);
    } else if (rc > 0 || (e.msg[0] == 0 && rc != -ENOMEM)) {
        abort();
    }
    close(fd);
    return 0;
}

#ifndef FUZZ_NO_MUTATOR /* test_badinput includes this file to replay regressions */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static const int64_t EDGES[] = {0, 1, -1, 2, 7, 8, 64, 255, 4096, INT32_MAX, INT32_MIN,
                                (int64_t)1 << 31, (int64_t)1 << 32, (int64_t)1 << 49,
                                (int64_t)1 << 62, INT64_MAX, INT64_MIN};

/* A new value for an integer that was `old`: an edge value, a near neighbour or a random one. */
static int64_t pick_value(int64_t old, uint64_t r)
{
    switch (r % 4) {
    case 0: return EDGES[(r >> 8) % (sizeof EDGES / sizeof EDGES[0])];
    case 1: return (int64_t)((uint64_t)old + (uint64_t)((int64_t)((r >> 8) % 17) - 8));
    case 2: return (int64_t)((uint64_t)old * 2 + (r >> 62));
    default: return (int64_t)((r >> 8) & ((UINT64_C(1) << 41) - 1)) - ((int64_t)1 << 40);
    }
}

/* The integers of the footer (offsets into d) and of the first page header of each column
 * chunk the footer names; false when there is no footer to walk. */
static bool find_spans(const uint8_t *d, size_t n, tw_spans *out, size_t *footer_at)
{
    out->n = 0;
    if (n < 12 || memcmp(d + n - 4, "PAR1", 4) != 0) return false;
    uint32_t ml;
    memcpy(&ml, d + n - 8, 4);
    if ((uint64_t)ml + 8 > n) return false;
    size_t at = n - 8 - ml;
    *footer_at = at;
    tw_walk(d + at, ml, out);
    int nfooter = out->n;
    for (int i = 0; i < nfooter; i++) out->v[i].at += at;
    pq_file_meta m;
    if (pq_file_meta_parse(d + at, ml, NULL, &m, NULL) != 0) return out->n > 0;
    for (int32_t rg = 0; rg < m.nrow_groups && out->n < TW_MAX_SPANS / 2; rg++)
        for (int32_t c = 0; c < m.ncolumns && out->n < TW_MAX_SPANS / 2; c++) {
            int64_t off = m.row_groups[rg].chunks[c].data_page_offset;
            if (off < 4 || (uint64_t)off >= at) continue;
            int first = out->n;
            tw_walk(d + off, at - (size_t)off, out);
            for (int i = first; i < out->n; i++) out->v[i].at += (size_t)off;
        }
    pq_file_meta_free(&m);
    return out->n > 0;
}

/* Replaces the footer integer at sp by v's encoding, moving the rest of the footer and
 * fixing its length; the new size, or 0 when it would pass max. */
static size_t splice_footer(uint8_t *d, size_t n, size_t max, const tw_span *sp, int64_t v)
{
    uint8_t enc[10];
    size_t el = tw_zigzag(v, enc);
    if (n - sp->len + el > max) return 0;
    memmove(d + sp->at + el, d + sp->at + sp->len, n - sp->at - sp->len);
    memcpy(d + sp->at, enc, el);
    size_t m = n - sp->len + el;
    uint32_t ml;
    memcpy(&ml, d + m - 8, 4);
    ml = (uint32_t)(ml - sp->len + el);
    memcpy(d + m - 8, &ml, 4);
    return m;
}

size_t LLVMFuzzerCustomMutator(uint8_t *d, size_t n, size_t max, unsigned seed)
{
    static tw_spans spans;
    size_t footer_at = 0;
    uint64_t r = (uint64_t)seed * 0x9e3779b97f4a7c15ull;
    r ^= r >> 31;
    if ((r & 1) || !find_spans(d, n, &spans, &footer_at)) return LLVMFuzzerMutate(d, n, max);
    for (int tries = 0; tries < 4; tries++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        const tw_span *sp = &spans.v[(r >> 33) % (uint64_t)spans.n];
        int64_t v = pick_value(sp->old, r >> 7);
        size_t m = sp->at >= footer_at ? splice_footer(d, n, max, sp, v) : 0;
        if (m) return m;
        if (tw_overwrite(d, sp, v)) return n;
    }
    return LLVMFuzzerMutate(d, n, max);
}
#endif
