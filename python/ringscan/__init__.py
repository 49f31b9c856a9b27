"""ringscan: Parquet scans planned around the query, from Python.

    import ringscan, pyarrow as pa
    r = ringscan.scan("li.parquet", columns=["l_orderkey"], filter="l_quantity > 49")
    t = pa.table(r)                 # or polars.from_arrow(r), duckdb.sql("FROM r")
    r.stats()["bytes_read"]

A Reader implements the Arrow PyCapsule interface, so every Arrow consumer takes its batches
without a copy. See scan(), metadata() and col() (filters as expressions).
"""
from ._ffi import (FormatError, InvalidArgument, NotFound, ParseError, RingscanError,
                   Unsupported, version as __version__)
from ._reader import Reader, count_rows, metadata, plan_row_groups, scan
from .expr import Expr, col, lit


def live_objects():
    """Files and scans the library holds right now (a leak check: 0 when nothing is open)."""
    from ._ffi import lib
    return lib.ringscan_live_objects()


def release_memory():
    """Frees the buffers the library keeps between scans: reads (up to 128 MiB) and decode
    buffers (up to 64 MiB, freed only while no scan runs)."""
    from ._ffi import lib
    lib.ringscan_release_memory()


__all__ = ["release_memory", "scan", "count_rows", "metadata", "plan_row_groups", "Reader", "col", "lit", "Expr", "RingscanError", "ParseError",
           "InvalidArgument", "FormatError", "Unsupported", "NotFound", "live_objects"]
