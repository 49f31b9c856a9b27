"""Filters as expressions, built the way Polars and pyarrow.compute users write them:

    from ringscan import col
    f = (col("l_quantity") > 49) & col("l_shipmode").isin(["AIR", "MAIL"])

An expression is a small Python tree; scan() turns it into the library's tree
(ringscan_expr_*), which is typed by the same code as the SQL text and means the same. str(e)
prints it as that SQL text. & | ~ are AND, OR, NOT (Python's `and`/`or` cannot be overloaded).
"""
import datetime
import decimal

from ._ffi import ffi, lib

_EPOCH = datetime.date(1970, 1, 1)


class Expr:
    __slots__ = ("op", "args")
    __hash__ = None  # == builds an expression

    def __init__(self, op, args):
        self.op, self.args = op, tuple(args)

    # comparisons and logic
    def __eq__(self, o): return Expr("EQ", (self, _wrap(o)))
    def __ne__(self, o): return Expr("NE", (self, _wrap(o)))
    def __lt__(self, o): return Expr("LT", (self, _wrap(o)))
    def __le__(self, o): return Expr("LE", (self, _wrap(o)))
    def __gt__(self, o): return Expr("GT", (self, _wrap(o)))
    def __ge__(self, o): return Expr("GE", (self, _wrap(o)))
    def __and__(self, o): return Expr("AND", (self, _wrap(o)))
    def __rand__(self, o): return Expr("AND", (_wrap(o), self))
    def __or__(self, o): return Expr("OR", (self, _wrap(o)))
    def __ror__(self, o): return Expr("OR", (_wrap(o), self))
    def __invert__(self): return Expr("NOT", (self,))

    def __bool__(self):
        raise TypeError("an expression has no truth value: use & | ~ instead of and/or/not")

    # arithmetic
    def __add__(self, o): return Expr("ADD", (self, _wrap(o)))
    def __radd__(self, o): return Expr("ADD", (_wrap(o), self))
    def __sub__(self, o): return Expr("SUB", (self, _wrap(o)))
    def __rsub__(self, o): return Expr("SUB", (_wrap(o), self))
    def __mul__(self, o): return Expr("MUL", (self, _wrap(o)))
    def __rmul__(self, o): return Expr("MUL", (_wrap(o), self))
    def __truediv__(self, o): return Expr("DIV", (self, _wrap(o)))
    def __rtruediv__(self, o): return Expr("DIV", (_wrap(o), self))
    def __neg__(self): return Expr("NEG", (self,))

    # predicates and functions
    def isin(self, values): return Expr("IN", (self, *(_wrap(v) for v in values)))
    def between(self, low, high): return Expr("BETWEEN", (self, _wrap(low), _wrap(high)))
    def is_null(self): return Expr("IS_NULL", (self,))
    def is_not_null(self): return Expr("IS_NOT_NULL", (self,))
    def is_distinct_from(self, v): return Expr("IS_DISTINCT_FROM", (self, _wrap(v)))
    def is_not_distinct_from(self, v): return Expr("IS_NOT_DISTINCT_FROM", (self, _wrap(v)))
    def like(self, pattern): return Expr("LIKE", (self, _wrap(pattern)))
    def ilike(self, pattern): return Expr("ILIKE", (self, _wrap(pattern)))
    def starts_with(self, prefix): return Expr("STARTS_WITH", (self, _wrap(prefix)))
    def cast(self, type_name): return Expr("CAST", (self, Expr("str", (type_name,))))
    def year(self): return Expr("YEAR", (self,))
    def month(self): return Expr("MONTH", (self,))
    def day(self): return Expr("DAY", (self,))
    def quarter(self): return Expr("QUARTER", (self,))

    def __repr__(self):
        return f"<ringscan.Expr {self}>"

    def __str__(self):
        return _sql(self)

    def _build(self):
        """A new library tree (the caller frees it with lib.ringscan_expr_free); None when out
        of memory."""
        p = _leaf(self)
        if p is not None:
            return p
        if self.op == "CAST":
            kids = [self.args[0]._build(), lib.ringscan_expr_string(
                self.args[1].args[0].encode(), len(self.args[1].args[0].encode()))]
        else:
            kids = []
            try:
                for a in self.args:
                    kids.append(a._build())
            except BaseException:  # a literal of no type (or an interrupt): free what was built
                for k in kids:
                    lib.ringscan_expr_free(k if k is not None else ffi.NULL)
                raise
        arr = ffi.new("ringscan_expr *[]", kids)
        op = getattr(lib, "RINGSCAN_EXPR_" + self.op)
        r = lib.ringscan_expr_call(op, len(kids), arr)  # owns kids, even on failure
        return None if r == ffi.NULL else r


