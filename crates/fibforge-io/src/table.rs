//! A loaded routing table: one RIB per family sharing one next-hop interner.

use fibforge::{AnyPrefix, Family, Interner, NextHop, ParseMode, Rib};

/// Which of several routes for the same prefix is kept.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum DuplicatePolicy {
    /// The last one read (the default; matches the reference answers).
    #[default]
    LastWins,
    /// The first one read.
    FirstWins,
}

/// Next hops for files that list prefixes only.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrefixOnlyHops {
    /// Every prefix is its own next hop (value = the prefix text): every route is
    /// distinguishable, the strictest setting for verification.
    Distinct,
    /// `n` synthetic next hops `nh0..nh{n-1}`, assigned by a hash of the prefix (FNV-1a over
    /// the prefix text, modulo `n`): deterministic, documented, like a router with `n` ports.
    Synthetic(u32),
}

impl Default for PrefixOnlyHops {
    fn default() -> Self {
        PrefixOnlyHops::Synthetic(16)
    }
}

impl PrefixOnlyHops {
    /// The value assigned to a prefix without a next hop.
    pub fn value_for(&self, prefix_text: &str) -> String {
        match *self {
            PrefixOnlyHops::Distinct => prefix_text.to_string(),
            PrefixOnlyHops::Synthetic(n) => {
                format!("nh{}", fnv1a(prefix_text.as_bytes()) % n.max(1) as u64)
            }
        }
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Which peer's routes to take from an MRT RIB dump with several peers.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum PeerFilter {
    /// Every peer; the first route read for a prefix wins (a "union" table).
    #[default]
    All,
    /// The peer with this AS number.
    As(u32),
    /// The peer with this address.
    Ip(std::net::IpAddr),
}

/// As the command line selects them: `all peers`, `peer AS 3356`, `peer 192.0.2.1`.
impl std::fmt::Display for PeerFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PeerFilter::All => f.write_str("all peers"),
            PeerFilter::As(asn) => write!(f, "peer AS {asn}"),
            PeerFilter::Ip(ip) => write!(f, "peer {ip}"),
        }
    }
}

/// What a route's value is: the text the table's [`LoadedTable::hops`] holds for it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum ValueColumn {
    /// The next hop: a text table's second column, an MRT route's BGP next hop.
    #[default]
    NextHop,
    /// The origin AS, as a decimal number: a text table's last column (of two or more,
    /// `AS` prefix allowed: `10.0.0.0/8 192.0.2.1 64500` or `10.0.0.0/8 AS64500`; an AS_SET
    /// origin `{64500,64501}` counts as its first AS; `-`, a route without AS path, keeps the value
    /// `-`), an MRT route's origin AS from AS_PATH / AS4_PATH ([`crate::mrt::MrtEntry::origin_as`]:
    /// the last AS of the last AS_SEQUENCE, the first AS of a final AS_SET; `-` without one).
    OriginAs,
}

/// How to read tables.
#[derive(Clone, Debug, Default)]
pub struct ReadConfig {
    /// Strict (default) or lenient prefix parsing.
    pub mode: ParseMode,
    /// What to do with several routes for one prefix.
    pub duplicates: DuplicatePolicy,
    /// Next hops for prefix-only lines.
    pub prefix_only: PrefixOnlyHops,
    /// Peer selection for MRT RIB dumps (text tables, which have no peers, refuse any but
    /// `All`).
    pub peer: PeerFilter,
    /// The cap on decompressed bytes (`None`: [`crate::open::default_decompression_limit`]).
    pub max_decompressed: Option<u64>,
    /// Which column or attribute is a route's value.
    pub value: ValueColumn,
    /// The family the caller will use, if only one: a text line whose first column is not
    /// an address is reported as "expected an IPv4 prefix" rather than with the other
    /// family's parse error. Both families are still read (mixed files are allowed).
    pub family: Option<Family>,
    /// The value's column by header name (CSV tables) or field path (MaxMind DB files,
    /// dot-separated: `country.iso_code`); `None`: the format's default (see
    /// [`crate::delimited`], [`crate::mmdb`]). Other formats refuse it.
    pub value_field: Option<String>,
    /// MaxMind DB values as JSON texts, strings quoted too (`"NL"`), for faces that turn
    /// them back into objects (Python's dicts); [`LoadedTable::json_values`] then says so.
    /// Other formats, and origin AS values, are unaffected.
    pub json_values: bool,
}

/// A routing table of either or both families, as read from a file (`fibforge::Table` is
/// the concurrent table that serves lookups while it changes).
#[derive(Clone, Debug)]
pub struct LoadedTable {
    /// IPv4 routes.
    pub v4: Rib<u32>,
    /// IPv6 routes.
    pub v6: Rib<u128>,
    /// Next-hop values (shared by both families).
    pub hops: Interner<String>,
    /// Routes dropped or replaced because their prefix was already present.
    pub duplicates: u64,
    /// The MRT peers whose routes were read, in order of first appearance (empty for text
    /// tables): more than one means their tables were merged.
    pub peers: Vec<crate::mrt::entry::Peer>,
    /// Lines of a text table read, blank and comment lines included (0 for MRT): with no
    /// route, see [`LoadedTable::no_routes`].
    pub lines: u64,
    /// True when the values are JSON texts ([`ReadConfig::json_values`] on a MaxMind DB).
    pub json_values: bool,
    policy: DuplicatePolicy,
}

