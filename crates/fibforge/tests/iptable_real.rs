//! IpTable on the repository's real tables (ris2015, tier1-2024-v6), both families in one
//! table: every answer (matched network and value) is the RIB's, single and batch, after
//! the table is built at once, after churn (a seventh of the routes withdrawn, a seventh given
//! other values), and after the withdrawn routes come back.

mod common;

use common::{load, probes, repo_data};
use fibforge::{Address, IpTable, NextHop, Prefix, Rib};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A next hop's value as the table stores it.
type Name<'a> = &'a dyn Fn(NextHop) -> String;

fn net4(p: Prefix<u32>) -> Ipv4Net {
    Ipv4Net::new(p.addr().to_std(), p.len() as u8).unwrap()
}

fn net6(p: Prefix<u128>) -> Ipv6Net {
    Ipv6Net::new(p.addr().to_std(), p.len() as u8).unwrap()
}

/// The RIB's answer for `addr`, as an IpTable answer.
fn expected<A: Address>(rib: &Rib<A>, name: Name<'_>, addr: A) -> Option<(IpNet, String)> {
    let (p, hop) = rib.longest_match(addr)?;
    Some((p.to_string().parse().unwrap(), name(hop)))
}

/// Every probe of both families answers as the RIBs do (single, typed and batch lookups).
fn check(
    table: &IpTable<String>,
    ribs: (&Rib<u32>, &Rib<u128>),
    names: (Name<'_>, Name<'_>),
    what: &str,
) {
    let (v4, v6) = ribs;
    assert_eq!(table.len(), v4.len() + v6.len(), "{what}: len");
    let a4 = probes(v4, 1, 200_000, 4);
    let s4: Vec<Ipv4Addr> = a4.iter().map(|a| a.to_std()).collect();
    let mut batch4 = vec![None; s4.len()];
    table.lookup_batch_v4(&s4, &mut batch4);
    for ((&a, &s), batch) in a4.iter().zip(&s4).zip(&batch4) {
        let want = expected(v4, names.0, a);
        let got = table.lookup(IpAddr::V4(s)).map(|(n, v)| (n, v.clone()));
        assert_eq!(got, want, "{what}: {s}");
        assert_eq!(batch.map(|(n, v)| (IpNet::V4(n), v.clone())), want, "{what}: batch {s}");
    }
    let a6 = probes(v6, 1, 100_000, 6);
    let s6: Vec<Ipv6Addr> = a6.iter().map(|a| a.to_std()).collect();
    let mut batch6 = vec![None; s6.len()];
    table.lookup_batch_v6(&s6, &mut batch6);
    for ((&a, &s), batch) in a6.iter().zip(&s6).zip(&batch6) {
        let want = expected(v6, names.1, a);
        let got = table.lookup_v6(s).map(|(n, v)| (IpNet::V6(n), v.clone()));
        assert_eq!(got, want, "{what}: {s}");
        assert_eq!(batch.map(|(n, v)| (IpNet::V6(n), v.clone())), want, "{what}: batch {s}");
    }
}

