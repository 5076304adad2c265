//! SAIL (Yang et al., SIGCOMM 2014): on-chip (bitmap) bytes apart from off-chip bytes, and
//! update speed of the updatable variants on a real update stream.

use super::util::{f, kib, percentile};
use super::{Study, StudyInput};
use crate::replay::load_updates;
use fibforge::algo::sail;
use fibforge::algo::sail::{SailB, SailL, SailU};
use fibforge::registry::{self, AlgoSpec};
use fibforge::{Compile, Incremental, Lookup, Prefix, Rib};
use std::time::Instant;

/// The structures the SAIL paper compares with, as registry names (those built here).
const COMPARATORS: [&str; 4] = ["lctrie", "lulea", "treebitmap4", "treebitmap6"];

/// Memory split and, with an update stream, update times of SAIL_B and SAIL_U.
pub fn memory(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let cfg = sail::Config::default();
    let mut mem = Study::new(
        "sail-memory",
        "SAIL memory: on-chip (bitmaps) and off-chip bytes".into(),
        &["LoadedTable", "Routes", "Variant", "On-chip [KiB]", "Off-chip [KiB]", "Total [KiB]"],
    );
    let mut upd = Study::new(
        "sail-memory",
        "SAIL update speed (RIB and structure per update)".into(),
        &["LoadedTable", "Variant", "Updates", "Mean [µs]", "p99 [µs]", "Updates/s [M]"],
    );
    for t in input.tables.iter().filter(|t| !t.v4.is_empty()) {
        log(&format!("sail-memory: {}", t.info.name));
        let (name, n) = (&t.info.name, t.v4.len().to_string());
        let u = SailU::compile(&t.v4, &cfg).map_err(|e| e.to_string())?;
        let on: usize = u.bitmaps().iter().map(|b| std::mem::size_of_val(*b)).sum();
        let total = u.memory_bytes();
        let off = total - on;
        let row = |v: &str, on: String, off: String, total: usize| {
            vec![name.clone(), n.clone(), v.into(), on, off, kib(total as u64)]
        };
        mem.row(row("SAIL_U", kib(on as u64), kib(off as u64), total));
        let l = SailL::<u32>::compile(&t.v4, &cfg).map_err(|e| e.to_string())?;
        let (on, total) = (l.on_chip_bytes(), l.memory_bytes());
        mem.row(row("SAIL_L", kib(on as u64), kib((total - on) as u64), total));
        let b = SailB::compile(&t.v4, &cfg).map_err(|e| e.to_string())?;
        let (on, total) = (b.on_chip_bytes(), b.memory_bytes());
        mem.row(row("SAIL_B", kib(on as u64), kib((total - on) as u64), total));
        for name in COMPARATORS {
            let spec = AlgoSpec::named(name);
            if registry::info(name).is_none() {
                continue;
            }
            let fib = registry::build(&spec, &t.v4).map_err(|e| format!("{name}: {e}"))?;
            mem.row(row(name, "-".into(), "-".into(), fib.memory_bytes()));
        }
        if let Some(path) = &input.updates {
            let mut hops = fibforge_io::LoadedTable::new(&Default::default());
            let ups = load_updates(path, &mut hops).map_err(|e| e.to_string())?;
            log(&format!("sail-memory: {} updates into SAIL_U and SAIL_B", ups.v4.len()));
            upd.row(replay_row::<SailU>(name, "SAIL_U", &t.v4, &ups.v4, &cfg)?);
            upd.row(replay_row::<SailB>(name, "SAIL_B", &t.v4, &ups.v4, &cfg)?);
        }
    }
    mem.notes.push(
        "On-chip, as the paper counts it: SAIL_U's four bitmaps (levels 6, 12, 18, 24; \
         paper ≤ 2.03 MB); SAIL_B's bitmaps B0–B24 (paper = 4 MB); SAIL_L's level-16 array \
         BCN16 (paper ≤ 2.13 MB, which adds a 2 MiB bitmap B24 that this layout folds into \
         the chunk flag of its off-chip level-24 words). Off-chip: the rest (next-hop \
         arrays, chunks). The comparators the SAIL paper measures against (LC-trie, Lulea, \
         Tree Bitmap) are software structures with no on-chip part: total only."
            .into(),
    );
    upd.notes.push(
        "Each update goes to the RIB, then to the structure through `apply_changes` with the \
         one changed prefix; the time covers both. Updates/s = 1 / mean."
            .into(),
    );
    Ok(if upd.rows.is_empty() { vec![mem] } else { vec![mem, upd] })
}

fn replay_row<F: Incremental<u32, Config = sail::Config>>(
    table: &str,
    variant: &str,
    base: &Rib<u32>,
    ups: &[(Prefix<u32>, Option<fibforge::NextHop>)],
    cfg: &sail::Config,
) -> Result<Vec<String>, String> {
    let mut rib = base.clone();
    let mut fib = F::compile(&rib, cfg).map_err(|e| e.to_string())?;
    let mut ns = Vec::with_capacity(ups.len());
    for &(p, hop) in ups {
        let t0 = Instant::now();
        match hop {
            Some(h) => rib.insert(p, h),
            None => rib.remove(&p),
        };
        fib.apply_changes(&rib, &[p]).map_err(|e| format!("{variant}: {e}"))?;
        ns.push(t0.elapsed().as_nanos() as f64);
    }
    let mean = ns.iter().sum::<f64>() / ns.len().max(1) as f64;
    Ok(vec![
        table.into(),
        variant.into(),
        ns.len().to_string(),
        f(mean / 1e3, 2),
        f(percentile(&mut ns, 0.99) / 1e3, 2),
        f(1e3 / mean, 2),
    ])
}
