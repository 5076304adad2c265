//! Every MRT file in `../shared/data/mrt` must decode to the entries `bgpdump -m` printed for
//! it (`../shared/data/mrt-text`), compared as multisets of
//! (kind, prefix, next hop, peer address, peer AS).
//!
//! Normalised differences of form (not of content):
//! - addresses are compared parsed (bgpdump's inet_ntop writes `2001:7f8:30::2:1:1:3030`
//!   where RFC 5952, and fibforge, write `2001:7f8:30:0:2:1:1:3030`);
//! - bgpdump prints a route without any next hop as `255.255.255.255`; fibforge gives `None`;
//! - bgpdump prints withdrawals of the deprecated BGP type (5) with the *peer's* address in
//!   place of the prefix address (`W|193.0.0.56|3333|193.0.0.56/24`, a bgpdump bug); only the
//!   length of those prefixes can be compared.
//!
//! Damaged files: fibforge stops with an error at the damaged byte after yielding the entries
//! before it; bgpdump prints the entries before it too, then (for `rrc00_2000.03`) thousands
//! of garbage withdrawals decoded from the damaged record, or (for
//! `nlri_mask_trailing_bits`) silently drops the incomplete last prefix. There, fibforge's
//! entries must be a part of bgpdump's and the error must name the damaged byte.

mod common;

use fibforge::AnyPrefix;
use fibforge::ParseMode::Strict;
use fibforge_io::mrt::{EntryKind, MrtEntry, MrtReader};
use std::collections::HashMap;
use std::io::BufRead;
use std::net::IpAddr;
use std::path::Path;

/// Damaged-by-design files and the offset of the first damaged byte, found by reading them:
/// in `rrc00_2000.03` the record at offset 188 has a cut header (its length field runs into
/// the next record), so its withdrawn-routes length at 214 is garbage; in
/// `nlri_mask_trailing_bits` the NLRI ends with a prefix length and no prefix bytes.
const DAMAGED: &[(&str, u64)] =
    &[("rrc00_2000.03_updates.20000325.0345.gz", 214), ("updates.nlri_mask_trailing_bits.gz", 88)];

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum PrefixKey {
    Full(AnyPrefix),
    /// Legacy-type withdrawals, whose address bgpdump does not print.
    LengthOnly(u32),
}

type Key = (char, PrefixKey, Option<IpAddr>, IpAddr, u32);

fn prefix_len(p: &AnyPrefix) -> u32 {
    match p {
        AnyPrefix::V4(p) => p.len(),
        AnyPrefix::V6(p) => p.len(),
    }
}

fn our_key(e: &MrtEntry, legacy: bool) -> Key {
    let kind = match e.kind {
        EntryKind::Rib => 'B',
        EntryKind::Announce => 'A',
        EntryKind::Withdraw => 'W',
    };
    let prefix = if legacy && kind == 'W' {
        PrefixKey::LengthOnly(prefix_len(&e.prefix))
    } else {
        PrefixKey::Full(e.prefix)
    };
    (kind, prefix, e.next_hop, e.peer.ip, e.peer.asn)
}

/// Parses one `bgpdump -m` line into a key; `None` for STATE lines.
fn bgpdump_key(line: &str) -> Option<Key> {
    let f: Vec<&str> = line.split('|').collect();
    let kind = match *f.get(2)? {
        "A" => 'A',
        "B" => 'B',
        "W" => 'W',
        _ => return None,
    };
    let prefix = if f[0] == "BGP" && kind == 'W' {
        PrefixKey::LengthOnly(f[5].split_once('/')?.1.parse().ok()?)
    } else {
        PrefixKey::Full(AnyPrefix::parse_with(f[5], Strict).ok()?)
    };
    let hop_field = if f[0].ends_with("_AP") { 9 } else { 8 };
    let hop = match kind {
        'W' => None,
        _ if f[hop_field] == "255.255.255.255" => None,
        _ => Some(f[hop_field].parse().ok()?),
    };
    Some((kind, prefix, hop, f[3].parse().ok()?, f[4].parse().ok()?))
}

fn read_ours(path: &Path) -> (Vec<MrtEntry>, Option<String>) {
    let input = fibforge_io::open(path).unwrap();
    let mut entries = Vec::new();
    for item in MrtReader::new(input, &path.display().to_string()) {
        match item {
            Ok(e) => entries.push(e),
            Err(e) => return (entries, Some(e.to_string())),
        }
    }
    (entries, None)
}

