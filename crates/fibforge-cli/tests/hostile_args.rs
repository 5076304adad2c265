//! Argument errors a hostile run found (issue 19, issue 21): each one exits with status 2 and
//! a message naming the problem, before any table is read or anything measured — never a
//! panic (status 101), never status 0.

use assert_cmd::Command;
use std::path::PathBuf;

const TABLE: &str = "0.0.0.0/0\t192.0.2.1\n10.0.0.0/8\t192.0.2.2\n2001:db8::/32\t192.0.2.3\n";

/// A scratch folder with a small mixed table in it.
fn scratch(test: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("fibforge-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("t.tsv");
    std::fs::write(&table, TABLE).unwrap();
    (dir, table.display().to_string())
}

/// Runs fibforge; returns (status, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fibforge").unwrap().args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// Asserts status 2 with `want` in stderr and no sign of work done.
fn refused(args: &[&str], want: &str) {
    let (code, _, err) = run(args);
    assert_eq!(code, 2, "{args:?}: status {code}, stderr {err}");
    assert!(err.contains(want), "{args:?}: {err}");
    assert!(!err.contains("loaded ") && !err.contains("timing:"), "{args:?} worked first: {err}");
}

#[cfg(feature = "bench")]
fn cat<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    [a, b].concat()
}

#[test]
#[cfg(feature = "bench")]
fn bench_refuses_bad_algorithms_and_options_before_any_work() {
    let (dir, t) = scratch("bench-args");
    let base = ["bench", "--table", &t, "--peers", "none", "--out", "none"];
    let with = |extra: &[&'static str]| cat(&base, extra);
    refused(&with(&["--algo", "nosuch"]), "unknown algorithm 'nosuch' (known: radix,");
    refused(&with(&["--algo", "poptrie:s=99"]), "poptrie");
    refused(&with(&["--algo", "poptrie:s=-1"]), "s=-1");
    refused(&with(&["--algo", "poptrie:nokey=1"]), "nokey");
    refused(&with(&["--algo", ""]), "names no algorithm");
    refused(&with(&["--algo", "radix", "--traffic", "trace:/nonexistent/x"]), "/nonexistent/x");
    refused(&with(&["--modes", "sometimes"]), "known: single, batch, both");
    for bad in ["--duration=inf", "--duration=1e300", "--duration=-1", "--duration=nan"] {
        refused(&with(&[bad]), "from 0.001 to 3600");
    }
    refused(&with(&["--threads", "100000"]), "from 1 to 1024");
    refused(&with(&["--budget", "inf"]), "seconds");
    let (multi0, multi_big) = (format!("{t}#0"), format!("{t}#100000"));
    refused(&["bench", "--multi", &multi0, "--out", "none"], "from 1 to 1024");
    refused(&["bench", "--multi", &multi_big, "--out", "none"], "from 1 to 1024");
    refused(&["bench", "--multi", "/nonexistent/t#4", "--out", "none"], "/nonexistent/t");
    refused(&with(&["--table", "/nonexistent/t2"]), "/nonexistent/t2");
    refused(&with(&["--hops-from", "/nonexistent/h"]), "/nonexistent/h");
    let json = dir.join("no-such-dir/r.json").display().to_string();
    refused(&cat(&base, &["--algo", "radix", "--json", &json]), "--json");
    refused(&["bench", "--table", &t, "--algo", "radix", "--out", "/dev/null/x"], "--out");
}

#[test]
#[cfg(feature = "bench")]
fn bench_accepts_modes_both_as_its_help_offers() {
    let (_dir, t) = scratch("bench-both");
    let (code, out, err) = run(&[
        "bench",
        "--table",
        &t,
        "--algo",
        "radix",
        "--peers",
        "none",
        "--traffic",
        "random",
        "--modes",
        "both",
        "--duration",
        "0.001",
        "--repeats",
        "1",
        "--cycle-samples",
        "16",
        "--threads",
        "1",
        "--out",
        "none",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("single") && out.contains("batch"), "{out}");
}

#[test]
#[cfg(not(feature = "bench"))]
fn bench_without_the_feature_says_how_to_get_it() {
    for args in [&["bench"][..], &["bench", "--table", "t", "--preset", "papers"]] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("built without the bench feature"), "{err}");
        assert!(err.contains("--features bench"), "{err}");
    }
}

