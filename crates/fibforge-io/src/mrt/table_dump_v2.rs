//! TABLE_DUMP_V2 (type 13, RFC 6396 §4.3; ADD-PATH subtypes from RFC 8050).
//!
//! A PEER_INDEX_TABLE record (subtype 1) lists the collector's peers; each RIB record names
//! one prefix and holds one entry per peer (by index into that table): peer index (2),
//! originated time (4), path identifier (4, ADD-PATH subtypes only), attribute length (2),
//! attributes. Read subtypes: RIB_IPV4_UNICAST/MULTICAST (2, 3), RIB_IPV6_UNICAST/MULTICAST
//! (4, 5) and their ADD-PATH forms (8–11); RIB_GENERIC (6, 12) records are skipped.

use super::attributes::{AttrContext, read_attributes};
use super::bgp4mp::Outcome;
use super::cursor::{Afi, Cursor, Decoded, Malformed};
use super::entry::{Emitter, EntryKind, MrtEntry, Peer, Safi};
use super::nlri::read_prefix;

const PEER_INDEX_TABLE: u16 = 1;
const PEER_TYPE_IPV6: u8 = 0x01;
const PEER_TYPE_AS4: u8 = 0x02;

/// Decodes a PEER_INDEX_TABLE body into the list of peers.
pub(crate) fn read_peer_index_table(mut cur: Cursor<'_>) -> Decoded<Vec<Peer>> {
    cur.skip(4, "collector BGP ID")?;
    let name_len = usize::from(cur.u16("view name length")?);
    cur.skip(name_len, "view name")?;
    let count = cur.u16("peer count")?;
    let mut peers = Vec::with_capacity(usize::from(count).min(cur.remaining() / 7));
    for _ in 0..count {
        let kind = cur.u8("peer type")?;
        cur.skip(4, "peer BGP ID")?;
        let afi = if kind & PEER_TYPE_IPV6 != 0 { Afi::Ipv6 } else { Afi::Ipv4 };
        let ip = cur.ip(afi, "peer address")?;
        let asn = cur.asn(kind & PEER_TYPE_AS4 != 0, "peer AS")?;
        peers.push(Peer { ip, asn });
    }
    if !cur.is_empty() {
        return Err(cur.error(format!("{} bytes after the last peer", cur.remaining())));
    }
    Ok(peers)
}

/// The family, SAFI and ADD-PATH flag of a RIB subtype that is read.
fn rib_form(subtype: u16) -> Option<(Afi, Safi, bool)> {
    Some(match subtype {
        2 => (Afi::Ipv4, Safi::Unicast, false),
        3 => (Afi::Ipv4, Safi::Multicast, false),
        4 => (Afi::Ipv6, Safi::Unicast, false),
        5 => (Afi::Ipv6, Safi::Multicast, false),
        8 => (Afi::Ipv4, Safi::Unicast, true),
        9 => (Afi::Ipv4, Safi::Multicast, true),
        10 => (Afi::Ipv6, Safi::Unicast, true),
        11 => (Afi::Ipv6, Safi::Multicast, true),
        _ => return None,
    })
}

/// True for the PEER_INDEX_TABLE subtype.
pub(crate) fn is_peer_index_table(subtype: u16) -> bool {
    subtype == PEER_INDEX_TABLE
}

/// Decodes a RIB record; `peers` is the table read before it (`None` if there was none).
pub(crate) fn read_rib(
    subtype: u16,
    mut cur: Cursor<'_>,
    time_us: u64,
    peers: Option<&[Peer]>,
    out: &mut Vec<MrtEntry>,
) -> Decoded<Outcome> {
    let Some((afi, safi, add_path)) = rib_form(subtype) else { return Ok(Outcome::Skipped) };
    let Some(peers) = peers else {
        return Err(cur.error("RIB record before any PEER_INDEX_TABLE"));
    };
    cur.skip(4, "sequence number")?;
    let prefix = read_prefix(&mut cur, afi)?;
    let count = cur.u16("entry count")?;
    for _ in 0..count {
        let index_at = cur.offset();
        let index = usize::from(cur.u16("peer index")?);
        let &peer = peers.get(index).ok_or_else(|| Malformed {
            offset: index_at,
            reason: format!("peer index {index} beyond the {} peers of the table", peers.len())
                .into(),
        })?;
        cur.skip(4, "originated time")?;
        let path_id = if add_path { Some(cur.u32("path identifier")?) } else { None };
        let attrs_len = usize::from(cur.u16("attribute length")?);
        let attrs = read_attributes(cur.sub(attrs_len, "attributes")?, AttrContext::Rib, true)?;
        let next_hop = match afi {
            Afi::Ipv4 => attrs.next_hop.or(attrs.mp_next_hop),
            Afi::Ipv6 => attrs.mp_next_hop,
        };
        let mut emit = Emitter { time_us, peer, out: &mut *out };
        emit.push(EntryKind::Rib, safi, prefix, next_hop, path_id, attrs.origin_as());
    }
    if !cur.is_empty() {
        return Err(cur.error(format!("{} bytes after the last RIB entry", cur.remaining())));
    }
    Ok(Outcome::Read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer_table() -> Vec<u8> {
        let mut t = vec![1, 2, 3, 4, 0, 1, b'v', 0, 2];
        t.extend_from_slice(&[0, 9, 9, 9, 9, 192, 0, 2, 1, 0xfd, 0xe8]);
        t.extend_from_slice(&[3, 9, 9, 9, 9]);
        t.extend_from_slice(&[0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        t.extend_from_slice(&[0, 1, 0, 0]);
        t
    }

    #[test]
    fn reads_peers_of_both_families_and_as_widths() {
        let peers = read_peer_index_table(Cursor::new(&peer_table(), 0)).unwrap();
        assert_eq!(peers[0], Peer { ip: "192.0.2.1".parse().unwrap(), asn: 65000 });
        assert_eq!(peers[1], Peer { ip: "2001:db8::1".parse().unwrap(), asn: 65536 });
        let mut long = peer_table();
        long.push(0);
        assert!(read_peer_index_table(Cursor::new(&long, 0)).is_err());
    }

    #[test]
    fn reads_rib_entries_with_path_ids() {
        let peers = read_peer_index_table(Cursor::new(&peer_table(), 0)).unwrap();
        let mut rib = vec![0, 0, 0, 7, 16, 10, 1, 0, 2];
        for (index, id) in [(0u8, 5u8), (1, 6)] {
            rib.extend_from_slice(&[0, index, 0, 0, 0, 0, 0, 0, 0, id]);
            rib.extend_from_slice(&[0, 7, 0x40, 3, 4, 192, 0, 2, 1 + index]);
        }
        let mut out = Vec::new();
        read_rib(8, Cursor::new(&rib, 0), 0, Some(&peers), &mut out).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!((out[1].peer.asn, out[1].path_id), (65536, Some(6)));
        assert_eq!(out[1].next_hop, Some("192.0.2.2".parse().unwrap()));
        rib[10] = 2;
        let err = read_rib(8, Cursor::new(&rib, 0), 0, Some(&peers), &mut out).unwrap_err();
        assert!(err.reason.contains("peer index 2"), "{err:?}");
        assert!(read_rib(2, Cursor::new(&rib, 0), 0, None, &mut out).is_err());
    }
}
