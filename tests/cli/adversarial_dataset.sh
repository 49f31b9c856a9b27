#!/usr/bin/env bash
# tests/cli/adversarial_dataset.sh: hive partition directories written with escapes (s20
# review), read as DuckDB 2.0 reads them (read_parquet(..., hive_partitioning=true), asked
# here as the oracle): a value's %XX escapes are decoded ("m=%41" is 'A', "k=%41%2Fb" is
# 'A/b'; before, the raw text was the value, so `m = 'A'` counted 0 rows), '+' and a '%'
# without two hex digits stay, the key stays as written ("k%41"); the type is inferred from
# the text as written ("t=2024-01-01%2000%3A00%3A00" is the VARCHAR '2024-01-01 00:00:00'),
# and --hive-types parses the decoded value ("y=%32%30%32%34" as BIGINT is 2024).
# Then times of day without union_by_name: a first file's time64[us] (INT64) and a later
# file's time32[ms] (INT32) read as pyarrow.dataset reads them, the milliseconds widened and
# scaled (it was refused: "the types do not widen").
# Then --format count over a union by name whose filter names a column only a file pruned by
# its partition has ("p = 2 AND x IS NULL"): the count DuckDB and the scan give (it was
# "unknown column 'x'": a count skipped the check that reads the pruned files' footers).
# Then a partition named as a file's own column: the partition's value wins, as in DuckDB.
# Then symbolic links under a listed directory (h23): `**` does not descend through a link to
# a directory, as DuckDB's glob (a link to the directory itself or its parent listed the same
# files until max_files and the scan failed; a link to a sibling read its files twice); a
# link named by a `*` component is followed and a link to a file is read: counts as DuckDB's.
# Then a dataset file's decode and plan errors name the file, offset and column as the file's
# own scan does (the dataset's message had neither offset nor column, a plan's not the file).
# Then ORDER BY ... LIMIT over a dataset that keeps no row (LIMIT 0, or a filter no row passes):
# the header alone, exit 0 (the merge's empty batch leaked: LeakSanitizer in the sanitizer pass).
# Then a nested field whose first leaf is of the null type (pyarrow's list<null>, struct<a:
# null>) in a dataset: read as the file's own scan reads it (an assertion aborted the process).
# Then a dataset Top-K whose kept rows hold a widened list with no bytes (an empty list under a
# first file's list<int64>): as DuckDB (an offset from a NULL buffer trapped: exit 132).
# Then a file whose name holds '[' named as it is: read, alone or with another path (it was
# taken for a pattern that matched no file).
# Then a name that is a file's and a pattern's: the pattern's matches, as DuckDB's; a pattern
# ending in '/' matches no file.
# Then a listing's bound on directories read: a link loop named by `*`s fails with a message,
# `**/**` is one `**` (a deep tree's file found once, not 1.9 million ways).
# Last line: "adversarial_dataset: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv adversarial_dataset
"$PY" - "$dir" <<'PYEOF' || { bad "pyarrow could not write the dataset"; summary adversarial_dataset; exit 1; }
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
for sub, xs in (("h/m=%41/k%41=%41%2Fb/p=a+b/q=%zz", [1, 2, 3]), ("h/m=a b/k%41=x/p=c/q=d", [4, 5]),
                ("t/t=2024-01-01%2000%3A00%3A00/y=%32%30%32%34", [6])):
    os.makedirs(f"{d}/{sub}")
    pq.write_table(pa.table({"x": pa.array(xs, pa.int64())}), f"{d}/{sub}/f.parquet")
PYEOF
# the rows as DuckDB gives them, a line per row: x|k%41|m|p|q (ringscan's column order), and t's types and values
"$PY" - "$dir" >"$dir/duck" <<'PYEOF'
import sys, duckdb
d = sys.argv[1]
for r in duckdb.sql(f"select x, \"k%41\", m, p, q from read_parquet('{d}/h/**/*.parquet', hive_partitioning=true) order by x").fetchall():
    print("|".join(str(v) for v in r))
print(duckdb.sql(f"select count(*) from read_parquet('{d}/h/**/*.parquet', hive_partitioning=true) where m = 'A'").fetchall()[0][0])
print("|".join(str(v) for v in duckdb.sql(f"select typeof(t), t, typeof(y), y from read_parquet('{d}/t/**/*.parquet', hive_partitioning=true)").fetchall()[0]))
PYEOF
check '[ "$(tr "\n" " " <"$dir/duck")" = "1|A/b|A|a+b|%zz 2|A/b|A|a+b|%zz 3|A/b|A|a+b|%zz 4|x|a b|c|d 5|x|a b|c|d 3 VARCHAR|2024-01-01 00:00:00|VARCHAR|2024 " ]' \
    "DuckDB's reading changed: $(tr '\n' ' ' <"$dir/duck")"
"$R" scan "$dir/h" --format csv --ordered >"$dir/out" 2>"$dir/err"
got=$(tail -n +2 "$dir/out" | tr ',' '|' | sort | tr '\n' ' ')
want=$(head -n 5 "$dir/duck" | sort | tr '\n' ' ')
check '[ "$got" = "$want" ]' "values: got '$got' want '$want' $(head -c 200 "$dir/err")"
check '[ "$(head -n1 "$dir/out")" = "x,k%41,m,p,q" ]' "header: $(head -n1 "$dir/out")"
for fmt in count checksum; do
    n=$("$R" scan "$dir/h" --where "m = 'A'" --format $fmt 2>&1 | awk '{print $2}')
    check '[ "$n" = 3 ]' "m = 'A' --format $fmt: $n rows, want 3"
