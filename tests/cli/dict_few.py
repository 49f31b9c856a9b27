"""tests/cli/dict_few.py: a conjunct on a dictionary-coded string column that a selective
conjunct on q runs before (q registered first, then ranked first: it passes 3% of the rows), so
the string conjunct reaches a few rows of each page: with a dictionary over eight times their
number it is evaluated on their entries alone (scan/task_eval.c eval_dict_selected), else on
the whole dictionary. pyarrow writes one file per page version (1.0, 2.0) x nulls in s (none,
about one row in 9: those pages take the whole-dictionary path) x dictionary size (40: never
the few-rows path; 3,000: always). Strings of 0..40 bytes sharing heads, bytes 0x00, 0x7f,
0x80, 0xff among letters (as UTF-8 would not: binary); row groups of 4,000 rows and small
pages. Each filter (=, <, <=, >, >=, BETWEEN, a prefix LIKE, IN) is run with --columns i
(s not projected: the few-rows path) and --columns i,s (projected: pages decoded whole) at 1
and 2 threads; the output must equal the rows pyarrow selects, row for row.
Usage: python dict_few.py RINGSCAN DIR"""
import os
import random
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check_ids, summary  # noqa: E402

R, D = sys.argv[1], sys.argv[2]
N, RG = 16_000, 4_000
ALPHA = [b"a", b"c", b"m", b"z", b"\x00", b"\x7f", b"\x80", b"\xff"]


def make(version, nulls, size, rnd):
    stems = [b"".join(rnd.choice(ALPHA) for _ in range(40)) for _ in range(4)]
    words = set()
    while len(words) < size:
        n = rnd.randrange(41)
        keep = rnd.randrange(n + 1)
        stem = rnd.choice(stems)
        words.add(stem[:keep] + b"".join(rnd.choice(ALPHA) for _ in range(n - keep)))
    words = sorted(words)
    s = [None if nulls and rnd.random() < 1 / 9 else rnd.choice(words) for _ in range(N)]
    q = [rnd.randrange(100) for _ in range(N)]
    t = pa.table({"i": pa.array(range(N), pa.int64()), "q": pa.array(q, pa.int32()),
                  "s": pa.array(s, pa.binary())})
    path = f"{D}/f_{version}_{int(nulls)}_{size}.parquet"
    pq.write_table(t, path, row_group_size=RG, data_page_size=4096, use_dictionary=["s"],
                   data_page_version=version, compression="snappy",
                   dictionary_pagesize_limit=1 << 24)
    return path, t, words


def lit(b):
    """b (printable ASCII) as a SQL string literal."""
    return "'" + b.decode("latin-1").replace("'", "''") + "'"


rnd = random.Random(38)
runs = 0
for version in ("1.0", "2.0"):
    for nulls in (False, True):
        for size in (40, 3000):
            path, t, words = make(version, nulls, size, rnd)
            printable = [w for w in words if all(0x20 <= c < 0x7f and c != 0x27 for c in w)]
            sa, qa = t.column("s"), t.column("q")
            for _ in range(6):
                a, b = sorted(rnd.sample(printable, 2)) if len(printable) >= 2 else (b"c", b"m")
                a = a[:rnd.randrange(len(a) + 1)] if rnd.random() < 0.3 else a
                op = rnd.choice(["=", "<", "<=", ">", ">=", "BETWEEN", "LIKE", "IN"])
                if op == "BETWEEN":
                    cond, m = f"s BETWEEN {lit(a)} AND {lit(b)}", pc.and_(pc.greater_equal(sa, a), pc.less_equal(sa, b))
                elif op == "LIKE":
                    p = a[:3]
                    cond, m = f"s LIKE {lit(p + b'%')}", pc.starts_with(sa, p.decode())
                elif op == "IN":
                    cond, m = f"s IN ({lit(a)}, {lit(b)})", pc.is_in(sa, pa.array([a, b], pa.binary()))
                else:
                    f = {"=": pc.equal, "<": pc.less, "<=": pc.less_equal, ">": pc.greater,
                         ">=": pc.greater_equal}[op]
                    cond, m = f"s {op} {lit(a)}", f(sa, a)
                want = [str(i) for i, ok in
                        zip(t.column("i").to_pylist(), pc.and_(pc.less(qa, 3), m).to_pylist()) if ok]
                where = f"q < 3 AND {cond}"
                for cols in ("i", "i,s"):
                    check_ids(R, path, where, cols, 1 + runs % 2, want)
                    runs += 1
sys.exit(0 if summary("dict_few") else 1)
