//! Text tables: one route per line.
//!
//! Accepted lines: `prefix<TAB or spaces>nexthop[<more columns>]` (the next hop is the second
//! column, any text), or `prefix` alone (next hop assigned by [`PrefixOnlyHops`]). Empty lines
//! and lines starting with `#` or `;` are skipped. IPv4 and IPv6 may be mixed in one file.
//! The first malformed line stops the read with an error naming the line; the routes before it
//! are kept in [`LoadError::partial`].
//!
//! What is refused, each with its own message (quoted content is cut to [`SHOWN_BYTES`] bytes
//! and escaped, so NUL, control and non-ASCII bytes such as a byte-order mark are visible):
//! - a line longer than [`MAX_LINE_LEN`] bytes (a file without newlines, `/dev/zero`): the
//!   read stops there instead of buffering the whole stream;
//! - a carriage return inside a line (old Mac CR-only line endings, which would otherwise
//!   merge the whole file into one line); CRLF line endings are fine;
//! - control bytes other than TAB (NUL, ...) and a UTF-8 byte-order mark;
//! - a column after the first that is itself a prefix (`10.0.0.0/8 a 11.0.0.0/8 b`: two lines
//!   merged by a lost newline). Other extra columns (an origin AS, an AS path) are ignored,
//!   unless [`ValueColumn::OriginAs`] takes the value from the last column (then a line
//!   without one, or whose last column is not an AS number, is refused);
//! - a peer selection ([`crate::PeerFilter`] other than `All`): text tables have no peers.
//!
//! Speed (about a third of a second for a million lines besides decompression and the RIB):
//! lines are handled as bytes (only the two columns used are checked for UTF-8), the common
//! `a.b.c.d/len` form is parsed by [`fast_ipv4_prefix`] with the standard parser as the
//! fallback for everything else (and for every error message), a run of equal next hops is
//! interned once, and the routes are inserted into the RIB in address order (a stable sort
//! keeps duplicates in file order, so the duplicate policy is unchanged), which keeps the
//! tree's insertion path in cache.
//!
//! [`PrefixOnlyHops`]: crate::PrefixOnlyHops

use crate::error::{LoadError, ReadError, quote};
use crate::table::{LoadedTable, PeerFilter, ReadConfig, ValueColumn};
use fibforge::{AnyPrefix, Family, NextHop, ParseMode, Prefix4, Prefix6, PrefixError};
use std::borrow::Cow;
use std::io::{BufRead, Read};

/// The longest line accepted, in bytes without the line ending (64 KiB: a route with a long
/// AS path is a few hundred bytes).
pub const MAX_LINE_LEN: usize = 64 << 10;

pub use crate::error::SHOWN_BYTES;

/// The longest text that can be a prefix (`ffff:...:255.255.255.255/128` is 49 bytes).
const MAX_PREFIX_TEXT: usize = 64;

/// Reads a text table from `input`; `name` is used in error messages.
pub fn read_text_table<R: BufRead>(
    mut input: R,
    name: &str,
    cfg: &ReadConfig,
) -> Result<LoadedTable, LoadError> {
    let mut table = LoadedTable::new(cfg);
    if cfg.peer != PeerFilter::All {
        let reason = format!(
            "a peer selection ({}) applies to MRT RIB dumps; this is a text table, which has \
             no peers",
            cfg.peer
        );
        return Err(LoadError::new(ReadError::Content { source_name: name.into(), reason }, table));
    }
    let mut routes = RouteBatch::default();
    let mut last_hop = LastHop::default();
    let mut buf = Vec::with_capacity(256);
    let mut line_no = 0u64;
    let failure = loop {
        buf.clear();
        match read_line(&mut input, &mut buf) {
            Ok(0) => break None,
            Ok(_) => {}
            Err(err) => {
                break Some(ReadError::Io { source_name: format!("{name}:{}", line_no + 1), err });
            }
        }
        line_no += 1;
        let checked = check_line(&buf, line_no);
        match checked.and_then(|line| parse_line(line, cfg, &mut table, &mut last_hop)) {
            Ok(Some((prefix, hop))) => routes.push(prefix, hop),
            Ok(None) => {}
            Err(reason) => {
                break Some(ReadError::Line { source_name: name.into(), line: line_no, reason });
            }
        }
    };
    routes.insert_into(&mut table);
    table.lines = line_no;
    table.shrink_to_fit();
    match failure {
        None => Ok(table),
        Some(error) => Err(LoadError::new(error, table)),
    }
}

