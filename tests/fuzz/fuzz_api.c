/* tests/fuzz/fuzz_api.c: libFuzzer target for the public API over a crafted file: what
 * fuzz_scan (the scan engine's own entry) does not reach. The input is written to a memfd and
 * opened by path (/proc/self/fd/N) through ringscan_open_with (copy or mmap read mode), then,
 * with options drawn from a hash of the input:
 *   - a scan through the Arrow C stream (ringscan_scan_stream): a projection of top-level
 *     fields, dotted struct paths and nested leaf paths, dictionary_columns over projected
 *     string columns, an ORDER BY ... LIMIT on a flat column, a filter, INT96 raw or not;
 *     every batch checked against the schema (children, buffers, lengths, offsets inside
 *     their child) and released; sometimes the stream is released mid-scan;
 *   - ringscan_count with the same filter;
 *   - a dataset of the file named twice (union_by_name or not) scanned and counted the same
 *     way (ds_* code over a crafted footer: merged schemas, casts, the dataset's Top-K).
 * Every error must be a status with a message; sanitizers catch the rest; a broken Arrow
 * invariant aborts. The structure-aware mutator is fuzz_scan's (footer and page header
 * integers). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringscan.h"

/* fuzz_scan's hash and mutator (its entry renamed away); test_badinput, which replays the
 * regressions, has included fuzz_scan.c already */
#ifndef FUZZ_API_NO_SCAN
#define LLVMFuzzerTestOneInput fuzz_scan_entry_unused
#include "fuzz/fuzz_scan.c"
#undef LLVMFuzzerTestOneInput
#endif

enum { FA_PROJ_MAX = 8, FA_BATCHES_MAX = 2000, FA_DEPTH_MAX = 64 };

static uint64_t fa_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

/* An error status must come with a message. */
static void fa_check_err(int rc, const ringscan_error *e)
{
    if (rc > 0 && rc != 1) abort();
    if (rc < 0 && rc != -ENOMEM && e->message[0] == 0) abort();
}

/* a's structure against schema s: child counts, buffers the format needs, offsets. */
static void fa_check_array(const struct ArrowSchema *s, const struct ArrowArray *a, int depth)
{
    if (depth > FA_DEPTH_MAX || !a->release || a->length < 0 || a->offset < 0) abort();
    if (a->null_count > a->length) abort();
    if (a->n_children != s->n_children) abort();
    if (!!a->dictionary != !!s->dictionary) abort();
    const char *f = s->format;
    int64_t n = a->length + a->offset;
    if (a->null_count > 0 && (a->n_buffers < 1 || !a->buffers[0]) && strcmp(f, "n") != 0) abort();
    bool small = strcmp(f, "u") == 0 || strcmp(f, "z") == 0, big = strcmp(f, "U") == 0 || strcmp(f, "Z") == 0;
    if ((small || big) && n > 0) {
        if (a->n_buffers != 3 || !a->buffers[1]) abort();
        int64_t prev = -1;
        for (int64_t i = 0; i <= n; i++) {
            int64_t o = small ? ((const int32_t *)a->buffers[1])[i] : ((const int64_t *)a->buffers[1])[i];
            if (o < 0 || o < prev) abort();
            prev = o;
        }
        if (prev > 0 && !a->buffers[2]) abort();
        if (prev > 0) { /* every byte is readable (ASan) */
            volatile uint8_t x = 0;
            const uint8_t *d = a->buffers[2];
            for (int64_t i = 0; i < prev; i += 4096) x ^= d[i];
            x ^= d[prev - 1];
            (void)x;
        }
    }
    bool list = strcmp(f, "+l") == 0 || strcmp(f, "+m") == 0, blist = strcmp(f, "+L") == 0;
    if ((list || blist) && n > 0) {
        if (a->n_buffers != 2 || !a->buffers[1] || a->n_children != 1) abort();
        int64_t prev = -1;
        for (int64_t i = 0; i <= n; i++) {
            int64_t o = list ? ((const int32_t *)a->buffers[1])[i] : ((const int64_t *)a->buffers[1])[i];
            if (o < 0 || o < prev) abort();
            prev = o;
        }
        if (prev > a->children[0]->length + a->children[0]->offset) abort();
    }
    if (strcmp(f, "+s") == 0)
        for (int64_t c = 0; c < a->n_children; c++)
            if (a->children[c]->length + a->children[c]->offset < n) abort();
    if (strncmp(f, "+w:", 3) == 0 && a->n_children == 1) {
        long w = strtol(f + 3, NULL, 10);
        if (w > 0 && a->children[0]->length + a->children[0]->offset < n * w) abort();
    }
    if (f[0] == 'w' && f[1] == ':' && n > 0) {
        long w = strtol(f + 2, NULL, 10);
        if (w > 0 && (a->n_buffers != 2 || !a->buffers[1])) abort();
        if (w > 0) {
            volatile uint8_t x = ((const uint8_t *)a->buffers[1])[n * w - 1];
            (void)x;
        }
    }
    for (int64_t c = 0; c < a->n_children; c++) fa_check_array(s->children[c], a->children[c], depth + 1);
    if (a->dictionary) fa_check_array(s->dictionary, a->dictionary, depth + 1);
}

