#!/usr/bin/env bash
# tests/cli/wide_columns.sh: a scan without --columns reads every column of a file wider than
# a --columns list may be (CLI_COLUMNS_MAX, 4096): 5,000 INT32 columns written by pyarrow, in
# jsonl (values equal pyarrow's), csv and the table (every header), a checksum other than the
# first 4,000 columns' named, and a dataset of two copies. The CLI used to project the first
# 4,096 silently. Then 5,003 names through the C API, a wide union by name, a 3,000-field
# struct's union by name and 2,500 dictionary_columns (below). Last line: "wide_columns: N
# passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py wide_columns
f=$dir/w.parquet
"$py" - "$f" "$dir/want.jsonl" <<'PY' || bad "pyarrow: writing the file"
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
t = pa.table({f"c{i}": pa.array([i, None if i % 7 == 0 else -i, 2 * i], pa.int32()) for i in range(5000)})
pq.write_table(t, sys.argv[1])
with open(sys.argv[2], "w") as out:
    for row in t.to_pylist():
        out.write(json.dumps(row, separators=(",", ":")) + "\n")
PY
"$R" scan "$f" --format jsonl --ordered >"$dir/got.jsonl" 2>"$dir/err"
check 'cmp -s "$dir/got.jsonl" "$dir/want.jsonl"' \
    "jsonl differs from pyarrow's: $(head -c 200 "$dir/err") $(diff <(tr ',' '\n' <"$dir/want.jsonl") <(tr ',' '\n' <"$dir/got.jsonl") | head -5 | tr '\n' ' ')"
n=$("$R" scan "$f" --format csv | head -n1 | tr ',' '\n' | wc -l)
check '[ "$n" -eq 5000 ]' "csv header: $n columns, want 5000"
n=$("$R" scan "$f" | head -n1 | tr '|' '\n' | wc -l)
check '[ "$n" -eq 5000 ]' "table header: $n columns, want 5000"
all=$("$R" scan "$f" --format checksum)
names=$(seq -s, -f 'c%g' 0 3999)
part=$("$R" scan "$f" --format checksum --columns "$names")
check '[ "${all#rows 3 checksum }" != "$all" ] && [ "$all" != "$part" ]' \
    "every column's checksum ('$all') is 3 rows and not the first 4,000 columns' ('$part')"
mkdir -p "$dir/ds" && cp "$f" "$dir/ds/a.parquet" && cp "$f" "$dir/ds/b.parquet"
n=$("$R" scan "$dir/ds" --format jsonl | head -n1 | tr ',' '\n' | wc -l)
rows=$("$R" scan "$dir/ds" --format count 2>&1)
check '[ "$n" -eq 5000 ] && [ "$rows" = "rows 6" ]' "dataset of two copies: $n columns, count '$rows'"

