//! AS_PATH (type 2, RFC 4271 §4.3) and AS4_PATH (type 17, RFC 6793): a route's origin AS.
//!
//! A path is a list of segments: type (1 byte), AS count (1 byte), then the ASes, 2 or 4
//! bytes each. The width is not in the attribute: TABLE_DUMP_V2 always writes 4-byte ASes
//! (RFC 6396 §4.3.4), BGP4MP's `_AS4` subtypes carry a 4-byte session, the other BGP4MP
//! subtypes, TABLE_DUMP and the legacy BGP type 2-byte ones (as bgpdump reads them); AS4_PATH
//! is always 4-byte.
//!
//! **The origin rule.** The origin AS is the last AS of the last AS_SEQUENCE segment, or, when
//! the last segment is an AS_SET (aggregated routes), the set's *first* AS as encoded (the AS
//! bgpdump prints first in `{a,b}`; the text reader's rule for such columns is the same).
//! Confederation segments (AS_CONFED_SEQUENCE, AS_CONFED_SET) are internal to a confederation
//! and are passed over. A path with no AS_SEQUENCE or AS_SET segment (a route the peer
//! originates over iBGP) has no origin AS.
//!
//! **AS4_PATH.** A 2-byte session writes AS_TRANS (23456) for ASes above 65535 and carries the
//! real ones in AS4_PATH. RFC 6793 §4.2.3 merges the two: when AS4_PATH has no more ASes than
//! AS_PATH (an AS_SET counts one, confederation segments none), AS4_PATH replaces the tail of
//! AS_PATH, so the origin is AS4_PATH's; otherwise AS4_PATH is ignored.

use super::cursor::{Cursor, Decoded};

const AS_SET: u8 = 1;
const AS_SEQUENCE: u8 = 2;
const AS_CONFED_SEQUENCE: u8 = 3;
const AS_CONFED_SET: u8 = 4;

/// What the origin rule needs from one AS_PATH or AS4_PATH.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PathSummary {
    /// The origin AS (see the module docs), `None` for a path without AS_SEQUENCE or AS_SET.
    pub origin: Option<u32>,
    /// The path length as RFC 6793 counts it (an AS_SET counts one, confederations none).
    pub length: u32,
}

/// Reads a whole AS_PATH or AS4_PATH value with ASes of 4 bytes (`as4`) or 2.
pub(crate) fn read_as_path(mut value: Cursor<'_>, as4: bool) -> Decoded<PathSummary> {
    let mut summary = PathSummary::default();
    while !value.is_empty() {
        let kind_at = value.offset();
        let kind = value.u8("AS path segment type")?;
        let count = value.u8("AS path segment length")?;
        let width = if as4 { 4 } else { 2 };
        let mut ases = value.sub(usize::from(count) * width, "AS path segment")?;
        match kind {
            AS_SEQUENCE => {
                summary.length += u32::from(count);
                while !ases.is_empty() {
                    summary.origin = Some(ases.asn(as4, "AS")?);
                }
            }
            AS_SET => {
                summary.length += 1;
                if count > 0 {
                    summary.origin = Some(ases.asn(as4, "AS")?);
                }
            }
            AS_CONFED_SEQUENCE | AS_CONFED_SET => {}
            _ => {
                let reason = format!(
                    "AS path segment type {kind} (known: 1 AS_SET, 2 AS_SEQUENCE, 3 and 4 \
                     confederations; a 4-byte path read as 2-byte?)"
                );
                return Err(super::cursor::Malformed { offset: kind_at, reason: reason.into() });
            }
        }
    }
    Ok(summary)
}

/// The origin AS of a route from its AS_PATH and its AS4_PATH (see the module docs);
/// `as4_path` is ignored when the session is 4-byte.
pub(crate) fn origin_as(
    as_path: Option<PathSummary>,
    as4_path: Option<PathSummary>,
    as4: bool,
) -> Option<u32> {
    match (as_path, as4_path) {
        (Some(path), Some(four)) if !as4 && four.length <= path.length && four.origin.is_some() => {
            four.origin
        }
        (Some(path), _) => path.origin,
        // RFC 6793: an AS4_PATH without AS_PATH is malformed; its origin is still the best
        // guess there is.
        (None, four) => four.and_then(|p| p.origin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], as4: bool) -> Decoded<PathSummary> {
        read_as_path(Cursor::new(bytes, 0), as4)
    }

    fn summary(origin: Option<u32>, length: u32) -> PathSummary {
        PathSummary { origin, length }
    }

    #[test]
    fn origin_is_the_last_as_of_the_last_sequence() {
        let two = [2, 3, 0x0d, 0x1c, 0x04, 0xd7, 0, 80];
        assert_eq!(read(&two, false).unwrap(), summary(Some(80), 3));
        let four = [2, 2, 0, 0, 0x0d, 0x1c, 0, 3, 0x0d, 0x40];
        assert_eq!(read(&four, true).unwrap(), summary(Some(200_000), 2));
        assert_eq!(read(&[], true).unwrap(), summary(None, 0));
    }

    #[test]
    fn a_set_origin_is_the_sets_first_as() {
        // SEQUENCE 1853, SET {5752, 7955}: origin 5752.
        let bytes = [2, 1, 0x07, 0x3d, 1, 2, 0x16, 0x78, 0x1f, 0x13];
        assert_eq!(read(&bytes, false).unwrap(), summary(Some(5752), 2));
    }

    #[test]
    fn confederation_segments_are_passed_over() {
        // SEQUENCE 100, CONFED_SEQUENCE 65001: origin 100, length 1.
        let bytes = [2, 1, 0, 100, 3, 1, 0xfd, 0xe9];
        assert_eq!(read(&bytes, false).unwrap(), summary(Some(100), 1));
        assert_eq!(read(&[3, 1, 0xfd, 0xe9], false).unwrap(), summary(None, 0));
    }

    #[test]
    fn damage_is_reported_where_it_is() {
        assert_eq!(read(&[2, 3, 0, 1], false).unwrap_err().offset, 2);
        assert_eq!(read(&[9, 1, 0, 1], false).unwrap_err().offset, 0);
        assert_eq!(read(&[2], false).unwrap_err().offset, 1);
    }

    #[test]
    fn as4_path_replaces_as_trans_when_not_longer() {
        let path = summary(Some(23456), 3);
        let four = summary(Some(200_000), 2);
        assert_eq!(origin_as(Some(path), Some(four), false), Some(200_000));
        assert_eq!(origin_as(Some(path), Some(four), true), Some(23456), "4-byte session");
        let longer = summary(Some(200_000), 4);
        assert_eq!(origin_as(Some(path), Some(longer), false), Some(23456));
        assert_eq!(origin_as(None, Some(four), false), Some(200_000));
        assert_eq!(origin_as(None, None, false), None);
    }
}
