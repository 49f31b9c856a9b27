"""tests/cli/dataset_cast.py RINGSCAN DIR: a dataset's later files read in the first file's
types without union_by_name, as DuckDB's read_parquet([...]) reads them (issue 23 section 4):
 1. strings under a first file's boolean, integer, decimal, float, date, time or timestamp
    column: parsed as DuckDB's cast from VARCHAR parses them (values equal DuckDB's), a string
    that does not parse refused naming both files and the column as DuckDB refuses it; under a
    filter (evaluated on the parsed values), ORDER BY .. LIMIT and a count;
 2. integers under a first file's FLOAT or DOUBLE (and with union_by_name, DuckDB's type);
 3. strings DuckDB's cast reads otherwise than ringscan read them until h25: more than 38
    significant digits, a number's integer digits past its store, spaces after a hex number,
    [-]inf dates and timestamps (their raw values compared: DuckDB's infinities), a TIME from a
    timestamp's text, a TIME's offset past 15:59:59;
Each case: `ringscan scan DIR --format jsonl --ordered` against DuckDB's rows in file order."""
import datetime as dt
import decimal as D
import glob
import json
import os
import subprocess
import sys

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, epoch, summary  # noqa: E402

R, TOP = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")


def write(name, tables):
    d = os.path.join(TOP, name)
    os.makedirs(d, exist_ok=True)
    for i, t in enumerate(tables):
        pq.write_table(t, os.path.join(d, f"{i + 1}.parquet"), row_group_size=4)
    return d


STAMPS = ("ts_ms", "ts_us", "ts_ns", "ts_utc", "int96")


def duck_sel(kind):
    """DuckDB's select list for k of kind: timestamps as nanoseconds, times and dates as text."""
    if kind in STAMPS:
        return "id, epoch_ns(k) AS k"
    if kind.startswith("time") or kind == "date":
        return "id, k::VARCHAR AS k"
    return "id, k"


def clock(text):
    h, m, rest = text.split(":")
    sec, _, frac = rest.partition(".")
    return ((int(h) * 60 + int(m)) * 60 + int(sec)) * 10**9 + (int(frac.ljust(9, "0")) if frac else 0)


def value(kind, v, ours):
    """v (ringscan's JSON value when ours, else DuckDB's) in one form for comparing."""
    if v is None:
        return None
    if kind in ("float", "double") or isinstance(v, float):
        x = float(v)  # (ringscan: "NaN", "Infinity" as JSON strings; a FLOAT's shortest digits)
        f32 = kind == "float" and (ours or np.isnan(x) or float(np.float32(x)) == x)
        return repr(float(np.float32(x))) if f32 else repr(x)  # (DuckDB: a FLOAT as a double)
    if kind in STAMPS and ours:
        return epoch(v, 9)[0]
    if kind.startswith("time"):
        return clock(v)
    if isinstance(v, D.Decimal) or kind.startswith("dec"):
        return str(D.Decimal(v))
    return v


def run(d, ubn=False, where=None, extra=()):
    args = [R, "scan", d, "--format", "jsonl", "--ordered", *extra] + (["--union-by-name"] if ubn else [])
    if where:
        args += ["--where", where]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()}"
    return [json.loads(ln) for ln in p.stdout.splitlines()], None


def duck(d, sel, ubn=False, where=None, tail=""):
    files = sorted(glob.glob(os.path.join(d, "*.parquet")))
    sql = f"SELECT {sel} FROM read_parquet({files!r}, union_by_name = {ubn})"
    if where:
        sql += f" WHERE {where}"
    try:
        rel = con.execute(sql + tail)
        names = [x[0] for x in rel.description]
        return [dict(zip(names, r)) for r in rel.fetchall()], None
    except duckdb.Error as e:
        return None, str(e)


