/* tests/unit/test_sweep.c: the field sweep. For a few small valid files, every integer of the
 * footer's thrift (fields and list elements of every struct, found by walking the compact
 * encoding), of every page header and of every column and offset index is set in turn to each of SWEEP_VALUES, re-encoded in
 * place (the file is re-laid when a page header changes length), and the mutant is scanned
 * three ways: every column, one thread; with a filter; every column on two threads. Each scan
 * must end in a clean status with a message (RINGSCAN_E* or -ENOMEM), or succeed; a whole
 * scan that succeeds returns exactly the row count its footer declares (nothing lost), and a
 * page-header mutant that succeeds returns the reference rows when the field cannot change a
 * value. A signal, an abort or a sanitizer report ends the program, which run.sh counts as a
 * failure.
 *
 * CI runs a sample (RINGSCAN_SWEEP_SAMPLE mutants, default 400, chosen by a seed printed in
 * the log; RINGSCAN_SWEEP_SEED repeats one); RINGSCAN_SWEEP_FULL=1 runs every mutant:
 *     RINGSCAN_SWEEP_FULL=1 zig-out/tests/test_sweep          (or build-address/tests/...) */
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "hardening_util.h"
#include "thrift_walk.h"

static const int64_t SWEEP_VALUES[] = {0, 1, -1, INT32_MAX, (int64_t)1 << 31, (int64_t)1 << 32,
                                       (int64_t)1 << 49, (int64_t)1 << 62, INT64_MAX, INT64_MIN};
enum { NVALUES = sizeof SWEEP_VALUES / sizeof SWEEP_VALUES[0] };

static char path[128], bad[128];

/* ---------------------------------------------------------------- files and mutants */

typedef struct base {
    const char *name;
    uint8_t *d;
    size_t len, meta_at;
    uint32_t meta_len;
    pq_file_meta meta;
    tw_spans footer;
    tw_spans pages;     /* page header integers, offsets in the file */
    tw_spans index;     /* column and offset index integers, offsets in the file */
    hu_result ref[3];
} base;

static int write_bytes(const char *p, const uint8_t *d, size_t n)
{
    FILE *fp = fopen(p, "wb");
    if (!fp) return -1;
    int rc = fwrite(d, 1, n, fp) == n ? 0 : -1;
    return fclose(fp) == 0 ? rc : -1;
}

static const char *const FILTERS[3] = {NULL, "a < 500 AND id >= 10", NULL};

/* Scans the file at bad in mode k (0: all columns, 1: filtered, 2: two threads). */
static void scan_mode(int k, int64_t *declared, hu_result *r)
{
    pqf_t *f = NULL;
    memset(r, 0, sizeof *r);
    r->err.offset = -1;
    r->status = pqf_open(&f, bad, NULL, &r->err);
    *declared = f ? f->meta.num_rows : -1;
    if (r->status) return;
    int proj[HU_NCOLS];
    int nproj = f->meta.ncolumns < HU_NCOLS ? f->meta.ncolumns : HU_NCOLS;
    for (int i = 0; i < nproj; i++) proj[i] = i;
    scan_opts o;
    scan_opts_default(&o);
    o.threads = k == 2 ? 2 : 1;
    o.io = k == 2 ? EXEC_IO_AUTO : EXEC_IO_PREAD;
    if (nproj > 0) hu_scan(f, proj, nproj, FILTERS[k], &o, r);
    pqf_close(f);
}

static bool clean_status(int rc)
{
    return rc == 0 || rc == RINGSCAN_EFORMAT || rc == RINGSCAN_EUNSUPPORTED ||
           rc == RINGSCAN_ELIMIT || rc == RINGSCAN_ECHECKSUM || rc == RINGSCAN_EPARSE ||
           rc == -ENOMEM || rc == -EINVAL;
}

typedef struct tally {
    int64_t mutants, scans, ok, errors, differ, bad;
} tally;

/* Scans the mutant three ways and checks each outcome; page_field >= 0 for a page header
 * field whose change cannot alter a value (its successful reads must equal the reference). */
