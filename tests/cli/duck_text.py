"""tests/cli/duck_text.py: what the dataset tests compare ringscan's CSV with DuckDB's rows
by: a DuckDB value as ringscan's CSV prints it, the rows of a CSV text, a query's rows."""
import csv
import datetime
import decimal
import io


def text(v):
    """DuckDB's value as ringscan's CSV prints it."""
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (decimal.Decimal, datetime.date, int)):
        return str(v)
    s = str(v)
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def csv_rows(out):
    """The rows of CSV text out, its header left out."""
    rows = list(csv.reader(io.StringIO(out)))
    return rows[1:] if rows else []


def duck_rows(con, source, cols, where=None, order=None, limit=None):
    """SELECT cols FROM source [WHERE] [ORDER BY] [LIMIT] in DuckDB, each value as text()."""
    sql = f"SELECT {', '.join(cols)} FROM {source}"
    if where:
        sql += f" WHERE {where}"
    if order:
        sql += f" ORDER BY {order}"
    if limit is not None:
        sql += f" LIMIT {limit}"
    return [[text(v) for v in r] for r in con.execute(sql).fetchall()]
