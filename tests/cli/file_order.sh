#!/usr/bin/env bash
# tests/cli/file_order.sh: `ringscan scan` prints rows in file order by default (issue 25: the
# same --limit gave different rows from run to run), as DuckDB and pyarrow do, on 1 and 2
# threads and through a simulated object store (whose read-ahead finishes splits out of
# order); --unordered gives the same rows as a set; --ordered stays accepted.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "file_order: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
f=$dir/li.parquet
"$R" gen lineitem --sf 0.02 --row-group-rows 5000 -o "$f" >/dev/null || bad "gen"
# file order: l_orderkey never decreases, l_linenumber restarts at 1 with each order
in_order() { awk -F, 'NR > 1 { if ($1 < k || ($1 == k && $2 <= l)) bad = 1; k = $1; l = $2 } END { exit bad }' "$1"; }
for th in 1 2; do
    for store in "" sim:ttfb=2ms,bw=1000MB/s,seed=4; do
        args=(--columns l_orderkey,l_linenumber --where "l_quantity < 10" --threads "$th" --format csv)
        [ -n "$store" ] && args+=(--store "$store")
        "$R" scan "$f" "${args[@]}" >"$dir/a" || bad "scan ${args[*]} failed"
        check 'in_order "$dir/a"' "default output not in file order (threads $th, store '$store')"
        "$R" scan "$f" "${args[@]}" --ordered >"$dir/b"
        check 'cmp -s "$dir/a" "$dir/b"' "--ordered differs from the default (threads $th)"
        "$R" scan "$f" "${args[@]}" --unordered >"$dir/c"
        check '[ "$(sort "$dir/a" | md5sum)" = "$(sort "$dir/c" | md5sum)" ]' \
            "--unordered gives other rows (threads $th, store '$store')"
    done
done
# the same --limit, five times: the first rows of the file every time
"$R" scan "$f" --columns l_orderkey,l_linenumber --format csv | head -n 4 >"$dir/want"
for i in 1 2 3 4 5; do
    "$R" scan "$f" --columns l_orderkey,l_linenumber --limit 3 --format csv >"$dir/got"
    check 'cmp -s "$dir/want" "$dir/got"' "--limit 3 run $i: $(tr '\n' ' ' <"$dir/got")"
done
summary file_order
