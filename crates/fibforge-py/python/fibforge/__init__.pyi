"""Longest-prefix-match tables: IPv4 and IPv6 prefixes mapped to any Python values, with
single lookups, radix-style queries, and batch lookups of whole columns (numpy integer
arrays, text columns parsed in Rust) with the GIL released.

pyasn-style use::

    import fibforge
    asndb = fibforge.Table.load("rib.tsv.gz", value="origin_as")
    asndb.lookup_prefix("8.8.8.8")             # ('8.8.8.0/24', 15169)
    ids, lengths = asndb.lookup_batch(df["ip"].to_numpy(), lengths=True, threads=4)
    df["asn"] = asndb.values_of(ids)            # None where no route matches
"""

import ipaddress
import os
from typing import Any, Iterator, List, Literal, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

Address = Union[str, int, ipaddress.IPv4Address, ipaddress.IPv6Address]
Network = Union[str, ipaddress.IPv4Network, ipaddress.IPv6Network]
Key = Union[Address, Network]
Route = Tuple[str, Any]
Column = Union[npt.NDArray[Any], Sequence[str], Sequence[int], Any]
#: Value ids as ``lookup_batch`` answers them, or any 1-D column of integers.
Ids = Union[npt.NDArray[np.integer[Any]], Sequence[int]]
PathLike = Union[str, os.PathLike[str]]

__version__: str
#: The value id batch lookups answer where no route matches (0xFFFFFFFF).
NO_ROUTE: int
#: The prefix length batch lookups answer where no route matches (255).
NO_LENGTH: int
#: The most distinct values one table holds (2**23).
MAX_VALUES: int

