"""Filters as SQL text and as expressions: the same rows as pyarrow's own filtering."""
import datetime
import decimal

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import ringscan
from ringscan import col

CASES = [
    ("l_quantity > 49", col("l_quantity") > 49,
     lambda t: pc.greater(t["l_quantity"], 49)),
    ("l_shipmode IN ('AIR', 'MAIL') AND l_linenumber <= 2",
     col("l_shipmode").isin(["AIR", "MAIL"]) & (col("l_linenumber") <= 2),
     lambda t: pc.and_(pc.is_in(t["l_shipmode"], value_set=__import__("pyarrow").array(["AIR", "MAIL"])),
                       pc.less_equal(t["l_linenumber"], 2))),
    ("l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31' OR l_discount = 0.1",
     col("l_shipdate").between(datetime.date(1995, 1, 1), datetime.date(1995, 1, 31))
     | (col("l_discount") == decimal.Decimal("0.1")),
     lambda t: pc.or_(pc.and_(pc.greater_equal(t["l_shipdate"], datetime.date(1995, 1, 1)),
                              pc.less_equal(t["l_shipdate"], datetime.date(1995, 1, 31))),
                      pc.equal(t["l_discount"], decimal.Decimal("0.1")))),
    ("NOT (l_comment LIKE '%fast%')", ~col("l_comment").like("%fast%"),
     lambda t: pc.invert(pc.match_like(t["l_comment"], "%fast%"))),
    ("l_extendedprice * (1 - l_discount) > 90000",
     col("l_extendedprice") * (1 - col("l_discount")) > 90000,
     lambda t: pc.greater(pc.multiply(pc.cast(t["l_extendedprice"], "float64"),
                                      pc.subtract(1, pc.cast(t["l_discount"], "float64"))), 90000)),
]


@pytest.mark.parametrize("sql,expr,oracle", CASES, ids=[c[0] for c in CASES])
def test_text_and_expression_agree_with_pyarrow(lineitem, sql, expr, oracle):
    t = pq.read_table(lineitem)
    want = t.filter(oracle(t))["l_orderkey"].to_pylist()
    for f in (sql, expr):
        got = ringscan.scan(lineitem, columns=["l_orderkey"], filter=f).to_arrow()
        assert got["l_orderkey"].to_pylist() == want, f"filter {f}"


def test_expression_prints_as_sql():
    e = (col("a") > 5) & ~col("b").isin(["x", "y's"]) | col("c").is_null()
    assert str(e) == "((\"a\" > 5) AND (NOT (\"b\" IN ('x', 'y''s')))) OR (\"c\" IS NULL)" or \
        str(e) == "(((\"a\" > 5) AND (NOT (\"b\" IN ('x', 'y''s')))) OR (\"c\" IS NULL))"
    with pytest.raises(TypeError):
        bool(col("a") > 1)


def test_nan_and_infinite_doubles(tmp_path):
    """A Python NaN or infinity is a literal as DuckDB reads 'nan' and 'inf': NaN equals NaN
    and sorts above every number (it was "invalid number 'nan'")."""
    import duckdb
    import pyarrow as pa
    path = str(tmp_path / "d.parquet")
    nan, inf = float("nan"), float("inf")
    pq.write_table(pa.table({"d": pa.array([1.0, nan, inf, -inf, None, 7.5]),
                             "f": pa.array([1.0, nan, inf, -inf, None, 7.5], pa.float32()),
                             "i": pa.array([1, 2, None, 4, 5, 6], pa.int64())}), path)
    for c in ("d", "f", "i"):
        for op, e, sql in ((">", col(c) > -inf, "> '-inf'"), ("=", col(c) == nan, "= 'nan'"),
                           ("<", col(c) < nan, "< 'nan'"), ("=", col(c) == inf, "= 'inf'"),
                           ("in", col(c).isin([nan, 7.5]), "IN ('nan', 7.5)")):
            if c == "i":  # (a double beside an integer: DuckDB compares in doubles)
                sql = sql.replace("'nan'", "'nan'::DOUBLE").replace("'inf'", "'inf'::DOUBLE").replace(
                    "'-inf'", "'-inf'::DOUBLE")
            rel = duckdb.from_arrow(pq.read_table(path))  # (its read_parquet drops FLOAT NaN)
            want = [r[0] for r in rel.filter(f"{c} {sql}").project(c).fetchall()]
            got = ringscan.scan(path, filter=e).to_arrow()[c].to_pylist()
            assert [str(x) for x in got] == [str(x) for x in want], f"{c} {op}: {got} {want}"


def test_float_literal_against_float_column(tmp_path):
    """A Python float is a double (as DuckDB binds one): against a FLOAT column it compares in
    doubles, as pyarrow does, while SQL text's 0.1 is cast to FLOAT first (DuckDB's typing)."""
    import pyarrow as pa
    path = str(tmp_path / "f.parquet")
    pq.write_table(pa.table({"f": pa.array([0.1, 0.2, 1 / 7], pa.float32())}), path)
    t = pq.read_table(path)
    for v in (0.1, 1 / 7):
        want = t.filter(pc.greater(t["f"], v))["f"].to_pylist()
        got = ringscan.scan(path, filter=col("f") > v).to_arrow()["f"].to_pylist()
        assert got == want, f"f > {v}"
    sql = ringscan.scan(path, filter="f = 0.14285715").to_arrow()["f"].to_pylist()
    assert sql == [pytest.approx(1 / 7)]  # the value a FLOAT prints as finds it
    assert ringscan.scan(path, filter="f > 0.1").to_arrow()["f"].to_pylist() == t["f"].to_pylist()[1:]
