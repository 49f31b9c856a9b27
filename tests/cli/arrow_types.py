"""tests/cli/arrow_types.py LIB DIR: cases of tests/cli/arrow_types.sh. Prints "ok NAME" or
"FAIL: NAME: why" per case."""
import base64, datetime as dt, os, sys, uuid
import pyarrow as pa, pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rs_ctypes

lib = rs_ctypes.load(sys.argv[1])
d = sys.argv[2]
failures = 0


def case(name, table, **write):
    """Writes table, reads it with pyarrow and with ringscan: schema and values equal (rows
    sorted by "id" when there is one: the scan's batches come as splits finish)."""
    global failures
    path = os.path.join(d, name + ".parquet")
    pq.write_table(table, path, **write)
    want = pq.read_table(path)
    got, err = rs_ctypes.read_table(lib, path)
    if err:
        print(f"FAIL: {name}: ringscan: {err}")
        failures += 1
        return None
    why = None
    if not got.schema.equals(want.schema, check_metadata=True):
        why = f"schema\n  ringscan: {got.schema}\n  pyarrow:  {want.schema}"
    elif "id" in want.column_names and not got.sort_by("id").equals(want.sort_by("id")):
        why = f"values (by id)\n  ringscan: {got.to_pylist()[:5]}\n  pyarrow:  {want.to_pylist()[:5]}"
    elif "id" not in want.column_names and not got.equals(want):
        why = f"values\n  ringscan: {got.to_pylist()}\n  pyarrow:  {want.to_pylist()}"
    if why:
        print(f"FAIL: {name}: {why}")
        failures += 1
    else:
        print(f"ok {name}")
    return got


ts = [dt.datetime(2024, 1, 1, 12, 30, 5, 123456), None, dt.datetime(1999, 12, 31)]
zones = pa.table({
    "ny": pa.array(ts, pa.timestamp("us", tz="America/New_York")),
    "tokyo_s": pa.array([t and t.replace(microsecond=0) for t in ts], pa.timestamp("s", tz="Asia/Tokyo")),
    "naive_ms": pa.array([t and t.replace(microsecond=0) for t in ts], pa.timestamp("ms")),
    "utc_ns": pa.array(ts, pa.timestamp("ns", tz="UTC")),
    "long_zone": pa.array(ts, pa.timestamp("us", tz="America/Argentina/ComodRivadavia")),
    "offset": pa.array(ts, pa.timestamp("ms", tz="+05:30")),
})
got = case("zones", zones)
if got is not None:
    assert got.schema.field("ny").type.tz == "America/New_York"
case("zones_no_stored_schema", zones, store_schema=False)

large = pa.table({
    "ls": pa.array(["a", None, "ccc" * 100], pa.large_string()),
    "lb": pa.array([b"\x00\x01", b"", None], pa.large_binary()),
    "s": pa.array(["x", "y", None]),
})
case("large", large)
case("large_dictionary_pages", large, use_dictionary=True)
case("large_plain_pages", large, use_dictionary=False)

meta = pa.table({"a": pa.array([1, 2, 3], pa.int32()), "b": pa.array(["p", "q", None])})
meta = meta.cast(pa.schema([pa.field("a", pa.int32(), metadata={"unit": "m", "k2": ""}),
                            pa.field("b", pa.string())], metadata={"owner": "t", "n": "1"}))
case("metadata", meta)
cats = pa.table({"id": pa.array(range(2000), pa.int32()),
                 "c": pa.array(["x", None, "y", "x"] * 500).dictionary_encode(),
                 "b": pa.array([b"\x00", b"\x01", None, b"\x00"] * 500).dictionary_encode(),
                 "plain": pa.array(["p", "q", "r", None] * 500)})
got = case("stored_dictionary", cats)
if got is not None:
    assert pa.types.is_dictionary(got.schema.field("c").type)
case("stored_dictionary_groups", cats, row_group_size=700)
case("stored_dictionary_no_stored_schema", cats, store_schema=False)
durations = pa.table({u: pa.array([1, None, -7], pa.duration(u)) for u in ["s", "ms", "us", "ns"]})
case("durations", durations)
with_ids = pa.table({"a": pa.array([5, 6], pa.int64())}).cast(
    pa.schema([pa.field("a", pa.int64(), metadata={"PARQUET:field_id": "7"})]))
case("field_id", with_ids)

uu = pa.table({
    "u": pa.array([uuid.UUID(int=1).bytes, None, uuid.UUID(int=2**128 - 1).bytes], pa.uuid()),
    "h": pa.array([1.5, None, -0.0], pa.float16()),
    "fixed": pa.array([b"abc", b"def", None], pa.binary(3)),
})
got = case("uuid_float16", uu)
if got is not None:
    assert got.schema.field("u").type == pa.uuid()
case("uuid_no_stored_schema", uu, store_schema=False)

# a stored schema that is not one: pyarrow refuses, ringscan too, naming the key
bad_path = os.path.join(d, "bad_schema.parquet")
t = pa.table({"a": [1]})
w = pq.ParquetWriter(bad_path, t.schema, store_schema=False)
w.add_key_value_metadata({"ARROW:schema": base64.b64encode(
    b"\xff\xff\xff\xff\x10\x00\x00\x00" + b"\x07" * 16).decode()})
w.write_table(t)
w.close()
try:
    pq.read_table(bad_path)
    pyarrow_refuses = False
except Exception:
    pyarrow_refuses = True
got, err = rs_ctypes.read_table(lib, bad_path)
if pyarrow_refuses and err and "ARROW:schema" in err:
    print("ok bad_stored_schema")
else:
    print(f"FAIL: bad_stored_schema: pyarrow refuses {pyarrow_refuses}, ringscan {err!r}")
    failures += 1

# INT96 read as a one-file dataset: timestamp[ns] without a zone, as pyarrow.dataset reads it
# (the dataset's column carried a legacy annotation's UTC flag: timestamp[ns, tz=UTC])
i96_dir = os.path.join(d, "int96_ds")
os.makedirs(i96_dir, exist_ok=True)
pq.write_table(pa.table({"t": pa.array([1_700_000_000_123_456_789, None], pa.timestamp("ns"))}),
               os.path.join(i96_dir, "1.parquet"), use_deprecated_int96_timestamps=True)
import pyarrow.dataset as pads
want = pads.dataset(i96_dir).to_table()
got, err = rs_ctypes.read_dataset(lib, [os.path.join(i96_dir, "*.parquet")])
if not err and got.schema.field("t").type == want.schema.field("t").type == pa.timestamp("ns") and \
        got.column("t").cast(pa.int64()).to_pylist() == want.column("t").cast(pa.int64()).to_pylist():
    print("ok int96_dataset")
else:
    print(f"FAIL: int96_dataset: ringscan {err or got.schema}, pyarrow.dataset {want.schema}")
    failures += 1
sys.exit(1 if failures else 0)
