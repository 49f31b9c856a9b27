"""tests/cli/hive_types.py LIB DIR: cases of tests/cli/hive_types.sh. Every value below (a
hand list of odd ones, then a generated cross of date, time and suffix forms) is written as
its own partition column (DIR/NAME/g<N>/k00=<value>/k01=<value>/.../f.parquet, 30 a
dataset); ringscan's dataset scan (libringscan.so through rs_ctypes) must type each as DuckDB 2.0.1's read_parquet(..., hive_partitioning=true) does
(BIGINT, DATE, TIMESTAMP or VARCHAR) and give the same value (an integer, days or
microseconds as stored, or the text). Then datasets holding several of them in one column
(a type they share, or VARCHAR). Prints "ok NAME" or "FAIL: NAME: why"."""
import itertools, os, sys
import duckdb, pyarrow as pa, pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rs_ctypes

lib = rs_ctypes.load(sys.argv[1])
top = sys.argv[2]
failures = 0

ODD = """0|-0|-01|-00|00|007|+5|+0| 5|5 |\t12|1e3|1.0|1_000|0x10|0xFF| 0x10|0x10 |0x|-0x10|0b101|0B1_01
|0b1__0|0b_1|0b1_|0b|0x7fffffffffffffff|0x8000000000000000|9223372036854775807|9223372036854775808
|-9223372036854775808|-9223372036854775809|123456789012345678901234|-|- 5|--5|5-|20240101
|2024-1-1|2024-01-1|24-01-01|2024-01-01|2024-02-30|2024-02-29|2023-02-29|2024-13-01|2024-01-0
|2024-01-01x|2024-01-01 x|2024-01-01\t| 2024-01-01|2024 01 01|2024\\01\\01|0-1-1|0-01-01|1-1-1|9-9-9
|00-1-1|000-01-01|0000-01-01|01-01-01|-1-01-01|-01-01-01|-2024-01-01|12024-01-01|99999-01-01
|123456789-01-01|5881580-07-10|5881580-07-11|5877642-06-25 (BC)|5877642-06-24 (BC)|-5877641-06-25
|-5877641-06-24|2024-01-01 (BC)|2024-01-01 (bc)|2024-01-01(BC)|2024-01-01  (BC)|0000-01-01 (BC)
|-2024-01-01 (BC)|2024-01-01 (BC) 10:00:00|2024-01-01 (BC)T10:00:00|2024-01-01 10:00:00 (BC)
|infinity|Infinity|-infinity|+infinity|infinity | infinity|- infinity|-Infinity |infinityx|infinit
|inf|-inf|INF| inf|inf |+inf|infx|epoch| epoch|EPOCH|-epoch|epoch 10:00:00|2024-01-01 epoch|2024-01-01 infinity|NULL|null|true
|294247-01-01 00:00:00|294247-01-10 04:00:54|294247-01-10 04:00:55|1969-12-31 23:59:59.999999
|2024-01-01 0000000010:00|2024-01-01 00000000010:00|2024-01-01 000000000010:00|2024-01-01 10.5
|2024-01-01 10 :00|2024-01-01 10::00|2024-01-01 10::|2024-01-01 -1:00:00|2024-01-01 10:00:00,5
|2024-01-01T|2024-01-01 T10:00:00|2024-01-01T 10:00:00|2024-01-0110:00:00|2024-01-01\t10:00:00
|2024-01-01 10:00:00\tUTC|2024-01-01 10:00:00  UTC|2024-01-01 10:00:00 UTC x|2024-01-01 10:00:00 é
|2024-01-01 10:00:00 a.b|2024-01-01 10:00:00+02 UTC""".replace("\n", "").split("|")

DATES = ["2024-01-01", "2024-1-1", "1-1-1", " 2024-01-01", "2024-01-01 (BC)", "99999-12-31", "2024 1 31"]
TIMES = ["", " ", "T", "10:00:00", "24:00:00", "24:00", "24:00:00.000001", "23:59:60", "23:60:00",
         "10:00", "10:0", "1:2", "10:", "10:00:", "010:00:00", "100:00:00", "9:5:5.5",
         "10:00:00.", "10:00:00.1234567", "10:00:00.123456789", "10:00:00.9999995", "10:00.5"]
