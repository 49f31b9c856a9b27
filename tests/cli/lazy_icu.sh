#!/usr/bin/env bash
# tests/cli/lazy_icu.sh: ICU is loaded on first use (common/icu_dl.h), not linked: a process
# that never asks for ILIKE or a zone name never maps it. Run by tests/run.sh with $RINGSCAN =
# the binary and cwd = the project root.
#  1. Neither the binary nor libringscan.so needs libicu (readelf NEEDED, and ldd's closure).
#  2. With a broken libicuuc.so.N first on the library path: a scan with LIKE, and meta, work
#     as without it (nothing loads ICU); an ILIKE scan fails (exit 1, nothing on stdout)
#     naming the column, the library and the package, without a crash.
#  3. With the real ICU, ILIKE folds characters outside ASCII ('ÄPFEL' ILIKE 'äpfel'). Zone
#     names through ICU's calendar (loaded the same way) are dataset_cast.sh's.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
need_py lazy_icu

so=$(cd "$(dirname "$R")/.." && pwd)/lib/libringscan.so
check '! readelf -d "$R" | grep -q "NEEDED.*libicu" && ! ldd "$R" | grep -q libicu' \
    "the binary needs ICU: $(ldd "$R" | grep icu | tr '\n' ' ')"
if [ -f "$so" ]; then
    check '! readelf -d "$so" | grep -q "NEEDED.*libicu" && ! ldd "$so" | grep -q libicu' \
        "libringscan.so needs ICU: $(ldd "$so" | grep icu | tr '\n' ' ')"
fi

f=$dir/words.parquet
"$py" - "$f" <<'PY'
import sys
import pyarrow as pa, pyarrow.parquet as pq
words = ["ÄPFEL", "äpfel", "Apfel", "apfelstrudel", "İSTANBUL", "istanbul", "STRASSE", "straße",
         "STRAẞE", "Ωmega", "ωMEGA", "plain", None]
pq.write_table(pa.table({"i": list(range(len(words))), "w": words}), sys.argv[1])
PY
icu=$(ldconfig -p | sed -nE 's/^\s*(libicuuc\.so\.[0-9]+) .*/\1/p' | head -n1)
check '[ -n "$icu" ]' "no libicuuc in ldconfig -p"
mkdir -p "$dir/badlib"
echo "not a library" >"$dir/badlib/${icu:-libicuuc.so.72}"
"$R" scan "$f" --where "w LIKE 'Ä%'" --columns i --format csv >"$dir/like" 2>&1
check '[ "$(tr "\n" " " <"$dir/like")" = "i 0 " ]' "LIKE: $(head -c 300 "$dir/like")"
LD_LIBRARY_PATH=$dir/badlib "$R" scan "$f" --where "w LIKE 'Ä%'" --columns i --format csv >"$dir/out" 2>&1
rc=$?
check '[ $rc -eq 0 ] && cmp -s "$dir/out" "$dir/like"' "LIKE beside a broken ICU: exit $rc: $(head -c 300 "$dir/out")"
LD_LIBRARY_PATH=$dir/badlib "$R" meta "$f" >"$dir/out" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "meta beside a broken ICU: exit $rc: $(head -c 300 "$dir/out")"
LD_LIBRARY_PATH=$dir/badlib "$R" scan "$f" --where "w ILIKE 'äpfel'" --columns i --format csv \
    >"$dir/out" 2>"$dir/err"
rc=$?
check '[ $rc -eq 1 ] && [ ! -s "$dir/out" ] && grep -q "ILIKE on .w. needs ICU: .*$icu.*libicu" "$dir/err"' \
    "ILIKE beside a broken ICU: exit $rc: $(head -c 400 "$dir/err")"

# 3. the real ICU, loaded: characters outside ASCII folded (filter_duckdb.sh compares ILIKE
# with DuckDB at length; here the load is what is tested)
ilike() { # PATTERN WANT: the ids ILIKE PATTERN keeps, as one line
    want=$2
    "$R" scan "$f" --where "w ILIKE '$1'" --columns i --format csv 2>&1 | tail -n +2 | tr '\n' ' ' >"$dir/got"
    check '[ "$(cat "$dir/got")" = "$want" ]' "w ILIKE '$1': got '$(cat "$dir/got")', want '$want'"
}
ilike "äpfel" "0 1 "
ilike "ÄPFEL%" "0 1 "
ilike "%MEGA" "9 10 "
ilike "ω%" "9 10 "
summary lazy_icu
