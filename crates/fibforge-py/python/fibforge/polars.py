"""Polars: ``import fibforge.polars`` registers the expression namespace ``fibforge``.

    >>> import polars as pl, fibforge, fibforge.polars
    >>> t = fibforge.Table.load("rib.tsv.gz", value="origin_as")
    >>> df.with_columns(pl.col("ip").fibforge.lookup(t).alias("route"))

``lookup(table, fields=("prefix", "value"), threads=1)`` gives a struct of the fields (one
name: that column alone), computed by ``Table.lookup_arrow`` on the column's own Arrow
buffers: ``string`` / ``string_view`` texts, ``uint32`` IPv4 integers, 4- or 16-byte
``binary``. Rows with no route (null rows included) are null.
"""

from typing import Any, Sequence, Union

import polars as pl

_ARROW_TO_POLARS = {"int64": pl.Int64, "float64": pl.Float64, "string": pl.String}
_FIXED = {"id": pl.UInt32, "length": pl.UInt8, "prefix": pl.String}


def _dtype(table: Any, fields: Union[str, Sequence[str]]) -> Any:
    def one(name: str) -> Any:
        if name == "value":
            return _ARROW_TO_POLARS[table.arrow_value_type]
        return _FIXED[name]

    if isinstance(fields, str):
        return one(fields)
    return pl.Struct({name: one(name) for name in fields})


def lookup_series(
    table: Any, s: pl.Series, fields: Union[str, Sequence[str]] = ("prefix", "value"), threads: int = 1,
) -> pl.Series:
    """``Table.lookup_arrow`` of a Series, as a Series of the same name."""
    return pl.Series(s.name, table.lookup_arrow(s, fields=fields, threads=threads))


@pl.api.register_expr_namespace("fibforge")
class FibforgeExpr:
    """``pl.col(...).fibforge``: longest-prefix-match lookups of address columns."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def lookup(
        self, table: Any, fields: Union[str, Sequence[str]] = ("prefix", "value"), threads: int = 1,
    ) -> pl.Expr:
        """The matched routes of the addresses, as a struct of ``fields`` (see the module)."""
        fields = fields if isinstance(fields, str) else tuple(fields)
        return self._expr.map_batches(
            lambda s: lookup_series(table, s, fields, threads),
            return_dtype=_dtype(table, fields),
        )


@pl.api.register_series_namespace("fibforge")
class FibforgeSeries:
    """``series.fibforge``: as the expression namespace, on a Series."""

    def __init__(self, s: pl.Series) -> None:
        self._s = s

    def lookup(
        self, table: Any, fields: Union[str, Sequence[str]] = ("prefix", "value"), threads: int = 1,
    ) -> pl.Series:
        """The matched routes of the addresses, as a struct of ``fields``."""
        return lookup_series(table, self._s, fields, threads)
