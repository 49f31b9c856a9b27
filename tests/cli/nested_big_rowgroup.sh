#!/usr/bin/env bash
# tests/cli/nested_big_rowgroup.sh: a row group whose nested columns are too large for one
# split is cut by rows (issue 23, section 1: pyarrow's default 1Mi-row groups of a
# list<float32> of 600 elements held 2.4 GB that no split could pack). The size that cuts it
# is lowered here by RINGSCAN_TEST_NEST_SPLIT_BYTES (test only: scan/plan_cut.c), so a small
# file's group is cut as a large one's. Run by tests/run.sh with $RINGSCAN = the binary and
# cwd = the project root.
#  1. pyarrow writes (seeded) 20,000 rows in one row group: a flat int64 id, list<int64>,
#     list<string>, struct<int64, string> and map<string, int64>, with null rows, null
#     elements and empty lists, in 4 KiB pages (rows straddle pages), as v1 pages with
#     dictionaries and as v2 pages without.
#  2. With the size lowered the group is cut (--explain: more than one split; the old plan
#     kept a nested group whole), and the jsonl of every column equals pyarrow's to_pylist
#     rows (gen_expected's canonical JSONL), on 1 and 2 threads; the checksum equals the
#     uncut scan's.
#  3. The cut reads and decodes no more: bytes_read equals the uncut scan's, and on one
#     thread bytes_decompressed too (each page decoded once across the splits one core runs,
#     format/nest_stream.c; with the flat id first, plus at most one id page per cut edge:
#     an edge moves to an id page start only between its planned neighbours,
#     task_pieces.c keep_between), and on two as well with no steal (a thief of such a group would
#     decode its leaves from the chunk's start: fetch_impl.h fetch_stealable_in; with steals
#     it measured 1.5-2x here).
#  4. A flat filter (id > 12345) and --limit 10 --ordered give pyarrow's rows on the cut
#     group; without the hook --split-rows 3000 leaves it whole (a group that fits one split
#     is not cut for split rows or the cores: a thief would decode from the chunk's start),
#     values equal.
#  5. A split reached past earlier rows of its chunk holds at most a page's rows before its
#     own (format/nest_stream.c invariant 2): a filter whose page index keeps only the last
#     split (or the first and the last: the rows of the pruned splits between are not parked)
#     of a cut group of 10M list elements peaks below the uncut scan's memory (it held every
#     row before its split: 1.6x the uncut scan's, 2.2x with the first split read).
#  6. A row group of one row whose nested slot is over the size stays whole (it was cut into
#     1 split: an assertion failure in cut_even, exit 134), values equal.
#  7. --limit 10 decompresses under a twentieth of what the whole scan does with v2 pages
#     (less with v1: their dictionaries are most of it), cut or not: a split stops decoding
#     its nested leaves at the limit's last row (scan/task.c cap_rows; it decoded its whole
#     window, all 20,000 rows uncut), values equal.
#  8. Empty strings at a cut (a struct<string> and a list<string> of '' values): rows equal,
#     whole and under --limit 4, 1 and 2 threads (a copy of 0 bytes from a NULL buffer
#     trapped: SIGILL).
# Last line: "nested_big_rowgroup: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv nested_big_rowgroup

cat >"$dir/write.py" <<'PYEOF'
import sys
import pyarrow.compute as pc
sys.path.insert(0, "tests/conformance")
import gen_expected as ge

out, v2 = sys.argv[1], sys.argv[2] == "v2"
sys.path.insert(0, "tests/cli")
import nested_mix
t = nested_mix.write(out, v2, 31)
for where, rows in (("", t), ("_f", t.filter(pc.greater(t["id"], 12345))), ("_l", t.slice(0, 10))):
    ge.write_jsonl(out + where + ".jsonl", rows)
PYEOF

stat_of() { sed -n "s/.*[ ,]$1 \([0-9]*\).*/\1/p" "$2" | head -n1; }
splits_of() { sed -n 's/.*row group 0 (20000 rows): .*, \([0-9]*\) splits*$/\1/p' "$1" | head -n1; }
lower=RINGSCAN_TEST_NEST_SPLIT_BYTES=40000

