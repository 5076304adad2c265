//! Standard output for every command, with write failures reported, never a panic.
//!
//! Why: `println!` panics when the write fails (`fibforge algos > /dev/full` exited 101 with a
//! backtrace), and a failed write that std leaves to the final flush at exit is lost
//! (`fibforge --help > /dev/full` exited 0). So commands write with `writeln!(out, ...)?` to
//! [`Stdout`], whose errors say "writing to standard output: ..."; `main` reports them as any
//! other error (status 2) and flushes standard output itself before it exits.
//!
//! A closed pipe (`fibforge algos | head -1`) stays silent: `main` restores SIGPIPE's default
//! action, which ends the process quietly at the first write into the closed pipe, as other
//! Unix tools end. Where the signal is blocked the write fails with `BrokenPipe` instead, and
//! [`closed_pipe`] lets `main` end just as quietly.

use std::io::{self, Write};

/// Standard output (line-buffered by std, as `println!` is: progress reaches a terminal or a
/// pipe line by line), with errors that name it.
pub struct Stdout(io::Stdout);

/// The process's standard output; not locked, so that another thread may write too.
pub fn stdout() -> Stdout {
    Stdout(io::stdout())
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(named)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf).map_err(named)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(named)
    }
}

/// `e`, with its kind, as a failure to write to standard output.
pub fn named(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("writing to standard output: {e}"))
}

/// True when `e` comes from a write into a closed pipe (which ends a run quietly).
pub fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(is_closed_pipe))
}

/// True for the error of a write into a closed pipe.
pub fn is_closed_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// `eprintln!` that cannot panic: a diagnostic (progress, a warning, the final error) goes to
/// standard error if it can, and a closed or full standard error neither panics (as
/// `eprintln!` does) nor changes the command's outcome.
macro_rules! diag {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(anstream::stderr(), $($arg)*);
    }};
}
pub(crate) use diag;
