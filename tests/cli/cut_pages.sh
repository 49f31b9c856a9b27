#!/usr/bin/env bash
# tests/cli/cut_pages.sh: a kept row group without offset indexes that the plan cuts evenly for
# the cores (scan/plan_cut.c cut_even) moves each split's edges to page starts of its first
# column at run time (scan/task_pieces.c task_window), so no page of that column is decoded
# twice. Files from pyarrow (no page index, no dictionary, snappy), 3 row groups of 100,000
# rows, two kept by `k < 150000` (cut into 4 splits each at 2 threads):
#  - one.parquet: one data page per column chunk (as DuckDB writes them);
#  - onedict.parquet: the same with dictionaries (the group's first split reads them all);
#  - small.parquet: pages of about 16 KiB (k and v, both 8 bytes a value, page at the same
#    rows; s, strings, elsewhere).
# At 1 and 2 threads, and uncut (--split-rows 0): the same rows and checksum; the plan's
# splits (3 uncut, 9 cut); and the bytes decompressed: at 2 threads equal to 1 thread's for
# k,v (every page decoded once: before, one.parquet's cut decoded each chunk 4 times), and for
# k,s (one-page chunks; small.parquet's s pages straddling a cut are decoded by both splits, so
# only "at least" there). These 25,000-row pieces are under the even cut's floor
# (scan.h SCAN_EVEN_CUT_MIN_ROWS, 64 Ki rows): the checks above lower it to 1 row
# (RINGSCAN_TEST_EVEN_CUT_MIN_ROWS), and one check without the hook wants the groups whole
# at 2 threads (3 splits; 9 before the floor). Counts only, never timings.
# Last line: "cut_pages: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv cut_pages
export RINGSCAN_TEST_EVEN_CUT_MIN_ROWS=1
"$PY" - "$dir" <<'PYEOF' || { bad "pyarrow could not write the files"; summary cut_pages; exit; }
import sys
import pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
n = 300000
t = pa.table({"k": pa.array(range(n), pa.int64()),
              "v": pa.array([(i * 7919 % 10007) / 8.0 for i in range(n)], pa.float64()),
              "s": pa.array(["s%d" % (i * 31 % 977) * (1 + i % 3) for i in range(n)])})
for name, page, dic in (("one", 256 << 20, False), ("onedict", 256 << 20, True),
                        ("small", 16 << 10, False)):
    pq.write_table(t, f"{d}/{name}.parquet", row_group_size=100000, data_page_size=page,
                   use_dictionary=dic, compression="snappy", write_page_index=False)
PYEOF
# "SPLITS ROWS_OUT BYTES_DECOMPRESSED" of one scan, then its checksum line
scan() { # file columns threads [more options]
    local f=$1 c=$2 t=$3; shift 3
    "$R" scan "$dir/$f.parquet" --columns "$c" --where 'k < 150000' --format checksum \
        --threads "$t" --stats "$@" >"$dir/out" 2>"$dir/err" || { echo "failed: $(head -c 300 "$dir/err")"; return; }
    sed -nE 's/.*rows_out ([0-9]+),.* splits ([0-9]+),.* bytes_decompressed ([0-9]+),.*/\2 \1 \3/p' "$dir/err"
    cat "$dir/out"
}
for f in one onedict small; do
    for c in k,v k,s; do
        one=$(scan $f $c 1); two=$(scan $f $c 2); uncut=$(scan $f $c 2 --split-rows 0)
        read -r s1 r1 b1 <<<"$(head -n1 <<<"$one")"
        read -r s2 r2 b2 <<<"$(head -n1 <<<"$two")"
        read -r s0 r0 b0 <<<"$(head -n1 <<<"$uncut")"
        check '[ "$s1" = 3 ] && [ "$s0" = 3 ] && [ "$s2" = 9 ]' \
            "$f $c: splits $s1 at 1 thread, $s2 at 2, $s0 uncut; want 3, 9, 3"
        check '[ "$r1" = 150000 ] && [ "$(tail -n +2 <<<"$one")" = "$(tail -n +2 <<<"$two")" ] && [ "$(tail -n +2 <<<"$one")" = "$(tail -n +2 <<<"$uncut")" ]' \
            "$f $c: rows $r1 / $r2 / $r0, answers '$(tail -n +2 <<<"$one")' / '$(tail -n +2 <<<"$two")' / '$(tail -n +2 <<<"$uncut")'"
        check '[ -n "$b1" ] && [ "$b0" = "$b1" ]' "$f $c: bytes decompressed uncut at 2 threads $b0, at 1 thread $b1"
        if [ $f != small ] || [ $c = k,v ]; then
            check '[ -n "$b1" ] && [ "$b2" = "$b1" ]' "$f $c: bytes decompressed at 2 threads $b2, at 1 thread $b1 (every page once)"
        else
            check '[ -n "$b1" ] && [ -n "$b2" ] && [ "$b2" -ge "$b1" ]' "$f $c: bytes decompressed at 2 threads $b2, at 1 thread $b1"
        fi
    done
done
floor=$(env -u RINGSCAN_TEST_EVEN_CUT_MIN_ROWS "$R" scan "$dir/small.parquet" --columns k,v \
    --where 'k < 150000' --format checksum --threads 2 --stats 2>&1 >/dev/null |
    sed -nE 's/.* splits ([0-9]+),.*/\1/p')
check '[ "$floor" = 3 ]' "the default floor: splits $floor at 2 threads, want 3 (pieces of 25,000 rows stay whole)"
summary cut_pages
