//! The next hop an [`IpTable`](super::IpTable) stores in its lookup structures: the route's
//! value id and prefix length in one `u32` (`id << 8 | length`), so that one walk of the
//! compiled structure answers both the value and the matched prefix, without a second
//! search in the RIB (the Python face stores the same).

use super::values::MAX_VALUES;
use crate::nexthop::NextHop;

/// The next hop of a route of value `id` and prefix length `len`.
#[inline]
pub(super) fn encode(id: u32, len: u32) -> NextHop {
    debug_assert!(id < MAX_VALUES && len <= 128);
    NextHop::from_index(id << 8 | len)
}

/// The value id and prefix length of a stored next hop.
#[inline]
pub(super) fn decode(hop: NextHop) -> (u32, u8) {
    let index = hop.index();
    (index >> 8, index as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_lengths_round_trip_at_the_limits() {
        for (id, len) in [(0, 0), (0, 128), (MAX_VALUES - 1, 128), (MAX_VALUES - 1, 0), (77, 24)] {
            assert_eq!(decode(encode(id, len)), (id, len as u8));
        }
    }
}
