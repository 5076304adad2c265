//! Trace reading: real and generated captures, address lists, damaged input.

mod common;

use fibforge_io::{read_trace, read_trace_from};
use pcap_file::DataLink;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock;
use proptest::prelude::*;
use std::io::{Cursor, Write};
use std::time::Duration;

fn ipv4(dst: [u8; 4]) -> Vec<u8> {
    let mut p = vec![0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1];
    p.extend_from_slice(&dst);
    p
}

fn ipv6(dst: u128) -> Vec<u8> {
    let mut p = vec![0x60, 0, 0, 0, 0, 0, 17, 64];
    p.extend_from_slice(&[0; 16]);
    p.extend_from_slice(&dst.to_be_bytes());
    p
}

fn ethernet(ethertype: u16, vlan: bool, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0xaa; 12];
    if vlan {
        f.extend_from_slice(&[0x81, 0x00, 0x00, 0x64]);
    }
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

/// A pcap of Ethernet frames: IPv4, tagged IPv4, IPv6, ARP.
fn generated_pcap() -> Vec<u8> {
    let header = PcapHeader { datalink: DataLink::ETHERNET, ..Default::default() };
    let mut w = PcapWriter::with_header(Vec::new(), header).unwrap();
    let frames = [
        ethernet(0x0800, false, &ipv4([192, 0, 2, 1])),
        ethernet(0x0800, true, &ipv4([198, 51, 100, 2])),
        ethernet(0x86dd, false, &ipv6(0x2001_0db8 << 96 | 3)),
        ethernet(0x0806, false, &[0; 28]),
    ];
    for (i, f) in frames.iter().enumerate() {
        w.write_packet(&PcapPacket::new(Duration::from_secs(i as u64), f.len() as u32, f)).unwrap();
    }
    w.into_writer()
}

#[test]
fn generated_pcap_gives_the_destinations_in_order() {
    let t = read_trace_from(Cursor::new(generated_pcap()), "gen.pcap").unwrap();
    assert_eq!(t.v4, [0xC000_0201, 0xC633_6402]);
    assert_eq!(t.v6, [0x2001_0db8 << 96 | 3]);
    assert_eq!((t.packets, t.non_ip), (4, 1));
}

#[test]
fn generated_pcapng_with_two_link_types_is_read_gzipped() {
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    w.write_pcapng_block(InterfaceDescriptionBlock::new(DataLink::ETHERNET, 0xffff)).unwrap();
    w.write_pcapng_block(InterfaceDescriptionBlock::new(DataLink::RAW, 0xffff)).unwrap();
    let packets = [
        (0, ethernet(0x0800, true, &ipv4([192, 0, 2, 9]))),
        (1, ipv6(7)),
        (1, ipv4([10, 1, 2, 3])),
    ];
    for (interface_id, data) in &packets {
        let epb = EnhancedPacketBlock {
            interface_id: *interface_id,
            timestamp: Duration::ZERO,
            original_len: data.len() as u32,
            data: data.as_slice().into(),
            options: vec![],
        };
        w.write_pcapng_block(epb).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&w.into_inner()).unwrap();
    let t = read_trace_from(Cursor::new(gz.finish().unwrap()), "gen.pcapng.gz").unwrap();
    assert_eq!((t.v4, t.v6, t.non_ip), (vec![0xC000_0209, 0x0A01_0203], vec![7], 0));
}

#[test]
fn truncated_and_unsupported_captures_are_errors_with_the_packets_before() {
    let pcap = generated_pcap();
    let e = read_trace_from(Cursor::new(pcap[..pcap.len() - 3].to_vec()), "cut.pcap").unwrap_err();
    assert!(e.to_string().contains("packet 4"), "{e}");
    assert_eq!(e.partial.v4.len() + e.partial.v6.len(), 3);
    let header = PcapHeader { datalink: DataLink::IEEE802_11, ..Default::default() };
    let wifi = PcapWriter::with_header(Vec::new(), header).unwrap().into_writer();
    let e = read_trace_from(Cursor::new(wifi), "wifi.pcap").unwrap_err();
    assert!(e.to_string().contains("unsupported link type"), "{e}");
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn tcpreplay_test_capture() {
    let Some(shared) = common::shared_data() else { return };
    let t = read_trace(&shared.join("traces/tcpreplay-test.pcap")).unwrap();
    // Independently counted: 150 IPv4 + 6 IPv4-in-MPLS, 10 IPv6, and 13 frames without IP
    // (10 MPLS pseudowire frames, ARP, an 802.3/LLC frame, an Ethernet loopback frame).
    assert_eq!((t.packets, t.v4.len(), t.v6.len(), t.non_ip), (179, 156, 10, 13));
    assert_eq!(t.v4[0], u32::from(std::net::Ipv4Addr::new(74, 125, 19, 17)));
}

#[test]
fn shipped_address_list() {
    let t = read_trace(&common::repo_data().join("ipsum-2026-08-22.txt.gz")).unwrap();
    assert_eq!((t.v4.len(), t.v6.len()), (120_430, 0));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fibforge::verify::cases(300)))]
    /// Damaged captures give errors or fewer addresses, never a panic.
    #[test]
    fn damaged_captures_never_panic(cut in 0usize..200, flips in proptest::collection::vec((0usize..200, any::<u8>()), 0..4)) {
        let mut bytes = generated_pcap();
        for (at, value) in flips {
            let at = at % bytes.len();
            bytes[at] ^= value;
        }
        bytes.truncate(cut.min(bytes.len()));
        let _ = read_trace_from(Cursor::new(bytes), "damaged.pcap");
    }
}
