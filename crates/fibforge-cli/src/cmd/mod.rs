//! One module per subcommand.

pub mod algos;
pub mod bench;
pub mod expand;
pub mod lookup;
pub mod replay;
pub mod stats;
pub mod verify;
mod verify_multi;
