//! Traffic: the addresses the benchmarks look up (Poptrie §4.2, SAIL's traces "according to
//! FIBs", Bloomfwd §6.4).
//!
//! | name | addresses |
//! |---|---|
//! | `random` | uniform xorshift addresses generated right before each lookup (IPv6: in 2000::/3) |
//! | `sequential` | IPv4 0.0.0.0 upward; IPv6 the /64 networks upward from 2000:: |
//! | `repeated` | each random address 16 times |
//! | `in-prefix` | a random address inside a random route of the table (the fair IPv6 load), drawn before timing |
//! | `trace:FILE` | destinations from a pcap/pcapng capture or a text list, in order, cycled |
//! | `zipf[:s=1.0][:flows=64][:burst=8][:match=1.0]` | a generated trace: flows to table prefixes with Zipf popularity, packets in bursts, a share `1 - match` of addresses that match no route (or only the default route) |
//!
//! The first three are computed in the timing loop from a few registers. `in-prefix`
//! addresses are drawn before timing (4 MiB of them) and read in order, like traces (real or
//! generated), as the Poptrie paper does with its real trace: drawing one in the loop would
//! read a random entry of a multi-MiB route array per lookup, a cache miss that is the
//! generator's, not the lookup's.

mod generated;
mod source;
mod trace;

pub use generated::{GeneratedSpec, generate_trace};
pub use source::{AddrGen, GenUser, TrafficSource, draw_in_prefix};
pub use trace::read_trace;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// How often `repeated` traffic repeats each address.
pub const REPEAT: u32 = 16;

/// A traffic pattern, as named on the command line and in reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Traffic {
    /// Uniform random addresses (IPv6 within 2000::/3).
    Random,
    /// Consecutive addresses (IPv6: consecutive /64 networks).
    Sequential,
    /// Each random address [`REPEAT`] times.
    Repeated,
    /// A random address inside a random route.
    InPrefix,
    /// Destinations from a capture or address list.
    Trace(PathBuf),
    /// A generated trace with Zipf popularity, bursts and a matching ratio.
    Generated(GeneratedSpec),
}

/// A traffic name that cannot be parsed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("invalid traffic '{text}': {reason}")]
pub struct TrafficError {
    text: String,
    reason: String,
}

impl FromStr for Traffic {
    type Err = TrafficError;
    fn from_str(text: &str) -> Result<Self, TrafficError> {
        let err = |reason: String| TrafficError { text: text.into(), reason };
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let no_options = |t: Traffic| {
            if rest.is_empty() { Ok(t) } else { Err(err("takes no options".into())) }
        };
        match name {
            "random" => no_options(Traffic::Random),
            "sequential" => no_options(Traffic::Sequential),
            "repeated" => no_options(Traffic::Repeated),
            "in-prefix" => no_options(Traffic::InPrefix),
            "trace" if !rest.is_empty() => Ok(Traffic::Trace(PathBuf::from(rest))),
            "trace" => Err(err("needs a file: trace:FILE".into())),
            "zipf" => GeneratedSpec::parse(rest).map(Traffic::Generated).map_err(err),
            _ => Err(err(
                "known: random, sequential, repeated, in-prefix, trace:FILE, zipf[:s=..][:flows=..][:burst=..][:match=..]"
                    .into(),
            )),
        }
    }
}

impl fmt::Display for Traffic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Traffic::Random => f.write_str("random"),
            Traffic::Sequential => f.write_str("sequential"),
            Traffic::Repeated => f.write_str("repeated"),
            Traffic::InPrefix => f.write_str("in-prefix"),
            Traffic::Trace(p) => {
                let name = p.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
                write!(f, "trace:{name}")
            }
            Traffic::Generated(g) => write!(f, "{g}"),
        }
    }
}

/// Parses a comma-separated traffic list (`random,repeated,zipf:s=1.2:match=0.8`).
pub fn parse_list(list: &str) -> Result<Vec<Traffic>, TrafficError> {
    list.split(',').filter(|s| !s.trim().is_empty()).map(|s| s.trim().parse()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in [
            "random",
            "sequential",
            "repeated",
            "in-prefix",
            "zipf:s=1.2:flows=64:burst=8:match=0.8",
        ] {
            let t: Traffic = name.parse().unwrap();
            assert_eq!(t.to_string(), name);
        }
        let t: Traffic = "trace:/a/b/c.pcap".parse().unwrap();
        assert_eq!(t, Traffic::Trace("/a/b/c.pcap".into()));
        assert_eq!(t.to_string(), "trace:c.pcap");
        assert!("random:x".parse::<Traffic>().is_err());
        assert!("trace".parse::<Traffic>().is_err());
        assert!("bogus".parse::<Traffic>().is_err());
        assert!("zipf:match=2".parse::<Traffic>().is_err());
        assert_eq!(parse_list("random, repeated").unwrap().len(), 2);
    }

    #[test]
    fn zipf_defaults_print_in_full() {
        let t: Traffic = "zipf".parse().unwrap();
        assert_eq!(t.to_string(), "zipf:s=1:flows=64:burst=8:match=1");
    }
}
