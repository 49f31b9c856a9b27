#!/usr/bin/env bash
# tests/cli/hive_types.sh: hive partition types and values as DuckDB 2.0.1 infers and casts
# them (issue 23, section 4), over a hand list of odd values and a generated cross of date,
# time and suffix forms, each its own dataset, compared value by value with
# read_parquet(..., hive_partitioning=true) (tests/cli/hive_types.py, through libringscan.so);
# --hive-types naming a key no partition has, or a key twice, is refused, as DuckDB refuses it.
# Last line: "hive_types: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_lib hive_types
need_pyenv hive_types
py_cases hive_types.py 6
# Types given (--hive-types, DuckDB's hive_types): the value is cast as DuckDB casts it, not
# strictly: '+', leading zeros, a fraction rounded, an exponent, '_' between digits (the cast
# of a later file's strings, ds_parse.c); a timestamp's date for a DATE; a value the cast
# refuses is an error in both.
fmt="case when typeof(k) = 'TIMESTAMP' then strftime(k::timestamp, '%Y-%m-%dT%H:%M:%S.%f') else k::varchar end"
while IFS='|' read -r t v; do
    rm -rf "$dir/e" && mkdir -p "$dir/e/k=$v" &&
        "$PY" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'x': [1]}), '$dir/e/k=$v/f.parquet')"
    duck=$("$PY" -c "import duckdb; print(duckdb.sql(\"select $fmt from read_parquet('$dir/e/**/*.parquet', hive_partitioning=true, hive_types={'k': $t})\").fetchall()[0][0])" 2>/dev/null || echo error)
    got=$("$R" scan "$dir/e" --hive-types "k:$t" --columns k --format jsonl 2>/dev/null | sed -E 's/^\{"k":"?([^"]*)"?\}$/\1/')
    check '[ "$got" = "$duck" ] || { [ "$duck" = error ] && [ -z "$got" ]; }' "--hive-types k:$t, k=$v: ringscan '$got' DuckDB '$duck'"
done <<'LIST'
BIGINT|+5
BIGINT|007
BIGINT|1.5
BIGINT|-1.5
BIGINT|1.4
BIGINT|.5
BIGINT|5.
BIGINT|0x10
BIGINT|1e3
BIGINT|15e-1
BIGINT|25e-1
BIGINT|-25e-1
BIGINT|1.5e1
BIGINT|1e19
BIGINT|1_000
BIGINT|0x1_0
BIGINT|0b1_0
BIGINT|1_
BIGINT|-0x10
BIGINT|0x7FFFFFFFFFFFFFFF
BIGINT|0xFFFFFFFFFFFFFFFF
BIGINT|abc
DATE|2024-01-01x
DATE|2024-01-01 10:00:00
DATE|1-1-1
DATE|2024-01-012
DATE|1969-12-31 23:59:59
TIMESTAMP|2024-01-01
TIMESTAMP|2024-01-01 10:00:00+02
TIMESTAMP|epoch
LIST
# An empty value ("k=") under a given BIGINT, DATE or TIMESTAMP is NULL, as DuckDB reads it,
# beside "k=5" and the others (it was refused: "partition k= is not a BIGINT"); VARCHAR: ''.
for tv in BIGINT:5 DATE:2024-01-02 TIMESTAMP:2024-01-02 VARCHAR:x; do
    t=${tv%%:*} v=${tv#*:}
    rm -rf "$dir/e" && mkdir -p "$dir/e/k=" "$dir/e/k=$v" &&
        "$PY" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'x': [1]}), '$dir/e/k=/f.parquet'); pq.write_table(pa.table({'x': [2]}), '$dir/e/k=$v/f.parquet')"
    duck=$("$PY" -c "import duckdb; print(duckdb.sql(\"select count(*) filter (where k is null), count(*) filter (where k::varchar = ''), count(k) from read_parquet('$dir/e/**/*.parquet', hive_partitioning=true, hive_types={'k': $t})\").fetchall()[0])" 2>&1)
    got="($("$R" scan "$dir/e" --hive-types "k:$t" --where "k IS NULL" --format count 2>&1 | sed 's/rows //'), $("$R" scan "$dir/e" --hive-types "k:$t" --columns k --format jsonl 2>&1 | grep -c '"k":""'), $("$R" scan "$dir/e" --hive-types "k:$t" --where "k IS NOT NULL" --format count 2>&1 | sed 's/rows //'))"
    check '[ "$got" = "$duck" ]' "--hive-types k:$t over k= and k=$v: ringscan (nulls, empty, values) $got, DuckDB $duck"
