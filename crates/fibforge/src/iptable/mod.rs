//! [`IpTable`]: the routing table a program embeds. Keys are `ipnet` networks of both
//! families in one table, values are the user's own type, and a lookup answers the matched
//! prefix with the value, at the speed of the compiled structure underneath.
//!
//! Layout: one concurrent table per family ([`AnyTable`]: its RIB, the truth, and its
//! compiled structure, Poptrie unless another is named), and the distinct values
//! (`values.rs`, their slots in `slots.rs`). The structures hold, as next hop, the value id
//! and the prefix length of each route (`hop.rs`); a lookup walks the structure once, reads
//! the value by id and rebuilds the matched network from the address and the length.
//! Readers on other threads ([`IpReader`], `reader.rs`) hold one reader of each family's
//! table and share the value slots.
//!
//! Invariants: both RIBs hold exactly the table's routes; every id a route carries is live
//! in the values, counted once per route; a failed change (a structural limit of the
//! compiled structure) leaves the table as it was. A value whose last route goes is retired
//! against the grace domains of both families' tables (every reader is registered with
//! both), after the structure's change is published, and freed on a later change once both
//! have passed (`slots.rs` states the whole protocol); the table never replaces its two
//! `AnyTable`s while a reader exists (the readers would be left on the old ones).

mod family;
mod hop;
mod iter;
mod keys;
mod lookup;
mod reader;
mod routes;
#[cfg(feature = "serde")]
mod serde;
mod slots;
#[cfg(feature = "serde")]
mod snapshot;
#[cfg(test)]
mod tests;
mod values;

pub use keys::AsIpNet;
pub use reader::{IpPinned, IpReader};
#[cfg(feature = "serde")]
pub(crate) use snapshot::MAGIC as SNAPSHOT_MAGIC;
#[cfg(feature = "serde")]
pub use snapshot::SnapshotError;

use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::registry::StructureError;
use crate::rib::Rib;
use crate::sync::{AnyKey, AnyTable, Structure};
use family::Family;
use ipnet::IpNet;
use slots::Graces;
use std::hash::Hash;
use values::{MAX_VALUES, Values};

/// A longest-prefix-match table of IPv4 and IPv6 networks with values of type `V`.
///
/// Networks are [`ipnet`] types ([`IpNet`], [`Ipv4Net`](ipnet::Ipv4Net),
/// [`Ipv6Net`](ipnet::Ipv6Net)); host bits of a network are ignored (`10.1.2.3/8` is
/// `10.0.0.0/8`). Equal values are stored once, however many networks carry them, so
/// changing a table needs `V: Clone + Eq + Hash` (a removal hands back a clone while other
/// networks still carry the value, or readers may still read it); lookups need nothing of
/// `V`, readers on other threads `V: Send + Sync`.
///
/// ```
/// use fibforge::IpTable;
/// use ipnet::IpNet;
/// use std::net::IpAddr;
///
/// let mut table: IpTable<&str> = IpTable::new(); // Poptrie underneath, both families
/// table.insert("10.0.0.0/8".parse::<IpNet>()?, "gw-a");
/// table.insert("10.1.0.0/16".parse::<IpNet>()?, "gw-b");
/// table.insert("2001:db8::/32".parse::<IpNet>()?, "gw-v6");
///
/// let (net, hop) = table.lookup("10.1.2.3".parse::<IpAddr>()?).unwrap(); // matched prefix and value
/// assert_eq!((net.to_string().as_str(), *hop), ("10.1.0.0/16", "gw-b"));
/// assert_eq!(table.lookup_value("2001:db8::1".parse::<IpAddr>()?), Some(&"gw-v6"));
/// assert_eq!(table.lookup("192.0.2.1".parse::<IpAddr>()?), None);
/// assert_eq!(table.remove("10.1.0.0/16".parse::<IpNet>()?), Some("gw-b"));
/// assert_eq!(table.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Readers on other threads
///
/// The table's owner changes it through `&mut`; other threads look up through an
/// [`IpReader`] each ([`IpTable::reader`], for `V: Send + Sync`), without locks, and see
/// every change the owner makes (at once, or from their next report where a change rebuilt
/// a structure). A reader must call:
///
/// - [`online`](IpReader::online) before its lookups (a lookup offline panics);
/// - [`quiescent`](IpReader::quiescent) between bursts, holding no answer (it takes
///   `&mut self`, so the borrow checker sees to that): the values and structure blocks the
///   table removed before may then be freed;
/// - [`offline`](IpReader::offline) when the thread idles ([`pin`](IpReader::pin) wraps a
///   burst: online, then a report).
///
/// A removed value stays readable until every reader online when it was removed has
/// reported (the removal hands back a clone meanwhile); the table frees it on a later
/// change and never waits. A reader online that never reports delays the freeing of removed
/// values and structure blocks (memory grows), it never makes a lookup unsafe.
///
/// ```
/// use fibforge::IpTable;
/// use ipnet::IpNet;
/// use std::net::Ipv4Addr;
///
/// let mut table: IpTable<String> = IpTable::new();
/// table.insert("10.0.0.0/8".parse::<IpNet>()?, "gw-a".to_string());
/// let mut reader = table.reader(); // one per thread (Send, not Sync)
/// let worker = std::thread::spawn(move || {
///     reader.online(); // before looking up
///     for _ in 0..1000 {
///         let (net, hop) = reader.lookup(Ipv4Addr::new(10, 1, 2, 3)).unwrap();
///         assert!(matches!((net.prefix_len(), hop.as_str()), (8, "gw-a") | (16, "gw-b")));
///         reader.quiescent(); // between bursts: no answer held
///     }
///     reader.offline(); // idle: the table no longer waits for this reader
/// });
/// table.insert("10.1.0.0/16".parse::<IpNet>()?, "gw-b".to_string()); // meanwhile
/// let old = table.remove("10.0.0.0/8".parse::<IpNet>()?); // "gw-a" is freed later
/// assert_eq!(old.as_deref(), Some("gw-a"));
/// worker.join().unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct IpTable<V> {
    v4: Family<u32>,
    v6: Family<u128>,
    structures: Structures,
    values: Values<V>,
}

