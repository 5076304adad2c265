//! The values of an [`IpTable`](super::IpTable): each distinct value stored once, known to
//! the lookup structures by a small id, and counted by the routes that carry it.
//!
//! Layout: the values themselves are in slots shared with the table's readers (`slots.rs`:
//! slots that never move, freed by grace periods); here, writer-side only, `routes[id]`
//! counts the routes carrying each id, and `index` (a hash table of ids, hashed and compared
//! through their slots) finds the id of a value without storing the value twice.
//!
//! Invariants: an id is *in use* exactly when its count is positive and it is in `index`;
//! every id a lookup structure holds is in use, or retired after the structures dropped its
//! last route (the table acquires an id before a route carries it and releases it after the
//! route is gone). When the last route goes the id leaves the index at once and its slot is
//! retired: without readers the value comes out and the id is free again at once (the table
//! is changed only through `&mut`, so no lookup of its own runs meanwhile); with readers the
//! value stays until their grace periods have passed (`Values::reclaim`, on later changes).

use super::slots::{Graces, ReadSlots, Slots};
use hashbrown::HashTable;
use std::hash::{BuildHasher, Hash, RandomState};

/// The most distinct values a table holds: ids take the 24 bits above the prefix length in
/// a next hop (see `hop.rs`).
pub(super) const MAX_VALUES: u32 = (1 << 24) - 1;

/// The distinct values of one table (see the module docs).
#[derive(Clone)]
pub(super) struct Values<V> {
    slots: Slots<V>,
    /// Routes carrying each created id (0: free or retired).
    routes: Vec<u32>,
    index: HashTable<u32>,
    hasher: RandomState,
    /// `index` is empty and must be built before use (values read from a snapshot, whose
    /// lookups need no index: the first change builds it).
    unindexed: bool,
}

/// Every id is taken ([`MAX_VALUES`] distinct values).
#[derive(Debug)]
pub(super) struct Full;

impl<V> Values<V> {
    pub(super) fn new() -> Self {
        Values {
            slots: Slots::new(),
            routes: Vec::new(),
            index: HashTable::new(),
            hasher: RandomState::new(),
            unindexed: false,
        }
    }

    /// The values of a snapshot: `values[id]` (`None`: a free id) carried by `routes[id]`
    /// routes (at most [`MAX_VALUES`] ids); a value no route carries is dropped and its id
    /// free. The index is built by the first change.
    pub(super) fn from_snapshot(mut values: Vec<Option<V>>, routes: Vec<u32>) -> Self {
        for (value, &count) in values.iter_mut().zip(&routes) {
            if count == 0 {
                *value = None;
            }
        }
        Values {
            slots: Slots::from_values(values),
            routes,
            index: HashTable::new(),
            hasher: RandomState::new(),
            unindexed: true,
        }
    }

    /// Every created id's value in id order (`None`: free, or retired: no route carries it).
    pub(super) fn in_use(&self) -> impl ExactSizeIterator<Item = Option<&V>> {
        let routes = self.routes.iter().enumerate();
        routes.map(|(id, &n)| if n > 0 { self.slots.get(id as u32) } else { None })
    }

    /// The value of an id a structure holds.
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Option<&V> {
        self.slots.get(id)
    }

    /// The number of distinct values.
    #[cfg(test)]
    pub(super) fn distinct(&self) -> usize {
        self.index.len()
    }

    /// Values no route carries that wait for the readers' grace periods.
    pub(super) fn retired(&self) -> usize {
        self.slots.retired()
    }

    /// True when some reader holds the values (changes then retire values by grace periods).
    pub(super) fn shared(&mut self) -> bool {
        !self.slots.unshared()
    }

    /// A reader's handle on the values.
    pub(super) fn share(&self) -> ReadSlots<V>
    where
        V: Send + Sync,
    {
        self.slots.share()
    }

    /// Drops the retired values whose grace period has passed.
    pub(super) fn reclaim(&mut self, graces: Graces<'_>) {
        self.slots.reclaim(graces);
    }

    /// Bytes of the slots, the counts and the index (not what the values own on the heap).
    pub(super) fn memory_bytes(&self) -> usize {
        self.slots.memory_bytes()
            + self.routes.capacity() * size_of::<u32>()
            + self.index.allocation_size()
    }
}

impl<V: Hash + Eq> Values<V> {
    /// The id of `value` with one more route carrying it; a new id when the value is new.
    pub(super) fn acquire(&mut self, value: V) -> Result<u32, Full> {
        self.build_index();
        let hash = self.hasher.hash_one(&value);
        let Values { slots, routes, index, hasher, .. } = self;
        if let Some(&id) = index.find(hash, |&id| slots.get(id) == Some(&value)) {
            routes[id as usize] += 1;
            return Ok(id);
        }
        let id = slots.insert(value).map_err(|_| Full)?;
        match routes.get_mut(id as usize) {
            Some(count) => *count = 1,
            None => routes.push(1),
        }
        index.insert_unique(hash, id, |&id| hasher.hash_one(live(slots, id)));
        Ok(id)
    }

