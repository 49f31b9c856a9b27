"""tests/cli/dataset_time_units.py RINGSCAN DIR: a dataset whose files store a timestamp or a
time of day in different units or zones (issue 23, section 4), scanned by the CLI and compared
with DuckDB's read_parquet(union_by_name = true) and with pyarrow.dataset for the default
(first file's types). Prints "FAIL: NAME: why" per failed case and the summary line
(checks.py)."""
import json
import os
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, epoch, summary  # noqa: E402
R, DIR = sys.argv[1], sys.argv[2]


def case(name, cond, why):
    check(cond, f"{name}: {why}")
UNIT = {"ms": 3, "us": 6, "ns": 9}


def write(name, parts):
    """parts: [(file, arrow array of x)]; every file also gets id = its row's global number."""
    d = os.path.join(DIR, name)
    os.makedirs(d, exist_ok=True)
    at = 0
    for fname, arr in parts:
        ids = pa.array(range(at, at + len(arr)), pa.int64())
        pq.write_table(pa.table({"id": ids, "x": arr}), os.path.join(d, fname))
        at += len(arr)
    return d


def scan(d, *args):
    p = subprocess.run([R, "scan", d, "--format", "jsonl", *args], capture_output=True, text=True,
                       timeout=60)
    rows = [json.loads(l) for l in p.stdout.splitlines()] if p.returncode == 0 else None
    return p.returncode, rows, p.stderr.strip()


def duck(d, sql_x, where="", order="id"):
    q = (f"select id, {sql_x} from read_parquet('{d}/*.parquet', union_by_name = true) "
         f"{where} order by {order}")
    return duckdb.sql(q).fetchall()




def check_values(name, d, exp, sql_x, args=(), where="", order="id", zone=None):
    rc, rows, err = scan(d, "--columns", "id,x", *args)
    if rc != 0:
        return case(name, False, f"rc {rc}: {err}")
    got = sorted((r["id"], epoch(r["x"], exp)[0]) for r in rows)
    want = duck(d, sql_x, where, order)
    digits = {epoch(r["x"], exp)[1] for r in rows if r["x"] is not None}
    zones = {r["x"].endswith("Z") for r in rows if r["x"] is not None}
    case(name, got == want and digits == {exp} and (zone is None or zones == {zone}),
         f"got {got[:4]} digits {digits} zones {zones}, DuckDB {want[:4]}")


stamps_ms = pa.array([1, 2000, None, 86_400_123], pa.timestamp("ms"))
stamps_us = pa.array([3_000_000, 4, None, 1_700_000_000_123_456], pa.timestamp("us"))
stamps_ns = pa.array([5_000_000_000, None, 7], pa.timestamp("ns"))
d = write("units", [("a.parquet", stamps_ms), ("b.parquet", stamps_us), ("c.parquet", stamps_ns)])
# union by name: the finest unit (ns), values equal DuckDB's TIMESTAMP_NS
check_values("union ms+us+ns -> ns", d, 9, "epoch_ns(x)", ["--union-by-name"])
check_values("union ms+us+ns, filter", d, 9, "epoch_ns(x)",
             ["--union-by-name", "--where", "x >= TIMESTAMP '1970-01-01 00:00:02'"],
             where="where x >= TIMESTAMP '1970-01-01 00:00:02'")
rc, rows, err = scan(d, "--columns", "id,x", "--union-by-name", "--order-by", "x desc",
                     "--limit", "3")
want = [r[0] for r in duckdb.sql(f"select id from read_parquet('{d}/*.parquet', union_by_name = "
                                 "true) order by x desc nulls last limit 3").fetchall()]
case("union ORDER BY x DESC LIMIT 3", rc == 0 and [r["id"] for r in rows] == want,
     f"rc {rc} {err} got {rows} want ids {want}")

# default: the first file's unit; a later finer file's values cast exactly, as pyarrow does
d = write("coarse_first_exact", [("a.parquet", stamps_ms),
                                 ("b.parquet", pa.array([3_000_000, None], pa.timestamp("us")))])
