/* scan/plan_nested.c: planning a nested slot (format/column_nested.h): which schema node its
 * packed rows hold (plan.h slot_node), and its pieces: one whole chunk per leaf under the
 * node, also in a split of a cut row group (plan_cut.c cuts a group with a nested slot
 * evenly, or at its first leaf's page starts; the split decodes its rows from the chunks,
 * task_nested.c). A slot with a leaf's chunk over scan_nest_window_bytes reads its chunks in
 * windows as the split's rows need them (scan_piece.windowed, task_nwin.c). A cut group's
 * nested leaves' offset indexes (plan_index.c loads none for pruning: no filter reads a
 * nested leaf) are read here when every one has one, and kept with the pieces
 * (scan_piece.oi): a split then starts at its first row's page, so another core may run it
 * (format/nest_stream.c invariant 7, fetch_unit.c fetch_stealable_in). */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/plan_impl.h"

/* The node projection j of column col reads: the one named, else its field (-1: flat). */
static int32_t proj_node(const pq_file_meta *m, int col, const int32_t *nodes, int nnodes, int j)
{
    if (nodes && j < nnodes && nodes[j] >= 0) return nodes[j];
    return m->columns[col].nested ? pq_nest_field_of(m, col) : -1;
}

int plan_proj_slot(scan_plan *p, const int *proj, const int32_t *nodes, int nnodes, int j,
                   int *slot_of)
{
    const pq_file_meta *m = &p->f->meta;
    int col = proj[j];
    if (slot_of[col] >= 0 && !m->columns[col].nested) return slot_of[col];
    if (slot_of[col] >= 0) { /* "s" and "s.a" start at one leaf: a slot per node (O(j): */
        int32_t node = proj_node(m, col, nodes, nnodes, j); /* nested columns only) */
        for (int i = 0; i < j; i++)
            if (proj[i] == col && proj_node(m, col, nodes, nnodes, i) == node) return p->proj_slot[i];
    }
    int s = p->nneed++;
    p->need[s] = col;
    if (slot_of[col] < 0) slot_of[col] = s;
    return s;
}

int plan_proj_first(scan_plan *p)
{
    int *first_of = fail_malloc(sizeof(int) * (size_t)(p->nneed + 1)); /* by slot */
    p->proj_first = fail_malloc(sizeof(int) * (size_t)(p->nproj + 1));
    if (!first_of || !p->proj_first) {
        free(first_of);
        return -ENOMEM;
    }
    for (int k = 0; k < p->nneed; k++) first_of[k] = -1;
    for (int j = 0; j < p->nproj; j++) {
        int k = p->proj_slot[j];
        assert(k >= 0 && k < p->nneed);
        if (first_of[k] < 0) first_of[k] = j;
        p->proj_first[j] = first_of[k];
    }
    free(first_of);
    return 0;
}

/* p->slot_node from o->proj_nodes (plan.h; nodes[0 .. nnodes), the caller's projections): a
 * nested slot holds its top-level field unless a projection names a node; projections of
 * one leaf naming different nodes have slots of their own (plan_proj_slot). */
int plan_choose_nodes(scan_plan *p, const int32_t *nodes, int nnodes)
{
    const pq_file_meta *m = &p->f->meta;
    p->slot_node = fail_malloc(sizeof(int32_t) * (size_t)(p->nneed + 1));
    if (!p->slot_node) return -ENOMEM;
    for (int i = 0; i < p->nneed; i++)
        p->slot_node[i] = m->columns[p->need[i]].nested ? pq_nest_field_of(m, p->need[i]) : -1;
    assert(!nodes || nnodes <= p->nproj);
    for (int j = 0; nodes && j < nnodes; j++) {
        int k = p->proj_slot[j];
        if (nodes[j] < 0 || nodes[j] == p->slot_node[k]) continue;
        for (int i = 0; i < j; i++) /* (plan_proj_slot) */
            assert(p->proj_slot[i] != k || nodes[i] < 0 || nodes[i] == nodes[j]);
        p->slot_node[k] = nodes[j];
    }
    return 0;
}

enum { NEST_WINDOW_BYTES = 64 << 20 };
static uint64_t nest_window_bytes = NEST_WINDOW_BYTES;
static pthread_once_t nest_window_once = PTHREAD_ONCE_INIT;

static void nest_window_read(void)
{
    const char *v = getenv("RINGSCAN_TEST_NEST_WINDOW_BYTES");
    long long n = v ? strtoll(v, NULL, 10) : 0;
    if (n > 0) nest_window_bytes = (uint64_t)n;
}

uint64_t scan_nest_window_bytes(void)
{
    pthread_once(&nest_window_once, nest_window_read);
    assert(nest_window_bytes > 0);
    return nest_window_bytes;
}

/* The largest offset index of one nested leaf's chunk read (a chunk of 2.4 GB in pages of
 * 1 MiB has about 30 KB of it): a longer one counts as absent. */
enum { NEST_INDEX_MAX_BYTES = 64 << 20 };

/* The kept offset index of leaf col in row group rg, or NULL. */
static const pq_offset_index *nest_index_of(const scan_plan *p, int rg, int col)
{
    for (int i = 0; i < p->nnest_index; i++)
        if (p->nest_index[i]->rg == rg && p->nest_index[i]->col == col) return &p->nest_index[i]->oi;
    return NULL;
}

/* Reads, parses and checks leaf col's offset index in rg into a new entry of p->nest_index:
 * 1 kept, 0 when the chunk has none usable (absent, too long, not parsing, not fitting the
 * chunk: never trusted), or -ENOMEM or a read's status (e filled). */
