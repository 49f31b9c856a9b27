/* tests of bad input: every case asserts which status comes back (and a message), never a
 * crash. Whole files (generated with format/writer.h, then damaged): truncation at every byte
 * of the footer, wrong magic, a footer length past the file, chunk ranges past the end,
 * seeded byte flips in pages and metadata (a flipped file that reads must give the original
 * rows when the test knows no row depends on the flipped bits - statistics min/max, page crcs -
 * and otherwise its footer's row count and schema, alike under two policies and thread
 * counts). Crafted pages through pq_colr_page: negative counts, bit widths above 32,
 * dictionary indices out of range, nulls in a required column, too few levels, a delta header
 * asking for gigabytes. Then every fuzz regression input under
 * tests/fuzz/regressions/<target>/ is replayed through its target's entry point (the fuzz
 * sources are included below with renamed entry points), so a crash found once stays fixed. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "format/encoding.h"
#include "hardening_util.h"
#include "thrift_walk.h"

static char path[128], bad[128];
static uint8_t *orig;
static size_t orig_len;

static int write_bytes(const char *p, const uint8_t *d, size_t n)
{
    FILE *fp = fopen(p, "wb");
    if (!fp) return -1;
    int rc = fwrite(d, 1, n, fp) == n ? 0 : -1;
    return fclose(fp) == 0 ? rc : -1;
}

static uint8_t *read_all(const char *p, size_t *n)
{
    FILE *fp = fopen(p, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)len + 1);
    *n = d ? fread(d, 1, (size_t)len, fp) : 0;
    fclose(fp);
    return d;
}

/* Opens bytes d as a file, scans every column (filter may be NULL); status of the first
 * failure (open or scan) with its error. */
static int open_and_scan(const uint8_t *d, size_t n, const char *filter, pq_err *e)
{
    memset(e, 0, sizeof *e);
    e->offset = -1;
    if (write_bytes(bad, d, n) != 0) return -EIO;
    pqf_t *f = NULL;
    int rc = pqf_open(&f, bad, NULL, e);
    if (rc) return rc;
    int proj[HU_NCOLS];
    int nproj = f->meta.ncolumns < HU_NCOLS ? f->meta.ncolumns : HU_NCOLS;
    for (int i = 0; i < nproj; i++) proj[i] = i;
    scan_opts o;
    scan_opts_default(&o);
    o.threads = 1;
    o.io = EXEC_IO_PREAD;
    hu_result r;
    if (nproj > 0) hu_scan(f, proj, nproj, filter, &o, &r);
    else r.status = 0;
    if (r.status) *e = r.err;
    pqf_close(f);
    return r.status;
}

static uint32_t footer_len(void)
{
    uint32_t m;
    memcpy(&m, orig + orig_len - 8, 4);
    return m;
}

/* ------------------------------------------------------------------------ whole files */

static void test_truncated_footer_every_byte(void)
{
    uint32_t m = footer_len();
    size_t from = orig_len - m - 8 - 16;
    int bad_cuts = 0;
    for (size_t cut = from; cut < orig_len; cut++) {
        pq_err e;
        int rc = open_and_scan(orig, cut, NULL, &e);
        if (rc != RINGSCAN_EFORMAT || e.msg[0] == 0) {
            if (bad_cuts++ < 5)
                fprintf(stderr, "  cut at %zu: status %d (%s)\n", cut, rc, e.msg);
        }
    }
    CHECK_EQ_I64(bad_cuts, 0);
}

static void test_wrong_magic(void)
{
    uint8_t *d = malloc(orig_len);
    pq_err e;
    memcpy(d, orig, orig_len);
    memcpy(d + orig_len - 4, "PARX", 4);
    CHECK_EQ_I64(open_and_scan(d, orig_len, NULL, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "magic") != NULL || strstr(e.msg, "PAR1") != NULL);
    memcpy(d + orig_len - 4, "PARE", 4);
    CHECK_EQ_I64(open_and_scan(d, orig_len, NULL, &e), RINGSCAN_EUNSUPPORTED);
    CHECK(strstr(e.msg, "encrypted") != NULL);
    memcpy(d, orig, orig_len);
    memcpy(d, "XAR1", 4);
    CHECK_EQ_I64(open_and_scan(d, orig_len, NULL, &e), RINGSCAN_EFORMAT);
    free(d);
}

static void test_footer_length_past_end(void)
{
    uint8_t *d = malloc(orig_len);
    memcpy(d, orig, orig_len);
    uint32_t huge = (uint32_t)orig_len + 100;
    memcpy(d + orig_len - 8, &huge, 4);
    pq_err e;
    CHECK_EQ_I64(open_and_scan(d, orig_len, NULL, &e), RINGSCAN_EFORMAT);
    CHECK(e.msg[0] != 0);
    huge = 0xfffffff0u; /* also above max_meta_bytes: past the file is the error, not the limit */
    memcpy(d + orig_len - 8, &huge, 4);
    CHECK_EQ_I64(open_and_scan(d, orig_len, NULL, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "exceeds the file") != NULL);
    free(d);
}

/* The original file's pages followed by the footer meta (length and magic appended); *n its
 * size. The caller frees it. */
