//! The values of an [`IpTable`](super::IpTable): each distinct value stored once, known to
//! the lookup structures by a small id, and counted by the routes that carry it.
//!
//! Layout: `slots[id]` holds the value of `id` and how many routes carry it; `index` (a
//! hash table of ids, hashed and compared through their slots) finds the id of a value
//! without storing the value twice; `free` lists the ids of slots emptied by removals.
//!
//! Invariants: a slot holds a value exactly when its count is positive and its id is in
//! `index`; every id a lookup structure holds is such a live id (the table acquires an id
//! before a route carries it and releases it after the route is gone). An id freed here can
//! be handed out again at once: the table is changed only through `&mut`, so no lookup of
//! its own runs meanwhile.

use hashbrown::HashTable;
use std::hash::{BuildHasher, Hash, RandomState};

/// The most distinct values a table holds: ids take the 24 bits above the prefix length in
/// a next hop (see `hop.rs`).
pub(super) const MAX_VALUES: u32 = (1 << 24) - 1;

/// One value and the number of routes carrying it (`value` is `None` in a free slot).
#[derive(Clone)]
struct Slot<V> {
    value: Option<V>,
    routes: u32,
}

/// The distinct values of one table (see the module docs).
#[derive(Clone)]
pub(super) struct Values<V> {
    slots: Vec<Slot<V>>,
    free: Vec<u32>,
    index: HashTable<u32>,
    hasher: RandomState,
    /// `index` is empty and must be built before use (values read from a snapshot, whose
    /// lookups need no index: it is built by the first change).
    unindexed: bool,
}

/// Every id is taken ([`MAX_VALUES`] distinct values).
#[derive(Debug)]
pub(super) struct Full;

impl<V> Values<V> {
    pub(super) fn new() -> Self {
        Values {
            slots: Vec::new(),
            free: Vec::new(),
            index: HashTable::new(),
            hasher: RandomState::new(),
            unindexed: false,
        }
    }

    /// The values of a snapshot: `slots[id]` (`None`: a free id) carried by `routes[id]`
    /// routes; a value no route carries is dropped. The index is built by the first change.
    pub(super) fn from_slots(slots: Vec<Option<V>>, routes: &[u32]) -> Self {
        let mut free = Vec::new();
        let slots = slots
            .into_iter()
            .zip(routes)
            .enumerate()
            .map(|(id, (value, &routes))| match value.filter(|_| routes > 0) {
                Some(value) => Slot { value: Some(value), routes },
                None => {
                    free.push(id as u32);
                    Slot { value: None, routes: 0 }
                }
            })
            .collect();
        free.reverse(); // lowest ids reused first
        Values { slots, free, index: HashTable::new(), hasher: RandomState::new(), unindexed: true }
    }

    /// Every id's value in id order (`None`: a free id).
    pub(super) fn slots(&self) -> impl ExactSizeIterator<Item = Option<&V>> {
        self.slots.iter().map(|s| s.value.as_ref())
    }

    /// The value of a live id.
    #[inline]
    pub(super) fn get(&self, id: u32) -> Option<&V> {
        self.slots.get(id as usize)?.value.as_ref()
    }

    /// The number of distinct values.
    #[cfg(test)]
    pub(super) fn distinct(&self) -> usize {
        self.index.len()
    }

    /// Bytes of the slots and the index (not what the values own on the heap).
    pub(super) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<Slot<V>>()
            + self.free.capacity() * size_of::<u32>()
            + self.index.allocation_size()
    }
}

impl<V: Hash + Eq> Values<V> {
    /// The id of `value` with one more route carrying it; a new id when the value is new.
    pub(super) fn acquire(&mut self, value: V) -> Result<u32, Full> {
        self.build_index();
        let hash = self.hasher.hash_one(&value);
        let Values { slots, index, free, hasher, .. } = self;
        if let Some(&id) = index.find(hash, |&id| slots[id as usize].value.as_ref() == Some(&value))
        {
            slots[id as usize].routes += 1;
            return Ok(id);
        }
        let id = match free.pop() {
            Some(id) => id,
            None if slots.len() < MAX_VALUES as usize => {
                slots.push(Slot { value: None, routes: 0 });
                (slots.len() - 1) as u32
            }
            None => return Err(Full),
        };
        slots[id as usize] = Slot { value: Some(value), routes: 1 };
        index.insert_unique(hash, id, |&id| hasher.hash_one(live(slots, id)));
        Ok(id)
    }

    /// Builds the index of values read from a snapshot (once).
    fn build_index(&mut self) {
        if !std::mem::take(&mut self.unindexed) {
            return;
        }
        let Values { slots, index, hasher, .. } = self;
        for (id, slot) in slots.iter().enumerate() {
            if let Some(value) = &slot.value {
                let hash = hasher.hash_one(value);
                index.insert_unique(hash, id as u32, |&id| hasher.hash_one(live(slots, id)));
            }
        }
    }

    /// How many routes carry `value` (`None`: not stored), found through the index.
    #[cfg(test)]
    pub(super) fn routes_carrying(&self, value: &V) -> Option<u32> {
        let hash = self.hasher.hash_one(value);
        let id =
            self.index.find(hash, |&id| self.slots[id as usize].value.as_ref() == Some(value))?;
        Some(self.slots[*id as usize].routes)
    }

    /// One route fewer carries `id`: its value, cloned while other routes still carry it.
    pub(super) fn release(&mut self, id: u32) -> V
    where
        V: Clone,
    {
        match self.drop_route(id) {
            Some(value) => value,
            None => live(&self.slots, id).clone(),
        }
    }

    /// One route fewer carries `id`; the value when it was the last (the slot is freed).
    pub(super) fn drop_route(&mut self, id: u32) -> Option<V> {
        self.build_index();
        let slot = &mut self.slots[id as usize];
        debug_assert!(slot.routes > 0, "release of a free id {id}");
        slot.routes -= 1;
        if slot.routes > 0 {
            return None;
        }
        let value = slot.value.take().expect("a slot with routes holds its value");
        let hash = self.hasher.hash_one(&value);
        if let Ok(entry) = self.index.find_entry(hash, |&other| other == id) {
            entry.remove();
        }
        self.free.push(id);
        Some(value)
    }
}

/// The value of a live id.
fn live<V>(slots: &[Slot<V>], id: u32) -> &V {
    slots[id as usize].value.as_ref().expect("a live id holds its value")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_share_an_id_until_the_last_route_goes() {
        let mut values = Values::new();
        let a = values.acquire("a".to_string()).unwrap();
        let b = values.acquire("b".to_string()).unwrap();
        assert_ne!(a, b);
        assert_eq!(values.acquire("a".to_string()).unwrap(), a);
        assert_eq!(values.distinct(), 2);
        assert_eq!(values.release(a), "a", "shared: cloned");
        assert_eq!(values.get(a).map(String::as_str), Some("a"));
        assert_eq!(values.drop_route(a).as_deref(), Some("a"), "the last route takes it");
        assert_eq!(values.get(a), None);
        assert_eq!(values.distinct(), 1);
        let c = values.acquire("c".to_string()).unwrap();
        assert_eq!(c, a, "a freed id is reused");
        assert_eq!(values.acquire("a".to_string()).unwrap(), 2, "a new value takes a new slot");
        assert_eq!(values.distinct(), 3);
    }
}
