//! IpTable against a model (a map of networks and a brute-force longest match) under random
//! changes of both families, and the values' sharing invariant after each.

use super::IpTable;
use crate::rng::XorShift64 as Rng;
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A random network in a small space (so that networks nest and repeat).
fn random_net(rng: &mut Rng) -> IpNet {
    if rng.below(2) == 0 {
        let addr = Ipv4Addr::from((rng.below(16) as u32) << 28 | (rng.below(4) as u32) << 20);
        IpNet::V4(Ipv4Net::new(addr, rng.below(33) as u8).unwrap().trunc())
    } else {
        let addr = Ipv6Addr::from((rng.below(16) as u128) << 124 | (rng.below(4) as u128) << 100);
        IpNet::V6(Ipv6Net::new(addr, rng.below(129) as u8).unwrap().trunc())
    }
}

fn random_addr(rng: &mut Rng) -> IpAddr {
    if rng.below(2) == 0 {
        IpAddr::V4(Ipv4Addr::from((rng.below(16) as u32) << 28 | (rng.below(8) as u32) << 20))
    } else {
        IpAddr::V6(Ipv6Addr::from((rng.below(16) as u128) << 124 | (rng.below(8) as u128) << 100))
    }
}

/// The longest network of `model` containing `addr`.
fn model_lookup(model: &BTreeMap<IpNet, u8>, addr: IpAddr) -> Option<(IpNet, &u8)> {
    model
        .iter()
        .filter(|(n, _)| n.contains(&addr))
        .max_by_key(|(n, _)| n.prefix_len())
        .map(|(n, v)| (*n, v))
}

fn check_values(table: &IpTable<u8>, model: &BTreeMap<IpNet, u8>) {
    let mut routes: HashMap<u8, u32> = HashMap::new();
    for v in model.values() {
        *routes.entry(*v).or_default() += 1;
    }
    assert_eq!(table.values.distinct(), routes.len(), "one slot per distinct value");
    for (value, count) in routes {
        assert_eq!(table.values.routes_carrying(&value), Some(count), "routes carrying {value}");
    }
}

#[test]
fn random_changes_answer_as_the_model() {
    for structure in ["poptrie", "bplus"] {
        let mut rng = Rng::new(54);
        let mut table = IpTable::with_structure(structure).unwrap();
        let mut model = BTreeMap::new();
        for step in 0..3000 {
            let net = random_net(&mut rng);
            if rng.below(3) == 0 {
                assert_eq!(
                    table.remove(net),
                    model.remove(&net),
                    "{structure} step {step}: remove {net}"
                );
            } else {
                let value = rng.below(6) as u8;
                assert_eq!(
                    table.insert(net, value),
                    model.insert(net, value),
                    "{structure} step {step}"
                );
            }
            assert_eq!(table.len(), model.len());
            for _ in 0..8 {
                let addr = random_addr(&mut rng);
                let want = model_lookup(&model, addr);
                assert_eq!(table.lookup(addr), want, "{structure} step {step}: {addr}");
                assert_eq!(table.lookup_value(addr), want.map(|(_, v)| v));
            }
            assert_eq!(table.get(net), model.get(&net));
            if step % 100 == 0 {
                check_values(&table, &model);
                let all: Vec<_> = table.iter().map(|(n, v)| (n, *v)).collect();
                let mut sorted: Vec<_> = model.iter().map(|(n, v)| (*n, *v)).collect();
                sorted
                    .sort_by_key(|(n, _)| (matches!(n, IpNet::V6(_)), n.network(), n.prefix_len()));
                assert_eq!(all, sorted, "{structure} step {step}: iteration order");
            }
        }
        check_values(&table, &model);
    }
}
