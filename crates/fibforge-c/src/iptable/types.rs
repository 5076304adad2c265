//! The C structs of the dual-family table: a prefix of either family and a route.

use crate::error::{Error, Status};
use crate::handle::Ip6;
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::net::{Ipv4Addr, Ipv6Addr};

/// `fibforge_prefix`: a prefix of either family (24 bytes).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CPrefix {
    /// 4 or 6.
    pub family: u8,
    /// The prefix length: 0..=32 or 0..=128.
    pub len: u8,
    /// Zero.
    pub reserved: [u8; 2],
    /// Family 4: the address in host byte order (10.1.2.3 is `0x0a010203`).
    pub addr4: u32,
    /// Family 6: the address, most significant byte first.
    pub addr6: Ip6,
}

/// `fibforge_route`: a prefix and its next hop (a cursor's item).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CRoute {
    /// The route's prefix.
    pub prefix: CPrefix,
    /// Its next hop.
    pub next_hop: u32,
}

/// The IPv4 network `addr/len`, refused when the length exceeds 32 or host bits are set.
pub fn net4(addr: u32, len: u8) -> Result<Ipv4Net, Error> {
    let net = Ipv4Net::new(Ipv4Addr::from(addr), len)
        .map_err(|_| invalid(format!("IPv4 prefix length {len} exceeds 32")))?;
    if net.network() != net.addr() {
        return Err(invalid(format!("{net} has host bits set (the network is {})", net.trunc())));
    }
    Ok(net)
}

/// The IPv6 network `addr/len`, refused when the length exceeds 128 or host bits are set.
pub fn net6(addr: Ip6, len: u8) -> Result<Ipv6Net, Error> {
    let net = Ipv6Net::new(Ipv6Addr::from(addr.bytes), len)
        .map_err(|_| invalid(format!("IPv6 prefix length {len} exceeds 128")))?;
    if net.network() != net.addr() {
        return Err(invalid(format!("{net} has host bits set (the network is {})", net.trunc())));
    }
    Ok(net)
}

impl CPrefix {
    /// The network this C prefix names (family 4 or 6, length in range, no host bits).
    pub fn to_net(&self) -> Result<IpNet, Error> {
        match self.family {
            4 => Ok(IpNet::V4(net4(self.addr4, self.len)?)),
            6 => Ok(IpNet::V6(net6(self.addr6, self.len)?)),
            other => Err(invalid(format!("prefix family {other} is neither 4 nor 6"))),
        }
    }

    /// The C form of a network.
    pub fn of(net: IpNet) -> Self {
        match net {
            IpNet::V4(n) => CPrefix {
                family: 4,
                len: n.prefix_len(),
                addr4: n.addr().into(),
                ..CPrefix::default()
            },
            IpNet::V6(n) => CPrefix {
                family: 6,
                len: n.prefix_len(),
                addr6: Ip6 { bytes: n.addr().octets() },
                ..CPrefix::default()
            },
        }
    }
}

fn invalid(message: String) -> Error {
    Error::new(Status::Invalid, message)
}
