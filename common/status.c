/* common/status.c: status_text (status.h). */
#include "common/status.h"

#include <string.h>

#include "ringscan.h"

const char *status_text(int status)
{
    switch (status) {
    case 0: return "ok";
    case RINGSCAN_EFORMAT: return "invalid Parquet file";
    case RINGSCAN_EUNSUPPORTED: return "unsupported Parquet feature";
    case RINGSCAN_ELIMIT: return "limit exceeded";
    case RINGSCAN_EPARSE: return "filter expression did not parse";
    case RINGSCAN_ECHECKSUM: return "page checksum mismatch";
    default: return status < 0 && status > -4096 ? strerror(-status) : "unknown status";
    }
}
