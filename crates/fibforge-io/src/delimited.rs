//! Comma-separated tables, as IP databases are downloaded: networks (`network,value...`, the
//! GeoLite2 layout) or address ranges (`start,end,value...`, the IP2Location and iplocation
//! layouts), with or without a header line.
//!
//! # Recognised
//!
//! A stream is read as CSV when its first line that is not blank or a `#` comment has a comma
//! before any space or tab and either names a network or range column (a header) or starts
//! with a prefix, or with two addresses (a range). Anything else is left to the text reader
//! (`hello, world` is not a table of either kind).
//!
//! # Columns
//!
//! - Network: the header's `network`, `prefix`, `cidr`, `subnet` or `net` column; without a
//!   header, the first column.
//! - Range: the header's `start`/`end` pair (`start_ip`, `ip_start`, `range_start`,
//!   `ip_from`, `first`, ... and their `end` twins); without a header, the first two
//!   columns. Addresses are text (`1.0.0.0`) or decimal integers (`16777216`, as IP2Location
//!   writes them): an integer range whose ends fit 32 bits is IPv4. IPv4-mapped IPv6 ranges
//!   (`::ffff:1.0.0.0`, IP2Location's IPv6 files) are read as IPv4. A range becomes the
//!   fewest prefixes that cover exactly it.
//! - Value: the column [`ReadConfig::value_field`] names (the header is required then);
//!   otherwise the first other column that is not itself an address (as text) or a prefix
//!   (so `"16777216","16777471","1.0.0.0/24","13335",...` takes `13335`). With
//!   [`ValueColumn::OriginAs`], the first such column that is an AS number (`AS` prefix
//!   allowed), written as plain decimal. An empty field is the value `""`.
//!
//! Quoted fields (RFC 4180) are unquoted; spaces around fields are trimmed. The first bad
//! record stops the read with an error naming `file:line`; the routes before it are kept in
//! [`LoadError::partial`](crate::LoadError).

use crate::error::{LoadError, ReadError, quote};
use crate::table::{LoadedTable, ReadConfig, ValueColumn};
use crate::text::{RouteBatch, parse_asn, parse_prefix};
use fibforge::{AnyPrefix, NextHop, ParseMode, Prefix};
use std::io::Read;
use std::net::IpAddr;

const NETWORK_NAMES: &[&str] = &["network", "prefix", "cidr", "subnet", "net"];
const START_NAMES: &[&str] =
    &["start", "start_ip", "ip_start", "range_start", "ip_from", "from", "first", "first_ip"];
const END_NAMES: &[&str] =
    &["end", "end_ip", "ip_end", "range_end", "ip_to", "to", "last", "last_ip"];

/// Where a record keeps its routes' keys.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Keys {
    /// A prefix in this column.
    Network(usize),
    /// A range from the first column to the second.
    Range(usize, usize),
}

/// The columns of the table: its keys and its value.
#[derive(Clone, Debug)]
struct Layout {
    keys: Keys,
    /// The value's column when a header chose it by name (`None`: found per record).
    value: Option<usize>,
    header: bool,
}

/// True when `head` (the stream's first bytes) starts like a CSV table (see the module docs).
pub fn looks_like_csv(head: &[u8]) -> bool {
    let Some(line) = head
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .find(|l| !l.iter().all(u8::is_ascii_whitespace) && !l.starts_with(b"#"))
    else {
        return false;
    };
    let comma = line.iter().position(|&b| b == b',');
    let blank = line.iter().position(|&b| b == b' ' || b == b'\t');
    match (comma, blank) {
        (Some(c), Some(b)) if b < c => return false,
        (None, _) => return false,
        _ => {}
    }
    let Ok(text) = std::str::from_utf8(line) else { return false };
    let fields: Vec<&str> = text.split(',').map(unquote).collect();
    header_keys(&fields).is_some() || data_keys(&fields).is_some()
}

fn unquote(field: &str) -> &str {
    let t = field.trim();
    t.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(t).trim()
}

