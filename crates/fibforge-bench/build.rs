//! Build script: records the compiler version for reports.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(have_dpdk)");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    println!("cargo::rustc-env=FIBFORGE_RUSTC_VERSION={}", version.trim());
}