class Table:
    """A longest-prefix-match table mapping prefixes to Python values.

    ``Table(family="auto")`` holds IPv4 and IPv6 ("ipv4" or "ipv6": one family, whose tables
    also take int addresses). ``algo``: "poptrie" (default) or "bplus" (options as in
    ``fibforge bench --algo``). Values are any objects; equal hashable values of one type are
    stored once, and batch lookups answer value ids (``values[id]``). Errors in addresses
    and prefixes raise ValueError naming the input.

    Address texts, single and in columns alike: whitespace around the text is ignored
    (Unicode whitespace, as Rust's ``str.trim``: space, tab, newlines, U+00A0, U+3000, ...)
    and the rest must be exactly an address: a NUL anywhere, a zone id (``fe80::1%eth0``,
    also refused in an ``IPv6Address``), a prefix length, brackets or a leading zero are
    refused. A value's ``__hash__``, ``__eq__`` and ``__del__`` may use the table itself.

    >>> t = fibforge.Table()
    >>> t["10.0.0.0/8"] = "a"; t["10.1.0.0/16"] = {"asn": 64500}
    >>> t["10.1.2.3"], t.lookup_prefix("10.9.0.1"), "11.0.0.1" in t
    ({'asn': 64500}, ('10.0.0.0/8', 'a'), False)
    """

    def __init__(self, family: str = "auto", algo: str = "poptrie") -> None: ...
    @staticmethod
    def load(
        path: PathLike,
        family: str = "auto",
        algo: Optional[str] = None,
        value: Literal["next_hop", "origin_as"] = "next_hop",
        peer: Optional[str] = None,
        peer_as: Optional[int] = None,
        value_field: Optional[str] = None,
    ) -> Union["Table", "CompiledTable"]:
        """Loads a text table, CSV table, MaxMind DB or MRT dump (plain, gzip or bzip2; the
        format recognised by content, docs/reference/input-formats.md) into a Table (``algo``:
        "poptrie" when None), or an export file (``fibforge.export``, ``fibforge export``,
        recognised by its first bytes) into a read-only CompiledTable, without compiling:
        ``algo``, if given, must name the export's structure, ``family`` its family, and
        ``value`` says how to read its values ("origin_as": as ints); ``peer``/``peer_as`` do
        not apply. A truncated or damaged export raises ValueError naming the file.

        ``value="next_hop"``: each route's value is its next hop's text. ``value="origin_as"``:
        an int, a text table's last column (``{a,b}`` AS_SET origins: the first AS; ``-``: None).
        ``peer=`` (address) / ``peer_as=`` take one peer of a multi-peer MRT RIB; without them a
        multi-peer RIB is merged (the first route read for a prefix wins) with a UserWarning
        naming the peers. OSError when the file cannot be read, ValueError naming the line or
        byte offset when its content is malformed. ``path``: a str or ``os.PathLike``
        (TypeError for bytes: decode them with ``os.fsdecode``).

        CSV (GeoLite2 ``network,...`` blocks, ``start,end,...`` ranges as IP2Location and
        iplocation write them, with or without a header): the value is the column
        ``value_field`` names, else the first column after the network or range.
        MaxMind DB (``.mmdb``): the value is each network's record as Python objects (a dict),
        or the field ``value_field`` names by path (``"country.iso_code"``); with
        ``value="origin_as"``, ``autonomous_system_number`` as an int.
        """
    @staticmethod
    def from_arrays(
        prefixes: Any,
        values: Any,
        family: str = "auto",
        algo: str = "poptrie",
    ) -> "Table":
        """A table of the routes ``prefixes[i] -> values[i]`` built in one pass: two columns
        of equal length (lists, numpy or pyarrow arrays, pandas or Polars Series, such as two
        columns of a DataFrame); prefixes as str or ``ipaddress`` networks, values any
        objects (each distinct value stored once). A later duplicate prefix wins. ValueError
        naming the row for a bad prefix or one of a family the table leaves out, or for
        columns of different lengths.

        >>> t = Table.from_arrays(df["network"], df["asn"])
        """
    @property
    def family(self) -> str: ...
    @property
    def algo(self) -> str: ...
    @property
    def values(self) -> List[Any]:
        """The distinct values; index = value id."""
    @property
    def pending_reclaim_bytes(self) -> int:
        """Bytes retired by updates and not yet freed: they wait until every reader (the
        table's own, each batch thread while it runs) has reported a quiescent state, and go
        on a later update. Over the larger of 4 x the lookup structure and 64 MiB the first
        read warns (``ResourceWarning``, once per table): a reader is stuck online."""
    def insert(self, prefix: Network, value: Any) -> Any:
        """Inserts or replaces a route; the previous value or None."""
    def remove(self, prefix: Network) -> Any:
        """Withdraws a route; its value or None."""
    def lookup(self, key: Key) -> Any:
        """The value of the longest route matching an address (or covering a prefix: a text
        with a ``/``), or None."""
    def lookup_prefix(self, key: Key) -> Optional[Route]:
        """(matched prefix, value), or None. ``t.lookup_prefix("10.1.2.3") == ("10.1.0.0/16", 7)``"""
    def get(self, prefix: Network, default: Any = None) -> Any:
        """The value of exactly this prefix, or ``default``."""
    def covering(self, prefix: Network) -> List[Route]:
        """Routes covering ``prefix`` (itself included), shortest first."""
    def covered(self, prefix: Network) -> List[Route]:
        """Routes inside ``prefix`` (itself included), in address order."""
    def search_best(self, key: Key) -> Optional[Route]:
        """py-radix name of ``lookup_prefix``."""
    def search_exact(self, prefix: Network) -> Optional[Route]:
        """(prefix, value) of exactly this prefix, or None."""
    def search_covering(self, prefix: Network) -> List[Route]:
        """Routes covering ``prefix``, longest first (as py-radix)."""
    def search_covered(self, prefix: Network) -> List[Route]:
        """py-radix name of ``covered``."""
    def prefixes_of(self, value: Any) -> List[str]:
        """The prefixes whose value is ``value`` (pyasn's ``get_as_prefixes(asn)``), IPv4 then
        IPv6 in prefix order; values compare as the table stores them (``1``, ``1.0`` and
        ``True`` apart)."""
    def routes(self) -> List[Route]:
        """Every route, IPv4 first, in prefix order."""
    @overload
    def lookup_batch(
        self, addrs: Column, out: Optional[npt.NDArray[np.uint32]] = None, threads: int = 1,
        lengths: Literal[False] = False,
    ) -> npt.NDArray[np.uint32]: ...
    @overload
    def lookup_batch(
        self, addrs: Column, out: Optional[npt.NDArray[np.uint32]] = None, threads: int = 1, *,
        lengths: Literal[True],
    ) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]: ...
    def lookup_batch(self, addrs: Column, out: Any = None, threads: int = 1, lengths: bool = False) -> Any:
        """Value ids (NO_ROUTE where none matches) of a column, and with ``lengths=True`` the
        matched prefix lengths (NO_LENGTH where none matches), computed without the GIL.

        Columns: 1-D integer arrays of any dtype and byte order and lists of ints (IPv4
        addresses in every table, "auto" ones included, where a single ``lookup(int)`` asks
        for a single-family table; an IPv6 table refuses them), (n, 2) uint64 or (n, 16)
        uint8 arrays (IPv6), and text columns parsed in Rust (lists,
        numpy str_, bytes_ or object arrays, pandas Series, pyarrow arrays; IPv4 and IPv6 may
        mix), and Arrow columns: any object with ``__arrow_c_array__`` or
        ``__arrow_c_stream__`` (pyarrow arrays and chunked arrays, Polars Series, DuckDB
        results, nanoarrow) of type ``uint32`` (IPv4), ``string``, ``large_string``,
        ``string_view``, ``binary`` / ``large_binary`` / ``binary_view`` (4 or 16 bytes a row,
        network order) or ``fixed_size_binary[4]`` / ``[16]``. Arrow columns and numpy str_ /
        bytes_ arrays are read from their buffers without a copy; lists are joined in C.
        Missing rows (Arrow nulls, None, NaN, pandas NA) answer NO_ROUTE / NO_LENGTH;
        ``ipaddress`` addresses in a list are read as their text.
        ``out``: a uint32 array to fill instead of a new one. ValueError names a bad row.

        Each row is answered exactly as ``lookup`` answers that address (the same text rule,
        see the class): a numpy str_ / bytes_ row is the element numpy gives (its trailing
        NUL padding dropped; a NUL before other characters is refused), a bytes_ row is read
        as UTF-8, and a text with a ``/`` (a prefix to ``lookup``) is refused. A list of ints
        is IPv4 addresses; a list mixing ints and texts is a text column, and TypeError names
        its first item that is not a str. ``threads``: 1 to 1024 (the CLI's cap), else
        ValueError.

        >>> ids, lengths = t.lookup_batch(["10.1.2.3", "2001:db8::1"], lengths=True)
        """
    def values_of(self, ids: Ids, default: Any = None) -> npt.NDArray[np.object_]:
        """The values of value ids (an object array; ``default`` where the id is NO_ROUTE).
        ``ids``: as ``lookup_batch`` answers them (uint32), or any 1-D integers (a list of
        ints, an int64 array); TypeError for anything else, ValueError naming an id that is
        no value id of this table."""
    def lookup_values(self, addrs: Column, threads: int = 1, default: Any = None) -> npt.NDArray[np.object_]:
        """``values_of(lookup_batch(addrs))``."""
    def lookup_arrow(
        self, addrs: Any, fields: Union[str, Sequence[str], None] = None, threads: int = 1,
    ) -> "ArrowColumn":
        """Typed Arrow answers of an Arrow column of addresses (the Arrow columns
        ``lookup_batch`` takes, read without a copy), computed without the GIL.

        ``fields``: names among ``"id"`` (value ids, ``uint32``), ``"length"`` (matched
        prefix lengths, ``uint8``), ``"prefix"`` (the matched prefix as text, ``string``) and
        ``"value"`` (default ``("prefix", "value")``): a sequence gives a struct array of
        them, one name a plain array. Values are ``int64`` when every value of the table is
        an int, ``float64`` when every one is a float, ``string`` when every one is a str,
        else the ``str()`` of each as ``string`` (None values are nulls; ``arrow_value_type``
        says which). A row with no route, null rows included, is null in every field.

        >>> pa.array(t.lookup_arrow(pa.array(["10.1.2.3", None])))
        """
    @property
    def arrow_value_type(self) -> Literal["int64", "float64", "string"]:
        """The Arrow type ``lookup_arrow`` gives the values now."""
    def __getitem__(self, key: Key) -> Any:
        """Like ``lookup``, but KeyError where no route matches."""
    def __setitem__(self, prefix: Network, value: Any) -> None: ...
    def __delitem__(self, prefix: Network) -> None:
        """Removes exactly this prefix; KeyError when absent."""
    def __contains__(self, key: Key) -> bool:
        """True when a route matches the address (or covers the prefix)."""
    def __iter__(self) -> Iterator[Route]: ...
    def __len__(self) -> int: ...

