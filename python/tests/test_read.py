"""ringscan.scan read back equal to pyarrow, consumed by pyarrow, Polars and DuckDB."""
import json
import math

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import ringscan
from conftest import DATA, EXPECTED, jsonable, manifest


def values(col):
    """A column's values as Python objects; timestamps as their integer ticks (pyarrow cannot
    make datetimes of nanoseconds outside the microsecond range, as int96_from_spark has)."""
    if pa.types.is_timestamp(col.type):
        col = col.cast(pa.int64())
    return col.to_pylist()


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


@pytest.mark.parametrize("name", manifest("read"))
def test_conformance_equals_pyarrow(name):
    path = str(DATA / name)
    want = pq.read_table(path)
    got = ringscan.scan(path).to_arrow()
    assert got.column_names == want.column_names
    assert got.num_rows == want.num_rows
    for c in want.column_names:
        assert got[c].type == want[c].type, f"{name}.{c}: {got[c].type} vs {want[c].type}"
        w, g = values(want[c]), values(got[c])
        bad = [i for i, (x, y) in enumerate(zip(w, g)) if not same(x, y)]
        assert not bad, f"{name}.{c}: row {bad[0]}: ringscan {g[bad[0]]!r}, pyarrow {w[bad[0]]!r}"


def test_consumers_take_the_stream(lineitem):
    want = pq.read_table(lineitem, columns=["l_orderkey", "l_linenumber"],
                         filters=[("l_linenumber", ">", 5)])
    total = pc.sum(want["l_orderkey"]).as_py()

    def r():
        return ringscan.scan(lineitem, columns=["l_orderkey", "l_linenumber"],
                             filter="l_linenumber > 5")
    t = pa.table(r())
    assert t.num_rows == want.num_rows and pc.sum(t["l_orderkey"]).as_py() == total
    rbr = pa.RecordBatchReader.from_stream(r())
    assert rbr.schema.names == ["l_orderkey", "l_linenumber"]
    assert sum(b.num_rows for b in rbr) == want.num_rows
    df = pl.DataFrame(r())
    assert df.shape == (want.num_rows, 2) and df["l_orderkey"].sum() == total
    s = pl.from_arrow(r())  # a capsule stream of struct batches: Polars gives a struct Series
    assert s.struct.unnest()["l_orderkey"].sum() == total
    rel = r()
    got = duckdb.sql("SELECT count(*), sum(l_orderkey) FROM rel").fetchall()
    assert got == [(want.num_rows, total)]


def test_schema_capsule(lineitem):
    r = ringscan.scan(lineitem, columns=["l_orderkey", "l_shipdate", "l_comment"])
    assert pa.schema(r).names == ["l_orderkey", "l_shipdate", "l_comment"]
    assert pa.schema(r).field("l_shipdate").type == pa.date32()
    assert r.schema == pa.schema(r)
    assert r.to_arrow().schema.names == ["l_orderkey", "l_shipdate", "l_comment"]


def test_order_by_limit(lineitem):
    t = pq.read_table(lineitem, columns=["l_orderkey", "l_linenumber", "l_extendedprice"])
    want = t.sort_by([("l_extendedprice", "descending")]).slice(0, 7)["l_extendedprice"].to_pylist()
    for order in ("l_extendedprice DESC", [("l_extendedprice", "descending")]):
        got = ringscan.scan(lineitem, columns=["l_extendedprice"], order_by=order, limit=7).to_arrow()
        assert got["l_extendedprice"].to_pylist() == want


def test_stats_and_explain(lineitem):
    r = ringscan.scan(lineitem, columns=["l_orderkey"], filter="l_quantity > 49")
    t = r.to_arrow()
    st = r.stats()
    assert st["complete"] is True
    assert st["rows_out"] == t.num_rows > 0
    assert st["bytes_read"] > 0 and st["reads"] > 0
    assert "l_quantity > 49" in r.explain()