def col(name):
    """The column called name (a top-level column)."""
    if not isinstance(name, str):
        raise TypeError(f"ringscan.col: a column name is a str, not {type(name).__name__}")
    return Expr("col", (name,))


def lit(value):
    """A literal: int, float, str, bool, None (SQL NULL), datetime.date, datetime.datetime
    (naive: UTC), decimal.Decimal (exact)."""
    return Expr("lit", (value,))


def _wrap(v):
    return v if isinstance(v, Expr) else lit(v)


def _leaf(e):
    if e.op == "col":
        return lib.ringscan_expr_column(e.args[0].encode())
    if e.op != "lit":
        return None
    v = e.args[0]
    if v is None:
        return lib.ringscan_expr_null()
    if isinstance(v, bool):
        return lib.ringscan_expr_bool(v)
    if isinstance(v, int):  # past int64 (a UINT64 column's upper half): the exact digits
        if -2**63 <= v < 2**63:
            return lib.ringscan_expr_int(v)
        return lib.ringscan_expr_decimal(str(v).encode())
    if isinstance(v, float):
        return lib.ringscan_expr_double(v)
    if isinstance(v, str):
        b = v.encode()
        return lib.ringscan_expr_string(b, len(b))
    if isinstance(v, decimal.Decimal):
        return lib.ringscan_expr_decimal(str(v).encode())
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        us = (v - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)
        return lib.ringscan_expr_timestamp_us(us)
    if isinstance(v, datetime.date):
        return lib.ringscan_expr_date((v - _EPOCH).days)
    raise TypeError(f"ringscan: no literal of type {type(v).__name__}")


_INFIX = {"EQ": "=", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">=", "AND": "AND",
          "OR": "OR", "ADD": "+", "SUB": "-", "MUL": "*", "DIV": "/", "LIKE": "LIKE",
          "ILIKE": "ILIKE", "IS_DISTINCT_FROM": "IS DISTINCT FROM",
          "IS_NOT_DISTINCT_FROM": "IS NOT DISTINCT FROM"}


def _sql(e):
    a = e.args
    if e.op == "col":
        return '"' + a[0].replace('"', '""') + '"'
    if e.op == "lit":
        v = a[0]
        if v is None:
            return "NULL"
        if isinstance(v, bool):
            return "TRUE" if v else "FALSE"
        if isinstance(v, str):
            return "'" + v.replace("'", "''") + "'"
        if isinstance(v, datetime.datetime):
            return f"TIMESTAMP '{v.isoformat(sep=' ')}'"
        if isinstance(v, datetime.date):
            return f"DATE '{v.isoformat()}'"
        return str(v)
    if e.op in _INFIX:
        return f"({_sql(a[0])} {_INFIX[e.op]} {_sql(a[1])})"
    if e.op == "NOT":
        return f"(NOT {_sql(a[0])})"
    if e.op == "NEG":
        return f"(-{_sql(a[0])})"
    if e.op == "IN":
        return f"({_sql(a[0])} IN ({', '.join(_sql(x) for x in a[1:])}))"
    if e.op == "BETWEEN":
        return f"({_sql(a[0])} BETWEEN {_sql(a[1])} AND {_sql(a[2])})"
    if e.op in ("IS_NULL", "IS_NOT_NULL"):
        return f"({_sql(a[0])} {e.op.replace('_', ' ')})"
    if e.op == "STARTS_WITH":
        return f"starts_with({_sql(a[0])}, {_sql(a[1])})"
    if e.op == "CAST":
        return f"CAST({_sql(a[0])} AS {a[1].args[0]})"
    return f"{e.op.lower()}({_sql(a[0])})"
