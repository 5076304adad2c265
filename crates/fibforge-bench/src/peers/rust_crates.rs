//! Rust crates from crates.io as peers, each behind its cargo feature:
//!
//! | crate | feature | row | structure |
//! |---|---|---|---|
//! | `prefix-trie` 0.9 | `peer-prefix-trie` | `prefix_trie` | `PrefixMap<(uN, u8), _>`, `get_lpm` |
//! | `ip_network_table` 0.2 | `peer-ip-network-table` | `ip_network_table` | `IpNetworkTable`, `longest_match_ipv4/6` (tree bitmap) |
//! | `poptrie` 0.2 | `peer-poptrie` | `poptrie_crate` | `Poptrie<(uN, u8), _>` collected from the routes |
//! | `ip_network_table-deps-treebitmap` 0.5 | `peer-treebitmap` | `treebitmap` | `IpLookupTable<IpvNAddr, _>`, `longest_match` (tree bitmap) |
//!
//! `ip_network_table-deps-treebitmap` is the fork of the `treebitmap` crate that
//! `ip_network_table` is built on (the original is not in our registry); its table is used
//! directly here, one per family.
//!
//! All four handle IPv4 and IPv6. They store our [`NextHop`] ids as values and answer
//! through their single-address lookup (none has a batch API: batch rows are not measured).
//! Their memory is the heap growth of the build, measured by the runner (only `treebitmap`
//! counts its own bytes, `mem_usage`; that count goes in the row's note).

use super::{Built, Peer, PeerError, Variant};
use fibforge::{Address, Lookup, NextHop, Rib};

/// `Ok(description)` when the crate is built in, else why not.
pub fn availability(peer: Peer) -> Result<String, String> {
    let (built, what) = match peer {
        Peer::PrefixTrie => (cfg!(feature = "peer-prefix-trie"), "prefix-trie 0.9"),
        Peer::IpNetworkTable => (cfg!(feature = "peer-ip-network-table"), "ip_network_table 0.2"),
        Peer::PoptrieCrate => (cfg!(feature = "peer-poptrie"), "poptrie 0.2"),
        Peer::TreeBitmap => {
            (cfg!(feature = "peer-treebitmap"), "ip_network_table-deps-treebitmap 0.5")
        }
        _ => return Err(format!("{peer} is not a Rust crate peer")),
    };
    if built {
        Ok(format!("{what} (crates.io)"))
    } else {
        Err(format!("not built in: cargo feature for {what} disabled"))
    }
}

fn variant<A: Address>(
    peer: Peer,
    algo: &'static str,
    build: fn(&Rib<A>) -> Result<Built<A>, PeerError>,
) -> Variant<A> {
    Variant { peer, algo, single: true, batch: false, build }
}

fn built<A: Address>(fib: impl Lookup<A> + 'static) -> Result<Built<A>, PeerError> {
    Ok(Built { fib: Box::new(fib), memory: None, note: None, compile_ms: None })
}

/// The IPv4 rows of `peer`.
pub fn variants_v4(peer: Peer) -> Result<Vec<Variant<u32>>, String> {
    availability(peer)?;
    Ok(match peer {
        #[cfg(feature = "peer-prefix-trie")]
        Peer::PrefixTrie => vec![variant(peer, "prefix_trie", |r| built(pt::Trie::new(r)))],
        #[cfg(feature = "peer-ip-network-table")]
        Peer::IpNetworkTable => {
            vec![variant(peer, "ip_network_table", |r| built(ipnt::Table::v4(r)))]
        }
        #[cfg(feature = "peer-poptrie")]
        Peer::PoptrieCrate => vec![variant(peer, "poptrie_crate", |r| built(pop::Trie::new(r)))],
        #[cfg(feature = "peer-treebitmap")]
        Peer::TreeBitmap => vec![variant(peer, "treebitmap", |r| tbm::built(tbm::Table::v4(r)))],
        _ => Vec::new(),
    })
}

/// The IPv6 rows of `peer`.
pub fn variants_v6(peer: Peer) -> Result<Vec<Variant<u128>>, String> {
    availability(peer)?;
    Ok(match peer {
        #[cfg(feature = "peer-prefix-trie")]
        Peer::PrefixTrie => vec![variant(peer, "prefix_trie", |r| built(pt::Trie::new(r)))],
        #[cfg(feature = "peer-ip-network-table")]
        Peer::IpNetworkTable => {
            vec![variant(peer, "ip_network_table", |r| built(ipnt::Table::v6(r)))]
        }
        #[cfg(feature = "peer-poptrie")]
        Peer::PoptrieCrate => vec![variant(peer, "poptrie_crate", |r| built(pop::Trie::new(r)))],
        #[cfg(feature = "peer-treebitmap")]
        Peer::TreeBitmap => vec![variant(peer, "treebitmap", |r| tbm::built(tbm::Table::v6(r)))],
        _ => Vec::new(),
    })
}

#[cfg(feature = "peer-prefix-trie")]
mod pt {
    use super::*;
    use prefix_trie::PrefixMap;

    /// `prefix_trie::PrefixMap` keyed by `(address, length)`.
    pub struct Trie<A: Address>(PrefixMap<(A, u8), NextHop>);

