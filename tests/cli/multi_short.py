"""tests/cli/multi_short.py: conjuncts over several columns reached by few rows (q < 3 first:
3% of the rows, under scan/task_multi.c's eighth) or by many (q < 50: half), against DuckDB's
rows for the same SQL. Columns: q (int32, read by the first conjunct too: decoded whole and
cut), d (a dictionary-coded decimal), t (int64 with nulls), x (a double), s (a dictionary-coded
string); pyarrow writes one file per page version (1.0, 2.0), row groups of 4,000 rows and
small pages, so pages hold rows of both kinds. Each filter runs with the id column only (the
multi's columns read by nothing else) and with its columns projected too, at 1 and 2 threads;
the output must equal DuckDB's rows, row for row.
Usage: python multi_short.py RINGSCAN DIR"""
import decimal
import os
import random
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check_ids, summary  # noqa: E402

R, D = sys.argv[1], sys.argv[2]
N, RG = 16_000, 4_000


def make(version, rnd):
    def maybe(v, share):
        return None if rnd.random() < share else v
    t = pa.table({
        "i": pa.array(range(N), pa.int64()),
        "q": pa.array([rnd.randrange(100) for _ in range(N)], pa.int32()),
        "d": pa.array([decimal.Decimal(rnd.randrange(11)).scaleb(-2) for _ in range(N)], pa.decimal128(15, 2)),
        "t": pa.array([maybe(rnd.randrange(-50, 50), 0.1) for _ in range(N)], pa.int64()),
        "x": pa.array([maybe(rnd.uniform(-10, 10), 0.05) for _ in range(N)], pa.float64()),
        "s": pa.array([rnd.choice(["AIR", "MAIL", "SHIP", "TRUCK", "RAIL"]) for _ in range(N)]),
    })
    path = f"{D}/m_{version}.parquet"
    pq.write_table(t, path, row_group_size=RG, data_page_size=2048, use_dictionary=["d", "s"],
                   data_page_version=version, compression="snappy")
    return path


MULTIS = [
    "q * (1 - d) + t > 10",
    "t * 2 - q < 0",
    "x * d > 0.3 OR t = 7",
    "q + t > x",
    "(t > q) OR (s = 'AIR' AND d > 0.05)",
    "CAST(d * 100 AS INTEGER) + t = q",
]


rnd = random.Random(39)
con = duckdb.connect()
runs = 0
for version in ("1.0", "2.0"):
    path = make(version, rnd)
    for first in ("q < 3", "q < 50"):
        for multi in MULTIS:
            where = f"{first} AND ({multi})"
            want = [str(r[0]) for r in con.execute(
                f"SELECT i FROM read_parquet('{path}') WHERE {where} ORDER BY i").fetchall()]
            for cols in ("i", "i,q,d,t,x,s"):
                check_ids(R, path, where, cols, 1 + runs % 2, want)
                runs += 1
sys.exit(0 if summary("multi_short") else 1)
