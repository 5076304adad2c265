//! Compiles `tests/c/test_view.c` (the inline lookup over a view, `fibforge_view4_lookup`)
//! against `include/fibforge.h` and the static library, and runs it on the shipped table
//! `data/ris2015-as3856.tsv.gz`.

mod support;

#[test]
fn inline_view_lookups_answer_as_the_reader() {
    let Some(cc) = support::compiler("the C view test") else { return };
    let tmp = support::scratch("fibforge-c-view");
    let exe = tmp.join("test_view");
    // -O2: the view's walk is inlined into the test's loops, as a data plane would build it.
    support::compile(&cc, &support::crate_dir().join("tests/c/test_view.c"), &exe);
    let out = support::run(&exe, &[&support::data("ris2015-as3856.tsv.gz")]);
    assert!(out.contains(" passed, 0 failed"), "unexpected C view test output: {out}");
}
