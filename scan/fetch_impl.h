/* scan/fetch_impl.h: what the files of the fetch floor share (fetch_unit.c below lend.c below
 * fetch.c). */
#ifndef RINGSCAN_SCAN_FETCH_IMPL_H
#define RINGSCAN_SCAN_FETCH_IMPL_H
#include "scan/fetch.h"

static inline uint64_t span_pack(int next, int end)
{
    return (uint64_t)(uint32_t)next | (uint64_t)(uint32_t)end << 32;
}
static inline int span_next(uint64_t v) { return (int)(uint32_t)v; }
static inline int span_end(uint64_t v) { return (int)(uint32_t)(v >> 32); }

/* Unpruned splits in [from, to). */
int fetch_live_in(const scan_fetch *fx, int from, int to);
/* The unpruned splits of [from, to) a thief may take: none of a cut row group whose splits
 * decode a nested slot (plan_cut.c cuts one only when too large for one split) unless every
 * leaf of it has its chunk's offset index (scan_piece.oi): its owner's splits decode each
 * page once through the core's streams, and a thief's start at their first row's page
 * (format/nest_stream.c invariant 7); without the index a thief's would decode the leaves
 * again from the chunk's start, so two cores took longer than one and twice the memory on a
 * 2.4 GB group. Other row groups still go to the other cores. */
int fetch_stealable_in(const scan_fetch *fx, int from, int to);
/* Fills unit slot ui with splits [first, end), owned by owner (-1: not claimed yet), stolen
 * from unit src (-1: planned); the span is stored last (release), so a core scanning for a
 * unit to steal from never sees a half-made one with splits left. 0 or -ENOMEM. */
int fetch_unit_init(scan_fetch *fx, int ui, int first, int end, int owner, int src);

/* Lends a core may have out at once (the rest read for themselves). */
int scan_lends_max(const scan_fetch *fx);
/* Posts fn(ctx) to core: 0 or -ESHUTDOWN (the core is stopping). A full inbox is a broken
 * accounting (SCAN_INBOX_CAP) and aborts. */
int fetch_try_post(scan_fetch *fx, int core, sched_fn fn, void *ctx);
/* A post the lend protocol keeps both executors running for (lend.c header): cannot fail. */
void fetch_post(scan_fetch *fx, int core, sched_fn fn, void *ctx);
/* Sets u's range of slot k to cover the pieces splits [from, to) register for it. */
void fetch_unit_range(scan_fetch *fx, scan_unit *u, int k, int from, int to);
/* Reads u's range of slot k on core (u planned, not stolen): its request. NULL on -ENOMEM. */
fut_t *fetch_unit_read(scan_fetch *fx, int core, scan_unit *u, int k);
/* For a lend of [off, +len) of slot k: the unit's request of slot k, made now when there is
 * none yet, covering its own splits and that range too (when the two lie within the io gap of
 * each other), so one read serves the owner and the thief. NULL when there is none and none
 * can be made (a stolen unit, the core's end, ranges apart, -ENOMEM). Owner only. */
fut_t *fetch_unit_fut_cover(scan_fetch *fx, int unit, int k, uint64_t off, uint64_t len);

#endif
