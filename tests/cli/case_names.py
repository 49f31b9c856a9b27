"""tests/cli/case_names.py RINGSCAN DIR: names that differ in case alone, read as DuckDB 2.0.1
reads them (issue 23). A file whose columns (or a struct's fields) are `a` and `A` reads as
`a`, `A_1` (format/meta_names.c: DuckDB's renaming, repeated on the new name); `--columns`
and `--where` find a name spelled exactly, else the only one differing in case alone, and
reach the renamed one by its new name; a dataset (union by name or not) renames each file's
names and pairs them across files in any case. Each case compares ringscan's output names
and values with DuckDB's SELECT on the same files. Nested paths (`s.A` for a field `a`) are
found in any case too, exact spelling first."""
import csv
import io
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


def scan(paths, *args):
    p = subprocess.run([R, "scan", *paths, "--ordered", *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def ours(paths, *args):
    """(names, rows) of a csv scan, or (None, stderr) on an error."""
    rc, out, err = scan(paths, "--format", "csv", *args)
    if rc != 0:
        return None, err.strip()
    rows = list(csv.reader(io.StringIO(out)))
    return rows[0], [[int(v) if v else None for v in r] for r in rows[1:]]


def duck(sql):
    """(names, rows) of DuckDB's answer, or (None, its error)."""
    try:
        r = con.sql(sql)
        return r.columns, [list(t) for t in r.fetchall()]
    except duckdb.Error as e:
        return None, str(e)


def write(names, path, base=0):
    t = pa.table({f"c{i}": [base + 10 * i + 1, base + 10 * i + 2] for i in range(len(names))})
    pq.write_table(t.rename_columns(names), path)


# 1. one file: names in order, values equal (fixed cases and seeded random ones)
FIXED = [["a", "A", "b"], ["a", "A", "a_1"], ["a", "A", "A_1"], ["a_1", "a", "A"], ["a", "A", "a"],
         ["A", "a", "A_1", "a_2"], ["x", "X", "x", "X"], ["ä", "Ä"], ["Id", "ID", "id", "iD"]]
rng = random.Random(26)
POOL = ["a", "A", "a_1", "A_1", "a_2", "a_1_1", "b", "B", "A_2"]
CASES = FIXED + [[rng.choice(POOL) for _ in range(rng.randint(2, 6))] for _ in range(30)]
for k, names in enumerate(CASES):
    f = os.path.join(TOP, f"f{k}.parquet")
    write(names, f)
    want = duck(f"SELECT * FROM '{f}'")
    got = ours([f])
    check(got == tuple(want), f"{names}: ringscan {got} vs DuckDB {want}")

# 2. --columns and --where: exact first, else the one differing in case alone; the renamed one
# by its new name; a name matching several (none exactly) is an error in both
f = os.path.join(TOP, "p.parquet")
write(["a", "A", "b", "B_1", "Cc"], f)  # DuckDB: a, A_1, b, B_1, Cc
for q in ["a", "A", "A_1", "a_1", "b", "B", "B_1", "b_1", "cc", "CC", "Cc", "nope"]:
    want = duck(f'SELECT "{q}" FROM \'{f}\'')
    got = ours([f], "--columns", q)
    check((got[0] is None) == (want[0] is None) and (want[0] is None or got == tuple(want)),
          f"--columns {q}: ringscan {got} vs DuckDB {want}")
    if want[0] is None:
        continue
    v = want[1][1][0]
    want_n = duck(f"SELECT count(*) FROM '{f}' WHERE \"{q}\" = {v}")[1][0][0]
    rc, out, err = scan([f], "--format", "count", "--where", f"{q} = {v}")
    check(rc == 0 and out.split() == ["rows", str(want_n)], f"--where {q} = {v}: {out!r} {err!r} vs {want_n}")

# 3. datasets: each file renamed, then paired in any case (union by name or not)
# (ringscan reads a dataset's files in path order: each pair is given sorted)
pairs = []
for k, (n1, n2) in enumerate([(["a", "A", "b"], ["A", "a", "B"]), (["A", "a", "B"], ["a", "A", "b"])]):
    pairs.append([os.path.join(TOP, f"d{k}_1.parquet"), os.path.join(TOP, f"d{k}_2.parquet")])
    write(n1, pairs[-1][0])
    write(n2, pairs[-1][1], base=100)
for files in pairs:
    for ubn in (True, False):
        want = duck(f"SELECT * FROM read_parquet({files!r}, union_by_name = {str(ubn).lower()})")
        got = ours(files, *(["--union-by-name"] if ubn else []))
        check(got == tuple(want), f"dataset {files} ubn={ubn}: ringscan {got} vs DuckDB {want}")
        want = duck(f"SELECT A_1 FROM read_parquet({files!r}, union_by_name = {str(ubn).lower()})")
        got = ours(files, "--columns", "a_1", *(["--union-by-name"] if ubn else []))
        check(got[1] == want[1], f"dataset {files} ubn={ubn} a_1: ringscan {got} vs DuckDB {want}")

# 4. struct fields: renamed as DuckDB renames them, found in any case (exact first)
sf = os.path.join(TOP, "s.parquet")
pq.write_table(pa.table({"s": pa.array([{"a": 1, "A": 2, "Bb": 3}, {"a": 4, "A": 5, "Bb": 6}]),
                         "k": pa.array([[{"x": 1, "Y": 2}], [{"x": 3, "Y": 4}]])}), sf)
con.execute(f"CREATE VIEW sv AS SELECT * FROM '{sf}'")
rc, out, err = scan([sf], "--format", "jsonl")
got = [json.loads(ln) for ln in out.splitlines()] if rc == 0 else err
want = [json.loads(r[0]) for r in con.sql("SELECT to_json(sv) FROM sv").fetchall()]
check(got == want, f"struct fields: ringscan {got} vs DuckDB {want}")
for path, sql in [("s.a", "s.a"), ("s.A", "s.A"), ("s.A_1", "s.A_1"), ("s.a_1", "s.a_1"),
                  ("s.bb", "s.bb"), ("S.BB", "S.BB"), ("k.list.element.y", "[e.y FOR e IN k]"),
                  ("K.list.element.X", "[e.X FOR e IN k]")]:
    want = [r[0] for r in con.sql(f"SELECT {sql} FROM sv").fetchall()]
    rc, out, err = scan([sf], "--format", "jsonl", "--columns", path)
    got = [list(json.loads(ln).values())[0] for ln in out.splitlines()] if rc == 0 else err
    check(got == want, f"--columns {path}: ringscan {got} vs DuckDB {want}")

# 5. paths in a dataset whose files spell the struct fields in other cases (DuckDB pairs them
# and keeps the first file's spelling)
p1, p2 = os.path.join(TOP, "n1.parquet"), os.path.join(TOP, "n2.parquet")
pq.write_table(pa.table({"s": pa.array([{"a": 1, "Bb": 2}]), "k": pa.array([[{"x": 1, "Y": 2}]])}), p1)
pq.write_table(pa.table({"s": pa.array([{"A": 3, "bb": 4}]), "k": pa.array([[{"X": 5, "y": 6}]])}), p2)
for ubn in (True, False):
    src = f"read_parquet({[p1, p2]!r}, union_by_name = {str(ubn).lower()})"
    for path, sql in [("s.A", "s.A"), ("S.A", "S.A"), ("s.bb", "s.bb"), ("S.BB", "S.BB"),
                      ("k.list.element.X", "[e.X FOR e IN k]"), ("K.LIST.ELEMENT.y", "[e.y FOR e IN k]")]:
        want = [r[0] for r in con.sql(f"SELECT {sql} FROM {src}").fetchall()]
        rc, out, err = scan([p1, p2], "--format", "jsonl", "--columns", path,
                            *(["--union-by-name"] if ubn else []))
        got = [list(json.loads(ln).values())[0] for ln in out.splitlines()] if rc == 0 else err
        check(got == want, f"dataset ubn={ubn} --columns {path}: ringscan {got} vs DuckDB {want}")

sys.exit(0 if summary("case_names") else 1)
