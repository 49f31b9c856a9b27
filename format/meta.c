/* format/meta.c: the footer, the FileMetaData decoder (row groups, column chunks, key-value
 * metadata, column orders) and the arena that owns a parsed pq_file_meta.
 *
 * Owns: pq_footer_locate, pq_file_meta_parse/free, lookups, names, the arena.
 * Invariants:
 *  1. The schema (field 2) precedes row_groups (field 4), as every writer emits them; the
 *     other fields may come in any order. Statistics are resolved when a caller asks for
 *     them (meta.h invariant 6), after the whole struct: created_by and column_orders known.
 *  2. Every row group has ncolumns chunks; every chunk's ColumnMetaData is present, its type
 *     equals the schema's, and its sizes/offsets/counts are >= 0.
 *  3. On failure nothing is left allocated and *out is zeroed.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/meta_priv.h"
#include "format/name_index.h"
#include "common/fail.h"

/* ---- arena ----------------------------------------------------------------------------- */

typedef struct arena_blk {
    struct arena_blk *next;
    size_t used, cap;
    _Alignas(16) uint8_t data[];
} arena_blk;

struct pq_arena {
    arena_blk *head;
};

enum { ARENA_BLOCK = 64 * 1024 };

pq_arena *pq_arena_new(void)
{
    return fail_calloc(1, sizeof(pq_arena));
}

