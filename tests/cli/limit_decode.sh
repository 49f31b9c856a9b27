#!/usr/bin/env bash
# tests/cli/limit_decode.sh: under --limit N a split decodes the rows it may output, not its
# whole window (scan/task.c cap_rows: no split's rows past its first N kept ones can be among
# the N the output takes, in file order or not). pyarrow writes (seeded) 200,000 rows of two
# int64 columns in one row group of 4 KiB PLAIN pages, without and with a page index.
#  1. --limit 10: pyarrow's first 10 rows, decompressing under a twentieth of the whole
#     scan's bytes (it decoded the split's every page: 3.2 MB against 16 KB).
#  2. --where "id >= 150000" --limit 10 --ordered: pyarrow's rows; the filter column is read
#     whole, the projected x only to the tenth kept row: under 60% of the whole scan's.
#  3. --limit 10 --threads 2, file order or not: 10 distinct rows of the file.
#  4. The same rows in 20 row groups of 10,000: --limit 15000 plans the first two and prunes
#     the rest "by the limit" (scan/plan.c limit_reached; 8 splits ran at once and read 8 row
#     groups' columns before), reading under a fifth of the whole scan's bytes; with a filter
#     nothing is pruned by the limit (which rows pass is not known).
# Last line: "limit_decode: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv limit_decode

"$PY" - "$dir" <<'PYEOF' 2>"$dir/py.err" || bad "pyarrow could not write the files: $(tail -n 3 "$dir/py.err")"
import json, sys
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
x = np.random.default_rng(32).integers(0, 1 << 40, 200000)
t = pa.table({"id": pa.array(np.arange(200000, dtype=np.int64)), "x": pa.array(x)})
for name, idx in (("noidx", False), ("idx", True)):
    pq.write_table(t, f"{d}/{name}.parquet", row_group_size=200000, data_page_size=4096,
                   use_dictionary=False, compression="snappy", write_page_index=idx)
pq.write_table(t, f"{d}/groups.parquet", row_group_size=10000, compression="snappy")
with open(f"{d}/head15000.jsonl", "w") as f:
    f.writelines(json.dumps({"id": i, "x": int(x[i])}, separators=(",", ":")) + "\n" for i in range(15000))
with open(f"{d}/head.jsonl", "w") as f:
    f.writelines(json.dumps({"id": i, "x": int(x[i])}, separators=(",", ":")) + "\n" for i in range(10))
with open(f"{d}/where.jsonl", "w") as f:
    f.writelines(json.dumps({"id": i, "x": int(x[i])}, separators=(",", ":")) + "\n" for i in range(150000, 150010))
with open(f"{d}/all_ids", "w") as f:
    f.writelines(json.dumps({"id": i, "x": int(x[i])}, separators=(",", ":")) + "\n" for i in range(200000))
PYEOF

stat_of() { sed -n "s/.*[ ,]$1 \([0-9]*\).*/\1/p" "$2" | head -n1; }
for name in noidx idx; do
    f="$dir/$name.parquet"
    "$R" scan "$f" --format checksum --threads 1 --stats >/dev/null 2>"$dir/s0"
    d0=$(stat_of bytes_decompressed "$dir/s0")
    "$R" scan "$f" --limit 10 --format jsonl --threads 1 --stats >"$dir/got" 2>"$dir/s1"
    d1=$(stat_of bytes_decompressed "$dir/s1")
    check 'cmp -s "$dir/got" "$dir/head.jsonl" && [ -n "$d1" ] && [ "$d1" -gt 0 ] && [ $((d1 * 20)) -lt "$d0" ]' \
        "$name --limit 10: decompressed $d1 bytes, the whole scan $d0; $(diff "$dir/got" "$dir/head.jsonl" | head -n 4)"
    "$R" scan "$f" --where "id >= 150000" --limit 10 --ordered --format jsonl --threads 1 --stats >"$dir/got" 2>"$dir/s1"
    d1=$(stat_of bytes_decompressed "$dir/s1")
    check 'cmp -s "$dir/got" "$dir/where.jsonl" && [ -n "$d1" ] && [ $((d1 * 10)) -lt $((d0 * 6)) ]' \
        "$name --where --limit 10: decompressed $d1 bytes, the whole scan $d0; $(diff "$dir/got" "$dir/where.jsonl" | head -n 4)"
    for order in --ordered --unordered; do
        "$R" scan "$f" --limit 10 $order --format jsonl --threads 2 >"$dir/got" 2>"$dir/err"
        check '[ "$(sort -u "$dir/got" | wc -l)" = 10 ] && [ -z "$(grep -vxFf "$dir/all_ids" "$dir/got")" ]' \
            "$name --limit 10 $order --threads 2: $(head -c 300 "$dir/err") $(head -n 3 "$dir/got")"
    done
done
f="$dir/groups.parquet"
"$R" scan "$f" --format checksum --stats >/dev/null 2>"$dir/s0"
r0=$(stat_of bytes_read "$dir/s0")
for t in 1 2; do
    "$R" scan "$f" --limit 15000 --ordered --format jsonl --threads $t --stats --explain >"$dir/got" 2>"$dir/s1"
    r1=$(stat_of bytes_read "$dir/s1")
    check 'cmp -s "$dir/got" "$dir/head15000.jsonl" && grep -q "row_groups 20 (pruned 18)" "$dir/s1" &&
           [ "$(grep -c "pruned by the limit" "$dir/s1")" = 18 ] && [ $((r1 * 5)) -lt "$r0" ]' \
        "groups --limit 15000, $t threads: read $r1 bytes of $r0, $(grep -o "row_groups [0-9]* (pruned [0-9]*)" "$dir/s1"); $(diff "$dir/got" "$dir/head15000.jsonl" | head -n 3)"
done
"$R" scan "$f" --where "x >= 0" --limit 15000 --ordered --format jsonl --stats --explain >"$dir/got" 2>"$dir/s1"
check 'cmp -s "$dir/got" "$dir/head15000.jsonl" && ! grep -q "pruned by the limit" "$dir/s1"' \
    "groups --where --limit 15000: $(grep -m2 "pruned" "$dir/s1"); $(diff "$dir/got" "$dir/head15000.jsonl" | head -n 3)"
summary limit_decode
