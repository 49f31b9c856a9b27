#!/usr/bin/env bash
# tests/cli/nested_steal.sh: a nested row group cut into splits is shared by the cores when
# its nested leaves have offset indexes (issue 23 section 1, thirty-fifth session): a split
# another core runs starts at the page holding its first row (format/nest_stream.c
# invariant 7), so scan/fetch_unit.c fetch_stealable_in lets a thief take the group's
# splits; without the indexes it still does not (a thief would decode from the chunk's
# start). RINGSCAN_TEST_NEST_SPLIT_BYTES (and RINGSCAN_TEST_NEST_WINDOW_BYTES for the
# windowed reads) cut a small file's group as a large one's. Run by tests/run.sh with
# $RINGSCAN = the binary and cwd = the project root.
#  1. pyarrow writes (seeded) 20,000 rows in one row group: list<int64>, list<string>,
#     struct<int64, string> and map<string, int64> with null rows, null elements and empty
#     lists, in 4 KiB pages, v2 pages without dictionaries (so a jump decodes no dictionary
#     again) and v1 pages with them, each with the page index (write_page_index) and without.
#  2. With the index, at 2 threads: steals > 0 (the build before: 0), the jsonl equals
#     pyarrow's rows, bytes_decompressed on 1 thread equals the uncut scan's and on 2 threads
#     passes it by at most (steals + 1) x what --limit 1 decompresses (each leaf's dictionary
#     and first page: a thief's core decodes the dictionaries once more, and at each steal a
#     page per leaf straddling the seam is decoded by both cores; a thief decoding from the
#     chunk's start, as before the offset index was used, cost 1.5-2x).
#  3. The same with the chunks read in windows of 16 KiB (task_nwin.c): steals > 0, values
#     equal, bytes_decompressed as in 2, and bytes_read at most the one-thread scan's plus
#     the leaves' dictionary pages (a thief's core reads those bytes only, not a window from
#     the chunk's start) and two windows per leaf and steal (the seams' pages).
#  4. Without the index (and with it under --no-page-index): no steal at 2 threads and
#     bytes_decompressed equal to the uncut scan's, values equal (the old assertions).
#  5. With an id column first (its pages move the splits' edges, task_window): steals > 0,
#     values equal.
#  6. An offset index one of whose first_row_index values is shifted by a row fails the cut
#     scan, on 1 and 2 threads, naming the page; read uncut or under --no-page-index the
#     rows are pyarrow's.
# Last line: "nested_steal: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv nested_steal

cat >"$dir/write.py" <<'PYEOF'
import sys
import pyarrow.parquet as pq
sys.path.insert(0, "tests/conformance")
import gen_expected as ge

out, v2, pi = sys.argv[1], sys.argv[2] == "v2", sys.argv[3] == "pi"
sys.path.insert(0, "tests/cli")
import nested_mix
t = nested_mix.write(out, v2, 35, ls_mod=50, b_mod=40, page_index=pi)
md = pq.ParquetFile(out).metadata
assert md.num_row_groups == 1 and md.row_group(0).column(1).has_offset_index == pi
rg = md.row_group(0)  # the nested leaves' dictionary pages' bytes, a thief reads them again
dict_bytes = sum(rg.column(i).data_page_offset - rg.column(i).dictionary_page_offset
                 for i in range(1, rg.num_columns) if rg.column(i).has_dictionary_page)
open(out + ".dict", "w").write("%d\n" % dict_bytes)
ge.write_jsonl(out + ".jsonl", t.select(["li", "ls", "st", "mp"]))
ge.write_jsonl(out + "_id.jsonl", t)
PYEOF

stat_of() { sed -n "s/.*[ ,]$1 \([0-9]*\).*/\1/p" "$2" | head -n1; }
lower=RINGSCAN_TEST_NEST_SPLIT_BYTES=40000
cols=li,ls,st,mp

# run NAME ENV... -- ARGS...: $R scan with the env set, stdout to $dir/NAME.out, stats to
# $dir/NAME.st
run() {
    local name=$1; shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$R" scan "$@" --stats >"$dir/$name.out" 2>"$dir/$name.st"
}

