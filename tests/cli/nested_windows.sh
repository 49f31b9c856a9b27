#!/usr/bin/env bash
# tests/cli/nested_windows.sh: a nested leaf's column chunk larger than the read window is read
# in windows as its rows are decoded (scan/task_nwin.c, format/nest_stream.c invariant 6), not
# in one read of the whole chunk (pyarrow's default 1 Mi-row group of a list<float32> of 600
# held a 2.4 GB chunk: --limit 2 read all of it and a full scan held about three times as
# much). RINGSCAN_TEST_NEST_WINDOW_BYTES (test only: scan/plan_nested.c) lowers the window so
# that a small file's chunks take many windows; RINGSCAN_TEST_NEST_SPLIT_BYTES cuts the group
# too (nested_big_rowgroup.sh). Run by tests/run.sh with $RINGSCAN = the binary and cwd = the
# project root.
#  1. pyarrow writes (seeded) 40,000 rows in one row group: a flat int64 id, struct<int64,
#     string>, list<string> and last list<float32> (values k/8, exact), with null rows, null
#     elements and empty lists, in 8 KiB pages: v1 pages with dictionaries, v2 without, and a
#     file of 1 MiB pages (each page larger than the 64 KiB window: the window grows to it);
#     for section 8 a v1 file with a 5 MB flat column last (a remote open's 1 MiB tail read
#     keeps the file's last bytes, which would hide the nested chunks' reads).
#  2. Windowed, cut or not, on 1 and 2 threads, the jsonl of every column equals pyarrow's
#     to_pylist rows (gen_expected's canonical JSONL), and the checksum the unwindowed scan's.
#  3. --stats stays truthful: the windowed scan read every byte of the nested chunks at least
#     once (bytes_read >= their sum, reads >= list chunk / window, or / page of 1 MiB pages)
#     and at most a fifth more than the file (a window starts at the page the last one cut).
#  4. A flat filter (id > 12345) gives pyarrow's rows, windowed and cut.
#  5. --limit 10 --ordered gives pyarrow's first rows, and of the nested columns reads under a
#     quarter of their chunks (before: every nested chunk whole).
#  6. A chunk missing bytes in its middle (4 KiB taken out of the list's chunk, zeros at its
#     end so the footer still points right) fails windowed with the unwindowed scan's error:
#     RINGSCAN_EFORMAT naming the offset and the column.
#  7. The Arrow export (libringscan.so through tests/cli/rs_ctypes.py; unordered, compared
#     sorted by id) equals pyarrow's table, cut or not (not under the sanitizer pass).
#  8. Through the simulated object store and over HTTP (nginx, net_lib.bash) the windows are
#     the store's requests: values equal, cut or not, on 2 threads; the full scan fetches all of
#     the nested chunks (store_bytes, store_requests at least a window's each), --limit 10
#     reads under a quarter of them (bytes_read; store_bytes adds only the open's tail read).
# Last line: "nested_windows: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/net_lib.bash"
need_pyenv nested_windows

cat >"$dir/write.py" <<'PYEOF'
import random, sys
import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
sys.path.insert(0, "tests/conformance")
import gen_expected as ge

out, mode = sys.argv[1], sys.argv[2]
rnd = random.Random(37)
n = 40000
lf = [None if i % 17 == 0 else [None if rnd.random() < 0.05 else rnd.randrange(-8000, 8000) / 8
                                for _ in range(rnd.randrange(0, 30))] for i in range(n)]
ls = [None if i % 11 == 0 else [None if (i + j) % 5 == 0 else "s%d_%d" % (i % 97, j)
                                for j in range(rnd.randrange(0, 4))] for i in range(n)]
st = [None if i % 7 == 0 else {"a": i % 1000, "b": None if i % 3 == 0 else "b%d" % (i % 89)}
      for i in range(n)]
t = pa.table({"id": pa.array(range(n), pa.int64()),
              "st": pa.array(st, pa.struct([("a", pa.int64()), ("b", pa.string())])),
              "ls": pa.array(ls, pa.list_(pa.string())),
              "lf": pa.array(lf, pa.list_(pa.float32()))})
if mode == "pad":  # 5 MB of a flat column last: a remote open's tail read keeps it, not them
    t = t.append_column("pad", pa.array(["%0128x" % rnd.getrandbits(512) for _ in range(n)]))
page = 1 << 20 if mode == "big" else 8192
pq.write_table(t, out, row_group_size=n, data_page_size=page, compression="snappy",
               data_page_version="2.0" if mode == "v2" else "1.0", use_dictionary=mode != "v2")