for mode in v1 v2; do
    f="$dir/$mode.parquet"
    if ! "$PY" "$dir/write.py" "$f" "$mode" 2>"$dir/py.err"; then
        bad "$mode: pyarrow could not write the file: $(tail -n 3 "$dir/py.err")"
        continue
    fi
    # 2. cut, values
    env $lower "$R" scan "$f" --format checksum --explain >"$dir/exp" 2>&1
    n=$(splits_of "$dir/exp")
    check '[ -n "$n" ] && [ "$n" -gt 1 ]' "$mode: the group is not cut with the size lowered: $(grep -m1 'row group 0' "$dir/exp")"
    for t in 1 2; do
        env $lower "$R" scan "$f" --format jsonl --ordered --threads $t >"$dir/got" 2>"$dir/err"
        check 'cmp -s "$dir/got" "$f.jsonl"' "$mode, $t threads: cut rows differ from pyarrow: $(head -c 300 "$dir/err") $(diff "$dir/got" "$f.jsonl" | head -n 4)"
    done
    "$R" scan "$f" --format checksum >"$dir/sum0" 2>&1
    env $lower "$R" scan "$f" --format checksum >"$dir/sum1" 2>&1
    check 'grep -q "^rows 20000 checksum" "$dir/sum0" && cmp -s "$dir/sum0" "$dir/sum1"' \
        "$mode: checksum cut $(cat "$dir/sum1"), uncut $(cat "$dir/sum0")"
    # 3. reads and decoding not multiplied
    for cols in li,ls,st,mp id,li,ls,st,mp; do
        "$R" scan "$f" --columns $cols --format checksum --threads 1 --stats >/dev/null 2>"$dir/s0"
        env $lower "$R" scan "$f" --columns $cols --format checksum --threads 1 --stats >/dev/null 2>"$dir/s1"
        env $lower "$R" scan "$f" --columns $cols --format checksum --threads 2 --stats >/dev/null 2>"$dir/s2"
        # (which of a core's tasks reaches the slot first depends on scheduling, which load
        # changes: an order past the parks decodes again, by design (format/nest_stream.c
        # invariant 5; CI saw it once); a rerun tells such a run from a regression, which
        # repeats)
        [ "$(stat_of bytes_decompressed "$dir/s2")" = "$(stat_of bytes_decompressed "$dir/s1")" ] ||
            env $lower "$R" scan "$f" --columns $cols --format checksum --threads 2 --stats >/dev/null 2>"$dir/s2"
        d0=$(stat_of bytes_decompressed "$dir/s0"); d1=$(stat_of bytes_decompressed "$dir/s1")
        d2=$(stat_of bytes_decompressed "$dir/s2"); sp=$(stat_of splits "$dir/s1")
        r0=$(stat_of bytes_read "$dir/s0"); r1=$(stat_of bytes_read "$dir/s1"); r2=$(stat_of bytes_read "$dir/s2")
        check '[ -n "$sp" ] && [ "$sp" -gt 1 ] && [ "$(stat_of splits "$dir/s0")" = 1 ]' \
            "$mode $cols: splits cut $sp, uncut $(stat_of splits "$dir/s0")"
        # (with id first an edge moves to an id page start only between its planned
        # neighbours: a page of id straddling a kept edge is decoded by both splits, one
        # page of at most 16 KiB (4 KiB pages) per edge)
        slack=0; [ "${cols%%,*}" = id ] && slack=$(( (sp - 1) * 16384 ))
        check '[ -n "$d0" ] && [ "$d0" -gt 0 ] && [ "$d1" -ge "$d0" ] && [ "$d1" -le $((d0 + slack)) ]' \
            "$mode $cols: bytes_decompressed $d1 on 1 thread over $sp splits, uncut $d0 (+ at most $slack)"
        check '[ -n "$d2" ] && [ "$d2" = "$d1" ] && [ "$(stat_of steals "$dir/s2")" = 0 ]' \
            "$mode $cols: bytes_decompressed $d2 on 2 threads ($(stat_of steals "$dir/s2") steals), 1 thread $d1, uncut $d0"
        check '[ -n "$r0" ] && [ "$r1" = "$r0" ] && [ "$r2" = "$r0" ]' \
            "$mode $cols: bytes_read $r1 (1 thread) and $r2 (2 threads) cut, $r0 uncut"
    done
    # 4. a flat filter, a limit, the user's split rows
    env $lower "$R" scan "$f" --where "id > 12345" --format jsonl --ordered >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_f.jsonl"' "$mode: filtered cut rows differ: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_f.jsonl" | head -n 4)"
    env $lower "$R" scan "$f" --limit 10 --ordered --format jsonl >"$dir/got" 2>"$dir/err"
    check 'cmp -s "$dir/got" "${f}_l.jsonl"' "$mode: --limit 10 of the cut group differs: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_l.jsonl" | head -n 4)"
    "$R" scan "$f" --split-rows 3000 --format jsonl --ordered --explain >"$dir/got" 2>"$dir/exp"
    n=$(splits_of "$dir/exp")
    check '[ "$n" = 1 ] && cmp -s "$dir/got" "$f.jsonl"' \
        "$mode: --split-rows 3000: $n splits (want 1: it fits one), $(diff "$dir/got" "$f.jsonl" | head -n 4)"
    # 7. a limit decodes the rows it outputs, not its split's
    "$R" scan "$f" --format checksum --threads 1 --stats >/dev/null 2>"$dir/s0"
    d0=$(stat_of bytes_decompressed "$dir/s0")
    for cut in "" "$lower"; do
        env $cut "$R" scan "$f" --limit 10 --ordered --format jsonl --threads 1 --stats >"$dir/got" 2>"$dir/s1"
        d1=$(stat_of bytes_decompressed "$dir/s1")
        f20=20; [ $mode = v1 ] && f20=1 # (v1: the string columns' dictionaries, 1.7 of 2.2 MB)
        check 'cmp -s "$dir/got" "${f}_l.jsonl" && [ -n "$d1" ] && [ "$d1" -gt 0 ] && [ $((d1 * f20)) -lt "$d0" ]' \
            "$mode ${cut:-uncut}: --limit 10 decompressed $d1 bytes, the whole scan $d0; $(diff "$dir/got" "${f}_l.jsonl" | head -n 4)"
    done
