#!/usr/bin/env python3
"""`ringscan scan --format csv` is RFC 4180 CSV that other readers take back value for value.

    csv_rfc4180.py RINGSCAN DATA_DIR MANIFEST EXTRA_DIR

For every file MANIFEST (tests/conformance/expected/MANIFEST.tsv) lists as "read", plus the
files this script writes into EXTRA_DIR (strings holding commas, quotes, CR, LF, tabs, spaces
around them, empty strings, nulls, the text "NULL", non-ASCII; a one-column file whose rows
are null or empty), `RINGSCAN scan FILE --format csv --ordered` is read back twice, every
column as text:
  pyarrow-csv  pyarrow.csv.read_csv (empty unquoted field = null, "" = empty string,
               newlines inside quoted values, empty lines kept)
  duckdb-csv   DuckDB read_csv (header, all VARCHAR, allow_quoted_nulls=false: "" = '')
and both must equal pyarrow.parquet's reading of the same file rendered as the values' text
(tests/conformance/gen_expected.py's canonical JSON, unquoted: strings as themselves, numbers,
dates and times as their text, binary as base64), null as null; the header must be the
column names. One "PASS"/"FAIL" line per file and reader; the last line is
"csv_rfc4180: N passed, N failed, V values compared".
"""
import csv
import io
import json
import os
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
import gen_expected as ge  # noqa: E402  (the canonical value texts)


def expected_columns(path):
    """[(name, [text or None])] of pyarrow.parquet's reading of path."""
    out = []
    for name, texts in ge.column_texts(pq.read_table(path)):
        vals = [None if t == "null" else (json.loads(t) if t.startswith('"') else t) for t in texts]
        out.append((name, vals))
    return out


def read_pyarrow(data, names):
    parse = pacsv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False)
    conv = pacsv.ConvertOptions(column_types={n: pa.string() for n in names}, null_values=[""],
                                strings_can_be_null=True, quoted_strings_can_be_null=False)
    t = pacsv.read_csv(io.BytesIO(data), parse_options=parse, convert_options=conv)
    return t.column_names, [t.column(i).to_pylist() for i in range(t.num_columns)]


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def read_duckdb(csv_path, names):
    cols = "{" + ", ".join("%s: 'VARCHAR'" % sql_str(n) for n in names) + "}"
    q = ("SELECT * FROM read_csv(%s, header=true, auto_detect=false, delim=',', quote='\"', "
         "escape='\"', nullstr='', allow_quoted_nulls=false, columns=%s)" % (sql_str(csv_path), cols))
    con = duckdb.connect()
    rows = con.execute(q).fetchall()
    header = next(csv.reader(open(csv_path, newline="", encoding="utf-8")), [])
    return header, [[r[i] for r in rows] for i in range(len(names))]


def compare(want, header, got):
    """'' when (header, got) equals want, else the first difference."""
    names = [n for n, _ in want]
    if header != names:
        return "header %r, want %r" % (header[:8], names[:8])
    if len(got) != len(want):
        return "%d columns, want %d" % (len(got), len(want))
    for (name, w), g in zip(want, got):
        if len(g) != len(w):
            return "column %s: %d rows, want %d" % (name, len(g), len(w))
        for r, (a, b) in enumerate(zip(g, w)):
            if a != b:
                return "column %s row %d: %r, want %r" % (name, r, a, b)
    return ""


def write_extra(out_dir):
    """Parquet files of the strings CSV must quote; returns their paths."""
    tricky = ["plain", "a,b", 'say "hi"', '"', '""', "line\nbreak", "cr\rhere", "crlf\r\n",
              " lead", "trail ", "\ttab", "", None, "NULL", "caf\u00e9 \u4e2d\u6587", ",", "\n",
              "x" * 300 + ",y", "end\"", None]
    t1 = pa.table({"id": pa.array(range(len(tricky)), pa.int32()), "s": pa.array(tricky, pa.string()),
                   "a,b": pa.array([None if i % 3 == 0 else i / 4 for i in range(len(tricky))]),
                   'q"uote': pa.array([s[::-1] if s else s for s in tricky], pa.string())})
    t2 = pa.table({"only": pa.array([None, "", None, "x", ""], pa.string())})
    paths = []
    for name, t in (("tricky_strings.parquet", t1), ("one_column_nulls.parquet", t2)):
        p = os.path.join(out_dir, name)
        pq.write_table(t, p, row_group_size=7)
        paths.append(p)
    return paths


def main():
    ringscan, data_dir, manifest, extra_dir = sys.argv[1:5]
    files = []
    with open(manifest, encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            if len(row) >= 2 and row[1] == "read":
                files.append(os.path.join(data_dir, row[0]))
    files += write_extra(extra_dir)
    passed = failed = values = 0
    for path in files:
        name = os.path.basename(path)
        want = expected_columns(path)
        p = subprocess.run([ringscan, "scan", path, "--format", "csv", "--ordered"], capture_output=True)
        if p.returncode != 0:
            print("FAIL %s: ringscan exit %d: %s" % (name, p.returncode, p.stderr.decode()[-300:]))
            failed += 2
            continue
        csv_path = os.path.join(extra_dir, name + ".csv")
        with open(csv_path, "wb") as fh:
            fh.write(p.stdout)
        names = [n for n, _ in want]
        for reader, fn in (("pyarrow-csv", lambda: read_pyarrow(p.stdout, names)),
                           ("duckdb-csv", lambda: read_duckdb(csv_path, names))):
            try:
                header, got = fn()
                diff = compare(want, header, got)
            except Exception as e:  # a reader that refuses the text is a failure of the text
                diff = "%s: %s" % (type(e).__name__, " ".join(str(e).split())[:300])
            if diff:
                print("FAIL %s %s: %s" % (reader, name, diff))
                failed += 1
            else:
                print("PASS %s %s" % (reader, name))
                passed += 1
                values += sum(len(v) for _, v in want)
    # the exact bytes of two small cases: null = empty unquoted, "" = empty string, quoting
    exact = {"one_column_nulls.parquet": b'only\n\n""\n\nx\n""\n'}
    for name, want in exact.items():
        p = subprocess.run([ringscan, "scan", os.path.join(extra_dir, name), "--format", "csv",
                            "--ordered"], capture_output=True)
        ok = p.returncode == 0 and p.stdout == want
        print("%s exact %s%s" % ("PASS" if ok else "FAIL", name, "" if ok else ": %r" % p.stdout[:200]))
        passed, failed = passed + ok, failed + (not ok)
    p = subprocess.run([ringscan, "scan", os.path.join(extra_dir, "tricky_strings.parquet"), "--format",
                        "csv", "--ordered", "--columns", 'id,s,q"uote', "--limit", "5"], capture_output=True)
    want = b'id,s,"q""uote"\n0,plain,nialp\n1,"a,b","b,a"\n2,"say ""hi""","""ih"" yas"\n3,"""",""""\n4,"""""",""""""\n'
    ok = p.returncode == 0 and p.stdout == want
    print("%s exact tricky_strings.parquet%s" % ("PASS" if ok else "FAIL", "" if ok else ": %r" % p.stdout[:300]))
    passed, failed = passed + ok, failed + (not ok)
    print("csv_rfc4180: %d passed, %d failed, %d values compared" % (passed, failed, values))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
