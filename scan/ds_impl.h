/* scan/ds_impl.h: what the files of a dataset scan share (dataset.h): its schema, the
 * per-file view of it, and the rewriting of a file's batch to the dataset's columns.
 *
 * Invariants:
 *  1. Schema columns: the data columns first (the first file's order, then each new name in
 *     the order files bring them), then the partition columns (part >= 0) sorted by name; a
 *     partition named as a file's column takes that column's place (DuckDB: the partition's
 *     value and type), and the files' own column of that name is not read.
 *  2. A data column's desc is the widest type any file has it in (ds_schema.c type_merge:
 *     integers, floats and decimals widen; times and timestamps take the finer unit and a UTC
 *     zone in a union by name, the first file's otherwise); a file's vector of it is widened
 *     to that type (ds_widen) and rescaled to its unit (ds_rescale) before it leaves the
 *     dataset.
 *  3. A file's view (ds_view) parses filters against the file's columns followed by one
 *     virtual column per partition column and per data column the file lacks; every
 *     predicate left in the scan's filter reads the file's own columns only.
 *  4. A data column's Arrow type is the one the first file that has it (`from`) gives it
 *     under its stored ARROW:schema (zone, large/view string, dictionary, decimal width,
 *     duration, field metadata: scan/arrow_types.c), as pyarrow.dataset takes the first
 *     file's schema and casts the other files to it; dropped when widening changed the
 *     column's Parquet type. A later file's durations in another unit are rescaled to the
 *     dataset's (ds_types.c); a filter on such a column is refused. Times and timestamps in
 *     another unit are rescaled too (their filters are parsed in each file's own unit).
 *  5. A nested top-level field (list, struct, map) is one column read whole (ds_nested.c):
 *     node >= 0, desc its first leaf's in `from`, meta from's footer (kept open) or a shape
 *     merged from files' (ds_nested_merge: a footer's nodes, held open, with leaf types of its
 *     own; ds_nested_union: struct fields merged by name, nodes and names of its own; its Arrow
 *     types those the files store where they agree: ds_types_col), its
 *     vectors packed rows (format/column_nested.h), null placeholders where a file lacks it;
 *     every file that has it pairs with its shape (ds_nmatch.c: struct fields by name, leaves
 *     widening or cast), its rows rewritten into it where they differ (ds_nwiden.c); a path
 *     inside it likewise (its node in the shape and in the file), null where the file's
 *     struct lacks a field on it (ds_out.c). No filter reads it. */
#ifndef RINGSCAN_SCAN_DS_IMPL_H
#define RINGSCAN_SCAN_DS_IMPL_H
#include "filter/expr.h"
#include "format/column_nested.h"
#include "format/vec.h"
#include "scan/arrow_types.h"
#include "scan/dataset.h"
#include "scan/ds_names.h"
#include "scan/ds_npair.h"
#include "scan/pqfile.h"
#include "scan/scan_rt.h"
#include <pthread.h>
#include <stdatomic.h>

typedef struct ds_col {
    char *name;                 /* owned */
    pq_column_desc desc;        /* the dataset's type (desc.name = name) */
    int part;                   /* partition column index, or -1 for a data column */
    char *from;                 /* the file that gave it this type (messages), owned */
    scan_arrow_type atype;      /* the Arrow type `from` stores for it (invariant 4), owned */
    pq_column_desc adesc;       /* from's desc of it, which atype was built for */
    int32_t node;               /* a nested field (invariant 5): its node in meta; -1: flat */
    const pq_file_meta *meta;   /* a nested field: from's footer (held open: ds_slot.held), or
                                   `merged` */
    pq_file_meta *merged;       /* NULL, or a nested field's shape no file has (a union by
                                   name's leaves of a type neither file's holds: ds_nested_merge):
                                   `held`'s schema with its own leaf types, owned (its columns) */
    const pq_file_meta *held;   /* with merged: the footer whose schema nodes it borrows */
    struct {                    /* set by a merge (ds_nested_merge, ds_nested_union): the shape
                                   it replaced, whose Arrow types (atype) ds_types_col pairs
                                   with the merged shape's, then cleared (meta NULL) */
        const pq_file_meta *meta;
        int32_t node;
        pq_file_meta *merged;   /* the replaced merged shape (owned), or NULL */
    } prev;
    bool twin;                  /* another column's name differs from this one in case alone
                                   (a file held both): files' columns pair by exact name */
    char *conflict;             /* NULL, or why a file's column of this name cannot be read as
                                   it (types that do not widen, another shape, missing without
                                   union_by_name), owned: an error only for a query that reads
                                   the column (ds_conflicts), as DuckDB and pyarrow.dataset
                                   read the other columns of such files */
} ds_col;