# run_sched NAME COND ENV... -- ARGS...: run, and once more when COND fails after it. A
# 2-thread scan's steals and decoded or read bytes depend on which core's task reaches a split
# first, which load on the machine changes (an order past the parks decodes again, by design:
# format/nest_stream.c invariant 5; CI saw it once): a rerun tells such a run from a
# regression, which repeats.
run_sched() {
    local name=$1 cond=$2
    shift 2
    run "$name" "$@"
    eval "$cond" || run "$name" "$@"
}
# c2_ok: the 2-thread run c2 within the bounds checked below (pi, win, d0, dl, f, c1 set)
c2_ok() {
    local d2 s2 r1 r2
    d2=$(stat_of bytes_decompressed "$dir/c2.st"); s2=$(stat_of steals "$dir/c2.st")
    r1=$(stat_of bytes_read "$dir/c1.st"); r2=$(stat_of bytes_read "$dir/c2.st")
    [ -n "$d2" ] && [ -n "$s2" ] && [ -n "$r2" ] || return 1
    if [ $pi = pi ]; then
        [ "$s2" -gt 0 ] && [ "$d2" -ge "$d0" ] && [ $((d2 - d0)) -le $(((s2 + 1) * dl)) ] || return 1
    else
        [ "$s2" = 0 ] && [ "$d2" = "$d0" ] || return 1
    fi
    [ -z "$win" ] || [ "$r2" -le $((r1 + $(cat "$f.dict") + (s2 + 1) * 6 * 32768)) ]
}

for mode in v2 v1; do
    for pi in pi nopi; do
        f="$dir/$mode$pi.parquet"
        if ! "$PY" "$dir/write.py" "$f" "$mode" "$pi" 2>"$dir/py.err"; then
            bad "$mode $pi: pyarrow could not write the file: $(tail -n 3 "$dir/py.err")"
            continue
        fi
        run u0 X=1 -- "$f" --columns $cols --format checksum --threads 1
        d0=$(stat_of bytes_decompressed "$dir/u0.st")
        run ul X=1 -- "$f" --columns $cols --format checksum --threads 1 --limit 1
        dl=$(stat_of bytes_decompressed "$dir/ul.st") # (each leaf's dictionary and first page)
        for win in "" RINGSCAN_TEST_NEST_WINDOW_BYTES=16384; do
            tag="$mode $pi ${win:+windowed}"
            run c1 $lower $win -- "$f" --columns $cols --format jsonl --ordered --threads 1
            run_sched c2 c2_ok $lower $win -- "$f" --columns $cols --format jsonl --ordered --threads 2
            d1=$(stat_of bytes_decompressed "$dir/c1.st"); d2=$(stat_of bytes_decompressed "$dir/c2.st")
            s2=$(stat_of steals "$dir/c2.st"); sp=$(stat_of splits "$dir/c1.st")
            r1=$(stat_of bytes_read "$dir/c1.st"); r2=$(stat_of bytes_read "$dir/c2.st")
            check 'cmp -s "$dir/c1.out" "$f.jsonl" && cmp -s "$dir/c2.out" "$f.jsonl"' \
                "$tag: rows differ from pyarrow's: $(head -c 300 "$dir/c2.st") $(diff "$dir/c2.out" "$f.jsonl" | head -n 4)"
            check '[ -n "$sp" ] && [ "$sp" -gt 4 ] && [ -n "$d0" ] && [ "$d1" = "$d0" ]' \
                "$tag: 1 thread, $sp splits: bytes_decompressed $d1, uncut $d0"
            if [ $pi = pi ]; then
                check '[ -n "$s2" ] && [ "$s2" -gt 0 ]' "$tag: 2 threads: $s2 steals (want some)"
                check '[ -n "$d2" ] && [ -n "$dl" ] && [ "$d2" -ge "$d0" ] && [ $((d2 - d0)) -le $(((s2 + 1) * dl)) ]' \
                    "$tag: 2 threads ($s2 steals): bytes_decompressed $d2, uncut $d0, a first page and dictionary per leaf $dl"
            else
                check '[ "$s2" = 0 ] && [ "$d2" = "$d0" ]' \
                    "$tag: 2 threads: $s2 steals (want 0), bytes_decompressed $d2, uncut $d0"
            fi
            db=$(cat "$f.dict")
            [ -n "$win" ] && check '[ -n "$r1" ] && [ -n "$r2" ] && [ "$r2" -le $((r1 + db + (s2 + 1) * 6 * 32768)) ]' \
                "$tag: 2 threads ($s2 steals) read $r2 bytes, 1 thread $r1 (dictionaries $db)"
        done
        if [ $pi = pi ]; then
            run_sched n2 '[ "$(stat_of bytes_decompressed "$dir/n2.st")" = "$d0" ]' \
                $lower -- "$f" --columns $cols --format jsonl --ordered --threads 2 --no-page-index
            check 'cmp -s "$dir/n2.out" "$f.jsonl" && [ "$(stat_of steals "$dir/n2.st")" = 0 ] &&
                   [ "$(stat_of bytes_decompressed "$dir/n2.st")" = "$d0" ]' \
                "$mode --no-page-index: $(stat_of steals "$dir/n2.st") steals, bytes_decompressed $(stat_of bytes_decompressed "$dir/n2.st"), uncut $d0 $(diff "$dir/n2.out" "$f.jsonl" | head -n 4)"
            run_sched i2 '[ "$(stat_of steals "$dir/i2.st")" -gt 0 ]' $lower -- "$f" --format jsonl --ordered --threads 2
            check 'cmp -s "$dir/i2.out" "${f}_id.jsonl" && [ "$(stat_of steals "$dir/i2.st")" -gt 0 ]' \
                "$mode id first: $(stat_of steals "$dir/i2.st") steals $(head -c 300 "$dir/i2.st") $(diff "$dir/i2.out" "${f}_id.jsonl" | head -n 4)"
        fi
    done
