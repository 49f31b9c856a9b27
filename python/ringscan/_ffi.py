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
lib = ffi.dlopen(_path)
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
# A capsule owns a C struct (an ArrowArrayStream or ArrowSchema) allocated here; its destructor
# releases the struct unless a consumer moved it out (release NULL), then drops it. ctypes
# gives the destructor (a capsule needs a C function pointer); it takes the capsule as a
# void pointer: a py_object argument would take a reference to an object being destroyed.
_api = ctypes.pythonapi
_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", _api))
_get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_names = {"stream": ctypes.c_char_p(b"arrow_array_stream"), "schema": ctypes.c_char_p(b"arrow_schema")}
_owned = {}  # address -> the cffi struct a live capsule points to


def _release(name):
    def destroy(capsule):
        address = _get(capsule, _names[name])
        c = _owned.pop(address, None)
        if c is not None and c.release != ffi.NULL:
            c.release(c)
    return ctypes.CFUNCTYPE(None, ctypes.c_void_p)(destroy)


_destructors = {k: _release(k) for k in _names}


def capsule(kind, c):
    """A capsule named for kind ("stream" or "schema") owning the cffi struct c."""
    address = int(ffi.cast("uintptr_t", c))
    _owned[address] = c
    return _new(address, _names[kind], ctypes.cast(_destructors[kind], ctypes.c_void_p))