/* Drains a stream, checking each batch; stops (releases the stream) early when told. */
static void fa_drain(ringscan_scan *sc, uint64_t h)
{
    struct ArrowArrayStream st;
    if (ringscan_scan_stream(sc, &st) != 0) abort();
    struct ArrowSchema schema;
    if (st.get_schema(&st, &schema) != 0) {
        if (!st.get_last_error(&st)) abort();
        st.release(&st);
        return;
    }
    int stop = (h & 3) == 0 ? (int)((h >> 2) % 4) : FA_BATCHES_MAX;
    for (int i = 0; i < stop; i++) {
        struct ArrowArray b;
        int rc = st.get_next(&st, &b);
        if (rc != 0) {
            const char *m = st.get_last_error(&st);
            if (!m || !m[0]) abort();
            break;
        }
        if (!b.release) break;
        fa_check_array(&schema, &b, 0);
        b.release(&b);
    }
    schema.release(&schema);
    st.release(&st);
}

/* A comparison on flat column c (its physical type's kind of literal). */
static void fa_conjunct(char *out, size_t cap, const ringscan_column_info *c, uint64_t h)
{
    static const char *ops[] = {"=", "<>", "<", "<=", ">", ">="};
    const char *op = ops[(h >> 3) % 6];
    long v = (long)((h >> 8) % 2000) - 500;
    if ((h >> 20) % 4 == 0) {
        snprintf(out, cap, "\"%s\" IS %sNULL", c->name, (h >> 24) & 1 ? "NOT " : "");
        return;
    }
    switch (c->physical) {
    case RINGSCAN_BOOLEAN: snprintf(out, cap, "\"%s\" = %s", c->name, v & 1 ? "TRUE" : "FALSE"); break;
    case RINGSCAN_BYTE_ARRAY:
    case RINGSCAN_FIXED_LEN_BYTE_ARRAY:
        if ((h >> 30) & 1) snprintf(out, cap, "\"%s\" LIKE '%c%%'", c->name, 'a' + (int)(v & 15));
        else snprintf(out, cap, "\"%s\" %s '%ld'", c->name, op, v);
        break;
    default: snprintf(out, cap, "\"%s\" %s %ld", c->name, op, v); break;
    }
}

typedef struct fa_pick {
    const char *cols[FA_PROJ_MAX];
    int ncols;
    const char *dict[FA_PROJ_MAX];
    int ndict;
    char filter[600];
    char order[300];
} fa_pick;

/* Options for f from h: projection (fields and paths), dictionary columns, filter, ORDER BY. */
static void fa_pick_options(ringscan_file *f, uint64_t h, fa_pick *p, ringscan_options *o)
{
    memset(p, 0, sizeof *p);
    int nf = ringscan_file_fields(f), ncol = ringscan_file_columns(f);
    int flat[64], nflat = 0;
    for (int i = 0; i < nf && nflat < 64; i++) {
        ringscan_field_info fi;
        if (ringscan_file_field(f, i, &fi) != 0) abort();
        if (fi.depth == 1 && fi.kind == RINGSCAN_FIELD_PRIMITIVE && !fi.nested) flat[nflat++] = fi.column;
        uint64_t r = fa_mix(h + (uint64_t)i);
        if (p->ncols < FA_PROJ_MAX && (r & 3) == 0 && (fi.depth == 1 || (r & 4)))
            p->cols[p->ncols++] = fi.path;
    }
    if (p->ncols > 0 && (h & 8)) o->columns = p->cols, o->ncolumns = p->ncols;
    for (int i = 0; o->columns && i < nflat && p->ndict < FA_PROJ_MAX; i++) {
        ringscan_column_info ci;
        if (ringscan_file_column(f, flat[i], &ci) != 0) abort();
        bool named = false;
        for (int k = 0; k < p->ncols; k++) named |= strcmp(p->cols[k], ci.name) == 0;
        if (named && ci.physical == RINGSCAN_BYTE_ARRAY && (fa_mix(h ^ (uint64_t)i) & 1))
            p->dict[p->ndict++] = ci.name;
    }
    if (p->ndict) o->dictionary_columns = p->dict, o->ndictionary_columns = p->ndict;
    if (nflat > 0 && (h >> 40) % 3 == 0) {
        ringscan_column_info ci;
        if (ringscan_file_column(f, flat[(h >> 42) % (uint64_t)nflat], &ci) == 0) {
            fa_conjunct(p->filter, sizeof p->filter, &ci, fa_mix(h ^ 77));
            o->filter = p->filter;
        }
    }
    if (nflat > 0 && (h >> 45) % 3 == 0) {
        ringscan_column_info ci;
        if (ringscan_file_column(f, flat[(h >> 47) % (uint64_t)nflat], &ci) == 0) {
            snprintf(p->order, sizeof p->order, "\"%s\" %s", ci.name, (h >> 50) & 1 ? "DESC" : "ASC");
            o->order_by = p->order;
            o->limit = (int64_t)((h >> 51) % 40);
        }
    }
    (void)ncol;
}

