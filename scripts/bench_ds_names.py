# scripts/bench_ds_names.py LIB N REPS [plain]: a dataset scan started with many names (issue 23).
# union (default): 3 files of N int32 columns under union_by_name (b lacks every 10th column, c
# spells every 3rd in upper case); plain: 3 copies of the first, no union_by_name. Every name
# projected through the C API (LIB: libringscan.so); prints the times of open+start and of
# reading the stream (values checked). Timing only: tests/cli/wide_columns.sh checks values.
import os, sys, time, ctypes
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
import pyarrow as pa, pyarrow.parquet as pq
import rs_ctypes
lib_path, N, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
plain = len(sys.argv) > 4 and sys.argv[4] == "plain"  # 3 copies of a.parquet, no union_by_name
d = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"ringscan_ds_names{N}")
if not os.path.exists(d + "/c.parquet"):
    os.makedirs(d, exist_ok=True)
    pq.write_table(pa.table({f"c{i}": pa.array([i, 1, 2], pa.int32()) for i in range(N)}), d + "/a.parquet")
    pq.write_table(pa.table({f"c{i}": pa.array([i, 3], pa.int32()) for i in range(N) if i % 10}), d + "/b.parquet")
    pq.write_table(pa.table({(f"C{i}" if i % 3 == 0 else f"c{i}"): pa.array([i], pa.int32()) for i in range(N)}), d + "/c.parquet")
if plain:
    import shutil
    p = d + "-plain"
    if not os.path.exists(p + "/c.parquet"):
        os.makedirs(p, exist_ok=True)
        for f in "abc": shutil.copy(d + "/a.parquet", f"{p}/{f}.parquet")
    d = p
lib = rs_ctypes.load(lib_path)
lib.ringscan_dataset_open.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_void_p,
                                      ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(rs_ctypes.Err)]
lib.ringscan_dataset_scan_start.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                            ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(rs_ctypes.Err)]
lib.ringscan_dataset_close.argtypes = [ctypes.c_void_p]
names = [f"c{i}" for i in range(N)]
ts = []
for r in range(reps):
    err = rs_ctypes.Err()
    opts, keep = rs_ctypes.options(lib, names, not plain)
    arr = (ctypes.c_char_p * 1)(d.encode())
    t0 = time.perf_counter()
    h = ctypes.c_void_p()
    assert lib.ringscan_dataset_open(arr, 1, opts, ctypes.byref(h), ctypes.byref(err)) == 0, err.message
    sc = ctypes.c_void_p()
    assert lib.ringscan_dataset_scan_start(h, opts, ctypes.byref(sc), ctypes.byref(err)) == 0, err.message
    t1 = time.perf_counter()
    t, e = rs_ctypes.read_stream(lib, sc)
    t2 = time.perf_counter()
    lib.ringscan_scan_free(sc); lib.ringscan_dataset_close(h)
    assert t is not None, e
    assert t.num_rows == (9 if plain else 6) and t.column_names == names, (t.num_rows, t.column_names[:3])
    if plain: assert t.column("c10").to_pylist() == [10, 1, 2] * 3
    else: assert t.column("c10").to_pylist() == [10, 1, 2, None, None, 10]
    if not plain: assert t.column("c3").to_pylist() == [3, 1, 2, 3, 3, 3], t.column("c3").to_pylist()
    ts.append((t1 - t0, t2 - t1))
print(f"{'plain' if plain else 'union'} N={N} start best {min(a for a,b in ts):.3f}s read best {min(b for a,b in ts):.3f}s all",
      " ".join(f"{a:.3f}+{b:.3f}" for a, b in ts))
