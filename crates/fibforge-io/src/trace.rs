//! Destination addresses for lookup benchmarks, from packet captures or address lists.
//!
//! Formats, chosen by content after decompression (gzip/bzip2 are fine):
//! - **pcap** (all four magics: micro/nanosecond, either byte order) and **pcapng** (read with
//!   the `pcap-file` crate); per packet, the link layer is peeled off and the IP destination
//!   taken. Link types: Ethernet (1, with any number of 802.1Q / 802.1ad / QinQ tags and MPLS
//!   label stacks), raw IP (101, 228 IPv4, 229 IPv6), Linux cooked capture v1 (113) and v2
//!   (276), BSD loopback (0 and 108). Packets that carry no IP (ARP, LLC, pseudowires, frames
//!   cut before the destination field) are counted in [`Trace::non_ip`]; a capture with
//!   another link type is an error.
//! - **text**: one address per line (IPv4 or IPv6, the first column; more columns, blank lines
//!   and `#` comments are ignored).
//!
//! Errors name the packet number or line; the addresses read before are kept
//! ([`TraceError::partial`]).

use crate::error::ReadError;
use crate::open::{open_reader, peek};
use pcap_file::DataLink;
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::{Block, PcapNgReader};
use std::io::{BufRead, Read};
use std::net::IpAddr;
use std::path::Path;

/// Destination addresses in file order, per family.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// IPv4 destinations.
    pub v4: Vec<u32>,
    /// IPv6 destinations.
    pub v6: Vec<u128>,
    /// Packets read (0 for text lists).
    pub packets: u64,
    /// Packets without an IP destination.
    pub non_ip: u64,
}

impl Trace {
    fn push(&mut self, addr: IpAddr) {
        match addr {
            IpAddr::V4(a) => self.v4.push(a.into()),
            IpAddr::V6(a) => self.v6.push(a.into()),
        }
    }
}

/// A failed read: the error and the addresses read before it.
#[derive(Debug)]
pub struct TraceError {
    /// What went wrong, and where.
    pub error: ReadError,
    /// Everything read before.
    pub partial: Box<Trace>,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.partial.v4.len() + self.partial.v6.len();
        write!(f, "{} ({kept} addresses read before it were kept)", self.error)
    }
}

impl std::error::Error for TraceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

const PCAP_MAGICS: [[u8; 4]; 4] = [
    [0xd4, 0xc3, 0xb2, 0xa1],
    [0xa1, 0xb2, 0xc3, 0xd4],
    [0x4d, 0x3c, 0xb2, 0xa1],
    [0xa1, 0xb2, 0x3c, 0x4d],
];
const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

/// Reads a trace file (see the module documentation).
pub fn read_trace(path: &Path) -> Result<Trace, TraceError> {
    let name = path.display().to_string();
    let fail = |error| TraceError { error, partial: Box::default() };
    let file = std::fs::File::open(path)
        .map_err(|err| fail(ReadError::Io { source_name: name.clone(), err }))?;
    read_trace_from(file, &name)
}

/// Reads a trace from any byte source; `name` is used in errors.
pub fn read_trace_from<R: Read + Send + 'static>(
    source: R,
    name: &str,
) -> Result<Trace, TraceError> {
    let fail = |error| TraceError { error, partial: Box::default() };
    let input = open_reader(source, name).map_err(fail)?;
    let (head, input) = peek(input, 4, name).map_err(fail)?;
    let mut trace = Trace::default();
    let result = if PCAP_MAGICS.iter().any(|m| head == m) {
        read_pcap(input, name, &mut trace)
    } else if head == PCAPNG_MAGIC {
        read_pcapng(input, name, &mut trace)
    } else {
        read_address_list(input, name, &mut trace)
    };
    match result {
        Ok(()) => Ok(trace),
        Err(error) => Err(TraceError { error, partial: Box::new(trace) }),
    }
}

fn capture_error(name: &str, packet: u64, err: impl std::fmt::Display) -> ReadError {
    ReadError::Content { source_name: name.into(), reason: format!("packet {packet}: {err}") }
}