def same(name, d, kind, ubn=False, where=None, tail="", extra=()):
    want, werr = duck(d, duck_sel(kind), ubn, where, tail)
    got, gerr = run(d, ubn, where, extra)
    what = f"{name} (union_by_name={ubn}{', where ' + where if where else ''}{tail})"
    if werr:
        ok = gerr is not None and gerr.startswith("exit 1:") and all(w in gerr for w in ("'k'", "1.parquet", "2.parquet"))
        check(ok, f"{what}: DuckDB refuses ({werr[:160]}); ringscan: {gerr or got[:4]}")
        return
    want = [(int(r["id"]), value(kind, r["k"], False)) for r in want]
    got = [(r["id"], value(kind, r["k"], True)) for r in got] if got is not None else None
    check(gerr is None and got == want, f"{what}:\n  ringscan {gerr or got[:8]}\n  DuckDB   {want[:8]}")


# 1. strings under a first file's type (without union_by_name DuckDB casts them to it)
T = dt.datetime(2024, 3, 1, 12, 30, 5)
FIRST = {
    "int32": pa.array([7], pa.int32()), "int8": pa.array([7], pa.int8()), "uint8": pa.array([7], pa.uint8()),
    "int64": pa.array([7], pa.int64()), "uint64": pa.array([7], pa.uint64()),
    "dec5": pa.array([D.Decimal("1.25")], pa.decimal128(5, 2)),
    "dec30": pa.array([D.Decimal("1.2500")], pa.decimal128(30, 4)),
    "dec38": pa.array([D.Decimal("1")], pa.decimal128(38, 0)),
    "float": pa.array([1.5], pa.float32()), "double": pa.array([1.5], pa.float64()),
    "bool": pa.array([True]), "date": pa.array([dt.date(2024, 1, 1)], pa.date32()),
    "ts_ms": pa.array([T], pa.timestamp("ms")), "ts_us": pa.array([T], pa.timestamp("us")),
    "ts_ns": pa.array([T], pa.timestamp("ns")), "ts_utc": pa.array([T], pa.timestamp("us", tz="UTC")),
    "int96": pa.array([T], pa.timestamp("ns")),
    "time_ms": pa.array([dt.time(1, 2, 3)], pa.time32("ms")), "time_us": pa.array([dt.time(1, 2, 3)], pa.time64("us")),
    "time_ns": pa.array([dt.time(1, 2, 3)], pa.time64("ns")),
}
INTS = ["12", " 12 ", "+5", "-0", "1.5", "2.5", "-2.5", "1.4999", "1e2", "1.5e1", "0x1A", "0b11", "1_000", "1.",
        ".5", "\t7\n", "1e-1", "00012", None, "-25e-1", "0"]
STAMP = ["2024-03-01 12:30:05", "2024-03-01T12:30:05.123456", "2024-03-01", "2024-03-01 12:30",
         "2024-03-01 12:30:05.1234567", "2024-03-01 12:30:05+02", "2024-03-01 12:30:05+02:30", "2024-03-01 12:30:05Z",
         "2024-03-01 12:30:05 UTC", "2024-03-01 24:00:00", "2024-03-01 1:2:3", " 2024-03-01 12:30:05 ",
         "2024-03-01 12:30:05.", "2024-3-1 12:30:05", "1969-12-31 23:59:59.5", None, "1900-02-28 00:00:00.000001"]
