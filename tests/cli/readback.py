#!/usr/bin/env python3
"""Reads Parquet files written by `ringscan gen` with other engines and compares every value.

    readback.py RINGSCAN FILE[@COL,COL] [...]

For each FILE three checks, each printed as one "PASS"/"FAIL" line:
  pyarrow-vs-ringscan  pyarrow's table rendered as canonical JSONL (the converter of
                       tests/conformance/gen_expected.py, imported) must equal, byte for byte,
                       `RINGSCAN scan FILE --format jsonl`: same row count, every value.
  duckdb-vs-pyarrow    duckdb's read_parquet result (as arrow) against pyarrow's, column by
                       column, after normalising representation only: temporal values to
                       integer nanoseconds (duckdb may choose other units or time zones), floats
                       compared bit-exactly with NaN == NaN, decimals by value, bytes by bytes.
  metadata             pyarrow's view of the footer: row count and created_by "ringscan 0.1.0".
  duckdb-equality      only for FILE@COLS (columns with bloom filters): for up to 300 values
                       present in each column, duckdb's count of `col = value` (which consults
                       the bloom filters and statistics) equals pyarrow's count.
The last line is "readback: N passed, N failed, V values compared".
"""
import math
import os
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
import gen_expected as ge  # noqa: E402  (the canonical JSONL converter)

NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def norm_values(col):
    """Python values with representation differences removed (see module docstring)."""
    t = col.type
    if pa.types.is_date32(t):
        return [None if v is None else v * 86400 * 10**9 for v in col.cast(pa.int32()).to_pylist()]
    if pa.types.is_timestamp(t) or pa.types.is_time64(t) or pa.types.is_time32(t):
        ints = col.cast(pa.int64() if not pa.types.is_time32(t) else pa.int32()).to_pylist()
        return [None if v is None else v * NS[t.unit] for v in ints]
    if pa.types.is_floating(t):
        vals = [None if v is None else float(v) for v in col.to_pylist()]
        return [None if v is None else ("nan" if math.isnan(v) else (v, math.copysign(1, v)))
                for v in vals]
    if pa.types.is_fixed_size_binary(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return [None if v is None else bytes(v) for v in col.to_pylist()]
    return col.to_pylist()


def check_ringscan(ringscan, path, table):
    cols = ge.column_texts(table)
    keys = [ge.json_string(c[0]) + ":" for c in cols]
    want = ["{" + ",".join(k + c[1][r] for k, c in zip(keys, cols)) + "}"
            for r in range(table.num_rows)]
    p = subprocess.run([ringscan, "scan", path, "--format", "jsonl", "--ordered"], capture_output=True)
    if p.returncode != 0:
        return False, 0, "ringscan exit %d: %s" % (p.returncode, p.stderr.decode()[-300:])
    got = p.stdout.decode("utf-8").split("\n")
    if got and got[-1] == "":
        got.pop()
    if len(got) != len(want):
        return False, 0, "rows: ringscan %d, pyarrow %d" % (len(got), len(want))
    for r, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return False, 0, "row %d differs:\n  ringscan %s\n  pyarrow  %s" % (r, a[:400], b[:400])
    return True, len(want) * len(cols), ""


def check_duckdb(path, table):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    d = con.sql("SELECT * FROM read_parquet('%s')" % path.replace("'", "''")).arrow()
    if isinstance(d, pa.RecordBatchReader):
        d = d.read_all()
    if d.num_rows != table.num_rows or d.column_names != table.column_names:
        return False, 0, "shape: duckdb %d x %s, pyarrow %d x %s" % (
            d.num_rows, d.column_names, table.num_rows, table.column_names)
    n = 0
    for name in table.column_names:
        ta, tb = table.column(name).type, d.column(name).type
        a, b = norm_values(table.column(name)), norm_values(d.column(name))
        unit_a, unit_b = getattr(ta, "unit", None), getattr(tb, "unit", None)
        if unit_a in NS and unit_b in NS and NS[unit_b] > NS[unit_a]:
            # duckdb reads this column at a coarser unit (e.g. TIME_NANOS as TIME): compare
            # pyarrow's values cut to that unit, and say so.
            q = NS[unit_b]
            a = [None if v is None else (v // q) * q for v in a]
            print("NOTE %s: duckdb reads %s (%s) as %s" % (os.path.basename(path), name, ta, tb))
        for r, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return False, n, "column %s row %d: pyarrow %r (%s), duckdb %r (%s)" % (
                    name, r, x, table.column(name).type, y, d.column(name).type)
        n += len(a)
    return True, n, ""


def check_probe(path, table, cols):
    import pyarrow.compute as pc
    con = duckdb.connect()
    n = 0
    for name in cols:
        col = table.column(name).combine_chunks()
        vals = [v for v in col.unique().to_pylist() if v is not None][:300]
        for v in vals:
            want = pc.sum(pc.equal(col, pa.scalar(v, col.type))).as_py() or 0
            got = con.execute("SELECT count(*) FROM read_parquet(?) WHERE \"%s\" = ?" % name,
                              [path, v]).fetchone()[0]
            if got != want:
                return False, n, "column %s value %r: duckdb %d rows, pyarrow %d" % (name, v, got, want)
            n += 1
    return True, n, ""


def main():
    ringscan, files = sys.argv[1], sys.argv[2:]
    passed = failed = values = 0
    for arg in files:
        path, _, probe = arg.partition("@")
        base = os.path.basename(path)
        pf = pq.ParquetFile(path)
        table = pf.read()
        checks = [
            ("metadata", lambda: (pf.metadata.num_rows == table.num_rows and
                                  pf.metadata.created_by == "ringscan 0.1.0", 0,
                                  "created_by %r" % pf.metadata.created_by)),
            ("pyarrow-vs-ringscan", lambda: check_ringscan(ringscan, path, table)),
            ("duckdb-vs-pyarrow", lambda: check_duckdb(path, table)),
        ]
        if probe:
            checks.append(("duckdb-equality", lambda: check_probe(path, table, probe.split(","))))
        for name, fn in checks:
            try:
                ok, n, why = fn()
            except Exception as e:  # an engine refusing the file is a failure, with its reason
                ok, n, why = False, 0, "%s: %s" % (type(e).__name__, e)
            values += n
            if ok:
                passed += 1
                print("PASS %s %s (%d rows, %d values)" % (base, name, table.num_rows, n))
            else:
                failed += 1
                print("FAIL %s %s: %s" % (base, name, why))
    print("readback: %d passed, %d failed, %d values compared" % (passed, failed, values))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
