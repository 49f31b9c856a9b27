#!/usr/bin/env bash
# tests/cli/usage_errors.sh: what a mistyped command line is told (issue 25): an unknown
# option, value, command or data set is named with the nearest valid one; an unknown column
# (in --columns or --where) gets the nearest column names; --columns "a, b" ignores the spaces
# around names; an empty name is refused; a filter error shows a caret under its place; the
# file's path is printed once in an error.
# Exact messages; usage errors exit 2, errors about the file exit 1.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "usage_errors: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
# fails_with STATUS MESSAGE CMD...: that exit status, first stderr line MESSAGE, no stdout
fails_with() {
    local want_rc=$1 want=$2; shift 2
    "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
    local got; got=$(head -n1 "$dir/err")
    if [ "$rc" -ne "$want_rc" ]; then bad "$*: exit $rc, want $want_rc ($got)"
    elif [ "$got" != "$want" ]; then bad "$*: stderr '$got', want '$want'"
    elif [ -s "$dir/out" ]; then bad "$*: wrote to stdout: $(head -c 200 "$dir/out")"
    else ok; fi
}
f=$dir/d.parquet
"$R" gen demo-types --rows 20 -o "$f" >/dev/null || bad "gen"
S="ringscan: scan:"
fails_with 2 "$S unknown option '--colums' (did you mean --columns?)" "$R" scan "$f" --colums i32
fails_with 2 "$S unknown option '--limt' (did you mean --limit?)" "$R" scan "$f" --limt 3
fails_with 2 "$S unknown option '--frobnicate'" "$R" scan "$f" --frobnicate
fails_with 2 "$S unknown option '-x'" "$R" scan "$f" -x
fails_with 2 "$S --format: unknown value 'jsonn' (did you mean jsonl?); one of table, csv, jsonl, checksum, count, rows" \
    "$R" scan "$f" --format jsonn
fails_with 2 "$S --format: unknown value 'xml'; one of table, csv, jsonl, checksum, count, rows" "$R" scan "$f" --format xml
fails_with 2 "$S --policy: unknown value 'eagr' (did you mean eager?); one of lazy, eager, adaptive" \
    "$R" scan "$f" --policy eagr
fails_with 2 "$S --ordered takes no value (got 'yes')" "$R" scan "$f" --ordered=yes
# a flag with a form that takes a value names it (--stats=xml said only "takes no value")
fails_with 2 "$S --stats takes no value (got 'xml'); --stats=json is one form with a value" \
    "$R" scan "$f" --stats=xml
# a second --where replaced the first: rows it should have dropped were printed
fails_with 2 "$S --where given twice; join the conditions with AND in one --where" \
    "$R" scan "$f" --where "i32 > 0" --where "i32 < 5"
# a second --columns or --order-by replaced the first: its columns or sort keys were dropped
fails_with 2 "$S --columns given twice; list them in one, separated by commas" \
    "$R" scan "$f" --columns i32 --columns i64
fails_with 2 "$S --order-by given twice; list them in one, separated by commas" \
    "$R" scan "$f" --order-by i32 --order-by i64 --limit 2
# one rule for every command (cli/opts.c invariant 5): a list given twice is refused (a second
# --hive-types, --dictionary-columns, gen --bloom or bench --shapes replaced the first's
# names), a single value takes the last (as curl and the DuckDB CLI)
fails_with 2 "$S --dictionary-columns given twice; list them in one, separated by commas" \
    "$R" scan "$f" --dictionary-columns str --dictionary-columns bin
fails_with 2 "$S --hive-types given twice; list them in one, separated by commas" \
    "$R" scan "$f" --hive-types a:BIGINT --hive-types b:DATE
fails_with 2 "ringscan: meta: --hive-types given twice; list them in one, separated by commas" \
    "$R" meta "$f" --hive-types a:BIGINT --hive-types b:DATE
fails_with 2 "ringscan: gen: --bloom given twice; list them in one, separated by commas" \
    "$R" gen lineitem -o "$dir/never.parquet" --bloom l_orderkey --bloom l_partkey --sf 0
fails_with 2 "ringscan: bench: --shapes given twice; list them in one, separated by commas" \
    "$R" bench --shapes lineitem_filter_only --shapes lineitem_prune --sf 0 # (--sf 0: never a run)
