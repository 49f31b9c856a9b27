#!/usr/bin/env bash
# tests/cli/arrow_roundtrip.sh: every Arrow type pyarrow 26 can store in Parquet, written by
# pyarrow (one file per type, nulls included, flat and inside lists, structs and maps: see
# tests/cli/arrow_roundtrip.py), read back by ringscan (libringscan.so through ctypes) with
# the schema (types, nullability, field and schema metadata) and values equal to
# pyarrow.parquet.read_table's; types pyarrow cannot store are listed as skipped with
# pyarrow's reason. Also: many rows over several row groups and pages; paths through lists
# and maps ("lst.list.element.a": list<a>, "m.key_value.key": the keys) with values from
# pyarrow's reading of the whole file; every parquet-testing file pyarrow reads, its schema
# equal. Then the CLI prints the new formats (null, large and fixed-size lists, list views,
# string views, decimal32/64/256, int8 dictionary indices).
# Last line: "arrow_roundtrip: N passed, N failed[, N skipped]".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
if [ "${RINGSCAN_SANITIZED:-0}" = 1 ]; then # scripts/sanitize.sh builds no shared library to load
    echo "arrow_roundtrip: skipped under the sanitizer pass (it reads libringscan.so; the normal pass runs it)"
    echo "arrow_roundtrip: 0 passed, 0 failed, 1 skipped"; exit 0
fi
need_pyenv arrow_roundtrip
LIB=$(cd "$(dirname "$R")/../lib" && pwd)/libringscan.so
[ -f "$LIB" ] || { bad "no $LIB"; summary arrow_roundtrip; exit 1; }
"$PY" tests/cli/arrow_roundtrip.py "$LIB" "$dir" >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
skipped=0
while read -r word _; do
    case "$word" in ok) ok ;; FAIL:) failed=$((failed + 1)) ;; skip) skipped=$((skipped + 1)) ;; esac
done <"$dir/out"
[ "$rc" -eq 0 ] || bad "arrow_roundtrip.py exited $rc"
[ "$passed" -ge 80 ] || bad "only $passed cases passed"
# the CLI prints each new format as pyarrow's to_pylist would
jl() { "$R" scan "$dir/$1.parquet" --columns v --format jsonl --ordered 2>&1 | tr '\n' ' '; }
out=$(jl null)
check '[ "$out" = "{\"v\":null} {\"v\":null} {\"v\":null} {\"v\":null} " ]' "null jsonl: $out"
out=$(jl decimal256)
check '[ "$out" = "{\"v\":\"111111111111111111111111111111111111111111111.12345\"} {\"v\":null} {\"v\":\"-1.00000\"} {\"v\":\"0.00000\"} " ]' "decimal256 jsonl: $out"
out=$(jl decimal32)
check '[ "$out" = "{\"v\":\"12345.67\"} {\"v\":null} {\"v\":\"-0.01\"} {\"v\":\"0.00\"} " ]' "decimal32 jsonl: $out"
for f in large_list list_view large_list_view; do
    out=$(jl $f)
    check '[ "$out" = "{\"v\":[1,null]} {\"v\":null} {\"v\":[]} {\"v\":[3]} " ]' "$f jsonl: $out"
done
out=$(jl fixed_size_list)
check '[ "$out" = "{\"v\":[1,null]} {\"v\":null} {\"v\":[3,4]} {\"v\":[5,6]} " ]' "fixed_size_list jsonl: $out"
out=$(jl string_view)
check '[ "$out" = "{\"v\":\"a\"} {\"v\":null} {\"v\":\"\"} {\"v\":\"a longer string than twelve bytes\"} " ]' "string_view jsonl: $out"
out=$(jl dictionary_int8_index)
check '[ "$out" = "{\"v\":\"a\"} {\"v\":null} {\"v\":\"b\"} {\"v\":\"a\"} " ]' "int8 dictionary jsonl: $out"
# the count checksum is the same whatever Arrow form the values take
a=$("$R" scan "$dir/binary.parquet" --columns v --format count); b=$("$R" scan "$dir/binary_view.parquet" --columns v --format count)
check '[ -n "$a" ] && [ "$a" = "$b" ]' "binary and binary_view checksums differ: $a / $b"
a=$("$R" scan "$dir/list.parquet" --columns v --format count); b=$("$R" scan "$dir/large_list.parquet" --columns v --format count)
check '[ -n "$a" ] && [ "$a" = "$b" ]' "list and large_list checksums differ: $a / $b"
echo "arrow_roundtrip: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