check_values("default ms then us (exact) -> ms", d, 3, "epoch_ms(x)")
d = write("coarse_first_loss", [("a.parquet", stamps_ms), ("b.parquet", stamps_us)])
rc, rows, err = scan(d, "--columns", "id,x")
case("default ms then us (a remainder) refused", rc != 0 and "b.parquet: column 'x'" in err
     and "timestamp 4 " in err and "a.parquet" in err and "union_by_name" in err, f"rc {rc}: {err}")
try:
    import pyarrow.dataset as ds
    ds.dataset(d).to_table()
    case("pyarrow refuses it too", False, "pyarrow read it")
except pa.ArrowInvalid:
    case("pyarrow refuses it too", True, "")
d = write("fine_first", [("a.parquet", stamps_us), ("b.parquet", stamps_ms)])
check_values("default us then ms -> us", d, 6, "epoch_us(x)")

# zones: the default keeps the first file's (pyarrow.dataset); a union is UTC when any file is
naive, utc = pa.timestamp("us"), pa.timestamp("us", "UTC")
d = write("zones", [("a.parquet", pa.array([1, 2], naive)), ("b.parquet", pa.array([3, None], utc))])
check_values("default naive then UTC -> naive", d, 6, "epoch_us(x)", zone=False)
check_values("union naive + UTC -> UTC", d, 6, "epoch_us(x)", ["--union-by-name"], zone=True)
tz = str(ds.dataset(d).schema.field("x").type.tz)
case("pyarrow's default is naive too", tz == "None", f"pyarrow tz {tz}")

# times of day: a union takes the finer unit (INT32 milliseconds widened to INT64)
d = write("times", [("a.parquet", pa.array([1, 86_399_999, None], pa.time32("ms"))),
                    ("b.parquet", pa.array([3, 86_399_999_999], pa.time64("us")))])
rc, rows, err = scan(d, "--columns", "id,x", "--union-by-name")
got = [(r["id"], epoch(r["x"], 6)[0]) for r in rows] if rows else None
want = [(i, None if t is None else ((t.hour * 60 + t.minute) * 60 + t.second) * 10**6 + t.microsecond)
        for i, t in duck(d, "x")]
case("union time ms + us -> us", rc == 0 and got == want, f"rc {rc} {err} got {got} want {want}")

# a unit change that overflows int64 (year ~318,000 in ms to ns) is refused with the value
d = write("overflow", [("a.parquet", pa.array([1], pa.timestamp("ns"))),
                       ("b.parquet", pa.array([10**13], pa.timestamp("ms")))])
rc, rows, err = scan(d, "--columns", "id,x", "--union-by-name")
case("ms to ns overflow refused", rc != 0 and "timestamp 10000000000000 " in err and
     "overflows" in err and "b.parquet" in err, f"rc {rc}: {err}")
# INT96 timestamps (old Spark and Impala files) beside INT64 ones: a union takes INT64
# nanoseconds; without one, a later INT96 file under a first INT64 one is cast to its unit
d = os.path.join(DIR, "int96")
os.makedirs(d)
us = pa.array([1_700_000_000_123_456, None, -86_400_000_001], pa.timestamp("us"))
pq.write_table(pa.table({"id": pa.array([0, 1, 2], pa.int64()), "x": us.cast(pa.timestamp("ns"))}),
               os.path.join(d, "a.parquet"), use_deprecated_int96_timestamps=True)
pq.write_table(pa.table({"id": pa.array([3, 4], pa.int64()), "x": pa.array([5, 6_000_000], pa.timestamp("us"))}),
               os.path.join(d, "b.parquet"))
check_values("union INT96 + INT64 us -> ns", d, 9, "epoch_ns(x)", ["--union-by-name"])
# without one, a first INT96 file gives nanoseconds (pyarrow.dataset's timestamp[ns]) and a later
# INT64 file's microseconds are cast to them; a filter compares in each file's own type
check_values("default: INT96 first, then INT64 us cast to ns", d, 9, "epoch_ns(x)")
check_values("default: INT96 first, filter", d, 9, "epoch_ns(x)",
             ["--where", "x > TIMESTAMP '1970-01-01 00:00:00.000005'"],
             where="where x > TIMESTAMP '1970-01-01 00:00:00.000005'")