/// The structure of each family (their options may differ by family).
#[derive(Clone, Debug)]
struct Structures {
    v4: Structure,
    v6: Structure,
}

/// Why a table could not be made or changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IpTableError {
    /// The structure named is unknown, not one a table can hold, or has a bad option.
    #[error(transparent)]
    Structure(#[from] StructureError),
    /// The compiled structure cannot hold the change (a structural limit); the table is
    /// unchanged.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The change would need more distinct values than a table holds; it is unchanged.
    #[error("a table holds at most {MAX_VALUES} distinct values")]
    TooManyValues,
}

impl<V> IpTable<V> {
    /// An empty table on the default structure (Poptrie).
    pub fn new() -> Self {
        let structures = Structures {
            v4: Structure::default_for::<u32>(),
            v6: Structure::default_for::<u128>(),
        };
        Self::empty(structures).expect("the default structure compiles an empty table")
    }

    /// An empty table on the structure `spec` names for both families: `"poptrie"` (the
    /// default), `"bplus"`, or either with options (`"poptrie:s=16"`, `"bplus:dir=off"`;
    /// `fibforge algos` lists them).
    pub fn with_structure(spec: &str) -> Result<Self, IpTableError> {
        let structures =
            Structures { v4: Structure::parse::<u32>(spec)?, v6: Structure::parse::<u128>(spec)? };
        Self::empty(structures)
    }

    fn empty(structures: Structures) -> Result<Self, IpTableError> {
        Self::compiled(Rib::new(), Rib::new(), structures, Values::new())
    }

    /// A table compiled from both RIBs (whose ids `values` holds).
    fn compiled(
        v4: Rib<u32>,
        v6: Rib<u128>,
        structures: Structures,
        values: Values<V>,
    ) -> Result<Self, IpTableError> {
        let v4 = Family::Live(AnyTable::new(v4, &structures.v4)?);
        let v6 = Family::Live(AnyTable::new(v6, &structures.v6)?);
        Ok(IpTable { v4, v6, structures, values })
    }