got=$("$R" scan "$f" --format csv --format jsonl --limit 5 --limit 2 --columns i32 2>&1)
check '[ "$(echo "$got" | wc -l)" = 2 ] && [ "${got:0:7}" = "{\"i32\":" ]' \
    "--format csv --format jsonl --limit 5 --limit 2: the last of each, got '$(echo "$got" | head -c 200)'"
# --desc without keys to sort was ignored: the rows came in file order, not descending
fails_with 2 "$S --desc sorts the --order-by keys; no --order-by given" "$R" scan "$f" --desc --limit 3
# a second path makes a dataset (issue 23): a missing one is the dataset's error, named
fails_with 1 "ringscan: extra: no such file or directory" "$R" scan "$f" extra
fails_with 2 "$S missing FILE... [options]" "$R" scan
# the second line of a usage error points at the help
"$R" scan "$f" --colums i32 2>"$dir/err"
check '[ "$(sed -n 2p "$dir/err")" = "usage: ringscan scan FILE... [options] (ringscan scan --help lists the options)" ]' \
    "usage error's second line: $(sed -n 2p "$dir/err")"
fails_with 2 "ringscan: meta: unknown option '--jsn' (did you mean --json?)" "$R" meta "$f" --jsn
fails_with 2 "ringscan: gen: unknown option '--compresion' (did you mean --compression?)" \
    "$R" gen demo-types --compresion zstd -o "$dir/g.parquet"
fails_with 2 "ringscan: gen: --compression: unknown value 'zstdd' (did you mean zstd?); one of zstd, snappy, gzip, lz4, none, lz4_raw, uncompressed" \
    "$R" gen demo-types --compression zstdd -o "$dir/g.parquet"
fails_with 2 "ringscan: gen: unknown data set 'lineitm' (did you mean lineitem?); one of lineitem, demo-types, topk" \
    "$R" gen lineitm --sf 1 -o "$dir/g.parquet"
fails_with 2 "ringscan: gen: --sf is for lineitem (demo-types' size is --rows)" \
    "$R" gen demo-types --sf 1 -o "$dir/g.parquet"
fails_with 2 "ringscan: bench: unknown option '--round' (did you mean --rounds?)" "$R" bench --round 3
fails_with 2 "ringscan: bench: --shapes: no shape 'lineitem_prun' (did you mean lineitem_prune?)" \
    "$R" bench --shapes lineitem_prun
fails_with 2 "ringscan: bench: --chart: 'out.jpg' is neither FILE.png nor FILE.svg" "$R" bench --chart out.jpg
fails_with 2 "ringscan: unknown command 'scna' (did you mean scan?)" "$R" scna "$f"
fails_with 2 "ringscan: unknown command 'mta' (did you mean meta?)" "$R" mta "$f"
fails_with 2 "ringscan: unknown command 'frob'" "$R" frob
# a file named where the command goes: the command left out (it said only "unknown command")
fails_with 2 "ringscan: unknown command '$f' (did you mean ringscan scan $f?)" "$R" "$f"
# a choice in any case, as SQL's keywords: --format CSV was "unknown value 'CSV'"
got=$("$R" scan "$f" --format CSV --columns i32 --limit 1 2>&1 | head -n 1)
check '[ "$got" = "i32" ]' "--format CSV: $got"
fails_with 2 "ringscan: unknown command 'hlep' (did you mean help?)" "$R" hlep
fails_with 2 "ringscan: unknown command 'scn' (did you mean scan?)" "$R" help scn
fails_with 2 "ringscan: serve: unexpected argument 'x'" "$R" serve x
# columns: the nearest names, trimmed names, empty names
P="ringscan: $f:"
fails_with 1 "$P no column named 'i33' (did you mean i32?)" "$R" scan "$f" --columns i33
fails_with 1 "$P no column named 'x64' (did you mean i64, u64, f64?)" "$R" scan "$f" --columns i32,x64
# a flat column "a.b" beside struct a's leaf a.b: the name offered once (it was "a.b, a.b")
need_pyenv usage_errors
if "$PY" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'a.b': [1], 'a': pa.array([{'b': 2}])}), '$dir/dot.parquet')" 2>"$dir/py.err"; then
    fails_with 1 "ringscan: $dir/dot.parquet: no column named 'a.c' (did you mean a.b?)" "$R" scan "$dir/dot.parquet" --columns a.c
    # a "quoted" name as SQL quotes it: one holding a comma could not be asked for
    "$PY" -c "import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'Revenue, USD': [1], 'q\"t': [2], 'x': [3]}), '$dir/comma.parquet')"
    got=$("$R" scan "$dir/comma.parquet" --columns ' "Revenue, USD" , x,"q""t"' --format csv 2>&1 | tr '\n' ' ')
    check '[ "$got" = "\"Revenue, USD\",x,\"q\"\"t\" 1,3,2 " ]' "--columns with quoted names: $got"
    fails_with 1 "ringscan: $dir/comma.parquet: --columns: a \"quoted\" name not closed, or not followed by ',', in '\"Revenue, USD\"x'" \
        "$R" scan "$dir/comma.parquet" --columns '"Revenue, USD"x'
