#!/usr/bin/env bash
# tests/cli/install.sh: the library as a package (issue 24 part 1). `zig build install --prefix
# P` installs exactly the header, the static and shared libraries (SONAME libringscan.so.0),
# ringscan.pc and the binary; the examples/ programs build against P through pkg-config, shared
# (--cflags --libs) and static (--static, the archive instead of the .so), run, and print
# the row count and the column sum a second reader (pyarrow) finds; versions agree everywhere;
# an options struct with a bad struct_size is refused. Needs ZIG (default: the project's).
# Last line: "install: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
if [ "${RINGSCAN_SANITIZED:-0}" = 1 ]; then # scripts/sanitize.sh: this tests the release package
    echo "install: skipped under the sanitizer pass (the normal pass runs it)"; echo "install: 0 passed, 0 failed, 1 skipped"; exit 0
fi
Z=${ZIG:-.tools/venv/lib/python3.11/site-packages/ziglang/zig}
P="$dir/prefix"
if ! "$Z" build install --prefix "$P" --summary none >"$dir/build.log" 2>&1; then
    bad "zig build install --prefix failed: $(tail -c 600 "$dir/build.log")"; summary install; exit
fi
(cd "$P" && find . -mindepth 1 \( -type f -o -type l \) | sort) >"$dir/files"
cat >"$dir/want" <<'T'
./bin/ringscan
./include/ringscan.h
./lib/libringscan.a
./lib/libringscan.so
./lib/libringscan.so.0
./lib/libringscan.so.0.1.0
./lib/pkgconfig/ringscan.pc
T
check 'diff -u "$dir/want" "$dir/files" >"$dir/diff"' "installed files differ: $(cat "$dir/diff" 2>/dev/null)"
check 'readelf -d "$P/lib/libringscan.so.0.1.0" | grep -q "SONAME.*\[libringscan.so.0\]"' \
    "no SONAME libringscan.so.0: $(readelf -d "$P/lib/libringscan.so.0.1.0" | grep -i soname)"
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
hdr=$(sed -nE 's/^#define RINGSCAN_VERSION_STRING "(.*)"/\1/p' include/ringscan.h)
check '[ -n "$hdr" ] && [ "$(pkg-config --modversion ringscan)" = "$hdr" ]' \
    "ringscan.pc's version $(pkg-config --modversion ringscan) is not the header's '$hdr'"
check '"$P/bin/ringscan" version | grep -qF "$hdr"' "ringscan version does not print $hdr: $("$P/bin/ringscan" version 2>&1 | head -c 200)"
for l in m uring zstd; do
    check 'pkg-config --static --libs ringscan | grep -qw -- "-l$l"' "Libs.private lacks -l$l"
done
# libcurl is loaded on the first http(s)/s3 open (io/curl_dl.h), never linked
check '! pkg-config --static --libs ringscan | grep -qw -- "-lcurl"' "Libs.private names -lcurl"

"$P/bin/ringscan" gen lineitem --sf 0.002 -o "$dir/li.parquet" >/dev/null 2>&1
PY=$(bash scripts/pyenv.sh 2>/dev/null) || PY=
want_rows=; want_sum=
if [ -n "$PY" ]; then
    read -r want_rows want_sum < <("$PY" - "$dir/li.parquet" <<'PYEOF'
import sys, pyarrow.parquet as pq, pyarrow.compute as pc
t = pq.read_table(sys.argv[1], columns=["l_orderkey", "l_linenumber"])
t = t.filter(pc.greater(t["l_linenumber"], 5))
print(t.num_rows, pc.sum(t["l_orderkey"]).as_py())
PYEOF
)
fi
check '[ -n "$want_rows" ] && [ "$want_rows" -gt 0 ]' "pyarrow gave no reference ($PY)"