static void judge(const base *b, const uint8_t *d, size_t n, const char *what, bool same_values,
                  tally *t)
{
    t->mutants++;
    if (write_bytes(bad, d, n) != 0) {
        CHECK(!"write mutant");
        return;
    }
    for (int k = 0; k < 3; k++) {
        int64_t declared;
        hu_result r;
        scan_mode(k, &declared, &r);
        t->scans++;
        bool ok = clean_status(r.status) && (r.status == 0 || r.err.msg[0]);
        if (ok && r.status == 0 && k != 1 && r.rows != declared) ok = false; /* lost rows */
        if (ok && r.status == 0 && same_values &&
            (r.rows != b->ref[k].rows || r.sum != b->ref[k].sum || r.xor_ != b->ref[k].xor_))
            ok = false;
        if (r.status == 0 && (r.rows != b->ref[k].rows || r.sum != b->ref[k].sum)) {
            t->differ++;
            if (getenv("RINGSCAN_SWEEP_VERBOSE"))
                printf("  read other rows: %s %s mode %d: %lld rows (original %lld)\n", b->name,
                       what, k, (long long)r.rows, (long long)b->ref[k].rows);
        }
        if (r.status == 0) t->ok++;
        else t->errors++;
        if (!ok) {
            t->bad++;
            fprintf(stderr, "  FAIL %s %s mode %d: status %d rows %lld (declared %lld, ref %lld): %s\n",
                    b->name, what, k, r.status, (long long)r.rows, (long long)declared,
                    (long long)b->ref[k].rows, r.err.msg);
        }
    }
}

/* Footer mutant: the integer at span sp set to v, the footer length fixed up. */
static void footer_mutant(const base *b, const tw_span *sp, int64_t v, tally *t)
{
    uint8_t enc[10];
    size_t el = tw_zigzag(v, enc);
    size_t n = b->len - sp->len + el;
    uint8_t *d = malloc(n);
    size_t at = b->meta_at + sp->at;
    memcpy(d, b->d, at);
    memcpy(d + at, enc, el);
    memcpy(d + at + el, b->d + at + sp->len, b->len - at - sp->len);
    uint32_t ml = (uint32_t)(b->meta_len - sp->len + el);
    memcpy(d + n - 8, &ml, 4);
    char what[96];
    snprintf(what, sizeof what, "footer integer at +%zu (field %d, depth %d, was %lld) = %lld",
             sp->at, sp->field, sp->depth, (long long)sp->old, (long long)v);
    judge(b, d, n, what, false, t);
    free(d);
}

/* Moves every footer offset past `at` by delta and grows the chunk that holds `at`. Page
 * indexes and bloom filters would point at stale page offsets: they are dropped. */
static void shift_meta(pq_file_meta *m, int64_t at, int64_t delta)
{
    for (int32_t rg = 0; rg < m->nrow_groups; rg++) {
        m->row_groups[rg].has_file_offset = false;
        for (int32_t c = 0; c < m->ncolumns; c++) {
            pq_chunk_meta *cm = &m->row_groups[rg].chunks[c];
            int64_t start = cm->has_dictionary_page_offset ? cm->dictionary_page_offset
                                                           : cm->data_page_offset;
            if (start <= at && at < start + cm->total_compressed_size) {
                cm->total_compressed_size += delta;
                cm->total_uncompressed_size += delta;
            }
            if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > at)
                cm->dictionary_page_offset += delta;
            if (cm->data_page_offset > at) cm->data_page_offset += delta;
            cm->has_offset_index = cm->has_column_index = cm->has_bloom_filter = false;
        }
    }
}

/* Moves every footer offset past `at` by delta and grows the page index structure that holds
 * `at` (the column and offset indexes sit after every chunk). */
static void shift_index(pq_file_meta *m, int64_t at, int64_t delta)
{
    for (int32_t rg = 0; rg < m->nrow_groups; rg++)
        for (int32_t c = 0; c < m->ncolumns; c++) {
            pq_chunk_meta *cm = &m->row_groups[rg].chunks[c];
            if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > at)
                cm->dictionary_page_offset += delta;
            if (cm->data_page_offset > at) cm->data_page_offset += delta;
            if (cm->has_bloom_filter && cm->bloom_filter_offset > at) cm->bloom_filter_offset += delta;
            if (cm->has_offset_index && cm->offset_index_offset > at) cm->offset_index_offset += delta;
            else if (cm->has_offset_index && at < cm->offset_index_offset + cm->offset_index_length)
                cm->offset_index_length += (int32_t)delta;
            if (cm->has_column_index && cm->column_index_offset > at) cm->column_index_offset += delta;
            else if (cm->has_column_index && at < cm->column_index_offset + cm->column_index_length)
                cm->column_index_length += (int32_t)delta;
        }
}

typedef void (*shift_fn)(pq_file_meta *m, int64_t at, int64_t delta);

/* Body mutant (a page header, or a page index structure): the integer at file offset sp->at
 * set to v, the file re-laid and its footer's offsets moved by shift. */
