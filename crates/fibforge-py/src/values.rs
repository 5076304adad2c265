//! The values of a Python `Table`: any Python objects, each distinct value stored once and
//! known inside by a small id, and the encoding of a route's id and prefix length into the
//! next hop the lookup structures hold.
//!
//! Layout: `objects[id]` is the value of id `id`; `index` (a Python dict) maps
//! `(type(value), value)` to its id for hashable values, so equal values of one type share
//! an id (the type is part of the key so that `1`, `1.0` and `True` stay apart); an
//! unhashable value gets a new id each time it is stored.
//!
//! Invariants: ids are never reused or freed, so a lookup racing with an update never
//! reads another value's id (lookups are lock-free; ids in a structure a reader still sees
//! stay valid). The structures hold `id << 8 | prefix length` ([`encode`]), so a lookup
//! answers the value and the matched prefix length at once, without a second search.

use fibforge::NextHop;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

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

/// A table's distinct values (see the module docs).
pub struct Values {
    objects: Vec<Py<PyAny>>,
    index: Py<PyDict>,
}

impl Values {
    /// No values.
    pub fn new(py: Python<'_>) -> Self {
        Values { objects: Vec::new(), index: PyDict::new(py).unbind() }
    }

    /// Values in id order (as pickled), indexed again.
    pub fn from_list(list: &Bound<'_, PyList>) -> PyResult<Self> {
        let mut values = Values::new(list.py());
        for v in list.iter() {
            let id = values.push(v.clone().unbind())?;
            // Only hashable values are indexed; the first id of equal values answers.
            if let Ok(key) = key(&v) {
                values.index.bind(list.py()).call_method1("setdefault", (key, id))?;
            }
        }
        Ok(values)
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// True when no value was stored.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    fn push(&mut self, value: Py<PyAny>) -> PyResult<u32> {
        let id = self.objects.len() as u32;
        if id >= MAX_VALUES {
            return Err(PyValueError::new_err(format!(
                "a table holds at most {MAX_VALUES} distinct values"
            )));
        }
        self.objects.push(value);
        Ok(id)
    }

    /// The id of `value`, storing it when it is new.
    pub fn intern(&mut self, value: &Bound<'_, PyAny>) -> PyResult<u32> {
        let py = value.py();
        let Ok(key) = key(value) else {
            return self.push(value.clone().unbind());
        };
        if let Some(id) = self.index.bind(py).get_item(&key)? {
            return id.extract();
        }
        let id = self.push(value.clone().unbind())?;
        self.index.bind(py).set_item(key, id)?;
        Ok(id)
    }

    /// The value of `id` (None for an unknown id).
    pub fn get<'py>(&self, py: Python<'py>, id: u32) -> Option<Bound<'py, PyAny>> {
        self.objects.get(id as usize).map(|v| v.bind(py).clone())
    }

    /// The value of a stored next hop.
    pub fn of_hop<'py>(&self, py: Python<'py>, hop: NextHop) -> PyResult<Bound<'py, PyAny>> {
        let (id, _) = decode(hop);
        self.get(py, id).ok_or_else(|| PyValueError::new_err(format!("unknown value id {id}")))
    }

    /// Every value in id order.
    pub fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.objects.iter().map(|v| v.bind(py)))
    }
}

/// The index key of a hashable value: `(type(value), value)`; Err for an unhashable one.
fn key<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    value.hash()?;
    PyTuple::new(value.py(), [value.get_type().into_any(), value.clone()])
}
