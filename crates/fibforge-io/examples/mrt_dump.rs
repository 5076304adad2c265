//! Prints the entries of MRT files, one per line, in a `bgpdump -m`-like form:
//! `time|A/W/B|peer_ip|peer_as|prefix|next_hop|path_id`. Usage: `mrt_dump FILE...`.
use fibforge_io::mrt::{EntryKind, MrtReader};
use std::io::Write;

fn main() {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for arg in std::env::args().skip(1) {
        let input = match fibforge_io::open(arg.as_ref()) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        let mut reader = MrtReader::new(input, &arg);
        for item in reader.by_ref() {
            match item {
                Ok(e) => {
                    let kind = match e.kind {
                        EntryKind::Rib => 'B',
                        EntryKind::Announce => 'A',
                        EntryKind::Withdraw => 'W',
                    };
                    let hop = e.next_hop.map(|h| h.to_string()).unwrap_or_default();
                    let id = e.path_id.map(|i| i.to_string()).unwrap_or_default();
                    let line = format!(
                        "{:.6}|{kind}|{}|{}|{}|{hop}|{id}",
                        e.time_secs(),
                        e.peer.ip,
                        e.peer.asn,
                        e.prefix
                    );
                    if writeln!(out, "{line}").is_err() {
                        return;
                    }
                }
                Err(e) => eprintln!("error: {e}"),
            }
        }
        eprintln!("{arg}: {:?}", reader.stats());
    }
}
