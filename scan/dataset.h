/* scan/dataset.h: many Parquet files scanned as one table (a dataset). Above the floors of
 * scan/: a dataset scan runs one scan (scan.h) per file, up to one file per core at once,
 * takes their batches in path order, and rewrites each
 * file's batches to the dataset's schema. It owns
 *  - the file list (ds_files.c): paths, directories (every *.parquet below, recursively) and
 *    glob patterns (fnmatch(3) per path component, `**` any number of directories), sorted;
 *  - hive partitions (ds_files.c): `key=value` directories, their types inferred as DuckDB
 *    2.0.1 does (BIGINT for integers written canonically, DATE for YYYY-MM-DD, TIMESTAMP for
 *    YYYY-MM-DD HH:MM:SS[.ffffff], VARCHAR otherwise) or given (hive_types);
 *  - the schema (ds_schema.c): the first file's columns, or with union_by_name every file's
 *    by name (first appearance order), integers and floats widened, then the partition
 *    columns sorted by name (DuckDB's order); each file's filter with the columns it lacks
 *    and the partition columns as per-file constants;
 *  - the footers (ds_open.c): read as futures by tasks on the dataset's runtime (threads for
 *    URLs) in windows of max_open kept files, counted in the dataset's one fetch budget;
 *  - the scan (dataset.c): pruning (partition filters before any footer, footer statistics
 *    before a file's scan starts), limit, order across files (Top-K merged by ds_topk.c
 *    with one shared bound), statistics.
 *
 * Invariants:
 *  1. files are sorted by path (strcmp), a path listed twice kept twice (DuckDB's
 *     read_parquet of a list reads it twice); every file holds npart values, one per
 *     partition column, in the dataset's partition order.
 *  2. A partition column's desc is a flat OPTIONAL column of the dataset's schema: INT64
 *     (BIGINT), INT32 DATE (days), INT64 TIMESTAMP_MICROS (local: not adjusted to UTC, as
 *     DuckDB's TIMESTAMP) or BYTE_ARRAY STRING; its values (nulls aside) parse as that type in
 *     every file (checked at listing).
 *  3. At most max_open + inflight footers are held at once (a window, and the files still
 *     running); batches are taken from the files in path order, a batch from one file. */
#ifndef RINGSCAN_SCAN_DATASET_H
#define RINGSCAN_SCAN_DATASET_H
#include <stdbool.h>
#include <stdint.h>

#include "format/err.h"
#include "format/meta.h"
#include "io/io.h"

enum {
    DS_FILES_MAX = 1 << 20,     /* files a dataset may list (ringscan_options.max_files) */
    DS_FILES_DEFAULT = 100000,  /* max_files 0 */
    DS_OPEN_DEFAULT = 16,       /* footers held at once (max_open_files 0) */
    DS_OPEN_MAX = 1024,
    DS_DEPTH_MAX = 64,          /* directory levels a listing descends */
    DS_DIRS_MIN = 1024,         /* directories a listing reads: 2 * max_files + this */
    DS_PART_MAX = 32,           /* partition keys */
    DS_PATH_MAX = 4096,
};

typedef enum ds_ptype { DS_BIGINT = 0, DS_VARCHAR = 1, DS_DATE = 2, DS_TIMESTAMP = 3 } ds_ptype;

/* A partition column: its name, type, and the descriptor filters and Arrow see. */
typedef struct ds_part_col {
    char *name;
    ds_ptype type;
    pq_column_desc desc;        /* invariant 2 */
} ds_part_col;

typedef struct ds_file {
    char *path;
    char **text;                /* [npart]: the value as written in the path, escapes decoded;
                                   NULL for __HIVE_DEFAULT_PARTITION__ (a null) */
    int64_t *ival;              /* [npart]: BIGINT's value, DATE's days (else 0) */
} ds_file;

typedef struct ds_list {
    int nfiles;
    ds_file *files;             /* invariant 1 */
    int npart;
    ds_part_col *part;
} ds_list;

/* Lists the files of pats[0..n): a path (a file, or a directory: every regular *.parquet
 * below it, recursively), or a pattern with * ? [..] in its components and ** for any
 * number of directories (a component starting with '.' matches only a pattern that starts
 * with '.'). URLs (scheme://) are taken as files, but an s3:// pattern (or one ending in '/':
 * every *.parquet below) lists the bucket from the pattern's literal head (io_s3_list, with
 * io's credentials and endpoint) and keeps the keys it matches; an http(s) pattern is
 * refused (no listing). hive: 1 read
 * `key=value` directories (every file must hold the same keys), 0 read them when every file
 * has the same non-empty set (DuckDB's auto-detection), -1 never. types: NULL, or
 * "key:BIGINT,key:VARCHAR,key:DATE" for some keys (others inferred). At most max_files files.
 * 0 and *out (ds_list_free), or a status with e naming the pattern or file: -ENOENT when a
 * pattern matches no file or a path does not exist, RINGSCAN_ELIMIT past max_files or
 * DS_DEPTH_MAX, -EINVAL for bad types or a key missing from a file. */
int ds_list_build(const char *const *pats, int n, int hive, const char *types, int max_files,
                  const io_open_opts *io, ds_list *out, pq_err *e);
void ds_list_free(ds_list *l);
/* Names file path in e: e->msg becomes "PATH: what" (what may be e->msg itself), PATH shown
 * without a URL's password (io/store.h), or what as it is when it names path already
 * (io_msg_named: io/'s read errors do); e's offset and column stay. Sets e->status = rc and
 * returns rc. */
int ds_file_errf(pq_err *e, int rc, const char *path, const char *what);

/* Parses text as ptype t into *v (BIGINT value, DATE days, TIMESTAMP microseconds since
 * 1970-01-01 00:00:00); false when it does not fit. */
bool ds_part_parse(ds_ptype t, const char *text, int64_t *v);
/* DuckDB 2.0.1's VARCHAR -> DATE cast of text into *days (scan/ds_ptime.c): strict (type
 * inference) wants a year of 2 or more digits; not strict (a cast) also takes a timestamp's
 * date. False when it is no date. */
bool ds_ptime_date(const char *text, bool strict, int64_t *days);
/* DuckDB 2.0.1's VARCHAR -> TIMESTAMP cast of text into *us (an offset or zone name read and
 * ignored, as its hive partitioning reads one); false when it is no timestamp. */
bool ds_ptime_ts(const char *text, int64_t *us);
/* ds_ptime_ts with the offset written after the time, its seconds east of UTC, into *off_s
 * (0: none or 'Z'; a TIMESTAMPTZ cast subtracts it), and *named when a zone name follows. */
bool ds_ptime_tz(const char *text, int64_t *us, int64_t *off_s, bool *named);
/* Whether a partition value as written is Hive's null, __HIVE_DEFAULT_PARTITION__ (DuckDB and
 * pyarrow.dataset read it as NULL: ds_file.text[j] is then NULL). */
bool ds_part_is_null(const char *text);
/* The type DuckDB 2.0.1 infers for one value (BIGINT, DATE, TIMESTAMP or VARCHAR). */
ds_ptype ds_part_infer(const char *text);
/* A partition value's %XX escapes decoded in place, as DuckDB's hive partitioning (and
 * pyarrow's) reads a directory name: "%41%2Fb" is "A/b"; '+' stays, as do a '%' not followed
 * by two hex digits and %00 (a C string cannot hold it). DuckDB infers the type from the
 * text as written (ds_part_infer before decoding): "2024-01-01%2000%3A00%3A00" is the VARCHAR
 * "2024-01-01 00:00:00". */
void ds_part_decode(char *s);

#endif