/// Routes parsed but not inserted yet, per family.
#[derive(Default)]
pub(crate) struct RouteBatch {
    v4: Vec<(Prefix4, NextHop)>,
    v6: Vec<(Prefix6, NextHop)>,
}

impl RouteBatch {
    pub(crate) fn push(&mut self, prefix: AnyPrefix, hop: NextHop) {
        match prefix {
            AnyPrefix::V4(p) => self.v4.push((p, hop)),
            AnyPrefix::V6(p) => self.v6.push((p, hop)),
        }
    }

    /// Inserts in address order; the stable sort keeps duplicates in file order.
    pub(crate) fn insert_into(mut self, table: &mut LoadedTable) {
        self.v4.sort_by_key(|&(p, _)| p);
        self.v6.sort_by_key(|&(p, _)| p);
        for (p, hop) in self.v4 {
            table.add(AnyPrefix::V4(p), hop);
        }
        for (p, hop) in self.v6 {
            table.add(AnyPrefix::V6(p), hop);
        }
    }
}

/// The previous line's next-hop text and id: tables list runs of routes with one next hop.
#[derive(Default)]
struct LastHop {
    text: Vec<u8>,
    id: Option<NextHop>,
}

/// Reads one line (with its `\n`) into `buf`, at most [`MAX_LINE_LEN`] + 1 bytes of it: a
/// longer line is left unread past that point, and [`check_line`] refuses it.
pub(crate) fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    input.take(MAX_LINE_LEN as u64 + 1).read_until(b'\n', buf)
}

