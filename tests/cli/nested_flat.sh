#!/usr/bin/env bash
# tests/cli/nested_flat.sh: a file whose flat columns sit between nested ones scans for its
# flat columns and its list<int64> with pyarrow's values and reads none of the other nested
# chunks. Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
#  1. pyarrow writes (seeded) 30,000 rows: a flat int64 first, a list<int64> of over 1 MiB per
#     row group next (above the dense coalescing gap, so no read may cover it as a hole), flat
#     string / double / timestamp / decimal columns, then a struct and a map, in 3 row groups,
#     for each of: data page v1 with dictionaries, v2 pages without dictionaries, and v1 pages
#     of 4 KiB with a page index (the filter prunes pages of id; --split-rows 2000 would cut
#     the row groups, but the list column has no usable index and fits one split: its groups
#     stay whole, plan_cut.c). (A small
#     nested chunk between two projected ones would be read as a hole, as an unprojected flat
#     one is: coalescing merges holes below the gap whatever they hold.)
#  2. `scan --columns <flat> --format jsonl --ordered` equals pyarrow's rows in the canonical
#     JSONL (tests/conformance/gen_expected.py's formatting), with a filter too; so do the
#     list column with flat ones (JSON arrays: nulls, empty lists), filtered and ordered.
#  3. --stats bytes_used equals the flat chunks' compressed bytes (pyarrow's metadata): no
#     read asks for a nested chunk; bytes_wasted (holes read by coalescing: the struct and map
#     chunks between one row group's last flat column and the next one's first) stay within
#     the struct and map chunks' bytes, so no byte of the list is read.
#  4. Paths through the list and the map project as lists of what they reach (pyarrow's
#     values: "lst.list.element" the list itself, "m.key_value.key" the map's keys, as
#     DuckDB's map_keys); a filter on a nested column is refused by name (the list's
#     included); a scan of every column (the struct and the map too) equals pyarrow.
# Last line: "nested_flat: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv nested_flat

cat >"$dir/write.py" <<'PYEOF'
import datetime as dt, decimal, json, random, sys
import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
sys.path.insert(0, "tests/conformance")
import gen_expected as ge

out, v2, pi = sys.argv[1], sys.argv[2] == "v2", sys.argv[2] == "pi"
rnd = random.Random(23)
n = 30000
flat = {
    "id": pa.array(range(n), pa.int64()),
    "name": pa.array([None if i % 7 == 0 else "n%d" % (i % 50) for i in range(n)]),
    "score": pa.array([None if i % 11 == 0 else rnd.random() * 100 for i in range(n)], pa.float64()),
    "ts": pa.array([dt.datetime(2024, 1, 1) + dt.timedelta(seconds=i) for i in range(n)],
                   pa.timestamp("us", tz="UTC")),
    "price": pa.array([decimal.Decimal(i % 1000) / 100 for i in range(n)], pa.decimal128(7, 2)),
}
lst = pa.array([None if i % 13 == 0 else [rnd.getrandbits(62) for _ in range(i % 33)]
                for i in range(n)], pa.list_(pa.int64()))
st = pa.array([{"x": i, "y": None if i % 3 else str(i)} for i in range(n)],
              pa.struct([("x", pa.int32()), ("y", pa.string())]))
mp = pa.array([[("k%d" % j, j) for j in range(i % 3)] for i in range(n)],
              pa.map_(pa.string(), pa.int32()))
t = pa.table({"id": flat["id"], "lst": lst, "name": flat["name"], "score": flat["score"],
              "ts": flat["ts"], "price": flat["price"], "s": st, "m": mp})
pq.write_table(t, out, row_group_size=10000, data_page_version="2.0" if v2 else "1.0",
               use_dictionary=not v2, compression="snappy", write_page_index=pi,
               data_page_size=4096 if pi else None)
