/* tests/unit/rand_names.h: random names for the name-lookup tests (test_ds_names,
 * test_ds_fields, test_name_index): an xorshift generator, names drawn from a small alphabet
 * (so case twins and repeats are common), and ASCII case-insensitive equality. */
#ifndef RINGSCAN_TESTS_RAND_NAMES_H
#define RINGSCAN_TESTS_RAND_NAMES_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The next value of the xorshift64 state *rng (non-zero). */
static inline uint32_t rn_next(uint64_t *rng)
{
    *rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
    return (uint32_t)(*rng >> 11);
}

/* A name of min_len..max_len bytes of alphabet abc, NUL-terminated, into out. */
static inline void rn_draw(uint64_t *rng, char *out, int min_len, int max_len, const char *abc)
{
    int len = min_len + (int)(rn_next(rng) % (uint32_t)(max_len - min_len + 1));
    uint32_t n = (uint32_t)strlen(abc);
    for (int i = 0; i < len; i++) out[i] = abc[rn_next(rng) % n];
    out[len] = 0;
}

/* Whether a and b are equal but for ASCII case. */
static inline bool rn_fold_same(const char *a, const char *b)
{
    for (;; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return false;
        if (!x) return true;
    }
}

#endif
