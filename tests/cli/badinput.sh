#!/usr/bin/env bash
# tests/cli/badinput.sh: `ringscan scan` and `ringscan meta` on damaged files exit with status
# 1 and print one message naming the file (and the offset where known); a good file exits 0.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "badinput: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
# expect STATUS PATTERN CMD...: exit status and a stderr line matching PATTERN
expect() {
    local want=$1 pat=$2; shift 2
    "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
    if [ "$rc" -ne "$want" ]; then bad "$* exited $rc, expected $want: $(head -c 300 "$dir/err")"; return; fi
    if [ -n "$pat" ] && ! grep -qE "$pat" "$dir/err"; then bad "$*: stderr lacks /$pat/: $(head -c 300 "$dir/err")"; return; fi
    ok
}
good=$dir/good.parquet
if ! "$R" gen demo-types --rows 600 --row-group-rows 200 --page-rows 50 --seed 3 -o "$good" >/dev/null 2>&1; then
    echo "FAIL gen"; echo "badinput: 0 passed, 1 failed"; exit 0
fi
size=$(stat -c %s "$good")
expect 0 "" "$R" scan "$good"
# truncated inside the footer, inside the data, to nothing but the magic
for cut in $((size - 1)) $((size - 5)) $((size - 9)) $((size / 2)) 4; do
    head -c "$cut" "$good" >"$dir/cut.parquet"
    expect 1 "cut.parquet" "$R" scan "$dir/cut.parquet"
    expect 1 "cut.parquet" "$R" meta "$dir/cut.parquet"
done
# a FIFO without a writer (open() blocked forever): refused at once; a directory is a
# dataset, whose first broken file (the truncated one above) is named, with no hang on the FIFO
mkfifo "$dir/fifo.parquet"
expect 1 "fifo.parquet: not a regular file" timeout 10 "$R" scan "$dir/fifo.parquet"
expect 1 "fifo.parquet: not a regular file" timeout 10 "$R" meta "$dir/fifo.parquet"
expect 1 "cut.parquet" timeout 10 "$R" meta "$dir"
# wrong trailing magic; encrypted-footer magic
cp "$good" "$dir/magic.parquet"; printf 'PARX' | dd of="$dir/magic.parquet" bs=1 seek=$((size - 4)) conv=notrunc 2>/dev/null
expect 1 "magic.parquet" "$R" scan "$dir/magic.parquet"
cp "$good" "$dir/enc.parquet"; printf 'PARE' | dd of="$dir/enc.parquet" bs=1 seek=$((size - 4)) conv=notrunc 2>/dev/null
expect 1 "enc.parquet.*encrypted" "$R" scan "$dir/enc.parquet"
# footer length pointing past the start of the file
cp "$good" "$dir/len.parquet"; printf '\xff\xff\xff\x0f' | dd of="$dir/len.parquet" bs=1 seek=$((size - 8)) conv=notrunc 2>/dev/null
expect 1 "len.parquet" "$R" scan "$dir/len.parquet"
# a footer whose created_by string claims 127 bytes, past the footer's end: the error names
# the byte where decoding failed (the string's start), not the footer's start (it did)
foot=$((size - 8 - $(od -An -tu4 -j $((size - 8)) -N4 "$good" | tr -d ' ')))
at=$(grep -obUa 'ringscan [0-9]' "$good" | cut -d: -f1 | awk -v f="$foot" '$1 >= f {print; exit}')
cp "$good" "$dir/strlen.parquet"; printf '\x7f' | dd of="$dir/strlen.parquet" bs=1 seek=$((at - 1)) conv=notrunc 2>/dev/null
expect 1 "strlen.parquet: thrift: binary length past the end of the buffer \(offset $at\)" "$R" scan "$dir/strlen.parquet"
# a page body zeroed in the middle of the data (the scan names an offset)
cp "$good" "$dir/zero.parquet"; head -c 3000 /dev/zero | dd of="$dir/zero.parquet" bs=1 seek=2000 conv=notrunc 2>/dev/null
"$R" scan "$dir/zero.parquet" >/dev/null 2>"$dir/err"; rc=$?
if [ "$rc" -eq 1 ] && grep -qE "zero.parquet.*offset [0-9]+" "$dir/err"; then ok
elif [ "$rc" -eq 0 ]; then ok # zeros may still decode (e.g. inside a PLAIN value run)
else bad "zeroed pages: exit $rc: $(head -c 300 "$dir/err")"; fi
# not a file at all
expect 1 "" "$R" scan "$dir/missing.parquet"
summary badinput
