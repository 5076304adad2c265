//! `fibforge snapshot TABLE FILE`: the file opens as an `IpTable<String>` whose answers (the
//! matched prefix and the next hop's text) are the table's RIB's, for each family; a table
//! without routes and an unwritable path end with status 2 and a message naming them.

use assert_cmd::Command;
use fibforge::{Address, IpTable};
use std::net::IpAddr;
use std::path::PathBuf;

const RIS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/ris2015-as3856.tsv.gz");
const V6: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/tier1-2024-v6.txt.gz");

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fibforge-snap-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fibforge").unwrap().args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// Every `step`-th route's first address and one past its last answer as the RIB does.
fn check<A: Address>(
    table: &IpTable<String>,
    loaded: &fibforge_io::LoadedTable,
    rib: &fibforge::Rib<A>,
) {
    for (p, _) in rib.iter().step_by(97) {
        for a in [p.addr(), A::from_u128(p.last().to_u128().wrapping_add(1))] {
            let want = rib
                .longest_match(a)
                .map(|(q, h)| (q.to_string(), loaded.hops.value(h).unwrap().clone()));
            let addr: IpAddr = a.to_std().to_string().parse().unwrap();
            let got = table.lookup(addr).map(|(n, v)| (n.to_string(), v.clone()));
            assert_eq!(got, want, "{addr}");
        }
    }
}

#[test]
fn a_snapshot_answers_as_the_table() {
    let dir = scratch("answers");
    for table in [RIS, V6] {
        let file = dir.join("t.fibs");
        let (code, out, err) = run(&["snapshot", table, file.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(out.starts_with("snapshot: ") && out.contains("routes"), "{out}");
        let opened: IpTable<String> = IpTable::open(&file).unwrap();
        let loaded =
            fibforge_io::read_table(std::path::Path::new(table), &Default::default()).unwrap();
        assert_eq!(opened.len(), loaded.v4.len() + loaded.v6.len());
        check(&opened, &loaded, &loaded.v4);
        check(&opened, &loaded, &loaded.v6);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn values_index_stores_the_next_hops_numbers() {
    let dir = scratch("index");
    let file = dir.join("t.fibs");
    let (code, _, err) = run(&["snapshot", "--values", "index", RIS, file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let opened: IpTable<u32> = IpTable::open(&file).unwrap();
    let loaded = fibforge_io::read_table(std::path::Path::new(RIS), &Default::default()).unwrap();
    assert_eq!(opened.len(), loaded.v4.len());
    for (p, h) in loaded.v4.iter().step_by(101) {
        let net = ipnet::Ipv4Net::new(p.addr().into(), p.len() as u8).unwrap();
        assert_eq!(opened.get(net), Some(&h.index()), "{net}");
    }
    let as_text = IpTable::<String>::open(&file).expect_err("numbers are not text");
    assert!(as_text.to_string().contains("snapshot value"), "{as_text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