def test_dataset_metadata(tmp_path):
    """metadata() of a hive directory: the files in path order with their rows and row groups
    from the footer, the totals, and the schema a scan exports (issue 23, as `ringscan meta`)."""
    import pyarrow.dataset as ds
    for year, n in ((2024, 700), (2023, 1500)):
        d = tmp_path / f"year={year}"
        d.mkdir()
        pq.write_table(pa.table({"id": pa.array(range(n), pa.int64()),
                                 "ts": pa.array(range(n), pa.timestamp("ms", "UTC"))}),
                       d / "part.parquet", row_group_size=400)
    m = ringscan.metadata(str(tmp_path))
    want = sorted(str(p) for p in tmp_path.glob("*/*.parquet"))
    assert [f["path"] for f in m["files"]] == want
    assert [f["num_row_groups"] for f in m["files"]] == [pq.ParquetFile(p).metadata.num_row_groups
                                                         for p in want] == [4, 2]
    assert m["num_files"] == 2 and m["num_rows"] == ds.dataset(str(tmp_path)).count_rows() == 2200
    assert m["num_row_groups"] == 6
    assert m["schema"].names == ["id", "ts", "year"]
    assert m["schema"].field("ts").type == pa.timestamp("ms", "UTC")
    assert ringscan.metadata([want[1]], hive_partitioning=False)["schema"].names == ["id", "ts"]
    with pytest.raises(ringscan.RingscanError, match="no file matches|nothing"):
        ringscan.metadata(str(tmp_path / "none" / "*.parquet"))


def test_dataset_nested_fields(tmp_path):
    """A hive dataset with list, struct and map fields reads them whole, equal to
    pyarrow.dataset (issue 23); a union by name gives nulls where a file lacks one."""
    import pyarrow.dataset as ds
    for year, lo in ((2023, 0), (2024, 40)):
        d = tmp_path / f"year={year}"
        d.mkdir()
        ids = list(range(lo, lo + 40))
        pq.write_table(pa.table({
            "id": pa.array(ids, pa.int64()),
            "lst": pa.array([None if i % 7 == 0 else list(range(i % 4)) for i in ids], pa.list_(pa.int64())),
            "s": pa.array([{"a": i, "b": str(i)} if i % 5 else None for i in ids],
                          pa.struct([("a", pa.int32()), ("b", pa.string())])),
            "m": pa.array([[("k", i)] if i % 3 else [] for i in ids], pa.map_(pa.string(), pa.int64()))}),
            d / "part.parquet", row_group_size=16)
    got = ringscan.scan(str(tmp_path), threads=2).to_arrow()
    want = ds.dataset(str(tmp_path), partitioning="hive").to_table()
    assert got.schema.field("s").type == want.schema.field("s").type
    assert got.drop_columns(["year"]).to_pylist() == want.drop_columns(["year"]).to_pylist()
    pq.write_table(pa.table({"id": pa.array([99], pa.int64())}), tmp_path / "year=2024" / "zz.parquet")
    got = ringscan.scan(str(tmp_path), union_by_name=True, columns=["id", "lst", "s"]).to_arrow()
    assert got.num_rows == 81 and got.to_pylist()[-1] == {"id": 99, "lst": None, "s": None}


def test_metadata(lineitem):
    m = ringscan.metadata(lineitem)
    pf = pq.ParquetFile(lineitem).metadata
    assert m["num_rows"] == pf.num_rows and m["num_row_groups"] == pf.num_row_groups
    assert [c["name"] for c in m["columns"]] == [pf.schema.column(i).name for i in range(pf.num_columns)]
    g0 = m["row_groups"][0]
    assert g0["num_rows"] == pf.row_group(0).num_rows
    ship = next(c for c in g0["columns"] if c["column"] == "l_shipdate")
    stats = pf.row_group(0).column(10).statistics
    assert ship["min"] == str(stats.min) and ship["max"] == str(stats.max)


def test_datasets_lists_directories_patterns(lineitem, tmp_path):
    import shutil
    for y in (2024, 2025):
        d = tmp_path / f"year={y}"
        d.mkdir()
        shutil.copy(lineitem, d / "part.parquet")
    n = pq.ParquetFile(lineitem).metadata.num_rows
    two = [str(tmp_path / "year=2024" / "part.parquet"), lineitem]
    assert ringscan.scan(two, columns=["l_orderkey"]).to_arrow().num_rows == 2 * n
    r = ringscan.scan(str(tmp_path), columns=["l_orderkey", "year"], filter="year = 2025")
    t = r.to_arrow()
    assert t.num_rows == n and set(t["year"].to_pylist()) == {2025}
    assert t.schema.field("year").type == pa.int64()
    assert r.stats()["files_pruned"] == 1
    t2 = ringscan.scan(str(tmp_path / "**" / "*.parquet"), columns=["year"]).to_arrow()
    assert t2["year"].to_pylist() == [2024] * n + [2025] * n
    with pytest.raises(FileNotFoundError):
        ringscan.scan(str(tmp_path / "nothing" / "*.parquet"))


