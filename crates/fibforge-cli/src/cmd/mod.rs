//! One module per subcommand.

pub mod algos;
pub mod expand;
pub mod bench;
pub mod lookup;
pub mod stats;
pub mod verify;
mod verify_multi;
