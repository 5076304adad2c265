//! Update streams from MRT and text files.

mod common;

use fibforge_io::mrt::MrtReader;
use fibforge_io::{LoadedTable, PeerFilter, ReadConfig, ReadError, UpdateKind, read_updates};
use std::collections::BTreeSet;

fn all_updates(path: &std::path::Path, cfg: &ReadConfig) -> Vec<fibforge_io::Update> {
    read_updates(path, cfg).unwrap().map(|u| u.unwrap()).collect()
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn linx_text_stream_has_the_documented_counts() {
    let Some(shared) = common::shared_data() else { return };
    let updates =
        all_updates(&shared.join("updates/linx2014-p52-v4.txt.gz"), &ReadConfig::default());
    let announced = updates.iter().filter(|u| u.kind == UpdateKind::Announce).count();
    let prefixes: BTreeSet<_> = updates.iter().map(|u| u.prefix).collect();
    assert_eq!((updates.len(), announced, prefixes.len()), (23_446, 18_141, 3_551));
    assert!(updates.windows(2).all(|w| w[0].time_us <= w[1].time_us), "in time order");
    assert!(updates.iter().all(|u| u.peer.is_none()));
    assert!(updates.iter().all(|u| (u.kind == UpdateKind::Announce) == u.next_hop.is_some()));
}

#[test]
fn mrt_updates_carry_peers_times_and_next_hops() {
    let path = common::repo_data().join("mrt/updates.et-header.2015.gz");
    let updates = all_updates(&path, &ReadConfig::default());
    let entries = MrtReader::new(fibforge_io::open(&path).unwrap(), "et").count();
    assert_eq!(updates.len(), entries);
    assert!(updates.iter().all(|u| u.peer.is_some_and(|p| p.asn == 3856)));
    assert!(updates.iter().any(|u| u.time_us % 1_000_000 != 0), "BGP4MP_ET microseconds");
    // Replaying the stream gives the shipped table of that peer.
    let mut table = LoadedTable::new(&ReadConfig::default());
    for u in &updates {
        match (&u.kind, &u.next_hop) {
            (UpdateKind::Announce, Some(hop)) => {
                let id = table.hops.intern_ref(hop.as_str()).unwrap();
                table.set(u.prefix, id);
            }
            _ => {
                table.remove(&u.prefix);
            }
        }
    }
    let text = fibforge_io::read_table(
        &common::repo_data().join("ris2015-as3856.tsv.gz"),
        &ReadConfig::default(),
    )
    .unwrap();
    assert_eq!(table.len(), text.len());
    for (p, hop) in text.v4.iter() {
        assert_eq!(table.v4.get(&p).map(|h| table.hop_value(h)), Some(text.hop_value(hop)), "{p}");
    }
}

#[test]
fn the_peer_filter_selects_mrt_peers() {
    let path = common::repo_data().join("mrt/updates.20100722.2015.gz");
    let all = all_updates(&path, &ReadConfig::default());
    let one = all_updates(&path, &ReadConfig { peer: PeerFilter::As(286), ..Default::default() });
    assert!(!one.is_empty() && one.len() < all.len());
    assert!(one.iter().all(|u| u.peer.unwrap().asn == 286));
    assert_eq!(one.len(), all.iter().filter(|u| u.peer.unwrap().asn == 286).count());
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn damaged_mrt_streams_yield_their_valid_part_then_the_error() {
    let Some(shared) = common::shared_data() else { return };
    let path = shared.join("mrt/rrc00_2000.03_updates.20000325.0345.gz");
    let items: Vec<_> = read_updates(&path, &ReadConfig::default()).unwrap().collect();
    assert_eq!(items.len(), 5, "4 updates, then the error");
    assert!(items[..4].iter().all(|i| i.is_ok()));
    assert!(matches!(items[4], Err(ReadError::Binary { offset: 214, .. })));
}
