//! Every descriptor does what it claims: builds in each family it lists, takes updates
//! through [`run_incremental`] when it says so, exports and imports when it has a format;
//! aliases resolve to their structure with their options.

use super::*;
use crate::fib::Incremental;
use crate::multi::MultiWriter;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::qsbr::Concurrent;

pub(super) fn rib<A: Address>(routes: &[(A, u32, u32)]) -> Rib<A> {
    routes
        .iter()
        .map(|&(a, len, h)| (Prefix::new(a, len).unwrap(), NextHop::from_index(h)))
        .collect()
}

fn v4() -> Rib<u32> {
    rib(&[(0x0a00_0000, 8, 0), (0x0a01_0000, 16, 1), (0xc0a8_0100, 24, 2)])
}

fn v6() -> Rib<u128> {
    rib(&[(0x2001_0db8u128 << 96, 32, 0), (0x2001_0db8_0001u128 << 80, 48, 1)])
}

fn probes<A: Address>(rib: &Rib<A>) -> Vec<A> {
    crate::verify::probes(rib, 4, 64, 1)
}

fn agrees<A: Address>(f: &dyn Lookup<A>, rib: &Rib<A>) -> Result<(), String> {
    match probes(rib).into_iter().find(|&a| f.lookup(a) != rib.lookup(a)) {
        Some(a) => Err(format!("differs from the RIB at {a:?}")),
        None => Ok(()),
    }
}

#[test]
fn every_row_builds_in_the_families_it_claims() {
    for row in ALGORITHMS {
        let spec = AlgoSpec::named(row.name);
        if row.ipv4.is_some() {
            let f = build(&spec, &v4()).unwrap_or_else(|e| panic!("{}: {e}", row.name));
            agrees(&*f, &v4()).unwrap_or_else(|e| panic!("{} IPv4: {e}", row.name));
        } else {
            assert!(build(&spec, &v4()).is_err(), "{}", row.name);
        }
        if row.ipv6.is_some() {
            let f = build(&spec, &v6()).unwrap_or_else(|e| panic!("{}: {e}", row.name));
            agrees(&*f, &v6()).unwrap_or_else(|e| panic!("{} IPv6: {e}", row.name));
        }
    }
}

#[test]
fn aliases_resolve_to_their_structure_with_their_options() {
    let (row, spec) = resolve(&"poptrie16:aggregate=off".parse().unwrap()).unwrap();
    assert_eq!((row.name, row.id), ("poptrie16", StructureId::Poptrie));
    assert_eq!(spec.to_string(), "poptrie:aggregate=off,s=16");
    let (_, spec) = resolve(&"poptrie0:s=4".parse().unwrap()).unwrap();
    assert_eq!(spec.to_string(), "poptrie:s=4", "a given option wins");
    for row in ALGORITHMS.iter().filter(|r| r.alias_of.is_some()) {
        let base = info(row.alias_of.unwrap()).expect("an alias names a row");
        let caps = Capabilities { replay_all: None, ..base.caps };
        assert_eq!((base.id, caps), (row.id, row.caps), "{}: its base's capabilities", row.name);
        let cfg = crate::algo::poptrie::Config::from_spec::<u32>(
            &resolve(&AlgoSpec::named(row.name)).unwrap().1,
        );
        assert_eq!(cfg.unwrap().s.to_string(), row.implies[0].1, "{}", row.name);
    }
    assert_eq!(export_format("poptrie18"), Some(crate::export::Algorithm::Poptrie));
    assert_eq!(export_format("dxr16"), None);
    assert_eq!(exporters(), "bloomfwd, poptrie and sail_l");
}

/// Compiles, applies one insertion, checks against the RIB.
struct OneUpdate<A: Address> {
    rib: Rib<A>,
    add: Prefix<A>,
}

impl<A: Address> OneUpdate<A> {
    fn run<F: Incremental<A>>(mut self, cfg: &F::Config) -> Result<(), String> {
        let mut f = F::compile(&self.rib, cfg).map_err(|e| e.to_string())?;
        self.rib.insert(self.add, NextHop::from_index(9));
        f.apply_changes(&self.rib, &[self.add]).map_err(|e| e.to_string())?;
        agrees(&f, &self.rib)?;
        (f.lookup(self.add.addr()) == Some(NextHop::from_index(9)))
            .then_some(())
            .ok_or_else(|| "the inserted route is not seen".into())
    }
}

