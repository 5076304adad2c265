//! Loads a table and prints counts, time and RIB bytes per prefix: `cargo run --release --example load FILE`.
fn main() {
    for arg in std::env::args().skip(1) {
        let t0 = std::time::Instant::now();
        let t = fibforge_io::read_table(arg.as_ref(), &Default::default()).unwrap();
        let dt = t0.elapsed();
        let bytes = t.v4.memory_bytes() + t.v6.memory_bytes();
        println!(
            "{arg}: v4 {} v6 {} hops {} dups {} in {:.3}s, RIB {:.1} B/prefix",
            t.v4.len(),
            t.v6.len(),
            t.hops.len(),
            t.duplicates,
            dt.as_secs_f64(),
            bytes as f64 / t.len() as f64
        );
    }
}
