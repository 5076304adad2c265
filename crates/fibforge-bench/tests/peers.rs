//! Every peer agrees with the oracle (the RIB) on the shipped tables: the IPv4 RIS 2015 table
//! and the IPv6 default table of `data/`. A peer that is not available here is skipped with
//! the reason printed; set `FIBFORGE_REQUIRE_PEERS=dpdk,bart,...` to make that a failure
//! (CI does, for the peers it installs). No timing here.

use fibforge::Rib;
use fibforge_bench::peers::{Peer, PeerError, PeerFamily, bart};
use fibforge_bench::traffic::TrafficSource;
use fibforge_bench::verify::check;
use fibforge_bench::verify::compare;
use fibforge_io::{ReadConfig, read_table};
use std::path::PathBuf;
use std::sync::OnceLock;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data").join(name)
}

fn v4() -> &'static Rib<u32> {
    static T: OnceLock<Rib<u32>> = OnceLock::new();
    T.get_or_init(|| {
        read_table(&data("ris2015-as3856.tsv.gz"), &ReadConfig::default()).expect("IPv4 table").v4
    })
}

fn v6() -> &'static Rib<u128> {
    static T: OnceLock<Rib<u128>> = OnceLock::new();
    T.get_or_init(|| {
        read_table(&data("tier1-2024-v6.txt.gz"), &ReadConfig::default()).expect("IPv6 table").v6
    })
}

/// `false` (after printing why) when `peer` is not available and not required.
fn available(peer: Peer) -> bool {
    match peer.availability() {
        Ok(_) => true,
        Err(why) => {
            let required = std::env::var("FIBFORGE_REQUIRE_PEERS").unwrap_or_default();
            assert!(
                !required.split(',').any(|p| p.trim() == peer.name()),
                "{peer} is required but not available: {why}"
            );
            eprintln!("skipped: peer {peer} not available: {why}");
            false
        }
    }
}

fn agree<A: PeerFamily>(peer: Peer, rib: &Rib<A>) {
    if !available(peer) {
        return;
    }
    assert!(!rib.is_empty());
    let probes =
        fibforge_bench::verify::probes(rib, &[&TrafficSource::Random], 50_000, 30_000, 0, 7);
    let variants = A::variants(peer).expect("available peers have variants");
    assert!(!variants.is_empty(), "{peer} has no {} variant", A::FAMILY);
    for v in variants {
        let t0 = std::time::Instant::now();
        let built = (v.build)(rib);
        eprintln!("{} {}: built in {:.1} s", v.algo, A::FAMILY, t0.elapsed().as_secs_f64());
        match built {
            Ok(b) => {
                let c = check(&*b.fib, &probes, v.single, v.batch);
                assert_eq!(c.mismatches, 0, "{} ({peer}) {}: {:?}", v.algo, A::FAMILY, c.examples);
                assert!(c.checked >= probes.addrs.len() as u64);
                eprintln!("{} {}: {} lookups agree; {:?}", v.algo, A::FAMILY, c.checked, b.note);
            }
            Err(PeerError::NotAvailable(why)) => eprintln!("skipped: {}: {why}", v.algo),
            Err(PeerError::Failed(why)) => panic!("{} ({peer}) failed: {why}", v.algo),
        }
    }
}

#[test]
fn dpdk_ipv4_agrees_with_the_oracle() {
    agree(Peer::Dpdk, v4());
}

#[test]
fn dpdk_ipv6_agrees_with_the_oracle() {
    agree(Peer::Dpdk, v6());
}

#[test]
fn prefix_trie_agrees_with_the_oracle() {
    agree(Peer::PrefixTrie, v4());
    agree(Peer::PrefixTrie, v6());
}

#[test]
fn ip_network_table_agrees_with_the_oracle() {
    agree(Peer::IpNetworkTable, v4());
    agree(Peer::IpNetworkTable, v6());
}

#[test]
fn poptrie_crate_agrees_with_the_oracle() {
    agree(Peer::PoptrieCrate, v4());
    agree(Peer::PoptrieCrate, v6());
}

#[test]
fn treebitmap_agrees_with_the_oracle() {
    agree(Peer::TreeBitmap, v4());
    agree(Peer::TreeBitmap, v6());
}

/// A slice of the IPv4 table small enough for `rte_lpm_add` route by route (the full table
/// is written as an image), with the default route.
#[test]
fn dpdk_small_ipv4_table_agrees_through_rte_lpm_add() {
    let small: Rib<u32> = v4().iter().step_by(40).collect();
    assert!(small.len() > 10_000);
    agree(Peer::Dpdk, &small);
}

fn bart_agrees<A: PeerFamily>(rib: &Rib<A>) {
    if !available(Peer::Bart) {
        return;
    }
    let probes =
        fibforge_bench::verify::probes(rib, &[&TrafficSource::Random], 50_000, 30_000, 0, 7);
    let got = bart::answers(rib, &probes.addrs).expect("the bart helper runs");
    let c = compare(&got, &probes, "bart");
    assert_eq!(c.mismatches, 0, "bart {}: {:?}", A::FAMILY, c.examples);
    eprintln!("bart {}: {} lookups agree", A::FAMILY, c.checked);
}

#[test]
fn bart_agrees_with_the_oracle() {
    bart_agrees(v4());
    bart_agrees(v6());
}
