#!/usr/bin/env bash
# Builds the library, the CLI and every test program with Debian's clang under a sanitizer and
# runs the suite. `scripts/sanitize.sh address` = ASan + UBSan (+ LeakSanitizer);
# `scripts/sanitize.sh thread` = ThreadSanitizer. Output in build-<kind>/.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
kind=${1:-address}
case "$kind" in
  address) san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -DRINGSCAN_ASAN=1" ;;
  thread)  san="-fsanitize=thread -DRINGSCAN_TSAN=1" ;;
  *) echo "usage: $0 address|thread"; exit 2 ;;
esac
out=build-$kind
mkdir -p "$out/obj" "$out/tests" "$out/bin"
CC=${CC:-clang}
# -march=native as build.zig's default target: without it __AVX2__ is unset and the vector paths
# the release build runs (format/rle.c bp_select8's gather, common/bits.h bits_rows_wide) are
# never compiled here, so the sanitizers would check only their scalar stand-ins
flags="-std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -DRINGSCAN_CHECKED=1 -g -O1 -march=native -fno-omit-frame-pointer -I. -Iinclude -Itests $san"
libs="-luring -lmimalloc -lxxhash -lzstd -lsnappy -llz4 -lz -lbrotlidec -lbrotlienc -lm -lpthread"
# objects compiled with other flags (an older script, another CC) are compiled again
[ "$(cat "$out/flags" 2>/dev/null)" = "$CC $flags" ] || rm -f "$out"/obj/*.o
echo "$CC $flags" >"$out/flags"
fail=0
# objs_of VAR DIR...: compiles DIR/*.c (and .S) into $out/obj, the names into array VAR
objs_of() {
    local -n acc=$1; shift
    acc=()
    local src obj d
    for d in "$@"; do
        for src in "$d"/*.c "$d"/*.S; do
            [ -f "$src" ] || continue
            obj="$out/obj/$(echo "$src" | tr / _).o"
            if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find common runtime io format filter scan bench include -name '*.h' -newer "$obj" 2>/dev/null | head -n1)" ]; then
                $CC $flags -c "$src" -o "$obj" || fail=1
            fi
            acc+=("$obj")
        done
    done
}
# the library has no bench/ object (build.zig): bench/ is its own archive, linked into the
# binary and into the tests that include a bench/ header
objs_of objs common runtime io format filter scan
objs_of bench_objs bench
[ $fail -eq 0 ] || { echo "sanitizer build failed"; echo "0 passed, 1 failed"; exit 1; }
rm -f "$out/libringscan.a" "$out/libringscan_bench.a"
ar rcs "$out/libringscan.a" "${objs[@]}"
ar rcs "$out/libringscan_bench.a" "${bench_objs[@]}"
if ls cli/*.c >/dev/null 2>&1; then
    $CC $flags cli/*.c "$out/libringscan_bench.a" "$out/libringscan.a" $libs -l:libboost_context.a -o "$out/bin/ringscan" || fail=1
fi
for t in tests/unit/test_*.c; do
    [ -f "$t" ] || continue
    bench_lib=()
    grep -q '#include "bench/' "$t" && bench_lib=("$out/libringscan_bench.a" -l:libboost_context.a)
    $CC $flags "$t" "${bench_lib[@]}" "$out/libringscan.a" $libs -o "$out/tests/$(basename "$t" .c)" || fail=1
done
[ $fail -eq 0 ] || { echo "sanitizer build failed"; echo "0 passed, 1 failed"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}
# the packaging tests (install.sh, python_pkg.sh) build and test the release package itself, not
# this build: they run once, in the normal pass, and say so here
RINGSCAN_SANITIZED=1 RINGSCAN="$root/$out/bin/ringscan" tests/run.sh "$out/tests"
