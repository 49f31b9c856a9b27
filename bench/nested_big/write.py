"""bench/nested_big/write.py OUT: the thirty-first session's 2.4 GB nested row group (issue 23 section 1):
1,000,000 rows of a list<float32> of 600 elements written by pyarrow with its defaults (one row
group of 1 Mi rows at most), then the sum of the values and of their bit patterns, which
bench/nested_big/export_sum.py must reproduce through ringscan's Arrow export."""
import numpy as np, pyarrow as pa, pyarrow.parquet as pq, sys
n, k = 1_000_000, 600
rng = np.random.default_rng(1)
vals = rng.random(n * k, dtype=np.float32)
offs = np.arange(0, (n + 1) * k, k, dtype=np.int32)
emb = pa.ListArray.from_arrays(pa.array(offs), pa.array(vals))
t = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)), "emb": emb})
pq.write_table(t, sys.argv[1])
md = pq.ParquetFile(sys.argv[1]).metadata
print("row_groups", md.num_row_groups, "rows", md.num_rows)
print("sum", float(np.sum(vals, dtype=np.float64)), "bitsum", int(vals.view(np.uint32).astype(np.uint64).sum()))
