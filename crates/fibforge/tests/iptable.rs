//! IpTable's API as a user meets it: host bits, default routes, both families side by side,
//! exact get, covering and covered, structures by name, building, cloning, printing, serde.

use fibforge::{IpTable, IpTableError};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

fn net(s: &str) -> IpNet {
    s.parse().unwrap()
}

fn addr(s: &str) -> IpAddr {
    s.parse().unwrap()
}

fn sample() -> IpTable<&'static str> {
    [
        ("0.0.0.0/0", "default4"),
        ("10.0.0.0/8", "a"),
        ("10.1.0.0/16", "b"),
        ("10.1.2.0/24", "a"),
        ("10.1.2.3/32", "host"),
        ("::/0", "default6"),
        ("2001:db8::/32", "a"),
        ("2001:db8:1::/48", "c"),
        ("2001:db8:1::1/128", "host"),
    ]
    .into_iter()
    .map(|(n, v)| (net(n), v))
    .collect()
}

#[test]
fn lookups_answer_the_matched_network_and_value_in_both_families() {
    let t = sample();
    let cases = [
        ("10.1.2.3", "10.1.2.3/32", "host"),
        ("10.1.2.4", "10.1.2.0/24", "a"),
        ("10.1.3.0", "10.1.0.0/16", "b"),
        ("10.200.0.1", "10.0.0.0/8", "a"),
        ("192.0.2.1", "0.0.0.0/0", "default4"),
        ("255.255.255.255", "0.0.0.0/0", "default4"),
        ("2001:db8:1::1", "2001:db8:1::1/128", "host"),
        ("2001:db8:1::2", "2001:db8:1::/48", "c"),
        ("2001:db8:ffff::", "2001:db8::/32", "a"),
        ("ffff::", "::/0", "default6"),
    ];
    for (a, n, v) in cases {
        assert_eq!(t.lookup(addr(a)), Some((net(n), &v)), "{a}");
        assert_eq!(t.lookup_value(addr(a)), Some(&v), "{a}");
    }
    let v4: Ipv4Addr = "10.1.3.0".parse().unwrap();
    assert_eq!(t.lookup_v4(v4), Some(("10.1.0.0/16".parse::<Ipv4Net>().unwrap(), &"b")));
    let v6: Ipv6Addr = "2001:db8:1::2".parse().unwrap();
    assert_eq!(t.lookup_v6(v6), Some(("2001:db8:1::/48".parse::<Ipv6Net>().unwrap(), &"c")));
    assert_eq!(t.lookup(v4), Some((net("10.1.0.0/16"), &"b")), "Ipv4Addr accepted");
}

#[test]
fn without_default_routes_unmatched_addresses_answer_none() {
    let mut t = sample();
    assert_eq!(t.remove(net("0.0.0.0/0")), Some("default4"));
    assert_eq!(t.remove(net("::/0")), Some("default6"));
    assert_eq!(t.lookup(addr("192.0.2.1")), None);
    assert_eq!(t.lookup(addr("ffff::")), None);
    assert_eq!(t.lookup(addr("10.1.2.3")), Some((net("10.1.2.3/32"), &"host")));
    assert_eq!(t.remove(net("0.0.0.0/0")), None, "already gone");
}

#[test]
#[allow(clippy::needless_borrows_for_generic_args)] // references are accepted: tested here
fn host_bits_are_ignored_and_every_network_type_is_accepted() {
    let mut t = IpTable::new();
    assert_eq!(t.insert(net("10.1.2.3/8"), 1), None);
    assert_eq!(t.get(net("10.0.0.0/8")), Some(&1));
    assert_eq!(t.get(&net("10.9.9.9/8")), Some(&1), "by reference, host bits set");
    let v4: Ipv4Net = "10.0.0.0/8".parse().unwrap();
    assert_eq!(t.insert(v4, 2), Some(1), "an Ipv4Net names the same network");
    let v6: Ipv6Net = "2001:db8::1/32".parse().unwrap();
    t.insert(v6, 3);
    assert_eq!(t.get(&v6), Some(&3));
    assert_eq!(
        t.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>(),
        ["10.0.0.0/8", "2001:db8::/32"]
    );
    assert_eq!(t.get(net("10.0.0.0/9")), None, "exact only");
}

#[test]
fn covering_and_covered_walk_the_nesting() {
    let t = sample();
    let covering: Vec<_> =
        t.covering(net("10.1.2.0/24")).map(|(n, v)| (n.to_string(), *v)).collect();
    assert_eq!(
        covering,
        [
            ("0.0.0.0/0".into(), "default4"),
            ("10.0.0.0/8".into(), "a"),
            ("10.1.0.0/16".into(), "b"),
            ("10.1.2.0/24".to_string(), "a")
        ]
    );
    let covered: Vec<_> = t.covered(net("10.1.0.0/16")).map(|(n, _)| n.to_string()).collect();
    assert_eq!(covered, ["10.1.0.0/16", "10.1.2.0/24", "10.1.2.3/32"]);
    let covered6: Vec<_> = t.covered(net("2001:db8::/32")).map(|(n, _)| n.to_string()).collect();
    assert_eq!(covered6, ["2001:db8::/32", "2001:db8:1::/48", "2001:db8:1::1/128"]);
    assert_eq!(t.covered(net("192.0.2.0/24")).count(), 0);
    assert_eq!(t.covering(net("2001:db8:2::/48")).count(), 2, "::/0 and 2001:db8::/32");
}

