"""tests/cli/dataset_types.py LIB DIR: cases of tests/cli/dataset_types.sh. pyarrow 26 writes
hive-partitioned datasets; ringscan's dataset scan (libringscan.so through rs_ctypes) must give
pyarrow.dataset.dataset(dir, partitioning="hive").to_table()'s schema (types, zones, field
and schema metadata) and values, partition columns aside (ringscan types them as DuckDB does:
BIGINT where pyarrow says int32; their values must still be equal). Prints "ok NAME" or
"FAIL: NAME: why" per case."""
import datetime as dt, decimal, os, sys
import pyarrow as pa, pyarrow.dataset as pads, pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rs_ctypes

lib = rs_ctypes.load(sys.argv[1])
top = sys.argv[2]
failures = 0


def fail(name, why):
    global failures
    failures += 1
    print(f"FAIL: {name}: {why}")


def write(name, files):
    """files: {relative path: (table, write options)}; returns the dataset's directory."""
    root = os.path.join(top, name)
    for rel, (table, opts) in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        pq.write_table(table, os.path.join(root, rel), **opts)
    return root


def compare(name, root, parts=()):
    """ringscan's dataset scan of root against pyarrow.dataset's: schema (metadata included)
    without the partition columns, then every value (rows by "id")."""
    want = pads.dataset(root, partitioning="hive" if parts else None).to_table()
    got, err = rs_ctypes.read_dataset(lib, [root])
    if err:
        return fail(name, f"ringscan: {err}")
    data = [f for f in want.schema if f.name not in parts]
    want_s = pa.schema(data, metadata=want.schema.metadata)
    got_s = pa.schema([f for f in got.schema if f.name not in parts], metadata=got.schema.metadata)
    if got.column_names[:len(data)] != [f.name for f in data] or sorted(got.column_names) != sorted(want.column_names):
        return fail(name, f"columns {got.column_names} != {want.column_names}")
    want = want.select(got.column_names)  # partition columns: sorted by name, as DuckDB
    if not got_s.equals(want_s, check_metadata=True):
        return fail(name, f"schema\n  ringscan: {got_s}\n  pyarrow:  {want_s}")
    for f in data:  # the type of every chunk, not only the schema's
        if any(c.type != f.type for c in got.column(f.name).chunks):
            return fail(name, f"column {f.name}: a chunk of another type")
    for p in parts:  # DuckDB's partition types: the same values
        want = want.set_column(want.column_names.index(p), p, want.column(p).cast(got.schema.field(p).type))
    g, w = got.sort_by("id").to_pylist(), want.sort_by("id").to_pylist()
    if g != w:
        return fail(name, f"values\n  ringscan: {g[:3]}\n  pyarrow:  {w[:3]}")
    print(f"ok {name}")


def expect_error(name, root, words):
    """Both refuse the dataset; ringscan's message holds every one of words."""
    try:
        pads.dataset(root).to_table()
        return fail(name, "pyarrow read it (the case expects pyarrow to refuse)")
    except pa.ArrowInvalid:
        pass
    got, err = rs_ctypes.read_dataset(lib, [root])
    if not err:
        return fail(name, f"ringscan read it: {got.schema}")
    missing = [w for w in words if w not in err]
    if missing:
        return fail(name, f"message {err!r} lacks {missing}")
    print(f"ok {name}")


T0 = dt.datetime(2024, 3, 1, 12, 30, 5, 123456)
META = {b"origin": b"dataset_types", b"n": b"1"}