typedef struct ds_schema {
    int n;
    ds_col *cols;               /* invariant 1 */
    ds_names names;             /* cols' names indexed (ds_names.h), kept by add_col and
                                   ds_schema_drop_parts */
    char *metadata;             /* the first file's schema metadata (invariant 4), owned */
    int nnested;                /* top-level nested fields the files had (left out) */
    char **nested;              /* [nnested], at most DS_NESTED_MAX: "name\0file" each */
    bool have_metadata;         /* metadata was taken from a file (NULL: it has none) */
    const ds_list *list;        /* NULL, or the files whose partition keys name columns that
                                   ds_schema_parts replaces: a file's column of such a name is
                                   placed but never merged (its types may differ by file) */
} ds_schema;

/* Adds f's columns (path: its name for messages) to s: new names appended (union) or, when
 * !add_new, columns of s missing from f noted as DuckDB refuses them. A column whose type
 * differs is widened (ints to the wider int, ints and floats to DOUBLE), or its conflict noted
 * (ds_col.conflict, naming both files and the column; the first one kept). 0 or -ENOMEM. */
int ds_schema_add(ds_schema *s, const pq_file_meta *m, const char *path, bool add_new, pq_err *e);
/* Appends the partition columns of l (after every data column). */
int ds_schema_parts(ds_schema *s, const ds_list *l);
void ds_schema_free(ds_schema *s);
/* Index of name in s (the column spelled so, else the only one whose name differs in case
 * alone, as SQL identifiers match), or -1. */
int ds_schema_find(const ds_schema *s, const char *name);
enum { DS_NESTED_MAX = 256 }; /* nested fields remembered for messages */
/* The file in which name (a top-level field, or a path in one) is a nested field a dataset
 * leaves out (a LIST or MAP shape the format does not allow), or NULL (ds_nested.c). */
const char *ds_schema_nested(const ds_schema *s, const char *name);
/* (ds_nested.c) The first leaf of nested top-level field i of m when the format can read its
 * shape, -1 when it cannot, or -ENOMEM (checking it needs memory: never taken for -1, which
 * left the field out of the schema and the scan's answer). */
int ds_nested_readable(const pq_file_meta *m, int32_t i);
/* (ds_nested.c) 0 when top-level field i of m (file path) has the shape of s's nested column
 * at, its leaves the same or widening into the column's (ds_nwiden.c); in a union by name
 * (by_name) also when the column's leaves widen into m's: the column takes m's field as its
 * shape (*took: the caller rebuilds its Arrow type, ds_types_col). Else
 * RINGSCAN_EUNSUPPORTED naming both files (or -ENOMEM). */
int ds_nested_match(ds_schema *s, int at, const pq_file_meta *m, int32_t i, const char *path,
                    bool by_name, bool *took, pq_err *e);
/* (ds_types.c) The Arrow type of s's column c rebuilt after file m (path) changed its shape
 * (ds_nested_match's took): m's field taken whole, its stored types m's; a merged shape
 * (c->prev set, then cleared): per node, the stored format and dictionary where the shape it
 * replaced (its atype) and m store the same for a leaf of the merged type (a zone both store
 * in other units: in the merged unit), else the Parquet type's; the field metadata the
 * replaced shape's, or m's where it lacks the node (a struct field), as pyarrow's
 * unify_schemas merges the files' fields. 0 or a status with e filled. */
int ds_types_col(ds_schema *s, int c, const pq_file_meta *m, const char *path, pq_err *e);
enum { DS_ZONE_NAME_MAX = 64 };
/* (ds_zone.c) The offset (seconds east of UTC) of wall-clock second local_s (seconds from the
 * epoch, as if UTC) in the zone named name[0 .. len) ("Europe/Paris", any case, "GMT+5"), by
 * ICU, as DuckDB's cast gives it (a skipped hour: the offset before it; a repeated one: the
 * later instant's). False when ICU has no zone of that name. Thread-safe. */