fn read_pcap(input: impl Read, name: &str, trace: &mut Trace) -> Result<(), ReadError> {
    let mut reader = PcapReader::new(input).map_err(|e| capture_error(name, 0, e))?;
    let link = LinkType::of(reader.header().datalink)
        .ok_or_else(|| unsupported(name, reader.header().datalink))?;
    while let Some(packet) = reader.next_packet() {
        let packet = packet.map_err(|e| capture_error(name, trace.packets + 1, e))?;
        add_packet(trace, link, &packet.data);
    }
    Ok(())
}

fn read_pcapng(input: impl Read, name: &str, trace: &mut Trace) -> Result<(), ReadError> {
    let mut reader = PcapNgReader::new(input).map_err(|e| capture_error(name, 0, e))?;
    let mut links: Vec<Option<LinkType>> = Vec::new();
    while let Some(block) = reader.next_block() {
        let (interface, data) =
            match block.map_err(|e| capture_error(name, trace.packets + 1, e))? {
                Block::SectionHeader(_) => {
                    links.clear();
                    continue;
                }
                Block::InterfaceDescription(idb) => {
                    links.push(LinkType::of(idb.linktype));
                    continue;
                }
                Block::EnhancedPacket(epb) => (epb.interface_id as usize, epb.data),
                Block::SimplePacket(spb) => (0, spb.data),
                Block::Packet(pb) => (usize::from(pb.interface_id), pb.data),
                _ => continue,
            };
        let link = match links.get(interface) {
            Some(Some(link)) => *link,
            Some(None) => {
                return Err(capture_error(
                    name,
                    trace.packets + 1,
                    "interface of an unsupported link type",
                ));
            }
            None => {
                return Err(capture_error(
                    name,
                    trace.packets + 1,
                    format!("no interface {interface}"),
                ));
            }
        };
        add_packet(trace, link, &data);
    }
    Ok(())
}

fn unsupported(name: &str, link: DataLink) -> ReadError {
    let reason = format!(
        "unsupported link type {link:?} (Ethernet, raw IP, Linux SLL and loopback are read)"
    );
    ReadError::Content { source_name: name.into(), reason }
}

fn add_packet(trace: &mut Trace, link: LinkType, frame: &[u8]) {
    trace.packets += 1;
    match destination(link, frame) {
        Some(addr) => trace.push(addr),
        None => trace.non_ip += 1,
    }
}

/// How to find the network layer in a frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum LinkType {
    Ethernet,
    RawIp,
    LinuxSll,
    LinuxSll2,
    /// A 4-byte address-family header, then IP.
    Loopback,
}

impl LinkType {
    fn of(link: DataLink) -> Option<LinkType> {
        Some(match link {
            DataLink::ETHERNET => LinkType::Ethernet,
            DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => LinkType::RawIp,
            DataLink::LINUX_SLL => LinkType::LinuxSll,
            DataLink::LINUX_SLL2 => LinkType::LinuxSll2,
            DataLink::NULL | DataLink::LOOP => LinkType::Loopback,
            _ => return None,
        })
    }
}

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;
const ETHERTYPE_VLAN: [u16; 3] = [0x8100, 0x88a8, 0x9100];
const ETHERTYPE_MPLS: [u16; 2] = [0x8847, 0x8848];

/// The IP destination of a frame, if it carries IP.
fn destination(link: LinkType, frame: &[u8]) -> Option<IpAddr> {
    let (ethertype, rest) = match link {
        LinkType::RawIp => return ip_destination(frame),
        LinkType::Loopback => return ip_destination(frame.get(4..)?),
        LinkType::Ethernet => (be16(frame, 12)?, frame.get(14..)?),
        LinkType::LinuxSll => (be16(frame, 14)?, frame.get(16..)?),
        LinkType::LinuxSll2 => (be16(frame, 0)?, frame.get(20..)?),
    };
    after_ethertype(ethertype, rest)
}

