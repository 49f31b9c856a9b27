#!/usr/bin/env bash
# tests/cli/nested_full_scan.sh: a full scan of a row group whose nested chunk is large holds a
# few splits' worth, not the group's: the group is cut at the default nested split size (32
# MiB of the leaves' uncompressed bytes or 8 Mi level pairs, scan/plan_cut.c; it was 256 MiB,
# and a 2.4 GB list<float32> group's 9 splits held 0.67-3.5 GB), and a core's tasks take a
# windowed slot in their splits' order (scan/task_nwin.c invariant 4: a task leaving the slot
# took it again for its next split, so the splits between ran late, parked or decoded again
# from the chunk's start). Run by tests/run.sh with $RINGSCAN = the binary and cwd = the
# project root.
#  1. pyarrow writes (seeded) 24,000 rows in one row group: a flat int64 id and a
#     list<float32> of 400 values (its chunk 39 MB uncompressed: over the split size, under
#     the 64 MiB read window).
#  2. Without any test hook the group is cut into ceil(39 MB / 32 MiB) = 2 splits (--stats
#     splits; 1 before), and a flat filter keeping rows 7 and 23,999 (one in each split) gives
#     pyarrow's rows, on 1 and 2 threads.
#  3. The Arrow export (libringscan.so through tests/cli/rs_ctypes.py) equals pyarrow's table:
#     as cut by default; windowed and cut into 10 splits (RINGSCAN_TEST_NEST_WINDOW_BYTES and
#     RINGSCAN_TEST_NEST_SPLIT_BYTES at 4 MiB); and uncut (the split size over the chunk).
#  4. A smaller file of the same shape (5,000 rows of 200 values, 16 KiB pages) windowed and
#     cut (256 KiB each: 18 splits): the checksum equals the whole scan's, and the chunk's
#     bytes are read about once: bytes_read at most 1 MiB over the file (a window starts at the
#     page the last one cut; a split decoding its leaves from the chunk's start would read a
#     split's 256 KiB or more again), on 1 and 2 threads.
# Last line: "nested_full_scan: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv nested_full_scan
need_lib nested_full_scan

cat >"$dir/write.py" <<'PYEOF'
import sys
import numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
sys.path.insert(0, "tests/conformance")
import gen_expected as ge

out, small = sys.argv[1], sys.argv[2] == "small"
n, k = (5000, 200) if small else (24000, 400)
vals = np.random.default_rng(5).random(n * k, dtype=np.float32)
offs = np.arange(0, (n + 1) * k, k, dtype=np.int32)
t = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)),
              "emb": pa.ListArray.from_arrays(pa.array(offs), pa.array(vals))})
pq.write_table(t, out, row_group_size=n, compression="snappy",
               data_page_size=16384 if small else 1 << 20)
md = pq.ParquetFile(out).metadata
assert md.num_row_groups == 1
ge.write_jsonl(out + "_f.jsonl", t.filter(pc.is_in(t["id"], pa.array([7, 23999]))))
print(md.row_group(0).column(1).total_uncompressed_size)
PYEOF

stat_of() { sed -n "s/\(^\|.*[ ,]\)$1 \([0-9]*\).*/\2/p" "$2" | head -n1; }
f="$dir/emb.parquet"
g="$dir/small.parquet"
if ! "$PY" "$dir/write.py" "$f" big >"$dir/size" 2>"$dir/py.err" ||
    ! "$PY" "$dir/write.py" "$g" small >"$dir/size_small" 2>>"$dir/py.err"; then
    bad "pyarrow could not write the files: $(tail -n 3 "$dir/py.err")"
    summary nested_full_scan
    exit 1
fi
unc=$(cat "$dir/size")
check '[ "$unc" -gt $((32 << 20)) ] && [ "$unc" -lt $((64 << 20)) ]' "the list's chunk is $unc bytes, not between 32 and 64 MiB"
# 2. the default cut, a filter's rows
for t in 1 2; do
    "$R" scan "$f" --where "id = 7 OR id = 23999" --format jsonl --threads $t --stats >"$dir/got" 2>"$dir/s"
    check 'cmp -s "$dir/got" "${f}_f.jsonl"' "$t threads: filtered rows differ: $(head -c 300 "$dir/s") $(diff "$dir/got" "${f}_f.jsonl" | head -c 300)"
    check '[ "$(stat_of splits "$dir/s")" = 2 ]' "$t threads: splits $(stat_of splits "$dir/s"), want 2 (39 MB over 32 MiB)"
done
# 3. the Arrow export, cut by default, windowed and cut further, uncut
mib4=$((4 << 20))
for c in "" "RINGSCAN_TEST_NEST_WINDOW_BYTES=$mib4 RINGSCAN_TEST_NEST_SPLIT_BYTES=$mib4" \
    "RINGSCAN_TEST_NEST_SPLIT_BYTES=$((1 << 30))"; do
    env $c "$PY" -c "
import sys
sys.path.insert(0, 'tests/cli')
import pyarrow.parquet as pq, rs_ctypes as rs
lib = rs.load(sys.argv[1])
got, err = rs.read_table(lib, sys.argv[2])
same = got is not None and got.sort_by('id').equals(pq.read_table(sys.argv[2]))
print('ok' if same else 'FAIL: the Arrow export differs from pyarrow (%s)' % err)" "$LIB" "$f" >"$dir/out" 2>&1
    check 'grep -q "^ok$" "$dir/out"' "Arrow export ${c:-cut by default}: $(head -c 400 "$dir/out")"
done
# 4. a smaller file windowed and cut: values, and each byte read about once
size=$(stat -c %s "$g")
"$R" scan "$g" --format checksum >"$dir/sum0" 2>&1
kib256=$((256 << 10))
want=$((($(cat "$dir/size_small") + kib256 - 1) / kib256)) # (its values, 1M, need fewer)
for t in 1 2; do
    RINGSCAN_TEST_NEST_WINDOW_BYTES=$kib256 RINGSCAN_TEST_NEST_SPLIT_BYTES=$kib256 \
        "$R" scan "$g" --format checksum --threads $t --stats >"$dir/sum1" 2>"$dir/s"
    check 'grep -q "^rows 5000 checksum" "$dir/sum0" && cmp -s "$dir/sum0" "$dir/sum1"' \
        "small, $t threads: checksum windowed and cut $(cat "$dir/sum1"), whole $(cat "$dir/sum0")"
    br=$(stat_of bytes_read "$dir/s"); sp=$(stat_of splits "$dir/s")
    check '[ -n "$br" ] && [ "$br" -ge "$size" ] && [ "$br" -le $((size + (1 << 20))) ] && [ "$sp" = "$want" ]' \
        "small, $t threads: bytes_read $br of a $size-byte file, splits $sp (want $want)"
done
summary nested_full_scan
