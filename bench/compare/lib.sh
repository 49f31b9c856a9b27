# bench/compare/lib.sh: what run.sh and run_http.sh share; sourced with HERE and ROOT set.
#   compare_venv VENV NAME PIN...  makes (or reuses) the pinned venv VENV: reinstalls when its
#                                  stamp differs from the pins, one package at a time so a
#                                  failure is named (by NAME) and the rest still come in.
#   compare_ringscan NAME          unless RINGSCAN is set: builds ringscan and copies the binary
#                                  to $HERE/out/bin, so a rebuild of the tree during the run does
#                                  not change what is measured; sets RINGSCAN to the copy.
compare_venv() {
    local venv=$1 name=$2; shift 2
    local stamp="$venv/.pins" want="$*" p
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then return 0; fi
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip
    for p in "$@"; do
        "$venv/bin/pip" install -q "$p" || echo "$name: WARNING: pip install $p failed" >&2
    done
    echo "$want" > "$stamp"
}

compare_ringscan() {
    local name=$1
    [[ -n "${RINGSCAN:-}" ]] && return 0
    local z; z="$(cd "$ROOT" && scripts/setup.sh)"
    (cd "$ROOT" && "$z" build --summary none) ||
        echo "$name: WARNING: build failed, using the existing zig-out/bin/ringscan" >&2
    mkdir -p "$HERE/out/bin"
    cp "$ROOT/zig-out/bin/ringscan" "$HERE/out/bin/ringscan"
    RINGSCAN="$HERE/out/bin/ringscan"
}
