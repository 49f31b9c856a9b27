#!/usr/bin/env bash
# tests/cli/output_sink.sh: write errors of the output (issue 18, defect 6; cli/sink.c).
# For scan --format table|csv|jsonl|count, meta and meta --json (and, for /dev/full only,
# version, serve, gen's summary line, bench's table and bench --json FILE; bench --json and
# --chart into a file past a size limit: the cause named, no partial file left):
#  - stdout on /dev/full: exit status 1 and "ringscan: error writing standard output: No
#    space left on device" on stderr (before the fix: status 0, no message);
#  - stdout into `head -c 100` (a pipe closed early, output far beyond the pipe buffer for the
#    row formats): no message on stderr, the process ends (bounded by timeout), status 0 or
#    141 (128 + SIGPIPE; always 141 for the row formats, whose output cannot fit the pipe);
#  - a normal run: as many lines as before (header + rows), the same bytes into a file as
#    into a pipe, and the count line's row count equal to the file's.
# And gen -o /dev/full: exit status 1, the writer's error naming the cause ("No space left on
# device"; it said only "sink failed writing N bytes"), the device left in place; the same
# for bench's data file (its own sink said "Input/output error").
source "$(dirname "$0")/lib.bash"
LIMIT=60
data="$dir/li.parquet"
"$R" gen lineitem --sf 0.01 -o "$data" >/dev/null || { bad "gen"; summary output_sink; exit 1; }
rows=$("$R" meta "$data" | sed -n 's/^rows: //p')
check '[ "$rows" -gt 50000 ]' "meta rows of the sf=0.01 file: '$rows'"

# one command line per case: name and arguments after `ringscan`
cases=("table|scan $data --format table" "csv|scan $data --format csv"
       "jsonl|scan $data --format jsonl" "count|scan $data --format checksum"
       "meta|meta $data" "meta_json|meta $data --json")
msg="ringscan: error writing standard output: No space left on device"

full_case() { # name, args...
    local name=$1; shift
    timeout "$LIMIT" "$R" "$@" >/dev/full 2>"$dir/err"
    local rc=$?
    check '[ "$rc" -eq 1 ]' "$name > /dev/full: exit status $rc, want 1"
    check 'grep -qxF "$msg" "$dir/err"' "$name > /dev/full: stderr '$(head -c 300 "$dir/err")'"
}

pipe_case() { # name, args...
    local name=$1; shift
    timeout "$LIMIT" "$R" "$@" 2>"$dir/err" | head -c 100 >"$dir/head"
    local rc=${PIPESTATUS[0]}
    check '[ ! -s "$dir/err" ]' "$name | head: stderr '$(head -c 300 "$dir/err")'"
    check '[ "$(wc -c <"$dir/head")" -eq 100 ] || [ "$name" = count ]' "$name | head: short read"
    case $name in
    table | csv | jsonl) check '[ "$rc" -eq 141 ]' "$name | head: exit status $rc, want 141" ;;
    *) check '[ "$rc" -eq 0 ] || [ "$rc" -eq 141 ]' "$name | head: exit status $rc" ;;
    esac
}

normal_case() { # name, args...
    local name=$1; shift
    timeout "$LIMIT" "$R" "$@" >"$dir/out" 2>"$dir/err"
    local rc=$?
    check '[ "$rc" -eq 0 ] && [ ! -s "$dir/err" ]' "$name: exit status $rc, stderr '$(head -c 300 "$dir/err")'"
    timeout "$LIMIT" "$R" "$@" 2>/dev/null | cat >"$dir/piped"
    check 'cmp -s "$dir/out" "$dir/piped"' "$name: file and pipe output differ"
    local lines; lines=$(wc -l <"$dir/out")
    case $name in
    table | csv) check '[ "$lines" -eq $((rows + 1)) ]' "$name: $lines lines, want $((rows + 1))" ;;
    jsonl) check '[ "$lines" -eq "$rows" ]' "$name: $lines lines, want $rows" ;;
    count) check 'grep -qE "^rows $rows checksum [0-9]+$" "$dir/out"' "$name: '$(cat "$dir/out")'" ;;
    meta) check 'grep -qx "rows: $rows" "$dir/out"' "meta: no 'rows: $rows' line" ;;
    meta_json) check '[ "$lines" -eq 1 ] && grep -q "^{\"num_rows\": $rows," "$dir/out"' "meta --json: '$(head -c 200 "$dir/out")'" ;;
    esac
}

