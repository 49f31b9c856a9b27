/* scan/task_nwin.c: a nested leaf's column chunk read in windows. A nested slot one of whose
 * leaves' chunks is over scan_nest_window_bytes has its pieces windowed (plan_nested.c):
 * nothing is read up front, and its split decodes its rows through each leaf's stream
 * (format/nest_stream.c), which decodes the pages wholly inside the window it is given and
 * asks (PQ_NEST_NEED) for the bytes of the next page when the window ends first. This file
 * answers by reading a window of the chunk from that page on (the larger of the window size
 * and what the stream asked, within the chunk) with io_read on the core's context, awaited:
 * counted in --stats and in the fetch budget's held bytes by io/ as every read is. Other
 * slots' pieces hold their whole chunk (the one window their streams get). Chosen over one
 * read of the whole chunk: pyarrow's default row group of a list<float32> of 600 held a
 * 2.4 GB chunk, which a --limit 2 read whole and a full scan held about three times over.
 *
 * Invariants:
 *  1. The core holds at most one window per leaf of a nested slot (the one its stream
 *     reads in, kept across the splits the core runs so the next split goes on in it),
 *     released before the next one is read and once the stream reaches its chunk's end, and
 *     every one at the core's end (scan_task_core_windows_free, before its io context goes).
 *  2. A task awaiting a window holds the slot's gate (made before its first await): the
 *     core's other tasks wait on it before touching the slot's reader, streams or kept
 *     leaves (task_nest_enter), and it is resolved when the holder's decode ends. Decoding
 *     that reads no window never yields and takes no gate.
 *  3. Every window given to a stream holds the bytes it asked for, so each call after a
 *     PQ_NEST_NEED decodes a page or grows the window (nest_stream.c invariant 6): the loop
 *     ends within the chunk's pages and growths. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "common/fail.h"
#include "format/column_nested.h"
#include "scan/task.h"

typedef struct task_nwin {
    fut_t *f;          /* the read, NULL when none is held */
    uint64_t file_off; /* its chunk's offset */
    uint64_t off;      /* its first byte's offset in the chunk */
    io_bytes b;        /* its bytes (valid while f is held) */
} task_nwin;

typedef struct task_nslot {
    fut_t *gate;       /* invariant 2: NULL, or pending from a task's first window read
                          until its decode of the slot ends */
    int n;             /* leaves (wins), 0 until the slot first reads a window */
    task_nwin *wins;
} task_nslot;

static void win_drop(task_nwin *w)
{
    if (w->f) fut_unref(w->f);
    *w = (task_nwin){0};
}

/* Slot's state on the core, made on first use (n leaves); NULL on -ENOMEM. */
static task_nslot *nslot_of(scan_task *x, int slot, int n)
{
    scan_task_core *tc = x->tc;
    if (!tc->nslots) tc->nslots = fail_calloc((size_t)x->plan->nneed, sizeof *tc->nslots);
    if (!tc->nslots) return NULL;
    task_nslot *ns = &tc->nslots[slot];
    if (n > 0 && !ns->wins) {
        ns->wins = fail_calloc((size_t)n, sizeof *ns->wins);
        if (!ns->wins) return NULL;
        ns->n = n;
    }
    assert(n <= ns->n);
    return ns;
}

int task_nest_enter(scan_task *x, int slot)
{
    task_nslot *ns = x->tc->nslots ? &x->tc->nslots[slot] : NULL;
    /* bounded: each round another of the core's SCAN_TASKS_PER_CORE tasks held the gate */
    while (ns && ns->gate) {
        fut_t *g = fut_ref(ns->gate);
        int rc = task_await(x, g);
        fut_unref(g);
        if (rc) return rc;
    }
    return 0;
}

void task_nest_leave(scan_task *x, int slot)
{
    task_nslot *ns = x->tc->nslots ? &x->tc->nslots[slot] : NULL;
    if (!ns || !ns->gate) return; /* (invariant 2: a gate up now is this task's) */
    fut_t *g = ns->gate;
    ns->gate = NULL;
    fut_resolve(g, NULL, NULL);
    fut_unref(g);
}

