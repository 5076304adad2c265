//! `fibforge bench` in a build without the `bench` feature: the subcommand stays listed and
//! says how to get the harness instead of failing as an unknown command.

use std::ffi::OsString;
use std::process::ExitCode;

/// Whatever was given after `bench`; none of it is read.
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<OsString>,
}

/// What to run instead.
pub const HOW: &str = "this fibforge was built without the bench feature; install it with \
     `cargo install --path crates/fibforge-cli --features bench` or run \
     `cargo run --release -p fibforge-cli --features bench -- bench`";

/// Fails with [`HOW`].
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("{HOW}")
}
