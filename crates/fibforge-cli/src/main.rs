#![warn(clippy::undocumented_unsafe_blocks)]
//! `fibforge`: build, check and measure longest-prefix-match structures on real tables.
//!
//! Each subcommand lives in `cmd/<name>.rs`. User mistakes (missing files, malformed tables,
//! unknown algorithms) and failed writes (to standard output, `out.rs`, or to a file) print
//! one coloured `error:` line and exit with status 2; a verification mismatch exits with
//! status 1. A closed pipe ends the run quietly (`out.rs`).
//!
//! `fibforge bench` needs the `bench` feature (`--features bench`); without it the
//! subcommand is still listed and says how to get it.

mod args;
mod cmd;
mod files;
mod load;
mod out;
mod progress;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

/// Counts live heap bytes so that peers without a memory figure can be measured (only in
/// the build with `fibforge bench`, the one command that measures it).
#[cfg(feature = "bench")]
#[global_allocator]
static ALLOC: fibforge_bench::alloc::Counting = fibforge_bench::alloc::Counting;

#[derive(Parser)]
#[command(
    name = "fibforge",
    version,
    about = "Longest-prefix-match structures, verified and measured"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the available algorithms and the families they support.
    Algos,
    /// Print prefix counts, next hops and histograms of a table.
    Stats(cmd::stats::Args),
    /// Look up addresses (arguments, or stdin one per line).
    Lookup(cmd::lookup::Args),
    /// Compare algorithms against the RIB oracle.
    Verify(cmd::verify::Args),
    /// Controlled prefix expansion: the trie strides and memory the dynamic programs choose.
    Expand(cmd::expand::Args),
    /// Build, verify and benchmark algorithms and peers side by side (tables, JSON, plots).
    #[cfg_attr(
        not(feature = "bench"),
        command(about = "Benchmarks (not in this build: install with --features bench)")
    )]
    Bench(cmd::bench::Args),
    /// Replay a BGP update stream onto a concurrent table while readers look up.
    Replay(cmd::replay::Args),
    /// Long perturbed update replay with every reader answer checked and memory sampled.
    Soak(cmd::soak::Args),
    /// Write a compiled structure (sail_l, poptrie, bloomfwd) to a file that lookup and stats read.
    Export(cmd::export::Args),
    /// Write a table (both families) as an IpTable snapshot that Rust programs map and query.
    Snapshot(cmd::snapshot::Args),
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    let result = run(cli.command).and_then(|code| {
        // What a command left unflushed: a failure here is the command's failure.
        out::stdout().flush()?;
        Ok(code)
    });
    match result {
        Ok(code) => code,
        Err(e) if out::closed_pipe(&e) => closed_pipe_status(),
        Err(e) => {
            report(&e);
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Algos => cmd::algos::run(),
        Command::Stats(a) => cmd::stats::run(a),
        Command::Lookup(a) => cmd::lookup::run(a),
        Command::Verify(a) if a.table.path.is_dir() => cmd::verify_multi::run(&a),
        Command::Verify(a) => cmd::verify::run(a),
        Command::Expand(a) => cmd::expand::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Replay(a) => cmd::replay::run(a),
        Command::Soak(a) => cmd::soak::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Snapshot(a) => cmd::snapshot::run(a),
    }
}

fn report(e: &anyhow::Error) {
    use owo_colors::OwoColorize;
    crate::out::diag!("{} {e:#}", "error:".red().bold());
}

/// Prints clap's help, version or usage error and exits with clap's status; help or version
/// that cannot be written to standard output is an error (status 2), as any failed write.
fn clap_exit(e: &clap::Error) -> ExitCode {
    let printed = e.print().and_then(|()| std::io::stdout().flush());
    match printed {
        Err(w) if !e.use_stderr() && out::is_closed_pipe(&w) => closed_pipe_status(),
        Err(w) if !e.use_stderr() => {
            report(&out::named(w).into());
            ExitCode::from(2)
        }
        _ => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
    }
}

/// The status of a run whose reader closed the pipe while SIGPIPE was blocked (so the write
/// failed instead of ending the process): 128 + 13 (SIGPIPE), what a shell reports for a
/// process that SIGPIPE ended, the usual end of such a run.
fn closed_pipe_status() -> ExitCode {
    ExitCode::from(141)
}

/// Lets `fibforge lookup ... | head` (any command) end quietly when the reader closes the
/// pipe, as other Unix tools do, instead of reporting a failed write.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE and no Rust state depends on the previous (ignored) one.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
