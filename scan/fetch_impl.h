/* scan/fetch_impl.h: what the files of the fetch floor share (fetch_unit.c below lend.c below
 * fetch_steal.c below fetch.c). */
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

/* Takes the next split of unit u for its owner, or -1 when it has none left. */
int fetch_take(scan_unit *u);
/* Whether pacing holds the cores to one split at a time (invariant 6). */
bool fetch_paced(const scan_fetch *fx);
/* Steals the later half of the unstarted live splits of a unit owned by another core: with
 * below INT64_MAX the one with the most left, else the one holding ordered output's window
 * back (its next unstarted split the lowest before below; none when that half would start at
 * or past below: fetch.c invariant 8). They become unit *out owned by core. Returns the first
 * stolen split, -1, or -ENOMEM. */
int fetch_steal(scan_fetch *fx, int core, int64_t below, int *out);
/* Steals the later half of the unstarted units of another core's run (the core with the most
 * of them): each becomes a unit of core's, whose columns that core lends from the reads it
 * registered for the run (lend.c), so the run stays one read however the work ends up split.
 * They become c's run: 0, or -1 when there is none, or -ENOMEM. Only planned units are
 * stolen whole, once each (their span is emptied), so the units made stay within units_cap
 * (scan_units_plan: each new unit's first split is a planned unit's first or, for a split
 * steal, one no other unit starts at). */
int fetch_steal_run(scan_fetch *fx, int core);
/* The split core would take next without stealing: its unit's next, its run's, or the next
 * planned unit's first; INT32_MAX when none is left. An estimate (other cores move spans). */
int fetch_next_own(const scan_fetch *fx, int core);

#endif