/* Reads chunk bytes [a, +n) of piece pc (at least; a window's worth when more is left) into
 * w, the leaf's window, awaited under the slot's gate. 0 or the read's status with x->err
 * naming its offset and the column. */
static int win_read(scan_task *x, task_nslot *ns, task_nwin *w, const scan_piece *pc,
                    const char *col, uint64_t a, uint64_t n)
{
    assert(a < pc->chunk_len && n > 0 && n <= pc->chunk_len - a);
    uint64_t rest = pc->chunk_len - a, len = scan_nest_window_bytes();
    len = n > len ? n : len;
    len = len < rest ? len : rest;
    win_drop(w); /* invariant 1: the one before goes first */
    if (!ns->gate && !(ns->gate = fut_new())) return -ENOMEM;
    fut_t *f = io_read(task_io(x), x->plan->f->file, pc->off + a, len);
    if (!f) return -ENOMEM;
    int rc = task_await(x, f);
    if (rc) {
        rc = pq_errf_col(&x->err, rc, (int64_t)(pc->off + a), col, "%s", fut_message(f));
        fut_unref(f);
        return rc;
    }
    *w = (task_nwin){.f = f, .file_off = pc->off, .off = a, .b = *(const io_bytes *)fut_value(f)};
    assert(w->b.len == len); /* (io_read: exactly len bytes, or it fails) */
    return 0;
}

/* The window v of piece pc's chunk from bytes b at chunk offset off. */
static pq_nest_win win_of(const scan_piece *pc, io_bytes b, uint64_t off)
{
    uint64_t len = b.len < pc->chunk_len - off ? b.len : pc->chunk_len - off;
    return (pq_nest_win){.data = b.data, .off = off, .len = (size_t)len,
                         .chunk_len = pc->chunk_len, .file_off = (int64_t)pc->off};
}

static bool win_holds(const pq_nest_win *v, uint64_t a, uint64_t n)
{
    return a >= v->off && a - v->off <= v->len && n <= v->len - (a - v->off);
}

int task_nest_rows(scan_task *x, int slot, int i, pq_col_reader *ri, pq_nest_stream *s,
                   const scan_piece *pc, io_bytes first, int64_t lo, int64_t hi, bool to_end,
                   pq_nest_leaf *l)
{
    assert(pc->whole_chunk && (pc->windowed ? first.len == 0 : pc->len == pc->chunk_len));
    const int n = x->sp->cols[slot].npieces;
    pq_nest_win head = win_of(pc, first, 0), v = head;
    task_nslot *ns = x->tc->nslots ? &x->tc->nslots[slot] : NULL;
    task_nwin *w = ns && ns->wins ? &ns->wins[i] : NULL;
    if (w && w->f && w->file_off == pc->off) v = win_of(pc, w->b, w->off); /* (invariant 1) */
    for (;;) { /* invariant 3 */
        int rc = pq_nest_leaf_rows(ri, s, x->sp->rg, &v, lo, hi, to_end, l, &x->err);
        if (rc != PQ_NEST_NEED) {
            if (w && s->rg < 0) win_drop(w); /* the chunk's end, or an error */
            return rc;
        }
        uint64_t a = s->need_off, need = s->need_len;
        assert(!win_holds(&head, a, need)); /* (a whole chunk's stream never asks) */
        if (!w) {
            if (!(ns = nslot_of(x, slot, n))) return -ENOMEM;
            w = &ns->wins[i];
        }
        rc = win_read(x, ns, w, pc, ri->col->name, a, need);
        if (rc) return rc;
        v = win_of(pc, w->b, w->off);
        assert(win_holds(&v, a, need));
    }
}

void scan_task_core_windows_free(scan_task_core *tc, int nneed)
{
    for (int k = 0; tc->nslots && k < nneed; k++) {
        task_nslot *ns = &tc->nslots[k];
        if (ns->gate) { /* (no task is left decoding on the core: none waits on it) */
            fut_resolve(ns->gate, NULL, NULL);
            fut_unref(ns->gate);
        }
        for (int i = 0; i < ns->n; i++) win_drop(&ns->wins[i]);
        free(ns->wins);
    }
    free(tc->nslots);
    tc->nslots = NULL;
}
