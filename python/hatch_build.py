"""Wheel build hook: puts libringscan.so and ringscan.h into ringscan/_lib/.

Inside the project tree (this folder's parent holds build.zig) it runs the project's own build,
`zig build install --prefix <tmp> -Doptimize=ReleaseFast`, with the zig on PATH, the project's
pinned one (.tools), or the `ziglang` build requirement, in that order. The Debian libraries the
build links (scripts/setup.sh installs them) must be present. Elsewhere it copies an installed
library: RINGSCAN_PREFIX=P, or pkg-config's `ringscan`. The wheel is tagged py3-none-<platform>:
the library does not depend on the Python version.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _zig(root):
    if shutil.which("zig"):
        return ["zig"]
    pinned = root / ".tools/venv/lib/python3.11/site-packages/ziglang/zig"
    if pinned.exists():
        return [str(pinned)]
    return [sys.executable, "-m", "ziglang"]


def _installed_prefix():
    if os.environ.get("RINGSCAN_PREFIX"):
        return Path(os.environ["RINGSCAN_PREFIX"])
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "ringscan"], check=True,
                                capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError("ringscan: no project tree to build and no installed libringscan "
                           "(set RINGSCAN_PREFIX or PKG_CONFIG_PATH)") from e
    return Path(libdir).parent


class RingscanBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        here = Path(self.root)
        root = here.parent
        out = here / "ringscan" / "_lib"
        out.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            if (root / "build.zig").exists() and not os.environ.get("RINGSCAN_PREFIX"):
                subprocess.run([*_zig(root), "build", "install", "--prefix", tmp,
                                "-Doptimize=ReleaseFast", "--summary", "none"], cwd=root, check=True)
                prefix = Path(tmp)
            else:
                prefix = _installed_prefix()
            shutil.copyfile((prefix / "lib" / "libringscan.so").resolve(), out / "libringscan.so")
            shutil.copyfile(prefix / "include" / "ringscan.h", out / "ringscan.h")
        plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{plat}"
