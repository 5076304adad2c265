//! Update streams: announcements and withdrawals in file order, for replaying route changes.
//!
//! Two sources, chosen by content like tables (see [`crate::read_table`]):
//! - MRT update files (BGP4MP, BGP4MP_ET, legacy BGP; see [`crate::mrt`]): every unicast
//!   prefix of every UPDATE, with its peer; multicast routes are left out, [`PeerFilter`]
//!   selects peers. A RIB dump read this way announces each of its routes.
//! - text, one update per line: `unixtime a|w prefix [nexthop]` (the format of the LINX
//!   update stream the project tests with); the time may have a fraction (`1418774413.25`),
//!   `a`/`w` may be upper case, a withdrawal's next-hop column is ignored, extra columns are
//!   ignored, empty lines and `#` comments are skipped. Text has no peers.
//!
//! An announcement's next hop is the text of its BGP next hop (MRT: the peer's address when
//! the route has none, as for tables). The iterator yields every update before the first
//! damaged line or byte, then the error, then ends.

use crate::error::ReadError;
use crate::mrt::{EntryKind, MrtEntry, MrtReader, Peer, Safi};
use crate::open::{open_reader, peek};
use crate::table::{PeerFilter, ReadConfig};
use fibforge::{AnyPrefix, ParseMode};
use std::io::{BufRead, Read};
use std::path::Path;

/// Announcement or withdrawal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UpdateKind {
    /// The prefix is (re)announced with a next hop.
    Announce,
    /// The prefix is withdrawn.
    Withdraw,
}

/// One route change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    /// Time in microseconds since the Unix epoch.
    pub time_us: u64,
    /// Announcement or withdrawal.
    pub kind: UpdateKind,
    /// The prefix.
    pub prefix: AnyPrefix,
    /// The next hop of an announcement (`None` for withdrawals, and for text announcements
    /// without a next-hop column).
    pub next_hop: Option<String>,
    /// The BGP peer (MRT only).
    pub peer: Option<Peer>,
}

impl Update {
    /// The time in seconds.
    pub fn time_secs(&self) -> f64 {
        self.time_us as f64 / 1e6
    }
}

type Input = Box<dyn BufRead + Send>;

/// Iterator over the updates of a file (see the module documentation).
pub struct UpdateReader {
    source: Source,
}

enum Source {
    Mrt { reader: MrtReader<Input>, filter: PeerFilter },
    Text(TextUpdates),
}

/// Opens an update file (MRT or text, plain or compressed).
pub fn read_updates(path: &Path, cfg: &ReadConfig) -> Result<UpdateReader, ReadError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path)
        .map_err(|err| ReadError::Io { source_name: name.clone(), err })?;
    read_updates_from(file, &name, cfg)
}

/// Reads updates from any byte source; `name` is used in errors. `cfg.mode` governs text
/// prefixes, `cfg.peer` selects MRT peers (asking for a peer of a text stream is an error).
pub fn read_updates_from<R: Read + Send + 'static>(
    source: R,
    name: &str,
    cfg: &ReadConfig,
) -> Result<UpdateReader, ReadError> {
    let (head, input) = peek(open_reader(source, name)?, 12, name)?;
    let source = if crate::mrt::looks_like_mrt(&head) {
        Source::Mrt { reader: MrtReader::new(input, name), filter: cfg.peer }
    } else if head.contains(&0) {
        // Binary data (a damaged MRT header, zeros) is never a text stream.
        return Err(crate::mrt::not_mrt(&head, name));
    } else if cfg.peer != PeerFilter::All {
        let reason = "a text update stream has no peers to select from".to_string();
        return Err(ReadError::Content { source_name: name.into(), reason });
    } else {
        Source::Text(TextUpdates { input, name: name.into(), mode: cfg.mode, line: 0, done: false })
    };
    Ok(UpdateReader { source })
}

impl Iterator for UpdateReader {
    type Item = Result<Update, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.source {
            Source::Mrt { reader, filter } => {
                for item in reader.by_ref() {
                    match item {
                        Ok(e) if selected(&e, *filter) => return Some(Ok(from_mrt(&e))),
                        Ok(_) => {}
                        Err(e) => return Some(Err(e)),
                    }
                }
                None
            }
            Source::Text(text) => text.next(),
        }
    }
}

fn selected(e: &MrtEntry, filter: PeerFilter) -> bool {
    e.safi == Safi::Unicast
        && match filter {
            PeerFilter::All => true,
            PeerFilter::As(asn) => e.peer.asn == asn,
            PeerFilter::Ip(ip) => e.peer.ip == ip,
        }
}

fn from_mrt(e: &MrtEntry) -> Update {
    let (kind, next_hop) = match e.kind {
        EntryKind::Withdraw => (UpdateKind::Withdraw, None),
        EntryKind::Announce | EntryKind::Rib => {
            (UpdateKind::Announce, Some(e.next_hop.unwrap_or(e.peer.ip).to_string()))
        }
    };
    Update { time_us: e.time_us, kind, prefix: e.prefix, next_hop, peer: Some(e.peer) }
}

/// Text lines `unixtime a|w prefix [nexthop]`.
struct TextUpdates {
    input: Input,
    name: String,
    mode: ParseMode,
    line: u64,
    done: bool,
}

