/* runtime/future.h: one-shot, reference-counted futures, single-threaded (one core).
 *
 * A future is pending, then exactly once either resolved with a value or failed with a
 * negative status and a message. Any number of waiters: coroutines (fut_await suspends
 * them) and callbacks (fut_on_ready). Waiters run from the scheduler's ready queue, never
 * recursively inside fut_resolve, so long chains use bounded stack.
 *
 * Demand ("want"): a producer may attach a want hook. It is called once, the first time the
 * future is wanted: fut_want(), fut_await() and fut_on_ready() want it, and a producer built on
 * other futures may want them from its own hook. This is how a read that is only registered
 * becomes a read that is submitted (lazy submission), while an eager policy calls fut_want()
 * at construction.
 *
 * Cancellation: when the last reference to a still-pending future is released, its cancel
 * hook runs (the producer drops or cancels the work behind it) and the future is freed; a
 * later fut_resolve by the producer is then impossible. So a producer keeps a plain,
 * uncounted pointer to the future it will complete (a counted one would keep it alive and
 * cancellation could never happen) and forgets that pointer in its cancel hook; the hook must
 * not touch the future. A producer built on other futures holds references to them and drops
 * them in its cancel hook, so cancellation flows from a dropped output back to the reads
 * behind it.
 *
 * Want and cancel work lists: want hooks reached from other want hooks and cancel hooks
 * reached through references dropped by other cancel hooks run from a thread-local work list,
 * never recursively, so a chain of such producers 100,000 long is wanted and cancelled in
 * bounded stack. Hooks are cleared when the future completes: a want hook never runs for a
 * complete future.
 *
 * Contract breaches (double completion, unref of a freed future, await outside a task,
 * resolve after cancellation) abort the process with a message, in every build mode.
 *
 * Values: fut_resolve takes ownership of value and frees it with free_value (may be NULL) when
 * the future is freed. Readers borrow the value while they hold a reference. */
#ifndef RINGSCAN_RUNTIME_FUTURE_H
#define RINGSCAN_RUNTIME_FUTURE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fut fut_t;
typedef void (*fut_cb)(fut_t *f, void *ctx);
typedef void (*fut_hook)(void *ctx);
typedef void (*fut_free_fn)(void *value);

/* FUT_WAITERS_MAX bounds waiters per future (more aborts). */
enum { FUT_PENDING = 1, FUT_MSG_MAX = 256, FUT_WAITERS_MAX = 1 << 20 };

/* A new pending future with one reference owned by the caller, or NULL on ENOMEM. */
fut_t *fut_new(void);
/* Adds a reference; returns f. */
fut_t *fut_ref(fut_t *f);
/* Drops a reference. Last one on a pending future: want/cancel hooks done, cancel hook runs. */
void fut_unref(fut_t *f);

/* Producer side. Hooks are set once, before the future is shared (a want hook set on a
 * future already wanted runs at once). */
void fut_set_cancel_hook(fut_t *f, fut_hook hook, void *ctx);
void fut_set_want_hook(fut_t *f, fut_hook hook, void *ctx);
void fut_resolve(fut_t *f, void *value, fut_free_fn free_value);
/* status < 0 (negative errno or RINGSCAN_E*); msg is copied (truncated to FUT_MSG_MAX). */
void fut_fail(fut_t *f, int status, const char *msg);

/* Consumer side. */
void fut_want(fut_t *f);
bool fut_is_wanted(const fut_t *f);
bool fut_is_ready(const fut_t *f);
/* FUT_PENDING, 0 when resolved, the negative status when failed. */
int fut_status(const fut_t *f);
void *fut_value(const fut_t *f);
const char *fut_message(const fut_t *f); /* "" unless failed */
/* From a coroutine: wants f, suspends until it is ready, returns fut_status(f). */
int fut_await(fut_t *f);
/* Wants f; cb(f, ctx) runs from the ready queue once f is ready (also when already ready),
 * holding a reference to f while it runs. Returns 0 or -ENOMEM. The registration holds no
 * reference: if every reference is dropped while f is pending, f is cancelled and cb never
 * runs. */
int fut_on_ready(fut_t *f, fut_cb cb, void *ctx);

/* Live future count on this thread (tests assert no leaks with it). */
int64_t fut_live_count(void);

#endif