static int nest_index_add(plan_build *b, int rg, int col, pq_err *e)
{
    scan_plan *p = b->p;
    const pq_chunk_meta *cm = &p->f->meta.row_groups[rg].chunks[col];
    uint64_t size = p->f->file->size_bytes, off, len;
    if (!cm->has_offset_index || cm->offset_index_length <= 0 ||
        cm->offset_index_length > NEST_INDEX_MAX_BYTES || cm->offset_index_offset < 0 ||
        (uint64_t)cm->offset_index_offset > size ||
        (uint64_t)cm->offset_index_length > size - (uint64_t)cm->offset_index_offset ||
        pq_chunk_range(cm, size, &off, &len, NULL) != 0)
        return 0;
    if (p->nnest_index == p->nest_index_cap) {
        int cap = p->nest_index_cap ? 2 * p->nest_index_cap : 8;
        scan_nest_index **n = fail_realloc(p->nest_index, sizeof *n * (size_t)cap);
        if (!n) return -ENOMEM;
        p->nest_index = n, p->nest_index_cap = cap;
    }
    scan_nest_index *x = fail_calloc(1, sizeof *x);
    uint8_t *buf = fail_malloc((size_t)cm->offset_index_length);
    int rc = x && buf ? 0 : -ENOMEM;
    if (rc == 0) rc = plan_read(b, (uint64_t)cm->offset_index_offset, buf,
                                (size_t)cm->offset_index_length, e);
    pq_err quiet = {.offset = -1};
    int parsed = rc == 0 ? pq_offset_index_parse(buf, (size_t)cm->offset_index_length, &x->oi,
                                                 &quiet) : -1;
    free(buf);
    if (parsed == -ENOMEM) rc = -ENOMEM;
    bool ok = rc == 0 && parsed == 0 &&
              pq_offset_index_valid(&x->oi, p->f->meta.row_groups[rg].num_rows, off, len);
    if (parsed == 0 && !ok) pq_offset_index_free(&x->oi);
    if (!ok) {
        free(x);
        return rc;
    }
    x->rg = rg, x->col = col;
    p->nest_index[p->nnest_index++] = x;
    return 1;
}

int plan_nest_index(plan_build *b, int rg, pq_err *e)
{
    scan_plan *p = b->p;
    const pq_file_meta *m = &p->f->meta;
    if (!b->o->use_page_index) return 0;
    int had = p->nnest_index, rc = 1;
    for (int k = 0; rc == 1 && k < p->nneed; k++) {
        if (p->slot_node[k] < 0) continue;
        int32_t first, n = pq_nest_leaves(m, p->slot_node[k], &first);
        for (int32_t i = 0; rc == 1 && i < n; i++)
            rc = nest_index_of(p, rg, first + i) ? 1 : nest_index_add(b, rg, first + i, e);
    }
    if (rc == 1) return 1;
    while (p->nnest_index > had) { /* (one leaf without: none is used) */
        scan_nest_index *x = p->nest_index[--p->nnest_index];
        pq_offset_index_free(&x->oi);
        free(x);
    }
    return rc;
}

void plan_nest_index_free(scan_plan *p)
{
    for (int i = 0; i < p->nnest_index; i++) {
        pq_offset_index_free(&p->nest_index[i]->oi);
        free(p->nest_index[i]);
    }
    free(p->nest_index);
    p->nest_index = NULL, p->nnest_index = p->nest_index_cap = 0;
}

const pq_offset_index *plan_nest_first_index(const scan_plan *p, int rg, int k)
{
    if (p->slot_node[k] < 0) return NULL;
    int32_t first;
    pq_nest_leaves(&p->f->meta, p->slot_node[k], &first);
    return nest_index_of(p, rg, first);
}

/* Whole-chunk pieces of slot k: its column's chunk, or for a nested node (its first leaf,
 * format/column_nested.h) one chunk per leaf under the node, in column order, every one
 * windowed (read as its stream asks, task_nwin.c) when one leaf's is over the window size:
 * a unit request or a prefetch of the others would span the large one between them. */
int plan_whole_chunks(plan_build *b, const scan_split *sp, int k, scan_colplan *cp, pq_err *e)
{
    const pq_file_meta *m = &b->p->f->meta;
    int32_t first, n = b->p->slot_node[k] >= 0 ? pq_nest_leaves(m, b->p->slot_node[k], &first) : 1;
    assert(n == 1 || first == cp->col);
    cp->pieces = fail_calloc((size_t)n, sizeof *cp->pieces);
    if (!cp->pieces) return -ENOMEM;
    bool windowed = false;
    for (int32_t i = 0; i < n; i++) {
        uint64_t off, len;
        const pq_chunk_meta *cm = &m->row_groups[sp->rg].chunks[cp->col + i];
        int rc = pq_chunk_range(cm, b->p->f->file->size_bytes, &off, &len, e);
        if (rc) {
            pq_err_column(e, m->columns[cp->col + i].name);
            return rc;
        }
        const pq_offset_index *oi = NULL; /* (a cut group's nested leaf: plan_nest_index) */
        if (b->p->slot_node[k] >= 0 && sp->nrows != m->row_groups[sp->rg].num_rows)
            oi = nest_index_of(b->p, sp->rg, cp->col + i);
        cp->pieces[i] = (scan_piece){.off = off, .len = len, .nrows = sp->nrows,
                                     .whole_chunk = true, .chunk_len = len, .oi = oi};
        windowed = windowed || (b->p->slot_node[k] >= 0 && len > scan_nest_window_bytes());
    }
    cp->npieces = n;
    uint64_t win = scan_nest_window_bytes();
    for (int32_t i = 0; windowed && i < n; i++) { /* every leaf: no unit request spans them */
        cp->pieces[i].windowed = true;
        if (cp->pieces[i].len > win) cp->pieces[i].len = win;
    }
    return 0;
}

