/* cli/cmd_gen.c: `ringscan gen`: writes Parquet test data with the format/ writer.
 *
 *   ringscan gen lineitem --sf N -o FILE [--compression zstd|snappy|gzip|lz4|none]
 *       [--row-group-rows N] [--page-rows N] [--[no-]page-index] [--bloom COL,COL] [--seed S]
 *       [--threads N] [--layout tpch|cancel] [--no-dictionary]
 *   ringscan gen demo-types -o FILE [--rows N] [--seed S] [same writer options]
 *   ringscan gen topk --layout pruning|control -o FILE [--seed S] [--row-groups N]
 *       [--row-group-rows N] [same writer options]
 *   ringscan gen topk --layout pruning|control --expect K [--asc] [--where-flag] [--seed S]
 *       [--row-groups N] [--row-group-rows N]
 *
 * lineitem: bench/lineitem.h's model, written by bench/lineitem_file.c (shared with the bench)
 * in order-index order in batches of LINEITEM_FILE_BATCH_ORDERS orders. With --threads >= 2
 * (default: 2 when the machine has 2+ CPUs) one producer thread generates batches into a
 * bounded queue of LINEITEM_FILE_QUEUE slots while this thread encodes; batches are consumed
 * strictly in order, so the file is identical for any thread count.
 * demo-types: every physical type and the main logical types, OPTIONAL with ~1/8 nulls (plus
 * one REQUIRED column), values a pure function of (--seed, row, column): the readback test's
 * input (tests/cli/writer_readback.sh).
 * topk: issue 21's seed workload, bench/topk_gen.h's table (score, id, payload, flag) in
 * --row-groups groups of --row-group-rows rows (default 32 x 65,536). With --expect K it
 * writes no file: it prints the ids the model (topk_gen_expect) says `SELECT id [WHERE
 * flag = 0] ORDER BY score DESC|ASC, id LIMIT K` returns, one a line (the tests' oracle).
 *
 * Invariants:
 *  1. The queue holds at most LINEITEM_FILE_QUEUE batches (bench/lineitem_file.h).
 *  2. Output: the progress line (cli/progress.h) on stderr only when stderr is a terminal and
 *     the write takes over a second, cleared at the end (--no-progress: never); one summary
 *     line on stdout at the end ("rows, row groups, bytes, seconds").
 *  3. Exit status 0 ok, 1 error ("ringscan: gen: <msg>", a partial file is removed), 2 usage.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/lineitem.h"
#include "bench/lineitem_file.h"
#include "bench/topk_gen.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "cli/sink.h"
#include "format/writer.h"

#define GEN_DEMO_COLS 28
#define GEN_ERR(...) (fprintf(stderr, "ringscan: gen: " __VA_ARGS__), fputc('\n', stderr), 1)

typedef struct gen_args {
    const char *what, *out;
    double sf;
    int64_t rows;
    uint64_t seed;
    int threads;
    int layout;              /* index in gen_layouts */
    bool layout_set;         /* --layout given */
    bool rg_rows_set;        /* --row-group-rows given (topk's default differs) */
    int64_t row_groups;      /* topk: --row-groups */
    bool row_groups_set;
    int64_t expect;          /* topk: --expect K, or -1 */
    bool asc, where_flag;    /* topk --expect: --asc, --where-flag */
    bool rows_set; /* --rows given: demo-types only */
    bool no_progress; /* --no-progress */
    char *bloom; /* comma list */
    pq_writer_opts o;
} gen_args;

enum gen_opt_id {
    GO_OUT, GO_SF, GO_ROWS, GO_SEED, GO_THREADS, GO_RG_ROWS, GO_PAGE_ROWS, GO_CODEC, GO_BLOOM,
    GO_LAYOUT, GO_PAGE_INDEX, GO_NO_PAGE_INDEX, GO_NO_DICT, GO_NO_PROGRESS, GO_ROW_GROUPS,
    GO_EXPECT, GO_ASC, GO_WHERE_FLAG
};

/* --compression's names, in the order of codec_of. */
static const char *const gen_codecs[] = {"zstd", "snappy", "gzip", "lz4", "none", "lz4_raw",
                                         "uncompressed", NULL};