done
n=$("$R" scan "$dir/h" --where "\"k%41\" = 'A/b' AND q = '%zz' AND p = 'a+b'" --format count 2>&1 | awk '{print $2}')
check '[ "$n" = 3 ]' "k%41, p, q: $n rows, want 3"
"$R" scan "$dir/t" --columns t,y --format jsonl >"$dir/out" 2>&1
check '[ "$(cat "$dir/out")" = "{\"t\":\"2024-01-01 00:00:00\",\"y\":\"2024\"}" ]' "t, y: $(cat "$dir/out")"
"$R" scan "$dir/t" --columns y --hive-types y:BIGINT --format jsonl >"$dir/out" 2>&1
check '[ "$(cat "$dir/out")" = "{\"y\":2024}" ]' "y BIGINT: $(cat "$dir/out")"
"$PY" - "$dir" >"$dir/want" <<'PYEOF'
import sys, os, datetime as dt, pyarrow as pa, pyarrow.parquet as pq, pyarrow.dataset as ds
d = sys.argv[1] + "/tm"
os.makedirs(d)
pq.write_table(pa.table({"t": pa.array([dt.time(0, 0, 1, 500), dt.time(23, 59, 59, 999999)], pa.time64("us"))}), d + "/a.parquet")
pq.write_table(pa.table({"t": pa.array([dt.time(0, 0, 1), dt.time(23, 59, 59, 999000), None], pa.time32("ms"))}), d + "/b.parquet")
t = ds.dataset(d).to_table()
print(t.schema.field("t").type, " ".join("null" if v is None else v.isoformat(timespec="microseconds") for v in t.column("t").to_pylist()))
PYEOF
"$R" scan "$dir/tm" --format csv --ordered >"$dir/out" 2>&1
got="$("$R" meta "$dir/tm" 2>&1 | sed -n 's/^  0 t //p') $(tail -n +2 "$dir/out" | sed 's/^$/null/' | tr '\n' ' ' | sed 's/ $//')"
check '[ "$got" = "$(cat "$dir/want")" ]' "times: got '$got' want '$(cat "$dir/want")'"
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1] + "/un"
os.makedirs(d + "/p=1"), os.makedirs(d + "/p=2")
pq.write_table(pa.table({"x": pa.array([1, None, 3], pa.int64()), "y": [1, 2, 3]}), d + "/p=1/a.parquet")
pq.write_table(pa.table({"y": pa.array([4, 5], pa.int64())}), d + "/p=2/b.parquet")
PYEOF
while IFS='|' read -r where want; do
    duck=$("$PY" -c "import duckdb, sys; print(duckdb.sql(\"select count(*) from read_parquet('$dir/un/**/*.parquet', union_by_name=true, hive_partitioning=true) where $where\").fetchall()[0][0])" 2>&1)
    for fmt in count checksum; do
        n=$("$R" scan "$dir/un" --union-by-name --where "$where" --format $fmt 2>&1 | awk '{print $2}')
        check '[ "$n" = "$want" ] && [ "$duck" = "$want" ]' "$where --format $fmt: $n rows, DuckDB $duck, want $want"
    done
done <<'CASES'
p = 2 AND x IS NULL|2
x IS NULL AND p = 2|2
p = 1 AND x IS NULL|1
p = 2 AND x > 0|0
CASES
# a partition named as a file's own column: the partition's value, in the column's place, as
# DuckDB reads it (pyarrow refuses such a dataset; before, the file's column won)
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1] + "/pk"
for year, ids in ((2024, [1, 2]), (2025, [3])):
    os.makedirs(f"{d}/year={year}")
    pq.write_table(pa.table({"year": pa.array([1999] * len(ids), pa.int64()), "id": pa.array(ids, pa.int64())}),
                   f"{d}/year={year}/f.parquet")
PYEOF
for args in "" "--union-by-name" "--where year=2025"; do
    w=$(echo "$args" | sed -n 's/--where //p')
    duck=$("$PY" -c "import duckdb; print(' '.join('|'.join(str(v) for v in r) for r in duckdb.sql(\"select * from read_parquet('$dir/pk/**/*.parquet', hive_partitioning=true) ${w:+where $w} order by id\").fetchall()))")
    got=$("$R" scan "$dir/pk" $args --format csv 2>&1 | tail -n +2 | tr ',' '|' | tr '\n' ' ')
    check '[ "$got" = "$duck " ] && [ -n "$duck" ]' "partition over a column ($args): got '$got' DuckDB '$duck'"
done
# Hive's null partition: __HIVE_DEFAULT_PARTITION__ reads as NULL (DuckDB and pyarrow.dataset),
# left out of the type's inference (y stays BIGINT; a key with only nulls is VARCHAR); it was
# the text itself, so y became VARCHAR and "y IS NULL" kept no row. An empty value ("k=") is
# the empty string: it was a SIGILL (memcpy from a NULL buffer of the constant column).
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1] + "/hn"
for x, sub in enumerate(("y=2023/r=b/k=", "y=2024/r=__HIVE_DEFAULT_PARTITION__/k=",
                         "y=__HIVE_DEFAULT_PARTITION__/r=a/k=", "y=2024/r=c/k=")):
    os.makedirs(f"{d}/{sub}")
    pq.write_table(pa.table({"x": pa.array([x, x + 10], pa.int64())}), f"{d}/{sub}/f.parquet")
d = sys.argv[1] + "/hz/k=__HIVE_DEFAULT_PARTITION__"
os.makedirs(d)
pq.write_table(pa.table({"x": pa.array([1], pa.int64())}), d + "/f.parquet")
PYEOF
while IFS='|' read -r where; do
    duck=$("$PY" -c "import duckdb; print(' '.join('|'.join('NULL' if v is None else str(v) for v in r) for r in duckdb.sql(\"select x, k, r, y, typeof(y) from read_parquet('$dir/hn/**/*.parquet', hive_partitioning=true) ${where:+where $where} order by x\").fetchall()))")
    got=$("$R" scan "$dir/hn" ${where:+--where "$where"} --format csv 2>&1 | tail -n +2 | sed 's/,,/,NULL,/g; s/,$/,NULL/; s/""//; s/$/|BIGINT/' | tr ',' '|' | sort -n | tr '\n' ' ')
    check '[ "$got" = "$duck " ] && [ -n "$duck" ]' "null partitions (${where:-no filter}): got '$got' DuckDB '$duck'"
    n=$("$R" scan "$dir/hn" ${where:+--where "$where"} --format count 2>&1 | awk '{print $2}')
    check '[ "$n" = "$(echo "$duck" | wc -w)" ]' "null partitions (${where:-no filter}) --format count: $n"
