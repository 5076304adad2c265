"""Annotating Dask DataFrames: a column of IP addresses to the table's values and the matched
prefix lengths, partition by partition on the workers (``map_partitions``).

The table travels to the workers once, not once per partition: with a ``distributed`` client
it is scattered to every worker (``client.scatter(table, broadcast=True)``) and each partition
task takes the future (the scheduler's active memory manager may later drop idle replicas;
a worker that needs the table again fetches it from one that holds it); without one it
becomes one ``dask.delayed`` object of the graph, which the local schedulers share by
reference. A table pickles as its routes in compact form and its values
(``Table.__reduce__``), so shipping it costs about its routes' size.

>>> import dask.dataframe as dd, fibforge, fibforge.dask
>>> asndb = fibforge.Table.load("rib.mrt.gz", value="origin_as")
>>> flows = dd.read_parquet("flows/")
>>> flows = fibforge.dask.annotate(flows, "dst", asndb, value="dst_as", prefix_len="dst_len")
>>> flows.groupby("dst_as").bytes.sum().compute()

Requires ``dask[dataframe]`` (``pip install fibforge[dask]`` adds ``distributed`` and
``pyarrow``); importing this module without dask raises ImportError naming what to install.
"""

from typing import Any, Optional

try:
    import dask
    import dask.dataframe  # noqa: F401  (map_partitions needs the dataframe extra)
except ImportError as error:  # pragma: no cover - exercised only without dask
    raise ImportError(
        "fibforge.dask needs dask with its dataframe extra: pip install 'dask[dataframe]' "
        "(or pip install 'fibforge[dask]')"
    ) from error

import numpy as np
import pandas as pd

from . import Table

__all__ = ["annotate", "annotate_partition"]


def annotate_partition(
    df: pd.DataFrame,
    table: Table,
    column: str,
    value: str = "value",
    prefix_len: Optional[str] = None,
    default: Any = None,
    threads: int = 1,
) -> pd.DataFrame:
    """One pandas partition annotated: a copy of ``df`` with a column ``value`` (the table's
    value for each address of ``df[column]``, ``default`` where no route matches) and, when
    ``prefix_len`` names one, a uint8 column of matched prefix lengths (``NO_LENGTH``, 255,
    where no route matches). Addresses: any column ``Table.lookup_batch`` takes (integers,
    text, pandas string and Arrow columns)."""
    if column not in df.columns:
        raise ValueError(f"no column {column!r} to annotate (columns: {list(df.columns)})")
    ids, lengths = table.lookup_batch(df[column], lengths=True, threads=threads)
    out = df.copy(deep=False)
    out[value] = pd.Series(table.values_of(ids, default), index=df.index, dtype=object)
    if prefix_len is not None:
        out[prefix_len] = pd.Series(lengths, index=df.index, dtype=np.uint8)
    return out


def _meta(ddf: Any, value: str, prefix_len: Optional[str]) -> pd.DataFrame:
    """The empty frame with the annotated columns' dtypes, for ``map_partitions``."""
    meta = ddf._meta.copy(deep=False)
    meta[value] = pd.Series([], dtype=object)
    if prefix_len is not None:
        meta[prefix_len] = pd.Series([], dtype=np.uint8)
    return meta


def _ship(table: Table, client: Any) -> Any:
    """The table as the workers should receive it: a broadcast future with a distributed
    client (given, or the current one), else one delayed object of the graph."""
    if client is None:
        try:
            from distributed import get_client

            client = get_client()
        except (ImportError, ValueError):
            client = None
    if client is not None:
        return client.scatter(table, broadcast=True, hash=False)
    return dask.delayed(table, pure=True)


def annotate(
    ddf: Any,
    column: str,
    table: Table,
    value: str = "value",
    prefix_len: Optional[str] = None,
    *,
    default: Any = None,
    threads: int = 1,
    client: Any = None,
) -> Any:
    """A Dask DataFrame with the columns of ``annotate_partition`` added, lazily.

    ``column``: the address column; ``value``: the name of the new value column (object
    dtype); ``prefix_len``: the name of a new uint8 column of matched prefix lengths (none
    when ``None``); ``default``: the value where no route matches; ``threads``: threads per
    partition lookup (each Dask worker thread already runs one partition); ``client``: the
    ``distributed`` client to scatter the table with (default: the current one, if any).
    """
    if column not in ddf.columns:
        raise ValueError(f"no column {column!r} to annotate (columns: {list(ddf.columns)})")
    shipped = _ship(table, client)
    return ddf.map_partitions(
        annotate_partition,
        shipped,
        column,
        value,
        prefix_len,
        default,
        threads,
        meta=_meta(ddf, value, prefix_len),
    )