# zone names under a UTC column (DuckDB resolves them with ICU's zones, and so does ds_zone.c):
# a skipped hour (the offset before it), a repeated one (the later instant), both edges, any
# case, past the last transition (north and south), before the first (local mean time), half-
# and quarter-hour offsets, aliases
ZONED = [f"{t} {z}" for t, z in (
    ("2024-03-31 02:30:00", "Europe/Paris"), ("2024-10-27 02:30:00", "Europe/Paris"), ("2024-10-27 01:30:00", "Europe/Paris"),
    ("2024-10-27 03:30:00", "Europe/Paris"), ("2024-03-31 01:59:59", "Europe/Paris"), ("2024-03-31 03:00:00", "Europe/Paris"),
    ("2024-10-27 02:00:00", "Europe/Paris"), ("2024-10-27 03:00:00", "Europe/Paris"), ("2024-03-01 12:00", "europe/PARIS"),
    ("2024-03-01 12:00", "EST"), ("2024-03-01 12:00", "CET"), ("2024-03-01 12:00", "UTC"), ("2024-03-01 12:00", "Etc/GMT+5"),
    ("2060-07-01 12:00", "Europe/Paris"), ("2060-01-01 12:00", "Europe/Paris"), ("2090-03-26 02:30", "Europe/Paris"),
    ("1800-07-01 12:00", "Europe/Paris"), ("2024-03-01 12:00", "US/Pacific"), ("2024-03-01 12:00", "America/Argentina/Buenos_Aires"),
    ("2024-03-01 12:00:00.123456", "Asia/Kolkata"), ("2024-03-01T12:00", "Europe/Paris"), ("2050-10-01 12:00", "Australia/Sydney"),
    ("2050-04-02 02:30", "Australia/Sydney"), ("2050-10-02 02:30", "Australia/Sydney"), ("2050-06-01 12:00", "Australia/Lord_Howe"),
    ("1950-06-01 12:00", "America/New_York"), ("2045-11-05 01:30", "America/New_York"), ("2045-03-12 02:30", "America/New_York"),
    ("1900-01-01 00:00", "Asia/Kolkata"), ("2100-12-31 23:59:59.999999", "Pacific/Auckland"), ("2024-03-01 12:00", "Asia/Kathmandu"),
    ("1969-12-31 23:59:59.5", "Europe/London"), ("2060-06-01 12:00", "America/Santiago"), ("2024-03-01 12:00", "Zulu"))] + [
    "2024-03-01 12:00 Europe/Paris "]