done <<'CASES'

y IS NULL
r IS NULL OR y > 2023
y = 2024 AND r IS NOT NULL
r != 'a'
k = ''
CASES
got=$("$R" meta "$dir/hn" 2>&1 | grep -E '^  [0-9] [ry] ' | tr -s ' ' | tr '\n' ' ')
check '[ "$got" = " 2 r string  3 y int64 " ]' "null partitions' types: $got"
got=$("$R" scan "$dir/hn" --order-by "y DESC, x" --limit 3 --columns x --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
check '[ "$got" = "1 3 11 " ]' "ORDER BY a null partition (nulls last): $got"
got=$("$R" scan "$dir/hz" --format jsonl 2>&1; "$R" meta "$dir/hz" 2>&1 | grep -E '^  1 k')
want=$(printf '{"x":1,"k":null}\n  1 k string')
check '[ "$got" = "$want" ]' "a key with only nulls: $got"
# A column of the null type (pa.null(): Parquet's UNKNOWN, what pandas writes for a column of
# None) in one file: its rows are nulls of the other files' type, as DuckDB reads them; in a
# union by name a first file's null type gives way to a later file's type. It was refused:
# "INT32/UNKNOWN ... BYTE_ARRAY/STRING: the types do not widen" (and "nested field ... flat").
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
def w(sub, name, **cols):
    os.makedirs(f"{d}/{sub}", exist_ok=True)
    pq.write_table(pa.table(cols), f"{d}/{sub}/{name}.parquet")
w("nt1", "a", id=pa.array([1], pa.int64()), v=pa.array([1.5], pa.float64()))
w("nt1", "b", id=pa.array([2, 3], pa.int64()), v=pa.array([None, None], pa.null()))
w("nt2", "a", id=pa.array([1, 2], pa.int64()), v=pa.array([None, None], pa.null()))
w("nt2", "b", id=pa.array([3], pa.int64()), v=pa.array(["x"], pa.string()))
w("nt3", "a", id=pa.array([1], pa.int64()), v=pa.array([[1, 2]], pa.list_(pa.int64())))
w("nt3", "b", id=pa.array([2], pa.int64()), v=pa.array([None], pa.null()))
PYEOF
while IFS='|' read -r ds args where; do
    u=false; [ "$args" = "--union-by-name" ] && u=true
    duck=$("$PY" -c "import duckdb, json; print(' '.join(json.dumps(list(r), separators=(',', ':')) for r in duckdb.sql(\"select id, v from read_parquet('$dir/$ds/*.parquet', union_by_name=$u) ${where:+where $where} order by id\").fetchall()))" 2>&1)
    got=$("$R" scan "$dir/$ds" $args ${where:+--where "$where"} --format jsonl 2>&1 | sed 's/{"id":\([0-9]*\),"v":\(.*\)}$/[\1,\2]/' | tr '\n' ' ')
    check '[ "$got" = "$duck " ] && [ -n "$duck" ]' "null-typed column ($ds $args $where): got '$got' DuckDB '$duck'"
done <<'CASES'
nt1||
nt1|--union-by-name|v IS NULL
nt1||v > 1
nt2|--union-by-name|
nt2|--union-by-name|v = 'x' OR v IS NULL
nt3||
CASES
# a first file's null type under a later file's type, without union_by_name: refused as DuckDB
# does, naming the cure (it said "INT32/UNKNOWN ... but BYTE_ARRAY/STRING ...: the types do not
# widen", though a union by name reads them)
got=$("$R" scan "$dir/nt2" --format jsonl 2>&1); rc=$?
pat="*column 'v' is of the null type in *a.parquet but BYTE_ARRAY/STRING in *b.parquet: read with union_by_name*"
check '[ $rc = 1 ] && [[ "$got" == $pat ]]' \
    "null type first, no union_by_name: exit $rc, $got"
# Decimals of other precisions and scales whose merge needs more than 18 digits: DuckDB's
# DECIMAL(p, s) holding both, exactly (a 16-byte decimal; the values rescaled in 128 bits). It
# was DOUBLE (99999999999999999.9 read as 1e+17), or refused for decimals over 18 digits; without
# union_by_name a later file's decimal is cast to the first's type (rounded), as DuckDB casts it.
"$PY" - "$dir" <<'PYEOF'
import sys, os, decimal as D, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
for i, ((p1, s1, v1), (p2, s2, v2)) in enumerate((((18, 1, "99999999999999999.9"), (18, 3, "-999999999999999.999")),
                                                 ((9, 2, "9999999.99"), (18, 0, "-999999999999999999")),
                                                 ((20, 2, "999999999999999999.99"), (25, 2, "-99999999999999999999999.99")),
                                                 ((5, 0, "99999"), (38, 10, "-1234567890123456789012345678.0123456789")),
                                                 ((12, 6, "1.5"), (4, 2, "-9.5")), ((25, 2, "1.5"), (20, 1, "-9.5")))):
    os.makedirs(f"{d}/dm{i}")
    pq.write_table(pa.table({"id": [1, 2], "x": pa.array([D.Decimal(v1), None], pa.decimal128(p1, s1))}), f"{d}/dm{i}/a.parquet")
    pq.write_table(pa.table({"id": [3], "x": pa.array([D.Decimal(v2)], pa.decimal128(p2, s2))}), f"{d}/dm{i}/b.parquet")
PYEOF
for i in 0 1 2 3 4 5; do
    for u in true false; do
        args=; [ $u = true ] && args=--union-by-name
        duck=$("$PY" -c "import duckdb; print(' '.join(str(r[0]) + '|' + ('' if r[1] is None else str(r[1])) for r in duckdb.sql(\"select id, x::varchar, typeof(x) from read_parquet('$dir/dm$i/*.parquet', union_by_name=$u) order by id\").fetchall()), duckdb.sql(\"select any_value(typeof(x)) from read_parquet('$dir/dm$i/*.parquet', union_by_name=$u)\").fetchall()[0][0])" 2>&1)
        # without union_by_name DuckDB casts a later, wider decimal to the first's type (rounding
        # half away from zero; a value that does not fit refused by both)
        if [ $u = false ] && [[ "$duck" == *"Error"* ]]; then
            "$R" scan "$dir/dm$i" --format csv >"$dir/out" 2>&1
            check 'grep -q "dm$i/b.parquet: column .x.: the value .* does not fit DECIMAL(.*), its type from .*dm$i/a.parquet" "$dir/out"' \
                "decimals dm$i without union_by_name: DuckDB refuses; ringscan: $(cat "$dir/out")"
            continue
        fi
        got="$("$R" scan "$dir/dm$i" $args --format csv 2>&1 | tail -n +2 | tr ',' '|' | tr '\n' ' ')$("$R" meta "$dir/dm$i" $args 2>&1 | sed -n 's/^  1 x decimal128(\([0-9]*\), \([0-9]*\))$/DECIMAL(\1,\2)/p')"
        check '[ "$got" = "$duck" ]' "decimals dm$i $args: got '$got' DuckDB '$duck'"
    done
    n=$("$R" scan "$dir/dm$i" --union-by-name --where "x < 0" --format count 2>&1)
    check '[ "$n" = "rows 1" ]' "decimals dm$i: x < 0 counts '$n'"
    got=$("$R" scan "$dir/dm$i" --union-by-name --order-by "x DESC" --limit 3 --columns id --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
    check '[ "$got" = "1 3 2 " ]' "decimals dm$i: ORDER BY x DESC: $got"
done
# A clause ORing a partition column, or a column a file lacks in a union by name, with a
# file's own columns: each comparison over the file's constants alone is decided per file
# (filter/tree.c fold_atoms), so `y = 2021 OR v > 2` is every row of the y=2021 files and
# `v > 2` elsewhere, as DuckDB answers. It was refused: "a clause mixes partition (or missing)
# columns with the file's columns: write it as separate AND terms".
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1] + "/or"
i = 0
for y in ("2021", "2022", "__HIVE_DEFAULT_PARTITION__"):
    for c in ("a", "b%2Fc"):
        os.makedirs(f"{d}/y={y}/c={c}")
        cols = {"id": pa.array(range(i, i + 6), pa.int64()), "v": pa.array([0.5, 1, 2, 3, None, 4.5])}
        if c == "a": cols["s"] = pa.array(["x", None, "y", "x", "y", None], pa.string())
        pq.write_table(pa.table(cols), f"{d}/y={y}/c={c}/f.parquet", row_group_size=4)
        i += 6
PYEOF
while IFS= read -r where; do
    duck=$("$PY" -c "import duckdb; print(duckdb.sql(\"select count(*), coalesce(string_agg(id::varchar, ' ' order by v desc nulls last, id), '') from (select * from read_parquet('$dir/or/**/*.parquet', hive_partitioning=true, union_by_name=true) where $where order by v desc nulls last, id limit 4)\").fetchall()[0][1], duckdb.sql(\"select count(*) from read_parquet('$dir/or/**/*.parquet', hive_partitioning=true, union_by_name=true) where $where\").fetchall()[0][0])" 2>&1)
    n=$("$R" scan "$dir/or" --union-by-name --where "$where" --format count 2>&1 | awk '{print $2}')
    top=$("$R" scan "$dir/or" --union-by-name --where "$where" --order-by "v DESC, id" --limit 4 --columns id --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
    rows=$("$R" scan "$dir/or" --union-by-name --where "$where" --format checksum 2>&1 | awk '{print $2}')
    check '[ "$top$n" = "$duck" ] && [ "$rows" = "$n" ]' "OR over partitions ($where): top-4 and count '$top$n' (checksum rows $rows), DuckDB '$duck'"
done <<'CASES'
y = 2021 OR v > 2
c = 'b/c' OR s = 'x'
y IS NULL OR (v < 1 AND s IS NULL)
NOT (y = 2022 OR v > 1)
(y = 2021 AND c = 'a') OR (y = 2022 AND v > 2) OR s = 'y'
y + 1 = 2022 OR v >= 4.5
s IS NULL OR y = 2022
CASES
"$R" scan "$dir/or" --where "y > v" --format count >"$dir/out" 2>&1
check 'grep -q "y=2021/c=a/f.parquet: a comparison reads both partition (or missing) columns and the file.s own columns (y|v): not supported" "$dir/out"' \
    "one comparison of a partition with a data column: $(cat "$dir/out")"
# A filter on a nested field, or a path in one, over a dataset is refused naming it, as over one
# file. It was answered with no row (a path's leaf resolved in the file's own columns, whose
# statistics pruned it: "rows 0", status 0), refused as "nested columns cannot be read yet",
# or "unknown column" when a file without the field came first.
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1] + "/nf"
os.makedirs(d)
st = pa.struct([("a", pa.int32()), ("b", pa.string())])
pq.write_table(pa.table({"id": [1, 2], "s": pa.array([{"a": 1, "b": "x"}, None], st)}), d + "/a.parquet")
pq.write_table(pa.table({"id": [3], "l": pa.array([[1]], pa.list_(pa.int64()))}), d + "/b.parquet")
pq.write_table(pa.table({"id": [4], "s": pa.array([{"a": 7, "b": None}], st)}), d + "/c.parquet")
PYEOF
while IFS='|' read -r files where name what; do
    for fmt in count csv; do
        "$R" scan $files --where "$where" --format $fmt >"$dir/out" 2>&1
        rc=$?
        check '[ $rc = 1 ] && [ "$(cat "$dir/out")" = "ringscan: column '"'$name'"': nested columns ($what) cannot be filtered on yet" ]' \
            "a filter on nested $name ($files, $fmt): status $rc, $(head -c 300 "$dir/out")"
    done
done <<CASES
$dir/nf/a.parquet $dir/nf/a.parquet|s.a > 1|s.a|inside struct 's'
$dir/nf --union-by-name|s.a > 1|s.a|inside struct 's'
$dir/nf/b.parquet $dir/nf/c.parquet --union-by-name|id > 1 OR s.b = 'x'|s.b|inside struct 's'
$dir/nf --union-by-name|s IS NULL|s|struct
$dir/nf --union-by-name|l IS NOT NULL|l|list
CASES
# A partition named as a file column whose type differs by file, in a union by name: the
# partition replaces it, so the files' types never meet (DuckDB: k = 1, 2); it was refused
# ("column 'k' is BYTE_ARRAY/STRING in ... but INT32/NONE in ...: the types do not widen").
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1] + "/pk2"
os.makedirs(d + "/k=1"), os.makedirs(d + "/k=2")
pq.write_table(pa.table({"x": [1], "k": ["s"]}), d + "/k=1/a.parquet")
pq.write_table(pa.table({"x": [2], "k": pa.array([5], pa.int32())}), d + "/k=2/b.parquet")
PYEOF
duck=$("$PY" -c "import duckdb; print(' '.join('|'.join(str(v) for v in r) for r in duckdb.sql(\"select * from read_parquet('$dir/pk2/**/*.parquet', hive_partitioning=true, union_by_name=true) order by x\").fetchall()))")
got=$("$R" scan "$dir/pk2" --union-by-name --format csv 2>&1 | tail -n +2 | tr ',' '|' | tr '\n' ' ')
check '[ "$got" = "$duck " ] && [ "$duck" = "1|1 2|2" ]' "a partition over a column of two types: got '$got' DuckDB '$duck'"
# Files whose columns conflict (types that do not widen: binary under an integer, which DuckDB
# does not cast either; a nested field of another shape, a column a later file lacks without
# union_by_name): a query that reads only other columns
# answers, as DuckDB and pyarrow.dataset answer it; one that projects, filters on or sorts by a
# conflicting column is refused naming both files. Every such dataset was refused whole.
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1] + "/cf"
os.makedirs(d)
st = pa.struct([("a", pa.int32())])
pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()), "x": pa.array([5, 6], pa.int64()),
                         "m": [1.5, 2.5], "s": pa.array([{"a": 1}, None], st)}), d + "/a.parquet")
