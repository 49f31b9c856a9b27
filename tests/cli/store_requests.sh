#!/usr/bin/env bash
# tests/cli/store_requests.sh: request counts and bytes on the simulated store (issue 20), from
# `scan --stats` (store_requests, store_bytes), rows and checksums equal to the local scan's.
#  - A merged request is capped at one round trip of transfer on a connection (ttfb x the
#    seeded per-connection bandwidth, io_cost_max): at ttfb=1ms and 100 MB/s a connection
#    (100 KB) a scan of every column issues requests of 200 KB or less on average (only a
#    column chunk above the cap goes alone); with Arrow's 9 x gap cap it averaged ~700 KB.
#  - adaptive on a remote store takes a conjunct the statistics cannot price (a string
#    equality) as a coin flip, not as certain to kill the split: the chain is speculated, so
#    the scan issues at most three requests a row group, one per run of its columns
#    (l_orderkey; l_quantity, l_extendedprice; l_shipmode, l_comment), plus its footer's 8
#    (its MiB split over the idle connections, io_cost_parts): waiting
#    for each conjunct's outcome before fetching the next column would issue four or five.
#  - A hole over 4 KiB between wanted columns is not read while the store has connections free
#    (io_flush.c invariant 1): two columns apart at conns=64 are two requests a row group and
#    every byte fetched but the footer's is decoded; at conns=1 (always busy) the cost model
#    merges them over the hole as before.
#  - adaptive fetches a step's later positions only where they save a round trip: on the
#    cancel layout (l_cancelkey kills all but 1 row group in 8), a split's first step is
#    l_cancelkey alone and a survivor's second is l_shipdate with the projection (one request
#    per column: the holes between are not read), so every byte fetched but the footer's is
#    decoded (it fetched l_shipdate up front for every row group, and the projection a round
#    trip after l_shipdate).
# The chunks the footer's MiB tail holds whole (the last row group's, or part of it) are served
# from it (scan/pqfile.h): no request, their bytes counted in bytes_kept (and bytes_used), so
# the counts above are less at most reads_kept requests (a kept read replaced one request, or
# shared one with another kept read) and less bytes_kept bytes.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "store_requests: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
f=$dir/li.parquet
"$R" gen lineitem --sf 0.05 --row-group-rows 30000 -o "$f" >/dev/null || bad "gen"
field() { grep -oE "$1 [0-9]+" "$2" | head -1 | cut -d' ' -f2; }
footer=1048576 # the suffix read at open (scan/pqfile.c: the footer tail)
fr=8 # its requests: a MiB on idle connections goes in 8 parts of 128 KiB (io_cost_parts)
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
    check '[ "$groups" -eq 10 ] && [ -n "$n" ] && [ "$n" -le $((3 * groups + fr)) ]' \
        "order chain, budget $b: $n requests for $groups row groups, want <= $((3 * groups + fr))"
done
"$R" scan "$f" --columns l_orderkey,l_extendedprice --format checksum >"$dir/two"
for b in 0 256MiB; do
    for c in 64 1; do
        out=$("$R" scan "$f" --columns l_orderkey,l_extendedprice --format checksum \
            --store sim:ttfb=50ms,bw=500MB/s,conns=$c --fetch-budget $b --stats 2>"$dir/err")
        n=$(field store_requests "$dir/err"); bytes=$(field store_bytes "$dir/err")
        used=$(field bytes_used "$dir/err"); kr=$(field reads_kept "$dir/err"); kb=$(field bytes_kept "$dir/err")
        check '[ "$out" = "$(cat "$dir/two")" ]' "two columns, conns=$c, budget $b: '$out'"
        if [ "$c" -eq 64 ]; then
            check '[ "$kr" -ge 1 ] && [ "$n" = $((2 * groups + fr - kr)) ] && [ "$bytes" = $((used - kb + footer)) ]' \
                "two columns, conns=64, budget $b: $n requests, $bytes bytes for $used decoded ($kr reads, $kb bytes kept), want $((2 * groups + fr - kr)) and $((used - kb + footer))"
        else
            # with a budget the one hole base merged was the last group's, now in the tail
            check '[ -n "$n" ] && [ "$n" -lt $((2 * groups + 1)) ] && [ "$bytes" -ge $((used - kb + footer)) ] &&
                   { [ "$b" != 0 ] || [ "$bytes" -gt $((used - kb + footer)) ]; }' \
                "two columns, conns=1, budget $b: $n requests, $bytes bytes for $used decoded, want holes merged"
        fi
    done
done
c=$dir/cancel.parquet
"$R" gen lineitem --sf 0.05 --row-group-rows 16384 --layout cancel -o "$c" >/dev/null || bad "gen cancel"
w="l_cancelkey = 1000001 AND l_shipdate >= DATE '1994-01-01'"
plain=$("$R" scan "$c" --columns l_orderkey,l_extendedprice,l_comment --where "$w" --format checksum)
out=$("$R" scan "$c" --columns l_orderkey,l_extendedprice,l_comment --where "$w" --format checksum \
    --store sim:ttfb=50ms,bw=500MB/s --policy adaptive --stats 2>"$dir/err")
n=$(field store_requests "$dir/err"); bytes=$(field store_bytes "$dir/err")
used=$(field bytes_used "$dir/err"); dead=$(field splits_all_false "$dir/err")
kr=$(field reads_kept "$dir/err"); kb=$(field bytes_kept "$dir/err")
cgroups=$(( $("$R" meta "$c" --json | grep -o '"num_values"' | wc -l) / 17 ))
check '[ "$out" = "$plain" ]' "cancel chain: '$out', want '$plain'"
want=$((fr + cgroups + 4 * (cgroups - ${dead:-0}))) # less one request at most per kept read
check '[ "$cgroups" -eq 19 ] && [ "$dead" = 17 ] && [ "$kr" -ge 1 ] && [ "$n" -ge $((want - kr)) ] && [ "$n" -lt $want ] && [ "$bytes" = $((used - kb + footer)) ]' \
    "cancel chain: $n requests, $bytes bytes for $used decoded ($cgroups row groups, $dead all-false, $kr reads and $kb bytes kept), want $((want - ${kr:-0}))..$((want - 1)) and $((used - ${kb:-0} + footer))"
summary store_requests
