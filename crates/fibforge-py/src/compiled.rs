//! `fibforge.CompiledTable`: the structure of an export file (`fibforge export`,
//! `fibforge.export`, `docs/reference/export-format.md`), which `Table.load` returns for such a file
//! without compiling anything.
//!
//! An export holds one family's compiled structure (sail_l, poptrie or bloomfwd) and the
//! next-hop values as text, but no routes: it answers longest-match lookups of addresses
//! (single, batch, values) and nothing that needs the prefixes. `fibforge::export::import`
//! checks every length and index before use, so a truncated, corrupted or hostile file
//! raises ValueError. The structure answers raw next-hop ids (0 = no route, `i + 1` for the
//! file's value `i`), which become value ids `i`, as `Table`'s batches answer; prefix lengths
//! are not stored. Operations that need routes (updates, matched prefixes, exact and
//! covering queries, iteration, `lengths=True`) raise TypeError saying why.

use crate::batch::{self, Sides};
use crate::convert::{self, Addr, Key, Mode};
use crate::ids;
use crate::side::{Answers, CHUNK, Lookups, in_parallel};
use crate::value_column::{value_column, value_object};
use crate::values::{NO_LENGTH, NO_ROUTE};
use fibforge::export::{Algorithm, ExportError, ExportFile, ROUTES_PARAM, import};
use fibforge::registry::AlgoSpec;
use fibforge::sync::AnyKey;
use fibforge::{Lookup, NextHop};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyKeyError, PyOSError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::io::Read;
use std::path::Path;

/// An export's structure of family `A`: immutable, so lookups need no reader or lock.
pub struct Frozen<A: AnyKey>(Box<dyn Lookup<A>>);

/// The value id of a raw answer (`NO_ROUTE` for none).
fn value_id(hop: Option<NextHop>) -> u32 {
    hop.map_or(NO_ROUTE, NextHop::index)
}

impl<A: AnyKey> Lookups<A> for Frozen<A> {
    fn lookup_into(
        &self,
        out: Answers<'_>,
        threads: usize,
        fill: &(dyn Fn(usize, &mut [A]) + Sync),
    ) {
        in_parallel(out, threads, |start, part| {
            let mut keys = [A::ZERO; CHUNK];
            let mut hops = [None; CHUNK];
            for (i, out) in part.split(CHUNK).into_iter().enumerate() {
                let m = out.ids.len();
                fill(start + i * CHUNK, &mut keys[..m]);
                self.0.lookup_batch(&keys[..m], &mut hops[..m]);
                for (o, h) in out.ids.iter_mut().zip(&hops[..m]) {
                    *o = value_id(*h);
                }
                // `lengths=True` is refused before the lookups; an export has no lengths.
                if let Some(lens) = out.lens {
                    lens.fill(NO_LENGTH);
                }
            }
        });
    }
}

/// True when `path` is a file that starts like an export (anything else is read as a table,
/// which reports its own errors).
pub fn sniff(path: &Path) -> bool {
    let mut head = [0u8; 8];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    read.is_ok() && ExportFile::sniff(&head)
}

