//! Longest-prefix-match lookups of an [`IpTable`]: one address of either family, typed
//! single lookups per family, and batches per family (through the structure's batch walk).
//! The answers are built by the functions at the end, which [`IpReader`](super::IpReader)'s
//! lookups share.

use super::{IpTable, hop, keys};
use crate::nexthop::NextHop;
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Addresses a batch converts and walks at a time (on the stack).
const CHUNK: usize = 256;

impl<V> IpTable<V> {
    /// The longest network containing `addr`, with its value.
    #[inline(always)]
    pub fn lookup(&self, addr: impl Into<IpAddr>) -> Option<(IpNet, &V)> {
        match addr.into() {
            IpAddr::V4(a) => self.lookup_v4(a).map(|(n, v)| (IpNet::V4(n), v)),
            IpAddr::V6(a) => self.lookup_v6(a).map(|(n, v)| (IpNet::V6(n), v)),
        }
    }

    /// The value of the longest network containing `addr`.
    #[inline(always)]
    pub fn lookup_value(&self, addr: impl Into<IpAddr>) -> Option<&V> {
        let hop = match addr.into() {
            IpAddr::V4(a) => self.v4.lookup(u32::from(a)),
            IpAddr::V6(a) => self.v6.lookup(u128::from(a)),
        };
        self.value_of(hop?)
    }

    /// The longest IPv4 network containing `addr`, with its value.
    #[inline(always)]
    pub fn lookup_v4(&self, addr: Ipv4Addr) -> Option<(Ipv4Net, &V)> {
        let addr = u32::from(addr);
        answer(self.v4.lookup(addr), |id| self.values.get(id), |len| keys::net4(addr, len))
    }

    /// The longest IPv6 network containing `addr`, with its value.
    #[inline(always)]
    pub fn lookup_v6(&self, addr: Ipv6Addr) -> Option<(Ipv6Net, &V)> {
        let addr = u128::from(addr);
        answer(self.v6.lookup(addr), |id| self.values.get(id), |len| keys::net6(addr, len))
    }

    /// The answers for `addrs` written to `out` (`None`: no network contains the address),
    /// as [`IpTable::lookup_v4`] for each, through the structure's batch walk.
    ///
    /// # Panics
    /// When `out` is shorter than `addrs`.
    pub fn lookup_batch_v4<'t>(&'t self, addrs: &[Ipv4Addr], out: &mut [Option<(Ipv4Net, &'t V)>]) {
        batch_v4(addrs, out, |a, h| self.v4.lookup_batch(a, h), |id| self.values.get(id));
    }

    /// The answers for `addrs` written to `out`, as [`IpTable::lookup_v6`] for each, through
    /// the structure's batch walk.
    ///
    /// # Panics
    /// When `out` is shorter than `addrs`.
    pub fn lookup_batch_v6<'t>(&'t self, addrs: &[Ipv6Addr], out: &mut [Option<(Ipv6Net, &'t V)>]) {
        batch_v6(addrs, out, |a, h| self.v6.lookup_batch(a, h), |id| self.values.get(id));
    }
}

/// The network (from the stored length) and value (by id, through `value`) of a structure's
/// answer.
#[inline(always)]
pub(super) fn answer<'t, N, V: 't>(
    hop: Option<NextHop>,
    value: impl FnOnce(u32) -> Option<&'t V>,
    net: impl FnOnce(u8) -> N,
) -> Option<(N, &'t V)> {
    let (id, len) = hop::decode(hop?);
    Some((net(len), value(id)?))
}

/// A batch of IPv4 answers: `walk` is the structure's batch walk, `value` reads a value by id.
///
/// # Panics
/// When `out` is shorter than `addrs`.
pub(super) fn batch_v4<'t, V: 't>(
    addrs: &[Ipv4Addr],
    out: &mut [Option<(Ipv4Net, &'t V)>],
    mut walk: impl FnMut(&[u32], &mut [Option<NextHop>]),
    value: impl Fn(u32) -> Option<&'t V>,
) {
    assert!(out.len() >= addrs.len(), "output shorter than input");
    let (mut raw, mut hops) = ([0u32; CHUNK], [None; CHUNK]);
    for (addrs, out) in addrs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        let (raw, hops) = (&mut raw[..addrs.len()], &mut hops[..addrs.len()]);
        for (r, &a) in raw.iter_mut().zip(addrs) {
            *r = u32::from(a);
        }
        walk(raw, hops);
        for ((o, &h), &a) in out.iter_mut().zip(hops.iter()).zip(raw.iter()) {
            *o = answer(h, &value, |len| keys::net4(a, len));
        }
    }
}

/// A batch of IPv6 answers, as [`batch_v4`].
///
/// # Panics
/// When `out` is shorter than `addrs`.
pub(super) fn batch_v6<'t, V: 't>(
    addrs: &[Ipv6Addr],
    out: &mut [Option<(Ipv6Net, &'t V)>],
    mut walk: impl FnMut(&[u128], &mut [Option<NextHop>]),
    value: impl Fn(u32) -> Option<&'t V>,
) {
    assert!(out.len() >= addrs.len(), "output shorter than input");
    let (mut raw, mut hops) = ([0u128; CHUNK], [None; CHUNK]);
    for (addrs, out) in addrs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
        let (raw, hops) = (&mut raw[..addrs.len()], &mut hops[..addrs.len()]);
        for (r, &a) in raw.iter_mut().zip(addrs) {
            *r = u128::from(a);
        }
        walk(raw, hops);
        for ((o, &h), &a) in out.iter_mut().zip(hops.iter()).zip(raw.iter()) {
            *o = answer(h, &value, |len| keys::net6(a, len));
        }
    }
}
