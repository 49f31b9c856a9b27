"""tests/cli/peer_files.py: files written by pyarrow and DuckDB (nullable ints, strings and
booleans, doubles; v1 and v2 data pages; snappy, zstd, none; several row groups) scanned by
ringscan: every file opens and its row count and column sums equal DuckDB's own answer for
the same filter. Guards the strict page checks against real writers (DuckDB ends bit-packed
runs past a page's last value). Usage: python peer_files.py RINGSCAN DIR"""
import json
import random
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

ringscan, d = sys.argv[1], sys.argv[2]
rnd = random.Random(7)
n = 120_000
a = [None if rnd.random() < 0.1 else rnd.randint(0, 1000) for _ in range(n)]
s = [None if rnd.random() < 0.2 else f"v{rnd.randint(0, 300)}" for _ in range(n)]
b = [None if rnd.random() < 0.3 else rnd.random() < 0.5 for _ in range(n)]
t = pa.table({"a": pa.array(a, pa.int32()), "s": s, "b": pa.array(b, pa.bool_()),
              "d": [rnd.random() for _ in range(n)], "i": pa.array(range(n), pa.int64())})
files = []
for dpv in ("1.0", "2.0"):
    for comp in ("snappy", "zstd", "none"):
        f = f"{d}/pyarrow_{dpv}_{comp}.parquet"
        pq.write_table(t, f, data_page_version=dpv, compression=comp, row_group_size=40_000)
        files.append(f)
con = duckdb.connect()
con.register("t", t)
for comp, extra in (("snappy", ""), ("zstd", ""), ("uncompressed", ""), ("zstd", ", PARQUET_VERSION V2")):
    f = f"{d}/duckdb_{comp}{'_v2' if extra else ''}.parquet"
    con.execute(f"COPY t TO '{f}' (FORMAT parquet, COMPRESSION {comp}, ROW_GROUP_SIZE 50000{extra})")
    files.append(f)
passed = failed = 0
where = "a < 500 AND b = TRUE"
for f in files:
    want = con.execute(f"SELECT count(*), sum(i), count(s), sum(a) FROM '{f}' WHERE {where}").fetchone()
    r = subprocess.run([ringscan, "scan", f, "--columns", "i,s,a", "--where", where, "--format", "jsonl"],
                       capture_output=True, text=True)
    rows = [json.loads(x) for x in r.stdout.splitlines()] if r.returncode == 0 else []
    got = (len(rows), sum(x["i"] for x in rows), sum(1 for x in rows if x["s"] is not None),
           sum(x["a"] for x in rows))
    if r.returncode == 0 and got == tuple(want):
        passed += 1
    else:
        failed += 1
        print(f"FAIL {f}: exit {r.returncode}, ringscan {got}, duckdb {want}: {r.stderr.strip()[:300]}")
print(f"peer_files: {passed} passed, {failed} failed")
