/* io/io_fault.c: seeded fault injection hooks (see io_fault.h).
 *
 * Decisions hash (seed, offset, length, kind) with a 64-bit mixer (splitmix64 finaliser);
 * the low 20 bits against a rate in ppm say whether the fault fires, the rest pick sizes.
 * Invariant: no state but the atomic counters and the one-shot truncation flag. */
#include "io/io_fault.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { K_EIO = 1, K_SHORT, K_ZERO, K_EINTR, K_DELAY, K_CANCEL, K_SIZE, K_PROFILE };

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t h4(uint64_t seed, uint64_t off, uint64_t len, int kind)
{
    return mix(mix(mix(seed ^ (uint64_t)kind * 0x632be59bd9b4e019ull) ^ off) ^ len);
}

static bool fires(uint64_t h, uint32_t ppm)
{
    return ppm > 0 && (h % IO_FAULT_PPM) < ppm;
}

void io_fault_cfg_default(io_fault_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->delay_ns_max = 2 * 1000 * 1000;
}

/* A rate in ppm: off half the time, else one of a few magnitudes. */
static uint32_t pick_rate(uint64_t seed, int kind)
{
    static const uint32_t rates[] = {2000, 20000, 100000, 300000};
    uint64_t h = h4(seed, 0, 0, K_PROFILE * 16 + kind);
    return (h & 1) ? 0 : rates[(h >> 1) % 4];
}

void io_fault_cfg_random(io_fault_cfg *c, uint64_t seed, const char *path, uint64_t file_size)
{
    io_fault_cfg_default(c);
    c->seed = seed;
    c->eio_ppm = pick_rate(seed, K_EIO) / 4; /* errors end the scan: keep them rarer */
    c->short_ppm = pick_rate(seed, K_SHORT);
    c->zero_ppm = pick_rate(seed, K_ZERO) / 4;
    c->eintr_ppm = pick_rate(seed, K_EINTR);
    c->delay_ppm = pick_rate(seed, K_DELAY) * 2;
    c->cancel_ppm = pick_rate(seed, K_CANCEL);
    c->delay_ns_max = 1000 * (1 + h4(seed, 1, 0, K_PROFILE) % 2000); /* up to 2 ms */
    uint64_t h = h4(seed, 2, 0, K_PROFILE);
    if (path && file_size > 8 && h % 4 == 0) {
        c->truncate_path = path;
        c->truncate_to = (h >> 8) % file_size;
        c->truncate_after_calls = (h >> 40) % 24;
    }
}

void io_fault_attach(io_fault_t *f, const io_fault_cfg *c, io_opts_t *o)
{
    memset(f, 0, sizeof *f);
    f->cfg = *c;
    pthread_mutex_init(&f->mu, NULL);
    o->fault = io_fault_read;
    o->fault_sched = io_fault_sched;
    o->fault_ctx = f;
}

void io_fault_destroy(io_fault_t *f)
{
    pthread_mutex_destroy(&f->mu);
}

/* True the first time key is seen (EINTR now), false for its retry (which then passes).
 * Open addressing, linear probing; 2 marks a deleted slot (keys are odd), 0 an empty one. */
static bool eintr_first(io_fault_t *f, uint64_t key)
{
    key |= 1;
    bool first = false;
    pthread_mutex_lock(&f->mu);
    size_t free_slot = IO_FAULT_EINTR_KEYS;
    for (size_t k = 0; k < IO_FAULT_EINTR_KEYS; k++) {
        uint64_t *slot = &f->eintr_keys[(key + k) % IO_FAULT_EINTR_KEYS];
        if (*slot == key) { /* the retry: let it pass */
            *slot = 2;
            free_slot = IO_FAULT_EINTR_KEYS;
            break;
        }
        if (*slot == 2 && free_slot == IO_FAULT_EINTR_KEYS) free_slot = (key + k) % IO_FAULT_EINTR_KEYS;
        if (*slot == 0) {
            if (free_slot == IO_FAULT_EINTR_KEYS) free_slot = (key + k) % IO_FAULT_EINTR_KEYS;
            first = true;
            break;
        }
    }
    if (first && free_slot < IO_FAULT_EINTR_KEYS) f->eintr_keys[free_slot] = key;
    else first = false; /* found (a retry), or the table is full: no fault */
    pthread_mutex_unlock(&f->mu);
    return first;
}

