#!/usr/bin/env python3
"""Conformance: every parquet-testing file reads in ringscan exactly as pyarrow read it.

Expected outputs were generated once with pyarrow (tests/conformance/gen_expected.py) and are
committed; this script needs only the standard library and the ringscan binary ($RINGSCAN).
Per file in MANIFEST.tsv, one test case:
  read    -> `ringscan scan F --format jsonl` exits 0; its first 5,000 lines equal <F>.jsonl byte
             for byte; when <F>.summary.json exists, the full output's length and CRC-32 and
             every column's CRC-32 equal it.
  refused -> exit status 1 (never a signal), stderr "ringscan: <path>: <reason>", nothing on stdout.
Ends with "conformance: N passed, N failed"."""
import json, os, subprocess, sys, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "parquet-testing", "data")
EXP = os.path.join(ROOT, "tests", "conformance", "expected")
BIN = os.environ.get("RINGSCAN", os.path.join(ROOT, "zig-out", "bin", "ringscan"))


def column_crcs(lines):
    """Per-column CRC-32 of each value's JSON text + '\\n', from canonical rows (no spaces)."""
    crcs = None
    for line in lines:
        values = split_values(line)
        if crcs is None:
            crcs = [0] * len(values)
        for i, text in enumerate(values):
            crcs[i] = zlib.crc32(text.encode() + b"\n", crcs[i])
    return crcs or []


def split_values(line):
    """The raw JSON text of each value of a canonical row object, in order."""
    out, i, n = [], 1, len(line)
    while i < n and line[i] != "}":
        assert line[i] == '"'
        i = skip_string(line, i)
        assert line[i] == ":"
        start = i + 1
        i = start
        if line[i] == '"':
            i = skip_string(line, i)
        else:
            while line[i] not in ",}":
                i += 1
        out.append(line[start:i])
        if line[i] == ",":
            i += 1
    return out


def skip_string(s, i):
    i += 1
    while s[i] != '"':
        i += 2 if s[i] == "\\" else 1
    return i + 1


def check_read(name, out, rc, err):
    if rc != 0:
        return f"exit {rc}: {err.strip()[:300]}"
    want = open(os.path.join(EXP, name + ".jsonl"), "rb").read()
    if not out.startswith(want) or (len(out) > len(want) and not os.path.exists(
            os.path.join(EXP, name + ".summary.json"))):
        got_lines, want_lines = out.split(b"\n"), want.split(b"\n")
        for k, (g, w) in enumerate(zip(got_lines, want_lines)):
            if g != w:
                return f"line {k + 1} differs:\n  got  {g[:400]!r}\n  want {w[:400]!r}"
        return f"{len(got_lines)} lines, want {len(want_lines)}"
    summ = os.path.join(EXP, name + ".summary.json")
    if os.path.exists(summ):
        s = json.load(open(summ))
        if len(out) != s["jsonl_bytes"] or zlib.crc32(out) != s["jsonl_crc32"]:
            return f"full output {len(out)} bytes crc {zlib.crc32(out)}, want {s['jsonl_bytes']} / {s['jsonl_crc32']}"
        crcs = column_crcs(out.decode().splitlines())
        for c, crc in zip(s["columns"], crcs):
            if c["crc32"] != crc:
                return f"column {c['name']} crc {crc}, want {c['crc32']}"
    return None


def check_refused(name, out, rc, err):
    if rc != 1:
        return f"want exit 1 with an error, got exit {rc} ({err.strip()[:200]})"
    if out:
        return "printed rows before refusing"
    if not err.startswith("ringscan: ") or name not in err:
        return f"error text does not name the file: {err.strip()[:200]}"
    return None


def main():
    passed = failed = 0
    manifest = open(os.path.join(EXP, "MANIFEST.tsv")).read().splitlines()[1:]
    for row in manifest:
        name, status = row.split("\t")[:2]
        path = os.path.join(DATA, name)
        try:
            p = subprocess.run([BIN, "scan", path, "--format", "jsonl", "--ordered"],
                               capture_output=True, timeout=120)
            err = p.stderr.decode(errors="replace")
            check = check_read if status == "read" else check_refused
            problem = check(name, p.stdout, p.returncode, err)
        except subprocess.TimeoutExpired:
            problem, err = "timed out after 120 s (hang)", ""
        if problem:
            failed += 1
            print(f"FAIL {name} ({status}): {problem}")
        else:
            passed += 1
            if status == "refused":
                print(f"ok   {name}: refused: {err.strip()[:160]}")
    print(f"conformance: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
