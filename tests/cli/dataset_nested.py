"""tests/cli/dataset_nested.py LIB RINGSCAN DIR: nested fields (lists, structs, maps, any
depth) in a dataset, read whole (issue 23): ringscan's dataset scan (libringscan.so through
rs_ctypes) against pyarrow.dataset.dataset(dir, partitioning="hive").to_table(): schema and
values; then the CLI (JSON lines) against pyarrow for a union by name where a file lacks a
field (nulls; with ORDER BY .. LIMIT, whose merge joins the null placeholders with the other
files' built columns, and with a filter and a limit), a filter on a flat column, ORDER BY .. LIMIT and 1 or 2 threads; and the errors:
a field whose shape differs between files (both named), a sort key on one; paths inside fields
("s.b", "m.key_value.key") projected as a one-file scan projects them. Prints "FAIL: NAME:
why" per failed case and the summary line (checks.py)."""
import json
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, jsonable, summary  # noqa: E402
import rs_ctypes

lib = rs_ctypes.load(sys.argv[1])
R, top = sys.argv[2], sys.argv[3]


def case(name, cond, why):
    check(cond, f"{name}: {why}")


def table(lo, n, drop=()):
    """Rows lo .. lo + n of every nested shape, some nulls and empty lists."""
    ids = list(range(lo, lo + n))
    t = pa.table({
        "id": pa.array(ids, pa.int64()),
        "lst": pa.array([None if i % 7 == 0 else [i, i + 1][: i % 3] for i in ids], pa.list_(pa.int64())),
        "s": pa.array([None if i % 5 == 0 else {"a": i, "b": None if i % 4 == 0 else f"w{i}"} for i in ids],
                      pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "m": pa.array([None if i % 6 == 0 else [(f"k{i % 3}", i), ("z", None)][: i % 3] for i in ids],
                      pa.map_(pa.string(), pa.int64())),
        "tags": pa.array([[f"t{i}", None][: i % 3] for i in ids], pa.list_(pa.string())),
        "pts": pa.array([[{"x": i / 2}] * (i % 2) for i in ids], pa.list_(pa.struct([("x", pa.float64())]))),
        "big": pa.array([[i] for i in ids], pa.large_list(pa.int32())),
        "deep": pa.array([[[i], []] if i % 2 else None for i in ids], pa.list_(pa.list_(pa.int32()))),
        "sl": pa.array([{"v": [i, i]} for i in ids], pa.struct([("v", pa.list_(pa.int64()))])),
        "price": pa.array([i * 0.5 for i in ids], pa.float64()),
    })
    return t.drop_columns(list(drop))


def write(name, files):
    root = os.path.join(top, name)
    for rel, t in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        pq.write_table(t, os.path.join(root, rel), row_group_size=40)
    return root


def cli(root, *args):
    p = subprocess.run([R, "scan", root, "--format", "jsonl", *args], capture_output=True, text=True,
                       timeout=120)
    return p.returncode, [json.loads(l) for l in p.stdout.splitlines()] if p.returncode == 0 else None, p.stderr


# 1. every shape, three files in two hive partitions: schema and values equal pyarrow.dataset's
root = write("shapes", {"year=2024/a.parquet": table(0, 100), "year=2024/b.parquet": table(100, 90),
                        "year=2025/c.parquet": table(190, 70)})
want = pads.dataset(root, partitioning="hive").to_table()
got, err = rs_ctypes.read_dataset(lib, [root])
if err:
    case("shapes", False, err)
else:
    data = [f for f in want.schema if f.name != "year"]
    got_data = pa.schema([f for f in got.schema if f.name != "year"])
    case("shapes: schema", got_data.equals(pa.schema(data)), f"\n{got_data}\n{pa.schema(data)}")
    g = got.drop_columns(["year"]).sort_by("id").to_pylist()
    w = want.drop_columns(["year"]).sort_by("id").to_pylist()
    case("shapes: values", g == w, f"{g[:2]} != {w[:2]}")
    case("shapes: partition values", got.column("year").to_pylist() == [2024] * 190 + [2025] * 70,
         str(got.column("year").to_pylist()[:3]))
got, err = rs_ctypes.read_dataset(lib, [root], columns=["m", "id", "deep"])
case("a projection in another order", err is None and got.column_names == ["m", "id", "deep"] and
     got.sort_by("id").to_pylist() == want.select(["m", "id", "deep"]).sort_by("id").to_pylist(), f"{err}")

# 2. the CLI: a filter on a flat column, ORDER BY .. LIMIT with nested columns out, threads
rows = [{k: jsonable(v) for k, v in r.items()} for r in want.sort_by("id").to_pylist()]
for threads in ("1", "2"):
    rc, out, err = cli(root, "--threads", threads, "--where", "price > 60 AND id < 200")
    w = [r for r in rows if r["price"] > 60 and r["id"] < 200]
    case(f"filter, {threads} thread(s)", rc == 0 and out == w, f"rc {rc} {err} {out and out[:1]} {w[:1]}")
rc, out, err = cli(root, "--columns", "id,s,m,deep", "--order-by", "id desc", "--limit", "3")
w = [{k: r[k] for k in ("id", "s", "m", "deep")} for r in rows[::-1][:3]]
case("ORDER BY id DESC LIMIT 3", rc == 0 and out == w, f"rc {rc} {err} {out} {w}")
rc, out, err = cli(root, "--columns", "id,year,s,lst,pts", "--where", "id > 5 AND id < 250", "--order-by",
                   "year desc", "--limit", "120")
w = sorted([r for r in rows if 5 < r["id"] < 250], key=lambda r: (-r["year"], r["id"]))[:120]
w = [{k: r[k] for k in ("id", "year", "s", "lst", "pts")} for r in w]
case("ORDER BY a partition column alone (no Top-K in the files' scans) over filtered splits: "
     "the merge gathers one form", rc == 0 and sorted(out, key=lambda r: (-r["year"], r["id"])) == w,
     f"rc {rc} {err} {out and out[:1]} {w[:1]}")
rc, out, err = cli(root, "--columns", "sl,id", "--limit", "5")
case("--limit", rc == 0 and out == [{"sl": r["sl"], "id": r["id"]} for r in rows[:5]], f"rc {rc} {err} {out}")

# 3. a union by name: a file without some nested fields gives nulls there (as pyarrow.dataset
#    with the unified schema, and DuckDB's union_by_name)
root = write("union", {"a.parquet": table(0, 50), "b.parquet": table(50, 30, drop=("s", "deep")),
                       "c.parquet": table(80, 20, drop=("m",))})
schema = pa.unify_schemas([pq.read_schema(os.path.join(root, f)) for f in ("a.parquet", "b.parquet", "c.parquet")])
want = pads.dataset(root, schema=schema).to_table().sort_by("id").to_pylist()
rc, out, err = cli(root, "--union-by-name")
case("union by name: missing fields are null", rc == 0 and out == [{k: jsonable(v) for k, v in r.items()} for r in want],
     f"rc {rc} {err} {out and out[50]}")
urows = [{k: jsonable(v) for k, v in r.items()} for r in want]
rc, out, err = cli(root, "--union-by-name", "--order-by", "id desc", "--limit", "40")
case("union by name, ORDER BY id DESC LIMIT 40 (placeholders and columns merged)",
     rc == 0 and out == urows[::-1][:40], f"rc {rc} {err} {out and out[:1]}")
rc, out, err = cli(root, "--union-by-name", "--where", "(id > 10 AND id < 20) OR (id > 45 AND id < 60) OR id > 95", "--limit", "30", "--ordered")
w = [r for r in urows if 10 < r["id"] < 20 or 45 < r["id"] < 60 or r["id"] > 95][:30]
case("union by name, a filter dropping rows inside splits, --limit", rc == 0 and out == w,
     f"rc {rc} {err} {out and out[-1:]} {w[-1:]}")
rc, out, err = cli(root)
case("without union by name: a missing nested field is refused", rc == 1 and "'s'" in err and "b.parquet" in err,
     f"rc {rc}: {err}")

# 4. errors
root = write("clash", {"a.parquet": table(0, 10), "b.parquet": table(10, 10).set_column(
    1, "lst", pa.array([["x"]] * 10, pa.list_(pa.string())))})
rc, out, err = cli(root)
case("another shape: both files named", rc == 1 and "'lst'" in err and "a.parquet" in err and "b.parquet" in err,
     f"rc {rc}: {err}")
root = write("one", {"a.parquet": table(0, 10), "b.parquet": table(10, 10)})
rc, out, err = cli(root, "--columns", "id,s.b,m.key_value.key,pts.list.element.x,sl.v")
t = pads.dataset(root).to_table().sort_by("id").to_pylist()
w = [{"id": r["id"], "s.b": r["s"] and r["s"]["b"],
      "m.key_value.key": None if r["m"] is None else [k for k, _ in r["m"]],
      "pts.list.element.x": [p["x"] for p in r["pts"]], "sl.v": r["sl"]["v"]} for r in t]
case("paths inside fields (as a one-file scan projects them)", rc == 0 and out == w,
     f"rc {rc} {err} {out and out[:2]} {w[:2]}")
rc, out, err = cli(root, "--columns", "id,s.b,s,s.a")  # (s.a: s's first leaf; read as DuckDB reads them)
w = [{"id": r["id"], "s.b": r["s"] and r["s"]["b"], "s": r["s"], "s.a": r["s"] and r["s"]["a"]} for r in t]
case("a field and its first leaf's path", rc == 0 and out == w, f"rc {rc} {err} {out and out[:2]} {w[:2]}")
rc, out, err = cli(root, "--columns", "s.nope")
case("a path that is not there", rc == 1 and "'s.nope'" in err, f"rc {rc}: {err}")
rc, out, err = cli(root, "--order-by", "lst", "--limit", "2")
case("a nested sort key", rc == 1 and "'lst'" in err and "sort key" in err, f"rc {rc}: {err}")
# 5. a struct field a later file lacks inside a list, the field a FIXED_LEN_BYTE_ARRAY wider
#    than 16 bytes (a flat list in the dataset's shape): the file's lists, every value null
#    (the row rewrite asserted its flat width was at most 16: abort, exit 134)
LS = lambda *f: pa.list_(pa.struct(list(f)))
root = write("lack_wide", {
    "a.parquet": pa.table({"id": pa.array(range(12), pa.int64()),
                           "k": pa.array([[{"a": bytes([i]) * 32, "b": -i}, None] if i % 4 else [] for i in range(12)],
                                         LS(("a", pa.binary(32)), ("b", pa.int64())))}),
    "b.parquet": pa.table({"id": pa.array(range(100, 112), pa.int64()),
                           "k": pa.array([None if i % 5 == 0 else [{"c": i / 2}] * (i % 3) for i in range(12)],
                                         LS(("c", pa.float64()),))})})
first = cli(os.path.join(root, "a.parquet"), "--columns", "id,k.list.element.a")[1] or []
later = pq.read_table(os.path.join(root, "b.parquet")).to_pylist()
w = first + [{"id": r["id"], "k.list.element.a": None if r["k"] is None else [None] * len(r["k"])} for r in later]
rc, out, err = cli(root, "--union-by-name", "--columns", "id,k.list.element.a", "--ordered")
case("union by name: a 32-byte field lacked inside a list", rc == 0 and len(first) == 12 and out == w,
     f"rc {rc} {err[-300:]} {out and out[-2:]} {w[-2:]}")
# 6. struct fields spelled alike but for case: a later file's struct holding both A and a
#    reads as {A, a_1} (DuckDB's renaming, format/meta_names.c), and the first file's a pairs
#    with A in any case, cast to its string: DuckDB 2.0.1's values ({'a': '1', 'a_1': None} ..
#    {'a': 'x', 'a_1': 3}), the merged field spelled as the first file's a, as DuckDB keeps it
root = write("twin_fields", {
    "a.parquet": pa.table({"id": pa.array([1, 2], pa.int64()),
                           "s": pa.array([{"a": 1}, {"a": 2}], pa.struct([("a", pa.int64())]))}),
    "b.parquet": pa.table({"id": pa.array([3, 4], pa.int64()),
                           "s": pa.array([{"A": "x", "a": 3}, {"A": "y", "a": 4}],
                                         pa.struct([("A", pa.string()), ("a", pa.int64())]))})})
rc, out, err = cli(root, "--union-by-name", "--ordered")
w = [{"id": 1, "s": {"a": "1", "a_1": None}}, {"id": 2, "s": {"a": "2", "a_1": None}},
     {"id": 3, "s": {"a": "x", "a_1": 3}}, {"id": 4, "s": {"a": "y", "a_1": 4}}]
case("union by name: struct fields A and a read as a, a_1 (the first file's spelling), paired in any case", rc == 0 and out == w,
     f"rc {rc} {err[-300:]} {out} {w}")
# 7. a list's element named by its writer: pyarrow's "element" in one file, "item" (pyarrow's
#    use_compliant_nested_type=False, older Spark and parquet-mr) in the next; both are the
#    same list (DuckDB and pyarrow read them so); a path into one names the first file's node
#    (was refused: "another shape" naming both files)
root = os.path.join(top, "elem_names")
os.makedirs(root, exist_ok=True)
t7a, t7b = table(0, 30).select(["id", "lst", "pts", "deep", "m"]), table(30, 25).select(["id", "lst", "pts", "deep", "m"])
pq.write_table(t7a, os.path.join(root, "a.parquet"), row_group_size=40)
pq.write_table(t7b, os.path.join(root, "b.parquet"), row_group_size=40, use_compliant_nested_type=False)
names = [pq.ParquetFile(os.path.join(root, f)).schema.column(1).path for f in ("a.parquet", "b.parquet")]
case("element names: the files spell the element apart", names == ["lst.list.element", "lst.list.item"], str(names))
w7 = [{k: jsonable(v) for k, v in r.items()} for r in t7a.to_pylist() + t7b.to_pylist()]
for extra in ((), ("--union-by-name",)):
    rc, out, err = cli(root, "--ordered", *extra)
    case(f"element names {' '.join(extra)}: every row", rc == 0 and out == w7, f"rc {rc} {err[-300:]} {out and out[30:31]}")
rc, out, err = cli(root, "--ordered", "--columns", "id,pts.list.element.x")
case("element names: a path into the list", rc == 0 and out == [{"id": r["id"], "pts.list.element.x": [q["x"] for q in r["pts"]]} for r in w7],
     f"rc {rc} {err[-300:]} {out and out[30:31]}")
# 8. legacy list forms beside pyarrow's three-level lists (parquet-testing's files): the
#    two-level list of lists named "array" (parquet-mr, old_list_structure) and repeated
#    fields without a LIST annotation (parquet-rs, repeated_primitive_no_list) read as lists;
#    the second's STRING leaves carry is_adjusted_to_utc, which a STRING does not have (was
#    refused: "BYTE_ARRAY/STRING ... but BYTE_ARRAY/STRING: not supported"). As DuckDB reads them.
pt = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "parquet-testing", "data")
mix = {"old_list_structure": pa.table({"a": pa.array([[[5, 6], []], [[7]]], pa.list_(pa.list_(pa.int32())))})}
t8 = pq.read_table(os.path.join(pt, "repeated_primitive_no_list.parquet"))
mix["repeated_primitive_no_list"] = pa.table({
    "Int32_list": pa.array([[9, 10], []], pa.list_(pa.int32())),
    "String_list": pa.array([["x"], None], pa.list_(pa.string())),
    "group_of_lists": pa.array([{"Int32_list_in_group": [1], "String_list_in_group": ["y"]}] * 2,
                               t8.schema.field("group_of_lists").type)})
