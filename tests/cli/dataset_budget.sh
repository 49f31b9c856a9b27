#!/usr/bin/env bash
# tests/cli/dataset_budget.sh: a dataset's files share one fetch budget (scan/fetch_budget.c
# invariant 6; issue 23 section 4): every file's held bytes (reads in flight and buffered,
# running splits' reservations, batches not taken, pooled read buffers) and the footers held
# count against the one --fetch-budget, and --stats reports its high-water marks
# (budget_peak_bytes, footer_bytes_peak). Over a simulated store (where the budget admits
# read-ahead), a skewed dataset (one file of 60 row groups, then 11 small ones) must give
#  - the rows of the files scanned one by one (single-column checksums are sums over rows, so
#    the dataset's is the wrapped sum of the files'), and of the local dataset, for budgets
#    from 1 byte (only the file being drained progresses) to 64 MiB;
#  - a peak of at least half the budget: the first file's read-ahead is admitted against the
#    whole budget (reservations are made before any read returns), where a budget divided
#    among the 12 files gave it a twelfth (about 13 MB of peak measured at 64 MiB, issue 23);
#  - a peak under 3x the budget: admitted reservations and batches stay under the budget but
#    for the splits started at once, reads in flight under half of it, pooled buffers under a
#    quarter (fetch_budget.c invariant 5: the budget bounds read-ahead, not progress);
#  - footer bytes counted in it (0 < footer peak <= budget peak), and never more than every
#    footer at once: the peak of a run that holds all 12 (--max-open-files 64) bounds the peak
#    of runs that read them in windows of 1 and read them twice (--union-by-name).
# Last line: "dataset_budget: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
ds=$dir/ds
mkdir -p "$ds"
"$R" gen lineitem --sf 0.1 --row-group-rows 10000 -o "$ds/a00.parquet" >/dev/null || bad "gen a00"
for i in 01 02 03 04 05 06 07 08 09 10 11; do
    "$R" gen lineitem --sf 0.001 --seed "$i" --row-group-rows 3000 -o "$ds/a$i.parquet" >/dev/null ||
        bad "gen a$i"
done
sim=sim:ttfb=20ms,bw=1000MB/s
B=$((64 << 20))

# stat NAME: the value of "NAME":N in $dir/err's JSON stats line
stat() { grep -o "\"$1\":[0-9]*" "$dir/err" | tail -n1 | cut -d: -f2; }

# one column at a time: the dataset's checksum is the wrapped sum of the files'
for col in l_extendedprice l_comment; do
    sum=0
    for f in "$ds"/*.parquet; do
        c=$("$R" scan "$f" --columns "$col" --format checksum | sed 's/.*checksum //')
        sum=$((sum + c))
    done
    want=$(printf '%u' "$sum")
    for b in 1 1MiB 64MiB; do
        out=$(timeout 120 "$R" scan "$ds" --columns "$col" --format checksum --store "$sim" \
              --fetch-budget "$b" 2>"$dir/err")
        check '[ "${out##* }" = "$want" ]' "$col, budget $b: '$out', want checksum $want $(head -c 300 "$dir/err")"
    done
done

plain=$("$R" scan "$ds" --format checksum)
out=$(timeout 120 "$R" scan "$ds" --format checksum --store "$sim" --fetch-budget $B --stats=json 2>"$dir/err")
check '[ "$out" = "$plain" ]' "every column over sim: '$out', want '$plain'"
peak=$(stat budget_peak_bytes); fpeak=$(stat footer_bytes_peak)
check '[ -n "$peak" ] && [ "$peak" -ge $((B / 2)) ]' "budget peak $peak under half of $B: the first file did not read ahead against the whole budget"
check '[ -n "$peak" ] && [ "$peak" -lt $((3 * B)) ]' "budget peak $peak past 3 x $B"
check '[ -n "$fpeak" ] && [ "$fpeak" -gt 0 ] && [ "$fpeak" -le "$peak" ]' "footer peak $fpeak not within (0, budget peak $peak]"

out=$(timeout 120 "$R" scan "$ds" --columns l_orderkey --format checksum --store "$sim" --fetch-budget $B \
      --max-open-files 64 --stats=json 2>"$dir/err")
all=$(stat footer_bytes_peak)
for u in "" --union-by-name; do
    out=$(timeout 120 "$R" scan "$ds" --columns l_orderkey --format checksum --store "$sim" \
          --fetch-budget $B --max-open-files 1 $u --stats=json 2>"$dir/err")
    got=$(stat footer_bytes_peak)
    check '[ -n "$got" ] && [ "$got" -gt 0 ] && [ "$got" -le "$all" ]' \
        "--max-open-files 1 $u: footer peak $got, every footer at once $all"
done
summary dataset_budget
