//! A short, unguided mutation run of every cargo-fuzz target's body on stable Rust, in every
//! `./test.sh`: each target gets a fixed number of inputs made from its committed seeds by
//! libFuzzer-style mutations (bit flips, random and boundary bytes, inserted, deleted, copied
//! and truncated ranges, splices of two seeds), stacked one to four deep and cut to the
//! target's `-max_len` of `tools/fuzz`. It is not coverage-guided fuzzing (that is
//! `tools/fuzz` on nightly, which `.ci/run` runs for 10 s per target after the tests); it
//! makes every `./test.sh`, on stable Rust too, try inputs nobody wrote down, as well as
//! replaying the seeds (`fuzz_seeds.rs`).
//!
//! Reproducible: the generator's seed is fixed unless `FIBFORGE_MUTATION_SEED` sets another,
//! and `FIBFORGE_MUTATION_ROUNDS=N` runs N times the default count. Every input whose body
//! panics is written to `target/fuzz-mutations/<target>/` and the failure message prints the
//! `cp` that files it as a regression input (`fuzz/regressions/<target>/`).

use fibforge::fuzzing::Body;
use fibforge::verify::XorShift64;
use fibforge_io::fuzzing::TARGETS;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

mod fuzz_common;
use fuzz_common::{fuzz_dir, inputs, panic_text};

/// The default seed of the mutation generator (any non-zero value; fixed for reproducibility).
const DEFAULT_SEED: u64 = 0x5EED_F1B0_F0F0_2026;

/// Boundary bytes of the inputs' grammars: separators, digits, line ends, NUL, 0xff.
const INTERESTING: &[u8] = b"\0\n\r\t /:.,-#x0129\xff\x7f";

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => text.parse().unwrap_or_else(|e| panic!("{name}={text:?}: {e}")),
        Err(_) => default,
    }
}

/// `tools/fuzz`'s `-max_len` for `target`.
fn max_len(target: &str) -> usize {
    match target {
        t if t.starts_with("diff_updates_") => 386,
        "parse_prefix" | "algo_spec" => 256,
        "read_export" => 16384,
        _ => 8192,
    }
}

/// Inputs per target and round: the differential targets build whole structures per input.
fn per_round(target: &str) -> u64 {
    if target.starts_with("diff_updates_") { 200 } else { 5000 }
}

/// The committed seeds of `target`, sorted.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let files = inputs(&fuzz_dir().join("seeds").join(target));
    files
        .iter()
        .map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

/// A random index below `n` (`n > 0`).
fn below(rng: &mut XorShift64, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// One mutation of `data` in place; `other` is a second seed for splices.
fn mutate_once(rng: &mut XorShift64, data: &mut Vec<u8>, other: &[u8]) {
    if data.is_empty() {
        data.push(rng.next_u64() as u8);
        return;
    }
    let at = below(rng, data.len());
    match below(rng, 8) {
        0 => data[at] ^= 1 << below(rng, 8),
        1 => data[at] = rng.next_u64() as u8,
        2 => data[at] = INTERESTING[below(rng, INTERESTING.len())],
        3 => data.insert(at, INTERESTING[below(rng, INTERESTING.len())]),
        4 => {
            let end = (at + 1 + below(rng, 16)).min(data.len());
            data.drain(at..end);
        }
        5 => {
            let end = (at + 1 + below(rng, 64)).min(data.len());
            let copy = data[at..end].to_vec();
            let to = below(rng, data.len() + 1);
            data.splice(to..to, copy);
        }
        6 => data.truncate(at),
        _ => {
            if !other.is_empty() {
                let from = below(rng, other.len());
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
        }
    }
}

/// A new input: a random seed under one to four stacked mutations, at most `limit` bytes.
fn mutant(rng: &mut XorShift64, seeds: &[Vec<u8>], limit: usize) -> Vec<u8> {
    let mut data = seeds[below(rng, seeds.len())].clone();
    for _ in 0..=below(rng, 4) {
        let other = &seeds[below(rng, seeds.len())];
        mutate_once(rng, &mut data, other);
    }
    data.truncate(limit);
    data
}

/// Saves a failing input under `target/fuzz-mutations/<target>/` and returns the report line,
/// whose `cp` is typed from the repository root.
fn file_failure(target: &str, index: u64, data: &[u8], message: &str) -> String {
    let relative = format!("target/fuzz-mutations/{target}/mutant-{index}");
    let path = fuzz_dir().join("..").join(&relative);
    let saved = std::fs::create_dir_all(path.parent().expect("a folder"))
        .and_then(|()| std::fs::write(&path, data));
    let place = match saved {
        Ok(()) => format!("cp {relative} fuzz/regressions/{target}/"),
        Err(e) => format!("(could not save the input: {e}; {} bytes)", data.len()),
    };
    format!("{target} input {index}: {message}\n    {place}")
}

/// Runs `count` mutants of `seeds` through `target`'s body; returns one report line per panic.
fn run_mutants(target: &str, body: Body, seeds: &[Vec<u8>], seed: u64, count: u64) -> Vec<String> {
    assert!(!seeds.is_empty(), "fuzz/seeds/{target} holds no seed");
    let mut rng = XorShift64::new(seed ^ fibforge::verify::xorshift64_step(target.len() as u64));
    let start = Instant::now();
    let mut failures = Vec::new();
    for index in 0..count {
        let data = mutant(&mut rng, seeds, max_len(target));
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(&data))) {
            failures.push(file_failure(target, index, &data, &panic_text(payload.as_ref())));
        }
    }
    eprintln!("{target}: {count} mutants in {:.2} s", start.elapsed().as_secs_f64());
    failures
}