# Projecting more names than --columns takes, through the C API (ctypes): 5,000 names over
# 5,000 columns (each name was looked up by a scan of the schema, and a scan start with 20,000
# names took 6 s; issue 23). The behaviour a faster lookup must keep: names in the given
# order, a name given twice projected twice, a name differing in case alone resolved to the
# column (SQL's rule), an unknown name named in the error, for a file and for a dataset.
if [ "${RINGSCAN_SANITIZED:-0}" != 1 ]; then # (no shared library in the sanitizer pass)
need_lib wide_columns
"$py" - "$LIB" "$f" "$dir/ds" "$(dirname "${BASH_SOURCE[0]}")" <<'PY' >"$dir/proj.out" 2>&1 || bad "projection: $(tail -c 400 "$dir/proj.out")"
import os, sys
sys.path.insert(0, sys.argv[4])
import pyarrow.parquet as pq
import rs_ctypes
lib = rs_ctypes.load(sys.argv[1])
path, ds = sys.argv[2], sys.argv[3]
t = pq.read_table(path)
names = [f"c{i}" for i in range(4999, -1, -1)] + ["c7", "C8", "c4999"]
want = [n.lower() for n in names]
def same(got, label):
    assert got is not None, label
    assert got.column_names == want, (label, got.column_names[:4], got.column_names[-4:])
    for i, n in enumerate(want):
        assert got.column(i).to_pylist() == t.column(n).to_pylist() * (got.num_rows // 3), (label, n)
got, err = rs_ctypes.read_table(lib, path, columns=names)
same(got, f"file: {err}")
got, err = rs_ctypes.read_dataset(lib, [ds], columns=names)
same(got, f"dataset: {err}")
assert got.num_rows == 6, got.num_rows
bad = names[:2500] + ["c5000"] + names[2500:]
got, err = rs_ctypes.read_table(lib, path, columns=bad)
assert got is None and "no column named 'c5000'" in err, err
got, err = rs_ctypes.read_dataset(lib, [ds], columns=bad)
assert got is None and "no column named 'c5000'" in err, err
print("ok")
PY
check 'grep -qx ok "$dir/proj.out"' "5,000 names through the C API: $(tail -c 400 "$dir/proj.out")"

# A union by name of three wide files under hive partitions, against DuckDB's union_by_name:
# the schema's names were looked up by scans (each file's columns, each projected name; a
# start with 20,000 names took 24 s) and now by a hashed index (scan/ds_names.c) that must
# keep the rules: a column a file lacks is null there, a later file's new columns and a wider
# type join, a name differing in case alone joins the first file's spelling unless the file
# holds both (DuckDB names the second C4_1), names in any order, twice, in another case, a
# partition column, a struct's field by a path in another case.
"$py" - "$LIB" "$dir/uds" "$(dirname "${BASH_SOURCE[0]}")" <<'PY' >"$dir/uds.out" 2>&1 || bad "wide union: $(tail -c 600 "$dir/uds.out")"
import os, sys
sys.path.insert(0, sys.argv[3])
import duckdb, pyarrow as pa, pyarrow.parquet as pq
import rs_ctypes
lib, top, N = rs_ctypes.load(sys.argv[1]), sys.argv[2], 3000
for k in ("k=1", "k=2"):
    os.makedirs(os.path.join(top, k), exist_ok=True)
a = {f"c{i}": pa.array([i, None if i % 7 == 0 else -i], pa.int32()) for i in range(N)}
a["s"] = pa.array([{"x": 1, "y": "p"}, None])
b = {f"c{i}": pa.array([i + 1], pa.int32()) for i in range(N) if i % 10}  # every 10th lacked
b["c1"] = pa.array([2**40], pa.int64())  # widens c1
b.update({f"x{i}": pa.array([i * 3], pa.int32()) for i in range(200)})  # new names
c = {(f"C{i}" if i % 3 == 0 else f"c{i}"): pa.array([-i, i, None], pa.int32()) for i in range(0, N, 2)}
c["C4"] = pa.array([44, 45, 46], pa.int32())  # beside c4: a name of its own (both spellings)
c["x5"] = pa.array([5, 5, 5], pa.int32())
pq.write_table(pa.table(a), f"{top}/k=1/a.parquet")
pq.write_table(pa.table(b), f"{top}/k=1/b.parquet")
pq.write_table(pa.table(c), f"{top}/k=2/c.parquet")
con = duckdb.connect()
src = f"read_parquet('{top}/**/*.parquet', union_by_name=true, hive_partitioning=true)"
cols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall()]
assert "C4_1" in cols and "x199" in cols and "k" in cols and "C6" not in cols, cols[-8:]
flat = [n for n in cols if n != "s"]
names = flat[::-1] + ["c7", "c7", "C10", "X5", "K", "c2999", "s.x", "S.y", "s"]
want_names = [n.lower() if n.upper() not in ("C4_1",) and n.lower() in cols else n for n in names]
def q(n):  # (a struct's path: each part quoted)
    return ".".join('"' + p + '"' for p in (n.split(".") if n in ("s.x", "S.y") else [n]))
rows = con.execute(f"SELECT {', '.join(q(n) for n in names)} FROM {src}").fetchall()
got, err = rs_ctypes.read_dataset(lib, [top], columns=names, union_by_name=True)
assert got is not None, err
assert got.num_rows == len(rows) == 6, (got.num_rows, len(rows))
assert got.column_names[:len(flat) + 5] == want_names[:len(flat) + 5], \
    [(g, w) for g, w in zip(got.column_names, want_names) if g != w][:5]
for j, n in enumerate(names):
    vals = got.column(j).to_pylist()
    assert vals == [r[j] for r in rows], (n, vals, [r[j] for r in rows])
print("ok", len(names))
PY
check 'grep -qx "ok 3211" "$dir/uds.out"' "a wide union by name against DuckDB: $(tail -c 600 "$dir/uds.out")"

# A struct of 3,000 fields in three files under union_by_name, against DuckDB: each file's
# struct fields were paired with the dataset's (ds_nmatch.c) and merged by name (ds_nunion.c)
# by walks of the other struct's fields, now through both structs' fields indexed by name
# (scan/ds_fields.c), which must keep DuckDB's rules: a field a file lacks is null there, a
# file's new fields follow the first file's, a field in another order or another case pairs
# with the first file's spelling, a leaf widens (int32 -> int64); a path into the struct in
# another case.
"$py" - "$LIB" "$dir/sds" "$(dirname "${BASH_SOURCE[0]}")" <<'PY' >"$dir/sds.out" 2>&1 || bad "wide struct union: $(tail -c 600 "$dir/sds.out")"
import os, sys
sys.path.insert(0, sys.argv[3])
import duckdb, pyarrow as pa, pyarrow.parquet as pq
import rs_ctypes
lib, top, N = rs_ctypes.load(sys.argv[1]), sys.argv[2], 3000
os.makedirs(top, exist_ok=True)
def s(names, rows, base, wide=()):
    ty = pa.struct([(n, pa.int64() if n in wide else pa.int32()) for n in names])
    vals = [{n: (None if (k + r) % 11 == 0 else base + k * 3 + r) for k, n in enumerate(names)}
            for r in range(rows)]
    return pa.table({"id": pa.array([base + r for r in range(rows)], pa.int32()), "s": pa.array(vals, ty)})
