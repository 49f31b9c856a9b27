#!/usr/bin/env bash
# tests/cli/dataset_store.sh: a dataset's store counters in `scan --stats` (issue 20 item 3 over
# issue 23's datasets): store_requests, store_bytes and the cost model summed over every file
# the dataset opened, footers included (each file's requests were counted on its own io file
# and never summed: a dataset read 0 whatever it fetched).
#  - three copies of one file on the simulated store: three times the requests and bytes of a
#    dataset of that one file, at 1 and 2 threads; the footer tails' bytes on top of bytes_read.
#  - every file pruned by its footer's statistics: one request a footer, nothing else.
#  - a local dataset: no store, so 0.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "dataset_store: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
mkdir -p "$dir/d1" "$dir/d3"
"$R" gen lineitem --sf 0.01 --row-group-rows 20000 -o "$dir/d1/a.parquet" >/dev/null || bad "gen"
for x in a b c; do cp "$dir/d1/a.parquet" "$dir/d3/$x.parquet"; done
field() { grep -oE "$1 [0-9]+" "$2" | head -1 | cut -d' ' -f2; }
sim=sim:ttfb=1ms,bw=500MB/s
scan() { # dir threads [args]: the stats of a two-column checksum scan into $dir/err
    local d=$1 t=$2; shift 2
    "$R" scan "$dir/$d" --columns l_orderkey,l_extendedprice --format checksum --threads "$t" \
        --stats "$@" >/dev/null 2>"$dir/err"
}
for t in 1 2; do
    scan d1 "$t" --store $sim || bad "scan d1"
    n1=$(field store_requests "$dir/err"); b1=$(field store_bytes "$dir/err")
    r1=$(field bytes_read "$dir/err")
    scan d3 "$t" --store $sim || bad "scan d3"
    n3=$(field store_requests "$dir/err"); b3=$(field store_bytes "$dir/err")
    r3=$(field bytes_read "$dir/err"); f3=$(field footer_reads "$dir/err")
    ms=$(field model_samples "$dir/err"); mt=$(field model_ttfb_ns "$dir/err")
    check '[ -n "$n1" ] && [ "$n1" -gt 1 ] && [ "$b1" -gt "$r1" ]' \
        "one file, $t threads: $n1 requests, $b1 bytes for $r1 read, want > 1 and more than read"
    check '[ "$n3" = $((3 * n1)) ] && [ "$b3" = $((3 * b1)) ] && [ "$r3" = $((3 * r1)) ]' \
        "three files, $t threads: $n3 requests, $b3 bytes, $r3 read, want $((3 * n1)), $((3 * b1)), $((3 * r1))"
    check '[ "$f3" = 3 ] && [ "$b3" -gt "$r3" ]' "three files, $t threads: $f3 footers, $b3 bytes for $r3 read"
    check '[ -n "$ms" ] && [ "$ms" -ge 2 ] && [ "$ms" -le "$n1" ] && [ "$mt" -gt 0 ]' \
        "three files, $t threads: model of $ms requests (ttfb $mt ns), want 2..$n1 of one file's"
done
"$R" scan "$dir/d3" --where 'l_orderkey < 0' --format checksum --store $sim --stats >/dev/null 2>"$dir/err" ||
    bad "pruned scan"
n=$(field store_requests "$dir/err"); r=$(field reads "$dir/err")
check '[ "$n" = 3 ] && [ "$r" = 0 ]' "every file pruned by statistics: $n requests, $r reads, want 3 and 0"
scan d3 1 || bad "local scan"
n=$(field store_requests "$dir/err"); b=$(field store_bytes "$dir/err")
check '[ "$n" = 0 ] && [ "$b" = 0 ]' "local dataset: $n requests, $b bytes, want 0"
summary dataset_store