static uint8_t *with_footer(const pq_buf *meta, size_t *n)
{
    size_t body = orig_len - 8 - footer_len();
    *n = body + meta->len + 8;
    uint8_t *d = malloc(*n);
    memcpy(d, orig, body);
    memcpy(d + body, meta->data, meta->len);
    uint32_t len = (uint32_t)meta->len;
    memcpy(d + body + meta->len, &len, 4);
    memcpy(d + body + meta->len + 4, "PAR1", 4);
    return d;
}

/* Rewrites the footer with chunk 0 of row group 0 pointing past the end of the file. */
static void test_chunk_past_end(void)
{
    uint32_t m = footer_len();
    pq_file_meta meta;
    pq_err e = {.offset = -1};
    CHECK_EQ_I64(pq_file_meta_parse(orig + orig_len - 8 - m, m, NULL, &meta, &e), 0);
    CHECK_EQ_I64(pq_file_meta_stats(&meta, -1, &e), 0); /* written back below */
    for (int variant = 0; variant < 3; variant++) {
        pq_chunk_meta *c = &meta.row_groups[1].chunks[1];
        pq_chunk_meta save = *c;
        if (variant == 0) c->data_page_offset = (int64_t)orig_len + 1000;
        if (variant == 1) c->total_compressed_size = (int64_t)orig_len;
        if (variant == 2) c->total_compressed_size = (int64_t)1 << 40;
        c->has_dictionary_page_offset = false;
        pq_buf b = {0};
        CHECK_EQ_I64(pq_write_file_meta(&b, &meta), 0);
        *c = save;
        size_t n;
        uint8_t *d = with_footer(&b, &n);
        int rc = open_and_scan(d, n, NULL, &e);
        CHECK_EQ_I64(rc, RINGSCAN_EFORMAT);
        CHECK(strstr(e.msg, "outside the file") != NULL);
        CHECK_STR(e.column, "a");
        pq_buf_free(&b);
        free(d);
    }
    pq_file_meta_free(&meta);
}

/* Opens and scans the original file with its footer re-encoded after edit(meta, arg). */
static int scan_edited(void (*edit)(pq_file_meta *, int64_t), int64_t arg, const char *filter,
                       int threads, pq_err *e)
{
    uint32_t m = footer_len();
    pq_file_meta meta;
    if (pq_file_meta_parse(orig + orig_len - 8 - m, m, NULL, &meta, e)) return -1000;
    if (pq_file_meta_stats(&meta, -1, e)) return -1000; /* written back below */
    edit(&meta, arg);
    pq_buf b = {0};
    int rc = pq_write_file_meta(&b, &meta);
    pq_file_meta_free(&meta);
    if (rc) return -1000;
    size_t n;
    uint8_t *d = with_footer(&b, &n);
    memset(e, 0, sizeof *e);
    e->offset = -1;
    rc = write_bytes(bad, d, n) ? -EIO : 0;
    pqf_t *f = NULL;
    if (rc == 0) rc = pqf_open(&f, bad, NULL, e);
    if (rc == 0) {
        int proj[HU_NCOLS] = {0, 1, 2, 3, 4};
        scan_opts o;
        scan_opts_default(&o);
        o.threads = threads;
        hu_result r;
        hu_scan(f, proj, HU_NCOLS, filter, &o, &r);
        rc = r.status;
        if (rc) *e = r.err;
    }
    pqf_close(f);
    pq_buf_free(&b);
    free(d);
    return rc;
}

static void set_rg_rows(pq_file_meta *m, int64_t v) { m->row_groups[1].num_rows = v; }
static void set_rg_rows_and_total(pq_file_meta *m, int64_t v)
{
    int64_t others = m->num_rows - m->row_groups[1].num_rows;
    m->num_rows = v > INT64_MAX - others ? v : v + others; /* INT64_MAX: cannot agree */
    m->row_groups[1].num_rows = v;
}
static void set_total_rows(pq_file_meta *m, int64_t v) { m->num_rows = v; }
static void set_uncompressed(pq_file_meta *m, int64_t v)
{
    m->row_groups[1].chunks[2].total_uncompressed_size = v; /* column s: strings */
}
static void set_num_values(pq_file_meta *m, int64_t v) { m->row_groups[1].chunks[1].num_values = v; }

/* Defects 1 and 2 of issue 18: a row group of 2^30 rows or more (2^49 wrote past plan_cuts's
 * array, 2^62 crashed, 2^30..2^49 aborted in flt_mask_init), whether or not the file's total
 * agrees, is refused when the file opens; so is a total that the groups do not add up to. */
