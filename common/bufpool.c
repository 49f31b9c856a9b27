/* common/bufpool.c: large decode buffers recycled between threads (see bufpool.h). */
#include "common/bufpool.h"

#include "common/fail.h"

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#if defined(RINGSCAN_ASAN) || defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifdef POOL_ASAN /* an idle block is poisoned past its link: a use after its give still shows */
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define POISON(p, n) __asan_poison_memory_region(p, n)
#define UNPOISON(p, n) __asan_unpoison_memory_region(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define NCLASS 13 /* 64 KiB .. 256 MiB */
_Static_assert(BUFPOOL_MIN << (NCLASS - 1) == BUFPOOL_MAX, "one class per power of two");

typedef struct idle_block {
    struct idle_block *next; /* written into the idle block itself */
} idle_block;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static idle_block *lists[NCLASS];
static size_t idle_bytes;
static size_t idle_max; /* the holders' allowances summed (invariant 2) */
static int64_t holders;
static size_t keep;        /* the idle bytes kept with no holder (invariant 1) */
static size_t idle_blocks; /* blocks on the lists, <= BUFPOOL_IDLE_BLOCKS_MAX */
static uint64_t taken;     /* blocks bufpool_take returned (bufpool_taken) */

/* The idle bytes a give may reach now (invariant 2); mu held. */
static size_t limit(void) { return holders > 0 ? idle_max : keep; }

/* Class index of n, or -1 when n is not one. */
static int class_of(size_t n)
{
    if (n < BUFPOOL_MIN || n > BUFPOOL_MAX || (n & (n - 1))) return -1;
    return __builtin_ctzll(n) - __builtin_ctzll(BUFPOOL_MIN);
}

static void fork_lock(void) { pthread_mutex_lock(&mu); }
static void fork_unlock(void) { pthread_mutex_unlock(&mu); }
static void fork_handlers(void) { (void)pthread_atfork(fork_lock, fork_unlock, fork_unlock); }

void bufpool_hold(size_t allow)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)pthread_once(&once, fork_handlers); /* a fork never copies the lock held (invariant 4) */
    pthread_mutex_lock(&mu);
    holders++;
    idle_max += allow < BUFPOOL_ALLOW_MAX ? allow : BUFPOOL_ALLOW_MAX;
    pthread_mutex_unlock(&mu);
}

/* Unlinks idle blocks, largest class first, until idle_bytes <= most; returns them. mu held. */
static idle_block *trim(size_t most)
{
    idle_block *out = NULL;
    for (int c = NCLASS - 1; c >= 0 && idle_bytes > most; c--)
        while (lists[c] && idle_bytes > most) {
            idle_block *b = lists[c];
            lists[c] = b->next;
            UNPOISON(b, BUFPOOL_MIN << c);
            b->next = out, out = b;
            idle_bytes -= BUFPOOL_MIN << c;
            assert(idle_blocks > 0);
            idle_blocks--;
        }
    assert(idle_bytes <= most && (idle_bytes > 0) == (idle_blocks > 0));
    return out;
}

static void free_list(idle_block *b)
{
    for (idle_block *next; b; b = next) next = b->next, free(b);
}

void bufpool_drop_keep(size_t allow, size_t keep_bytes)
{
    pthread_mutex_lock(&mu);
    allow = allow < BUFPOOL_ALLOW_MAX ? allow : BUFPOOL_ALLOW_MAX;
    assert(holders > 0 && idle_max >= allow);
    holders--;
    idle_max -= allow;
    keep = keep_bytes < BUFPOOL_KEEP_MAX ? keep_bytes : BUFPOOL_KEEP_MAX;
    idle_block *out = trim(holders > 0 && idle_max > keep ? idle_max : keep); /* invariant 2 */
    pthread_mutex_unlock(&mu);
    free_list(out);
}

void bufpool_drop(size_t allow) { bufpool_drop_keep(allow, 0); }

void bufpool_release(void)
{
    pthread_mutex_lock(&mu);
    idle_block *out = NULL;
    if (holders == 0) keep = 0, out = trim(0);
    pthread_mutex_unlock(&mu);
    free_list(out);
}

void *bufpool_take(size_t n)
{
    int c = class_of(n);
    if (c < 0) return NULL;
    pthread_mutex_lock(&mu);
    idle_block *b = lists[c];
    if (b) {
        lists[c] = b->next;
        assert(idle_bytes >= n && idle_blocks > 0);
        idle_bytes -= n;
        idle_blocks--;
        taken++;
    }
    pthread_mutex_unlock(&mu);
    if (b) UNPOISON(b, n);
    return b;
}

void bufpool_give(void *p, size_t cap)
{
    int c = class_of(cap);
    if (!p) return;
    if (c >= 0) {
        pthread_mutex_lock(&mu);
        bool kept = idle_bytes + cap <= limit() && idle_blocks < BUFPOOL_IDLE_BLOCKS_MAX;
        if (kept) {
            idle_block *b = p;
            b->next = lists[c], lists[c] = b;
            idle_bytes += cap;
            idle_blocks++;
            POISON((char *)p + sizeof *b, cap - sizeof *b);
        }
        pthread_mutex_unlock(&mu);
        if (kept) return;
    }
    free(p);
}

void *bufpool_alloc(size_t n, size_t *cap)
{
    size_t c = BUFPOOL_MIN;
    while (c < n && c < BUFPOOL_MAX) c *= 2;
    bool pooled = n > BUFPOOL_MIN / 2 && c >= n; /* a small block: the allocator's own reuse */
    *cap = pooled ? c : n;
    void *p = pooled ? bufpool_take(c) : NULL;
    if (!p) p = fail_malloc(*cap ? *cap : 1);
    assert(!p || *cap >= n);
    return p;
}

size_t bufpool_idle(void)
{
    pthread_mutex_lock(&mu);
    size_t n = idle_bytes;
    pthread_mutex_unlock(&mu);
    return n;
}

uint64_t bufpool_taken(void)
{
    pthread_mutex_lock(&mu);
    uint64_t n = taken;
    pthread_mutex_unlock(&mu);
    return n;
}