impl TextUpdates {
    fn next(&mut self) -> Option<Result<Update, ReadError>> {
        let mut buf = Vec::new();
        while !self.done {
            buf.clear();
            match crate::text::read_line(&mut self.input, &mut buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    self.line += 1;
                    // The table reader's line rules: a length cap, no CR-only endings, no
                    // control bytes.
                    let line = crate::text::check_line(&buf, self.line);
                    match line.and_then(|line| parse_update_line(line, self.mode)) {
                        Ok(None) => {}
                        Ok(Some(update)) => return Some(Ok(update)),
                        Err(reason) => return Some(Err(self.fail(reason))),
                    }
                }
                Err(err) => {
                    self.done = true;
                    let source_name = format!("{}:{}", self.name, self.line + 1);
                    return Some(Err(ReadError::Io { source_name, err }));
                }
            }
        }
        None
    }

    fn fail(&mut self, reason: String) -> ReadError {
        self.done = true;
        ReadError::Line { source_name: self.name.clone(), line: self.line, reason }
    }
}

/// Parses one line; `Ok(None)` for blank lines and comments.
fn parse_update_line(raw: &[u8], mode: ParseMode) -> Result<Option<Update>, String> {
    let line = std::str::from_utf8(raw)
        .map_err(|_| format!("line is not valid UTF-8: {}", crate::error::quote(raw)))?;
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut cols = line.split_ascii_whitespace();
    let (time, kind, prefix) = match (cols.next(), cols.next(), cols.next()) {
        (Some(t), Some(k), Some(p)) => (t, k, p),
        _ => return Err("expected 'unixtime a|w prefix [nexthop]'".into()),
    };
    let time_us = parse_time_us(time).ok_or_else(|| format!("'{time}' is not a Unix time"))?;
    let kind = match kind {
        "a" | "A" => UpdateKind::Announce,
        "w" | "W" => UpdateKind::Withdraw,
        _ => return Err(format!("'{kind}': expected 'a' (announce) or 'w' (withdraw)")),
    };
    let prefix = AnyPrefix::parse_with(prefix, mode).map_err(|e| e.to_string())?;
    let next_hop = match kind {
        UpdateKind::Announce => cols.next().map(str::to_string),
        UpdateKind::Withdraw => None,
    };
    Ok(Some(Update { time_us, kind, prefix, next_hop, peer: None }))
}

/// Seconds with an optional fraction of up to 6 digits, as microseconds.
fn parse_time_us(text: &str) -> Option<u64> {
    let (secs, frac) = text.split_once('.').unwrap_or((text, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if secs.is_empty() || !all_digits(secs) || !all_digits(frac) || frac.len() > 6 {
        return None;
    }
    let micros: u64 = format!("{frac:0<6}").parse().ok()?;
    secs.parse::<u64>().ok()?.checked_mul(1_000_000)?.checked_add(micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Result<Update, ReadError>> {
        let cfg = ReadConfig::default();
        read_updates_from(std::io::Cursor::new(text.to_string()), "t", &cfg).unwrap().collect()
    }

    #[test]
    fn reads_text_updates_and_stops_at_the_first_bad_line() {
        let all = read(
            "# c\n1 a 10.0.0.0/8 192.0.2.1\n\n2.5 W 2001:db8::/32 ::\n3 x 10.0.0.0/8\n4 a 11.0.0.0/8 h\n",
        );
        assert_eq!(all.len(), 3, "two updates, the error, nothing after it");
        let a = all[0].as_ref().unwrap();
        assert_eq!(
            (a.time_us, a.kind, a.next_hop.as_deref()),
            (1_000_000, UpdateKind::Announce, Some("192.0.2.1"))
        );
        let w = all[1].as_ref().unwrap();
        assert_eq!(
            (w.time_us, w.kind, w.next_hop.clone()),
            (2_500_000, UpdateKind::Withdraw, None)
        );
        let msg = all[2].as_ref().unwrap_err().to_string();
        assert!(msg.contains("t:5") && msg.contains("'x'"), "{msg}");
    }

    #[test]
    fn rejects_bad_times_prefixes_and_short_lines() {
        for bad in
            ["x a 10.0.0.0/8", "1.1234567 a 10.0.0.0/8", "1 a 10.0.0.1/8", "1 a", "-1 a 10.0.0.0/8"]
        {
            let all = read(bad);
            assert!(all.len() == 1 && all[0].is_err(), "{bad}");
        }
    }

    #[test]
    fn update_lines_follow_the_table_rules_and_zeros_are_not_text() {
        use std::io::Read;
        let long = std::io::repeat(b'1').take(4 * crate::text::MAX_LINE_LEN as u64);
        let mut r = read_updates_from(long, "long", &ReadConfig::default()).unwrap();
        let msg = r.next().unwrap().unwrap_err().to_string();
        assert!(msg.starts_with("long:1:") && msg.contains("byte limit") && msg.len() < 400);
        let msg = read("1 a 10.0.0.0/8 x\r2 a 11.0.0.0/8 y\r")[0].as_ref().unwrap_err().to_string();
        assert!(msg.contains("CR-only"), "{msg}");
        let zeros = std::io::repeat(0).take(1 << 30);
        let e = read_updates_from(zeros, "zeros", &ReadConfig::default()).err().unwrap();
        assert!(e.to_string().contains("first MRT record header"), "{e}");
    }

    #[test]
    fn text_streams_have_no_peers_to_select() {
        let cfg = ReadConfig { peer: PeerFilter::As(1), ..Default::default() };
        assert!(read_updates_from(std::io::Cursor::new("1 a 10.0.0.0/8 x\n"), "t", &cfg).is_err());
    }
}
