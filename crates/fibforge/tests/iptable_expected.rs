//! IpTable against the independently computed answers of the workplace's shared data
//! (`expected/NAME.expected.tsv.gz`: address, matched prefix, value; skipped where the shared
//! data is absent): `global2026-origin` (IPv4 and IPv6 in one table, origin AS as value,
//! prefixes listed twice where the last line wins) and `ris2015-as3856`.

mod common;

use common::shared_data;
use fibforge::IpTable;
use flate2::read::MultiGzDecoder;
use ipnet::IpNet;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::net::IpAddr;
use std::path::Path;

fn lines(path: &Path) -> impl Iterator<Item = String> {
    let file = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    BufReader::new(MultiGzDecoder::new(file)).lines().map(Result::unwrap)
}

/// The table as `prefix<TAB>value` lines: the second column is the value.
fn table(path: &Path) -> IpTable<String> {
    lines(path)
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut c = l.split('\t');
            let net: IpNet = c.next().unwrap().trim().parse().unwrap();
            (net, c.next().unwrap_or_else(|| panic!("no value: {l}")).trim().to_string())
        })
        .collect()
}

fn check(name: &str, table_rel: &str) {
    let (Some(table_path), Some(expected)) =
        (shared_data(table_rel), shared_data(&format!("expected/{name}.expected.tsv.gz")))
    else {
        return;
    };
    let table = table(&table_path);
    let mut checked = 0;
    for line in lines(&expected) {
        let mut c = line.split('\t');
        let (addr, prefix, value) = (c.next().unwrap(), c.next().unwrap(), c.next().unwrap());
        let addr: IpAddr = addr.parse().unwrap();
        let got = match table.lookup(addr) {
            Some((net, v)) => (net.to_string(), v.clone()),
            None => ("-".into(), "-".into()),
        };
        assert_eq!((got.0.as_str(), got.1.as_str()), (prefix, value), "{name}: {addr}");
        checked += 1;
    }
    assert!(checked > 1000, "{name}: only {checked} expected answers");
    eprintln!("{name}: {checked} answers as expected ({} prefixes)", table.len());
}

#[test]
fn global2026_origin_both_families_in_one_table() {
    check("global2026-origin", "tables/mixed/global2026-origin.tsv.gz");
}

#[test]
fn ris2015_as3856() {
    check("ris2015-as3856", "tables/v4/ris2015-as3856.tsv.gz");
}
