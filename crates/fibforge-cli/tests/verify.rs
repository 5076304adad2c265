//! `fibforge verify` on small tables: a table with no routes is an error (nothing was
//! verified), and a structure that cannot take a table is reported "not applicable" while
//! the others are checked.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use std::path::{Path, PathBuf};

/// A fresh file holding `text` in this test's own temporary folder.
fn table(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fibforge-verify-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn verify(path: &Path, algo: &str) -> assert_cmd::assert::Assert {
    Command::cargo_bin("fibforge")
        .unwrap()
        .args(["verify", path.to_str().unwrap(), "--algo", algo, "--samples", "2000"])
        .assert()
}

#[test]
fn an_empty_table_is_nothing_to_verify_and_fails() {
    // A file of comments loads as a table without routes; a 0-byte file is not a table.
    let path = table("comments.tsv", "# no routes here\n");
    verify(&path, "all").code(2).stderr(contains("nothing to verify"));
    let path = table("empty.tsv", "");
    verify(&path, "all").code(2).stderr(contains("the file is empty"));
}

#[test]
fn structures_that_cannot_take_the_table_are_not_applicable_and_the_rest_are_checked() {
    // SAIL_L stops at /64 in IPv6: a /128 route is beyond it.
    let path = table("v6.tsv", "2001:db8::/32\tgw-a\n2001:db8:1:2::1/128\tgw-b\n::/0\tgw-c\n");
    verify(&path, "all")
        .success()
        .stdout(contains("sail_l").and(contains("not applicable")))
        .stdout(contains("poptrie").and(contains(" ok")));
    // Alone, it leaves nothing verified: an error, not a success.
    verify(&path, "sail_l").code(2).stderr(contains("nothing to verify"));
    verify(&path, "sail_l,poptrie").success().stdout(contains("not applicable"));
}

#[test]
fn a_wrong_option_is_still_an_error() {
    let path = table("v4.tsv", "10.0.0.0/8\tgw-a\n");
    verify(&path, "poptrie:s=99").code(2);
    verify(&path, "all").success().stdout(contains("not applicable").not());
}