pa_type = str(ds.dataset(d).schema.field("x").type)
case("pyarrow's default type is timestamp[ns] too", pa_type == "timestamp[ns]", pa_type)
# ranges on an INT96 column of one file (by day, then nanoseconds of the day), ids as DuckDB's
a = os.path.join(d, "a.parquet")
for where in ["x < TIMESTAMP '2000-01-01'", "x >= TIMESTAMP '1969-12-30 23:59:59.999999'",
              "x BETWEEN TIMESTAMP '1969-12-30 23:59:59.999999' AND TIMESTAMP '2023-11-14 22:13:20.123456'",
              "x > TIMESTAMP '2023-11-14 22:13:20.123456'", "x IN (TIMESTAMP '2023-11-14 22:13:20.123456')",
              # a DATE literal and year() / date_trunc() on INT96 (they were refused: "cannot
              # compare INT96 column 'x' with date", "year() needs a date or timestamp column")
              "x >= DATE '1969-12-31'", "year(x) = 2023", "year(x) IN (1969, 1970)",
              "date_trunc('month', x) = DATE '2023-11-01'", "date_trunc('day', x) < DATE '1970-01-01'",
              # month() / day() / quarter() / extract() on INT96 (refused before: "month() of
              # the INT96 timestamp column 'x' is not supported")
              "month(x) = 11", "day(x) IN (1, 14)", "quarter(x) BETWEEN 1 AND 3",
              "extract(day FROM x) >= 14", "month(x) NOT IN (12)",
              # CAST of INT96 (refused before: "column 'x' (INT96) takes no arithmetic or CAST")
              "CAST(x AS DATE) = DATE '2023-11-14'", "CAST(x AS DATE) < DATE '1970-01-01'",
              "CAST(x AS TIMESTAMP) > TIMESTAMP '1970-01-01'"]:
    p = subprocess.run([R, "scan", a, "--format", "jsonl", "--columns", "id", "--where", where],
                       capture_output=True, text=True, timeout=60)
    got = sorted(json.loads(l)["id"] for l in p.stdout.splitlines()) if p.returncode == 0 else p.stderr
    want = [r[0] for r in duckdb.sql(f"select id from '{a}' where {where} order by id").fetchall()]
    case(f"INT96 file: {where}", got == want, f"got {got} want {want}")
# ORDER BY an INT96 column across INT96 files (each file's values widened to nanoseconds)
d2 = os.path.join(DIR, "int96_only")
os.makedirs(d2)
for i, xs in enumerate([[5_000, None, -7_000_000_000_000_000], [86_400_000_000_000, 3_000, 6_000]]):
    pq.write_table(pa.table({"id": pa.array(range(3 * i, 3 * i + 3), pa.int64()),
                             "x": pa.array(xs, pa.timestamp("ns"))}),
                   os.path.join(d2, f"f{i}.parquet"), use_deprecated_int96_timestamps=True)
rc, rows, err = scan(d2, "--columns", "id", "--order-by", "x desc", "--limit", "4")
want = [r[0] for r in duckdb.sql(f"select id from read_parquet('{d2}/*.parquet') order by x desc "
                                 "nulls last limit 4").fetchall()]
case("INT96 files: ORDER BY x DESC LIMIT 4", rc == 0 and [r["id"] for r in rows] == want,
     f"rc {rc} {err} got {rows} want ids {want}")
os.rename(a, os.path.join(d, "c.parquet"))
check_values("default: INT64 us first, then INT96 cast to us", d, 6, "epoch_us(x)")

