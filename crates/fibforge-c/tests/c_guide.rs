//! Every C snippet of `docs/guide/c.md` compiled against the header and the static library
//! and run from the repository root (where the guide's `data/` paths lead). A snippet
//! without `main` is a body: its `#include` lines go on top and the rest into
//! `int main(void) { ... return 0; }`.

mod support;

use std::process::Command;

/// The ```c blocks of a Markdown text.
fn c_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```c") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// A whole program of a snippet.
fn program(snippet: &str) -> String {
    if snippet.contains("int main(") {
        return snippet.to_string();
    }
    let (head, body): (Vec<&str>, Vec<&str>) =
        snippet.lines().partition(|l| l.starts_with("#include") || l.starts_with("#define"));
    format!("{}\nint main(void) {{\n{}\nreturn 0;\n}}\n", head.join("\n"), body.join("\n"))
}

#[test]
fn every_snippet_of_the_c_guide_compiles_and_runs() {
    let Some(cc) = support::compiler("the C guide's snippets") else { return };
    let root = support::crate_dir().join("../..");
    let guide = std::fs::read_to_string(root.join("docs/guide/c.md")).expect("read the guide");
    let blocks = c_blocks(&guide);
    assert!(blocks.len() >= 2, "the guide's C snippets were not found");
    let tmp = support::scratch("fibforge-c-guide");
    for (i, block) in blocks.iter().enumerate() {
        let source = tmp.join(format!("snippet{i}.c"));
        std::fs::write(&source, program(block)).expect("write the snippet");
        let exe = tmp.join(format!("snippet{i}"));
        support::compile(&cc, &source, &exe);
        let out = Command::new(&exe).current_dir(&root).output().expect("run the snippet");
        let text = String::from_utf8_lossy(&out.stdout);
        println!("snippet {i}:\n{text}");
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "snippet {i} of docs/guide/c.md failed:\n{block}");
        assert!(!text.contains("(null)"), "snippet {i} printed a NULL name: {text}");
    }
}
