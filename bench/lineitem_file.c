/* bench/lineitem_file.c: the lineitem Parquet writer loop (see lineitem_file.h). Moved from
 * cli/cmd_gen.c unchanged in behaviour so that the bench can generate its data in-process. */
#include "bench/lineitem_file.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lineitem_file_schema(const lineitem_gen *g, pq_column_desc *d)
{
    for (int c = 0; c < g->ncols; c++) {
        const lineitem_column *lc = &lineitem_columns[c];
        memset(&d[c], 0, sizeof d[c]);
        d[c].name = lc->name;
        d[c].physical = lc->physical;
        d[c].repetition = PQ_REQUIRED;
        d[c].field_id = -1;
        d[c].logical = lc->kind == LI_KIND_DECIMAL ? PQ_LOGICAL_DECIMAL
                       : lc->kind == LI_KIND_DATE  ? PQ_LOGICAL_DATE
                       : lc->kind == LI_KIND_STRING ? PQ_LOGICAL_STRING : PQ_LOGICAL_NONE;
        d[c].decimal_precision = lc->precision;
        d[c].decimal_scale = lc->scale;
    }
}

typedef struct gen_slot {
    pq_vec cols[LINEITEM_COLS_MAX];
    int64_t rows;
    int rc;
} gen_slot;

typedef struct gen_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gen_slot slots[LINEITEM_FILE_QUEUE];
    int64_t produced, consumed, nbatches; /* batch b lives in slots[b % LINEITEM_FILE_QUEUE] */
    bool stop;
    const lineitem_gen *g;
} gen_queue;

static int gen_one(const lineitem_gen *g, int64_t b, gen_slot *s)
{
    for (int c = 0; c < g->ncols; c++) pq_vec_clear(&s->cols[c]);
    int64_t first = b * LINEITEM_FILE_BATCH_ORDERS, n = g->n_orders - first;
    if (n > LINEITEM_FILE_BATCH_ORDERS) n = LINEITEM_FILE_BATCH_ORDERS;
    return lineitem_gen_batch(g, first, n, s->cols, &s->rows);
}

static void *producer(void *arg)
{
    gen_queue *q = arg;
    for (int64_t b = 0; b < q->nbatches; b++) {
        pthread_mutex_lock(&q->mu);
        while (!q->stop && q->produced - q->consumed >= LINEITEM_FILE_QUEUE) pthread_cond_wait(&q->cv, &q->mu);
        bool stop = q->stop;
        pthread_mutex_unlock(&q->mu);
        if (stop) break;
        gen_slot *s = &q->slots[b % LINEITEM_FILE_QUEUE];
        s->rc = gen_one(q->g, b, s); /* the slot is ours until produced advances */
        pthread_mutex_lock(&q->mu);
        q->produced++;
        if (s->rc) q->stop = true;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
        if (s->rc) break;
    }
    return NULL;
}

/* Takes batch b (waiting for the producer); NULL when the producer stopped first. */
static gen_slot *take(gen_queue *q, int64_t b)
{
    pthread_mutex_lock(&q->mu);
    while (q->produced <= b && !q->stop) pthread_cond_wait(&q->cv, &q->mu);
    gen_slot *s = q->produced > b ? &q->slots[b % LINEITEM_FILE_QUEUE] : NULL;
    pthread_mutex_unlock(&q->mu);
    return s;
}

static void release(gen_queue *q, bool stop)
{
    pthread_mutex_lock(&q->mu);
    q->consumed++;
    if (stop) q->stop = true;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

int lineitem_file_write(const lineitem_gen *g, pq_writer *w, int threads, lineitem_file_tick tick,
                        void *ctx, pq_err *e)
{
    gen_queue *q = calloc(1, sizeof *q);
    if (!q) return pq_errf(e, -ENOMEM, -1, "out of memory");
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    q->g = g;
    q->nbatches = (g->n_orders + LINEITEM_FILE_BATCH_ORDERS - 1) / LINEITEM_FILE_BATCH_ORDERS;
    for (int i = 0; i < LINEITEM_FILE_QUEUE; i++) lineitem_vecs_init(g, q->slots[i].cols);
    pthread_t th;
    bool threaded = threads >= 2 && pthread_create(&th, NULL, producer, q) == 0;
    int rc = 0;
    int64_t total = lineitem_total_rows(g), done = 0;
    for (int64_t b = 0; b < q->nbatches && !rc; b++) {
        gen_slot *s = threaded ? take(q, b) : &q->slots[0];
        if (!threaded) s->rc = gen_one(g, b, s);
        if (!s || s->rc) {
            rc = pq_errf(e, s ? s->rc : -EIO, -1, "lineitem generator failed at batch %" PRId64, b);
            break;
        }
        rc = pq_writer_write(w, s->cols, s->rows, e);
        done += s->rows;
        if (tick && rc == 0) tick(ctx, done, total);
        if (threaded) release(q, rc != 0);
    }
    if (threaded) {
        release(q, true); /* wakes the producer if it waits for room */
        pthread_join(th, NULL);
    }
    for (int i = 0; i < LINEITEM_FILE_QUEUE; i++) lineitem_vecs_free(g, q->slots[i].cols);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q);
    return rc;
}

int lineitem_file_sink(void *file, const void *p, size_t n)
{
    errno = 0;
    if (fwrite(p, 1, n, (FILE *)file) == n) return 0;
    return errno ? -errno : -EIO;
}