done
# 5. memory of a split past pruned ones
cat >"$dir/mem.py" <<'PYEOF'
import os, resource, subprocess, sys
if sys.argv[1] == "write":
    import numpy as np, pyarrow as pa, pyarrow.parquet as pq
    n = 200000
    off = pa.array(np.arange(0, n * 50 + 1, 50, dtype=np.int32))
    t = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)),
                  "li": pa.ListArray.from_arrays(off, pa.array(np.arange(n * 50, dtype=np.int64)))})
    pq.write_table(t, sys.argv[2], row_group_size=n, write_page_index=True, compression="snappy")
else:  # run BYTES ARGS...: the child's exit status, its peak RSS in KiB
    env = dict(os.environ)
    if sys.argv[2]: env["RINGSCAN_TEST_NEST_SPLIT_BYTES"] = sys.argv[2]
    p = subprocess.run(sys.argv[3:], env=env, capture_output=True, text=True, timeout=60)
    print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PYEOF
f="$dir/mem.parquet"
if "$PY" "$dir/mem.py" write "$f" 2>"$dir/py.err"; then
    for w in "id > 199950" "id < 100 or id > 199950"; do
        read -r rc0 m0 < <("$PY" "$dir/mem.py" run "" "$R" scan "$f" --where "$w" --format checksum)
        read -r rc1 m1 < <("$PY" "$dir/mem.py" run 4000000 "$R" scan "$f" --where "$w" --format checksum --threads 1)
        env RINGSCAN_TEST_NEST_SPLIT_BYTES=4000000 "$R" scan "$f" --where "$w" --format checksum --explain 2>&1 | grep -q 'pruned by page index' &&
            n=$(env RINGSCAN_TEST_NEST_SPLIT_BYTES=4000000 "$R" scan "$f" --format checksum --explain 2>&1 | sed -n 's/.*row group 0 (200000 rows): .*, \([0-9]*\) splits*$/\1/p')
        check '[ "$rc0" = 0 ] && [ "$rc1" = 0 ] && [ -n "$n" ] && [ "$n" -gt 4 ] && [ "$m1" -lt "$m0" ]' \
            "$w: the cut scan ($n splits, exit $rc1) peaked at $m1 KiB, the uncut (exit $rc0) at $m0 KiB"
        a=$(env RINGSCAN_TEST_NEST_SPLIT_BYTES=4000000 "$R" scan "$f" --where "$w" --format checksum 2>&1)
        b=$("$R" scan "$f" --where "$w" --format checksum 2>&1)
        check '[ "$a" = "$b" ]' "$w: checksum cut $a, uncut $b"
    done