fn named(fields: &[&str], names: &[&str]) -> Option<usize> {
    names.iter().find_map(|n| fields.iter().position(|f| f.eq_ignore_ascii_case(n)))
}

/// The key columns a header names.
fn header_keys(fields: &[&str]) -> Option<Keys> {
    if let Some(net) = named(fields, NETWORK_NAMES) {
        return Some(Keys::Network(net));
    }
    Some(Keys::Range(named(fields, START_NAMES)?, named(fields, END_NAMES)?))
}

/// The key columns of a data record: a prefix first, or two addresses.
fn data_keys(fields: &[&str]) -> Option<Keys> {
    let first = fields.first()?;
    if first.contains('/') && AnyPrefix::parse_with(first, ParseMode::Lenient).is_ok() {
        return Some(Keys::Network(0));
    }
    let second = fields.get(1)?;
    (address(first).is_some() && address(second).is_some()).then_some(Keys::Range(0, 1))
}

/// An address as text or as a decimal integer (`None`: neither).
fn address(text: &str) -> Option<Address> {
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Some(match ip {
            IpAddr::V4(a) => Address::V4(a.into()),
            IpAddr::V6(a) => match a.to_ipv4_mapped() {
                Some(v4) => Address::V4(v4.into()),
                None => Address::V6(a.into()),
            },
        });
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u128>().ok().map(Address::Integer)
}

/// A range end as read: its family known (text) or not yet (an integer).
#[derive(Copy, Clone, Debug)]
enum Address {
    V4(u32),
    V6(u128),
    Integer(u128),
}

/// Reads a CSV table from `input`; `name` is used in error messages.
pub fn read_csv_table<R: Read>(
    input: R,
    name: &str,
    cfg: &ReadConfig,
) -> Result<LoadedTable, LoadError> {
    let mut table = LoadedTable::new(cfg);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(input);
    let mut routes = RouteBatch::default();
    let mut layout: Option<Layout> = None;
    let mut record = csv::StringRecord::new();
    let mut line = 0;
    let failure = loop {
        match reader.read_record(&mut record) {
            Ok(false) => break None,
            Ok(true) => {}
            Err(e) => break Some(csv_error(name, &e)),
        }
        line = record.position().map_or(line + 1, csv::Position::line);
        // The csv reader has unquoted and trimmed the fields already.
        let fields: Vec<&str> = record.iter().collect();
        if fields.iter().all(|f| f.is_empty()) {
            continue;
        }
        let line_error = |reason| ReadError::Line { source_name: name.into(), line, reason };
        if layout.is_none() {
            match first_layout(&fields, cfg) {
                Ok(found) => {
                    let header = found.header;
                    layout = Some(found);
                    if header {
                        continue;
                    }
                }
                Err(reason) => break Some(line_error(reason)),
            }
        }
        let layout = layout.as_ref().expect("set by the first record");
        if let Err(reason) = add_record(&fields, layout, cfg, &mut table, &mut routes) {
            break Some(line_error(reason));
        }
    };
    routes.insert_into(&mut table);
    table.lines = line;
    table.shrink_to_fit();
    match failure {
        None => Ok(table),
        Some(error) => Err(LoadError::new(error, table)),
    }
}

fn csv_error(name: &str, e: &csv::Error) -> ReadError {
    let line = e.position().map_or(0, csv::Position::line);
    let reason = match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "a field is not UTF-8 text".to_string(),
        _ => e.to_string(),
    };
    match e.kind() {
        csv::ErrorKind::Io(err) => ReadError::Io {
            source_name: name.into(),
            err: std::io::Error::new(err.kind(), err.to_string()),
        },
        _ => ReadError::Line { source_name: name.into(), line, reason },
    }
}