for legacy, later in mix.items():
    root = os.path.join(top, "legacy_" + legacy)
    os.makedirs(root, exist_ok=True)
    src = os.path.join(pt, legacy + ".parquet")
    with open(src, "rb") as fi, open(os.path.join(root, "a.parquet"), "wb") as fo:
        fo.write(fi.read())
    pq.write_table(later, os.path.join(root, "b.parquet"))
    w8 = [{k: jsonable(v) for k, v in r.items()} for r in pq.read_table(src).to_pylist() + later.to_pylist()]
    for extra in ((), ("--union-by-name",)):
        rc, out, err = cli(root, "--ordered", *extra)
        case(f"{legacy} beside pyarrow's lists {' '.join(extra)}", rc == 0 and out == w8,
             f"rc {rc} {err[-300:]} {out} {w8}")
# 9. a union by name of structs inside a list or a map whose writers name the list's element
#    ("element", "item") or the map's entries ("key_value", Impala's MAP_KEY_VALUE "map")
#    otherwise, each file lacking some of the other's fields: DuckDB's union of the fields
#    (was refused: "each lack some of the other's and do not merge by name"), the union keeps
#    the first file's names (a path into it spelled as the first file spells it; was resolved
#    only in a later file's spelling where that file's shape held every field)
S = lambda *n: pa.struct([(k, pa.int32()) for k in n])
root = os.path.join(top, "union_elem_names")
os.makedirs(root, exist_ok=True)
pq.write_table(pa.table({"id": [1, 2], "pts": pa.array([[{"x": 1, "y": 1}], None], pa.list_(S("x", "y")))}),
               os.path.join(root, "a.parquet"))
