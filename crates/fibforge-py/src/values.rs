//! The values of a Python `Table`: any Python objects, each distinct value stored once and
//! known inside by a small id, and the encoding of a route's id and prefix length into the
//! next hop the lookup structures hold.
//!
//! Layout: `objects[id]` is the value of id `id`; `index` (a Python dict) maps
//! `(type(value), value)` to its id for hashable values, so equal values of one type share
//! an id (the type is part of the key so that `1`, `1.0` and `True` stay apart); an
//! unhashable value gets a new id each time it is stored.
//!
//! Invariants:
//! - ids are never reused or freed, so a lookup racing with an update never reads another
//!   value's id (lookups are lock-free; ids in a structure a reader still sees stay valid).
//!   The structures hold `id << 8 | prefix length` ([`encode`]), so a lookup answers the
//!   value and the matched prefix length at once, without a second search;
//! - no Python code runs while `objects`' mutex is held (issue 56): a value's `__hash__`,
//!   `__eq__` or `__del__`, or the garbage collector an allocation may start, can call back
//!   into the same table (a lookup, an insert, `len(t.values)`), and would wait forever
//!   for a lock its own thread holds. So the dict (whose lookups run `__hash__` and
//!   `__eq__`) is used with no lock held, the lock only guards pushing to and reading from
//!   `objects` (plain Rust: references are taken, never released, under it, and every
//!   Python object, list or array is made after it is let go). Two threads storing equal
//!   new values at the same moment may each get an id for it: harmless, as any id is valid.

use fibforge::NextHop;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The most distinct values a table holds (ids take the 23 bits above the length byte).
pub const MAX_VALUES: u32 = 1 << 23;

/// The id batch lookups write where no route matches (`fibforge.NO_ROUTE`).
pub const NO_ROUTE: u32 = u32::MAX;

/// The prefix length batch lookups write where no route matches (`fibforge.NO_LENGTH`).
pub const NO_LENGTH: u8 = u8::MAX;

/// The next hop stored for a route of value `id` and prefix length `len`.
pub fn encode(id: u32, len: u32) -> NextHop {
    debug_assert!(id < MAX_VALUES && len <= 128);
    NextHop::from_index(id << 8 | len)
}

/// The value id and prefix length of a stored next hop.
pub fn decode(hop: NextHop) -> (u32, u32) {
    (hop.index() >> 8, hop.index() & 0xFF)
}

/// A table's distinct values (see the module docs), shared by its threads.
pub struct Values {
    objects: Mutex<Vec<Py<PyAny>>>,
    index: Py<PyDict>,
}

impl Values {
    /// No values.
    pub fn new(py: Python<'_>) -> Self {
        Values { objects: Mutex::new(Vec::new()), index: PyDict::new(py).unbind() }
    }

    /// Values in id order (as pickled), indexed again.
    pub fn from_list(list: &Bound<'_, PyList>) -> PyResult<Self> {
        let values = Values::new(list.py());
        for v in list.iter() {
            let id = values.push(&v)?;
            // Only hashable values are indexed; the first id of equal values answers.
            if let Ok(key) = key(&v) {
                values.index.bind(list.py()).call_method1("setdefault", (key, id))?;
            }
        }
        Ok(values)
    }

    /// The stored objects, locked: hold the guard only for plain Rust work (no Python code,
    /// no Python object made or released; see the module docs).
    fn objects(&self, py: Python<'_>) -> MutexGuard<'_, Vec<Py<PyAny>>> {
        // A push is one step, so a panic cannot leave the values half-changed.
        self.objects.lock_py_attached(py).unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores `value` under a new id.
    fn push(&self, value: &Bound<'_, PyAny>) -> PyResult<u32> {
        let id = {
            let mut objects = self.objects(value.py());
            let id = objects.len() as u32;
            if id < MAX_VALUES {
                // A new reference (no Python code runs).
                objects.push(value.clone().unbind());
            }
            id
        };
        if id >= MAX_VALUES {
            return Err(PyValueError::new_err(format!(
                "a table holds at most {MAX_VALUES} distinct values"
            )));
        }
        Ok(id)
    }

    /// The id of `value`, storing it when it is new. The value's `__hash__` and `__eq__` run
    /// with no lock held, so they may use the table.
    pub fn intern(&self, value: &Bound<'_, PyAny>) -> PyResult<u32> {
        let py = value.py();
        let Ok(key) = key(value) else {
            return self.push(value);
        };
        if let Some(id) = self.index.bind(py).get_item(&key)? {
            return id.extract();
        }
        let id = self.push(value)?;
        self.index.bind(py).set_item(key, id)?;
        Ok(id)
    }

    /// The value of `id` (None for an unknown id).
    pub fn get<'py>(&self, py: Python<'py>, id: u32) -> Option<Bound<'py, PyAny>> {
        let object = self.objects(py).get(id as usize).map(|v| v.clone_ref(py));
        object.map(|v| v.into_bound(py))
    }

    /// The values of `ids` (None for an unknown id), read under one lock.
    pub fn get_many(&self, py: Python<'_>, ids: &[u32]) -> Vec<Option<Py<PyAny>>> {
        let objects = self.objects(py);
        ids.iter().map(|&id| objects.get(id as usize).map(|v| v.clone_ref(py))).collect()
    }

    /// The value of a stored next hop.
    pub fn of_hop<'py>(&self, py: Python<'py>, hop: NextHop) -> PyResult<Bound<'py, PyAny>> {
        let (id, _) = decode(hop);
        self.get(py, id).ok_or_else(|| PyValueError::new_err(format!("unknown value id {id}")))
    }

    /// The ids whose value equals `value` as the table tells values apart: hashable values
    /// by type and `==` (`1`, `1.0` and `True` stay apart), others by `==`. The values are
    /// copied out first, so the comparisons run with no lock held.
    pub fn ids_of(&self, value: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        let py = value.py();
        let wanted = key(value).ok();
        let objects: Vec<Py<PyAny>> = self.objects(py).iter().map(|v| v.clone_ref(py)).collect();
        let mut ids = Vec::new();
        for (id, object) in objects.iter().enumerate() {
            let object = object.bind(py);
            let same = match &wanted {
                Some(k) => key(object).is_ok_and(|o| o.eq(k).unwrap_or(false)),
                None => object.eq(value).unwrap_or(false),
            };
            if same {
                ids.push(id as u32);
            }
        }
        Ok(ids)
    }

    /// Every value in id order.
    pub fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let objects: Vec<Py<PyAny>> = self.objects(py).iter().map(|v| v.clone_ref(py)).collect();
        PyList::new(py, objects)
    }
}

/// The index key of a hashable value: `(type(value), value)`; Err for an unhashable one.
fn key<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    value.hash()?;
    PyTuple::new(value.py(), [value.get_type().into_any(), value.clone()])
}