#[test]
fn replay_refuses_unbounded_seconds_and_unknown_algorithms() {
    let (dir, t) = scratch("replay-args");
    let updates = dir.join("u.txt");
    std::fs::write(&updates, "1 a 10.1.0.0/16 192.0.2.9\n").unwrap();
    let u = updates.display().to_string();
    refused(&["replay", &t, &u, "--idle", "inf"], "from 0 to 3600");
    refused(&["replay", &t, &u, "--compare", "1e30"], "from 0 to 3600");
    refused(&["replay", &t, &u, "--idle=-1"], "from 0 to 3600");
    refused(&["replay", &t, &u, "--readers", "100000"], "from 0 to 1024");
    refused(&["replay", &t, &u, "--pace", "1e-300"], "speed-up");
    // The algorithm is checked before the (missing) table is read.
    refused(&["replay", "/nonexistent/t", &u, "--algo", "nosuch"], "known: radix,");
    refused(&["replay", "/nonexistent/t", &u, "--algo", "lulea"], "updatable");
}

#[test]
fn lookup_checks_the_algorithm_first_and_serves_the_family_it_handles() {
    let (_dir, t) = scratch("lookup-args");
    refused(&["lookup", "/nonexistent/t", "--algo", "nosuch", "10.0.0.1"], "known: radix,");
    // dir24_8 is IPv4-only: the mixed table's IPv4 addresses are answered...
    let (code, out, err) = run(&["lookup", &t, "--algo", "dir24_8", "10.1.2.3"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "10.1.2.3\t10.0.0.0/8\t192.0.2.2\n");
    // ... and an IPv6 address is an error naming the algorithm and the family.
    let (code, _, err) = run(&["lookup", &t, "--algo", "dir24_8", "2001:db8::1"]);
    assert_eq!(code, 2);
    assert!(err.contains("'dir24_8' does not handle ipv6"), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_stdout_write_is_reported_as_such() {
    let (_dir, t) = scratch("lookup-stdout");
    let full = std::fs::File::options().write(true).open("/dev/full").unwrap();
    for stdin in [false, true] {
        use std::io::Write;
        use std::process::Stdio;
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("fibforge"));
        cmd.args(["lookup", &t]).stdout(full.try_clone().unwrap()).stderr(Stdio::piped());
        if stdin {
            cmd.stdin(Stdio::piped());
        } else {
            cmd.arg("10.0.0.1").stdin(Stdio::null());
        }
        let mut child = cmd.spawn().unwrap();
        if let Some(mut input) = child.stdin.take() {
            input.write_all(b"10.0.0.1\n").unwrap();
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("writing to standard output"), "{err}");
        assert!(!err.contains("stdin"), "{err}");
    }
}

#[test]
fn table_options_that_do_not_apply_are_errors() {
    let (dir, t) = scratch("table-opts");
    refused(&["stats", &t, "--peer-as", "3356"], "a peer selection (peer AS 3356) applies");
    refused(&["stats", &t, "--peer-ip", "192.0.2.1"], "a peer selection (peer 192.0.2.1) applies");
    let host = dir.join("host.txt");
    std::fs::write(&host, "10.0.0.1/8 a\n").unwrap();
    let (code, _, err) = run(&["stats", host.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("host bits set") && err.contains("--lenient"), "{err}");
    let d = dir.display().to_string();
    refused(&["stats", &d], "is a directory");
    #[cfg(unix)]
    {
        // Zeros without a newline end at once (they once grew memory until the process died).
        refused(&["stats", "/dev/zero"], "/dev/zero: at byte offset 0");
        refused(&["replay", &t, "/dev/zero", "--idle", "0"], "/dev/zero: at byte offset 0");
    }
}

/// Every face refuses the hostile corpus: here `stats` and `lookup` exit 2 with a message that
/// names the file and the problem, in bounded time (the bomb under a small cap).
#[test]
fn the_hostile_corpus_is_refused_with_status_2() {
    let (dir, _) = scratch("corpus");
    let cap = fibforge_io::hostile::BOMB_CAP;
    for (case, path) in fibforge_io::hostile::write(&dir.join("corpus")).unwrap() {
        let p = path.display().to_string();
        for args in [vec!["stats", &p], vec!["lookup", &p, "10.0.0.1"]] {
            let out = Command::cargo_bin("fibforge")
                .unwrap()
                .args(&args)
                .env(fibforge_io::open::MAX_DECOMPRESSED_ENV, cap)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(case.name) && err.contains(case.says), "{args:?}: {err}");
            assert!(out.stdout.is_empty(), "{args:?}");
        }
    }
}