pq.write_table(pa.table({"id": [3, 4], "pts": pa.array([[{"x": 3, "z": 3}, None], []], pa.list_(S("x", "z")))}),
               os.path.join(root, "b.parquet"), use_compliant_nested_type=False)
pq.write_table(pa.table({"id": [5], "pts": pa.array([[{"x": 5}]], pa.list_(S("x")))}), os.path.join(root, "c.parquet"))
rc, out, err = cli(root, "--union-by-name", "--ordered")
w9 = [{"id": 1, "pts": [{"x": 1, "y": 1, "z": None}]}, {"id": 2, "pts": None},
      {"id": 3, "pts": [{"x": 3, "y": None, "z": 3}, None]}, {"id": 4, "pts": []},
      {"id": 5, "pts": [{"x": 5, "y": None, "z": None}]}]  # (DuckDB 2.0.1's rows)
case("union by name: list elements named apart, each lacking fields", rc == 0 and out == w9, f"rc {rc} {err[-300:]} {out}")
rc, out, err = cli(root, "--union-by-name", "--ordered", "--columns", "id,pts.list.element.z,pts.list.element.y")
w = [{"id": r["id"], "pts.list.element.z": r["pts"] and [q and q["z"] for q in r["pts"]],
      "pts.list.element.y": r["pts"] and [q and q["y"] for q in r["pts"]]} for r in w9]
