//! One module per subcommand.

pub mod algos;
pub mod bench;
mod bench_multi;
mod bench_papers;
pub mod expand;
pub mod export;
pub mod lookup;
mod presets;
pub mod replay;
pub mod replay_algos;
pub mod replay_vrf;
pub mod soak;
pub mod stats;
pub mod verify;
pub mod verify_multi;
