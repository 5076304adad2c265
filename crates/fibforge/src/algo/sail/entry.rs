//! Table entries: a next hop or a chunk id in one word, 16 or 32 bits wide.
//!
//! SAIL's arrays hold words whose top bit says what the rest is: clear, the low bits are a
//! next-hop raw value ([`NextHop::raw`], 0 = no route); set, they are the id of a chunk one
//! level down. The original code uses 16-bit words, so next hops and chunk ids are limited to
//! 15 bits: 32,768 chunks per level, the limit that keeps it from compiling Poptrie's SYN2
//! tables. fibforge keeps that format when a table fits ([`Width::Narrow`]) and otherwise
//! switches to 32-bit words with 31-bit payloads ([`Width::Wide`]); neither ever truncates.

use crate::fib::BuildError;
use crate::nexthop::NextHop;
use std::fmt::Debug;

/// Word width of SAIL's next-hop and chunk arrays.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Width {
    /// 16 bits when the table fits in 15-bit payloads, 32 bits otherwise (the default).
    #[default]
    Auto,
    /// 16-bit words as in the paper; tables needing more than 15 bits are refused.
    Narrow,
    /// 32-bit words: next hops and chunk ids up to 2^31 - 1.
    Wide,
}

impl Width {
    /// Parses the `width` option: `auto`, `16` or `32`.
    #[doc(hidden)]
    pub fn parse(algo: &'static str, text: &str) -> Result<Width, BuildError> {
        match text {
            "auto" => Ok(Width::Auto),
            "16" => Ok(Width::Narrow),
            "32" => Ok(Width::Wide),
            _ => Err(BuildError::BadOption {
                algo,
                option: format!("width={text}"),
                reason: "expected auto, 16 or 32".into(),
            }),
        }
    }
}

/// Build options shared by the three SAIL variants.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// Word width of the arrays.
    pub width: Width,
}

/// A next hop or a chunk id, tagged by the top bit.
pub(crate) trait Entry: Copy + Default + Eq + Send + Sync + Debug + 'static {
    /// Largest next-hop raw value or chunk id a word can hold.
    const MAX_PAYLOAD: u32;

    /// The word for a next hop (`None`: no route). The raw value must fit `MAX_PAYLOAD`.
    fn hop(hop: Option<NextHop>) -> Self;
    /// The word pointing at chunk `id` (`id <= MAX_PAYLOAD`).
    fn chunk(id: u32) -> Self;
    /// True when the word is a chunk id.
    fn is_chunk(self) -> bool;
    /// The payload: next-hop raw value or chunk id.
    fn payload(self) -> u32;

    /// The next hop of a word that is not a chunk id.
    #[inline]
    fn next_hop(self) -> Option<NextHop> {
        NextHop::from_raw(self.payload())
    }
}

macro_rules! impl_entry {
    ($t:ty) => {
        impl Entry for $t {
            const MAX_PAYLOAD: u32 = (1 << (<$t>::BITS - 1)) - 1;

            #[inline]
            fn hop(hop: Option<NextHop>) -> Self {
                let raw = hop.map_or(0, NextHop::raw);
                debug_assert!(raw <= Self::MAX_PAYLOAD, "next hop {raw} does not fit");
                raw as $t
            }
            #[inline]
            fn chunk(id: u32) -> Self {
                debug_assert!(id <= Self::MAX_PAYLOAD, "chunk id {id} does not fit");
                id as $t | (1 << (<$t>::BITS - 1))
            }
            #[inline]
            fn is_chunk(self) -> bool {
                self >> (<$t>::BITS - 1) != 0
            }
            #[inline]
            fn payload(self) -> u32 {
                (self & !(1 << (<$t>::BITS - 1))) as u32
            }
        }
    };
}

impl_entry!(u16);
impl_entry!(u32);

/// What a table needs from the words: its largest next-hop raw value and its largest number
/// of chunks at any one level.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Demand {
    pub max_hop_raw: u32,
    pub max_chunks: u64,
}

/// A payload that does not fit the chosen width.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Overflow {
    /// What overflowed.
    pub what: &'static str,
    /// The value that did not fit.
    pub found: u64,
}

impl Overflow {
    /// The error reported to users, naming the limit of width `E`.
    pub(crate) fn into_error<E: Entry>(self, algo: &'static str) -> BuildError {
        BuildError::LimitExceeded {
            algo,
            what: self.what,
            limit: E::MAX_PAYLOAD as u64 + u64::from(self.what == CHUNKS),
            found: self.found,
        }
    }
}