/* n bytes, 16-aligned, not zeroed; NULL when n is too large or malloc fails. */
static void *arena_take(pq_arena *a, size_t n)
{
    assert(a);
    if (n > ((size_t)1 << 40)) return NULL;
    n = (n + 15) & ~(size_t)15;
    arena_blk *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        arena_blk *nb = fail_malloc(sizeof *nb + cap);
        if (!nb) return NULL;
        nb->used = 0;
        nb->cap = cap;
        if (b && cap != ARENA_BLOCK) { /* big block: keep the current small one on top */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    assert(b->used <= b->cap);
    return p;
}

void *pq_arena_alloc(pq_arena *a, size_t n)
{
    void *p = arena_take(a, n);
    if (p) memset(p, 0, (n + 15) & ~(size_t)15); /* with its padding, as arena_take rounds */
    return p;
}

void *pq_arena_copy(pq_arena *a, const void *src, size_t n)
{
    void *p = arena_take(a, n);
    if (p && n) memcpy(p, src, n);
    return p;
}

char *pq_arena_strdup(pq_arena *a, const uint8_t *p, size_t n)
{
    char *s = pq_arena_alloc(a, n + 1);
    if (s && n) memcpy(s, p, n);
    return s;
}

void pq_arena_free(pq_arena *a)
{
    if (!a) return;
    for (arena_blk *b = a->head, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    free(a);
}

void *pq_file_meta_alloc(pq_file_meta *m, size_t n)
{
    if (!m->arena && !(m->arena = pq_arena_new())) return NULL;
    return pq_arena_alloc(m->arena, n);
}

void pq_meta_limits_default(pq_meta_limits *l)
{
    l->max_meta_bytes = PQ_META_MAX_BYTES_DEFAULT;
    l->max_schema_depth = 64;
    l->max_columns = 100000;
    l->max_row_groups = 1000000;
    l->max_thrift_depth = PQ_THRIFT_MAX_DEPTH;
}

/* ---- footer ---------------------------------------------------------------------------- */

int pq_footer_locate(const uint8_t *tail, size_t tail_len, uint64_t file_size,
                     uint64_t max_meta_bytes, uint64_t *meta_offset, uint32_t *meta_len,
                     bool *in_tail, pq_err *e)
{
    assert(meta_offset && meta_len && in_tail);
    if (max_meta_bytes == 0) max_meta_bytes = PQ_META_MAX_BYTES_DEFAULT;
    if (file_size < 12)
        return pq_errf(e, RINGSCAN_EFORMAT, 0, "file of %llu bytes is too small for Parquet",
                       (unsigned long long)file_size);
    if (tail_len < 8 || tail_len > file_size)
        return pq_errf(e, RINGSCAN_EFORMAT, -1, "footer tail of %zu bytes is too short", tail_len);
    const uint8_t *f = tail + tail_len - 8;
    int64_t foff = (int64_t)file_size - 8;
    if (memcmp(f + 4, "PARE", 4) == 0)
        return pq_errf(e, RINGSCAN_EUNSUPPORTED, foff + 4, "file is encrypted");
    if (memcmp(f + 4, "PAR1", 4) != 0)
        return pq_errf(e, RINGSCAN_EFORMAT, foff + 4, "not a Parquet file (no PAR1 at the end)");
    if (tail_len == file_size && memcmp(tail, "PAR1", 4) != 0)
        return pq_errf(e, RINGSCAN_EFORMAT, 0, "not a Parquet file (no PAR1 at the start)");
    uint32_t n = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 | (uint32_t)f[3] << 24;
    /* A length past the file is a broken footer, not a big one: checked before the limit, so
     * raising max_meta_bytes is never suggested for a file no limit would open. */
    if ((uint64_t)n + 12 > file_size)
        return pq_errf(e, RINGSCAN_EFORMAT, foff,
                       "footer metadata length %u exceeds the file of %llu bytes", n,
                       (unsigned long long)file_size);
    if (n > max_meta_bytes)
        return pq_errf(e, RINGSCAN_ELIMIT, foff,
                       "footer metadata of %u bytes is above the limit max_meta_bytes=%llu", n,
                       (unsigned long long)max_meta_bytes);
    *meta_offset = file_size - 8 - n;
    *meta_len = n;
    *in_tail = (uint64_t)n + 8 <= tail_len;
    return 0;
}

/* ---- names ----------------------------------------------------------------------------- */

const char *pq_physical_name(pq_physical t)
{
    static const char *n[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                              "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return (unsigned)t < 8 ? n[t] : "?";
}

const char *pq_logical_name(pq_logical l)
{
    static const char *n[] = {"NONE", "STRING", "ENUM", "JSON", "BSON", "UUID", "DECIMAL", "DATE",
                              "TIME_MILLIS", "TIME_MICROS", "TIME_NANOS", "TIMESTAMP_MILLIS",
                              "TIMESTAMP_MICROS", "TIMESTAMP_NANOS", "INT8", "INT16", "INT32",
                              "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "FLOAT16",
                              "INTERVAL", "UNKNOWN"};
    return (unsigned)l < sizeof n / sizeof n[0] ? n[l] : "?";
}

const char *pq_codec_name(pq_codec c)
{
    static const char *n[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD",
                              "LZ4_RAW"};
    return (unsigned)c < 8 ? n[c] : "?";
}

const char *pq_encoding_name(pq_encoding enc)
{
    static const char *n[] = {"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
                              "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
                              "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
    return (unsigned)enc < 10 ? n[enc] : "?";
}

const char *pq_page_type_name(pq_page_type t)
{
    static const char *n[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2"};
    return (unsigned)t < 4 ? n[t] : "?";
}

int pq_file_meta_index(pq_file_meta *m)
{
    assert(m->arena && m->ncolumns >= 0 && m->nnodes >= 0);
    pq_name_ref *c = pq_arena_alloc(m->arena, sizeof *c * ((size_t)m->ncolumns + 1));
    pq_name_ref *nd = pq_arena_alloc(m->arena, sizeof *nd * ((size_t)m->nnodes + 1));
    if (!c || !nd) return -ENOMEM;
    for (int32_t i = 0; i < m->ncolumns; i++) c[i] = (pq_name_ref){m->columns[i].name, i};
    for (int32_t i = 0; i < m->nnodes; i++) nd[i] = (pq_name_ref){m->nodes[i].path, i};
    pq_name_index_sort(c, m->ncolumns);
    pq_name_index_sort(nd, m->nnodes);
    m->col_index = c, m->node_index = nd;
    return 0;
}

int32_t pq_file_meta_find_column(const pq_file_meta *m, const char *name)
{
    if (m->col_index) return pq_name_index_find(m->col_index, m->ncolumns, name);
    for (int32_t i = 0; i < m->ncolumns; i++)
        if (strcmp(m->columns[i].name, name) == 0) return i;
    return -1;
}

int32_t pq_columns_find(const pq_column_desc *cols, int32_t n, const char *name)
{
    int32_t folded = -1, nfolded = 0;
    for (int32_t i = 0; i < n; i++) {
        if (!cols[i].name) continue;
        if (strcmp(cols[i].name, name) == 0) return i;
        if (strcasecmp(cols[i].name, name) == 0) folded = i, nfolded++;
    }
    return nfolded > 1 ? -2 : folded;
}

const char *pq_file_meta_top_name(const pq_file_meta *m, const char *name, bool exact)
{
    if (pq_file_meta_find_column(m, name) >= 0 || (m->has_nested && pq_file_meta_find_node(m, name) >= 0))
        return name;
    if (exact) return NULL;
    if (!m->has_nested) { /* the flat columns: pq_columns_find's rule */
        int32_t i = m->col_index ? pq_name_index_folded(m->col_index, m->ncolumns, name)
                                 : pq_columns_find(m->columns, m->ncolumns, name);
        return i >= 0 ? m->columns[i].name : NULL;
    }
    const char *folded = NULL;
    int n = 0;
    if (m->node_index) { /* (the nodes whose paths equal name but for case: the top ones) */
        int32_t end, r = pq_name_index_run(m->node_index, m->nnodes, name, &end);
        for (; r < end; r++)
            if (m->nodes[m->node_index[r].at].parent < 0) folded = m->node_index[r].name, n++;
        return n == 1 ? folded : NULL;
    }
    for (int32_t i = 0; i < m->nnodes; i = m->nodes[i].end)
        if (strcasecmp(m->nodes[i].path, name) == 0) folded = m->nodes[i].path, n++;
    return n == 1 ? folded : NULL;
}

int32_t pq_file_meta_find_node(const pq_file_meta *m, const char *path)
{
    if (m->node_index) return pq_name_index_find(m->node_index, m->nnodes, path);
    for (int32_t i = 0; i < m->nnodes; i++)
        if (strcmp(m->nodes[i].path, path) == 0) return i;
    return -1;
}

int32_t pq_file_meta_child(const pq_file_meta *m, int32_t parent, const char *path,
                           const char **rest)
{
    int32_t end = parent < 0 ? m->nnodes : m->nodes[parent].end, folded = -1, n = 0;
    for (int32_t i = parent + 1; i < end; i = m->nodes[i].end) {
        const char *nm = m->nodes[i].name;
        size_t len = strlen(nm);
        if (strncasecmp(nm, path, len) != 0 || (path[len] != '.' && path[len] != '\0')) continue;
        if (strncmp(nm, path, len) == 0) {
            *rest = path + len;
            return i;
        }
        folded = i, n++;
    }
    if (n != 1) return -1;
    *rest = path + strlen(m->nodes[folded].name);
    return folded;
}

int32_t pq_file_meta_find_path(const pq_file_meta *m, const char *path)
{
    int32_t exact = pq_file_meta_find_node(m, path);
    if (exact >= 0) return exact;
    int32_t at = -1;
    for (int32_t depth = 0; depth < m->nnodes; depth++) { /* (no path is deeper) */
        at = pq_file_meta_child(m, at, path, &path);
        if (at < 0 || !*path) return at;
        if (!*++path) return -1; /* (a trailing '.') */
    }
    return -1;
}

const char *pq_shape_name(pq_shape s)
{
    static const char *n[] = {"flat", "list", "map", "struct"};
    return (unsigned)s < 4 ? n[s] : "?";
}

const pq_kv *pq_file_meta_find_kv(const pq_file_meta *m, const char *key)
{
    for (int32_t i = 0; i < m->nkv; i++)
        if (strcmp(m->kv[i].key, key) == 0) return &m->kv[i];
    return NULL;
}

void pq_file_meta_free(pq_file_meta *m)
{
    if (!m) return;
    pq_arena_free(m->arena);
    memset(m, 0, sizeof *m);
}
