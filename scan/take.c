/* scan/take.c: the projection's selected rows into an output vector (format/vec.c gathers). */
#include "scan/scan_impl.h"

int scan_take(const pq_vec *src, const uint32_t *idx, int64_t n, pq_vec *dst)
{
    pq_vec_init(dst, src->type, src->type_length);
    return pq_vec_take(src, idx, n, dst);
}
