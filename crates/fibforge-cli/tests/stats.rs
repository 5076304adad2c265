//! `fibforge stats`: the distinct values are named for what they are (next hops, or origin
//! ASes with `--value origin_as`), in text and JSON.

use assert_cmd::Command;

const TABLE: &str = "10.0.0.0/8 192.0.2.1 64500\n10.1.0.0/16 192.0.2.1 64501\n\
                     10.2.0.0/16 192.0.2.1 64502\n";

fn stats(args: &[&str]) -> String {
    let out = Command::cargo_bin("fibforge").unwrap().arg("stats").args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn origin_ases_are_not_called_next_hops() {
    let dir = std::env::temp_dir().join(format!("fibforge-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("as.txt");
    std::fs::write(&table, TABLE).unwrap();
    let t = table.to_str().unwrap();
    let text = stats(&[t]);
    assert!(text.contains("distinct next hops  1\n"), "{text}");
    let text = stats(&[t, "--value", "origin_as"]);
    assert!(text.contains("distinct origin ASes 3\n"), "{text}");
    assert!(!text.contains("next hops"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&stats(&[t, "--json"])).unwrap();
    assert_eq!((json["value"].as_str(), json["next_hops"].as_u64()), (Some("next_hop"), Some(1)));
    let json = stats(&[t, "--json", "--value", "origin_as"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((json["value"].as_str(), json["next_hops"].as_u64()), (Some("origin_as"), Some(3)));
    std::fs::remove_dir_all(&dir).ok();
}

/// A file of blank lines loads as an empty table with a warning naming it (issue 56), and
/// `--algo` refuses a malformed spec naming the problem.
#[test]
fn blank_files_warn_and_malformed_specs_are_refused() {
    let dir = std::env::temp_dir().join(format!("fibforge-blank-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let blank = dir.join("blank.txt");
    std::fs::write(&blank, "\n\n   \n").unwrap();
    let out = Command::cargo_bin("fibforge").unwrap().arg("stats").arg(&blank).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let want = format!("no routes in {} (3 lines, all blank or comments)", blank.display());
    assert!(err.contains("warning:") && err.contains(&want), "{err}");
    let table = dir.join("t.txt");
    std::fs::write(&table, TABLE).unwrap();
    let out = Command::cargo_bin("fibforge")
        .unwrap()
        .args(["lookup", table.to_str().unwrap(), "10.0.0.1", "--algo", "poptrie:s=16,s=18"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("option `s` given twice"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
