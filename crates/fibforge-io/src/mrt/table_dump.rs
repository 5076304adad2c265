//! TABLE_DUMP (type 12, RFC 6396 §4.2): the original RIB dump, one route per entry.
//!
//! Body: view number (2) and sequence number (2), then the entry: prefix (4 or 16 bytes, by
//! the subtype's AFI), prefix length (1), status (1), originated time (4), peer address (4 or
//! 16), peer AS (2), attribute length (2), attributes.
//!
//! **Producer quirk** (RIPE RIS rrc00, January 2000): a record batches several entries after
//! one view/sequence header, and its length field omits those 4 header bytes. The record
//! reader detects it on the first TABLE_DUMP record with [`entries_fill`] (the entries end
//! exactly 4 bytes after the stated length, not at it) and then reads every record of the
//! file 4 bytes longer. Batched entries are accepted in both layouts.

use super::attributes::{AttrContext, read_attributes};
use super::bgp4mp::Outcome;
use super::cursor::{Afi, Cursor, Decoded, Malformed};
use super::entry::{Emitter, EntryKind, MrtEntry, Peer, Safi};
use super::nlri::prefix_from_bytes;
use std::net::IpAddr;

const VIEW_AND_SEQUENCE: usize = 4;

fn subtype_afi(subtype: u16) -> Option<Afi> {
    Afi::from_number(subtype)
}

fn addr_len(afi: Afi) -> usize {
    match afi {
        Afi::Ipv4 => 4,
        Afi::Ipv6 => 16,
    }
}

/// True when the body's entries, walked by their attribute lengths, end exactly at its end.
pub(crate) fn entries_fill(subtype: u16, body: &[u8]) -> bool {
    let Some(afi) = subtype_afi(subtype) else { return true };
    let fixed = 2 * addr_len(afi) + 10;
    let mut pos = VIEW_AND_SEQUENCE;
    while pos < body.len() {
        let Some(len_bytes) = body.get(pos + fixed - 2..pos + fixed) else { return false };
        pos += fixed + usize::from(u16::from_be_bytes([len_bytes[0], len_bytes[1]]));
    }
    pos == body.len()
}

/// Decodes a TABLE_DUMP record body (one or more entries).
pub(crate) fn read_table_dump(
    subtype: u16,
    mut cur: Cursor<'_>,
    time_us: u64,
    out: &mut Vec<MrtEntry>,
) -> Decoded<Outcome> {
    let Some(afi) = subtype_afi(subtype) else { return Ok(Outcome::Skipped) };
    cur.skip(VIEW_AND_SEQUENCE, "view and sequence numbers")?;
    loop {
        read_entry(&mut cur, afi, time_us, out)?;
        if cur.is_empty() {
            return Ok(Outcome::Read);
        }
    }
}

fn read_entry(
    cur: &mut Cursor<'_>,
    afi: Afi,
    time_us: u64,
    out: &mut Vec<MrtEntry>,
) -> Decoded<()> {
    let prefix_bytes = cur.take(addr_len(afi), "prefix")?;
    let len_at = cur.offset();
    let len = u32::from(cur.u8("prefix length")?);
    if len as usize > 8 * prefix_bytes.len() {
        let reason = format!("prefix length {len} exceeds {}", 8 * prefix_bytes.len());
        return Err(Malformed { offset: len_at, reason: reason.into() });
    }
    let prefix = prefix_from_bytes(afi, prefix_bytes, len);
    cur.skip(5, "status and originated time")?;
    let ip: IpAddr = cur.ip(afi, "peer address")?;
    let asn = u32::from(cur.u16("peer AS")?);
    let attrs_len = usize::from(cur.u16("attribute length")?);
    let attrs = read_attributes(cur.sub(attrs_len, "attributes")?, AttrContext::Rib, false)?;
    let next_hop = match afi {
        Afi::Ipv4 => attrs.next_hop.or(attrs.mp_next_hop),
        Afi::Ipv6 => attrs.mp_next_hop,
    };
    let mut emit = Emitter { time_us, peer: Peer { ip, asn }, out };
    emit.push(EntryKind::Rib, Safi::Unicast, prefix, next_hop, None, attrs.origin_as());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(prefix: [u8; 4], len: u8, peer_as: u16) -> Vec<u8> {
        let mut e = prefix.to_vec();
        e.extend_from_slice(&[len, 1, 0, 0, 0, 0, 192, 0, 2, 1]);
        e.extend_from_slice(&peer_as.to_be_bytes());
        e.extend_from_slice(&[0, 7, 0x40, 3, 4, 192, 0, 2, 9]);
        e
    }

    #[test]
    fn reads_one_or_several_entries() {
        let mut body = vec![0, 0, 0, 1];
        body.extend(entry([10, 0, 0, 0], 8, 64500));
        assert!(entries_fill(1, &body));
        body.extend(entry([10, 1, 0, 0], 16, 64501));
        assert!(entries_fill(1, &body));
        assert!(!entries_fill(1, &body[..body.len() - 4]), "the quirk shape");
        let mut out = Vec::new();
        assert_eq!(read_table_dump(1, Cursor::new(&body, 0), 5, &mut out), Ok(Outcome::Read));
        let got: Vec<_> = out.iter().map(|e| (e.prefix.to_string(), e.peer.asn)).collect();
        assert_eq!(got, [("10.0.0.0/8".to_string(), 64500), ("10.1.0.0/16".into(), 64501)]);
        assert_eq!(out[0].next_hop, Some("192.0.2.9".parse().unwrap()));
    }

    #[test]
    fn rejects_long_prefixes_and_short_entries() {
        let mut body = vec![0, 0, 0, 1];
        body.extend(entry([10, 0, 0, 0], 33, 1));
        let mut out = Vec::new();
        assert_eq!(read_table_dump(1, Cursor::new(&body, 0), 0, &mut out).unwrap_err().offset, 8);
        body[8] = 8;
        let short = &body[..body.len() - 1];
        assert!(read_table_dump(1, Cursor::new(short, 0), 0, &mut out).is_err());
    }
}
