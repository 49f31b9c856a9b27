"""tests/cli/rs_ctypes.py: libringscan.so from Python through ctypes, for tests that compare
ringscan's Arrow export with pyarrow's reading of the same file: read_table(lib, path) scans
every column (default options) and imports the ArrowArrayStream as a pyarrow Table.
The options struct is only filled by ringscan_options_init (a zeroed 4 KiB block, larger
than ringscan_options), so this file does not depend on its layout."""
import ctypes
import pyarrow as pa


class Err(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * 512)]


class Stream(ctypes.Structure):
    _fields_ = [("p", ctypes.c_void_p * 5)]


def load(path):
    lib = ctypes.CDLL(path)
    lib.ringscan_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(Err)]
    lib.ringscan_scan_start.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(Err)]
    lib.ringscan_scan_stream.argtypes = [ctypes.c_void_p, ctypes.POINTER(Stream)]
    lib.ringscan_scan_free.argtypes = [ctypes.c_void_p]
    lib.ringscan_close.argtypes = [ctypes.c_void_p]
    lib.ringscan_options_init.argtypes = [ctypes.c_void_p]
    return lib


P = ctypes.c_void_p


class OptionsHead(ctypes.Structure):
    """ringscan_options (ringscan.h) from its start to ndictionary_columns, field for field
    (enums as int): only for the offsets of the fields options() sets."""
    _fields_ = [("struct_size", ctypes.c_size_t), ("columns", P), ("ncolumns", ctypes.c_int),
                ("filter", P), ("filter_expr", P), ("limit", ctypes.c_int64), ("order_by", P),
                ("order_desc", ctypes.c_bool), ("topk_bound", P), ("on_topk_bound", P),
                ("on_topk_bound_ctx", P), ("row_groups", P), ("nrow_groups", ctypes.c_int),
                ("policy", ctypes.c_int), ("threads", ctypes.c_int), ("io", ctypes.c_int),
                ("ordered", ctypes.c_bool), ("verify_checksums", ctypes.c_bool),
                ("split_rows", ctypes.c_int64), ("use_page_index", ctypes.c_bool),
                ("use_bloom", ctypes.c_bool), ("explain", ctypes.c_bool), ("int96_raw", ctypes.c_bool),
                ("store", P), ("s3", P * 5), ("tls_insecure", ctypes.c_bool),
                ("fetch_budget_bytes", ctypes.c_int64), ("hive_partitioning", ctypes.c_int),
                ("hive_types", P), ("union_by_name", ctypes.c_bool), ("max_files", ctypes.c_int),
                ("max_open_files", ctypes.c_int), ("dictionary_columns", P),
                ("ndictionary_columns", ctypes.c_int)]


def options(lib, columns, union_by_name=False, dictionary=None):
    """Default options with columns (None: every column) projected, and the names in
    dictionary (None: none) as dictionary_columns: (the options block, the names arrays it
    points to, which must outlive it)."""
    opts = ctypes.create_string_buffer(4096)
    lib.ringscan_options_init(opts)
    ctypes.c_bool.from_buffer(opts, OptionsHead.union_by_name.offset).value = union_by_name
    names = None
    if columns is not None:  # columns and ncolumns: the fields after struct_size (ringscan.h)
        names = (ctypes.c_char_p * (len(columns) + 1))(*[c.encode() for c in columns])
        ctypes.c_void_p.from_buffer(opts, 8).value = ctypes.cast(names, ctypes.c_void_p).value
        ctypes.c_int.from_buffer(opts, 16).value = len(columns)
    if dictionary is not None:
        dnames = (ctypes.c_char_p * (len(dictionary) + 1))(*[c.encode() for c in dictionary])
        ctypes.c_void_p.from_buffer(opts, OptionsHead.dictionary_columns.offset).value = \
            ctypes.cast(dnames, ctypes.c_void_p).value
        ctypes.c_int.from_buffer(opts, OptionsHead.ndictionary_columns.offset).value = len(dictionary)
        names = (names, dnames)
    return opts, names


def read_stream(lib, sc):
    """Scan sc's batches imported as a pyarrow Table: (pa.Table, None), or (None, the error
    the stream reported mid-way)."""
    st = Stream()
    lib.ringscan_scan_stream(sc, ctypes.byref(st))
    reader = pa.RecordBatchReader._import_from_c(ctypes.addressof(st))
    try:
        return reader.read_all(), None
    except (pa.ArrowException, OSError) as ex:
        return None, str(ex)
    finally:
        del reader


def start_and_read(lib, start, source, opts, err):
    """A scan started by start(source, opts) (ringscan_scan_start or ringscan_dataset_scan_start)
    read whole by read_stream, then freed: (pa.Table, None) or (None, error message)."""
    sc = ctypes.c_void_p()
    try:
        if start(source, opts, ctypes.byref(sc), ctypes.byref(err)) != 0:
            return None, err.message.decode()
        return read_stream(lib, sc)
    finally:
        lib.ringscan_scan_free(sc)


def read_table(lib, path, ordered=True, columns=None, dictionary=None):
    """The file as ringscan exports it (every column, or the names in columns; those in
    dictionary as dictionary arrays): (pa.Table, None) or (None, error message)."""
    err = Err()
    f = ctypes.c_void_p()
    if lib.ringscan_open(path.encode(), ctypes.byref(f), ctypes.byref(err)) != 0:
        return None, err.message.decode()
    opts, names = options(lib, columns, dictionary=dictionary)
    try:
        return start_and_read(lib, lib.ringscan_scan_start, f, opts, err)
    finally:
        lib.ringscan_close(f)


def read_dataset(lib, paths, columns=None, union_by_name=False, dictionary=None):
    """The dataset listed from paths (files, directories, patterns) as ringscan's dataset scan
    exports it (default options: hive partitions auto-detected, the first file's columns, or
    every file's with union_by_name): (pa.Table, None) or (None, error message)."""
    lib.ringscan_dataset_open.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_void_p,
                                          ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(Err)]
    lib.ringscan_dataset_scan_start.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(Err)]
    lib.ringscan_dataset_close.argtypes = [ctypes.c_void_p]
    err = Err()
    opts, names = options(lib, columns, union_by_name, dictionary)
    arr = (ctypes.c_char_p * len(paths))(*[p.encode() for p in paths])
    d = ctypes.c_void_p()
    if lib.ringscan_dataset_open(arr, len(paths), opts, ctypes.byref(d), ctypes.byref(err)) != 0:
        return None, err.message.decode()
    try:
        return start_and_read(lib, lib.ringscan_dataset_scan_start, d, opts, err)
    finally:
        lib.ringscan_dataset_close(d)