/// Follows VLAN tags and MPLS labels to the IP header.
fn after_ethertype(mut ethertype: u16, mut rest: &[u8]) -> Option<IpAddr> {
    while ETHERTYPE_VLAN.contains(&ethertype) {
        ethertype = be16(rest, 2)?;
        rest = rest.get(4..)?;
    }
    match ethertype {
        ETHERTYPE_IPV4 | ETHERTYPE_IPV6 => ip_destination(rest),
        t if ETHERTYPE_MPLS.contains(&t) => {
            // Label stack entries of 4 bytes until the bottom-of-stack bit.
            while rest.get(2)? & 1 == 0 {
                rest = rest.get(4..)?;
            }
            ip_destination(rest.get(4..)?)
        }
        _ => None,
    }
}

/// The destination of an IPv4 or IPv6 header (by its version nibble).
fn ip_destination(packet: &[u8]) -> Option<IpAddr> {
    match packet.first()? >> 4 {
        4 => {
            let b: [u8; 4] = packet.get(16..20)?.try_into().ok()?;
            Some(IpAddr::from(b))
        }
        6 => {
            let b: [u8; 16] = packet.get(24..40)?.try_into().ok()?;
            Some(IpAddr::from(b))
        }
        _ => None,
    }
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn read_address_list(input: impl BufRead, name: &str, trace: &mut Trace) -> Result<(), ReadError> {
    for (i, line) in input.split(b'\n').enumerate() {
        let line =
            line.map_err(|err| ReadError::Io { source_name: format!("{name}:{}", i + 1), err })?;
        let Some(first) = line.split(|b| b.is_ascii_whitespace()).find(|c| !c.is_empty()) else {
            continue;
        };
        if first.starts_with(b"#") {
            continue;
        }
        let addr = std::str::from_utf8(first)
            .ok()
            .and_then(|t| t.parse::<IpAddr>().ok())
            .ok_or_else(|| {
                let reason = format!("'{}' is not an IP address", String::from_utf8_lossy(first));
                ReadError::Line { source_name: name.into(), line: i as u64 + 1, reason }
            })?;
        trace.push(addr);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ipv4_packet(dst: [u8; 4]) -> Vec<u8> {
        let mut p = vec![0x45, 0, 0, 20, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1];
        p.extend_from_slice(&dst);
        p
    }

    #[test]
    fn peels_vlan_tags_mpls_labels_and_cooked_headers() {
        let ip = ipv4_packet([192, 0, 2, 7]);
        let want = Some(IpAddr::from([192, 0, 2, 7]));
        let mut eth = vec![0; 12];
        eth.extend_from_slice(&[0x81, 0x00, 0, 5, 0x88, 0x47, 0, 0, 0, 0, 0, 0, 1, 0]);
        eth.extend_from_slice(&ip);
        assert_eq!(destination(LinkType::Ethernet, &eth), want);
        let mut sll = vec![0; 14];
        sll.extend_from_slice(&[0x08, 0x00]);
        sll.extend_from_slice(&ip);
        assert_eq!(destination(LinkType::LinuxSll, &sll), want);
        assert_eq!(destination(LinkType::RawIp, &ip), want);
        assert_eq!(destination(LinkType::RawIp, &ip[..19]), None, "cut short");
        assert_eq!(destination(LinkType::Ethernet, &eth[..20]), None);
    }

    #[test]
    fn reads_address_lists_and_names_bad_lines() {
        let list = "# feed\n192.0.2.1\t10\n\n2001:db8::1\n";
        let t = read_trace_from(std::io::Cursor::new(list), "l").unwrap();
        assert_eq!((t.v4, t.v6), (vec![0xC000_0201], vec![0x2001_0db8 << 96 | 1]));
        let e = read_trace_from(std::io::Cursor::new("192.0.2.1\nnope\n"), "l").unwrap_err();
        assert!(e.to_string().contains("l:2") && e.partial.v4.len() == 1, "{e}");
    }
}
