/* scan/plan_cut.c: where the plan cuts a kept row group into splits (plan.c plan_group asks
 * plan_cuts once it decided to read the group): at page starts from the offset index, or,
 * without one, evenly when the plan cuts for the cores (few kept groups of a local file,
 * plan.c cut_rows), every needed column flat, into pieces of at least even_cut_min_rows
 * (scan.h SCAN_EVEN_CUT_MIN_ROWS; a smaller group stays whole). The plan does no I/O, so an
 * even cut's rows are only where the split starts from: at run time the split moves its
 * window's edges to page starts of its first slot's chunk (task_pieces.c task_window), so
 * each page of that column is decoded once (a chunk of one page, as DuckDB writes them,
 * goes whole to the group's first split; the others come out empty). An evenly cut split
 * reads whole chunks: its pieces are the dictionary page and the data pages, which it walks
 * from the chunk's start with its window beginning row_lo rows in (task_decode.c), decoding
 * only the pages its rows touch;
 * its group's splits share the dictionary and their unit's one request per column (fetch.c):
 * at most one read per column and group, as uncut (though a cut group, a shared unit, joins
 * no read-ahead run across groups). A group holding a projected nested slot has no usable
 * index for pruning (plan_index.c) and stays whole unless its nested slots' footer sizes
 * need more than one split (nest_splits: a group too large for one split's packed rows
 * could not be read before); then it is cut into that many, not for split_rows or the
 * cores: at page starts of its first nested slot's first leaf when every nested leaf has an
 * offset index (plan_nested.c plan_nest_index), else evenly. Such a
 * split's nested slot reads its leaves' whole chunks (the unit's one request per slot) and
 * decodes its rows only, each page once across the splits a core runs (format/nest_stream.c);
 * with the offset indexes a split another core runs starts at its first row's page
 * (invariant 7 there), so the cores share the group (fetch_unit.c fetch_stealable_in);
 * without them it would decode from the chunk's start, and no core steals it. Its window
 * stays the plan's (task_window_moves: a flat first slot's pages would move its edges, and a
 * flat chunk of one page took the whole group into the first split). Also a split's share
 * of its chunks' uncompressed bytes (scan_plan_split_unc), which the output window's byte
 * gate scales into an estimate. Calls only plan_index.c and plan_nested.c. */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/plan_impl.h"

/* Whether every needed column is a flat one (a whole chunk's rows are its values). */
static bool plan_flat(const plan_build *b)
{
    for (int k = 0; k < b->p->nneed; k++)
        if (b->p->f->meta.columns[b->p->need[k]].nested) return false;
    return true;
}

/* Cuts of n rows into want even splits (a row group without offset indexes, cut for the
 * cores: cut_rows). Each split reads the whole chunks (one request per column for the unit,
 * fetch.c) and walks their pages from the start, decoding only the pages its rows touch; its
 * edges move to page starts of slot 0 at run time (task_window), so only a page of another
 * column straddling a moved edge is decoded by both splits. Returns want; *cuts is malloc'd. */
static int cut_even(int64_t n, int64_t want, int64_t **cuts)
{
    assert(want >= 2 && want <= n);
    *cuts = fail_malloc(sizeof(int64_t) * ((size_t)want + 1));
    if (!*cuts) return -ENOMEM;
    for (int64_t c = 0; c <= want; c++) (*cuts)[c] = n * c / want;
    return (int)want;
}

/* What a split's nested slot aims at: packed bytes and elements well under the INT32_MAX
 * an assembly and the Arrow export's int32 offsets allow (format/column_nested.h,
 * scan/arrow_nested.c invariant 2), so batches stay moderate and rows longer than the
 * footer's average still fit; and half the read window (plan.h scan_nest_window_bytes), so
 * that a full scan holds a few windows' worth: a split's decoded leaves and batch, times the
 * splits the output window holds (two per task, output.h), which the splits of one group a
 * core runs in order fill. At 256 MiB (and 64 Mi values) a 2.4 GB list<float32> group's 9
 * splits held 0.67 GB through the Arrow export and 2.9 GB under a slow consumer (CLI
 * jsonl); at 32 MiB 0.27 GB and 0.8 GB, in less time (the pages are decoded once either
 * way). RINGSCAN_TEST_NEST_SPLIT_BYTES (test only, read once) lowers both to its value, so
 * a test cuts a small file's row group as a large one's. */
enum { NEST_SPLIT_BYTES = 32 << 20, NEST_SPLIT_VALUES = 8 << 20 };
static int64_t nest_test_bytes; /* > 0: the hook's value */
static pthread_once_t nest_test_once = PTHREAD_ONCE_INIT;

