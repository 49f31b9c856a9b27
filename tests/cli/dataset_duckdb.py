"""tests/cli/dataset_duckdb.py: many files as one dataset, ringscan against DuckDB 2.0.1.
Writes lineitem sf=0.01 (`ringscan gen`), splits it with DuckDB's COPY ... PARTITION_BY
(year, month) of l_shipdate into hive directories (year=1992/month=1/data_0.parquet, 83
files), and adds year=1999/month=1 (pyarrow: l_linenumber widened to int64, l_comment
missing) and year=1999/month=2 (l_quantity as double, l_shipmode missing). Each query runs
as `ringscan scan 'DIR/**/*.parquet' --union-by-name --format csv` and as DuckDB's
read_parquet([the same paths, sorted], hive_partitioning = true, union_by_name = true); the
rows must be equal as text, in order (path order, then row order) or, for ORDER BY, as the
sorted keys and the set of rows. --stats must count the files the partition filters prune
and read no footer of them. Then the errors: a pattern matching nothing, an unreadable
file, and types that do not widen, each named.
Usage: python dataset_duckdb.py RINGSCAN DIR"""
import glob
import json
import os
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402
from duck_text import csv_rows, duck_rows  # noqa: E402

R, D = sys.argv[1], sys.argv[2]


def run(args, want_rc=0):
    p = subprocess.run([R, "scan"] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != want_rc:
        check(False, f"ringscan scan {' '.join(args)}: exit {p.returncode}: {p.stderr[-400:]}")
    return p


def make_dataset():
    li, ds = os.path.join(D, "li.parquet"), os.path.join(D, "ds")
    subprocess.run([R, "gen", "lineitem", "--sf", "0.01", "-o", li], check=True,
                   capture_output=True, timeout=300)
    con = duckdb.connect()
    con.execute(f"COPY (SELECT *, year(l_shipdate) AS year, month(l_shipdate) AS month "
                f"FROM '{li}') TO '{ds}' (FORMAT parquet, PARTITION_BY (year, month), "
                f"OVERWRITE_OR_IGNORE)")
    t = pq.read_table(li).slice(0, 500)
    os.makedirs(f"{ds}/year=1999/month=1", exist_ok=True)
    os.makedirs(f"{ds}/year=1999/month=2", exist_ok=True)
    a = t.set_column(t.schema.get_field_index("l_linenumber"), "l_linenumber",
                     t["l_linenumber"].cast(pa.int64())).drop(["l_comment"])
    pq.write_table(a, f"{ds}/year=1999/month=1/extra.parquet")
    b = t.slice(100, 300)
    b = b.set_column(b.schema.get_field_index("l_quantity"), "l_quantity",
                     b["l_quantity"].cast(pa.float64())).drop(["l_shipmode"])
    pq.write_table(b, f"{ds}/year=1999/month=2/extra.parquet")
    return ds


def duck(con, files, cols, where=None, order=None, limit=None):
    return duck_rows(con, f"read_parquet({files!r}, hive_partitioning = true, union_by_name = true)",
                     cols, where, order, limit)


def norm(rows):
    """CSV fields made comparable: floats as floats (DuckDB prints 45.0, ringscan 45)."""
    out = []
    for r in rows:
        nr = []
        for v in r:
            try:
                nr.append(repr(float(v)) if "." in v or "e" in v else v)
            except ValueError:
                nr.append(v)
        out.append(nr)
    return out


def stats_of(p):
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("{")]
    return json.loads(line[-1]) if line else {}


ds = make_dataset()
files = sorted(glob.glob(f"{ds}/**/*.parquet", recursive=True))
check(len(files) == 85, f"{len(files)} files, want 83 + 2")
con = duckdb.connect()
pat = f"{ds}/**/*.parquet"
COLS = ["l_orderkey", "l_linenumber", "l_quantity", "l_shipdate", "l_shipmode", "l_comment",
        "year", "month"]