PARSED = {  # strings DuckDB's cast reads (each also checked to be read by DuckDB)
    "int32": INTS + ["-2147483648", "2147483647", "2147483647.4"], "int8": ["127", "-128", "1.4", "-128.4"],
    "uint8": ["255", "-0", "0x0f"], "int64": ["9223372036854775807", "1.5e18", "-9223372036854775808"],
    "uint64": ["18446744073709551615", "0x10", "12"],
    "dec5": ["1.005", "1.004", "-1.005", "1e2", "12", "0.125", " 3 ", "1_0.5", "+.5", "1.2e-1", None, "-999.994"],
    "dec30": ["12345678901234567890.12345", "-0.00005", "1e20", "0.00015"],
    "float": ["1.5", " 1.5 ", "+1.5", "inf", "-Infinity", "nan", "1e40", "0.1", "1_000.5", ".5", "5.", "1e-50", None],
    "double": ["1.5", "inf", "NaN", "1e400", "1e-400", "1_000.5", "-0.0", "123456789.123456789", "4.9e-324", "1e999",
               "0.12345678901234567890123456789012345678901234567", "-.5e-3", "1E+2"],
    "bool": ["true", "TRUE", "t", "f", "false", "1", "0", "yes", "no", "y", "n", "N", None],
    "date": ["2024-03-01", "2024-3-1", "2024/03/01", "2024 03 01", " 2024-03-01 ", "epoch", "2024-03-01 12:00:00",
             "2024-03-01T00:00:00", "24-03-01", "0001-01-01", None],
    "ts_us": STAMP, "ts_ns": STAMP + ["2024-03-01 12:30:05.123456789", "2024-03-01 12:30:05.1234567891",
                                      "1969-12-31 23:59:59.999999999"],
    "ts_ms": ["2024-03-01 12:30:05.123", "2024-03-01", "1969-12-31 23:59:59.999", "2024-03-01 12:30:05+02"],
    "ts_utc": ["2024-03-01 12:30:05", "2024-03-01 12:30:05+02", "2024-03-01 12:30:05-01:30", "2024-03-01 12:30:05Z",
               "2024-03-01 12:30:05.1234567+05:45", None] + ZONED,
    "int96": ["2024-03-01 12:30:05.123456789", "1969-12-31 23:59:59.9999999", "2024-03-01"],
    "time_ms": ["12:30:05", "12:30", "1:2:3", "24:00:00", " 12:30:05 ", "12:30:05+02", "12:30:05.5", "00:00:00.001"],
    "time_us": ["12:30:05.1234567", "23:59:59.999999", "1:02", None],
    "time_ns": ["12:30:05.123456789", "12:30:05.1234567891", "0:0:1"],
}
LONG = "0" * 45  # (past 38 significant digits)
PARSED_H25 = {  # strings DuckDB's cast reads that ringscan refused or read otherwise until h25
    "int32": [f"1.{LONG}1", f"2.5{LONG}1", f"0.{LONG}9", f"-1.4999{LONG}", f"1.2345678901234567890123456789012345678901e2",
              f"{LONG}12", " 0x1A", "\t0x1A", "0x1_A", "0xa_1", "0b1_1"],
    "int64": [f"9223372036854775807.4{LONG}", f"-9223372036854775808.{LONG}"],
    "dec5": [f"1.{LONG}1", f"1.005{LONG}1", f"-0.{LONG}12", "1.2345678901234567890123456789012345678901e2", f"{LONG}1.5",
             f"999.994{LONG}9"],
    "dec30": [f"12345678901234567890.123456789012345678901234{LONG}"],
    "dec38": ["12345678901234567890123456789012345678.4", "-99999999999999999999999999999999999999.4999", f"7.5{LONG}"],
    "time_us": ["2024-03-01 12:30:05", "2024-03-01", "2024-03-01T24:00:00", "1969-12-31 23:59:59.5", "epoch",
                "2024-03-01 12:30:05 Europe/Paris", "2024-03-01 (BC) 12:00", "24-3-1 1:2", "2024-03-01 12:30:05+99",
                "12:30:05+1530", "12:30:05 +02:30:30", "12:30:05Z", "12:30:05 Z ", "12:30:05+15:59:59", "12:30:05-00:99",
                "12:30:05.5+0530", None],
    "time_ns": ["2024-03-01 12:30:05.123456789", "2024/03/01 00:00:01.000000001"],
    "time_ms": ["2024-03-01 12:30:05.5", "2024-03-01"],
}
REFUSED_H25 = {  # strings DuckDB refuses that ringscan read until h25
    "int32": ["0x1A ", " 0x1A ", "0b11 ", "0x1A\t", "100000000000000000000e-15", f"1{LONG}e-40", "0x_1", "0x1_"],
    "dec5": ["01107e-1", "1000e-1", "-56497.e-3"],
    "dec38": ["123456789012345678901234567890123456789e-1"],
    "time_us": ["12:30:05+16", "12:30:05-16", "12:30:05+15:60", "12:30:05+15:59:60", "12:30+02", "12:30Z", "12:30:05+5",
                "12:30:05+155959", "12:30:05+02:30Z", "infinity", "12:30:05 UTC", "2024-03-01 12:30:05 (BC)", "12:30:05z"],
    "date": ["inf ", "+inf", "infx"],
    "ts_us": ["inf ", "- inf"],
}
REFUSED = {  # strings DuckDB refuses (so does ringscan, naming both files and the column)
    "int32": ["x", "2147483648", "", "1__0", "_1", "-0x10", "1e", " - 5", "12abc"], "int8": ["128"], "uint8": ["-1", "256", "-0.4", "-0 "],
    "int64": ["9223372036854775808"], "dec5": ["999.995", "1000", "x"], "float": ["0x10", "1,5", "", ".", "1e", "e5", "1.5e+"],
    "double": ["abc", "1.5x", "  "], "bool": [" true ", "on", "2", ""], "date": ["2024.03.01", "20240301", "2024-02-30", "2024-03", "2024-03-01x"],
    "ts_us": ["2024-03-01 12:30:60", "x"], "time_us": ["25:00:00", "x"],
    "ts_utc": ["2024-03-01 12:00 Foo/Bar", "2024-03-01 12:00  Europe/Paris", "2024-03-01 12:00 posix/Europe/Paris",
               "2024-03-01 12:00 Europe/Paris/x", "2024-03-01 12:00 zone.tab"],
}


def first_table(kind):
    return pa.table({"id": pa.array([0], pa.int64()), "k": FIRST[kind]})


def strings_table(strs, base=100):
    return pa.table({"id": pa.array(range(base, base + len(strs)), pa.int64()), "k": pa.array(strs, pa.string())})


def write_pair(name, kind, strs):
    d = os.path.join(TOP, name)
    os.makedirs(d, exist_ok=True)
    pq.write_table(first_table(kind), os.path.join(d, "1.parquet"), use_deprecated_int96_timestamps=kind == "int96")
    pq.write_table(strings_table(strs), os.path.join(d, "2.parquet"), row_group_size=4)
    return d


