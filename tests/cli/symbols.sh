#!/usr/bin/env bash
# tests/cli/symbols.sh: libringscan.so exports exactly the functions include/ringscan.h
# declares (visibility hidden plus scan/ringscan.map), and a host program built against the
# header and the shared library alone scans a file through it; neither libringscan.a nor the
# .so holds a bench/ object (bench/ is its own library, linked by the binary and some tests).
# Last line: "symbols: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
so=zig-out/lib/libringscan.so
if [ ! -f "$so" ]; then bad "$so missing (run zig build first)"; summary symbols; exit; fi
nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | grep -v '^RINGSCAN_1$' | sort >"$dir/exported"
grep -oE '^RINGSCAN_API [^(]*\bringscan_[a-z0-9_]+\(' include/ringscan.h | grep -oE 'ringscan_[a-z0-9_]+\($' | tr -d '(' | sort >"$dir/declared"
# every function the header declares is exported: none without RINGSCAN_API
check '! grep -nE "^[a-z_ ]*[ *]ringscan_[a-z0-9_]+\(" include/ringscan.h | grep -v RINGSCAN_API | grep -q .' \
    "declared without RINGSCAN_API (not exported): $(grep -nE '^[a-z_ ]*[ *]ringscan_[a-z0-9_]+\(' include/ringscan.h | grep -v RINGSCAN_API | head -3)"
check '[ -s "$dir/declared" ] && diff -u "$dir/declared" "$dir/exported" >"$dir/diff"' \
    "exported symbols differ from ringscan.h: $(cat "$dir/diff" 2>/dev/null | head -20)"
check '! grep -vq "^ringscan_" "$dir/exported"' "a symbol without the ringscan_ prefix is exported"
# the functions bench/*.h declare (shape_*, lineitem_*, bench_*, rt_bench_*, ...)
grep -ohE '^[a-z_][a-z0-9_ *]* \**([a-z][a-z0-9_]*)\(' bench/*.h | grep -oE '[a-z][a-z0-9_]*\($' | tr -d '(' | sort -u >"$dir/bench_syms"
nm --defined-only zig-out/lib/libringscan.a 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$dir/lib_syms"
nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' >>"$dir/lib_syms"
nm --defined-only "$so" 2>/dev/null | awk 'NF == 3 {print $3}' >>"$dir/lib_syms"
sort -u -o "$dir/lib_syms" "$dir/lib_syms"
check '[ "$(wc -l <"$dir/bench_syms")" -gt 10 ] && grep -qx shape_vec_sum "$dir/bench_syms"' \
    "the bench/ declarations were not found: $(head -c 200 "$dir/bench_syms")"
check '[ -s "$dir/lib_syms" ] && ! comm -12 "$dir/bench_syms" "$dir/lib_syms" | grep -q .' \
    "the library defines bench/ symbols: $(comm -12 "$dir/bench_syms" "$dir/lib_syms" | head -5 | tr '\n' ' ')"
cat >"$dir/host.c" <<'C'
#include <stdio.h>
#include <ringscan.h>
int main(int argc, char **argv)
{
    ringscan_error err;
    ringscan_file *f;
    if (argc < 2 || ringscan_open(argv[1], &f, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    ringscan_options o;
    ringscan_options_init(&o);
    o.filter = "l_linenumber > 5";
    ringscan_scan *s;
    if (ringscan_scan_start(f, &o, &s, &err)) { fprintf(stderr, "%s\n", err.message); return 1; }
    struct ArrowArray b;
    long long rows = 0;
    int rc;
    while ((rc = ringscan_scan_next(s, &b, &err)) == 1) { rows += b.length; b.release(&b); }
    ringscan_scan_free(s);
    ringscan_close(f);
    if (rc < 0) { fprintf(stderr, "%s\n", err.message); return 1; }
    printf("%lld\n", rows);
    return 0;
}
C
"$R" gen lineitem --sf 0.002 -o "$dir/li.parquet" >/dev/null 2>&1
if gcc -std=c17 -Iinclude "$dir/host.c" -L zig-out/lib -lringscan -Wl,-rpath,"$PWD/zig-out/lib" -o "$dir/host" 2>"$dir/cc.err"; then
    got=$("$dir/host" "$dir/li.parquet" 2>&1)
    want=$("$R" scan "$dir/li.parquet" --where "l_linenumber > 5" --format checksum 2>/dev/null | grep -oE '^[0-9]+|rows [0-9]+' | grep -oE '[0-9]+' | head -n1)
    check '[ -n "$want" ] && [ "$got" = "$want" ]' "host program through the .so read '$got' rows, ringscan scan '$want'"
else
    bad "a host program does not link against $so alone: $(head -c 400 "$dir/cc.err")"
fi
summary symbols
