//! `Structure::parse` and the tables it names (moved from `sync/any.rs`).

use super::*;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

fn p4(text: &str) -> Prefix<u32> {
    text.parse().unwrap()
}

#[test]
fn names_and_options_parse() {
    assert_eq!(Structure::parse::<u32>("poptrie").unwrap(), Structure::default_for::<u32>());
    assert_eq!(Structure::parse::<u32>("bplus").unwrap(), Structure::BPlus(Default::default()));
    let Structure::BPlus(cfg) = Structure::parse::<u128>("bplus:dir=off,delta=64").unwrap() else {
        panic!("not bplus")
    };
    assert!(!cfg.dir && cfg.delta == 64);
    let Structure::Poptrie(cfg) = Structure::parse::<u32>("poptrie:s=16").unwrap() else {
        panic!("not poptrie")
    };
    assert_eq!(cfg.s, 16);
}

#[test]
fn bad_names_and_options_name_the_choices() {
    let bad = ["dxr", "", "bplus:dir=maybe", "bplus:nope=1", "poptrie:s", "bplus:delta=0"];
    for bad in bad.into_iter().chain(["poptrie:s=25", "poptrie16:fanout=on"]) {
        let e = Structure::parse::<u32>(bad).unwrap_err().to_string();
        assert!(e.contains("poptrie") && e.contains("bplus"), "{bad}: {e}");
        assert!(e.contains(&format!("'{bad}'")), "{bad}: {e}");
    }
    let e = Structure::parse::<u32>("dxr").unwrap_err().to_string();
    assert!(e.contains("unknown structure 'dxr'"), "{e}");
}

#[test]
fn both_structures_answer_alike_through_updates_and_readers() {
    for s in ["poptrie", "bplus", "bplus:dir=off"] {
        let structure = Structure::parse::<u32>(s).unwrap();
        let mut t = AnyTable::new(Rib::new(), &structure).unwrap();
        assert_eq!(t.structure(), structure.name());
        let mut r = t.reader();
        r.online();
        let hop = NextHop::from_index;
        assert_eq!(t.insert(p4("10.0.0.0/8"), hop(1)).unwrap(), None);
        assert_eq!(t.insert(p4("10.1.0.0/16"), hop(2)).unwrap(), None);
        assert_eq!(t.insert(p4("10.1.0.0/16"), hop(3)).unwrap(), Some(hop(2)));
        r.quiescent();
        let addrs = [0x0a01_0203, 0x0a02_0000, 0x0b00_0000, u32::MAX, 0];
        let want = [Some(hop(3)), Some(hop(1)), None, None, None];
        let mut out = [None; 5];
        r.lookup_batch(&addrs, &mut out);
        assert_eq!(out, want, "{s}");
        t.lookup_batch(&addrs, &mut out);
        assert_eq!(out, want, "{s}");
        for (a, w) in addrs.iter().zip(want) {
            assert_eq!(t.lookup(*a), w, "{s}");
            assert_eq!(r.lookup(*a), w, "{s}");
        }
        assert_eq!(t.remove(&p4("10.1.0.0/16")).unwrap(), Some(hop(3)));
        assert_eq!(r.lookup(0x0a01_0203), Some(hop(1)), "{s}");
        assert_eq!(t.grace().readers(), 1);
        let r2 = r.clone();
        assert!(r.is_online() && !r2.is_online());
        assert_eq!(t.grace().readers(), 2);
        r.offline();
        assert_eq!(t.rib().len(), 1);
        assert!(t.memory_bytes() > 0);
    }
}

#[test]
fn every_table_row_builds_a_table_in_both_families() {
    for row in super::super::ALGORITHMS.iter().filter(|r| r.caps.table) {
        let v4 = Structure::parse::<u32>(row.name).unwrap();
        let v6 = Structure::parse::<u128>(row.name).unwrap();
        assert!(AnyTable::new(Rib::<u32>::new(), &v4).is_ok(), "{}", row.name);
        assert!(AnyTable::new(Rib::<u128>::new(), &v6).is_ok(), "{}", row.name);
        assert_eq!(v4.name(), row.alias_of.unwrap_or(row.name));
    }
}

#[test]
fn aliases_resolve_to_their_options() {
    let Structure::Poptrie(cfg) = Structure::parse::<u32>("poptrie16").unwrap() else {
        panic!("not poptrie")
    };
    assert_eq!(cfg.s, 16);
    let Structure::Poptrie(cfg) = Structure::parse::<u32>("poptrie16:s=8").unwrap() else {
        panic!("not poptrie")
    };
    assert_eq!(cfg.s, 8, "a given option wins over the alias's");
}