pq.write_table(s([f"f{i}" for i in range(N)], 2, 0), f"{top}/a.parquet")
pq.write_table(s([f"f{i}" for i in range(N) if i % 10] + [f"g{i}" for i in range(300)], 2, 100000,
                 {"f1", "g7"}), f"{top}/b.parquet")
pq.write_table(s([(f"F{i}" if i % 3 == 0 else f"f{i}") for i in range(N - 1, -1, -1)], 1, 200000),
               f"{top}/c.parquet")
con = duckdb.connect()
src = f"read_parquet('{top}/*.parquet', union_by_name=true)"
rows = con.execute(f'SELECT id, s, s."F6", s.g7 FROM {src} ORDER BY id').fetchall()
got, err = rs_ctypes.read_dataset(lib, [top], columns=["id", "s", "S.F6", "s.g7"], union_by_name=True)
assert got is not None, err
got = got.sort_by("id")
assert got.num_rows == len(rows) == 5, (got.num_rows, len(rows))
ty = got.schema.field("s").type
want_fields = list(rows[0][1].keys())
assert [ty.field(k).name for k in range(ty.num_fields)] == want_fields and len(want_fields) == N + 300, \
    ([ty.field(k).name for k in range(5)], want_fields[:5], ty.num_fields, len(want_fields))
assert ty.field("f1").type == pa.int64() and ty.field("g7").type == pa.int64(), (ty.field("f1"), ty.field("g7"))
for j in range(4):
    vals = got.column(j).to_pylist()
    want = [r[j] for r in rows]
    if j == 1: vals, want = [list(v.items()) for v in vals], [list(v.items()) for v in want]
    assert vals == want, (j, [(a, b) for a, b in zip(vals, want) if a != b][:1])
print("ok", got.num_rows, ty.num_fields)
PY
check 'grep -qx "ok 5 3300" "$dir/sds.out"' "a 3,000-field struct's union by name against DuckDB: $(tail -c 600 "$dir/sds.out")"

# dictionary_columns naming 5,000 projected string columns, against pyarrow's read_dictionary:
# each name was looked up by a walk of the projection (scan/arrow_types.c dict_col) and is now
# found in the projection's names sorted (format/name_index.c); the rules kept: a name in
# another case names the column, a column projected twice is one name (both copies
# dictionary arrays), a name projected in two spellings is ambiguous but for case, a
# non-string column and an unprojected name are refused by name; for a file and a dataset.
"$py" - "$LIB" "$dir/dict" "$(dirname "${BASH_SOURCE[0]}")" <<'PY' >"$dir/dict.out" 2>&1 || bad "wide dictionary_columns: $(tail -c 600 "$dir/dict.out")"
import os, sys
sys.path.insert(0, sys.argv[3])
import pyarrow as pa, pyarrow.parquet as pq
import rs_ctypes
lib, top, N = rs_ctypes.load(sys.argv[1]), sys.argv[2], 5000
os.makedirs(top, exist_ok=True)
cols = {f"c{i}": pa.array([f"v{i % 13}", None if i % 5 == 0 else "w", f"v{i}"]) for i in range(N)}
cols["n"] = pa.array([1, 2, 3], pa.int32())
cols["Dup"] = pa.array(["a", "b", "a"])
f = f"{top}/a.parquet"
pq.write_table(pa.table(cols), f)
names = [f"c{i}" for i in range(N - 1, -1, -1)] + ["c7", "n", "Dup"]
dnames = [(f"C{i}" if i % 4 == 0 else f"c{i}") for i in range(0, N, 2)] + ["c7", "c7", "DUP"]
want = pq.read_table(f, columns=[n for n in cols], read_dictionary=[f"c{i}" for i in range(0, N, 2)] + ["Dup"])
def same(got, label):
    assert got is not None, label
    assert got.column_names == names, (label, got.column_names[:3])
    for j, n in enumerate(names):
        w = want.column(n)
        dict_want = pa.types.is_dictionary(w.type) or n == "c7"
        assert pa.types.is_dictionary(got.schema.field(j).type) == dict_want, (label, n, got.schema.field(j).type)
        assert got.column(j).to_pylist() == w.to_pylist(), (label, n)
got, err = rs_ctypes.read_table(lib, f, columns=names, dictionary=dnames)
same(got, f"file: {err}")
got, err = rs_ctypes.read_dataset(lib, [top], columns=names, dictionary=dnames)
same(got, f"dataset: {err}")
for bad, msg in ((["c1", "n"], "'n' is not a string or binary column"),
                 (["c1", "c5000"], "'c5000' is not a projected column")):
    got, err = rs_ctypes.read_table(lib, f, columns=names, dictionary=bad)
    assert got is None and msg in err, (bad, err)
got, err = rs_ctypes.read_table(lib, f, columns=["c1", "C1", "c2"], dictionary=["c2", "c1"])
assert got is not None and [pa.types.is_dictionary(t) for t in got.schema.types] == [True, True, True], (err, got and got.schema)
print("ok", len(names))
PY
check 'grep -qx "ok 5003" "$dir/dict.out"' "dictionary_columns naming 2,500 of 5,003 columns against pyarrow: $(tail -c 600 "$dir/dict.out")"
fi
summary wide_columns
