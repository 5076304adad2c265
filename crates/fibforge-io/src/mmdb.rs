//! MaxMind DB files (`.mmdb`: GeoLite2, GeoIP2, DB-IP, IPinfo and other databases in that
//! format), read with the `maxminddb` crate: every network of the database, both families,
//! becomes a route whose value is its record.
//!
//! # Values
//!
//! - With [`ReadConfig::value_field`] (a dot-separated path, `country.iso_code`,
//!   `subdivisions.0.names.en`): that field of the record; a network whose record lacks it
//!   is left out.
//! - With [`ValueColumn::OriginAs`] and no field: `autonomous_system_number` (the GeoLite2-ASN
//!   layout).
//! - Otherwise the whole record. A text field or record is its text; anything else its
//!   compact JSON (`{"country":{"iso_code":"NL"}}`); with [`ReadConfig::json_values`], every
//!   value is JSON (`"NL"` quoted), for faces that decode them into objects.
//!
//! # Networks
//!
//! An IPv6 database keeps IPv4 in its `::/96` subtree: those networks are read as IPv4
//! (`1.0.0.0/24`, not `::1.0.0.0/120`), and the subtree's aliases (`::ffff:0:0/96`, 2002::/16)
//! are not read twice. Records are decoded once each, however many networks share them.
//!
//! # Recognised
//!
//! A MaxMind DB ends with its metadata, after the marker `\xAB\xCD\xEFMaxMind.com` within
//! its last 128 KiB. [`read_table_from`](crate::read_table_from) reads a binary stream that
//! is not MRT (or a name ending in `.mmdb`) whole, up to [`MAX_MMDB_BYTES`], and reads it as a
//! MaxMind DB when the marker is there.

use crate::error::{LoadError, ReadError};
use crate::table::{LoadedTable, ReadConfig, ValueColumn};
use crate::text::RouteBatch;
use fibforge::{AnyPrefix, NextHop, Prefix};
use maxminddb::{PathElement, Reader, WithinOptions};
use std::collections::HashMap;
use std::io::Read;
use std::net::IpAddr;

/// The metadata marker of a MaxMind DB.
const MARKER: &[u8] = b"\xAB\xCD\xEFMaxMind.com";

/// The metadata lies within this many bytes of the end.
const METADATA_WINDOW: usize = 128 << 10;

/// The largest MaxMind DB read (a city database is about 60-130 MB).
pub const MAX_MMDB_BYTES: u64 = 4 << 30;

/// Reads `input` whole and, when it is a MaxMind DB, its table; `None` when the bytes carry
/// no metadata marker (not a MaxMind DB).
pub fn read_if_mmdb<R: Read>(
    input: R,
    name: &str,
    cfg: &ReadConfig,
) -> Option<Result<LoadedTable, LoadError>> {
    let mut bytes = Vec::new();
    if let Err(err) = input.take(MAX_MMDB_BYTES).read_to_end(&mut bytes) {
        // Unreadable to the end (cut short, past the decompression cap): a file named as a
        // MaxMind DB reports it; other binary data keeps the MRT diagnosis of its head.
        let named = name.to_ascii_lowercase().contains(".mmdb");
        let error = ReadError::Io { source_name: name.into(), err };
        return named.then(|| Err(LoadError::new(error, LoadedTable::new(cfg))));
    }
    let tail = &bytes[bytes.len().saturating_sub(METADATA_WINDOW)..];
    if !tail.windows(MARKER.len()).any(|w| w == MARKER) {
        return None;
    }
    Some(read_mmdb(bytes, name, cfg))
}

