/* tests/testing_data.h: reading a parquet-testing file whole, for unit tests that decode the
 * corpus from memory (tests run from the project root, the corpus beside it in ../shared). */
#ifndef RINGSCAN_TESTS_TESTING_DATA_H
#define RINGSCAN_TESTS_TESTING_DATA_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DATA "../shared/parquet-testing/data/"

/* The bytes of DATA name (malloc'd, *len set), or NULL (said on stderr). */
static uint8_t *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, DATA "%s", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "  cannot open %s\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

#endif
