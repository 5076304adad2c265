"""DuckDB: ``fibforge.duckdb.register(con, "asn", table)`` makes ``asn(ip)`` a vectorised
SQL function (Arrow in, Arrow out: ``Table.lookup_arrow`` on DuckDB's own vectors).

    >>> import duckdb, fibforge, fibforge.duckdb
    >>> con = duckdb.connect()
    >>> fibforge.duckdb.register(con, "asn", fibforge.Table.load("rib.tsv.gz", value="origin_as"))
    >>> con.sql("SELECT ip, asn(ip) FROM 'flows.parquet'")

``field`` chooses what the function returns: ``"value"`` (default; BIGINT, DOUBLE or
VARCHAR as ``Table.arrow_value_type`` says), ``"prefix"`` (VARCHAR), ``"length"``
(UTINYINT) or ``"id"`` (UINTEGER). ``input``: the SQL type of the argument, ``"VARCHAR"``
(address texts, default) or ``"UINTEGER"`` (IPv4 integers). NULL where no route matches.
DuckDB's Arrow functions need pyarrow.
"""

from typing import Any

import duckdb
import pyarrow as pa

_SQL = {"int64": "BIGINT", "float64": "DOUBLE", "string": "VARCHAR"}
_FIXED = {"id": "UINTEGER", "length": "UTINYINT", "prefix": "VARCHAR"}


def register(
    con: "duckdb.DuckDBPyConnection", name: str, table: Any, field: str = "value",
    input: str = "VARCHAR", threads: int = 1,
) -> None:
    """Registers ``name(ip)`` on ``con`` (see the module)."""
    if field == "value":
        out = _SQL[table.arrow_value_type]
    elif field in _FIXED:
        out = _FIXED[field]
    else:
        raise ValueError(f"field must be 'value', 'prefix', 'length' or 'id', not {field!r}")

    def answer(ips: Any) -> Any:
        return pa.array(table.lookup_arrow(ips, fields=field, threads=threads))

    con.create_function(
        name, answer, [duckdb.sqltype(input)], duckdb.sqltype(out), type="arrow",
        null_handling="special", side_effects=False,
    )
