"""scan() and its Reader, metadata().

A handle the library returns (a file, a dataset, a scan) is written by the call itself into a
box (a cffi pointer-to-pointer) that already belongs to whoever frees it: a KeyboardInterrupt
raised as a long call returns (Ctrl-C while a dataset lists or a footer is read) can then
never lose the handle, and with it the scan's threads."""
import contextlib
import operator
import os
import queue
import threading

from . import _ffi, _sigint
from ._ffi import ffi, lib, check
from .expr import Expr

_POLICIES = {"lazy": lib.RINGSCAN_POLICY_LAZY, "eager": lib.RINGSCAN_POLICY_EAGER,
             "adaptive": lib.RINGSCAN_POLICY_ADAPTIVE}


def _order_text(order_by):
    """ORDER BY text from "a DESC, b", ["a", "b"] or [("a", "descending"), ...] (pyarrow's
    sort_by form: its name is a column's name, quoted here; ("my col", "descending") read as
    the text "my col DESC", "no column named 'my'")."""
    if order_by is None or isinstance(order_by, str):
        return order_by
    if not isinstance(order_by, (list, tuple)):
        raise TypeError(f"ringscan: order_by is a str or a list, not {type(order_by).__name__}")
    parts = []
    for k in order_by:
        if isinstance(k, str):
            parts.append(k)
        else:
            name, how = k
            if how not in ("ascending", "descending"):
                raise ValueError(f"order_by: {how!r} is not 'ascending' or 'descending'")
            if not isinstance(name, str):
                raise TypeError(f"ringscan: order_by's column name is a str, not {name!r}")
            quoted = '"' + name.replace('"', '""') + '"'
            parts.append(f"{quoted} {'DESC' if how == 'descending' else 'ASC'}")
    return ", ".join(parts)


_INT = {32: (-2**31, 2**31 - 1), 64: (-2**63, 2**63 - 1)}


def _int(v, what, bits=64):
    """v as the library's int of that many bits: an integer (a bool, a numpy integer) or a
    TypeError naming what (int() truncated 3.7 to 3 and parsed "3"); outside the C type a
    ValueError naming it (cffi's OverflowError named nothing)."""
    try:
        n = operator.index(v)
    except TypeError:
        raise TypeError(f"ringscan: {what} is an int, not {type(v).__name__}") from None
    lo, hi = _INT[bits]
    if not lo <= n <= hi:
        raise ValueError(f"ringscan: {what} {n} is outside {lo}..{hi}")
    return n


def _names(v, what):
    """A list of names, never a str (a str iterates as its letters)."""
    if isinstance(v, (str, bytes)):
        raise TypeError(f"ringscan: {what} is a list of names, not a {type(v).__name__}")
    return list(v)


def _bound_in(bound):
    """A (is_float, value) bound as the library's struct."""
    is_float, v = bound
    b = ffi.new("ringscan_topk_bound *")
    b.set, b.is_float = True, bool(is_float)
    if is_float:
        b.f = float(v)
    else:
        b.i = _int(v, "topk_bound's value")
    return b


def plan_row_groups(source, columns=None, filter=None, row_groups=None):
    """The row groups of a file a scan with this filter would read (statistics, bloom filter
    and page-index pruning from the footer; no data read), ascending."""
    o, keep, tree = _options(columns, filter, row_groups=row_groups)

    def work():
        try:
            with _opened(source, o) as f:
                err = ffi.new("ringscan_error *")
                n = check(lib.ringscan_plan_row_groups(f, o, ffi.NULL, 0, err), err)
                out = ffi.new("int[]", max(n, 1))
                check(lib.ringscan_plan_row_groups(f, o, out, n, err), err)
                return list(out[0:n])
        finally:
            if tree is not None:
                lib.ringscan_expr_free(tree)
    return _interruptible(o, keep, work)


