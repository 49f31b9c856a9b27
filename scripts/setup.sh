#!/usr/bin/env bash
# Installs everything ringscan needs on a fresh Debian 12 machine: Debian packages for the
# C libraries and tools, and the pinned Zig from PyPI in .tools/venv. Idempotent and quick
# when already done. Prints the path of the zig binary on its last line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ZIG_VERSION=0.14.1
PKGS="liburing-dev libmimalloc-dev libxxhash-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev
      libbrotli-dev libcairo2-dev libcurl4-openssl-dev clang libclang-rt-14-dev llvm fio strace python3-venv pkg-config"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq $missing >&2
fi
venv="$root/.tools/venv"
zig=$( (ls -d "$venv"/lib/python3*/site-packages/ziglang 2>/dev/null || true) | head -n1)/zig
if [ ! -x "$zig" ] || [ "$("$zig" version 2>/dev/null)" != "$ZIG_VERSION" ]; then
  echo "setup: installing ziglang==$ZIG_VERSION from PyPI" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q "ziglang==$ZIG_VERSION" >&2
  zig=$(ls -d "$venv"/lib/python3*/site-packages/ziglang | head -n1)/zig
fi
echo "$zig"
