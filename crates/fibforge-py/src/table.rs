//! `fibforge.Table`: a routing table of IPv4, IPv6 or both families (Poptrie, or the
//! interval B+-tree with `algo="bplus"`), with single and numpy batch lookups, updates, and
//! pickling.

use crate::batch::{self, Sides};
use crate::convert::{self, Addr, Mode};
use crate::side::Side;
use crate::state;
use fibforge::sync::{AnyKey, Structure};
use fibforge::{AnyPrefix, BuildError, Rib};
use fibforge_io::{ReadConfig, ReadError};
use numpy::PyArray1;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// A longest-prefix-match routing table.
///
/// `Table(family="auto")` holds IPv4 and IPv6 routes ("ipv4" or "ipv6" holds one family).
/// `algo` chooses the lookup structure: "poptrie" (the default) or "bplus" (the interval
/// B+-tree), optionally with options as in `fibforge bench --algo` ("bplus:dir=off"); an
/// unknown name or bad option raises ValueError naming the choices. Both structures give
/// the same answers. Next hops are ints in `0..=0x7FFFFFFE`; a table loaded from a file
/// numbers the file's next hops in order of appearance and `next_hops[i]` is the text of id
/// `i`. Lookups are lock-free: threads may look up (batches release the GIL) while one
/// thread updates.
#[pyclass(frozen, module = "fibforge", name = "Table")]
pub struct PyTable {
    mode: Mode,
    /// The `algo` text the table was made with (kept for `repr` and pickling).
    algo: String,
    v4: Option<Side<u32>>,
    v6: Option<Side<u128>>,
    names: Vec<String>,
}

impl PyTable {
    /// A table of `mode` from RIBs in the structure `algo` names (a family the mode excludes
    /// is dropped). Call [`structures`] first to check `algo` before slow work.
    pub fn from_ribs(
        mode: Mode,
        algo: &str,
        v4: Rib<u32>,
        v6: Rib<u128>,
        names: Vec<String>,
    ) -> PyResult<Self> {
        let (s4, s6) = structures(mode, algo)?;
        let v4 = s4.map(|s| Side::new(v4, &s)).transpose().map_err(build_error)?;
        let v6 = s6.map(|s| Side::new(v6, &s)).transpose().map_err(build_error)?;
        Ok(PyTable { mode, algo: algo.to_string(), v4, v6, names })
    }

    fn v4(&self) -> PyResult<&Side<u32>> {
        self.v4.as_ref().ok_or_else(|| PyValueError::new_err("IPv4 given to an IPv6 table"))
    }

    fn v6(&self) -> PyResult<&Side<u128>> {
        self.v6.as_ref().ok_or_else(|| PyValueError::new_err("IPv6 given to an IPv4 table"))
    }
}

#[pymethods]
impl PyTable {
    #[new]
    #[pyo3(signature = (family = "auto", algo = DEFAULT_ALGO))]
    fn new(family: &str, algo: &str) -> PyResult<Self> {
        PyTable::from_ribs(Mode::parse(family)?, algo, Rib::new(), Rib::new(), Vec::new())
    }

    /// Loads a text table or MRT dump (plain, gzip or bzip2, recognised by content) into a
    /// table of the structure `algo` names (as for `Table`).
    /// Raises OSError when the file cannot be read (or decompresses beyond the cap of
    /// FIBFORGE_MAX_DECOMPRESSED, default 16G), ValueError naming the line or byte offset
    /// when its content is malformed, ValueError when `family` keeps none of the file's
    /// routes, and ValueError (before reading) for a bad `algo`.
    #[staticmethod]
    #[pyo3(signature = (path, family = "auto", algo = DEFAULT_ALGO))]
    fn load(py: Python<'_>, path: PathBuf, family: &str, algo: &str) -> PyResult<Self> {
        let mode = Mode::parse(family)?;
        structures(mode, algo)?;
        let loaded = py
            .detach(|| fibforge_io::read_table(&path, &ReadConfig::default()))
            .map_err(|e| read_error(e.error))?;
        let (kept, other) = match mode {
            Mode::V4 => (loaded.v4.len(), "ipv6"),
            Mode::V6 => (loaded.v6.len(), "ipv4"),
            Mode::Auto => (loaded.len(), ""),
        };
        if kept == 0 && !loaded.is_empty() {
            // Without this a file of the other family would load as an empty table.
            return Err(PyValueError::new_err(format!(
                "{}: holds {} routes, all {other}: not an {family} table",
                path.display(),
                loaded.len()
            )));
        }
        let names = loaded.hops.values().to_vec();
        py.detach(|| PyTable::from_ribs(mode, algo, loaded.v4, loaded.v6, names))
    }

