#!/usr/bin/env bash
# tests/cli/store_opts.sh: `ringscan scan` and `ringscan meta` take --store SPEC
# (ringscan_options.store), --fetch-budget BYTES (fetch_budget_bytes; plain bytes or KiB, MiB,
# GiB, TiB, the parser bench uses too) and --tls-insecure (tls_insecure): the scan's --explain
# names the store and the budget it was given, a bad store spec is the library's error
# naming it (a fixed ttfb past a day too), and the rows are the same through a store as
# without one.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "store_opts: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
f=$dir/li.parquet
"$R" gen lineitem --sf 0.01 --row-group-rows 10000 -o "$f" >/dev/null || bad "gen"
plain=$("$R" scan "$f" --format checksum)
sim=sim:ttfb=1ms,bw=2000MB/s
for b in 0 4096 3KiB 1MiB 1GiB; do
    case $b in 3KiB) want=3072;; 1MiB) want=1048576;; 1GiB) want=1073741824;; *) want=$b;; esac
    out=$("$R" scan "$f" --format checksum --store "$sim" --fetch-budget "$b" --explain 2>"$dir/err")
    check '[ "$out" = "$plain" ]' "--store --fetch-budget $b: '$out', want '$plain'"
    check 'grep -qE "^store: sim, model 1.0 ms to first byte, .* budget $want B$" "$dir/err"' \
        "--fetch-budget $b: explain lacks 'budget $want B': $(grep -E '^store' "$dir/err")"
done
out=$("$R" scan "$f" --format checksum --explain 2>"$dir/err")
check 'grep -q "^store: local file" "$dir/err"' "no --store: explain says $(grep -E '^store' "$dir/err")"
"$R" scan "$f" --store sim:bogus=1 >"$dir/out" 2>"$dir/err"; rc=$?
check '[ $rc -eq 1 ] && [ "$(cat "$dir/err")" = "ringscan: $f: store '"'sim:bogus=1'"': unknown key in '"'bogus=1'"' (keys ttfb=50ms|dist, bw=500MB/s, conn_bw=100MB/s, conns=64, seed=1, model_ttfb=30ms, model_bw=100MB/s)" ]' \
    "scan --store sim:bogus=1: exit $rc: $(cat "$dir/err")"
# a fixed first-byte time past a day is refused (s26: 18446744073709ms, over 2^63 ns, wrapped
# in the schedule's sums and the store answered at once); a day is the longest
for t in 18446744073709ms 86401s 86400000000001ns; do
    timeout 20 "$R" scan "$f" --store "sim:ttfb=$t" --format count >"$dir/out" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 1 ] && [ "$(cat "$dir/err")" = "ringscan: $f: store '"'sim:ttfb=$t'"': ttfb must be at most 86400s" ]' \
        "scan --store sim:ttfb=$t: exit $rc: $(cat "$dir/out" "$dir/err")"
done
"$R" meta "$f" --store nope >"$dir/out" 2>"$dir/err"; rc=$?
check '[ $rc -eq 1 ] && [ "$(cat "$dir/err")" = "ringscan: $f: store '"'nope'"': expected sim:key=value,... (keys ttfb, bw, conn_bw, conns, seed, model_ttfb, model_bw)" ]' \
    "meta --store nope: exit $rc: $(cat "$dir/err")"
m1=$("$R" meta "$f"); m2=$("$R" meta "$f" --store "$sim" --fetch-budget 0 --tls-insecure)
check '[ -n "$m1" ] && [ "$m1" = "$m2" ]' "meta through a store differs"
out=$("$R" scan "$f" --format checksum --tls-insecure 2>"$dir/err"); rc=$?
check '[ $rc -eq 0 ] && [ "$out" = "$plain" ]' "scan --tls-insecure on a local file: exit $rc"
summary store_opts
