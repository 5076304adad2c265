//! `Table.load`: a file (text table, CSV, MaxMind DB or MRT dump, any compression) into the
//! routes and values of a `Table` (which [`table`](crate::table) builds from them) whose
//! values are the file's value column: the next hop's text (`value="next_hop"`), the origin
//! AS as an int (`value="origin_as"`), a CSV column or MaxMind DB field by name
//! (`value_field=`), or a MaxMind DB's whole record as Python objects (dicts), read by
//! fibforge-io ([`fibforge_io::ValueColumn`]).
//!
//! The file's next-hop ids are mapped to the table's value ids (each distinct value
//! becomes one Python object) and the routes re-encoded with their prefix lengths
//! ([`values::encode`]) without the GIL. Loading a multi-peer MRT RIB without `peer=` or
//! `peer_as=` warns (`UserWarning`) naming the peers whose routes were merged.

use crate::algos::structures;
use crate::convert::Mode;
pub use crate::value_column::{value_column, value_object};
use crate::values::{self, Values};
use fibforge::{Address, Rib};
use fibforge_io::{PeerFilter, ReadConfig, ReadError};
use pyo3::exceptions::{PyOSError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use std::ffi::CString;
use std::path::Path;

/// `Table.load`'s options, checked before the file is read.
pub struct Options {
    mode: Mode,
    read: ReadConfig,
}

impl Options {
    /// From `Table.load`'s arguments; ValueError naming the bad one.
    pub fn parse(
        family: &str,
        algo: &str,
        value: &str,
        peer: Option<&str>,
        peer_as: Option<u32>,
        value_field: Option<&str>,
    ) -> PyResult<Self> {
        let mode = Mode::parse(family)?;
        structures(mode, algo)?;
        let family = match mode {
            Mode::V4 => Some(fibforge::Family::Ipv4),
            Mode::V6 => Some(fibforge::Family::Ipv6),
            Mode::Auto => None,
        };
        // MaxMind DB records come back as JSON, decoded into Python objects below.
        let read = ReadConfig {
            family,
            value_field: value_field.map(str::to_string),
            json_values: true,
            ..read_config(value, peer, peer_as)?
        };
        Ok(Options { mode, read })
    }

    /// The families the table holds (`family=`).
    pub fn mode(&self) -> Mode {
        self.mode
    }
}

/// fibforge-io's reading options from `value=`, `peer=` and `peer_as=` (also used by
/// `fibforge.export`); ValueError naming the bad one.
pub fn read_config(value: &str, peer: Option<&str>, peer_as: Option<u32>) -> PyResult<ReadConfig> {
    let value = value_column(value)?;
    let peer = match (peer, peer_as) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err("give peer= or peer_as=, not both"));
        }
        (Some(ip), None) => PeerFilter::Ip(ip.trim().parse().map_err(|_| {
            PyValueError::new_err(format!("peer must be an IP address, not {ip:?}"))
        })?),
        (None, Some(asn)) => PeerFilter::As(asn),
        (None, None) => PeerFilter::All,
    };
    Ok(ReadConfig { peer, value, ..Default::default() })
}

/// Reads `path` into a table's IPv4 and IPv6 routes and its values (see the module docs).
pub fn load(
    py: Python<'_>,
    path: &Path,
    options: &Options,
) -> PyResult<(Rib<u32>, Rib<u128>, Values)> {
    let loaded = py
        .detach(|| fibforge_io::read_table(path, &options.read))
        .map_err(|e| read_error(e.error))?;
    let (kept, other) = match options.mode {
        Mode::V4 => (loaded.v4.len(), "ipv6"),
        Mode::V6 => (loaded.v6.len(), "ipv4"),
        Mode::Auto => (loaded.len(), ""),
    };
    if let Some(note) = loaded.no_routes(&path.display().to_string()) {
        PyErr::warn(
            py,
            &py.get_type::<PyUserWarning>(),
            &CString::new(note).unwrap_or_default(),
            1,
        )?;
    }
    if kept == 0 && !loaded.is_empty() {
        // Without this a file of the other family would load as an empty table.
        return Err(PyValueError::new_err(format!(
            "{}: holds {} routes, all {other}: not an {} table",
            path.display(),
            loaded.len(),
            options.mode.name()
        )));
    }
    if options.read.peer == PeerFilter::All && loaded.peers.len() > 1 {
        warn_merged(py, path, &loaded.peers)?;
    }
    let values = Values::new(py);
    let json_loads = match loaded.json_values {
        true => Some(py.import("json")?.getattr("loads")?),
        false => None,
    };
    let ids = loaded
        .hops
        .values()
        .iter()
        .map(|text| {
            let value = match &json_loads {
                Some(loads) => loads.call1((text.as_str(),))?,
                None => value_object(py, text, options.read.value)?,
            };
            values.intern(&value)
        })
        .collect::<PyResult<Vec<u32>>>()?;
    let (v4, v6) = (loaded.v4, loaded.v6);
    let (v4, v6) = py.detach(|| (reencode(&v4, &ids), reencode(&v6, &ids)));
    Ok((v4, v6, values))
}

/// The routes of `rib` with each file next-hop id `i` replaced by value id `ids[i]` and the
/// prefix length.
fn reencode<A: Address>(rib: &Rib<A>, ids: &[u32]) -> Rib<A> {
    let mut out = Rib::with_capacity(rib.len());
    for (p, hop) in rib.iter() {
        out.insert(p, values::encode(ids[hop.index() as usize], p.len()));
    }
    out
}

/// Warns that a RIB of several peers was merged into one table.
fn warn_merged(py: Python<'_>, path: &Path, peers: &[fibforge_io::mrt::Peer]) -> PyResult<()> {
    let listed: Vec<String> =
        peers.iter().take(10).map(|p| format!("AS{} {}", p.asn, p.ip)).collect();
    let more =
        if peers.len() > 10 { format!(" and {} more", peers.len() - 10) } else { String::new() };
    let message = format!(
        "{}: routes of {} peers merged (the first route read for a prefix wins): {}{more}; \
         choose one with peer= or peer_as=",
        path.display(),
        peers.len(),
        listed.join(", ")
    );
    let message = CString::new(message).unwrap_or_default();
    PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)
}

/// OSError for a file that cannot be read, ValueError for malformed content.
pub fn read_error(e: ReadError) -> PyErr {
    match e {
        ReadError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}