done
# a key --hive-types names that is no partition key (misspelled, another case, none at all) is
# refused, as DuckDB refuses it ("Unknown hive_type"); it was ignored and the key's type
# inferred (s26: "Year=2024" with --hive-types year:VARCHAR read 2024 as BIGINT)
rm -rf "$dir/e" && mkdir -p "$dir/e/Year=2024" &&
    "$PY" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'x': [1]}), '$dir/e/Year=2024/f.parquet')"
for t in year:VARCHAR nope:BIGINT "Year:VARCHAR,x:BIGINT"; do
    duck=$("$PY" -c "import duckdb; duckdb.sql(\"select * from read_parquet('$dir/e/**/*.parquet', hive_partitioning=true, hive_types={$(echo "$t" | sed "s/\([^:,]*\):\([^,]*\)/'\1': '\2'/g")})\").fetchall()" 2>&1 | grep -c "Unknown hive_type")
    "$R" scan "$dir/e" --hive-types "$t" --format jsonl >"$dir/out" 2>"$dir/err"; rc=$?
    check '[ "$duck" = 1 ] && [ $rc -eq 1 ] && grep -q "^ringscan: hive_types: '"'"'[a-zA-Z]*'"'"' does not appear to be a partition key (the key: Year)$" "$dir/err"' \
        "--hive-types $t: DuckDB refuses: $duck; exit $rc, $(cat "$dir/out" "$dir/err")"
done
got=$("$R" scan "$dir/e" --hive-types Year:VARCHAR --format jsonl 2>&1)
check '[ "$got" = '"'"'{"x":1,"Year":"2024"}'"'"' ]' "--hive-types Year:VARCHAR: $got"
# several keys: every one named, in the order of their names (it named only "the first key",
# the first by name, which read as the first in the paths: "d" for y=../d=..)
mkdir -p "$dir/e2/y=2024/d=2024-01-01" &&
    "$PY" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'x': [1]}), '$dir/e2/y=2024/d=2024-01-01/f.parquet')"
got=$("$R" scan "$dir/e2" --hive-types year:VARCHAR --format jsonl 2>&1)
check '[ "$got" = "ringscan: hive_types: '"'"'year'"'"' does not appear to be a partition key (the keys: d, y)" ]' \
    "--hive-types year:VARCHAR over y=/d=: $got"
# a key named twice is refused, as DuckDB refuses it ("Duplicate named argument"); the last
# type named won
for t in "y:VARCHAR,y:BIGINT" "y:BIGINT,d:DATE,y:BIGINT"; do
    duck=$("$PY" -c "import duckdb; duckdb.sql(\"select * from read_parquet('$dir/e2/**/*.parquet', hive_partitioning=true, hive_types={$(echo "$t" | sed "s/\([^:,]*\):\([^,]*\)/'\1': '\2'/g")})\").fetchall()" 2>&1 | grep -c "Duplicate named argument")
    got=$("$R" scan "$dir/e2" --hive-types "$t" --format jsonl 2>&1); rc=$?
    check '[ "$duck" = 1 ] && [ $rc -eq 1 ] && [ "$got" = "ringscan: hive_types: '"'"'y'"'"' is given twice" ]' \
        "--hive-types $t: DuckDB refuses: $duck; exit $rc, $got"
done
summary hive_types
