#!/usr/bin/env bash
# tests/cli/old_writers.sh: the three reading failures issue 23 names, on files crafted from
# pyarrow's (none of ../shared/parquet-testing/data shows them any more; conformance.sh
# covers those files):
#  1. a chunk whose dictionary_page_offset is 0 and whose data_page_offset points at its
#     dictionary page (old parquet-mr): read from the data page offset, the first page's type
#     deciding (FACTS.md), values equal to pyarrow's;
#  2. booleans in RLE encoding, flat (nullable and required) and in a list, data page v1 and
#     v2: values equal to pyarrow's;
#  3. a dictionary page header claiming more bytes than its chunk holds: refused with the
#     page's offset and the column named, as pyarrow refuses it.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "old_writers: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv old_writers
cat >"$dir/craft.py" <<'PYEOF'
import os, sys
import pyarrow as pa, pyarrow.parquet as pq
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "conformance"))
import gen_expected as ge
d = sys.argv[1]

def expect(path):
    t = pq.read_table(path)
    cols = ge.column_texts(t)
    keys = [ge.json_string(c[0]) + ":" for c in cols]
    with open(path + ".jsonl", "w", encoding="utf-8", newline="") as fh:
        for r in range(t.num_rows):
            fh.write("{" + ",".join(k + c[1][r] for k, c in zip(keys, cols)) + "}\n")

# 1. dictionary_page_offset 0, data_page_offset at the dictionary page
t = pa.table({"x": pa.array([1, 2, 1, 2, 3] * 4, pa.int32())})
pq.write_table(t, d + "/dict.parquet", use_dictionary=True, compression="none",
               write_statistics=False, store_schema=False)
b = bytearray(open(d + "/dict.parquet", "rb").read())
c = pq.ParquetFile(d + "/dict.parquet").metadata.row_group(0).column(0)
assert c.dictionary_page_offset == 4 and c.data_page_offset < 64, (c.dictionary_page_offset, c.data_page_offset)
old = bytes([0x26, 2 * c.data_page_offset, 0x26, 0x08])  # fields 9 and 11, zigzag varints
i = b.rfind(old)
assert i > 0, "footer layout changed"
b[i:i + 4] = bytes([0x26, 0x08, 0x26, 0x00])
open(d + "/dict0.parquet", "wb").write(b)
c = pq.ParquetFile(d + "/dict0.parquet").metadata.row_group(0).column(0)
assert c.dictionary_page_offset == 0 and c.data_page_offset == 4
expect(d + "/dict0.parquet")
# 3. the dictionary page header (at 4: type, uncompressed, compressed i32s) claims 63 bytes
assert b[4] == 0x15 and b[6] == 0x15 and b[8] == 0x15
b = bytearray(open(d + "/dict.parquet", "rb").read())
b[9] = 0x7e
open(d + "/dictbig.parquet", "wb").write(b)
try:
    pq.read_table(d + "/dictbig.parquet")
    print("pyarrow reads dictbig")
except Exception:
    pass
# 2. booleans in RLE
t = pa.table({"b": pa.array([True, None, False, True] * 50),
              "r": pa.array([True, False, False] * 66 + [True, True], pa.bool_()),
              "l": pa.array([[True, None, False]] * 199 + [None], pa.list_(pa.bool_()))})
t = t.cast(pa.schema([pa.field("b", pa.bool_()), pa.field("r", pa.bool_(), nullable=False),
                      pa.field("l", pa.list_(pa.bool_()))]))
for v in ("1.0", "2.0"):
    p = d + "/bool%s.parquet" % v
    pq.write_table(t, p, use_dictionary=False, data_page_version=v, compression="snappy",
                   column_encoding={"b": "RLE", "r": "RLE", "l": "RLE"})
    assert pq.ParquetFile(p).metadata.row_group(0).column(0).encodings == ("RLE",)
    expect(p)
PYEOF
if ! "$PY" "$dir/craft.py" "$dir" >"$dir/py.out" 2>"$dir/py.err"; then
    bad "pyarrow could not craft the files: $(tail -n 3 "$dir/py.err")"
    summary old_writers
    exit 1
fi
check '[ ! -s "$dir/py.out" ]' "pyarrow: $(cat "$dir/py.out")"
for f in dict0 bool1.0 bool2.0; do
    "$R" scan "$dir/$f.parquet" --format jsonl --ordered >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "$dir/$f.parquet.jsonl"' "$f: differs from pyarrow: $(head -c 300 "$dir/err") $(diff "$dir/got" "$dir/$f.parquet.jsonl" | head -n 4)"
done
"$R" meta "$dir/dict0.parquet" >"$dir/got" 2>"$dir/err"
check '[ $? -eq 0 ] && grep -q "rows: 20" "$dir/got"' "dict0: meta: $(head -c 300 "$dir/err")"
"$R" scan "$dir/dictbig.parquet" --format jsonl >"$dir/got" 2>"$dir/err"
rc=$?
check '[ $rc -eq 1 ] && [ ! -s "$dir/got" ] && grep -qF "page extends past the column chunk (offset 4, column x)" "$dir/err"' \
    "dictbig: exit $rc, $(head -c 300 "$dir/err")"
summary old_writers
