//! `fibforge.Table`: a routing table of IPv4, IPv6 or both families (Poptrie, or the
//! interval B+-tree with `algo="bplus"`) mapping prefixes to Python values, with single and
//! numpy batch lookups, radix-style queries, updates, and pickling.
//!
//! The structures hold [`values::encode`]d next hops (value id and prefix length); the
//! values themselves live in [`Values`], shared by both families, which never runs Python
//! code under a lock (a value's `__hash__` may use the table: issue 56). Loading a file
//! lives in [`crate::load`].

pub use crate::algos::{DEFAULT_ALGO, structures};
use crate::batch::{self, Sides};
use crate::convert::{self, Addr, Key, Mode};
use crate::ids;
use crate::side::{Lookups, Side};
use crate::state;
use crate::values::{self, Values};
use fibforge::sync::AnyKey;
use fibforge::{Address, AnyPrefix, BuildError, NextHop, Prefix, Rib};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

/// A longest-prefix-match table mapping IPv4 and IPv6 prefixes to Python values.
///
/// See `python/fibforge/__init__.pyi` for the full documentation with examples.
#[pyclass(frozen, module = "fibforge", name = "Table")]
pub struct PyTable {
    mode: Mode,
    /// The `algo` text the table was made with (kept for `repr` and pickling).
    algo: String,
    v4: Option<Side<u32>>,
    v6: Option<Side<u128>>,
    values: Values,
    /// `pending_reclaim_bytes` has warned (once per table).
    warned_pending: std::sync::atomic::AtomicBool,
}

/// A route as Python sees it: (prefix text, value).
type Route<'py> = (String, Bound<'py, PyAny>);

impl PyTable {
    /// A table of `mode` from RIBs of encoded next hops in the structure `algo` names (a
    /// family the mode excludes is dropped). Call [`structures`] first to check `algo`
    /// before slow work.
    pub fn from_ribs(
        mode: Mode,
        algo: &str,
        v4: Rib<u32>,
        v6: Rib<u128>,
        values: Values,
    ) -> PyResult<Self> {
        let (s4, s6) = structures(mode, algo)?;
        let v4 = s4.map(|s| Side::new(v4, &s)).transpose().map_err(build_error)?;
        let v6 = s6.map(|s| Side::new(v6, &s)).transpose().map_err(build_error)?;
        let warned_pending = Default::default();
        Ok(PyTable { mode, algo: algo.to_string(), v4, v6, values, warned_pending })
    }

    fn v4(&self) -> PyResult<&Side<u32>> {
        self.v4.as_ref().ok_or_else(|| PyValueError::new_err("IPv4 given to an IPv6 table"))
    }

    fn v6(&self) -> PyResult<&Side<u128>> {
        self.v6.as_ref().ok_or_else(|| PyValueError::new_err("IPv6 given to an IPv4 table"))
    }

