#!/usr/bin/env bash
# Builds every tests/fuzz/fuzz_*.c as a libFuzzer target with Debian's clang
# (-fsanitize=fuzzer,address,undefined) against the library sources (runtime/ io/ format/
# filter/ scan/, compiled once into build-fuzz/obj, archived), then for each target:
#   1. replays every file under tests/fuzz/regressions/<target>/ (a failure there fails it);
#   2. fuzzes for N seconds from tests/fuzz/corpus/<target>/ (plus, for fuzz_meta, fuzz_scan
#      and fuzz_api, the files of ../shared/parquet-testing/data; fuzz_api also from
#      fuzz_scan's corpus), working corpus in
#      build-fuzz/corpus/<target>/.
# Prints per target the executions done and "<target>: 1 passed, 0 failed" (or 0/1, with the
# crash input saved under build-fuzz/crashes/), then "N passed, N failed".
# A target that fails to compile fails alone.
# Usage: scripts/fuzz.sh [--seconds N | --smoke] [target ...]   (default 60 s each)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=60
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
      --seconds) seconds=$2; shift 2 ;;
      --smoke) seconds=10; shift ;;
      -h|--help) sed -n 2,12p "$0"; exit 0 ;;
      *) targets+=("$1"); shift ;;
    esac
done
out=build-fuzz
mkdir -p "$out/obj" "$out/bin" "$out/crashes" "$out/logs" "$out/corpus"
CC=${CC:-clang}
# -march=native as build.zig (and sanitize.sh): the vector paths the release build runs
flags="-std=c17 -g -O1 -march=native -fno-omit-frame-pointer -D_GNU_SOURCE -DRINGSCAN_CHECKED=1 -DRINGSCAN_ASAN=1 -I. -Iinclude -Itests -fsanitize=address,undefined -fno-sanitize-recover=undefined"
libs="-luring -lmimalloc -lxxhash -lzstd -lsnappy -llz4 -lz -lbrotlidec -lbrotlienc -lm -lpthread"

# library objects: built once, with -fsanitize=fuzzer-no-link for coverage
objs=()
for src in common/*.c runtime/*.c runtime/*.S io/*.c format/*.c filter/*.c scan/*.c; do
    [ -f "$src" ] || continue
    obj="$out/obj/$(echo "$src" | tr / _).o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find common runtime io format filter scan include -name '*.h' -newer "$obj" 2>/dev/null | head -n1)" ]; then
        if ! $CC $flags -fsanitize=fuzzer-no-link -c "$src" -o "$obj" 2>"$out/logs/obj.err"; then
            echo "warning: $src does not compile; targets that need it will fail to link"
            sed -n 1,5p "$out/logs/obj.err"
            rm -f "$obj"
            continue
        fi
    fi
    objs+=("$obj")
done

# an archive, so a target links only the objects it needs (a broken scan/ file does not
# break the format/ targets)
lib=$out/libringscan-fuzz.a
rm -f "$lib"
[ ${#objs[@]} -gt 0 ] && ar rcs "$lib" "${objs[@]}"

if [ ${#targets[@]} -eq 0 ]; then
    for f in tests/fuzz/fuzz_*.c; do [ -f "$f" ] && targets+=("$(basename "$f" .c)"); done
fi

passed=0; failed=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "${targets[@]}"; do
    src=tests/fuzz/$t.c
    bin=$out/bin/$t
    log=$out/logs/$t.log
    ok=1
    if ! $CC $flags -fsanitize=fuzzer "$src" "$lib" $libs -o "$bin" 2>"$log"; then
        echo "$t: does not compile"; sed -n 1,15p "$log"; ok=0
    fi
    # 1. regressions
    if [ $ok -eq 1 ] && [ -d "tests/fuzz/regressions/$t" ]; then
        mapfile -t regs < <(find "tests/fuzz/regressions/$t" -type f | sort)
        if [ ${#regs[@]} -gt 0 ] && ! "$bin" -runs=1 "${regs[@]}" >"$log" 2>&1; then
            echo "$t: a regression input fails"; grep -E 'ERROR|runtime error|Running:' "$log" | tail -n 5; ok=0
        else
            echo "$t: ${#regs[@]} regression inputs replayed"
        fi
    fi
    # 2. fuzzing
    if [ $ok -eq 1 ]; then
        work=$out/corpus/$t
        mkdir -p "$work"
        seeds=()
        [ -d "tests/fuzz/corpus/$t" ] && seeds+=("tests/fuzz/corpus/$t")
        case "$t" in fuzz_meta|fuzz_scan|fuzz_api)
            [ -d ../shared/parquet-testing/data ] && seeds+=(../shared/parquet-testing/data) ;;
        esac
        # fuzz_api scans whole files through the public API: fuzz_scan's files seed it
        [ "$t" = fuzz_api ] && seeds+=(tests/fuzz/corpus/fuzz_scan)
        maxlen=65536
        case "$t" in fuzz_meta|fuzz_scan|fuzz_api) maxlen=4194304 ;; esac # whole files: the footer is at the end
        "$bin" -max_total_time="$seconds" -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$out/crashes/$t-" "$work" "${seeds[@]}" >"$log" 2>&1
        rc=$?
        execs=$(grep -E '^stat::number_of_executed_units' "$log" | tail -n1 | awk '{print $2}')
        echo "$t: ${execs:-0} executions in ${seconds} s"
        if [ $rc -ne 0 ]; then
            crash=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -n1 | sed 's/Test unit written to //')
            grep -E 'ERROR|runtime error|SUMMARY' "$log" | head -n 5
            echo "$t: crash input saved at ${crash:-(none; see $log)}"
            ok=0
        fi
    fi
    if [ $ok -eq 1 ]; then echo "$t: 1 passed, 0 failed"; passed=$((passed + 1))
    else echo "$t: 0 passed, 1 failed"; failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