/// The layout the first record gives: a header's named columns, or a data record's.
fn first_layout(fields: &[&str], cfg: &ReadConfig) -> Result<Layout, String> {
    if let Some(keys) = header_keys(fields) {
        let value = match &cfg.value_field {
            Some(want) => {
                Some(fields.iter().position(|f| f.eq_ignore_ascii_case(want)).ok_or_else(|| {
                    format!("no column named '{want}' in the header ({})", fields.join(", "))
                })?)
            }
            None => None,
        };
        return Ok(Layout { keys, value, header: true });
    }
    if let Some(want) = &cfg.value_field {
        return Err(format!(
            "the value column '{want}' is chosen by name, but the file has no header line \
             naming its columns"
        ));
    }
    match data_keys(fields) {
        Some(keys) => Ok(Layout { keys, value: None, header: false }),
        None => Err(format!(
            "neither a header naming a network or start/end column nor a record starting with \
             a prefix or a range: {}",
            quote(fields.join(",").as_bytes())
        )),
    }
}

/// Adds the routes of one data record.
fn add_record(
    fields: &[&str],
    layout: &Layout,
    cfg: &ReadConfig,
    table: &mut LoadedTable,
    routes: &mut RouteBatch,
) -> Result<(), String> {
    let value = value_text(fields, layout, cfg)?;
    let hop = intern(table, value)?;
    match layout.keys {
        Keys::Network(at) => {
            let text = field(fields, at, "network")?;
            routes.push(parse_prefix(text.as_bytes(), cfg.mode, cfg.family)?, hop);
        }
        Keys::Range(start, end) => {
            let (start, end) =
                (field(fields, start, "range start")?, field(fields, end, "range end")?);
            for prefix in range_prefixes(start, end)? {
                routes.push(prefix, hop);
            }
        }
    }
    Ok(())
}

fn field<'a>(fields: &[&'a str], at: usize, what: &str) -> Result<&'a str, String> {
    fields.get(at).copied().ok_or_else(|| format!("no {what} column (column {})", at + 1))
}

fn intern(table: &mut LoadedTable, value: String) -> Result<NextHop, String> {
    table.hops.intern(value).map_err(|e| e.to_string())
}

/// The record's value (see the module docs).
fn value_text(fields: &[&str], layout: &Layout, cfg: &ReadConfig) -> Result<String, String> {
    let keys = match layout.keys {
        Keys::Network(n) => [Some(n), None],
        Keys::Range(s, e) => [Some(s), Some(e)],
    };
    let candidates = |at: &usize| !keys.contains(&Some(*at));
    let chosen: Vec<usize> = match layout.value {
        Some(at) => vec![at],
        None => (0..fields.len()).filter(candidates).collect(),
    };
    for at in chosen {
        let text = fields.get(at).copied().unwrap_or("");
        let is_key = text.parse::<IpAddr>().is_ok()
            || (text.contains('/') && AnyPrefix::parse_with(text, ParseMode::Lenient).is_ok());
        if layout.value.is_none() && is_key {
            continue;
        }
        if cfg.value == ValueColumn::OriginAs {
            let digits =
                text.strip_prefix("AS").or_else(|| text.strip_prefix("as")).unwrap_or(text);
            match parse_asn(digits) {
                Some(asn) => return Ok(asn.to_string()),
                None if layout.value.is_some() => {
                    return Err(format!("{} is not an AS number", quote(text.as_bytes())));
                }
                None => continue,
            }
        }
        return Ok(text.to_string());
    }
    Err(match cfg.value {
        ValueColumn::OriginAs => "no column holds an AS number".to_string(),
        ValueColumn::NextHop => "no value column besides the network or range".to_string(),
    })
}

