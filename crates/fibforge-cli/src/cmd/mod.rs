//! One module per subcommand. `bench` and its helpers need the `bench` feature; without it
//! `bench_absent.rs` stands in and says how to get it.

pub mod algos;
#[cfg(feature = "bench")]
pub mod bench;
#[cfg(not(feature = "bench"))]
#[path = "bench_absent.rs"]
pub mod bench;
#[cfg(feature = "bench")]
mod bench_multi;
pub mod expand;
pub mod export;
pub mod lookup;
pub mod replay;
pub mod replay_algos;
pub mod replay_vrf;
pub mod snapshot;
pub mod soak;
pub mod stats;
pub mod verify;
pub mod verify_multi;