bool ds_zone_offset(const char *name, size_t len, int64_t local_s, int64_t *off_s);
/* (ds_types.c) The Arrow type of a path inside merged nested column c (c->merged: a shape no
 * file's footer stores types for), node tn of its shape, into out (one column, freed by
 * scan_arrow_types_free): each node's format and dictionary from the node of the whole
 * column's (c->atype) it comes from, the metadata as a one-file scan's path takes it (the
 * path's node and those under it; the root's when no list is passed), as the whole merged
 * field keeps them. 0, -ENOMEM, or pq_nest_build's status (e filled). */
int ds_types_path(const ds_col *c, int32_t tn, scan_arrow_types *out, pq_err *e);
/* (ds_nested.c) Remembers field, a nested field of file path that is left out, for messages
 * (at most DS_NESTED_MAX). 0 or -ENOMEM. */
int ds_nested_remember(ds_schema *s, const char *field, const char *path);
/* (ds_nested.c) File m's leaf of schema column c (a nested field's first leaf, its node in
 * *node, else -1), or -1 when m lacks it (or it is a partition column, or m's is of the null
 * type and c's is not: ds_null_typed). */
int ds_col_leaf(const ds_col *c, const pq_file_meta *m, int32_t *node);
/* Path name (its first component the field's) inside nested column c, spelled as another
 * writer spells a list's or a map's levels, as node of c's shape: a two-level list's repeated
 * level ("array", "<list>_tuple", "element", "item", "array_element") for a three-level list's
 * middle level and element, or a three-level list's ("list" or "bag", then "element", "item",
 * "array" or "array_element") for a two-level list's element; a map's repeated level as
 * "key_value" or "map" whatever the shape names it (a map has that one child); a component
 * naming a node of the shape is always taken as that node (names matched as
 * pq_file_meta_find_path matches them), so a path the shape spells resolves alike. The node's
 * index, or -1 when name still names none. */
int32_t ds_path_respell(const ds_col *c, const char *name);
/* Whether d is of the null type (Parquet's UNKNOWN logical type: pyarrow's pa.null(), a
 * column whose every value is null). A file's null-typed column under a column of another type
 * reads as nulls, as a column the file lacks (ds_col_leaf: -1), in DuckDB's and pyarrow's
 * way; in a union by name the other type replaces a first file's null type. */
static inline bool ds_null_typed(const pq_column_desc *d)
{
    return d->logical == PQ_LOGICAL_UNKNOWN;
}
/* (ds_nmatch.c) In a union by name, nested column c's shape as field tn of tm (c's own shape,
 * a file's or merged, or a later file's that holds every field) with its leaves paired with
 * fm's (p: tm's shape the target; every node paired, no field tm lacks) typed as ones holding
 * both, as DuckDB's union_by_name types them: integers of which neither holds the other's
 * values as the smallest signed integer that holds both (UINT32 beside INT32: INT64); the
 * others as the wider of the two (timestamps: INT64 in the finer unit, UTC when either is; a
 * UINT64 beside a signed integer DuckDB's HUGEINT). c->meta, c->node become c->merged, tn
 * (the old shape kept as c->prev for ds_types_col: ds_col_retire). 0, -ENOMEM, or
 * RINGSCAN_EUNSUPPORTED (a pair that does not merge; c unchanged). */
int ds_nested_merge(ds_col *c, const pq_file_meta *tm, int32_t tn, const ds_npair *p,
                    const pq_file_meta *fm);
/* (ds_nmatch.c) Nested leaf a (the column's) merged with b (a file's) in place, as
 * ds_nested_merge types a leaf pair: a's type kept where b's widens into it, b's taken where
 * a's widens into b's, integers neither holds the other's as the smallest signed one holding
 * both; false otherwise (a unchanged then). */
bool ds_nested_leaf_merge(pq_column_desc *a, const pq_column_desc *b);
/* (ds_nunion.c) In a union by name, nested column c's shape (c->meta, c->node) and field fn
 * of fm merged by struct field name at every depth, as DuckDB's union_by_name merges structs:
 * c's fields in order, then fm's others; leaves both have typed by ds_nested_leaf_merge. The
 * shape is c's own (c->merged, with c->held NULL: no footer held for it; c->node 0); the old
 * one kept as c->prev (ds_col_retire). 0, -ENOMEM, or RINGSCAN_EUNSUPPORTED (fields added
 * under a node that is not a struct, nodes of other kinds, leaves that do not merge; c
 * unchanged). */