static void fa_base_options(ringscan_options *o, uint64_t h)
{
    ringscan_options_init(o);
    o->threads = (h >> 56) % 4 == 0 ? 2 : 1;
    o->policy = (ringscan_policy)((h >> 58) % 3);
    o->ordered = (h >> 60) & 1;
    o->int96_raw = (h >> 61) & 1;
    o->read_mode = (h >> 62) & 1 ? RINGSCAN_READ_MMAP : RINGSCAN_READ_COPY;
    o->io = (h >> 63) & 1 ? RINGSCAN_IO_PREAD : RINGSCAN_IO_AUTO;
    if ((h >> 54) & 1) o->limit = (int64_t)((h >> 20) % 100);
}

/* A scan's start (status rc, e) checked, then the scan drained and freed. */
static void fa_started(int rc, ringscan_scan *sc, const ringscan_error *e, uint64_t h)
{
    fa_check_err(rc, e);
    if (rc) return;
    fa_drain(sc, h);
    ringscan_scan_free(sc);
}

static void fa_one_file(const char *path, uint64_t h)
{
    ringscan_options o;
    fa_base_options(&o, h);
    ringscan_error e = {0};
    ringscan_file *f = NULL;
    int rc = ringscan_open_with(path, &o, &f, &e);
    fa_check_err(rc, &e);
    if (rc) return;
    fa_pick p;
    fa_pick_options(f, fa_mix(h), &p, &o);
    ringscan_scan *sc = NULL;
    rc = ringscan_scan_start(f, &o, &sc, &e);
    fa_started(rc, sc, &e, fa_mix(h ^ 5));
    ringscan_count_info ci;
    fa_check_err(ringscan_count(f, &o, &ci, &e), &e);
    ringscan_close(f);
}

static void fa_dataset(const char *path, uint64_t h)
{
    ringscan_options o;
    fa_base_options(&o, h);
    o.union_by_name = (h >> 3) & 1;
    o.hive_partitioning = -1;
    const char *paths[2] = {path, path};
    ringscan_dataset *d = NULL;
    ringscan_error e = {0};
    int rc = ringscan_dataset_open(paths, 2, &o, &d, &e);
    fa_check_err(rc, &e);
    if (rc) return;
    /* the dataset's options from the file's own fields (a file that does not open: none) */
    ringscan_file *f = NULL;
    fa_pick p;
    memset(&p, 0, sizeof p);
    ringscan_options fo = o;
    if (ringscan_open_with(path, &fo, &f, &e) == 0) fa_pick_options(f, fa_mix(h * 3), &p, &o);
    ringscan_scan *sc = NULL;
    rc = ringscan_dataset_scan_start(d, &o, &sc, &e);
    fa_started(rc, sc, &e, fa_mix(h ^ 9));
    ringscan_count_info ci;
    fa_check_err(ringscan_dataset_count(d, &o, &ci, &e), &e);
    ringscan_close(f); /* after the scan: the options borrowed its names */
    ringscan_dataset_close(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    int64_t live = ringscan_live_objects();
    char path[64];
    int fd = input_file(d, n, "fuzz_api", path);
    if (fd < 0) return 0;
    uint64_t h = hash(d, n);
    fa_one_file(path, h);
    if ((h >> 1) % 3 == 0) fa_dataset(path, fa_mix(h));
    close(fd);
    if (ringscan_live_objects() != live) abort();
    return 0;
}
