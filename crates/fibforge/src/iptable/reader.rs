//! [`IpReader`]: an [`IpTable`]'s lookups on another thread while the table's owner changes
//! it, without locks, by the QSBR protocol of [`crate::sync`] (see [`Reader`](crate::sync::Reader)).
//!
//! Layout: one reader of each family's table ([`AnyReader`], registered with that table's
//! grace domain) and a handle on the table's value slots (`slots.rs`). The two readers go
//! online, report and go offline together, so the reader as a whole is online or offline.
//!
//! Invariants: a lookup answers only while the reader is online (it panics offline: an offline
//! reader is not waited for, so the value it would read may be freed under it); an answer
//! borrows the reader, and every method that ends a read-side section (`quiescent`,
//! `offline`, dropping an [`IpPinned`]) takes `&mut self`, so no `&V` outlives the report
//! that lets the writer free it. `Send` (for `V: Send + Sync`), never `Sync`: the registration
//! belongs to one thread at a time.

use super::lookup::{answer, batch_v4, batch_v6};
use super::slots::ReadSlots;
use super::{IpTable, hop, keys};
use crate::sync::{AnyKey, AnyReader};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::ops::Deref;

impl<V: Send + Sync> IpTable<V> {
    /// A reader of this table for another thread (registered, offline): see [`IpReader`].
    /// It sees every change the table makes from now on, as long as both live.
    pub fn reader(&self) -> IpReader<V> {
        let (v4, v6) = (self.v4.reader(&self.structures.v4), self.v6.reader(&self.structures.v6));
        IpReader { v4, v6, values: self.values.share() }
    }
}

/// Lookups in an [`IpTable`] from another thread, while the table's owner changes it: one
/// reader per thread, made by [`IpTable::reader`] (or [`Clone`], which registers another).
///
/// What a reader must call, and when (the QSBR protocol of [`crate::sync`]):
///
/// - [`online`](Self::online) before looking up: lookups then only walk the structures and
///   read the value, no synchronisation. A lookup on an offline reader panics.
/// - [`quiescent`](Self::quiescent) between bursts of lookups, when no answer is held (the
///   borrow checker sees to it: it takes `&mut self`): values and structure blocks the table
///   removed before the call may now be freed, and the reader moves to the table's latest
///   state (changes made in place show at once; a structure rebuilt or moved shows at the
///   next report).
/// - [`offline`](Self::offline) before the thread idles or blocks: the table stops waiting
///   for it.
/// - [`pin`](Self::pin): a guard that is online for its lifetime (a burst), then reports.
///
/// A reader online that never reports never makes a lookup unsafe, but the table keeps every
/// value and structure block it removes since, until the reader reports, goes offline or is
/// dropped: memory grows. The table never waits for a reader.
///
/// `Send` when `V: Send + Sync` (values are read on the reader's thread, and the last holder
/// drops them), never `Sync`:
///
/// ```compile_fail,E0277
/// fn shared<T: Sync>(_: &T) {}
/// let table: fibforge::IpTable<String> = fibforge::IpTable::new();
/// shared(&table.reader());
/// ```
///
/// and an answer cannot be held across a report:
///
/// ```compile_fail,E0502
/// let table: fibforge::IpTable<String> = fibforge::IpTable::new();
/// let mut reader = table.reader();
/// reader.online();
/// let answer = reader.lookup(std::net::Ipv4Addr::LOCALHOST);
/// reader.quiescent();
/// drop(answer);
/// ```
pub struct IpReader<V> {
    v4: AnyReader<u32>,
    v6: AnyReader<u128>,
    values: ReadSlots<V>,
}

impl<V> Clone for IpReader<V> {
    /// Another reader of the same table, registered separately and offline.
    fn clone(&self) -> Self {
        IpReader { v4: self.v4.clone(), v6: self.v6.clone(), values: self.values.clone() }
    }
}

impl<V> fmt::Debug for IpReader<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IpReader").field("online", &self.v4.is_online()).finish_non_exhaustive()
    }
}

impl<V> IpReader<V> {
    /// Goes online: from now on the table keeps what it removes until this reader reports
    /// ([`quiescent`](Self::quiescent)), goes offline or is dropped. Lookups need it.
    #[inline]
    pub fn online(&mut self) {
        self.v4.online();
        self.v6.online();
    }

    /// Goes offline (before the thread idles): the table stops waiting for this reader;
    /// lookups panic until it goes online again.
    #[inline]
    pub fn offline(&mut self) {
        self.v4.offline();
        self.v6.offline();
    }