    /// The value of a stored next hop (None for none).
    fn value<'py>(
        &self,
        py: Python<'py>,
        hop: Option<NextHop>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        hop.map(|h| self.values.of_hop(py, h)).transpose()
    }

    /// The longest route matching `key` (an address, or the routes covering a prefix).
    fn best(&self, key: Key) -> PyResult<Option<(AnyPrefix, NextHop)>> {
        Ok(match key {
            Key::Addr(Addr::V4(a)) => {
                matched(a, self.v4()?.lookup(a)).map(|(p, h)| (AnyPrefix::V4(p), h))
            }
            Key::Addr(Addr::V6(a)) => {
                matched(a, self.v6()?.lookup(a)).map(|(p, h)| (AnyPrefix::V6(p), h))
            }
            Key::Prefix(AnyPrefix::V4(p)) => {
                self.v4()?.with_rib(|r| r.longest_covering(&p)).map(|(p, h)| (AnyPrefix::V4(p), h))
            }
            Key::Prefix(AnyPrefix::V6(p)) => {
                self.v6()?.with_rib(|r| r.longest_covering(&p)).map(|(p, h)| (AnyPrefix::V6(p), h))
            }
        })
    }

    /// Routes of the family of `prefix` chosen by `query` (covering or covered), as Python
    /// (prefix, value) pairs.
    fn around<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
        covering: bool,
    ) -> PyResult<Vec<Route<'py>>> {
        let routes: Vec<(AnyPrefix, NextHop)> = match convert::prefix(prefix)? {
            AnyPrefix::V4(p) => around(self.v4()?, &p, covering, AnyPrefix::V4),
            AnyPrefix::V6(p) => around(self.v6()?, &p, covering, AnyPrefix::V6),
        };
        self.to_python(py, routes)
    }

    fn to_python<'py>(
        &self,
        py: Python<'py>,
        routes: Vec<(AnyPrefix, NextHop)>,
    ) -> PyResult<Vec<Route<'py>>> {
        routes.into_iter().map(|(p, h)| Ok((p.to_string(), self.values.of_hop(py, h)?))).collect()
    }

    /// The values of value ids (`default` for NO_ROUTE), read from [`Values`] under one
    /// lock; the array is made after it is let go.
    fn objects_of<'py>(
        &self,
        py: Python<'py>,
        ids: &[u32],
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
        let default = default.map_or_else(|| py.None(), Bound::unbind);
        let found = self.values.get_many(py, ids);
        let objects = ids
            .iter()
            .zip(found)
            .enumerate()
            .map(|(i, (&id, value))| match value {
                Some(v) => Ok(v),
                None if id == values::NO_ROUTE => Ok(default.clone_ref(py)),
                None => Err(PyValueError::new_err(format!(
                    "ids[{i}]: {id} is not a value id of this table"
                ))),
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyArray1::from_vec(py, objects))
    }

    fn all_routes(&self) -> Vec<(AnyPrefix, NextHop)> {
        let v4 = self.v4.iter().flat_map(|s| s.routes()).map(|(p, h)| (AnyPrefix::V4(p), h));
        let v6 = self.v6.iter().flat_map(|s| s.routes()).map(|(p, h)| (AnyPrefix::V6(p), h));
        v4.chain(v6).collect()
    }

    fn sides(&self) -> Sides<'_> {
        let v4 = self.v4.as_ref().map(|s| s as &dyn Lookups<u32>);
        let v6 = self.v6.as_ref().map(|s| s as &dyn Lookups<u128>);
        Sides { v4, v6 }
    }
}

/// The prefix a lookup of `addr` matched, from the length inside its next hop.
fn matched<A: Address>(addr: A, hop: Option<NextHop>) -> Option<(Prefix<A>, NextHop)> {
    let hop = hop?;
    let prefix = Prefix::new_masked(addr, values::decode(hop).1).expect("stored lengths fit");
    Some((prefix, hop))
}

fn around<A: AnyKey>(
    side: &Side<A>,
    prefix: &Prefix<A>,
    covering: bool,
    wrap: fn(Prefix<A>) -> AnyPrefix,
) -> Vec<(AnyPrefix, NextHop)> {
    side.with_rib(|rib| {
        if covering {
            rib.covering(prefix).map(|(p, h)| (wrap(p), h)).collect()
        } else {
            rib.covered(prefix).map(|(p, h)| (wrap(p), h)).collect()
        }
    })
}

#[pymethods]
impl PyTable {
    #[new]
    #[pyo3(signature = (family = "auto", algo = DEFAULT_ALGO))]
    fn new(py: Python<'_>, family: &str, algo: &str) -> PyResult<Self> {
        let values = Values::new(py);
        PyTable::from_ribs(Mode::parse(family)?, algo, Rib::new(), Rib::new(), values)
    }