pq.write_table(pa.table({"id": pa.array([3], pa.int64()), "x": pa.array([b"t"], pa.binary()),
                         "s": pa.array([[1]], pa.list_(pa.int64()))}), d + "/b.parquet")
PYEOF
while IFS='|' read -r args want; do
    got=$("$R" scan "$dir/cf" $args 2>&1 | tr '\n' ' ')
    check '[[ "$got" == "$want" || ( "$want" == ringscan:* && "$got" == "ringscan: column "*"/cf/${want#ringscan: } $dir/cf/b.parquet"* ) ]]' \
        "conflicting columns ($args): got '$got', want '$want'"
done <<'CASES'
--columns id --format csv|id 1 2 3 
--columns id --union-by-name --where id>1 --format csv|id 2 3 
--format count|rows 3 
--where id<3 --format count --union-by-name|rows 2 
--columns id --order-by id --desc --limit 2 --format csv|id 3 2 
--columns id,x --format csv|ringscan: a.parquet but BYTE_ARRAY/NONE in
--columns id --where x>5 --format csv|ringscan: a.parquet but BYTE_ARRAY/NONE in
--columns id --order-by x --limit 1 --format csv|ringscan: a.parquet but BYTE_ARRAY/NONE in
--columns m --format csv|ringscan: a.parquet is missing from
--columns s --union-by-name --format csv|ringscan: a.parquet but a list in
--format csv|ringscan: a.parquet but BYTE_ARRAY/NONE in
CASES
duck=$("$PY" -c "import duckdb; print(duckdb.sql(\"select count(*), sum(id) from read_parquet('$dir/cf/*.parquet') where id > 1\").fetchall()[0])")
check '[ "$duck" = "(2, 5)" ]' "DuckDB reads id of the conflicting files: $duck"
# a file matched twice (its path, then a pattern; or given twice) is read twice, as DuckDB reads
# read_parquet([path, pattern]): the id values, the doubled file's twice
for args in "$dir/cf/a.parquet $dir/cf/*.parquet" "$dir/cf/a.parquet $dir/cf/a.parquet"; do
    got=$("$R" scan $args --columns id --format csv --union-by-name 2>&1 | tail -n +2 | sort | tr '\n' ' ')
    list=$(printf "'%s'," $args)
    duck=$("$PY" -c "import duckdb; print(' '.join(str(r[0]) for r in duckdb.sql(\"select id from read_parquet([${list%,}], union_by_name=true) order by id\").fetchall()))")
    check '[ "$got" = "$duck " ] && [ -n "$duck" ]' "a file listed twice ($args): got '$got' DuckDB '$duck'"