def count_rows(source, filter=None, threads=None, **options):
    """The number of rows of source (a file, or a dataset as scan() takes it) that pass filter
    (SQL text or an expression; None: every row), as pyarrow's Dataset.count_rows, with the
    filter's SQL semantics (DuckDB's: NaN compares above every number, where pyarrow's
    comparisons with NaN are false). Answered
    from the footers where statistics settle a row group (no data read without a filter);
    only the other row groups are scanned. Other options as scan()'s (limit caps the count)."""
    many = isinstance(source, (list, tuple))
    o, keep, tree = _options(filter=filter, threads=threads, **options)
    o.explain = False

    def work():
        err = ffi.new("ringscan_error *")
        c = ffi.new("ringscan_count_info *")
        try:
            if many or _is_dataset(source):
                with _dataset_opened(source if many else [source], o) as d:
                    check(lib.ringscan_dataset_count(d, o, c, err), err)
            else:
                with _opened(source, o) as f:
                    check(lib.ringscan_count(f, o, c, err), err)
            return int(c.rows)
        finally:
            if tree is not None:
                lib.ringscan_expr_free(tree)
    return _interruptible(o, keep, work)


def _is_dataset(source):
    """A pattern, a directory, or an s3:// prefix ending in '/': several files (as `ringscan
    scan` decides)."""
    p = os.fsdecode(source)
    if any(c in p for c in "*?["):
        return True
    if p.startswith("s3://"):
        return p.endswith("/")
    return "://" not in p and os.path.isdir(p)


def _path(p):
    """p (str, bytes or os.PathLike) as the bytes the library takes; a NUL inside would end
    the C string early, so it is refused (as open() refuses it)."""
    b = os.fsencode(p)
    if b"\0" in b:
        raise ValueError(f"ringscan: embedded null byte in path {p!r}")
    return b


@contextlib.contextmanager
def _dataset_opened(sources, o):
    """The dataset listed from sources (paths, directories, patterns), closed on exit."""
    paths = [ffi.new("char[]", _path(p)) for p in sources]
    arr = ffi.new("const char *[]", paths)
    d = ffi.new("ringscan_dataset **")
    try:
        err = ffi.new("ringscan_error *")
        check(lib.ringscan_dataset_open(arr, len(paths), o, d, err), err)
        yield d[0]
    finally:
        lib.ringscan_dataset_close(d[0])  # NULL (nothing opened) is a no-op


@contextlib.contextmanager
def _opened(path, opts):
    """The file at path, closed on exit (a scan started meanwhile holds it)."""
    f = ffi.new("ringscan_file **")
    try:
        err = ffi.new("ringscan_error *")
        check(lib.ringscan_open_with(_path(path), opts, f, err), err)
        yield f[0]
    finally:
        lib.ringscan_close(f[0])


def _start(box, source, many, o, tree):
    """Opens source (a file, or a dataset of many) and starts its scan into box; frees tree."""
    try:
        err = ffi.new("ringscan_error *")
        if many or _is_dataset(source):
            with _dataset_opened(source if many else [source], o) as d:  # the scan holds it
                check(lib.ringscan_dataset_scan_start(d, o, box, err), err)
        else:
            with _opened(source, o) as f:  # the scan holds the file
                check(lib.ringscan_scan_start(f, o, box, err), err)
    finally:
        if tree is not None:
            lib.ringscan_expr_free(tree)


def _interruptible(o, keep, work, drop=None):
    """work()'s value, computed on a helper thread while this one waits, so a KeyboardInterrupt
    (Ctrl-C) ends the wait: an open waits inside the library for a stalled server up to its
    timeout (a footer, a dataset's listing and footers). The interrupt requests the cancel put
    in the options o (ringscan_cancel: the waiting call fails within about a second), waits
    for the helper and hands a value it still returned to drop (a handle to free); a second
    interrupt leaves that to the helper, which keeps o and keep (the cdata o points to) alive
    until its calls return."""
    cancel = ffi.gc(lib.ringscan_cancel_new(), lib.ringscan_cancel_free)
    if cancel == ffi.NULL:
        raise MemoryError("ringscan: out of memory")
    o.cancel = cancel
    done, lock, left = queue.SimpleQueue(), threading.Lock(), []

    def run(o, keep, cancel):
        try:
            v, e = work(), None
        except BaseException as x:  # work's error, raised on the waiting thread
            v, e = None, x
        with lock:
            if not left:
                done.put((v, e))
            elif drop is not None and v is not None:
                drop(v)
        del e  # (no traceback keeps this frame)
    t = threading.Thread(target=run, args=(o, keep, cancel), name="ringscan-open", daemon=True)
    try:
        t.start()  # (it waits for the thread: an interrupt may come there too)
        v, e = done.get()
    except BaseException:
        lib.ringscan_cancel_request(cancel)
        try:
            if not t.is_alive() and t.ident is None:  # not running yet, or never started
                raise
            v, _ = done.get()  # within about a second: its error, or its value
        except BaseException:  # interrupted again: the helper drops it when it returns
            with lock:
                left.append(True)
                if done.empty():
                    raise
                v, _ = done.get()
        if drop is not None and v is not None:
            drop(v)
        o.cancel = ffi.NULL  # (the helper is done with o: cancel may be freed)
        raise
    o.cancel = ffi.NULL
    if e is not None:
        try:
            raise e
        finally:
            del e
    return v


