/* scan/ds_list_s3.h: an s3:// pattern's listing for a dataset (ds_files.c). */
#ifndef RINGSCAN_SCAN_DS_LIST_S3_H
#define RINGSCAN_SCAN_DS_LIST_S3_H
#include "format/err.h"
#include "io/io.h"

/* s3://bucket/pattern (a URL ending in '/': every *.parquet below it): the bucket listed from
 * the pattern's literal head (at most max * 16 + 1024 keys), each key the pattern matches
 * component by component (fnmatch, "**" any number of components) handed to add as its URL
 * (add's status other than 0 stops the listing and is returned). 0 or a status with e
 * filled. */
int ds_list_s3(const char *p, const io_open_opts *io, int max, int (*add)(void *ctx, const char *url),
               void *ctx, pq_err *e);

#endif