static void test_row_group_rows(void)
{
    const int64_t huge[] = {(int64_t)1 << 30 | 1, (int64_t)1 << 31, (int64_t)1 << 49,
                            (int64_t)1 << 62, INT64_MAX};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++)
        for (int threads = 1; threads <= 2; threads++) {
            pq_err e;
            CHECK_EQ_I64(scan_edited(set_rg_rows, huge[i], NULL, threads, &e), RINGSCAN_ELIMIT);
            CHECK(strstr(e.msg, "row group 1") != NULL);
            CHECK_EQ_I64(scan_edited(set_rg_rows_and_total, huge[i], "a < 500", threads, &e),
                         RINGSCAN_ELIMIT);
        }
    pq_err e;
    CHECK_EQ_I64(scan_edited(set_rg_rows, 401, NULL, 1, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "holds 400 values, its row group 401 rows") != NULL);
    CHECK_STR(e.column, "id");
    CHECK_EQ_I64(scan_edited(set_total_rows, 1199, NULL, 1, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "row groups hold 1200 rows, the file says 1199") != NULL);
    CHECK(e.offset > 0); /* the footer's offset */
    CHECK_EQ_I64(scan_edited(set_total_rows, 1200, NULL, 2, &e), 0);
}

static void set_required(pq_file_meta *m, int64_t v)
{
    (void)v;
    m->columns[1].repetition = PQ_REQUIRED; /* column a holds nulls */
    m->columns[1].max_def_level = 0;
}
static void set_null_count(pq_file_meta *m, int64_t v) { m->row_groups[1].chunks[1].stats.null_count = v; }

/* Statistics that contradict the schema or the chunk: a REQUIRED column with nulls (its pages'
 * levels would be decoded as values: a silent wrong answer the field sweep found), more nulls
 * than values. */
static void test_null_counts(void)
{
    pq_err e;
    CHECK_EQ_I64(scan_edited(set_required, 0, NULL, 1, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "REQUIRED") != NULL);
    CHECK_STR(e.column, "a");
    CHECK_EQ_I64(scan_edited(set_null_count, 401, NULL, 1, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "401 nulls among 400 values") != NULL);
    CHECK_EQ_I64(scan_edited(set_null_count, 400, NULL, 2, &e), 0); /* all null: valid */
}

/* Defects 3 and 4: a string chunk that claims INT64_MAX uncompressed bytes (aborted in
 * pq_vec_reserve) and a chunk of INT64_MAX values (overflowed in column.c). */
static void test_chunk_sizes(void)
{
    pq_err e;
    CHECK_EQ_I64(scan_edited(set_uncompressed, INT64_MAX, NULL, 2, &e), RINGSCAN_ELIMIT);
    CHECK_STR(e.column, "s");
    CHECK(strstr(e.msg, "uncompressed size") != NULL);
    CHECK_EQ_I64(scan_edited(set_uncompressed, (int64_t)1 << 40, "s = 's001'", 2, &e), 0);
    CHECK_EQ_I64(scan_edited(set_num_values, INT64_MAX, NULL, 1, &e), RINGSCAN_EFORMAT);
    CHECK_STR(e.column, "a");
}

static bool clear_status(int rc)
{
    return rc == 0 || rc == RINGSCAN_EFORMAT || rc == RINGSCAN_EUNSUPPORTED ||
           rc == RINGSCAN_ELIMIT || rc == RINGSCAN_ECHECKSUM || rc == -EIO ||
           rc == RINGSCAN_EPARSE; /* a flipped column name: the filter names a missing column */
}

/* ---- which bytes a flip cannot change a row through ----
 * NB_ANY: every bit of the byte; NB_LOW: bits 0-6 only (a varint byte: bit 7 is framing). */
enum { NB_VALUE = 0, NB_ANY, NB_LOW, NB_MAX_PAGES = 100000 };
static uint8_t *nb_class;  /* orig_len entries */
static size_t *nb_at, nb_n; /* the neutral bytes' offsets */

static void nb_mark(size_t at, size_t len, uint8_t cls)
{
    for (size_t k = at; k < at + len && k < orig_len; k++) nb_class[k] = cls;
}

static void nb_value(pq_tr *r, uint8_t t, int16_t *path, int depth, size_t base);

static void nb_struct(pq_tr *r, int16_t *path, int depth, size_t base)
{
    int16_t id;
    uint8_t t;
    if (depth >= 16 || pq_tr_struct_begin(r)) return;
    while (!pq_tr_field(r, &id, &t) && t != PQ_T_STOP) {
        path[depth] = id;
        nb_value(r, t, path, depth + 1, base);
    }
    pq_tr_struct_end(r);
}

/* A chunk statistics' min or max (FileMetaData.row_groups[].columns[].meta_data.statistics
 * .{max, min, max_value, min_value}): read only to prune or order by a filter. */
static bool nb_is_stats_value(const int16_t *path, int depth)
{
    static const int16_t want[6] = {4, -1, 1, -1, 3, 12};
    if (depth != 7 || memcmp(path, want, sizeof want) != 0) return false;
    return path[6] == 1 || path[6] == 2 || path[6] == 5 || path[6] == 6;
}

static void nb_value(pq_tr *r, uint8_t t, int16_t *path, int depth, size_t base)
{
    if (t == PQ_T_STRUCT) {
        nb_struct(r, path, depth, base);
    } else if (t == PQ_T_LIST || t == PQ_T_SET) {
        uint8_t et;
        uint32_t n;
        if (depth >= 16 || pq_tr_list_begin(r, &et, &n, 0)) return;
        for (uint32_t i = 0; i < n && !r->status; i++) {
            path[depth] = -1;
            nb_value(r, et, path, depth + 1, base);
        }
        pq_tr_list_end(r);
    } else if (t == PQ_T_BINARY) {
        const uint8_t *v;
        uint32_t n;
        if (pq_tr_binary(r, &v, &n)) return;
        if (nb_is_stats_value(path, depth)) nb_mark(base + (size_t)(v - r->base), n, NB_ANY);
    } else {
        pq_tr_skip(r, t);
    }
}