def _started(source, many, o, keep, tree):
    """The scan of source, opened and started (_start) on a helper thread (_interruptible)."""
    box = ffi.new("ringscan_scan **")

    def work():
        _start(box, source, many, o, tree)
        return box[0]
    return _interruptible(o, keep, work, lib.ringscan_scan_free)


def _options(columns=None, filter=None, order_by=None, limit=None, threads=None,
             policy="adaptive", ordered=True, verify_checksums=False, use_page_index=True,
             use_bloom=True, split_rows=None, row_groups=None, fetch_budget_bytes=None,
             store=None, tls_insecure=False, int96_raw=False, topk_bound=None,
             dictionary_columns=None, hive_partitioning="auto", hive_types=None,
             union_by_name=False, max_open_files=None):
    """The library's options for a scan: (options, cdata they point to (keep alive until the
    call that reads them returns), the filter tree to free after it or None)."""
    if policy not in _POLICIES:
        raise ValueError(f"policy {policy!r}: one of {', '.join(_POLICIES)}")
    if columns is not None:
        columns = _names(columns, "columns")
    o = ffi.new("ringscan_options *")
    lib.ringscan_options_init(o)
    keep = []  # cdata the options point to, alive until the scan has started

    def text(s, what):
        if not isinstance(s, str):
            raise TypeError(f"ringscan: {what} is a str, not {type(s).__name__}")
        if "\0" in s:
            raise ValueError(f"ringscan: embedded null character in {what} {s!r}")
        keep.append(ffi.new("char[]", s.encode()))
        return keep[-1]
    if columns is not None:
        names = [text(c, "a column name") for c in columns]
        keep.append(ffi.new("const char *[]", names or [ffi.NULL]))
        o.columns, o.ncolumns = keep[-1], len(names)
    tree = None
    if isinstance(filter, Expr):
        tree = filter._build()
        if tree is None:
            raise MemoryError("ringscan: building the filter tree")
        o.filter_expr = tree
    elif filter is not None:
        o.filter = text(filter, "filter (SQL text, or an expression from ringscan.col)")
    order = _order_text(order_by)
    if order:
        o.order_by = text(order, "order_by")
    o.limit = -1 if limit is None else _int(limit, "limit")
    if limit is not None and o.limit < 0:  # (-1, the library's "no limit", read every row)
        raise ValueError(f"ringscan: limit {o.limit} is negative (None: no limit)")
    if threads is not None:
        o.threads = _int(threads, "threads", 32)
    o.policy = _POLICIES[policy]
    o.ordered = bool(ordered)
    o.verify_checksums, o.use_page_index, o.use_bloom = verify_checksums, use_page_index, use_bloom
    o.int96_raw, o.tls_insecure, o.explain = int96_raw, tls_insecure, True
    if split_rows is not None:
        o.split_rows = _int(split_rows, "split_rows")
    if fetch_budget_bytes is not None:
        o.fetch_budget_bytes = _int(fetch_budget_bytes, "fetch_budget_bytes")
    if store is not None:
        o.store = text(store, "store")
    if dictionary_columns is not None:
        names = [text(c, "a dictionary column name")
                 for c in _names(dictionary_columns, "dictionary_columns")]
        keep.append(ffi.new("const char *[]", names or [ffi.NULL]))
        o.dictionary_columns, o.ndictionary_columns = keep[-1], len(names)
    hive = {"auto": 0, True: 1, False: -1}
    if hive_partitioning not in hive:
        raise ValueError("hive_partitioning is 'auto', True or False")
    o.hive_partitioning = hive[hive_partitioning]
    if hive_types:
        pairs = []
        for k, v in dict(hive_types).items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError(f"ringscan: hive_types maps str to str, not {k!r}: {v!r}")
            if any(c in k + v for c in ",:"):  # the library's "k:T,..." list: it read as two
                raise ValueError(f"ringscan: hive_types {k!r}: {v!r} holds ',' or ':', which "
                                 "the library's key:TYPE list cannot hold")
            pairs.append(f"{k}:{v}")
        o.hive_types = text(",".join(pairs), "hive_types")
    o.union_by_name = bool(union_by_name)
    if max_open_files is not None:
        o.max_open_files = _int(max_open_files, "max_open_files", 32)
    if topk_bound is not None:
        keep.append(_bound_in(topk_bound))
        o.topk_bound = keep[-1]
    if row_groups is not None:
        rg = [_int(g, "row_groups", 32) for g in row_groups]
        keep.append(ffi.new("int[]", rg or [0]))
        o.row_groups, o.nrow_groups = keep[-1], len(rg)
    return o, keep, tree