/* Truncates the file once, when enough calls were seen. */
static void maybe_truncate(io_fault_t *f, uint64_t calls)
{
    if (!f->cfg.truncate_path || calls < f->cfg.truncate_after_calls) return;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&f->truncated, &expect, 1)) return;
    int fd = open(f->cfg.truncate_path, O_WRONLY | O_CLOEXEC);
    int rc = fd < 0 ? -errno : (ftruncate(fd, (off_t)f->cfg.truncate_to) ? -errno : 0);
    if (fd >= 0) close(fd);
    f->truncate_status = rc;
}

int64_t io_fault_read(void *ctx, const io_file_t *file, uint64_t off, uint64_t len)
{
    io_fault_t *f = ctx;
    (void)file;
    assert(f && len > 0);
    uint64_t calls = atomic_fetch_add(&f->calls, 1) + 1;
    maybe_truncate(f, calls);
    uint64_t s = f->cfg.seed;
    if (fires(h4(s, off, len, K_EIO), f->cfg.eio_ppm)) {
        atomic_fetch_add(&f->eio, 1);
        return -EIO;
    }
    if (fires(h4(s, off, len, K_ZERO), f->cfg.zero_ppm)) {
        atomic_fetch_add(&f->zeros, 1);
        return 0;
    }
    uint64_t he = h4(s, off, len, K_EINTR);
    if (fires(he, f->cfg.eintr_ppm) && eintr_first(f, he)) {
        atomic_fetch_add(&f->eintrs, 1);
        return (he >> 32) & 1 ? -EINTR : -EAGAIN;
    }
    uint64_t hs = h4(s, off, len, K_SHORT);
    if (len > 1 && fires(hs, f->cfg.short_ppm)) {
        atomic_fetch_add(&f->shorts, 1);
        return (int64_t)(1 + (hs >> 24) % (len - 1));
    }
    return (int64_t)len;
}

uint64_t io_fault_sched(void *ctx, const io_file_t *file, uint64_t off, uint64_t len,
                        bool *cancel)
{
    io_fault_t *f = ctx;
    (void)file;
    uint64_t s = f->cfg.seed;
    *cancel = fires(h4(s, off, len, K_CANCEL), f->cfg.cancel_ppm);
    if (*cancel) atomic_fetch_add(&f->cancels, 1);
    uint64_t hd = h4(s, off, len, K_DELAY);
    if (!fires(hd, f->cfg.delay_ppm) || f->cfg.delay_ns_max == 0) return 0;
    atomic_fetch_add(&f->delays, 1);
    return 1 + (hd >> 24) % f->cfg.delay_ns_max;
}

void io_fault_describe(const io_fault_t *f, char *buf, size_t len)
{
    const io_fault_cfg *c = &f->cfg;
    snprintf(buf, len,
             "seed %" PRIu64 " ppm eio %u short %u zero %u eintr %u delay %u (max %" PRIu64
             " ns) cancel %u truncate %s to %" PRIu64 " after %" PRIu64 " calls | injected: "
             "calls %" PRIu64 " eio %" PRIu64 " short %" PRIu64 " zero %" PRIu64 " eintr %" PRIu64
             " delay %" PRIu64 " cancel %" PRIu64 " truncated %d",
             c->seed, c->eio_ppm, c->short_ppm, c->zero_ppm, c->eintr_ppm, c->delay_ppm,
             c->delay_ns_max, c->cancel_ppm, c->truncate_path ? "yes" : "no", c->truncate_to,
             c->truncate_after_calls, atomic_load(&f->calls), atomic_load(&f->eio),
             atomic_load(&f->shorts), atomic_load(&f->zeros), atomic_load(&f->eintrs),
             atomic_load(&f->delays), atomic_load(&f->cancels), atomic_load(&f->truncated));
}
