#!/usr/bin/env bash
# tests/cli/progress.sh: the progress line of `scan` and `gen` (cli/progress.h, issue 25).
# `script -qec CMD /dev/null` runs CMD on a pseudo-terminal (util-linux) and copies what the
# terminal shows to its stdout; the pty turns "\n" into "\r\n", which is undone first.
#  1. A scan slow by construction (a simulated store at 20 ms to first byte and 5 MB/s, no
#     read-ahead, one core, 15 row groups: ~2.5 s) with stderr on the terminal draws lines
#     "\rscanned N rows, X read, K of 15 splits, R/s, N rows/s" (K never decreasing), clears
#     the last one with spaces over its width, and leaves exactly the result line.
#  2. The same scan with stderr a file, or --no-progress, or rows (table) printed to the
#     terminal: no line at all, and the stderr file stays empty; CSV into a pipe with stderr on
#     the terminal: the line is drawn on the terminal and none of it is in the CSV.
#  3. A scan shorter than a second draws nothing.
#  4. gen (gzip on one thread, 1.5M rows: ~3.5 s here, three times the 1 s before the first
#     line, so a fast machine still draws one) draws "\rwrote N of M rows (P%), X in the file,
#     R rows/s", clears it, and prints its summary; with stderr a file it draws nothing.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "progress: N passed, N failed[, N skipped]".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
if ! command -v script >/dev/null; then
    echo "progress: 0 passed, 0 failed, 1 skipped (no util-linux script for a pty)"
    exit 0
fi
f=$dir/l.parquet
"$R" gen lineitem --sf 0.05 --row-group-rows 20000 -o "$f" >/dev/null || bad "gen"
slow=(--store sim:ttfb=20ms,bw=5MB/s --fetch-budget 0 --threads 1)
want_result=$("$R" scan "$f" --format checksum 2>/dev/null)

# on_tty OUT CMD: runs CMD (a shell command line) on a pty; what it showed into OUT, "\r\n"
# made "\n".
on_tty() { script -qec "$2" /dev/null </dev/null | sed 's/\r$//' >"$1"; }
# progress_lines OUT: the lines drawn (the pieces between "\r"s that hold text), one a line.
progress_lines() { tr '\r' '\n' <"$1" | grep -E '^(scanned|wrote) '; }
# after_clear OUT: what is left once every drawn line and its clearing is taken out.
after_clear() { tr '\r' '\n' <"$1" | grep -vE '^(scanned|wrote) |^ +$|^$'; }

# 1. a slow scan on a terminal
on_tty "$dir/t1" "'$R' scan '$f' ${slow[*]} --format checksum"
progress_lines "$dir/t1" >"$dir/lines1"
check '[ -s "$dir/lines1" ]' "no progress line on a terminal: $(head -c 300 "$dir/t1" | od -c | head -n 5)"
check '! grep -vqE "^scanned [0-9]+ rows, [0-9.]+ (B|KiB|MiB) read, [0-9]+ of 15 splits, [0-9.]+ (B|KiB|MiB)/s, [0-9]+ rows/s$" "$dir/lines1"' \
    "a line not of the form: $(grep -vE "^scanned [0-9]+ rows" "$dir/lines1" | head -n 2)"
check 'sed -E "s/.* ([0-9]+) of 15 splits.*/\1/" "$dir/lines1" | sort -c -n' "splits done went down: $(cat "$dir/lines1")"
check '[ "$(after_clear "$dir/t1")" = "$want_result" ]' "left on the terminal: $(after_clear "$dir/t1")"
last=$(tr '\r' '\n' <"$dir/t1" | grep -E '^scanned ' | tail -n 1)
check 'tr "\r" "\n" <"$dir/t1" | grep -qxE " {${#last},}"' "the last line (${#last} columns) is not cleared with spaces"
check 'grep -qE $'"'"'\r +\r'"'"'"$want_result\$" "$dir/t1"' "the result does not follow the clearing: $(tail -c 200 "$dir/t1" | od -c | tail -n 4)"