def test_dataset_or_of_partition_and_data_columns(tmp_path):
    """An OR of a partition column with a file's own column, as text and as an expression
    tree: decided per file (the partition's comparison folded), as DuckDB answers."""
    import duckdb
    for y in (2024, 2025):
        (tmp_path / f"year={y}").mkdir()
        pq.write_table(pa.table({"x": pa.array([y - 2024, 5, 9], pa.int64())}),
                       tmp_path / f"year={y}" / "f.parquet")
    want = duckdb.sql(f"select x, year from read_parquet('{tmp_path}/**/*.parquet', "
                      "hive_partitioning=true) where year = 2025 or x > 6 order by year, x").fetchall()
    assert want == [(9, 2024), (1, 2025), (5, 2025), (9, 2025)]
    for f in ("year = 2025 OR x > 6", (ringscan.col("year") == 2025) | (ringscan.col("x") > 6)):
        t = ringscan.scan(str(tmp_path), filter=f).to_arrow()
        assert list(zip(t["x"].to_pylist(), t["year"].to_pylist())) == want
        assert ringscan.count_rows(str(tmp_path), filter=f) == len(want)
    assert ringscan.live_objects() == 0


def test_count_rows_equals_pyarrow(lineitem, tmp_path):
    import shutil
    import pyarrow.dataset as pads
    import pyarrow.compute as pc
    for y in (2024, 2025):
        (tmp_path / f"year={y}").mkdir()
        shutil.copy(lineitem, tmp_path / f"year={y}" / "part.parquet")
    n = pq.ParquetFile(lineitem).metadata.num_rows
    assert ringscan.count_rows(lineitem) == n
    want = pads.dataset(lineitem).count_rows(filter=pc.field("l_linenumber") > 5)
    assert ringscan.count_rows(lineitem, filter="l_linenumber > 5") == want
    assert ringscan.count_rows(lineitem, filter=ringscan.col("l_linenumber") > 5) == want
    assert ringscan.count_rows(str(tmp_path)) == 2 * n
    assert ringscan.count_rows(str(tmp_path), filter="year = 2025 AND l_linenumber > 5") == want
    assert ringscan.count_rows([lineitem, str(tmp_path / "year=2024" / "part.parquet")], limit=n + 5) == n + 5
    with pytest.raises(ringscan.ParseError):
        ringscan.count_rows(lineitem, filter="l_quantity >")
    assert ringscan.live_objects() == 0


def test_dictionary_columns(lineitem):
    t = ringscan.scan(lineitem, columns=["l_shipmode"], dictionary_columns=["l_shipmode"]).to_arrow()
    assert pa.types.is_dictionary(t.schema.field("l_shipmode").type)
    want = pq.read_table(lineitem, columns=["l_shipmode"])["l_shipmode"].to_pylist()
    assert t["l_shipmode"].to_pylist() == want


@pytest.mark.parametrize("name", manifest("nested"))
def test_nested_files_equal_pyarrow(name):
    path = str(DATA / name)
    if name in manifest("nested", reason="values: DuckDB"):  # pyarrow refuses the file
        got = ringscan.scan(path).to_arrow()
        want = [json.loads(l) for l in (EXPECTED / f"{name}.jsonl").read_text().splitlines()]
        assert jsonable(got.to_pylist()) == want
        return
    want = pq.read_table(path)
    got = ringscan.scan(path).to_arrow()
    assert got.column_names == want.column_names and got.num_rows == want.num_rows
    for c in want.column_names:
        assert got[c].type == want[c].type, f"{name}.{c}: {got[c].type} vs {want[c].type}"
        try:
            w, g = want[c].to_pylist(), got[c].to_pylist()
        except (OverflowError, ValueError):  # timestamps outside datetime's range
            w, g = want[c].cast(got[c].type, safe=False).combine_chunks(), got[c].combine_chunks()
            assert g.equals(w), f"{name}.{c}"
            continue
        assert g == w, f"{name}.{c}"



