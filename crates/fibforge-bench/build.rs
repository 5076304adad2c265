//! Build script: records the compiler version and the git commit for reports; when
//! `pkg-config` finds `libdpdk`, compiles the DPDK shim (`csrc/dpdk_shim.c`) and sets
//! `cfg(have_dpdk)`; when a C compiler works, compiles the C ABI harness
//! (`csrc/capi_harness.c`, the bench's C rows) and sets `cfg(have_capi_harness)`, else
//! records why not.
//!
//! Both only with the `harness` feature (`cc` and `pkg-config` are its build dependencies):
//! the measuring core alone compiles no C and probes for nothing.
//!
//! DPDK stays optional: without it (or with `FIBFORGE_NO_DPDK=1`) nothing is compiled or
//! linked and the DPDK peer reports "not available". Link flags are emitted only after the
//! shim compiled, so a broken DPDK install degrades to "not available" too.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(have_dpdk)");
    println!("cargo::rerun-if-changed=csrc/dpdk_shim.c");
    println!("cargo::rerun-if-env-changed=FIBFORGE_NO_DPDK");
    println!("cargo::rerun-if-env-changed=PKG_CONFIG_PATH");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    println!("cargo::rustc-env=FIBFORGE_RUSTC_VERSION={}", version.trim());
    println!("cargo::rustc-env=FIBFORGE_GIT_COMMIT={}", git_commit());
    println!("cargo::rustc-check-cfg=cfg(have_capi_harness)");
    #[cfg(feature = "harness")]
    harness();
}

/// The C parts of the harness: the DPDK shim and the C ABI harness.
#[cfg(feature = "harness")]
fn harness() {
    let why = match dpdk() {
        Ok(version) => {
            println!("cargo::rustc-cfg=have_dpdk");
            println!("cargo::rustc-env=FIBFORGE_DPDK_VERSION={version}");
            String::new()
        }
        Err(why) => why,
    };
    println!("cargo::rustc-env=FIBFORGE_DPDK_MISSING={why}");
    capi_harness();
}

/// Compiles the C ABI harness against `fibforge.h`; its calls resolve to the `fibforge-c`
/// dependency linked into the same binary.
#[cfg(feature = "harness")]
fn capi_harness() {
    println!("cargo::rerun-if-changed=csrc/capi_harness.c");
    println!("cargo::rerun-if-changed=../fibforge-c/include/fibforge.h");
    let why = match cc::Build::new()
        .file("csrc/capi_harness.c")
        .include("../fibforge-c/include")
        .opt_level(2)
        .try_compile("fibforge_capi_harness")
    {
        Ok(()) => {
            println!("cargo::rustc-cfg=have_capi_harness");
            String::new()
        }
        Err(e) => format!("no working C compiler at build time ({})", first_line(&e.to_string())),
    };
    println!("cargo::rustc-env=FIBFORGE_CAPI_MISSING={why}");
}

/// Compiles the shim against libdpdk; `Ok(version)` or `Err(why not)`.
#[cfg(feature = "harness")]
fn dpdk() -> Result<String, String> {
    if std::env::var_os("FIBFORGE_NO_DPDK").is_some_and(|v| v != "0") {
        return Err("disabled at build time by FIBFORGE_NO_DPDK".into());
    }
    let lib = match pkg_config::Config::new().cargo_metadata(false).probe("libdpdk") {
        Ok(lib) => lib,
        Err(e) => {
            watch_pkg_config_dirs();
            return Err(format!(
                "libdpdk was not found by pkg-config at build time ({}); install libdpdk-dev \
                 and pkg-config and build again (`cargo clean -p fibforge-bench` if it is not \
                 noticed)",
                first_line(&e.to_string())
            ));
        }
    };
    // The raw cflags carry `-include rte_config.h` and `-march=...`, which the parsed
    // include paths do not.
    let cflags = std::process::Command::new("pkg-config")
        .args(["--cflags", "libdpdk"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    let mut build = cc::Build::new();
    build.file("csrc/dpdk_shim.c").warnings(false).opt_level(3);
    let mut words = cflags.split_whitespace();
    while let Some(w) = words.next() {
        if w == "-include" {
            if let Some(f) = words.next() {
                build.flag("-include").flag(f);
            }
        } else {
            build.flag(w);
        }
    }
    build
        .try_compile("fibforge_dpdk_shim")
        .map_err(|e| format!("the DPDK shim did not compile: {}", first_line(&e.to_string())))?;
    for path in &lib.link_paths {
        println!("cargo::rustc-link-search=native={}", path.display());
    }
    for name in &lib.libs {
        println!("cargo::rustc-link-lib={name}");
    }
    Ok(lib.version)
}

/// Reruns this script when a `.pc` file appears in pkg-config's search path, so that
/// installing DPDK after a first build is noticed without a `cargo clean`.
#[cfg(feature = "harness")]
fn watch_pkg_config_dirs() {
    // Without pkg-config itself, the directories where Debian's packages put `.pc` files.
    const USUAL: &str = "/usr/local/lib/pkgconfig:/usr/lib/x86_64-linux-gnu/pkgconfig:\
                         /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/lib/pkgconfig:/usr/share/pkgconfig";
    let listed = std::process::Command::new("pkg-config")
        .args(["--variable", "pc_path", "pkg-config"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_else(|| USUAL.to_string());
    let extra = std::env::var("PKG_CONFIG_PATH").unwrap_or_default();
    let dirs = listed.trim().split(':').chain(extra.split(':'));
    // A path that does not exist would rerun the script on every build.
    for dir in dirs.filter(|d| !d.is_empty() && std::path::Path::new(d).is_dir()) {
        println!("cargo::rerun-if-changed={dir}");
    }
}

/// The first non-empty line of a message (pkg-config's errors start with an empty one).
#[cfg(feature = "harness")]
fn first_line(s: &str) -> String {
    s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string()
}

/// The commit of the checkout being built (empty outside git), with the files whose change
/// means a new commit (HEAD and the branch it names) registered to rerun this script.
fn git_commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
    };
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        // A missing file would rerun the script on every build.
        if let Some(p) = git(&["rev-parse", "--git-path", &name])
            && std::path::Path::new(&p).exists()
        {
            println!("cargo::rerun-if-changed={p}");
        }
    }
    git(&["rev-parse", "HEAD"]).unwrap_or_default()
}