/// The line without its ending, or why it cannot be a table line at all.
pub(crate) fn check_line(raw: &[u8], line_no: u64) -> Result<&[u8], String> {
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    if line.len() > MAX_LINE_LEN {
        return Err(format!(
            "line is longer than the {MAX_LINE_LEN}-byte limit of text tables (is this a \
             text table?); it starts {}",
            quote(line)
        ));
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line_no == 1 && line.starts_with(b"\xEF\xBB\xBF") {
        return Err(format!(
            "the file starts with a UTF-8 byte-order mark (bytes EF BB BF): save it without \
             one; the line is {}",
            quote(line)
        ));
    }
    if line.contains(&b'\r') {
        return Err(format!(
            "carriage return inside the line (a file with old Mac CR-only line endings? convert \
             them to LF): {}",
            quote(line)
        ));
    }
    if let Some(at) = line.iter().position(|&b| (b < b' ' && b != b'\t') || b == 0x7F) {
        return Err(format!(
            "control byte 0x{:02X} at column {} (text tables hold printable text): {}",
            line[at],
            at + 1,
            quote(line)
        ));
    }
    Ok(line)
}

/// Parses one line; `Ok(None)` for blank and comment lines, `Err` describes what is wrong.
fn parse_line(
    raw: &[u8],
    cfg: &ReadConfig,
    table: &mut LoadedTable,
    last: &mut LastHop,
) -> Result<Option<(AnyPrefix, NextHop)>, String> {
    let mut cols = raw.split(|b| b.is_ascii_whitespace()).filter(|c| !c.is_empty());
    let Some(prefix_col) = cols.next() else { return Ok(None) };
    if prefix_col.starts_with(b"#") || prefix_col.starts_with(b";") {
        return Ok(None);
    }
    let prefix = parse_prefix(prefix_col, cfg.mode, cfg.family)?;
    let hop_col = cols.next();
    if let Some((n, col)) =
        hop_col.into_iter().chain(cols).enumerate().find(|(_, c)| looks_like_a_prefix(c))
    {
        return Err(format!(
            "column {} ({}) is a prefix too: two routes on one line (a lost newline?); a route \
             is `prefix nexthop [ignored columns]`",
            n + 2,
            quote(col)
        ));
    }
    let hop_col = match cfg.value {
        ValueColumn::NextHop => hop_col.map(Cow::Borrowed),
        ValueColumn::OriginAs => Some(origin_as_column(raw, hop_col)?),
    };
    let hop = match hop_col.as_deref() {
        Some(value) if last.id.is_some() && last.text == value => last.id,
        Some(value) => {
            let id = table.hops.intern_ref(utf8(value)?).map_err(|e| e.to_string())?;
            last.text.clear();
            last.text.extend_from_slice(value);
            last.id = Some(id);
            last.id
        }
        None => {
            let value = cfg.prefix_only.value_for(utf8(prefix_col)?);
            Some(table.hops.intern(value).map_err(|e| e.to_string())?)
        }
    };
    Ok(hop.map(|hop| (prefix, hop)))
}

/// The origin AS of a line (its last column, one of two or more) as canonical decimal text
/// (borrowed when the column already is).
fn origin_as_column<'a>(line: &'a [u8], second: Option<&[u8]>) -> Result<Cow<'a, [u8]>, String> {
    let Some(last) = line.split(|b| b.is_ascii_whitespace()).rfind(|c| !c.is_empty()) else {
        return Err("empty line".into());
    };
    if second.is_none() {
        return Err(format!(
            "no origin AS column (the last of two or more columns): {}",
            quote(line)
        ));
    }
    if last == b"-" {
        // No AS path (a route the peer originates itself): kept, with the value `-`.
        return Ok(Cow::Borrowed(last));
    }
    // An AS_SET origin (`{64500,64501}`, as bgpdump writes it) counts as its first AS.
    let first = last.strip_prefix(b"{").and_then(|set| set.strip_suffix(b"}"));
    let first = first.map_or(last, |set| set.split(|&b| b == b',').next().unwrap_or(set));
    let digits = first.strip_prefix(b"AS").or_else(|| first.strip_prefix(b"as")).unwrap_or(first);
    let asn = std::str::from_utf8(digits).ok().and_then(parse_asn);
    match asn {
        Some(asn) if digits == last && (last.len() == 1 || last[0] != b'0') => {
            debug_assert_eq!(asn.to_string().as_bytes(), last);
            Ok(Cow::Borrowed(last))
        }
        Some(asn) => Ok(Cow::Owned(asn.to_string().into_bytes())),
        None => Err(format!(
            "last column {} is not an origin AS (a decimal number below 2^32)",
            quote(last)
        )),
    }
}

/// A decimal AS number without sign (leading zeros allowed, as some dumps write them).
pub(crate) fn parse_asn(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A column after the first that parses as a prefix (only columns with a `/` are tried).
fn looks_like_a_prefix(col: &[u8]) -> bool {
    col.contains(&b'/')
        && col.len() <= MAX_PREFIX_TEXT
        && std::str::from_utf8(col)
            .is_ok_and(|t| AnyPrefix::parse_with(t, ParseMode::Lenient).is_ok())
}

fn utf8(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| format!("column is not valid UTF-8: {}", quote(bytes)))
}

pub(crate) fn parse_prefix(
    text: &[u8],
    mode: ParseMode,
    family: Option<Family>,
) -> Result<AnyPrefix, String> {
    if text.len() > MAX_PREFIX_TEXT || !text.is_ascii() {
        return Err(format!("{} is not a prefix", quote(text)));
    }
    if let Some((addr, len)) = fast_ipv4_prefix(text) {
        let masked = Prefix4::new_masked(addr, len)
            .ok()
            .filter(|p| mode == ParseMode::Lenient || p.addr() == addr);
        if let Some(p) = masked {
            return Ok(AnyPrefix::V4(p));
        }
    }
    let text = utf8(text)?;
    AnyPrefix::parse_with(text, mode).map_err(|e| not_a_prefix(text, e, family))
}