#[test]
fn both_real_tables_answer_as_the_rib_through_churn() {
    let t4 = load(&repo_data("ris2015-as3856.tsv.gz"));
    let t6 = load(&repo_data("tier1-2024-v6.txt.gz"));
    let (mut v4, mut v6) = (t4.v4.clone(), t6.v6.clone());
    // Values as text, each family's hops through its own file's interner.
    let name4 = |h| t4.hops.value(h).unwrap().clone();
    let name6 = |h| t6.hops.value(h).unwrap().clone();
    let routes4 = v4.iter().map(|(p, h)| (IpNet::V4(net4(p)), name4(h)));
    let routes6 = v6.iter().map(|(p, h)| (IpNet::V6(net6(p)), name6(h)));
    let mut table: IpTable<String> = routes4.chain(routes6).collect();
    check(&table, (&v4, &v6), (&name4, &name6), "built at once");

    let routes: Vec<_> = v4.iter().collect();
    let mut withdrawn = Vec::new();
    for (i, &(p, h)) in routes.iter().enumerate() {
        if i % 7 == 0 {
            assert_eq!(table.remove(net4(p)), Some(name4(h)));
            v4.remove(&p);
            withdrawn.push((p, h));
        } else if i % 7 == 3 {
            let other = routes[(i * 31) % routes.len()].1;
            assert_eq!(table.insert(net4(p), name4(other)), Some(name4(h)));
            v4.insert(p, other);
        }
    }
    let routes: Vec<_> = v6.iter().collect();
    for (i, &(p, h)) in routes.iter().enumerate() {
        if i % 7 == 0 {
            assert_eq!(table.remove(IpNet::V6(net6(p))), Some(name6(h)));
            v6.remove(&p);
        }
    }
    check(&table, (&v4, &v6), (&name4, &name6), "after churn");

    for (p, h) in withdrawn {
        assert_eq!(table.insert(net4(p), name4(h)), None);
        v4.insert(p, h);
    }
    check(&table, (&v4, &v6), (&name4, &name6), "after re-announcing");
}

#[test]
fn a_rebuilt_table_equals_the_churned_one() {
    let t4 = load(&repo_data("ris2015-as3856.tsv.gz"));
    let mut table: IpTable<u32> = IpTable::with_structure("bplus").unwrap();
    // Inserted one by one (not the empty table's bulk build), then the same routes at once.
    for (i, (p, h)) in t4.v4.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        table.insert(net4(p), h.index() + i as u32 % 2);
    }
    let rebuilt: IpTable<u32> = table.iter().map(|(n, v)| (n, *v)).collect();
    assert_eq!(rebuilt.len(), table.len());
    let addrs = probes(&t4.v4, 1, 100_000, 9);
    for a in addrs {
        let a = IpAddr::V4(a.to_std());
        assert_eq!(rebuilt.lookup(a), table.lookup(a), "{a}");
    }
}

/// A snapshot of both real tables, saved and opened (mapped): every answer is the RIB's,
/// the routes read back are the table's, and the opened table takes churn.
#[cfg(feature = "serde")]
#[test]
fn a_snapshot_of_both_real_tables_answers_as_the_rib() {
    let t4 = load(&repo_data("ris2015-as3856.tsv.gz"));
    let t6 = load(&repo_data("tier1-2024-v6.txt.gz"));
    let (mut v4, v6) = (t4.v4.clone(), t6.v6.clone());
    let name4 = |h| t4.hops.value(h).unwrap().clone();
    let name6 = |h| t6.hops.value(h).unwrap().clone();
    let routes4 = v4.iter().map(|(p, h)| (IpNet::V4(net4(p)), name4(h)));
    let routes6 = v6.iter().map(|(p, h)| (IpNet::V6(net6(p)), name6(h)));
    let table: IpTable<String> = routes4.chain(routes6).collect();
    let path = std::env::temp_dir().join(format!("fibforge-real-{}.fibs", std::process::id()));
    table.save(&path).unwrap();
    let mut opened: IpTable<String> = IpTable::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap(); // the mapping keeps the pages
    assert!(opened.is_mapped());
    check(&opened, (&v4, &v6), (&name4, &name6), "opened");
    assert!(opened.iter().eq(table.iter()), "routes read back");
    let routes: Vec<_> = v4.iter().collect();
    for &(p, h) in routes.iter().step_by(7) {
        assert_eq!(opened.remove(net4(p)), Some(name4(h)));
        v4.remove(&p);
    }
    assert!(opened.is_mapped(), "IPv6, unchanged, still looks up in the mapping");
    assert_eq!(opened.len(), v4.len() + v6.len());
    check(&opened, (&v4, &v6), (&name4, &name6), "opened, then churned");
}
