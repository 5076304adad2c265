//! The origin AS of MRT routes (`MrtEntry::origin_as`, `ValueColumn::OriginAs`) against
//! independent answers:
//! - always: the shipped BGP4MP_ET update stream replayed with origin-AS values must equal
//!   the shipped `ris2015-as3856.tsv.gz`, whose origin-AS column was derived from bgpdump's
//!   text of the same stream (178 of its origins are AS_SETs, written `{a,b}`);
//! - every route of an MRT file must carry the origin AS that bgpdump's ASPATH field ends with
//!   (its last AS, or the first AS of a final `{set}`, none for an empty path): always for the
//!   shipped files whose bgpdump text `data/mrt-text` holds (`updates.20100722.2015.gz` has
//!   2-byte sessions whose origins above 65535 are in AS4_PATH), and for every file in
//!   `../shared/data/mrt` with the shared data. bgpdump merges AS4_PATH into AS_PATH for 2-byte
//!   sessions (RFC 6793), so its last AS is the real origin;
//! - with the shared data: a RIB dump loaded as a table of one peer with `OriginAs` gives each
//!   prefix the origin AS of bgpdump's line for that peer and prefix.

mod common;

use fibforge::AnyPrefix;
use fibforge::ParseMode::Strict;
use fibforge_io::mrt::{EntryKind, MrtReader};
use fibforge_io::{LoadedTable, PeerFilter, ReadConfig, ValueColumn, read_table};
use std::collections::HashMap;
use std::io::BufRead;
use std::net::IpAddr;
use std::path::Path;

/// Files whose damage ends our reading early (bgpdump prints garbage after it): the routes
/// before the damage are compared as a part of bgpdump's.
const DAMAGED: &[&str] =
    &["rrc00_2000.03_updates.20000325.0345.gz", "updates.nlri_mask_trailing_bits.gz"];

fn load_origins(path: &Path, peer: PeerFilter) -> LoadedTable {
    let cfg = ReadConfig { peer, value: ValueColumn::OriginAs, ..Default::default() };
    read_table(path, &cfg).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn shipped_updates_replay_to_the_origins_of_the_shipped_ris2015_table() {
    let data = common::repo_data();
    let replayed = load_origins(&data.join("mrt/updates.et-header.2015.gz"), PeerFilter::All);
    let text = load_origins(&data.join("ris2015-as3856.tsv.gz"), PeerFilter::All);
    assert_eq!(replayed.v4.len(), text.v4.len());
    assert!(text.hops.len() > 1000, "the text table has an origin AS per route");
    let mut differ = Vec::new();
    for (p, hop) in text.v4.iter() {
        let ours = replayed.v4.get(&p).map(|h| replayed.hop_value(h));
        if ours != Some(text.hop_value(hop)) {
            differ.push(format!("{p}: text {}, mrt {ours:?}", text.hop_value(hop)));
        }
    }
    assert!(differ.is_empty(), "{} differ: {:?}", differ.len(), &differ[..differ.len().min(5)]);
}

/// The origin AS bgpdump's ASPATH field shows: its last AS, or a final set's first AS.
fn bgpdump_origin(path: &str) -> Option<u32> {
    let last = path.split(' ').rfind(|s| !s.is_empty())?;
    let last = last.strip_prefix('{').map_or(last, |set| set.split(',').next().unwrap_or(set));
    Some(last.trim_end_matches('}').parse().unwrap_or_else(|_| panic!("AS path {path:?}")))
}

/// (kind, prefix, peer address, peer AS, origin AS).
type Route = (char, AnyPrefix, IpAddr, u32, Option<u32>);

/// The announced and RIB routes of a `bgpdump -m` text.
fn bgpdump_routes(text: &Path) -> Vec<Route> {
    let mut routes = Vec::new();
    for line in fibforge_io::open(text).unwrap().lines() {
        let line = line.unwrap();
        let f: Vec<&str> = line.split('|').collect();
        let kind = match f.get(2) {
            Some(&"A") => 'A',
            Some(&"B") => 'B',
            _ => continue,
        };
        let path = if f[0].ends_with("_AP") { f[7] } else { f[6] };
        let prefix = AnyPrefix::parse_with(f[5], Strict).unwrap();
        routes.push((
            kind,
            prefix,
            f[3].parse().unwrap(),
            f[4].parse().unwrap(),
            bgpdump_origin(path),
        ));
    }
    routes
}

/// Our announced and RIB routes (all SAFIs: bgpdump prints multicast routes too).
fn our_routes(path: &Path) -> Vec<Route> {
    let name = path.display().to_string();
    let input = fibforge_io::open(path).unwrap();
    let mut routes = Vec::new();
    for entry in MrtReader::new(input, &name) {
        let Ok(e) = entry else { break };
        let kind = match e.kind {
            EntryKind::Rib => 'B',
            EntryKind::Announce => 'A',
            EntryKind::Withdraw => continue,
        };
        routes.push((kind, e.prefix, e.peer.ip, e.peer.asn, e.origin_as));
    }
    routes
}

/// The bgpdump text of an MRT file in `data` (`data/mrt-text/NAME.*`).
fn text_of(data: &Path, mrt_name: &str) -> Option<std::path::PathBuf> {
    common::files_in(&data.join("mrt-text")).into_iter().find(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&format!("{mrt_name}.")))
    })
}

