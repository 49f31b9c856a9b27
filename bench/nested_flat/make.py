"""bench/nested_flat/make.py: two files of the same 2,000,000 rows and flat columns (id,
price, qty, name), one with a list<int64> and a struct<a int64, b double, c string> between
them (issue 23: a file with nested columns scanned for its flat columns as fast as one without
them), written by pyarrow into /tmp/nested_flat (row groups of 262,144 rows)."""
import os
os.makedirs("/tmp/nested_flat", exist_ok=True)
import pyarrow as pa, pyarrow.parquet as pq, numpy as np
n = 2_000_000
rng = np.random.default_rng(7)
ids = pa.array(np.arange(n, dtype=np.int64))
price = pa.array(rng.random(n) * 1000)
qty = pa.array(rng.integers(0, 50, n, dtype=np.int64))
name = pa.array([f"item{i % 5000}" for i in range(n)])
lens = rng.integers(0, 8, n)
offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
lst = pa.ListArray.from_arrays(pa.array(offs), pa.array(rng.integers(0, 1 << 40, int(offs[-1]), dtype=np.int64)))
st = pa.StructArray.from_arrays([pa.array(rng.integers(0, 1000, n, dtype=np.int64)), pa.array(rng.random(n)),
                                 pa.array([f"s{i % 977}" for i in range(n)])], names=["a", "b", "c"])
flat = {"id": ids, "price": price, "qty": qty, "name": name}
pq.write_table(pa.table({**{"id": ids, "lst": lst, "price": price}, "st": st, "qty": qty, "name": name}),
               "/tmp/nested_flat/nested.parquet", row_group_size=256 * 1024)
pq.write_table(pa.table(flat), "/tmp/nested_flat/flat.parquet", row_group_size=256 * 1024)
print({f: os.path.getsize(f"/tmp/nested_flat/{f}.parquet") for f in ("nested", "flat")})