class ArrowColumn:
    """``Table.lookup_arrow``'s answers: an Arrow array exported through the Arrow
    PyCapsule interface, so that ``pyarrow.array(c)``, ``polars.Series(c)`` and
    ``nanoarrow.c_array(c)`` take it without a copy."""
    @property
    def type(self) -> str:
        """The Arrow type, as Arrow writes it."""
    def __arrow_c_schema__(self) -> Any: ...
    def __arrow_c_array__(self, requested_schema: Any = None) -> Tuple[Any, Any]: ...
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...
    def __len__(self) -> int: ...

class CompiledTable:
    """A read-only table loaded from an export file by ``Table.load``: a compiled structure
    ("sail_l", "poptrie" or "bloomfwd") of one family and its values, with no compile at
    start-up (``docs/lab/export.md`` has the timings) and no routes.

    It answers longest-match lookups of addresses exactly as the table it was exported from:
    ``lookup``, ``t[addr]``, ``addr in t``, ``lookup_batch`` (value ids; no ``lengths``: the
    structure stores no prefix lengths), ``values_of``, ``lookup_values``. Everything that
    needs the routes raises TypeError ("... loaded from a compiled poptrie export (path),
    which is read-only and holds no prefixes"): ``insert``, ``remove``, item assignment and
    deletion, prefix keys, ``lookup_prefix``, ``get``, ``covering``, ``covered``, the
    ``search_*`` methods, ``routes``, iteration, ``lookup_batch(lengths=True)`` and
    pickling (pass the path to workers and load it there). ``len(t)`` is the number of
    routes the structure was compiled from (OverflowError saying so when the header claims
    2**63 or more: ``repr`` shows it).

    >>> fibforge.export("rib.tsv.gz", "rib.poptrie", algo="poptrie", family="ipv4")
    >>> t = fibforge.Table.load("rib.poptrie")      # no compile
    >>> t.lookup("8.8.8.8"), t.lookup_values(df["ip"])
    """

    @property
    def family(self) -> str:
        """"ipv4" or "ipv6"."""
    @property
    def algo(self) -> str:
        """"sail_l", "poptrie" or "bloomfwd"."""
    @property
    def values(self) -> List[Any]:
        """The file's values; index = value id."""
    def lookup(self, key: Address) -> Any:
        """The value of the longest route matching an address, or None."""
    def lookup_batch(
        self, addrs: Column, out: Optional[npt.NDArray[np.uint32]] = None, threads: int = 1,
        lengths: Literal[False] = False,
    ) -> npt.NDArray[np.uint32]:
        """Value ids (NO_ROUTE where none matches), as ``Table.lookup_batch``."""
    def values_of(self, ids: Ids, default: Any = None) -> npt.NDArray[np.object_]: ...
    def lookup_values(self, addrs: Column, threads: int = 1, default: Any = None) -> npt.NDArray[np.object_]: ...
    def __getitem__(self, key: Address) -> Any:
        """Like ``lookup``, but KeyError where no route matches."""
    def __contains__(self, key: Address) -> bool: ...
    def __len__(self) -> int: ...

def export(
    path: PathLike,
    out: PathLike,
    algo: str = "poptrie",
    family: str = "auto",
    value: Literal["next_hop", "origin_as"] = "next_hop",
    peer: Optional[str] = None,
    peer_as: Optional[int] = None,
) -> None:
    """Compiles the table at ``path`` (read as ``Table.load`` reads it) with ``algo``
    ("sail_l", "poptrie" or "bloomfwd", options as in ``fibforge bench --algo``) and writes
    the structure of one family (``family``: "ipv4" or "ipv6", needed when the table has
    both) with the values of ``value`` to ``out``, in the format of ``fibforge export``
    (``docs/reference/export-format.md``). ``Table.load(out, value=value)`` reads it back as a
    CompiledTable. ValueError for a bad argument or table, OSError when a file cannot be
    read or written.
    """
