# tests/cli/lib.bash: sourced by the tests/cli/*.sh scripts (not run by tests/run.sh, which
# runs *.sh only). Sets R (the binary: $RINGSCAN or zig-out/bin/ringscan), dir (a temporary
# folder removed at exit) and the counters with ok / bad / check; summary NAME prints the
# "NAME: N passed, N failed" line tests/run.sh adds up and returns non-zero after a failure.
set -u
R=${RINGSCAN:-zig-out/bin/ringscan}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0; failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
# usage_is MESSAGE CMD...: exit status 2, first stderr line MESSAGE, nothing on stdout
usage_is() {
    local want=$1; shift
    "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
    local got; got=$(head -n1 "$dir/err")
    if [ "$rc" -ne 2 ]; then bad "$*: exit $rc, want 2 ($got)"
    elif [ "$got" != "$want" ]; then bad "$*: stderr '$got', want '$want'"
    elif [ -s "$dir/out" ]; then bad "$*: wrote to stdout: $(head -c 200 "$dir/out")"
    else ok; fi
}
summary() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
# tiny_budget_same PATH ROWS: PATH scanned with a 1-byte fetch budget (below any split's end)
# gives the same checksum as with no budget (and ROWS rows), ordered and unordered, 1 and 2
# threads: four checks
tiny_budget_same() {
    "$R" scan "$1" --format checksum --fetch-budget 0 >"$dir/sum0" 2>&1
    local order t rows=$2 # (check evals its test in its own frame, where $2 is not ours)
    for order in ordered unordered; do
        for t in 1 2; do
            timeout 120 "$R" scan "$1" --format checksum --$order --threads $t --fetch-budget 1 \
                >"$dir/sum1" 2>&1
            check 'grep -q "^rows $rows checksum" "$dir/sum0" && cmp -s "$dir/sum0" "$dir/sum1"' \
                "$order, $t threads, a 1-byte budget: $(head -c 300 "$dir/sum1") (ungated: $(cat "$dir/sum0"))"
        done
    done
}
# need_py NAME: py = the test venv's python (scripts/pyenv.sh: pyarrow + duckdb), or the
# reason and "NAME: 0 passed, 1 failed" printed and exit 1
need_py() {
    local err=$dir/pyenv.err
    if ! py=$(scripts/pyenv.sh 2>"$err" | tail -n1) || [ ! -x "$py" ]; then
        echo "$1: scripts/pyenv.sh failed: $(tail -n 3 "$err" | tr '\n' ' ')"
        echo "$1: 0 passed, 1 failed"; exit 1
    fi
}
# need_pyenv NAME: as need_py, the python in PY
need_pyenv() {
    need_py "$1"
    PY=$py
}
# need_lib NAME: LIB = the shared library beside $R (<prefix>/lib/libringscan.so), or NAME
# skipped under the sanitizer pass (scripts/sanitize.sh builds no shared library to load), or
# "no LIB" failed and exit 1
# py_cases SCRIPT MIN: runs tests/cli/SCRIPT with $LIB and $dir, prints its lines, and counts
# each "ok" line as passed, "FAIL:" as failed, "skip" as skipped (into $skipped); fails when
# it exits non-zero or passes fewer than MIN cases
py_cases() {
    "$PY" "tests/cli/$1" "$LIB" "$dir" >"$dir/out" 2>&1
    local rc=$? word
    cat "$dir/out"
    skipped=0
    while read -r word _; do
        case "$word" in ok) ok ;; FAIL:) failed=$((failed + 1)) ;; skip) skipped=$((skipped + 1)) ;; esac
    done <"$dir/out"
    [ "$rc" -eq 0 ] || bad "$1 exited $rc"
    [ "$passed" -ge "$2" ] || bad "only $passed cases passed"
}
need_lib() {
    if [ "${RINGSCAN_SANITIZED:-0}" = 1 ]; then
        echo "$1: skipped under the sanitizer pass (it reads libringscan.so; the normal pass runs it)"
        echo "$1: 0 passed, 0 failed, 1 skipped"; exit 0
    fi
    LIB=$(cd "$(dirname "$R")/../lib" && pwd)/libringscan.so
    [ -f "$LIB" ] || { bad "no $LIB"; summary "$1"; exit 1; }
}
