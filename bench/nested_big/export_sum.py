"""bench/nested_big/export_sum.py LIB FILE: the sum of emb's values and of their bit patterns through
ringscan's Arrow export (C API via tests/cli/rs_ctypes.py), batch by batch; THREADS and BUDGET
(bytes) set the options. Compare with what bench/nested_big/write.py printed."""
import ctypes, sys, time, numpy as np, pyarrow as pa
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "cli"))
import rs_ctypes
lib = rs_ctypes.load(sys.argv[1])
path = sys.argv[2]
err = rs_ctypes.Err(); f = ctypes.c_void_p()
assert lib.ringscan_open(path.encode(), ctypes.byref(f), ctypes.byref(err)) == 0, err.message
opts, names = rs_ctypes.options(lib, ["emb"])
import os
H = rs_ctypes.OptionsHead
if os.environ.get("THREADS"): ctypes.c_int.from_buffer(opts, H.threads.offset).value = int(os.environ["THREADS"])
if os.environ.get("BUDGET"): ctypes.c_int64.from_buffer(opts, H.fetch_budget_bytes.offset).value = int(os.environ["BUDGET"])
sc = ctypes.c_void_p()
t0 = time.time()
if lib.ringscan_scan_start(f, opts, ctypes.byref(sc), ctypes.byref(err)) != 0:
    print("start failed", err.message.decode()); sys.exit(1)
st = rs_ctypes.Stream(); lib.ringscan_scan_stream(sc, ctypes.byref(st))
reader = pa.RecordBatchReader._import_from_c(ctypes.addressof(st))
rows = 0; s = 0.0; bits = 0; batches = 0; nulls = 0
try:
    for b in reader:
        col = b.column(0); batches += 1; rows += len(col); nulls += col.null_count
        v = col.flatten().to_numpy()
        s += float(np.sum(v, dtype=np.float64)); bits += int(v.view(np.uint32).astype(np.uint64).sum())
except Exception as ex:
    print("stream failed:", ex); sys.exit(1)
print("type", reader.schema.field(0).type, "rows", rows, "batches", batches, "nulls", nulls,
      "sum", s, "bitsum", bits, "secs %.1f" % (time.time() - t0))
del reader
lib.ringscan_scan_free(sc); lib.ringscan_close(f)