def rich(lo, n, tz="Europe/Paris", dur_unit="s", index=pa.int8()):
    """n rows of every type the stored schema restores, ids lo.. (every 5th row null)."""
    ids = list(range(lo, lo + n))
    nul = lambda v, i: None if i % 5 == 4 else v
    ts = [nul(T0 + dt.timedelta(hours=i, microseconds=i), i) for i in ids]
    words = ["alpha", "beta", "gamma", "delta"]
    fields = [
        pa.field("id", pa.int64()),
        pa.field("ts_zone", pa.timestamp("us", tz=tz), metadata={b"unit": b"us"}),
        pa.field("ts_ms_tokyo", pa.timestamp("ms", tz="Asia/Tokyo")),
        pa.field("ts_naive", pa.timestamp("us")),
        pa.field("ls", pa.large_string()),
        pa.field("lb", pa.large_binary()),
        pa.field("word", pa.dictionary(index, pa.string())),
        pa.field("dec32", pa.decimal32(7, 2)),
        pa.field("dec64", pa.decimal64(15, 3)),
        pa.field("dur", pa.duration(dur_unit)),
        pa.field("dur_ns", pa.duration("ns")),
        pa.field("plain", pa.float64()),
    ]
    cols = [
        ids, ts, [t and t.replace(microsecond=t.microsecond // 1000 * 1000) for t in ts],
        ts, [nul("s%d" % i * (i % 3), i) for i in ids], [nul(bytes([i % 256, 7]), i) for i in ids],
        [nul(words[i % 4], i) for i in ids],
        [nul(decimal.Decimal(i * 37 - 1000).scaleb(-2), i) for i in ids],
        [nul(decimal.Decimal(i * 123457 - 10**7).scaleb(-3), i) for i in ids],
        [nul(dt.timedelta(seconds=i * 7), i) for i in ids],
        [nul(dt.timedelta(microseconds=i * 3), i) for i in ids],
        [nul(i / 8, i) for i in ids],
    ]
    arrays = [pa.array(c, f.type) if not pa.types.is_dictionary(f.type)
              else pa.array(c, pa.string()).dictionary_encode().cast(f.type) for c, f in zip(cols, fields)]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=META))


# 1. every stored type in a hive dataset (two keys, several files, row groups of 50 rows)
rg = {"row_group_size": 50}
files = {}
for k, (year, region) in enumerate([(2023, "eu"), (2023, "us"), (2024, "eu"), (2024, "us")]):
    files[f"year={year}/region={region}/part-0.parquet"] = (rich(k * 1000, 120), rg)
compare("hive_stored_types", write("hive", files), parts=("year", "region"))

# 2. the first file (by path) stores its schema, a later one does not: the first's types
compare("first_stored_later_plain", write("mixed1", {
    "k=1/a.parquet": (rich(0, 30), {}),
    "k=2/a.parquet": (rich(100, 30), {"store_schema": False})}), parts=("k",))

# 3. the first file stores none, a later one does: Parquet's types (pyarrow's too)
compare("first_plain_later_stored", write("mixed2", {
    "k=1/a.parquet": (rich(0, 30), {"store_schema": False}),
    "k=2/a.parquet": (rich(100, 30), {})}), parts=("k",))

# 4. files disagree on what they store: zone, duration unit (s, then ms and us: later files'
#    counts rescaled to seconds... in reverse: the first says ms, later s and us exact),
#    dictionary index type; the first file's types, later values cast as pyarrow casts
compare("stored_types_disagree", write("disagree", {
    "a.parquet": (rich(0, 40, tz="America/New_York", dur_unit="ms"), {}),
    "b.parquet": (rich(100, 40, tz="Asia/Tokyo", dur_unit="s", index=pa.int32()), {}),
    "c.parquet": (rich(200, 40, tz="UTC", dur_unit="us"), {})}))

# 5. a projection (columns in another order) keeps the stored types and field metadata
root = os.path.join(top, "hive")
want = pads.dataset(root, partitioning="hive").to_table(columns=["dur", "ts_zone", "word", "id"])
got, err = rs_ctypes.read_dataset(lib, [root], columns=["dur", "ts_zone", "word", "id"])
if err or not got.schema.equals(pa.schema(list(want.schema), metadata=META), check_metadata=True):
    fail("projection", err or f"\n  ringscan: {got.schema}\n  pyarrow:  {want.schema}")
elif got.sort_by("id").to_pylist() != want.sort_by("id").to_pylist():
    fail("projection", "values differ")
else:
    print("ok projection")

