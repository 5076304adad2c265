//! MaxMind DB files (written by `tools/make-mmdb-fixtures` with the `mmdb-writer` package):
//! every network of both families with its record, a field chosen by path, the origin AS of
//! the GeoLite2-ASN layout, IPv4 read from an IPv6 database's IPv4 subtree, and damaged or
//! foreign files refused.

use fibforge_io::{LoadedTable, ReadConfig, ValueColumn, read_table, read_table_from};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn load(name: &str, cfg: &ReadConfig) -> LoadedTable {
    read_table(&fixture(name), cfg).unwrap_or_else(|e| panic!("{}", e.error))
}

fn routes(t: &LoadedTable) -> Vec<String> {
    let v4 = t.v4.iter().map(|(p, h)| format!("{p} {}", t.hop_value(h)));
    let v6 = t.v6.iter().map(|(p, h)| format!("{p} {}", t.hop_value(h)));
    v4.chain(v6).collect()
}

#[test]
fn an_asn_database_gives_its_records_or_its_origin_as() {
    let t = load("asn-v4.mmdb", &ReadConfig::default());
    let cloudflare =
        r#"{"autonomous_system_number":13335,"autonomous_system_organization":"CLOUDFLARENET"}"#;
    assert_eq!(routes(&t)[0], format!("1.0.0.0/24 {cloudflare}"));
    assert_eq!(t.v4.len(), 4);
    assert_eq!(t.hops.len(), 3, "records decoded once each");
    let cfg = ReadConfig { value: ValueColumn::OriginAs, ..ReadConfig::default() };
    let t = load("asn-v4.mmdb", &cfg);
    let want = ["1.0.0.0/24 13335", "8.8.4.0/24 15169", "8.8.8.0/24 15169", "10.0.0.0/8 64512"];
    assert_eq!(routes(&t), want);
}

#[test]
fn an_ipv6_database_holds_both_families_and_fields_are_chosen_by_path() {
    let cfg = ReadConfig { value_field: Some("country.iso_code".into()), ..ReadConfig::default() };
    let t = load("country-v6.mmdb", &cfg);
    let want = ["1.0.0.0/24 AU", "81.0.0.0/10 NL", "2001:db8::/32 NL", "2a00::/12 DE"];
    assert_eq!(routes(&t), want);
    // A network whose record lacks the field is left out.
    let cfg = ReadConfig { value_field: Some("country.names.en".into()), ..ReadConfig::default() };
    let t = load("country-v6.mmdb", &cfg);
    assert_eq!(
        routes(&t),
        ["1.0.0.0/24 Australia", "81.0.0.0/10 Netherlands", "2001:db8::/32 Netherlands"]
    );
}

#[test]
fn damaged_and_foreign_files_are_refused() {
    let bytes = std::fs::read(fixture("asn-v4.mmdb")).unwrap();
    // The search tree cut away: the marker is still there, the tree is not.
    let cut = bytes[bytes.len() - 200..].to_vec();
    let e = read_table_from(std::io::Cursor::new(cut), "cut.mmdb", &ReadConfig::default())
        .expect_err("refused")
        .error
        .to_string();
    assert!(e.contains("cut.mmdb") && e.contains("MaxMind DB"), "{e}");
    let e =
        read_table_from(std::io::Cursor::new(vec![0u8; 4096]), "x.mmdb", &ReadConfig::default())
            .expect_err("refused")
            .error
            .to_string();
    assert!(e.contains("not a MaxMind DB"), "{e}");
    // Binary data that is neither MRT nor a MaxMind DB keeps the MRT diagnosis.
    let e = read_table_from(std::io::Cursor::new(vec![0u8; 4096]), "x.bin", &ReadConfig::default())
        .expect_err("refused")
        .error
        .to_string();
    assert!(e.contains("MRT record header"), "{e}");
    // Every cut of the file is refused or read, never a panic.
    for end in (0..bytes.len()).step_by(7) {
        let _ = read_table_from(
            std::io::Cursor::new(bytes[..end].to_vec()),
            "c.mmdb",
            &ReadConfig::default(),
        );
    }
}

#[test]
fn json_values_quote_strings_for_faces_that_decode_them() {
    let cfg = ReadConfig {
        json_values: true,
        value_field: Some("country.iso_code".into()),
        ..ReadConfig::default()
    };
    let t = load("country-v6.mmdb", &cfg);
    assert!(t.json_values);
    assert_eq!(routes(&t)[0], "1.0.0.0/24 \"AU\"");
    let t = load("asn-v4.mmdb", &ReadConfig { json_values: true, ..ReadConfig::default() });
    assert!(routes(&t)[0].starts_with("1.0.0.0/24 {\"autonomous_system_number\":13335"));
    // Not a MaxMind DB: the flag changes nothing.
    let text = read_table_from(std::io::Cursor::new(b"10.0.0.0/8 a\n".to_vec()), "t", &cfg_json())
        .unwrap();
    assert!(!text.json_values);
}

fn cfg_json() -> ReadConfig {
    ReadConfig { json_values: true, ..ReadConfig::default() }
}
