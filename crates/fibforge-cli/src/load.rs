//! Loading tables for the subcommands, with a progress bar on a terminal.

use anyhow::Context;
use fibforge::ParseMode;
use fibforge_io::{DuplicatePolicy, PeerFilter, PrefixOnlyHops, ReadConfig, Table};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::net::IpAddr;
use std::path::PathBuf;

/// The algorithm used when none is named.
pub const DEFAULT_ALGO: &str = "poptrie";

/// The table file and how to read it (shared by every subcommand).
#[derive(clap::Args, Clone, Debug)]
pub struct TableArgs {
    /// Table file: text (`prefix nexthop` lines or prefixes only) or MRT; plain, gzip or bzip2.
    pub path: PathBuf,
    /// From an MRT RIB, the routes of the peer with this AS number.
    #[arg(long, conflicts_with = "peer_ip")]
    pub peer_as: Option<u32>,
    /// From an MRT RIB, the routes of the peer with this address.
    #[arg(long)]
    pub peer_ip: Option<IpAddr>,
    /// Mask host bits (and read bare addresses as host routes) instead of rejecting them.
    #[arg(long)]
    pub lenient: bool,
    /// Keep the first of several routes for one prefix (default: the last wins).
    #[arg(long)]
    pub first_wins: bool,
    /// Next hops for prefix-only files: `distinct` (each prefix its own) or a count N of
    /// synthetic hops assigned by hash (default 16).
    #[arg(long, default_value = "16", value_parser = parse_hops)]
    pub prefix_only_hops: PrefixOnlyHops,
    /// Replace every route's next hop by that of the longest route of this table file that
    /// covers its prefix ("none" where none does): realistic next hops for a prefix list.
    #[arg(long, value_name = "FILE")]
    pub hops_from: Option<PathBuf>,
}

fn parse_hops(s: &str) -> Result<PrefixOnlyHops, String> {
    if s == "distinct" {
        return Ok(PrefixOnlyHops::Distinct);
    }
    match s.parse::<u32>() {
        Ok(n) if n > 0 => Ok(PrefixOnlyHops::Synthetic(n)),
        _ => Err(format!("'{s}': expected 'distinct' or a positive count")),
    }
}

impl TableArgs {
    /// The reader configuration these arguments ask for.
    pub fn read_config(&self) -> ReadConfig {
        let peer = match (self.peer_as, self.peer_ip) {
            (Some(asn), _) => PeerFilter::As(asn),
            (None, Some(ip)) => PeerFilter::Ip(ip),
            (None, None) => PeerFilter::All,
        };
        ReadConfig {
            mode: if self.lenient { ParseMode::Lenient } else { ParseMode::Strict },
            duplicates: if self.first_wins {
                DuplicatePolicy::FirstWins
            } else {
                DuplicatePolicy::LastWins
            },
            prefix_only: self.prefix_only_hops,
            peer,
        }
    }
}

/// Reads a table file (text or MRT, compressed or not), showing progress on a terminal.
pub fn load_table(args: &TableArgs) -> anyhow::Result<Table> {
    let path = &args.path;
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = if std::io::stderr().is_terminal() && size > (4 << 20) {
        let style =
            ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {elapsed}")
                .expect("valid template")
                .progress_chars("=> ");
        ProgressBar::new(size).with_style(style).with_message(format!("reading {}", path.display()))
    } else {
        ProgressBar::hidden()
    };
    let name = path.display().to_string();
    let table = fibforge_io::read_table_from(bar.wrap_read(file), &name, &args.read_config())
        .map_err(|e| e.error)?;
    bar.finish_and_clear();
    match &args.hops_from {
        Some(source) => Ok(table.with_hops_from(&load_hop_source(source)?)),
        None => Ok(table),
    }
}

/// Reads the table whose next hops `--hops-from` projects onto another table.
pub fn load_hop_source(path: &std::path::Path) -> anyhow::Result<Table> {
    let table = fibforge_io::read_table(path, &ReadConfig::default())
        .map_err(|e| e.error)
        .with_context(|| format!("reading the --hops-from table {}", path.display()))?;
    Ok(table)
}

/// Splits a comma-separated algorithm list; a `key=value` piece without a name continues the
/// options of the algorithm before it (`poptrie:s=18,aggregate=off,dxr16` is two algorithms,
/// `loop:pmt=packed,build=incremental` one).
pub fn split_algo_list(list: &str) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    for piece in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match pieces.last_mut() {
            Some(last) if piece.contains('=') && !piece.contains(':') && last.contains(':') => {
                last.push(',');
                last.push_str(piece);
            }
            _ => pieces.push(piece.to_string()),
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::split_algo_list;

    #[test]
    fn options_after_a_comma_stay_with_their_algorithm() {
        let got = split_algo_list("loop:pmt=packed,build=incremental,sail_m,per_table:algo=dxr16");
        assert_eq!(got, ["loop:pmt=packed,build=incremental", "sail_m", "per_table:algo=dxr16"]);
        assert_eq!(
            split_algo_list("poptrie:s=18,aggregate=off,dxr16"),
            ["poptrie:s=18,aggregate=off", "dxr16"]
        );
        assert_eq!(split_algo_list("loop"), ["loop"]);
        assert!(split_algo_list(" , ").is_empty());
    }
}
