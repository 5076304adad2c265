//! Standard output that cannot be written (issue 56): every command, and clap's help and
//! version, exit with status 2 and a message naming standard output when the disk is full
//! (`/dev/full`), never a panic (status 101) and never status 0; a closed pipe ends every
//! command quietly, as SIGPIPE ends other Unix tools.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const TABLE: &str = "0.0.0.0/0\t192.0.2.1\n10.0.0.0/8\t192.0.2.2\n10.1.0.0/16\t192.0.2.3\n\
                     2001:db8::/32\t192.0.2.4\n";

const UPDATES: &str = "1418774413 w 10.1.0.0/16 0.0.0.0\n\
                       1418774413 a 10.1.2.128/25 192.0.2.9\n\
                       1418774414 a 10.0.0.0/8 192.0.2.8\n";

/// A scratch folder with a table, an update stream, a folder of two tables (`verify DIR`)
/// and an IPv4 export of the table.
fn fixture(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fibforge-stdout-{test}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("many")).unwrap();
    std::fs::write(dir.join("t.tsv"), TABLE).unwrap();
    std::fs::write(dir.join("u.txt"), UPDATES).unwrap();
    std::fs::write(dir.join("many/a.tsv"), TABLE).unwrap();
    std::fs::write(dir.join("many/b.tsv"), TABLE).unwrap();
    let export = [dir.join("t.tsv"), dir.join("t.poptrie")].map(|p| p.display().to_string());
    let args = ["export", "--algo", "poptrie", "--family", "4", &export[0], &export[1]];
    let out = fibforge(&args).stdout(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir
}

fn fibforge(args: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("fibforge"));
    cmd.args(args).stdin(Stdio::null()).stderr(Stdio::piped());
    cmd
}

/// One run of every command (on the fixture in `dir`) that prints to standard output.
fn every_command(dir: &Path) -> Vec<Vec<String>> {
    let p = |name: &str| dir.join(name).display().to_string();
    let (t, u, e) = (p("t.tsv"), p("u.txt"), p("t.poptrie"));
    let (many, again) = (p("many"), p("again.poptrie"));
    let runs: Vec<Vec<&str>> = vec![
        vec!["algos"],
        vec!["stats", &t],
        vec!["stats", &t, "--json"],
        vec!["stats", &e],
        vec!["lookup", &t, "10.1.2.3"],
        vec!["lookup", &e, "10.1.2.3"],
        vec!["verify", &t, "--algo", "poptrie", "--samples", "100"],
        vec!["verify", &t, "--algo", "poptrie", "--samples", "100", "--json"],
        vec!["verify", &many, "--algo", "loop", "--samples", "100"],
        vec!["expand", &t],
        vec!["export", "--algo", "poptrie", "--family", "4", &t, &again],
        vec!["replay", &t, &u, "--algo", "poptrie", "--idle", "0", "--compare", "0"],
        vec!["soak", &t, &u, "--count", "300", "--readers", "1"],
        #[cfg(feature = "bench")]
        vec![
            "bench",
            "--table",
            &t,
            "--algo",
            "poptrie",
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
    runs.into_iter().map(|r| r.into_iter().map(String::from).collect()).collect()
}

/// Runs `args` with standard output on `/dev/full`; `None` (with a note) where there is none.
fn on_full_disk(args: &[String]) -> Option<Output> {
    let Ok(full) = File::options().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this system");
        return None;
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Some(fibforge(&args).stdout(Stdio::from(full)).output().unwrap())
}

/// Asserts status 2 and one message naming standard output, without a panic.
fn reported(args: &[String], out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(err.contains("error: writing to standard output: "), "{args:?}: {err}");
}

#[test]
fn every_command_reports_a_full_standard_output() {
    let dir = fixture("full");
    for args in every_command(&dir) {
        let Some(out) = on_full_disk(&args) else { return };
        reported(&args, &out);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_and_version_on_a_full_standard_output_fail() {
    for args in [&["--help"][..], &["--version"], &["help"], &["stats", "--help"], &["bench", "-h"]]
    {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let Some(out) = on_full_disk(&args) else { return };
        #[cfg(not(feature = "bench"))]
        if args[0] == "bench" {
            // Without the feature, `bench` takes every argument and says how to get it.
            assert_eq!(out.status.code(), Some(2));
            continue;
        }
        reported(&args, &out);
    }
}

/// Spawns `args` with standard output into a pipe whose reading end is already closed.
#[cfg(unix)]
fn into_closed_pipe(args: &[String]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    fibforge(&args).stdout(Stdio::from(writer)).output().unwrap()
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let dir = fixture("pipe");
    let mut runs = every_command(&dir);
    runs.push(vec!["--help".into()]);
    for args in runs {
        let out = into_closed_pipe(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        // Nothing reported (`bench` logs its progress on stderr as usual).
        assert!(!err.contains("error") && !err.contains("panicked"), "{args:?}: {err}");
        // Ended by SIGPIPE (13), as `head` expects of a writer.
        assert_eq!(out.status.signal(), Some(13), "{args:?}: {:?}", out.status);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Standard error that cannot be written: diagnostics are dropped, never a panic. A failing
/// command still ends with status 2, a warning (a table of comments only) does not change a
/// successful run's status, and a command that writes progress to stderr (`verify`) succeeds.
#[test]
fn a_full_standard_error_never_panics() {
    let Ok(full) = File::options().write(true).open("/dev/full") else {
        eprintln!("no /dev/full here: skipped");
        return;
    };
    let dir = fixture("stderr");
    let comments = dir.join("c.txt");
    std::fs::write(&comments, "# only a comment\n").unwrap();
    let table = dir.join("t.tsv").display().to_string();
    let cases: [(&[&str], i32); 3] = [
        (&["lookup", "/nonexistent/table", "10.0.0.1"], 2),
        (&["stats", comments.to_str().unwrap()], 0),
        (&["verify", &table, "--algo", "poptrie"], 0),
    ];
    for (args, status) in cases {
        let err = Stdio::from(full.try_clone().unwrap());
        let out = fibforge(args).stdout(Stdio::null()).stderr(err).output().unwrap();
        assert_eq!(out.status.code(), Some(status), "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
