//! Poptrie incremental updates on real data: real BGP update streams replayed onto real
//! tables. After every update the addresses around the changed prefix answer as the RIB;
//! every few thousand updates and at the end, every prefix boundary answers as a fresh compile
//! and the node and leaf counts are a fresh compile's.

use fibforge::algo::poptrie::{Config, Key, Poptrie};
use fibforge::{AnyPrefix, Compile, Incremental, Lookup, NextHop, Prefix, Rib};
use fibforge_io::{LoadedTable, PrefixOnlyHops, ReadConfig, UpdateKind, read_table, read_updates};
use std::path::{Path, PathBuf};

/// The workplace's shared data folder ([`fibforge_io::data`]), when it exists here.
fn shared_data() -> Option<PathBuf> {
    fibforge_io::data::shared_data_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

fn load(path: &Path) -> LoadedTable {
    let cfg = ReadConfig { prefix_only: PrefixOnlyHops::Distinct, ..Default::default() };
    read_table(path, &cfg).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A RIB and the Poptrie that follows it.
struct Replay<A: Key> {
    rib: Rib<A>,
    fib: Poptrie<A>,
    applied: usize,
}

impl<A: Key> Replay<A> {
    fn new(rib: Rib<A>, cfg: &Config) -> Self {
        let fib = Poptrie::compile(&rib, cfg).unwrap();
        Replay { rib, fib, applied: 0 }
    }

    fn apply(&mut self, prefix: Prefix<A>, hop: Option<NextHop>) {
        let mark = self.rib.change_mark();
        match hop {
            Some(h) => self.rib.insert(prefix, h),
            None => self.rib.remove(&prefix),
        };
        self.fib.apply_changes(&self.rib, self.rib.changes_since(mark)).unwrap();
        self.rib.trim_changes(self.rib.change_mark());
        self.applied += 1;
        let (first, last) = (prefix.addr().to_u128(), prefix.last().to_u128());
        let mid = first + ((last - first) >> 1);
        for a in [first, mid, last, first.wrapping_sub(1), last.wrapping_add(1)] {
            let a = A::from_u128(a);
            assert_eq!(self.fib.lookup(a), self.rib.lookup(a), "update {}: {prefix}", self.applied);
        }
        if self.applied.is_multiple_of(8000) {
            self.check_fresh();
        }
    }

    /// Every prefix boundary (and its outside neighbours) answers as a fresh compile.
    fn check_fresh(&self) {
        let fresh = Poptrie::compile(&self.rib, self.fib.config()).unwrap();
        let mut addrs = Vec::with_capacity(self.rib.len() * 4);
        for (p, _) in self.rib.iter() {
            let (first, last) = (p.addr().to_u128(), p.last().to_u128());
            addrs.extend([first, last, first.wrapping_sub(1), last.wrapping_add(1)]);
        }
        let addrs: Vec<A> = addrs.into_iter().map(A::from_u128).collect();
        let (mut got, mut want) = (vec![None; addrs.len()], vec![None; addrs.len()]);
        self.fib.lookup_batch(&addrs, &mut got);
        fresh.lookup_batch(&addrs, &mut want);
        let bad = (0..addrs.len()).find(|&i| got[i] != want[i]);
        assert!(
            bad.is_none(),
            "after {} updates: {:?} differs",
            self.applied,
            bad.map(|i| addrs[i])
        );
        let (s, f) = (self.fib.stats(), fresh.stats());
        assert_eq!((s.inodes, s.leaves), (f.inodes, f.leaves), "after {} updates", self.applied);
    }
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn linx_stream_onto_ris2015() {
    let Some(shared) = shared_data() else {
        eprintln!("../shared/data not present: skipped");
        return;
    };
    let mut table = load(&shared.join("tables/v4/ris2015-as3856.tsv.gz"));
    let mut r = Replay::new(std::mem::take(&mut table.v4), &Config::default());
    let path = shared.join("updates/linx2014-p52-v4.txt.gz");
    for u in read_updates(&path, &ReadConfig::default()).unwrap() {
        let u = u.unwrap();
        let AnyPrefix::V4(p) = u.prefix else { continue };
        r.apply(p, hop_of(&u, &mut table));
    }
    assert_eq!(r.applied, 23_446);
    r.check_fresh();
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn mrt_2010_stream_onto_ris2010_v4_and_an_empty_v6_table() {
    let Some(shared) = shared_data() else {
        eprintln!("../shared/data not present: skipped");
        return;
    };
    let mut table = load(&shared.join("tables/v4/ris2010-as4777.tsv.gz"));
    let cfg = Config { s: 16, ..Config::default() };
    let mut v4 = Replay::new(std::mem::take(&mut table.v4), &cfg);
    let mut v6 = Replay::<u128>::new(Rib::new(), &Config::for_family::<u128>());
    let path = shared.join("mrt/updates.20100722.2015.gz");
    for u in read_updates(&path, &ReadConfig::default()).unwrap() {
        let u = u.unwrap();
        let hop = hop_of(&u, &mut table);
        match u.prefix {
            AnyPrefix::V4(p) => v4.apply(p, hop),
            AnyPrefix::V6(p) => v6.apply(p, hop),
        }
    }
    assert!(v4.applied > 5000 && v6.applied > 0, "{} / {}", v4.applied, v6.applied);
    v4.check_fresh();
    v6.check_fresh();
}

fn hop_of(u: &fibforge_io::Update, table: &mut LoadedTable) -> Option<NextHop> {
    match u.kind {
        UpdateKind::Withdraw => None,
        UpdateKind::Announce => {
            Some(table.hops.intern_ref(u.next_hop.as_deref().unwrap_or("?")).unwrap())
        }
    }
}