queries = [
    (None, None, None),
    ("year = 1995", None, None),
    ("year = 1995 AND month IN (3, 4)", None, None),
    ("month = 12 AND l_quantity > 45", None, None),
    ("l_quantity > 48", None, None),
    ("year >= 1997 AND l_discount < 0.02", None, None),
    ("l_comment IS NULL", None, None),
    ("l_shipmode IS NULL AND l_linenumber > 3", None, None),
    ("year = 1999", None, None),
    ("month = 6", None, 100),
    (None, None, 7),
    ("l_shipdate BETWEEN DATE '1994-03-01' AND DATE '1994-03-31'", None, None),
]
for where, order, limit in queries:
    args = [pat, "--union-by-name", "--format", "csv", "--columns", ",".join(COLS), "--stats=json"]
    if where:
        args += ["--where", where]
    if limit is not None:
        args += ["--limit", str(limit)]
    p = run(args)
    got, want = norm(csv_rows(p.stdout)), norm(duck(con, files, COLS, where, order, limit))
    check(len(got) == len(want) and got == want,
          f"where {where} limit {limit}: {len(got)} rows, DuckDB {len(want)}"
          + (f"; first difference {next((g, w) for g, w in zip(got, want) if g != w)}"
             if len(got) == len(want) and got != want else ""))
    st = stats_of(p)
    check(st.get("files") == 85, f"where {where}: files {st.get('files')}, want 85")
    check(st.get("rows_out") == len(want), f"where {where}: rows_out {st.get('rows_out')}")
    if where and where.startswith("year = ") and " " not in where[7:]:
        y = where[7:]
        kept = [f for f in files if f"/year={y}/" in f]
        check(st.get("files_pruned") == 85 - len(kept) and st.get("footers_read") == len(kept),
              f"where {where}: files_pruned {st.get('files_pruned')} footers_read "
              f"{st.get('footers_read')}, want {85 - len(kept)} and {len(kept)}")
    if where == "year = 1995 AND month IN (3, 4)":
        check(st.get("footers_read") == 2 and st.get("files_pruned") == 83,
              f"{where}: footers_read {st.get('footers_read')} files_pruned {st.get('files_pruned')}")

# other thread counts (files run one per core, batches still in path order), and unordered
where = "month = 12 AND l_quantity > 45"
want = norm(duck(con, files, COLS, where))
for extra in (["--threads", "1"], ["--threads", "3"], ["--threads", "3", "--policy", "eager"]):
    p = run([pat, "--union-by-name", "--format", "csv", "--columns", ",".join(COLS), "--where",
             where] + extra)
    check(norm(csv_rows(p.stdout)) == want, f"{' '.join(extra)}: rows differ from DuckDB's")
p = run([pat, "--union-by-name", "--format", "csv", "--columns", ",".join(COLS), "--where", where,
         "--unordered"])
check(sorted(norm(csv_rows(p.stdout))) == sorted(want), "--unordered: rows differ from DuckDB's")

# ORDER BY ... LIMIT across files: the keys in order and the rows as a set (ties may differ)
for order, limit in [("l_extendedprice DESC", 10), ("year DESC, l_orderkey", 20),
                     ("l_quantity, l_orderkey DESC", 15)]:
    cols = ["l_orderkey", "l_linenumber", "l_extendedprice", "year", "l_quantity"]
    p = run([pat, "--union-by-name", "--format", "csv", "--columns", ",".join(cols),
             "--order-by", order, "--limit", str(limit)])
    got, want = norm(csv_rows(p.stdout)), norm(duck(con, files, cols, None, order, limit))
    check(len(got) == limit, f"order by {order}: {len(got)} rows, want {limit}")
    keys = [c.split()[0] for c in order.split(",")]
    kidx = [cols.index(k.strip()) for k in keys]
    check([[r[i] for i in kidx] for r in got] == [[r[i] for i in kidx] for r in want],
          f"order by {order}: keys differ: {got[:3]} vs DuckDB {want[:3]}")

