//! Python objects to addresses and prefixes, with `ValueError`s that say what was
//! wrong.
//!
//! Addresses may be `str` (`"192.0.2.1"`, `"2001:db8::1"`), `ipaddress.IPv4Address` /
//! `IPv6Address` (without a zone id), or `int` (in a table of one family only: an int does
//! not say its family). A str is read as a batch reads a row of a text column
//! ([`crate::parse_ip`]: whitespace around it ignored, nothing else). Prefixes are `str` or
//! anything whose `str()` is a prefix (`ipaddress.ip_network`). File paths are `str` or
//! `os.PathLike` ([`path`]).

use crate::parse_ip;
use fibforge::{AnyPrefix, ParseMode};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyString};
use std::net::IpAddr;
use std::path::PathBuf;

/// Which families a table holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// IPv4 only.
    V4,
    /// IPv6 only.
    V6,
    /// Both; each address or prefix says which.
    Auto,
}

impl Mode {
    /// From the `family=` argument.
    pub fn parse(text: &str) -> PyResult<Mode> {
        match text.to_ascii_lowercase().as_str() {
            "ipv4" | "4" => Ok(Mode::V4),
            "ipv6" | "6" => Ok(Mode::V6),
            "auto" | "both" => Ok(Mode::Auto),
            _ => Err(PyValueError::new_err(format!(
                "family must be 'ipv4', 'ipv6' or 'auto', not {text:?}"
            ))),
        }
    }

    /// The name `Table.family` reports.
    pub fn name(self) -> &'static str {
        match self {
            Mode::V4 => "ipv4",
            Mode::V6 => "ipv6",
            Mode::Auto => "auto",
        }
    }
}

/// An address of either family.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Addr {
    /// IPv4.
    V4(u32),
    /// IPv6.
    V6(u128),
}

/// A Python address for a table of `mode`. A str is read by the batches' parser
/// ([`parse_ip::address`]), so that a text is an address alone exactly when it is one in a
/// column (issue 56).
pub fn address(obj: &Bound<'_, PyAny>, mode: Mode) -> PyResult<Addr> {
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_cow()?;
        return match parse_ip::address(text.as_bytes()) {
            Some(ip) => Ok(from_ip(ip)),
            None => Err(PyValueError::new_err(format!("{text:?} is not an IPv4 or IPv6 address"))),
        };
    }
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        return int_address(obj, mode);
    }
    if obj.hasattr("packed")? {
        refuse_zone(obj)?;
        return Ok(from_ip(obj.extract::<IpAddr>()?));
    }
    Err(PyTypeError::new_err(format!(
        "an address must be a str, an int or an ipaddress object, not {}",
        obj.get_type().name()?
    )))
}

/// ValueError for an `ipaddress.IPv6Address` with a zone id (`fe80::1%eth0`), which
/// `packed` drops: its text is refused, so the object is too (issue 56).
fn refuse_zone(obj: &Bound<'_, PyAny>) -> PyResult<()> {
    let Ok(zone) = obj.getattr("scope_id") else { return Ok(()) };
    if zone.is_none() {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "{:?} is not an IPv4 or IPv6 address: it has a zone id (%{zone}), which routes do not \
         have; look up the address without it",
        obj.str()?.to_cow()?
    )))
}

fn from_ip(ip: IpAddr) -> Addr {
    match ip {
        IpAddr::V4(a) => Addr::V4(a.into()),
        IpAddr::V6(a) => Addr::V6(a.into()),
    }
}

fn int_address(obj: &Bound<'_, PyAny>, mode: Mode) -> PyResult<Addr> {
    let range = |bits| PyValueError::new_err(format!("{obj} is not a {bits}-bit address"));
    match mode {
        Mode::V4 => obj.extract::<u32>().map(Addr::V4).map_err(|_| range(32)),
        Mode::V6 => obj.extract::<u128>().map(Addr::V6).map_err(|_| range(128)),
        Mode::Auto => Err(PyValueError::new_err(
            "an int address does not say its family: pass a str or an ipaddress object, \
             or create the table with family='ipv4' or 'ipv6'",
        )),
    }
}

/// A Python prefix (`"10.0.0.0/8"`, `ipaddress.ip_network(...)`); host bits must be zero.
pub fn prefix(obj: &Bound<'_, PyAny>) -> PyResult<AnyPrefix> {
    let text = obj.str()?;
    let text = text.to_cow()?;
    AnyPrefix::parse_with(text.trim(), ParseMode::Strict)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// What a query names: an address (longest match) or a prefix (itself, or the routes
/// around it).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// An address.
    Addr(Addr),
    /// A prefix.
    Prefix(AnyPrefix),
}

/// A Python address or prefix: a str with a `/` or an `ipaddress` network is a prefix,
/// anything else an address (as [`address`] reads it).
pub fn key(obj: &Bound<'_, PyAny>, mode: Mode) -> PyResult<Key> {
    let is_prefix = match obj.cast::<PyString>() {
        Ok(s) => s.to_cow()?.contains('/'),
        Err(_) => obj.hasattr("prefixlen")?,
    };
    if is_prefix { prefix(obj).map(Key::Prefix) } else { address(obj, mode).map(Key::Addr) }
}

/// A file path argument (`str` or `os.PathLike`, as pyo3 reads them), or TypeError saying so
/// (issue 56: pyo3's own reads "'bytes' object cannot be converted to 'PyString'").
pub fn path(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<PathBuf> {
    if let Ok(path) = obj.extract::<PathBuf>() {
        return Ok(path);
    }
    let kind = obj.get_type().name().map_or("?".into(), |n| n.to_string());
    let hint = if obj.is_instance_of::<PyBytes>() { " (decode it with os.fsdecode)" } else { "" };
    Err(PyTypeError::new_err(format!(
        "{name} must be a str or an os.PathLike such as pathlib.Path, not {kind}{hint}"
    )))
}
