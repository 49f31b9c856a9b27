/* bench/bench_floor.c: the decompression floor of a bench shape.
 *
 * Definition (the simplest honest one): the compressed pages of every column the shape reads
 * (projection and filter columns) in every row group its filter's chunk statistics do not
 * prune (flt_prune_stats, the rule the scan's planner applies first; the bench files have no
 * page index or bloom filters, so the planner prunes nothing more) are read into memory
 * before the rounds; the floor is the wall time to decompress all of them once with
 * pq_decompress (the scan's codec path) on the calling thread, and that thread's CPU time over
 * the same loop (a loaded machine stretches wall time much more). Page headers are parsed at
 * load time, so the timed loop is decompression only: no decoding, filtering or I/O.
 *
 * Invariants:
 *  1. Loading counts every pread call it makes (fl->reads, footer included), so the bench's
 *     process read total stays exact (bench_scan.h invariant 1).
 *  2. Every page's compressed range lies inside its chunk buffer (checked at load); the
 *     scratch buffer holds the largest page (bounded by PQ_CODEC_MAX_BYTES). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_scan.h"
#include "filter/prune.h"
#include "format/codec.h"
#include "runtime/exec.h"
#include "scan/pqfile.h"

typedef struct bench_page {
    const uint8_t *src;
    uint32_t src_len, dst_len;
    int codec;
} bench_page;

/* Reads len bytes at off, counting the pread calls. 0 or a negative errno. */
static int read_counted(int fd, uint64_t off, uint8_t *buf, uint64_t len, uint64_t *calls)
{
    uint64_t done = 0;
    for (int tries = 0; done < len && tries < 1000000; tries++) {
        uint64_t chunk = len - done > EXEC_READ_BYTES_MAX ? EXEC_READ_BYTES_MAX : len - done;
        ssize_t r = pread(fd, buf + done, (size_t)chunk, (off_t)(off + done));
        (*calls)++;
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r < 0 ? -errno : -EIO;
        done += (uint64_t)r;
    }
    return done == len ? 0 : -EIO;
}

static int add_page(bench_floor *fl, const uint8_t *src, int64_t src_len, int64_t dst_len,
                    int codec, pq_err *e)
{
    if (src_len < 0 || dst_len < 0 || (size_t)dst_len > PQ_CODEC_MAX_BYTES)
        return pq_errf(e, RINGSCAN_EFORMAT, -1, "bad page sizes");
    if (fl->npg % 1024 == 0) {
        bench_page *p = realloc(fl->pg, (size_t)(fl->npg + 1024) * sizeof *p);
        if (!p) return -ENOMEM;
        fl->pg = p;
    }
    fl->pg[fl->npg++] = (bench_page){src, (uint32_t)src_len, (uint32_t)dst_len, codec};
    if (dst_len > fl->max_page) fl->max_page = dst_len;
    fl->bytes_compressed += (uint64_t)src_len;
    fl->bytes_uncompressed += (uint64_t)dst_len;
    fl->pages++;
    return 0;
}

/* Splits one chunk buffer into pages. */
static int walk_pages(bench_floor *fl, const uint8_t *buf, uint64_t len, int codec, pq_err *e)
{
    uint64_t pos = 0;
    for (int n = 0; pos < len && n < (1 << 24); n++) {
        pq_page_header h;
        int hl = pq_page_header_parse(buf + pos, len - pos, &h, e);
        if (hl < 0) return hl;
        uint64_t body = pos + (uint64_t)hl;
        if (body + (uint64_t)h.compressed_size > len)
            return pq_errf(e, RINGSCAN_EFORMAT, (int64_t)pos, "page past its chunk");
        int rc = 0;
        if (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DICTIONARY) {
            rc = add_page(fl, buf + body, h.compressed_size, h.uncompressed_size, codec, e);
        } else if (h.type == PQ_PAGE_DATA_V2) {
            int64_t lv = (int64_t)h.def_levels_byte_length + h.rep_levels_byte_length;
            rc = add_page(fl, buf + body + lv, h.compressed_size - lv, h.uncompressed_size - lv,
                          h.is_compressed ? codec : PQ_CODEC_UNCOMPRESSED, e);
        }
        if (rc) return rc;
        pos = body + (uint64_t)h.compressed_size;
    }
    return 0;
}

