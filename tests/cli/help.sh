#!/usr/bin/env bash
# tests/cli/help.sh: the help (issue 25). `ringscan --help`, `-h` and `help` list every command
# and exit 0; `ringscan help CMD`, `ringscan CMD --help` and `CMD -h` print the same text on
# stdout and exit 0, with a usage line, a purpose, the options and examples; `--version` and
# `version` print the version. Against the sources: every option name a command's file
# spells ("--name" in cli/cmd_CMD.c: its table, and any message naming an option; the dataset
# options of cli.h's CLI_DATASET_OPTS for a table that names it) appears
# in that command's help, and every option the help lists is one the parser accepts (it never
# answers "unknown option" for it). No help line is wider than 100 columns.
# Run by tests/run.sh with $RINGSCAN = the binary and cwd = the project root.
# Last line: "help: N passed, N failed".
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
commands="scan meta gen bench serve version"
for h in --help -h help; do
    "$R" $h >"$dir/top" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 0 ] && [ ! -s "$dir/err" ]' "ringscan $h: exit $rc, stderr $(head -c 200 "$dir/err")"
    for c in $commands help; do
        check 'grep -qE "^  $c +[a-z\`]" "$dir/top"' "ringscan $h does not list $c"
    done
done
check 'grep -q "^examples:" "$dir/top"' "ringscan --help has no examples"
"$R" >"$dir/out" 2>"$dir/err"; rc=$?
check '[ $rc -eq 2 ] && [ ! -s "$dir/out" ] && grep -q "^commands:" "$dir/err"' "bare ringscan: exit $rc"
for v in --version -V version; do
    out=$("$R" $v 2>&1); rc=$?
    check '[ $rc -eq 0 ] && [ "$out" = "ringscan 0.1.0" ]' "ringscan $v: exit $rc, '$out'"
done
src_of() { case $1 in serve) echo "";; version) echo cli/main.c;; *) echo "cli/cmd_$1.c";; esac; }
for c in $commands; do
    "$R" help "$c" >"$dir/h1" 2>"$dir/err"; rc=$?
    check '[ $rc -eq 0 ] && [ ! -s "$dir/err" ]' "help $c: exit $rc, stderr $(head -c 200 "$dir/err")"
    "$R" "$c" --help >"$dir/h2" 2>&1; rc2=$?
    "$R" "$c" -h >"$dir/h3" 2>&1; rc3=$?
    check '[ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && cmp -s "$dir/h1" "$dir/h2" && cmp -s "$dir/h1" "$dir/h3"' \
        "$c --help / -h (exit $rc2, $rc3) differ from help $c"
    check '[ "$(head -n1 "$dir/h1" | cut -d" " -f1-3)" = "usage: ringscan $c" ]' "help $c: first line $(head -n1 "$dir/h1")"
    check 'grep -A99 "^examples:" "$dir/h1" | grep -q "ringscan $c"' "help $c: no examples"
    wide=$(awk 'length($0) > 100' "$dir/h1" | head -n1)
    check '[ -z "$wide" ]' "help $c: a line over 100 columns: $wide"
    # every option the command's source names is in its help
    s=$(src_of "$c")
    if [ -n "$s" ]; then
        [ "$c" = version ] && s=/dev/null # main.c's own -h/--version are checked above
        d=/dev/null # the dataset options a table names through cli.h's CLI_DATASET_OPTS
        grep -q 'CLI_DATASET_OPTS(' "$s" && d=cli/cli.h
        for o in $(grep -ohE '"--[a-z][a-z0-9=-]*' "$s" "$d" | tr -d '"' | sort -u); do
            check 'grep -qE -- "(^| )$o( |,|\$)" "$dir/h1"' "help $c lacks $o (named in $s)"
        done
    fi
    # every option the help lists is accepted by the parser: a trailing unknown option
    # stops the command before it runs, and must be the one named. A help may hold a
    # subcommand's section ("usage: ringscan bench topk ..."): its options go after it.
    while read -r sub o; do
        [ "$o" = --help ] && continue
        pre=(); [ "$c" = gen ] && pre=(demo-types)
        [ "$sub" != - ] && pre=("$sub")
        "$R" "$c" "${pre[@]}" "$o" --zz-unknown --zz-unknown >"$dir/out" 2>"$dir/err"; rc=$?
        check '[ $rc -eq 2 ] && ! grep -q "unknown option '"'$o'"'" "$dir/err" && [ ! -s "$dir/out" ]' \
            "$c ${pre[*]} $o: exit $rc, $(head -n1 "$dir/err")"
    done < <(awk -v c="$c" '$1 == "usage:" { sub_ = ($3 == c && $4 ~ /^[a-z]+$/) ? $4 : "-" }
                           /^  (-[a-z], )?--[a-z]/ { o = ($1 ~ /^-[a-z],$/) ? $2 : $1; print sub_, o }' \
                 "$dir/h1" | sort -u)
done
"$R" help bench runtime >"$dir/h1" 2>&1; rc=$?
"$R" bench runtime --help >"$dir/h2" 2>&1
check '[ $rc -eq 0 ] && cmp -s "$dir/h1" "$dir/h2" && grep -q "^usage: ringscan bench runtime" "$dir/h1"' \
    "help bench runtime: exit $rc, $(head -n1 "$dir/h1")"
# the table the parser reads is the one the help prints: every entry of each option table
n=$(grep -cE '^    \{"--' cli/cmd_scan.c cli/cmd_meta.c cli/cmd_gen.c cli/cmd_bench.c | awk -F: '{s += $2} END {print s}')
# and the dataset options' entries (cli.h CLI_DATASET_OPTS) once for each table that names them
per=$(grep -cE '^    \{"--' cli/cli.h)
uses=$(grep -cE '^    CLI_DATASET_OPTS\(' cli/cmd_scan.c cli/cmd_meta.c cli/cmd_gen.c cli/cmd_bench.c | awk -F: '{s += $2} END {print s}')
n=$((n + per * uses))
m=$(for c in scan meta gen bench; do "$R" help $c; done | grep -E '^  (-[a-z], )?--[a-z]' | grep -vc -- '-h, --help')
check '[ "$n" -gt 40 ] && [ "$m" -eq "$n" ]' "option table entries $n, help option lines $m"
# defaults are shown where there is one
check 'grep -q -- "--limit N .*(default: no limit)" <("$R" help scan)' "scan --limit's default"
check 'grep -q -- "--threads N .*(default: 2)" <("$R" help scan)' "scan --threads' default"
check 'grep -q -- "(default: table)" <("$R" help scan)' "scan --format's default"
summary help