# INT96 digits finer than a microsecond (the choice, docs/ARCHITECTURE.md): a dataset reads
# INT96 as nanoseconds, its values pyarrow.dataset's timestamp[ns] exactly and a one-file
# scan's; DuckDB's read_parquet reads it as a microsecond TIMESTAMP, its values floored
# (epoch_us: the same instants to the microsecond, the sub-microsecond digits dropped)
import pyarrow.dataset as pads
d3 = os.path.join(DIR, "int96_fine")
os.makedirs(d3)
fine = [[1_700_000_000_123_456_789, None, -1], [5, -86_400_000_000_000_001, 999]]
for i, xs in enumerate(fine):
    pq.write_table(pa.table({"id": pa.array(range(3 * i, 3 * i + 3), pa.int64()), "x": pa.array(xs, pa.timestamp("ns"))}),
                   os.path.join(d3, f"f{i}.parquet"), use_deprecated_int96_timestamps=True)
pq.write_table(pa.table({"id": pa.array([6], pa.int64()), "x": pa.array([7], pa.timestamp("us"))}), os.path.join(d3, "g.parquet"))
for args, files in (([], ["f0.parquet"]), ([], ["f0.parquet", "f1.parquet"]),
                    (["--union-by-name"], ["f0.parquet", "f1.parquet", "g.parquet"])):
    paths = [os.path.join(d3, f) for f in files]
    p = subprocess.run([R, "scan", *paths, "--format", "jsonl", "--columns", "id,x", *args],
                       capture_output=True, text=True, timeout=60)
    got = [(r["id"], epoch(r["x"], 9)[0]) for r in map(json.loads, p.stdout.splitlines())] if p.returncode == 0 else p.stderr
    t = pads.dataset(paths).to_table() if not args else pa.concat_tables(
        [pq.read_table(f).cast(pa.schema([("id", pa.int64()), ("x", pa.timestamp("ns"))])) for f in paths])
    want = list(zip(t.column("id").to_pylist(), t.column("x").cast(pa.int64()).to_pylist()))
    ubn = "true" if args else "false"
    duck_us = duckdb.sql(f"select id, epoch_us(x) from read_parquet({paths!r}, union_by_name = {ubn}) order by id").fetchall()
    floored = [(i, None if v is None else v // 1000) for i, v in want]
    case(f"INT96 sub-microsecond digits {files} {args}: pyarrow.dataset's ns, DuckDB's us floored",
         got == want and duck_us == floored, f"got {got} pyarrow {want} DuckDB us {duck_us}")

# decimals of other precisions and scales: a union holds both (DuckDB's DECIMAL(p, s) with the
# larger scale and integer digits), values exact; a filter parsed in each file's own scale
import decimal
D = decimal.Decimal
d = os.path.join(DIR, "decimals")
os.makedirs(d)
pq.write_table(pa.table({"id": [0, 1, 2], "x": pa.array([D("1.25"), None, D("-999.99")],
                                                         pa.decimal128(5, 2))}),
               os.path.join(d, "a.parquet"))
pq.write_table(pa.table({"id": [3, 4], "x": pa.array([D("123456.25"), D("1.30")],
                                                     pa.decimal128(12, 2))}),
               os.path.join(d, "b.parquet"), store_decimal_as_integer=True)
pq.write_table(pa.table({"id": [5, 6], "x": pa.array([D("1.5"), D("-9999.9")], pa.decimal128(5, 1))}),
               os.path.join(d, "c.parquet"))
for where in ("", "x > 1.3"):
    args = ["--columns", "id,x", "--union-by-name"] + (["--where", where] if where else [])
    rc, rows, err = scan(d, *args)
    got = [(r["id"], None if r["x"] is None else D(r["x"])) for r in rows] if rows else None
    want = duck(d, "x", f"where {where}" if where else "")
    digits = {len(r["x"].partition(".")[2]) for r in rows or [] if r["x"] is not None}
    case(f"union decimals {where or 'all'}", rc == 0 and got == want and digits == {2},
         f"rc {rc} {err} got {got} digits {digits} want {want}")
sys.exit(0 if summary("dataset_time_units") else 1)
