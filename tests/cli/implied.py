"""tests/cli/implied.py: single-column conjuncts implied by a comparison of value expressions
(filter/vexpr_imply.c) keep every row the comparison keeps, at the bound's edges. pyarrow
writes one file (12,000 rows, row groups of 3,000) whose rows hold every k in -100..100 with
every j in 1..3, q around CAST's rounding edge (45.49, 45.50) with every n in 1..7, prices
around 92592.59 / 92592.60 with disc 0 and tax 0.08, and random rows; nulls in k, q and p.
Each filter's count(*) and sum(i) from `ringscan scan --where F --columns i --format csv`
(1 and 2 threads) must equal DuckDB's over the same rows, and `--explain` must list the
implied conjunct (or none) the filter is expected to get. A bound one step too tight drops the
rows at the edge, which each filter has (the counts then differ).
Usage: python implied.py RINGSCAN DIR"""
import decimal
import os
import random
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

R, D = sys.argv[1], sys.argv[2]
DEC = decimal.Decimal


def rows(rnd):
    """Columns as lists: the edge rows first, then random ones up to 12,000."""
    c = {name: [] for name in ("i", "k", "j", "q", "n", "p", "disc", "tax", "dfl", "d")}

    def add(k, j, q, n, p, disc, tax, dfl, d):
        for name, v in zip(("k", "j", "q", "n", "p", "disc", "tax", "dfl", "d"),
                           (k, j, q, n, p, disc, tax, dfl, d)):
            c[name].append(v)
        c["i"].append(len(c["i"]))

    for k in range(-100, 101):
        for j in (1, 2, 3):
            add(k, j, DEC("1.00"), 1, DEC("904.00"), DEC("0.00"), DEC("0.00"), DEC("0.000"), float(k))
    for q in ("45.40", "45.49", "45.50", "45.51", "46.00", "50.00", "3.00", "3.01", "5.00"):
        for n in range(1, 8):
            add(0, 1, DEC(q), n, DEC("1000.00"), DEC("0.10"), DEC("0.08"), DEC("2.000"), 0.5)
            add(0, 1, DEC(q), n, DEC("1000.00"), DEC("0.10"), DEC("0.08"), DEC("1.000"), 0.5)
            add(0, 1, DEC(q), n, DEC("1000.00"), DEC("0.10"), DEC("0.08"), DEC("0.999"), 0.5)
    for p in ("92592.58", "92592.59", "92592.60", "92592.61", "104899.50", "1111.11", "1111.12"):
        for disc, tax in (("0.00", "0.08"), ("0.10", "0.00"), ("0.00", "0.00")):
            add(1, 1, DEC("1.00"), 1, DEC(p), DEC(disc), DEC(tax), DEC("0.000"), 1.0)
    while len(c["i"]) < 12_000:
        add(rnd.randint(-100, 100), rnd.randint(1, 3), DEC(rnd.randint(100, 5000)) / 100,
            rnd.randint(1, 7), DEC(rnd.randint(90400, 10489950)) / 100,
            DEC(rnd.randint(0, 10)) / 100, DEC(rnd.randint(0, 8)) / 100,
            DEC(rnd.randint(0, 2000)) / 1000, rnd.uniform(-10, 10))
    for name in ("k", "q", "p"):  # nulls: every 37th row of each (offset per column)
        for r in range(len(c["i"])):
            if (r + len(name)) % 37 == 0:
                c[name][r] = None
    return c


def write(path, c):
    t15, t12 = pa.decimal128(15, 2), pa.decimal128(12, 3)
    types = {"i": pa.int64(), "k": pa.int64(), "j": pa.int32(), "q": t15, "n": pa.int32(),
             "p": t15, "disc": t15, "tax": t15, "dfl": t12, "d": pa.float64()}
    t = pa.table({name: pa.array(v, type=types[name]) for name, v in c.items()})
    pq.write_table(t, path, row_group_size=3_000, data_page_size=2048, write_page_index=True)
    return t


# filter, the implied conjuncts --explain must print, in any order ("" none)
FILTERS = [
    ("p * (1 - disc) * (1 + tax) > 100000", "p > 92592.59"),
    ("p * (1 - disc) * (1 + tax) <= 1000", "p < 1111.12"),
    ("CAST(q AS INTEGER) * 2 - n > 90", "q > 45.49"),
    ("k * 2 >= 10", "k > 4"),
    ("k * 2 > 10", "k > 5"),
    ("k * 2 = 10", "k > 4, k < 6"),
    ("k * (0 - j) > 10", "k < -3"),
    ("k - j > 50", "k > 51"),
    ("k - j >= 99", "k > 99, j < 2"),
    ("k / 4 > 2.5", "k > 10"),
    ("k / j < -30", "k < -30"),
    ("q + dfl > 5", "q > 3.00"),
    ("q + dfl > 5.0015", "q > 3.00"),
    ("q * disc - dfl > 4", "q > 40.00, disc > 0.08, dfl < 1.000"),
    ("d * k > 10", ""),
    ("k * 2 >= 10 OR q > 49", ""),
    ("k * 2 >= 10 AND p * (1 - disc) * (1 + tax) > 100000", "k > 4, p > 92592.59"),
]


def scan(path, where, threads, explain=False):
    cmd = [R, "scan", path, "--where", where, "--columns", "i", "--format", "csv",
           "--threads", str(threads)] + (["--explain"] if explain else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    path = os.path.join(D, "implied.parquet")
    t = write(path, rows(random.Random(7)))
    con = duckdb.connect()
    con.register("t", t)
    for where, want in FILTERS:
        cnt, s = con.execute(f"SELECT count(*), sum(i) FROM t WHERE {where}").fetchone()
        for threads in (1, 2):
            p = scan(path, where, threads)
            got = [int(x) for x in p.stdout.split("\n")[1:] if x]
            check(p.returncode == 0 and len(got) == cnt and sum(got) == (s or 0),
                  f"{where} ({threads} threads): ringscan {len(got)} rows sum {sum(got)}, "
                  f"DuckDB {cnt} sum {s} {p.stderr[:200]}")
        p = scan(path, where, 1, explain=True)
        lines = [x for x in p.stderr.split("\n") if "implied by conjunct" in x]
        shown = sorted(x.split(": ", 1)[1].split(" (implied")[0] for x in lines)
        check(shown == sorted(want.split(", ") if want else []),
              f"{where}: --explain implied {shown}, want '{want}'")
    return 0 if summary("implied") else 1


sys.exit(main())