/* True when the statistics of row group rg prove no row passes ex. */
static bool rg_pruned(const pq_file_meta *m, int rg, const flt_expr *ex)
{
    for (int p = 0; p < ex->npreds; p++) {
        const pq_chunk_meta *cm = &m->row_groups[rg].chunks[ex->preds[p].column];
        if (flt_prune_stats(&ex->preds[p], pq_chunk_stats(cm), cm->num_values) == FLT_CANNOT_MATCH)
            return true;
    }
    return false;
}

/* Loads column col of row group rg. */
static int load_chunk(bench_floor *fl, pqf_t *f, int rg, int col, pq_err *e)
{
    const pq_chunk_meta *cm = &f->meta.row_groups[rg].chunks[col];
    uint64_t off, len;
    int rc = pq_chunk_range(cm, f->file->size_bytes, &off, &len, e);
    if (rc) return rc;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return -ENOMEM;
    if (fl->nbufs % 256 == 0) {
        uint8_t **b = realloc(fl->bufs, (size_t)(fl->nbufs + 256) * sizeof *b);
        if (!b) return free(buf), -ENOMEM;
        fl->bufs = b;
    }
    fl->bufs[fl->nbufs++] = buf;
    rc = read_counted(f->file->fd, off, buf, len, &fl->reads);
    if (rc) return pq_errf(e, rc, (int64_t)off, "read failed");
    fl->chunks++;
    fl->codec = cm->codec;
    return walk_pages(fl, buf, len, cm->codec, e);
}

int bench_floor_load(const char *path, const bench_shape *sh, int rounds, bench_floor *fl,
                     pq_err *e)
{
    memset(fl, 0, sizeof *fl);
    fl->ms = calloc(2 * (size_t)rounds, sizeof *fl->ms);
    if (!fl->ms) return -ENOMEM;
    fl->cpu_ms = fl->ms + rounds;
    fl->on = true;
    pqf_t *f = NULL;
    flt_expr *ex = NULL;
    int rc = pqf_open(&f, path, NULL, e);
    if (rc) return rc;
    fl->reads += (uint64_t)f->tail_reads;
    rc = flt_parse(sh->where, f->meta.columns, f->meta.ncolumns, &ex, e);
    if (rc == 0) rc = pqf_stats_expr(f, ex, e);
    bool need[LINEITEM_COLS_MAX + 1] = {0};
    for (int i = 0; rc == 0 && i < sh->nproj; i++) {
        int c = pq_file_meta_find_column(&f->meta, lineitem_columns[sh->proj[i]].name);
        if (c < 0 || c > LINEITEM_COLS_MAX) rc = pq_errf(e, RINGSCAN_EFORMAT, -1, "no column");
        else need[c] = true;
    }
    for (int p = 0; rc == 0 && p < ex->npreds; p++)
        if (ex->preds[p].column <= LINEITEM_COLS_MAX) need[ex->preds[p].column] = true;
    fl->row_groups = rc == 0 ? f->meta.nrow_groups : 0;
    for (int rg = 0; rc == 0 && rg < f->meta.nrow_groups; rg++) {
        if (rg_pruned(&f->meta, rg, ex)) {
            fl->row_groups_pruned++;
            continue;
        }
        for (int col = 0; rc == 0 && col < f->meta.ncolumns && col <= LINEITEM_COLS_MAX; col++)
            if (need[col]) rc = load_chunk(fl, f, rg, col, e);
    }
    if (rc == 0 && fl->max_page > 0 && !(fl->scratch = malloc((size_t)fl->max_page))) rc = -ENOMEM;
    flt_expr_free(ex);
    pqf_close(f);
    return rc;
}

double bench_floor_time(bench_floor *fl, double *cpu_ms, pq_err *e)
{
    double t0 = bench_now_ms();
    uint64_t c0 = exec_thread_cpu_ns();
    for (int64_t i = 0; i < fl->npg; i++) {
        const bench_page *p = &fl->pg[i];
        int rc = pq_decompress(p->codec, p->src, p->src_len, fl->scratch, p->dst_len, e);
        if (rc) return -1;
    }
    *cpu_ms = (double)(exec_thread_cpu_ns() - c0) / 1e6;
    return bench_now_ms() - t0;
}

void bench_floor_free(bench_floor *fl)
{
    for (int i = 0; i < fl->nbufs; i++) free(fl->bufs[i]);
    free(fl->bufs);
    free(fl->pg);
    free(fl->scratch);
    fl->bufs = NULL;
    fl->pg = NULL;
    fl->scratch = NULL;
    fl->nbufs = 0;
    fl->npg = 0;
}