static const pq_codec codec_of[] = {PQ_CODEC_ZSTD, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP, PQ_CODEC_LZ4_RAW,
                                    PQ_CODEC_UNCOMPRESSED, PQ_CODEC_LZ4_RAW, PQ_CODEC_UNCOMPRESSED};
enum { GL_TPCH, GL_CANCEL, GL_PRUNING, GL_CONTROL }; /* gen_layouts' indexes */
static const char *const gen_layouts[] = {"tpch", "cancel", "pruning", "control", NULL};
static const char *const gen_whats[] = {"lineitem", "demo-types", "topk"};
enum { GEN_TOPK_RG_ROWS = 65536, GEN_TOPK_ROW_GROUPS = 32 }; /* issue 21's seed workload */

/* Every option `ringscan gen` accepts; the help is printed from it. */
static const cli_opt gen_opts[] = {
    {"--output", "-o", "FILE", CLI_TEXT, GO_OUT, .help = "the Parquet file to write (required)"},
    {"--sf", NULL, "N", CLI_REAL, GO_SF, .rlo = 0, .rhi = 100000,
     .help = "lineitem: TPC-H scale factor (required; 1 = 6 million rows)"},
    {"--rows", NULL, "N", CLI_INT, GO_ROWS, 0, INT32_MAX, .dflt = "10000",
     .help = "demo-types: rows to write"},
    {"--seed", NULL, "S", CLI_INT, GO_SEED, 0, INT64_MAX, .dflt = "1",
     .help = "the values' seed: the same seed writes the same file"},
    {"--threads", NULL, "N", CLI_INT, GO_THREADS, 1, 64, .dflt = "2 with 2+ CPUs, else 1",
     .help = "lineitem: 2+ generates rows on a second thread while this one encodes"},
    {"--row-group-rows", NULL, "N", CLI_INT, GO_RG_ROWS, 1, INT32_MAX,
     .dflt = "1048576; topk: 65536", .help = "rows per row group"},
    {"--row-groups", NULL, "N", CLI_INT, GO_ROW_GROUPS, 1, TOPK_ROW_GROUPS_MAX, .dflt = "32",
     .help = "topk: row groups to write"},
    {"--page-rows", NULL, "N", CLI_INT, GO_PAGE_ROWS, 1, PQ_WRITER_MAX_PAGE_ROWS, .dflt = "20000",
     .help = "rows per data page at most"},
    {"--compression", NULL, NULL, CLI_CHOICE, GO_CODEC, .choices = gen_codecs, .dflt = "snappy",
     .help = "page codec (lz4 writes LZ4_RAW)"},
    {"--bloom", NULL, "COLS", CLI_TEXT, GO_BLOOM, .dflt = "none",
     .help = "lineitem: comma list of columns that get bloom filters", .once = CLI_ONCE_LIST},
    {"--layout", NULL, NULL, CLI_CHOICE, GO_LAYOUT, .choices = gen_layouts,
     .dflt = "lineitem: tpch",
     .help = "lineitem: cancel clusters rare values; topk: required"},
    {"--expect", NULL, "K", CLI_INT, GO_EXPECT, 0, TOPK_EXPECT_MAX,
     .help = "topk: print ids of ORDER BY score DESC, id LIMIT K, write no file"},
    {"--asc", NULL, NULL, CLI_FLAG, GO_ASC, .help = "topk --expect: ORDER BY score ASC, id"},
    {"--where-flag", NULL, NULL, CLI_FLAG, GO_WHERE_FLAG,
     .help = "topk --expect: only rows with flag = 0 (the control layout's query)"},
    {"--page-index", NULL, NULL, CLI_FLAG, GO_PAGE_INDEX,
     .help = "write column and offset indexes (the default)"},
    {"--no-page-index", NULL, NULL, CLI_FLAG, GO_NO_PAGE_INDEX, .help = "write no page index"},
    {"--no-dictionary", NULL, NULL, CLI_FLAG, GO_NO_DICT, .help = "write no dictionary pages"},
    {"--no-progress", NULL, NULL, CLI_FLAG, GO_NO_PROGRESS,
     .help = "no progress line (shown on a tty's stderr after 1 s)"},
};

