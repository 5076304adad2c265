//! Compiles `tests/c/test_iptable.c` (every `fibforge_iptable_*`, `fibforge_ipreader_*` and
//! `fibforge_ipcursor_*` function, error paths, a reader thread beside a writer) against
//! `include/fibforge.h` and the static library, and runs it on the shipped tables
//! `data/ris2015-as3856.tsv.gz` and `data/tier1-2024-v6.txt.gz`, every route checked.

mod support;

#[test]
fn the_dual_family_table_from_c() {
    let Some(cc) = support::compiler("the C iptable test") else { return };
    let tmp = support::scratch("fibforge-c-iptable");
    let exe = tmp.join("test_iptable");
    support::compile(&cc, &support::crate_dir().join("tests/c/test_iptable.c"), &exe);
    let v4 = support::data("ris2015-as3856.tsv.gz");
    let v6 = support::data("tier1-2024-v6.txt.gz");
    let out = support::run(&exe, &[&tmp, &v4, &v6]);
    assert!(out.contains(" passed, 0 failed"), "unexpected C test output: {out}");
    assert_eq!(out.matches("routes checked, 0 wrong").count(), 4, "{out}");
}