# 2. never into a file, never when opted out, never over rows on the terminal
on_tty "$dir/t2" "'$R' scan '$f' ${slow[*]} --format checksum 2>'$dir/err2'"
check '[ ! -s "$dir/err2" ]' "stderr a file got: $(head -c 200 "$dir/err2" | od -c | head -n 3)"
check '[ "$(cat "$dir/t2")" = "$want_result" ]' "stderr a file, the terminal showed: $(head -c 200 "$dir/t2")"
on_tty "$dir/t3" "'$R' scan '$f' ${slow[*]} --format checksum --no-progress"
check '[ "$(cat "$dir/t3")" = "$want_result" ]' "--no-progress, the terminal showed: $(head -c 200 "$dir/t3")"
cols=l_comment,l_extendedprice,l_orderkey # ~1.7 s through the slow store
on_tty "$dir/t4" "'$R' scan '$f' ${slow[*]} --columns $cols"
check '[ -z "$(progress_lines "$dir/t4")" ]' "a progress line among table rows on the terminal"
check '[ "$(grep -c "[0-9]" "$dir/t4")" -ge 299947 ]' "the table on the terminal has $(grep -c "[0-9]" "$dir/t4") rows"
on_tty "$dir/t5" "'$R' scan '$f' ${slow[*]} --columns $cols --format csv | md5sum"
"$R" scan "$f" --columns "$cols" --format csv | md5sum >"$dir/want5"
check '[ -n "$(progress_lines "$dir/t5")" ]' "CSV into a pipe, stderr a terminal: no progress line"
check '[ "$(after_clear "$dir/t5")" = "$(cat "$dir/want5")" ]' "the piped CSV differs: $(after_clear "$dir/t5")"
"$R" scan "$f" "${slow[@]}" --format checksum >"$dir/o6" 2>"$dir/err6"
check '[ ! -s "$dir/err6" ] && [ "$(cat "$dir/o6")" = "$want_result" ]' "no terminal at all: stderr $(head -c 100 "$dir/err6")"

# 3. a quick scan: a file of 6000 rows, well under a second even in the sanitizer builds
q=$dir/q.parquet
"$R" gen lineitem --sf 0.001 -o "$q" >/dev/null || bad "gen (quick)"
want_quick=$("$R" scan "$q" --format checksum 2>/dev/null)
on_tty "$dir/t7" "'$R' scan '$q' --format checksum"
check '[ "$(cat "$dir/t7")" = "$want_quick" ]' "a quick scan showed: $(head -c 200 "$dir/t7" | od -c | head -n 3)"

# 4. gen
g=$dir/g.parquet
on_tty "$dir/t8" "'$R' gen lineitem --sf 0.25 --row-group-rows 2000000 --threads 1 --compression gzip -o '$g'"
progress_lines "$dir/t8" >"$dir/lines8"
check '[ -s "$dir/lines8" ]' "gen drew no progress line: $(head -c 300 "$dir/t8")"
check '! grep -vqE "^wrote [0-9]+ of 1498930 rows \([0-9]+%\), [0-9.]+ (B|KiB|MiB) in the file, [0-9]+ rows/s$" "$dir/lines8"' \
    "a gen line not of the form: $(head -n 2 "$dir/lines8")"
check 'after_clear "$dir/t8" | grep -qxE "$g: 1498930 rows, 1 row group, [0-9]+ bytes, [0-9.]+ seconds"' \
    "gen left: $(after_clear "$dir/t8")"
on_tty "$dir/t9" "'$R' gen lineitem --sf 0.1 --threads 1 --compression gzip -o '$g' 2>'$dir/err9'"
check '[ ! -s "$dir/err9" ] && ! grep -q wrote "$dir/t9"' "gen with stderr a file drew: $(head -c 200 "$dir/err9")"
summary progress
