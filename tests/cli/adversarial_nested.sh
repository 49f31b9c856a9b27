#!/usr/bin/env bash
# tests/cli/adversarial_nested.sh: nested columns whose levels a writer got wrong (s20 review
# of the fast assemblies: format/nest_flat.c, nest_list.c, nest_struct.c), written by hand
# with tests/cli/pqcraft.py: each is read as pyarrow 26 reads it (values checked by hand
# against pyarrow.parquet) or refused with a message naming what is wrong, never a crash, a
# hang or a wrong value; every scan under 1 GB of address space and a time limit.
#  - lists (flat list<int64>, list<string>, list<struct>): a list spanning two pages, empty
#    pages (pyarrow 26 reads such a file as 0 rows; ringscan reads its 4), a chunk whose
#    footer claims 2^62 values; the first repetition level 1, levels above the maxima, a v2
#    page with no level bytes, a page claiming 2^31-1 values, a dictionary index out of
#    range, a leaf ending before its row group, a leaf running past it (in a group cut into
#    splits, named by the split's first row and the group's row count), a second row group's
#    dictionary-coded page with no dictionary page (refused, not read with the first group's
#    dictionary: a core's leaf streams keep their readers between chunks,
#    format/nest_stream.c);
#  - a page header of 1 MiB (read) and of 17 MiB (refused past 16 MiB, read whole or in
#    windows of any size);
#  - a struct's leaves and a list of structs' leaves that disagree on nulls or repetition;
#  - legacy shapes: a two-level list, a repeated group 'array', an unannotated repeated group,
#    MAP_KEY_VALUE, and projections by path through them.
# Last line: "adversarial_nested: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv adversarial_nested
"$PY" - "$dir" <<'PYEOF' || { bad "pqcraft could not write the files"; summary adversarial_nested; exit 1; }
import sys, os
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import *
d = sys.argv[1]
def one(name, sch, rows, chunks, **kw): write(f"{d}/{name}.parquet", sch, [(rows, chunks)], **kw)
def ch(pages, nv, ptype, path, **kw): return dict(ptype=ptype, path=path, num_values=nv, pages=pages, **kw)
def lst(ptype=INT64, elrep=OPT):
    return [elem("schema", nchildren=1), elem("l", OPT, nchildren=1, conv=3), elem("list", REP, nchildren=1), elem("element", elrep, ptype)]
P = ["l", "list", "element"]
rep, df = [0, 1, 0, 0, 0, 1], [3, 3, 0, 1, 2, 3]  # [1, 2], null, [], [null, 3]
V = plain(INT64, [1, 2, 3])
one("list_ok", lst(), 4, [ch([page_v1(rep, df, 1, 3, V)], 6, INT64, P)])
one("list_2pages", lst(), 4, [ch([page_v1(rep[:1], df[:1], 1, 3, plain(INT64, [1])), page_v1(rep[1:], df[1:], 1, 3, plain(INT64, [2, 3]))], 6, INT64, P)])
one("list_empty_pages", lst(), 4, [ch([page_v1([], [], 1, 3, b""), page_v1(rep, df, 1, 3, V), page_v2([], [], 1, 3, b"", num_rows=0)], 6, INT64, P)])
one("list_pairs_past", lst(), 3, [ch([page_v1(rep, df, 1, 3, V)], 6, INT64, P)])  # 4 rows of levels, 3 in the group
import struct as stc
BODY = stc.pack("<I", len(rle(rep, 1))) + rle(rep, 1) + stc.pack("<I", len(rle(df, 2))) + rle(df, 2) + V
def fat(nb):  # list_ok's page, its header carrying nb bytes of an unknown field (skipped by readers)
    return S((1, "i32", 0), (2, "i32", len(BODY)), (3, "i32", len(BODY)), (5, "struct", S((1, "i32", 6), (2, "i32", 0), (3, "i32", 3), (4, "i32", 3))),
             (100, "bin", b"x" * nb)).enc() + BODY
