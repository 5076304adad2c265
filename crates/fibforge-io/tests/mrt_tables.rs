//! MRT files read as routing tables (prefix → BGP next hop), checked against the text tables
//! that were derived from the same dumps, and the counts the issue and the data README state.

mod common;

use fibforge_io::mrt::{EntryKind, MrtReader};
use fibforge_io::{LoadedTable, PeerFilter, ReadConfig, ReadError, read_table};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

fn load(path: &Path, peer: PeerFilter) -> LoadedTable {
    let cfg = ReadConfig { peer, ..Default::default() };
    read_table(path, &cfg).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts that two tables hold the same prefixes with the same next-hop values.
fn assert_same_routes(a: &LoadedTable, b: &LoadedTable, what: &str) {
    assert_eq!((a.v4.len(), a.v6.len()), (b.v4.len(), b.v6.len()), "{what}: sizes");
    for (p, hop) in a.v4.iter() {
        let other = b.v4.get(&p).map(|h| b.hop_value(h));
        assert_eq!(Some(a.hop_value(hop)), other, "{what}: {p}");
    }
    for (p, hop) in a.v6.iter() {
        let other = b.v6.get(&p).map(|h| b.hop_value(h));
        assert_eq!(Some(a.hop_value(hop)), other, "{what}: {p}");
    }
}

#[test]
fn shipped_et_header_updates_replay_to_the_shipped_ris2015_table() {
    let data = common::repo_data();
    let replayed = load(&data.join("mrt/updates.et-header.2015.gz"), PeerFilter::All);
    let text = load(&data.join("ris2015-as3856.tsv.gz"), PeerFilter::All);
    assert_eq!((replayed.v4.len(), replayed.hops.len()), (577_703, 3_771));
    assert_same_routes(&replayed, &text, "et-header replay vs ris2015-as3856");
    let by_as = load(&data.join("mrt/updates.et-header.2015.gz"), PeerFilter::As(3856));
    assert_same_routes(&by_as, &text, "--peer-as 3856");
}

#[test]
fn every_shipped_mrt_file_loads() {
    for path in common::files_in(&common::repo_data().join("mrt")) {
        let t = load(&path, PeerFilter::All);
        assert!(!t.is_empty(), "{}", path.display());
    }
}

#[test]
fn add_path_ribs_keep_the_first_path_per_prefix() {
    let data = common::repo_data().join("mrt");
    for (file, v4, v6) in [
        ("bview.ipv4_unicast_add_path.gz", true, false),
        ("bview.ipv6_unicast_add_path.gz", false, true),
    ] {
        let path = data.join(file);
        let entries: Vec<_> =
            MrtReader::new(fibforge_io::open(&path).unwrap(), file).map(|e| e.unwrap()).collect();
        assert!(entries.iter().all(|e| e.path_id.is_some() && e.kind == EntryKind::Rib));
        let prefixes: BTreeSet<_> = entries.iter().map(|e| e.prefix).collect();
        let t = load(&path, PeerFilter::All);
        assert_eq!(t.len(), prefixes.len(), "{file}");
        assert_eq!(t.duplicates as usize, entries.len() - prefixes.len());
        assert_eq!((!t.v4.is_empty(), !t.v6.is_empty()), (v4, v6));
        for e in &entries {
            let first = entries.iter().find(|f| f.prefix == e.prefix).unwrap();
            let want = first.next_hop.unwrap_or(first.peer.ip).to_string();
            assert_eq!(t.hop_value(t.get(&e.prefix).unwrap()), want, "{}", e.prefix);
        }
    }
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn bview_2002_peer_1853_is_the_ris2002_table() {
    let Some(shared) = common::shared_data() else { return };
    let bview = shared.join("mrt/bview.20020722.2337.gz");
    let by_as = load(&bview, PeerFilter::As(1853));
    assert_eq!(by_as.v4.len(), 112_986);
    let text = load(&shared.join("tables/v4/ris2002-as1853.tsv.gz"), PeerFilter::All);
    assert_same_routes(&by_as, &text, "bview 2002 --peer-as 1853");
    let by_ip = load(&bview, PeerFilter::Ip("193.203.0.1".parse().unwrap()));
    assert_same_routes(&by_as, &by_ip, "--peer-ip 193.203.0.1");
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn ris2000_bview_with_the_length_quirk_is_read_whole() {
    let Some(shared) = common::shared_data() else { return };
    let bview = shared.join("mrt/rrc00_2000.01_bview.20000111.0032.gz");
    let mut reader = MrtReader::new(fibforge_io::open(&bview).unwrap(), "rrc00_2000.01");
    let mut ours: HashMap<(String, String, String, u32), i64> = HashMap::new();
    for e in reader.by_ref() {
        let e = e.unwrap();
        let hop = e.next_hop.unwrap().to_string();
        *ours.entry((e.prefix.to_string(), hop, e.peer.ip.to_string(), e.peer.asn)).or_default() +=
            1;
    }
    assert!(reader.stats().table_dump_length_quirk);
    let peers: BTreeSet<_> = ours.keys().map(|k| (k.2.clone(), k.3)).collect();
    let prefixes: BTreeSet<_> = ours.keys().map(|k| k.0.clone()).collect();
    assert_eq!((ours.values().sum::<i64>(), prefixes.len(), peers.len()), (452_018, 82_377, 7));
    // all_peers.tsv.gz was derived from this dump: prefix, nexthop, peer_ip, peer_as, origin.
    let all_peers = fibforge_io::open(&shared.join("multi/ris2000-v4/all_peers.tsv.gz")).unwrap();
    for line in std::io::BufRead::lines(all_peers).map(|l| l.unwrap()) {
        let f: Vec<&str> = line.split('\t').collect();
        if line.starts_with('#') {
            continue;
        }
        let key = (f[0].to_string(), f[1].to_string(), f[2].to_string(), f[3].parse().unwrap());
        *ours.entry(key).or_default() -= 1;
    }
    ours.retain(|_, n| *n != 0);
    assert!(ours.is_empty(), "{} entries differ from all_peers.tsv.gz", ours.len());
    assert_eq!(load(&bview, PeerFilter::All).v4.len(), 82_377);
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn ris2000_bview_peer_tables_are_the_multi_tables() {
    let Some(shared) = common::shared_data() else { return };
    let bview = shared.join("mrt/rrc00_2000.01_bview.20000111.0032.gz");
    for path in common::files_in(&shared.join("multi/ris2000-v4")) {
        let name = path.file_name().unwrap().to_str().unwrap();
        // AS3333_193.0.0.56.tsv.gz: one peer's table.
        let Some(ip) = name.strip_suffix(".tsv.gz").and_then(|n| n.split('_').nth(1)) else {
            continue;
        };
        let Ok(ip) = ip.parse() else { continue };
        let ours = load(&bview, PeerFilter::Ip(ip));
        assert_same_routes(&ours, &load(&path, PeerFilter::All), name);
    }
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn damaged_update_file_fails_at_its_offset_keeping_the_routes_before() {
    let Some(shared) = common::shared_data() else { return };
    let path = shared.join("mrt/rrc00_2000.03_updates.20000325.0345.gz");
    let err = read_table(&path, &ReadConfig::default()).unwrap_err();
    assert!(matches!(err.error, ReadError::Binary { offset: 214, .. }), "{err}");
    // Before the damage: two withdrawals of absent prefixes and two announcements.
    let kept: Vec<String> = err.partial.v4.iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(kept, ["194.141.31.0/24", "204.92.84.0/24"]);
}

#[test]
fn an_absent_peer_is_an_error_that_lists_the_peers() {
    let path = common::repo_data().join("mrt/updates.20100722.2015.gz");
    let err = read_table(
        &path,
        &ReadConfig { peer: PeerFilter::As(4_000_000_000), ..Default::default() },
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err.error, ReadError::Content { .. }) && msg.contains("AS286 "), "{msg}");
}

#[test]
fn update_replay_of_all_peers_keeps_each_peers_routes() {
    // updates.20100722.2015 has many peers; the union of their final tables must hold every
    // prefix that some peer still announces at the end, and nothing else.
    let path = common::repo_data().join("mrt/updates.20100722.2015.gz");
    let entries: Vec<_> =
        MrtReader::new(fibforge_io::open(&path).unwrap(), "u").map(|e| e.unwrap()).collect();
    let mut state = HashMap::new();
    for e in &entries {
        match e.kind {
            EntryKind::Withdraw => state.remove(&(e.peer, e.prefix)),
            _ => state.insert((e.peer, e.prefix), ()),
        };
    }
    let alive: BTreeSet<_> = state.keys().map(|(_, p)| *p).collect();
    let t = load(&path, PeerFilter::All);
    assert_eq!(t.len(), alive.len());
    assert!(alive.iter().all(|p| t.get(p).is_some()));
}
