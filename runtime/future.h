/* runtime/future.h: one-shot, reference-counted futures, single-threaded (one core).
 *
 * A future is pending, then exactly once either resolved with a value or failed with a
 * negative status and a message. Any number of waiters: coroutines (fut_await suspends
 * them) and callbacks (fut_on_ready). Waiters run from the scheduler's ready queue, never
 * recursively inside fut_resolve, so long chains use bounded stack.
 *
 * Demand ("want"): a producer may attach a want hook. It is called once, the first time the
 * future is wanted: fut_want(), fut_await() and fut_on_ready() want it, and combinators
 * (then/all/any) want their inputs when they are wanted themselves. This is how a read that is
 * only registered becomes a read that is submitted (lazy submission), while an eager policy
 * calls fut_want() at construction.
 *
 * Cancellation: when the last reference to a still-pending future is released, its cancel
 * hook runs (the producer drops or cancels the work behind it) and the future is freed; a
 * later fut_resolve by the producer is then impossible, so a producer holding the future
 * must keep its own reference and drop it in the cancel hook's path. Combinators hold
 * references to their inputs and release them when done or cancelled, so cancellation flows
 * from a dropped output back to the reads behind it.
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

enum { FUT_PENDING = 1, FUT_MSG_MAX = 256 };

/* A new pending future with one reference owned by the caller, or NULL on ENOMEM. */
fut_t *fut_new(void);
/* Adds a reference; returns f. */
fut_t *fut_ref(fut_t *f);
/* Drops a reference. Last one on a pending future: want/cancel hooks done, cancel hook runs. */
void fut_unref(fut_t *f);

/* Producer side. Hooks are set once, before the future is shared. */
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
/* Wants f; cb(f, ctx) runs from the ready queue once f is ready (also when already ready). */
int fut_on_ready(fut_t *f, fut_cb cb, void *ctx);

/* Combinators; each returns a new future (one reference to the caller) or NULL on ENOMEM.
 * then: when src resolves, fn(value, ctx, &out) returns a status; on 0 the output resolves
 *       with out (freed by out_free); on < 0 or when src fails, the output fails likewise.
 * all:  resolves (value NULL) when every input resolved; fails with the first failure.
 * any:  resolves when the first input is ready; its value is (void *)(uintptr_t)index. */
typedef int (*fut_then_fn)(void *value, void *ctx, void **out);
fut_t *fut_then(fut_t *src, fut_then_fn fn, void *ctx, fut_free_fn out_free);
fut_t *fut_all(fut_t *const *inputs, size_t n);
fut_t *fut_any(fut_t *const *inputs, size_t n);

/* Live future count on this thread (tests assert no leaks with it). */
int64_t fut_live_count(void);

#endif
