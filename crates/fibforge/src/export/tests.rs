use super::*;

fn sample() -> ExportFile {
    let mut params = [0; PARAMS];
    params[0] = 7;
    ExportFile {
        algorithm: Algorithm::Poptrie,
        family: 4,
        params,
        arrays: vec![Array::of(&[1u32, 2, 3]), Array::of::<u64>(&[]), Array::of(&[9u16; 5])],
        hops: vec!["192.0.2.1".into(), "gw b".into()],
    }
}

#[test]
fn round_trip_keeps_every_field_and_aligns_arrays() {
    let f = sample();
    let bytes = f.to_bytes();
    assert_eq!(ExportFile::from_bytes(&bytes).unwrap(), f);
    for i in 0..4 {
        let off = u64::from_le_bytes(bytes[176 + 24 * i..184 + 24 * i].try_into().unwrap());
        assert_eq!(off % ALIGN as u64, 0);
    }
    assert_eq!(f.arrays[0].values::<u32>("a").unwrap(), vec![1, 2, 3]);
    assert!(f.arrays[0].values::<u64>("a").is_err());
}

#[test]
fn every_truncation_is_reported_as_truncated() {
    let bytes = sample().to_bytes();
    let empty = ExportFile::from_bytes(&[]).unwrap_err().to_string();
    assert!(empty.contains("empty file"), "{empty}");
    for n in 1..bytes.len() {
        let e = ExportFile::from_bytes(&bytes[..n]).unwrap_err().to_string();
        assert!(e.contains("truncated: ") && e.contains(&format!("the file has {n}")), "{n}: {e}");
    }
    let cut = ExportFile::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err().to_string();
    let want =
        format!("the header promises {} bytes, the file has {}", bytes.len(), bytes.len() - 1);
    assert!(cut.contains(&want), "{cut}");
    // Not a cut export: foreign bytes, and a complete file with a flipped byte.
    let foreign = ExportFile::from_bytes(b"0.0.0.0/0 x\n").unwrap_err().to_string();
    assert!(foreign.contains("bad magic"), "{foreign}");
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    let e = ExportFile::from_bytes(&flipped).unwrap_err().to_string();
    assert!(e.contains("checksum mismatch"), "{e}");
}

#[test]
fn every_flipped_byte_is_an_error() {
    let bytes = sample().to_bytes();
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        assert!(ExportFile::from_bytes(&b).is_err(), "byte {i} flipped");
    }
}

/// Rewrites the checksum so that only the structural checks stand between a forged header and
/// the arrays.
fn forge(mut b: Vec<u8>, at: usize, value: u64) -> Vec<u8> {
    b[at..at + 8].copy_from_slice(&value.to_le_bytes());
    let sum = fnv1a64(&b[32..]);
    b[24..32].copy_from_slice(&sum.to_le_bytes());
    b
}

#[test]
fn forged_lengths_and_offsets_are_errors_not_panics() {
    let bytes = sample().to_bytes();
    let first = HEADER_BYTES;
    for (field, value) in [(8, u64::MAX), (8, 1 << 40), (16, u64::MAX), (16, 0), (16, 65)] {
        let b = forge(bytes.clone(), first + field, value);
        assert!(ExportFile::from_bytes(&b).is_err(), "field {field} = {value}");
    }
}

#[test]
fn probe_files_round_trip() {
    let mut rib: crate::Rib<u32> = crate::Rib::new();
    rib.insert("10.0.0.0/8".parse().unwrap(), crate::NextHop::from_index(3));
    let bytes = write_probes(&rib, &[0x0a01_0203, 0x0b00_0000]);
    let p = ProbeFile::from_bytes(&bytes).unwrap();
    assert_eq!(p.addrs, vec![0x0a01_0203, 0x0b00_0000]);
    assert_eq!(p.answers, vec![4, 0]);
    assert!(ProbeFile::from_bytes(&bytes[..bytes.len() - 1]).is_err());
}
