//! Controlled prefix expansion (Srinivasan & Varghese, SIGMETRICS 1998): Table 3 (a 4-level
//! 8-bit-stride trie) and Tables 5–8 (memory of the dynamic programs' tries by level count).

use super::util::{f, kib, median_ms, random_rate};
use super::{Study, StudyInput};
use fibforge::algo::cpe::{
    CostModel, DepthProfile, FixedStrideDp, Levels, MAX_STRIDE, OneBitTrie, VarStrideDp,
};
use fibforge::algo::multibit::{LeafPushedTrie, Plan, StridePlan, UpdatableTrie};
use std::time::Duration;

/// Table 3: nodes, memory before and after leaf pushing, build times, random search time.
pub fn table3(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let mut st = Study::new(
        "cpe-table3",
        "CPE Table 3: four levels with a stride of 8 bits".into(),
        &[
            "Database",
            "Number of nodes",
            "Memory (non-leaf-pushed) [KiB]",
            "Build [ms]",
            "Leaf pushing [ms]",
            "Memory after leaf push [KiB]",
            "Random search [ns]",
        ],
    );
    let plan = Plan {
        strides: StridePlan::Fixed {
            levels: Levels::new(&[8, 16, 24, 32], 32).map_err(|e| e.to_string())?,
            strides: vec![8; 4],
        },
        levels: 4,
        predicted_bytes: 0,
        dp_time: Duration::ZERO,
    };
    for t in input.tables.iter().filter(|t| !t.v4.is_empty()) {
        log(&format!("cpe-table3: {}", t.info.name));
        let (build, trie) = median_ms(3, || UpdatableTrie::with_plan(&t.v4, &plan, false, 8));
        let stats = trie.map_err(|e| e.to_string())?.stats();
        let (push, pushed) = median_ms(3, || LeafPushedTrie::with_plan(&t.v4, &plan, false));
        let pushed = pushed.map_err(|e| e.to_string())?;
        let rate = random_rate(&pushed, input.seconds, input.seed);
        st.row(vec![
            t.info.name.clone(),
            stats.nodes.to_string(),
            kib(stats.node_bytes),
            f(build, 1),
            f(push, 1),
            kib(pushed.stats().node_bytes),
            f(1e3 / rate, 1),
        ]);
    }
    st.notes.push(
        "Build: the non-leaf-pushed (updatable) trie from the RIB; leaf pushing: the \
         leaf-pushed trie built from the RIB (this build does not push an existing trie), \
         both medians of 3. Random search: uniformly random addresses on the leaf-pushed trie, \
         one thread, 1e3 / Mlps."
            .into(),
    );
    Ok(vec![st])
}

/// Tables 5 (fixed strides), 6 (variable strides, with the program's time), 7 (variable,
/// leaf-pushed, packed nodes) and 8 (variable, non-leaf-pushed, packed nodes).
pub fn tables(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let fixed_k: Vec<u32> = (2..=12).collect();
    let var_k: Vec<u32> = (2..=7).collect();
    let cols = |ks: &[u32]| {
        let mut c = vec!["Database".to_string()];
        c.extend(ks.iter().map(|k| format!("{k} levels")));
        c
    };
    let mk = |title: &str, ks: &[u32]| {
        let mut s = Study::new("cpe-tables", title.into(), &[]);
        s.columns = cols(ks);
        s
    };
    let mut t5 = mk("CPE Table 5: fixed-stride program, memory [KiB]", &fixed_k);
    let mut t6 = mk("CPE Table 6: variable-stride program, memory [KiB] (program ms)", &var_k);
    let mut t7 = mk("CPE Table 7: variable strides, leaf-pushed, packed nodes [KiB]", &var_k);
    let mut t8 = mk("CPE Table 8: variable strides, non-leaf-pushed, packed nodes [KiB]", &var_k);
    for t in input.tables.iter().filter(|t| !t.v4.is_empty()) {
        log(&format!("cpe-tables: {}", t.info.name));
        let name = t.info.name.clone();
        let fixed = FixedStrideDp::run(&DepthProfile::of(&t.v4), 12, 4, MAX_STRIDE);
        let cell = |b: Option<u64>| b.map_or("-".into(), kib);
        t5.row(
            std::iter::once(name.clone())
                .chain(fixed_k.iter().map(|&k| cell(fixed.bytes(k))))
                .collect(),
        );
        let trie = OneBitTrie::new(&t.v4);
        let var = |model| VarStrideDp::run(&trie, 7, model, MAX_STRIDE);
        let plain = var(CostModel::leaf_pushed(false));
        t6.row(
            std::iter::once(name.clone())
                .chain(var_k.iter().map(|&k| {
                    format!(
                        "{} ({:.0})",
                        cell(plain.bytes(k)),
                        plain.elapsed(k).as_secs_f64() * 1e3
                    )
                }))
                .collect(),
        );
        for (study, model) in
            [(&mut t7, CostModel::leaf_pushed(true)), (&mut t8, CostModel::non_leaf_pushed(true))]
        {
            let dp = var(model);
            study.row(
                std::iter::once(name.clone())
                    .chain(var_k.iter().map(|&k| cell(dp.bytes(k))))
                    .collect(),
            );
        }
    }
    t5.notes.push("4-byte entries (leaf-pushed); strides up to 24 bits.".into());
    t6.notes.push(
        "4-byte entries; a non-leaf-pushed trie takes twice this (the paper's note). The time \
         is the program's cumulative time for that many levels."
            .into(),
    );
    t7.notes.push("Packed node: one 64-byte line of up to 8 segments.".into());
    t8.notes.push("8-byte entries; packed node: one 64-byte line of up to 5 segments.".into());
    Ok(vec![t5, t6, t7, t8])
}