case("union by name: paths spelled as the first file spells them", rc == 0 and out == w, f"rc {rc} {err[-300:]} {out}")
root = os.path.join(top, "union_map_names")
os.makedirs(root, exist_ok=True)
with open(os.path.join(pt, "nullable.impala.parquet"), "rb") as fi, open(os.path.join(root, "a.parquet"), "wb") as fo:
    fo.write(fi.read())
G = pa.map_(pa.string(), pa.struct([("H", pa.struct([("i", pa.list_(pa.float64())), ("J", pa.int8())])), ("Z", pa.string())]))
pq.write_table(pa.table({"id": pa.array([100], pa.int64()), "nested_struct": pa.array(
    [{"g": [("q", {"H": {"i": [9.5], "J": 3}, "Z": "z"})]}], pa.struct([("g", G)]))}), os.path.join(root, "b.parquet"))
imp = pq.read_table(os.path.join(root, "a.parquet")).to_pylist()
g = lambda r: r["nested_struct"] and r["nested_struct"]["g"]
w = [{"id": r["id"], "nested_struct.g.map.value.Z": None if g(r) is None else [None if v is None else None for _, v in g(r)],
      "nested_struct.g.map.key": None if g(r) is None else [k for k, _ in g(r)]} for r in imp]
w.append({"id": 100, "nested_struct.g.map.value.Z": ["z"], "nested_struct.g.map.key": ["q"]})
rc, out, err = cli(root, "--union-by-name", "--ordered", "--columns", "id,nested_struct.g.map.value.Z,nested_struct.g.map.key")
case("union by name: a map's value struct, Impala's entries beside pyarrow's", rc == 0 and out == w,
     f"rc {rc} {err[-300:]} {out} {w}")
# 10. a path into a list under a struct field a later file lacks ("s.b.list.element", the
#    file's s has no b): null whole in that file's rows, as DuckDB reads s.b (was an abort,
#    exit 134: the lists under the field taken for lists around it, ds_nwiden.c lacked_row);
#    where the file has no flat column, its rows counted through a nested field (was refused:
#    "no flat column")
root = os.path.join(top, "lack_above_list")
os.makedirs(root, exist_ok=True)
SB = pa.struct([("a", pa.int32()), ("b", pa.list_(pa.int32())), ("w", pa.large_list(pa.string()))])
pq.write_table(pa.table({"id": [1, 2], "s": pa.array([{"a": 1, "b": [1, None], "w": ["x"]}, {"a": 2, "b": None, "w": []}], SB)}),
               os.path.join(root, "a.parquet"))
