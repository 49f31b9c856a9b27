#!/usr/bin/env bash
# tests/cli/dict_columns.sh: `scan --dictionary-columns` (options.dictionary_columns) prints and
# checksums the same values as a plain scan, on a pyarrow-written file whose string column's
# chunks fall back from dictionary to PLAIN pages (a 2 KiB dictionary page limit), with and
# without filters (on another column: indices passed through; on the column itself: values
# encoded again), ordered, with ORDER BY ... LIMIT, and over cut row groups (a page index,
# --split-rows); a name in another case as --columns matches it; a non-string column is
# refused by name.
# Last line: "dict_columns: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv dict_columns
f=$dir/d.parquet
"$PY" - "$f" <<'PYEOF'
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 40000
s = [None if i % 9 == 0 else f"s{i % 30}" if i < 15000 else f"long{i % 3000:05d}" for i in range(n)]
t = pa.table({"id": pa.array(range(n), pa.int64()), "s": pa.array(s),
              "b": pa.array([bytes([i % 5]) * (i % 3) for i in range(n)], pa.binary())})
pq.write_table(t, sys.argv[1], row_group_size=10000, data_page_size=4096,
               dictionary_pagesize_limit=2048, write_page_index=True)
md = pq.ParquetFile(sys.argv[1]).metadata
encs = set(md.row_group(1).column(1).encodings)
assert "PLAIN" in encs and "RLE_DICTIONARY" in encs, encs
PYEOF
same() { # same DESCRIPTION DICT_COLUMNS ARGS...: plain and dictionary scans print the same
    local what=$1 dc=$2; shift 2
    "$R" scan "$f" --ordered "$@" >"$dir/plain" 2>"$dir/err1"
    "$R" scan "$f" --ordered --dictionary-columns "$dc" "$@" >"$dir/dict" 2>"$dir/err2"
    check '[ -s "$dir/plain" ] && cmp -s "$dir/plain" "$dir/dict"' \
        "$what: $(diff "$dir/plain" "$dir/dict" | head -n 4) $(head -c 200 "$dir/err2")"
}
same "jsonl" s,b --columns id,s,b --format jsonl
same "count" b,s --columns s,b,id --format checksum
same "csv, filter on id" s,b --columns id,s,b --format csv --where "id >= 9000 AND id < 31000"
same "filter on s" s --columns s,id --format jsonl --where "s LIKE 'long01%' OR s IS NULL"
same "filter on b" s,b --columns s,b --format checksum --where "b = '\x01\x01'"
same "table" s --columns s --limit 50
same "top-k" s --columns id,s --format jsonl --order-by id --desc --limit 30
same "cut row groups" s --columns id,s --format checksum --split-rows 2000 --where "id IN (3, 2500, 17001, 39998) OR id > 38000"
"$R" scan "$f" --columns id,s --split-rows 2000 --format checksum --stats >/dev/null 2>"$dir/st"
check 'grep -qE "splits ([2-9][0-9]|1[0-9])," "$dir/st"' "row groups not cut: $(cat "$dir/st")"
# a name in another case, as --columns takes it (s26: "--columns S --dictionary-columns S" was
# refused, "'S' is not a projected column"), over the file and over a dataset of two copies
same "another case" S --columns S,id --format jsonl --where "id < 500 OR id > 39000"
same "another case, every column" S --format checksum
mkdir "$dir/ds" && cp "$f" "$dir/ds/a.parquet" && cp "$f" "$dir/ds/b.parquet"
"$R" scan "$dir/ds" --columns s --format checksum >"$dir/plain" 2>"$dir/err1"
"$R" scan "$dir/ds" --columns S --dictionary-columns S --format checksum >"$dir/dict" 2>"$dir/err2"
check '[ -s "$dir/plain" ] && cmp -s "$dir/plain" "$dir/dict"' "dataset, another case: $(cat "$dir/dict" "$dir/err2")"
out=$("$R" scan "$f" --columns id,s --dictionary-columns id 2>&1 >/dev/null)
check '[[ "$out" == *"dictionary_columns: '"'"'id'"'"' is not a string or binary column"* ]]' "refusal: $out"
out=$("$R" scan "$f" --columns id --dictionary-columns s 2>&1 >/dev/null)
check '[[ "$out" == *"'"'"'s'"'"' is not a projected column"* ]]' "not projected: $out"
summary dict_columns
