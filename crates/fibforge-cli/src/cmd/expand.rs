//! `fibforge expand TABLE --levels K [--variable] [--max-stride S] [--table]`: the strides the
//! controlled-prefix-expansion dynamic programs choose and the memory they predict.
//!
//! Without `--table`: the best fixed-stride (or, with `--variable`, variable-stride) trie of at
//! most K levels, its strides and bytes for leaf-pushed (4-byte entries) and non-leaf-pushed
//! (8-byte entries) layouts. With `--table`: memory (KiB) for 2..12 levels of every variant,
//! the layout of the paper's Tables 5–8, with the programs' running times.

use crate::load::{TableArgs, load_table};
use fibforge::algo::cpe::{
    CostModel, DepthProfile, FixedStrideDp, MAX_STRIDE, OneBitTrie, VarStrideDp,
};
use fibforge::{Address, Rib};
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: TableArgs,
    /// Most trie levels.
    #[arg(long, default_value_t = 4)]
    levels: u32,
    /// Variable strides (one per node) instead of one stride per level.
    #[arg(long)]
    variable: bool,
    /// Largest stride in bits (bounds a node rebuild on update to 2^S entries).
    #[arg(long, default_value_t = MAX_STRIDE)]
    max_stride: u32,
    /// With --variable: allow packed-array nodes (one cache line for sparse nodes).
    #[arg(long)]
    packed: bool,
    /// Print memory-by-levels tables for 2..12 levels (Tables 5-8 of the paper).
    #[arg(long = "table")]
    by_levels: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.max_stride == 0 || args.max_stride > MAX_STRIDE {
        anyhow::bail!("--max-stride must be in 1..={MAX_STRIDE}");
    }
    if args.levels == 0 {
        anyhow::bail!("--levels must be at least 1");
    }
    let t = load_table(&args.input)?;
    let mut out = crate::out::stdout();
    if !t.v4.is_empty() {
        report(&t.v4, &args, &mut out)?;
    }
    if !t.v6.is_empty() {
        report(&t.v6, &args, &mut out)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn report<A: Address>(rib: &Rib<A>, args: &Args, out: &mut impl Write) -> io::Result<()> {
    let started = Instant::now();
    let trie = OneBitTrie::new(rib);
    let trie_ms = ms(started);
    writeln!(
        out,
        "{}: {} routes; 1-bit trie of {} nodes built in {trie_ms:.1} ms; max stride {}",
        A::FAMILY,
        rib.len(),
        trie.len(),
        args.max_stride
    )?;
    if args.by_levels {
        print_table(rib, &trie, args, out)
    } else if args.variable {
        print_variable(&trie, args, out)
    } else {
        print_fixed(rib, args, out)
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn kib(bytes: Option<u64>) -> String {
    bytes.map_or("-".into(), |b| format!("{:.0}", b as f64 / 1024.0))
}

fn print_fixed<A: Address>(rib: &Rib<A>, args: &Args, out: &mut impl Write) -> io::Result<()> {
    let prof = DepthProfile::of(rib);
    let lp = FixedStrideDp::run(&prof, args.levels, 4, args.max_stride);
    let nlp = FixedStrideDp::run(&prof, args.levels, 8, args.max_stride);
    let Some(levels) = lp.levels(args.levels) else {
        return writeln!(
            out,
            "  fixed stride: no trie of {} levels reaches /{}",
            args.levels, prof.depth
        );
    };
    let strides: Vec<String> = levels.strides().iter().map(u32::to_string).collect();
    writeln!(
        out,
        "  fixed stride, at most {} levels: strides {} (level ends {levels}); DP {:.3} ms",
        args.levels,
        strides.join("/"),
        lp.elapsed().as_secs_f64() * 1e3
    )?;
    writeln!(
        out,
        "  leaf-pushed {} bytes ({} KiB); non-leaf-pushed {} bytes ({} KiB)",
        lp.bytes(args.levels).unwrap_or(0),
        kib(lp.bytes(args.levels)),
        nlp.bytes(args.levels).unwrap_or(0),
        kib(nlp.bytes(args.levels))
    )
}

fn print_variable<A: Address>(
    trie: &OneBitTrie<A>,
    args: &Args,
    out: &mut impl Write,
) -> io::Result<()> {
    for (name, model) in [
        ("leaf-pushed", CostModel::leaf_pushed(args.packed)),
        ("non-leaf-pushed", CostModel::non_leaf_pushed(args.packed)),
    ] {
        let dp = VarStrideDp::run(trie, args.levels, model, args.max_stride);
        let secs = dp.elapsed(args.levels).as_secs_f64();
        let Ok(plan) = dp.plan(trie, args.levels) else {
            writeln!(out, "  {name}: no trie of {} levels covers the table", args.levels)?;
            continue;
        };
        writeln!(
            out,
            "  variable stride, {name}{}, at most {} levels: {} bytes ({} KiB), {} nodes; DP {:.1} ms",
            if args.packed { ", packed nodes" } else { "" },
            args.levels,
            plan.bytes(),
            kib(Some(plan.bytes())),
            plan.nodes(),
            secs * 1e3
        )?;
        for (level, strides) in plan.strides_by_level().iter().enumerate() {
            let list: Vec<String> = strides.iter().map(|(s, n)| format!("{s}:{n}")).collect();
            writeln!(out, "    level {}: stride:nodes {}", level + 1, list.join(" "))?;
        }
    }
    Ok(())
}

fn print_table<A: Address>(
    rib: &Rib<A>,
    trie: &OneBitTrie<A>,
    args: &Args,
    out: &mut impl Write,
) -> io::Result<()> {
    const MAX_LEVELS: u32 = 12;
    let prof = DepthProfile::of(rib);
    let fixed_lp = FixedStrideDp::run(&prof, MAX_LEVELS, 4, args.max_stride);
    let fixed_nlp = FixedStrideDp::run(&prof, MAX_LEVELS, 8, args.max_stride);
    let models = [
        CostModel::leaf_pushed(false),
        CostModel::non_leaf_pushed(false),
        CostModel::leaf_pushed(true),
        CostModel::non_leaf_pushed(true),
    ];
    let var: Vec<VarStrideDp<A>> =
        models.iter().map(|&m| VarStrideDp::run(trie, MAX_LEVELS, m, args.max_stride)).collect();
    writeln!(
        out,
        "  memory in KiB (1024 bytes); fixed DP {:.3} ms for all level counts; var DP ms = time for that many levels",
        fixed_lp.elapsed().as_secs_f64() * 1e3
    )?;
    writeln!(
        out,
        "  {:>6} {:>10} {:>10} | {:>10} {:>10} {:>9} | {:>10} {:>10} | {:>9} {:>9}",
        "levels",
        "fixed LP",
        "fixed NLP",
        "var LP",
        "var NLP",
        "var ms",
        "var LP pk",
        "var NLP pk",
        "LP pk ms",
        "NLP pk ms"
    )?;
    for k in 2..=MAX_LEVELS {
        let t = |dp: &VarStrideDp<A>| format!("{:.1}", dp.elapsed(k).as_secs_f64() * 1e3);
        writeln!(
            out,
            "  {k:>6} {:>10} {:>10} | {:>10} {:>10} {:>9} | {:>10} {:>10} | {:>9} {:>9}",
            kib(fixed_lp.bytes(k)),
            kib(fixed_nlp.bytes(k)),
            kib(var[0].bytes(k)),
            kib(var[1].bytes(k)),
            t(&var[0]),
            kib(var[2].bytes(k)),
            kib(var[3].bytes(k)),
            t(&var[2]),
            t(&var[3]),
        )?;
    }
    for k in 2..=MAX_LEVELS {
        if let Some(l) = fixed_lp.levels(k) {
            let s: Vec<String> = l.strides().iter().map(u32::to_string).collect();
            writeln!(out, "  fixed {k:>2} levels: strides {}", s.join("/"))?;
        }
    }
    Ok(())
}