static const char *const gen_examples[] = {
    "ringscan gen lineitem --sf 0.1 -o lineitem.parquet",
    "ringscan gen lineitem --sf 1 --compression zstd --bloom l_orderkey -o li.parquet",
    "ringscan gen demo-types --rows 1000 --seed 7 -o demo.parquet",
    "ringscan gen topk --layout pruning -o topk.parquet",
    "ringscan gen topk --layout control --expect 100 --where-flag",
    NULL};

const cli_cmd cli_cmd_gen = {
    .name = "gen",
    .usage = "lineitem|demo-types|topk -o FILE [options]",
    .purpose = "Writes Parquet test data: lineitem, the TPC-H table at a scale factor,\n"
               "demo-types, every physical and main logical type with about 1/8 nulls, or\n"
               "topk, the Top-K workload (score, id, payload, flag) in a --layout.\n"
               "Prints one summary line (rows, row groups, bytes, seconds). topk --expect K\n"
               "writes no file: it prints the ids ORDER BY score DESC, id LIMIT K returns.",
    .opts = gen_opts,
    .nopts = sizeof gen_opts / sizeof gen_opts[0],
    .examples = gen_examples,
    .pos_min = 1,
    .pos_max = 1,
};

static int usage(const char *msg)
{
    return cli_usage_error(&cli_cmd_gen, "%s", msg);
}

/* Applies one parsed option of gen_opts to the gen_args ctx (cli/opts.h cli_apply_fn). */
static int apply_opt(void *ctx, const cli_opt *opt, const cli_val *v)
{
    gen_args *a = ctx;
    switch ((enum gen_opt_id)opt->id) {
    case GO_OUT: a->out = v->s; break;
    case GO_SF: a->sf = v->r; break;
    case GO_ROWS: a->rows = v->i, a->rows_set = true; break;
    case GO_SEED: a->seed = (uint64_t)v->i; break;
    case GO_THREADS: a->threads = (int)v->i; break;
    case GO_RG_ROWS: a->o.row_group_rows = v->i, a->rg_rows_set = true; break;
    case GO_ROW_GROUPS: a->row_groups = v->i, a->row_groups_set = true; break;
    case GO_EXPECT: a->expect = v->i; break;
    case GO_ASC: a->asc = true; break;
    case GO_WHERE_FLAG: a->where_flag = true; break;
    case GO_PAGE_ROWS: a->o.page_rows = v->i; break;
    case GO_CODEC: a->o.codec = codec_of[v->i]; break;
    case GO_BLOOM: a->bloom = (char *)v->s; break;
    case GO_LAYOUT: a->layout = (int)v->i, a->layout_set = true; break;
    case GO_PAGE_INDEX: a->o.page_index = true; break;
    case GO_NO_PAGE_INDEX: a->o.page_index = false; break;
    case GO_NO_DICT: a->o.dictionary = false; break;
    case GO_NO_PROGRESS: a->no_progress = true; break;
    }
    return 0;
}

/* ---- output file and progress ------------------------------------------------------------ */

/* The progress line of the file being written (cli/progress.h) and its writer. */
typedef struct gen_progress {
    cli_progress line;
    const pq_writer *w;
} gen_progress;