one("hdr_1m", lst(), 4, [ch([fat(1 << 20)], 6, INT64, P)])
one("hdr_17m", lst(), 4, [ch([fat(17 << 20)], 6, INT64, P)])
one("list_chunk_2e62", lst(), 4, [ch([page_v1(rep, df, 1, 3, V)], 2**62, INT64, P)])
one("list_startmid", lst(), 4, [ch([page_v1([1] + rep[1:], df, 1, 3, V)], 6, INT64, P)])
one("list_def_above", lst(elrep=REQ), 4, [ch([page_v1(rep, [2, 2, 0, 1, 3, 2], 1, 2, V)], 6, INT64, P)])
one("list_v2_nolevels", lst(), 4, [ch([page_v2(rep, df, 1, 3, V, rep_bytes=b"", def_bytes=b"")], 6, INT64, P)])
one("list_page_2e31", lst(), 4, [ch([page_v2(rep, df, 1, 3, V, num_values=2**31 - 1)], 6, INT64, P)])
one("list_dict_oob", lst(), 4, [ch([page_v1(rep, df, 1, 3, dict_indices([0, 1, 3], 2), encoding=8)], 6, INT64, P, dict=dict_page(INT64, [10, 20, 30]))])
g = lambda dp: (2, [ch([page_v1([0, 1, 0], [3, 3, 3], 1, 3, dict_indices([0, 1, 1], 1), encoding=8)], 3, BYTE_ARRAY, P, dict=dp)])
write(f"{d}/list_dict_gone.parquet", lst(BYTE_ARRAY), [g(dict_page(BYTE_ARRAY, [b"a", b"b"])), g(None)])
S = plain(BYTE_ARRAY, [b"a", b"", b"ccc"])
one("lstr_2pages", lst(BYTE_ARRAY), 4, [ch([page_v1(rep[:1], df[:1], 1, 3, plain(BYTE_ARRAY, [b"a"])), page_v1(rep[1:], df[1:], 1, 3, plain(BYTE_ARRAY, [b"", b"ccc"]))], 6, BYTE_ARRAY, P)])
one("lstr_rows_more", lst(BYTE_ARRAY), 5, [ch([page_v1(rep, df, 1, 3, S)], 6, BYTE_ARRAY, P)])
ST = [elem("schema", nchildren=1), elem("s", OPT, nchildren=2), elem("a", OPT, INT32), elem("b", OPT, BYTE_ARRAY)]
A = page_v1([], [2, 0, 1, 2], 0, 2, plain(INT32, [1, 2]))
sb = lambda lv: ch([page_v1([], lv, 0, 2, plain(BYTE_ARRAY, [b"x", b""]))], 4, BYTE_ARRAY, ["s", "b"])
one("st_null_disagree", ST, 4, [ch([A], 4, INT32, ["s", "a"]), sb([2, 0, 0, 2])])
one("st_valid_disagree", ST, 4, [ch([A], 4, INT32, ["s", "a"]), sb([2, 1, 1, 2])])
LS = [elem("schema", nchildren=1), elem("l", OPT, nchildren=1, conv=3), elem("list", REP, nchildren=1), elem("element", OPT, nchildren=2),
      elem("a", OPT, INT32), elem("b", OPT, BYTE_ARRAY)]
lr, da = [0, 1, 0, 0, 0], [4, 2, 0, 1, 3]  # [{1, "x"}, null], null, [], [{null, ""}]
la = ch([page_v1(lr, da, 1, 4, plain(INT32, [1]))], 5, INT32, ["l", "list", "element", "a"])
lb = lambda r, lv: ch([page_v1(r, lv, 1, 4, plain(BYTE_ARRAY, [b"x", b""]))], 5, BYTE_ARRAY, ["l", "list", "element", "b"])
one("ls_ok", LS, 4, [la, lb(lr, [4, 2, 0, 1, 4])])
one("ls_rep_disagree", LS, 4, [la, lb([0, 0, 0, 0, 1], [4, 2, 0, 1, 4])])
one("ls_null_disagree", LS, 4, [la, lb(lr, [4, 3, 0, 1, 4])])
lrep, ld = [0, 1, 0, 0], [2, 2, 0, 1]
one("leg_two_level", [elem("schema", nchildren=1), elem("l", OPT, nchildren=1, conv=3), elem("array", REP, INT32)], 3,
    [ch([page_v1(lrep, ld, 1, 2, plain(INT32, [1, 2]))], 4, INT32, ["l", "array"])])
