#!/usr/bin/env bash
# tests/cli/python_pkg.sh: the Python package (issue 24 part 2) as a user gets it. In a venv
# of its own (.tools/pkgvenv, pinned below), `pip install ./python` builds the library with the
# project's zig build and installs it; pytest then runs python/tests against the INSTALLED
# package (from outside the source tree): equality with pyarrow on the conformance files,
# pyarrow / Polars / DuckDB consuming the reader, filters as text and expressions, errors,
# leaks, threads, the GIL. `python -m build --wheel python/` gives a py3-none-<platform>
# wheel holding the library and its header.
# Last line: "python_pkg: N passed, N failed[, N skipped]" (pytest's counts, plus this script's).
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
if [ "${RINGSCAN_SANITIZED:-0}" = 1 ]; then # scripts/sanitize.sh: this tests the release package
    echo "python_pkg: skipped under the sanitizer pass (the normal pass runs it)"; echo "python_pkg: 0 passed, 0 failed, 1 skipped"; exit 0
fi
root=$PWD
PINS="pyarrow==26.0.1 duckdb==2.0.1 polars==2.1.0 pytest==9.2.0 cffi==2.1.1 build==1.6.1 pandas==3.1.1 dask[distributed]==2026.8.0"
venv="$root/.tools/pkgvenv"
py="$venv/bin/python"
if [ ! -x "$py" ] || [ "$(cat "$venv/.pins" 2>/dev/null)" != "$PINS" ]; then
    python3 -m venv "$venv" && "$py" -m pip install -q --disable-pip-version-check $PINS >"$dir/pip.log" 2>&1 \
        && echo "$PINS" >"$venv/.pins" || { bad "the test venv did not install: $(tail -c 600 "$dir/pip.log")"; summary python_pkg; exit; }
fi
"$py" -m pip uninstall -q -y ringscan >/dev/null 2>&1
if "$py" -m pip install -q --disable-pip-version-check ./python >"$dir/install.log" 2>&1; then ok
else bad "pip install ./python failed: $(tail -c 1500 "$dir/install.log")"; summary python_pkg; exit; fi
where=$(cd "$dir" && "$py" -c 'import ringscan, os; print(os.path.dirname(ringscan.__file__))' 2>&1)
check '[[ "$where" == "$venv"/lib/*/site-packages/ringscan ]] && [ -f "$where/_lib/libringscan.so" ]' \
    "the package is not the installed one with its library: $where"
check '! readelf -d "$where/_lib/libringscan.so" | grep -q mimalloc' "the packaged library links mimalloc"
# pytest from outside the tree, so `import ringscan` is the installed package
(cd "$dir" && RINGSCAN="$R" timeout 900 "$py" -m pytest -q -p no:cacheprovider "$root/python/tests" >"$dir/pytest.log" 2>&1)
tail -n 15 "$dir/pytest.log" | grep -E "FAILED|ERROR|Error" | head -20
last=$(grep -E "[0-9]+ (passed|failed)" "$dir/pytest.log" | tail -n1)
n_of() { echo "$last" | grep -oE "[0-9]+ $1" | grep -oE "[0-9]+" || echo 0; }
p=$(n_of passed); f=$(( $(n_of failed) + $(n_of error) )); s=$(n_of skipped)
passed=$((passed + p)); failed=$((failed + f))
check '[ "$p" -gt 40 ]' "pytest ran too few tests ($last)"
# the wheel
rm -rf "$dir/wheel"
if "$py" -m build --wheel --outdir "$dir/wheel" python >"$dir/build.log" 2>&1; then
    whl=$(ls "$dir/wheel"/*.whl 2>/dev/null | head -n1)
    check '[[ "$whl" == *-py3-none-linux_x86_64.whl ]]' "wheel tag: $whl"
    "$py" -m zipfile -l "$whl" >"$dir/wheel.list" 2>&1
    check 'grep -q "ringscan/_lib/libringscan.so" "$dir/wheel.list" && grep -q "ringscan/_lib/ringscan.h" "$dir/wheel.list"' \
        "the wheel lacks the library or header: $(head -20 "$dir/wheel.list")"
else
    bad "python -m build --wheel python failed: $(tail -c 1200 "$dir/build.log")"
fi
rm -rf python/ringscan/_lib
echo "python_pkg: $passed passed, $failed failed, ${s:-0} skipped"
[ "$failed" -eq 0 ]