/// The fewest prefixes that cover exactly `start..=end`.
fn range_prefixes(start: &str, end: &str) -> Result<Vec<AnyPrefix>, String> {
    let bad =
        |t: &str| format!("{} is not an address (text or a decimal integer)", quote(t.as_bytes()));
    let (a, b) = (address(start).ok_or_else(|| bad(start))?, address(end).ok_or_else(|| bad(end))?);
    let (lo, hi, bits) = match (a, b) {
        (Address::V4(x), Address::V4(y)) => (x.into(), y.into(), 32),
        (Address::V6(x), Address::V6(y)) => (x, y, 128),
        (Address::Integer(x), Address::Integer(y)) if y <= u32::MAX.into() => (x, y, 32),
        (Address::Integer(x), Address::Integer(y)) => (x, y, 128),
        _ => return Err(format!("range {start} - {end} mixes IPv4 and IPv6")),
    };
    if lo > hi {
        return Err(format!("range start {start} is after its end {end}"));
    }
    let mut out = Vec::new();
    split_range(lo, hi, bits, |addr, len| {
        out.push(if bits == 32 {
            AnyPrefix::V4(Prefix::new(addr as u32, len).expect("an aligned block"))
        } else {
            AnyPrefix::V6(Prefix::new(addr, len).expect("an aligned block"))
        });
    });
    Ok(out)
}

/// Calls `emit(address, length)` for the fewest aligned blocks covering `lo..=hi` in a space
/// of `bits` bits, in address order.
fn split_range(lo: u128, hi: u128, bits: u32, mut emit: impl FnMut(u128, u32)) {
    let mut at = lo;
    loop {
        let aligned = if at == 0 { bits } else { at.trailing_zeros().min(bits) };
        let span = hi - at; // addresses left, less one
        let fits = if span == u128::MAX { 128 } else { (span + 1).ilog2() };
        let size = aligned.min(fits);
        emit(at, bits - size);
        if size == 128 || at + ((1u128 << size) - 1) == hi {
            return;
        }
        at += 1u128 << size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(lo: u128, hi: u128, bits: u32) -> Vec<(u128, u32)> {
        let mut out = Vec::new();
        split_range(lo, hi, bits, |a, l| out.push((a, l)));
        out
    }

    #[test]
    fn ranges_split_into_the_fewest_aligned_blocks() {
        assert_eq!(blocks(0, u32::MAX.into(), 32), vec![(0, 0)]);
        assert_eq!(blocks(0, u128::MAX, 128), vec![(0, 0)]);
        assert_eq!(blocks(5, 5, 32), vec![(5, 32)]);
        // 1.0.0.1 - 1.0.0.6: .1/32 .2/31 .4/31 .6/32
        let base = 0x0100_0000;
        let got = blocks(base + 1, base + 6, 32);
        assert_eq!(got, vec![(base + 1, 32), (base + 2, 31), (base + 4, 31), (base + 6, 32)]);
        // every block aligned, contiguous and inside, for a sweep of small ranges
        for lo in 0..70u128 {
            for hi in lo..70 {
                let got = blocks(lo, hi, 32);
                let mut next = lo;
                for (a, l) in &got {
                    assert_eq!(*a, next);
                    let size = 1u128 << (32 - l);
                    assert_eq!(a % size, 0);
                    next = a + size;
                }
                assert_eq!(next, hi + 1, "{lo}..={hi}");
            }
        }
        assert_eq!(blocks(u128::MAX - 1, u128::MAX, 128), vec![(u128::MAX - 1, 127)]);
    }

    #[test]
    fn csv_is_recognised_by_its_first_line() {
        assert!(looks_like_csv(b"network,geoname_id\n1.0.0.0/24,5\n"));
        assert!(looks_like_csv(b"# comment\n\n1.0.0.0/24,13335,\"CLOUDFLARENET\"\n"));
        assert!(looks_like_csv(b"\"16777216\",\"16777471\",\"1.0.0.0/24\",\"13335\"\n"));
        assert!(looks_like_csv(b"1.0.0.0,1.0.0.255,13335\n"));
        assert!(looks_like_csv(b"ip_from,ip_to,asn\n"));
        assert!(!looks_like_csv(b"hello, world\n"));
        assert!(!looks_like_csv(b"10.0.0.0/8 192.0.2.1 {64500,64501}\n"));
        assert!(!looks_like_csv(b"10.0.0.0/8\tgw\n"));
        assert!(!looks_like_csv(b"a,b,c\n"));
    }
}
