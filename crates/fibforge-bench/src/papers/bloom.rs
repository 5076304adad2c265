//! Bloomfwd (Lucchesi et al. 2018) Table 3: IPv4 prefixes by length group, before and after
//! the expansion to the /20 direct table, /24 keys and /32 keys.

use super::{Study, StudyInput};
use fibforge::algo::bloom::{expanded_count, group_rib};

/// Table 3 of every IPv4 table.
pub fn table3(input: &StudyInput) -> Result<Vec<Study>, String> {
    let mut st = Study::new(
        "bloomfwd-table3",
        "Bloomfwd Table 3: IPv4 prefixes before and after CPE".into(),
        &["Dataset", "≤20", "21-24", "25-32", "after: ≤20", "after: 21-24", "after: 25-32"],
    );
    for t in input.tables.iter().filter(|t| !t.v4.is_empty()) {
        let count =
            |lo: u32, hi: u32| t.v4.iter().filter(move |(p, _)| p.len() > lo && p.len() <= hi);
        let short = count(0, 20).count() + usize::from(t.v4.iter().any(|(p, _)| p.len() == 0));
        st.row(vec![
            t.info.name.clone(),
            short.to_string(),
            count(20, 24).count().to_string(),
            count(24, 32).count().to_string(),
            if short > 0 { (1u64 << 20).to_string() } else { "0".into() },
            expanded_count(&group_rib(&t.v4, 20, 24), 24).to_string(),
            expanded_count(&group_rib(&t.v4, 24, 32), 32).to_string(),
        ]);
    }
    st.notes.push(
        "After CPE: routes up to /20 fill a direct table of 2^20 entries; /21-/24 expand to /24 \
         keys and /25-/32 to /32 keys, with prefix capture (a longer route keeps its keys)."
            .into(),
    );
    Ok(vec![st])
}
