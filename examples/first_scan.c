/* examples/first_scan.c: the README's C program. Scans a Parquet file's two columns with a
 * filter and prints how many rows passed and what the scan read.
 *
 *   cc first_scan.c -o first_scan $(pkg-config --cflags --libs ringscan)
 *   ./first_scan li.parquet "l_orderkey < 600000" l_orderkey,l_extendedprice
 *
 * Arguments: FILE [FILTER [COLUMNS]] (COLUMNS comma-separated; default every column). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ringscan.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [FILTER [COLUMNS]]\n", argv[0]);
        return 2;
    }
    if (ringscan_version() != RINGSCAN_VERSION)
        fprintf(stderr, "note: built against ringscan %s, running %s\n", RINGSCAN_VERSION_STRING,
                ringscan_version_string());
    ringscan_error err;
    ringscan_file *f;
    if (ringscan_open(argv[1], &f, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter = argc > 2 ? argv[2] : NULL;
    const char *cols[64];
    char *list = argc > 3 ? strdup(argv[3]) : NULL;
    for (char *c = list ? strtok(list, ",") : NULL; c && o.ncolumns < 64; c = strtok(NULL, ","))
        cols[o.ncolumns++] = c;
    if (o.ncolumns > 0) o.columns = cols;
    ringscan_scan *s;
    if (ringscan_scan_start(f, &o, &s, &err)) {
        fprintf(stderr, "%s\n", err.message);
        ringscan_close(f);
        free(list);
        return 1;
    }
    struct ArrowArray batch; /* Arrow C Data Interface: a struct array per batch */
    int64_t rows = 0;
    int rc;
    while ((rc = ringscan_scan_next(s, &batch, &err)) == 1) {
        rows += batch.length;
        batch.release(&batch);
    }
    if (rc < 0) fprintf(stderr, "%s\n", err.message);
    ringscan_stats st;
    ringscan_scan_stats(s, &st);
    printf("rows %lld reads %llu bytes_read %llu\n", (long long)rows,
           (unsigned long long)st.reads, (unsigned long long)st.bytes_read);
    ringscan_scan_free(s);
    ringscan_close(f);
    free(list);
    return rc < 0 ? 1 : 0;
}
