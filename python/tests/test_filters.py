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