for c in "${cases[@]}"; do
    name=${c%%|*}
    read -r -a args <<<"${c#*|}"
    full_case "$name" "${args[@]}"
    pipe_case "$name" "${args[@]}"
    normal_case "$name" "${args[@]}"
done

# the other commands that print results through the same sink
full_case version version
full_case serve serve <<<"$data	--format	checksum"
full_case gen_summary gen demo-types --rows 100 -o "$dir/demo.parquet"
# bench --json FILE: a failed write of the report file names it and fails the bench
bargs=(bench --data "$dir" --sf 0.01 --rounds 1 --shapes lineitem_prune --no-floor)
timeout "$LIMIT" "$R" "${bargs[@]}" --json /dev/full >/dev/null 2>"$dir/err"
rc=$?
check '[ "$rc" -eq 1 ]' "bench --json /dev/full: exit status $rc, want 1"
check 'grep -qxF "ringscan: bench: error writing /dev/full: No space left on device" "$dir/err"' \
    "bench --json /dev/full: stderr '$(tail -c 300 "$dir/err")'"
full_case bench_table "${bargs[@]}"
# bench --json and --chart into a file the disk cannot hold (a file size limit of 2 KiB with
# SIGXFSZ ignored: writes past it fail with EFBIG, as on a full disk): exit 1 naming the file
# and the cause, and no partial file left (the report was left cut, the chart cut or empty)
for out in report.json chart.png chart.svg; do
    opt=--json; [ "${out%.json}" = "$out" ] && opt=--chart
    rm -f "$dir/$out"
    (trap '' XFSZ; ulimit -f 2; exec timeout "$LIMIT" "$R" "${bargs[@]}" $opt "$dir/$out") >/dev/null 2>"$dir/err"
    rc=$?
    check '[ "$rc" -eq 1 ] && grep -qE "^ringscan: bench: (error writing|cannot write) $dir/$out: .+" "$dir/err" && [ ! -e "$dir/$out" ]' \
        "bench $opt onto a full disk: exit status $rc, stderr '$(tail -c 300 "$dir/err")', left: $(ls -la "$dir/$out" 2>&1)"
done
# gen onto a full disk (/dev/full: ENOSPC once the file's buffer is written): the cause named
# (it said only "sink failed writing N bytes"), and the device is no file to remove
timeout "$LIMIT" "$R" gen lineitem --sf 0.01 -o /dev/full --no-progress >/dev/null 2>"$dir/err"
rc=$?
check '[ "$rc" -eq 1 ] && grep -qE "^ringscan: gen: /dev/full: writing [0-9]+ bytes at byte [0-9]+ failed: No space left on device$" "$dir/err" && [ -c /dev/full ]' \
    "gen -o /dev/full: exit status $rc, stderr '$(head -c 300 "$dir/err")'"
# bench writing its data file onto a full disk (its temporary a link to /dev/full): the cause
# named as gen names it (its own sink said "Input/output error" for ENOSPC); nothing left
mkdir -p "$dir/bfull"
ln -s /dev/full "$dir/bfull/lineitem_sf0.01_tpch.parquet.tmp"
timeout "$LIMIT" "$R" bench --sf 0.01 --data "$dir/bfull" --shapes lineitem_prune --rounds 1 --no-aa >/dev/null 2>"$dir/err"
rc=$?
check '[ "$rc" -eq 1 ] && grep -qE "^ringscan: bench: writing $dir/bfull/lineitem_sf0.01_tpch.parquet: writing [0-9]+ bytes at byte [0-9]+ failed: No space left on device$" "$dir/err" && [ -z "$(ls "$dir/bfull")" ] && [ -c /dev/full ]' \
    "bench --data on a full disk: exit status $rc, stderr '$(head -c 300 "$dir/err")', left: $(ls "$dir/bfull")"
summary output_sink
