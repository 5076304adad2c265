//! `fibforge replay` on a small text table and update stream: the JSON holds the contract's
//! fields, every update is applied, and the final structure equals a fresh compile.

use assert_cmd::Command;

const TABLE: &str = "0.0.0.0/0\t192.0.2.1\n10.0.0.0/8\t192.0.2.2\n10.1.0.0/16\t192.0.2.3\n\
                     10.1.2.0/24\t192.0.2.4\n198.51.100.7/32\t192.0.2.5\n";

const UPDATES: &str = "1418774413 w 10.1.0.0/16 0.0.0.0\n\
                       1418774413 a 10.1.2.128/25 192.0.2.9\n\
                       1418774414 a 10.0.0.0/8 192.0.2.8\n\
                       1418774414 a 0.0.0.0/1 192.0.2.7\n\
                       1418774415 w 198.51.100.7/32 0.0.0.0\n\
                       1418774415 a 255.255.255.255/32 192.0.2.6\n\
                       1418774416 w 10.9.9.0/24 0.0.0.0\n";

#[test]
fn replay_reports_the_contract_fields_and_no_mismatch() {
    let dir = std::env::temp_dir().join(format!("fibforge-replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (table, updates, json) = (dir.join("t.tsv"), dir.join("u.txt"), dir.join("r.json"));
    std::fs::write(&table, TABLE).unwrap();
    std::fs::write(&updates, UPDATES).unwrap();
    for readers in ["0", "2"] {
        Command::cargo_bin("fibforge")
            .unwrap()
            .args([
                "replay",
                table.to_str().unwrap(),
                updates.to_str().unwrap(),
                "--algo",
                "poptrie",
            ])
            .args(["--readers", readers, "--idle", "0.05", "--compare", "0"])
            .args(["--json", json.to_str().unwrap()])
            .assert()
            .success();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(v["updates"], 7);
        assert_eq!(v["final_mismatches"], 0);
        assert_eq!(v["final_mismatches_rib"], 0);
        assert_eq!(v["routes_after"], 6, "5 - /16 + /25 + /1 - /32 + /32");
        for key in ["updates_per_sec", "update_ns_p50", "update_ns_p99", "lookup_mlps_idle"] {
            assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {}", v[key]);
        }
        assert_eq!(v["lookup_mlps_during"].is_null(), readers == "0");
        assert!(v["lookup_mlps_after"].is_null() && v["lookup_mlps_fresh"].is_null());
    }
    // Three rounds of the stream: every update applied three times, the same final routes
    // (later rounds repeat announcements and withdraw absent routes), and the updated
    // structure's lookup rate measured beside a fresh compile's.
    Command::cargo_bin("fibforge")
        .unwrap()
        .args(["replay", table.to_str().unwrap(), updates.to_str().unwrap(), "--algo", "poptrie"])
        .args(["--rounds", "3", "--compare", "0.01", "--idle", "0.05"])
        .args(["--json", json.to_str().unwrap()])
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!((v["rounds"].as_u64(), v["updates"].as_u64()), (Some(3), Some(21)));
    assert_eq!(v["routes_after"], 6);
    assert_eq!(v["final_mismatches"], 0);
    for key in ["lookup_mlps_after", "lookup_mlps_fresh", "memory_bytes_fresh"] {
        assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {}", v[key]);
    }
    Command::cargo_bin("fibforge")
        .unwrap()
        .args(["replay", table.to_str().unwrap(), updates.to_str().unwrap(), "--rounds", "0"])
        .assert()
        .failure();
    // Paced: the stream spans 3 recorded seconds, so 10x takes at least 0.3 s.
    Command::cargo_bin("fibforge")
        .unwrap()
        .args(["replay", table.to_str().unwrap(), updates.to_str().unwrap(), "--algo", "poptrie"])
        .args(["--pace", "10", "--idle", "0.05", "--compare", "0"])
        .args(["--json", json.to_str().unwrap()])
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["pace"], 10.0);
    assert!(v["seconds"].as_f64().unwrap() >= 0.3, "paced replay ran {}", v["seconds"]);
    assert!(v["lookup_mlps_during_cpu"].as_f64().is_some_and(|x| x > 0.0));
    Command::cargo_bin("fibforge")
        .unwrap()
        .args(["replay", table.to_str().unwrap(), updates.to_str().unwrap(), "--pace", "0"])
        .assert()
        .failure();
    Command::cargo_bin("fibforge")
        .unwrap()
        .args(["replay", table.to_str().unwrap(), updates.to_str().unwrap(), "--algo", "lulea"])
        .assert()
        .failure();
    std::fs::remove_dir_all(&dir).ok();
}

/// `replay` without `--algo` (= `--algo all`): every structure with updates replays the
/// stream (the non-concurrent ones behind two copies, with readers running), each ends equal
/// to a fresh compile and to the RIB, and the JSON lists them all; a leaf-pushed CPE trie is
/// refused by name.
#[test]
fn replay_all_runs_every_updatable_structure_without_mismatch() {
    let dir = std::env::temp_dir().join(format!("fibforge-replay-all-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (table, updates, json) = (dir.join("t.tsv"), dir.join("u.txt"), dir.join("r.json"));
    std::fs::write(&table, TABLE).unwrap();
    std::fs::write(&updates, UPDATES).unwrap();
    let out = Command::cargo_bin("fibforge")
        .unwrap()
        .args(["replay", table.to_str().unwrap(), updates.to_str().unwrap()])
        .args(["--readers", "1", "--idle", "0.01", "--compare", "0"])
        .args(["--json", json.to_str().unwrap()])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r["algo"].as_str().unwrap()).collect();
    for want in ["poptrie", "bplus", "radix", "loop", "bloomfwd", "miht", "treebitmap6"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    for want in ["dir24_8", "sail_b", "sail_u", "sail_l", "sail_m", "dxr16", "cpe_var:leafpush=off"]
    {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    for r in runs {
        assert_eq!(r["updates"], 7, "{r}");
        assert_eq!(
            (r["final_mismatches"].as_u64(), r["final_mismatches_rib"].as_u64()),
            (Some(0), Some(0)),
            "{r}"
        );
        assert!(r["lookup_mlps_during"].as_f64().is_some(), "{r}");
        let via = if ["poptrie", "bplus"].contains(&r["algo"].as_str().unwrap()) {
            "native"
        } else {
            "left-right"
        };
        assert_eq!(r["readers_via"], via, "{r}");
        assert!(stdout.contains(r["algo"].as_str().unwrap()));
    }
    Command::cargo_bin("fibforge")
        .unwrap()
        .args(["replay", table.to_str().unwrap(), updates.to_str().unwrap(), "--algo", "cpe_var"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("leafpush=off"));
    std::fs::remove_dir_all(&dir).ok();
}