    /// Reports a quiescent state (no answer is held: `&mut self` sees to it): what the table
    /// removed before may now be freed, and the reader sees the table's latest state. Cheap
    /// (a load, and a store when the table changed since); does nothing while offline.
    #[inline]
    pub fn quiescent(&mut self) {
        self.v4.quiescent();
        self.v6.quiescent();
    }

    /// A burst of lookups: the guard is online until dropped, and dropping it reports a
    /// quiescent state (or goes back offline, if the reader was offline before).
    pub fn pin(&mut self) -> IpPinned<'_, V> {
        let was_online = self.v4.is_online();
        self.online();
        IpPinned { reader: self, was_online }
    }

    /// The longest network containing `addr`, with its value, as [`IpTable::lookup`].
    ///
    /// # Panics
    /// When the reader is offline.
    #[inline(always)]
    pub fn lookup(&self, addr: impl Into<IpAddr>) -> Option<(IpNet, &V)> {
        match addr.into() {
            IpAddr::V4(a) => self.lookup_v4(a).map(|(n, v)| (IpNet::V4(n), v)),
            IpAddr::V6(a) => self.lookup_v6(a).map(|(n, v)| (IpNet::V6(n), v)),
        }
    }

    /// The value of the longest network containing `addr`.
    ///
    /// # Panics
    /// When the reader is offline.
    #[inline(always)]
    pub fn lookup_value(&self, addr: impl Into<IpAddr>) -> Option<&V> {
        let hop = match addr.into() {
            IpAddr::V4(a) => online(&self.v4).lookup(u32::from(a)),
            IpAddr::V6(a) => online(&self.v6).lookup(u128::from(a)),
        };
        self.values.get(hop::decode(hop?).0)
    }

    /// The longest IPv4 network containing `addr`, with its value.
    ///
    /// # Panics
    /// When the reader is offline.
    #[inline(always)]
    pub fn lookup_v4(&self, addr: Ipv4Addr) -> Option<(Ipv4Net, &V)> {
        let addr = u32::from(addr);
        let hop = online(&self.v4).lookup(addr);
        answer(hop, |id| self.values.get(id), |len| keys::net4(addr, len))
    }

    /// The longest IPv6 network containing `addr`, with its value.
    ///
    /// # Panics
    /// When the reader is offline.
    #[inline(always)]
    pub fn lookup_v6(&self, addr: Ipv6Addr) -> Option<(Ipv6Net, &V)> {
        let addr = u128::from(addr);
        let hop = online(&self.v6).lookup(addr);
        answer(hop, |id| self.values.get(id), |len| keys::net6(addr, len))
    }

    /// The answers for `addrs` written to `out`, as [`IpTable::lookup_batch_v4`].
    ///
    /// # Panics
    /// When the reader is offline, or `out` is shorter than `addrs`.
    pub fn lookup_batch_v4<'r>(&'r self, addrs: &[Ipv4Addr], out: &mut [Option<(Ipv4Net, &'r V)>]) {
        let v4 = online(&self.v4);
        batch_v4(addrs, out, |a, h| v4.lookup_batch(a, h), |id| self.values.get(id));
    }

    /// The answers for `addrs` written to `out`, as [`IpTable::lookup_batch_v6`].
    ///
    /// # Panics
    /// When the reader is offline, or `out` is shorter than `addrs`.
    pub fn lookup_batch_v6<'r>(&'r self, addrs: &[Ipv6Addr], out: &mut [Option<(Ipv6Net, &'r V)>]) {
        let v6 = online(&self.v6);
        batch_v6(addrs, out, |a, h| v6.lookup_batch(a, h), |id| self.values.get(id));
    }
}

/// `reader`, which must be online: a value read through an answer of an offline reader could
/// be freed while in use (the table does not wait for offline readers).
#[inline(always)]
fn online<A: AnyKey>(reader: &AnyReader<A>) -> &AnyReader<A> {
    if !reader.is_online() {
        offline_lookup();
    }
    reader
}

#[cold]
#[inline(never)]
fn offline_lookup() -> ! {
    panic!("IpReader: lookup while offline (call online() or pin() first)")
}

/// An [`IpReader`] kept online for a burst of lookups ([`IpReader::pin`]); its lookups are the
/// reader's (through `Deref`). Dropping it reports a quiescent state, or takes the reader back
/// offline if it was offline before.
pub struct IpPinned<'r, V> {
    reader: &'r mut IpReader<V>,
    was_online: bool,
}