    /// "ipv4", "ipv6" or "auto".
    #[getter]
    fn family(&self) -> &'static str {
        self.mode.name()
    }

    /// The lookup structure as given when the table was made ("poptrie", "bplus", or either
    /// with options).
    #[getter]
    fn algo(&self) -> &str {
        &self.algo
    }

    /// The next-hop texts of a loaded file (index = next-hop id); empty otherwise. A new
    /// list on each access: keep it (`names = t.next_hops`) or use `next_hop_name`.
    #[getter]
    fn next_hops(&self) -> Vec<String> {
        self.names.clone()
    }

    /// The text a loaded file used for next hop `id`, or None.
    fn next_hop_name(&self, id: u64) -> Option<&str> {
        usize::try_from(id).ok().and_then(|i| self.names.get(i)).map(String::as_str)
    }

    /// Inserts or replaces a route; returns the prefix's previous next hop or None.
    fn insert(
        &self,
        prefix: &Bound<'_, PyAny>,
        next_hop: &Bound<'_, PyAny>,
    ) -> PyResult<Option<u32>> {
        let hop = convert::next_hop(next_hop)?;
        let old = match convert::prefix(prefix)? {
            AnyPrefix::V4(p) => self.v4()?.insert(p, hop),
            AnyPrefix::V6(p) => self.v6()?.insert(p, hop),
        };
        Ok(convert::hop_value(old.map_err(build_error)?))
    }

    /// Withdraws a route; returns its next hop, or None when there was no such route.
    fn remove(&self, prefix: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        let old = match convert::prefix(prefix)? {
            AnyPrefix::V4(p) => self.v4()?.remove(&p),
            AnyPrefix::V6(p) => self.v6()?.remove(&p),
        };
        Ok(convert::hop_value(old.map_err(build_error)?))
    }

    /// The next hop of the longest prefix matching `addr` (str, int or ipaddress object),
    /// or None.
    fn lookup(&self, addr: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        let hop = match convert::address(addr, self.mode)? {
            Addr::V4(a) => self.v4()?.lookup(a),
            Addr::V6(a) => self.v6()?.lookup(a),
        };
        Ok(convert::hop_value(hop))
    }

    /// Looks up a numpy array of addresses: 1-D uint32 (IPv4), (n, 2) uint64 (IPv6: high,
    /// low 64 bits) or (n, 16) uint8 (IPv6 bytes, network order). Returns a uint32 array
    /// with NO_ROUTE (0xFFFFFFFF) where no route matches: a new one, or `out` (a uint32 array
    /// of the same length, reused). Runs without the GIL, on `threads` threads.
    #[pyo3(signature = (addrs, out = None, threads = 1))]
    fn lookup_batch<'py>(
        &self,
        addrs: &Bound<'py, PyAny>,
        out: Option<Bound<'py, PyAny>>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let sides = Sides { v4: self.v4.as_ref(), v6: self.v6.as_ref() };
        let out = out.map(|o| batch::out_array(&o)).transpose()?;
        batch::lookup_batch(sides, addrs, out, threads)
    }

    /// Registered readers of both families (for tests: one per family at rest; each batch
    /// thread registers its own while it runs and deregisters at the end).
    fn _readers(&self) -> usize {
        self.v4.as_ref().map_or(0, Side::readers) + self.v6.as_ref().map_or(0, Side::readers)
    }

    /// Every route as (prefix text, next hop), IPv4 first, in prefix order.
    fn routes(&self) -> Vec<(String, u32)> {
        let v4 = self.v4.iter().flat_map(|s| s.routes()).map(|(p, h)| (p.to_string(), h.index()));
        let v6 = self.v6.iter().flat_map(|s| s.routes()).map(|(p, h)| (p.to_string(), h.index()));
        v4.chain(v6).collect()
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

    /// Pickles as the routes (compact bytes) and next-hop names; unpickling rebuilds.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let rebuild = py.import("fibforge")?.getattr("_rebuild")?;
        let v4 = self.v4.as_ref().map(|s| state::encode(&s.routes())).unwrap_or_default();
        let v6 = self.v6.as_ref().map(|s| state::encode(&s.routes())).unwrap_or_default();
        let (v4, v6) = (PyBytes::new(py, &v4), PyBytes::new(py, &v6));
        let args = (self.mode.name(), v4, v6, self.names.clone(), self.algo.as_str());
        Ok((rebuild, args.into_pyobject(py)?.into_any()))
    }
}

/// Rebuilds a pickled table (the inverse of `Table.__reduce__`; pickles made before the
/// `algo` argument existed rebuild as Poptrie).
#[pyfunction]
#[pyo3(name = "_rebuild", signature = (family, v4, v6, names, algo = DEFAULT_ALGO))]
pub fn rebuild(
    py: Python<'_>,
    family: &str,
    v4: &[u8],
    v6: &[u8],
    names: Vec<String>,
    algo: &str,
) -> PyResult<PyTable> {
    let mode = Mode::parse(family)?;
    let bad = |e: String| PyValueError::new_err(format!("corrupt pickled table: {e}"));
    let (v4, v6) = py.detach(|| (state::decode::<u32>(v4), state::decode::<u128>(v6)));
    PyTable::from_ribs(mode, algo, v4.map_err(bad)?, v6.map_err(bad)?, names)
}

/// The `algo` argument's default.
const DEFAULT_ALGO: &str = "poptrie";

/// The structures `algo` names for the families `mode` holds (None for a family it drops);
/// ValueError naming the valid choices when the name or an option is bad.
pub fn structures(mode: Mode, algo: &str) -> PyResult<(Option<Structure>, Option<Structure>)> {
    fn one<A: AnyKey>(keep: bool, algo: &str) -> PyResult<Option<Structure>> {
        keep.then(|| Structure::parse::<A>(algo))
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
    Ok((one::<u32>(mode != Mode::V6, algo)?, one::<u128>(mode != Mode::V4, algo)?))
}

fn build_error(e: BuildError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn read_error(e: ReadError) -> PyErr {
    match e {
        ReadError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}