/* After each batch written (bench/lineitem_file.h's tick): rows of total, the writer's bytes. */
static void gen_tick(void *ctx, int64_t rows, int64_t total)
{
    gen_progress *p = ctx;
    if (!cli_progress_due(&p->line)) return;
    pq_writer_stats st;
    pq_writer_get_stats(p->w, &st);
    char line[CLI_PROGRESS_LINE_MAX];
    cli_progress_gen_line(line, sizeof line, rows, total, st.bytes, cli_progress_elapsed_s(&p->line));
    cli_progress_draw(&p->line, line);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Fills descs from lineitem_columns; marks --bloom columns in flags. 0 or -1 (unknown). */
static int lineitem_schema(const lineitem_gen *g, char *bloom, pq_column_desc *d, uint8_t *flags)
{
    lineitem_file_schema(g, d);
    for (int c = 0; c < g->ncols; c++) flags[c] = 0;
    for (char *save = NULL, *t = bloom ? strtok_r(bloom, ",", &save) : NULL; t;
         t = strtok_r(NULL, ",", &save)) {
        int c = 0;
        while (c < g->ncols && strcmp(lineitem_columns[c].name, t) != 0) c++;
        if (c == g->ncols) return GEN_ERR("--bloom: no column '%s'", t), -1;
        flags[c] |= PQ_WCOL_BLOOM;
    }
    return 0;
}

/* ---- demo-types ----------------------------------------------------------------------------- */

typedef struct demo_col {
    const char *name;
    pq_physical p;
    int32_t len;
    pq_logical l;
    int32_t prec, scale;
    bool utc;
} demo_col;

static const demo_col demo_cols[GEN_DEMO_COLS] = {
    {"bool", PQ_BOOLEAN, 0, PQ_LOGICAL_NONE, 0, 0, 0},
    {"i8", PQ_INT32, 0, PQ_LOGICAL_INT8, 0, 0, 0},
    {"i16", PQ_INT32, 0, PQ_LOGICAL_INT16, 0, 0, 0},
    {"i32", PQ_INT32, 0, PQ_LOGICAL_NONE, 0, 0, 0},
    {"i64", PQ_INT64, 0, PQ_LOGICAL_NONE, 0, 0, 0},
    {"u8", PQ_INT32, 0, PQ_LOGICAL_UINT8, 0, 0, 0},
    {"u16", PQ_INT32, 0, PQ_LOGICAL_UINT16, 0, 0, 0},
    {"u32", PQ_INT32, 0, PQ_LOGICAL_UINT32, 0, 0, 0},
    {"u64", PQ_INT64, 0, PQ_LOGICAL_UINT64, 0, 0, 0},
    {"f32", PQ_FLOAT, 0, PQ_LOGICAL_NONE, 0, 0, 0},
    {"f64", PQ_DOUBLE, 0, PQ_LOGICAL_NONE, 0, 0, 0},
    {"str", PQ_BYTE_ARRAY, 0, PQ_LOGICAL_STRING, 0, 0, 0},
    {"bin", PQ_BYTE_ARRAY, 0, PQ_LOGICAL_NONE, 0, 0, 0},
    {"flba", PQ_FIXED_LEN_BYTE_ARRAY, 4, PQ_LOGICAL_NONE, 0, 0, 0},
    {"f16", PQ_FIXED_LEN_BYTE_ARRAY, 2, PQ_LOGICAL_FLOAT16, 0, 0, 0},
    {"date", PQ_INT32, 0, PQ_LOGICAL_DATE, 0, 0, 0},
    {"time_ms", PQ_INT32, 0, PQ_LOGICAL_TIME_MILLIS, 0, 0, true},
    {"time_us", PQ_INT64, 0, PQ_LOGICAL_TIME_MICROS, 0, 0, true},
    {"time_ns", PQ_INT64, 0, PQ_LOGICAL_TIME_NANOS, 0, 0, true},
    {"ts_ms", PQ_INT64, 0, PQ_LOGICAL_TIMESTAMP_MILLIS, 0, 0, true},
    {"ts_us", PQ_INT64, 0, PQ_LOGICAL_TIMESTAMP_MICROS, 0, 0, false},
    {"ts_ns", PQ_INT64, 0, PQ_LOGICAL_TIMESTAMP_NANOS, 0, 0, true},
    {"dec32", PQ_INT32, 0, PQ_LOGICAL_DECIMAL, 9, 2, 0},
    {"dec64", PQ_INT64, 0, PQ_LOGICAL_DECIMAL, 18, 4, 0},
    {"dec_flba", PQ_FIXED_LEN_BYTE_ARRAY, 13, PQ_LOGICAL_DECIMAL, 30, 3, 0},
    {"dec_ba", PQ_BYTE_ARRAY, 0, PQ_LOGICAL_DECIMAL, 25, 5, 0},
    {"i96", PQ_INT96, 0, PQ_LOGICAL_NONE, 0, 0, 0},
    {"req_i64", PQ_INT64, 0, PQ_LOGICAL_NONE, 0, 0, 0},
};

static uint64_t mix(uint64_t seed, uint64_t row, uint64_t col)
{
    uint64_t z = seed * 0x9e3779b97f4a7c15ull + row * 0xbf58476d1ce4e5b9ull + col * 0x94d049bb133111ebull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Signed value uniform-ish in (-m, m). */
static int64_t smod(uint64_t h, int64_t m)
{
    return (int64_t)(h % (uint64_t)m) * ((h >> 63) ? -1 : 1);
}

static double demo_float(uint64_t h)
{
    switch (h % 16) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0;
    case 4: return 0.0;
    default: return (double)smod(h >> 4, 1ll << 40) / (double)(1ull << (h % 40));
    }
}

/* Big-endian two's complement of v (|v| < 2^127) in n bytes (n <= 16). */
static void be_bytes(__int128 v, uint8_t *out, int n)
{
    for (int i = 0; i < n; i++) out[n - 1 - i] = (uint8_t)((unsigned __int128)v >> (8 * i));
}

static const char *const demo_tokens[] = {"a", "b", "Z", " ", "\"", "\\", "\n", "\t", "\xc3\xa9",
                                          "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\x01", "/", "7"};

/* Writes value (row, col) into tmp; returns its byte length (fixed or variable). */
static int demo_value(uint64_t seed, int64_t row, int c, uint8_t *tmp)
{
    const demo_col *d = &demo_cols[c];
    uint64_t h = mix(seed, (uint64_t)row, (uint64_t)c), h2 = mix(seed ^ 0x5555, (uint64_t)row, (uint64_t)c);
    int32_t i32 = 0;
    int64_t i64 = 0;
    switch (c) {
    case 0: tmp[0] = h & 1; return 1;
    case 1: i32 = (int8_t)h; break;
    case 2: i32 = (int16_t)h; break;
    case 3: case 7: i32 = (int32_t)(uint32_t)h; break;
    case 4: case 8: i64 = (int64_t)h; break;
    case 5: i32 = (int32_t)(h & 0xff); break;
    case 6: i32 = (int32_t)(h & 0xffff); break;
    case 9: { float f = (float)demo_float(h); memcpy(tmp, &f, 4); return 4; }
    case 10: { double v = demo_float(h); memcpy(tmp, &v, 8); return 8; }
    case 11: {
        int n = 0;
        for (int k = 0, len = (int)(h % 9); k < len; k++) {
            const char *t = demo_tokens[(h2 >> (k * 4)) % (sizeof demo_tokens / sizeof *demo_tokens)];
            memcpy(tmp + n, t, strlen(t));
            n += (int)strlen(t);
        }
        return n;
    }
    case 12: { int n = (int)(h % 9); memcpy(tmp, &h2, 8); return n; }
    case 13: memcpy(tmp, &h2, 4); return 4;
    case 14: { uint16_t x = (uint16_t)h; if ((x & 0x7c00) == 0x7c00) x &= 0xbfff; memcpy(tmp, &x, 2); return 2; }
    case 15: i32 = (int32_t)(smod(h, 36500) + 11000); break; /* ~1940..2070 */
    case 16: i32 = (int32_t)(h % 86400000u); break;
    case 17: i64 = (int64_t)(h % 86400000000ull); break;
    case 18: i64 = (int64_t)(h % 86400000000000ull); break;
    case 19: i64 = smod(h, 3155760000000ll); break;     /* +-100 years in ms */
    case 20: i64 = smod(h, 3155760000000000ll); break;  /* us */
    case 21: i64 = smod(h, 3155760000000000000ll); break; /* ns */
    case 22: i32 = (int32_t)smod(h, 1000000000); break;
    case 23: i64 = smod(h, 1000000000000000000ll); break;
    case 24: case 25: {
        __int128 v = (__int128)smod(h, 1000000000000000000ll) * 1000000 + (int64_t)(h2 % 1000000);
        int n = c == 24 ? 13 : 1 + (int)(h2 >> 60) % 11; /* 1..11 bytes, wide enough? see below */
        if (c == 25) { /* minimal-ish width that holds v */
            n = 1;
            while (n < 16 && !(v >= -((__int128)1 << (8 * n - 1)) && v < ((__int128)1 << (8 * n - 1)))) n++;
        }
        be_bytes(v, tmp, n);
        return n;
    }
    case 26: { /* INT96: nanos of day (whole microseconds) then Julian day, 1900..2100 */
        uint64_t nanos = (h % 86400000000ull) * 1000;
        uint32_t jd = 2415021 + (uint32_t)(h2 % 73000);
        memcpy(tmp, &nanos, 8);
        memcpy(tmp + 8, &jd, 4);
        return 12;
    }
    case 27: i64 = row * 3; break;
    default: break;
    }
    if (d->p == PQ_INT32) { memcpy(tmp, &i32, 4); return 4; }
    memcpy(tmp, &i64, 8);
    return 8;
}

static void demo_schema(pq_column_desc *d)
{
    for (int c = 0; c < GEN_DEMO_COLS; c++) {
        const demo_col *x = &demo_cols[c];
        memset(&d[c], 0, sizeof d[c]);
        d[c] = (pq_column_desc){.name = x->name, .physical = x->p, .type_length = x->len,
                                .repetition = c == GEN_DEMO_COLS - 1 ? PQ_REQUIRED : PQ_OPTIONAL,
                                .logical = x->l, .decimal_precision = x->prec,
                                .decimal_scale = x->scale, .is_adjusted_to_utc = x->utc,
                                .field_id = -1};
    }
}

/* Appends rows [a, b) of the demo table to cols (cleared first). */
static int demo_batch(uint64_t seed, int64_t a, int64_t b, pq_vec *cols)
{
    uint8_t tmp[64];
    for (int c = 0; c < GEN_DEMO_COLS; c++) {
        pq_vec *v = &cols[c];
        pq_vec_clear(v);
        if (pq_vec_reserve(v, b - a, (b - a) * 40)) return -ENOMEM;
        if (v->offsets) v->offsets[0] = 0;
        for (int64_t r = a; r < b; r++) {
            int64_t i = v->length;
            bool null = c != GEN_DEMO_COLS - 1 && mix(seed + 1, (uint64_t)r, (uint64_t)c) % 8 == 0;
            int n = null ? 0 : demo_value(seed, r, c, tmp);
            pq_bit_set(v->validity, i, !null);
            v->null_count += null;
            if (v->type == PQ_BYTE_ARRAY) {
                memcpy(v->data + v->data_len, tmp, (size_t)n);
                v->data_len += n;
                v->offsets[i + 1] = (int32_t)v->data_len;
            } else if (v->type == PQ_BOOLEAN) {
                pq_bit_set(v->values, i, !null && tmp[0]);
            } else {
                int32_t w = pq_fixed_width(v->type, v->type_length);
                if (null) memset(v->values + i * w, 0, (size_t)w);
                else memcpy(v->values + i * w, tmp, (size_t)w);
            }
            v->length++;
        }
    }
    return 0;
}

/* Writes one data set's rows to w; src is the data set's generator (NULL for demo-types).
 * 0 or a negative status with e filled. */
typedef int (*gen_write_fn)(void *src, const gen_args *a, pq_writer *w, gen_progress *pg,
                            pq_err *e);

static int write_demo(void *src, const gen_args *a, pq_writer *w, gen_progress *pg, pq_err *e)
{
    (void)src;
    pq_vec cols[GEN_DEMO_COLS];
    for (int c = 0; c < GEN_DEMO_COLS; c++)
        pq_vec_init(&cols[c], demo_cols[c].p, demo_cols[c].len);
    int rc = 0;
    for (int64_t r = 0; r < a->rows && !rc; r += 4096) {
        int64_t b = r + 4096 < a->rows ? r + 4096 : a->rows;
        rc = demo_batch(a->seed, r, b, cols);
        if (rc) pq_errf(e, rc, -1, "out of memory");
        else rc = pq_writer_write(w, cols, b - r, e);
        if (rc == 0) gen_tick(pg, b, a->rows);
    }
    for (int c = 0; c < GEN_DEMO_COLS; c++) pq_vec_free(&cols[c]);
    return rc;
}

static int write_lineitem(void *src, const gen_args *a, pq_writer *w, gen_progress *pg,
                          pq_err *e)
{
    return lineitem_file_write(src, w, a->threads, gen_tick, pg, e);
}

/* ---- topk ----------------------------------------------------------------------------------- */

static int write_topk(void *src, const gen_args *a, pq_writer *w, gen_progress *pg, pq_err *e)
{
    (void)a;
    return topk_gen_write(src, w, gen_tick, pg, e);
}

/* ---- entry ---------------------------------------------------------------------------------- */

/* Writes a->out from fn(src, ...) with the columns d[0 .. n) and per-column flags (or NULL);
 * prints the summary. Exit status as cmd_gen's (a partial file is removed). */
static int run(gen_args *a, const pq_column_desc *d, int n, const uint8_t *flags,
               gen_write_fn fn, void *src)
{
    FILE *f = fopen(a->out, "wb");
    if (!f) return GEN_ERR("%s: %s", a->out, strerror(errno));
    struct stat fst;
    /* only a regular file is removed after a failure: as root, `-o /dev/full` unlinked the
     * device node */
    bool regular = fstat(fileno(f), &fst) == 0 && S_ISREG(fst.st_mode);
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    a->o.col_flags = flags;
    double t0 = now_s();
    pq_err e = {0};
    pq_writer *w = NULL;
    int rc = pq_writer_open(&w, d, n, &a->o, lineitem_file_sink, f, &e);
    gen_progress pg = {.w = w};
    cli_progress_start(&pg.line, !a->no_progress);
    if (!rc) rc = fn(src, a, w, &pg, &e);
    if (!rc) rc = pq_writer_close(w, &e);
    cli_progress_end(&pg.line); /* before the summary or an error */
    pq_writer_stats st = {0};
    if (w) pq_writer_get_stats(w, &st);
    pq_writer_free(w);
    if (fclose(f) != 0 && !rc) rc = pq_errf(&e, -EIO, -1, "closing: %s", strerror(errno));
    if (rc) {
        if (regular) unlink(a->out);
        return GEN_ERR("%s: %s", a->out, e.msg[0] ? e.msg : strerror(-rc));
    }
    sink_printf(cli_out(), "%s: %" PRId64 " row%s, %" PRId64 " row group%s, %" PRId64 " bytes, %.2f seconds\n",
                a->out, st.rows, st.rows == 1 ? "" : "s", st.row_groups, st.row_groups == 1 ? "" : "s",
                st.bytes, now_s() - t0);
    return 0; /* main() checks the summary's write */
}

/* --expect K: the model's ids on stdout, one a line. 0, or 1 after an error message. */
static int topk_expect(const gen_args *a, const topk_gen *g)
{
    assert(a->expect >= 0 && a->expect <= TOPK_EXPECT_MAX);
    int64_t *ids = malloc((size_t)(a->expect > 0 ? a->expect : 1) * sizeof *ids);
    if (!ids) return GEN_ERR("--expect %" PRId64 ": out of memory", a->expect);
    int64_t n = 0;
    int rc = topk_gen_expect(g, a->expect, !a->asc, a->where_flag, ids, &n);
    if (rc) {
        free(ids);
        return GEN_ERR("--expect %" PRId64 ": %s", a->expect, strerror(-rc));
    }
    assert(n >= 0 && n <= a->expect);
    cli_sink *out = cli_out();
    for (int64_t i = 0; i < n; i++) sink_printf(out, "%" PRId64 "\n", ids[i]);
    free(ids);
    return 0; /* main() checks stdout's writes */
}

/* `gen topk`: refuses the other data sets' options, then writes the file or (--expect) prints
 * the model's answer. Exit status as cmd_gen's. */
static int gen_topk(gen_args *a)
{
    if (!a->layout_set || (a->layout != GL_PRUNING && a->layout != GL_CONTROL))
        return usage("topk needs --layout pruning or --layout control");
    if (a->sf > 0 || a->rows_set || a->bloom)
        return usage("--sf, --rows and --bloom are not for topk (its size is --row-groups)");
    if (!a->rg_rows_set) a->o.row_group_rows = GEN_TOPK_RG_ROWS;
    topk_layout l = a->layout == GL_PRUNING ? TOPK_LAYOUT_PRUNING : TOPK_LAYOUT_CONTROL;
    topk_gen g;
    if (topk_gen_init(&g, l, a->seed, a->row_groups, a->o.row_group_rows))
        return usage("--row-groups x --row-group-rows is over 2^36 rows");
    if (a->expect >= 0) {
        if (a->out) return usage("--expect prints ids and writes no file (drop -o)");
        return topk_expect(a, &g);
    }
    if (a->asc || a->where_flag) return usage("--asc and --where-flag go with --expect K");
    if (!a->out) return usage("-o FILE is required");
    pq_column_desc d[TOPK_COLS];
    topk_gen_schema(d);
    return run(a, d, TOPK_COLS, NULL, write_topk, &g);
}

/* Options of one data set given to another: a usage error's message, or NULL. */
static const char *misplaced(const gen_args *a)
{
    if (a->row_groups_set || a->expect >= 0 || a->asc || a->where_flag)
        return "--row-groups, --expect, --asc and --where-flag are for topk";
    if (a->layout_set && a->layout != GL_TPCH && a->layout != GL_CANCEL)
        return "--layout pruning|control is for topk (lineitem: tpch or cancel)";
    return NULL;
}

int cmd_gen(int argc, char **argv)
{
    gen_args a;
    memset(&a, 0, sizeof a);
    pq_writer_opts_default(&a.o);
    a.o.page_index = true; /* as parquet-rs writes by default: lets a scan cut big row groups */
    a.seed = 1;
    a.rows = 10000;
    a.row_groups = GEN_TOPK_ROW_GROUPS;
    a.expect = -1;
    a.threads = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
    int npos = 0;
    int prc = cli_parse(&cli_cmd_gen, argc, argv, 1, apply_opt, &a, &a.what, &npos);
    if (prc) return prc == CLI_HELP_SHOWN ? 0 : prc;
    int what = 0;
    while (what < 3 && strcmp(a.what, gen_whats[what]) != 0) what++;
    if (what == 3) {
        int at = cli_nearest(a.what, gen_whats, 3);
        return cli_usage_error(&cli_cmd_gen,
                               "unknown data set '%s'%s%s%s; one of lineitem, demo-types, topk",
                               a.what, at < 0 ? "" : " (did you mean ", at < 0 ? "" : gen_whats[at],
                               at < 0 ? "" : "?)");
    }
    if (what == 2) return gen_topk(&a);
    if (misplaced(&a)) return usage(misplaced(&a));
    if (!a.out) return usage("-o FILE is required");
    if (what == 1) {
        pq_column_desc d[GEN_DEMO_COLS];
        demo_schema(d);
        if (a.bloom) return usage("--bloom is for lineitem");
        if (a.sf > 0) return usage("--sf is for lineitem (demo-types' size is --rows)");
        return run(&a, d, GEN_DEMO_COLS, NULL, write_demo, NULL);
    }
    if (a.sf <= 0) return usage("--sf N is required");
    if (a.rows_set) return usage("--rows is for demo-types (lineitem's size is --sf)");
    lineitem_gen g;
    int rc = lineitem_gen_init(&g, a.sf, a.seed);
    if (rc) return GEN_ERR("lineitem: cannot set up sf=%g (%s)", a.sf, strerror(-rc));
    if (a.layout == GL_CANCEL && (rc = lineitem_gen_set_cancel_layout(&g, a.o.row_group_rows))) {
        lineitem_gen_free(&g);
        return GEN_ERR("--layout cancel needs --row-group-rows >= 128");
    }
    pq_column_desc d[LINEITEM_COLS_MAX];
    uint8_t flags[LINEITEM_COLS_MAX];
    rc = lineitem_schema(&g, a.bloom, d, flags) ? 1 : run(&a, d, g.ncols, flags, write_lineitem, &g);
    lineitem_gen_free(&g);
    return rc;
}