int ds_nested_union(ds_col *c, const pq_file_meta *fm, int32_t fn);
/* Frees c's merged shape and its prev one (c->meta then dangles: the caller sets it). */
void ds_col_unmerge(ds_col *c);
/* (ds_nmatch.c) c's shape kept as c->prev (an earlier prev freed), for ds_types_col, before a
 * merge gives c a new one (c->merged and c->held cleared). */
void ds_col_retire(ds_col *c);
/* (ds_nmatch.c) Frees c->prev's merged shape and clears c->prev. */
void ds_col_prev_free(ds_col *c);
/* (ds_nested.c) Whether a nested column of s takes its shape from footer m (m must stay open
 * while s is used). */
bool ds_schema_holds(const ds_schema *s, const pq_file_meta *m);

/* One file as the dataset sees it: the parser's schema (invariant 3) and per schema column
 * its leaf in the file (-1: a virtual column). */
typedef struct ds_view {
    int ncols;                  /* file columns + virtual ones */
    int nfile;                  /* the file's own columns */
    pq_column_desc *cols;       /* owned array; file descs copied, virtual ones appended */
    int *virt;                  /* [ncols - nfile]: the schema column of each virtual column */
    int *leaf;                  /* [schema n]: the file's leaf of each schema column (a
                                   nested field's first leaf), or -1 */
    int32_t *node;              /* [schema n]: a nested field's node in the file, or -1 */
} ds_view;

/* The view of file fi (meta m) under schema s. 0 or -ENOMEM. */
int ds_view_init(ds_view *v, const ds_schema *s, const pq_file_meta *m);
void ds_view_free(ds_view *v);
/* (ds_nwiden.c) Whether a nested field of schema s in file m (its view v) has leaves other than
 * the schema's: its packed rows are widened (ds_nested_widen), so its scan builds no columns. */
bool ds_view_nested_widened(const ds_schema *s, const ds_view *v, const pq_file_meta *m);

/* The Arrow types of s's columns [first, s->n), just added from file m (path), from m's
 * stored ARROW:schema (invariant 4), and s's metadata when no file gave it yet. 0 or a
 * status with e filled naming path (an ARROW:schema that does not parse, as pyarrow). */
int ds_types_add(ds_schema *s, int first, const pq_file_meta *m, const char *path, pq_err *e);
/* The Arrow types of the projected schema columns out[0..n) into *types (malloc'd, n
 * entries: the caller frees the array alone, its metadata is borrowed from s) and
 * cols[j].type set to them; the columns named in names[0..nnames) (options.
 * dictionary_columns) exported as dictionary arrays. 0, -ENOMEM, or -EINVAL with e naming a
 * name that is not a projected string or binary column. */
int ds_types_project(const ds_schema *s, const int *out, int n, const char *const *names,
                     int nnames, struct scan_arrow_col *cols, scan_arrow_type **types, pq_err *e);
/* The scan_opts.dict_out flags of a file's nleaves leaves (*out, malloc'd): leaf pos[j] of
 * each projected column j < nout whose type t[j] is a dictionary array is decoded as indices
 * into its chunk's dictionary (the scan decides where it can). 0 or -ENOMEM. */
int ds_types_dict_out(const scan_arrow_type *t, const int *pos, int nout, int nleaves, bool **out);
/* Per schema column of view v (file m, path), the factor its durations take to the dataset's
 * unit into scale[s->n] (0: none; > 0: multiply; < 0: divide exactly by -scale). 0 or a
 * status with e filled naming path. */
int ds_types_file(const ds_schema *s, const ds_view *v, const pq_file_meta *m, const char *path,
                  int64_t *scale, pq_err *e);
/* v (schema column c's vector from file path) multiplied or divided by scale (ds_types_file),
 * as pyarrow casts durations: RINGSCAN_EUNSUPPORTED naming both files, the column and the
 * value when one overflows or would lose data. */
int ds_rescale(const ds_col *c, int64_t scale, const char *path, pq_vec *v, pq_err *e);
/* Whether filter x (parsed against v's columns; NULL: none) reads a column scale[] rescales
 * (its literals would be read in the file's unit), or x or the dataset's filter (filtered[],
 * typed against the schema) reads one that file path's integers cast to text (a union by
 * name's VARCHAR: the file's comparisons would be numeric): refused, with e naming the
 * column, path and the file that gave the column its type. */