md = pq.ParquetFile(out).metadata
assert md.num_row_groups == 1
rg = md.row_group(0)
cols = [rg.column(j) for j in range(rg.num_columns)]
nested = sum(c.total_compressed_size for c in cols if "." in c.path_in_schema)
lfc = [c for c in cols if c.path_in_schema.startswith("lf.")][0]
lf_off = lfc.dictionary_page_offset if lfc.has_dictionary_page else lfc.data_page_offset
print(nested, lf_off, lfc.total_compressed_size)
t = t.select(["id", "st", "ls", "lf"])
for where, rows in (("", t), ("_f", t.filter(pc.greater(t["id"], 12345))), ("_l", t.slice(0, 10))):
    ge.write_jsonl(out + where + ".jsonl", rows)
PYEOF

stat_of() { sed -n "s/\(^\|.*[ ,]\)$1 \([0-9]*\).*/\2/p" "$2" | head -n1; }
win=65536
W="RINGSCAN_TEST_NEST_WINDOW_BYTES=$win"
cut="RINGSCAN_TEST_NEST_SPLIT_BYTES=300000"

for mode in v1 v2 big; do
    f="$dir/$mode.parquet"
    if ! "$PY" "$dir/write.py" "$f" "$mode" >"$dir/sizes" 2>"$dir/py.err"; then
        bad "$mode: pyarrow could not write the file: $(tail -n 3 "$dir/py.err")"
        continue
    fi
    read -r nested lf_off lf_len <"$dir/sizes"
    size=$(stat -c %s "$f")
    check '[ "$lf_len" -gt $((8 * win)) ]' "$mode: the list's chunk ($lf_len bytes) is not over 8 windows"
    # 2. values, windowed, cut or not, 1 and 2 threads
    "$R" scan "$f" --format checksum >"$dir/sum0" 2>&1
    for c in "" "$cut"; do
        for t in 1 2; do
            env $W $c "$R" scan "$f" --format jsonl --ordered --threads $t >"$dir/got" 2>"$dir/err"
            check 'cmp -s "$dir/got" "$f.jsonl"' "$mode ${c:-uncut}, $t threads: windowed rows differ from pyarrow: $(head -c 300 "$dir/err") $(diff "$dir/got" "$f.jsonl" | head -n 4)"
            env $W $c "$R" scan "$f" --format checksum --threads $t >"$dir/sum1" 2>&1
            check 'grep -q "^rows 40000 checksum" "$dir/sum0" && cmp -s "$dir/sum0" "$dir/sum1"' \
                "$mode ${c:-uncut}, $t threads: checksum windowed $(cat "$dir/sum1"), whole $(cat "$dir/sum0")"
        done
    done
    # 3. the reads --stats reports
    env $W "$R" scan "$f" --format checksum --threads 1 --stats >/dev/null 2>"$dir/s1"
    reads=$(stat_of reads "$dir/s1"); br=$(stat_of bytes_read "$dir/s1")
    minr=$((lf_len / win)); [ $mode = big ] && minr=$((lf_len >> 20)) # (a window a page)
    check '[ -n "$br" ] && [ "$br" -ge "$nested" ] && [ $((br * 5)) -le $((size * 6)) ] && [ "$reads" -ge $minr ]' \
        "$mode: windowed scan: reads $reads, bytes_read $br; nested chunks $nested bytes, list chunk $lf_len, file $size"
    # 4. a flat filter
    for c in "" "$cut"; do
        env $W $c "$R" scan "$f" --where "id > 12345" --format jsonl --ordered >"$dir/got" 2>"$dir/err"
        check 'cmp -s "$dir/got" "${f}_f.jsonl"' "$mode ${c:-uncut}: windowed filtered rows differ: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_f.jsonl" | head -n 4)"
    done
    # 5. a limit reads the windows of its rows (of 1 MiB pages: a page per leaf, all but whole)
    for c in "" "$cut"; do
        env $W $c "$R" scan "$f" --limit 10 --ordered --format jsonl --threads 1 >"$dir/got" 2>"$dir/err"
        check 'cmp -s "$dir/got" "${f}_l.jsonl"' "$mode ${c:-uncut}: --limit 10 differs: $(head -c 300 "$dir/err") $(diff "$dir/got" "${f}_l.jsonl" | head -n 4)"
        [ $mode = big ] && continue
        env $W $c "$R" scan "$f" --columns st,ls,lf --limit 10 --format checksum --threads 1 --stats >/dev/null 2>"$dir/s1"
        br=$(stat_of bytes_read "$dir/s1")
        check '[ -n "$br" ] && [ $((br * 4)) -lt "$nested" ]' \
            "$mode ${c:-uncut}: --limit 10 of the nested columns read $br bytes of their chunks' $nested"
    done
    # 6. a chunk missing bytes
    [ $mode = big ] && continue
    "$PY" -c "