pq.write_table(pa.table({"id": [3], "s": pa.array([{"a": 3, "c": "x"}], pa.struct([("a", pa.int32()), ("c", pa.string())]))}),
               os.path.join(root, "b.parquet"))
rc, out, err = cli(root, "--union-by-name", "--ordered", "--columns", "id,s.b.list.element,s.w.list.element")
w = [{"id": 1, "s.b.list.element": [1, None], "s.w.list.element": ["x"]}, {"id": 2, "s.b.list.element": None, "s.w.list.element": []},
     {"id": 3, "s.b.list.element": None, "s.w.list.element": None}]
case("union by name: a path into a list under a struct field a file lacks", rc == 0 and out == w, f"rc {rc} {err[-300:]} {out}")
root = os.path.join(top, "nested_only")
os.makedirs(root, exist_ok=True)
pq.write_table(pa.table({"s": pa.array([{"a": 1, "b": [1, None], "w": ["x"]}, None], SB)}), os.path.join(root, "a.parquet"))
pq.write_table(pa.table({"s": pa.array([{"a": 3, "c": "x"}] * 3, pa.struct([("a", pa.int32()), ("c", pa.string())]))}),
               os.path.join(root, "b.parquet"))
rc, out, err = cli(root, "--union-by-name", "--ordered", "--columns", "s.b.list.element")
case("union by name: a file of nested fields alone lacking the path", rc == 0 and out == [{"s.b.list.element": v} for v in ([1, None], None, None, None, None)],
     f"rc {rc} {err[-300:]} {out}")
# 11. a two-level list of structs (parquet-mr's repeated group "array", written by hand with
#    pqcraft.py) beside pyarrow's three-level list whose structs carry other fields, either file
#    first: DuckDB 2.0.1's rows with and without union_by_name (a union was refused: "each lack
#    some of the other's and do not merge by name"), and a union's Arrow type a three-level
#    list whose element may be null, as DuckDB's. A path into the union is spelled as the
#    three-level list spells it ("l.list.element.c"; the two-level spelling: section 13).
import duckdb  # noqa: E402
import pqcraft as pc  # noqa: E402


def leg_file(path):
    """ids 0..2, l: [{a: 1, b: x}, {a: null, b: y}], null, [] as a two-level list."""
    ch = lambda page, nv, t, p: dict(ptype=t, path=p, num_values=nv, pages=[page])
    sch = [pc.elem("schema", nchildren=2), pc.elem("id", pc.REQ, pc.INT64), pc.elem("l", pc.OPT, nchildren=1, conv=3),
           pc.elem("array", pc.REP, nchildren=2), pc.elem("a", pc.OPT, pc.INT32), pc.elem("b", pc.OPT, pc.BYTE_ARRAY, conv=0)]
    rep = [0, 1, 0, 0]
    pc.write(path, sch, [(3, [ch(pc.page_v1([], [], 0, 0, pc.plain(pc.INT64, [0, 1, 2]), num_values=3), 3, pc.INT64, ["id"]),
                              ch(pc.page_v1(rep, [3, 2, 0, 1], 1, 3, pc.plain(pc.INT32, [1])), 4, pc.INT32, ["l", "array", "a"]),
                              ch(pc.page_v1(rep, [3, 3, 0, 1], 1, 3, pc.plain(pc.BYTE_ARRAY, [b"x", b"y"])), 4, pc.BYTE_ARRAY,
                                 ["l", "array", "b"])])])


def duck_rows(sql):
    return [{k: jsonable(v) for k, v in r.items()} for r in duckdb.sql(sql).to_arrow_table().to_pylist()]


t11 = pa.table({"id": pa.array([3, 4, 5], pa.int64()),
                "l": pa.array([[{"a": 5, "c": "q"}], None, [None, {"a": None, "c": "r"}]],
                              pa.list_(pa.struct([("a", pa.int32()), ("c", pa.string())])))})
for order, (first, second) in (("two-level first", ("a", "b")), ("three-level first", ("b", "a"))):
    root = os.path.join(top, "legacy_union_" + first)
    os.makedirs(root, exist_ok=True)
    leg_file(os.path.join(root, first + ".parquet"))
    pq.write_table(t11, os.path.join(root, second + ".parquet"))
    for by_name in ("true", "false"):
        extra = ("--union-by-name",) if by_name == "true" else ()
        w = duck_rows(f"SELECT * FROM read_parquet('{root}/*.parquet', union_by_name={by_name})")
        rc, out, err = cli(root, "--ordered", *extra)
        case(f"a two-level list of structs beside a three-level one, {order}{' (union by name)' if extra else ''}: "
             "DuckDB's rows", rc == 0 and out == w, f"rc {rc} {err[-300:]} {out} {w}")
    got, err = rs_ctypes.read_dataset(lib, [root], union_by_name=True)
    lt = got.schema.field("l").type if got is not None else None
    case(f"union of a two-level and a three-level list, {order}: a list of nullable structs of a, b, c",
         lt is not None and lt.value_field.nullable and sorted(f.name for f in lt.value_type) == ["a", "b", "c"],
         f"{err} {lt}")
