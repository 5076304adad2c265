//! An MRT file as one routing table (prefix → BGP next hop), for one peer or all of them.
//!
//! - **RIB dumps** (TABLE_DUMP, TABLE_DUMP_V2): with [`PeerFilter::All`] the first route read
//!   for a prefix wins (a union of the peers' tables; the others count as duplicates); for one
//!   peer, [`ReadConfig::duplicates`] decides between that peer's ADD-PATH routes.
//! - **Update streams** (BGP4MP, BGP4MP_ET, legacy BGP): announcements and withdrawals are
//!   applied in order and the final state is the table. With [`PeerFilter::All`] each peer is
//!   replayed on its own, then the peers' final tables are merged in order of first
//!   appearance (a prefix keeps the route of the first peer that still has it), so one peer's
//!   withdrawal never removes another peer's route.
//!
//! Multicast (SAFI 2) routes are left out: they are not for unicast forwarding.
//!
//! The next-hop value of a route is the text of its BGP next hop; a route that carries none
//! (some TABLE_DUMP_V2 IPv6 entries have no MP_REACH_NLRI) takes the peer's address, the
//! next hop an eBGP session implies. With [`ValueColumn::OriginAs`] the value is instead the
//! route's origin AS in decimal ([`MrtEntry::origin_as`]), or `-` for a route without one, as
//! in text tables.

use super::{EntryKind, MrtEntry, MrtReader, Peer, Safi};
use crate::error::{LoadError, ReadError};
use crate::table::{DuplicatePolicy, LoadedTable, PeerFilter, ReadConfig, ValueColumn};
use fibforge::{AnyPrefix, NextHop, Rib};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Read;
use std::net::IpAddr;

/// Reads an MRT stream (decompressed) into a table under `cfg.peer`; `name` is for errors.
///
/// A stream of records none of which carries a unicast route (only state changes, KEEPALIVEs,
/// OSPF or multicast records) is an error rather than an empty table: it is not a routing
/// table, and an empty table loaded silently would hide that.
pub fn read_mrt_table<R: Read>(
    input: R,
    name: &str,
    cfg: &ReadConfig,
) -> Result<LoadedTable, LoadError> {
    let mut builder = TableBuilder::new(cfg);
    let mut reader = MrtReader::new(input, name);
    for item in &mut reader {
        let applied = item.and_then(|entry| builder.apply(&entry, name));
        if let Err(error) = applied {
            return Err(LoadError::new(error, builder.finish()));
        }
    }
    builder.check_peer_found(name)?;
    let stats = reader.stats();
    if builder.unicast == 0 && stats.records > 0 {
        let reason = format!(
            "no unicast route in its {} MRT records ({} of them of types or subtypes that carry \
             none: state changes, KEEPALIVEs, OSPF, multicast, ...): not a routing table",
            stats.records, stats.skipped_records
        );
        let error = ReadError::Content { source_name: name.to_string(), reason };
        return Err(LoadError::new(error, builder.finish()));
    }
    Ok(builder.finish())
}

/// What a route's value is made of, before it is formatted.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
enum ValueKey {
    Hop(IpAddr),
    Origin(Option<u32>),
}

impl ValueKey {
    fn text(self) -> String {
        match self {
            ValueKey::Hop(ip) => ip.to_string(),
            ValueKey::Origin(Some(asn)) => asn.to_string(),
            ValueKey::Origin(None) => "-".to_string(),
        }
    }
}

struct TableBuilder {
    table: LoadedTable,
    filter: PeerFilter,
    value: ValueColumn,
    /// Value ids by key, so that each value is formatted and interned once.
    hop_ids: HashMap<ValueKey, NextHop>,
    replay: PeerReplay,
    matched: u64,
    /// Unicast entries read, of any peer.
    unicast: u64,
    /// Peers seen that the filter did not select (for the error when none matched).
    others: BTreeSet<Peer>,
    /// Selected peers seen (listed in order in `table.peers`).
    seen: HashSet<Peer>,
}

impl TableBuilder {
    fn new(cfg: &ReadConfig) -> Self {
        let mut table_cfg = cfg.clone();
        if cfg.peer == PeerFilter::All {
            table_cfg.duplicates = DuplicatePolicy::FirstWins;
        }
        TableBuilder {
            table: LoadedTable::new(&table_cfg),
            filter: cfg.peer,
            value: cfg.value,
            hop_ids: HashMap::new(),
            replay: PeerReplay::default(),
            matched: 0,
            unicast: 0,
            others: BTreeSet::new(),
            seen: HashSet::new(),
        }
    }

    fn selects(&self, peer: &Peer) -> bool {
        match self.filter {
            PeerFilter::All => true,
            PeerFilter::As(asn) => peer.asn == asn,
            PeerFilter::Ip(ip) => peer.ip == ip,
        }
    }

