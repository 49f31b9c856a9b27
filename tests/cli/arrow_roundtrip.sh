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
need_lib arrow_roundtrip
need_pyenv arrow_roundtrip
py_cases arrow_roundtrip.py 80
# the CLI prints each new format as pyarrow's to_pylist would: FILE|the v values' JSON
while IFS='|' read -r f want; do
    out=$("$R" scan "$dir/$f.parquet" --columns v --format jsonl --ordered 2>&1 | sed 's/^{"v":\(.*\)}$/\1/' | tr '\n' ' ')
    check '[ "$out" = "$want" ]' "$f jsonl: $out, want $want"
done <<'EOF'
null|null null null null 
decimal256|"111111111111111111111111111111111111111111111.12345" null "-1.00000" "0.00000" 
decimal32|"12345.67" null "-0.01" "0.00" 
large_list|[1,null] null [] [3] 
list_view|[1,null] null [] [3] 
large_list_view|[1,null] null [] [3] 
fixed_size_list|[1,null] null [3,4] [5,6] 
string_view|"a" null "" "a longer string than twelve bytes" 
dictionary_int8_index|"a" null "b" "a" 
EOF
# the count checksum is the same whatever Arrow form the values take
a=$("$R" scan "$dir/binary.parquet" --columns v --format checksum); b=$("$R" scan "$dir/binary_view.parquet" --columns v --format checksum)
check '[ -n "$a" ] && [ "$a" = "$b" ]' "binary and binary_view checksums differ: $a / $b"
a=$("$R" scan "$dir/list.parquet" --columns v --format checksum); b=$("$R" scan "$dir/large_list.parquet" --columns v --format checksum)
check '[ -n "$a" ] && [ "$a" = "$b" ]' "list and large_list checksums differ: $a / $b"
echo "arrow_roundtrip: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