import sys
b = open(sys.argv[1], 'rb').read()
off, n, k = int(sys.argv[2]), int(sys.argv[3]), 4096
at = off + n // 2
open(sys.argv[4], 'wb').write(b[:at] + b[at + k:off + n] + bytes(k) + b[off + n:])" "$f" "$lf_off" "$lf_len" "$dir/bad.parquet"
    "$R" scan "$dir/bad.parquet" --format checksum >/dev/null 2>"$dir/e0"; rc0=$?
    env $W "$R" scan "$dir/bad.parquet" --format checksum >/dev/null 2>"$dir/e1"; rc1=$?
    check '[ $rc0 != 0 ] && [ $rc1 = $rc0 ] && cmp -s "$dir/e0" "$dir/e1" && grep -q "offset [0-9]" "$dir/e1" && grep -q "lf" "$dir/e1"' \
        "$mode: chunk missing bytes: windowed exit $rc1 '$(head -c 300 "$dir/e1")', whole exit $rc0 '$(head -c 300 "$dir/e0")'"
done
# 7. the Arrow export (the leaves built as columns: task_nested.c cols_ok), cut or not
lib=$(cd "$(dirname "$R")/../lib" 2>/dev/null && pwd)/libringscan.so
if [ "${RINGSCAN_SANITIZED:-0}" != 1 ]; then # (the sanitizer pass builds no shared library)
    for c in "" "$cut"; do
        env $W $c "$PY" -c "
import sys
sys.path.insert(0, 'tests/cli')
import pyarrow.parquet as pq, rs_ctypes as rs
lib = rs.load(sys.argv[1])
for path in sys.argv[2:]:
    got, err = rs.read_table(lib, path, columns=['id', 'st', 'ls', 'lf'])
    same = got is not None and got.sort_by('id').equals(pq.read_table(path).select(['id', 'st', 'ls', 'lf']))
    print('ok' if same else 'FAIL: %s: the Arrow export differs from pyarrow (%s)' % (path, err))" \
            "$lib" "$dir/v1.parquet" "$dir/v2.parquet" "$dir/big.parquet" >"$dir/out" 2>&1
        check '[ "$(grep -c "^ok$" "$dir/out")" = 3 ]' "Arrow export ${c:-uncut}: $(head -c 400 "$dir/out")"
    done
fi
# 8. a simulated store and HTTP
mkdir -p "$dir/www" "$dir/ng"
f="$dir/www/pad.parquet"
"$PY" "$dir/write.py" "$f" pad >"$dir/sizes" 2>"$dir/py.err" || bad "pyarrow could not write pad.parquet: $(tail -n 3 "$dir/py.err")"
read -r nested lf_off lf_len <"$dir/sizes"
nginx_start "$dir/www" "$dir/ng"
for src in "$f --store sim:ttfb=1ms,bw=4000MB/s" "http://127.0.0.1:$NGINX_PORT/pad.parquet"; do
    for c in "" "$cut"; do
        env $W $c "$R" scan $src --columns id,st,ls,lf --format jsonl --ordered --threads 2 >"$dir/got" 2>"$dir/err"
        check 'cmp -s "$dir/got" "$f.jsonl"' "${src%% *} ${c:-uncut}: windowed rows differ from pyarrow: $(head -c 300 "$dir/err") $(diff "$dir/got" "$f.jsonl" | head -n 4)"
    done
    env $W "$R" scan $src --columns st,ls,lf --format checksum --stats >/dev/null 2>"$dir/s0"
    env $W "$R" scan $src --columns st,ls,lf --limit 10 --format checksum --threads 1 --stats >/dev/null 2>"$dir/s1"
    b0=$(stat_of store_bytes "$dir/s0"); q0=$(stat_of store_requests "$dir/s0")
    r1=$(stat_of bytes_read "$dir/s1"); b1=$(stat_of store_bytes "$dir/s1")
    check '[ -n "$r1" ] && [ "$b0" -ge "$nested" ] && [ "$q0" -ge $((lf_len / win)) ] && [ $((r1 * 4)) -lt "$nested" ] && [ "$b1" -le $((r1 + 1048576)) ]' \
        "${src%% *}: store bytes $b0 in $q0 requests for the whole scan; under --limit 10 bytes_read $r1, store bytes $b1 (with the open's 1 MiB tail); nested chunks $nested"
done
summary nested_windows
