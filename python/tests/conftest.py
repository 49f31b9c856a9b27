"""Fixtures: a generated lineitem file (the project's `ringscan gen`), the conformance files
(../shared/parquet-testing/data, with the project's MANIFEST of what pyarrow reads)."""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "parquet-testing" / "data"
MANIFEST = ROOT / "tests" / "conformance" / "expected" / "MANIFEST.tsv"


def binary():
    return os.environ.get("RINGSCAN", str(ROOT / "zig-out" / "bin" / "ringscan"))


@pytest.fixture(scope="session")
def lineitem(tmp_path_factory):
    p = tmp_path_factory.mktemp("li") / "li.parquet"
    subprocess.run([binary(), "gen", "lineitem", "--sf", "0.01", "-o", str(p)], check=True,
                   capture_output=True)
    return str(p)


def manifest(status):
    rows = [l.split("\t") for l in MANIFEST.read_text().splitlines()[1:]]
    return [r[0] for r in rows if r[1] == status]