/// Why a first column was refused. For one that is no address: what was expected (a prefix
/// of the family the caller asked for, or of either) and the column, with the parser's
/// detail only where it tried that family (a column with a `:` is tried as IPv6, and "not a
/// valid ipv6 address" says nothing useful about a file loaded as an IPv4 table).
fn not_a_prefix(col: &str, e: PrefixError, family: Option<Family>) -> String {
    let PrefixError::BadAddress { family: tried, .. } = &e else { return e.to_string() };
    let expected = match family {
        Some(Family::Ipv4) => "an IPv4 prefix (such as 192.0.2.0/24)",
        Some(Family::Ipv6) => "an IPv6 prefix (such as 2001:db8::/32)",
        None => "an IPv4 or IPv6 prefix (such as 192.0.2.0/24 or 2001:db8::/32)",
    };
    let detail = match family {
        Some(f) if f != *tried => String::new(),
        _ => format!(" ({e})"),
    };
    format!("expected {expected} in the first column, found {}{detail}", quote(col.as_bytes()))
}

/// Parses the plain form `a.b.c.d/len` (decimal octets without leading zeros, a length of
/// one or two digits); `None` for anything else, which the standard parser then handles.
pub fn fast_ipv4_prefix(text: &[u8]) -> Option<(u32, u32)> {
    let (addr_text, len_text) = text.split_at(text.iter().position(|&b| b == b'/')?);
    let len_text = &len_text[1..];
    let mut addr = 0u32;
    let mut octets = 0;
    for part in addr_text.split(|&b| b == b'.') {
        addr = addr << 8 | small_decimal(part, 3).filter(|&v| v <= 255)?;
        octets += 1;
    }
    let len = small_decimal(len_text, 2)?;
    (octets == 4).then_some((addr, len))
}

