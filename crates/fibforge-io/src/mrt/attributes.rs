//! BGP path attributes (RFC 4271 §4.3), of which the reader needs five: NEXT_HOP (type 3),
//! MP_REACH_NLRI (14) and MP_UNREACH_NLRI (15) from RFC 4760, and AS_PATH (2) and AS4_PATH
//! (17) for the origin AS (`as_path.rs`). All others are skipped by their length. Multiprotocol prefixes are read for the unicast and multicast SAFIs (1, 2);
//! other SAFIs (labelled, VPN, flowspec, ...) encode prefixes differently and are skipped.
//!
//! In TABLE_DUMP_V2 RIB entries, MP_REACH_NLRI is usually abbreviated to the next-hop length
//! and address (RFC 6396 §4.3.4) because the record already names the prefix; some producers
//! write the full form anyway. The abbreviated form is recognised, as other readers do, by its
//! first byte being the attribute length minus one.

use super::as_path::{PathSummary, origin_as, read_as_path};
use super::cursor::{Afi, Cursor, Decoded};
use super::entry::Safi;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const ATTR_AS_PATH: u8 = 2;
const ATTR_NEXT_HOP: u8 = 3;
const ATTR_MP_REACH_NLRI: u8 = 14;
const ATTR_MP_UNREACH_NLRI: u8 = 15;
const ATTR_AS4_PATH: u8 = 17;
const FLAG_EXTENDED_LENGTH: u8 = 0x10;
const SAFI_UNICAST: u8 = 1;
const SAFI_MULTICAST: u8 = 2;

fn safi_from_number(n: u8) -> Option<Safi> {
    match n {
        SAFI_UNICAST => Some(Safi::Unicast),
        SAFI_MULTICAST => Some(Safi::Multicast),
        _ => None,
    }
}

/// Where the attributes come from: an UPDATE message or a RIB entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AttrContext {
    Update,
    Rib,
}

/// The prefixes carried by MP_REACH_NLRI or MP_UNREACH_NLRI, still encoded.
#[derive(Clone, Debug)]
pub(crate) struct MpPrefixes<'a> {
    pub afi: Afi,
    pub safi: Safi,
    pub nlri: Cursor<'a>,
}

/// What the reader takes from a path-attribute block.
#[derive(Clone, Debug, Default)]
pub(crate) struct PathAttributes<'a> {
    /// The NEXT_HOP attribute (IPv4 routes in the classic NLRI field).
    pub next_hop: Option<IpAddr>,
    /// The next hop of MP_REACH_NLRI (the global address when a link-local one follows).
    pub mp_next_hop: Option<IpAddr>,
    /// Prefixes announced through MP_REACH_NLRI (UPDATE context only).
    pub mp_reach: Option<MpPrefixes<'a>>,
    /// Prefixes withdrawn through MP_UNREACH_NLRI.
    pub mp_unreach: Option<MpPrefixes<'a>>,
    /// The AS_PATH attribute, read with the block's AS width.
    pub as_path: Option<PathSummary>,
    /// The AS4_PATH attribute (always 4-byte ASes).
    pub as4_path: Option<PathSummary>,
    /// Whether AS_PATH holds 4-byte ASes.
    pub as4: bool,
}

impl PathAttributes<'_> {
    /// The route's origin AS (the rule is in `as_path.rs`).
    pub fn origin_as(&self) -> Option<u32> {
        origin_as(self.as_path, self.as4_path, self.as4)
    }
}

/// Walks an attribute block (the whole cursor); `as4`: AS_PATH holds 4-byte ASes.
pub(crate) fn read_attributes<'a>(
    mut cur: Cursor<'a>,
    context: AttrContext,
    as4: bool,
) -> Decoded<PathAttributes<'a>> {
    let mut attrs = PathAttributes { as4, ..Default::default() };
    while !cur.is_empty() {
        let flags = cur.u8("attribute flags")?;
        let kind = cur.u8("attribute type")?;
        let len = if flags & FLAG_EXTENDED_LENGTH != 0 {
            usize::from(cur.u16("attribute length")?)
        } else {
            usize::from(cur.u8("attribute length")?)
        };
        let mut value = cur.sub(len, "attribute value")?;
        match kind {
            ATTR_NEXT_HOP => attrs.next_hop = read_next_hop_attr(&mut value)?,
            ATTR_AS_PATH => attrs.as_path = Some(read_as_path(value, as4)?),
            ATTR_AS4_PATH => attrs.as4_path = Some(read_as_path(value, true)?),
            ATTR_MP_REACH_NLRI if context == AttrContext::Rib && is_abbreviated(&value) => {
                let nh_len = usize::from(value.u8("next hop length")?);
                attrs.mp_next_hop = next_hop_from_bytes(value.take(nh_len, "next hop")?);
            }
            ATTR_MP_REACH_NLRI => read_mp_reach(value, &mut attrs)?,
            ATTR_MP_UNREACH_NLRI => attrs.mp_unreach = read_mp_unreach(value)?,
            _ => {}
        }
    }
    Ok(attrs)
}

fn read_next_hop_attr(value: &mut Cursor<'_>) -> Decoded<Option<IpAddr>> {
    if value.remaining() != 4 {
        return Err(value.error(format!("NEXT_HOP of {} bytes, expected 4", value.remaining())));
    }
    Ok(Some(IpAddr::V4(value.ipv4("NEXT_HOP")?)))
}

