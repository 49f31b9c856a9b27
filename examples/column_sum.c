/* examples/column_sum.c: a consumer of ringscan's Arrow output in plain C, with no Arrow
 * library: it takes the scan as an ArrowArrayStream (what any Arrow consumer takes), reads
 * the schema to find the column's type, and sums one integer or floating-point column over
 * every batch, honouring the validity bitmap and the array offsets as the Arrow C Data
 * Interface defines them.
 *
 *   cc column_sum.c -o column_sum $(pkg-config --cflags --libs ringscan)
 *   ./column_sum li.parquet l_quantity ["l_shipmode = 'AIR'"]
 *
 * Prints "rows N nulls N sum S" (S an integer for integer columns, %.17g for floating). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <ringscan.h>

/* The column's Arrow format as a kind: 'i' signed, 'u' unsigned, 'f' floating; 0 otherwise. */
static int kind_of(const char *fmt, int *width)
{
    static const struct { const char *f; int kind, width; } kinds[] = {
        {"c", 'i', 1}, {"s", 'i', 2}, {"i", 'i', 4}, {"l", 'i', 8},
        {"C", 'u', 1}, {"S", 'u', 2}, {"I", 'u', 4}, {"L", 'u', 8},
        {"f", 'f', 4}, {"g", 'f', 8},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(fmt, kinds[i].f) == 0) {
            *width = kinds[i].width;
            return kinds[i].kind;
        }
    return 0;
}

static bool valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->n_buffers > 0 ? a->buffers[0] : NULL;
    int64_t j = a->offset + i;
    return !bits || a->null_count == 0 || (bits[j >> 3] >> (j & 7) & 1);
}

/* Adds column a's values (kind, width) to *isum or *fsum, its nulls to *nulls. */
static void add(const struct ArrowArray *a, int kind, int width, __int128 *isum, double *fsum,
                int64_t *nulls)
{
    const uint8_t *v = a->buffers[1];
    for (int64_t i = 0; i < a->length; i++) {
        if (!valid(a, i)) {
            (*nulls)++;
            continue;
        }
        const uint8_t *p = v + (size_t)(a->offset + i) * (size_t)width;
        if (kind == 'f') {
            if (width == 4) { float x; memcpy(&x, p, 4); *fsum += x; }
            else { double x; memcpy(&x, p, 8); *fsum += x; }
        } else if (kind == 'u') {
            uint64_t x = 0;
            memcpy(&x, p, (size_t)width); /* little-endian */
            *isum += x;
        } else {
            int64_t x = 0;
            memcpy(&x, p, (size_t)width);
            int shift = 64 - 8 * width;
            *isum += (int64_t)((uint64_t)x << shift) >> shift; /* sign-extend */
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE COLUMN [FILTER]\n", argv[0]);
        return 2;
    }
    ringscan_error err;
    ringscan_file *f;
    if (ringscan_open(argv[1], &f, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    ringscan_options o;
    ringscan_options_init(&o);
    const char *cols[] = {argv[2]};
    o.columns = cols;
    o.ncolumns = 1;
    o.filter = argc > 3 ? argv[3] : NULL;
    ringscan_scan *s;
    if (ringscan_scan_start(f, &o, &s, &err)) {
        fprintf(stderr, "%s\n", err.message);
        ringscan_close(f);
        return 1;
    }
    struct ArrowArrayStream st;
    struct ArrowSchema schema;
    int rc = ringscan_scan_stream(s, &st);
    if (rc == 0) rc = st.get_schema(&st, &schema);
    int width = 0, kind = 0;
    if (rc == 0) {
        kind = schema.n_children == 1 ? kind_of(schema.children[0]->format, &width) : 0;
        if (!kind) fprintf(stderr, "%s: not an integer or floating-point column (format %s)\n",
                           argv[2], schema.n_children == 1 ? schema.children[0]->format : "?");
        schema.release(&schema);
    }
    __int128 isum = 0;
    double fsum = 0;
    int64_t rows = 0, nulls = 0;
    struct ArrowArray batch;
    while (rc == 0 && kind && (rc = st.get_next(&st, &batch)) == 0 && batch.release) {
        add(batch.children[0], kind, width, &isum, &fsum, &nulls);
        rows += batch.length;
        batch.release(&batch);
    }
    if (rc) fprintf(stderr, "%s\n", st.get_last_error ? st.get_last_error(&st) : "stream error");
    if (rc == 0 && kind == 'f') printf("rows %" PRId64 " nulls %" PRId64 " sum %.17g\n", rows, nulls, fsum);
    else if (rc == 0 && kind) printf("rows %" PRId64 " nulls %" PRId64 " sum %" PRId64 "\n", rows, nulls, (int64_t)isum);
    st.release(&st);
    ringscan_scan_free(s);
    ringscan_close(f);
    return rc || !kind ? 1 : 0;
}