static void body_mutant(const base *b, const char *kind, shift_fn shift, const tw_span *sp,
                        int64_t v, bool same_values, tally *t)
{
    uint8_t enc[10];
    size_t el = tw_zigzag(v, enc);
    int64_t delta = (int64_t)el - (int64_t)sp->len;
    /* a copy of the row groups and chunks to shift; the rest is shared with b->meta */
    pq_file_meta m = b->meta;
    size_t ng = (size_t)m.nrow_groups, nc = (size_t)m.ncolumns;
    pq_row_group *groups = malloc(sizeof *groups * ng + 1);
    pq_chunk_meta *chunks = malloc(sizeof *chunks * ng * nc + 1);
    for (size_t rg = 0; rg < ng; rg++) {
        groups[rg] = m.row_groups[rg];
        groups[rg].chunks = memcpy(chunks + rg * nc, m.row_groups[rg].chunks, sizeof *chunks * nc);
    }
    m.row_groups = groups;
    shift(&m, (int64_t)sp->at, delta);
    pq_buf f = {0};
    int rc = pq_write_file_meta(&f, &m);
    free(groups);
    free(chunks);
    CHECK_EQ_I64(rc, 0);
    size_t body = b->meta_at + delta, n = body + f.len + 8;
    uint8_t *d = malloc(n);
    memcpy(d, b->d, sp->at);
    memcpy(d + sp->at, enc, el);
    memcpy(d + sp->at + el, b->d + sp->at + sp->len, b->meta_at - sp->at - sp->len);
    memcpy(d + body, f.data, f.len);
    uint32_t ml = (uint32_t)f.len;
    memcpy(d + body + f.len, &ml, 4);
    memcpy(d + body + f.len + 4, "PAR1", 4);
    char what[112];
    snprintf(what, sizeof what, "%s integer at %zu (field %d, depth %d, was %lld) = %lld", kind,
             sp->at, sp->field, sp->depth, (long long)sp->old, (long long)v);
    judge(b, d, n, what, same_values, t);
    pq_buf_free(&f);
    free(d);
}

/* PageHeader fields whose value no decoder reads: crc (2, checked only on request) and the
 * statistics (fields of the structs at depth 2 under data_page_header 5 / v2 8). */
static bool value_blind(const tw_span *sp)
{
    return (sp->depth == 1 && sp->field == 2) || sp->depth >= 3;
}

/* Every page header of every chunk: walks pages from each chunk's start. */
static void find_pages(base *b)
{
    for (int32_t rg = 0; rg < b->meta.nrow_groups; rg++)
        for (int32_t c = 0; c < b->meta.ncolumns; c++) {
            const pq_chunk_meta *cm = &b->meta.row_groups[rg].chunks[c];
            size_t pos = (size_t)(cm->has_dictionary_page_offset ? cm->dictionary_page_offset
                                                                 : cm->data_page_offset);
            size_t end = pos + (size_t)cm->total_compressed_size;
            while (pos < end) {
                static tw_spans one;
                one.n = 0;
                size_t hl = tw_walk(b->d + pos, end - pos, &one);
                pq_page_header h;
                if (!hl || pq_page_header_parse(b->d + pos, end - pos, &h, NULL) <= 0) break;
                for (int i = 0; i < one.n && b->pages.n < TW_MAX_SPANS; i++) {
                    one.v[i].at += pos;
                    b->pages.v[b->pages.n++] = one.v[i];
                }
                pos += hl + (size_t)h.compressed_size;
            }
        }
}

/* Every column index and offset index the footer points at. */
static void find_index(base *b)
{
    for (int32_t rg = 0; rg < b->meta.nrow_groups; rg++)
        for (int32_t c = 0; c < b->meta.ncolumns; c++) {
            const pq_chunk_meta *cm = &b->meta.row_groups[rg].chunks[c];
            int64_t off[2] = {cm->has_offset_index ? cm->offset_index_offset : -1,
                              cm->has_column_index ? cm->column_index_offset : -1};
            int32_t len[2] = {cm->offset_index_length, cm->column_index_length};
            for (int k = 0; k < 2; k++) {
                if (off[k] < 0) continue;
                int first = b->index.n;
                tw_walk(b->d + off[k], (size_t)len[k], &b->index);
                for (int i = first; i < b->index.n; i++) b->index.v[i].at += (size_t)off[k];
            }
        }
}