int ds_types_filter(const ds_schema *s, const ds_view *v, const int64_t *scale, const bool *filtered,
                    const flt_expr *x, const char *path, pq_err *e);

/* Whether view v's values of schema column c compare otherwise once cast to c's type: cast
 * to text (ds_to_text), or a decimal rounded to fewer decimals (ds_dec_cast), or fail the
 * cast (an integer narrowed: range checked, failing as DuckDB's cast before its filter), so a
 * filter on c is evaluated on the cast values (ds_post.c), not parsed in the file's own type. */
bool ds_types_cast(const ds_schema *s, const ds_view *v, int c);

/* The value file f has in schema column c that is virtual for it (a partition's value, or
 * null) as a vector of rows rows of c's type; 0 or -ENOMEM. */
int ds_const_vec(const ds_schema *s, int c, const ds_file *f, int64_t rows, pq_vec *out);
/* v (a file's vector of schema column c) widened to c's type in place (ds_widen.c); 0 or
 * -ENOMEM. */
int ds_widen(const pq_column_desc *to, const pq_column_desc *from, pq_vec *v);
/* (ds_text.c) Unscaled value of row r of a decimal vector (INT32, INT64, or a
 * sign-extended big-endian FLBA of at most 16 bytes), or of an integer one (a decimal of
 * scale 0; UINT32 and UINT64 unsigned), as 128 bits. */
__int128 ds_dec_get128(const pq_column_desc *d, const pq_vec *v, int64_t r);
/* (ds_text.c) v replaced by w, its converted rows (w's values filled; v's validity and
 * counts carried; v's buffers freed). */
void ds_replace_vec(pq_vec *v, pq_vec *w);
/* (ds_text.c) The values integer type d holds into [*lo, *hi] (by its annotation's width and
 * sign, else its physical type's); false when d is no integer. */
bool ds_int_range(const pq_column_desc *d, __int128 *lo, __int128 *hi);
/* (ds_text.c) Whether DuckDB casts a column of d's type to VARCHAR beside a string column
 * and ds_to_text prints it: a BOOLEAN, an integer of any width or sign, a decimal of up to 38
 * digits (INT32, INT64, FIXED_LEN up to 16 bytes), a FLOAT or DOUBLE, a DATE, a TIME not
 * adjusted to UTC, a TIMESTAMP (INT64 in any unit and zone, or INT96). */
bool ds_texted(const pq_column_desc *d);
/* (ds_text.c) v (of file type from: ds_texted) replaced by its values as text, as DuckDB's
 * cast to VARCHAR prints them; a null an empty value. 0, -EOVERFLOW (past INT32_MAX bytes of
 * text), or -ENOMEM. */
int ds_to_text(const pq_column_desc *from, pq_vec *v);
enum { DS_TEXT_MAX = 64 }; /* the most bytes ds_value_text writes */
/* (ds_text.c) One value of type from (ds_texted) at value (a packed nested leaf's bytes: its
 * fixed width, a BOOLEAN one byte 0/1) as text into buf, as ds_to_text prints it; its length. */
int ds_value_text(const pq_column_desc *from, const uint8_t *value, char buf[DS_TEXT_MAX]);
/* (ds_text.c) x, an unscaled decimal of scale digits after the point, as text into buf (at
 * least 42 bytes; no NUL); its length. */
int ds_decimal_text(__int128 x, int scale, char *buf);
/* (ds_text.c) Whether every value integer type from holds, integer type to holds too (false
 * when either is no integer). */
bool ds_int_within(const pq_column_desc *from, const pq_column_desc *to);
/* Whether a file's column of type from is read into dataset type to by ds_dec_cast: to is a
 * decimal and from a decimal or an integer in another form, precision or scale; or to is an
 * integer and from a decimal, or an integer whose range to does not hold (a first file's
 * integer without union_by_name: DuckDB casts a later INT64 to a first INT32, range checked);
 * or from is a FLOAT or DOUBLE and to a decimal, an integer, or a FLOAT under a DOUBLE (a
 * first file's type without union_by_name: rounded and range checked as DuckDB casts); or
 * from is a string and to is not (a later file's strings under a first file's type without
 * union_by_name: parsed, ds_parse_cast). */