/* Marks the crc of every page header of chunk cm (verify_crc is off by default, so the field
 * is never read). */
static void nb_mark_page_crcs(const pq_chunk_meta *cm)
{
    static tw_spans sp;
    size_t pos = (size_t)(cm->has_dictionary_page_offset ? cm->dictionary_page_offset
                                                          : cm->data_page_offset);
    size_t end = pos + (size_t)cm->total_compressed_size;
    for (int page = 0; pos < end && end <= orig_len && page < NB_MAX_PAGES; page++) {
        sp.n = 0;
        size_t hl = tw_walk(orig + pos, end - pos, &sp);
        int64_t csize = -1;
        for (int k = 0; k < sp.n; k++) {
            if (sp.v[k].depth != 1) continue;
            if (sp.v[k].field == 3) csize = sp.v[k].old;
            if (sp.v[k].field == 4) nb_mark(pos + sp.v[k].at, sp.v[k].len, NB_LOW);
        }
        if (hl == 0 || csize < 0) break;
        pos += hl + (size_t)csize;
    }
}

/* Classifies every byte of the original file: NB_VALUE unless the test knows it is only read
 * to prune (statistics min/max) or never read (page crcs). Returns the neutral byte count. */
static size_t nb_classify(void)
{
    uint32_t m = footer_len();
    size_t foot = orig_len - 8 - m;
    nb_class = calloc(orig_len, 1);
    nb_at = malloc(orig_len * sizeof *nb_at);
    pq_file_meta meta;
    pq_err e = {.offset = -1};
    if (!nb_class || !nb_at || pq_file_meta_parse(orig + foot, m, NULL, &meta, &e)) return 0;
    for (int g = 0; g < meta.nrow_groups; g++)
        for (int c = 0; c < meta.ncolumns; c++) nb_mark_page_crcs(&meta.row_groups[g].chunks[c]);
    pq_file_meta_free(&meta);
    pq_tr r;
    int16_t path[16];
    pq_tr_init(&r, orig + foot, m, -1, 0, NULL);
    nb_struct(&r, path, 0, foot);
    nb_n = 0;
    for (size_t k = 0; k < orig_len; k++)
        if (nb_class[k]) nb_at[nb_n++] = k;
    return nb_n;
}

/* Flips 1-4 bits of d (a copy of the file) picked by h: in [lo, hi), or among the neutral
 * bytes (their allowed bits) when neutral_only. Returns whether every flip was neutral. */
static bool flip_bits(uint8_t *d, uint64_t h, size_t lo, size_t hi, bool neutral_only)
{
    bool neutral = true;
    int flips = 1 + (int)(h % 4);
    for (int k = 0; k < flips; k++) {
        uint64_t hk = hu_mix(h + (uint64_t)k);
        size_t at = neutral_only ? nb_at[hk % nb_n] : lo + hk % (hi - lo);
        int bit = (int)((hk >> 32) % (neutral_only && nb_class[at] == NB_LOW ? 7 : 8));
        neutral = neutral && (nb_class[at] == NB_ANY || (nb_class[at] == NB_LOW && bit < 7));
        d[at] ^= (uint8_t)(1u << bit);
    }
    return neutral;
}

static bool same_rows(const hu_result *a, const hu_result *b)
{
    return a->rows == b->rows && a->sum == b->sum && a->xor_ == b->xor_ &&
           a->ordered == b->ordered;
}

/* The reads of one flipped file: without and with filter, each lazy on 1 thread and eager on
 * 2 threads, ordered (so the ordered digests compare too). rows_in_footer: its num_rows. */
typedef struct flip_reads {
    int open_status;
    int64_t rows_in_footer;
    hu_result plain[2], filtered[2];
} flip_reads;

static void read_flipped(const uint8_t *d, const char *filter, flip_reads *out)
{
    memset(out, 0, sizeof *out);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    out->open_status = write_bytes(bad, d, orig_len) ? -EIO : pqf_open(&f, bad, NULL, &e);
    if (out->open_status) return;
    out->rows_in_footer = f->meta.num_rows;
    int proj[HU_NCOLS];
    int nproj = f->meta.ncolumns < HU_NCOLS ? f->meta.ncolumns : HU_NCOLS;
    for (int i = 0; i < nproj; i++) proj[i] = i;
    for (int k = 0; k < 2 && nproj > 0; k++) {
        scan_opts o;
        scan_opts_default(&o);
        o.policy = k == 0 ? SCAN_LAZY : SCAN_EAGER;
        o.threads = k == 0 ? 1 : 2;
        o.io = k == 0 ? EXEC_IO_PREAD : EXEC_IO_AUTO;
        o.ordered = true;
        hu_scan(f, proj, nproj, NULL, &o, &out->plain[k]);
        hu_scan(f, proj, nproj, filter, &o, &out->filtered[k]);
    }
    pqf_close(f);
}

