"""Longest-prefix-match tables: IPv4 and IPv6 prefixes mapped to any Python values (the
compiled extension ``fibforge.fibforge``, re-exported here; types and examples in
``__init__.pyi``). ``fibforge.dask`` annotates Dask DataFrames."""

from .fibforge import *  # noqa: F401,F403
from .fibforge import _rebuild  # noqa: F401  (unpickling looks it up here)
from . import fibforge as _ext

__doc__ = _ext.__doc__
__version__ = _ext.__version__