impl<A: Address> IncrementalJob<A> for OneUpdate<A> {
    type Output = Result<&'static str, String>;
    fn concurrent<F: Concurrent<A>>(self, cfg: &F::Config) -> Self::Output {
        self.run::<F>(cfg).map(|_| "native")
    }
    fn left_right<F: Incremental<A> + 'static>(self, cfg: &F::Config) -> Self::Output
    where
        F::Config: Send + Sync,
    {
        self.run::<F>(cfg).map(|_| "left-right")
    }
    fn many_tables<W, S>(self, cfg: W::Config) -> Self::Output
    where
        W: MultiWriter<A>,
        S: Incremental<A, Config = W::Config> + 'static,
    {
        self.run::<S>(&cfg).map(|_| "many")
    }
}

fn updates_in<A: IncrementalFamily>(rib: Rib<A>, add: Prefix<A>) {
    for row in ALGORITHMS.iter().filter(|r| r.supports(A::FAMILY)) {
        let spec = match row.caps.replay_all {
            Some(p) if !p.options.is_empty() => format!("{}:{}", row.name, p.options),
            _ => row.name.to_string(),
        };
        let job = OneUpdate { rib: rib.clone(), add };
        let got = run_incremental(&spec.parse().unwrap(), job);
        let got = got.unwrap_or_else(|e| panic!("{spec}: {e}"));
        match (row.caps.updates, got) {
            (Updates::None, None) => {}
            (Updates::None, Some(_)) => panic!("{spec}: updated, though it claims none"),
            (_, None) => panic!("{spec}: claims updates, not dispatched"),
            (u, Some(r)) => {
                let how = r.unwrap_or_else(|e| panic!("{spec} {}: {e}", A::FAMILY));
                let many = row.caps.many_tables;
                let want = match u {
                    Updates::Native => "native",
                    _ if many => "many",
                    _ => "left-right",
                };
                assert_eq!(how, want, "{spec}");
            }
        }
    }
}

#[test]
fn every_incremental_row_runs_through_the_dispatch() {
    updates_in(v4(), "10.2.0.0/16".parse().unwrap());
    updates_in(v6(), "2001:db8:2::/48".parse().unwrap());
    let e = run_incremental(
        &"cpe_var".parse().unwrap(),
        OneUpdate { rib: v4(), add: "10.2.0.0/16".parse().unwrap() },
    );
    assert!(e.unwrap_err().to_string().contains("leafpush=off"));
    let none = run_incremental(
        &"nope".parse().unwrap(),
        OneUpdate { rib: v4(), add: "10.2.0.0/16".parse().unwrap() },
    );
    assert!(none.unwrap().is_none());
}

#[test]
fn replay_lists_keep_their_order() {
    let common = replay_all(false);
    assert_eq!(common.first().map(String::as_str), Some("poptrie"));
    assert!(common.contains(&"cpe_fixed:leafpush=off".to_string()));
    assert_eq!(replay_all(true), ["dir24_8", "sail_b", "sail_u", "sail_l", "sail_m"]);
    assert_eq!(common.len(), 14);
}

#[test]
fn every_export_row_round_trips() {
    fn both<A: crate::export::ExportKey + RegistryFamily>(rib: &Rib<A>) {
        for row in ALGORITHMS.iter().filter(|r| r.caps.export.is_some() && r.supports(A::FAMILY)) {
            let file = crate::export::export(&AlgoSpec::named(row.name), rib)
                .unwrap_or_else(|e| panic!("{}: {e}", row.name));
            assert_eq!(Some(file.algorithm), row.caps.export, "{}", row.name);
            let back = crate::export::ExportFile::from_bytes(&file.to_bytes()).unwrap();
            let fib = crate::export::import::<A>(&back).unwrap();
            agrees(&*fib, rib).unwrap_or_else(|e| panic!("{}: {e}", row.name));
        }
    }
    both(&v4());
    both(&v6());
    let e = crate::export::export(&AlgoSpec::named("dxr16"), &v4()).unwrap_err();
    assert!(e.to_string().contains("has no export (bloomfwd, poptrie and sail_l do)"), "{e}");
}

#[test]
fn many_table_rows_build_every_bench_spec() {
    let ribs = vec![v4(), rib(&[(0x0a00_0000, 8, 3)])];
    for spec in many_specs() {
        let m = build_many(&spec.parse().unwrap(), &ribs).expect("a row").unwrap();
        assert_eq!(m.vrfs(), 2, "{spec}");
        assert_eq!(m.lookup(1, 0x0a01_0203), Some(NextHop::from_index(3)), "{spec}");
        assert_eq!(m.lookup(0, 0x0a01_0203), Some(NextHop::from_index(1)), "{spec}");
    }
    assert!(build_many::<u32>(&AlgoSpec::named("radix"), &ribs).is_none());
    assert_eq!(comparator_specs().count(), 7);
}