impl LoadedTable {
    /// An empty table that will apply `cfg`'s duplicate policy.
    pub fn new(cfg: &ReadConfig) -> Self {
        LoadedTable {
            v4: Rib::new(),
            v6: Rib::new(),
            hops: Interner::new(),
            duplicates: 0,
            peers: Vec::new(),
            lines: 0,
            json_values: false,
            policy: cfg.duplicates,
        }
    }

    /// For a table without routes read from a non-empty text file (every line blank or a
    /// comment), the message the faces show, naming the file `name`: the CLI and Python
    /// warn with it, the C ABI refuses the load with it. `None` when there are routes.
    pub fn no_routes(&self, name: &str) -> Option<String> {
        (self.is_empty() && self.lines > 0)
            .then(|| format!("no routes in {name} ({} lines, all blank or comments)", self.lines))
    }

    /// Total routes of both families.
    pub fn len(&self) -> usize {
        self.v4.len() + self.v6.len()
    }

    /// True when no route was read.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds a route under the duplicate policy (counting a duplicate when the prefix exists).
    pub fn add(&mut self, prefix: AnyPrefix, hop: NextHop) {
        let previous = match prefix {
            AnyPrefix::V4(p) => add_one(&mut self.v4, p, hop, self.policy),
            AnyPrefix::V6(p) => add_one(&mut self.v6, p, hop, self.policy),
        };
        if previous {
            self.duplicates += 1;
        }
    }

    /// Sets a route, replacing any previous one without counting a duplicate (for update
    /// streams, where a new announcement implicitly replaces the old route).
    pub fn set(&mut self, prefix: AnyPrefix, hop: NextHop) {
        match prefix {
            AnyPrefix::V4(p) => self.v4.insert(p, hop),
            AnyPrefix::V6(p) => self.v6.insert(p, hop),
        };
    }

    /// Removes a route; returns its next hop if it was present.
    pub fn remove(&mut self, prefix: &AnyPrefix) -> Option<NextHop> {
        match prefix {
            AnyPrefix::V4(p) => self.v4.remove(p),
            AnyPrefix::V6(p) => self.v6.remove(p),
        }
    }

    /// The next hop of exactly this prefix.
    pub fn get(&self, prefix: &AnyPrefix) -> Option<NextHop> {
        match prefix {
            AnyPrefix::V4(p) => self.v4.get(p),
            AnyPrefix::V6(p) => self.v6.get(p),
        }
    }

    /// Releases spare capacity after a bulk load.
    pub fn shrink_to_fit(&mut self) {
        self.v4.shrink_to_fit();
        self.v6.shrink_to_fit();
    }

    /// The value behind a next-hop id.
    pub fn hop_value(&self, hop: NextHop) -> &str {
        self.hops.value(hop).map(|s| s.as_str()).unwrap_or("?")
    }

    /// The same prefixes with the next hops a real router would use for them: each route
    /// takes the value of the longest route of `source` that covers its prefix, or
    /// [`NO_COVERING_ROUTE`] when none does.
    ///
    /// Prefix-only tables (a prefix list without next hops) get realistic next hops this way:
    /// neighbouring and nested prefixes share or differ in next hop as they do in `source`'s
    /// forwarding table, which a hash assignment ([`PrefixOnlyHops::Synthetic`]) does not model.
    pub fn with_hops_from(&self, source: &LoadedTable) -> LoadedTable {
        let mut out = LoadedTable {
            v4: Rib::new(),
            v6: Rib::new(),
            hops: Interner::new(),
            duplicates: self.duplicates,
            peers: self.peers.clone(),
            lines: self.lines,
            json_values: source.json_values,
            policy: self.policy,
        };
        project(&self.v4, &source.v4, &source.hops, &mut out.hops, &mut out.v4);
        project(&self.v6, &source.v6, &source.hops, &mut out.hops, &mut out.v6);
        out
    }
}

/// The value [`LoadedTable::with_hops_from`] gives prefixes that no source route covers.
pub const NO_COVERING_ROUTE: &str = "none";

fn project<A: fibforge::Address>(
    from: &Rib<A>,
    source: &Rib<A>,
    source_hops: &Interner<String>,
    hops: &mut Interner<String>,
    into: &mut Rib<A>,
) {
    for (prefix, _) in from.iter() {
        let value = source
            .longest_covering(&prefix)
            .and_then(|(_, hop)| source_hops.value(hop))
            .map_or(NO_COVERING_ROUTE, |v| v.as_str());
        // The projected table never has more values than `source` has plus one.
        let hop = hops.intern_ref(value).expect("at most the source's next hops plus one");
        into.insert(prefix, hop);
    }
}

fn add_one<A: fibforge::Address>(
    rib: &mut Rib<A>,
    p: fibforge::Prefix<A>,
    hop: NextHop,
    policy: DuplicatePolicy,
) -> bool {
    match policy {
        DuplicatePolicy::LastWins => rib.insert(p, hop).is_some(),
        DuplicatePolicy::FirstWins => {
            if rib.get(&p).is_some() {
                true
            } else {
                rib.insert(p, hop);
                false
            }
        }
    }
}
