//! Probe files: addresses with the RIB oracle's answers, to check a structure loaded elsewhere
//! (a GPU kernel, another process) against the truth (`docs/reference/export-format.md`, last section).

use super::{ExportError, malformed};
use crate::addr::Address;
use crate::rib::Rib;

/// The first eight bytes of a probe file.
#[doc(hidden)]
pub const PROBE_MAGIC: [u8; 8] = *b"FIBFPRB\0";
const PROBE_HEADER: usize = 24;

/// The bytes of a probe file holding `addrs` and the oracle's raw answer for each.
#[doc(hidden)]
pub fn write_probes<A: Address>(rib: &Rib<A>, addrs: &[A]) -> Vec<u8> {
    let width = (A::BITS / 8) as usize;
    let mut out = Vec::with_capacity(PROBE_HEADER + addrs.len() * (width + 4));
    out.extend_from_slice(&PROBE_MAGIC);
    out.extend_from_slice(&(if A::BITS == 32 { 4u32 } else { 6 }).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(addrs.len() as u64).to_le_bytes());
    for a in addrs {
        out.extend_from_slice(&a.to_u128().to_le_bytes()[..width]);
    }
    for &a in addrs {
        out.extend_from_slice(&rib.lookup(a).map_or(0, |h| h.raw()).to_le_bytes());
    }
    out
}

/// A probe file read back: addresses (as `u128`) and raw answers.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct ProbeFile {
    /// 4 or 6.
    pub family: u32,
    /// The addresses.
    pub addrs: Vec<u128>,
    /// The oracle's raw next hop for each (0 = no route).
    pub answers: Vec<u32>,
}

impl ProbeFile {
    /// Parses a probe file, checking its magic, family and length.
    pub fn from_bytes(b: &[u8]) -> Result<Self, ExportError> {
        if b.len() < PROBE_HEADER || b[..8] != PROBE_MAGIC {
            return Err(malformed("not a fibforge probe file", 0));
        }
        let family = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
        let width = match family {
            4 => 4,
            6 => 16,
            _ => return Err(malformed(format!("family {family}"), 8)),
        };
        let count = u64::from_le_bytes(b[16..24].try_into().expect("8 bytes"));
        let body = (b.len() - PROBE_HEADER) as u64;
        if count.checked_mul(width as u64 + 4) != Some(body) {
            return Err(malformed(format!("{count} probes in {body} bytes"), 16));
        }
        let (addr_bytes, answer_bytes) = b[PROBE_HEADER..].split_at(count as usize * width);
        let addrs = addr_bytes
            .chunks_exact(width)
            .map(|c| {
                let mut x = [0u8; 16];
                x[..width].copy_from_slice(c);
                u128::from_le_bytes(x)
            })
            .collect();
        let answers = answer_bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Ok(ProbeFile { family, addrs, answers })
    }
}
