"""The C library through cffi in ABI mode: the declarations are ringscan.h itself (its
preprocessor lines dropped), so no struct layout is written twice.

The library is, in order: $RINGSCAN_LIB, the one the wheel carries (_lib/libringscan.so), or
libringscan.so.0 from the system's search path; the header $RINGSCAN_INCLUDE, the wheel's, or
<lib>/../include/ringscan.h. Importing checks that header and library are the same version.
"""
import ctypes
import os
import re
from pathlib import Path

import cffi

_here = Path(__file__).parent / "_lib"


def _lib_path():
    if os.environ.get("RINGSCAN_LIB"):
        return os.environ["RINGSCAN_LIB"]
    if (_here / "libringscan.so").exists():
        return str(_here / "libringscan.so")
    return "libringscan.so.0"


def _header(lib_path):
    for p in (os.environ.get("RINGSCAN_INCLUDE"), _here / "ringscan.h",
              Path(lib_path).resolve().parent.parent / "include" / "ringscan.h"):
        if p and Path(p).exists():
            return Path(p).read_text()
    raise ImportError("ringscan: ringscan.h not found (set RINGSCAN_INCLUDE)")


def _declarations(text):
    text = re.sub(r"#ifdef __cplusplus.*?#endif", "", text, flags=re.S)
    text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))
    return text.replace("RINGSCAN_API", "")


_path = _lib_path()
_text = _header(_path)
ffi = cffi.FFI()
ffi.cdef(_declarations(_text))
# RTLD_NODELETE: the library stays mapped after cffi closes it (its lib object freed as the
# interpreter exits); Arrow arrays, readers and capsules freed after that (a table in a
# reference cycle, freed by the last collection) call release functions inside it, and
# segfaulted when the library had been unmapped.
lib = ffi.dlopen(_path, ffi.RTLD_NOW | getattr(ffi, "RTLD_NODELETE", 0))
_want = re.search(r'#define RINGSCAN_VERSION_STRING "([^"]+)"', _text).group(1)
_got = ffi.string(lib.ringscan_version_string()).decode()
if _got != _want:
    raise ImportError(f"ringscan: the library {_path} is {_got}, its header {_want}")
version = _got

# Every type built now: cffi completes a struct (and parses a type string) the first time it
# is named, in Python code that a KeyboardInterrupt can stop halfway; a struct left half built
# stays "of unknown size" for the process (every later scan() failed). So nothing here is
# built lazily: the header's typedefs and structs, and the type strings the package names.
_typedefs, _structs, _unions = ffi.list_types()
for _t in _typedefs + [f"struct {n}" for n in _structs] + [
        "char[]", "const char *[]", "int[]", "uintptr_t", "ringscan_expr *[]",
        "ringscan_file **", "ringscan_dataset **", "ringscan_scan **",
        "struct ArrowArrayStream *", "struct ArrowSchema *"] + [
        f"{n} *" for n in _typedefs]:
    ffi.typeof(_t)
for _t in _typedefs:  # completes the struct layouts (opaque ones have no size)
    if ffi.typeof(_t).kind == "struct" and ffi.typeof(_t).fields is not None:
        ffi.sizeof(_t)

RINGSCAN_EFORMAT, RINGSCAN_EUNSUPPORTED = -1000, -1001
RINGSCAN_ELIMIT, RINGSCAN_EPARSE, RINGSCAN_ECHECKSUM = -1002, -1003, -1004


class RingscanError(Exception):
    """A failed call: .status is the library's status (a negative errno or RINGSCAN_E*), the
    message the library's (it names the file, offset and column where they apply)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class ParseError(RingscanError, ValueError):
    """A filter or ORDER BY that does not parse (RINGSCAN_EPARSE)."""


class InvalidArgument(RingscanError, ValueError):
    """An unknown column or an option outside its range (-EINVAL)."""


class FormatError(RingscanError):
    """The file is not valid Parquet, or a page fails its checksum."""


class Unsupported(RingscanError, NotImplementedError):
    """Valid input this reader does not handle (RINGSCAN_EUNSUPPORTED)."""


class NotFound(RingscanError, FileNotFoundError):
    """No such file (-ENOENT)."""


def error(status, message):
    """The exception for a status."""
    import errno
    cls = {RINGSCAN_EPARSE: ParseError, -errno.EINVAL: InvalidArgument,
           RINGSCAN_EFORMAT: FormatError, RINGSCAN_ECHECKSUM: FormatError,
           RINGSCAN_EUNSUPPORTED: Unsupported, -errno.ENOENT: NotFound}.get(status, RingscanError)
    return cls(status, message)


def check(rc, err):
    """Raises the exception for err when rc is a failure; returns rc."""
    if rc < 0:
        msg = ffi.string(err.message).decode("utf-8", "replace") or \
            ffi.string(lib.ringscan_strerror(rc)).decode()
        raise error(rc, msg)
    return rc


# ---- PyCapsules (the Arrow PyCapsule interface) ------------------------------------------
# A capsule owns a C struct (an ArrowArrayStream or ArrowSchema) the library allocated; its
# destructor, the library's ringscan_capsule_free_* (C: a destructor written in Python, a
# ctypes or cffi callback, would run under the exception a consumer failing to read the stream
# is raising as it drops the capsule, and lose it: pa.table() then raised SystemError),
# releases the struct unless a consumer moved it out (release NULL) and frees it.
_api = ctypes.pythonapi
_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", _api))
_names = {"stream": ctypes.c_char_p(b"arrow_array_stream"), "schema": ctypes.c_char_p(b"arrow_schema")}
_kinds = {"stream": (lib.RINGSCAN_CAPSULE_STREAM, "struct ArrowArrayStream *",
                     "ringscan_capsule_free_stream"),
          "schema": (lib.RINGSCAN_CAPSULE_SCHEMA, "struct ArrowSchema *",
                     "ringscan_capsule_free_schema")}
_destructors = {k: int(ffi.cast("uintptr_t", ffi.addressof(lib, v[2]))) for k, v in _kinds.items()}


def capsule(kind):
    """A capsule named for kind ("stream" or "schema") owning a new zeroed struct, and that
    struct (a cffi pointer) to fill while the capsule is alive."""
    code, ctype, _ = _kinds[kind]
    p = lib.ringscan_capsule_alloc(code)
    if p == ffi.NULL:
        raise MemoryError("ringscan: no memory for an Arrow struct")
    cap = _new(int(ffi.cast("uintptr_t", p)), _names[kind], _destructors[kind])
    return cap, ffi.cast(ctype, p)
