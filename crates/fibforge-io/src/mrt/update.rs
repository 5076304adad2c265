//! The BGP UPDATE message body (RFC 4271 §4.3, RFC 4760 for IPv6): withdrawn IPv4 routes,
//! path attributes (with MP_UNREACH_NLRI / MP_REACH_NLRI for other families), and announced
//! IPv4 NLRI.
//!
//! Entries are emitted in wire order: IPv4 withdrawals, MP_UNREACH_NLRI withdrawals,
//! MP_REACH_NLRI announcements, IPv4 announcements (which take the NEXT_HOP attribute).

use super::attributes::{AttrContext, read_attributes};
use super::cursor::{Afi, Cursor, Decoded};
use super::entry::{Emitter, EntryKind, Safi};
use super::nlri::read_prefix_list;

/// Decodes an UPDATE body (everything after the 19-byte BGP header); `add_path` says whether
/// the session negotiated ADD-PATH (the BGP4MP `_ADDPATH` subtypes), `as4` whether its
/// AS_PATH holds 4-byte ASes (the `_AS4` subtypes).
pub(crate) fn read_update(
    mut cur: Cursor<'_>,
    add_path: bool,
    as4: bool,
    out: &mut Emitter<'_>,
) -> Decoded<()> {
    let withdrawn_len = usize::from(cur.u16("withdrawn routes length")?);
    let mut withdrawn = cur.sub(withdrawn_len, "withdrawn routes")?;
    read_prefix_list(&mut withdrawn, Afi::Ipv4, add_path, |id, p| {
        out.push(EntryKind::Withdraw, Safi::Unicast, p, None, id, None)
    })?;
    let attrs_len = usize::from(cur.u16("path attributes length")?);
    let attrs = read_attributes(cur.sub(attrs_len, "path attributes")?, AttrContext::Update, as4)?;
    let origin = attrs.origin_as();
    if let Some(mut mp) = attrs.mp_unreach {
        read_prefix_list(&mut mp.nlri, mp.afi, add_path, |id, p| {
            out.push(EntryKind::Withdraw, mp.safi, p, None, id, None)
        })?;
    }
    if let Some(mut mp) = attrs.mp_reach {
        let next_hop = attrs.mp_next_hop;
        read_prefix_list(&mut mp.nlri, mp.afi, add_path, |id, p| {
            out.push(EntryKind::Announce, mp.safi, p, next_hop, id, origin)
        })?;
    }
    read_prefix_list(&mut cur, Afi::Ipv4, add_path, |id, p| {
        out.push(EntryKind::Announce, Safi::Unicast, p, attrs.next_hop, id, origin)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mrt::{MrtEntry, Peer};

    fn decode(bytes: &[u8]) -> (Vec<String>, Option<u64>) {
        let mut out: Vec<MrtEntry> = Vec::new();
        let peer = Peer { ip: "192.0.2.9".parse().unwrap(), asn: 64500 };
        let mut emit = Emitter { time_us: 0, peer, out: &mut out };
        let err =
            read_update(Cursor::new(bytes, 0), false, false, &mut emit).err().map(|e| e.offset);
        let lines = out
            .iter()
            .map(|e| format!("{:?} {} {:?}", e.kind, e.prefix, e.next_hop.map(|h| h.to_string())))
            .collect();
        (lines, err)
    }

    #[test]
    fn decodes_withdrawals_then_announcements() {
        let mut msg = vec![0, 2, 8, 10];
        msg.extend_from_slice(&[0, 11, 0x40, 1, 1, 0, 0x40, 3, 4, 192, 0, 2, 1]);
        msg.extend_from_slice(&[16, 172, 16, 24, 192, 168, 1]);
        let (lines, err) = decode(&msg);
        assert_eq!(err, None);
        assert_eq!(
            lines,
            [
                "Withdraw 10.0.0.0/8 None",
                "Announce 172.16.0.0/16 Some(\"192.0.2.1\")",
                "Announce 192.168.1.0/24 Some(\"192.0.2.1\")",
            ]
        );
    }

    #[test]
    fn reports_bad_lengths_at_their_offset() {
        assert_eq!(decode(&[0, 9, 8, 10]).1, Some(2));
        assert_eq!(decode(&[0, 0, 0, 4, 0x40]).1, Some(4));
        assert_eq!(decode(&[0, 0, 0, 0, 40, 1]).1, Some(4));
    }
}
