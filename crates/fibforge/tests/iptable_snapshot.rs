//! IpTable snapshots (feature `serde`): what is saved is what opens (routes, values, answers,
//! free value ids, both families, default and host routes), an opened table takes changes,
//! files are replaced whole, and damaged, cut, foreign, other-version and hostile files are
//! refused with an error naming the problem, never a panic.
#![cfg(feature = "serde")]

use fibforge::{IpTable, SnapshotError};
use ipnet::IpNet;
use std::net::IpAddr;
use std::path::PathBuf;

fn net(s: &str) -> IpNet {
    s.parse().unwrap()
}

fn addr(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A scratch directory of this test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("fibforge-snap-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Routes of both families: default routes, nested routes, host routes, shared values.
fn sample() -> IpTable<String> {
    let routes = [
        ("0.0.0.0/0", "default4"),
        ("10.0.0.0/8", "a"),
        ("10.1.0.0/16", "b"),
        ("10.1.2.3/32", "host4"),
        ("192.0.2.0/24", "a"),
        ("::/0", "default6"),
        ("2001:db8::/32", "b"),
        ("2001:db8:1::/48", "c"),
        ("2001:db8::1/128", "host6"),
    ];
    routes.into_iter().map(|(n, v)| (net(n), v.to_string())).collect()
}

fn answers(t: &IpTable<String>) -> Vec<Option<(IpNet, String)>> {
    let probes = [
        "10.1.2.3",
        "10.1.2.4",
        "10.2.0.0",
        "192.0.2.255",
        "8.8.8.8",
        "0.0.0.0",
        "255.255.255.255",
        "2001:db8::1",
        "2001:db8::2",
        "2001:db8:1::5",
        "2001:db9::",
        "::",
        "ffff::1",
    ];
    probes.iter().map(|a| t.lookup(addr(a)).map(|(n, v)| (n, v.clone()))).collect()
}

#[test]
fn a_saved_table_opens_with_the_same_routes_values_and_answers() {
    let scratch = Scratch::new("round-trip");
    let path = scratch.0.join("t.fibs");
    let table = sample();
    table.save(&path).unwrap();
    let opened: IpTable<String> = IpTable::open(&path).unwrap();
    assert!(opened.is_mapped() && !table.is_mapped());
    assert_eq!(opened.len(), table.len());
    assert_eq!(answers(&opened), answers(&table));
    let routes: Vec<_> = table.iter().map(|(n, v)| (n, v.clone())).collect();
    assert_eq!(opened.iter().map(|(n, v)| (n, v.clone())).collect::<Vec<_>>(), routes);
    assert_eq!(opened.get(net("10.1.0.0/16")).map(String::as_str), Some("b"));
    assert_eq!(opened.covering(net("10.1.2.3/32")).count(), 4);
    let from_bytes: IpTable<String> =
        IpTable::from_snapshot(&table.to_snapshot().unwrap()).unwrap();
    assert_eq!(answers(&from_bytes), answers(&table));
}

#[test]
fn an_empty_table_round_trips() {
    let empty: IpTable<u32> = IpTable::new();
    let opened: IpTable<u32> = IpTable::from_snapshot(&empty.to_snapshot().unwrap()).unwrap();
    assert!(opened.is_empty());
    assert_eq!(opened.lookup(addr("1.2.3.4")), None);
    assert_eq!(opened.lookup(addr("::1")), None);
}

#[test]
fn an_opened_table_takes_changes_and_saves_again() {
    let mut table = sample();
    table.remove(net("192.0.2.0/24")); // a value still carried elsewhere
    table.remove(net("2001:db8::1/128")); // the last route of its value: a free id
    let mut opened: IpTable<String> =
        IpTable::from_snapshot(&table.to_snapshot().unwrap()).unwrap();
    assert_eq!(answers(&opened), answers(&table));
    assert_eq!(opened.insert(net("10.1.0.0/16"), "changed".into()), Some("b".into()));
    assert_eq!(table.insert(net("10.1.0.0/16"), "changed".into()), Some("b".into()));
    assert!(opened.is_mapped(), "the IPv6 family, unchanged, still reads the snapshot");
    assert!(opened.lookup(addr("2001:db8::2")).is_some());
    assert_eq!(opened.insert(net("2001:db8::1/128"), "host6".into()), None);
    assert!(!opened.is_mapped(), "both families changed: both compiled into memory of their own");
    assert_eq!(table.insert(net("2001:db8::1/128"), "host6".into()), None);
    assert_eq!(opened.remove(net("10.0.0.0/8")), Some("a".into()));
    assert_eq!(table.remove(net("10.0.0.0/8")), Some("a".into()));
    assert_eq!(answers(&opened), answers(&table));
    let again: IpTable<String> = IpTable::from_snapshot(&opened.to_snapshot().unwrap()).unwrap();
    assert_eq!(answers(&again), answers(&table));
    assert_eq!(again.len(), table.len());
}

#[test]
fn other_structures_save_a_poptrie_snapshot() {
    for spec in ["bplus", "poptrie:leafvec=off", "poptrie:s=8"] {
        let mut table: IpTable<String> = IpTable::with_structure(spec).unwrap();
        table.extend(sample().iter().map(|(n, v)| (n, v.clone())));
        let opened: IpTable<String> = IpTable::from_snapshot(&table.to_snapshot().unwrap())
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(answers(&opened), answers(&table), "{spec}");
    }
}

#[test]
fn save_replaces_a_file_whole_and_an_open_table_keeps_reading_the_old_one() {
    let scratch = Scratch::new("replace");
    let path = scratch.0.join("t.fibs");
    sample().save(&path).unwrap();
    let old: IpTable<String> = IpTable::open(&path).unwrap();
    let mut newer = sample();
    newer.insert(net("10.1.0.0/16"), "newer".into());
    newer.save(&path).unwrap();
    assert_eq!(old.lookup_value(addr("10.1.9.9")).map(String::as_str), Some("b"));
    let reopened: IpTable<String> = IpTable::open(&path).unwrap();
    assert_eq!(reopened.lookup_value(addr("10.1.9.9")).map(String::as_str), Some("newer"));
    let names: Vec<_> =
        std::fs::read_dir(&scratch.0).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["t.fibs"], "no temporary file left");
    let err = sample().save(scratch.0.join("missing-dir/t.fibs")).unwrap_err();
    assert!(err.to_string().contains("missing-dir/t.fibs"), "{err}");
}

fn refused(bytes: &[u8]) -> SnapshotError {
    match IpTable::<String>::from_snapshot(bytes) {
        Ok(_) => panic!("accepted"),
        Err(e) => e,
    }
}

#[test]
fn damaged_cut_foreign_and_other_version_files_are_refused() {
    let bytes = sample().to_snapshot().unwrap();
    // Every cut in the header and array table, then cuts spread over the arrays (a snapshot
    // holds two 2^18-entry `dir` arrays: megabytes).
    let spread = |step: usize| (0..bytes.len()).step_by(bytes.len() / step);
    for len in (0..1024).chain(spread(300)).chain([bytes.len() - 1]) {
        let e = refused(&bytes[..len]);
        assert!(matches!(e, SnapshotError::Malformed { .. }), "cut at {len}: {e}");
    }
    for at in (0..1024).step_by(3).chain(spread(300)).chain([bytes.len() - 1]) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        let e = refused(&damaged);
        assert!(
            matches!(e, SnapshotError::Checksum { .. } | SnapshotError::Malformed { .. }),
            "byte {at}: {e}"
        );
    }
    let mut version = bytes.clone();
    version[8] = 2;
    assert!(refused(&version).to_string().contains("format version 2 (this reads 1)"));
    let export = b"FIBFEXP\0 an export file, not a snapshot, long enough to have a header.....";
    assert!(refused(&export.repeat(4)).to_string().contains("bad magic"));
    let e = IpTable::<String>::open("/nonexistent/t.fibs").unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/t.fibs: "), "{e}");
}

