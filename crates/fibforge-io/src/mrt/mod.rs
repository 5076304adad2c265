//! MRT (RFC 6396) routing dumps: RIB snapshots and BGP update streams.
//!
//! [`MrtReader`] turns a byte stream into [`MrtEntry`] items, one per prefix:
//!
//! | type | subtypes read | module |
//! |---|---|---|
//! | TABLE_DUMP (12) | AFI_IPv4, AFI_IPv6, incl. the batched RIS-2000 layout | `table_dump.rs` |
//! | TABLE_DUMP_V2 (13) | PEER_INDEX_TABLE, RIB_IPV4/IPV6_UNICAST, their ADD-PATH forms | `table_dump_v2.rs` |
//! | BGP4MP (16), BGP4MP_ET (17) | MESSAGE, MESSAGE_AS4, _LOCAL and _ADDPATH forms | `bgp4mp.rs` |
//! | BGP (5, deprecated) | BGP_UPDATE | `bgp4mp.rs` |
//!
//! UPDATE messages (`update.rs`) give withdrawals and announcements, IPv6 through
//! MP_REACH_NLRI / MP_UNREACH_NLRI (`attributes.rs`), each route with its origin AS from
//! AS_PATH / AS4_PATH (`as_path.rs` states the rule), unicast and multicast ([`Safi`]: the
//! table loader keeps unicast only); state changes, OPEN, KEEPALIVE and NOTIFICATION messages
//! and other SAFIs are skipped (counted in [`MrtStats::skipped_records`] when a whole record is).
//!
//! **Damage.** The first thing that does not decode ends the iteration with
//! [`ReadError::Binary`] naming the byte offset (in the decompressed stream) and the problem,
//! after every entry decoded before that byte was yielded (including the earlier prefixes
//! of the damaged record, as bgpdump prints them). Nothing panics, nothing loops, and a length
//! field can make the reader allocate no more than the stream really holds (and never more
//! than [`MAX_RECORD_LEN`]).

mod as_path;
mod attributes;
mod bgp4mp;
mod cursor;
// Crate-visible so that `table` can name `Peer` without importing the reader above it.
pub(crate) mod entry;
mod load;
mod nlri;
mod record;
mod table_dump;
mod table_dump_v2;
mod update;

pub use entry::{EntryKind, MrtEntry, Peer, Safi};
pub use load::read_mrt_table;
pub use record::MAX_RECORD_LEN;

use crate::error::ReadError;
use bgp4mp::Outcome;
use cursor::{Cursor, Decoded, Malformed};
use record::{FrameError, Header, RecordReader};
use std::io::Read;

/// True when `head` (the first bytes of a decompressed stream) starts with an MRT header of
/// a type this reader decodes. Text never does: its bytes 4–5 are never a small number.
pub fn looks_like_mrt(head: &[u8]) -> bool {
    let Some(bytes) = head.first_chunk::<{ record::HEADER_LEN }>() else { return false };
    let h = Header::parse(bytes, 0);
    record::is_routing_type(h.kind) && h.subtype < 64 && h.length <= MAX_RECORD_LEN
}

/// The error for a stream read as MRT (binary content, or an `.mrt` name) whose first
/// header is not one of a routing record: names what the header holds.
pub fn not_mrt(head: &[u8], name: &str) -> ReadError {
    let reason = match head.first_chunk::<{ record::HEADER_LEN }>() {
        None => format!(
            "binary data of {} bytes, too short for an MRT record header (12 bytes) and not a \
             text table",
            head.len()
        ),
        Some(bytes) => {
            let h = Header::parse(bytes, 0);
            format!(
                "not a text table (binary data: {}) and its first MRT record header is damaged \
                 or not of a routing record: type {}, subtype {}, length {} (routing types: 5, \
                 12, 13, 16, 17; lengths up to {MAX_RECORD_LEN})",
                crate::error::quote(head),
                h.kind,
                h.subtype,
                h.length
            )
        }
    };
    ReadError::Binary { source_name: name.into(), offset: 0, reason }
}

/// Counters of what the reader saw.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MrtStats {
    /// Records read (decoded or skipped).
    pub records: u64,
    /// Records of types or subtypes that carry no unicast routes (state changes, KEEPALIVE,
    /// OSPF, multicast RIBs, ...).
    pub skipped_records: u64,
    /// Whether the file uses the RIS-2000 TABLE_DUMP length quirk (see `table_dump.rs`).
    pub table_dump_length_quirk: bool,
}

/// Iterator over the entries of an MRT stream (already decompressed: see [`crate::open()`]).
pub struct MrtReader<R> {
    name: String,
    records: RecordReader<R>,
    peers: Option<Vec<Peer>>,
    /// Decided on the first TABLE_DUMP record: `Some(true)` for the RIS-2000 layout.
    length_quirk: Option<bool>,
    decoded: Vec<MrtEntry>,
    next: usize,
    done: bool,
    /// The error to report once the entries decoded before it are yielded.
    error: Option<ReadError>,
    stats: MrtStats,
}

impl<R: Read> MrtReader<R> {
    /// A reader of `input`; `name` is used in error messages.
    pub fn new(input: R, name: &str) -> Self {
        MrtReader {
            name: name.to_string(),
            records: RecordReader::new(input),
            peers: None,
            length_quirk: None,
            decoded: Vec::new(),
            next: 0,
            done: false,
            error: None,
            stats: MrtStats::default(),
        }
    }

    /// The peers of the last PEER_INDEX_TABLE read (TABLE_DUMP_V2 files), if any.
    pub fn peer_index_table(&self) -> Option<&[Peer]> {
        self.peers.as_deref()
    }