    /// The name of the compiled structure (`"poptrie"` or `"bplus"`).
    pub fn structure(&self) -> &'static str {
        self.structures.v4.name()
    }

    /// The number of networks.
    pub fn len(&self) -> usize {
        self.v4.len() + self.v6.len()
    }

    /// True when the table holds no network.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the compiled structures and the value slots (the RIBs and what values own
    /// on the heap are not counted; slots of removed values that wait for readers are).
    pub fn memory_bytes(&self) -> usize {
        self.v4.memory_bytes() + self.v6.memory_bytes() + self.values.memory_bytes()
    }

    /// Removed values that readers may still hold, kept until their grace period passes
    /// (freed on later changes).
    #[doc(hidden)]
    pub fn retired_values(&self) -> usize {
        self.values.retired()
    }

    /// The value of exactly this network (no longest match: see [`IpTable::lookup`]).
    pub fn get(&self, net: impl AsIpNet) -> Option<&V> {
        let hop = match net.as_ip_net() {
            IpNet::V4(n) => self.v4.rib().get(&keys::prefix4(n)),
            IpNet::V6(n) => self.v6.rib().get(&keys::prefix6(n)),
        };
        self.value_of(hop?)
    }

    /// The value of a next hop the table stored.
    #[inline]
    fn value_of(&self, hop: NextHop) -> Option<&V> {
        self.values.get(hop::decode(hop).0)
    }
}

impl<V: Clone + Eq + Hash> IpTable<V> {
    /// Inserts `net` with `value`, or replaces its value: the previous value.
    ///
    /// # Panics
    /// When the compiled structure cannot hold the change or the table would hold more than
    /// 16,777,215 distinct values; [`IpTable::try_insert`] returns these as errors.
    pub fn insert(&mut self, net: impl AsIpNet, value: V) -> Option<V> {
        self.try_insert(net, value).unwrap_or_else(|e| panic!("IpTable::insert: {e}"))
    }

    /// [`IpTable::insert`], with a structural limit or a full value table as an error (the
    /// table is then unchanged).
    pub fn try_insert(&mut self, net: impl AsIpNet, value: V) -> Result<Option<V>, IpTableError> {
        self.values.reclaim(graces(&self.v4, &self.v6));
        let id = self.values.acquire(value).map_err(|_| IpTableError::TooManyValues)?;
        let old = match net.as_ip_net() {
            IpNet::V4(n) => insert_route(&mut self.v4, &self.structures.v4, keys::prefix4(n), id),
            IpNet::V6(n) => insert_route(&mut self.v6, &self.structures.v6, keys::prefix6(n), id),
        };
        let graces = graces(&self.v4, &self.v6);
        match old {
            Ok(old) => Ok(old.map(|hop| self.values.release(hop::decode(hop).0, graces))),
            Err(e) => {
                // Retired, not freed at once: a failed update may have shown the route to a
                // reader for a moment before putting the structure back.
                self.values.drop_route(id, graces);
                Err(e.into())
            }
        }
    }

    /// Removes `net` (exactly this network): its value.
    ///
    /// # Panics
    /// When the compiled structure cannot make the change; see [`IpTable::try_remove`].
    pub fn remove(&mut self, net: impl AsIpNet) -> Option<V> {
        self.try_remove(net).unwrap_or_else(|e| panic!("IpTable::remove: {e}"))
    }

    /// [`IpTable::remove`], with a structural limit as an error (the table is then unchanged).
    pub fn try_remove(&mut self, net: impl AsIpNet) -> Result<Option<V>, IpTableError> {
        self.values.reclaim(graces(&self.v4, &self.v6));
        let old = match net.as_ip_net() {
            IpNet::V4(n) => self.v4.live(&self.structures.v4)?.remove(&keys::prefix4(n))?,
            IpNet::V6(n) => self.v6.live(&self.structures.v6)?.remove(&keys::prefix6(n))?,
        };
        let graces = graces(&self.v4, &self.v6);
        Ok(old.map(|hop| self.values.release(hop::decode(hop).0, graces)))
    }
}

/// The grace domains of both families' tables, which every reader is registered with.
fn graces<'t>(v4: &'t Family<u32>, v6: &'t Family<u128>) -> Graces<'t> {
    [v4.grace(), v6.grace()]
}

/// Stores the route `prefix` with value `id` in `table`: the previous next hop.
fn insert_route<A: AnyKey + routes::Routes>(
    family: &mut Family<A>,
    structure: &Structure,
    prefix: Prefix<A>,
    id: u32,
) -> Result<Option<NextHop>, BuildError> {
    family.live(structure)?.insert(prefix, hop::encode(id, prefix.len()))
}

impl<V> Default for IpTable<V> {
    fn default() -> Self {
        IpTable::new()
    }
}