#[test]
fn values_of_another_type_are_refused() {
    let bytes = sample().to_snapshot().unwrap();
    let e = IpTable::<u8>::from_snapshot(&bytes).expect_err("strings are not u8");
    assert!(matches!(e, SnapshotError::Value { .. }), "{e}");
}

#[test]
fn readers_of_an_opened_table_follow_its_changes() {
    let mut opened: IpTable<String> =
        IpTable::from_snapshot(&sample().to_snapshot().unwrap()).unwrap();
    let mut reader = opened.reader();
    reader.online();
    assert_eq!(reader.lookup_value(addr("10.1.9.9")).map(String::as_str), Some("b"));
    assert!(opened.is_mapped(), "a reader does not take the table off its snapshot");
    reader.quiescent();
    opened.insert(net("10.1.0.0/16"), "changed".into());
    opened.remove(net("2001:db8:1::/48"));
    assert_eq!(reader.lookup_value(addr("10.1.9.9")).map(String::as_str), Some("changed"));
    assert_eq!(reader.lookup_value(addr("2001:db8:1::5")).map(String::as_str), Some("b"));
    reader.offline();
    assert_eq!(answers(&opened), {
        let mut t = sample();
        t.insert(net("10.1.0.0/16"), "changed".into());
        t.remove(net("2001:db8:1::/48"));
        answers(&t)
    });
}