    /// What was read so far.
    pub fn stats(&self) -> MrtStats {
        self.stats
    }

    /// Reads and decodes the next record into `decoded`; `Ok(false)` at the end.
    fn read_record(&mut self) -> Result<bool, ReadError> {
        let header = match self.records.read_header() {
            Ok(Some(h)) => h,
            Ok(None) => return Ok(false),
            Err(e) => return Err(self.frame_error(e)),
        };
        self.check_header(&header).map_err(|m| self.malformed(m))?;
        self.read_body(&header)?;
        self.stats.records += 1;
        let outcome = self.decode(&header).map_err(|m| self.malformed(m))?;
        if outcome == Outcome::Skipped {
            self.stats.skipped_records += 1;
        }
        Ok(true)
    }

    fn check_header(&self, h: &Header) -> Decoded<()> {
        let reason = if !record::is_assigned_type(h.kind) {
            format!(
                "unknown MRT record type {} (subtype {}, length {})",
                h.kind, h.subtype, h.length
            )
        } else if h.length > MAX_RECORD_LEN {
            format!("record length {} exceeds the {} byte limit", h.length, MAX_RECORD_LEN)
        } else {
            return Ok(());
        };
        Err(Malformed { offset: h.offset, reason: reason.into() })
    }

    /// Reads the body, applying the TABLE_DUMP length quirk when the file has it.
    fn read_body(&mut self, h: &Header) -> Result<(), ReadError> {
        let stated = h.length as usize;
        let quirk = h.kind == record::TYPE_TABLE_DUMP && self.length_quirk == Some(true);
        let want = stated + if quirk { 4 } else { 0 };
        let got = self.records.read_body(want).map_err(|e| self.frame_error(e))?;
        if got < want {
            let reason = format!(
                "record truncated: {want} body bytes expected, the stream ends after {got}"
            );
            return Err(self.malformed(Malformed {
                offset: h.body_offset() + got as u64,
                reason: reason.into(),
            }));
        }
        if h.kind == record::TYPE_TABLE_DUMP && self.length_quirk.is_none() {
            self.decide_length_quirk(h)?;
        }
        Ok(())
    }

    /// First TABLE_DUMP record: do its entries end at the stated length, or 4 bytes later?
    fn decide_length_quirk(&mut self, h: &Header) -> Result<(), ReadError> {
        if table_dump::entries_fill(h.subtype, &self.records.body) {
            self.length_quirk = Some(false);
            return Ok(());
        }
        let stated = self.records.body.len();
        self.records.append_body(4).map_err(|e| self.frame_error(e))?;
        if self.records.body.len() == stated + 4
            && table_dump::entries_fill(h.subtype, &self.records.body)
        {
            self.length_quirk = Some(true);
            self.stats.table_dump_length_quirk = true;
        } else {
            // Neither layout fits: decode the stated length, which reports the damage.
            self.records.body.truncate(stated);
        }
        Ok(())
    }

    fn decode(&mut self, h: &Header) -> Decoded<Outcome> {
        let mut cur = Cursor::new(&self.records.body, h.body_offset());
        let mut time_us = u64::from(h.timestamp) * 1_000_000;
        let out = &mut self.decoded;
        match h.kind {
            record::TYPE_BGP4MP_ET => {
                time_us += u64::from(cur.u32("BGP4MP_ET microseconds")?);
                bgp4mp::read_bgp4mp(h.subtype, cur, time_us, out)
            }
            record::TYPE_BGP4MP => bgp4mp::read_bgp4mp(h.subtype, cur, time_us, out),
            record::TYPE_BGP_LEGACY => bgp4mp::read_legacy_bgp(h.subtype, cur, time_us, out),
            record::TYPE_TABLE_DUMP => table_dump::read_table_dump(h.subtype, cur, time_us, out),
            record::TYPE_TABLE_DUMP_V2 if table_dump_v2::is_peer_index_table(h.subtype) => {
                self.peers = Some(table_dump_v2::read_peer_index_table(cur)?);
                Ok(Outcome::Read)
            }
            record::TYPE_TABLE_DUMP_V2 => {
                table_dump_v2::read_rib(h.subtype, cur, time_us, self.peers.as_deref(), out)
            }
            _ => Ok(Outcome::Skipped),
        }
    }

    fn malformed(&self, m: Malformed) -> ReadError {
        ReadError::Binary {
            source_name: self.name.clone(),
            offset: m.offset,
            reason: m.reason.into_owned(),
        }
    }

    fn frame_error(&self, e: FrameError) -> ReadError {
        match e {
            FrameError::Io { offset, err } => ReadError::Io {
                source_name: format!("{}: at byte offset {offset}", self.name),
                err,
            },
            FrameError::TruncatedHeader { offset, got } => self.malformed(Malformed {
                offset,
                reason: format!("stream ends inside a record header ({got} of 12 bytes)").into(),
            }),
        }
    }
}

impl<R: Read> Iterator for MrtReader<R> {
    type Item = Result<MrtEntry, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(&entry) = self.decoded.get(self.next) {
                self.next += 1;
                return Some(Ok(entry));
            }
            if self.done {
                return self.error.take().map(Err);
            }
            self.decoded.clear();
            self.next = 0;
            match self.read_record() {
                Ok(true) => {}
                Ok(false) => self.done = true,
                Err(e) => {
                    self.done = true;
                    self.error = Some(e);
                }
            }
        }
    }
}

impl<R: Read> std::iter::FusedIterator for MrtReader<R> {}