one("leg_array", [elem("schema", nchildren=1), elem("l", OPT, nchildren=1, conv=3), elem("array", REP, nchildren=1), elem("x", OPT, INT32)], 3,
    [ch([page_v1(lrep, [3, 2, 0, 1], 1, 3, plain(INT32, [1]))], 4, INT32, ["l", "array", "x"])])
one("unannotated", [elem("schema", nchildren=1), elem("g", REP, nchildren=2), elem("a", OPT, INT32), elem("b", REQ, BYTE_ARRAY)], 3,
    [ch([page_v1(lrep, [2, 1, 0, 0], 1, 2, plain(INT32, [1]))], 4, INT32, ["g", "a"]),
     ch([page_v1(lrep, [1, 1, 0, 0], 1, 1, plain(BYTE_ARRAY, [b"p", b"q"]))], 4, BYTE_ARRAY, ["g", "b"])])
one("map_key_value", [elem("schema", nchildren=1), elem("m", OPT, nchildren=1, conv=2), elem("key_value", REP, nchildren=2), elem("key", REQ, BYTE_ARRAY), elem("value", OPT, INT32)], 3,
    [ch([page_v1(lrep, [2, 2, 0, 1], 1, 2, plain(BYTE_ARRAY, [b"a", b"b"]))], 4, BYTE_ARRAY, ["m", "key_value", "key"]),
     ch([page_v1(lrep, [3, 2, 0, 1], 1, 3, plain(INT32, [7]))], 4, INT32, ["m", "key_value", "value"])])
PYEOF
vm=1000000
[ "${RINGSCAN_SANITIZED:-0}" = 1 ] && vm=unlimited
# scan_is NAME ARGS... -- WANT: the jsonl rows (one line, space-separated) or "error: TEXT"
scan_is() {
    local name=$1; shift
    local args=(); while [ "$1" != -- ]; do args+=("$1"); shift; done; shift
    local want=$1 rc
    (ulimit -v $vm; timeout 60 "$R" scan "$dir/$name.parquet" --format jsonl --ordered "${args[@]}" >"$dir/out" 2>"$dir/err"); rc=$?
    if [ "${want#error: }" != "$want" ]; then
        check '[ $rc -eq 1 ] && grep -qF -- "${want#error: }" "$dir/err"' "$name ${args[*]}: exit $rc, $(head -c 300 "$dir/err"), want ${want}"
    else
        check '[ $rc -eq 0 ] && [ "$(tr "\n" " " <"$dir/out" | sed "s/ $//")" = "$want" ]' \
            "$name ${args[*]}: exit $rc, $(tr '\n' ' ' <"$dir/out" | head -c 300) $(head -c 300 "$dir/err"), want $want"
    fi
}
rows='{"l":[1,2]} {"l":null} {"l":[]} {"l":[null,3]}'
scan_is list_ok -- "$rows"
scan_is list_2pages -- "$rows"
scan_is list_empty_pages -- "$rows"
scan_is list_chunk_2e62 -- "$rows"
scan_is list_ok --limit 1 -- '{"l":[1,2]}'
scan_is list_startmid -- "error: the chunk's first repetition level is 1, not 0"
scan_is list_def_above -- "error: level pair (0, 3) above the column's (1, 2)"
scan_is list_v2_nolevels -- "error: data ends after 0 of 6 values"
scan_is list_page_2e31 -- "error: limit max_page_values=67108864 exceeded: page of 2147483647 values"
scan_is list_dict_oob -- "error: dictionary index 3 out of range (dictionary has 3 values)"
scan_is list_dict_gone --threads 1 -- "error: dictionary-encoded page without a dictionary (offset"
scan_is list_dict_gone --threads 1 --limit 2 -- '{"l":["YQ==","Yg=="]} {"l":["Yg=="]}'
# a group cut into one-row splits (RINGSCAN_TEST_NEST_SPLIT_BYTES=1, format/nest_stream.c): the
# error names the pair by the row its split starts at, and counts the rows from the group's
# first (it said "level pair 0 of the column chunk" for the chunk's pair 2, and "past the 1
# rows read" for the group's 3)
cut1() { RINGSCAN_TEST_NEST_SPLIT_BYTES=1 scan_is "$@"; }
scan_is list_pairs_past -- "error: column chunk holds 2 level pairs past the 3 rows read of its row group (offset 4, column l.list.element)"
cut1 list_pairs_past -- "error: column chunk holds 2 level pairs past the 3 rows read of its row group (offset 4, column l.list.element)"
cut1 list_pairs_past --threads 2 -- "error: column chunk holds 2 level pairs past the 3 rows read of its row group (offset 4, column l.list.element)"
scan_is st_null_disagree -- "error: level pair 2 of the column chunk: definition level below its parent's (offset"
cut1 st_null_disagree -- "error: level pair 0 from row 2 of the column chunk: definition level below its parent's (offset"
cut1 list_def_above -- "error: level pair (0, 3) above the column's (1, 2)"
# a page header is parsed within 16 MiB (PQ_NEST_HEADER_MAX) whatever the read window: a 17 MiB
# one read whole (the chunk under the window) and in windows of 50 bytes (grown by doubling
# to 26 MB, past the limit), and refused in windows of 1 byte (grown to exactly 16 MiB); now
# refused alike, as pyarrow refuses it ("Deserializing page header failed")
win() { local w=$1; shift; RINGSCAN_TEST_NEST_WINDOW_BYTES=$w scan_is "$@"; }
hdr_err="error: page header not parsed within 16777216 bytes (offset 4, column l.list.element)"
for w in "" 1 50 300; do
    win "$w" hdr_1m -- "$rows"
    win "$w" hdr_17m -- "$hdr_err"