done
# A union by name of integer (boolean, decimal) and string columns of one name: VARCHAR, the
# values printed as DuckDB's cast prints them (signed, or unsigned for UINT32/UINT64; "true";
# "-0.05"), whichever file comes first; ORDER BY orders the text ("10" before "9": each file's rows go to the merge unsorted);
# a filter on it is refused naming the file (its comparisons there would be numeric). It was
# refused whole ("the types do not widen").
"$PY" - "$dir" <<'PYEOF'
import sys, os, pyarrow as pa, pyarrow.parquet as pq
from decimal import Decimal as D
d = sys.argv[1] + "/ut"
os.makedirs(d)
files = {"a": ([1, 2, 3, 4, 5, 6], pa.array([5, -7, 10, 9, None, 2147483647], pa.int32())),
         "b": ([7, 8, 9, 10], pa.array(["x", "100", None, ""], pa.string())),
         "c": ([11, 12], pa.array([-9223372036854775808, 1000], pa.int64())),
         "d": ([13], pa.array([4294967295], pa.uint32())), "e": ([14], pa.array([18446744073709551615], pa.uint64())),
         "f": ([15, 16], pa.array([-5, 0], pa.int8())), "g": ([17], pa.array([65535], pa.uint16())),
         "h": ([18, 19, 20], pa.array([True, False, None])),
         "i": ([21, 22, 23, 24], pa.array([D("1.50"), D("-0.05"), D("0.00"), D("-999.99")], pa.decimal128(5, 2))),
         "j": ([25, 26], pa.array([D("-1234567890123456789012345678.0123456789"), D("0E-10")], pa.decimal128(38, 10))),
         "k": ([27], pa.array([D("-7")], pa.decimal128(3, 0)))}
