//! `fibforge export` and export files in place of tables: `lookup EXPORT` answers as `lookup
//! TABLE --algo X`, the probe file's answers are the table's, `stats` prints the header, and
//! damaged files or mismatched options end with status 2 and a clear message (a cut file:
//! "truncated").

use assert_cmd::Command;
use fibforge::export::{ExportFile, ProbeFile};
use std::path::{Path, PathBuf};

const RIS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/ris2015-as3856.tsv.gz");
const V6: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/tier1-2024-v6.txt.gz");

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fibforge-export-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs fibforge; returns (status, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fibforge").unwrap().args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// Runs fibforge and expects success; returns stdout.
fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "fibforge {args:?}: {err}");
    out
}

/// The (address, value) columns of `lookup` text output.
fn values(out: &str) -> Vec<(String, String)> {
    out.lines()
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 3, "{l}");
            (cols[0].to_owned(), cols[2].to_owned())
        })
        .collect()
}

/// The probe file's addresses as text, and its answers as values through the export's hops.
fn probe_answers(probes: &Path, export: &Path) -> (Vec<String>, Vec<String>) {
    let p = ProbeFile::from_bytes(&std::fs::read(probes).unwrap()).unwrap();
    let hops = ExportFile::read(export).unwrap().hops;
    let addrs = p
        .addrs
        .iter()
        .map(|&a| match p.family {
            4 => std::net::Ipv4Addr::from(a as u32).to_string(),
            _ => std::net::Ipv6Addr::from(a).to_string(),
        })
        .collect();
    let answers =
        p.answers.iter().map(|&r| if r == 0 { "-".into() } else { hops[r as usize - 1].clone() });
    (addrs, answers.collect())
}

/// Exports `table` as `algo` (family `family`) with probes of `kind`, then checks `lookup
/// EXPORT` against `lookup TABLE --algo algo`, and the probe answers against `lookup TABLE`.
fn exported_answers_as_the_table(test: &str, table: &str, algo: &str, family: &str, kind: &str) {
    let dir = scratch(test);
    let (export, probes) = (dir.join("x.fibx"), dir.join("x.probes"));
    let (e, p) = (export.to_str().unwrap(), probes.to_str().unwrap());
    let line = ok(&[
        "export",
        "--algo",
        algo,
        "--family",
        family,
        table,
        e,
        "--probes",
        "300",
        "--probe-file",
        p,
        "--probe-kind",
        kind,
        "--seed",
        "5",
    ]);
    let name = algo.split(':').next().unwrap();
    assert!(line.starts_with(&format!("{name} IPv{family}: ")), "{line}");
    assert!(line.contains("bytes") && line.contains("arrays"), "{line}");
    let (addrs, answers) = probe_answers(&probes, &export);
    assert_eq!(addrs.len(), 300);
    let mut args = vec!["lookup", e];
    args.extend(addrs.iter().map(String::as_str));
    let from_export = ok(&args);
    assert!(from_export.lines().all(|l| l.split('\t').nth(1) == Some("-")), "{from_export}");
    args[1] = table;
    let from_table = values(&ok(&args));
    args.extend(["--algo", algo]);
    assert_eq!(values(&from_export), values(&ok(&args)), "lookup EXPORT vs --algo {algo}");
    let want: Vec<(String, String)> = addrs.into_iter().zip(answers).collect();
    assert_eq!(from_table, want, "probe answers vs lookup TABLE");
    assert!(want.iter().any(|(_, v)| v != "-"), "every probe missed");
    let stats = ok(&["stats", e]);
    assert!(stats.contains(&format!("algorithm           {name} (IPv{family})")), "{stats}");
}

#[test]
fn sail_l_ipv4_export_answers_as_the_table_in_both_probe_kinds() {
    exported_answers_as_the_table("sail-random", RIS, "sail_l", "4", "random");
    exported_answers_as_the_table("sail-inprefix", RIS, "sail_l:width=32", "4", "in-prefix");
}

#[test]
fn poptrie_and_bloomfwd_exports_answer_as_the_table() {
    exported_answers_as_the_table("poptrie4", RIS, "poptrie", "4", "random");
    exported_answers_as_the_table("poptrie6", V6, "poptrie", "6", "in-prefix");
    exported_answers_as_the_table("bloom4", RIS, "bloomfwd", "4", "random");
    exported_answers_as_the_table("bloom6", V6, "bloomfwd", "6", "in-prefix");
}

#[test]
fn damaged_exports_and_mismatched_options_are_clear_errors() {
    let dir = scratch("errors");
    let export = dir.join("x.fibx");
    let e = export.to_str().unwrap();
    ok(&["export", "--algo", "sail_l", RIS, e]);
    let (code, _, err) = run(&["lookup", e, "--algo", "poptrie", "1.2.3.4"]);
    assert_eq!(code, 2);
    assert!(err.contains("sail_l export"), "{err}");
    let (code, _, err) = run(&["lookup", e, "10.0.0.0/8"]);
    assert!(code == 2 && err.contains("addresses only"), "{code} {err}");
    let (code, _, err) = run(&["lookup", e, "::1"]);
    assert!(code == 2 && err.contains("IPv4 export"), "{code} {err}");
    let (code, _, err) = run(&["lookup", e, "--prefix", "1.2.3.4"]);
    assert!(code == 2 && err.contains("no prefixes"), "{code} {err}");
    let bytes = std::fs::read(&export).unwrap();
    let cut = dir.join("cut.fibx");
    // Cut inside the header, the array table, the arrays, and by one byte: each is truncated.
    for len in [10, 100, 200, 1000, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        let cut = cut.to_str().unwrap();
        for args in [vec!["lookup", cut, "1.2.3.4"], vec!["stats", cut]] {
            let (code, _, err) = run(&args);
            let cmd = args[0];
            assert_eq!(code, 2, "{cmd}: {err}");
            assert!(err.contains("export file") && err.contains("cut.fibx"), "{cmd}: {err}");
            assert!(err.contains("truncated: "), "{cmd}: {err}");
            assert!(err.contains(&format!("the file has {len}")), "{cmd}: {err}");
            if len > 1000 {
                let promise = format!("the header promises {} bytes", bytes.len());
                assert!(err.contains(&promise), "{cmd}: {err}");
            }
        }
    }
}

#[test]
fn export_refuses_unknown_algorithms_families_and_long_ipv6_prefixes() {
    let dir = scratch("refusals");
    let e = dir.join("x.fibx");
    let e = e.to_str().unwrap();
    let (code, _, err) = run(&["export", "--algo", "radix", RIS, e]);
    assert!(code == 2 && err.contains("no export"), "{code} {err}");
    let (code, _, err) = run(&["export", "--algo", "sail_l", "--family", "6", RIS, e]);
    assert!(code == 2 && err.contains("no IPv6 routes"), "{code} {err}");
    let (code, _, err) = run(&["export", "--algo", "sail_l", V6, e]);
    assert!(code == 2 && err.contains("/64"), "{code} {err}");
    let mixed = dir.join("mixed.tsv");
    std::fs::write(&mixed, "10.0.0.0/8\ta\n2001:db8::/32\tb\n").unwrap();
    let (code, _, err) = run(&["export", "--algo", "sail_l", mixed.to_str().unwrap(), e]);
    assert!(code == 2 && err.contains("--family"), "{code} {err}");
    ok(&["export", "--algo", "sail_l", "--family", "6", mixed.to_str().unwrap(), e]);
    let out = ok(&["lookup", e, "--json", "2001:db8::1"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(v["prefix"].is_null() && v["value"] == "b", "{out}");
}