md = pq.ParquetFile(out).metadata
flat_idx = [i for i in range(md.num_columns) if md.schema.column(i).path in flat]
assert len(flat_idx) == len(flat)
flat_bytes = sum(md.row_group(g).column(i).total_compressed_size
                 for g in range(md.num_row_groups) for i in flat_idx)
for g in range(md.num_row_groups):
    lst_bytes = md.row_group(g).column(1).total_compressed_size
    assert md.schema.column(1).path == "lst.list.element" and lst_bytes > 1 << 20, lst_bytes
small = [i for i in range(md.num_columns) if md.schema.column(i).path.split(".")[0] in ("s", "m")]
small_bytes = sum(md.row_group(g).column(i).total_compressed_size
                  for g in range(md.num_row_groups) for i in small)
names = list(flat)
withlist = ["id", "lst", "price"]
kept = t.filter(pc.greater(t["id"], 12345))
for where, rows, sel in (("", t, names), ("_f", kept, names), ("_l", t, withlist),
                         ("_lf", kept, withlist), ("_all", t, t.column_names), ("_sy", None, None),
                         ("_top", t.sort_by([("id", "descending")]).slice(0, 5), ["id", "s", "m", "lst"]),
                         ("_paths", None, "paths")):
    if sel == "paths":  # --columns id,lst.list.element,m.key_value.key
        keys = pa.array([None if v is None else [k for k, _ in v] for v in t["m"].to_pylist()],
                        pa.list_(pa.string()))
        rows = pa.table({"id": t["id"], "lst.list.element": t["lst"], "m.key_value.key": keys})
        sel = rows.column_names
    elif rows is None:  # --columns id,s.y: the struct's field y alone, named "s.y" (DuckDB's way)
        sy = pa.array([None if v is None else v["y"] for v in t["s"].to_pylist()], pa.string())
        rows, sel = pa.table({"id": t["id"], "s.y": sy}), ["id", "s.y"]
    cols = ge.column_texts(rows.select(sel))
    keys = [ge.json_string(c[0]) + ":" for c in cols]
    with open(out + where + ".jsonl", "w", encoding="utf-8", newline="") as fh:
        for r in range(rows.num_rows):
            fh.write("{" + ",".join(k + c[1][r] for k, c in zip(keys, cols)) + "}\n")
sy_bytes = sum(md.row_group(g).column(i).total_compressed_size for g in range(md.num_row_groups)
               for i in range(md.num_columns) if md.schema.column(i).path in ("id", "s.y"))
print(json.dumps({"flat": names, "flat_bytes": flat_bytes, "small_bytes": small_bytes,
                  "sy_bytes": sy_bytes}))
PYEOF