for name, (ids, c) in files.items():
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "c": c}), f"{d}/{name}.parquet")
PYEOF
for first in a b; do
    pats="$dir/ut/$first.parquet $dir/ut/*.parquet"
    [ "$first" = b ] && pats="$dir/ut/b.parquet $(ls "$dir"/ut/*.parquet | grep -v /b.parquet | tr '\n' ' ')"
    list=$(printf "'%s'," $pats)
    duck=$("$PY" -c "import duckdb; r = duckdb.sql(\"select typeof(c), string_agg(coalesce(c, 'NULL'), '|' order by id) from read_parquet([${list%,}], union_by_name=true) group by all\").fetchall(); print(r)")
    got=$("$R" scan $pats --union-by-name --columns id,c --format jsonl 2>&1 |
        "$PY" -c "import sys, json; print('|'.join('NULL' if r['c'] is None else r['c'] for r in sorted((json.loads(l) for l in sys.stdin), key=lambda r: r['id'])))")
    want=$("$PY" -c "import duckdb; print('|'.join('NULL' if r[0] is None else r[0] for r in duckdb.sql(\"select c from read_parquet([${list%,}], union_by_name=true) order by id\").fetchall()))")
    check '[ "$got" = "$want" ] && [[ "$duck" == *VARCHAR* ]]' "integers beside strings ($first first): got '$got' DuckDB '$want' ($duck)"
done
for ord in "c" "c desc"; do # (a's own top 3 by number, -7 5 9 or 2147483647 10 9, lacks 10 or 5)
    duck=$("$PY" -c "import duckdb; print(' '.join(str(r[0]) for r in duckdb.sql(\"select id from read_parquet(['$dir/ut/a.parquet', '$dir/ut/b.parquet'], union_by_name=true) order by $ord nulls last limit 3\").fetchall()))")
    got=$("$R" scan "$dir/ut/a.parquet" "$dir/ut/b.parquet" --union-by-name --columns id --order-by "$ord" --limit 3 --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
    check '[ "$got" = "$duck " ] && [ -n "$duck" ]' "ORDER BY $ord over integers cast to text: got '$got' DuckDB '$duck'"
done
# without union_by_name a later file's integers are cast to a first file's strings (DuckDB
# reads later files in the first's types); an integer first file is still refused
got=$("$R" scan "$dir/ut/b.parquet" "$dir/ut/c.parquet" --columns id,c --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
duck=$("$PY" -c "import duckdb; print(' '.join(f'{r[0]},{\"\" if r[1] is None else r[1] or chr(34) * 2}' for r in duckdb.sql(\"select id, c from read_parquet(['$dir/ut/b.parquet', '$dir/ut/c.parquet']) order by id\").fetchall()))")
check '[ "$got" = "$duck " ]' "integers cast to a first file's strings: got '$got' DuckDB '$duck'"
# a first file storing the strings as a dictionary: the integers' text encoded into it at
# export (a later file's dictionary indices were taken for the column's: an assertion failed)
"$PY" -c "import pyarrow as pa, pyarrow.parquet as pq, os; os.makedirs('$dir/utd'); pq.write_table(pa.table({'id': [1, 2], 'c': pa.array(['x', 'y']).dictionary_encode()}), '$dir/utd/a.parquet'); pq.write_table(pa.table({'id': [3, 4], 'c': pa.array([5, None], pa.int32())}), '$dir/utd/b.parquet')"
got=$("$R" scan "$dir/utd" --union-by-name --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
duck=$("$PY" -c "import duckdb; print(' '.join(f'{r[0]},{r[1] or \"\"}' for r in duckdb.sql(\"select id, c from read_parquet('$dir/utd/*.parquet', union_by_name=true) order by id\").fetchall()))")
check '[ "$got" = "$duck " ]' "integers beside a stored dictionary of strings: got '$got' DuckDB '$duck'"
# a filter on the integers cast to text compares the text, as DuckDB (it was refused)
for w in "c = '100'" "c > '5'" "c LIKE '1%'"; do
    got=$("$R" scan "$dir/ut" --union-by-name --where "$w" --format count 2>&1)
    duck=$("$PY" -c "import duckdb; print('rows', duckdb.sql(\"select count(*) from read_parquet('$dir/ut/*.parquet', union_by_name=true) where $w\").fetchall()[0][0])")
    check '[ "$got" = "$duck" ]' "a filter on integers cast to text, $w: got '$got' DuckDB '$duck'"
done
# an integer beside a decimal is one DECIMAL holding both in a union (DuckDB: BIGINT with
# DECIMAL(5,2) is DECIMAL(21,2); INTEGER with it DECIMAL(12,2)), not a DOUBLE rounding 2^62 + 1
mkdir -p "$dir/idec"
"$PY" -c "
import decimal, pyarrow as pa, pyarrow.parquet as pq
d = '$dir/idec'
pq.write_table(pa.table({'id': [0, 1], 'x': pa.array([2**62 + 1, None], pa.int64())}), d + '/a.parquet')
pq.write_table(pa.table({'id': [2, 3], 'x': pa.array([decimal.Decimal('1.25'), decimal.Decimal('-0.05')], pa.decimal128(5, 2))}), d + '/b.parquet')
pq.write_table(pa.table({'id': [4], 'x': pa.array([4294967295], pa.uint32())}), d + '/c.parquet')"
for pat in "[ab]" "[bc]" "[abc]"; do
    got=$("$R" scan "$dir/idec/$pat.parquet" --union-by-name --columns id,x --format csv 2>&1 | tail -n +2 | tr '\n' ' ')
    duck=$("$PY" -c "import duckdb; print(' '.join(f'{i},{\"\" if x is None else x}' for i, x in duckdb.sql(\"select id, x from read_parquet('$dir/idec/$pat.parquet', union_by_name=true) order by id\").fetchall()))")
    check '[ "$got" = "$duck " ] && [ -n "$duck" ]' "integer beside decimal ($pat): got '$got' DuckDB '$duck'"
done
# symbolic links: `**` (and a directory's listing) descend into real directories only
mkdir -p "$dir/sl/real" "$dir/sl/other"
"$PY" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'x': [1, 2, 3]}), '$dir/sl/real/a.parquet')"
ln -s real "$dir/sl/link" && ln -s . "$dir/sl/real/self" && ln -s .. "$dir/sl/real/up" &&
    ln -s ../real/a.parquet "$dir/sl/other/f.parquet"
