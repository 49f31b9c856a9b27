#!/usr/bin/env bash
# tests/cli/serve.sh: `ringscan serve` (one scan per stdin line, one JSON line per scan) against
# `ringscan scan` on the same file. Run by tests/run.sh with $RINGSCAN = the binary and cwd =
# the project root; the secs/cpu fields are never asserted.
#  1. Three requests (two shapes, one repeated, one with a row-group cut) answer in order with
#     rc 0 and the rows and checksum `ringscan scan --format checksum` prints.
#  2. A bad request (unknown column) answers rc 1 and the next request still works; an empty
#     argument list answers rc 2 (usage).
#  3. One answer per request line, always: a line longer than the request buffer (64 KiB) is
#     one request answered rc 2 (its tail was read as another request), a request with more
#     than 64 arguments answers rc 2 (the arguments past 64 were dropped: here the bad column
#     at its end, so it answered rc 0), and the request after each still answers its own.
#  4. A request holding a NUL byte is one request answered rc 2, and the next one answers.
#  5. Only answers reach stdout: no --format is a checksum; another format or --help rc 2.
# Last line: "serve: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

f="$dir/li.parquet"
"$R" gen lineitem --sf 0.02 --row-group-rows 50000 --page-rows 1000 -o "$f" >/dev/null
check '[ -s "$f" ]' "gen failed"
want1=$("$R" scan "$f" --columns l_orderkey,l_linenumber --where "l_linenumber > 5" --format checksum)
want2=$("$R" scan "$f" --columns l_comment --where "l_shipmode = 'AIR' AND l_quantity < 5" --format checksum)
T=$'\t'
{
    echo "$f${T}--columns${T}l_orderkey,l_linenumber${T}--where${T}l_linenumber > 5${T}--format${T}checksum"
    echo "$f${T}--columns${T}l_comment${T}--where${T}l_shipmode = 'AIR' AND l_quantity < 5${T}--format${T}checksum${T}--split-rows${T}10000"
    echo "$f${T}--columns${T}l_orderkey,l_linenumber${T}--where${T}l_linenumber > 5${T}--format${T}checksum${T}--threads${T}1"
    echo "$f${T}--columns${T}no_such_column${T}--format${T}checksum"
    echo ""
    echo "$f${T}--columns${T}l_orderkey,l_linenumber${T}--where${T}l_linenumber > 5${T}--format${T}checksum"
} | "$R" serve >"$dir/out.jsonl" 2>"$dir/err.txt"
rc=$?
check '[ $rc -eq 0 ]' "serve exit $rc"
check '[ "$(wc -l <"$dir/out.jsonl")" -eq 6 ]' "expected 6 answers, got $(wc -l <"$dir/out.jsonl")"
as_count() { # line N of the answers (in file $2, default out.jsonl) as "rows R checksum C" (rc 0)
    sed -n "${1}p" "${2:-$dir/out.jsonl}" | sed -nE 's/^\{"rc":0,"rows":([0-9]+),"checksum":"([0-9]+)".*/rows \1 checksum \2/p'
}
check '[ -n "$want1" ] && [ "$(as_count 1)" = "$want1" ]' "answer 1 '$(as_count 1)' != '$want1'"
check '[ -n "$want2" ] && [ "$(as_count 2)" = "$want2" ]' "answer 2 '$(as_count 2)' != '$want2'"
check '[ "$(as_count 3)" = "$want1" ]' "answer 3 (one thread) '$(as_count 3)' != '$want1'"
check 'sed -n 4p "$dir/out.jsonl" | grep -q "^{\"rc\":1,"' "a bad column did not answer rc 1"
check 'grep -q "no_such_column" "$dir/err.txt"' "the bad column is not named on stderr"
check 'sed -n 5p "$dir/out.jsonl" | grep -q "^{\"rc\":2,"' "an empty request did not answer rc 2"
check '[ "$(as_count 6)" = "$want1" ]' "answer 6 (after the errors) '$(as_count 6)' != '$want1'"

# serve_to NAME: the requests on stdin (a file: $rc and $lines are set in this shell) served
# into $dir/NAME.jsonl (stderr $dir/NAME.txt); its exit status in $rc, its answers in $lines
serve_to() {
    "$R" serve >"$dir/$1.jsonl" 2>"$dir/$1.txt"
    rc=$?
    lines=$(wc -l <"$dir/$1.jsonl")
}