else
    bad "pyarrow could not write the memory file: $(tail -n 3 "$dir/py.err")"
fi
# 6. one-row groups over the size
f="$dir/one.parquet"
"$PY" -c "
import pyarrow as pa, pyarrow.parquet as pq, sys
t = pa.table({'id': pa.array([0, 1, 2], pa.int64()), 'l': pa.array([[1, 2], [3], None], pa.list_(pa.int64()))})
pq.write_table(t, sys.argv[1], row_group_size=1)" "$f" 2>"$dir/py.err" || bad "pyarrow could not write one.parquet"
for t in 1 2; do
    env RINGSCAN_TEST_NEST_SPLIT_BYTES=1 timeout 60 "$R" scan "$f" --format jsonl --ordered --threads $t >"$dir/got" 2>"$dir/err"; rc=$?
    check '[ $rc = 0 ] && [ "$(tr "\n" " " <"$dir/got")" = "{\"id\":0,\"l\":[1,2]} {\"id\":1,\"l\":[3]} {\"id\":2,\"l\":null} " ]' \
        "one-row groups, $t threads: exit $rc, $(head -c 200 "$dir/err") $(tr "\n" " " <"$dir/got")"
done
# 8. empty strings at a cut: the rows a split hands on hold values of no bytes, whose buffer
#    was never allocated (a NULL copy of 0 bytes trapped: SIGILL). Nested columns only: a flat
#    first column moves the cuts to its page starts (task_window), one page here: no cut.
f="$dir/empty.parquet"
"$PY" -c "
import pyarrow as pa, pyarrow.parquet as pq, sys
t = pa.table({'s': pa.array([{'k': 'abc'}, None, {'k': ''}, {'k': ''}, {'k': 'x'}, {'k': ''}],
                            pa.struct([('k', pa.string())])),
              'l': pa.array([[''], [''], None, [], ['', ''], ['']], pa.list_(pa.string()))})
pq.write_table(t, sys.argv[1])" "$f" 2>"$dir/py.err" || bad "pyarrow could not write empty.parquet"
want='{"s":{"k":"abc"},"l":[""]} {"s":null,"l":[""]} {"s":{"k":""},"l":null} {"s":{"k":""},"l":[]} {"s":{"k":"x"},"l":["",""]} {"s":{"k":""},"l":[""]} '
for t in 1 2; do
    for lim in "" "--limit 4"; do
        env RINGSCAN_TEST_NEST_SPLIT_BYTES=1 timeout 60 "$R" scan "$f" --format jsonl --ordered --threads $t $lim >"$dir/got" 2>"$dir/err"; rc=$?
        w=$want; [ -n "$lim" ] && w=$(echo "$want" | cut -d' ' -f1-4)' '
        check '[ $rc = 0 ] && [ "$(tr "\n" " " <"$dir/got")" = "$w" ]' \
            "empty strings cut, $t threads $lim: exit $rc, $(head -c 200 "$dir/err") $(tr "\n" " " <"$dir/got")"
    done
done
summary nested_big_rowgroup