    /// Loads a text table or MRT dump, or an export file as a read-only `CompiledTable`
    /// (see `__init__.pyi`).
    #[staticmethod]
    #[pyo3(signature = (path, family = "auto", algo = None, value = "next_hop", peer = None, peer_as = None, value_field = None))]
    #[allow(clippy::too_many_arguments)]
    fn load(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        family: &str,
        algo: Option<&str>,
        value: &str,
        peer: Option<&str>,
        peer_as: Option<u32>,
        value_field: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let path = convert::path(path, "path")?;
        if crate::compiled::sniff(&path) {
            let peers = peer.is_some() || peer_as.is_some();
            let table = crate::compiled::load(py, &path, family, algo, value, peers)?;
            return Ok(Py::new(py, table)?.into_any());
        }
        let algo = algo.unwrap_or(DEFAULT_ALGO);
        let options = crate::load::Options::parse(family, algo, value, peer, peer_as, value_field)?;
        let (v4, v6, values) = crate::load::load(py, &path, &options)?;
        let table = py.detach(|| PyTable::from_ribs(options.mode(), algo, v4, v6, values))?;
        Ok(Py::new(py, table)?.into_any())
    }

    /// A table of the routes `prefixes[i] -> values[i]`, built in one pass (see
    /// `__init__.pyi`).
    #[staticmethod]
    #[pyo3(signature = (prefixes, values, family = "auto", algo = DEFAULT_ALGO))]
    fn from_arrays(
        py: Python<'_>,
        prefixes: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        family: &str,
        algo: &str,
    ) -> PyResult<Self> {
        let mode = Mode::parse(family)?;
        structures(mode, algo)?;
        let (v4, v6, values) = crate::bulk::ribs(py, prefixes, values, mode)?;
        py.detach(|| PyTable::from_ribs(mode, algo, v4, v6, values))
    }

