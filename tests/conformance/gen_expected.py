#!/usr/bin/env python3
"""Conformance oracle: what pyarrow reads from every parquet-testing file, as canonical JSONL.

Run once by a developer (outputs are COMMITTED; tests never need pyarrow):

    PY=$(scripts/pyenv.sh) && $PY tests/conformance/gen_expected.py [FILE...]

(with FILE names, e.g. incorrect_map_schema.parquet: only those files' outputs and MANIFEST rows
are written again, the others kept as committed).

For every ../shared/parquet-testing/data/*.parquet (relative to the project root) it writes, into
tests/conformance/expected/ (<file> is the full data file name, e.g. binary.parquet.jsonl):

  <file>.jsonl         flat schema (every top-level field primitive): the rows, one JSON object
                       per line, at most MAX_ROWS (5,000) rows.
  <file>.summary.json  only when the file has more than MAX_ROWS rows: the totals over ALL rows
                       (see CHECKSUMS below), so the rows not in .jsonl are still checked.
  <file>.nested.json   nested schema (a struct/list/map top-level field) that pyarrow reads:
                       {"read": [the top-level fields ringscan reads: every field pyarrow
                       reads], "nested": [[name, kind]] for the others (none today), kind "list" (list,
                       large list, or a repeated field), "map" or "struct", "leaves": [[path,
                       max definition level, max repetition level]] for every leaf column in
                       file order (pyarrow's ParquetSchema), "read_bytes": the compressed bytes
                       of the read fields' chunks over all row groups, "hole_bytes": the bytes between
                       read chunks that hold no other chunk}; and, when "read" is not
                       empty, <file>.jsonl (and .summary.json) of those fields alone, exactly
                       as for a flat file, a list as a JSON array of its elements' canonical
                       values ([1,null,2], [] empty, null for a null list). ringscan reads
                       them (the whole file when "nested" is empty; every field's values as
                       NESTED below), refuses a nested field
                       naming it, refuses a scan of every column listing what it can read, and
                       decodes the read fields' chunks, reading at most the holes between them
                       besides (coalescing), never another field's chunk.
  <file>.refused       pyarrow cannot read the file: one line saying why ("pyarrow: <error>").
                       Except the files of DUCKDB_ORACLE, which pyarrow refuses and DuckDB
                       reads: their outputs are those of a nested file made from DuckDB's
                       answer (its Arrow table, its parquet_schema and parquet_metadata), the
                       MANIFEST reason saying so and quoting pyarrow's refusal.
  MANIFEST.tsv         one line per file: file, status (read/nested/refused), rows, columns,
                       reason.

CANONICAL JSONL (this is the definition of ringscan's `--format jsonl`; the C side must produce
byte-identical text):

  Line     One line per row: a JSON object, then "\\n". No spaces anywhere outside strings:
           {"id":1,"name":"x","f":null}. Keys are the top-level column names in schema order,
           written as JSON strings (same escaping as values).
  null     null (any type).
  boolean  true / false.
  integer  int8..int64, uint8..uint64 (physical INT32/INT64 with or without INT(n, signed)
           annotations): the exact decimal integer, e.g. -5, 18446744073709551615.
  float    float16, float32, float64 ("halffloat", "float", "double"):
             NaN -> "NaN", +inf -> "Infinity", -inf -> "-Infinity" (JSON strings).
             Otherwise a JSON number built from the SHORTEST decimal digit string that rounds
             back to the same value IN THE COLUMN'S OWN TYPE (float16 digits for float16, float32
             digits for float32: 0.1f is 0.1, not 0.10000000149011612), ties broken toward
             the digits closest to the exact value (what Python's repr and numpy's unique
             formatting do; Ryu / Grisu-shortest / Dragonbox give the same digits).
             Layout, with digits d1 d2 ... dn (n >= 1, no trailing zeros) and decimal exponent e
             (value = 0.d1d2...dn * 10^(e), i.e. d1 is in the 10^(e-1) place; let x = e - 1, the
             scientific exponent):
               -4 <= x < 16 : positional, always with a '.' and at least one digit after it:
                              1.0, 0.0001, 123.5, 1e15 -> 1000000000000000.0
               otherwise    : d1[.d2...dn]e<sign><at least two exponent digits>:
                              1e-05, 1.5e-07, 1e+16, 3.4028234663852886e+38
             Zero is 0.0 and negative zero is -0.0. A '-' precedes negative values.
             (This is exactly Python's repr(float) layout, applied to float32/float16 digits.)
  string   STRING/UTF8/ENUM/JSON-annotated byte arrays (arrow "string"): a JSON string with
           these escapes only: \\" \\\\ \\b \\f \\n \\r \\t, and \\u00XX (lowercase hex, 4 digits)
           for the other bytes 0x00-0x1f. Everything else, including '/', 0x7f and all
           non-ASCII characters, is written as its raw UTF-8 bytes.
  binary   byte arrays without a string annotation (arrow "binary"), and fixed_len_byte_array
           that is not a decimal (arrow "fixed_size_binary"): a JSON string holding standard
           base64 (RFC 4648 alphabet A-Z a-z 0-9 + /, with '=' padding), "" for empty.
  decimal  (INT32/INT64/FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY with DECIMAL(p, s)): a JSON string of
           the exact value, never an exponent: optional '-', the integer digits (at least one,
           "0" when |value| < 1), then when s > 0 a '.' and exactly s digits:
           "123.45", "-0.01", "0.00", "7" (s = 0). Negative zero does not exist (unscaled 0).
  date     DATE: "YYYY-MM-DD" (proleptic Gregorian; years outside 0000-9999 written with as
           many digits as needed and a leading '-' when negative, zero-padded to 4 digits).
  time     TIME(unit): "HH:MM:SS" then, for ms/us/ns, '.' and exactly 3/6/9 fraction digits
           (always written, even when zero): "13:05:09.120", "00:00:00.000000".
  timestamp  TIMESTAMP(unit) and INT96: "YYYY-MM-DDTHH:MM:SS" then '.' and exactly 3/6/9
           fraction digits for ms/us/ns (none for seconds), then "Z" when the column is
           UTC-adjusted (arrow type has a time zone), nothing when it is naive (local).
           Values before 1970 use floor division (1969-12-31T23:59:59.999 for -1 ms).
           INT96 columns are read as pyarrow reads them: timestamp[ns], naive (no "Z"), the
           value being days_since_epoch * 86400e9 + nanos_of_day in WRAPPING int64 arithmetic
           (Julian day 2440588 = epoch), so out-of-range values wrap exactly as in pyarrow
           (int96_from_spark.parquet: year 9999 reads as 1816-03-29T08:56:08.066277376).

NESTED     list (and large list): a JSON array of its elements' values, [] when empty:
           [1,null,2]. struct: a JSON object of every field in schema order, {"a":1,"b":null}
           (a null struct is null, not an object of nulls). map: a JSON array of one object
           per entry in stored order, {"key":k,"value":v}, i.e. pyarrow's to_pylist pairs
           [(k, v)] with the names written: [{"key":"a","value":1}]. Nulls at any level are
           null; no spaces anywhere outside strings.

CHECKSUMS (<file>.summary.json, written only when rows > MAX_ROWS):

  {"file": F, "rows": N, "jsonl_bytes": B, "jsonl_crc32": C,
   "columns": [{"name": ..., "nulls": K, "crc32": X}, ...]}

  jsonl_crc32 / jsonl_bytes: zlib CRC-32 and byte length of the COMPLETE canonical JSONL text of
  all N rows (every line with its "\\n"), i.e. of what ringscan --format jsonl prints for the
  whole file. Per column: nulls = number of null values; crc32 = zlib CRC-32 over the canonical
  JSON text of each of the column's N values (as in the row objects, "null" for nulls), each
  followed by "\\n", concatenated in row order. CRC-32 is the standard one (crc32 of "123456789"
  is 0xCBF43926); values are unsigned decimal integers.

Upstream *_expect.csv files (beside some data files) are compared with the pyarrow values (by
column position; an empty CSV cell means null; values compared as text after canonical
formatting, quotes stripped) and any disagreement is printed as a NOTE.
"""
import base64
import csv
import datetime
import decimal
import json
import math
import os
import sys
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