static inline bool ds_dec_cast_needed(const pq_column_desc *to, const pq_column_desc *from)
{
    if (from->physical == PQ_BYTE_ARRAY) return to->physical != PQ_BYTE_ARRAY; /* ds_parse_cast */
    bool dec = from->logical == PQ_LOGICAL_DECIMAL;
    bool number = from->physical == PQ_INT32 || from->physical == PQ_INT64 ||
                  (from->physical == PQ_FIXED_LEN_BYTE_ARRAY && dec);
    __int128 lo, hi;
    if (from->physical == PQ_FLOAT || from->physical == PQ_DOUBLE)
        return to->logical == PQ_LOGICAL_DECIMAL || ds_int_range(to, &lo, &hi) ||
               (to->physical == PQ_FLOAT && from->physical == PQ_DOUBLE);
    if (to->logical != PQ_LOGICAL_DECIMAL)
        return (dec && (to->physical == PQ_INT32 || to->physical == PQ_INT64)) ||
               (ds_int_range(from, &lo, &hi) && ds_int_range(to, &lo, &hi) &&
                !ds_int_within(from, to));
    return number && (from->logical != to->logical || from->physical != to->physical ||
                      from->type_length != to->type_length ||
                      from->decimal_scale != to->decimal_scale ||
                      from->decimal_precision != to->decimal_precision);
}
/* (ds_text.c) x into row r of v, a decimal or integer of d's physical type (INT32, INT64, or
 * a big-endian FLBA of at most 16 bytes); x fits it (the caller checked its range). */
void ds_dec_put(const pq_column_desc *d, pq_vec *v, int64_t r, __int128 x);
/* (ds_text.c) The unscaled values decimal d (precision 1..38, stored as INT32, INT64 or an FLBA
 * of at most 16 bytes) holds, [*lo, *hi]: its precision's 10^p - 1 either side, within what
 * its physical form holds. A file may claim more digits than its physical type has (an INT32
 * DECIMAL(20,0), an FLBA(3) DECIMAL(7,2)): a value cast into it beyond that form's range was
 * cut to its low bytes (99999999999 read as 1215752191), now it is out of range. */
void ds_dec_range(const pq_column_desc *d, __int128 *lo, __int128 *hi);
/* (ds_text.c) Type d as a cast's error names it into buf (cap bytes): "DECIMAL(p,s)", with
 * " held in N bytes" when its physical form holds fewer digits (ds_dec_range; true then:
 * DuckDB reads such a value, ringscan refuses it), else "PHYSICAL/LOGICAL". */
bool ds_cast_type_text(const pq_column_desc *d, char *buf, size_t cap);
/* (ds_parse.c) s as DuckDB's cast from VARCHAR to BIGINT reads it (spaces around, '_' between
 * digits, a fraction or exponent rounded half away from zero, 0x / 0b digits) into *v; false
 * when it does not parse or is out of range. Also --hive-types' BIGINT cast (ds_parts.c). */
bool ds_parse_bigint(const char *s, int64_t *v);
/* (ds_parse.c) v (file path's strings of schema column c, whose type is not a string:
 * ds_texted, a first file's type without union_by_name) replaced by their values parsed as
 * DuckDB's cast from VARCHAR parses them. 0, -ENOMEM, or RINGSCAN_EUNSUPPORTED with e naming
 * path, the column, the string and the file that gave c its type when one does not parse. */
int ds_parse_cast(const ds_col *c, const char *path, pq_vec *v, pq_err *e);
/* (ds_parse.c) Whether a nested string leaf is cast into type `to` by ds_parse_leaf: a boolean,
 * integer, decimal, float, date, time or timestamp (ds_texted), not INT96. */
bool ds_parse_leaf_typed(const pq_column_desc *to);
/* (ds_parse.c) String s[0..n) parsed as ds_parse_cast parses a flat column's (DuckDB's cast from
 * VARCHAR) into a nested leaf of type `to` (ds_parse_leaf_typed): its packed bytes
 * (format/column_nested.h) into out (room for 16), their count into *w; false when it does not
 * parse. */