    impl<A: Address> Trie<A>
    where
        (A, u8): prefix_trie::Prefix,
    {
        pub fn new(rib: &Rib<A>) -> Self {
            let mut m = PrefixMap::new();
            for (p, hop) in rib.iter() {
                m.insert((p.addr(), p.len() as u8), hop);
            }
            Trie(m)
        }
    }

    impl<A: Address> Lookup<A> for Trie<A>
    where
        (A, u8): prefix_trie::Prefix,
        PrefixMap<(A, u8), NextHop>: Send + Sync,
    {
        #[inline]
        fn lookup(&self, addr: A) -> Option<NextHop> {
            self.0.get_lpm(&(addr, A::BITS as u8)).map(|(_, &h)| h)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }
}

#[cfg(feature = "peer-ip-network-table")]
mod ipnt {
    use super::*;
    use ip_network::{Ipv4Network, Ipv6Network};
    use ip_network_table::IpNetworkTable;
    use std::marker::PhantomData;

    /// `ip_network_table::IpNetworkTable` holding one family.
    pub struct Table<A>(IpNetworkTable<NextHop>, PhantomData<A>);

    impl Table<u32> {
        pub fn v4(rib: &Rib<u32>) -> Self {
            let mut t = IpNetworkTable::new();
            for (p, hop) in rib.iter() {
                let net = Ipv4Network::new(p.addr().to_std(), p.len() as u8)
                    .expect("a canonical prefix is a valid network");
                t.insert(net, hop);
            }
            Table(t, PhantomData)
        }
    }

    impl Table<u128> {
        pub fn v6(rib: &Rib<u128>) -> Self {
            let mut t = IpNetworkTable::new();
            for (p, hop) in rib.iter() {
                let net = Ipv6Network::new(p.addr().to_std(), p.len() as u8)
                    .expect("a canonical prefix is a valid network");
                t.insert(net, hop);
            }
            Table(t, PhantomData)
        }
    }

    impl Lookup<u32> for Table<u32> {
        #[inline]
        fn lookup(&self, addr: u32) -> Option<NextHop> {
            self.0.longest_match_ipv4(addr.to_std()).map(|(_, &h)| h)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }

    impl Lookup<u128> for Table<u128> {
        #[inline]
        fn lookup(&self, addr: u128) -> Option<NextHop> {
            self.0.longest_match_ipv6(addr.to_std()).map(|(_, &h)| h)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }
}

#[cfg(feature = "peer-poptrie")]
mod pop {
    use super::*;
    use poptrie::Poptrie;

    /// `poptrie::Poptrie` keyed by `(address, length)`, collected in one go.
    pub struct Trie<A: Address>(Poptrie<(A, u8), NextHop>)
    where
        A: poptrie::Address;

    impl<A: Address + poptrie::Address> Trie<A> {
        pub fn new(rib: &Rib<A>) -> Self {
            Trie(rib.iter().map(|(p, hop)| ((p.addr(), p.len() as u8), hop)).collect())
        }
    }

    impl<A: Address + poptrie::Address> Lookup<A> for Trie<A>
    where
        Poptrie<(A, u8), NextHop>: Send + Sync,
    {
        #[inline]
        fn lookup(&self, addr: A) -> Option<NextHop> {
            self.0.lookup(addr).copied()
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }
}

#[cfg(feature = "peer-treebitmap")]
mod tbm {
    use super::*;
    use ip_network_table_deps_treebitmap::IpLookupTable;
    use ip_network_table_deps_treebitmap::address::Address as TbmAddress;
    use std::net::{Ipv4Addr, Ipv6Addr};

    /// `IpLookupTable` of one family (`Ipv4Addr` or `Ipv6Addr` keys), built route by route.
    pub struct Table<S: TbmAddress>(IpLookupTable<S, NextHop>);

    impl Table<Ipv4Addr> {
        pub fn v4(rib: &Rib<u32>) -> Self {
            let mut t = IpLookupTable::new();
            for (p, hop) in rib.iter() {
                t.insert(p.addr().to_std(), p.len(), hop);
            }
            Table(t)
        }
    }

    impl Table<Ipv6Addr> {
        pub fn v6(rib: &Rib<u128>) -> Self {
            let mut t = IpLookupTable::new();
            for (p, hop) in rib.iter() {
                t.insert(p.addr().to_std(), p.len(), hop);
            }
            Table(t)
        }
    }

    /// The table with the crate's own count of its bytes in the note (the row's memory is
    /// the heap growth of the build, as for the other crates).
    pub fn built<A: Address, S: TbmAddress>(t: Table<S>) -> Result<Built<A>, PeerError>
    where
        Table<S>: Lookup<A> + 'static,
    {
        let (nodes, results) = t.0.mem_usage();
        let note = format!("mem_usage(): {nodes} node bytes + {results} result bytes");
        Ok(Built { fib: Box::new(t), memory: None, note: Some(note), compile_ms: None })
    }

    impl Lookup<u32> for Table<Ipv4Addr> {
        #[inline]
        fn lookup(&self, addr: u32) -> Option<NextHop> {
            self.0.longest_match(addr.to_std()).map(|(_, _, &h)| h)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }

    impl Lookup<u128> for Table<Ipv6Addr> {
        #[inline]
        fn lookup(&self, addr: u128) -> Option<NextHop> {
            self.0.longest_match(addr.to_std()).map(|(_, _, &h)| h)
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }
}