root = os.path.join(top, "legacy_union_a")
rc, out, err = cli(root, "--ordered", "--union-by-name", "--columns", "id,l.list.element.c")
w = duck_rows(f"SELECT id, [x.c FOR x IN l] AS \"l.list.element.c\" FROM read_parquet('{root}/*.parquet', union_by_name=true)")
case("union of a two-level and a three-level list: a path to a field one file lacks", rc == 0 and out == w,
     f"rc {rc} {err[-300:]} {out} {w}")
# 12. nullability of a dataset's nested fields: a first file whose levels are REQUIRED (a
#    two-level list's element, parquet-mr's lists of lists, non-nullable struct fields and map
#    values) beside a later file holding nulls at those levels, with and without
#    union_by_name: the Arrow C stream marks every level nullable but a map's entries and keys,
#    as DuckDB's schema does (a dataset's flat columns are already; a later file's footer is
#    not read before the schema is exported, so any level may hold its nulls), and the values
#    are DuckDB's (the schema said "not null" over those nulls before).


def nullability(t):
    """A type's nullable flags at every level, in pre-order, names left out (DuckDB names a
    list's element "l")."""
    kids = [t.field(i) for i in range(t.num_fields)] if pa.types.is_struct(t) else \
        [t.key_field, t.item_field] if pa.types.is_map(t) else \
        [t.value_field] if pa.types.is_list(t) or pa.types.is_large_list(t) else []
    return [(pa.types.is_map(t) and "entries", f.nullable, nullability(f.type)) for f in kids]


def duck_schema(root, by_name):
    return duckdb.sql(f"SELECT * FROM read_parquet('{root}/*.parquet', union_by_name={by_name})").to_arrow_table()


def check_nulls(name, root, sort="id"):
    for by_name in (False, True):
        got, err = rs_ctypes.read_dataset(lib, [root], union_by_name=by_name)
        want = duck_schema(root, "true" if by_name else "false")
        label = f"{name}{' (union by name)' if by_name else ''}"
        if err or got is None:
            case(label, False, err)
            continue
        gf = [(f.name, f.nullable, nullability(f.type)) for f in got.schema]
        wf = [(f.name, f.nullable, nullability(f.type)) for f in want.schema]
        case(f"{label}: nullable as DuckDB's schema", gf == wf, f"\n{got.schema}\n{want.schema}")
        g = got.sort_by(sort).to_pylist() if sort else got.to_pylist()
        w = [{k: jsonable(v) for k, v in r.items()} for r in (want.sort_by(sort) if sort else want).to_pylist()]
        case(f"{label}: DuckDB's values", [{k: jsonable(v) for k, v in r.items()} for r in g] == w, f"{g} {w}")


root = os.path.join(top, "legacy_union_a")  # (section 11: the two-level list first)
check_nulls("a two-level list's non-null element, a later file's null elements", root)
got, _ = rs_ctypes.read_dataset(lib, [root])
case("the two-level list's element, nullable in the Arrow stream (without union_by_name)",
     got is not None and got.schema.field("l").type.value_field.nullable, f"{got and got.schema}")
root = os.path.join(top, "null_levels_old_list")
os.makedirs(root, exist_ok=True)
with open(os.path.join(pt, "old_list_structure.parquet"), "rb") as fi, open(os.path.join(root, "a.parquet"), "wb") as fo:
    fo.write(fi.read())
pq.write_table(pa.table({"a": pa.array([[[5, None], None], None], pa.list_(pa.list_(pa.int32())))}),
               os.path.join(root, "b.parquet"))
check_nulls("parquet-mr's REQUIRED lists of lists, a later file's nulls at each level", root, sort=None)
root = os.path.join(top, "null_levels_required")
os.makedirs(root, exist_ok=True)
NN = lambda n, t: pa.field(n, t, nullable=False)
req = pa.schema([NN("id", pa.int64()),
                 NN("s", pa.struct([NN("x", pa.int32()), NN("v", pa.list_(NN("element", pa.int32())))])),
                 NN("m", pa.map_(pa.string(), NN("value", pa.struct([NN("y", pa.int32())]))))])
pq.write_table(pa.table({"id": [1, 2], "s": [{"x": 1, "v": [1]}, {"x": 2, "v": []}],
                         "m": [[("a", {"y": 1})], []]}, schema=req), os.path.join(root, "a.parquet"))
pq.write_table(pa.table({"id": [3, 4, 5], "s": [None, {"x": None, "v": None}, {"x": 5, "v": [None, 6]}],
                         "m": [None, [("b", None)], [("c", {"y": None})]]},
                        schema=pa.schema([pa.field(f.name, pa.struct([("x", pa.int32()), ("v", pa.list_(pa.int32()))]))
                                          if f.name == "s" else pa.field(f.name, pa.map_(pa.string(), pa.struct([("y", pa.int32())])))
                                          if f.name == "m" else pa.field(f.name, pa.int64()) for f in req])),
               os.path.join(root, "b.parquet"))