/* Two reads of the same file under different policies: both fail, or both read the same
 * rows (scan invariant 4); a read that succeeds has its footer's schema. */
static bool reads_agree(const hu_result r[2])
{
    for (int k = 0; k < 2; k++)
        if (!clear_status(r[k].status) || r[k].schema_mismatches != 0) return false;
    if ((r[0].status == 0) != (r[1].status == 0)) return false;
    return r[0].status != 0 || same_rows(&r[0], &r[1]);
}

/* Seeds 1-300 flip bits anywhere (odd seeds: metadata, even: pages), seeds 301-400 only bits
 * the test knows no row depends on. Every read ends with a clear status and a message; a read
 * that succeeds must read, when every flip was neutral, the original file's rows, else the
 * rows its footer counts, and the same rows under another policy and thread count. */
static void test_seeded_byte_flips(void)
{
    uint32_t m = footer_len();
    uint8_t *d = malloc(orig_len);
    int64_t counts[2][6] = {{0}}, neutral_same = 0, policy_same = 0;
    CHECK(nb_classify() > 100);
    if (!d || nb_n == 0) {
        free(d);
        return;
    }
    hu_result ref;
    flip_reads fr;
    read_flipped(orig, "a < 500", &fr);
    ref = fr.plain[0];
    CHECK_EQ_I64(ref.status, 0);
    CHECK_EQ_I64(ref.rows, 1200);
    for (uint64_t seed = 1; seed <= 400; seed++) {
        memcpy(d, orig, orig_len);
        uint64_t h = hu_mix(seed);
        bool in_meta = seed & 1; /* odd seeds: metadata, even: pages */
        size_t lo = in_meta ? orig_len - 8 - m : 4, hi = in_meta ? orig_len - 8 : orig_len - 8 - m;
        bool neutral = flip_bits(d, h, lo, hi, seed > 300);
        pq_err e;
        int rc = open_and_scan(d, orig_len, "a < 500", &e);
        CHECK(clear_status(rc));
        CHECK(rc == 0 || e.msg[0] != 0);
        if (!clear_status(rc) || (rc && !e.msg[0]))
            fprintf(stderr, "  flip seed %llu: status %d (%s)\n", (unsigned long long)seed, rc, e.msg);
        int slot = rc == 0 ? 0 : rc == RINGSCAN_EFORMAT ? 1 : rc == RINGSCAN_EUNSUPPORTED ? 2 :
                   rc == RINGSCAN_ELIMIT ? 3 : rc == RINGSCAN_ECHECKSUM ? 4 : 5;
        if (seed <= 300) counts[in_meta][slot]++;

        read_flipped(d, "a < 500", &fr);
        CHECK(clear_status(fr.open_status));
        if (fr.open_status) continue;
        bool ok = reads_agree(fr.plain) && reads_agree(fr.filtered);
        if (ok && fr.plain[0].status == 0) {
            ok = fr.plain[0].rows == fr.rows_in_footer && (!neutral || same_rows(&fr.plain[0], &ref));
            neutral_same += neutral;
            policy_same++;
        }
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  FAIL flip seed %llu (%s): plain %d/%d rows %lld/%lld (footer %lld, "
                    "original %lld) alike %d, filtered %d/%d rows %lld/%lld alike %d, like the "
                    "original %d, schema mismatches %lld\n",
                    (unsigned long long)seed, neutral ? "neutral" : "may change values",
                    fr.plain[0].status, fr.plain[1].status, (long long)fr.plain[0].rows,
                    (long long)fr.plain[1].rows, (long long)fr.rows_in_footer, (long long)ref.rows,
                    same_rows(&fr.plain[0], &fr.plain[1]), fr.filtered[0].status,
                    fr.filtered[1].status, (long long)fr.filtered[0].rows,
                    (long long)fr.filtered[1].rows, same_rows(&fr.filtered[0], &fr.filtered[1]),
                    same_rows(&fr.plain[0], &ref),
                    (long long)(fr.plain[0].schema_mismatches + fr.plain[1].schema_mismatches +
                                fr.filtered[0].schema_mismatches + fr.filtered[1].schema_mismatches));
    }
    printf("  byte flips in pages: %lld ok, %lld EFORMAT, %lld EUNSUPPORTED, %lld ELIMIT, %lld "
           "ECHECKSUM, %lld other; in metadata: %lld ok, %lld EFORMAT, %lld EUNSUPPORTED, %lld "
           "ELIMIT, %lld other\n", (long long)counts[0][0], (long long)counts[0][1],
           (long long)counts[0][2], (long long)counts[0][3], (long long)counts[0][4],
           (long long)counts[0][5], (long long)counts[1][0], (long long)counts[1][1],
           (long long)counts[1][2], (long long)counts[1][3], (long long)counts[1][5]);
    printf("  flipped files read: %lld alike under both policies, %lld of them neutral flips "
           "with the original rows (%zu neutral bytes)\n", (long long)policy_same,
           (long long)neutral_same, nb_n);
    CHECK(neutral_same >= 50); /* seeds 301-400 mostly read: the comparison ran */
    free(d);
    free(nb_class);
    free(nb_at);
}