# 3. requests too long or with too many arguments: one answer each, rc 2, named on stderr
long=$(head -c 70000 /dev/zero | tr '\0' 'x')
many=$(for i in $(seq 40); do printf '\t--threads\t1'; done)
{
    echo "$f${T}--columns${T}$long"
    echo "$f${T}--format${T}checksum$many${T}--columns${T}no_such_column"
    echo "$f${T}--columns${T}l_orderkey,l_linenumber${T}--where${T}l_linenumber > 5${T}--format${T}checksum"
} >"$dir/out3.req"
serve_to out3 <"$dir/out3.req"
check '[ $rc -eq 0 ] && [ $lines -eq 3 ]' "limits: exit $rc, $lines answers to 3 requests"
check 'sed -n 1p "$dir/out3.jsonl" | grep -q "^{\"rc\":2," && grep -q "request 1 is longer than 65534 bytes" "$dir/out3.txt"' \
    "a 70000-byte request: '$(sed -n 1p "$dir/out3.jsonl")' $(head -c 200 "$dir/out3.txt")"
check 'sed -n 2p "$dir/out3.jsonl" | grep -q "^{\"rc\":2," && grep -q "request 2 has more than 64 arguments" "$dir/out3.txt"' \
    "85 arguments: '$(sed -n 2p "$dir/out3.jsonl")' $(head -c 200 "$dir/out3.txt")"
check '[ "$(as_count 3 "$dir/out3.jsonl")" = "$want1" ]' "the request after them: '$(sed -n 3p "$dir/out3.jsonl")'"

# 4. a NUL byte inside a request: one answer, rc 2, and the next request answers its own (fgets
#    and strlen took the request for one cut at the buffer's end and read the next request as
#    its tail: two requests, one answer, and every later answer one request late)
{
    printf '%s\t--format\tchecksum\t--li\0mit\t2\n' "$f"
    echo "$f${T}--columns${T}l_orderkey,l_linenumber${T}--where${T}l_linenumber > 5${T}--format${T}checksum"
} >"$dir/out4.req"
serve_to out4 <"$dir/out4.req"
check '[ $rc -eq 0 ] && [ $lines -eq 2 ]' "NUL: exit $rc, $lines answers to 2 requests"
check 'sed -n 1p "$dir/out4.jsonl" | grep -q "^{\"rc\":2," && grep -q "request 1 holds a NUL byte" "$dir/out4.txt"' \
    "a request with a NUL: '$(sed -n 1p "$dir/out4.jsonl")' $(head -c 200 "$dir/out4.txt")"
check '[ "$(as_count 2 "$dir/out4.jsonl")" = "$want1" ]' "the request after a NUL: '$(sed -n 2p "$dir/out4.jsonl")'"

# 5. the answers are the only output: a request without --format is a checksum (it printed its
#    rows as a table among the answers, so a client read table lines as answers), one naming
#    another format or --help answers rc 2 (they printed rows or the help there too)
{
    echo "$f${T}--columns${T}l_orderkey,l_linenumber${T}--where${T}l_linenumber > 5"
    echo "$f${T}--format${T}csv${T}--limit${T}2"
    echo "$f${T}--limit${T}2${T}--help"
    echo "$f${T}--format${T}jsonl${T}--limit${T}1"
    echo "$f${T}--columns${T}l_orderkey,l_linenumber${T}--where${T}l_linenumber > 5${T}--format${T}checksum"
} >"$dir/out5.req"
serve_to out5 <"$dir/out5.req"
check '[ $rc -eq 0 ] && [ $lines -eq 5 ] && [ "$(grep -vc "^{\"rc\":" "$dir/out5.jsonl")" -eq 0 ]' \
    "formats: exit $rc, $lines lines for 5 requests: $(head -c 300 "$dir/out5.jsonl")"
check '[ "$(as_count 1 "$dir/out5.jsonl")" = "$want1" ] && [ "$(as_count 5 "$dir/out5.jsonl")" = "$want1" ]' \
    "no --format: '$(sed -n 1p "$dir/out5.jsonl")'"
check '[ "$(sed -n 2,4p "$dir/out5.jsonl" | grep -c "^{\"rc\":2,")" -eq 3 ] && [ "$(grep -c "only --format checksum is served" "$dir/out5.txt")" -eq 2 ] && grep -q "help is not served" "$dir/out5.txt"' \
    "csv, --help, jsonl: $(sed -n 2,4p "$dir/out5.jsonl" | tr '\n' ' ') $(head -c 300 "$dir/out5.txt")"

summary serve
