/* common/status.h: the text of a status code (negative errno or RINGSCAN_E*), for every layer's
 * messages; ringscan_strerror (the public API) returns the same. */
#ifndef RINGSCAN_COMMON_STATUS_H
#define RINGSCAN_COMMON_STATUS_H

/* Static text for status ("ok" for 0, "unknown status" for what is neither). */
const char *status_text(int status);

#endif
