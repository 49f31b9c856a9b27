#!/usr/bin/env bash
# tests/cli/few_groups.sh: when statistics keep few row groups of a local file, the plan cuts
# them at page starts so every core has splits to claim (scan/plan.c cut_rows): 3 row groups
# of 100,000 rows (too small for the default 131,072-row cut) become more splits at 2 threads,
# stay 3 at 1 thread, with --split-rows 0 and on a (simulated) remote store; every way gives
# the same rows and checksum. The cut groups' splits share their unit's one request per column
# (a split a second core takes is lent a copy: scan/fetch.c invariant 7), so at 2 threads the
# read calls and bytes equal the uncut plan's (--split-rows 0), in every one of 5 runs, except
# that a stolen split whose owner already let its request go reads its own columns (at most 3
# more read calls a steal: seen under CI's load, 12 reads against 10). In a dataset the other
# files count too (scan_opts.groups_besides): copies of the file enough for the cores are not cut.
# Last line: "few_groups: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
f="$dir/li.parquet"
"$R" gen lineitem --sf 0.05 --row-group-rows 100000 -o "$f" >/dev/null 2>&1 || { bad "gen failed"; summary few_groups; exit; }
q=(--columns l_orderkey,l_comment --where "l_quantity > 10" --format checksum)
splits() { "$R" scan "$f" "${q[@]}" --explain "$@" 2>&1 | sed -nE 's/^plan: .*, ([0-9]+) splits.*/\1/p'; }
answer() { "$R" scan "$f" "${q[@]}" "$@" 2>/dev/null; }
n2=$(splits --threads 2); n1=$(splits --threads 1); n0=$(splits --threads 2 --split-rows 0)
nr=$(splits --threads 2 --store sim:ttfb=1ms,bw=1000MB/s)
check '[ -n "$n2" ] && [ "$n2" -ge 6 ]' "2 threads: $n2 splits, want at least 6 (3 groups cut for 2 cores)"
check '[ "$n1" = 3 ]' "1 thread: $n1 splits, want 3"
check '[ "$n0" = 3 ]' "--split-rows 0: $n0 splits, want 3"
check '[ "$nr" = 3 ]' "a remote store: $nr splits, want 3 (more requests buy nothing there)"
want=$(answer --threads 1)
check '[ -n "$want" ] && [ "$(answer --threads 2)" = "$want" ] && [ "$(answer --threads 2 --split-rows 0)" = "$want" ]' \
    "answers differ: 1 thread '$want', 2 threads '$(answer --threads 2)'"
# "READS BYTES STEALS" of one scan
io() {
    "$R" scan "$f" "${q[@]}" --stats "$@" 2>&1 |
        sed -nE 's/^reads ([0-9]+), bytes_read ([0-9]+),.* steals ([0-9]+),.*/\1 \2 \3/p'
}
read -r ureads ubytes _ <<<"$(io --threads 2 --split-rows 0)"
for i in 1 2 3 4 5; do
    read -r reads bytes steals <<<"$(io --threads 2)"
    # a stolen split is lent its columns from the owner's request; only when the owner has
    # already let that request go does it read its own pages (at most its 3 columns' ranges)
    check '[ -n "$ureads" ] && [ -n "$reads" ] && { { [ "$reads" = "$ureads" ] && [ "$bytes" = "$ubytes" ]; } || [ "$reads" -le $((ureads + 3 * steals)) ]; }' \
        "run $i at 2 threads: reads $reads, bytes $bytes, steals $steals; uncut plan: reads $ureads, bytes $ubytes"
done
# A dataset's files are cut as one plan of every file would cut them (scan_opts.groups_besides:
# the other files count as a group each at least): 6 copies of the file hold 3 + 5 groups
# besides, enough for 2 cores, so each keeps its 3 splits and decodes what the uncut plan does;
# 2 copies (3 + 1 groups) are still cut for the cores. Same rows as the lone file's, summed.
sstat() { "$R" scan "$1" "${q[@]}" --stats --threads "$2" 2>&1 | sed -nE "s/.*[ ,]$3 ([0-9]+),.*/\1/p" | head -1; }
one_dec0=$("$R" scan "$f" "${q[@]}" --stats --threads 2 --split-rows 0 2>&1 | sed -nE 's/.* bytes_decompressed ([0-9]+),.*/\1/p')
one_rows=$(sstat "$f" 1 rows_scanned)
for n in 2 6; do
    mkdir -p "$dir/ds$n"
    for i in $(seq "$n"); do cp "$f" "$dir/ds$n/part$i.parquet"; done
done
s6=$(sstat "$dir/ds6" 2 splits); d6=$(sstat "$dir/ds6" 2 bytes_decompressed); r6=$(sstat "$dir/ds6" 2 rows_scanned)
check '[ "$s6" = 18 ] && [ -n "$one_dec0" ] && [ "$d6" = $((6 * one_dec0)) ] && [ "$r6" = $((6 * one_rows)) ]' \
    "6 files at 2 threads: $s6 splits (want 18: none cut), $d6 bytes decompressed (want 6 x $one_dec0), rows $r6 (6 x $one_rows)"
s2=$(sstat "$dir/ds2" 2 splits)
check '[ -n "$s2" ] && [ "$s2" -ge 12 ]' "2 files at 2 threads: $s2 splits, want at least 12 (3 + 1 groups: cut for 2 cores)"
summary few_groups
