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
need_lib() {
    if [ "${RINGSCAN_SANITIZED:-0}" = 1 ]; then
        echo "$1: skipped under the sanitizer pass (it reads libringscan.so; the normal pass runs it)"
        echo "$1: 0 passed, 0 failed, 1 skipped"; exit 0
    fi
    LIB=$(cd "$(dirname "$R")/../lib" && pwd)/libringscan.so
    [ -f "$LIB" ] || { bad "no $LIB"; summary "$1"; exit 1; }
}
# py_cases SCRIPT ARGS...: runs a case script with the test venv's python ($PY, need_pyenv),
# prints its output and counts its "ok NAME" and "FAIL: ..." lines into passed and failed (a
# non-zero exit is one more failure)
py_cases() {
    "$PY" "$@" >"$dir/out" 2>&1
    local rc=$? word
    cat "$dir/out"
    while read -r word _; do
        case "$word" in ok) ok ;; FAIL:) failed=$((failed + 1)) ;; esac
    done <"$dir/out"
    [ "$rc" -eq 0 ] || bad "$1 exited $rc"
}
