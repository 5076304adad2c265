//! The GPU lookups of `gpu/lookup.h`, built for the host with the system C++ compiler, answer
//! every probe as the RIB oracle does, on exports of the shipped tables (issue 24: CI has no
//! GPU, so it checks the same functions the kernels run through their host build). Also: the
//! C++ reader refuses a truncated or corrupted export without crashing.
//!
//! Needs a C++17 compiler (`$CXX`, default `g++`); set `FIBFORGE_SKIP_GPU_HOST=1` to skip where
//! there is none.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fibforge-gpu-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles gpu/host_check.cpp into `dir`, or `None` when skipping is asked for.
fn host_check(dir: &Path) -> Option<PathBuf> {
    if std::env::var_os("FIBFORGE_SKIP_GPU_HOST").is_some() {
        eprintln!("FIBFORGE_SKIP_GPU_HOST set: not building gpu/host_check.cpp");
        return None;
    }
    let exe = dir.join("host_check");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    let src = repo().join("gpu/host_check.cpp");
    let status = std::process::Command::new(&cxx)
        .args(["-std=c++17", "-O2", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| {
            panic!("{cxx}: {e} (set FIBFORGE_SKIP_GPU_HOST=1 without a C++ compiler)")
        });
    assert!(status.success(), "{cxx} failed on {}", src.display());
    Some(exe)
}

/// Exports `algo` of `table` into `dir`, with a probe file when `probes` names one.
fn export(dir: &Path, algo: &str, table: &str, probes: Option<(&str, &str)>) -> PathBuf {
    let out = dir.join(format!("{algo}-{}.fexp", table.replace('.', "_")));
    let mut cmd = Command::cargo_bin("fibforge").unwrap();
    cmd.arg("export").arg("--algo").arg(algo).arg(repo().join("data").join(table)).arg(&out);
    if let Some((file, kind)) = probes {
        cmd.args(["--probes", "16384", "--probe-kind", kind, "--probe-file"]).arg(dir.join(file));
    }
    cmd.assert().success();
    out
}

fn run(exe: &Path, export: &Path, probes: &Path) -> (i32, String) {
    let out = std::process::Command::new(exe).arg(export).arg(probes).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn host_build_of_every_gpu_lookup_answers_as_the_oracle() {
    let dir = scratch();
    let Some(exe) = host_check(&dir) else { return };
    let v4 = "ris2015-as3856.tsv.gz";
    let v6 = "tier1-2024-v6.txt.gz";
    let p4 = dir.join("v4.probes");
    let p6 = dir.join("v6.probes");
    let cases = [
        (export(&dir, "sail_l", v4, Some(("v4.probes", "random"))), &p4),
        (export(&dir, "sail_l:width=32", v4, None), &p4),
        (export(&dir, "poptrie", v4, None), &p4),
        (export(&dir, "poptrie:s=0", v4, None), &p4),
        (export(&dir, "bloomfwd", v4, None), &p4),
        (export(&dir, "bloomfwd:hash=murmur", v4, None), &p4),
        (export(&dir, "poptrie", v6, Some(("v6.probes", "in-prefix"))), &p6),
        (export(&dir, "bloomfwd", v6, None), &p6),
        (export(&dir, "bloomfwd:hash=knuth", v6, None), &p6),
    ];
    for (file, probes) in cases {
        let (code, text) = run(&exe, &file, probes);
        assert_eq!(code, 0, "{}: {text}", file.display());
        assert!(text.contains("16384 probes, 0 mismatches"), "{}: {text}", file.display());
    }
    // One level per length is more than the 32 levels a GPU view holds: refused, not misread.
    let many = export(&dir, "bloomfwd:levels=0", v6, None);
    let (code, text) = run(&exe, &many, &p6);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("bloomfwd level count"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn host_reader_refuses_damaged_exports() {
    let dir = scratch().join("damaged");
    std::fs::create_dir_all(&dir).unwrap();
    let Some(exe) = host_check(&dir) else { return };
    let file = export(&dir, "sail_l", "ris2015-as3856.tsv.gz", Some(("p", "random")));
    let bytes = std::fs::read(&file).unwrap();
    let bad = dir.join("bad.fexp");
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 1;
    for damaged in [&bytes[..bytes.len() / 3], &bytes[..100], &flipped[..]] {
        std::fs::write(&bad, damaged).unwrap();
        let (code, text) = run(&exe, &bad, &dir.join("p"));
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("host_check:"), "{text}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
