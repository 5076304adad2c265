//! What an [`IpTable`](super::IpTable) takes as a key, and the conversions between the
//! `ipnet` / `std::net` types users hold and the core's [`Prefix`] and integer addresses.
//!
//! A network with host bits set (`10.1.2.3/8`, which `ipnet` parses as written) names the
//! prefix its first bits give (`10.0.0.0/8`), as [`IpNet::trunc`] does.

use crate::prefix::Prefix;
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::net::{Ipv4Addr, Ipv6Addr};

/// A network an [`IpTable`](super::IpTable) method takes: [`IpNet`], [`Ipv4Net`] or
/// [`Ipv6Net`], by value or by reference.
pub trait AsIpNet {
    /// The network as an [`IpNet`].
    fn as_ip_net(&self) -> IpNet;
}

impl AsIpNet for IpNet {
    fn as_ip_net(&self) -> IpNet {
        *self
    }
}

impl AsIpNet for Ipv4Net {
    fn as_ip_net(&self) -> IpNet {
        IpNet::V4(*self)
    }
}

impl AsIpNet for Ipv6Net {
    fn as_ip_net(&self) -> IpNet {
        IpNet::V6(*self)
    }
}

impl<T: AsIpNet + ?Sized> AsIpNet for &T {
    fn as_ip_net(&self) -> IpNet {
        (**self).as_ip_net()
    }
}

/// The core's prefix of an IPv4 network (host bits dropped).
pub(super) fn prefix4(net: Ipv4Net) -> Prefix<u32> {
    Prefix::new_masked(u32::from(net.addr()), u32::from(net.prefix_len()))
        .expect("an Ipv4Net's length is at most 32")
}

/// The core's prefix of an IPv6 network (host bits dropped).
pub(super) fn prefix6(net: Ipv6Net) -> Prefix<u128> {
    Prefix::new_masked(u128::from(net.addr()), u32::from(net.prefix_len()))
        .expect("an Ipv6Net's length is at most 128")
}

/// The IPv4 network `addr/len` with the host bits of `addr` cleared (`len <= 32`, as the
/// table's next hops guarantee).
#[inline]
pub(super) fn net4(addr: u32, len: u8) -> Ipv4Net {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    Ipv4Net::new_assert(Ipv4Addr::from(addr & mask), len)
}

/// The IPv6 network `addr/len` with the host bits of `addr` cleared (`len <= 128`).
#[inline]
pub(super) fn net6(addr: u128, len: u8) -> Ipv6Net {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    Ipv6Net::new_assert(Ipv6Addr::from(addr & mask), len)
}

/// The `ipnet` network of a core prefix.
pub(super) fn net_of4(p: Prefix<u32>) -> IpNet {
    IpNet::V4(net4(p.addr(), p.len() as u8))
}

/// The `ipnet` network of a core prefix.
pub(super) fn net_of6(p: Prefix<u128>) -> IpNet {
    IpNet::V6(net6(p.addr(), p.len() as u8))
}
