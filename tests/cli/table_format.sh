#!/usr/bin/env bash
# tests/cli/table_format.sh: `ringscan scan --format table` (the default) for people (issue 25,
# cli/table.c): NULL apart from an empty string, newlines, tabs and backslashes escaped so a
# row is one line, columns aligned by display width (an emoji counts 2) with numbers to the
# right, widths from the first 1000 rows and the same row order as the other formats; cells
# that are all empty strings.
# Exact output. Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "table_format: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
f=$dir/d6.parquet
"$R" gen demo-types --rows 6 --seed 2 -o "$f" >/dev/null || bad "gen"
# same_as NAME CMD...: stdout equals $dir/want, exit 0
same_as() {
    local name=$1; shift
    "$@" >"$dir/got" 2>"$dir/err"; local rc=$?
    if [ $rc -ne 0 ]; then bad "$name: exit $rc: $(head -c 300 "$dir/err")"
    elif ! cmp -s "$dir/got" "$dir/want"; then bad "$name: output differs:"; diff "$dir/want" "$dir/got" | head -n 20
    else ok; fi
}
cat >"$dir/want" <<'T'
  i8 | str        |                f64 | date       |                dec64
NULL | NULL       |                0.0 | 1920-01-09 | -33158225602210.4372
 -48 | €é"😀/😀Zb |  195.6100207818672 | NULL       |  72564278404121.8260
  81 | €bZ€€      |               -0.0 | 1981-06-09 | -83972027477895.1182
 -60 | é😀Z       |  3.511879132965987 | 1921-10-10 |  71174755874575.1588
  44 | €          | 17355680.865966797 | 1967-04-20 |   2181461369109.9891
NULL | \taé Zé\\  |               NULL | 1947-04-13 | -65914420702688.7588
T
same_as "numbers, strings, dates" "$R" scan "$f" --ordered --columns i8,str,f64,date,dec64
cat >"$dir/want" <<'T'
bool  |                  u64 | bin          | flba     |     f16 | time_ms      | ts_us                      |                     dec_ba | i96
false |                 NULL | NULL         | NULL     |  -148.8 | 07:01:50.006 | 1905-06-03T15:41:33.098376 | -5271948710632605315.89411 | 2046-05-08T00:24:44.628678000
true  |  1871305412126710095 | awQ=         | c44rJw== |   1.009 | 20:51:34.539 | NULL                       |  1187031966994897212.34974 | 2098-01-17T06:17:47.895120000
true  |  2353472270222335880 | TQ==         | D2isXw== |  -2.596 | NULL         | 1925-06-12T22:30:31.222594 |  1031008171043803571.78403 | 1947-04-17T21:18:29.451920000
false |  6078865806811258726 | YfEHE1b0DG8= | FwLCyg== |   1.616 | 21:41:38.520 | 1912-03-20T05:53:17.260017 |  1467172223037834532.42267 | NULL
NULL  | 12814392904050457164 | ZJ7IYw==     | jHd/jA== | 0.01528 | 07:46:13.838 | 1900-08-17T08:13:34.617813 | -6816135281312677586.74191 | 2082-06-09T15:20:05.758082000
false | 17715805394778780776 | RVWuVtDv/Uw= | iwGovw== |  4508.0 | 03:41:35.720 | 1885-04-10T03:19:07.466921 |  2539218019395881267.12093 | 2006-05-17T17:11:13.131216000
T
same_as "booleans, binary, times" "$R" scan "$f" --ordered --columns bool,u64,bin,flba,f16,time_ms,ts_us,dec_ba,i96
printf 'i8 | str\n' >"$dir/want"
same_as "no rows: the header" "$R" scan "$f" --limit 0 --columns i8,str
# an empty string as the first cell held (the sample's buffer was still NULL: memcpy to NULL
# with 0 bytes, a UBSan trap, exit 132), alone and before another column, and empty binary
e=$dir/e.parquet
"$R" gen demo-types --rows 40 --seed 1 -o "$e" >/dev/null || bad "gen e"
printf 'str\n\n\n\n' >"$dir/want"
same_as "empty strings only" "$R" scan "$e" --ordered --columns str --where "str = ''"
printf 'str |  i8\n    |  84\n    | -78\n    | -38\n' >"$dir/want"
same_as "an empty string first" "$R" scan "$e" --ordered --columns str,i8 --where "str = ''"
printf 'bin\n\n' >"$dir/want"
same_as "empty binary" "$R" scan "$e" --ordered --columns bin --where "bin = ''"
# many rows: the first 1000 (the sample) share one width; the order is the CSV's
g=$dir/big.parquet
"$R" gen demo-types --rows 2500 --seed 5 --row-group-rows 700 -o "$g" >/dev/null || bad "gen big"
"$R" scan "$g" --ordered --columns req_i64 >"$dir/t" || bad "scan big"
check '[ "$(wc -l <"$dir/t")" -eq 2501 ]' "big: $(wc -l <"$dir/t") lines, want 2501"
widths=$(head -n 1001 "$dir/t" | awk '{ print length($0) }' | sort -u | wc -l)
check '[ "$widths" -eq 1 ]' "big: the first 1001 lines have $widths widths, want 1"
"$R" scan "$g" --ordered --columns req_i64 --format csv | tail -n +2 >"$dir/c"
tail -n +2 "$dir/t" | sed -E 's/^ +//' >"$dir/t2"
check 'cmp -s "$dir/c" "$dir/t2"' "big: table rows differ from the CSV's"
# NULL against the empty string, and escapes, need strings pyarrow writes (skipped without it)
if py=$(scripts/pyenv.sh 2>/dev/null | tail -n1) && [ -x "$py" ]; then
    "$py" - "$dir/s.parquet" <<'P'
import sys, pyarrow as pa, pyarrow.parquet as pq
v = ["", None, "NULL", "a\nb", "c\r\nd", "tab\there", "back\\slash", "bell\x07", "中文", " pad ",
     "x" * 2000, "\u00e9" * 600, "a" + "\u00e9" * 600, "csi\u009b2J", "line\u2028sep\u2029",
     "\u00a0nbsp\u2027"]
pq.write_table(pa.table({"n": pa.array(range(len(v)), pa.int8()), "s": pa.array(v, pa.string())}), sys.argv[1])
P
    cat >"$dir/want" <<'T'
n | s
0 | 
1 | NULL
2 | NULL
3 | a\nb
4 | c\r\nd
5 | tab\there
6 | back\\slash
7 | bell\x07
8 | 中文
9 |  pad 
T
    { printf '10 | %s...\n' "$(printf 'x%.0s' $(seq 1024))"; printf '11 | %s...\n' "$(printf '\xc3\xa9%.0s' $(seq 512))"
      printf '12 | a%s...\n' "$(printf '\xc3\xa9%.0s' $(seq 511))"
      # a C1 control (U+009B starts a terminal's escape sequence) and the line separators are
      # escaped (they went out as they were); U+00A0 and U+2027 are printable and stay
      printf '13 | csi\\u009b2J\n14 | line\\u2028sep\\u2029\n15 | \xc2\xa0nbsp\xe2\x80\xa7\n'; } >>"$dir/want"
    sed -i -E 's/^([0-9]) \|/ \1 |/; s/^n \|/ n |/' "$dir/want"
    same_as "empty, NULL, escapes, long cells cut" "$R" scan "$dir/s.parquet" --ordered
else
    echo "table_format: the pyarrow part skipped: scripts/pyenv.sh failed"
fi
summary table_format
