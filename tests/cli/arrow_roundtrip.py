"""tests/cli/arrow_roundtrip.py LIB DIR: cases of tests/cli/arrow_roundtrip.sh. For each Arrow
type pyarrow 26 can store in Parquet, pyarrow writes a file of an "id" column and the type's
column "v" (nulls included); ringscan's Arrow export of it must equal pyarrow.parquet's
read_table: the schema (types, nullability, field and schema metadata) and the values.
Prints "ok NAME", "FAIL: NAME: why" or "skip NAME: why" per case; then projections by path
("proj NAME"), compared with pyarrow's reading of the same columns."""
import datetime as dt, decimal, os, random, sys
import pyarrow as pa, pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rs_ctypes

lib = rs_ctypes.load(sys.argv[1])
d = sys.argv[2]
failures = 0
D = decimal.Decimal
T = dt.datetime(2024, 2, 29, 13, 14, 15, 123456)
TIMES = [T, None, dt.datetime(1969, 12, 31, 23, 59, 59), dt.datetime(2262, 1, 1)]


def rows(vals):
    """The values of a case: as given (4 rows, at least one null)."""
    assert len(vals) == 4
    return vals


def no_us(v):
    return [t and t.replace(microsecond=t.microsecond // 1000 * 1000) for t in v]


def whole_s(v):
    return [t and t.replace(microsecond=0) for t in v]


ints = rows([1, None, -1, 0])
CASES = [
    ("bool", pa.bool_(), rows([True, None, False, True])),
    ("int8", pa.int8(), rows([-128, None, 127, 0])),
    ("int16", pa.int16(), rows([-32768, None, 32767, 0])),
    ("int32", pa.int32(), rows([-2**31, None, 2**31 - 1, 0])),
    ("int64", pa.int64(), rows([-2**63, None, 2**63 - 1, 0])),
    ("uint8", pa.uint8(), rows([0, None, 255, 1])),
    ("uint16", pa.uint16(), rows([0, None, 65535, 1])),
    ("uint32", pa.uint32(), rows([0, None, 2**32 - 1, 1])),
    ("uint64", pa.uint64(), rows([0, None, 2**64 - 1, 1])),
    ("float16", pa.float16(), rows([1.5, None, -0.0, 65504.0])),
    ("float32", pa.float32(), rows([1.5, None, float("inf"), -2.25])),
    ("float64", pa.float64(), rows([1.5, None, float("-inf"), 1e300])),
    ("decimal32", pa.decimal32(7, 2), rows([D("12345.67"), None, D("-0.01"), D("0")])),
    ("decimal64", pa.decimal64(15, 3), rows([D("123456789012.345"), None, D("-1.000"), D("0")])),
    ("decimal128", pa.decimal128(30, 4), rows([D("12345678901234567890123456.7890"), None, D("-1"), D("0")])),
    ("decimal128_small", pa.decimal128(5, 1), rows([D("1234.5"), None, D("-1.0"), D("0")])),
    ("decimal256", pa.decimal256(50, 5), rows([D("1" * 45 + ".12345"), None, D("-1"), D("0")])),
    ("date32", pa.date32(), rows([dt.date(2024, 2, 29), None, dt.date(1900, 1, 1), dt.date(1970, 1, 1)])),
    ("date64", pa.date64(), rows([dt.date(2024, 2, 29), None, dt.date(1900, 1, 1), dt.date(1970, 1, 1)])),
    ("time32_s", pa.time32("s"), rows([dt.time(13, 14, 15), None, dt.time(0), dt.time(23, 59, 59)])),
    ("time32_ms", pa.time32("ms"), rows([dt.time(13, 14, 15, 123000), None, dt.time(0), dt.time(23, 59, 59)])),
    ("time64_us", pa.time64("us"), rows([dt.time(13, 14, 15, 123456), None, dt.time(0), dt.time(23, 59, 59)])),
    ("time64_ns", pa.time64("ns"), rows([dt.time(13, 14, 15, 123456), None, dt.time(0), dt.time(23, 59, 59)])),
    ("string", pa.string(), rows(["a", None, "", "ü" * 20])),
    ("large_string", pa.large_string(), rows(["a", None, "", "ü" * 20])),
    ("string_view", pa.string_view(), rows(["a", None, "", "a longer string than twelve bytes"])),
    ("binary", pa.binary(), rows([b"\x00", None, b"", b"\xff" * 30])),
    ("large_binary", pa.large_binary(), rows([b"\x00", None, b"", b"\xff" * 30])),
    ("binary_view", pa.binary_view(), rows([b"\x00", None, b"", b"\xff" * 30])),
    ("fixed_size_binary", pa.binary(3), rows([b"abc", None, b"\x00\x00\x00", b"xyz"])),
    ("null", pa.null(), rows([None, None, None, None])),
    ("list", pa.list_(pa.int32()), rows([[1, None], None, [], [3]])),
    ("large_list", pa.large_list(pa.int32()), rows([[1, None], None, [], [3]])),
    ("large_list_string", pa.large_list(pa.string()), rows([["a", None], None, [], ["b"]])),
    ("fixed_size_list", pa.list_(pa.int32(), 2), rows([[1, None], None, [3, 4], [5, 6]])),
    ("list_view", pa.list_view(pa.int32()), rows([[1, None], None, [], [3]])),
    ("large_list_view", pa.large_list_view(pa.int32()), rows([[1, None], None, [], [3]])),
    ("list_null", pa.list_(pa.null()), rows([[None, None], None, [], [None]])),
    ("large_list_date64", pa.large_list(pa.date64()), rows([[dt.date(2024, 1, 1), None], None, [], [dt.date(1970, 1, 2)]])),
    ("struct", pa.struct([("a", pa.int32()), ("b", pa.string())]), rows([{"a": 1, "b": "x"}, None, {"a": None, "b": None}, {"a": 2, "b": ""}])),
    ("struct_null_child", pa.struct([("a", pa.int32()), ("n", pa.null())]), rows([{"a": 1, "n": None}, None, {"a": None, "n": None}, {"a": 2, "n": None}])),
    ("struct_large_list_date64", pa.struct([("l", pa.large_list(pa.date64())), ("ls", pa.large_string())]),
     rows([{"l": [dt.date(2024, 1, 1), None], "ls": "x"}, None, {"l": None, "ls": None}, {"l": [], "ls": ""}])),
    ("struct_types", pa.struct([("t", pa.timestamp("ms", tz="Asia/Tokyo")), ("du", pa.duration("us")), ("u8", pa.uint8()),
                                ("lb", pa.large_binary()), ("t32", pa.time32("s"))]),
     rows([{"t": T, "du": 5, "u8": 7, "lb": b"q", "t32": dt.time(1, 2, 3)}, None, {"t": None, "du": None, "u8": None, "lb": None, "t32": None},
           {"t": T, "du": -1, "u8": 255, "lb": b"", "t32": dt.time(0)}])),
    ("map", pa.map_(pa.string(), pa.int32()), rows([[("a", 1), ("b", None)], None, [], [("c", 3)]])),
    ("map_large", pa.map_(pa.large_string(), pa.large_list(pa.int64())), rows([[("a", [1]), ("b", None)], None, [], [("c", [])]])),
    ("map_types", pa.map_(pa.int8(), pa.timestamp("us", tz="Europe/Paris")), rows([[(1, T), (2, None)], None, [], [(3, T)]])),
    ("list_struct", pa.list_(pa.struct([("a", pa.int16()), ("d", pa.date64())])), rows([[{"a": 1, "d": dt.date(2024, 1, 1)}, None], None, [], [{"a": None, "d": None}]])),
    ("large_list_large_list", pa.large_list(pa.large_list(pa.int8())), rows([[[1], None, []], None, [], [[2, 3]]])),
    ("list_of_durations", pa.list_(pa.duration("ns")), rows([[1, None], None, [], [-5]])),
    ("dictionary_string", pa.dictionary(pa.int32(), pa.string()), rows(["a", None, "b", "a"])),
    ("dictionary_int8_index", pa.dictionary(pa.int8(), pa.string()), rows(["a", None, "b", "a"])),
    ("dictionary_int", pa.dictionary(pa.int32(), pa.int64()), rows([5, None, 6, 5])),
    ("dictionary_large_string", pa.dictionary(pa.int32(), pa.large_string()), rows(["a", None, "b", "a"])),
    ("list_dictionary", pa.list_(pa.dictionary(pa.int32(), pa.string())), rows([["a", None], None, [], ["b"]])),
    # lists of leaves (format/nest_list.c) under every stored type the export gives them
    ("list_string", pa.list_(pa.string()), rows([["a", None, ""], None, [], ["bc"]])),
    ("list_bool", pa.list_(pa.bool_()), rows([[True, None, False], None, [], [False]])),
    ("list_string_view", pa.list_(pa.string_view()), rows([["a", None], None, [], ["a longer string than twelve bytes"]])),
    ("large_list_view_string", pa.large_list_view(pa.large_string()), rows([["a", None], None, [], ["b"]])),
    ("fixed_size_list_string", pa.list_(pa.string(), 2), rows([["a", None], None, ["b", ""], ["c", "d"]])),
    ("fixed_size_list_bool", pa.list_(pa.bool_(), 2), rows([[True, None], None, [False, True], [None, None]])),
    ("map_string_view", pa.map_(pa.string_view(), pa.large_string()), rows([[("a", "x"), ("b", None)], None, [], [("c", "")]])),
    ("list_struct_string", pa.list_(pa.struct([("s", pa.string()), ("b", pa.bool_())])),
     rows([[{"s": "x", "b": True}, None, {"s": None, "b": None}], None, [], [{"s": "", "b": False}]])),
    # leaves whose every value is empty or null, so they hold no bytes (their data pointer may
    # be NULL: the fast shapes once offset it, a UBSan trap in ReleaseSafe)
    ("struct_empty_strings", pa.struct([("a", pa.string()), ("b", pa.string())]),
     rows([None, {"a": "", "b": None}, {"a": "", "b": ""}, None])),
    ("list_empty_strings", pa.list_(pa.string()), rows([[""], None, [], ["", None]])),
    ("map_empty_keys", pa.map_(pa.string(), pa.string()), rows([[("", "")], None, [], [("", None)]])),
    ("list_all_empty", pa.list_(pa.int64()), rows([[], None, [], []])),
]
for unit in ["s", "ms", "us", "ns"]:
    vals = whole_s(TIMES) if unit == "s" else no_us(TIMES) if unit == "ms" else TIMES
    for tz in [None, "UTC", "America/New_York", "+05:30"]:
        CASES.append((f"timestamp_{unit}_{tz or 'naive'}".replace("/", "_").replace("+", "p").replace(":", ""),
                      pa.timestamp(unit, tz=tz), vals))
    CASES.append((f"duration_{unit}", pa.duration(unit), ints))

UNWRITABLE = [  # pyarrow cannot store these in Parquet: each must still be refused by its writer
    ("month_day_nano_interval", pa.month_day_nano_interval(), [None]),
    ("dense_union", pa.dense_union([pa.field("a", pa.int32())]), [None]),
    ("sparse_union", pa.sparse_union([pa.field("a", pa.int32())]), [None]),
]


def read(path, columns=None):
    """ringscan's table of path: (table, None) or (None, why), an import pyarrow refuses too."""
    try:
        return rs_ctypes.read_table(lib, path, columns=columns)
    except pa.ArrowException as e:
        return None, f"pyarrow refuses the export: {e}"


def through_c(table):
    """table as pyarrow's own Arrow C stream export and import give it back: the C data
    interface names a map's entries "entries" (pyarrow 26's importer), so pyarrow's read of a
    map column ('v' entries) is compared in that form."""
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    return pa.RecordBatchReader._import_from_c_capsule(reader.__arrow_c_stream__()).read_all()


def in_id_order(t):
    """t's batches (each a run of rows: a split's) put in the order of their first id, then
    t sorted by id. Sorting a table whose batches came in another order unifies a dictionary
    column's per-batch dictionaries in that order, and Table.equals compares dictionaries:
    big_struct_dictionary failed 1 run in 4 under load with equal values (its first batch
    not row group 0's)."""
    bs = sorted((b for b in t.to_batches() if b.num_rows), key=lambda b: b.column("id")[0].as_py())
    return pa.Table.from_batches(bs, schema=t.schema).sort_by("id")


def compare(name, got, err, want):
    """Prints and counts the verdict of one comparison."""
    global failures
    why = None
    if err:
        why = f"ringscan: {err}"
    elif not got.schema.equals(want.schema, check_metadata=True):
        why = f"schema\n  ringscan: {got.schema}\n  pyarrow:  {want.schema}".replace("\n-- ", " -- ")
    else:
        try:  # every buffer checked: offsets, views, child lengths
            got.validate(full=True)
        except pa.ArrowException as e:
            why = f"ringscan's arrays are not valid: {e}"
    if not why and got.num_rows > 4:  # several row groups: batches come as splits finish
        got, want = in_id_order(got), want.sort_by("id")
    if not why and not got.equals(want):
        why = f"values\n  ringscan: {got.to_pylist()[:6]}\n  pyarrow:  {want.to_pylist()[:6]}"
    if why:
        print(f"FAIL: {name}: {why}")
        failures += 1
    else:
        print(f"ok {name}")


def run(name, typ, vals, **write):
    path = os.path.join(d, name + ".parquet")
    arr = vals if isinstance(vals, pa.Array) else pa.array(vals, typ)
    table = pa.table({"id": pa.array(range(len(vals)), pa.int32()), "v": arr})
    pq.write_table(table, path, **write)
    want = through_c(pq.read_table(path))
    compare(name, *read(path), want)
    return path


for name, typ, vals in CASES:
    run(name, typ, vals)
for name, typ, vals in [c for c in CASES if c[0] in ("date64", "large_list", "null", "list_null", "uint32",
                                                     "time32_s", "timestamp_s_America_New_York", "string_view")]:
    run(name + "_no_stored_schema", typ, vals, store_schema=False)
for name, typ, vals in UNWRITABLE:
    try:
        pq.write_table(pa.table({"v": pa.array(vals, typ)}), os.path.join(d, name + ".parquet"))
        print(f"FAIL: {name}: pyarrow wrote it: add it to CASES")
        failures += 1
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError) as e:
        print(f"skip {name}: pyarrow cannot store it in Parquet ({str(e)[:80]})")

# many rows over several row groups and pages: lists of every length, nulls at each level
rng = random.Random(23)
N = 6000


def maybe(v, p=0.1):
    return None if rng.random() < p else v


big_lists = [maybe([maybe(rng.randrange(-99, 99)) for _ in range(rng.randrange(0, 7))]) for _ in range(N)]
run("big_large_list", pa.large_list(pa.int16()), big_lists, row_group_size=1500, data_page_size=2000)
run("big_list_view", pa.list_view(pa.int64()), big_lists, row_group_size=1500, data_page_size=2000)
pairs = [maybe([maybe(rng.randrange(-99, 99)), maybe(rng.randrange(-99, 99))]) for _ in range(N)]
run("big_fixed_size_list", pa.list_(pa.int32(), 2), pairs, row_group_size=1500, data_page_size=2000)
words = [maybe("w%d" % rng.randrange(50)) for _ in range(N)]
tags = [maybe([maybe("t%d" % rng.randrange(300)) for _ in range(rng.randrange(0, 6))]) for _ in range(N)]
run("big_list_string", pa.list_(pa.string()), tags, row_group_size=1500, data_page_size=2000)
run("big_list_view_string", pa.list_view(pa.string()), tags, row_group_size=1500, data_page_size=2000)
run("big_map_string_int", pa.map_(pa.string(), pa.int64()),
    [maybe([("k%d" % j, maybe(rng.randrange(-99, 99))) for j in range(rng.randrange(4))]) for _ in range(N)],
    row_group_size=1500, data_page_size=2000)
run("big_struct_dictionary", pa.struct([("d", pa.dictionary(pa.int16(), pa.string())), ("n", pa.null()),
                                        ("ll", pa.large_list(pa.large_string()))]),
    [maybe({"d": w, "n": None, "ll": maybe([w, None])}) for w in words], row_group_size=1500)
run("big_map_large", pa.map_(pa.string(), pa.large_list(pa.decimal64(12, 2))),
    [maybe([("k%d" % j, maybe([D(rng.randrange(-10**6, 10**6)) / 100])) for j in range(rng.randrange(3))]) for _ in range(N)],
    row_group_size=1500)


def project(name, path, columns, pick):
    """ringscan's projection `columns` of the file `name` against pyarrow's read of the whole
    file, `pick` choosing the expected column from it (named columns[0])."""
    whole = through_c(pq.read_table(os.path.join(d, name + ".parquet")))
    want = pa.table({"id": whole.column("id"), columns[0]: pick(whole)})
    compare(f"project {name} {columns[0]}", *read(os.path.join(d, name + ".parquet"), ["id"] + columns), want)


import pyarrow.compute as pc  # noqa: E402
project("struct_large_list_date64", None, ["v.l"], lambda t: pc.struct_field(t.column("v"), "l"))
project("struct_types", None, ["v.t"], lambda t: pc.struct_field(t.column("v"), "t"))
project("big_struct_dictionary", None, ["v.d"], lambda t: pc.struct_field(t.column("v"), "d"))

# projection by path through lists and maps (the Parquet column path): a list of what the
# path reaches in each element, structs on the way left out (DuckDB's [x.a for x in lst],
# map_keys(m)), values from pyarrow's reading of the whole file
def each(v, f):
    return None if v is None else [f(x) for x in v]


def get(x, k):
    return None if x is None else x[k]


def el(t, nullable=True):
    return pa.list_(pa.field("element", t, nullable=nullable))


ab = pa.struct([("a", pa.int32()), ("b", pa.string())])
paths = pa.table({
    "id": pa.array(range(N), pa.int32()),
    "lst": pa.array([maybe([maybe({"a": maybe(rng.randrange(9)), "b": maybe("x%d" % j)}) for j in range(rng.randrange(4))])
                     for _ in range(N)], pa.list_(ab)),
    "m": pa.array([maybe([("k%d" % j, maybe({"a": maybe(j), "b": maybe("v")})) for j in range(rng.randrange(3))])
                   for _ in range(N)], pa.map_(pa.string(), ab)),
    "s": pa.array([maybe({"a": maybe(1), "l": maybe([maybe(rng.randrange(9)) for _ in range(rng.randrange(3))])})
                   for _ in range(N)], pa.struct([("a", pa.int32()), ("l", pa.list_(pa.int64()))])),
    "ll": pa.array([maybe([maybe([maybe(rng.randrange(9)) for _ in range(rng.randrange(3))]) for _ in range(rng.randrange(3))])
                    for _ in range(N)], pa.list_(pa.list_(pa.int16()))),
    "lsl": pa.array([maybe([maybe({"x": maybe([maybe({"y": maybe(rng.randrange(9))}) for _ in range(rng.randrange(3))])})
                            for _ in range(rng.randrange(3))]) for _ in range(N)],
                    pa.list_(pa.struct([("x", pa.list_(pa.struct([("y", pa.int8())])))]))),
})
ppath = os.path.join(d, "paths.parquet")
pq.write_table(paths, ppath, row_group_size=1100, data_page_size=3000)
prow = pq.read_table(ppath).to_pylist()
PATHS = [
    ("lst.list.element.a", el(pa.int32()), lambda r: each(r["lst"], lambda x: get(x, "a"))),
    ("lst.list.element.b", el(pa.string()), lambda r: each(r["lst"], lambda x: get(x, "b"))),
    ("lst.list.element", el(ab), lambda r: r["lst"]),
    ("lst.list", el(ab), lambda r: r["lst"]),
    ("m.key_value.key", el(pa.string(), False), lambda r: each(r["m"], lambda kv: kv[0])),
    ("m.key_value.value", el(ab), lambda r: each(r["m"], lambda kv: kv[1])),
    ("m.key_value.value.a", el(pa.int32()), lambda r: each(r["m"], lambda kv: get(kv[1], "a"))),
    ("m.key_value", el(pa.struct([pa.field("key", pa.string(), False), ("value", ab)]), False),
     lambda r: each(r["m"], lambda kv: {"key": kv[0], "value": kv[1]})),
    ("s.l.list.element", el(pa.int64()), lambda r: get(r["s"], "l")),
    ("ll.list.element.list.element", el(el(pa.int16())), lambda r: r["ll"]),
    ("ll.list.element", el(el(pa.int16())), lambda r: r["ll"]),
    ("lsl.list.element.x.list.element.y", el(el(pa.int8())),
     lambda r: each(r["lsl"], lambda x: each(get(x, "x"), lambda z: get(z, "y")))),
    ("lsl.list.element.x", el(el(pa.struct([("y", pa.int8())]))), lambda r: each(r["lsl"], lambda x: get(x, "x"))),
]
# a path through lists keeps the stored types: each list passed its own (large_list), the
# field reached its own (zone, large_string, dictionary, duration)
tz_us = pa.timestamp("us", tz="Asia/Tokyo")
xs = pa.struct([pa.field("t", tz_us, metadata={"k": "v"}), ("ls", pa.large_string()),
                ("d", pa.dictionary(pa.int8(), pa.string()))])
typed = pa.table({
    "id": pa.array(range(N), pa.int32()),
    "x": pa.array([maybe([maybe({"t": maybe(T), "ls": maybe("s%d" % j), "d": maybe("d%d" % (j % 3))}) for j in range(rng.randrange(3))])
                   for _ in range(N)], pa.large_list(xs)),
    "mm": pa.array([maybe([("k%d" % j, maybe([maybe(j), None])) for j in range(rng.randrange(3))]) for _ in range(N)],
                   pa.map_(pa.string(), pa.large_list(pa.duration("ms")))),
})
tpath = os.path.join(d, "typed_paths.parquet")
pq.write_table(typed, tpath, row_group_size=2500)
trow = pq.read_table(tpath).to_pylist()


def lel(t, nullable=True):
    return pa.large_list(pa.field("element", t, nullable=nullable))


TYPED = [
    ("x.list.element.t", lel(tz_us), lambda r: each(r["x"], lambda x: get(x, "t"))),
    ("x.list.element.ls", lel(pa.large_string()), lambda r: each(r["x"], lambda x: get(x, "ls"))),
    ("x.list.element.d", lel(pa.dictionary(pa.int8(), pa.string())), lambda r: each(r["x"], lambda x: get(x, "d"))),
    ("mm.key_value.value", el(lel(pa.duration("ms"))), lambda r: each(r["mm"], lambda kv: kv[1])),
    ("mm.key_value.value.list.element", el(lel(pa.duration("ms"))), lambda r: each(r["mm"], lambda kv: kv[1])),
]
for col, typ, f, fpath, frows in [(c, t, f, ppath, prow) for c, t, f in PATHS] + [(c, t, f, tpath, trow) for c, t, f in TYPED]:
    name = f"path {col}"
    got, err = read(fpath, ["id", col])
    why = err
    if not why and (got.schema.names != ["id", col] or not got.schema.field(col).type.equals(typ)):
        why = f"schema {got.schema.field(col) if col in got.schema.names else got.schema.names}, want {typ}"
    if not why:
        got = got.sort_by("id")
        want = [f(r) for r in frows]
        if got.column(col).to_pylist() != want:
            bad_at = next(i for i, (g, w) in enumerate(zip(got.column(col).to_pylist(), want)) if g != w)
            why = f"row {bad_at}: ringscan {got.column(col)[bad_at]}, pyarrow {want[bad_at]}"
    print(f"FAIL: {name}: {why}" if why else f"ok {name}")
    failures += bool(why)
# two nodes that start at one leaf: both read (as DuckDB reads `lst, [e.a FOR e IN lst]`),
# each as pyarrow reads it
got, err = read(ppath, ["id", "lst", "lst.list.element.a"])
got = got.sort_by("id") if err is None else got  # (the C API's batches come in any order)
ref = pq.read_table(ppath).sort_by("id").column("lst").to_pylist()
ok_ = err is None and got.column(1).to_pylist() == ref and got.column(2).to_pylist() == [
    None if v is None else [e and e["a"] for e in v] for v in ref]
print("ok path overlap read" if ok_ else f"FAIL: path overlap read: {err or got.slice(0, 2)}")
failures += not ok_

# every parquet-testing file pyarrow reads: ringscan's schema (types, field and schema
# metadata) equal to pyarrow's (the values: tests/cli/conformance.sh)
import glob  # noqa: E402
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "parquet-testing", "data")
files = sorted(glob.glob(os.path.join(DATA, "*.parquet")))
if not files:
    print(f"skip parquet-testing: no files in {DATA}")
for path in files:
    name = "parquet-testing " + os.path.basename(path)
    try:
        want = through_c(pq.read_table(path))
    except pa.ArrowException as e:
        print(f"skip {name}: pyarrow cannot read it ({str(e)[:60]})")
        continue
    got, err = read(path)
    if not err and not got.schema.equals(want.schema, check_metadata=True):
        err = f"schema\n  ringscan: {got.schema}\n  pyarrow:  {want.schema}"
    print(f"FAIL: {name}: {err}" if err else f"ok {name}")
    failures += bool(err)
sys.exit(1 if failures else 0)