    fn apply(&mut self, e: &MrtEntry, name: &str) -> Result<(), ReadError> {
        if e.safi != Safi::Unicast {
            return Ok(());
        }
        self.unicast += 1;
        if !self.selects(&e.peer) {
            self.others.insert(e.peer);
            return Ok(());
        }
        self.matched += 1;
        if self.seen.insert(e.peer) {
            self.table.peers.push(e.peer);
        }
        let all = self.filter == PeerFilter::All;
        match e.kind {
            EntryKind::Rib => {
                let hop = self.hop_id(e, name)?;
                self.table.add(e.prefix, hop);
            }
            EntryKind::Announce => {
                let hop = self.hop_id(e, name)?;
                if all {
                    self.replay.announce(e.peer, e.prefix, hop)
                } else {
                    self.table.set(e.prefix, hop)
                }
            }
            EntryKind::Withdraw if all => self.replay.withdraw(e.peer, &e.prefix),
            EntryKind::Withdraw => {
                self.table.remove(&e.prefix);
            }
        }
        Ok(())
    }

    fn hop_id(&mut self, e: &MrtEntry, name: &str) -> Result<NextHop, ReadError> {
        let key = match self.value {
            ValueColumn::NextHop => ValueKey::Hop(e.next_hop.unwrap_or(e.peer.ip)),
            ValueColumn::OriginAs => ValueKey::Origin(e.origin_as),
        };
        if let Some(&id) = self.hop_ids.get(&key) {
            return Ok(id);
        }
        let id = self.table.hops.intern(key.text()).map_err(|err| ReadError::Content {
            source_name: name.to_string(),
            reason: err.to_string(),
        })?;
        self.hop_ids.insert(key, id);
        Ok(id)
    }

    /// A peer filter that matched nothing in a file with routes is a user mistake.
    fn check_peer_found(&mut self, name: &str) -> Result<(), LoadError> {
        if self.matched > 0 || self.others.is_empty() {
            return Ok(());
        }
        let listed: Vec<String> =
            self.others.iter().take(20).map(|p| format!("AS{} {}", p.asn, p.ip)).collect();
        let more = if self.others.len() > 20 { ", ..." } else { "" };
        let reason = format!(
            "no route from the selected peer ({}); the file's peers are: {}{more}",
            self.filter,
            listed.join(", ")
        );
        let error = ReadError::Content { source_name: name.to_string(), reason };
        let empty = LoadedTable::new(&ReadConfig::default());
        Err(LoadError::new(error, empty))
    }

    fn finish(self) -> LoadedTable {
        let mut table = self.table;
        self.replay.merge_into(&mut table);
        table.shrink_to_fit();
        table
    }
}

/// Each peer's table while its updates are replayed.
#[derive(Default)]
struct PeerReplay {
    index: HashMap<Peer, usize>,
    tables: Vec<(Rib<u32>, Rib<u128>)>,
}

impl PeerReplay {
    fn tables_of(&mut self, peer: Peer) -> &mut (Rib<u32>, Rib<u128>) {
        let next = self.tables.len();
        let i = *self.index.entry(peer).or_insert(next);
        if i == next {
            self.tables.push((Rib::new(), Rib::new()));
        }
        &mut self.tables[i]
    }

    fn announce(&mut self, peer: Peer, prefix: AnyPrefix, hop: NextHop) {
        let (v4, v6) = self.tables_of(peer);
        match prefix {
            AnyPrefix::V4(p) => v4.insert(p, hop),
            AnyPrefix::V6(p) => v6.insert(p, hop),
        };
    }

    fn withdraw(&mut self, peer: Peer, prefix: &AnyPrefix) {
        let (v4, v6) = self.tables_of(peer);
        match prefix {
            AnyPrefix::V4(p) => v4.remove(p),
            AnyPrefix::V6(p) => v6.remove(p),
        };
    }

    /// Adds each peer's final routes whose prefix the table does not have yet.
    fn merge_into(mut self, table: &mut LoadedTable) {
        if self.tables.len() == 1 && table.is_empty() {
            let (v4, v6) = self.tables.pop().unwrap_or_default();
            (table.v4, table.v6) = (v4, v6);
            return;
        }
        for (v4, v6) in &self.tables {
            let routes = v4.iter().map(|(p, h)| (AnyPrefix::V4(p), h));
            for (prefix, hop) in routes.chain(v6.iter().map(|(p, h)| (AnyPrefix::V6(p), h))) {
                if table.get(&prefix).is_some() {
                    table.duplicates += 1;
                } else {
                    table.set(prefix, hop);
                }
            }
        }
    }
}
