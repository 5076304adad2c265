//! Expanded tries on real tables: every layout against the RIB (sampled), and the updatable
//! tries after a real BGP update stream against a fresh compile.

mod common;

use common::*;
use fibforge::algo::multibit;
use fibforge::algo::multibit::{LeafPushedTrie, UpdatableTrie};
use fibforge::{Address, Compile, Lookup, Rib};

fn cfg(levels: Option<u32>, variable: bool, packed: bool) -> multibit::Config {
    multibit::Config { levels, variable, packed, max_stride: None, leaf_pushed: true }
}

/// Builds every layout of `cfgs` and checks it against the RIB on sampled addresses.
fn check_layouts<A: Address>(name: &str, rib: &Rib<A>, cfgs: &[multibit::Config], step: usize) {
    let addrs = probes(rib, step, 100_000, 7);
    let want = expected(rib, &addrs);
    for c in cfgs {
        let lp = LeafPushedTrie::compile(rib, c).unwrap();
        assert!(lp.stats().node_bytes <= lp.stats().predicted_bytes, "{name} {c:?}");
        check(&format!("{name} leaf-pushed {c:?}"), &lp, &addrs, &want);
        drop(lp);
        let nlp = UpdatableTrie::compile(rib, c).unwrap();
        check(&format!("{name} non-leaf-pushed {c:?}"), &nlp, &addrs, &want);
    }
}

#[test]
fn ris2015_ipv4_fixed_and_variable() {
    let t = load(&repo_data("ris2015-as3856.tsv.gz"));
    let cfgs = [cfg(None, false, false), cfg(None, true, false), cfg(Some(3), true, true)];
    check_layouts("ris2015", &t.v4, &cfgs, 3);
}

#[test]
fn tier1_ipv6_fixed_and_variable() {
    let t = load(&repo_data("tier1-2024-v6.txt.gz"));
    let cfgs = [cfg(None, false, false), cfg(None, true, true)];
    check_layouts("tier1-v6", &t.v6, &cfgs, 1);
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_tables_when_present() {
    for rel in ["mixed/tier1-2024.txt.gz", "v4/ris2010-as4777.tsv.gz", "v6/linx2014-p69.txt.gz"] {
        let Some(path) = shared_data(rel) else { continue };
        let t = load(&path);
        let var = [cfg(None, true, false)];
        if !t.v4.is_empty() {
            check_layouts(rel, &t.v4, &var, 7);
        }
        if !t.v6.is_empty() {
            check_layouts(rel, &t.v6, &var, 3);
        }
    }
}

/// Replays the LINX update stream onto ris2015 and compares with a fresh compile.
fn replay(c: multibit::Config) {
    let mut t = load(&repo_data("ris2015-as3856.tsv.gz"));
    let Some(path) = shared_data("updates/linx2014-p52-v4.txt.gz") else { return };
    let updates = read_updates(&path, &mut t);
    assert_eq!(updates.len(), 23_446);
    let mut rib = t.v4;
    let mut trie = UpdatableTrie::compile(&rib, &c).unwrap();
    let touched = common::replay(&updates, &mut rib, &mut trie);
    let fresh = UpdatableTrie::compile(&rib, &c).unwrap();
    let mut addrs = probes(&rib, 2, 200_000, 11);
    for p in &touched {
        let (a, l) = (p.addr(), p.last());
        addrs.extend([a, l, a.wrapping_sub(1), l.wrapping_add(1)]);
    }
    let want = expected(&rib, &addrs);
    check(&format!("replayed {c:?}"), &trie, &addrs, &want);
    let fresh_answers: Vec<_> = addrs.iter().map(|&a| fresh.lookup(a)).collect();
    assert_eq!(fresh_answers, want, "fresh compile {c:?}");
    let (s, f) = (trie.stats(), fresh.stats());
    assert!(s.levels <= f.levels.max(4), "replay deepened the trie: {s:?} vs {f:?}");
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn fixed_stride_trie_follows_real_updates() {
    replay(cfg(None, false, false));
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn variable_stride_packed_trie_follows_real_updates() {
    replay(cfg(None, true, true));
}