# 6. a later file's duration that its cast to the dataset's unit would truncate: pyarrow
#    refuses ("would lose data"), so does ringscan, naming both files and the column
lossy = pa.table({"id": [1], "dur": pa.array([1], pa.duration("ms"))})
lossy2 = pa.table({"id": [2], "dur": pa.array([2001], pa.duration("us"))})
expect_error("duration_loses_data", write("lossy", {
    "a.parquet": (lossy, {}), "b.parquet": (lossy2, {})}),
    ["lossy/a.parquet", "lossy/b.parquet", "'dur'", "2001", "would lose data"])
over = pa.table({"id": [2], "dur": pa.array([2**62], pa.duration("s"))})
expect_error("duration_overflows", write("over", {
    "a.parquet": (pa.table({"id": [1], "dur": pa.array([1], pa.duration("ns"))}), {}),
    "b.parquet": (over, {})}), ["over/a.parquet", "over/b.parquet", "'dur'", "overflows"])

# 7. nested columns, read whole (dataset_types.sh checks the CLI's output; dataset_nested.sh
#    the rest)
write("nested", {"a.parquet": (pa.table({"id": [1, 2], "lst": [[1], [2, 3]], "s": [{"a": 1}, {"a": 2}]}), {}),
                 "b.parquet": (pa.table({"id": [3], "lst": [[4]], "s": [{"a": 3}]}), {})})

# 8. a union by name's nested field merged from two files' shapes (leaves neither file's type
#    holds, or struct fields each file lacks some of): its stored Arrow types (zones, large
#    strings and lists, dictionaries, field metadata) where the files agree, as pyarrow.dataset
#    reads the files under their unified schema (promote_options="permissive"); values equal
#    to pyarrow's and to DuckDB's read_parquet([...], union_by_name = true)
def compare_union(name, tables):
    import duckdb
    root = write(name, {f"{i + 1}.parquet": (t, {}) for i, t in enumerate(tables)})
    paths = [os.path.join(root, f"{i + 1}.parquet") for i in range(len(tables))]
    schema = pa.unify_schemas([pq.read_schema(p) for p in paths], promote_options="permissive")
    want = pads.dataset(paths, schema=schema).to_table()
    got, err = rs_ctypes.read_dataset(lib, [root], union_by_name=True)
    if err:
        return fail(name, f"ringscan: {err}")
    want_s = pa.schema(list(want.schema))  # (the schema's own metadata: the first file's)
    got_s = pa.schema(list(got.schema))
    if not got_s.equals(want_s, check_metadata=True):
        return fail(name, f"schema\n  ringscan: {got_s}\n  pyarrow:  {want_s}")
    if any(c.type != f.type for f in got.schema for c in got.column(f.name).chunks):
        return fail(name, "a chunk of another type than the schema's")
    duck = duckdb.sql(f"SELECT * FROM read_parquet({paths!r}, union_by_name = true)").to_arrow_table()
    g = got.sort_by("id").to_pylist()
    if g != want.sort_by("id").to_pylist() or g != duck.sort_by("id").to_pylist():
        return fail(name, f"values\n  ringscan: {g[:2]}\n  pyarrow:  {want.sort_by('id').to_pylist()[:2]}"
                          f"\n  duckdb:   {duck.sort_by('id').to_pylist()[:2]}")
    for path in paths_in(got.schema.field("k").type, "k"):
        p, err = rs_ctypes.read_dataset(lib, [root], columns=["id", path], union_by_name=True)
        want_f = path_field(got.schema.field("k"), path.split(".")[1:], path)
        if err or not p.schema.field(path).equals(want_f, check_metadata=True):
            return fail(name, f"path {path}: {err or p.schema.field(path)} (want {want_f})")
        if p.column(path).to_pylist() != [path_value(r["k"], path.split(".")[1:]) for r in got.to_pylist()]:
            return fail(name, f"path {path}: values {p.column(path).to_pylist()[:3]}")
    print(f"ok {name}")


def paths_in(t, prefix):
    """The Parquet paths inside a nested type's fields (struct fields; a list's element)."""
    if pa.types.is_struct(t):
        for f in t:
            yield f"{prefix}.{f.name}"
            yield from paths_in(f.type, f"{prefix}.{f.name}")
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        yield from paths_in(t.value_type, f"{prefix}.list.element")


