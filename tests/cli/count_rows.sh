#!/usr/bin/env bash
# tests/cli/count_rows.sh: `scan --format count` (ringscan_count; `rows` is its old name)
# counts what pyarrow counts and reads no data where the footer settles it. pyarrow writes 10 row groups of 1,000 rows, id
# ascending (so statistics settle whole groups), a string column with nulls and a double:
#  1. no filter: rows 10000 with reads 0 and bytes_read 0 (--stats), every group settled;
#  2. filters equal to pyarrow's count: a range that settles groups 2..7 and cuts 1 and 8
#     (only those 2 scanned), one no group matches (reads 0, all pruned), one on the string
#     column, IS NULL, an OR, a filter no statistics settle, --limit under and over the count;
#  3. --stats=json carries the count_* fields; a parse error and an unknown column fail as a
#     scan's do; --format checksum prints rows and the checksum of the values;
#  4. a hive-partitioned dataset of 3 files (ringscan_dataset_count): no filter reads footers
#     only, a partition filter prunes files unread, a data filter settles groups, each equal to
#     pyarrow.dataset's count_rows.
# Last line: "count_rows: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv count_rows
f=$dir/c.parquet
"$PY" - "$f" <<'PYEOF'
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 10000
t = pa.table({"id": pa.array(range(n), pa.int64()),
              "s": pa.array([None if i % 7 == 0 else f"k{i % 50:02d}" for i in range(n)]),
              "x": pa.array([(i * 37 % 1000) / 10 for i in range(n)], pa.float64())})
pq.write_table(t, sys.argv[1], row_group_size=1000)
PYEOF

# pyarrow's count of the rows of $1 (a file or a hive directory) passing filter $2 (a
# pyarrow.compute expression)
pycount() {
    "$PY" - "$1" "$2" <<'PYEOF'
import sys, pyarrow.dataset as ds, pyarrow.compute as pc
print(ds.dataset(sys.argv[1], partitioning="hive").count_rows(filter=eval(sys.argv[2], {"pc": pc})))
PYEOF
}
rows_of() { "$R" scan "$f" --format count "$@" 2>"$dir/err"; }

out=$(rows_of --stats)
check '[ "$out" = "rows 10000" ]' "no filter: '$out'"
check 'grep -q "^reads 0, bytes_read 0," "$dir/err"' "no filter read data: $(head -c 200 "$dir/err")"
check 'grep -q "count: row_groups 10, settled 10, pruned 0, scanned 0" "$dir/err"' "no filter: $(tail -n1 "$dir/err")"

out=$(rows_of --where "id >= 1500 AND id < 8500" --stats)
want=$(pycount "$f" '(pc.field("id") >= 1500) & (pc.field("id") < 8500)')
check '[ "$out" = "rows $want" ]' "range: '$out', pyarrow $want"
check 'grep -q "count: row_groups 10, settled 6, pruned 2, scanned 2" "$dir/err"' "range: $(tail -n1 "$dir/err")"
check 'grep -q "row_groups 2 (pruned 0)" "$dir/err"' "range scanned other groups: $(head -c 300 "$dir/err")"

out=$(rows_of --where "id > 20000" --stats)
check '[ "$out" = "rows 0" ]' "none: '$out'"
check 'grep -q "^reads 0, bytes_read 0," "$dir/err"' "none read data"
check 'grep -q "settled 0, pruned 10, scanned 0" "$dir/err"' "none: $(tail -n1 "$dir/err")"

