#!/usr/bin/env bash
# tests/cli/bench_topk.sh: `ringscan bench topk` run small (8 row groups of 4096 rows, one
# round): it exits 0, every arm's merged answer equals the model's, the control layout reads
# the same bytes with sharing on and off, and on the pruning layout sharing never reads more
# than not sharing. Counts only, never timings.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "bench_topk: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
"$R" bench topk --data "$dir" --rounds 1 --row-groups 8 --row-group-rows 4096 >"$dir/out" 2>"$dir/err"
rc=$?
if [ "$rc" -eq 0 ]; then ok; else bad "exit $rc: $(head -c 400 "$dir/err")"; fi
if grep -q "^results: every merged answer equals the model's" "$dir/out"; then ok; else bad "results line"; fi
arms=$(grep -cE ' (equal|DIFFERS)$' "$dir/out")
if [ "$arms" -eq 31 ]; then ok; else bad "$arms arm lines, want 31"; fi
if ! grep -E '^(pruning|control) ' "$dir/out" | grep -q DIFFERS; then ok; else bad "an arm differs"; fi
# the ratio lines: layout mode seed N bytes_on bytes_off ...
while read -r layout mode seed n on off rest; do
    if [ "$layout" = control ] && [ "$on" != "$off" ]; then bad "control $mode $n: $on != $off bytes"
    elif [ "$layout" = pruning ] && [ "$on" -gt "$off" ]; then bad "pruning $mode $seed $n: on $on > off $off"
    else ok; fi
done < <(sed -n '/^sharing on \/ off/,/^A\/A/p' "$dir/out" | grep -E '^(pruning|control) ')
summary bench_topk
