//! Compiles `tests/c/test_view.c` (the inline lookup over a view, `fibforge_view4_lookup`)
//! against `include/fibforge.h` and the static library, and runs it on the shipped table
//! `data/ris2015-as3856.tsv.gz`.
//!
//! Without a C compiler (`$CC`, else `cc`) the test says so and passes, unless
//! `FIBFORGE_REQUIRE_CC` is set (as CI does), where a missing compiler fails it.

use std::path::Path;
use std::process::Command;

fn compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let works = Command::new(&cc).arg("--version").output().is_ok_and(|o| o.status.success());
    works.then_some(cc)
}

#[test]
fn inline_view_lookups_answer_as_the_reader() {
    let Some(cc) = compiler() else {
        assert!(
            std::env::var_os("FIBFORGE_REQUIRE_CC").is_none(),
            "FIBFORGE_REQUIRE_CC is set but no C compiler ($CC or cc) runs"
        );
        eprintln!("SKIPPED: no C compiler ($CC or cc) found; the C view test did not run");
        return;
    };
    let exe_path = std::env::current_exe().expect("test executable path");
    let lib = exe_path.parent().expect("deps directory").join("libfibforge_c.a");
    assert!(lib.exists(), "{} not found next to the test binary", lib.display());
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fibforge-c-view");
    std::fs::create_dir_all(&tmp).expect("temporary directory");
    let exe = tmp.join("test_view");
    // -O2: the view's walk is inlined into the test's loops, as a data plane would build it.
    let status = Command::new(&cc)
        .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", "-pthread"])
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/test_view.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "compiling the C view test failed ({status})");
    let table = crate_dir.join("../../data/ris2015-as3856.tsv.gz");
    let out = Command::new(&exe).arg(&table).output().expect("run the C view test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "C view test failed: {stdout}");
    assert!(stdout.contains(" passed, 0 failed"), "unexpected C view test output: {stdout}");
}