class Reader:
    """One scan of a file: an Arrow stream for one consumer (the Arrow PyCapsule interface:
    __arrow_c_stream__, __arrow_c_schema__), its statistics (.stats()) and plan (.explain()).
    Made by ringscan.scan(). The scan runs on the library's own threads; the GIL is released
    whenever a call waits for it."""

    def __init__(self, source, columns=None, filter=None, order_by=None, limit=None,
                 threads=None, policy="adaptive", ordered=True, verify_checksums=False,
                 use_page_index=True, use_bloom=True, split_rows=None, row_groups=None,
                 fetch_budget_bytes=None, store=None, tls_insecure=False, int96_raw=False,
                 topk_bound=None, dictionary_columns=None, hive_partitioning="auto",
                 hive_types=None, union_by_name=False, max_open_files=None):
        self._box = ffi.new("ringscan_scan **")  # the scan, once started (module docstring)
        self._lock = threading.Lock()
        self._taken = False
        self._streamed = None  # the scan its stream holds (valid while the stream is live)
        self._interruptible = False  # a Ctrl-C interrupts the stream handed out (_sigint.py)
        self._watched = False
        self._rows_dropped = 0  # rows of batches read but never handed on (_each's stop)
        many = isinstance(source, (list, tuple))
        if not many and not isinstance(source, (str, bytes, os.PathLike)):
            raise TypeError("ringscan.scan: source is a path, URL, pattern or directory, or a "
                            "list of them")
        if many and not source:
            raise ValueError("ringscan.scan: an empty list of paths")
        o, keep, tree = _options(columns, filter, order_by, limit, threads, policy, ordered,
                                 verify_checksums, use_page_index, use_bloom, split_rows,
                                 row_groups, fetch_budget_bytes, store, tls_insecure, int96_raw,
                                 topk_bound, dictionary_columns, hive_partitioning, hive_types,
                                 union_by_name, max_open_files)
        self._box[0] = _started(source, many, o, keep, tree)
        self._watched = _sigint.watch(self)  # (made on the main thread: consumers on others)

    def __reduce__(self):
        """Refused: a reader is a running scan of this process, read once. copy.copy shared the
        scan with a copy whose reading the original did not know of (its own read then gave 0
        rows, silently); pickling named only a cffi object."""
        raise TypeError("ringscan: a Reader cannot be copied or pickled (it is a running scan, "
                        "read once: scan again where another is wanted)")

    def _live(self):
        s = self._box[0]
        if s == ffi.NULL:
            raise ValueError("ringscan: the reader is closed")
        return s

    @contextlib.contextmanager
    def _using(self):
        """The live scan, which a close() on another thread waits for until the block ends
        (the calls release the GIL: it freed the scan under a stats() call)."""
        with self._lock:
            yield self._live()

    def __arrow_c_schema__(self):
        cap, sc = _ffi.capsule("schema")  # owns sc before the call fills it: nothing leaks
        err = ffi.new("ringscan_error *")
        with self._using() as s:
            check(lib.ringscan_scan_schema(s, sc, err), err)
        return cap

    def __arrow_c_stream__(self, requested_schema=None):
        """The scan as an ArrowArrayStream capsule. requested_schema is not applied (the
        protocol lets a producer ignore it); the batches have the scan's own schema. Handed
        out for a reader made on the main thread, a Ctrl-C while a consumer reads it (on any
        thread: DuckDB's) interrupts the scan (_sigint.py)."""
        return self._capsule(watched=True)

    def _capsule(self, watched):
        """__arrow_c_stream__'s capsule; watched: a Ctrl-C interrupts it (_interrupt)."""
        cap, st = _ffi.capsule("stream")  # owns st before the call fills it: nothing leaks
        with self._using() as s:  # the stream holds the scan from here, whatever close() does
            if self._taken:
                raise ValueError("ringscan: a reader is read once (scan again for a second read)")
            self._taken = True
            if lib.ringscan_scan_stream(s, st) != 0:
                raise _ffi.RingscanError(-22, "ringscan_scan_stream failed")
            self._streamed = s
            self._interruptible = watched
        return cap

    def _interrupt(self):
        """A Ctrl-C while a consumer reads the stream (_sigint.py, from its thread): the scan
        is interrupted (ringscan_scan_interrupt), under the lock, so never after close() freed
        it (_sigint invariant 3)."""
        with self._lock:
            if self._box[0] != ffi.NULL and self._interruptible:
                lib.ringscan_scan_interrupt(self._box[0])

    @property
    def schema(self):
        """The batches' schema as a pyarrow.Schema."""
        import pyarrow as pa
        return pa.schema(self)

    def to_arrow(self):
        """Every batch as one pyarrow.Table. Ctrl-C stops it at once, as it stops iterating
        the reader, and a consumer of the capsule of a reader made on the main thread
        (pa.table(reader), polars, DuckDB: _sigint.py)."""
        import pyarrow as pa
        rbr = self._unwatched()
        return pa.Table.from_batches(list(self._each(rbr)), schema=rbr.schema)

    def to_batches(self):
        """A pyarrow.RecordBatchReader over the batches."""
        import pyarrow as pa
        return pa.RecordBatchReader.from_stream(self)

    def _unwatched(self):
        """to_batches() for _each, which stops the scan on a Ctrl-C itself."""
        import pyarrow as pa
        return pa.RecordBatchReader.from_stream(_Unwatched(self))

    def __iter__(self):
        return self._each(self._unwatched())

    def _each(self, rbr):
        """rbr's batches, each read on a helper thread while this one waits for it in a queue,
        which a KeyboardInterrupt (Ctrl-C) ends at once (a wait inside the library does not
        return for a signal: pyarrow's read_all returned at the scan's end, and one batch may
        wait for a stalled server). Any exception, or the consumer leaving the loop, stops
        the scan (ringscan_scan_stop, safe from this thread: the helper's read returns, its
        reads in flight cancelled) before the exception reaches a caller who may still hold
        the reader. The stream rbr holds the scan, so self._streamed stays valid meanwhile.
        No exception stays in a reference cycle (a queue holding one whose traceback holds
        the queue kept the scan alive until a garbage collection)."""
        want, got = queue.SimpleQueue(), queue.SimpleQueue()
        pid = os.getpid()

        def one():  # one batch (None, None at the end)
            try:
                got.put((rbr.read_next_batch(), None))
            except StopIteration:
                got.put((None, None))
            except BaseException as e:  # the scan's error
                got.put((None, e))

        def pump():  # one batch per request; False ends it
            while want.get():
                one()
        t = threading.Thread(target=pump, name="ringscan-reader", daemon=True)
        try:
            t.start()  # (a Ctrl-C in its wait for the thread stops the scan too)
            while True:
                if os.getpid() == pid:
                    want.put(True)
                else:  # a forked child: pump is the parent's thread (waiting for it hung);
                    one()  # the library refuses the read with its error
                b, e = got.get()
                if b is None:
                    try:
                        if e is None:
                            return
                        raise e
                    finally:
                        del e
                yield b
        except BaseException:
            lib.ringscan_scan_stop(self._streamed)
            raise
        finally:
            want.put(False)
            try:
                t.join()
            except RuntimeError:  # its start was interrupted before it ran: False ends it
                pass
            while not got.empty():  # the batch or error the stop cut short
                b, _ = got.get()
                if b is not None:  # handed out by the library, never to the consumer
                    self._rows_dropped += b.num_rows

    def topk_bound(self):
        """An ORDER BY ... LIMIT scan's bound on its first key (ringscan_scan_topk_bound): the
        value the K-th row is at least as good as, (is_float, value); None when there is none
        yet. Siblings exchange it (scan(..., topk_bound=...)) to prune each other's reads."""
        b = ffi.new("ringscan_topk_bound *")
        with self._using() as s:
            if lib.ringscan_scan_topk_bound(s, b) != 0 or not b.set:
                return None
        return (True, b.f) if b.is_float else (False, b.i)

    def stats(self):
        """The scan's counters (`ringscan scan --stats`) as a dict; final once the stream
        ended (stats()["complete"]). rows_out counts the rows handed to the consumer: not
        those of a batch a stop (Ctrl-C, an exception) cut short on the helper thread."""
        st = ffi.new("ringscan_stats *")
        with self._using() as s:
            lib.ringscan_scan_stats(s, st)
        out = {}
        for name, field in ffi.typeof("ringscan_stats").fields:
            v = getattr(st, name)
            if field.type.kind == "array":
                v = ffi.string(v).decode("utf-8", "replace")
            out[name] = v
        out["rows_out"] -= self._rows_dropped
        return out

    def explain(self):
        """The plan's text account (row groups and pages pruned and why, conjunct order)."""
        with self._using() as s:  # the text lives in the scan: copied before close() frees it
            return ffi.string(lib.ringscan_scan_explain(s)).decode("utf-8", "replace")

    def close(self):
        """Stops the scan (a stream already handed to a consumer keeps it alive until the
        consumer releases it)."""
        with self._lock:  # after any call using the scan on another thread
            s, self._box[0] = self._box[0], ffi.NULL
            if s != ffi.NULL:
                lib.ringscan_scan_free(s)
        if self._watched:
            self._watched = False
            _sigint.unwatch(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_box", None) is not None and lib is not None:  # None at interpreter exit
            self.close()


class _Unwatched:
    """A reader's stream, not interrupted by a Ctrl-C (Reader._unwatched)."""

    def __init__(self, reader):
        self._reader = reader

    def __arrow_c_stream__(self, requested_schema=None):
        return self._reader._capsule(watched=False)


def scan(source, columns=None, filter=None, order_by=None, limit=None, threads=None,
         policy="adaptive", **options):
    """Scans Parquet and returns a Reader: source is a file (a path, or an http(s):// or s3://
    URL), or a dataset: a list of them, a directory, or a pattern ("data/**/*.parquet",
    "s3://bucket/prefix/"), read as one table (hive partitions as columns, as DuckDB).

    columns: names to project (default every column). filter: SQL text ("a > 5 AND b LIKE
    'x%'") or an expression (ringscan.col("a") > 5). order_by with limit: the first `limit`
    rows in that order ("score DESC, id", or [("score", "descending"), "id"]). threads:
    executor cores (default 2). policy: "adaptive", "lazy" or "eager". Other options:
    ordered (default True: rows in file order), dictionary_columns (string columns as Arrow
    dictionary arrays), hive_partitioning ("auto", True, False), hive_types ({"year":
    "BIGINT"}), union_by_name, max_open_files (datasets), verify_checksums, use_page_index, use_bloom,
    split_rows, row_groups, fetch_budget_bytes, store ("sim:ttfb=50ms,..."), tls_insecure,
    int96_raw. Errors raise ringscan.RingscanError subclasses with the library's message."""
    return Reader(source, columns=columns, filter=filter, order_by=order_by, limit=limit,
                  threads=threads, policy=policy, **options)


def _s(p):
    return None if p == ffi.NULL else ffi.string(p).decode("utf-8", "replace")


def _stat(f, c, b, n):
    if b == ffi.NULL:
        return None
    buf = ffi.new("char[]", 256)
    k = lib.ringscan_stat_display(f, c, b, n, buf, 256)
    if k >= 256:
        buf = ffi.new("char[]", k + 1)
        lib.ringscan_stat_display(f, c, b, n, buf, k + 1)
    return ffi.string(buf).decode("utf-8", "replace")


def metadata(source, **options):
    """What the footer says, as a dict: num_rows, num_row_groups, created_by, version,
    key_value_metadata, columns (leaf columns: name, physical_type, logical_type, optional,
    ...), fields (the schema tree in pre-order: path, kind, arrow_kind, depth, ...) and
    row_groups (rows, sizes, and per column chunk: codec, encodings, sizes, statistics as
    text in the column's logical type).

    A dataset (a list of paths, a directory or a pattern, as scan() takes it; options:
    hive_partitioning, hive_types, union_by_name, and the store's) gives num_files, num_rows,
    num_row_groups, files (path, num_rows, num_row_groups, created_by from each footer, in path
    order) and schema (the pyarrow.Schema a scan of it exports), as `ringscan meta DIR`."""
    if isinstance(source, (list, tuple)) or _is_dataset(source):
        return _dataset_metadata(source, options)
    o, keep, _ = _options(**options)

    def work():
        with _opened(source, o) as f:
            return _metadata(f)
    return _interruptible(o, keep, work)


def _dataset_metadata(source, options):
    sources = list(source) if isinstance(source, (list, tuple)) else [source]
    o, keep, _ = _options(**options)  # keep: what o points to, alive to the end

    def work():
        with _dataset_opened(sources, o) as d:
            files = [_s(lib.ringscan_dataset_file(d, i)) for i in range(lib.ringscan_dataset_files(d))]
        out = []
        fi = ffi.new("ringscan_file_info *")
        for path in files:
            with _opened(path, o) as f:
                lib.ringscan_file_info_get(f, fi)
                out.append({"path": path, "num_rows": fi.rows, "num_row_groups": fi.row_groups,
                            "created_by": _s(fi.created_by)})
        return out
    out = _interruptible(o, keep, work)
    with scan(sources, limit=0, **options) as r:
        schema = r.schema
    return {"num_files": len(out), "num_rows": sum(f["num_rows"] for f in out),
            "num_row_groups": sum(f["num_row_groups"] for f in out), "files": out,
            "schema": schema}


def _metadata(f):
    err = ffi.new("ringscan_error *")
    check(lib.ringscan_file_stats(f, -1, err), err)  # statistics decode on first ask
    fi = ffi.new("ringscan_file_info *")
    lib.ringscan_file_info_get(f, fi)
    cols = []
    ci = ffi.new("ringscan_column_info *")
    for c in range(fi.columns):
        lib.ringscan_file_column(f, c, ci)
        cols.append({"name": _s(ci.name), "physical_type": _s(ci.physical_name),
                     "logical_type": _s(ci.logical_name), "optional": bool(ci.optional),
                     "type_length": ci.type_length, "precision": ci.precision,
                     "scale": ci.scale, "adjusted_to_utc": bool(ci.adjusted_to_utc)})
    fields = []
    fl = ffi.new("ringscan_field_info *")
    for i in range(lib.ringscan_file_fields(f)):
        lib.ringscan_file_field(f, i, fl)
        fields.append({"path": _s(fl.path), "name": _s(fl.name), "arrow_kind": _s(fl.arrow_kind),
                       "depth": fl.depth, "parent": fl.parent, "column": fl.column,
                       "repetition": ("required", "optional", "repeated")[fl.repetition]})
    kv = {}
    k = ffi.new("ringscan_kv *")
    for i in range(fi.kv):
        lib.ringscan_file_kv(f, i, k)
        v = None if k.value == ffi.NULL else bytes(ffi.buffer(k.value, k.value_len))
        kv[_s(k.key)] = v
    groups = []
    rg = ffi.new("ringscan_row_group_info *")
    ch = ffi.new("ringscan_chunk_info *")
    for g in range(fi.row_groups):
        lib.ringscan_file_row_group(f, g, rg)
        chunks = []
        for c in range(fi.columns):
            lib.ringscan_file_chunk(f, g, c, ch)
            st = ch.stats
            chunks.append({"column": cols[c]["name"], "codec": _s(ch.codec_name),
                           "encodings": [_s(lib.ringscan_encoding_name(e)) for e in range(32)
                                         if ch.encodings >> e & 1],
                           "num_values": ch.num_values, "compressed_size": ch.compressed_size,
                           "uncompressed_size": ch.uncompressed_size,
                           "min": _stat(f, c, st.min, st.min_len) if st.has_min_max else None,
                           "max": _stat(f, c, st.max, st.max_len) if st.has_min_max else None,
                           "null_count": st.null_count if st.has_null_count else None})
        groups.append({"num_rows": rg.rows, "total_byte_size": rg.total_byte_size,
                       "columns": chunks})
    return {"num_rows": fi.rows, "num_row_groups": fi.row_groups, "created_by": _s(fi.created_by),
            "version": fi.version, "key_value_metadata": kv, "columns": cols, "fields": fields,
            "row_groups": groups}