else bad "pyarrow could not write dot.parquet: $(tail -n 2 "$dir/py.err")"; fi
fails_with 1 "$P no column named 'qqqq'" "$R" scan "$f" --columns qqqq
fails_with 1 "$P --columns: an empty name in 'i32,,i64'" "$R" scan "$f" --columns i32,,i64
fails_with 1 "$P --columns: an empty name in ''" "$R" scan "$f" --columns ''
fails_with 1 "$P unknown column 'i3' at character 1 (offset 1) (did you mean i8, i32?)" \
    "$R" scan "$f" --where "i3 > 4"
# a filter error shows the filter with a caret under the place (display width: é is 1 column)
"$R" scan "$f" --where "str = 'é' AND i3 = 3" >/dev/null 2>"$dir/err"; rc=$?
printf '%s\n' "$P unknown column 'i3' at character 16 (offset 16) (did you mean i8, i32?)" \
    "    str = 'é' AND i3 = 3" "                  ^" >"$dir/want"
check '[ $rc -eq 1 ] && cmp -s "$dir/err" "$dir/want"' "filter caret: exit $rc: $(cat "$dir/err")"
"$R" scan "$f" --where "i32 > 5 AND" >/dev/null 2>"$dir/err"
printf '%s\n' "$P expected column name at character 12 (offset 12)" "    i32 > 5 AND" \
    "               ^" >"$dir/want"
check 'cmp -s "$dir/err" "$dir/want"' "filter caret at the end: $(cat "$dir/err")"
# a name in another case is the column (SQL's identifiers, DuckDB's): its own spelling printed
a=$("$R" scan "$f" --columns I32,I64 --where "I32 > 0 OR i64 < 0" --ordered --format csv)
b=$("$R" scan "$f" --columns i32,i64 --where "i32 > 0 OR i64 < 0" --ordered --format csv)
check '[ -n "$a" ] && [ "$a" = "$b" ]' "--columns I32,I64 differs from i32,i64"
a=$("$R" scan "$f" --columns "i32 , i64" --ordered --format csv)
b=$("$R" scan "$f" --columns i32,i64 --ordered --format csv)
check '[ -n "$a" ] && [ "$a" = "$b" ]' "--columns 'i32 , i64' differs from i32,i64"
# the path once (io/io_file.c's message already names it; scan/pqfile.c io_fail drops the copy)
fails_with 1 "ringscan: $dir/nosuch.parquet: cannot open: No such file or directory" "$R" scan "$dir/nosuch.parquet"
fails_with 1 "ringscan: $dir/nosuch.parquet: cannot open: No such file or directory" "$R" meta "$dir/nosuch.parquet"
# a directory scans its *.parquet as one dataset (issue 23); one without any is an error
mkdir -p "$dir/empty"
fails_with 1 "ringscan: $dir/empty: no file matches" "$R" scan "$dir/empty"
(cd "$dir" && "$R" scan nosuch.parquet --store sim:ttfb=1ms >out 2>err); rc=$?
check '[ $rc -eq 1 ] && [ "$(cat "$dir/err")" = "ringscan: nosuch.parquet: cannot open: No such file or directory" ]' \
    "relative path through --store: exit $rc: $(cat "$dir/err")"
summary usage_errors