/// Compares one file's routes as multisets; returns what differs.
fn check_file(data: &Path, path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_str().unwrap();
    let Some(text) = text_of(data, name) else { return vec![] };
    let mut balance: HashMap<Route, i64> = HashMap::new();
    let ours = our_routes(path);
    for r in &ours {
        *balance.entry(*r).or_default() += 1;
    }
    for r in bgpdump_routes(&text) {
        *balance.entry(r).or_default() -= 1;
    }
    let damaged = DAMAGED.contains(&name);
    balance.retain(|_, n| if damaged { *n > 0 } else { *n != 0 });
    let mut problems: Vec<String> = balance
        .iter()
        .take(5)
        .map(|(r, n)| format!("  {name}: ours - bgpdump = {n}: {r:?}"))
        .collect();
    if !balance.is_empty() {
        problems.insert(0, format!("{name}: {} routes differ from bgpdump", balance.len()));
    }
    problems
}

/// Checks the selected MRT files of `data` (`data/mrt`) that have a bgpdump text.
fn check_files(data: &Path, select: impl Fn(&str) -> bool) {
    let mut checked = 0;
    let mut problems = Vec::new();
    for path in common::files_in(&data.join("mrt")) {
        let name = path.file_name().unwrap().to_str().unwrap();
        if select(name) && text_of(data, name).is_some() {
            problems.extend(check_file(data, &path));
            checked += 1;
        }
    }
    assert!(checked > 0, "no file selected");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn shipped_mrt_origins_match_bgpdump() {
    check_files(&common::repo_data(), |_| true);
}

// Split so that the test harness runs them on both cores.
#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_rib_dump_origins_match_bgpdump() {
    let Some(shared) = common::shared_data() else { return };
    check_files(&shared, |name| name.starts_with("bview"));
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_update_origins_match_bgpdump() {
    let Some(shared) = common::shared_data() else { return };
    check_files(&shared, |name| !name.starts_with("bview"));
}

/// A one-peer table of a RIB dump: each prefix's value is the origin AS of bgpdump's line for
/// that peer (the last one for the prefix: the default duplicate policy).
#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn one_peer_table_of_a_rib_dump_has_bgpdump_origins() {
    let Some(shared) = common::shared_data() else { return };
    for (file, peer_as) in
        [("bview.20020722.2337.gz", 1853), ("bview.64k_stream_overflow.gz", 3333)]
    {
        let path = shared.join("mrt").join(file);
        let Some(text) = text_of(&shared, file) else { continue };
        let mut expected: HashMap<AnyPrefix, Option<u32>> = HashMap::new();
        for (_, prefix, _, asn, origin) in bgpdump_routes(&text) {
            if asn == peer_as {
                expected.insert(prefix, origin);
            }
        }
        assert!(!expected.is_empty(), "{file}: no route of AS{peer_as} in bgpdump's text");
        let table = load_origins(&path, PeerFilter::As(peer_as));
        assert_eq!(table.len(), expected.len(), "{file}");
        for (prefix, origin) in &expected {
            let want = origin.map_or("-".to_string(), |a| a.to_string());
            let got = table.get(prefix).map(|h| table.hop_value(h));
            assert_eq!(got, Some(want.as_str()), "{file}: {prefix}");
        }
    }
}