for tag, parsed in (("", PARSED), ("h25_", PARSED_H25)):
    for kind, strs in parsed.items():
        d = write_pair(f"parse_{tag}{kind}", kind, strs)
        _, werr = duck(d, "k")
        check(werr is None, f"{kind}: DuckDB reads every string ({werr})")
        same(f"strings under {kind}", d, kind)
for tag, refused in (("", REFUSED), ("h25_", REFUSED_H25)):
    for kind, strs in refused.items():
        for i, one in enumerate(strs):
            same(f"string {one!r} under {kind}", write_pair(f"refuse_{tag}{kind}_{i}", kind, [one]), kind)


def civil_days(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date of any year (astronomical)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def raw(text, exp):
    """A date (exp None: its days) or timestamp ringscan prints as a count of 10^-exp seconds."""
    if text is None:
        return None
    date, _, clock_text = text.rstrip("Z").partition("T")
    y, m, d = (int(v) for v in date.lstrip("-").split("-"))
    days = civil_days(-y if date.startswith("-") else y, m, d)
    if exp is None:
        return days
    hms, _, frac = clock_text.partition(".")
    h, mi, sec = (int(v) for v in hms.split(":"))
    return (((days * 24 + h) * 60 + mi) * 60 + sec) * 10**exp + (int(frac.ljust(exp, "0")) if frac else 0)


# [-]inf / [-]infinity dates and timestamps: DuckDB's infinities (a DATE's 2^31 - 1 days, a
# TIMESTAMP's 2^63 - 1 units), which ringscan writes in the column's unit
INF = ["inf", "-inf", "Infinity", "-INF", " inf", "infinity ", " -infinity ", None]
for kind, exp in (("date", None), ("ts_us", 6), ("ts_ns", 9), ("ts_ms", 3), ("ts_utc", 6), ("int96", 9)):
    d = write_pair(f"inf_{kind}", kind, INF)
    files = sorted(glob.glob(os.path.join(d, "*.parquet")))
    t = con.sql(f"SELECT id, k FROM read_parquet({files!r}) WHERE id >= 100").to_arrow_table()
    want = list(zip(t["id"].to_pylist(), t["k"].cast(pa.int32() if exp is None else pa.int64()).to_pylist()))
    got, gerr = run(d)
    got = [(r["id"], raw(r["k"], exp)) for r in got if r["id"] >= 100] if got is not None else None
    check(gerr is None and got == want, f"infinities under {kind}:\n  ringscan {gerr or got}\n  DuckDB   {want}")
# DuckDB reads a millisecond column as TIMESTAMP / TIME (microseconds): a string finer than the
# column's unit is refused, naming it (a value DuckDB reads)
for kind, one in (("ts_ms", "2024-03-01 12:30:05.1234"), ("time_ms", "12:30:05.0005")):
    got, gerr = run(write_pair(f"finer_{kind}", kind, [one]))
    check(gerr is not None and all(w in gerr for w in (one, "'k'", "1.parquet", "2.parquet")), f"{kind} {one}: {gerr or got}")

# zone names resolved by ICU (ds_zone.c), one string per file against DuckDB's answer or
# refusal: unknown names, a trailing component, names differing only in case (a list match,
# an alias, ICU's short IDs such as PST, custom GMT offsets, "Etc/Unknown" only as spelled),
# dates past the last transition, and a skipped and a repeated wall time in two zones that
# shift at midnight (America/Santiago) and by half an hour (Australia/Lord_Howe)
ONE_ZONE = [f"{t} {z}" for t, z in (
    ("2024-03-01 12:00", "Europe/Pariss"), ("2024-03-01 12:00", "Europe/Paris/"), ("2024-03-01 12:00", "America/New_York/x"),
    ("2024-07-01 12:00", "asia/CALCUTTA"), ("2024-07-01 12:00", "AMERICA/ARGENTINA/buenos_aires"), ("2024-07-01 12:00", "PST"),
    ("2024-07-01 12:00", "pst"), ("2024-07-01 12:00", "Etc/Unknown"), ("2024-07-01 12:00", "ETC/UNKNOWN"),
    ("2024-07-01 12:00", "GMT+5"), ("2024-07-01 12:00", "gmt+05:30"), ("2024-07-01 12:00", "GMT+24"),
    ("2200-07-01 12:00", "Europe/Paris"), ("2200-03-30 02:30", "Europe/Paris"), ("2250-07-01 12:00", "America/New_York"),
    ("2024-04-06 23:30", "America/Santiago"), ("2024-09-08 00:30", "America/Santiago"),
    ("2024-04-07 01:45", "Australia/Lord_Howe"), ("2024-10-06 02:15", "Australia/Lord_Howe"))]
for i, one in enumerate(ONE_ZONE):
    same(f"zoned string {one!r}", write_pair(f"zone_one_{i}", "ts_utc", [one]), "ts_utc")

# filters, ORDER BY .. LIMIT and counts on parsed values (numeric order, not the strings')
d = write("parse_filter", [pa.table({"id": pa.array(range(10), pa.int64()), "k": pa.array(range(10), pa.int32())}),
                           strings_table(["10", "9", " 100", "-3", None, "2.5", "1e1", "0x0F"] * 3)])
for where in ["k > 5", "k = 10", "k < 0 OR k IS NULL", "k BETWEEN 3 AND 9", "id > 110 AND k >= 10"]:
    same(f"filter on parsed integers", d, "int32", where=where)
    want, _ = duck(d, "count(*) AS n", where=where)
    p = subprocess.run([R, "scan", d, "--format", "count", "--where", where], capture_output=True, text=True, timeout=60)
    check(want and p.stdout.strip() == f"rows {want[0]['n']}", f"count where {where}: {p.stdout}{p.stderr} vs {want}")
want, _ = duck(d, "id, k", tail=" ORDER BY k DESC NULLS LAST, id LIMIT 4")
got, gerr = run(d, extra=("--order-by", "k DESC NULLS LAST, id", "--limit", "4"))
check(gerr is None and [(r["id"], r["k"]) for r in got] == [(w["id"], w["k"]) for w in want], f"order by parsed: {gerr or got} vs {want}")
d = write_pair("parse_filter_ts", "ts_us", STAMP)
for where in ["k > '2024-03-01 12:00:00'", "k < '2000-01-01' OR k IS NULL"]:
    same("filter on parsed timestamps", d, "ts_us", where=where)
d = write_pair("parse_filter_bad", "int32", ["1", "x"])
same("filter on a string that does not parse", d, "int32", where="k > 100")

# 2. integers, decimals and UINT64 under a first file's FLOAT (DuckDB: FLOAT, with and without
#    union_by_name) and beside a DOUBLE
rnd = __import__("random").Random(23)
decs = [D.Decimal(rnd.randint(-10**9, 10**9)) / 1000 for _ in range(500)] + [None]
LATER = {"int32": pa.array([16777217, 3, -7, None, 2**31 - 1], pa.int32()),
         "int64": pa.array([2**62 + 1, 16777219, -(2**63), None], pa.int64()),
         "uint64": pa.array([2**64 - 1, 5, None], pa.uint64()), "uint32": pa.array([2**32 - 1, 1], pa.uint32()),
         "dec": pa.array(decs, pa.decimal128(10, 3)), "int8": pa.array([-128, 5], pa.int8())}
for first in ("float", "double"):
    for name, arr in LATER.items():
        for order in ("first", "later"):
            a = pa.table({"id": pa.array([0, 1], pa.int64()), "k": pa.array([1.5, None], pa.float32() if first == "float" else pa.float64())})
            b = pa.table({"id": pa.array(range(100, 100 + len(arr)), pa.int64()), "k": arr})
            d = write(f"num_{first}_{name}_{order}", [a, b] if order == "first" else [b, a])
            typed = first if order == "first" else "num"  # (without union_by_name: the first file's)
            same(f"{name} beside a {first} ({first} {order})", d, typed)
            same(f"{name} beside a {first} ({first} {order})", d, first, ubn=True)
            same(f"{name} beside a {first} ({first} {order}), filtered", d, typed, where="k > 3")

sys.exit(0 if summary("dataset_cast") else 1)
