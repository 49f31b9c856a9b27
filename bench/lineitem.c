/* bench/lineitem.c: the TPC-H lineitem data model (see lineitem.h for the model, the cancel
 * layout and the invariants).
 *
 * Random streams: order-level values (line count, order date) come from
 * mix64(key ^ mix64(i << 4 | 0)); line l (0-based) of order i owns a splitmix64 sequence
 * seeded by mix64(key ^ mix64(i << 4 | (8 + l))) and draws its fields in a fixed order. Adding
 * a field means appending a draw at the end, never inserting one, or every later value moves. */
#include "bench/lineitem.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ringscan.h"

const lineitem_column lineitem_columns[LINEITEM_COLS_MAX] = {
    {"l_orderkey", PQ_INT64, LI_KIND_INT, 0, 0},
    {"l_partkey", PQ_INT64, LI_KIND_INT, 0, 0},
    {"l_suppkey", PQ_INT64, LI_KIND_INT, 0, 0},
    {"l_linenumber", PQ_INT32, LI_KIND_INT, 0, 0},
    {"l_quantity", PQ_INT64, LI_KIND_DECIMAL, 15, 2},
    {"l_extendedprice", PQ_INT64, LI_KIND_DECIMAL, 15, 2},
    {"l_discount", PQ_INT64, LI_KIND_DECIMAL, 15, 2},
    {"l_tax", PQ_INT64, LI_KIND_DECIMAL, 15, 2},
    {"l_returnflag", PQ_BYTE_ARRAY, LI_KIND_STRING, 0, 0},
    {"l_linestatus", PQ_BYTE_ARRAY, LI_KIND_STRING, 0, 0},
    {"l_shipdate", PQ_INT32, LI_KIND_DATE, 0, 0},
    {"l_commitdate", PQ_INT32, LI_KIND_DATE, 0, 0},
    {"l_receiptdate", PQ_INT32, LI_KIND_DATE, 0, 0},
    {"l_shipinstruct", PQ_BYTE_ARRAY, LI_KIND_STRING, 0, 0},
    {"l_shipmode", PQ_BYTE_ARRAY, LI_KIND_STRING, 0, 0},
    {"l_comment", PQ_BYTE_ARRAY, LI_KIND_STRING, 0, 0},
    {"l_cancelkey", PQ_INT64, LI_KIND_INT, 0, 0},
};

const char *const lineitem_shipinstruct[4] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                              "TAKE BACK RETURN"};
const char *const lineitem_shipmode[7] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
static const uint8_t shipinstruct_len[4] = {17, 11, 4, 16};
static const uint8_t shipmode_len[7] = {7, 3, 4, 4, 5, 4, 3};
#define SHIPINSTRUCT_LEN_MAX 17
#define SHIPMODE_LEN_MAX 7

/* Comment vocabulary: the TPC-H text grammar's word classes (spec 4.2.2.10), shortened. */
static const char *const w_adverb[] = {
    "sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely", "quickly",
    "fluffily", "slowly", "quietly", "ruthlessly", "thinly", "closely", "doggedly", "daringly",
    "bravely", "stealthily", "permanently", "enticingly", "idly", "busily", "regularly",
    "finally", "ironically", "evenly", "boldly", "silently"};
static const char *const w_adjective[] = {
    "furious", "sly", "careful", "blithe", "quick", "fluffy", "slow", "quiet", "ruthless",
    "thin", "close", "dogged", "daring", "brave", "stealthy", "permanent", "enticing", "idle",
    "busy", "regular", "final", "ironic", "even", "bold", "silent", "pending", "special",
    "express", "unusual"};
static const char *const w_noun[] = {
    "foxes", "ideas", "theodolites", "pinto beans", "instructions", "dependencies", "excuses",
    "platelets", "asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs",
    "frets", "dinos", "attainments", "somas", "patterns", "forges", "braids", "frays",
    "warhorses", "dugouts", "epitaphs", "pearls", "tithes", "waters", "orbits", "gifts",
    "sheaves", "depths", "sentiments", "decoys", "realms", "pains", "grouches", "escapades",
    "accounts", "deposits", "packages", "requests"};
static const char *const w_verb[] = {
    "sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect",
    "integrate", "maintain", "nod", "was", "lose", "sublate", "solve", "thrash", "promise",
    "engage", "hinder", "print", "x-ray", "breach", "eat", "grow", "impress", "mold", "poach",
    "serve", "run", "dazzle", "snooze", "doze", "unwind", "kindle", "play", "hang", "believe",
    "doubt"};
static const char *const w_preposition[] = {
    "about", "above", "according to", "across", "after", "against", "along", "alongside of",
    "among", "around", "at", "atop", "before", "behind", "beneath", "beside", "besides",
    "between", "beyond", "by", "despite", "during", "except", "for", "from", "in place of",
    "inside", "instead of", "into", "near", "of", "on", "outside", "over", "past", "since",
    "through", "throughout", "to", "toward", "under", "until", "up", "upon", "without", "with",
    "within"};
