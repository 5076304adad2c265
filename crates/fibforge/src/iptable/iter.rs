//! Walking an [`IpTable`] (all networks, those covering or inside one) and building one from
//! an iterator: into an empty table the routes go to the RIBs first and are compiled once,
//! as fast as a fresh build; into a non-empty one they are inserted one by one.

use super::keys::{self, AsIpNet};
use super::values::Values;
use super::{IpTable, IpTableError, hop};
use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use ipnet::IpNet;
use std::fmt;
use std::hash::Hash;

impl<V> IpTable<V> {
    /// Every network with its value: IPv4 first, each family in prefix order (by address,
    /// then shorter before longer).
    pub fn iter(&self) -> impl Iterator<Item = (IpNet, &V)> + '_ {
        let v4 = self.v4.rib().iter().map(|(p, h)| (keys::net_of4(p), h));
        let v6 = self.v6.rib().iter().map(|(p, h)| (keys::net_of6(p), h));
        v4.chain(v6).map(|(net, hop)| (net, self.stored(hop)))
    }

    /// The networks that contain `net` (itself included), shortest first.
    pub fn covering(&self, net: impl AsIpNet) -> impl Iterator<Item = (IpNet, &V)> + '_ {
        let (v4, v6) = by_family(net.as_ip_net());
        let v4 = v4.into_iter().flat_map(|p| self.v4.rib().covering(&p).map(ipv4));
        let v6 = v6.into_iter().flat_map(|p| self.v6.rib().covering(&p).map(ipv6));
        v4.chain(v6).map(|(net, hop)| (net, self.stored(hop)))
    }

    /// The networks inside `net` (itself included), in prefix order.
    pub fn covered(&self, net: impl AsIpNet) -> impl Iterator<Item = (IpNet, &V)> + '_ {
        let (v4, v6) = by_family(net.as_ip_net());
        let v4 = v4.into_iter().flat_map(|p| self.v4.rib().covered(&p).map(ipv4));
        let v6 = v6.into_iter().flat_map(|p| self.v6.rib().covered(&p).map(ipv6));
        v4.chain(v6).map(|(net, hop)| (net, self.stored(hop)))
    }

    /// The value of a next hop held in a RIB (always live: see the module invariants).
    fn stored(&self, hop: NextHop) -> &V {
        self.value_of(hop).expect("every route's value id is live")
    }
}

/// The prefix of `net` in its family's slot (the other `None`).
fn by_family(net: IpNet) -> (Option<Prefix<u32>>, Option<Prefix<u128>>) {
    match net {
        IpNet::V4(n) => (Some(keys::prefix4(n)), None),
        IpNet::V6(n) => (None, Some(keys::prefix6(n))),
    }
}

fn ipv4((p, hop): (Prefix<u32>, NextHop)) -> (IpNet, NextHop) {
    (keys::net_of4(p), hop)
}

fn ipv6((p, hop): (Prefix<u128>, NextHop)) -> (IpNet, NextHop) {
    (keys::net_of6(p), hop)
}

impl<V: Clone + Eq + Hash> IpTable<V> {
    /// Adds every `(network, value)` of `routes` (a later value for the same network
    /// replaces an earlier one). Into an empty table without [readers](IpTable::reader) the
    /// routes are compiled at once.
    pub fn try_extend<N: AsIpNet>(
        &mut self,
        routes: impl IntoIterator<Item = (N, V)>,
    ) -> Result<(), IpTableError> {
        // A fresh compile replaces the structures, which readers must keep seeing.
        if !self.is_empty() || self.values.shared() {
            for (net, value) in routes {
                self.try_insert(net, value)?;
            }
            return Ok(());
        }
        let mut values = Values::new();
        let (mut v4, mut v6) = (Rib::new(), Rib::new());
        for (net, value) in routes {
            let id = values.acquire(value).map_err(|_| IpTableError::TooManyValues)?;
            let old = match net.as_ip_net() {
                IpNet::V4(n) => add(&mut v4, keys::prefix4(n), id),
                IpNet::V6(n) => add(&mut v6, keys::prefix6(n), id),
            };
            if let Some(old) = old {
                // No reader holds the new values: a value no route carries goes at once.
                values.drop_route(hop::decode(old).0, [self.v4.grace(), self.v6.grace()]);
            }
        }
        *self = IpTable::compiled(v4, v6, self.structures.clone(), values)?;
        Ok(())
    }
}

/// Stores the route `prefix` with value `id` in `rib`: the previous next hop.
fn add<A: Address>(rib: &mut Rib<A>, prefix: Prefix<A>, id: u32) -> Option<NextHop> {
    rib.insert(prefix, hop::encode(id, prefix.len()))
}

impl<N: AsIpNet, V: Clone + Eq + Hash> Extend<(N, V)> for IpTable<V> {
    /// See [`IpTable::try_extend`].
    ///
    /// # Panics
    /// Where [`IpTable::insert`] does.
    fn extend<I: IntoIterator<Item = (N, V)>>(&mut self, routes: I) {
        self.try_extend(routes).unwrap_or_else(|e| panic!("IpTable::extend: {e}"))
    }
}

impl<N: AsIpNet, V: Clone + Eq + Hash> FromIterator<(N, V)> for IpTable<V> {
    /// A table on the default structure, compiled once from all the routes.
    fn from_iter<I: IntoIterator<Item = (N, V)>>(routes: I) -> Self {
        let mut table = IpTable::new();
        table.extend(routes);
        table
    }
}

impl<V: Clone> Clone for IpTable<V> {
    /// The same routes and values, compiled again on the same structure.
    fn clone(&self) -> Self {
        let (v4, v6) = (self.v4.rib().clone(), self.v6.rib().clone());
        IpTable::compiled(v4, v6, self.structures.clone(), self.values.clone())
            .expect("routes that compiled once compile again")
    }
}

impl<V: fmt::Debug> fmt::Debug for IpTable<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
