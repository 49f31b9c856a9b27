#!/usr/bin/env bash
# tests/cli/stats_stopped.sh: --stats of a scan whose output fails mid-scan (stdout a pipe
# closed after 10 bytes) keep io.h invariant 3 (bytes_read + bytes_kept = bytes_used +
# bytes_wasted), for a file and a dataset (s27 adversarial pass). The CLI read the counters
# of a scan still running (a snapshot: reads done but not yet counted used: bytes_read
# 1947908, bytes_used 0 in 18 of 20 runs); it now ends the scan first (ringscan_scan_stop).
# The exit status is 1 with stderr naming the output's error, or SIGPIPE's 141 (the CLI ends by
# the signal after its messages when stdout's reader left). 10 runs of each shape.
# Last line: "stats_stopped: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
"$R" gen lineitem --sf 0.01 -o "$dir/one.parquet" >/dev/null || { bad "gen failed"; summary stats_stopped; exit 1; }
mkdir "$dir/ds"
for i in 1 2 3 4; do cp "$dir/one.parquet" "$dir/ds/f$i.parquet"; done
stat_of() { grep -o "\"*$1\"*[ :][0-9]*" "$dir/err" | head -n1 | grep -o '[0-9]*$'; }
for i in $(seq 1 10); do
    for args in "$dir/one.parquet --format jsonl --threads 2 --stats" "$dir/one.parquet --format csv --threads 1 --stats" \
                "$dir/ds --format csv --threads 2 --stats" "$dir/ds --format table --threads 2 --unordered --stats" \
                "$dir/one.parquet --format jsonl --threads 2 --stats=json"; do
        # shellcheck disable=SC2086
        { "$R" scan $args 2>"$dir/err"; echo "$?" >"$dir/rc"; } | head -c 10 >/dev/null
        rc=$(cat "$dir/rc")
        r=$(stat_of bytes_read); k=$(stat_of bytes_kept); u=$(stat_of bytes_used); w=$(stat_of bytes_wasted)
        check '{ [ "$rc" = 141 ] || { [ "$rc" = 1 ] && grep -q "error writing standard output" "$dir/err"; }; } && [ -n "$r" ] && [ -n "$u" ] && [ $((r + k)) -eq $((u + w)) ]' \
            "$args (run $i): exit $rc, bytes_read $r + bytes_kept $k != bytes_used $u + bytes_wasted $w ($(head -c 300 "$dir/err"))"
    done
done
summary stats_stopped