/* ------------------------------------------------------------------------ crafted pages */

typedef struct page {
    uint8_t buf[4096];
    size_t len;
} page;

static void make_page(page *p, const pq_page_header *h, const uint8_t *body, size_t n)
{
    pq_buf b = {0};
    if (pq_write_page_header(&b, h) != 0 || b.len + n > sizeof p->buf) abort();
    memcpy(p->buf, b.data, b.len);
    memcpy(p->buf + b.len, body, n);
    p->len = b.len + n;
    pq_buf_free(&b);
}

/* Decodes pages in order into one vector; the status of the last one (earlier ones must
 * pass) and its error. */
static int decode(const pq_column_desc *c, const page *pages, int n, pq_err *e)
{
    pq_col_reader r;
    pq_colr_init(&r, c, PQ_CODEC_UNCOMPRESSED, NULL);
    pq_vec v;
    pq_vec_init(&v, c->physical, c->type_length);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        memset(e, 0, sizeof *e);
        e->offset = -1;
        size_t used;
        int64_t rows;
        int64_t before = v.length;
        rc = pq_colr_page(&r, pages[i].buf, pages[i].len, 1000 * (i + 1), &v, &used, &rows, e);
        if (rc) CHECK_EQ_I64(v.length, before); /* a failed page appends nothing */
        if (rc && i < n - 1) fprintf(stderr, "  page %d of %d failed early: %s\n", i, n, e->msg);
    }
    pq_vec_free(&v);
    pq_colr_free(&r);
    return rc;
}

static const pq_column_desc req_i32 = {.name = "r", .physical = PQ_INT32, .repetition = PQ_REQUIRED,
                                       .field_id = -1};
static const pq_column_desc opt_i32 = {.name = "o", .physical = PQ_INT32, .repetition = PQ_OPTIONAL,
                                       .max_def_level = 1, .field_id = -1};
static const pq_column_desc req_i64 = {.name = "r64", .physical = PQ_INT64, .repetition = PQ_REQUIRED,
                                       .field_id = -1};

static pq_page_header hdr(pq_page_type t, int32_t nvals, pq_encoding enc, size_t body)
{
    pq_page_header h = {.type = t, .uncompressed_size = (int32_t)body, .compressed_size = (int32_t)body,
                        .num_values = nvals, .encoding = enc, .def_level_encoding = PQ_ENC_RLE,
                        .rep_level_encoding = PQ_ENC_RLE, .is_compressed = true};
    return h;
}

static void dict_of_two(page *p)
{
    int32_t vals[2] = {10, 20};
    pq_page_header h = hdr(PQ_PAGE_DICTIONARY, 2, PQ_ENC_PLAIN, sizeof vals);
    make_page(p, &h, (const uint8_t *)vals, sizeof vals);
}

/* With page CRCs checked, a flipped bit in the pages is either detected (an error) or did not
 * change a row: a read that succeeds returns exactly the original rows. */
static void test_flips_with_crc_are_caught(void)
{
    uint32_t m = footer_len();
    size_t lo = 4, hi = orig_len - 8 - m;
    uint8_t *d = malloc(orig_len);
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    if (write_bytes(bad, orig, orig_len) || pqf_open(&f, bad, NULL, &e)) {
        CHECK(!"reference open");
        free(d);
        return;
    }
    int proj[HU_NCOLS] = {0, 1, 2, 3, 4};
    scan_opts o;
    scan_opts_default(&o);
    o.threads = 1;
    o.col_limits.verify_crc = true;
    hu_result ref, r;
    hu_scan(f, proj, HU_NCOLS, NULL, &o, &ref);
    pqf_close(f);
    CHECK_EQ_I64(ref.status, 0);
    int64_t caught = 0, same = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        memcpy(d, orig, orig_len);
        uint64_t h = hu_mix(seed * 7919);
        d[lo + h % (hi - lo)] ^= (uint8_t)(1u << ((h >> 32) % 8));
        if (write_bytes(bad, d, orig_len) || pqf_open(&f, bad, NULL, &e)) continue;
        hu_scan(f, proj, HU_NCOLS, NULL, &o, &r);
        pqf_close(f);
        CHECK(clear_status(r.status));
        if (r.status) caught++;
        else if (r.rows == ref.rows && r.sum == ref.sum && r.xor_ == ref.xor_) same++;
        else fprintf(stderr, "  FAIL flip seed %llu: read other rows, status 0\n", (unsigned long long)seed);
    }
    printf("  byte flips in pages with CRCs checked: %lld caught, %lld read the same rows, %lld "
           "read other rows\n", (long long)caught, (long long)same, (long long)(200 - caught - same));
    CHECK_EQ_I64(caught + same, 200);
    free(d);
}

