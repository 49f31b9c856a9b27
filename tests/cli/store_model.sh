#!/usr/bin/env bash
# tests/cli/store_model.sh: the cost model's refined values (issue 20 item 4: io_cost_observe's
# EWMA, weight 1/8) from `scan --stats` (model_ttfb_ns, model_bytes_per_s, model_samples,
# model_bw_samples), on a simulated store whose first byte (50 ms, fixed) and connection
# bandwidth (2 MB/s) differ from the model's seed (model_ttfb=1ms, model_bw=4MB/s: a reader
# that does not know the store). One core (--threads 1): one thread folds every request in,
# so none is lost to another core's fold at the same moment. conns=4096 and a 100 GB/s pipe:
# no request waits for a connection or the pipe, so each measures the store's figures.
#  1. The time to first byte after N = model_samples requests is exactly the seed folded N
#     times toward 50 ms with the integer EWMA (x += (50 ms - x) / 8, rounded toward x): every
#     request's first byte is exactly 50 ms. At least 8 requests, so it moved most of the way
#     (1 ms + 49 ms x (1 - (7/8)^8) = 33.4 ms or more).
#  2. The bandwidth after K = model_bw_samples requests (those of 2 KB or more: a 1 ms
#     transfer) is within K B/s (one rounding a fold) + 0.1% of 2 MB/s (the timer's ns
#     rounding of a transfer) of 2 MB/s + (4 MB/s - 2 MB/s) x (7/8)^K.
#  3. The same run twice gives the same figures (deterministic for a spec).
#  4. Seeded with the store's own figures (no model_ keys), the model stays at them: 50 ms
#     exactly and 2 MB/s within the tolerance of 2.
#  5. The rows and checksum equal the local file's (the model shapes requests only).
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "store_model: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

f=$dir/li.parquet
"$R" gen lineitem --sf 0.01 --row-group-rows 15000 --page-rows 1000 -o "$f" >/dev/null || bad "gen"
store=sim:ttfb=50ms,bw=100GB/s,conn_bw=2MB/s,conns=4096
"$R" scan "$f" --threads 1 --format checksum >"$dir/want" 2>"$dir/want.err" || bad "local scan: $(head -c 300 "$dir/want.err")"

# model STORE: "TTFB BPS N K" from a one-core scan's --stats=json, its checksum in $dir/got
model() {
    "$R" scan "$f" --threads 1 --store "$1" --format checksum --stats=json >"$dir/got" 2>"$dir/err" || {
        echo "exit $?: $(head -c 300 "$dir/err")"; return; }
    python3 -c '
import json, re, sys
s = json.loads(re.search(r"\{.*\}", open(sys.argv[1]).read()).group(0))
print(s["model_ttfb_ns"], s["model_bytes_per_s"], s["model_samples"], s["model_bw_samples"])' "$dir/err" 2>&1 | tail -n 1
}

# judge LABEL "TTFB BPS N K" SEED_TTFB SEED_BPS: checks 1 and 2 (and 5)
judge() {
    local label=$1 got=$2
    local verdict
    verdict=$(python3 -c '
import sys
ttfb, bps, n, k = (int(x) for x in sys.argv[1].split())
seed_t, seed_b, store_t, store_b = (int(x) for x in sys.argv[2:6])
x = seed_t
for _ in range(n):
    x = x + (store_t - x) // 8 if store_t >= x else x - (x - store_t) // 8
want_b = store_b + (seed_b - store_b) * (7 / 8) ** k
tol = k + store_b / 1000
bad = []
if ttfb != x: bad.append(f"ttfb {ttfb} ns, want {x} (seed {seed_t} folded {n} times toward {store_t})")
if abs(bps - want_b) > tol: bad.append(f"bandwidth {bps} B/s, want {want_b:.0f} +- {tol:.0f} after {k} folds")
if seed_t != store_t and n < 8: bad.append(f"only {n} requests folded in (want 8 or more)")
if k < 1 or k > n: bad.append(f"{k} bandwidth folds of {n}")
print("; ".join(bad) if bad else "ok")' "$got" "$3" "$4" 50000000 2000000 2>&1)
    check '[ "$verdict" = ok ]' "$label: $verdict (got '$got')"
    check 'cmp -s "$dir/want" "$dir/got"' "$label: checksum differs from the local file's"
}

a=$(model "$store,model_ttfb=1ms,model_bw=4MB/s")
echo "store_model: seeded 1 ms, 4 MB/s; after the scan (ttfb ns, B/s, samples, bandwidth samples): $a"
judge "unknown store" "$a" 1000000 4000000
b=$(model "$store,model_ttfb=1ms,model_bw=4MB/s")
check '[ "$a" = "$b" ]' "the same spec twice: '$a' then '$b'"
c=$(model "$store")
echo "store_model: seeded with the store's own figures; after the scan: $c"
judge "known store" "$c" 50000000 2000000
summary store_model
