//! One module per subcommand.

pub mod algos;
pub mod bench;
pub mod lookup;
pub mod stats;
pub mod verify;
