//! Every cargo-fuzz target's body (`fibforge_io::fuzzing::TARGETS`) on every committed seed
//! (`fuzz/seeds/T`) and every past finding (`fuzz/regressions/T`), on stable Rust: a seed or
//! a fixed crash that breaks again fails here, naming the file, and the targets cannot rot
//! while nobody fuzzes.
//!
//! Layout: one test that checks [`TARGETS`] against `fuzz/fuzz_targets` (so that a new or
//! renamed target is noticed) and then replays every target, reporting every failing input of
//! every target at once (the whole replay takes a fraction of a second). A missing seed or
//! regression folder fails; files whose names start with `.` (`.gitkeep`) are skipped.

use fibforge::fuzzing::Body;
use fibforge_io::fuzzing::TARGETS;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

mod fuzz_common;
use fuzz_common::{fuzz_dir, inputs, panic_text};

/// Runs `target`'s body on every seed and regression input; returns each input that
/// panicked (all of them, not only the first) with its message.
fn replay(target: &str, run: Body) -> Vec<String> {
    let seeds = inputs(&fuzz_dir().join("seeds").join(target));
    assert!(!seeds.is_empty(), "fuzz/seeds/{target} holds no seed");
    let regressions = inputs(&fuzz_dir().join("regressions").join(target));
    let start = Instant::now();
    let mut failures = Vec::new();
    let root = fuzz_dir().join("..");
    for file in seeds.iter().chain(&regressions) {
        // Named from the repository root (`fuzz/seeds/T/FILE`), as a developer would type it.
        let name = file.strip_prefix(&root).unwrap_or(file).display().to_string();
        let data = std::fs::read(file).unwrap_or_else(|e| panic!("{name}: cannot read: {e}"));
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| run(&data))) {
            failures.push(format!("{name}: {}", panic_text(payload.as_ref())));
        }
    }
    eprintln!(
        "{target}: {} seeds, {} regressions in {:.2} s",
        seeds.len(),
        regressions.len(),
        start.elapsed().as_secs_f64()
    );
    failures
}

#[test]
fn every_fuzz_target_replays_its_seeds_and_regressions() {
    let dir = fuzz_dir().join("fuzz_targets");
    let mut on_disk: Vec<String> = inputs(&dir)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = TARGETS.iter().map(|(name, _)| name.to_string()).collect();
    listed.sort();
    assert_eq!(listed, on_disk, "fibforge_io::fuzzing::TARGETS against {}", dir.display());
    let failures: Vec<String> =
        TARGETS.iter().flat_map(|&(target, run)| replay(target, run)).collect();
    assert!(failures.is_empty(), "inputs that fail:\n{}", failures.join("\n"));
}

/// The out-of-memory input of `diff_updates_v6_wide` (bloomfwd's expansion under its default
/// key bound passed libFuzzer's memory limit) must end at the fuzz subject's cap, not merely
/// pass while taking gigabytes: the replay above cannot tell the two apart.
#[test]
fn the_bloomfwd_out_of_memory_input_ends_at_the_subjects_cap() {
    let file = fuzz_dir()
        .join("regressions/diff_updates_v6_wide/timeout-693f95037e2432b5c1d6eaa910b0c5196dcd0347");
    let data = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let run = fibforge::verify::sequence::run_one::<u128>(&data, |name| name == "bloomfwd");
    let (name, outcome) = run.expect("a non-empty input picks the one subject");
    assert_eq!((name, outcome.at_limit), ("bloomfwd", 1));
}
