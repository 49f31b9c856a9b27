# scripts/bench_ds_names.py LIB N REPS [MODE]: a scan started with many names (issue 23); prints
# the times of open+start and of reading the stream (values checked). Timing only:
# tests/cli/wide_columns.sh checks values. MODE:
#   union (default): 3 files of N int32 columns under union_by_name (b lacks every 10th column,
#          c spells every 3rd in upper case), every name projected;
#   plain: 3 copies of union's first file, no union_by_name;
#   struct: 3 files of one struct column `s` of N int32 fields under union_by_name (b lacks
#          every 10th field and adds N/10 of its own, c spells every 3rd in upper case and
#          lists them reversed): the struct's fields paired and merged by name (ds_nmatch.c,
#          ds_nunion.c);
#   dict:  one file of N string columns, all projected and all named in dictionary_columns;
#   case:  3 files of N case variants of one 15-letter name (each file renames all but the
#          first, as DuckDB does) and N/2 plain columns, under union_by_name, every column;
#   nested: union's 3 files, each with a struct column too (a footer with nested fields:
#          its missing and other-case names looked up among the top-level fields).
import os, sys, time, ctypes
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
import pyarrow as pa, pyarrow.parquet as pq
import rs_ctypes
lib_path, N, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else "union"
tmp = os.environ.get("TMPDIR", "/tmp")


def write(d, tables):
    if os.path.exists(d + "/c.parquet"): return
    os.makedirs(d, exist_ok=True)
    for f, cols in zip("abc", tables):
        pq.write_table(pa.table(cols), f"{d}/{f}.parquet")


def flat(extra=None):
    a = {f"c{i}": pa.array([i, 1, 2], pa.int32()) for i in range(N)}
    b = {f"c{i}": pa.array([i, 3], pa.int32()) for i in range(N) if i % 10}
    c = {(f"C{i}" if i % 3 == 0 else f"c{i}"): pa.array([i], pa.int32()) for i in range(N)}
    if extra:
        for t, rows in ((a, 3), (b, 2), (c, 1)): t["s"] = pa.array([{"x": 1}] * rows)
    return a, b, c


def struct_files():
    def s(names, rows, wide=()):
        ty = pa.struct([(n, pa.int64() if n in wide else pa.int32()) for n in names])
        return {"s": pa.array([{n: k for k, n in enumerate(names)}] * rows, ty)}
    a = s([f"f{i}" for i in range(N)], 3)
    b = s([f"f{i}" for i in range(N) if i % 10] + [f"g{i}" for i in range(N // 10)], 2, {"f1"})
    c = s([(f"F{i}" if i % 3 == 0 else f"f{i}") for i in range(N - 1, -1, -1)], 1)
    return a, b, c


def variants():  # N spellings of one name: bit k of i upper-cases letter k
    base = "abcdefghijklmno"
    return ["".join(ch.upper() if i >> k & 1 else ch for k, ch in enumerate(base)) for i in range(N)]


def start(h_open, h_start, src, opts):
    err = rs_ctypes.Err()
    h = ctypes.c_void_p()
    assert h_open(src, opts, ctypes.byref(h), ctypes.byref(err)) == 0, err.message
    sc = ctypes.c_void_p()
    assert h_start(h, opts, ctypes.byref(sc), ctypes.byref(err)) == 0, err.message
    return h, sc


lib = rs_ctypes.load(lib_path)
lib.ringscan_dataset_open.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_void_p,
                                      ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(rs_ctypes.Err)]
lib.ringscan_dataset_scan_start.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                            ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(rs_ctypes.Err)]
lib.ringscan_dataset_close.argtypes = [ctypes.c_void_p]
d = f"{tmp}/ringscan_ds_names{N}"
names, dictionary, by_name, single = [f"c{i}" for i in range(N)], None, mode != "plain", False
if mode in ("union", "plain", "nested"):
    if mode == "nested": d += "-nested"
    write(d, flat(mode == "nested"))
    if mode == "nested": names = names + ["s"]
elif mode == "struct":
    d += "-struct"
    write(d, struct_files())
    names = ["s"]
elif mode == "dict":
    d += "-dict"
    if not os.path.exists(d + "/a.parquet"):
        os.makedirs(d, exist_ok=True)
        pq.write_table(pa.table({f"c{i}": pa.array([f"v{i}", "x", None]) for i in range(N)}), d + "/a.parquet")
    dictionary, single = names, True
elif mode == "case":
    d += "-case"
    v = variants()
    cols = lambda order, rows: {**{n: pa.array([1] * rows, pa.int32()) for n in order},
                                **{f"c{i}": pa.array([i] * rows, pa.int32()) for i in range(N // 2)}}
    write(d, [cols(v, 3), cols(v[::-1], 2), cols(v[N // 2:] + v[:N // 2], 1)])
    names = None
if mode == "plain":
    import shutil
    p = d + "-plain"
    if not os.path.exists(p + "/c.parquet"):
        os.makedirs(p, exist_ok=True)
        for f in "abc": shutil.copy(d + "/a.parquet", f"{p}/{f}.parquet")
    d = p
ts = []
for r in range(reps):
    opts, keep = rs_ctypes.options(lib, names, by_name, dictionary)
    t0 = time.perf_counter()
    if single:
        op = lambda src, o, h, e: lib.ringscan_open(src, h, e)
        h, sc = start(op, lib.ringscan_scan_start, (d + "/a.parquet").encode(), opts)
    else:
        arr = (ctypes.c_char_p * 1)(d.encode())
        op = lambda src, o, h, e: lib.ringscan_dataset_open(src, 1, o, h, e)
        h, sc = start(op, lib.ringscan_dataset_scan_start, arr, opts)
    t1 = time.perf_counter()
    t, e = rs_ctypes.read_stream(lib, sc)
    t2 = time.perf_counter()
    lib.ringscan_scan_free(sc)
    (lib.ringscan_close if single else lib.ringscan_dataset_close)(h)
    assert t is not None, e
    if mode in ("union", "plain", "nested"):
        assert t.num_rows == (9 if mode == "plain" else 6) and t.column_names == names, (t.num_rows, t.column_names[:3])
        if mode == "plain": assert t.column("c10").to_pylist() == [10, 1, 2] * 3
        else: assert t.column("c10").to_pylist() == [10, 1, 2, None, None, 10]
        if mode != "plain": assert t.column("c3").to_pylist() == [3, 1, 2, 3, 3, 3], t.column("c3").to_pylist()
    elif mode == "struct":
        ty = t.schema.field("s").type
        assert t.num_rows == 6 and ty.num_fields == N + N // 10, (t.num_rows, ty.num_fields)
        row = t.column("s")[5].as_py()  # c's row: its reversed, upper-cased fields by name
        assert row["f3"] == N - 1 - 3 and row["f10"] == N - 1 - 10 and row["g0"] is None, [row["f3"], row["f10"]]
    elif mode == "dict":
        assert t.num_rows == 3 and t.num_columns == N and pa.types.is_dictionary(t.schema.field(N - 1).type)
        assert t.column(N - 1).to_pylist() == [f"v{N - 1}", "x", None]
    else:
        assert t.num_rows == 6 and t.num_columns == N + N // 2, (t.num_rows, t.num_columns)
    ts.append((t1 - t0, t2 - t1))
print(f"{mode} N={N} start best {min(a for a,b in ts):.3f}s read best {min(b for a,b in ts):.3f}s all",
      " ".join(f"{a:.3f}+{b:.3f}" for a, b in ts))
