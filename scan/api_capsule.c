/* scan/api_capsule.c: Arrow PyCapsule destructors for bindings that cannot compile one
 * (ringscan.h, "Arrow PyCapsules").
 *
 * Why: a PyCapsule's destructor runs when its last reference goes, and a consumer that fails
 * while reading a stream (pyarrow's pa.table on a scan that fails midway) drops the capsule
 * with the exception it raises already set. A destructor written in Python (a ctypes or cffi
 * callback, the package's only way to give one without a compiler) then runs Python code
 * under that exception: the interpreter reports it as raised in the callback, clears it, and
 * the consumer returns NULL with no exception (SystemError). These destructors run no Python
 * code: they call only the interpreter's PyCapsule_GetPointer, which leaves the error state
 * alone for a capsule of the right name.
 *
 * Owns nothing: each capsule owns its struct, allocated here. */
#include "ringscan.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

typedef void *(*get_pointer_fn)(void *capsule, const char *name);

static pthread_once_t looked_up = PTHREAD_ONCE_INIT;
static get_pointer_fn get_fn;

static void look_up(void)
{
    get_fn = (get_pointer_fn)dlsym(RTLD_DEFAULT, "PyCapsule_GetPointer");
}

/* The interpreter's PyCapsule_GetPointer, looked up in the process once (a Python executable
 * exports its C API to the extensions it loads); NULL outside a Python process. A stream's
 * release runs under the GIL here (it frees an unread scan, joining its threads: none of them
 * calls into Python). */
static get_pointer_fn get_pointer(void)
{
    (void)pthread_once(&looked_up, look_up);
    return get_fn;
}

void *ringscan_capsule_alloc(int kind)
{
    if (kind == RINGSCAN_CAPSULE_STREAM) return calloc(1, sizeof(struct ArrowArrayStream));
    if (kind == RINGSCAN_CAPSULE_SCHEMA) return calloc(1, sizeof(struct ArrowSchema));
    return NULL;
}

void ringscan_capsule_free_stream(void *capsule)
{
    get_pointer_fn get = get_pointer();
    struct ArrowArrayStream *st = get ? get(capsule, "arrow_array_stream") : NULL;
    if (!st) return; /* not a Python process, or not a stream capsule: nothing of ours */
    if (st->release) st->release(st); /* NULL: a consumer moved it out */
    free(st);
}

void ringscan_capsule_free_schema(void *capsule)
{
    get_pointer_fn get = get_pointer();
    struct ArrowSchema *sc = get ? get(capsule, "arrow_schema") : NULL;
    if (!sc) return;
    if (sc->release) sc->release(sc);
    free(sc);
}