/* A test hook's value: the environment variable name as a positive number, else 0. */
static int64_t test_hook(const char *name)
{
    const char *v = getenv(name);
    long long n = v ? strtoll(v, NULL, 10) : 0;
    return n > 0 ? n : 0;
}

static void nest_test_read(void)
{
    nest_test_bytes = test_hook("RINGSCAN_TEST_NEST_SPLIT_BYTES");
}

/* How many splits rg's nested slots need (1: none, or they fit one), from the footer: per
 * slot the leaves' uncompressed bytes over NEST_SPLIT_BYTES and the most level pairs of a
 * leaf over NEST_SPLIT_VALUES (the footer's counts, checked within the chunk's bytes by
 * pq_file_meta_check; a negative one counts nothing). */
static int64_t nest_splits(const plan_build *b, int rg)
{
    pthread_once(&nest_test_once, nest_test_read);
    int64_t bytes_max = nest_test_bytes ? nest_test_bytes : NEST_SPLIT_BYTES;
    int64_t values_max = nest_test_bytes ? nest_test_bytes : NEST_SPLIT_VALUES;
    const pq_file_meta *m = &b->p->f->meta;
    int64_t want = 1;
    for (int k = 0; k < b->p->nneed; k++) {
        if (!m->columns[b->p->need[k]].nested) continue;
        int32_t first, n = pq_nest_leaves(m, b->p->slot_node[k], &first);
        int64_t bytes = 0, values = 0;
        for (int32_t i = 0; i < n; i++) {
            const pq_chunk_meta *cm = &m->row_groups[rg].chunks[first + i];
            bytes += cm->total_uncompressed_size > 0 ? cm->total_uncompressed_size : 0;
            values = cm->num_values > values ? cm->num_values : values;
        }
        int64_t w = (bytes + bytes_max - 1) / bytes_max;
        int64_t wv = (values + values_max - 1) / values_max;
        w = wv > w ? wv : w;
        want = w > want ? w : want;
    }
    return want;
}

uint64_t scan_plan_split_unc(const scan_plan *p, int i)
{
    assert(i >= 0 && i < p->nsplits);
    const scan_split *sp = &p->splits[i];
    const pq_file_meta *m = &p->f->meta;
    int64_t n = m->row_groups[sp->rg].num_rows;
    if (sp->pruned || n <= 0 || sp->nrows <= 0) return 0;
    uint64_t unc = 0;
    for (int k = 0; k < p->nneed; k++) {
        int32_t first = p->need[k], nleaves = 1;
        if (p->slot_node[k] >= 0) nleaves = pq_nest_leaves(m, p->slot_node[k], &first);
        for (int32_t c = 0; c < nleaves; c++) { /* each <= PQ_MAX_CHUNK_UNCOMPRESSED_BYTES
                                                      (pq_file_meta_check) */
            int64_t u = m->row_groups[sp->rg].chunks[first + c].total_uncompressed_size;
            unc += u > 0 ? (uint64_t)u : 0;
        }
    }
    assert(sp->nrows <= n); /* plan.h invariant 3 */
    unc = (uint64_t)((unsigned __int128)unc * (uint64_t)sp->nrows / (uint64_t)n);
    return unc > (uint64_t)sp->nrows ? unc : (uint64_t)sp->nrows;
}

_Static_assert(FLT_MASK_MAX_LEN >= PQ_MAX_ROW_GROUP_ROWS, "a row group's mask fits a flt_mask");

/* Cuts of n rows into about want splits at page starts of oi (NULL: one split). Returns the
 * splits made (*cuts malloc'd) or -ENOMEM. */
static int cut_pages(int64_t n, int64_t want, const pq_offset_index *oi, int64_t **cuts)
{
    assert(want >= 1 && (want == 1 || oi));
    /* Cuts fall on distinct page starts: at most one per page, plus 0 and n. */
    int64_t ncuts = oi && oi->npages < want ? oi->npages : want;
    *cuts = fail_malloc(sizeof(int64_t) * ((size_t)ncuts + 1));
    if (!*cuts) return -ENOMEM;
    (*cuts)[0] = 0;
    int m = 0;
    for (int pg = 1, c = 1; oi && c < want; c++) { /* the first page at or past c/want of n */
        int64_t goal = n * c / want;
        while (pg < oi->npages && oi->pages[pg].first_row_index < goal) pg++;
        if (pg == oi->npages) break;
        if (oi->pages[pg].first_row_index > (*cuts)[m]) { /* < n: pq_offset_index_valid */
            assert(m + 1 < ncuts);
            (*cuts)[++m] = oi->pages[pg].first_row_index;
        }
    }
    assert(m < ncuts);
    (*cuts)[++m] = n;
    return m;
}

