// Each test file uses a part of this module.
#![allow(dead_code)]

//! What the tests that compile C programs share: the compiler, the static library cargo
//! built for this test run, and one compile step.
//!
//! Without a C compiler (`$CC`, else `cc`) a test says so and passes, unless
//! `FIBFORGE_REQUIRE_CC` is set (as CI does), where a missing compiler fails it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The C compiler, or `None` (with the skip explained) when none runs.
pub fn compiler(what: &str) -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    if Command::new(&cc).arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some(cc);
    }
    assert!(
        std::env::var_os("FIBFORGE_REQUIRE_CC").is_none(),
        "FIBFORGE_REQUIRE_CC is set but no C compiler ($CC or cc) runs"
    );
    eprintln!("SKIPPED: no C compiler ($CC or cc) found; {what} did not run");
    None
}

/// This crate's directory.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's `data/` directory.
pub fn data(name: &str) -> PathBuf {
    crate_dir().join("../../data").join(name)
}

/// A scratch directory of this test run.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

/// `libfibforge_c.a` as cargo built it for this test run.
pub fn static_lib() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let lib = exe.parent().expect("deps directory").join("libfibforge_c.a");
    assert!(lib.exists(), "{} not found next to the test binary", lib.display());
    lib
}

/// Compiles `source` (strict warnings, `-O2`) against the header and the static library
/// into `exe`.
pub fn compile(cc: &str, source: &Path, exe: &Path) {
    let status = Command::new(cc)
        .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", "-pthread"])
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(source)
        .arg(static_lib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(exe)
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "compiling {} failed ({status})", source.display());
}

/// Runs `exe` with `args`; returns its standard output, failing on a non-zero exit.
pub fn run(exe: &Path, args: &[&Path]) -> String {
    let out = Command::new(exe).args(args).output().expect("run the C program");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{} failed: {stdout}", exe.display());
    stdout
}