fn bgpdump_lines(shared: &Path, mrt_name: &str) -> Option<Vec<String>> {
    let file = common::files_in(&shared.join("mrt-text")).into_iter().find(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.starts_with(&format!("{mrt_name}."))
    })?;
    Some(fibforge_io::open(&file).unwrap().lines().map(|l| l.unwrap()).collect())
}

/// Count of each key in `ours` minus its count in `theirs`, non-zero ones only.
fn count_differences(ours: &[Key], theirs: &[Key]) -> HashMap<Key, i64> {
    let mut balance: HashMap<Key, i64> = HashMap::new();
    for k in ours {
        *balance.entry(*k).or_default() += 1;
    }
    for k in theirs {
        *balance.entry(*k).or_default() -= 1;
    }
    balance.retain(|_, n| *n != 0);
    balance
}

/// Checks one file; returns a description of what is wrong (empty when all is right).
fn check_file(shared: &Path, path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_str().unwrap();
    let Some(lines) = bgpdump_lines(shared, name) else { return vec![] };
    let (entries, error) = read_ours(path);
    let legacy = lines.iter().any(|l| l.starts_with("BGP|"));
    let ours: Vec<Key> = entries.iter().map(|e| our_key(e, legacy)).collect();
    let theirs: Vec<Key> = lines.iter().filter_map(|l| bgpdump_key(l)).collect();
    let diff = count_differences(&ours, &theirs);
    let mut problems = Vec::new();
    match DAMAGED.iter().find(|(n, _)| *n == name) {
        Some(&(_, offset)) => {
            let expected = format!("at byte offset {offset}:");
            if !error.as_deref().is_some_and(|e| e.contains(&expected)) {
                problems.push(format!("{name}: expected an error {expected}, got {error:?}"));
            }
            if entries.is_empty() || diff.values().any(|&n| n > 0) {
                problems.push(format!("{name}: the valid part is not a part of bgpdump's output"));
            }
        }
        None => {
            if let Some(e) = error {
                problems.push(format!("{name}: {e}"));
            }
            let mut shown: Vec<String> = diff
                .iter()
                .take(5)
                .map(|(k, n)| format!("  {name}: ours - bgpdump = {n}: {k:?}"))
                .collect();
            if !diff.is_empty() {
                problems.push(format!("{name}: {} keys differ from bgpdump", diff.len()));
                problems.append(&mut shown);
            }
        }
    }
    problems
}

fn check_files(select: impl Fn(&str) -> bool) {
    let Some(shared) = common::shared_data() else { return };
    let mut checked = 0;
    let mut problems = Vec::new();
    for path in common::files_in(&shared.join("mrt")) {
        let name = path.file_name().unwrap().to_str().unwrap();
        if select(name) {
            problems.extend(check_file(&shared, &path));
            checked += 1;
        }
    }
    assert!(checked > 0, "no file selected");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// Split in three so that the test harness runs them on both cores.
#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn et_header_updates_match_bgpdump() {
    check_files(|name| name.starts_with("updates.et-header"));
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn rib_dumps_match_bgpdump() {
    check_files(|name| name.starts_with("bview"));
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn other_update_files_match_bgpdump() {
    check_files(|name| !name.starts_with("bview") && !name.starts_with("updates.et-header"));
}

/// The announced / withdrawn prefix counts stated in the shared data README.
#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn update_counts_match_the_data_readme() {
    let Some(shared) = common::shared_data() else { return };
    let expected = [
        ("updates.20070211.0141.gz", 51_329, 2_328),
        ("updates.20071015.1505.gz", 10_111, 385),
        ("updates.20100722.2015.gz", 5_067, 547),
        ("updates.20160811.1600.gz", 39_256, 1_956),
        ("rrc15_2010.02_updates.20100227.1600.gz", 52_468, 1_318),
        ("rrc00_1999.09_updates.19990903.1041.gz", 65_286, 25),
    ];
    for (name, announced, withdrawn) in expected {
        let (entries, error) = read_ours(&shared.join("mrt").join(name));
        assert_eq!(error, None, "{name}");
        let count = |k| entries.iter().filter(|e| e.kind == k).count();
        assert_eq!(
            (count(EntryKind::Announce), count(EntryKind::Withdraw)),
            (announced, withdrawn),
            "{name}"
        );
    }
}
