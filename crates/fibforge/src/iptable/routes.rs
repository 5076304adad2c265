//! A snapshot's route list: each route of one family as `u64` words, in prefix order, read
//! where the snapshot is mapped and turned into a RIB only when a table needs its routes.
//!
//! - IPv4, one word: `addr << 32 | len << 24 | id`;
//! - IPv6, three words: the address's high and low halves, then `len << 24 | id`;
//!
//! where `id` is the route's value id and `len` its prefix length (`hop.rs` packs the two
//! into the next hop the structures hold).

use super::hop;
use crate::addr::Address;
use crate::mapped::Slab;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// A family's route list: [`Routes::WORDS`] words per route.
pub(super) type List = Slab<u64>;

/// The route-list encoding of a family (see the module docs).
pub(super) trait Routes: Address {
    /// Words per route.
    const WORDS: usize;
    /// The words of a route of `id` (below 2^24): the first [`Routes::WORDS`] of the three.
    fn words(prefix: Prefix<Self>, id: u32) -> [u64; 3];
    /// The address, length and value id of one route's words (`WORDS` of them).
    fn get(words: &[u64]) -> (Self, u32, u32);
    /// The order of routes in a list: by address, then length.
    type Order: Ord + Copy;
    /// One route's words checked (a length the family has, no host bits, no unused bits):
    /// its place in the order and its value id, or what is wrong.
    fn check(words: &[u64]) -> Result<(Self::Order, u32), &'static str>;

    /// The number of routes in `list`.
    fn count(list: &List) -> usize {
        list.len() / Self::WORDS
    }

    /// The routes of `list` (checked when the snapshot was opened) as a RIB.
    fn rib_of(list: &List) -> Rib<Self> {
        let mut rib = Rib::new();
        for words in list.chunks_exact(Self::WORDS) {
            let (addr, len, id) = Self::get(words);
            let prefix = Prefix::new(addr, len).expect("a checked snapshot route");
            rib.insert(prefix, hop::encode(id, len));
        }
        rib
    }
}

/// The value id and prefix length of a stored route's next hop.
pub(super) fn id_and_len(hop: NextHop) -> (u32, u32) {
    let (id, len) = hop::decode(hop);
    (id, u32::from(len))
}

const ID_MASK: u64 = (1 << 24) - 1;

/// What a route's words hold beyond its address: `len << 24 | id`, nothing above.
fn check_meta(meta: u64, bits: u32) -> Result<(u32, u32), &'static str> {
    let len = (meta >> 24) as u32;
    if meta >> 32 != 0 {
        return Err("unused bits set");
    }
    if len > bits {
        return Err("a prefix length longer than the address");
    }
    Ok((len, (meta & ID_MASK) as u32))
}

impl Routes for u32 {
    const WORDS: usize = 1;
    fn words(prefix: Prefix<u32>, id: u32) -> [u64; 3] {
        [u64::from(prefix.addr()) << 32 | u64::from(prefix.len()) << 24 | u64::from(id), 0, 0]
    }
    fn get(words: &[u64]) -> (u32, u32, u32) {
        let w = words[0];
        ((w >> 32) as u32, (w >> 24 & 0xff) as u32, (w & ID_MASK) as u32)
    }
    type Order = u64;
    #[inline]
    fn check(words: &[u64]) -> Result<(u64, u32), &'static str> {
        let w = words[0];
        let (len, id) = check_meta(w & u64::from(u32::MAX), 32)?;
        if (w >> 32) as u32 & u32::MAX.checked_shr(len).unwrap_or(0) != 0 {
            return Err("host bits set");
        }
        Ok((w >> 24, id))
    }
}

impl Routes for u128 {
    const WORDS: usize = 3;
    fn words(prefix: Prefix<u128>, id: u32) -> [u64; 3] {
        let a = prefix.addr();
        [(a >> 64) as u64, a as u64, u64::from(prefix.len()) << 24 | u64::from(id)]
    }
    fn get(words: &[u64]) -> (u128, u32, u32) {
        let addr = u128::from(words[0]) << 64 | u128::from(words[1]);
        (addr, (words[2] >> 24 & 0xff) as u32, (words[2] & ID_MASK) as u32)
    }
    type Order = (u128, u32);
    #[inline]
    fn check(words: &[u64]) -> Result<((u128, u32), u32), &'static str> {
        let (len, id) = check_meta(words[2], 128)?;
        let addr = u128::from(words[0]) << 64 | u128::from(words[1]);
        if addr & u128::MAX.checked_shr(len).unwrap_or(0) != 0 {
            return Err("host bits set");
        }
        Ok(((addr, len), id))
    }
}