/// Reads a whole MaxMind DB held in `bytes`.
pub fn read_mmdb(bytes: Vec<u8>, name: &str, cfg: &ReadConfig) -> Result<LoadedTable, LoadError> {
    let fail = |table, reason: String| {
        LoadError::new(ReadError::Content { source_name: name.into(), reason }, table)
    };
    let reader = match Reader::from_source(bytes) {
        Ok(r) => r,
        Err(e) => {
            return Err(fail(LoadedTable::new(cfg), format!("not a readable MaxMind DB: {e}")));
        }
    };
    let mut table = LoadedTable::new(cfg);
    let mut routes = RouteBatch::default();
    table.json_values = cfg.json_values && cfg.value == ValueColumn::NextHop;
    let mut records =
        Records { cache: HashMap::new(), path: value_path(cfg), json: table.json_values };
    let roots: &[&str] =
        if reader.metadata().ip_version == 6 { &["0.0.0.0/0", "::/0"] } else { &["0.0.0.0/0"] };
    for root in roots {
        let cidr = root.parse().expect("a valid network");
        let walk = match reader.within(cidr, WithinOptions::default()) {
            Ok(w) => w,
            Err(e) => return Err(fail(table, format!("MaxMind DB search tree: {e}"))),
        };
        for item in walk {
            let added = item.map_err(|e| e.to_string()).and_then(|found| {
                let network = found.network().map_err(|e| e.to_string())?;
                let Some(prefix) = route_prefix(network.ip(), network.prefix(), root) else {
                    return Ok(());
                };
                let Some(offset) = found.offset() else { return Ok(()) };
                if let Some(hop) = records.hop(offset, &found, &mut table)? {
                    routes.push(prefix, hop);
                }
                Ok(())
            });
            if let Err(reason) = added {
                routes.insert_into(&mut table);
                return Err(fail(table, format!("MaxMind DB record: {reason}")));
            }
        }
    }
    routes.insert_into(&mut table);
    table.shrink_to_fit();
    Ok(table)
}

/// The route of a network the walk from `root` yields; `None` for IPv6 networks of the IPv4
/// subtree (read by the IPv4 walk).
fn route_prefix(ip: IpAddr, len: u8, root: &str) -> Option<AnyPrefix> {
    match ip {
        IpAddr::V4(a) => Some(AnyPrefix::V4(Prefix::new(a.into(), len.into()).ok()?)),
        IpAddr::V6(a) => {
            let addr = u128::from(a);
            let in_ipv4_subtree = addr >> 32 == 0 && len >= 96;
            if in_ipv4_subtree && root == "::/0" {
                return None;
            }
            Some(AnyPrefix::V6(Prefix::new(addr, len.into()).ok()?))
        }
    }
}

/// The path of the value field, as `maxminddb` walks it.
fn value_path(cfg: &ReadConfig) -> Option<Vec<String>> {
    match (&cfg.value_field, cfg.value) {
        (Some(field), _) => Some(field.split('.').map(str::to_string).collect()),
        (None, ValueColumn::OriginAs) => Some(vec!["autonomous_system_number".into()]),
        (None, ValueColumn::NextHop) => None,
    }
}

/// Records decoded once each, by their offset in the data section.
struct Records {
    cache: HashMap<usize, Option<NextHop>>,
    path: Option<Vec<String>>,
    /// Every value as JSON, strings quoted ([`ReadConfig::json_values`]).
    json: bool,
}

impl Records {
    fn hop(
        &mut self,
        offset: usize,
        found: &maxminddb::LookupResult<'_, Vec<u8>>,
        table: &mut LoadedTable,
    ) -> Result<Option<NextHop>, String> {
        if let Some(&hop) = self.cache.get(&offset) {
            return Ok(hop);
        }
        let value: Option<serde_json::Value> = match &self.path {
            None => found.decode().map_err(|e| e.to_string())?,
            Some(path) => {
                let elements: Vec<PathElement<'_>> = path
                    .iter()
                    .map(|p| match p.parse::<usize>() {
                        Ok(i) => PathElement::Index(i),
                        Err(_) => PathElement::Key(p),
                    })
                    .collect();
                found.decode_path(&elements).map_err(|e| e.to_string())?
            }
        };
        let hop = match value {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => {
                let text = if self.json { v.to_string() } else { value_text(v) };
                Some(table.hops.intern(text).map_err(|e| e.to_string())?)
            }
        };
        self.cache.insert(offset, hop);
        Ok(hop)
    }
}

/// A record's value as text: a string itself, anything else its compact JSON.
fn value_text(value: serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}