static const char *const w_the[] = {"the"};
static const char *const w_terminator[] = {".", ";", ":", "?", "!", "--"};

#define NWORDS(a) ((uint64_t)(sizeof(a) / sizeof((a)[0])))
typedef struct word_class {
    const char *const *words;
    uint64_t n;
} word_class;
/* One sentence: adverb adjective noun verb preposition the adjective noun terminator. */
static const word_class grammar[] = {
    {w_adverb, NWORDS(w_adverb)},       {w_adjective, NWORDS(w_adjective)},
    {w_noun, NWORDS(w_noun)},           {w_verb, NWORDS(w_verb)},
    {w_preposition, NWORDS(w_preposition)}, {w_the, 1},
    {w_adjective, NWORDS(w_adjective)}, {w_noun, NWORDS(w_noun)},
    {w_terminator, NWORDS(w_terminator)},
};
#define GRAMMAR_SLOTS 9
#define GRAMMAR_TERMINATOR 8

static inline uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Next value of a splitmix64 sequence. */
static inline uint64_t next64(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) by multiply-high. */
static inline uint64_t below(uint64_t r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

static inline int64_t uniform(uint64_t *s, int64_t lo, int64_t hi)
{
    assert(lo <= hi);
    return lo + (int64_t)below(next64(s), (uint64_t)(hi - lo + 1));
}

static inline uint64_t order_hash(const lineitem_gen *g, int64_t i)
{
    return mix64(g->key ^ mix64((uint64_t)i << 4));
}

static inline int lines_of_hash(uint64_t h)
{
    return 1 + (int)(((h & 0xffffffffull) * LINEITEM_LINES_MAX) >> 32);
}

int lineitem_order_lines(const lineitem_gen *g, int64_t i)
{
    assert(i >= 0 && i < g->n_orders);
    return lines_of_hash(order_hash(g, i));
}

static int64_t scaled_count(double base, double sf)
{
    return (int64_t)floor(base * sf + 1e-6);
}

int lineitem_gen_init(lineitem_gen *g, double sf, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    if (!(sf > 0 && sf <= 100000)) return -EINVAL;
    g->sf = sf;
    g->seed = seed;
    g->key = mix64(seed ^ 0x6c696e656974656dull); /* "lineitem" */
    g->n_orders = scaled_count(1500000.0, sf);
    g->n_parts = scaled_count(200000.0, sf);
    g->n_supps = scaled_count(10000.0, sf);
    if (g->n_orders < 1 || g->n_parts < 1 || g->n_supps < 4) return -EINVAL;
    g->layout = LINEITEM_LAYOUT_TPCH;
    g->ncols = LINEITEM_TPCH_COLS;
    g->n_chunks = (g->n_orders + LINEITEM_CHUNK_ORDERS - 1) / LINEITEM_CHUNK_ORDERS;
    g->chunk_first_row = malloc((size_t)(g->n_chunks + 1) * sizeof(int64_t));
    if (!g->chunk_first_row) return -ENOMEM;
    int64_t rows = 0;
    for (int64_t i = 0; i < g->n_orders; i++) {
        if (i % LINEITEM_CHUNK_ORDERS == 0) g->chunk_first_row[i / LINEITEM_CHUNK_ORDERS] = rows;
        rows += lines_of_hash(order_hash(g, i));
    }
    g->chunk_first_row[g->n_chunks] = rows;
    g->total_rows = rows;
    assert(rows >= g->n_orders && rows <= g->n_orders * LINEITEM_LINES_MAX);
    return 0;
}

int lineitem_gen_set_cancel_layout(lineitem_gen *g, int64_t row_group_rows)
{
    assert(g->chunk_first_row != NULL);
    if (row_group_rows < 2 * LINEITEM_CANCEL_BLOCK_ROWS) return -EINVAL;
    g->layout = LINEITEM_LAYOUT_CANCEL;
    g->row_group_rows = row_group_rows;
    g->ncols = LINEITEM_COLS_MAX;
    return 0;
}

void lineitem_gen_free(lineitem_gen *g)
{
    free(g->chunk_first_row);
    g->chunk_first_row = NULL;
    g->n_chunks = 0;
}

int64_t lineitem_total_rows(const lineitem_gen *g)
{
    return g->total_rows;
}

int64_t lineitem_order_first_row(const lineitem_gen *g, int64_t i)
{
    assert(i >= 0 && i <= g->n_orders);
    if (i == g->n_orders) return g->total_rows;
    int64_t c = i / LINEITEM_CHUNK_ORDERS;
    int64_t row = g->chunk_first_row[c];
    for (int64_t k = c * LINEITEM_CHUNK_ORDERS; k < i; k++) row += lines_of_hash(order_hash(g, k));
    return row;
}

/* Writes a comment of exactly len bytes (10..43) into out (NUL-terminated). */
static void make_comment(uint64_t *s, int len, char *out)
{
    assert(len >= LINEITEM_COMMENT_LEN_MIN && len <= LINEITEM_COMMENT_LEN_MAX);
    int n = 0;
    int slot = (int)below(next64(s), GRAMMAR_TERMINATOR); /* never start on a terminator */
    for (int words = 0; n < len && words < 64; words++) {
        const word_class *wc = &grammar[slot];
        const char *w = wc->words[below(next64(s), wc->n)];
        if (n > 0 && slot != GRAMMAR_TERMINATOR) out[n++] = ' ';
        while (*w && n < len) out[n++] = *w++;
        slot = (slot + 1) % GRAMMAR_SLOTS;
    }
    assert(n == len);
    out[n] = '\0';
}

static int64_t cancel_value(const lineitem_gen *g, int64_t r, uint64_t *s)
{
    int64_t b = r % LINEITEM_CANCEL_BLOCK_ROWS;
    if (b == 0) return 0;
    if (b == 1) return LINEITEM_CANCEL_MAX;
    if (b == LINEITEM_CANCEL_BLOCK_ROWS / 2 &&
        (r / g->row_group_rows) % LINEITEM_CANCEL_GROUP_PERIOD == LINEITEM_CANCEL_GROUP_PHASE)
        return LINEITEM_CANCEL_LITERAL;
    return 2 * uniform(s, 0, LINEITEM_CANCEL_MAX / 2);
}

/* Fills one line from its own sequence s; the draw order is part of the model. */
static void make_line(const lineitem_gen *g, uint64_t *s, int32_t orderdate, lineitem_row *r)
{
    r->partkey = uniform(s, 1, g->n_parts);
    int64_t S = g->n_supps, j = uniform(s, 0, 3);
    r->suppkey = (r->partkey + j * (S / 4 + (r->partkey - 1) / S)) % S + 1;
    int64_t qty = uniform(s, 1, 50);
    int64_t retail_cents = 90000 + (r->partkey / 10) % 20001 + 100 * (r->partkey % 1000);
    r->quantity = qty * 100;
    r->extendedprice = qty * retail_cents;
    r->discount = uniform(s, 0, 10);
    r->tax = uniform(s, 0, 8);
    r->shipdate = orderdate + (int32_t)uniform(s, 1, 121);
    r->commitdate = orderdate + (int32_t)uniform(s, 30, 90);
    r->receiptdate = r->shipdate + (int32_t)uniform(s, 1, 30);
    int ra = (int)uniform(s, 0, 1);
    r->returnflag = r->receiptdate <= LINEITEM_DATE_CURRENT_DAYS ? (ra ? 'R' : 'A') : 'N';
    r->linestatus = r->shipdate > LINEITEM_DATE_CURRENT_DAYS ? 'O' : 'F';
    r->shipinstruct = (uint8_t)uniform(s, 0, 3);
    r->shipmode = (uint8_t)uniform(s, 0, 6);
    int len = (int)uniform(s, LINEITEM_COMMENT_LEN_MIN, LINEITEM_COMMENT_LEN_MAX);
    r->comment_len = (uint8_t)len;
    make_comment(s, len, r->comment);
    r->cancelkey = g->layout == LINEITEM_LAYOUT_CANCEL ? cancel_value(g, r->row_index, s) : 0;
}

int lineitem_order_rows(const lineitem_gen *g, int64_t i, int64_t first_row,
                        lineitem_row rows[LINEITEM_LINES_MAX])
{
    assert(i >= 0 && i < g->n_orders);
    assert(first_row >= 0 && first_row < g->total_rows);
    uint64_t h = order_hash(g, i);
    int n = lines_of_hash(h);
    int32_t orderdate = LINEITEM_DATE_START_DAYS +
                        (int32_t)(((h >> 32) * (uint64_t)(LINEITEM_ORDERDATE_MAX_DAYS -
                                                          LINEITEM_DATE_START_DAYS + 1)) >> 32);
    int64_t orderkey = (i / 8) * 32 + i % 8 + 1;
    for (int l = 0; l < n; l++) {
        lineitem_row *r = &rows[l];
        uint64_t s = mix64(g->key ^ mix64(((uint64_t)i << 4) | (uint64_t)(8 + l)));
        r->orderkey = orderkey;
        r->linenumber = l + 1;
        r->row_index = first_row + l;
        make_line(g, &s, orderdate, r);
    }
    return n;
}

void lineitem_vecs_init(const lineitem_gen *g, pq_vec *cols)
{
    assert(g->ncols == LINEITEM_TPCH_COLS || g->ncols == LINEITEM_COLS_MAX);
    for (int c = 0; c < g->ncols; c++) pq_vec_init(&cols[c], lineitem_columns[c].physical, 0);
}

void lineitem_vecs_free(const lineitem_gen *g, pq_vec *cols)
{
    for (int c = 0; c < g->ncols; c++) pq_vec_free(&cols[c]);
}

/* Longest value of each string column, for reservations. */
static int64_t max_len_bytes(int c)
{
    switch (c) {
    case LI_RETURNFLAG: case LI_LINESTATUS: return 1;
    case LI_SHIPINSTRUCT: return SHIPINSTRUCT_LEN_MAX;
    case LI_SHIPMODE: return SHIPMODE_LEN_MAX;
    case LI_COMMENT: return LINEITEM_COMMENT_LEN_MAX;
    default: return 0;
    }
}

static int reserve_all(const lineitem_gen *g, pq_vec *cols, int64_t rows)
{
    for (int c = 0; c < g->ncols; c++) {
        assert(cols[c].type == lineitem_columns[c].physical);
        int64_t bytes = rows * max_len_bytes(c);
        if (cols[c].type == PQ_BYTE_ARRAY && cols[c].data_len + bytes > INT32_MAX)
            return RINGSCAN_ELIMIT;
    }
    for (int c = 0; c < g->ncols; c++) {
        int rc = pq_vec_reserve(&cols[c], rows, rows * max_len_bytes(c));
        if (rc) return rc;
    }
    return 0;
}

static inline void put_i64(pq_vec *v, int64_t x)
{
    memcpy(v->values + v->length * 8, &x, 8);
    v->length++;
}

static inline void put_i32(pq_vec *v, int32_t x)
{
    memcpy(v->values + v->length * 4, &x, 4);
    v->length++;
}

static inline void put_str(pq_vec *v, const char *p, int64_t len)
{
    memcpy(v->data + v->data_len, p, (size_t)len);
    v->data_len += len;
    v->length++;
    v->offsets[v->length] = (int32_t)v->data_len;
}

static void scatter_row(const lineitem_gen *g, pq_vec *cols, const lineitem_row *r)
{
    put_i64(&cols[LI_ORDERKEY], r->orderkey);
    put_i64(&cols[LI_PARTKEY], r->partkey);
    put_i64(&cols[LI_SUPPKEY], r->suppkey);
    put_i32(&cols[LI_LINENUMBER], r->linenumber);
    put_i64(&cols[LI_QUANTITY], r->quantity);
    put_i64(&cols[LI_EXTENDEDPRICE], r->extendedprice);
    put_i64(&cols[LI_DISCOUNT], r->discount);
    put_i64(&cols[LI_TAX], r->tax);
    put_str(&cols[LI_RETURNFLAG], &r->returnflag, 1);
    put_str(&cols[LI_LINESTATUS], &r->linestatus, 1);
    put_i32(&cols[LI_SHIPDATE], r->shipdate);
    put_i32(&cols[LI_COMMITDATE], r->commitdate);
    put_i32(&cols[LI_RECEIPTDATE], r->receiptdate);
    put_str(&cols[LI_SHIPINSTRUCT], lineitem_shipinstruct[r->shipinstruct],
            shipinstruct_len[r->shipinstruct]);
    put_str(&cols[LI_SHIPMODE], lineitem_shipmode[r->shipmode], shipmode_len[r->shipmode]);
    put_str(&cols[LI_COMMENT], r->comment, r->comment_len);
    if (g->layout == LINEITEM_LAYOUT_CANCEL) put_i64(&cols[LI_CANCELKEY], r->cancelkey);
}

int lineitem_gen_batch(const lineitem_gen *g, int64_t first_order, int64_t n_orders,
                       pq_vec *cols, int64_t *rows_out)
{
    *rows_out = 0;
    if (first_order < 0 || n_orders < 0 || first_order > g->n_orders ||
        n_orders > g->n_orders - first_order)
        return -EINVAL;
    int64_t row = lineitem_order_first_row(g, first_order);
    int64_t end_row = lineitem_order_first_row(g, first_order + n_orders);
    int rc = reserve_all(g, cols, end_row - row);
    if (rc) return rc;
    int64_t length0 = cols[0].length;
    lineitem_row rows[LINEITEM_LINES_MAX];
    for (int64_t i = first_order; i < first_order + n_orders; i++) {
        int n = lineitem_order_rows(g, i, row, rows);
        for (int l = 0; l < n; l++) scatter_row(g, cols, &rows[l]);
        row += n;
    }
    assert(row == end_row);
    for (int c = 0; c < g->ncols; c++) assert(cols[c].length == cols[0].length);
    *rows_out = cols[0].length - length0;
    return 0;
}
