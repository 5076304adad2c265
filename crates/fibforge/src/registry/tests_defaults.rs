//! Every stated option default is the value a structure uses when the option is absent:
//! `name` and `name:key=<default>` build the same structure (same size, description and
//! answers) in every family the row supports. Defaults that depend on the family or the
//! variant (text with spaces or parentheses) and options the row implies are skipped.

use super::tests_caps::rib;
use super::*;

fn v4() -> Rib<u32> {
    rib(&[(0x0a00_0000, 8, 0), (0x0a01_0000, 16, 1), (0xc0a8_0100, 24, 2), (0xc0a8_0180, 25, 3)])
}

fn v6() -> Rib<u128> {
    rib(&[
        (0x2001_0db8u128 << 96, 32, 0),
        (0x2001_0db8_0001u128 << 80, 48, 1),
        (0x2001_0db8_0001_0002u128 << 64, 64, 2),
    ])
}

/// Builds `row` plain and with `key=value`, and compares the two.
fn same<A: RegistryFamily>(row: &Descriptor, key: &str, value: &str, rib: &Rib<A>) {
    let plain =
        build(&AlgoSpec::named(row.name), rib).unwrap_or_else(|e| panic!("{}: {e}", row.name));
    let text = format!("{}:{key}={value}", row.name);
    let spec: AlgoSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e:?}"));
    let given = build(&spec, rib).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(plain.memory_bytes(), given.memory_bytes(), "{text}: memory");
    assert_eq!(plain.describe(), given.describe(), "{text}: description");
    for a in crate::verify::probes(rib, 4, 64, 1) {
        assert_eq!(plain.lookup(a), given.lookup(a), "{text}: lookup of {a:?}");
    }
}

#[test]
fn stated_defaults_are_the_defaults() {
    let mut checked = 0;
    for row in ALGORITHMS {
        for opt in row.options {
            let plain_value = !opt.default.is_empty()
                && !opt.default.contains(|c: char| c.is_whitespace() || c == '(' || c == ')');
            if !plain_value || row.implies.iter().any(|&(k, _)| k == opt.key) {
                continue;
            }
            if row.ipv4.is_some() {
                same::<u32>(row, opt.key, opt.default, &v4());
            }
            if row.ipv6.is_some() {
                same::<u128>(row, opt.key, opt.default, &v6());
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} defaults checked");
}

/// Builds many-table `row` over two tables plain and with `key=value`, and compares the two.
fn same_many<A: RegistryFamily>(row: &ManyDescriptor, key: &str, value: &str, rib: &Rib<A>) {
    let tables = [rib.clone(), Rib::new()];
    let built = |text: &str| {
        let spec: AlgoSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e:?}"));
        build_many(&spec, &tables)
            .unwrap_or_else(|| panic!("{text}: not a many-table name"))
            .unwrap_or_else(|e| panic!("{text}: {e}"))
    };
    let text = format!("{}:{key}={value}", row.name);
    let (plain, given) = (built(row.name), built(&text));
    assert_eq!(plain.memory_bytes(), given.memory_bytes(), "{text}: memory");
    for a in crate::verify::probes(rib, 4, 64, 1) {
        for vrf in 0..2 {
            assert_eq!(plain.lookup(vrf, a), given.lookup(vrf, a), "{text}: table {vrf}, {a:?}");
        }
    }
}

#[test]
fn stated_many_table_defaults_are_the_defaults() {
    let mut checked = 0;
    for row in MANY_TABLES {
        for opt in row.options.unwrap_or_default() {
            if opt.default.is_empty() {
                continue;
            }
            same_many::<u32>(row, opt.key, opt.default, &v4());
            same_many::<u128>(row, opt.key, opt.default, &v6());
            checked += 1;
        }
    }
    assert!(checked >= 6, "only {checked} many-table defaults checked");
}
