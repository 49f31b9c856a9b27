#!/usr/bin/env bash
# tests/cli/dataset_stats.sh: a dataset scan's --stats keep io.h invariant 3 (bytes_read +
# bytes_kept = bytes_used + bytes_wasted) when the scan ends early (s26 adversarial pass). A
# dataset sums each file's counters when it closes the file; it read them before the file's
# scan had ended on the shared runtime (its io contexts not yet freed, so reads done were not
# yet counted used or wasted), and files still running when the limit was reached were
# counted only at the dataset's free, after --stats printed: 40 small files, --limit 7,
# unordered on one thread, gave bytes_read 434253 against bytes_used 120687 and bytes_wasted
# 0 in most runs. Each run here must balance (12 runs of each shape, limit and not).
# Last line: "dataset_stats: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
"$R" gen lineitem --sf 0.002 --row-group-rows 3000 -o "$dir/one.parquet" >/dev/null || { bad "gen failed"; summary dataset_stats; exit 1; }
mkdir "$dir/ds"
for i in $(seq -w 1 40); do cp "$dir/one.parquet" "$dir/ds/f$i.parquet"; done
stat_of() { grep -o "$1 [0-9]*" "$dir/err" | head -n1 | cut -d' ' -f2; }
for i in $(seq 1 12); do
    for args in "--limit 7 --unordered --threads 1 --split-rows 1 --fetch-budget 4095" \
                "--limit 7 --threads 2" "--limit 3000 --unordered --threads 2 --fetch-budget 0" \
                "--threads 2 --unordered --where l_quantity<3"; do
        # shellcheck disable=SC2086
        "$R" scan "$dir/ds" $args --stats --format checksum >"$dir/out" 2>"$dir/err"; rc=$?
        r=$(stat_of bytes_read); k=$(stat_of bytes_kept); u=$(stat_of bytes_used); w=$(stat_of bytes_wasted)
        check '[ $rc -eq 0 ] && [ -n "$r" ] && [ $((r + k)) -eq $((u + w)) ]' \
            "$args (run $i): exit $rc, bytes_read $r + bytes_kept $k != bytes_used $u + bytes_wasted $w"
    done
done
# the rows are the file's: 7 with the limit, all of them without
check '[ "$("$R" scan "$dir/ds" --limit 7 --format count 2>&1)" = "rows 7" ]' "--limit 7 --format count"
summary dataset_stats
