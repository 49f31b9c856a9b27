#!/usr/bin/env bash
# tests/cli/dataset_footers.sh: a dataset's footers are read as futures by tasks on its
# runtime (scan/ds_open.c, scan/pqf_async.c): one tail read each, a second for a footer longer
# than the 64 KiB tail. Over 24 small files and one of 3,000 row groups (a ~300 KB footer),
# locally and on a simulated store, with footer windows of 1, 2, the default and 64 files, and
# the union by name (the schema's footers closed and read again past one window), --stats must
# count every kept file's footer read on the cores (footers_on_cores = footers_read), the read
# calls (footer_reads = footers_read + 1 per read of the big footer), the files pruned by
# partition unread, and the rows and checksum must be the files' own (single-column checksums
# are sums over rows: the dataset's is the wrapped sum of the files'). A file cut short in the
# middle is named in the error. Last line: "dataset_footers: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
ds=$dir/ds
for i in $(seq -w 0 23); do
    p=$ds/part=$((10#$i % 3))
    mkdir -p "$p"
    "$R" gen lineitem --sf 0.0005 --seed "$((10#$i + 1))" --row-group-rows 1000 -o "$p/f$i.parquet" >/dev/null ||
        bad "gen f$i"
done
"$R" gen lineitem --sf 0.005 --row-group-rows 10 -o "$ds/part=0/big.parquet" >/dev/null || bad "gen big"
nf=25
sim=sim:ttfb=5ms,bw=1000MB/s

# stat NAME: the value of "NAME":N in $dir/err's JSON stats line
stat() { grep -o "\"$1\":[0-9]*" "$dir/err" | tail -n1 | cut -d: -f2; }

sum=0; rows=0
for f in "$ds"/part=*/*.parquet; do
    o=$("$R" scan "$f" --columns l_extendedprice --format checksum)
    sum=$((sum + ${o##* })); rows=$((rows + $(echo "$o" | awk '{print $2}')))
done
want="rows $rows checksum $(printf '%u' "$sum")"

# reads_of: footer_reads expected for the footers counted (the big one twice per read of it)
for store in "" "$sim"; do
    for mo in 1 2 "" 64; do
        for u in "" --union-by-name; do
            args=("$ds" --columns l_extendedprice --format checksum --stats=json --threads 2 $u)
            [ -n "$store" ] && args+=(--store "$store")
            [ -n "$mo" ] && args+=(--max-open-files "$mo")
            out=$(timeout 120 "$R" scan "${args[@]}" 2>"$dir/err")
            what="store '${store:-local}' max-open '${mo:-default}' $u"
            check '[ "$out" = "$want" ]' "$what: '$out', want '$want' $(head -c 300 "$dir/err")"
            fr=$(stat footers_read); oc=$(stat footers_on_cores); rd=$(stat footer_reads)
            # every footer read at least once; read twice only for the union past one window
            check '[ -n "$fr" ] && [ "$fr" -ge $nf ] && [ "$oc" = "$fr" ]' "$what: footers_read $fr, on cores $oc, files $nf"
            if [ -z "$u" ] || [ "${mo:-16}" -ge $nf ]; then
                check '[ "$fr" = $nf ] && [ "$rd" = $((nf + 1)) ]' "$what: footers_read $fr (want $nf), footer_reads $rd (want $((nf + 1)))"
            else # each footer read for the schema, then again for its scan: the big one twice
                check '[ "$fr" = $((2 * nf)) ] && [ "$rd" = $((2 * nf + 2)) ]' "$what: footers_read $fr (want $((2 * nf))), footer_reads $rd (want $((2 * nf + 2)))"
            fi
        done
    done
done

# partition pruning: the pruned files' footers are never read
out=$(timeout 120 "$R" scan "$ds" --columns l_extendedprice --where "part = 1" --format checksum --stats=json 2>"$dir/err")
check '[ "$(stat footers_read)" = 8 ] && [ "$(stat footers_on_cores)" = 8 ] && [ "$(stat footer_reads)" = 8 ] && [ "$(stat files_pruned)" = 17 ]' \
    "part = 1: $(grep -o '"files_pruned[^,]*' "$dir/err") footers_read $(stat footers_read) on cores $(stat footers_on_cores) reads $(stat footer_reads)"
# a file cut short is named
head -c 5000 "$ds/part=1/f10.parquet" >"$dir/cut" && mv "$dir/cut" "$ds/part=1/f10.parquet"
out=$(timeout 120 "$R" scan "$ds" --columns l_extendedprice --format checksum 2>"$dir/err"); rc=$?
check '[ "$rc" -ne 0 ] && grep -q "f10.parquet" "$dir/err"' "cut file: exit $rc, '$(head -c 300 "$dir/err")'"
summary dataset_footers
