/* bench/bench_data.c: the bench's data folder: lineitem files and cached expected answers.
 *
 * Files: <dir>/lineitem_sf<SF>_<layout>.parquet, written by bench/lineitem_file.c with the
 * writer's defaults (which mimic pyarrow: snappy, dictionary, v1 pages, statistics, no page
 * index) except row groups of BENCH_ROW_GROUP_ROWS rows (DuckDB's size). The settings are
 * stored in the file's key-value metadata under "ringscan.bench"; a file whose tag differs
 * (other seed, row group size, writer settings) is regenerated. Generation goes to a .tmp
 * file renamed at the end, so an interrupted run never leaves a half file behind.
 *
 * Expected answers: <file>.expected, text, one "shape rows checksum" line per shape after a
 * header line naming the tag and the data file's size; computed from the model with
 * shape_expected (never by the scan) when missing or stale.
 *
 * Invariants:
 *  1. Checking an existing file costs one footer open (pqf_open: f->tail_reads pread calls),
 *     returned to the caller so the bench's read total stays exact.
 *  2. Nothing here reads data pages; generation and the model make no pread calls. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench_scan.h"
#include "bench/lineitem_file.h"
#include "scan/pqfile.h"

#define BENCH_TAG_KEY "ringscan.bench"

static const char *layout_name(lineitem_layout l)
{
    return l == LINEITEM_LAYOUT_CANCEL ? "cancel" : "tpch";
}

static void make_tag(const bench_scan_opts *o, lineitem_layout l, char *tag, size_t cap)
{
    snprintf(tag, cap,
             "v1 seed=%" PRIu64 " sf=%g layout=%s row_group_rows=%d codec=snappy dictionary=on "
             "pages=v1 statistics=on page_index=off (pyarrow defaults, DuckDB row groups)",
             o->seed, o->sf, layout_name(l), BENCH_ROW_GROUP_ROWS);
}

/* The bench's bar on a terminal's stderr (lineitem_file_tick; ctx: the last percent drawn). */
static void progress(void *ctx, int64_t done, int64_t total)
{
    int *last_pct = ctx;
    if (total <= 0 || !isatty(2)) return;
    int pct = (int)(done * 100 / total);
    if (pct == *last_pct) return;
    *last_pct = pct;
    char bar[41];
    int fill = pct * 40 / 100;
    for (int i = 0; i < 40; i++) bar[i] = i < fill ? '#' : '.';
    bar[40] = 0;
    fprintf(stderr, "\r[%s] %3d%% %" PRId64 "/%" PRId64 " rows", bar, pct, done, total);
    if (pct == 100) fputc('\n', stderr);
}