/// `Overflow::what` for chunk counts.
pub(crate) const CHUNKS: &str = "chunks per level (chunk ids)";

/// A zeroed chunk of `2^stride` words in `level` for an update: a freed one from `free`, or
/// a new one at the end (capacity grown by eighths, so updates rarely copy the level).
pub(crate) fn alloc_chunk<E: Entry>(
    free: &mut Vec<u32>,
    level: &mut Vec<E>,
    stride: u32,
) -> Result<u32, Overflow> {
    if let Some(id) = free.pop() {
        return Ok(id);
    }
    let id = level.len() >> stride;
    if id > E::MAX_PAYLOAD as usize {
        return Err(Overflow { what: CHUNKS, found: id as u64 + 1 });
    }
    crate::algo::grow_by_eighths(level, 1 << stride);
    level.resize(level.len() + (1 << stride), E::default());
    Ok(id as u32)
}
/// `Overflow::what` for next-hop raw values.
pub(crate) const HOPS: &str = "next-hop raw value (index + 1)";

/// Checks that `demand` fits words of type `E`.
pub(crate) fn fits<E: Entry>(demand: Demand) -> Result<(), Overflow> {
    if demand.max_hop_raw > E::MAX_PAYLOAD {
        return Err(Overflow { what: HOPS, found: demand.max_hop_raw as u64 });
    }
    if demand.max_chunks > E::MAX_PAYLOAD as u64 + 1 {
        return Err(Overflow { what: CHUNKS, found: demand.max_chunks });
    }
    Ok(())
}

/// True when the table should use 32-bit words; an error when the requested width is too small.
pub(crate) fn choose_wide(
    algo: &'static str,
    width: Width,
    demand: Demand,
) -> Result<bool, BuildError> {
    match width {
        Width::Narrow => fits::<u16>(demand).map(|_| false).map_err(|o| o.into_error::<u16>(algo)),
        Width::Wide => fits::<u32>(demand).map(|_| true).map_err(|o| o.into_error::<u32>(algo)),
        Width::Auto => match fits::<u16>(demand) {
            Ok(()) => Ok(false),
            Err(_) => fits::<u32>(demand).map(|_| true).map_err(|o| o.into_error::<u32>(algo)),
        },
    }
}

impl Config {
    /// The configuration `spec` names (any SAIL variant): `width=auto|16|32`.
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Self, BuildError> {
        const VARIANTS: [&str; 4] = ["sail_b", "sail_u", "sail_l", "sail_m"];
        let algo = VARIANTS.into_iter().find(|v| *v == spec.name).unwrap_or("sail");
        spec.check_options(algo, &["width"])?;
        let width = match spec.options.get("width") {
            Some(w) => Width::parse(algo, w)?,
            None => Width::Auto,
        };
        Ok(Config { width })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let h = NextHop::from_index(0x7FFE);
        assert_eq!(<u16 as Entry>::hop(Some(h)).next_hop(), Some(h));
        assert!(!<u16 as Entry>::hop(Some(h)).is_chunk());
        assert_eq!(<u16 as Entry>::hop(None).next_hop(), None);
        let c = <u16 as Entry>::chunk(0x7FFF);
        assert!(c.is_chunk());
        assert_eq!(c.payload(), 0x7FFF);
        let w = <u32 as Entry>::chunk(<u32 as Entry>::MAX_PAYLOAD);
        assert!(w.is_chunk());
        assert_eq!(w.payload(), (1 << 31) - 1);
    }

    #[test]
    fn width_choice_and_limits() {
        let small = Demand { max_hop_raw: 100, max_chunks: 32_768 };
        let big = Demand { max_hop_raw: 100, max_chunks: 32_769 };
        assert!(!choose_wide("t", Width::Auto, small).unwrap());
        assert!(choose_wide("t", Width::Auto, big).unwrap());
        assert!(choose_wide("t", Width::Wide, small).unwrap());
        let e = choose_wide("t", Width::Narrow, big).unwrap_err();
        assert!(matches!(e, BuildError::LimitExceeded { limit: 32_768, found: 32_769, .. }), "{e}");
        let hops = Demand { max_hop_raw: 0x8000, max_chunks: 0 };
        let e = choose_wide("t", Width::Narrow, hops).unwrap_err();
        assert!(matches!(e, BuildError::LimitExceeded { limit: 0x7FFF, .. }), "{e}");
        let huge = Demand { max_hop_raw: u32::MAX, max_chunks: 0 };
        assert!(choose_wide("t", Width::Auto, huge).is_err());
    }
}