for mode in v1 v2 pi; do
    f="$dir/$mode.parquet"
    if ! info=$("$PY" "$dir/write.py" "$f" "$mode" 2>"$dir/py.err"); then
        bad "$mode: pyarrow could not write the file: $(tail -n 3 "$dir/py.err")"
        continue
    fi
    cols=$("$PY" -c 'import json,sys; print(",".join(json.loads(sys.argv[1])["flat"]))' "$info")
    want_bytes=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["flat_bytes"])' "$info")
    small_bytes=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["small_bytes"])' "$info")
    # 2. values
    "$R" scan "$f" --columns "$cols" --format jsonl --ordered --stats >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "$f.jsonl"' "$mode: flat columns differ from pyarrow: $(diff "$dir/got" "$f.jsonl" | head -n 4)"
    # 3. bytes: the flat chunks, and no byte of the list
    used=$(sed -n 's/.*bytes_used \([0-9]*\),.*/\1/p' "$dir/err")
    wasted=$(sed -n 's/.*bytes_wasted \([0-9]*\),.*/\1/p' "$dir/err")
    check '[ "$used" = "$want_bytes" ]' "$mode: bytes_used $used, the flat chunks hold $want_bytes"
    check '[ -n "$wasted" ] && [ "$wasted" -le "$small_bytes" ]' \
        "$mode: bytes_wasted $wasted, more than the struct and map chunks ($small_bytes)"
    "$R" scan "$f" --columns "$cols" --where "id > 12345" --format jsonl --ordered >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_f.jsonl"' "$mode: filtered flat columns differ: $(head -c 300 "$dir/err")"
    "$R" scan "$f" --columns id,lst,price --format jsonl --ordered >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_l.jsonl"' "$mode: id,lst,price differ from pyarrow: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_l.jsonl" | head -n 4)"
    "$R" scan "$f" --columns id,lst,price --where "id > 12345" --format jsonl --ordered \
        --split-rows 2000 >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_lf.jsonl"' "$mode: filtered id,lst,price differ: $(head -c 300 "$dir/err")"
    # 2b. a struct's field alone: its values, and its chunk only (bytes_used)
    sy_bytes=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["sy_bytes"])' "$info")
    "$R" scan "$f" --columns id,s.y --format jsonl --ordered --stats >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_sy.jsonl"' "$mode: id,s.y differ from pyarrow: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_sy.jsonl" | head -n 4)"
    used=$(sed -n 's/.*bytes_used \([0-9]*\),.*/\1/p' "$dir/err")
    check '[ "$used" = "$sy_bytes" ]' "$mode: id,s.y used $used bytes, their chunks hold $sy_bytes"
    # a field and its first leaf's path read together (as DuckDB's SELECT s, s.x): s.x is s's x
    "$R" scan "$f" --columns s,s.x --format jsonl >"$dir/got" 2>"$dir/err"
    check '"$PY" -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(not r or any(x[\"s.x\"] != (x[\"s\"] and x[\"s\"][\"x\"]) for x in r))" "$dir/got"' \
        "$mode: --columns s,s.x: $(head -c 300 "$dir/err") $(head -c 200 "$dir/got")"
    # 2b'. ORDER BY a flat key with nested columns projected (Top-K merges their packed rows)
    "$R" scan "$f" --columns id,s,m,lst --order-by "id DESC" --limit 5 --format jsonl >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_top.jsonl"' "$mode: ORDER BY id DESC LIMIT 5 of id,s,m,lst differs: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_top.jsonl" | head -n 4)"
    # 2c. the table shows a nested value's JSON text
    "$R" scan "$f" --columns id,s --format table --limit 2 --ordered >"$dir/got" 2>"$dir/err"
    check 'grep -qF "| {\"x\":0,\"y\":\"0\"}" "$dir/got" && grep -qF "| {\"x\":1,\"y\":null}" "$dir/got"' \
        "$mode: table of id,s: $(head -c 300 "$dir/got") $(head -c 300 "$dir/err")"
    # 4. paths through the list and the map; filters on nested columns refused; the whole file
    "$R" scan "$f" --columns id,lst.list.element,m.key_value.key --format jsonl --ordered >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_paths.jsonl"' "$mode: paths through the list and map differ: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_paths.jsonl" | head -n 4)"
    "$R" scan "$f" --columns id --where '"s.x" > 3' >"$dir/got" 2>"$dir/err"
    check 'grep -qF "column '"'"'s.x'"'"': nested columns (inside struct '"'"'s'"'"') cannot be filtered on yet" "$dir/err"' \
        "$mode: filter on s.x: $(head -c 300 "$dir/err")"
    "$R" scan "$f" --columns id --where 'lst IS NULL' >"$dir/got" 2>"$dir/err"
    check 'grep -qF "column '"'"'lst'"'"': nested columns (list) cannot be filtered on yet" "$dir/err"' \
        "$mode: filter on lst: $(head -c 300 "$dir/err")"
    "$R" scan "$f" --format jsonl --ordered >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_all.jsonl"' "$mode: every column (struct, map) differs from pyarrow: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_all.jsonl" | head -n 4)"
done
summary nested_flat