impl<V> Deref for IpPinned<'_, V> {
    type Target = IpReader<V>;

    fn deref(&self) -> &IpReader<V> {
        self.reader
    }
}

impl<V> Drop for IpPinned<'_, V> {
    fn drop(&mut self) {
        if self.was_online {
            self.reader.quiescent();
        } else {
            self.reader.offline();
        }
    }
}

impl<V> fmt::Debug for IpPinned<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IpPinned").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(s: &str) -> IpNet {
        s.parse().unwrap()
    }

    #[test]
    fn a_reader_sees_changes_and_keeps_removed_values_until_it_reports() {
        let mut table: IpTable<String> = IpTable::new();
        table.insert(net("10.0.0.0/8"), "a".to_string());
        let mut reader = table.reader();
        let other = reader.clone();
        reader.online();
        let v4: Ipv4Addr = "10.1.2.3".parse().unwrap();
        assert_eq!(reader.lookup_value(v4).map(String::as_str), Some("a"));
        table.insert(net("10.1.0.0/16"), "b".to_string());
        table.insert(net("2001:db8::/32"), "c".to_string());
        reader.quiescent(); // a structure the insertions moved shows at the next report
        assert_eq!(reader.lookup(v4), Some((net("10.1.0.0/16"), &"b".to_string())));
        let v6: Ipv6Addr = "2001:db8::1".parse().unwrap();
        assert_eq!(reader.lookup_v6(v6).map(|(_, v)| v.as_str()), Some("c"));
        assert_eq!(table.remove(net("10.1.0.0/16")).as_deref(), Some("b"), "a clone");
        assert_eq!(table.retired_values(), 1, "the reader is online: kept");
        table.insert(net("192.0.2.0/24"), "d".to_string());
        assert_eq!(table.retired_values(), 1, "still kept: no report yet");
        reader.quiescent();
        table.insert(net("192.0.2.0/24"), "e".to_string());
        assert_eq!(table.retired_values(), 1, "d retired now, b reclaimed");
        reader.offline();
        table.remove(net("192.0.2.0/24"));
        assert_eq!(table.retired_values(), 1, "e retired (readers exist), d reclaimed");
        drop((reader, other));
        table.insert(net("198.51.100.0/24"), "f".to_string());
        assert_eq!(table.retired_values(), 0, "no readers left: all reclaimed");
    }

    #[test]
    fn batches_and_pins() {
        let mut table: IpTable<u32> = IpTable::new();
        table.insert(net("10.0.0.0/8"), 1);
        table.insert(net("2001:db8::/32"), 2);
        let mut reader = table.reader();
        {
            let pinned = reader.pin();
            let addrs: Vec<Ipv4Addr> =
                vec!["10.0.0.1".parse().unwrap(), "11.0.0.1".parse().unwrap()];
            let mut out = vec![None; 2];
            pinned.lookup_batch_v4(&addrs, &mut out);
            assert_eq!(out, vec![Some(("10.0.0.0/8".parse().unwrap(), &1)), None]);
            let addrs: Vec<Ipv6Addr> = vec!["2001:db8::1".parse().unwrap()];
            let mut out = vec![None; 1];
            pinned.lookup_batch_v6(&addrs, &mut out);
            assert_eq!(out, vec![Some(("2001:db8::/32".parse().unwrap(), &2))]);
        }
        assert!(!reader.v4.is_online() && !reader.v6.is_online(), "back offline");
        reader.online();
        drop(reader.pin());
        assert!(reader.v4.is_online() && reader.v6.is_online(), "still online");
    }

    #[test]
    #[should_panic(expected = "lookup while offline")]
    fn an_offline_lookup_panics() {
        let table: IpTable<u32> = IpTable::new();
        table.reader().lookup(Ipv4Addr::LOCALHOST);
    }

    #[test]
    fn a_reader_is_send_and_the_table_as_sendable_and_shareable_as_its_values() {
        fn send<T: Send>(_: &T) {}
        fn sync<T: Sync>(_: &T) {}
        send(&IpTable::<String>::new().reader());
        let table = IpTable::<String>::new();
        send(&table);
        sync(&table);
        // No stricter than before readers: a `Vec<V>` inside made the table `Send` for
        // `V: Send` and `Sync` for `V: Sync`.
        send(&IpTable::<std::cell::Cell<u32>>::new());
        sync(&IpTable::<std::sync::MutexGuard<'static, u32>>::new());
    }
}
