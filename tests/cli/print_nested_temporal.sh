#!/usr/bin/env bash
# tests/cli/print_nested_temporal.sh: temporal values and UUIDs inside nested fields, and broken
# times.
#  1. An INT96 timestamp inside a list, a struct, a map's value or a list of structs prints as
#     a top-level INT96 one does (it printed as base64: only top-level columns were known to
#     be INT96; the library now marks every INT96 leaf it exports raw with metadata
#     "ringscan:int96"), in jsonl, csv and table, in a file written with and without a stored
#     Arrow schema and in a dataset of two files; the checksum follows the text.
#  2. A TIME value outside a day (a broken file's: DuckDB refuses it, "Invalid TIME value -1")
#     prints as pyarrow casts it to text, "<value out of range: -1>", flat or in a list
#     (it printed "00:00:00.-00000001"); 24:00:00 exactly prints, as DuckDB reads it.
# Last line: "print_nested_temporal: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv print_nested_temporal
"$PY" - "$dir" <<'PYEOF' || { bad "pyarrow could not write the files"; summary print_nested_temporal; exit 1; }
import sys, os, uuid, datetime as dt, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
ts = dt.datetime(2021, 3, 4, 5, 6, 7, 123456)
t = pa.table({
    "t": pa.array([ts, None], pa.timestamp("ns")),
    "l": pa.array([[ts, None], None], pa.list_(pa.timestamp("ns"))),
    "s": pa.array([{"a": ts}, {"a": None}], pa.struct([("a", pa.timestamp("ns"))])),
    "m": pa.array([[("k", ts)], []], pa.map_(pa.string(), pa.timestamp("ns"))),
    "ls": pa.array([[{"a": ts}], None], pa.list_(pa.struct([("a", pa.timestamp("ns"))]))),
})
for name, stored in (("plain", False), ("stored", True)):
    pq.write_table(t, f"{d}/{name}.parquet", use_deprecated_int96_timestamps=True, store_schema=stored)
os.mkdir(f"{d}/ds")
for i in range(2):
    pq.write_table(t, f"{d}/ds/part{i}.parquet", use_deprecated_int96_timestamps=True, store_schema=False)
us = pa.time64("us")
pq.write_table(pa.table({
    "us": pa.array([1, -1, 86400 * 10**6, 86400 * 10**6 + 5], us),
    "ms": pa.array([-1, 0, 86400000, 5], pa.time32("ms")),
    "ns": pa.array([-86400 * 10**9 - 1, 0, 1, 2], pa.time64("ns")),
    "lt": pa.array([[-1, 7], None, [], [86400 * 10**6 + 1]], pa.list_(us)),
}), f"{d}/time.parquet")
u = pa.array([uuid.UUID("12345678-9abc-def0-1234-56789abcdef0").bytes, None], pa.uuid())
ut = pa.table({"u": u, "l": pa.ListArray.from_arrays(pa.array([0, 1, 2], pa.int32()), u),
               "s": pa.StructArray.from_arrays([u], names=["a"]),
               "f": pa.array([b"0123456789abcdef", None], pa.binary(16))})
for name, stored in (("uuid_plain", False), ("uuid_stored", True)):
    pq.write_table(ut, f"{d}/{name}.parquet", store_schema=stored)
os.mkdir(f"{d}/tu") # a union by name of a TIME and a string column: VARCHAR, as DuckDB casts
pq.write_table(pa.table({"x": pa.array([86400 * 10**6, 5, -1], us)}), f"{d}/tu/a.parquet")
pq.write_table(pa.table({"x": pa.array(["s"])}), f"{d}/tu/b.parquet")
PYEOF