for c in "s = 'k07'|pc.field('s') == 'k07'" "s IS NULL|pc.field('s').is_null()" \
         "id < 100 OR x > 99.5|(pc.field('id') < 100) | (pc.field('x') > 99.5)" \
         "x BETWEEN 10 AND 20|(pc.field('x') >= 10) & (pc.field('x') <= 20)" \
         "s LIKE 'k1%' AND id >= 3000|pc.starts_with(pc.field('s'), 'k1') & (pc.field('id') >= 3000)"; do
    where=${c%%|*}; expr=${c#*|}
    out=$(rows_of --where "$where")
    want=$(pycount "$f" "$expr")
    check '[ "$out" = "rows $want" ]' "$where: '$out', pyarrow $want"
done

out=$(rows_of --where "id >= 1500" --limit 100)
check '[ "$out" = "rows 100" ]' "limit under: '$out'"
out=$(rows_of --where "id >= 9950" --limit 100000)
check '[ "$out" = "rows 50" ]' "limit over: '$out'"
out=$(rows_of --limit 2500 --stats)
check '[ "$out" = "rows 2500" ] && grep -q "^reads 0," "$dir/err"' "limit no filter: '$out'"

rows_of --where "id >= 5000" --stats=json >/dev/null
check 'grep -q "\"count_settled\":5,\"count_pruned\":5,\"count_scanned\":0}" "$dir/err"' "json: $(cat "$dir/err")"
check '! rows_of --where "id >> 3" >/dev/null && grep -q "expected" "$dir/err"' "parse error: $(cat "$dir/err")"
check '! rows_of --where "nope = 3" >/dev/null && grep -q "nope" "$dir/err"' "unknown column: $(cat "$dir/err")"
out=$("$R" scan "$f" --format checksum --where "id < 10" --columns id)
check '[ "$out" = "rows 10 checksum 45" ]' "checksum format: '$out'"
out=$("$R" scan "$f" --format rows --where "id < 10")
check '[ "$out" = "rows 10" ]' "rows (count's old name): '$out'"

# 4. a dataset: k=1..3, each file 2 row groups of 500 rows, id ascending across files
ds=$dir/ds
"$PY" - "$ds" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
for k in range(1, 4):
    os.makedirs(f"{sys.argv[1]}/k={k}")
    ids = range((k - 1) * 1000, k * 1000)
    t = pa.table({"id": pa.array(ids, pa.int64()), "x": pa.array([i % 13 for i in ids], pa.int32())})
    pq.write_table(t, f"{sys.argv[1]}/k={k}/part.parquet", row_group_size=500)
PYEOF
ds_rows() { "$R" scan "$ds" --format count "$@" 2>"$dir/err"; }
out=$(ds_rows --stats)
check '[ "$out" = "rows 3000" ]' "dataset, no filter: '$out'"
check 'grep -q "^reads 0, bytes_read 0," "$dir/err" && grep -q "files 3 (pruned 0), footers_read 3" "$dir/err"' "dataset read data: $(cat "$dir/err")"
check 'grep -q "count: row_groups 6, settled 6, pruned 0, scanned 0" "$dir/err"' "dataset groups: $(tail -n1 "$dir/err")"
out=$(ds_rows --where "k = 2" --stats)
want=$(pycount "$ds" 'pc.field("k") == 2')
check '[ "$out" = "rows $want" ]' "dataset, partition filter: '$out', pyarrow $want"
check 'grep -q "files 3 (pruned 2), footers_read 1" "$dir/err" && grep -q "settled 2, pruned 0, scanned 0" "$dir/err"' "partition filter: $(cat "$dir/err")"
out=$(ds_rows --where "id >= 250 AND id < 1750" --stats)
want=$(pycount "$ds" '(pc.field("id") >= 250) & (pc.field("id") < 1750)')
check '[ "$out" = "rows $want" ]' "dataset, data filter: '$out', pyarrow $want"
check 'grep -q "count: row_groups 6, settled 2, pruned 2, scanned 2" "$dir/err"' "data filter groups: $(tail -n1 "$dir/err")"
out=$(ds_rows --where "k >= 2 AND x = 5")
want=$(pycount "$ds" '(pc.field("k") >= 2) & (pc.field("x") == 5)')
check '[ "$out" = "rows $want" ]' "dataset, both: '$out', pyarrow $want"
out=$(ds_rows --where "k = 2" --limit 7)
check '[ "$out" = "rows 7" ]' "dataset, limit: '$out'"
summary count_rows
