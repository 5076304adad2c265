//! BGP messages as a collector saw them: BGP4MP and BGP4MP_ET (RFC 6396 §4.4–4.5, ADD-PATH
//! subtypes from RFC 8050), and the deprecated type BGP (RFC 6396 Appendix B.2.1, the
//! format of RIPE RIS files from 1999–2001).
//!
//! BGP4MP_MESSAGE layout: peer AS and local AS (2 bytes, or 4 in the `_AS4` subtypes),
//! interface index (2), AFI (2), peer and local address (4 or 16 by AFI), then a whole BGP
//! message (16-byte marker of ones, length, type). Only UPDATE messages carry routes; OPEN,
//! KEEPALIVE, NOTIFICATION and state changes are skipped.
//!
//! A MESSAGE record whose address family is neither IPv4 nor IPv6 is skipped whole, as
//! bgpdump does: RIS files of 2000 hold OPEN messages written without the interface, family
//! and address fields (family reads as 65535), and the record length still frames them.
//!
//! Legacy BGP_UPDATE layout: peer AS (2), peer IPv4 (4), local AS (2), local IPv4 (4), then
//! the UPDATE body without the BGP header.

use super::cursor::{Afi, Cursor, Decoded};
use super::entry::{Emitter, MrtEntry, Peer};
use super::update::read_update;
use std::net::IpAddr;

const BGP_HEADER_LEN: usize = 19;
const BGP_UPDATE: u8 = 2;
const LEGACY_BGP_UPDATE: u16 = 1;

/// Whether a record held routes or was of a kind the reader skips.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Read,
    Skipped,
}

/// The shape of a BGP4MP message subtype.
struct MessageForm {
    as4: bool,
    add_path: bool,
}

fn message_form(subtype: u16) -> Option<MessageForm> {
    let (as4, add_path) = match subtype {
        1 | 6 => (false, false), // MESSAGE, MESSAGE_LOCAL
        4 | 7 => (true, false),  // MESSAGE_AS4, MESSAGE_AS4_LOCAL
        8 | 10 => (false, true), // MESSAGE_ADDPATH, MESSAGE_LOCAL_ADDPATH
        9 | 11 => (true, true),  // MESSAGE_AS4_ADDPATH, MESSAGE_AS4_LOCAL_ADDPATH
        _ => return None,        // state changes and deprecated subtypes
    };
    Some(MessageForm { as4, add_path })
}

/// Decodes a BGP4MP or BGP4MP_ET record body (for `_ET`, after the microsecond field).
pub(crate) fn read_bgp4mp(
    subtype: u16,
    mut cur: Cursor<'_>,
    time_us: u64,
    out: &mut Vec<MrtEntry>,
) -> Decoded<Outcome> {
    let Some(form) = message_form(subtype) else { return Ok(Outcome::Skipped) };
    let peer_as = cur.asn(form.as4, "peer AS")?;
    cur.asn(form.as4, "local AS")?;
    cur.skip(2, "interface index")?;
    let Some(afi) = Afi::from_number(cur.u16("BGP4MP address family")?) else {
        return Ok(Outcome::Skipped);
    };
    let peer_ip = cur.ip(afi, "peer address")?;
    cur.ip(afi, "local address")?;
    let Some(body) = bgp_update_body(&mut cur)? else { return Ok(Outcome::Skipped) };
    let mut emit = Emitter { time_us, peer: Peer { ip: peer_ip, asn: peer_as }, out };
    read_update(body, form.add_path, form.as4, &mut emit)?;
    Ok(Outcome::Read)
}

/// Checks the BGP header and returns the UPDATE body, or `None` for other message types.
fn bgp_update_body<'a>(cur: &mut Cursor<'a>) -> Decoded<Option<Cursor<'a>>> {
    let marker_at = cur.offset();
    if cur.take(16, "BGP marker")?.iter().any(|&b| b != 0xff) {
        return Err(super::cursor::Malformed {
            offset: marker_at,
            reason: "BGP marker is not all ones".into(),
        });
    }
    let length_at = cur.offset();
    let length = usize::from(cur.u16("BGP message length")?);
    let kind = cur.u8("BGP message type")?;
    if length < BGP_HEADER_LEN || length - BGP_HEADER_LEN > cur.remaining() {
        return Err(super::cursor::Malformed {
            offset: length_at,
            reason: format!(
                "BGP message length {length} does not fit the record ({} bytes after the header)",
                cur.remaining()
            )
            .into(),
        });
    }
    let body = cur.sub(length - BGP_HEADER_LEN, "BGP message")?;
    Ok((kind == BGP_UPDATE).then_some(body))
}

/// Decodes a record of the deprecated type BGP (5); only its UPDATE subtype carries routes.
pub(crate) fn read_legacy_bgp(
    subtype: u16,
    mut cur: Cursor<'_>,
    time_us: u64,
    out: &mut Vec<MrtEntry>,
) -> Decoded<Outcome> {
    if subtype != LEGACY_BGP_UPDATE {
        return Ok(Outcome::Skipped);
    }
    let peer_as = u32::from(cur.u16("peer AS")?);
    let peer_ip = IpAddr::V4(cur.ipv4("peer address")?);
    cur.skip(6, "local AS and address")?;
    let mut emit = Emitter { time_us, peer: Peer { ip: peer_ip, asn: peer_as }, out };
    read_update(cur, false, false, &mut emit)?;
    Ok(Outcome::Read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn as4_message(update: &[u8], marker: u8) -> Vec<u8> {
        let mut m =
            vec![0, 0, 0xfd, 0xe8, 0, 0, 0xfd, 0xe9, 0, 0, 0, 1, 192, 0, 2, 1, 192, 0, 2, 2];
        m.extend_from_slice(&[marker; 16]);
        m.extend_from_slice(&((19 + update.len()) as u16).to_be_bytes());
        m.push(BGP_UPDATE);
        m.extend_from_slice(update);
        m
    }

    #[test]
    fn reads_an_as4_update_with_its_peer() {
        let bytes = as4_message(&[0, 0, 0, 0, 8, 10], 0xff);
        let mut out = Vec::new();
        let r = read_bgp4mp(4, Cursor::new(&bytes, 0), 7, &mut out).unwrap();
        assert_eq!(r, Outcome::Read);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].peer, Peer { ip: "192.0.2.1".parse().unwrap(), asn: 65000 });
        assert_eq!((out[0].prefix.to_string(), out[0].time_us), ("10.0.0.0/8".into(), 7));
    }

    #[test]
    fn rejects_bad_markers_and_lengths_and_skips_state_changes() {
        let mut out = Vec::new();
        let bad = as4_message(&[0, 0, 0, 0], 0);
        assert_eq!(read_bgp4mp(4, Cursor::new(&bad, 0), 0, &mut out).unwrap_err().offset, 20);
        let mut long = as4_message(&[0, 0, 0, 0], 0xff);
        long[37] = 200;
        assert_eq!(read_bgp4mp(4, Cursor::new(&long, 0), 0, &mut out).unwrap_err().offset, 36);
        assert_eq!(read_bgp4mp(5, Cursor::new(&[], 0), 0, &mut out).unwrap(), Outcome::Skipped);
    }
}
