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
 * later fut_resolve by the producer is then impossible. So a producer keeps a plain,
 * uncounted pointer to the future it will complete (a counted one would keep it alive and
 * cancellation could never happen) and forgets that pointer in its cancel hook; the hook must
 * not touch the future. Combinators hold
 * references to their inputs and release them when done or cancelled, so cancellation flows
 * from a dropped output back to the reads behind it.
 *
 * Want and cancel work lists: want hooks reached through combinators and cancel hooks
 * reached through dropped references run from a thread-local work list, never recursively,
 * so a then-chain 100,000 long is wanted and cancelled in bounded stack. Hooks are cleared
 * when the future completes: a want hook never runs for a complete future.
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

/* FUT_WAITERS_MAX bounds waiters per future, FUT_INPUTS_MAX the inputs of fut_all/fut_any
 * (more aborts). */
enum { FUT_PENDING = 1, FUT_MSG_MAX = 256, FUT_WAITERS_MAX = 1 << 20, FUT_INPUTS_MAX = 1 << 20 };

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

/* Combinators; each returns a new future (one reference to the caller) or NULL on ENOMEM.
 * then: when src resolves, fn(value, ctx, &out) returns a status; on 0 the output resolves
 *       with out (freed by out_free); on < 0 or when src fails, the output fails likewise.
 *       A failing fn gets the message "fut_then: function failed with status N"; a failed
 *       src passes its own status and message through.
 * all:  resolves (value NULL) when every input resolved; fails with the first failure (its
 *       status and message) and then releases the other inputs. n == 0 resolves at once.
 * any:  resolves when the first input is ready (resolved or failed: check that input's
 *       status); its value is (void *)(uintptr_t)index. It then releases the other inputs.
 *       n == 0 fails with -EINVAL.
 * Readiness is observed from the ready queue, so "first" is the order in which inputs were
 * completed. Inputs are wanted only when the output is wanted. */
typedef int (*fut_then_fn)(void *value, void *ctx, void **out);
fut_t *fut_then(fut_t *src, fut_then_fn fn, void *ctx, fut_free_fn out_free);
fut_t *fut_all(fut_t *const *inputs, size_t n);
fut_t *fut_any(fut_t *const *inputs, size_t n);

/* Live future count on this thread (tests assert no leaks with it). */
int64_t fut_live_count(void);

#endif
