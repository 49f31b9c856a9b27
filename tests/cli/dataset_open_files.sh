#!/usr/bin/env bash
# tests/cli/dataset_open_files.sh: a dataset of many small files holds a bounded number of
# them open (scan/dataset.c invariant 2: at most max_open + DS_INFLIGHT_MAX footers), so it
# scans under a small open-file limit. ds_footers_need joined the window read ahead each time
# a file of the window in use was needed, and started the next: footers were read a window
# per file, 8x as fast as files ran, and held until their files ended (small500: 446 files
# open at once, footer_bytes_peak 25 MB; under `ulimit -n 256` it failed "Too many open
# files"; now 40 open, 1.8 MB).
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "dataset_open_files: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
field() { grep -oE "$1 [0-9]+" "$2" | head -1 | cut -d' ' -f2; }
mkdir -p "$dir/ds"
if ! "$R" gen lineitem --sf 0.001 -o "$dir/one.parquet" >/dev/null; then
    bad "gen"; summary dataset_open_files; exit 1
fi
n=300
for i in $(seq -w 1 $n); do cp "$dir/one.parquet" "$dir/ds/part-$i.parquet"; done
rows=$("$R" scan "$dir/one.parquet" --format checksum | grep -oE 'rows [0-9]+' | cut -d' ' -f2)
size=$(stat -c %s "$dir/one.parquet")
for t in 1 2; do
    out=$(ulimit -n 64; "$R" scan "$dir/ds" --format checksum --threads $t --stats 2>"$dir/err")
    rc=$?
    got=$(echo "$out" | grep -oE 'rows [0-9]+' | cut -d' ' -f2)
    check '[ $rc -eq 0 ] && [ "$got" = "$((rows * n))" ]' \
        "threads $t, ulimit -n 64: exit $rc, rows '$got': $(head -c 300 "$dir/err")"
    peak=$(field footer_bytes_peak "$dir/err")
    # every footer held is at most the file (a tail read holds less): 16 + 16 + a window's
    check '[ -n "$peak" ] && [ "$peak" -le $((48 * size)) ]' \
        "threads $t: footer_bytes_peak ${peak:-none}, want <= $((48 * size))"
done
summary dataset_open_files
