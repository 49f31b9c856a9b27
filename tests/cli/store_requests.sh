#!/usr/bin/env bash
# tests/cli/store_requests.sh: request counts and bytes on the simulated store (issue 20), from
# `scan --stats` (store_requests, store_bytes), rows and checksums equal to the local scan's.
#  - A merged request is capped at one round trip of transfer on a connection (ttfb x the
#    seeded per-connection bandwidth, io_cost_max): at ttfb=1ms and 100 MB/s a connection
#    (100 KB) a scan of every column issues requests of 200 KB or less on average (only a
#    column chunk above the cap goes alone); with Arrow's 9 x gap cap it averaged ~700 KB.
#  - adaptive on a remote store takes a conjunct the statistics cannot price (a string
#    equality) as a coin flip, not as certain to kill the split: the chain is speculated, so
#    the scan issues no more requests than the file has row groups, plus its footer (it issued
#    two per row group when each split waited for l_shipmode's outcome before its other columns).
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "store_requests: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
f=$dir/li.parquet
"$R" gen lineitem --sf 0.05 --row-group-rows 30000 -o "$f" >/dev/null || bad "gen"
field() { grep -oE "$1 [0-9]+" "$2" | head -1 | cut -d' ' -f2; }
plain=$("$R" scan "$f" --format checksum)
for b in 0 256MiB; do
    out=$("$R" scan "$f" --format checksum --store sim:ttfb=1ms,bw=500MB/s --fetch-budget $b \
        --stats 2>"$dir/err")
    n=$(field store_requests "$dir/err"); bytes=$(field store_bytes "$dir/err")
    check '[ "$out" = "$plain" ]' "every column, budget $b: '$out', want '$plain'"
    check '[ -n "$n" ] && [ "$n" -gt 0 ] && [ $((bytes / n)) -le 200000 ]' \
        "every column, budget $b: $n requests for $bytes bytes ($((bytes / ${n:-1})) a request), want <= 200000 a request"
done
w="l_comment >= 'c' AND l_shipmode = 'AIR' AND l_quantity < 2"
plain=$("$R" scan "$f" --columns l_orderkey,l_extendedprice --where "$w" --format checksum)
groups=$("$R" meta "$f" --json | grep -o '"num_values"' | wc -l)
groups=$((groups / 16))
for b in 0 256MiB; do
    out=$("$R" scan "$f" --columns l_orderkey,l_extendedprice --where "$w" --format checksum \
        --store sim:ttfb=50ms,bw=500MB/s --policy adaptive --fetch-budget $b --stats 2>"$dir/err")
    n=$(field store_requests "$dir/err")
    check '[ "$out" = "$plain" ]' "order chain, budget $b: '$out', want '$plain'"
    check '[ "$groups" -eq 10 ] && [ -n "$n" ] && [ "$n" -le $((groups + 1)) ]' \
        "order chain, budget $b: $n requests for $groups row groups, want <= $((groups + 1))"
done
summary store_requests
