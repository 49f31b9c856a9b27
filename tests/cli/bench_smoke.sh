#!/usr/bin/env bash
# tests/cli/bench_smoke.sh: `ringscan bench` end to end on small data. Run by tests/run.sh with
# $RINGSCAN = the binary and cwd = the project root; timing is printed by the bench but never
# asserted here.
#  1. sf 0.01, every shape and policy, 1 round: exit status 0 (every count and checksum equals
#     the data model's), the table has an "ok" row per shape and entry and no "BAD", the JSON
#     says all_match, the SVG chart is written, and the floor's thread CPU is in the JSON
#     (a median_cpu_ms above 0) and in an x_floor_cpu line per shape and entry.
#  2. sf 0.07 (4 row groups, so the cancel layout's matching row group 3 exists):
#     lineitem_cancel matches with rows > 0 (at sf 0.01 its answer is 0 rows), and so does
#     lineitem_prune.
#  3. A wrong expected answer in the cache makes the bench exit 1 and print BAD.
#  4. --kept: every shape's "adaptive/kept" arm (scans on one kept runtime) is ok, with the same
#     read count as "adaptive" (its own threads per scan) on the five shapes whose reads do not
#     depend on timing (cancel and order stop early), and the JSON carries the host's CPU time
#     of open and start.
#  5. --core-sum (the checksum summed by the cores as they build batches, scan_opts.batch_fn,
#     not by the draining thread) at 1 and 2 threads: exit 0 (every checksum equals the
#     model's, as the default run's above do), and the JSON carries each run's process CPU.
# Last line: "bench_smoke: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

"$R" bench --data "$dir" --sf 0.01 --rounds 1 --json "$dir/a.json" --chart "$dir/a.svg" >"$dir/a.txt" 2>"$dir/a.err"
rc=$?
check '[ $rc -eq 0 ]' "sf 0.01 bench exit $rc: $(tail -n 5 "$dir/a.err")"
rows=$(grep -cE '^ *[a-z_]* +(lazy|eager|adaptive|adaptive#2) .* ok ' "$dir/a.txt")
check '[ "$rows" -eq 28 ]' "expected 28 ok rows (7 shapes x 4 entries), got $rows"
check '! grep -q " BAD " "$dir/a.txt"' "a BAD row in the sf 0.01 table"
check 'grep -q "\"all_match\":true" "$dir/a.json"' "JSON does not say all_match true"
check 'grep -q "<svg" "$dir/a.svg" && grep -q "</svg>" "$dir/a.svg"' "chart is not an SVG"
check 'grep -q "\"median_cpu_ms\":[0-9.]*[1-9]" "$dir/a.json"' "JSON has no floor median_cpu_ms above 0"
xf=$(grep -c "= x_floor_cpu [0-9]" "$dir/a.txt")
check '[ "$xf" -eq 28 ]' "expected 28 x_floor_cpu lines (7 shapes x 4 entries), got $xf"
for s in lineitem_filter_only lineitem lineitem_and lineitem_prune lineitem_wide lineitem_cancel lineitem_order; do
    check 'grep -q "^$s " "$dir/a.txt"' "shape $s missing from the table"
done

"$R" bench --data "$dir" --sf 0.07 --rounds 1 --shapes lineitem_cancel,lineitem_prune --no-floor \
    --json "$dir/b.json" >"$dir/b.txt" 2>"$dir/b.err"
rc=$?
check '[ $rc -eq 0 ]' "sf 0.07 bench exit $rc: $(tail -n 5 "$dir/b.err")"
cancel_rows=$(grep -E '^lineitem_cancel ' "$dir/b.txt" | awk '{print $(NF-4)}')
check '[ "${cancel_rows:-0}" -gt 0 ]' "lineitem_cancel has no rows at sf 0.07 (got '${cancel_rows:-}')"
check '! grep -q " BAD " "$dir/b.txt"' "a BAD row in the sf 0.07 table"

"$R" bench --data "$dir" --sf 0.07 --rounds 2 --policies adaptive --no-floor --no-aa --kept \
    --json "$dir/k.json" >"$dir/k.txt" 2>"$dir/k.err"
rc=$?
check '[ $rc -eq 0 ]' "--kept bench exit $rc: $(tail -n 5 "$dir/k.err")"
kept=$(grep -cE ' adaptive/kept +[0-9]+~? .* ok ' "$dir/k.txt")
check '[ "$kept" -eq 7 ]' "expected 7 ok adaptive/kept rows, got $kept"
same=$(awk '$2 == "adaptive" && NF > 10 {r[$1] = $3; s = $1}
            $1 == "adaptive/kept" && s !~ /cancel|order/ {n++; if ($2 == r[s]) k++}
            END {print k + 0 "/" n + 0}' "$dir/k.txt")
check '[ "$same" = "5/5" ]' "adaptive/kept read counts differ from adaptive's: $same equal"
check 'grep -q "\"open_cpu_ns\":[1-9]" "$dir/k.json"' "JSON has no open_cpu_ns"

for t in 1 2; do
    "$R" bench --data "$dir" --sf 0.07 --rounds 1 --policies adaptive --no-floor --no-aa \
        --threads $t --core-sum --json "$dir/s$t.json" >"$dir/s$t.txt" 2>"$dir/s$t.err"
    rc=$?
    check '[ $rc -eq 0 ]' "--core-sum --threads $t exit $rc: $(tail -n 5 "$dir/s$t.err")"
done
check 'grep -q "\"proc_cpu_ns\":[1-9]" "$dir/s2.json"' "JSON has no proc_cpu_ns"

exp="$dir/lineitem_sf0.01_tpch.parquet.expected"
sed -i -E 's/^(lineitem_and [0-9]+ )[0-9]+$/\1123/' "$exp"
"$R" bench --data "$dir" --sf 0.01 --rounds 1 --shapes lineitem_and --policies lazy --no-floor \
    >"$dir/c.txt" 2>"$dir/c.err"
rc=$?
check '[ $rc -eq 1 ]' "a wrong expected checksum gave exit $rc, not 1"
check 'grep -q " BAD " "$dir/c.txt"' "a wrong expected checksum printed no BAD row"

summary bench_smoke