done
scan_is lstr_2pages -- '{"l":["YQ==",""]} {"l":null} {"l":[]} {"l":[null,"Y2Nj"]}'
scan_is lstr_rows_more -- "error: level pair 6 of the column chunk: the column ends before its row group"
scan_is st_null_disagree -- "error: level pair 2 of the column chunk: definition level below its parent's"
scan_is st_valid_disagree -- "error: level pair 1 of the column chunk: defined where the field's first leaf is not"
scan_is ls_ok -- '{"l":[{"a":1,"b":"eA=="},null]} {"l":null} {"l":[]} {"l":[{"a":null,"b":""}]}'
scan_is ls_ok --columns l.list.element.b -- '{"l.list.element.b":["eA==",null]} {"l.list.element.b":null} {"l.list.element.b":[]} {"l.list.element.b":[""]}'
scan_is ls_rep_disagree -- "error: level pair 1 of the column chunk: repetition level not the one the structure expects"
scan_is ls_null_disagree -- "error: level pair 1 of the column chunk: defined where the field's first leaf is not"
scan_is leg_two_level -- '{"l":[1,2]} {"l":null} {"l":[]}'
scan_is leg_array -- '{"l":[{"x":1},{"x":null}]} {"l":null} {"l":[]}'
scan_is leg_array --columns l.array.x -- '{"l.array.x":[1,null]} {"l.array.x":null} {"l.array.x":[]}'
scan_is unannotated -- '{"g":[{"a":1,"b":"cA=="},{"a":null,"b":"cQ=="}]} {"g":[]} {"g":[]}'
scan_is unannotated --columns g.b -- '{"g.b":["cA==","cQ=="]} {"g.b":[]} {"g.b":[]}'
scan_is map_key_value -- '{"m":[{"key":"YQ==","value":7},{"key":"Yg==","value":null}]} {"m":null} {"m":[]}'
scan_is map_key_value --columns m.key_value.key -- '{"m.key_value.key":["YQ==","Yg=="]} {"m.key_value.key":null} {"m.key_value.key":[]}'
summary adversarial_nested
