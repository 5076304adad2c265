//! What the MRT reader yields: one route, announcement or withdrawal per item.

use fibforge::AnyPrefix;
use std::net::IpAddr;

/// A BGP peer of the collector that wrote the dump.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Peer {
    /// The peer's address.
    pub ip: IpAddr,
    /// The peer's AS number.
    pub asn: u32,
}

/// Where an entry comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A route of a RIB dump (TABLE_DUMP, TABLE_DUMP_V2).
    Rib,
    /// A prefix announced by an UPDATE message (BGP4MP, BGP4MP_ET, legacy BGP).
    Announce,
    /// A prefix withdrawn by an UPDATE message.
    Withdraw,
}

/// The subsequent address family of a route (RFC 4760): which forwarding table it is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Safi {
    /// Unicast forwarding (SAFI 1; TABLE_DUMP and the classic NLRI fields are unicast).
    Unicast,
    /// Multicast RPF (SAFI 2): not part of a unicast routing table.
    Multicast,
}

/// One prefix of one record.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MrtEntry {
    /// Record time in microseconds since the Unix epoch (the MRT header's seconds, plus the
    /// microsecond field of `_ET` records).
    pub time_us: u64,
    /// RIB route, announcement or withdrawal.
    pub kind: EntryKind,
    /// Unicast or multicast.
    pub safi: Safi,
    /// The prefix (canonical: trailing bits of the wire form are masked).
    pub prefix: AnyPrefix,
    /// The route's BGP next hop: NEXT_HOP for IPv4 NLRI, the (global) MP_REACH_NLRI next hop
    /// otherwise. `None` for withdrawals and for routes that carry no next hop.
    pub next_hop: Option<IpAddr>,
    /// The peer the route was learnt from.
    pub peer: Peer,
    /// The ADD-PATH path identifier (RFC 7911), when the record type carries one.
    pub path_id: Option<u32>,
    /// The origin AS from AS_PATH / AS4_PATH: the last AS of the last AS_SEQUENCE, or the
    /// first AS of a final AS_SET (the rule in full: the `as_path` module's docs). `None` for
    /// withdrawals and for routes without one (empty AS_PATH: routes the peer originates over
    /// iBGP).
    pub origin_as: Option<u32>,
}

impl MrtEntry {
    /// The record time in seconds.
    pub fn time_secs(&self) -> f64 {
        self.time_us as f64 / 1e6
    }
}

/// Collects the entries of one record, all stamped with its time and peer.
pub(crate) struct Emitter<'a> {
    pub time_us: u64,
    pub peer: Peer,
    pub out: &'a mut Vec<MrtEntry>,
}

impl Emitter<'_> {
    pub fn push(
        &mut self,
        kind: EntryKind,
        safi: Safi,
        prefix: AnyPrefix,
        next_hop: Option<IpAddr>,
        path_id: Option<u32>,
        origin_as: Option<u32>,
    ) {
        let (time_us, peer) = (self.time_us, self.peer);
        self.out.push(MrtEntry { time_us, kind, safi, prefix, next_hop, peer, path_id, origin_as });
    }
}
