#!/usr/bin/env bash
# tests/cli/numeric_opts.sh: every numeric option of every command is parsed whole (cli/opts.c
# invariant 1): an empty value, trailing text, a fraction where a whole number is due, an
# overflow or a value outside the range exits 2 with the exact message naming the option and
# the value, and prints nothing on stdout; good values still work. A missing value is named
# with the value's name, a choice's with its choices ("--format needs a value (table|...)").
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "numeric_opts: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
f=$dir/d.parquet
"$R" gen demo-types --rows 50 -o "$f" >/dev/null || bad "gen"
I64=9223372036854775807
usage_is "ringscan: scan: --limit: 'abc' is not a whole number" "$R" scan "$f" --limit abc
usage_is "ringscan: scan: --limit: '10x' is not a whole number" "$R" scan "$f" --limit 10x
usage_is "ringscan: scan: --limit: '1.5' is not a whole number" "$R" scan "$f" --limit 1.5
usage_is "ringscan: scan: --limit: '' is not a whole number" "$R" scan "$f" --limit ''
usage_is "ringscan: scan: --limit: ' 5' is not a whole number" "$R" scan "$f" --limit ' 5'
usage_is "ringscan: scan: --limit: '+5' is not a whole number" "$R" scan "$f" --limit +5
usage_is "ringscan: scan: --limit: '-1' is out of range (0 to $I64)" "$R" scan "$f" --limit -1
usage_is "ringscan: scan: --limit: '99999999999999999999' is out of range (0 to $I64)" \
    "$R" scan "$f" --limit 99999999999999999999
usage_is "ringscan: scan: --limit needs a value (N)" "$R" scan "$f" --limit
# a choice's missing value names the choices (it said "(null)": the choice has no value name)
usage_is "ringscan: scan: --format needs a value (table|csv|jsonl|checksum|count|rows)" "$R" scan "$f" --format
usage_is "ringscan: scan: --io needs a value (auto|uring|pread)" "$R" scan "$f" --io
usage_is "ringscan: scan: --threads: 'abc' is not a whole number" "$R" scan "$f" --threads abc
usage_is "ringscan: scan: --threads: '0' is out of range (1 to 256)" "$R" scan "$f" --threads 0
usage_is "ringscan: scan: --threads: '257' is out of range (1 to 256)" "$R" scan "$f" --threads 257
usage_is "ringscan: scan: --split-rows: '-3' is out of range (0 to $I64)" "$R" scan "$f" --split-rows -3
usage_is "ringscan: scan: --split-rows: '2e3' is not a whole number" "$R" scan "$f" --split-rows 2e3
usage_is "ringscan: scan: --fetch-budget: '1.5MiB' is not a byte count (N, or N with B, KiB, MiB, GiB, TiB)" \
    "$R" scan "$f" --fetch-budget 1.5MiB
usage_is "ringscan: scan: --fetch-budget: '10MB' is not a byte count (N, or N with B, KiB, MiB, GiB, TiB)" \
    "$R" scan "$f" --fetch-budget 10MB
usage_is "ringscan: scan: --fetch-budget: '9999999999TiB' is out of range (0 to $I64)" \
    "$R" scan "$f" --fetch-budget 9999999999TiB
# the other commands' numbers, through the same parser
G="ringscan: gen:"
usage_is "$G --rows: '5x' is not a whole number" "$R" gen demo-types --rows 5x -o "$dir/g.parquet"
usage_is "$G --rows: '-1' is out of range (0 to 2147483647)" "$R" gen demo-types --rows -1 -o "$dir/g.parquet"
usage_is "$G --sf: 'abc' is not a number" "$R" gen lineitem --sf abc -o "$dir/g.parquet"
usage_is "$G --sf: 'nan' is not a number" "$R" gen lineitem --sf nan -o "$dir/g.parquet"
usage_is "$G --sf: '1e9' is out of range (above 0, at most 100000)" "$R" gen lineitem --sf 1e9 -o "$dir/g.parquet"
usage_is "$G --sf: '0' is out of range (above 0, at most 100000)" "$R" gen lineitem --sf 0 -o "$dir/g.parquet"
usage_is "$G --seed: '1.0' is not a whole number" "$R" gen demo-types --seed 1.0 -o "$dir/g.parquet"
usage_is "$G --threads: '65' is out of range (1 to 64)" "$R" gen lineitem --sf 0.01 --threads 65 -o "$dir/g.parquet"
usage_is "$G --row-group-rows: '0' is out of range (1 to 2147483647)" "$R" gen demo-types --row-group-rows 0 -o "$dir/g.parquet"
usage_is "$G --page-rows: '16777217' is out of range (1 to 16777216)" "$R" gen demo-types --page-rows 16777217 -o "$dir/g.parquet"
check '[ ! -e "$dir/g.parquet" ]' "a refused gen wrote its file"
B="ringscan: bench:"
usage_is "$B --rounds: '0' is out of range (1 to 1000)" "$R" bench --rounds 0
usage_is "$B --rounds: 'x' is not a whole number" "$R" bench --rounds x
usage_is "$B --threads: '3 ' is not a whole number" "$R" bench --threads '3 '
usage_is "$B --seed: '-1' is out of range (0 to 1073741824)" "$R" bench --seed -1
usage_is "$B --sf: '2000' is out of range (above 0, at most 1000)" "$R" bench --sf 2000
usage_is "$B --fetch-budget: '-1' is not a byte count (N, or N with B, KiB, MiB, GiB, TiB)" "$R" bench --fetch-budget -1
usage_is "ringscan: bench runtime: --rounds: '101' is out of range (1 to 100)" "$R" bench runtime --rounds 101
usage_is "ringscan: meta: --fetch-budget: 'lots' is not a byte count (N, or N with B, KiB, MiB, GiB, TiB)" \
    "$R" meta "$f" --fetch-budget lots
# good values: the row counts they promise
rows=$("$R" scan "$f" --limit 7 --threads 3 --format checksum | sed -E 's/rows ([0-9]+) .*/\1/')
check '[ "$rows" = 7 ]' "--limit 7: $rows rows"
rows=$("$R" scan "$f" --limit=0 --format checksum | sed -E 's/rows ([0-9]+) .*/\1/')
check '[ "$rows" = 0 ]' "--limit=0: $rows rows"
rows=$("$R" scan "$f" --fetch-budget 1MiB --split-rows 0 --format checksum | sed -E 's/rows ([0-9]+) .*/\1/')
check '[ "$rows" = 50 ]' "--fetch-budget 1MiB: $rows rows"
# the largest split sizes: no row group is cut (twice the size overflowed an int64 in
# scan/plan_index.c any_cut: a UBSan trap, exit 132)
for n in 4611686018427387904 $I64; do
    rows=$("$R" scan "$f" --split-rows $n --threads 1 --format checksum | sed -E 's/rows ([0-9]+) .*/\1/')
    check '[ "$rows" = 50 ]' "--split-rows $n: '$rows' rows"
    # a dataset's ORDER BY ... LIMIT K that large keeps every row (4K + 4096 overflowed in
    # scan/ds_topk.c: exit 132)
    rows=$("$R" scan "$f" "$f" --order-by i64 --limit $n --format checksum | sed -E 's/rows ([0-9]+) .*/\1/')
    check '[ "$rows" = 100 ]' "a dataset's --order-by --limit $n: '$rows' rows"
done
summary numeric_opts