build_and_run() { # mode (shared|static), example, args...
    local mode=$1 ex=$2; shift 2
    local flags
    if [ "$mode" = shared ]; then flags=$(pkg-config --cflags --libs ringscan)
    else flags=$(pkg-config --static --cflags --libs ringscan | sed 's/-lringscan /-l:libringscan.a /'); fi
    # shellcheck disable=SC2086
    if ! gcc -std=c17 -Wall -Werror "examples/$ex.c" -o "$dir/$ex.$mode" $flags -Wl,-rpath,"$P/lib" \
        2>"$dir/cc.err"; then
        bad "examples/$ex.c does not build ($mode): $(head -c 600 "$dir/cc.err")"; return 1
    fi
    if [ "$mode" = static ]; then
        check '! ldd "$dir/$ex.$mode" | grep -q libringscan' "the static build still needs libringscan.so"
    else
        check 'ldd "$dir/$ex.$mode" | grep -q "libringscan.so.0 => $P/lib"' "the shared build does not load $P's libringscan.so.0"
    fi
    "$dir/$ex.$mode" "$@" >"$dir/out.$ex.$mode" 2>"$dir/err.$ex.$mode"
}
for mode in shared static; do
    if build_and_run "$mode" first_scan "$dir/li.parquet" "l_linenumber > 5" l_orderkey,l_linenumber; then
        got=$(grep -oE '^rows [0-9]+' "$dir/out.first_scan.$mode" | cut -d' ' -f2)
        check '[ -n "$want_rows" ] && [ "$got" = "$want_rows" ]' \
            "first_scan ($mode): rows '$got', pyarrow $want_rows ($(head -c 300 "$dir/err.first_scan.$mode"))"
    fi
    if build_and_run "$mode" column_sum "$dir/li.parquet" l_orderkey "l_linenumber > 5"; then
        got=$(cat "$dir/out.column_sum.$mode")
        check '[ -n "$want_sum" ] && [ "$got" = "rows $want_rows nulls 0 sum $want_sum" ]' \
            "column_sum ($mode): '$got', pyarrow rows $want_rows sum $want_sum ($(head -c 300 "$dir/err.column_sum.$mode"))"
    fi
done
# a column_sum of a column that is not numeric is an error, not a sum
"$dir/column_sum.shared" "$dir/li.parquet" l_shipmode >"$dir/o" 2>"$dir/e"; rc=$?
check '[ $rc -eq 1 ] && grep -q "not an integer or floating-point column" "$dir/e"' "column_sum of a string column: $(cat "$dir/o" "$dir/e")"

# ABI: options carry their size; a wrong size is refused, a newer caller's zero tail accepted
cat >"$dir/abi.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <ringscan.h>
int main(int argc, char **argv)
{
    ringscan_error err;
    ringscan_file *f;
    if (argc < 2 || ringscan_open(argv[1], &f, &err)) return 1;
    struct { ringscan_options o; char tail[16]; } big;
    ringscan_options_init(&big.o);
    ringscan_scan *s = NULL;
    int r0 = ringscan_version() == RINGSCAN_VERSION;
    big.o.struct_size = 0;
    int r1 = ringscan_scan_start(f, &big.o, &s, &err) == -22 && strstr(err.message, "ringscan_options_init");
    memset(big.tail, 0, sizeof big.tail);
    big.o.struct_size = sizeof big;                 /* a newer header's options, tail unset */
    int r2 = ringscan_scan_start(f, &big.o, &s, &err) == 0;
    ringscan_scan_free(s);
    big.tail[3] = 1;                                /* ... with a field this library lacks */
    int r3 = ringscan_scan_start(f, &big.o, &s, &err) == -22 && strstr(err.message, "newer");
    ringscan_close(f);
    printf("%d %d %d %d\n", r0, r1, r2, r3);
    return 0;
}
C
if gcc -std=c17 "$dir/abi.c" -o "$dir/abi" $(pkg-config --cflags --libs ringscan) -Wl,-rpath,"$P/lib" 2>"$dir/cc.err"; then
    got=$("$dir/abi" "$dir/li.parquet" 2>&1)
    check '[ "$got" = "1 1 1 1" ]' "ABI checks (version, size 0 refused, zero tail taken, set tail refused): '$got'"
else
    bad "abi.c does not build: $(head -c 400 "$dir/cc.err")"
fi
summary install