@pytest.mark.parametrize("order", ["k DESC NULLS FIRST, id DESC", "k ASC NULLS LAST, id"])
@pytest.mark.parametrize("n", [1, 3, 5, 8, 21])
def test_topk_null_map_key_as_duckdb(tmp_path, order, n):
    """ORDER BY ... LIMIT over a map whose key is OPTIONAL, exported as Arrow (the columns'
    form): DuckDB's rows, or refused as DuckDB refuses, when a row holding a null key is in the
    answer only (a split may keep one that other splits' rows beat: scan/topk.h invariant 4)."""
    from nullkey_craft import write_ranked
    path = str(tmp_path / "ranked.parquet")
    write_ranked(path)
    sql = f"SELECT * FROM '{path}' ORDER BY {order} LIMIT {n}"
    try:
        duckdb.sql(sql).fetchall()  # (first: its Arrow export words a null key its own way)
        want = duckdb.sql(sql).to_arrow_table()
    except duckdb.Error as e:
        assert "Map keys can not be NULL" in str(e)
        with pytest.raises((ringscan.RingscanError, OSError), match="holds a null key in map 'm'"):
            ringscan.scan(path, order_by=order, limit=n).to_arrow()
        return
    got = ringscan.scan(path, order_by=order, limit=n).to_arrow()
    assert got["id"].to_pylist() == want["id"].to_pylist()
    assert got["k"].to_pylist() == want["k"].to_pylist()
    assert [None if m is None else dict(m) for m in got["m"].to_pylist()] == \
           [None if m is None else dict(m) for m in want["m"].to_pylist()]

def test_dataset_stored_types_union_by_name(tmp_path):
    """A dataset's Arrow types come from the stored ARROW:schema of the first file that has
    each column (issue 23): with union_by_name a column only a later file has takes that
    file's (large_string, duration, a dictionary), and the files lacking it read nulls of
    that type; equal to pyarrow.dataset over pyarrow's unified schema."""
    import datetime as dt
    import pyarrow.dataset as pads
    t0 = dt.datetime(2024, 1, 1, 12)
    a = pa.table({"id": [1, 2], "ts": pa.array([t0, None], pa.timestamp("us", tz="Europe/Paris"))})
    b = pa.table({"id": [3, 4], "ts": pa.array([t0, t0], pa.timestamp("us", tz="Europe/Paris")),
                  "ls": pa.array(["x", None], pa.large_string()),
                  "dur": pa.array([5, None], pa.duration("s")),
                  "word": pa.array(["p", "q"]).dictionary_encode()})
    pq.write_table(a, tmp_path / "a.parquet")
    pq.write_table(b, tmp_path / "b.parquet")
    schema = pa.unify_schemas([pq.read_schema(tmp_path / f) for f in ("a.parquet", "b.parquet")])
    want = pads.dataset(str(tmp_path), schema=schema).to_table()
    got = ringscan.scan(str(tmp_path), union_by_name=True).to_arrow()
    assert got.schema.equals(want.schema), f"{got.schema}\n!=\n{want.schema}"
    assert got.schema.field("ls").type == pa.large_string()
    assert got.schema.field("dur").type == pa.duration("s")
    assert got.sort_by("id").to_pylist() == want.sort_by("id").to_pylist()
    # without union_by_name: the first file's columns, in its stored types
    first = ringscan.scan(str(tmp_path)).to_arrow()
    assert first.schema.field("ts").type == pa.timestamp("us", tz="Europe/Paris")
    assert first.column_names == ["id", "ts"]


def test_dataset_dictionary_columns(tmp_path):
    """dictionary_columns in a dataset scan: a string column and a hive partition column as
    dictionary arrays with pyarrow.dataset's values (read_dictionary for the data column); a
    name that is not a projected string column is refused."""
    import pyarrow.dataset as pads
    for k in ("eu", "us"):
        (tmp_path / f"region={k}").mkdir()
        pq.write_table(pa.table({"id": [1, 2, 3], "s": ["a", None, "b" + k]}),
                       tmp_path / f"region={k}" / "p.parquet")
    fmt = pads.ParquetFileFormat(read_options={"dictionary_columns": ["s"]})
    want = pads.dataset(str(tmp_path), format=fmt, partitioning="hive").to_table()
    got = ringscan.scan(str(tmp_path), dictionary_columns=["s", "region"]).to_arrow()
    assert got.schema.field("s").type == want.schema.field("s").type == pa.dictionary(pa.int32(), pa.string())
    assert got.schema.field("region").type == pa.dictionary(pa.int32(), pa.string())
    assert got.to_pylist() == want.to_pylist()
    one = ringscan.scan(str(tmp_path / "region=eu" / "p.parquet"), dictionary_columns=["s"]).to_arrow()
    assert one.schema.field("s").type == pa.dictionary(pa.int32(), pa.string())  # as read_dictionary
    with pytest.raises(Exception, match="dictionary_columns: 'id'"):
        ringscan.scan(str(tmp_path), dictionary_columns=["id"]).to_arrow()
