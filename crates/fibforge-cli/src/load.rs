//! Loading tables for the subcommands, with a progress bar on a terminal.

use anyhow::Context;
use fibforge::registry::{self, AlgoSpec};
use fibforge::{Address, Family, Interner, ParseMode, Rib};
use fibforge_io::{
    DuplicatePolicy, LoadedTable, PeerFilter, PrefixOnlyHops, ReadConfig, ValueColumn,
};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::net::IpAddr;
use std::path::PathBuf;

/// The algorithm used when none is named.
pub const DEFAULT_ALGO: &str = registry::DEFAULT;

/// The table file and how to read it (shared by every subcommand).
#[derive(clap::Args, Clone, Debug)]
pub struct TableArgs {
    /// Table file: text (`prefix nexthop` lines or prefixes only), CSV (networks or
    /// `start,end` ranges, with or without a header), MaxMind DB (`.mmdb`) or MRT; plain,
    /// gzip or bzip2.
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
    /// The most bytes a compressed table may decompress to (K, M, G, T suffixes; default
    /// 16G, or the FIBFORGE_MAX_DECOMPRESSED environment variable): a guard against
    /// decompression bombs.
    #[arg(long, value_name = "BYTES", value_parser = fibforge_io::open::parse_size)]
    pub max_decompressed: Option<u64>,
    /// What a route's value is: `next_hop` (a text table's second column, an MRT route's
    /// next hop) or `origin_as` (a text table's last column, `AS` prefix allowed; an MRT
    /// route's last AS of its AS_PATH).
    #[arg(long, value_enum, default_value_t = ValueArg::NextHop)]
    pub value: ValueArg,
    /// The value's column by header name (CSV) or field path (MaxMind DB, dot-separated:
    /// `country.iso_code`); default: a CSV table's first column after the network or range,
    /// a MaxMind DB's whole record.
    #[arg(long, value_name = "NAME")]
    pub value_field: Option<String>,
    /// The family the command will use, when it knows one before loading (`--family`):
    /// named in the error for a line that is not a prefix. Not an option of its own.
    #[arg(skip)]
    pub family: Option<Family>,
}

/// `--value`: which column or attribute is a route's value ([`ValueColumn`]).
#[derive(clap::ValueEnum, Copy, Clone, Debug, PartialEq, Eq)]
#[value(rename_all = "snake_case")]
pub enum ValueArg {
    /// The next hop.
    NextHop,
    /// The origin AS.
    OriginAs,
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
            max_decompressed: self.max_decompressed,
            value: match self.value {
                ValueArg::NextHop => ValueColumn::NextHop,
                ValueArg::OriginAs => ValueColumn::OriginAs,
            },
            family: self.family,
            value_field: self.value_field.clone(),
            json_values: false,
        }
    }
}

/// Reads a table file (text or MRT, compressed or not), showing progress on a terminal.
pub fn load_table(args: &TableArgs) -> anyhow::Result<LoadedTable> {
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
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        anyhow::bail!("{}: is a directory, not a table file", path.display());
    }
    let table = fibforge_io::read_table_from(bar.wrap_read(file), &name, &args.read_config())
        .map_err(|e| with_hint(e, args.lenient))?;
    bar.finish_and_clear();
    if let Some(note) = table.no_routes(&name) {
        warn(&note);
    }
    match &args.hops_from {
        Some(source) => Ok(table.with_hops_from(&load_hop_source(source)?)),
        None => Ok(table),
    }
}

/// The reader's error, with the option that helps where there is one. A file whose first
/// route is a bare address is an address list given as the table: the arguments are
/// likely swapped (and `--lenient` would load the addresses as host routes).
fn with_hint(e: fibforge_io::LoadError, lenient: bool) -> anyhow::Error {
    let text = e.error.to_string();
    let bare = text.contains("missing prefix length");
    if bare && !lenient && e.partial.v4.is_empty() && e.partial.v6.is_empty() {
        anyhow::anyhow!(
            "{text}: this file looks like an address list, not a routing table; are the table \
             and the address list swapped? The table comes first: `fibforge lookup TABLE \
             ADDRESS...` or `fibforge lookup TABLE --file LIST` (--lenient would read the \
             addresses as host routes)"
        )
    } else if (bare || text.contains("host bits set")) && !lenient {
        anyhow::anyhow!(
            "{text} (--lenient masks host bits and reads bare addresses as host routes)"
        )
    } else {
        e.error.into()
    }
}

/// Prints a warning on stderr (`warning: ...`, coloured on a terminal).
pub fn warn(message: &str) {
    use owo_colors::OwoColorize;
    crate::out::diag!("{} {message}", "warning:".yellow().bold());
}

/// Checks an algorithm spec before any work: a registered name (else the error lists them)
/// and options its builder accepts (tried on a one-route table of each family it supports).
pub fn check_algo(spec: &AlgoSpec) -> anyhow::Result<()> {
    let info = registry::check(spec).with_context(|| format!("--algo {spec}"))?;
    let hop = fibforge::NextHop::from_index(0);
    if info.supports(fibforge::Family::Ipv4) {
        let rib: Rib<u32> = [(fibforge::Prefix4::DEFAULT_ROUTE, hop)].into_iter().collect();
        registry::build(spec, &rib).with_context(|| format!("--algo {spec}"))?;
    }
    if info.supports(fibforge::Family::Ipv6) {
        let rib: Rib<u128> = [(fibforge::Prefix6::DEFAULT_ROUTE, hop)].into_iter().collect();
        registry::build(spec, &rib).with_context(|| format!("--algo {spec}"))?;
    }
    Ok(())
}

/// Reads the table whose next hops `--hops-from` projects onto another table.
pub fn load_hop_source(path: &std::path::Path) -> anyhow::Result<LoadedTable> {
    let table = fibforge_io::read_table(path, &ReadConfig::default())
        .map_err(|e| e.error)
        .with_context(|| format!("reading the --hops-from table {}", path.display()))?;
    Ok(table)
}

/// The table files of a directory, sorted by name (hidden files skipped).
pub fn table_files(dir: &std::path::Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    anyhow::ensure!(!files.is_empty(), "{} holds no table files", dir.display());
    Ok(files)
}

/// Re-expresses a table's next hops in the set-wide interner, so equal values share ids.
pub fn remap<A: Address>(
    rib: &Rib<A>,
    t: &fibforge_io::LoadedTable,
    hops: &mut Interner<String>,
) -> anyhow::Result<Rib<A>> {
    let mut out = Rib::with_capacity(rib.len());
    for (p, h) in rib.iter() {
        out.insert(p, hops.intern_ref(t.hop_value(h))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::check_algo;
    use fibforge::registry::{ALGORITHMS, AlgoSpec};

    #[test]
    fn every_registered_algorithm_passes_the_check_and_bad_options_do_not() {
        for a in ALGORITHMS {
            check_algo(&AlgoSpec::named(a.name)).unwrap_or_else(|e| panic!("{}: {e:#}", a.name));
        }
        for bad in ["nosuch", "poptrie:s=99", "poptrie:s=-1", "poptrie:zzz=1", "radix:x=1"] {
            assert!(check_algo(&bad.parse().unwrap()).is_err(), "{bad}");
        }
    }
}
