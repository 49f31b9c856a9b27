/* scan/api_priv.h: what the files of the public API (scan/api.c, scan/api_meta.c) share:
 * the definition of ringscan_file. Nothing here is exported (ringscan.map). */
#ifndef RINGSCAN_SCAN_API_PRIV_H
#define RINGSCAN_SCAN_API_PRIV_H
#include "ringscan.h"
#include "scan/pqfile.h"

/* An open file: the parsed footer (f->meta, read-only after open) and the path its messages
 * name. */
struct ringscan_file {
    pqf_t *f;
    char *path;
};

#endif