def path_field(f, comps, name):
    """The field a path inside field f exports (a one-file scan's: a struct's field with its
    type and metadata; a list it passes keeps its type, its element named "element")."""
    if not comps:
        return f.with_name(name)
    if pa.types.is_struct(f.type):
        return path_field(f.type.field(comps[0]), comps[1:], name)
    inner = path_field(f.type.value_field, comps[2:], "element")
    make = pa.large_list if pa.types.is_large_list(f.type) else pa.list_
    return pa.field(name, make(inner))


def path_value(v, comps):
    """Value v (a row's) at a path, as DuckDB's k.a / [x.a FOR x IN k]."""
    if not comps or v is None:
        return v
    if isinstance(v, dict):
        return path_value(v[comps[0]], comps[1:])
    return [path_value(x, comps[2:]) for x in v]


def nested_table(lo, n, typ, value):
    """n rows of one nested column k of type typ (value(i): row i's), ids lo.. (every 7th null)."""
    ids = list(range(lo, lo + n))
    return pa.table({"id": pa.array(ids, pa.int64()), "k": pa.array([None if i % 7 == 3 else value(i) for i in ids], typ)})


PARIS = pa.timestamp("us", tz="Europe/Paris")
MD = {b"note": b"kept"}
# leaves merged into a type neither file has (UINT32 beside INT32: int64), the others stored
# alike: large_list, a zone, a large string, a dictionary, field metadata
lst = lambda t: pa.large_list(pa.field("element", t, metadata=MD))
compare_union("merge_large_list", [nested_table(0, 40, lst(pa.uint32()), lambda i: [i, 2**32 - 1 - i, None]),
                                   nested_table(100, 40, lst(pa.int32()), lambda i: [-i])])
st = lambda a, md=MD: pa.struct([pa.field("a", a), pa.field("t", PARIS, metadata=md), pa.field("s", pa.large_string()),
                                 pa.field("w", pa.dictionary(pa.int32(), pa.string()))])
sval = lambda i: {"a": i, "t": T0 + dt.timedelta(hours=i), "s": "x" * (i % 4), "w": ["p", "q"][i % 2]}
compare_union("merge_struct", [nested_table(0, 40, st(pa.uint32()), sval), nested_table(100, 40, st(pa.int32()), lambda i: {**sval(i), "a": -i})])
# field metadata that differs by file: the first file's (pyarrow's unify_schemas), none too;
# three files merged step by step
compare_union("merge_metadata_first", [nested_table(0, 20, st(pa.uint32(), {b"f": b"1"}), sval),
                                       nested_table(100, 20, st(pa.int32(), {b"f": b"2"}), sval),
                                       nested_table(200, 20, st(pa.int16(), None), sval)])
# a zone both files store in other units (beside leaves merged into a third type): the finer
# unit in that zone
zs = lambda a, u: pa.struct([("a", a), ("t", pa.list_(pa.timestamp(u, tz="Asia/Tokyo")))])
compare_union("merge_zone_units", [nested_table(0, 30, zs(pa.uint32(), "ms"), lambda i: {"a": i, "t": [T0 + dt.timedelta(seconds=i), None]}),
                                   nested_table(100, 30, zs(pa.int32(), "us"), lambda i: {"a": -i, "t": [T0 + dt.timedelta(microseconds=i)]})])
# struct fields each file lacks some of: each field keeps its file's stored type and metadata
ua = pa.struct([pa.field("a", pa.int32()), pa.field("t", PARIS, metadata=MD)])
ub = pa.struct([pa.field("s", pa.large_string(), metadata={b"from": b"b"}), pa.field("a", pa.int32())])
compare_union("union_fields", [nested_table(0, 40, ua, lambda i: {"a": i, "t": T0 + dt.timedelta(minutes=i)}),
                               nested_table(100, 40, ub, lambda i: {"s": f"s{i}", "a": -i})])
compare_union("union_in_large_list", [nested_table(0, 30, pa.large_list(ua), lambda i: [{"a": i, "t": T0}, None]),
                                      nested_table(100, 30, pa.large_list(ub), lambda i: [{"s": "y", "a": i}])])

sys.exit(1 if failures else 0)
