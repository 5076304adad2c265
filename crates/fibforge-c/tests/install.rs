//! The C library as a user installs it: `tools/install-c.sh` into a temporary prefix (with the
//! libraries this test run built), then a small C program compiled and linked only through
//! `pkg-config --cflags --libs fibforge`, run through its rpath and the soname link. Also: the
//! header's version macros equal the crate's version, and the shared library exports the
//! `fibforge_*` functions only (no symbols of the bundled bzip2).
//!
//! Without a C compiler, `bash`, `pkg-config` or `nm` the affected test says so and passes,
//! unless `FIBFORGE_REQUIRE_CC` (a compiler and bash; CI sets it) or `FIBFORGE_REQUIRE_PKG_CONFIG`
//! (pkg-config and nm) is set, where the missing tool fails it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Whether `tool --version` runs; otherwise prints why the test is skipped, or fails when the
/// environment variable `require` is set.
fn have(tool: &str, require: &str, test: &str) -> bool {
    let works = Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if !works {
        assert!(std::env::var_os(require).is_none(), "{require} is set but `{tool}` does not run");
        eprintln!("SKIPPED {test}: `{tool}` not found (set {require} to make this a failure)");
    }
    works
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where cargo put this crate's `libfibforge_c.a` / `.so` for this test run.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory").to_path_buf();
    assert!(deps.join("libfibforge_c.so").exists(), "no libfibforge_c.so in {}", deps.display());
    deps
}

fn checked(what: &str, out: Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what} failed ({}):\n{stdout}\n{stderr}", out.status);
    stdout
}

fn pkg_config(pc_dir: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new("pkg-config")
        .args(args)
        .arg("fibforge")
        .env("PKG_CONFIG_PATH", pc_dir)
        .output()
        .expect("run pkg-config");
    let text = checked("pkg-config", out);
    text.split_whitespace().map(String::from).collect()
}

#[test]
fn header_version_macros_match_the_crate() {
    let header = std::fs::read_to_string(crate_dir().join("include/fibforge.h")).unwrap();
    let value = |name: &str| {
        let line = header.lines().find(|l| l.starts_with(&format!("#define {name} ")));
        line.unwrap_or_else(|| panic!("no {name} in fibforge.h")).split_whitespace().nth(2)
    };
    assert_eq!(value("FIBFORGE_VERSION_MAJOR"), Some(env!("CARGO_PKG_VERSION_MAJOR")));
    assert_eq!(value("FIBFORGE_VERSION_MINOR"), Some(env!("CARGO_PKG_VERSION_MINOR")));
    assert_eq!(value("FIBFORGE_VERSION_PATCH"), Some(env!("CARGO_PKG_VERSION_PATCH")));
    let string = format!("\"{}\"", env!("CARGO_PKG_VERSION"));
    assert_eq!(value("FIBFORGE_VERSION_STRING"), Some(string.as_str()));
}

#[test]
fn installed_prefix_builds_a_program_through_pkg_config() {
    let test = "installed_prefix_builds_a_program_through_pkg_config";
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let (need_cc, need_pc) = ("FIBFORGE_REQUIRE_CC", "FIBFORGE_REQUIRE_PKG_CONFIG");
    if !(have(&cc, need_cc, test)
        && have("bash", need_cc, test)
        && have("pkg-config", need_pc, test))
    {
        return;
    }
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fibforge-c-install");
    let _ = std::fs::remove_dir_all(&tmp);
    let prefix = tmp.join("prefix");
    let script = crate_dir().join("../../tools/install-c.sh");
    let out = Command::new("bash")
        .arg(script)
        .arg(&prefix)
        .env("FIBFORGE_C_LIB_DIR", library_dir())
        .output()
        .expect("run tools/install-c.sh");
    let said = checked("tools/install-c.sh", out);
    let lib = prefix.join("lib");
    // A private prefix: the script says how a program finds the library at run time.
    let rpath = format!("-Wl,-rpath,{}", lib.display());
    assert!(said.contains(&rpath) && said.contains("LD_LIBRARY_PATH"), "{said}");
    for f in ["libfibforge_c.a", "libfibforge_c.so", env!("FIBFORGE_C_SONAME")] {
        assert!(lib.join(f).exists(), "{f} not installed in {}", lib.display());
    }
    assert!(prefix.join("include/fibforge.h").exists());

    let pc_dir = lib.join("pkgconfig");
    assert_eq!(pkg_config(&pc_dir, &["--modversion"]), [env!("CARGO_PKG_VERSION")]);
    let flags = pkg_config(&pc_dir, &["--cflags", "--libs"]);
    let libdir = pkg_config(&pc_dir, &["--variable=libdir"]).concat();
    let exe = tmp.join("app");
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
        .arg(crate_dir().join("tests/c/pkg_config_app.c"))
        .args(&flags)
        .arg(format!("-Wl,-rpath,{libdir}"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run the C compiler");
    checked("compiling tests/c/pkg_config_app.c", out);
    let out = Command::new(&exe).output().expect("run the installed program");
    let text = checked("the program linked through pkg-config", out);
    let want = format!("version {} header", env!("CARGO_PKG_VERSION"));
    assert!(text.starts_with(&want), "{text}");
    assert!(text.contains("insert=FIBFORGE_OK bad=FIBFORGE_ERR_INVALID hit=5 miss=none"), "{text}");
}

#[test]
fn shared_library_exports_fibforge_functions_only() {
    if !have("nm", "FIBFORGE_REQUIRE_PKG_CONFIG", "shared_library_exports_fibforge_functions_only")
    {
        return;
    }
    let so = library_dir().join("libfibforge_c.so");
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(&so).output().expect("nm");
    let text = checked("nm -D", out);
    let exported: Vec<&str> = text.lines().filter_map(|l| l.split_whitespace().nth(2)).collect();
    assert!(exported.contains(&"fibforge_table4_lookup"), "{exported:?}");
    let foreign: Vec<&&str> = exported.iter().filter(|s| !s.starts_with("fibforge_")).collect();
    assert!(foreign.is_empty(), "{} exports more than fibforge_*: {foreign:?}", so.display());
    // The header and the library name the same functions (its inline ones aside).
    let header = std::fs::read_to_string(crate_dir().join("include/fibforge.h")).unwrap();
    let declared = declared_functions(&header);
    let missing: Vec<&String> =
        declared.iter().filter(|f| !exported.contains(&f.as_str())).collect();
    assert!(missing.is_empty(), "declared in fibforge.h, not exported: {missing:?}");
    let undeclared: Vec<&&str> =
        exported.iter().filter(|e| !declared.iter().any(|d| d == *e)).collect();
    assert!(undeclared.is_empty(), "exported, not declared in fibforge.h: {undeclared:?}");
}

/// The names of the functions the header declares (not its `static inline` ones): on a line
/// outside comments, `fibforge_...(` preceded by a return type only (words and `*`).
fn declared_functions(header: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_comment = false;
    for line in header.lines() {
        let code = line.trim_start();
        if in_comment || code.starts_with("/*") {
            in_comment = !code.contains("*/");
            continue;
        }
        if code.starts_with("static") {
            continue;
        }
        let is_type = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ' ' || c == '*';
        for (at, _) in code.match_indices("fibforge_") {
            let name: String =
                code[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let return_type = &code[..at];
            if !return_type.trim().is_empty()
                && return_type.chars().all(is_type)
                && code[at + name.len()..].starts_with('(')
                && !names.contains(&name)
            {
                names.push(name);
            }
        }
    }
    names
}
