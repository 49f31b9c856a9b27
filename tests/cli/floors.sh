#!/usr/bin/env bash
# tests/cli/floors.sh: the shape docs/ARCHITECTURE.md describes holds in the code. Compiles
# each file of scan/ alone and reads, with nm, which other scan/ file defines each symbol it
# uses: those calls must form no circle (tsort finds none), no scan/ file is over 500 lines,
# and no wait in the library polls a timer or spins (exec_sleep_ns, exec_yield and
# sched_yield appear in runtime/ alone, io/'s fault-injection delay and budget-stall timer
# and the simulated store's latency (io/store_sim.c: its model is a timer) aside); the scan, meta and serve commands include ringscan.h and cli/ headers only. Last line: "floors: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
cc=${CC:-cc}
for f in scan/*.c; do
    o="$dir/$(basename "$f" .c).o"
    $cc -std=c17 -D_GNU_SOURCE -I. -Iinclude -c "$f" -o "$o" 2>"$dir/cc.err"
    check '[ -s "$o" ]' "$f does not compile alone: $(head -3 "$dir/cc.err")"
done
: >"$dir/defs"
for o in "$dir"/*.o; do
    nm --defined-only "$o" | awk -v f="$(basename "$o" .o)" '$2 ~ /^[TDBR]$/ {print $3, f}' >>"$dir/defs"
done
sort -o "$dir/defs" "$dir/defs"
: >"$dir/edges"
for o in "$dir"/*.o; do
    f=$(basename "$o" .o)
    nm --undefined-only "$o" | awk '{print $2}' | sort | join - "$dir/defs" |
        awk -v f="$f" '$2 != f {print f, $2}' >>"$dir/edges"
done
sort -u -o "$dir/edges" "$dir/edges"
check '[ -s "$dir/edges" ]' "no calls between scan/ files found (the check cannot see them)"
tsort "$dir/edges" >/dev/null 2>"$dir/loop"
check '[ ! -s "$dir/loop" ]' "calls between scan/ files form a circle: $(tr '\n' ' ' <"$dir/loop")"
# the check can fail: a circle made by hand is found
{ cat "$dir/edges"; echo "plan scan"; } >"$dir/edges_loop"
check '! tsort "$dir/edges_loop" >/dev/null 2>&1' "tsort did not find a circle planted on purpose"
for f in scan/*.c scan/*.h; do
    n=$(wc -l <"$f")
    check '[ "$n" -le 500 ]' "$f has $n lines (at most 500)"
done
# exempt: io/'s budget-stall and fault delays, the simulated store's model, and the HTTP
# driver's two timers (curl's own timeout, a retry's backoff): timers with a deadline, no polling;
# and the projection's yield while a message waits (task.c: once per column, only when the
# inbox holds one, so the loop serves another core's lend; it waits for nothing)
hits=$(grep -rn 'exec_sleep_ns\|exec_yield()\|sched_yield\b\|sched_yield_task()' \
    common io format filter scan --include=*.c | grep -v '^io/io_\(flush\|range\).c:.*\(delay\|stall_timer\)' |
    grep -v '^scan/task.c:.*if (exec_inbox_waiting()) exec_yield();' |
    grep -v '^io/store_sim.c:' |
    grep -v '^io/store_http_multi.c:.*\(k ? exec_sleep_ns\|r->retry = exec_sleep_ns\)' || true)
check '[ -z "$hits" ]' "a wait polls or spins: $hits"
# the scan, meta and serve commands are clients of ringscan.h alone (gen and bench may use
# internals through bench/)
for f in cli/cmd_scan.c cli/cmd_meta.c cli/print.c cli/print.h cli/checksum.c cli/checksum.h cli/cli.h; do
    inner=$(grep -E '^#include "' "$f" | grep -vE '"(ringscan\.h|cli/[a-z_]+\.h)"' || true)
    check '[ -z "$inner" ]' "$f includes internals: $inner"
done
summary floors