#[test]
fn every_fuzz_target_survives_mutated_seeds() {
    let seed = env_u64("FIBFORGE_MUTATION_SEED", DEFAULT_SEED);
    let rounds = env_u64("FIBFORGE_MUTATION_ROUNDS", 1);
    eprintln!("mutation seed {seed:#x}, {rounds} round(s)");
    let failures: Vec<String> = TARGETS
        .iter()
        .flat_map(|&(target, body)| {
            run_mutants(target, body, &seeds(target), seed, rounds * per_round(target))
        })
        .collect();
    assert!(failures.is_empty(), "inputs that fail (seed {seed:#x}):\n{}", failures.join("\n"));
}

/// The mutator itself: inputs differ from their seeds, stay within the limit, and the same
/// seed gives the same inputs (so a reported failure can be made again).
#[test]
fn mutants_vary_stay_bounded_and_repeat() {
    let seeds = vec![b"10.0.0.0/8 a\n".to_vec(), b"2001:db8::/32 b\n".to_vec()];
    let make = |seed| {
        let mut rng = XorShift64::new(seed);
        (0..500).map(|_| mutant(&mut rng, &seeds, 20)).collect::<Vec<_>>()
    };
    let first = make(7);
    assert_eq!(first, make(7), "same seed, same mutants");
    assert_ne!(first, make(8), "another seed, other mutants");
    assert!(first.iter().all(|m| m.len() <= 20), "the length limit holds");
    let changed = first.iter().filter(|m| !seeds.contains(m)).count();
    assert!(changed > 400, "only {changed} of 500 mutants differ from a seed");
}

/// A body that panics on some mutants: each is reported with its saved input and the `cp`
/// that files it (so the test above can fail, and says how to keep what it found).
#[test]
fn a_panicking_body_is_reported_with_its_input() {
    fn picky(data: &[u8]) {
        assert!(!data.contains(&b'#'), "a hash sign");
    }
    let seeds = vec![b"10.0.0.0/8 a\n".to_vec()];
    let failures = run_mutants("mutation_self_test", picky, &seeds, 1, 200);
    assert!(!failures.is_empty(), "no mutant contained '#'");
    let first = &failures[0];
    assert!(first.contains("a hash sign") && first.contains("cp "), "{first}");
    let saved = fuzz_dir().join("..").join(first.split_whitespace().nth_back(1).expect("a path"));
    assert!(std::fs::read(saved).expect("the saved input").contains(&b'#'), "{first}");
}