/* A group cut for its nested slots' size (nest splits wanted): at page starts of the first
 * nested slot's first leaf when every nested leaf's offset index is kept (plan_nest_index;
 * each split then starts at its page, format/nest_stream.c invariant 7, and no page of that
 * leaf is decoded by two splits), else evenly (the task keeps the window of a plan with a
 * nested slot: task_window_moves). Returns the splits or a negative status. */
static int cut_nested(plan_build *b, int rg, int64_t n, int64_t nest, int64_t **cuts, pq_err *e)
{
    int rc = plan_nest_index(b, rg, e);
    if (rc < 0) return rc;
    int k = 0; /* the first nested slot (a flat one may come first: --columns id,emb) */
    while (b->p->slot_node[k] < 0) k++; /* (one is: the plan is not flat) */
    const pq_offset_index *oi = rc == 1 ? plan_nest_first_index(b->p, rg, k) : NULL;
    if (oi && oi->npages > 1) return cut_pages(n, nest, oi, cuts);
    return cut_even(n, nest < n ? nest : n, cuts);
}

/* RINGSCAN_TEST_EVEN_CUT_MIN_ROWS (test only, read once): the even cut's floor in place of
 * scan_opts.even_cut_min_rows, so a CLI test cuts a small file's groups as a large one's. */
static int64_t even_test_rows; /* > 0: the hook's value */
static pthread_once_t even_test_once = PTHREAD_ONCE_INIT;

static void even_test_read(void)
{
    even_test_rows = test_hook("RINGSCAN_TEST_EVEN_CUT_MIN_ROWS");
}

int plan_cuts(plan_build *b, plan_index *x, int rg, int64_t **cuts, pq_err *e)
{
    int64_t n = b->p->f->meta.row_groups[rg].num_rows, target = b->cut_rows;
    assert(n >= 0 && n <= PQ_MAX_ROW_GROUP_ROWS); /* pq_file_meta_check */
    int64_t want = target > 0 && n / 2 >= target ? (n - 1) / target + 1 : 1;
    int indexed = 0;
    for (int k = 0; k < b->p->nneed; k++) indexed += plan_usable_oi(b, x, rg, k) != NULL;
    if (want > 1 && indexed == 0 && target < b->o->split_rows && plan_flat(b)) {
        /* pieces of at least even_cut_min_rows, else whole (scan.h SCAN_EVEN_CUT_MIN_ROWS) */
        pthread_once(&even_test_once, even_test_read);
        int64_t floor = even_test_rows ? even_test_rows : b->o->even_cut_min_rows;
        floor = floor > 1 ? floor : 1;
        int64_t most = n / floor;
        if (most >= 2) return cut_even(n, want < most ? want : most, cuts);
        want = 1;
    }
    /* a nested slot: cut only as its footer size needs; a group that fits one split stays
     * whole (a split another core runs needs its leaves' offset indexes, plan_nest_index) */
    int64_t nest = plan_flat(b) || n < 2 ? 1 : nest_splits(b, rg); /* (a row is not cut) */
    if (nest > 1) return cut_nested(b, rg, n, nest, cuts, e);
    if (indexed < b->p->nneed) want = 1;
    return cut_pages(n, want, want > 1 ? plan_usable_oi(b, x, rg, 0) : NULL, cuts);
}

int plan_pieces_cut_chunk(const scan_split *sp, const pq_chunk_meta *cm, scan_colplan *cp)
{
    assert(cp->npieces == 1 && cp->pieces[0].whole_chunk);
    scan_piece whole = cp->pieces[0];
    whole.first_row = -sp->row_lo;
    cp->pieces[0] = whole;
    int64_t data = cm->data_page_offset, end = (int64_t)(whole.off + whole.len);
    if (!cm->has_dictionary_page_offset || cm->dictionary_page_offset != (int64_t)whole.off ||
        data <= (int64_t)whole.off || data >= end)
        return 0; /* no dictionary page ahead of the data: the walk decodes what it finds */
    scan_piece *two = fail_realloc(cp->pieces, 2 * sizeof *two);
    if (!two) return -ENOMEM;
    cp->pieces = two;
    two[0] = (scan_piece){.off = whole.off, .len = (uint64_t)data - whole.off, .dict = true};
    two[1] = whole;
    two[1].off = (uint64_t)data, two[1].len = (uint64_t)(end - data);
    cp->npieces = 2;
    return 0;
}