static int load_base(base *b, const char *name, const hu_file_opts *fo)
{
    memset(b, 0, sizeof *b);
    b->name = name;
    if (hu_write(path, fo) != 0) return -1;
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    fseek(fp, 0, SEEK_END);
    b->len = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    b->d = malloc(b->len);
    size_t got = fread(b->d, 1, b->len, fp);
    fclose(fp);
    if (got != b->len) return -1;
    memcpy(&b->meta_len, b->d + b->len - 8, 4);
    b->meta_at = b->len - 8 - b->meta_len;
    pq_err e = {.offset = -1};
    if (pq_file_meta_parse(b->d + b->meta_at, b->meta_len, NULL, &b->meta, &e)) return -1;
    if (pq_file_meta_stats(&b->meta, -1, &e)) return -1; /* mutants write it back */
    if (tw_walk(b->d + b->meta_at, b->meta_len, &b->footer) != b->meta_len) return -1;
    find_pages(b);
    find_index(b);
    if (write_bytes(bad, b->d, b->len)) return -1;
    for (int k = 0; k < 3; k++) {
        int64_t declared;
        scan_mode(k, &declared, &b->ref[k]);
        if (b->ref[k].status || (k != 1 && b->ref[k].rows != fo->rows)) return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- the sweep */

typedef struct plan {
    bool full;
    uint64_t seed;
    int64_t sample, total, chosen;
} plan;

/* Mutant i of total is run when the sweep is full or the seeded draw keeps it. */
static bool chosen(plan *p, int64_t i)
{
    if (p->full) return true;
    return hu_mix(p->seed ^ (uint64_t)i) % (uint64_t)p->total < (uint64_t)p->sample;
}

static void sweep_base(base *b, plan *p, int64_t *index, tally *t)
{
    for (int i = 0; i < b->footer.n; i++)
        for (int v = 0; v < NVALUES; v++)
            if (chosen(p, (*index)++)) footer_mutant(b, &b->footer.v[i], SWEEP_VALUES[v], t);
    for (int i = 0; i < b->pages.n; i++)
        for (int v = 0; v < NVALUES; v++)
            if (chosen(p, (*index)++))
                body_mutant(b, "page header", shift_meta, &b->pages.v[i], SWEEP_VALUES[v],
                            value_blind(&b->pages.v[i]), t);
    for (int i = 0; i < b->index.n; i++)
        for (int v = 0; v < NVALUES; v++)
            if (chosen(p, (*index)++))
                body_mutant(b, "page index", shift_index, &b->index.v[i], SWEEP_VALUES[v], false, t);
}

enum { NBASES = 3 };

static void test_field_sweep(void)
{
    static base bases[NBASES];
    const hu_file_opts fo[NBASES] = {
        {.rows = 400, .row_group_rows = 200, .page_rows = 100, .codec = PQ_CODEC_SNAPPY,
         .page_index = true, .dictionary = true, .crc = true},
        {.rows = 300, .row_group_rows = 300, .page_rows = 150, .codec = PQ_CODEC_UNCOMPRESSED},
        {.rows = 256, .row_group_rows = 128, .page_rows = 128, .codec = PQ_CODEC_ZSTD,
         .dictionary = true, .bloom = true},
    };
    const char *names[NBASES] = {"snappy+dict+index", "plain", "zstd+dict+bloom"};
    plan p = {.full = getenv("RINGSCAN_SWEEP_FULL") != NULL, .sample = 400};
    const char *s = getenv("RINGSCAN_SWEEP_SAMPLE"), *sd = getenv("RINGSCAN_SWEEP_SEED");
    if (s) p.sample = atoll(s);
    p.seed = sd ? strtoull(sd, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    for (int i = 0; i < NBASES; i++) {
        int rc = load_base(&bases[i], names[i], &fo[i]);
        CHECK_EQ_I64(rc, 0);
        if (rc) return;
        CHECK(bases[i].footer.n > 50 && bases[i].pages.n > 20);
        p.total += (int64_t)(bases[i].footer.n + bases[i].pages.n + bases[i].index.n) * NVALUES;
    }
    printf("  sweep: %lld mutants in all; %s (seed %llu: RINGSCAN_SWEEP_SEED=%llu repeats it)\n",
           (long long)p.total, p.full ? "every one" : "a sample", (unsigned long long)p.seed,
           (unsigned long long)p.seed);
    tally t = {0};
    int64_t index = 0;
    for (int i = 0; i < NBASES; i++) sweep_base(&bases[i], &p, &index, &t);
    printf("  sweep: %lld mutants, %lld scans: %lld read, %lld clean errors, %lld read other rows "
           "than the original, %lld bad\n", (long long)t.mutants, (long long)t.scans,
           (long long)t.ok, (long long)t.errors, (long long)t.differ, (long long)t.bad);
    CHECK_EQ_I64(t.bad, 0);
    CHECK(t.mutants > 0 && t.errors > 0);
    CHECK(bases[0].index.n > 20); /* the first file has a page index: its integers are swept */
    for (int i = 0; i < NBASES; i++) {
        pq_file_meta_free(&bases[i].meta);
        free(bases[i].d);
    }
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/ringscan_sweep_%d.parquet", (int)getpid());
    snprintf(bad, sizeof bad, "/tmp/ringscan_sweep_%d_bad.parquet", (int)getpid());
    RUN(test_field_sweep);
    unlink(path);
    unlink(bad);
    return CHECK_DONE("test_sweep");
}