static void test_negative_counts(void)
{
    page p[2];
    int32_t vals[2] = {1, 2};
    pq_page_header h = hdr(PQ_PAGE_DATA, -5, PQ_ENC_PLAIN, sizeof vals);
    make_page(&p[0], &h, (const uint8_t *)vals, sizeof vals);
    pq_err e;
    CHECK_EQ_I64(decode(&req_i32, p, 1, &e), RINGSCAN_EFORMAT);
    CHECK_EQ_I64(e.offset, 1000);
    CHECK_STR(e.column, "r");
    h = hdr(PQ_PAGE_DICTIONARY, -3, PQ_ENC_PLAIN, sizeof vals); /* negative dictionary count */
    make_page(&p[0], &h, (const uint8_t *)vals, sizeof vals);
    CHECK_EQ_I64(decode(&req_i32, p, 1, &e), RINGSCAN_EFORMAT);
    h = hdr(PQ_PAGE_DATA, 2, PQ_ENC_PLAIN, sizeof vals);
    h.compressed_size = 4000; /* length past the end of the buffer */
    make_page(&p[0], &h, (const uint8_t *)vals, sizeof vals);
    CHECK_EQ_I64(decode(&req_i32, p, 1, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "past") != NULL);
}

static void test_bit_width_above_32(void)
{
    page p[2];
    dict_of_two(&p[0]);
    uint8_t body[] = {40, 8, 1}; /* bit width 40, then an RLE run */
    pq_page_header h = hdr(PQ_PAGE_DATA, 4, PQ_ENC_RLE_DICTIONARY, sizeof body);
    make_page(&p[1], &h, body, sizeof body);
    pq_err e;
    CHECK_EQ_I64(decode(&req_i32, p, 2, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "width") != NULL);
    CHECK_EQ_I64(e.offset >= 2000, 1);
}

static void test_dict_index_out_of_range(void)
{
    page p[2];
    dict_of_two(&p[0]);
    uint8_t body[] = {2, 4 << 1, 3}; /* width 2, RLE run of 4 x index 3 (dictionary has 2) */
    pq_page_header h = hdr(PQ_PAGE_DATA, 4, PQ_ENC_RLE_DICTIONARY, sizeof body);
    make_page(&p[1], &h, body, sizeof body);
    pq_err e;
    CHECK_EQ_I64(decode(&req_i32, p, 2, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "index") != NULL || strstr(e.msg, "dictionary") != NULL);
    CHECK_STR(e.column, "r");
}

static void test_nulls_in_required(void)
{
    page p[1];
    int32_t vals[3] = {1, 2, 3};
    pq_page_header h = hdr(PQ_PAGE_DATA_V2, 4, PQ_ENC_PLAIN, sizeof vals);
    h.num_nulls = 1;
    h.num_rows = 4;
    h.is_compressed = false;
    make_page(&p[0], &h, (const uint8_t *)vals, sizeof vals);
    pq_err e;
    CHECK_EQ_I64(decode(&req_i32, p, 1, &e), RINGSCAN_EFORMAT);
    CHECK(strstr(e.msg, "nulls in a required column") != NULL);
}

static void test_too_few_levels(void)
{
    page p[1];
    /* v1: 4-byte level length, an RLE run of 10 ones, then 10 values; the page says 100 */
    uint8_t body[4 + 2 + 40];
    uint32_t ll = 2;
    memcpy(body, &ll, 4);
    body[4] = 10 << 1;
    body[5] = 1;
    for (int i = 0; i < 10; i++) memcpy(body + 6 + 4 * i, &i, 4);
    pq_page_header h = hdr(PQ_PAGE_DATA, 100, PQ_ENC_PLAIN, sizeof body);
    make_page(&p[0], &h, body, sizeof body);
    pq_err e;
    CHECK_EQ_I64(decode(&opt_i32, p, 1, &e), RINGSCAN_EFORMAT);
    CHECK(e.msg[0] != 0);
    CHECK_STR(e.column, "o");
}

static void test_delta_asks_for_gigabytes(void)
{
    page p[1];
    pq_err e;
    /* block size 2^31 - 128, 4 miniblocks, 2^31 - 1 values, first value 0 */
    uint8_t b1[] = {0x80, 0xff, 0xff, 0xff, 0x07, 4, 0xff, 0xff, 0xff, 0xff, 0x07, 0};
    pq_page_header h = hdr(PQ_PAGE_DATA, 8, PQ_ENC_DELTA_BINARY_PACKED, sizeof b1);
    make_page(&p[0], &h, b1, sizeof b1);
    CHECK_EQ_I64(decode(&req_i64, p, 1, &e), RINGSCAN_EFORMAT);
    CHECK(e.msg[0] != 0);
    /* a sane block but a total count of 2^31 - 1 for an 8-value page */
    uint8_t b2[] = {128, 1, 4, 0xff, 0xff, 0xff, 0xff, 0x07, 0};
    h = hdr(PQ_PAGE_DATA, 8, PQ_ENC_DELTA_BINARY_PACKED, sizeof b2);
    make_page(&p[0], &h, b2, sizeof b2);
    CHECK_EQ_I64(decode(&req_i64, p, 1, &e), RINGSCAN_EFORMAT);
    /* the page itself claims 2^31 - 1 values: the page-values limit stops it first */
    h = hdr(PQ_PAGE_DATA, INT32_MAX, PQ_ENC_DELTA_BINARY_PACKED, sizeof b2);
    make_page(&p[0], &h, b2, sizeof b2);
    CHECK_EQ_I64(decode(&req_i64, p, 1, &e), RINGSCAN_ELIMIT);
    CHECK(strstr(e.msg, "max_page_values") != NULL);
}