# --explain: the files pruned by partition (no footer read), then each scanned file's plan
p = run([pat, "--union-by-name", "--format", "checksum", "--columns", "l_orderkey", "--where",
         "year = 1995", "--explain"])
lines = p.stderr.splitlines()
check(sum("pruned by its partition values (no footer read)" in x for x in lines) == 73 and
      sum(x.startswith("file ") and x.endswith(".parquet:") for x in lines) == 12 and
      sum(x.startswith("plan: ") for x in lines) == 12,
      f"--explain: {len(lines)} lines: {lines[:3]}")

# a directory and several paths name the same dataset
p1 = run([ds, "--union-by-name", "--format", "checksum"])
p2 = run(files + ["--union-by-name", "--format", "checksum"])
p3 = run([pat, "--union-by-name", "--format", "checksum"])
check(p1.stdout == p2.stdout == p3.stdout and p1.stdout.startswith("rows 60"),
      f"directory / paths / pattern: {p1.stdout!r} {p2.stdout!r} {p3.stdout!r}")
# without union_by_name the first file's columns: the extra files lack one, named
p = run([pat, "--format", "checksum"], want_rc=1)
check("'l_" in p.stderr and "extra.parquet" in p.stderr and "union_by_name" in p.stderr,
      f"without --union-by-name: {p.stderr.strip()}")

# errors
p = run([f"{ds}/**/*.nothing"], want_rc=1)
check("no file matches" in p.stderr and "*.nothing" in p.stderr, f"no match: {p.stderr.strip()}")
bad = os.path.join(D, "bad")
os.makedirs(f"{bad}/year=2000", exist_ok=True)
subprocess.run(["cp", files[0], f"{bad}/year=2000/a.parquet"], check=True)
with open(f"{bad}/year=2000/b.parquet", "wb") as f:
    f.write(b"not parquet at all, just bytes" * 10)
p = run([bad, "--format", "checksum"], want_rc=1)
check("b.parquet" in p.stderr, f"unreadable file not named: {p.stderr.strip()}")
inc = os.path.join(D, "inc")
os.makedirs(inc, exist_ok=True)
pq.write_table(pa.table({"k": pa.array([1, 2], pa.int32())}), f"{inc}/a.parquet")
pq.write_table(pa.table({"k": pa.array(["x", "y"])}), f"{inc}/b.parquet")
p = run([inc, "--union-by-name", "--format", "csv"])  # DuckDB: VARCHAR, the integers as text
want = [r[0] for r in duckdb.sql(f"select k from read_parquet('{inc}/*.parquet', union_by_name = true)").fetchall()]
check(p.stdout.split() == ["k"] + want and want == ["1", "2", "x", "y"], f"int32 + string as text: {p.stdout!r}")
pq.write_table(pa.table({"k": pa.array([0.5])}), f"{inc}/c.parquet")  # a float beside text: VARCHAR
p = run([inc, "--union-by-name", "--format", "csv"])
want = [r[0] for r in duckdb.sql(f"select k from read_parquet('{inc}/*.parquet', union_by_name = true)").fetchall()]
check(p.stdout.split() == ["k"] + want and want == ["1", "2", "x", "y", "0.5"], f"float + string as text: {p.stdout!r}")
pq.write_table(pa.table({"k": pa.array([[1]])}), f"{inc}/c.parquet")  # a list beside text: refused
p = run([inc, "--union-by-name", "--format", "checksum"], want_rc=1)
check("'k'" in p.stderr and "c.parquet" in p.stderr, f"incompatible types: {p.stderr.strip()}")
os.remove(f"{inc}/c.parquet")
pq.write_table(pa.table({"k": pa.array([3], pa.int64())}), f"{inc}/b.parquet")
p = run([inc, "--union-by-name", "--format", "csv"])
check(p.stdout.split() == ["k", "1", "2", "3"], f"int32 + int64 widened: {p.stdout!r}")

sys.exit(0 if summary("dataset_duckdb") else 1)