    /// "ipv4", "ipv6" or "auto".
    #[getter]
    fn family(&self) -> &'static str {
        self.mode.name()
    }

    /// The lookup structure as given when the table was made.
    #[getter]
    fn algo(&self) -> &str {
        &self.algo
    }

    /// The distinct values, index = value id (as batch lookups answer).
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.values.to_list(py)
    }

    /// Inserts or replaces a route; the prefix's previous value or None.
    fn insert<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let prefix = convert::prefix(prefix)?;
        // Check the family before storing the value.
        match prefix {
            AnyPrefix::V4(_) => self.v4().map(drop)?,
            AnyPrefix::V6(_) => self.v6().map(drop)?,
        }
        let id = self.values.intern(value)?;
        let old = match prefix {
            AnyPrefix::V4(p) => self.v4()?.insert(p, values::encode(id, p.len())),
            AnyPrefix::V6(p) => self.v6()?.insert(p, values::encode(id, p.len())),
        };
        self.value(py, old.map_err(build_error)?)
    }

    /// Withdraws a route; its value, or None when there was no such route.
    fn remove<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let old = match convert::prefix(prefix)? {
            AnyPrefix::V4(p) => self.v4()?.remove(&p),
            AnyPrefix::V6(p) => self.v6()?.remove(&p),
        };
        self.value(py, old.map_err(build_error)?)
    }

    /// The value of the longest route matching an address (or covering a prefix), or None.
    fn lookup<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let best = self.best(convert::key(key, self.mode)?)?;
        self.value(py, best.map(|(_, h)| h))
    }

    /// (matched prefix, value) of the longest route matching an address (or covering a
    /// prefix), or None.
    fn lookup_prefix<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Route<'py>>> {
        let best = self.best(convert::key(key, self.mode)?)?;
        Ok(self.to_python(py, best.into_iter().collect())?.pop())
    }

    /// The value of exactly this prefix, or `default`.
    #[pyo3(signature = (prefix, default = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let hop = match convert::prefix(prefix)? {
            AnyPrefix::V4(p) => self.v4()?.with_rib(|r| r.get(&p)),
            AnyPrefix::V6(p) => self.v6()?.with_rib(|r| r.get(&p)),
        };
        Ok(self.value(py, hop)?.or(default))
    }

    /// Every route covering `prefix` (itself included), shortest first.
    fn covering<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Route<'py>>> {
        self.around(py, prefix, true)
    }

    /// Every route inside `prefix` (itself included), in address order.
    fn covered<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Route<'py>>> {
        self.around(py, prefix, false)
    }

    /// py-radix's name for `lookup_prefix`.
    fn search_best<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Route<'py>>> {
        self.lookup_prefix(py, key)
    }

    /// py-radix's exact search: (prefix, value) of exactly this prefix, or None.
    fn search_exact<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Route<'py>>> {
        let text = convert::prefix(prefix)?.to_string();
        Ok(self.get(py, prefix, None)?.map(|v| (text, v)))
    }

    /// py-radix's name for `covering` (py-radix lists the longest first; so does this).
    fn search_covering<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Route<'py>>> {
        let mut routes = self.covering(py, prefix)?;
        routes.reverse();
        Ok(routes)
    }

    /// py-radix's name for `covered`.
    fn search_covered<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Route<'py>>> {
        self.covered(py, prefix)
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.lookup(py, key)?.ok_or_else(|| PyKeyError::new_err(key.clone().unbind()))
    }

    fn __setitem__<'py>(
        &self,
        py: Python<'py>,
        prefix: &Bound<'py, PyAny>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<()> {
        self.insert(py, prefix, value).map(drop)
    }

    fn __delitem__<'py>(&self, py: Python<'py>, prefix: &Bound<'py, PyAny>) -> PyResult<()> {
        match self.remove(py, prefix)? {
            Some(_) => Ok(()),
            None => Err(PyKeyError::new_err(prefix.clone().unbind())),
        }
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.best(convert::key(key, self.mode)?)?.is_some())
    }

    /// Iterates over (prefix, value), IPv4 first, in prefix order (a snapshot).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.routes(py)?.into_pyobject(py)?.try_iter().map(Bound::into_any)
    }

    /// Every route as (prefix, value), IPv4 first, in prefix order.
    fn routes<'py>(&self, py: Python<'py>) -> PyResult<Vec<Route<'py>>> {
        self.to_python(py, self.all_routes())
    }

    /// The prefixes whose value is `value`, IPv4 then IPv6 in prefix order (pyasn's
    /// `get_as_prefixes`).
    fn prefixes_of(&self, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let ids = self.values.ids_of(value)?;
        let routes = self.all_routes();
        let mine = |h: &NextHop| ids.contains(&values::decode(*h).0);
        Ok(routes.into_iter().filter(|(_, h)| mine(h)).map(|(p, _)| p.to_string()).collect())
    }

    /// Value ids of a numpy array of addresses (see `__init__.pyi`); with `lengths=True` a
    /// pair (ids, matched prefix lengths). Runs without the GIL, on `threads` threads.
    #[pyo3(signature = (addrs, out = None, threads = 1, lengths = false))]
    fn lookup_batch<'py>(
        &self,
        addrs: &Bound<'py, PyAny>,
        out: Option<Bound<'py, PyAny>>,
        threads: i64,
        lengths: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let out = out.map(|o| batch::out_array(&o)).transpose()?;
        let answers = batch::lookup_batch(self.sides(), addrs, out, threads, lengths)?;
        match answers.lens {
            Some(lens) => {
                Ok(PyTuple::new(addrs.py(), [answers.ids.into_any(), lens.into_any()])?.into_any())
            }
            None => Ok(answers.ids.into_any()),
        }
    }

    /// The values of value ids (a numpy object array; `default` where the id is NO_ROUTE):
    /// `ids` as `lookup_batch` answers them, or any 1-D column of integers ([`ids`]).
    #[pyo3(signature = (ids, default = None))]
    fn values_of<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
        self.objects_of(py, &ids::value_ids(ids)?, default)
    }

    /// The values of a batch of addresses (`lookup_batch` then `values_of`).
    #[pyo3(signature = (addrs, threads = 1, default = None))]
    fn lookup_values<'py>(
        &self,
        py: Python<'py>,
        addrs: &Bound<'py, PyAny>,
        threads: i64,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
        let answers = batch::lookup_batch(self.sides(), addrs, None, threads, false)?;
        self.objects_of(py, &answers.ids.to_vec()?, default)
    }

    /// Registered readers of both families (for tests: one per family at rest; each batch
    /// thread registers its own while it runs and deregisters at the end).
    fn _readers(&self) -> usize {
        self.v4.as_ref().map_or(0, Side::readers) + self.v6.as_ref().map_or(0, Side::readers)
    }

    /// Bytes retired by updates and not yet freed (both families): they wait until every
    /// reader (the table's own, and each batch thread while it runs) has reported a
    /// quiescent state. Over the threshold (the larger of 4 x the lookup structure and 64
    /// MiB) the first read warns (`ResourceWarning`, once per table).
    #[getter]
    fn pending_reclaim_bytes(&self, py: Python<'_>) -> PyResult<usize> {
        let (b4, o4) = self.v4.as_ref().map_or((0, false), Side::pending_reclaim);
        let (b6, o6) = self.v6.as_ref().map_or((0, false), Side::pending_reclaim);
        if (o4 || o6) && !self.warned_pending.swap(true, std::sync::atomic::Ordering::Relaxed) {
            let message = format!(
                "{} bytes of retired memory wait for readers (over max(4 x the structure, 64 \
                 MiB)): a reader is online without reporting quiescent states",
                b4 + b6
            );
            let message = std::ffi::CString::new(message).unwrap_or_default();
            let category = py.get_type::<pyo3::exceptions::PyResourceWarning>();
            PyErr::warn(py, &category, &message, 1)?;
        }
        Ok(b4 + b6)
    }

    fn __len__(&self) -> usize {
        self.v4.as_ref().map_or(0, Side::route_count)
            + self.v6.as_ref().map_or(0, Side::route_count)
    }

    fn __repr__(&self) -> String {
        let algo = if self.algo == DEFAULT_ALGO {
            String::new()
        } else {
            format!("algo={:?}, ", self.algo)
        };
        format!("fibforge.Table(family={:?}, {algo}routes={})", self.mode.name(), self.__len__())
    }

    /// Pickles as the routes (compact bytes) and the values; unpickling rebuilds.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let rebuild = py.import("fibforge")?.getattr("_rebuild")?;
        let v4 = self.v4.as_ref().map(|s| state::encode(&s.routes())).unwrap_or_default();
        let v6 = self.v6.as_ref().map(|s| state::encode(&s.routes())).unwrap_or_default();
        let (v4, v6) = (PyBytes::new(py, &v4), PyBytes::new(py, &v6));
        let args = (self.mode.name(), v4, v6, self.values.to_list(py)?, self.algo.as_str());
        Ok((rebuild, args.into_pyobject(py)?.into_any()))
    }
}

/// Rebuilds a pickled table (the inverse of `Table.__reduce__`).
#[pyfunction]
#[pyo3(name = "_rebuild", signature = (family, v4, v6, values, algo = DEFAULT_ALGO))]
pub fn rebuild(
    py: Python<'_>,
    family: &str,
    v4: &[u8],
    v6: &[u8],
    values: &Bound<'_, PyList>,
    algo: &str,
) -> PyResult<PyTable> {
    let mode = Mode::parse(family)?;
    let bad = |e: String| PyValueError::new_err(format!("corrupt pickled table: {e}"));
    let count = values.len();
    let (v4, v6) =
        py.detach(|| (state::decode::<u32>(v4, count), state::decode::<u128>(v6, count)));
    PyTable::from_ribs(mode, algo, v4.map_err(bad)?, v6.map_err(bad)?, Values::from_list(values)?)
}

fn build_error(e: BuildError) -> PyErr {
    PyValueError::new_err(e.to_string())
}
