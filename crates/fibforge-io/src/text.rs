//! Text tables: one route per line.
//!
//! Accepted lines: `prefix<TAB or spaces>nexthop[<more columns>]` (the next hop is the second
//! column, any text), or `prefix` alone (next hop assigned by [`PrefixOnlyHops`]). Empty lines
//! and lines starting with `#` or `;` are skipped. IPv4 and IPv6 may be mixed in one file.
//! The first malformed line stops the read with an error naming the line; the routes before it
//! are kept in [`LoadError::partial`].

use crate::error::{LoadError, ReadError};
use crate::table::{ReadConfig, Table};
use fibforge::AnyPrefix;
use std::io::BufRead;

/// Reads a text table from `input`; `name` is used in error messages.
pub fn read_text_table<R: BufRead>(
    mut input: R,
    name: &str,
    cfg: &ReadConfig,
) -> Result<Table, LoadError> {
    let mut table = Table::new(cfg);
    let mut buf = Vec::with_capacity(256);
    let mut line_no = 0u64;
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => {
                table.shrink_to_fit();
                return Ok(table);
            }
            Ok(_) => {}
            Err(err) => {
                let error = ReadError::Io { source_name: format!("{name}:{}", line_no + 1), err };
                return Err(LoadError::new(error, table));
            }
        }
        line_no += 1;
        if let Err(reason) = parse_line(&buf, cfg, &mut table) {
            let error = ReadError::Line { source_name: name.into(), line: line_no, reason };
            return Err(LoadError::new(error, table));
        }
    }
}

/// Parses one line into `table`; returns a description of what is wrong.
fn parse_line(raw: &[u8], cfg: &ReadConfig, table: &mut Table) -> Result<(), String> {
    let line = std::str::from_utf8(raw).map_err(|_| "line is not valid UTF-8".to_string())?;
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
        return Ok(());
    }
    let mut cols = line.split_ascii_whitespace();
    let prefix_text = cols.next().unwrap_or_default();
    let prefix = AnyPrefix::parse_with(prefix_text, cfg.mode).map_err(|e| e.to_string())?;
    let hop = match cols.next() {
        Some(value) => table.hops.intern_ref(value),
        None => table.hops.intern(cfg.prefix_only.value_for(prefix_text)),
    }
    .map_err(|e| e.to_string())?;
    table.add(prefix, hop);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::ParseMode;

    fn read(text: &str) -> Result<Table, LoadError> {
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
    }

    #[test]
    fn lenient_mode_masks_host_bits() {
        let cfg = ReadConfig { mode: ParseMode::Lenient, ..Default::default() };
        let t = read_text_table(&b"10.0.0.1/8 a\n"[..], "t", &cfg).unwrap();
        assert!(t.v4.get(&"10.0.0.0/8".parse().unwrap()).is_some());
    }
}