MAX_ROWS = 5000
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "parquet-testing", "data"))
OUT = os.path.join(ROOT, "tests", "conformance", "expected")

_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def json_string(s):
    """JSON string with only the escapes the docstring lists (matches json.dumps(ensure_ascii=False))."""
    out = ['"']
    for ch in s:
        if ch in _ESC:
            out.append(_ESC[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    text = "".join(out)
    assert text == json.dumps(s, ensure_ascii=False), (s, text)
    return text


def layout_float(neg, digits, x):
    """Python-repr layout of digit string `digits` (no trailing zeros) with scientific exponent x."""
    sign = "-" if neg else ""
    if -4 <= x < 16:
        if x >= 0:
            ip = digits[: x + 1].ljust(x + 1, "0")
            fp = digits[x + 1 :] or "0"
        else:
            ip = "0"
            fp = "0" * (-x - 1) + digits
        return sign + ip + "." + fp
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return sign + mant + "e" + ("-" if x < 0 else "+") + "%02d" % abs(x)


def fmt_float(v, np_type):
    v = float(v)
    if math.isnan(v):
        return '"NaN"'
    if math.isinf(v):
        return '"Infinity"' if v > 0 else '"-Infinity"'
    if v == 0.0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    # Shortest round-trip digits in the column's own type, as scientific "d.ddde[+-]x".
    sci = np.format_float_scientific(np_type(v), unique=True, trim="-")
    neg = sci.startswith("-")
    mant, exp = sci.lstrip("-").split("e")
    digits = mant.replace(".", "").rstrip("0") or "0"
    text = layout_float(neg, digits, int(exp))
    if np_type is np.float64:
        assert text == repr(v), (v, text, repr(v))
    assert np_type(float(text)) == np_type(v), (v, text)
    return text


def civil_from_days(z):
    """(year, month, day) of day z since 1970-01-01, proleptic Gregorian (H. Hinnant's algorithm)."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + (m <= 2), m, d)


def fmt_date(days):
    y, m, d = civil_from_days(days)
    ys = ("-%04d" % -y) if y < 0 else "%04d" % y
    return "%s-%02d-%02d" % (ys, m, d)


UNIT_PER_S = {"s": 1, "ms": 1000, "us": 1000000, "ns": 1000000000}
UNIT_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def fmt_clock(ticks_of_day, unit):
    per = UNIT_PER_S[unit]
    secs, frac = divmod(ticks_of_day, per)
    text = "%02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)
    if UNIT_DIGITS[unit]:
        text += "." + str(frac).rjust(UNIT_DIGITS[unit], "0")
    return text


def fmt_timestamp(ticks, unit, utc):
    per_day = UNIT_PER_S[unit] * 86400
    days, rem = divmod(ticks, per_day)
    return fmt_date(days) + "T" + fmt_clock(rem, unit) + ("Z" if utc else "")


def fmt_decimal(d, scale):
    sign, digits, exp = d.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0")
    shift = exp + scale  # value = unscaled * 10^exp = (unscaled * 10^shift) * 10^-scale
    assert shift >= 0, (d, scale)
    unscaled *= 10**shift
    s = str(unscaled)
    if scale > 0:
        s = s.rjust(scale + 1, "0")
        s = s[:-scale] + "." + s[-scale:]
    if sign and unscaled != 0:
        s = "-" + s
    return '"' + s + '"'


def value_formatter(t):
    """A function from one raw python value (from an arrow array of type t) to canonical JSON."""
    if pa.types.is_null(t):
        return lambda v: "null"
    if pa.types.is_boolean(t):
        return lambda v: "true" if v else "false"
    if pa.types.is_integer(t):
        return lambda v: str(int(v))
    if pa.types.is_float16(t):
        return lambda v: fmt_float(v, np.float16)
    if pa.types.is_float32(t):
        return lambda v: fmt_float(v, np.float32)
    if pa.types.is_float64(t):
        return lambda v: fmt_float(v, np.float64)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return json_string
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return lambda v: '"' + base64.b64encode(v).decode("ascii") + '"'
    if pa.types.is_decimal(t):
        return lambda v: fmt_decimal(v, t.scale)
    if pa.types.is_date32(t):
        return lambda v: '"' + fmt_date(v) + '"'
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        return lambda v: '"' + fmt_clock(v, t.unit) + '"'
    if pa.types.is_timestamp(t):
        return lambda v: '"' + fmt_timestamp(v, t.unit, t.tz is not None) + '"'
    raise TypeError("no canonical JSON rule for arrow type %s" % t)


def raw_values(col):
    """Python values of a chunked array; temporal types as raw integers (no datetime limits)."""
    t = col.type
    if pa.types.is_date32(t):
        col = col.cast(pa.int32())
    elif pa.types.is_time32(t):
        col = col.cast(pa.int32())
    elif pa.types.is_time64(t) or pa.types.is_timestamp(t):
        col = col.cast(pa.int64())
    elif pa.types.is_float16(t):
        return [None if v is None else float(v) for v in col.to_pylist()]
    return col.to_pylist()


def nested_kind(t):
    """pyarrow's word for a nested top-level type, as ringscan's messages say it."""
    if pa.types.is_map(t):
        return "map"
    if pa.types.is_struct(t):
        return "struct"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return "list"
    raise TypeError("no kind for nested arrow type %s" % t)


def leaves_of(ps, name):
    """Indexes of the leaf columns of top-level field name in ParquetSchema ps."""
    return [i for i in range(len(ps)) if ps.column(i).path.split(".")[0] == name]


def readable(ps, f):
    """Whether ringscan reads top-level field f: every field pyarrow reads (flat or nested:
    structs, lists, maps at any depth); a file pyarrow refuses is .refused as a whole."""
    return True


def nested_info(pf):
    """The .nested.json object of a file with nested top-level fields, or None when flat."""
    schema, ps, md = pf.schema_arrow, pf.schema, pf.metadata
    if not any(pa.types.is_nested(f.type) for f in schema):
        return None
    read = [f.name for f in schema if readable(ps, f)]
    nested = [[f.name, nested_kind(f.type)] for f in schema if not readable(ps, f)]
    leaves = [[ps.column(i).path, ps.column(i).max_definition_level,
               ps.column(i).max_repetition_level] for i in range(len(ps))]
    read_idx = [i for name in read for i in leaves_of(ps, name)]
    read_bytes = sum(md.row_group(g).column(i).total_compressed_size
                     for g in range(md.num_row_groups) for i in read_idx)
    return {"read": read, "nested": nested, "leaves": leaves, "read_bytes": read_bytes,
            "hole_bytes": hole_bytes(md, read_idx)}


def chunk_range(c):
    """[start, end) of column chunk metadata c (from its dictionary page when it has one)."""
    start = c.dictionary_page_offset if c.has_dictionary_page and c.dictionary_page_offset else \
        c.data_page_offset
    return start, start + c.total_compressed_size


def hole_bytes(md, read_idx):
    """Bytes between consecutive read chunks (in file order) that hold no other chunk: what
    coalescing may read besides them without touching an unread chunk."""
    read, other = [], []
    for g in range(md.num_row_groups):
        for i in range(md.num_columns):
            (read if i in read_idx else other).append(chunk_range(md.row_group(g).column(i)))
    return holes(read, other)


def holes(read, other):
    """hole_bytes of the [start, end) ranges of the read chunks and of the others."""
    read = sorted(read)
    total = 0
    for (_, end), (start, _) in zip(read, read[1:]):
        if start > end and not any(a < start and b > end for a, b in other):
            total += start - end
    return total


def array_texts(arr):
    """The canonical JSON text of each slot of arrow array arr (any type, nested included):
    flat values as the docstring says, a list as [a,b] ([] empty), a struct as {"f":v,...}
    (every field, schema order), a map as [{"key":k,"value":v},...] (entries in stored order,
    pyarrow's to_pylist pairs named), null for a null slot at any level."""
    t = arr.type
    nulls = arr.is_null().to_pylist()
    if pa.types.is_map(t):
        keys, items, offs = array_texts(arr.keys), array_texts(arr.items), arr.offsets.to_pylist()
        return ["null" if nulls[r] else "[" + ",".join(
            '{"key":' + keys[j] + ',"value":' + items[j] + "}" for j in range(offs[r], offs[r + 1]))
            + "]" for r in range(len(arr))]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        vals, offs = array_texts(arr.values), arr.offsets.to_pylist()
        return ["null" if nulls[r] else "[" + ",".join(vals[offs[r]:offs[r + 1]]) + "]"
                for r in range(len(arr))]
    if pa.types.is_struct(t):
        fields = [(json_string(t.field(i).name) + ":", array_texts(arr.field(i)))
                  for i in range(t.num_fields)]
        return ["null" if nulls[r] else "{" + ",".join(k + v[r] for k, v in fields) + "}"
                for r in range(len(arr))]
    fmt = value_formatter(t)
    return ["null" if v is None else fmt(v) for v in raw_values(pa.chunked_array([arr], t))]


def column_texts(table):
    """[(name, [json text of each value])] in schema order."""
    return [(f.name, array_texts(table.column(i).combine_chunks()))
            for i, f in enumerate(table.schema)]


def write_file(path, text):
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def check_expect_csv(name, cols):
    csv_path = os.path.join(DATA, name[: -len(".parquet")] + "_expect.csv")
    if not os.path.exists(csv_path):
        return
    with open(csv_path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    bad = 0
    if len(body) != len(cols[0][1]) or len(header) != len(cols):
        print("NOTE %s: expect.csv has %d rows x %d columns, pyarrow %d x %d"
              % (name, len(body), len(header), len(cols[0][1]), len(cols)))
    for r, row in enumerate(body):
        for c, cell in enumerate(row[: len(cols)]):
            text = cols[c][1][r] if r < len(cols[c][1]) else None
            want = "" if text == "null" else (json.loads(text) if text is not None else None)
            if str(want) != cell:
                bad += 1
                if bad <= 5:
                    print("NOTE %s: row %d column %s: expect.csv %r, pyarrow %r"
                          % (name, r, cols[c][0], cell, want))
    print("checked %s against %s: %s" % (name, os.path.basename(csv_path),
                                          "agree" if bad == 0 else "%d cells differ" % bad))


# Files pyarrow refuses that DuckDB reads, and why: their expected values are DuckDB's.
DUCKDB_ORACLE = {
    "incorrect_map_schema.parquet": "a MAP whose key is OPTIONAL, not REQUIRED (parquet-mr 1.12.2)",
}


def schema_leaves(els):
    """[[path, max definition level, max repetition level]] of every leaf of a schema given as
    its elements (name, repetition, num_children) in pre-order, the root first."""
    out, at = [], [1]

    def walk(prefix, d, r):
        name, rep, nchildren = els[at[0]]
        at[0] += 1
        d, r, path = d + (rep != "REQUIRED"), r + (rep == "REPEATED"), prefix + [name]
        if not nchildren:
            out.append([".".join(path), d, r])
        for _ in range(nchildren or 0):
            walk(path, d, r)
    for _ in range(els[0][2]):
        walk([], 0, 0)
    return out


def duckdb_file(name, path, stem, refusal):
    """The outputs of DUCKDB_ORACLE file name as a nested file whose every field reads, from
    DuckDB's answer; returns its MANIFEST row."""
    import duckdb
    con = duckdb.connect()
    table = con.read_parquet(path).to_arrow_table()
    els = con.execute("SELECT name, repetition_type, num_children FROM parquet_schema(?)",
                      [path]).fetchall()
    chunks = con.execute("SELECT total_compressed_size, data_page_offset, dictionary_page_offset "
                         "FROM parquet_metadata(?)", [path]).fetchall()
    ranges = [((dpo or dp), (dpo or dp) + size) for size, dp, dpo in chunks]
    nested = {"read": table.column_names, "nested": [], "leaves": schema_leaves(els),
              "read_bytes": sum(c[0] for c in chunks), "hole_bytes": holes(ranges, [])}
    assert any(pa.types.is_nested(f.type) for f in table.schema), name
    write_file(stem + ".nested.json", json.dumps(nested, ensure_ascii=False) + "\n")
    write_rows(name, stem, table, column_texts(table))
    what = "nested: none; read: %s; values: DuckDB %s's; %s; %s" % (
        ", ".join(nested["read"]), duckdb.__version__, DUCKDB_ORACLE[name], refusal)
    return [name, "nested", str(table.num_rows), str(table.num_columns), what]


def one_file(name):
    """Writes the outputs for one data file; returns its MANIFEST row."""
    path = os.path.join(DATA, name)
    stem = os.path.join(OUT, name)
    for ext in (".jsonl", ".refused", ".summary.json", ".nested.json"):
        if os.path.exists(stem + ext):
            os.remove(stem + ext)
    rows, ncols, reason, nested = "", "", None, None
    try:
        pf = pq.ParquetFile(path)
        rows, ncols = str(pf.metadata.num_rows), str(len(pf.schema_arrow))
        nested = nested_info(pf)
        if nested is None or nested["read"]:
            table = pf.read(columns=nested["read"] if nested else None)
            cols = column_texts(table)
    except Exception as e:  # pyarrow refuses the file: so do we
        reason = "pyarrow: " + " ".join(str(e).split())
    if reason is not None and name in DUCKDB_ORACLE:
        return duckdb_file(name, path, stem, reason)
    if reason is not None:
        write_file(stem + ".refused", reason + "\n")
        return [name, "refused", rows, ncols, reason]
    if nested is not None:
        write_file(stem + ".nested.json", json.dumps(nested, ensure_ascii=False) + "\n")
        what = "nested: %s; read: %s" % (", ".join("%s (%s)" % tuple(x) for x in nested["nested"])
                                         or "none", ", ".join(nested["read"]) or "none")
        if nested["read"]:
            write_rows(name, stem, table, cols)
        return [name, "nested", rows, ncols, what]
    return [name, "read", str(table.num_rows), str(len(cols)), write_rows(name, stem, table, cols)]


def jsonl_lines(cols, n):
    """The canonical JSONL line of each of the n rows of column_texts' cols."""
    keys = [json_string(c[0]) + ":" for c in cols]
    return ["{" + ",".join(k + c[1][r] for k, c in zip(keys, cols)) + "}\n" for r in range(n)]


def write_jsonl(path, table):
    """Every row of table as canonical JSONL (what `ringscan scan --format jsonl` prints)."""
    write_file(path, "".join(jsonl_lines(column_texts(table), table.num_rows)))


def write_rows(name, stem, table, cols):
    """The .jsonl (and .summary.json) of a table; returns the MANIFEST reason."""
    n = table.num_rows
    lines = jsonl_lines(cols, n)
    write_file(stem + ".jsonl", "".join(lines[:MAX_ROWS]))
    check_expect_csv(name, cols)
    reason = ""
    if n > MAX_ROWS:
        whole = "".join(lines).encode("utf-8")
        summary = {
            "file": name, "rows": n, "jsonl_bytes": len(whole), "jsonl_crc32": zlib.crc32(whole),
            "columns": [{"name": c[0], "nulls": c[1].count("null"),
                         "crc32": zlib.crc32("".join(t + "\n" for t in c[1]).encode("utf-8"))}
                        for c in cols],
        }
        write_file(stem + ".summary.json", json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
        reason = "first %d of %d rows in .jsonl; totals in .summary.json" % (MAX_ROWS, n)
    return reason


def self_test():
    assert zlib.crc32(b"123456789") == 0xCBF43926
    assert fmt_float(np.float32(0.1), np.float32) == "0.1"
    assert fmt_float(1e16, np.float64) == "1e+16" and fmt_float(1e-5, np.float64) == "1e-05"
    assert fmt_float(123.0, np.float64) == "123.0" and fmt_float(-0.0, np.float32) == "-0.0"
    assert fmt_float(np.float32(3.4028234663852886e38), np.float32) == "3.4028235e+38"
    assert fmt_decimal(decimal.Decimal("-0.01"), 2) == '"-0.01"'
    assert fmt_decimal(decimal.Decimal("1E-7"), 9) == '"0.000000100"'
    assert fmt_decimal(decimal.Decimal("12345"), 0) == '"12345"'
    assert fmt_timestamp(-1, "ms", False) == "1969-12-31T23:59:59.999"
    assert fmt_timestamp(0, "s", True) == "1970-01-01T00:00:00Z"
    assert fmt_date(-719528) == "0000-01-01"
    d = datetime.date(2024, 2, 29)
    assert fmt_date((d - datetime.date(1970, 1, 1)).days) == "2024-02-29"
    assert json_string('a"\\\n\x01/é') == '"a\\"\\\\\\n\\u0001/é"'


def main():
    self_test()
    os.makedirs(OUT, exist_ok=True)
    names = sorted(f for f in os.listdir(DATA) if f.endswith(".parquet"))
    manifest = [["file", "status", "rows", "columns", "reason"]]
    only = set(sys.argv[1:])
    assert only <= set(names), sorted(only - set(names))
    kept = {}
    if only:  # the committed rows of the other files, as they are
        for line in open(os.path.join(OUT, "MANIFEST.tsv"), encoding="utf-8").read().splitlines()[1:]:
            kept[line.split("\t")[0]] = line.split("\t")
    for name in names:
        manifest.append(one_file(name) if not only or name in only else kept[name])
        print("\t".join(manifest[-1]))
    write_file(os.path.join(OUT, "MANIFEST.tsv"), "".join("\t".join(r) + "\n" for r in manifest))
    count = {k: sum(1 for r in manifest[1:] if r[1] == k) for k in ("read", "nested", "refused")}
    print("%d files: %d read, %d nested, %d refused (pyarrow %s)" % (
        len(names), count["read"], count["nested"], count["refused"], pa.__version__))


if __name__ == "__main__":
    sys.exit(main())
