#!/usr/bin/env bash
# bench/zoned/run.sh DIR ROUNDS BASE NEW: `ringscan scan DIR --format jsonl` by BASE, NEW and
# BASE again (the A/A line), interleaved for ROUNDS rounds; prints each arm's median CPU
# (perf stat task-clock, all threads) and wall, and the ratios to BASE.
set -euo pipefail
dir=$1 rounds=$2 base=$3 new=$4
tmp=$(mktemp -d)
for r in $(seq "$rounds"); do
    for arm in base new base2; do
        bin=$base; [ "$arm" = new ] && bin=$new
        perf stat -x, -e task-clock -o "$tmp/ps" "$bin" scan "$dir" --format jsonl >/dev/null
        s=$(date +%s%N); "$bin" scan "$dir" --format jsonl >/dev/null; e=$(date +%s%N)
        echo "$arm $(grep task-clock "$tmp/ps" | cut -d, -f1) $(( (e - s) / 1000 ))" >>"$tmp/t"
    done
done
python3 - "$tmp/t" <<'PY'
import collections, statistics as st, sys
cpu, wall = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    arm, c, w = line.split()
    cpu[arm].append(float(c)), wall[arm].append(float(w) / 1000)
for arm in ("base", "new", "base2"):
    print(f"{arm:6} CPU {st.median(cpu[arm]):7.1f} ms ({st.median(cpu[arm]) / st.median(cpu['base']):.3f})"
          f"  wall {st.median(wall[arm]):7.1f} ms ({st.median(wall[arm]) / st.median(wall['base']):.3f})  n {len(cpu[arm])}")
PY
rm -rf "$tmp"
