#!/usr/bin/env bash
# tests/cli/bench_chart.sh: `ringscan bench --chart FILE` from a tiny bench run (sf 0.01, two
# shapes, one policy, one round). Run by tests/run.sh with $RINGSCAN = the binary and cwd =
# the project root; timing is never asserted.
#  1. FILE.png: exit 0, the 8-byte PNG signature, an IHDR chunk first, a width of 400-4000 and
#     a height of 300-2000 pixels, and an IEND chunk at the end.
#  2. FILE.svg: an <svg> document of the same size in points.
#  3. FILE.jpg: a usage error (exit 2) naming --chart, before any bench runs.
#  4. cairo is loaded when the chart is drawn (bench/chart.c): with a broken libcairo.so.2 first
#     on the library path the bench still runs and prints its table, then fails (exit 1)
#     naming the chart, the library and the Debian packages, and writes no chart.
# Last line: "bench_chart: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

run() { "$R" bench --data "$dir" --sf 0.01 --rounds 1 --shapes lineitem,lineitem_and --policies lazy \
    --no-aa --chart "$1" >"$dir/out.txt" 2>"$dir/err.txt"; }

run "$dir/c.png"
rc=$?
check '[ $rc -eq 0 ]' "bench --chart c.png exit $rc: $(tail -n 3 "$dir/err.txt")"
sig=$(head -c 8 "$dir/c.png" | od -An -tx1 | tr -d ' \n')
check '[ "$sig" = "89504e470d0a1a0a" ]' "not a PNG signature: $sig"
ihdr=$(dd if="$dir/c.png" bs=1 skip=12 count=4 2>/dev/null)
check '[ "$ihdr" = "IHDR" ]' "first chunk is '$ihdr', not IHDR"
be32() { dd if="$dir/c.png" bs=1 skip="$1" count=4 2>/dev/null | od -An -tu1 | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}'; }
w=$(be32 16); h=$(be32 20)
check '[ "$w" -ge 400 ] && [ "$w" -le 4000 ]' "PNG width $w"
check '[ "$h" -ge 300 ] && [ "$h" -le 2000 ]' "PNG height $h"
iend=$(tail -c 8 "$dir/c.png" | head -c 4)
check '[ "$iend" = "IEND" ]' "PNG does not end with IEND"

run "$dir/c.svg"
rc=$?
check '[ $rc -eq 0 ]' "bench --chart c.svg exit $rc: $(tail -n 3 "$dir/err.txt")"
check 'grep -q "<svg .*width=\"${w}pt\" height=\"${h}pt\"" "$dir/c.svg" && grep -q "</svg>" "$dir/c.svg"' \
    "SVG is not a ${w}x${h} <svg> document: $(head -c 300 "$dir/c.svg")"

"$R" bench --data "$dir" --sf 0.01 --rounds 1 --chart "$dir/c.jpg" >/dev/null 2>"$dir/err.txt"
rc=$?
check '[ $rc -eq 2 ]' "bench --chart c.jpg exit $rc, not 2"
check 'grep -q -- "--chart: .*c.jpg.* is neither FILE.png nor FILE.svg" "$dir/err.txt"' "the usage error does not name --chart: $(head -n 1 "$dir/err.txt")"
check '[ ! -e "$dir/c.jpg" ]' "c.jpg was written"

mkdir -p "$dir/badlib"
echo "not a library" >"$dir/badlib/libcairo.so.2"
LD_LIBRARY_PATH=$dir/badlib run "$dir/d.png"
rc=$?
check '[ $rc -eq 1 ] && grep -q "lineitem_and" "$dir/out.txt"' "a broken libcairo: exit $rc, want 1 after the table: $(tail -n 3 "$dir/err.txt")"
check 'grep -q "cannot write .*d.png: .*libcairo.so.2.*libcairo2" "$dir/err.txt" && [ ! -e "$dir/d.png" ]' \
    "the error names the chart, the library and the package: $(tail -n 2 "$dir/err.txt")"
summary bench_chart
