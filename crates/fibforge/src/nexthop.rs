//! Next hops: dense ids for user values.
//!
//! The hot path of every algorithm carries [`NextHop`] ids, never user values. An id is a
//! non-zero `u32`, so `Option<NextHop>` is four bytes and "no route" costs nothing. Ids are
//! dense, starting at index 0, so a structure may store `index()` in as few bits as the table
//! needs. [`Interner`] maps any hashable value to an id and back; it allows up to
//! `u32::MAX` distinct values (indexes `0..=u32::MAX - 1`).

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroU32;

/// A dense next-hop id (index + 1, so that `Option<NextHop>` fits in four bytes).
///
/// `repr(transparent)` over `NonZeroU32`: `Option<NextHop>` has the layout of a `u32` (0 is
/// `None`), which [`as_raw_slots`] relies on.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(transparent)]
pub struct NextHop(NonZeroU32);

/// `out` seen as raw next hops (0 = no route), so a batch lookup can write raw values
/// without a conversion pass.
#[inline]
#[doc(hidden)]
pub fn as_raw_slots(out: &mut [Option<NextHop>]) -> &mut [u32] {
    // SAFETY: `Option<T>` of a `repr(transparent)` wrapper of `NonZeroU32` is guaranteed to
    // have the size, alignment and ABI of `u32`, `None` being 0; every `u32` is thus a valid
    // `Option<NextHop>`, so writes through the view cannot create an invalid value, and the
    // view borrows `out` mutably for its whole life.
    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u32, out.len()) }
}

impl NextHop {
    /// The largest index an id can hold.
    pub const MAX_INDEX: u32 = u32::MAX - 1;

    /// The id with the given dense index (`index <= MAX_INDEX`).
    #[inline]
    pub fn from_index(index: u32) -> NextHop {
        assert!(index <= Self::MAX_INDEX, "next-hop index {index} exceeds {}", Self::MAX_INDEX);
        // `index + 1` cannot overflow (checked above) and is non-zero.
        NextHop(NonZeroU32::new(index + 1).expect("index + 1 is non-zero"))
    }

    /// The dense index, starting at 0.
    #[inline]
    pub fn index(self) -> u32 {
        self.0.get() - 1
    }

    /// The raw non-zero encoding (`index + 1`); 0 means "no route" in packed arrays.
    #[inline]
    #[doc(hidden)]
    pub fn raw(self) -> u32 {
        self.0.get()
    }

    /// Decodes a raw value written by [`NextHop::raw`]; 0 gives `None`.
    #[inline]
    #[doc(hidden)]
    pub fn from_raw(raw: u32) -> Option<NextHop> {
        NonZeroU32::new(raw).map(NextHop)
    }
}

/// Error returned when an interner is full.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("more than {} distinct next hops", NextHop::MAX_INDEX as u64 + 1)]
pub struct TooManyNextHops;

/// Maps user values to dense [`NextHop`] ids and back.
#[derive(Clone, Debug)]
pub struct Interner<T> {
    ids: HashMap<T, NextHop>,
    values: Vec<T>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner { ids: HashMap::new(), values: Vec::new() }
    }
}

impl<T: Hash + Eq + Clone> Interner<T> {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `value`, assigning the next free one on first sight.
    pub fn intern(&mut self, value: T) -> Result<NextHop, TooManyNextHops> {
        if let Some(&id) = self.ids.get(&value) {
            return Ok(id);
        }
        let index = u32::try_from(self.values.len()).map_err(|_| TooManyNextHops)?;
        if index > NextHop::MAX_INDEX {
            return Err(TooManyNextHops);
        }
        let id = NextHop::from_index(index);
        self.ids.insert(value.clone(), id);
        self.values.push(value);
        Ok(id)
    }

    /// Like [`Interner::intern`] for a borrowed value; clones it only on first sight.
    #[doc(hidden)]
    pub fn intern_ref<Q>(&mut self, value: &Q) -> Result<NextHop, TooManyNextHops>
    where
        T: Borrow<Q>,
        Q: ?Sized + Hash + Eq + ToOwned<Owned = T>,
    {
        match self.ids.get(value) {
            Some(&id) => Ok(id),
            None => self.intern(value.to_owned()),
        }
    }

    /// The id already assigned to `value`, if any.
    pub fn get(&self, value: &T) -> Option<NextHop> {
        self.ids.get(value).copied()
    }

    /// The value behind an id.
    pub fn value(&self, id: NextHop) -> Option<&T> {
        self.values.get(id.index() as usize)
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// All values in id order.
    pub fn values(&self) -> &[T] {
        &self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_stable() {
        let mut i = Interner::new();
        let a = i.intern("a").unwrap();
        let b = i.intern("b").unwrap();
        assert_eq!(i.intern("a").unwrap(), a);
        assert_eq!((a.index(), b.index()), (0, 1));
        assert_eq!(i.value(b), Some(&"b"));
        assert_eq!(i.len(), 2);
        assert_eq!(i.get(&"c"), None);
    }

    #[test]
    fn many_values_beyond_16_bits() {
        let mut i = Interner::new();
        for v in 0..100_000u32 {
            assert_eq!(i.intern(v).unwrap().index(), v);
        }
        assert_eq!(i.value(NextHop::from_index(70_000)), Some(&70_000));
    }

    #[test]
    fn raw_round_trip() {
        assert_eq!(NextHop::from_raw(0), None);
        let h = NextHop::from_index(41);
        assert_eq!(NextHop::from_raw(h.raw()), Some(h));
        assert_eq!(std::mem::size_of::<Option<NextHop>>(), 4);
    }

    #[test]
    fn raw_slots_write_through() {
        let mut out = [Some(NextHop::from_index(3)), None, None];
        let raw = as_raw_slots(&mut out);
        assert_eq!(raw, &[4, 0, 0]);
        raw[0] = 0;
        raw[2] = 8;
        assert_eq!(out, [None, None, Some(NextHop::from_index(7))]);
    }
}
