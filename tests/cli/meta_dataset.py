"""tests/cli/meta_dataset.py RINGSCAN DIR: `ringscan meta` over a dataset (several files, a
directory, a pattern) against pyarrow.dataset: the columns and their types (data columns as
pyarrow.dataset types them, hive partition columns as DuckDB infers them: int64 / string), the
files in path order with their rows and row groups from the footer, the totals, the JSON form
and its text twin, --union-by-name, and errors naming the file. Prints "FAIL: NAME:
why" per failed case and the summary line (checks.py)."""
import json
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402
R, DIR = sys.argv[1], sys.argv[2]


def case(name, cond, why):
    check(cond, f"{name}: {why}")


def meta(*args):
    p = subprocess.run([R, "meta", *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr.strip()


root = os.path.join(DIR, "sales")
rows_at = {}
for year, n, rg in ((2023, 1000, 300), (2024, 2500, 1000), (2025, 10, 10)):
    d = os.path.join(root, f"year={year}", "region=eu")
    os.makedirs(d)
    t = pa.table({"id": pa.array(range(n), pa.int64()),
                  "ts": pa.array(range(n), pa.timestamp("ms", "UTC")),
                  "price": pa.array([i / 4 for i in range(n)], pa.float64()),
                  "word": pa.array([("a", "b", None)[i % 3] for i in range(n)]).dictionary_encode()})
    if year == 2025:
        t = t.append_column("extra", pa.array([1] * n, pa.int32()))
    path = os.path.join(d, "part-0.parquet")
    pq.write_table(t, path, row_group_size=rg)
    rows_at[path] = (n, pq.ParquetFile(path).metadata.num_row_groups)

rc, out, err = meta(root, "--json")
doc = json.loads(out) if rc == 0 else {}
want_types = {f.name: str(f.type) for f in ds.dataset(root, partitioning="hive").schema}
want_types["word"] = "dictionary<values=string, indices=int32>"  # pyarrow adds ", ordered=0"
want_types.update(year="int64", region="string")  # DuckDB's inference (pyarrow: int32)
want_types.pop("extra", None)
got_types = {c["name"]: c["type"] for c in doc.get("schema", [])}
case("json schema = pyarrow.dataset's", rc == 0 and got_types == want_types,
     f"rc {rc} {err} got {got_types} want {want_types}")
names = [c["name"] for c in doc.get("schema", [])]
case("columns: the first file's, then partitions sorted", names == ["id", "ts", "price", "word",
                                                                  "region", "year"], f"{names}")
files = [(f["path"], f["rows"], f["row_groups"]) for f in doc.get("files", [])]
want_files = sorted((p, n, g) for p, (n, g) in rows_at.items())
case("files in path order with rows and row groups", files == want_files, f"{files} want {want_files}")
tot = doc.get("totals", {})
count = ds.dataset(root, partitioning="hive").count_rows()
case("totals", tot.get("files") == 3 and tot.get("rows") == count == 3510 and
     tot.get("row_groups") == sum(g for _, _, g in want_files), f"{tot} (pyarrow rows {count})")

rc, out, err = meta(root, "--union-by-name", "--json")
names = [c["name"] for c in json.loads(out)["schema"]] if rc == 0 else None
case("--union-by-name adds a later file's column", names == ["id", "ts", "price", "word", "extra",
                                                             "region", "year"], f"rc {rc} {err} {names}")

rc, out, err = meta(os.path.join(root, "**", "*.parquet"))
lines = out.splitlines()
case("text of a pattern", rc == 0 and lines[0] == "dataset: 3 files, the first file's columns" and
     "  1 ts timestamp[ms, tz=UTC]" in lines and lines[-1].startswith(f"total: 3 files, 3510 rows, {sum(g for _, _, g in want_files)} row groups"),
     f"rc {rc} {err} {lines[:3]} .. {lines[-1:]}")
two = [p for p, _, _ in want_files[:2]]
rc, out, err = meta(*two, "--json")
case("two paths", rc == 0 and [f["path"] for f in json.loads(out)["files"]] == two, f"rc {rc} {err}")
rc, out, err = meta(want_files[0][0])
case("one file: the file's own metadata", rc == 0 and out.startswith("file: ") and "row group 0:" in out,
     f"rc {rc} {out[:80]}")

bad = os.path.join(root, "year=2024", "region=eu", "zz-not-parquet.parquet")
with open(bad, "wb") as f:
    f.write(b"this is not a parquet file at all, just text" * 4)
rc, out, err = meta(root)
case("a broken file is named", rc == 1 and "zz-not-parquet.parquet" in err, f"rc {rc}: {err}")
os.remove(bad)
rc, out, err = meta(os.path.join(DIR, "nothing", "*.parquet"))
case("a pattern matching nothing", rc == 1 and "nothing" in err and out == "", f"rc {rc}: {err} {out}")
# nested fields: their types as pyarrow prints them
nd = os.path.join(DIR, "nested")
os.makedirs(nd)
nt = pa.table({"lst": pa.array([[1]], pa.list_(pa.int64())),
               "s": pa.array([{"a": 1, "b": "x"}], pa.struct([("a", pa.int64()), ("b", pa.string())])),
               "big": pa.array([[1]], pa.large_list(pa.int32())),
               "deep": pa.array([[[1.5]]], pa.list_(pa.list_(pa.float64()))),
               "fx": pa.array([[1, 2]], pa.list_(pa.int16(), 2)),
               "sl": pa.array([{"v": ["a"]}], pa.struct([("v", pa.list_(pa.string()))]))})
for f in ("a.parquet", "b.parquet"):
    pq.write_table(nt, os.path.join(nd, f))
rc, out, err = meta(nd, "--json")
got = {c["name"]: c["type"] for c in json.loads(out)["schema"]} if rc == 0 else None
want = {f.name: str(f.type) for f in ds.dataset(nd).schema}
case("nested types as pyarrow prints them", got == want, f"rc {rc} {err} got {got} want {want}")
sys.exit(0 if summary("meta_dataset") else 1)
