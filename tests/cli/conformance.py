#!/usr/bin/env python3
"""Conformance: every parquet-testing file reads in ringscan exactly as pyarrow read it (or,
for a file pyarrow refuses and DuckDB reads, tests/conformance/gen_expected.py DUCKDB_ORACLE,
as DuckDB read it: a nested row of MANIFEST.tsv like the others).

Expected outputs were generated once with pyarrow (tests/conformance/gen_expected.py) and are
committed; this script needs only the standard library and the ringscan binary ($RINGSCAN).
Per file in MANIFEST.tsv, one test case:
  read    -> `ringscan scan F --format jsonl` exits 0; its first 5,000 lines equal <F>.jsonl byte
             for byte; when <F>.summary.json exists, the full output's length and CRC-32 and
             every column's CRC-32 equal it.
  refused -> exit status 1 (never a signal), stderr "ringscan: <path>: <reason>", nothing on stdout.
  nested  -> (<F>.nested.json, a file with list/map/struct columns) `ringscan meta F --json`
             lists every leaf with pyarrow's path and max definition/repetition levels; `scan
             F --columns <read> --format jsonl --ordered` (the flat fields and lists of a
             primitive) equals <F>.jsonl as a read file does, using exactly those fields'
             chunks (--stats bytes_used equal to their compressed size) and reading besides
             them at most the holes between them that hold no other chunk (bytes_read: no
             byte of an unread nested chunk); when every field is read, so does `scan F` alone; else `scan F
             --columns X` of each other nested field X exits 1 with "column 'X': nested
             columns (<kind>) cannot be projected yet", and `scan F` exits 1 naming them and
             listing the fields it can read.
A file in KNOWN_GAPS is checked to fail exactly as the gap says and counted as skipped (with
the reason printed), so the gap stays visible and its fix shows up as a failure to update.
Ends with "conformance: N passed, N failed, N skipped"."""
import json, os, re, subprocess, sys, zlib

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


# Files ringscan does not read as pyarrow does yet, with the text of today's error and why.
KNOWN_GAPS = {
}


def run(args):
    p = subprocess.run([BIN] + args, capture_output=True, timeout=120)
    return p.stdout, p.returncode, p.stderr.decode(errors="replace")


def check_levels(path, info):
    out, rc, err = run(["meta", path, "--json"])
    if rc != 0:
        return f"meta --json exit {rc}: {err.strip()[:300]}"
    got = []
    for c in json.loads(out)["schema"]:
        flat_def = 1 if c["repetition"] == "OPTIONAL" else 0
        got.append([c["name"], c.get("max_definition_level", flat_def), c.get("max_repetition_level", 0)])
    if got != info["leaves"]:
        bad = [(g, w) for g, w in zip(got, info["leaves"]) if g != w][:2]
        return f"meta leaves differ from pyarrow's (got, want): {bad or (len(got), len(info['leaves']))}"
    return None


def check_refusals(name, path, info):
    if not info["nested"]:
        out, rc, err = run(["scan", path, "--format", "jsonl", "--ordered"])
        problem = check_read(name, out, rc, err)
        return problem and "scan of every column: " + problem
    for field, kind in info["nested"]:
        out, rc, err = run(["scan", path, "--columns", field, "--format", "jsonl"])
        want = f"column '{field}': nested columns ({kind}) cannot be projected yet"
        if rc != 1 or out or want not in err:
            return f"--columns {field}: exit {rc}, stderr {err.strip()[:300]!r}, want {want!r}"
    out, rc, err = run(["scan", path, "--format", "jsonl"])
    first = info["nested"][0]
    want = [f"{name}: a LIST or MAP whose shape the format does not allow cannot be read: "
            f"'{first[0]}' ({first[1]})"]
    want.append(f"name the columns that can be read instead: {info['read'][0]}" if info["read"]
                else "the file has no other column")
    if rc != 1 or out or any(w not in err for w in want):
        return f"scan of every column: exit {rc}, stderr {err.strip()[:300]!r}, want {want!r}"
    return None


def check_nested(name, path):
    info = json.load(open(os.path.join(EXP, name + ".nested.json")))
    problem = check_levels(path, info) or check_refusals(name, path, info)
    if problem or not info["read"]:
        return problem
    out, rc, err = run(["scan", path, "--columns", ",".join(info["read"]), "--format", "jsonl",
                        "--ordered", "--stats"])
    problem = check_read(name, out, rc, err)
    if problem:
        return "read fields: " + problem
    got = {k: int(v) for k, v in re.findall(r"(bytes_read|bytes_used) (\d+),", err)}
    if got.get("bytes_used") != info["read_bytes"]:
        return f"read fields used {got} bytes, their chunks hold {info['read_bytes']}"
    if got["bytes_read"] > info["read_bytes"] + info["hole_bytes"]:
        return f"read {got['bytes_read']} bytes: more than the read chunks ({info['read_bytes']}) " \
               f"and the holes between them ({info['hole_bytes']})"
    return None


def check_gap(name, path, status):
    text, why = KNOWN_GAPS[name]
    out, rc, err = run(["meta", path])
    if rc == 0 or text not in err:
        return f"known gap no longer as recorded (exit {rc}: {err.strip()[:200]}): update KNOWN_GAPS"
    print(f"skip {name} ({status}): known gap: {why}")
    return None


def check_refused(name, out, rc, err):
    if rc != 1:
        return f"want exit 1 with an error, got exit {rc} ({err.strip()[:200]})"
    if out:
        return "printed rows before refusing"
    if not err.startswith("ringscan: ") or name not in err:
        return f"error text does not name the file: {err.strip()[:200]}"
    return None


def check_one(name, status):
    """(problem or None, stderr of the whole-file scan) for one MANIFEST row."""
    path = os.path.join(DATA, name)
    if name in KNOWN_GAPS:
        return check_gap(name, path, status), ""
    if status == "nested":
        return check_nested(name, path), ""
    out, rc, err = run(["scan", path, "--format", "jsonl", "--ordered"])
    check = check_read if status == "read" else check_refused
    return check(name, out, rc, err), err


def main():
    passed = failed = skipped = 0
    manifest = open(os.path.join(EXP, "MANIFEST.tsv")).read().splitlines()[1:]
    for row in manifest:
        name, status = row.split("\t")[:2]
        try:
            problem, err = check_one(name, status)
        except subprocess.TimeoutExpired:
            problem, err = "timed out after 120 s (hang)", ""
        if problem:
            failed += 1
            print(f"FAIL {name} ({status}): {problem}")
        elif name in KNOWN_GAPS:
            skipped += 1
        else:
            passed += 1
            if status == "refused":
                print(f"ok   {name}: refused: {err.strip()[:160]}")
    print(f"conformance: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
