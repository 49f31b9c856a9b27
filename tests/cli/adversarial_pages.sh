#!/usr/bin/env bash
# tests/cli/adversarial_pages.sh: row groups without an offset index whose first column's pages
# are crafted (tests/cli/pqcraft.py), 40,000 rows in one group, so that 2 and 4 threads cut the
# group evenly and move each split's edges to that column's page starts at run time
# (format/page_walk.c pq_walk_snap, scan/task_pieces.c task_window):
#  - layouts that read: empty data pages before, between and after the others, a dictionary
#    page then one data page, 300 one-row pages then one page, one page per chunk, an empty
#    page before the last one-row page: at 1, 2 and 4 threads the same rows and checksum
#    (every row, a filter on the second column, the first column alone);
#  - layouts that do not (data pages of 20,000 rows for a group of 40,000, a dictionary page
#    alone, an empty data page alone): exit 1 at every thread count and query, naming the
#    offset and the column; a split's window counts the chunk's rows from the chunk's first
#    row ("column chunk holds 20000 rows, row group has 40000 (offset 4, column a)": it said
#    "holds -5000 rows, row group has 15000", counted from the split's window), and a column
#    decoded after a filter keeps the error's offset (it was dropped: "(column a)").
# The group's pieces (20,000 or 10,000 rows) are under the even cut's floor (scan.h
# SCAN_EVEN_CUT_MIN_ROWS): the test hook lowers it so the group is cut as these checks need.
# Last line: "adversarial_pages: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_pyenv adversarial_pages
export RINGSCAN_TEST_EVEN_CUT_MIN_ROWS=1
"$PY" - "$dir" <<'PYEOF' || { bad "pqcraft could not write the files"; summary adversarial_pages; exit 1; }
import sys, os
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "cli"))
from pqcraft import *
d = sys.argv[1]
N = 40000
R = list(range(N))
def req_page(vals):
    return page_v1([], [0] * len(vals), 0, 0, plain(INT64, vals), num_values=len(vals))
def one(name, pages_a, dictp=None):
    sch = [elem("schema", nchildren=2), elem("a", REQ, INT64), elem("b", REQ, INT64)]
    b_pages = [req_page(R[i:i + 5000]) for i in range(0, N, 5000)]
    write(f"{d}/{name}.parquet", sch, [(N, [dict(ptype=INT64, path=["a"], num_values=N, pages=pages_a, dict=dictp),
                                            dict(ptype=INT64, path=["b"], num_values=N, pages=b_pages)])])
one("zeros", [req_page([]), req_page(R[:20000]), req_page([]), req_page([]), req_page(R[20000:]), req_page([])])
one("dictthen", [page_v1([], [0] * N, 0, 0, dict_indices([i % 3 for i in R], 2), encoding=8)], dictp=dict_page(INT64, [1, 2, 3]))
one("manytiny", [req_page(R[i:i + 1]) for i in range(300)] + [req_page(R[300:])])
one("onepage", [req_page(R)])
one("zerolast", [req_page(R[:39999]), req_page([]), req_page(R[39999:])])
one("short", [req_page(R[:10000]), req_page(R[10000:20000])])
one("dictonly", [], dictp=dict_page(INT64, [1, 2, 3]))
one("zeroonly", [req_page([])])
PYEOF
queries=("--format checksum" "--where b>=30000 --format checksum" "--columns a --format checksum")
for name in zeros dictthen manytiny onepage zerolast; do
    for q in "${queries[@]}"; do
        want=$("$R" scan "$dir/$name.parquet" $q --threads 1 2>&1)
        for th in 2 4; do
            got=$("$R" scan "$dir/$name.parquet" $q --threads $th 2>&1)
            check '[[ "$want" == "rows "* ]] && [ "$got" = "$want" ]' "$name ($q) at $th threads: '$got', at 1 thread '$want'"
        done
    done
    n=$("$R" scan "$dir/$name.parquet" --where "b>=30000" --format checksum --threads 4 2>&1 | awk '{print $2}')
    check '[ "$n" = 10000 ]' "$name: b>=30000 gives $n rows"
done
for case in short:20000 dictonly:0 zeroonly:0; do
    name=${case%%:*} held=${case#*:}
    for q in "${queries[@]}"; do
        for th in 1 2 4; do
            "$R" scan "$dir/$name.parquet" $q --threads $th >"$dir/out" 2>"$dir/err"; rc=$?
            check '[ $rc -eq 1 ] && grep -qE "^ringscan: $dir/$name.parquet: .* \(offset [0-9]+, column a\)$" "$dir/err"' \
                "$name ($q) at $th threads: exit $rc, $(head -c 300 "$dir/err")"
            [ $th -gt 1 ] && check 'grep -qF "column chunk holds $held rows, row group has 40000 (offset 4, column a)" "$dir/err"' \
                "$name ($q) at $th threads: $(head -c 300 "$dir/err")"
        done
    done
done
summary adversarial_pages