done
# 6. an offset index whose rows disagree with the levels (one page's first_row_index one
#    later) fails the cut scan naming the page, on 1 and 2 threads (a thief would start at
#    the wrong row: each page a stream decodes that the index starts is checked); uncut
#    (no index read) and under --no-page-index the rows are read as ever
cat >"$dir/corrupt.py" <<'PYEOF'
import sys, pyarrow.parquet as pq
src, dst = sys.argv[1], sys.argv[2]
data = bytearray(open(src, "rb").read())
off0 = pq.ParquetFile(src).metadata.row_group(0).column(1).data_page_offset  # li's first page
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F; v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v: return bytes(out)
def read_varint(buf, i):
    v = s = 0
    while True:
        b = buf[i]; i += 1; v |= (b & 0x7F) << s; s += 7
        if not b & 0x80: return v, i
zz = lambda n: (n << 1) ^ (n >> 63)
at = data.rfind(b"\x16" + varint(zz(off0)) + b"\x15")
assert at > 0
i, pages = at, []
while data[i] == 0x16:  # PageLocation: offset, compressed_page_size, first_row_index, stop
    o, i = read_varint(data, i + 1); assert data[i] == 0x15
    sz, i = read_varint(data, i + 1); assert data[i] == 0x16
    j = i + 1; fr, i = read_varint(data, j); assert data[i] == 0; i += 1
    pages.append((j, i - 1, fr >> 1))
for k in range(2, len(pages) - 1):  # one page's first row one later, same varint length
    j, e, fr = pages[k]
    if fr + 1 < pages[k + 1][2] and len(varint(zz(fr + 1))) == e - j:
        data[j:e] = varint(zz(fr + 1)); break
else:
    sys.exit("no page to shift")
open(dst, "wb").write(data)
print("page", k, "of", len(pages), "first row", fr, "->", fr + 1)
PYEOF
f="$dir/v2pi.parquet"
if [ -f "$f" ] && "$PY" "$dir/corrupt.py" "$f" "$dir/bad.parquet" >"$dir/corrupt.out" 2>&1; then
    for t in 1 2; do
        env $lower "$R" scan "$dir/bad.parquet" --columns $cols --format checksum --threads $t >"$dir/got" 2>"$dir/err"; rc=$?
        check '[ $rc != 0 ] && grep -q "offset index starts row" "$dir/err"' \
            "a shifted offset index ($(cat "$dir/corrupt.out")), $t threads: exit $rc, $(head -c 300 "$dir/err") $(cat "$dir/got")"
    done
    "$R" scan "$f" --columns $cols --format checksum >"$dir/sum0" 2>&1
    for how in "" "--no-page-index"; do
        if [ -z "$how" ]; then "$R" scan "$dir/bad.parquet" --columns $cols --format checksum >"$dir/sum1" 2>&1
        else env $lower "$R" scan "$dir/bad.parquet" --columns $cols --format checksum $how >"$dir/sum1" 2>&1; fi
        check 'grep -q "^rows 20000 checksum" "$dir/sum1" && cmp -s "$dir/sum0" "$dir/sum1"' \
            "a shifted offset index ${how:-uncut}: $(cat "$dir/sum1"), the file before $(cat "$dir/sum0")"
    done
else
    bad "could not shift the offset index: $(cat "$dir/corrupt.out" 2>/dev/null)"
fi
summary nested_steal