bool ds_parse_leaf(const pq_column_desc *to, const char *s, size_t n, uint8_t *out, int *w);
/* (ds_widen.c) v (schema column c's vector from file path, a decimal or an integer: its
 * unscaled values) as c's decimal (or integer: scale 0), as DuckDB casts it: multiplied or
 * divided (rounding half away from zero) to c's scale, in c's physical form; a FLOAT or
 * DOUBLE times 10^scale rounded half away from zero into a decimal, rounded half to even into
 * an integer, or a DOUBLE as a FLOAT. 0, -ENOMEM, or RINGSCAN_EUNSUPPORTED with e naming path,
 * the column, the value and the file that gave c its type when a value does not fit c's
 * precision or range (a NaN or infinity into a decimal or integer). */
int ds_dec_cast(const ds_col *c, const pq_column_desc *from, const char *path, pq_vec *v,
                pq_err *e);
/* A decimal of up to 18 digits, whatever its physical type (INT32, INT64, FIXED_LEN). */
static inline bool ds_small_decimal(const pq_column_desc *d)
{
    return d->logical == PQ_LOGICAL_DECIMAL && d->decimal_precision <= 18 &&
           (d->physical == PQ_INT32 || d->physical == PQ_INT64 ||
            (d->physical == PQ_FIXED_LEN_BYTE_ARRAY && d->type_length <= 16));
}
/* A decimal of 19 to 38 digits in a 16-byte FIXED_LEN (a union by name's merge of decimals of
 * other precisions or scales, ds_schema.c decimal_merge, as DuckDB's DECIMAL(p, s)). */
static inline bool ds_wide_decimal(const pq_column_desc *d)
{
    return d->logical == PQ_LOGICAL_DECIMAL && d->decimal_precision > 18 &&
           d->decimal_precision <= 38 && d->physical == PQ_FIXED_LEN_BYTE_ARRAY &&
           d->type_length == 16;
}
/* (ds_text.c) d's time or timestamp unit as a power of ten of seconds (3, 6, 9; INT96: 9); 0
 * when d is neither. */
int ds_time_unit(const pq_column_desc *d);

/* What a file's filter is parsed with (flt_parse_fold, flt_from_tree_fold): its virtual
 * columns (v's columns from nfile on) as constants, each comparison over them alone decided
 * on file f's values, so a clause ORing a partition (or missing) column with the file's own
 * columns keeps only the latter's part, or is dropped, in that file. */
typedef struct ds_fold {
    flt_fold fold;              /* what the parser takes (its ctx: this) */
    const ds_schema *s;
    const ds_view *v;
    const ds_file *f;
} ds_fold;
void ds_fold_init(ds_fold *x, const ds_schema *s, const ds_view *v, const ds_file *f);

/* Splits expr (parsed against v's columns) into what the scan evaluates and what this file's
 * constants decide: predicates over virtual columns only are evaluated here on file f's
 * values and dropped (*none set when one keeps no row); a predicate mixing virtual and file
 * columns in one comparison (ds_fold decides the others) is RINGSCAN_EUNSUPPORTED naming it.
 * 0 or a status with e filled. */
int ds_filter_split(const ds_schema *s, const ds_view *v, const ds_file *f, flt_expr *expr,
                    bool *none, pq_err *e);
/* Whether the filter's top-level AND terms on partition columns alone rule file fi out (false
 * when the filter says nothing about partitions): the filter as text (terms split at AND
 * outside parentheses, quotes and BETWEEN), or as a tree (NULL: none). Reads no file. */
bool ds_prune_partitions(const ds_schema *s, const ds_list *l, int fi, const char *text,
                         const flt_tnode *tree);

/* A dataset's footers (ds_open.c): per file its open footer or open error, or pruned. Read as
 * futures by up to DS_FOOTER_TASKS tasks on the dataset's runtime at once (ds_footers_run_on). */
enum { DS_FOOTER_TASKS = 32 };
typedef struct ds_slot {
    pqf_t *f;
    int rc;
    pq_err e;
    bool pruned;                /* by partition (no footer read) */
    bool held;                  /* open to the end: a nested column's shape (ds_schema_holds) */
} ds_slot;

/* A core's footer reading: the io context its footer tasks share (made by the first, freed
 * by the last). Touched only on that core. */
typedef struct ds_fcore {
    io_ctx_t *io;
    int tasks;
    struct ds_footers *f;
} ds_fcore;

