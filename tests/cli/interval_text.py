"""tests/cli/interval_text.py RINGSCAN DIR: Parquet INTERVAL values (months, days, milliseconds)
in ringscan's text output printed as DuckDB prints an INTERVAL (k::VARCHAR: "1 year 2 months
3 days 04:05:06.007", zero parts left out, "00:00:00" when all are), flat and inside a list and
a struct, in jsonl, csv and the table, from files DuckDB writes; the Arrow export stays
fixed_size_binary(12)."""
import csv
import io
import json
import os
import struct
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

R, TOP = sys.argv[1], sys.argv[2]
con = duckdb.connect()
VALUES = ["1 month 2 days 3 milliseconds", "14 months", "1 year", "0 seconds", "1 day", "2 days",
          "25 hours 61 minutes 1.5 seconds", "13 months 1 day", "2 months", "11 months", "24 months",
          "1000 hours", "59.999 seconds", "0.01 seconds", "0.1 seconds", "1 year 1 month 1 day 1 second",
          "100000 days 23 hours 59 minutes 59.999 seconds", "3 years 5 days 0.2 seconds"]  # (none negative:
# DuckDB writes no negative interval)
rows = ", ".join(f"({i}, INTERVAL '{v}')" for i, v in enumerate(VALUES)) + f", ({len(VALUES)}, NULL)"
flat = os.path.join(TOP, "iv.parquet")
con.execute(f"COPY (SELECT * FROM (VALUES {rows}) t(id, k)) TO '{flat}'")
nested = os.path.join(TOP, "iv_nested.parquet")
con.execute(f"COPY (SELECT id, [k, NULL, k] AS l, {{'a': k, 'b': id}} AS s FROM (VALUES {rows}) t(id, k)) "
            f"TO '{nested}'")


def scan(path, fmt, *args):
    p = subprocess.run([R, "scan", path, "--format", fmt, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


want = [r[0] for r in con.execute(f"SELECT k::VARCHAR FROM '{flat}' ORDER BY id").fetchall()]
rc, out, err = scan(flat, "jsonl", "--columns", "k")
got = [json.loads(ln)["k"] for ln in out.splitlines()] if rc == 0 else err
check(got == want, f"jsonl: {got} vs DuckDB {want}")
rc, out, err = scan(flat, "csv", "--columns", "k")
got = [r[0] if r else None for r in csv.reader(io.StringIO(out))][1:] if rc == 0 else err
check(got == [w if w is not None else None for w in want[:-1]] + [None], f"csv: {got} vs DuckDB {want}")
rc, out, err = scan(flat, "table", "--columns", "k")
check(rc == 0 and all(w in out for w in want if w), f"table: {out[:400]} {err}")
# nested: the same text inside JSON arrays and objects (DuckDB's to_json of the list and struct)
want = con.execute(f"SELECT l::VARCHAR[], s.a::VARCHAR FROM '{nested}' ORDER BY id").fetchall()
rc, out, err = scan(nested, "jsonl")
got = [(r["l"], r["s"]["a"] if r["s"] else None) for r in map(json.loads, out.splitlines())] if rc == 0 else err
check(got == [(list(a) if a is not None else None, b) for a, b in want], f"nested jsonl: {got[:3]} vs DuckDB {want[:3]}")
# the Arrow export is fixed_size_binary(12) with the stored bytes (pyarrow reads the same)
if os.environ.get("RINGSCAN_LIB"):
    import rs_ctypes
    t, why = rs_ctypes.read_table(rs_ctypes.load(os.environ["RINGSCAN_LIB"]), flat)
    ref = pq.read_table(flat)
    check(t is not None and t.schema.field("k").type == pa.binary(12) and
          t.column("k").to_pylist() == ref.column("k").to_pylist(),
          f"arrow: {why or (t.schema, t.column('k').to_pylist()[:3])} vs {ref.column('k').to_pylist()[:3]}")
    months, days, ms = struct.unpack("<iiI", ref.column("k")[0].as_py())
    check((months, days, ms) == (1, 2, 3), f"stored bytes {months} {days} {ms}")
sys.exit(0 if summary("interval_text") else 1)