    /// Builds the index of values read from a snapshot (once).
    fn build_index(&mut self) {
        if !std::mem::take(&mut self.unindexed) {
            return;
        }
        let Values { slots, routes, index, hasher, .. } = self;
        for (id, _) in routes.iter().enumerate().filter(|&(_, &n)| n > 0) {
            let hash = hasher.hash_one(live(slots, id as u32));
            index.insert_unique(hash, id as u32, |&id| hasher.hash_one(live(slots, id)));
        }
    }

    /// How many routes carry `value` (`None`: not stored), found through the index.
    #[cfg(test)]
    pub(super) fn routes_carrying(&self, value: &V) -> Option<u32> {
        let hash = self.hasher.hash_one(value);
        let id = self.index.find(hash, |&id| self.slots.get(id) == Some(value))?;
        Some(self.routes[*id as usize])
    }

    /// One route fewer carries `id` (the structures no longer hold it): its value, cloned
    /// while other routes still carry it or readers may still read it.
    pub(super) fn release(&mut self, id: u32, graces: Graces<'_>) -> V
    where
        V: Clone,
    {
        match self.drop_route(id, graces) {
            Released::Taken(value) => value,
            Released::Kept => live(&self.slots, id).clone(),
        }
    }

    /// One route fewer carries `id` (the structures no longer hold it); when it was the last,
    /// the id leaves the index and its slot is retired against `graces`.
    pub(super) fn drop_route(&mut self, id: u32, graces: Graces<'_>) -> Released<V> {
        self.build_index();
        let count = &mut self.routes[id as usize];
        debug_assert!(*count > 0, "release of an id no route carries: {id}");
        *count -= 1;
        if *count > 0 {
            return Released::Kept;
        }
        let hash = self.hasher.hash_one(live(&self.slots, id));
        if let Ok(entry) = self.index.find_entry(hash, |&other| other == id) {
            entry.remove();
        }
        match self.slots.retire(id, graces) {
            Some(value) => Released::Taken(value),
            None => Released::Kept,
        }
    }
}

/// What became of a released id's value.
pub(super) enum Released<V> {
    /// Taken out (the last route, no readers).
    Taken(V),
    /// Still in its slot: other routes carry it, or readers may read it until their grace
    /// period has passed.
    Kept,
}

/// The value of an id in use (or retired, until reclaimed).
fn live<V>(slots: &Slots<V>, id: u32) -> &V {
    slots.get(id).expect("a live id holds its value")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::Grace;

    #[test]
    fn equal_values_share_an_id_until_the_last_route_goes() {
        let g = [Grace::new(), Grace::new()];
        let graces = [&g[0], &g[1]];
        let mut values = Values::new();
        let a = values.acquire("a".to_string()).unwrap();
        let b = values.acquire("b".to_string()).unwrap();
        assert_ne!(a, b);
        assert_eq!(values.acquire("a".to_string()).unwrap(), a);
        assert_eq!(values.distinct(), 2);
        assert_eq!(values.release(a, graces), "a", "shared: cloned");
        assert_eq!(values.get(a).map(String::as_str), Some("a"));
        assert!(matches!(values.drop_route(a, graces), Released::Taken(v) if v == "a"));
        assert_eq!(values.get(a), None);
        assert_eq!(values.distinct(), 1);
        let c = values.acquire("c".to_string()).unwrap();
        assert_eq!(c, a, "a freed id is reused");
        assert_eq!(values.acquire("a".to_string()).unwrap(), 2, "a new value takes a new slot");
        assert_eq!(values.distinct(), 3);
    }

    #[test]
    fn with_a_reader_the_last_route_retires_the_value_and_a_removal_gets_a_clone() {
        let g = [Grace::new(), Grace::new()];
        let graces = [&g[0], &g[1]];
        let (r4, r6) = (g[0].register(), g[1].register());
        let mut values = Values::new();
        let a = values.acquire("a".to_string()).unwrap();
        let reader = values.share();
        assert!(values.shared());
        r4.online();
        r6.online();
        assert_eq!(values.release(a, graces), "a", "the last route: a clone");
        assert_eq!(reader.get(a).map(String::as_str), Some("a"), "kept for the reader");
        assert_eq!(values.distinct(), 0, "out of the index at once");
        assert_eq!(values.retired(), 1);
        let again = values.acquire("a".to_string()).unwrap();
        assert_ne!(again, a, "an equal value stored anew, the retired id not reused");
        r4.quiescent();
        r6.offline();
        values.reclaim(graces);
        assert_eq!((values.retired(), reader.get(a)), (0, None));
        assert_eq!(values.acquire("d".to_string()).unwrap(), a, "reused after the grace period");
    }
}
