//! Compiles `tests/c/test_fibforge.c` against `include/fibforge.h` with the system C compiler,
//! links it to the static and to the shared library this crate builds, and runs both.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where cargo put this crate's `libfibforge_c.a` / `.so` for this test run.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory").to_path_buf();
    assert!(
        deps.join("libfibforge_c.a").exists(),
        "libfibforge_c.a not found next to the test binary in {}",
        deps.display()
    );
    deps
}

fn compile(cc: &str, out: &Path, link: &[String]) {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(cc)
        .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-pedantic", "-pthread"])
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/test_fibforge.c"))
        .args(link)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(out)
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "compiling the C test failed ({status})");
}

fn run(exe: &Path, tmp: &Path) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/mrt");
    let corpus = fibforge_io::hostile::write(&tmp.join("hostile")).expect("write the corpus");
    let out = Command::new(exe)
        .arg(tmp)
        .arg(data.join("bview.ipv4_unicast_add_path.gz"))
        .arg(data.join("bview.ipv6_unicast_add_path.gz"))
        .args(corpus.iter().map(|(_, path)| path))
        .env(fibforge_io::open::MAX_DECOMPRESSED_ENV, fibforge_io::hostile::BOMB_CAP)
        .output()
        .expect("run the C test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{}: {stdout}", exe.display());
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "C test {} failed: {stdout}", exe.display());
    assert!(stdout.contains(" passed, 0 failed"), "unexpected C test output: {stdout}");
}

#[test]
fn c_program_exercises_every_function() {
    let Some(cc) = support::compiler("the C ABI test") else { return };
    let lib = library_dir();
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fibforge-c-test");
    std::fs::create_dir_all(&tmp).expect("temporary directory");

    let static_exe = tmp.join("test_fibforge_static");
    compile(&cc, &static_exe, &[lib.join("libfibforge_c.a").display().to_string()]);
    run(&static_exe, &tmp);

    let shared_exe = tmp.join("test_fibforge_shared");
    let dir = lib.display().to_string();
    // The program asks for the library by its soname at run time; cargo names the file
    // without the version, so a link under the soname sits in a directory of the rpath.
    let soname_dir = tmp.join("soname");
    std::fs::create_dir_all(&soname_dir).expect("soname directory");
    let link = soname_dir.join(env!("FIBFORGE_C_SONAME"));
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(lib.join("libfibforge_c.so"), &link).expect("soname link");
    let rpath = format!("-Wl,-rpath,{}", soname_dir.display());
    compile(&cc, &shared_exe, &[format!("-L{dir}"), rpath, "-lfibforge_c".into()]);
    run(&shared_exe, &tmp);
}
