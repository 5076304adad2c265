//! Progress bars: drawn on a terminal, never into a pipe. `bench`, `replay` and `soak` run
//! on tiny inputs with their output piped (no escape code or carriage return may appear),
//! (`bench` with the `bench` feature) and `replay` once under `script(1)`'s pseudo-terminal, where the bar must appear.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

const TABLE: &str = "0.0.0.0/0\t192.0.2.1\n10.0.0.0/8\t192.0.2.2\n10.1.0.0/16\t192.0.2.3\n\
                     10.1.2.0/24\t192.0.2.4\n198.51.100.7/32\t192.0.2.5\n";

/// Spans 3 recorded seconds: `--pace 10` makes a replay last at least 0.3 s.
const UPDATES: &str = "1418774413 w 10.1.0.0/16 0.0.0.0\n\
                       1418774413 a 10.1.2.128/25 192.0.2.9\n\
                       1418774414 a 10.0.0.0/8 192.0.2.8\n\
                       1418774415 a 0.0.0.0/1 192.0.2.7\n\
                       1418774416 w 198.51.100.7/32 0.0.0.0\n";

fn fixture(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("fibforge-progress-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (table, updates) = (dir.join("t.tsv"), dir.join("u.txt"));
    std::fs::write(&table, TABLE).unwrap();
    std::fs::write(&updates, UPDATES).unwrap();
    (dir, table, updates)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Bytes a bar would leave: ESC (colours, cursor moves, line clears) and carriage returns.
fn has_terminal_codes(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| b == 0x1b || b == b'\r')
}

#[test]
fn piped_output_holds_no_progress_codes() {
    let (dir, table, updates) = fixture("pipe");
    let runs: Vec<Vec<&str>> = vec![
        vec![
            "replay",
            s(&table),
            s(&updates),
            "--algo",
            "poptrie",
            "--pace",
            "10",
            "--idle",
            "0",
            "--compare",
            "0",
        ],
        vec!["soak", s(&table), s(&updates), "--count", "3000", "--readers", "1"],
        #[cfg(feature = "bench")]
        vec![
            "bench",
            "--table",
            s(&table),
            "--algo",
            "radix,poptrie",
            "--peers",
            "none",
            "--modes",
            "single",
            "--threads",
            "1",
            "--duration",
            "0.005",
            "--repeats",
            "1",
            "--cycle-samples",
            "256",
            "--out",
            "none",
        ],
    ];
    for args in runs {
        let out = Command::cargo_bin("fibforge").unwrap().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{args:?} printed nothing");
        for (name, stream) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                !has_terminal_codes(stream),
                "{args:?}: {name} holds terminal codes: {:?}",
                String::from_utf8_lossy(stream)
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_terminal_gets_the_bar() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: script(1) is not installed, so no pseudo-terminal to draw on");
        return;
    }
    let (dir, table, updates) = fixture("tty");
    let bin = assert_cmd::cargo::cargo_bin("fibforge");
    let cmd = format!(
        "{} replay {} {} --pace 10 --idle 0 --compare 0",
        bin.display(),
        table.display(),
        updates.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("TERM", "xterm")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let text = String::from_utf8_lossy(&out.stdout);
    // The pty turns every newline into CR LF, so only ESC (the bar's line clears) counts.
    assert!(out.stdout.contains(&0x1b), "no bar drawn on a terminal: {text:?}");
    assert!(text.contains("replay: updates"), "no bar drawn on a terminal: {text:?}");
    std::fs::remove_dir_all(&dir).ok();
}