/* Writes the file for layout to path (via path.tmp). 0 or 1 (printed). */
static int generate(const bench_scan_opts *o, lineitem_layout l, const char *tag, const char *path)
{
    lineitem_gen g;
    int rc = lineitem_gen_init(&g, o->sf, o->seed);
    if (rc) return fprintf(stderr, "ringscan: bench: cannot set up sf=%g\n", o->sf), 1;
    if (l == LINEITEM_LAYOUT_CANCEL) rc = lineitem_gen_set_cancel_layout(&g, BENCH_ROW_GROUP_ROWS);
    char tmp[BENCH_PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = rc ? NULL : fopen(tmp, "wb");
    if (!f) {
        lineitem_gen_free(&g);
        return fprintf(stderr, "ringscan: bench: %s: %s\n", tmp, strerror(errno)), 1;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    fprintf(stderr, "ringscan: bench: generating %s (%" PRId64 " rows)...\n", path,
            lineitem_total_rows(&g));
    double t0 = bench_now_ms();
    pq_column_desc d[LINEITEM_COLS_MAX];
    lineitem_file_schema(&g, d);
    pq_writer_opts wo;
    pq_writer_opts_default(&wo);
    wo.row_group_rows = BENCH_ROW_GROUP_ROWS;
    pq_kv kv = {.key = BENCH_TAG_KEY, .value = tag, .value_len = (uint32_t)strlen(tag)};
    wo.kv = &kv;
    wo.nkv = 1;
    pq_err e = {.offset = -1};
    pq_writer *w = NULL;
    rc = pq_writer_open(&w, d, g.ncols, &wo, lineitem_file_sink, f, &e);
    int last_pct = -1;
    if (!rc) rc = lineitem_file_write(&g, w, 2, progress, &last_pct, &e);
    if (!rc) rc = pq_writer_close(w, &e);
    pq_writer_free(w);
    lineitem_gen_free(&g);
    if (fclose(f) != 0 && !rc) rc = -EIO;
    if (!rc && rename(tmp, path) != 0) rc = -errno;
    if (rc) {
        unlink(tmp);
        return fprintf(stderr, "ringscan: bench: writing %s: %s\n", path,
                       e.msg[0] ? e.msg : strerror(-rc)), 1;
    }
    fprintf(stderr, "ringscan: bench: wrote %s in %.1f s\n", path, (bench_now_ms() - t0) / 1e3);
    return 0;
}

/* True when path exists and carries tag; *reads += the footer reads it took. */
static bool file_ok(const char *path, const char *tag, uint64_t *reads)
{
    if (access(path, R_OK) != 0) return false;
    pqf_t *f = NULL;
    pq_err e = {.offset = -1};
    if (pqf_open(&f, path, NULL, &e) != 0) return false;
    *reads += (uint64_t)f->tail_reads;
    const pq_kv *kv = pq_file_meta_find_kv(&f->meta, BENCH_TAG_KEY);
    bool ok = kv && kv->value && kv->value_len == strlen(tag) &&
              memcmp(kv->value, tag, kv->value_len) == 0;
    pqf_close(f);
    return ok;
}

int bench_data_file(const bench_scan_opts *o, lineitem_layout l, char *path, size_t cap,
                    uint64_t *reads)
{
    if (mkdir(o->data_dir, 0755) != 0 && errno != EEXIST)
        return fprintf(stderr, "ringscan: bench: mkdir %s: %s\n", o->data_dir, strerror(errno)), 1;
    int n = snprintf(path, cap, "%s/lineitem_sf%g_%s.parquet", o->data_dir, o->sf, layout_name(l));
    if (n < 0 || (size_t)n >= cap) return fprintf(stderr, "ringscan: bench: path too long\n"), 1;
    char tag[256];
    make_tag(o, l, tag, sizeof tag);
    if (file_ok(path, tag, reads)) return 0;
    return generate(o, l, tag, path);
}

/* ------------------------------------------------------------------ expected answers */

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* The cache header for a data file. */
static void cache_header(const bench_scan_opts *o, lineitem_layout l, const char *path, char *h,
                         size_t cap)
{
    char tag[256];
    make_tag(o, l, tag, sizeof tag);
    snprintf(h, cap, "# ringscan bench expected answers; %s; size=%lld\n", tag, file_size(path));
}

/* Loads the cached answers of every shape of r[0..n) on `path`; marks found ones. */
static void cache_load(const char *cache, const char *header, bench_shape_res **r, int n,
                       bool *found)
{
    FILE *f = fopen(cache, "r");
    if (!f) return;
    char line[512];
    if (!fgets(line, sizeof line, f) || strcmp(line, header) != 0) {
        fclose(f);
        return;
    }
    char name[128];
    long long rows;
    unsigned long long sum;
    for (int lines = 0; lines < 64 && fgets(line, sizeof line, f); lines++) {
        if (sscanf(line, "%127s %lld %llu", name, &rows, &sum) != 3) continue;
        for (int i = 0; i < n; i++)
            if (strcmp(r[i]->shape->name, name) == 0) {
                r[i]->expected.rows = rows;
                r[i]->expected.checksum = sum;
                found[i] = true;
            }
    }
    fclose(f);
}

static int cache_save(const char *cache, const char *header, bench_shape_res **r, int n)
{
    char tmp[BENCH_PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp", cache);
    FILE *f = fopen(tmp, "w");
    if (!f) return -errno;
    fputs(header, f);
    FILE *old = fopen(cache, "r"); /* keep the other shapes' lines of a current cache */
    char line[512], name[128];
    if (old && fgets(line, sizeof line, old) && strcmp(line, header) == 0)
        for (int lines = 0; lines < 64 && fgets(line, sizeof line, old); lines++) {
            bool mine = sscanf(line, "%127s", name) != 1;
            for (int i = 0; i < n && !mine; i++) mine = strcmp(r[i]->shape->name, name) == 0;
            if (!mine) fputs(line, f);
        }
    if (old) fclose(old);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %lld %llu\n", r[i]->shape->name, (long long)r[i]->expected.rows,
                (unsigned long long)r[i]->expected.checksum);
    if (fclose(f) != 0 || rename(tmp, cache) != 0) return -errno;
    return 0;
}

/* Expected answers of the shapes of one layout (all on the same file). */
static int expected_layout(bench_ctx *c, lineitem_layout l)
{
    bench_shape_res *r[SHAPE_COUNT];
    bool found[SHAPE_COUNT] = {0};
    int n = 0;
    for (int i = 0; i < c->nshapes; i++)
        if (c->shapes[i].shape->layout == l) r[n++] = &c->shapes[i];
    if (n == 0) return 0;
    char cache[BENCH_PATH_MAX + 16], header[512];
    snprintf(cache, sizeof cache, "%s.expected", r[0]->path);
    cache_header(&c->o, l, r[0]->path, header, sizeof header);
    cache_load(cache, header, r, n, found);
    bool dirty = false;
    lineitem_gen g;
    bool have_g = false;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = cpus < 1 ? 1 : cpus > 64 ? 64 : (int)cpus;
    for (int i = 0; i < n; i++) {
        if (found[i]) continue;
        if (!have_g) {
            if (lineitem_gen_init(&g, c->o.sf, c->o.seed) != 0) return 1;
            if (l == LINEITEM_LAYOUT_CANCEL) lineitem_gen_set_cancel_layout(&g, BENCH_ROW_GROUP_ROWS);
            have_g = true;
        }
        fprintf(stderr, "ringscan: bench: computing the expected answer of %s from the model...\n",
                r[i]->shape->name);
        int rc = shape_expected(&g, r[i]->shape, nthreads, &r[i]->expected);
        if (rc) {
            lineitem_gen_free(&g);
            return fprintf(stderr, "ringscan: bench: expected answer of %s: %s\n",
                           r[i]->shape->name, strerror(-rc)), 1;
        }
        dirty = true;
    }
    if (have_g) lineitem_gen_free(&g);
    if (dirty && cache_save(cache, header, r, n) != 0)
        fprintf(stderr, "ringscan: bench: warning: cannot save %s\n", cache);
    return 0;
}

int bench_data_expected(bench_ctx *c)
{
    int rc = expected_layout(c, LINEITEM_LAYOUT_TPCH);
    return rc ? rc : expected_layout(c, LINEITEM_LAYOUT_CANCEL);
}