/// The error of a bad export file: OSError when it cannot be read, else ValueError, both
/// naming the file.
fn export_error(path: &Path, e: ExportError) -> PyErr {
    let message = format!("{}: {e}", path.display());
    match e {
        ExportError::Io(_) => PyOSError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// An export's structure and values, read read-only from a file whose first bytes are an
/// export's magic (`Table.load`'s arguments; `algo`, when given, must name the export's).
pub fn load(
    py: Python<'_>,
    path: &Path,
    family: &str,
    algo: Option<&str>,
    value: &str,
    peers: bool,
) -> PyResult<PyCompiled> {
    let mode = Mode::parse(family)?;
    let column = value_column(value)?;
    let name = path.display().to_string();
    if peers {
        return Err(PyValueError::new_err(format!(
            "{name}: an export file holds one compiled structure: peer= and peer_as= apply to \
             MRT dumps"
        )));
    }
    let file = py.detach(|| ExportFile::read(path)).map_err(|e| export_error(path, e))?;
    let algorithm = file.algorithm;
    if let Some(algo) = algo {
        let spec: AlgoSpec = algo.parse().map_err(|e| PyValueError::new_err(format!("{e}")))?;
        if fibforge::registry::export_format(&spec.name) != Some(algorithm) {
            return Err(PyValueError::new_err(format!(
                "algo={algo:?}: {name} is a compiled {} export; leave algo out or name {}",
                algorithm.name(),
                algorithm.name()
            )));
        }
    }
    let own = if file.family == 4 { Mode::V4 } else { Mode::V6 };
    if mode != Mode::Auto && mode != own {
        return Err(PyValueError::new_err(format!(
            "{name}: a compiled IPv{} export, loaded with family='{}'",
            file.family,
            mode.name()
        )));
    }
    let (v4, v6) = py
        .detach(|| -> Result<_, ExportError> {
            Ok(match own {
                Mode::V4 => (Some(Frozen(import::<u32>(&file)?)), None),
                _ => (None, Some(Frozen(import::<u128>(&file)?))),
            })
        })
        .map_err(|e| export_error(path, e))?;
    let values = file
        .hops
        .iter()
        .map(|text| {
            value_object(py, text, column)
                .map(Bound::unbind)
                .map_err(|e| PyValueError::new_err(format!("{name}: {}", e.value(py))))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let routes = file.params[ROUTES_PARAM];
    Ok(PyCompiled { algorithm, mode: own, v4, v6, values, routes, path: name })
}

/// A read-only table loaded from an export file: lookups of addresses only.
///
/// See `python/fibforge/__init__.pyi` for the documentation.
#[pyclass(frozen, module = "fibforge", name = "CompiledTable")]
pub struct PyCompiled {
    algorithm: Algorithm,
    /// `V4` or `V6`: the export's family.
    mode: Mode,
    v4: Option<Frozen<u32>>,
    v6: Option<Frozen<u128>>,
    /// The file's values; index = value id.
    values: Vec<Py<PyAny>>,
    /// Routes the structure was compiled from (the header's count).
    routes: u64,
    /// The file, for messages.
    path: String,
}

impl PyCompiled {
    /// The TypeError of an operation that needs the routes the export does not hold.
    fn read_only(&self, what: &str) -> PyErr {
        PyTypeError::new_err(format!(
            "CompiledTable.{what}: this table was loaded from a compiled {} export ({}), which \
             is read-only and holds no prefixes (only lookups of addresses); load the routing \
             table itself with Table.load for this",
            self.algorithm.name(),
            self.path
        ))
    }

    fn v4(&self) -> PyResult<&Frozen<u32>> {
        self.v4.as_ref().ok_or_else(|| PyValueError::new_err("IPv4 given to an IPv6 table"))
    }

    fn v6(&self) -> PyResult<&Frozen<u128>> {
        self.v6.as_ref().ok_or_else(|| PyValueError::new_err("IPv6 given to an IPv4 table"))
    }

    /// The value id (`NO_ROUTE` for none) of the longest match of an address key.
    fn answer(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        match convert::key(key, self.mode)? {
            Key::Prefix(p) => Err(self.read_only(&format!("lookup of the prefix {p}"))),
            Key::Addr(Addr::V4(a)) => Ok(value_id(self.v4()?.0.lookup(a))),
            Key::Addr(Addr::V6(a)) => Ok(value_id(self.v6()?.0.lookup(a))),
        }
    }

    /// The value of a value id (None for `NO_ROUTE`); ValueError when the file lists no value
    /// for an id its structure answers.
    fn value<'py>(&self, py: Python<'py>, id: u32) -> PyResult<Option<Bound<'py, PyAny>>> {
        if id == NO_ROUTE {
            return Ok(None);
        }
        match self.values.get(id as usize) {
            Some(v) => Ok(Some(v.bind(py).clone())),
            None => Err(PyValueError::new_err(format!(
                "{}: the structure answers value id {id} but the file lists {} values",
                self.path,
                self.values.len()
            ))),
        }
    }

    /// The values of value ids (`default` for NO_ROUTE) as a numpy object array.
    fn objects_of<'py>(
        &self,
        py: Python<'py>,
        ids: &[u32],
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<Py<PyAny>>>> {
        let default = default.map_or_else(|| py.None(), Bound::unbind);
        let objects = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| match self.values.get(id as usize) {
                Some(v) => Ok(v.clone_ref(py)),
                None if id == NO_ROUTE => Ok(default.clone_ref(py)),
                None => Err(PyValueError::new_err(format!(
                    "ids[{i}]: {id} is not a value id of this table ({} lists {} values)",
                    self.path,
                    self.values.len()
                ))),
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyArray1::from_vec(py, objects))
    }

    fn sides(&self) -> Sides<'_> {
        let v4 = self.v4.as_ref().map(|s| s as &dyn Lookups<u32>);
        let v6 = self.v6.as_ref().map(|s| s as &dyn Lookups<u128>);
        Sides { v4, v6 }
    }
}

#[pymethods]
impl PyCompiled {
    /// "ipv4" or "ipv6": the export's family.
    #[getter(family)]
    fn family_name(&self) -> &'static str {
        self.mode.name()
    }

    /// The exported structure: "sail_l", "poptrie" or "bloomfwd".
    #[getter]
    fn algo(&self) -> &'static str {
        self.algorithm.name()
    }

    /// The distinct values, index = value id (as batch lookups answer).
    #[getter]
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.values.iter().map(|v| v.bind(py)))
    }

    /// The value of the longest route matching an address, or None.
    fn lookup<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.value(py, self.answer(key)?)
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.lookup(py, key)?.ok_or_else(|| PyKeyError::new_err(key.clone().unbind()))
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.answer(key)? != NO_ROUTE)
    }

    /// Value ids of a column of addresses (as `Table.lookup_batch`; no `lengths`).
    #[pyo3(signature = (addrs, out = None, threads = 1, lengths = false))]
    fn lookup_batch<'py>(
        &self,
        addrs: &Bound<'py, PyAny>,
        out: Option<Bound<'py, PyAny>>,
        threads: i64,
        lengths: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        if lengths {
            return Err(self.read_only("lookup_batch(lengths=True)"));
        }
        let out = out.map(|o| batch::out_array(&o)).transpose()?;
        Ok(batch::lookup_batch(self.sides(), addrs, out, threads, false)?.ids.into_any())
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

    /// The values of a column of addresses (`lookup_batch` then `values_of`).
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

    /// Routes the structure was compiled from; OverflowError saying so when the header
    /// claims more than `len()` can return (2**63 - 1), which only a damaged or hand-made
    /// file does (`repr` still shows the count).
    fn __len__(&self) -> PyResult<usize> {
        match isize::try_from(self.routes) {
            Ok(n) => Ok(n.unsigned_abs()),
            Err(_) => Err(PyOverflowError::new_err(format!(
                "{}: the export header claims {} routes, more than len() can return \
                 (2**63 - 1): the file is damaged or was not written by fibforge",
                self.path, self.routes
            ))),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "fibforge.CompiledTable(family={:?}, algo={:?}, routes={})",
            self.mode.name(),
            self.algorithm.name(),
            self.routes
        )
    }

    // Operations that need the routes: each raises TypeError saying why.

    #[pyo3(signature = (*_args, **_kwargs))]
    fn insert(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("insert"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn remove(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("remove"))
    }

    fn __setitem__(&self, _key: &Bound<'_, PyAny>, _value: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(self.read_only("__setitem__"))
    }

    fn __delitem__(&self, _key: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(self.read_only("__delitem__"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn lookup_prefix(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("lookup_prefix"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn get(&self, _args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        Err(self.read_only("get"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn covering(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("covering"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn covered(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("covered"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn search_best(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("search_best"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn search_exact(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("search_exact"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn search_covering(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("search_covering"))
    }

    #[pyo3(signature = (*_args, **_kwargs))]
    fn search_covered(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        Err(self.read_only("search_covered"))
    }

    fn routes(&self) -> PyResult<()> {
        Err(self.read_only("routes"))
    }

    fn __iter__(&self) -> PyResult<Py<PyAny>> {
        Err(self.read_only("__iter__"))
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(self.read_only("__reduce__ (pickling; pass the file's path and load it again)"))
    }
}
