//! One module per subcommand.

pub mod algos;
pub mod bench;
mod bench_multi;
pub mod expand;
pub mod lookup;
mod presets;
pub mod replay;
pub mod replay_algos;
pub mod stats;
pub mod verify;
mod verify_multi;