check_nulls("REQUIRED struct fields, list elements and map values, a later file's nulls there", root)
# 13. a path into a list spelled as either file spells the list's levels: in the union of a
#    two-level list of structs (the first file's "l.array.c") and a three-level one
#    ("l.list.element.c"), either file first, each spelling reads DuckDB's [x.c FOR x IN l]
#    (the first file's was "no column named"), the output named as the dataset's shape spells
#    the path; parquet-mr's lists of lists spelled the three-level way
#    ("a.list.element.list.element"); a name no writer gives a list's level is still refused.
for first in ("a", "b"):
    root = os.path.join(top, "legacy_union_" + first)
    w = duck_rows(f"SELECT id, [x.c FOR x IN l] AS c FROM read_parquet('{root}/*.parquet', union_by_name=true) ORDER BY id")
    for spelled in ("l.array.c", "l.list.element.c", "L.Array.C"):
        rc, out, err = cli(root, "--ordered", "--union-by-name", "--columns", f"id,{spelled}")
        got = sorted([{"id": r["id"], "c": r["l.list.element.c"]} for r in out], key=lambda r: r["id"]) \
            if rc == 0 and out and "l.list.element.c" in out[0] else out
        case(f"union, {'two' if first == 'a' else 'three'}-level list first: path {spelled}", rc == 0 and got == w,
             f"rc {rc} {err[-300:]} {out} {w}")
root = os.path.join(top, "legacy_union_a")
for spelled in ("l.array.a", "l.list.element.a"):  # (without union_by_name: the first file's shape)
    w = duck_rows(f"SELECT id, [x.a FOR x IN l] AS a FROM read_parquet('{root}/*.parquet') ORDER BY id")
    rc, out, err = cli(root, "--ordered", "--columns", f"id,{spelled}")
    case(f"without union by name, two-level list first: path {spelled}",
         rc == 0 and [{"id": r["id"], "a": r["l.array.a"]} for r in out] == w, f"rc {rc} {err[-300:]} {out} {w}")
rc, out, err = cli(root, "--ordered", "--union-by-name", "--columns", "id,l.arr.c")
case("a path naming a list's level as no writer does", rc == 1 and "'l.arr.c'" in err, f"rc {rc} {err}")
root = os.path.join(top, "null_levels_old_list")
w = duck_rows(f"SELECT a FROM read_parquet('{root}/*.parquet')")
for extra in ((), ("--union-by-name",)):
    rc, out, err = cli(root, "--ordered", "--columns", "a.list.element.list.element", *extra)
    case(f"parquet-mr's lists of lists, a three-level path {' '.join(extra)}",
         rc == 0 and [list(r.values())[0] for r in out] == [r["a"] for r in w], f"rc {rc} {err[-300:]} {out} {w}")
# 14. a path through a map whose files name the map's repeated level apart: pyarrow's
#    "key_value" beside parquet-mr's, Hive's and Impala's "map" (annotated MAP_KEY_VALUE,
#    written by hand with pqcraft.py), a map at the top and maps inside a list, either file
#    first, with and without union_by_name: the rows are DuckDB's, and a path spelled as
#    either file spells the level ("m.map.key", "m.key_value.key", in any case) reads DuckDB's
#    map_keys / map_values, named as the dataset's shape (the first file's) spells it (the
#    other spelling was "no column named"); a name no writer gives the level is still refused.


def legacy_map(path, rep_name="map"):
    """ids 0..2, m: {a: 1, b: null}, null, {} with the repeated level named rep_name (MAP on
    m, MAP_KEY_VALUE on the level)."""
    ch = lambda page, nv, t, p: dict(ptype=t, path=p, num_values=nv, pages=[page])
    sch = [pc.elem("schema", nchildren=2), pc.elem("id", pc.REQ, pc.INT64), pc.elem("m", pc.OPT, nchildren=1, conv=1),
           pc.elem(rep_name, pc.REP, nchildren=2, conv=2), pc.elem("key", pc.REQ, pc.BYTE_ARRAY, conv=0),
           pc.elem("value", pc.OPT, pc.INT64)]
    rep = [0, 1, 0, 0]
    pc.write(path, sch, [(3, [ch(pc.page_v1([], [], 0, 0, pc.plain(pc.INT64, [0, 1, 2]), num_values=3), 3, pc.INT64, ["id"]),
                              ch(pc.page_v1(rep, [2, 2, 0, 1], 1, 2, pc.plain(pc.BYTE_ARRAY, [b"a", b"b"])), 4, pc.BYTE_ARRAY,
                                 ["m", rep_name, "key"]),
                              ch(pc.page_v1(rep, [3, 2, 0, 1], 1, 3, pc.plain(pc.INT64, [1])), 4, pc.INT64,
                                 ["m", rep_name, "value"])])])