T='2021-03-04T05:06:07.123456000'
want_jsonl="{\"t\":\"$T\",\"l\":[\"$T\",null],\"s\":{\"a\":\"$T\"},\"m\":[{\"key\":\"k\",\"value\":\"$T\"}],\"ls\":[{\"a\":\"$T\"}]}
{\"t\":null,\"l\":null,\"s\":{\"a\":null},\"m\":[],\"ls\":null}"
want_csv="t,l,s,m,ls
$T,\"[\"\"$T\"\",null]\",\"{\"\"a\"\":\"\"$T\"\"}\",\"[{\"\"key\"\":\"\"k\"\",\"\"value\"\":\"\"$T\"\"}]\",\"[{\"\"a\"\":\"\"$T\"\"}]\"
,,\"{\"\"a\"\":null}\",[],"
# the table's cells, spaces squeezed (its widths are table_format.sh's concern)
want_table="t | l | s | m | ls
$T | [\"$T\",null] | {\"a\":\"$T\"} | [{\"key\":\"k\",\"value\":\"$T\"}] | [{\"a\":\"$T\"}]
NULL | NULL | {\"a\":null} | [] | NULL"
rows_jsonl=$want_jsonl rows_csv=$(printf "%s\n" "$want_csv" | tail -n +2)
rows_table=$(printf "%s\n" "$want_table" | tail -n +2)
for src in plain.parquet stored.parquet ds; do
    p=$dir/$src
    if [ "$src" = ds ]; then # two files of the same rows: them twice, one header
        want_jsonl="$rows_jsonl
$rows_jsonl" want_csv="$want_csv
$rows_csv" want_table="$want_table
$rows_table"
    fi
    got=$("$R" scan --format jsonl "$p" 2>&1)
    check '[ "$got" = "$want_jsonl" ]' "$src jsonl: $got"
    got=$("$R" scan --format csv "$p" 2>&1)
    check '[ "$got" = "$want_csv" ]' "$src csv: $got"
    got=$("$R" scan --format table "$p" 2>&1 | tr -s ' ')
    check '[ "$got" = "$want_table" ]' "$src table: $got"
done
# the checksum sums the nested values' text: the same with and without a stored schema
a=$("$R" scan --format checksum "$dir/plain.parquet" 2>&1)
b=$("$R" scan --format checksum "$dir/stored.parquet" 2>&1)
check '[ "$a" = "$b" ]' "checksums differ: '$a' vs '$b'"

want_time='{"us":"00:00:00.000001","ms":"<value out of range: -1>","ns":"<value out of range: -86400000000001>","lt":["<value out of range: -1>","00:00:00.000007"]}
{"us":"<value out of range: -1>","ms":"00:00:00.000","ns":"00:00:00.000000000","lt":null}
{"us":"24:00:00.000000","ms":"24:00:00.000","ns":"00:00:00.000000001","lt":[]}
{"us":"<value out of range: 86400000005>","ms":"00:00:00.005","ns":"00:00:00.000000002","lt":["<value out of range: 86400000001>"]}'
got=$("$R" scan --format jsonl "$dir/time.parquet" 2>&1)
check '[ "$got" = "$want_time" ]' "time jsonl: $got"
got=$("$R" scan --format csv "$dir/time.parquet" 2>&1 | sed -n 3p)
check '[ "$got" = "<value out of range: -1>,00:00:00.000,00:00:00.000000000," ]' "time csv: $got"
got=$("$R" scan --format table "$dir/time.parquet" 2>&1 | sed -n 3p | tr -s ' ')
check '[ "$got" = "<value out of range: -1> | 00:00:00.000 | 00:00:00.000000000 | NULL" ]' "time table: $got"
# the same in a dataset's cast to VARCHAR: 24:00:00 kept (DuckDB: '24:00:00'; it was
# "00:00:00"), -1 as the print says it (it was wrapped into the day, 23:59:59.999999)
got=$("$R" scan --format csv --union-by-name "$dir/tu" 2>&1 | tr '\n' ' ')
check '[ "$got" = "x 24:00:00 00:00:00.000005 <value out of range: -1> s " ]' "time as VARCHAR: $got"
# 3. a UUID prints as DuckDB and pyarrow print it, at the top and in a list or struct (a nested
#    leaf printed base64, and without a stored schema was not marked arrow.uuid as pyarrow
#    reads it); a FIXED_LEN_BYTE_ARRAY(16) without the UUID type stays base64
U=12345678-9abc-def0-1234-56789abcdef0
for src in uuid_plain.parquet uuid_stored.parquet; do
    got=$("$R" scan --format jsonl "$dir/$src" 2>&1 | head -n1)
    check '[ "$got" = "{\"u\":\"$U\",\"l\":[\"$U\"],\"s\":{\"a\":\"$U\"},\"f\":\"MDEyMzQ1Njc4OWFiY2RlZg==\"}" ]' "$src jsonl: $got"
    got=$("$R" scan --format csv "$dir/$src" 2>&1 | sed -n 2p)
    check '[ "$got" = "$U,\"[\"\"$U\"\"]\",\"{\"\"a\"\":\"\"$U\"\"}\",MDEyMzQ1Njc4OWFiY2RlZg==" ]' "$src csv: $got"
    got=$("$R" scan --format table "$dir/$src" 2>&1 | sed -n 2p | tr -s ' ')
    check '[ "$got" = "$U | [\"$U\"] | {\"a\":\"$U\"} | MDEyMzQ1Njc4OWFiY2RlZg==" ]' "$src table: $got"
done
summary print_nested_temporal
