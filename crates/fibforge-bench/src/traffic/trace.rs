//! Trace files: destinations to replay in order.
//!
//! Text address lists (one address per line, `#` comments, blank lines, plain/gzip/bzip2) are
//! read here; lines of the other family are skipped. Packet captures (pcap/pcapng, recognised
//! by their magic number) are read by `fibforge-io`'s trace reader once it is available; until
//! then they are reported as unsupported rather than misread.

use fibforge::Address;
use std::io::BufRead;
use std::path::Path;

const PCAP_MAGICS: [[u8; 4]; 5] = [
    [0xd4, 0xc3, 0xb2, 0xa1],
    [0xa1, 0xb2, 0xc3, 0xd4],
    [0x4d, 0x3c, 0xb2, 0xa1],
    [0xa1, 0xb2, 0x3c, 0x4d],
    [0x0a, 0x0d, 0x0d, 0x0a],
];

/// Reads the addresses of family `A` from a trace file.
pub fn read_trace<A: Address>(path: &Path) -> Result<Vec<A>, String> {
    let mut input = fibforge_io::open(path).map_err(|e| e.to_string())?;
    let head = input.fill_buf().map_err(|e| format!("{}: {e}", path.display()))?;
    if head.len() >= 4 && PCAP_MAGICS.iter().any(|m| head[..4] == *m) {
        return Err(format!(
            "{}: packet captures need the pcap reader of fibforge-io (not built in yet); \
             give a text list of addresses instead",
            path.display()
        ));
    }
    let mut out = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        let text = line.split('#').next().unwrap_or("").trim();
        let Some(first) = text.split_whitespace().next() else { continue };
        let is_v6 = first.contains(':');
        if is_v6 != (A::BITS == 128) {
            continue;
        }
        match fibforge::addr::parse_addr::<A>(first) {
            Some(a) => out.push(a),
            None => return Err(format!("{}:{}: not an address: '{first}'", path.display(), n + 1)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_lists_by_family() {
        let dir = std::env::temp_dir().join(format!("ffb-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.txt");
        std::fs::write(&f, "# c\n1.2.3.4\n\n2001:db8::1 x\n5.6.7.8 # y\n").unwrap();
        assert_eq!(read_trace::<u32>(&f).unwrap(), vec![0x0102_0304, 0x0506_0708]);
        assert_eq!(read_trace::<u128>(&f).unwrap().len(), 1);
        std::fs::write(&f, "1.2.3.999\n").unwrap();
        assert!(read_trace::<u32>(&f).unwrap_err().contains(":1:"));
        std::fs::write(&f, [0xd4, 0xc3, 0xb2, 0xa1, 0, 0]).unwrap();
        assert!(read_trace::<u32>(&f).unwrap_err().contains("pcap"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