/// A decimal of 1..=`max_digits` digits without a leading zero.
fn small_decimal(digits: &[u8], max_digits: usize) -> Option<u32> {
    if digits.is_empty() || digits.len() > max_digits || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    digits.iter().try_fold(0u32, |v, &d| d.is_ascii_digit().then(|| v * 10 + u32::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(text: &str) -> Result<LoadedTable, LoadError> {
        read_text_table(text.as_bytes(), "test", &ReadConfig::default())
    }

    #[test]
    fn reads_mixed_tables_with_comments() {
        let t = read("# c\n; c\n\n10.0.0.0/8\tgw1\textra\n2001:db8::/32 gw2\n10.0.0.0/8  gw3\n")
            .unwrap();
        assert_eq!((t.v4.len(), t.v6.len(), t.duplicates), (1, 1, 1));
        let hop = t.v4.lookup(0x0A00_0001).unwrap();
        assert_eq!(t.hop_value(hop), "gw3", "last duplicate wins");
    }

    #[test]
    fn first_wins_keeps_the_first_duplicate_despite_the_sorted_insertion() {
        let cfg =
            ReadConfig { duplicates: crate::DuplicatePolicy::FirstWins, ..Default::default() };
        let text = "11.0.0.0/8 a\n10.0.0.0/8 b\n11.0.0.0/8 c\n10.0.0.0/8 d\n";
        let t = read_text_table(text.as_bytes(), "t", &cfg).unwrap();
        assert_eq!(t.hop_value(t.v4.lookup(0x0B00_0000).unwrap()), "a");
        assert_eq!(t.hop_value(t.v4.lookup(0x0A00_0000).unwrap()), "b");
        let t = read(text).unwrap();
        assert_eq!(t.hop_value(t.v4.lookup(0x0B00_0000).unwrap()), "c");
    }

    #[test]
    fn prefix_only_lines_get_deterministic_hops() {
        let a = read("10.0.0.0/8\n11.0.0.0/8\n").unwrap();
        let b = read("10.0.0.0/8\n11.0.0.0/8\n").unwrap();
        let ha = a.hop_value(a.v4.lookup(0x0A00_0000).unwrap()).to_string();
        assert_eq!(ha, b.hop_value(b.v4.lookup(0x0A00_0000).unwrap()));
        assert!(ha.starts_with("nh"));
    }

    #[test]
    fn errors_name_the_line_and_keep_the_prefix_read() {
        let e = read("10.0.0.0/8 a\n10.0.0.1/8 b\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("test:2") && msg.contains("host bits"), "{msg}");
        assert_eq!(e.partial.len(), 1);
        for bad in ["1.2.3.4/33 x", "junk", "1.2.3/8 x", "::/129 x", "1.2.3.4 x", "\u{ff}\n"] {
            assert!(read(bad).is_err(), "{bad}");
        }
        let bytes = b"10.0.0.0/8 a\n\xff\xfe\n";
        assert!(read_text_table(&bytes[..], "t", &ReadConfig::default()).is_err());
        let bytes = b"10.0.0.0/8 \xff\n";
        assert!(read_text_table(&bytes[..], "t", &ReadConfig::default()).is_err());
    }

    #[test]
    fn origin_as_is_the_last_column() {
        let cfg = ReadConfig { value: ValueColumn::OriginAs, ..Default::default() };
        let read = |text: &str| read_text_table(text.as_bytes(), "t", &cfg);
        let t = read("10.0.0.0/8 192.0.2.1 64500\n11.0.0.0/8 AS007\n12.0.0.0/8 gw 1 2\n13.0.0.0/8 gw {5,3}\n14.0.0.0/8 gw -\n").unwrap();
        let value = |addr: u32| t.hop_value(t.v4.lookup(addr).unwrap()).to_string();
        let values = [0x0A00_0000, 0x0B00_0000, 0x0C00_0000, 0x0D00_0000, 0x0E00_0000].map(value);
        assert_eq!(values, ["64500", "7", "2", "5", "-"]);
        for (bad, why) in [
            ("10.0.0.0/8 gw\n", "not an origin AS"),
            ("10.0.0.0/8\n", "no origin AS column"),
            ("10.0.0.0/8 x 4294967296\n", "not an origin AS"),
            ("10.0.0.0/8 x {}\n", "not an origin AS"),
            ("10.0.0.0/8 x {1;2}\n", "not an origin AS"),
        ] {
            let e = read(bad).unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("t:1"), "{bad}: {e}");
        }
    }

    #[test]
    fn lenient_mode_masks_host_bits() {
        let cfg = ReadConfig { mode: ParseMode::Lenient, ..Default::default() };
        let t = read_text_table(&b"10.0.0.1/8 a\n"[..], "t", &cfg).unwrap();
        assert!(t.v4.get(&"10.0.0.0/8".parse().unwrap()).is_some());
    }

    fn std_parse(text: &str, mode: ParseMode) -> Option<AnyPrefix> {
        AnyPrefix::parse_with(text, mode).ok()
    }

    proptest! {
        #[test]
        fn fast_parser_agrees_with_the_standard_one(
            text in "[0-9]{0,4}(\\.[0-9]{0,4}){0,4}(/[0-9+]{0,3})?|[0-9./a:]{0,20}",
            lenient: bool,
        ) {
            let mode = if lenient { ParseMode::Lenient } else { ParseMode::Strict };
            prop_assert_eq!(parse_prefix(text.as_bytes(), mode, None).ok(), std_parse(&text, mode));
        }

        #[test]
        fn fast_parser_reads_every_canonical_prefix(addr: u32, len in 0u32..=32) {
            let p = Prefix4::new_masked(addr, len).unwrap();
            prop_assert_eq!(fast_ipv4_prefix(p.to_string().as_bytes()), Some((p.addr(), len)));
        }
    }
}