typedef struct ds_footers {
    const ds_list *list;
    const io_open_opts *io;
    int max_open;               /* kept files a window holds */
    ds_slot *slots;             /* [nfiles] */
    _Atomic int next;           /* the readers' cursor */
    int end;
    _Atomic int64_t read;       /* footers read */
    _Atomic int64_t reads;      /* their read calls: a tail each, a second for a longer footer */
    _Atomic int64_t on_cores;   /* footers read as futures by tasks on the runtime (the rest:
                                   by the host, when no task could be spawned) */
    int ahead_to;               /* > 0: the window [end of the window in use, ahead_to) is
                                   being read ahead */
    int win_end;                /* the end of the window in use (ds_footers_need) */
    struct scan_budget_share *share; /* NULL, or the fetch budget the footers held count in */
    _Atomic uint64_t bytes;     /* footer bytes read so far (ds_open.c footer_bytes) */
    struct scan_rt *rt;         /* NULL, or the runtime whose cores read the footers */
    ds_fcore *cores;            /* [rt->threads] */
    pthread_mutex_t mu;         /* with cv: tasks, the footer tasks spawned and not ended, */
    pthread_cond_t cv;
    int tasks;
    int posts;                  /* and the cancel messages posted and not run (ds_open.c) */
    atomic_bool stop;           /* the runtime was cancelled: no footer read starts */
    scan_rt_member member;      /* what the runtime's cancel reaches (ds_footers_run_on) */
} ds_footers;

/* With share (NULL: none) the bytes of each footer held (its serialized metadata and the
 * page-index bytes it keeps) count in share's held from its read to its close, and the next
 * window is read ahead only while the budget has room for it (ds_footers_need). */
int ds_footers_init(ds_footers *f, const ds_list *l, const io_open_opts *io, int max_open,
                    struct scan_budget_share *share);
void ds_footers_free(ds_footers *f);
/* The runtime whose cores read the footers, before any is read (without one, or when no task
 * can be spawned, the host reads them itself, blocking): rt outlives f's reads
 * (ds_footers_free waits for them). Its cancel (scan_rt_cancel) cancels the footer reads in
 * flight and fails every footer not read yet (-ECANCELED). 0 or -ENOMEM. */
int ds_footers_run_on(ds_footers *f, struct scan_rt *rt);
/* The end of the window of at most kept unpruned files starting at from. */
int ds_footers_window_end(const ds_footers *f, int from, int kept);
/* Reads the footers of the unpruned, unopened files of [from, to) concurrently. */
void ds_footers_open(ds_footers *f, int from, int to);
void ds_footers_close(ds_footers *f, int i);
/* For the files' scans, in path order: file i's footer read (or its open error) when this
 * returns: from the window read ahead (waited for), or read now with its window of
 * max_open / 2 kept files; then the next window is read ahead in the background when the
 * fetch budget (if any) has room for it at the footers' mean size so far, so the footers of
 * at most max_open files are read and not yet taken at once, and a file's footer is ready
 * before its scan starts when the budget allowed. */
void ds_footers_need(ds_footers *f, int i);
/* Whether file i's footer is there without waiting (pruned, read, or failed: ds_footers_need
 * returns at once); when it is not, its window is read in the background unless a window is
 * being read already, so a later call finds it. */
bool ds_footers_try(ds_footers *f, int i);
/* Waits for the window read ahead, if any (ds_footers_need): no footer read is in flight when
 * this returns, so the footer and store counters are final. */
void ds_footers_join(ds_footers *f);
/* File i's open error, its path in front; returns its status. */
int ds_footers_error(const ds_footers *f, int i, pq_err *e);
/* The data columns into s: every unpruned file's (union_by_name; over more files than one
 * window, each footer is closed once read and read again for its scan) or the first
 * unpruned file's (every file pruned: file 0's, read and closed). 0 or a status. */
int ds_footers_schema(ds_footers *f, ds_schema *s, bool union_by_name, pq_err *e);
/* Adds the columns of the files pruned by partition to s (union by name): their footers are
 * read for this and closed. For a query that names a column only those files have (DuckDB
 * binds union_by_name to every file). 0 or a status. */
int ds_footers_schema_pruned(ds_footers *f, ds_schema *s, pq_err *e);
/* Removes the partition columns from s (they are appended again after new data columns). */
void ds_schema_drop_parts(ds_schema *s);

#endif
