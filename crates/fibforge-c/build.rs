//! Link settings of the shared library `libfibforge_c.so` (Linux and other ELF targets):
//!
//! - a soname, `libfibforge_c.so.<ABI>`, so that programs record the ABI they were linked
//!   against; `<ABI>` is the major version, or `0.<minor>` before 1.0 (where, as in cargo's
//!   semver, a minor release may break the ABI). `tools/install-c.sh` installs the library
//!   under that name. The tests read it from `FIBFORGE_C_SONAME`.
//! - `--exclude-libs,ALL`: symbols of the static C libraries linked in (bzip2's `BZ2_*`) stay
//!   local, so the library exports the `fibforge_*` functions only and cannot clash with a
//!   program's own libbz2.

fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").expect("cargo sets the version");
    let abi = if major == "0" { format!("0.{minor}") } else { major };
    let soname = format!("libfibforge_c.so.{abi}");
    println!("cargo::rustc-env=FIBFORGE_C_SONAME={soname}");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let elf = !matches!(target_os.as_str(), "macos" | "ios" | "windows");
    if elf {
        println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,{soname}");
        println!("cargo::rustc-cdylib-link-arg=-Wl,--exclude-libs,ALL");
    }
}
