/* ringscan.h: the public C API of ringscan, an embeddable Parquet scan runtime.
 *
 * Every call returns an int status: 0 on success, a negative errno or a RINGSCAN_E* code on
 * failure; functions that can fail with a reason also fill a message naming the file, the
 * offset and the column where that applies (ringscan_last_error). */
#ifndef RINGSCAN_H
#define RINGSCAN_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes beyond negative errno values. */
enum {
    RINGSCAN_EFORMAT = -1000,  /* the file is not valid Parquet (message says where) */
    RINGSCAN_EUNSUPPORTED = -1001, /* valid but not supported: nested, encrypted, codec */
    RINGSCAN_ELIMIT = -1002,   /* a configured limit was exceeded (message names it) */
    RINGSCAN_EPARSE = -1003,   /* a filter expression did not parse */
    RINGSCAN_ECHECKSUM = -1004 /* a page CRC did not match */
};

/* Text for a status code (static storage). */
const char *ringscan_strerror(int status);

#ifdef __cplusplus
}
#endif
#endif
