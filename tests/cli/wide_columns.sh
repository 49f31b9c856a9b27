#!/usr/bin/env bash
# tests/cli/wide_columns.sh: a scan without --columns reads every column of a file wider than
# a --columns list may be (CLI_COLUMNS_MAX, 4096): 5,000 INT32 columns written by pyarrow, in
# jsonl (values equal pyarrow's), csv and the table (every header), a checksum other than the
# first 4,000 columns' named, and a dataset of two copies. The CLI used to project the first
# 4,096 silently. Last line: "wide_columns: N passed, N failed".
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
summary wide_columns
