"""tests/cli/nested_overlap.py RINGSCAN DIR: a nested field projected with a path inside it that
starts at the same leaf (`--columns s,s.a` where a is s's first field, `k,k.list.element.a`),
read as DuckDB 2.0.1 reads `SELECT s, s.a` (issue 23; the plan gives each node its own slot,
scan/plan_nested.c plan_proj_slot): values equal DuckDB's, in either order, with flat columns
between, each projection twice, over several row groups at 1 and 2 threads, and over a
dataset of two files."""
import json
import os
import random
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

R, TOP = sys.argv[1], sys.argv[2]
con = duckdb.connect()
rng = random.Random(26)


def maybe(v):
    return None if rng.random() < 0.15 else v


def table(n, base):
    return pa.table({
        "id": list(range(base, base + n)),
        "s": pa.array([maybe({"a": maybe(rng.randint(0, 9)), "b": maybe("x" * rng.randint(0, 3))})
                       for _ in range(n)]),
        "k": pa.array([maybe([maybe({"a": maybe(rng.randint(0, 9)), "c": maybe(rng.random() < 0.5)})
                              for _ in range(rng.randint(0, 3))]) for _ in range(n)]),
        "m": pa.array([maybe([(f"k{i}", maybe(i)) for i in range(rng.randint(0, 2))]) for _ in range(n)],
                      type=pa.map_(pa.string(), pa.int64()))})


f1, f2 = os.path.join(TOP, "o1.parquet"), os.path.join(TOP, "o2.parquet")
pq.write_table(table(3000, 0), f1, row_group_size=700)
pq.write_table(table(500, 3000), f2, row_group_size=200)
SQL = {"id": "id", "s": "s", "s.a": "s.a", "s.b": "s.b", "k": "k", "k.list.element.a": "[e.a FOR e IN k]",
       "k.list.element": "k", "m": "m", "m.key_value.key": "map_keys(m)"}
CASES = [["s", "s.a"], ["s.a", "s"], ["k", "k.list.element.a"], ["k.list.element.a", "id", "k"],
         ["s.a", "s", "s.a", "s"], ["k.list.element", "k"], ["m", "m.key_value.key"],
         ["k.list.element.a", "k", "id", "s.a", "s", "s.b"]]


def norm(col, v):
    """DuckDB's map (a dict) as pyarrow's list of {key, value}."""
    if col == "m" and isinstance(v, dict):
        return [{"key": a, "value": b} for a, b in v.items()]
    return v


def values(line):
    """A jsonl line's values in order (a key named twice appears twice)."""
    last = []

    def hook(kv):
        last[:] = [kv]  # (the outermost object closes last)
        return dict(kv)
    json.loads(line, object_pairs_hook=hook)
    return [v for _, v in last[0]]


for cols in CASES:
    for files, threads in (([f1], "1"), ([f1], "2"), ([f1, f2], "2")):
        src = f"read_parquet({files!r})"
        want = [[norm(c, v) for c, v in zip(cols, r)] for r in
                con.sql(f"SELECT {', '.join(SQL[c] for c in cols)} FROM {src} ORDER BY id").fetchall()]
        p = subprocess.run([R, "scan", *files, "--ordered", "--threads", threads, "--format", "jsonl",
                            "--columns", ",".join(cols)], capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            check(False, f"{cols} {files} t{threads}: {p.stderr.strip()}")
            continue
        got = [values(ln) for ln in p.stdout.splitlines()]
        check(got == want, f"{cols} {files} t{threads}: {len(got)} rows, first {got[:2]} vs DuckDB {want[:2]}")

# the shared leaf's chunks are read once: `s,s.a` reads the bytes `s` alone reads (its leaf
# is decoded for each slot: bytes_decompressed counts it twice)
# (a file past the footer read's tail, so its chunks are read by the scan)
big = os.path.join(TOP, "big.parquet")
n = 100000
pq.write_table(pa.table({"s": pa.StructArray.from_arrays([pa.array(range(n)), pa.array([str(i) for i in range(n)])],
                                                        ["a", "b"]),
                         "k": pa.array([[{"a": i, "c": i % 2 == 0}] for i in range(n)])}), big, row_group_size=25000)


def read_bytes(cols):
    p = subprocess.run([R, "scan", big, "--format", "jsonl", "--columns", cols, "--stats"],
                       capture_output=True, text=True, timeout=120)
    m = [w for w in p.stderr.replace(",", " ").split("\n") if w.startswith("reads ")]
    return m[0].split()[3] if p.returncode == 0 and m else p.stderr[-300:]


for whole, both in (("s", "s,s.a"), ("k", "k.list.element.a,k")):
    a, b = read_bytes(whole), read_bytes(both)
    check(a == b and a.isdigit() and int(a) > 0, f"bytes_read {whole}: {a}, {both}: {b}")

sys.exit(0 if summary("nested_overlap") else 1)
