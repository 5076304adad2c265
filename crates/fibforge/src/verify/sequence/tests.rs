use super::*;
use crate::algo::radix::Radix;
use crate::fib::Compile;
use proptest::prelude::*;

fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

#[test]
fn decodes_the_documented_layout() {
    // 1 initial op; set 10.3.0.0/16 hop 2 (fill 0); remove ff.f/12 (fill ones); check.
    let bytes = [1, 2 << 2, 16, 10, 3, 2, 12, 0xFF, 0x1F, 3, 0, 0, 0];
    let seq = decode::<u32>(&bytes);
    assert_eq!(seq.initial, vec![Op::Set("10.48.0.0/16".parse().unwrap(), hop(2))]);
    assert_eq!(seq.updates, vec![Op::Remove("255.240.0.0/12".parse().unwrap()), Op::Check]);
    // Length modulo 129 for IPv6, and the 01 fill below the top 12 bits.
    let seq = decode::<u128>(&[0, 0, 128, 0x20, 0x21]);
    let want = 0x2010_0000u128 << 96 | (u128::MAX / 3) >> 12;
    assert_eq!(seq.updates, vec![Op::Set(Prefix::new_masked(want, 128).unwrap(), hop(0))]);
    assert_eq!(decode::<u32>(&[]), Sequence { initial: vec![], updates: vec![] });
}

/// A structure that ignores updates: the harness must catch it (the check can fail).
struct Stale(Radix<u32>);

impl Subject<u32> for Stale {
    fn apply(&mut self, _: &Rib<u32>, _: &[Prefix<u32>]) -> Result<(), BuildError> {
        Ok(())
    }
    fn fib(&self) -> &dyn Lookup<u32> {
        &self.0
    }
}

#[test]
fn a_structure_that_misses_an_update_is_caught() {
    let stale: Builder<u32> = |r| Ok(Box::new(Stale(Radix::compile(r, &())?)));
    // Compile from 10.0.0.0/8 hop 1, then remove it.
    let bytes = [1, 1 << 2, 8, 10, 0, 2, 8, 10, 0];
    assert!(std::panic::catch_unwind(|| run_with::<u32>(&bytes, vec![("stale", stale)])).is_err());
    let fresh: Builder<u32> = |r| make::<u32, Radix<u32>>(r, &());
    let out = run_with::<u32>(&bytes, vec![("radix", fresh)]);
    assert_eq!(out.batches, 1);
}

#[test]
fn every_structure_follows_nested_updates() {
    // Nested routes at /0, /8, /16, /24, /32 under 10.x, hop changes, removals, re-inserts.
    let mut bytes = vec![3];
    for (i, len) in [0u8, 8, 16, 24, 32].into_iter().enumerate() {
        bytes.extend([(i as u8) << 2, len, 10, 0x10]);
    }
    bytes.extend([3, 0, 0, 0, 7 << 2 | 1, 16, 10, 0x10, 2, 24, 10, 0x10, 3, 0, 0, 0]);
    bytes.extend([2, 0, 0, 0, 2, 8, 10, 0x10, 1 << 2, 24, 10, 0x10]);
    let v4 = run::<u32>(&bytes, |_| true);
    let v6 = run::<u128>(&bytes, |_| true);
    assert_eq!((v4.batches, v6.batches), (3, 3));
    assert!(v4.checked > 0 && v6.checked > 0);
}

#[test]
fn the_first_byte_picks_each_structure_in_turn() {
    // Cheap structures only (a debug build): every one is reachable, in `subjects` order.
    let cheap =
        |name: &str| !name.contains("18") && !matches!(name, "dir24_8" | "sail_b" | "sail_u");
    let names: Vec<_> = u32::subjects().into_iter().map(|(n, _)| n).filter(|n| cheap(n)).collect();
    // One initial route, then a removal: a batch runs, so the structure was really exercised.
    let sequence = [1, 1 << 2, 8, 10, 0, 2, 8, 10, 0];
    for (i, want) in names.iter().enumerate() {
        let pick = u8::try_from(i + names.len()).unwrap(); // wraps modulo the count
        let input: Vec<u8> = std::iter::once(pick).chain(sequence).collect();
        let (name, out) = run_one::<u32>(&input, cheap).unwrap();
        assert_eq!((name, out.batches), (*want, 1));
        assert!(out.checked > 0);
    }
    assert_eq!(run_one::<u32>(&[], cheap), None);
    assert_eq!(run_one::<u32>(&[0, 0], |_| false), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(16)))]
    #[test]
    fn random_sequences_v4(bytes in prop::collection::vec(any::<u8>(), 0..160)) {
        run::<u32>(&bytes, |_| true);
    }

    #[test]
    fn random_sequences_v6(bytes in prop::collection::vec(any::<u8>(), 0..160)) {
        run::<u128>(&bytes, |_| true);
    }
}

/// A structure that refuses every update with a limit error (`found` against `limit` 1).
struct Refuses(Radix<u32>, u64);

impl Subject<u32> for Refuses {
    fn apply(&mut self, _: &Rib<u32>, _: &[Prefix<u32>]) -> Result<(), BuildError> {
        Err(BuildError::LimitExceeded { algo: "refuses", what: "keys", limit: 1, found: self.1 })
    }
    fn fib(&self) -> &dyn Lookup<u32> {
        &self.0
    }
}

#[test]
fn a_structure_at_its_documented_limit_leaves_the_run() {
    // Compile from 10.0.0.0/8 hop 1, then remove it.
    let bytes = [1, 1 << 2, 8, 10, 0, 2, 8, 10, 0];
    let at_compile: Builder<u32> =
        |_| Err(BuildError::LimitExceeded { algo: "capped", what: "keys", limit: 1, found: 2 });
    let out = run_with::<u32>(&bytes, vec![("capped", at_compile)]);
    assert_eq!((out.at_limit, out.checked), (1, 0));
    let at_update: Builder<u32> = |r| Ok(Box::new(Refuses(Radix::compile(r, &())?, 2)));
    let fresh: Builder<u32> = |r| make::<u32, Radix<u32>>(r, &());
    let out = run_with::<u32>(&bytes, vec![("refuses", at_update), ("radix", fresh)]);
    assert_eq!((out.at_limit, out.batches), (1, 1));
}

#[test]
fn a_limit_error_that_does_not_hold_fails_the_run() {
    let bytes = [1, 1 << 2, 8, 10, 0, 2, 8, 10, 0];
    let bogus: Builder<u32> = |r| Ok(Box::new(Refuses(Radix::compile(r, &())?, 1)));
    assert!(std::panic::catch_unwind(|| run_with::<u32>(&bytes, vec![("bogus", bogus)])).is_err());
    let other: Builder<u32> = |_| Err(BuildError::Unsupported { algo: "x", reason: "y".into() });
    assert!(std::panic::catch_unwind(|| run_with::<u32>(&bytes, vec![("other", other)])).is_err());
}

#[test]
fn every_wide_entry_names_a_subject() {
    let v4: Vec<_> = u32::subjects().into_iter().map(|(n, _)| n).collect();
    let v6: Vec<_> = u128::subjects().into_iter().map(|(n, _)| n).collect();
    for (wide, names) in [(WIDE_V4, &v4), (WIDE_V6, &v6)] {
        for w in wide {
            assert!(names.iter().any(|n| is_wide(&[w], n)), "{w:?} names no subject");
        }
    }
    assert_eq!(v4.iter().filter(|n| is_wide(WIDE_V4, n)).count(), 6);
    assert_eq!(v6.iter().filter(|n| is_wide(WIDE_V6, n)).count(), 3);
}