#[test]
fn structures_are_chosen_by_name_and_bad_names_are_refused() {
    for spec in ["poptrie", "bplus", "poptrie:s=16", "bplus:dir=off"] {
        let mut t = IpTable::with_structure(spec).unwrap();
        t.extend(sample().iter().map(|(n, v)| (n, *v)));
        assert_eq!(t.lookup(addr("10.1.2.4")), Some((net("10.1.2.0/24"), &"a")), "{spec}");
        assert_eq!(t.lookup(addr("2001:db8:1::2")), Some((net("2001:db8:1::/48"), &"c")), "{spec}");
    }
    assert_eq!(IpTable::<u8>::with_structure("bplus").unwrap().structure(), "bplus");
    assert_eq!(IpTable::<u8>::new().structure(), "poptrie");
    for bad in ["dxr", "nope", "poptrie:s=99", "poptrie:", "bplus:x=1"] {
        let e = IpTable::<u8>::with_structure(bad).unwrap_err();
        assert!(matches!(e, IpTableError::Structure(_)), "{bad}: {e:?}");
        assert!(e.to_string().contains(bad.split(':').next().unwrap()), "{bad}: {e}");
    }
}

#[test]
fn extending_a_filled_table_inserts_and_later_values_win() {
    let mut t = sample();
    t.extend([
        (net("10.1.0.0/16"), "b2"),
        (net("198.51.100.0/24"), "d"),
        (net("198.51.100.0/24"), "e"),
    ]);
    assert_eq!(t.len(), 10);
    assert_eq!(t.get(net("10.1.0.0/16")), Some(&"b2"));
    assert_eq!(t.lookup_value(addr("198.51.100.7")), Some(&"e"));
    let built: IpTable<&str> =
        [(net("192.0.2.0/24"), "x"), (net("192.0.2.0/24"), "y")].into_iter().collect();
    assert_eq!((built.len(), built.get(net("192.0.2.0/24"))), (1, Some(&"y")));
}

#[test]
fn clones_are_independent_and_debug_prints_a_map() {
    let t = sample();
    let mut c = t.clone();
    c.insert(net("10.1.0.0/16"), "changed");
    assert_eq!(t.get(net("10.1.0.0/16")), Some(&"b"));
    assert_eq!(c.get(net("10.1.0.0/16")), Some(&"changed"));
    let mut small = IpTable::new();
    small.insert(net("10.0.0.0/8"), 7);
    small.insert(net("::/0"), 8);
    assert_eq!(format!("{small:?}"), "{10.0.0.0/8: 7, ::/0: 8}");
    assert!(IpTable::<u8>::default().is_empty());
}

#[test]
fn batches_answer_as_single_lookups_across_chunks() {
    let t = sample();
    let v4: Vec<Ipv4Addr> = (0..1000u32).map(|i| Ipv4Addr::from(0x0A01_0000 + i * 7)).collect();
    let mut out = vec![None; v4.len()];
    t.lookup_batch_v4(&v4, &mut out);
    for (a, o) in v4.iter().zip(&out) {
        assert_eq!(*o, t.lookup_v4(*a), "{a}");
    }
    let v6: Vec<Ipv6Addr> =
        (0..600u128).map(|i| Ipv6Addr::from(0x2001_0db8_0001u128 << 80 | i)).collect();
    let mut out = vec![None; v6.len()];
    t.lookup_batch_v6(&v6, &mut out);
    for (a, o) in v6.iter().zip(&out) {
        assert_eq!(*o, t.lookup_v6(*a), "{a}");
    }
}

#[test]
#[should_panic(expected = "output shorter than input")]
fn a_short_batch_output_is_refused() {
    let t = sample();
    let mut out = vec![None; 1];
    t.lookup_batch_v4(&[Ipv4Addr::LOCALHOST, Ipv4Addr::BROADCAST], &mut out);
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trips_a_table() {
    let t = sample();
    let json = serde_json::to_string(&t).unwrap();
    assert!(json.starts_with(r#"[["0.0.0.0/0","default4"],["10.0.0.0/8","a"]"#), "{json}");
    let back: IpTable<String> = serde_json::from_str(&json).unwrap();
    assert_eq!(back.len(), t.len());
    for (n, v) in t.iter() {
        assert_eq!(back.get(n).map(String::as_str), Some(*v));
    }
    let bad = serde_json::from_str::<IpTable<String>>(r#"[["10.0.0.0/33","x"]]"#).unwrap_err();
    assert!(bad.to_string().contains("invalid"), "{bad}");
}
