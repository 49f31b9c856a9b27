#!/usr/bin/env bash
# The README's main-job command: set up the machine, build ReleaseFast, run `ringscan bench`
# on default data it generates (cached under data/). Extra arguments go to `ringscan bench`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
zig=$(./scripts/setup.sh)
"$zig" build -Doptimize=ReleaseFast --summary none
exec zig-out/bin/ringscan bench "$@"
