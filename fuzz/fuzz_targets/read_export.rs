//! Export files (`docs/export-format.md`): any bytes, with the checksum made right so that the
//! fuzzer reaches the structural checks behind it, either parse and import into a structure
//! whose lookups stay in bounds and end, or are refused with an error; never a panic.
#![no_main]
use fibforge::Lookup;
use fibforge::export::{ExportFile, fnv1a64, import};
use libfuzzer_sys::fuzz_target;

fn probe<A: fibforge::export::ExportKey>(file: &ExportFile, data: &[u8]) {
    if let Ok(fib) = import::<A>(file) {
        let mut addrs = vec![A::ZERO, A::from_u128(u128::MAX)];
        for chunk in data.chunks_exact(16).take(64) {
            addrs.push(A::from_u128(u128::from_le_bytes(chunk.try_into().unwrap())));
        }
        for &a in &addrs {
            fib.lookup(a);
        }
        let mut out = vec![None; addrs.len()];
        fib.lookup_batch(&addrs, &mut out);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    if bytes.len() >= 32 {
        let sum = fnv1a64(&bytes[32..]);
        bytes[24..32].copy_from_slice(&sum.to_le_bytes());
    }
    let Ok(file) = ExportFile::from_bytes(&bytes) else { return };
    probe::<u32>(&file, data);
    probe::<u128>(&file, data);
});