/* ------------------------------------------------------------------------ regressions */

#define LLVMFuzzerTestOneInput fuzz_bss_one
#define round_trip round_trip_bss
#include "fuzz/fuzz_bss.c"
#undef round_trip
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_codec_one
#define round_trip round_trip_codec
#include "fuzz/fuzz_codec.c"
#undef round_trip
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_delta_one
#include "fuzz/fuzz_delta.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dict_one
#include "fuzz/fuzz_dict.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_filter_parse_one
#include "fuzz/fuzz_filter_parse.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_meta_one
#include "fuzz/fuzz_meta.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_plain_one
#include "fuzz/fuzz_plain.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_rle_one
#include "fuzz/fuzz_rle.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_column_one
#include "fuzz/fuzz_column.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_nested_one
#define kinds kinds_nested
#define shapes shapes_nested
#define build_meta build_meta_nested
#define walk walk_nested
#include "fuzz/fuzz_nested.c"
#undef kinds
#undef shapes
#undef build_meta
#undef walk
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_scan_one
#define FUZZ_NO_MUTATOR
#include "fuzz/fuzz_scan.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_api_one
#define FUZZ_API_NO_SCAN /* (fuzz_scan.c is in already) */
#include "fuzz/fuzz_api.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_snappy_one
#define round_trip round_trip_snappy
#include "fuzz/fuzz_snappy.c"
#undef round_trip
#undef LLVMFuzzerTestOneInput

typedef struct target {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
} target;

static const target targets[] = {
    {"fuzz_bss", fuzz_bss_one},     {"fuzz_codec", fuzz_codec_one},
    {"fuzz_delta", fuzz_delta_one}, {"fuzz_dict", fuzz_dict_one},
    {"fuzz_filter_parse", fuzz_filter_parse_one}, {"fuzz_meta", fuzz_meta_one},
    {"fuzz_plain", fuzz_plain_one}, {"fuzz_rle", fuzz_rle_one},
    {"fuzz_column", fuzz_column_one}, {"fuzz_nested", fuzz_nested_one},
    {"fuzz_scan", fuzz_scan_one},   {"fuzz_api", fuzz_api_one},
    {"fuzz_snappy", fuzz_snappy_one},
};

static void test_fuzz_regressions(void)
{
    int replayed = 0, unknown = 0;
    DIR *top = opendir("tests/fuzz/regressions");
    CHECK(top != NULL);
    if (!top) return;
    struct dirent *t;
    while ((t = readdir(top))) {
        if (t->d_name[0] == '.') continue;
        const target *tg = NULL;
        for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
            if (strcmp(targets[i].name, t->d_name) == 0) tg = &targets[i];
        if (!tg) {
            fprintf(stderr, "  no replay for regressions of %s\n", t->d_name);
            unknown++;
            continue;
        }
        char dir[512];
        snprintf(dir, sizeof dir, "tests/fuzz/regressions/%s", t->d_name);
        DIR *d = opendir(dir);
        struct dirent *f;
        while (d && (f = readdir(d))) {
            if (f->d_name[0] == '.') continue;
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, f->d_name);
            size_t n = 0;
            uint8_t *data = read_all(p, &n);
            CHECK(data != NULL);
            if (!data) continue;
            CHECK_EQ_I64(tg->fn(data, n), 0); /* a crash or abort fails the program */
            free(data);
            replayed++;
        }
        if (d) closedir(d);
    }
    closedir(top);
    CHECK_EQ_I64(unknown, 0);
    CHECK(replayed >= 2);
    printf("  %d fuzz regression inputs replayed\n", replayed);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/ringscan_badinput_%d.parquet", (int)getpid());
    snprintf(bad, sizeof bad, "/tmp/ringscan_badinput_%d_bad.parquet", (int)getpid());
    hu_file_opts fo = {.rows = 1200, .row_group_rows = 400, .page_rows = 100,
                       .codec = PQ_CODEC_SNAPPY, .page_index = true, .dictionary = true,
                       .crc = true};
    if (hu_write(path, &fo) != 0 || !(orig = read_all(path, &orig_len))) return 1;
    RUN(test_truncated_footer_every_byte);
    RUN(test_wrong_magic);
    RUN(test_footer_length_past_end);
    RUN(test_chunk_past_end);
    RUN(test_row_group_rows);
    RUN(test_chunk_sizes);
    RUN(test_null_counts);
    RUN(test_seeded_byte_flips);
    RUN(test_flips_with_crc_are_caught);
    RUN(test_negative_counts);
    RUN(test_bit_width_above_32);
    RUN(test_dict_index_out_of_range);
    RUN(test_nulls_in_required);
    RUN(test_too_few_levels);
    RUN(test_delta_asks_for_gigabytes);
    RUN(test_fuzz_regressions);
    unlink(path);
    unlink(bad);
    free(orig);
    return CHECK_DONE("test_badinput");
}