def legacy_list_of_maps(path):
    """ids 0..2, l: [{a: 1, b: null}, null, {}], null, [] as a three-level list of maps whose
    repeated level is named "map"."""
    ch = lambda page, nv, t, p: dict(ptype=t, path=p, num_values=nv, pages=[page])
    sch = [pc.elem("schema", nchildren=2), pc.elem("id", pc.REQ, pc.INT64), pc.elem("l", pc.OPT, nchildren=1, conv=3),
           pc.elem("list", pc.REP, nchildren=1), pc.elem("element", pc.OPT, nchildren=1, conv=1),
           pc.elem("map", pc.REP, nchildren=2, conv=2), pc.elem("key", pc.REQ, pc.BYTE_ARRAY, conv=0),
           pc.elem("value", pc.OPT, pc.INT32)]
    rep, leaf = [0, 2, 1, 1, 0, 0], ["l", "list", "element", "map"]
    pc.write(path, sch, [(3, [ch(pc.page_v1([], [], 0, 0, pc.plain(pc.INT64, [0, 1, 2]), num_values=3), 3, pc.INT64, ["id"]),
                              ch(pc.page_v1(rep, [4, 4, 2, 3, 0, 1], 2, 4, pc.plain(pc.BYTE_ARRAY, [b"a", b"b"])), 6,
                                 pc.BYTE_ARRAY, leaf + ["key"]),
                              ch(pc.page_v1(rep, [5, 4, 2, 3, 0, 1], 2, 5, pc.plain(pc.INT32, [1])), 6, pc.INT32,
                                 leaf + ["value"])])])


t14 = pa.table({"id": pa.array([3, 4, 5], pa.int64()),
                "m": pa.array([[("c", 3)], None, [("d", None), ("e", 5)]], pa.map_(pa.string(), pa.int64()))})
t14l = pa.table({"id": pa.array([3, 4], pa.int64()),
                 "l": pa.array([[[("c", 3)], None], [[]]], pa.list_(pa.map_(pa.string(), pa.int32())))})
for first in ("map", "key_value"):
    for shape, craft, t in (("m", legacy_map, t14), ("l", legacy_list_of_maps, t14l)):
        root = os.path.join(top, f"map_level_{shape}_{first}_first")
        os.makedirs(root, exist_ok=True)
        a, b = ("a", "b") if first == "map" else ("b", "a")
        craft(os.path.join(root, a + ".parquet"))
        pq.write_table(t, os.path.join(root, b + ".parquet"))
        paths = [pq.ParquetFile(os.path.join(root, f)).schema.column(1).path for f in ("a.parquet", "b.parquet")]
        label = f"map levels named apart, {'a list of maps' if shape == 'l' else 'a map'}, \"{first}\" first"
        case(f"{label}: the files spell the level apart", sorted(p.split(".")[-2] for p in paths) == ["key_value", "map"],
             str(paths))
        for by_name in ("true", "false"):
            extra = ("--union-by-name",) if by_name == "true" else ()
            w = duck_rows(f"SELECT * FROM read_parquet('{root}/*.parquet', union_by_name={by_name}) ORDER BY id")
            rc, out, err = cli(root, "--ordered", *extra)
            case(f"{label}{' (union by name)' if extra else ''}: DuckDB's rows",
                 rc == 0 and sorted(out, key=lambda r: r["id"]) == w, f"rc {rc} {err[-300:]} {out} {w}")
        over = "" if shape == "m" else "list.element."  # (the list's levels, spelled alike in both)
        of = (lambda f: f"{f}(m)") if shape == "m" else (lambda f: f"[{f}(x) FOR x IN l]")
        named = f"{shape}.{over}{first}"  # (the output's name: the first file's spelling)
        for part, fn in (("key", "map_keys"), ("value", "map_values")):
            w = duck_rows(f"SELECT id, {of(fn)} AS v FROM read_parquet('{root}/*.parquet', union_by_name=true) ORDER BY id")
            for level in ("map", "key_value", "Key_Value" if first == "map" else "MAP"):
                spelled = f"{shape}.{over}{level}.{part}"
                for extra in ((), ("--union-by-name",)):
                    rc, out, err = cli(root, "--ordered", "--columns", f"id,{spelled}", *extra)
                    got = sorted([{"id": r["id"], "v": r.get(f"{named}.{part}", "absent")} for r in out],
                                 key=lambda r: r["id"]) if rc == 0 else out
                    case(f"{label}: path {spelled} {' '.join(extra)}", rc == 0 and got == w, f"rc {rc} {err[-300:]} {out} {w}")
        for bad in (f"{shape}.{over}kv.key", f"{shape}.{over}map.key_value.key", f"{shape}.{over}entries.key"):
            rc, out, err = cli(root, "--ordered", "--union-by-name", "--columns", f"id,{bad}")
            case(f"{label}: a path naming the level as no writer does: {bad}", rc == 1 and f"'{bad}'" in err, f"rc {rc} {err}")
# Impala's map ("map") inside a struct, pyarrow's ("key_value") in the later file (section 9's
# union of the value structs): a path spelled the later file's way reads as the first file's
root = os.path.join(top, "union_map_names")
w = [{"id": r["id"], "Z": r["nested_struct.g.map.value.Z"], "k": r["nested_struct.g.map.key"]} for r in
     cli(root, "--union-by-name", "--ordered", "--columns", "id,nested_struct.g.map.value.Z,nested_struct.g.map.key")[1] or []]
rc, out, err = cli(root, "--union-by-name", "--ordered", "--columns", "id,nested_struct.g.key_value.value.Z,nested_struct.g.key_value.key")
got = [{"id": r["id"], "Z": r.get("nested_struct.g.map.value.Z"), "k": r.get("nested_struct.g.map.key")} for r in out] if rc == 0 else out
case("union by name: Impala's map in a struct, a path spelled \"key_value\"", rc == 0 and len(w) > 1 and got == w,
     f"rc {rc} {err[-300:]} {out} {w}")
sys.exit(0 if summary("dataset_nested") else 1)