for pat in "sl" "sl/**/*.parquet" "sl/*/a.parquet" "sl/*/*.parquet" "sl/link/*.parquet" "sl/real/self/a.parquet"; do
    got=$(timeout 60 "$R" scan "$dir/$pat" --format count 2>&1)
    duck=$("$PY" -c "import duckdb; print('rows', duckdb.sql(\"select count(*) from read_parquet('$dir/$pat')\").fetchall()[0][0])" 2>&1)
    check '[ "$got" = "$duck" ] && [ "$duck" != "rows 0" ]' "symbolic links, $pat: got '$(echo "$got" | head -c 200)' DuckDB '$(echo "$duck" | tail -n1 | head -c 200)'"
done
# a dataset file's errors: the file, offset and column, as its own scan reports them
"$PY" -c "
import pyarrow as pa, pyarrow.parquet as pq
p = '$dir/cor.parquet'
pq.write_table(pa.table({'a': list(range(1000)), 'b': ['x%d' % i for i in range(1000)]}), p, use_dictionary=False)
off = pq.ParquetFile(p).metadata.row_group(0).column(1).data_page_offset
d = bytearray(open(p, 'rb').read())
for i in range(off + 40, off + 80): d[i] ^= 0x5a
open(p, 'wb').write(d)"
cp tests/fuzz/regressions/fuzz_api/topk-keeps-no-row-leak "$dir/outside.parquet" # a chunk past the end
for f in cor outside; do
    one=$("$R" scan "$dir/$f.parquet" --format checksum 2>&1)
    two=$("$R" scan "$dir/$f.parquet" "$dir/$f.parquet" --format checksum 2>&1)
    check '[ "$one" = "$two" ] && echo "$one" | grep -q "^ringscan: .*$f.parquet: .* (offset [0-9]*, column [ab]*[mycol]*)$"' \
        "$f: a dataset's error '$two', the file's '$one'"
done
# a dataset's Top-K that keeps no row: the header, exit 0 (and no leak under the sanitizer)
for q in "--limit 0" "--limit 5 --where a<0"; do
    got=$("$R" scan "$dir/cor.parquet" "$dir/cor.parquet" --columns a --order-by a $q --format csv 2>&1)
    rc=$?
    check '[ $rc -eq 0 ] && [ "$got" = "a" ]' "a Top-K keeping no row ($q): exit $rc, '$(echo "$got" | head -c 300)'"
done
# list<null> and struct<a: null> in a dataset: each file's rows, as its own scan gives them
"$PY" -c "
import pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({'id': [1, 2], 'l': pa.array([[None], None], pa.list_(pa.null()))}), '$dir/lnull.parquet')
pq.write_table(pa.table({'id': [1, 2], 's': pa.array([{'a': None}, None], pa.struct([('a', pa.null())]))}), '$dir/snull.parquet')"
for f in lnull snull; do
    one=$("$R" scan "$dir/$f.parquet" --format jsonl 2>&1)
    two=$("$R" scan "$dir/$f.parquet" "$dir/$f.parquet" --format jsonl 2>&1)
    rc=$?
    check '[ $rc -eq 0 ] && [ "$two" = "$(printf "%s\n%s" "$one" "$one")" ] && [ "$(echo "$one" | wc -l)" -eq 2 ]' \
        "$f twice: exit $rc, '$(echo "$two" | head -c 300)' (the file alone: '$one')"
done
# ORDER BY ... LIMIT keeping an empty list<int32> widened to a first file's list<int64>
mkdir -p "$dir/nw"
"$PY" -c "
import pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({'id': [1], 'l': pa.array([[1]], pa.list_(pa.int64()))}), '$dir/nw/a.parquet')
pq.write_table(pa.table({'id': [2, 3], 'l': pa.array([[5], []], pa.list_(pa.int32()))}), '$dir/nw/b.parquet')"
for u in "" --union-by-name; do
    got=$("$R" scan "$dir/nw" $u --order-by "id DESC" --limit 1 --format jsonl 2>&1)
    rc=$?
    check '[ $rc -eq 0 ] && [ "$got" = "{\"id\":3,\"l\":[]}" ]' "a Top-K keeping an empty widened list ($u): exit $rc, '$(echo "$got" | head -c 300)'"
done
# A file whose name holds pattern characters, named as it is: that file, alone or beside
# another path ("[x].parquet" was a pattern matching only "x.parquet": "no file matches").
mkdir -p "$dir/brk"
"$R" gen demo-types --rows 30 -o "$dir/brk/[x].parquet" >/dev/null
"$R" gen demo-types --rows 40 -o "$dir/brk/plain.parquet" >/dev/null
for args in "$dir/brk/[x].parquet|30" "$dir/brk/[x].parquet $dir/brk/plain.parquet|70"; do
    read -r -a ps <<<"${args%|*}"
    got=$("$R" scan "${ps[@]}" --format count 2>&1)
    check '[ "$got" = "rows ${args#*|}" ]' "scan ${args%|*}: '$(echo "$got" | head -c 300)', want ${args#*|} rows"
