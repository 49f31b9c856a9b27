"""Fixtures: a generated lineitem file (the project's `ringscan gen`), the conformance files
(../shared/parquet-testing/data, with the project's MANIFEST of what pyarrow reads)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "parquet-testing" / "data"
EXPECTED = ROOT / "tests" / "conformance" / "expected"
sys.path.insert(0, str(ROOT / "tests" / "cli"))
from checks import jsonable  # noqa: E402,F401  (a value as the conformance .jsonl files hold it)
MANIFEST = EXPECTED / "MANIFEST.tsv"


def binary():
    return os.environ.get("RINGSCAN", str(ROOT / "zig-out" / "bin" / "ringscan"))


@pytest.fixture(scope="session")
def lineitem(tmp_path_factory):
    p = tmp_path_factory.mktemp("li") / "li.parquet"
    subprocess.run([binary(), "gen", "lineitem", "--sf", "0.01", "-o", str(p)], check=True,
                   capture_output=True)
    return str(p)


def manifest(status, reason=None):
    """The conformance files of a status; with reason, those whose reason holds it."""
    rows = [l.split("\t") for l in MANIFEST.read_text().splitlines()[1:]]
    return [r[0] for r in rows if r[1] == status and (reason is None or reason in r[-1])]