SUFFIXES = ["", " ", "Z", "z", "Z ", "+02", "-0530", "+02:30", "+2", "+0", "+023", "+02:", "+02:3",
            "+0230", "+02:30:15", "+02:30:1", "+02:3015", "+02x", "+99", "-00", " +02", " UTC",
            " utc", " CET", " Europe", " a_b", " a-b", " a+b", " UTC ", " Z"]


def generated():
    for d, t, s in itertools.product(DATES, TIMES, SUFFIXES):
        if t in ("", " ", "T") and s not in ("", "Z", "+02"):
            continue
        yield d + (" " if t not in ("", " ", "T") else "") + t + s
    yield from (d + "T" + t for d in DATES[:3] for t in TIMES[3:])


def fail(name, why):
    global failures
    failures += 1
    print(f"FAIL: {name}: {why}")


def kind(t):
    return ("BIGINT" if pa.types.is_int64(t) else "DATE" if pa.types.is_date32(t) else
            "TIMESTAMP" if pa.types.is_timestamp(t) else "VARCHAR" if pa.types.is_string(t)
            or pa.types.is_large_string(t) or pa.types.is_string_view(t) else str(t))


def values(col):
    """(type, [value as an int, or the text]) of an Arrow column."""
    k = kind(col.type)
    if k in ("DATE", "TIMESTAMP"):
        col = col.cast(pa.int32() if k == "DATE" else pa.int64())
    elif k == "VARCHAR":
        col = col.cast(pa.string())
    return k, col.to_pylist()


KEYS = 30  # partition keys per dataset (ringscan allows 32)


def both(root, keys):
    """{key: (type, values)} from DuckDB and from ringscan (or its error) for one dataset."""
    duck = duckdb.sql(f"select * from read_parquet('{root}/**/*.parquet', hive_partitioning=true) "
                      "order by x").arrow()
    duck = duck.read_all() if hasattr(duck, "read_all") else duck
    want = {k: values(duck.column(k)) for k in keys}
    got, err = rs_ctypes.read_dataset(lib, [root])
    if err:
        return want, {k: ("error", err) for k in keys}
    got = got.sort_by("x")
    return want, {k: values(got.column(k)) if k in got.column_names else None for k in keys}


def write(root, rows):
    """rows: [[value of k00, of k01, ...]]: one file per row, x its number."""
    for i, row in enumerate(rows):
        d = os.path.join(root, *[f"k{j:02d}={v}" for j, v in enumerate(row)])
        os.makedirs(d, exist_ok=True)
        pq.write_table(pa.table({"x": [i]}), os.path.join(d, "f.parquet"))


def one_by_one(name, vals):
    """Each value its own column (KEYS columns a dataset, one file each)."""
    bad = []
    for g in range(0, len(vals), KEYS):
        group = vals[g:g + KEYS]
        root = os.path.join(top, name, f"g{g}")
        write(root, [group])
        keys = [f"k{j:02d}" for j in range(len(group))]
        want, got = both(root, keys)
        bad += [f"{v!r}: DuckDB {want[k]} ringscan {got[k]}" for k, v in zip(keys, group) if want[k] != got[k]]
    if bad:
        return fail(name, f"{len(bad)} of {len(vals)} differ:\n  " + "\n  ".join(bad[:40]))
    print(f"ok {name} ({len(vals)} values)")


def together(name, vals):
    """The values in one column k00, a file each."""
    root = os.path.join(top, name)
    write(root, [[v] for v in vals])
    want, got = both(root, ["k00"])
    if want != got:
        return fail(name, f"DuckDB {want}\n  ringscan {got}")
    print(f"ok {name} ({want['k00'][0]})")


one_by_one("odd", [v for v in ODD if "/" not in v and "\\" not in v])  # (DuckDB splits paths at both)
gen = sorted(set(generated()))
one_by_one("generated", gen)
together("ints", ["-01", "0x10", " 7", "-0"])
together("dates", ["2024-1-1", "24-01-01", "2024-01-01 (BC)", "epoch"])
together("date_and_timestamp", ["2024-01-01", "2024-01-01 10:00:00"])
together("int_and_date", ["7", "2024-01-01"])
sys.exit(1 if failures else 0)
