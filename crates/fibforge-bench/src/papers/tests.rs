use super::*;
use crate::report::TableInfo;
use fibforge::{NextHop, Prefix, Rib};

fn table(routes: &[(&str, u32)]) -> NamedTable {
    let mut v4 = Rib::new();
    for (p, h) in routes {
        v4.insert(p.parse::<Prefix<u32>>().unwrap(), NextHop::from_index(*h));
    }
    let info = TableInfo {
        name: "t".into(),
        path: "t".into(),
        ipv4_prefixes: v4.len(),
        ipv6_prefixes: 0,
        next_hops: 2,
        load_s: 0.0,
    };
    NamedTable { info, v4, v6: Rib::new() }
}

fn input(tables: &[NamedTable]) -> StudyInput<'_> {
    StudyInput { tables, updates: None, out: None, seconds: 0.001, seed: 7, shared: None }
}

const ROUTES: [(&str, u32); 5] = [
    ("0.0.0.0/0", 1),
    ("10.0.0.0/8", 2),
    ("10.1.0.0/16", 3),
    ("10.1.2.128/25", 1),
    ("192.168.0.0/21", 2),
];

#[test]
fn bloom_table3_counts_groups_and_expands() {
    let t = [table(&ROUTES)];
    let st = &bloom::table3(&input(&t)).unwrap()[0];
    // /0, /8, /16 up to /20; /21 in 21-24 (8 /24 keys); /25 in 25-32 (128 /32 keys).
    assert_eq!(st.rows[0][1..], ["3", "1", "1", "1048576", "8", "128"]);
}

#[test]
fn fig7_depth_is_never_shorter_than_the_match() {
    let t = table(&ROUTES);
    let grid = poptrie::depth_grid(&t.v4, 1 << 14, 3);
    let total: u64 = grid.iter().flat_map(|r| r.iter()).sum();
    assert_eq!(total, 1 << 14, "the default route matches every address");
    for (len, row) in grid.iter().enumerate() {
        assert!(row[..len].iter().all(|&c| c == 0), "depth below matched length {len}");
    }
}

#[test]
fn studies_render_as_markdown_and_unknown_names_fail() {
    let t = [table(&ROUTES)];
    let mut log = |_: &str| {};
    let st = run("cpe-table3", &input(&t), &mut log).unwrap();
    let md = st[0].markdown();
    assert!(md.contains("| t | "), "{md}");
    assert_eq!(md.lines().filter(|l| l.starts_with('|')).count(), 3);
    assert!(run("nope", &input(&t), &mut log).is_err());
    assert!(STUDIES.iter().all(|s| is_study(s.0)));
}

#[test]
fn poptrie_updates_count_replacements_per_update() {
    let t = [table(&ROUTES)];
    let st = poptrie::updates(&input(&t), &mut |_| {}).unwrap();
    let rep = &st[1];
    assert_eq!(rep.rows[0][0], "REAL-Tier1-A (paper)");
    let ours = &rep.rows[1];
    // Five prefixes inserted one by one; /0, /8 and /16 are no longer than s = 18.
    assert_eq!(ours[1..4], ["full table, random order", "5", "0.600"]);
    assert_ne!(ours[4], "0.000", "every update stores at least one entry");
}

#[test]
fn sail_memory_splits_every_variant_on_and_off_chip() {
    let t = [table(&ROUTES)];
    let st = sail::memory(&input(&t), &mut |_| {}).unwrap();
    let rows: Vec<_> = st[0].rows.iter().filter(|r| r[2].starts_with("SAIL")).collect();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r[3] != "-" && r[4] != "-"), "{rows:?}");
    let b = rows.iter().find(|r| r[2] == "SAIL_B").unwrap();
    assert_eq!(b[3], kib_of(1 << 22), "B0-B24");
}

fn kib_of(bytes: u64) -> String {
    super::util::kib(bytes)
}

#[test]
fn loop_update_studies_time_every_structure_with_no_mismatch() {
    let t = [table(&ROUTES)];
    let path = std::env::temp_dir().join(format!("fibforge-fig13-{}.txt", std::process::id()));
    let stream = "1 a 10.1.2.0/24 1.1.1.1\n2 a 10.1.2.3/32 1.1.1.2\n3 w 10.1.0.0/16 0.0.0.0\n\
                  4 a 0.0.0.0/1 1.1.1.3\n5 w 10.1.2.3/32 0.0.0.0\n";
    std::fs::write(&path, stream).unwrap();
    let mut log = |_: &str| {};
    let fig13 = StudyInput { updates: Some(path.clone()), ..input(&t) };
    let st = &run("loop-fig13", &fig13, &mut log).unwrap()[0];
    std::fs::remove_file(&path).unwrap();
    let names: Vec<&str> = st.rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(names[2].starts_with("SAIL_M") && names[3].starts_with("Merged Trie"), "{names:?}");
    assert!(names[4].contains("REBUILD"), "{names:?}");
    for row in &st.rows {
        assert_eq!(row.len(), st.columns.len(), "{row:?}");
        assert_eq!(row.last().unwrap(), "0", "mismatches: {row:?}");
    }
    let st = &run("loop-fig14", &input(&t), &mut log).unwrap()[0];
    assert_eq!(st.rows.len(), 3, "n = 1 … 3 of 4 perturbed tables");
    for row in &st.rows {
        assert_eq!(row.len(), st.columns.len(), "{row:?}");
        assert!(row[5..].iter().all(|c| c.parse::<f64>().is_ok() || c == "-"), "{row:?}");
    }
}

#[test]
fn cpe_table11_reports_three_levels_and_both_memories() {
    let t = [table(&ROUTES)];
    let st = &run("cpe-table11", &input(&t), &mut |_| {}).unwrap()[0];
    let row = &st.rows[0];
    assert_eq!(row.len(), st.columns.len(), "{row:?}");
    // At (16,24,32) the first level is a full array of 2^16 4-byte entries: 256 KiB at least.
    assert!(row[2].parse::<u64>().unwrap() >= 256, "{row:?}");
    let lens: Vec<u32> = row[4].split(',').map(|l| l.parse().unwrap()).collect();
    assert_eq!(lens.len(), 3, "{row:?}");
    assert_eq!(lens.last(), Some(&25), "the longest route is a /25: {row:?}");
    assert!(row[6].parse::<f64>().unwrap() > 0.0, "{row:?}");
}

#[test]
fn the_fig7_heat_map_replaces_its_file_whole() {
    let dir = std::env::temp_dir().join(format!("fibforge-heatmap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fig7-t.png");
    std::fs::write(&file, b"an old plot").unwrap();
    let mut grid = [[0u64; 33]; 33];
    grid[8][8] = 5;
    heatmap::write(&grid, &file, "t").unwrap();
    assert!(std::fs::read(&file).unwrap().starts_with(b"\x89PNG"));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "a temporary file is left");
    std::fs::remove_dir_all(&dir).unwrap();
}