fn is_abbreviated(value: &Cursor<'_>) -> bool {
    let mut probe = value.clone();
    probe.u8("next hop length").is_ok_and(|n| usize::from(n) + 1 == value.remaining())
}

/// Full MP_REACH_NLRI: AFI, SAFI, next hop, a reserved byte, then the prefixes.
fn read_mp_reach<'a>(mut value: Cursor<'a>, attrs: &mut PathAttributes<'a>) -> Decoded<()> {
    let afi = value.u16("MP_REACH_NLRI AFI")?;
    let safi = value.u8("MP_REACH_NLRI SAFI")?;
    let nh_len = usize::from(value.u8("MP_REACH_NLRI next hop length")?);
    let next_hop = value.take(nh_len, "MP_REACH_NLRI next hop")?;
    value.skip(1, "MP_REACH_NLRI reserved byte")?;
    if let (Some(afi), Some(safi)) = (Afi::from_number(afi), safi_from_number(safi)) {
        attrs.mp_next_hop = next_hop_from_bytes(next_hop);
        attrs.mp_reach = Some(MpPrefixes { afi, safi, nlri: value });
    }
    Ok(())
}

/// MP_UNREACH_NLRI: AFI, SAFI, then the withdrawn prefixes.
fn read_mp_unreach(mut value: Cursor<'_>) -> Decoded<Option<MpPrefixes<'_>>> {
    let afi = value.u16("MP_UNREACH_NLRI AFI")?;
    let safi = value.u8("MP_UNREACH_NLRI SAFI")?;
    Ok(match (Afi::from_number(afi), safi_from_number(safi)) {
        (Some(afi), Some(safi)) => Some(MpPrefixes { afi, safi, nlri: value }),
        _ => None,
    })
}

/// A next-hop field: 4 bytes IPv4, 16 bytes IPv6, 32 bytes IPv6 global + link-local (the
/// global one is kept). Other lengths (VPN forms with a route distinguisher) give `None`.
fn next_hop_from_bytes(bytes: &[u8]) -> Option<IpAddr> {
    match bytes.len() {
        4 => Some(IpAddr::V4(Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]))),
        16 | 32 => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(&bytes[..16]);
            Some(IpAddr::V6(Ipv6Addr::from(octets)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], context: AttrContext) -> Decoded<PathAttributes<'_>> {
        read_attributes(Cursor::new(bytes, 0), context, false)
    }

    #[test]
    fn finds_next_hops_and_skips_other_attributes() {
        // ORIGIN, NEXT_HOP 192.0.2.1, an extended-length AS_PATH.
        let bytes = [0x40, 1, 1, 0, 0x40, 3, 4, 192, 0, 2, 1, 0x50, 2, 0, 2, 2, 0];
        let a = read(&bytes, AttrContext::Update).unwrap();
        assert_eq!(a.next_hop, Some("192.0.2.1".parse().unwrap()));
        assert!(a.mp_reach.is_none() && a.mp_next_hop.is_none());
        assert_eq!(a.origin_as(), None, "empty AS_PATH");
    }

    #[test]
    fn finds_the_origin_as_with_as4_path() {
        // AS_PATH 2-byte [3356 23456], AS4_PATH [200000].
        let bytes = [0x40, 2, 6, 2, 2, 0x0d, 0x1c, 0x5b, 0xa0, 0xc0, 17, 6, 2, 1, 0, 3, 0x0d, 0x40];
        assert_eq!(read(&bytes, AttrContext::Update).unwrap().origin_as(), Some(200_000));
        let four = read_attributes(Cursor::new(&bytes[..9], 0), AttrContext::Rib, true);
        assert!(four.is_err(), "a 2-byte path read as 4-byte does not frame");
    }

    #[test]
    fn reads_full_and_abbreviated_mp_reach() {
        let mut full = vec![0x80, 14, 0, 0, 2, 1, 32];
        full.extend_from_slice(&[0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        full.extend_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        full.extend_from_slice(&[0, 32, 0x20, 1, 0x0d, 0xb8]);
        full[2] = (full.len() - 3) as u8;
        let a = read(&full, AttrContext::Update).unwrap();
        assert_eq!(a.mp_next_hop, Some("2001:db8::1".parse().unwrap()));
        let mp = a.mp_reach.unwrap();
        assert_eq!((mp.afi, mp.nlri.remaining()), (Afi::Ipv6, 5));
        let b = read(&full, AttrContext::Rib).unwrap();
        assert_eq!(b.mp_next_hop, a.mp_next_hop, "full form in a RIB entry");
        let short = [0x80, 14, 17, 16, 0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
        let c = read(&short, AttrContext::Rib).unwrap();
        assert_eq!(c.mp_next_hop, Some("2001:db8::2".parse().unwrap()));
    }

    #[test]
    fn damage_is_reported_where_it_is() {
        assert_eq!(read(&[0x40, 3, 5, 1, 2, 3, 4, 5], AttrContext::Update).unwrap_err().offset, 3);
        assert_eq!(read(&[0x40, 3, 9, 1], AttrContext::Update).unwrap_err().offset, 3);
        assert_eq!(read(&[0x40], AttrContext::Update).unwrap_err().offset, 1);
    }
}
