//! `fibforge.export(path, out, algo="poptrie", ...)`: a routing table compiled and written as
//! an export file (`docs/reference/export-format.md`, the file `fibforge export` writes), which
//! `Table.load` (a [`crate::compiled`] table), `fibforge lookup` and the CUDA code in `gpu/`
//! read back without compiling.
//!
//! The file's values are the table's value column as text (`value="next_hop"`: the next
//! hops; `value="origin_as"`: the origin AS numbers, `-` for none), so `Table.load(out,
//! value=...)` with the same `value` gives the same answers as `Table.load(path, value=...)`.
//!
//! The file is written whole or not at all (a synced temporary file renamed over `out`): a
//! failed export leaves the file it would have replaced as it was.

use crate::convert::{self, Mode};
use crate::load::{read_config, read_error};
use fibforge::export::{ExportError, ExportKey};
use fibforge::registry::{self, AlgoSpec};
use fibforge::{Family, Rib};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// Compiles the table at `path` and writes its export to `out` (see the module docs).
#[pyfunction]
#[pyo3(signature = (path, out, algo = crate::algos::DEFAULT_ALGO, family = "auto", value = "next_hop", peer = None, peer_as = None))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, as `Table.load`'s.
pub fn export(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    algo: &str,
    family: &str,
    value: &str,
    peer: Option<&str>,
    peer_as: Option<u32>,
) -> PyResult<()> {
    let (path, out) = (convert::path(path, "path")?, convert::path(out, "out")?);
    let spec: AlgoSpec = algo.parse().map_err(|e| PyValueError::new_err(format!("{e}")))?;
    if registry::export_format(&spec.name).is_none() {
        return Err(PyValueError::new_err(format!(
            "algo={algo:?}: no export for this algorithm ({} have one)",
            registry::exporters()
        )));
    }
    registry::check(&spec).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mode = Mode::parse(family)?;
    let read = read_config(value, peer, peer_as)?;
    let table =
        py.detach(|| fibforge_io::read_table(&path, &read)).map_err(|e| read_error(e.error))?;
    let name = path.display();
    let family = match (mode, table.v4.is_empty(), table.v6.is_empty()) {
        (Mode::V4, false, _) | (Mode::Auto, false, true) => Family::Ipv4,
        (Mode::V6, _, false) | (Mode::Auto, true, false) => Family::Ipv6,
        (Mode::Auto, false, false) => {
            return Err(PyValueError::new_err(format!(
                "{name}: the table has IPv4 and IPv6 routes; choose one with family='ipv4' or \
                 family='ipv6'"
            )));
        }
        _ => {
            let which = if mode == Mode::Auto { "" } else { mode.name() };
            return Err(PyValueError::new_err(format!("{name}: the table has no {which} routes")));
        }
    };
    if registry::info(&spec.name).is_some_and(|info| !info.supports(family)) {
        return Err(PyValueError::new_err(format!("algo={algo:?} does not handle {family:?}")));
    }
    let hops = table.hops.values().to_vec();
    if let Some(bad) = hops.iter().find(|v| v.contains('\n')) {
        return Err(PyValueError::new_err(format!(
            "{name}: value {bad:?} holds a line break, which an export cannot carry"
        )));
    }
    let bytes = py
        .detach(|| match family {
            Family::Ipv4 => compiled(&spec, &table.v4, hops),
            Family::Ipv6 => compiled(&spec, &table.v6, hops),
        })
        .map_err(|e| PyValueError::new_err(format!("algo={algo:?}: {e}")))?;
    // Whole or not at all: a failure leaves the file at `out` as it was (`fibforge_io::atomic`);
    // without the GIL, as the sync to the disk may take a while.
    py.detach(|| fibforge_io::atomic::write_atomically(&out, |w| w.write_all(&bytes)))
        .map_err(|e| PyOSError::new_err(format!("cannot write {}: {e}", out.display())))
}

/// The bytes of the export of `rib` compiled as `spec`, with the values `hops`.
fn compiled<A: ExportKey>(
    spec: &AlgoSpec,
    rib: &Rib<A>,
    hops: Vec<String>,
) -> Result<Vec<u8>, ExportError> {
    let mut file = fibforge::export::export(spec, rib)?;
    file.hops = hops;
    Ok(file.to_bytes())
}
