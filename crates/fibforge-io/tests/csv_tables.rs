//! CSV tables as users download them: GeoLite2's `network,...` blocks with a header,
//! IP2Location's quoted integer ranges without one, text ranges of both families, values
//! chosen by name or as origin ASes, and the errors that name the line and the problem.

use fibforge_io::{LoadedTable, ReadConfig, ValueColumn, read_table_from};
use std::io::Cursor;

fn load_with(text: &str, cfg: &ReadConfig) -> Result<LoadedTable, fibforge_io::LoadError> {
    read_table_from(Cursor::new(text.as_bytes().to_vec()), "t.csv", cfg)
}

fn load(text: &str) -> LoadedTable {
    load_with(text, &ReadConfig::default()).unwrap_or_else(|e| panic!("{}", e.error))
}

fn error_of(text: &str, cfg: &ReadConfig) -> String {
    load_with(text, cfg).expect_err("must be refused").error.to_string()
}

/// Every route as `prefix value`, IPv4 then IPv6, in prefix order.
fn routes(t: &LoadedTable) -> Vec<String> {
    let v4 = t.v4.iter().map(|(p, h)| format!("{p} {}", t.hop_value(h)));
    let v6 = t.v6.iter().map(|(p, h)| format!("{p} {}", t.hop_value(h)));
    v4.chain(v6).collect()
}

#[test]
fn geolite2_blocks_take_the_first_column_after_the_network() {
    let t = load(
        "network,autonomous_system_number,autonomous_system_organization\n\
         1.0.0.0/24,13335,CLOUDFLARENET\n\
         2001:db8::/32,64500,\"Example, Inc.\"\n\
         8.8.8.0/24,15169,GOOGLE\n",
    );
    assert_eq!(routes(&t), ["1.0.0.0/24 13335", "8.8.8.0/24 15169", "2001:db8::/32 64500"]);
    // A quoted field is unquoted once: its own escaped quotes stay.
    let t = load("network,org\n1.0.0.0/24,\"\"\"quoted\"\"\"\n");
    assert_eq!(routes(&t), ["1.0.0.0/24 \"quoted\""]);
}

#[test]
fn a_value_column_is_chosen_by_name() {
    let cfg = ReadConfig {
        value_field: Some("Autonomous_System_Organization".into()),
        ..ReadConfig::default()
    };
    let t = load_with(
        "network,autonomous_system_number,autonomous_system_organization\n\
         1.0.0.0/24,13335,CLOUDFLARENET\n\
         2001:db8::/32,64500,\"Example, Inc.\"\n",
        &cfg,
    )
    .unwrap();
    assert_eq!(routes(&t), ["1.0.0.0/24 CLOUDFLARENET", "2001:db8::/32 Example, Inc."]);
    let cfg = ReadConfig { value_field: Some("asn".into()), ..ReadConfig::default() };
    let e = error_of("network,geoname_id\n1.0.0.0/24,5\n", &cfg);
    assert!(e.contains("t.csv:1") && e.contains("no column named 'asn'"), "{e}");
    assert!(e.contains("network, geoname_id"), "{e}");
    let e = error_of("1.0.0.0/24,5\n", &cfg);
    assert!(e.contains("no header"), "{e}");
    let e = error_of("1.0.0.0/24 5\n", &cfg);
    assert!(e.contains("a value field ('asn') applies to CSV"), "{e}");
}

#[test]
fn ip2location_integer_ranges_split_into_prefixes() {
    // IP2Location LITE ASN: "from","to","cidr","asn","as", no header.
    let t = load(
        "\"16777216\",\"16777471\",\"1.0.0.0/24\",\"13335\",\"CloudFlare Inc.\"\n\
         \"16777472\",\"16778239\",\"1.0.1.0/23\",\"-\",\"-\"\n",
    );
    assert_eq!(routes(&t), ["1.0.0.0/24 13335", "1.0.1.0/24 -", "1.0.2.0/23 -"]);
    let cfg = ReadConfig { value: ValueColumn::OriginAs, ..ReadConfig::default() };
    let t =
        load_with("\"16777216\",\"16777471\",\"1.0.0.0/24\",\"AS13335\",\"x\"\n", &cfg).unwrap();
    assert_eq!(routes(&t), ["1.0.0.0/24 13335"]);
}

#[test]
fn text_ranges_of_both_families_and_mapped_ones() {
    let t = load(
        "start,end,country\n\
         1.0.0.1,1.0.0.6,AU\n\
         ::ffff:9.0.0.0,::ffff:9.0.0.255,US\n\
         2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,NL\n\
         0.0.0.0,0.255.255.255,ZZ\n",
    );
    let want = [
        "0.0.0.0/8 ZZ",
        "1.0.0.1/32 AU",
        "1.0.0.2/31 AU",
        "1.0.0.4/31 AU",
        "1.0.0.6/32 AU",
        "9.0.0.0/24 US",
        "2001:db8::/32 NL",
    ];
    assert_eq!(routes(&t), want);
    // A range and the prefixes it was split into answer alike.
    let t = load("ip_from,ip_to,v\n10.0.0.0,10.255.255.255,a\n0.0.0.0,255.255.255.255,b\n");
    assert_eq!(routes(&t), ["0.0.0.0/0 b", "10.0.0.0/8 a"]);
}

#[test]
fn bad_records_are_refused_naming_the_line() {
    let cfg = ReadConfig::default();
    let e = error_of("start,end,v\n1.0.0.9,1.0.0.1,x\n", &cfg);
    assert!(e.contains("t.csv:2") && e.contains("after its end"), "{e}");
    let e = error_of("start,end,v\n1.0.0.0,2001:db8::,x\n", &cfg);
    assert!(e.contains("mixes IPv4 and IPv6"), "{e}");
    let e = error_of("network,v\n1.0.0.0/24,a\n1.0.0.1/24,b\n", &cfg);
    assert!(e.contains("t.csv:3") && e.contains("host bits"), "{e}");
    let e = error_of("network,v\n1.0.0.0/24,a\nnot-a-prefix,b\n", &cfg);
    assert!(e.contains("t.csv:3"), "{e}");
    let e = error_of("network,org\n1.0.0.0/24\n", &cfg);
    assert!(e.contains("no value column"), "{e}");
    let cfg = ReadConfig { value: ValueColumn::OriginAs, ..ReadConfig::default() };
    let e = error_of("network,org\n1.0.0.0/24,CLOUDFLARENET\n", &cfg);
    assert!(e.contains("AS number"), "{e}");
    // The routes before the bad line are kept.
    let partial = load_with("network,v\n1.0.0.0/24,a\nx,b\n", &ReadConfig::default())
        .expect_err("refused")
        .partial;
    assert_eq!(routes(&partial), ["1.0.0.0/24 a"]);
}

#[test]
fn text_tables_with_commas_stay_text_tables() {
    // An AS_SET origin has a comma after a space; "hello, world" names no column.
    let t = load("10.0.0.0/8 192.0.2.1 {64500,64501}\n");
    assert_eq!(routes(&t), ["10.0.0.0/8 192.0.2.1"]);
    let e = error_of("hello, world\n", &ReadConfig::default());
    assert!(e.contains("not a valid"), "{e}");
}
