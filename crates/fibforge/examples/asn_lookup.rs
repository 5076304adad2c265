//! Annotates addresses with the longest matching prefix and its origin AS, using only
//! [`IpTable`]: the program of the Rust guide (`docs/guide/rust.md`).
//!
//! ```text
//! cargo run --release -p fibforge --example asn_lookup -- TABLE [ADDRESSES]
//! ```
//!
//! TABLE has one route per line, `prefix<TAB>ASN` (further columns ignored, `#` comments and
//! blank lines skipped; a later line for the same prefix wins); ADDRESSES one address per line
//! (standard input when absent). Either may be gzip-compressed (`.gz`). Prints
//! `address<TAB>prefix<TAB>ASN` per address, `address<TAB>-<TAB>-` where no prefix matches.

use fibforge::IpTable;
use flate2::read::MultiGzDecoder;
use ipnet::IpNet;
use std::error::Error;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::net::IpAddr;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(table_path) = args.first() else {
        return Err("usage: asn_lookup TABLE [ADDRESSES]".into());
    };
    let table = read_table(table_path)?;
    eprintln!("{table_path}: {} prefixes", table.len());
    let input: Box<dyn BufRead> = match args.get(1) {
        Some(path) => open(path)?,
        None => Box::new(io::stdin().lock()),
    };
    let mut out = BufWriter::new(io::stdout().lock());
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let addr: IpAddr = text.parse().map_err(|e| format!("line {}: '{text}': {e}", n + 1))?;
        match table.lookup(addr) {
            Some((prefix, asn)) => writeln!(out, "{addr}\t{prefix}\t{asn}")?,
            None => writeln!(out, "{addr}\t-\t-")?,
        }
    }
    out.flush()?;
    Ok(())
}

/// The routes of a `prefix<TAB>ASN` file.
fn read_table(path: &str) -> Result<IpTable<u32>, Box<dyn Error>> {
    let mut routes = Vec::new();
    for (n, line) in open(path)?.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut columns = line.split('\t');
        let (Some(prefix), Some(asn)) = (columns.next(), columns.next()) else {
            return Err(format!("{path}:{}: expected prefix<TAB>ASN, found '{line}'", n + 1).into());
        };
        let bad = |e: &dyn Error| format!("{path}:{}: '{line}': {e}", n + 1);
        let prefix: IpNet = prefix.trim().parse().map_err(|e| bad(&e))?;
        let asn: u32 = asn.trim().parse().map_err(|e| bad(&e))?;
        routes.push((prefix, asn));
    }
    Ok(routes.into_iter().collect())
}

/// A file as lines, gunzipped when its name ends in `.gz`.
fn open(path: &str) -> Result<Box<dyn BufRead>, Box<dyn Error>> {
    let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let reader: Box<dyn Read> =
        if path.ends_with(".gz") { Box::new(MultiGzDecoder::new(file)) } else { Box::new(file) };
    Ok(Box::new(BufReader::new(reader)))
}