done
got=$("$R" meta "$dir/brk/[x].parquet" 2>&1 | sed -n 's/^rows: //p')
check '[ "$got" = 30 ]' "meta $dir/brk/[x].parquet: rows '$got', want 30"
# A name that is a file's and also a pattern matching others (issue 23): read as DuckDB 2.0.1
# reads it, the pattern's matches (the file itself among them only when the pattern matches
# its name: `x*` matches "x*"), the file named as it is only when the pattern matches nothing
# (above); `[[]` and `[*]` name such a file alone. Before, the file named as it is was read
# alone whenever it existed. Counts compared with DuckDB's over the same names.
mkdir -p "$dir/lit"
for nr in 'a[1]:10' 'a1:20' 'x*:30' 'x1:40' 'q?:50' 'qa:60'; do
    "$R" gen demo-types --rows "${nr#*:}" -o "$dir/lit/${nr%:*}.parquet" >/dev/null
done
for p in 'a[1]' 'x*' 'q?' 'a[[]1]' 'x[*]' 'q[?]'; do
    want=$("$PY" -c "import duckdb, sys; print(duckdb.sql(\"select count(*) from read_parquet('$dir/lit/$p.parquet')\").fetchall()[0][0])")
    got=$("$R" scan "$dir/lit/$p.parquet" --format count 2>&1)
    check '[ "$got" = "rows $want" ]' "lit/$p.parquet: '$(echo "$got" | head -c 300)', want rows $want (DuckDB's)"
done
got=$("$R" scan "$dir/lit/x*.parquet" --format csv --columns req_i64 2>&1 | tail -n +2 | wc -l)
check '[ "$got" = 70 ]' "scan lit/x*.parquet (a dataset of x* and x1): $got rows printed, want 70"
# A pattern ending in '/' names directories: no file matches, as in DuckDB (it read the
# files beside the directories, `tsl/ * /` taken for `tsl/ *`); a directory ending in '/' is
# still every *.parquet below it.
mkdir -p "$dir/tsl/sub"
"$R" gen demo-types --rows 3 -o "$dir/tsl/top.parquet" >/dev/null
"$R" gen demo-types --rows 4 -o "$dir/tsl/sub/f.parquet" >/dev/null
for p in '*/' '**/' 's*/'; do
    got=$("$R" scan "$dir/tsl/$p" --format count 2>&1); rc=$?
    check '[ $rc -eq 1 ] && [ "$got" = "ringscan: $dir/tsl/$p: no file matches (a pattern ending in '"'/'"' names directories; name their files, e.g. '"'$dir/tsl/$p*.parquet'"')" ]' \
        "tsl/$p: exit $rc, '$(echo "$got" | head -c 300)'"
done
got=$("$R" scan "$dir/tsl/" --format count 2>&1)
check '[ "$got" = "rows 7" ]' "tsl/: '$got', want rows 7"
# A directory with a second '=' is no partition (DuckDB's parser drops it: "s=x=y" gave a
# column s of 'x=y'); "s=" is one, an empty string, as DuckDB reads it.
mkdir -p "$dir/eq/s=x=y/t=1" "$dir/eq2/s="
"$R" gen demo-types --rows 3 -o "$dir/eq/s=x=y/t=1/f.parquet" >/dev/null
"$R" gen demo-types --rows 3 -o "$dir/eq2/s=/f.parquet" >/dev/null
got=$("$R" scan "$dir/eq" --format csv --limit 1 2>&1 | head -1 | tr ',' '\n' | tail -2 | tr '\n' ' ')
check '[ "$got" = "req_i64 t " ]' "partition columns of $dir/eq: last two header names '$got', want 'req_i64 t' (no s)"
got=$("$R" scan "$dir/eq2" --columns s --format csv --limit 1 2>&1 | tr '\n' ' ')
check '[ "$got" = "s \"\" " ]' "partition s= of $dir/eq2: '$got', want an empty string"
# A listing is bounded in directories read (2 * max_files + 1024), so a link loop a `*`
# component names ends with an error naming the pattern (loop/*/.../*.parquet, 44 levels,
# loop/self -> . and loop/up -> ../loop: 2^44 directories, ran for hours); consecutive `**`s
# are one (6 of them over a 30-level tree walked one file 1.9 million ways: "more than
# 100000 files"), and the short patterns read what DuckDB's glob reads.
mkdir -p "$dir/loop"
"$R" gen demo-types --rows 3 -o "$dir/loop/a.parquet" >/dev/null
ln -s . "$dir/loop/self"; ln -s ../loop "$dir/loop/up"
pat=$dir/loop; for _ in $(seq 44); do pat=$pat/*; done
got=$(timeout 300 "$R" scan "$pat/*.parquet" --format count 2>&1); rc=$?
check '[ $rc -eq 1 ] && [[ "$got" == "ringscan: $dir/loop/*/*"*": more than 201024 directories read (a symbolic link loop, or \`**\`s that reach the same directories many ways?)" ]]' \
    "a 44-level pattern through a link loop: exit $rc, '$(echo "$got" | head -c 300)'"
got=$("$R" scan "$dir/loop/*/*.parquet" --format count 2>&1)
check '[ "$got" = "rows 6" ]' "loop/*/*.parquet: '$got', want 6 rows (self/a, up/a, as DuckDB's glob)"
deep=$dir/deep; for i in $(seq 30); do deep=$deep/d$i; done
mkdir -p "$deep"
"$R" gen demo-types --rows 3 -o "$deep/a.parquet" >/dev/null
got=$(timeout 300 "$R" scan "$dir/deep/**/**/**/**/**/**/*.parquet" --format count 2>&1); rc=$?
check '[ $rc -eq 0 ] && [ "$got" = "rows 3" ]' "deep/**/**/**/**/**/**/*.parquet: exit $rc, '$(echo "$got" | head -c 300)', want 3 rows"
summary adversarial_dataset
